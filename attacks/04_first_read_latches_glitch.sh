#!/bin/bash
# Attack 04 (test-hook build; the wall clock is moved server-wide with
# ALTER SYSTEM SET id_gen.test_clock_offset_ms, the monotonic clock is not):
# the monotonic reference (mono_offset_ns) is not taken at server start but at
# the first clock confirmation, i.e. the first time-ordered id of any stream
# since the start.  A forward wall-clock glitch in a RUNNING server before that
# first id is followed in full: ids (and the durable floor, 1 s further) jump
# years ahead, and stay ahead after the clock is corrected, in every database
# (the word is shared) and across restarts (the floor).
# Docs (snowflake.md): "While the server runs, a jump of the wall clock more
# than a second beyond what the monotonic clock has measured since ... is not
# followed: ids keep to real time, so a glitch cannot push them years ahead."
# Expected: the first id after the glitch at real time (the server ran for
#   the whole time: the monotonic clock measured it), headroom warning about
#   the wall clock.
# Actual: id 3 years ahead; after the glitch is corrected and even after a
#   restart the ids stay 3 years ahead (headroom critical).
. "$(dirname "$0")/lib.sh"   # B, P, D, crash, start, q, setconf
crash; start                                # a running server, no id issued yet
q postgres "drop database if exists d04"; q postgres "create database d04"; q d04 "create extension id_gen"
sleep 1
setconf id_gen.test_clock_offset_ms $((3*365*86400*1000))   # the wall clock jumps 3 years ahead
q d04 "select 'first id after the glitch: time', ts from snowflake_decode(snowflake_next())"
q d04 "select 'headroom', status, left(reason, 90) from id_gen.headroom where object = 'snowflake'"
q postgres "alter system reset id_gen.test_clock_offset_ms"; q postgres "select pg_reload_conf()" >/dev/null; sleep 0.5
q d04 "select 'after the clock is corrected: time', ts from snowflake_decode(snowflake_next())"
crash; start
q d04 "select 'after a restart: time', ts from snowflake_decode(snowflake_next())"
q d04 "select 'headroom', status, left(reason, 90) from id_gen.headroom where object = 'snowflake'"
