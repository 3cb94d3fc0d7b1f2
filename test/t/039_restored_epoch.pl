# A database restored from a server with an earlier id_gen.snowflake_epoch:
# its snowflake ids, counted from 2010, are larger than the new server's
# (counted from 2016) for the same time, so its floor, a snowflake id, lies
# ahead of the new server's clock.  Nothing is refused: its new ids continue
# above the rows it holds (running ahead of the clock, as id_gen.headroom
# says), also after DROP EXTENSION id_gen CASCADE; CREATE EXTENSION id_gen
# while the server runs (the floor is carried over; CASCADE drops its
# timeuuid column), and after a restart.
# Another database of the server keeps issuing, above its own ids.
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $old = PostgreSQL::Test::Cluster->new('epoch_old');
$old->init;
$old->append_conf('postgresql.conf',
	"id_gen.worker_id = 3\nid_gen.snowflake_epoch = '2010-01-01 00:00:00Z'\n");
$old->start;
$old->safe_psql('postgres', 'CREATE DATABASE legacy');
$old->safe_psql('legacy',
	'CREATE EXTENSION id_gen; CREATE TABLE t (sf bigint UNIQUE, js bigint UNIQUE, tu timeuuid UNIQUE); '
	  . 'INSERT INTO t SELECT snowflake_next(), jsid_next(), timeuuid_next() FROM generate_series(1, 100)');
my $dump = $old->basedir . '/legacy.dump';
command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $old->connstr('legacy') ], 'pg_dump of legacy (epoch 2010)');
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('epoch_new');
$new->init;
$new->append_conf('postgresql.conf', "id_gen.worker_id = 4\n");
$new->start;
$new->safe_psql('postgres', 'CREATE EXTENSION id_gen; CREATE TABLE t (sf bigint UNIQUE)');
$new->safe_psql('postgres', 'INSERT INTO t SELECT snowflake_next() FROM generate_series(1, 10)');
$new->safe_psql('postgres', 'CREATE DATABASE legacy');
command_ok([ 'pg_restore', '-d', $new->connstr('legacy'), $dump ], 'restored into the new server');

$new->safe_psql('legacy', 'ALTER TABLE t ADD COLUMN n int NOT NULL DEFAULT 0');
sub take
{
	my ($n) = @_;
	return $new->psql('legacy',
		"INSERT INTO t (sf, js, n) SELECT snowflake_next(), jsid_next(), $n FROM generate_series(1, 100)");
}

# Every id of phase n above every id of the phases before it.
sub above
{
	my ($n) = @_;
	return $new->safe_psql('legacy',
		"SELECT (SELECT min(sf) FROM t WHERE n = $n) > (SELECT max(sf) FROM t WHERE n < $n) "
		  . "AND (SELECT min(js) FROM t WHERE n = $n) > (SELECT max(js) FROM t WHERE n < $n) "
		  . "AND (SELECT count(*) FROM t WHERE n = $n) = 100");
}

my ($ret, $out, $err) = take(1);
is($ret, 0, 'the restored database issues, nothing refused') or diag($err);
is(above(1), 't', 'its new snowflake ids and jsids lie above the rows it holds');
like($new->safe_psql('legacy',
	"SELECT string_agg(status, ',' ORDER BY object) FROM id_gen.headroom WHERE generator = 'clock' AND object IN ('snowflake', 'jsid')"),
	qr/^critical,critical$/, 'id_gen.headroom says the ids run ahead of the clock');

# Reinstall while the server runs: the floors are carried over.
$new->safe_psql('legacy', 'SET client_min_messages = warning; DROP EXTENSION id_gen CASCADE; CREATE EXTENSION id_gen');
is($new->safe_psql('legacy',
	'SELECT (SELECT last_value FROM id_gen.snowflake_floor) >= (SELECT max(sf) FROM t) '
	  . 'AND (SELECT last_value FROM id_gen.jsid_floor) >= (SELECT max(js) FROM t)'),
	't', 'after DROP EXTENSION CASCADE and CREATE EXTENSION, the new floors cover every id');
($ret, $out, $err) = take(2);
is($ret, 0, 'the reinstalled extension issues') or diag($err);
is(above(2), 't', '... above every row');

# And across a restart (the floors are durable).
$new->restart;
($ret, $out, $err) = take(3);
is($ret, 0, 'after a restart the database issues') or diag($err);
is(above(3), 't', '... above every row');
is($new->safe_psql('postgres',
	'INSERT INTO t SELECT snowflake_next() FROM generate_series(1, 10); SELECT count(DISTINCT sf) FROM t'),
	'20', 'the other database keeps issuing, no id repeated');

$new->stop;
done_testing();
