# ORM hi tables against the real Hibernate 3.6 (Debian's libhibernate3-java):
# two JVMs key rows with Hibernate's "hilo" generator (hibernate_unique_key,
# next_hi) and its MultipleHiLoPerTableGenerator (hibernate_sequences, one
# row per entity) while pgbench sessions insert into the same tables with
# DEFAULT hilo_next(), the tables bound to those rows by hilo_bind_table().
# No id may be issued twice: the id columns have no unique constraint, so a
# duplicate would be stored and counted rather than refused.  Every block
# (id / (max_lo + 1)) must belong to one writer only, and lie below the hi
# row: the keys draw from their sequences, and the extension's trigger on
# the hi table parks the key's next value in the row whenever Hibernate
# writes it, so Hibernate's next read is a hi no hilo_next draws.  Missing Java,
# pgjdbc or Hibernate skips the test, unless ID_GEN_DRIVERS=required.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Cwd qw(abs_path);
use File::Basename qw(dirname);
use Time::HiRes qw(time);

my $required = ($ENV{ID_GEN_DRIVERS} // '') eq 'required';
my $drivers = abs_path(dirname(__FILE__) . '/../drivers');

# Hibernate 3.6 and what Debian's package depends on, plus pgjdbc.
my @jars = map { "/usr/share/java/$_.jar" } qw(hibernate3 antlr commons-collections3 dom4j
  geronimo-jpa_2.0_spec geronimo-jta-1.2-spec hibernate-commons-annotations slf4j-api
  slf4j-nop javassist postgresql);
my @absent = grep { !-r $_ } @jars;
if (@absent || system('javac -version >/dev/null 2>&1') != 0)
{
	my $why = @absent ? "missing @absent" : 'no javac';
	if ($required) { fail("Hibernate is required (ID_GEN_DRIVERS=required): $why"); }
	else { plan skip_all => "install libhibernate3-java, libjavassist-java, libslf4j-java, libpostgresql-jdbc-java and a JDK: $why"; }
	done_testing();
	exit;
}
my $classpath = join(':', @jars);

my $max_lo = 10;
my $orm_rows = 400;		# per JVM and table
my ($clients, $transactions) = (4, 300);

my $node = PostgreSQL::Test::Cluster->new('hibernate');
$node->init;
# The test cluster listens on a Unix socket only: allow TCP for Java.
$node->append_conf('postgresql.conf', "listen_addresses = 'localhost'\nmax_worker_processes = 16");
$node->start;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION id_gen;
	-- As Hibernate's schema tool creates and fills them.
	CREATE TABLE hibernate_unique_key (next_hi integer);
	INSERT INTO hibernate_unique_key VALUES (0);
	CREATE TABLE hibernate_sequences (sequence_name varchar(255), sequence_next_hi_value integer);
	INSERT INTO hibernate_sequences VALUES ('orm_multi', 0), ('someone_else', 7);
	CREATE TABLE orm_unique (id bigint NOT NULL DEFAULT hilo_next('orm_unique'), who text);
	CREATE INDEX ON orm_unique (id);
	CREATE TABLE orm_multi (id bigint NOT NULL DEFAULT hilo_next('orm_multi'), who text);
	CREATE INDEX ON orm_multi (id);
	SELECT hilo_bind_table('orm_unique', 'hibernate_unique_key', 'next_hi', $max_lo);
	SELECT hilo_bind_table('orm_multi', 'hibernate_sequences', 'sequence_next_hi_value', $max_lo,
	                       'legacy', 'sequence_name', 'orm_multi');
});

# Compile the program once.
my $classes = "$PostgreSQL::Test::Utils::tmp_check/hibernate_classes";
mkdir $classes;
my ($jout, $jerr) = ('', '');
ok(IPC::Run::run([ 'javac', '-cp', $classpath, '-d', $classes, "$drivers/HibernateHilo.java" ],
		'>', \$jout, '2>', \$jerr), 'HibernateHilo.java compiles against Hibernate 3.6')
  or diag($jerr);

my $url = sprintf('jdbc:postgresql://localhost:%d/postgres', $node->port);
my $user = scalar(getpwuid($<));
my $dir = $node->basedir;
open my $fh, '>', "$dir/sql.sql" or die $!;
print $fh "INSERT INTO orm_unique (who) VALUES ('sql');\nINSERT INTO orm_multi (who) VALUES ('sql');\n";
close $fh;

# Both JVMs and the SQL sessions at once.
my %out;
my @jvms;
for my $who ('orm-1', 'orm-2')
{
	($out{$who}, $out{"$who err"}) = ('', '');
	push @jvms, [ $who, IPC::Run::start(
		[ 'java', '-cp', "$classes:$classpath", 'HibernateHilo', $url, $user, $who, $orm_rows, $max_lo ],
		'>', \$out{$who}, '2>', \$out{"$who err"}) ];
}
# The SQL sessions start once both JVMs are writing.
$node->poll_query_until('postgres', q{
	SELECT count(DISTINCT who) = 2 FROM orm_unique WHERE who LIKE 'orm-%'})
  or die 'the JVMs did not get going: ' . join("\n", map { $out{$_} } sort keys %out);
my ($bout, $berr) = ('', '');
my $bench_ok = IPC::Run::run([ 'pgbench', '--no-vacuum', '-h', $node->host, '-p', $node->port,
		'-f', "$dir/sql.sql", "--client=$clients", "--transactions=$transactions", 'postgres' ],
	'>', \$bout, '2>', \$berr);
ok($bench_ok, "pgbench: $clients clients, $transactions transactions each, no client failed")
  or diag("$bout\n$berr");
for my $jvm (@jvms)
{
	my ($who, $h) = @$jvm;
	$h->finish;
	like($out{$who}, qr/^ok \Q$who\E wrote \d+ rows$/m, "$who: Hibernate wrote its rows")
	  or diag("stdout:\n$out{$who}\nstderr:\n" . substr($out{"$who err"}, -3000));
}

my $sql_rows = $clients * $transactions;
for my $t ([ 'orm_unique', 'SELECT next_hi FROM hibernate_unique_key' ],
	[ 'orm_multi', q{SELECT sequence_next_hi_value FROM hibernate_sequences WHERE sequence_name = 'orm_multi'} ])
{
	my ($table, $hi) = @$t;
	my $size = $max_lo + 1;
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FILTER (WHERE who = 'orm-1') || ' ' || count(*) FILTER (WHERE who = 'orm-2')
		       || ' ' || count(*) FILTER (WHERE who = 'sql') FROM $table}),
		"$orm_rows $orm_rows $sql_rows", "$table: both JVMs and every SQL session wrote their rows");
	is($node->safe_psql('postgres', "SELECT count(*) - count(DISTINCT id) FROM $table"),
		'0', "$table: 0 duplicate keys");
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM (SELECT id / $size AS hi FROM $table GROUP BY 1
		                       HAVING count(DISTINCT who) > 1) x}),
		'0', "$table: no block of $size ids (hi*(max_lo+1)) holds ids of two writers");
	# Writers took turns on the row: some SQL block lies between ORM blocks.
	is($node->safe_psql('postgres', qq{
		SELECT EXISTS (SELECT 1 FROM $table s WHERE s.who = 'sql'
		                  AND s.id / $size > (SELECT min(id) / $size FROM $table WHERE who LIKE 'orm-%')
		                  AND s.id / $size < (SELECT max(id) / $size FROM $table WHERE who LIKE 'orm-%'))}),
		't', "$table: the JVMs and the SQL sessions advanced the row in turns");
	is($node->safe_psql('postgres', "SELECT max(id) / $size < ($hi) FROM $table"),
		't', "$table: every id lies below the hi row's current block");
}
is($node->safe_psql('postgres',
		q{SELECT sequence_next_hi_value FROM hibernate_sequences WHERE sequence_name = 'someone_else'}),
	'7', 'hibernate_sequences: the other entity\'s row was not touched');

# What a block costs: an ORM-bound key with one id per block draws every
# block from its sequence and checks the hi table's trigger; the row keeps
# the value parked at binding, which no draw hands out (figure for
# docs/hilo.md, not a check).
$node->safe_psql('postgres', q{
	CREATE TABLE cost_hi (next_hi bigint);
	INSERT INTO cost_hi VALUES (0);
	CREATE TABLE cost (id bigint DEFAULT hilo_next('cost'));
	SELECT hilo_bind_table('cost', 'cost_hi', 'next_hi', 1, 'classic');
});
my $parked = $node->safe_psql('postgres', 'SELECT next_hi FROM cost_hi');
my $start = time();
my $drawn = $node->safe_psql('postgres',
	q{SELECT count(*) FILTER (WHERE id = (SELECT next_hi FROM cost_hi)) FROM
	   (SELECT hilo_next('cost') AS id FROM generate_series(1, 200)) s});
my $ms = (time() - $start) * 1000 / 200;
is($node->safe_psql('postgres', 'SELECT next_hi FROM cost_hi'), $parked,
	'draws leave the hi row as parked');
is($drawn, '0', 'and none of 200 blocks of one id is the parked hi');
note(sprintf('%.2f ms per block of an ORM-bound key (200 blocks, one session)', $ms));

$node->stop;
done_testing();
