#!/usr/bin/env bash
# bench/decimal_ab.sh [BEFORE_REF]: per-call cost of decimal_id() in this
# checkout against BEFORE_REF (default HEAD~1), in one run.
#
#   bash bench/decimal_ab.sh 519a0f4          # N=2000000 R=9 by default
#   N=500000 R=31 bash bench/decimal_ab.sh 519a0f4   # on a busy machine
#
# Builds both into private copies of the server (as tests do), starts one
# throwaway cluster for each with bench/cluster.sh's settings (jit=off,
# synchronous_commit=off, preloaded), and measures, round after round with
# the two clusters back to back in random order, SELECT count(f()) FROM
# generate_series(1, N) for f = decimal_id() and the count(1) loop, in the
# backend's CPU time (so a busy machine's run queue does not count).  Prints
# the median gross and net ns per call of each, every sample, after/before
# of the medians and the median of the per-round ratios (robust to load
# that changes between rounds), and the minima.  Only one cluster runs a
# query at a time.
set -euo pipefail

if [ "${1:-}" = --run ]; then
    WORK=$2
    N=${N:-2000000}
    R=${R:-9}
    declare -A PORT=([before]=54341 [after]=54342) DIR=([before]=$WORK/before [after]=$WORK) BIN=()
    for side in before after; do
        bin=$(make -s -C "${DIR[$side]}" print-tmp-bindir)
        data=$WORK/tmp_check/ab_$side
        rm -rf "$data"
        "$bin/initdb" -D "$data" -U postgres -A trust >/dev/null
        cat >>"$data/postgresql.conf" <<CONF
port = ${PORT[$side]}
listen_addresses = ''
unix_socket_directories = '$WORK/tmp_check'
shared_preload_libraries = 'id_gen'
jit = off
synchronous_commit = off
shared_buffers = 256MB
id_gen.launch_id = 1
CONF
        "$bin/pg_ctl" -D "$data" -l "$WORK/tmp_check/ab_$side.log" -w start >/dev/null
        BIN[$side]=$bin
    done
    stop() {
        for side in before after; do
            "${BIN[$side]}/pg_ctl" -D "$WORK/tmp_check/ab_$side" -m fast stop >/dev/null || true
        done
    }
    trap stop EXIT
    q() { # side sql
        "${BIN[$1]}/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$WORK/tmp_check" -p "${PORT[$1]}" -U postgres -d postgres -c "$2"
    }
    for side in before after; do
        # Committed before the first decimal_id(), which refuses an uncommitted claim.
        q "$side" "CREATE EXTENSION id_gen"
        q "$side" "-- The backend's own CPU time (ns, /proc/self/schedstat), not the
            -- wall clock: time spent waiting for a CPU the other helpers'
            -- jobs hold is not counted.
            CREATE FUNCTION cpu_ns() RETURNS float8 LANGUAGE sql AS
                \$\$ SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::float8 \$\$;
            CREATE FUNCTION per_call(expr text, n int) RETURNS float8 LANGUAGE plpgsql AS \$\$
            DECLARE t0 float8;
            BEGIN
                t0 := cpu_ns();
                EXECUTE format('SELECT count(%s) FROM generate_series(1, %s)', expr, n);
                RETURN (cpu_ns() - t0) / n;
            END \$\$;
            SELECT count(decimal_id()) FROM generate_series(1, 100000);" >/dev/null
    done
    samples=$WORK/tmp_check/ab_samples
    : >"$samples"
    # Each round measures both clusters back to back for each query, so that
    # the two samples of a pair see the same machine load.
    for r in $(seq 1 "$R"); do
        for expr in 'decimal_id()' 1; do
            for side in $(printf 'before\nafter\n' | shuf); do
                echo "$side $expr $(q "$side" "SELECT per_call('$expr', $N)") $r" >>"$samples"
            done
        done
    done
    med() { grep "^$1 $2 " "$samples" | awk '{print $3}' | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
    echo "N=$N, $R rounds, clusters in random order each round; median ns per call"
    printf '%-8s %10s %10s %10s\n' side loop decimal_id net
    for side in before after; do
        l=$(med "$side" 1); d=$(med "$side" 'decimal_id()')
        printf '%-8s %10.1f %10.1f %10.1f\n' "$side" "$l" "$d" "$(awk -v a="$d" -v b="$l" 'BEGIN { print a - b }')"
        eval "gross_$side=$d net_$side=$(awk -v a="$d" -v b="$l" 'BEGIN { print a - b }')"
    done
    for side in before after; do
        for expr in 'decimal_id()' 1; do
            printf '%-7s %-13s %s\n' "$side" "$expr" "$(grep "^$side $expr " "$samples" | awk '{printf "%.1f ", $3}')"
        done
    done
    awk -v a="$gross_after" -v b="$gross_before" -v c="$net_after" -v d="$net_before" \
        'BEGIN { printf "after/before of the medians: gross %.3f, net %.3f\n", a / b, c / d }'
    # Per round: after/before of the gross decimal_id() cost, and of the net
    # (decimal_id() minus the loop of the same cluster and round).
    awk '{ v[$1 " " $2 " " $4] = $3; r[$4] = 1 }
         END { for (i in r) {
                   g = v["after decimal_id() " i] / v["before decimal_id() " i];
                   n = (v["after decimal_id() " i] - v["after 1 " i]) / (v["before decimal_id() " i] - v["before 1 " i]);
                   print g, n } }' "$samples" >"$samples.ratios"
    echo "per-round after/before, median: gross $(awk '{print $1}' "$samples.ratios" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'), net $(awk '{print $2}' "$samples.ratios" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
    for side in before after; do
        printf 'min %-7s decimal_id() %.1f, loop %.1f\n' "$side" \
            "$(grep "^$side decimal_id() " "$samples" | awk '{print $3}' | sort -g | head -1)" \
            "$(grep "^$side 1 " "$samples" | awk '{print $3}' | sort -g | head -1)"
    done
    q after "SELECT generator_id, counter, reserved_to FROM decimal_id_state()" | sed 's/^/after: decimal_id_state() generator|counter|reserved_to = /'
    exit 0
fi

cd "$(dirname "$0")/.."
. scripts/common.sh
REF=${1:-HEAD~1}
install_deps
prepare_workdir id_gen-ab
[ "$WORK" != "$PWD" ] && trap 'rm -rf "$WORK"' EXIT
rm -rf "$WORK/before" && mkdir "$WORK/before"
git archive "$REF" | tar -x -C "$WORK/before"
[ "$(id -u)" -eq 0 ] && chown -R "$RUN_USER" "$WORK"
for dir in "$WORK/before" "$WORK"; do
    as_user make -C "$dir" -s clean >/dev/null 2>&1 || true
    as_user make -C "$dir" -s -j2 temp-install >/dev/null
done
as_user env N="${N:-2000000}" R="${R:-9}" bash "$WORK/bench/decimal_ab.sh" --run "$WORK"
