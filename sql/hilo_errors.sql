-- Hi/Lo keys: bad input.  Every call fails with a clear error and no key
-- changes.  Each failing statement is followed by
-- \echo :LAST_ERROR_SQLSTATE: the output shows the error as a client sees it
-- (message, detail, hint), then its SQLSTATE.
CREATE TABLE err_t (id bigint DEFAULT hilo_next('err_t'));
SELECT hilo_create_key('err_t');
CREATE SEQUENCE err_seq;

-- NULL arguments (the functions are not STRICT, so NULL is an error, not a
-- silent NULL id that a NOT NULL column would report far from the cause).
SELECT hilo_next(NULL); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next(NULL, 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_seq', NULL); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key(NULL); \echo :LAST_ERROR_SQLSTATE
SELECT * FROM hilo_reserve(NULL, 1); \echo :LAST_ERROR_SQLSTATE

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

-- A read-only transaction draws no block, like nextval().
BEGIN READ ONLY;
SELECT hilo_next('err_t'); \echo :LAST_ERROR_SQLSTATE
ROLLBACK;
SET default_transaction_read_only = on;
SELECT * FROM hilo_reserve('err_t', 1); \echo :LAST_ERROR_SQLSTATE
RESET default_transaction_read_only;

-- ORM forms: unknown strategies, a missing max_lo, a relation that is not a
-- sequence, a descending or CYCLE sequence.
SELECT hilo_next('err_seq', 'hilo'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_seq', 'Classic', 10); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_seq', ''); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_seq', 'classic'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_seq', 'legacy', 0); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('err_t', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
CREATE SEQUENCE err_down INCREMENT -1;
SELECT hilo_next('err_down', 'pooled'); \echo :LAST_ERROR_SQLSTATE
CREATE SEQUENCE err_cycle INCREMENT 10 MAXVALUE 1000000 CYCLE;
SELECT hilo_next('err_cycle', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
-- A temporary or unlogged sequence: a crash or the session's end would give
-- its blocks again.
CREATE UNLOGGED SEQUENCE err_unlogged_seq;
CREATE TEMP SEQUENCE err_temp_seq;
SELECT hilo_next('err_unlogged_seq', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_next('pg_temp.err_temp_seq', 'pooled_lo'); \echo :LAST_ERROR_SQLSTATE
DROP SEQUENCE err_down, err_cycle, err_unlogged_seq, err_temp_seq;

-- A key's own sequence altered to CYCLE or to count down: refused at the
-- next draw.
CREATE TABLE err_own_cycle (id bigint DEFAULT hilo_next('err_own_cycle'));
SELECT hilo_create_key('err_own_cycle');
ALTER SEQUENCE err_own_cycle_id_seq CYCLE;
INSERT INTO err_own_cycle DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
ALTER SEQUENCE err_own_cycle_id_seq NO CYCLE INCREMENT BY -1;
INSERT INTO err_own_cycle DEFAULT VALUES; \echo :LAST_ERROR_SQLSTATE
DROP TABLE err_own_cycle;

-- hilo_create_key: a column that does not exist, a table whose default does
-- not call hilo_next() of it, a bad max_lo, not a table, a temporary table,
-- a column that owns a sequence already (its key, or a serial's).
CREATE TABLE err_plain (id bigint);
SELECT hilo_create_key('err_plain'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_plain', 'no_such_column'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_plain', 'id', 0); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_plain', 'id', -5); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_v', 'id'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_temp', 'id'); \echo :LAST_ERROR_SQLSTATE
SELECT hilo_create_key('err_t'); \echo :LAST_ERROR_SQLSTATE
-- A column at its type's end has no id left for a key.
CREATE TABLE err_full (id smallint DEFAULT hilo_next('err_full'));
INSERT INTO err_full VALUES (32767);
SELECT hilo_create_key('err_full'); \echo :LAST_ERROR_SQLSTATE

-- hilo_reserve: n below 1.
SELECT * FROM hilo_reserve('err_t', 0); \echo :LAST_ERROR_SQLSTATE

-- err_t still exists: no injected statement ran.
SELECT to_regclass('err_t') IS NOT NULL AS err_t_exists;
DROP TABLE err_t, err_plain, err_full;
DROP VIEW err_v;
DROP MATERIALIZED VIEW err_mv;
DROP TYPE err_type;
DROP SEQUENCE err_seq;
