#!/bin/bash
# Attack 07 (test-hook build for the clock set back after the crash): a
# reinstall that is rolled back leaves the floor slot in shared memory above
# the durable floor.  In the reinstall's transaction the new floor sequence
# is raised (setval on a sequence created in the same transaction is
# transactional) and the slot raised with it; ROLLBACK restores the old
# sequence at the old value, but the slot keeps the higher floor, so every
# backend then issues ids up to it without any WAL: after a crash with the
# clock behind, ids go below (and repeat) ids issued and committed before.
# Expected (snowflake.md: "within a database ... never repeat and never go
# below an id issued before ... across crashes, clock steps"): phase 3 ids all
# above phase 2's.
# Actual: phase 3 ids below phase 2's max (and duplicates when sequences meet).
. "$(dirname "$0")/lib.sh"
q postgres "drop database if exists d07"; q postgres "create database d07"
q d07 "create extension id_gen; create table t(id bigint, phase int)"
# B: a long-lived application backend (a pool connection) that used the
# generator before; the DBA's rolled-back reinstall runs meanwhile (\!)
cat > /tmp/07b.sql <<'SQL'
insert into t select snowflake_next(), 1;
\! /tmp/r32/p d07 -Atq -c "begin" -c "drop extension id_gen cascade" -c "create extension id_gen" -c "select pg_sleep(1.1)" -c "select snowflake_next()" -c "rollback" >/dev/null
select 'durable floor after the rollback', last_value from id_gen.snowflake_floor;
do $$ declare t0 timestamptz := clock_timestamp(); begin while clock_timestamp() < t0 + interval '0.8 s' loop insert into t select snowflake_next(), 2; end loop; end $$;
select 'durable floor after phase 2', last_value from id_gen.snowflake_floor;
SQL
$P d07 -Atq -f /tmp/07b.sql
crash
echo "id_gen.test_clock_offset_ms = -5000" >> $D/postgresql.conf      # the clock 5 s behind after the crash
start
q d07 "insert into t select snowflake_next(), 3 from generate_series(1, 20000)"
sed -i '/id_gen.test_clock_offset_ms = -5000/d' $D/postgresql.conf; q postgres "select pg_reload_conf()" >/dev/null
q d07 "select 'phase', phase, count(*), min(id), max(id) from t group by phase order by phase"
q d07 "select 'phase 3 ids at or below phase 2 max', count(*) from t where phase = 3 and id <= (select max(id) from t where phase = 2)"
q d07 "select 'duplicates', count(*) - count(distinct id) from t"
