/*
 * hilo_floor.cpp: the data floor of Hi/Lo keys.  hilo_next() must never
 * hand out an id already present in the key's column, whoever wrote it: a
 * bulk load with explicit ids, a partial restore (pg_dump -t), or another
 * server before a switchover (logical replication carries rows, not
 * sequences).  What lives here:
 *
 *  - the key's column(s): the columns whose DEFAULT is hilo_next(tbl), found
 *    through pg_depend (a DEFAULT holding the regclass constant depends on
 *    the table) and checked by parsing pg_attrdef.adbin; with every
 *    partition and inheritance child, since they share the parent's key;
 *  - their largest id (hilo_data_max): one backward probe of a btree index
 *    that leads with the column, or a full scan where none exists, with a
 *    dirty snapshot so that rows of transactions still in progress count;
 *  - the checks: a new key starts above the data (hilo_place_new_seq); a key
 *    whose sequence is missing, serves another key as its own, or was never
 *    drawn from is repaired in a transaction of its own before use
 *    (hilo_key_needs_repair, hilo_repair_key_sql); every block drawn is
 *    checked against the indexed columns and the sequence moved forward if
 *    the data reaches it (hilo_block_above_data);
 *  - hilo_set_floor(tbl, next_id), the explicit form.
 *
 * The formulas (where a sequence must stand so that its blocks lie above a
 * given id) are in src/core/hilo.cpp (hilo_floor, hilo_move).
 *
 * Moving a sequence forward is safe only while nobody else draws from it:
 * setval() after reading the position could otherwise move it back over a
 * value drawn in between.  Explicit calls take ShareRowExclusiveLock (like
 * ALTER SEQUENCE and hilo_set_max_lo); the draw-time check only tries it,
 * because the drawing backend holds RowExclusiveLock and waiting there
 * would queue every other inserter behind any long transaction that has
 * drawn from the sequence.  When the lock is taken, the drawing backend
 * instead steps the sequence with plain nextval() until a block lies above
 * the data; that is always safe, only slower.
 */
#include "pg/pg.hpp"

#include "pg/compat.hpp"
#include "pg/guc.hpp"
#include "pg/hilo_key.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/skey.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_attrdef.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "nodes/primnodes.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
}

#include <climits>

using idgen::HiloBlock;
using idgen::HiloStatus;
using idgen::HiloStrategy;

/* One table (a leaf: a plain table, partition or inheritance child) column holding a key's ids. */
struct HiloLeaf
{
	Oid			relid;
	AttrNumber	attnum;
	Oid			typid;			/* int2, int4 or int8 */
	Oid			indexoid;		/* a btree index leading with it, or InvalidOid */
	bool		backward;		/* the largest value comes first scanning backward */
};

/*
 * Backend-local cache of each key's leaves, for the per-draw check.  Any
 * relcache invalidation (new partition, index, DEFAULT, dropped table...)
 * bumps the generation; an entry of an older generation is rebuilt at its
 * next use.  Entries are plain C data in TopMemoryContext (dynahash).
 */
struct HiloLeafCacheEntry
{
	Oid			relid;			/* hash key: the key's table */
	uint64		generation;
	int			nleaves;
	HiloLeaf   *leaves;			/* TopMemoryContext, or NULL */
};

static HTAB *hilo_leaf_cache = NULL;
static uint64 hilo_leaf_generation = 1;

/* ---------------------------------------------------------------------
 * Names of sequences
 * --------------------------------------------------------------------- */

Oid
hilo_seq_resolve(const char *name)
{
	List	   *names;
	Oid			seqid;

	if (name == NULL)
		return InvalidOid;
	names = idgen_qualified_name_list(name);
	/* Stored names are always qualified: never resolve through search_path. */
	if (list_length(names) != 2)
		return InvalidOid;
	seqid = RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
	if (!OidIsValid(seqid) || get_rel_relkind(seqid) != RELKIND_SEQUENCE)
		return InvalidOid;
	return seqid;
}

char *
hilo_seq_name(Oid seqid)
{
	return hilo_quoted_name(seqid);
}

/* Whether some key other than except_relid names the sequence (as text). */
static bool
hilo_rows_name_seq(const char *seqname, Oid except_relid)
{
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		values[2] = {CStringGetTextDatum(seqname), ObjectIdGetDatum(except_relid)};

	/* seq::text also reads a regclass column of a 1.2 install, qualified. */
	return hilo_spi("SELECT 1 FROM id_gen.hilo_key WHERE seq::pg_catalog.text = $1 AND relid::pg_catalog.oid <> $2",
					2, types, values, SPI_OK_SELECT) > 0;
}

/* Only names of the form the extension gives its own sequences are reused. */
static bool
hilo_is_own_seq_name(const char *name)
{
	const char *p = "id_gen.hilo_seq_";

	if (strncmp(name, p, strlen(p)) != 0 || name[strlen(p)] == '\0')
		return false;
	for (const char *c = name + strlen(p); *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	return true;
}

/*
 * A number for a new own sequence, id_gen.hilo_seq_<n>, whose name neither
 * an existing relation nor a key row (say, one copied from another server
 * whose sequence does not exist here yet) has taken.
 */
int64
hilo_new_seq_number(void)
{
	Oid			nsp = get_namespace_oid("id_gen", false);

	for (;;)
	{
		bool		isnull;
		int64		n;
		char		rel[NAMEDATALEN];

		hilo_spi("SELECT pg_catalog.nextval('id_gen.hilo_seq_counter'::pg_catalog.regclass)",
				 0, NULL, NULL, SPI_OK_SELECT);
		n = hilo_spi_int8(1, &isnull);
		snprintf(rel, sizeof(rel), "hilo_seq_" INT64_FORMAT, n);
		if (OidIsValid(get_relname_relid(rel, nsp)))
			continue;
		if (hilo_rows_name_seq(psprintf("id_gen.%s", rel), InvalidOid))
			continue;
		return n;
	}
}

/* ---------------------------------------------------------------------
 * The key's columns
 * --------------------------------------------------------------------- */

/* Is funcid this extension's hilo_next(regclass)? */
static bool
hilo_is_hilo_next(Oid funcid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	bool		yes = false;

	if (!HeapTupleIsValid(tup))
		return false;
	{
		Form_pg_proc p = (Form_pg_proc) GETSTRUCT(tup);
		bool		nullsrc;
		bool		nullbin;
		Datum		src;
		Datum		bin;

		if (p->prolang == ClanguageId && p->pronargs == 1 && p->proargtypes.values[0] == REGCLASSOID)
		{
			src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &nullsrc);
			bin = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &nullbin);
			if (!nullsrc && !nullbin)
			{
				char	   *s = TextDatumGetCString(src);
				char	   *b = TextDatumGetCString(bin);
				size_t		lb = strlen(b);

				yes = strcmp(s, "hilo_next") == 0 && lb >= 6 && strcmp(b + lb - 6, "id_gen") == 0;
			}
		}
	}
	ReleaseSysCache(tup);
	return yes;
}

/*
 * Is a column DEFAULT hilo_next(keyrel) itself, possibly cast to the
 * column's integer type?  A DEFAULT that computes something else from it
 * (hilo_next('t') * 10) does not put the key's ids in the column.
 */
static bool
hilo_default_is_key(Node *expr, Oid keyrel)
{
	while (expr != NULL)
	{
		if (IsA(expr, RelabelType))
		{
			expr = (Node *) ((RelabelType *) expr)->arg;
			continue;
		}
		if (!IsA(expr, FuncExpr))
			return false;
		{
			FuncExpr   *f = (FuncExpr *) expr;
			Node	   *arg;

			if (list_length(f->args) != 1)
				return false;
			arg = (Node *) linitial(f->args);
			if (f->funcformat == COERCE_IMPLICIT_CAST || f->funcformat == COERCE_EXPLICIT_CAST)
			{
				expr = arg;
				continue;
			}
			if (!hilo_is_hilo_next(f->funcid))
				return false;
			while (arg != NULL && IsA(arg, RelabelType))
				arg = (Node *) ((RelabelType *) arg)->arg;
			return arg != NULL && IsA(arg, Const) && !((Const *) arg)->constisnull &&
				((Const *) arg)->consttype == REGCLASSOID &&
				DatumGetObjectId(((Const *) arg)->constvalue) == keyrel;
		}
	}
	return false;
}

/* A btree index of rel leading with attnum in its type's default order. */
static Oid
hilo_leading_index(Relation rel, AttrNumber attnum, Oid typid, bool *backward)
{
	List	   *indexes = RelationGetIndexList(rel);
	Oid			opclass = GetDefaultOpClass(typid, BTREE_AM_OID);
	ListCell   *lc;
	Oid			found = InvalidOid;

	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		Form_pg_index ix;
		bool		isnull;

		if (!HeapTupleIsValid(tup))
			continue;
		ix = (Form_pg_index) GETSTRUCT(tup);
		if (ix->indisvalid && ix->indisready && ix->indislive && ix->indnatts >= 1 &&
			ix->indkey.values[0] == attnum && heap_attisnull(tup, Anum_pg_index_indpred, NULL))
		{
			oidvector  *classes = (oidvector *) DatumGetPointer(
				SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indclass, &isnull));
			int2vector *options = (int2vector *) DatumGetPointer(
				SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indoption, &isnull));

			/* A btree opclass is btree's: its index is a btree. */
			if (classes->values[0] == opclass)
			{
				*backward = (options->values[0] & INDOPTION_DESC) == 0;
				found = indexoid;
			}
		}
		ReleaseSysCache(tup);
		if (OidIsValid(found))
			break;
	}
	list_free(indexes);
	return found;
}

/*
 * The leaves holding keyrel's ids: for every column whose DEFAULT is
 * hilo_next(keyrel), the table itself if it has storage and every
 * partition or inheritance child (locked AccessShare), the column found by
 * name.  Foreign tables are left out (*foreign set): they cannot be read
 * here.  Allocated in the current memory context.
 */
static int
hilo_find_leaves(Oid keyrel, HiloLeaf **out, bool *foreign)
{
	Relation	dep;
	Relation	attrdef;
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *defs = NIL;
	ListCell   *lc;
	int			n = 0;
	int			cap = 4;
	HiloLeaf   *leaves = (HiloLeaf *) palloc(cap * sizeof(HiloLeaf));

	*foreign = false;

	/* Column defaults that mention keyrel depend on it. */
	dep = table_open(DependRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_depend_refclassid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(RelationRelationId));
	ScanKeyInit(&key[1], Anum_pg_depend_refobjid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(keyrel));
	scan = systable_beginscan(dep, DependReferenceIndexId, true, NULL, 2, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);

		if (d->classid == AttrDefaultRelationId)
			defs = list_append_unique_oid(defs, d->objid);
	}
	systable_endscan(scan);
	table_close(dep, AccessShareLock);

	attrdef = table_open(AttrDefaultRelationId, AccessShareLock);
	foreach(lc, defs)
	{
		Form_pg_attrdef ad;
		Oid			tabid;
		AttrNumber	attnum;
		Datum		bin;
		bool		isnull;
		bool		dropped;
		char		kind;
		HeapTuple	atttup;
		Oid			typid;
		char	   *attname;
		List	   *members;
		ListCell   *mc;

		ScanKeyInit(&key[0], Anum_pg_attrdef_oid, BTEqualStrategyNumber, F_OIDEQ,
					ObjectIdGetDatum(lfirst_oid(lc)));
		scan = systable_beginscan(attrdef, AttrDefaultOidIndexId, true, NULL, 1, key);
		tup = systable_getnext(scan);
		if (!HeapTupleIsValid(tup))
		{
			systable_endscan(scan);
			continue;
		}
		ad = (Form_pg_attrdef) GETSTRUCT(tup);
		tabid = ad->adrelid;
		attnum = ad->adnum;
		bin = heap_getattr(tup, Anum_pg_attrdef_adbin, RelationGetDescr(attrdef), &isnull);
		if (isnull || !hilo_default_is_key((Node *) stringToNode(TextDatumGetCString(bin)), keyrel))
		{
			systable_endscan(scan);
			continue;
		}
		systable_endscan(scan);

		kind = get_rel_relkind(tabid);
		if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE && kind != RELKIND_FOREIGN_TABLE)
			continue;
		atttup = SearchSysCache2(ATTNUM, ObjectIdGetDatum(tabid), Int16GetDatum(attnum));
		if (!HeapTupleIsValid(atttup))
			continue;
		typid = ((Form_pg_attribute) GETSTRUCT(atttup))->atttypid;
		attname = pstrdup(NameStr(((Form_pg_attribute) GETSTRUCT(atttup))->attname));
		dropped = ((Form_pg_attribute) GETSTRUCT(atttup))->attisdropped;
		ReleaseSysCache(atttup);
		if (dropped || (typid != INT2OID && typid != INT4OID && typid != INT8OID))
			continue;

		/* The table and everything that inherits from it. */
		members = has_subclass(tabid) ? find_all_inheritors(tabid, AccessShareLock, NULL)
			: list_make1_oid(tabid);
		foreach(mc, members)
		{
			Oid			leaf = lfirst_oid(mc);
			char		lkind = get_rel_relkind(leaf);
			AttrNumber	lattnum;
			bool		dup = false;

			if (lkind == RELKIND_FOREIGN_TABLE)
				*foreign = true;
			if (lkind != RELKIND_RELATION)
				continue;
			lattnum = get_attnum(leaf, attname);
			if (lattnum == InvalidAttrNumber || get_atttype(leaf, lattnum) != typid)
				continue;
			for (int i = 0; i < n; i++)
				dup = dup || (leaves[i].relid == leaf && leaves[i].attnum == lattnum);
			if (dup)
				continue;
			if (n == cap)
			{
				cap *= 2;
				leaves = (HiloLeaf *) repalloc(leaves, cap * sizeof(HiloLeaf));
			}
			leaves[n].relid = leaf;
			leaves[n].attnum = lattnum;
			leaves[n].typid = typid;
			leaves[n].indexoid = InvalidOid;
			leaves[n].backward = true;
			{
				Relation	r = try_table_open(leaf, AccessShareLock);

				if (r != NULL)
				{
					leaves[n].indexoid = hilo_leading_index(r, lattnum, typid, &leaves[n].backward);
					table_close(r, NoLock);
				}
			}
			n++;
		}
	}
	table_close(attrdef, AccessShareLock);
	*out = leaves;
	return n;
}

static void
hilo_leaf_cache_callback(Datum arg, Oid relid)
{
	hilo_leaf_generation++;
}

/* keyrel's leaves, from the cache (rebuilt if an invalidation arrived). */
static int
hilo_cached_leaves(Oid keyrel, HiloLeaf **out)
{
	HiloLeafCacheEntry *entry;
	bool		found;

	if (hilo_leaf_cache == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(HiloLeafCacheEntry);
		hilo_leaf_cache = hash_create("id_gen Hi/Lo key columns", 16, &ctl, HASH_ELEM | HASH_BLOBS);
		CacheRegisterRelcacheCallback(hilo_leaf_cache_callback, (Datum) 0);
	}
	entry = (HiloLeafCacheEntry *) hash_search(hilo_leaf_cache, &keyrel, HASH_ENTER, &found);
	if (!found)
	{
		entry->generation = 0;
		entry->nleaves = 0;
		entry->leaves = NULL;
	}
	if (entry->generation != hilo_leaf_generation)
	{
		uint64		generation = hilo_leaf_generation;
		HiloLeaf   *fresh;
		bool		foreign;
		int			n = hilo_find_leaves(keyrel, &fresh, &foreign);
		HiloLeaf   *kept = NULL;

		if (n > 0)
		{
			kept = (HiloLeaf *) MemoryContextAlloc(TopMemoryContext, n * sizeof(HiloLeaf));
			memcpy(kept, fresh, n * sizeof(HiloLeaf));
		}
		/* The search above may have processed invalidations: look again. */
		entry = (HiloLeafCacheEntry *) hash_search(hilo_leaf_cache, &keyrel, HASH_ENTER, &found);
		if (entry->leaves != NULL)
			pfree(entry->leaves);
		entry->leaves = kept;
		entry->nleaves = n;
		/* An invalidation that arrived while building makes it stale again. */
		entry->generation = generation;
	}
	*out = entry->leaves;
	return entry->nleaves;
}

static int64
hilo_datum_int64(Datum d, Oid typid)
{
	if (typid == INT2OID)
		return DatumGetInt16(d);
	if (typid == INT4OID)
		return DatumGetInt32(d);
	return DatumGetInt64(d);
}

/*
 * The largest value of one leaf's column, read through its index or (not
 * cheap_only) a full scan, with a dirty snapshot: rows committed or being
 * inserted by transactions in progress (this one included) count.
 * Returns false if it has none or could not be read.
 */
static bool
hilo_leaf_max(const HiloLeaf *leaf, bool cheap_only, int64 *max)
{
	Relation	heap = try_table_open(leaf->relid, AccessShareLock);
	SnapshotData dirty;
	TupleTableSlot *slot;
	bool		found = false;

	if (heap == NULL)
		return false;
	InitDirtySnapshot(dirty);
	slot = table_slot_create(heap, NULL);
	if (OidIsValid(leaf->indexoid))
	{
		Relation	index = try_relation_open(leaf->indexoid, AccessShareLock);

		if (index != NULL && index->rd_rel->relkind == RELKIND_INDEX)
		{
			IndexScanDesc scan = idgen_index_beginscan(heap, index, &dirty, 1, 0);
			ScanKeyData notnull;

			ScanKeyEntryInitialize(&notnull, SK_ISNULL | SK_SEARCHNOTNULL, 1, InvalidStrategy,
								   InvalidOid, InvalidOid, InvalidOid, (Datum) 0);
			index_rescan(scan, &notnull, 1, NULL, 0);
			while (index_getnext_slot(scan, leaf->backward ? BackwardScanDirection : ForwardScanDirection, slot))
			{
				bool		isnull;
				Datum		d = slot_getattr(slot, leaf->attnum, &isnull);

				if (!isnull)
				{
					*max = hilo_datum_int64(d, leaf->typid);
					found = true;
					break;
				}
			}
			index_endscan(scan);
			index_close(index, NoLock);
		}
		else if (index != NULL)
			relation_close(index, NoLock);
	}
	else if (!cheap_only)
	{
		TableScanDesc scan = table_beginscan(heap, &dirty, 0, NULL);

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			bool		isnull;
			Datum		d = slot_getattr(slot, leaf->attnum, &isnull);

			CHECK_FOR_INTERRUPTS();
			if (!isnull)
			{
				int64		v = hilo_datum_int64(d, leaf->typid);

				if (!found || v > *max)
					*max = v;
				found = true;
			}
		}
		table_endscan(scan);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_close(heap, NoLock);
	return found;
}

/*
 * Whether one leaf's column holds an id in [lo, hi], by one index probe
 * (the smallest value >= lo); false if the leaf has no usable index.
 */
static bool
hilo_leaf_has_in_range(const HiloLeaf *leaf, int64 lo, int64 hi)
{
	Relation	heap;
	Relation	index;
	SnapshotData dirty;
	TupleTableSlot *slot;
	ScanKeyData key;
	IndexScanDesc scan;
	bool		found = false;

	if (!OidIsValid(leaf->indexoid))
		return false;
	/* Narrower columns: compare within their type, or nothing can match. */
	if (leaf->typid == INT2OID)
	{
		if (lo > PG_INT16_MAX)
			return false;
		ScanKeyInit(&key, 1, BTGreaterEqualStrategyNumber, F_INT2GE,
					Int16GetDatum((int16) Max(lo, PG_INT16_MIN)));
	}
	else if (leaf->typid == INT4OID)
	{
		if (lo > PG_INT32_MAX)
			return false;
		ScanKeyInit(&key, 1, BTGreaterEqualStrategyNumber, F_INT4GE,
					Int32GetDatum((int32) Max(lo, PG_INT32_MIN)));
	}
	else
		ScanKeyInit(&key, 1, BTGreaterEqualStrategyNumber, F_INT8GE, Int64GetDatum(lo));

	heap = try_table_open(leaf->relid, AccessShareLock);
	if (heap == NULL)
		return false;
	index = try_relation_open(leaf->indexoid, AccessShareLock);
	if (index == NULL || index->rd_rel->relkind != RELKIND_INDEX)
	{
		if (index != NULL)
			relation_close(index, NoLock);
		table_close(heap, NoLock);
		return false;
	}
	InitDirtySnapshot(dirty);
	slot = table_slot_create(heap, NULL);
	scan = idgen_index_beginscan(heap, index, &dirty, 1, 0);
	index_rescan(scan, &key, 1, NULL, 0);
	/* The smallest value first: forward in an ascending index. */
	if (index_getnext_slot(scan, leaf->backward ? ForwardScanDirection : BackwardScanDirection, slot))
	{
		bool		isnull;
		Datum		d = slot_getattr(slot, leaf->attnum, &isnull);

		found = !isnull && hilo_datum_int64(d, leaf->typid) <= hi;
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_close(index, NoLock);
	table_close(heap, NoLock);
	return found;
}

bool
hilo_data_max(Oid relid, bool cheap_only, int64 *max, bool *complete)
{
	HiloLeaf   *leaves;
	int			n;
	bool		any = false;
	bool		foreign = false;

	if (cheap_only)
		n = hilo_cached_leaves(relid, &leaves);
	else
		n = hilo_find_leaves(relid, &leaves, &foreign);
	*complete = !foreign;
	for (int i = 0; i < n; i++)
	{
		HiloLeaf	leaf = leaves[i];	/* a copy: the cache may be rebuilt meanwhile */
		int64		m = 0;

		if (cheap_only && !OidIsValid(leaf.indexoid))
		{
			*complete = false;
			continue;
		}
		if (hilo_leaf_max(&leaf, cheap_only, &m) && (!any || m > *max))
		{
			*max = m;
			any = true;
		}
	}
	return any;
}

/* ---------------------------------------------------------------------
 * Creation and repair (privileged SPI, inside hilo_create_key_sql)
 * --------------------------------------------------------------------- */

static void
hilo_exhausted(Oid relid, int64 taken_to)
{
	ereport(ERROR,
			(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
			 errmsg("Hi/Lo key of table %s has no ids left above " INT64_FORMAT,
					hilo_relname(relid), taken_to),
			 errdetail("The table holds ids up to " INT64_FORMAT "; a block above them would pass 9223372036854775807.",
					   taken_to),
			 errhint("No id was handed out.")));
}

void
hilo_place_new_seq(const char *seqname, int32 max_lo, int64 taken_to)
{
	Oid			seqid = hilo_seq_resolve(seqname);
	int64		v = 0;

	if (idgen::hilo_floor(HiloStrategy::classic, max_lo, taken_to, 0, &v) != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("no Hi/Lo block of %d ids fits above id " INT64_FORMAT, max_lo, taken_to),
				 errhint("The table's ids reach the end of the bigint range.")));
	if (v > 0)
		hilo_seq_set_next(seqid, v);
}

/* Creates an own sequence under name, for a key with this formula, at v. */
static void
hilo_create_own_seq(const char *name, HiloStrategy strategy, int32 max_lo, int64 v)
{
	bool		pooled = strategy == HiloStrategy::pooled || strategy == HiloStrategy::pooled_lo;

	hilo_spi(psprintf("CREATE SEQUENCE %s AS bigint INCREMENT %d MINVALUE 0 START 0 NO CYCLE",
					  name, pooled ? max_lo : 1), 0, NULL, NULL, SPI_OK_UTILITY);
	hilo_spi(psprintf("GRANT SELECT ON SEQUENCE %s TO PUBLIC", name), 0, NULL, NULL, SPI_OK_UTILITY);
	if (v > 0)
		hilo_seq_set_next(hilo_seq_resolve(name), v);
}

/*
 * Repairs are worth a line in the server log when the worker makes them
 * (it has no client); in the caller's transaction the caller sees them.
 */
static int
hilo_repair_elevel(void)
{
	return idgen_am_background_worker() ? LOG : NOTICE;
}

static void
hilo_set_row_seq(Oid relid, const char *name)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), CStringGetTextDatum(name)};

	hilo_spi("UPDATE id_gen.hilo_key SET seq = $2 WHERE relid::pg_catalog.oid = $1",
			 2, types, values, SPI_OK_UPDATE);
	CacheInvalidateRelcacheByRelid(relid);
}

/*
 * An own key whose sequence does not exist here (its row came from another
 * server or a restore without it): create it, under its name if no other
 * key has taken that name, starting above the data.
 */
static void
hilo_recreate_own_seq(Oid relid, const HiloKeyRow *row, int64 taken_to)
{
	const char *name = row->seqname;
	int64		v = 0;
	int64		size = row->max_lo;

	if (idgen::hilo_floor(row->strategy, size, taken_to, 0, &v) != HiloStatus::ok)
		hilo_exhausted(relid, taken_to);
	if (name == NULL || !hilo_is_own_seq_name(name) || hilo_rows_name_seq(name, relid))
		name = psprintf("id_gen.hilo_seq_" INT64_FORMAT, hilo_new_seq_number());
	hilo_create_own_seq(name, row->strategy, row->max_lo, v);
	hilo_set_row_seq(relid, name);
	ereport(hilo_repair_elevel(),
			(errmsg("created sequence %s for the Hi/Lo key of table %s", name, hilo_relname(relid)),
			 errdetail("The key's row names a sequence that does not exist in this database; its first block starts above the table's ids.")));
}

/*
 * Own keys naming one sequence (rows from another server or a restore can
 * name a sequence that serves a key of this database): every one of them
 * moves to a sequence of its own, starting above its data and above every
 * block any backend may hold from the shared one.
 */
static void
hilo_split_shared_seq(Oid relid, const HiloKeyRow *row, int64 taken_to)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(row->seqname)};
	int			nkeys;
	Oid		   *keys;
	int64		shared_next;

	/*
	 * No draw from it while we read where it stands.  We hold the key lock
	 * (hilo_create_key_sql), and a drawer of the other key takes the
	 * sequence's lock before its key lock: waiting here could deadlock.  If
	 * the sequence is busy, leave the split to a later first use (each
	 * backend loading the key checks again, hilo_key_needs_repair).
	 */
	if (!ConditionalLockRelationOid(row->seqid, ShareRowExclusiveLock))
		return;
	shared_next = hilo_seq_next_value(row->seqid);
	nkeys = (int) hilo_spi("SELECT relid::pg_catalog.oid FROM id_gen.hilo_key "
						   "WHERE own_seq AND seq::pg_catalog.text = $1 ORDER BY 1",
						   1, types, values, SPI_OK_SELECT);
	keys = (Oid *) palloc(nkeys * sizeof(Oid));
	for (int i = 0; i < nkeys; i++)
	{
		bool		isnull;

		keys[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	for (int i = 0; i < nkeys; i++)
	{
		HiloKeyRow	k;
		int64		taken = 0;
		int64		above_shared = 0;
		int64		v = 0;
		int64		size;
		bool		complete;
		char	   *name;

		if (!hilo_read_key(keys[i], &k, true))
			continue;
		size = k.strategy == HiloStrategy::pooled || k.strategy == HiloStrategy::pooled_lo
			? k.increment : k.max_lo;
		if (keys[i] == relid)
			taken = taken_to;
		else if (!hilo_data_max(keys[i], false, &taken, &complete))
			taken = 0;
		if (idgen::hilo_move(k.strategy, shared_next, size, k.strategy, 0, size, &above_shared) != HiloStatus::ok ||
			idgen::hilo_floor(k.strategy, size, taken, above_shared, &v) != HiloStatus::ok)
			hilo_exhausted(keys[i], taken);
		name = psprintf("id_gen.hilo_seq_" INT64_FORMAT, hilo_new_seq_number());
		hilo_create_own_seq(name, k.strategy, (int32) size, v);
		hilo_set_row_seq(keys[i], name);
		ereport(hilo_repair_elevel(),
				(errmsg("the Hi/Lo key of table %s now draws from %s", hilo_relname(keys[i]), name),
				 errdetail("Its sequence %s also served the key of another table as its own.", row->seqname)));
	}
}

void
hilo_repair_key_sql(Oid relid, int64 taken_to)
{
	HiloKeyRow	row;

	if (!hilo_read_key(relid, &row, true))
		return;
	if (!OidIsValid(row.seqid))
	{
		/* A bound key's sequence is the application's: not ours to create. */
		if (row.own_seq)
			hilo_recreate_own_seq(relid, &row, taken_to);
		return;
	}
	if (row.own_seq && hilo_rows_name_seq(row.seqname, relid))
	{
		hilo_split_shared_seq(relid, &row, taken_to);
		return;
	}

	/*
	 * Never drawn from: fresh from a schema-only restore (a logical
	 * replica's schema), or bound but not used yet.  It may lie below the
	 * table's rows; move it above them.  We hold the key lock, which every
	 * hilo draw of this key takes before nextval(): for the key's own
	 * sequence (nobody else may draw from it) that excludes every draw.  A
	 * bound sequence is the application's too: lock it, but only if it is
	 * free, since a drawer takes it before the key lock and waiting could
	 * deadlock; a busy one is being drawn from, and draws check the data.
	 */
	if (!row.own_seq && !ConditionalLockRelationOid(row.seqid, ShareRowExclusiveLock))
		return;
	{
		int64		next = hilo_seq_next_value(row.seqid);
		int64		v = 0;

		if (idgen::hilo_floor(row.strategy, hilo_row_size(&row), taken_to, next, &v) != HiloStatus::ok)
			hilo_exhausted(relid, taken_to);
		if (v > next)
		{
			hilo_seq_set_next(row.seqid, v);
			CacheInvalidateRelcacheByRelid(relid);
		}
	}
}

bool
hilo_key_written_here(Oid relid)
{
	Oid			nsp = get_namespace_oid("id_gen", false);
	Relation	rel = table_open(get_relname_relid("hilo_key", nsp), AccessShareLock);
	Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		mine = false;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, get_relname_relid("hilo_key_pkey", nsp), true, snap, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		mine = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup->t_data));
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	return mine;
}

/*
 * Whether a sequence was never drawn from (is_called false), read from its
 * page as sequence.c's read_seq_tuple does.  The lock is released at once:
 * held to the end of the transaction, it would make a concurrent
 * hilo_bind(), which drops the key's old sequence, wait for this backend
 * while this backend waits for it to draw.
 */
static bool
hilo_seq_never_drawn(Oid seqid)
{
	Relation	rel = try_relation_open(seqid, AccessShareLock);
	bool		never = false;

	if (rel == NULL)
		return false;
	if (rel->rd_rel->relkind == RELKIND_SEQUENCE)
	{
		Buffer		buf = ReadBuffer(rel, 0);
		Page		page;
		HeapTupleHeader tup;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		tup = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, FirstOffsetNumber));
		never = !((Form_pg_sequence_data) ((char *) tup + tup->t_hoff))->is_called;
		UnlockReleaseBuffer(buf);
	}
	relation_close(rel, AccessShareLock);
	return never;
}

bool
hilo_key_needs_repair(Oid relid, const HiloKeyRow *row, bool never_drawn_too)
{
	HiloPrivState st;
	bool		repair = false;

	if (!OidIsValid(row->seqid))
		return true;
	if (row->own_seq)
	{
		hilo_priv_enter(&st);
		repair = hilo_rows_name_seq(row->seqname, relid);
		hilo_priv_leave(&st);
	}
	if (!repair && never_drawn_too)
		repair = hilo_seq_never_drawn(row->seqid);
	return repair;
}

/* ---------------------------------------------------------------------
 * Draw time
 * --------------------------------------------------------------------- */

/*
 * Where the last check found the data, so that stepping the sequence (the
 * lock was not free) does not probe the index for every block.
 */
static Oid	hilo_step_relid = InvalidOid;
static int64 hilo_step_taken = 0;
static uint32 hilo_step_count = 0;

bool
hilo_block_above_data(Oid relid, Oid seqid, HiloStrategy strategy, int64 size, const HiloBlock *block)
{
	int64		taken = 0;
	bool		complete;
	HiloPrivState st;
	int64		next;
	int64		v = 0;

	/* Stepping: still below what the last probe saw; probe again now and then. */
	if (relid == hilo_step_relid && block->next <= hilo_step_taken && (++hilo_step_count % 64) != 0)
		return false;
	hilo_step_relid = InvalidOid;
	if (!hilo_data_max(relid, true, &taken, &complete) || block->next > taken)
		return true;

	/* The table holds ids at or above the block's first: move above them. */
	if (!ConditionalLockRelationOid(seqid, ShareRowExclusiveLock))
	{
		hilo_step_relid = relid;
		hilo_step_taken = taken;
		hilo_step_count = 0;
		return false;
	}
	hilo_priv_enter(&st);
	next = hilo_seq_next_value(seqid);
	if (idgen::hilo_floor(strategy, size, taken, next, &v) != HiloStatus::ok)
		hilo_exhausted(relid, taken);
	if (v > next)
		hilo_seq_set_next(seqid, v);
	hilo_priv_leave(&st);
	/* setval's effect is immediate and not transactional: release now. */
	UnlockRelationOid(seqid, ShareRowExclusiveLock);
	return false;
}

bool
hilo_block_reached(Oid relid, const HiloBlock *block)
{
	HiloLeaf   *leaves;
	int			n;

	if (block->next > block->last)
		return false;
	n = hilo_cached_leaves(relid, &leaves);
	for (int i = 0; i < n; i++)
	{
		HiloLeaf	leaf = leaves[i];	/* a copy: the cache may be rebuilt meanwhile */

		if (hilo_leaf_has_in_range(&leaf, block->next, block->last))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------------
 * hilo_set_floor
 * --------------------------------------------------------------------- */

/*
 * hilo_set_floor(tbl, next_id DEFAULT NULL): moves tbl's key forward so
 * that every block drawn from now on starts above the largest id of the
 * key's column(s) (read in full, index or not) and, if given, at or above
 * next_id.  Never moves it back.  Returns the first id of the next block.
 * Table owner only; an id for a key bound to an application's sequence
 * also needs UPDATE on it (the data floor is what every draw enforces
 * anyway).  Sends an invalidation: each backend drops at its next call a
 * block the table's ids have reached.
 */
IDGEN_FUNCTION(hilo_set_floor)
{
	Oid			relid;
	bool		has_id = !PG_ARGISNULL(1);
	int64		next_id = has_id ? PG_GETARG_INT64(1) : 0;
	int64		taken = 0;
	bool		complete;
	HiloKeyRow	row;
	HiloPrivState st;
	int64		next;
	int64		v = 0;
	HiloBlock	block;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key moves, e.g. hilo_set_floor('orders').");
	relid = PG_GETARG_OID(0);
	if (has_id && next_id < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("next_id must be at least 1, not " INT64_FORMAT, next_id),
				 errhint("Ids start at 1; pass NULL to move the key above the table's rows.")));
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);
	PreventCommandIfReadOnly("hilo_set_floor()");

	if (!hilo_data_max(relid, false, &taken, &complete) || taken < 0)
		taken = 0;
	if (has_id && next_id - 1 > taken)
		taken = next_id - 1;

	if (!hilo_read_key(relid, &row, true) || hilo_key_needs_repair(relid, &row, false))
	{
		hilo_create_key(relid, idgen_hilo_max_lo);
		if (!hilo_read_key(relid, &row))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("could not create the Hi/Lo key of table %s", hilo_relname(relid)),
					 errhint("The server log has the background worker's error.")));
	}
	if (has_id && !row.own_seq && pg_class_aclcheck(row.seqid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(row.seqid)),
				 errdetail("Moving a bound key to a given id moves the application's sequence, as setval() does."),
				 errhint("Grant UPDATE on the sequence, or pass NULL to move the key just above the table's rows.")));

	/* Like ALTER SEQUENCE: waits for draws in progress, holds off new ones. */
	LockRelationOid(row.seqid, ShareRowExclusiveLock);
	{
		Oid			seqid = row.seqid;

		if (!hilo_read_key(relid, &row) || row.seqid != seqid)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the Hi/Lo key of table %s changed concurrently", hilo_relname(relid)),
					 errhint("Call hilo_set_floor() again.")));
	}
	hilo_priv_enter(&st);
	next = hilo_seq_next_value(row.seqid);
	if (idgen::hilo_floor(row.strategy, hilo_row_size(&row), taken, next, &v) != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("cannot move the Hi/Lo key of table %s above id " INT64_FORMAT,
						hilo_relname(relid), taken),
				 errdetail("Its next block would give ids above 9223372036854775807."),
				 errhint("Nothing was changed.")));
	if (v > next)
		hilo_seq_set_next(row.seqid, v);
	hilo_priv_leave(&st);
	hilo_invalidate(relid);

	/* The first id of the next block (ids below 1 are skipped). */
	for (int i = 0; i < 3 && idgen::hilo_block(row.strategy, v, hilo_row_size(&row), &block) == HiloStatus::below_one; i++)
		v += row.increment;
	if (idgen::hilo_block(row.strategy, v, hilo_row_size(&row), &block) != HiloStatus::ok)
		PG_RETURN_INT64(1);
	PG_RETURN_INT64(block.next);
}
