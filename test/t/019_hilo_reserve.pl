# Hi/Lo ranges for applications (hilo_reserve, hilo_return) under crashes
# and many clients.  hilo_return() takes nothing back (a key never moves
# back; it returns false), so no part of a range is handed out again.
#
# 1. A range is durable before it is returned, even when the WAL record
#    covering its values is another backend's, not flushed yet (the window
#    of 015_hilo_crash_window.pl): an application's open transaction has
#    called nextval() on a bound key's sequence, pre-logging 32 values; B
#    reserves a block inside them; the server crashes; the first range
#    after the restart lies above B's.  (A draw of hilo_next held in that
#    window holds the key's draw lock, for which hilo_reserve waits.)
# 2. pgbench clients reserve ranges (whole blocks and many blocks), use
#    part of them, record what they used, "return" the rest, while others
#    insert with DEFAULT hilo_next(); the server is stopped immediately in
#    the middle, restarted, and the clients go on.  No two recorded ranges
#    overlap and no row's id lies in a range a client used.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_reserve');
$node->init;
# As in 015: nothing else may flush the application's record behind the
# test's back.
$node->append_conf('postgresql.conf', q{
autovacuum = off
bgwriter_lru_maxpages = 0
checkpoint_timeout = 1h
wal_writer_delay = 10s
max_connections = 30
});
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

# --- 1. the crash window --------------------------------------------------
# A key bound to the application's sequence (pooled_lo, INCREMENT 10).  The
# application calls nextval() in a transaction it keeps open: its record
# pre-logs the next 32 values and is not flushed before it commits.
$node->safe_psql('postgres', q{
	CREATE TABLE tb (id bigint PRIMARY KEY DEFAULT hilo_next('tb'));
	CREATE SEQUENCE tb_seq INCREMENT 10;
	SELECT hilo_bind('tb', 'tb_seq', 'pooled_lo');
	CHECKPOINT;
});
my $app = $node->background_psql('postgres');
$app->query_safe('BEGIN');
my $app_v = $app->query_safe("SELECT nextval('tb_seq')");
my ($flushed, $inserted) = split /\|/, $node->safe_psql('postgres',
	'SELECT pg_current_wal_flush_lsn(), pg_current_wal_insert_lsn()');
ok($node->safe_psql('postgres', "SELECT '$flushed'::pg_lsn < '$inserted'::pg_lsn") eq 't',
	"the application's sequence record is not flushed yet ($flushed < $inserted)");

# B: one block from a value that record covers: no WAL of its own, no xid,
# so nothing but hilo_reserve's own flush makes it durable.
my ($b_first, $b_last) = split /\|/, $node->safe_psql('postgres', q{
	SET synchronous_commit = off;
	SELECT first_id, last_id FROM hilo_reserve('tb', 10)});
cmp_ok($b_first, '>', $app_v, "B reserved $b_first..$b_last above the application's $app_v");

$node->stop('immediate');
$app->{run}->kill_kill;
$node->start;

my ($after) = $node->safe_psql('postgres', q{SELECT first_id FROM hilo_reserve('tb', 10)});
cmp_ok($after, '>', $b_last, 'the first range after the crash lies above the range B got');

# --- 2. many clients, a crash in the middle -------------------------------
$node->safe_psql('postgres', q{
	CREATE TABLE k (id bigint PRIMARY KEY DEFAULT hilo_next('k'));
	SELECT hilo_set_max_lo('k', 7);
	-- What each client got and used: first_id .. used_to (used_to < first_id:
	-- none), recorded before the rest is returned.
	CREATE TABLE used (client int, first_id bigint, used_to bigint, last_id bigint);
});

my $dir = $node->basedir;

# pgbench scripts: name => text, written into the node's directory.
sub write_scripts
{
	my %texts = @_;
	for my $name (keys %texts)
	{
		open my $fh, '>', "$dir/$name" or die $!;
		print $fh $texts{$name};
		close $fh;
	}
}
my %scripts = (
	'reserve.sql' => q{
\set n random(1, 40)
\set u random(0, 45)
SELECT first_id AS f, last_id AS l FROM hilo_reserve('k', :n) \gset
INSERT INTO used VALUES (:client_id, :f, least(:l, :f + :u - 1), :l);
SELECT hilo_return('k', least(:f + :u, :l + 1), :l);
},
	'adaptive.sql' => q{
\set u random(0, 600)
SELECT first_id AS f, last_id AS l FROM hilo_reserve('k') \gset
INSERT INTO used VALUES (:client_id, :f, least(:l, :f + :u - 1), :l);
SELECT hilo_return('k', least(:f + :u, :l + 1), :l);
},
	'rollback.sql' => q{
BEGIN;
SELECT first_id AS f, last_id AS l FROM hilo_reserve('k', 3) \gset
SELECT hilo_return('k', :f, :l);
ROLLBACK;
},
	'insert.sql' => q{
INSERT INTO k SELECT FROM generate_series(1, 12);
},
);
write_scripts(%scripts);
my @pgbench = ('pgbench', '--no-vacuum', '-h', $node->host, '-p', $node->port,
	'-f', "$dir/reserve.sql\@6", '-f', "$dir/adaptive.sql\@2", '-f', "$dir/rollback.sql\@1",
	'-f', "$dir/insert.sql\@3", 'postgres');

# Clients running when the server stops.
my ($out, $err) = ('', '');
my $bench = IPC::Run::start([ @pgbench, '--client=6', '--time=60' ], '>', \$out, '2>', \$err);
$node->poll_query_until('postgres', 'SELECT count(*) >= 200 FROM used')
  or die 'the clients did not get going';
$node->stop('immediate');
$bench->finish;
my $before_crash = 0;
$node->start;
$before_crash = $node->safe_psql('postgres', 'SELECT count(*) FROM used');
cmp_ok($before_crash, '>=', 200, "$before_crash ranges recorded before the crash");

# And on, after the restart, connecting anew for each transaction.
my $result = IPC::Run::run([ @pgbench, '--client=8', '--transactions=150', '--connect' ],
	'>', \$out, '2>', \$err);
ok($result, 'pgbench after the restart') or diag($err);
like($out, qr{processed: 1200/1200}, 'every transaction after the restart ran');

# A client that used nothing (used_to = first_id - 1) gave its whole range
# back, and a later range may legitimately start inside it: only ranges
# that used ids can collide.
my $both_used = q{x.ctid < y.ctid AND x.used_to >= x.first_id AND y.used_to >= y.first_id
	   AND x.first_id <= y.used_to AND y.first_id <= x.used_to};
is($node->safe_psql('postgres', "SELECT count(*) FROM used x JOIN used y ON $both_used"),
	'0', 'no two clients used the same id')
  or diag($node->safe_psql('postgres', "SELECT x.*, y.* FROM used x JOIN used y ON $both_used LIMIT 20"));
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM used u JOIN k ON k.id BETWEEN u.first_id AND u.used_to}),
	'0', 'no row of DEFAULT hilo_next() has an id a client used');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM k'), '>', 1000,
	'DEFAULT hilo_next() inserted beside them');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM used x WHERE EXISTS (
	  SELECT 1 FROM used y WHERE y.ctid <> x.ctid AND y.first_id > x.used_to AND y.first_id <= x.last_id)}),
	'0', 'hilo_return() gave nothing back: no range starts inside another');
is($node->safe_psql('postgres', "SELECT first_id AS f, last_id AS l FROM hilo_reserve('k', 3) \\gset
SELECT hilo_return('k', :f, :l)"), 'f', 'hilo_return() returns false');

# --- 3. adaptive blocks under load, with the key changed meanwhile -------
# Clients insert with DEFAULT hilo_next() into a key whose backends take
# runs of blocks (hilo_set_adaptive), reserve and return ranges of it, while
# others switch it between adaptive and fixed and change its block size.
# A duplicate would fail an insert (primary key) and the run.  The sizes
# stay within 4 .. 6: a change never moves the sequence back, so each
# change to a smaller size multiplies the key's position by the ratio, and
# a hundred random changes between 2 and 20 can pass 2^63 (2200H).
$node->safe_psql('postgres', q{
	CREATE TABLE ka (id bigint PRIMARY KEY DEFAULT hilo_next('ka'));
	SELECT hilo_set_max_lo('ka', 4);
	SELECT hilo_set_adaptive('ka');
	CREATE TABLE used_ka (first_id bigint, used_to bigint);
});
my %scripts3 = (
	'ka_insert.sql' => q{
\set n random(1, 300)
INSERT INTO ka SELECT FROM generate_series(1, :n);
},
	'ka_reserve.sql' => q{
\set u random(0, 60)
SELECT first_id AS f, last_id AS l FROM hilo_reserve('ka', 50) \gset
INSERT INTO used_ka VALUES (:f, least(:l, :f + :u - 1));
SELECT hilo_return('ka', least(:f + :u, :l + 1), :l);
},
	'ka_change.sql' => q{
\set m random(4, 6)
\set a random(0, 1)
SELECT hilo_set_max_lo('ka', :m);
SELECT hilo_set_adaptive('ka', :a = 1);
},
);
write_scripts(%scripts3);
$result = IPC::Run::run([ 'pgbench', '--no-vacuum', '-h', $node->host, '-p', $node->port,
	'-f', "$dir/ka_insert.sql\@8", '-f', "$dir/ka_reserve.sql\@3", '-f', "$dir/ka_change.sql\@1",
	'--client=6', '--transactions=150', 'postgres' ], '>', \$out, '2>', \$err);
ok($result, 'adaptive key under load and changes') or diag($err);
like($out, qr{processed: 900/900}, 'every transaction ran, no duplicate key');
is($node->safe_psql('postgres', "SELECT count(*) FROM used_ka x JOIN used_ka y ON $both_used"),
	'0', 'no two ranges of the adaptive key used the same id')
  or diag($node->safe_psql('postgres', "SELECT x.*, y.* FROM used_ka x JOIN used_ka y ON $both_used LIMIT 20"));
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM used_ka u JOIN ka ON ka.id BETWEEN u.first_id AND u.used_to}),
	'0', 'no row of the adaptive key has an id a range used');

# --- 4. no draw between a run's first value and its setval() -------------
# A backend of an adaptive key takes a run: one nextval(), then one setval()
# past the rest.  Held between the two (a pause point of test builds), it
# holds the key's draw lock exclusively (an object lock on the sequence,
# sub-id 1), so another backend's draw waits: were it let through, it would
# get a value inside the run.
$node->safe_psql('postgres', q{
	CREATE TABLE kr (id bigint PRIMARY KEY DEFAULT hilo_next('kr'));
	SELECT hilo_set_max_lo('kr', 8);
	SELECT hilo_set_adaptive('kr');
});
my $lock = $node->background_psql('postgres');
$lock->query_safe('SELECT pg_advisory_lock(4444)');
my $runner = $node->background_psql('postgres');
$runner->query_safe('SET id_gen.test_wait_before_run_jump = 4444');
# Its first draw: 32 ids, 4 blocks of 8: a run.
$runner->query_until(qr/running/, "\\echo running\nINSERT INTO kr SELECT FROM generate_series(1, 30);\n");
$node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM pg_locks
	 WHERE locktype = 'advisory' AND objid = 4444 AND NOT granted})
  or die 'the run did not reach its pause point';
my $other = $node->background_psql('postgres');
$other->query_until(qr/drew/, "\\echo drew\nINSERT INTO kr SELECT FROM generate_series(1, 5);\n");
ok($node->poll_query_until('postgres', q{
	SELECT count(*) >= 1 FROM pg_locks l
	 WHERE l.locktype = 'object' AND l.classid = 'pg_class'::regclass
	   AND l.objid = 'kr_id_seq'::regclass AND l.objsubid = 1 AND NOT l.granted}),
	'another draw of the key waits while the run is taken');
$lock->query_safe('SELECT pg_advisory_unlock(4444)');
$runner->quit;
$other->quit;
is($node->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM kr'), '35|35',
	'the run and the draw that waited for it do not overlap');

$node->stop;
done_testing();
