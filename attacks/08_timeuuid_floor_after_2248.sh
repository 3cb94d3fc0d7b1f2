#!/bin/bash
# Attack 08 (test-hook build: the session's wall and monotonic clocks moved
# together to 2250): from 2^43 ms after 1970 (2248-09-26) the timeuuid state
# word, 64 bits with the ms in its top 44, is negative as an int64:
# timeuuid_gen.cpp compares static_cast<int64>(next) > floor, which is
# false for every word, so the durable floor (id_gen.timeuuid_floor) is never
# advanced again and ids are returned with no WAL behind them; a crash with
# the clock behind repeats them (and a floor above 2^63 could not be stored
# in a sequence with MINVALUE 0 anyway).  Docs: timeuuid_next() "counts 44-bit
# milliseconds from 1970, until the year 2527", covered by the floor.
# Expected: the floor advances (last_value > 0) before ids of 2250 are
# returned; after the crash with the clock 10 s back, ids above the earlier.
# Actual: floor stays 0; after the crash the ids go back below the earlier.
. "$(dirname "$0")/lib.sh"
q postgres "drop database if exists d08"; q postgres "create database d08"; q d08 "create extension id_gen"
OFF=$(q postgres "select round(extract(epoch FROM timestamptz '2250-01-01 00:00:00+00') * 1000 - extract(epoch FROM clock_timestamp()) * 1000)::bigint")
$P d08 -Atq -c "set id_gen.test_clock_offset_ms = $OFF" -c "set id_gen.test_monotonic_offset_ms = $OFF" \
   -c "create table t as select timeuuid_next() u, 1 phase from generate_series(1, 1000)" -c "select pg_sleep(1.2)" \
   -c "insert into t select timeuuid_next(), 1 from generate_series(1, 1000)"
q d08 "select 'durable timeuuid floor', last_value from id_gen.timeuuid_floor"
crash; start
OFF2=$((OFF - 10000))
$P d08 -Atq -c "set id_gen.test_clock_offset_ms = $OFF2" -c "set id_gen.test_monotonic_offset_ms = $OFF2" \
   -c "insert into t select timeuuid_next(), 2 from generate_series(1, 1000)"
q d08 "select 'phase 2 ids below phase 1 max', count(*) from t where phase = 2 and u < (select max(u) from t where phase = 1)"
crash; start   # leave the server's timeuuid word at the real clock again
