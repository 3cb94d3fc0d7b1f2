# The restart guarantee of the time-ordered streams is per database, and
# holds in every execution context: after a crash with the clock set back,
# no database and no parallel worker issues a snowflake id or a timeuuid
# below one that database issued in a read-write transaction before.
#
# The floor is kept once, in each database's own WAL-logged sequences, so
# the promise does not reach across the databases of a server
# (docs/snowflake.md): a database whose own floor is far behind may, after a
# restart with the clock set back, issue ids below another database's.
#
# Variants of 020_clock_floor_restart.pl, which takes one database and
# serial calls only:
#  - a second database whose own floor is far behind the first one's;
#  - the first call after the restart made by a parallel worker
#    (force_parallel_mode; debug_parallel_query from 16), which cannot
#    write a sequence.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdGenCompat;

my $node = PostgreSQL::Test::Cluster->new('floor_wide');
$node->init;
$node->append_conf('postgresql.conf',
	"id_gen.worker_id = 4\nmax_worker_processes = 8\n");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE other');
for my $db ('postgres', 'other')
{
	$node->safe_psql($db,
		'CREATE EXTENSION id_gen; CREATE TABLE ids (phase text, sf bigint UNIQUE, tu timeuuid UNIQUE)');
}
# The second database generates once, early: its floor stays behind.
$node->safe_psql('other', "INSERT INTO ids SELECT 'early', snowflake_next(), timeuuid_next()");
my $other_floor = $node->safe_psql('other', 'SELECT last_value >> 20 FROM id_gen.timeuuid_floor');

# The first database generates for three seconds: its floor moves on.
$node->poll_query_until('postgres',
	"SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint > $other_floor + 2000")
  or die 'clock did not move';
$node->safe_psql('postgres',
	"INSERT INTO ids SELECT 'before', snowflake_next(), timeuuid_next() FROM generate_series(1, 20000)");
my ($max_sf, $max_tu) = split /\|/,
  $node->safe_psql('postgres', "SELECT max(sf), max(tu) FROM ids WHERE phase = 'before'");
my ($other_sf, $other_tu) = split /\|/,
  $node->safe_psql('other', "SELECT max(sf), max(tu) FROM ids WHERE phase = 'early'");

sub crash_and_set_clock
{
	my ($offset_ms) = @_;
	$node->stop('immediate');
	$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = $offset_ms\n");
	$node->start;
}

# Crash; the clock comes back 3 s behind: within the tolerance, so the
# generators wait rather than fail, but behind the first database's ids.
# Each database continues above its own.
crash_and_set_clock(-3000);
$node->safe_psql('other',
	"INSERT INTO ids SELECT 'after', snowflake_next(), timeuuid_next() FROM generate_series(1, 1000)");
is($node->safe_psql('other',
	"SELECT min(sf) > $other_sf AND min(tu) > '$other_tu'::timeuuid FROM ids WHERE phase = 'after'"),
	't', 'after a crash, the second database issues ids above every id it issued');
$node->safe_psql('postgres',
	"INSERT INTO ids SELECT 'after', snowflake_next(), timeuuid_next() FROM generate_series(1, 1000)");
is($node->safe_psql('postgres',
	"SELECT min(sf) > $max_sf AND min(tu) > '$max_tu'::timeuuid FROM ids WHERE phase = 'after'"),
	't', 'and the first database above every id it issued');

# The same with a parallel worker making the first call after the crash.
my $parallel = 'SET ' . force_parallel_setting($node) . ' = on; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;';
crash_and_set_clock(-3000);
my $plan = $node->safe_psql('postgres',
	"$parallel EXPLAIN (COSTS OFF) SELECT timeuuid_next() FROM generate_series(1, 1000)");
like($plan, qr/Gather/, 'the generator runs under a Gather');
$node->safe_psql('postgres',
	"$parallel CREATE TABLE par AS SELECT timeuuid_next() AS tu FROM generate_series(1, 1000)");
is($node->safe_psql('postgres', "SELECT min(tu) > '$max_tu'::timeuuid FROM par"),
	't', 'after a crash, a parallel worker\'s first timeuuids are above every earlier one');

# A clock 30 s behind: far beyond the floor's step.  Nothing is refused:
# snowflake_next() and timeuuid_next() continue above the floor in every
# context: none issues a smaller id.
crash_and_set_clock(-30000);
my ($ret, $out, $err) = $node->psql('postgres', "SELECT timeuuid_next() > '$max_tu'::timeuuid",
	extra_params => ['-v', 'VERBOSITY=verbose']);
is($out, 't', 'timeuuid_next() continues above the floor with the clock 30 s behind') or diag($err);
($ret, $out, $err) = $node->psql('postgres', "SELECT snowflake_next() > $max_sf", extra_params => ['-v', 'VERBOSITY=verbose']);
is($out, 't', 'snowflake_next() continues above the floor with the clock 30 s behind') or diag($err);
crash_and_set_clock(-30000);
$node->safe_psql('postgres',
	"$parallel CREATE TABLE par2 AS SELECT timeuuid_next() AS tu FROM generate_series(1, 1000)");
is($node->safe_psql('postgres', "SELECT min(tu) > '$max_tu'::timeuuid FROM par2"),
	't', 'a parallel worker as the first caller after the crash continues above it');

# With the clock right again, everything continues above.
crash_and_set_clock(0);
for my $db ('other', 'postgres')
{
	$node->safe_psql($db,
		"INSERT INTO ids SELECT 'fixed', snowflake_next(), timeuuid_next() FROM generate_series(1, 1000)");
	is($node->safe_psql($db,
		"SELECT min(sf) > (SELECT max(sf) FROM ids WHERE phase <> 'fixed') AND min(tu) > (SELECT max(tu) FROM ids WHERE phase <> 'fixed') FROM ids WHERE phase = 'fixed'"),
		't', "with the clock fixed, ids of database $db continue above its own");
}

$node->stop;
done_testing();
