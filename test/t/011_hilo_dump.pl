# pg_dump + pg_restore of a database with Hi/Lo keys into a fresh database:
# the hi table (extension configuration), the keys' own sequences (with
# their values) and bound sequences come back, keys follow renamed OIDs, and
# every key continues above the ids issued before the dump.
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
	CREATE TABLE gone (id bigint DEFAULT hilo_next('gone'));
	INSERT INTO gone DEFAULT VALUES;
	DROP TABLE gone;
});
for my $i (1 .. 3)
{
	$node->safe_psql('postgres', q{
		INSERT INTO own_key (v) SELECT g FROM generate_series(1, 1500) g;
		INSERT INTO "App Schema"."Line Items" (v) SELECT g FROM generate_series(1, 10) g;
		INSERT INTO bound (v) SELECT g FROM generate_series(1, 30) g;
	});
}
my %max;
for my $t ('own_key', '"App Schema"."Line Items"', 'bound')
{
	$max{$t} = $node->safe_psql('postgres', "SELECT max(id) FROM $t");
}
my $keys_before = $node->safe_psql('postgres',
	"SELECT table_name, strategy, max_lo, sequence, own_sequence FROM id_gen.hilo_keys ORDER BY 1::text");

my $dump = $node->basedir . '/hilo.dump';
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('postgres'), '-f', $dump ],
	'pg_dump');
$node->safe_psql('postgres', 'CREATE DATABASE restored');
# Shift OIDs so that the restored tables get OIDs other than the originals.
$node->safe_psql('restored', 'CREATE TABLE oid_shift (a int); DROP TABLE oid_shift;');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('restored'), $dump ],
	'pg_restore into a fresh database');

is($node->safe_psql('restored',
		"SELECT table_name, strategy, max_lo, sequence, own_sequence FROM id_gen.hilo_keys ORDER BY 1::text"),
	$keys_before, 'every key restored with its strategy, block size and sequence');
is($node->safe_psql('restored', 'SELECT count(*) FROM id_gen.hilo_key k
		WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = k.relid)'),
	'0', 'no row of a dropped table was dumped');
isnt($node->safe_psql('restored', "SELECT 'own_key'::regclass::oid"),
	$node->safe_psql('postgres', "SELECT 'own_key'::regclass::oid"),
	'restored tables have new OIDs');

for my $t (sort keys %max)
{
	my $id = $node->safe_psql('restored', "INSERT INTO $t (v) VALUES (0) RETURNING id");
	cmp_ok($id, '>', $max{$t}, "$t continues above the dumped ids after restore");
}
# And the original database continues too, without meeting the restored one
# (each database is its own key space).
is($node->safe_psql('restored', q{
		INSERT INTO own_key (v) SELECT g FROM generate_series(1, 3000) g;
		SELECT count(*) = count(DISTINCT id) FROM own_key}),
	't', 'restored key issues no duplicates');
my $counter_old = $node->safe_psql('postgres', 'SELECT last_value FROM id_gen.hilo_seq_counter');
$node->safe_psql('restored', 'CREATE TABLE later (id bigint); SELECT hilo_next(\'later\')');
cmp_ok($node->safe_psql('restored',
		"SELECT substring(seq::text from 'hilo_seq_([0-9]+)')::int FROM id_gen.hilo_key WHERE relid = 'later'::regclass"),
	'>', $counter_old, 'new keys in the restored database get fresh sequence names');

# A partial dump (pg_dump -t) carries the table and its rows but not the
# extension's configuration: in a database where the key does not exist,
# the key is created anew on first use and starts above the restored rows.
my $partial = $node->basedir . '/partial.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '-t', 'own_key', '-t', 'bound', '-d', $node->connstr('postgres'), '-f', $partial ],
	'pg_dump -t');
$node->safe_psql('postgres', 'CREATE DATABASE partial');
$node->safe_psql('partial', 'CREATE EXTENSION id_gen');
$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr('partial'), $partial ],
	'pg_restore of the partial dump');
is($node->safe_psql('partial', 'SELECT count(*) FROM id_gen.hilo_key'), '0',
	'the partial dump carried no key');
for my $t ('own_key', 'bound')
{
	my ($ret, $out, $err) = $node->psql('partial',
		"INSERT INTO $t (v) SELECT g FROM generate_series(1, 3000) g");
	is($ret, 0, "$t: 3000 inserts after the partial restore") or diag($err);
	is($node->safe_psql('partial', "SELECT count(*) FROM $t WHERE v > 0 AND id <= $max{$t}"),
		$node->safe_psql('postgres', "SELECT count(*) FROM $t WHERE v > 0 AND id <= $max{$t}"),
		"$t: no new id at or below the restored ones");
}


# A partial dump that leaves out one keyed table (issue 25, finding 1): the
# other keys must come back as they were, a bound key still bound to the
# application's sequence.  Open: id_gen.hilo_key names tables by regclass, so
# its COPY fails as a whole for the row of the table left out, and the bound
# key comes back as a key of its own just above the rows, where the
# application's next blocks may lie.  It needs
# keys kept as sequences owned by their columns (issue 25's redesign).
my $excl = $node->basedir . '/excluded.dump';
$node->command_ok(
	[ 'pg_dump', '-Fc', '--exclude-table', '"App Schema"."Line Items"', '-d', $node->connstr('postgres'),
	  '-f', $excl ],
	'pg_dump --exclude-table of one keyed table');
$node->safe_psql('postgres', 'CREATE DATABASE excluded');
my @restore = ('pg_restore', '-d', $node->connstr('excluded'), $excl);
my $restored = run_log(\@restore);
TODO:
{
	local $TODO = 'issue 25, finding 1: keys as sequences owned by their columns';
	ok($restored, 'pg_restore of the partial dump without errors');
	is($node->safe_psql('excluded',
			"SELECT count(*) FROM id_gen.hilo_keys WHERE table_name IN ('own_key'::regclass, 'bound'::regclass)"),
		'2', 'the keys of the tables dumped came back');
	$node->safe_psql('excluded', "INSERT INTO bound (v) VALUES (0)");
	is($node->safe_psql('excluded', "SELECT own_sequence FROM id_gen.hilo_keys WHERE table_name = 'bound'::regclass"),
		'f', 'the bound key still draws from the application\'s sequence');
}

$node->stop;
done_testing();
