# Where the event trigger that makes keys does not run: single-user mode
# and session_replication_role = replica.  A key is made only by its
# table owner's DDL or by hilo_create_key(), never by a draw: hilo_next()
# on a table whose short-form default never became a key fails with 55000
# and a hint naming both commands, and leaves nothing behind; the owner's
# hilo_create_key() then makes the key above the table's rows.  (Before,
# a background worker made keys at first use; its errors were tested here.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_without_event_triggers');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION id_gen;
	SET session_replication_role = replica;
	CREATE TABLE r (id bigint PRIMARY KEY DEFAULT hilo_next('r'), v int);
	RESET session_replication_role;
	INSERT INTO r SELECT g, 0 FROM generate_series(1, 40) g;
});
my ($ret, $out, $err) = $node->psql('postgres', "INSERT INTO r (v) VALUES (1)",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/55000: table r has no Hi\/Lo key/, 'replica role: no key was made, the draw fails with 55000');
like($err, qr/HINT:  .*SET DEFAULT hilo_next\('r'\).*hilo_create_key\('r', '<column>'\)/,
	'with a hint naming the DDL and hilo_create_key()');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_class WHERE relkind = 'S' AND relname LIKE 'r\\_%'"),
	'0', 'nothing was made');
is($node->safe_psql('postgres', "SELECT hilo_create_key('r')"), 'r_id_seq',
	'hilo_create_key() makes the key');
cmp_ok($node->safe_psql('postgres', "INSERT INTO r (v) VALUES (1) RETURNING id"), '>', 40,
	'above the table\'s rows');

# Single-user mode: no event trigger fires.
$node->stop;
my $single = sub {
	my ($sql) = @_;
	my ($stdout, $stderr) = ('', '');
	IPC::Run::run([ 'postgres', '--single', '-D', $node->data_dir, '-c', 'exit_on_error=true', 'postgres' ],
		'<', \$sql, '>', \$stdout, '2>', \$stderr);
	return $stdout . $stderr;
};
$single->(q{CREATE TABLE s (id bigint PRIMARY KEY DEFAULT hilo_next('s'), v int);
INSERT INTO s VALUES (7, 0);
});
my $log = $single->("SELECT hilo_next('s');\n");
like($log, qr/table s has no Hi\/Lo key/, 'single-user mode: CREATE TABLE made no key, a draw says so');
$log = $single->("SELECT hilo_create_key('s');\nSELECT hilo_next('s');\n");
my ($first) = $log =~ /hilo_next = "(\d+)"/;
cmp_ok($first // 0, '>', 7, 'hilo_create_key() in single-user mode: the key starts above the rows');
$node->start;
is($node->safe_psql('postgres', "SELECT table_name, sequence FROM id_gen.hilo_keys WHERE table_name = 's'::regclass"),
	's|s_id_seq', 'the key made in single-user mode is the table\'s');
cmp_ok($node->safe_psql('postgres', "INSERT INTO s (v) VALUES (1) RETURNING id"), '>', $first // 0,
	'and draws above what single-user mode drew');
$node->stop;
done_testing();
