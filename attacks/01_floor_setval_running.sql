-- Attack 01: a floor raised while the database is in use (a dump restored into
-- the running database, or docs/snowflake.md's own "way back" after a
-- reinstall: SELECT setval('id_gen.snowflake_floor', max(id)) FROM orders) is
-- never continued above: the floor slot takes the higher value at the next
-- advance, but the server-wide word is not raised, so ids are issued below
-- the floor, i.e. below ids already in the database's tables.
-- Run as a superuser in a scratch database (any build; no test hooks needed):
--   psql -d scratch -f 01_floor_setval_running.sql
-- Expected (docs: "a floor read from a restore ... ids continue above it"):
--   every id after the setval is > the floor (restored rows' max id).
-- Actual: ids continue at the clock, far below the floor; new backends then
--   do not raise the word either (stored == held once the slot took it).
DROP EXTENSION IF EXISTS id_gen CASCADE;
CREATE EXTENSION id_gen;
CREATE TABLE orders (id bigint PRIMARY KEY);
SELECT snowflake_next() AS first_id \gset
-- rows restored from a server whose ids run one hour ahead (or an earlier epoch)
INSERT INTO orders SELECT snowflake_min_id(now() + interval '1 hour') + g FROM generate_series(0, 999) g;
SELECT setval('id_gen.snowflake_floor', max(id)) AS floor FROM orders \gset
SELECT pg_sleep(1.2);   -- past the reserved second: the next id advances the floor
INSERT INTO orders SELECT snowflake_next() FROM generate_series(1, 10)
  ON CONFLICT DO NOTHING;
SELECT count(*) FILTER (WHERE id > :floor) AS above_floor,
       count(*) FILTER (WHERE id < :floor AND id > :first_id) AS new_ids_below_floor
  FROM orders;
-- a new connection: the word is still not raised
\c
SELECT snowflake_next() > :floor AS new_backend_above_floor;
SELECT stream, lead_ms, floor FROM id_gen.clock_streams();
