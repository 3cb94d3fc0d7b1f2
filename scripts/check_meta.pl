#!/usr/bin/perl
# scripts/check_meta.pl: checks META.json, in the directory given (default:
# the current one), against the PGXN Meta Spec 1.0.0 (https://pgxn.org/spec/)
# and against the rest of the distribution:
#
# - the spec: required keys (name, version, abstract, maintainer, license,
#   provides, meta-spec), SemVer versions, names as terms, a known license,
#   release_status, provides entries (file, version), resources (bugtracker,
#   repository), prereqs (phases and relationships);
# - the tree: every file META.json names exists; the version is the
#   control file's default_version (the same, or X.Y -> X.Y.z), provides.id_gen names its
#   full install script sql/id_gen--<default_version>.sql; debian/changelog
#   packages that version; CHANGELOG.md has a section for it.
#
# Exits 1 on any error; placeholder URLs (example.invalid) are warnings.
# Only core Perl (JSON::PP), so it runs wherever the build does: the spec's
# reference validator (PGXN::Meta::Validator, from CPAN) is neither in Debian
# nor in npm.
use strict;
use warnings;
use JSON::PP;

my $dir = shift // '.';
my @errors;
my @warnings;
sub err  { push @errors, join '', @_ }
sub warn_ { push @warnings, join '', @_ }

sub slurp {
    my ($f) = @_;
    open my $fh, '<', "$dir/$f" or return undef;
    local $/;
    return scalar <$fh>;
}

my $text = slurp('META.json') // die "$dir/META.json: cannot read: $!\n";
my $meta = eval { JSON::PP->new->relaxed(0)->decode($text) }
    or die "$dir/META.json: not valid JSON: $@";
ref $meta eq 'HASH' or die "$dir/META.json: not a JSON object\n";

my $semver = qr/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
my $term   = qr{^[^/\\\s[:cntrl:]]{2,}$};
my $uri    = qr{^[a-z][a-z0-9+.-]*://\S+$}i;
my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1 artistic_2
    bsd freebsd gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1 lgpl_3_0 mit mozilla_1_0
    mozilla_1_1 openssl perl_5 postgresql qpl_1_0 ssleay sun zlib open_source restricted
    unrestricted unknown);
my %top = map { $_ => 1 } qw(name version abstract maintainer license provides meta-spec
    description generated_by tags no_index prereqs release_status resources);

sub str { defined $_[0] && !ref $_[0] && length $_[0] }
sub file_exists {
    my ($key, $path) = @_;
    if (!str($path) || $path =~ m{^/|\\|(^|/)\.\.(/|$)}) { err "$key: not a relative unix path: ", $path // 'null'; return }
    err "$key: $path does not exist" unless -f "$dir/$path";
}
sub url_ok {
    my ($key, $v) = @_;
    if (!str($v) || $v !~ $uri) { err "$key: not a URL: ", $v // 'null'; return }
    warn_ "$key: $v is a placeholder" if $v =~ m{//[^/]*\.invalid(/|$)};
}

# The spec's keys.
for my $k (qw(name version abstract maintainer license provides meta-spec)) {
    err "required key $k is missing" unless exists $meta->{$k};
}
for my $k (sort keys %$meta) {
    err "unknown key $k (custom keys start with x_ or X_)" unless $top{$k} || $k =~ /^x_./i;
}
err "name: not a term: ", $meta->{name} // 'null' unless str($meta->{name}) && $meta->{name} =~ $term;
err "version: not a SemVer: ", $meta->{version} // 'null' unless str($meta->{version}) && $meta->{version} =~ $semver;
err "abstract: empty" unless str($meta->{abstract});
for my $k (qw(description generated_by)) {
    err "$k: not a string" if exists $meta->{$k} && !str($meta->{$k});
}
my @maint = ref $meta->{maintainer} eq 'ARRAY' ? @{ $meta->{maintainer} } : ($meta->{maintainer});
err "maintainer: empty" unless @maint;
err "maintainer: not a string" for grep { !str($_) } @maint;
my $lic = $meta->{license};
if (ref $lic eq 'HASH') {
    err "license: empty" unless %$lic;
    url_ok("license/$_", $lic->{$_}) for sort keys %$lic;
} else {
    my @l = ref $lic eq 'ARRAY' ? @$lic : ($lic);
    err "license: empty" unless @l;
    err "license: not one of the spec's: ", $_ // 'null' for grep { !str($_) || !$licenses{$_} } @l;
}
my $spec = $meta->{'meta-spec'};
err "meta-spec/version: must be 1.0.0" unless ref $spec eq 'HASH' && ($spec->{version} // '') eq '1.0.0';
url_ok('meta-spec/url', $spec->{url}) if ref $spec eq 'HASH' && exists $spec->{url};
if (exists $meta->{release_status}) {
    err "release_status: must be stable, testing or unstable"
        unless ($meta->{release_status} // '') =~ /^(stable|testing|unstable)$/;
}
if (exists $meta->{tags}) {
    my $t = $meta->{tags};
    if (ref $t ne 'ARRAY' || !@$t) { err "tags: not a non-empty list" }
    else { err "tags: not a tag: ", $_ // 'null' for grep { !str($_) || length > 255 || m{[/\\[:cntrl:]]} } @$t }
}
my $prov = $meta->{provides};
if (ref $prov ne 'HASH' || !%$prov) {
    err "provides: must name at least one extension";
} else {
    for my $ext (sort keys %$prov) {
        my $e = $prov->{$ext};
        err "provides: not a term: $ext" unless $ext =~ $term;
        if (ref $e ne 'HASH') { err "provides/$ext: not an object"; next }
        file_exists("provides/$ext/file", $e->{file});
        file_exists("provides/$ext/docfile", $e->{docfile}) if exists $e->{docfile};
        err "provides/$ext/version: not a SemVer: ", $e->{version} // 'null'
            unless str($e->{version}) && $e->{version} =~ $semver;
        for my $k (sort keys %$e) {
            err "provides/$ext: unknown key $k" unless $k =~ /^(file|docfile|version|abstract)$/ || $k =~ /^x_./i;
        }
    }
}
if (exists $meta->{prereqs}) {
    my $p = $meta->{prereqs};
    if (ref $p ne 'HASH') { err "prereqs: not an object" }
    else {
        for my $phase (sort keys %$p) {
            err "prereqs: unknown phase $phase" unless $phase =~ /^(configure|build|test|runtime|develop)$/ || $phase =~ /^x_./i;
            for my $rel (sort keys %{ $p->{$phase} }) {
                err "prereqs/$phase: unknown relationship $rel" unless $rel =~ /^(requires|recommends|suggests|conflicts)$/;
                for my $req (sort keys %{ $p->{$phase}{$rel} }) {
                    my $v = $p->{$phase}{$rel}{$req};
                    err "prereqs/$phase/$rel/$req: not a version or range: ", $v // 'null'
                        unless str($v) && ($v eq '0' || $v =~ $semver
                            || $v =~ /^\s*(?:(?:[<>]=?|[!=]=)\s*\d+\.\d+\.\d+\S*\s*(?:,\s*|$))+$/);
                }
            }
        }
    }
}
if (exists $meta->{resources}) {
    my $r = $meta->{resources};
    if (ref $r ne 'HASH' || !%$r) { err "resources: not a non-empty object" }
    else {
        for my $k (sort keys %$r) {
            err "resources: unknown key $k" unless $k =~ /^(homepage|bugtracker|repository)$/ || $k =~ /^x_./i;
        }
        url_ok('resources/homepage', $r->{homepage}) if exists $r->{homepage};
        if (my $b = $r->{bugtracker}) {
            err "resources/bugtracker: needs web or mailto" unless ref $b eq 'HASH' && ($b->{web} || $b->{mailto});
            url_ok('resources/bugtracker/web', $b->{web}) if ref $b eq 'HASH' && exists $b->{web};
            err "resources/bugtracker/mailto: not an address" if ref $b eq 'HASH' && exists $b->{mailto} && ($b->{mailto} // '') !~ /^[^@\s]+@[^@\s]+$/;
        }
        if (my $g = $r->{repository}) {
            err "resources/repository: needs url and type, or web"
                unless ref $g eq 'HASH' && (($g->{url} && $g->{type}) || $g->{web});
            if (ref $g eq 'HASH') {
                url_ok("resources/repository/$_", $g->{$_}) for grep { exists $g->{$_} } qw(url web);
                err "resources/repository/type: not lower case" if exists $g->{type} && ($g->{type} // '') !~ /^[a-z]+$/;
            }
        }
    }
}

# The rest of the distribution.
my ($default) = (slurp('id_gen.control') // '') =~ /^default_version\s*=\s*'([^']+)'/m;
if (!defined $default) {
    err "id_gen.control: no default_version";
} else {
    my $v = $meta->{version} // '';
    err "version $v is not the control file's default_version $default"
        unless $v =~ /^\Q$default\E(?:\.\d+)?(?:[-+].*)?$/;
    my $e = ref $prov eq 'HASH' ? $prov->{id_gen} : undef;
    if (!$e) { err "provides: no id_gen" }
    else {
        err "provides/id_gen/version: $e->{version} is not the distribution's $v" unless ($e->{version} // '') eq $v;
        err "provides/id_gen/file: $e->{file} is not the full install script of $default, sql/id_gen--$default.sql"
            unless ($e->{file} // '') eq "sql/id_gen--$default.sql";
    }
    if (defined(my $cl = slurp('CHANGELOG.md'))) {
        err "CHANGELOG.md: no section for $default" unless $cl =~ /^## \[\Q$default\E\]/m;
    } else { err "CHANGELOG.md: missing" }
    if (defined(my $dc = slurp('debian/changelog'))) {
        my ($dv) = $dc =~ /^\S+ \(([^)]+)\)/;
        (my $up = $dv // '') =~ s/-[^-]*$//;
        err "debian/changelog: version ", $dv // 'none', " does not package $v" unless $up eq $v;
    }
}

print STDERR "META.json: warning: $_\n" for @warnings;
if (@errors) {
    print STDERR "META.json: $_\n" for @errors;
    print STDERR "META.json: ", scalar(@errors), " error(s) against PGXN Meta Spec 1.0.0 and the tree\n";
    exit 1;
}
printf "META.json: valid (PGXN Meta Spec 1.0.0): %s %s, provides %s%s\n", $meta->{name}, $meta->{version},
    join(', ', map { "$_ ($prov->{$_}{file})" } sort keys %$prov),
    @warnings ? ', ' . scalar(@warnings) . ' warning(s)' : '';
exit 0;
