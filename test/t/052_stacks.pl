# id_gen's ids through the application stacks users run, each program in
# test/drivers/ a tested recipe that docs/drivers.md quotes:
#   Node 20 (npm, versions pinned by test/drivers/node/package-lock.json):
#     node-postgres 8, Sequelize 6, TypeORM, Knex 3, Kysely, Drizzle ORM and
#     drizzle-kit push/pull;
#   Debian 12: asyncpg 0.27, Django 3.2 + psycopg2, Alembic 1.8 (a Hi/Lo
#     key through autogenerate), ActiveRecord 6.1 +
#     ruby-pg (schema.rb dump included), Go 1.19 + pgx v4 (built offline
#     from Debian's packaged modules); PgBouncer 1.18 in transaction mode.
# Each checks the no-recipe path first (a uuid column with DEFAULT
# uuidv7_next()), then the recipe for timeuuid columns, then bigint ids
# (exact or rounded, in JavaScript).  psycopg2/SQLAlchemy and pgjdbc are in
# 050_drivers.pl.  A stack that is not installed is skipped, unless
# ID_GEN_DRIVERS=required (scripts/test.sh, hence CI, installs them all and
# requires them).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use File::Copy qw(copy);

my $required = ($ENV{ID_GEN_DRIVERS} // '') eq 'required';
my $drivers = abs_path(dirname(__FILE__) . '/../drivers');
my $tmp = $PostgreSQL::Test::Utils::tmp_check;

my $node = PostgreSQL::Test::Cluster->new('stacks');
$node->init;
# drizzle-kit takes a URL: TCP on localhost besides the Unix socket.
# decimal_id() needs a launch id.
$node->append_conf('postgresql.conf', "listen_addresses = 'localhost'\nid_gen.launch_id = 1");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE stacks');
$node->safe_psql('stacks', 'CREATE EXTENSION id_gen');

local $ENV{PGHOST} = $node->host;
local $ENV{PGPORT} = $node->port;
local $ENV{PGDATABASE} = 'stacks';
local $ENV{PGUSER} = scalar(getpwuid($<));

# Runs a program under test; each "ok"/"not ok" line it prints becomes a test.
sub run_stack
{
	my ($name, @cmd) = @_;
	my ($stdout, $stderr) = ('', '');
	my $ok = eval {
		IPC::Run::run(\@cmd, '>', \$stdout, '2>', \$stderr, IPC::Run::timeout(120));
	};
	$stderr .= $@ if $@;
	my $lines = 0;
	for my $line (split /\n/, $stdout)
	{
		if ($line =~ /^ok (.*)$/) { pass("$name: $1"); $lines++; }
		elsif ($line =~ /^not ok (.*)$/) { fail("$name: $1"); $lines++; }
	}
	ok($ok && $lines > 0, "$name: the program ran to its end")
	  or diag("stdout:\n$stdout\nstderr:\n$stderr");
}

# Skips a stack that is missing, or fails if stacks are required.
sub missing
{
	my ($name, $why) = @_;
	if ($required) { fail("$name is required (ID_GEN_DRIVERS=required): $why"); }
	else { note("skipping $name: $why"); }
}

# Node: the programs and the lock file copied into this test's directory,
# the packages installed there by npm ci (one download per suite run).
my $node_dir = "$tmp/node";
mkdir $node_dir;
copy($_, $node_dir) or die "copy $_: $!" for glob("$drivers/node/*.js"), glob("$drivers/node/*.json");
my ($npm_out, $npm_err) = ('', '');
if (system('node --version >/dev/null 2>&1') == 0
	&& IPC::Run::run([ 'npm', 'ci', '--no-audit', '--no-fund', '--prefix', $node_dir ],
		'>', \$npm_out, '2>', \$npm_err, IPC::Run::timeout(300)))
{
	run_stack('node-postgres', 'node', "$node_dir/pg.js");
	run_stack('Sequelize', 'node', "$node_dir/sequelize.js");
	run_stack('TypeORM', 'node', "$node_dir/typeorm.js");
	run_stack('Knex', 'node', "$node_dir/knex.js");
	run_stack('Kysely', 'node', "$node_dir/kysely.js");
	run_stack('drizzle-kit', 'node', "$node_dir/drizzle-kit.js");
	run_stack('Drizzle ORM', 'node', "$node_dir/drizzle.js");
}
else
{
	missing('Node stacks', "node, or npm ci in test/drivers/node, failed: $npm_err");
}

# asyncpg: Debian's python3-asyncpg.
my $python = -x '/usr/bin/python3' ? '/usr/bin/python3' : 'python3';
if (system("$python -c 'import asyncpg' >/dev/null 2>&1") == 0)
{
	local $ENV{PYTHONDONTWRITEBYTECODE} = '1';
	run_stack('asyncpg', $python, "$drivers/asyncpg_stacks.py");
}
else
{
	missing('asyncpg', 'install python3-asyncpg');
}

# Django 3.2 with psycopg2: Debian's python3-django, python3-psycopg2.
if (system("$python -c 'import django, psycopg2' >/dev/null 2>&1") == 0)
{
	local $ENV{PYTHONDONTWRITEBYTECODE} = '1';
	run_stack('Django', $python, "$drivers/django_stacks.py");
}
else
{
	missing('Django', 'install python3-django and python3-psycopg2');
}

# Alembic 1.8 with SQLAlchemy 1.4: Debian's python3-alembic.
if (system("$python -c 'import alembic, sqlalchemy, psycopg2' >/dev/null 2>&1") == 0)
{
	local $ENV{PYTHONDONTWRITEBYTECODE} = '1';
	run_stack('Alembic', $python, "$drivers/alembic_stacks.py");
}
else
{
	missing('Alembic', 'install python3-alembic and python3-psycopg2');
}

# ActiveRecord 6.1 with ruby-pg: Debian's ruby-activerecord, ruby-pg.
if (system(q{ruby -e 'require "active_record"; require "pg"' >/dev/null 2>&1}) == 0)
{
	run_stack('ActiveRecord', 'ruby', "$drivers/activerecord_stacks.rb");
}
else
{
	missing('ActiveRecord', 'install ruby-activerecord and ruby-pg');
}

# Go and pgx v4: Debian's golang-go and golang-github-jackc-pgx-v4-dev,
# built in GOPATH mode from /usr/share/gocode: nothing is downloaded.
my $gopath = '/usr/share/gocode';
if (system('go version >/dev/null 2>&1') == 0 && -d "$gopath/src/github.com/jackc/pgx/v4")
{
	local $ENV{GO111MODULE} = 'off';
	local $ENV{GOPATH} = $gopath;
	local $ENV{GOFLAGS} = '';
	local $ENV{GOCACHE} = $ENV{GOCACHE} // "$tmp/gocache";
	my ($out, $err) = ('', '');
	if (IPC::Run::run([ 'go', 'build', '-o', "$tmp/pgx_stacks", "$drivers/go/pgx_stacks.go" ],
			'>', \$out, '2>', \$err, IPC::Run::timeout(180)))
	{
		run_stack('pgx v4', "$tmp/pgx_stacks");
	}
	else
	{
		fail('pgx v4: the program builds offline') or diag($err);
	}
}
else
{
	missing('pgx v4', 'install golang-go and golang-github-jackc-pgx-v4-dev');
}

# PgBouncer 1.18 (Debian's pgbouncer) in transaction mode: 40 pgbench
# clients share 5 server connections, every generator's ids stay distinct
# (they are made in the server, per call); asyncpg through it with the
# timeuuid recipe.
my $pgbouncer = -x '/usr/sbin/pgbouncer' ? '/usr/sbin/pgbouncer' : 'pgbouncer';
my $bouncer;
END { $bouncer->kill_kill if $bouncer && $bouncer->pumpable; }
if (system("$pgbouncer --version >/dev/null 2>&1") == 0)
{
	my $dir = "$tmp/pgbouncer";
	mkdir $dir;
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my $user = $ENV{PGUSER};
	PostgreSQL::Test::Utils::append_to_file("$dir/users.txt", qq{"$user" ""\n});
	PostgreSQL::Test::Utils::append_to_file("$dir/pgbouncer.ini", join("\n",
		'[databases]', sprintf('stacks = host=%s port=%d dbname=stacks', $node->host, $node->port),
		'[pgbouncer]', 'listen_addr =', "listen_port = $port", "unix_socket_dir = $dir",
		'auth_type = trust', "auth_file = $dir/users.txt", 'pool_mode = transaction',
		'max_client_conn = 100', 'default_pool_size = 5', "logfile = $dir/pgbouncer.log", ''));
	$bouncer = IPC::Run::start([ $pgbouncer, "$dir/pgbouncer.ini" ], '>', "$dir/stdout", '2>', "$dir/stderr");
	$node->safe_psql('stacks', 'CREATE TABLE pb_ids (u uuid DEFAULT uuidv7_next(), t timeuuid DEFAULT timeuuid_next(), '
		  . 's bigint DEFAULT snowflake_next(), j bigint DEFAULT jsid_next())');
	PostgreSQL::Test::Utils::append_to_file("$dir/insert.sql", "INSERT INTO pb_ids DEFAULT VALUES;\n");
	my $ready = 0;
	for (1 .. 50)
	{
		last if ($ready = -S "$dir/.s.PGSQL.$port");
		select(undef, undef, undef, 0.1);
	}
	ok($ready, 'PgBouncer: listening');
	my ($out, $err) = ('', '');
	# libpq 19 offers protocol 3.9999 to test servers' negotiation, which
	# PgBouncer 1.18 rejects ("bad packet header"); older libpq ignores this.
	local $ENV{PGMAXPROTOCOLVERSION} = '3.0';
	my $ran = IPC::Run::run([ 'pgbench', '-n', '-h', $dir, '-p', $port, '-c', '40', '-j', '2', '-t', '100',
			'-f', "$dir/insert.sql", 'stacks' ], '>', \$out, '2>', \$err, IPC::Run::timeout(120));
	ok($ran && $out =~ m{processed: 4000/4000}, 'PgBouncer: 40 pgbench clients, 4000 inserts')
	  or diag("$out\n$err");
	is($node->safe_psql('stacks', 'SELECT count(*), count(DISTINCT u), count(DISTINCT t), count(DISTINCT s), count(DISTINCT j) FROM pb_ids'),
		'4000|4000|4000|4000|4000', 'PgBouncer: uuidv7_next, timeuuid_next, snowflake_next, jsid_next all distinct');
	if (system("$python -c 'import asyncpg' >/dev/null 2>&1") == 0)
	{
		local $ENV{PGHOST} = $dir;
		local $ENV{PGPORT} = $port;
		local $ENV{PYTHONDONTWRITEBYTECODE} = '1';
		run_stack('asyncpg through PgBouncer', $python, "$drivers/asyncpg_stacks.py", 'pgbouncer');
	}
	$bouncer->kill_kill;
	$bouncer = undef;
}
else
{
	missing('PgBouncer', 'install pgbouncer');
}

$node->stop;
done_testing();
