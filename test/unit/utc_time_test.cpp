/* Unit tests for the UTC timestamp parser used by configured epochs. */
#include "core/utc_time.hpp"

#include <gtest/gtest.h>

using idgen::parse_utc_timestamp;

TEST(UtcTime, DaysFromCivil)
{
	EXPECT_EQ(idgen::days_from_civil(1970, 1, 1), 0);
	EXPECT_EQ(idgen::days_from_civil(2000, 3, 1), 11017);
	EXPECT_EQ(idgen::days_from_civil(1969, 12, 31), -1);
}

TEST(UtcTime, ShardingSphereEpoch)
{
	int64_t		ms = 0;

	ASSERT_TRUE(parse_utc_timestamp("2016-11-01 00:00:00Z", &ms));
	EXPECT_EQ(ms, 1477958400000);	/* date -u -d 2016-11-01 +%s */
	ASSERT_TRUE(parse_utc_timestamp("2016-11-01T00:00:00+00:00", &ms));
	EXPECT_EQ(ms, 1477958400000);
	ASSERT_TRUE(parse_utc_timestamp("2016-11-01", &ms));
	EXPECT_EQ(ms, 1477958400000);
}

TEST(UtcTime, FractionsAndLeapDays)
{
	int64_t		ms = 0;

	ASSERT_TRUE(parse_utc_timestamp("2024-02-29 12:34:56.789 UTC", &ms));
	EXPECT_EQ(ms, 1709210096789);
	ASSERT_TRUE(parse_utc_timestamp("2024-02-29T12:34:56.7Z", &ms));
	EXPECT_EQ(ms, 1709210096700);
}

TEST(UtcTime, RejectsMalformedAndNonUtc)
{
	int64_t		ms = 42;

	for (const char *bad : {"", "2016", "2016-11-1", "2016-13-01", "2023-02-29",
							"2016-11-01 24:00:00", "2016-11-01 00:60", "2016-11-01 00:00:00+01",
							"2016-11-01 00:00:00.", "2016-11-01x", "yesterday", "2016-11-01 00:00:00 PST"})
	{
		EXPECT_FALSE(parse_utc_timestamp(bad, &ms)) << bad;
	}
	EXPECT_FALSE(parse_utc_timestamp(nullptr, &ms));
	EXPECT_EQ(ms, 42);
}
