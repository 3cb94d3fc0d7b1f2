# Issue 17: the clock floor of the time-ordered generators (snowflake_next,
# jsid_next, timeuuid_next) can never stop a server, and no recovery path
# lets them go backwards.  The floor lives in each database's WAL-logged
# sequences (id_gen.snowflake_floor, jsid_floor, timeuuid_floor); nothing
# id_gen writes needs a resource on
# replay (it used replication origins, whose records need a free origin
# slot wherever they are replayed).  Here, with one primary:
#  - streaming standbys with max_replication_slots = 0 and 1 start, replay
#    the primary's floor advances and promote, above the primary's ids; the
#    one with a single slot leaves it to a subscription;
#  - PITR (recovery_target_time) with max_replication_slots = 0 and the
#    clock behind: the restored server continues above the restored ids,
#    ahead of the clock, and with the clock right;
#  - crash recovery after max_replication_slots was set to 0;
#  - timeuuids handed out in read-only transactions and by parallel
#    workers, which cannot write the floor, are not covered after a crash
#    and a restart with the clock behind
#    (docs/timeuuid.md): the ids of read-write
#    transactions still are, and with the clock right ids continue above.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep);
use IdGenCompat;

my $p = PostgreSQL::Test::Cluster->new('cs_primary');
$p->init(allows_streaming => 1, has_archiving => 1);
$p->append_conf('postgresql.conf',
	"id_gen.worker_id = 3\n");
$p->start;
$p->safe_psql('postgres',
	'CREATE EXTENSION id_gen; CREATE TABLE ids (phase text, sf bigint UNIQUE, js bigint UNIQUE, tu timeuuid UNIQUE)');

sub gen
{
	my ($node, $phase, $n) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO ids SELECT '$phase', snowflake_next(), jsid_next(), timeuuid_next() FROM generate_series(1, $n)");
}

# True when every id of phase $new is above every id of the phases listed.
sub above
{
	my ($node, $new, @old) = @_;
	my $in = join(',', map { "'$_'" } @old);
	return $node->safe_psql('postgres', qq{
		SELECT (SELECT min(sf) FROM ids WHERE phase = '$new') > (SELECT max(sf) FROM ids WHERE phase IN ($in))
		   AND (SELECT min(js) FROM ids WHERE phase = '$new') > (SELECT max(js) FROM ids WHERE phase IN ($in))
		   AND (SELECT min(tu) FROM ids WHERE phase = '$new') > (SELECT max(tu) FROM ids WHERE phase IN ($in))});
}

# Poll (at most 15 s) until $node has replayed up to $lsn; false if it has
# not (or is down).
sub replayed
{
	my ($node, $lsn) = @_;
	for (1 .. 150)
	{
		my ($ret, $out) = $node->psql('postgres', "SELECT pg_last_wal_replay_lsn() >= '$lsn'");
		return 1 if $ret == 0 && $out eq 't';
		sleep 0.1;
	}
	return 0;
}

sub set_offset
{
	my ($node, $ms) = @_;
	$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = $ms\n");
	$node->reload;
	$node->poll_query_until('postgres',
		"SELECT current_setting('id_gen.test_clock_offset_ms')::float8 = $ms")
	  or die 'setting not reloaded';
}

gen($p, 'p1', 1000);
is($p->safe_psql('postgres', "SELECT count(*) FROM pg_replication_origin WHERE roname LIKE 'id_gen%'"),
	'0', 'id_gen creates no replication origin');
$p->backup('bk');

# Two streaming standbys from the backup: no replication slot, one.
my %standby;
for my $slots (0, 1)
{
	my $s = PostgreSQL::Test::Cluster->new("cs_standby$slots");
	$s->init_from_backup($p, 'bk', has_streaming => 1);
	$s->append_conf('postgresql.conf', "max_replication_slots = $slots\n");
	$s->start;
	$standby{$slots} = $s;
}

# The primary raises its floor (a new step) after the clone, then goes on:
# 'p2' before the PITR target, 'p3' after it.
sleep 1.2;
gen($p, 'p2', 1000);
my $target = $p->safe_psql('postgres', 'SELECT clock_timestamp()');
sleep 1.2;
gen($p, 'p3', 1000);
my $lsn = $p->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
my $walfile = $p->safe_psql('postgres', 'SELECT pg_walfile_name(pg_current_wal_lsn())');
$p->safe_psql('postgres', 'SELECT pg_switch_wal()');

for my $slots (0, 1)
{
	my $s = $standby{$slots};
	SKIP:
	{
		ok(replayed($s, $lsn), "a standby with max_replication_slots = $slots replays the primary's floor advances")
		  or skip "the standby with max_replication_slots = $slots is down", 3;
		$s->restart;
		ok(replayed($s, $lsn), "it restarts");
		$s->promote;
		$s->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'promotion failed';
		gen($s, 'promoted', 1000);
		is(above($s, 'promoted', 'p1', 'p2', 'p3'), 't',
			"promoted (max_replication_slots = $slots), it continues above the primary's ids");
		next if $slots == 0;
		# The only slot is free for a subscription's origin.
		my ($ret, $out, $err) = $s->psql('postgres',
			"SELECT pg_replication_origin_create('sub'); SELECT pg_replication_origin_session_setup('sub');");
		is($ret, 0, 'with max_replication_slots = 1 the one origin slot is left to subscriptions')
		  or diag $err;
	}
	$s->stop('immediate', fail_ok => 1);
}

# PITR to a time between 'p2' and 'p3', with max_replication_slots = 0 and
# the restored server's clock a minute behind.
$p->poll_query_until('postgres', "SELECT last_archived_wal >= '$walfile' FROM pg_stat_archiver")
  or die 'WAL not archived';
my $r = PostgreSQL::Test::Cluster->new('cs_pitr');
$r->init_from_backup($p, 'bk', has_restoring => 1);
$r->append_conf('postgresql.conf',
	"max_replication_slots = 0\nrecovery_target_time = '$target'\nrecovery_target_action = 'promote'\n"
	  . "id_gen.test_clock_offset_ms = -60000\n");
SKIP:
{
	ok($r->start(fail_ok => 1), 'PITR with max_replication_slots = 0 starts')
	  or skip 'the restored server did not start', 4;
	$r->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'PITR did not finish';
	is($r->safe_psql('postgres', "SELECT count(*) FILTER (WHERE phase = 'p2'), count(*) FILTER (WHERE phase = 'p3') FROM ids"),
		'1000|0', 'recovery stopped between p2 and p3');
	is($r->safe_psql('postgres', 'SELECT snowflake_next() > max(sf) AND jsid_next() > max(js) FROM ids'), 't',
		'after PITR with the clock a minute behind, snowflake_next() and jsid_next() continue above the floor');
	is($r->safe_psql('postgres', "SELECT timeuuid_next() > max(tu) FROM ids"), 't',
		'after PITR with the clock a minute behind, timeuuid_next() continues above the floor');
	set_offset($r, 0);
	gen($r, 'restored', 1000);
	is(above($r, 'restored', 'p1', 'p2'), 't', 'with the clock right, the restored server continues above');
	$r->stop;
}

# Crash recovery of the primary after max_replication_slots was set to 0.
gen($p, 'p4', 1000);
$p->stop('immediate');
$p->append_conf('postgresql.conf', "max_replication_slots = 0\n");
ok($p->start(fail_ok => 1), 'crash recovery with max_replication_slots = 0 starts')
  or BAIL_OUT('the primary cannot recover');
gen($p, 'p5', 1000);
is(above($p, 'p5', 'p1', 'p2', 'p3', 'p4'), 't', 'and continues above');

$p->stop;

# Read-only transactions, on a server with max_replication_slots = 0.  A
# database whose own floor is 30 s behind: timeuuids from read-only
# transactions cannot raise it.  After a crash and a restart with the clock
# 20 s behind, timeuuids continue above the read-write ones.
my $o = PostgreSQL::Test::Cluster->new('cs_readonly');
$o->init;
$o->append_conf('postgresql.conf', "max_replication_slots = 0\n");
$o->start;
$o->safe_psql('postgres', 'CREATE EXTENSION id_gen');
my $rw = $o->safe_psql('postgres', 'SET id_gen.test_clock_offset_ms = -30000; SELECT timeuuid_next()');
my $max_ro = $o->safe_psql('postgres',
	'BEGIN READ ONLY; SELECT max(t) FROM (SELECT timeuuid_next() AS t FROM generate_series(1, 1000)) s; COMMIT');
$o->stop('immediate');
$o->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -20000\n");
$o->start;
my ($ret, $out, $err) = $o->psql('postgres', "BEGIN READ ONLY; SELECT timeuuid_next() > '$rw'::timeuuid; COMMIT",
	extra_params => ['-v', 'VERBOSITY=verbose']);
is($out, 't', 'after a crash with the clock 20 s behind, a read-only transaction\'s timeuuids are above the read-write ones')
  or diag "ret $ret out $out err $err";
set_offset($o, 0);
# the clock corrected by 20 s: the time followed catches up at twice real
# time's rate, so within about 20 s
my $above = 'f';
for (1 .. 120)
{
	$above = $o->safe_psql('postgres', "BEGIN READ ONLY; SELECT timeuuid_next() > '$max_ro'::timeuuid; COMMIT");
	last if $above eq 't';
	sleep 1;
}
is($above, 't', 'with the clock right, it continues above them');

# The same for timeuuids generated by a parallel worker, which cannot write
# the database's floor either.
my $parallel = 'SET ' . force_parallel_setting($o) . ' = on; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;';
like($o->safe_psql('postgres', "$parallel EXPLAIN (COSTS OFF) SELECT timeuuid_next() FROM generate_series(1, 1000)"),
	qr/Gather/, 'the generator runs under a Gather');
$rw = $o->safe_psql('postgres', 'SET id_gen.test_clock_offset_ms = -30000; SELECT timeuuid_next()');
my $max_par = $o->safe_psql('postgres',
	"$parallel CREATE TABLE par AS SELECT timeuuid_next() AS tu FROM generate_series(1, 1000); SELECT max(tu) FROM par");
$o->stop('immediate');
$o->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -20000\n");
$o->start;
($ret, $out, $err) = $o->psql('postgres', "$parallel SELECT min(t) > '$rw'::timeuuid FROM (SELECT timeuuid_next() AS t FROM generate_series(1, 1000)) s",
	extra_params => ['-v', 'VERBOSITY=verbose']);
is($out, 't', 'after a crash with the clock 20 s behind, a parallel worker\'s timeuuids are above the read-write ones')
  or diag "ret $ret out $out err $err";
set_offset($o, 0);
is($o->safe_psql('postgres', "SELECT timeuuid_next() > '$max_par'::timeuuid"),
	't', 'with the clock right, it continues above them');
$o->stop;
done_testing();
