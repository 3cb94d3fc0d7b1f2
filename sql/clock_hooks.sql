-- Generators under a clock that moves: backwards within and beyond the
-- tolerance, before the epoch, to the end of the time field.  The clock is
-- moved with id_gen.test_clock_offset_ms, which only test builds have (make
-- temp-install, hence make test): this file is in REGRESS_TEST_HOOKS, not
-- in REGRESS, which make installcheck and the package run against a
-- production build.

-- snowflake_next()
CREATE TEMP TABLE ids AS SELECT snowflake_next() AS id FROM generate_series(1, 1000);

-- The clock going backwards, simulated with the superuser test hook
-- id_gen.test_clock_offset_ms.  Within id_gen.max_clock_backward_ms (10 ms) the
-- generator keeps the last id's millisecond (never restarting its sequence)
-- and waits when it is used up; the ids still increase.
DO $$
DECLARE
    last bigint;
    id bigint;
    events bigint;
    exercised boolean := false;
    increasing boolean := true;
    same_ms boolean := true;
BEGIN
    -- Put the clock 5 ms behind the last id, then take an id.  On a loaded
    -- machine more than 5 ms may pass in between, so try a few times.
    FOR attempt IN 1 .. 50 LOOP
        events := (SELECT clock_backward_events FROM snowflake_state());
        last := snowflake_next();
        EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
            -((extract(epoch FROM clock_timestamp()) * 1000)::bigint
              - (extract(epoch FROM (SELECT ts FROM snowflake_decode(last))) * 1000)::bigint + 5));
        id := snowflake_next();
        RESET id_gen.test_clock_offset_ms;
        increasing := increasing AND id > last;
        IF (SELECT clock_backward_events > events FROM snowflake_state()) THEN
            exercised := true;
            -- the sequence continued in the last id's millisecond
            same_ms := id >> 22 = last >> 22;
            EXIT;
        END IF;
    END LOOP;
    RAISE NOTICE 'clock behind seen: %, ids increasing: %, kept the last id''s millisecond: %',
        exercised, increasing, same_ms;
END $$;
-- 10,000 ids with the clock 5 ms behind: more than the last millisecond
-- holds, so (unless the 5 ms pass first) the generator waits for the clock;
-- the ids increase either way.
DO $$
DECLARE
    ids bigint[];
    last bigint := snowflake_next();
BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
        -((extract(epoch FROM clock_timestamp()) * 1000)::bigint
          - (extract(epoch FROM (SELECT ts FROM snowflake_decode(last))) * 1000)::bigint + 5));
    ids := ARRAY(SELECT snowflake_next() FROM generate_series(1, 10000));
    RESET id_gen.test_clock_offset_ms;
    RAISE NOTICE 'above the last id: %, increasing: %', ids[1] > last,
        (SELECT bool_and(a < b) FROM unnest(ids[1:9999], ids[2:10000]) AS u(a, b));
END $$;

-- Further back than the tolerance: an ERROR, and no id.
SET id_gen.test_clock_offset_ms = '-1h';
\set VERBOSITY sqlstate
SELECT snowflake_next();
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N', 'g') AS error;
\set VERBOSITY sqlstate
SELECT snowflake_next_batch(10);
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N', 'g') AS error;
RESET id_gen.test_clock_offset_ms;
SELECT clock_backward_errors >= 2 AS errors_counted FROM snowflake_state();
-- The clock before the epoch.
DO $$ BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
        -(extract(epoch FROM clock_timestamp() - '2016-10-31 00:00:00+00') * 1000)::bigint);
END $$;
\set VERBOSITY sqlstate
SELECT snowflake_next();
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N', 'g') AS error;
RESET id_gen.test_clock_offset_ms;

-- The end of the 41-bit time (2086-07-08 for the default epoch): a WARNING
-- within a year of it, an ERROR after it (here: a day after); never a negative id.
DO $$ BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
        (extract(epoch FROM '2086-07-08 15:47:35.551+00'::timestamptz - clock_timestamp()
                              - interval '30 days 1 hour') * 1000)::bigint);
END $$;
SELECT time_exhausted_at, time_left < interval '31 days' AS close FROM snowflake_state();
DO $$ BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
        (extract(epoch FROM '2086-07-09 15:47:35.552+00'::timestamptz - clock_timestamp()) * 1000)::bigint);
END $$;
SELECT snowflake_next(); \echo :LAST_ERROR_SQLSTATE
RESET id_gen.test_clock_offset_ms;
SELECT snowflake_next() > (SELECT max(id) FROM ids) AS still_increasing;

-- The test hook is for superusers only.
CREATE ROLE idgen_clock_hooks_user;
SET ROLE idgen_clock_hooks_user;
SET id_gen.test_clock_offset_ms = 5; \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
DROP ROLE idgen_clock_hooks_user;

-- jsid_next() (times shown in UTC, as in jsid.sql)
SET timezone = 'UTC';
TRUNCATE ids;
INSERT INTO ids SELECT jsid_next() FROM generate_series(1, 1000);

-- 5. The clock going back within id_gen.max_clock_backward_ms (10 ms):
-- 10,000 ids with the clock 5 ms behind the last one (more than a
-- millisecond holds, so the generator waits for the clock); they increase.
-- The step is set from a clock read a moment before the ids are drawn: on
-- a loaded machine that moment can pass 5 ms and the clock is no longer
-- behind, so the attempt repeats (at most 20 times) until the generator
-- has seen a backward step; every attempt must stay above and increasing.
DO $$
DECLARE
    ids bigint[];
    last bigint;
    seen_before bigint := (SELECT clock_backward_events FROM jsid_state());
    ok boolean := true;
BEGIN
    FOR attempt IN 1..20 LOOP
        last := jsid_next();
        EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
            -((extract(epoch FROM clock_timestamp()) * 1000)::bigint
              - (extract(epoch FROM (SELECT ts FROM jsid_decode(last))) * 1000)::bigint + 5));
        ids := ARRAY(SELECT jsid_next() FROM generate_series(1, 10000));
        RESET id_gen.test_clock_offset_ms;
        ok := ok AND ids[1] > last
              AND (SELECT bool_and(a < b) FROM unnest(ids[1:9999], ids[2:10000]) AS u(a, b));
        EXIT WHEN (SELECT clock_backward_events FROM jsid_state()) > seen_before;
    END LOOP;
    RAISE NOTICE 'above the last id and increasing: %, a backward step seen: %', ok,
        (SELECT clock_backward_events FROM jsid_state()) > seen_before;
END $$;
-- Further back: an ERROR, no id, and the error is counted.
SET id_gen.test_clock_offset_ms = '-1h';
\set VERBOSITY sqlstate
SELECT jsid_next();
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N', 'g') AS error;
RESET id_gen.test_clock_offset_ms;
SELECT clock_backward_errors >= 1 AS errors_counted, clock_backward_events >= 1 AS events_counted FROM jsid_state();
SELECT jsid_next() > (SELECT max(id) FROM ids) AS still_increasing;
-- The clock before the epoch.
DO $$ BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
        -(extract(epoch FROM clock_timestamp() - '2016-10-31 00:00:00+00') * 1000)::bigint);
END $$;
\set VERBOSITY sqlstate
SELECT jsid_next();
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N', 'g') AS error;
RESET id_gen.test_clock_offset_ms;

-- 6. The end of the time field (2086-07-08 with the default epoch): a
-- WARNING within a year, then ERROR 2200H; never an id of 2^53 or more.
DO $$ BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
        (extract(epoch FROM '2086-07-08 15:47:35.551+00'::timestamptz - clock_timestamp()
                              - interval '30 days 1 hour') * 1000)::bigint);
END $$;
SELECT time_exhausted_at, time_left < interval '31 days' AS close FROM jsid_state();
DO $$ BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
        (extract(epoch FROM '2086-07-09 15:47:35.552+00'::timestamptz - clock_timestamp()) * 1000)::bigint);
END $$;
\set VERBOSITY sqlstate
SELECT jsid_next();
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N', 'g') AS error;
RESET id_gen.test_clock_offset_ms;

-- timeuuid_next()
-- The clock moving back one hour does not move the ids back.
CREATE TEMP TABLE before_step AS SELECT timeuuid_next() AS v;
SET id_gen.test_clock_offset_ms = '-3600000';
SELECT bool_and(timeuuid_next() > (SELECT v FROM before_step)) AS still_increasing
  FROM generate_series(1, 1000);
SELECT timeuuid_timestamp(timeuuid_next()) >= timeuuid_timestamp((SELECT v FROM before_step)) AS time_kept;
RESET id_gen.test_clock_offset_ms;
