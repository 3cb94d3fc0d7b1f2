# Issue 26, finding 4: a forward clock glitch, then a crash-restart.  The
# clock runs three years ahead for a moment and comes back; the generators
# keep working while the server runs.  After a crash the persisted floor lies
# three years ahead: timeuuid_next() must continue above it (its random bits
# keep ids apart), snowflake_next()/jsid_next() may refuse under the worker id
# that issued ids up to that floor, with a hint naming the way out (a new
# worker id), which then works; id_gen.headroom must not say 'ok'.
#
# Not fixed yet: the floor is one value for every generator and every worker
# id, so the assertions that describe the way out are TODO.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('glitch');
$node->init;
$node->append_conf('postgresql.conf', "id_gen.worker_id = 5\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen; CREATE TABLE ids (tu timeuuid UNIQUE)');

sub set_offset
{
	my ($ms) = @_;
	$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = $ms\n");
	$node->reload;
	$node->poll_query_until('postgres', "SELECT current_setting('id_gen.test_clock_offset_ms')::float8 = $ms")
	  or die 'setting not reloaded';
}

my $three_years = 3 * 365 * 86400 * 1000;
set_offset($three_years);
$node->safe_psql('postgres', 'SELECT snowflake_next(), jsid_next(); INSERT INTO ids SELECT timeuuid_next()');
set_offset(0);
my ($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO ids SELECT timeuuid_next()');
is($ret, 0, 'after the glitch, timeuuid_next() keeps working while the server runs') or diag($err);

# A crash (the OOM killer's SIGKILL of one backend has the same effect).
$node->stop('immediate');
$node->start;

TODO:
{
	local $TODO = 'issue 26 finding 4: no way out of a glitch floor yet';

	($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO ids SELECT timeuuid_next() FROM generate_series(1, 10)');
	is($ret, 0, 'after the crash, timeuuid_next() continues above the glitch floor') or diag($err);
	($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next()');
	like($err, qr/worker.id/, 'snowflake_next() refuses under the old worker id, the hint naming a new worker id');
	isnt($node->safe_psql('postgres', "SELECT status FROM id_gen.headroom WHERE generator = 'clock'"),
		'ok', 'id_gen.headroom shows the glitch');
	$node->append_conf('postgresql.conf', "id_gen.worker_id = 6\n");
	$node->restart;
	($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(), jsid_next()');
	is($ret, 0, 'with a new worker id, snowflake_next() and jsid_next() work') or diag($err);
}

$node->stop;
done_testing();
