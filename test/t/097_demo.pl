# scripts/demo.sql, the tour scripts/quickstart.sh shows, runs without an
# error on a server configured as quickstart.sh configures its own.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('demo');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'id_gen'
id_gen.worker_id = 1
id_gen.launch_id = 1
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');
my ($ret, $out, $err) = $node->psql('postgres', undef,
	extra_params => [ '-X', '-v', 'ON_ERROR_STOP=1', '-f', 'scripts/demo.sql' ]);
is($ret, 0, 'scripts/demo.sql runs to its end') or diag($err);
is($err, '', 'and prints no error or warning');
like($out, qr/apple/, 'it shows the Hi/Lo rows');
$node->stop;
done_testing();
