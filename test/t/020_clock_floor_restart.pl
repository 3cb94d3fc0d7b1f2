# Snowflake ids and timeuuid_next() across crashes and restarts: the WAL-logged clock floor keeps
# every id issued after a restart above every id issued before it, even when
# the clock comes back behind where it was (Meituan Leaf #216), or far
# behind the floor: ids continue above it, ahead of the clock, never refused.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('restart');
$node->init;
$node->append_conf('postgresql.conf', "id_gen.worker_id = 3\nid_gen.launch_id = 9\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen; CREATE TABLE ids (phase text, id bigint PRIMARY KEY, dec bigint UNIQUE, tu timeuuid UNIQUE)');

sub take
{
	my ($phase, $n) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO ids SELECT '$phase', snowflake_next(), decimal_id(), timeuuid_next() FROM generate_series(1, $n)");
}

sub above
{
	my ($phase, $before) = @_;
	# snowflake ids and timeuuids (which share the clock floor) alike
	return $node->safe_psql('postgres',
		"SELECT (SELECT min(id) FROM ids WHERE phase = '$phase') > (SELECT max(id) FROM ids WHERE phase = '$before')
		    AND (SELECT min(tu) FROM ids WHERE phase = '$phase') > (SELECT max(tu) FROM ids WHERE phase = '$before')");
}

take('before', 50000);
my $floor_before = $node->safe_psql('postgres', 'SELECT last_value FROM id_gen.snowflake_floor');
cmp_ok($floor_before, '>', 0, 'the floor was persisted before ids were returned');

# Crash: no shutdown checkpoint, shared memory lost.  The ids were committed.
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', 'SELECT last_value FROM id_gen.snowflake_floor'), $floor_before,
	'the floor survived the crash (WAL replay)');
take('after_crash', 50000);
is(above('after_crash', 'before'), 't', 'after a crash, every id is above every id issued before it');

# Crash, then the clock comes back 500 ms behind: inside the window where a
# floor saved *after* use would duplicate.
$node->stop('immediate');
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -500\n");
$node->start;
take('clock_back', 50000);
is(above('clock_back', 'after_crash'), 't',
	'after a crash with the clock set back, ids are still above all earlier ones');
is($node->safe_psql('postgres', "SELECT count(*) FROM ids"), '150000', 'no id was lost or duplicated');

# A clean restart with the clock a minute behind the floor: ids continue
# above it, and id_gen.headroom says they run ahead.
$node->stop;
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -60000\n");
$node->start;
take('minute_back', 1000);
is(above('minute_back', 'clock_back'), 't', 'a clock a minute behind the floor: ids above all earlier ones');
is($node->safe_psql('postgres', "SELECT status FROM id_gen.headroom WHERE generator = 'clock' AND object = 'snowflake'"),
	'critical', 'id_gen.headroom says the ids run ahead of the clock');

# Once the clock is right again, generation continues above everything.
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = 0\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('id_gen.test_clock_offset_ms') = '0'")
  or die 'reload not seen';
take('fixed', 1000);
is(above('fixed', 'minute_back'), 't', 'with the clock fixed, ids continue above all earlier ones');

# A clean restart: no wait, no error.
$node->restart;
take('clean_restart', 1000);
is(above('clean_restart', 'fixed'), 't', 'after a clean restart, ids are above all earlier ones');
is($node->safe_psql('postgres', 'SELECT count(DISTINCT id) = count(*) FROM ids'), 't', 'all ids unique');
# decimal_id(): one generator id for the database's life and a counter
# reserved ahead in a WAL-flushed sequence, so the decimal ids never repeat
# across the crashes and restarts either, and no start burns a generator id.
is($node->safe_psql('postgres',
	'SELECT count(DISTINCT dec) = count(*), count(DISTINCT (decimal_id_decode(dec)).generator_id) FROM ids'),
	't|1', 'decimal ids unique across crashes, with one generator id');

$node->stop;
done_testing();
