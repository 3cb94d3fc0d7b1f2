# The durable floors at their edges, each on a server of its own state:
#  1. A floor raised while the database is in use (setval after a restore,
#     or the docs' way back): ids continue above it, in running backends
#     and in new ones.
#  2. A floor at the end of snowflake's 41-bit time field: ERROR 2200H (or
#     an id), never a loop that statement_timeout cannot stop.
#  3. A reinstall rolled back after it advanced the floor: a long-lived
#     backend's later ids are durable, so after a crash with the clock
#     behind, no id goes below one issued before.
#  4. timeuuid_next() after 2^43 ms (the year 2248): its floor still
#     advances, and a crash with the clock behind repeats nothing.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('floor_edges');
$node->init;
$node->start;

sub fresh_db
{
	my ($db) = @_;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, 'CREATE EXTENSION id_gen');
}

# 1. A floor raised by setval while the database is in use.
fresh_db('raised');
my $s = $node->background_psql('raised');
$s->query_safe('CREATE TABLE orders (id bigint PRIMARY KEY)');
my $first = $s->query_safe('SELECT snowflake_next()');
$s->query_safe("INSERT INTO orders SELECT snowflake_min_id(now() + interval '1 hour') + g "
	  . 'FROM generate_series(0, 999) g');
my $floor = $s->query_safe("SELECT setval('id_gen.snowflake_floor', max(id)) FROM orders");
$s->query_safe('SELECT pg_sleep(1.2)');
my $below = $s->query_safe('SELECT count(*) FROM (SELECT snowflake_next() AS id '
	  . "FROM generate_series(1, 10)) i WHERE id <= $floor");
is($below, '0', 'a running backend continues above a floor raised by setval');
is($node->safe_psql('raised', "SELECT snowflake_next() > $floor"),
	't', 'a new backend continues above it too');
$s->quit;

# 2. The end of the time field: the floor clamps at the last word, and the
# stream ends with ERROR 2200H within statement_timeout.
fresh_db('ending');
my $off = $node->safe_psql('postgres',
	"SELECT round(extract(epoch FROM timestamptz '2086-07-08 15:47:35.551+00') * 1000 - 400 "
	  . '- extract(epoch FROM clock_timestamp()) * 1000)::bigint');
my ($ret, $out, $err) = $node->psql('ending',
	"SET statement_timeout = '5s'; SET id_gen.test_clock_offset_ms = $off; "
	  . "SET id_gen.test_monotonic_offset_ms = $off; SELECT snowflake_next()");
ok($ret == 0 || $err =~ /is exhausted/, 'near the end: an id or exhausted')
  or diag($err);
my $timed_out = 0;
($ret, $out, $err) = $node->psql('ending',
	"SET statement_timeout = '5s'; SELECT snowflake_next()",
	timeout => 30, timed_out => \$timed_out, on_error_stop => 0,
	extra_params => [ '-v', 'VERBOSITY=sqlstate' ]);
ok(!$timed_out && ($ret == 0 || $err =~ /2200H/),
	'a session at the real clock ends with an id or 2200H, never spins')
  or diag("timed out: $timed_out, $err");
if ($timed_out)
{
	# the spinning backend ignores cancel and terminate: only a crash stops it
	$node->stop('immediate');
	$node->start;
}
# the words are the server's: the exhausted snowflake word is kept to a new start
$node->restart;

# 3. A reinstall rolled back after it advanced the floor.
fresh_db('rolled');
$node->safe_psql('rolled', 'CREATE TABLE t (id bigint, phase int)');
my $app = $node->background_psql('rolled');
$app->query_safe('SELECT jsid_next()');
my $dba = $node->background_psql('rolled');
$dba->query_safe('BEGIN');
$dba->query_safe('DROP EXTENSION id_gen CASCADE');
$dba->query_safe('CREATE EXTENSION id_gen');
$dba->query_safe('SELECT pg_sleep(1.1)');
$dba->query_safe('SELECT jsid_next()');
$dba->query_safe('ROLLBACK');
$dba->quit;
$app->query_safe("DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN "
	  . "WHILE clock_timestamp() < t0 + interval '0.8 s' LOOP "
	  . "INSERT INTO t SELECT jsid_next(), 2; END LOOP; END \$\$");
$app->quit;
$node->stop('immediate');
$node->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -5000\n");
$node->start;
$node->safe_psql('rolled', 'INSERT INTO t SELECT jsid_next(), 3 FROM generate_series(1, 2000)');
is($node->safe_psql('rolled',
		'SELECT count(*) FROM t WHERE phase = 3 AND id <= (SELECT max(id) FROM t WHERE phase = 2)'),
	'0', 'after a rolled-back reinstall, a crash and the clock back: no id below an earlier one');

# 4. timeuuid_next() after 2248: the floor advances, a crash repeats nothing.
fresh_db('late');
$node->safe_psql('late', 'CREATE TABLE t (u uuid, phase int)');
$off = $node->safe_psql('postgres',
	"SELECT round(extract(epoch FROM timestamptz '2250-01-01 00:00:00+00') * 1000 "
	  . '- extract(epoch FROM clock_timestamp()) * 1000)::bigint');
# the offset of the previous section is still in the file: the last line wins
$node->safe_psql('late',
	"SET id_gen.test_clock_offset_ms = $off; SET id_gen.test_monotonic_offset_ms = $off; "
	  . 'INSERT INTO t SELECT timeuuid_next(), 1 FROM generate_series(1, 1000)');
isnt($node->safe_psql('late', 'SELECT last_value FROM id_gen.timeuuid_floor'),
	'0', 'the timeuuid floor advances after 2248');
$node->stop('immediate');
$node->start;
my $back = $off - 10000;
$node->safe_psql('late',
	"SET id_gen.test_clock_offset_ms = $back; SET id_gen.test_monotonic_offset_ms = $back; "
	  . 'INSERT INTO t SELECT timeuuid_next(), 2 FROM generate_series(1, 1000)');
is($node->safe_psql('late',
		'SELECT count(*) FROM t WHERE phase = 2 AND u <= (SELECT u FROM t WHERE phase = 1 ORDER BY u DESC LIMIT 1)'),
	'0', 'after a crash with the clock behind, timeuuids continue above the earlier');

$node->stop;
done_testing();
