#!/usr/bin/env bash
# scripts/test.sh: the whole test suite, on a fresh Debian 12 machine or not.
#
#   bash scripts/test.sh
#   PG_CONFIG=/path/to/pg_config bash scripts/test.sh   # against another server (16, 18)
#
# Installs missing packages (as root), then, as an unprivileged user, builds
# with -Werror and runs: GoogleTest unit tests, pg_regress, isolation specs
# and TAP tests, each against throwaway clusters built from a private copy of
# the server with this build installed (nothing is installed system-wide).
# Then the package layer (scripts/package.sh): the PGXN archive (make dist)
# and the Debian package, built and tested in a throwaway root (regression and
# isolation tests against the .deb's files).
# Every layer must run at least one test; the last line counts them all.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

cat <<'EOF'
id_gen test suite: about 10-15 minutes on 2 cores.
Run as root, it first installs the Debian packages it lacks: the build tools,
PostgreSQL 15 and its server headers, and the driver stacks the TAP tests
drive (Java with Hibernate, Go with pgx, Node.js and npm packages, Python,
Ruby, PgBouncer, the Prometheus exporter): several hundred MB on a fresh
machine.  It stops if a package cannot be installed.
EOF
install_deps $DEPS $DRIVER_DEPS $PKG_DEPS

# As root, work on a copy the unprivileged user owns; the checkout stays untouched.
prepare_workdir id_gen-test
LOG=$WORK/test.log
echo "running the suite as $RUN_USER in $WORK (log: $LOG)"

pg_config_arg=()
[ -n "${PG_CONFIG:-}" ] && pg_config_arg=("PG_CONFIG=$PG_CONFIG")
as_user make -C "$WORK" -s clean "${pg_config_arg[@]}" >/dev/null 2>&1
as_user env ID_GEN_DRIVERS=required make -C "$WORK" -k WERROR=1 PROVE_FLAGS=-v "${pg_config_arg[@]}" test 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}

# After the suite, so that even with ID_GEN_PACKAGE_INSTALL=system (the .deb
# installed into the system for its tests) the suite's temp-install, a copy of
# the system's PostgreSQL directories, never holds the package.
echo "package layer: scripts/package.sh"
bash scripts/package.sh 2>&1 | tee "$WORK/package.log"
pkg_status=${PIPESTATUS[0]}
[ $pkg_status -eq 0 ] || status=$pkg_status

# Count what each layer ran; a layer that ran nothing is a failure.
passed=0 failed=0 empty=()
count() { # name passed failed
    passed=$((passed + $2)); failed=$((failed + $3))
    printf '  %-10s %4d passed, %d failed\n' "$1" "$2" "$3"
    [ $(($2 + $3)) -gt 0 ] || empty+=("$1")
}
gt_pass=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' "$LOG" | tail -1)
gt_fail=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below.*/\1/p' "$LOG" | tail -1)
# pg_regress and pg_isolation_regress print one line per test: "... ok" or
# "... FAILED" up to 15, "ok N - name" or "not ok N - name" (TAP) from 16, and
# end with a line of "=" (15) or a "# ..." summary (16+); a run that breaks
# off ends at the next layer's command.
end='/^=====*$\|^# All [0-9]* tests passed\|^# [0-9]* of [0-9]* tests failed\|pg_isolation_regress \|^[[:space:]]*prove /'
rg=$(sed -n "/pg_regress.*--temp-instance=tmp_check\/regress/,${end}p" "$LOG")
iso=$(sed -n "/pg_isolation_regress.*--temp-instance=tmp_check\/isolation/,${end}p" "$LOG")
tap=$(sed -n '/^[[:space:]]*prove /,$p' "$LOG")
# A TODO test (a known, open defect held by a test) that fails is, by TAP's
# rules and prove's, no failure: counted apart and reported.
tap_ok=$(grep -E '^ok [0-9]+' <<<"$tap" | grep -cv '# TODO')
tap_nok=$(grep -E '^not ok [0-9]+' <<<"$tap" | grep -cv '# TODO')
tap_todo=$(grep -cE '^(not )?ok [0-9]+.*# TODO' <<<"$tap")
ok_re='\.\.\. ok|^ok [0-9]+ +- ' nok_re='\.\.\. FAILED|^not ok [0-9]+ +- '
count unit "${gt_pass:-0}" "${gt_fail:-0}"
count regress "$(grep -cE "$ok_re" <<<"$rg")" "$(grep -cE "$nok_re" <<<"$rg")"
count isolation "$(grep -cE "$ok_re" <<<"$iso")" "$(grep -cE "$nok_re" <<<"$iso")"
count tap "$tap_ok" "$tap_nok"
[ "$tap_todo" -eq 0 ] || echo "  (tap: $tap_todo TODO tests of known open defects, not counted)"
pkg=$(sed -n 's/^package: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$WORK/package.log" | tail -1)
[ -n "$pkg" ] || pkg="0 1" # no closing line: package.sh died
count package "${pkg% *}" "${pkg#* }"
if grep -q "TAP tests not enabled" "$LOG"; then empty+=("tap(disabled)"); fi

if [ $status -ne 0 ] || [ $failed -ne 0 ] || [ ${#empty[@]} -ne 0 ]; then
    [ ${#empty[@]} -ne 0 ] && echo "layers that ran no test: ${empty[*]}"
    for d in "$WORK"/regression.diffs "$WORK"/output_iso/regression.diffs; do
        [ -s "$d" ] && { echo "=== $d"; head -200 "$d"; }
    done
    echo "FAILED (exit status $status)"
    echo "total: $passed passed, $((failed > 0 ? failed : 1)) failed"
    exit 1
fi
# A passing run's copy is not needed any more; a failing one stays for its diffs.
[ "$WORK" != "$PWD" ] && rm -rf "$WORK"
echo "total: $passed passed, 0 failed"
