/*
 * clock.cpp: the generators' clock and the persistent clock floor (see
 * clock.hpp for the protocol).
 *
 * Shared memory "id_gen clock floors": the epoch of this start and the
 * largest floor the clock has been waited for (raised_ms); each database's
 * floor slot is in its entry (db_state.hpp).  Locking:
 *  - loading and advancing a database's floor is serialised by a
 *    self-conflicting heavyweight lock (ShareUpdateExclusiveLock) on that
 *    database's id_gen.clock_floor sequence, taken and released around the
 *    work (not held to transaction end): the work opens a relation, writes
 *    and flushes WAL, and may sleep.  During recovery (which allows no such
 *    lock) a database's floor is only read, provisionally;
 *  - the hot path only reads reserved_ms atomically.  raised_ms and
 *    reserved_ms only grow, and reserved_ms is raised only once the value is
 *    durable (the WAL flushed).
 */
#include "pg/clock.hpp"

#include "pg/db_state.hpp"
#include "pg/extension_owner.hpp"
#include "pg/guc.hpp"
#include "pg/node_identity.hpp"
#include "pg/shmem.hpp"
#include "pg/unix_time.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/fmgrprotos.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

#include <ctime>

#include "core/snowflake.hpp"

typedef struct IdgenClockShared
{
	int64		epoch_ms;		/* epoch of this start, fixed at creation */
	pg_atomic_uint64 raised_ms;	/* the streams are above every floor read up to here */
} IdgenClockShared;

static IdgenClockShared *clock_shared = nullptr;
static IdgenFloorSlot *my_slot = nullptr;

/*
 * id_gen.clock_floor and id_gen.clock_epoch of this database, looked up once
 * (reset on invalidation).
 */
static Oid	floor_seq = InvalidOid;
static Oid	epoch_seq = InvalidOid;
static Oid	epoch_floor_seq = InvalidOid;	/* id_gen.snowflake_floor (1.4) */
static Oid	worker_seq = InvalidOid;	/* id_gen.clock_worker (1.4) */

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

/* A slot as created: nothing loaded. */
static void
clock_slot_clear(IdgenFloorSlot *s, bool init)
{
	if (init)
	{
		pg_atomic_init_u32(&s->loaded, IDGEN_FLOOR_NOT_LOADED);
		pg_atomic_init_u64(&s->reserved_ms, 0);
		pg_atomic_init_u64(&s->advances, 0);
		pg_atomic_init_u64(&s->epoch_floor_ms, 0);
		pg_atomic_init_u64(&s->old_epoch_ms, 0);
		pg_atomic_init_u64(&s->glitch_ms, 0);
		pg_atomic_init_u32(&s->glitch_worker, 0);
		s->worker = -1;
		s->seq = InvalidOid;
		return;
	}
	pg_atomic_write_u32(&s->loaded, IDGEN_FLOOR_NOT_LOADED);
	pg_atomic_write_u64(&s->reserved_ms, 0);
	pg_atomic_write_u64(&s->advances, 0);
	pg_atomic_write_u64(&s->epoch_floor_ms, 0);
	pg_atomic_write_u64(&s->old_epoch_ms, 0);
	pg_atomic_write_u64(&s->glitch_ms, 0);
	pg_atomic_write_u32(&s->glitch_worker, 0);
	s->worker = -1;
	s->seq = InvalidOid;
}

static void
clock_shared_init(void *ptr)
{
	IdgenClockShared *cs = static_cast<IdgenClockShared *>(ptr);

	/* Read once per start: ids must not change meaning while the server runs. */
	cs->epoch_ms = idgen_snowflake_epoch_ms;
	pg_atomic_init_u64(&cs->raised_ms, 0);
}

static const IdgenShmemStruct clock_shmem = {
	"id_gen clock floors", sizeof(IdgenClockShared), clock_shared_init
};

static IdgenClockShared *
clock_attach(void)
{
	if (clock_shared == nullptr)
		clock_shared = static_cast<IdgenClockShared *>(idgen_shmem_attach(&clock_shmem));
	return clock_shared;
}

int64
idgen_clock_epoch_ms(void)
{
	return clock_attach()->epoch_ms;
}

void
idgen_clock_relcache(Oid relid)
{
	if (!OidIsValid(relid) || relid == floor_seq || relid == epoch_seq || relid == epoch_floor_seq ||
		relid == worker_seq)
		floor_seq = epoch_seq = epoch_floor_seq = worker_seq = InvalidOid;
}

static Oid
clock_floor_seq(void)
{
	if (!OidIsValid(floor_seq))
		floor_seq = idgen_internal_sequence("clock_floor");
	return floor_seq;
}

/*
 * id_gen.clock_epoch, or InvalidOid in a database whose extension predates
 * it (1.2 and older until ALTER EXTENSION UPDATE): its ids count as counted
 * from the server's epoch.
 */
static Oid
clock_epoch_seq(void)
{
	if (!OidIsValid(epoch_seq))
	{
		Oid			nsp = get_namespace_oid("id_gen", true);
		Oid			rel = OidIsValid(nsp) ? get_relname_relid("clock_epoch", nsp) : InvalidOid;

		if (OidIsValid(rel) && get_rel_relkind(rel) == RELKIND_SEQUENCE)
			epoch_seq = rel;
	}
	return epoch_seq;
}

/* The sequence id_gen.<name> of this database, or InvalidOid if missing. */
static Oid
sequence_if_any(const char *name)
{
	Oid			nsp = get_namespace_oid("id_gen", true);
	Oid			rel = OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;

	return OidIsValid(rel) && get_rel_relkind(rel) == RELKIND_SEQUENCE ? rel : InvalidOid;
}

/* id_gen.snowflake_floor of this database, or InvalidOid before 1.4. */
static Oid
clock_epoch_floor_seq(void)
{
	if (!OidIsValid(epoch_floor_seq))
		epoch_floor_seq = sequence_if_any("snowflake_floor");
	return epoch_floor_seq;
}

/* id_gen.clock_worker of this database, or InvalidOid before 1.4. */
static Oid
clock_worker_seq(void)
{
	if (!OidIsValid(worker_seq))
		worker_seq = sequence_if_any("clock_worker");
	return worker_seq;
}

void
idgen_clock_slot_init(IdgenFloorSlot *slot)
{
	clock_slot_clear(slot, true);
}

void
idgen_clock_init(void)
{
	idgen_shmem_register(&clock_shmem);
}

/* This database's floor slot, in its entry (db_state.hpp). */
static IdgenFloorSlot *
find_slot(bool create)
{
	IdgenDbEntry *e;

	clock_attach();
	e = idgen_db_entry(create);
	return e == nullptr ? nullptr : &e->floor;
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

/* An epoch as id_gen.snowflake_epoch takes it: 'YYYY-MM-DD HH:MM:SSZ'. */
static char *
format_epoch(int64 unix_ms)
{
	time_t		secs = (time_t) (unix_ms / 1000);
	struct tm	tm;
	char		buf[64];

	gmtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%SZ", &tm);
	return pstrdup(buf);
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

/*
 * When new ids of this database pass the ones it holds from an earlier
 * epoch (Unix ms), or 0 if it holds none.
 */
static int64
db_epoch_refused_to(IdgenFloorSlot *slot)
{
	int64		ef = slot ? (int64) pg_atomic_read_u64(&slot->epoch_floor_ms) : 0;

	if (ef <= 0)
		return 0;
	return clock_shared->epoch_ms + ef - (int64) pg_atomic_read_u64(&slot->old_epoch_ms);
}

/*
 * The epoch to persist beside a new floor: this start's, or, while a later
 * epoch is refused for this database's ids, the earlier one (the floor then
 * still bounds the old ids' time field).
 */
static int64
epoch_to_persist(IdgenFloorSlot *slot, int64 now_ms)
{
	if (now_ms <= db_epoch_refused_to(slot))
		return (int64) pg_atomic_read_u64(&slot->old_epoch_ms);
	return clock_shared->epoch_ms;
}

void
idgen_clock_check_epoch(const char *fname)
{
	IdgenClockShared *cs = clock_attach();
	int64		db_until = db_epoch_refused_to(my_slot);

	if (idgen_clock_now_ms() <= db_until)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s(): this database holds ids counted from an epoch earlier than id_gen.snowflake_epoch, and new ids would be smaller",
						fname),
				 errdetail("Ids were issued here up to %s counted from the epoch %s; counted from the server's epoch %s, new ids pass them only after %s.",
						   format_unix_ms((int64) pg_atomic_read_u64(&my_slot->epoch_floor_ms)),
						   format_epoch((int64) pg_atomic_read_u64(&my_slot->old_epoch_ms)),
						   format_epoch(cs->epoch_ms), format_unix_ms(db_until)),
				 errhint("If the server's epoch was moved, set id_gen.snowflake_epoch = '%s' again and restart the server. "
						 "Otherwise (a database restored from another server), until then generate these tables' snowflake ids "
						 "in another database, or on a server with an id_gen.worker_id none of the old ids has: under the same "
						 "worker id new ids could repeat them.",
						 format_epoch((int64) pg_atomic_read_u64(&my_slot->old_epoch_ms)))));
}

/*
 * A floor just read lies further ahead of the clock than a reservation
 * runs (one step, plus the backward tolerance): the clock ran ahead when it
 * was written, or has been set back since.  Waiting could take years.
 */
static bool
is_glitch(int64 floor)
{
	return floor - idgen_clock_now_ms() + 1 > IDGEN_FLOOR_STEP_MS + idgen_max_clock_backward_ms;
}

/*
 * A floor within a reservation of the clock (not is_glitch) is the
 * reservation of a recent run: wait for the clock to pass it.
 */
static void
wait_for_floor(int64 floor)
{
	while (idgen_clock_now_ms() <= floor)
		idgen_sleep_ms(floor - idgen_clock_now_ms() + 1);
}

/* Note a glitch floor and the worker id kept with it (-1: any). */
static void
note_glitch(IdgenFloorSlot *slot, int64 floor, int32 worker)
{
	uint32		w = worker < 0 ? 0 : (uint32) worker + 1;

	if (pg_atomic_read_u64(&slot->glitch_ms) == 0)
		pg_atomic_write_u32(&slot->glitch_worker, w);
	else if (pg_atomic_read_u32(&slot->glitch_worker) != w)
		pg_atomic_write_u32(&slot->glitch_worker, 0);
	pg_write_barrier();
	raise_u64(&slot->glitch_ms, floor);
}

/*
 * The worker id to keep with a new floor, whose previous value prev_floor
 * was kept with prev_worker: while a glitch floor binds, its worker id (no
 * other one can have issued ids ahead of the clock); while the previous
 * floor is ahead of the clock and the worker id has changed, any (both may
 * have issued ids up to it); else this server's (-1 when it has none).
 */
static int32
worker_to_persist(IdgenFloorSlot *slot, int64 prev_floor, int32 prev_worker, int64 now)
{
	idgen::node_identity::Resolved r = idgen_node_worker(idgen::snowflake::kSnowflake.max_worker());
	int32		cur = r.status == idgen::node_identity::Status::Ok ? r.id : -1;

	if (now <= (int64) pg_atomic_read_u64(&slot->glitch_ms))
		return (int32) pg_atomic_read_u32(&slot->glitch_worker) - 1;
	if (prev_floor >= now && prev_worker != cur)
		return -1;
	return cur;
}

void
idgen_clock_glitch_wait(IdgenFloorSlot *slot, const char *fname, int32 worker)
{
	int64		floor = (int64) pg_atomic_read_u64(&slot->glitch_ms);
	int64		now = idgen_clock_now_ms();

	/* The clock has come back to within a reservation of it: wait, as at a load. */
	if (!is_glitch(floor))
	{
		wait_for_floor(floor);
		return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("%s(): the clock is %lld ms behind the persisted clock floor of worker id %d",
					fname, (long long) (floor - now + 1), worker),
			 errdetail("Ids of worker id %d may have been issued up to %s (the clock ran ahead before a restart, "
					   "a crash, a failover or a restore, or has been set back); the clock reads %s.",
					   worker, format_unix_ms(floor), format_unix_ms(now)),
			 errhint("Correct the system clock if it is wrong.  If it ran ahead, give this server another "
					 "id_gen.worker_id that no other server uses (node_identity_check() lists them) and reload: "
					 "worker id %d is refused until the clock passes %s.  timeuuid_next() continues above the floor.",
					 worker, format_unix_ms(floor))));
}

/*
 * Raise every stream above a floor read (under which ids counted from
 * epoch_ms); a glitch floor raises only the streams that may run ahead of
 * the clock.  raised_ms, the floors the clock has been waited for, only
 * outside recovery: a standby raises its streams without waiting, so the
 * first load after promotion must wait for the same floor, as after a
 * restart, or snowflake_next() would meet a stream ahead of the clock.
 */
static void
raise_streams(int64 floor, int64 epoch_ms, bool glitch)
{
	for (int i = 0; i < nfloor_hooks; i++)
		floor_hooks[i] (floor, epoch_ms, glitch);
	if (!RecoveryInProgress() && !glitch)
		raise_u64(&clock_shared->raised_ms, floor);
}

/*
 * First use of this database since server start (or since promotion, or
 * since its slot was cleared): read the database's floor and raise the
 * streams above it before anyone is told the slot is loaded.  A floor above
 * every one read so far is waited for (at most a step plus the tolerance);
 * a glitch floor is not (see is_glitch).  A database whose floor is at or
 * below one already waited for starts at once and behaves as those already
 * in use, whatever the clock does.
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
	IdgenClockShared *cs = clock_shared;
	Oid			seqoid = clock_floor_seq();
	Oid			epochoid = clock_epoch_seq();
	bool		in_recovery = RecoveryInProgress();

	if (!in_recovery)
		LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if (pg_atomic_read_u32(&slot->loaded) != IDGEN_FLOOR_LOADED)
	{
		bool		is_called;
		int64		db_floor = idgen_sequence_last_value(seqoid, &is_called);
		int64		db_epoch = cs->epoch_ms;

		Oid			efloor_oid = clock_epoch_floor_seq();
		int64		efloor = 0;
		Oid			worker_oid = clock_worker_seq();
		int32		db_worker = -1;
		bool		glitch = is_glitch(db_floor);

		if (OidIsValid(epochoid))
		{
			int64		e = idgen_sequence_last_value(epochoid, &is_called);

			if (is_called)
				db_epoch = e;
		}
		if (OidIsValid(efloor_oid))
			efloor = idgen_sequence_last_value(efloor_oid, &is_called);
		if (OidIsValid(worker_oid))
		{
			int64		w = idgen_sequence_last_value(worker_oid, &is_called);

			if (is_called)
				db_worker = (int32) w;
		}
		/*
		 * Ids of this database counted from an earlier epoch (it was restored
		 * from a server with one, or the server's setting moved): they bound
		 * this database's snowflake/jsid alone, up to the floor first found
		 * under that epoch (id_gen.snowflake_floor; the database keeps the
		 * epoch in id_gen.clock_epoch until new ids pass them; a 1.3 schema,
		 * without the sequence, up to its floor).  The server-wide streams
		 * see the floor in the server's epoch.
		 */
		if (db_epoch < cs->epoch_ms && db_floor > db_epoch)
		{
			if (efloor <= 0)
			{
				efloor = db_floor;
				/* else the next advance by a read-write caller writes it */
				if (OidIsValid(efloor_oid) && !in_recovery && !XactReadOnly && !IsInParallelMode())
				{
					idgen_sequence_setval(efloor_oid, efloor);
					XLogFlush(XactLastRecEnd);
				}
			}
			pg_atomic_write_u64(&slot->old_epoch_ms, (uint64) db_epoch);
			pg_atomic_write_u64(&slot->epoch_floor_ms, (uint64) efloor);
			db_epoch = cs->epoch_ms;
		}
		else
			db_epoch = Max(db_epoch, cs->epoch_ms);
		/*
		 * A standby issues only timeuuids of its own stream, raised above the
		 * floor below; it has nothing to wait for, and the primary's floor is
		 * a reservation up to a step ahead of a clock that may differ.  A
		 * glitch floor refuses the worker id kept with it instead of a wait.
		 */
		if (!in_recovery)
		{
			if (glitch)
				note_glitch(slot, db_floor, db_worker);
			else if (db_floor > (int64) pg_atomic_read_u64(&cs->raised_ms))
				wait_for_floor(db_floor);
		}
		raise_streams(db_floor, db_epoch, glitch);
		raise_u64(&slot->reserved_ms, db_floor);
		slot->worker = db_worker;
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

/*
 * A backend's first use: the slot must hold the floor of this database's own
 * id_gen.clock_floor.  Under the sequence's lock a loaded slot's floor is
 * the sequence's value (both are raised together), so a slot that holds
 * another sequence's floor, or another value (a database dropped and another
 * created with its OID from the same template, the extension dropped and
 * created again, a floor set by hand), is cleared, and this sequence's floor
 * is loaded.  During recovery nothing is written, so nothing needs adopting.
 */
static void
clock_slot_adopt(IdgenFloorSlot *slot)
{
	Oid			seqoid;
	bool		is_called;

	if (RecoveryInProgress())
		return;
	seqoid = clock_floor_seq();
	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if (slot->seq != seqoid ||
		(pg_atomic_read_u32(&slot->loaded) == IDGEN_FLOOR_LOADED &&
		 idgen_sequence_last_value(seqoid, &is_called) != (int64) pg_atomic_read_u64(&slot->reserved_ms)))
	{
		if (OidIsValid(slot->seq))
			clock_slot_clear(slot, false);
		slot->seq = seqoid;
	}
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
}

IdgenFloorSlot *
idgen_clock_floor(void)
{
	uint32		state;

	if (my_slot == nullptr)
	{
		my_slot = find_slot(true);
		clock_slot_adopt(my_slot);
	}
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
 * Raise this database's floor to cover unix_ms, to max(unix_ms, now) + one
 * step, WAL-flushed before the new value is published: read-write callers
 * only (a parallel worker or a read-only transaction cannot write it).
 * Returns the largest millisecond now covered.
 */
int64
idgen_clock_floor_advance(IdgenFloorSlot *slot, int64 unix_ms)
{
	int64		covered = (int64) pg_atomic_read_u64(&slot->reserved_ms);
	int64		now;
	int64		target;
	Oid			seqoid;
	Oid			epochoid;

	if (covered >= unix_ms || RecoveryInProgress() || IsInParallelMode() || XactReadOnly)
		return covered;
	now = idgen_clock_now_ms();
	target = Max(unix_ms, now) + IDGEN_FLOOR_STEP_MS;
	seqoid = clock_floor_seq();
	epochoid = clock_epoch_seq();

	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if ((int64) pg_atomic_read_u64(&slot->reserved_ms) < unix_ms)
	{
		bool		is_called;
		/* Never lower a floor someone (a restore, an admin) set higher. */
		int64		stored = idgen_sequence_last_value(seqoid, &is_called);
		int64		db_target = Max(target, stored);

		idgen_sequence_setval(seqoid, db_target);
		if ((int64) pg_atomic_read_u64(&slot->epoch_floor_ms) > 0 && OidIsValid(clock_epoch_floor_seq()))
		{
			/* The earlier epoch's floor while it binds, else none. */
			int64		ef = idgen_sequence_last_value(clock_epoch_floor_seq(), &is_called);
			int64		want = now <= db_epoch_refused_to(slot) ?
				(int64) pg_atomic_read_u64(&slot->epoch_floor_ms) : 0;

			if (ef != want)
				idgen_sequence_setval(clock_epoch_floor_seq(), want);
		}
		if (OidIsValid(clock_worker_seq()))
		{
			int32		worker = worker_to_persist(slot, (int64) pg_atomic_read_u64(&slot->reserved_ms),
												   slot->worker, now);

			if (worker != slot->worker)
				idgen_sequence_setval(clock_worker_seq(), worker);
			slot->worker = worker;
		}
		if (OidIsValid(epochoid))
		{
			int64		epoch = epoch_to_persist(slot, now);
			int64		cur = idgen_sequence_last_value(epochoid, &is_called);

			if (!is_called || cur != epoch)
				idgen_sequence_setval(epochoid, epoch);
		}
		/*
		 * Nobody else flushes setval's records, and the ids depend on
		 * them.  XactLastRecEnd is the end of the last record this
		 * backend inserted (the insert position could lie past a page
		 * header, which XLogFlush rejects).
		 */
		XLogFlush(XactLastRecEnd);
		raise_u64(&slot->reserved_ms, db_target);
		pg_atomic_fetch_add_u64(&slot->advances, 1);
	}
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
	return (int64) pg_atomic_read_u64(&slot->reserved_ms);
}
