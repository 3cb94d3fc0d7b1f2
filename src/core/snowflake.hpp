/*
 * snowflake.hpp: the snowflake id layout and the generator's state machine,
 * in plain C++ so that every transition can be unit-tested.
 *
 * Layout (ShardingSphere's): bit 63 = 0, 41 bits of milliseconds since the
 * epoch, 10 bits of worker id, 12 bits of sequence.
 *
 * The generator's whole state is ONE 64-bit word: the last id it issued
 * (0 = none yet).  Since an id orders first by time, then worker, then
 * sequence, "the next id is greater than the state word" is exactly the
 * property "never a duplicate, never an id smaller than one issued", and a
 * compare-and-swap of that word is all the synchronisation needed.
 */
#pragma once

#include <cstdint>

namespace idgen {
namespace snowflake {

constexpr int kTimeBits = 41;
constexpr int kWorkerBits = 10;
constexpr int kSequenceBits = 12;
constexpr int kWorkerShift = kSequenceBits;
constexpr int kTimeShift = kSequenceBits + kWorkerBits;
constexpr int64_t kMaxTime = (INT64_C(1) << kTimeBits) - 1;	/* ms since epoch */
constexpr int32_t kMaxWorker = (1 << kWorkerBits) - 1;
constexpr int32_t kMaxSequence = (1 << kSequenceBits) - 1;
constexpr int32_t kIdsPerMs = kMaxSequence + 1;

struct Parts
{
	int64_t		time_ms;		/* ms since the epoch */
	int32_t		worker;
	int32_t		sequence;
};

/* Builds an id; false when a field is out of range. */
bool encode(int64_t time_ms, int32_t worker, int32_t sequence, int64_t *id) noexcept;

/* Splits an id; false for a negative id (no valid id has bit 63 set). */
bool decode(int64_t id, Parts *parts) noexcept;

/*
 * Smallest id whose time is time_ms (worker 0, sequence 0): the bound of a
 * range predicate "id >= min_id(t)".  False when time_ms is outside 0..kMaxTime.
 */
bool min_id(int64_t time_ms, int64_t *id) noexcept;

enum class Status
{
	Ok,					/* new_state is the last id of the reserved run */
	WaitNextMs,			/* this millisecond is used up: retry at the next */
	ClockBackwardWait,	/* clock behind the last id by <= tolerance: wait wait_ms */
	ClockBackwardError, /* clock behind by more than the tolerance */
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
	int64_t		behind_ms;		/* clock statuses: how far now is behind */
	int64_t		wait_ms;		/* ClockBackwardWait: ms to sleep before retrying */
	int64_t		need_floor_ms;	/* FloorReached: time the floor must cover */
};

/*
 * The transition function.  Given the state word (last id issued, 0 for
 * none), the clock reading now_ms (ms since the epoch), the worker id, the
 * number of consecutive ids wanted (1..4096, all within one millisecond),
 * the persisted floor (ids may be issued at times <= floor_ms only) and the
 * backward tolerance, it returns the run to issue or why not.
 *
 * The clock is checked BEFORE anything is derived from the state's sequence
 * (twitter-archive/snowflake #6 reset the sequence first and duplicated).
 * A clock behind the last id by at most the tolerance keeps issuing from the
 * last id's millisecond while its sequence lasts (this also absorbs the race
 * between reading the clock and the CAS), then waits; further behind is an
 * error.  Nothing is ever issued at a time later than max(now, last time).
 * Inline: it is the hot path of snowflake_next().
 */
inline Step
next(int64_t state, int64_t now_ms, int32_t worker, int32_t count,
	 int64_t floor_ms, int64_t tolerance_ms) noexcept
{
	Step		s{};

	if (worker < 0 || worker > kMaxWorker || count < 1 || count > kIdsPerMs ||
		state < 0 || tolerance_ms < 0)
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

	/* Clock first: nothing about the sequence is decided before this. */
	const int64_t last_ms = state >> kTimeShift;

	if (now_ms < last_ms)
	{
		s.behind_ms = last_ms - now_ms;
		if (s.behind_ms > tolerance_ms)
		{
			s.status = Status::ClockBackwardError;
			return s;
		}
	}

	/*
	 * The run: at sequence 0 of the clock's millisecond when the clock is past
	 * the last id's, else in the last id's millisecond right after the last
	 * id (same worker) or at its sequence 0 (a higher worker id).
	 */
	const int64_t worker_bits = static_cast<int64_t>(worker) << kWorkerShift;
	int64_t		ms;
	int64_t		first;

	if (now_ms > last_ms)
	{
		if (now_ms > kMaxTime)
		{
			s.status = Status::TimeExhausted;
			return s;
		}
		ms = now_ms;
		first = (ms << kTimeShift) | worker_bits;
	}
	else
	{
		const int64_t lo = (last_ms << kTimeShift) | worker_bits;

		ms = last_ms;
		/* unsigned: INT64_MAX + 1 must not overflow (it fails the test below) */
		first = state < lo ? lo : static_cast<int64_t>(static_cast<uint64_t>(state) + 1);
		/*
		 * Does the run stay in this millisecond and worker?  Not when the
		 * millisecond is used up, nor when the last id carries a higher worker
		 * id (the setting was lowered): wait for a later millisecond.
		 */
		if ((first & kMaxSequence) + count - 1 > kMaxSequence ||
			(first & ~static_cast<int64_t>(kMaxSequence)) != lo)
		{
			if (ms >= kMaxTime)
				s.status = Status::TimeExhausted;
			else if (now_ms < last_ms)
			{
				s.status = Status::ClockBackwardWait;
				s.wait_ms = last_ms - now_ms + 1;
			}
			else
				s.status = Status::WaitNextMs;
			return s;
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
	return s;
}

/*
 * The state word that makes every later id exceed every id that may have
 * been issued at or before time_ms (any worker, any sequence): used to
 * restart above a persisted floor.  time_ms < 0 gives 0; clamps at kMaxTime.
 */
int64_t state_after(int64_t time_ms) noexcept;

}  // namespace snowflake
}  // namespace idgen
