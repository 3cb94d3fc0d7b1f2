/*
 * utc_time.hpp: calendar arithmetic and a strict parser for UTC timestamps,
 * used to read configured epochs such as id_gen.snowflake_epoch.
 */
#pragma once

#include <cstdint>

namespace idgen {

/* Days since 1970-01-01 of a proleptic Gregorian date (any year 0..9999). */
int64_t days_from_civil(int64_t year, unsigned month, unsigned day) noexcept;

/*
 * Parse "YYYY-MM-DD", optionally followed by "T" or " " and "HH:MM[:SS[.fff]]",
 * optionally followed by "Z", "UTC", "+00", "+00:00" or "+0000".  Only UTC
 * is accepted: an epoch must not depend on the server's time zone.
 * Returns false (leaving *ms untouched) on anything else, including
 * impossible dates such as 2023-02-29.
 */
bool parse_utc_timestamp(const char *text, int64_t *ms) noexcept;

}  // namespace idgen
