/*
 * clock.hpp: the clock the server-wide generators read, and the persistent
 * clock floor that keeps them above every id issued before a crash, a
 * restart with the clock set back, a failover, a restore or an upgrade.
 *
 * The floor (Unix ms) is kept once, per database, in its WAL-logged
 * sequences id_gen.clock_floor, with id_gen.clock_epoch (the snowflake/jsid
 * epoch of the ids below it), id_gen.clock_worker (the worker id of those
 * ids) and id_gen.snowflake_floor beside it: crash recovery, standbys,
 * PITR, pg_dump and pg_upgrade carry them.  Written by read-write callers
 * only.  Shared memory is a cache of them: the streams are server-wide, but
 * across a restart each database's ids are kept above its own floor only
 * (docs/snowflake.md says what that leaves out).  Nothing here needs a
 * resource when WAL is replayed, and nothing takes a replication slot.
 *
 * An id at millisecond t is issued only once the floor covers t, durably
 * (timeuuids of read-only transactions, parallel workers and standbys, which
 * cannot write it, excepted).  Shared memory holds one slot per database
 * (db_state.hpp) whose reserved_ms is the largest millisecond so covered.
 * Protocol for a generator:
 *
 *   idgen_clock_on_load(hook)            from _PG_init: hook(floor, epoch)
 *                                        raises the generator's stream above
 *                                        a floor just read (ids up to it were
 *                                        issued under that epoch), BEFORE the
 *                                        slot is marked loaded
 *   slot = idgen_clock_floor();          when !idgen_clock_floor_ready(slot):
 *                                        first use of the database since the
 *                                        start, or since promotion; reads the
 *                                        database's floor (for a floor above
 *                                        every one read so far, waiting at
 *                                        most IDGEN_FLOOR_STEP_MS plus the
 *                                        backward tolerance for the clock to
 *                                        pass it)
 *   hot path: issue a time t only if t <= idgen_clock_floor_reserved(slot),
 *   else idgen_clock_floor_advance(slot, t) and retry.
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

typedef struct IdgenFloorSlot
{
	pg_atomic_uint32 loaded;	/* IDGEN_FLOOR_* above */
	pg_atomic_uint64 reserved_ms;	/* this database's persisted floor */
	pg_atomic_uint64 advances;	/* durable floor advances since start */
	/*
	 * Snowflake ids and jsids this database holds were counted from
	 * old_epoch_ms, earlier than the server's epoch, up to epoch_floor_ms
	 * (Unix ms; id_gen.snowflake_floor, 0: none): snowflake/jsid refuse in
	 * this database until new ids, counted from the server's epoch, pass
	 * them.  Set under the floor's lock when the floor is loaded.
	 */
	pg_atomic_uint64 epoch_floor_ms;
	pg_atomic_uint64 old_epoch_ms;
	/*
	 * A floor read further ahead of the clock than a reservation runs (the
	 * clock ran ahead, or was set back): snowflake ids and jsids of the
	 * worker id recorded with it may exist up to glitch_ms (Unix ms, 0:
	 * none), so that worker id is refused until the clock passes it, while
	 * other worker ids and timeuuid_next() go on.  glitch_worker is the
	 * worker id + 1, 0 for every worker id (unknown, or several).  Set
	 * under the floor's lock when the floor is loaded; only grow.
	 */
	pg_atomic_uint64 glitch_ms;
	pg_atomic_uint32 glitch_worker;
	int32		worker;			/* worker id kept with reserved_ms (-1: any) */
	Oid			seq;			/* the id_gen.clock_floor whose floor this is */
} IdgenFloorSlot;

/*
 * Called with every floor read, before it is published (see above): ids up
 * to floor_unix_ms may have been issued, snowflake ids and jsids counted
 * from epoch_unix_ms.  glitch: the floor lies further ahead of the clock
 * than a reservation runs; a stream that cannot run ahead of the clock
 * (snowflake, jsid) is not raised to it, but refuses the worker id that
 * issued ids up to it (idgen_clock_glitch_refuses).
 */
typedef void (*IdgenFloorHook) (int64 floor_unix_ms, int64 epoch_unix_ms, bool glitch);
extern void idgen_clock_on_load(IdgenFloorHook hook);

/*
 * The one clock reader: wall-clock Unix time (moved by
 * id_gen.test_clock_offset_ms in test builds only), in nanoseconds, and in
 * micro- and milliseconds from it.
 */
extern int64 idgen_clock_now_ns(void);
extern int64 idgen_clock_now_ms(void);
extern int64 idgen_clock_now_us(void);

/*
 * ERROR unless ids may be generated now: not during recovery (25006), not in
 * a read-only transaction (25006), not in parallel mode (25000).  fname is
 * the SQL function name for the message.
 */
extern void idgen_check_can_generate(const char *fname);

/*
 * This database's floor slot, loaded (see above).  May wait or ERROR.  During
 * recovery the load is provisional and is redone after promotion.
 */
extern IdgenFloorSlot *idgen_clock_floor(void);

/* True once the slot's floor is final: nothing to (re)load. */
static inline bool
idgen_clock_floor_ready(IdgenFloorSlot *slot)
{
	return slot != nullptr && pg_atomic_read_u32(&slot->loaded) == IDGEN_FLOOR_LOADED;
}


/*
 * True when ids of worker at now_unix_ms could repeat ids issued up to a
 * glitch floor (see IdgenFloorSlot): one atomic read while there is none.
 */
static inline bool
idgen_clock_glitch_refuses(IdgenFloorSlot *slot, int64 now_unix_ms, int32 worker)
{
	uint32		w;

	if (likely(now_unix_ms > (int64) pg_atomic_read_u64(&slot->glitch_ms)))
		return false;
	w = pg_atomic_read_u32(&slot->glitch_worker);
	return w == 0 || (int32) w - 1 == worker;
}

/*
 * For idgen_clock_glitch_refuses(): wait until the clock passes the floor
 * if it is within a reservation of it (the clock was put right), else
 * ERROR 55000 with why and the way out.
 */
extern void idgen_clock_glitch_wait(IdgenFloorSlot *slot, const char *fname, int32 worker);

/* This database's slot if one exists, without loading anything. */
extern IdgenFloorSlot *idgen_clock_floor_peek(void);

/* The largest millisecond at which ids may be issued without advancing. */
static inline int64
idgen_clock_floor_reserved(IdgenFloorSlot *slot)
{
	return (int64) pg_atomic_read_u64(&slot->reserved_ms);
}

/*
 * Make the database's floor cover unix_ms (WAL-flushed); returns the largest
 * millisecond now covered, below unix_ms where nothing can be written
 * (recovery, a read-only transaction, a parallel worker).  May ERROR.
 */
extern int64 idgen_clock_floor_advance(IdgenFloorSlot *slot, int64 unix_ms);

/* Set a sequence's value (setval semantics, is_called) as the extension owner; no flush. */
extern void idgen_sequence_setval(Oid seqoid, int64 value);

/*
 * The OID of the extension's internal sequence id_gen.<name> in this
 * database; ERROR 55000 with a hint to ALTER EXTENSION UPDATE if missing.
 */
extern Oid	idgen_internal_sequence(const char *name);

/* last_value of a sequence, read as the extension owner; *is_called false if never used. */
extern int64 idgen_sequence_last_value(Oid seqoid, bool *is_called);

/* Sleep up to ms milliseconds, staying responsive to cancel requests. */
extern void idgen_sleep_ms(int64 ms);

/*
 * The snowflake/jsid epoch (Unix ms) of this server start: the setting
 * id_gen.snowflake_epoch as it was when the clock's shared memory was
 * created (at server start when preloaded), the same for both streams.
 */
extern int64 idgen_clock_epoch_ms(void);

/*
 * ERROR 55000 if the epoch of this start is later than one under which ids
 * up to a floor read were issued and the clock has not yet passed them in
 * the new count (new ids would be smaller), for this database (the server's
 * setting moved, or the database was restored from a server with an
 * earlier epoch).  fname names the generator.
 */
extern void idgen_clock_check_epoch(const char *fname);

/* From _PG_init: register the clock's shared memory. */
extern void idgen_clock_init(void);

/* A new database entry's slot: nothing loaded (db_state.cpp). */
extern void idgen_clock_slot_init(IdgenFloorSlot *slot);

/* A relcache invalidation of relid (InvalidOid: all), from id_gen.cpp. */
extern void idgen_clock_relcache(Oid relid);
