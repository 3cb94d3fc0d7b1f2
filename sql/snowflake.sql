-- snowflake_next(): 41-bit ms since the epoch | 10-bit worker id | 12-bit sequence.
-- Random output is checked by true/false assertions.  A statement expected to
-- fail is followed by \echo :LAST_ERROR_SQLSTATE: the output shows the error as
-- a client sees it, then its SQLSTATE.  Where the message holds numbers that
-- vary per run, VERBOSITY sqlstate prints only the SQLSTATE and the message
-- is shown masked.

-- Layout: decoding hand-built ids.  Id 0 is the epoch itself.
SELECT * FROM snowflake_decode(0);
SELECT * FROM snowflake_decode((1::bigint << 22) | (5 << 12) | 7);
-- The largest id is the last millisecond of the 41-bit time, worker 1023, sequence 4095.
SELECT * FROM snowflake_decode(9223372036854775807);
-- No id is negative; NULL decodes to NULL (STRICT).
SELECT snowflake_decode(-1); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM snowflake_decode(-9223372036854775808);
SELECT * FROM snowflake_decode(NULL);

-- Settings in force (the regression server does not preload id_gen; the
-- settings are known once a function of the library has run).
SHOW id_gen.worker_id;
SHOW id_gen.snowflake_epoch;

-- A fresh id carries this server's worker id and the current time.
SELECT worker_id = (SELECT worker_id FROM node_identity()) AS worker_ok,
       ts BETWEEN clock_timestamp() - interval '2 seconds' AND clock_timestamp() AS time_ok
  FROM snowflake_decode(snowflake_next());

-- Strictly increasing and unique across a 1M-row INSERT ... SELECT, which
-- needs more than 4096 ids per millisecond (mausimag/pgflake #1 and #3).
CREATE TEMP TABLE ids (n bigserial, id bigint);
INSERT INTO ids (id) SELECT snowflake_next() FROM generate_series(1, 1000000);
SELECT count(*) AS rows, count(DISTINCT id) = count(*) AS unique_ids,
       bool_and(id > prev) AS strictly_increasing
  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM ids) s;
-- Every millisecond holds at most 4096 ids, numbered without gaps from
-- where it starts (id_gen.snowflake_start_spread: snowflake_spread.sql) in
-- a single session.
SELECT max(c) <= 4096 AS at_most_4096_per_ms, bool_and(maxseq - minseq = c - 1) AS dense
  FROM (SELECT (id >> 22) AS ms, count(*) AS c, max(id & 4095) AS maxseq, min(id & 4095) AS minseq
          FROM ids GROUP BY 1) s
 WHERE ms > (SELECT min(id >> 22) FROM ids);    -- the first ms may be shared with earlier calls
SELECT ids_issued >= 1000000 AS counted FROM snowflake_state();

-- snowflake_min_id(t): the smallest id of time t, for range predicates.
SELECT snowflake_min_id(epoch) = 0 AS epoch_is_zero FROM snowflake_state();
SELECT snowflake_min_id(epoch + interval '1 ms') = 1 << 22 AS one_ms FROM snowflake_state();
SELECT (SELECT ts FROM snowflake_decode(snowflake_min_id(t))) = date_trunc('milliseconds', t) AS truncated_to_ms,
       snowflake_min_id(t) <= snowflake_next() AS below_later_ids
  FROM (SELECT clock_timestamp() AS t) s;
SELECT count(*) = (SELECT count(*) FROM ids WHERE id >= (SELECT min(id) FROM ids)) AS range_predicate_works
  FROM ids WHERE id >= snowflake_min_id((SELECT ts FROM snowflake_decode((SELECT min(id) FROM ids))));
SELECT snowflake_min_id('2016-10-31 23:59:59.999+00'); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_min_id('2086-07-08 15:47:35.552+00'); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_min_id('2086-07-08 15:47:35.551+00') = (9223372036854775807 >> 22) << 22 AS last_ms_ok;
SELECT snowflake_min_id('infinity'); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_min_id('-infinity'); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_min_id(NULL);

-- snowflake_next_batch(n): n consecutive ids of one millisecond, in one atomic step.
CREATE TEMP TABLE batch AS SELECT snowflake_next() AS before;
INSERT INTO batch SELECT NULL;
CREATE TEMP TABLE b AS SELECT id FROM snowflake_next_batch(4096) AS id;
SELECT count(*) AS n, max(id) - min(id) = 4095 AS contiguous,
       count(DISTINCT id >> 22) = 1 AS one_millisecond,
       min(id) & 4095 = 0 AS whole_millisecond,
       min(id) > (SELECT max(before) FROM batch) AS above_earlier_ids,
       max(id) < snowflake_next() AS below_later_ids
  FROM b;
SELECT count(*) FROM snowflake_next_batch(1);
SELECT snowflake_next_batch(0); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_next_batch(-1); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_next_batch(4097); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_next_batch(NULL); \echo :LAST_ERROR_SQLSTATE
SELECT snowflake_next_batch(0);

-- The clock going backwards, before the epoch and at the end of the time
-- field: clock_hooks.sql (it needs the test build's id_gen.test_clock_offset_ms).

-- Like nextval(), generators refuse read-only transactions.
BEGIN READ ONLY;
SELECT snowflake_next(); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;

-- Ordinary users generate.
CREATE ROLE idgen_snowflake_user;
-- Let the clock pass the reserved floor, so that the user's next call must
-- raise it.
SELECT pg_sleep(extract(epoch FROM clock_floor - clock_timestamp()) + 0.01) FROM snowflake_state();
SELECT clock_floor_advances AS advances_before FROM snowflake_state() \gset
SET ROLE idgen_snowflake_user;
-- Ordinary users may generate: the floor, on which they have no privilege,
-- is written as the extension's owner.
SELECT has_sequence_privilege('id_gen.snowflake_floor', 'UPDATE') AS user_may_write_floor;
SELECT snowflake_next() > 0 AS user_can_generate;
SELECT clock_floor_advances > :advances_before AS user_call_raised_floor FROM snowflake_state();
RESET ROLE;
DROP ROLE idgen_snowflake_user;

-- Bad settings are rejected, never used.
ALTER SYSTEM SET id_gen.worker_id = 1024;
ALTER SYSTEM SET id_gen.worker_id = -2;
ALTER SYSTEM SET id_gen.snowflake_epoch = '2999-01-01 00:00:00Z';
ALTER SYSTEM SET id_gen.snowflake_epoch = '2016-11-01 00:00:00+01';
-- Server-wide settings cannot be changed by a session.
SET id_gen.worker_id = 3; \echo :LAST_ERROR_SQLSTATE

-- The persisted floor is ahead of every id issued, and in the extension's
-- sequence: a snowflake id, the last of its millisecond for every worker id.
SELECT clock_floor >= last_time AS floor_ahead, clock_floor_advances > 0 AS advanced,
       (SELECT last_value FROM id_gen.snowflake_floor) >= last_id AS above_the_last_id,
       (SELECT ts = clock_floor AND worker_id = 1023 AND sequence = 4095
          FROM snowflake_decode((SELECT last_value FROM id_gen.snowflake_floor))) AS whole_millisecond
  FROM snowflake_state();
SELECT count(*) AS config_dumped FROM pg_extension e, unnest(e.extconfig) AS c(oid)
 WHERE e.extname = 'id_gen'
   AND c.oid IN ('id_gen.snowflake_floor'::regclass, 'id_gen.jsid_floor'::regclass, 'id_gen.timeuuid_floor'::regclass);

-- DROP and CREATE EXTENSION while the server runs: the new sequences get the
-- floors shared memory still holds, so that they cover the ids issued before
-- (a restart with the clock behind would repeat them otherwise).
SELECT current_database() AS home \gset
CREATE DATABASE idgen_sf_reinstall;
\c idgen_sf_reinstall
SET client_min_messages = warning;
CREATE EXTENSION id_gen;
SELECT snowflake_next() AS before_reinstall, jsid_next() AS jsid_before, timeuuid_next() AS tu_before \gset
DROP EXTENSION id_gen;
CREATE EXTENSION id_gen;
RESET client_min_messages;
SELECT (SELECT last_value FROM id_gen.snowflake_floor) >= :before_reinstall AS snowflake_floor_carried,
       (SELECT last_value FROM id_gen.jsid_floor) >= :jsid_before AS jsid_floor_carried,
       (SELECT last_value FROM id_gen.timeuuid_floor)
         >= (extract(epoch FROM timeuuid_timestamp(:'tu_before')) * 1000)::bigint << 20 AS timeuuid_floor_carried;
\c idgen_sf_reinstall
SELECT snowflake_next() AS after_reinstall \gset
SELECT last_value >= :after_reinstall AS new_floor_covers_the_id FROM id_gen.snowflake_floor;
\c :home
DROP DATABASE idgen_sf_reinstall;
