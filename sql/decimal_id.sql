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

-- A database claims its generator id at CREATE EXTENSION: one no other
-- database has, written both into pg_db_role_setting (the database's
-- id_gen.decimal_generator_id, a shared catalog every database reads, that
-- GRANT and ALTER DATABASE keep, and a template copy does not get) and into
-- the database itself (id_gen.decimal_claim: its OID and the id).  Before the
-- first id since the start, decimal_id_state() shows it, and the counter's
-- persisted reserved end.
SELECT generator_id >= 0 AS claimed, refusal, counter, reserved_to, counter_left
  FROM decimal_id_state();
SELECT generator_id AS my_generator, current_database() AS regdb FROM decimal_id_state() \gset
SELECT 'id_gen.decimal_generator_id=' || :my_generator = ANY (s.setconfig) AS setting_is_the_claim,
       (SELECT last_value FROM id_gen.decimal_claim) = d.oid::bigint * 100000 + :my_generator AS kept_in_the_database
  FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
 WHERE d.datname = current_database() AND s.setrole = 0;

-- Two databases never share a generator id: another database given ours by
-- hand does not take it from us (we claimed it), and cannot use it either.
CREATE DATABASE idgen_dec_other;
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = :my_generator;

-- Then the counter starts above the reserved end (0 on a new database),
-- reserving a first chunk of 10,000 values in id_gen.decimal_counter.
SELECT counter, generator_id = :my_generator AS same_generator, launch_id
  FROM decimal_id_decode(decimal_id());
SELECT refusal, counter, reserved_to, counter_left FROM decimal_id_state();
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

-- The setting is a database's, set by a superuser; a claim writes it.
SET id_gen.decimal_generator_id = 5; \echo :LAST_ERROR_SQLSTATE
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = 100000; \echo :LAST_ERROR_SQLSTATE
CREATE ROLE idgen_decimal_user;
GRANT CREATE ON DATABASE idgen_dec_other TO idgen_decimal_user;
ALTER DATABASE idgen_dec_other OWNER TO idgen_decimal_user;
SET ROLE idgen_decimal_user;
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = 99990; \echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- The other database: its own setting set by hand is no claim.
\c idgen_dec_other
SET client_min_messages = warning;
CREATE EXTENSION id_gen;
RESET client_min_messages;
SELECT generator_id <> :my_generator AS claimed_another FROM decimal_id_state();
ALTER DATABASE idgen_dec_other SET id_gen.decimal_generator_id = :my_generator;
\c
-- (generator ids other than the ones asked for depend on how many claims
-- the tests before made: shown as N)
\set VERBOSITY sqlstate
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N') AS error;
SELECT generator_id, regexp_replace(refusal, '\d+', 'N') AS refusal FROM decimal_id_state();
SELECT id_gen.decimal_id_claim() > :my_generator AS claimed_above;
\c
-- A claim takes effect once committed: no id leaves under a claim that
-- could still roll back (and another database claim its id), and a claim
-- rolled back leaves the one before it in force.
BEGIN;
SELECT id_gen.decimal_id_claim(new_generator => true) > 0 AS claimed_again;
\set VERBOSITY sqlstate
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
ROLLBACK;
SELECT regexp_replace(:'LAST_ERROR_MESSAGE', '\d+', 'N') AS error;
\c
SELECT (decimal_id_decode(decimal_id())).generator_id <> :my_generator AS generates_with_its_own;
SELECT generator_id AS other_generator, refusal FROM decimal_id_state() \gset
-- A reinstall claims anew, above every id claimed on the server: the
-- high-water mark id_gen.decimal_claims_to, a setting of the bootstrap
-- superuser that no DROP DATABASE removes.
SET client_min_messages = warning;
DROP EXTENSION id_gen;
CREATE EXTENSION id_gen;
RESET client_min_messages;
SELECT generator_id > :other_generator AS above_every_claim FROM decimal_id_state();
SELECT s.setconfig @> ARRAY['id_gen.decimal_claims_to=' || g.generator_id] AS high_water_mark
  FROM pg_db_role_setting s, decimal_id_state() g
 WHERE s.setdatabase = 0 AND s.setrole = 10;
\c
-- (The checks read shared catalogs every role may read: an ordinary user's
-- call can be the first.)
GRANT EXECUTE ON FUNCTION decimal_id() TO idgen_decimal_user;
SET ROLE idgen_decimal_user;
SELECT generator_id > :other_generator AS own_generator, launch_id FROM decimal_id_decode(decimal_id());
RESET ROLE;
SELECT refusal, counter FROM decimal_id_state();
\c :regdb
DROP DATABASE idgen_dec_other;

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
-- As the hint says: a new generator id claimed (here one asked for), which
-- restarts the counter; taken at the next connection, without a restart.
SELECT id_gen.decimal_id_claim(new_generator => true, generator_id => 60000);
\c
SELECT * FROM decimal_id_decode(decimal_id());
SELECT generator_id, refusal, counter, reserved_to > counter AS reserved_ahead FROM decimal_id_state();
-- Only a superuser claims; an id another database has, or this one had, is refused.
SELECT id_gen.decimal_id_claim(generator_id => :my_generator); \echo :LAST_ERROR_SQLSTATE
SET ROLE idgen_decimal_user;
SELECT id_gen.decimal_id_claim(); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;

-- A generator id's counter is finite: like a sequence's USAGE, EXECUTE on
-- decimal_id() is granted to the roles that write, not to PUBLIC (a role
-- with nothing granted could otherwise use up a database's ids in seconds).
-- A DEFAULT decimal_id() runs as the inserting role.
SET ROLE idgen_decimal_user;
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
SELECT has_function_privilege('public', 'decimal_id()', 'EXECUTE') AS public_may_execute;
CREATE TABLE dec_orders (id bigint PRIMARY KEY DEFAULT decimal_id(), v text);
GRANT INSERT ON dec_orders TO idgen_decimal_user;
SET ROLE idgen_decimal_user;
INSERT INTO dec_orders (v) VALUES ('refused'); \echo :LAST_ERROR_SQLSTATE
RESET ROLE;
GRANT EXECUTE ON FUNCTION decimal_id() TO idgen_decimal_user;

-- Granted, users may generate, but not use the test hook.  The reservation
-- is used up first, so the user's call raises id_gen.decimal_counter, on
-- which the user has no privilege.
SELECT id_gen.decimal_id_skip(reserved_to) AS skipped_to FROM decimal_id_state() \gset
SET ROLE idgen_decimal_user;
SELECT has_sequence_privilege('id_gen.decimal_counter', 'UPDATE') AS user_may_reserve;
SELECT counter = :skipped_to + 1 AS user_id_above_the_reservation, generator_id FROM decimal_id_decode(decimal_id());
SELECT id_gen.decimal_id_skip(5); \echo :LAST_ERROR_SQLSTATE
INSERT INTO dec_orders (v) VALUES ('granted');
RESET ROLE;
SELECT count(*) AS inserted FROM dec_orders;
DROP TABLE dec_orders;
REVOKE EXECUTE ON FUNCTION decimal_id() FROM idgen_decimal_user;
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
-- A copy has the template's claim but not its setting: no id before it claims.
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
SELECT id_gen.decimal_id_claim() > 0 AS x_claimed;
\c
SELECT id_gen.decimal_id_skip(500000) > 0 AS x_skipped;
SELECT decimal_id() IS NOT NULL AS x_reserved_past_500000;
SELECT oid AS x_oid FROM pg_database WHERE datname = current_database() \gset
\c :home
DROP DATABASE idgen_dec_x;
CREATE DATABASE idgen_dec_y OID = :x_oid TEMPLATE idgen_dec_tpl;
\c idgen_dec_y
SELECT id_gen.decimal_id_claim() > 0 AS y_claimed;
\c
SELECT decimal_id() IS NOT NULL AS y_generates;
SELECT s.reserved_to <= c.last_value AS reserved_in_its_own_sequence,
       (SELECT counter FROM decimal_id_decode(decimal_id())) < 500000 AS counts_from_its_own_state
  FROM decimal_id_state() s, id_gen.decimal_counter c;
\c :home
DROP DATABASE idgen_dec_y;
DROP DATABASE idgen_dec_tpl;

-- Every database's setting counts, whatever it accepts: a template that
-- refuses connections keeps its generator id (its owner may make it so).
CREATE DATABASE idgen_dec_golden;
\c idgen_dec_golden
SET client_min_messages = warning;
CREATE EXTENSION id_gen;
RESET client_min_messages;
SELECT generator_id AS golden_generator FROM decimal_id_state() \gset
\c :home
ALTER DATABASE idgen_dec_golden WITH IS_TEMPLATE true ALLOW_CONNECTIONS false;
CREATE DATABASE idgen_dec_z;
\c idgen_dec_z
SET client_min_messages = warning;
CREATE EXTENSION id_gen;
RESET client_min_messages;
SELECT generator_id > :golden_generator AS not_the_templates FROM decimal_id_state();
SELECT id_gen.decimal_id_claim(generator_id => :golden_generator); \echo :LAST_ERROR_SQLSTATE
-- A superuser's RESET ALL frees no generator id: the next claim is above it,
-- and the database that lost its setting refuses, id_gen.headroom showing it
-- as critical with the way out.
SELECT generator_id AS z_generator FROM decimal_id_state() \gset
ALTER DATABASE idgen_dec_z RESET ALL;
\c
SELECT decimal_id(); \echo :LAST_ERROR_SQLSTATE
SELECT status, reason FROM id_gen.headroom WHERE generator = 'decimal_id counter';
\c :home
SELECT id_gen.decimal_id_claim(new_generator => true) > :z_generator AS another_database_not_given_the_freed_one;
\c idgen_dec_z
SELECT id_gen.decimal_id_claim() > :z_generator AS claimed_above_the_freed_one;
\c
SELECT decimal_id() IS NOT NULL AS generates_again;
SELECT status FROM id_gen.headroom WHERE generator = 'decimal_id counter';
\c :home
DROP DATABASE idgen_dec_z;
ALTER DATABASE idgen_dec_golden WITH IS_TEMPLATE false;
DROP DATABASE idgen_dec_golden;
