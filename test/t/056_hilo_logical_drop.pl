# DROP TABLE on either side of logical replication, both ways, must not
# touch the other side's keys (issue 25, finding 2).  Before, the key was a
# row of a published table, id_gen.hilo_key: a publisher's DROP TABLE x
# replicated the DELETE of x's row with its regclass printed as a bare OID,
# which named whatever table had that OID on the subscriber, and the
# subscriber lost the key of its own table y.  Now a key is its table's
# sequence (OWNED BY its column): nothing of it is replicated, and
# a DROP TABLE drops the key with the table, on that side only.  B's table
# y is given the OID of A's x to keep the old attack's shape.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $a = PostgreSQL::Test::Cluster->new('hilo_drop_a');
$a->init(allows_streaming => 'logical');
$a->start;
my $b = PostgreSQL::Test::Cluster->new('hilo_drop_b');
$b->init(allows_streaming => 'logical');
$b->start;

$a->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	SELECT lo_unlink(lo_create(0)) FROM generate_series(1, 50);
	CREATE TABLE x (id bigint PRIMARY KEY DEFAULT hilo_next('x'), v int);
	SELECT hilo_create_key('x');
	CREATE TABLE a_kept (id bigint PRIMARY KEY DEFAULT hilo_next('a_kept'), v int);
	SELECT hilo_create_key('a_kept');
	CREATE TABLE from_b (id bigint PRIMARY KEY DEFAULT hilo_next('from_b'), v int);
	SELECT hilo_create_key('from_b');
	INSERT INTO x (v) VALUES (1);
	INSERT INTO a_kept (v) VALUES (1);
});
my $x_oid = $a->safe_psql('postgres', "SELECT 'x'::regclass::oid");

# B: A's published tables, a table of its own that gets x's OID on A
# (large objects take OIDs one at a time from the same counter), and a
# table it publishes to A.
$b->safe_psql('postgres', 'CREATE EXTENSION id_gen');
$b->safe_psql('postgres', qq{
	DO \$\$ BEGIN
		WHILE lo_create(0) < $x_oid - 1 LOOP END LOOP;
	END \$\$;
	CREATE TABLE y (id bigint PRIMARY KEY DEFAULT hilo_next('y'), v int);
	SELECT hilo_create_key('y');
	CREATE TABLE x (id bigint PRIMARY KEY DEFAULT hilo_next('x'), v int);
	SELECT hilo_create_key('x');
	CREATE TABLE a_kept (id bigint PRIMARY KEY DEFAULT hilo_next('a_kept'), v int);
	SELECT hilo_create_key('a_kept');
	CREATE TABLE from_b (id bigint PRIMARY KEY DEFAULT hilo_next('from_b'), v int);
	SELECT hilo_create_key('from_b');
	INSERT INTO y (v) VALUES (1);
});
my $y_oid = $b->safe_psql('postgres', "SELECT 'y'::regclass::oid");
note("A's x has OID $x_oid, B's y has OID $y_oid");

my $keys = q{SELECT string_agg(table_name::text || ':' || sequence::text, ' ' ORDER BY table_name::text)
	FROM id_gen.hilo_keys};
is($b->safe_psql('postgres', $keys), 'a_kept:a_kept_id_seq from_b:from_b_id_seq x:x_id_seq y:y_id_seq',
	"B's own keys");

# Both ways: A publishes x and a_kept to B, B publishes from_b to A.
sub subscribe
{
	my ($pub, $sub, $name, $tables) = @_;
	(my $conn = $pub->connstr('postgres')) =~ s/'/''/g;
	$pub->safe_psql('postgres', "CREATE PUBLICATION p_$name FOR TABLE $tables");
	$sub->safe_psql('postgres', "CREATE SUBSCRIPTION s_$name CONNECTION '$conn' PUBLICATION p_$name");
	$sub->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')")
	  or die "no initial sync of $name";
}
subscribe($a, $b, 'a', 'x, a_kept');
subscribe($b, $a, 'b', 'from_b');
$b->safe_psql('postgres', 'INSERT INTO from_b (v) SELECT g FROM generate_series(1, 10) g');
$b->wait_for_catchup('s_b');
is($a->safe_psql('postgres', 'SELECT count(*) FROM from_b'), '10', 'B\'s rows reach A');

# DROP TABLE on the publisher A.
$a->safe_psql('postgres', 'DROP TABLE x');
$a->safe_psql('postgres', 'INSERT INTO a_kept (v) VALUES (2)');
$a->wait_for_catchup('s_a');
is($b->safe_psql('postgres', $keys), 'a_kept:a_kept_id_seq from_b:from_b_id_seq x:x_id_seq y:y_id_seq',
	"A's DROP TABLE x leaves every key of B, its y (A's x's OID) and its own x included");
# DROP TABLE on the publisher B.
$b->safe_psql('postgres', 'DROP TABLE from_b');
$b->safe_psql('postgres', 'INSERT INTO y (v) VALUES (2)');
$b->wait_for_catchup('s_b');
is($a->safe_psql('postgres', $keys), 'a_kept:a_kept_id_seq from_b:from_b_id_seq',
	"B's DROP TABLE from_b leaves A's key of its copy");
is($b->safe_psql('postgres', $keys), 'a_kept:a_kept_id_seq x:x_id_seq y:y_id_seq',
	"and drops B's own key with the table, on B only");
# A subscriber's DROP TABLE of a subscribed table: B drops its copy of a_kept.
$b->safe_psql('postgres', 'ALTER SUBSCRIPTION s_a DISABLE; DROP TABLE a_kept;');
is($a->safe_psql('postgres', "SELECT count(*) FROM id_gen.hilo_keys WHERE table_name = 'a_kept'::regclass"), '1',
	"B's DROP TABLE of its copy of a_kept leaves A's key");

# Every remaining key keeps drawing unique ids on its side.
for my $t ([ $a, 'a_kept' ], [ $a, 'from_b' ], [ $b, 'x' ], [ $b, 'y' ])
{
	my ($n, $table) = @$t;
	$n->safe_psql('postgres', "SELECT setval(pg_get_serial_sequence('$table', 'id'), max(id)) FROM $table");	# above the replicated rows
	$n->safe_psql('postgres', "INSERT INTO $table (v) SELECT g FROM generate_series(1, 100) g");
	is($n->safe_psql('postgres', "SELECT count(*) = count(DISTINCT id) FROM $table"), 't',
		$n->name . ": $table keeps drawing unique ids");
}
$_->stop for ($a, $b);
done_testing();
