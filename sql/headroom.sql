-- id_gen.headroom: every generator's headroom at a glance.  Each generator is
-- driven near its end (a faked clock, a Hi/Lo key moved up, decimal_id
-- generator ids taken), and its row turns warning, then critical, at the
-- points id_gen.headroom_thresholds() gives; the generators' own WARNINGs
-- appear at the same points.
\pset null '(null)'

-- The thresholds and the settings they come from.
SELECT * FROM id_gen.headroom_thresholds();

-- One row per generator (and per Hi/Lo key); nothing near its end yet.
CREATE TABLE headroom_t (id bigint PRIMARY KEY DEFAULT hilo_next('headroom_t'), v text);
SELECT hilo_create_key('headroom_t') IS NOT NULL AS keyed;
INSERT INTO headroom_t (v) VALUES ('a');
SELECT snowflake_next() > 0 AS floor_loaded;
SELECT generator, object, status, runs_out FROM id_gen.headroom
 WHERE generator <> 'hilo' OR object = 'public.headroom_t' ORDER BY generator, object;
SELECT reason FROM id_gen.headroom WHERE generator = 'node identity';

-- 1. snowflake and jsid: the 41-bit millisecond field from 2016-11-01 ends
-- 2086-07-08 15:47:35.551 UTC.  400 days before: ok.  365 days before: warning
-- (and snowflake_state() warns).  29 days before: critical.  (Half a day more
-- each, and whole days shown with floor(): the seconds left run from a
-- little under to a second over the half day, by how long a statement takes
-- and where the floor's reservation stands, and round() made 400 or 401.)
CREATE FUNCTION pg_temp.days_before_end(d numeric) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SET id_gen.test_clock_offset_ms = %s',
        (extract(epoch FROM '2086-07-08 15:47:35.551+00'::timestamptz - clock_timestamp()
                              - d * interval '1 day') * 1000)::bigint);
END $$;
SELECT pg_temp.days_before_end(400.5);
SELECT generator, status, runs_out, floor(seconds_left / 86400) AS days_left,
       round(used_fraction::numeric, 3) AS used
  FROM id_gen.headroom WHERE generator IN ('snowflake', 'jsid') ORDER BY 1;
SELECT pg_temp.days_before_end(365.5);
SELECT generator, status, reason FROM id_gen.headroom WHERE generator IN ('snowflake', 'jsid') ORDER BY 1;
SELECT pg_temp.days_before_end(29.5);
SELECT generator, status FROM id_gen.headroom WHERE generator IN ('snowflake', 'jsid') ORDER BY 1;
-- The setting moves both: with id_gen.headroom_warning_days = 500, 400 days
-- before the end is a warning for the view and for snowflake_state().
SELECT pg_temp.days_before_end(400.5);
SET id_gen.headroom_warning_days = 500;
SELECT generator, status FROM id_gen.headroom WHERE generator IN ('snowflake', 'jsid') ORDER BY 1;
RESET id_gen.headroom_warning_days;
-- timeuuid's 48-bit field ends in 10889: never within a century.
SELECT generator, status, runs_out FROM id_gen.headroom WHERE generator = 'timeuuid';
RESET id_gen.test_clock_offset_ms;

-- 2. The clock: one row per time-ordered stream, with how far its last id
-- is ahead of the clock (the words are the server's: every database sees
-- the same).  At the clock: ok.  The clock set back 500 ms under an id
-- issued: the ids run ahead, never refused: warning.  Set back 60 s, more
-- than the floor's step (1000 ms): critical, with since when.
SELECT snowflake_next() > 0 AND jsid_next() > 0 AND timeuuid_next() IS NOT NULL AS issued;
SELECT object, status FROM id_gen.headroom WHERE generator = 'clock' ORDER BY object;
SET id_gen.test_clock_offset_ms = -500;
SELECT snowflake_next() > 0 AS not_refused;
SELECT status, regexp_replace(reason, '\d+ ms ahead.*', 'N ms ahead ...') AS reason
  FROM id_gen.headroom WHERE generator = 'clock' AND object = 'snowflake';
SET id_gen.test_clock_offset_ms = -60000;
SELECT snowflake_next() > 0 AS not_refused;
SELECT status, regexp_replace(reason, '\d+ ms ahead of the clock, running ahead since [^(]*', 'N ms ahead of the clock, running ahead since T ') AS reason,
       detail->>'ahead_since' IS NOT NULL AS since_shown
  FROM id_gen.headroom WHERE generator = 'clock' AND object = 'snowflake';
RESET id_gen.test_clock_offset_ms;
SELECT snowflake_next() > 0 AS issued;
SELECT status FROM id_gen.headroom WHERE generator = 'clock' AND object = 'snowflake';

-- 3. A Hi/Lo key: its used share of the ids it may issue (bigint here: one
-- server, no node range).  88.9%: ok; 90%: warning; 99%: critical.  The
-- draw that reaches 90% warns, and the one that reaches 99% warns again.
-- (1000 rows each time: they use up the session's block and draw the next.)
SELECT setval('headroom_t_id_seq', 8200000000000000000 - 1) IS NOT NULL AS moved;
INSERT INTO headroom_t (v) SELECT 'b' FROM generate_series(1, 1000);
SELECT status, round(used_fraction::numeric, 4) AS used, runs_out, reason,
       detail->>'max_lo' AS max_lo, detail->>'reserved_to' AS reserved_to
  FROM id_gen.headroom WHERE generator = 'hilo' AND object = 'public.headroom_t';
SELECT setval('headroom_t_id_seq', 8301034833169298300 - 1) IS NOT NULL AS moved;
INSERT INTO headroom_t (v) SELECT 'c' FROM generate_series(1, 1000);
SELECT status, round(used_fraction::numeric, 4) AS used FROM id_gen.headroom
 WHERE generator = 'hilo' AND object = 'public.headroom_t';
SELECT setval('headroom_t_id_seq', 9131138316486228100 - 1) IS NOT NULL AS moved;
INSERT INTO headroom_t (v) SELECT 'd' FROM generate_series(1, 1000);
SELECT status, round(used_fraction::numeric, 4) AS used FROM id_gen.headroom
 WHERE generator = 'hilo' AND object = 'public.headroom_t';
-- A key bound to a sequence with a MAXVALUE: its space ends there (classic:
-- hi 100 gives ids up to 1009); 950 ids drawn in blocks of 10 are 95%.
CREATE SEQUENCE headroom_seq MAXVALUE 100;
CREATE TABLE headroom_b (id bigint PRIMARY KEY DEFAULT hilo_next('headroom_seq', 'classic', 10));
INSERT INTO headroom_b SELECT FROM generate_series(1, 950);
SELECT status, round(used_fraction::numeric, 4) AS used, reason FROM id_gen.headroom
 WHERE generator = 'hilo' AND object = 'public.headroom_b';

-- 4. decimal_id: this database's counter under its generator id (one per
-- database for its life).  Reserving past id_gen.headroom_warning_percent of
-- the counter warns, in decimal_id() and in the view; past 99% the view says
-- critical.  In a database of its own, so the counter starts fresh.
SELECT current_database() AS home \gset
CREATE DATABASE headroom_decimal;
\c headroom_decimal
SET client_min_messages = warning;
CREATE EXTENSION id_gen;
RESET client_min_messages;
SELECT id_gen.decimal_id_claim(generator_id => 77777);
SELECT decimal_id() IS NOT NULL AS has_a_generator_id;
SELECT generator, status, round(used_fraction::numeric, 5) AS used FROM id_gen.headroom
 WHERE generator LIKE 'decimal_id%' ORDER BY 1;
SELECT id_gen.decimal_id_skip(830200000) > 0 AS skipped_to_90_percent;
SELECT decimal_id() IS NOT NULL AS reserved_past_90_percent;
SELECT generator, status, round(used_fraction::numeric, 3) AS used FROM id_gen.headroom
 WHERE generator LIKE 'decimal_id%' ORDER BY 1;
SELECT id_gen.decimal_id_skip(915000000) > 0 AS skipped_to_99_percent;
SELECT decimal_id() IS NOT NULL AS reserved_past_99_percent;
SELECT generator, status, round(used_fraction::numeric, 3) AS used FROM id_gen.headroom
 WHERE generator LIKE 'decimal_id%' ORDER BY 1;
\c :home
DROP DATABASE headroom_decimal;

-- 5. Privileges: pg_monitor members read every row (the Hi/Lo sequences too,
-- on which they have no privilege); others are refused; no secret is shown.
CREATE ROLE idgen_headroom_mon IN ROLE pg_monitor;
CREATE ROLE idgen_headroom_other;
SET id_gen.encode_key = 'headroom secret';
SET ROLE idgen_headroom_mon;
SELECT count(*) > 6 AS rows, count(*) FILTER (WHERE h::text LIKE '%headroom secret%') AS secrets,
       bool_and(detail->>'reserved_to' IS NOT NULL) FILTER (WHERE object = 'public.headroom_t') AS sees_hilo
  FROM id_gen.headroom h;
RESET ROLE;
SET ROLE idgen_headroom_other;
SELECT count(*) FROM id_gen.headroom; \echo :LAST_ERROR_SQLSTATE
SELECT count(*) FROM id_gen.headroom_hilo(); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
RESET id_gen.encode_key;
DROP ROLE idgen_headroom_mon, idgen_headroom_other;
DROP TABLE headroom_t, headroom_b;
DROP SEQUENCE headroom_seq;
