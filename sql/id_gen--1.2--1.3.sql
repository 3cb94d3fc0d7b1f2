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

-- Keys and the ids already in their tables (logical replication, partial
-- restores, bulk loads; dropping a bound sequence).

-- A key's row names its sequence instead of holding its OID.  Logical
-- replication carries tables but no sequences (PostgreSQL 15-17), so a
-- regclass column naming a key's own sequence could not even be copied to a
-- subscriber (regclass input fails), and restores may bring rows whose
-- sequence is absent.  The name is schema-qualified and quoted, exactly as
-- pg_identify_object() and pg_event_trigger_dropped_objects() write it, and
-- resolved at use: a key whose own sequence does not exist gets one that
-- starts above the table's ids.  The view reads the column: dropped and made
-- again below.
DROP VIEW @extschema@.hilo_keys;
-- Another role's view may read the column (a view needs no privilege on
-- what it reads), which ALTER COLUMN ... TYPE refuses: then the 1.2 table is
-- left to those views, outside the extension and renamed, and the keys move
-- into a new one.
DO $$
DECLARE
    kept text := 'hilo_key_1_2';
BEGIN
    ALTER TABLE id_gen.hilo_key ALTER COLUMN seq TYPE text
        USING (pg_catalog.pg_identify_object('pg_catalog.pg_class'::pg_catalog.regclass,
                                             seq::pg_catalog.oid, 0)).identity;
EXCEPTION WHEN feature_not_supported THEN
    WHILE pg_catalog.to_regclass('id_gen.' || kept) IS NOT NULL LOOP
        kept := kept || '_';
    END LOOP;
    ALTER EXTENSION id_gen DROP TABLE id_gen.hilo_key;
    EXECUTE pg_catalog.format('ALTER TABLE id_gen.hilo_key RENAME TO %I', kept);
    EXECUTE pg_catalog.format('ALTER INDEX id_gen.hilo_key_pkey RENAME TO %I', kept || '_pkey');
    CREATE TABLE id_gen.hilo_key (
        relid regclass PRIMARY KEY,
        seq text NOT NULL,
        strategy text NOT NULL
            CONSTRAINT hilo_key_strategy_check CHECK (strategy IN ('classic', 'legacy', 'pooled_lo', 'pooled')),
        max_lo integer NOT NULL CONSTRAINT hilo_key_max_lo_check CHECK (max_lo > 0),
        own_seq boolean NOT NULL
    );
    EXECUTE pg_catalog.format(
        'INSERT INTO id_gen.hilo_key SELECT relid, (pg_catalog.pg_identify_object(''pg_catalog.pg_class''::pg_catalog.regclass, '
        'seq::pg_catalog.oid, 0)).identity, strategy, max_lo, own_seq FROM id_gen.%I', kept);
    COMMENT ON TABLE id_gen.hilo_key IS
        'Hi/Lo keys: which sequence each table draws hi values from, with which formula and block size';
    PERFORM pg_catalog.pg_extension_config_dump('id_gen.hilo_key', '');
    REVOKE ALL ON id_gen.hilo_key FROM PUBLIC;
    GRANT SELECT ON id_gen.hilo_key TO PUBLIC;
    RAISE WARNING 'table id_gen.hilo_key of 1.2 is kept as id_gen.%, outside the extension: other objects read its column seq', kept
        USING HINT = pg_catalog.format('Drop it when they no longer need it: DROP TABLE id_gen.%I CASCADE.', kept);
END
$$;

-- The strategy rules the view shows, from the same code the generator uses.
CREATE FUNCTION id_gen.hilo_block_size(strategy text, max_lo integer, increment bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_block_size'
    LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.hilo_block_size(text, integer, bigint) IS
    'block size of a Hi/Lo key: max_lo, or the sequence''s increment for the pooled strategies';
CREATE FUNCTION id_gen.hilo_reserved_to(strategy text, last_hi bigint, size bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_reserved_to'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.hilo_reserved_to(text, bigint, bigint) IS
    'last id of the block a Hi/Lo key''s sequence value reserves (capped at 9223372036854775807)';

-- Where each key stands.  reserved_to is the highest id any backend may have
-- handed out or hold in its cached block; every later block starts above it.
-- sequence is NULL while the named sequence does not exist here.
CREATE VIEW id_gen.hilo_keys AS
SELECT k.relid AS table_name,
       k.strategy,
       id_gen.hilo_block_size(k.strategy, k.max_lo, s.seqincrement) AS max_lo,
       s.seqrelid::pg_catalog.regclass AS sequence,
       k.own_seq AS own_sequence,
       v.last_hi,
       id_gen.hilo_reserved_to(k.strategy, v.last_hi,
                               id_gen.hilo_block_size(k.strategy, k.max_lo, s.seqincrement)) AS reserved_to
  FROM id_gen.hilo_key k
  LEFT JOIN pg_catalog.pg_sequence s ON s.seqrelid = pg_catalog.to_regclass(k.seq)
  CROSS JOIN LATERAL (
       SELECT CASE WHEN s.seqrelid IS NOT NULL
                    AND pg_catalog.has_sequence_privilege(s.seqrelid, 'SELECT')
                   THEN pg_catalog.pg_sequence_last_value(s.seqrelid) END AS last_hi) v;
COMMENT ON VIEW id_gen.hilo_keys IS
    'Hi/Lo keys: table, formula, block size, sequence, last hi drawn and the highest id reserved so far';
GRANT SELECT ON id_gen.hilo_keys TO PUBLIC;

-- Dropping objects.  A dropped table takes its row and its own sequence
-- along.  The extension's own sequence of a key whose table exists cannot be
-- dropped (only the extension owner or a superuser could try): the key would
-- start again.  But a sequence the key was bound to belongs to someone else,
-- who may hold no more than USAGE granted to the table's owner: its owner
-- can always drop it (DROP SEQUENCE, DROP SCHEMA ... CASCADE, DROP OWNED
-- BY).  The key then goes, with a NOTICE, and its next use creates a fresh
-- key that starts above the table's ids, so none is issued again.
CREATE OR REPLACE FUNCTION id_gen.hilo_on_drop() RETURNS event_trigger
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
        SELECT h.relid::oid AS relid, h.seq, h.own_seq,
               EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() d
                        WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0
                          AND d.objid = h.relid::oid) AS table_dropped,
               EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() d
                        WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0
                          AND d.object_type = 'sequence'
                          AND d.object_identity = h.seq) AS seq_dropped
          FROM id_gen.hilo_key h
    LOOP
        IF k.table_dropped THEN
            DELETE FROM id_gen.hilo_key WHERE relid::oid = k.relid;
            -- Only a sequence of the extension's own, and only if no other
            -- key names it.
            IF k.own_seq AND NOT k.seq_dropped
               AND NOT EXISTS (SELECT 1 FROM id_gen.hilo_key o WHERE o.seq = k.seq)
               AND EXISTS (SELECT 1 FROM pg_class c
                            WHERE c.oid = to_regclass(k.seq) AND c.relkind = 'S'
                              AND c.relnamespace = 'id_gen'::regnamespace) THEN
                EXECUTE format('DROP SEQUENCE IF EXISTS %s', to_regclass(k.seq));
            END IF;
        ELSIF k.seq_dropped AND k.own_seq THEN
            RAISE EXCEPTION 'cannot drop sequence %: it serves the Hi/Lo key of table %',
                    k.seq, k.relid::regclass
                USING ERRCODE = 'dependent_objects_still_exist',
                      DETAIL = 'Without it the key would start again and reissue ids.',
                      HINT = 'Drop the table first; its key goes with it.';
        ELSIF k.seq_dropped THEN
            DELETE FROM id_gen.hilo_key WHERE relid::oid = k.relid;
            RAISE NOTICE 'the Hi/Lo key of table % was bound to sequence %, which is dropped: the key is removed',
                    k.relid::regclass, k.seq
                USING DETAIL = 'The next hilo_next() creates a fresh key that starts above the table''s ids.',
                      HINT = 'To share a sequence with an application again, hilo_bind() the key to it.';
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION id_gen.hilo_on_drop() IS
    'removes the Hi/Lo key of a dropped table (and its own sequence); refuses to drop the extension''s sequence of a live key; removes a key whose bound sequence is dropped';

-- Moves a key above the data (Marten's SetFloor): after a bulk load with
-- explicit ids, a restore, or a switchover where the key's column has no
-- index for the draw-time check.
CREATE FUNCTION hilo_set_floor(tbl regclass, next_id bigint DEFAULT NULL) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_set_floor'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_set_floor(regclass, bigint) IS
    'moves the table''s Hi/Lo key forward: its next blocks start above every id in the key''s column(s) and at or above next_id; returns the next block''s first id; table owner only';

-- ---------------------------------------------------------------------------
-- Clock floor, snowflake, decimal_id, timeuuid
-- ---------------------------------------------------------------------------

-- The snowflake/jsid epoch (Unix ms) the ids below this database's clock
-- floor were counted from (never set until the first floor is written): a
-- server restarted with id_gen.snowflake_epoch moved later refuses to
-- generate while new ids would be smaller.  Set by the extension only.
CREATE SEQUENCE id_gen.clock_epoch MINVALUE 0 START 0 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.clock_epoch', '');
REVOKE ALL ON SEQUENCE id_gen.clock_epoch FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.clock_epoch IS
    'snowflake/jsid epoch (Unix ms) of the ids below id_gen.clock_floor in this database';

-- ---------------------------------------------------------------------------
-- timeuuid beside uuid.  Drivers send UUID parameters as uuid (pgjdbc's
-- setObject(UUID), psycopg2's uuid.UUID, node-postgres' $1::uuid): the
-- comparison operators below take them in both orders, in time order, and
-- belong to timeuuid's btree and hash families, so indexes on timeuuid
-- columns serve them.  The uuid side is checked as the cast checks it
-- (ERROR 22023 for versions timeuuid does not hold), by every member.  The
-- cast timeuuid -> uuid is implicit: every timeuuid is a uuid, so functions
-- taking uuid take timeuuid, and JOIN ... USING, NATURAL JOIN, UNION and
-- CASE between the two types give uuid.  The cross-type = is not MERGES: a
-- merge join would sort the uuid side with uuid's own (byte) order, which
-- is not timeuuid's; hash joins, nested loops and index scans serve it.
-- ---------------------------------------------------------------------------
DROP CAST (timeuuid AS uuid);
CREATE CAST (timeuuid AS uuid) WITHOUT FUNCTION AS IMPLICIT;
-- With it, the timeuuid forms of the PostgreSQL 17 names only made
-- uuid_extract_version('...') ambiguous (a query copied from PostgreSQL's
-- documentation failed): the uuid forms serve timeuuid now, as core's do.
-- For version 6 timestamps, timeuuid_timestamp().  A view calling a
-- dropped form makes this update fail (RESTRICT), naming the view.
DROP FUNCTION uuid_extract_timestamp(timeuuid);
DROP FUNCTION uuid_extract_version(timeuuid);
CREATE FUNCTION timeuuid_uuid_eq(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_uuid_ne(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_uuid_lt(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_uuid_le(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_uuid_gt(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_uuid_ge(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_uuid_cmp(timeuuid, uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_timeuuid_eq(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_timeuuid_ne(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_timeuuid_lt(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_timeuuid_le(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_timeuuid_gt(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_timeuuid_ge(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_timeuuid_cmp(uuid, timeuuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_uuid_hash(uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_uuid_hash_extended(uuid, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_uuid_eq(timeuuid, uuid) IS 'implementation of = between timeuuid and uuid';
COMMENT ON FUNCTION timeuuid_uuid_ne(timeuuid, uuid) IS 'implementation of <> between timeuuid and uuid';
COMMENT ON FUNCTION timeuuid_uuid_lt(timeuuid, uuid) IS 'implementation of < between timeuuid and uuid (time order)';
COMMENT ON FUNCTION timeuuid_uuid_le(timeuuid, uuid) IS 'implementation of <= between timeuuid and uuid (time order)';
COMMENT ON FUNCTION timeuuid_uuid_gt(timeuuid, uuid) IS 'implementation of > between timeuuid and uuid (time order)';
COMMENT ON FUNCTION timeuuid_uuid_ge(timeuuid, uuid) IS 'implementation of >= between timeuuid and uuid (time order)';
COMMENT ON FUNCTION timeuuid_uuid_cmp(timeuuid, uuid) IS 'btree comparison of a timeuuid with a uuid, in time order';
COMMENT ON FUNCTION uuid_timeuuid_eq(uuid, timeuuid) IS 'implementation of = between uuid and timeuuid';
COMMENT ON FUNCTION uuid_timeuuid_ne(uuid, timeuuid) IS 'implementation of <> between uuid and timeuuid';
COMMENT ON FUNCTION uuid_timeuuid_lt(uuid, timeuuid) IS 'implementation of < between uuid and timeuuid (time order)';
COMMENT ON FUNCTION uuid_timeuuid_le(uuid, timeuuid) IS 'implementation of <= between uuid and timeuuid (time order)';
COMMENT ON FUNCTION uuid_timeuuid_gt(uuid, timeuuid) IS 'implementation of > between uuid and timeuuid (time order)';
COMMENT ON FUNCTION uuid_timeuuid_ge(uuid, timeuuid) IS 'implementation of >= between uuid and timeuuid (time order)';
COMMENT ON FUNCTION uuid_timeuuid_cmp(uuid, timeuuid) IS 'btree comparison of a uuid with a timeuuid, in time order';
COMMENT ON FUNCTION timeuuid_uuid_hash(uuid) IS 'hash of a uuid compared with timeuuids (as timeuuid_hash hashes it)';
COMMENT ON FUNCTION timeuuid_uuid_hash_extended(uuid, bigint) IS '64-bit seeded hash of a uuid compared with timeuuids';

CREATE OPERATOR = (
    LEFTARG = timeuuid, RIGHTARG = uuid, FUNCTION = timeuuid_uuid_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR <> (
    LEFTARG = timeuuid, RIGHTARG = uuid, FUNCTION = timeuuid_uuid_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = timeuuid, RIGHTARG = uuid, FUNCTION = timeuuid_uuid_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = timeuuid, RIGHTARG = uuid, FUNCTION = timeuuid_uuid_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = timeuuid, RIGHTARG = uuid, FUNCTION = timeuuid_uuid_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = timeuuid, RIGHTARG = uuid, FUNCTION = timeuuid_uuid_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR = (
    LEFTARG = uuid, RIGHTARG = timeuuid, FUNCTION = uuid_timeuuid_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR <> (
    LEFTARG = uuid, RIGHTARG = timeuuid, FUNCTION = uuid_timeuuid_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = uuid, RIGHTARG = timeuuid, FUNCTION = uuid_timeuuid_lt,
    COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = uuid, RIGHTARG = timeuuid, FUNCTION = uuid_timeuuid_le,
    COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = uuid, RIGHTARG = timeuuid, FUNCTION = uuid_timeuuid_gt,
    COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = uuid, RIGHTARG = timeuuid, FUNCTION = uuid_timeuuid_ge,
    COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
COMMENT ON OPERATOR = (timeuuid, uuid) IS 'equal';
COMMENT ON OPERATOR <> (timeuuid, uuid) IS 'not equal';
COMMENT ON OPERATOR < (timeuuid, uuid) IS 'earlier than';
COMMENT ON OPERATOR <= (timeuuid, uuid) IS 'earlier than or equal';
COMMENT ON OPERATOR > (timeuuid, uuid) IS 'later than';
COMMENT ON OPERATOR >= (timeuuid, uuid) IS 'later than or equal';
COMMENT ON OPERATOR = (uuid, timeuuid) IS 'equal';
COMMENT ON OPERATOR <> (uuid, timeuuid) IS 'not equal';
COMMENT ON OPERATOR < (uuid, timeuuid) IS 'earlier than';
COMMENT ON OPERATOR <= (uuid, timeuuid) IS 'earlier than or equal';
COMMENT ON OPERATOR > (uuid, timeuuid) IS 'later than';
COMMENT ON OPERATOR >= (uuid, timeuuid) IS 'later than or equal';

ALTER OPERATOR FAMILY timeuuid_ops USING btree ADD
    OPERATOR 1 < (timeuuid, uuid),
    OPERATOR 2 <= (timeuuid, uuid),
    OPERATOR 3 = (timeuuid, uuid),
    OPERATOR 4 >= (timeuuid, uuid),
    OPERATOR 5 > (timeuuid, uuid),
    FUNCTION 1 (timeuuid, uuid) timeuuid_uuid_cmp(timeuuid, uuid),
    OPERATOR 1 < (uuid, timeuuid),
    OPERATOR 2 <= (uuid, timeuuid),
    OPERATOR 3 = (uuid, timeuuid),
    OPERATOR 4 >= (uuid, timeuuid),
    OPERATOR 5 > (uuid, timeuuid),
    FUNCTION 1 (uuid, timeuuid) uuid_timeuuid_cmp(uuid, timeuuid);

ALTER OPERATOR FAMILY timeuuid_hash_ops USING hash ADD
    OPERATOR 1 = (timeuuid, uuid),
    OPERATOR 1 = (uuid, timeuuid),
    FUNCTION 1 (uuid, uuid) timeuuid_uuid_hash(uuid),
    FUNCTION 2 (uuid, uuid) timeuuid_uuid_hash_extended(uuid, bigint);

-- issue 11: other id shapes
-- ---------------------------------------------------------------------------
-- COMB UUIDs (version 13), which the timeuuid type now accepts (the library
-- changed): the version 6 layout under a version number RFC 9562 leaves
-- unassigned, sorted and read as version 6.  Conversions to standard v6 and
-- back, and to SQL Server's NEWSEQUENTIALID() byte order.
-- ---------------------------------------------------------------------------
COMMENT ON TYPE timeuuid IS
    'time-ordered UUID (RFC 9562 versions 1, 6, 7, and version 13 COMB): stored like uuid, sorted by the time it carries';
COMMENT ON FUNCTION timeuuid(uuid) IS
    'cast uuid to timeuuid, rejecting versions other than 1, 6, 7 and 13 (COMB)';

CREATE FUNCTION timeuuid_comb_to_v6(uuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_comb_to_v6'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_comb_to_v6(uuid) IS
    'version 13 COMB UUID as standard version 6 (only the version nibble changes)';

CREATE FUNCTION timeuuid_v6_to_comb(timeuuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_v6_to_comb'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_v6_to_comb(timeuuid) IS
    'version 6 timeuuid back in the version 13 COMB form';

CREATE FUNCTION timeuuid_to_sqlserver(timeuuid) RETURNS uuid
    AS 'MODULE_PATHNAME', 'timeuuid_to_sqlserver'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_to_sqlserver(timeuuid) IS
    'SQL Server NEWSEQUENTIALID() byte order of a version 1, 6 or 13 timeuuid (inverse of timeuuid_from_sqlserver)';
-- ---------------------------------------------------------------------------
-- Public ids that reveal neither order nor volume: a keyed permutation of
-- [1, 2^63-1], or with js_safe of [1, 2^53-1] (obfuscation, not encryption).
-- With the key as an argument the result depends on the arguments only:
-- IMMUTABLE.  Without it the key is the superuser-only setting
-- id_gen.encode_key: STABLE.  No state, nothing written: PARALLEL SAFE
-- (workers receive the leader's settings).
-- ---------------------------------------------------------------------------
CREATE FUNCTION id_encode(id bigint, key text, js_safe boolean DEFAULT false) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_encode'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_encode(bigint, text, boolean) IS
    'keyed permutation of [1, 2^63-1] (js_safe: [1, 2^53-1]) for public ids that hide order and volume; obfuscation, not encryption';

CREATE FUNCTION id_decode(id bigint, key text, js_safe boolean DEFAULT false) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_decode'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_decode(bigint, text, boolean) IS
    'inverse of id_encode(id, key, js_safe)';

CREATE FUNCTION id_encode(id bigint, js_safe boolean DEFAULT false) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_encode_setting'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_encode(bigint, boolean) IS
    'id_encode with the key of the superuser-only setting id_gen.encode_key';

CREATE FUNCTION id_decode(id bigint, js_safe boolean DEFAULT false) RETURNS bigint
    AS 'MODULE_PATHNAME', 'id_decode_setting'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_decode(bigint, boolean) IS
    'inverse of id_encode(id, js_safe), with the key of id_gen.encode_key';
-- ---------------------------------------------------------------------------
-- jsid_next(): time-ordered ids below 2^53 (JavaScript-safe), on the
-- machinery of snowflake_next(): 41-bit ms since id_gen.snowflake_epoch,
-- 4-bit worker id (id_gen.worker_id, 0..15), 8-bit sequence.  Like
-- snowflake_next() it may write the WAL-logged clock floor (a sequence),
-- which PostgreSQL forbids in parallel mode: VOLATILE PARALLEL UNSAFE.
-- Decoding depends on the epoch setting: STABLE.
-- ---------------------------------------------------------------------------
CREATE FUNCTION jsid_next() RETURNS bigint
    AS 'MODULE_PATHNAME', 'jsid_next'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION jsid_next() IS
    'next JavaScript-safe id of this server (below 2^53): 41-bit ms since id_gen.snowflake_epoch, 4-bit id_gen.worker_id, 8-bit sequence; unique and strictly increasing';

CREATE FUNCTION jsid_decode(id bigint, OUT ts timestamptz, OUT worker_id integer, OUT sequence integer)
    AS 'MODULE_PATHNAME', 'jsid_decode'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION jsid_decode(bigint) IS
    'time (ms), worker id and sequence of a jsid';

CREATE FUNCTION jsid_min_id(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'jsid_min_id'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION jsid_min_id(timestamptz) IS
    'smallest jsid of any worker at that time (millisecond): WHERE id >= jsid_min_id(t) selects ids issued at or after t';

CREATE FUNCTION jsid_max_id(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'jsid_max_id'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION jsid_max_id(timestamptz) IS
    'largest jsid of any worker at that time (millisecond); jsid_max_id of the end of the time field is 2^53 - 1';

CREATE FUNCTION jsid_state(
    OUT worker_id integer, OUT epoch timestamptz, OUT last_id bigint, OUT last_time timestamptz,
    OUT ids_issued bigint, OUT next_ms_waits bigint, OUT clock_backward_events bigint,
    OUT clock_backward_errors bigint, OUT clock_floor timestamptz, OUT clock_floor_advances bigint,
    OUT time_exhausted_at timestamptz, OUT time_left interval, OUT started timestamptz)
    AS 'MODULE_PATHNAME', 'jsid_state'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION jsid_state() IS
    'state of this server''s jsid generator since it started; warns when the 41-bit time runs out within a year';
-- end issue 11

-- ---------------------------------------------------------------------------
-- PostgreSQL 17 and 18 names (see id_gen--1.3.sql): 1.2 created them as this
-- library's functions on every server, where 17 and 18 silently hid them
-- behind core's.  On a server that has core's, each becomes a thin SQL
-- function calling core's (same OID, so defaults and views naming it keep
-- working, now with core's results).  The server-wide stream as uuid gets
-- its own name, and 18's uuidv4() its alias.
-- ---------------------------------------------------------------------------
CREATE FUNCTION uuidv7_next() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuidv7'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_next() IS
    'version 7 uuid from the server-wide increasing stream of timeuuid_next(), strictly increasing across all sessions';
DO $$
BEGIN
    IF pg_catalog.to_regprocedure('pg_catalog.uuid_extract_timestamp(uuid)') IS NOT NULL THEN
        CREATE OR REPLACE FUNCTION uuid_extract_timestamp(uuid) RETURNS timestamptz
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN pg_catalog.uuid_extract_timestamp($1);
        CREATE OR REPLACE FUNCTION uuid_extract_version(uuid) RETURNS smallint
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN pg_catalog.uuid_extract_version($1);
    END IF;
    IF pg_catalog.to_regprocedure('pg_catalog.uuidv7()') IS NOT NULL THEN
        CREATE OR REPLACE FUNCTION uuidv7() RETURNS uuid
            LANGUAGE sql VOLATILE PARALLEL SAFE
            RETURN pg_catalog.uuidv7();
        CREATE OR REPLACE FUNCTION uuidv7(interval) RETURNS uuid
            LANGUAGE sql VOLATILE STRICT PARALLEL SAFE
            RETURN pg_catalog.uuidv7($1);
    END IF;
END
$$;
CREATE FUNCTION uuidv4() RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL SAFE
    RETURN pg_catalog.gen_random_uuid();
COMMENT ON FUNCTION uuid_extract_timestamp(uuid) IS
    'PostgreSQL 17 name: timestamp of a version 1 or 7 uuid, else NULL (core''s from 17 on)';
COMMENT ON FUNCTION uuid_extract_version(uuid) IS
    'PostgreSQL 17 name: version of an RFC 9562 variant uuid, else NULL (core''s from 17 on)';
COMMENT ON FUNCTION uuidv7() IS
    'PostgreSQL 18 name: before 18, a version 7 uuid from the server-wide stream of uuidv7_next(); from 18 on, core''s uuidv7()';
COMMENT ON FUNCTION uuidv7(interval) IS
    'PostgreSQL 18 name: version 7 uuid for the current time shifted by the interval (core''s from 18 on)';
COMMENT ON FUNCTION uuidv4() IS
    'PostgreSQL 18 name: a random (version 4) uuid, gen_random_uuid()';

-- issue 8: many nodes
-- ---------------------------------------------------------------------------
-- Node identity: the worker id (snowflake_next, jsid_next) and launch id
-- (decimal_id) this node writes into its ids, where each came from, and the
-- checks that no two nodes of a cluster share one.
CREATE FUNCTION node_identity(
    OUT citus_group_id integer, OUT worker_id integer, OUT worker_id_source text,
    OUT jsid_worker_id integer, OUT launch_id integer, OUT launch_id_source text)
    AS 'MODULE_PATHNAME', 'node_identity'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION node_identity() IS
    'this node''s worker id and launch id and where each came from (setting, citus group, default, unset); NULL where the generator would refuse';

CREATE FUNCTION node_identity_collisions(identities jsonb,
    OUT field text, OUT value integer, OUT nodes text[], OUT generators text)
    RETURNS SETOF record
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF jsonb_typeof(identities) <> 'array'
       OR EXISTS (SELECT FROM jsonb_array_elements(identities) e WHERE jsonb_typeof(e) <> 'object') THEN
        RAISE EXCEPTION 'node_identity_collisions() takes a JSON array of objects, one per node'
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'On each node run SELECT to_jsonb(i) FROM node_identity() i, add a "node" key naming it, '
                         'and pass the array of the results.';
    END IF;
    RETURN QUERY
    WITH n AS (
        SELECT coalesce(e.v ->> 'node', '#' || e.ord) AS node,
               (e.v ->> 'worker_id')::integer AS worker,
               (e.v ->> 'launch_id')::integer AS launch
        FROM jsonb_array_elements(identities) WITH ORDINALITY AS e(v, ord)
    )
    SELECT 'worker_id'::text, n.worker, array_agg(n.node ORDER BY n.node), 'snowflake_next, jsid_next'::text
    FROM n WHERE n.worker IS NOT NULL GROUP BY n.worker HAVING count(*) > 1
    UNION ALL
    SELECT 'launch_id'::text, n.launch, array_agg(n.node ORDER BY n.node), 'decimal_id'::text
    FROM n WHERE n.launch IS NOT NULL GROUP BY n.launch HAVING count(*) > 1
    ORDER BY 1, 2;
END
$$;
COMMENT ON FUNCTION node_identity_collisions(jsonb) IS
    'worker ids and launch ids shared by two or more of the given nodes'' identities (a JSON array of node_identity() rows, each with a "node" name)';

CREATE FUNCTION node_identity_check(
    OUT field text, OUT value integer, OUT nodes text[], OUT generators text)
    RETURNS SETOF record
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    ids jsonb;
    failed text;
BEGIN
    IF to_regprocedure('pg_catalog.run_command_on_all_nodes(text,boolean,boolean)') IS NULL THEN
        RAISE EXCEPTION 'node_identity_check() needs Citus: this database has no run_command_on_all_nodes()'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'For servers without Citus, collect SELECT to_jsonb(i) FROM node_identity() i from each '
                         'and pass them to node_identity_collisions().';
    END IF;
    EXECUTE $q$
        SELECT jsonb_agg(CASE WHEN r.success THEN r.result::jsonb END
                         || jsonb_build_object('node', coalesce(d.nodename || ':' || d.nodeport, 'node ' || r.nodeid)))
                   FILTER (WHERE r.success),
               string_agg(coalesce(d.nodename || ':' || d.nodeport, 'node ' || r.nodeid) || ': ' || r.result, '; ')
                   FILTER (WHERE NOT r.success)
        FROM pg_catalog.run_command_on_all_nodes($1) r
        LEFT JOIN pg_catalog.pg_dist_node d ON d.nodeid = r.nodeid
    $q$ INTO ids, failed
    USING 'SELECT pg_catalog.to_jsonb(i) FROM @extschema@.node_identity() i';
    IF failed IS NOT NULL THEN
        RAISE EXCEPTION 'node_identity_check(): not every node answered'
            USING ERRCODE = 'connection_exception', DETAIL = failed,
                  HINT = 'Every node needs the id_gen extension (CREATE EXTENSION on the coordinator propagates it) and must be reachable.';
    END IF;
    RETURN QUERY SELECT * FROM @extschema@.node_identity_collisions(coalesce(ids, '[]'));
END
$$;
COMMENT ON FUNCTION node_identity_check() IS
    'on Citus: worker ids and launch ids shared by two or more nodes of the cluster (through run_command_on_all_nodes); no rows: none';
-- end issue 8

-- issue 10: Hi/Lo for applications
-- ---------------------------------------------------------------------------
-- Ranges of a key's ids for application code (the textbook get_next_hi,
-- RavenDB's ranges), returning the unused end, and readable ids.
-- ---------------------------------------------------------------------------
CREATE FUNCTION hilo_reserve(tbl regclass, n integer DEFAULT NULL,
                             OUT first_id bigint, OUT last_id bigint) RETURNS record
    AS 'MODULE_PATHNAME', 'hilo_reserve'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_reserve(regclass, integer) IS
    'a range first_id..last_id of at least n ids (whole blocks) of the table''s Hi/Lo key for application code, or of a size adapted to the session''s pace when n is NULL; never overlaps hilo_next ids; needs INSERT on the table';

CREATE FUNCTION hilo_return(tbl regclass, next_unused bigint, last_id bigint) RETURNS boolean
    AS 'MODULE_PATHNAME', 'hilo_return'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_return(regclass, bigint, bigint) IS
    'takes back the whole blocks of next_unused..last_id if that range ends this session''s latest hilo_reserve of the table and nobody drew since; else changes nothing; committed at once (like setval); never use those ids afterwards, whatever it returns';

CREATE FUNCTION hilo_next_text(tbl regclass) RETURNS text
    AS 'MODULE_PATHNAME', 'hilo_next_text'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_next_text(regclass) IS
    'next id of the table''s Hi/Lo key in RavenDB''s readable form <table>/<n>-<node tag> (id_gen.node_tag), e.g. orders/54-A';

CREATE FUNCTION hilo_parse_text(id text, OUT table_name text, OUT n bigint, OUT node_tag text)
    RETURNS record
    AS 'MODULE_PATHNAME', 'hilo_parse_text'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hilo_parse_text(text) IS
    'the parts of a hilo_next_text id: table name (as written, castable to regclass), number, node tag';

-- Node ranges (many nodes): each node's own keys draw from its slice of the id space.
CREATE FUNCTION hilo_node_of(id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'hilo_node_of'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hilo_node_of(bigint) IS
    'the node (worker id 0..1023) whose Hi/Lo range holds the id: id >> 43; NULL for ids below 1 or from 2^53';

CREATE FUNCTION hilo_node_range(node integer, OUT first_id bigint, OUT last_id bigint) RETURNS record
    AS 'MODULE_PATHNAME', 'hilo_node_range'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hilo_node_range(integer) IS
    'the ids a node''s own Hi/Lo keys draw from on Citus or with id_gen.hilo_node_ranges: node * 2^43 .. (node + 1) * 2^43 - 1 (node 0 from 1)';

-- Blocks of hilo_next that adapt per backend (keys made on a first use adapt when
-- id_gen.hilo_adaptive is on, the default; rows from before 1.3 keep fixed blocks).
ALTER TABLE id_gen.hilo_key ADD COLUMN adaptive boolean NOT NULL DEFAULT false;
COMMENT ON COLUMN id_gen.hilo_key.adaptive IS
    'true: each backend takes runs of max_lo-id blocks whose length adapts to its pace (hilo_set_adaptive)';

CREATE FUNCTION hilo_set_adaptive(tbl regclass, adaptive boolean DEFAULT true) RETURNS void
    AS 'MODULE_PATHNAME', 'hilo_set_adaptive'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_set_adaptive(regclass, boolean) IS
    'true: each backend draws runs of blocks whose length adapts to its pace (32 ids to about a million); false: one block of max_lo ids per draw; committed at once; table owner only';

CREATE FUNCTION hilo_backend_draws(tbl regclass) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_backend_draws'
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION hilo_backend_draws(regclass) IS
    'how many blocks (or runs of blocks) this session drew from the table''s Hi/Lo key';

-- Hibernate 3.x's pooled optimizer (ids v-k .. v-1 for sequence value v).
ALTER TABLE id_gen.hilo_key DROP CONSTRAINT hilo_key_strategy_check,
    ADD CONSTRAINT hilo_key_strategy_check
        CHECK (strategy IN ('classic', 'legacy', 'pooled_lo', 'pooled', 'pooled_hibernate3'));
COMMENT ON FUNCTION hilo_bind(regclass, regclass, text, integer) IS
    'makes the table''s Hi/Lo key draw from an existing sequence with an ORM''s formula: classic, legacy, pooled_lo, pooled or pooled_hibernate3; committed at once, not undone by ROLLBACK (like setval)';
-- end issue 10

-- ---------------------------------------------------------------------------
-- decimal_id(): one generator id per database for its life (50000 + its OID
-- % 50000, or id_gen.decimal_generator_id set for it) and a persistent
-- counter reserved ahead in id_gen.decimal_counter.  Generator ids taken
-- by 1.2 (0 upward, one per server start) stay in id_gen.decimal_generator,
-- which is no longer advanced: decimal_id() refuses a generator id up to it,
-- and so does this update.
-- ---------------------------------------------------------------------------
CREATE SEQUENCE id_gen.decimal_counter MINVALUE 0 MAXVALUE 922337202 START 0 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.decimal_counter', '');
REVOKE ALL ON SEQUENCE id_gen.decimal_counter FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.decimal_counter IS
    'decimal_id() counter values reserved in this database (its ids stay below the value + 1)';
-- Called by this script only: a reinstall while the server runs carries the
-- counter's reserved end, still in shared memory, into the new sequence.
CREATE FUNCTION id_gen.decimal_id_carry_counter() RETURNS bigint
    AS 'MODULE_PATHNAME', 'decimal_id_carry_counter'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION id_gen.decimal_id_carry_counter() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.decimal_id_carry_counter() IS
    'install scripts only: puts the reserved end of this database''s decimal_id counter, kept in shared memory since the server started, into id_gen.decimal_counter';
SELECT id_gen.decimal_id_carry_counter();
COMMENT ON SEQUENCE id_gen.decimal_generator IS
    'generator ids taken by decimal_id() of id_gen 1.0 to 1.2 in this database (history, refused since 1.3)';

DROP FUNCTION decimal_id_state();
CREATE FUNCTION decimal_id_state(
    OUT launch_id integer, OUT generator_id integer, OUT generator_source text,
    OUT counter bigint, OUT reserved_to bigint, OUT counter_left bigint)
    AS 'MODULE_PATHNAME', 'decimal_id_state'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION decimal_id_state() IS
    'decimal_id() state of this database: launch id, generator id and where it comes from, counter, reserved end, counter values left';

DO $$
DECLARE
    g integer;
    taken bigint := pg_catalog.pg_sequence_last_value('id_gen.decimal_generator');
BEGIN
    -- The generator id decimal_id() will take here (src/core/decimal_id.hpp):
    -- id_gen.decimal_generator_id as set for the database, else 50000 + OID % 50000.
    SELECT COALESCE(
               (SELECT NULLIF(pg_catalog.substr(c, 29), '-1')::integer
                  FROM pg_catalog.pg_db_role_setting s, pg_catalog.unnest(s.setconfig) AS c
                 WHERE s.setdatabase = d.oid AND s.setrole = 0
                   AND pg_catalog.starts_with(pg_catalog.lower(c), 'id_gen.decimal_generator_id=')),
               50000 + d.oid::bigint % 50000)
      INTO g
      FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database();
    IF taken IS NOT NULL AND (g IS NULL OR g <= taken) THEN
        RAISE EXCEPTION 'decimal_id(): generator id % was taken in this database by an earlier version of id_gen', g
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = pg_catalog.format('id_gen 1.2 and earlier took generator ids 0 to %s here (sequence id_gen.decimal_generator); ids made with them may be in its tables.', taken),
                  HINT = pg_catalog.format('As a superuser, give this database a generator id above %s that no other database uses (ALTER DATABASE %I SET id_gen.decimal_generator_id = n) and update again.', taken, pg_catalog.current_database());
    END IF;
END
$$;

-- begin issue 10 item 5: ORM hi tables
-- A key bound to an ORM's hi table row (Hibernate's and NHibernate's
-- hibernate_unique_key, Hibernate's hibernate_sequences) instead of a
-- sequence: each block is the row's value, advanced by the key worker in a
-- transaction of its own as the ORM advances it.  A table has either a row
-- here or one in id_gen.hilo_key, never both.  hi_table is stored as a
-- schema-qualified, quoted name (like hilo_key.seq) and resolved at use;
-- the row is chosen by key_column = key_value, passed as a parameter, never
-- spliced into SQL text.
CREATE TABLE id_gen.hilo_orm_key (
    relid regclass PRIMARY KEY,
    hi_table text NOT NULL,
    hi_column name NOT NULL,
    key_column name,
    key_value text,
    strategy text NOT NULL CHECK (strategy IN ('classic', 'legacy')),
    max_lo integer NOT NULL CHECK (max_lo > 0),
    CHECK ((key_column IS NULL) = (key_value IS NULL))
);
COMMENT ON TABLE id_gen.hilo_orm_key IS
    'Hi/Lo keys bound to an ORM''s hi table row (hilo_bind_table): the table, column and row their hi values come from';
SELECT pg_catalog.pg_extension_config_dump('id_gen.hilo_orm_key', '');
REVOKE ALL ON id_gen.hilo_orm_key FROM PUBLIC;
GRANT SELECT ON id_gen.hilo_orm_key TO PUBLIC;

CREATE FUNCTION hilo_bind_table(tbl regclass, hi_table regclass, hi_column name, max_lo integer,
                                strategy text DEFAULT 'legacy', key_column name DEFAULT NULL,
                                key_value text DEFAULT NULL) RETURNS void
    AS 'MODULE_PATHNAME', 'hilo_bind_table'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_bind_table(regclass, regclass, name, integer, text, name, text) IS
    'makes the table''s Hi/Lo key (not used yet) draw its hi values from an ORM''s hi table row, advanced as Hibernate and NHibernate advance it (legacy: hi*(max_lo+1)); table owner only, UPDATE on the hi table';

-- A dropped table takes its binding along; a dropped hi table does not (draws fail until it is back).
CREATE FUNCTION id_gen.hilo_orm_on_drop() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM id_gen.hilo_orm_key) THEN
        RETURN;
    END IF;
    DELETE FROM id_gen.hilo_orm_key h
     USING pg_event_trigger_dropped_objects() d
     WHERE d.classid = 'pg_class'::regclass AND d.objsubid = 0 AND d.objid = h.relid::oid;
END
$$;
REVOKE ALL ON FUNCTION id_gen.hilo_orm_on_drop() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.hilo_orm_on_drop() IS
    'removes the ORM hi table binding of a dropped table';
CREATE EVENT TRIGGER id_gen_hilo_orm_on_drop ON sql_drop
    EXECUTE FUNCTION id_gen.hilo_orm_on_drop();
COMMENT ON EVENT TRIGGER id_gen_hilo_orm_on_drop IS
    'keeps id_gen.hilo_orm_key free of rows for dropped tables';
-- end issue 10 item 5


-- begin issue 19: headroom
-- ---------------------------------------------------------------------------
-- id_gen.headroom: every generator's headroom on this server, one row per
-- generator or key: how much of its space is used, when it runs out, and a
-- status (ok, warning, critical) with the reason in words.  One function per
-- generator, each reading only that generator's public state (snowflake_state(),
-- jsid_state(), id_gen.hilo_keys, decimal_id_state(), node_identity()), unioned by
-- the view; the thresholds come from one place, id_gen.headroom_thresholds(),
-- which reads the settings the generators' own WARNINGs read.  Nothing here
-- takes a lock a generator waits for: the state functions read shared memory
-- atomically, id_gen.hilo_keys reads each key's sequence as nextval() does.
-- Readable by pg_monitor; nothing secret (no key of id_encode) is shown.
-- ---------------------------------------------------------------------------
CREATE FUNCTION id_gen.headroom_thresholds(
    OUT warning_days integer, OUT critical_days integer,
    OUT warning_percent double precision, OUT critical_percent double precision,
    OUT clock_floor_step_ms integer, OUT max_clock_backward_ms integer)
    AS 'MODULE_PATHNAME', 'headroom_thresholds'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.headroom_thresholds() IS
    'the points where id_gen.headroom says warning and critical: id_gen.headroom_warning_days, _critical_days, _warning_percent, _critical_percent, and the clock floor''s step and id_gen.max_clock_backward_ms';

-- A row of the view.
CREATE TYPE id_gen.headroom_row AS (
    generator text,
    object text,
    used_fraction double precision,
    runs_out text,
    seconds_left double precision,
    status text,
    reason text,
    detail jsonb
);
COMMENT ON TYPE id_gen.headroom_row IS
    'a row of id_gen.headroom';

-- The grade: a time left (seconds) is judged against the days thresholds, a
-- used fraction against the percent thresholds; NULL judges nothing.  (In C:
-- it runs once per row.)
CREATE FUNCTION id_gen.headroom_status(used_fraction double precision, seconds_left double precision)
    RETURNS text
    AS 'MODULE_PATHNAME', 'headroom_status'
    LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.headroom_status(double precision, double precision) IS
    'ok, warning or critical for a used fraction (percent thresholds) or a time left in seconds (days thresholds)';

-- A time field that ends: the date, or 'never' beyond a century.
CREATE FUNCTION id_gen.headroom_runs_out(ends timestamptz, seconds_left double precision)
    RETURNS text
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT CASE WHEN seconds_left IS NULL THEN NULL
            WHEN seconds_left > 100 * 365.25 * 86400 THEN 'never'
            ELSE to_char(ends AT TIME ZONE 'UTC', 'YYYY-MM-DD') END
$$;
COMMENT ON FUNCTION id_gen.headroom_runs_out(timestamptz, double precision) IS
    'the date (UTC) a time field ends, or never when that is more than a century away';

-- snowflake_next() and jsid_next(): a 41-bit millisecond field from the epoch.
CREATE FUNCTION id_gen.headroom_time_field(generator text, time_bits integer, epoch timestamptz,
                                           ends timestamptz, time_left interval)
    RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT generator, 'this server',
       1 - s.left_s / extract(epoch FROM ends - epoch)::float8,
       id_gen.headroom_runs_out(ends, s.left_s),
       s.left_s,
       id_gen.headroom_status(NULL, s.left_s),
       format('the %s-bit millisecond field counted from %s ends %s: %s days left (warning within %s days, critical within %s)',
              time_bits, to_char(epoch AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
              to_char(ends AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
              floor(s.left_s / 86400)::bigint, t.warning_days, t.critical_days),
       jsonb_build_object('epoch', epoch, 'time_bits', time_bits, 'ends', ends)
  FROM (SELECT extract(epoch FROM time_left)::float8 AS left_s) s,
       id_gen.headroom_thresholds() t
$$;
COMMENT ON FUNCTION id_gen.headroom_time_field(text, integer, timestamptz, timestamptz, interval) IS
    'the headroom row of a generator whose time field ends';

CREATE FUNCTION id_gen.headroom_snowflake() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT h.* FROM @extschema@.snowflake_state() s,
       id_gen.headroom_time_field('snowflake', 41, s.epoch, s.time_exhausted_at, s.time_left) h
$$;
COMMENT ON FUNCTION id_gen.headroom_snowflake() IS
    'headroom of snowflake_next(): its time field (snowflake_state())';

CREATE FUNCTION id_gen.headroom_jsid() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT h.* FROM @extschema@.jsid_state() s,
       id_gen.headroom_time_field('jsid', 41, s.epoch, s.time_exhausted_at, s.time_left) h
$$;
COMMENT ON FUNCTION id_gen.headroom_jsid() IS
    'headroom of jsid_next(): its time field (jsid_state())';

-- timeuuid_next() and uuidv7(): 48-bit Unix milliseconds (until 10889), above
-- the same clock floor as snowflake (its lead is in the clock row).
CREATE FUNCTION id_gen.headroom_rfc9562() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = error
    AS $$
SELECT 'timeuuid', 'this server',
       (c.now_ms / 281474976710656.0)::float8,
       id_gen.headroom_runs_out(to_timestamp(281474976710.656), c.left_s),
       c.left_s,
       id_gen.headroom_status(NULL, c.left_s),
       format('the 48-bit Unix millisecond field of versions 7 and 6 ends %s; %s',
              to_char(to_timestamp(281474976710.656) AT TIME ZONE 'UTC', 'YYYY-MM-DD'),
              CASE WHEN c.lead_ms IS NULL THEN 'the clock floor is not loaded yet'
                   ELSE format('the clock floor is %s ms ahead of the clock', c.lead_ms) END),
       jsonb_build_object('time_bits', 48, 'ends', to_timestamp(281474976710.656),
                          'clock_floor', s.clock_floor, 'clock_floor_lead_ms', c.lead_ms)
  FROM @extschema@.snowflake_state() s,
       LATERAL (SELECT (extract(epoch FROM s.time_exhausted_at) - extract(epoch FROM s.time_left)) * 1000 AS now_ms) n,
       LATERAL (SELECT n.now_ms,
                       ((281474976710656 - n.now_ms) / 1000.0)::float8 AS left_s,
                       round(extract(epoch FROM s.clock_floor) * 1000 - n.now_ms)::bigint AS lead_ms) c
$$;
COMMENT ON FUNCTION id_gen.headroom_rfc9562() IS
    'headroom of timeuuid_next() and uuidv7(): the 48-bit time field, and the clock floor''s lead';

CREATE FUNCTION id_gen.clock_last_backward() RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'clock_last_backward'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.clock_last_backward() IS
    'when snowflake_next() or jsid_next() last saw the clock behind its last id since the server started (NULL: never)';

-- The clock: the persisted floor (snowflake_state().clock_floor) runs at most
-- one step ahead of the clock; further ahead, the clock went back.  Beyond the
-- step plus id_gen.max_clock_backward_ms the generators refuse to issue (and
-- after a restart refuse to start) until the clock passes the floor.  The
-- backward steps counted are snowflake_next()'s (jsid_state() has jsid's).
-- The WARNINGs of snowflake_state() are the snowflake row's to give.
CREATE FUNCTION id_gen.headroom_clock() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = error
    AS $$
SELECT 'clock', 'this server',
       NULL::double precision, NULL::text, NULL::double precision,
       CASE WHEN c.lead_ms > t.clock_floor_step_ms + t.max_clock_backward_ms THEN 'critical'
            WHEN c.lead_ms > t.clock_floor_step_ms THEN 'warning'
            ELSE 'ok' END,
       CASE WHEN c.lead_ms IS NULL
            THEN 'the clock floor is not loaded yet (no time-based id generated in this database since the start)'
            WHEN c.lead_ms > t.clock_floor_step_ms + t.max_clock_backward_ms
            THEN format('the clock is %s ms behind the persisted clock floor, more than the %s ms step plus id_gen.max_clock_backward_ms (%s ms): '
                        'time-based generators refuse until the clock passes it', c.lead_ms - t.clock_floor_step_ms,
                        t.clock_floor_step_ms, t.max_clock_backward_ms)
            WHEN c.lead_ms > t.clock_floor_step_ms
            THEN format('the clock went back: the floor is %s ms ahead of it (at most %s ms when the clock is right)',
                        c.lead_ms, t.clock_floor_step_ms)
            ELSE format('the clock floor is %s ms ahead of the clock (at most %s ms)', c.lead_ms, t.clock_floor_step_ms)
       END
       || CASE WHEN s.clock_backward_errors > 0
               THEN format('; %s calls refused since the start because the clock went back', s.clock_backward_errors)
               ELSE '' END
       || CASE WHEN lb.at IS NOT NULL
               THEN format('; last backward step seen %s', to_char(lb.at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'))
               ELSE '' END,
       -- (the counts since the start only inform: rate() of the exporter's
       -- metric says whether it happens now)
       jsonb_build_object('clock_floor', s.clock_floor, 'clock_floor_lead_ms', c.lead_ms,
                          'clock_backward_events', s.clock_backward_events,
                          'clock_backward_errors', s.clock_backward_errors,
                          'clock_floor_advances', s.clock_floor_advances,
                          'last_clock_backward', lb.at,
                          'max_clock_backward_ms', t.max_clock_backward_ms, 'since', s.started)
  FROM @extschema@.snowflake_state() s, id_gen.headroom_thresholds() t,
       LATERAL (SELECT id_gen.clock_last_backward() AS at) lb,
       LATERAL (SELECT round((extract(epoch FROM s.clock_floor) - extract(epoch FROM s.time_exhausted_at)
                                   + extract(epoch FROM s.time_left)) * 1000)::bigint AS lead_ms) c
$$;
COMMENT ON FUNCTION id_gen.headroom_clock() IS
    'the clock: how far the persisted clock floor runs ahead of it, and the backward steps seen since the start';

-- Hi/Lo: each key's used share of the ids it may issue: its node's range (own
-- sequences, when a worker id is set or comes from Citus), its sequence's
-- MAXVALUE, and bigint.  The sequences are read as the extension owner
-- (monitoring roles have no SELECT on them); nothing but positions is shown.
CREATE FUNCTION id_gen.headroom_hilo() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE SECURITY DEFINER
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT 'hilo', k.table_name::text,
       u.used,
       'unknown'::text,
       NULL::double precision,
       id_gen.headroom_status(u.used, NULL),
       format('%s%% of the ids up to %s used (reserved to %s); block size %s',
              round((u.used * 100)::numeric, 2), l.last_id, coalesce(k.reserved_to::text, 'none yet'), k.max_lo),
       jsonb_build_object('strategy', k.strategy, 'max_lo', k.max_lo, 'sequence', k.sequence::text,
                          'last_hi', k.last_hi, 'reserved_to', k.reserved_to,
                          'first_id', r.first_id, 'last_id', l.last_id,
                          'used_of_bigint', greatest(k.reserved_to, 0) / 9223372036854775807.0)
  FROM id_gen.hilo_keys k
  LEFT JOIN pg_catalog.pg_sequence q ON q.seqrelid = k.sequence
  -- this node's range, read once: only on Citus or with
  -- id_gen.hilo_node_ranges on (hilo_this_node_range); a single server's
  -- keys have the whole space whatever its worker id
  CROSS JOIN (SELECT nr.first_id AS node_first, nr.last_id AS node_last
                FROM @extschema@.node_identity() n
                LEFT JOIN LATERAL @extschema@.hilo_node_range(n.worker_id) nr
                       ON n.worker_id_source IN ('setting', 'citus group')
                      AND (pg_catalog.current_setting('id_gen.hilo_node_ranges', true) = 'on'
                           OR pg_catalog.to_regclass('pg_catalog.pg_dist_local_group') IS NOT NULL)) nd
  CROSS JOIN LATERAL (
       SELECT CASE WHEN k.own_sequence AND nd.node_first IS NOT NULL THEN nd.node_first ELSE 1 END AS first_id,
              CASE WHEN k.own_sequence AND nd.node_first IS NOT NULL THEN nd.node_last
                   ELSE 9223372036854775807 END AS range_last) r
  CROSS JOIN LATERAL (
       SELECT least(r.range_last,
                    coalesce(id_gen.hilo_reserved_to(k.strategy, q.seqmax, k.max_lo), 9223372036854775807)) AS last_id) l
  CROSS JOIN LATERAL (
       SELECT least(1.0, greatest(0.0, (coalesce(k.reserved_to, r.first_id - 1) - r.first_id + 1)::float8
                                       / (l.last_id - r.first_id + 1)::float8)) AS used) u
$$;
REVOKE ALL ON FUNCTION id_gen.headroom_hilo() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.headroom_hilo() IS
    'headroom of each Hi/Lo key (id_gen.hilo_keys): used share of its node''s range, its sequence and bigint';

-- decimal_id(): the server's generator ids (one per start and database, and
-- one each time a counter fills), and this database's counter.
CREATE FUNCTION id_gen.headroom_decimal_id() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT 'decimal_id counter', current_database()::text,
       u.used, 'unknown'::text, NULL::double precision,
       id_gen.headroom_status(u.used, NULL),
       format('%s of 922337202 ids of generator id %s (%s) reserved in this database; when they are used up, a superuser gives the database a new generator id',
              coalesce(s.reserved_to, 0), s.generator_id, s.generator_source),
       jsonb_build_object('generator_id', s.generator_id, 'generator_source', s.generator_source,
                          'counter', s.counter, 'reserved_to', s.reserved_to,
                          'counter_left', s.counter_left, 'launch_id', s.launch_id)
  FROM @extschema@.decimal_id_state() s,
       LATERAL (SELECT coalesce(s.reserved_to, 0) / 922337202.0::float8 AS used) u
$$;
COMMENT ON FUNCTION id_gen.headroom_decimal_id() IS
    'headroom of decimal_id(): this database''s counter under its generator id (decimal_id_state())';

-- Node identity: where the worker id and launch id come from.  Collisions
-- between nodes are not looked for here (that asks every node):
-- node_identity_check() on Citus, node_identity_collisions() elsewhere.
CREATE FUNCTION id_gen.headroom_node_identity() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT 'node identity', 'this server',
       NULL::double precision, NULL::text, NULL::double precision,
       CASE WHEN n.worker_id IS NULL THEN 'critical' ELSE 'ok' END,
       CASE WHEN n.worker_id IS NULL
            THEN format('no usable worker id (%s): snowflake_next() and jsid_next() refuse', n.worker_id_source)
            ELSE format('worker id %s (%s), launch id %s (%s); collisions between nodes: see node_identity_check()',
                        n.worker_id, CASE n.worker_id_source WHEN 'setting' THEN 'set' ELSE 'automatic: ' || n.worker_id_source END,
                        coalesce(n.launch_id::text, 'none'),
                        CASE n.launch_id_source WHEN 'setting' THEN 'set' ELSE 'automatic: ' || n.launch_id_source END) END,
       to_jsonb(n)
  FROM @extschema@.node_identity() n
$$;
COMMENT ON FUNCTION id_gen.headroom_node_identity() IS
    'this node''s worker id and launch id and where they come from (node_identity())';

CREATE VIEW id_gen.headroom AS
SELECT * FROM id_gen.headroom_snowflake()
UNION ALL SELECT * FROM id_gen.headroom_jsid()
UNION ALL SELECT * FROM id_gen.headroom_rfc9562()
UNION ALL SELECT * FROM id_gen.headroom_clock()
UNION ALL SELECT * FROM id_gen.headroom_hilo()
UNION ALL SELECT * FROM id_gen.headroom_decimal_id()
UNION ALL SELECT * FROM id_gen.headroom_node_identity();
COMMENT ON VIEW id_gen.headroom IS
    'every id generator''s headroom on this server: space used, when it runs out, status (ok, warning, critical) and why';
REVOKE ALL ON id_gen.headroom FROM PUBLIC;
GRANT SELECT ON id_gen.headroom TO pg_monitor;
GRANT EXECUTE ON FUNCTION id_gen.headroom_hilo() TO pg_monitor;
-- end issue 19
