/*
 * clock.cpp: the generators' clock and the persistent clock floor (see
 * clock.hpp for the protocol).
 *
 * Shared memory "id_gen clock floors": one slot per database.  Locking:
 *  - the spinlock guards only the assignment of a slot to a database;
 *  - loading and advancing a database's floor is serialised by a
 *    self-conflicting heavyweight lock (ShareUpdateExclusiveLock) on that
 *    database's id_gen.clock_floor sequence, taken and released around the
 *    work (not held to transaction end).  A heavyweight lock, not an LWLock,
 *    because the work opens a relation, writes and flushes WAL, and may sleep:
 *    it must stay interruptible and visible to the deadlock detector.
 *    During recovery (which allows no such lock) the floor is only read,
 *    provisionally, and loaded_ms is raised under the spinlock;
 *  - the hot path only reads reserved_ms atomically.  reserved_ms only grows,
 *    and is written only under the heavyweight lock, after the WAL flush.
 */
#include "pg/clock.hpp"

#include "pg/guc.hpp"
#include "pg/shmem.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "storage/lmgr.h"
#include "storage/spin.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

#include <ctime>

typedef struct IdgenClockShared
{
	slock_t		mutex;
	IdgenFloorSlot slots[IDGEN_MAX_DATABASES];
} IdgenClockShared;

static IdgenClockShared *clock_shared = nullptr;
static IdgenFloorSlot *my_slot = nullptr;

int64
idgen_clock_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64) ts.tv_sec * 1000000 + ts.tv_nsec / 1000 +
		(int64) idgen_clock_offset_ms * 1000;
}

int64
idgen_clock_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000 +
		(int64) idgen_clock_offset_ms;
}

void
idgen_sleep_ms(int64 ms)
{
	while (ms > 0)
	{
		int64		chunk = ms > 100 ? 100 : ms;

		CHECK_FOR_INTERRUPTS();
		pg_usleep((long) chunk * 1000L);
		ms -= chunk;
	}
	CHECK_FOR_INTERRUPTS();
}

void
idgen_check_can_generate(const char *fname)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("%s() cannot be executed during recovery", fname),
				 errdetail("A standby must not issue ids: they could collide with the primary's."),
				 errhint("Call it on the primary; after promotion it continues above the replicated clock floor. "
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

static void
clock_shared_init(void *ptr)
{
	IdgenClockShared *cs = static_cast<IdgenClockShared *>(ptr);

	SpinLockInit(&cs->mutex);
	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		IdgenFloorSlot *s = &cs->slots[i];

		s->dboid = InvalidOid;
		pg_atomic_init_u32(&s->loaded, 0);
		pg_atomic_init_u64(&s->reserved_ms, 0);
		s->loaded_ms = 0;
		pg_atomic_init_u64(&s->advances, 0);
	}
}

void
idgen_clock_init(void)
{
	idgen_shmem_reserve(sizeof(IdgenClockShared));
}

/*
 * The index of this database's slot, shared by every per-database table in
 * shared memory (the floors here, decimal_id's generators): with create,
 * assigns the next free one; otherwise -1 if the database has none yet.
 */
int
idgen_database_index(bool create)
{
	int			found = -1;

	if (clock_shared == nullptr)
		clock_shared = static_cast<IdgenClockShared *>(
			idgen_shmem_attach("id_gen clock floors", sizeof(IdgenClockShared), clock_shared_init));

	SpinLockAcquire(&clock_shared->mutex);
	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		IdgenFloorSlot *s = &clock_shared->slots[i];

		if (s->dboid == MyDatabaseId || (s->dboid == InvalidOid && create))
		{
			s->dboid = MyDatabaseId;
			found = i;
			break;
		}
		if (s->dboid == InvalidOid)
			break;
	}
	SpinLockRelease(&clock_shared->mutex);

	if (found < 0 && create)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("id_gen generators are in use in more than %d databases of this server",
						IDGEN_MAX_DATABASES),
				 errhint("The limit resets when the server restarts.")));
	return found;
}

/* This database's floor slot (see idgen_database_index). */
static IdgenFloorSlot *
find_slot(bool create)
{
	int			i = idgen_database_index(create);

	return i < 0 ? nullptr : &clock_shared->slots[i];
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
				 errhint("Run ALTER EXTENSION id_gen UPDATE in this database.")));
	return rel;
}

/* Runs as the sequence's owner (the extension's owner), like a SECURITY DEFINER. */
static Oid
sequence_owner(Oid seqoid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(seqoid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", seqoid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

int64
idgen_sequence_last_value(Oid seqoid, bool *is_called)
{
	Oid			save_userid;
	int			save_sec_context;
	Datum		result;
	LOCAL_FCINFO(fcinfo, 1);

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(sequence_owner(seqoid),
						   save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	InitFunctionCallInfoData(*fcinfo, nullptr, 1, InvalidOid, nullptr, nullptr);
	fcinfo->args[0].value = ObjectIdGetDatum(seqoid);
	fcinfo->args[0].isnull = false;
	result = pg_sequence_last_value(fcinfo);
	SetUserIdAndSecContext(save_userid, save_sec_context);
	*is_called = !fcinfo->isnull;
	return fcinfo->isnull ? 0 : DatumGetInt64(result);
}

/* setval(seq, value) as the owner, then make it durable before returning. */
static void
persist_floor(Oid seqoid, int64 value)
{
	Oid			save_userid;
	int			save_sec_context;

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(sequence_owner(seqoid),
						   save_sec_context | SECURITY_LOCAL_USERID_CHANGE);
	DirectFunctionCall2(setval_oid, ObjectIdGetDatum(seqoid), Int64GetDatum(value));
	SetUserIdAndSecContext(save_userid, save_sec_context);
	/*
	 * setval's WAL record is not flushed by anyone else: the id depends on
	 * it.  XactLastRecEnd is the end of the record this backend just wrote
	 * (the insert position could lie past a page header, which XLogFlush
	 * rejects).
	 */
	XLogFlush(XactLastRecEnd);
}

static char *
format_unix_ms(int64 unix_ms)
{
	TimestampTz ts = (TimestampTz) (unix_ms - INT64CONST(946684800000)) * 1000;

	return pstrdup(timestamptz_to_str(ts));
}

/* Raise the slot's loaded_ms to at least floor (under the mutex: loads during recovery take no lock). */
static void
raise_loaded_ms(IdgenFloorSlot *slot, int64 floor)
{
	SpinLockAcquire(&clock_shared->mutex);
	if (slot->loaded_ms < floor)
		slot->loaded_ms = floor;
	SpinLockRelease(&clock_shared->mutex);
}

/* Raise reserved_ms to at least floor (it never goes down). */
static void
raise_reserved_ms(IdgenFloorSlot *slot, int64 floor)
{
	uint64		cur = pg_atomic_read_u64(&slot->reserved_ms);

	while ((int64) cur < floor)
		if (pg_atomic_compare_exchange_u64(&slot->reserved_ms, &cur, (uint64) floor))
			break;
}

/*
 * First use of this database since server start: read the persisted floor.
 *
 * During recovery (a hot standby, where timeuuid_next() works without
 * advancing the floor) the read is provisional: the primary keeps raising
 * the floor, so the slot is marked IDGEN_FLOOR_READ_IN_RECOVERY and the
 * first use after promotion reads it again.  No heavyweight lock then
 * (recovery allows none above RowExclusiveLock); the values only grow.
 */
static void
load_floor(IdgenFloorSlot *slot)
{
	Oid			seqoid = idgen_internal_sequence("clock_floor");
	bool		in_recovery = RecoveryInProgress();

	if (!in_recovery)
		LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if (pg_atomic_read_u32(&slot->loaded) != IDGEN_FLOOR_LOADED)
	{
		bool		is_called;
		int64		floor = idgen_sequence_last_value(seqoid, &is_called);
		int64		now = idgen_clock_now_ms();

		/*
		 * Ids may have been issued up to the floor.  A floor at most one step
		 * (plus the tolerance) ahead is the reservation of a recent run: wait
		 * for the clock to pass it.  Further ahead, the clock has gone back.
		 */
		if (floor >= now)
		{
			int64		behind = floor - now + 1;

			if (behind > IDGEN_FLOOR_STEP_MS + idgen_max_clock_backward_ms)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("the clock is %lld ms behind the persisted clock floor of this database",
								(long long) behind),
						 errdetail("Ids may have been issued up to %s (before a restart, a crash, a failover or a restore); the clock reads %s.",
								   format_unix_ms(floor), format_unix_ms(now)),
						 errhint("Correct the system clock (check time synchronisation), or wait until it passes the floor.")));
			while (idgen_clock_now_ms() <= floor)
				idgen_sleep_ms(floor - idgen_clock_now_ms() + 1);
		}
		raise_loaded_ms(slot, floor);
		raise_reserved_ms(slot, floor);
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
	if (!in_recovery)
		UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
}

IdgenFloorSlot *
idgen_clock_floor(void)
{
	if (my_slot == nullptr)
		my_slot = find_slot(true);
	if (pg_atomic_read_u32(&my_slot->loaded) != IDGEN_FLOOR_LOADED)
		load_floor(my_slot);
	pg_read_barrier();
	return my_slot;
}

IdgenFloorSlot *
idgen_clock_floor_peek(void)
{
	if (my_slot == nullptr)
		my_slot = find_slot(false);
	return my_slot;
}

void
idgen_clock_floor_advance(IdgenFloorSlot *slot, int64 unix_ms)
{
	Oid			seqoid;

	if (idgen_clock_floor_reserved(slot) >= unix_ms)
		return;
	seqoid = idgen_internal_sequence("clock_floor");
	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if (idgen_clock_floor_reserved(slot) < unix_ms)
	{
		bool		is_called;
		int64		now = idgen_clock_now_ms();
		int64		target = Max(unix_ms, now) + IDGEN_FLOOR_STEP_MS;
		/* Never lower a floor someone (a restore, an admin) set higher. */
		int64		stored = idgen_sequence_last_value(seqoid, &is_called);

		if (stored > target)
			target = stored;
		persist_floor(seqoid, target);
		pg_atomic_write_u64(&slot->reserved_ms, (uint64) target);
		pg_atomic_fetch_add_u64(&slot->advances, 1);
	}
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
}
