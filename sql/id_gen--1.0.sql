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
