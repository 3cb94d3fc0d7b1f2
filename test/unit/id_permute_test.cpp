/*
 * Unit tests for the keyed permutation behind id_encode / id_decode:
 * SipHash-2-4 against its specification's vectors, exhaustive bijectivity
 * on every small domain, sampled and edge inputs on the two real domains,
 * avalanche, and pinned outputs (published ids must decode forever).
 */
#include "core/id_permute.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <unordered_set>
#include <vector>

using namespace idgen::permute;

namespace {

Key
key_of(const char *secret, uint64_t n)
{
	Key			k;

	EXPECT_TRUE(make_key(reinterpret_cast<const uint8_t *>(secret), strlen(secret), n, &k));
	return k;
}

}  // namespace

TEST(SipHash, SpecificationVectors)
{
	uint8_t		msg[15];

	for (int i = 0; i < 15; i++)
		msg[i] = static_cast<uint8_t>(i);
	/* key 00 01 .. 0f, read as two little-endian words */
	const uint64_t k0 = UINT64_C(0x0706050403020100), k1 = UINT64_C(0x0f0e0d0c0b0a0908);

	EXPECT_EQ(siphash24(k0, k1, msg, 15), UINT64_C(0xa129ca6149be45e5));
	EXPECT_EQ(siphash24(k0, k1, msg, 0), UINT64_C(0x726fdb47dd0e0e31));
}

TEST(Permute, ZeroDomainIsRefused)
{
	Key			k;

	EXPECT_FALSE(make_key(reinterpret_cast<const uint8_t *>("k"), 1, 0, &k));
}

/* Every domain size up to 1500, two secrets: encode is a permutation of [1, n], decode its inverse. */
TEST(Permute, ExhaustiveOnSmallDomains)
{
	for (const char *secret : {"a", "another secret"})
		for (uint64_t n = 1; n <= 1500; n++)
		{
			Key			k = key_of(secret, n);
			std::vector<bool> seen(n + 1, false);

			for (uint64_t x = 1; x <= n; x++)
			{
				uint64_t	y = encode(k, x);

				ASSERT_GE(y, 1u) << n;
				ASSERT_LE(y, n) << n;
				ASSERT_FALSE(seen[y]) << "n=" << n << " x=" << x;
				seen[y] = true;
				ASSERT_EQ(decode(k, y), x) << n;
			}
		}
}

/* Larger domains around powers of two (widths where walks are rare or frequent). */
TEST(Permute, ExhaustiveAroundPowersOfTwo)
{
	for (uint64_t n : {UINT64_C(4095), UINT64_C(4096), UINT64_C(4097), UINT64_C(65535), UINT64_C(65537),
					   UINT64_C(131071), UINT64_C(262144)})
	{
		Key			k = key_of("powers", n);
		std::vector<bool> seen(n + 1, false);

		for (uint64_t x = 1; x <= n; x++)
		{
			uint64_t	y = encode(k, x);

			ASSERT_TRUE(y >= 1 && y <= n && !seen[y]) << n;
			seen[y] = true;
			ASSERT_EQ(decode(k, y), x);
		}
	}
}

/* The two real domains: edges, around every power of two, and random samples. */
TEST(Permute, EdgesAndSamplesOnTheRealDomains)
{
	std::mt19937_64 rng(11);

	for (uint64_t n : {kBigintMax, kJsSafeMax})
	{
		Key			k = key_of("test key", n);
		std::vector<uint64_t> xs = {1, 2, 3, n, n - 1, n - 2};
		int			w = n == kBigintMax ? 63 : 53;

		for (int b = 1; b < w; b++)
			for (int64_t d = -2; d <= 2; d++)
				xs.push_back((UINT64_C(1) << b) + static_cast<uint64_t>(d));
		for (int i = 0; i < 200000; i++)
			xs.push_back(1 + rng() % n);
		for (uint64_t x : xs)
		{
			if (x < 1 || x > n)
				continue;
			uint64_t	y = encode(k, x);

			ASSERT_TRUE(y >= 1 && y <= n) << x;
			ASSERT_EQ(decode(k, y), x) << x;
		}
		/* consecutive inputs give distinct outputs, and decode as well */
		std::unordered_set<uint64_t> outs;

		for (uint64_t x = 1; x <= 300000; x++)
			ASSERT_TRUE(outs.insert(encode(k, x)).second) << x;
		for (uint64_t x = n - 1000; x < n; x++)
			ASSERT_TRUE(outs.insert(encode(k, x)).second) << x;
	}
}

/* One input bit flipped changes about half the output bits; another secret, another permutation. */
TEST(Permute, AvalancheAndKeySensitivity)
{
	Key			k = key_of("avalanche", kBigintMax);
	Key			k2 = key_of("avalanchf", kBigintMax);
	std::mt19937_64 rng(5);
	double		flipped = 0;
	int			trials = 0;
	int			same = 0;

	for (int i = 0; i < 20000; i++)
	{
		uint64_t	x = 1 + rng() % (kBigintMax - 1);
		uint64_t	x2 = x ^ (UINT64_C(1) << (rng() % 62));

		if (x2 == 0 || x2 > kBigintMax)
			continue;
		flipped += __builtin_popcountll(encode(k, x) ^ encode(k, x2));
		trials++;
		same += encode(k, x) == encode(k2, x);
	}
	double		mean = flipped / trials;

	EXPECT_GT(mean, 63 * 0.47);
	EXPECT_LT(mean, 63 * 0.53);
	EXPECT_EQ(same, 0);
}

/*
 * Pinned outputs.  Encoded ids are published; a change of the construction
 * would make them decode to other ids.  sql/id_encode.sql pins the same.
 */
TEST(Permute, PinnedOutputs)
{
	Key			big = key_of("id_gen test key", kBigintMax);
	Key			js = key_of("id_gen test key", kJsSafeMax);

	EXPECT_EQ(encode(big, 1), UINT64_C(2234283601078692495));
	EXPECT_EQ(encode(big, 2), UINT64_C(8413591181569400902));
	EXPECT_EQ(encode(big, kBigintMax), UINT64_C(4908349488954553563));
	EXPECT_EQ(encode(js, 1), UINT64_C(1656565201343669));
	EXPECT_EQ(encode(js, 2), UINT64_C(672015644944959));
	EXPECT_EQ(encode(js, kJsSafeMax), UINT64_C(1772109577453335));
}
