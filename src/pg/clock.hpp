/*
 * clock.hpp: the clock the server-wide generators read, and the persistent,
 * WAL-logged clock floor that keeps them above every id issued before a
 * crash, a restart with the clock set back, or a failover.
 *
 * The floor is a Unix time in ms, per database (it is stored in that
 * database's sequence id_gen.clock_floor), with one slot per database in
 * shared memory.  Protocol for a generator:
 *
 *   slot = idgen_clock_floor();          first use in this backend: finds the
 *                                        slot, and on the first use of the
 *                                        database since server start reads the
 *                                        persisted floor (waiting, at most
 *                                        IDGEN_FLOOR_STEP_MS plus the backward
 *                                        tolerance, for the clock to pass it)
 *   restart above slot->loaded_ms        (once per backend; idempotent max)
 *   hot path: issue a time t only if t <= idgen_clock_floor_reserved(slot),
 *   else idgen_clock_floor_advance(slot, t) and retry.
 *
 * idgen_clock_floor_advance() persists max(t, now) + IDGEN_FLOOR_STEP_MS
 * with setval (as the sequence's owner) and flushes the WAL BEFORE it
 * publishes the new floor, so no id above the old floor is ever returned
 * unless the new floor is durable (and replicated by streaming WAL).
 */
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "port/atomics.h"
}

/* How far ahead the floor is reserved: one WAL flush per second at most. */
#define IDGEN_FLOOR_STEP_MS 1000
/*
 * IdgenFloorSlot.loaded: the persisted floor has not been read, has been read
 * (final), or has been read during recovery only (provisional: read again by
 * the first idgen_clock_floor() after promotion).
 */
#define IDGEN_FLOOR_NOT_LOADED 0
#define IDGEN_FLOOR_LOADED 1
#define IDGEN_FLOOR_READ_IN_RECOVERY 2
/* Databases that can use the generators between two server starts. */
#define IDGEN_MAX_DATABASES 64

typedef struct IdgenFloorSlot
{
	Oid			dboid;			/* InvalidOid: free; set once, under the mutex */
	pg_atomic_uint32 loaded;	/* IDGEN_FLOOR_* below */
	pg_atomic_uint64 reserved_ms;	/* persisted floor (Unix ms) */
	int64		loaded_ms;		/* floor persisted before this server start */
	pg_atomic_uint64 advances;	/* WAL-flushed floor advances since start */
} IdgenFloorSlot;

/* The generators' clock: CLOCK_REALTIME plus the id_gen.clock_offset_ms test hook. */
extern int64 idgen_clock_now_ms(void);
extern int64 idgen_clock_now_us(void);

/*
 * ERROR unless ids may be generated now: not during recovery (25006), not in
 * a read-only transaction (25006), not in parallel mode (25000).  fname is
 * the SQL function name for the message.
 */
extern void idgen_check_can_generate(const char *fname);

/* This database's floor slot, loaded (see above).  May wait or ERROR. */
extern IdgenFloorSlot *idgen_clock_floor(void);

/*
 * Index (0..IDGEN_MAX_DATABASES-1) of this database in every per-database
 * table in shared memory; with create, assigns one (ERROR 53400 when all
 * are taken), otherwise -1 if it has none.
 */
extern int	idgen_database_index(bool create);

/* This database's slot if one exists, without loading anything. */
extern IdgenFloorSlot *idgen_clock_floor_peek(void);

static inline int64
idgen_clock_floor_reserved(IdgenFloorSlot *slot)
{
	return (int64) pg_atomic_read_u64(&slot->reserved_ms);
}

/* Make the persisted floor cover unix_ms (WAL-flushed).  May ERROR. */
extern void idgen_clock_floor_advance(IdgenFloorSlot *slot, int64 unix_ms);

/*
 * The OID of the extension's internal sequence id_gen.<name> in this
 * database; ERROR 55000 with a hint to ALTER EXTENSION UPDATE if missing.
 */
extern Oid	idgen_internal_sequence(const char *name);

/* last_value of a sequence read as its owner; *is_called false if never used. */
extern int64 idgen_sequence_last_value(Oid seqoid, bool *is_called);

/* Sleep up to ms milliseconds, staying responsive to cancel requests. */
extern void idgen_sleep_ms(int64 ms);

/* From _PG_init: reserve the floor slots' shared memory when preloaded. */
extern void idgen_clock_init(void);
