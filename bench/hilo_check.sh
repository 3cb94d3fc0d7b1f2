#!/usr/bin/env bash
# bench/hilo_check.sh [BASE] [ROUNDS]: the cost of the Hi/Lo draw-time check.
#
# Builds this checkout and BASE (a commit before the check; default 1b5c4b4)
# into private servers and runs bench_per_call() of bench/setup.sql (this
# checkout's, for both) on the Hi/Lo candidates only: keys whose column is a
# 100,000-row primary key against keys no DEFAULT draws for, at max_lo 1000
# and 10.  ROUNDS (default 2) alternate before and after.  fsync = off, so
# that the forced WAL flush of every 32nd block does not hide the CPU cost.
# Compare the ratios within one run; times vary across runs.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

BASE=${1:-1b5c4b4}
ROUNDS=${2:-2}
N=${N:-1000000}
R=${R:-15}
install_deps
prepare_workdir id_gen-hilo-check
TOP=$(mktemp -d /tmp/id_gen-hilo-check-base.XXXXXX)
trap 'rm -rf "$TOP"; [ "$WORK" != "$PWD" ] && rm -rf "$WORK"' EXIT
git archive "$BASE" | tar -x -C "$TOP"
cp bench/setup.sql "$TOP/bench/setup.sql"
[ "$(id -u)" -eq 0 ] && chown -R "$RUN_USER" "$TOP"

run_one() { # workdir port label
    as_user bash -c '
        set -euo pipefail
        WORK=$1 PORT=$2 N=$3 R=$4
        cd "$WORK"
        BIN=$(make -s print-tmp-bindir)
        DATA=$WORK/tmp_check/bench
        rm -rf "$DATA"; mkdir -p "$WORK/tmp_check"
        "$BIN/initdb" -D "$DATA" -U postgres -A trust >/dev/null
        printf "%s\n" "port = $PORT" "listen_addresses = '"''"'" \
            "unix_socket_directories = '"'"'$WORK/tmp_check'"'"'" \
            "shared_preload_libraries = '"'"'id_gen'"'"'" "jit = off" \
            "synchronous_commit = off" "fsync = off" "shared_buffers = 512MB" \
            "id_gen.launch_id = 1" >>"$DATA/postgresql.conf"
        "$BIN/pg_ctl" -D "$DATA" -l "$WORK/tmp_check/bench.log" -w start >/dev/null
        trap "\"$BIN/pg_ctl\" -D \"$DATA\" -m fast stop >/dev/null" EXIT
        export PGHOST=$WORK/tmp_check PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
        P=("$BIN/psql" -X -q -v ON_ERROR_STOP=1)
        "${P[@]}" -c "CREATE EXTENSION id_gen; CREATE EXTENSION pgstattuple;" >/dev/null
        "${P[@]}" -f bench/setup.sql >/dev/null
        # Only the floor, the loop and the Hi/Lo candidates.
        "${P[@]}" -c "ALTER FUNCTION bench_candidates() RENAME TO bench_all_candidates" \
            -c "CREATE FUNCTION bench_candidates() RETURNS TABLE (name text, expr text)
                LANGUAGE sql AS \$\$ SELECT name, expr FROM bench_all_candidates()
                 WHERE name IN ('"'"'count(1) loop'"'"', '"'"'id_gen.noop() (C floor)'"'"')
                    OR name LIKE '"'"'hilo_next%'"'"' \$\$" >/dev/null
        "${P[@]}" -c "SELECT candidate, gross_ns, net_ns, x_floor_gross FROM bench_per_call($N, $R)"
    ' _ "$1" "$2" "$N" "$R"
}

as_user make -C "$WORK" -s clean >/dev/null 2>&1 || true
as_user make -C "$WORK" -s temp-install >/dev/null
as_user make -C "$TOP" -s temp-install >/dev/null
for round in $(seq 1 "$ROUNDS"); do
    echo "== before ($BASE), round $round"
    run_one "$TOP" 54351
    echo "== after (this checkout), round $round"
    run_one "$WORK" 54352
done
echo "Ratios to read: 'hilo_next, PK column, 10' / 'hilo_next, no column, 10' within each run (same for 1000)."
