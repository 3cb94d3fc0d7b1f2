# The restart guarantee of the time-ordered streams is server-wide, and holds
# in every execution context: after a crash with the clock set back, no
# database of the server and no parallel worker issues a snowflake id or a
# timeuuid below one that any database issued before.
#
# Adversarial variants of 020_clock_floor_restart.pl, which takes one
# database and serial calls only:
#  - a second database whose own floor (its id_gen.clock_floor sequence) is
#    far behind the ids the first database issued;
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
	"id_gen.worker_id = 4\nid_gen.max_clock_backward_ms = 5000\nmax_worker_processes = 8\n");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE other');
for my $db ('postgres', 'other')
{
	$node->safe_psql($db,
		'CREATE EXTENSION id_gen; CREATE TABLE ids (phase text, sf bigint UNIQUE, tu timeuuid UNIQUE)');
}
# The second database generates once, early: its floor stays behind.
$node->safe_psql('other', "INSERT INTO ids SELECT 'early', snowflake_next(), timeuuid_next()");
my $other_floor = $node->safe_psql('other', 'SELECT last_value FROM id_gen.clock_floor');

# The first database generates for three seconds: its floor moves on.
$node->poll_query_until('postgres',
	"SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint > $other_floor + 2000")
  or die 'clock did not move';
$node->safe_psql('postgres',
	"INSERT INTO ids SELECT 'before', snowflake_next(), timeuuid_next() FROM generate_series(1, 20000)");
my ($max_sf, $max_tu) = split /\|/,
  $node->safe_psql('postgres', "SELECT max(sf), max(tu) FROM ids WHERE phase = 'before'");

sub crash_and_set_clock
{
	my ($offset_ms) = @_;
	$node->stop('immediate');
	$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = $offset_ms\n");
	$node->start;
}

# Crash; the clock comes back 3 s behind: within the tolerance, so the
# generators wait rather than fail, but behind the first database's ids.
crash_and_set_clock(-3000);
$node->safe_psql('other',
	"INSERT INTO ids SELECT 'after', snowflake_next(), timeuuid_next() FROM generate_series(1, 1000)");
is($node->safe_psql('other',
	"SELECT min(sf) > $max_sf AND min(tu) > '$max_tu'::timeuuid FROM ids WHERE phase = 'after'"),
	't', 'after a crash, a second database issues ids above every id the first one issued');

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

# A clock 30 s behind: far beyond the floor's step and the tolerance.
# Every database refuses snowflake ids under the worker id that issued ids up
# to the floor; timeuuid_next(), which may run ahead of the clock, continues
# above it in every database and every context: none issues a smaller id.
crash_and_set_clock(-30000);
for my $db ('other', 'postgres')
{
	my ($ret, $out, $err) = $node->psql($db, "SELECT timeuuid_next() > '$max_tu'::timeuuid",
		extra_params => ['-v', 'VERBOSITY=verbose']);
	is($out, 't', "timeuuid_next() in database $db continues above the server's floor with the clock 30 s behind")
	  or diag($err);
	($ret, $out, $err) = $node->psql($db, 'SELECT snowflake_next()',
		extra_params => ['-v', 'VERBOSITY=verbose']);
	like($err, qr/55000: \w+\(\): the clock is \d+ ms behind the persisted clock floor of worker id \d+/,
		"snowflake_next() in database $db refuses it");
}
crash_and_set_clock(-30000);
$node->safe_psql('postgres',
	"$parallel CREATE TABLE par2 AS SELECT timeuuid_next() AS tu FROM generate_series(1, 1000)");
is($node->safe_psql('postgres', "SELECT min(tu) > '$max_tu'::timeuuid FROM par2"),
	't', 'a parallel worker as the first caller after the crash continues above it');

# With the clock right again, everything continues above.
crash_and_set_clock(0);
$node->safe_psql('other',
	"INSERT INTO ids SELECT 'fixed', snowflake_next(), timeuuid_next() FROM generate_series(1, 1000)");
is($node->safe_psql('other',
	"SELECT min(sf) > $max_sf AND min(tu) > '$max_tu'::timeuuid FROM ids WHERE phase = 'fixed'"),
	't', 'with the clock fixed, ids continue above');

# The server-wide floor is published only as far as it was written.  Found
# by 090_stress.pl (seed 20261122): when the server floor already covered a
# time but the database's did not, advancing the database's floor also
# published the server floor at the new target, though only the sequence had
# been written; ids of that database up to the target were then covered in
# memory only, and after a crash another database issued ids below them.
# Here: 'other' advances the server floor to about t0 + 1 s; 'postgres' then
# starts generating at t0 + 0.3 s (its own floor is behind, the server's is
# not) and stops before t0 + 1.3 s, where it would advance the server floor
# for its own reasons; crash; 'other' calls first, with its clock behind the
# last id of 'postgres'.
$node->restart;
my $sf_ms = q{(SELECT (extract(epoch FROM ts) * 1000)::bigint FROM snowflake_decode(%s))};
# First let every floor persisted so far fall into the past (a floor is at
# most one step ahead of the last id): then the next call of 'other' writes
# both its own floor and the server's, to t0 + 1 s.
# Both databases have loaded their floors (so 'postgres' will not wait for
# the server floor on its next call, but check it against ok_ms).
$node->safe_psql('postgres', 'SELECT snowflake_next()');
my $t_load = $node->safe_psql('other', sprintf($sf_ms, 'snowflake_next()'));
$node->poll_query_until('postgres',
	"SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint > $t_load + 1100")
  or die 'clock did not move';
my $t0 = $node->safe_psql('other', sprintf($sf_ms, 'snowflake_next()'));
$node->poll_query_until('postgres',
	"SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint > $t0 + 300")
  or die 'clock did not move';
$node->safe_psql('postgres', 'CREATE TABLE win (sf bigint)');
my $last_ms = 0;
while ($last_ms < $t0 + 1150)
{
	$last_ms = $node->safe_psql('postgres',
		'INSERT INTO win SELECT snowflake_next() FROM generate_series(1, 2000); '
		  . sprintf($sf_ms, '(SELECT max(sf) FROM win)'));
}
my $max_win = $node->safe_psql('postgres', 'SELECT max(sf) FROM win');
SKIP:
{
	skip 'generation passed the server floor before the crash (machine too slow)', 1
	  if $last_ms >= $t0 + 1250;
	$node->stop('immediate');
	$node->start;
	my $first = $node->safe_psql('other', qq{
		DO \$\$ BEGIN
		  EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
		    $last_ms - 400 - (extract(epoch FROM clock_timestamp()) * 1000)::bigint);
		END \$\$;
		SELECT snowflake_next()});
	cmp_ok($first, '>', $max_win,
		'after a crash, another database starts above ids issued under a server floor advanced by a database floor');
}

$node->stop;
done_testing();
