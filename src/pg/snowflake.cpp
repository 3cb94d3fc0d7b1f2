/*
 * snowflake.cpp: snowflake_next(), its batch form, decoding, the range
 * bound and the state function; and the same for jsid_next(), the
 * JavaScript-safe layout (ids below 2^53), which runs on the same machinery
 * with a state word of its own.
 *
 * Shared memory "id_gen snowflake" (and "id_gen jsid"): the state word (the
 * last id issued by this server) is advanced by compare-and-swap with no
 * lock; the transition is idgen::snowflake::next() (src/core/snowflake.cpp)
 * under the stream's layout.  The issued counter and the time the stream
 * went ahead of the clock share the state's cache line, which the CAS has
 * just made exclusive, so they cost almost nothing.  Ahead of the clock a
 * stream borrows at most one millisecond per real millisecond (borrow_at_ns,
 * the monotonic clock), so its lead never grows.  Slow paths (waiting for
 * the next millisecond, a borrow, raising the persistent floor) touch only
 * their own counters.
 */
#include "pg/clock.hpp"
#include "pg/snowflake.hpp"
#include "pg/guc.hpp"
#include "pg/node_identity.hpp"
#include "pg/pg.hpp"
#include "pg/shmem.hpp"
#include "pg/unix_time.hpp"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/timestamp.h"
}

#include <sched.h>

#include "core/snowflake.hpp"

namespace sf = idgen::snowflake;

/*
 * The generators and their state() warn when the time field runs out within
 * id_gen.headroom_warning_days, the point where id_gen.headroom says warning.
 */
#define EXHAUSTION_WARNING_MS ((int64) idgen_headroom_warning_days * 24 * 3600 * 1000)

typedef struct SnowflakeShared
{
	/* hot: written by every call */
	pg_atomic_uint64 state;		/* last id issued, 0 = none */
	pg_atomic_uint64 issued;	/* ids issued since server start */
	pg_atomic_uint64 ahead_since;	/* Unix ms the stream went ahead of the clock, 0: it is not */
	char		pad[PG_CACHE_LINE_SIZE - 3 * sizeof(pg_atomic_uint64)];
	/* slow paths and constants */
	pg_atomic_uint64 next_ms_waits;
	pg_atomic_uint64 clock_backward_events;	/* times it went ahead of the clock */
	pg_atomic_uint64 borrow_at_ns;	/* monotonic ns from which the next millisecond may be borrowed */
	TimestampTz created;
} SnowflakeShared;


static void
snowflake_shared_init(void *ptr)
{
	SnowflakeShared *s = static_cast<SnowflakeShared *>(ptr);

	pg_atomic_init_u64(&s->state, 0);
	pg_atomic_init_u64(&s->issued, 0);
	pg_atomic_init_u64(&s->next_ms_waits, 0);
	pg_atomic_init_u64(&s->ahead_since, 0);
	pg_atomic_init_u64(&s->clock_backward_events, 0);
	pg_atomic_init_u64(&s->borrow_at_ns, 0);
	s->created = GetCurrentTimestamp();
}

/*
 * A stream: a layout, its shared state, and this backend's view of it.  Two
 * exist, snowflake_next()'s and jsid_next()'s; both count from the epoch
 * of this server start (idgen_clock_epoch_ms()) and stay above the same
 * clock floor.
 */
typedef struct SfStream
{
	const sf::Layout *layout;
	IdgenShmemStruct shmem;
	const char *ids;			/* "snowflake ids", in messages */
	const char *Ids;			/* the same at the start of a sentence */
	SnowflakeShared *shared;
	int64		epoch_ms;		/* idgen_clock_epoch_ms() */
	IdgenFloorSlot *slot;		/* this database's floor */
	bool		warned;			/* the exhaustion warning was given */
} SfStream;

static SfStream sf_stream = {
	&sf::kSnowflake,
	{"id_gen snowflake", sizeof(SnowflakeShared), snowflake_shared_init},
	"snowflake ids", "Snowflake ids", nullptr, 0, nullptr, false
};

static SfStream js_stream = {
	&sf::kJsid,
	{"id_gen jsid", sizeof(SnowflakeShared), snowflake_shared_init},
	"jsids", "jsids", nullptr, 0, nullptr, false
};

static void
snowflake_attach_shared(SfStream *st)
{
	if (st->shared != nullptr)
		return;
	st->epoch_ms = idgen_clock_epoch_ms();
	st->shared = static_cast<SnowflakeShared *>(idgen_shmem_attach(&st->shmem));
}

/* Raise the state word to at least `floor` (CAS max). */
static void
raise_state(SfStream *st, uint64 floor)
{
	uint64		cur = pg_atomic_read_u64(&st->shared->state);

	while (cur < floor)
		if (pg_atomic_compare_exchange_u64(&st->shared->state, &cur, floor))
			break;
}

/*
 * Clock floor hooks: a floor was just read (a backend's first use of a
 * database, or the first since promotion); the server-wide state continues
 * above it, before any backend may issue again.  The floor is a word of the
 * stream: compared as it is, whatever epoch or worker id it was issued under.
 */
static void
snowflake_raise(int64 floor_word)
{
	snowflake_attach_shared(&sf_stream);
	raise_state(&sf_stream, (uint64) floor_word);
}

static void
jsid_raise(int64 floor_word)
{
	snowflake_attach_shared(&js_stream);
	raise_state(&js_stream, (uint64) floor_word);
}

static int64
stream_word_unix_ms(SfStream *st, int64 word)
{
	snowflake_attach_shared(st);
	return (word >> st->layout->time_shift()) + st->epoch_ms;
}

static int64 snowflake_word_ms(int64 w) { return stream_word_unix_ms(&sf_stream, w); }
static int64 jsid_word_ms(int64 w) { return stream_word_unix_ms(&js_stream, w); }

static int64
snowflake_last_word(void)
{
	snowflake_attach_shared(&sf_stream);
	return (int64) pg_atomic_read_u64(&sf_stream.shared->state);
}

static int64
jsid_last_word(void)
{
	snowflake_attach_shared(&js_stream);
	return (int64) pg_atomic_read_u64(&js_stream.shared->state);
}

static int64
snowflake_ahead_since(void)
{
	snowflake_attach_shared(&sf_stream);
	return (int64) pg_atomic_read_u64(&sf_stream.shared->ahead_since);
}

static int64
jsid_ahead_since(void)
{
	snowflake_attach_shared(&js_stream);
	return (int64) pg_atomic_read_u64(&js_stream.shared->ahead_since);
}

static const IdgenStreamOps sf_ops = {
	"snowflake", "snowflake_floor", snowflake_raise, snowflake_word_ms, snowflake_last_word, snowflake_ahead_since
};
static const IdgenStreamOps js_ops = {
	"jsid", "jsid_floor", jsid_raise, jsid_word_ms, jsid_last_word, jsid_ahead_since
};

/*
 * First generation in this backend, or the floor is not final (a promotion
 * since): attach and load this database's floors; warn once when the time
 * field runs out within id_gen.headroom_warning_days.
 */
static void
snowflake_attach_generator(SfStream *st)
{
	snowflake_attach_shared(st);
	st->slot = idgen_clock_floor();
	if (st->warned)
		return;
	st->warned = true;

	int64		left = st->layout->max_time() - (idgen_clock_now_ms() - st->epoch_ms);

	if (left < EXHAUSTION_WARNING_MS)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("%s run out of time in %lld days", st->ids,
						(long long) (left / (24 * 3600 * 1000))),
				 errdetail("The %d-bit time field counted from the epoch %s ends at %s.", st->layout->time_bits,
						   pstrdup(timestamptz_to_str(idgen_timestamptz_from_unix_ms(st->epoch_ms))),
						   pstrdup(timestamptz_to_str(idgen_timestamptz_from_unix_ms(st->epoch_ms + st->layout->max_time())))),
				 errhint("Plan a new key scheme; %s_state() shows the date.",
						 st == &sf_stream ? "snowflake" : "jsid")));
}

/*
 * The worker id written into the stream's ids: id_gen.worker_id when set,
 * else this node's Citus group id, else 0 (node_identity.cpp).  It must fit
 * the layout (jsid's 4 bits take 0..15): a larger one is refused rather
 * than truncated, which would give two servers the same worker bits.
 */
static int32
stream_worker(SfStream *st, const char *fname)
{
	namespace ni = idgen::node_identity;
	ni::Resolved r = idgen_node_worker(st->layout->max_worker());

	if (r.status == ni::Status::Ok)
		return r.id;
	if (r.source == ni::Source::Setting)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s(): id_gen.worker_id %d does not fit the %d worker bits of %s",
						fname, idgen_worker_id, st->layout->worker_bits, st->ids),
				 errdetail("%s take worker ids 0 to %d.", st->Ids, st->layout->max_worker()),
				 errhint("Give the servers that use %s() worker ids from 0 to %d.", fname,
						 st->layout->max_worker())));
	int64		group = 0;

	(void) idgen_citus_group(&group);
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("%s(): this node's Citus group id %lld does not fit the %d worker bits of %s",
					fname, (long long) group, st->layout->worker_bits, st->ids),
			 errdetail("With id_gen.worker_id unset (-1) the worker id is the Citus group id; "
					   "Citus numbers groups upwards as nodes are added and re-added."),
			 errhint("Set id_gen.worker_id on this node to a worker id from 0 to %d that no other node uses "
					 "(node_identity_check() lists them) and reload.", st->layout->max_worker())));
	pg_unreachable();
}

/* Wait until the clock shows a millisecond after `ms` (epoch-relative). */
static void
wait_past_ms(SfStream *st, int64 ms)
{
	for (;;)
	{
		int64		now_us = idgen_clock_now_us() - st->epoch_ms * 1000;
		int64		left_us = (ms + 1) * 1000 - now_us;

		/*
		 * Done, or the clock stepped back meanwhile (more than a millisecond
		 * to go): the transition function decides what to do about that.
		 */
		if (left_us <= 0 || left_us > 1000)
			return;
		CHECK_FOR_INTERRUPTS();
		/*
		 * Sleep through most of the wait, leaving a margin for the timer
		 * slack (50 us and more) so as not to oversleep the boundary, which
		 * would cost throughput at saturation; yield the core for the rest.
		 * Waiters therefore burn at most ~300 us of each millisecond.
		 */
		if (left_us > 400)
			pg_usleep(left_us - 300);
		else
			sched_yield();
	}
}

/*
 * Ahead of the clock with the last id's millisecond used up: may the next
 * one be borrowed now?  One borrow per elapsed real millisecond (the
 * monotonic clock): taken by compare-and-swap, so that the lead never grows
 * however many backends call.  Otherwise sleep until one may be.
 */
static bool
take_borrow(SfStream *st)
{
	int64		mono = idgen_clock_mono_ns();
	uint64		at = pg_atomic_read_u64(&st->shared->borrow_at_ns);

	/* (a time more than a millisecond away was set under another test clock) */
	if (((int64) at <= mono || (int64) at > mono + 1000000) &&
		pg_atomic_compare_exchange_u64(&st->shared->borrow_at_ns, &at, (uint64) (mono + 1000000)))
		return true;
	pg_usleep(Max(1, Min(1000, ((int64) at - mono) / 1000)));
	CHECK_FOR_INTERRUPTS();
	return false;
}

/* Note when the stream went ahead of the clock, and when it came back. */
static void
note_ahead(SnowflakeShared *sh, bool ahead)
{
	if (ahead)
	{
		uint64		zero = 0;

		if (pg_atomic_compare_exchange_u64(&sh->ahead_since, &zero, (uint64) idgen_clock_now_ms()))
			pg_atomic_fetch_add_u64(&sh->clock_backward_events, 1);
	}
	else
		pg_atomic_write_u64(&sh->ahead_since, 0);
}

/*
 * Reserve `count` consecutive ids (1..4096) within one millisecond; returns
 * the first.  The only function that changes the state word.
 */
static int64
snowflake_reserve(SfStream *st, int32 count, const char *fname)
{
	bool		may_borrow = false;
	SnowflakeShared *sh;
	int64		sf_epoch_ms;
	IdgenStream stream = st == &sf_stream ? IDGEN_STREAM_SNOWFLAKE : IDGEN_STREAM_JSID;

	idgen_check_can_generate(fname);
	/* (the floor is checked ready in the loop, after it is read) */
	if (unlikely(st->slot == nullptr))
		snowflake_attach_generator(st);
	sh = st->shared;
	sf_epoch_ms = st->epoch_ms;

	for (;;)
	{
		/* State first, then the clock: a reading older than the state is a real step back. */
		uint64		state = pg_atomic_read_u64(&sh->state);
		int64		now = idgen_clock_now_ms() - sf_epoch_ms;
		int64		floor = idgen_clock_floor_of(st->slot, stream);
		int32		worker = stream_worker(st, fname);

		/* a floor read after a reinstall raised it in its own sequences: make it ours */
		pg_read_barrier();
		if (unlikely(!idgen_clock_floor_ready(st->slot)))
		{
			snowflake_attach_generator(st);
			continue;
		}

		/* A jump past the last id's next millisecond: follow it only if real time confirms it. */
		if (unlikely(now > ((int64) state >> st->layout->time_shift()) + 1))
			now = idgen_clock_confirm_ms(now + sf_epoch_ms) - sf_epoch_ms;

		/* the largest millisecond the floor covers whole (unsigned: the last word is INT64_MAX) */
		sf::Step	s = sf::next(*st->layout, (int64) state, now, worker, count,
								 (int64) (((uint64) floor + 1) >> st->layout->time_shift()) - 1, may_borrow,
								 idgen_snowflake_start_spread);

		switch (s.status)
		{
			case sf::Status::Ok:
				if (!pg_atomic_compare_exchange_u64(&sh->state, &state, (uint64) s.new_state))
					continue;
				pg_atomic_fetch_add_u64(&sh->issued, count);
				if (unlikely((s.behind_ms > 0) != (pg_atomic_read_u64(&sh->ahead_since) != 0)))
					note_ahead(sh, s.behind_ms > 0);
				return s.first_id;
			case sf::Status::WaitNextMs:
				pg_atomic_fetch_add_u64(&sh->next_ms_waits, 1);
				wait_past_ms(st, now);
				continue;
			case sf::Status::AheadFull:
				may_borrow = take_borrow(st);
				continue;
			case sf::Status::FloorReached:
				{
					/* The floor: the reserved millisecond's last id of any worker. */
					int64		need = sf::state_after(*st->layout, s.need_floor_ms);
					int64		target = sf::state_after(*st->layout, Max(s.need_floor_ms, now) + IDGEN_FLOOR_STEP_MS);

					CHECK_FOR_INTERRUPTS();
					/* Always possible here: idgen_check_can_generate() passed. */
					if (idgen_clock_floor_advance(st->slot, stream, need, target) < need)
						elog(ERROR, "%s(): the floor could not be advanced", fname);
					continue;
				}
			case sf::Status::ClockBeforeEpoch:
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("%s(): the clock reads %lld ms before the snowflake epoch", fname,
								(long long) s.behind_ms),
						 errhint("Check the system clock and id_gen.snowflake_epoch.")));
				break;
			case sf::Status::TimeExhausted:
				ereport(ERROR,
						(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
						 errmsg("%s(): the %d-bit time field of %s is exhausted", fname,
								st->layout->time_bits, st->ids),
						 errdetail("It ended at %s (epoch %s).",
								   pstrdup(timestamptz_to_str(idgen_timestamptz_from_unix_ms(sf_epoch_ms + st->layout->max_time()))),
								   pstrdup(timestamptz_to_str(idgen_timestamptz_from_unix_ms(sf_epoch_ms)))),
						 errhint("%s cannot be generated any more with this epoch.", st->Ids)));
				break;
			case sf::Status::BadArgument:
				elog(ERROR, "%s(): invalid generator argument (worker %d, count %d)",
					 fname, idgen_worker_id, count);
				break;
		}
	}
}

/* snowflake_next() → bigint: the next id of this server. */
IDGEN_FUNCTION(snowflake_next)
{
	PG_RETURN_INT64(snowflake_reserve(&sf_stream, 1, "snowflake_next"));
}

/* jsid_next() → bigint: the next JavaScript-safe id of this server (below 2^53). */
IDGEN_FUNCTION(jsid_next)
{
	PG_RETURN_INT64(snowflake_reserve(&js_stream, 1, "jsid_next"));
}

/*
 * snowflake_next_batch(n) → SETOF bigint: n (1..4096) consecutive ids of
 * one millisecond, reserved with one compare-and-swap.
 */
IDGEN_FUNCTION(snowflake_next_batch)
{
	FuncCallContext *funcctx;

	if (SRF_IS_FIRSTCALL())
	{
		int32		n;
		int64	   *first;

		if (PG_ARGISNULL(0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("snowflake_next_batch(): the count must not be NULL")));
		n = PG_GETARG_INT32(0);
		if (n < 1 || n > sf::kIdsPerMs)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("snowflake_next_batch(): the count must be between 1 and %d, not %d",
							sf::kIdsPerMs, n),
					 errdetail("A batch is reserved within one millisecond, which holds %d ids.",
							   sf::kIdsPerMs)));
		funcctx = SRF_FIRSTCALL_INIT();
		first = static_cast<int64 *>(MemoryContextAlloc(funcctx->multi_call_memory_ctx, sizeof(int64)));
		*first = snowflake_reserve(&sf_stream, n, "snowflake_next_batch");
		funcctx->user_fctx = first;
		funcctx->max_calls = n;
	}
	funcctx = SRF_PERCALL_SETUP();
	if (funcctx->call_cntr < funcctx->max_calls)
	{
		int64		id = *static_cast<int64 *>(funcctx->user_fctx) + (int64) funcctx->call_cntr;

		SRF_RETURN_NEXT(funcctx, Int64GetDatum(id));
	}
	SRF_RETURN_DONE(funcctx);
}

/* decode(id) → (ts, worker_id, sequence), with this server's epoch. */
static Datum
stream_decode(SfStream *st, FunctionCallInfo fcinfo)
{
	int64		id = PG_GETARG_INT64(0);
	sf::Parts	p;
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (!sf::decode(*st->layout, id, &p))
	{
		if (st == &sf_stream)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("%lld is not a snowflake id", (long long) id),
					 errdetail("Snowflake ids are never negative.")));
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%lld is not a jsid", (long long) id),
				 errdetail("jsids lie between 0 and %lld (2^53 - 1).", (long long) st->layout->max_id())));
	}
	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	snowflake_attach_shared(st);
	values[0] = TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(p.time_ms + st->epoch_ms));
	values[1] = Int32GetDatum(p.worker);
	values[2] = Int32GetDatum(p.sequence);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

IDGEN_FUNCTION(snowflake_decode)
{
	return stream_decode(&sf_stream, fcinfo);
}

IDGEN_FUNCTION(jsid_decode)
{
	return stream_decode(&js_stream, fcinfo);
}

/*
 * min_id(ts) → bigint: the smallest id any worker can issue at ts
 * (truncated to the millisecond), so "id >= snowflake_min_id(ts)" selects
 * ids issued at or after ts; with `largest`, the largest id of that
 * millisecond, for closed ranges.
 */
static int64
stream_bound_id(SfStream *st, TimestampTz ts, bool largest, const char *fname)
{
	int64		id;

	snowflake_attach_shared(st);
	if (TIMESTAMP_NOT_FINITE(ts))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("%s(): the time must be finite", fname)));
	/* floor division: times before 2000 are negative */
	int64		pg_ms = ts >= 0 ? ts / 1000 : -((-ts + 999) / 1000);
	int64		ms = pg_ms + IDGEN_UNIX_MS_AT_PG_EPOCH - st->epoch_ms;

	if (!sf::min_id(*st->layout, ms, &id))
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
				 errmsg("%s(): %s is outside the range of %s", fname,
						timestamptz_to_str(ts), st->ids),
				 errdetail("%s cover %s to %s.", st->Ids,
						   pstrdup(timestamptz_to_str(idgen_timestamptz_from_unix_ms(st->epoch_ms))),
						   pstrdup(timestamptz_to_str(idgen_timestamptz_from_unix_ms(st->epoch_ms + st->layout->max_time()))))));
	if (largest)
		id |= ((int64) 1 << st->layout->time_shift()) - 1;
	return id;
}

IDGEN_FUNCTION(snowflake_min_id)
{
	PG_RETURN_INT64(stream_bound_id(&sf_stream, PG_GETARG_TIMESTAMPTZ(0), false, "snowflake_min_id"));
}

IDGEN_FUNCTION(jsid_min_id)
{
	PG_RETURN_INT64(stream_bound_id(&js_stream, PG_GETARG_TIMESTAMPTZ(0), false, "jsid_min_id"));
}

IDGEN_FUNCTION(jsid_max_id)
{
	PG_RETURN_INT64(stream_bound_id(&js_stream, PG_GETARG_TIMESTAMPTZ(0), true, "jsid_max_id"));
}

/*
 * state(): what the generator is doing, and when its time field runs out
 * (with a WARNING within id_gen.headroom_warning_days of that).
 */
static Datum
stream_state(SfStream *st, FunctionCallInfo fcinfo)
{
	TupleDesc	tupdesc;
	Datum		values[13];
	bool		nulls[13] = {false};
	int			i = 0;

	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	snowflake_attach_shared(st);

	SnowflakeShared *sh = st->shared;
	int64		sf_epoch_ms = st->epoch_ms;
	uint64		state = pg_atomic_read_u64(&sh->state);
	IdgenFloorSlot *slot = idgen_clock_floor_peek();
	int64		end_ms = sf_epoch_ms + st->layout->max_time();
	int64		left = end_ms - idgen_clock_now_ms();

	{
		idgen::node_identity::Resolved w = idgen_node_worker(st->layout->max_worker());

		nulls[i] = w.status != idgen::node_identity::Status::Ok;
		values[i++] = Int32GetDatum(w.id);
	}
	values[i++] = TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(sf_epoch_ms));
	nulls[i] = state == 0;
	values[i++] = Int64GetDatum((int64) state);
	nulls[i] = state == 0;
	values[i++] = TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(((int64) state >> st->layout->time_shift()) + sf_epoch_ms));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&sh->issued));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&sh->next_ms_waits));
	values[i++] = Int64GetDatum((int64) pg_atomic_read_u64(&sh->clock_backward_events));
	{
		int64		since = (int64) pg_atomic_read_u64(&sh->ahead_since);

		nulls[i] = since == 0;
		values[i++] = TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(since));
	}
	if (slot != nullptr && pg_atomic_read_u32(&slot->loaded) != 0)
		values[i] = TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(
			stream_word_unix_ms(st, idgen_clock_floor_of(slot, st == &sf_stream ? IDGEN_STREAM_SNOWFLAKE : IDGEN_STREAM_JSID))));
	else
		nulls[i] = true;
	i++;
	values[i++] = Int64GetDatum(slot ? (int64) pg_atomic_read_u64(&slot->advances) : 0);
	values[i++] = TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(end_ms));
	values[i++] = IntervalPGetDatum(DatumGetIntervalP(DirectFunctionCall2(timestamp_mi,
																			  TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(end_ms)),
																			  TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(idgen_clock_now_ms())))));
	values[i++] = TimestampTzGetDatum(sh->created);
	Assert(i == 13);

	if (left < EXHAUSTION_WARNING_MS)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("%s run out of time %s", st->ids,
						left > 0 ? psprintf("in %lld days", (long long) (left / (24 * 3600 * 1000))) : "now"),
				 errdetail("The %d-bit time field counted from the epoch ends at %s.", st->layout->time_bits,
						   timestamptz_to_str(idgen_timestamptz_from_unix_ms(end_ms))),
				 errhint("Plan a new key scheme before then.")));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

IDGEN_FUNCTION(snowflake_state)
{
	return stream_state(&sf_stream, fcinfo);
}

IDGEN_FUNCTION(jsid_state)
{
	return stream_state(&js_stream, fcinfo);
}

/* From _PG_init: the shared states, and their start above every floor read. */
void
idgen_snowflake_init(void)
{
	idgen_shmem_register(&sf_stream.shmem);
	idgen_shmem_register(&js_stream.shmem);
	idgen_clock_register(IDGEN_STREAM_SNOWFLAKE, &sf_ops);
	idgen_clock_register(IDGEN_STREAM_JSID, &js_ops);
}
