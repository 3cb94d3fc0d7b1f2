# Two independent primaries replicating both ways with logical replication
# (issue 8, item 3).  Each node writes into its own table and publishes it;
# the other subscribes (PostgreSQL 15 has no origin = none, so one direction
# per table keeps changes from looping).  Both nodes generate with every
# node-stamped generator at the same time, from several clients each.
#
# - With the same identity (a configuration file copied to both nodes), the
#   collision check flags the shared worker id and launch id, and the hazard
#   is real: the two nodes' decimal ids coincide.
# - With distinct identities the check is clean, and once replication has
#   caught up every node holds both nodes' rows with no duplicate in any
#   generator: snowflake_next, jsid_next, decimal_id, timeuuid_next, and
#   hilo_next, whose keys draw from each node's own range with
#   id_gen.hilo_node_ranges on (the merged table below would refuse two
#   keys that both started at 1).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my %node;
for my $name ('a', 'b')
{
	my $n = PostgreSQL::Test::Cluster->new("primary_$name");
	$n->init(allows_streaming => 'logical');
	# the same line on both nodes: what copying one postgresql.conf gives
	$n->append_conf('postgresql.conf', "id_gen.launch_id = 1\n");
	$n->start;
	$n->safe_psql('postgres', 'CREATE EXTENSION id_gen');
	$node{$name} = $n;
}

# The identities of both nodes, as node_identity_collisions() takes them.
sub identities
{
	return join(',', map {
		$node{$_}->safe_psql('postgres',
			"SELECT to_jsonb(i) || jsonb_build_object('node', '$_') FROM node_identity() i")
	} ('a', 'b'));
}

sub collisions
{
	my $ids = identities();
	return $node{a}->safe_psql('postgres',
		"SELECT string_agg(field || '=' || value || ' ' || nodes::text || ' ' || generators, '; ' ORDER BY field)
		   FROM node_identity_collisions('[$ids]')");
}

# 1. Same identity: flagged, and decimal ids really collide.
is(collisions(),
	'launch_id=1 {a,b} decimal_id; worker_id=0 {a,b} snowflake_next, jsid_next',
	'the check flags the worker id and launch id both nodes share');
my @same = map {
	$node{$_}->safe_psql('postgres', 'SELECT string_agg(decimal_id()::text, \',\') FROM generate_series(1, 100)')
} ('a', 'b');
is($same[0], $same[1], 'with the same launch id, both nodes issue the same decimal ids');

# 2. Distinct identities: the check is clean.
my $i = 0;
for my $name ('a', 'b')
{
	$i++;
	# node ranges: each node's Hi/Lo keys draw from its worker id's range
	$node{$name}->append_conf('postgresql.conf',
		"id_gen.worker_id = $i\nid_gen.launch_id = $i\nid_gen.hilo_node_ranges = on\n");
	$node{$name}->reload;
}
$node{a}->poll_query_until('postgres', 'SELECT worker_id = 1 AND launch_id = 1 FROM node_identity()')
  or die 'node a did not reload';
$node{b}->poll_query_until('postgres', 'SELECT worker_id = 2 AND launch_id = 2 FROM node_identity()')
  or die 'node b did not reload';
is(collisions(), '', 'no collision with distinct worker ids and launch ids');

# 3. Tables on both nodes, replication both ways (one direction per table).
my $cols = "node text, sf bigint DEFAULT snowflake_next() UNIQUE, js bigint DEFAULT jsid_next() UNIQUE,
            dec bigint DEFAULT decimal_id() UNIQUE, tu timeuuid DEFAULT timeuuid_next() UNIQUE";
for my $name ('a', 'b')
{
	$node{$name}->safe_psql('postgres', "
		CREATE TABLE ids_a ($cols, hl bigint DEFAULT hilo_next('ids_a') UNIQUE);
		CREATE TABLE ids_b ($cols, hl bigint DEFAULT hilo_next('ids_b') UNIQUE);
		SELECT hilo_create_key('ids_a'), hilo_create_key('ids_b');
		CREATE PUBLICATION pub_$name FOR TABLE ids_$name");
}
# connstr() quotes the database name: double the quotes inside the literal
sub conn_literal { (my $c = $_[0]->connstr('postgres')) =~ s/'/''/g; return "'$c'"; }
$node{a}->safe_psql('postgres',
	'CREATE SUBSCRIPTION sub_a CONNECTION ' . conn_literal($node{b}) . ' PUBLICATION pub_b');
$node{b}->safe_psql('postgres',
	'CREATE SUBSCRIPTION sub_b CONNECTION ' . conn_literal($node{a}) . ' PUBLICATION pub_a');
for my $name ('a', 'b')
{
	$node{$name}->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')")
	  or die "subscription on $name did not sync";
}

# 4. Both nodes generate at the same instant, three clients each, and a
# multi-row VALUES beside the INSERT ... SELECT.
my $rows = 20000;
my $start_at = $node{a}->safe_psql('postgres', "SELECT clock_timestamp() + interval '2 s'");
my @runs;
for my $name ('a', 'b')
{
	for my $client (1 .. 3)
	{
		my ($out, $err) = ('', '');
		my $values = join(',', ("('$name')") x 500);
		my @cmd = ('psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node{$name}->connstr('postgres'),
			'-c', "SELECT pg_sleep_until('$start_at')",
			'-c', "INSERT INTO ids_$name (node) SELECT '$name' FROM generate_series(1, $rows)",
			'-c', "INSERT INTO ids_$name (node) VALUES $values");
		push @runs, IPC::Run::start(\@cmd, '>', \$out, '2>', \$err);
	}
}
ok($_->finish, 'a client finished') for @runs;

# Overlap in time is what makes the test meaningful.
my @range = map {
	[ split /\|/, $node{$_}->safe_psql('postgres', "SELECT min(sf >> 22), max(sf >> 22) FROM ids_$_") ]
} ('a', 'b');
ok($range[0][0] <= $range[1][1] && $range[1][0] <= $range[0][1],
	'the two nodes generated in overlapping milliseconds');

$node{a}->wait_for_catchup('sub_b');
$node{b}->wait_for_catchup('sub_a');

# 5. Every node holds every row, and no generator repeats across the nodes.
my $per_node = 3 * ($rows + 500);
my $total = 2 * $per_node;
for my $name ('a', 'b')
{
	is($node{$name}->safe_psql('postgres',
		'SELECT (SELECT count(*) FROM ids_a), (SELECT count(*) FROM ids_b)'),
		"$per_node|$per_node", "node $name holds both nodes' rows");
	is($node{$name}->safe_psql('postgres',
		'WITH u AS (SELECT * FROM ids_a UNION ALL SELECT * FROM ids_b)
		 SELECT count(*), count(DISTINCT sf), count(DISTINCT js), count(DISTINCT dec), count(DISTINCT tu),
		        count(DISTINCT hl) FROM u'),
		join('|', ($total) x 6), "node $name: no duplicate among both nodes' ids, in any generator");
	# the same rows in one table with unique constraints, as a merge would
	my ($ret, $out, $err) = $node{$name}->psql('postgres',
		"CREATE TABLE merged (sf bigint PRIMARY KEY, js bigint UNIQUE, dec bigint UNIQUE, tu timeuuid UNIQUE,
		                      hl bigint UNIQUE);
		 INSERT INTO merged SELECT sf, js, dec, tu, hl FROM ids_a UNION ALL SELECT sf, js, dec, tu, hl FROM ids_b");
	is($ret, 0, "node $name: both nodes' ids fit one table with unique constraints") or diag($err);
}
is($node{a}->safe_psql('postgres',
	'WITH u AS (SELECT * FROM ids_a UNION ALL SELECT * FROM ids_b)
	 SELECT string_agg(DISTINCT node || ((snowflake_decode(sf)).worker_id)::text || ((jsid_decode(js)).worker_id)::text
	                   || ((decimal_id_decode(dec)).launch_id)::text || hilo_node_of(hl)::text, \',\') FROM u'),
	'a1111,b2222', 'each row carries its node\'s worker id (snowflake, jsid, Hi/Lo range) and launch id');

$_->stop for values %node;
done_testing();
