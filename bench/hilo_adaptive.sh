#!/usr/bin/env bash
# bench/hilo_adaptive.sh [SECS]: fixed against adaptive Hi/Lo blocks.
#
# Builds this checkout into a private server (as bench/run.sh does), starts a
# throwaway cluster (synchronous_commit = off, fsync on) and, for a key with
# fixed blocks of 1000 ids (id_gen.hilo_max_lo's default: what every key did
# before hilo_set_adaptive), one with fixed blocks of 32, and an adaptive key
# with blocks of 32, runs with pgbench for SECS seconds (default 8) each:
#   short  2 clients, a new session per transaction, 5 rows each
#   busy   2 clients, one session each, 1000 rows per statement
#   calls  2 clients, one session each, count(hilo_next('t')) over 1000 rows
# and prints the ids drawn per 1M ids used, the ids wasted per 1M (drawn but
# never used, once every session has ended), the draws per 1M (blocks or
# runs, counted by hilo_backend_draws) and the ids per second.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

SECS=${1:-8}
install_deps
prepare_workdir id_gen-bench-adaptive
[ "$WORK" != "$PWD" ] && trap 'rm -rf "$WORK"' EXIT
as_user make -C "$WORK" -s clean >/dev/null 2>&1 || true
as_user make -C "$WORK" -s temp-install >/dev/null
as_user bash -s "$WORK" "$SECS" <<'BENCH'
set -euo pipefail
WORK=$1 SECS=$2
cd "$WORK"
BIN=$(make -s print-tmp-bindir)
DATA=$WORK/tmp_check/bench
PORT=${ID_GEN_BENCH_PORT:-54341}
rm -rf "$DATA"; mkdir -p "$WORK/tmp_check"
"$BIN/initdb" -D "$DATA" -U postgres -A trust >/dev/null
printf '%s\n' "port = $PORT" "listen_addresses = ''" "unix_socket_directories = '$WORK/tmp_check'" \
    "jit = off" "synchronous_commit = off" "shared_buffers = 256MB" "max_wal_size = 4GB" \
    >>"$DATA/postgresql.conf"
"$BIN/pg_ctl" -D "$DATA" -l "$WORK/tmp_check/bench.log" -w start >/dev/null
trap '"$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null' EXIT
export PGHOST=$WORK/tmp_check PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
export PGOPTIONS="-c client_min_messages=warning"
P=("$BIN/psql" -X -q -v ON_ERROR_STOP=1)
"${P[@]}" -c "CREATE EXTENSION id_gen"

printf '%-6s %-14s %12s %14s %12s %12s\n' load key rows 'waste/1M' 'draws/1M' 'ids/s'
for load in short busy calls; do
    for key in fixed_1000 fixed_32 adaptive_32; do
        "${P[@]}" -c "DROP TABLE IF EXISTS t, draws" \
            -c "CREATE TABLE t (id bigint PRIMARY KEY DEFAULT hilo_next('t'))" \
            -c "CREATE TABLE draws (session int PRIMARY KEY, n bigint)" \
            -c "CREATE SEQUENCE IF NOT EXISTS sessions"
        case $key in
        fixed_1000) "${P[@]}" -c "SELECT hilo_set_max_lo('t', 1000)" >/dev/null ;;
        fixed_32) "${P[@]}" -c "SELECT hilo_set_max_lo('t', 32)" >/dev/null ;;
        adaptive_32) "${P[@]}" -c "SELECT hilo_set_max_lo('t', 32), hilo_set_adaptive('t')" >/dev/null ;;
        esac
        # Each session records its draws under its own number.
        case $load in
        short) opts=(--connect); per=5; sql="INSERT INTO t SELECT FROM generate_series(1, 5);
INSERT INTO draws VALUES (nextval('sessions'), hilo_backend_draws('t'));" ;;
        busy) opts=(); per=1000; sql="INSERT INTO t SELECT FROM generate_series(1, 1000);
INSERT INTO draws VALUES (pg_backend_pid(), hilo_backend_draws('t')) ON CONFLICT (session) DO UPDATE SET n = EXCLUDED.n;" ;;
        calls) opts=(); per=1000; sql="SELECT count(hilo_next('t')) FROM generate_series(1, 1000);
INSERT INTO draws VALUES (pg_backend_pid(), hilo_backend_draws('t')) ON CONFLICT (session) DO UPDATE SET n = EXCLUDED.n;" ;;
        esac
        echo "$sql" >"$WORK/tmp_check/load.sql"
        "$BIN/pgbench" -n -c 2 -j 2 -T "$SECS" "${opts[@]}" -f "$WORK/tmp_check/load.sql" \
            >"$WORK/tmp_check/pgbench.out" 2>&1 </dev/null
        # Ids handed out: every transaction pgbench completed used $per.
        tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$WORK/tmp_check/pgbench.out")
        "${P[@]}" -At -F ' ' -c "
            WITH used AS (SELECT ${tx:-0}::numeric * $per AS n)
            SELECT '$load', '$key', used.n,
                   round(1e6 * (k.reserved_to - used.n) / used.n),
                   round(1e6 * (SELECT sum(n) FROM draws) / used.n, 1),
                   round(used.n / $SECS)
              FROM used, id_gen.hilo_keys k WHERE k.table_name = 't'::regclass" |
            while read -r l k rows waste draws rate; do
                printf '%-6s %-14s %12s %14s %12s %12s\n' "$l" "$k" "$rows" "$waste" "$draws" "$rate"
            done
    done
done
BENCH
