# When the background worker that creates a key cannot run, the first use
# fails with a clear error and leaves nothing behind; a later call, once
# the cause is gone, creates the key normally.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('hilo_worker_errors');
$node->init;
# The logical replication launcher takes the only background worker slot.
$node->append_conf('postgresql.conf', "max_worker_processes = 1\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE ROLE extowner SUPERUSER LOGIN;
	SET ROLE extowner;
	CREATE EXTENSION id_gen;
	RESET ROLE;
	CREATE TABLE t (id bigint DEFAULT hilo_next('t'));
});

my ($ret, $out, $err) = $node->psql('postgres', "SELECT hilo_next('t')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/53000: could not start a background worker to create the Hi\/Lo key of table t/,
	'no free worker slot: ERROR 53000');
like($err, qr/HINT:  Raise max_worker_processes/, 'with a hint');
is($node->safe_psql('postgres', 'SELECT count(*) FROM id_gen.hilo_key WHERE relid = \'t\'::regclass'), '0',
	'nothing was created');

# A key made in its table's transaction needs no worker, and its first
# uses in other sessions, before anyone drew from it, need none either
# (nothing to repair: it lies above the table's ids).
$node->safe_psql('postgres', q{
	BEGIN;
	CREATE TABLE u (id bigint DEFAULT hilo_next('u'));
	SELECT hilo_set_max_lo('u', 10);
	COMMIT;
});
is($node->safe_psql('postgres', "SELECT hilo_next('u')"), '1',
	'a fresh key, not drawn from yet, is used without a worker');

$node->append_conf('postgresql.conf', "max_worker_processes = 8\n");
$node->restart;

# The worker connects as the extension owner, who must be able to log in.
$node->safe_psql('postgres', 'ALTER ROLE extowner NOLOGIN');
($ret, $out, $err) = $node->psql('postgres', "SELECT hilo_next('t')",
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/55000: could not create the Hi\/Lo key of table t/,
	'a failing worker: ERROR 55000');
is($node->safe_psql('postgres', 'SELECT count(*) FROM id_gen.hilo_key WHERE relid = \'t\'::regclass'), '0',
	'nothing was created');
like(slurp_file($node->logfile), qr/role "extowner" is not permitted to log in/,
	'the worker\'s own error is in the server log');

$node->safe_psql('postgres', 'ALTER ROLE extowner LOGIN');
is($node->safe_psql('postgres', "SELECT hilo_next('t')"), '1', 'works once the cause is gone');

$node->stop;
done_testing();
