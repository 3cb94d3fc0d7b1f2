# Hi/Lo block size changes under load: clients keep their sessions (and so
# their cached blocks) while others change the key's block size, committed
# or rolled back, some after drawing in the same transaction.  A change is
# the owner's transactional ALTER TABLE of the default plus a setval()
# that only moves the sequence forward, above every id the old or the new
# formula could have given: a ROLLBACK restores the formula and gives back
# nothing.  The transaction that changed a key may not draw a new block
# from it (55000), since a ROLLBACK would restore the formula under which
# those ids could come again; a block a session already holds is still
# used.  So no id may come twice (the primary key would refuse the insert,
# and pgbench would fail) and no client may fail.
# Narrowed on purpose: the sequence never moves back, so a growing block
# keeps the hi value and multiplies the key's position in ids by new/old
# (before, a grow moved the key to a new sequence), and so does a shrink
# rolled back (its setval() for the smaller block stays).  So the committed
# sizes swing between 5 and 8 only, and the changes rolled back grow the
# block (to 500), which moves nothing.
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
	SELECT hilo_set_max_lo('t', 5);
	SELECT hilo_set_adaptive('t', false);	-- one block per draw: the ids tell the key's position
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
			SELECT hilo_set_max_lo('t', 500);
			ROLLBACK;
		},
		'003_hilo_resize_after_draw_rolled_back@1' => q{
			BEGIN;
			INSERT INTO t (v) VALUES (0);
			SELECT hilo_set_max_lo('t', 500);	-- a deadlock with the others' inserts is retried
			ROLLBACK;
		},
		'004_hilo_resize@1' => q{
			\set m random(5, 8)
			SELECT hilo_set_max_lo('t', :m);
		}
	});

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) AND min(id) >= 1 FROM t'),
	't', 'no duplicate ids, none below 1');
# at most ~1000 blocks of at most 500 ids were drawn: never rescaled
cmp_ok($node->safe_psql('postgres', 'SELECT max(id) FROM t'), '<', 1000000000, 'the ids stay far from the end');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM t'), '>', 0, 'rows were inserted');

# The transaction that changed the key draws no new block from it.
my ($ret, $out, $err) = $node->psql('postgres', q{
	BEGIN;
	SELECT hilo_set_max_lo('t', 50);
	INSERT INTO t (v) VALUES (1);}, extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/55000: cannot draw from the Hi\/Lo key of table t in the transaction that changed it/,
	'a draw in the transaction that changed the key: 55000');
# A change rolled back after draws under the new size in other sessions
# does not bring those ids back.
my ($reserved, $max_lo) = split /\|/, $node->safe_psql('postgres', 'SELECT reserved_to, max_lo FROM id_gen.hilo_keys');
my $changer = $node->background_psql('postgres');
$changer->query_safe("BEGIN; SELECT hilo_set_max_lo('t', 400)");
$changer->query_safe('ROLLBACK');
$changer->quit;
my $next = $node->safe_psql('postgres', 'INSERT INTO t (v) VALUES (2) RETURNING id');
cmp_ok($next, '>', $reserved, 'after a rolled-back change the key goes on above every id reserved before it');
is($node->safe_psql('postgres', 'SELECT max_lo FROM id_gen.hilo_keys'), $max_lo,
	'and the formula is the committed one');

# A shrink of the block rolled back: its setval() (every id the smaller
# block could give lies above the ids given so far) stays, the larger block
# comes back: the key jumps forward by the ratio, and hands out nothing twice.
$node->safe_psql('postgres', q{
	CREATE TABLE shrink (id bigint PRIMARY KEY DEFAULT hilo_next('shrink'));
	INSERT INTO shrink SELECT FROM generate_series(1, 10);
});
$node->safe_psql('postgres', "BEGIN; SELECT hilo_set_max_lo('shrink', 10); ROLLBACK;");
is($node->safe_psql('postgres', "SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'shrink'::regclass"),
	'1000', 'a shrink rolled back: the block size is the committed one');
is($node->safe_psql('postgres', 'INSERT INTO shrink DEFAULT VALUES RETURNING id'), '100000',
	'and the key goes on where the smaller block would have (hi 100 of 1000 ids)');
$node->stop;
done_testing();
