/* sql/id_gen--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION id_gen UPDATE TO '1.2'" to load this file. \quit

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

-- Casts.  timeuuid -> uuid is binary: every timeuuid is a valid uuid.
-- uuid -> timeuuid cannot be binary: a binary-coercible cast runs no code,
-- so a version 4 uuid would become a timeuuid unchecked and break the time
-- order's assumptions; it is a function that validates (ERROR 22023).
-- Both are AS ASSIGNMENT, not IMPLICIT: INSERT/UPDATE between uuid and
-- timeuuid columns work, but a comparison such as timeuuid_col = uuid_val
-- is an error asking for a cast instead of silently comparing as uuid (in
-- byte order, without the timeuuid index).
CREATE FUNCTION timeuuid(uuid) RETURNS timeuuid
    AS 'MODULE_PATHNAME', 'timeuuid_from_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION timeuuid(uuid) IS
    'cast uuid to timeuuid, rejecting versions other than 1, 6 and 7';
CREATE CAST (timeuuid AS uuid) WITHOUT FUNCTION AS ASSIGNMENT;
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

CREATE FUNCTION uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuidv7'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7() IS
    'PostgreSQL 18 name: version 7 uuid from the same server-wide increasing stream as timeuuid_next()';

CREATE FUNCTION uuidv7(interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuidv7_interval'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7(interval) IS
    'PostgreSQL 18 name: version 7 uuid for the current time shifted by the interval (not monotonic)';

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

-- PostgreSQL 17/18 names (core 15 has neither).  The uuid forms behave as
-- core's: NULL unless RFC 9562 variant, and a timestamp only for versions 1
-- and 7.  The timeuuid form of uuid_extract_timestamp also reads version 6.
CREATE FUNCTION uuid_extract_timestamp(uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_uuid_extract_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_extract_timestamp(uuid) IS
    'PostgreSQL 17 name: timestamp of a version 1 or 7 uuid, else NULL';

CREATE FUNCTION uuid_extract_timestamp(timeuuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'timeuuid_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_extract_timestamp(timeuuid) IS
    'PostgreSQL 17 name for timeuuid_timestamp(timeuuid)';

CREATE FUNCTION uuid_extract_version(uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'idgen_uuid_extract_version'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_extract_version(uuid) IS
    'PostgreSQL 17 name: version of an RFC 9562 variant uuid, else NULL';

CREATE FUNCTION uuid_extract_version(timeuuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'idgen_uuid_extract_version'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_extract_version(timeuuid) IS
    'PostgreSQL 17 name: version of a timeuuid (1, 6 or 7), NULL for nil and max';
