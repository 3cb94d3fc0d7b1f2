/*
 * hilo/key.cpp: what a Hi/Lo key is.  A key is stated by the full-form
 * default of its table's column (hilo.hpp); this file reads it, checks
 * what a draw needs, and moves a key's sequence as its owner.
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/extension_owner.hpp"

#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/pg_class.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_sequence.h"
#include "common/int.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

using idgen::HiloStrategy;

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
hilo_check_max_lo(int32 max_lo)
{
	if (max_lo <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_lo must be greater than zero, not %d", max_lo),
				 errhint("max_lo is the number of ids per block, e.g. 1000.")));
}

HiloStrategy
hilo_strategy_arg(text *arg)
{
	char	   *s = text_to_cstring(arg);
	HiloStrategy strategy;

	if (!idgen::hilo_parse_strategy(s, &strategy))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown Hi/Lo strategy \"%s\"", s),
				 errhint("Use one of: %s.", idgen::hilo_strategy_list)));
	return strategy;
}

void
hilo_check_table(Oid relid, bool need_owner)
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
	if (need_owner && !idgen_rel_ownercheck(relid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", hilo_relname(relid)),
				 errhint("Only the owner of a table may make, change or bind its Hi/Lo key.")));
	if (!need_owner && pg_class_aclcheck(relid, GetUserId(), ACL_INSERT) != ACLCHECK_OK &&
		pg_attribute_aclcheck_all(relid, GetUserId(), ACL_INSERT, ACLMASK_ANY) != ACLCHECK_OK)
		/* INSERT on any column will do: the DEFAULT fires for the others. */
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", hilo_relname(relid)),
				 errdetail("hilo_next() hands out a table's ids only to roles that may INSERT into it."),
				 errhint("GRANT INSERT ON %s TO the role that generates the ids.", hilo_relname(relid))));
}

FormData_pg_sequence
hilo_seq_params(Oid seqid)
{
	HeapTuple	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(seqid));
	FormData_pg_sequence seq;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("sequence with OID %u does not exist", seqid)));
	seq = *(Form_pg_sequence) GETSTRUCT(tup);
	ReleaseSysCache(tup);
	return seq;
}

void
hilo_require_drawable_seq(Oid seqid, Oid relid)
{
	char		persistence = get_rel_persistence(seqid);

	if (get_rel_relkind(seqid) != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a sequence", get_rel_name(seqid) ? get_rel_name(seqid) : "?"),
				 errhint("Pass the sequence the application draws its hi values from.")));
	if (persistence == RELPERSISTENCE_TEMP ||
		(persistence == RELPERSISTENCE_UNLOGGED && get_rel_persistence(relid) != RELPERSISTENCE_UNLOGGED))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("sequence %s is %s", hilo_relname(seqid),
						persistence == RELPERSISTENCE_TEMP ? "temporary" : "unlogged"),
				 errdetail("A crash resets an unlogged sequence and a temporary one ends with its session: "
						   "the Hi/Lo key of a logged table would hand out its ids again."),
				 errhint("Use a permanent sequence; ALTER SEQUENCE ... SET LOGGED makes an unlogged one permanent.")));
	if (hilo_seq_params(seqid).seqcycle)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence %s is CYCLE", hilo_relname(seqid)),
				 errdetail("After it wraps around it gives its values again: the Hi/Lo key would hand out its blocks again."),
				 errhint("ALTER SEQUENCE %s NO CYCLE.", hilo_relname(seqid))));
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

const char *
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

HiloForm
hilo_parse_default(Node *expr, Oid *relid, HiloKey *key, bool *textp)
{
	FuncExpr   *fe;
	HiloForm	form;
	const char *symbol;
	Datum		v[6];
	bool		n[6];
	bool		is_text;

	expr = strip_implicit_coercions(expr);
	if (expr == nullptr || !IsA(expr, FuncExpr))
		return HiloForm::none;
	fe = (FuncExpr *) expr;
	symbol = hilo_c_symbol(fe->funcid);
	if (symbol == nullptr)
		return HiloForm::none;
	if (strcmp(symbol, "hilo_next") == 0 || strcmp(symbol, "hilo_next_text") == 0)
		form = HiloForm::short_form;
	else if (strcmp(symbol, "hilo_next_key") == 0 || strcmp(symbol, "hilo_text_id") == 0)
		form = HiloForm::full_form;
	else
		return HiloForm::none;
	is_text = strstr(symbol, "text") != nullptr;
	if (textp != nullptr)
		*textp = is_text;
	if (form == HiloForm::full_form && is_text)
	{
		/* hilo_next_text(tbl, <the full form>): the key is the inner call. */
		if (list_length(fe->args) != 2 ||
			hilo_parse_default((Node *) lsecond(fe->args), relid, key, nullptr) != HiloForm::full_form)
			return HiloForm::none;
		return form;
	}
	for (int i = 0; i < list_length(fe->args) && i < 6; i++)
	{
		Node	   *arg = strip_implicit_coercions((Node *) list_nth(fe->args, i));

		if (!IsA(arg, Const))
			return HiloForm::none;
		v[i] = ((Const *) arg)->constvalue;
		n[i] = ((Const *) arg)->constisnull;
	}
	if (form == HiloForm::short_form)
	{
		if (list_length(fe->args) != 1 || n[0])
			return HiloForm::none;
		*relid = DatumGetObjectId(v[0]);
		return form;
	}
	if (list_length(fe->args) != 6 || n[0] || n[1] || n[2] || n[4])
		return HiloForm::none;
	memset(key, 0, sizeof(*key));
	key->relid = DatumGetObjectId(v[0]);
	key->seqid = DatumGetObjectId(v[1]);
	if (!idgen::hilo_parse_strategy(TextDatumGetCString(v[2]), &key->strategy))
		return HiloForm::none;
	key->max_lo = n[3] ? 0 : DatumGetInt32(v[3]);
	key->adaptive = DatumGetBool(v[4]);
	key->hi_table = n[5] ? nullptr : TextDatumGetCString(v[5]);
	*relid = key->relid;
	return form;
}

List *
hilo_self_columns(Oid relid, HiloForm form, HiloKey *first)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	TupleConstr *constr;
	List	   *cols = NIL;

	if (rel == nullptr)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	constr = RelationGetDescr(rel)->constr;
	for (int i = 0; constr != nullptr && i < constr->num_defval; i++)
	{
		HiloKey		k;
		Oid			named = InvalidOid;
		bool		is_text;

		if (hilo_parse_default((Node *) stringToNode(constr->defval[i].adbin), &named, &k, &is_text) != form ||
			named != relid)
			continue;
		if (cols == NIL && first != nullptr)
		{
			*first = k;
			first->attnum = constr->defval[i].adnum;
		}
		cols = lappend_int(cols, constr->defval[i].adnum | (is_text ? kHiloTextColumn : 0));
	}
	relation_close(rel, NoLock);
	return cols;
}

/* Every draw reads its key, and parsing defaults costs microseconds: kept until invalidated. */
static struct { Oid relid; bool found; HiloKey key; } hilo_parsed[8];	/* hi_table: TopMemoryContext */
static int	hilo_parsed_next;

void
hilo_forget_parsed(Oid relid)
{
	for (auto &p : hilo_parsed)
		if (!OidIsValid(relid) || p.relid == relid)
			p.relid = InvalidOid;
}

bool
hilo_table_key(Oid relid, HiloKey *key)
{
	Oid			owner_rel;
	int32		owner_col;
	int			i = 0;

	/* A change of the default holds the table: it commits, and we read its invalidation. */
	LockRelationOid(relid, AccessShareLock);
	while (i < (int) lengthof(hilo_parsed) && hilo_parsed[i].relid != relid)
		i++;
	if (i == (int) lengthof(hilo_parsed))
	{
		HiloKey		k;
		bool		found = hilo_self_columns(relid, HiloForm::full_form, &k) != NIL;

		i = hilo_parsed_next++ % lengthof(hilo_parsed);
		if (hilo_parsed[i].key.hi_table != nullptr)
			pfree(hilo_parsed[i].key.hi_table);
		hilo_parsed[i].key = found ? k : HiloKey{};
		if (found && k.hi_table != nullptr)
			hilo_parsed[i].key.hi_table = MemoryContextStrdup(TopMemoryContext, k.hi_table);
		hilo_parsed[i].found = found;
		hilo_parsed[i].relid = relid;
	}
	if (!hilo_parsed[i].found)
		return false;
	*key = hilo_parsed[i].key;
	if (key->hi_table != nullptr)
		key->hi_table = pstrdup(key->hi_table);
	if (get_rel_relkind(key->seqid) != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("the Hi/Lo key of table %s names no sequence", hilo_relname(relid))));
	key->increment = hilo_seq_params(key->seqid).seqincrement;
	key->own = sequenceIsOwned(key->seqid, DEPENDENCY_AUTO, &owner_rel, &owner_col) &&
		owner_rel == relid;
	hilo_citus_window(key);
	return true;
}

void
hilo_require_key(Oid relid, HiloKey *key)
{
	if (!hilo_table_key(relid, key))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s has no Hi/Lo key", hilo_relname(relid)),
				 errdetail("A key is made by the table owner's CREATE TABLE or ALTER TABLE that sets "
						   "DEFAULT hilo_next('%s') on one of its columns (an event trigger of id_gen); "
						   "it is never made by a draw.", hilo_relname(relid)),
				 errhint("As the table's owner: ALTER TABLE %s ALTER COLUMN <column> SET DEFAULT hilo_next('%s'), "
						 "or, where event triggers do not run, SELECT hilo_create_key('%s', '<column>').",
						 hilo_relname(relid), hilo_relname(relid), hilo_relname(relid))));
}

char *
hilo_key_expression(const HiloKey *key)
{
	Oid			nsp = idgen_extension_schema();
	char		max_lo[16] = "NULL";

	if (key->max_lo > 0)
		snprintf(max_lo, sizeof(max_lo), "%d", (int) key->max_lo);
	return psprintf("%s.hilo_next(%s::pg_catalog.regclass, %s::pg_catalog.regclass, %s::pg_catalog.text, "
					"%s::pg_catalog.int4, %s, %s::pg_catalog.text)",
					quote_identifier(get_namespace_name(nsp)),
					quote_literal_cstr(hilo_quoted_name(key->relid)),
					quote_literal_cstr(hilo_quoted_name(key->seqid)),
					quote_literal_cstr(idgen::hilo_strategy_name(key->strategy)),
					max_lo, key->adaptive ? "true" : "false",
					key->hi_table ? quote_literal_cstr(key->hi_table) : "NULL");
}

Oid
hilo_rel_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

void
hilo_as_role_enter(HiloAsRole *st, Oid role)
{
	GetUserIdAndSecContext(&st->saved_user, &st->saved_sec);
	SetUserIdAndSecContext(role, st->saved_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	st->nest_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}

void
hilo_as_role_leave(HiloAsRole *st)
{
	SPI_finish();
	AtEOXact_GUC(true, st->nest_level);
	SetUserIdAndSecContext(st->saved_user, st->saved_sec);
}

void
hilo_spi(const char *sql, int expect)
{
	int			rc = SPI_execute(sql, false, 0);

	if (rc != expect)
		elog(ERROR, "id_gen: SPI failed (%d) running: %s", rc, sql);
}

int64
hilo_seq_next_value(Oid seqid, bool *called)
{
	HiloAsRole	st;
	int64		last_value;
	int64		next_v;
	bool		is_called;
	bool		isnull;

	hilo_as_role_enter(&st, hilo_rel_owner(seqid));
	hilo_spi(psprintf("SELECT last_value, is_called FROM %s", hilo_quoted_name(seqid)), SPI_OK_SELECT);
	last_value = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	is_called = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	hilo_as_role_leave(&st);
	if (called != nullptr)
		*called = is_called;
	if (!is_called)
		return last_value;
	if (pg_add_s64_overflow(last_value, hilo_seq_params(seqid).seqincrement, &next_v))
		return PG_INT64_MAX;
	return next_v;
}

/* Left "called" at the value before next_v where it can, as id_gen.hilo_keys shows keys. */
void
hilo_seq_move_to(Oid seqid, int64 next_v)
{
	HiloAsRole	st;
	FormData_pg_sequence seq = hilo_seq_params(seqid);
	int64		prev;
	bool		called = !pg_sub_s64_overflow(next_v, seq.seqincrement, &prev) && prev >= seq.seqmin;

	if ((called ? prev : next_v) > seq.seqmax)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("sequence %s cannot move to " INT64_FORMAT ", past its MAXVALUE " INT64_FORMAT,
						hilo_relname(seqid), next_v, seq.seqmax),
				 errdetail("Its next value must give a block above every id the Hi/Lo key gave."),
				 errhint("Nothing was changed.  Use a sequence with room above the key's ids.")));

	hilo_as_role_enter(&st, hilo_rel_owner(seqid));
	hilo_spi(psprintf("SELECT pg_catalog.setval(%s::pg_catalog.regclass, " INT64_FORMAT ", %s)",
					  quote_literal_cstr(hilo_quoted_name(seqid)), called ? prev : next_v,
					  called ? "true" : "false"), SPI_OK_SELECT);
	hilo_as_role_leave(&st);
}

void
hilo_draw_lock(Oid seqid, LOCKMODE mode)
{
	LockDatabaseObject(RelationRelationId, seqid, 1, mode);
}

void
hilo_draw_unlock(Oid seqid, LOCKMODE mode)
{
	UnlockDatabaseObject(RelationRelationId, seqid, 1, mode);
}
