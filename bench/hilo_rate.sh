#!/usr/bin/env bash
# bench/hilo_rate.sh [BASE] [ROUNDS]: hilo_next against nextval, before and after.
#
# Builds this checkout and BASE (default HEAD~0 of the checkout, i.e. the
# same code twice when nothing else is given) into private servers with
# bench/run.sh's settings (fsync on, synchronous_commit off), both running
# at once, and measures in ROUNDS (default 5) interleaved rounds, in a new
# random order each round:
#  - ids/s from 2 pgbench clients, 1000 ids per statement, SECS (default 5)
#    seconds each: id_gen.noop(), nextval CACHE 1, nextval CACHE 1000,
#    hilo_next (the key's default block size), and a key drawing several
#    blocks per access (CACHE 32; adaptive runs in versions that had them);
#  - per call, one session: SELECT count(f()) FROM generate_series(1, N).
# Prints every sample, then medians and the ratios hilo_next / nextval.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

BASE=${1:-HEAD}
ROUNDS=${2:-5}
SECS=${SECS:-5}
N=${N:-1000000}
install_deps
prepare_workdir id_gen-hilo-rate
TOP=$(mktemp -d /tmp/id_gen-hilo-rate-base.XXXXXX)
chmod 755 "$TOP"
trap 'for d in "$TOP" "$WORK"; do [ -d "$d/tmp_check/bench" ] && as_user "$(as_user make -s -C "$d" print-tmp-bindir)/pg_ctl" -D "$d/tmp_check/bench" -m fast stop >/dev/null 2>&1; done; rm -rf "$TOP"; [ "$WORK" != "$PWD" ] && rm -rf "$WORK"' EXIT
git archive "$BASE" | tar -x -C "$TOP"
[ "$(id -u)" -eq 0 ] && chown -R "$RUN_USER" "$TOP"
as_user make -C "$WORK" -s clean >/dev/null 2>&1 || true
as_user make -C "$WORK" -s temp-install >/dev/null
as_user make -C "$TOP" -s temp-install >/dev/null

start() { # workdir port
    as_user bash -c '
        set -euo pipefail
        WORK=$1 PORT=$2
        cd "$WORK"
        BIN=$(make -s print-tmp-bindir)
        DATA=$WORK/tmp_check/bench
        rm -rf "$DATA"; mkdir -p "$WORK/tmp_check"
        "$BIN/initdb" -D "$DATA" -U postgres -A trust >/dev/null
        printf "%s\n" "port = $PORT" "listen_addresses = '"''"'" \
            "unix_socket_directories = '"'"'$WORK/tmp_check'"'"'" \
            "shared_preload_libraries = '"'"'id_gen'"'"'" "jit = off" \
            "synchronous_commit = off" "shared_buffers = 512MB" "max_wal_size = 4GB" \
            >>"$DATA/postgresql.conf"
        "$BIN/pg_ctl" -D "$DATA" -l "$WORK/tmp_check/bench.log" -w start >/dev/null
        P=("$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$WORK/tmp_check" -p "$PORT" -U postgres postgres)
        "${P[@]}" -c "CREATE EXTENSION id_gen" \
            -c "CREATE SEQUENCE seq1 CACHE 1" -c "CREATE SEQUENCE seq1000 CACHE 1000" \
            -c "CREATE TABLE t (id bigint DEFAULT hilo_next('"'"'t'"'"'))" \
            -c "CREATE TABLE t_many (id bigint DEFAULT hilo_next('"'"'t_many'"'"'))" >/dev/null
        # Blocks of 1000; t_many draws several blocks per access: CACHE 32
        # where the key is its sequence, adaptive runs before (versions
        # with hilo_set_adaptive, whose DDL made the key).
        "${P[@]}" -f - >/dev/null <<"SQL"
DO $$ BEGIN
    PERFORM hilo_set_adaptive('"'"'t'"'"', false);
    PERFORM hilo_set_adaptive('"'"'t_many'"'"', true);
EXCEPTION WHEN undefined_function THEN
    PERFORM hilo_create_key('"'"'t'"'"');
    PERFORM hilo_create_key('"'"'t_many'"'"');
    ALTER SEQUENCE t_many_id_seq CACHE 32;
END $$;
SQL
    ' _ "$1" "$2"
}

one() { # workdir port kind expr -> prints a number
    as_user bash -c '
        set -euo pipefail
        WORK=$1 PORT=$2 KIND=$3 EXPR=$4 SECS=$5 N=$6
        BIN=$(make -s -C "$WORK" print-tmp-bindir)
        if [ "$KIND" = clients ]; then
            F=$(mktemp); echo "SELECT count($EXPR) FROM generate_series(1, 1000);" >"$F"
            tps=$("$BIN/pgbench" -n -c 2 -j 2 -T "$SECS" -f "$F" -h "$WORK/tmp_check" -p "$PORT" -U postgres postgres 2>/dev/null </dev/null \
                | sed -n "s/^tps = \([0-9.]*\).*/\1/p")
            rm -f "$F"
            awk -v t="$tps" "BEGIN { printf \"%.0f\", t * 1000 }"
        else
            "$BIN/psql" -X -q -At -h "$WORK/tmp_check" -p "$PORT" -U postgres postgres -c "
                DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
                PERFORM count($EXPR) FROM generate_series(1, $N);
                RAISE NOTICE '"'"'%'"'"', round((extract(epoch FROM clock_timestamp() - t0) * 1e9 / $N)::numeric, 1);
                END \$\$" 2>&1 | sed "s/^NOTICE: *//"
        fi
    ' _ "$1" "$2" "$3" "$4" "$SECS" "$N"
}

start "$TOP" 54361
start "$WORK" 54362
CANDS=("noop|id_gen.noop()" "loop|1" "nextval1|nextval('seq1')" "nextval1000|nextval('seq1000')" "hilo|hilo_next('t')"
       "hilo_many|hilo_next('t_many')")
OUT=$(mktemp)
for round in $(seq 1 "$ROUNDS"); do
    for job in $(for b in before after; do for k in clients call; do for c in "${CANDS[@]}"; do
                     [ "$k/${c%%|*}" = clients/loop ] && continue; echo "$b/$k/${c%%|*}"; done; done; done | shuf); do
        IFS=/ read -r b k name <<<"$job"
        for c in "${CANDS[@]}"; do [ "${c%%|*}" = "$name" ] && expr=${c#*|}; done
        if [ "$b" = before ]; then v=$(one "$TOP" 54361 "$k" "$expr"); else v=$(one "$WORK" 54362 "$k" "$expr"); fi
        echo "$round $b $k $name $v" | tee -a "$OUT"
    done
done
echo "== medians of $ROUNDS rounds (clients: ids/s, 2 clients x 1000 ids per statement; call: gross ns per call)"
for k in $(awk '{ print $2 "/" $3 "/" $4 }' "$OUT" | sort -u); do
    IFS=/ read -r b kind name <<<"$k"
    awk -v b="$b" -v k="$kind" -v n="$name" '$2 == b && $3 == k && $4 == n { print $5 }' "$OUT" | sort -g \
        | awk -v key="$b $kind $name" '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; print key, m }'
done >"$OUT.med"
cat "$OUT.med"
for b in before after; do
    awk -v b="$b" '$1 == b { m[$2 "/" $3] = $4 }
        END { printf "%s: clients hilo/nextval1000 = %.2fx, many-blocks/nextval1000 = %.2fx, hilo/nextval1 = %.2fx; per call (net of loop) nextval1/hilo = %.2fx, nextval1000/hilo = %.2fx\n", b,
              m["clients/hilo"] / m["clients/nextval1000"], m["clients/hilo_many"] / m["clients/nextval1000"], m["clients/hilo"] / m["clients/nextval1"],
              (m["call/nextval1"] - m["call/loop"]) / (m["call/hilo"] - m["call/loop"]),
              (m["call/nextval1000"] - m["call/loop"]) / (m["call/hilo"] - m["call/loop"]) }' "$OUT.med"
done
rm -f "$OUT" "$OUT.med"
