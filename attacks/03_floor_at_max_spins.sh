#!/bin/bash
# Attack 03 runner (test-hook build).  Step 1 (03_floor_at_max_spins.sql): a
# session whose clock is 400 ms before the end of the 41-bit field raises
# the database's floor to state_after(kMaxTime) = INT64_MAX (spins ~400 ms,
# then ERROR 2200H).  Step 2: a new session at the real clock calls
# snowflake_next(): ((floor + 1) >> 22) - 1 overflows, FloorReached forever,
# no CHECK_FOR_INTERRUPTS: statement_timeout, cancel and terminate are
# ignored; it would spin until 2086.  kill -9 (server-wide crash recovery) is
# the only way out, and after the restart the same database's first use
# raises the server-wide snowflake word to INT64_MAX: snowflake_next() gives
# ERROR 2200H in every database of the server.
# Expected: an id (ahead of the clock at worst) or an ERROR; never an
# uncancellable loop.
P=${P:-/tmp/r32/p}; DB=${DB:-d03}
$P postgres -Atqc "drop database if exists $DB" ; $P postgres -Atqc "create database $DB"
$P $DB -Atqc "create extension id_gen"
$P $DB -f "$(dirname $0)/03_floor_at_max_spins.sql" 2>&1 | grep -E "ERROR|^[0-9]"
$P $DB -Atqc "select 'floor now', last_value from id_gen.snowflake_floor"
$P $DB -Atq -c "set statement_timeout = '2s'" -c "select snowflake_next()" > /tmp/03.out 2>&1 &
sleep 5
pid=$($P postgres -Atqc "select pid from pg_stat_activity where datname = '$DB' and query like 'select snowflake_next()%'")
echo "after 5 s (statement_timeout 2s): backend $pid: $($P postgres -Atqc "select state, now() - query_start from pg_stat_activity where pid = '$pid'")"
$P postgres -Atqc "select pg_cancel_backend($pid), pg_terminate_backend($pid)"; sleep 3
echo "after cancel + terminate: $($P postgres -Atqc "select count(*) from pg_stat_activity where pid = '$pid'") backend(s) left"
ps -o pid,pcpu,etime,cmd -p $pid
echo "kill -9 $pid   # the only way out (server-wide crash recovery)"
kill -9 $pid; sleep 3
$P postgres -Atqc "select 'other database after recovery', snowflake_next()" 2>&1
$P $DB -Atqc "select 'd03 after recovery', snowflake_next()" 2>&1
$P postgres -Atqc "select 'other database after d03 used', snowflake_next()" 2>&1
