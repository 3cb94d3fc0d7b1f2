/*
 * Unit tests for the DecimalId layout and its counter word.
 */
#include "core/decimal_id.hpp"

#include <gtest/gtest.h>

using namespace idgen::decimal_id;

TEST(DecimalId, LayoutReadsAsDecimalDigits)
{
	int64_t		id;

	ASSERT_TRUE(encode(1, 2, 3, &id));
	EXPECT_EQ(id, INT64_C(10000200003));
	ASSERT_TRUE(encode(kMaxCounter, kMaxGenerator, kMaxLaunch, &id));
	EXPECT_EQ(id, INT64_C(9223372029999999999));
	EXPECT_LE(id, INT64_MAX);
}

TEST(DecimalId, RangeChecks)
{
	int64_t		id;
	Parts		p;

	EXPECT_FALSE(encode(0, 0, 0, &id));
	EXPECT_FALSE(encode(kMaxCounter + 1, 0, 0, &id));
	EXPECT_FALSE(encode(1, -1, 0, &id));
	EXPECT_FALSE(encode(1, kMaxGenerator + 1, 0, &id));
	EXPECT_FALSE(encode(1, 0, -1, &id));
	EXPECT_FALSE(encode(1, 0, kMaxLaunch + 1, &id));
	EXPECT_FALSE(decode(0, &p));
	EXPECT_FALSE(decode(-10000200003, &p));
	EXPECT_FALSE(decode(kCounterScale - 1, &p));
	ASSERT_TRUE(decode(INT64_MAX, &p));
	EXPECT_EQ(p.counter, 922337203);	/* not encodable, but decodable */
}

TEST(DecimalId, DecodeRoundTrip)
{
	for (int64_t c : {INT64_C(1), INT64_C(2), INT64_C(99999), kMaxCounter})
		for (int32_t g : {0, 1, 50000, kMaxGenerator})
			for (int32_t l : {0, 1, 12345, kMaxLaunch})
			{
				int64_t		id;
				Parts		p;

				ASSERT_TRUE(encode(c, g, l, &id));
				ASSERT_TRUE(decode(id, &p));
				EXPECT_EQ(p.counter, c);
				EXPECT_EQ(p.generator, g);
				EXPECT_EQ(p.launch, l);
			}
}

TEST(DecimalId, CounterWordAdvancesWithinTheReservation)
{
	uint64_t	w = pack(42, 0);
	uint64_t	n;
	Parts		p;

	EXPECT_EQ(advance(0, 100, &n, &p), Step::Load);	/* not loaded yet */
	/* Loaded at the persisted reserved end: reserve before the first id. */
	EXPECT_EQ(advance(w, 0, &n, &p), Step::Reserve);
	ASSERT_EQ(advance(w, 100, &n, &p), Step::Ok);
	EXPECT_EQ(p.counter, 1);
	EXPECT_EQ(p.generator, 42);
	EXPECT_EQ(n, pack(42, 1));
	EXPECT_EQ(word_counter(n), 1);
	EXPECT_EQ(word_generator(n), 42);
	ASSERT_EQ(advance(pack(42, 99), 100, &n, &p), Step::Ok);
	EXPECT_EQ(p.counter, 100);
	EXPECT_EQ(advance(pack(42, 100), 100, &n, &p), Step::Reserve);
	ASSERT_EQ(advance(pack(0, kMaxCounter - 1), kMaxCounter, &n, &p), Step::Ok);
	EXPECT_EQ(p.counter, kMaxCounter);
	EXPECT_EQ(p.generator, 0);
	/* At the maximum counter nothing is left, whatever is reserved. */
	EXPECT_EQ(advance(pack(0, kMaxCounter), kMaxCounter, &n, &p), Step::Exhausted);
	/* Ids of one generator increase strictly with the counter. */
	int64_t		a,
				b;

	ASSERT_TRUE(encode(5, kMaxGenerator, kMaxLaunch, &a));
	ASSERT_TRUE(encode(6, 0, 0, &b));
	EXPECT_LT(a, b);
}

TEST(DecimalId, ReservationsGrowWhenBusyAndShrinkWhenQuiet)
{
	EXPECT_EQ(next_chunk(0, 0), kChunkMin);
	EXPECT_EQ(next_chunk(kChunkMin, 500000), 2 * kChunkMin);
	EXPECT_EQ(next_chunk(kChunkMax, 1), kChunkMax);
	EXPECT_EQ(next_chunk(4 * kChunkMin, 5000000), 4 * kChunkMin);
	EXPECT_EQ(next_chunk(4 * kChunkMin, 20000000), 2 * kChunkMin);
	EXPECT_EQ(next_chunk(kChunkMin, 20000000), kChunkMin);
	EXPECT_EQ(reservation_end(0, kChunkMin), kChunkMin);
	EXPECT_EQ(reservation_end(kMaxCounter - 5, kChunkMin), kMaxCounter);
	EXPECT_EQ(reservation_end(kMaxCounter, kChunkMin), kMaxCounter);
}
