/*
 * clock.cpp: the generators' clock and the persistent clock floor (see
 * clock.hpp for the protocol).
 *
 * The state file $PGDATA/id_gen_clock.state (IDGEN_CLOCK_STATE_FILE): a
 * magic number, a version, the server-wide floor (Unix ms), the epoch ids
 * up to it were counted from, and a CRC-32C.  Written as core writes its
 * own state files: a temporary file, pg_fsync, durable_rename.  At most once
 * per floor step (IDGEN_FLOOR_STEP_MS), by whichever backend first needs a
 * millisecond above it; read at the first use after a start, never by the
 * postmaster.  pg_basebackup copies it; pg_upgrade, pg_dump and a PITR to
 * another data directory do not (the per-database sequences cover those).
 *
 * Shared memory "id_gen clock floors": the file's floor as written
 * (server_ms), the largest floor the streams have been raised above
 * (raised_ms), the epoch of this start; each database's floor slot is in
 * its entry (db_state.hpp).  Locking:
 *  - the LWLock serialises reading and writing the state file (it works
 *    without shared_preload_libraries: its tranche is allocated at run
 *    time); it is never held while waiting for the clock;
 *  - the spinlock guards the epoch bookkeeping (old_*);
 *  - loading and advancing a database's floor is serialised by a
 *    self-conflicting heavyweight lock (ShareUpdateExclusiveLock) on that
 *    database's id_gen.clock_floor sequence, taken and released around the
 *    work (not held to transaction end): the work opens a relation, writes
 *    and flushes WAL, and may sleep.  During recovery (which allows no such
 *    lock) a database's floor is only read, provisionally;
 *  - the hot path only reads ok_ms atomically.  server_ms, raised_ms,
 *    reserved_ms and ok_ms only grow, and are raised only once the value is
 *    durable (the file renamed, or the WAL flushed).
 */
#include "pg/clock.hpp"

#include "pg/compat.hpp"
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
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "storage/lmgr.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
#include "utils/fmgrprotos.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

#include <fcntl.h>
#include <unistd.h>
#include <ctime>

#include "core/snowflake.hpp"

#define IDGEN_CLOCK_STATE_FILE "id_gen_clock.state"
#define IDGEN_CLOCK_STATE_TEMP "id_gen_clock.state.tmp"
#define IDGEN_CLOCK_STATE_MAGIC 0x49444743	/* "IDGC" */
#define IDGEN_CLOCK_STATE_VERSION 2

/* The state file's contents, in the server's byte order. */
typedef struct ClockStateFile
{
	uint32		magic;
	uint32		version;
	int64		floor_ms;		/* ids may have been issued up to here (Unix ms) */
	int64		epoch_ms;		/* snowflake/jsid ids up to it count from here */
	int32		worker;			/* ... under this worker id (-1: any) */
	pg_crc32c	crc;			/* of everything above */
} ClockStateFile;

/* Version 1 (id_gen 1.3): no worker id, so any. */
typedef struct ClockStateFileV1
{
	uint32		magic;
	uint32		version;
	int64		floor_ms;
	int64		epoch_ms;
	pg_crc32c	crc;
} ClockStateFileV1;

typedef struct IdgenClockShared
{
	LWLock		lock;			/* the state file */
	int			tranche;
	int64		epoch_ms;		/* epoch of this start, fixed at creation */
	pg_atomic_uint32 file_loaded;	/* the state file has been read */
	pg_atomic_uint64 server_ms;	/* the state file's floor, durable */
	pg_atomic_uint64 raised_ms;	/* the streams are above every floor read up to here */
	int32		server_worker;	/* the state file's worker id, under the LWLock */
	/* The state file's floor read as a glitch (IdgenFloorSlot.glitch_ms). */
	pg_atomic_uint64 glitch_ms;
	pg_atomic_uint32 glitch_worker;
	slock_t		mutex;
	/*
	 * Floors read that were reached under an earlier epoch than this start's:
	 * new snowflake ids are smaller than those old ones until the clock,
	 * counted from the new epoch, passes old_field_ms (a time field, ms since
	 * old_epoch_ms).  old_epoch_ms < 0: none.
	 */
	int64		old_epoch_ms;
	int64		old_field_ms;
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
		pg_atomic_init_u64(&s->ok_ms, 0);
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
	pg_atomic_write_u64(&s->ok_ms, 0);
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

	cs->tranche = idgen_lwlock_new_tranche("id_gen_clock_state");
	LWLockInitialize(&cs->lock, cs->tranche);
	/* Read once per start: ids must not change meaning while the server runs. */
	cs->epoch_ms = idgen_snowflake_epoch_ms;
	pg_atomic_init_u32(&cs->file_loaded, 0);
	pg_atomic_init_u64(&cs->server_ms, 0);
	pg_atomic_init_u64(&cs->raised_ms, 0);
	cs->server_worker = -1;
	pg_atomic_init_u64(&cs->glitch_ms, 0);
	pg_atomic_init_u32(&cs->glitch_worker, 0);
	SpinLockInit(&cs->mutex);
	cs->old_epoch_ms = -1;
	cs->old_field_ms = 0;
}

static const IdgenShmemStruct clock_shmem = {
	"id_gen clock floors", sizeof(IdgenClockShared), clock_shared_init
};

static IdgenClockShared *
clock_attach(void)
{
	if (clock_shared == nullptr)
	{
		clock_shared = static_cast<IdgenClockShared *>(idgen_shmem_attach(&clock_shmem));
		idgen_lwlock_name_tranche(clock_shared->tranche, "id_gen_clock_state");
	}
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
 * it (1.2 and older until ALTER EXTENSION UPDATE): its epoch is then kept in
 * the state file only.
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
 * Read the state file into *f: false if there is none.  A file that cannot
 * be read, or is corrupt, is an ERROR here, at the generator, never at
 * server start: the hint names the file and the remedy.
 */
static bool
state_file_read(ClockStateFile *f)
{
	char		buf[sizeof(ClockStateFile) + 1];
	int			fd = OpenTransientFile(IDGEN_CLOCK_STATE_FILE, O_RDONLY | PG_BINARY);
	ssize_t		r;
	pg_crc32c	crc;

	if (fd < 0)
	{
		if (errno == ENOENT)
			return false;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open file \"%s\": %m", IDGEN_CLOCK_STATE_FILE)));
	}
	r = read(fd, buf, sizeof(buf));
	if (r < 0)
	{
		int			save_errno = errno;

		CloseTransientFile(fd);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not read file \"%s\": %m", IDGEN_CLOCK_STATE_FILE)));
	}
	CloseTransientFile(fd);
	StaticAssertStmt(sizeof(ClockStateFile) == sizeof(ClockStateFileV1), "both versions are 32 bytes");
	if (r == (ssize_t) sizeof(ClockStateFile))
	{
		memcpy(f, buf, sizeof(ClockStateFile));
		INIT_CRC32C(crc);
		if (f->version == 1)
		{
			ClockStateFileV1 v1;

			memcpy(&v1, buf, sizeof(v1));
			COMP_CRC32C(crc, &v1, offsetof(ClockStateFileV1, crc));
			FIN_CRC32C(crc);
			f->worker = -1;
			f->crc = EQ_CRC32C(crc, v1.crc) ? crc : ~crc;
		}
		else
		{
			COMP_CRC32C(crc, f, offsetof(ClockStateFile, crc));
			FIN_CRC32C(crc);
		}
		if (f->magic == IDGEN_CLOCK_STATE_MAGIC &&
			(f->version == 1 || f->version == IDGEN_CLOCK_STATE_VERSION) &&
			EQ_CRC32C(crc, f->crc) && f->floor_ms >= 0 && f->epoch_ms >= 0 && f->worker >= -1)
			return true;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("id_gen: the clock state file \"%s/%s\" is corrupt", DataDir, IDGEN_CLOCK_STATE_FILE),
			 errdetail("It holds the server-wide clock floor of snowflake_next(), jsid_next() and timeuuid_next(); "
					   "they issue no id until it can be read."),
			 errhint("With the system clock right, remove the file (rm %s/%s): each database's own floor still covers "
					 "the ids of its read-write transactions, and the file is written again at the next id.",
					 DataDir, IDGEN_CLOCK_STATE_FILE)));
	return false;				/* keep the compiler quiet */
}

/*
 * Write the state file durably, replacing the old one atomically: a crash
 * leaves the old file or the new one, never a mix.  Under the LWLock.
 */
static void
state_file_write(int64 floor_ms, int64 epoch_ms, int32 worker)
{
	ClockStateFile f;
	int			fd;

	memset(&f, 0, sizeof(f));
	f.magic = IDGEN_CLOCK_STATE_MAGIC;
	f.version = IDGEN_CLOCK_STATE_VERSION;
	f.floor_ms = floor_ms;
	f.epoch_ms = epoch_ms;
	f.worker = worker;
	INIT_CRC32C(f.crc);
	COMP_CRC32C(f.crc, &f, offsetof(ClockStateFile, crc));
	FIN_CRC32C(f.crc);

	fd = OpenTransientFile(IDGEN_CLOCK_STATE_TEMP, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create file \"%s\": %m", IDGEN_CLOCK_STATE_TEMP)));
	errno = 0;
	if (write(fd, &f, sizeof(f)) != (ssize_t) sizeof(f))
	{
		int			save_errno = errno;

		CloseTransientFile(fd);
		/* no errno: assume the disk is full */
		errno = save_errno ? save_errno : ENOSPC;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not write file \"%s\": %m", IDGEN_CLOCK_STATE_TEMP)));
	}
	if (pg_fsync(fd) != 0)
	{
		int			save_errno = errno;

		CloseTransientFile(fd);
		errno = save_errno;
		ereport(data_sync_elevel(ERROR),
				(errcode_for_file_access(),
				 errmsg("could not fsync file \"%s\": %m", IDGEN_CLOCK_STATE_TEMP)));
	}
	if (CloseTransientFile(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\": %m", IDGEN_CLOCK_STATE_TEMP)));
	(void) durable_rename(IDGEN_CLOCK_STATE_TEMP, IDGEN_CLOCK_STATE_FILE, ERROR);
}

/*
 * A floor was read under which snowflake ids and jsids were counted from
 * epoch_ms.  If that epoch is earlier than this start's, those ids are above
 * new ones until the clock, counted from the new epoch, passes their time
 * field: remember it (idgen_clock_check_epoch refuses until then).
 */
static void
note_floor_epoch(int64 floor_ms, int64 epoch_ms)
{
	IdgenClockShared *cs = clock_shared;

	if (epoch_ms >= cs->epoch_ms || floor_ms <= epoch_ms)
		return;
	SpinLockAcquire(&cs->mutex);
	if (cs->old_epoch_ms < 0 || epoch_ms < cs->old_epoch_ms)
		cs->old_epoch_ms = epoch_ms;
	if (cs->old_field_ms < floor_ms - epoch_ms)
		cs->old_field_ms = floor_ms - epoch_ms;
	SpinLockRelease(&cs->mutex);
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
 * epoch is refused (server-wide, or for this database's ids), the earlier
 * one (the floor then still bounds the old ids' time field).
 */
static int64
epoch_to_persist(IdgenFloorSlot *slot, int64 now_ms)
{
	IdgenClockShared *cs = clock_shared;
	int64		epoch = cs->epoch_ms;

	if (now_ms <= db_epoch_refused_to(slot))
		return (int64) pg_atomic_read_u64(&slot->old_epoch_ms);

	SpinLockAcquire(&cs->mutex);
	if (cs->old_epoch_ms >= 0 && now_ms - cs->epoch_ms <= cs->old_field_ms)
		epoch = cs->old_epoch_ms;
	SpinLockRelease(&cs->mutex);
	return epoch;
}

void
idgen_clock_check_epoch(const char *fname)
{
	IdgenClockShared *cs = clock_attach();
	int64		old_epoch;
	int64		old_field;

	int64		db_until = db_epoch_refused_to(my_slot);

	if (idgen_clock_now_ms() <= db_until)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s(): this database holds ids counted from an epoch earlier than id_gen.snowflake_epoch, and new ids would be smaller",
						fname),
				 errdetail("Ids were issued here up to %s counted from the epoch %s; counted from the server's epoch %s, new ids pass them only after %s. "
						   "Other databases of the server are not affected.",
						   format_unix_ms((int64) pg_atomic_read_u64(&my_slot->epoch_floor_ms)),
						   format_epoch((int64) pg_atomic_read_u64(&my_slot->old_epoch_ms)),
						   format_epoch(cs->epoch_ms), format_unix_ms(db_until)),
				 errhint("Until then, generate these tables' snowflake ids in another database, or on a server with an "
						 "id_gen.worker_id none of the old ids has: under the same worker id new ids could repeat them.")));
	SpinLockAcquire(&cs->mutex);
	old_epoch = cs->old_epoch_ms;
	old_field = cs->old_field_ms;
	SpinLockRelease(&cs->mutex);
	if (old_epoch < 0 || idgen_clock_now_ms() - cs->epoch_ms > old_field)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("%s(): id_gen.snowflake_epoch is later than the epoch of ids already issued, and new ids would be smaller",
					fname),
			 errdetail("Ids were issued up to %s counted from the previous epoch %s; counted from the epoch %s, new ids pass them only after %s.",
					   format_unix_ms(old_epoch + old_field), format_epoch(old_epoch),
					   format_epoch(cs->epoch_ms), format_unix_ms(cs->epoch_ms + old_field)),
			 errhint("Set id_gen.snowflake_epoch = '%s' again and restart the server.", format_epoch(old_epoch))));
}

/*
 * The largest millisecond the durable floors cover for a caller of this
 * database: the state file's floor and, for callers that can write it (not
 * a parallel worker, not a read-only transaction), the database's too.
 */
static int64
floor_cover(IdgenFloorSlot *slot, bool can_write_db)
{
	int64		srv = (int64) pg_atomic_read_u64(&clock_shared->server_ms);
	int64		db = (int64) pg_atomic_read_u64(&slot->reserved_ms);

	return can_write_db ? Min(srv, db) : srv;
}

/* What every caller of this database may issue without advancing. */
static void
publish_ok(IdgenFloorSlot *slot)
{
	raise_u64(&slot->ok_ms, floor_cover(slot, true));
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
note_glitch(pg_atomic_uint64 *glitch_ms, pg_atomic_uint32 *glitch_worker, int64 floor, int32 worker)
{
	uint32		w = worker < 0 ? 0 : (uint32) worker + 1;

	if (pg_atomic_read_u64(glitch_ms) == 0)
		pg_atomic_write_u32(glitch_worker, w);
	else if (pg_atomic_read_u32(glitch_worker) != w)
		pg_atomic_write_u32(glitch_worker, 0);
	pg_write_barrier();
	raise_u64(glitch_ms, floor);
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
idgen_clock_glitch_error(IdgenFloorSlot *slot, const char *fname, int32 worker)
{
	int64		floor = (int64) pg_atomic_read_u64(&slot->glitch_ms);
	int64		now = idgen_clock_now_ms();

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
 * The server's first use since the start: read the state file (not under
 * the LWLock: it is replaced by rename, and nobody writes it before it has
 * been loaded), wait for the clock to pass its floor, raise the streams.
 */
static void
load_server_floor(void)
{
	IdgenClockShared *cs = clock_shared;
	ClockStateFile f;
	bool		found;
	bool		glitch;

	if (pg_atomic_read_u32(&cs->file_loaded) != 0)
		return;
	found = state_file_read(&f);
	glitch = found && is_glitch(f.floor_ms);
	if (found && !glitch && !RecoveryInProgress())
		wait_for_floor(f.floor_ms);
	LWLockAcquire(&cs->lock, LW_EXCLUSIVE);
	if (pg_atomic_read_u32(&cs->file_loaded) == 0)
	{
		if (found)
		{
			raise_streams(f.floor_ms, f.epoch_ms, glitch);
			note_floor_epoch(f.floor_ms, f.epoch_ms);
			if (glitch)
				note_glitch(&cs->glitch_ms, &cs->glitch_worker, f.floor_ms, f.worker);
			raise_u64(&cs->server_ms, f.floor_ms);
			cs->server_worker = f.worker;
		}
		pg_write_barrier();
		pg_atomic_write_u32(&cs->file_loaded, 1);
	}
	LWLockRelease(&cs->lock);
}

/*
 * First use of this database since server start (or since promotion, or
 * since its slot was handed over): load the server's floor if nobody has,
 * then read the database's and raise the streams above it before anyone is
 * told the slot is loaded.
 *
 * Every floor this server writes goes to the state file first, so a
 * database's floor is normally at or below what the streams were raised
 * above when the file was read: the database then starts at once and
 * behaves as those already in use, whatever the clock does.  A higher floor
 * (a database restored or upgraded from elsewhere, a replayed primary's
 * after promotion, a lost state file) is met as the server's own: wait for
 * the clock to pass it, or ERROR.
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

	load_server_floor();
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
		 * epoch in id_gen.clock_epoch until new ids pass them).  The
		 * server-wide streams see the floor in the server's epoch.
		 */
		if (!OidIsValid(efloor_oid))
			note_floor_epoch(db_floor, db_epoch);	/* a 1.3 schema: 1.3's way */
		else if (db_epoch < cs->epoch_ms && db_floor > db_epoch)
		{
			if (efloor <= 0)
			{
				efloor = db_floor;
				/* else the next advance by a read-write caller writes it */
				if (!in_recovery && !XactReadOnly && !IsInParallelMode())
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
		 * glitch floor, this database's or the server's, refuses the worker
		 * id kept with it instead of a wait.
		 */
		if (!in_recovery)
		{
			if (glitch)
				note_glitch(&slot->glitch_ms, &slot->glitch_worker, db_floor, db_worker);
			else if (db_floor > (int64) pg_atomic_read_u64(&cs->raised_ms))
				wait_for_floor(db_floor);
			if (pg_atomic_read_u64(&cs->glitch_ms) > 0)
				note_glitch(&slot->glitch_ms, &slot->glitch_worker, (int64) pg_atomic_read_u64(&cs->glitch_ms),
							(int32) pg_atomic_read_u32(&cs->glitch_worker) - 1);
		}
		raise_streams(db_floor, db_epoch, glitch);
		raise_u64(&slot->reserved_ms, db_floor);
		slot->worker = db_worker;
		publish_ok(slot);
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
 * Raise the floors to cover unix_ms, each to max(unix_ms, now) + one step:
 * the state file (any context but recovery), then this database's sequence
 * (read-write callers), each durable before its new value is published.
 * Returns the largest millisecond now covered for this caller.
 */
int64
idgen_clock_floor_advance(IdgenFloorSlot *slot, int64 unix_ms)
{
	IdgenClockShared *cs = clock_shared;
	bool		can_write_db = !IsInParallelMode() && !XactReadOnly;
	int64		covered = floor_cover(slot, can_write_db);
	int64		now;
	int64		target;
	bool		wrote = false;

	if (covered >= unix_ms || RecoveryInProgress())
		return covered;
	now = idgen_clock_now_ms();
	target = Max(unix_ms, now) + IDGEN_FLOOR_STEP_MS;

	if ((int64) pg_atomic_read_u64(&cs->server_ms) < unix_ms)
	{
		LWLockAcquire(&cs->lock, LW_EXCLUSIVE);
		if ((int64) pg_atomic_read_u64(&cs->server_ms) < unix_ms)
		{
			int32		worker = worker_to_persist(slot, (int64) pg_atomic_read_u64(&cs->server_ms),
												   cs->server_worker, now);

			state_file_write(target, epoch_to_persist(nullptr, now), worker);
			cs->server_worker = worker;
			raise_u64(&cs->server_ms, target);
			wrote = true;
		}
		LWLockRelease(&cs->lock);
	}
	if (can_write_db && (int64) pg_atomic_read_u64(&slot->reserved_ms) < unix_ms)
	{
		Oid			seqoid = clock_floor_seq();
		Oid			epochoid = clock_epoch_seq();

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
			wrote = true;
		}
		UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
	}
	if (wrote)
		pg_atomic_fetch_add_u64(&slot->advances, 1);
	publish_ok(slot);
	return floor_cover(slot, can_write_db);
}
