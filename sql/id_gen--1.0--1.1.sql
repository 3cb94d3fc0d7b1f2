/* sql/id_gen--1.0--1.1.sql: snowflake_next() and decimal_id() */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '1.1'" to load this file. \quit

-- The persistent clock floor of this database (Unix ms): no snowflake id is
-- issued at a time above it, and it is WAL-logged and flushed before it is
-- raised, so after a crash, a restart or a failover the generators start
-- above it.  Set with setval semantics by the extension only.
CREATE SEQUENCE id_gen.clock_floor MINVALUE 0 START 0 NO CYCLE;
SELECT pg_catalog.setval('id_gen.clock_floor', 0, true);
SELECT pg_catalog.pg_extension_config_dump('id_gen.clock_floor', '');
REVOKE ALL ON SEQUENCE id_gen.clock_floor FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.clock_floor IS
    'persisted clock floor (Unix ms) of the server-wide generators in this database';

-- decimal_id() generator ids: one is taken per server start and database
-- (and when a generator's counter is used up); never cycles.
CREATE SEQUENCE id_gen.decimal_generator MINVALUE 0 MAXVALUE 99999 START 0 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.decimal_generator', '');
REVOKE ALL ON SEQUENCE id_gen.decimal_generator FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.decimal_generator IS
    'generator ids taken by decimal_id() in this database (0..99999, no cycle)';

-- Generators write WAL-logged state now and then (like nextval): PARALLEL UNSAFE.
CREATE FUNCTION snowflake_next() RETURNS bigint
    AS 'MODULE_PATHNAME', 'snowflake_next'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION snowflake_next() IS
    'next snowflake id of this server: 41-bit ms since id_gen.snowflake_epoch, 10-bit id_gen.worker_id, 12-bit sequence; unique and strictly increasing';

CREATE FUNCTION snowflake_next_batch(n integer) RETURNS SETOF bigint
    AS 'MODULE_PATHNAME', 'snowflake_next_batch'
    LANGUAGE C VOLATILE PARALLEL UNSAFE ROWS 100;
COMMENT ON FUNCTION snowflake_next_batch(integer) IS
    'n (1..4096) consecutive snowflake ids of one millisecond, reserved in one atomic step';

-- Decoding depends on the server's epoch setting: STABLE, not IMMUTABLE.
CREATE FUNCTION snowflake_decode(id bigint, OUT ts timestamptz, OUT worker_id integer, OUT sequence integer)
    AS 'MODULE_PATHNAME', 'snowflake_decode'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_decode(bigint) IS
    'time (ms), worker id and sequence of a snowflake id';

CREATE FUNCTION snowflake_min_id(ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'snowflake_min_id'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_min_id(timestamptz) IS
    'smallest snowflake id of any worker at that time: WHERE id >= snowflake_min_id(t) selects ids issued at or after t';

CREATE FUNCTION snowflake_state(
    OUT worker_id integer, OUT epoch timestamptz, OUT last_id bigint, OUT last_time timestamptz,
    OUT ids_issued bigint, OUT next_ms_waits bigint, OUT clock_backward_events bigint,
    OUT clock_backward_errors bigint, OUT clock_floor timestamptz, OUT clock_floor_advances bigint,
    OUT time_exhausted_at timestamptz, OUT time_left interval, OUT started timestamptz)
    AS 'MODULE_PATHNAME', 'snowflake_state'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_state() IS
    'state of this server''s snowflake generator since it started; warns when the 41-bit time runs out within a year';

CREATE FUNCTION decimal_id() RETURNS bigint
    AS 'MODULE_PATHNAME', 'decimal_id'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION decimal_id() IS
    'counter * 10^10 + generator_id * 10^5 + id_gen.launch_id, strictly increasing within a generator';

CREATE FUNCTION decimal_id_decode(id bigint, OUT counter bigint, OUT generator_id integer, OUT launch_id integer)
    AS 'MODULE_PATHNAME', 'decimal_id_decode'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decimal_id_decode(bigint) IS
    'counter, generator id and launch id of a decimal_id';

CREATE FUNCTION decimal_id_state(
    OUT launch_id integer, OUT generator_id integer, OUT counter bigint,
    OUT generators_taken bigint, OUT generator_ids_left bigint)
    AS 'MODULE_PATHNAME', 'decimal_id_state'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION decimal_id_state() IS
    'decimal_id() state of this database: launch id, current generator id and counter, generator ids taken since start and left';

-- Test hook: jump this database's decimal_id counter forward (never back).
CREATE FUNCTION id_gen.decimal_id_skip(counter bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'decimal_id_skip'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION id_gen.decimal_id_skip(bigint) FROM PUBLIC;
COMMENT ON FUNCTION id_gen.decimal_id_skip(bigint) IS
    'test hook (superuser): move this database''s decimal_id counter forward to reach its end in tests';
