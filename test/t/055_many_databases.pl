# Issue 26, finding 5: per-database shared state must not be a fixed
# registry one role can fill.  100 databases use every generator (copies of
# a template with id_gen, as a CREATEDB role or a multi-tenant deployment
# makes them); the first database must still generate afterwards.  The
# per-database state is a shared hash table in dynamic shared memory that
# grows with the databases (src/pg/db_state.cpp; it was 64 fixed slots, and
# the 65th database got ERROR 54000 until a restart).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('many_dbs');
$node->init;
$node->append_conf('postgresql.conf', "id_gen.worker_id = 5\nid_gen.launch_id = 3\nfsync = off\n");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE tmpl');
$node->safe_psql('tmpl', 'CREATE EXTENSION id_gen');
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

my $failed = 0;
my $first_error = '';
for my $i (1 .. 100)
{
	$node->safe_psql('postgres', "CREATE DATABASE t$i TEMPLATE tmpl");
	my ($ret, $out, $err) = $node->psql("t$i",
		"SELECT id_gen.decimal_id_claim();\n"
		  . "SELECT timeuuid_next(), snowflake_next(), jsid_next(), decimal_id();");
	if ($ret != 0)
	{
		$failed++;
		$first_error ||= "t$i: $err";
	}
}

is($failed, 0, '100 databases use every generator') or diag($first_error);
my ($ret, $out, $err) = $node->psql('postgres',
	'SELECT timeuuid_next(), snowflake_next(), jsid_next(), decimal_id()');
is($ret, 0, 'and the first database still generates') or diag($err);

# Dropped databases' entries are given up once no backend holds them; a
# database created with a dropped one's OID starts from its own durable
# state, not from the dropped one's entry.
my $oid = $node->safe_psql('postgres', "SELECT oid FROM pg_database WHERE datname = 't1'");
$node->safe_psql('t1', 'SELECT snowflake_next()');
$node->safe_psql('postgres', 'DROP DATABASE t1');
$node->safe_psql('postgres', "CREATE DATABASE again OID = $oid TEMPLATE tmpl");
($ret, $out, $err) = $node->psql('again',
	"SELECT id_gen.decimal_id_claim();
"
	  . "SELECT timeuuid_next() IS NOT NULL, snowflake_next() > 0, jsid_next() > 0, decimal_id() > 0;");
is($ret, 0, 'a database with a dropped one\'s OID generates') or diag($err);
is($node->safe_psql('again', 'SELECT last_value > 0 FROM id_gen.snowflake_floor'), 't',
	'... with its floor written into its own sequence');
for my $i (2 .. 100)
{
	$node->safe_psql('postgres', "DROP DATABASE t$i");
}
($ret, $out, $err) = $node->psql('postgres',
	"CREATE DATABASE late TEMPLATE tmpl;");
($ret, $out, $err) = $node->psql('late',
	"SELECT id_gen.decimal_id_claim();
"
	  . "SELECT timeuuid_next(), snowflake_next(), jsid_next(), decimal_id();");
is($ret, 0, 'after 99 databases were dropped, a new one generates') or diag($err);

$node->stop;
done_testing();
