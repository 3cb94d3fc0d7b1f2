/* sql/id_gen--1.2--1.3.sql: every guarantee under adversity */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '1.3'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Hi/Lo
-- ---------------------------------------------------------------------------

-- hilo_set_max_lo() and hilo_bind() are now committed at once by the key
-- worker, like setval(): ROLLBACK does not undo them (the library changed;
-- the comments say so).
COMMENT ON FUNCTION hilo_set_max_lo(regclass, integer) IS
    'changes the block size of the table''s Hi/Lo key, moving its hi above every id already issued; committed at once, not undone by ROLLBACK (like setval); table owner only';
COMMENT ON FUNCTION hilo_bind(regclass, regclass, text, integer) IS
    'makes the table''s Hi/Lo key draw from an existing sequence with an ORM''s formula: classic, legacy, pooled_lo or pooled; committed at once, not undone by ROLLBACK (like setval)';

-- ---------------------------------------------------------------------------
-- Clock floor, snowflake, decimal_id, timeuuid
-- ---------------------------------------------------------------------------

-- Server-wide state that must outlive this extension and be shared by every
-- database of the server: the clock floor of the snowflake and timeuuid
-- streams (Unix ms), and the next free decimal_id() generator id.  Each is
-- kept as the progress of a replication origin: server-wide, WAL-logged,
-- replayed after a crash and on streaming standbys, and written without a
-- transaction.  Origins are not extension members: DROP EXTENSION leaves
-- them, so that a reinstall never reissues an id.  Each takes one of the
-- max_replication_slots progress slots; with max_replication_slots = 0 the
-- generators fall back to per-database state and say so with a WARNING.
DO $$
DECLARE
    origin text;
BEGIN
    IF pg_catalog.current_setting('max_replication_slots')::integer > 0 THEN
        FOREACH origin IN ARRAY ARRAY['id_gen_clock_floor', 'id_gen_decimal_generators'] LOOP
            IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_replication_origin WHERE roname = origin) THEN
                PERFORM pg_catalog.pg_replication_origin_create(origin);
            END IF;
        END LOOP;
    END IF;
END
$$;
