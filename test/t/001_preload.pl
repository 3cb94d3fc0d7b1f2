# With shared_preload_libraries = 'id_gen' the settings are known at start-up
# and the extension's shared memory is reserved.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('preload');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'id_gen'\nid_gen.worker_id = 7\n");
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');
is($node->safe_psql('postgres', 'SHOW id_gen.worker_id'), '7', 'setting from postgresql.conf is read at start-up');
is($node->safe_psql('postgres', 'SELECT id_gen.noop()'), '0', 'library loaded');

my ($ret, $out, $err) = $node->psql('postgres', "SET id_gen.no_such_setting = 1");
like($err, qr/invalid configuration parameter name|unrecognized configuration parameter/,
	'the id_gen prefix is reserved');

$node->stop;
done_testing();
