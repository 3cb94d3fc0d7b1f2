/*
 * clock.cpp: the generators' clock and the persistent clock floor (see
 * clock.hpp for the protocol).
 *
 * Shared memory "id_gen clock floors": the server-wide floor as published
 * (server_ms) and one slot per database (indexed as db_slots.hpp says).
 * Locking:
 *  - the spinlock guards only loaded_ms;
 *  - loading and advancing a database's floors is serialised by a
 *    self-conflicting heavyweight lock (ShareUpdateExclusiveLock) on that
 *    database's id_gen.clock_floor sequence, taken and released around the
 *    work (not held to transaction end).  A heavyweight lock, not an LWLock,
 *    because the work opens a relation, writes and flushes WAL, and may sleep:
 *    it must stay interruptible and visible to the deadlock detector.
 *    Backends of two databases may advance the server-wide floor at once;
 *    that is safe because it only grows (server_floor.cpp).
 *    During recovery (which allows no such lock) the floors are only read,
 *    provisionally;
 *  - the hot path only reads ok_ms atomically.  server_ms, reserved_ms and
 *    ok_ms only grow, and are raised only after the WAL flush that makes the
 *    value durable.
 */
#include "pg/clock.hpp"

#include "pg/db_slots.hpp"
#include "pg/extension_owner.hpp"
#include "pg/guc.hpp"
#include "pg/server_floor.hpp"
#include "pg/shmem.hpp"
#include "pg/unix_time.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "storage/lmgr.h"
#include "storage/spin.h"
#include "utils/fmgrprotos.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

#include <ctime>

typedef struct IdgenClockShared
{
	slock_t		mutex;
	pg_atomic_uint64 server_ms;	/* server-wide floor, durable; 0 if none */
	IdgenFloorSlot slots[IDGEN_MAX_DATABASES];
} IdgenClockShared;

static IdgenClockShared *clock_shared = nullptr;
static IdgenFloorSlot *my_slot = nullptr;

/* id_gen.clock_floor of this database, looked up once (reset on invalidation). */
static Oid	floor_seq = InvalidOid;

#define IDGEN_MAX_FLOOR_HOOKS 4
static IdgenFloorHook floor_hooks[IDGEN_MAX_FLOOR_HOOKS];
static int	nfloor_hooks = 0;

void
idgen_clock_on_load(IdgenFloorHook hook)
{
	if (nfloor_hooks >= IDGEN_MAX_FLOOR_HOOKS)
		elog(ERROR, "id_gen: too many clock floor hooks");
	floor_hooks[nfloor_hooks++] = hook;
}

int64
idgen_clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
#ifdef IDGEN_TEST_HOOKS
	return (int64) ts.tv_sec * 1000000000 + ts.tv_nsec +
		(int64) (idgen_test_clock_offset_ms * 1000000.0);
#else
	return (int64) ts.tv_sec * 1000000000 + ts.tv_nsec;
#endif
}

int64
idgen_clock_now_us(void)
{
	return idgen_clock_now_ns() / 1000;
}

int64
idgen_clock_now_ms(void)
{
	return idgen_clock_now_ns() / 1000000;
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
	pg_atomic_init_u64(&cs->server_ms, 0);
	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		IdgenFloorSlot *s = &cs->slots[i];

		pg_atomic_init_u32(&s->loaded, IDGEN_FLOOR_NOT_LOADED);
		pg_atomic_init_u64(&s->ok_ms, 0);
		pg_atomic_init_u64(&s->reserved_ms, 0);
		s->loaded_ms = 0;
		pg_atomic_init_u64(&s->advances, 0);
	}
}

static const IdgenShmemStruct clock_shmem = {
	"id_gen clock floors", sizeof(IdgenClockShared), clock_shared_init
};

void
idgen_clock_relcache(Oid relid)
{
	if (!OidIsValid(relid) || relid == floor_seq)
		floor_seq = InvalidOid;
}

static Oid
clock_floor_seq(void)
{
	if (!OidIsValid(floor_seq))
		floor_seq = idgen_internal_sequence("clock_floor");
	return floor_seq;
}

void
idgen_clock_init(void)
{
	idgen_shmem_register(&clock_shmem);
}

/* This database's floor slot (see idgen_database_index). */
static IdgenFloorSlot *
find_slot(bool create)
{
	int			i = idgen_database_index(create);

	if (clock_shared == nullptr)
		clock_shared = static_cast<IdgenClockShared *>(idgen_shmem_attach(&clock_shmem));
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

static char *
format_unix_ms(int64 unix_ms)
{
	return pstrdup(timestamptz_to_str(idgen_timestamptz_from_unix_ms(unix_ms)));
}

/* Raise an atomic to at least v (it never goes down). */
static void
raise_u64(pg_atomic_uint64 *a, int64 v)
{
	uint64		cur = pg_atomic_read_u64(a);

	while ((int64) cur < v)
		if (pg_atomic_compare_exchange_u64(a, &cur, (uint64) v))
			break;
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

/*
 * The largest millisecond the durable floors cover for a caller of this
 * database.  Where the database's floor cannot be written (a parallel worker,
 * a read-only transaction), only the server-wide floor counts.
 */
static int64
floor_cover(IdgenFloorSlot *slot, bool server_wide, bool can_write_db)
{
	int64		db = (int64) pg_atomic_read_u64(&slot->reserved_ms);
	int64		srv = (int64) pg_atomic_read_u64(&clock_shared->server_ms);

	if (server_wide)
		return can_write_db ? Min(srv, db) : srv;
	return db;
}

/* What every caller of this database may issue without advancing. */
static void
publish_ok(IdgenFloorSlot *slot, bool server_wide)
{
	raise_u64(&slot->ok_ms, floor_cover(slot, server_wide, true));
}

/*
 * First use of this database since server start (or since promotion): read
 * the persisted floors, the server's and the database's, and raise the
 * streams above the larger before anyone is told the slot is loaded.
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
	Oid			seqoid = clock_floor_seq();
	bool		in_recovery = RecoveryInProgress();

	if (!in_recovery)
		LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if (pg_atomic_read_u32(&slot->loaded) != IDGEN_FLOOR_LOADED)
	{
		bool		is_called;
		uint64		srv = 0;
		bool		server_wide = idgen_server_counter_read(IDGEN_ORIGIN_CLOCK_FLOOR, &srv);
		int64		db_floor = idgen_sequence_last_value(seqoid, &is_called);
		int64		floor = Max(db_floor, (int64) srv);
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
						 errmsg("the clock is %lld ms behind the persisted clock floor",
								(long long) behind),
						 errdetail("Ids may have been issued up to %s (before a restart, a crash, a failover or a restore) in %s; the clock reads %s.",
								   format_unix_ms(floor),
								   (int64) srv > db_floor ? "this server" : "this database",
								   format_unix_ms(now)),
						 errhint("Correct the system clock (check time synchronisation), or wait until it passes the floor.")));
			while (idgen_clock_now_ms() <= floor)
				idgen_sleep_ms(floor - idgen_clock_now_ms() + 1);
		}
		for (int i = 0; i < nfloor_hooks; i++)
			floor_hooks[i] (floor);
		raise_loaded_ms(slot, floor);
		raise_u64(&slot->reserved_ms, db_floor);
		raise_u64(&clock_shared->server_ms, (int64) srv);
		publish_ok(slot, server_wide);
		pg_write_barrier();
		if (in_recovery)
		{
			uint32		expected = IDGEN_FLOOR_NOT_LOADED;

			/* never demote a final load (promotion may have happened meanwhile) */
			pg_atomic_compare_exchange_u32(&slot->loaded, &expected, IDGEN_FLOOR_READ_IN_RECOVERY);
		}
		else
		{
			pg_atomic_write_u32(&slot->loaded, IDGEN_FLOOR_LOADED);
			if (!server_wide)
				ereport(WARNING,
						(errcode(ERRCODE_WARNING),
						 errmsg("id_gen: the clock floor of this server is kept per database only"),
						 errdetail("The replication origin \"%s\" does not exist, or max_replication_slots is 0: "
								   "after a restart with the clock set back, another database could issue "
								   "snowflake ids and timeuuids below this one's.", IDGEN_ORIGIN_CLOCK_FLOOR),
						 errhint("With max_replication_slots above 0, run ALTER EXTENSION id_gen UPDATE, "
								 "or as a superuser SELECT pg_replication_origin_create('%s').",
								 IDGEN_ORIGIN_CLOCK_FLOOR)));
		}
	}
	if (!in_recovery)
		UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
}

IdgenFloorSlot *
idgen_clock_floor(void)
{
	uint32		state;

	if (my_slot == nullptr)
		my_slot = find_slot(true);
	state = pg_atomic_read_u32(&my_slot->loaded);
	if (state != IDGEN_FLOOR_LOADED &&
		!(state == IDGEN_FLOOR_READ_IN_RECOVERY && RecoveryInProgress()))
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

/*
 * Raise the floors to cover unix_ms: the server-wide one (any context but
 * recovery) and this database's sequence (where it can be written), each to
 * max(unix_ms, now) + one step, flushed before the new values are published.
 * Returns the largest millisecond now covered for this caller.
 */
int64
idgen_clock_floor_advance(IdgenFloorSlot *slot, int64 unix_ms)
{
	bool		can_write_db = !IsInParallelMode() && !XactReadOnly;
	bool		server_wide = pg_atomic_read_u64(&clock_shared->server_ms) != 0;
	int64		covered = floor_cover(slot, server_wide, can_write_db);
	Oid			seqoid;

	if (covered >= unix_ms || RecoveryInProgress())
		return covered;
	if (!server_wide)
		server_wide = idgen_server_counter_read(IDGEN_ORIGIN_CLOCK_FLOOR, nullptr);
	seqoid = clock_floor_seq();
	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	covered = floor_cover(slot, server_wide, can_write_db);
	if (covered < unix_ms)
	{
		int64		target = Max(unix_ms, idgen_clock_now_ms()) + IDGEN_FLOOR_STEP_MS;
		int64		db_target = 0;
		bool		wrote_server = false;
		bool		wrote = false;

		if (server_wide && (int64) pg_atomic_read_u64(&clock_shared->server_ms) < unix_ms)
		{
			server_wide = idgen_server_counter_raise(IDGEN_ORIGIN_CLOCK_FLOOR, (uint64) target) != InvalidXLogRecPtr;
			wrote = wrote_server = server_wide;
		}
		if (can_write_db && (int64) pg_atomic_read_u64(&slot->reserved_ms) < unix_ms)
		{
			bool		is_called;
			/* Never lower a floor someone (a restore, an admin) set higher. */
			int64		stored = idgen_sequence_last_value(seqoid, &is_called);

			db_target = Max(target, stored);
			idgen_sequence_setval(seqoid, db_target);
			wrote = true;
		}
		if (wrote)
		{
			/*
			 * Nobody else flushes these records (setval's, or the origin's),
			 * and the id depends on them.  XactLastRecEnd is the end of the
			 * last record this backend inserted (the insert position could
			 * lie past a page header, which XLogFlush rejects).
			 */
			XLogFlush(XactLastRecEnd);
			pg_atomic_fetch_add_u64(&slot->advances, 1);
		}
		/*
		 * Publish only what was written here: when the database's floor was
		 * the one behind, the server's stays where it was.
		 */
		if (wrote_server)
			raise_u64(&clock_shared->server_ms, target);
		if (db_target > 0)
			raise_u64(&slot->reserved_ms, db_target);
		publish_ok(slot, server_wide);
		covered = floor_cover(slot, server_wide, can_write_db);
	}
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
	return covered;
}
