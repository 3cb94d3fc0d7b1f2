# A new build of the library installed on a running server (a package
# upgrade, make install) without a restart.  Backends that loaded the
# library keep their copy; backends that load it afterwards get the new
# file, unless it is preloaded (they inherit the postmaster's copy).  Two
# builds whose shared-memory layouts differ must never share the
# structures: a backend of the second build gets ERROR 55000 naming the
# restart (never XX000, never a wrong id), the first build's sessions keep
# working, and after the restart (and ALTER EXTENSION ... UPDATE, as the
# upgrade runbook of docs/operations.md says) everything works.  Hi/Lo
# keeps no shared memory and works in both.  A function only the new build has (what an
# update script run before the restart would create) fails with 42883 in
# the sessions of the old build: the reason to restart before ALTER
# EXTENSION ... UPDATE.
#
# The other builds are made here, from a copy of the tree with
# IDGEN_TEST_SHMEM_LAYOUT (src/pg/shmem.cpp): 1 grows every structure, 2
# also sets up no layout header, as the development builds did, 3 sets up
# no header with the structures' sizes unchanged.  The server
# runs from a private copy of tmp_install, so that its library can be
# replaced.
use strict;
use warnings;
use Cwd;
use File::Copy;
use File::Path qw(make_path);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $src = getcwd();
my $pg_config = $ENV{IDGEN_PG_CONFIG} or die 'IDGEN_PG_CONFIG is not set (run through make test-tap)';
my $tmp_install = $ENV{IDGEN_TMP_INSTALL} or die 'IDGEN_TMP_INSTALL is not set';
my $base = PostgreSQL::Test::Utils::tempdir();

sub sys_dir
{
	my $d = `$pg_config --$_[0]`;
	chomp $d;
	return $d;
}
my ($bindir, $libdir, $sharedir) = map { sys_dir($_) } qw(bindir pkglibdir sharedir);

# The other builds: the objects of this tree, shmem.cpp compiled again.
my %lib = (normal => "$tmp_install$libdir/id_gen.so");
for my $layout (1, 2, 3)
{
	my $dir = "$base/build$layout";
	make_path($dir);
	system('cp', '-a', "$src/src", "$src/Makefile", "$src/id_gen.control", "$src/.build-kind", $dir) == 0
	  or die 'copying the tree failed';
	unlink("$dir/src/pg/shmem.o");
	my $out = `make -s -C $dir PG_CONFIG=$pg_config IDGEN_TEST_HOOKS=1 IDGEN_TEST_SHMEM_LAYOUT=$layout all 2>&1`;
	is($?, 0, "the build of layout $layout compiles") or diag($out);
	$lib{"layout$layout"} = "$dir/id_gen.so";
}

# A private installation: its own bin and lib directories (the server finds
# its library directory next to its binaries), the shared files linked.
my $inst = "$base/inst";
make_path("$inst$libdir", "$inst" . ($sharedir =~ s{/[^/]+$}{}r));
system('cp', '-a', "$tmp_install$bindir", "$inst$bindir") == 0 or die 'copying bin failed';
for my $f (glob("$tmp_install$libdir/*"))
{
	symlink($f, "$inst$libdir/" . ($f =~ s{.*/}{}r)) or die "symlink $f: $!";
}
symlink("$tmp_install$sharedir", "$inst$sharedir") or die "symlink share: $!";
my $installed = "$inst$libdir/id_gen.so";

# Install a build as make install does: a new file under the same name.
sub install_lib
{
	my ($which) = @_;
	copy($lib{$which}, "$installed.new") or die "copy: $!";
	chmod(0755, "$installed.new");
	rename("$installed.new", $installed) or die "rename: $!";
}

my @generators = ('snowflake_next()', 'jsid_next()', 'timeuuid_next()', 'uuidv7_next()', 'decimal_id()',
	'(SELECT count(*) FROM id_gen.headroom)');

my $node = PostgreSQL::Test::Cluster->new('replaced', install_path => "$inst" . ($bindir =~ s{/bin$}{}r));
$node->init;
$node->append_conf('postgresql.conf', "id_gen.launch_id = 3\nid_gen.worker_id = 1\n");

# One case: the server starts with build $first, which a session uses; then
# $second is installed.  $refused: whether new sessions are refused.
sub replace_case
{
	my ($name, $preload, $first, $second, $refused) = @_;

	$node->append_conf('postgresql.conf',
		"shared_preload_libraries = '" . ($preload ? 'id_gen' : '') . "'\n");
	install_lib($first);
	$node->start;
	$node->safe_psql('postgres', 'DROP DATABASE IF EXISTS t; CREATE DATABASE t');
	$node->safe_psql('t', q{CREATE EXTENSION id_gen;
		CREATE TABLE h (id bigint PRIMARY KEY DEFAULT hilo_next('h'), s text);
		SELECT hilo_create_key('h');
		CREATE TABLE sf (id bigint PRIMARY KEY, s text)});

	my $old = $node->background_psql('t');
	$old->query_safe("SELECT $_") for @generators;
	$old->query_safe(q{INSERT INTO h (s) VALUES ('old'); INSERT INTO sf SELECT snowflake_next(), 'old'});

	install_lib($second);

	for my $g (@generators)
	{
		my ($ret, $out, $err) = $node->psql('t', "SELECT $g IS NOT NULL", extra_params => ['-v', 'VERBOSITY=verbose']);
		if ($refused)
		{
			like($err, qr/ERROR:  55000: id_gen: shared memory was set up by another build of the id_gen library/,
				"$name: a new session's $g is refused with 55000");
			like($err, qr/HINT:  Restart the server/, "$name: $g names the restart");
		}
		else
		{
			is($out, 't', "$name: a new session's $g works (it runs the postmaster's copy)") or diag($err);
		}
	}
	my ($ret, $out, $err) = $node->psql('t', q{INSERT INTO h (s) VALUES ('new'); SELECT count(*) FROM h});
	is($out, '2', "$name: Hi/Lo works in a new session") or diag($err);
	if (!$refused)
	{
		$node->safe_psql('t', q{INSERT INTO sf SELECT snowflake_next(), 'new'});
	}

	# The old session keeps working, ids still increasing.
	for my $g (@generators)
	{
		is($old->query_safe("SELECT $g IS NOT NULL"), 't', "$name: the old session's $g still works");
	}
	$old->query_safe(q{INSERT INTO h (s) VALUES ('old'); INSERT INTO sf SELECT snowflake_next(), 'old'});
	is($node->safe_psql('t', 'SELECT count(*) = count(DISTINCT id) FROM h'), 't', "$name: Hi/Lo ids distinct");
	is($node->safe_psql('t', q{SELECT bool_and(id > prev) FROM (SELECT id, lag(id) OVER (ORDER BY ctid) AS prev FROM sf) s WHERE prev IS NOT NULL}),
		't', "$name: snowflake ids of both sessions increase in the order made");

	# A function only the new build has.
	($ret, $out, $err) = $node->psql('t',
		q{CREATE FUNCTION other_build() RETURNS int AS '$libdir/id_gen', 'idgen_test_other_build' LANGUAGE C; SELECT other_build()});
	if ($second =~ /layout/ && !$preload)
	{
		isnt($out, '', "$name: a new session creates a function of the new build") or diag($err);
		like($old->query_safe(q{DO $$BEGIN PERFORM other_build(); EXCEPTION WHEN OTHERS THEN
				CREATE TEMP TABLE e AS SELECT SQLSTATE || ' ' || SQLERRM AS e; END$$; SELECT e FROM e}),
			qr/^42883 could not find function "idgen_test_other_build"/,
			"$name: the old session fails on the new build's function (42883)");
	}
	elsif ($second =~ /layout/)
	{
		like($err, qr/could not find function "idgen_test_other_build"/,
			"$name: preloaded, new sessions run the old build: its functions cannot be created before the restart");
	}
	$old->quit;

	# The runbook: install, restart, ALTER EXTENSION ... UPDATE.
	$node->restart;
	my ($r, $o, $e) = $node->psql('t', 'ALTER EXTENSION id_gen UPDATE');
	is($r, 0, "$name: after the restart ALTER EXTENSION id_gen UPDATE runs") or diag($e);
	for my $g (@generators)
	{
		is($node->safe_psql('t', "SELECT $g IS NOT NULL"), 't', "$name: after the restart $g works");
	}
	is($node->safe_psql('t', q{INSERT INTO h (s) VALUES ('restarted'); SELECT count(*) = count(DISTINCT id) FROM h}),
		't', "$name: after the restart Hi/Lo works");
	ok(!$node->log_contains('ShmemIndex entry size is wrong|was terminated by signal|TRAP:'),
		"$name: no XX000 and no crash in the log");
	$node->stop;
	# A fresh log for the next case's log_contains.
	unlink($node->logfile);
}

replace_case('not preloaded, new layout', 0, 'normal', 'layout1', 1);
replace_case('not preloaded, back to the old layout', 0, 'layout1', 'normal', 1);
replace_case('not preloaded, after a development build', 0, 'layout2', 'normal', 1);
replace_case('not preloaded, after a development build of the same sizes', 0, 'layout3', 'normal', 1);
replace_case('preloaded, new layout', 1, 'normal', 'layout1', 0);

# A session that only loaded the library (Hi/Lo needs no shared memory)
# before it was replaced keeps its build, even when a new session uses a
# generator first: the layout is claimed when the library is loaded.
$node->append_conf('postgresql.conf', "shared_preload_libraries = ''\n");
install_lib('normal');
$node->start;
my $loaded = $node->background_psql('t');
$loaded->query_safe(q{INSERT INTO h (s) VALUES ('loaded only')});
install_lib('layout1');
my ($lr, $lo, $le) = $node->psql('t', 'SELECT snowflake_next()', extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($le, qr/ERROR:  55000: id_gen: shared memory was set up by another build/,
	'loaded only: a new session of the new build is refused although it used a generator first');
is($loaded->query_safe('SELECT snowflake_next() IS NOT NULL'), 't',
	'loaded only: the session that loaded the old build keeps working');
$loaded->quit;
$node->stop;

done_testing();
