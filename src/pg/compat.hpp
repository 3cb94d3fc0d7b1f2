/*
 * compat.hpp: the few places where PostgreSQL's server API differs between
 * the versions id_gen builds against (15 to 18), behind PG_VERSION_NUM.
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
#include "catalog/pg_class.h"
#include "nodes/pg_list.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/regproc.h"
}

#include <cstdlib>

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "id_gen builds against PostgreSQL 15 to 18"
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

/* 18 added an instrumentation argument to index_beginscan() (NULL: none). */
static inline IndexScanDesc
idgen_index_beginscan(Relation heap, Relation index, Snapshot snapshot, int nkeys, int norderbys)
{
#if PG_VERSION_NUM >= 180000
	return index_beginscan(heap, index, snapshot, NULL, nkeys, norderbys);
#else
	return index_beginscan(heap, index, snapshot, nkeys, norderbys);
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
