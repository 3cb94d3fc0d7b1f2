/*
 * db_slots.cpp: the per-database slot registry (see db_slots.hpp).
 *
 * A spinlock guards the assignment.  An index stays with its database until
 * the server restarts or, when no index is free, until a database that
 * asks finds that the holder no longer exists in pg_database: it then takes
 * the index over, marked "resetting" while every module's registered reset
 * clears its state at that index, outside the spinlock.  Backends of the new
 * database that find the index resetting wait for the reset to finish;
 * backends of other databases never see it (it is no longer free, and not
 * theirs).  A dropped database has no backend left (DROP DATABASE waits for
 * them, or terminates them with FORCE, before its row goes), so nobody uses
 * the old state any more.  Readers cache their index: it cannot change under
 * a database that exists.
 *
 * An index also records which incarnation of its database took it: the xmin
 * of the database's pg_database row.  A database created with the OID of a
 * dropped one (CREATE DATABASE ... OID, or OID wraparound) has another, so
 * it resets the index before use instead of inheriting the dropped one's
 * state.  ALTER DATABASE also gives the row a new xmin: the next backend
 * then resets the index once, which is safe because every module keeps in
 * shared memory only what it can load again from its durable state.
 */
#include "pg/db_slots.hpp"

#include "pg/shmem.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/transam.h"
#include "storage/spin.h"
#include "utils/inval.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
}

typedef struct IdgenDbSlots
{
	slock_t		mutex;
	Oid			dboid[IDGEN_MAX_DATABASES];	/* InvalidOid: free */
	TransactionId born[IDGEN_MAX_DATABASES];	/* the holder's pg_database row xmin */
	bool		resetting[IDGEN_MAX_DATABASES];	/* taken over, being reset */
} IdgenDbSlots;

static IdgenDbSlots *db_slots = nullptr;
static int	my_index = -1;
static TransactionId my_born = InvalidTransactionId;

#define IDGEN_MAX_SLOT_RESETS 4
static IdgenDbSlotReset slot_resets[IDGEN_MAX_SLOT_RESETS];
static int	nslot_resets = 0;

void
idgen_db_slots_on_reuse(IdgenDbSlotReset reset)
{
	if (nslot_resets >= IDGEN_MAX_SLOT_RESETS)
		elog(ERROR, "id_gen: too many per-database slot resets");
	slot_resets[nslot_resets++] = reset;
}

static void
db_slots_shared_init(void *ptr)
{
	IdgenDbSlots *d = static_cast<IdgenDbSlots *>(ptr);

	SpinLockInit(&d->mutex);
	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		d->dboid[i] = InvalidOid;
		d->born[i] = InvalidTransactionId;
		d->resetting[i] = false;
	}
}

static const IdgenShmemStruct db_slots_shmem = {
	"id_gen databases", sizeof(IdgenDbSlots), db_slots_shared_init
};

void
idgen_db_slots_init(void)
{
	idgen_shmem_register(&db_slots_shmem);
}

/*
 * Under the spinlock: this database's index (*resetting: still being reset
 * by the backend that took it over), or with create a free one, now this
 * database's; -1 if none.
 */
static int
find_index(bool create, bool *resetting)
{
	*resetting = false;
	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		if (db_slots->dboid[i] == MyDatabaseId)
		{
			*resetting = db_slots->resetting[i];
			return i;
		}
	}
	if (create)
		for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
			if (db_slots->dboid[i] == InvalidOid)
			{
				db_slots->dboid[i] = MyDatabaseId;
				db_slots->born[i] = my_born;
				return i;
			}
	return -1;
}

/*
 * Runs every module's reset of index i, which this backend has marked
 * resetting; on an ERROR gives it back to (holder, born) for the next taker
 * to reset again.
 */
static void
reset_index(int i, Oid holder, TransactionId born)
{
	PG_TRY();
	{
		for (int r = 0; r < nslot_resets; r++)
			slot_resets[r] (i);
	}
	PG_CATCH();
	{
		SpinLockAcquire(&db_slots->mutex);
		db_slots->dboid[i] = holder;
		db_slots->born[i] = born;
		db_slots->resetting[i] = false;
		SpinLockRelease(&db_slots->mutex);
		PG_RE_THROW();
	}
	PG_END_TRY();
	SpinLockAcquire(&db_slots->mutex);
	db_slots->resetting[i] = false;
	SpinLockRelease(&db_slots->mutex);
}

/*
 * This database holds index i, taken by another incarnation of its OID (or
 * before an ALTER DATABASE): take it over for this one and reset it.
 */
static void
renew_index(int i)
{
	TransactionId old = InvalidTransactionId;
	bool		taken = false;

	SpinLockAcquire(&db_slots->mutex);
	if (db_slots->dboid[i] == MyDatabaseId && !db_slots->resetting[i] &&
		db_slots->born[i] != my_born)
	{
		old = db_slots->born[i];
		db_slots->born[i] = my_born;
		db_slots->resetting[i] = true;
		taken = true;
	}
	SpinLockRelease(&db_slots->mutex);
	if (taken)
		reset_index(i, MyDatabaseId, old);
}

/* The xmin of this database's pg_database row: which incarnation it is. */
static TransactionId
database_born(void)
{
	HeapTuple	tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(MyDatabaseId));
	TransactionId xmin;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for database %u", MyDatabaseId);
	xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
	ReleaseSysCache(tup);
	return xmin;
}

/*
 * No index is free: take over one whose database was dropped, and reset it
 * before anyone uses it (the spinlock that clears "resetting" publishes the
 * reset).  Returns the index this database now has, perhaps still being
 * reset by another of its backends; -1 if every holder still exists.
 */
static int
reclaim_index(void)
{
	Oid			seen[IDGEN_MAX_DATABASES];

	SpinLockAcquire(&db_slots->mutex);
	memcpy(seen, db_slots->dboid, sizeof(seen));
	SpinLockRelease(&db_slots->mutex);
	/*
	 * Look pg_database up with a catalog snapshot taken after the copy: a
	 * database holding an index was created (committed) before its backend
	 * connected, so it is seen unless it has been dropped.
	 */
	AcceptInvalidationMessages();
	InvalidateCatalogSnapshot();

	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		bool		taken = false;
		bool		resetting;
		int			mine;
		TransactionId old_born = InvalidTransactionId;

		/* The catalog lookup cannot run under a spinlock. */
		if (!OidIsValid(seen[i]) || seen[i] == MyDatabaseId ||
			SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(seen[i])))
			continue;
		SpinLockAcquire(&db_slots->mutex);
		/* Another backend of this database may have got an index meanwhile. */
		mine = find_index(false, &resetting);
		if (mine < 0 && db_slots->dboid[i] == seen[i])
		{
			old_born = db_slots->born[i];
			db_slots->dboid[i] = MyDatabaseId;
			db_slots->born[i] = my_born;
			db_slots->resetting[i] = true;
			taken = true;
		}
		SpinLockRelease(&db_slots->mutex);
		if (mine >= 0)
			return mine;
		if (!taken)
			continue;
		/* On an ERROR it goes back to the dropped database: the next taker resets it all. */
		reset_index(i, seen[i], old_born);
		return i;
	}
	return -1;
}

int
idgen_database_index(bool create)
{
	int			found;
	bool		resetting;

	if (my_index >= 0)
		return my_index;
	if (db_slots == nullptr)
		db_slots = static_cast<IdgenDbSlots *>(idgen_shmem_attach(&db_slots_shmem));
	if (!TransactionIdIsValid(my_born))
		my_born = database_born();

	for (;;)
	{
		bool		renew;

		SpinLockAcquire(&db_slots->mutex);
		found = find_index(create, &resetting);
		renew = found >= 0 && !resetting && db_slots->born[found] != my_born;
		SpinLockRelease(&db_slots->mutex);
		/* Ours by OID, but another incarnation's state: reset it first. */
		if (renew)
		{
			if (!create)
				return -1;		/* a look only: nothing of this database's yet */
			renew_index(found);
			continue;
		}
		/*
		 * None free: take over a dropped database's index, then look again
		 * (another backend of this database may be the one resetting it).
		 */
		if (found < 0 && create && reclaim_index() >= 0)
			continue;
		if (found < 0 || !resetting)
			break;
		/* Another backend of this database is resetting the index it took over. */
		pg_usleep(1000L);
		CHECK_FOR_INTERRUPTS();
	}

	if (found < 0 && create)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("id_gen generators are in use in more than %d databases of this server",
						IDGEN_MAX_DATABASES),
				 errhint("Indexes of dropped databases are given back when needed; "
						 "otherwise the limit resets when the server restarts.")));
	my_index = found;
	return found;
}
