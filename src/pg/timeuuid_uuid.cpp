/*
 * timeuuid_uuid.cpp: timeuuid compared with uuid, in both orders, so that
 * drivers that send a parameter as uuid (pgjdbc's setObject(UUID),
 * psycopg2's uuid.UUID, node-postgres' $1::uuid) can query a timeuuid
 * column, through its btree and hash indexes.
 *
 * The uuid operand is checked as the cast uuid -> timeuuid checks it (only
 * the versions timeuuid holds; else ERROR 22023), by every member of the
 * operator families: the operators, the btree comparison and the hash
 * function.  So a comparison with a uuid that is no timeuuid fails the same
 * way whatever plan runs it (nested loop, index scan, merge or hash join),
 * and the time order is defined for every pair it compares.  The families
 * also hold (uuid, uuid) members, which compare two uuids that way.
 */
#include "pg/pg.hpp"

extern "C" {
#include "common/hashfn.h"
#include "utils/uuid.h"
}

#include "core/uuid_layout.hpp"

/* The cast uuid -> timeuuid (timeuuid.cpp): raises its ERROR for us. */
extern "C" Datum timeuuid_from_uuid(PG_FUNCTION_ARGS);

static inline const uint8 *
tuu_checked(pg_uuid_t *u)
{
	if (unlikely(!idgen::timeuuid_kind_valid(idgen::timeuuid_classify(u->data))))
		(void) DirectFunctionCall1(timeuuid_from_uuid, UUIDPGetDatum(u));
	return u->data;
}

/* timeuuid (argument 0) against uuid (argument 1), in time order. */
static inline int
tuu_cmp_tu_u(FunctionCallInfo fcinfo)
{
	return idgen::timeuuid_compare(PG_GETARG_UUID_P(0)->data, tuu_checked(PG_GETARG_UUID_P(1)));
}

/* uuid (argument 0) against timeuuid (argument 1). */
static inline int
tuu_cmp_u_tu(FunctionCallInfo fcinfo)
{
	return idgen::timeuuid_compare(tuu_checked(PG_GETARG_UUID_P(0)), PG_GETARG_UUID_P(1)->data);
}

#define TUU_OPERATORS(prefix, cmp) \
	IDGEN_FUNCTION(prefix##_eq) { PG_RETURN_BOOL(cmp(fcinfo) == 0); } \
	IDGEN_FUNCTION(prefix##_ne) { PG_RETURN_BOOL(cmp(fcinfo) != 0); } \
	IDGEN_FUNCTION(prefix##_lt) { PG_RETURN_BOOL(cmp(fcinfo) < 0); } \
	IDGEN_FUNCTION(prefix##_le) { PG_RETURN_BOOL(cmp(fcinfo) <= 0); } \
	IDGEN_FUNCTION(prefix##_gt) { PG_RETURN_BOOL(cmp(fcinfo) > 0); } \
	IDGEN_FUNCTION(prefix##_ge) { PG_RETURN_BOOL(cmp(fcinfo) >= 0); } \
	IDGEN_FUNCTION(prefix##_cmp) { PG_RETURN_INT32(cmp(fcinfo)); }

/*
 * Two uuids compared as timeuuids, both checked.  These are the (uuid, uuid)
 * members of timeuuid's families, which btree and hash look up for the uuid
 * side of a cross-type comparison: to sort a uuid[] of = ANY before an index
 * scan, to sort or hash a uuid column for a merge join, a unique-ified
 * IN (SELECT ...) or a hashed NOT IN subplan.  They must order as the
 * cross-type members do (time order), not as uuid's own operators (bytes).
 */
static inline int
tuu_cmp_u_u(FunctionCallInfo fcinfo)
{
	return idgen::timeuuid_compare(tuu_checked(PG_GETARG_UUID_P(0)), tuu_checked(PG_GETARG_UUID_P(1)));
}

TUU_OPERATORS(timeuuid_uuid, tuu_cmp_tu_u)
TUU_OPERATORS(uuid_timeuuid, tuu_cmp_u_tu)
TUU_OPERATORS(uuid_time, tuu_cmp_u_u)

/*
 * The hash family's function for the uuid side: the hash of the same 16
 * bytes as timeuuid_hash, so equal values hash alike, after the same check.
 */
IDGEN_FUNCTION(timeuuid_uuid_hash)
{
	return hash_any(tuu_checked(PG_GETARG_UUID_P(0)), UUID_LEN);
}

IDGEN_FUNCTION(timeuuid_uuid_hash_extended)
{
	return hash_any_extended(tuu_checked(PG_GETARG_UUID_P(0)), UUID_LEN, PG_GETARG_INT64(1));
}
