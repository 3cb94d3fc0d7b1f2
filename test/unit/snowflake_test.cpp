/*
 * Unit tests for the snowflake layout and the generator's transition
 * function: every status, sequence rollover, the clock behind the state
 * (ids continue, a borrowed millisecond only when allowed), the persisted
 * floor, and the end of the 41-bit time.
 */
#include "core/snowflake.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace idgen::snowflake;

static const int64_t kNoFloor = kMaxTime;

static int64_t
id_of(int64_t ms, int32_t w, int32_t s)
{
	int64_t		id = -1;

	EXPECT_TRUE(encode(ms, w, s, &id));
	return id;
}

TEST(SnowflakeLayout, EncodeDecodeRoundTrip)
{
	const int64_t times[] = {0, 1, 4095, 123456789, kMaxTime - 1, kMaxTime};
	const int32_t workers[] = {0, 1, 512, kMaxWorker};
	const int32_t seqs[] = {0, 1, 2048, kMaxSequence};

	for (int64_t t : times)
		for (int32_t w : workers)
			for (int32_t s : seqs)
			{
				int64_t		id;
				Parts		p;

				ASSERT_TRUE(encode(t, w, s, &id));
				ASSERT_GE(id, 0);
				ASSERT_TRUE(decode(id, &p));
				EXPECT_EQ(p.time_ms, t);
				EXPECT_EQ(p.worker, w);
				EXPECT_EQ(p.sequence, s);
			}
}

TEST(SnowflakeLayout, BitPositions)
{
	EXPECT_EQ(id_of(1, 0, 0), INT64_C(1) << 22);
	EXPECT_EQ(id_of(0, 1, 0), INT64_C(1) << 12);
	EXPECT_EQ(id_of(0, 0, 1), 1);
	EXPECT_EQ(id_of(kMaxTime, kMaxWorker, kMaxSequence), INT64_MAX);
}

TEST(SnowflakeLayout, RangeChecks)
{
	int64_t		id;
	Parts		p;

	EXPECT_FALSE(encode(-1, 0, 0, &id));
	EXPECT_FALSE(encode(kMaxTime + 1, 0, 0, &id));
	EXPECT_FALSE(encode(0, -1, 0, &id));
	EXPECT_FALSE(encode(0, kMaxWorker + 1, 0, &id));
	EXPECT_FALSE(encode(0, 0, -1, &id));
	EXPECT_FALSE(encode(0, 0, kMaxSequence + 1, &id));
	EXPECT_FALSE(decode(-1, &p));
	EXPECT_FALSE(decode(INT64_MIN, &p));
	EXPECT_TRUE(decode(0, &p));
	EXPECT_TRUE(min_id(0, &id));
	EXPECT_EQ(id, 0);
	EXPECT_TRUE(min_id(kMaxTime, &id));
	EXPECT_FALSE(min_id(kMaxTime + 1, &id));
	EXPECT_FALSE(min_id(-1, &id));
}

TEST(SnowflakeLayout, OrderFollowsTime)
{
	/* Any id of a later millisecond exceeds every id of an earlier one. */
	EXPECT_LT(id_of(100, kMaxWorker, kMaxSequence), id_of(101, 0, 0));
	int64_t		m;

	ASSERT_TRUE(min_id(101, &m));
	EXPECT_EQ(m, id_of(101, 0, 0));
	EXPECT_EQ(state_after(100) + 1, m);
	EXPECT_EQ(state_after(-5), 0);
	EXPECT_EQ(state_after(kMaxTime + 10), INT64_MAX);
}

TEST(SnowflakeNext, FirstIdAndFreshMillisecond)
{
	Step		s = next(0, 1000, 7, 1, kNoFloor, 10);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(1000, 7, 0));
	EXPECT_EQ(s.new_state, s.first_id);

	/* A later millisecond restarts the sequence at 0. */
	s = next(id_of(1000, 7, 99), 1001, 7, 1, kNoFloor, 10);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(1001, 7, 0));
}

TEST(SnowflakeNext, SameMillisecondContinuesSequence)
{
	Step		s = next(id_of(1000, 7, 5), 1000, 7, 1, kNoFloor, 10);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(1000, 7, 6));
}

TEST(SnowflakeNext, RolloverAt4096WaitsForNextMs)
{
	/* Issue a whole millisecond one by one: 4096 distinct increasing ids. */
	int64_t		state = 0;
	std::set<int64_t> seen;

	for (int i = 0; i < kIdsPerMs; i++)
	{
		Step		s = next(state, 500, 3, 1, kNoFloor, 10);

		ASSERT_EQ(s.status, Status::Ok) << i;
		ASSERT_GT(s.first_id, state);
		ASSERT_TRUE(seen.insert(s.first_id).second);
		state = s.new_state;
	}
	EXPECT_EQ(state, id_of(500, 3, kMaxSequence));
	/* The 4097th in the same millisecond must wait, not wrap. */
	EXPECT_EQ(next(state, 500, 3, 1, kNoFloor, 10).status, Status::WaitNextMs);
	Step		s = next(state, 501, 3, 1, kNoFloor, 10);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(501, 3, 0));
}

TEST(SnowflakeNext, BatchIsContiguousWithinOneMs)
{
	/* Exactly what is left of the millisecond: sequence 101..4095. */
	Step		s = next(id_of(10, 1, 100), 10, 1, 3995, kNoFloor, 10);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(10, 1, 101));
	EXPECT_EQ(s.new_state, id_of(10, 1, kMaxSequence));
	EXPECT_EQ(next(id_of(10, 1, 100), 10, 1, 3996, kNoFloor, 10).status, Status::WaitNextMs);
	/* Does not fit in what is left of the millisecond: wait. */
	EXPECT_EQ(next(id_of(10, 1, 100), 10, 1, 4096, kNoFloor, 10).status, Status::WaitNextMs);
	s = next(id_of(10, 1, 100), 11, 1, 4096, kNoFloor, 10);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(11, 1, 0));
	EXPECT_EQ(s.new_state, id_of(11, 1, kMaxSequence));
	EXPECT_EQ(next(0, 10, 1, 0, kNoFloor, 10).status, Status::BadArgument);
	EXPECT_EQ(next(0, 10, 1, 4097, kNoFloor, 10).status, Status::BadArgument);
	EXPECT_EQ(next(0, 10, 1024, 1, kNoFloor, 10).status, Status::BadArgument);
	EXPECT_EQ(next(0, 10, -1, 1, kNoFloor, 10).status, Status::BadArgument);
}

TEST(SnowflakeNext, ClockBehindKeepsSequence)
{
	/* The pitfall: the sequence must not restart at 0 when the clock steps back. */
	const int64_t last = id_of(1000, 2, 17);
	Step		s = next(last, 995, 2, 1, kNoFloor, false);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, last + 1);
	EXPECT_EQ(s.behind_ms, 5);
	/* However far behind: ids continue above the state, never refused. */
	s = next(last, 0, 2, 1, kNoFloor, false);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, last + 1);
	EXPECT_EQ(s.behind_ms, 1000);
}

TEST(SnowflakeNext, AheadBorrowsTheNextMillisecondOnlyWhenAllowed)
{
	/* That millisecond used up, ahead of the clock: the caller must allow a borrow. */
	Step		s = next(id_of(1000, 2, kMaxSequence), 995, 2, 1, kNoFloor, false);

	ASSERT_EQ(s.status, Status::AheadFull);
	EXPECT_EQ(s.behind_ms, 5);
	/* Borrowed as (ms + 1) | worker | start, not state + 1 (which would carry into the worker). */
	s = next(id_of(1000, 2, kMaxSequence), 995, 2, 1, kNoFloor, true);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(1001, 2, 0));
	EXPECT_EQ(s.behind_ms, 6);
	/* With a spread the borrowed millisecond starts where a fresh one would. */
	s = next(id_of(1000, 2, kMaxSequence), 995, 2, 1, kNoFloor, true, 255);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(1001, 2, (kMaxSequence + 1) % 256));
	/* A higher worker id in the state: borrow too, never below it. */
	s = next(id_of(1000, 9, 5), 995, 2, 1, kNoFloor, true);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(1001, 2, 0));
	/* The clock at the state's millisecond: wait for the next one, never borrow. */
	EXPECT_EQ(next(id_of(1000, 2, kMaxSequence), 1000, 2, 1, kNoFloor, true).status, Status::WaitNextMs);
	/* A borrow above the floor raises the floor first. */
	s = next(id_of(1000, 2, kMaxSequence), 995, 2, 1, 1000, true);
	ASSERT_EQ(s.status, Status::FloorReached);
	EXPECT_EQ(s.need_floor_ms, 1001);
}

TEST(SnowflakeNext, NeverBelowStateExhaustive)
{
	/*
	 * Every combination of a small state space, clock readings around it
	 * and both workers: whenever Ok, the run is above the state, within one
	 * millisecond, carries the worker id, and is not later than max(now, last).
	 */
	for (int32_t spread : {0, 1, 15, 1000, 4095})
	for (int64_t last_ms = 0; last_ms < 4; last_ms++)
		for (int32_t lw : {0, 1, 2})
			for (int32_t ls : {0, 1, 14, 15, 4094, 4095})
				for (int64_t now = 0; now < 7; now++)
					for (int32_t w : {0, 1, 2})
						for (int32_t n : {1, 2, 4000, 4096})
						{
							const int64_t st = id_of(last_ms, lw, ls);
							const bool	borrow = (now + last_ms + n) % 2 == 0;
							Step		s = next(st, now, w, n, kNoFloor, borrow, spread);

							if (s.status != Status::Ok)
							{
								if (now >= last_ms)
									ASSERT_EQ(s.status, Status::WaitNextMs);
								else
								{
									ASSERT_FALSE(borrow);
									ASSERT_EQ(s.status, Status::AheadFull);
								}
								continue;
							}
							Parts		a,
										b;

							ASSERT_GT(s.first_id, st);
							ASSERT_EQ(s.new_state - s.first_id, n - 1);
							ASSERT_TRUE(decode(s.first_id, &a));
							ASSERT_TRUE(decode(s.new_state, &b));
							ASSERT_EQ(a.time_ms, b.time_ms);
							ASSERT_EQ(a.worker, w);
							ASSERT_EQ(b.worker, w);
							/* never later than max(now, last), but for one borrowed ms ahead of the clock */
							ASSERT_LE(a.time_ms, now > last_ms ? now : last_ms + (now < last_ms ? 1 : 0));
							/*
							 * A fresh ms starts after the last id's sequence modulo
							 * spread + 1 (at 0 without a spread), lowered to fit
							 * the run; when possible the state's own ms.
							 */
							if (now > last_ms || a.time_ms > last_ms)
								ASSERT_EQ(a.sequence, std::min((ls + 1) % (spread + 1), kIdsPerMs - n));
							else
								ASSERT_EQ(a.time_ms, last_ms);
						}
}

TEST(SnowflakeNext, WorkerIdChangeStaysIncreasing)
{
	/* A lower worker id in the same ms would go below the last id: wait. */
	EXPECT_EQ(next(id_of(50, 9, 0), 50, 8, 1, kNoFloor, 10).status, Status::WaitNextMs);
	/* A higher one can start at sequence 0 of the same ms. */
	Step		s = next(id_of(50, 8, 4000), 50, 9, 1, kNoFloor, 10);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(50, 9, 0));
}

TEST(SnowflakeNext, FloorMustBeRaisedFirst)
{
	Step		s = next(id_of(100, 0, 0), 200, 0, 1, 150, 10);

	ASSERT_EQ(s.status, Status::FloorReached);
	EXPECT_EQ(s.need_floor_ms, 200);
	EXPECT_EQ(next(id_of(100, 0, 0), 150, 0, 1, 150, 10).status, Status::Ok);
	/* Restarting above a floor: the first id lies past it, whatever the worker. */
	const int64_t restart = state_after(150);

	EXPECT_EQ(next(restart, 150, 0, 1, kNoFloor, 10).status, Status::WaitNextMs);
	s = next(restart, 151, 0, 1, kNoFloor, 10);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_GT(s.first_id, id_of(150, kMaxWorker, kMaxSequence));
}

TEST(SnowflakeNext, EpochEdgesAndTimeExhaustion)
{
	Step		s = next(0, -1, 0, 1, kNoFloor, 10);

	ASSERT_EQ(s.status, Status::ClockBeforeEpoch);
	EXPECT_EQ(s.behind_ms, 1);
	s = next(0, 0, 5, 1, kNoFloor, 10);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(0, 5, 0));

	/* The last millisecond of the 41-bit field is usable, then it is over. */
	s = next(0, kMaxTime, kMaxWorker, 1, kNoFloor, 10);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(kMaxTime, kMaxWorker, 0));
	EXPECT_EQ(next(0, kMaxTime + 1, 0, 1, kNoFloor, 10).status, Status::TimeExhausted);
	EXPECT_EQ(next(INT64_MAX, kMaxTime, kMaxWorker, 1, kNoFloor, 10).status,
			  Status::TimeExhausted);
	/* Never a negative id: every Ok id near the end is >= 0. */
	s = next(id_of(kMaxTime, kMaxWorker, kMaxSequence - 1), kMaxTime, kMaxWorker, 1, kNoFloor, 10);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, INT64_MAX);
}

/*
 * The protocol of the glue, in plain C++: threads advance one shared state
 * word with compare-and-swap, each reading the state first and the clock
 * second.  The fake clock steps back now and then; a thread that meets a
 * full millisecond ahead of the clock borrows the next one on its retry.
 * Every id must be unique, and each thread must see its ids increase.
 */
#include <atomic>
#include <thread>
#include <vector>
#include <algorithm>

static void
race(const Layout &l, int32_t wid, std::vector<int64_t> &all, int32_t spread = 0)
{
	constexpr int kThreads = 4;
	constexpr int kPerThread = 100000;
	std::atomic<int64_t> state{0};
	std::atomic<int64_t> clock{1000};
	std::vector<std::vector<int64_t>> got(kThreads);

	auto worker = [&](int t) {
		uint32_t	rnd = 12345u + static_cast<uint32_t>(t);

		got[t].reserve(kPerThread);
		while (static_cast<int>(got[t].size()) < kPerThread)
		{
			int64_t		st = state.load();
			int64_t		now = clock.load();
			const int32_t n = (rnd % 7 == 0) ? 3 : 1;
			Step		s = next(l, st, now, wid, n, l.max_time(), rnd % 3 == 0, spread);

			rnd = rnd * 1103515245u + 12345u;
			if (s.status == Status::Ok)
			{
				if (state.compare_exchange_strong(st, s.new_state))
					for (int64_t id = s.first_id; id <= s.new_state; id++)
						got[t].push_back(id);
			}
			else
			{
				ASSERT_TRUE(s.status == Status::WaitNextMs || s.status == Status::AheadFull);
				/* "Time passes": forward, or now and then 3 ms back. */
				int64_t		c = clock.load();

				if (rnd % 16 == 0)
					clock.compare_exchange_strong(c, std::max(c - 3, (state.load() >> l.time_shift()) - 3));
				else
					clock.compare_exchange_strong(c, std::max(c, st >> l.time_shift()) + 1);
			}
		}
	};
	std::vector<std::thread> threads;

	for (int t = 0; t < kThreads; t++)
		threads.emplace_back(worker, t);
	for (auto &th : threads)
		th.join();

	for (auto &v : got)
	{
		for (size_t i = 1; i < v.size(); i++)
			ASSERT_LT(v[i - 1], v[i]);
		all.insert(all.end(), v.begin(), v.end());
	}
	std::sort(all.begin(), all.end());
	EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
	EXPECT_GE(all.size(), static_cast<size_t>(kThreads * kPerThread));
}

TEST(SnowflakeNext, ConcurrentCompareAndSwapNeverDuplicates)
{
	std::vector<int64_t> all;

	race(kSnowflake, 9, all);
}

TEST(SnowflakeNext, ConcurrentCompareAndSwapWithSpreadNeverDuplicates)
{
	std::vector<int64_t> all;

	race(kSnowflake, 9, all, 255);
}

/* jsid_next(): the same transition under the 41 + 4 + 8 layout. */
TEST(JsidLayout, StaysBelowTwoToThe53)
{
	int64_t		id;
	Parts		p;

	EXPECT_EQ(kJsid.max_id(), (INT64_C(1) << 53) - 1);
	EXPECT_EQ(kJsid.ids_per_ms(), 256);
	EXPECT_EQ(kJsid.max_worker(), 15);
	ASSERT_TRUE(encode(kJsid, kJsid.max_time(), 15, 255, &id));
	EXPECT_EQ(id, (INT64_C(1) << 53) - 1);
	EXPECT_FALSE(encode(kJsid, kJsid.max_time() + 1, 0, 0, &id));
	EXPECT_FALSE(encode(kJsid, 0, 16, 0, &id));
	EXPECT_FALSE(encode(kJsid, 0, 0, 256, &id));
	ASSERT_TRUE(decode(kJsid, (INT64_C(1234) << 12) | (5 << 8) | 7, &p));
	EXPECT_EQ(p.time_ms, 1234);
	EXPECT_EQ(p.worker, 5);
	EXPECT_EQ(p.sequence, 7);
	EXPECT_FALSE(decode(kJsid, INT64_C(1) << 53, &p));
	EXPECT_FALSE(decode(kJsid, -1, &p));
	EXPECT_EQ(state_after(kJsid, 1000), (INT64_C(1000) << 12) | 0xFFF);
}

TEST(JsidNext, SequenceExhaustionWaitsForTheNextMs)
{
	int64_t		state = 0;

	for (int i = 0; i < 256; i++)
	{
		Step		s = next(kJsid, state, 500, 3, 1, kJsid.max_time(), 10);

		ASSERT_EQ(s.status, Status::Ok);
		ASSERT_EQ(s.first_id, (INT64_C(500) << 12) | (3 << 8) | i);
		state = s.new_state;
	}
	EXPECT_EQ(next(kJsid, state, 500, 3, 1, kJsid.max_time(), 10).status, Status::WaitNextMs);
	/* a batch must fit the millisecond; 257 never does */
	EXPECT_EQ(next(kJsid, 0, 500, 3, 257, kJsid.max_time(), 10).status, Status::BadArgument);
	Step		s = next(kJsid, state, 501, 3, 1, kJsid.max_time(), 10);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, (INT64_C(501) << 12) | (3 << 8));
}

TEST(JsidNext, ClockBackwardAndWorkerRange)
{
	Step		s = next(kJsid, 0, 1000, 2, 1, kJsid.max_time(), 10);

	ASSERT_EQ(s.status, Status::Ok);
	int64_t		state = s.new_state;

	/* 5 ms or 50 ms back: continue in the last id's millisecond */
	s = next(kJsid, state, 995, 2, 1, kJsid.max_time(), false);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, state + 1);
	s = next(kJsid, state, 950, 2, 1, kJsid.max_time(), false);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, state + 1);
	/* worker 16 does not fit the layout */
	EXPECT_EQ(next(kJsid, 0, 1000, 16, 1, kJsid.max_time(), 10).status, Status::BadArgument);
	/* the floor first */
	s = next(kJsid, state, 2000, 2, 1, 1500, 10);
	EXPECT_EQ(s.status, Status::FloorReached);
	EXPECT_EQ(s.need_floor_ms, 2000);
	/* the end of the time field: never a wider id */
	EXPECT_EQ(next(kJsid, 0, kJsid.max_time() + 1, 2, 1, INT64_MAX, 10).status, Status::TimeExhausted);
	s = next(kJsid, 0, kJsid.max_time(), 15, 256, INT64_MAX, 10);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.new_state, (INT64_C(1) << 53) - 1);
	EXPECT_EQ(next(kJsid, s.new_state, kJsid.max_time(), 15, 1, INT64_MAX, 10).status, Status::TimeExhausted);
}

TEST(JsidNext, ConcurrentCompareAndSwapNeverDuplicates)
{
	std::vector<int64_t> all;

	race(kJsid, 9, all);
	EXPECT_LT(all.back(), INT64_C(1) << 53);
}

/*
 * The start spread (id_gen.snowflake_start_spread): at a low rate every id
 * opens a new millisecond, and without a spread its sequence is 0, so every
 * id of a server has the same `id % 16` (issue 22).  A fake clock gives one
 * id every `period` ms.
 */
static std::vector<int64_t>
low_rate_ids(const Layout &l, int32_t spread, int64_t period, int count)
{
	std::vector<int64_t> ids;
	int64_t		state = 0;

	for (int i = 0; i < count; i++)
	{
		Step		s = next(l, state, 1000 + i * period, 0, 1, l.max_time(), 10, spread);

		EXPECT_EQ(s.status, Status::Ok);
		EXPECT_GT(s.first_id, state);
		state = s.new_state;
		ids.push_back(s.first_id);
	}
	return ids;
}

/* Counts of id % n; true when each lies within `tolerance` (a fraction) of uniform. */
static bool
residues_even(const std::vector<int64_t> &ids, int n, double tolerance)
{
	std::vector<int> c(n, 0);

	for (int64_t id : ids)
		c[id % n]++;
	const double expected = static_cast<double>(ids.size()) / n;

	for (int k = 0; k < n; k++)
		if (c[k] < expected * (1 - tolerance) || c[k] > expected * (1 + tolerance))
			return false;
	return true;
}

TEST(StartSpread, ZeroKeepsEveryLowRateIdOnOneResidue)
{
	for (int64_t period : {1, 2, 1000})
		for (int64_t id : low_rate_ids(kSnowflake, 0, period, 200))
			ASSERT_EQ(id % 4, 0);
}

/*
 * Consecutive ids take the residues of the start sequence in turn, at any
 * period: exactly even for each n dividing spread + 1 (the powers of two up
 * to it, which divide the sequence space).  Another n has an odd factor,
 * which the time field spreads as it does without a spread, unless ids come
 * at a period that resonates with it; at jittered arrivals (1 to 50 ms
 * apart) every n up to 16 is within 30% of even (the sampling noise of 4096
 * ids), where without a spread half the residues of every even n stay empty.
 */
static std::vector<int64_t>
jittered_ids(const Layout &l, int32_t spread, int count)
{
	std::vector<int64_t> ids;
	int64_t		state = 0;
	int64_t		ms = 1000;
	uint32_t	rnd = 7;

	for (int i = 0; i < count; i++)
	{
		rnd = rnd * 1103515245u + 12345u;
		ms += 1 + (rnd >> 16) % 50;
		Step		s = next(l, state, ms, 0, 1, l.max_time(), 10, spread);

		EXPECT_EQ(s.status, Status::Ok);
		EXPECT_GT(s.first_id, state);
		state = s.new_state;
		ids.push_back(s.first_id);
	}
	return ids;
}

static void
expect_spread(const Layout &l, int32_t spread, const char *what)
{
	const int	p = spread + 1;

	for (int64_t period : {1, 2, 3, 5, 6, 7, 16, 1000})
	{
		std::vector<int64_t> ids = low_rate_ids(l, spread, period, p * 8);

		for (size_t i = 1; i < ids.size(); i++)
			ASSERT_EQ(ids[i] % p, (ids[i - 1] + 1) % p) << what << ", period " << period;
		for (int n = 2; n <= p; n *= 2)
			EXPECT_TRUE(residues_even(ids, n, 0)) << what << ", period " << period << ", n " << n;
	}
	std::vector<int64_t> ids = jittered_ids(l, spread, 4096);

	for (int n = 2; n <= 16; n++)
		EXPECT_TRUE(residues_even(ids, n, 0.3)) << what << ", jittered, n " << n;
}

TEST(StartSpread, LowRateIdsTakeEveryResidueInTurn)
{
	expect_spread(kSnowflake, 15, "snowflake, spread 15");
	expect_spread(kSnowflake, 255, "snowflake, spread 255");
	expect_spread(kJsid, 15, "jsid, spread 15");
	expect_spread(kJsid, 255, "jsid, spread 255");
	/* without: every even n keeps half its residues empty */
	std::vector<int64_t> ids = jittered_ids(kSnowflake, 0, 4096);

	for (int n = 2; n <= 16; n += 2)
		EXPECT_FALSE(residues_even(ids, n, 0.99)) << "spread 0, n " << n;
}

TEST(StartSpread, AnyRateKeepsCountingAcrossMilliseconds)
{
	/*
	 * Runs of 1..300 ids per millisecond, batches included: the low 8 bits
	 * of consecutive ids count up by one across milliseconds (spread 255).
	 */
	int64_t		state = 0;
	int64_t		prev = -1;
	uint32_t	rnd = 42;

	for (int64_t ms = 1000; ms < 3000; ms++)
	{
		int			want = 1 + static_cast<int>(rnd % 300);

		rnd = rnd * 1103515245u + 12345u;
		while (want > 0)
		{
			int32_t		n = std::min(want, 1 + static_cast<int>(rnd % 5));
			Step		s = next(state, ms, 4, n, kNoFloor, 10, 255);

			rnd = rnd * 1103515245u + 12345u;
			ASSERT_EQ(s.status, Status::Ok);
			ASSERT_GT(s.first_id, state);
			for (int64_t id = s.first_id; id <= s.new_state; id++)
			{
				if (prev >= 0)
				{
					ASSERT_EQ(id & 255, (prev + 1) & 255);
				}
				prev = id;
			}
			state = s.new_state;
			want -= n;
		}
	}
}

TEST(StartSpread, FullMillisecondWaitsAndTheNextStartsAtZero)
{
	/* The last id at sequence 4090, spread 15: the next ms starts at 4091 % 16 = 11. */
	Step		s = next(id_of(100, 1, 4090), 101, 1, 1, kNoFloor, 10, 15);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(101, 1, 11));
	/* A start near the top: the ms fills up, the next id waits for the next ms ... */
	int64_t		state = id_of(200, 1, 4094);

	s = next(state, 201, 1, 1, kNoFloor, 10, 4095);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(201, 1, 4095));
	state = s.new_state;
	EXPECT_EQ(next(state, 201, 1, 1, kNoFloor, 10, 4095).status, Status::WaitNextMs);
	/* ... where it starts at 4096 % (spread + 1): 0, so saturation costs nothing */
	s = next(state, 202, 1, 1, kNoFloor, 10, 4095);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(202, 1, 0));
	EXPECT_GT(s.first_id, state);
}

TEST(StartSpread, BatchStartIsLoweredToFit)
{
	/* start 4091 % 4096 would leave 5 ids: a batch of 100 starts at 3996 */
	Step		s = next(id_of(10, 0, 4090), 11, 0, 100, kNoFloor, 10, 4095);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(11, 0, 3996));
	EXPECT_EQ(s.new_state, id_of(11, 0, kMaxSequence));
	/* a whole millisecond starts at 0 */
	s = next(id_of(10, 0, 4090), 11, 0, 4096, kNoFloor, 10, 4095);
	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, id_of(11, 0, 0));
}

TEST(StartSpread, ChangedMidMillisecondStaysIncreasing)
{
	/*
	 * A reload between two calls: within the millisecond the sequence goes
	 * on from the last id whatever the new spread; the next millisecond
	 * starts by the new one; every id exceeds the one before.
	 */
	int64_t		state = 0;
	int64_t		ms = 500;
	const int32_t spreads[] = {255, 0, 15, 4095, 1, 0, 255};

	for (int round = 0; round < 200; round++)
	{
		int32_t		spread = spreads[round % 7];
		Step		s = next(state, ms, 2, 1, kNoFloor, 10, spread);

		if (s.status == Status::WaitNextMs)
		{
			ms++;
			continue;
		}
		ASSERT_EQ(s.status, Status::Ok);
		ASSERT_GT(s.first_id, state);
		if (state != 0 && (state >> kTimeShift) == ms)
		{
			ASSERT_EQ(s.first_id, state + 1);
		}
		state = s.new_state;
		if (round % 3 == 0)
			ms++;
	}
}

TEST(StartSpread, ClampedToTheLayoutsSequence)
{
	EXPECT_EQ(effective_spread(kSnowflake, 4095), 4095);
	EXPECT_EQ(effective_spread(kSnowflake, 5000), 4095);
	EXPECT_EQ(effective_spread(kJsid, 4095), 255);
	EXPECT_EQ(effective_spread(kJsid, 15), 15);
	EXPECT_EQ(effective_spread(kJsid, -3), 0);
	/* jsid under a snowflake spread of 4095: starts stay within its 8 bits */
	Step		s = next(kJsid, (INT64_C(100) << 12) | 254, 101, 3, 1, kJsid.max_time(), 10, 4095);

	ASSERT_EQ(s.status, Status::Ok);
	EXPECT_EQ(s.first_id, (INT64_C(101) << 12) | (3 << 8) | 255);
}

TEST(StartSpread, Capacity)
{
	Capacity	c = capacity(kSnowflake, 0);

	EXPECT_EQ(c.spread, 0);
	EXPECT_EQ(c.fewest_per_ms, 4096);
	EXPECT_EQ(c.saturated_per_ms, 4096);
	c = capacity(kSnowflake, 255);
	EXPECT_EQ(c.fewest_per_ms, 3841);
	EXPECT_EQ(c.saturated_per_ms, 4096);
	c = capacity(kSnowflake, 1000);		/* 4096 % 1001 = 92 lost per ms */
	EXPECT_EQ(c.fewest_per_ms, 3096);
	EXPECT_EQ(c.saturated_per_ms, 4004);
	c = capacity(kJsid, 4095);
	EXPECT_EQ(c.spread, 255);
	EXPECT_EQ(c.fewest_per_ms, 1);
	EXPECT_EQ(c.saturated_per_ms, 256);
}
