/*
 * unix_time.hpp: Unix time (what clocks and UUIDs carry) and PostgreSQL's
 * timestamptz (microseconds since 2000-01-01) meet here and nowhere else.
 */
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "datatype/timestamp.h"
}

/* Unix microseconds at PostgreSQL's epoch, from core's Julian day numbers. */
constexpr int64 IDGEN_UNIX_US_AT_PG_EPOCH =
	static_cast<int64>(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
constexpr int64 IDGEN_UNIX_MS_AT_PG_EPOCH = IDGEN_UNIX_US_AT_PG_EPOCH / 1000;

static inline TimestampTz
idgen_timestamptz_from_unix_us(int64 unix_us)
{
	return unix_us - IDGEN_UNIX_US_AT_PG_EPOCH;
}

static inline TimestampTz
idgen_timestamptz_from_unix_ms(int64 unix_ms)
{
	return (unix_ms - IDGEN_UNIX_MS_AT_PG_EPOCH) * 1000;
}
