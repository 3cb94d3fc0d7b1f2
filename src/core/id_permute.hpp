/*
 * id_permute.hpp: a keyed permutation of the integers [1, n], for public ids
 * that reveal neither order nor volume (id_encode / id_decode).
 *
 * Construction: the domain [1, n] is shifted to [0, n-1] and embedded in
 * the bit strings of width w = max(2, ceil(log2 n)).  A Feistel network
 * permutes those 2^w strings: the string is split into a left part of
 * floor(w/2) bits and a right part of the rest, and each round XORs one part
 * with a keyed function of the other (even rounds change the left part, odd
 * rounds the right), which is invertible whatever the function is.  Values
 * that land outside [0, n-1] are encrypted again until they land inside
 * ("cycle walking"): since the permutation's cycles through a value of the
 * domain return to the domain, this is a permutation of [0, n-1], and since
 * 2^w < 2n a walk takes fewer than two steps on average.
 *
 * The round function is a 64-bit mixer (xor-shift-multiply, with a 64-bit
 * round key added first); the round keys come from SipHash-2-4 (written
 * from its specification) of the secret, the domain size and the round
 * number, so the permutations of two domains, or of two secrets, are
 * unrelated.  This is obfuscation, not encryption: 8 rounds of a fast
 * mixer are not a vetted block cipher, and the design aims at outputs that
 * look random and keys that are not cheap to recover, nothing more.
 *
 * Nothing here allocates or throws.
 */
#pragma once

#include <cstddef>
#include <cstdint>

namespace idgen {
namespace permute {

constexpr int kRounds = 8;

/* The two domains of id_encode: all positive bigints, and JavaScript-safe integers. */
constexpr uint64_t kBigintMax = (UINT64_C(1) << 63) - 1;
constexpr uint64_t kJsSafeMax = (UINT64_C(1) << 53) - 1;

/* SipHash-2-4 of msg under a 128-bit key (two little-endian 64-bit halves). */
uint64_t siphash24(uint64_t k0, uint64_t k1, const uint8_t *msg, size_t len) noexcept;

struct Key
{
	uint64_t	n;				/* the domain is [1, n] */
	int			lbits;			/* width of the left part */
	int			rbits;			/* width of the right part */
	uint64_t	round[kRounds];
};

/*
 * The key of the permutation of [1, n] for a secret of len bytes.  False
 * when n is 0 (there is nothing to permute).  An empty secret is allowed
 * here (callers refuse it).
 */
bool make_key(const uint8_t *secret, size_t len, uint64_t n, Key *key) noexcept;

/*
 * The permutation and its inverse; x must lie in [1, key.n] (callers check:
 * out-of-range input is the caller's error, not a value to map).
 */
uint64_t encode(const Key &key, uint64_t x) noexcept;
uint64_t decode(const Key &key, uint64_t y) noexcept;

/*
 * The bare Feistel network on the 2^w strings with a given number of
 * rounds, without cycle walking: for tests (a 2-round network is the weak
 * mapping the randomness tests must reject).
 */
uint64_t feistel(const Key &key, uint64_t v, int rounds) noexcept;

}  // namespace permute
}  // namespace idgen
