# Hi/Lo under concurrency: clients connecting anew for every transaction
# race on the first use of 30 fresh keys (some inside transactions that roll
# back) and keep drawing small blocks.  Every key must be created exactly
# once and no id may come twice (the primary keys would refuse the insert,
# and pgbench would fail).  Keys are created by a background worker, and
# the server has fewer worker slots than clients: first uses of one key
# share one worker, and a first use that finds no free slot waits for one.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_concurrency');
$node->init;
# Two slots for key workers (the logical replication launcher takes one).
$node->append_conf('postgresql.conf', "max_worker_processes = 3\n");
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');
$node->safe_psql('postgres', 'ALTER DATABASE postgres SET id_gen.hilo_max_lo = 4');
for my $i (1 .. 30)
{
	$node->safe_psql('postgres',
		"CREATE TABLE t$i (id bigint PRIMARY KEY DEFAULT hilo_next('t$i'), v int)");
}

# Twelve clients at once on one fresh key, before anyone drew from it.
$node->safe_psql('postgres', 'CREATE TABLE fresh (id bigint PRIMARY KEY DEFAULT hilo_next(\'fresh\'))');
$node->pgbench(
	'--no-vacuum --client=12 --transactions=5',
	0,
	[qr{processed: 60/60}],
	[qr{^$}],
	'twelve first uses of one key, two worker slots',
	{ '001_fresh' => q{INSERT INTO fresh SELECT FROM generate_series(1, 3);} });
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM fresh'), '180|180',
	'every row of the fresh key inserted, no duplicate');

$node->pgbench(
	'--no-vacuum --client=6 --transactions=60 --connect',
	0,
	[qr{processed: 360/360}],
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
	'31|31|31', 'each key (fresh and the 30) created once, each with its own sequence');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname = 'id_gen' AND c.relname ~ '^hilo_seq_[0-9]+$'}),
	'31', 'no orphaned sequence from a lost race');

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
