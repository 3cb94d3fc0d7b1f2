# Nothing of Hi/Lo needs a background worker (issue 25, finding 8; issue
# 16, defect 4: a key's first use ran in a key worker, and any role's
# parallel queries could fill the slots).  With every background-worker
# slot held by another role's parallel query, an owner's hilo_create_key,
# first inserts, ALTER SEQUENCE of the key and an ORM form's draws all
# succeed at once.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_busy_worker_slots');
$node->init;
# Three slots besides the logical replication launcher's.
$node->append_conf('postgresql.conf', "max_worker_processes = 4\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE ROLE hostile;
	CREATE ROLE victim;
	CREATE SCHEMA m AUTHORIZATION hostile;
	CREATE SCHEMA a AUTHORIZATION victim;
	SET ROLE hostile;
	CREATE TABLE m.big AS SELECT g FROM generate_series(1, 100000) g;
	RESET ROLE;
	SET ROLE victim;
	CREATE TABLE a.orders (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'));
	CREATE SEQUENCE a.app_seq INCREMENT 20;
	CREATE TABLE a.orm (id bigint PRIMARY KEY DEFAULT hilo_next('a.app_seq', 'pooled_lo'));
});

# The role's parallel query holds every free slot.
my $parallel = $node->background_psql('postgres');
$parallel->query_until(qr/scanning/, q{
SET ROLE hostile;
SET max_parallel_workers_per_gather = 8;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
\echo scanning
SELECT count(*) FROM m.big WHERE pg_sleep(0.001) IS NOT NULL;
});
ok($node->poll_query_until('postgres',
	"SELECT count(*) >= 3 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
	'the parallel query holds every free background-worker slot');

# Each statement within 2 s, in a session of its own.
sub quick
{
	my ($sql, $what) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "SET ROLE victim; SET statement_timeout = '2s'; $sql");
	is($ret, 0, $what) or diag($err);
	return $out;
}
quick(q{SELECT hilo_create_key('a.orders')}, 'hilo_create_key');
is(quick('INSERT INTO a.orders DEFAULT VALUES RETURNING id', 'an owner\'s first insert'), '1',
	'and it gets id 1');
quick('ALTER SEQUENCE a.orders_id_seq INCREMENT BY 50', 'ALTER SEQUENCE of the key');
quick('INSERT INTO a.orders SELECT FROM generate_series(1, 100)', 'inserts after the change');
quick('INSERT INTO a.orm SELECT FROM generate_series(1, 100)', 'ORM form draws');
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM a.orders'), 't',
	'no id twice');
ok($node->safe_psql('postgres',
		"SELECT count(*) >= 3 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
	'the slots were held throughout');

$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT count(*) FROM m.big%'");
eval { $parallel->quit };
$node->stop;
done_testing();
