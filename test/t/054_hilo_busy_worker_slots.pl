# Nothing of Hi/Lo needs a background worker (issue 25, finding 8; issue
# 16, defect 4).  Before, a key's first use, a change and every ORM draw
# ran in a key worker: any role's parallel queries could fill the slots and
# another owner's first insert failed with 53000 after 5 s, and a role
# holding its own ORM hi row kept workers waiting.  Now a key is made by
# its table's DDL and every draw runs in the caller's backend, reading no
# hi row.  With every background-worker slot held by another role's
# parallel query, and that role holding its hi row FOR UPDATE, an owner's
# first inserts, hilo_set_max_lo, hilo_bind, hilo_bind_table and ORM draws
# all succeed at once.
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
	CREATE TABLE m.t_hi (next_hi integer);
	INSERT INTO m.t_hi VALUES (0);
	CREATE TABLE m.t (id bigint PRIMARY KEY DEFAULT hilo_next('m.t'));
	SELECT hilo_bind_table('m.t', 'm.t_hi', 'next_hi', 2);
	CREATE TABLE m.big AS SELECT g FROM generate_series(1, 100000) g;
	RESET ROLE;
	SET ROLE victim;
	CREATE TABLE a.orders (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'));
	CREATE TABLE a.orm (id bigint PRIMARY KEY DEFAULT hilo_next('a.orm'));
	CREATE TABLE a.orm_hi (next_hi integer);
	INSERT INTO a.orm_hi VALUES (0);
	CREATE SEQUENCE a.app_seq INCREMENT 20;
});

# The role holds its own hi row, and its parallel query every free slot.
my $holder = $node->background_psql('postgres');
$holder->query_safe('SET ROLE hostile; BEGIN; SELECT next_hi FROM m.t_hi FOR UPDATE;');
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
is(quick('INSERT INTO a.orders DEFAULT VALUES RETURNING id', 'an owner\'s first insert'), '1',
	'and it gets id 1');
quick(q{SELECT hilo_set_max_lo('a.orders', 50)}, 'hilo_set_max_lo');
quick('INSERT INTO a.orders SELECT FROM generate_series(1, 100)', 'inserts after the change');
quick(q{SELECT hilo_bind('a.orders', 'a.app_seq', 'pooled_lo')}, 'hilo_bind');
quick('INSERT INTO a.orders SELECT FROM generate_series(1, 100)', 'inserts after the binding');
quick(q{SELECT hilo_bind_table('a.orm', 'a.orm_hi', 'next_hi', 10)}, 'hilo_bind_table');
quick('INSERT INTO a.orm SELECT FROM generate_series(1, 100)', 'ORM draws');
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM a.orders'), 't',
	'no id twice');

# The role's own sessions draw from its ORM key while it holds the hi row:
# a draw reads no row.
my ($ret, $out, $err) = $node->psql('postgres',
	"SET ROLE hostile; SET statement_timeout = '2s'; INSERT INTO m.t SELECT FROM generate_series(1, 6)");
is($ret, 0, 'draws of an ORM key do not wait for its hi row, held FOR UPDATE') or diag($err);
ok($node->safe_psql('postgres',
		"SELECT count(*) >= 3 FROM pg_stat_activity WHERE backend_type = 'parallel worker'"),
	'the slots were held throughout');

$node->safe_psql('postgres',
	"SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT count(*) FROM m.big%'");
eval { $parallel->quit };
$holder->quit;
$node->stop;
done_testing();
