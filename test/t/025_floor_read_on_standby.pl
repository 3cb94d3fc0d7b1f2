# The clock floor read on a hot standby is provisional: timeuuid_next(),
# which works on a standby, reads the replicated floor there, but the old
# primary keeps raising the floor afterwards.  After promotion the first
# generator must read the floor again, or snowflake_next() (and a fresh
# session's timeuuid_next()) would start above the stale value only, below
# ids the old primary issued later, when the promoted server's clock is
# behind the old primary's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $primary = PostgreSQL::Test::Cluster->new('fl_primary');
$primary->init(allows_streaming => 1);
# A tolerance large enough that the promoted server, whose clock is set 3 s
# back below, waits for the floor instead of failing.
$primary->append_conf('postgresql.conf',
	"id_gen.worker_id = 6\n");
$primary->start;
$primary->safe_psql('postgres',
	'CREATE EXTENSION id_gen; CREATE TABLE ids (origin text, sf bigint UNIQUE, tu timeuuid UNIQUE)');
$primary->safe_psql('postgres',
	"INSERT INTO ids SELECT 'primary', snowflake_next(), timeuuid_next() FROM generate_series(1, 1000)");

$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('fl_standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);

# timeuuid_next() works on the standby, reading the replicated floor.
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT timeuuid_next() IS NOT NULL');
is($out, 't', 'timeuuid_next() works on a hot standby') or diag($err);

# The primary goes on for a while after that: its floor moves past the
# value the standby read.
my $floor_seen = $standby->safe_psql('postgres', 'SELECT last_value >> 20 FROM id_gen.timeuuid_floor');
$primary->poll_query_until('postgres',
	"SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint > $floor_seen + 200")
  or die 'clock did not pass the floor';
$primary->safe_psql('postgres',
	"INSERT INTO ids SELECT 'primary', snowflake_next(), timeuuid_next() FROM generate_series(1, 1000)");
$primary->wait_for_catchup($standby);
cmp_ok($standby->safe_psql('postgres', 'SELECT last_value >> 20 FROM id_gen.timeuuid_floor'), '>', $floor_seen,
	'the replicated floor moved past the one the standby read');

# Failover; the promoted server's clock is 3 s behind the old primary's.
$primary->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'promotion failed';
$standby->safe_psql('postgres',
	"SET id_gen.test_clock_offset_ms = -3000; "
	  . "INSERT INTO ids SELECT 'promoted', snowflake_next(), timeuuid_next() FROM generate_series(1, 1000)");
is($standby->safe_psql('postgres',
	"SELECT (SELECT min(sf) FROM ids WHERE origin = 'promoted') > (SELECT max(sf) FROM ids WHERE origin = 'primary')"),
	't', 'snowflake ids after promotion are above every id of the old primary');
is($standby->safe_psql('postgres',
	"SELECT (SELECT min(tu) FROM ids WHERE origin = 'promoted') > (SELECT max(tu) FROM ids WHERE origin = 'primary')"),
	't', 'timeuuids of a new session after promotion are above every one of the old primary');

$standby->stop;
done_testing();
