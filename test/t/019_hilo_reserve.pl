# Hi/Lo ranges for applications (hilo_reserve) under crashes and many
# clients.
#
# 1. A range is durable before it is returned, even when the WAL record
#    covering its values is another backend's, not flushed yet (the window
#    of 015_hilo_crash_window.pl): an application's open transaction has
#    called nextval() on the key's sequence, pre-logging 32 values; B
#    reserves a block inside them; the server crashes; the first range
#    after the restart lies above B's.
# 2. pgbench clients reserve ranges (one block and many blocks), while
#    others insert with DEFAULT hilo_next(), draw from the sequence as an
#    ORM would, and ALTER SEQUENCE ... INCREMENT BY the key; the server is
#    stopped immediately in the middle, restarted, and the clients go on.
#    No two recorded ranges overlap and no row's id lies in a range.
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
# The application calls nextval() on the key's sequence in a transaction it
# keeps open: its record pre-logs the next 32 values and is not flushed
# before it commits.
$node->safe_psql('postgres', q{
	CREATE TABLE tb (id bigint PRIMARY KEY DEFAULT hilo_next('tb'));
	SELECT hilo_create_key('tb', max_lo => 10);
	SELECT nextval('tb_id_seq');
	CHECKPOINT;
});
my $app = $node->background_psql('postgres');
$app->query_safe('BEGIN');
my $app_v = $app->query_safe("SELECT nextval('tb_id_seq')");
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
	SELECT hilo_create_key('k', max_lo => 7);
	-- Every range a client got, and the ids an ORM's value covered.
	CREATE TABLE used (client int, first_id bigint, last_id bigint);
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
\set n random(1, 60)
INSERT INTO used SELECT :client_id, first_id, last_id FROM hilo_reserve('k', :n);
},
	'one.sql' => q{
INSERT INTO used SELECT :client_id, first_id, last_id FROM hilo_reserve('k');
},
	'rollback.sql' => q{
BEGIN;
INSERT INTO used SELECT :client_id, first_id, last_id FROM hilo_reserve('k', 3);
ROLLBACK;
},
	# nextval() first: then no ALTER commits before the increment is read
	# (a new snapshot, the sequence held as nextval() holds it).
	'orm.sql' => q{
DO $$ DECLARE v bigint; i bigint; BEGIN v := nextval('k_id_seq'); SELECT seqincrement INTO i FROM pg_sequence WHERE seqrelid = 'k_id_seq'::regclass; INSERT INTO used VALUES (0, v - i + 1, v); END $$;
},
	'alter.sql' => q{
\set m random(3, 9)
ALTER SEQUENCE k_id_seq INCREMENT BY :m;
},
	'insert.sql' => q{
INSERT INTO k SELECT FROM generate_series(1, 12);
},
);
write_scripts(%scripts);
my @pgbench = ('pgbench', '--no-vacuum', '-h', $node->host, '-p', $node->port,
	'-f', "$dir/reserve.sql\@6", '-f', "$dir/one.sql\@2", '-f', "$dir/rollback.sql\@1",
	'-f', "$dir/orm.sql\@1", '-f', "$dir/alter.sql\@1", '-f', "$dir/insert.sql\@3", 'postgres');

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

my $overlap = q{x.ctid < y.ctid AND x.first_id <= y.last_id AND y.first_id <= x.last_id};
is($node->safe_psql('postgres', "SELECT count(*) FROM used x JOIN used y ON $overlap"),
	'0', 'no two ranges (or an ORM\'s blocks) share an id')
  or diag($node->safe_psql('postgres', "SELECT x.*, y.* FROM used x JOIN used y ON $overlap LIMIT 20"));
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM used u JOIN k ON k.id BETWEEN u.first_id AND u.last_id}),
	'0', 'no row of DEFAULT hilo_next() has an id of a range');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM k'), '>', 1000,
	'DEFAULT hilo_next() inserted beside them');
$node->stop;
done_testing();
