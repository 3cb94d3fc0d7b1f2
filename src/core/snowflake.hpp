/*
 * snowflake.hpp: the snowflake id layout and the generator's state machine,
 * in plain C++ so that every transition can be unit-tested.
 *
 * Layout (ShardingSphere's): bit 63 = 0, 41 bits of milliseconds since the
 * epoch, 10 bits of worker id, 12 bits of sequence.  The same machinery
 * serves jsid_next(), whose narrower layout keeps ids below 2^53.
 *
 * The generator's whole state is ONE 64-bit word: the last id it issued
 * (0 = none yet).  Since an id orders first by time, then worker, then
 * sequence, "the next id is greater than the state word" is exactly the
 * property "never a duplicate, never an id smaller than one issued", and a
 * compare-and-swap of that word is all the synchronisation needed.
 *
 * The start spread (id_gen.snowflake_start_spread) lives in that word too:
 * a new millisecond's sequence starts where the last id's left off, modulo
 * spread + 1, instead of at 0.  With spread + 1 a power of two, the low bits
 * of a server's consecutive ids then count up by one whatever the rate, so
 * `id % n` takes every residue in turn for each power of two n <= spread + 1
 * (ShardingSphere's max-vibration-offset answers the same skew with a
 * counter of its own).
 */
#pragma once

#include <cstdint>

namespace idgen {
namespace snowflake {

/*
 * A layout: bit widths of the time (ms since the epoch), worker and
 * sequence fields, most significant first, below a zero sign bit.  The
 * generator below works for any layout; two are used.
 */
struct Layout
{
	int			time_bits;
	int			worker_bits;
	int			sequence_bits;

	constexpr int worker_shift() const { return sequence_bits; }
	constexpr int time_shift() const { return sequence_bits + worker_bits; }
	constexpr int64_t max_time() const { return (INT64_C(1) << time_bits) - 1; }
	constexpr int32_t max_worker() const { return (1 << worker_bits) - 1; }
	constexpr int32_t max_sequence() const { return (1 << sequence_bits) - 1; }
	constexpr int32_t ids_per_ms() const { return 1 << sequence_bits; }
	/* the largest id: every field at its maximum */
	constexpr int64_t max_id() const
	{
		return static_cast<int64_t>((UINT64_C(1) << (time_bits + worker_bits + sequence_bits)) - 1);
	}
};

/* snowflake_next(): 41 + 10 + 12 bits, ShardingSphere's. */
constexpr Layout kSnowflake = {41, 10, 12};

/*
 * jsid_next(): 41 + 4 + 8 = 53 bits, so every id is below 2^53 and survives
 * a JavaScript Number (an IEEE double) exactly: 16 worker ids, 256 ids per
 * millisecond, the same time field as snowflake ids.
 */
constexpr Layout kJsid = {41, 4, 8};

constexpr int kTimeBits = kSnowflake.time_bits;
constexpr int kWorkerBits = kSnowflake.worker_bits;
constexpr int kSequenceBits = kSnowflake.sequence_bits;
constexpr int kWorkerShift = kSnowflake.worker_shift();
constexpr int kTimeShift = kSnowflake.time_shift();
constexpr int64_t kMaxTime = kSnowflake.max_time();	/* ms since epoch */
constexpr int32_t kMaxWorker = kSnowflake.max_worker();
constexpr int32_t kMaxSequence = kSnowflake.max_sequence();
constexpr int32_t kIdsPerMs = kSnowflake.ids_per_ms();

struct Parts
{
	int64_t		time_ms;		/* ms since the epoch */
	int32_t		worker;
	int32_t		sequence;
};

/* Builds an id; false when a field is out of range. */
bool encode(const Layout &l, int64_t time_ms, int32_t worker, int32_t sequence, int64_t *id) noexcept;

/* Splits an id; false for an id outside [0, l.max_id()] (negative, or wider than the layout). */
bool decode(const Layout &l, int64_t id, Parts *parts) noexcept;

/*
 * Smallest id whose time is time_ms (worker 0, sequence 0): the bound of a
 * range predicate "id >= min_id(t)".  False when time_ms is outside 0..max_time.
 */
bool min_id(const Layout &l, int64_t time_ms, int64_t *id) noexcept;

/*
 * The start spread a layout applies for a setting: jsid's 8-bit sequence
 * takes at most 255, snowflake's 4095; a negative value is 0.
 */
constexpr int32_t
effective_spread(const Layout &l, int32_t spread) noexcept
{
	return spread < 0 ? 0 : spread > l.max_sequence() ? l.max_sequence() : spread;
}

/*
 * What the spread costs a layout, in ids per millisecond: a millisecond
 * whose sequence starts at `spread` holds ids_per_ms - spread (the fewest,
 * once per burst); at saturation every millisecond follows a full one and
 * starts at ids_per_ms % (spread + 1), 0 for spread + 1 a power of two.
 */
struct Capacity
{
	int32_t		spread;			/* effective_spread() */
	int32_t		fewest_per_ms;	/* a millisecond holds at least this many */
	int32_t		saturated_per_ms;	/* each millisecond at saturation */
};

constexpr Capacity
capacity(const Layout &l, int32_t spread) noexcept
{
	const int32_t s = effective_spread(l, spread);

	return Capacity{s, l.ids_per_ms() - s, l.ids_per_ms() - l.ids_per_ms() % (s + 1)};
}

/* The snowflake layout's forms, as before layouts were parameters. */
inline bool
encode(int64_t time_ms, int32_t worker, int32_t sequence, int64_t *id) noexcept
{
	return encode(kSnowflake, time_ms, worker, sequence, id);
}

inline bool
decode(int64_t id, Parts *parts) noexcept
{
	return decode(kSnowflake, id, parts);
}

inline bool
min_id(int64_t time_ms, int64_t *id) noexcept
{
	return min_id(kSnowflake, time_ms, id);
}

enum class Status
{
	Ok,					/* new_state is the last id of the reserved run */
	WaitNextMs,			/* the clock's millisecond is used up: retry at the next */
	AheadFull,			/* ahead of the clock, its millisecond used up: retry with may_borrow */
	ClockBeforeEpoch,	/* now_ms < 0: clock (or epoch setting) is wrong */
	FloorReached,		/* the run would pass the persisted floor: raise it first */
	TimeExhausted,		/* the 41-bit time field is used up */
	BadArgument			/* worker or count out of range */
};

struct Step
{
	Status		status;
	int64_t		first_id;		/* Ok: first id of the run */
	int64_t		new_state;		/* Ok: last id of the run, to CAS in */
	int64_t		behind_ms;		/* Ok, AheadFull: how far the clock is behind the run */
	int64_t		need_floor_ms;	/* FloorReached: time the floor must cover */
};

/*
 * The transition function of a layout.  Given the state word (last id
 * issued, 0 for none), the clock reading now_ms (ms since the epoch), the
 * worker id, the number of consecutive ids wanted (1..ids_per_ms, all
 * within one millisecond), the persisted floor (ids may be issued at times
 * <= floor_ms only), whether the run may borrow the millisecond after the
 * last id's while the clock is behind it, and the start spread (clamped to
 * the layout: see effective_spread()), it returns the run to issue or why
 * not.
 *
 * A time-ordered generator never refuses because of time: with the clock
 * behind the last id, ids continue above it, in its millisecond while its
 * sequence lasts, then in the next one, borrowed as (ms + 1) | worker |
 * start, never by adding one to a full state (that would carry into the
 * worker field).  The caller allows a borrow (may_borrow) at most once per
 * elapsed real millisecond, so running ahead never makes the lead grow.
 * The sequence is never derived from a clock behind the state
 * (twitter-archive/snowflake #6 reset it first and duplicated).  Inline: it
 * is the hot path of snowflake_next().
 */
inline Step
next(const Layout &l, int64_t state, int64_t now_ms, int32_t worker, int32_t count,
	 int64_t floor_ms, bool may_borrow, int32_t start_spread = 0) noexcept
{
	Step		s{};

	if (worker < 0 || worker > l.max_worker() || count < 1 || count > l.ids_per_ms() || state < 0)
	{
		s.status = Status::BadArgument;
		return s;
	}
	if (now_ms < 0)
	{
		s.status = Status::ClockBeforeEpoch;
		s.behind_ms = -now_ms;
		return s;
	}

	const int64_t last_ms = state >> l.time_shift();
	const int64_t worker_bits = static_cast<int64_t>(worker) << l.worker_shift();
	int64_t		ms;
	int64_t		first;

	/*
	 * A new millisecond starts at 0, or with a spread at the sequence after
	 * the last id's modulo spread + 1, lowered so that the run fits: any
	 * start of a later millisecond is above every id of an earlier one.
	 */
	auto		start_of_new_ms = [&](int64_t new_ms) noexcept {
		int64_t		f = (new_ms << l.time_shift()) | worker_bits;

		if (start_spread > 0)
		{
			const int64_t spread = effective_spread(l, start_spread);
			int64_t		start = ((state & l.max_sequence()) + 1) % (spread + 1);

			if (start > l.ids_per_ms() - count)
				start = l.ids_per_ms() - count;
			f |= start;
		}
		return f;
	};

	if (now_ms > last_ms)
	{
		if (now_ms > l.max_time())
		{
			s.status = Status::TimeExhausted;
			return s;
		}
		ms = now_ms;
		first = start_of_new_ms(ms);
	}
	else
	{
		const int64_t lo = (last_ms << l.time_shift()) | worker_bits;

		ms = last_ms;
		/* unsigned: INT64_MAX + 1 must not overflow (it fails the test below) */
		first = state < lo ? lo : static_cast<int64_t>(static_cast<uint64_t>(state) + 1);
		/*
		 * Does the run stay in this millisecond and worker?  Not when the
		 * millisecond is used up, nor when the last id carries a higher worker
		 * id (the setting was lowered): a later millisecond, the clock's next
		 * one, or ahead of the clock a borrowed one.
		 */
		if ((first & l.max_sequence()) + count - 1 > l.max_sequence() ||
			(first & ~static_cast<int64_t>(l.max_sequence())) != lo)
		{
			if (ms >= l.max_time())
			{
				s.status = Status::TimeExhausted;
				return s;
			}
			if (now_ms == last_ms || !may_borrow)
			{
				s.status = now_ms == last_ms ? Status::WaitNextMs : Status::AheadFull;
				s.behind_ms = last_ms - now_ms;
				return s;
			}
			ms = last_ms + 1;
			first = start_of_new_ms(ms);
		}
	}

	if (ms > floor_ms)
	{
		s.status = Status::FloorReached;
		s.need_floor_ms = ms;
		return s;
	}
	s.status = Status::Ok;
	s.first_id = first;
	s.new_state = first + count - 1;
	s.behind_ms = ms > now_ms ? ms - now_ms : 0;
	return s;
}

/* The snowflake layout's transition (see above). */
inline Step
next(int64_t state, int64_t now_ms, int32_t worker, int32_t count,
	 int64_t floor_ms, bool may_borrow, int32_t start_spread = 0) noexcept
{
	return next(kSnowflake, state, now_ms, worker, count, floor_ms, may_borrow, start_spread);
}

/*
 * The state word that makes every later id exceed every id that may have
 * been issued at or before time_ms (any worker, any sequence): used to
 * restart above a persisted floor.  time_ms < 0 gives 0; clamps at kMaxTime.
 */
int64_t state_after(const Layout &l, int64_t time_ms) noexcept;

inline int64_t
state_after(int64_t time_ms) noexcept
{
	return state_after(kSnowflake, time_ms);
}

}  // namespace snowflake
}  // namespace idgen
