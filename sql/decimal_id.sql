-- decimal_id(): counter * 10^10 + generator_id * 10^5 + launch_id ("cc..c ggggg lllll").
-- A statement expected to fail is followed by \echo :LAST_ERROR_SQLSTATE: the
-- output shows the error as a client sees it, then its SQLSTATE.

-- Layout: decoding hand-built ids.
SELECT * FROM decimal_id_decode(10000200003);
-- The regression server sets id_gen.launch_id = 1 (test/regress.conf).
SHOW id_gen.launch_id;
SELECT * FROM decimal_id_decode(9223372029999999999);
SELECT * FROM decimal_id_decode(9223372036854775807);
SELECT decimal_id_decode(0); \echo :LAST_ERROR_SQLSTATE
SELECT decimal_id_decode(9999999999); \echo :LAST_ERROR_SQLSTATE
SELECT decimal_id_decode(-10000200003); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM decimal_id_decode(NULL);

-- A database keeps one generator id for its life: 50000 + its OID % 50000
-- (id_gen 1.0 to 1.2 took them from 0 upward, one per server start).  Before
-- the first id since the start, decimal_id_state() shows the generator id
-- the database would take, and the counter's persisted reserved end.
SELECT generator_id = 50000 + (SELECT oid::bigint % 50000 FROM pg_database WHERE datname = current_database()) AS from_oid,
       generator_source, counter, reserved_to, counter_left
  FROM decimal_id_state();

-- Two databases never share a generator id: at its first use after a start,
-- a database checks every other one's (pg_database and pg_db_role_setting
-- are shared catalogs).  Here another database is given ours by setting.
SELECT generator_id AS my_generator, current_database() AS regdb FROM decimal_id_state() \gset
CREATE DATABASE idgen_dec_other;
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = :my_generator;
\set VERBOSITY sqlstate
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N', 'g') AS error;
ALTER DATABASE idgen_dec_other RESET id_gen.decimal_generator_id;

-- Then the counter starts above the reserved end (0 on a new database),
-- reserving a first chunk of 10,000 values in id_gen.decimal_counter.
SELECT counter, generator_id = :my_generator AS same_generator, launch_id
  FROM decimal_id_decode(decimal_id());
SELECT generator_source, counter, reserved_to, counter_left FROM decimal_id_state();
SELECT last_value AS persisted_reserved_end FROM id_gen.decimal_counter;

-- Strictly increasing, unique, across reservations.
CREATE TEMP TABLE d (n bigserial, id bigint);
INSERT INTO d (id) SELECT decimal_id() FROM generate_series(1, 100000);
SELECT count(*) AS rows, count(DISTINCT id) = count(*) AS unique_ids,
       bool_and(id > prev) AS strictly_increasing,
       bool_and(id % 100000 = 1) AS launch_id_in_every_id
  FROM (SELECT id, lag(id) OVER (ORDER BY n) AS prev FROM d) s;
SELECT reserved_to >= counter AS reserved_ahead, reserved_to = (SELECT last_value FROM id_gen.decimal_counter) AS persisted
  FROM decimal_id_state();

-- The counter lives in shared memory, not in the backend: a new connection
-- continues it.
\c
SELECT generator_id = :my_generator AS same_generator, counter > 100001 AS continues FROM decimal_id_decode(decimal_id());

-- The generator id can be set per database by a superuser, and only there;
-- decimal_id() reads it from the catalog at the database's first use after
-- a start (or at the end of a counter, see below).
SET id_gen.decimal_generator_id = 5; \echo :LAST_ERROR_SQLSTATE
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = 100000; \echo :LAST_ERROR_SQLSTATE
CREATE ROLE idgen_decimal_user;
GRANT CREATE ON DATABASE idgen_dec_other TO idgen_decimal_user;
ALTER DATABASE idgen_dec_other OWNER TO idgen_decimal_user;
SET ROLE idgen_decimal_user;
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = 99990; \echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- A database with generator ids from id_gen 1.2 and earlier (0 upward, one
-- per server start) refuses a generator id up to the last one taken there:
-- ALTER EXTENSION UPDATE first, and says how to get past it.
\c idgen_dec_other
CREATE EXTENSION id_gen VERSION '1.2';
SELECT setval('id_gen.decimal_generator', 99000);
\set VERBOSITY sqlstate
ALTER EXTENSION id_gen UPDATE; \echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d{5}', 'N') AS error;
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = 98000;
-- (no CONTEXT: PostgreSQL 18 adds the update script's line to it)
\set SHOW_CONTEXT never
ALTER EXTENSION id_gen UPDATE; \echo :LAST_ERROR_SQLSTATE
\set SHOW_CONTEXT errors
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = 99001;
ALTER EXTENSION id_gen UPDATE;
-- Then decimal_id() at its first use (a restore can bring a history too).
SELECT setval('id_gen.decimal_generator', 99500);
\c
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = 99501;
\c
-- (The checks read shared catalogs every role may read: an ordinary user's
-- call can be the first.)
SET ROLE idgen_decimal_user;
SELECT * FROM decimal_id_decode(decimal_id());
RESET ROLE;
SELECT generator_id, generator_source, counter FROM decimal_id_state();
\c :regdb
DROP DATABASE idgen_dec_other;

-- With the 1.3 library, a database still at 1.2 (the package upgraded, ALTER
-- EXTENSION UPDATE not run yet) keeps 1.2's way: a generator id from
-- id_gen.decimal_generator at each start, the counter from 1, until the
-- next start after the update.
CREATE DATABASE idgen_dec_legacy;
\c idgen_dec_legacy
CREATE EXTENSION id_gen VERSION '1.2';
SELECT * FROM decimal_id_decode(decimal_id());
SELECT * FROM decimal_id_decode(decimal_id());
SELECT * FROM decimal_id_state(); \echo :LAST_ERROR_SQLSTATE
ALTER EXTENSION id_gen UPDATE;
SELECT generator_id, generator_source, counter, reserved_to FROM decimal_id_state();
SELECT * FROM decimal_id_decode(decimal_id());
\c :regdb
DROP DATABASE idgen_dec_legacy;

-- A WARNING when fewer than 10% of the counter values remain, an ERROR
-- when none do (id_gen.decimal_id_skip() is a superuser test hook that
-- moves the counter forward; the next id reserves above it).
SELECT id_gen.decimal_id_skip(900000000);
SELECT counter FROM decimal_id_decode(decimal_id());
SELECT id_gen.decimal_id_skip(922337201);
SELECT counter FROM decimal_id_decode(decimal_id());
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
SELECT counter, reserved_to, counter_left FROM decimal_id_state();
SELECT id_gen.decimal_id_skip(-1); \echo :LAST_ERROR_SQLSTATE
SELECT id_gen.decimal_id_skip(922337203); \echo :LAST_ERROR_SQLSTATE
-- As the hint says: a generator id no database used, and the counter
-- restarted; taken at the next call, without a server restart.
ALTER DATABASE :"regdb" SET id_gen.decimal_generator_id = 99999;
SELECT setval('id_gen.decimal_counter', 0);
\c
SELECT * FROM decimal_id_decode(decimal_id());
SELECT generator_id, generator_source, counter, reserved_to > counter AS reserved_ahead FROM decimal_id_state();
ALTER DATABASE :"regdb" RESET id_gen.decimal_generator_id;

-- Ordinary users may generate, but not use the test hook.  The reservation
-- is used up first, so the user's call raises id_gen.decimal_counter, on
-- which the user has no privilege.
SELECT id_gen.decimal_id_skip(reserved_to) AS skipped_to FROM decimal_id_state() \gset
SET ROLE idgen_decimal_user;
SELECT has_sequence_privilege('id_gen.decimal_counter', 'UPDATE') AS user_may_reserve;
SELECT counter = :skipped_to + 1 AS user_id_above_the_reservation, generator_id FROM decimal_id_decode(decimal_id());
SELECT id_gen.decimal_id_skip(5); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
DROP ROLE idgen_decimal_user;

-- Like nextval(), generators refuse read-only transactions.
BEGIN READ ONLY;
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;

-- Bad settings are rejected.
ALTER SYSTEM SET id_gen.launch_id = 100000;
ALTER SYSTEM SET id_gen.launch_id = -2;
SET id_gen.launch_id = 2; \echo :LAST_ERROR_SQLSTATE


-- A database created with the OID of a dropped one (CREATE DATABASE ... OID,
-- or OID wraparound) does not inherit the dropped one's counter in shared
-- memory: what it hands out is reserved in its own id_gen.decimal_counter
-- (here copied from a template with the extension, so no install script runs).
SELECT current_database() AS home \gset
CREATE DATABASE idgen_dec_tpl;
\c idgen_dec_tpl
SET client_min_messages = warning;
CREATE EXTENSION id_gen;
RESET client_min_messages;
\c :home
CREATE DATABASE idgen_dec_x TEMPLATE idgen_dec_tpl;
\c idgen_dec_x
SELECT id_gen.decimal_id_skip(500000) > 0 AS x_skipped;
SELECT decimal_id() IS NOT NULL AS x_reserved_past_500000;
SELECT oid AS x_oid FROM pg_database WHERE datname = current_database() \gset
\c :home
DROP DATABASE idgen_dec_x;
CREATE DATABASE idgen_dec_y OID = :x_oid TEMPLATE idgen_dec_tpl;
\c idgen_dec_y
SELECT decimal_id() IS NOT NULL AS y_generates;
SELECT s.reserved_to <= c.last_value AS reserved_in_its_own_sequence,
       (SELECT counter FROM decimal_id_decode(decimal_id())) < 500000 AS counts_from_its_own_state
  FROM decimal_id_state() s, id_gen.decimal_counter c;
\c :home
DROP DATABASE idgen_dec_y;
DROP DATABASE idgen_dec_tpl;
