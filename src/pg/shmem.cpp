/*
 * shmem.cpp: creating and attaching the structures the server-wide
 * generators share.
 *
 *  - preloaded (shared_preload_libraries = 'id_gen'): _PG_init registers
 *    every structure; shmem_request_hook reserves their total size and
 *    shmem_startup_hook creates them, as contrib/pg_stat_statements does.
 *    Backends then only look them up.
 *  - loaded by CREATE EXTENSION on a running server: the first backend that
 *    needs a structure creates them all from the spare space the postmaster
 *    leaves in the main segment (about 1 MB with default settings; ours
 *    need a few kB).  The lock table grows into the same space; if it is
 *    gone, the ERROR says to preload the library.
 *
 * A library file replaced on a running server (a new package, make install)
 * is loaded by the backends that start afterwards, unless preloaded (they
 * inherit the postmaster's copy), while older backends keep the copy they
 * loaded: two builds then share the structures.  So the library that sets
 * them up first writes its layout number (IDGEN_SHMEM_REVISION, the names
 * and sizes of the structures and of the per-database entries) into a
 * header whose name and size never change, and a library of another layout
 * refuses (55000, restart) before it touches any structure.  The header is
 * written when the library is loaded (idgen_shmem_claim_layout), so the
 * backends of the build loaded first keep working until the restart.  A
 * library without a header (a development build) is caught only where it
 * made the structures first: after such a build, restart.
 *
 * Locking rules: AddinShmemInitLock is held only while the structures are
 * looked up and initialised.  After that, each structure documents its own
 * protocol (atomics on hot paths, a spinlock or LWLock for the rest).
 * A structure lives until the postmaster restarts; nothing here is persistent.
 */
#include "pg/shmem.hpp"
#include "pg/db_state.hpp"

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

/* Never renamed, never resized: every build finds every other's header. */
#define IDGEN_SHMEM_HEADER "id_gen shared memory layout"
#define IDGEN_SHMEM_MAGIC UINT64CONST(0x69645f67656e4c59)

typedef struct IdgenShmemHeader
{
	uint64		magic;			/* IDGEN_SHMEM_MAGIC */
	uint64		layout;			/* layout number of the library that set it up */
	uint32		created;		/* registered structures created so far */
	bool		foreign;		/* a library without a header made structures */
} IdgenShmemHeader;

/* This backend's library matched the header. */
static bool layout_checked = false;

/*
 * IDGEN_TEST_SHMEM_LAYOUT builds (TAP tests only) stand for another build:
 * 1 grows every structure by 8 bytes, 2 also sets up no header, as the
 * development builds did, and 3 sets up no header with the sizes unchanged.
 */
#if defined(IDGEN_TEST_SHMEM_LAYOUT) && IDGEN_TEST_SHMEM_LAYOUT != 3
#define IDGEN_TEST_PAD 8
#else
#define IDGEN_TEST_PAD 0
#endif
#if defined(IDGEN_TEST_SHMEM_LAYOUT) && IDGEN_TEST_SHMEM_LAYOUT >= 2
#define IDGEN_TEST_NO_HEADER
#endif

static shmem_request_hook_type prev_shmem_request_hook = nullptr;
static shmem_startup_hook_type prev_shmem_startup_hook = nullptr;

static Size
struct_size(const IdgenShmemStruct *s)
{
	return s->size + IDGEN_TEST_PAD;
}

/* FNV-1a over the layout's parts. */
static uint64
layout_mix(uint64 h, const void *data, size_t len)
{
	const unsigned char *p = static_cast<const unsigned char *>(data);

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * UINT64CONST(0x100000001b3);
	return h;
}

static uint64
shmem_layout(void)
{
	uint64		h = UINT64CONST(0xcbf29ce484222325);
	uint64		v = IDGEN_SHMEM_REVISION;

	h = layout_mix(h, &v, sizeof(v));
	/* The per-database entries live in dynamic shared memory (db_state.cpp). */
	v = sizeof(IdgenDbEntry);
	h = layout_mix(h, &v, sizeof(v));
	for (int i = 0; i < nregistered; i++)
	{
		h = layout_mix(h, registered[i]->name, strlen(registered[i]->name) + 1);
		v = struct_size(registered[i]);
		h = layout_mix(h, &v, sizeof(v));
	}
	/* Never 0, so that a zeroed header never matches. */
	return h | 1;
}

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
	Size		total = MAXALIGN(sizeof(IdgenShmemHeader)) + PG_CACHE_LINE_SIZE;

	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	/* ShmemInitStruct rounds each allocation up to a cache line. */
	for (int i = 0; i < nregistered; i++)
		total = add_size(total, add_size(struct_size(registered[i]), PG_CACHE_LINE_SIZE));
	RequestAddinShmemSpace(total);
}

static void
layout_refuse(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("id_gen: shared memory was set up by another build of the id_gen library"),
			 errdetail("The library file was replaced while the server was running."),
			 errhint("Restart the server. Sessions that loaded the library before it was replaced keep working until then.")));
}

/*
 * ShmemInitStruct, with the ERRORs it may raise reported usefully: out of
 * spare shared memory says how to get it reserved; an entry of another size
 * (a library without a header made it) marks the header foreign.
 */
static void *
shmem_init_struct(IdgenShmemHeader *h, const char *name, Size size, bool *found)
{
	MemoryContext oldcxt = CurrentMemoryContext;
	void	   *ptr;

	PG_TRY();
	{
		ptr = ShmemInitStruct(name, size, found);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcxt);
		edata = CopyErrorData();
		/*
		 * AddinShmemInitLock is released by the abort (releasing it here
		 * would undo an interrupt holdoff the error has already reset).
		 */
		if (h != nullptr && edata->sqlerrcode == ERRCODE_INTERNAL_ERROR)
		{
			FlushErrorState();
			h->foreign = true;
			layout_refuse();
		}
		FlushErrorState();
		if (!idgen_preloaded)
			edata->hint = pstrdup("Add id_gen to shared_preload_libraries and restart the server.");
		ReThrowError(edata);
	}
	PG_END_TRY();
	return ptr;
}

/*
 * With AddinShmemInitLock held: check this library's layout against the
 * header, setting it up (with every structure) when no process has.
 */
static void
shmem_setup(void)
{
	IdgenShmemHeader *h;
	bool		found;
	uint64		layout = shmem_layout();

#ifdef IDGEN_TEST_NO_HEADER
	for (int i = 0; i < nregistered; i++)
	{
		void	   *ptr = shmem_init_struct(nullptr, registered[i]->name, struct_size(registered[i]), &found);

		if (!found)
			registered[i]->init(ptr);
	}
	return;
#endif
	h = static_cast<IdgenShmemHeader *>(shmem_init_struct(nullptr, IDGEN_SHMEM_HEADER,
														 sizeof(IdgenShmemHeader), &found));
	if (!found)
	{
		h->magic = IDGEN_SHMEM_MAGIC;
		h->layout = layout;
		h->created = 0;
		h->foreign = false;
	}
	if (h->magic != IDGEN_SHMEM_MAGIC || h->layout != layout || h->foreign)
		layout_refuse();
	/* Resumes where an earlier backend ran out of spare shared memory. */
	while (h->created < (uint32) nregistered)
	{
		const IdgenShmemStruct *s = registered[h->created];
		void	   *ptr = shmem_init_struct(h, s->name, struct_size(s), &found);

		if (found)
		{
			h->foreign = true;
			layout_refuse();
		}
		s->init(ptr);
		h->created++;
	}
}

static void
idgen_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shmem_setup();
	LWLockRelease(AddinShmemInitLock);
	layout_checked = true;
}

/*
 * From _PG_init, not preloaded: the first library a backend loads since the
 * start writes its layout into the header (and makes nothing else), so the
 * backends that loaded a library before it was replaced keep it, in
 * whatever order backends first use a generator.  Nothing is refused here:
 * Hi/Lo needs no shared memory.
 */
void
idgen_shmem_claim_layout(void)
{
	IdgenShmemHeader *h;
	bool		found;

	if (process_shared_preload_libraries_in_progress || !IsUnderPostmaster)
		return;
#ifdef IDGEN_TEST_NO_HEADER
	return;
#endif
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	h = static_cast<IdgenShmemHeader *>(shmem_init_struct(nullptr, IDGEN_SHMEM_HEADER,
														 sizeof(IdgenShmemHeader), &found));
	if (!found)
	{
		h->magic = IDGEN_SHMEM_MAGIC;
		h->layout = shmem_layout();
		h->created = 0;
		h->foreign = false;
	}
	LWLockRelease(AddinShmemInitLock);
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
	void	   *ptr;
	bool		found;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	if (!layout_checked)
	{
		shmem_setup();
		layout_checked = true;
	}
	ptr = shmem_init_struct(nullptr, s->name, struct_size(s), &found);
	if (!found)
		s->init(ptr);			/* only in an IDGEN_TEST_NO_HEADER build */
	LWLockRelease(AddinShmemInitLock);
	return ptr;
}

#ifdef IDGEN_TEST_SHMEM_LAYOUT
/* A function only the other build has, as a new release's SQL would name. */
extern "C" {
PG_FUNCTION_INFO_V1(idgen_test_other_build);
Datum
idgen_test_other_build(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(IDGEN_TEST_SHMEM_LAYOUT);
}
}
#endif
