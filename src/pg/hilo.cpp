/*
 * hilo.cpp: hilo_next(table), hilo_set_max_lo() and hilo_bind(): the
 * PostgreSQL side of Hi/Lo keys (the formulas and the cache are in
 * src/core/hilo.cpp; the user-facing description is doc/hilo.md).
 *
 * Where the state lives:
 *  - id_gen.hilo_key: one row per key (table oid, sequence, strategy,
 *    max_lo).  Written only here, as the extension owner.
 *  - one sequence per key: the source of hi values.  Sequences are
 *    non-transactional, WAL-logged and replicated, so a hi once drawn is
 *    never drawn again, whatever happens to the drawing transaction.
 *  - a backend-local cache (HiloCache) holding each key's current block:
 *    the fast path is a hash lookup and an increment, nothing else.
 *
 * Keys are created on first use by a short-lived background worker, in a
 * transaction of its own, so that the caller rolling back cannot undo a key
 * whose ids it already handed out.  The one exception is a table created in
 * the caller's (uncommitted) transaction, which the worker cannot see: its
 * key is created in that transaction and lives and dies with the table.
 *
 * Cache coherence: every change of a key row (set_max_lo, bind) and every
 * key created in the caller's transaction sends a relcache invalidation for
 * the table.  The callback only marks entries stale (it never frees), so
 * pointers into the cache stay valid while PostgreSQL code runs.  A stale
 * entry rechecks the role's privilege and rereads its row before its next
 * use; its cached block stays valid if the key still draws from the same
 * sequence with the same formula (hilo_set_max_lo moves the sequence above
 * every block drawn before).  Drawing a block first locks the sequence,
 * which waits for a concurrent hilo_set_max_lo to commit, then rereads the
 * row, so a block is never computed with a block size that is no longer
 * current.
 */
#include "pg/pg.hpp"

#include "pg/guard.hpp"
#include "pg/guc.hpp"
#include "pg/hilo_key.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_sequence.h"
#include "commands/extension.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
}

#include "core/hilo.hpp"

#include <climits>
#include <new>

using idgen::HiloBlock;
using idgen::HiloCache;
using idgen::HiloEntry;
using idgen::HiloStatus;
using idgen::HiloStrategy;

/* First key of the advisory lock that serialises creation of one key. */
#define HILO_ADVISORY_CLASS 1229211463	/* "IDGG" */

/* Arguments of the key-creating worker, passed in bgw_extra. */
struct HiloWorkerArgs
{
	Oid			dboid;
	Oid			relid;
	Oid			roleid;
	int32		max_lo;
	int64		taken_to;		/* the data floor the caller read */
};

static HiloCache *hilo_cache = nullptr;

extern "C" PGDLLEXPORT void idgen_hilo_worker_main(Datum main_arg);

/* ---------------------------------------------------------------------
 * Small helpers
 * --------------------------------------------------------------------- */

/* The table's name as regclass prints it: qualified when not visible. */
char *
hilo_relname(Oid relid)
{
	return DatumGetCString(DirectFunctionCall1(regclassout, ObjectIdGetDatum(relid)));
}

/* The schema-qualified, quoted name, for SQL text run by the extension. */
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

static void
hilo_ensure_cache(void)
{
	if (hilo_cache == nullptr)
		hilo_cache = idgen_guard([] { return new HiloCache(); });
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

/* The increment (and optionally the minimum) of a sequence, from pg_sequence. */
static int64
hilo_seq_increment(Oid seqid, int64 *min = nullptr)
{
	HeapTuple	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(seqid));
	int64		inc;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("sequence with OID %u does not exist", seqid)));
	inc = ((Form_pg_sequence) GETSTRUCT(tup))->seqincrement;
	if (min != nullptr)
		*min = ((Form_pg_sequence) GETSTRUCT(tup))->seqmin;
	ReleaseSysCache(tup);
	return inc;
}

/*
 * A table argument must name an existing, permanent table; the caller must
 * own it (set_max_lo, bind) or be allowed to INSERT into it (hilo_next).
 * Checked before any state is created, so nobody can burn or probe the key
 * space of a table they cannot write.
 */
void
hilo_check_table(Oid relid, bool need_owner)
{
	char		kind = get_rel_relkind(relid);

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
	if (need_owner)
	{
		if (!pg_class_ownercheck(relid, GetUserId()))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be owner of table %s", hilo_relname(relid)),
					 errhint("Only the owner of a table may change or bind its Hi/Lo key.")));
	}
	else if (pg_class_aclcheck(relid, GetUserId(), ACL_INSERT) != ACLCHECK_OK &&
			 pg_attribute_aclcheck_all(relid, GetUserId(), ACL_INSERT, ACLMASK_ANY) != ACLCHECK_OK)
		/* INSERT on any column will do: the DEFAULT fires for the others. */
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", hilo_relname(relid)),
				 errdetail("hilo_next() hands out a table's ids only to roles that may INSERT into it."),
				 errhint("GRANT INSERT ON %s TO the role that generates the ids.", hilo_relname(relid))));
}

/* OIDs of id_gen.hilo_key and its primary key index. */
static void
hilo_key_table(Oid *tableoid, Oid *indexoid)
{
	Oid			nsp = get_namespace_oid("id_gen", true);

	*tableoid = OidIsValid(nsp) ? get_relname_relid("hilo_key", nsp) : InvalidOid;
	*indexoid = OidIsValid(nsp) ? get_relname_relid("hilo_key_pkey", nsp) : InvalidOid;
	if (!OidIsValid(*tableoid) || !OidIsValid(*indexoid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"id_gen\" is not installed in this database"),
				 errhint("Run CREATE EXTENSION id_gen.")));
}

/*
 * Reads the key row of relid with the latest snapshot, so that a row the
 * worker has just committed is seen even in a REPEATABLE READ transaction.
 * Returns false if there is none.  The row names its sequence; a name that
 * denotes no sequence here (a row copied by logical replication, a bound
 * sequence renamed) is an ERROR unless missing_ok, which leaves seqid
 * InvalidOid for the caller to repair.
 */
bool
hilo_read_key(Oid relid, HiloKeyRow *row, bool missing_ok)
{
	Oid			tableoid;
	Oid			indexoid;
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;
	Snapshot	snap;
	bool		found = false;

	hilo_key_table(&tableoid, &indexoid);
	rel = table_open(tableoid, AccessShareLock);
	snap = RegisterSnapshot(GetLatestSnapshot());
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, indexoid, true, snap, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		TupleDesc	desc = RelationGetDescr(rel);
		bool		isnull[4];
		Datum		seq = heap_getattr(tup, 2, desc, &isnull[0]);
		Datum		strategy = heap_getattr(tup, 3, desc, &isnull[1]);
		Datum		max_lo = heap_getattr(tup, 4, desc, &isnull[2]);
		Datum		own = heap_getattr(tup, 5, desc, &isnull[3]);
		char	   *s;

		if (isnull[0] || isnull[1] || isnull[2] || isnull[3])
			elog(ERROR, "id_gen.hilo_key row of table %u has NULLs", relid);
		s = TextDatumGetCString(strategy);
		if (!idgen::hilo_parse_strategy(s, &row->strategy))
			elog(ERROR, "id_gen.hilo_key row of table %u has unknown strategy \"%s\"", relid, s);
		/* regclass until ALTER EXTENSION id_gen UPDATE TO '1.3' made it text */
		if (TupleDescAttr(desc, 1)->atttypid == REGCLASSOID)
		{
			row->seqid = DatumGetObjectId(seq);
			row->seqname = get_rel_name(row->seqid) ? hilo_seq_name(row->seqid) : nullptr;
			if (row->seqname == nullptr)
				row->seqid = InvalidOid;
		}
		else
		{
			row->seqname = TextDatumGetCString(seq);
			row->seqid = hilo_seq_resolve(row->seqname);
		}
		row->max_lo = DatumGetInt32(max_lo);
		row->own_seq = DatumGetBool(own);
		found = true;
	}
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	if (!found)
		return false;
	row->increment = 0;
	if (OidIsValid(row->seqid))
		row->increment = hilo_seq_increment(row->seqid);
	else if (!missing_ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence %s of the Hi/Lo key of table %s does not exist",
						row->seqname ? row->seqname : "?", hilo_relname(relid)),
				 row->own_seq
				 ? errhint("hilo_next('%s') or hilo_set_floor('%s') creates it again, above the table's rows.",
						   hilo_relname(relid), hilo_relname(relid))
				 : errhint("Bind the key again with hilo_bind() to the sequence the application uses.")));
	return true;
}

/* The block parameter of a key: max_lo, or the increment for pooled ones. */
int64
hilo_row_size(const HiloKeyRow *row)
{
	if (row->strategy == HiloStrategy::pooled || row->strategy == HiloStrategy::pooled_lo)
		return row->increment;
	return row->max_lo;
}

/* The role that owns the extension: keys and their sequences belong to it. */
static Oid
hilo_extension_owner(void)
{
	Oid			extoid = get_extension_oid("id_gen", false);
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			owner = InvalidOid;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (!OidIsValid(owner))
		elog(ERROR, "extension \"id_gen\" has no owner");
	return owner;
}

/*
 * Privileged SQL: runs as the extension owner with search_path pinned to
 * pg_catalog, pg_temp, so that neither the caller's privileges nor objects
 * the caller planted (a temp table named hilo_key, a function shadowing =)
 * take part.  Every name in the SQL text is schema-qualified and quoted or
 * built from integers; values are passed as parameters.
 */
void
hilo_priv_enter(HiloPrivState *st)
{
	Oid			owner = hilo_extension_owner();

	GetUserIdAndSecContext(&st->save_userid, &st->save_sec_context);
	SetUserIdAndSecContext(owner, st->save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	st->nest_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
}

void
hilo_priv_leave(HiloPrivState *st)
{
	SPI_finish();
	AtEOXact_GUC(true, st->nest_level);
	SetUserIdAndSecContext(st->save_userid, st->save_sec_context);
}

/* Runs one statement under SPI; returns the number of rows processed. */
uint64
hilo_spi(const char *sql, int nargs, Oid *types, Datum *values, int expect)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, NULL, false, 0);

	if (rc != expect)
		elog(ERROR, "id_gen: SPI failed (%d) running: %s", rc, sql);
	return SPI_processed;
}

/* An int8 from the first column of the first row of the last SPI result. */
int64
hilo_spi_int8(int col, bool *isnull)
{
	Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, isnull);

	return *isnull ? 0 : DatumGetInt64(d);
}

/*
 * The value nextval() would return next from a sequence (privileged SPI
 * context, sequence locked by the caller).
 */
int64
hilo_seq_next_value(Oid seqid)
{
	char	   *sql = psprintf("SELECT last_value, is_called FROM %s", hilo_quoted_name(seqid));
	int64		last_value;
	int64		next_v;
	bool		is_called;
	bool		isnull;

	hilo_spi(sql, 0, NULL, NULL, SPI_OK_SELECT);
	last_value = hilo_spi_int8(1, &isnull);
	is_called = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	if (!is_called)
		return last_value;
	if (pg_add_s64_overflow(last_value, hilo_seq_increment(seqid), &next_v))
		return PG_INT64_MAX;
	return next_v;
}

/*
 * Makes nextval() return next_v next.  The sequence is left "called" at the
 * value before when its range allows, so that hilo_keys can show where the
 * key stands.
 */
void
hilo_seq_set_next(Oid seqid, int64 next_v)
{
	int64		inc;
	int64		seqmin;
	int64		prev;
	bool		called;
	Oid			types[3] = {REGCLASSOID, INT8OID, BOOLOID};
	Datum		values[3];

	inc = hilo_seq_increment(seqid, &seqmin);
	called = !pg_sub_s64_overflow(next_v, inc, &prev) && prev >= seqmin;
	values[0] = ObjectIdGetDatum(seqid);
	values[1] = Int64GetDatum(called ? prev : next_v);
	values[2] = BoolGetDatum(called);
	hilo_spi("SELECT pg_catalog.setval($1, $2, $3)", 3, types, values, SPI_OK_SELECT);
}

/*
 * Creates the key of relid, with its own sequence, unless it exists (then
 * repairs it if its sequence is missing, shared or never drawn from: see
 * hilo_floor.cpp).  Runs inside a transaction as the extension owner (in
 * the worker, or privileged in the caller's transaction for a table created
 * there).  The advisory lock serialises concurrent first uses of one key;
 * the primary key is the last line of defence.  The new sequence starts so
 * that the first block lies above taken_to, the largest id the caller found
 * in the table.
 */
static void
hilo_create_key_sql(Oid relid, int32 max_lo, int64 taken_to)
{
	Oid			types[2] = {INT4OID, INT4OID};
	Datum		values[2];
	Oid			oidtype[1] = {OIDOID};
	Oid			regtype[1] = {REGCLASSOID};
	Datum		rel[1] = {ObjectIdGetDatum(relid)};
	int64		n;
	char		sql[256];

	values[0] = Int32GetDatum(HILO_ADVISORY_CLASS);
	values[1] = Int32GetDatum((int32) relid);
	hilo_spi("SELECT pg_catalog.pg_advisory_xact_lock($1, $2)", 2, types, values, SPI_OK_SELECT);
	if (hilo_spi("SELECT 1 FROM id_gen.hilo_key WHERE relid = $1", 1, regtype, rel, SPI_OK_SELECT) > 0)
	{
		hilo_repair_key_sql(relid, taken_to);
		return;
	}
	/* The table may have been dropped since the caller looked. */
	if (hilo_spi("SELECT 1 FROM pg_catalog.pg_class WHERE oid = $1", 1, oidtype, rel, SPI_OK_SELECT) == 0)
		return;

	/* A counter value whose name no sequence and no key row has taken. */
	n = hilo_new_seq_number();

	/* hi 0 gives ids 1 .. max_lo-1 (0 is skipped): the key starts at 1. */
	snprintf(sql, sizeof(sql),
			 "CREATE SEQUENCE id_gen.hilo_seq_" INT64_FORMAT " AS bigint MINVALUE 0 START 0 NO CYCLE", n);
	hilo_spi(sql, 0, NULL, NULL, SPI_OK_UTILITY);
	/* Reading where a key stands is harmless; drawing needs hilo_next(). */
	snprintf(sql, sizeof(sql), "GRANT SELECT ON SEQUENCE id_gen.hilo_seq_" INT64_FORMAT " TO PUBLIC", n);
	hilo_spi(sql, 0, NULL, NULL, SPI_OK_UTILITY);
	/* ... or above the rows the table already has. */
	snprintf(sql, sizeof(sql), "id_gen.hilo_seq_" INT64_FORMAT, n);
	hilo_place_new_seq(sql, max_lo, taken_to);
	snprintf(sql, sizeof(sql),
			 "INSERT INTO id_gen.hilo_key (relid, seq, strategy, max_lo, own_seq) "
			 "VALUES ($1, 'id_gen.hilo_seq_" INT64_FORMAT "'::pg_catalog.regclass, 'classic', $2, true) "
			 "ON CONFLICT (relid) DO NOTHING", n);
	{
		Oid			itypes[2] = {REGCLASSOID, INT4OID};
		Datum		ivalues[2] = {ObjectIdGetDatum(relid), Int32GetDatum(max_lo)};

		/*
		 * A hilo_bind() committed while we waited on its row: the key is
		 * bound, and our sequence is not needed.
		 */
		if (hilo_spi(sql, 2, itypes, ivalues, SPI_OK_INSERT) == 0)
		{
			snprintf(sql, sizeof(sql), "DROP SEQUENCE id_gen.hilo_seq_" INT64_FORMAT, n);
			hilo_spi(sql, 0, NULL, NULL, SPI_OK_UTILITY);
		}
	}
}

/*
 * The background worker that creates a key in a transaction of its own:
 * committed before the caller continues, so the caller's rollback cannot
 * undo it.  Any error ends the worker; the caller then finds no row.
 */
void
idgen_hilo_worker_main(Datum main_arg)
{
	HiloWorkerArgs args;

	memcpy(&args, MyBgworkerEntry->bgw_extra, sizeof(args));
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(args.dboid, args.roleid, 0);
	/* Never wait forever on a lock the waiting caller might hold. */
	SetConfigOption("lock_timeout", "30s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	hilo_create_key_sql(args.relid, args.max_lo, args.taken_to);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	proc_exit(0);
}

/* Starts the worker for relid and waits until it has finished. */
static void
hilo_create_key_in_worker(Oid relid, int32 max_lo, int64 taken_to)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	HiloWorkerArgs args;
	BgwHandleStatus status;

	args.dboid = MyDatabaseId;
	args.relid = relid;
	args.roleid = hilo_extension_owner();
	args.max_lo = max_lo;
	args.taken_to = taken_to;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "id_gen");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "idgen_hilo_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "id_gen Hi/Lo key creation for table %u", relid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "id_gen Hi/Lo key creation");
	worker.bgw_main_arg = (Datum) 0;
	worker.bgw_notify_pid = MyProcPid;
	StaticAssertStmt(sizeof(args) <= BGW_EXTRALEN, "bgw_extra too small");
	memcpy(worker.bgw_extra, &args, sizeof(args));

	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start a background worker to create the Hi/Lo key of table %s",
						hilo_relname(relid)),
				 errdetail("A key is created on first use in a transaction of its own, by a background worker."),
				 errhint("Raise max_worker_processes, or retry when fewer background workers run.")));
	status = WaitForBackgroundWorkerShutdown(handle);
	pfree(handle);
	if (status == BGWH_POSTMASTER_DIED)
		ereport(FATAL,
				(errcode(ERRCODE_ADMIN_SHUTDOWN),
				 errmsg("postmaster exited while creating a Hi/Lo key")));
}

/*
 * Creates relid's key with block size max_lo (or repairs it): in a worker,
 * or for a table (or a key row) created in this very transaction (invisible
 * to the worker) right here.  The largest id in the table is read here, not
 * in the worker, which could wait forever on a lock this transaction holds
 * (ALTER TABLE ... ADD COLUMN ... DEFAULT hilo_next() fills the column under
 * an exclusive lock); here the rows this transaction is inserting count too.
 */
void
hilo_create_key(Oid relid, int32 max_lo)
{
	Relation	rel;
	bool		created_here;
	int64		taken_to;
	bool		complete;

	/* The worker would write on behalf of a read-only transaction. */
	PreventCommandIfReadOnly("hilo_next()");
	rel = try_relation_open(relid, AccessShareLock);

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	created_here = rel->rd_createSubid != InvalidSubTransactionId || hilo_key_written_here(relid);
	relation_close(rel, NoLock);
	if (!hilo_data_max(relid, false, &taken_to, &complete))
		taken_to = 0;

	if (created_here)
	{
		HiloPrivState st;

		hilo_priv_enter(&st);
		hilo_create_key_sql(relid, max_lo, taken_to);
		hilo_priv_leave(&st);
		/* If this (sub)transaction aborts, our cached block goes stale. */
		CacheInvalidateRelcacheByRelid(relid);
		CommandCounterIncrement();
	}
	else
		hilo_create_key_in_worker(relid, max_lo, taken_to);
}

/* ---------------------------------------------------------------------
 * hilo_next
 * --------------------------------------------------------------------- */

/*
 * Rereads a stale entry's row.  Returns false (entry erased) if the key is
 * gone or now draws from another sequence or with another formula: its
 * cached block no longer belongs to the key.  A block the table's ids have
 * reached since it was drawn (a bulk load, then hilo_set_floor, which sends
 * the invalidation) is dropped.
 */
static bool
hilo_refresh(Oid relid)
{
	HiloKeyRow	row;
	HiloEntry  *e = hilo_cache->find(relid);
	bool		found;

	/* Cleared first: an invalidation arriving during the read re-marks it. */
	e->stale = false;
	found = hilo_read_key(relid, &row, true);
	e = hilo_cache->find(relid);
	if (!found || row.seqid != e->seqid || row.strategy != e->strategy)
	{
		hilo_cache->erase(relid);
		return false;
	}
	e->size = hilo_row_size(&row);
	if (hilo_block_reached(relid, &e->block))
	{
		e = hilo_cache->find(relid);
		e->block.next = 1;
		e->block.last = 0;
	}
	return true;
}

/*
 * Draws the next block of relid's key from its sequence.  Returns false if
 * the key changed underneath (entry erased; the caller starts over).
 */
static bool
hilo_draw(Oid relid)
{
	HiloEntry  *e = hilo_cache->find(relid);
	Oid			seqid = e->seqid;

	hilo_refuse_in_recovery();

	/*
	 * Conflicts with hilo_set_max_lo's (and ALTER SEQUENCE's) lock: once we
	 * hold it, no change of the key is in progress, and rereading the row
	 * with the latest snapshot gives the block size every other draw uses.
	 * Reading it here, once per block, rather than trusting invalidations
	 * to have arrived in the right order, keeps the argument simple.
	 */
	LockRelationOid(seqid, RowExclusiveLock);
	if (!hilo_refresh(relid))
		return false;

	for (int attempt = 0;; attempt++)
	{
		XLogRecPtr	before = XactLastRecEnd;
		int64		v = nextval_internal(seqid, false);
		XLogRecPtr	after = XactLastRecEnd;
		HiloBlock	block;
		HiloStatus	st;

		/*
		 * nextval() WAL-logs 32 values ahead but leaves the flush to the
		 * transaction's commit.  A block may serve many later transactions
		 * (and the drawing one may roll back), so make the draw durable
		 * now: after a crash, no block handed out can be drawn again.
		 * XactLastRecEnd is the end of the last record this backend
		 * inserted, so this costs a flush only when nextval wrote WAL, once
		 * per 32 blocks.
		 */
		if (after != before)
			XLogFlush(after);

		e = hilo_cache->find(relid);
		st = idgen::hilo_block(e->strategy, v, e->size, &block);
		switch (st)
		{
			case HiloStatus::ok:
				if (!hilo_block_above_data(relid, seqid, e->strategy, e->size, &block))
					continue;	/* ids already in the table: draw again */
				e = hilo_cache->find(relid);
				e->block = block;
				return true;
			case HiloStatus::overflow:
				ereport(ERROR,
						(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
						 errmsg("Hi/Lo key of table %s is exhausted", hilo_relname(relid)),
						 errdetail("Hi value " INT64_FORMAT " with block size " INT64_FORMAT " (%s) would give ids above 9223372036854775807.",
								   v, e->size, idgen::hilo_strategy_name(e->strategy)),
						 errhint("The key has used up the bigint range; no id was handed out.")));
				break;
			case HiloStatus::below_one:
				if (attempt < 2)
					continue;
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("sequence %s of the Hi/Lo key of table %s gives no ids above 0",
								hilo_relname(seqid), hilo_relname(relid)),
						 errdetail("Its value " INT64_FORMAT " gives a block entirely below 1.", v),
						 errhint("Move the sequence to a value >= 0 with setval().")));
				break;
			case HiloStatus::bad_size:
				elog(ERROR, "Hi/Lo key of table %u has block size " INT64_FORMAT, relid, e->size);
				break;
		}
	}
}

/* Everything but the fast path: first use, a stale entry, a used-up block. */
static int64
hilo_next_slow(Oid relid)
{
	Oid			role = GetUserId();

	hilo_ensure_cache();
	for (;;)
	{
		HiloEntry  *e = hilo_cache->find(relid);

		if (e == nullptr)
		{
			HiloKeyRow	row;

			hilo_check_table(relid, false);
			if (!hilo_read_key(relid, &row, true) || hilo_key_needs_repair(relid, &row))
			{
				/* A first use, or a key to repair (see hilo_floor.cpp). */
				hilo_refuse_in_recovery();
				hilo_create_key(relid, idgen_hilo_max_lo);
				if (!hilo_read_key(relid, &row) || hilo_key_needs_repair(relid, &row, false))
					ereport(ERROR,
							(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
							 errmsg("could not create the Hi/Lo key of table %s", hilo_relname(relid)),
							 errdetail("The background worker creating it failed or the table was dropped."),
							 errhint("The server log has the worker's error.")));
			}
			e = idgen_guard([&] { return hilo_cache->insert(relid); });
			e->seqid = row.seqid;
			e->strategy = row.strategy;
			e->size = hilo_row_size(&row);
			e->stale = false;
			e->checked_role = role;
		}
		else if (e->stale || e->checked_role != role)
		{
			hilo_check_table(relid, false);
			e = hilo_cache->find(relid);
			e->checked_role = role;
			if (e->stale && !hilo_refresh(relid))
				continue;
		}

		e = hilo_cache->find(relid);
		if (e->block.next > e->block.last && !hilo_draw(relid))
			continue;
		e = hilo_cache->find(relid);
		{
			int64_t		id;

			if (idgen::hilo_take(&e->block, &id))
				return id;
		}
	}
}

/*
 * hilo_next(tbl regclass): the next id of tbl's key.  The fast path is a
 * hash lookup and an increment: no table, sequence, lock or syscache.  The
 * lookup and the fields are noexcept plain data, so no guard is needed here.
 */
IDGEN_FUNCTION(hilo_next)
{
	Oid			relid;
	HiloEntry  *e;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table the ids are for, e.g. hilo_next('orders').");
	relid = PG_GETARG_OID(0);
	if (likely(hilo_cache != nullptr))
	{
		int64_t		id;

		e = hilo_cache->find(relid);
		if (likely(e != nullptr && !e->stale && e->checked_role == GetUserId() &&
				   idgen::hilo_take(&e->block, &id)))
			PG_RETURN_INT64(id);
	}
	PG_RETURN_INT64(hilo_next_slow(relid));
}

/* ---------------------------------------------------------------------
 * hilo_set_max_lo and hilo_bind
 * --------------------------------------------------------------------- */

static void
hilo_check_max_lo(int32 max_lo)
{
	if (max_lo <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_lo must be greater than zero, not %d", max_lo),
				 errhint("max_lo is the number of ids per block, e.g. 1000.")));
}

/* Tells our own and (at commit) every backend's cache that relid changed. */
void
hilo_invalidate(Oid relid)
{
	CacheInvalidateRelcacheByRelid(relid);
	CommandCounterIncrement();
}

/*
 * hilo_set_max_lo(tbl, max_lo): changes the block size and moves the
 * sequence so that the next block under the new size starts above every
 * block drawn under the old one.  The sequence lock (ShareRowExclusive,
 * like ALTER SEQUENCE) waits for draws in progress and makes later draws
 * wait for this transaction.
 */
IDGEN_FUNCTION(hilo_set_max_lo)
{
	Oid			relid;
	int32		max_lo;
	HiloKeyRow	row;
	HiloPrivState st;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key changes, e.g. hilo_set_max_lo('orders', 100).");
	if (PG_ARGISNULL(1))
		hilo_null_argument("max_lo", "Pass the number of ids per block, e.g. hilo_set_max_lo('orders', 100).");
	relid = PG_GETARG_OID(0);
	max_lo = PG_GETARG_INT32(1);
	hilo_check_max_lo(max_lo);
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);

	if (!hilo_read_key(relid, &row))
	{
		/* Not used yet: create it with this block size. */
		hilo_create_key(relid, max_lo);
		if (!hilo_read_key(relid, &row))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("could not create the Hi/Lo key of table %s", hilo_relname(relid)),
					 errhint("The server log has the background worker's error.")));
		if (hilo_row_size(&row) == max_lo)
		{
			hilo_invalidate(relid);
			PG_RETURN_VOID();
		}
	}

	LockRelationOid(row.seqid, ShareRowExclusiveLock);
	if (!hilo_read_key(relid, &row))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the Hi/Lo key of table %s was dropped concurrently", hilo_relname(relid))));
	if (hilo_row_size(&row) == max_lo)
		PG_RETURN_VOID();		/* nothing to change */
	if (!row.own_seq && pg_class_aclcheck(row.seqid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(row.seqid)),
				 errdetail("Changing the block size moves the key's sequence forward, as setval() does."),
				 errhint("Changing the block size of a bound key needs UPDATE on its sequence.")));
	if ((row.strategy == HiloStrategy::pooled || row.strategy == HiloStrategy::pooled_lo) &&
		!pg_class_ownercheck(row.seqid, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of sequence %s", hilo_relname(row.seqid)),
				 errdetail("The block size of a %s key is its sequence's INCREMENT, which only the sequence's owner may change.",
						   idgen::hilo_strategy_name(row.strategy))));

	hilo_priv_enter(&st);
	{
		bool		pooled = row.strategy == HiloStrategy::pooled ||
			row.strategy == HiloStrategy::pooled_lo;
		int64		new_next_v = 0;

		if (idgen::hilo_rebase(row.strategy, hilo_seq_next_value(row.seqid), hilo_row_size(&row),
							   max_lo, &new_next_v) != HiloStatus::ok)
			ereport(ERROR,
					(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
					 errmsg("cannot change the block size of the Hi/Lo key of table %s to %d",
							hilo_relname(relid), max_lo),
					 errdetail("Its next block would give ids above 9223372036854775807."),
					 errhint("Nothing was changed.")));

		if (pooled && row.increment != max_lo)
		{
			/* The block size of pooled strategies is the increment. */
			char	   *sql = psprintf("ALTER SEQUENCE %s INCREMENT BY %d",
									   hilo_quoted_name(row.seqid), max_lo);

			hilo_spi(sql, 0, NULL, NULL, SPI_OK_UTILITY);
		}
		hilo_seq_set_next(row.seqid, new_next_v);
		{
			Oid			types[2] = {REGCLASSOID, INT4OID};
			Datum		values[2] = {ObjectIdGetDatum(relid), Int32GetDatum(max_lo)};

			hilo_spi("UPDATE id_gen.hilo_key SET max_lo = $2 WHERE relid = $1", 2, types, values,
					 SPI_OK_UPDATE);
		}
	}
	hilo_priv_leave(&st);
	hilo_invalidate(relid);
	PG_RETURN_VOID();
}

/*
 * Moves a key in use to another sequence and formula.  Both sequences are
 * locked like ALTER SEQUENCE locks them, so no draw is in progress; the new
 * sequence is moved forward until its next block starts above every id the
 * old key could have handed out (it never moves back, so blocks an
 * application drew from it stay its own).  A key's own sequence, no longer
 * needed, is dropped.  Backends holding a block of the old key drop it at
 * their next call (its ids are simply not used).
 */
static void
hilo_rebind(Oid relid, Oid seqid, HiloStrategy strategy, int32 max_lo)
{
	HiloKeyRow	row;
	HiloPrivState st;
	int64		new_next_v = 0;

	if (pg_class_aclcheck(seqid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(seqid)),
				 errdetail("Binding a key in use moves the sequence forward, as setval() does."),
				 errhint("Moving a key to a sequence needs UPDATE on the sequence.")));
	if (!hilo_read_key(relid, &row))
		elog(ERROR, "Hi/Lo key of table %u vanished", relid);
	LockRelationOid(row.seqid, ShareRowExclusiveLock);
	if (seqid != row.seqid)
		LockRelationOid(seqid, ShareRowExclusiveLock);
	if (!hilo_read_key(relid, &row))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the Hi/Lo key of table %s was dropped concurrently", hilo_relname(relid))));

	hilo_priv_enter(&st);
	if (idgen::hilo_move(row.strategy, hilo_seq_next_value(row.seqid), hilo_row_size(&row),
						 strategy, hilo_seq_next_value(seqid), max_lo, &new_next_v) != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("cannot bind the Hi/Lo key of table %s to sequence %s",
						hilo_relname(relid), hilo_relname(seqid)),
				 errdetail("Its blocks would have to start above ids that do not fit in bigint."),
				 errhint("Nothing was changed.")));
	hilo_seq_set_next(seqid, new_next_v);
	{
		Oid			types[4] = {REGCLASSOID, REGCLASSOID, TEXTOID, INT4OID};
		Datum		values[4] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(seqid),
			CStringGetTextDatum(idgen::hilo_strategy_name(strategy)), Int32GetDatum(max_lo)};

		hilo_spi("UPDATE id_gen.hilo_key SET seq = $2, strategy = $3, max_lo = $4, own_seq = false "
				 "WHERE relid = $1", 4, types, values, SPI_OK_UPDATE);
	}
	if (row.own_seq && row.seqid != seqid)
	{
		char	   *sql = psprintf("DROP SEQUENCE %s", hilo_quoted_name(row.seqid));

		hilo_spi(sql, 0, NULL, NULL, SPI_OK_UTILITY);
	}
	hilo_priv_leave(&st);
	hilo_invalidate(relid);
}

/*
 * hilo_bind(tbl, seq, strategy, max_lo): makes tbl's key draw from an
 * existing sequence with the formula of the application's ORM, so that rows
 * the application keys itself and rows keyed by DEFAULT hilo_next('tbl')
 * share one key space.  For the pooled strategies the block size is the
 * sequence's INCREMENT, read from pg_sequence: trusting an argument instead
 * is how EF Core users got duplicates.  A key already in use is moved
 * (hilo_rebind).
 */
IDGEN_FUNCTION(hilo_bind)
{
	Oid			relid;
	Oid			seqid;
	char	   *strategy_text;
	HiloStrategy strategy;
	int64		increment;
	int32		max_lo;
	bool		pooled;
	HiloKeyRow	row;
	HiloPrivState st;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table to bind, e.g. hilo_bind('orders', 'orders_hilo_seq', 'pooled_lo').");
	if (PG_ARGISNULL(1))
		hilo_null_argument("sequence", "Pass the sequence the application draws from, e.g. hilo_bind('orders', 'orders_hilo_seq', 'pooled_lo').");
	if (PG_ARGISNULL(2))
		hilo_null_argument("strategy", "Use one of: classic, legacy, pooled_lo, pooled.");
	relid = PG_GETARG_OID(0);
	seqid = PG_GETARG_OID(1);
	strategy_text = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (!idgen::hilo_parse_strategy(strategy_text, &strategy))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown Hi/Lo strategy \"%s\"", strategy_text),
				 errhint("Use one of: %s.", idgen::hilo_strategy_list)));
	pooled = strategy == HiloStrategy::pooled || strategy == HiloStrategy::pooled_lo;
	if (!PG_ARGISNULL(3))
		hilo_check_max_lo(PG_GETARG_INT32(3));
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);

	if (get_rel_relkind(seqid) != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a sequence", get_rel_name(seqid) ? get_rel_name(seqid) : "?"),
				 errhint("Pass the sequence the application draws its hi values from.")));
	if (pg_class_aclcheck(seqid, GetUserId(), ACL_UPDATE | ACL_USAGE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(seqid)),
				 errhint("Binding a key to a sequence needs USAGE or UPDATE on the sequence.")));
	increment = hilo_seq_increment(seqid);
	if (increment <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sequence %s counts down (INCREMENT " INT64_FORMAT ")", hilo_relname(seqid), increment),
				 errhint("Hi/Lo needs an ascending sequence.")));

	if (pooled)
	{
		if (increment > INT_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("INCREMENT " INT64_FORMAT " of sequence %s is too large for a block", increment,
							hilo_relname(seqid)),
					 errhint("Use an increment of at most %d.", INT_MAX)));
		if (!PG_ARGISNULL(3) && PG_GETARG_INT32(3) != increment)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_lo %d does not match the INCREMENT " INT64_FORMAT " of sequence %s",
							PG_GETARG_INT32(3), increment, hilo_relname(seqid)),
					 errdetail("With strategy %s the block size is the sequence's increment.", strategy_text),
					 errhint("Omit max_lo, or ALTER SEQUENCE ... INCREMENT BY to the application's block size.")));
		max_lo = (int32) increment;
	}
	else
	{
		if (PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("strategy %s needs max_lo", strategy_text),
					 errhint("Pass the max_lo the application uses: a different one gives duplicate ids.")));
		max_lo = PG_GETARG_INT32(3);
	}

	if (hilo_read_key(relid, &row))
	{
		if (row.seqid == seqid && row.strategy == strategy && hilo_row_size(&row) == max_lo)
			PG_RETURN_VOID();	/* already bound just so */
		hilo_rebind(relid, seqid, strategy, max_lo);
		PG_RETURN_VOID();
	}

	hilo_priv_enter(&st);
	{
		Oid			types[4] = {REGCLASSOID, REGCLASSOID, TEXTOID, INT4OID};
		Datum		values[4] = {ObjectIdGetDatum(relid), ObjectIdGetDatum(seqid),
			CStringGetTextDatum(idgen::hilo_strategy_name(strategy)), Int32GetDatum(max_lo)};

		hilo_spi("INSERT INTO id_gen.hilo_key (relid, seq, strategy, max_lo, own_seq) "
				 "VALUES ($1, $2, $3, $4, false)", 4, types, values, SPI_OK_INSERT);
	}
	hilo_priv_leave(&st);
	hilo_invalidate(relid);
	PG_RETURN_VOID();
}

/* Relcache invalidation of relid (InvalidOid: all): entries go stale. */
static void
hilo_relcache_callback(Datum arg, Oid relid)
{
	if (hilo_cache != nullptr)
		hilo_cache->mark_stale(relid);
}

void
idgen_hilo_init(void)
{
	CacheRegisterRelcacheCallback(hilo_relcache_callback, (Datum) 0);
}
