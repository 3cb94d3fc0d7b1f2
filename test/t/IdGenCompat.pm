# Helpers for the TAP tests: what differs between the PostgreSQL versions
# id_gen supports (15 to 18) in the test framework or in core settings, so
# that each test reads, and checks, the same on every version.
package IdGenCompat;

use strict;
use warnings;
use Exporter 'import';

our @EXPORT = qw(query_line force_parallel_setting);

# $session->query_safe($sql) as psql -At prints it, without a trailing
# newline.  The BackgroundPsql of older minor releases (16.2 among them)
# leaves the newline in; 15.20's and 18's remove it.
sub query_line
{
	my ($session, $sql) = @_;
	my $out = $session->query_safe($sql);
	$out =~ s/\n\z//;
	return $out;
}

# The setting that runs a query in a parallel worker even when the plan would
# not: force_parallel_mode up to 15, renamed debug_parallel_query in 16.
sub force_parallel_setting
{
	my ($node) = @_;
	return $node->pg_version >= 16 ? 'debug_parallel_query' : 'force_parallel_mode';
}

1;
