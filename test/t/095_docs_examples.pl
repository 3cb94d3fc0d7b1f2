# The SQL examples of the documentation run as shown.  Per page (docs/*.md
# and README.md, or the pages named in IDGEN_DOCS), in a fresh database of
# a server with shared_preload_libraries = 'id_gen' and test/regress.conf's
# settings, after CREATE EXTENSION id_gen run by a superuser: every ```sql
# block in order, each with psql -X as that superuser (unless it says SET
# ROLE or \c).
#  - A ```text block right after it is its output, exactly as psql -X prints
#    it (trailing spaces and blank lines at either end aside; "psql:...: "
#    before an ERROR left out); after a line <!-- output varies --> only its
#    shape: the number of lines, the header lines (column names), the
#    separator lines and the first word of ERROR/WARNING/NOTICE lines.
#  - A block without an output block fails if it raises an ERROR.
#  - A block after a line <!-- not run --> is skipped (ALTER SYSTEM, a
#    restart: what cannot run here).
# The database and the roles a page made are dropped after it.
use strict;
use warnings;
use File::Temp qw(tempfile);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my @pages = $ENV{IDGEN_DOCS} ? split(' ', $ENV{IDGEN_DOCS}) : ((sort glob('docs/*.md')), 'README.md');

my $node = PostgreSQL::Test::Cluster->new('docs');
$node->init;
$node->append_conf('postgresql.conf', slurp_file('test/regress.conf'));
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'id_gen'\n");
$node->start;

# The blocks of a page: [kind, text, line, varies, not_run] for each fence.
sub blocks
{
	my ($file) = @_;
	my @lines = split /\n/, slurp_file($file), -1;
	my (@blocks, $cur, $mark);
	for my $i (0 .. $#lines)
	{
		my $l = $lines[$i];
		if ($cur)
		{
			if ($l =~ /^```\s*$/) { push @blocks, $cur; $cur = undef; }
			else { $cur->{text} .= "$l\n"; }
			next;
		}
		if ($l =~ /^```(\w*)/)
		{
			$cur = { kind => $1, text => '', line => $i + 1, mark => $mark // '' };
			$mark = undef;
		}
		elsif ($l =~ /<!--\s*(output varies|not run)\s*-->/) { $mark = $1; }
		elsif ($l =~ /\S/) { $mark = undef; }
	}
	# The text right after an sql block is its output.
	for my $i (0 .. $#blocks)
	{
		$blocks[$i]{output} = $blocks[$i + 1]
		  if $blocks[$i]{kind} eq 'sql' && $i < $#blocks && $blocks[$i + 1]{kind} eq 'text'
		  && $blocks[$i + 1]{line} == next_fence_line($file, $blocks[$i]);
	}
	return @blocks;
}

# Only blank lines and a marker may stand between a block and its output.
my %page_lines;
sub next_fence_line
{
	my ($file, $b) = @_;
	$page_lines{$file} //= [ split /\n/, slurp_file($file), -1 ];
	my $lines = $page_lines{$file};
	my $i = $b->{line} + ($b->{text} =~ tr/\n//) + 1;    # the closing fence, 1-based index - 1
	for (; $i < @$lines; $i++)
	{
		next if $lines->[$i] =~ /^\s*$/ || $lines->[$i] =~ /<!--\s*output varies\s*-->/;
		return $lines->[$i] =~ /^```/ ? $i + 1 : -1;
	}
	return -1;
}

sub normalize
{
	my ($text) = @_;
	my @l = map { s/\s+$//r } split /\n/, $text;
	s/^psql:[^:]*:\d+: (ERROR|WARNING|NOTICE|INFO|DETAIL|HINT):/$1:/ for @l;
	shift @l while @l && $l[0] eq '';
	pop @l while @l && $l[-1] eq '';
	return @l;
}

# The shape of output whose values vary.
sub shape
{
	my @l = @_;
	my @s;
	for my $i (0 .. $#l)
	{
		if ($l[$i] =~ /^-+(\+-+)*$/) { push @s, 'separator ' . ($l[$i] =~ tr/+//); }
		elsif ($i < $#l && $l[$i + 1] =~ /^-+(\+-+)*$/) { push @s, 'header ' . join('|', map { s/^\s+|\s+$//gr } split /\|/, $l[$i]); }
		elsif ($l[$i] =~ /^(ERROR|WARNING|NOTICE|INFO|DETAIL|HINT):/) { push @s, $1; }
		else { push @s, 'line'; }
	}
	return @s;
}

sub show_diff
{
	my ($want, $got) = @_;
	my ($fh1, $f1) = tempfile(UNLINK => 1);
	my ($fh2, $f2) = tempfile(UNLINK => 1);
	print $fh1 $want;
	print $fh2 $got;
	close $fh1;
	close $fh2;
	return scalar `diff -u --label expected --label actual $f1 $f2`;
}

my $roles = q{SELECT string_agg(quote_ident(rolname), ',' ORDER BY rolname) FROM pg_roles};
for my $page (@pages)
{
	my @blocks = blocks($page);
	my $nsql = grep { $_->{kind} eq 'sql' } @blocks;
	if (!$nsql)
	{
		pass("$page: no SQL example");
		next;
	}
	my $db = lc('docs_' . ($page =~ s{.*/}{}r =~ s/\W/_/gr));
	my %before = map { $_ => 1 } split /,/, $node->safe_psql('postgres', $roles);
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, 'CREATE EXTENSION id_gen');
	my $n = 0;
	for my $b (@blocks)
	{
		next unless $b->{kind} eq 'sql';
		$n++;
		my $where = "$page: sql block $n (line $b->{line})";
		if ($b->{mark} eq 'not run')
		{
			pass("$where: not run");
			next;
		}
		my ($fh, $file) = tempfile(UNLINK => 1);
		print $fh $b->{text};
		close $fh;
		my $got = '';
		eval {
			IPC::Run::run([ 'psql', '-X', '-d', $node->connstr($db), '-f', $file ],
				'<', \undef, '>&', \$got, IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
		};
		$got .= "\nERROR:  the block did not end: $@" if $@;
		$got =~ s/\Q$file\E/block/g;
		my @got = normalize($got);
		if (my $o = $b->{output})
		{
			my @want = normalize($o->{text});
			my ($w, $g) = $o->{mark} eq 'output varies'
			  ? (join("\n", shape(@want)), join("\n", shape(@got)))
			  : (join("\n", @want), join("\n", @got));
			ok($w eq $g, "$where: output as shown" . ($o->{mark} eq 'output varies' ? ' (shape)' : ''))
			  or diag("$where:\n" . show_diff(join("\n", @want) . "\n", join("\n", @got) . "\n"));
		}
		else
		{
			my @err = grep { /^ERROR:/ } @got;
			ok(!@err, "$where: runs without ERROR") or diag("$where:\n" . join("\n", @got));
		}
	}
	$node->safe_psql('postgres', "DROP DATABASE $db WITH (FORCE)");
	for my $r (grep { !$before{$_} } split /,/, $node->safe_psql('postgres', $roles))
	{
		my ($ret, $out, $err) = $node->psql('postgres', "DROP ROLE $r");
		is($ret, 0, "$page: role $r it made is dropped after it") or diag($err);
	}
}

$node->stop;
done_testing();
