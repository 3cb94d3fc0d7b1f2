# Two servers writing into one table: distinct id_gen.worker_id keep their
# snowflake ids apart, distinct id_gen.launch_id keep their decimal ids
# apart, even when both generate in the same milliseconds with the same
# generator ids (both servers' sequences start at 0).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my @nodes;
for my $i (1, 2)
{
	my $n = PostgreSQL::Test::Cluster->new("server$i");
	$n->init;
	$n->append_conf('postgresql.conf', "id_gen.worker_id = $i\nid_gen.launch_id = $i\n");
	$n->start;
	$n->safe_psql('postgres', 'CREATE EXTENSION id_gen; CREATE TABLE local_ids (sf bigint, dec bigint)');
	push @nodes, $n;
}

# Both servers generate at the same time: each waits for the same instant
# (one machine, one clock) before it starts.
my $n_ids = 200000;
my $start_at = $nodes[0]->safe_psql('postgres', "SELECT clock_timestamp() + interval '1.5 s'");
my @runs;
for my $n (@nodes)
{
	my ($out, $err) = ('', '');
	my @cmd = ('psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $n->connstr('postgres'), '-c',
		"SELECT pg_sleep_until('$start_at'); INSERT INTO local_ids SELECT snowflake_next(), decimal_id() FROM generate_series(1, $n_ids)");
	push @runs, IPC::Run::start(\@cmd, '>', \$out, '2>', \$err);
}
ok($_->finish, 'generation finished') for @runs;

# Overlap in time is what makes the test meaningful.
my @range = map { [ split /\|/, $_->safe_psql('postgres', 'SELECT min(sf >> 22), max(sf >> 22) FROM local_ids') ] } @nodes;
ok($range[0][0] <= $range[1][1] && $range[1][0] <= $range[0][1], 'the two servers generated in overlapping milliseconds');

# Copy server 2's ids into server 1's table, which has unique constraints.
my $central = $nodes[0];
$central->safe_psql('postgres', 'CREATE TABLE ids (server int, sf bigint PRIMARY KEY, dec bigint UNIQUE)');
$central->safe_psql('postgres', 'INSERT INTO ids SELECT 1, sf, dec FROM local_ids');
my $copy = $nodes[1]->safe_psql('postgres', "SELECT string_agg(format('(2,%s,%s)', sf, dec), ',') FROM local_ids");
my ($ret, $out, $err) = $central->psql('postgres', "INSERT INTO ids VALUES $copy");
is($ret, 0, 'all ids of both servers fit one table with unique constraints') or diag($err);
is($central->safe_psql('postgres', 'SELECT count(*), count(DISTINCT sf), count(DISTINCT dec) FROM ids'),
	join('|', (2 * $n_ids) x 3), 'no duplicate among the ids of the two servers');
is($central->safe_psql('postgres',
	'SELECT count(DISTINCT (snowflake_decode(sf)).worker_id), count(DISTINCT (decimal_id_decode(dec)).launch_id) FROM ids'),
	'2|2', 'each server wrote its own worker id and launch id');
# Same generator id on both: only the launch id separates the decimal ids.
is($central->safe_psql('postgres',
	'SELECT count(DISTINCT (decimal_id_decode(dec)).generator_id) FROM ids'), '1',
	'both servers used generator id 0: distinct launch ids are what keeps them apart');

$_->stop for @nodes;
done_testing();
