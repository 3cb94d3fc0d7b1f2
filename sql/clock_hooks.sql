-- Generators under a clock that moves: backwards a little and a lot (ids
-- continue above the last one, never refused, and the lead never grows),
-- forwards without real time passing (not followed), before the epoch, to
-- the end of the time field.  The wall clock is moved with
-- id_gen.test_clock_offset_ms (a step of the system clock), the monotonic
-- clock with id_gen.test_monotonic_offset_ms (time that really passed: both
-- together move ahead in time), which only test builds have (make
-- temp-install, hence make test): this file is in REGRESS_TEST_HOOKS, not
-- in REGRESS, which make installcheck and the package run against a
-- production build.

-- snowflake_next()
CREATE TEMP TABLE ids AS SELECT snowflake_next() AS id FROM generate_series(1, 1000);

-- The clock going backwards, simulated with the superuser test hook
-- id_gen.test_clock_offset_ms: the generator keeps the last id's millisecond
-- (never restarting its sequence), then borrows the next ones; the ids
-- still increase.
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
        last := snowflake_next();
        events := (SELECT clock_backward_events FROM snowflake_state());
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
-- holds, so (unless the 5 ms pass first) the generator borrows the next
-- millisecond; the ids increase either way.
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

-- An hour back: never refused; ids continue above the last one and run
-- ahead of the clock, at most a millisecond's ids per real millisecond: a
-- loop of full batches (4096 ids, a whole millisecond each) does not make
-- the lead grow faster than real time passes.
CREATE TEMP TABLE lead AS SELECT snowflake_next() AS last, clock_timestamp() AS at;
SET id_gen.test_clock_offset_ms = '-1h';
CREATE TEMP TABLE ahead AS
SELECT snowflake_next_batch(4096) AS id FROM generate_series(1, 200);
SELECT count(*) = 200 * 4096 AS all_issued,
       count(DISTINCT id) = count(*) AS distinct_ids,
       min(id) > (SELECT last FROM lead) AS above_the_last_id
  FROM ahead;
-- the time the ids moved ahead of the last one, against the real time that passed (+ 5 ms slack)
SELECT (extract(epoch FROM (SELECT max(ts) FROM ahead, snowflake_decode(id))
                        - (SELECT ts FROM lead, snowflake_decode(last))) * 1000)::bigint
       <= (extract(epoch FROM clock_timestamp() - (SELECT at FROM lead)) * 1000)::bigint + 5 AS lead_not_grown,
       (SELECT ahead_since IS NOT NULL FROM snowflake_state()) AS ahead_noted;
SELECT status, object FROM id_gen.headroom_clock() WHERE object = 'snowflake';
RESET id_gen.test_clock_offset_ms;
SELECT snowflake_next() > (SELECT max(id) FROM ahead) AS increasing_after;

-- A forward step of the wall clock the monotonic clock does not confirm is
-- caught up at most at twice real time's rate: the ids stay within the real
-- time elapsed of real time.  With both moved, time passed.
SET id_gen.test_clock_offset_ms = '3650d';
SELECT ts BETWEEN clock_timestamp() - interval '5 s' AND clock_timestamp() + interval '5 s' AS step_not_followed
  FROM snowflake_decode(snowflake_next());
SELECT ts < clock_timestamp() + interval '1 day' AS step_not_followed
  FROM timeuuid_next() v, LATERAL (SELECT timeuuid_timestamp(v) AS ts) t;
SELECT wall_clock_ahead_ms > 1000 AS noted FROM id_gen.clock_streams() WHERE stream = 'snowflake';
SELECT status, reason ~ 'the wall clock is \d+ ms ahead of the time the generators follow' AS said
  FROM id_gen.headroom_clock() WHERE object = 'snowflake';
RESET id_gen.test_clock_offset_ms;

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
DO $$
DECLARE o bigint := (extract(epoch FROM '2086-07-09 15:47:35.552+00'::timestamptz - clock_timestamp()) * 1000)::bigint;
BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s', o);
    EXECUTE format('SET id_gen.test_monotonic_offset_ms = %s', o);
END $$;
SELECT snowflake_next(); \echo :LAST_ERROR_SQLSTATE
RESET id_gen.test_clock_offset_ms;
RESET id_gen.test_monotonic_offset_ms;
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

-- 5. The clock going back: 10,000 ids with the clock 5 ms behind the last
-- one (more than a millisecond holds, so the generator borrows the next);
-- they increase.
-- The step is set from a clock read a moment before the ids are drawn: on
-- a loaded machine that moment can pass 5 ms and the clock is no longer
-- behind, so the attempt repeats (at most 20 times) until the generator
-- has seen a backward step; every attempt must stay above and increasing.
DO $$
DECLARE
    ids bigint[];
    last bigint;
    seen_before bigint;
    ok boolean := true;
BEGIN
    FOR attempt IN 1..20 LOOP
        last := jsid_next();
        seen_before := (SELECT clock_backward_events FROM jsid_state());
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
-- An hour back: never refused, above the last id, and noted.
SET id_gen.test_clock_offset_ms = '-1h';
SELECT jsid_next() > (SELECT max(id) FROM ids) AS above_while_behind;
RESET id_gen.test_clock_offset_ms;
SELECT clock_backward_events >= 1 AS events_counted FROM jsid_state();
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
DO $$
DECLARE o bigint := (extract(epoch FROM '2086-07-09 15:47:35.552+00'::timestamptz - clock_timestamp()) * 1000)::bigint;
BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s', o);
    EXECUTE format('SET id_gen.test_monotonic_offset_ms = %s', o);
END $$;
\set VERBOSITY sqlstate
SELECT jsid_next();
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N', 'g') AS error;
RESET id_gen.test_clock_offset_ms;
RESET id_gen.test_monotonic_offset_ms;

-- timeuuid_next()
-- The clock moving back one hour does not move the ids back.
CREATE TEMP TABLE before_step AS SELECT timeuuid_next() AS v;
SET id_gen.test_clock_offset_ms = '-3600000';
SELECT bool_and(timeuuid_next() > (SELECT v FROM before_step)) AS still_increasing
  FROM generate_series(1, 1000);
SELECT timeuuid_timestamp(timeuuid_next()) >= timeuuid_timestamp((SELECT v FROM before_step)) AS time_kept;
RESET id_gen.test_clock_offset_ms;
