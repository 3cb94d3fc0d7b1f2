/*
 * clock.hpp: the clock the time-ordered generators read, and the persistent
 * floor that keeps each of their streams above every id it issued before a
 * crash, a restart, a failover, a restore or an upgrade.
 *
 * Three streams, each one state word in shared memory for the whole server:
 * snowflake_next()'s, jsid_next()'s and timeuuid_next()'s.  None refuses
 * because of time: a word ahead of the clock (the clock went back, a floor
 * ahead of it was read) is continued above, and the stream runs ahead of the
 * clock (snowflake.cpp bounds that lead: it never grows).
 *
 * The floor of a stream is one value per database, a WAL-logged sequence of
 * its own (id_gen.snowflake_floor, id_gen.jsid_floor, id_gen.timeuuid_floor)
 * holding a state word of that stream: the largest id of the reserved
 * millisecond for every worker id and sequence value (snowflake, jsid, in the
 * layout and epoch in force) or the largest v7 word of that millisecond.  No
 * id above it is returned before it is raised and its WAL flushed (read-write
 * transactions on a primary; a hot standby's, a parallel worker's and a
 * read-only transaction's timeuuids are issued without).  Crash recovery,
 * standbys, PITR, pg_dump and pg_upgrade carry it; a first use of a database
 * raises the stream's word above it (idgen_clock_floor()), compared as a
 * word: no epoch or worker id is kept beside it.
 *
 * Shared memory holds each database's floors (its IdgenFloorSlot, in its
 * entry: db_state.hpp) as a cache of the sequences, and the clock's
 * monotonic reference (clock_time.cpp).  Protocol for a stream:
 *
 *   idgen_clock_register(stream, &ops)   from _PG_init
 *   slot = idgen_clock_floor();          when !idgen_clock_floor_ready(slot):
 *                                        a backend's first use, or a floor read
 *                                        during recovery, since promotion
 *   hot path: issue a word w only if w <= idgen_clock_floor_of(slot, stream),
 *   else idgen_clock_floor_advance(slot, stream, w, target) and retry.
 */
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "port/atomics.h"
}

/* How far ahead a floor is reserved: one WAL flush per second at most. */
#define IDGEN_FLOOR_STEP_MS 1000
/*
 * How far the wall clock may be ahead of the time the generators follow
 * before id_gen.headroom says so (a forward step being caught up at twice
 * real time's rate: idgen_clock_confirm_ms()).
 */
#define IDGEN_CLOCK_MAX_STEP_MS 1000

#define IDGEN_FLOOR_NOT_LOADED 0
#define IDGEN_FLOOR_LOADED 1
#define IDGEN_FLOOR_READ_IN_RECOVERY 2	/* read again after promotion */

typedef enum IdgenStream
{
	IDGEN_STREAM_SNOWFLAKE,
	IDGEN_STREAM_JSID,
	IDGEN_STREAM_TIMEUUID,
	IDGEN_STREAMS
} IdgenStream;

typedef struct IdgenFloorSlot
{
	pg_atomic_uint32 loaded;	/* IDGEN_FLOOR_* above */
	pg_atomic_uint32 seq;		/* OID of the id_gen.snowflake_floor they are durable in */
	pg_atomic_uint64 floor[IDGEN_STREAMS];	/* this database's floors: state words */
	pg_atomic_uint64 advances;	/* durable floor advances since start */
} IdgenFloorSlot;

/* What the clock needs of a stream (registered from _PG_init). */
typedef struct IdgenStreamOps
{
	const char *name;			/* "snowflake", in id_gen.clock_streams() */
	const char *floor_seq;		/* id_gen.<floor_seq> */
	void		(*raise) (int64 floor_word);	/* the word above a floor read */
	int64		(*word_unix_ms) (int64 word);	/* the time of a word, Unix ms */
	int64		(*last_word) (void);	/* the stream's word now (0: none) */
	int64		(*ahead_since) (void);	/* Unix ms it last went ahead of the clock, 0: current */
} IdgenStreamOps;

extern void idgen_clock_register(IdgenStream stream, const IdgenStreamOps *ops);

/*
 * The one clock reader: wall-clock Unix time (moved by
 * id_gen.test_clock_offset_ms in test builds only), in nanoseconds, and in
 * micro- and milliseconds from it.
 */
extern int64 idgen_clock_now_ns(void);
extern int64 idgen_clock_now_ms(void);
extern int64 idgen_clock_now_us(void);

/*
 * The monotonic clock (CLOCK_BOOTTIME: it counts a suspend, unlike
 * CLOCK_MONOTONIC, and no step moves it), in nanoseconds.
 */
extern int64 idgen_clock_mono_ns(void);

/*
 * A wall-clock reading (Unix ms) that jumped ahead of the last id: the
 * time the generators follow, the monotonic clock plus an offset taken when
 * shared memory was made, never beyond the wall clock, and catching up
 * with a wall clock ahead of it at most at twice real time's rate.  The
 * slow path of the generators' clock read, taken when their word's
 * millisecond is not the clock's or the one before.
 */
extern int64 idgen_clock_confirm_ms(int64 wall_ms);

/* The time the generators follow now, Unix ms (id_gen.clock_streams()). */
extern int64 idgen_clock_followed_ms(void);

/*
 * ERROR unless ids may be generated now: not during recovery (25006), not in
 * a read-only transaction (25006), not in parallel mode (25000).  fname is
 * the SQL function name for the message.
 */
extern void idgen_check_can_generate(const char *fname);

/*
 * This database's floor slot, loaded (see above).  May ERROR.  During
 * recovery the load is provisional and is redone after promotion.
 */
extern IdgenFloorSlot *idgen_clock_floor(void);

/* The OID of id_gen.snowflake_floor this backend last checked the slot against. */
extern Oid	idgen_clock_floor_seq;

/*
 * True once the slot's floors are final and durable in this backend's
 * floor sequences: nothing to (re)load.  Floors written by a transaction
 * that recreated the sequences (a reinstall, which may roll back) are
 * written into this backend's first.  Check it after reading a floor (with
 * pg_read_barrier()): a floor is raised after its sequence's OID is set.
 */
static inline bool
idgen_clock_floor_ready(IdgenFloorSlot *slot)
{
	return slot != nullptr && pg_atomic_read_u32(&slot->loaded) == IDGEN_FLOOR_LOADED &&
		pg_atomic_read_u32(&slot->seq) == idgen_clock_floor_seq;
}

/* This database's slot if one exists, without loading anything. */
extern IdgenFloorSlot *idgen_clock_floor_peek(void);

/*
 * The largest word of a stream issued without advancing its floor; words
 * compare as unsigned (timeuuid's from the year 2248 have the top bit set).
 */
static inline int64
idgen_clock_floor_of(IdgenFloorSlot *slot, IdgenStream stream)
{
	return (int64) pg_atomic_read_u64(&slot->floor[stream]);
}

/*
 * Make the database's floor of a stream cover the word need: set it to
 * max(target, what it holds), WAL-flushed; a sequence set above the floor
 * in force (setval: a restore, an admin) raises the stream's word to it
 * first.  Returns the floor now in force,
 * below need where nothing can be written (recovery, a read-only
 * transaction, a parallel worker).  May ERROR.
 */
extern int64 idgen_clock_floor_advance(IdgenFloorSlot *slot, IdgenStream stream, int64 need, int64 target);

/* Set a sequence's value (setval semantics, is_called) as the extension owner; no flush. */
extern void idgen_sequence_setval(Oid seqoid, int64 value);

/*
 * The OID of the extension's internal sequence id_gen.<name> in this
 * database; ERROR 55000 if missing.
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

/* From _PG_init: register the clock's shared memory. */
extern void idgen_clock_init(void);

/* A new database entry's slot: nothing loaded (db_state.cpp). */
extern void idgen_clock_slot_init(IdgenFloorSlot *slot);

/*
 * This database's floor slot, in its entry of the per-database state
 * (db_state.cpp); with create, made on the database's first use, else
 * nullptr when there is none yet.  May ERROR.
 */
extern IdgenFloorSlot *idgen_db_floor_slot(bool create);

/* A relcache invalidation of relid (InvalidOid: all), from id_gen.cpp. */
extern void idgen_clock_relcache(Oid relid);
