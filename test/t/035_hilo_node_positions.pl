# Where a server's Hi/Lo keys draw, and what a change of block size does to
# that position (issue 16, items 9 and 10).
#
# - A single server draws from 1 upward whatever id_gen.worker_id says: the
#   worker id is snowflake's.  Node ranges apply when id_gen.hilo_node_ranges
#   asks for them: then hilo_create_key() bounds node n's key sequences by
#   its range of 2^43 ids (MINVALUE, MAXVALUE), and the first 1024 nodes all
#   stay below 2^53.
# - A change of block size is ALTER SEQUENCE ... INCREMENT BY: the sequence
#   counts ids, so its position stays where it is and every later block
#   lies above every earlier one; the sequence's MAXVALUE ends a node's key
#   at its range's end.  Each statement below runs in a new session, so
#   every insert after a change draws a new block.
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
$node->safe_psql('postgres', "CREATE TABLE single (id bigint PRIMARY KEY DEFAULT hilo_next('single')); SELECT hilo_create_key('single')");
is($node->safe_psql('postgres',
	'INSERT INTO single SELECT FROM generate_series(1, 3) RETURNING id'),
	"1\n2\n3", 'a single server with worker_id = 1 draws Hi/Lo ids from 1');

# 10, 25 inserts, $grown, 25 inserts, 10, 25 inserts; each insert a session.
sub grow_and_shrink
{
	my ($table, $grown) = @_;
	$node->safe_psql('postgres',
		"CREATE TABLE $table (id bigint PRIMARY KEY DEFAULT hilo_next('$table'), step int); SELECT hilo_create_key('$table')");
	for my $step ([ 1, 10 ], [ 2, $grown ], [ 3, 10 ])
	{
		my ($n, $max_lo) = @$step;
		$node->safe_psql('postgres', "ALTER SEQUENCE ${table}_id_seq INCREMENT BY $max_lo");
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
	'SELECT count(*), count(DISTINCT id), min(id) >= 1, max(id) < 10000,
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
is($node->safe_psql('postgres', 'SELECT min(id) = 8796093022208 FROM s_node'),
	't', 'the key starts at its node\'s range');
is($node->safe_psql('postgres', "SELECT min_value, max_value FROM pg_sequences WHERE sequencename = 's_node_id_seq'"),
	'8796093022208|17592186044415', 'the key\'s sequence is bounded by the node\'s range');

# The end of the range is the sequence's own end: no block reaches node 2's.
$node->safe_psql('postgres', "SELECT setval('s_node_id_seq', 17592186044415 - 12)");
my ($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO s_node (step) SELECT 5 FROM generate_series(1, 30)',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/2200H: .*reached maximum value of sequence "s_node_id_seq"/, 'the key ends at its range\'s end');
is($node->safe_psql('postgres', 'SELECT bool_and(hilo_node_of(id) = 1) FROM s_node'), 't', 'no id past it');

# 4. A key made before node ranges were on lies below the node's range:
# draws refuse, and ALTER SEQUENCE moves it into the range.
($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO single DEFAULT VALUES RETURNING id');
like($err, qr/lies outside this node's range.*HINT:  ALTER SEQUENCE single_id_seq MINVALUE/s,
	'a key made before node ranges were on: the draw refuses, naming ALTER SEQUENCE');
$node->safe_psql('postgres', "ALTER SEQUENCE single_id_seq MINVALUE 8796093022208 MAXVALUE 17592186044415 START 8796093022208 RESTART");
is($node->safe_psql('postgres',
	'INSERT INTO single DEFAULT VALUES RETURNING hilo_node_of(id)'),
	'1', 'after ALTER SEQUENCE it draws from the node\'s range');

# 5. Without a worker id, node ranges have nothing to go by: refused.
$node->append_conf('postgresql.conf', "id_gen.worker_id = -1\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT hilo_node_of(1) = 0 AND current_setting('id_gen.worker_id') = '-1'")
  or die 'no reload';
($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO single DEFAULT VALUES');
like($err, qr/id_gen\.worker_id/, 'node ranges without a worker id: an error naming the setting');

$node->stop;
done_testing();
