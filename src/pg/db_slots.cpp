/*
 * db_slots.cpp: the per-database slot registry (see db_slots.hpp).  A
 * spinlock guards the assignment; an index, once given, never changes until
 * the server restarts, so readers cache it.
 */
#include "pg/db_slots.hpp"

#include "pg/shmem.hpp"

extern "C" {
#include "storage/spin.h"
}

typedef struct IdgenDbSlots
{
	slock_t		mutex;
	Oid			dboid[IDGEN_MAX_DATABASES];	/* InvalidOid: free */
} IdgenDbSlots;

static IdgenDbSlots *db_slots = nullptr;
static int	my_index = -1;

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
		d->dboid[i] = InvalidOid;
}

static const IdgenShmemStruct db_slots_shmem = {
	"id_gen databases", sizeof(IdgenDbSlots), db_slots_shared_init
};

void
idgen_db_slots_init(void)
{
	idgen_shmem_register(&db_slots_shmem);
}

int
idgen_database_index(bool create)
{
	int			found = -1;

	if (my_index >= 0)
		return my_index;
	if (db_slots == nullptr)
		db_slots = static_cast<IdgenDbSlots *>(idgen_shmem_attach(&db_slots_shmem));

	SpinLockAcquire(&db_slots->mutex);
	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		if (db_slots->dboid[i] == MyDatabaseId || (db_slots->dboid[i] == InvalidOid && create))
		{
			db_slots->dboid[i] = MyDatabaseId;
			found = i;
			break;
		}
		if (db_slots->dboid[i] == InvalidOid)
			break;
	}
	SpinLockRelease(&db_slots->mutex);

	if (found < 0 && create)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("id_gen generators are in use in more than %d databases of this server",
						IDGEN_MAX_DATABASES),
				 errhint("The limit resets when the server restarts.")));
	my_index = found;
	return found;
}
