# decimal_id() generator ids are never taken twice on a server, whatever
# happens to the extension's objects: a generator id names one run of one
# generator, and the counter restarts at 1 under each new one.
#
# Adversarial variants of 020_clock_floor_restart.pl (restarts of one
# installation): DROP EXTENSION and CREATE EXTENSION (which recreates the
# database's id_gen.decimal_generator sequence from 0) followed by a
# restart, and a second database of the same server.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dec_reinstall');
$node->init;
$node->append_conf('postgresql.conf', "id_gen.launch_id = 7\n");
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen; CREATE TABLE ids (db text, id bigint UNIQUE)');
$node->safe_psql('postgres', "INSERT INTO ids SELECT 'postgres', decimal_id() FROM generate_series(1, 100)");

# The extension goes and comes back; the table and its ids stay.
$node->safe_psql('postgres', 'DROP EXTENSION id_gen; CREATE EXTENSION id_gen');
$node->restart;
my ($ret, $out, $err) = $node->psql('postgres',
	"INSERT INTO ids SELECT 'postgres', decimal_id() FROM generate_series(1, 100)");
is($ret, 0, 'after DROP and CREATE EXTENSION and a restart, decimal_id() repeats no id') or diag($err);
is($node->safe_psql('postgres',
	'SELECT count(DISTINCT (decimal_id_decode(id)).generator_id) FROM ids'),
	'2', 'the new run has a generator id of its own');

# A crash after the reinstall: still a new generator id.
$node->safe_psql('postgres', 'DROP EXTENSION id_gen; CREATE EXTENSION id_gen');
$node->stop('immediate');
$node->start;
($ret, $out, $err) = $node->psql('postgres',
	"INSERT INTO ids SELECT 'postgres', decimal_id() FROM generate_series(1, 100)");
is($ret, 0, 'after a reinstall and a crash, no id repeats either') or diag($err);

# Another database of the server never shares a generator id with this one,
# so the two databases' ids can be merged into one table.
$node->safe_psql('other', 'CREATE EXTENSION id_gen');
my $other = $node->safe_psql('other', 'SELECT string_agg(decimal_id()::text, \',\') FROM generate_series(1, 100)');
($ret, $out, $err) = $node->psql('postgres',
	"INSERT INTO ids SELECT 'other', unnest('{$other}'::bigint[])");
is($ret, 0, 'a second database\'s decimal ids differ from the first\'s') or diag($err);
is($node->safe_psql('postgres',
	"SELECT count(*) FROM (SELECT (decimal_id_decode(id)).generator_id g FROM ids GROUP BY 1 HAVING count(DISTINCT db) > 1) s"),
	'0', 'no generator id is used by two databases');

$node->stop;
done_testing();
