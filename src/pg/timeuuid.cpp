/*
 * timeuuid.cpp: the timeuuid type's glue: text and binary I/O, the
 * validating cast from uuid, comparison operators, btree support (compare,
 * sortsupport with abbreviated keys), hash support, timestamp extraction
 * and the PostgreSQL 17/18 uuid_extract_* functions.
 *
 * A timeuuid is stored exactly like uuid (16 bytes, pg_uuid_t).  Every way
 * a value enters (text input, binary receive, cast from uuid) checks that
 * it is a version 1, 6 or 7 RFC 9562 UUID, a version 13 COMB (v6's layout
 * under a version RFC 9562 leaves unassigned), or the nil or max UUID.  The
 * order itself is total over any 16 bytes (timeuuid_uuid.cpp compares with
 * uuids of any version through it) and never raises.  The layouts and the
 * order live in src/core/uuid_layout.cpp; nothing there allocates or
 * throws, so these wrappers call it directly, without idgen_guard().
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/unix_time.hpp"

extern "C" {
#include "common/hashfn.h"
#include "lib/hyperloglog.h"
#include "libpq/pqformat.h"
#include "utils/guc.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

#include "core/uuid_layout.hpp"

static_assert(sizeof(pg_uuid_t) == idgen::kUuidLen, "pg_uuid_t is 16 bytes");

/*
 * Reject a value that is not a timeuuid, naming what it is.  `what` is the
 * text to quote (the input string, or the formatted value).
 */
static void
tu_check(const uint8 *data, int sqlstate, const char *what)
{
	idgen::TimeuuidKind kind = idgen::timeuuid_classify(data);

	if (kind == idgen::TimeuuidKind::bad_version)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("UUID version %d is not valid for type timeuuid: \"%s\"",
						idgen::uuid_version(data), what),
				 errdetail("timeuuid accepts versions 1, 6 and 7 of the RFC 9562 variant, version 13 (COMB), and the nil and max UUIDs."),
				 errhint("Keep other UUIDs in a uuid column.")));
	if (kind == idgen::TimeuuidKind::bad_variant)
		ereport(ERROR,
				(errcode(sqlstate),
				 errmsg("UUID variant is not valid for type timeuuid: \"%s\"", what),
				 errdetail("Its variant bits are %d%d, not the 10 of RFC 9562 UUIDs.",
						   data[8] >> 7, (data[8] >> 6) & 1)));
}

/* Check a value given as a uuid (casts, conversion functions). */
static void
tu_check_value(const pg_uuid_t *u)
{
	char		text[idgen::kUuidTextLen + 1];

	if (idgen::timeuuid_kind_valid(idgen::timeuuid_classify(u->data)))
		return;
	idgen::uuid_format(u->data, text);
	tu_check(u->data, ERRCODE_INVALID_PARAMETER_VALUE, text);
}

static inline pg_uuid_t *
tu_copy(const uint8 *data)
{
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	memcpy(res->data, data, UUID_LEN);
	return res;
}

/* Text input: exactly core uuid's grammar, then the version check. */
IDGEN_FUNCTION(timeuuid_in)
{
	char	   *str = PG_GETARG_CSTRING(0);
	uint8		data[UUID_LEN];

	if (!idgen::uuid_parse(str, data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"", "timeuuid", str)));
	tu_check(data, ERRCODE_INVALID_TEXT_REPRESENTATION, str);
	PG_RETURN_UUID_P(tu_copy(data));
}

IDGEN_FUNCTION(timeuuid_out)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);
	char	   *buf = static_cast<char *>(palloc(idgen::kUuidTextLen + 1));

	idgen::uuid_format(u->data, buf);
	PG_RETURN_CSTRING(buf);
}

/* Binary input: uuid's wire format (16 bytes), checked like text. */
IDGEN_FUNCTION(timeuuid_recv)
{
	StringInfo	buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
	const uint8 *data = reinterpret_cast<const uint8 *>(pq_getmsgbytes(buf, UUID_LEN));
	char		text[idgen::kUuidTextLen + 1];

	if (!idgen::timeuuid_kind_valid(idgen::timeuuid_classify(data)))
	{
		idgen::uuid_format(data, text);
		tu_check(data, ERRCODE_INVALID_BINARY_REPRESENTATION, text);
	}
	PG_RETURN_UUID_P(tu_copy(data));
}

IDGEN_FUNCTION(timeuuid_send)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, reinterpret_cast<const char *>(u->data), UUID_LEN);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/*
 * The cast uuid -> timeuuid.  A binary-coercible cast (WITHOUT FUNCTION)
 * would let any uuid, e.g. a version 4, become a timeuuid unchecked, and
 * the time order is meaningless for those; so this direction is a function
 * that checks and copies.  timeuuid -> uuid needs no check and is binary.
 */
IDGEN_FUNCTION(timeuuid_from_uuid)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);

	tu_check_value(u);
	PG_RETURN_UUID_P(tu_copy(u->data));
}

static inline int
tu_cmp(FunctionCallInfo fcinfo)
{
	return idgen::timeuuid_compare(PG_GETARG_UUID_P(0)->data, PG_GETARG_UUID_P(1)->data);
}

/*
 * Equality is byte equality (the order's key is injective); testing the
 * bytes directly skips computing keys.
 */
IDGEN_FUNCTION(timeuuid_eq)
{
	PG_RETURN_BOOL(memcmp(PG_GETARG_UUID_P(0)->data, PG_GETARG_UUID_P(1)->data, UUID_LEN) == 0);
}

IDGEN_FUNCTION(timeuuid_ne)
{
	PG_RETURN_BOOL(memcmp(PG_GETARG_UUID_P(0)->data, PG_GETARG_UUID_P(1)->data, UUID_LEN) != 0);
}

IDGEN_FUNCTION(timeuuid_lt)
{
	PG_RETURN_BOOL(tu_cmp(fcinfo) < 0);
}

IDGEN_FUNCTION(timeuuid_le)
{
	PG_RETURN_BOOL(tu_cmp(fcinfo) <= 0);
}

IDGEN_FUNCTION(timeuuid_gt)
{
	PG_RETURN_BOOL(tu_cmp(fcinfo) > 0);
}

IDGEN_FUNCTION(timeuuid_ge)
{
	PG_RETURN_BOOL(tu_cmp(fcinfo) >= 0);
}

IDGEN_FUNCTION(timeuuid_cmp)
{
	PG_RETURN_INT32(tu_cmp(fcinfo));
}

/* Transition functions of min(timeuuid) and max(timeuuid). */
IDGEN_FUNCTION(timeuuid_smaller)
{
	PG_RETURN_DATUM(tu_cmp(fcinfo) <= 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1));
}

IDGEN_FUNCTION(timeuuid_larger)
{
	PG_RETURN_DATUM(tu_cmp(fcinfo) >= 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1));
}

/*
 * Sort support.  The abbreviated key is the 64-bit time part of the order's
 * key (half 100-ns ticks since 1582), which never contradicts the full
 * order, so ties alone fall back to the full comparison.  Values made in a
 * burst share milliseconds but rarely their sub-millisecond part, so the
 * abbreviation usually decides.  As for core uuid, a HyperLogLog estimate of
 * the distinct abbreviations decides whether abbreviating pays: below one
 * distinct key per 2,000 rows it is abandoned; above 100,000 distinct keys
 * estimating stops.
 */
typedef struct TuSortState
{
	int64		input_count;
	bool		estimating;
	hyperLogLogState card;
} TuSortState;

static int
tu_fast_cmp(Datum a, Datum b, SortSupport ssup)
{
	return idgen::timeuuid_compare(DatumGetUUIDP(a)->data, DatumGetUUIDP(b)->data);
}

static Datum
tu_abbrev_convert(Datum original, SortSupport ssup)
{
	TuSortState *st = static_cast<TuSortState *>(ssup->ssup_extra);
	uint64		key = idgen::timeuuid_abbrev(DatumGetUUIDP(original)->data);

	st->input_count++;
	if (st->estimating)
		addHyperLogLog(&st->card,
					   DatumGetUInt32(hash_uint32(static_cast<uint32>(key ^ (key >> 32)))));
#if SIZEOF_DATUM == 8
	return UInt64GetDatum(key);
#else
	return UInt32GetDatum(static_cast<uint32>(key >> 32));
#endif
}

static bool
tu_abbrev_abort(int memtupcount, SortSupport ssup)
{
	TuSortState *st = static_cast<TuSortState *>(ssup->ssup_extra);
	double		card;

	if (memtupcount < 10000 || st->input_count < 10000 || !st->estimating)
		return false;
	card = estimateHyperLogLog(&st->card);
	if (card > 100000.0)
	{
		if (IDGEN_TRACE_SORT)
			elog(LOG, "timeuuid_abbrev: estimation ends at cardinality %f after " INT64_FORMAT " values",
				 card, st->input_count);
		st->estimating = false;
		return false;
	}
	if (card < st->input_count / 2000.0 + 0.5)
	{
		if (IDGEN_TRACE_SORT)
			elog(LOG, "timeuuid_abbrev: aborting abbreviation at cardinality %f after " INT64_FORMAT " values",
				 card, st->input_count);
		return true;
	}
	return false;
}

IDGEN_FUNCTION(timeuuid_sortsupport)
{
	SortSupport ssup = reinterpret_cast<SortSupport>(PG_GETARG_POINTER(0));

	ssup->comparator = tu_fast_cmp;
	ssup->ssup_extra = nullptr;
	if (ssup->abbreviate)
	{
		MemoryContext old = MemoryContextSwitchTo(ssup->ssup_cxt);
		TuSortState *st = static_cast<TuSortState *>(palloc(sizeof(TuSortState)));

		st->input_count = 0;
		st->estimating = true;
		initHyperLogLog(&st->card, 10);
		ssup->ssup_extra = st;
		ssup->comparator = ssup_datum_unsigned_cmp;
		ssup->abbrev_converter = tu_abbrev_convert;
		ssup->abbrev_abort = tu_abbrev_abort;
		ssup->abbrev_full_comparator = tu_fast_cmp;
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_VOID();
}

/* Hashing the bytes is consistent with =, which is byte equality. */
IDGEN_FUNCTION(timeuuid_hash)
{
	return hash_any(PG_GETARG_UUID_P(0)->data, UUID_LEN);
}

IDGEN_FUNCTION(timeuuid_hash_extended)
{
	return hash_any_extended(PG_GETARG_UUID_P(0)->data, UUID_LEN, PG_GETARG_INT64(1));
}

/*
 * Distance for the BRIN minmax-multi operator class: how far apart two
 * values are on the time line, so that it merges the closest ranges.  A
 * value's position is its key read as one number (nil at 0, anything not
 * time-based at the far end); positions never decrease along the order, so
 * the distance between ordered values is never negative.
 */
static double
tu_position(const uint8 *data)
{
	idgen::TimeuuidKey k = idgen::timeuuid_key(data);

	if (k.cls == 0)
		return 0.0;
	if (k.cls == 1)
		return static_cast<double>(k.hi) + static_cast<double>(k.lo) / 18446744073709551616.0;
	return 18446744073709551616.0 * (k.cls == 2 ? 1.0 : 2.0);
}

IDGEN_FUNCTION(timeuuid_minmax_multi_distance)
{
	const pg_uuid_t *a = reinterpret_cast<const pg_uuid_t *>(PG_GETARG_POINTER(0));
	const pg_uuid_t *b = reinterpret_cast<const pg_uuid_t *>(PG_GETARG_POINTER(1));
	double		delta = tu_position(b->data) - tu_position(a->data);

	Assert(delta >= 0);
	PG_RETURN_FLOAT8(delta);
}

/*
 * timeuuid_timestamp(timeuuid), also uuid_extract_timestamp(timeuuid): the
 * time a value carries, for v1, v6 and v13 (100-ns ticks truncated to microseconds)
 * and v7 (milliseconds); NULL for the nil and max UUIDs.
 */
IDGEN_FUNCTION(timeuuid_timestamp)
{
	int64_t		unix_us;

	if (!idgen::timeuuid_unix_us(PG_GETARG_UUID_P(0)->data, &unix_us))
		PG_RETURN_NULL();
	PG_RETURN_TIMESTAMPTZ(idgen_timestamptz_from_unix_us(unix_us));
}

/*
 * uuid_extract_timestamp(uuid) as PostgreSQL 17 and 18 define it: versions
 * 1 and 7 of the RFC 9562 variant, NULL for everything else (version 6
 * included, as in core).  The C symbol differs from the SQL name so that it
 * cannot clash with the server's own function on newer majors.
 */
IDGEN_FUNCTION(idgen_uuid_extract_timestamp)
{
	const uint8 *data = PG_GETARG_UUID_P(0)->data;
	idgen::TimeuuidKind kind = idgen::timeuuid_classify(data);
	int64_t		unix_us;

	if (kind != idgen::TimeuuidKind::v1 && kind != idgen::TimeuuidKind::v7)
		PG_RETURN_NULL();
	(void) idgen::timeuuid_unix_us(data, &unix_us);
	PG_RETURN_TIMESTAMPTZ(idgen_timestamptz_from_unix_us(unix_us));
}

/*
 * uuid_extract_version(uuid) and (timeuuid), as PostgreSQL 17 and 18: the
 * version nibble of an RFC 9562 variant UUID, else NULL (so NULL for the nil
 * and max UUIDs).
 */
IDGEN_FUNCTION(idgen_uuid_extract_version)
{
	const uint8 *data = PG_GETARG_UUID_P(0)->data;

	if (!idgen::uuid_variant_is_rfc(data))
		PG_RETURN_NULL();
	PG_RETURN_INT16(static_cast<int16>(idgen::uuid_version(data)));
}
