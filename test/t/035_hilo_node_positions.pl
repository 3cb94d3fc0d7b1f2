# Where a server's Hi/Lo keys draw, and what a change of block size does to
# that position (issue 16, items 9 and 10).
#
# - A single server draws from 1 upward whatever id_gen.worker_id says: the
#   worker id is snowflake's.  Node ranges apply on Citus, or when
#   id_gen.hilo_node_ranges asks for them; then node n draws from its own
#   range of 2^43 ids, and the first 1024 nodes all stay below 2^53.
# - A change of block size never moves the key's sequence back: a shrink
#   keeps the key's position in ids, a grow keeps its hi value, so the
#   position is multiplied by new/old (narrowed on purpose: before, a grow
#   moved the key to a new sequence).  Every id is fresh either way; with
#   node ranges a grow that would carry the key past its node's range is
#   refused.  Each statement below runs in a
#   new session, so every insert after a change draws a new block.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_positions');
$node->init;
# the README's recommended setting for a node
$node->append_conf('postgresql.conf', "id_gen.worker_id = 1\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

# 1. A single server: ids from 1, small and legible.
$node->safe_psql('postgres', "CREATE TABLE single (id bigint PRIMARY KEY DEFAULT hilo_next('single'))");
is($node->safe_psql('postgres',
	'INSERT INTO single SELECT FROM generate_series(1, 3) RETURNING id'),
	"1\n2\n3", 'a single server with worker_id = 1 draws Hi/Lo ids from 1');

# 10, 25 inserts, $grown, 25 inserts, 10, 25 inserts; each insert a session.
sub grow_and_shrink
{
	my ($table, $grown) = @_;
	$node->safe_psql('postgres',
		"CREATE TABLE $table (id bigint PRIMARY KEY DEFAULT hilo_next('$table'), step int)");
	for my $step ([ 1, 10 ], [ 2, $grown ], [ 3, 10 ])
	{
		my ($n, $max_lo) = @$step;
		$node->safe_psql('postgres', "SELECT hilo_set_max_lo('$table', $max_lo)");
		for (1 .. 25)
		{
			my ($ret, $out, $err) = $node->psql('postgres', "INSERT INTO $table (step) VALUES ($n)");
			if ($ret != 0)
			{
				fail("$table: insert under max_lo $max_lo");
				diag($err);
				return;
			}
		}
	}
	pass("$table: 75 inserts across block sizes 10, $grown, 10");
}

# 2. Node ranges off (the default): the key stays near 1.
grow_and_shrink('s_single', 100);
is($node->safe_psql('postgres',
	'SELECT count(*), count(DISTINCT id), min(id) >= 1, max(id) < 100000,
	        bool_and(id > ALL (SELECT id FROM s_single o WHERE o.step < s.step))
	   FROM s_single s'),
	'75|75|t|t|t', 'single server: every id fresh, above every id of the earlier block sizes, still small');

# 3. Node ranges on: node 1 owns 2^43 .. 2^44 - 1.
is($node->safe_psql('postgres', 'SELECT first_id, last_id FROM hilo_node_range(1)'),
	'8796093022208|17592186044415', 'node 1 owns 2^43 ids');
is($node->safe_psql('postgres', 'SELECT last_id < 2^53 FROM hilo_node_range(1023)'),
	't', 'the last node\'s range ends below 2^53');
$node->append_conf('postgresql.conf', "id_gen.hilo_node_ranges = on\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT hilo_node_of(1) = 0 AND current_setting('id_gen.hilo_node_ranges') = 'on'")
  or die 'no reload';
grow_and_shrink('s_node', 15);
is($node->safe_psql('postgres',
	'SELECT count(*), count(DISTINCT id), bool_and(hilo_node_of(id) = 1),
	        bool_and(id > ALL (SELECT id FROM s_node o WHERE o.step < s.step))
	   FROM s_node s'),
	'75|75|t|t', 'node ranges: every id fresh and inside node 1\'s range');
# the key, made with blocks of 1000, starts at its range's first whole
# block of 1000, not 10 times past it
is($node->safe_psql('postgres', 'SELECT min(id) - 8796093022208 < 1000 FROM s_node'),
	't', 'the key starts at its node\'s range');

# A grow that would carry the key past node 1's range (twice the block
# from node 1's first ids reaches node 2's) would end the key for good, the
# sequence never moving back: it is refused, and the key keeps drawing.
my ($ret, $out, $err) = $node->psql('postgres', "SELECT hilo_set_max_lo('s_node', 100)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/2200H: .*past this node's range/, 'a grow past the node\'s range is refused');
is($node->safe_psql('postgres', "SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 's_node'::regclass"),
	'10', 'the block size is unchanged');
($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO s_node (step) VALUES (4) RETURNING hilo_node_of(id)');
is($out, '1', 'and the key keeps drawing in its range') or diag($err);

# 4. A key made before node ranges were on lies below the node's range:
# draws refuse, and the owner's hilo_set_floor() moves it into the range.
($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO single DEFAULT VALUES RETURNING id');
like($err, qr/lies below this node's range.*HINT:  As the table's owner: SELECT hilo_set_floor\('single'\)/s,
	'a key made before node ranges were on: the draw refuses, naming hilo_set_floor()');
$node->safe_psql('postgres', "SELECT hilo_set_floor('single')");
is($node->safe_psql('postgres',
	'INSERT INTO single DEFAULT VALUES RETURNING hilo_node_of(id)'),
	'1', 'after hilo_set_floor() it draws from the node\'s range');

# 5. Without a worker id, node ranges have nothing to go by: refused.
$node->append_conf('postgresql.conf', "id_gen.worker_id = -1\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT hilo_node_of(1) = 0 AND current_setting('id_gen.worker_id') = '-1'")
  or die 'no reload';
($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO single DEFAULT VALUES');
like($err, qr/id_gen\.worker_id/, 'node ranges without a worker id: an error naming the setting');

$node->stop;
done_testing();
