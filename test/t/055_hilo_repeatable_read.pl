# Databases whose default isolation is REPEATABLE READ or SERIALIZABLE
# (issue 25, finding 3), with a key made concurrently with writers.  Such a
# transaction takes its snapshot at its first statement, before the lock
# its DDL then waits for.  hilo_create_key() reads the table's ids with the
# latest snapshot once it holds the lock that keeps writers out, so a key
# made while a writer holding ids above the table's rows commits during the
# wait starts above those rows, which the DDL's old snapshot does not show.
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
	CREATE TABLE late (id bigint PRIMARY KEY DEFAULT hilo_next('late'), v text);
	CREATE TABLE made (id bigint PRIMARY KEY, v text);
	ALTER DATABASE postgres SET default_transaction_isolation = 'repeatable read';
});

# A writer holds explicit ids above the rows while the key's DDL waits.
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
concurrent('late', "BEGIN; SELECT 1; SELECT hilo_create_key('late'); COMMIT;", 'repeatable read');
concurrent('made', "BEGIN; SELECT 1; ALTER TABLE made ALTER id SET DEFAULT hilo_next('made'); SELECT hilo_create_key('made', 'id'); COMMIT;", 'serializable');
$node->stop;
done_testing();
