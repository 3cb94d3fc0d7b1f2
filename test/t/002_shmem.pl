# Shared memory under pressure.  The generators' structures live in shared
# memory; the lock table grows into the same spare space and never gives it
# back, even after the locks are released.
#  - Preloaded (shared_preload_libraries), the structures are created when
#    the server starts, so no later use of shared memory can deny them.
#  - Not preloaded, they come from the spare space on first use; when it is
#    gone, the first use fails cleanly (53200, with a hint to preload) and
#    works after a restart.  The failure path (which copies and re-throws
#    the error) must not crash or trip an assertion.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @calls = ('decimal_id()', 'snowflake_next()', 'timeuuid_next()');

for my $preload (1, 0)
{
	my $name = $preload ? 'preloaded' : 'not preloaded';
	my $node = PostgreSQL::Test::Cluster->new($preload ? 'shmem_pre' : 'shmem_lazy');
	$node->init;
	$node->append_conf('postgresql.conf', "id_gen.launch_id = 3\n");
	$node->append_conf('postgresql.conf', "shared_preload_libraries = 'id_gen'\n") if $preload;
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

	# Advisory locks until the lock table cannot grow any more, then released.
	# Session locks outlive the failed statement: the same input gives them
	# back before the session goes, so that the next connections do not race
	# its exit.
	my ($ret0, $out0, $err0) = $node->psql('postgres', q{
		SELECT pg_advisory_lock(g) FROM generate_series(1, 2000000) g;
		SELECT pg_advisory_unlock_all();}, on_error_stop => 0);
	like($err0, qr/out of shared memory/, "$name: the lock table has used up the spare shared memory");

	for my $call (@calls)
	{
		my ($ret, $out, $err) = $node->psql('postgres', "SELECT $call IS NOT NULL",
			extra_params => ['-v', 'VERBOSITY=verbose']);
		if ($preload)
		{
			is($out, 't', "$name: $call works after the spare shared memory was used up") or diag($err);
		}
		elsif ($ret == 0)
		{
			is($out, 't', "$name: $call found room");
		}
		else
		{
			like($err, qr/ERROR:  53200: .*(shared memory|ShmemIndex entry).*\n.*HINT:  Add id_gen to shared_preload_libraries/,
				"$name: $call fails cleanly (53200) with a hint to preload");
		}
	}
	ok(!$node->log_contains('was terminated by signal|TRAP:'), "$name: no backend crashed");

	$node->restart;
	for my $call (@calls)
	{
		is($node->safe_psql('postgres', "SELECT $call IS NOT NULL"), 't', "$name: $call works after a restart");
	}
	$node->stop;
}
done_testing();
