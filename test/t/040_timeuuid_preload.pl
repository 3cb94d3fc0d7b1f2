# timeuuid_next() on a server that preloads id_gen: its shared state is
# reserved at start-up, concurrent clients never get the same or an
# out-of-order id, and ids keep increasing across a restart.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('timeuuid');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'id_gen'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

is($node->safe_psql('postgres', 'SELECT uuid_extract_version(timeuuid_next())'),
	'7', 'timeuuid_next() works when preloaded');
is( $node->safe_psql(
		'postgres',
		"SELECT count(*) FROM pg_shmem_allocations WHERE name = 'id_gen timeuuid'"),
	'1',
	'its state lives in shared memory');

# Four clients insert concurrently; each row records the client and its own
# sequence of calls.  Within one client the calls happen one after another, so
# their ids must increase; across clients every id must be distinct.
$node->safe_psql('postgres',
	'CREATE TABLE made (client int, seq bigint GENERATED ALWAYS AS IDENTITY, id timeuuid)');
$node->pgbench(
	'--no-vacuum --client=4 --jobs=4 --transactions=500',
	0,
	[qr{processed: 2000/2000}],
	[qr{^$}],
	'concurrent clients generate ids',
	{
		'040_timeuuid_insert' => q{
			INSERT INTO made (client, id)
			SELECT :client_id, timeuuid_next() FROM generate_series(1, 20);
		}
	});
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM made'),
	'40000|40000', 'all 40000 ids are distinct');
is( $node->safe_psql(
		'postgres', q{
	SELECT count(*) FROM (
	  SELECT id, lag(id) OVER (PARTITION BY client ORDER BY seq) AS prev FROM made) s
	 WHERE prev >= id}),
	'0',
	'each client saw its ids strictly increase');

# Parallel workers share the same stream (PARALLEL SAFE is the truth).
$node->safe_psql('postgres',
	'CREATE TABLE big AS SELECT g FROM generate_series(1, 200000) g; ANALYZE big');
my $par = q{SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;};
like($node->safe_psql('postgres', "$par EXPLAIN (COSTS OFF) SELECT timeuuid_next() FROM big"),
	qr/Gather.*Parallel Seq Scan/s, 'timeuuid_next() runs in parallel workers');
is( $node->safe_psql(
		'postgres', qq{$par
	SELECT count(DISTINCT v) FROM (SELECT timeuuid_next() AS v FROM big) s}),
	'200000',
	'ids made by parallel workers are distinct');

# A restart: new ids still sort after the old ones (the wall clock has moved
# on; see docs/timeuuid.md, "Clock floor (restart safety)", for the clock floor that covers a clock stepped back).
my $before = $node->safe_psql('postgres', 'SELECT max(id) FROM made');
$node->restart;
is($node->safe_psql('postgres', "SELECT timeuuid_next() > '$before'::timeuuid"),
	't', 'ids after a restart follow those before it');

$node->stop;
done_testing();
