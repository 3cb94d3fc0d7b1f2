/*
 * timeuuid_gen.cpp: the generators and constructors of timeuuid values.
 *
 *  - timeuuid_next() and uuidv7(): version 7, strictly increasing across all
 *    backends of the server.  One 64-bit word in shared memory holds the
 *    last issued (millisecond, 1/4096-ms fraction, counter); each id
 *    advances it by compare-and-swap to max(now, last + 1) (see
 *    v7_word_advance in core/uuid_layout.hpp), so no lock is taken and the
 *    ids are ordered as the successful swaps are.  The remaining 54 bits of
 *    rand_b come from pg_strong_random, drawn 4 KB at a time into a
 *    backend-local buffer rather than per id.
 *  - timeuuid_next(timestamptz), uuidv7(interval): version 7 at a given
 *    time, random rest; not part of the monotonic stream.
 *  - timeuuid_min/max(timestamptz): the bounds of a millisecond.
 *  - timeuuid_v6(): libuuid's version 1, reordered to version 6.
 *  - conversions v1 <-> v6 and from SQL Server's NEWSEQUENTIALID.
 *
 * Shared state protocol: `word` is only ever changed by CAS and only grows.
 * `reserved_ms` only grows; see tu_floor_reached.  The structure is created
 * by the first backend that needs it (idgen_shmem_attach) and lives until
 * the postmaster restarts.
 */
#include "pg/pg.hpp"
#include "pg/guc.hpp"
#include "pg/shmem.hpp"

extern "C" {
#include "common/int.h"
#include "port/atomics.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

#include <time.h>
#include <uuid/uuid.h>

#include "core/uuid_layout.hpp"

#define TU_UNIX_TO_PG_US INT64CONST(946684800000000)

/*
 * How far ahead of the issued time a clock floor is reserved at once.  With
 * a persistent floor (see tu_floor_reached) this bounds how often the slow
 * path runs: once per this many milliseconds of issuing.
 */
#define TU_FLOOR_AHEAD_MS 10000

typedef struct TimeuuidShared
{
	pg_atomic_uint64 word;		/* last issued state word, 0 before the first */
	pg_atomic_uint64 reserved_ms;	/* ids below this ms need no reservation */
} TimeuuidShared;

static TimeuuidShared *tu_shared = nullptr;

static void
tu_shared_init(void *ptr)
{
	TimeuuidShared *st = static_cast<TimeuuidShared *>(ptr);

	/*
	 * MERGE POINT (clock floor, start-up): when the persistent floor of
	 * src/pg/clock.hpp is available, start the word at it instead of 0, e.g.
	 * word = floor_ms << kWordMsShift, so that a restart after the clock
	 * stepped back cannot reissue earlier times.
	 */
	pg_atomic_init_u64(&st->word, 0);
	pg_atomic_init_u64(&st->reserved_ms, 0);
}

void
idgen_timeuuid_init(void)
{
	idgen_shmem_reserve(sizeof(TimeuuidShared));
}

static inline TimeuuidShared *
tu_state(void)
{
	if (unlikely(tu_shared == nullptr))
		tu_shared = static_cast<TimeuuidShared *>(
			idgen_shmem_attach("id_gen timeuuid", sizeof(TimeuuidShared), tu_shared_init));
	return tu_shared;
}

/*
 * The issued time has reached the reserved floor.  Today the reservation
 * lives only in shared memory.
 *
 * MERGE POINT (clock floor, running): call the persistent floor API of
 * src/pg/clock.hpp here (idgen_clock_floor_...(target)) BEFORE moving
 * reserved_ms, so that every id returned lies below a floor already saved.
 * Concurrent callers may both reach this point; the floor API must take the
 * maximum.  No lock is held here.
 */
static void
tu_floor_reached(TimeuuidShared *st, uint64 ms)
{
	uint64		reserved = pg_atomic_read_u64(&st->reserved_ms);
	uint64		target = ms + TU_FLOOR_AHEAD_MS;

	while (reserved <= ms &&
		   !pg_atomic_compare_exchange_u64(&st->reserved_ms, &reserved, target))
		;
}

/*
 * Wall-clock nanoseconds since 1970, moved by id_gen.clock_offset_ms (a test
 * hook).  Before 1970 counts as 1970.
 */
static inline uint64
tu_clock_ns(void)
{
	struct timespec ts;
	int64		ns;

	clock_gettime(CLOCK_REALTIME, &ts);
	ns = static_cast<int64>(ts.tv_sec) * 1000000000 + ts.tv_nsec +
		static_cast<int64>(idgen_clock_offset_ms) * 1000000;
	return ns < 0 ? 0 : static_cast<uint64>(ns);
}

/* Backend-local buffer of strong random words, refilled 4 KB at a time. */
#define TU_RANDOM_WORDS 512
static uint64 tu_random[TU_RANDOM_WORDS];
static int	tu_random_left = 0;

static inline uint64
tu_random64(void)
{
	if (unlikely(tu_random_left == 0))
	{
		if (!pg_strong_random(tu_random, sizeof(tu_random)))
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("could not generate random values")));
		tu_random_left = TU_RANDOM_WORDS;
	}
	return tu_random[--tu_random_left];
}

/* The next value of the server-wide monotonic v7 stream. */
static pg_uuid_t *
tu_next_monotonic(void)
{
	TimeuuidShared *st = tu_state();
	uint64		now_ns = tu_clock_ns();
	uint64		now;
	uint64		prev;
	uint64		next;
	pg_uuid_t  *res;

	if (unlikely(now_ns / 1000000 > idgen::kWordMaxMs))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("the clock is beyond the range of timeuuid_next()"),
				 errdetail("timeuuid_next() counts 44-bit milliseconds from 1970, until the year 2527.")));
	now = idgen::v7_word_from_clock(now_ns);
	prev = pg_atomic_read_u64(&st->word);
	do
	{
		next = idgen::v7_word_advance(prev, now);
		if (unlikely(next < prev))
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("timeuuid_next() has exhausted its time range")));
	} while (!pg_atomic_compare_exchange_u64(&st->word, &prev, next));

	if (unlikely(idgen::v7_word_ms(next) >= pg_atomic_read_u64(&st->reserved_ms)))
		tu_floor_reached(st, idgen::v7_word_ms(next));

	res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
	idgen::uuid_v7_from_word(res->data, next, tu_random64());
	return res;
}

IDGEN_FUNCTION(timeuuid_next)
{
	PG_RETURN_UUID_P(tu_next_monotonic());
}

/* uuidv7() returning uuid: the same stream, for code written for PostgreSQL 18. */
IDGEN_FUNCTION(idgen_uuidv7)
{
	PG_RETURN_UUID_P(tu_next_monotonic());
}

/*
 * Unix milliseconds and sub-millisecond fraction of a timestamptz, or
 * ERROR 22008 when v7 cannot hold it (before 1970, after 10889, infinite).
 */
static void
tu_ms_of(TimestampTz ts, const char *fn, uint64 *ms, unsigned *frac)
{
	int64		us;
	int64		m;

	if (TIMESTAMP_NOT_FINITE(ts) ||
		pg_add_s64_overflow(ts, TU_UNIX_TO_PG_US, &us) ||
		us < 0 ||
		(m = us / 1000) > static_cast<int64>(idgen::kMaxV7Ms))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("timestamp out of range for %s", fn),
				 errdetail("Version 7 UUIDs hold times from 1970-01-01 to 10889-08-02 UTC.")));
	*ms = static_cast<uint64>(m);
	if (frac)
		*frac = idgen::subms_fraction_from_ns(static_cast<uint64>(us % 1000) * 1000);
}

/* A v7 value at `ts`: its microseconds as rand_a's fraction, random rest. */
static pg_uuid_t *
tu_v7_at(TimestampTz ts, const char *fn)
{
	uint64		ms;
	unsigned	frac;
	pg_uuid_t  *res;

	tu_ms_of(ts, fn, &ms, &frac);
	res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
	idgen::uuid_v7_build(res->data, ms, frac, tu_random64());
	return res;
}

IDGEN_FUNCTION(timeuuid_next_at)
{
	PG_RETURN_UUID_P(tu_v7_at(PG_GETARG_TIMESTAMPTZ(0), "timeuuid_next(timestamptz)"));
}

/* uuidv7(interval) as PostgreSQL 18: now shifted by the interval. */
IDGEN_FUNCTION(idgen_uuidv7_interval)
{
	Interval   *shift = PG_GETARG_INTERVAL_P(0);
	uint64		now_ns = tu_clock_ns();
	TimestampTz now = static_cast<TimestampTz>(now_ns / 1000) - TU_UNIX_TO_PG_US;
	TimestampTz ts;

	ts = DatumGetTimestampTz(DirectFunctionCall2(timestamptz_pl_interval,
												 TimestampTzGetDatum(now),
												 PointerGetDatum(shift)));
	PG_RETURN_UUID_P(tu_v7_at(ts, "uuidv7(interval)"));
}

IDGEN_FUNCTION(timeuuid_min)
{
	uint64		ms;
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	tu_ms_of(PG_GETARG_TIMESTAMPTZ(0), "timeuuid_min", &ms, nullptr);
	idgen::timeuuid_min_of_ms(res->data, ms);
	PG_RETURN_UUID_P(res);
}

IDGEN_FUNCTION(timeuuid_max)
{
	uint64		ms;
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	tu_ms_of(PG_GETARG_TIMESTAMPTZ(0), "timeuuid_max", &ms, nullptr);
	idgen::timeuuid_max_of_ms(res->data, ms);
	PG_RETURN_UUID_P(res);
}

/* ERROR 22023 unless `u` is of the `want` kind; `fn` names the caller. */
static void
tu_require(const pg_uuid_t *u, idgen::TimeuuidKind want, int want_version, const char *fn)
{
	char		text[idgen::kUuidTextLen + 1];

	if (idgen::timeuuid_classify(u->data) == want)
		return;
	idgen::uuid_format(u->data, text);
	if (!idgen::uuid_variant_is_rfc(u->data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s expects a version %d UUID: \"%s\"", fn, want_version, text),
				 errdetail("It is not of the RFC 9562 variant.")));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s expects a version %d UUID: \"%s\"", fn, want_version, text),
			 errdetail("It is a version %d UUID.", idgen::uuid_version(u->data))));
}

/*
 * timeuuid_v6(): libuuid's time-based generator (the one uuid-ossp's
 * uuid_generate_v1() uses; it keeps its clock sequence in uuidd or a state
 * file when it can), reordered into the sortable v6 layout.
 */
IDGEN_FUNCTION(timeuuid_v6)
{
	uuid_t		v1;
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	uuid_generate_time(v1);
	if (idgen::timeuuid_classify(v1) != idgen::TimeuuidKind::v1)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("libuuid returned a UUID that is not version 1")));
	idgen::uuid_v1_to_v6(v1, res->data);
	PG_RETURN_UUID_P(res);
}

IDGEN_FUNCTION(timeuuid_v1_to_v6)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	tu_require(u, idgen::TimeuuidKind::v1, 1, "timeuuid_v1_to_v6");
	idgen::uuid_v1_to_v6(u->data, res->data);
	PG_RETURN_UUID_P(res);
}

IDGEN_FUNCTION(timeuuid_v6_to_v1)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	tu_require(u, idgen::TimeuuidKind::v6, 6, "timeuuid_v6_to_v1");
	idgen::uuid_v6_to_v1(u->data, res->data);
	PG_RETURN_UUID_P(res);
}

/* SQL Server NEWSEQUENTIALID() byte order -> the v1 value it encodes. */
IDGEN_FUNCTION(timeuuid_from_sqlserver)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	idgen::uuid_swap_guid_fields(u->data, res->data);
	tu_require(res, idgen::TimeuuidKind::v1, 1, "timeuuid_from_sqlserver (after reordering)");
	PG_RETURN_UUID_P(res);
}
