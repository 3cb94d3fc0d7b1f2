# docs/reference.md and the catalog agree: the page lists every function
# (name and argument types), setting (id_gen.*) and view of the extension,
# and nothing that is not there.  The page's "## Functions", "## Settings"
# and "## Views" sections hold tables whose rows start with the object in
# backquotes: `name(type, ...)` (schema-qualified outside public; argument
# types as SQL writes them, with or without argument names, modes and
# defaults), `id_gen.setting`, `id_gen.view`.  Left
# out of the functions: those that implement a type's I/O, an operator, an
# operator class or an aggregate's steps, and trigger and event-trigger
# functions (the page lists the type, operators and aggregates they serve);
# settings of test builds (id_gen.test_*).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $page = $ENV{IDGEN_REFERENCE} // 'docs/reference.md';
my $node = PostgreSQL::Test::Cluster->new('reference');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'id_gen'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION id_gen');

my (%doc, $section);
for my $l (split /\n/, slurp_file($page))
{
	if ($l =~ /^## (Functions|Settings|Views)\s*$/) { $section = lc $1; next; }
	if ($l =~ /^## /) { $section = undef; next; }
	next unless $section && $l =~ /^\|\s*`([^`]+)`/;
	push @{ $doc{$section} }, $1;
}

my $member = q{d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')};
my $catalog_functions = $node->safe_psql('postgres', qq{
	SELECT p.oid::regprocedure FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	 WHERE $member
	   AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
	   AND p.oid NOT IN (SELECT typinput FROM pg_type UNION SELECT typoutput FROM pg_type
	                     UNION SELECT typreceive FROM pg_type UNION SELECT typsend FROM pg_type
	                     UNION SELECT oprcode FROM pg_operator UNION SELECT amproc FROM pg_amproc
	                     UNION SELECT aggtransfn FROM pg_aggregate UNION SELECT aggcombinefn FROM pg_aggregate)
	 ORDER BY 1::text});
my %catalog = (
	functions => [ split /\n/, $catalog_functions ],
	settings => [ split /\n/, $node->safe_psql('postgres',
		q{SELECT name FROM pg_settings WHERE name LIKE 'id_gen.%' AND name NOT LIKE 'id_gen.test\_%' ORDER BY 1}) ],
	views => [ split /\n/, $node->safe_psql('postgres', qq{
		SELECT c.oid::regclass FROM pg_class c JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
		 WHERE $member AND c.relkind = 'v' ORDER BY 1::text}) ]);

# A function the page names, as the catalog spells it ('': no such
# function).  An argument may carry a name, a mode and a default
# (`f(ts timestamptz DEFAULT now(), OUT x bigint)`); OUT arguments are no
# part of a function's identity.
# The functions the page names, as the catalog spells them ('': no such
# function), in one session.  An argument may carry a name, a mode and a
# default (`f(ts timestamptz DEFAULT now(), OUT x bigint)`); OUT arguments
# are no part of a function's identity.
my %resolved;
{
	my @sigs = @{ $doc{functions} // [] };
	my @calls;
	for my $sig (@sigs)
	{
		my ($name, $args) = $sig =~ /^\s*([\w.]+)\((.*)\)\s*$/;
		if (!defined $name) { $resolved{$sig} = ''; next; }
		my @args;
		for my $a (split /,/, $args)
		{
			$a =~ s/\s+DEFAULT\s.*//i;
			$a =~ s/^\s+|\s+$//g;
			next if $a eq '' || $a =~ /^OUT\s/i;
			$a =~ s/^(IN|VARIADIC)\s+//i;
			push @args, "pg_temp.arg(\$q\$$a\$q\$)";
		}
		push @calls, "SELECT \$q\$$sig\$q\$, pg_temp.proc(\$q\$$name(\$q\$ || "
		  . (@args ? "concat_ws(',', " . join(', ', @args) . ')' : "''") . " || ')')";
	}
	my $out = $node->safe_psql('postgres', q{
		CREATE FUNCTION pg_temp.regtype(a text) RETURNS text LANGUAGE plpgsql AS $f$
		BEGIN RETURN to_regtype(a)::text; EXCEPTION WHEN OTHERS THEN RETURN NULL; END $f$;
		CREATE FUNCTION pg_temp.proc(a text) RETURNS text LANGUAGE plpgsql AS $f$
		BEGIN RETURN coalesce(to_regprocedure(a)::text, ''); EXCEPTION WHEN OTHERS THEN RETURN ''; END $f$;
		-- A type, else a name and a type ('?': neither).
		CREATE FUNCTION pg_temp.arg(a text) RETURNS text LANGUAGE sql AS $f$
		SELECT coalesce(pg_temp.regtype(a), pg_temp.regtype(regexp_replace(a, '^\S+\s+', '')), '?') $f$;
	} . join(";\n", @calls) . ';');
	for my $l (split /\n/, $out)
	{
		my ($sig, $r) = split /\|/, $l, 2;
		$resolved{$sig} = $r // '';
	}
}

for my $kind (qw(functions settings views))
{
	my @listed = @{ $doc{$kind} // [] };
	ok(@listed > 0, "$page lists $kind");
	my %on_page;
	for my $item (@listed)
	{
		my $name = $kind eq 'functions' ? $resolved{$item} // '' : $item;
		if ($kind eq 'functions' && $name eq '')
		{
			fail("$page: $item is no function of the server");
			next;
		}
		$on_page{$name} = $item;
	}
	my %in_catalog = map { $_ => 1 } @{ $catalog{$kind} };
	my @missing = grep { !$on_page{$_} } @{ $catalog{$kind} };
	my @extra = grep { !$in_catalog{$_} } sort keys %on_page;
	is(join("\n", @missing), '', "$page lists every one of the extension's $kind")
	  or diag("not on the page:\n  " . join("\n  ", @missing));
	is(join("\n", map { $on_page{$_} } @extra), '', "$page lists only the extension's own $kind")
	  or diag("on the page, not in the catalog:\n  " . join("\n  ", map { $on_page{$_} } @extra));
}

$node->stop;
done_testing();
