# PostgreSQL 19 replicates sequence values: a publication FOR ALL SEQUENCES
# copies every sequence of the publisher to its subscribers, at CREATE
# SUBSCRIPTION and at each ALTER SUBSCRIPTION ... REFRESH SEQUENCES, lower
# values too.  id_gen keeps its state in sequences (Hi/Lo keys, the clock
# floor, decimal_id's counter), so a database with id_gen refuses to publish
# sequences, and a database that publishes them cannot take the extension.
# Two primaries that write the same tables, one replicating into the other,
# then REFRESH SEQUENCES and more writes: no id is handed out twice and no
# sequence of the subscriber moves back.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

plan skip_all => 'sequence replication is new in PostgreSQL 19'
  if PostgreSQL::Test::Cluster->new('probe')->pg_version->major < 19;

my %node;
my $worker = 1;
for my $name ('a', 'b')
{
	my $n = PostgreSQL::Test::Cluster->new("primary_$name");
	$n->init(allows_streaming => 'logical');
	$n->append_conf('postgresql.conf',
		"id_gen.worker_id = $worker\nid_gen.launch_id = $worker\nid_gen.hilo_node_ranges = on\n");
	$worker++;
	$n->start;
	$n->safe_psql('postgres', q{
		CREATE EXTENSION id_gen;
		CREATE TABLE events (id bigint PRIMARY KEY DEFAULT snowflake_next(),
		                     d bigint UNIQUE DEFAULT decimal_id(),
		                     h bigint UNIQUE, node text);
		CREATE TABLE h (id bigint PRIMARY KEY DEFAULT hilo_next('h'));
		SELECT hilo_create_key('h');});
	$node{$name} = $n;
}
my ($a, $b) = @node{'a', 'b'};

# Publishing sequences is refused, in every form 19 has.
for my $sql ('CREATE PUBLICATION p_seq FOR ALL SEQUENCES',
	'CREATE PUBLICATION p_both FOR ALL TABLES, ALL SEQUENCES')
{
	my ($ret, $out, $err) = $a->psql('postgres', $sql);
	isnt($ret, 0, "refused: $sql");
	like($err, qr/would publish the sequences id_gen keeps its state in/, "the error says why: $sql");
}
$a->safe_psql('postgres', 'CREATE PUBLICATION p FOR TABLE events');
my ($ret, $out, $err) = $a->psql('postgres', 'ALTER PUBLICATION p SET ALL SEQUENCES');
isnt($ret, 0, 'refused: ALTER PUBLICATION ... SET ALL SEQUENCES');
is($a->safe_psql('postgres', 'SELECT count(*) FROM pg_publication WHERE puballsequences'),
	'0', 'no publication of sequences was left behind');

# A database that publishes its sequences already cannot take the extension.
$a->safe_psql('postgres', 'CREATE DATABASE plain');
$a->safe_psql('plain', 'CREATE PUBLICATION allseq FOR ALL SEQUENCES');
($ret, $out, $err) = $a->psql('plain', 'CREATE EXTENSION id_gen');
isnt($ret, 0, 'CREATE EXTENSION refused in a database that publishes all sequences');
like($err, qr/publication "allseq" would publish/, 'the error names the publication');

# Both nodes write; b also receives a's rows.
sub write_rows
{
	my ($n, $name, $rows) = @_;
	$n->safe_psql('postgres', qq{
		INSERT INTO h SELECT FROM generate_series(1, $rows);
		INSERT INTO events (h, node) SELECT hilo_next('h'), '$name' FROM generate_series(1, $rows);});
}
write_rows($a, 'a', 200);
write_rows($b, 'b', 200);
my $connstr = 'port=' . $a->port . ' host=' . $a->host . ' dbname=postgres';
$b->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p");
$b->wait_for_subscription_sync($a, 's');

my $seqs = q{SELECT string_agg(format('%s=%s', c.oid::regclass, coalesce(s.last_value, 0)), ' ' ORDER BY c.oid::regclass::text)
               FROM pg_class c, LATERAL pg_sequence_last_value(c.oid) s(last_value) WHERE c.relkind = 'S'};
my %before = map { split /=/ } split / /, $b->safe_psql('postgres', $seqs);
ok(%before, 'the subscriber keeps state in sequences: ' . join(' ', sort keys %before));
$b->safe_psql('postgres', 'ALTER SUBSCRIPTION s REFRESH SEQUENCES');
write_rows($a, 'a', 200);
write_rows($b, 'b', 200);
$a->wait_for_catchup('s');
my %after = map { split /=/ } split / /, $b->safe_psql('postgres', $seqs);
my @back = grep { defined $before{$_} && ($after{$_} // 0) < $before{$_} } keys %before;
is("@back", '', 'after REFRESH SEQUENCES no sequence of the subscriber moved back');

is($b->safe_psql('postgres',
		"SELECT count(*), count(DISTINCT id) = count(*), count(DISTINCT d) = count(*),
		        count(DISTINCT h) = count(*), count(*) FILTER (WHERE node = 'a')
		   FROM events"),
	'800|t|t|t|400', "the subscriber holds both nodes' 800 rows, no id twice in any generator");

# The hazard is real: with the event trigger disabled (a superuser's act), a
# publication of all sequences moves the subscriber's state back.
write_rows($b, 'b', 400);
%before = map { split /=/ } split / /, $b->safe_psql('postgres', $seqs);
$a->safe_psql('postgres', q{
	ALTER EVENT TRIGGER id_gen_refuse_sequence_publication DISABLE;
	CREATE PUBLICATION pseq FOR ALL SEQUENCES;});
$b->safe_psql('postgres', 'ALTER SUBSCRIPTION s ADD PUBLICATION pseq');
$b->wait_for_subscription_sync($a, 's');
%after = map { split /=/ } split / /, $b->safe_psql('postgres', $seqs);
@back = sort grep { defined $before{$_} && ($after{$_} // 0) < $before{$_} } keys %before;
isnt("@back", "",
	"without the refusal, the publisher's values move the subscriber's state back (@back)");

done_testing();
