-- Hi/Lo keys: bad input.  Every call fails with a clear error and the hi
-- table does not change.  hilo_try() (defined in hilo.sql) runs a statement
-- and shows its SQLSTATE, message, detail and hint.
CREATE TABLE err_t (id bigint);
CREATE SEQUENCE err_seq;
CREATE TABLE hilo_rows_before AS SELECT relid, seq, strategy, max_lo FROM id_gen.hilo_key;

-- NULL arguments (the functions are not STRICT, so NULL is an error, not a
-- silent NULL id that a NOT NULL column would report far from the cause).
SELECT hilo_try($$SELECT hilo_next(NULL)$$);
SELECT hilo_try($$SELECT hilo_set_max_lo(NULL, 10)$$);
SELECT hilo_try($$SELECT hilo_set_max_lo('err_t', NULL)$$);
SELECT hilo_try($$SELECT hilo_bind(NULL, 'err_seq', 'classic', 10)$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', NULL, 'classic', 10)$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_seq', NULL, 10)$$);

-- Names: empty, over-long (truncated to NAMEDATALEN-1 like any identifier,
-- then not found), far too long, needing quotes, injection attempts.  They
-- are parsed by regclass input, never spliced into SQL.
SELECT hilo_try($$SELECT hilo_next('')$$);
SELECT hilo_try($$SELECT hilo_next(repeat('x', 64))$$);
SELECT hilo_try($$SELECT hilo_next(repeat('x', 100000))$$);
SELECT hilo_next('Err_T');			-- unquoted: folds to err_t, which exists
SELECT hilo_try($$SELECT hilo_next('"Err_T"')$$);		-- quoted: no such table
SELECT hilo_try($$SELECT hilo_next('err_t; DROP TABLE err_t')$$);
SELECT hilo_try($$SELECT hilo_next('err_t''); DROP TABLE err_t; --')$$);
SELECT hilo_try($$SELECT hilo_next('public.')$$);
-- A missing schema: regclass input names the schema (3F000) up to 15, the
-- relation (42P01) from 16 on.
SELECT hilo_try($$SELECT hilo_next('no_schema.err_t')$$)
       IN ('ERROR 3F000: schema "no_schema" does not exist',
           'ERROR 42P01: relation "no_schema.err_t" does not exist') AS no_such_schema;
SELECT hilo_try($$SELECT hilo_next(0)$$);				-- an OID no table has
SELECT hilo_try($$SELECT hilo_next(4294967295::oid::regclass)$$);

-- Relations that are not tables: a view, a sequence, an index, a
-- catalog-less composite type's relation; and temporary tables.
CREATE VIEW err_v AS SELECT 1 AS id;
CREATE INDEX err_i ON err_t (id);
CREATE TYPE err_type AS (a int);
CREATE MATERIALIZED VIEW err_mv AS SELECT 1 AS id;
SELECT hilo_try($$SELECT hilo_next('err_v')$$);
SELECT hilo_try($$SELECT hilo_next('err_seq')$$);
SELECT hilo_try($$SELECT hilo_next('err_i')$$);
SELECT hilo_try($$SELECT hilo_next('err_type')$$);
SELECT hilo_try($$SELECT hilo_next('err_mv')$$);
CREATE TEMP TABLE err_temp (id bigint);
SELECT hilo_try($$SELECT hilo_next('err_temp')$$);
SELECT hilo_try($$SELECT hilo_set_max_lo('err_v', 10)$$);

-- A read-only transaction creates no key (and, like nextval(), draws no block).
CREATE TABLE err_ro (id bigint);
BEGIN READ ONLY;
SELECT hilo_try($$SELECT hilo_next('err_ro')$$);
ROLLBACK;

-- max_lo must be at least 1 and fit an integer.
SELECT hilo_try($$SELECT hilo_set_max_lo('err_t', 0)$$);
SELECT hilo_try($$SELECT hilo_set_max_lo('err_t', -5)$$);
SELECT hilo_try($$SELECT hilo_set_max_lo('err_t', 2147483648)$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_seq', 'classic', 0)$$);

-- hilo_bind: unknown strategies, a missing max_lo, a max_lo that does not
-- match a pooled sequence's INCREMENT, descending sequences, non-sequences.
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_seq', 'hilo', 10)$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_seq', 'Classic', 10)$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_seq', '', 10)$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_seq', 'classic')$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_seq', 'pooled_lo', 50)$$);	-- INCREMENT is 1
CREATE SEQUENCE err_down INCREMENT -1;
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_down', 'pooled')$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_t', 'classic', 10)$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_v', 'classic', 10)$$);
-- Rebinding a key in use to a sequence that cannot move above the ids the
-- key handed out fails, and nothing changes.
SELECT hilo_next('err_t') AS err_t_in_use;
CREATE SEQUENCE err_small MAXVALUE 5;
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_small', 'classic', 10)$$);
SELECT strategy, own_sequence FROM hilo_keys WHERE table_name = 'err_t'::regclass;

-- Nothing but err_t's own key (created by the one successful call) was added.
SELECT k.relid, k.strategy, k.max_lo FROM id_gen.hilo_key k
 WHERE NOT EXISTS (SELECT 1 FROM hilo_rows_before b WHERE b.relid = k.relid);
-- A key's sequence must be permanent: a crash resets an unlogged sequence
-- and a temporary one ends with its session, and the key would then hand
-- out its ids again.  Refused when binding, and at the next draw of a key
-- whose sequence was made unlogged after it was bound.
CREATE UNLOGGED SEQUENCE err_unlogged_seq;
CREATE TEMP SEQUENCE err_temp_seq;
SELECT hilo_try($$SELECT hilo_bind('err_t', 'err_unlogged_seq', 'classic', 10)$$);
SELECT hilo_try($$SELECT hilo_bind('err_t', 'pg_temp.err_temp_seq', 'classic', 10)$$);
CREATE TABLE err_later (id bigint);
CREATE SEQUENCE err_later_seq;
SELECT hilo_bind('err_later', 'err_later_seq', 'classic', 10);
SELECT hilo_next('err_later') > 0 AS drawn_while_logged;
ALTER SEQUENCE err_later_seq SET UNLOGGED;
SELECT hilo_try($$SELECT hilo_next('err_later') FROM generate_series(1, 20)$$);
ALTER SEQUENCE err_later_seq SET LOGGED;
SELECT count(DISTINCT hilo_next('err_later')) AS drawn_again_once_logged FROM generate_series(1, 20);
DROP TABLE err_later;
DROP SEQUENCE err_later_seq, err_unlogged_seq, err_temp_seq;

SELECT (SELECT count(*) FROM id_gen.hilo_key k
          JOIN hilo_rows_before b USING (relid, seq, strategy, max_lo))
     = (SELECT count(*) FROM hilo_rows_before) AS other_rows_unchanged;
-- err_t still exists: no injected statement ran.
SELECT to_regclass('err_t') IS NOT NULL AS err_t_exists;
