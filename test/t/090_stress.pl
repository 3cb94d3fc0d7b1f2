# A seeded, randomized stress harness for the product's one promise: an id is
# handed out once, and the time-ordered streams never go backwards, across
# ROLLBACK, PREPARE TRANSACTION, crashes, restarts and a failover.
#
# Every id any client receives (committed, rolled back, prepared, or only
# SELECTed) is recorded here in Perl with its generator, phase (the server's
# life between two starts, or the standby's life in recovery), session,
# statement and operation.  At the end:
#   - no id repeats (snowflake and timeuuid: anywhere; decimal_id: per
#     database; hilo: per database and key), rolled-back ids included;
#   - within a phase, snowflake and timeuuid ids increase strictly in the
#     order the statements ran, across all sessions and both databases of the
#     server (the harness runs one statement at a time, so every later call
#     started after every earlier one returned); decimal ids likewise per
#     database; hilo ids per session and key;
#   - every snowflake and timeuuid id of a phase is above every id of the
#     phases before it (after a crash, a restart, a promotion) of the same
#     database (the floor is kept per database: across a restart with the
#     clock set back the two databases are not ordered, see
#     docs/snowflake.md);
#   - one decimal_id generator id per database for its life (every phase),
#     never shared by the two databases;
#   - each table holds exactly the rows whose transaction committed.
#
# Environment:
#   ID_GEN_STRESS_SEED=N        replay a run (default: time-based, printed)
#   ID_GEN_STRESS_SECONDS=N     time for the random rounds (default 30; the
#                               file then takes about a minute); 600 for a long
#                               run, which also makes more crashes
#   ID_GEN_STRESS_ROUNDS=a,b,.. rounds per phase (a run's summary prints the
#                               list: with the seed it replays the same ops)
#   ID_GEN_STRESS_SKIP=x,y      leave adversities out: restart promotion clock
#                               parallel prepared savepoint readonly maxlo bind
#                               db2 hold quiet
#   ID_GEN_STRESS_DUMP=file     write every recorded id (tab-separated) there,
#                               with each op's SQL in file.ops, for debugging
#
# Documented behaviour is expected, not a failure: ERROR 25006 for
# snowflake_next(), decimal_id() and a block-less hilo_next() in a read-only
# transaction or on a standby; timeuuids
# made where the floor cannot be written (read-only, parallel mode, standby)
# are covered by a plain timeuuid_next() in the same session right after, as
# README's clock-floor section requires.  Any other ERROR is a failure.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdGenCompat;
use Time::HiRes ();

my $t_start = Time::HiRes::time();

# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------
my $seed = $ENV{ID_GEN_STRESS_SEED};
$seed = (int(Time::HiRes::time() * 1000) ^ ($$ << 10)) % 1_000_000_000
  unless defined $seed && $seed ne '';
die "ID_GEN_STRESS_SEED must be a non-negative integer\n" unless $seed =~ /^\d+$/;
my $seconds = $ENV{ID_GEN_STRESS_SECONDS} // '';
$seconds = 30 if $seconds eq '';
die "ID_GEN_STRESS_SECONDS must be a positive integer\n"
  unless $seconds =~ /^\d+$/ && $seconds > 0;
my @known_skips =
  qw(restart promotion clock parallel prepared savepoint readonly maxlo bind db2 hold quiet);
my %skip;
# force_parallel_mode, or debug_parallel_query from 16: set with the first node.
my $force_parallel;
for my $w (split /[\s,]+/, $ENV{ID_GEN_STRESS_SKIP} // '')
{
	next if $w eq '';
	die "unknown ID_GEN_STRESS_SKIP item '$w' (known: @known_skips)\n"
	  unless grep { $_ eq $w } @known_skips;
	$skip{$w} = 1;
}
my @rounds_env;
if (defined $ENV{ID_GEN_STRESS_ROUNDS} && $ENV{ID_GEN_STRESS_ROUNDS} ne '')
{
	@rounds_env = split /,/, $ENV{ID_GEN_STRESS_ROUNDS};
	die "ID_GEN_STRESS_ROUNDS must be a comma-separated list of counts\n"
	  if grep { !/^\d+$/ } @rounds_env;
}

srand($seed);
sub rnd    { return int(rand($_[0])); }
sub pick   { return $_[ rnd(scalar @_) ]; }
sub chance { return rand() < $_[0]; }
sub rows   { return pick(1, 1, 2, 3, 5, 8, 13, 40, 100, 250); }

my $WORKER_ID = 5;
my $LAUNCH_ID = 42;
my $MAX_BACK = 600;     # how far the harness sets the clock behind the last id
my $FLOOR_STEP = 1000;  # IDGEN_FLOOR_STEP_MS
my $SF_EPOCH_MS = 1477958400000;    # 2016-11-01T00:00:00Z
my $QUERY_TIMEOUT = 150;

# Adversities between phases: crashes (immediate stop), clean restarts in
# long runs, and one promotion of the standby (the old primary is discarded).
my $n_adv = $seconds <= 60 ? 4 : int($seconds / 15);
my @schedule;
{
	my $promote_at =
	  $skip{promotion} ? -1 : $skip{restart} ? 0 : int($n_adv / 2);
	for my $i (0 .. $n_adv - 1)
	{
		if ($i == $promote_at) { push @schedule, 'promote'; }
		elsif (!$skip{restart})
		{
			push @schedule, ($i % 5 == 4 ? 'restart' : 'crash');
		}
	}
}
my $n_main_phases = @schedule + 1;
my $phase_secs = $seconds / $n_main_phases;
my $preload = chance(0.5);
my $has_db2 = !$skip{db2};
my ($n1, $n2) = (2 + rnd(2), $has_db2 ? 1 + rnd(2) : 0);    # sessions per database
my @dbs = ('postgres', $has_db2 ? ('stress2') : ());

my $replay_hint = sub {
	my $r = "ID_GEN_STRESS_SEED=$seed ID_GEN_STRESS_SECONDS=$seconds";
	$r .= " ID_GEN_STRESS_SKIP=" . join(',', sort keys %skip) if %skip;
	return $r;
};
note "id_gen stress: seed $seed, $seconds s of rounds, adversities: @schedule"
  . ($preload ? ', shared_preload_libraries = id_gen' : ', not preloaded')
  . (%skip ? ', skipping: ' . join(',', sort keys %skip) : '');
note "replay with: " . $replay_hint->();

sub now_ms { return int(Time::HiRes::time() * 1000); }

# ---------------------------------------------------------------------------
# Bookkeeping
# ---------------------------------------------------------------------------
# Every id handed out to a client: its value in @val, its statement in @rg.
# A statement (a "group") returns ids of one generator and knows the rest:
# {gen, dom (uniqueness domain), ph (phase), inst (session), op, part (of
# the transaction; 'x' = not stored), tbl, fl (flags), db, par (parallel:
# no order among its own ids)}.  Kept this lean for long runs.
my (@val, @rg);
my @grp = (undef);
my @ops;          # op number -> {desc, sess, phase, round}
my @phases;       # {label, srv, anc => [phase indexes], rounds}
my @unexpected;   # failures found while running (unexpected errors etc.)
my %expected_err; # SQLSTATE -> count
my %committed;    # db -> table -> value -> 1
my %uncertain;    # db -> table -> value -> 1 (an unexpected error hid the outcome)
my %prepared;     # gid -> {db, rows => [[db, tbl, val], ...]}
my %binding;      # db -> {seq, strategy, size}: t_hb's committed binding
my $app_seq_no = 0;
my $x_table_no = 0;
my $round_no = 0;
my %opcount;

my %tbl_gen = (t_sf => 'sf', t_tu => 'tu', t_dec => 'dec', t_h => 'h',
	t_hp => 'h', t_hp_hi => 'h', t_hb => 'h');
my %tbl_parent = (t_hp_hi => 't_hp');
my @ins_tables = qw(t_sf t_tu t_dec t_h t_hp t_hp_hi t_hb);
my @hilo_keys = qw(t_h t_hp t_hb);
my %gen_name = (sf => 'snowflake', tu => 'timeuuid', dec => 'decimal_id', h => 'hilo');

sub parent { return $tbl_parent{ $_[0] } // $_[0]; }

sub id_ms
{
	my ($gen, $v) = @_;
	return ($v >> 22) + $SF_EPOCH_MS if $gen eq 'sf';
	no warnings 'portable';    # 48-bit hex is fine on 64-bit Perl
	return hex(substr($v, 0, 8) . substr($v, 9, 4)) if $gen eq 'tu';
	return undef;
}

sub gt_id
{
	my ($gen, $a, $b) = @_;
	return $gen eq 'tu' ? ($a gt $b) : ($a > $b);
}

sub dec_generator { use integer; return ($_[0] / 100000) % 100000; }
sub dec_launch    { use integer; return $_[0] % 100000; }

sub G { return $grp[ $rg[ $_[0] ] ]; }

sub describe
{
	my ($i) = @_;
	my $g = G($i);
	my $op = $ops[ $g->{op} ];
	return sprintf("%s %s (phase %s, %s, op %d round %d: %s; statement %d, %s%s)%s",
		$gen_name{ $g->{gen} }, $val[$i], $phases[ $g->{ph} ]{label},
		$op->{sess}, $g->{op}, $op->{round}, $op->{desc}, $rg[$i],
		$g->{part} eq 'x' ? 'not stored' : "row of $g->{tbl} part $g->{part}",
		$g->{gen} eq 'h' ? ", key $g->{dom}" : '', $g->{fl} ? " [$g->{fl}]" : '');
}

# ---------------------------------------------------------------------------
# Servers, phases, sessions
# ---------------------------------------------------------------------------
my %srv;    # A (primary), B (standby, promoted)

sub new_phase
{
	my ($label, $s, @anc) = @_;
	push @phases, { label => $label, srv => $s->{name}, anc => [@anc], rounds => 0 };
	$s->{phase} = $#phases;
	return $#phases;
}

my @sess;
my $inst_seq = 0;

# A statement run in a background psql session, quietly (BackgroundPsql's
# query() notes every query, far too much here) and without dying on errors.
sub run_sql
{
	my ($s, $sql) = @_;
	my $h = $s->{h};
	my $banner = "stress-sep-$s->{inst}-" . ++$s->{qn};
	my $res = { out => [], errors => [], warnings => [], died => 0 };
	return { %$res, died => 1 } unless $s->{alive};
	$h->{stdout} = '';
	$h->{stderr} = '';
	$h->{stdin} .= "$sql\n;\n\\echo '$banner'\n\\warn '$banner'\n";
	$h->{timeout}->start($QUERY_TIMEOUT);
	my $ok = eval {
		$h->{run}->pump
		  until $h->{stdout} =~ /\Q$banner\E\n/ && $h->{stderr} =~ /\Q$banner\E\n/;
		1;
	};
	if (!$ok)
	{
		my $why = $@;
		$why =~ s/\s+$//;
		$res->{died} = 1;
		$res->{stderr} = $h->{stderr};
		$res->{why} = $why;
		$s->{alive} = 0;
		eval { $h->{run}->kill_kill; };
		return $res;
	}
	(my $out = $h->{stdout}) =~ s/\Q$banner\E\n//;
	(my $err = $h->{stderr}) =~ s/\Q$banner\E\n//;
	$res->{out} = [ split /\n/, $out ];
	my $last;
	for my $l (split /\n/, $err)
	{
		if ($l =~ /(ERROR|FATAL|PANIC):\s+([0-9A-Z]{5}):\s*(.*)$/)
		{
			$last = { level => $1, state => $2, msg => $3 };
			push @{ $res->{errors} }, $last;
		}
		elsif ($l =~ /WARNING:\s+([0-9A-Z]{5}):\s*(.*)$/)
		{
			push @{ $res->{warnings} }, "$1: $2";
		}
		elsif ($l =~ /^(DETAIL|HINT):\s+(.*)$/ && $last)
		{
			$last->{msg} .= " ($1: $2)";
		}
		elsif ($l =~ /server closed the connection|connection to server .* lost|no connection to the server/)
		{
			push @{ $res->{errors} }, { level => 'FATAL', state => 'CONN', msg => $l };
		}
	}
	return $res;
}

sub open_session
{
	my ($s, $db, $name) = @_;
	my $h = $s->{node}->background_psql($db, on_error_stop => 0, timeout => $QUERY_TIMEOUT);
	my $se = { name => $name, db => $db, srv => $s, h => $h, inst => ++$inst_seq,
		alive => 1, qn => 0 };
	push @sess, $se;
	my $r = run_sql($se, "\\set VERBOSITY verbose\nLOAD 'id_gen';\nSET lock_timeout = '5s';\n"
		  . "SET statement_timeout = '120s';\nSET id_gen.test_clock_offset_ms = $s->{off};");
	die "seed $seed: setting up session $name failed: "
	  . join('; ', map { "$_->{state} $_->{msg}" } @{ $r->{errors} })
	  if $r->{died} || @{ $r->{errors} };
	return $se;
}

sub sname { my ($s) = @_; return "$s->{name}#$s->{inst}\@$s->{db}"; }

sub live
{
	my ($s, $db) = @_;
	return grep { $_->{alive} && $_->{srv} == $s && (!defined $db || $_->{db} eq $db) } @sess;
}

sub kill_sessions
{
	my ($s) = @_;
	for my $se (live($s))
	{
		eval { $se->{h}{run}->kill_kill; };
		$se->{alive} = 0;
	}
}

sub set_offset
{
	my ($s, $off) = @_;
	$s->{off} = $off;
	for my $se (live($s))
	{
		my $r = run_sql($se, "SET id_gen.test_clock_offset_ms = $off;");
		push @unexpected, "seed $seed: SET id_gen.test_clock_offset_ms failed in " . sname($se)
		  if $r->{died} || @{ $r->{errors} };
	}
}

# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------
sub new_op
{
	my ($s, $kind) = @_;
	$opcount{$kind}++;
	push @ops, { sess => sname($s), kind => $kind, desc => $kind, round => $round_no,
		phase => $s->{srv}{phase} };
	return { no => $#ops, s => $s, kind => $kind, sql => '', res => {}, allow => {},
		must_fail => 0, flags => '', notes => [] };
}

sub new_grp
{
	my ($op, %a) = @_;
	my $s = $op->{s};
	push @grp, { par => $a{par} ? 1 : 0, ph => $s->{srv}{phase}, inst => $s->{inst},
		op => $op->{no}, db => $s->{db} };
	return $#grp;
}

sub ins_sql
{
	my ($op, $tbl, $n, $part) = @_;
	my $g = new_grp($op);
	my $gen = $tbl_gen{$tbl};
	my $v = $tbl eq 't_hp_hi' ? '1000000 + g'
	  : $tbl eq 't_hp' ? 'CASE WHEN g % 2 = 0 THEN g ELSE 1000000 + g END' : 'g';
	return "INSERT INTO $tbl (v) SELECT $v FROM generate_series(1, $n) g "
	  . "RETURNING '$gen', '$tbl', '$part', $g, id;\n";
}

sub sel_sql
{
	my ($op, $gen, $n) = @_;
	my $g = new_grp($op);
	if ($gen eq 'sf')
	{
		return "SELECT 'sf', '-', 'x', $g, b FROM snowflake_next_batch($n) b;\n" if chance(0.3);
		return "SELECT 'sf', '-', 'x', $g, snowflake_next() FROM generate_series(1, $n);\n";
	}
	if ($gen eq 'tu')
	{
		my $f = chance(0.3) ? 'uuidv7_next()' : 'timeuuid_next()';
		return "SELECT 'tu', '-', 'x', $g, $f FROM generate_series(1, $n);\n";
	}
	return "SELECT 'dec', '-', 'x', $g, decimal_id() FROM generate_series(1, $n);\n"
	  if $gen eq 'dec';
	my $key = pick(@hilo_keys);
	return "SELECT 'h', '$key', 'x', $g, hilo_next('$key') FROM generate_series(1, $n);\n";
}

# A plain timeuuid_next() where the floor can be written: README's clock-floor
# section covers ids made in read-only transactions, parallel mode or on a
# standby only once such a call has raised the floor above them.
sub cover_sql
{
	my ($op) = @_;
	my $g = new_grp($op);
	return "SELECT 'tu', '-', 'x', $g, timeuuid_next();\n";
}

sub random_stmt
{
	my ($op, $part, $allow_insert) = @_;
	return ins_sql($op, pick(@ins_tables), rows(), $part)
	  if $allow_insert && chance(0.6);
	return sel_sql($op, pick(qw(sf tu dec h)), rows());
}

sub add_row
{
	my ($db, $tbl, $val, $how) = @_;
	if ($how eq '1') { $committed{$db}{ parent($tbl) }{$val} = 1; }
	elsif ($how eq '?') { $uncertain{$db}{ parent($tbl) }{$val} = 1; }
}

# Run an op's SQL, record every id it returned, classify its errors and
# settle which of its rows committed.
sub exec_op
{
	my ($op) = @_;
	my $s = $op->{s};
	$ops[ $op->{no} ]{desc} = $op->{desc};
	$ops[ $op->{no} ]{sql} = $op->{sql} if $ENV{ID_GEN_STRESS_DUMP};
	my $r = run_sql($s, $op->{sql});
	my $ph = $s->{srv}{phase};
	my %rows;    # part -> [[db, tbl, val]]
	my @odd;
	for my $line (@{ $r->{out} })
	{
		next if $line eq '';
		if ($line =~ /^(sf|tu|dec|h)\|([^|]*)\|([^|]*)\|(\d+)\|(.+)$/)
		{
			my ($gen, $tbl, $part, $g, $val) = ($1, $2, $3, $4, $5);
			$val = 0 + $val unless $gen eq 'tu';
			my $G = $grp[$g];
			if (!defined $G->{gen})
			{
				$G->{gen} = $gen;
				$G->{dom} = $gen eq 'sf' ? 'sf' : $gen eq 'tu' ? 'tu'
				  : $gen eq 'dec' ? "dec/$s->{db}" : "h/$s->{db}/" . parent($tbl);
				$G->{tbl} = $tbl;
				$G->{part} = $part;
				$G->{fl} = $op->{flags};
			}
			push @val, $val;
			push @rg, $g;
			if ($gen eq 'sf' || $gen eq 'tu')
			{
				my $ms = id_ms($gen, $val);
				$s->{srv}{last_ms} = $ms if $ms > $s->{srv}{last_ms};
			}
			push @{ $rows{$part} }, [ $s->{db}, $tbl, $val ] if $part ne 'x';
			$op->{n}{$gen}++;
		}
		elsif ($line =~ /^app\|(\d+)$/) { $op->{app_v} = $1; }
		elsif ($line =~ /^info\|/) { push @{ $op->{info} }, $line; }
		else { push @odd, $line; }
	}
	my ($n_exp, $n_unexp) = (0, 0);
	my @errs = @{ $r->{errors} };
	for my $i (0 .. $#errs)
	{
		my $e = $errs[$i];
		if ($op->{allow}{ $e->{state} })
		{
			$expected_err{ $e->{state} }++;
			$n_exp++;
			push @{ $op->{notes} }, $e->{state};
		}
		# consequences of an earlier error: an aborted transaction, a
		# savepoint that was never created
		elsif (($e->{state} eq '25P02' || $e->{state} eq '3B001') && $i > 0) { next; }
		else
		{
			$n_unexp++;
			my $hint = $e->{state} eq '23505' ? ' (a duplicate key: an id handed out twice)'
			  : $e->{state} eq '55P03' ? ' (lock timeout: possibly waiting on a duplicate key of an open or prepared transaction)'
			  : '';
			push @unexpected, sprintf("seed %s: phase %s, round %d, op %d in %s (%s): %s ERROR %s: %s%s",
				$seed, $phases[$ph]{label}, $round_no, $op->{no}, sname($s), $op->{desc},
				$e->{level}, $e->{state}, $e->{msg}, $hint);
			push @{ $op->{notes} }, "UNEXPECTED $e->{state}";
		}
	}
	if ($r->{died})
	{
		$n_unexp++;
		push @unexpected, sprintf("seed %s: phase %s, round %d, op %d: session %s died or timed out (%s); stderr: %s",
			$seed, $phases[$ph]{label}, $round_no, $op->{no}, sname($s), $r->{why} // '', $r->{stderr} // '');
		push @{ $op->{notes} }, 'SESSION DIED';
	}
	if ($op->{must_fail} && !$n_exp && !$n_unexp)
	{
		push @unexpected, sprintf("seed %s: phase %s, round %d, op %d in %s (%s): succeeded, but README documents ERROR %s",
			$seed, $phases[$ph]{label}, $round_no, $op->{no}, sname($s), $op->{desc},
			join('/', sort keys %{ $op->{allow} }));
		push @{ $op->{notes} }, 'UNEXPECTED SUCCESS';
	}
	note "seed $seed: op $op->{no}: unparsed output: @odd[0 .. ($#odd > 4 ? 4 : $#odd)]" if @odd;
	push @{ $op->{notes} }, "WARNING $_" for @{ $r->{warnings} };
	for my $part (keys %rows)
	{
		# an allowed error in an op marked so aborted its transaction
		my $how = $n_unexp ? '?' : $n_exp && $op->{aborts} ? '0' : $op->{res}{$part} // '0';
		if ($how =~ /^prep:(.*)$/)
		{
			push @{ $prepared{$1}{rows} }, @{ $rows{$part} };
			$prepared{$1}{db} = $s->{db};
			next;
		}
		add_row(@$_, $how) for @{ $rows{$part} };
	}
	$op->{unexpected} = $n_unexp;
	$op->{ok} = !$n_unexp && !$n_exp;
	return $r;
}

sub op_summary
{
	my ($op) = @_;
	my $n = join(',', map { "$_×$op->{n}{$_}" } grep { $op->{n}{$_} } qw(sf tu dec h));
	my $t = "$op->{s}{name}\@" . ($op->{s}{db} eq 'postgres' ? 'db1' : 'db2') . " $op->{desc}";
	$t .= " [$n]" if $n;
	$t .= ' {' . join(' ', @{ $op->{notes} }) . '}' if @{ $op->{notes} };
	$ops[ $op->{no} ]{desc} = $op->{desc};
	return $t;
}

sub pending_prepared_in
{
	my ($db) = @_;
	return grep { $prepared{$_}{db} eq $db && !$prepared{$_}{done} } keys %prepared;
}

sub resolve_prepared
{
	my ($s, $gid, $commit) = @_;
	my $op = new_op($s, 'resolve');
	$op->{desc} = ($commit ? 'COMMIT' : 'ROLLBACK') . " PREPARED '$gid'";
	$op->{sql} = "$op->{desc};";
	my $r = exec_op($op);
	my $how = $op->{unexpected} ? '?' : $commit ? '1' : '0';
	add_row(@$_, $how) for @{ $prepared{$gid}{rows} // [] };
	$prepared{$gid}{done} = 1;
	return op_summary($op);
}

# BEGIN ... then COMMIT, ROLLBACK, savepoints, or PREPARE TRANSACTION.
sub op_txn
{
	my ($s, $end) = @_;
	my $op = new_op($s, 'txn');
	my $iso = pick('', '', ' ISOLATION LEVEL REPEATABLE READ', ' ISOLATION LEVEL SERIALIZABLE');
	my $sql = "BEGIN$iso;\n";
	$sql .= random_stmt($op, 'A', 1) for 1 .. 1 + rnd(3);
	my @ends = ('commit', 'commit', 'rollback');
	push @ends, 'savepoint', 'savepoint' unless $skip{savepoint};
	push @ends, 'prepare', 'prepare' unless $skip{prepared};
	$end //= pick(@ends);
	my $desc = 'txn' . ($iso =~ /(REPEATABLE|SERIALIZABLE)/ ? "[$1]" : '');
	if ($end eq 'commit') { $sql .= "COMMIT;\n"; $op->{res}{A} = '1'; $desc .= ' COMMIT'; }
	elsif ($end eq 'rollback') { $sql .= "ROLLBACK;\n"; $op->{res}{A} = '0'; $desc .= ' ROLLBACK'; }
	elsif ($end eq 'savepoint')
	{
		$sql .= "SAVEPOINT s1;\n";
		$sql .= random_stmt($op, 'B', 1) for 1 .. 1 + rnd(2);
		my $back = chance(0.7);
		$sql .= $back ? "ROLLBACK TO SAVEPOINT s1;\n" : "RELEASE SAVEPOINT s1;\n";
		$sql .= random_stmt($op, 'C', 1) for 1 .. rnd(3);
		my $commit = chance(0.8);
		$sql .= $commit ? "COMMIT;\n" : "ROLLBACK;\n";
		$op->{res}{A} = $op->{res}{C} = $commit ? '1' : '0';
		$op->{res}{B} = $commit && !$back ? '1' : '0';
		$desc .= ' SAVEPOINT, ' . ($back ? 'ROLLBACK TO' : 'RELEASE') . ', ' . ($commit ? 'COMMIT' : 'ROLLBACK');
	}
	else
	{
		my $gid = "stress_$op->{no}";
		$sql .= "PREPARE TRANSACTION '$gid';\n";
		$op->{res}{A} = "prep:$gid";
		$op->{gid} = $gid;
		$desc .= " PREPARE '$gid'";
		# Finished at once by the same session, or later by another one.
		if ($end eq 'prepare' && chance(0.5))
		{
			my $commit = chance(0.6);
			$sql .= ($commit ? 'COMMIT' : 'ROLLBACK') . " PREPARED '$gid';\n";
			$op->{res}{A} = $commit ? '1' : '0';
			$op->{gid} = undef;
			$desc .= ', ' . ($commit ? 'COMMIT' : 'ROLLBACK') . ' PREPARED';
		}
	}
	$op->{desc} = $desc;
	$op->{sql} = $sql;
	exec_op($op);
	if ($op->{gid})
	{
		$prepared{ $op->{gid} }{db} //= $s->{db};
		# A PREPARE that failed prepared nothing (its rows are uncertain).
		$prepared{ $op->{gid} }{done} = 1 if $op->{unexpected};
	}
	return $op;
}

sub op_auto
{
	my ($s) = @_;
	my $op = new_op($s, 'auto');
	my @t;
	for my $i (1 .. 1 + rnd(3))
	{
		if (chance(0.6))
		{
			my $tbl = pick(@ins_tables);
			$op->{sql} .= ins_sql($op, $tbl, rows(), "a$i");
			$op->{res}{"a$i"} = '1';
			push @t, "insert $tbl";
		}
		else
		{
			my $gen = pick(qw(sf tu dec h));
			$op->{sql} .= sel_sql($op, $gen, rows());
			push @t, "select $gen";
		}
	}
	$op->{desc} = 'autocommit ' . join(', ', @t);
	exec_op($op);
	return $op;
}

# Generators in a read-only transaction: snowflake_next() and decimal_id()
# must refuse (25006); hilo_next() hands out what is left of a held block or
# refuses; timeuuid_next() works.
sub op_readonly
{
	my ($s) = @_;
	my $op = new_op($s, 'readonly');
	my $gen = pick(qw(sf tu dec h));
	$op->{allow}{25006} = 1 unless $gen eq 'tu';
	$op->{must_fail} = 1 if $gen eq 'sf' || $gen eq 'dec';
	$op->{sql} = "BEGIN READ ONLY;\n" . sel_sql($op, $gen, rows()) . "ROLLBACK;\n";
	$op->{sql} .= cover_sql($op) if $gen eq 'tu';
	$op->{desc} = "READ ONLY select $gen" . ($gen eq 'tu' ? ' +cover' : '');
	exec_op($op);
	return $op;
}

my @maxlo_sizes = (1, 2, 3, 7, 10, 50, 100, 333, 1000, 5000);
sub maxlo_size { return pick(@maxlo_sizes); }

# README: a classic key's sequence never moves back, so raising max_lo from a
# to b multiplies the next ids by b/a, and a lowering that rolls back leaves
# the sequence moved forward ("a gap"), multiplying them by a/b.  Random
# changes would soon use the key up (the documented ERROR 2200H): pick only
# sizes that keep the key's ids below about 1e14 either way.
sub bounded_maxlo
{
	my ($s, $key) = @_;
	my $i = rnd(scalar @maxlo_sizes);
	my $n = $maxlo_sizes[$i];
	my $r = run_sql($s, "SELECT 'info', max_lo, coalesce(reserved_to, 0) FROM id_gen.hilo_keys "
		  . "WHERE table_name = '$key'::regclass;");
	my ($ml, $rt);
	for (@{ $r->{out} }) { ($ml, $rt) = ($1, $2) if /^info\|(\d+)\|(-?\d+)$/; }
	if (defined $ml && $ml > 0)
	{
		my $fits = sub { my $f = $_[0] > $ml ? $_[0] / $ml : $ml / $_[0]; return ($rt + $ml) * $f <= 1e14; };
		if (!$fits->($n))
		{
			my @ok = grep { $fits->($_) } @maxlo_sizes;
			$n = @ok ? $ok[ $i % @ok ] : $ml;
		}
	}
	return $n;
}

# A change of block size, committed or rolled back, after draws in its
# transaction: the change is transactional DDL of the table's default, and
# the transaction that changed a key may not draw from it (55000), so the
# draws come first.  Two changes of one key may deadlock (40P01).
sub op_maxlo
{
	my ($s) = @_;
	my $op = new_op($s, 'maxlo');
	my $key = pick(@hilo_keys);
	my $n = bounded_maxlo($s, $key);
	my $commit = chance(0.5);
	$op->{allow}{55000} = 1;	# a pooled key's block size is its sequence's INCREMENT
	$op->{allow}{'40P01'} = 1;
	$op->{sql} = "BEGIN;\n";
	for (1 .. rnd(3))
	{
		my $g = new_grp($op);
		$op->{sql} .= "SELECT 'h', '$key', 'x', $g, hilo_next('$key') FROM generate_series(1, "
		  . rows() . ");\n";
	}
	$op->{sql} .= "ALTER SEQUENCE ${key}_id_seq INCREMENT BY $n;\n";
	$op->{sql} .= $commit ? "COMMIT;\n" : "ROLLBACK;\n";
	$op->{desc} = "ALTER SEQUENCE ${key}_id_seq INCREMENT BY $n " . ($commit ? 'COMMIT' : 'ROLLBACK');
	exec_op($op);
	# A ROLLBACK, or an error, restores the formula (the sequence only ever
	# moves forward).
	if ($commit && !failed($op) && $key eq 't_hb' && $binding{ $s->{db} })
	{
		$binding{ $s->{db} }{size} = $n;
	}
	return $op;
}

# Whether an op met an error (allowed or not): its transaction did not commit.
sub failed
{
	my ($op) = @_;
	return scalar grep { /^(UNEXPECTED )?[0-9A-Z]{5}$/ } @{ $op->{notes} // [] };
}

# hilo_bind to a fresh application sequence, committed or rolled back.
sub op_bind
{
	my ($s) = @_;
	my $op = new_op($s, 'bind');
	my $strategy = pick(qw(classic legacy pooled_lo pooled));
	my $size = maxlo_size();
	my $seq = 'app_seq_' . ++$app_seq_no;
	my $pooled = $strategy =~ /pooled/;
	my $commit = chance(0.6);
	my $arg = $pooled ? (chance(0.5) ? '' : ", $size") : ", $size";
	# The draws come before the binding: its transaction may not draw (55000).
	$op->{allow}{'40P01'} = 1;
	$op->{aborts} = 1;
	$op->{sql} = "CREATE SEQUENCE $seq" . ($pooled ? " INCREMENT $size" : '') . " CACHE 1;\n"
	  . "BEGIN;\n";
	for (1 .. rnd(3))
	{
		$op->{sql} .= chance(0.5)
		  ? ins_sql($op, 't_hb', rows(), 'A')
		  : do { my $g = new_grp($op); "SELECT 'h', 't_hb', 'x', $g, hilo_next('t_hb') FROM generate_series(1, " . rows() . ");\n" };
	}
	$op->{sql} .= "SELECT hilo_bind('t_hb', '$seq', '$strategy'$arg);\n";
	$op->{sql} .= $commit ? "COMMIT;\n" : "ROLLBACK;\n";
	$op->{res}{A} = $commit ? '1' : '0';
	$op->{desc} = "hilo_bind('t_hb', '$seq', '$strategy'$arg) " . ($commit ? 'COMMIT' : 'ROLLBACK');
	exec_op($op);
	# A binding is transactional DDL: a ROLLBACK, or an error, keeps the old one.
	if ($commit && !failed($op))
	{
		$binding{ $s->{db} } = { seq => $seq, strategy => $strategy, size => $size };
	}
	return $op;
}

# The application's own client-side Hi/Lo on the bound sequence (README's
# table of strategies): its ids share t_hb's key space.
sub op_app
{
	my ($s) = @_;
	my $b = $binding{ $s->{db} };
	my $op = new_op($s, 'app');
	$op->{sql} = "SELECT 'app', nextval('$b->{seq}');\n";
	my $g = new_grp($op);
	exec_op($op);
	my $v = $op->{app_v};
	my $k = 0;
	if (defined $v)
	{
		my ($lo, $hi);
		my $n = $b->{size};
		if ($b->{strategy} eq 'classic') { $lo = $v * $n; $hi = $lo + $n - 1; }
		elsif ($b->{strategy} eq 'legacy') { $lo = $v * ($n + 1); $hi = $lo + $n; }
		elsif ($b->{strategy} eq 'pooled_lo') { $lo = $v; $hi = $v + $n - 1; }
		else { $lo = $v - $n + 1; $hi = $v; }
		$lo = 1 if $lo < 1;
		$k = 1 + rnd(20);
		$k = $hi - $lo + 1 if $k > $hi - $lo + 1;
		@{ $grp[$g] }{qw(gen dom tbl part fl)} = ('h', "h/$s->{db}/t_hb", 't_hb', 'x', 'app');
		for my $id ($lo .. $lo + $k - 1)
		{
			push @val, $id;
			push @rg, $g;
		}
	}
	$op->{desc} = "application Hi/Lo: nextval('$b->{seq}') = " . ($v // '?')
	  . " ($b->{strategy}, $b->{size}), uses $k ids";
	return $op;
}

# Parallel query: timeuuid_next() (PARALLEL SAFE) in workers, by CREATE TABLE
# AS or a parallel scan; a parallel-unsafe generator in the same settings
# must keep its query serial.
sub op_parallel
{
	my ($s) = @_;
	my $op = new_op($s, 'parallel');
	my $g = new_grp($op, par => 1);
	my $sql = "SET $force_parallel = on;\nSET parallel_setup_cost = 0;\n"
	  . "SET parallel_tuple_cost = 0;\nSET min_parallel_table_scan_size = 0;\n"
	  . "SET max_parallel_workers_per_gather = 2;\n";
	my $desc;
	if (chance(0.5))
	{
		my $x = 'x_' . ++$x_table_no;
		my $n = pick(100, 500, 1500);
		$sql .= "CREATE TABLE $x AS SELECT timeuuid_next() AS id, g FROM big WHERE g <= $n;\n"
		  . "SELECT 'tu', '-', 'x', $g, id FROM $x;\nDROP TABLE $x;\n";
		$desc = "parallel CREATE TABLE AS timeuuid_next() ($n rows)";
	}
	else
	{
		my $m = pick(10, 25, 100);
		my $f = chance(0.3) ? 'uuidv7_next()' : 'timeuuid_next()';
		$sql .= "SELECT 'tu', '-', 'x', $g, $f FROM big WHERE g % $m = 0;\n";
		$desc = "parallel scan $f (1 in $m rows)";
	}
	if (chance(0.3))
	{
		my $gen = pick(qw(sf dec h));
		$sql .= sel_sql($op, $gen, rows());
		$desc .= ", serial $gen";
	}
	$sql .= "RESET $force_parallel;\nRESET parallel_setup_cost;\nRESET parallel_tuple_cost;\n"
	  . "RESET min_parallel_table_scan_size;\nRESET max_parallel_workers_per_gather;\n";
	$sql .= cover_sql($op);
	$op->{sql} = $sql;
	$op->{desc} = "$desc +cover";
	exec_op($op);
	return $op;
}

sub op_select
{
	my ($s, @gens) = @_;
	my $op = new_op($s, 'select');
	@gens = (pick(qw(sf tu dec h))) unless @gens;
	$op->{sql} .= sel_sql($op, $_, rows()) for @gens;
	$op->{desc} = 'select ' . join(' ', @gens);
	exec_op($op);
	return $op;
}

# The standby session while the server is in recovery.
sub op_standby
{
	my ($s) = @_;
	my $op = new_op($s, 'standby');
	my $gen = pick(qw(tu tu sf dec h));
	if ($gen eq 'tu')
	{
		$op->{sql} = sel_sql($op, 'tu', rows());
		$op->{desc} = 'on standby: select tu';
	}
	else
	{
		$op->{allow}{25006} = 1;
		$op->{must_fail} = 1;
		$op->{sql} = sel_sql($op, $gen, rows());
		$op->{desc} = "on standby: select $gen";
	}
	exec_op($op);
	return $op;
}

# ---------------------------------------------------------------------------
# Rounds
# ---------------------------------------------------------------------------
my $cur;    # the server taking writes

sub clock_step
{
	my ($s) = @_;
	my $u = rand();
	my $delta = int(-200 + 300 * $u);
	# Never more than MAX_BACK - 200 ms behind the last id (the generators
	# run ahead of such a clock: the harness keeps the lead small).
	my $behind_now = $s->{last_ms} - (now_ms() + $s->{off});
	my $min = $behind_now - ($MAX_BACK - 200);
	$min = 0 if $min > 0;
	$delta = $min if $delta < $min;
	set_offset($s, $s->{off} + $delta);
	if ($srv{B} && $srv{B}{recovery})
	{
		set_offset($srv{B}, $s->{off} - $srv{B}{lag});
	}
	return "clock " . ($delta >= 0 ? '+' : '') . "${delta}ms";
}

sub random_op
{
	my ($s) = @_;
	my $db = $s->{db};
	my $admin_ok = !pending_prepared_in($db);
	my @kinds = (('auto') x 5, ('select') x 4, ('txn') x 6);
	push @kinds, ('readonly') x 2 unless $skip{readonly};
	push @kinds, ('maxlo') x 2 if !$skip{maxlo} && $admin_ok;
	# (no 'bind': a key is its table's own sequence, never rebound)
	push @kinds, ('app') x 1 if !$skip{bind} && $binding{$db};
	push @kinds, ('parallel') x 2 unless $skip{parallel};
	my $k = pick(@kinds);
	return $k eq 'auto' ? op_auto($s)
	  : $k eq 'select' ? op_select($s)
	  : $k eq 'txn' ? op_txn($s)
	  : $k eq 'readonly' ? op_readonly($s)
	  : $k eq 'maxlo' ? op_maxlo($s)
	  : $k eq 'bind' ? op_bind($s)
	  : $k eq 'app' ? op_app($s)
	  : op_parallel($s);
}

sub run_round
{
	my ($sb) = @_;
	$round_no++;
	my $ph = $phases[ $cur->{phase} ];
	$ph->{rounds}++;
	my @what;
	push @what, clock_step($cur) if !$skip{clock} && chance(0.3);
	for (1 .. 2 + rnd(5))
	{
		my @ls = live($cur);
		if (!@ls)
		{
			push @unexpected, "seed $seed: phase $ph->{label}, round $round_no: every session died; opening new ones";
			open_sessions($cur, $n1, $n2);
			@ls = live($cur);
		}
		push @what, op_summary(random_op(pick(@ls)));
	}
	if ($sb && $sb->{alive} && $srv{B}{recovery} && chance(0.4))
	{
		push @what, op_summary(op_standby($sb));
	}
	for my $gid (sort grep { !$prepared{$_}{done} } keys %prepared)
	{
		my @c = live($cur, $prepared{$gid}{db});
		push @what, resolve_prepared(pick(@c), $gid, chance(0.6));
	}
	note sprintf("round %d %s (clock %+dms): %s", $round_no, $ph->{label}, $cur->{off},
		join('; ', @what));
}

sub run_phase_rounds
{
	my ($sb, $idx) = @_;
	my $t0 = Time::HiRes::time();
	my $limit = @rounds_env ? ($rounds_env[$idx] // $rounds_env[-1]) : 100000;
	my $deadline = $t0 + (@rounds_env ? 5 * $phase_secs + 60 : $phase_secs);
	my $n = 0;
	while ($n < $limit && ($n < 2 || Time::HiRes::time() < $deadline))
	{
		run_round($sb);
		$n++;
	}
	note "seed $seed: stopped phase $phases[$cur->{phase}]{label} at the time limit after $n of $limit rounds"
	  if @rounds_env && $n < $limit;
	return $n;
}

# ---------------------------------------------------------------------------
# Adversities
# ---------------------------------------------------------------------------
# Before a crash: sometimes let database 2 idle past the floor's step while
# database 1 generates; then leave sessions inside transactions holding
# blocks and ids, and a prepared transaction.
sub before_adversity
{
	my ($s) = @_;
	my @what;
	my $quiet = $has_db2 && !$skip{quiet} && chance(0.5);
	if ($quiet)
	{
		my ($s1) = live($s, 'postgres');
		for (1 .. 6)
		{
			my $op = new_op($s1, 'select');
			$op->{sql} = sel_sql($op, 'sf', 20) . sel_sql($op, 'tu', 20);
			$op->{desc} = 'database 1 only: select sf, tu';
			exec_op($op);
			Time::HiRes::sleep(0.2);
		}
		push @what, 'database 2 idle for 1.2 s while database 1 generated';
	}
	my %held;
	unless ($skip{hold})
	{
		my @cands = $quiet ? live($s, 'postgres') : live($s);
		for my $se (grep { defined } (pick(@cands), chance(0.5) ? pick(@cands) : undef))
		{
			next if $held{ $se->{inst} }++;
			my $op = new_op($se, 'hold');
			$op->{sql} = "BEGIN;\n" . ins_sql($op, pick(qw(t_h t_hp t_hb)), rows(), 'H');
			$op->{sql} .= ins_sql($op, pick(@ins_tables), rows(), 'H') if chance(0.5);
			$op->{sql} .= sel_sql($op, 'h', rows()) if chance(0.5);
			$op->{res}{H} = '0';
			$op->{desc} = 'open transaction left holding ids';
			exec_op($op);
			push @what, op_summary($op);
		}
	}
	if (!$skip{prepared})
	{
		my @cands = grep { !$held{ $_->{inst} } } ($quiet ? live($s, 'postgres') : live($s));
		if (@cands)
		{
			my $op = op_txn(pick(@cands), 'prepare_keep');
			push @what, op_summary($op);
		}
	}
	return @what;
}

sub floors
{
	my ($node) = @_;
	my %f;
	for my $db (@dbs)
	{
		# the later of the snowflake and timeuuid floors, in Unix ms
		$f{$db} = $node->safe_psql($db,
			'SELECT greatest((SELECT last_value >> 20 FROM id_gen.timeuuid_floor), '
			  . '(SELECT (extract(epoch FROM ts) * 1000)::bigint '
			  . 'FROM snowflake_decode((SELECT last_value FROM id_gen.snowflake_floor))))');
	}
	return %f;
}

# After a start or promotion, with the clock as it was: move it back by more
# than the time since the last id (so only the floor keeps ids above the old
# ones) by a bounded amount (the ids then run ahead of the clock).
sub clock_back_after_start
{
	my ($s, $last_ms, %f) = @_;
	my $u = rand();
	return 'clock unchanged' if $skip{clock};
	my ($fmax) = sort { $b <=> $a } values %f;
	my $margin = 250;
	my $xmax = $last_ms - ($fmax + 1 - ($FLOOR_STEP + $MAX_BACK - $margin));
	$xmax = 500 if $xmax > 500;
	my $x = int(150 + $u * ($xmax - 150));
	$x = $xmax if $x > $xmax;
	my $g = $last_ms - $x;
	set_offset($s, $g - now_ms());
	return sprintf("clock set %d ms behind the last id (floors %s: %s ms ahead of it)",
		$x, join('/', map { $_ eq 'postgres' ? 'db1' : 'db2' } @dbs),
		join('/', map { $f{$_} - $last_ms } @dbs));
}

sub open_sessions
{
	my ($s, $n1, $n2) = @_;
	my $i = 0;
	open_session($s, 'postgres', 's' . ++$i) for 1 .. $n1;
	if ($has_db2) { open_session($s, 'stress2', 's' . ++$i) for 1 .. $n2; }
}

# The first generator call after a start: in either database, and sometimes
# a parallel query (its workers must respect the floor too).
sub first_op_after_start
{
	my ($s) = @_;
	my $db = $has_db2 && chance(0.5) ? 'stress2' : 'postgres';
	my ($se) = live($s, $db);
	my $k = pick(($skip{parallel} ? () : ('parallel') x 2), 'sf', 'tu', 'mixed');
	my $op = $k eq 'parallel' ? op_parallel($se)
	  : $k eq 'mixed' ? op_select($se, @{ pick([qw(tu sf dec)], [qw(sf tu h)]) })
	  : op_select($se, $k);
	return 'first call: ' . op_summary($op);
}

sub restart_server
{
	my ($s, $mode) = @_;
	my @what = before_adversity($s);
	my $last = $s->{last_ms};
	$s->{node}->stop($mode);
	kill_sessions($s);
	$s->{node}->start;
	my $old = $s->{phase};
	my $label = substr($phases[$old]{label}, 0, 1) . ($s->{starts}++);
	new_phase($label, $s, grep { $phases[$_]{srv} eq $s->{name} || $phases[$_]{inherited} } 0 .. $#phases);
	open_sessions($s, $n1, $n2);
	for my $gid (sort grep { !$prepared{$_}{done} } keys %prepared)
	{
		push @what, resolve_prepared(pick(live($s, $prepared{$gid}{db})), $gid, chance(0.6));
	}
	# Set the clock back right before the first generator call, so that the
	# clock is still behind the last id when that call comes.
	my %f = floors($s->{node});
	push @what, clock_back_after_start($s, $last, %f);
	# The standby's clock stays the same distance behind the primary's.
	set_offset($srv{B}, $s->{off} - $srv{B}{lag}) if $srv{B} && $srv{B}{recovery} && $s == $srv{A};
	push @what, first_op_after_start($s);
	note sprintf("%s of %s (%s): %s", $mode eq 'immediate' ? 'CRASH (immediate stop)' : 'clean restart',
		$s->{name}, "phase $phases[$old]{label} -> $label", join('; ', @what));
}

sub promote_standby
{
	my ($sb) = @_;
	my $A = $srv{A};
	my $B = $srv{B};
	my @what = before_adversity($A);
	$A->{node}->wait_for_catchup($B->{node});
	$A->{node}->stop('immediate');
	kill_sessions($A);
	$A->{down} = 1;
	$B->{node}->promote;
	$B->{node}->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
	  or die "seed $seed: promotion failed";
	$B->{recovery} = 0;
	$phases[$_]{inherited} = 1 for 0 .. $#phases;
	my $old = $A->{phase};
	new_phase('B0', $B, 0 .. $#phases);
	$B->{starts} = 1;
	my $last = $A->{last_ms} > $B->{last_ms} ? $A->{last_ms} : $B->{last_ms};
	my %f = floors($B->{node});
	push @what, clock_back_after_start($B, $last, %f);
	# The session that lived through the promotion generates first: a
	# timeuuid (a snowflake first would wait for the floor), then the others.
	my @gens = ('sf', 'dec', 'h');
	for my $i (reverse 1 .. $#gens) { my $j = rnd($i + 1); @gens[ $i, $j ] = @gens[ $j, $i ]; }
	my $op = op_select($sb, 'tu', @gens);
	push @what, 'the standby session first: ' . op_summary($op);
	open_sessions($B, $n1 - 1, $n2);
	$cur = $B;
	for my $gid (sort grep { !$prepared{$_}{done} } keys %prepared)
	{
		push @what, resolve_prepared(pick(live($B, $prepared{$gid}{db})), $gid, chance(0.6));
	}
	note sprintf("PROMOTION of the standby, old primary crashed and discarded (phase %s -> B0): %s",
		$phases[$old]{label}, join('; ', @what));
}

# ---------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------
my $node_a = PostgreSQL::Test::Cluster->new('stress_primary');
$node_a->init(allows_streaming => 1);
$force_parallel = force_parallel_setting($node_a);
$node_a->append_conf('postgresql.conf', join("\n",
	($preload ? "shared_preload_libraries = 'id_gen'" : ()),
	"id_gen.worker_id = $WORKER_ID",
	"id_gen.launch_id = $LAUNCH_ID",
	'max_prepared_transactions = 10',
	'max_connections = 40',
	'max_worker_processes = 16',
	'max_parallel_workers = 8',
	"wal_retrieve_retry_interval = '200ms'",
	''));
$node_a->start;
$srv{A} = { name => 'A', node => $node_a, off => 0, last_ms => 0, recovery => 0, starts => 1 };
new_phase('A0', $srv{A});
$cur = $srv{A};

$node_a->safe_psql('postgres', 'CREATE DATABASE stress2') if $has_db2;
for my $db (@dbs)
{
	$node_a->safe_psql($db, q{
		CREATE EXTENSION id_gen;
		CREATE TABLE t_sf (id bigint PRIMARY KEY DEFAULT snowflake_next(), v int);
		CREATE TABLE t_tu (id timeuuid PRIMARY KEY DEFAULT timeuuid_next(), v int);
		CREATE TABLE t_dec (id bigint PRIMARY KEY DEFAULT decimal_id(), v int);
		CREATE TABLE t_h (id bigint PRIMARY KEY DEFAULT hilo_next('t_h'), v int);
		CREATE TABLE t_hp (id bigint NOT NULL DEFAULT hilo_next('t_hp'), v int NOT NULL,
			PRIMARY KEY (id, v)) PARTITION BY RANGE (v);
		CREATE TABLE t_hp_lo PARTITION OF t_hp FOR VALUES FROM (MINVALUE) TO (1000000);
		CREATE TABLE t_hp_hi PARTITION OF t_hp FOR VALUES FROM (1000000) TO (MAXVALUE);
		CREATE TABLE t_hb (id bigint PRIMARY KEY DEFAULT hilo_next('t_hb'), v int);
		SELECT hilo_create_key('t_h'), hilo_create_key('t_hp'), hilo_create_key('t_hb');
		CREATE TABLE big AS SELECT g FROM generate_series(1, 20000) g;
		ANALYZE big;
	});
}

unless ($skip{parallel})
{
	my $par = qq{SET $force_parallel = on; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
		SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;};
	my $p1 = $node_a->safe_psql('postgres', "$par EXPLAIN (COSTS OFF) SELECT timeuuid_next() FROM big");
	my $p2 = $node_a->safe_psql('postgres',
		"$par EXPLAIN (COSTS OFF) CREATE TABLE x AS SELECT timeuuid_next() FROM big");
	my $p3 = $node_a->safe_psql('postgres', "$par EXPLAIN (COSTS OFF) SELECT snowflake_next() FROM big");
	ok($p1 =~ /Parallel Seq Scan/ && $p2 =~ /Parallel Seq Scan/ && $p3 !~ /Gather/,
		'set-up: timeuuid_next() scans and CREATE TABLE AS run in parallel workers, snowflake_next() keeps its query serial')
	  or diag("seed $seed: plans:\n$p1\n$p2\n$p3");
}

my $sb;
unless ($skip{promotion})
{
	$node_a->backup('bk');
	my $node_b = PostgreSQL::Test::Cluster->new('stress_standby');
	$node_b->init_from_backup($node_a, 'bk', has_streaming => 1);
	$node_b->start;
	my $lag = 50 + rnd(250);
	$srv{B} = { name => 'B', node => $node_b, off => -$lag, lag => $lag, last_ms => 0,
		recovery => 1 };
	new_phase('S', $srv{B});
	$node_a->wait_for_catchup($node_b);
	$sb = open_session($srv{B}, 'postgres', 'sb');
	note "standby started from a backup; its clock is $lag ms behind the primary's";
}
open_sessions($srv{A}, $n1, $n2);
note sprintf('%d sessions on database 1, %d on database 2%s', $n1, $n2,
	$sb ? ', 1 on the standby' : '');

# Round 0: each key's first draws, inside a transaction that commits or
# rolls back (the key was made by its CREATE TABLE: a first draw makes
# nothing, and a ROLLBACK gives back nothing).
{
	$round_no++;
	my @what;
	for my $db (@dbs)
	{
		for my $key (@hilo_keys)
		{
			my $s = pick(live($cur, $db));
			my $op = new_op($s, 'first use');
			my $commit = chance(0.5);
			$op->{sql} = "BEGIN;\n" . (chance(0.5) ? ins_sql($op, $key, rows(), 'A') : do {
				my $g = new_grp($op);
				"SELECT 'h', '$key', 'x', $g, hilo_next('$key') FROM generate_series(1, " . rows() . ");\n" })
			  . ($commit ? "COMMIT;\n" : "ROLLBACK;\n");
			$op->{res}{A} = $commit ? '1' : '0';
			$op->{desc} = "first use of $key " . ($commit ? 'COMMIT' : 'ROLLBACK');
			exec_op($op);
			push @what, op_summary($op);
		}
	}
	note "round $round_no A0: " . join('; ', @what);
}

# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------
my @rounds_done;
my $run_ok = eval {
	for my $i (0 .. $#schedule)
	{
		push @rounds_done, run_phase_rounds($sb, $i);
		my $adv = $schedule[$i];
		if ($adv eq 'promote') { promote_standby($sb); }
		else { restart_server($cur, $adv eq 'crash' ? 'immediate' : 'fast'); }
	}
	push @rounds_done, run_phase_rounds($sb, scalar @schedule);
	1;
};
my $run_err = $@;
my $t_run = Time::HiRes::time() - $t_start;
$_->{alive} && eval { $_->{h}->quit } for @sess;
note "rounds per phase: " . join(',', @rounds_done)
  . "; replay exactly with: " . $replay_hint->() . " ID_GEN_STRESS_ROUNDS=" . join(',', @rounds_done);

# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------
my %per_phase;    # phase -> [record indexes]
push @{ $per_phase{ $grp[ $rg[$_] ]{ph} } }, $_ for 0 .. $#val;

sub report
{
	my ($pass, $name, @lines) = @_;
	ok($pass, $pass ? $name : "$name (seed $seed)");
	if (!$pass)
	{
		my $more = @lines > 12 ? @lines - 12 : 0;
		diag("seed $seed ($name):\n  " . join("\n  ", @lines[ 0 .. ($more ? 11 : $#lines) ])
			  . ($more ? "\n  ... and $more more" : '')
			  . "\n  replay: " . $replay_hint->() . " ID_GEN_STRESS_ROUNDS=" . join(',', @rounds_done));
	}
}

report($run_ok, 'the harness ran every round and adversity',
	"died in round $round_no, phase $phases[$cur->{phase}]{label}: $run_err");

# Well-formed ids.
{
	my @bad;
	for my $i (0 .. $#val)
	{
		my ($gen, $v) = (G($i)->{gen}, $val[$i]);
		my $ok = $gen eq 'sf' ? ($v > 0 && (($v >> 12) & 1023) == $WORKER_ID)
		  : $gen eq 'tu' ? ($v =~ /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
		  : $gen eq 'dec' ? ($v > 0 && dec_launch($v) == $LAUNCH_ID)
		  : $v >= 1;
		push @bad, describe($i) unless $ok;
	}
	report(!@bad, sprintf('every id is well formed (%d ids)', scalar @val), @bad);
}

# Uniqueness: an id appears once in its domain, whatever happened to it.
my %dups;       # phase -> [lines]
{
	my %first;      # domain -> value -> record index
	for my $i (0 .. $#val)
	{
		my $g = G($i);
		my $f = \$first{ $g->{dom} }{ $val[$i] };
		if (defined $$f)
		{
			push @{ $dups{ $g->{ph} } },
			  "handed out twice: " . describe($$f) . "\n      and again: " . describe($i);
		}
		else { $$f = $i; }
	}
}

# Order within a phase: snowflake and timeuuid over the whole server, in the
# order the statements ran; decimal_id per database; hilo per session and key.
sub order_violations
{
	my ($idx, $scope) = @_;
	my (%gmax, %cur, @v);
	for my $i (@$idx)
	{
		my $g = G($i);
		my $gen = $g->{gen};
		my $sc = $scope->($g);
		next unless defined $sc;
		my $c = $cur{$sc};
		if (!$c || $c->{grp} != $rg[$i])
		{
			if ($c && (!defined $gmax{$sc} || gt_id($gen, $val[ $c->{max} ], $val[ $gmax{$sc} ])))
			{
				$gmax{$sc} = $c->{max};
			}
			$c = $cur{$sc} = { grp => $rg[$i], max => undef, last => undef };
		}
		my @prev = grep { defined } ($gmax{$sc}, $g->{par} ? () : ($c->{last}));
		for my $p (@prev)
		{
			if (!gt_id($gen, $val[$i], $val[$p]))
			{
				push @v, "not above an id issued before it: " . describe($i)
				  . "\n      earlier: " . describe($p);
				last;
			}
		}
		$c->{last} = $i;
		$c->{max} = $i if !defined $c->{max} || gt_id($gen, $val[$i], $val[ $c->{max} ]);
	}
	return @v;
}

# Per phase, generator and database: the lowest and highest id, and the
# decimal_id generator ids with the first record using each.
my (%pmin, %pmax, %pdec);
for my $i (0 .. $#val)
{
	my $g = G($i);
	my ($gen, $p, $db) = ($g->{gen}, $g->{ph}, $g->{db});
	if ($gen eq 'sf' || $gen eq 'tu')
	{
		my $mn = \$pmin{$p}{$gen}{$db};
		my $mx = \$pmax{$p}{$gen}{$db};
		$$mn = $i if !defined $$mn || gt_id($gen, $val[$$mn], $val[$i]);
		$$mx = $i if !defined $$mx || gt_id($gen, $val[$i], $val[$$mx]);
	}
	elsif ($gen eq 'dec')
	{
		$pdec{$p}{$db}{ dec_generator($val[$i]) } //= $i;
	}
}

for my $p (0 .. $#phases)
{
	my $idx = $per_phase{$p} // [];
	my $label = $phases[$p]{label};
	my %n;
	$n{ G($_)->{gen} }++ for @$idx;
	my $counts = join(', ', map { "$gen_name{$_} " . ($n{$_} // 0) } qw(sf tu dec h));

	report(!$dups{$p}, "phase $label: no id repeats an id handed out before ($counts)",
		@{ $dups{$p} // [] });

	if ($n{sf} || $n{tu} || $n{dec})
	{
		my @v = order_violations($idx, sub {
			my $g = $_[0]{gen};
			return $g eq 'sf' || $g eq 'tu' ? $g : $g eq 'dec' ? "dec/$_[0]{db}" : undef;
		});
		report(!@v, "phase $label: snowflake and timeuuid ids increase across all sessions and databases, decimal_id per database", @v);
	}

	if ($n{h})
	{
		my @v = order_violations($idx, sub {
			my $g = $_[0];
			return undef unless $g->{gen} eq 'h' && $g->{fl} eq '';
			return "$g->{inst}/$g->{dom}";
		});
		report(!@v, "phase $label: hilo ids increase within each session and key", @v);
	}

	# decimal_id: a database keeps one generator id for its life (its
	# counter persists across crashes, restarts and the failover); the two
	# databases never share one.
	if ($n{dec})
	{
		my (@dv, %owner);
		for my $db (sort keys %{ $pdec{$p} })
		{
			my @g = sort { $a <=> $b } keys %{ $pdec{$p}{$db} };
			push @dv, "database $db used generator ids @g in one phase" if @g > 1;
			for my $q (0 .. $p - 1)
			{
				for my $old (keys %{ $pdec{$q}{$db} // {} })
				{
					push @dv, "database $db had generator id $old in an earlier phase, @g now"
					  unless grep { $_ == $old } @g;
				}
			}
			for my $gid (@g)
			{
				push @dv, "generator id $gid used by databases $owner{$gid} and $db" if defined $owner{$gid};
				$owner{$gid} = $db;
			}
		}
		report(!@dv, "phase $label: decimal_id keeps one generator id per database, not shared", @dv);
	}

	# Above every id of the earlier phases of the same database.  (The other
	# database's are no longer a bound: the floor is kept per database; the
	# loop keeps the cross-database form for a promise that may return.)
	for my $cross (0)
	{
		next unless @{ $phases[$p]{anc} };
		next if $cross && !$has_db2;
		my @cv;
		for my $gen (qw(sf tu))
		{
			for my $db (@dbs)
			{
				next unless defined $pmin{$p}{$gen}{$db};
				my ($same, $other);
				for my $q (@{ $phases[$p]{anc} })
				{
					for my $odb (@dbs)
					{
						my $m = $pmax{$q}{$gen}{$odb};
						next unless defined $m;
						my $ref = $odb eq $db ? \$same : \$other;
						$$ref = $m if !defined $$ref || gt_id($gen, $val[$m], $val[$$ref]);
					}
				}
				my $max = $cross ? $other : $same;
				next unless defined $max;
				my ($below, $low) = (0, undef);
				for my $i (@$idx)
				{
					my $g = G($i);
					next unless $g->{gen} eq $gen && $g->{db} eq $db;
					next if gt_id($gen, $val[$i], $val[$max]);
					next if $cross && defined $same && !gt_id($gen, $val[$i], $val[$same]);
					$below++;
					$low = $i if !defined $low || gt_id($gen, $val[$low], $val[$i]);
				}
				next unless $below;
				push @cv, sprintf("%d %s ids of database %s in phase %s are not above the highest id issued %s in an earlier phase"
					  . "\n      lowest: %s\n      earlier: %s\n      (the earlier id is %d ms later in time)",
					$below, $gen_name{$gen}, $db, $label,
					$cross ? 'by the other database' : 'by this database',
					describe($low), describe($max),
					id_ms($gen, $val[$max]) - id_ms($gen, $val[$low]));
			}
		}
		my @anc = map { $phases[$_]{label} } @{ $phases[$p]{anc} };
		my $anc = @anc <= 6 ? "phases @anc" : sprintf('the %d phases %s .. %s', scalar @anc, $anc[0], $anc[-1]);
		report(!@cv, "phase $label: snowflake and timeuuid ids above every id of $anc, "
			  . ($cross ? 'issued in the other database' : 'same database'), @cv);
	}

	my @ue = grep { /phase \Q$label\E,/ } @unexpected;
	report(!@ue, "phase $label: no unexpected ERROR", @ue);
}
my @ue_other = grep { !/phase \S+, round/ } @unexpected;
report(!@ue_other, 'no other failure while running', @ue_other) if @ue_other;

# Committed rows: each table holds exactly what committed.
my $final = $cur->{node};
for my $db (@dbs)
{
	for my $tbl (qw(t_sf t_tu t_dec t_h t_hp t_hb))
	{
		my $ids = eval { $final->safe_psql($db, "SELECT id FROM $tbl") };
		if (!defined $ids)
		{
			report(0, "$db.$tbl can be read for the committed-rows check", $@);
			next;
		}
		my %have = map { $_ => 1 } split /\n/, $ids;
		my $want = $committed{$db}{$tbl} // {};
		my $unc = $uncertain{$db}{$tbl} // {};
		my (@missing, @extra);
		for my $v (keys %$want) { push @missing, $v unless $have{$v}; }
		for my $v (keys %have) { push @extra, $v unless $want->{$v} || $unc->{$v}; }
		my %where;
		if (@missing || @extra)
		{
			for my $i (0 .. $#val)
			{
				my $g = G($i);
				next unless $g->{db} eq $db && parent($g->{tbl}) eq $tbl;
				$where{ $val[$i] } //= $i;
			}
		}
		my @lines = ((map { "committed but missing: " . (defined $where{$_} ? describe($where{$_}) : $_) } sort @missing),
			(map { "present but not committed: " . (defined $where{$_} ? describe($where{$_}) : "$_ (never returned to a client)") } sort @extra));
		report(!@lines, sprintf("%s.%s holds exactly the %d committed rows%s", $db, $tbl,
			scalar(keys %$want), %$unc ? sprintf(' (%d uncertain)', scalar keys %$unc) : ''), @lines);
	}
}

if (my $dump = $ENV{ID_GEN_STRESS_DUMP})
{
	open(my $fh, '>', $dump) or die "cannot write $dump: $!";
	print $fh join("\t", qw(generator domain value phase session statement op part table flags database)), "\n";
	for my $i (0 .. $#val)
	{
		my $g = G($i);
		print $fh join("\t", $g->{gen}, $g->{dom}, $val[$i], $phases[ $g->{ph} ]{label},
			$g->{inst}, $rg[$i], $g->{op}, $g->{part}, $g->{tbl}, $g->{fl}, $g->{db}), "\n";
	}
	close $fh;
	open($fh, '>', "$dump.ops") or die "cannot write $dump.ops: $!";
	for my $i (0 .. $#ops)
	{
		my $o = $ops[$i];
		(my $sql = $o->{sql} // '') =~ s/\n/ /g;
		print $fh "$i\tround $o->{round}\t$phases[$o->{phase}]{label}\t$o->{sess}\t$o->{desc}\t$sql\n";
	}
	close $fh;
	note "records written to $dump and $dump.ops";
}

my %ngen;
$ngen{ $grp[$_]{gen} }++ for @rg;
note sprintf("seed %s: checked %d ids (snowflake %d, timeuuid %d, decimal_id %d, hilo %d) from %d ops in %d rounds over %d phases; "
	  . "expected errors: %s; ops: %s; %.1f s (run %.1f s)",
	$seed, scalar @val, map({ $ngen{$_} // 0 } qw(sf tu dec h)), scalar @ops, $round_no,
	scalar @phases, join(', ', map { "$_ ×$expected_err{$_}" } sort keys %expected_err) || 'none',
	join(', ', map { "$_ $opcount{$_}" } sort keys %opcount),
	Time::HiRes::time() - $t_start, $t_run);

$final->stop(undef, fail_ok => 1);
done_testing();
