# With wal_level = minimal, a sequence created or rewritten in a transaction
# is not WAL-logged there: its page is written whole at the commit, with the
# count of values nextval() believes pre-logged, so after the commit up to 32
# values are drawn with no WAL record, and a crash gives them again (a
# serial's too).  For a key each of them is a block.  A draw from such a
# sequence leaves that count at zero, so the first draw after the commit
# writes its record, and no id of a committed row comes again.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_wal_minimal');
$node->init;
$node->append_conf('postgresql.conf', "wal_level = minimal\nmax_wal_senders = 0");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

# The migration makes the table and its key and seeds rows in one
# transaction; a reload keyed by TRUNCATE ... RESTART IDENTITY is the same.
$node->safe_psql('postgres', q{
	BEGIN;
	CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT hilo_next('orders'::regclass), note text);
	SELECT hilo_create_key('orders');
	INSERT INTO orders (note) VALUES ('seed 1'), ('seed 2');
	COMMIT;
	CREATE TABLE loads (id bigint PRIMARY KEY DEFAULT hilo_next('loads'::regclass), note text);
	SELECT hilo_create_key('loads', max_lo => 10);
	BEGIN;
	TRUNCATE loads RESTART IDENTITY;
	INSERT INTO loads (note) SELECT 'load' FROM generate_series(1, 5);
	COMMIT;
});

# Later transactions, committed, each in its own session.
$node->safe_psql('postgres', "INSERT INTO orders (note) SELECT 'app' FROM generate_series(1, 3000)");
$node->safe_psql('postgres', "INSERT INTO loads (note) SELECT 'app' FROM generate_series(1, 40)")
  for 1 .. 3;
my $orders_max = $node->safe_psql('postgres', 'SELECT max(id) FROM orders');
my $loads_max = $node->safe_psql('postgres', 'SELECT max(id) FROM loads');

$node->stop('immediate');
$node->start;

is($node->safe_psql('postgres', 'SELECT count(*) FROM orders'), '3002', 'the committed orders survived');
cmp_ok($node->safe_psql('postgres', "INSERT INTO orders (note) VALUES ('after') RETURNING id"),
	'>', $orders_max, 'the first order after the crash lies above every committed one');
cmp_ok($node->safe_psql('postgres', "INSERT INTO loads (note) VALUES ('after') RETURNING id"),
	'>', $loads_max, 'and the first row after the reload and the crash too');
$node->safe_psql('postgres', "INSERT INTO orders (note) SELECT 'more' FROM generate_series(1, 3000)");
is($node->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM orders'), 't',
	'no order id is in two rows');

$node->stop;
done_testing();
