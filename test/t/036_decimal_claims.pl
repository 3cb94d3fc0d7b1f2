# decimal_id()'s generator id is claimed, never derived from what a dump or
# a catalog change renumbers (a database's OID, its pg_database row's
# xmin): every id any database of the test issued goes into one hash, and
# no id may come twice.
#
# - pg_dumpall into a fresh server, where the databases are created in
#   another order and so get each other's OIDs: the claims travel with the
#   databases (their setting in pg_db_role_setting, id_gen.decimal_claim);
#   a restored database refuses until a superuser claims for it, then
#   continues its counter under a generator id no other database has;
# - DROP EXTENSION, GRANT CONNECT / ALTER DATABASE, CREATE EXTENSION, with
#   and without a restart in between: the reinstall claims a generator id
#   above the old one, so a counter that starts again repeats nothing.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my %seen;

# n ids from decimal_id() in db, stored in its table ids and in %seen;
# returns how many were seen before, or -1 if decimal_id() refused.
sub take
{
	my ($node, $db, $n) = @_;
	my ($ret, $list, $err) = $node->psql($db,
		"WITH t AS (INSERT INTO ids SELECT decimal_id() FROM generate_series(1, $n) RETURNING id) "
		  . "SELECT string_agg(id::text, ',') FROM t");
	if ($ret != 0)
	{
		note("decimal_id() refused in $db: $err");
		return -1;
	}
	my $repeats = 0;
	for my $id (split /,/, $list)
	{
		$repeats++ if $seen{$id}++;
	}
	return $repeats;
}

# Like take(), but a refusal must name the claim, which is then made.
sub take_claiming
{
	my ($node, $db, $n, $what) = @_;
	my $r = take($node, $db, $n);
	if ($r < 0)
	{
		my ($ret, $out, $err) = $node->psql($db, 'SELECT decimal_id()');
		like($err, qr/id_gen\.decimal_id_claim\(\)/, "$what: $db refuses until claimed, and the hint says how");
		$node->psql($db, 'SELECT id_gen.decimal_id_claim()');
		$r = take($node, $db, $n);
	}
	return $r;
}

my $old = PostgreSQL::Test::Cluster->new('claims_old');
$old->init;
$old->append_conf('postgresql.conf', "id_gen.launch_id = 7\n");
$old->start;
# orders first, billing second: in a dump restored in name order, billing
# comes first and gets orders' OID.
for my $db ('orders', 'billing')
{
	$old->safe_psql('postgres', "CREATE DATABASE $db");
	$old->safe_psql($db, 'CREATE EXTENSION id_gen; CREATE TABLE ids (id bigint PRIMARY KEY)');
}
# orders uses more than billing reserved, so billing's next counter values
# under orders' old generator id would be ids orders issued.
is(take($old, 'orders', 30000), 0, 'orders issues 30000 ids');
is(take($old, 'billing', 100), 0, 'billing issues 100 ids');

my $dump = $old->basedir . '/all.sql';
command_ok([ 'pg_dumpall', '-f', $dump, '-d', $old->connstr('postgres') ], 'pg_dumpall');
$old->stop;

my $fresh = PostgreSQL::Test::Cluster->new('claims_fresh');
$fresh->init;
$fresh->append_conf('postgresql.conf', "id_gen.launch_id = 7\n");
$fresh->start;
$fresh->command_ok([ 'psql', '-X', '-q', '-f', $dump, '-d', $fresh->connstr('postgres') ],
	'restored into a fresh server');
is(take_claiming($fresh, 'billing', 2000, 'pg_dumpall'), 0,
	'after pg_dumpall, billing repeats none of the ids of either database');
is(take_claiming($fresh, 'orders', 2000, 'pg_dumpall'), 0, 'nor does orders');
isnt($fresh->safe_psql('billing', 'SELECT generator_id FROM decimal_id_state()'),
	$fresh->safe_psql('orders', 'SELECT generator_id FROM decimal_id_state()'),
	'the two databases have different generator ids');

# Reinstall after a change of the database's pg_database row.
for my $change ('GRANT CONNECT ON DATABASE orders TO PUBLIC', 'ALTER DATABASE orders SET work_mem = \'8MB\'')
{
	$fresh->safe_psql('orders', 'DROP EXTENSION id_gen CASCADE');
	$fresh->safe_psql('postgres', $change);
	$fresh->safe_psql('orders', 'CREATE EXTENSION id_gen');
	is(take_claiming($fresh, 'orders', 1000, 'reinstall'), 0, "reinstall after $change repeats no id");
}
# ... and across a restart, where nothing in shared memory carries the counter.
$fresh->safe_psql('orders', 'DROP EXTENSION id_gen CASCADE');
$fresh->safe_psql('postgres', 'GRANT TEMPORARY ON DATABASE orders TO PUBLIC');
$fresh->restart;
$fresh->safe_psql('orders', 'CREATE EXTENSION id_gen');
is(take_claiming($fresh, 'orders', 1000, 'reinstall'), 0, 'a reinstall across a restart repeats no id');
is(take($fresh, 'billing', 1000), 0, 'and billing goes on');

# A database whose default isolation is not READ COMMITTED: the claim reads
# the other databases' claims with the latest snapshot, and CREATE EXTENSION
# works there as anywhere.
$fresh->safe_psql('postgres', 'CREATE DATABASE rr');
$fresh->safe_psql('postgres', "ALTER DATABASE rr SET default_transaction_isolation = 'serializable'");
my ($rr_ret, $rr_out, $rr_err) = $fresh->psql('rr', 'CREATE EXTENSION id_gen');
is($rr_ret, 0, 'CREATE EXTENSION in a database whose default isolation is serializable')
  or diag($rr_err);
is($fresh->safe_psql('rr', 'SELECT count(DISTINCT decimal_id()) FROM generate_series(1, 100)'),
	'100', 'and decimal_id() works there');
is($fresh->safe_psql('postgres', q{
	SELECT count(DISTINCT g), count(g)
	  FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase,
	       LATERAL substring(s.setconfig::text from 'id_gen.decimal_generator_id=(\d+)') g
	 WHERE d.datname IN ('orders', 'billing', 'rr') AND s.setrole = 0}),
	'3|3', 'its generator id is one neither other database has');

$fresh->stop;
done_testing();
