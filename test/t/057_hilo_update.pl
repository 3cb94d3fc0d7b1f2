# ALTER EXTENSION id_gen UPDATE from every earlier version (1.0 to 1.3)
# converts every Hi/Lo key into 1.4's (a sequence OWNED BY the column, the
# formula in the column's default) and hands out no id twice.
#
# The library is 1.4's, whose hilo_next() draws only from keys in the 1.4
# form: under an earlier version's SQL it can no longer make a key.  So each
# database is brought into the state the earlier library left, by the
# statements that library ran as the extension owner (src/pg/hilo/worker.cpp
# and catalog.cpp before 1.4): a row of id_gen.hilo_key per key, an own key's
# sequence id_gen.hilo_seq_<n> (MINVALUE 0 START 0, SELECT granted to
# PUBLIC) numbered by id_gen.hilo_seq_counter, a block per nextval() of it;
# from 1.3 a row of id_gen.hilo_orm_key per key served by an ORM's hi table.
# Every id those blocks hold counts as handed out.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_update');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE ROLE alice LOGIN;
	CREATE ROLE mallory LOGIN;
});

# The members of the extension (schema-qualified identities, as
# sql/upgrade.sql reads them) and the definitions of its functions and views.
my $members = q{
	SELECT count(*) || ' ' || md5(string_agg(obj, E'\n' ORDER BY obj)) FROM (
	  SELECT (SELECT type || ' ' || identity FROM pg_identify_object(classid, objid, objsubid)) AS obj
	    FROM pg_depend
	   WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	     AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'id_gen')
	     AND NOT (classid = 'pg_type'::regclass
	              AND objid IN (SELECT typarray FROM pg_type UNION ALL
	                            SELECT reltype FROM pg_class WHERE relkind <> 'c'))) m};
my $definitions = q{
	SELECT md5(string_agg(def, E'\n' ORDER BY def)) FROM (
	  SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p
	    JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	   WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND p.prokind <> 'a'
	  UNION ALL
	  SELECT pg_get_viewdef(c.oid) FROM pg_class c
	    JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid
	   WHERE c.relkind = 'v' AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e') x};
# The tables and sequences whose data pg_dump dumps.
my $config = q{
	SELECT array(SELECT c::regclass::text FROM pg_extension, unnest(extconfig) AS c
	              WHERE extname = 'id_gen' ORDER BY 1)};
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION id_gen');
my $fresh_members = $node->safe_psql('fresh', $members);
my $fresh_definitions = $node->safe_psql('fresh', $definitions);
my $fresh_config = $node->safe_psql('fresh', $config);

# The ids of the block of hi value $v: [first, last].
sub block
{
	my ($strategy, $v, $size) = @_;
	return [ $v * $size, $v * $size + $size - 1 ] if $strategy eq 'classic';
	return [ $v * ($size + 1), $v * ($size + 1) + $size ] if $strategy eq 'legacy';
	return [ $v, $v + $size - 1 ] if $strategy eq 'pooled_lo';
	die "strategy $strategy";
}

for my $version ('1.0', '1.1', '1.2', '1.3')
{
	my $db = "v$version";
	$db =~ s/\./_/;
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	my %issued;    # table => [ [first, last] ... ] handed out before the update
	my $sql = sub { $node->safe_psql($db, $_[0]) };

	$sql->("CREATE EXTENSION id_gen VERSION '$version'");
	# An own key as the earlier library made it at the table's first use,
	# for table $table (owned by $owner) on the extension owner's behalf.
	my $own_key = sub {
		my ($table, $max_lo, $adaptive) = @_;
		my $n = $sql->("SELECT nextval('id_gen.hilo_seq_counter')");
		$sql->(qq{
			CREATE SEQUENCE id_gen.hilo_seq_$n AS bigint MINVALUE 0 START 0 NO CYCLE;
			GRANT SELECT ON SEQUENCE id_gen.hilo_seq_$n TO PUBLIC;
			INSERT INTO id_gen.hilo_key (relid, seq, strategy, max_lo, own_seq)
			VALUES ('$table', 'id_gen.hilo_seq_$n', 'classic', $max_lo, true);
		});
		$sql->("UPDATE id_gen.hilo_key SET adaptive = $adaptive WHERE relid = '$table'::regclass")
		  if $version eq '1.3';
		return "id_gen.hilo_seq_$n";
	};
	# A block drawn from an own key: nextval(), every id of it handed out.
	my $draw = sub {
		my ($table, $seq, $strategy, $size) = @_;
		my $v = $sql->("SELECT nextval('$seq')");
		push @{ $issued{$table} }, block($strategy, $v, $size);
		return $v;
	};

	# An own key in public, with rows from two blocks and one row loaded with
	# an explicit id above them (1.3 checked the table's ids at each draw).
	$sql->("CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'), v int)");
	my $t_seq = $own_key->('t', 100, 'true');
	$draw->('t', $t_seq, 'classic', 100);
	$draw->('t', $t_seq, 'classic', 100);
	$sql->("INSERT INTO t (id) VALUES (1), (2), (99), (100), (150), (5000)");
	push @{ $issued{t} }, [ 5000, 5000 ];

	# A key of a table of a non-superuser in a schema other than public.
	$sql->(q{
		CREATE SCHEMA "App S" AUTHORIZATION alice;
		SET ROLE alice;
		CREATE TABLE "App S"."Line" (id bigint PRIMARY KEY DEFAULT hilo_next('"App S"."Line"'), v int);
		RESET ROLE;
	});
	my $a_seq = $own_key->('"App S"."Line"', 10, 'false');
	$draw->('"App S"."Line"', $a_seq, 'classic', 10);
	$sql->(q{INSERT INTO "App S"."Line" (id) VALUES (1), (2), (3)});

	# A key bound to the application's sequence (pooled_lo, block = INCREMENT).
	$sql->(q{
		CREATE SEQUENCE app_seq INCREMENT 10;
		CREATE TABLE b (id bigint PRIMARY KEY DEFAULT hilo_next('b'), v int);
		INSERT INTO id_gen.hilo_key (relid, seq, strategy, max_lo, own_seq)
		VALUES ('b', 'public.app_seq', 'pooled_lo', 10, false);
	});
	$draw->('b', 'app_seq', 'pooled_lo', 10) for 1 .. 2;
	$sql->("INSERT INTO b (id) VALUES (1), (11)");

	# A partitioned table's key; its partition's copied default names it.
	$sql->(q{
		CREATE TABLE p (id bigint DEFAULT hilo_next('p'), v int) PARTITION BY RANGE (v);
		CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (0) TO (1000);
	});
	my $p_seq = $own_key->('p', 50, 'false');
	$draw->('p', $p_seq, 'classic', 50);
	$sql->("INSERT INTO p (id, v) VALUES (1, 1), (49, 2)");

	# A table whose key no draw had made yet, with rows of explicit ids.
	# (A sequence of the user's has the name serial's naming gives first.)
	$sql->("CREATE TABLE n (id bigint PRIMARY KEY DEFAULT hilo_next('n'), v int)");
	$sql->("CREATE SEQUENCE n_id_seq");
	$sql->("INSERT INTO n (id) VALUES (1), (2), (7)");
	push @{ $issued{n} }, [ 1, 7 ];

	# A key whose table has no column defaulting to hilo_next('z') (drawn
	# from by hilo_next('z') in application code).
	$sql->("CREATE TABLE z (id bigint PRIMARY KEY)");
	my $z_seq = $own_key->('z', 100, 'false');
	$draw->('z', $z_seq, 'classic', 100) for 1 .. 3;

	# Another role's views on the old key table and on a key's sequence
	# (a view needs no privilege on what it reads).
	$sql->(qq{
		CREATE SCHEMA m AUTHORIZATION mallory;
		SET ROLE mallory;
		CREATE VIEW m.keys AS SELECT * FROM id_gen.hilo_key;
		CREATE VIEW m.t_hi AS SELECT last_value FROM $t_seq;
		RESET ROLE;
	}) if $version ge '1.2';

	# From 1.3, a key served by an ORM's hi table: the ORM (and hilo_next,
	# through the key worker) used hi values up to the row's, 7.
	if ($version eq '1.3')
	{
		$sql->(q{
			CREATE TABLE hibernate_unique_key (next_hi integer);
			INSERT INTO hibernate_unique_key VALUES (7);
			CREATE TABLE o (id bigint PRIMARY KEY DEFAULT hilo_next('o'), v int);
			INSERT INTO id_gen.hilo_orm_key (relid, hi_table, hi_column, strategy, max_lo)
			VALUES ('o', 'public.hibernate_unique_key', 'next_hi', 'legacy', 100);
			INSERT INTO o (id) VALUES (0), (101), (707);
			SET ROLE mallory;
			CREATE VIEW m.orm_keys AS SELECT * FROM id_gen.hilo_orm_key;
			RESET ROLE;
		});
		push @{ $issued{o} }, [ 0, block('legacy', 7, 100)->[1] ];
	}
	# From 1.3, a table of text ids (hilo_next_text: <table>/<n>-<node tag>).
	if ($version eq '1.3')
	{
		$sql->("CREATE TABLE x (id text PRIMARY KEY DEFAULT hilo_next_text('x'), v int)");
		my $x_seq = $own_key->('x', 10, 'false');
		$draw->('x', $x_seq, 'classic', 10);
		$sql->("INSERT INTO x (id) VALUES ('x/1-A'), ('x/2-A')");
	}
	# From 1.3 (a key row names its sequence in text), a key whose sequence a
	# partial restore or a subscriber lacks, which 1.3 made again above the
	# table's ids at its next use; and an ORM key whose hi table is gone.
	if ($version eq '1.3')
	{
		$sql->(q{
			CREATE TABLE q (id bigint PRIMARY KEY DEFAULT hilo_next('q'), v int);
			INSERT INTO id_gen.hilo_key (relid, seq, strategy, max_lo, own_seq)
			VALUES ('q', 'id_gen.hilo_seq_999', 'classic', 100, true);
			INSERT INTO q (id) VALUES (1), (40);
			CREATE TABLE o2 (id bigint PRIMARY KEY DEFAULT hilo_next('o2'), v int);
			INSERT INTO id_gen.hilo_orm_key (relid, hi_table, hi_column, strategy, max_lo)
			VALUES ('o2', 'public.gone_hi', 'next_hi', 'legacy', 100);
			INSERT INTO o2 (id) VALUES (5), (250);
		});
		push @{ $issued{q} }, [ 1, 40 ];
		push @{ $issued{o2} }, [ 5, 250 ];
	}
	my $z_last = $sql->("SELECT last_value FROM $z_seq");
	my @tables = ('t', '"App S"."Line"', 'b', 'n', 'p', ($version eq '1.3' ? ('o', 'x', 'q', 'o2') : ()));

	my ($ret, $out, $err) = $node->psql($db, 'ALTER EXTENSION id_gen UPDATE');
	is($ret, 0, "$version: ALTER EXTENSION id_gen UPDATE succeeds") or diag($err);
	is($sql->("SELECT extversion FROM pg_extension WHERE extname = 'id_gen'"), '1.4',
		"$version: at 1.4");
	if ($version ge '1.2')
	{
		# From 1.2 the 1.2 to 1.3 step changes a column the view reads, from
		# 1.3 the update to 1.4 drops the table: either leaves it to the view.
		like($err,
			$version eq '1.2'
			? qr/table id_gen\.hilo_key of 1\.2 is kept as id_gen\.hilo_key_1_2, outside the extension/
			: qr/table id_gen\.hilo_key is no longer used: other objects depend on it, so it is kept as id_gen\.hilo_key_before_1_4, outside the extension/,
			"$version: the key table another role's view reads is kept, renamed, with a WARNING");
		is($node->safe_psql($db, 'SET ROLE mallory; SELECT count(*) > 0 FROM m.keys'), 't',
			"$version: that view still reads it");
		like($err, qr/table id_gen\.hilo_orm_key is no longer used: other objects depend on it, so it is kept as id_gen\.hilo_orm_key_before_1_4/,
			"$version: so is the ORM key table")
		  if $version eq '1.3';
	}
	like($err, qr/no column of table public.z defaults to hilo_next\('public.z'\): the sequence of its Hi\/Lo key is kept as public.z_hilo_seq, at 2/,
		"$version: a key no default states keeps its sequence, with a WARNING");
	is($sql->("SELECT last_value FROM z_hilo_seq"), $z_last, "$version: at its position");
	like($err, qr/the ORM hi table public\.gone_hi of table public\.o2 does not exist: its Hi\/Lo key now draws from a sequence of its own/,
		"$version: an ORM key whose hi table is gone gets a sequence of its own, with a WARNING")
	  if $version eq '1.3';

	# Every key is now a default in the full form, exactly as the library
	# writes it: turning adaptive over and back rewrites each default by
	# hilo_key_expression(), and the text does not change.
	is($sql->("SELECT count(*) FROM id_gen.hilo_keys"), scalar(@tables), "$version: every key listed");
	is($sql->(q{
		SELECT count(*) FROM pg_attrdef d
		 WHERE pg_get_expr(d.adbin, d.adrelid) ~ '^hilo_next\([^,]*\)$'}), '0',
		"$version: no default left in the short form");
	for my $table (@tables)
	{
		my $expr = "SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = '$table'::regclass";
		my $before = $sql->($expr);
		$sql->("SELECT hilo_set_adaptive('$table', NOT adaptive) FROM id_gen.hilo_keys WHERE table_name = '$table'::regclass");
		$sql->("SELECT hilo_set_adaptive('$table', NOT adaptive) FROM id_gen.hilo_keys WHERE table_name = '$table'::regclass");
		is($sql->($expr), $before, "$version: default of $table written as the library writes it");
	}
	is($sql->(q{SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 't'::regclass}),
		"hilo_next('t'::regclass, 't_id_seq'::regclass, 'classic'::text, 100, "
		  . ($version eq '1.3' ? 'true' : 'false') . ", NULL::text)",
		"$version: an own key's default names its sequence, strategy, max_lo and adaptive");
	is($sql->(q{SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'x'::regclass}),
		"hilo_next_text('x'::regclass, hilo_next('x'::regclass, 'x_id_seq'::regclass, 'classic'::text, 10, false, NULL::text))",
		"$version: a text id's default wraps its key")
	  if $version eq '1.3';
	is($sql->(q{SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'b'::regclass}),
		"hilo_next('b'::regclass, 'app_seq'::regclass, 'pooled_lo'::text, NULL::integer, false, NULL::text)",
		"$version: a bound key's default names the application's sequence");

	# Own sequences: the table's schema, its owner, OWNED BY the column,
	# MINVALUE 0, NO CYCLE, nothing granted to PUBLIC, not a member.
	my @own = ('t', '"App S"."Line"', 'n', 'p', ($version eq '1.3' ? ('o', 'x', 'q', 'o2') : ()));
	for my $table (@own)
	{
		is($sql->(qq{
			SELECT k.sequence = pg_get_serial_sequence('$table', 'id')::regclass
			       AND s.relnamespace = c.relnamespace AND s.relowner = c.relowner
			       AND q.seqmin = 0 AND NOT q.seqcycle AND k.own_sequence
			       AND s.relname ~ ('^' || c.relname || '_id_seq[0-9]*\$')
			       AND NOT EXISTS (SELECT 1 FROM aclexplode(s.relacl) a WHERE a.grantee = 0)
			       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = s.oid AND d.deptype = 'e')
			  FROM id_gen.hilo_keys k JOIN pg_class c ON c.oid = k.table_name
			  JOIN pg_class s ON s.oid = k.sequence JOIN pg_sequence q ON q.seqrelid = s.oid
			 WHERE k.table_name = '$table'::regclass}), 't',
			"$version: the sequence of $table is its column's, in its schema, of its owner");
	}
	is($sql->(q{SELECT sequence FROM id_gen.hilo_keys WHERE table_name = 'n'::regclass}), 'n_id_seq1',
		"$version: a name taken gets a suffix, as serial's does");
	is($sql->(q{SELECT relowner::regrole FROM pg_class WHERE oid = '"App S"."Line_id_seq"'::regclass}),
		'alice', "$version: the sequence of alice's table is alice's");
	is($sql->(q{SELECT count(*) FROM pg_class WHERE relnamespace = 'id_gen'::regnamespace
		AND (relname IN ('hilo_key', 'hilo_orm_key', 'hilo_seq_counter') OR relname ~ '^hilo_(seq_[0-9]|update)')}), '0',
		"$version: nothing of the old design left in id_gen");
	is($sql->($members), $fresh_members, "$version: the extension's members are a fresh install's");
	is($sql->($definitions), $fresh_definitions, "$version: with the same definitions");
	is($sql->($config), $fresh_config, "$version: and the same configuration dumped");

	# Inserts from several sessions (alice's for her table) repeat no id.
	my %new;
	for my $session (1 .. 3)
	{
		for my $table (@tables)
		{
			my $role = $table =~ /App S/ ? 'SET ROLE alice; ' : '';
			my $id = $table eq 'x' ? '(hilo_parse_text(id)).n' : 'id';
			my $ids = $sql->("${role}INSERT INTO $table (v) SELECT g FROM generate_series(1, 30) g RETURNING $id");
			push @{ $new{$table} }, split /\n/, $ids;
		}
	}
	# The partition draws from its table's key.
	is($sql->(q{SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 'p1'::regclass}),
		"hilo_next('p'::regclass, 'p_id_seq'::regclass, 'classic'::text, 50, false, NULL::text)",
		"$version: the partition's default names its table's key");
	push @{ $new{p} }, split /\n/,
	  $sql->("INSERT INTO p1 (v) SELECT g FROM generate_series(1, 30) g RETURNING id");
	if ($version eq '1.3')
	{
		# The ORM reads its hi row and writes it plus one; it uses what it read.
		for (1 .. 2)
		{
			my $hi = $sql->('SELECT next_hi FROM hibernate_unique_key');
			$sql->('UPDATE hibernate_unique_key SET next_hi = next_hi + 1');
			my $blk = block('legacy', $hi, 100);
			push @{ $new{o} }, $blk->[0] .. $blk->[1];
		}
	}
	for my $table (@tables)
	{
		my @ids = @{ $new{$table} };
		my %seen;
		my @dup = grep { $seen{$_}++ } @ids;
		is(scalar(@dup), 0, "$version: no id of $table handed out twice after the update");
		my @old = grep {
			my $id = $_;
			grep { $id >= $_->[0] && $id <= $_->[1] } @{ $issued{$table} || [] }
		} @ids;
		is(scalar(@old), 0, "$version: no id of $table handed out before the update comes again")
		  or diag("reissued: @old[0 .. ($#old < 5 ? $#old : 5)]");
	}

	# A dump of the updated database restores into a new one whose keys go on.
	my $dump = $node->basedir . "/$db.dump";
	$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr($db), '-f', $dump ], "$version: pg_dump");
	$node->safe_psql('postgres', "CREATE DATABASE ${db}_restored");
	$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr("${db}_restored"), $dump ],
		"$version: pg_restore");
	for my $table (@tables)
	{
		my $id = $table eq 'x' ? '(hilo_parse_text(id)).n' : 'id';
		my $max = $sql->("SELECT max($id) FROM $table");
		($ret, $out, $err) = $node->psql("${db}_restored",
			"INSERT INTO $table (v) SELECT g FROM generate_series(1, 30) g RETURNING $id > $max");
		is($ret, 0, "$version: restored, $table takes new rows") or diag($err);
		unlike($out, qr/f/, "$version: restored, the new ids of $table lie above the dumped ones");
	}
}

# The extension in a schema whose name needs quotes: the defaults name its
# functions there.
$node->safe_psql('postgres', 'CREATE DATABASE gen_schema');
$node->safe_psql('gen_schema', q{
	CREATE SCHEMA "Gen S";
	CREATE EXTENSION id_gen SCHEMA "Gen S" VERSION '1.1';
	CREATE TABLE t (id bigint PRIMARY KEY DEFAULT "Gen S".hilo_next('t'), v int);
	CREATE SEQUENCE id_gen.hilo_seq_1 AS bigint MINVALUE 0 START 0 NO CYCLE;
	SELECT nextval('id_gen.hilo_seq_counter');
	GRANT SELECT ON SEQUENCE id_gen.hilo_seq_1 TO PUBLIC;
	INSERT INTO id_gen.hilo_key VALUES ('t', 'id_gen.hilo_seq_1', 'classic', 10, true);
	SELECT nextval('id_gen.hilo_seq_1');
	INSERT INTO t (id) VALUES (1), (9);
	ALTER EXTENSION id_gen UPDATE;
});
is($node->safe_psql('gen_schema', q{SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adrelid = 't'::regclass}),
	q{"Gen S".hilo_next('t'::regclass, 't_id_seq'::regclass, 'classic'::text, 10, false, NULL::text)},
	'extension in another schema: the default names its function there');
$node->safe_psql('gen_schema', 'INSERT INTO t (v) SELECT g FROM generate_series(1, 30) g');
is($node->safe_psql('gen_schema', 'SELECT min(id) FROM t WHERE v IS NOT NULL'),
	'10', 'extension in another schema: the key goes on above its block');

# Node ranges (id_gen.hilo_node_ranges): the earlier library placed an own
# key's sequence in this node's range; rows replicated from another node lie
# in that node's range.  The converted key stays in this node's range, above
# what it handed out.
$node->append_conf('postgresql.conf', "id_gen.hilo_node_ranges = on\nid_gen.worker_id = 2\n");
$node->reload;
$node->safe_psql('postgres', 'CREATE DATABASE ranges');
$node->safe_psql('ranges', q{
	CREATE EXTENSION id_gen VERSION '1.3';
	CREATE TABLE r (id bigint PRIMARY KEY DEFAULT hilo_next('r'), v int);
	CREATE SEQUENCE id_gen.hilo_seq_1 AS bigint MINVALUE 0 START 0 NO CYCLE;
	SELECT nextval('id_gen.hilo_seq_counter');
	GRANT SELECT ON SEQUENCE id_gen.hilo_seq_1 TO PUBLIC;
	INSERT INTO id_gen.hilo_key (relid, seq, strategy, max_lo, own_seq) VALUES ('r', 'id_gen.hilo_seq_1', 'classic', 100, true);
	SELECT setval('id_gen.hilo_seq_1', (SELECT first_id / 100 + 1 FROM hilo_node_range(2)), false);
});
my ($first, $last) = split /\|/, $node->safe_psql('ranges', 'SELECT first_id, last_id FROM hilo_node_range(2)');
my $hi = $node->safe_psql('ranges', "SELECT nextval('id_gen.hilo_seq_1')");
$node->safe_psql('ranges', "INSERT INTO r (id) VALUES (3), (${hi}00), (${hi}01), ((SELECT first_id + 5 FROM hilo_node_range(1)))");
$node->safe_psql('ranges', 'ALTER EXTENSION id_gen UPDATE');
my @ids = split /\n/, $node->safe_psql('ranges', 'INSERT INTO r (v) SELECT g FROM generate_series(1, 30) g RETURNING id');
is(scalar(grep { $_ < $first || $_ > $last } @ids), 0, 'node ranges: the converted key draws in this node\'s range');
is(scalar(grep { $_ >= $hi * 100 && $_ <= $hi * 100 + 99 } @ids), 0,
	'node ranges: above the block it handed out before the update');

$node->stop;
done_testing();
