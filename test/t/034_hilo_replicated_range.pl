# Rows replicated from another node never move this node's key (issue 16,
# item 6).  Node B (worker id 2) publishes t; node A (worker id 1)
# subscribes to t and writes into it too, both with node ranges on: each
# node's hilo_create_key() bounds its sequence by the node's range.  No
# draw reads the table: B's ids, in B's range, can never collide with A's,
# so A keeps drawing from its range, also after B's rows are deleted.  B's
# rows inside A's range (a bulk load with explicit ids) are A's owner's to
# step over, with setval() as for a serial.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my %node;
my $w = 0;
for my $name ('a', 'b')
{
	$w++;
	my $n = PostgreSQL::Test::Cluster->new("node_$name");
	$n->init(allows_streaming => 'logical');
	$n->append_conf('postgresql.conf', "id_gen.worker_id = $w\nid_gen.hilo_node_ranges = on\n");
	$n->start;
	$n->safe_psql('postgres', "CREATE EXTENSION id_gen;
		CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'), node text);
		SELECT hilo_create_key('t', max_lo => 10)");
	$node{$name} = $n;
}
(my $conn = $node{b}->connstr('postgres')) =~ s/'/''/g;
$node{b}->safe_psql('postgres', 'CREATE PUBLICATION pub FOR TABLE t');
$node{a}->safe_psql('postgres', "CREATE SUBSCRIPTION sub CONNECTION '$conn' PUBLICATION pub");
$node{a}->poll_query_until('postgres',
	"SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')")
  or die 'no initial sync';

$node{a}->safe_psql('postgres', "INSERT INTO t (node) SELECT 'a' FROM generate_series(1, 5)");
$node{b}->safe_psql('postgres', "INSERT INTO t (node) SELECT 'b' FROM generate_series(1, 25)");
$node{b}->wait_for_catchup('sub');
is($node{a}->safe_psql('postgres', "SELECT count(*) FROM t WHERE node = 'b'"), '25', 'A holds B\'s rows');

# A keeps inserting, from new sessions (each draws new blocks).
sub a_inserts
{
	my ($what) = @_;
	for (1 .. 5)
	{
		my ($ret, $out, $err) = $node{a}->psql('postgres',
			"INSERT INTO t (node) SELECT 'a' FROM generate_series(1, 12)");
		if ($ret != 0)
		{
			fail("A inserts $what");
			diag($err);
			return;
		}
	}
	pass("A inserts $what");
}
a_inserts('beside B\'s rows');
is($node{a}->safe_psql('postgres',
	"SELECT count(*), count(DISTINCT id), bool_and(hilo_node_of(id) = 1) FROM t WHERE node = 'a'"),
	'65|65|t', 'A\'s ids stay in A\'s range');

$node{b}->safe_psql('postgres', 'DELETE FROM t');
$node{b}->wait_for_catchup('sub');
a_inserts('after B\'s rows are deleted');
is($node{a}->safe_psql('postgres',
	"SELECT count(*), bool_and(hilo_node_of(id) = 1) FROM t WHERE node = 'a'"),
	'125|t', 'A still draws from its range');

# B loads an id of A's range explicitly, and A's owner moves A's key above
# it (no draw reads the table: setval() after a load, as for a serial).
my $high = $node{a}->safe_psql('postgres',
	"SELECT max(id) + 1000 FROM t WHERE node = 'a'");
$node{b}->safe_psql('postgres', "INSERT INTO t VALUES ($high, 'b')");
$node{b}->wait_for_catchup('sub');
is($node{a}->safe_psql('postgres', "SELECT setval('t_id_seq', max(id)) FROM t WHERE hilo_node_of(id) = 1"), $high,
	'setval() on A to the largest id of its range, one from B');
a_inserts('above an id of its range that B wrote');
is($node{a}->safe_psql('postgres',
	"SELECT count(*) FILTER (WHERE id > $high), count(*) FILTER (WHERE id = $high),
	        bool_and(hilo_node_of(id) = 1)
	   FROM t WHERE node = 'a'"),
	'60|0|t', 'A\'s new blocks start above an id of its own range from B');

$_->stop for values %node;
done_testing();
