# jsid_next() under the adversities snowflake_next() is tested against, on
# its narrower layout (256 ids per millisecond, 16 worker ids):
#  - pgbench clients generating at once, past the per-millisecond sequence:
#    no duplicate, each client's ids increasing, all below 2^53;
#  - a crash, then a restart with the clock set back (within the floor's
#    reach, and a minute back, where jsids run ahead of the clock);
#  - a streaming standby (refuses: it carries the primary's worker id) and
#    its promotion (continues above the replicated floor, clock behind).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('jsid');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"id_gen.worker_id = 5\nmax_connections = 20\n");
$node->start;
$node->safe_psql('postgres',
	'CREATE EXTENSION id_gen; CREATE TABLE ids (phase text, client int, n bigserial, id bigint UNIQUE)');

# 1. Concurrency: 4 pgbench clients, 1000 ids per statement.
my $script = "$PostgreSQL::Test::Utils::tmp_check/jsid_bench.sql";
open(my $fh, '>', $script) or die;
print $fh "INSERT INTO ids (phase, client, id) SELECT 'bench', :client_id, jsid_next() FROM generate_series(1, 1000);\n";
close $fh;
$node->command_ok(
	[ 'pgbench', '-n', '-c', '4', '-j', '2', '-t', '50', '-f', $script, $node->connstr('postgres') ],
	'4 pgbench clients generate 200,000 jsids');
is($node->safe_psql('postgres',
	"SELECT count(*), count(DISTINCT id), max(id) < 9007199254740992 FROM ids WHERE phase = 'bench'"),
	'200000|200000|t', 'no duplicate among concurrent clients, all below 2^53');
is($node->safe_psql('postgres',
	"SELECT bool_and(id > prev) FROM (SELECT id, lag(id) OVER (PARTITION BY client ORDER BY n) AS prev"
	. " FROM ids WHERE phase = 'bench') s WHERE prev IS NOT NULL"),
	't', 'every client saw its ids strictly increase');
is($node->safe_psql('postgres',
	"SELECT max(c) <= 256 FROM (SELECT id >> 12, count(*) AS c FROM ids WHERE phase = 'bench' GROUP BY 1) s"),
	't', 'never more than 256 ids in a millisecond, whatever the number of clients');
cmp_ok($node->safe_psql('postgres',
	"SELECT count(*) FROM (SELECT id >> 12 FROM ids WHERE phase = 'bench' GROUP BY 1 HAVING count(DISTINCT client) > 1) s"),
	'>', 0, 'clients shared milliseconds (the test exercised contention)');
cmp_ok($node->safe_psql('postgres', 'SELECT next_ms_waits FROM jsid_state()'), '>', 0,
	'the per-millisecond sequence ran out and callers waited');
is($node->safe_psql('postgres', "SELECT count(DISTINCT (jsid_decode(id)).worker_id) || ':' || min((jsid_decode(id)).worker_id) FROM ids"),
	'1:5', 'every id carries worker id 5');

sub take
{
	my ($phase, $n) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO ids (phase, id) SELECT '$phase', jsid_next() FROM generate_series(1, $n)");
}

sub above
{
	my ($phase, $before) = @_;
	return $node->safe_psql('postgres',
		"SELECT (SELECT min(id) FROM ids WHERE phase = '$phase') > (SELECT max(id) FROM ids WHERE phase = '$before')");
}

# 2. A crash, then the clock 500 ms behind: inside the window where a floor
# saved after use would let ids repeat (Meituan Leaf #216).
take('before', 20000);
$node->stop('immediate');
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -500\n");
$node->start;
take('clock_back', 20000);
is(above('clock_back', 'before'), 't', 'after a crash with the clock 500 ms back, jsids continue above');
is(above('clock_back', 'bench'), 't', '... above the concurrent clients\' ids too');

# A clock a minute behind the floor: nothing refused, jsids continue above it.
$node->stop('immediate');
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -60000\n");
$node->start;
take('minute_back', 1000);
is(above('minute_back', 'clock_back'), 't', 'a clock a minute behind the floor: jsids continue above');
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = 0\n");
$node->restart;
take('fixed', 1000);
is(above('fixed', 'minute_back'), 't', 'with the clock fixed, jsids continue above');
my ($ret, $out, $err);

# 3. A streaming standby whose clock is 300 ms behind.
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('jsid_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -300\n");
$standby->start;
take('primary', 20000);
$node->wait_for_catchup($standby);
($ret, $out, $err) = $standby->psql('postgres', 'SELECT jsid_next()', extra_params => ['-v', 'VERBOSITY=verbose']);
like($err, qr/25006: jsid_next\(\) cannot be executed during recovery/, 'a standby refuses jsid_next() (25006)');
$node->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'promotion failed';
$standby->safe_psql('postgres', "INSERT INTO ids (phase, id) SELECT 'promoted', jsid_next() FROM generate_series(1, 20000)");
is($standby->safe_psql('postgres',
	"SELECT (SELECT min(id) FROM ids WHERE phase = 'promoted') > (SELECT max(id) FROM ids WHERE phase <> 'promoted')"),
	't', 'the promoted standby continues above every jsid of the old primary, its clock 300 ms behind');
is($standby->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM ids'), 't', 'no duplicate in the end');

$standby->stop;
done_testing();
