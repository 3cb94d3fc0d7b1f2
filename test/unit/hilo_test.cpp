/* Unit tests for the Hi/Lo formulas, the rebase and the block cache. */
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
	int64_t		h;

	for (auto s : {HiloStrategy::classic, HiloStrategy::legacy, HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3})
	{
		EXPECT_EQ(hilo_block(s, 1, 0, &b), HiloStatus::bad_size);
		EXPECT_EQ(hilo_block(s, 1, -1, &b), HiloStatus::bad_size);
		EXPECT_EQ(hilo_rebase(s, 1, 0, 10, &h), HiloStatus::bad_size);
		EXPECT_EQ(hilo_rebase(s, 1, 10, 0, &h), HiloStatus::bad_size);
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
	int64_t		h = 42;

	/* the first block after the rebase would not fit */
	EXPECT_EQ(hilo_rebase(HiloStrategy::pooled_lo, INT64_MAX - 5, 10, 10, &h), HiloStatus::overflow);
	EXPECT_EQ(h, 42);
}

TEST(Hilo, RebaseClassic)
{
	int64_t		h = 0;

	/* next hi 5 under 1000: ids < 5000 may be out; under 10 start at hi 500 */
	ASSERT_EQ(hilo_rebase(HiloStrategy::classic, 5, 1000, 10, &h), HiloStatus::ok);
	EXPECT_EQ(h, 500);
	/* ceil((5*1000)/3) = 1667 */
	ASSERT_EQ(hilo_rebase(HiloStrategy::classic, 5, 1000, 3, &h), HiloStatus::ok);
	EXPECT_EQ(h, 1667);
	/* growing the block never moves the sequence backwards */
	ASSERT_EQ(hilo_rebase(HiloStrategy::classic, 5, 10, 1000, &h), HiloStatus::ok);
	EXPECT_EQ(h, 5);
	ASSERT_EQ(hilo_rebase(HiloStrategy::legacy, 5, 9, 4, &h), HiloStatus::ok);
	EXPECT_EQ(h, 10);			/* 5*10 = 50 = 10*5 */
	ASSERT_EQ(hilo_rebase(HiloStrategy::pooled_lo, 151, 50, 10, &h), HiloStatus::ok);
	EXPECT_EQ(h, 151);
	ASSERT_EQ(hilo_rebase(HiloStrategy::pooled, 151, 50, 10, &h), HiloStatus::ok);
	EXPECT_EQ(h, 151);			/* (141, 151]: past ids are <= 101 */
}

/*
 * Property: draw some values under the old size, rebase, draw under the new
 * size; no id is produced twice, for every strategy and many sizes.
 */
TEST(Hilo, RebaseNeverOverlaps)
{
	std::mt19937_64 rng(12345);

	for (auto s : {HiloStrategy::classic, HiloStrategy::legacy, HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3})
	{
		for (int round = 0; round < 300; round++)
		{
			int64_t		old_size = 1 + rng() % 40;
			int64_t		new_size = 1 + rng() % 40;
			bool		pooled = hilo_size_is_increment(s);
			int64_t		v = (int64_t) (rng() % 5);	/* sequence start */
			int64_t		step = pooled ? old_size : 1;
			std::set<int64_t> seen;
			auto		take = [&](int64_t value, int64_t size) {
				HiloBlock	b;
				HiloStatus	st = hilo_block(s, value, size, &b);

				if (st == HiloStatus::below_one)
					return;
				ASSERT_EQ(st, HiloStatus::ok);
				for (int64_t id = b.next; id <= b.last; id++)
				{
					ASSERT_GE(id, 1);
					ASSERT_TRUE(seen.insert(id).second)
						<< hilo_strategy_name(s) << " id " << id << " twice";
				}
			};
			int			draws = 1 + rng() % 6;

			for (int i = 0; i < draws; i++, v += step)
				take(v, old_size);
			int64_t		h;

			ASSERT_EQ(hilo_rebase(s, v, old_size, new_size, &h), HiloStatus::ok);
			ASSERT_GE(h, v);
			step = pooled ? new_size : 1;
			for (int i = 0; i < 6; i++, h += step)
				take(h, new_size);
		}
	}
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

TEST(Hilo, NodeFloorStartsInTheRange)
{
	/* A key of node 3 that stood at 0: its first block starts at the range. */
	HiloNodeRange r = hilo_node_range(3);

	for (HiloStrategy s : {HiloStrategy::classic, HiloStrategy::legacy, HiloStrategy::pooled_lo,
						   HiloStrategy::pooled, HiloStrategy::pooled_hibernate3})
	{
		for (int64_t size : {1, 7, 1000, 32768})
		{
			int64_t		v = 0;
			HiloBlock	b;

			ASSERT_EQ(hilo_floor(s, size, r.first - 1, 0, &v), HiloStatus::ok);
			ASSERT_EQ(hilo_block(s, v, size, &b), HiloStatus::ok);
			EXPECT_GE(b.next, r.first) << hilo_strategy_name(s) << " " << size;
			EXPECT_LE(b.next - r.first, size) << hilo_strategy_name(s) << " " << size;
		}
	}
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

/*
 * Property: a key draws under one strategy and size, moves to another
 * sequence with another strategy and size (which an application may have
 * used already); no id comes twice among the old key's blocks and the new
 * sequence's later blocks.
 */
TEST(Hilo, MoveNeverOverlaps)
{
	std::mt19937_64 rng(99);
	const HiloStrategy all[] = {HiloStrategy::classic, HiloStrategy::legacy,
	HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3};

	for (int round = 0; round < 2000; round++)
	{
		HiloStrategy from = all[rng() % 4];
		HiloStrategy to = all[rng() % 4];
		int64_t		old_size = 1 + rng() % 30;
		int64_t		new_size = 1 + rng() % 30;
		bool		from_pooled = hilo_size_is_increment(from);
		bool		to_pooled = hilo_size_is_increment(to);
		int64_t		v = (int64_t) (rng() % 4);
		int64_t		w = (int64_t) (rng() % 200);	/* the new sequence's position */
		std::set<int64_t> old_ids;

		for (int i = 0, n = 1 + rng() % 6; i < n; i++, v += from_pooled ? old_size : 1)
		{
			HiloBlock	b;

			if (hilo_block(from, v, old_size, &b) == HiloStatus::ok)
				for (int64_t id = b.next; id <= b.last; id++)
					old_ids.insert(id);
		}
		int64_t		h;

		ASSERT_EQ(hilo_move(from, v, old_size, to, w, new_size, &h), HiloStatus::ok);
		ASSERT_GE(h, w);
		for (int i = 0; i < 5; i++, h += to_pooled ? new_size : 1)
		{
			HiloBlock	b;

			if (hilo_block(to, h, new_size, &b) != HiloStatus::ok)
				continue;
			for (int64_t id = b.next; id <= b.last; id++)
				ASSERT_EQ(old_ids.count(id), 0u)
					<< hilo_strategy_name(from) << "->" << hilo_strategy_name(to) << " id " << id;
		}
	}
}

/*
 * hilo_floor: where a key's sequence must stand so that every block drawn
 * from now on starts above the ids already present in the table (its data
 * floor) or above an id given to hilo_set_floor().  Worked examples.
 */
TEST(Hilo, FloorExamples)
{
	int64_t		v = 0;

	/* classic 1000, ids up to 2500 present: hi 3 gives 3000..3999 */
	ASSERT_EQ(hilo_floor(HiloStrategy::classic, 1000, 2500, 0, &v), HiloStatus::ok);
	EXPECT_EQ(v, 3);
	/* up to 2999: hi 3 still (3000 is free); up to 3000: hi 4 */
	ASSERT_EQ(hilo_floor(HiloStrategy::classic, 1000, 2999, 0, &v), HiloStatus::ok);
	EXPECT_EQ(v, 3);
	ASSERT_EQ(hilo_floor(HiloStrategy::classic, 1000, 3000, 0, &v), HiloStatus::ok);
	EXPECT_EQ(v, 4);
	/* legacy 9 (blocks of 10): up to 25 present → v 3 gives 30..39 */
	ASSERT_EQ(hilo_floor(HiloStrategy::legacy, 9, 25, 0, &v), HiloStatus::ok);
	EXPECT_EQ(v, 3);
	/* pooled_lo 10: the value is the block's first id */
	ASSERT_EQ(hilo_floor(HiloStrategy::pooled_lo, 10, 1234, 1, &v), HiloStatus::ok);
	EXPECT_EQ(v, 1235);
	/* pooled 10: the value is the block's last id: (1235-1 .. 1244] */
	ASSERT_EQ(hilo_floor(HiloStrategy::pooled, 10, 1234, 1, &v), HiloStatus::ok);
	EXPECT_EQ(v, 1244);
	/* nothing present (or only ids below 1): never below the sequence's position */
	ASSERT_EQ(hilo_floor(HiloStrategy::classic, 1000, 0, 0, &v), HiloStatus::ok);
	EXPECT_EQ(v, 0);
	ASSERT_EQ(hilo_floor(HiloStrategy::classic, 1000, -500, 7, &v), HiloStatus::ok);
	EXPECT_EQ(v, 7);
	/* forward only: a sequence already above the data stays where it is */
	ASSERT_EQ(hilo_floor(HiloStrategy::classic, 1000, 2500, 40, &v), HiloStatus::ok);
	EXPECT_EQ(v, 40);
	ASSERT_EQ(hilo_floor(HiloStrategy::pooled_lo, 10, 1234, 5001, &v), HiloStatus::ok);
	EXPECT_EQ(v, 5001);
}

TEST(Hilo, FloorLimits)
{
	int64_t		v = 42;

	for (auto s : {HiloStrategy::classic, HiloStrategy::legacy, HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3})
	{
		/* INT64_MAX present: no id is left above it */
		EXPECT_EQ(hilo_floor(s, 10, INT64_MAX, 0, &v), HiloStatus::overflow);
		EXPECT_EQ(hilo_floor(s, 0, 5, 0, &v), HiloStatus::bad_size);
		EXPECT_EQ(v, 42);		/* untouched on failure */
	}
	/* the block above the data must itself fit */
	EXPECT_EQ(hilo_floor(HiloStrategy::classic, 1000, INT64_MAX - 500, 0, &v), HiloStatus::overflow);
	EXPECT_EQ(hilo_floor(HiloStrategy::pooled_lo, 10, INT64_MAX - 5, 0, &v), HiloStatus::overflow);
	ASSERT_EQ(hilo_floor(HiloStrategy::pooled_lo, 10, INT64_MAX - 10, 0, &v), HiloStatus::ok);
	EXPECT_EQ(v, INT64_MAX - 9);
	ASSERT_EQ(hilo_floor(HiloStrategy::pooled, 10, INT64_MAX - 10, 0, &v), HiloStatus::ok);
	EXPECT_EQ(v, INT64_MAX);
	/* a sequence already past the top keeps its (failing) position: overflow */
	EXPECT_EQ(hilo_floor(HiloStrategy::classic, 1000, 5, INT64_MAX, &v), HiloStatus::overflow);
}

/*
 * Property: for every strategy and size, the value hilo_floor() returns is
 * never below the sequence's position, its block and every later block lie
 * above the data, and it is the smallest such value (one step less would
 * reach the data).
 */
TEST(Hilo, FloorIsSmallestAboveData)
{
	std::mt19937_64 rng(2024);
	const HiloStrategy all[] = {HiloStrategy::classic, HiloStrategy::legacy,
	HiloStrategy::pooled_lo, HiloStrategy::pooled, HiloStrategy::pooled_hibernate3};

	for (int round = 0; round < 20000; round++)
	{
		HiloStrategy s = all[rng() % 4];
		int64_t		size = 1 + rng() % 50;
		bool		pooled = hilo_size_is_increment(s);
		int64_t		taken = (int64_t) (rng() % 5000) - 10;
		int64_t		next_v = (int64_t) (rng() % 300);
		int64_t		v;

		ASSERT_EQ(hilo_floor(s, size, taken, next_v, &v), HiloStatus::ok);
		ASSERT_GE(v, next_v);
		for (int i = 0; i < 3; i++)
		{
			HiloBlock	b;
			HiloStatus	st = hilo_block(s, v + i * (pooled ? size : 1), size, &b);

			if (st == HiloStatus::below_one)
				continue;
			ASSERT_EQ(st, HiloStatus::ok);
			ASSERT_GT(b.next, taken) << hilo_strategy_name(s) << " size " << size << " v " << v;
		}
		if (v > next_v)
		{
			HiloBlock	b;
			HiloStatus	st = hilo_block(s, v - 1, size, &b);

			/* one less reaches the data (ids below 1 present move nothing) */
			ASSERT_GE(taken, 1);
			if (st == HiloStatus::ok)
				ASSERT_LE(b.next, taken);
			else
				ASSERT_EQ(st, HiloStatus::below_one);
		}
	}
}

/*
 * The glue keeps a pointer to an entry across calls that run PostgreSQL
 * code (which may insert or erase other keys): it must stay the same entry
 * until that key itself is erased.
 */
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

TEST(Hilo, AdaptRangeRule)
{
	/* A new client starts at 32; sizes stay within 32 .. 1M. */
	EXPECT_EQ(hilo_adapt_range(0, 0), kHiloRangeMin);
	EXPECT_EQ(hilo_adapt_range(-5, 1000), kHiloRangeMin);
	EXPECT_EQ(hilo_adapt_range(32, 0), 512);					/* x16 at most */
	EXPECT_EQ(hilo_adapt_range(32, 20000), 64);				/* 20 s: x2 would last 40 s */
	EXPECT_EQ(hilo_adapt_range(32, 7000), 256);				/* 7 s: x8 lasts 56 s */
	EXPECT_EQ(hilo_adapt_range(1000, 45000), 1000);			/* within 30..60 s: keep */
	EXPECT_EQ(hilo_adapt_range(1000, 30000), 1000);
	EXPECT_EQ(hilo_adapt_range(1000, 60000), 1000);
	EXPECT_EQ(hilo_adapt_range(1000, 61000), 500);				/* /2 */
	EXPECT_EQ(hilo_adapt_range(1000, 250000), 125);			/* 250 s: /8 lasts 31 s */
	EXPECT_EQ(hilo_adapt_range(1 << 20, 86400000), 65536);	/* a day idle: /16 */
	EXPECT_EQ(hilo_adapt_range(1 << 20, 0), kHiloRangeMax);
	EXPECT_EQ(hilo_adapt_range(INT64_MAX, 0), kHiloRangeMax);
	EXPECT_EQ(hilo_adapt_range(64, INT64_MAX / 4), kHiloRangeMin);
	EXPECT_EQ(hilo_adapt_range(64, -1), 1024);					/* clock stepped back */
}

/* RavenDB's rule, the reference docs/hilo.md compares with: x2 under 30 s, /2 over 60 s. */
static int64_t
ravendb_rule(int64_t prev, int64_t elapsed_ms)
{
	if (prev < 32)
		return 32;
	if (elapsed_ms < 30000)
		return std::min<int64_t>(prev * 2, 1048576);
	if (elapsed_ms > 60000)
		return std::max<int64_t>(prev / 2, 32);
	return prev;
}

/*
 * A client using ids at a steady rate: how many round trips for its first
 * `total` ids, and how many ids its last range holds when it stops.
 */
template <typename Rule>
static void
simulate(Rule rule, double ids_per_ms, int64_t total, int64_t *trips, int64_t *last_size)
{
	int64_t		size = rule(0, 0);
	int64_t		used = 0;

	*trips = 0;
	while (used < total)
	{
		(*trips)++;
		used += size;
		*last_size = size;
		size = rule(size, (int64_t) (size / ids_per_ms));
	}
}

TEST(Hilo, AdaptRangeBeatsReference)
{
	struct
	{
		double		ids_per_ms;
		int64_t		total;
	}			clients[] = {{100.0, 10000000}, {1.0, 1000000}, {0.01, 10000}};

	for (auto c : clients)
	{
		int64_t		ours = 0, ref = 0, ours_last = 0, ref_last = 0;

		simulate(hilo_adapt_range, c.ids_per_ms, c.total, &ours, &ours_last);
		simulate(ravendb_rule, c.ids_per_ms, c.total, &ref, &ref_last);
		EXPECT_LE(ours, ref) << c.ids_per_ms << " ids/ms";
		/* The steady size lasts 30..60 s (or is the cap) under both rules. */
		EXPECT_TRUE(ours_last == kHiloRangeMax || ours_last / c.ids_per_ms >= 15000) << ours_last;
	}
	/* The busy client: 4 steps to the cap instead of 15. */
	{
		int64_t		ours = 0, ref = 0, l1 = 0, l2 = 0;

		simulate(hilo_adapt_range, 1000.0, 1 << 20, &ours, &l1);
		simulate(ravendb_rule, 1000.0, 1 << 20, &ref, &l2);
		EXPECT_LT(ours, ref);
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
