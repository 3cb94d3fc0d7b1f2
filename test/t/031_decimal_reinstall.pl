# decimal_id() and the extension's own objects: a database's counter is
# reserved ahead in its sequence id_gen.decimal_counter and its generator id
# is claimed at CREATE EXTENSION, so DROP EXTENSION and CREATE EXTENSION
# claim a new generator id (above the old one, which the database's setting
# still names) and recreate the sequence from 0.
#
# While the server runs, the shared memory slot still knows the reserved
# end, and the first reservation raises the new sequence above it: no id
# repeats, across a later restart or crash too.  A reinstall with a restart
# in between (the sequence dropped, the slot gone) starts the counter again,
# under the new generator id: ids repeat nothing but stop increasing.  A
# second database never shares a generator id with the first.
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

# The extension goes and comes back while the server runs; the table stays.
$node->safe_psql('postgres', 'DROP EXTENSION id_gen; CREATE EXTENSION id_gen');
my ($ret, $out, $err) = $node->psql('postgres',
	"INSERT INTO ids SELECT 'postgres', decimal_id() FROM generate_series(1, 100)");
is($ret, 0, 'after DROP and CREATE EXTENSION, decimal_id() repeats no id') or diag($err);
is($node->safe_psql('postgres',
	'SELECT (SELECT last_value FROM id_gen.decimal_counter) >= max((decimal_id_decode(id)).counter) FROM ids'),
	't', 'the new sequence was raised above the counter of the old one');
is($node->safe_psql('postgres',
	'SELECT count(DISTINCT (decimal_id_decode(id)).generator_id) FROM ids'),
	'2', 'the reinstall claimed a new generator id');

# So a restart and a crash after the reinstall repeat nothing either.
$node->restart;
($ret, $out, $err) = $node->psql('postgres',
	"INSERT INTO ids SELECT 'postgres', decimal_id() FROM generate_series(1, 100)");
is($ret, 0, 'after the reinstall and a restart, no id repeats') or diag($err);
$node->stop('immediate');
$node->start;
($ret, $out, $err) = $node->psql('postgres',
	"INSERT INTO ids SELECT 'postgres', decimal_id() FROM generate_series(1, 100)");
is($ret, 0, 'after a crash, no id repeats') or diag($err);

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

# DROP EXTENSION drops the counter's sequence; with a restart before CREATE
# EXTENSION nothing remembers it, and the counter starts again, as a
# sequence dropped and created again would, but under a new generator id.
$node->safe_psql('postgres', 'DROP EXTENSION id_gen');
$node->restart;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');
is($node->safe_psql('postgres', 'SELECT (decimal_id_decode(decimal_id())).counter'),
	'1', 'a reinstall across a restart starts the counter again');
($ret, $out, $err) = $node->psql('postgres',
	"INSERT INTO ids SELECT 'postgres', decimal_id() FROM generate_series(1, 100)");
is($ret, 0, 'under a new generator id: no id repeats') or diag($err);

$node->stop;
done_testing();
