# A streaming standby: it refuses to generate while in recovery (it carries
# the primary's worker id and launch id), and once promoted it continues
# above the clock floor and generator ids replicated from the primary, even
# with its clock behind the primary's.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf',
	"id_gen.worker_id = 4\nid_gen.launch_id = 7\n");
$primary->start;
$primary->safe_psql('postgres',
	'CREATE EXTENSION id_gen; CREATE TABLE ids (origin text, sf bigint UNIQUE, dec bigint UNIQUE)');
$primary->safe_psql('postgres', "INSERT INTO ids SELECT 'primary', snowflake_next(), decimal_id() FROM generate_series(1, 20000)");

$primary->backup('bk');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'bk', has_streaming => 1);
# The standby's clock is 300 ms behind the primary's.
$standby->append_conf('postgresql.conf', "id_gen.test_clock_offset_ms = -300\n");
$standby->start;

# More ids on the primary after the standby was cloned.
$primary->safe_psql('postgres', "INSERT INTO ids SELECT 'primary', snowflake_next(), decimal_id() FROM generate_series(1, 20000)");
$primary->wait_for_catchup($standby);

for my $f ('snowflake_next()', 'decimal_id()', 'snowflake_next_batch(5)')
{
	my ($ret, $out, $err) = $standby->psql('postgres', "SELECT $f", extra_params => ['-v', 'VERBOSITY=verbose']);
	isnt($ret, 0, "$f refused on a standby in recovery");
	like($err, qr/25006: .* cannot be executed during recovery/, "$f: SQLSTATE 25006 during recovery");
}
my ($ret, $out, $err) = $standby->psql('postgres', 'SELECT snowflake_next()');
like($err, qr/HINT:  .*pg_basebackup inherits id_gen.worker_id/, 'the hint warns that a clone inherits the worker id');
is($standby->safe_psql('postgres', 'SELECT count(*) FROM ids'), '40000', 'the standby replayed the ids');

# Failover: the primary dies right after its last ids.
$primary->safe_psql('postgres', "INSERT INTO ids SELECT 'primary', snowflake_next(), decimal_id() FROM generate_series(1, 20000)");
$primary->wait_for_catchup($standby);
$primary->stop('immediate');
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()') or die 'promotion failed';

# Generation resumes on the promoted standby; the UNIQUE constraints hold.
$standby->safe_psql('postgres', "INSERT INTO ids SELECT 'promoted', snowflake_next(), decimal_id() FROM generate_series(1, 20000)");
is($standby->safe_psql('postgres',
	"SELECT (SELECT min(sf) FROM ids WHERE origin = 'promoted') > (SELECT max(sf) FROM ids WHERE origin = 'primary')"),
	't', 'snowflake ids of the promoted standby are above all of the primary, clock 300 ms behind or not');
is($standby->safe_psql('postgres',
	"SELECT (SELECT min((decimal_id_decode(dec)).counter) FROM ids WHERE origin = 'promoted')"
	. " > (SELECT max((decimal_id_decode(dec)).counter) FROM ids WHERE origin = 'primary')"),
	't', 'the promoted standby continues the replicated decimal_id counter above the primary\'s');
is($standby->safe_psql('postgres', 'SELECT count(*), count(DISTINCT sf), count(DISTINCT dec) FROM ids'),
	'80000|80000|80000', 'no duplicate across the failover');

$standby->stop;
done_testing();
