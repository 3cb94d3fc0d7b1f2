# pg_dump and pg_restore of a database with Hi/Lo keys (own, bound to an
# application's sequence, serving an ORM's hi table), one of them renamed,
# moved to another schema and given to other owners first.  A key is its
# table's sequence (OWNED BY the column, or the application's sequence a
# bound key names) and a formula written in the column's default, so every
# way of dumping a table carries its key as it carries a serial's: a whole
# dump (custom and plain formats, -1), a partial one (--table,
# --exclude-table, issue 25 finding 1), one restored section by section
# with --disable-triggers, and pg_upgrade.  Each restore runs the
# extension's event trigger on tables that are still empty: it must make no
# second key and no key that meets the restored rows, and every key goes on
# above the ids issued before the dump.
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
	CREATE SCHEMA "App Schema";
	CREATE TABLE "App Schema"."Line Items" (id bigint PRIMARY KEY
		DEFAULT hilo_next('"App Schema"."Line Items"'), v int);
	CREATE SEQUENCE bound_seq INCREMENT 20;
	CREATE TABLE bound (id bigint PRIMARY KEY DEFAULT hilo_next('bound'), v int);
	SELECT hilo_bind('bound', 'bound_seq', 'pooled_lo');
	SELECT hilo_set_max_lo('"App Schema"."Line Items"', 7);
	-- an ORM's hi table (Hibernate's hibernate_unique_key), served by a trigger
	CREATE TABLE orm_hi (next_hi integer);
	INSERT INTO orm_hi VALUES (5);
	CREATE TABLE orm (id bigint PRIMARY KEY DEFAULT hilo_next('orm'), v int);
	SELECT hilo_bind_table('orm', 'orm_hi', 'next_hi', 10);
	-- partitions and a LIKE copy share their parent's key (their defaults name it)
	CREATE TABLE parted (id bigint DEFAULT hilo_next('parted'), v int, PRIMARY KEY (id, v))
		PARTITION BY RANGE (v);
	CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (MINVALUE) TO (1000);
	CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (1000) TO (MAXVALUE);
	CREATE TABLE own_key_copy (LIKE own_key INCLUDING DEFAULTS);
	CREATE TABLE gone (id bigint DEFAULT hilo_next('gone'));
	INSERT INTO gone DEFAULT VALUES;
	DROP TABLE gone;
	-- A table whose short-form default never became a key (its DDL ran
	-- with event triggers off), holding explicit ids: a restore makes its
	-- key on the empty table, before its rows come.
	SET session_replication_role = replica;
	CREATE TABLE unkeyed (id bigint PRIMARY KEY DEFAULT hilo_next('unkeyed'), v int);
	RESET session_replication_role;
	INSERT INTO unkeyed SELECT g, 0 FROM generate_series(1, 50) g;
});

# A key follows its table as a serial's sequence does: RENAME (the default
# names the sequence by OID), SET SCHEMA (the owned sequence moves along),
# ALTER TABLE OWNER TO and REASSIGN OWNED (the sequence's owner follows).
$node->safe_psql('postgres', q{
	CREATE ROLE alice;
	CREATE ROLE bob;
	CREATE ROLE carol;
	CREATE SCHEMA s1 AUTHORIZATION alice;
	CREATE SCHEMA s2 AUTHORIZATION alice;
	GRANT CREATE ON SCHEMA s2 TO bob, carol;
	SET ROLE alice;
	CREATE TABLE s1.moving (id bigint PRIMARY KEY DEFAULT hilo_next('s1.moving'), v int);
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
is($node->safe_psql('postgres', "SELECT count(*) FROM id_gen.hilo_keys WHERE table_name = 's2.moved'::regclass"),
	'1', 'one key, as before');

my @keyed = ('own_key', '"App Schema"."Line Items"', 'bound', 's2.moved', 'orm', 'parted');
for my $i (1 .. 3)
{
	$node->safe_psql('postgres', q{
		INSERT INTO own_key (v) SELECT g FROM generate_series(1, 1500) g;
		INSERT INTO "App Schema"."Line Items" (v) SELECT g FROM generate_series(1, 10) g;
		INSERT INTO bound (v) SELECT g FROM generate_series(1, 30) g;
		INSERT INTO orm (v) SELECT g FROM generate_series(1, 25) g;
		INSERT INTO parted (v) SELECT g FROM generate_series(1, 1500) g;
		INSERT INTO own_key_copy (v) SELECT g FROM generate_series(1, 20) g;
	});
}
my %max = map { $_ => $node->safe_psql('postgres', "SELECT max(id) FROM $_") } @keyed;

# What a key is, as the catalog shows it (OIDs left out), and every
# sequence that is not the extension's.
sub keys_of
{
	my ($db, @tables) = @_;
	my $in = join(', ', map { "'$_'::regclass" } @tables);
	return $node->safe_psql($db, qq{
		SELECT table_name, column_name, strategy, max_lo, sequence, own_sequence, adaptive, hi_table
		  FROM id_gen.hilo_keys WHERE table_name IN ($in) ORDER BY table_name::text});
}
my $sequences = q{
	SELECT string_agg(c.oid::regclass::text, ',' ORDER BY c.oid::regclass::text) FROM pg_class c
	 WHERE c.relkind = 'S' AND c.relname NOT LIKE 'unkeyed%' AND NOT EXISTS (
	       SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')};
my $keys_before = keys_of('postgres', @keyed);
my $seqs_before = $node->safe_psql('postgres', $sequences);
is($seqs_before, '"App Schema"."Line Items_id_seq",bound_id_seq,bound_seq,orm_id_seq,own_key_id_seq,parted_id_seq,s2.moving_id_seq',
	'own keys draw from sequences named as a serial\'s, the bound key from the application\'s'
	  . ' (its column\'s own sequence stays, unused)');

# A restored database: the keys of @tables as they were, no other sequence
# (but $also_seq), and every key going on above the dumped ids.
my $also_seq = '';
sub restored_ok
{
	my ($db, $how, @tables) = @_;
	is(keys_of($db, @tables), keys_of('postgres', @tables),
		"$how: the keys came back with their strategy, block size and sequence");
	my $in = join(', ', map { "'$_'::regclass" } @tables);
	my $seqs = $node->safe_psql('postgres', qq{
		SELECT string_agg(c.oid::regclass::text, ',' ORDER BY c.oid::regclass::text) FROM pg_class c
		 WHERE c.relkind = 'S' AND (c.relname = 'bound_seq' OR c.oid::regclass::text = '$also_seq'
		       OR EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
		                     AND d.refclassid = 'pg_class'::regclass AND d.deptype = 'a'
		                     AND d.refobjid IN ($in)))});
	is($node->safe_psql($db, $sequences), $seqs, "$how: no second key was made");
	for my $t (@tables)
	{
		my ($ret, $out, $err) = $node->psql($db,
			"INSERT INTO $t (v) SELECT g FROM generate_series(1, 2000) g");
		is($ret, 0, "$how: $t takes 2000 more rows") or diag($err);
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
	if (grep { $_ eq 'orm' } @tables)
	{
		# Legacy, max_lo 10: hi h holds h*11 .. h*11+10; the ORM's next reader
		# uses the hi parked in the row, which no draw gives.
		is($node->safe_psql($db, q{
				SELECT count(*) FROM orm WHERE id / 11 = (SELECT next_hi FROM orm_hi)}), '0',
			"$how: the ORM key's draws leave the hi parked in the restored row to the ORM");
		is($node->safe_psql($db, q{
				SELECT tgenabled FROM pg_trigger WHERE tgrelid = 'orm_hi'::regclass AND NOT tgisinternal}), 'A',
			"$how: the hi table's trigger is back, enabled always");
	}
}

# A table whose default stayed in the short form (its DDL ran with event
# triggers off) has no key, so the dump carries none: the restore's CREATE
# TABLE makes one on the still empty table, from the bottom, and the rows
# come after it, as a serial restored without its setval would start.  The
# promise is narrowed to what a sequence gives (docs/hilo.md, "Dump and
# restore"): the owner's hilo_set_floor after such a restore, as setval
# after a bulk load, puts the key above the rows.
sub unkeyed_ok
{
	my ($db, $how) = @_;
	is($node->safe_psql($db, q{
			SELECT count(*) FILTER (WHERE id <= 50) > 0
			  FROM (SELECT hilo_next('unkeyed') AS id FROM generate_series(1, 100)) d}),
		't', "$how: unkeyed's key, made by the restore on the empty table, starts below its restored rows");
	$node->safe_psql($db, "SELECT hilo_set_floor('unkeyed')");
	is($node->safe_psql($db, q{
			INSERT INTO unkeyed (v) SELECT 1 FROM generate_series(1, 100);
			SELECT min(id) > 50 FROM unkeyed WHERE v = 1}),
		't', "$how: after hilo_set_floor, unkeyed's key draws above its restored rows");
}

my $dump = $node->basedir . '/hilo.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('postgres'), '-f', $dump ],
	'pg_dump');
my $plain = $node->basedir . '/hilo.sql';
$node->command_ok([ 'pg_dump', '-d', $node->connstr('postgres'), '-f', $plain ],
	'pg_dump, plain format');
like(slurp_file($plain), qr/OWNED BY public\.own_key\.id/,
	'the dump gives an own key\'s sequence to its column, as a serial\'s');

# 1. The whole database, custom format, into a fresh database whose OIDs differ.
$node->safe_psql('postgres', 'CREATE DATABASE restored');
$node->safe_psql('restored', 'CREATE TABLE oid_shift (a int); DROP TABLE oid_shift;');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored'), $dump ],
	'pg_restore into a fresh database');
isnt($node->safe_psql('restored', "SELECT 'own_key'::regclass::oid"),
	$node->safe_psql('postgres', "SELECT 'own_key'::regclass::oid"),
	'restored tables have new OIDs');
restored_ok('restored', 'pg_restore', @keyed);
unkeyed_ok('restored', 'pg_restore');
is($node->safe_psql('restored', q{
		INSERT INTO own_key (v) SELECT g FROM generate_series(1, 3000) g;
		SELECT count(*) = count(DISTINCT id) FROM own_key}),
	't', 'restored key issues no duplicates');

# 2. Plain format through psql, and a single transaction (-1).
$node->safe_psql('postgres', 'CREATE DATABASE plain');
$node->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('plain'), '-f', $plain ],
	'the plain dump restored by psql');
restored_ok('plain', 'plain restore', @keyed);
unkeyed_ok('plain', 'plain restore');
$node->safe_psql('postgres', 'CREATE DATABASE single');
$node->command_ok([ 'pg_restore', '-1', '--exit-on-error', '-d', $node->connstr('single'), $dump ],
	'pg_restore -1');
restored_ok('single', 'pg_restore -1', @keyed);
unkeyed_ok('single', 'pg_restore -1');

# 3. Section by section, the data with --disable-triggers.
$node->safe_psql('postgres', 'CREATE DATABASE sections');
$node->command_ok([ 'pg_restore', '--exit-on-error', '--section=pre-data', '-d', $node->connstr('sections'), $dump ],
	'pg_restore --section=pre-data');
$node->command_ok([ 'pg_restore', '--exit-on-error', '--section=data', '--disable-triggers',
		'-d', $node->connstr('sections'), $dump ],
	'pg_restore --section=data --disable-triggers');
$node->command_ok([ 'pg_restore', '--exit-on-error', '--section=post-data', '-d', $node->connstr('sections'), $dump ],
	'pg_restore --section=post-data');
restored_ok('sections', 'pg_restore by sections', @keyed);
unkeyed_ok('sections', 'pg_restore by sections');

# 4. A partial dump (pg_dump --table) into a database that has id_gen: the
# tables come with their keys' sequences (an own one as a serial's; the
# application's sequence of a bound key when it is dumped too, as for a
# default nextval()).
my $partial = $node->basedir . '/partial.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '-t', 'own_key', '-t', 'bound', '-t', 'bound_seq', '-d', $node->connstr('postgres'),
	  '-f', $partial ],
	'pg_dump --table');
$node->safe_psql('postgres', 'CREATE DATABASE partial');
$node->safe_psql('partial', 'CREATE EXTENSION id_gen');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('partial'), $partial ],
	'pg_restore of the partial dump');
restored_ok('partial', 'pg_dump --table', 'own_key', 'bound');

# 5. A partial dump that leaves out one keyed table (issue 25, finding 1):
# the restore has no error, the other keys come back as they were, and the
# bound key still draws from the application's sequence, whose own blocks
# then meet none of hilo_next's.
my $excl = $node->basedir . '/excluded.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '--exclude-table', '"App Schema"."Line Items"', '-d', $node->connstr('postgres'),
	  '-f', $excl ],
	'pg_dump --exclude-table of one keyed table');
$node->safe_psql('postgres', 'CREATE DATABASE excluded');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('excluded'), $excl ],
	'pg_restore of the dump without one keyed table: no error');
# The sequence of the table left out comes as a serial's would: a sequence
# of its own, owned by nothing.
$also_seq = '"App Schema"."Line Items_id_seq"';
restored_ok('excluded', 'pg_dump --exclude-table', grep { $_ ne '"App Schema"."Line Items"' } @keyed);
is($node->safe_psql('excluded', "SELECT own_sequence FROM id_gen.hilo_keys WHERE table_name = 'bound'::regclass"),
	'f', 'the bound key still draws from the application\'s sequence');
my ($ret, $out, $err) = $node->psql('excluded', q{
	INSERT INTO bound (id, v) SELECT s.v - 20 + g, -1 FROM (SELECT nextval('bound_seq') AS v) s,
	       generate_series(0, 19) g;
	INSERT INTO bound (v) SELECT g FROM generate_series(1, 100) g;
	INSERT INTO bound (id, v) SELECT s.v - 20 + g, -1 FROM (SELECT nextval('bound_seq') AS v) s,
	       generate_series(0, 19) g;});
is($ret, 0, 'the application\'s pooled_lo blocks and hilo_next\'s do not meet') or diag($err);

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
is($new->safe_psql('postgres', qq{
		SELECT table_name, column_name, strategy, max_lo, sequence, own_sequence, adaptive, hi_table
		  FROM id_gen.hilo_keys ORDER BY table_name::text}),
	$keys_before, 'pg_upgrade: every key as it was');
is($new->safe_psql('postgres', $sequences), $seqs_before, 'pg_upgrade: no second key');
for my $t (@keyed)
{
	cmp_ok($new->safe_psql('postgres', "INSERT INTO $t (v) VALUES (0) RETURNING id"), '>', $max_now{$t},
		"pg_upgrade: $t continues above its ids");
}
$new->stop;
done_testing();
