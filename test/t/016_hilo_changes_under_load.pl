# Hi/Lo block size changes under load: clients keep their sessions (and so
# their cached blocks) while others change the key's block size, some in
# transactions that roll back after drawing under the new size, some after
# drawing in the same transaction.  Every change is committed at once by
# the key worker and draws wait for a change in progress (the key lock),
# so no id may come twice (the primary key would refuse the insert, and
# pgbench would fail) and no client may fail.  Sizes swing between 5 and
# 500: a key keeps its position in ids (a growing block moves the key to a
# new own sequence, dropped from under the other clients' draws), so a
# hundred wide swings leave the ids small instead of multiplying them.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_changes_under_load');
$node->init;
$node->append_conf('postgresql.conf', "max_worker_processes = 16\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'), v int);
	SELECT hilo_set_max_lo('t', 5);
});

$node->pgbench(
	'--no-vacuum --client=4 --transactions=80',
	0,
	[qr{processed: 320/320}],
	[qr{^$}],
	'inserts while the block size changes, committed and rolled back',
	{
		'001_hilo_insert@4' => q{
			INSERT INTO t (v) SELECT g FROM generate_series(1, 7) g;
		},
		'002_hilo_resize_rolled_back@2' => q{
			\set m random(5, 500)
			BEGIN;
			SELECT hilo_set_max_lo('t', :m);
			INSERT INTO t (v) SELECT g FROM generate_series(1, 5) g;
			ROLLBACK;
		},
		'003_hilo_resize_after_draw@1' => q{
			\set m random(5, 500)
			BEGIN;
			INSERT INTO t (v) VALUES (0);
			SELECT hilo_set_max_lo('t', :m);
			INSERT INTO t (v) SELECT g FROM generate_series(1, 3) g;
			COMMIT;
		}
	});

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) AND min(id) >= 1 FROM t'),
	't', 'no duplicate ids, none below 1');
# at most ~1000 blocks of at most 500 ids were drawn: never rescaled
cmp_ok($node->safe_psql('postgres', 'SELECT max(id) FROM t'), '<', 1000000, 'the ids stay small');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '>', 0, 'rows were inserted');

$node->stop;
done_testing();
