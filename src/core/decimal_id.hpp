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
 * "not loaded yet".  Counter values up to `reserved` are durable in the
 * database's sequence id_gen.decimal_counter.  advance() gives the word after
 * taking one more counter value, or says what must happen first.
 */
constexpr uint64_t pack(int32_t generator, int64_t counter) noexcept
{
	return (static_cast<uint64_t>(generator) + 1) << 32 | static_cast<uint64_t>(counter);
}
constexpr int64_t word_counter(uint64_t word) noexcept
{
	return static_cast<int64_t>(word & 0xFFFFFFFFu);
}
constexpr int32_t word_generator(uint64_t word) noexcept
{
	return static_cast<int32_t>(static_cast<int64_t>(word >> 32) - 1);
}

enum class Step
{
	Ok,							/* *next and *parts are set */
	Load,						/* no generator id yet */
	Reserve,					/* the counter reached the reserved end */
	Exhausted					/* the counter reached kMaxCounter */
};
/* Inline: the per-call path of decimal_id(). */
inline Step
advance(uint64_t word, int64_t reserved, uint64_t *next, Parts *parts) noexcept
{
	if (word >> 32 == 0)
		return Step::Load;
	const int32_t generator = word_generator(word);
	const int64_t counter = word_counter(word);

	/* A generator id out of range cannot be packed here; encode() refuses it. */
	if (counter >= kMaxCounter)
		return Step::Exhausted;
	if (counter >= reserved)
		return Step::Reserve;
	*next = pack(generator, counter + 1);
	parts->counter = counter + 1;
	parts->generator = generator;
	parts->launch = 0;
	return Step::Ok;
}

/*
 * The counter values to reserve at once: kChunkMin, doubled (up to
 * kChunkMax) while reservations come less than a second apart, halved back
 * when they come more than ten seconds apart, so that a busy database
 * flushes WAL about once a second and a restart skips little of a quiet one.
 */
constexpr int64_t kChunkMin = 10000;
constexpr int64_t kChunkMax = INT64_C(4194304);
int64_t next_chunk(int64_t chunk, int64_t us_since_last) noexcept;

/* The end of the next reservation above base: base + chunk, at most kMaxCounter. */
int64_t reservation_end(int64_t base, int64_t chunk) noexcept;

}  // namespace decimal_id
}  // namespace idgen
