# Truly concurrent clients on one server (the isolation specs only
# interleave statements): the compare-and-swap on the shared state word must
# never hand one id to two backends, and each backend sees its ids increase.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('concurrent');
$node->init;
$node->append_conf('postgresql.conf', "id_gen.launch_id = 1\nmax_connections = 20\n");
$node->start;
$node->safe_psql('postgres',
	'CREATE EXTENSION id_gen; CREATE UNLOGGED TABLE ids (client int, n bigserial, sf bigint, dec bigint)');

my $clients = 4;
my $per_client = 150000;
# All clients wait for the same instant, then generate together.
my $start_at = $node->safe_psql('postgres', "SELECT clock_timestamp() + interval '1.5 s'");
my @runs;
for my $c (1 .. $clients)
{
	my ($out, $err) = ('', '');
	# Client 4 takes batches (LATERAL: one call per row of g), the others single ids.
	my $sql = $c == 4
	  ? "INSERT INTO ids (client, sf, dec) SELECT $c, b, decimal_id() FROM generate_series(1, " . ($per_client / 1000) . ") g, LATERAL snowflake_next_batch(1000 + 0 * g) b"
	  : "INSERT INTO ids (client, sf, dec) SELECT $c, snowflake_next(), decimal_id() FROM generate_series(1, $per_client)";
	push @runs, IPC::Run::start(['psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
		'-c', "SELECT pg_sleep_until('$start_at'); $sql"],
		'>', \$out, '2>', \$err);
}
ok($_->finish, 'client finished') for @runs;

is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT sf), count(DISTINCT dec) FROM ids'),
	join('|', ($clients * $per_client) x 3), 'no duplicate among concurrent clients');
is($node->safe_psql('postgres',
	'SELECT bool_and(sf > psf) AND bool_and(dec > pdec) FROM (SELECT sf, dec, lag(sf) OVER w AS psf, lag(dec) OVER w AS pdec'
	. ' FROM ids WINDOW w AS (PARTITION BY client ORDER BY n)) s'),
	't', 'every client saw its ids strictly increase');
is($node->safe_psql('postgres', 'SELECT count(DISTINCT (decimal_id_decode(dec)).generator_id) FROM ids'), '1',
	'all backends shared one decimal_id generator id');
# The clients overlapped: some millisecond holds ids of several clients.
cmp_ok($node->safe_psql('postgres',
	'SELECT count(*) FROM (SELECT sf >> 22 FROM ids GROUP BY 1 HAVING count(DISTINCT client) > 1) s'),
	'>', 0, 'clients shared milliseconds (the test exercised contention)');

$node->stop;
done_testing();
