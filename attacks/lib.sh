B=${B:-/work/wt/review32/tmp_install/usr/lib/postgresql/15/bin}
P=${P:-/tmp/r32/p}   # psql wrapper: p DB [psql args]
D=${D:-/tmp/r32/data}
crash() { $B/pg_ctl -D $D stop -m immediate >/dev/null; }
start() { $B/pg_ctl -D $D -o "-p 55432 -k /tmp/r32" -l /tmp/r32/log start -w >/dev/null; }
q() { db=$1; shift; $P $db -Atqc "$*"; }
setconf() { q postgres "alter system set $1 = '$2'"; q postgres "select pg_reload_conf()" >/dev/null; sleep 0.3; }
