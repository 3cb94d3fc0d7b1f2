# Databases whose default isolation is REPEATABLE READ or SERIALIZABLE
# (issue 25, finding 3), with the DDL of keys running concurrently with
# writers.  Such a transaction takes its snapshot at its first statement,
# before the lock its DDL then waits for.
#  1. A first insert waits for a hilo_bind_table() in progress (before,
#     the key worker then missed the committed binding and made a key of
#     the table's own sequence as well: hilo_next handed out the ORM's ids).
#     Now the binding is the table's default, read when the insert gets its
#     lock: every id comes through the hi row's formula, none from the
#     ORM's block.
#  2. A key made, or moved by hilo_set_floor(), while a writer holding ids
#     above the table's rows commits during the wait: the key must start
#     above those rows, which the DDL's old snapshot does not show.
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
	CREATE TABLE late (id bigint PRIMARY KEY, v text);
	CREATE TABLE floored (id bigint PRIMARY KEY DEFAULT hilo_next('floored'), v text);
	CREATE TABLE made (id bigint PRIMARY KEY, v text);
	ALTER DATABASE postgres SET default_transaction_isolation = 'repeatable read';
});

# 1. The ORM's binding, in a transaction left open.
my $orm = $node->background_psql('postgres');
$orm->query_safe('BEGIN');
$orm->query_safe("SELECT hilo_bind_table('rr', 'rr_hi', 'next_hi', 10)");

my $app = $node->background_psql('postgres', on_error_stop => 0);
$app->query_until(qr/started/, "\\echo started\nINSERT INTO rr (who) VALUES ('app');\n");
ok($node->poll_query_until('postgres',
	"SELECT EXISTS (SELECT FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = 'postgres')"),
	'the first insert waits for the binding');
$orm->query_safe('COMMIT');
$orm->quit;
$app->quit;
$node->safe_psql('postgres', "INSERT INTO rr (who) VALUES ('app, again')");
my $parked = $node->safe_psql('postgres', 'SELECT next_hi FROM rr_hi');

is($node->safe_psql('postgres', "SELECT strategy, max_lo, own_sequence, hi_table FROM id_gen.hilo_keys WHERE table_name = 'rr'::regclass"),
	'legacy|10|t|public.rr_hi', 'one key, bound to the hi row');
# Legacy with max_lo 10: hi h holds h*11 .. h*11+10.  Hi 100 was the row's
# before the binding; the row now holds a value no hilo_next draws.
is($node->safe_psql('postgres', "SELECT count(*) FILTER (WHERE id / 11 <= 100 OR id / 11 = $parked), count(*) FROM rr"),
	'0|2', 'no id from the ORM\'s blocks, before or after the binding');

# 2. A writer holds explicit ids above the rows while the key's DDL waits.
sub concurrent
{
	my ($table, $ddl, $isolation) = @_;
	my $w = $node->background_psql('postgres');
	$w->query_safe("BEGIN; INSERT INTO $table VALUES (5000, 'writer')");
	my $d = $node->background_psql('postgres');
	$d->query_until(qr/ddl/, "SET default_transaction_isolation = '$isolation';\n\\echo ddl\n$ddl\n");
	$node->poll_query_until('postgres', qq{
		SELECT count(*) = 1 FROM pg_locks WHERE relation = '$table'::regclass AND NOT granted})
	  or die "$ddl did not wait for the writer";
	$w->query_safe('COMMIT');
	$w->quit;
	$d->quit;
	my ($ret, $out, $err) = $node->psql('postgres', "INSERT INTO $table (v) VALUES ('after') RETURNING id");
	is($ret, 0, "$isolation, $table: an insert after the DDL") or diag($err);
	cmp_ok($out || 0, '>', 5000, "$isolation, $table: the key lies above the writer's id committed during the wait");
}
concurrent('late', "ALTER TABLE late ALTER id SET DEFAULT hilo_next('late');", 'repeatable read');
concurrent('made', "BEGIN; SELECT hilo_create_key('made', 'id'); COMMIT;", 'serializable');
concurrent('floored', "SELECT hilo_set_floor('floored');", 'repeatable read');
$node->stop;
done_testing();
