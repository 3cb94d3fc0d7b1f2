-- issue 11, part 3: jsid_next(), time-ordered ids below 2^53 (exact as
-- JavaScript numbers): 41-bit ms since id_gen.snowflake_epoch | 4-bit worker
-- id | 8-bit sequence, on snowflake_next()'s machinery.  Adversity first:
-- the per-millisecond sequence used up, the clock going back, a worker id
-- that does not fit, the end of the time field, read-only and parallel mode.
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE; where
-- its message holds numbers that vary per run, VERBOSITY sqlstate prints only
-- the SQLSTATE and the message is shown masked.
SET timezone = 'UTC';

-- 1. Layout: hand-built ids decode; the largest is 2^53 - 1, the last
-- millisecond of the 41-bit time field, worker 15, sequence 255.
SELECT * FROM jsid_decode(0);
SELECT * FROM jsid_decode((1::bigint << 12) | (5 << 8) | 7);
SELECT * FROM jsid_decode(9007199254740991);
SELECT jsid_decode(9007199254740992); \echo :LAST_ERROR_SQLSTATE
SELECT jsid_decode(-1); \echo :LAST_ERROR_SQLSTATE
SELECT jsid_max_id('2086-07-08 15:47:35.551+00') AS largest_id,
       jsid_max_id('2086-07-08 15:47:35.551+00') = (2::numeric ^ 53 - 1) AS is_2_53_minus_1,
       jsid_min_id('2016-11-01 00:00:00+00') AS first_id;
SELECT jsid_min_id('2086-07-08 15:47:35.552+00'); \echo :LAST_ERROR_SQLSTATE
SELECT jsid_min_id('2016-10-31 23:59:59.999+00'); \echo :LAST_ERROR_SQLSTATE
SELECT jsid_max_id('infinity'); \echo :LAST_ERROR_SQLSTATE

-- 2. A fresh id: this server's worker id, the current time, below 2^53.
SELECT worker_id = (SELECT worker_id FROM node_identity()) AS worker_ok,
       ts BETWEEN clock_timestamp() - interval '2 seconds' AND clock_timestamp() AS time_ok
  FROM jsid_decode(jsid_next());

-- 3. 100,000 ids in one statement: 256 per millisecond at most, so the
-- sequence runs out ~400 times and the generator waits for the next
-- millisecond; the ids stay unique, strictly increasing, dense within each
-- millisecond, below 2^53 and exact as doubles (what JSON.parse and Number() keep).
CREATE TEMP TABLE ids (n bigserial, id bigint);
SELECT next_ms_waits AS waits_before FROM jsid_state() \gset
INSERT INTO ids (id) SELECT jsid_next() FROM generate_series(1, 100000);
SELECT count(*) AS rows, count(DISTINCT id) = count(*) AS unique_ids,
       bool_and(id > prev) AS strictly_increasing,
       max(id) < 9007199254740992 AS below_2_53,
       bool_and(id::float8::bigint = id) AS exact_as_double
  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) s;
SELECT max(c) <= 256 AS at_most_256_per_ms, bool_and(maxseq - minseq = c - 1) AS dense
  FROM (SELECT (id >> 12) AS ms, count(*) AS c, max(id & 255) AS maxseq, min(id & 255) AS minseq
          FROM ids GROUP BY 1) s
 WHERE ms > (SELECT min(id >> 12) FROM ids);
SELECT next_ms_waits > :waits_before AS waited_for_next_ms, ids_issued >= 100000 AS counted FROM jsid_state();
-- A snowflake id (61 bits today) does not survive a double: here one of 2026-11-22 with sequence 1.
SELECT 1331177812131840001::float8::bigint = 1331177812131840001 AS snowflake_exact_as_double,
       1331177812131840001::float8::bigint AS what_a_double_keeps;

-- 4. Range predicates on the key instead of a timestamp column.
SELECT count(*) = (SELECT count(*) FROM ids) AS min_id_selects_all
  FROM ids WHERE id >= jsid_min_id((SELECT ts FROM jsid_decode((SELECT min(id) FROM ids))));
SELECT count(*) = (SELECT count(*) FROM ids) AS closed_range_selects_all
  FROM ids WHERE id BETWEEN jsid_min_id((SELECT ts FROM jsid_decode((SELECT min(id) FROM ids))))
                        AND jsid_max_id((SELECT ts FROM jsid_decode((SELECT max(id) FROM ids))));

-- 5., 6. The clock going back, before the epoch and at the end of the
-- time field: clock_hooks.sql (it needs the test build's
-- id_gen.test_clock_offset_ms).

-- 7. The floor is jsid's own (id_gen.jsid_floor, a jsid): ahead of every jsid issued.
SELECT clock_floor >= last_time AS floor_ahead,
       (SELECT last_value FROM id_gen.jsid_floor) >= last_id AS above_the_last_id FROM jsid_state();

-- 8. Like nextval(): refused in a read-only transaction, and in parallel
-- mode (a wrapper that claims PARALLEL SAFE is caught in the worker).
BEGIN READ ONLY;
SELECT jsid_next(); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
CREATE FUNCTION pg_temp.lying_wrapper() RETURNS bigint LANGUAGE sql PARALLEL SAFE AS 'SELECT jsid_next()';
-- Every query through a parallel worker: force_parallel_mode up to 15,
-- renamed debug_parallel_query in 16.
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS parallel_forced;
SELECT pg_temp.lying_wrapper(); \echo :LAST_ERROR_SQLSTATE
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false) AS parallel_forced;

-- 9. A worker id that does not fit 4 bits is refused, never truncated
-- (worker 17 would collide with worker 1).
ALTER SYSTEM SET id_gen.worker_id = 17;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW id_gen.worker_id;
SELECT jsid_next(); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_next() > 0 AS snowflake_takes_it;
ALTER SYSTEM RESET id_gen.worker_id;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW id_gen.worker_id;
SELECT jsid_next() > (SELECT max(id) FROM ids) AS works_again;

-- 10. Labels: the generator VOLATILE PARALLEL UNSAFE (it may write the
-- floor's sequence), decoding STABLE (it depends on the epoch setting).
SELECT p.oid::regprocedure, provolatile, proparallel
  FROM pg_proc p WHERE proname LIKE 'jsid%' ORDER BY p.oid::regprocedure::text;
