# The time the generators follow, on a server that preloads id_gen: the
# monotonic clock from the wall clock as it was at the start, catching up
# with a wall clock ahead of it at most at twice real time's rate.
#  1. A forward glitch after the start, before the first id: not followed
#     (the reference is the start's, not the first id's).
#  2. Forward steps under a second, one after another: they do not
#     accumulate; the ids stay within the real time elapsed of the clock.
#  3. A server started with its clock 5 s behind, then corrected (NTP): the
#     ids catch up with the clock within about 5 s.
#  4. id_gen.headroom before the first id since the start reads the floors.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('followed');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'id_gen'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE glitch');
$node->safe_psql('postgres', 'CREATE DATABASE fixed');
$node->safe_psql('postgres', 'CREATE DATABASE steps');
$node->safe_psql($_, 'CREATE EXTENSION id_gen') for ('glitch', 'fixed', 'steps');

# how far (ms) the time of a new snowflake id is ahead of the real clock
sub lead_ms
{
	my ($db, $set) = @_;
	return $node->safe_psql($db, ($set // '')
		  . 'SELECT round(extract(epoch FROM ts - clock_timestamp()) * 1000)::bigint '
		  . 'FROM snowflake_decode(snowflake_next())');
}

# 1. A glitch three years ahead, before any id since the start.
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = '1095d'\n");
$node->reload;
sleep 1;
my $lead = lead_ms('glitch');
ok($lead < 5000, 'a glitch before the first id is not followed')
  or diag("ids $lead ms ahead");
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = 0\n");

# 2. Forty steps of 0.9 s taken in a moment: at most the real time elapsed.
$node->restart;
my $t0 = $node->safe_psql('steps', 'SELECT clock_timestamp()');
my $steps = join('', map {
		sprintf("SET id_gen.test_clock_offset_ms = %d; SELECT snowflake_next();\n", 900 * $_)
	} 1 .. 40);
$node->safe_psql('steps', $steps);
my $limit = $node->safe_psql('steps',
	"SELECT round(extract(epoch FROM clock_timestamp() - '$t0') * 1000)::bigint + 200");
$lead = lead_ms('steps');
ok($lead < $limit, 'small steps do not accumulate')
  or diag("ids $lead ms ahead, limit $limit ms");


# 3. Started with the clock 5 s behind, then corrected.
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -5000\n");
$node->restart;
$lead = lead_ms('fixed');
ok($lead < -4000, 'the ids keep to the clock that was behind at the start')
  or diag("ids $lead ms ahead");
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = 0\n");
$node->reload;
sleep 1;
$lead = lead_ms('fixed');
ok($lead < -1000, 'a correction is not followed at once')
  or diag("ids $lead ms ahead");
# at twice real time's rate: 5 s of difference are caught up in 5 s
for (1 .. 14) { lead_ms('fixed'); usleep(500_000); }
$lead = lead_ms('fixed');
ok($lead > -500 && $lead < 500, 'the correction is caught up')
  or diag("ids $lead ms ahead");

# 4. Before the first id since the start, a floor an hour ahead (set after
# a restore) is the lead the first id will have: id_gen.headroom says so.
$node->safe_psql('fixed', "SELECT setval('id_gen.snowflake_floor', snowflake_min_id(now() + interval '1 hour'))");
$node->restart;
is($node->safe_psql('fixed', "SELECT status FROM id_gen.headroom_clock() WHERE object = 'snowflake'"),
	'critical', 'a floor an hour ahead is critical before the first id');

$node->stop;
done_testing();
