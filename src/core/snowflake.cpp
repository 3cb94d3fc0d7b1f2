/*
 * snowflake.cpp: see snowflake.hpp.
 */
#include "core/snowflake.hpp"

#include "core/cpp_only.hpp"

namespace idgen {
namespace snowflake {

bool
encode(int64_t time_ms, int32_t worker, int32_t sequence, int64_t *id)
{
	if (time_ms < 0 || time_ms > kMaxTime)
		return false;
	if (worker < 0 || worker > kMaxWorker)
		return false;
	if (sequence < 0 || sequence > kMaxSequence)
		return false;
	*id = (time_ms << kTimeShift) |
		(static_cast<int64_t>(worker) << kWorkerShift) |
		static_cast<int64_t>(sequence);
	return true;
}

bool
decode(int64_t id, Parts *parts)
{
	if (id < 0)
		return false;
	parts->time_ms = id >> kTimeShift;
	parts->worker = static_cast<int32_t>((id >> kWorkerShift) & kMaxWorker);
	parts->sequence = static_cast<int32_t>(id & kMaxSequence);
	return true;
}

bool
min_id(int64_t time_ms, int64_t *id)
{
	return encode(time_ms, 0, 0, id);
}

int64_t
state_after(int64_t time_ms)
{
	int64_t		id = 0;

	if (time_ms < 0)
		return 0;
	if (time_ms > kMaxTime)
		time_ms = kMaxTime;
	encode(time_ms, kMaxWorker, kMaxSequence, &id);
	return id;
}

static Step
make(Status status)
{
	Step		s{};

	s.status = status;
	return s;
}

Step
next(int64_t state, int64_t now_ms, int32_t worker, int32_t count,
	 int64_t floor_ms, int64_t tolerance_ms)
{
	if (worker < 0 || worker > kMaxWorker || count < 1 || count > kIdsPerMs ||
		state < 0 || tolerance_ms < 0)
		return make(Status::BadArgument);
	if (now_ms < 0)
	{
		Step		s = make(Status::ClockBeforeEpoch);

		s.behind_ms = -now_ms;
		return s;
	}

	/* Clock first: nothing about the sequence is decided before this. */
	const int64_t last_ms = state >> kTimeShift;

	if (now_ms < last_ms)
	{
		const int64_t behind = last_ms - now_ms;

		if (behind > tolerance_ms)
		{
			Step		s = make(Status::ClockBackwardError);

			s.behind_ms = behind;
			return s;
		}
	}

	/*
	 * Candidate run: in the clock's millisecond when it is past the last id's,
	 * else in the last id's millisecond just after the last id.
	 */
	int64_t		ms;
	int64_t		first;

	if (now_ms > last_ms)
	{
		ms = now_ms;
		first = 0;
		if (ms > kMaxTime)
			return make(Status::TimeExhausted);
		encode(ms, worker, 0, &first);
	}
	else
	{
		int64_t		lo = 0;

		ms = last_ms;
		encode(ms, worker, 0, &lo);
		/* Same worker: continue its sequence; a higher worker id: start at 0. */
		first = state < lo ? lo : state + 1;
		/* A lower worker id than the last id's (setting changed), or a full ms. */
		if ((first >> kTimeShift) != ms ||
			((first >> kWorkerShift) & kMaxWorker) != worker ||
			(first & kMaxSequence) + count - 1 > kMaxSequence)
		{
			if (ms >= kMaxTime)
				return make(Status::TimeExhausted);
			if (now_ms < last_ms)
			{
				Step		s = make(Status::ClockBackwardWait);

				s.behind_ms = last_ms - now_ms;
				s.wait_ms = last_ms - now_ms + 1;
				return s;
			}
			return make(Status::WaitNextMs);
		}
	}

	if ((first & kMaxSequence) + count - 1 > kMaxSequence)
		return make(Status::WaitNextMs);	/* unreachable: a fresh ms holds 4096 */

	if (ms > floor_ms)
	{
		Step		s = make(Status::FloorReached);

		s.need_floor_ms = ms;
		return s;
	}

	Step		s = make(Status::Ok);

	s.first_id = first;
	s.new_state = first + count - 1;
	if (now_ms < last_ms)
		s.behind_ms = last_ms - now_ms;
	return s;
}

}  // namespace snowflake
}  // namespace idgen
