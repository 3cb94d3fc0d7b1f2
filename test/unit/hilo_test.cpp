/* Unit tests for the Hi/Lo formulas and the block cache. */
#include "core/hilo.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>

using namespace idgen;

static HiloBlock
block(HiloStrategy s, int64_t v, int64_t size)
{
	HiloBlock	b = {-1, -1};

	EXPECT_EQ(hilo_block(s, v, size, &b), HiloStatus::ok) << "v=" << v << " size=" << size;
	return b;
}

TEST(Hilo, ParseStrategy)
{
	HiloStrategy s = HiloStrategy::classic;

	EXPECT_TRUE(hilo_parse_strategy("legacy", &s));
	EXPECT_EQ(s, HiloStrategy::legacy);
	EXPECT_TRUE(hilo_parse_strategy("pooled_lo", &s));
	EXPECT_EQ(s, HiloStrategy::pooled_lo);
	EXPECT_TRUE(hilo_parse_strategy("pooled", &s));
	EXPECT_EQ(s, HiloStrategy::pooled);
	EXPECT_TRUE(hilo_parse_strategy("classic", &s));
	EXPECT_EQ(s, HiloStrategy::classic);
	EXPECT_FALSE(hilo_parse_strategy("Classic", &s));
	EXPECT_FALSE(hilo_parse_strategy("", &s));
	EXPECT_FALSE(hilo_parse_strategy(nullptr, &s));
	EXPECT_FALSE(hilo_parse_strategy("pooled ", &s));
	for (auto x : {HiloStrategy::classic, HiloStrategy::legacy, HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3})
	{
		HiloStrategy back;

		ASSERT_TRUE(hilo_parse_strategy(hilo_strategy_name(x), &back));
		EXPECT_EQ(back, x);
	}
}

/* The worked examples of docs/hilo.md, hilo_bind (strategies and their first blocks). */
TEST(Hilo, Formulas)
{
	HiloBlock	b;

	b = block(HiloStrategy::classic, 3, 1000);
	EXPECT_EQ(b.next, 3000);
	EXPECT_EQ(b.last, 3999);
	b = block(HiloStrategy::legacy, 3, 1000);
	EXPECT_EQ(b.next, 3003);
	EXPECT_EQ(b.last, 4003);
	b = block(HiloStrategy::pooled_lo, 101, 50);
	EXPECT_EQ(b.next, 101);
	EXPECT_EQ(b.last, 150);
	b = block(HiloStrategy::pooled, 101, 50);
	EXPECT_EQ(b.next, 52);
	EXPECT_EQ(b.last, 101);
}

TEST(Hilo, IdsStartAtOne)
{
	HiloBlock	b;

	/* hi 0 of classic gives 0..999: 0 is cut off */
	b = block(HiloStrategy::classic, 0, 1000);
	EXPECT_EQ(b.next, 1);
	EXPECT_EQ(b.last, 999);
	/* Hibernate pooled's first value 1 with increment 50: just id 1 */
	b = block(HiloStrategy::pooled, 1, 50);
	EXPECT_EQ(b.next, 1);
	EXPECT_EQ(b.last, 1);
	EXPECT_EQ(hilo_block(HiloStrategy::classic, 0, 1, &b), HiloStatus::below_one);
	EXPECT_EQ(hilo_block(HiloStrategy::pooled, 0, 50, &b), HiloStatus::below_one);
	EXPECT_EQ(hilo_block(HiloStrategy::classic, -5, 10, &b), HiloStatus::below_one);
	EXPECT_EQ(hilo_block(HiloStrategy::pooled_lo, INT64_MIN, 10, &b), HiloStatus::below_one);
	EXPECT_EQ(hilo_block(HiloStrategy::legacy, INT64_MIN, INT64_MAX, &b), HiloStatus::below_one);
}

TEST(Hilo, BadSize)
{
	HiloBlock	b;

	for (auto s : {HiloStrategy::classic, HiloStrategy::legacy, HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3})
	{
		EXPECT_EQ(hilo_block(s, 1, 0, &b), HiloStatus::bad_size);
		EXPECT_EQ(hilo_block(s, 1, -1, &b), HiloStatus::bad_size);
	}
}

TEST(Hilo, Overflow)
{
	HiloBlock	b = {7, 7};

	/* the last classic block that fits, and the first that does not */
	int64_t		top = INT64_MAX / 1000;	/* 9223372036854775 */

	b = block(HiloStrategy::classic, top - 1, 1000);
	EXPECT_EQ(b.last, (top - 1) * 1000 + 999);
	/* top*1000+999 = 9223372036854775999 > INT64_MAX */
	EXPECT_EQ(hilo_block(HiloStrategy::classic, top, 1000, &b), HiloStatus::overflow);
	EXPECT_EQ(hilo_block(HiloStrategy::classic, INT64_MAX, 1000, &b), HiloStatus::overflow);
	EXPECT_EQ(hilo_block(HiloStrategy::legacy, INT64_MAX / 2 + 1, 1, &b), HiloStatus::overflow);
	b = block(HiloStrategy::legacy, INT64_MAX / 2, 1);
	EXPECT_EQ(b.last, INT64_MAX);
	EXPECT_EQ(hilo_block(HiloStrategy::pooled_lo, INT64_MAX, 2, &b), HiloStatus::overflow);
	b = block(HiloStrategy::pooled_lo, INT64_MAX, 1);
	EXPECT_EQ(b.next, INT64_MAX);
	b = block(HiloStrategy::pooled, INT64_MAX, 50);
	EXPECT_EQ(b.last, INT64_MAX);
	/* a failed call leaves the block untouched */
	b = {7, 7};
	EXPECT_EQ(hilo_block(HiloStrategy::classic, INT64_MAX, INT64_MAX, &b), HiloStatus::overflow);
	EXPECT_EQ(b.next, 7);
}

TEST(Hilo, NodeRangesTileTheSpace)
{
	/* 1024 ranges, each right after the one before, from 1 to 2^53 - 1. */
	int64_t		expect_first = 1;

	for (int32_t n = 0; n <= kHiloMaxNode; n++)
	{
		HiloNodeRange r = hilo_node_range(n);

		ASSERT_EQ(r.first, expect_first) << "node " << n;
		ASSERT_LT(r.first, r.last);
		EXPECT_EQ(hilo_node_of(r.first), n);
		EXPECT_EQ(hilo_node_of(r.last), n);
		EXPECT_EQ(r.last - r.first + 1, n == 0 ? (INT64_C(1) << 43) - 1 : INT64_C(1) << 43);
		expect_first = r.last + 1;
	}
	/* The last node ends below 2^53: JavaScript's exact integers. */
	EXPECT_EQ(hilo_node_range(kHiloMaxNode).last, (INT64_C(1) << 53) - 1);
	/* No node: the whole space. */
	EXPECT_EQ(hilo_node_range(-1).first, 1);
	EXPECT_EQ(hilo_node_range(-1).last, INT64_MAX);
	EXPECT_EQ(hilo_node_range(1024).last, INT64_MAX);
	/* Ids in no node's range. */
	EXPECT_EQ(hilo_node_of(0), -1);
	EXPECT_EQ(hilo_node_of(-5), -1);
	EXPECT_EQ(hilo_node_of(INT64_C(1) << 53), -1);
	EXPECT_EQ(hilo_node_of(INT64_MAX), -1);
}

TEST(HiloCache, InsertFindErase)
{
	HiloCache	c;

	EXPECT_EQ(c.find(42), nullptr);
	HiloEntry  *e = c.insert(42);

	ASSERT_NE(e, nullptr);
	EXPECT_EQ(e->relid, 42u);
	EXPECT_TRUE(e->stale);
	EXPECT_GT(e->block.next, e->block.last);	/* no block yet */
	e->block = {5, 9};
	EXPECT_EQ(c.insert(42)->block.next, 5);	/* existing entry returned */
	c.erase(42);
	EXPECT_EQ(c.find(42), nullptr);
	EXPECT_EQ(c.size(), 0u);
}

/* Many keys with colliding probe runs, against a std::map model. */
TEST(HiloCache, MatchesModel)
{
	HiloCache	c;
	std::map<uint32_t, int64_t> model;
	std::mt19937 rng(7);

	for (int i = 0; i < 20000; i++)
	{
		uint32_t	k = 1 + rng() % 300;

		if (rng() % 3 == 0)
		{
			c.erase(k);
			model.erase(k);
		}
		else
		{
			HiloEntry  *e = c.insert(k);

			e->block.next = i;
			model[k] = i;
		}
		if (i % 97 == 0)
		{
			ASSERT_EQ(c.size(), model.size());
			for (uint32_t q = 1; q <= 300; q++)
			{
				HiloEntry  *e = c.find(q);
				auto		it = model.find(q);

				ASSERT_EQ(e != nullptr, it != model.end()) << q;
				if (e)
				{
					ASSERT_EQ(e->block.next, it->second);
				}
			}
		}
	}
}

TEST(HiloCache, MarkStale)
{
	HiloCache	c;
	HiloEntry  *a = c.insert(10);

	a->seqid = 500;
	a->stale = false;
	a->checked_role = 7;
	HiloEntry  *b = c.insert(11);

	b->seqid = 501;
	b->stale = false;
	b->checked_role = 7;
	c.mark_stale(500);			/* the sequence of key 10 changed */
	EXPECT_TRUE(c.find(10)->stale);
	EXPECT_EQ(c.find(10)->checked_role, 0u);
	EXPECT_FALSE(c.find(11)->stale);
	c.mark_stale(11);
	EXPECT_TRUE(c.find(11)->stale);
	c.find(10)->stale = false;
	c.find(11)->stale = false;
	c.mark_stale(0);
	EXPECT_TRUE(c.find(10)->stale && c.find(11)->stale);
	c.clear();
	EXPECT_EQ(c.size(), 0u);
	EXPECT_EQ(c.find(10), nullptr);
}

TEST(Hilo, TakeNeverWraps)
{
	HiloBlock	b = block(HiloStrategy::pooled_lo, INT64_MAX - 1, 2);
	int64_t		id = 0;

	ASSERT_TRUE(hilo_take(&b, &id));
	EXPECT_EQ(id, INT64_MAX - 1);
	ASSERT_TRUE(hilo_take(&b, &id));
	EXPECT_EQ(id, INT64_MAX);
	EXPECT_FALSE(hilo_take(&b, &id));
	EXPECT_FALSE(hilo_take(&b, &id));
	EXPECT_EQ(id, INT64_MAX);

	b = block(HiloStrategy::classic, 0, 3);
	std::vector<int64_t> ids;

	while (hilo_take(&b, &id))
		ids.push_back(id);
	EXPECT_EQ(ids, (std::vector<int64_t>{1, 2}));
}

/* OID 0 (InvalidOid) is never a key, even after erasures left stale slots. */
TEST(HiloCache, ZeroIsNeverFound)
{
	HiloCache	c;

	EXPECT_EQ(c.find(0), nullptr);
	HiloEntry  *e = c.insert(5);

	e->stale = false;
	e->checked_role = 10;
	e->block = {1, 100};
	c.erase(5);
	EXPECT_EQ(c.find(0), nullptr);
	EXPECT_EQ(c.find(5), nullptr);
}

TEST(HiloCache, EntriesNeverMove)
{
	HiloCache	c;
	HiloEntry  *kept = c.insert(7);

	kept->block = {100, 200};
	for (uint32_t k = 8; k < 5000; k++)
		c.insert(k)->block = {k, k};	/* many grows of the table */
	for (uint32_t k = 8; k < 5000; k += 2)
		c.erase(k);				/* backward shifts around key 7 */
	for (uint32_t k = 5000; k < 6000; k++)
		c.insert(k);			/* reuses erased entries */
	EXPECT_EQ(c.find(7), kept);
	EXPECT_EQ(kept->relid, 7u);
	EXPECT_EQ(kept->block.next, 100);
	EXPECT_EQ(kept->block.last, 200);
	for (uint32_t k = 9; k < 5000; k += 2)
		ASSERT_EQ(c.find(k)->block.next, (int64_t) k) << k;
	EXPECT_EQ(c.size(), 1u + 2496u + 1000u);
}

/* The strategy rules the glue and the hilo_keys view both ask. */
TEST(Hilo, BlockSizeAndReservedTo)
{
	EXPECT_EQ(hilo_block_size(HiloStrategy::classic, 1000, 50), 1000);
	EXPECT_EQ(hilo_block_size(HiloStrategy::legacy, 1000, 50), 1000);
	EXPECT_EQ(hilo_block_size(HiloStrategy::pooled_lo, 1000, 50), 50);
	EXPECT_EQ(hilo_block_size(HiloStrategy::pooled, 1000, 50), 50);

	/* reserved_to is the last id of the block the value drew. */
	const HiloStrategy all[] = {HiloStrategy::classic, HiloStrategy::legacy,
		HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3};

	for (HiloStrategy s : all)
		for (int64_t v : {0, 1, 2, 17, 1000})
			for (int64_t size : {1, 10, 1000})
			{
				HiloBlock	b;

				if (hilo_block(s, v, size, &b) == HiloStatus::ok)
				{
					EXPECT_EQ(hilo_reserved_to(s, v, size), b.last)
						<< hilo_strategy_name(s) << " v=" << v << " size=" << size;
				}
			}
	EXPECT_EQ(hilo_reserved_to(HiloStrategy::classic, 3, 1000), 3999);
	EXPECT_EQ(hilo_reserved_to(HiloStrategy::legacy, 3, 1000), 4003);
	EXPECT_EQ(hilo_reserved_to(HiloStrategy::pooled_lo, 3001, 1000), 4000);
	EXPECT_EQ(hilo_reserved_to(HiloStrategy::pooled, 4000, 1000), 4000);
	/* Capped, never wrapped. */
	EXPECT_EQ(hilo_reserved_to(HiloStrategy::classic, INT64_MAX / 10, 1000), INT64_MAX);
	EXPECT_EQ(hilo_reserved_to(HiloStrategy::pooled_lo, INT64_MAX, 2), INT64_MAX);
}

/*
 * A run of values adjacent by hilo_values_adjacent is one range of ids: the
 * block of v + increment starts right after v's (what hilo_reserve relies on
 * when it takes several values at once).
 */
TEST(Hilo, AdjacentValuesGiveOneRange)
{
	const HiloStrategy all[] = {HiloStrategy::classic, HiloStrategy::legacy,
		HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3};

	for (HiloStrategy s : all)
		for (int64_t size : {1, 3, 10, 1000})
			for (int64_t inc : {int64_t{1}, int64_t{2}, size})
				for (int64_t v : {1, 2, 17, 5000})
				{
					HiloBlock	a;
					HiloBlock	b;

					if (hilo_block(s, v, size, &a) != HiloStatus::ok ||
						hilo_block(s, v + inc, size, &b) != HiloStatus::ok)
						continue;
					EXPECT_EQ(hilo_values_adjacent(s, size, inc), b.next == a.last + 1)
						<< hilo_strategy_name(s) << " size=" << size << " inc=" << inc << " v=" << v;
					if (a.next > 1)		/* not cut at 1 */
					{
						EXPECT_EQ(a.last - a.next + 1, hilo_ids_per_block(s, size))
							<< hilo_strategy_name(s) << " size=" << size << " v=" << v;
					}
				}
}

TEST(Hilo, NodeTag)
{
	EXPECT_TRUE(hilo_valid_node_tag("A"));
	EXPECT_TRUE(hilo_valid_node_tag("node_7"));
	EXPECT_TRUE(hilo_valid_node_tag("ABCDEFGHIJKLMNOP"));		/* 16 */
	EXPECT_FALSE(hilo_valid_node_tag("ABCDEFGHIJKLMNOPQ"));	/* 17 */
	EXPECT_FALSE(hilo_valid_node_tag(""));
	EXPECT_FALSE(hilo_valid_node_tag(nullptr));
	EXPECT_FALSE(hilo_valid_node_tag("A-B"));
	EXPECT_FALSE(hilo_valid_node_tag("A/B"));
	EXPECT_FALSE(hilo_valid_node_tag("A B"));
	EXPECT_FALSE(hilo_valid_node_tag("\xc3\xa9"));
}

static bool
parse(const std::string &s, std::string *table, int64_t *n, std::string *tag)
{
	size_t		table_len;
	size_t		tag_at;

	if (!hilo_parse_text_id(s.data(), s.size(), &table_len, n, &tag_at))
		return false;
	*table = s.substr(0, table_len);
	*tag = s.substr(tag_at);
	return true;
}

TEST(Hilo, ParseTextId)
{
	std::string table, tag;
	int64_t		n = 0;

	ASSERT_TRUE(parse("orders/54-A", &table, &n, &tag));
	EXPECT_EQ(table, "orders");
	EXPECT_EQ(n, 54);
	EXPECT_EQ(tag, "A");
	/* The last '/' ends the table part: quoted names may hold '/' and '-'. */
	ASSERT_TRUE(parse("\"a/b-c\"/9223372036854775807-node_1", &table, &n, &tag));
	EXPECT_EQ(table, "\"a/b-c\"");
	EXPECT_EQ(n, INT64_MAX);
	EXPECT_EQ(tag, "node_1");
	ASSERT_TRUE(parse("sales.orders/1-B", &table, &n, &tag));
	EXPECT_EQ(table, "sales.orders");

	for (const char *bad : {"", "/", "orders", "orders/", "/1-A", "orders/1", "orders/1-",
							"orders/-1-A", "orders/+1-A", "orders/01-A", "orders/0-A",
							"orders/9223372036854775808-A", "orders/99999999999999999999-A",
							"orders/1-A/", "orders/1-A-B", "orders/1 -A", "orders/1-A B",
							"orders/1-ABCDEFGHIJKLMNOPQ", "orders/1x-A"})
		EXPECT_FALSE(parse(bad, &table, &n, &tag)) << bad;
	/* An embedded NUL is not part of a tag. */
	EXPECT_FALSE(parse(std::string("orders/1-A\0B", 12), &table, &n, &tag));
}

/*
 * Hibernate 3.x's pooled optimizer uses v-k .. v-1 for value v, newer ones
 * v-k+1 .. v: on one sequence the two overlap at every block edge (the
 * first id of a 3.x client's block for v+k is the last of v's under
 * pooled).
 */
TEST(Hilo, PooledHibernate3)
{
	HiloBlock	b = block(HiloStrategy::pooled_hibernate3, 101, 50);

	EXPECT_EQ(b.next, 51);
	EXPECT_EQ(b.last, 100);
	b = block(HiloStrategy::pooled, 101, 50);
	EXPECT_EQ(b.next, 52);
	EXPECT_EQ(b.last, 101);
	/* The first value of a sequence starting at 1 gives nothing: draw again. */
	EXPECT_EQ(hilo_block(HiloStrategy::pooled_hibernate3, 1, 50, &b), HiloStatus::below_one);
	b = block(HiloStrategy::pooled_hibernate3, 51, 50);
	EXPECT_EQ(b.next, 1);
	EXPECT_EQ(b.last, 50);
	/* Values a 3.x client and we draw alternately never share an id. */
	for (int64_t v = 51; v < 5000; v += 50)
	{
		HiloBlock	a = block(HiloStrategy::pooled_hibernate3, v, 50);
		HiloBlock	c = block(HiloStrategy::pooled_hibernate3, v + 50, 50);

		EXPECT_EQ(c.next, a.last + 1);
	}
	HiloStrategy s;

	ASSERT_TRUE(hilo_parse_strategy("pooled_hibernate3", &s));
	EXPECT_EQ(s, HiloStrategy::pooled_hibernate3);
	EXPECT_STREQ(hilo_strategy_name(s), "pooled_hibernate3");
	EXPECT_EQ(hilo_reserved_to(s, 4000, 1000), 3999);
}
TEST(Hilo, CountBlock)
{
	HiloBlock	b;

	/* value v of a sequence with INCREMENT 1000 gives v-999 .. v */
	ASSERT_EQ(hilo_count_block(2000, 1000, 1, false, &b), HiloStatus::ok);
	EXPECT_EQ(b.next, 1001);
	EXPECT_EQ(b.last, 2000);
	/* a value returned before the sequence was called: "next id n" */
	ASSERT_EQ(hilo_count_block(501, 1000, 1, true, &b), HiloStatus::ok);
	EXPECT_EQ(b.next, 501);
	EXPECT_EQ(b.last, 501);
	/* clamped at max(MINVALUE, 1) */
	ASSERT_EQ(hilo_count_block(1001, 1000, 1001, false, &b), HiloStatus::ok);
	EXPECT_EQ(b.next, 1001);
	ASSERT_EQ(hilo_count_block(10, 1000, -5, false, &b), HiloStatus::ok);
	EXPECT_EQ(b.next, 1);
	EXPECT_EQ(b.last, 10);
	EXPECT_EQ(hilo_count_block(0, 1000, -5, false, &b), HiloStatus::below_one);
	EXPECT_EQ(hilo_count_block(5, 0, 1, false, &b), HiloStatus::bad_size);
	EXPECT_EQ(hilo_count_block(5, -1, 1, false, &b), HiloStatus::bad_size);
	/* INT64_MAX is a valid last id; INT64_MIN + 1 as increment cannot wrap */
	ASSERT_EQ(hilo_count_block(INT64_MAX, INT64_MAX, 1, false, &b), HiloStatus::ok);
	EXPECT_EQ(b.next, 1);
	EXPECT_EQ(b.last, INT64_MAX);
}

/* Consecutive values of a counting sequence tile the ids with no gap and no overlap. */
TEST(Hilo, CountBlocksTile)
{
	for (int64_t inc : {1, 7, 1000})
	{
		int64_t		expect = 1;
		HiloBlock	b;

		ASSERT_EQ(hilo_count_block(1, inc, 1, true, &b), HiloStatus::ok);
		EXPECT_EQ(b.next, expect);
		expect = b.last + 1;
		for (int64_t v = 1 + inc; v < 50 * inc; v += inc)
		{
			ASSERT_EQ(hilo_count_block(v, inc, 1, false, &b), HiloStatus::ok);
			EXPECT_EQ(b.next, expect);
			expect = b.last + 1;
		}
	}
}

TEST(HiloCache, AbortDropsTentativeBlocks)
{
	HiloCache	c;
	HiloEntry  *kept = c.insert(7);
	HiloEntry  *dropped = c.insert(8);

	kept->block = {1, 10};
	dropped->block = {11, 20};
	dropped->tentative = true;
	c.end_transaction(true);
	EXPECT_EQ(kept->block.next, 1);
	EXPECT_GT(dropped->block.next, dropped->block.last);
	EXPECT_FALSE(dropped->tentative);

	dropped->block = {21, 30};
	dropped->tentative = true;
	c.end_transaction(false);	/* a commit keeps it */
	EXPECT_EQ(dropped->block.next, 21);
	EXPECT_FALSE(dropped->tentative);
}
