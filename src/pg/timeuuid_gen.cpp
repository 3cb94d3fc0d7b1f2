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
 *  - conversions v1 <-> v6, v13 (COMB) <-> v6, and to and from SQL
 *    Server's NEWSEQUENTIALID byte order.
 *
 * Shared state protocol: `word` is only ever changed by CAS and only grows;
 * a word above this database's persisted floor (id_gen.timeuuid_floor) is
 * issued only after the floor has been raised (clock.hpp), where WAL can be
 * written (not in read-only transactions, parallel workers or on a hot
 * standby); after every floor read (a start, a promotion) the word is
 * raised above it by a hook.  A jump of the clock past the word's next
 * millisecond is followed only if the monotonic clock confirms it.  The structure is created
 * by the first backend that needs it (idgen_shmem_attach) and lives until
 * the postmaster restarts.
 */
#include "pg/pg.hpp"
#include "pg/clock.hpp"
#include "pg/timeuuid_gen.hpp"
#include "pg/guc.hpp"
#include "pg/shmem.hpp"
#include "pg/unix_time.hpp"

extern "C" {
#include "common/int.h"
#include "port/atomics.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"
}

#include <uuid/uuid.h>

#include "core/uuid_layout.hpp"


typedef struct TimeuuidShared
{
	pg_atomic_uint64 word;		/* last issued state word, 0 before the first */
	pg_atomic_uint64 ahead_since;	/* Unix ms the stream went ahead of the clock, 0: it is not */
} TimeuuidShared;

static TimeuuidShared *tu_shared = nullptr;

/*
 * This database's floor slot (src/pg/clock.hpp): no word above the floor is
 * issued unless the floor has first been raised durably, and after a
 * restart, a crash or a promotion the stream starts above the floor
 * persisted before.  A parallel worker or a read-only transaction cannot
 * raise the floor: its ids above it are issued all the same (their random
 * bits keep them apart).
 */
static IdgenFloorSlot *tu_slot = nullptr;

static void
tu_shared_init(void *ptr)
{
	TimeuuidShared *st = static_cast<TimeuuidShared *>(ptr);

	pg_atomic_init_u64(&st->word, 0);
	pg_atomic_init_u64(&st->ahead_since, 0);
}

static const IdgenShmemStruct timeuuid_shmem = {
	"id_gen timeuuid", sizeof(TimeuuidShared), tu_shared_init
};

/* Raise the shared word to at least w (idempotent; the word only grows). */
static void
tu_raise_word(TimeuuidShared *st, uint64 w)
{
	uint64		prev = pg_atomic_read_u64(&st->word);

	while (prev < w && !pg_atomic_compare_exchange_u64(&st->word, &prev, w))
		;
}

static inline TimeuuidShared *
tu_attach(void)
{
	if (unlikely(tu_shared == nullptr))
		tu_shared = static_cast<TimeuuidShared *>(idgen_shmem_attach(&timeuuid_shmem));
	return tu_shared;
}

/*
 * Clock floor hook: a floor (a word of this stream) was just read (a
 * backend's first use of a database, or the first since promotion): the
 * stream continues above it, before any backend may issue again.
 */
static void
tu_raise_to_floor(int64 floor_word)
{
	tu_raise_word(tu_attach(), static_cast<uint64>(floor_word));
}

static int64
tu_word_unix_ms(int64 word)
{
	return static_cast<int64>(idgen::v7_word_ms(static_cast<uint64>(word)));
}

static int64
tu_last_word(void)
{
	return static_cast<int64>(pg_atomic_read_u64(&tu_attach()->word));
}

static int64
tu_ahead_since(void)
{
	return static_cast<int64>(pg_atomic_read_u64(&tu_attach()->ahead_since));
}

static const IdgenStreamOps tu_ops = {
	"timeuuid", "timeuuid_floor", tu_raise_to_floor, tu_word_unix_ms, tu_last_word, tu_ahead_since
};

/*
 * The shared state, with this database's floor loaded: on the first use in
 * this backend, and again while the floor is not final (read on a standby:
 * after promotion it is read again).  In every context, parallel workers
 * included: a first call after a restart must not skip the floor.
 */
static inline TimeuuidShared *
tu_state(void)
{
	TimeuuidShared *st = tu_attach();

	if (unlikely(!idgen_clock_floor_ready(tu_slot)))
		tu_slot = idgen_clock_floor();
	return st;
}

void
idgen_timeuuid_init(void)
{
	idgen_shmem_register(&timeuuid_shmem);
	idgen_clock_register(IDGEN_STREAM_TIMEUUID, &tu_ops);
}

/*
 * Wall-clock nanoseconds since 1970 (idgen_clock_now_ns()).  Before 1970
 * counts as 1970.
 */
static inline uint64
tu_clock_ns(void)
{
	int64		ns = idgen_clock_now_ns();

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
	prev = pg_atomic_read_u64(&st->word);
	/* A jump past the last word's next millisecond: follow it only if real time confirms it. */
	if (unlikely(now_ns / 1000000 > idgen::v7_word_ms(prev) + 1))
		now_ns = static_cast<uint64>(idgen_clock_confirm_ms(static_cast<int64>(now_ns / 1000000))) * 1000000 +
			now_ns % 1000000;
	now = idgen::v7_word_from_clock(now_ns);
	for (;;)
	{
		next = idgen::v7_word_advance(prev, now);
		if (unlikely(next < prev))
			ereport(ERROR,
					(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
					 errmsg("timeuuid_next() has exhausted its time range")));
		/*
		 * Above the persisted floor: raise it durably first (once a second),
		 * to the last word of a millisecond a step ahead.  Where nothing can
		 * be written (a hot standby, a read-only transaction, a parallel
		 * worker) the id is issued all the same, outside the restart
		 * guarantee (documented).
		 */
		/* unsigned: from the year 2248 a word has its top bit set */
		uint64		floor = static_cast<uint64>(idgen_clock_floor_of(tu_slot, IDGEN_STREAM_TIMEUUID));

		/* a floor read after a reinstall raised it in its own sequences: make it ours */
		pg_read_barrier();
		if (unlikely(!idgen_clock_floor_ready(tu_slot)))
		{
			tu_slot = idgen_clock_floor();
			floor = static_cast<uint64>(idgen_clock_floor_of(tu_slot, IDGEN_STREAM_TIMEUUID));
		}
		if (unlikely(next > floor))
		{
			uint64		ms = Max(idgen::v7_word_ms(next), now_ns / 1000000) + IDGEN_FLOOR_STEP_MS;

			(void) idgen_clock_floor_advance(tu_slot, IDGEN_STREAM_TIMEUUID, static_cast<int64>(next),
											 static_cast<int64>(idgen::v7_word_from_clock((ms + 1) * 1000000) - 1));
		}
		if (pg_atomic_compare_exchange_u64(&st->word, &prev, next))
			break;
	}
	/* Note when the stream went ahead of the clock (the word's ms past the clock's), and back. */
	if (unlikely((next > now && idgen::v7_word_ms(next) > idgen::v7_word_ms(now)) !=
				 (pg_atomic_read_u64(&st->ahead_since) != 0)))
		pg_atomic_write_u64(&st->ahead_since,
							pg_atomic_read_u64(&st->ahead_since) != 0 ? 0 : static_cast<uint64>(now_ns / 1000000));

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
		pg_add_s64_overflow(ts, IDGEN_UNIX_US_AT_PG_EPOCH, &us) ||
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
	TimestampTz now = idgen_timestamptz_from_unix_us(static_cast<int64>(now_ns / 1000));
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

/*
 * SQL Server byte order of a v1, v6 or v13 value: the NEWSEQUENTIALID()
 * form of the v1 value with the same time, clock sequence and node, so that
 * timeuuid_from_sqlserver() gives that v1 value back.
 */
IDGEN_FUNCTION(timeuuid_to_sqlserver)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
	char		text[idgen::kUuidTextLen + 1];

	if (!idgen::uuid_gregorian_to_v1(u->data, res->data))
	{
		idgen::uuid_format(u->data, text);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("timeuuid_to_sqlserver expects a version 1, 6 or 13 UUID: \"%s\"", text),
				 errdetail("Only those carry the 100-ns timestamp, clock sequence and node of NEWSEQUENTIALID()."),
				 idgen::timeuuid_classify(u->data) == idgen::TimeuuidKind::v7 ?
				 errhint("A version 7 value has no SQL Server form; keep it in a uniqueidentifier as it is.") : 0));
	}
	idgen::uuid_swap_guid_fields(res->data, res->data);
	PG_RETURN_UUID_P(res);
}

/*
 * COMB (version 13, v6's layout) to version 6 and back: only the version
 * nibble changes, so time, clock sequence and node are kept and the
 * conversions are lossless.
 */
IDGEN_FUNCTION(timeuuid_comb_to_v6)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	tu_require(u, idgen::TimeuuidKind::comb, idgen::kCombVersion, "timeuuid_comb_to_v6");
	idgen::uuid_set_version(u->data, 6, res->data);
	PG_RETURN_UUID_P(res);
}

IDGEN_FUNCTION(timeuuid_v6_to_comb)
{
	pg_uuid_t  *u = PG_GETARG_UUID_P(0);
	pg_uuid_t  *res = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));

	tu_require(u, idgen::TimeuuidKind::v6, 6, "timeuuid_v6_to_comb");
	idgen::uuid_set_version(u->data, idgen::kCombVersion, res->data);
	PG_RETURN_UUID_P(res);
}
