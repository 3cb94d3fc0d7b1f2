/*
 * compat.hpp: the few places where PostgreSQL's server API differs between
 * the versions id_gen builds against (15 to 19), behind PG_VERSION_NUM.
 *
 * Each difference is one idgen_* name with one meaning on every version, so
 * the glue code carries no version test of its own.  An entry states which
 * version changed what; when support for a version ends, its branch goes.
 *
 * Include after pg/pg.hpp (postgres.h first, as always).
 */
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "access/genam.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "lib/dshash.h"
#include "nodes/pg_list.h"
#include "storage/lock.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/regproc.h"
#include "utils/syscache.h"
}

#include <cstdlib>

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 200000
#error "id_gen builds against PostgreSQL 15 to 19"
#endif

/* 16 moved the varlena macros (VARDATA_ANY, VARSIZE_ANY_EXHDR) to varatt.h. */
#if PG_VERSION_NUM >= 160000
extern "C" {
#include "varatt.h"
}
#endif

/*
 * 16 replaced pg_class_ownercheck() and its siblings with
 * object_ownercheck(classid, ...).
 */
static inline bool
idgen_rel_ownercheck(Oid relid, Oid roleid)
{
#if PG_VERSION_NUM >= 160000
	return object_ownercheck(RelationRelationId, relid, roleid);
#else
	return pg_class_ownercheck(relid, roleid);
#endif
}

/*
 * 16 added a soft-error context to stringToQualifiedNameList(); NULL keeps
 * the old behaviour (a syntax error is raised).
 */
static inline List *
idgen_qualified_name_list(const char *name)
{
#if PG_VERSION_NUM >= 160000
	return stringToQualifiedNameList(name, NULL);
#else
	return stringToQualifiedNameList(name);
#endif
}

/*
 * 18 added an instrumentation argument to index_beginscan() (NULL: none), 19
 * a flags word (0: a plain scan).
 */
static inline IndexScanDesc
idgen_index_beginscan(Relation heap, Relation index, Snapshot snapshot, int nkeys, int norderbys)
{
#if PG_VERSION_NUM >= 190000
	return index_beginscan(heap, index, snapshot, NULL, nkeys, norderbys, 0);
#elif PG_VERSION_NUM >= 180000
	return index_beginscan(heap, index, snapshot, NULL, nkeys, norderbys);
#else
	return index_beginscan(heap, index, snapshot, nkeys, norderbys);
#endif
}

/* 19 added a flags word to table_beginscan() (0: a plain scan). */
static inline TableScanDesc
idgen_table_beginscan(Relation rel, Snapshot snapshot, int nkeys, ScanKeyData *keys)
{
#if PG_VERSION_NUM >= 190000
	return table_beginscan(rel, snapshot, nkeys, keys, 0);
#else
	return table_beginscan(rel, snapshot, nkeys, keys);
#endif
}

/*
 * 17 gave LockHeldByMe() an "or stronger" flag; false keeps the old meaning
 * (this mode exactly).
 */
static inline bool
idgen_lock_held_by_me(const LOCKTAG *tag, LOCKMODE mode)
{
#if PG_VERSION_NUM >= 170000
	return LockHeldByMe(tag, mode, false);
#else
	return LockHeldByMe(tag, mode);
#endif
}

/* 17 replaced the IsBackgroundWorker variable with AmBackgroundWorkerProcess(). */
static inline bool
idgen_am_background_worker(void)
{
#if PG_VERSION_NUM >= 170000
	return AmBackgroundWorkerProcess();
#else
	return IsBackgroundWorker;
#endif
}

/*
 * Memory for a GUC check hook's *extra.  The server frees it when the value
 * is replaced: with free() up to 15, with pfree() from 16, where it must come
 * from guc_malloc().  Memory from malloc() handed to 16+ makes the server
 * fail at start ("pfree called with invalid pointer") as soon as a
 * postgresql.conf value replaces the default.  Returns NULL (the hook then
 * fails) when out of memory; guc_malloc() has logged it.
 */
static inline void *
idgen_guc_extra_alloc(size_t size)
{
#if PG_VERSION_NUM >= 160000
	return guc_malloc(LOG, size);
#else
	return malloc(size);
#endif
}

/*
 * The developer setting trace_sort: up to 17 its variable exists only when
 * the server was built with TRACE_SORT (pg_config_manual.h defines it by
 * default); 18 removed the macro and always has the variable.  Testing the
 * macro alone would silently drop the logging on 18, so callers test
 * IDGEN_TRACE_SORT, which is false only on a server that has no trace_sort.
 */
#if PG_VERSION_NUM >= 180000 || defined(TRACE_SORT)
#define IDGEN_TRACE_SORT trace_sort
#else
#define IDGEN_TRACE_SORT false
#endif

/*
 * 19 keeps tranche names in shared memory: LWLockNewTrancheId() takes the
 * name and LWLockRegisterTranche() is gone.  Before 19 each backend that
 * waits on the lock registers the name itself (idgen_lwlock_name_tranche,
 * a no-op on 19).
 */
static inline int
idgen_lwlock_new_tranche(const char *name)
{
#if PG_VERSION_NUM >= 190000
	return LWLockNewTrancheId(name);
#else
	int			id = LWLockNewTrancheId();

	LWLockRegisterTranche(id, name);
	return id;
#endif
}

static inline void
idgen_lwlock_name_tranche(int id, const char *name)
{
#if PG_VERSION_NUM < 190000
	LWLockRegisterTranche(id, name);
#endif
}

/*
 * A dshash table keyed by the bytes of its key: 17 added copy_function to
 * dshash_parameters.
 */
static inline dshash_parameters
idgen_dshash_params(size_t key_size, size_t entry_size, int tranche)
{
	dshash_parameters p;

	memset(&p, 0, sizeof(p));
	p.key_size = key_size;
	p.entry_size = entry_size;
	p.compare_function = dshash_memcmp;
	p.hash_function = dshash_memhash;
#if PG_VERSION_NUM >= 170000
	p.copy_function = dshash_memcpy;
#endif
	p.tranche_id = tranche;
	return p;
}

/* 19 types the cache identifier a syscache callback receives. */
#if PG_VERSION_NUM >= 190000
typedef SysCacheIdentifier idgen_syscache_id;
#else
typedef int idgen_syscache_id;
#endif

/* 17 moved a backend's local transaction id into PGPROC's vxid. */
static inline LocalTransactionId
idgen_my_lxid(void)
{
#if PG_VERSION_NUM >= 170000
	return MyProc->vxid.lxid;
#else
	return MyProc->lxid;
#endif
}
