/*
 * timeuuid_uuid.cpp: timeuuid compared with uuid, in both orders, so that
 * drivers that send a parameter as uuid (pgjdbc's setObject(UUID),
 * psycopg2's uuid.UUID, node-postgres' $1::uuid) can query a timeuuid
 * column, through its btree, hash and BRIN indexes, and so that a uuid
 * column can reference a timeuuid key.
 *
 * Every member of timeuuid's families, whatever its argument types, orders
 * the 16 bytes by the one total order of uuid_layout.hpp's timeuuid_key():
 * a uuid that no timeuuid can be (a version 4, say) has a rank of its own
 * (after every time-based value, before the max UUID, in byte order), so a
 * comparison never raises.  The planner (most common values, histograms,
 * merge-join estimates), foreign-key checks and indexes call these on
 * whatever a uuid column holds; validation stays where a value becomes a
 * timeuuid (input, receive, the cast).  Nothing here can fail or show a
 * value, so every function is LEAKPROOF and keeps its index under
 * row-level security and security_barrier views.  Equality is byte
 * equality, as uuid's.
 */
#include "pg/pg.hpp"

extern "C" {
#include "common/hashfn.h"
#include "utils/uuid.h"
}

#include "core/uuid_layout.hpp"

#define TUU_OPERATORS(prefix) \
	static inline int \
	prefix##_order(FunctionCallInfo fcinfo) \
	{ \
		return idgen::timeuuid_compare(PG_GETARG_UUID_P(0)->data, PG_GETARG_UUID_P(1)->data); \
	} \
	IDGEN_FUNCTION(prefix##_eq) { PG_RETURN_BOOL(memcmp(PG_GETARG_UUID_P(0)->data, PG_GETARG_UUID_P(1)->data, UUID_LEN) == 0); } \
	IDGEN_FUNCTION(prefix##_ne) { PG_RETURN_BOOL(memcmp(PG_GETARG_UUID_P(0)->data, PG_GETARG_UUID_P(1)->data, UUID_LEN) != 0); } \
	IDGEN_FUNCTION(prefix##_lt) { PG_RETURN_BOOL(prefix##_order(fcinfo) < 0); } \
	IDGEN_FUNCTION(prefix##_le) { PG_RETURN_BOOL(prefix##_order(fcinfo) <= 0); } \
	IDGEN_FUNCTION(prefix##_gt) { PG_RETURN_BOOL(prefix##_order(fcinfo) > 0); } \
	IDGEN_FUNCTION(prefix##_ge) { PG_RETURN_BOOL(prefix##_order(fcinfo) >= 0); } \
	IDGEN_FUNCTION(prefix##_cmp) { PG_RETURN_INT32(prefix##_order(fcinfo)); }

/*
 * timeuuid against uuid, uuid against timeuuid, and two uuids ordered as
 * timeuuids (the ~<~ ... members, which btree and hash look up for the uuid
 * side: to sort a uuid[] of = ANY before an index scan, to sort or hash a
 * uuid column for a merge join, a unique-ified IN (SELECT ...) or a hashed
 * NOT IN subplan, and the uuid_time_ops operator class of uuid columns).
 * The bodies are the same; the SQL signatures differ.
 */
TUU_OPERATORS(timeuuid_uuid)
TUU_OPERATORS(uuid_timeuuid)
TUU_OPERATORS(uuid_time)

/*
 * The hash family's function for the uuid side: the hash of the same 16
 * bytes as timeuuid_hash (and as core's uuid_hash), so equal values hash
 * alike.
 */
IDGEN_FUNCTION(timeuuid_uuid_hash)
{
	return hash_any(PG_GETARG_UUID_P(0)->data, UUID_LEN);
}

IDGEN_FUNCTION(timeuuid_uuid_hash_extended)
{
	return hash_any_extended(PG_GETARG_UUID_P(0)->data, UUID_LEN, PG_GETARG_INT64(1));
}
