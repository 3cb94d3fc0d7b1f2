#!/usr/bin/env bash
# bench/ab.sh: per-call cost of generators under two revisions, in one run.
#
#   bash bench/ab.sh REV_A REV_B [function ...]
#   bash bench/ab.sh main HEAD snowflake_next timeuuid_next
#   SETUP="CREATE TABLE t (id bigint DEFAULT hilo_next('t'))" \
#       bash bench/ab.sh main HEAD "hilo_next('t')"
#
# A function given with its arguments is called as written; SETUP is run
# in both servers after CREATE EXTENSION.
#
# Builds each revision as make install would (production build, no test
# hooks) into a private copy of the server, starts one throwaway cluster per
# revision (preloaded, jit=off, synchronous_commit=off), and measures
# SELECT count(f()) FROM generate_series(1, N) minus the same with count(1),
# in CPU time of the backend (/proc/PID/schedstat: time waiting for a core
# on a busy machine is not counted), in R rounds that alternate the two
# servers (and their order), so that the remaining noise falls on both alike.  Prints the median ns per call of each
# revision and B/A.  Compare within one run only.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/common.sh

A=${1:?revision A}
B=${2:?revision B}
shift 2
FUNCS=${*:-snowflake_next timeuuid_next}
N=${N:-1000000}
R=${R:-9}
SETUP=${SETUP:-}
GROSS=${GROSS:-0}     # 1: the whole query's time per row, count(1) loop included

install_deps
WORK=$(mktemp -d /tmp/id_gen-ab.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
for side in a b; do
    rev=$A; [ $side = b ] && rev=$B
    mkdir -p "$WORK/$side/src"
    git archive "$rev" | tar -x -C "$WORK/$side/src"
done
chown -R "$RUN_USER" "$WORK"
as_user env WORK="$WORK" N="$N" R="$R" FUNCS="$FUNCS" SETUP="$SETUP" GROSS="$GROSS" A="$A" B="$B" bash -c '
set -euo pipefail
BINDIR=$(pg_config --bindir) LIBDIR=$(pg_config --pkglibdir) SHAREDIR=$(pg_config --sharedir)
port=54350
for side in a b; do
    d=$WORK/$side inst=$WORK/$side/inst
    make -C "$d/src" -s -j2 all >/dev/null
    mkdir -p "$(dirname "$inst$BINDIR")" "$(dirname "$inst$LIBDIR")" "$(dirname "$inst$SHAREDIR")"
    cp -a "$BINDIR" "$inst$BINDIR"; cp -a "$LIBDIR" "$inst$LIBDIR"; cp -a "$SHAREDIR" "$inst$SHAREDIR"
    make -C "$d/src" -s install DESTDIR="$inst" >/dev/null
    "$inst$BINDIR/initdb" -D "$d/data" -U postgres -A trust >/dev/null
    cat >>"$d/data/postgresql.conf" <<CONF
port = $port
listen_addresses = '\'\''
unix_socket_directories = '\''$d'\''
shared_preload_libraries = '\''id_gen'\''
jit = off
synchronous_commit = off
work_mem = 256MB
CONF
    "$inst$BINDIR/pg_ctl" -D "$d/data" -l "$d/log" -w start >/dev/null
    echo "$port" >"$d/port"
    port=$((port + 1))
done
stop() { for side in a b; do "$WORK/$side/inst$BINDIR/pg_ctl" -D "$WORK/$side/data" -m fast stop >/dev/null || true; done; }
trap stop EXIT
q() { psql -X -q -At -h "$WORK/$1" -p "$(cat "$WORK/$1/port")" -U postgres -d postgres -c "$2"; }
for side in a b; do
    q $side "CREATE EXTENSION id_gen;
      CREATE FUNCTION ab_ns(q text) RETURNS float8 LANGUAGE plpgsql AS \$\$
      DECLARE f text := format(\$f\$/proc/%s/schedstat\$f\$, pg_backend_pid()); t0 bigint;
      BEGIN t0 := split_part(pg_read_file(f), \$s\$ \$s\$, 1)::bigint; EXECUTE q;
      RETURN split_part(pg_read_file(f), \$s\$ \$s\$, 1)::bigint - t0; END \$\$;"
    [ -z "$SETUP" ] || q $side "$SETUP"
done
what="net of the count(1) loop"; [ "$GROSS" = 1 ] && what="gross, count(1) loop included"
printf "%-16s %10s %10s %7s   (N=%d, %d rounds, ns per call $what: median, then min)\n" function "$A" "$B" "B/A" "$N" "$R"
for f in $FUNCS; do
    case $f in *"("*) ;; *) f="$f()" ;; esac
    for side in a b; do q $side "SELECT count($f) FROM generate_series(1, 100000)" >/dev/null; done
    ra=() rb=()
    for i in $(seq 1 "$R"); do
        order="a b"; [ $((i % 2)) -eq 0 ] && order="b a"
        for side in $order; do
            loop="ab_ns(\$q\$SELECT count(1) FROM generate_series(1, $N)\$q\$)"
            [ "$GROSS" = 1 ] && loop=0
            v=$(q $side "SELECT (ab_ns(\$q\$SELECT count($f) FROM generate_series(1, $N)\$q\$) - $loop) / $N")
            if [ $side = a ]; then ra+=("$v"); else rb+=("$v"); fi
        done
    done
    ma=$(printf "%s\n" "${ra[@]}" | sort -g | sed -n "$(( (R + 1) / 2 ))p")
    mb=$(printf "%s\n" "${rb[@]}" | sort -g | sed -n "$(( (R + 1) / 2 ))p")
    la=$(printf "%s\n" "${ra[@]}" | sort -g | head -1)
    lb=$(printf "%s\n" "${rb[@]}" | sort -g | head -1)
    awk -v f="$f" -v a="$ma" -v b="$mb" -v la="$la" -v lb="$lb" \
        "BEGIN { printf \"%-16s %10.1f %10.1f %7.3f   min %7.1f %7.1f %7.3f\n\", f, a, b, b / a, la, lb, lb / la }"
done
'
