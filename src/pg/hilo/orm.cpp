/*
 * hilo/orm.cpp: keys whose ORM keeps its hi value in a table row.
 * Hibernate's and NHibernate's table generators read the row (SELECT ...
 * FOR UPDATE), write it back plus one, commit, and use the value read (our
 * 'legacy' formula).  hilo_bind_table() makes the table's own key serve
 * that row: a trigger of ours on the hi table (BEFORE INSERT OR UPDATE,
 * ENABLE ALWAYS, run as the writer) replaces what the ORM writes with the
 * key sequence's next value, which the ORM's next reader uses once; it
 * parks values only for the key whose default names its table as the hi
 * table, so another role's copy cannot draw from a key.  hilo_bind_table()
 * runs as the caller, the owner of both tables.  Each draw checks that the
 * trigger is still there (hilo_orm_check).
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"

#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/sequence.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

using idgen::HiloStatus;
using idgen::HiloStrategy;

/* The relation a qualified name denotes, or InvalidOid. */
static Oid
hilo_resolve(const char *name)
{
	List	   *names = idgen_qualified_name_list(name);

	if (list_length(names) != 2)
		return InvalidOid;
	return RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true);
}

/* The trigger of ours on hirel that parks seqid's values, or nullptr. */
static const Trigger *
hilo_park_trigger(Relation hirel, Oid seqid)
{
	TriggerDesc *td = hirel->trigdesc;

	for (int i = 0; td != nullptr && i < td->numtriggers; i++)
	{
		const Trigger *t = &td->triggers[i];
		const char *symbol = hilo_c_symbol(t->tgfoid);

		if (t->tgnargs >= 2 && symbol != nullptr && strcmp(symbol, "hilo_hi_row") == 0 &&
			hilo_resolve(t->tgargs[1]) == seqid)
			return t;
	}
	return nullptr;
}

void
hilo_orm_check(const HiloKey *key)
{
	Oid			hioid = hilo_resolve(key->hi_table);
	Relation	hirel = OidIsValid(hioid) ? try_relation_open(hioid, AccessShareLock) : nullptr;
	const Trigger *t = hirel != nullptr ? hilo_park_trigger(hirel, key->seqid) : nullptr;
	bool		ok = t != nullptr && t->tgenabled == TRIGGER_FIRES_ALWAYS &&
		TRIGGER_FOR_ROW(t->tgtype) && TRIGGER_FOR_BEFORE(t->tgtype) &&
		TRIGGER_FOR_INSERT(t->tgtype) && TRIGGER_FOR_UPDATE(t->tgtype);

	if (hirel != nullptr)
		relation_close(hirel, NoLock);
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the ORM's hi table %s of the Hi/Lo key of table %s does not take its values from the key",
						key->hi_table, hilo_relname(key->relid)),
				 errdetail(hirel == nullptr ? "The hi table does not exist." :
						   "The trigger of id_gen on it is missing or not enabled always."),
				 errhint("As the owner of both tables, bind it again with the same arguments "
						 "(SELECT hilo_bind_table('%s', '%s', ...)): the key moves above what the ORM counted meanwhile.",
						 hilo_relname(key->relid), key->hi_table)));
}

void
hilo_orm_repark(const HiloKey *key)
{
	Oid			hioid;
	Relation	hirel;
	const Trigger *t;
	char	   *sql;
	HiloAsRole	st;

	/* The hi table and its trigger are there, and stay so under its lock. */
	hilo_orm_check(key);
	hioid = hilo_resolve(key->hi_table);
	hirel = relation_open(hioid, RowExclusiveLock);
	t = hilo_park_trigger(hirel, key->seqid);
	sql = psprintf("UPDATE %s SET %s = %s%s%s%s%s", hilo_quoted_name(hioid), quote_identifier(t->tgargs[0]),
				   quote_identifier(t->tgargs[0]), t->tgnargs == 4 ? " WHERE " : "",
				   t->tgnargs == 4 ? quote_identifier(t->tgargs[2]) : "",
				   t->tgnargs == 4 ? "::pg_catalog.text OPERATOR(pg_catalog.=) " : "",
				   t->tgnargs == 4 ? quote_literal_cstr(t->tgargs[3]) : "");
	relation_close(hirel, NoLock);
	hilo_as_role_enter(&st, hilo_rel_owner(hioid));
	hilo_spi(sql, SPI_OK_UPDATE);
	hilo_as_role_leave(&st);
}

/* The trigger hilo_hi_row(hi_column, key sequence [, key_column, key_value]). */
IDGEN_FUNCTION(hilo_hi_row)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Relation	rel;
	HeapTuple	tup;
	const Trigger *tg;
	int			att;
	Oid			seqid;
	Oid			relid;
	int32		col;
	HiloKey		key;
	Oid			type;
	int64		v;
	Datum		value;
	bool		isnull = false;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(td->tg_event) || !TRIGGER_FIRED_FOR_ROW(td->tg_event) ||
		TRIGGER_FIRED_BY_DELETE(td->tg_event))
		elog(ERROR, "hilo_hi_row: must be fired BEFORE INSERT OR UPDATE FOR EACH ROW");
	rel = td->tg_relation;
	tg = td->tg_trigger;
	tup = TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? td->tg_newtuple : td->tg_trigtuple;
	if (tg->tgnargs != 2 && tg->tgnargs != 4)
		elog(ERROR, "hilo_hi_row: wrong arguments");
	if (tg->tgnargs == 4)
	{
		AttrNumber	katt = SPI_fnumber(RelationGetDescr(rel), tg->tgargs[2]);
		char	   *kv = katt > 0 ? SPI_getvalue(tup, RelationGetDescr(rel), katt) : nullptr;

		if (kv == nullptr || strcmp(kv, tg->tgargs[3]) != 0)
			return PointerGetDatum(tup);	/* another entity's row */
	}
	att = SPI_fnumber(RelationGetDescr(rel), tg->tgargs[0]);
	seqid = hilo_resolve(tg->tgargs[1]);
	if (att <= 0 || !OidIsValid(seqid) || !sequenceIsOwned(seqid, DEPENDENCY_AUTO, &relid, &col) ||
		!hilo_table_key(relid, &key) || key.seqid != seqid || key.hi_table == nullptr ||
		hilo_resolve(key.hi_table) != RelationGetRelid(rel))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" on %s parks no Hi/Lo key's values", tg->tgname,
						hilo_relname(RelationGetRelid(rel))),
				 errdetail("No table's key names %s as its ORM's hi table and %s as its sequence.",
						   hilo_relname(RelationGetRelid(rel)), tg->tgargs[1]),
				 errhint("hilo_bind_table() creates this trigger; drop one it did not create.")));
	hilo_lock_for_draw(&key, ShareLock);
	v = nextval_internal(seqid, false);
	hilo_draw_unlock(seqid, ShareLock);
	hilo_draw_durable(seqid);
	type = TupleDescAttr(RelationGetDescr(rel), att - 1)->atttypid;
	if (type == INT8OID)
		value = Int64GetDatum(v);
	else if (type == INT4OID && v <= PG_INT32_MAX)
		value = Int32GetDatum((int32) v);
	else if (type == INT2OID && v <= PG_INT16_MAX)
		value = Int16GetDatum((int16) v);
	else
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("hi value " INT64_FORMAT " does not fit column \"%s\" of %s", v, tg->tgargs[0],
						hilo_relname(RelationGetRelid(rel))),
				 errhint("ALTER TABLE %s ALTER COLUMN %s TYPE bigint.", hilo_relname(RelationGetRelid(rel)),
						 quote_identifier(tg->tgargs[0]))));
	return PointerGetDatum(heap_modify_tuple_by_cols(tup, RelationGetDescr(rel), 1, &att, &value, &isnull));
}

/*
 * hilo_bind_table(tbl, hi_table, hi_column, max_lo, strategy, key_column,
 * key_value): tbl's own key takes the ORM's formula, moves above every hi
 * the ORM read, every id it gave and the table's rows, and parks the row.
 */
IDGEN_FUNCTION(hilo_bind_table)
{
	Oid			relid;
	Oid			hioid;
	const char *hi_column;
	const char *key_column = nullptr;
	const char *key_value = nullptr;
	HiloStrategy strategy;
	int32		max_lo;
	HiloKey		key;
	HiloKey		bound;
	Oid			hitype;
	char	   *where = (char *) "";
	char	   *trigname;
	HiloAsRole	st;
	int64		row_hi;
	int64		next;
	int64		v;
	int64		parked;
	bool		isnull;
	bool		same;
	bool		enabled;
	const Trigger *trig;
	char	   *old_trigger;
	Relation	hirel;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table to bind, e.g. hilo_bind_table('orders', 'hibernate_unique_key', 'next_hi', 32767).");
	if (PG_ARGISNULL(1))
		hilo_null_argument("hi_table", "Pass the ORM's hi table, e.g. hibernate_unique_key.");
	if (PG_ARGISNULL(2))
		hilo_null_argument("hi_column", "Pass the column holding the hi value, e.g. next_hi.");
	if (PG_ARGISNULL(3))
		hilo_null_argument("max_lo", "Pass the ORM's max_lo (Hibernate's and NHibernate's default is 32767): a different one gives duplicate ids.");
	if (PG_ARGISNULL(4))
		hilo_null_argument("strategy", "Use legacy (Hibernate's and NHibernate's hilo) or classic.");
	if (PG_ARGISNULL(5) != PG_ARGISNULL(6))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key_column and key_value go together"),
				 errhint("Pass both to choose the hi row (e.g. sequence_name and the entity's table), or neither for a hi table of one row.")));
	relid = PG_GETARG_OID(0);
	hioid = PG_GETARG_OID(1);
	hi_column = NameStr(*PG_GETARG_NAME(2));
	max_lo = PG_GETARG_INT32(3);
	strategy = hilo_strategy_arg(PG_GETARG_TEXT_PP(4));
	if (!PG_ARGISNULL(5))
	{
		key_column = NameStr(*PG_GETARG_NAME(5));
		key_value = text_to_cstring(PG_GETARG_TEXT_PP(6));
	}
	if (strategy != HiloStrategy::legacy && strategy != HiloStrategy::classic)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("strategy \"%s\" does not apply to a hi table", idgen::hilo_strategy_name(strategy)),
				 errdetail("A hi table row advances by one per block."),
				 errhint("Use legacy (Hibernate's and NHibernate's hilo: hi * (max_lo + 1)) or classic (hi * max_lo).")));
	hilo_check_max_lo(max_lo);
	hilo_check_table(relid, true);
	if (get_rel_relkind(hioid) != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", get_rel_name(hioid) ? get_rel_name(hioid) : "?"),
				 errhint("Pass the ORM's hi table, e.g. hibernate_unique_key.")));
	if (get_rel_persistence(hioid) != RELPERSISTENCE_PERMANENT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("hi table %s is not a permanent table", hilo_relname(hioid)),
				 errdetail("A crash empties an unlogged table and a temporary one ends with its session: the hi value would start again."),
				 errhint("Use a permanent table; ALTER TABLE ... SET LOGGED makes an unlogged one permanent.")));
	if (get_attnum(hioid, hi_column) == InvalidAttrNumber ||
		(key_column != nullptr && get_attnum(hioid, key_column) == InvalidAttrNumber))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation %s does not exist",
						get_attnum(hioid, hi_column) == InvalidAttrNumber ? hi_column : key_column,
						hilo_relname(hioid)),
				 errhint("Pass a column of the ORM's hi table, e.g. next_hi.")));
	hitype = get_atttype(hioid, get_attnum(hioid, hi_column));
	if (hitype != INT2OID && hitype != INT4OID && hitype != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of %s is of type %s, not an integer type", hi_column,
						hilo_relname(hioid), format_type_be(hitype)),
				 errhint("The hi value column must be smallint, integer or bigint, as the ORMs create it.")));
	if (!idgen_rel_ownercheck(hioid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", hilo_relname(hioid)),
				 errdetail("Binding puts a trigger on the ORM's hi table, enabled always, and parks its row."),
				 errhint("Bind as a role that owns both tables (the ORM's schema owner, usually).")));

	/* The key, then the hi table: no ORM reads the row until we commit. */
	PreventCommandIfReadOnly("hilo_bind_table()");
	LockRelationOid(relid, AccessExclusiveLock);
	hilo_require_key(relid, &key);
	if (!key.own)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the Hi/Lo key of table %s draws from the application's sequence %s",
						hilo_relname(relid), hilo_relname(key.seqid)),
				 errhint("An ORM's hi table serves a key of the table's own.")));
	hilo_draw_lock(key.seqid, ExclusiveLock);
	LockRelationOid(hioid, ExclusiveLock);	/* waits for an ORM's SELECT ... FOR UPDATE too */
	hirel = relation_open(hioid, NoLock);
	same = key.hi_table != nullptr && hilo_resolve(key.hi_table) == hioid && key.strategy == strategy &&
		key.max_lo == max_lo;
	trig = hilo_park_trigger(hirel, key.seqid);
	old_trigger = trig != nullptr ? pstrdup(trig->tgname) : nullptr;
	enabled = trig != nullptr && trig->tgenabled == TRIGGER_FIRES_ALWAYS;
	relation_close(hirel, NoLock);
	if (same && enabled)
		PG_RETURN_VOID();		/* bound just so */
	/* A binding whose trigger was dropped or disabled is bound again, above what the ORM read. */
	if (key.hi_table != nullptr && !same)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the Hi/Lo key of table %s serves the ORM's hi table %s already",
						hilo_relname(relid), key.hi_table),
				 errdetail("The ORM may hold a hi it read there; another row or formula could give its ids again."),
				 errhint("A key serves one hi row, with the formula it was bound with.")));

	/* The row: there, alone, not NULL; every hi up to its value may be the ORM's. */
	if (key_column != nullptr)
		where = psprintf(" WHERE %s::pg_catalog.text OPERATOR(pg_catalog.=) %s", quote_identifier(key_column),
						 quote_literal_cstr(key_value));
	hilo_as_role_enter(&st, GetUserId());
	hilo_spi(psprintf("SELECT %s::pg_catalog.int8 FROM %s%s", quote_identifier(hi_column),
					  hilo_quoted_name(hioid), where), SPI_OK_SELECT);
	if (SPI_processed != 1)
		ereport(ERROR,
				(errcode(SPI_processed == 0 ? ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE : ERRCODE_CARDINALITY_VIOLATION),
				 errmsg("hi table %s has " UINT64_FORMAT " rows for the Hi/Lo key of table %s",
						hilo_relname(hioid), (uint64) SPI_processed, hilo_relname(relid)),
				 errhint("Keep exactly one row per key, as the ORM's schema tool inserts it (0), or pass key_column and key_value.")));
	row_hi = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	hilo_as_role_leave(&st);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the hi row of table %s holds NULL", hilo_relname(hioid)),
				 errhint("Set it to the ORM's initial hi value (0) or above.")));

	bound = key;
	bound.strategy = strategy;
	bound.max_lo = max_lo;
	bound.hi_table = hilo_quoted_name(hioid);
	next = hilo_seq_next_value(key.seqid);
	if (idgen::hilo_move(key.strategy, next, hilo_key_size(&key), strategy, next, max_lo, &v) != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("cannot bind the Hi/Lo key of table %s", hilo_relname(relid)),
				 errhint("Nothing was changed.")));
	v = Max(v, row_hi + 1);
	v = hilo_value_above(&bound, hilo_column_max(&bound), v);
	if (v > next)
		hilo_seq_move_to(key.seqid, v);
	hilo_write_defaults(&bound, false);

	/* The row gets the next value here, under the draw lock: the trigger may not draw now. */
	parked = nextval_internal(key.seqid, false);
	hilo_draw_durable(key.seqid);
	hilo_as_role_enter(&st, GetUserId());
	hilo_spi(psprintf("UPDATE %s SET %s = " INT64_FORMAT "%s", hilo_quoted_name(hioid), quote_identifier(hi_column),
					  parked, where), SPI_OK_UPDATE);
	trigname = psprintf("id_gen_hilo_%s", get_rel_name(relid));
	if (strlen(trigname) >= NAMEDATALEN)
		trigname[NAMEDATALEN - 1] = '\0';
	if (old_trigger != nullptr)
		hilo_spi(psprintf("DROP TRIGGER %s ON %s", quote_identifier(old_trigger), hilo_quoted_name(hioid)),
				 SPI_OK_UTILITY);
	hilo_spi(psprintf("CREATE TRIGGER %s BEFORE INSERT OR UPDATE ON %s FOR EACH ROW "
					  "EXECUTE FUNCTION %s.hilo_hi_row(%s, %s%s%s%s%s)",
					  quote_identifier(trigname), hilo_quoted_name(hioid),
					  quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid))),
					  quote_literal_cstr(hi_column), quote_literal_cstr(hilo_quoted_name(key.seqid)),
					  key_column ? ", " : "", key_column ? quote_literal_cstr(key_column) : "",
					  key_column ? ", " : "", key_column ? quote_literal_cstr(key_value) : ""),
			 SPI_OK_UTILITY);
	hilo_spi(psprintf("ALTER TABLE %s ENABLE ALWAYS TRIGGER %s", hilo_quoted_name(hioid),
					  quote_identifier(trigname)), SPI_OK_UTILITY);
	hilo_as_role_leave(&st);
	PG_RETURN_VOID();
}
