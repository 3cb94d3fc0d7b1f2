# The timeuuid sort support reports its abbreviated-key decisions under
# trace_sort, as core's uuid does: the HyperLogLog estimate stops once many
# distinct keys were seen, and abbreviation is abandoned when nearly every key
# repeats.  The logging depends on how the server declares trace_sort
# (TRACE_SORT up to 17, always from 18: src/pg/compat.hpp); this test fails if
# it compiles out on any version.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('trace_sort');
$node->init;
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

# The server log written by $sql alone.
sub log_of
{
	my ($sql) = @_;
	my $offset = -s $node->logfile;
	$node->safe_psql('postgres', "SET work_mem = '64MB'; SET trace_sort = on; $sql");
	return substr(slurp_file($node->logfile), $offset);
}

# 200,000 distinct values one millisecond apart: 200,000 distinct abbreviations.
my $log = log_of(q{
	SELECT v FROM (SELECT timeuuid_min(timestamptz '2024-01-01' + n * interval '1 ms') AS v
	                 FROM generate_series(200000, 1, -1) n) g
	 ORDER BY v OFFSET 199999});
like($log, qr/timeuuid_abbrev: estimation ends at cardinality \d/,
	'many distinct keys: the cardinality estimate stops, abbreviation stays');
unlike($log, qr/timeuuid_abbrev: aborting/, 'and is not abandoned');

# 20,000 rows of 4 distinct values: abbreviation does not pay.
$log = log_of(q{
	SELECT v FROM (SELECT timeuuid_min(timestamptz '2024-01-01' + (n % 4) * interval '1 day') AS v
	                 FROM generate_series(1, 20000) n) g
	 ORDER BY v OFFSET 19999});
like($log, qr/timeuuid_abbrev: aborting abbreviation at cardinality \d/,
	'few distinct keys: abbreviation is abandoned');

# Without trace_sort nothing is logged.
my $offset = -s $node->logfile;
$node->safe_psql('postgres', q{SET work_mem = '64MB';
	SELECT v FROM (SELECT timeuuid_min(timestamptz '2024-01-01' + (n % 4) * interval '1 day') AS v
	                 FROM generate_series(1, 20000) n) g
	 ORDER BY v OFFSET 19999});
unlike(substr(slurp_file($node->logfile), $offset), qr/timeuuid_abbrev/, 'trace_sort off: silent');

$node->stop;
done_testing();
