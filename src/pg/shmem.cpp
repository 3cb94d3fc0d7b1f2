/*
 * shmem.cpp: creating and attaching the structures the server-wide
 * generators share.
 *
 *  - preloaded (shared_preload_libraries = 'id_gen'): _PG_init registers
 *    every structure; shmem_request_hook reserves their total size and
 *    shmem_startup_hook creates them, as contrib/pg_stat_statements does.
 *    Backends then only look them up.
 *  - loaded by CREATE EXTENSION on a running server: the first backend that
 *    needs a structure creates it from the spare space the postmaster leaves
 *    in the main segment (about 1 MB with default settings; ours need a few
 *    kB).  The lock table grows into the same space; if it is gone, the
 *    ERROR says to preload the library.
 *
 * Locking rules: AddinShmemInitLock is held only while a structure is
 * looked up and initialised.  After that, each structure documents its own
 * protocol (atomics on hot paths, a spinlock or LWLock for the rest).
 * A structure lives until the postmaster restarts; nothing here is persistent.
 */
#include "pg/shmem.hpp"

extern "C" {
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/memutils.h"
}

bool		idgen_preloaded = false;

#define IDGEN_MAX_SHMEM_STRUCTS 8
static const IdgenShmemStruct *registered[IDGEN_MAX_SHMEM_STRUCTS];
static int	nregistered = 0;

static shmem_request_hook_type prev_shmem_request_hook = nullptr;
static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

void
idgen_shmem_register(const IdgenShmemStruct *s)
{
	if (nregistered >= IDGEN_MAX_SHMEM_STRUCTS)
		elog(ERROR, "id_gen: too many shared memory structures");
	registered[nregistered++] = s;
}

static void
idgen_shmem_request(void)
{
	Size		total = 0;

	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	/* ShmemInitStruct rounds each allocation up to a cache line. */
	for (int i = 0; i < nregistered; i++)
		total = add_size(total, add_size(registered[i]->size, PG_CACHE_LINE_SIZE));
	RequestAddinShmemSpace(total);
}

static void
idgen_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	for (int i = 0; i < nregistered; i++)
		(void) idgen_shmem_attach(registered[i]);
}

void
idgen_shmem_install_hooks(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	idgen_preloaded = true;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = idgen_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = idgen_shmem_startup;
}

void *
idgen_shmem_attach(const IdgenShmemStruct *s)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	void	   *ptr;
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	PG_TRY();
	{
		ptr = ShmemInitStruct(s->name, s->size, &found);
	}
	PG_CATCH();
	{
		/* Out of spare shared memory: say how to get it reserved. */
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		FlushErrorState();
		/*
		 * AddinShmemInitLock is released by the abort (releasing it here
		 * would undo an interrupt holdoff the error has already reset).
		 */
		if (!idgen_preloaded)
			edata->hint = pstrdup("Add id_gen to shared_preload_libraries and restart the server.");
		ReThrowError(edata);
	}
	PG_END_TRY();
	if (!found)
		s->init(ptr);
	LWLockRelease(AddinShmemInitLock);
	return ptr;
}
