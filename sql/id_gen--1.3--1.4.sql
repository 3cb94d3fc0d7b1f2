/* sql/id_gen--1.3--1.4.sql: state where PostgreSQL keeps it */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '1.4'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Hi/Lo
-- ---------------------------------------------------------------------------

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
