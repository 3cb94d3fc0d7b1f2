# Hi/Lo under concurrency: clients connecting anew for every transaction
# race on the first draws of 30 fresh keys (some inside transactions that
# roll back) and keep drawing small blocks.  No id may come twice (the
# primary keys would refuse the insert, and pgbench would fail).  Each key
# was made by hilo_create_key() after its CREATE TABLE, so a first draw
# makes nothing: every table keeps exactly its one sequence.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_concurrency');
$node->init;
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');
$node->safe_psql('postgres', 'ALTER DATABASE postgres SET id_gen.hilo_max_lo = 4');
for my $i (1 .. 30)
{
	$node->safe_psql('postgres',
		"CREATE TABLE t$i (id bigint PRIMARY KEY DEFAULT hilo_next('t$i'), v int); SELECT hilo_create_key('t$i')");
}

# Twelve clients at once on one fresh key, before anyone drew from it.
$node->safe_psql('postgres', q{CREATE TABLE fresh (id bigint PRIMARY KEY DEFAULT hilo_next('fresh')); SELECT hilo_create_key('fresh')});
$node->pgbench(
	'--no-vacuum --client=12 --transactions=5',
	0,
	[qr{processed: 60/60}],
	[qr{^$}],
	'twelve first draws of one key',
	{ '001_fresh' => q{INSERT INTO fresh SELECT FROM generate_series(1, 3);} });
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM fresh'), '180|180',
	'every row of the fresh key inserted, no duplicate');

$node->pgbench(
	'--no-vacuum --client=6 --transactions=60 --connect',
	0,
	[qr{processed: 360/360}],
	[qr{^$}],
	'concurrent first draws, rollbacks and small blocks',
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
	SELECT count(*), count(DISTINCT table_name), count(DISTINCT sequence), bool_and(own_sequence)
	  FROM id_gen.hilo_keys}),
	'31|31|31|t', 'each key (fresh and the 30) once, each with its own sequence');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM pg_class c WHERE c.relkind = 'S' AND c.relnamespace = 'public'::regnamespace}),
	'31', 'no other sequence was made');

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
