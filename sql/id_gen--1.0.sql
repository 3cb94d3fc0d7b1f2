/* sql/id_gen--1.0.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION id_gen" to load this file. \quit

-- Internal objects (state tables, sequences, helpers) live in a schema the
-- extension owns; public functions go into the schema chosen at CREATE
-- EXTENSION (@extschema@).
CREATE SCHEMA id_gen;
COMMENT ON SCHEMA id_gen IS 'internal state of the id_gen extension';
GRANT USAGE ON SCHEMA id_gen TO PUBLIC;

CREATE FUNCTION id_gen.noop() RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_gen_noop'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.noop() IS
    'returns 0: the cost of a trivial C call, the floor benchmarks compare generators with';

-- ---------------------------------------------------------------------------
-- Hi/Lo keys
-- ---------------------------------------------------------------------------

-- The hi table: one row per table with a Hi/Lo key.  The hi values themselves
-- live in a sequence per key (non-transactional, WAL-logged, crash-safe,
-- replicated, dumped with its value); this row says which sequence, with
-- which formula and block size.  relid and seq are regclass so that pg_dump
-- writes names and a restore maps them to the new OIDs.  Users read it;
-- only the extension's functions (running as the extension owner) write it.
CREATE TABLE id_gen.hilo_key (
    relid regclass PRIMARY KEY,
    seq regclass NOT NULL,
    strategy text NOT NULL
        CHECK (strategy IN ('classic', 'legacy', 'pooled_lo', 'pooled')),
    max_lo integer NOT NULL CHECK (max_lo > 0),
    own_seq boolean NOT NULL
);
COMMENT ON TABLE id_gen.hilo_key IS
    'Hi/Lo keys: which sequence each table draws hi values from, with which formula and block size';
SELECT pg_catalog.pg_extension_config_dump('id_gen.hilo_key', '');
REVOKE ALL ON id_gen.hilo_key FROM PUBLIC;
GRANT SELECT ON id_gen.hilo_key TO PUBLIC;

-- Numbers the sequences created for keys (id_gen.hilo_seq_<n>): names must
-- not come from OIDs, which change on restore.
CREATE SEQUENCE id_gen.hilo_seq_counter AS bigint MINVALUE 1;
COMMENT ON SEQUENCE id_gen.hilo_seq_counter IS
    'numbers the sequences created for Hi/Lo keys (id_gen.hilo_seq_<n>)';
SELECT pg_catalog.pg_extension_config_dump('id_gen.hilo_seq_counter', '');
REVOKE ALL ON id_gen.hilo_seq_counter FROM PUBLIC;

CREATE FUNCTION hilo_next(tbl regclass) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_next'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_next(regclass) IS
    'next id of the table''s Hi/Lo key; use as DEFAULT hilo_next(''t''); needs INSERT on the table';

CREATE FUNCTION hilo_set_max_lo(tbl regclass, max_lo integer) RETURNS void
    AS 'MODULE_PATHNAME', 'hilo_set_max_lo'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_set_max_lo(regclass, integer) IS
    'changes the block size of the table''s Hi/Lo key, moving its hi above every id already issued; table owner only';

CREATE FUNCTION hilo_bind(tbl regclass, seq regclass, strategy text,
                          max_lo integer DEFAULT NULL) RETURNS void
    AS 'MODULE_PATHNAME', 'hilo_bind'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_bind(regclass, regclass, text, integer) IS
    'makes the table''s Hi/Lo key draw from an existing sequence with an ORM''s formula: classic, legacy, pooled_lo or pooled';

-- Where each key stands.  reserved_to is the highest id any backend may have
-- handed out or hold in its cached block; every later block starts above it.
CREATE VIEW hilo_keys AS
SELECT k.relid AS table_name,
       k.strategy,
       CASE WHEN k.strategy IN ('pooled', 'pooled_lo') THEN s.seqincrement
            ELSE k.max_lo END AS max_lo,
       k.seq AS sequence,
       k.own_seq AS own_sequence,
       v.last_hi,
       CASE WHEN v.last_hi IS NULL THEN NULL
            ELSE LEAST(9223372036854775807,
                   CASE k.strategy
                     WHEN 'classic' THEN (v.last_hi::numeric + 1) * k.max_lo - 1
                     WHEN 'legacy' THEN (v.last_hi::numeric + 1) * (k.max_lo + 1) - 1
                     WHEN 'pooled_lo' THEN v.last_hi::numeric + s.seqincrement - 1
                     ELSE v.last_hi::numeric END)::bigint
       END AS reserved_to
  FROM id_gen.hilo_key k
  JOIN pg_catalog.pg_sequence s ON s.seqrelid = k.seq
  CROSS JOIN LATERAL (
       SELECT CASE WHEN pg_catalog.has_sequence_privilege(k.seq, 'SELECT')
                   THEN pg_catalog.pg_sequence_last_value(k.seq) END AS last_hi) v;
COMMENT ON VIEW hilo_keys IS
    'Hi/Lo keys: table, formula, block size, sequence, last hi drawn and the highest id reserved so far';
GRANT SELECT ON hilo_keys TO PUBLIC;

-- A dropped table must leave no row behind (pg_dump would write its number
-- and a restore would attach the key to whatever gets that OID), and a
-- sequence still serving a key must not disappear under it: the next use
-- would start a fresh key and reissue ids.
CREATE FUNCTION id_gen.hilo_on_drop() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k record;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM id_gen.hilo_key) THEN
        RETURN;
    END IF;
    FOR k IN
        SELECT h.relid::oid AS relid, h.seq::oid AS seq, h.own_seq,
               EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() d
                        WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0
                          AND d.objid = h.relid::oid) AS table_dropped,
               (SELECT d.object_identity FROM pg_event_trigger_dropped_objects() d
                 WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0
                   AND d.objid = h.seq::oid) AS seq_dropped
          FROM id_gen.hilo_key h
    LOOP
        IF k.table_dropped THEN
            DELETE FROM id_gen.hilo_key WHERE relid::oid = k.relid;
            IF k.own_seq AND k.seq_dropped IS NULL THEN
                EXECUTE format('DROP SEQUENCE IF EXISTS %s', k.seq::regclass);
            END IF;
        ELSIF k.seq_dropped IS NOT NULL THEN
            RAISE EXCEPTION 'cannot drop sequence %: it serves the Hi/Lo key of table %',
                    k.seq_dropped, k.relid::regclass
                USING ERRCODE = 'dependent_objects_still_exist',
                      DETAIL = 'Without it the key would start again and reissue ids.',
                      HINT = 'Drop the table first; its key goes with it.';
        END IF;
    END LOOP;
END
$$;
REVOKE ALL ON FUNCTION id_gen.hilo_on_drop() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.hilo_on_drop() IS
    'removes the Hi/Lo key of a dropped table; refuses to drop a sequence a key draws from';
CREATE EVENT TRIGGER id_gen_hilo_on_drop ON sql_drop
    EXECUTE FUNCTION id_gen.hilo_on_drop();
COMMENT ON EVENT TRIGGER id_gen_hilo_on_drop IS
    'keeps id_gen.hilo_key free of rows for dropped tables';
