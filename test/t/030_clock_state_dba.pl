# Issue 17: the clock floor of the time-ordered generators (snowflake_next,
# jsid_next, timeuuid_next) under what a DBA does to a server.  After each
# operation no id repeats and none goes backwards, or the generator refuses
# with a clear error whose remedy works:
#  - a second database's first call while another one is busy does not wait
#    for the busy one's reservation, and behaves as the busy one does when
#    the clock steps back;
#  - a changed id_gen.snowflake_epoch that would make ids smaller is refused
#    (the epoch is kept with the floor, per database);
#  - the state file of 1.3 (a server-wide copy of the floor, removed in 1.4)
#    is ignored, even corrupt;
#  - CREATE/DROP DATABASE churn (1.3 had 64 per-database slots);
#  - pg_dump/pg_restore into a fresh server, and pg_upgrade (15 -> 15), with
#    the new server's clock behind.
use strict;
use warnings;
use Cwd;
use File::Temp qw(tempdir);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);

my $n = PostgreSQL::Test::Cluster->new('cs_dba');
$n->init;
$n->append_conf('postgresql.conf', "id_gen.worker_id = 5\n");
$n->start;
$n->safe_psql('postgres', 'CREATE DATABASE tmpl');
$n->safe_psql('tmpl', 'CREATE EXTENSION id_gen');
$n->safe_psql('postgres',
	'CREATE EXTENSION id_gen; CREATE TABLE ids (phase text, sf bigint UNIQUE, js bigint UNIQUE, tu timeuuid UNIQUE)');

sub gen
{
	my ($node, $phase, $count) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO ids SELECT '$phase', snowflake_next(), jsid_next(), timeuuid_next() FROM generate_series(1, $count)");
}

sub above
{
	my ($node, $new, @old) = @_;
	my $in = join(',', map { "'$_'" } @old);
	return $node->safe_psql('postgres', qq{
		SELECT (SELECT min(sf) FROM ids WHERE phase = '$new') > (SELECT max(sf) FROM ids WHERE phase IN ($in))
		   AND (SELECT min(js) FROM ids WHERE phase = '$new') > (SELECT max(js) FROM ids WHERE phase IN ($in))
		   AND (SELECT min(tu) FROM ids WHERE phase = '$new') > (SELECT max(tu) FROM ids WHERE phase IN ($in))});
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

# SQLSTATE of $sql in $db, or 'ok'.
sub outcome
{
	my ($node, $db, $sql) = @_;
	my ($ret, $out, $err) = $node->psql($db, $sql, extra_params => ['-v', 'VERBOSITY=verbose']);
	return 'ok' if $ret == 0;
	return $err =~ /ERROR:  (\w{5}):/ ? $1 : $err;
}

# --- A second database while the first is busy ---------------------------
gen($n, 'n1', 1000);
for my $db ('b', 'c', 'd')
{
	$n->safe_psql('postgres', "CREATE DATABASE $db TEMPLATE tmpl");
}
# Let the clock pass the floor reserved so far: the next call reserves a
# new one, a step ahead of the clock.
$n->safe_psql('postgres',
	'SELECT pg_sleep(greatest(0, extract(epoch FROM clock_floor - clock_timestamp())) + 0.01) FROM snowflake_state()');
gen($n, 'n2', 10);
my $t0 = time;
$n->safe_psql('b', 'SELECT snowflake_next(), timeuuid_next()');
my $took = time - $t0;
cmp_ok($took, '<', 0.6, "a database's first call does not wait for another database's reservation")
  or diag "took $took s";

# The clock steps 3 s back: a database used for the first time now behaves
# as the busy one does (timeuuid_next() goes on, snowflake_next() refuses
# beyond id_gen.max_clock_backward_ms in both).
gen($n, 'n3', 10);
set_offset($n, -3000);
is(outcome($n, 'c', 'SELECT timeuuid_next()'), outcome($n, 'postgres', 'SELECT timeuuid_next()'),
	'after a 3 s clock step back, timeuuid_next() in a new database behaves as in the busy one');
is(outcome($n, 'd', 'SELECT snowflake_next()'), outcome($n, 'postgres', 'SELECT snowflake_next()'),
	'and snowflake_next() too');
set_offset($n, 0);
gen($n, 'n4', 1000);
is(above($n, 'n4', 'n1', 'n2', 'n3'), 't', 'ids continue above');

# --- The epoch -------------------------------------------------------------
sub restart_with_epoch
{
	my ($epoch) = @_;
	$n->append_conf('postgresql.conf', "id_gen.snowflake_epoch = '$epoch'\n");
	$n->restart;
}

restart_with_epoch('2021-01-01 00:00:00Z');
for my $f ('snowflake_next()', 'jsid_next()')
{
	my ($ret, $out, $err) = $n->psql('postgres', "SELECT $f", extra_params => ['-v', 'VERBOSITY=verbose']);
	like($err, qr/55000: .*epoch/, "a later epoch that would make ids smaller: $f refuses");
	like($err, qr/DETAIL:  .*2016-11-01/, 'naming the previous epoch');
}
is(outcome($n, 'postgres', 'SELECT timeuuid_next()'), 'ok', 'timeuuid_next() does not depend on the epoch');

# An earlier epoch makes ids larger: accepted, and then kept.
restart_with_epoch('2015-01-01 00:00:00Z');
gen($n, 'n5', 1000);
is(above($n, 'n5', 'n1', 'n2', 'n3', 'n4'), 't', 'an earlier epoch is accepted: ids jump up');
restart_with_epoch('2016-11-01 00:00:00Z');
my ($ret, $out, $err) = $n->psql('postgres', 'SELECT snowflake_next()', extra_params => ['-v', 'VERBOSITY=verbose']);
like($err, qr/DETAIL:  .*2015-01-01/, 'going back to the old epoch is refused: the earlier one was kept');
restart_with_epoch('2015-01-01 00:00:00Z');
gen($n, 'n6', 1000);
is(above($n, 'n6', 'n1', 'n2', 'n3', 'n4', 'n5'), 't', 'the remedy (the previous epoch) works');

# --- A state file left by 1.3 -----------------------------------------------
# 1.3 kept a server-wide copy of the floor in $PGDATA/id_gen_clock.state and
# refused to generate while it was corrupt; 1.4 keeps the floor once, per
# database, and never reads the file.
$n->stop;
my $state = $n->data_dir . '/id_gen_clock.state';
open(my $fh, '>', $state) or die $!;
print $fh "not a clock state";
close $fh;
$n->start;
gen($n, 'n6b', 1000);
is(above($n, 'n6b', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'), 't', 'a corrupt 1.3 state file is ignored: ids continue above');

# --- Database churn past the 64 slots -------------------------------------
my $script = '';
for my $i (1 .. 66)
{
	$script .= "CREATE DATABASE churn$i TEMPLATE tmpl;\n\\c churn$i\nSELECT snowflake_next() > 0;\n"
	  . "\\c postgres\nDROP DATABASE churn$i;\n";
}
$n->safe_psql('postgres', $script);
$n->safe_psql('postgres', 'CREATE DATABASE after_churn TEMPLATE tmpl');
is(outcome($n, 'after_churn', 'SELECT snowflake_next(), timeuuid_next()'), 'ok',
	'after 66 databases were used and dropped, a new one generates');
gen($n, 'n7', 1000);
is(above($n, 'n7', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n6b'), 't', 'and the old ones continue above');

# --- pg_dump / pg_restore into a fresh server, its clock behind -----------
my $dump = $n->basedir . '/ids.dump';
$n->command_ok(['pg_dump', '-Fc', '-f', $dump, '-d', $n->connstr('postgres')], 'pg_dump');
my $m = PostgreSQL::Test::Cluster->new('cs_restored');
$m->init;
$m->append_conf('postgresql.conf',
	"id_gen.worker_id = 5\nid_gen.snowflake_epoch = '2015-01-01 00:00:00Z'\nid_gen.test_clock_offset_ms = -60000\n");
$m->start;
$m->command_ok(['pg_restore', '-d', $m->connstr('postgres'), $dump], 'pg_restore into a fresh server');
like(outcome($m, 'postgres', 'SELECT snowflake_next()'), qr/55000/,
	'restored with the clock a minute behind, snowflake_next() refuses');
is(outcome($m, 'postgres', 'SELECT timeuuid_next()'), 'ok',
	'restored with the clock a minute behind, timeuuid_next() continues above the floor');
set_offset($m, 0);
gen($m, 'restored', 1000);
is(above($m, 'restored', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n6b', 'n7'), 't', 'with the clock right, ids continue above');
$m->stop;

# --- pg_upgrade 15 -> 15 ----------------------------------------------------
my ($bindir) = grep { -x "$_/pg_upgrade" } split /:/, $ENV{PATH};
$n->stop;
my $u = PostgreSQL::Test::Cluster->new('cs_upgraded');
$u->init;
$u->append_conf('postgresql.conf',
	"id_gen.worker_id = 5\nid_gen.snowflake_epoch = '2015-01-01 00:00:00Z'\nid_gen.test_clock_offset_ms = -60000\n");
my $cwd = getcwd;
chdir tempdir(CLEANUP => 1);
command_ok(['pg_upgrade', '--no-sync', '-d', $n->data_dir, '-D', $u->data_dir,
	'-b', $bindir, '-B', $bindir, '-s', $n->host, '-p', $n->port, '-P', $u->port],
	'pg_upgrade');
chdir $cwd;
$u->start;
like(outcome($u, 'postgres', 'SELECT snowflake_next()'), qr/55000/,
	'upgraded with the clock a minute behind, snowflake_next() refuses');
is(outcome($u, 'postgres', 'SELECT timeuuid_next()'), 'ok',
	'upgraded with the clock a minute behind, timeuuid_next() continues above the floor');
set_offset($u, 0);
gen($u, 'upgraded', 1000);
is(above($u, 'upgraded', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n6b', 'n7'), 't', 'with the clock right, ids continue above');
$u->stop;

done_testing();
