/*
 * hilo/orm.cpp: Hi/Lo keys bound to an ORM's hi table row.
 *
 * Hibernate's and NHibernate's table Hi/Lo generators keep their hi value in
 * a row (hibernate_unique_key.next_hi, one row or one per entity chosen by a
 * where clause; Hibernate's MultipleHiLoPerTableGenerator keeps one row per
 * entity in hibernate_sequences).  To take a block they read the row with
 * SELECT ... FOR UPDATE, write it back with UPDATE ... SET hi = old + 1
 * WHERE hi = old (again if no row matched) and commit, in a transaction of
 * their own; the block is hi*(max_lo+1) .. hi*(max_lo+1)+max_lo (our
 * 'legacy' formula).  A key bound here does the same in the key worker
 * (HiloOp::orm_draw), so that rows keyed by the ORM and rows keyed by
 * hilo_next() share one key space, and a block is committed and flushed
 * before any of its ids is handed out, whatever the caller does next.
 *
 * The worker's whole transaction, commit included, runs as the calling role
 * in a security-restricted operation, so that its privileges (and row
 * security) apply as they would to the ORM, and its code (triggers,
 * policies, checks) runs with its rights and no more; PostgreSQL refuses
 * deferred triggers there.  The worker takes the row NOWAIT; while another
 * transaction holds it, the caller waits in its own backend and asks again
 * (hilo_orm_run_worker).  See the security model, hilo.hpp.  Names are quoted from the catalogs and the
 * row's key value is a parameter: no user text is spliced into SQL.
 *
 * The binding itself (a row of id_gen.hilo_orm_key) is written in the
 * caller's transaction: binding moves nothing (no row advanced, no
 * sequence), and no id is drawn through a binding until it has committed
 * (hilo_orm_draw), so a rollback of it undoes nothing already handed out.  A table
 * has either a sequence key (id_gen.hilo_key) or a binding, never both: both
 * are decided under the key lock.
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"

#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/latch.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

using idgen::HiloBlock;
using idgen::HiloStatus;
using idgen::HiloStrategy;

/* A binding as id_gen.hilo_orm_key holds it (strings palloc'd). */
struct HiloOrmBinding
{
	char	   *hi_table;		/* schema-qualified, quoted */
	char	   *hi_column;
	char	   *key_column;		/* NULL: the hi table has one row */
	char	   *key_value;
	HiloStrategy strategy;
	int32		max_lo;
	bool		written_here;	/* by this transaction (hilo_orm_draw refuses) */
};

/* How many times a block may land on ids already in the table. */
static const int kHiloOrmDrawAttempts = 3;

/* id_gen.hilo_orm_key, or InvalidOid while the extension's SQL is older than 1.3. */
static Oid
hilo_orm_key_table(void)
{
	Oid			nsp = get_namespace_oid("id_gen", true);

	return OidIsValid(nsp) ? get_relname_relid("hilo_orm_key", nsp) : InvalidOid;
}

/* relid's binding into *b (strings in the caller's memory context). */
static bool
hilo_orm_read(Oid relid, HiloOrmBinding *b)
{
	MemoryContext outer = CurrentMemoryContext;
	HiloPrivState st;
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		found = false;

	if (!OidIsValid(hilo_orm_key_table()))
		return false;
	hilo_priv_enter(&st);
	if (hilo_spi("SELECT hi_table, hi_column::text, key_column::text, key_value, strategy, max_lo, xmin "
				 "FROM id_gen.hilo_orm_key WHERE relid = $1", 1, types, values, SPI_OK_SELECT) > 0)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *strategy = SPI_getvalue(tup, desc, 5);
		char	   *key_column = SPI_getvalue(tup, desc, 3);
		char	   *key_value = SPI_getvalue(tup, desc, 4);

		b->hi_table = MemoryContextStrdup(outer, SPI_getvalue(tup, desc, 1));
		b->hi_column = MemoryContextStrdup(outer, SPI_getvalue(tup, desc, 2));
		b->key_column = key_column ? MemoryContextStrdup(outer, key_column) : nullptr;
		b->key_value = key_value ? MemoryContextStrdup(outer, key_value) : nullptr;
		if (!idgen::hilo_parse_strategy(strategy, &b->strategy))
			elog(ERROR, "id_gen.hilo_orm_key: unknown strategy \"%s\"", strategy);
		b->max_lo = (int32) pg_strtoint32(SPI_getvalue(tup, desc, 6));
		{
			bool		isnull;
			TransactionId xmin = DatumGetTransactionId(SPI_getbinval(tup, desc, 7, &isnull));

			b->written_here = !isnull && TransactionIdIsCurrentTransactionId(xmin);
		}
		found = true;
	}
	hilo_priv_leave(&st);
	return found;
}

bool
hilo_orm_bound(Oid relid, HiloStrategy *strategy, int64 *size)
{
	HiloOrmBinding b;

	if (!hilo_orm_read(relid, &b))
		return false;
	if (strategy != nullptr)
		*strategy = b.strategy;
	if (size != nullptr)
		*size = b.max_lo;
	return true;
}

/* Privileged SPI context, the key lock held (hilo/worker.cpp). */
void
hilo_orm_refuse_sequence_key(Oid relid)
{
	Oid			types[1] = {REGCLASSOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};

	if (!OidIsValid(hilo_orm_key_table()))
		return;
	if (hilo_spi("SELECT 1 FROM id_gen.hilo_orm_key WHERE relid = $1", 1, types, values, SPI_OK_SELECT) > 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the Hi/Lo key of table %s is bound to an ORM hi table", hilo_relname(relid)),
				 errdetail("Its blocks come from the hi table's row (hilo_bind_table), not from a sequence."),
				 errhint("hilo_next() draws from it; hilo_set_max_lo, hilo_bind, hilo_set_adaptive, hilo_set_floor and hilo_reserve do not apply to it.")));
}

/* ---------------------------------------------------------------------
 * Resolving a binding: names, types, privileges, the statements
 * --------------------------------------------------------------------- */

/* The column colname of hi table hioid: its type, else an ERROR. */
static Oid
hilo_orm_column(Oid hioid, const char *colname, const char *example)
{
	AttrNumber	att = get_attnum(hioid, colname);

	if (att == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation %s does not exist", colname, hilo_relname(hioid)),
				 errhint("Pass a column of the ORM's hi table, e.g. %s.", example)));
	return get_atttype(hioid, att);
}

/* Whether role may use colname of hioid for mode (the table or the column). */
static bool
hilo_orm_may(Oid hioid, const char *colname, Oid role, AclMode mode)
{
	return pg_class_aclcheck(hioid, role, mode) == ACLCHECK_OK ||
		pg_attribute_aclcheck(hioid, get_attnum(hioid, colname), role, mode) == ACLCHECK_OK;
}

/*
 * Resolves b for role: checks the hi table, its columns and role's
 * privileges, and fills req's statements.  Returns the hi table's OID.
 */
static Oid
hilo_orm_prepare(Oid relid, const HiloOrmBinding *b, Oid role, HiloRequest *req)
{
	List	   *names = idgen_qualified_name_list(b->hi_table);
	Oid			hioid = list_length(names) == 2 ?
		RangeVarGetRelid(makeRangeVarFromNameList(names), NoLock, true) : InvalidOid;
	char		kind = OidIsValid(hioid) ? get_rel_relkind(hioid) : '\0';
	char		persistence;
	Oid			hitype;
	char	   *where = (char *) "";
	const char *tbl;
	const char *col;

	if (kind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("hi table %s of the Hi/Lo key of table %s does not exist", b->hi_table, hilo_relname(relid)),
				 errhint("Create (or rename) the ORM's hi table back, with its row.")));
	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", get_rel_name(hioid)),
				 errhint("Pass the ORM's hi table, e.g. hibernate_unique_key.")));
	persistence = get_rel_persistence(hioid);
	if (persistence != RELPERSISTENCE_PERMANENT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("hi table %s is %s", hilo_relname(hioid),
						persistence == RELPERSISTENCE_TEMP ? "temporary" : "unlogged"),
				 errdetail("A crash empties an unlogged table and a temporary one ends with its session: the hi value would start again."),
				 errhint("Use a permanent table; ALTER TABLE ... SET LOGGED makes an unlogged one permanent.")));
	hitype = hilo_orm_column(hioid, b->hi_column, "next_hi of hibernate_unique_key");
	if (hitype != INT2OID && hitype != INT4OID && hitype != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of %s is of type %s, not an integer type", b->hi_column,
						hilo_relname(hioid), format_type_be(hitype)),
				 errhint("The hi value column must be smallint, integer or bigint, as the ORMs create it.")));
	if (!hilo_orm_may(hioid, b->hi_column, role, ACL_UPDATE) ||
		!hilo_orm_may(hioid, b->hi_column, role, ACL_SELECT) ||
		(b->key_column != nullptr && !hilo_orm_may(hioid, b->key_column, role, ACL_SELECT)))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", hilo_relname(hioid)),
				 errdetail("A block of this key advances the ORM's hi row, as the ORM does, with the privileges of the role drawing it."),
				 errhint("GRANT SELECT, UPDATE ON %s TO the role that generates the ids.", hilo_relname(hioid))));

	tbl = quote_qualified_identifier(get_namespace_name(get_rel_namespace(hioid)), get_rel_name(hioid));
	col = quote_identifier(b->hi_column);
	if (b->key_column != nullptr)
	{
		Oid			keytype = hilo_orm_column(hioid, b->key_column, "sequence_name of hibernate_sequences");

		where = psprintf(" AND %s OPERATOR(pg_catalog.=) CAST($1 AS %s)",
						 quote_identifier(b->key_column), format_type_be_qualified(keytype));
		if (strlen(b->key_value) >= sizeof(req->orm_key))
			ereport(ERROR,
					(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
					 errmsg("key value of the hi row is longer than %d bytes", (int) sizeof(req->orm_key) - 1)));
		strlcpy(req->orm_key, b->key_value, sizeof(req->orm_key));
		req->orm_has_key = true;
	}
	/*
	 * The ORMs' statements: lock the row, then move it on from the value
	 * read.  NOWAIT: the worker does not wait for a row another transaction
	 * holds (hilo_orm_draw waits instead).
	 */
	if (snprintf(req->orm_select, sizeof(req->orm_select),
				 "SELECT CAST(%s AS pg_catalog.int8) FROM %s WHERE true%s FOR UPDATE NOWAIT",
				 col, tbl, where) >= (int) sizeof(req->orm_select) ||
		snprintf(req->orm_update, sizeof(req->orm_update),
				 "UPDATE %s SET %s = $2 WHERE %s OPERATOR(pg_catalog.=) $3%s",
				 tbl, col, col, where) >= (int) sizeof(req->orm_update))
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("names of hi table %s are too long", hilo_relname(hioid))));
	return hioid;
}

/* The hint that shows the missing row's INSERT. */
static char *
hilo_orm_insert_hint(Oid hioid, const HiloOrmBinding *b)
{
	const char *tbl = hilo_relname(hioid);

	if (b->key_column == nullptr)
		return psprintf("Insert it as the ORM's schema tool does: INSERT INTO %s (%s) VALUES (0).",
						tbl, quote_identifier(b->hi_column));
	return psprintf("Insert it as the ORM's schema tool does: INSERT INTO %s (%s, %s) VALUES (%s, 0).",
					tbl, quote_identifier(b->key_column), quote_identifier(b->hi_column),
					quote_literal_cstr(b->key_value));
}

/* ---------------------------------------------------------------------
 * The draw, in the key worker
 * --------------------------------------------------------------------- */

/*
 * Advances req's hi row, as the calling role, the way the ORMs do: the
 * value read under FOR UPDATE, then an UPDATE conditional on it, again if
 * it matched no row.  Runs inside the worker's transaction, which the worker
 * runs as the calling role to its commit (hilo/worker.cpp).
 */
void
hilo_orm_draw_sql(HiloRequest *req)
{
	Oid			types[3] = {TEXTOID, INT8OID, INT8OID};
	Datum		values[3];
	char		nulls[3] = {'n', ' ', ' '};

	if (req->orm_has_key)
	{
		values[0] = CStringGetTextDatum(req->orm_key);
		nulls[0] = ' ';
	}
	else
		values[0] = (Datum) 0;
	for (int attempt = 0;; attempt++)
	{
		bool		isnull;
		int64		old;
		int64		next;

		CHECK_FOR_INTERRUPTS();
		/*
		 * Only a 55P03 raised while the row is taken means "busy, ask
		 * again"; one from the caller's code at the UPDATE or the commit is
		 * an error like any other.
		 */
		req->orm_row_busy = true;
		if (SPI_execute_with_args(req->orm_select, 3, types, values, nulls, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "id_gen: SPI failed running: %s", req->orm_select);
		req->orm_row_busy = false;
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the hi row of the Hi/Lo key of table %s is missing", hilo_relname(req->relid)),
					 errdetail("No row matched: %s", req->orm_select),
					 errhint("Insert the row with the ORM's initial hi value (0); nothing was handed out.")));
		if (SPI_processed > 1)
			ereport(ERROR,
					(errcode(ERRCODE_CARDINALITY_VIOLATION),
					 errmsg("the hi table of the Hi/Lo key of table %s has " UINT64_FORMAT " matching rows",
							hilo_relname(req->relid), (uint64) SPI_processed),
					 errdetail("The statement was: %s", req->orm_select),
					 errhint("Keep one row per key, as the ORM expects.")));
		old = hilo_spi_int8(1, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the hi row of the Hi/Lo key of table %s holds NULL", hilo_relname(req->relid)),
					 errhint("Set it to the ORM's initial hi value (0) or above.")));
		if (pg_add_s64_overflow(old, 1, &next))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("the hi row of the Hi/Lo key of table %s is exhausted", hilo_relname(req->relid))));
		values[1] = Int64GetDatum(next);
		values[2] = Int64GetDatum(old);
		if (SPI_execute_with_args(req->orm_update, 3, types, values, nulls, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "id_gen: SPI failed running: %s", req->orm_update);
		if (SPI_processed == 1)
		{
			req->orm_hi = old;
			break;
		}
		/* Someone moved the row between our statements (not under FOR UPDATE): again. */
		if (attempt >= 100)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not advance the hi row of the Hi/Lo key of table %s", hilo_relname(req->relid)),
					 errdetail("Its value changed under every one of 100 attempts."),
					 errhint("Retry.")));
	}
}

/* ---------------------------------------------------------------------
 * The draw, in the backend
 * --------------------------------------------------------------------- */

/*
 * Runs req's draw in the key worker.  While another transaction holds the
 * hi row (an ORM taking its hi, the role's own session), the worker gives
 * up at once rather than hold a worker slot for the role's lock; we wait
 * here, in our own backend, and ask again: 1 ms, doubling to 100 ms, for as
 * long as our lock_timeout allows (none: until the row is free or the
 * statement is cancelled, as a row lock wait would).
 */
static void
hilo_orm_run_worker(Oid relid, HiloRequest *req)
{
	TimestampTz start = GetCurrentTimestamp();
	long		wait_ms = 1;

	while (!hilo_run_worker(req, "draw a block of"))
	{
		if (LockTimeout > 0 &&
			TimestampDifferenceExceeds(start, GetCurrentTimestamp(), LockTimeout))
			ereport(ERROR,
					(errcode(ERRCODE_LOCK_NOT_AVAILABLE),
					 errmsg("could not draw a block of the Hi/Lo key of table %s: its hi row is locked",
							hilo_relname(relid)),
					 errdetail("Another transaction held the hi row longer than lock_timeout (%d ms).", LockTimeout),
					 errhint("Retry, or end the transaction holding the ORM's hi row.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		wait_ms = Min(wait_ms * 2, 100);
	}
}

bool
hilo_orm_draw(Oid relid, HiloStrategy strategy, int64 size, HiloBlock *block)
{
	HiloOrmBinding b;
	HiloRequest req;
	Oid			hioid;

	if (!hilo_orm_read(relid, &b) || b.strategy != strategy || b.max_lo != size)
		return false;

	/*
	 * A binding this transaction wrote (or a savepoint of it) may still be
	 * rolled back, while the blocks drawn through it are committed by the
	 * worker: after the rollback the key would start again as a sequence
	 * key and hand out the same ids (issue 16, defect 5).  As ALTER
	 * SEQUENCE's changes, the binding must commit before ids are drawn.
	 */
	if (b.written_here)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot draw ids of table %s: its Hi/Lo key was bound to hi table %s in this transaction",
						hilo_relname(relid), b.hi_table),
				 errdetail("Blocks drawn through the binding are committed at once; a rollback of the binding would let the key hand out their ids again."),
				 errhint("Commit the hilo_bind_table() first, then draw ids.")));
	/* The worker would write on behalf of a read-only transaction. */
	PreventCommandIfReadOnly("hilo_next()");
	memset(&req, 0, sizeof(req));
	req.op = HiloOp::orm_draw;
	req.relid = relid;
	req.caller = GetUserId();
	hioid = hilo_orm_prepare(relid, &b, req.caller, &req);
	if (hilo_created_here(hioid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hi table %s was created in this transaction", hilo_relname(hioid)),
				 errdetail("Blocks are drawn in a transaction of their own, which cannot see it."),
				 errhint("Commit the CREATE TABLE first.")));

	/*
	 * A transaction that locked or wrote rows of the hi table (FOR UPDATE,
	 * UPDATE, LOCK TABLE: anything above AccessShareLock), or of one of its
	 * partitions or inheritance children (which hold the rows), may hold
	 * the very row the worker must lock: it would wait for us while we wait
	 * for it.
	 */
	{
		List	   *tree = find_all_inheritors(hioid, NoLock, NULL);
		ListCell   *lc;

		foreach(lc, tree)
		{
			LOCKTAG		tag;

			SET_LOCKTAG_RELATION(tag, MyDatabaseId, lfirst_oid(lc));
			for (LOCKMODE mode = RowShareLock; mode <= AccessExclusiveLock; mode++)
			{
				if (idgen_lock_held_by_me(&tag, mode))
					ereport(ERROR,
							(errcode(ERRCODE_OBJECT_IN_USE),
							 errmsg("cannot draw a block of the Hi/Lo key of table %s: this transaction holds a lock on hi table %s",
									hilo_relname(relid), hilo_relname(hioid)),
							 errdetail("The block is taken by a background worker in a transaction of its own, which would wait for rows this transaction may have locked or written."),
							 errhint("Draw ids before locking or writing the hi table in this transaction, or in another transaction.")));
			}
		}
	}

	for (int attempt = 1;; attempt++)
	{
		HiloBlock	blk;

		hilo_orm_run_worker(relid, &req);
		switch (idgen::hilo_block(strategy, req.orm_hi, size, &blk))
		{
			case HiloStatus::ok:
				break;
			case HiloStatus::overflow:
				ereport(ERROR,
						(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
						 errmsg("Hi/Lo key of table %s is exhausted", hilo_relname(relid)),
						 errdetail("Hi value " INT64_FORMAT " with block size " INT64_FORMAT " (%s) would give ids above 9223372036854775807.",
								   req.orm_hi, size, idgen::hilo_strategy_name(strategy)),
						 errhint("The key has used up the bigint range; no id was handed out.")));
				break;
			case HiloStatus::below_one:
				/* hi 0 of classic with max_lo 1 (the block is {0}): take the next one. */
				if (attempt < kHiloOrmDrawAttempts)
					continue;
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("hi value " INT64_FORMAT " of the Hi/Lo key of table %s gives no ids above 0",
								req.orm_hi, hilo_relname(relid)),
						 errhint("Set the hi row to 0 or above.")));
				break;
			case HiloStatus::bad_size:
				elog(ERROR, "Hi/Lo key of table %u has block size " INT64_FORMAT, relid, size);
		}
		*block = blk;
		return true;
	}
}

/* ---------------------------------------------------------------------
 * hilo_bind_table()
 * --------------------------------------------------------------------- */

/*
 * hilo_bind_table(tbl, hi_table, hi_column, max_lo, strategy, key_column,
 * key_value): makes tbl's key, not used yet, draw its blocks from the ORM's
 * hi row (hilo_orm_draw).  The row must exist (the ORMs' schema tools insert
 * it) and be the only one matching; it is read here, not advanced.
 */
IDGEN_FUNCTION(hilo_bind_table)
{
	Oid			relid;
	HiloOrmBinding b;
	HiloOrmBinding old;
	char	   *strategy_text;
	HiloRequest req;
	Oid			hioid;
	HiloKeyRow	row;
	int			nest_level;

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
	memset(&b, 0, sizeof(b));
	b.hi_column = pstrdup(NameStr(*PG_GETARG_NAME(2)));
	b.max_lo = PG_GETARG_INT32(3);
	strategy_text = text_to_cstring(PG_GETARG_TEXT_PP(4));
	if (!PG_ARGISNULL(5))
	{
		b.key_column = pstrdup(NameStr(*PG_GETARG_NAME(5)));
		b.key_value = text_to_cstring(PG_GETARG_TEXT_PP(6));
	}
	if (!idgen::hilo_parse_strategy(strategy_text, &b.strategy) ||
		(b.strategy != HiloStrategy::legacy && b.strategy != HiloStrategy::classic))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("strategy \"%s\" does not apply to a hi table", strategy_text),
				 errdetail("A hi table row advances by one per block."),
				 errhint("Use legacy (Hibernate's and NHibernate's hilo: hi * (max_lo + 1)) or classic (hi * max_lo).")));
	hilo_check_max_lo(b.max_lo);
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);
	if (get_rel_relkind(hioid) == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", hioid),
				 errhint("Pass the ORM's hi table by name, e.g. 'hibernate_unique_key'.")));
	b.hi_table = hilo_quoted_name(hioid);
	memset(&req, 0, sizeof(req));
	(void) hilo_orm_prepare(relid, &b, GetUserId(), &req);
	if (hilo_created_here(hioid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("hi table %s was created in this transaction", hilo_relname(hioid)),
				 errdetail("Blocks are drawn in a transaction of their own, which cannot see it."),
				 errhint("Commit the CREATE TABLE (and its row) first.")));

	/* The row must be there, alone: read (not locked) as the caller. */
	nest_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	{
		char	   *sql = pnstrdup(req.orm_select, strlen(req.orm_select) - strlen(" FOR UPDATE NOWAIT"));
		Oid			types[1] = {TEXTOID};
		Datum		values[1] = {b.key_value ? CStringGetTextDatum(b.key_value) : (Datum) 0};
		char		nulls[1] = {b.key_value ? ' ' : 'n'};
		bool		isnull;

		if (SPI_execute_with_args(sql, 1, types, values, nulls, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "id_gen: SPI failed running: %s", sql);
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("hi table %s has no row for the Hi/Lo key of table %s", hilo_relname(hioid),
							hilo_relname(relid)),
					 errhint("%s", hilo_orm_insert_hint(hioid, &b))));
		if (SPI_processed > 1)
			ereport(ERROR,
					(errcode(ERRCODE_CARDINALITY_VIOLATION),
					 errmsg("hi table %s has " UINT64_FORMAT " rows for the Hi/Lo key of table %s",
							hilo_relname(hioid), (uint64) SPI_processed, hilo_relname(relid)),
					 errhint("Keep one row per key, as the ORM expects, or pass key_column and key_value.")));
		(void) hilo_spi_int8(1, &isnull);
		if (isnull)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the hi row of table %s holds NULL", hilo_relname(hioid)),
					 errhint("Set it to the ORM's initial hi value (0) or above.")));
	}
	SPI_finish();
	AtEOXact_GUC(true, nest_level);

	/* Decided under the key lock, as a key's creation is (hilo_create_key_sql). */
	hilo_lock_key(relid, ExclusiveLock);
	if (hilo_read_key(relid, &row, true))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table %s already has a Hi/Lo key drawing from sequence %s", hilo_relname(relid),
						row.seqname ? row.seqname : "?"),
				 errdetail("Ids of its blocks may be in use; the ORM's hi row knows nothing of them."),
				 errhint("Bind a table before its first hilo_next(), hilo_reserve() or hilo_set_max_lo().")));
	if (hilo_orm_read(relid, &old))
	{
		if (strcmp(old.hi_table, b.hi_table) == 0 && strcmp(old.hi_column, b.hi_column) == 0 &&
			old.strategy == b.strategy && old.max_lo == b.max_lo &&
			(old.key_column == nullptr) == (b.key_column == nullptr) &&
			(b.key_column == nullptr || (strcmp(old.key_column, b.key_column) == 0 &&
										 strcmp(old.key_value, b.key_value) == 0)))
			PG_RETURN_VOID();	/* already bound just so */
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the Hi/Lo key of table %s is already bound to hi table %s", hilo_relname(relid),
						old.hi_table),
				 errdetail("Blocks drawn under the binding may be in use; another row or formula could give their ids again."),
				 errhint("A binding is changed only with the table: it goes when the table is dropped.")));
	}
	{
		HiloPrivState st;
		Oid			types[7] = {REGCLASSOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, TEXTOID, INT4OID};
		Datum		values[7] = {ObjectIdGetDatum(relid), CStringGetTextDatum(b.hi_table),
			CStringGetTextDatum(b.hi_column),
			b.key_column ? CStringGetTextDatum(b.key_column) : (Datum) 0,
			b.key_value ? CStringGetTextDatum(b.key_value) : (Datum) 0,
			CStringGetTextDatum(idgen::hilo_strategy_name(b.strategy)), Int32GetDatum(b.max_lo)};
		char		nulls[7] = {' ', ' ', ' ', b.key_column ? ' ' : 'n', b.key_value ? ' ' : 'n', ' ', ' '};

		hilo_priv_enter(&st);
		if (SPI_execute_with_args("INSERT INTO id_gen.hilo_orm_key "
								  "(relid, hi_table, hi_column, key_column, key_value, strategy, max_lo) "
								  "VALUES ($1, $2, $3, $4, $5, $6, $7)", 7, types, values, nulls, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "id_gen: could not record the binding of table %u", relid);
		hilo_priv_leave(&st);
	}
	hilo_invalidate(relid);
	PG_RETURN_VOID();
}
