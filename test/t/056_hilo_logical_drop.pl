# DROP TABLE on a publisher must not touch a subscriber's own keys (issue
# 25, finding 2).  A FOR ALL TABLES publication carries id_gen.hilo_key; the
# sql_drop trigger's DELETE of a dropped table's key row is replicated with
# the row's regclass printed as a bare OID (the table is gone), which names
# whatever table has that OID on the subscriber: the subscriber's own key of
# that table is deleted, and its next session makes a new one while other
# sessions still hold blocks of the old one.  Open: it needs keys kept as
# sequences owned by their columns, with no configuration rows (issue 25's
# redesign).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $a = PostgreSQL::Test::Cluster->new('hilo_drop_pub');
$a->init(allows_streaming => 'logical');
$a->start;
my $b = PostgreSQL::Test::Cluster->new('hilo_drop_sub');
$b->init;
$b->start;

$a->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	SELECT lo_unlink(lo_create(0)) FROM generate_series(1, 50);
	CREATE TABLE x (id bigint PRIMARY KEY DEFAULT hilo_next('x'), v int);
	INSERT INTO x (v) VALUES (1);
});
my $x_oid = $a->safe_psql('postgres', "SELECT 'x'::regclass::oid");

# B: the publisher's schema, and a table of its own that gets x's OID on A
# (large objects take OIDs one at a time from the same counter).
$b->safe_psql('postgres', 'CREATE EXTENSION id_gen');
$b->safe_psql('postgres', qq{
	DO \$\$ BEGIN
		WHILE lo_create(0) < $x_oid - 1 LOOP END LOOP;
	END \$\$;
	CREATE TABLE y (id bigint PRIMARY KEY DEFAULT hilo_next('y'), v int);
	CREATE TABLE x (id bigint PRIMARY KEY DEFAULT hilo_next('x'), v int);
});
my $y_oid = $b->safe_psql('postgres', "SELECT 'y'::regclass::oid");
SKIP:
{
	skip "B's table y got OID $y_oid, not A's x OID $x_oid", 4 if $y_oid ne $x_oid;
	$b->safe_psql('postgres', 'INSERT INTO y (v) VALUES (1)');
	is($b->safe_psql('postgres', "SELECT count(*) FROM id_gen.hilo_key WHERE relid = 'y'::regclass"),
		'1', "B's own key of y");

	(my $conn = $a->connstr('postgres')) =~ s/'/''/g;
	$a->safe_psql('postgres', 'CREATE PUBLICATION p FOR ALL TABLES');
	$b->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$conn' PUBLICATION p");
	$b->poll_query_until('postgres',
		"SELECT count(*) = 0 FROM pg_subscription_rel WHERE srsubstate NOT IN ('r', 's')")
	  or die 'no initial sync';

	$a->safe_psql('postgres', 'DROP TABLE x');
	$a->wait_for_catchup('s');
	is($b->safe_psql('postgres', "SELECT count(*) FROM id_gen.hilo_key WHERE relid = 'y'::regclass"),
		'1', "A's DROP TABLE x leaves B's key of y alone");
	is($b->safe_psql('postgres', "SELECT count(*) FROM id_gen.hilo_key WHERE relid = 'x'::regclass"),
		'1', "and B's key of its own x, which B did not drop");
	# B's own DROP TABLE still removes B's key.
	$b->safe_psql('postgres', 'DROP TABLE y');
	is($b->safe_psql('postgres', "SELECT count(*) FROM id_gen.hilo_key WHERE relid::oid = $y_oid"),
		'0', "B's DROP TABLE y removes its key");
}
$_->stop for ($a, $b);
done_testing();
