# Issue 17: the clock floor of the time-ordered generators (snowflake_next,
# jsid_next, timeuuid_next) under what a DBA does to a server.  After each
# operation no id repeats and none goes backwards, and nothing is refused:
#  - a second database's first call while another one is busy does not wait
#    for the busy one's reservation, and behaves as the busy one does when
#    the clock steps back;
#  - a changed id_gen.snowflake_epoch that would make ids smaller: the floor,
#    a snowflake id, keeps new ids above the old ones (ahead of the clock);
#  - CREATE/DROP DATABASE churn;
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
# as the busy one does (both go on, above the last ids).
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
gen($n, 'n5', 1000);
is(above($n, 'n5', 'n1', 'n2', 'n3', 'n4'), 't', 'a later epoch: nothing refused, ids continue above the old ones');

# An earlier epoch makes ids larger; back to the first one, still above.
restart_with_epoch('2015-01-01 00:00:00Z');
gen($n, 'n6', 1000);
is(above($n, 'n6', 'n1', 'n2', 'n3', 'n4', 'n5'), 't', 'an earlier epoch: ids jump up');
restart_with_epoch('2016-11-01 00:00:00Z');
gen($n, 'n6b', 1000);
is(above($n, 'n6b', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'), 't', 'back to the first epoch: ids continue above');
restart_with_epoch('2015-01-01 00:00:00Z');

# --- Database churn -------------------------------------
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
is(outcome($m, 'postgres', 'INSERT INTO ids SELECT \'restored_back\', snowflake_next(), jsid_next(), timeuuid_next()'), 'ok',
	'restored with the clock a minute behind, nothing refused');
is(above($m, 'restored_back', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n6b', 'n7'), 't', '... above the restored ids');
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
is(outcome($u, 'postgres', 'INSERT INTO ids SELECT \'upgraded_back\', snowflake_next(), jsid_next(), timeuuid_next()'), 'ok',
	'upgraded with the clock a minute behind, nothing refused');
is(above($u, 'upgraded_back', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n6b', 'n7'), 't', '... above the ids before');
is(outcome($u, 'postgres', 'SELECT timeuuid_next()'), 'ok',
	'upgraded with the clock a minute behind, timeuuid_next() continues above the floor');
set_offset($u, 0);
gen($u, 'upgraded', 1000);
is(above($u, 'upgraded', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n6b', 'n7'), 't', 'with the clock right, ids continue above');
$u->stop;

done_testing();
