# With shared_preload_libraries = 'id_gen': the epoch is fixed at server
# start, worker id changes by reload keep ids increasing, decimal_id() refuses
# an unset launch id, several databases share the server's generator while
# each keeps its own persisted floor, and pg_dump carries the floor.
#
# A snowflake_epoch in postgresql.conf replaces the default while the library
# loads, so the server frees the default's parsed value: with free() on 15,
# with pfree() from 16, which needs memory from guc_malloc() (a malloc()ed
# value made a preloaded server exit at start with "pfree called with invalid
# pointer", and CREATE EXTENSION fail without preloading).  Both nodes below
# start with the epoch in postgresql.conf; the second one does not preload and
# also replaces the value by reload.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdGenCompat;

my $node = PostgreSQL::Test::Cluster->new('sf_preload');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'id_gen'\nid_gen.worker_id = 5\nid_gen.snowflake_epoch = '2020-01-01 00:00:00Z'\n");
$node->start;

$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

is($node->safe_psql('postgres', "SELECT epoch FROM snowflake_state()"), '2020-01-01 00:00:00+00',
	'the configured epoch is in force');
is($node->safe_psql('postgres',
	"SELECT worker_id = 5 AND abs(extract(epoch FROM ts - clock_timestamp())) < 2 FROM snowflake_decode(snowflake_next())"),
	't', 'ids decode with the configured epoch and worker id');
my ($ret, $out, $err) = $node->psql('postgres', "SET id_gen.snowflake_epoch = '2021-01-01 00:00:00Z'");
like($err, qr/cannot be changed without restarting the server/, 'preloaded, the epoch is fixed at server start');

# Changing the worker id by reload: ids keep increasing.
my $before = $node->safe_psql('postgres', 'SELECT snowflake_next()');
$node->append_conf('postgresql.conf', "id_gen.worker_id = 2\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('id_gen.worker_id') = '2'") or die 'reload not seen';
is($node->safe_psql('postgres', "SELECT worker_id = 2 AND id > $before FROM (SELECT snowflake_next() AS id) s, snowflake_decode(id)"),
	't', 'after a worker id change the ids carry the new id and still increase');

# decimal_id() needs a launch id (default -1: unset).
($ret, $out, $err) = $node->psql('postgres', 'SELECT decimal_id()', extra_params => ['-v', 'VERBOSITY=verbose']);
like($err, qr/55000: decimal_id\(\): id_gen.launch_id is not set/, 'unset launch id: ERROR 55000');
like($err, qr/HINT:  Set id_gen.launch_id/, 'with a hint');
$node->append_conf('postgresql.conf', "id_gen.launch_id = 12\n");
$node->reload;
$node->poll_query_until('postgres', "SELECT current_setting('id_gen.launch_id') = '12'") or die 'reload not seen';
is($node->safe_psql('postgres', 'SELECT launch_id FROM decimal_id_decode(decimal_id())'), '12', 'launch id in the id');

# Two databases share one generator (ids unique and increasing server-wide),
# each with its own persisted floor.
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', 'CREATE EXTENSION id_gen');
my $a = $node->safe_psql('postgres', 'SELECT snowflake_next()');
my $b = $node->safe_psql('other', 'SELECT snowflake_next()');
my $c = $node->safe_psql('postgres', 'SELECT snowflake_next()');
ok($a < $b && $b < $c, 'ids from two databases interleave in one increasing order');
is($node->safe_psql('other', 'SELECT last_value > 0 FROM id_gen.snowflake_floor'), 't', 'the other database persisted its own floor');

# pg_dump keeps the floor and generator sequences (config dump).
my $dump = $node->safe_psql('postgres', 'SELECT 1') && `pg_dump -d "@{[ $node->connstr('postgres') ]}" 2>&1`;
like($dump, qr/setval\('id_gen.snowflake_floor', \d+, true\)/, 'pg_dump saves the clock floor');

# The state function after all this.
is($node->safe_psql('postgres',
	'SELECT ids_issued >= 4 AND clock_floor > last_time AND time_exhausted_at = timestamptz \'2089-09-06 15:47:35.551+00\' FROM snowflake_state()'),
	't', 'snowflake_state(): counts, floor ahead of the last id, end of the time field for this epoch');

$node->stop;

# Not preloaded: the library loads in a backend, which applies the epoch from
# postgresql.conf; a reload then replaces it in every backend that loaded it.
my $conf = PostgreSQL::Test::Cluster->new('sf_conf');
$conf->init;
$conf->append_conf('postgresql.conf', "id_gen.snowflake_epoch = '2019-06-01 00:00:00Z'\n");
$conf->start;
($ret, $out, $err) = $conf->psql('postgres', 'CREATE EXTENSION id_gen');
is($ret, 0, 'not preloaded: CREATE EXTENSION works with an epoch in postgresql.conf');
is($err, '', 'without a complaint');
is($conf->safe_psql('postgres', "SELECT epoch FROM snowflake_state()"), '2019-06-01 00:00:00+00',
	'not preloaded: the configured epoch is in force');
my $bg = $conf->background_psql('postgres');
$bg->query_safe('SELECT snowflake_next()');
$conf->append_conf('postgresql.conf', "id_gen.snowflake_epoch = '2019-07-01 00:00:00Z'\n");
$conf->reload;
$conf->poll_query_until('postgres', "SELECT current_setting('id_gen.snowflake_epoch') = '2019-07-01 00:00:00Z'")
	or die 'reload not seen';
# The session that had loaded the library replaced its value on the reload.
is(query_line($bg, "SELECT current_setting('id_gen.snowflake_epoch')"), '2019-07-01 00:00:00Z',
	'a session with the library loaded takes the new value on reload');
is(query_line($bg, 'SELECT epoch FROM snowflake_state()'), '2019-06-01 00:00:00+00',
	'ids keep the epoch read when the generator state was created (until the next restart)');
$bg->quit;
is($conf->safe_psql('postgres', 'SELECT snowflake_next() > 0'), 't', 'the server still generates');
$conf->restart;
is($conf->safe_psql('postgres', "SELECT epoch FROM snowflake_state()"), '2019-07-01 00:00:00+00',
	'after a restart the new epoch is in force');
$conf->stop;
done_testing();
