# Hi/Lo under concurrency: clients connecting anew for every transaction
# race on the first use of 30 fresh keys (some inside transactions that roll
# back) and keep drawing small blocks.  Every key must be created exactly
# once and no id may come twice (the primary keys would refuse the insert,
# and pgbench would fail).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_concurrency');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 16\n");
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');
$node->safe_psql('postgres', 'ALTER DATABASE postgres SET id_gen.hilo_max_lo = 4');
for my $i (1 .. 30)
{
	$node->safe_psql('postgres',
		"CREATE TABLE t$i (id bigint PRIMARY KEY DEFAULT hilo_next('t$i'), v int)");
}

$node->pgbench(
	'--no-vacuum --client=4 --transactions=60 --connect',
	0,
	[qr{processed: 240/240}],
	[qr{^$}],
	'concurrent first uses, rollbacks and small blocks',
	{
		'001_hilo_insert' => q{
			\set n random(1, 30)
			INSERT INTO t:n (v) SELECT g FROM generate_series(1, 3) g;
		},
		'002_hilo_rollback' => q{
			\set n random(1, 30)
			BEGIN;
			INSERT INTO t:n (v) SELECT g FROM generate_series(1, 5) g;
			ROLLBACK;
		}
	});

is($node->safe_psql('postgres', q{
	SELECT count(*), count(DISTINCT relid), count(DISTINCT seq) FROM id_gen.hilo_key}),
	'30|30|30', 'each key created once, each with its own sequence');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname = 'id_gen' AND c.relname ~ '^hilo_seq_[0-9]+$'}),
	'30', 'no orphaned sequence from a lost race');

my $dups = 0;
my $below_one = 0;
for my $i (1 .. 30)
{
	$dups += $node->safe_psql('postgres', "SELECT count(*) - count(DISTINCT id) FROM t$i");
	$below_one += $node->safe_psql('postgres', "SELECT count(*) FROM t$i WHERE id < 1");
}
is($dups, 0, 'no duplicate ids');
is($below_one, 0, 'no id below 1');

$node->stop;
done_testing();
