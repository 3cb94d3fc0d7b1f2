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
