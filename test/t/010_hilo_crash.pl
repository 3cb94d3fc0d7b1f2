# Hi/Lo keys survive a crash (immediate shutdown) as a serial does.  A key
# is its table's sequence, so crash recovery carries it as any sequence, and
# WAL is flushed in order: every block drawn before a commit that reached
# disk, including blocks held by transactions that never commit, lies below
# every block drawn after the restart (015 has a block whose record only
# another session's commit flushed).  A key made in a transaction that
# never committed is gone after the crash, with its table's default; a key
# drawn from in a transaction that never committed goes on above the block
# it drew.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdGenCompat;

my $node = PostgreSQL::Test::Cluster->new('hilo_crash');
$node->init;
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'), v int);
	SELECT hilo_create_key('t', max_lo => 100);
	CREATE TABLE firstuse (id bigint);
});

# Committed rows from several backends.
for my $i (1 .. 5)
{
	$node->safe_psql('postgres', "INSERT INTO t (v) SELECT g FROM generate_series(1, 150) g");
}

# A session in the middle of its block, with an open transaction that has
# just drawn a new block; another whose key is made in a transaction that
# never commits, drawing from it there (a ROLLBACK or a crash takes key and
# blocks away); a third that made a key in a committed transaction and
# draws from it in one that never commits.
my $s1 = $node->background_psql('postgres');
$s1->query_safe("BEGIN");
my $held = query_line($s1, "SELECT max(hilo_next('t')) FROM generate_series(1, 130)");
my $s2 = $node->background_psql('postgres');
$s2->query_safe("BEGIN");
$s2->query_safe("ALTER TABLE firstuse ALTER id SET DEFAULT hilo_next('firstuse')");
$s2->query_safe("SELECT hilo_create_key('firstuse')");
is(query_line($s2, "SELECT hilo_next('firstuse')"), '1', 'a key made in an open transaction draws there');
$node->safe_psql('postgres', q{
	CREATE TABLE firstuse2 (id bigint DEFAULT hilo_next('firstuse2'));
	SELECT hilo_create_key('firstuse2');
});
my $s3 = $node->background_psql('postgres');
$s3->query_safe("BEGIN");
my $first = query_line($s3, "SELECT hilo_next('firstuse2')");
is($first, '1', 'first draw of a committed key inside an open transaction');

# A commit after those draws (the key made above was one too).
$node->safe_psql('postgres', "INSERT INTO t (v) VALUES (-1)");
my $committed_max = $node->safe_psql('postgres', "SELECT max(id) FROM t");
my $reserved = $node->safe_psql('postgres',
	"SELECT reserved_to FROM id_gen.hilo_keys WHERE table_name = 't'::regclass");
cmp_ok($held, '<=', $reserved, 'ids held by the open transaction are reserved');

$node->stop('immediate');
$s1->{run}->kill_kill;
$s2->{run}->kill_kill;
$s3->{run}->kill_kill;
$node->start;

my $after = $node->safe_psql('postgres', "INSERT INTO t (v) VALUES (0) RETURNING id");
cmp_ok($after, '>', $held, 'first id after the crash is above the ids held by a crashed session');
cmp_ok($after, '>', $committed_max, 'and above every committed id');
cmp_ok($after, '>', $reserved, 'and above every block drawn before the crash');

is($node->safe_psql('postgres',
		"SELECT count(*) FROM id_gen.hilo_keys WHERE table_name = 'firstuse'::regclass"),
	'0', 'a key made in a transaction that never committed is gone with it');
cmp_ok($node->safe_psql('postgres', "SELECT hilo_next('firstuse2')"), '>', $first,
	'a key drawn from in a transaction that never committed continues above the crashed block');

# Many backends after the restart: still no duplicates (the primary key
# would refuse them) and all ids positive.
for my $i (1 .. 3)
{
	$node->safe_psql('postgres', "INSERT INTO t (v) SELECT g FROM generate_series(1, 120) g");
}
is($node->safe_psql('postgres', "SELECT count(*) = count(DISTINCT id) AND min(id) >= 1 FROM t"),
	't', 'all ids unique and positive');

$node->stop;
done_testing();
