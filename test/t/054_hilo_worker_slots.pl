# One role cannot take every background-worker slot through Hi/Lo key
# workers (issue 16, defect 4).  A role holding its own ORM hi row in one
# session while many of its sessions need a block used to keep one key
# worker per session waiting on the row (lock_timeout 30 s each), and
# another owner's first insert then failed: no worker slot came free.  Now
# a key worker never waits on the hi row (FOR UPDATE NOWAIT): the sessions
# wait in their own backends and ask again, and a role runs at most a
# quarter of max_worker_processes key workers at once.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('hilo_worker_slots');
$node->init;
# Three slots besides the logical replication launcher's; one per role.
$node->append_conf('postgresql.conf', "max_worker_processes = 4\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE ROLE hostile;
	CREATE ROLE victim;
	CREATE SCHEMA m AUTHORIZATION hostile;
	CREATE SCHEMA a AUTHORIZATION victim;
	SET ROLE hostile;
	CREATE TABLE m.t_hi (next_hi integer);
	INSERT INTO m.t_hi VALUES (0);
	CREATE TABLE m.t (id bigint PRIMARY KEY DEFAULT hilo_next('m.t'));
	SELECT hilo_bind_table('m.t', 'm.t_hi', 'next_hi', 2);
	RESET ROLE;
	SET ROLE victim;
	CREATE TABLE a.orders (id bigint PRIMARY KEY DEFAULT hilo_next('a.orders'));
});

# The role holds its own hi row...
my $holder = $node->background_psql('postgres');
$holder->query_safe('SET ROLE hostile; BEGIN; SELECT next_hi FROM m.t_hi FOR UPDATE;');

# ... and six of its sessions need a block.
my @waiters;
for my $i (1 .. 6)
{
	my $s = $node->background_psql('postgres');
	$s->query_until(qr/drawing/, "SET ROLE hostile;\n\\echo drawing\nINSERT INTO m.t DEFAULT VALUES;\n");
	push @waiters, $s;
}
$node->poll_query_until('postgres', q{
	SELECT count(*) = 6 FROM pg_stat_activity WHERE query = 'INSERT INTO m.t DEFAULT VALUES;'
	   AND state = 'active'
}) or die 'the sessions did not start drawing';

# They wait in their own backends: at no time more than one key worker
# (the role's bound) runs, and none waits on a lock.
my $most = 0;
my $locked = 0;
for (1 .. 20)
{
	my ($n, $l) = split /\|/, $node->safe_psql('postgres', q{
		SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock') FROM pg_stat_activity
		 WHERE backend_type = 'id_gen Hi/Lo key worker'
	});
	$most = $n if $n > $most;
	$locked = $l if $l > $locked;
	usleep(50_000);
}
cmp_ok($most, '<=', 1, 'the role runs at most one key worker at a time');
is($locked, 0, 'no key worker waits on the role\'s hi row');

# Another owner's first insert gets its worker.
my ($ret, $out, $err) = $node->psql('postgres',
	"SET ROLE victim; INSERT INTO a.orders DEFAULT VALUES RETURNING id");
is($ret, 0, 'another owner\'s first insert succeeds') or diag($err);
is($out, '1', 'and gets id 1');

# The row is let go: every waiting session gets its block, no id twice.
$holder->query_safe('COMMIT');
$node->poll_query_until('postgres', 'SELECT count(*) = 6 FROM m.t')
  or die 'the waiting sessions did not finish';
is($node->safe_psql('postgres', 'SELECT count(DISTINCT id) FROM m.t'), '6', 'six distinct ids');
$_->quit for @waiters;
$holder->quit;

# A session's lock_timeout bounds its wait for the row.
$holder = $node->background_psql('postgres');
$holder->query_safe('SET ROLE hostile; BEGIN; SELECT next_hi FROM m.t_hi FOR UPDATE;');
($ret, $out, $err) = $node->psql('postgres',
	"SET ROLE hostile; SET lock_timeout = '200ms'; SELECT hilo_next('m.t') FROM generate_series(1, 3)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/55P03: could not draw a block of the Hi\/Lo key of table m\.t: its hi row is locked/,
	'lock_timeout: ERROR 55P03');
$holder->quit;

$node->stop;
done_testing();
