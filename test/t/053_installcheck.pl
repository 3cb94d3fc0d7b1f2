# make installcheck against a running server of initdb's defaults (no
# preloading, max_prepared_transactions = 0, no id_gen settings), as the
# Makefile offers it: the tests it runs there pass, twice in a row on the
# same server (server-wide state such as decimal_id()'s generator ids is not
# reset between runs), and they leave the server's configuration as it was.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Cwd qw(abs_path);
use File::Basename qw(dirname);

my $root = abs_path(dirname(__FILE__) . '/../..');
my $node = PostgreSQL::Test::Cluster->new('installcheck');
$node->init;
$node->start;
is($node->safe_psql('postgres', 'SHOW max_prepared_transactions'), '0', 'an ordinary server: no prepared transactions');
is($node->safe_psql('postgres', 'SHOW shared_preload_libraries'), '', 'an ordinary server: nothing preloaded');
my $auto_conf = slurp_file($node->data_dir . '/postgresql.auto.conf');

# A copy of what make installcheck reads, so that its results/ and
# regression.diffs stay out of the tree make test works in.
my $work = "$PostgreSQL::Test::Utils::tmp_check/installcheck";
mkdir $work;
mkdir "$work/test";
system_or_bail('cp', '-a', map("$root/$_", qw(Makefile id_gen.control sql expected)), $work);
system_or_bail('cp', '-a', map("$root/test/$_", qw(regress.conf specs expected)), "$work/test");

local $ENV{PGHOST} = $node->host;
local $ENV{PGPORT} = $node->port;
local $ENV{PGUSER} = scalar(getpwuid($<));
for my $run (1, 2)
{
	my ($out, $err) = ('', '');
	my $ok = IPC::Run::run([ 'make', '-C', $work, 'installcheck' ], '>', \$out, '2>', \$err, IPC::Run::timeout(240));
	ok($ok, "make installcheck passes (run $run)")
	  or diag("$out\n$err\n" . (-e "$work/regression.diffs" ? slurp_file("$work/regression.diffs") : '')
		  . (-e "$work/output_iso/regression.diffs" ? slurp_file("$work/output_iso/regression.diffs") : ''));
	my @passed = $out =~ /All (\d+) tests passed/g;
	is(scalar(@passed), 2, "run $run: regression and isolation tests both ran")
	  or diag($out);
}
is(slurp_file($node->data_dir . '/postgresql.auto.conf'), $auto_conf, "the server's configuration is untouched");

$node->stop;
done_testing();
