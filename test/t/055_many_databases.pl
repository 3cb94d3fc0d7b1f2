# Issue 26, finding 5: per-database shared state must not be a fixed
# registry one role can fill.  100 databases use every generator (copies of
# a template with id_gen, as a CREATEDB role or a multi-tenant deployment
# makes them); the first database must still generate afterwards.
#
# Not fixed yet (64 fixed slots between two restarts: ERROR 54000): the
# assertions past the 64th database are TODO.
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

TODO:
{
	local $TODO = 'issue 26 finding 5: the per-database registry has 64 fixed slots';

	is($failed, 0, '100 databases use every generator') or diag($first_error);
	my ($ret, $out, $err) = $node->psql('postgres',
		'SELECT timeuuid_next(), snowflake_next(), jsid_next(), decimal_id()');
	is($ret, 0, 'and the first database still generates') or diag($err);
}

$node->stop;
done_testing();
