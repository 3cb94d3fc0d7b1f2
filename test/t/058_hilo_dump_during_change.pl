# pg_dump while the owner changes a key.  Before 1.4 a growing
# hilo_set_max_lo() replaced the key's sequence, and a dump that had listed
# the old one failed when it was gone (issue 25, "also seen").  A change is
# now DDL of the table's default and keeps the sequence: it waits for the
# ACCESS SHARE lock pg_dump holds on the table from its start, so the dump
# has the key as it was, and the change comes after it.  Restored, the key
# goes on above every id issued before the dump.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('hilo_dump_change');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'), v int);
	-- created after orders: pg_dump locks it later, and waits there
	CREATE TABLE zz_gate (a int);
});
$node->safe_psql('postgres', "SELECT hilo_set_adaptive('orders', false)");
$node->safe_psql('postgres', "SELECT hilo_set_max_lo('orders', 10)");
$node->safe_psql('postgres', 'INSERT INTO orders (v) SELECT g FROM generate_series(1, 25) g');

# pg_dump takes its snapshot and locks orders, then waits for zz_gate.
my $gate = $node->background_psql('postgres');
$gate->query_safe('BEGIN; LOCK TABLE zz_gate IN ACCESS EXCLUSIVE MODE;');
my $dumpfile = $node->basedir . '/during_change.dump';
my ($out, $err) = ('', '');
my $dump = IPC::Run::start(
	[ 'pg_dump', '-Fc', '-d', $node->connstr('postgres'), '-f', $dumpfile ],
	'>', \$out, '2>', \$err);
ok($node->poll_query_until('postgres', q{
		SELECT count(*) > 0 FROM pg_locks
		 WHERE relation = 'zz_gate'::regclass AND mode = 'AccessShareLock' AND NOT granted}),
	'pg_dump holds its snapshot and waits for the gate');

# The owner grows the block size meanwhile: the change waits for the dump.
my $change = $node->background_psql('postgres');
$change->query_until(qr/started/, q{
	\echo started
	SELECT hilo_set_max_lo('orders', 1000);
});
ok($node->poll_query_until('postgres', q{
		SELECT count(*) > 0 FROM pg_locks
		 WHERE relation = 'orders'::regclass AND mode = 'AccessExclusiveLock' AND NOT granted}),
	'hilo_set_max_lo waits for the lock pg_dump holds on the table');

$gate->query_safe('COMMIT');
$dump->finish;
is($dump->result(0), 0, 'pg_dump completes while the key is being changed') or diag($err);
$change->query_safe('SELECT 1');
$change->quit;
$gate->quit;
is($node->safe_psql('postgres', q{SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'orders'::regclass}),
	'1000', 'the change is made after the dump');

# The dump holds the key as it was: its sequence and the default of size 10.
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored'), $dumpfile ],
	'the dump restores');
is($node->safe_psql('restored', q{SELECT max_lo FROM id_gen.hilo_keys WHERE table_name = 'orders'::regclass}),
	'10', 'the restored key has the block size the dump saw');
is($node->safe_psql('restored', q{
		INSERT INTO orders (v) SELECT 0 FROM generate_series(1, 30);
		SELECT min(id) > (SELECT max(id) FROM orders WHERE v > 0) FROM orders WHERE v = 0}),
	't', 'the restored key goes on above every id issued before the dump');

# The source goes on above the dump's ids with the new size.
is($node->safe_psql('postgres', q{
		INSERT INTO orders (v) SELECT 0 FROM generate_series(1, 30);
		SELECT min(id) > (SELECT max(id) FROM orders WHERE v > 0) FROM orders WHERE v = 0}),
	't', 'the source, changed, goes on above its ids');

$node->stop;
done_testing();
