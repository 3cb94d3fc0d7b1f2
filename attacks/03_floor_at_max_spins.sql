-- Attack 03: in the last second of the snowflake time field, snowflake_next()
-- spins forever in a loop with no CHECK_FOR_INTERRUPTS: statement_timeout,
-- pg_cancel_backend and pg_terminate_backend do nothing; only kill -9 (a
-- server-wide crash and recovery) stops it.
-- Cause: the floor target state_after(ms + 1000) clamps at kMaxTime, i.e.
-- INT64_MAX (63 bits: snowflake's max_id); snowflake_reserve() then computes
-- ((floor + 1) >> time_shift) - 1, which overflows to a negative millisecond:
-- FloorReached again, idgen_clock_floor_advance() returns at once (covered >=
-- need), continue, forever.
-- Needs the test-hook build (id_gen.test_clock_offset_ms and
-- id_gen.test_monotonic_offset_ms) to put the clock 400 ms before
-- 2086-07-08 15:47:35.551 UTC (the default epoch's end); in production the
-- same happens in that last second, or earlier with an early
-- id_gen.snowflake_epoch.
-- Expected: ERROR 2200H "time field ... is exhausted" (docs: the table in
--   snowflake.md), or an id, within statement_timeout.
-- Actual: the backend spins at 100% CPU, uncancellable.
-- Run in a scratch database; the runner (03_floor_at_max_spins.sh) kills it.
SET statement_timeout = '3s';
SELECT round(extract(epoch FROM timestamptz '2086-07-08 15:47:35.551+00') * 1000 - 400
             - extract(epoch FROM clock_timestamp()) * 1000)::bigint AS off \gset
-- the monotonic clock moves with the wall clock (a forward step it does not
-- confirm is not followed)
SET id_gen.test_clock_offset_ms = :off;
SET id_gen.test_monotonic_offset_ms = :off;
SELECT pg_backend_pid();
SELECT snowflake_next();
