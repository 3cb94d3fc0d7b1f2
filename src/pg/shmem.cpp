/*
 * shmem.cpp: attaching the structures the server-wide generators share.
 *
 * Structures are created lazily, by the first backend that needs one, with
 * ShmemInitStruct() under AddinShmemInitLock.  That works in both modes:
 *
 *  - preloaded (shared_preload_libraries = 'id_gen'): _PG_init reserved
 *    their total size through shmem_request_hook, so the space is certain;
 *  - loaded by CREATE EXTENSION on a running server: the structures come
 *    from the spare space the postmaster leaves in the main segment (about
 *    1 MB with default settings; ours need a few hundred bytes).  If that
 *    space is gone, the ERROR says to preload the library.
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

static Size idgen_shmem_size = 0;
static shmem_request_hook_type prev_shmem_request_hook = nullptr;

void
idgen_shmem_reserve(Size size)
{
	/* ShmemInitStruct rounds each allocation up to a cache line. */
	idgen_shmem_size = add_size(idgen_shmem_size, add_size(size, PG_CACHE_LINE_SIZE));
}

static void
idgen_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(idgen_shmem_size);
}

void
idgen_shmem_install_hooks(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	idgen_preloaded = true;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = idgen_shmem_request;
}

void *
idgen_shmem_attach(const char *name, Size size, void (*init) (void *))
{
	void	   *ptr;
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	PG_TRY();
	{
		ptr = ShmemInitStruct(name, size, &found);
	}
	PG_CATCH();
	{
		/* Out of spare shared memory: say how to get it reserved. */
		ErrorData  *edata;

		MemoryContextSwitchTo(ErrorContext);
		edata = CopyErrorData();
		FlushErrorState();
		if (!idgen_preloaded)
			edata->hint = pstrdup("Add id_gen to shared_preload_libraries and restart the server.");
		ReThrowError(edata);
	}
	PG_END_TRY();
	if (!found)
		init(ptr);
	LWLockRelease(AddinShmemInitLock);
	return ptr;
}
