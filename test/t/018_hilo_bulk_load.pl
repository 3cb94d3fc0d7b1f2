# Bulk loads with explicit ids into a table whose key is in use, seen from
# a new session and from a session that holds a block drawn before the
# load.  What is promised, as for a serial and setval() after a load:
#  - a block drawn before the load is used to its end without looking at
#    the table: ids loaded above id_gen.hilo_keys.reserved_to never meet it;
#  - no draw reads the table: setval(seq, max(id)) after the load moves the
#    key, and every block drawn after it starts above the largest id;
#  - hilo_create_key() reads the table under a lock that keeps writers out:
#    it waits for a load in progress and starts the key above it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdGenCompat;

my $node = PostgreSQL::Test::Cluster->new('hilo_bulk_load');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'), v text);
	SELECT hilo_create_key('t');
});

# A session holding a block (the first value is the one id 1, then 2 .. 1001).
my $old = $node->background_psql('postgres');
is(query_line($old, "SELECT hilo_next('t') + hilo_next('t')"), '3', 'the old session holds a block');
my $reserved = $node->safe_psql('postgres',
	"SELECT reserved_to FROM id_gen.hilo_keys WHERE table_name = 't'::regclass");
is($reserved, '1001', 'reserved_to: the highest id any session may hold');

# A bulk load above reserved_to, with COPY, then setval(seq, max(id)).
my $copy = "COPY t (id, v) FROM STDIN;\n"
  . join('', map { "$_\tload\n" } 5000 .. 6000) . "\\.\n";
$node->safe_psql('postgres', $copy);
is($node->safe_psql('postgres', "SELECT setval(pg_get_serial_sequence('t', 'id'), max(id)) FROM t"), '6000',
	'setval(seq, max(id)) after the load');

# The old session finishes its block (3..1001: below the load), then draws
# above the load.
my $ok = eval {
	$old->query_safe("INSERT INTO t (v) SELECT 'old' FROM generate_series(1, 5000)");
	1;
};
ok($ok, 'the old session inserts 5000 rows past its block without a collision') or diag($@);
is($node->safe_psql('postgres', "SELECT max(id) FROM t WHERE v = 'old' AND id < 5000"), '1001',
	'it used its block to the end');
cmp_ok($node->safe_psql('postgres', "SELECT min(id) FROM t WHERE v = 'old' AND id > 1001"), '>', 6000,
	'and its next block starts above the load');

# A new session: above everything.
my $max = $node->safe_psql('postgres', 'SELECT max(id) FROM t');
cmp_ok($node->safe_psql('postgres', "INSERT INTO t (v) VALUES ('new') RETURNING id"), '>', $max,
	'a new session starts above the largest id');

# Without setval() no draw looks at the table: a load above reserved_to is
# met by the key's later blocks (as a sequence's values meet rows loaded
# above it before setval()).
$reserved = $node->safe_psql('postgres',
	"SELECT reserved_to FROM id_gen.hilo_keys WHERE table_name = 't'::regclass");
my $ahead = $reserved + 1500;
$node->safe_psql('postgres', "INSERT INTO t VALUES ($ahead, 'ahead')");
my $next = $node->safe_psql('postgres', "INSERT INTO t (v) VALUES ('no setval') RETURNING id");
cmp_ok($next, '<', $ahead, 'a draw does not read the table: the key goes on where it stood');
$old->quit;
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM t'), 't', 'no duplicates');

# A load still in progress (not committed) when the key is made:
# hilo_create_key() waits for it, then starts above it.
$node->safe_psql('postgres', 'CREATE TABLE u (id bigint PRIMARY KEY, v text)');
my $loader = $node->background_psql('postgres');
$loader->query_safe('BEGIN');
$loader->query_safe("INSERT INTO u SELECT g, 'open load' FROM generate_series(100000, 100500) g");
my $maker = $node->background_psql('postgres');
$maker->query_until(qr/making/, "\\echo making\nALTER TABLE u ALTER id SET DEFAULT hilo_next('u'); SELECT hilo_create_key('u');\n");
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM pg_locks WHERE relation = 'u'::regclass AND NOT granted}),
	'hilo_create_key() during an uncommitted load waits for it');
$loader->query_safe('COMMIT');
$loader->quit;
$maker->quit;
cmp_ok($node->safe_psql('postgres', "INSERT INTO u (v) VALUES ('after') RETURNING id"), '>', 100500,
	'then makes the key above the load');
$node->stop;
done_testing();
