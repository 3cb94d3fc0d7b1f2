/*
 * snowflake.cpp: see snowflake.hpp.
 */
#include "core/snowflake.hpp"

#include "core/cpp_only.hpp"

namespace idgen {
namespace snowflake {

bool
encode(const Layout &l, int64_t time_ms, int32_t worker, int32_t sequence, int64_t *id) noexcept
{
	if (time_ms < 0 || time_ms > l.max_time())
		return false;
	if (worker < 0 || worker > l.max_worker())
		return false;
	if (sequence < 0 || sequence > l.max_sequence())
		return false;
	*id = (time_ms << l.time_shift()) |
		(static_cast<int64_t>(worker) << l.worker_shift()) |
		static_cast<int64_t>(sequence);
	return true;
}

bool
decode(const Layout &l, int64_t id, Parts *parts) noexcept
{
	if (id < 0 || id > l.max_id())
		return false;
	parts->time_ms = id >> l.time_shift();
	parts->worker = static_cast<int32_t>((id >> l.worker_shift()) & l.max_worker());
	parts->sequence = static_cast<int32_t>(id & l.max_sequence());
	return true;
}

bool
min_id(const Layout &l, int64_t time_ms, int64_t *id) noexcept
{
	return encode(l, time_ms, 0, 0, id);
}

int64_t
state_after(const Layout &l, int64_t time_ms) noexcept
{
	int64_t		id = 0;

	if (time_ms < 0)
		return 0;
	if (time_ms > l.max_time())
		time_ms = l.max_time();
	encode(l, time_ms, l.max_worker(), l.max_sequence(), &id);
	return id;
}

}  // namespace snowflake
}  // namespace idgen
