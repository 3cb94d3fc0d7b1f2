# Hi/Lo keys and streaming replication: a hot standby refuses to draw ids
# (SQLSTATE 25006) and, once promoted, continues above every id the
# primary handed out, including blocks held by sessions that never
# committed: a key is its table's sequence, which the standby replays.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IdGenCompat;

my $primary = PostgreSQL::Test::Cluster->new('hilo_primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'), v int);
	SELECT hilo_create_key('t', max_lo => 50);
	INSERT INTO t (v) SELECT g FROM generate_series(1, 120) g;
	CREATE TABLE unused (id bigint);
});
$primary->backup('b');
my $standby = PostgreSQL::Test::Cluster->new('hilo_standby');
$standby->init_from_backup($primary, 'b', has_streaming => 1);
$standby->start;

for my $i (1 .. 3)
{
	$primary->safe_psql('postgres', "INSERT INTO t (v) SELECT g FROM generate_series(1, 70) g");
}
# A session holding a block in an open transaction when the primary dies.
my $s = $primary->background_psql('postgres');
$s->query_safe('BEGIN');
my $held = query_line($s, "SELECT max(hilo_next('t')) FROM generate_series(1, 60)");
$primary->wait_for_catchup($standby);
my $committed_max = $primary->safe_psql('postgres', 'SELECT max(id) FROM t');

my ($ret, $out, $err) = $standby->psql('postgres', "SELECT hilo_next('t')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
isnt($ret, 0, 'a hot standby refuses hilo_next');
like($err, qr/25006: cannot draw Hi\/Lo ids during recovery/, 'with SQLSTATE 25006');
($ret, $out, $err) = $standby->psql('postgres', "SELECT hilo_next('unused')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/25006/, 'also for a table without a key');
is($standby->safe_psql('postgres', "SELECT table_name, sequence FROM id_gen.hilo_keys"), 't|t_id_seq',
	'the standby shows the key, read from the catalog');

$primary->stop('immediate');
$s->{run}->kill_kill;
$standby->promote;

my $after = $standby->safe_psql('postgres', 'INSERT INTO t (v) VALUES (0) RETURNING id');
cmp_ok($after, '>', $committed_max, 'promoted standby continues above committed ids');
cmp_ok($after, '>', $held, 'and above the block held by a session of the old primary');
$standby->safe_psql('postgres', "INSERT INTO t (v) SELECT g FROM generate_series(1, 200) g");
is($standby->safe_psql('postgres', 'SELECT count(*) = count(DISTINCT id) FROM t'), 't',
	'no duplicates after failover');
$standby->safe_psql('postgres', q{
		ALTER TABLE unused ALTER id SET DEFAULT hilo_next('unused');
		SELECT hilo_create_key('unused')});
cmp_ok($standby->safe_psql('postgres', 'INSERT INTO unused DEFAULT VALUES RETURNING id'), '>=', 1,
	'new keys can be made after promotion');

$standby->stop;
done_testing();
