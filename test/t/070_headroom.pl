# id_gen.headroom as monitoring reads it:
#  1. its cost per Hi/Lo key, with 100 keys;
#  2. Debian's prometheus-postgres-exporter (0.11) with
#     monitoring/postgres_exporter_queries.yaml, as a pg_monitor role: the
#     metrics are scraped, and a key driven into its node's last 5% (then 0.5%)
#     turns status_code 1 (then 2).  The exporter is required when
#     ID_GEN_DRIVERS=required (scripts/test.sh), else its part is skipped;
#  3. polling the view from one session while pgbench clients generate ids of
#     every kind: the poll never waits on a heavyweight lock and no generator
#     waits for the poll.  A control run first shows the sampler does see such
#     a wait (the poll behind a lock held on a key's sequence).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use HTTP::Tiny;
use Time::HiRes qw(usleep);
use FindBin;

my $required = ($ENV{ID_GEN_DRIVERS} // '') eq 'required';
my $node = PostgreSQL::Test::Cluster->new('headroom');
$node->init;
$node->append_conf('postgresql.conf',
	"id_gen.worker_id = 3\nid_gen.hilo_node_ranges = on\nid_gen.launch_id = 7\nmax_connections = 30\n");
$node->start;
$node->safe_psql('postgres', q{
CREATE EXTENSION id_gen;
CREATE ROLE exporter LOGIN IN ROLE pg_monitor;
CREATE TABLE h (id bigint PRIMARY KEY DEFAULT hilo_next('h'));
SELECT hilo_create_key('h');
CREATE TABLE near (id bigint PRIMARY KEY DEFAULT hilo_next('near'));
SELECT hilo_create_key('near');
INSERT INTO near DEFAULT VALUES;
DO $$ BEGIN
    FOR i IN 1..98 LOOP
        EXECUTE format('CREATE TABLE k%s (id bigint PRIMARY KEY DEFAULT hilo_next(%L))', i, 'k' || i);
        PERFORM hilo_create_key(('k' || i)::regclass);
        EXECUTE format('INSERT INTO k%s DEFAULT VALUES', i);
    END LOOP;
END $$;
INSERT INTO h DEFAULT VALUES;
CREATE TABLE samples (poll_active int, poll_lock_waits int, poll_lwlock_waits int, blocked_by_poll int,
                      poll_locks text[]);
CREATE FUNCTION poll_ms(n int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
    FOR i IN 1..n LOOP PERFORM count(*) FROM id_gen.headroom; END LOOP;
    RETURN extract(epoch FROM clock_timestamp() - t0) * 1000 / n;
END $$;
});

# The node's range (node ranges on): worker id 3 owns 3 * 2^43 .. 4 * 2^43 - 1.
is($node->safe_psql('postgres',
	"SELECT detail->>'first_id', detail->>'last_id', status FROM id_gen.headroom WHERE object = 'public.near'"),
	'26388279066624|35184372088831|ok', 'a key of worker id 3 is measured against its node range');
like($node->safe_psql('postgres', "SELECT reason FROM id_gen.headroom WHERE generator = 'node identity'"),
	qr/^worker id 3 \(set\), launch id 7 \(set\)/, 'the node identity row says where the ids come from');

# 1. Cost: 100 keys, 20 polls.
my $keys = $node->safe_psql('postgres', "SELECT count(*) FROM id_gen.headroom WHERE generator = 'hilo'");
is($keys, '100', '100 Hi/Lo keys, one row each');
$node->safe_psql('postgres', 'SELECT poll_ms(5)');    # warm the caches
# the best of three runs of 20 polls: the machine is shared
my $poll_ms = $node->safe_psql('postgres', 'SELECT least(poll_ms(20), poll_ms(20), poll_ms(20))');
my $rows = $node->safe_psql('postgres', 'SELECT count(*) FROM id_gen.headroom');
note(sprintf('one poll of %d rows (%d Hi/Lo keys): %.2f ms, %.1f us per row', $rows, $keys, $poll_ms,
	$poll_ms * 1000 / $rows));
cmp_ok($poll_ms / $rows, '<', 0.25, 'a poll costs well under a millisecond per key');

# 2. The exporter.
sub which
{
	my ($name) = @_;
	for my $dir (split /:/, "$ENV{PATH}:/usr/bin:/usr/sbin")
	{
		return "$dir/$name" if -x "$dir/$name";
	}
	return undef;
}
my $exporter = which('prometheus-postgres-exporter') // which('postgres_exporter');
SKIP:
{
	if (!$exporter)
	{
		fail('prometheus-postgres-exporter is required (ID_GEN_DRIVERS=required)') if $required;
		skip 'prometheus-postgres-exporter is not installed', 7;
	}
	my $port = PostgreSQL::Test::Cluster::get_free_port();
	my $queries = "$FindBin::Bin/../../monitoring/postgres_exporter_queries.yaml";
	my ($out, $err) = ('', '');
	local $ENV{DATA_SOURCE_NAME} =
	  'host=' . $node->host . ' port=' . $node->port . ' user=exporter dbname=postgres sslmode=disable';
	my $h = IPC::Run::start(
		[ $exporter, "--extend.query-path=$queries", '--disable-default-metrics',
		  '--disable-settings-metrics', '--no-collector.database', '--no-collector.bgwriter',
		  "--web.listen-address=127.0.0.1:$port" ],
		'>', \$out, '2>', \$err);
	my $http = HTTP::Tiny->new(timeout => 10);
	my $scrape = sub {
		for (1 .. 100)
		{
			my $r = $http->get("http://127.0.0.1:$port/metrics");
			return $r->{content} if $r->{success} && $r->{content} =~ /^id_gen_headroom_status_code/m;
			usleep(100_000);
		}
		return '';
	};
	my $metric = sub {
		my ($text, $name, $generator, $object) = @_;
		return $text =~ /^\Q$name\E\{generator="\Q$generator\E",object="\Q$object\E"[^}]*\} (\S+)$/m ? $1 : undef;
	};
	my $m = $scrape->();
	ok($m ne '', 'the exporter serves id_gen metrics') or diag($err);
	like($m, qr/^pg_exporter_user_queries_load_error\{[^}]*\} 0$/m, 'the query file loads');
	like($m, qr/^pg_exporter_last_scrape_error 0$/m, 'the queries run as a pg_monitor role');
	is($metric->($m, 'id_gen_headroom_status_code', 'snowflake', 'this server'), '0', 'snowflake: ok');
	is($metric->($m, 'id_gen_headroom_status_code', 'hilo', 'public.near'), '0', 'the key near: ok');

	# Into the node range's last 5%, then its last 0.5%.
	$node->safe_psql('postgres', q{
SELECT setval('near_id_seq', 26388279066624 + (0.95 * 8796093022208)::bigint);
INSERT INTO near DEFAULT VALUES;});
	$m = $scrape->();
	is($metric->($m, 'id_gen_headroom_status_code', 'hilo', 'public.near'), '1',
		'95% of the node range used: status_code 1 (warning)');
	$node->safe_psql('postgres', q{
SELECT setval('near_id_seq', 26388279066624 + (0.995 * 8796093022208)::bigint);
INSERT INTO near DEFAULT VALUES;});
	$m = $scrape->();
	is($metric->($m, 'id_gen_headroom_status_code', 'hilo', 'public.near'), '2',
		'99.5% of the node range used: status_code 2 (critical)');
	note('scraped: ' . join(' ', grep { /public\.near|generator="snowflake"/ } split /\n/, $m));
	$h->signal('TERM');
	$h->finish;
}

# 3. Polling under load.  The sampler records, every 20 ms, whether the poll
# session is active, waits on a heavyweight lock or an LWLock, whether any
# other session waits for it, and which locks it holds.
my $sampler_sql = q{
DO $$ BEGIN
    FOR i IN 1..%d LOOP
        INSERT INTO samples
        SELECT count(*) FILTER (WHERE a.state = 'active'),
               count(*) FILTER (WHERE a.wait_event_type = 'Lock'),
               count(*) FILTER (WHERE a.wait_event_type = 'LWLock'),
               (SELECT count(*) FROM pg_stat_activity w
                 WHERE w.wait_event_type = 'Lock' AND w.pid <> pg_backend_pid()
                   AND w.application_name <> 'headroom_poll'
                   AND EXISTS (SELECT FROM pg_stat_activity p WHERE p.application_name = 'headroom_poll'
                                  AND p.pid = ANY (pg_blocking_pids(w.pid)))),
               (SELECT array_agg(DISTINCT l.locktype || ' ' || l.mode || coalesce(' ' || l.relation::regclass::text, ''))
                  FROM pg_locks l JOIN pg_stat_activity p ON p.pid = l.pid
                 WHERE p.application_name = 'headroom_poll' AND l.granted)
          FROM pg_stat_activity a WHERE a.application_name = 'headroom_poll';
        COMMIT;
        PERFORM pg_sleep(0.02);
    END LOOP;
END $$;
};
my $connstr = $node->connstr('postgres');

# Control: a lock held on a key's sequence (ALTER SEQUENCE, in a transaction
# kept open) makes the poll wait; the sampler sees it.
my $seq = $node->safe_psql('postgres', "SELECT sequence FROM id_gen.hilo_keys WHERE table_name = 'h'::regclass");
my $holder = IPC::Run::start(['psql', '-X', '-q', '-d', $connstr, '-c',
	"BEGIN; ALTER SEQUENCE $seq CACHE 1; SELECT pg_sleep(2); COMMIT;"]);
usleep(300_000);
my $poller = IPC::Run::start(['psql', '-X', '-q', '-d', "$connstr application_name=headroom_poll", '-c',
	'SELECT count(*) FROM id_gen.headroom']);
$node->safe_psql('postgres', sprintf($sampler_sql, 40));
$holder->finish;
$poller->finish;
cmp_ok($node->safe_psql('postgres', 'SELECT sum(poll_lock_waits) FROM samples'), '>', 0,
	'control: the sampler sees the poll wait behind a lock');
$node->safe_psql('postgres', 'TRUNCATE samples');

# The load: 4 pgbench clients drawing every kind of id for 8 s; one session
# polling the view as fast as it can; the sampler.
my $gen = "$PostgreSQL::Test::Utils::tmp_check/headroom_gen.sql";
open(my $fh, '>', $gen) or die;
print $fh "INSERT INTO h SELECT FROM generate_series(1, 20);\n"
  . "SELECT snowflake_next(), jsid_next(), decimal_id(), timeuuid_next(), uuidv7();\n";
close $fh;
my $poll = "$PostgreSQL::Test::Utils::tmp_check/headroom_poll.sql";
open($fh, '>', $poll) or die;
print $fh "SELECT count(*) FROM id_gen.headroom;\n";
close $fh;
my ($gen_out, $poll_out) = ('', '');
my $gens = IPC::Run::start(['pgbench', '-n', '-c', '4', '-j', '2', '-T', '8', '-f', $gen, $connstr],
	'>', \$gen_out, '2>&1');
my $polls = IPC::Run::start(['pgbench', '-n', '-c', '1', '-T', '8', '-f', $poll,
	"$connstr application_name=headroom_poll"], '>', \$poll_out, '2>&1');
$node->safe_psql('postgres', sprintf($sampler_sql, 300));
ok($gens->finish, 'the generating clients finished') or diag($gen_out);
ok($polls->finish, 'the polling client finished') or diag($poll_out);
my ($gen_tps) = $gen_out =~ /tps = ([\d.]+)/;
my ($poll_lat) = $poll_out =~ /latency average = ([\d.]+ ms)/;
my ($polls_done) = $poll_out =~ /number of transactions actually processed: (\d+)/;
note("under load: generators $gen_tps tps, $polls_done polls, poll latency average $poll_lat");
my ($samples, $active, $lock_waits, $lwlock_waits, $blocked) = split /\|/, $node->safe_psql('postgres',
	'SELECT count(*), count(*) FILTER (WHERE poll_active > 0), sum(poll_lock_waits), sum(poll_lwlock_waits), sum(blocked_by_poll) FROM samples');
cmp_ok($active, '>', $samples / 10, "the poll was caught active in $active of $samples samples");
is($lock_waits, '0', 'the poll never waited on a heavyweight lock');
is($blocked, '0', 'no session ever waited for the poll');
note("the poll was seen in an LWLock wait in $lwlock_waits samples");
my $locks = $node->safe_psql('postgres',
	"SELECT string_agg(DISTINCT l, ', ' ORDER BY l) FROM samples, unnest(poll_locks) l");
note("locks the poll holds: $locks");
# Generators take the key lock (locktype object), ShareUpdateExclusiveLock on
# id_gen.snowflake_floor and id_gen.decimal_counter, RowExclusiveLock on a key's
# sequence (nextval): the poll holds no lock that conflicts with those.
unlike($locks, qr/(^|, )object |\b(ShareUpdateExclusiveLock|ShareLock|ShareRowExclusiveLock|AccessExclusiveLock)\b|(?<!virtualxid )\bExclusiveLock\b/,
	'the poll holds no key lock and no lock that conflicts with a generator\'s');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM h'), '>', 1000, 'the clients generated ids');

$node->stop;
done_testing();
