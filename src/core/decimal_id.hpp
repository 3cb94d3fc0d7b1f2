/*
 * decimal_id.hpp: the DecimalId layout, counter * 10^10 + generator_id *
 * 10^5 + launch_id, read in decimal as "cc..c ggggg lllll", and the step of
 * its per-database counter word.
 */
#pragma once

#include <cstdint>

namespace idgen {
namespace decimal_id {

constexpr int64_t kMaxCounter = INT64_C(922337202);	/* keeps ids <= 2^63 - 1 */
constexpr int32_t kMaxGenerator = 99999;
constexpr int32_t kMaxLaunch = 99999;
constexpr int64_t kCounterScale = INT64_C(10000000000);	/* 10^10 */
constexpr int64_t kGeneratorScale = INT64_C(100000);	/* 10^5 */

struct Parts
{
	int64_t		counter;
	int32_t		generator;
	int32_t		launch;
};

/* Builds an id; false when a field is out of range (counter 1..kMaxCounter). */
bool encode(int64_t counter, int32_t generator, int32_t launch, int64_t *id) noexcept;

/* Splits an id; false for ids no encode() can produce (<= 0 or counter 0). */
bool decode(int64_t id, Parts *parts) noexcept;

/*
 * The shared counter word packs (generator_id + 1) << 32 | counter; 0 means
 * "no generator id taken yet".  advance() gives the word after taking one
 * more counter value, or false when a (new) generator id must be taken first.
 */
constexpr uint64_t pack(int32_t generator, int64_t counter) noexcept
{
	return (static_cast<uint64_t>(generator) + 1) << 32 | static_cast<uint64_t>(counter);
}
bool advance(uint64_t word, uint64_t *next, Parts *parts) noexcept;

}  // namespace decimal_id
}  // namespace idgen
