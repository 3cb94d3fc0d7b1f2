# Bulk loads with explicit ids into a table whose key is in use, seen from
# a new session and from a session that holds a block drawn before the
# load.  What is promised (docs/hilo.md, Guarantees, "Ids already in the
# table"), as for a sequence and setval() after a load:
#  - a block drawn before the load is used to its end without looking at
#    the table: ids loaded above id_gen.hilo_keys.reserved_to never meet it;
#  - no draw reads the table: the owner's hilo_set_floor() after the load
#    moves the key, and every block drawn after it starts above the largest
#    id in the key's column (it waits for a load still in progress).
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
});

# A session holding a block (1..999, next id 2).
my $old = $node->background_psql('postgres');
is(query_line($old, "SELECT hilo_next('t')"), '1', 'the old session holds the first block');
my $reserved = $node->safe_psql('postgres',
	"SELECT reserved_to FROM id_gen.hilo_keys WHERE table_name = 't'::regclass");
is($reserved, '999', 'reserved_to: the highest id any session may hold');

# A bulk load above reserved_to, with COPY, then the owner moves the key.
my $copy = "COPY t (id, v) FROM STDIN;\n"
  . join('', map { "$_\tload\n" } 5000 .. 6000) . "\\.\n";
$node->safe_psql('postgres', $copy);
is($node->safe_psql('postgres', "SELECT hilo_set_floor('t') > 6000"), 't', 'hilo_set_floor() after the load');

# The old session finishes its block (2..999: below the load), then draws
# above the load.
my $ok = eval {
	$old->query_safe("INSERT INTO t (v) SELECT 'old' FROM generate_series(1, 5000)");
	1;
};
ok($ok, 'the old session inserts 5000 rows past its block without a collision') or diag($@);
is($node->safe_psql('postgres', "SELECT max(id) FROM t WHERE v = 'old' AND id < 5000"), '999',
	'it used its block to the end');
cmp_ok($node->safe_psql('postgres', "SELECT min(id) FROM t WHERE v = 'old' AND id > 999"), '>', 6000,
	'and its next block starts above the load');

# A new session: above everything.
my $max = $node->safe_psql('postgres', 'SELECT max(id) FROM t');
cmp_ok($node->safe_psql('postgres', "INSERT INTO t (v) VALUES ('new') RETURNING id"), '>', $max,
	'a new session starts above the largest id');

# A load still in progress (not committed): hilo_set_floor() reads the
# table under a lock that keeps writers out, so it waits for the load to
# end and then moves the key above it.
my $loader = $node->background_psql('postgres');
$loader->query_safe('BEGIN');
$loader->query_safe("INSERT INTO t SELECT g, 'open load' FROM generate_series(100000, 100500) g");
my $floor = $node->background_psql('postgres');
$floor->query_until(qr/flooring/, "\\echo flooring\nSELECT hilo_set_floor('t');\n");
ok($node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM pg_locks WHERE relation = 't'::regclass AND mode = 'ShareLock' AND NOT granted}),
	'hilo_set_floor() during an uncommitted load waits for it');
$loader->query_safe('COMMIT');
$loader->quit;
$floor->quit;
my $during = $node->safe_psql('postgres', "INSERT INTO t (v) VALUES ('during') RETURNING id");
cmp_ok($during, '>', 100500, 'then moves the key above the load: the next block starts above it');

# Without hilo_set_floor() no draw looks at the table: a load above
# reserved_to is met by the key's later blocks (as a sequence's values meet
# rows loaded above it before setval()), so the owner moves the key.
$reserved = $node->safe_psql('postgres',
	"SELECT reserved_to FROM id_gen.hilo_keys WHERE table_name = 't'::regclass");
my $ahead = $reserved + 1500;
$node->safe_psql('postgres', "INSERT INTO t VALUES ($ahead, 'ahead')");
my $next = $node->safe_psql('postgres', "INSERT INTO t (v) VALUES ('no floor') RETURNING id");
cmp_ok($next, '<', $ahead, 'a draw does not read the table: the key goes on where it stood');
$old->quit;

is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM t'), 't', 'no duplicates');
$node->stop;
done_testing();
