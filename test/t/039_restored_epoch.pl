# Issue 26, finding 3: a database restored from a server with an earlier
# id_gen.snowflake_epoch.  The epoch belongs to the server; the restored
# database keeps the epoch its ids were counted from.  It may refuse
# snowflake/jsid itself (new ids would be smaller), with a hint to give it
# another worker id, but no other database of the server may be affected,
# now, after a restart, or after the restored database is dropped.
#
# The restored database converts its floor into the server's epoch
# (id_gen.snowflake_floor) at its first use; nothing of the old epoch is
# written into another database.
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
	'CREATE EXTENSION id_gen; CREATE TABLE t (sf bigint, tu timeuuid); '
	  . 'INSERT INTO t SELECT snowflake_next(), timeuuid_next() FROM generate_series(1, 100)');
my $dump = $old->basedir . '/legacy.dump';
command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $old->connstr('legacy') ], 'pg_dump of legacy (epoch 2010)');
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('epoch_new');
$new->init;
$new->append_conf('postgresql.conf', "id_gen.worker_id = 4\n");
$new->start;
$new->safe_psql('postgres', 'CREATE EXTENSION id_gen');
ok($new->safe_psql('postgres', 'SELECT snowflake_next() > 0'), 'the new server (epoch 2016) issues snowflake ids');
$new->safe_psql('postgres', 'CREATE DATABASE legacy');
command_ok([ 'pg_restore', '-d', $new->connstr('legacy'), $dump ], 'restored into the new server');
$new->psql('legacy', 'SELECT timeuuid_next()');
# The other database's floor advances (a step later) while the old epoch is known.
sleep 2;
$new->psql('postgres', 'SELECT timeuuid_next()');

{
	my ($ret, $out, $err) = $new->psql('postgres', 'SELECT snowflake_next(), jsid_next()');
	is($ret, 0, 'another database keeps issuing snowflake ids and jsids') or diag($err);
	($ret, $out, $err) = $new->psql('legacy', 'SELECT snowflake_next()');
	like($err, qr/worker.id/, 'the restored database refuses, with a hint naming another worker id');
	is($new->safe_psql('legacy', 'SELECT timeuuid_next() IS NOT NULL'), 't', 'its timeuuid_next() works');
	is($new->safe_psql('postgres', "SELECT count(*) FROM id_gen.clock_epoch WHERE last_value < extract(epoch FROM '2016-11-01'::timestamptz) * 1000"),
		'0', 'the other database keeps the server\'s epoch');
	$new->safe_psql('postgres', 'DROP DATABASE legacy');
	$new->restart;
	($ret, $out, $err) = $new->psql('postgres', 'SELECT snowflake_next(), jsid_next()');
	is($ret, 0, 'after DROP DATABASE and a restart nothing of the old epoch remains') or diag($err);
}

$new->stop;
done_testing();
