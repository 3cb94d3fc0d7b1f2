# A session that lives through a promotion.  On a hot standby timeuuid_next()
# works and reads the replicated floor provisionally; the old primary goes on
# raising it.  After promotion the SAME session (not only a new one, which
# 025_floor_read_on_standby.pl takes) must start above every id of the old
# primary, even when the promoted server's clock is behind.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdGenCompat;

my $primary = PostgreSQL::Test::Cluster->new('sess_primary');
$primary->init(allows_streaming => 1);
# Waits, not failures, for the 3 s the promoted clock is behind.
$primary->append_conf('postgresql.conf',
	"id_gen.worker_id = 7\n");
$primary->start;
$primary->safe_psql('postgres',
	'CREATE EXTENSION id_gen; CREATE TABLE ids (origin text, tu timeuuid UNIQUE)');
$primary->safe_psql('postgres', "INSERT INTO ids SELECT 'primary', timeuuid_next()");
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('sess_standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby);

# A session on the standby, with its clock 3 s behind, generates there.
my $s = $standby->background_psql('postgres');
$s->query_safe('SET id_gen.test_clock_offset_ms = -3000');
my $on_standby = query_line($s, 'SELECT timeuuid_next()');
ok($on_standby, 'timeuuid_next() works in the standby session');

# The primary goes on for two seconds beyond the floor the standby read.
my $floor_seen = $standby->safe_psql('postgres', 'SELECT last_value >> 20 FROM id_gen.timeuuid_floor');
$primary->poll_query_until('postgres',
	"SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint > $floor_seen + 1500")
  or die 'clock did not pass the floor';
$primary->safe_psql('postgres',
	"INSERT INTO ids SELECT 'primary', timeuuid_next() FROM generate_series(1, 1000)");
my $max_primary = $primary->safe_psql('postgres', 'SELECT max(tu) FROM ids');
$primary->wait_for_catchup($standby);
$primary->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'promotion failed';

# The same session, its clock still 3 s behind.
my $first_after = query_line($s, 'SELECT timeuuid_next()');
is(query_line($s, "SELECT '$first_after'::timeuuid > '$max_primary'::timeuuid"), 't',
	'the first timeuuid of the session that lived through the promotion is above every one of the old primary');
$s->query_safe("INSERT INTO ids SELECT 'promoted', timeuuid_next() FROM generate_series(1, 1000)");
is(query_line($s, "SELECT min(tu) > '$max_primary'::timeuuid FROM ids WHERE origin = 'promoted'"), 't',
	'and so are all that follow');
$s->quit;

$standby->stop;
done_testing();
