/* sql/id_gen--2.0.0.sql: the whole extension at version 2.0.0 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION id_gen" to load this file. \quit

-- An installation of an earlier version reaches the same objects through the
-- upgrade scripts (id_gen--1.0.sql, then id_gen--1.0--1.1.sql and so on);
-- sql/upgrade.sql checks that both ways end alike.

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

-- Table t's key is what a serial is: the one sequence OWNED BY the column
-- of t whose default calls hilo_next('t').  The sequence counts ids (value
-- v gives v - INCREMENT + 1 .. v; INCREMENT BY is the block size), so
-- PostgreSQL drops, dumps, restores, moves, alters and replicates it with
-- the table.  Defaults stay as written: no event trigger, no key table.
CREATE FUNCTION hilo_next(tbl regclass) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_next'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_next(regclass) IS
    'next id of the table''s Hi/Lo key (the sequence owned by the column whose default this is); needs INSERT on the table or USAGE on that sequence, as a serial''s default';

-- An ORM's sequence, named as nextval('app_seq') names it, under the ORM's formula.
CREATE FUNCTION hilo_next(seq regclass, strategy text, max_lo integer DEFAULT NULL) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_next_orm'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_next(regclass, text, integer) IS
    'next id from an application''s sequence under an ORM''s formula (pooled_lo, pooled, pooled_hibernate3; classic and legacy with max_lo); needs what nextval() needs';

CREATE FUNCTION hilo_create_key(tbl regclass, col name DEFAULT NULL, max_lo integer DEFAULT NULL)
    RETURNS regclass
    AS 'MODULE_PATHNAME', 'hilo_create_key'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_create_key(regclass, name, integer) IS
    'makes the sequence of the table''s Hi/Lo key: <table>_<column>_seq, AS the column''s type, INCREMENT max_lo, START above the column''s ids, OWNED BY the column; returns it; table owner only';

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

-- Every key, read from the catalog (the tables' defaults and owned sequences).
CREATE FUNCTION id_gen.hilo_key_list(OUT table_name regclass, OUT column_name name, OUT sequence regclass,
                                     OUT strategy text, OUT max_lo integer, OUT own_sequence boolean)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'hilo_key_list'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.hilo_key_list() IS
    'every Hi/Lo key of this database: each default calling hilo_next(), with its sequence';

-- Where each key stands.  reserved_to is the highest id any backend may have
-- handed out or hold in its block; every later block starts above it.
-- last_hi (the sequence's last value) shows to roles that may read the sequence.
CREATE VIEW id_gen.hilo_keys AS
SELECT k.table_name,
       k.strategy,
       id_gen.hilo_block_size(k.strategy, k.max_lo, s.seqincrement) AS max_lo,
       k.sequence,
       k.own_sequence,
       v.last_hi,
       id_gen.hilo_reserved_to(k.strategy, v.last_hi,
                               id_gen.hilo_block_size(k.strategy, k.max_lo, s.seqincrement)) AS reserved_to,
       k.column_name
  FROM id_gen.hilo_key_list() k
  JOIN pg_catalog.pg_sequence s ON s.seqrelid OPERATOR(pg_catalog.=) k.sequence
  CROSS JOIN LATERAL (
       SELECT CASE WHEN pg_catalog.has_sequence_privilege(k.sequence, 'SELECT')
                   THEN pg_catalog.pg_sequence_last_value(k.sequence) END AS last_hi) v;
COMMENT ON VIEW id_gen.hilo_keys IS
    'Hi/Lo keys: table, column, formula, block size, sequence, its last value and the highest id reserved so far';
GRANT SELECT ON id_gen.hilo_keys TO PUBLIC;

-- ---------------------------------------------------------------------------
-- Clock floor, snowflake, decimal_id
-- ---------------------------------------------------------------------------

-- The persistent floors of the time-ordered streams in this database, one
-- per stream, each a word of its stream: the largest snowflake id (jsid) of
-- the reserved millisecond for every worker id and sequence value, the
-- largest v7 state word of it.  WAL-logged and flushed before an id above
-- one is returned, so after a crash, a restart, a failover, a PITR, a dump
-- and restore or pg_upgrade the stream continues above it, also with the
-- clock behind (ids then run ahead of the clock).  Set with setval
-- semantics by the extension only.
CREATE SEQUENCE id_gen.snowflake_floor MINVALUE 0 START 0 NO CYCLE;
SELECT pg_catalog.setval('id_gen.snowflake_floor', 0, true);
SELECT pg_catalog.pg_extension_config_dump('id_gen.snowflake_floor', '');
REVOKE ALL ON SEQUENCE id_gen.snowflake_floor FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.snowflake_floor IS
    'persisted floor of snowflake_next() in this database: no snowflake id above it is issued before it is raised';
CREATE SEQUENCE id_gen.jsid_floor MINVALUE 0 START 0 NO CYCLE;
SELECT pg_catalog.setval('id_gen.jsid_floor', 0, true);
SELECT pg_catalog.pg_extension_config_dump('id_gen.jsid_floor', '');
REVOKE ALL ON SEQUENCE id_gen.jsid_floor FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.jsid_floor IS
    'persisted floor of jsid_next() in this database: no jsid above it is issued before it is raised';
CREATE SEQUENCE id_gen.timeuuid_floor MINVALUE -9223372036854775808 START 0 NO CYCLE;
SELECT pg_catalog.setval('id_gen.timeuuid_floor', 0, true);
SELECT pg_catalog.pg_extension_config_dump('id_gen.timeuuid_floor', '');
REVOKE ALL ON SEQUENCE id_gen.timeuuid_floor FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.timeuuid_floor IS
    'persisted floor of timeuuid_next() and uuidv7() in this database: the 64-bit state word (ms, fraction, counter; negative from the year 2248, compared unsigned) no id above which is issued before it is raised';
-- Called by this script only: a reinstall while the server runs carries the
-- floors, still in shared memory, into the new sequences.
CREATE FUNCTION id_gen.clock_carry_floors() RETURNS void
    AS 'MODULE_PATHNAME', 'clock_carry_floors'
    LANGUAGE C VOLATILE PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION id_gen.clock_carry_floors() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.clock_carry_floors() IS
    'install script only: puts the floors of this database''s time-ordered streams, kept in shared memory since the server started, into the new sequences';
SELECT id_gen.clock_carry_floors();

CREATE FUNCTION id_gen.clock_streams(OUT stream text, OUT last_time timestamptz, OUT lead_ms bigint,
    OUT ahead_since timestamptz, OUT floor timestamptz, OUT floor_advances bigint,
    OUT wall_clock_ahead_ms bigint)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'clock_streams'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.clock_streams() IS
    'the time-ordered streams of this server: the time of the last id, how far it is ahead of the clock and since when, this database''s floor; how far the wall clock is ahead of the time the generators follow (a forward step not confirmed)';

-- decimal_id(): a database's generator id is its own for its life
-- (id_gen.decimal_generator_id set for it, else 50000 + its OID % 50000);
-- its counter is reserved ahead in id_gen.decimal_counter (WAL-flushed
-- before use), so a dump, pg_upgrade, a standby and a crash carry it.
CREATE SEQUENCE id_gen.decimal_counter MINVALUE 0 MAXVALUE 922337202 START 0 NO CYCLE;
SELECT pg_catalog.pg_extension_config_dump('id_gen.decimal_counter', '');
REVOKE ALL ON SEQUENCE id_gen.decimal_counter FROM PUBLIC;
COMMENT ON SEQUENCE id_gen.decimal_counter IS
    'decimal_id() counter values reserved in this database (its ids stay below the value + 1)';
-- The generator id this database claimed: its OID * 10^5 + the generator
-- id, written beside id_gen.decimal_generator_id in pg_db_role_setting
-- (ALTER DATABASE ... SET) by id_gen.decimal_id_claim().  decimal_id() runs
-- only while both agree and no other database has the id (unless this one
-- claimed it): a copy (a template, a restored dump) claims its own.
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
    OUT ahead_since timestamptz, OUT clock_floor timestamptz, OUT clock_floor_advances bigint,
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
-- Granted like a sequence's USAGE: to the roles that write (a DEFAULT
-- decimal_id() runs as the inserting role); a generator id's ids are finite.
REVOKE EXECUTE ON FUNCTION decimal_id() FROM PUBLIC;

CREATE FUNCTION decimal_id_decode(id bigint, OUT counter bigint, OUT generator_id integer, OUT launch_id integer)
    AS 'MODULE_PATHNAME', 'decimal_id_decode'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION decimal_id_decode(bigint) IS
    'counter, generator id and launch id of a decimal_id';

CREATE FUNCTION decimal_id_state(
    OUT launch_id integer, OUT generator_id integer, OUT refusal text,
    OUT counter bigint, OUT reserved_to bigint, OUT counter_left bigint)
    AS 'MODULE_PATHNAME', 'decimal_id_state'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION decimal_id_state() IS
    'decimal_id() state of this database: launch id, generator id (or why decimal_id() refuses), counter, reserved end, counter values left';

-- Test hook: jump this database's decimal_id counter forward (never back).
CREATE FUNCTION id_gen.decimal_id_skip(counter bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'decimal_id_skip'
    LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION id_gen.decimal_id_skip(bigint) FROM PUBLIC;
COMMENT ON FUNCTION id_gen.decimal_id_skip(bigint) IS
    'test hook (superuser): move this database''s decimal_id counter forward to reach its end in tests';

-- ---------------------------------------------------------------------------
-- timeuuid: a 16-byte UUID stored, printed and sent exactly like uuid, that
-- holds only time-based UUIDs (RFC 9562 versions 1, 6 and 7, plus the nil and
-- max UUIDs as sentinels) and sorts them by the time they carry.
-- ---------------------------------------------------------------------------

CREATE TYPE timeuuid;

CREATE FUNCTION timeuuid_in(cstring) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_in'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_out(timeuuid) RETURNS cstring
    AS 'MODULE_PATHNAME', 'timeuuid_out'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_recv(internal) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_recv'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_send(timeuuid) RETURNS bytea
    AS 'MODULE_PATHNAME', 'timeuuid_send'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Same physical representation as uuid (pg_type: typlen 16, typbyval false,
-- typalign c, typstorage p), so the binary cast below is sound.
CREATE TYPE timeuuid (
    INPUT = timeuuid_in,
    OUTPUT = timeuuid_out,
    RECEIVE = timeuuid_recv,
    SEND = timeuuid_send,
    INTERNALLENGTH = 16,
    ALIGNMENT = char,
    STORAGE = plain,
    CATEGORY = 'U'
);
COMMENT ON TYPE timeuuid IS
    'time-ordered UUID (RFC 9562 versions 1, 6, 7): stored like uuid, sorted by the time it carries';

-- Casts.  timeuuid -> uuid is binary and implicit: every timeuuid is a
-- valid uuid, so whatever takes a uuid takes a timeuuid.  uuid -> timeuuid
-- cannot be binary: a binary-coercible cast runs no code, so a version 4
-- uuid would become a timeuuid unchecked and break the time order's
-- assumptions; it is a function that validates (ERROR 22023), applied on
-- assignment (INSERT, UPDATE, COPY from a uuid).  Comparisons between the
-- two types use the cross-type operators at the end of this file (time
-- order, served by timeuuid's indexes), not uuid's byte order.
CREATE FUNCTION timeuuid(uuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_from_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid(uuid) IS
    'cast uuid to timeuuid, rejecting versions other than 1, 6 and 7';
CREATE CAST (timeuuid AS uuid) WITHOUT FUNCTION AS IMPLICIT;
CREATE CAST (uuid AS timeuuid) WITH FUNCTION timeuuid(uuid) AS ASSIGNMENT;

-- Comparison.
CREATE FUNCTION timeuuid_eq(timeuuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_ne(timeuuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_lt(timeuuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_le(timeuuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_gt(timeuuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_ge(timeuuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_cmp(timeuuid, timeuuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'timeuuid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_sortsupport(internal) RETURNS void
    AS 'MODULE_PATHNAME', 'timeuuid_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_hash(timeuuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'timeuuid_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_hash_extended(timeuuid, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'timeuuid_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_smaller(timeuuid, timeuuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION timeuuid_larger(timeuuid, timeuuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION timeuuid_eq(timeuuid, timeuuid) IS 'implementation of = for timeuuid';
COMMENT ON FUNCTION timeuuid_ne(timeuuid, timeuuid) IS 'implementation of <> for timeuuid';
COMMENT ON FUNCTION timeuuid_lt(timeuuid, timeuuid) IS 'implementation of < for timeuuid (time order)';
COMMENT ON FUNCTION timeuuid_le(timeuuid, timeuuid) IS 'implementation of <= for timeuuid (time order)';
COMMENT ON FUNCTION timeuuid_gt(timeuuid, timeuuid) IS 'implementation of > for timeuuid (time order)';
COMMENT ON FUNCTION timeuuid_ge(timeuuid, timeuuid) IS 'implementation of >= for timeuuid (time order)';
COMMENT ON FUNCTION timeuuid_cmp(timeuuid, timeuuid) IS 'btree comparison of timeuuid: -1, 0 or 1 in time order';
COMMENT ON FUNCTION timeuuid_sortsupport(internal) IS 'btree sort support of timeuuid, with abbreviated keys';
COMMENT ON FUNCTION timeuuid_hash(timeuuid) IS 'hash of timeuuid (of its 16 bytes)';
COMMENT ON FUNCTION timeuuid_hash_extended(timeuuid, bigint) IS '64-bit seeded hash of timeuuid (of its 16 bytes)';
COMMENT ON FUNCTION timeuuid_smaller(timeuuid, timeuuid) IS 'the earlier of two timeuuids (for min)';
COMMENT ON FUNCTION timeuuid_larger(timeuuid, timeuuid) IS 'the later of two timeuuids (for max)';

CREATE OPERATOR = (
    LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_eq,
    COMMUTATOR = =, NEGATOR = <>,
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
    LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_ne,
    COMMUTATOR = <>, NEGATOR = =,
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
    LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_lt,
    COMMUTATOR = >, NEGATOR = >=,
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
    LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_le,
    COMMUTATOR = >=, NEGATOR = >,
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
    LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_gt,
    COMMUTATOR = <, NEGATOR = <=,
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
    LEFTARG = timeuuid, RIGHTARG = timeuuid, FUNCTION = timeuuid_ge,
    COMMUTATOR = <=, NEGATOR = <,
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);
COMMENT ON OPERATOR = (timeuuid, timeuuid) IS 'equal';
COMMENT ON OPERATOR <> (timeuuid, timeuuid) IS 'not equal';
COMMENT ON OPERATOR < (timeuuid, timeuuid) IS 'earlier than';
COMMENT ON OPERATOR <= (timeuuid, timeuuid) IS 'earlier than or equal';
COMMENT ON OPERATOR > (timeuuid, timeuuid) IS 'later than';
COMMENT ON OPERATOR >= (timeuuid, timeuuid) IS 'later than or equal';

-- Operator classes: btree (compare, sortsupport, equalimage: equality is
-- byte equality, so deduplication is safe), hash, and BRIN minmax.
CREATE OPERATOR CLASS timeuuid_ops
    DEFAULT FOR TYPE timeuuid USING btree AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 timeuuid_cmp(timeuuid, timeuuid),
        FUNCTION 2 timeuuid_sortsupport(internal),
        FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS timeuuid_hash_ops
    DEFAULT FOR TYPE timeuuid USING hash AS
        OPERATOR 1 =,
        FUNCTION 1 timeuuid_hash(timeuuid),
        FUNCTION 2 timeuuid_hash_extended(timeuuid, bigint);

CREATE OPERATOR CLASS timeuuid_minmax_ops
    DEFAULT FOR TYPE timeuuid USING brin AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 brin_minmax_opcinfo(internal),
        FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
        FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
        FUNCTION 4 brin_minmax_union(internal, internal, internal);

-- Non-default BRIN classes, as core has for uuid: minmax-multi (several
-- ranges per block range, for tables filled mostly but not strictly in time
-- order, e.g. with back-filled rows) and bloom (equality only).
CREATE FUNCTION timeuuid_minmax_multi_distance(internal, internal) RETURNS double precision
    AS 'MODULE_PATHNAME', 'timeuuid_minmax_multi_distance'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_minmax_multi_distance(internal, internal) IS
    'BRIN minmax-multi support: distance of two timeuuids on the time line';

CREATE OPERATOR CLASS timeuuid_minmax_multi_ops
    FOR TYPE timeuuid USING brin AS
        OPERATOR 1 <,
        OPERATOR 2 <=,
        OPERATOR 3 =,
        OPERATOR 4 >=,
        OPERATOR 5 >,
        FUNCTION 1 brin_minmax_multi_opcinfo(internal),
        FUNCTION 2 brin_minmax_multi_add_value(internal, internal, internal, internal),
        FUNCTION 3 brin_minmax_multi_consistent(internal, internal, internal, integer),
        FUNCTION 4 brin_minmax_multi_union(internal, internal, internal),
        FUNCTION 5 brin_minmax_multi_options(internal),
        FUNCTION 11 timeuuid_minmax_multi_distance(internal, internal);

CREATE OPERATOR CLASS timeuuid_bloom_ops
    FOR TYPE timeuuid USING brin AS
        OPERATOR 1 =,
        FUNCTION 1 brin_bloom_opcinfo(internal),
        FUNCTION 2 brin_bloom_add_value(internal, internal, internal, internal),
        FUNCTION 3 brin_bloom_consistent(internal, internal, internal, integer),
        FUNCTION 4 brin_bloom_union(internal, internal, internal),
        FUNCTION 5 brin_bloom_options(internal),
        FUNCTION 11 timeuuid_hash(timeuuid);

-- min and max in time order; the sort operators let the planner answer
-- them from a btree index.
CREATE AGGREGATE min(timeuuid) (
    SFUNC = timeuuid_smaller, STYPE = timeuuid, COMBINEFUNC = timeuuid_smaller,
    SORTOP = <, PARALLEL = SAFE
);
CREATE AGGREGATE max(timeuuid) (
    SFUNC = timeuuid_larger, STYPE = timeuuid, COMBINEFUNC = timeuuid_larger,
    SORTOP = >, PARALLEL = SAFE
);
COMMENT ON AGGREGATE min(timeuuid) IS 'earliest timeuuid';
COMMENT ON AGGREGATE max(timeuuid) IS 'latest timeuuid';

-- ---------------------------------------------------------------------------
-- Generators.  timeuuid_next() state is one word in shared memory: VOLATILE
-- PARALLEL SAFE (workers share it).  The others hold no state.
-- ---------------------------------------------------------------------------
CREATE FUNCTION timeuuid_next() RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_next'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_next() IS
    'version 7 timeuuid, strictly increasing across all sessions of the server';

CREATE FUNCTION timeuuid_next(timestamptz) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_next_at'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_next(timestamptz) IS
    'version 7 timeuuid at the given time with random low bits, for back-filling (not monotonic)';

-- The server-wide increasing stream, typed uuid: for uuid columns and
-- drivers.  A name of its own, which no PostgreSQL version uses.
CREATE FUNCTION uuidv7_next() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuidv7'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_next() IS
    'version 7 uuid from the server-wide increasing stream of timeuuid_next(), strictly increasing across all sessions';

CREATE FUNCTION timeuuid_v6() RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_v6'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_v6() IS
    'version 6 timeuuid: libuuid''s time-based (version 1) UUID with its timestamp reordered';

-- ---------------------------------------------------------------------------
-- Pure functions.
-- ---------------------------------------------------------------------------
CREATE FUNCTION timeuuid_min(timestamptz) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_min'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_min(timestamptz) IS
    'smallest timeuuid of the millisecond holding the time (Cassandra minTimeuuid)';

CREATE FUNCTION timeuuid_max(timestamptz) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_max'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_max(timestamptz) IS
    'largest timeuuid of the millisecond holding the time (Cassandra maxTimeuuid)';

CREATE FUNCTION timeuuid_timestamp(timeuuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'timeuuid_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_timestamp(timeuuid) IS
    'time carried by a timeuuid (v1/v6 to the microsecond, v7 to the millisecond); NULL for nil and max';

CREATE FUNCTION timeuuid_v1_to_v6(uuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_v1_to_v6'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_v1_to_v6(uuid) IS
    'version 1 UUID reordered into the sortable version 6 layout (same time, clock sequence and node)';

CREATE FUNCTION timeuuid_v6_to_v1(timeuuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_v6_to_v1'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_v6_to_v1(timeuuid) IS
    'version 6 timeuuid back in version 1 layout';

CREATE FUNCTION timeuuid_from_sqlserver(uuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_from_sqlserver'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid_from_sqlserver(uuid) IS
    'version 1 timeuuid from a SQL Server NEWSEQUENTIALID() value (first three fields byte-swapped)';

-- PostgreSQL 17 and 18 names: uuid_extract_timestamp(uuid) and
-- uuid_extract_version(uuid) (core 17), uuidv7(), uuidv7(interval) and
-- uuidv4() (core 18).  Core's live in pg_catalog, which is searched first:
-- a function of the same name here would be silently hidden.  So where the
-- server has one, the name here is a thin SQL function calling core's
-- (same results; it exists so that a dump made on an older server, which
-- names public.uuidv7() in its defaults, restores); where the server lacks
-- it, it is this library's implementation, behaving as core's does:
-- uuid_extract_*: NULL unless RFC 9562 variant, a timestamp only for
-- versions 1 and 7 (timeuuid_timestamp() also reads version 6; a timeuuid
-- argument comes through the implicit cast); uuidv7(): from the server-wide
-- stream of uuidv7_next() (core 18's increases only within a session);
-- uuidv7(interval): now shifted, random rest, not part of the stream.
DO $$
BEGIN
    IF pg_catalog.to_regprocedure('pg_catalog.uuid_extract_timestamp(uuid)') IS NULL THEN
        CREATE FUNCTION uuid_extract_timestamp(uuid) RETURNS timestamptz
            AS 'MODULE_PATHNAME', 'idgen_uuid_extract_timestamp'
            LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
        CREATE FUNCTION uuid_extract_version(uuid) RETURNS smallint
            AS 'MODULE_PATHNAME', 'idgen_uuid_extract_version'
            LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
    ELSE
        CREATE FUNCTION uuid_extract_timestamp(uuid) RETURNS timestamptz
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN pg_catalog.uuid_extract_timestamp($1);
        CREATE FUNCTION uuid_extract_version(uuid) RETURNS smallint
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
            RETURN pg_catalog.uuid_extract_version($1);
    END IF;
    IF pg_catalog.to_regprocedure('pg_catalog.uuidv7()') IS NULL THEN
        CREATE FUNCTION uuidv7() RETURNS uuid
            AS 'MODULE_PATHNAME', 'idgen_uuidv7'
            LANGUAGE C VOLATILE PARALLEL SAFE;
        CREATE FUNCTION uuidv7(interval) RETURNS uuid
            AS 'MODULE_PATHNAME', 'idgen_uuidv7_interval'
            LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
    ELSE
        CREATE FUNCTION uuidv7() RETURNS uuid
            LANGUAGE sql VOLATILE PARALLEL SAFE
            RETURN pg_catalog.uuidv7();
        CREATE FUNCTION uuidv7(interval) RETURNS uuid
            LANGUAGE sql VOLATILE STRICT PARALLEL SAFE
            RETURN pg_catalog.uuidv7($1);
    END IF;
END
$$;
-- gen_random_uuid() is core's on every version; 18 calls it uuidv4() too.
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


-- ---------------------------------------------------------------------------
-- timeuuid beside uuid.  Drivers send UUID parameters as uuid (pgjdbc's
-- setObject(UUID), psycopg2's uuid.UUID, node-postgres' $1::uuid), and uuid
-- columns reference timeuuid keys: the comparison operators below take the
-- two types in both orders, in time order, and belong to timeuuid's btree,
-- hash and BRIN families, so indexes on timeuuid columns serve them.  They
-- are total: a uuid that no timeuuid can be (a version 4, say) has a rank
-- of its own, after every time-based value and before the max UUID, in byte
-- order (the timeuuid order's class 2); so the planner's statistics, foreign
-- key checks and every plan can compare whatever a uuid column holds, and
-- the functions, which can neither fail nor show a value, are LEAKPROOF.
-- Validation stays where a value becomes a timeuuid (input, receive, cast).
-- The cast timeuuid -> uuid is implicit: every timeuuid is a uuid, so
-- functions taking uuid take timeuuid, and JOIN ... USING, NATURAL JOIN,
-- UNION and CASE between the two types give uuid.  The families also hold
-- (uuid, uuid) members: in btree ~<~ ~<=~ ~>=~ ~>~, which order two uuids by
-- that same order, with uuid's own = (byte equality is every order's); in
-- hash ~=~ (byte equality too, with the family's hash function).  btree and
-- hash use them for the uuid side (to sort a uuid[] of = ANY for an index
-- scan, to sort the uuid side of a merge join, to hash or unique-ify a
-- subquery's uuids), and the operator class uuid_time_ops indexes a uuid
-- column with them, so that a uuid column referencing a timeuuid key is
-- searched through its index.  The ordering ones cannot be uuid's own
-- < ..., which order by bytes: a btree family holds one order, and uuid's
-- byte order is core's uuid_ops.  (Members added to core's uuid_ops would
-- not survive pg_upgrade: pg_dump --binary-upgrade dumps nothing of a
-- pg_catalog family.)
-- ---------------------------------------------------------------------------
CREATE FUNCTION timeuuid_uuid_eq(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_uuid_ne(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_uuid_lt(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_uuid_le(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_uuid_gt(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_uuid_ge(timeuuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_uuid_cmp(timeuuid, uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_timeuuid_eq(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_timeuuid_ne(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_timeuuid_lt(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_timeuuid_le(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_timeuuid_gt(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_timeuuid_ge(uuid, timeuuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_timeuuid_cmp(uuid, timeuuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'uuid_timeuuid_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_uuid_hash(uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION timeuuid_uuid_hash_extended(uuid, bigint) RETURNS bigint
    AS 'MODULE_PATHNAME', 'timeuuid_uuid_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
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
CREATE FUNCTION uuid_time_eq(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_time_ne(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_time_lt(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_time_le(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_time_gt(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_time_ge(uuid, uuid) RETURNS boolean
    AS 'MODULE_PATHNAME', 'uuid_time_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uuid_time_cmp(uuid, uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'uuid_time_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION uuid_time_eq(uuid, uuid) IS 'implementation of ~=~: two uuids equal as timeuuids';
COMMENT ON FUNCTION uuid_time_ne(uuid, uuid) IS 'implementation of ~<>~: two uuids not equal as timeuuids';
COMMENT ON FUNCTION uuid_time_lt(uuid, uuid) IS 'implementation of ~<~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_le(uuid, uuid) IS 'implementation of ~<=~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_gt(uuid, uuid) IS 'implementation of ~>~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_ge(uuid, uuid) IS 'implementation of ~>=~: two uuids compared as timeuuids (time order)';
COMMENT ON FUNCTION uuid_time_cmp(uuid, uuid) IS 'btree comparison of two uuids as timeuuids, in time order';

CREATE OPERATOR = (
    LEFTARG = timeuuid, RIGHTARG = uuid, FUNCTION = timeuuid_uuid_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
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
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
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
CREATE OPERATOR ~=~ (
    LEFTARG = uuid, RIGHTARG = uuid, FUNCTION = uuid_time_eq,
    COMMUTATOR = ~=~, NEGATOR = ~<>~, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
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

-- uuids ordered as timeuuids: the (uuid, uuid) members of timeuuid's btree
-- family, as an operator class of uuid columns.  An index with it serves a
-- uuid column's comparisons with timeuuids (= (uuid, timeuuid) is in the
-- family): a foreign key referencing a timeuuid key searches it on the
-- parent's DELETE and UPDATE.  Its equality is uuid's own = (byte equality,
-- which every order of uuids shares), so the same index serves a uuid
-- column's = with uuid values too; deduplication is safe (equalimage).
CREATE OPERATOR CLASS uuid_time_ops
    FOR TYPE uuid USING btree FAMILY timeuuid_ops AS
        OPERATOR 1 ~<~,
        OPERATOR 2 ~<=~,
        OPERATOR 3 = (uuid, uuid),
        OPERATOR 4 ~>=~,
        OPERATOR 5 ~>~,
        FUNCTION 1 uuid_time_cmp(uuid, uuid),
        FUNCTION 2 timeuuid_sortsupport(internal),
        FUNCTION 4 btequalimage(oid);
COMMENT ON OPERATOR CLASS uuid_time_ops USING btree IS
    'uuids ordered as timeuuids (time order; other uuids after every time-based one): index a uuid column referencing a timeuuid key with it';

ALTER OPERATOR FAMILY timeuuid_hash_ops USING hash ADD
    OPERATOR 1 = (timeuuid, uuid),
    OPERATOR 1 = (uuid, timeuuid),
    OPERATOR 1 ~=~ (uuid, uuid),
    FUNCTION 1 (uuid, uuid) timeuuid_uuid_hash(uuid),
    FUNCTION 2 (uuid, uuid) timeuuid_uuid_hash_extended(uuid, bigint);

-- BRIN indexes of timeuuid columns serve uuid parameters too.  Their
-- consistent functions look up the operator of the scan key's type in the
-- family and call it on the range's summary (minmax, minmax-multi) or hash
-- the key with the class's own hash function, which hashes uuid's bytes
-- alike (bloom).
ALTER OPERATOR FAMILY timeuuid_minmax_ops USING brin ADD
    OPERATOR 1 < (timeuuid, uuid),
    OPERATOR 2 <= (timeuuid, uuid),
    OPERATOR 3 = (timeuuid, uuid),
    OPERATOR 4 >= (timeuuid, uuid),
    OPERATOR 5 > (timeuuid, uuid);
ALTER OPERATOR FAMILY timeuuid_minmax_multi_ops USING brin ADD
    OPERATOR 1 < (timeuuid, uuid),
    OPERATOR 2 <= (timeuuid, uuid),
    OPERATOR 3 = (timeuuid, uuid),
    OPERATOR 4 >= (timeuuid, uuid),
    OPERATOR 5 > (timeuuid, uuid);
ALTER OPERATOR FAMILY timeuuid_bloom_ops USING brin ADD
    OPERATOR 1 = (timeuuid, uuid);

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
    OUT ahead_since timestamptz, OUT clock_floor timestamptz, OUT clock_floor_advances bigint,
    OUT time_exhausted_at timestamptz, OUT time_left interval, OUT started timestamptz)
    AS 'MODULE_PATHNAME', 'jsid_state'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION jsid_state() IS
    'state of this server''s jsid generator since it started; warns when the 41-bit time runs out within a year';
-- end issue 11

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
                             OUT first_id bigint, OUT last_id bigint) RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'hilo_reserve'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE ROWS 1;
COMMENT ON FUNCTION hilo_reserve(regclass, integer) IS
    'ranges first_id..last_id, at least n ids in all (whole blocks; NULL: one block), of the table''s Hi/Lo key for application code; one row unless others drew in between; needs USAGE or UPDATE on the key''s sequence, as nextval()';

CREATE FUNCTION hilo_next_text(tbl regclass) RETURNS text
    AS 'MODULE_PATHNAME', 'hilo_next_text'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;
COMMENT ON FUNCTION hilo_next_text(regclass) IS
    'next id of the table''s Hi/Lo key in RavenDB''s readable form <table>/<n>-<node tag> (id_gen.node_tag), e.g. orders/54-A';

CREATE FUNCTION hilo_next_text(tbl regclass, id bigint) RETURNS text
    AS 'MODULE_PATHNAME', 'hilo_text_id'
    LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL SAFE;
COMMENT ON FUNCTION hilo_next_text(regclass, bigint) IS
    'the id written as <table>/<n>-<node tag> (id_gen.node_tag)';

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
    'the ids hilo_create_key() gives a node''s keys with id_gen.hilo_node_ranges: node * 2^43 .. (node + 1) * 2^43 - 1 (node 0 from 1)';

CREATE FUNCTION hilo_backend_draws(tbl regclass) RETURNS bigint
    AS 'MODULE_PATHNAME', 'hilo_backend_draws'
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION hilo_backend_draws(regclass) IS
    'how many blocks this session drew from the table''s Hi/Lo key';

-- end issue 10


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
    OUT clock_floor_step_ms integer, OUT max_clock_step_ms integer)
    AS 'MODULE_PATHNAME', 'headroom_thresholds'
    LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.headroom_thresholds() IS
    'the points where id_gen.headroom says warning and critical: id_gen.headroom_warning_days, _critical_days, _warning_percent, _critical_percent, the floors'' step and the largest wall-clock step followed without the monotonic clock';

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

-- The capacity of a millisecond (issue 22): id_gen.snowflake_start_spread
-- starts a new one at up to the spread, so it holds fewer ids than the layout's.
CREATE FUNCTION id_gen.headroom_ms_capacity(generator text, OUT start_spread integer,
                                            OUT fewest_per_ms integer, OUT saturated_per_ms integer)
    AS 'MODULE_PATHNAME', 'headroom_ms_capacity'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION id_gen.headroom_ms_capacity(text) IS
    'what id_gen.snowflake_start_spread leaves of a millisecond of snowflake or jsid ids: the spread applied, the fewest ids a millisecond holds, the ids per millisecond at saturation';

CREATE FUNCTION id_gen.headroom_snowflake() RETURNS SETOF id_gen.headroom_row
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

CREATE FUNCTION id_gen.headroom_jsid() RETURNS SETOF id_gen.headroom_row
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

-- timeuuid_next() and uuidv7(): 48-bit Unix milliseconds (until 10889); how
-- far the stream runs ahead of the clock is in the clock rows.
CREATE FUNCTION id_gen.headroom_rfc9562() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT 'timeuuid', 'this server',
       (c.now_ms / 281474976710656.0)::float8,
       id_gen.headroom_runs_out(to_timestamp(281474976710.656), c.left_s),
       c.left_s,
       id_gen.headroom_status(NULL, c.left_s),
       format('the 48-bit Unix millisecond field of versions 7 and 6 ends %s',
              to_char(to_timestamp(281474976710.656) AT TIME ZONE 'UTC', 'YYYY-MM-DD')),
       jsonb_build_object('time_bits', 48, 'ends', to_timestamp(281474976710.656))
  FROM (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS now_ms) n,
       LATERAL (SELECT n.now_ms, ((281474976710656 - n.now_ms) / 1000.0)::float8 AS left_s) c
$$;
COMMENT ON FUNCTION id_gen.headroom_rfc9562() IS
    'headroom of timeuuid_next() and uuidv7(): the 48-bit time field';

-- The clock, one row per time-ordered stream (the word is the server's, so
-- every database sees the same lead): ok while the stream's last id is not
-- ahead of the clock; warning while it runs ahead (nothing is refused: ids
-- continue above it and come back to the clock when it passes them, the
-- lead never growing), critical beyond the floor's step (more than a
-- restart leaves: the clock went back, or a floor ahead of it was read),
-- and the same before the first id since the start for a floor ahead of the
-- clock (the first id continues above it); a wall clock ahead of the time
-- the generators follow (a forward step being caught up) is a warning.
CREATE FUNCTION id_gen.headroom_clock() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL SAFE
    SET search_path = pg_catalog, pg_temp
    SET client_min_messages = error
    AS $$
SELECT 'clock', c.stream,
       NULL::double precision, NULL::text, NULL::double precision,
       CASE WHEN coalesce(c.lead_ms, f.floor_lead_ms) > t.clock_floor_step_ms THEN 'critical'
            WHEN coalesce(c.lead_ms, f.floor_lead_ms) > 0 OR g.stepped THEN 'warning'
            ELSE 'ok' END,
       CASE WHEN c.last_time IS NULL AND f.floor_lead_ms > 0
            THEN format('no %s id issued since the start, and this database''s floor is %s ms ahead of the clock: '
                        'the first id continues above it, that far ahead', c.stream, f.floor_lead_ms)
            WHEN c.last_time IS NULL THEN format('no %s id issued since the start', c.stream)
            WHEN c.lead_ms > 0
            THEN format('the last %s id is %s ms ahead of the clock%s (the clock went back, or a floor ahead of it was read): '
                        'ids continue above it at real-time pace and meet the clock when it passes them; nothing is refused',
                        c.stream, c.lead_ms,
                        CASE WHEN c.ahead_since IS NOT NULL
                             THEN ', running ahead since ' || to_char(c.ahead_since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"')
                             ELSE '' END)
            ELSE format('the last %s id is not ahead of the clock', c.stream)
       END
       || CASE WHEN g.stepped
               THEN format('; the wall clock is %s ms ahead of the time the generators follow (a forward step the monotonic clock did not confirm): '
                           'they catch up with it at twice real time''s rate', c.wall_clock_ahead_ms)
               ELSE '' END,
       jsonb_build_object('last_time', c.last_time, 'lead_ms', c.lead_ms, 'ahead_since', c.ahead_since,
                          'floor', c.floor, 'floor_advances', c.floor_advances,
                          'wall_clock_ahead_ms', c.wall_clock_ahead_ms)
  FROM id_gen.clock_streams() c, id_gen.headroom_thresholds() t,
       LATERAL (SELECT c.wall_clock_ahead_ms > t.max_clock_step_ms AS stepped) g,
       LATERAL (SELECT CASE WHEN c.last_time IS NULL
                            THEN round(extract(epoch FROM c.floor - clock_timestamp()) * 1000)::bigint
                       END AS floor_lead_ms) f
$$;
COMMENT ON FUNCTION id_gen.headroom_clock() IS
    'the clock: how far each time-ordered stream runs ahead of it and since when, and forward steps being caught up';

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
  -- this node's range, read once: only with id_gen.hilo_node_ranges on; a
  -- key's own ids start at its sequence's MINVALUE (a Citus worker's window)
  CROSS JOIN (SELECT nr.first_id AS node_first, nr.last_id AS node_last
                FROM @extschema@.node_identity() n
                LEFT JOIN LATERAL @extschema@.hilo_node_range(n.worker_id) nr
                       ON n.worker_id_source = 'setting'
                      AND pg_catalog.current_setting('id_gen.hilo_node_ranges', true) = 'on') nd
  CROSS JOIN LATERAL (
       SELECT CASE WHEN k.own_sequence AND nd.node_first IS NOT NULL THEN nd.node_first
                   ELSE greatest(q.seqmin, 1) END AS first_id,
              CASE WHEN k.own_sequence AND nd.node_first IS NOT NULL THEN nd.node_last
                   ELSE 9223372036854775807 END AS range_last) r
  CROSS JOIN LATERAL (
       SELECT least(r.range_last,
                    coalesce(id_gen.hilo_reserved_to(k.strategy, q.seqmax, k.max_lo), 9223372036854775807)) AS last_id) l
  -- a key whose next block does not fit is exhausted: its next draw fails
  CROSS JOIN LATERAL (
       SELECT CASE WHEN coalesce(k.reserved_to, r.first_id - 1)::numeric + k.max_lo > l.last_id THEN 1.0::float8
                   ELSE least(1.0, greatest(0.0, (coalesce(k.reserved_to, r.first_id - 1) - r.first_id + 1)::float8
                                             / (l.last_id - r.first_id + 1)::float8)) END AS used) u
$$;
REVOKE ALL ON FUNCTION id_gen.headroom_hilo() FROM PUBLIC;
COMMENT ON FUNCTION id_gen.headroom_hilo() IS
    'headroom of each Hi/Lo key (id_gen.hilo_keys): used share of its node''s range, its sequence and bigint';

-- decimal_id(): this database's counter under its generator id; a
-- decimal_id() that refuses (no valid claim, no launch id) is critical, with
-- the way out.
CREATE FUNCTION id_gen.headroom_decimal_id() RETURNS SETOF id_gen.headroom_row
    LANGUAGE sql VOLATILE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
    AS $$
SELECT 'decimal_id counter', current_database()::text,
       u.used, 'unknown'::text, NULL::double precision,
       CASE WHEN s.refusal IS NOT NULL OR s.launch_id IS NULL THEN 'critical'
            ELSE id_gen.headroom_status(u.used, NULL) END,
       CASE WHEN s.refusal IS NOT NULL
            THEN format('decimal_id() refuses: %s; as a superuser, SELECT id_gen.decimal_id_claim(); then reconnect', s.refusal)
            WHEN s.launch_id IS NULL
            THEN 'decimal_id() refuses: id_gen.launch_id is not set; set it (1..99999, distinct for every server writing into the same tables) and reload'
            ELSE format('%s of 922337202 ids of generator id %s reserved in this database; when they are used up, a superuser claims a new generator id (id_gen.decimal_id_claim(new_generator => true))',
                        coalesce(s.reserved_to, 0), s.generator_id) END,
       jsonb_build_object('generator_id', s.generator_id, 'refusal', s.refusal,
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
