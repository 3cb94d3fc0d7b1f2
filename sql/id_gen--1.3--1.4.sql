/* sql/id_gen--1.3--1.4.sql: state where PostgreSQL keeps it */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '1.4'" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Hi/Lo
-- ---------------------------------------------------------------------------

-- ---------------------------------------------------------------------------
-- Clock floor, epoch, decimal_id
-- ---------------------------------------------------------------------------

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
