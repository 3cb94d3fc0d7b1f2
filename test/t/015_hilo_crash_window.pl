# A Hi/Lo block is durable before any of its ids is returned, even when the
# WAL record that covers its hi value was written by another backend that
# has not flushed it yet.
#
# nextval() pre-logs: one WAL record covers the next 32 values of a
# sequence.  Backend A draws v and writes that record; before A flushes it,
# backend B draws v+1, which the same record covers, so B writes no WAL of
# its own, and, having no transaction id, nothing is flushed when it
# commits.  Should B return ids then and the server crash before A's flush
# (a PANIC on a failed fsync, say), the sequence would come back below v+1
# and B's ids would be handed out again.  So a draw flushes WAL up to the
# LSN of the sequence page it read its value from.
#
# The test holds A between its WAL insert and its flush with a pause point
# compiled only into test builds (id_gen.test_wait_before_draw_flush, see
# the Makefile), lets B draw and return ids, and crashes the server.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_crash_window');
$node->init;
# Nothing else may flush A's record behind the test's back: no autovacuum,
# no bgwriter writes (which flush WAL first), no timed checkpoint.  The WAL
# writer flushes only whole pages and asynchronous commits, neither of
# which happens here.
$node->append_conf('postgresql.conf', q{
autovacuum = off
bgwriter_lru_maxpages = 0
checkpoint_timeout = 1h
wal_writer_delay = 10s
});
$node->start;

# t has blocks of 10: A and B draw side by side.
$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'));
	SELECT hilo_create_key('t', max_lo => 10);
	INSERT INTO t SELECT FROM generate_series(1, 25);
});
my $committed_max = $node->safe_psql('postgres', 'SELECT max(id) FROM t');

# The lock A's pause point waits for.
my $holder = $node->background_psql('postgres');
$holder->query_safe('SELECT pg_advisory_lock(4242)');

# After a checkpoint, the next nextval() of the sequence writes a WAL record.
$node->safe_psql('postgres', 'CHECKPOINT');

# A draws (writing that record) and stops before flushing it.
my $a = $node->background_psql('postgres');
$a->query_safe('SET id_gen.test_wait_before_draw_flush = 4242');
$a->query_until(qr/drawing/, "\\echo drawing\nSELECT hilo_next('t');\n");
$node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM pg_locks
	 WHERE locktype = 'advisory' AND objid = 4242 AND NOT granted})
  or die 'A did not reach its pause point';
my ($flushed, $inserted) = split /\|/, $node->safe_psql('postgres',
	'SELECT pg_current_wal_flush_lsn(), pg_current_wal_insert_lsn()');
ok($node->safe_psql('postgres', "SELECT '$flushed'::pg_lsn < '$inserted'::pg_lsn") eq 't',
	"A's sequence record is not flushed yet ($flushed < $inserted)");

# B: a read-only transaction, so no xid and no commit record; its value is
# covered by A's record, so its nextval() writes no WAL.
my ($b_min, $b_max) = split /\|/, $node->safe_psql('postgres',
	"SELECT min(id), max(id) FROM (SELECT hilo_next('t') AS id FROM generate_series(1, 5)) s");
cmp_ok($b_min, '>', $committed_max, "B returned ids $b_min..$b_max from a new block");

# Crash while A still waits before its flush.
$node->stop('immediate');
$a->{run}->kill_kill;
$holder->{run}->kill_kill;
$node->start;

my $after = $node->safe_psql('postgres', "SELECT hilo_next('t')");
cmp_ok($after, '>', $b_max, 'the first block drawn after the crash lies above the ids B returned');
$node->safe_psql('postgres', 'INSERT INTO t SELECT FROM generate_series(1, 400)');
is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE id BETWEEN $b_min AND $b_max"),
	'0', "no later block contains B's ids");

$node->stop;
done_testing();
