/*
 * hilo/key.cpp: what a Hi/Lo key is (hilo.hpp), found as pg_get_serial_sequence()
 * finds a serial's; hilo_create_key() makes it; id_gen.hilo_key_list() lists keys.
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/guc.hpp"

#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/pg_attrdef.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "nodes/nodeFuncs.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
}

char *
hilo_relname(Oid relid)
{
	return DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
}

char *
hilo_quoted_name(Oid relid)
{
	char	   *nsp = get_namespace_name(get_rel_namespace(relid));
	char	   *rel = get_rel_name(relid);

	if (nsp == nullptr || rel == nullptr)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	return (char *) quote_qualified_identifier(nsp, rel);
}

void
hilo_refuse_in_recovery(void)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("cannot draw Hi/Lo ids during recovery"),
				 errdetail("Hi/Lo keys draw their hi values from sequences, which a hot standby cannot advance."),
				 errhint("Generate ids on the primary (e.g. connect with target_session_attrs=read-write).")));
}

void
hilo_null_argument(const char *what, const char *example)
{
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("%s must not be NULL", what),
			 errhint("%s", example)));
}

void
hilo_check_table(Oid relid, HiloNeed need)
{
	char		kind;

	hilo_refuse_in_recovery();
	kind = get_rel_relkind(relid);
	if (kind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid),
				 errhint("Pass the table by name, e.g. hilo_next('orders').")));
	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE &&
		kind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", get_rel_name(relid)),
				 errdetail("Hi/Lo keys belong to tables; views, sequences, indexes and other relations have none."),
				 errhint("Pass the table whose rows the ids are for.")));
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("temporary table \"%s\" cannot have a Hi/Lo key", get_rel_name(relid)),
				 errdetail("A key outlives its session; a temporary table does not."),
				 errhint("Use an identity column or a sequence for temporary tables.")));
	if (need == HiloNeed::owner)
	{
		if (!idgen_rel_ownercheck(relid, GetUserId()))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be owner of table %s", hilo_relname(relid)),
					 errhint("Only the owner of a table may make its Hi/Lo key.")));
		return;
	}
	/* As a serial's default: INSERT on the table (any column: the DEFAULT fires for the others). */
	if (need == HiloNeed::draw &&
		(pg_class_aclcheck(relid, GetUserId(), ACL_INSERT) == ACLCHECK_OK ||
		 pg_attribute_aclcheck_all(relid, GetUserId(), ACL_INSERT, ACLMASK_ANY) == ACLCHECK_OK))
		return;
	/* Or what nextval() needs on the key's sequence, found without a lock. */
	{
		AttrNumber	attnum;
		Oid			seqid = hilo_table_key(relid, &attnum);

		if (pg_class_aclcheck(seqid, GetUserId(), ACL_USAGE | ACL_UPDATE) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for sequence %s", hilo_relname(seqid)),
					 errdetail("The ids of table %s come from its key's sequence: drawing them needs USAGE or UPDATE on it%s.",
							   hilo_relname(relid), need == HiloNeed::draw ? " (or INSERT on the table)" : ""),
					 errhint("GRANT USAGE ON SEQUENCE %s TO the role that generates the ids.", hilo_relname(seqid))));
	}
}

Datum
hilo_result_row(FunctionCallInfo fcinfo, Datum *values)
{
	TupleDesc	desc;

	if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	return HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values,
											 (bool *) palloc0(desc->natts * sizeof(bool))));
}

/* funcid's C symbol if it is a C function of this library (only a superuser makes one). */
static const char *
hilo_c_symbol(Oid funcid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	const char *symbol = nullptr;

	if (!HeapTupleIsValid(tup))
		return nullptr;
	if (((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId)
	{
		bool		isnull;
		Datum		src = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		Datum		bin = isnull ? (Datum) 0 : SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);

		if (!isnull && strstr(TextDatumGetCString(bin), "id_gen") != nullptr)
			symbol = TextDatumGetCString(src);
	}
	ReleaseSysCache(tup);
	return symbol;
}

/*
 * What a column default is for us: a call of hilo_next(tbl)/hilo_next_text(tbl) (own form,
 * *first = tbl), or of hilo_next(seq, strategy, max_lo) (ORM form: *first = seq).
 */
enum class HiloForm : uint8_t { none, own, orm };

/* Argument i of a call, if it is a Const of the type the function declares (never read through a cast). */
static Const *
hilo_const_arg(List *args, int i, Oid type)
{
	Node	   *a = i < list_length(args) ? (Node *) list_nth(args, i) : nullptr;

	if (a == nullptr || !IsA(a, Const) || ((Const *) a)->consttype != type || ((Const *) a)->constisnull)
		return nullptr;
	return (Const *) a;
}

static HiloForm
hilo_parse_default(Node *expr, Oid *first, idgen::HiloStrategy *strategy, int32 *max_lo)
{
	FuncExpr   *fe;
	const char *symbol;
	Const	   *tbl;
	Const	   *str;
	Const	   *lo;

	/* Read through casts of the result (hilo_next('t')::integer), never of the arguments. */
	while (expr != nullptr)
	{
		if (IsA(expr, FuncExpr) && ((FuncExpr *) expr)->funcformat != COERCE_EXPLICIT_CALL &&
			((FuncExpr *) expr)->funcformat != COERCE_SQL_SYNTAX && list_length(((FuncExpr *) expr)->args) == 1)
			expr = (Node *) linitial(((FuncExpr *) expr)->args);
		else if (IsA(expr, RelabelType))
			expr = (Node *) ((RelabelType *) expr)->arg;
		else if (IsA(expr, CoerceViaIO))
			expr = (Node *) ((CoerceViaIO *) expr)->arg;
		else if (IsA(expr, CoerceToDomain))
			expr = (Node *) ((CoerceToDomain *) expr)->arg;
		else
			break;
	}
	if (expr == nullptr || !IsA(expr, FuncExpr))
		return HiloForm::none;
	fe = (FuncExpr *) expr;
	symbol = hilo_c_symbol(fe->funcid);
	tbl = hilo_const_arg(fe->args, 0, REGCLASSOID);
	if (symbol == nullptr || tbl == nullptr || list_length(fe->args) > 3)
		return HiloForm::none;
	*first = DatumGetObjectId(tbl->constvalue);
	if (list_length(fe->args) == 1 && (strcmp(symbol, "hilo_next") == 0 || strcmp(symbol, "hilo_next_text") == 0))
		return HiloForm::own;
	str = hilo_const_arg(fe->args, 1, TEXTOID);
	lo = hilo_const_arg(fe->args, 2, INT4OID);
	/* A stored call leaves max_lo's default out. */
	if (strcmp(symbol, "hilo_next_orm") == 0 && str != nullptr && (list_length(fe->args) == 2 || lo != nullptr) &&
		idgen::hilo_parse_strategy(TextDatumGetCString(str->constvalue), strategy))
	{
		*max_lo = lo != nullptr ? DatumGetInt32(lo->constvalue) : 0;
		return HiloForm::orm;
	}
	return HiloForm::none;
}

/* The sequence OWNED BY (relid, attnum); InvalidOid: none; more than one: ERROR if strict. */
static Oid
hilo_owned_sequence(Oid relid, AttrNumber attnum, bool strict = true)
{
	Oid			found = InvalidOid;
	ListCell   *lc;

	foreach(lc, getOwnedSequences(relid))
	{
		Oid			owner_rel;
		int32		owner_col;

		if (!sequenceIsOwned(lfirst_oid(lc), DEPENDENCY_AUTO, &owner_rel, &owner_col) || owner_col != attnum)
			continue;
		if (OidIsValid(found) && strict)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("column %s of table %s owns more than one sequence",
							quote_identifier(get_attname(relid, attnum, false)), hilo_relname(relid)),
					 errdetail("Its Hi/Lo key is the one sequence it owns: %s or %s.",
							   hilo_relname(found), hilo_relname(lfirst_oid(lc))),
					 errhint("ALTER SEQUENCE ... OWNED BY NONE the one that is not the key.")));
		found = lfirst_oid(lc);
	}
	return found;
}

/* The first column of relid (locked) whose default calls hilo_next(relid); 0: none. */
static AttrNumber
hilo_key_column(Relation rel)
{
	TupleConstr *constr = RelationGetDescr(rel)->constr;
	AttrNumber	best = InvalidAttrNumber;

	for (int i = 0; constr != nullptr && i < constr->num_defval; i++)
	{
		Oid			named = InvalidOid;
		idgen::HiloStrategy s;
		int32		m;

		if (hilo_parse_default((Node *) stringToNode(constr->defval[i].adbin), &named, &s, &m) == HiloForm::own &&
			named == RelationGetRelid(rel) &&
			(best == InvalidAttrNumber || constr->defval[i].adnum < best))
			best = constr->defval[i].adnum;
	}
	return best;
}

/* Finding a key reads pg_depend: kept until a relcache or pg_sequence invalidation (next.cpp). */
static struct { Oid relid; Oid seqid; AttrNumber attnum; } hilo_memo[8];
static int	hilo_memo_next;

void
hilo_forget_key(Oid relid)
{
	for (auto &m : hilo_memo)
		if (!OidIsValid(relid) || m.relid == relid || m.seqid == relid)
			m.relid = InvalidOid;
}

Oid
hilo_table_key(Oid relid, AttrNumber *attnum)
{
	Relation	rel;
	Oid			seqid;
	int			i;

	for (i = 0; i < (int) lengthof(hilo_memo); i++)
		if (hilo_memo[i].relid == relid)
		{
			*attnum = hilo_memo[i].attnum;
			return hilo_memo[i].seqid;
		}
	/* No lock: a draw checks the privilege first, and the ownership again once it locks the sequence. */
	rel = RelationIdGetRelation(relid);
	if (rel == nullptr)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	*attnum = hilo_key_column(rel);
	RelationClose(rel);
	seqid = *attnum == InvalidAttrNumber ? InvalidOid : hilo_owned_sequence(relid, *attnum);
	if (!OidIsValid(seqid))
	{
		const char *t = hilo_relname(relid);
		const char *col = *attnum == InvalidAttrNumber ? nullptr : quote_identifier(get_attname(relid, *attnum, false));

		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s has no Hi/Lo key", t),
				 col == nullptr ? errdetail("No column of it defaults to hilo_next('%s').", t)
				 : errdetail("Column %s defaults to hilo_next() but owns no sequence.", col),
				 col == nullptr ? errhint("ALTER TABLE %s ALTER <column> SET DEFAULT hilo_next('%s'::regclass); if the "
										  "column owns no sequence, then SELECT hilo_create_key('%s', '<column>').", t, t, t)
				 : errhint("As the table's owner: SELECT hilo_create_key('%s', '%s'). A column added to a table with "
						   "rows: ADD it without the default, make its key, then SET DEFAULT and fill it.", t, col)));
	}
	i = hilo_memo_next++ % lengthof(hilo_memo);
	hilo_memo[i].relid = relid;
	hilo_memo[i].seqid = seqid;
	hilo_memo[i].attnum = *attnum;
	return seqid;
}

/*
 * The largest id of (relid, attnum) in range, in every table that inherits it, read from
 * the heap: row-level security hides no row, and the caller's lock keeps writers out.  A
 * column of text (base type) holds hilo_next_text() ids: those naming relid count.
 */
static int64
hilo_column_max(Oid relid, AttrNumber attnum, Oid base, idgen::HiloNodeRange range)
{
	const char *col = get_attname(relid, attnum, false);
	const char *table = hilo_text_table(relid);
	int64		max = 0;
	ListCell   *lc;

	foreach(lc, find_all_inheritors(relid, ShareRowExclusiveLock, nullptr))
	{
		Relation	rel = table_open(lfirst_oid(lc), NoLock);
		AttrNumber	att = get_attnum(RelationGetRelid(rel), col);

		if (rel->rd_rel->relkind == RELKIND_FOREIGN_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot read the ids of foreign table %s", hilo_relname(RelationGetRelid(rel))),
					 errhint("Detach it, make the key, setval() its sequence to the largest id of all, attach it again.")));
		if (rel->rd_rel->relkind == RELKIND_RELATION)
		{
			Snapshot	snap = RegisterSnapshot(GetLatestSnapshot());
			TableScanDesc scan = table_beginscan(rel, snap, 0, nullptr);
			TupleTableSlot *slot = table_slot_create(rel, nullptr);

			while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
			{
				bool		isnull;
				Datum		d = slot_getattr(slot, att, &isnull);
				int64_t		x;
				size_t		table_len;
				size_t		tag_at;

				if (isnull)
					continue;
				if (base == INT8OID || base == INT4OID || base == INT2OID)
					x = base == INT8OID ? DatumGetInt64(d) : base == INT4OID ? DatumGetInt32(d) : DatumGetInt16(d);
				else if (!idgen::hilo_parse_text_id(VARDATA_ANY(DatumGetTextPP(d)), VARSIZE_ANY_EXHDR(DatumGetTextPP(d)),
													&table_len, &x, &tag_at) ||
						 table_len != strlen(table) || memcmp(VARDATA_ANY(DatumGetTextPP(d)), table, table_len) != 0)
					continue;
				if (x >= range.first && x <= range.last && x > max)
					max = x;
			}
			ExecDropSingleTupleTableSlot(slot);
			table_endscan(scan);
			UnregisterSnapshot(snap);
		}
		table_close(rel, NoLock);
	}
	return max;
}

/*
 * hilo_create_key(tbl, col DEFAULT NULL, max_lo DEFAULT NULL): tbl's key, made as a serial's
 * sequence: <table>_<column>_seq, AS the column's integer type, INCREMENT max_lo, START above
 * the column's ids, logged, OWNED BY the column.  No default is written: a named column has
 * none yet (a column being added) or calls id_gen's hilo_next(tbl).
 */
IDGEN_FUNCTION(hilo_create_key)
{
	Oid			relid;
	AttrNumber	attnum = InvalidAttrNumber;
	int32		max_lo = PG_ARGISNULL(2) ? idgen_hilo_max_lo : PG_GETARG_INT32(2);
	Oid			nsp;
	Oid			base;
	Oid			type;
	Oid			owner;
	Oid			seqid;
	char	   *seqname;
	const char *colname;
	const char *t;
	idgen::HiloNodeRange range = hilo_own_range();
	int64		start;
	Oid			saved_user;
	int			saved_sec;
	int			nest;
	bool		has_default = false;
	Relation	rel;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table, e.g. hilo_create_key('orders').");
	if (max_lo <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_lo must be greater than zero, not %d", max_lo),
				 errhint("max_lo is the number of ids per block, e.g. 1000.")));
	relid = PG_GETARG_OID(0);
	hilo_check_table(relid, HiloNeed::owner);
	PreventCommandIfReadOnly("hilo_create_key()");
	LockRelationOid(relid, ShareRowExclusiveLock);	/* no writer until we commit */
	t = hilo_relname(relid);
	rel = relation_open(relid, NoLock);
	if (!PG_ARGISNULL(1))
	{
		attnum = get_attnum(relid, NameStr(*PG_GETARG_NAME(1)));
		if (attnum <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of table %s does not exist", NameStr(*PG_GETARG_NAME(1)), t)));
		has_default = TupleDescAttr(RelationGetDescr(rel), attnum - 1)->atthasdef;
		if (has_default && hilo_key_column(rel) != attnum)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("column %s of table %s does not default to hilo_next('%s')",
							quote_identifier(NameStr(*PG_GETARG_NAME(1))), t, t),
					 errdetail("A key is drawn by its column's default, a call of id_gen's hilo_next() naming the table."),
					 errhint("ALTER TABLE %s ALTER %s SET DEFAULT hilo_next('%s'::regclass); first.", t,
							 quote_identifier(NameStr(*PG_GETARG_NAME(1))), t)));
	}
	else
	{
		attnum = hilo_key_column(rel);
		has_default = true;
		if (attnum == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("no column of table %s defaults to hilo_next('%s')", t, t),
					 errhint("ALTER TABLE %s ALTER <column> SET DEFAULT hilo_next('%s'::regclass); first, or name "
							 "a column that has no default yet: hilo_create_key('%s', '<column>').", t, t, t)));
	}
	owner = rel->rd_rel->relowner;
	relation_close(rel, NoLock);
	seqid = hilo_owned_sequence(relid, attnum);
	colname = get_attname(relid, attnum, false);
	if (OidIsValid(seqid))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("column %s of table %s owns sequence %s already", quote_identifier(colname), t,
						hilo_relname(seqid)),
				 has_default ? errdetail("That sequence is the column's Hi/Lo key.")
				 : errdetail("The column has no default: nothing draws from that sequence."),
				 has_default ? errhint("ALTER SEQUENCE %s INCREMENT BY %d sets its block size.", hilo_relname(seqid), max_lo)
				 : errhint("ALTER TABLE %s ALTER %s SET DEFAULT hilo_next('%s'::regclass); makes it the column's key.",
						   t, quote_identifier(colname), t)));
	base = getBaseType(get_atttype(relid, attnum));
	type = base == TEXTOID || base == VARCHAROID ? INT8OID : base;	/* text ids: hilo_next_text() */
	if (type != INT2OID && type != INT4OID && type != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column %s of table %s is of type %s, which a Hi/Lo key cannot serve", quote_identifier(colname),
						t, format_type_be(get_atttype(relid, attnum))),
				 errhint("A key serves smallint, integer and bigint columns (and text ids: hilo_next_text()).")));
	if (type == INT2OID)
		range.last = Min(range.last, PG_INT16_MAX);
	else if (type == INT4OID)
		range.last = Min(range.last, PG_INT32_MAX);
	start = Max(hilo_column_max(relid, attnum, base, range) + 1, range.first);
	if (start > range.last || max_lo > range.last - start + 1)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("column %s of table %s has no room for a block of %d ids above its largest id",
						quote_identifier(colname), t, max_lo),
				 errdetail("Its ids go up to " INT64_FORMAT ".", range.last),
				 errhint("Choose a smaller max_lo, or widen the column (ALTER TABLE ... TYPE bigint) first.")));

	nsp = get_rel_namespace(relid);
	seqname = ChooseRelationName(get_rel_name(relid), colname, "seq", nsp, false);
	/* As the table's owner (a serial's sequence is its table's owner's), search_path pinned. */
	GetUserIdAndSecContext(&saved_user, &saved_sec);
	SetUserIdAndSecContext(owner, saved_sec | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	nest = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(psprintf("CREATE SEQUENCE %s AS pg_catalog.%s INCREMENT BY %d MINVALUE " INT64_FORMAT
							 " MAXVALUE " INT64_FORMAT " START " INT64_FORMAT " CACHE 1 NO CYCLE OWNED BY %s.%s",
							 quote_qualified_identifier(get_namespace_name(nsp), seqname),
							 type == INT8OID ? "int8" : type == INT4OID ? "int4" : "int2",
							 max_lo, range.first, range.last, start,
							 hilo_quoted_name(relid), quote_identifier(colname)),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "id_gen: creating the sequence of table %u failed", relid);
	SPI_finish();
	AtEOXact_GUC(true, nest);
	SetUserIdAndSecContext(saved_user, saved_sec);
	CommandCounterIncrement();
	hilo_forget_key(relid);
	/* A session holding a block of a sequence the column owned before finds the new key and drops it. */
	CacheInvalidateRelcacheByRelid(relid);
	PG_RETURN_OID(get_relname_relid(seqname, nsp));
}

/* Every key: own forms (their owned sequence, strategy pooled) and ORM forms, per default. */
IDGEN_FUNCTION(hilo_key_list)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;

	InitMaterializedSRF(fcinfo, 0);
	rel = table_open(AttrDefaultRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_attrdef ad = (Form_pg_attrdef) GETSTRUCT(tup);
		bool		isnull;
		Datum		bin = heap_getattr(tup, Anum_pg_attrdef_adbin, RelationGetDescr(rel), &isnull);
		Oid			first = InvalidOid;
		idgen::HiloStrategy strategy = idgen::HiloStrategy::pooled;
		int32		max_lo = 0;
		HiloForm	form;
		Oid			seqid = InvalidOid;
		Datum		values[6];
		bool		nulls[6] = {false, false, false, false, false, false};

		if (isnull)
			continue;
		form = hilo_parse_default((Node *) stringToNode(TextDatumGetCString(bin)), &first, &strategy, &max_lo);
		if (form == HiloForm::own && first == ad->adrelid)
			seqid = hilo_owned_sequence(ad->adrelid, ad->adnum, false);	/* a listing does not fail */
		else if (form == HiloForm::orm && get_rel_relkind(first) == RELKIND_SEQUENCE)
			seqid = first;
		if (!OidIsValid(seqid))
			continue;
		values[0] = ObjectIdGetDatum(ad->adrelid);
		values[1] = DirectFunctionCall1(namein, CStringGetDatum(get_attname(ad->adrelid, ad->adnum, false)));
		values[2] = ObjectIdGetDatum(seqid);
		values[3] = CStringGetTextDatum(idgen::hilo_strategy_name(strategy));
		values[4] = Int32GetDatum(max_lo);
		nulls[4] = max_lo == 0;
		values[5] = BoolGetDatum(form == HiloForm::own);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return (Datum) 0;
}

idgen::HiloStrategy
hilo_strategy_arg(text *arg)
{
	char		buf[24];			/* longer than any strategy name; no palloc per call */
	int			len = Min((int) VARSIZE_ANY_EXHDR(arg), (int) sizeof(buf) - 1);
	idgen::HiloStrategy strategy;

	memcpy(buf, VARDATA_ANY(arg), len);
	buf[len] = '\0';
	if (!idgen::hilo_parse_strategy(buf, &strategy))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown Hi/Lo strategy \"%s\"", text_to_cstring(arg)),
				 errhint("Use one of: %s.", idgen::hilo_strategy_list)));
	return strategy;
}

/* id_gen.hilo_block_size(strategy, max_lo, increment): the increment for the pooled strategies. */
IDGEN_FUNCTION(hilo_block_size)
{
	int			arg;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	arg = idgen::hilo_size_is_increment(hilo_strategy_arg(PG_GETARG_TEXT_PP(0))) ? 2 : 1;
	if (PG_ARGISNULL(arg))
		PG_RETURN_NULL();
	PG_RETURN_INT64(arg == 2 ? PG_GETARG_INT64(2) : PG_GETARG_INT32(1));
}

/* id_gen.hilo_reserved_to(strategy, last, size): the last id of last's block, capped. */
IDGEN_FUNCTION(hilo_reserved_to)
{
	idgen::HiloStrategy strategy = hilo_strategy_arg(PG_GETARG_TEXT_PP(0));
	int64		size = PG_GETARG_INT64(2);

	if (size < 1)
		PG_RETURN_NULL();
	PG_RETURN_INT64(idgen::hilo_reserved_to(strategy, PG_GETARG_INT64(1), size));
}

/* hilo_node_of(id bigint): the node whose range holds id; NULL: none does. */
IDGEN_FUNCTION(hilo_node_of)
{
	int32		node = idgen::hilo_node_of(PG_GETARG_INT64(0));

	if (node < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32(node);
}

/* hilo_node_range(node integer, OUT first_id bigint, OUT last_id bigint) */
IDGEN_FUNCTION(hilo_node_range)
{
	int32		node = PG_GETARG_INT32(0);
	idgen::HiloNodeRange range;
	Datum		values[2];

	if (node < 0 || node > idgen::kHiloMaxNode)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("node must be between 0 and %d, not %d", (int) idgen::kHiloMaxNode, node),
				 errhint("A node is a worker id, as node_identity() reports it.")));
	range = idgen::hilo_node_range(node);
	values[0] = Int64GetDatum(range.first);
	values[1] = Int64GetDatum(range.last);
	PG_RETURN_DATUM(hilo_result_row(fcinfo, values));
}
