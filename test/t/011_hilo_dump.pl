# pg_dump and pg_restore of a database with Hi/Lo keys (own keys, one
# renamed, moved to another schema and given to other owners first; an ORM
# form naming an application's sequence).  A key is what a serial is: the
# sequence OWNED BY the column whose default calls hilo_next('t').  pg_dump
# writes DEFAULT hilo_next('t'::regclass) inside CREATE TABLE and the owned
# sequence after it, with its value; nothing of id_gen runs at restore (no
# event trigger), so every way of dumping a table carries its key as it
# carries a serial's: a whole dump (custom and plain formats, psql -1 -v
# ON_ERROR_STOP=1, pg_restore -1), section by section, a partial one
# (-t, --exclude-table) and pg_upgrade; and every key goes on above the ids
# issued before the dump.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_dump');
$node->init;
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE own_key (id bigint PRIMARY KEY DEFAULT hilo_next('own_key'), v int);
	SELECT hilo_create_key('own_key');
	CREATE SCHEMA "App Schema";
	CREATE TABLE "App Schema"."Line Items" (id bigint PRIMARY KEY
		DEFAULT hilo_next('"App Schema"."Line Items"'), v int);
	SELECT hilo_create_key('"App Schema"."Line Items"', max_lo => 7);
	CREATE TABLE small (id integer PRIMARY KEY DEFAULT hilo_next('small'), v int);
	SELECT hilo_create_key('small', max_lo => 50);
	CREATE SEQUENCE app_seq INCREMENT 20;
	CREATE TABLE orm (id bigint PRIMARY KEY DEFAULT hilo_next('app_seq', 'pooled_lo'), v int);
	-- partitions and a LIKE copy share their parent's key (their defaults name it)
	CREATE TABLE parted (id bigint DEFAULT hilo_next('parted'), v int, PRIMARY KEY (id, v))
		PARTITION BY RANGE (v);
	CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (MINVALUE) TO (1000);
	CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (1000) TO (MAXVALUE);
	SELECT hilo_create_key('parted');
	CREATE TABLE own_key_copy (LIKE own_key INCLUDING DEFAULTS);
});

# A key follows its table as a serial's sequence does: RENAME, SET SCHEMA
# (the owned sequence moves along), ALTER TABLE OWNER TO and REASSIGN
# OWNED (the sequence's owner follows).
$node->safe_psql('postgres', q{
	CREATE ROLE alice;
	CREATE ROLE bob;
	CREATE ROLE carol;
	CREATE SCHEMA s1 AUTHORIZATION alice;
	CREATE SCHEMA s2 AUTHORIZATION alice;
	GRANT CREATE ON SCHEMA s2 TO bob, carol;
	SET ROLE alice;
	CREATE TABLE s1.moving (id bigint PRIMARY KEY DEFAULT hilo_next('s1.moving'), v int);
	SELECT hilo_create_key('s1.moving');
	INSERT INTO s1.moving (v) VALUES (0);
	RESET ROLE;
});
my $moving_last = 0;
for my $step ([ 'ALTER TABLE s1.moving RENAME TO moved', 's1.moved', 's1 alice' ],
	[ 'ALTER TABLE s1.moved SET SCHEMA s2', 's2.moved', 's2 alice' ],
	[ 'REASSIGN OWNED BY alice TO bob', 's2.moved', 's2 bob' ],
	[ 'ALTER TABLE s2.moved OWNER TO carol', 's2.moved', 's2 carol' ])
{
	my ($ddl, $name, $expect) = @$step;
	$node->safe_psql('postgres', $ddl);
	is($node->safe_psql('postgres', qq{
			SELECT c.relnamespace::regnamespace || ' ' || pg_get_userbyid(c.relowner)
			  FROM id_gen.hilo_keys k JOIN pg_class c ON c.oid = k.sequence
			 WHERE k.table_name = '$name'::regclass}),
		$expect, "$ddl: the key's sequence is in the table's schema, owned by its owner");
	my $id = $node->safe_psql('postgres', "INSERT INTO $name (v) VALUES (1) RETURNING id");
	cmp_ok($id, '>', $moving_last, "$ddl: the key keeps drawing");
	$moving_last = $id;
}

my @keyed = ('own_key', '"App Schema"."Line Items"', 'small', 's2.moved', 'orm', 'parted');
for my $i (1 .. 3)
{
	$node->safe_psql('postgres', q{
		INSERT INTO own_key (v) SELECT g FROM generate_series(1, 1500) g;
		INSERT INTO "App Schema"."Line Items" (v) SELECT g FROM generate_series(1, 10) g;
		INSERT INTO small (v) SELECT g FROM generate_series(1, 70) g;
		INSERT INTO s2.moved (v) SELECT g FROM generate_series(1, 10) g;
		INSERT INTO orm (v) SELECT g FROM generate_series(1, 30) g;
		INSERT INTO parted (v) SELECT g FROM generate_series(1, 1500) g;
		INSERT INTO own_key_copy (v) SELECT g FROM generate_series(1, 20) g;
	});
}
my %max = map { $_ => $node->safe_psql('postgres', "SELECT max(id) FROM $_") } @keyed;

# What a key is, as the catalog shows it (OIDs left out).
sub keys_of
{
	my ($node, $db, @tables) = @_;
	my $in = join(', ', map { "'$_'::regclass" } @tables);
	return $node->safe_psql($db, qq{
		SELECT k.table_name, k.column_name, k.strategy, k.max_lo, k.sequence, k.own_sequence, s.data_type
		  FROM id_gen.hilo_keys k JOIN pg_sequences s
		    ON format('%I.%I', s.schemaname, s.sequencename)::regclass = k.sequence
		 WHERE k.table_name IN ($in) ORDER BY k.table_name::text});
}
my $keys_before = keys_of($node, 'postgres', @keyed);
like($keys_before, qr/small\|id\|pooled\|50\|small_id_seq\|t\|integer/, 'an integer key is an integer sequence');

# A restored database: the keys of @tables as they were, and every key
# going on above the dumped ids.
sub restored_ok
{
	my ($db, $how, @tables) = @_;
	is(keys_of($node, $db, @tables), keys_of($node, 'postgres', @tables),
		"$how: the keys came back with their block size and sequence");
	for my $t (@tables)
	{
		my ($ret, $out, $err) = $node->psql($db,
			"INSERT INTO $t (v) SELECT g FROM generate_series(1, 200) g");
		is($ret, 0, "$how: $t takes 200 more rows") or diag($err);
		is($node->safe_psql($db, "SELECT count(*) FROM $t WHERE v > 0 AND id <= $max{$t}"),
			$node->safe_psql('postgres', "SELECT count(*) FROM $t WHERE v > 0"),
			"$how: $t continues above the dumped ids");
	}
	if ($node->safe_psql($db, "SELECT to_regclass('own_key_copy') IS NOT NULL") eq 't')
	{
		$node->safe_psql($db, 'INSERT INTO own_key_copy (v) SELECT g FROM generate_series(1, 100) g');
		is($node->safe_psql($db, q{
				SELECT count(*) FROM own_key_copy c JOIN own_key o USING (id)}), '0',
			"$how: the LIKE copy still shares own_key's key");
	}
}

my $dump = $node->basedir . '/hilo.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('postgres'), '-f', $dump ], 'pg_dump -Fc');
my $plain = $node->basedir . '/hilo.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('postgres'), '-f', $plain ], 'pg_dump, plain format');
my $text = slurp_file($plain);
like($text, qr/DEFAULT public\.hilo_next\('public\.own_key'::regclass\)/,
	'the default is dumped as written');
like($text, qr/OWNED BY public\.own_key\.id/, 'the dump gives the key\'s sequence to its column, as a serial\'s');

# 1. The whole database, custom format, into a fresh database whose OIDs differ.
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->safe_psql('restored', 'CREATE TABLE oid_shift (a int); DROP TABLE oid_shift;');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored'), $dump ],
	'pg_restore -Fc into a fresh database');
restored_ok('restored', 'pg_restore', @keyed);

# 2. Plain format through psql -1 -v ON_ERROR_STOP=1, and pg_restore -1.
$node->safe_psql('postgres', 'CREATE DATABASE plain');
$node->command_ok([ 'psql', '-X', '-q', '-1', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('plain'), '-f', $plain ],
	'the plain dump restored by psql -1 -v ON_ERROR_STOP=1');
restored_ok('plain', 'psql -1', @keyed);
$node->safe_psql('postgres', 'CREATE DATABASE single');
$node->command_ok([ 'pg_restore', '-1', '--exit-on-error', '-d', $node->connstr('single'), $dump ],
	'pg_restore -1');
restored_ok('single', 'pg_restore -1', @keyed);

# 3. Section by section, the data with --disable-triggers.
$node->safe_psql('postgres', 'CREATE DATABASE sections');
for my $section ('pre-data', 'data', 'post-data')
{
	$node->command_ok([ 'pg_restore', '--exit-on-error', "--section=$section",
			($section eq 'data' ? ('--disable-triggers') : ()), '-d', $node->connstr('sections'), $dump ],
		"pg_restore --section=$section");
}
restored_ok('sections', 'pg_restore by sections', @keyed);

# 4. One table (pg_dump -t) into a database that has id_gen, plain and
# custom: the table comes with its key's sequence, as a serial's.
my $one = $node->basedir . '/one.sql';
$node->command_ok([ 'pg_dump', '-t', 'own_key', '-t', 'small', '-d', $node->connstr('postgres'), '-f', $one ],
	'pg_dump -t, plain');
$node->safe_psql('postgres', 'CREATE DATABASE one');
$node->safe_psql('one', 'CREATE EXTENSION id_gen');
$node->command_ok([ 'psql', '-X', '-q', '-1', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('one'), '-f', $one ],
	'pg_dump -t | psql -1 -v ON_ERROR_STOP=1');
restored_ok('one', 'pg_dump -t | psql -1', 'own_key', 'small');
my $partial = $node->basedir . '/partial.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '-t', 'orm', '-t', 'app_seq', '-t', 's2.moved', '-d', $node->connstr('postgres'), '-f', $partial ],
	'pg_dump -Fc -t');
$node->safe_psql('postgres', 'CREATE DATABASE partial');
$node->safe_psql('partial', 'CREATE EXTENSION id_gen; CREATE SCHEMA s2;');
$node->command_ok([ 'pg_restore', '--exit-on-error', '--no-owner', '-d', $node->connstr('partial'), $partial ],
	'pg_restore of the partial dump');
restored_ok('partial', 'pg_dump -Fc -t', 'orm', 's2.moved');

# 5. A partial dump that leaves out one keyed table: its sequence goes with
# it, the other keys come back as they were.
my $excl = $node->basedir . '/excluded.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '--exclude-table', '"App Schema"."Line Items"', '-d', $node->connstr('postgres'), '-f', $excl ],
	'pg_dump --exclude-table of one keyed table');
$node->safe_psql('postgres', 'CREATE DATABASE excluded');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('excluded'), $excl ],
	'pg_restore of the dump without one keyed table: no error');
restored_ok('excluded', 'pg_dump --exclude-table', grep { $_ ne '"App Schema"."Line Items"' } @keyed);

# 6. pg_upgrade (15 -> 15): the sequences and defaults are carried as they are.
my %max_now = map { $_ => $node->safe_psql('postgres', "SELECT max(id) FROM $_") } @keyed;
$node->stop;
my $new = PostgreSQL::Test::Cluster->new('hilo_upgraded');
$new->init;
my $bindir = $node->config_data('--bindir');
my $sock = PostgreSQL::Test::Utils::tempdir_short;
my $cwd = PostgreSQL::Test::Utils::tempdir;
chdir $cwd;
command_ok(
	[
		'pg_upgrade', '--no-sync',
		'-d', $node->data_dir, '-D', $new->data_dir,
		'-b', $bindir, '-B', $bindir,
		'-p', $node->port, '-P', $new->port, '-s', $sock
	],
	'pg_upgrade 15 -> 15');
$new->start;
is(keys_of($new, 'postgres', @keyed), $keys_before, 'pg_upgrade: every key as it was');
for my $t (@keyed)
{
	cmp_ok($new->safe_psql('postgres', "INSERT INTO $t (v) VALUES (0) RETURNING id"), '>', $max_now{$t},
		"pg_upgrade: $t continues above its ids");
}
$new->stop;
done_testing();
