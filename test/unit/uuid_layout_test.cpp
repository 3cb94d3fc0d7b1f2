/*
 * Unit tests for the time-based UUID layouts: text grammar, RFC 9562
 * Appendix A vectors, the time order across versions, conversions and the
 * monotonic generator's state word.
 */
#include "core/uuid_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace idgen;

namespace {

struct U
{
	uint8_t		b[kUuidLen];
};

U
parse(const char *s)
{
	U			u;

	EXPECT_TRUE(uuid_parse(s, u.b)) << s;
	return u;
}

std::string
fmt(const U &u)
{
	char		buf[kUuidTextLen + 1];

	uuid_format(u.b, buf);
	return buf;
}

/* RFC 9562 Appendix A: 2022-02-22 14:22:22 -05:00 in each version. */
const char *kRfcV1 = "C232AB00-9414-11EC-B3C8-9F6BDECED846";
const char *kRfcV6 = "1EC9414C-232A-6B00-B3C8-9F6BDECED846";
const char *kRfcV7 = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F";
const int64_t kRfcUnixUs = 1645557742000000;	/* date -u -d '2022-02-22 19:22:22' +%s */

}  // namespace

TEST(UuidText, AcceptsEveryFormCoreUuidAccepts)
{
	const char *forms[] = {
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11",
		"a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
		"{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
		"a0eebc99-9c0b-4ef8-bb6d6bb9bd380a11",
	};

	for (const char *f : forms)
		EXPECT_EQ(fmt(parse(f)), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11") << f;
}

TEST(UuidText, RejectsWhatCoreUuidRejects)
{
	const char *bad[] = {
		"",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",		/* 31 digits */
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",	/* 33 digits */
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",	/* hyphen after the last group */
		"-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",	/* leading hyphen */
		"a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",	/* two hyphens */
		"a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11",	/* hyphen inside a group of 4 */
		"{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",	/* unbalanced braces */
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
		" a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",	/* spaces */
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ",
		"g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",		/* not hex */
		"{{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}}",
		"0xa0eebc999c0b4ef8bb6d6bb9bd380a11",
	};
	uint8_t		out[kUuidLen];

	for (const char *b : bad)
		EXPECT_FALSE(uuid_parse(b, out)) << b;
	EXPECT_FALSE(uuid_parse(nullptr, out));
}

TEST(UuidText, LengthBoundedParserStopsAtItsEnd)
{
	const char	text[] = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11XYZ";
	uint8_t		out[kUuidLen];

	EXPECT_TRUE(uuid_parse_n(text, 36, out));
	EXPECT_FALSE(uuid_parse_n(text, 35, out));
	EXPECT_FALSE(uuid_parse_n(text, 37, out));
	EXPECT_FALSE(uuid_parse_n("a0eebc99\0", 9, out));
}

TEST(UuidText, RoundTripsRandomBytes)
{
	std::mt19937_64 rng(42);

	for (int i = 0; i < 10000; i++)
	{
		U			u, v;
		char		buf[kUuidTextLen + 1];

		for (auto &x : u.b)
			x = static_cast<uint8_t>(rng());
		uuid_format(u.b, buf);
		ASSERT_TRUE(uuid_parse(buf, v.b));
		ASSERT_EQ(memcmp(u.b, v.b, kUuidLen), 0);
	}
}

TEST(RfcVectors, V1)
{
	U			u = parse(kRfcV1);
	int64_t		us;

	EXPECT_EQ(timeuuid_classify(u.b), TimeuuidKind::v1);
	EXPECT_EQ(uuid_v1_ticks(u.b), 0x1EC9414C232AB00ULL);
	ASSERT_TRUE(timeuuid_unix_us(u.b, &us));
	EXPECT_EQ(us, kRfcUnixUs);
}

TEST(RfcVectors, V6)
{
	U			u = parse(kRfcV6);
	int64_t		us;

	EXPECT_EQ(timeuuid_classify(u.b), TimeuuidKind::v6);
	EXPECT_EQ(uuid_v6_ticks(u.b), 0x1EC9414C232AB00ULL);
	ASSERT_TRUE(timeuuid_unix_us(u.b, &us));
	EXPECT_EQ(us, kRfcUnixUs);
}

TEST(RfcVectors, V7)
{
	U			u = parse(kRfcV7);
	int64_t		us;

	EXPECT_EQ(timeuuid_classify(u.b), TimeuuidKind::v7);
	EXPECT_EQ(uuid_v7_ms(u.b), 0x017F22E279B0ULL);
	EXPECT_EQ(uuid_v7_rand_a(u.b), 0xCC3u);
	ASSERT_TRUE(timeuuid_unix_us(u.b, &us));
	EXPECT_EQ(us, kRfcUnixUs);
}

TEST(RfcVectors, V1AndV6ConvertIntoEachOther)
{
	U			v1 = parse(kRfcV1), v6 = parse(kRfcV6), out;

	uuid_v1_to_v6(v1.b, out.b);
	EXPECT_EQ(fmt(out), fmt(v6));
	uuid_v6_to_v1(v6.b, out.b);
	EXPECT_EQ(fmt(out), fmt(v1));
}

TEST(Classify, VersionsVariantsNilAndMax)
{
	EXPECT_EQ(timeuuid_classify(parse("00000000-0000-0000-0000-000000000000").b), TimeuuidKind::nil);
	EXPECT_EQ(timeuuid_classify(parse("ffffffff-ffff-ffff-ffff-ffffffffffff").b), TimeuuidKind::max);
	EXPECT_EQ(timeuuid_classify(parse("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11").b), TimeuuidKind::bad_version);
	/* v7 digits, but the NCS (0xxx) and Microsoft (110x) variants. */
	EXPECT_EQ(timeuuid_classify(parse("017f22e2-79b0-7cc3-18c4-dc0c0c07398f").b), TimeuuidKind::bad_variant);
	EXPECT_EQ(timeuuid_classify(parse("017f22e2-79b0-7cc3-c8c4-dc0c0c07398f").b), TimeuuidKind::bad_variant);
	for (int v = 0; v < 16; v++)
	{
		U			u = parse(kRfcV7);

		u.b[6] = static_cast<uint8_t>((u.b[6] & 0x0F) | v << 4);
		bool		time_based = v == 1 || v == 6 || v == 7 || v == 13;

		EXPECT_EQ(timeuuid_kind_valid(timeuuid_classify(u.b)), time_based) << v;
	}
}

TEST(Order, SameInstantInEveryVersion)
{
	U			v1 = parse(kRfcV1), v6 = parse(kRfcV6), v7 = parse(kRfcV7);

	/* Same 100-ns tick: the version breaks the tie (1 < 6). */
	EXPECT_LT(timeuuid_compare(v1.b, v6.b), 0);
	/* v7's rand_a 0xCC3 is 0.8 ms into the millisecond: after both. */
	EXPECT_LT(timeuuid_compare(v6.b, v7.b), 0);
	EXPECT_GT(timeuuid_compare(v7.b, v1.b), 0);
	EXPECT_EQ(timeuuid_compare(v7.b, v7.b), 0);
}

TEST(Order, FollowsTimeNotBytesForV1)
{
	/*
	 * Two v1 values 2^32 ticks (about 7 minutes) apart: the later one has
	 * the smaller time_low, so byte order puts it first; time order does not.
	 */
	U			early = parse("ffffffff-0000-11ec-8000-000000000000");
	U			late = parse("00000000-0001-11ec-8000-000000000000");

	EXPECT_GT(memcmp(early.b, late.b, kUuidLen), 0);
	EXPECT_LT(timeuuid_compare(early.b, late.b), 0);
	EXPECT_EQ(uuid_v1_ticks(late.b) - uuid_v1_ticks(early.b), 1u);
}

TEST(Order, NilFirstMaxLast)
{
	U			nil = parse("00000000-0000-0000-0000-000000000000");
	U			max = parse("ffffffff-ffff-ffff-ffff-ffffffffffff");
	U			v1_zero = parse("00000000-0000-1000-8000-000000000000");
	U			v7_top = parse("ffffffff-ffff-7fff-bfff-ffffffffffff");

	EXPECT_LT(timeuuid_compare(nil.b, v1_zero.b), 0);
	EXPECT_LT(timeuuid_compare(v7_top.b, max.b), 0);
	EXPECT_LT(timeuuid_compare(v1_zero.b, v7_top.b), 0);
}

/*
 * The key is injective: sorting random valid values by the time order and
 * by (key) agrees, equal keys only for equal bytes, and the order matches
 * the timestamps wherever timestamps differ by a millisecond or more.
 */
TEST(Order, TotalConsistentWithEqualityAndTime)
{
	std::mt19937_64 rng(7);
	std::vector<U> vals;

	for (int i = 0; i < 20000; i++)
	{
		U			u;
		uint64_t	ms = 1600000000000ULL + rng() % 1000;	/* a crowded second */

		for (auto &x : u.b)
			x = static_cast<uint8_t>(rng());
		switch (i % 3)
		{
			case 0:
				uuid_v7_build(u.b, ms, static_cast<unsigned>(rng()), rng());
				break;
			case 1:
			case 2:
				{
					uint64_t	ticks = kGregorianToUnixTicks + ms * 10000 + rng() % 10000;

					u.b[0] = static_cast<uint8_t>(ticks >> 24);
					u.b[1] = static_cast<uint8_t>(ticks >> 16);
					u.b[2] = static_cast<uint8_t>(ticks >> 8);
					u.b[3] = static_cast<uint8_t>(ticks);
					u.b[4] = static_cast<uint8_t>(ticks >> 40);
					u.b[5] = static_cast<uint8_t>(ticks >> 32);
					u.b[6] = static_cast<uint8_t>(0x10 | (ticks >> 56));
					u.b[7] = static_cast<uint8_t>(ticks >> 48);
					u.b[8] = static_cast<uint8_t>(0x80 | (u.b[8] & 0x3F));
					if (i % 3 == 2)
						uuid_v1_to_v6(u.b, u.b);
					break;
				}
		}
		vals.push_back(u);
	}
	/* A few exact duplicates must compare equal. */
	for (int i = 0; i < 100; i++)
		vals.push_back(vals[i * 7]);

	std::sort(vals.begin(), vals.end(), [](const U &a, const U &b) {
		return timeuuid_compare(a.b, b.b) < 0;
	});
	for (size_t i = 1; i < vals.size(); i++)
	{
		const U    &a = vals[i - 1];
		const U    &b = vals[i];
		int			c = timeuuid_compare(a.b, b.b);
		int64_t		ua, ub;

		ASSERT_LE(c, 0);
		ASSERT_EQ(c == 0, memcmp(a.b, b.b, kUuidLen) == 0);
		ASSERT_EQ(timeuuid_compare(b.b, a.b), -c);	/* antisymmetric */
		ASSERT_LE(timeuuid_abbrev(a.b), timeuuid_abbrev(b.b));
		ASSERT_TRUE(timeuuid_unix_us(a.b, &ua));
		ASSERT_TRUE(timeuuid_unix_us(b.b, &ub));
		ASSERT_LE(ua / 1000, ub / 1000);	/* milliseconds never go backwards */
	}
}

TEST(Order, MinAndMaxOfAMillisecondBracketIt)
{
	const uint64_t ms = 1645557742000ULL;
	U			lo, hi, prev_hi, next_lo;
	U			v1 = parse(kRfcV1);		/* exactly at the start of ms */
	U			v7 = parse(kRfcV7);

	timeuuid_min_of_ms(lo.b, ms);
	timeuuid_max_of_ms(hi.b, ms);
	timeuuid_max_of_ms(prev_hi.b, ms - 1);
	timeuuid_min_of_ms(next_lo.b, ms + 1);
	EXPECT_EQ(fmt(lo), "017f22e2-79b0-7000-8000-000000000000");
	EXPECT_EQ(fmt(hi), "017f22e2-79b0-7fff-bfff-ffffffffffff");
	EXPECT_LT(timeuuid_compare(prev_hi.b, lo.b), 0);
	EXPECT_LT(timeuuid_compare(lo.b, v1.b), 0);
	EXPECT_LT(timeuuid_compare(v7.b, hi.b), 0);
	EXPECT_LT(timeuuid_compare(hi.b, next_lo.b), 0);

	/* The last v1 tick of the millisecond is still inside. */
	uint64_t	last = kGregorianToUnixTicks + ms * 10000 + 9999;
	U			v6_last;

	v6_last.b[0] = static_cast<uint8_t>(last >> 52);
	v6_last.b[1] = static_cast<uint8_t>(last >> 44);
	v6_last.b[2] = static_cast<uint8_t>(last >> 36);
	v6_last.b[3] = static_cast<uint8_t>(last >> 28);
	v6_last.b[4] = static_cast<uint8_t>(last >> 20);
	v6_last.b[5] = static_cast<uint8_t>(last >> 12);
	v6_last.b[6] = static_cast<uint8_t>(0x60 | ((last >> 8) & 0x0F));
	v6_last.b[7] = static_cast<uint8_t>(last);
	memset(v6_last.b + 8, 0xFF, 8);
	v6_last.b[8] = 0xBF;
	ASSERT_EQ(uuid_v6_ticks(v6_last.b), last);
	EXPECT_LT(timeuuid_compare(v6_last.b, hi.b), 0);
	EXPECT_LT(timeuuid_compare(lo.b, v6_last.b), 0);
	EXPECT_GT(timeuuid_compare(next_lo.b, v6_last.b), 0);
}

TEST(SqlServer, NewSequentialIdBecomesV1)
{
	/* The RFC v1 vector as SQL Server prints it: Data1..3 byte-swapped. */
	U			ss = parse("00AB32C2-1494-EC11-B3C8-9F6BDECED846");
	U			v1;

	uuid_swap_guid_fields(ss.b, v1.b);
	EXPECT_EQ(fmt(v1), "c232ab00-9414-11ec-b3c8-9f6bdeced846");
	EXPECT_EQ(timeuuid_classify(v1.b), TimeuuidKind::v1);
	uuid_swap_guid_fields(v1.b, v1.b);
	EXPECT_EQ(memcmp(v1.b, ss.b, kUuidLen), 0);
}

TEST(Generator, WordFollowsClockAndNeverGoesBack)
{
	uint64_t	t0 = 1645557742000ULL * 1000000 + 500000;	/* half a ms in */
	uint64_t	w0 = v7_word_from_clock(t0);

	EXPECT_EQ(v7_word_ms(w0), 1645557742000ULL);
	EXPECT_EQ((w0 >> 8) & 0xFFF, 2048u);
	/* Same instant: counter. */
	EXPECT_EQ(v7_word_advance(w0, w0), w0 + 1);
	/* Clock went back one second: keep counting from the last word. */
	EXPECT_EQ(v7_word_advance(w0, v7_word_from_clock(t0 - 1000000000ULL)), w0 + 1);
	/* Clock moved on: follow it. */
	uint64_t	w1 = v7_word_from_clock(t0 + 1000);

	EXPECT_EQ(v7_word_advance(w0, w1), w1);
	EXPECT_GT(w1, w0);
	/* 256 ids fit in one 1/4096 ms; the next carries into the fraction. */
	uint64_t	w = w0;

	for (int i = 0; i < 256; i++)
		w = v7_word_advance(w, w0);
	EXPECT_EQ((w >> 8) & 0xFFF, 2049u);
	EXPECT_EQ(w & 0xFF, 0u);
}

TEST(Generator, WordsGiveStrictlyIncreasingV7)
{
	uint64_t	w = v7_word_from_clock(1700000000000ULL * 1000000);
	U			prev, cur;
	std::mt19937_64 rng(3);

	uuid_v7_from_word(prev.b, w, rng());
	/* Cross many fraction and millisecond boundaries. */
	for (int i = 0; i < 3000000; i++)
	{
		w = v7_word_advance(w, 0);
		uuid_v7_from_word(cur.b, w, rng());
		ASSERT_EQ(timeuuid_classify(cur.b), TimeuuidKind::v7);
		ASSERT_LT(timeuuid_compare(prev.b, cur.b), 0);
		ASSERT_LT(memcmp(prev.b, cur.b, kUuidLen), 0);	/* and as plain uuids */
		prev = cur;
	}
	EXPECT_GT(uuid_v7_ms(cur.b), 1700000000000ULL);
}

/* The COMB value of issue 11, and its v1 form (2012-02-28 20:54:52.2538623 UTC). */
static const char *kComb = "1e1624e7-5e1f-d27f-a11d-ed65de8970f6";
static const char *kCombAsV1 = "75e1f27f-624e-11e1-a11d-ed65de8970f6";

TEST(Comb, ReadAsVersion6)
{
	U			c = parse(kComb);
	int64_t		us;

	EXPECT_EQ(timeuuid_classify(c.b), TimeuuidKind::comb);
	EXPECT_EQ(uuid_v6_ticks(c.b), 0x1E1624E75E1F27FULL);
	ASSERT_TRUE(timeuuid_unix_us(c.b, &us));
	EXPECT_EQ(us, 1330462492253862);
	/* the NCS variant is not a COMB */
	c.b[8] = 0x21;
	EXPECT_EQ(timeuuid_classify(c.b), TimeuuidKind::bad_variant);
}

TEST(Comb, ConvertsToV6AndV1AndBack)
{
	U			c = parse(kComb), v6, back, v1, from_v6;

	uuid_set_version(c.b, 6, v6.b);
	EXPECT_EQ(fmt(v6), "1e1624e7-5e1f-627f-a11d-ed65de8970f6");
	EXPECT_EQ(timeuuid_classify(v6.b), TimeuuidKind::v6);
	uuid_set_version(v6.b, kCombVersion, back.b);
	EXPECT_EQ(fmt(back), kComb);
	ASSERT_TRUE(uuid_gregorian_to_v1(c.b, v1.b));
	EXPECT_EQ(fmt(v1), kCombAsV1);
	ASSERT_TRUE(uuid_gregorian_to_v1(v6.b, from_v6.b));
	EXPECT_EQ(fmt(from_v6), kCombAsV1);
	ASSERT_TRUE(uuid_gregorian_to_v1(v1.b, from_v6.b));
	EXPECT_EQ(fmt(from_v6), kCombAsV1);
	/* v7, nil and other versions have no v1 form */
	EXPECT_FALSE(uuid_gregorian_to_v1(parse(kRfcV7).b, v1.b));
	EXPECT_FALSE(uuid_gregorian_to_v1(parse("00000000-0000-0000-0000-000000000000").b, v1.b));
	/* in place */
	uuid_set_version(c.b, 6, c.b);
	EXPECT_EQ(fmt(c), fmt(v6));
}

TEST(Comb, SortsByTimeBesideTheOtherVersions)
{
	U			c = parse(kComb), v6, v1, later;

	uuid_set_version(c.b, 6, v6.b);
	ASSERT_TRUE(uuid_gregorian_to_v1(c.b, v1.b));
	/* same tick: v13 < v1 < v6 (v13 took the free rank, the others keep theirs) */
	EXPECT_LT(timeuuid_compare(c.b, v1.b), 0);
	EXPECT_LT(timeuuid_compare(v1.b, v6.b), 0);
	EXPECT_NE(timeuuid_compare(c.b, v6.b), 0);
	EXPECT_EQ(timeuuid_abbrev(c.b), timeuuid_abbrev(v6.b));
	/* one tick later, whatever the rest */
	later = c;
	later.b[7]++;
	memset(later.b + 9, 0, 7);
	EXPECT_LT(timeuuid_compare(v6.b, later.b), 0);
	EXPECT_LT(timeuuid_compare(c.b, later.b), 0);
	/* before the millisecond's v7 maximum, after its minimum */
	U			lo, hi;
	int64_t		us;

	ASSERT_TRUE(timeuuid_unix_us(c.b, &us));
	timeuuid_min_of_ms(lo.b, static_cast<uint64_t>(us / 1000));
	timeuuid_max_of_ms(hi.b, static_cast<uint64_t>(us / 1000));
	EXPECT_LT(timeuuid_compare(lo.b, c.b), 0);
	EXPECT_LT(timeuuid_compare(c.b, hi.b), 0);
}

/* Many v13 values against their own v6 forms: the same order. */
TEST(Comb, OrderOfCombsIsTheOrderOfTheirV6Forms)
{
	std::mt19937_64 rng(13);
	std::vector<U> combs(2000);

	for (auto &c : combs)
	{
		for (auto &x : c.b)
			x = static_cast<uint8_t>(rng());
		/* ticks close together, so that many share high bytes */
		c.b[0] = c.b[1] = 0x1E;
		c.b[6] = static_cast<uint8_t>((c.b[6] & 0x0F) | 0xD0);
		c.b[8] = static_cast<uint8_t>((c.b[8] & 0x3F) | 0x80);
	}
	for (size_t i = 0; i + 1 < combs.size(); i++)
	{
		U			a6, b6;

		uuid_set_version(combs[i].b, 6, a6.b);
		uuid_set_version(combs[i + 1].b, 6, b6.b);
		ASSERT_EQ(timeuuid_compare(combs[i].b, combs[i + 1].b), timeuuid_compare(a6.b, b6.b));
		ASSERT_EQ(timeuuid_compare(combs[i].b, combs[i + 1].b), timeuuid_compare_keys(combs[i].b, combs[i + 1].b));
	}
}

/* The byte-order fast path for v7/v7, v6/v6 and v13/v13 agrees with the key order. */
TEST(Order, FastPathAgreesWithKeys)
{
	std::mt19937_64 rng(11);

	for (int i = 0; i < 200000; i++)
	{
		U			a, b;

		for (auto &x : a.b)
			x = static_cast<uint8_t>(rng());
		b = a;
		/* Versions 6, 7 or 13 mostly, sometimes equal prefixes. */
		a.b[6] = static_cast<uint8_t>((a.b[6] & 0x0F) | (i % 3 == 0 ? 0x70 : i % 3 == 1 ? 0x60 : 0xD0));
		a.b[8] = static_cast<uint8_t>((a.b[8] & 0x3F) | 0x80);
		b = a;
		b.b[rng() % kUuidLen] ^= static_cast<uint8_t>(1u << (rng() % 8));
		TimeuuidKey ka = timeuuid_key(a.b), kb = timeuuid_key(b.b);
		int			by_key = ka.cls != kb.cls ? (ka.cls < kb.cls ? -1 : 1)
			: ka.hi != kb.hi ? (ka.hi < kb.hi ? -1 : 1)
			: ka.lo != kb.lo ? (ka.lo < kb.lo ? -1 : 1) : 0;

		ASSERT_EQ(timeuuid_compare(a.b, b.b), by_key) << fmt(a) << " " << fmt(b);
	}
}

/*
 * The order is total over every 16 bytes, not only over the values the
 * timeuuid type admits: the cross-type operators compare a timeuuid with
 * whatever a uuid column holds.  A value no timeuuid can be (another
 * version or variant) ranks after every time-based value and before max,
 * in byte order among its kind; the order stays antisymmetric, transitive,
 * consistent with byte equality and with the abbreviated key.
 */
TEST(Order, TotalOverEveryUuid)
{
	std::mt19937_64 rng(13);
	std::vector<U> vals;
	U			max = parse("ffffffff-ffff-ffff-ffff-ffffffffffff");

	for (int i = 0; i < 30000; i++)
	{
		U			u;

		for (auto &x : u.b)
			x = static_cast<uint8_t>(rng());
		switch (i % 6)
		{
			case 0:				/* v7 of a crowded second */
				uuid_v7_build(u.b, 1600000000000ULL + rng() % 1000, static_cast<unsigned>(rng()), rng());
				break;
			case 1:				/* versions 1, 6, 13 of the RFC variant */
				u.b[6] = static_cast<uint8_t>((u.b[6] & 0x0F) | (i % 4 == 1 ? 0x10 : i % 4 == 3 ? 0x60 : 0xD0));
				u.b[8] = static_cast<uint8_t>((u.b[8] & 0x3F) | 0x80);
				break;
			case 2:				/* another version of the RFC variant */
				u.b[6] = static_cast<uint8_t>((u.b[6] & 0x0F) | (((rng() % 2) ? 4 : 8) << 4));
				u.b[8] = static_cast<uint8_t>((u.b[8] & 0x3F) | 0x80);
				break;
			case 3:				/* a time-based version under another variant */
				u.b[6] = static_cast<uint8_t>((u.b[6] & 0x0F) | 0x70);
				u.b[8] = static_cast<uint8_t>((u.b[8] & 0x3F) | ((rng() % 2) ? 0x00 : 0xC0));
				break;
			case 4:				/* nil, max, and their neighbours */
				memset(u.b, (i / 6) % 2 ? 0xFF : 0x00, kUuidLen);
				u.b[rng() % kUuidLen] ^= static_cast<uint8_t>((i / 12) % 3 == 0 ? 0 : 1u << (rng() % 8));
				break;
			default:			/* any bytes */
				break;
		}
		vals.push_back(u);
	}
	for (int i = 0; i < 200; i++)
		vals.push_back(vals[i * 13]);

	auto valid = [](const U &u) { return timeuuid_kind_valid(timeuuid_classify(u.b)); };

	std::sort(vals.begin(), vals.end(), [](const U &a, const U &b) {
		return timeuuid_compare(a.b, b.b) < 0;
	});
	bool		seen_other = false;

	for (size_t i = 1; i < vals.size(); i++)
	{
		const U    &a = vals[i - 1];
		const U    &b = vals[i];
		int			c = timeuuid_compare(a.b, b.b);

		ASSERT_LE(c, 0) << fmt(a) << " " << fmt(b);
		ASSERT_EQ(c == 0, memcmp(a.b, b.b, kUuidLen) == 0);
		ASSERT_EQ(timeuuid_compare(b.b, a.b), -c);
		ASSERT_LE(timeuuid_abbrev(a.b), timeuuid_abbrev(b.b));
		/* Values no timeuuid can be: one run, in byte order, before max. */
		if (!valid(b))
		{
			ASSERT_LT(timeuuid_compare(b.b, max.b), 0);
			if (seen_other)
			{
				ASSERT_LE(memcmp(a.b, b.b, kUuidLen), 0);
			}
			seen_other = true;
		}
		else if (seen_other)
		{
			ASSERT_EQ(memcmp(b.b, max.b, kUuidLen), 0) << "a time-based value after a non-timeuuid: " << fmt(b);
		}
	}
	/* Transitivity on random triples, whatever their kinds. */
	for (int i = 0; i < 300000; i++)
	{
		const U    &a = vals[rng() % vals.size()];
		const U    &b = vals[rng() % vals.size()];
		const U    &d = vals[rng() % vals.size()];
		int			ab = timeuuid_compare(a.b, b.b), bd = timeuuid_compare(b.b, d.b);

		if (ab <= 0 && bd <= 0)
		{
			ASSERT_LE(timeuuid_compare(a.b, d.b), 0);
		}
		if (ab < 0 && bd <= 0)
		{
			ASSERT_LT(timeuuid_compare(a.b, d.b), 0);
		}
	}
}
