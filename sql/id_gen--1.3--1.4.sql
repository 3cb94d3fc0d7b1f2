/* sql/id_gen--1.3--1.4.sql: state where PostgreSQL keeps it */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '1.4'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Hi/Lo
-- ---------------------------------------------------------------------------

-- A dropped table's own key sequence goes with CASCADE: views other roles made
-- on it (a view needs no privilege on what it reads) must not veto the owner's
-- DROP TABLE ... CASCADE or DROP SCHEMA ... CASCADE.
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
                EXECUTE format('DROP SEQUENCE IF EXISTS %s CASCADE', to_regclass(k.seq));
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

-- A subscriber's keys are its own.  A publisher's DROP TABLE deletes the
-- table's key row, and logical replication sends that DELETE with the row's
-- regclass printed as a bare OID (the table is gone), which on the subscriber
-- names whatever table has that OID there: its key would go while sessions
-- hold blocks of it.  The apply worker skips replicated deletes of key rows
-- (a trigger enabled for replica sessions only); the subscriber's own DROP
-- TABLE still removes its key.
CREATE FUNCTION id_gen.hilo_key_keep_on_subscriber() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION id_gen.hilo_key_keep_on_subscriber() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.hilo_key_keep_on_subscriber() IS
    'skips deletes of id_gen.hilo_key rows that logical replication applies: a subscriber''s keys are its own';
CREATE TRIGGER hilo_key_keep_on_subscriber BEFORE DELETE ON id_gen.hilo_key
    FOR EACH ROW EXECUTE FUNCTION id_gen.hilo_key_keep_on_subscriber();
ALTER TABLE id_gen.hilo_key ENABLE REPLICA TRIGGER hilo_key_keep_on_subscriber;

-- ---------------------------------------------------------------------------
-- Clock floor, epoch, decimal_id
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- timeuuid
-- ---------------------------------------------------------------------------
