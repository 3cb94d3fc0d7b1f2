# Time never stops a generator.  Three scenarios on one server:
#  1. A forward step of the wall clock while the server runs, which the
#     monotonic clock does not confirm: not followed (ids keep to real time),
#     and id_gen.headroom says so.
#  2. Ids issued three years ahead of the clock (a server started with its
#     clock ahead), then a restart with the clock right and a crash: every
#     database goes on issuing, above every id it issued, with no refusal,
#     and its id_gen.headroom says how far ahead (the words are the server's:
#     a database whose ids were never ahead shows the lead too), also after
#     the first database is dropped.
#  3. Worker id 5, reloaded to 6 in the floor's millisecond, a crash, the
#     clock set back 6 s: neither worker id repeats an id.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('glitch');
$node->init;
$node->append_conf('postgresql.conf', "id_gen.worker_id = 5\n");
$node->start;
for my $db ('first', 'other')
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, 'CREATE EXTENSION id_gen; '
		  . 'CREATE TABLE sf (id bigint UNIQUE); CREATE TABLE js (id bigint UNIQUE); CREATE TABLE tu (id uuid UNIQUE)');
}

sub set_conf
{
	my ($line, $restart) = @_;
	$node->append_conf('postgresql.conf', "$line\n");
	if ($restart) { $node->restart; }
	else { $node->reload; sleep 1; }
}

sub take
{
	my ($db, $n) = @_;
	my ($ret, $out, $err) = $node->psql($db,
		"INSERT INTO sf SELECT snowflake_next() FROM generate_series(1, $n); "
		  . "INSERT INTO js SELECT jsid_next() FROM generate_series(1, $n); "
		  . "INSERT INTO tu SELECT uuidv7() FROM generate_series(1, $n)");
	return $ret == 0 ? 'ok' : $err;
}

# The largest id of each table and how many ids it holds: every id taken
# after a mark must lie above every id taken before it.
sub mark
{
	my ($db) = @_;
	return $node->safe_psql($db,
		"SELECT format('%s %s %s %s %s %s', (SELECT max(id) FROM sf), (SELECT count(*) FROM sf), "
		  . "(SELECT max(id) FROM js), (SELECT count(*) FROM js), (SELECT id FROM tu ORDER BY id DESC LIMIT 1), (SELECT count(*) FROM tu))");
}

sub above
{
	my ($db, $m) = @_;
	my ($sf, $nsf, $js, $njs, $tu, $ntu) = split / /, $m;
	return $node->safe_psql($db,
		"SELECT (SELECT count(*) FROM sf WHERE id <= $sf) = $nsf AND (SELECT count(*) FROM sf) > $nsf "
		  . "AND (SELECT count(*) FROM js WHERE id <= $js) = $njs AND (SELECT count(*) FROM js) > $njs "
		  . "AND (SELECT count(*) FROM tu WHERE id <= '$tu') = $ntu AND (SELECT count(*) FROM tu) > $ntu");
}

# 1. A forward step not confirmed by the monotonic clock.
is(take('first', 10), 'ok', 'ids issued at the clock');
set_conf('id_gen.test_clock_offset_ms = 94608000000', 0);
is(take('first', 10), 'ok', 'after a forward step of three years, ids are issued');
is($node->safe_psql('first',
	"SELECT bool_and(ts < now() + interval '1 minute') FROM sf, snowflake_decode(id)"),
	't', 'the step is not followed: snowflake ids keep to real time');
is($node->safe_psql('first',
	"SELECT bool_and(timeuuid_timestamp(id::timeuuid) < now() + interval '1 minute') FROM tu"),
	't', '... and timeuuids');
like($node->safe_psql('first',
	"SELECT status || ': ' || reason FROM id_gen.headroom WHERE generator = 'clock' AND object = 'snowflake'"),
	qr/^warning: .*wall clock is \d+ ms ahead of the time the generators follow/, 'id_gen.headroom says the step was not followed');

# 2. Started with the clock three years ahead (nothing to confirm at a start):
# ids three years ahead, in one database only.
set_conf('id_gen.test_clock_offset_ms = 94608000000', 1);
is(take('first', 100), 'ok', 'ids three years ahead in one database');
my $m_first = mark('first');
is(take('other', 100), 'ok', 'and in another, after it (the words are the server\'s)');
my $m_other = mark('other');
set_conf('id_gen.test_clock_offset_ms = 0', 1);
$node->stop('immediate');
$node->start;
for my $db ('first', 'other')
{
	is(take($db, 100), 'ok', "$db: after a restart with the clock right and a crash, nothing refused");
	is(above($db, $db eq 'first' ? $m_first : $m_other), 't', "$db: above every id it issued");
	like($node->safe_psql($db,
		"SELECT string_agg(status, ',') FROM id_gen.headroom WHERE generator = 'clock'"),
		qr/^critical,critical,critical$/, "$db: id_gen.headroom says the ids run ahead");
}
like($node->safe_psql('other',
	"SELECT reason FROM id_gen.headroom WHERE generator = 'clock' AND object = 'snowflake'"),
	qr/ahead of the clock/, 'the reason says how far ahead');
$node->safe_psql('postgres', 'DROP DATABASE first');
$node->restart;
$m_other = mark('other');
is(take('other', 100), 'ok', 'after the first database is dropped and a restart, the other goes on');
is(above('other', $m_other), 't', '... above every id it issued');

# 3. Worker id 5, then 6 within the floor's millisecond, a crash, the clock 6 s back.
my $n2 = PostgreSQL::Test::Cluster->new('reload');
$n2->init;
$n2->append_conf('postgresql.conf', "id_gen.worker_id = 5\n");
$n2->start;
$n2->safe_psql('postgres', 'CREATE EXTENSION id_gen; CREATE TABLE sf (id bigint UNIQUE, w int)');
$n2->safe_psql('postgres', 'INSERT INTO sf SELECT snowflake_next(), 5 FROM generate_series(1, 5000)');
$n2->append_conf('postgresql.conf', "id_gen.worker_id = 6\n");
$n2->reload;
$n2->poll_query_until('postgres', "SELECT current_setting('id_gen.worker_id') = '6'") or die 'reload not seen';
$n2->safe_psql('postgres', 'INSERT INTO sf SELECT snowflake_next(), 6 FROM generate_series(1, 5000)');
my $max_before = $n2->safe_psql('postgres', 'SELECT max(id) FROM sf');
$n2->stop('immediate');
$n2->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -6000\n");
$n2->start;
my ($ret, $out, $err) = $n2->psql('postgres', 'INSERT INTO sf SELECT snowflake_next(), 6 FROM generate_series(1, 5000)');
is($ret, 0, 'after the crash, worker id 6 issues with the clock 6 s back') or diag($err);
$n2->append_conf('postgresql.conf', "id_gen.worker_id = 5\n");
$n2->reload;
$n2->poll_query_until('postgres', "SELECT current_setting('id_gen.worker_id') = '5'") or die 'reload not seen';
($ret, $out, $err) = $n2->psql('postgres', 'INSERT INTO sf SELECT snowflake_next(), 5 FROM generate_series(1, 5000)');
is($ret, 0, 'and worker id 5, set back by a reload') or diag($err);
is($n2->safe_psql('postgres', "SELECT count(*) FILTER (WHERE id <= $max_before) FROM sf"), '10000',
	'no id repeated: every id after the crash lies above every id before it');
$n2->stop;

$node->stop;
done_testing();
