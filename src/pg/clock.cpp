/*
 * clock.cpp: the persistent floors of the time-ordered generators' streams
 * (see clock.hpp for the protocol; the clock itself is clock_time.cpp).
 *
 * Each database's floors are in its entry (db_state.hpp).  Locking:
 *  - loading and advancing a database's floors is serialised by a
 *    self-conflicting heavyweight lock (ShareUpdateExclusiveLock) on that
 *    database's id_gen.snowflake_floor, taken and released around the work
 *    (not held to transaction end): the work opens relations and writes and
 *    flushes WAL.  During recovery (which allows no such lock) a database's
 *    floors are only read, provisionally;
 *  - the hot paths only read a floor atomically.  Floors only grow, and one
 *    is raised only once its value is durable (the WAL flushed).
 */
#include "pg/clock.hpp"

#include "pg/extension_owner.hpp"
#include "pg/unix_time.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/timestamp.h"
}

static IdgenFloorSlot *my_slot = nullptr;
static const IdgenStreamOps *streams[IDGEN_STREAMS];
static Oid	floor_seqs[IDGEN_STREAMS];	/* looked up once, reset on invalidation */
Oid			idgen_clock_floor_seq = InvalidOid;

void
idgen_clock_register(IdgenStream stream, const IdgenStreamOps *ops)
{
	streams[stream] = ops;
}

void
idgen_check_can_generate(const char *fname)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("%s() cannot be executed during recovery", fname),
				 errdetail("A standby must not issue ids: they could collide with the primary's."),
				 errhint("Call it on the primary; after promotion it continues above the replicated floor. "
						 "A standby or clone made with pg_basebackup inherits id_gen.worker_id and id_gen.launch_id "
						 "from postgresql.auto.conf: give it its own values before it runs as a separate primary.")));
	if (XactReadOnly)
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot execute %s() in a read-only transaction", fname),
				 errdetail("Like nextval(), it may have to write its WAL-logged state.")));
	if (IsInParallelMode())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("cannot execute %s() during a parallel operation", fname)));
}

/* Raise an atomic to at least v (it never goes down). */
static void
raise_u64(pg_atomic_uint64 *a, int64 v)
{
	uint64		cur = pg_atomic_read_u64(a);

	while (cur < (uint64) v)
		if (pg_atomic_compare_exchange_u64(a, &cur, (uint64) v))
			break;
}

void
idgen_clock_relcache(Oid relid)
{
	for (int i = 0; i < IDGEN_STREAMS; i++)
		if (!OidIsValid(relid) || relid == floor_seqs[i])
		{
			for (int j = 0; j < IDGEN_STREAMS; j++)
				floor_seqs[j] = InvalidOid;
			idgen_clock_floor_seq = InvalidOid;
			return;
		}
}

static Oid
floor_seq(int stream)
{
	if (!OidIsValid(floor_seqs[stream]))
		floor_seqs[stream] = idgen_internal_sequence(streams[stream]->floor_seq);
	return floor_seqs[stream];
}

void
idgen_clock_slot_init(IdgenFloorSlot *slot)
{
	pg_atomic_init_u32(&slot->loaded, IDGEN_FLOOR_NOT_LOADED);
	pg_atomic_init_u32(&slot->seq, InvalidOid);
	for (int i = 0; i < IDGEN_STREAMS; i++)
		pg_atomic_init_u64(&slot->floor[i], 0);
	pg_atomic_init_u64(&slot->advances, 0);
}

Oid
idgen_internal_sequence(const char *name)
{
	Oid			nsp = get_namespace_oid("id_gen", true);
	Oid			rel = OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;

	if (!OidIsValid(rel) || get_rel_relkind(rel) != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence id_gen.%s of extension id_gen does not exist in this database", name),
				 errhint("Reinstall the extension in this database.")));
	return rel;
}

/* Read and set as the extension owner: the sequences are its, closed to others. */
int64
idgen_sequence_last_value(Oid seqoid, bool *is_called)
{
	IdgenSavedUser saved;
	Datum		result;
	LOCAL_FCINFO(fcinfo, 1);

	idgen_become_extension_owner(&saved, false);
	InitFunctionCallInfoData(*fcinfo, nullptr, 1, InvalidOid, nullptr, nullptr);
	fcinfo->args[0].value = ObjectIdGetDatum(seqoid);
	fcinfo->args[0].isnull = false;
	result = pg_sequence_last_value(fcinfo);
	idgen_restore_user(&saved);
	*is_called = !fcinfo->isnull;
	return fcinfo->isnull ? 0 : DatumGetInt64(result);
}

void
idgen_sequence_setval(Oid seqoid, int64 value)
{
	IdgenSavedUser saved;

	idgen_become_extension_owner(&saved, false);
	DirectFunctionCall2(setval_oid, ObjectIdGetDatum(seqoid), Int64GetDatum(value));
	idgen_restore_user(&saved);
}

static bool
can_write(void)
{
	return !RecoveryInProgress() && !XactReadOnly && !IsInParallelMode();
}

/*
 * Take the lock that serialises loading and advancing this database's
 * floors (a heavyweight lock on its id_gen.snowflake_floor); returns that
 * sequence's OID.  A reinstall committed while we waited dropped it: take
 * the new one's.
 */
static Oid
lock_floors(void)
{
	for (;;)
	{
		Oid			lockoid = floor_seq(IDGEN_STREAM_SNOWFLAKE);

		LockRelationOid(lockoid, ShareUpdateExclusiveLock);
		/* (locking accepted invalidations: a drop resets floor_seqs) */
		if (floor_seq(IDGEN_STREAM_SNOWFLAKE) == lockoid)
			return lockoid;
		UnlockRelationOid(lockoid, ShareUpdateExclusiveLock);
	}
}

/*
 * Bring this database's floors and its slot to the larger of the two, and
 * raise every stream's word above a floor read, before anyone is told the
 * slot is loaded; the caller holds the lock (except during recovery).  At a
 * backend's first use, while the slot is not loaded (the first use since
 * the start, or a floor read during recovery, after promotion), and when
 * the slot's floors were last made durable in other sequences than this
 * backend's (slot->seq).  The slot's values go into the sequences where
 * they are larger (read-write callers only): a reinstall while the server
 * runs (the new sequences start at 0), a reinstall rolled back after it
 * advanced the floors in its own sequences, or an entry a dropped database
 * with this OID left (its floors only raise these).  No wait: a floor ahead
 * of the clock is continued above.  During recovery the read is
 * provisional (the primary keeps raising the floors): no heavyweight lock
 * (recovery allows none above RowExclusiveLock), and the first use after
 * promotion reads them again.
 */
static void
sync_floors_locked(IdgenFloorSlot *slot, Oid seqoid)
{
	bool		in_recovery = RecoveryInProgress();
	bool		wrote = false;
	int64		durable[IDGEN_STREAMS];
	bool		loaded = pg_atomic_read_u32(&slot->loaded) != IDGEN_FLOOR_NOT_LOADED;

	for (int i = 0; i < IDGEN_STREAMS; i++)
	{
		bool		is_called;
		Oid			seq = floor_seq(i);
		int64		stored = idgen_sequence_last_value(seq, &is_called);
		int64		held = loaded ? (int64) pg_atomic_read_u64(&slot->floor[i]) : 0;

		durable[i] = stored;
		if ((uint64) held > (uint64) stored && can_write())
		{
			idgen_sequence_setval(seq, held);
			durable[i] = held;
			wrote = true;
		}
		/*
		 * The words are the server's and only grow: once loaded they are
		 * above every id issued since the start; a floor read is a
		 * reservation ahead of the clock, raised to only when first read, or
		 * when set higher meanwhile (a restore into the running database).
		 */
		if (!loaded || (uint64) stored > (uint64) held)
			streams[i]->raise(stored);
	}
	/* Nobody else flushes setval's records. */
	if (wrote)
		XLogFlush(XactLastRecEnd);
	/* What the sequences hold now: a lower value only makes callers advance. */
	pg_atomic_write_u32(&slot->seq, seqoid);
	pg_write_barrier();
	for (int i = 0; i < IDGEN_STREAMS; i++)
		pg_atomic_write_u64(&slot->floor[i], (uint64) durable[i]);
	pg_write_barrier();
	if (in_recovery)
	{
		uint32		expected = IDGEN_FLOOR_NOT_LOADED;

		/* never demote a final load (promotion may have happened meanwhile) */
		pg_atomic_compare_exchange_u32(&slot->loaded, &expected, IDGEN_FLOOR_READ_IN_RECOVERY);
	}
	else
		pg_atomic_write_u32(&slot->loaded, IDGEN_FLOOR_LOADED);
}

static Oid
sync_floors(IdgenFloorSlot *slot)
{
	Oid			seqoid;

	if (RecoveryInProgress())
	{
		seqoid = floor_seq(IDGEN_STREAM_SNOWFLAKE);
		sync_floors_locked(slot, seqoid);
		return seqoid;
	}
	seqoid = lock_floors();
	sync_floors_locked(slot, seqoid);
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
	return seqoid;
}

IdgenFloorSlot *
idgen_clock_floor(void)
{
	uint32		state;
	bool		first_use;
	Oid			seqoid;

	(void) idgen_clock_epoch_ms();	/* fixed before any id */
	/*
	 * A backend's first use checks the slot against this database's
	 * sequences: the slot may be a dropped database's of the same OID, made
	 * from the same template (the same sequence OIDs).
	 */
	first_use = (my_slot == nullptr);
	if (my_slot == nullptr)
		my_slot = idgen_db_floor_slot(true);
	seqoid = floor_seq(IDGEN_STREAM_SNOWFLAKE);
	state = pg_atomic_read_u32(&my_slot->loaded);
	if (first_use || pg_atomic_read_u32(&my_slot->seq) != seqoid ||
		(state != IDGEN_FLOOR_LOADED &&
		 !(state == IDGEN_FLOOR_READ_IN_RECOVERY && RecoveryInProgress())))
		seqoid = sync_floors(my_slot);
	idgen_clock_floor_seq = seqoid;
	pg_read_barrier();
	return my_slot;
}

IdgenFloorSlot *
idgen_clock_floor_peek(void)
{
	if (my_slot == nullptr)
		my_slot = idgen_db_floor_slot(false);
	return my_slot;
}

int64
idgen_clock_floor_advance(IdgenFloorSlot *slot, IdgenStream stream, int64 need, int64 target)
{
	uint64		covered = pg_atomic_read_u64(&slot->floor[stream]);
	Oid			lockoid;

	if (covered >= (uint64) need || !can_write())
		return (int64) covered;
	lockoid = lock_floors();
	/* The floors were made durable in other sequences (a reinstall): here first. */
	if (pg_atomic_read_u32(&slot->seq) != lockoid)
		sync_floors_locked(slot, lockoid);
	if (pg_atomic_read_u64(&slot->floor[stream]) < (uint64) need)
	{
		bool		is_called;
		Oid			seq = floor_seq(stream);
		uint64		stored = (uint64) idgen_sequence_last_value(seq, &is_called);
		uint64		db_target = Max(Max((uint64) target, (uint64) need), stored);

		/*
		 * Set higher than the floor in force by someone else (setval after a
		 * restore into the running database, the docs' way back): the
		 * stream continues above it, as after a floor read.
		 */
		if (stored > pg_atomic_read_u64(&slot->floor[stream]))
			streams[stream]->raise((int64) stored);
		idgen_sequence_setval(seq, (int64) db_target);
		/*
		 * XactLastRecEnd is the end of the last record this backend inserted
		 * (the insert position could lie past a page header, which XLogFlush
		 * rejects).
		 */
		XLogFlush(XactLastRecEnd);
		raise_u64(&slot->floor[stream], (int64) db_target);
		pg_atomic_fetch_add_u64(&slot->advances, 1);
	}
	UnlockRelationOid(lockoid, ShareUpdateExclusiveLock);
	return (int64) pg_atomic_read_u64(&slot->floor[stream]);
}

/*
 * id_gen.clock_carry_floors() (install script only): CREATE EXTENSION makes
 * the floors' sequences anew, at 0; if this database's slot still holds
 * floors of an earlier installation (DROP EXTENSION and CREATE EXTENSION
 * while the server runs), they go into the new sequences, WAL-flushed.
 */
IDGEN_FUNCTION(clock_carry_floors)
{
	IdgenFloorSlot *slot = idgen_clock_floor_peek();

	if (slot != nullptr && pg_atomic_read_u32(&slot->loaded) != IDGEN_FLOOR_NOT_LOADED)
		sync_floors(slot);
	PG_RETURN_VOID();
}

static Datum
ms_datum(int64 unix_ms, bool *isnull)
{
	*isnull = unix_ms <= 0;
	return unix_ms <= 0 ? (Datum) 0 : TimestampTzGetDatum(idgen_timestamptz_from_unix_ms(unix_ms));
}

/*
 * id_gen.clock_streams() → one row per stream: its word's time, how far
 * that is ahead of the clock, since when it runs ahead, this database's
 * floor and its advances; how far the wall clock is ahead of the time the
 * generators follow (a forward step being caught up).
 * What id_gen.headroom's clock rows read.
 */
IDGEN_FUNCTION(clock_streams)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IdgenFloorSlot *slot = idgen_clock_floor_peek();
	int64		now = idgen_clock_now_ms();
	int64		followed = idgen_clock_followed_ms();

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < IDGEN_STREAMS; i++)
	{
		const IdgenStreamOps *ops = streams[i];
		int64		word = ops->last_word();
		int64		at = word == 0 ? 0 : ops->word_unix_ms(word);
		bool		is_called;
		/* before this database's first use since the start: its sequence */
		int64		floor = slot && pg_atomic_read_u32(&slot->loaded) ?
			(int64) pg_atomic_read_u64(&slot->floor[i]) :
			idgen_sequence_last_value(floor_seq(i), &is_called);
		Datum		values[7];
		bool		nulls[7] = {false};

		values[0] = CStringGetTextDatum(ops->name);
		values[1] = ms_datum(at, &nulls[1]);
		values[2] = Int64GetDatum(at - now);
		nulls[2] = at == 0;
		values[3] = ms_datum(ops->ahead_since(), &nulls[3]);
		values[4] = ms_datum(floor == 0 ? 0 : ops->word_unix_ms(floor), &nulls[4]);
		values[5] = Int64GetDatum(slot ? (int64) pg_atomic_read_u64(&slot->advances) : 0);
		values[6] = Int64GetDatum(Max(0, now - followed));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
