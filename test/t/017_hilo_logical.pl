# Hi/Lo keys and logical replication (item 7).  A FOR ALL TABLES
# publication carries id_gen.hilo_key but no sequence (PostgreSQL 15-17
# replicate none).  The subscriber's schema comes from pg_dump --schema-only,
# so it has the keys' own sequences at their start values, or not at all if
# dropped there, or one of them serving a key of the subscriber's own.
# Required: the initial sync of id_gen.hilo_key succeeds, rows flow, and
# after a switchover (writes stop on A, DEFAULT hilo_next() on B) no id that
# is already in a table is handed out, whatever the key's strategy, index or
# sequence.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $a = PostgreSQL::Test::Cluster->new('hilo_pub');
$a->init(allows_streaming => 'logical');
$a->start;
my $b = PostgreSQL::Test::Cluster->new('hilo_sub');
$b->init;
$b->start;

my @tables = qw(t_own t_gone t_noidx t_bound t_parted t_shared);
$a->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	-- a key with its own sequence, and one whose sequence B will not have
	CREATE TABLE t_own (id bigint PRIMARY KEY DEFAULT hilo_next('t_own'), v int);
	CREATE TABLE t_gone (id bigint PRIMARY KEY DEFAULT hilo_next('t_gone'), v int);
	-- no index on the key's column (inserts only, so no replica identity needed)
	CREATE TABLE t_noidx (id bigint DEFAULT hilo_next('t_noidx'), v int);
	-- bound to an application's sequence (EF Core style)
	CREATE SEQUENCE app_seq INCREMENT 10;
	CREATE TABLE t_bound (id bigint PRIMARY KEY DEFAULT hilo_next('t_bound'), v int);
	SELECT hilo_bind('t_bound', 'app_seq', 'pooled_lo');
	-- partitioned: the partitions are published and share the parent's key
	CREATE TABLE t_parted (id bigint DEFAULT hilo_next('t_parted'), v int,
	                       PRIMARY KEY (id, v)) PARTITION BY RANGE (v);
	CREATE TABLE t_parted_1 PARTITION OF t_parted FOR VALUES FROM (MINVALUE) TO (500);
	CREATE TABLE t_parted_2 PARTITION OF t_parted FOR VALUES FROM (500) TO (MAXVALUE);
	-- its sequence's name will serve another key on B
	CREATE TABLE t_shared (id bigint PRIMARY KEY DEFAULT hilo_next('t_shared'), v int);
	SELECT hilo_set_max_lo('t_shared', 100);
});
# Keys in use: several sessions, several blocks each.
for my $i (1 .. 3)
{
	$a->safe_psql('postgres', join('',
		map { "INSERT INTO $_ (v) SELECT g FROM generate_series(1, 1000) g;\n" } @tables));
}

# B: the same schema, from pg_dump --schema-only (which writes the keys' own
# sequences, at their start values, and no hi table rows).
my $schema = $a->basedir . '/schema.sql';
$a->command_ok([ 'pg_dump', '--schema-only', '-f', $schema, '-d', $a->connstr('postgres') ],
	'pg_dump --schema-only of the publisher');
$b->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $schema, '-d', $b->connstr('postgres') ],
	'schema restored on the subscriber');
my %seq = map {
	$_ => $a->safe_psql('postgres', "SELECT seq FROM id_gen.hilo_key WHERE relid = '$_'::regclass")
} @tables;
# t_gone's sequence does not exist on B.
$b->safe_psql('postgres', "DROP SEQUENCE $seq{t_gone}");
# t_shared's sequence name serves a key of B's own table b_local.
my ($shared_n) = $seq{t_shared} =~ /hilo_seq_(\d+)$/;
$b->safe_psql('postgres', qq{
	DROP SEQUENCE $seq{t_shared};
	SELECT setval('id_gen.hilo_seq_counter', $shared_n, false);
	CREATE TABLE b_local (id bigint PRIMARY KEY DEFAULT hilo_next('b_local'), v int);
	INSERT INTO b_local (v) SELECT g FROM generate_series(1, 50) g;
});
is($b->safe_psql('postgres', "SELECT seq FROM id_gen.hilo_key WHERE relid = 'b_local'::regclass"),
	$seq{t_shared}, "B's own key b_local draws from a sequence named like A's key of t_shared");

$a->safe_psql('postgres', 'CREATE PUBLICATION p FOR ALL TABLES');
is($a->safe_psql('postgres',
		"SELECT count(*) FROM pg_publication_tables WHERE pubname = 'p' AND schemaname = 'id_gen' AND tablename = 'hilo_key'"),
	'1', 'FOR ALL TABLES publishes id_gen.hilo_key');
my $connstr = $a->connstr . ' dbname=postgres';
$b->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p");

# The initial sync must finish (it used to fail forever on id_gen.hilo_key).
my $synced = 0;
for (1 .. 90)
{
	if ($b->safe_psql('postgres',
			"SELECT count(*) > 0 AND bool_and(srsubstate IN ('r', 's')) FROM pg_subscription_rel") eq 't')
	{
		$synced = 1;
		last;
	}
	sleep 1;
}
ok($synced, 'initial sync of every published table, id_gen.hilo_key included, finishes');
unless ($synced)
{
	my ($err) = slurp_file($b->logfile) =~ /(ERROR: .*)/;
	diag('subscriber log: ' . ($err // 'no ERROR line'));
}
is($b->safe_psql('postgres', 'SELECT count(*) FROM id_gen.hilo_key'), '7',
	"A's six keys arrived next to B's own");

# Rows keep flowing.
$a->safe_psql('postgres', join('',
	map { "INSERT INTO $_ (v) SELECT g FROM generate_series(1, 500) g;\n" } @tables));
$a->wait_for_catchup('s');
for my $t (@tables)
{
	is($b->safe_psql('postgres', "SELECT count(*), max(id) FROM $t"),
		$a->safe_psql('postgres', "SELECT count(*), max(id) FROM $t"), "$t replicated");
}

# Switchover: writes stop on A; B detaches and takes the writes.
$a->wait_for_catchup('s');
$b->safe_psql('postgres', 'DROP SUBSCRIPTION s');
my %max_a = map { $_ => $a->safe_psql('postgres', "SELECT max(id) FROM $_") } @tables;
for my $i (1 .. 3)
{
	for my $t (@tables)
	{
		my ($ret, $out, $err) = $b->psql('postgres',
			"INSERT INTO $t (v) SELECT g FROM generate_series(1, 1000) g");
		is($ret, 0, "session $i inserts 1000 rows into $t on B") or diag($err);
	}
}
# The application of t_bound draws a block of its own from app_seq on B.
my ($ret, $out, $err) = $b->psql('postgres', q{
	INSERT INTO t_bound (id, v) SELECT v + g, -1 FROM (SELECT nextval('app_seq') AS v) s,
	       generate_series(0, 9) g});
is($ret, 0, "the application's own block on B is free too") or diag($err);
for my $t (@tables)
{
	is($b->safe_psql('postgres', "SELECT count(*) - count(DISTINCT id) FROM $t"), '0',
		"no duplicate id in $t after the switchover");
	is($b->safe_psql('postgres', "SELECT count(*) FROM $t WHERE id <= $max_a{$t}"),
		$a->safe_psql('postgres', "SELECT count(*) FROM $t"),
		"$t: every id B handed out is above A's largest");
}
# What B did with A's rows: t_gone's sequence was created again under its
# name; t_shared and b_local no longer share one; the others kept the
# sequences of the schema dump, moved above the data before the first draw.
is($b->safe_psql('postgres', "SELECT seq FROM id_gen.hilo_key WHERE relid = 't_gone'::regclass"),
	$seq{t_gone}, "t_gone's row still names its sequence");
is($b->safe_psql('postgres', "SELECT to_regclass('$seq{t_gone}') IS NOT NULL"), 't',
	'which now exists on B');
isnt($b->safe_psql('postgres', "SELECT seq FROM id_gen.hilo_key WHERE relid = 't_shared'::regclass"),
	$b->safe_psql('postgres', "SELECT seq FROM id_gen.hilo_key WHERE relid = 'b_local'::regclass"),
	't_shared and b_local draw from different sequences');
is($b->safe_psql('postgres', "SELECT seq FROM id_gen.hilo_key WHERE relid = 't_noidx'::regclass"),
	$seq{t_noidx}, "t_noidx kept the schema dump's sequence");
like(slurp_file($b->logfile), qr/created sequence \Q$seq{t_gone}\E for the Hi\/Lo key of table public\.t_gone/,
	'the worker logged the sequence it created');
is($b->safe_psql('postgres', 'SELECT count(*) - count(DISTINCT id) FROM b_local'), '0',
	"B's own key b_local: no duplicate");
$b->safe_psql('postgres', 'INSERT INTO b_local (v) SELECT g FROM generate_series(1, 200) g');
is($b->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM b_local'), 't',
	'b_local keeps drawing unique ids');
is($b->safe_psql('postgres', 'SELECT count(DISTINCT seq) FROM id_gen.hilo_key WHERE own_seq'),
	$b->safe_psql('postgres', 'SELECT count(*) FROM id_gen.hilo_key WHERE own_seq'),
	'no two keys on B draw from one own sequence');

$a->stop;
$b->stop;
done_testing();
