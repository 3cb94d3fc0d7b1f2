#!/usr/bin/env bash
# bench/cluster.sh WORKDIR: runs as the unprivileged user; see bench/run.sh.
set -euo pipefail
WORK=$1
cd "$WORK"
BIN=$(make -s -C "$WORK" print-tmp-bindir)
DATA=$WORK/tmp_check/bench
PORT=${ID_GEN_BENCH_PORT:-54339}
rm -rf "$DATA"
mkdir -p "$WORK/tmp_check"
"$BIN/initdb" -D "$DATA" -U postgres -A trust >/dev/null
cat >>"$DATA/postgresql.conf" <<CONF
port = $PORT
listen_addresses = ''
unix_socket_directories = '$WORK/tmp_check'
shared_preload_libraries = 'id_gen'
jit = off
synchronous_commit = off
shared_buffers = 512MB
max_wal_size = 4GB
work_mem = 256MB
maintenance_work_mem = 512MB
id_gen.launch_id = 1
id_gen.encode_key = 'bench key'
CONF
"$BIN/pg_ctl" -D "$DATA" -l "$WORK/tmp_check/bench.log" -w start >/dev/null
trap '"$BIN/pg_ctl" -D "$DATA" -m fast stop >/dev/null' EXIT

export PGHOST=$WORK/tmp_check PGPORT=$PORT PGUSER=postgres PGDATABASE=postgres
PSQL=("$BIN/psql" -X -q -v ON_ERROR_STOP=1)
"${PSQL[@]}" -c "CREATE EXTENSION id_gen; CREATE EXTENSION pgstattuple;"
"${PSQL[@]}" -f bench/setup.sql

if [ "${MODE:-full}" = quick ]; then N=200000 R=3 SECS=2 ROWS=200000 SORT=500000
else N=2000000 R=7 SECS=8 ROWS=2000000 SORT=5000000; fi

echo "== 1. per call, one session (N=$N, median of $R, net of count(1) loop overhead)"
"${PSQL[@]}" -c "SELECT * FROM bench_per_call($N, $R)"

echo "== 2. two concurrent clients, 1000 ids per statement, ${SECS}s each"
printf '%-28s %14s %10s\n' candidate ids_per_s vs_nextval1
base=
"${PSQL[@]}" -At -F '|' -c "SELECT name, expr FROM bench_candidates() WHERE name <> 'count(1) loop'" \
    >"$WORK/tmp_check/candidates"
while IFS='|' read -r name expr; do
    echo "SELECT count($expr) FROM generate_series(1, 1000);" >"$WORK/tmp_check/pgb.sql"
    tps=$("$BIN/pgbench" -n -c 2 -j 2 -T "$SECS" -f "$WORK/tmp_check/pgb.sql" 2>/dev/null </dev/null \
        | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
    ids=$(awk -v t="$tps" 'BEGIN { printf "%.0f", t * 1000 }')
    [ "$name" = "nextval CACHE 1" ] && base=$ids
    printf '%-28s %14s %10s\n' "$name" "$ids" \
        "$(awk -v a="$ids" -v b="${base:-0}" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')"
done <"$WORK/tmp_check/candidates"

# id_gen.snowflake_start_spread (a reload setting): the share of the ceiling
# at each spread, in this run; with the spread at 0, once.
spreads() { # query generator spread...: the query once per spread
    local query=$1 gen=$2
    shift 2
    if "${PSQL[@]}" -At -c "SELECT count(*) FROM pg_settings WHERE name = 'id_gen.snowflake_start_spread'" | grep -q 1; then
        for sp in "$@"; do
            "${PSQL[@]}" -c "ALTER SYSTEM SET id_gen.snowflake_start_spread = $sp" -c "SELECT pg_reload_conf()" >/dev/null
            sleep 0.3
            "${PSQL[@]}" -c "SELECT $sp AS start_spread, c.saturated_per_ms AS ceiling_per_ms, r.*
                               FROM ($query) r, id_gen.headroom_ms_capacity('$gen') c"
        done
        "${PSQL[@]}" -c "ALTER SYSTEM RESET id_gen.snowflake_start_spread" -c "SELECT pg_reload_conf()" >/dev/null
    else
        "${PSQL[@]}" -c "$query"
    fi
}
if "${PSQL[@]}" -At -c "SELECT to_regprocedure('snowflake_next()') IS NOT NULL" | grep -q t; then
    echo "== 3. snowflake_next() saturation, one session (layout limit 4,096,000 ids/s per worker id;"
    echo "      pct_of_ceiling counts 4096 ids per millisecond whatever the start spread)"
    spreads "SELECT * FROM bench_snowflake_rate(8192000)" snowflake 0 255 1000 4095
fi
if "${PSQL[@]}" -At -c "SELECT to_regprocedure('jsid_next()') IS NOT NULL" | grep -q t; then
    echo "== 3b. jsid_next() saturation, one session (layout limit 256,000 ids/s per worker id)"
    spreads "SELECT * FROM bench_stream_rate('jsid_next()', 1024000, 12, 256)" jsid 0 255
fi

echo "== 4. inserting $ROWS rows in batches of 10000 into fresh tables; sorting $SORT values"
PGOPTIONS="-c client_min_messages=warning" "${PSQL[@]}" -c "CALL bench_inserts($ROWS)" -c "SELECT * FROM bench_insert_results ORDER BY seconds"
PGOPTIONS="-c client_min_messages=warning" "${PSQL[@]}" -c "SELECT * FROM bench_sort($SORT)"
