/*
 * snowflake.cpp: see snowflake.hpp.
 */
#include "core/snowflake.hpp"

#include "core/cpp_only.hpp"

namespace idgen {
namespace snowflake {

bool
encode(int64_t time_ms, int32_t worker, int32_t sequence, int64_t *id) noexcept
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
decode(int64_t id, Parts *parts) noexcept
{
	if (id < 0)
		return false;
	parts->time_ms = id >> kTimeShift;
	parts->worker = static_cast<int32_t>((id >> kWorkerShift) & kMaxWorker);
	parts->sequence = static_cast<int32_t>(id & kMaxSequence);
	return true;
}

bool
min_id(int64_t time_ms, int64_t *id) noexcept
{
	return encode(time_ms, 0, 0, id);
}

int64_t
state_after(int64_t time_ms) noexcept
{
	int64_t		id = 0;

	if (time_ms < 0)
		return 0;
	if (time_ms > kMaxTime)
		time_ms = kMaxTime;
	encode(time_ms, kMaxWorker, kMaxSequence, &id);
	return id;
}

}  // namespace snowflake
}  // namespace idgen
