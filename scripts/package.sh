#!/usr/bin/env bash
# scripts/package.sh: the package layer of scripts/test.sh.
#
#   bash scripts/package.sh
#
# make dist writes the PGXN archive from the checkout's HEAD (checking
# META.json), which is then unzipped, built, installed into a throwaway root
# and passes make installcheck on a cluster of initdb's defaults, as a PGXN
# user would run it.  Then, from a copy of the checkout, dpkg-buildpackage -us -uc -b
# builds postgresql-15-id-gen (its build runs the regression and isolation
# tests against the files it is about to package), and the same tests run
# against the .deb's files with debian/tests/installcheck, in a pg_virtualenv
# cluster, and CREATE EXTENSION id_gen runs on them with no other step.
#
# Where the .deb goes: unpacked into a throwaway root that the test cluster
# loads the extension from (extension_destdir, as pg_buildext does in a
# package build), after apt-get has checked that it would install here: the
# system's PostgreSQL directories are not touched (other test runs on the
# machine copy them).  With ID_GEN_PACKAGE_INSTALL=system (root, and no id_gen
# installed there yet), it is installed into the system with apt-get, tested
# as autopkgtest would (debian/tests/installcheck), and purged after.
# The last line reads
#   package: N passed, M failed
# counting the tests run against the installed .deb plus the PGXN archive
# check (M is at least 1 when the build or a check failed).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
. scripts/common.sh

install_deps $DEPS $PKG_DEPS

NAME=postgresql-$PG_MAJOR-id-gen
PKGLIB=/usr/lib/postgresql/$PG_MAJOR/lib
EXTDIR=/usr/share/postgresql/$PG_MAJOR/extension
SRC=$PWD
OUT=$(mktemp -d /tmp/id_gen-package.XXXXXX)
chmod 755 "$OUT" # the test server (postgres, when we are root) reads the build tree
B=$OUT/src
mkdir "$B"

failed=0 passed=0 installed_by_us= completed=
fail() { echo "package: FAILED: $*"; failed=$((failed + 1)); }
remove_package() {
    installed_by_us=
    dpkg --purge "$NAME" >"$OUT/purge.log" 2>&1 || { cat "$OUT/purge.log"; fail "dpkg --purge $NAME"; return 1; }
    left=$(ls "$PKGLIB" "$EXTDIR" | grep '^id_gen')
    [ -z "$left" ] || { fail "files left after dpkg --purge: $left"; return 1; }
}
finish() {
    [ -z "$installed_by_us" ] || remove_package
    [ -n "$completed" ] || [ $failed -gt 0 ] || fail "stopped before the end"
    if [ $failed -eq 0 ] && [ $passed -gt 0 ]; then
        rm -rf "$OUT"
    else
        echo "package: build tree and logs kept in $OUT"
        [ $failed -gt 0 ] || failed=1
    fi
    echo "package: layer took ${SECONDS} s"
    echo "package: $passed passed, $failed failed"
    exit $((failed > 0))
}
trap finish EXIT
# A signal (or a reader gone: SIGPIPE) fails the layer; what is printed after
# that may go nowhere, so the handler prints nothing.
trap 'trap "" PIPE; failed=$((failed + 1)); completed=; exit 1' INT TERM HUP PIPE

# The build tree: the checkout's files (tracked or not, less what .gitignore
# ignores), not its build products or tmp_install.
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$SRC" ls-files -z -co --exclude-standard |
        (cd "$SRC" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh) |
        tar -C "$SRC" --null -T - -cf - | tar -C "$B" -xf -
else
    cp -a "$SRC/." "$B/"
fi

# What a user of the PGXN archive does: unzip, make, make install, make
# installcheck against a server of initdb's defaults.  Here the install goes
# to a throwaway root that a pg_virtualenv cluster loads the extension from
# (as step 3 does for the .deb), not into the system.
pgxn_installcheck() { # zip
    local dir ok nok
    mkdir "$OUT/pgxn" && (cd "$OUT/pgxn" && unzip -q "$1") || { fail "unzip $(basename "$1")"; return; }
    dir=$(echo "$OUT"/pgxn/*/)
    [ "$(id -u)" -ne 0 ] || chown -R "$RUN_USER" "$OUT/pgxn"
    if ! (cd "$dir" && as_user make -s && as_user make -s install DESTDIR="$dir/debian/pgxn") \
            >"$OUT/pgxn.log" 2>&1; then
        tail -40 "$OUT/pgxn.log"; fail "make and make install of the PGXN archive"; return
    fi
    # Run as root, pg_virtualenv's server (postgres) writes into results/.
    [ "$(id -u)" -ne 0 ] || install -d -o "$RUN_USER" "$dir/results"
    (cd "$dir" && pg_virtualenv -p pgxn make installcheck DESTDIR="$dir/debian/pgxn") >>"$OUT/pgxn.log" 2>&1
    local status=$?
    ok=$(grep -cE '\.\.\. ok' "$OUT/pgxn.log"); nok=$(grep -cE '\.\.\. FAILED' "$OUT/pgxn.log")
    passed=$((passed + ok)); failed=$((failed + nok))
    if [ $status -ne 0 ] || [ "$ok" -eq 0 ]; then
        tail -60 "$OUT/pgxn.log"; cat "$dir"/regression.diffs 2>/dev/null | head -100
        fail "make installcheck of the PGXN archive (log: $OUT/pgxn.log)"
    else
        echo "package: PGXN archive built, installed and make installcheck: $ok passed, $nok failed"
    fi
}

# CREATE EXTENSION with nothing but the package's files, in a cluster of
# initdb's defaults (no preloading, no setting of ours).
create_extension_check() { # pg_virtualenv options...
    local out
    if out=$(cd "$B" && pg_virtualenv "$@" psql -XAtq -c 'CREATE EXTENSION id_gen' \
            -c 'SELECT snowflake_next() > 0, timeuuid_next() IS NOT NULL' 2>&1) &&
            grep -qx 't|t' <<<"$out"; then
        passed=$((passed + 1))
        echo "package: CREATE EXTENSION id_gen works in a cluster of initdb's defaults"
    else
        echo "$out"; fail "CREATE EXTENSION id_gen on the package's files"
    fi
}

# 0. The PGXN release archive (make dist), from the checkout's HEAD, with
# META.json checked against the tree it holds.
if git -C "$SRC" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    if make -s -C "$SRC" dist DIST_DIR="$OUT" >"$OUT/dist.log" 2>&1 &&
       zip=$(sed -n 's/^make dist: wrote //p' "$OUT/dist.log") && [ -f "$zip" ]; then
        echo "package: PGXN archive $(basename "$zip") ($(stat -c %s "$zip") bytes);" \
             "$(grep '^META.json: valid' "$OUT/dist.log")"
        passed=$((passed + 1))
        pgxn_installcheck "$zip"
    else
        cat "$OUT/dist.log"
        fail "make dist"
    fi
else
    echo "package: not a git checkout: no PGXN archive (make dist needs git archive)"
fi

# 1. Build, as a packager would.
start=$SECONDS
if ! (cd "$B" && dpkg-buildpackage -us -uc -b) >"$OUT/build.log" 2>&1; then
    tail -60 "$OUT/build.log"
    fail "dpkg-buildpackage -us -uc -b (log: $OUT/build.log)"
    exit 1
fi
build_s=$((SECONDS - start))
build_tests=$(grep -cE '\.\.\. ok' "$OUT/build.log")
version=$(cd "$B" && dpkg-parsechangelog -S Version)
deb=$OUT/${NAME}_${version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
[ -f "$deb" ] || { fail "dpkg-buildpackage made no $(basename "$deb")"; ls "$OUT"; exit 1; }
case " ${DEB_BUILD_OPTIONS:-} " in
    *" nocheck "*) build_tests="none (DEB_BUILD_OPTIONS=nocheck)" ;;
    *) build_tests="$build_tests passed" ;;
esac
echo "package: built $(basename "$deb") ($(stat -c %s "$deb") bytes) in ${build_s} s;" \
     "installcheck in its build, against the files to package: $build_tests"

# 2. What the .deb holds: the production library, the control file and every
# install and upgrade script of the tree; its version is META.json's.
meta_version=$(sed -n 's/^    "version": "\(.*\)",*$/\1/p' "$SRC/META.json")
[ "${version%-*}" = "$meta_version" ] ||
    fail "debian/changelog version $version is not META.json's $meta_version"
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in "$PKGLIB/id_gen.so" "$EXTDIR/id_gen.control" $(cd "$SRC" && ls sql/id_gen--*.sql | sed "s|^sql|$EXTDIR|"); do
    grep -qxF ".$f" <<<"$contents" || fail "$(basename "$deb") lacks $f"
done
# ... and the documentation: the guide and the pages it links to (dh_compress
# may have gzipped the larger ones).
for f in README.md docs/reference.md docs/hilo.md docs/operations.md; do
    grep -qE "^\./usr/share/doc/$NAME/$f(\.gz)?\$" <<<"$contents" ||
        fail "$(basename "$deb") lacks the documentation $f"
done
mkdir "$OUT/unpacked"
dpkg-deb -x "$deb" "$OUT/unpacked"
if grep -qa 'id_gen\.test_' "$OUT/unpacked$PKGLIB/id_gen.so"; then
    fail "the packaged id_gen.so has test hooks"
fi

# 3. Install it and run the autopkgtest.
# Its dependencies must be installable here (apt-get resolves them, installs nothing).
if ! apt-get install -s -qq "$deb" >"$OUT/simulate.log" 2>&1; then
    cat "$OUT/simulate.log"
    fail "apt-get cannot install $(basename "$deb") here"
fi
mode=${ID_GEN_PACKAGE_INSTALL:-extract}
case $mode in
    extract) ;;
    system)
        [ "$(id -u)" -eq 0 ] || { fail "ID_GEN_PACKAGE_INSTALL=system needs root"; exit 1; }
        # One system install at a time on this machine, and never over an
        # id_gen installed by hand or by package: that one would be removed.
        exec 9>/tmp/id_gen-package.lock
        flock 9
        if dpkg-query -W -f='${Status}' "$NAME" 2>/dev/null | grep -q 'ok installed' ||
           ls "$PKGLIB" "$EXTDIR" | grep -q '^id_gen'; then
            fail "id_gen is installed in the system already: not installing over it"
            exit 1
        fi ;;
    *) fail "ID_GEN_PACKAGE_INSTALL must be extract or system, not $mode"; exit 1 ;;
esac
start=$SECONDS
if [ $mode = system ]; then
    installed_by_us=1
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$deb" \
            >"$OUT/install.log" 2>&1; then
        cat "$OUT/install.log"
        fail "apt-get install $(basename "$deb")"
        exit 1
    fi
    where="installed into the system (apt-get install)"
    create_extension_check
    (cd "$B" && debian/tests/installcheck) >"$OUT/installcheck.log" 2>&1
    status=$?
else
    # pg_buildext's throwaway-root mode: the cluster loads the extension from
    # debian/<package>/, here the unpacked .deb.
    rm -rf "$B/debian/$NAME"
    mv "$OUT/unpacked" "$B/debian/$NAME"
    where="unpacked into a throwaway root (extension_destdir)"
    create_extension_check -p "$NAME"
    (cd "$B" && debian/tests/installcheck . . "postgresql-%v-id-gen") >"$OUT/installcheck.log" 2>&1
    status=$?
fi
ok=$(grep -cE '\.\.\. ok' "$OUT/installcheck.log")
passed=$((passed + ok))
nok=$(grep -cE '\.\.\. FAILED' "$OUT/installcheck.log")
failed=$((failed + nok))
if [ $status -ne 0 ]; then
    tail -100 "$OUT/installcheck.log"
    fail "debian/tests/installcheck exited with $status (log: $OUT/installcheck.log)"
fi
if [ $mode = system ]; then
    remove_package && where="$where, purged after (no id_gen file left in $PKGLIB or $EXTDIR)"
fi
echo "package: $where; CREATE EXTENSION id_gen and installcheck: $ok passed, $nok failed" \
     "in $((SECONDS - start)) s"
completed=1
