/*
 * server_floor.hpp: server-wide persistent counters that only grow, kept in
 * replication origins.
 *
 * A database's sequence is WAL-logged but per database, and dropped with the
 * extension.  Some state must be one per server and outlive DROP EXTENSION:
 * the clock floor of the server-wide snowflake and timeuuid streams, and the
 * decimal_id() generator ids already taken.  A replication origin's progress
 * (its remote_lsn, a uint64) is exactly that kind of value: server-wide,
 * WAL-logged, replayed after a crash and on streaming standbys, written
 * without a transaction (so also from parallel workers and read-only
 * transactions), and never moved backwards by our writes or by replay.
 *
 * The origins are created by the install script when max_replication_slots
 * is above 0; each one in use takes one of the max_replication_slots
 * progress slots.  Without them the callers fall back to per-database state
 * and say so with a WARNING.
 */
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "access/xlogdefs.h"
}

/* Origin holding the clock floor (Unix ms) of the whole server. */
#define IDGEN_ORIGIN_CLOCK_FLOOR "id_gen_clock_floor"
/* Origin holding the next decimal_id() generator id free on this server. */
#define IDGEN_ORIGIN_DECIMAL_GENERATORS "id_gen_decimal_generators"

/*
 * The counter's value into *value (if not null).  False if the server has no such origin
 * (or max_replication_slots is 0).  Works during recovery.
 */
extern bool idgen_server_counter_read(const char *name, uint64 *value);

/*
 * Raise the counter to at least value (never lowers it) and WAL-log it;
 * returns the end of the WAL record, which the caller must flush before
 * relying on it, or InvalidXLogRecPtr if the origin does not exist.  Not
 * during recovery.
 */
extern XLogRecPtr idgen_server_counter_raise(const char *name, uint64 value);
