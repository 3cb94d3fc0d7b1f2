/*
 * cpp_only.hpp: trip-wire for the pure C++ core.
 *
 * Everything under src/core/ must build and be unit-tested without any
 * PostgreSQL header, so that the algorithms can be reasoned about (and
 * fuzzed) on their own.  Every .cpp file of src/core includes this file last; if
 * anything it included pulled in a PostgreSQL header, compilation stops.
 * (Glue files include core headers after PostgreSQL's, which is fine.)
 */
#pragma once

#ifdef PG_VERSION_NUM
static_assert(false, "src/core/ must not include PostgreSQL headers");
#endif
#ifdef POSTGRES_H
static_assert(false, "src/core/ must not include PostgreSQL headers");
#endif
