-- Hi/Lo keys: bad input.  Every call fails with a clear error and no key
-- changes.  Each failing statement is followed by
-- \echo :LAST_ERROR_SQLSTATE: the output shows the error as a client sees it
-- (message, detail, hint), then its SQLSTATE.
CREATE TABLE err_t (id bigint DEFAULT hilo_next('err_t'));
CREATE SEQUENCE err_seq;
CREATE TABLE hilo_keys_before AS SELECT table_name, sequence, strategy, max_lo FROM id_gen.hilo_keys;

-- NULL arguments (the functions are not STRICT, so NULL is an error, not a
-- silent NULL id that a NOT NULL column would report far from the cause).
SELECT hilo_next(NULL); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_max_lo(NULL, 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_max_lo('err_t', NULL); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind(NULL, 'err_seq', 'classic', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('err_t', NULL, 'classic', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('err_t', 'err_seq', NULL, 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key(NULL); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next(NULL, 'err_seq', 'classic', 10, false, NULL); \echo :LAST_ERROR_SQLSTATE

-- Names: empty, over-long (truncated to NAMEDATALEN-1 like any identifier,
-- then not found), far too long, needing quotes, injection attempts.  They
-- are parsed by regclass input, never spliced into SQL.
SELECT hilo_next(''); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next(repeat('x', 64)); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next(repeat('x', 100000)); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('Err_T');			-- unquoted: folds to err_t, which exists
-- quoted: no such table
SELECT hilo_next('"Err_T"'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_t; DROP TABLE err_t'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_t''); DROP TABLE err_t; --'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('public.'); \echo :LAST_ERROR_SQLSTATE
-- A missing schema: regclass input names the schema (3F000) up to 15, the
-- relation (42P01) from 16 on; either exact error passes, nothing else.
DO $$
BEGIN
    PERFORM hilo_next('no_schema.err_t');
    RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'no such schema: %', (SQLSTATE, SQLERRM) IN
        (('3F000', 'schema "no_schema" does not exist'),
         ('42P01', 'relation "no_schema.err_t" does not exist'));
END $$;
-- an OID no table has
SELECT hilo_next(0); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next(4294967295::oid::regclass); \echo :LAST_ERROR_SQLSTATE

-- Relations that are not tables: a view, a sequence, an index, a
-- catalog-less composite type's relation; and temporary tables.
CREATE VIEW err_v AS SELECT 1 AS id;
CREATE INDEX err_i ON err_t (id);
CREATE TYPE err_type AS (a int);
CREATE MATERIALIZED VIEW err_mv AS SELECT 1 AS id;
SELECT hilo_next('err_v'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_seq'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_i'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_type'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_mv'); \echo :LAST_ERROR_SQLSTATE
CREATE TEMP TABLE err_temp (id bigint);
SELECT hilo_next('err_temp'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_max_lo('err_v', 10); \echo :LAST_ERROR_SQLSTATE

-- A read-only transaction draws no block, like nextval().
CREATE TABLE err_ro (id bigint DEFAULT hilo_next('err_ro'));
BEGIN READ ONLY;
SELECT hilo_next('err_ro'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;

-- max_lo must be at least 1 and fit an integer.
SELECT hilo_set_max_lo('err_t', 0); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_set_max_lo('err_t', -5); \echo :LAST_ERROR_SQLSTATE
-- (terse: 19 words the not-found error's detail and hint differently)
\set VERBOSITY terse
SELECT hilo_set_max_lo('err_t', 2147483648); \echo :LAST_ERROR_SQLSTATE
\set VERBOSITY default
SELECT hilo_bind('err_t', 'err_seq', 'classic', 0); \echo :LAST_ERROR_SQLSTATE

-- hilo_bind: unknown strategies, a missing max_lo, a max_lo that does not
-- match a pooled sequence's INCREMENT, descending sequences, non-sequences.
SELECT hilo_bind('err_t', 'err_seq', 'hilo', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('err_t', 'err_seq', 'Classic', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('err_t', 'err_seq', '', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('err_t', 'err_seq', 'classic'); \echo :LAST_ERROR_SQLSTATE
-- INCREMENT is 1
SELECT hilo_bind('err_t', 'err_seq', 'pooled_lo', 50); \echo :LAST_ERROR_SQLSTATE
CREATE SEQUENCE err_down INCREMENT -1;
SELECT hilo_bind('err_t', 'err_down', 'pooled'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('err_t', 'err_t', 'classic', 10); \echo :LAST_ERROR_SQLSTATE
-- A CYCLE sequence gives its values again after it wraps, and with them the
-- key's blocks (issue 25): refused at bind, and at a draw if it is altered
-- to CYCLE after the bind.
CREATE TABLE err_cycled (id bigint PRIMARY KEY DEFAULT hilo_next('err_cycled'));
CREATE SEQUENCE err_cycle INCREMENT 10 MAXVALUE 1000000 CYCLE;
SELECT hilo_bind('err_cycled', 'err_cycle', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
CREATE SEQUENCE err_cycled_seq INCREMENT 10;
SELECT hilo_bind('err_cycled', 'err_cycled_seq', 'pooled_lo');
INSERT INTO err_cycled DEFAULT VALUES RETURNING id;
ALTER SEQUENCE err_cycled_seq CYCLE;
SELECT * FROM hilo_reserve('err_cycled', 10); \echo :LAST_ERROR_SQLSTATE
DROP TABLE err_cycled;
DROP SEQUENCE err_cycle, err_cycled_seq;
SELECT hilo_bind('err_t', 'err_v', 'classic', 10); \echo :LAST_ERROR_SQLSTATE
-- Rebinding a key in use to a sequence that cannot move above the ids the
-- key handed out fails, and nothing changes.
SELECT hilo_next('err_t') AS err_t_in_use;
CREATE SEQUENCE err_small MAXVALUE 5;
SELECT hilo_bind('err_t', 'err_small', 'classic', 10); \echo :LAST_ERROR_SQLSTATE
SELECT strategy, own_sequence FROM id_gen.hilo_keys WHERE table_name = 'err_t'::regclass;

-- Nothing but err_ro's key (made by its CREATE TABLE) was added.
SELECT k.table_name, k.strategy, k.max_lo FROM id_gen.hilo_keys k
 WHERE NOT EXISTS (SELECT 1 FROM hilo_keys_before b WHERE b.table_name = k.table_name);
-- A key's sequence must be permanent: a crash resets an unlogged sequence
-- and a temporary one ends with its session, and the key would then hand
-- out its ids again.  Refused when binding, and at the next draw of a key
-- whose sequence was made unlogged after it was bound.
CREATE UNLOGGED SEQUENCE err_unlogged_seq;
CREATE TEMP SEQUENCE err_temp_seq;
SELECT hilo_bind('err_t', 'err_unlogged_seq', 'classic', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_bind('err_t', 'pg_temp.err_temp_seq', 'classic', 10); \echo :LAST_ERROR_SQLSTATE
CREATE TABLE err_later (id bigint DEFAULT hilo_next('err_later'));
CREATE SEQUENCE err_later_seq;
SELECT hilo_bind('err_later', 'err_later_seq', 'classic', 10);
SELECT hilo_next('err_later') > 0 AS drawn_while_logged;
ALTER SEQUENCE err_later_seq SET UNLOGGED;
SELECT hilo_next('err_later') FROM generate_series(1, 20); \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE err_later_seq SET LOGGED;
SELECT count(DISTINCT hilo_next('err_later')) AS drawn_again_once_logged FROM generate_series(1, 20);
DROP TABLE err_later;
DROP SEQUENCE err_later_seq, err_unlogged_seq, err_temp_seq;

SELECT (SELECT count(*) FROM id_gen.hilo_keys k
          JOIN hilo_keys_before b USING (table_name, sequence, strategy, max_lo))
     = (SELECT count(*) FROM hilo_keys_before) AS other_keys_unchanged;
-- err_t still exists: no injected statement ran.
SELECT to_regclass('err_t') IS NOT NULL AS err_t_exists;

-- A key's own sequence altered to CYCLE by its owner: refused at the next
-- draw, as a bound one.
CREATE TABLE err_own_cycle (id bigint DEFAULT hilo_next('err_own_cycle'));
ALTER SEQUENCE err_own_cycle_id_seq CYCLE;
INSERT INTO err_own_cycle DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
DROP TABLE err_own_cycle;

-- hilo_create_key: a column that does not exist, a table whose default does
-- not ask for a key, not the owner's.
CREATE TABLE err_plain (id bigint);
SELECT hilo_create_key('err_plain'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_plain', 'no_such_column'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_plain', 'id', 0); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_v', 'id'); \echo :LAST_ERROR_SQLSTATE

-- A logged table cannot draw from an unlogged table's key (a crash resets
-- that key): refused by the DDL that would copy its default.
CREATE UNLOGGED TABLE err_unlogged (id bigint DEFAULT hilo_next('err_unlogged'));
SELECT relpersistence FROM pg_class WHERE oid = 'err_unlogged_id_seq'::regclass;
INSERT INTO err_unlogged DEFAULT VALUES RETURNING id;
CREATE TABLE err_logged_copy (LIKE err_unlogged INCLUDING DEFAULTS); \echo :LAST_ERROR_SQLSTATE
DROP TABLE err_unlogged;
