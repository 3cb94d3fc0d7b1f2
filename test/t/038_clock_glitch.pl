# Issue 26, finding 4: a forward clock glitch, then a crash-restart.  The
# clock runs three years ahead for a moment and comes back; the generators
# keep working while the server runs.  After a crash the persisted floor lies
# three years ahead: timeuuid_next() must continue above it (its random bits
# keep ids apart), snowflake_next()/jsid_next() may refuse under the worker id
# that issued ids up to that floor, with a hint naming the way out (a new
# worker id), which then works; id_gen.headroom must not say 'ok'.  The
# floor keeps the worker id it covers (id_gen.clock_worker, and the state
# file), so only that worker id is refused.
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

isnt($node->safe_psql('postgres', "SELECT status FROM id_gen.headroom WHERE generator = 'clock'"),
	'ok', 'while the server runs, id_gen.headroom shows the glitch');

# A crash (the OOM killer's SIGKILL of one backend has the same effect).
$node->stop('immediate');
$node->start;

($ret, $out, $err) = $node->psql('postgres', 'INSERT INTO ids SELECT timeuuid_next() FROM generate_series(1, 10)');
is($ret, 0, 'after the crash, timeuuid_next() continues above the glitch floor') or diag($err);
is($node->safe_psql('postgres', 'SELECT count(DISTINCT tu) FROM ids'), '12', 'no timeuuid repeated');
for my $f ('snowflake_next', 'jsid_next')
{
	($ret, $out, $err) = $node->psql('postgres', "SELECT $f()");
	like($err, qr/behind the persisted clock floor of worker id 5/, "$f() refuses under the old worker id");
	like($err, qr/HINT:  .*another id_gen.worker_id/, '... the hint naming a new worker id as the way out');
}
like($node->safe_psql('postgres', "SELECT status || ': ' || reason FROM id_gen.headroom WHERE generator = 'clock'"),
	qr/^critical: .*another id_gen.worker_id/, 'id_gen.headroom shows the glitch and the way out');

$node->append_conf('postgresql.conf', "id_gen.worker_id = 6\n");
$node->restart;
($ret, $out, $err) = $node->psql('postgres',
	'SELECT (snowflake_decode(snowflake_next())).worker_id, (jsid_decode(jsid_next())).worker_id');
is($out, '6|6', 'with a new worker id, snowflake_next() and jsid_next() work') or diag($err);
is($node->safe_psql('postgres', 'SELECT last_value FROM id_gen.clock_worker'), '5',
	'the floor still covers the old worker id');

# Another crash: the old worker id stays refused, the new one goes on.
$node->stop('immediate');
$node->start;
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next(), jsid_next(); INSERT INTO ids SELECT timeuuid_next()');
is($ret, 0, 'after another crash, the new worker id and timeuuid_next() go on') or diag($err);
$node->append_conf('postgresql.conf', "id_gen.worker_id = 5\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('id_gen.worker_id') = '5'") or die 'reload not seen';
($ret, $out, $err) = $node->psql('postgres', 'SELECT snowflake_next()');
like($err, qr/worker id 5/, 'the old worker id, set again by a reload, is refused while the server runs');

$node->stop;
done_testing();
