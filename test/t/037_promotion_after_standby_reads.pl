# A switchover after a hot standby served timeuuid_next(): the standby read
# the primary's floor provisionally (a reservation up to a second ahead of
# the clock) and raised its streams above it.  After promotion the first
# snowflake_next()/jsid_next() work at once, above the old primary's ids
# (running ahead of the clock by at most the floor's step: never critical).
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('promo_primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', "id_gen.worker_id = 7\n");
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION id_gen');
$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('promo_standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
$standby->start;

# Several switchovers, each at a moment the primary's floor is well ahead of
# the clock (a reservation just made).
for my $round (1 .. 2)
{
	my ($max_sf, $ahead);
	for (1 .. 200)
	{
		($max_sf, $ahead) = split /\|/, $primary->safe_psql('postgres',
			"SELECT max(s), (SELECT (extract(epoch FROM ts) * 1000)::bigint FROM "
			  . "snowflake_decode((SELECT last_value FROM id_gen.snowflake_floor))) - "
			  . "(extract(epoch FROM clock_timestamp()) * 1000)::bigint "
			  . "FROM (SELECT snowflake_next() s FROM generate_series(1, 1000)) x");
		last if $ahead > 700;
	}
	$primary->wait_for_catchup($standby);
	ok($standby->safe_psql('postgres', 'SELECT timeuuid_next() IS NOT NULL'),
		"round $round: the hot standby serves timeuuid_next()");
	$primary->stop('fast');
	$standby->promote;
	my ($ret, $out, $err) = $standby->psql('postgres',
		"SELECT snowflake_next() > $max_sf, jsid_next() > 0, "
		  . "(SELECT status FROM id_gen.headroom WHERE generator = 'clock' AND object = 'snowflake')");
	is($ret, 0, "round $round: snowflake_next() and jsid_next() work at once after promotion") or diag($err);
	like($out, qr/^t\|t\|(ok|warning)$/, "round $round: above the old primary's ids, at most a step ahead");

	# The old primary follows the new one, for the next round.
	($primary, $standby) = ($standby, $primary);
	$primary->backup("bk$round");
	$standby = PostgreSQL::Test::Cluster->new("promo_standby$round");
	$standby->init_from_backup($primary, "bk$round", has_streaming => 1);
	$standby->start;
}

$standby->stop;
$primary->stop;
done_testing();
