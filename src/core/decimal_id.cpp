/*
 * decimal_id.cpp: see decimal_id.hpp.
 */
#include "core/decimal_id.hpp"

#include "core/cpp_only.hpp"

namespace idgen {
namespace decimal_id {

bool
encode(int64_t counter, int32_t generator, int32_t launch, int64_t *id) noexcept
{
	if (counter < 1 || counter > kMaxCounter)
		return false;
	if (generator < 0 || generator > kMaxGenerator)
		return false;
	if (launch < 0 || launch > kMaxLaunch)
		return false;
	*id = counter * kCounterScale + generator * kGeneratorScale + launch;
	return true;
}

bool
decode(int64_t id, Parts *parts) noexcept
{
	if (id < kCounterScale)
		return false;
	parts->counter = id / kCounterScale;
	parts->generator = static_cast<int32_t>((id / kGeneratorScale) % 100000);
	parts->launch = static_cast<int32_t>(id % kGeneratorScale);
	return true;
}

bool
advance(uint64_t word, uint64_t *next, Parts *parts) noexcept
{
	if (word >> 32 == 0)
		return false;
	const int64_t generator = static_cast<int64_t>(word >> 32) - 1;
	const int64_t counter = static_cast<int64_t>(word & 0xFFFFFFFFu) + 1;

	if (generator > kMaxGenerator || counter > kMaxCounter)
		return false;
	*next = pack(static_cast<int32_t>(generator), counter);
	parts->counter = counter;
	parts->generator = static_cast<int32_t>(generator);
	parts->launch = 0;
	return true;
}

}  // namespace decimal_id
}  // namespace idgen
