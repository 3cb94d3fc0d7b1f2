# A database whose default isolation is REPEATABLE READ (issue 25, finding
# 3).  A first use of a key waits for a hilo_bind_table() in progress; the
# key worker took its snapshot before that wait, missed the binding once
# committed, and made the table a key of its own sequence as well: hilo_next
# then handed out ids of the ORM's block.  The worker's transactions are
# READ COMMITTED whatever the defaults say, so it sees the binding: no own
# key is made, and every id hilo_next hands out comes from the hi row.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_repeatable_read');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE rr (id bigint PRIMARY KEY DEFAULT hilo_next('rr'), who text);
	CREATE TABLE rr_hi (next_hi integer);
	INSERT INTO rr_hi VALUES (100);
	ALTER DATABASE postgres SET default_transaction_isolation = 'repeatable read';
});

# The ORM's binding, in a transaction left open.
my $orm = $node->background_psql('postgres');
$orm->query_safe('BEGIN');
$orm->query_safe("SELECT hilo_bind_table('rr', 'rr_hi', 'next_hi', 10)");

# The first insert: it waits for the binding (in a key worker).
my $app = $node->background_psql('postgres', on_error_stop => 0);
$app->query_until(qr/started/, "\\echo started\nINSERT INTO rr (who) VALUES ('app');\n");
ok($node->poll_query_until('postgres',
	"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = 'postgres')"),
	'the first use waits for the binding');
$orm->query_safe('COMMIT');
$orm->quit;
# Whatever the waiting insert did (an id, or an error: the key is bound),
# the next one draws through the binding.
$app->quit;
$node->safe_psql('postgres', "INSERT INTO rr (who) VALUES ('app, again')");

is($node->safe_psql('postgres', "SELECT count(*) FROM id_gen.hilo_key WHERE relid = 'rr'::regclass"),
	'0', 'no key of its own sequence was made for the bound table');
# Hi 100 of legacy with max_lo 10 holds 1100 .. 1110.
is($node->safe_psql('postgres', 'SELECT bool_and(id BETWEEN 1100 AND 1110), count(*) > 0 FROM rr'),
	't|t', 'every id came from the hi row');
$node->stop;
done_testing();
