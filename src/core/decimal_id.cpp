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

int64_t
next_chunk(int64_t chunk, int64_t us_since_last) noexcept
{
	if (chunk < kChunkMin)
		return kChunkMin;
	if (us_since_last < INT64_C(1000000))
		return chunk >= kChunkMax / 2 ? kChunkMax : chunk * 2;
	if (us_since_last > INT64_C(10000000))
		return chunk / 2 < kChunkMin ? kChunkMin : chunk / 2;
	return chunk > kChunkMax ? kChunkMax : chunk;
}

int64_t
reservation_end(int64_t base, int64_t chunk) noexcept
{
	if (base >= kMaxCounter || chunk >= kMaxCounter - base)
		return kMaxCounter;
	return base + chunk;
}

}  // namespace decimal_id
}  // namespace idgen
