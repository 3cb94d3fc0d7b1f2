# ORM forms against the real Hibernate 3.6 (Debian's libhibernate3-java):
# two JVMs key rows with Hibernate's "seqhilo" generator (a sequence, ids
# hi * (max_lo + 1) + lo) and its SequenceStyleGenerator with the "pooled"
# optimizer (3.6: value v covers v - increment .. v - 1) while pgbench
# sessions insert into the same tables with DEFAULT hilo_next('<the
# sequence>', 'legacy', max_lo) and hilo_next('<the sequence>',
# 'pooled_hibernate3'): the ORM's sequence named in the default, as
# nextval('seq') names it.  No id may be issued twice: the id columns have
# no unique constraint, so a duplicate would be stored and counted rather
# than refused.  (An ORM's hi table is not served: a hi row updated in the
# caller's transaction is safe only with an autonomous transaction; move
# the ORM to its sequence generator.)  Missing Java, pgjdbc or Hibernate
# skips the test, unless ID_GEN_DRIVERS=required.
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
	-- As Hibernate's schema tool creates them; the pooled sequence starts
	-- past Hibernate's initial value (its first-call rule for that value
	-- takes two values at once).
	CREATE SEQUENCE orm_seqhilo_seq;
	CREATE SEQUENCE orm_pooled_seq INCREMENT $max_lo;
	SELECT setval('orm_pooled_seq', 100);
	CREATE TABLE orm_seqhilo (id bigint NOT NULL DEFAULT hilo_next('orm_seqhilo_seq', 'legacy', $max_lo), who text);
	CREATE INDEX ON orm_seqhilo (id);
	CREATE TABLE orm_pooled (id bigint NOT NULL DEFAULT hilo_next('orm_pooled_seq', 'pooled_hibernate3'), who text);
	CREATE INDEX ON orm_pooled (id);
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
print $fh "INSERT INTO orm_seqhilo (who) VALUES ('sql');\nINSERT INTO orm_pooled (who) VALUES ('sql');\n";
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
	SELECT count(DISTINCT who) = 2 FROM orm_seqhilo WHERE who LIKE 'orm-%'})
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
for my $t ([ 'orm_seqhilo', "id / ($max_lo + 1)" ], [ 'orm_pooled', "id / $max_lo" ])
{
	my ($table, $block) = @$t;
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FILTER (WHERE who = 'orm-1') || ' ' || count(*) FILTER (WHERE who = 'orm-2')
		       || ' ' || count(*) FILTER (WHERE who = 'sql') FROM $table}),
		"$orm_rows $orm_rows $sql_rows", "$table: both JVMs and every SQL session wrote their rows");
	is($node->safe_psql('postgres', "SELECT count(*) - count(DISTINCT id) FROM $table"),
		'0', "$table: 0 duplicate keys");
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM (SELECT $block AS b FROM $table GROUP BY 1
		                       HAVING count(DISTINCT who) > 1) x}),
		'0', "$table: no block holds ids of two writers");
	# Writers took turns on the sequence: some SQL block lies between ORM blocks.
	is($node->safe_psql('postgres', qq{
		SELECT EXISTS (SELECT 1 FROM $table s WHERE s.who = 'sql'
		                  AND s.id > (SELECT min(id) FROM $table WHERE who LIKE 'orm-%')
		                  AND s.id < (SELECT max(id) FROM $table WHERE who LIKE 'orm-%'))}),
		't', "$table: the JVMs and the SQL sessions drew from the sequence in turns");
}

$node->stop;
done_testing();
