# Hi/Lo keys and logical replication, and a switchover.  A key is its
# table's sequence (a serial's); logical replication copies rows but no
# sequence (PostgreSQL 15-17), and there is no table of keys to publish.
# The subscriber's schema comes from pg_dump --schema-only, so it has each
# key, its default and its sequence at its start.  Rows flow; the
# subscriber's own keyed table keeps drawing meanwhile.  After a switchover
# (writes stop on A, DEFAULT hilo_next() on B) the DBA moves each key above
# the replicated rows with setval(seq, max(id)), as for a serial; then no
# id already in a table is handed out, whatever the key's index or
# partitioning, and the application of an ORM form draws blocks of its own
# beside them.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $a = PostgreSQL::Test::Cluster->new('hilo_pub');
$a->init(allows_streaming => 'logical');
$a->start;
my $b = PostgreSQL::Test::Cluster->new('hilo_sub');
$b->init;
$b->start;

my @tables = qw(t_own t_noidx t_bound t_parted);
$a->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE t_own (id bigint PRIMARY KEY DEFAULT hilo_next('t_own'), v int);
	SELECT hilo_create_key('t_own', max_lo => 100);
	-- no index on the key's column (inserts only, so no replica identity needed)
	CREATE TABLE t_noidx (id bigint DEFAULT hilo_next('t_noidx'), v int);
	SELECT hilo_create_key('t_noidx');
	-- an application's sequence (EF Core style)
	CREATE SEQUENCE app_seq INCREMENT 10;
	CREATE TABLE t_bound (id bigint PRIMARY KEY DEFAULT hilo_next('app_seq', 'pooled_lo'), v int);
	-- partitioned: the partitions are published and share the parent's key
	CREATE TABLE t_parted (id bigint DEFAULT hilo_next('t_parted'), v int,
	                       PRIMARY KEY (id, v)) PARTITION BY RANGE (v);
	CREATE TABLE t_parted_1 PARTITION OF t_parted FOR VALUES FROM (MINVALUE) TO (500);
	CREATE TABLE t_parted_2 PARTITION OF t_parted FOR VALUES FROM (500) TO (MAXVALUE);
	SELECT hilo_create_key('t_parted');
});
for my $i (1 .. 3)
{
	$a->safe_psql('postgres', join('',
		map { "INSERT INTO $_ (v) SELECT g FROM generate_series(1, 1000) g;\n" } @tables));
}
my $keys_sql = q{SELECT table_name, column_name, strategy, max_lo, sequence, own_sequence
	FROM id_gen.hilo_keys ORDER BY table_name::text};

# B: the same schema, from pg_dump --schema-only (the keys' defaults, and
# their sequences at their start values).
my $schema = $a->basedir . '/schema.sql';
$a->command_ok([ 'pg_dump', '--schema-only', '-f', $schema, '-d', $a->connstr('postgres') ],
	'pg_dump --schema-only of the publisher');
$b->command_ok([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-f', $schema, '-d', $b->connstr('postgres') ],
	'schema restored on the subscriber');
is($b->safe_psql('postgres', $keys_sql), $a->safe_psql('postgres', $keys_sql),
	'B has the same keys');
# A table of B's own, keyed on B.
$b->safe_psql('postgres', q{
	CREATE TABLE b_local (id bigint PRIMARY KEY DEFAULT hilo_next('b_local'), v int);
	SELECT hilo_create_key('b_local');
	INSERT INTO b_local (v) SELECT g FROM generate_series(1, 50) g;
});

$a->safe_psql('postgres', 'CREATE PUBLICATION p FOR ALL TABLES');
is($a->safe_psql('postgres',
		"SELECT count(*) FROM pg_publication_tables WHERE pubname = 'p' AND tablename LIKE '%hilo%'"),
	'0', 'no state of a key is a published table');
my $connstr = $a->connstr . ' dbname=postgres';
$b->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p");
ok($b->poll_query_until('postgres',
		"SELECT count(*) > 0 AND bool_and(srsubstate IN ('r', 's')) FROM pg_subscription_rel"),
	'initial sync of every published table finishes');

# Rows keep flowing, and B's own key keeps drawing.
$a->safe_psql('postgres', join('',
	map { "INSERT INTO $_ (v) SELECT g FROM generate_series(1, 500) g;\n" } @tables));
$b->safe_psql('postgres', 'INSERT INTO b_local (v) SELECT g FROM generate_series(1, 200) g');
$a->wait_for_catchup('s');
for my $t (@tables)
{
	is($b->safe_psql('postgres', "SELECT count(*), max(id) FROM $t"),
		$a->safe_psql('postgres', "SELECT count(*), max(id) FROM $t"), "$t replicated");
}
is($b->safe_psql('postgres', 'SELECT count(*), count(DISTINCT id) FROM b_local'), '250|250',
	"B's own key draws beside the apply");

# Switchover: writes stop on A; B detaches, moves its keys above the rows
# (as setval() after a switchover for serials), and takes the writes.
$b->safe_psql('postgres', 'DROP SUBSCRIPTION s');
my %max_a = map { $_ => $a->safe_psql('postgres', "SELECT max(id) FROM $_") } @tables;
for my $t (@tables)
{
	my $seq = $b->safe_psql('postgres', "SELECT sequence FROM id_gen.hilo_keys WHERE table_name = '$t'::regclass");
	cmp_ok($b->safe_psql('postgres', "SELECT setval('$seq', max(id)) FROM $t"), '>=', $max_a{$t},
		"setval() on B moves the key of $t above the replicated rows");
}
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
(my $keys_but_b_local = $keys_sql) =~ s/ORDER BY/WHERE table_name <> 'b_local'::regclass ORDER BY/;
is($b->safe_psql('postgres', $keys_but_b_local), $a->safe_psql('postgres', $keys_sql),
	'B\'s keys of the replicated tables are A\'s, as they were');
$b->safe_psql('postgres', 'INSERT INTO b_local (v) SELECT g FROM generate_series(1, 200) g');
is($b->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM b_local'), 't',
	'b_local keeps drawing unique ids');

$a->stop;
$b->stop;
done_testing();
