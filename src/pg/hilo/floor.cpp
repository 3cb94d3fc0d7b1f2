/*
 * hilo/floor.cpp: the data floor of Hi/Lo keys: where a key starts when it
 * is made for a table that already has rows (a partial restore, a bulk
 * load, rows copied by logical replication), and where its owner's
 * hilo_set_floor() moves it after a load with explicit ids.  No draw reads
 * it: as with a sequence, moving a key is its owner's act, taken once, not
 * a check that every INSERT-privileged role's rows (even ones later rolled
 * back) or every maintenance lock on a partition could steer or stall.
 * What lives here:
 *
 *  - the key's column(s): the columns whose DEFAULT is hilo_next(tbl), found
 *    through pg_depend (a DEFAULT holding the regclass constant depends on
 *    the table) and checked by parsing pg_attrdef.adbin; with every
 *    partition and inheritance child, since they share the parent's key;
 *    only in tables trusted for the key, tbl's own tree and tables of tbl's
 *    owner (hilo_leaf_trusted; the security model, hilo.hpp); on a Citus
 *    node also tbl's shards, whose DEFAULT names tbl by its qualified name
 *    (hilo/citus.cpp);
 *  - their largest id in the key's range (hilo_data_max): one backward
 *    probe of a btree index that leads with the column, starting at the
 *    range's end, or a full scan where none exists, with a dirty snapshot
 *    so that rows of transactions still in progress count.  Ids of other
 *    nodes' ranges (rows replicated from them) never collide with this
 *    node's and do not count.
 *
 * The formulas (where a sequence must stand so that its blocks lie above a
 * given id) are in src/core/hilo.cpp (hilo_floor, hilo_move).
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"

#include "pg/hilo/hilo.hpp"
#include "pg/node_identity.hpp"

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
hilo_default_is_key(Node *expr, Oid keyrel, const char *keyname)
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
			/* A Citus shard's: 's.t'::text::regclass (hilo/citus.cpp). */
			if (keyname != NULL && arg != NULL && IsA(arg, FuncExpr) &&
				((FuncExpr *) arg)->funcresulttype == REGCLASSOID &&
				list_length(((FuncExpr *) arg)->args) == 1)
			{
				Node	   *name = (Node *) linitial(((FuncExpr *) arg)->args);

				return IsA(name, Const) && !((Const *) name)->constisnull &&
					((Const *) name)->consttype == TEXTOID &&
					strcmp(TextDatumGetCString(((Const *) name)->constvalue), keyname) == 0;
			}
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

/* The owner of relation relid (InvalidOid if it is gone). */
static Oid
hilo_rel_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner = InvalidOid;

	if (HeapTupleIsValid(tup))
	{
		owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
		ReleaseSysCache(tup);
	}
	return owner;
}

/*
 * Whether a table whose column DEFAULT names keyrel's key counts for the
 * key: keyrel itself, its partitions and inheritance children (attaching
 * one takes the ownership of keyrel), and tables of keyrel's owner.  Any
 * role may create a table with such a DEFAULT (it needs no privilege on
 * keyrel); were it counted, that role's rows would move the victim's key
 * (to the end of bigint) and its locks would block the victim's draws
 * (issue 16, defects 2 and 3).  So another role's table is neither read nor
 * locked (the security model, hilo.hpp).  *inheritors caches keyrel's.
 */
static bool
hilo_leaf_trusted(Oid keyrel, Oid tabid, List **inheritors)
{
	Oid			owner;

	if (tabid == keyrel)
		return true;
	owner = hilo_rel_owner(keyrel);
	if (OidIsValid(owner) && hilo_rel_owner(tabid) == owner)
		return true;
	if (*inheritors == NIL)
		*inheritors = find_all_inheritors(keyrel, NoLock, NULL);
	return list_member_oid(*inheritors, tabid);
}

/*
 * The leaves holding keyrel's ids: for every column whose DEFAULT is
 * hilo_next(keyrel) in a table trusted for the key (hilo_leaf_trusted),
 * the table itself if it has storage and every partition or inheritance
 * child (locked AccessShare), the column found by name.  Foreign tables
 * are left out (*foreign set): they cannot be read here.  Allocated in the
 * current memory context.
 */
static int
hilo_find_leaves(Oid keyrel, HiloLeaf **out, bool *foreign)
{
	List	   *inheritors = NIL;
	const char *keyname = NULL;	/* on Citus: keyrel's qualified name */
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

	/*
	 * On a Citus node, a shard created before its shell table names the key
	 * by its qualified name (hilo/citus.cpp), which no pg_depend row
	 * records: the defaults of keyrel's shards (<name>_<digits>, same
	 * schema) are found by their table's name.
	 */
	{
		int64		group;

		if (idgen_citus_group(&group))
		{
			const char *keyrelname = get_rel_name(keyrel);
			Oid			keynsp = get_rel_namespace(keyrel);

			keyname = quote_qualified_identifier(get_namespace_name(keynsp), keyrelname);
			scan = systable_beginscan(attrdef, InvalidOid, false, NULL, 0, NULL);
			while (HeapTupleIsValid(tup = systable_getnext(scan)))
			{
				Form_pg_attrdef ad = (Form_pg_attrdef) GETSTRUCT(tup);
				char	   *name = get_rel_name(ad->adrelid);

				if (name != NULL && get_rel_namespace(ad->adrelid) == keynsp &&
					hilo_is_shard_name(name, keyrelname))
					defs = list_append_unique_oid(defs, ad->oid);
			}
			systable_endscan(scan);
		}
	}
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
		if (isnull || !hilo_default_is_key((Node *) stringToNode(TextDatumGetCString(bin)), keyrel, keyname))
		{
			systable_endscan(scan);
			continue;
		}
		systable_endscan(scan);
		if (!hilo_leaf_trusted(keyrel, tabid, &inheritors))
			continue;

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
 * The largest value in [lo, hi] of one leaf's column, read through its
 * index (one probe: the first value at or below hi, scanning down) or a
 * full scan, with a dirty snapshot: rows committed or being
 * inserted by transactions in progress (this one included) count.
 * Returns false if it has none or could not be read.
 */
static bool
hilo_leaf_max(const HiloLeaf *leaf, int64 lo, int64 hi, int64 *max)
{
	Relation	heap;
	SnapshotData dirty;
	TupleTableSlot *slot;
	bool		found = false;
	int64		type_max = leaf->typid == INT2OID ? PG_INT16_MAX :
		leaf->typid == INT4OID ? PG_INT32_MAX : PG_INT64_MAX;

	/* A narrower column holds nothing in a range above its type. */
	if (lo > type_max)
		return false;
	hi = Min(hi, type_max);
	heap = try_table_open(leaf->relid, AccessShareLock);
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
			ScanKeyData below;

			/* column <= hi, compared within the column's type (no NULLs). */
			if (leaf->typid == INT2OID)
				ScanKeyInit(&below, 1, BTLessEqualStrategyNumber, F_INT2LE, Int16GetDatum((int16) hi));
			else if (leaf->typid == INT4OID)
				ScanKeyInit(&below, 1, BTLessEqualStrategyNumber, F_INT4LE, Int32GetDatum((int32) hi));
			else
				ScanKeyInit(&below, 1, BTLessEqualStrategyNumber, F_INT8LE, Int64GetDatum(hi));
			index_rescan(scan, &below, 1, NULL, 0);
			if (index_getnext_slot(scan, leaf->backward ? BackwardScanDirection : ForwardScanDirection, slot))
			{
				bool		isnull;
				Datum		d = slot_getattr(slot, leaf->attnum, &isnull);

				if (!isnull && hilo_datum_int64(d, leaf->typid) >= lo)
				{
					*max = hilo_datum_int64(d, leaf->typid);
					found = true;
				}
			}
			index_endscan(scan);
			index_close(index, NoLock);
		}
		else if (index != NULL)
			relation_close(index, NoLock);
	}
	else
	{
		TableScanDesc scan = idgen_table_beginscan(heap, &dirty, 0, NULL);

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			bool		isnull;
			Datum		d = slot_getattr(slot, leaf->attnum, &isnull);

			CHECK_FOR_INTERRUPTS();
			if (!isnull)
			{
				int64		v = hilo_datum_int64(d, leaf->typid);

				if (v >= lo && v <= hi && (!found || v > *max))
				{
					*max = v;
					found = true;
				}
			}
		}
		table_endscan(scan);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_close(heap, NoLock);
	return found;
}

bool
hilo_data_max(Oid relid, idgen::HiloNodeRange range, int64 *max, bool *complete)
{
	HiloLeaf   *leaves;
	int			n;
	bool		any = false;
	bool		foreign = false;

	n = hilo_find_leaves(relid, &leaves, &foreign);
	*complete = !foreign;
	for (int i = 0; i < n; i++)
	{
		HiloLeaf	leaf = leaves[i];
		int64		m = 0;

		if (hilo_leaf_max(&leaf, range.first, range.last, &m) && (!any || m > *max))
		{
			*max = m;
			any = true;
		}
	}
	return any;
}

void
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
