# Hi/Lo block size changes under load: clients keep their sessions (and so
# their held blocks) while others ALTER SEQUENCE ... INCREMENT BY the key's
# sequence, committed or rolled back, some after drawing in the same
# transaction.  The sequence counts ids (value v gives v - INCREMENT + 1 ..
# v), so a block drawn under any increment lies at or below the sequence's
# last value and every later block above it; a block drawn from the
# relfilenode of a transaction that rolls back is dropped by its session,
# and the others never saw that relfilenode.  So no id may come twice (the
# primary key would refuse the insert, and pgbench would fail) and no
# client may fail.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_changes_under_load');
$node->init;
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'), v int);
	SELECT hilo_create_key('t', max_lo => 5);
});

$node->pgbench(
	'--no-vacuum --client=4 --transactions=80 --max-tries=50',
	0,
	[qr{processed: 320/320}],
	[qr{^$}],
	'inserts while the block size changes, committed, rolled back, rolled back after a draw',
	{
		'001_hilo_insert@4' => q{
			INSERT INTO t (v) SELECT g FROM generate_series(1, 7) g;
		},
		'002_hilo_resize_rolled_back@2' => q{
			BEGIN;
			ALTER SEQUENCE t_id_seq INCREMENT BY 500;
			INSERT INTO t (v) VALUES (-1);
			ROLLBACK;
		},
		'003_hilo_resize_after_draw_rolled_back@1' => q{
			BEGIN;
			INSERT INTO t (v) VALUES (0);
			SAVEPOINT s;
			ALTER SEQUENCE t_id_seq INCREMENT BY 3;
			INSERT INTO t (v) SELECT g FROM generate_series(1, 4) g;
			ROLLBACK TO SAVEPOINT s;
			INSERT INTO t (v) SELECT g FROM generate_series(1, 4) g;
			COMMIT;
		},
		'004_hilo_resize@1' => q{
			\set m random(1, 8)
			ALTER SEQUENCE t_id_seq INCREMENT BY :m;
		}
	});

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) AND min(id) >= 1 FROM t'),
	't', 'no duplicate ids, none below 1');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '>', 0, 'rows were inserted');
cmp_ok($node->safe_psql('postgres', 'SELECT max(id) FROM t'), '<=',
	$node->safe_psql('postgres', 'SELECT last_value FROM t_id_seq'),
	'every id lies at or below the sequence\'s last value');

# A change rolled back after a draw under the new size in its transaction
# does not bring those ids back to another session.
my $changer = $node->background_psql('postgres');
$changer->query_safe("BEGIN; ALTER SEQUENCE t_id_seq INCREMENT BY 400");
my $rolled = $changer->query_safe("INSERT INTO t (v) VALUES (2) RETURNING id");
$changer->query_safe('ROLLBACK');
my $other = $node->safe_psql('postgres', 'INSERT INTO t (v) SELECT g FROM generate_series(1, 20) g RETURNING id');
my $again = $changer->query_safe('INSERT INTO t (v) SELECT g FROM generate_series(1, 20) g RETURNING id');
$changer->quit;
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM t'), 't',
	'the session that rolled back its change and another draw disjoint blocks afterwards');
$node->stop;
done_testing();
