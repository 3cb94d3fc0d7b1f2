/*
 * db_state.cpp: the per-database entries (see db_state.hpp).
 *
 * A hash table (dshash) in a dynamic shared memory area (DSA), keyed by the
 * database's OID, so that any number of databases can use the generators
 * between two starts.  PostgreSQL 15 and 16 have no named DSM registry, so
 * the fixed shared struct "id_gen databases" holds the area's and the
 * table's handles: the first backend that needs an entry creates both
 * (pinned: they outlive it, until the postmaster restarts or reinitialises
 * shared memory), the others attach.
 *
 * Locking: the struct's LWLock serialises creating the area and the table;
 * the table's partition locks guard finding, inserting and deleting an
 * entry, and the count of backends holding it.  A backend keeps a pointer
 * to its entry for its life: entries never move in a dshash table, and one
 * held (backends > 0) is never deleted.  What an entry holds has the
 * locking rules of the module that owns it (clock.hpp, decimal_id.cpp).
 *
 * Eviction: when the number of entries has doubled since the last look,
 * the backend that adds one deletes the entries no backend holds whose
 * database no longer exists.  Nothing else is ever evicted: an entry costs a
 * few hundred bytes, and evicting a live database's would give up the
 * counter values decimal_id() reserved ahead.  An entry found for a database
 * that exists may still be another incarnation's (CREATE DATABASE ... OID,
 * OID wraparound, or the extension dropped and created again): its modules
 * check it against the database's durable state before they issue from it.
 */
#include "pg/db_state.hpp"

#include "pg/compat.hpp"
#include "pg/shmem.hpp"

extern "C" {
#include "lib/dshash.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "utils/dsa.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
}

/* Entries at which the first look for dropped databases' entries is made. */
#define DB_STATE_FIRST_SWEEP 64

typedef struct IdgenDbStateShared
{
	LWLock		lock;			/* creating the area and the table */
	int			tranche;
	bool		created;		/* area and table exist */
	dsa_handle	area;
	dshash_table_handle table;
	pg_atomic_uint32 entries;	/* entries in the table */
	pg_atomic_uint32 sweep_at;	/* look for evictable entries at this count */
} IdgenDbStateShared;

static IdgenDbStateShared *db_shared = nullptr;
static dsa_area *db_area = nullptr;
static dshash_table *db_table = nullptr;
static IdgenDbEntry *my_entry = nullptr;

static void
db_state_shared_init(void *ptr)
{
	IdgenDbStateShared *d = static_cast<IdgenDbStateShared *>(ptr);

	d->tranche = idgen_lwlock_new_tranche("id_gen_databases");
	LWLockInitialize(&d->lock, d->tranche);
	d->created = false;
	d->table = InvalidDsaPointer;
	pg_atomic_init_u32(&d->entries, 0);
	pg_atomic_init_u32(&d->sweep_at, DB_STATE_FIRST_SWEEP);
}

static const IdgenShmemStruct db_state_shmem = {
	"id_gen databases", sizeof(IdgenDbStateShared), db_state_shared_init
};

void
idgen_db_state_init(void)
{
	idgen_shmem_register(&db_state_shmem);
}

/* Create or attach to the area and the table, once per backend. */
static void
db_state_attach(void)
{
	MemoryContext oldcxt;
	dshash_parameters params;

	if (db_table != nullptr)
		return;
	if (db_shared == nullptr)
	{
		db_shared = static_cast<IdgenDbStateShared *>(idgen_shmem_attach(&db_state_shmem));
		idgen_lwlock_name_tranche(db_shared->tranche, "id_gen_databases");
	}
	params = idgen_dshash_params(sizeof(Oid), sizeof(IdgenDbEntry), db_shared->tranche);
	oldcxt = MemoryContextSwitchTo(TopMemoryContext);
	LWLockAcquire(&db_shared->lock, LW_EXCLUSIVE);
	if (!db_shared->created)
	{
		db_area = dsa_create(db_shared->tranche);
		dsa_pin(db_area);
		dsa_pin_mapping(db_area);
		db_table = dshash_create(db_area, &params, nullptr);
		db_shared->table = dshash_get_hash_table_handle(db_table);
		db_shared->area = dsa_get_handle(db_area);
		db_shared->created = true;
	}
	else
	{
		db_area = dsa_attach(db_shared->area);
		dsa_pin_mapping(db_area);
		db_table = dshash_attach(db_area, &params, db_shared->table, nullptr);
	}
	LWLockRelease(&db_shared->lock);
	MemoryContextSwitchTo(oldcxt);
}

/* At backend exit: the entry may be evicted once its database is gone. */
static void
db_entry_release(int code, Datum arg)
{
	if (my_entry != nullptr)
		pg_atomic_fetch_sub_u32(&my_entry->backends, 1);
	my_entry = nullptr;
}

/*
 * Delete the entries no backend holds whose database no longer exists.  A
 * database's backends connected after it was committed, so pg_database,
 * read after the entries were listed, shows every database that an entry
 * listed as unheld could still belong to; the count is checked again under
 * the entry's partition lock, where a backend must take it to hold it.
 */
static void
db_state_sweep(void)
{
	dshash_seq_status status;
	IdgenDbEntry *e;
	Oid		   *oids;
	int			n = 0;
	int			max = (int) pg_atomic_read_u32(&db_shared->entries) + 16;

	oids = static_cast<Oid *>(palloc(sizeof(Oid) * max));
	dshash_seq_init(&status, db_table, false);
	while ((e = static_cast<IdgenDbEntry *>(dshash_seq_next(&status))) != nullptr)
		if (n < max && pg_atomic_read_u32(&e->backends) == 0)
			oids[n++] = e->dboid;
	dshash_seq_term(&status);

	AcceptInvalidationMessages();
	InvalidateCatalogSnapshot();
	for (int i = 0; i < n; i++)
	{
		if (SearchSysCacheExists1(DATABASEOID, ObjectIdGetDatum(oids[i])))
			continue;
		e = static_cast<IdgenDbEntry *>(dshash_find(db_table, &oids[i], true));
		if (e == nullptr)
			continue;
		if (pg_atomic_read_u32(&e->backends) == 0)
		{
			dshash_delete_entry(db_table, e);
			pg_atomic_fetch_sub_u32(&db_shared->entries, 1);
		}
		else
			dshash_release_lock(db_table, e);
	}
	pfree(oids);
	pg_atomic_write_u32(&db_shared->sweep_at,
						Max(DB_STATE_FIRST_SWEEP, 2 * pg_atomic_read_u32(&db_shared->entries)));
}

IdgenDbEntry *
idgen_db_entry(bool create)
{
	Oid			key = MyDatabaseId;
	IdgenDbEntry *e;
	bool		found = true;

	if (my_entry != nullptr)
		return my_entry;
	db_state_attach();
	if (create)
		e = static_cast<IdgenDbEntry *>(dshash_find_or_insert(db_table, &key, &found));
	else
		e = static_cast<IdgenDbEntry *>(dshash_find(db_table, &key, true));
	if (e == nullptr)
		return nullptr;
	if (!found)
	{
		pg_atomic_init_u32(&e->backends, 0);
		idgen_clock_slot_init(&e->floor);
		idgen_decimal_slot_init(&e->decimal);
	}
	pg_atomic_fetch_add_u32(&e->backends, 1);
	dshash_release_lock(db_table, e);
	my_entry = e;
	before_shmem_exit(db_entry_release, (Datum) 0);

	if (!found &&
		pg_atomic_add_fetch_u32(&db_shared->entries, 1) >= pg_atomic_read_u32(&db_shared->sweep_at))
		db_state_sweep();
	return my_entry;
}

IdgenFloorSlot *
idgen_db_floor_slot(bool create)
{
	IdgenDbEntry *e = idgen_db_entry(create);

	return e == nullptr ? nullptr : &e->floor;
}

IdgenDecimalSlot *
idgen_db_decimal_slot(bool create)
{
	IdgenDbEntry *e = idgen_db_entry(create);

	return e == nullptr ? nullptr : &e->decimal;
}
