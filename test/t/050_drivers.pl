# timeuuid through the drivers applications use: psycopg2 2.9 with
# SQLAlchemy 1.4 and pgjdbc 42.5 (node-postgres and the other stacks:
# 052_stacks.pl).  Each program in
# test/drivers/ binds UUID parameters the driver's way (they arrive as uuid),
# checks the cross-type comparisons (a version 4 UUID compares and finds no
# row; a timeuuid column refuses it),
# and checks the one-line recipe of docs/timeuuid.md (Drivers) for reading
# timeuuid values back, and that a uuid column with DEFAULT uuidv7_next() needs
# no recipe.
# A driver that is not installed is skipped, unless ID_GEN_DRIVERS=required
# (scripts/test.sh, hence CI, installs them all and requires them).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Cwd qw(abs_path);
use File::Basename qw(dirname);

my $required = ($ENV{ID_GEN_DRIVERS} // '') eq 'required';
my $drivers = abs_path(dirname(__FILE__) . '/../drivers');

my $node = PostgreSQL::Test::Cluster->new('drivers');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE drivers');
$node->safe_psql('drivers', 'CREATE EXTENSION id_gen');

local $ENV{PGHOST} = $node->host;
local $ENV{PGPORT} = $node->port;
local $ENV{PGDATABASE} = 'drivers';
local $ENV{PGUSER} = scalar(getpwuid($<));

# Runs a driver program; each "ok"/"not ok" line it prints becomes a test.
sub run_driver
{
	my ($name, @cmd) = @_;
	my ($stdout, $stderr) = ('', '');
	my $ok = IPC::Run::run(\@cmd, '>', \$stdout, '2>', \$stderr);
	my $lines = 0;
	for my $line (split /\n/, $stdout)
	{
		if ($line =~ /^ok (.*)$/) { pass("$name: $1"); $lines++; }
		elsif ($line =~ /^not ok (.*)$/) { fail("$name: $1"); $lines++; }
	}
	ok($ok && $lines > 0, "$name: the program ran to its end")
	  or diag("stdout:\n$stdout\nstderr:\n$stderr");
}

# Skips a driver that is missing, or fails if drivers are required.
sub missing
{
	my ($name, $why) = @_;
	if ($required) { fail("$name is required (ID_GEN_DRIVERS=required): $why"); }
	else { note("skipping $name: $why"); }
}

# psycopg2 and SQLAlchemy: Debian's python3-psycopg2, python3-sqlalchemy.
my $python = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
if (system("$python -c 'import psycopg2, sqlalchemy' >/dev/null 2>&1") == 0)
{
	run_driver('psycopg2', $python, "$drivers/psycopg2_timeuuid.py");
}
else
{
	missing('psycopg2', 'install python3-psycopg2 and python3-sqlalchemy');
}

# pgjdbc: Debian's libpostgresql-jdbc-java, run as a single-file Java program.
my $jar = '/usr/share/java/postgresql.jar';
if (-r $jar && system('javac -version >/dev/null 2>&1') == 0)
{
	my $url = sprintf('jdbc:postgresql://localhost:%d/drivers?user=%s', $node->port, $ENV{PGUSER});
	# The test cluster listens on a Unix socket only: allow TCP for Java.
	$node->append_conf('postgresql.conf', "listen_addresses = 'localhost'");
	$node->restart;
	run_driver('pgjdbc', 'java', '-cp', $jar, "$drivers/JdbcTimeuuid.java", $url);
}
else
{
	missing('pgjdbc', 'install libpostgresql-jdbc-java and a JDK (default-jdk-headless)');
}

$node->stop;
done_testing();
