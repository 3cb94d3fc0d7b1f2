# decimal_id() through what a DBA does to a server: every id any database
# of the test ever issued goes into one hash, and no id may come twice.
#
# A database claims its generator id (at CREATE EXTENSION: its setting in
# pg_db_role_setting and id_gen.decimal_claim) and keeps a persistent
# counter reserved ahead in its sequence id_gen.decimal_counter, so the
# state travels with the database's own WAL-logged objects: a restart burns
# no generator id and resumes above the reserved end, a crash repeats
# nothing, a standby (even with max_replication_slots = 0) replays it and
# continues after promotion, pg_upgrade keeps the claims and the sequences,
# and a copy (CREATE DATABASE ... TEMPLATE, pg_dump and pg_restore into
# another database) refuses until a superuser claims a generator id for it,
# then continues the counter.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my %seen;

# n ids from decimal_id() in database db, stored in its table ids (a
# primary key) and in %seen; returns how many of them were seen before.
sub take
{
	my ($node, $db, $n) = @_;
	my $list = $node->safe_psql($db,
		"WITH t AS (INSERT INTO ids SELECT decimal_id() FROM generate_series(1, $n) RETURNING id) "
		  . "SELECT string_agg(id::text, ',') FROM t");
	my $repeats = 0;
	for my $id (split /,/, $list)
	{
		$repeats++ if $seen{$id}++;
	}
	return $repeats;
}

sub state
{
	my ($node, $db, $col) = @_;
	return $node->safe_psql($db, "SELECT $col FROM decimal_id_state()");
}

# take(), after the claim a copy must make first (its refusal names it).
sub take_claimed
{
	my ($node, $db, $n) = @_;
	my ($ret, $out, $err) = $node->psql($db, 'SELECT decimal_id()');
	like($err, qr/SELECT id_gen\.decimal_id_claim\(\)/, "$db refuses before its claim, and the hint names it");
	$node->safe_psql($db, 'SELECT id_gen.decimal_id_claim()');
	return take($node, $db, $n);
}

sub first_counter
{
	my ($node, $db) = @_;
	return $node->safe_psql($db,
		"WITH t AS (INSERT INTO ids SELECT decimal_id() RETURNING id) "
		  . "SELECT (decimal_id_decode(id)).counter FROM t");
}

my $node = PostgreSQL::Test::Cluster->new('dec_dba');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', "id_gen.launch_id = 7\n");
$node->start;
for my $db ('a', 'b')
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, 'CREATE EXTENSION id_gen; CREATE TABLE ids (id bigint PRIMARY KEY)');
	is(take($node, $db, 1000), 0, "database $db issues 1000 ids");
}
my $ga = state($node, 'a', 'generator_id');
my $gb = state($node, 'b', 'generator_id');
is(state($node, 'a', 'refusal'), '', 'a database claims its generator id at CREATE EXTENSION');
isnt($ga, $gb, 'two databases have different generator ids');

# Restart: the same generator id, the counter resumes above the reserved end.
my $reserved = state($node, 'a', 'reserved_to');
$node->restart;
is(first_counter($node, 'a'), $reserved + 1, 'after a restart the counter resumes above the reserved end');
is(state($node, 'a', 'generator_id'), $ga, 'a restart burns no generator id');
is(take($node, 'a', 1000), 0, 'and repeats no id');

# Crash: nothing issued before it comes again.
take($node, 'a', 5000);
$node->stop('immediate');
$node->start;
is(take($node, 'a', 1000), 0, 'after a crash no id repeats');
is(state($node, 'a', 'generator_id'), $ga, 'a crash burns no generator id');

# A copy of the database: no claim of its own until it makes one.
$node->safe_psql('postgres', 'CREATE DATABASE c TEMPLATE a');
is(take_claimed($node, 'c', 1000), 0, 'a copy made with CREATE DATABASE ... TEMPLATE repeats no id');
isnt(state($node, 'c', 'generator_id'), $ga, 'the copy has a generator id of its own');

# pg_dump and pg_restore into another database of the same server, and into
# a fresh server: the restored table holds every id of a (primary key).
my $dump = $node->basedir . '/a.dump';
command_ok([ 'pg_dump', '-Fc', '-f', $dump, '-d', $node->connstr('a') ], 'pg_dump of a');
$node->safe_psql('postgres', 'CREATE DATABASE d TEMPLATE template0');
command_ok([ 'pg_restore', '-d', $node->connstr('d'), $dump ], 'restored into database d');
my $d_ids = $node->safe_psql('d', 'SELECT count(*) FROM ids');
is(take_claimed($node, 'd', 1000), 0, 'the restored database repeats no id of any database');
isnt(state($node, 'd', 'generator_id'), $ga, 'and has a generator id of its own');

my $fresh = PostgreSQL::Test::Cluster->new('dec_fresh');
$fresh->init;
$fresh->append_conf('postgresql.conf', "id_gen.launch_id = 7\n");
$fresh->start;
$fresh->safe_psql('postgres', 'CREATE DATABASE a2');
command_ok([ 'pg_restore', '-d', $fresh->connstr('a2'), $dump ], 'restored into a fresh server');
$fresh->safe_psql('a2', 'SELECT id_gen.decimal_id_claim()');
my ($ret, $out, $err) = $fresh->psql('a2',
	'INSERT INTO ids SELECT decimal_id() FROM generate_series(1, 1000)');
is($ret, 0, 'the restored database of a fresh server repeats none of the dumped ids') or diag($err);
$fresh->stop;

# A standby with max_replication_slots = 0 starts, replays, and after
# promotion continues without repeats.
$node->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('dec_standby');
$standby->init_from_backup($node, 'bk', has_streaming => 1);
$standby->append_conf('postgresql.conf', "max_replication_slots = 0\n");
ok($standby->start(fail_ok => 1), 'a standby with max_replication_slots = 0 starts');
take($node, 'a', 3000);
take($node, 'b', 3000);
$node->wait_for_catchup($standby);
$node->stop;
$standby->promote;
is(take($standby, 'a', 1000) + take($standby, 'b', 1000), 0,
	'the promoted standby repeats no id');
is(state($standby, 'a', 'generator_id'), $ga, 'and keeps the generator ids');

# pg_upgrade (15 -> 15) of the promoted standby: database OIDs, the
# sequences and database settings are carried, ids continue in both
# databases.  b claims another generator id first (taken at its next
# connection, with the counter continuing).
$standby->safe_psql('b', 'SELECT id_gen.decimal_id_claim(generator_id => 99990)');
$standby->stop;
my $new = PostgreSQL::Test::Cluster->new('dec_upgraded');
$new->init;
$new->append_conf('postgresql.conf', "id_gen.launch_id = 7\n");
my $bindir = $standby->config_data('--bindir');
my $sock = PostgreSQL::Test::Utils::tempdir_short;
my $cwd = PostgreSQL::Test::Utils::tempdir;
chdir $cwd;
command_ok(
	[
		'pg_upgrade', '--no-sync',
		'-d', $standby->data_dir, '-D', $new->data_dir,
		'-b', $bindir, '-B', $bindir,
		'-p', $standby->port, '-P', $new->port, '-s', $sock
	],
	'pg_upgrade 15 -> 15');
$new->start;
is(take($new, 'a', 1000) + take($new, 'b', 1000), 0, 'after pg_upgrade neither database repeats an id');
is($new->safe_psql('a', 'SELECT generator_id FROM decimal_id_state()'), $ga,
	'pg_upgrade keeps the generator id claimed');
is($new->safe_psql('b', 'SELECT generator_id, refusal IS NULL FROM decimal_id_state()'),
		'99990|t', 'and the one claimed before it');
is($new->safe_psql('a', 'SELECT count(*) = count(DISTINCT id) FROM ids'), 't', 'a holds distinct ids');
$new->stop;

done_testing();
