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

-- Snowflake ids and jsids of this database counted from an epoch earlier
-- than the server's (a database restored from another server) reach up to
-- this time (Unix ms, converted into the server's epoch): snowflake_next()
-- and jsid_next() refuse in this database alone until the clock passes it.
-- 0: none.  Set by the extension when it reads such a floor.
CREATE SEQUENCE id_gen.snowflake_floor MINVALUE 0 START 0 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.snowflake_floor', '');
REVOKE ALL ON SEQUENCE id_gen.snowflake_floor FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.snowflake_floor IS
    'time (Unix ms, in the server''s epoch) before which snowflake and jsid ids of this database, counted from an earlier epoch, would not be exceeded';

-- The worker id whose snowflake ids and jsids id_gen.clock_floor covers
-- (-1: any).  A floor read further ahead of the clock than a reservation
-- runs (the clock ran ahead, then a restart) refuses that worker id alone
-- until the clock passes it; another worker id, and timeuuid_next() above
-- the floor, go on.  Set by the extension only.
CREATE SEQUENCE id_gen.clock_worker MINVALUE -1 MAXVALUE 1023 START -1 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.clock_worker', '');
REVOKE ALL ON SEQUENCE id_gen.clock_worker FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.clock_worker IS
    'worker id (-1: any) of the snowflake and jsid ids up to id_gen.clock_floor in this database';

-- The clock: the persisted floor (snowflake_state().clock_floor) runs at most
-- one step ahead of the clock; further ahead, the clock went back.  Beyond the
-- step plus id_gen.max_clock_backward_ms snowflake_next() and jsid_next()
-- refuse until the clock passes the floor; after a restart only under the
-- worker id kept with it (id_gen.clock_worker), and timeuuid_next() continues
-- above it.  The backward steps counted are snowflake_next()'s (jsid_state()
-- has jsid's).
-- The WARNINGs of snowflake_state() are the snowflake row's to give.
CREATE OR REPLACE FUNCTION id_gen.headroom_clock() RETURNS SETOF id_gen.headroom_row
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
                        'snowflake_next() and jsid_next() refuse until it passes the floor (after a restart only under the worker id '
                        'that issued ids up to it: another id_gen.worker_id is the way out), timeuuid_next() continues above it',
                        c.lead_ms - t.clock_floor_step_ms,
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

-- decimal_id(): the generator id is claimed (see id_gen--1.4.sql); the
-- update claims the one the counter ran with under 1.3 when no other
-- database has it, else a new one.
CREATE SEQUENCE id_gen.decimal_claim MINVALUE 0 START 0 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.decimal_claim', '');
REVOKE ALL ON SEQUENCE id_gen.decimal_claim FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.decimal_claim IS
    'decimal_id() generator id claimed by this database: the claiming database''s OID * 100000 + the generator id';
CREATE FUNCTION id_gen.decimal_id_claim(new_generator boolean DEFAULT false, generator_id integer DEFAULT NULL)
    RETURNS integer
    AS 'MODULE_PATHNAME', 'decimal_id_claim'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION id_gen.decimal_id_claim(boolean, integer) FROM PUBLIC;
COMMENT ON FUNCTION id_gen.decimal_id_claim(boolean, integer) IS
    'superuser: claim a decimal_id() generator id for this database (kept if valid, unless new_generator), one no other database has and this one never had';
SELECT id_gen.decimal_id_claim();
-- Granted like a sequence's USAGE: to the roles that write.
REVOKE EXECUTE ON FUNCTION decimal_id() FROM PUBLIC;

-- Snowflake and jsid start spread (issue 22): the headroom rows show what
-- id_gen.snowflake_start_spread leaves of a millisecond.
CREATE FUNCTION id_gen.headroom_ms_capacity(generator text, OUT start_spread integer,
                                            OUT fewest_per_ms integer, OUT saturated_per_ms integer)
    AS 'MODULE_PATHNAME', 'headroom_ms_capacity'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.headroom_ms_capacity(text) IS
    'what id_gen.snowflake_start_spread leaves of a millisecond of snowflake or jsid ids: the spread applied, the fewest ids a millisecond holds, the ids per millisecond at saturation';

CREATE OR REPLACE FUNCTION id_gen.headroom_snowflake() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT h.generator, h.object, h.used_fraction, h.runs_out, h.seconds_left, h.status, h.reason,
       h.detail || jsonb_build_object('start_spread', c.start_spread, 'ids_per_ms_fewest', c.fewest_per_ms,
                                      'ids_per_ms_saturated', c.saturated_per_ms)
  FROM @extschema@.snowflake_state() s,
       id_gen.headroom_time_field('snowflake', 41, s.epoch, s.time_exhausted_at, s.time_left) h,
       id_gen.headroom_ms_capacity('snowflake') c
$$;
COMMENT ON FUNCTION id_gen.headroom_snowflake() IS
    'headroom of snowflake_next(): its time field (snowflake_state()), and what id_gen.snowflake_start_spread leaves of a millisecond';

CREATE OR REPLACE FUNCTION id_gen.headroom_jsid() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT h.generator, h.object, h.used_fraction, h.runs_out, h.seconds_left, h.status, h.reason,
       h.detail || jsonb_build_object('start_spread', c.start_spread, 'ids_per_ms_fewest', c.fewest_per_ms,
                                      'ids_per_ms_saturated', c.saturated_per_ms)
  FROM @extschema@.jsid_state() s,
       id_gen.headroom_time_field('jsid', 41, s.epoch, s.time_exhausted_at, s.time_left) h,
       id_gen.headroom_ms_capacity('jsid') c
$$;
COMMENT ON FUNCTION id_gen.headroom_jsid() IS
    'headroom of jsid_next(): its time field (jsid_state()), and what id_gen.snowflake_start_spread leaves of a millisecond';

-- ---------------------------------------------------------------------------
-- timeuuid
-- ---------------------------------------------------------------------------

-- The (uuid, uuid) members of timeuuid's btree and hash families: two uuids
-- compared as timeuuids (time order, both checked), which btree and hash look
-- up for the uuid side of the cross-type members (= ANY (uuid[]) through an
-- index, NOT IN (SELECT uuid), merge joins).  Names of their own: uuid's =,
-- < ... order by bytes, and uuid's = in these families would let plain uuid
-- hash joins pick timeuuid's checked hash function.
CREATE FUNCTION uuid_time_eq(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_ne(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_lt(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_le(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_gt(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_ge(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_time_cmp(uuid, uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'uuid_time_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_time_eq(uuid, uuid) IS 'implementation of ~=~: two uuids equal as timeuuids';
COMMENT ON FUNCTION uuid_time_ne(uuid, uuid) IS 'implementation of ~<>~: two uuids not equal as timeuuids';
COMMENT ON FUNCTION uuid_time_lt(uuid, uuid) IS 'implementation of ~<~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_le(uuid, uuid) IS 'implementation of ~<=~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_gt(uuid, uuid) IS 'implementation of ~>~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_ge(uuid, uuid) IS 'implementation of ~>=~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_cmp(uuid, uuid) IS 'btree comparison of two uuids as timeuuids, in time order';

CREATE OPERATOR ~=~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_eq,
    COMMUTATOR = ~=~, NEGATOR = ~<>~, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR ~<>~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_ne,
    COMMUTATOR = ~<>~, NEGATOR = ~=~, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR ~<~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_lt,
    COMMUTATOR = ~>~, NEGATOR = ~>=~, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR ~<=~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_le,
    COMMUTATOR = ~>=~, NEGATOR = ~>~, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR ~>~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_gt,
    COMMUTATOR = ~<~, NEGATOR = ~<=~, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR ~>=~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_ge,
    COMMUTATOR = ~<=~, NEGATOR = ~<~, RESTRICT = scalargesel, JOIN = scalargejoinsel
);
COMMENT ON OPERATOR ~=~ (uuid, uuid) IS 'equal as timeuuids';
COMMENT ON OPERATOR ~<>~ (uuid, uuid) IS 'not equal as timeuuids';
COMMENT ON OPERATOR ~<~ (uuid, uuid) IS 'earlier than, as timeuuids';
COMMENT ON OPERATOR ~<=~ (uuid, uuid) IS 'earlier than or equal, as timeuuids';
COMMENT ON OPERATOR ~>~ (uuid, uuid) IS 'later than, as timeuuids';
COMMENT ON OPERATOR ~>=~ (uuid, uuid) IS 'later than or equal, as timeuuids';

ALTER OPERATOR FAMILY timeuuid_ops USING btree ADD
    OPERATOR 1 ~<~ (uuid, uuid),
    OPERATOR 2 ~<=~ (uuid, uuid),
    OPERATOR 3 ~=~ (uuid, uuid),
    OPERATOR 4 ~>=~ (uuid, uuid),
    OPERATOR 5 ~>~ (uuid, uuid),
    FUNCTION 1 (uuid, uuid) uuid_time_cmp(uuid, uuid);

ALTER OPERATOR FAMILY timeuuid_hash_ops USING hash ADD
    OPERATOR 1 ~=~ (uuid, uuid);

-- With the uuid side's ordering in the family, the cross-type = can merge
-- (1.3 left it out: a merge join would have sorted the uuid side in byte
-- order).  ALTER OPERATOR ... SET (MERGES) exists from 17 on; before, only
-- pg_operator itself can be changed (dropping and recreating the operators
-- would fail on, or drop, the views and indexes that use them).
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 170000 THEN
        EXECUTE 'ALTER OPERATOR = (timeuuid, uuid) SET (MERGES)';
        EXECUTE 'ALTER OPERATOR = (uuid, timeuuid) SET (MERGES)';
    ELSE
        UPDATE pg_catalog.pg_operator SET oprcanmerge = true
         WHERE oid IN ('=(timeuuid, uuid)'::pg_catalog.regoperator,
                       '=(uuid, timeuuid)'::pg_catalog.regoperator);
    END IF;
END
$$;

-- ---------------------------------------------------------------------------
-- Publications of sequences (PostgreSQL 19)
-- ---------------------------------------------------------------------------

-- From 19 on, a publication FOR ALL SEQUENCES copies the value of every
-- sequence of the database to its subscribers (at CREATE SUBSCRIPTION and at
-- each ALTER SUBSCRIPTION ... REFRESH SEQUENCES), lower values too.  id_gen
-- keeps its state in sequences: Hi/Lo keys, the clock floor and epoch,
-- decimal_id's counter.  A subscriber that writes would then hand out again
-- ids it has handed out, or refuse for another node's clock.  19 has no
-- per-sequence list and no exception for sequences, so a database with
-- id_gen publishes no sequences: the ids themselves travel with the tables.
CREATE FUNCTION id_gen.check_no_sequence_publication() RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
    pub name;
BEGIN
    IF current_setting('server_version_num')::int < 190000 THEN
        RETURN;
    END IF;
    EXECUTE 'SELECT pubname FROM pg_catalog.pg_publication WHERE puballsequences LIMIT 1' INTO pub;
    IF pub IS NOT NULL THEN
        RAISE EXCEPTION 'publication "%" would publish the sequences id_gen keeps its state in', pub
            USING ERRCODE = 'feature_not_supported',
                  DETAIL = 'Hi/Lo keys, the clock floor and decimal_id''s counter are sequences; a subscriber that writes must keep its own values, never receive the publisher''s.',
                  HINT = 'Publish tables only (FOR ALL TABLES, FOR TABLE, FOR TABLES IN SCHEMA): the ids travel with the rows.';
    END IF;
END
$$;
COMMENT ON FUNCTION id_gen.check_no_sequence_publication() IS
    'raises an error if a publication of this database publishes all sequences (PostgreSQL 19+): it would copy id_gen''s state to subscribers';
CREATE FUNCTION id_gen.refuse_sequence_publication() RETURNS event_trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
    AS 'BEGIN PERFORM id_gen.check_no_sequence_publication(); END';
REVOKE ALL ON FUNCTION id_gen.refuse_sequence_publication() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.refuse_sequence_publication() IS
    'event trigger: refuses CREATE or ALTER PUBLICATION that publishes all sequences (PostgreSQL 19+)';
CREATE EVENT TRIGGER id_gen_refuse_sequence_publication ON ddl_command_end
    WHEN TAG IN ('CREATE PUBLICATION', 'ALTER PUBLICATION')
    EXECUTE FUNCTION id_gen.refuse_sequence_publication();
COMMENT ON EVENT TRIGGER id_gen_refuse_sequence_publication IS
    'keeps the sequences id_gen keeps its state in out of publications (PostgreSQL 19+)';
-- A database that publishes sequences already cannot take the extension.
SELECT id_gen.check_no_sequence_publication();
