# A crash keeps what a serial keeps: no row that survives it holds an id a
# later draw gives again, even when the WAL record covering the block that
# row's id came from was written by another backend that never flushed it.
#
# nextval() pre-logs: one WAL record covers the next 32 values of a
# sequence.  Backend A draws v and writes that record, in a transaction it
# leaves open (so nothing flushes it).  Backend B then draws v+1, which the
# same record covers, so B writes no sequence WAL of its own, and commits
# rows with ids of that block.  WAL is flushed in order: B's commit flushes
# A's record too, so after a crash the sequence comes back above B's ids.
# A draw therefore flushes nothing itself, as nextval() does not; ids a
# transaction returned without committing a write may come again after a
# crash, as nextval()'s values may (docs/hilo.md).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdGenCompat;

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
	CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'), who text);
	SELECT hilo_create_key('t', max_lo => 10);
	INSERT INTO t SELECT FROM generate_series(1, 25);
});
my $committed_max = $node->safe_psql('postgres', 'SELECT max(id) FROM t');

# After a checkpoint, the next nextval() of the sequence writes a WAL record.
$node->safe_psql('postgres', 'CHECKPOINT');

# A draws (writing that record) in a transaction it leaves open.
my $a = $node->background_psql('postgres');
$a->query_safe('BEGIN');
my $a_id = query_line($a, "SELECT hilo_next('t')");
cmp_ok($a_id, '>', $committed_max, "A drew a new block ($a_id)");
my ($flushed, $inserted) = split /\|/, $node->safe_psql('postgres',
	'SELECT pg_current_wal_flush_lsn(), pg_current_wal_insert_lsn()');
ok($node->safe_psql('postgres', "SELECT '$flushed'::pg_lsn < '$inserted'::pg_lsn") eq 't',
	"A's sequence record is not flushed ($flushed < $inserted)");

# B commits rows from the next block, which A's record covers.
my ($b_min, $b_max) = split /\|/, $node->safe_psql('postgres', q{
	WITH ins AS (INSERT INTO t (who) SELECT 'B' FROM generate_series(1, 5) RETURNING id)
	SELECT min(id), max(id) FROM ins});
cmp_ok($b_min, '>', $a_id, "B committed ids $b_min..$b_max from the block after A's");

# Crash with A's transaction still open.
$node->stop('immediate');
$a->{run}->kill_kill;
$node->start;

is($node->safe_psql('postgres', "SELECT count(*) FROM t WHERE who = 'B'"), '5',
	"B's rows survived the crash");
my $after = $node->safe_psql('postgres', "SELECT hilo_next('t')");
cmp_ok($after, '>', $b_max, "the first block drawn after the crash lies above B's ids");
$node->safe_psql('postgres', 'INSERT INTO t SELECT FROM generate_series(1, 400)');
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM t'), 't',
	'no id is in two rows');

$node->stop;
done_testing();
