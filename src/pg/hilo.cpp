/*
 * hilo.cpp: hilo_next(table), hilo_set_max_lo() and hilo_bind(): the
 * PostgreSQL side of Hi/Lo keys (the formulas and the cache are in
 * src/core/hilo.cpp; the user-facing description is README.md, Hi/Lo keys).
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
 * Keys are created on first use, and changed by hilo_set_max_lo() and
 * hilo_bind(), by a short-lived background worker (the key worker), in a
 * transaction of its own, so that the caller rolling back cannot undo a key,
 * or a change of it, whose ids it already handed out: the sequences they
 * move are not rolled back either.  The one exception is a table created in
 * the caller's (uncommitted) transaction, which the worker cannot see: its
 * key is created and changed in that transaction and lives and dies with
 * the table.
 *
 * Cache coherence: every change of a key row (set_max_lo, bind) and every
 * key created in the caller's transaction sends a relcache invalidation for
 * the table; a change of a role or a role membership marks every entry.
 * The callbacks only mark entries stale (they never free), so pointers into
 * the cache stay valid while PostgreSQL code runs.  A stale entry rechecks
 * the role's privilege and rereads its row before its next use; its cached
 * block stays valid if the key still draws from the same sequence with the
 * same formula and block size.  Drawing a block takes the key lock, which
 * waits for a change of the key in progress to commit, then rereads the
 * row, so a block is never computed with a block size that is no longer
 * current; a change takes the key lock exclusively, so it waits for draws
 * in progress and moves the sequence past them.
 */
#include "pg/pg.hpp"

#include "pg/compat.hpp"
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
#include "common/int.h"
#include "executor/spi.h"
#include "postmaster/bgworker.h"
#include "storage/bufmgr.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/lmgr.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
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

/* What the key worker is asked to do. */
enum class HiloOp : uint8_t
{
	create_key,					/* a first use (hilo_next) */
	set_max_lo,					/* hilo_set_max_lo() */
	bind						/* hilo_bind() */
};

/*
 * A request to the key worker and its outcome, in a dynamic shared memory
 * segment that the caller creates and reads back once the worker exited.
 */
struct HiloRequest
{
	/* Set by the caller. */
	Oid			dboid;
	Oid			owner;			/* the extension owner: the worker runs as it */
	Oid			caller;			/* the calling role, whose privileges count */
	HiloOp		op;
	Oid			relid;
	int32		max_lo;
	Oid			seqid;			/* bind: the sequence */
	HiloStrategy strategy;		/* bind: the formula */
	/* Set by the worker. */
	bool		committed;
	bool		failed;			/* it raised the ERROR below */
	int			sqlerrcode;
	Oid			drop_seqid;		/* bind: the key's former own sequence, to drop */
	char		message[1024];
	char		detail[1024];
	char		hint[1024];
	int64		taken_to;		/* create_key: the data floor the caller read */
};

static HiloCache *hilo_cache = nullptr;

/*
 * A privilege check is recorded in an entry only if no invalidation that
 * could change its answer arrived while it ran: catalog reads during the
 * check may process one, whose mark the recorded check would overwrite.
 * Such invalidations (of hilo_checking, the table being checked, of all
 * relations, of a role or a membership) bump hilo_inval_count; others do
 * not, so that DDL on unrelated tables cannot make a check repeat.
 */
static uint64 hilo_inval_count = 0;
static Oid	hilo_checking = InvalidOid;

extern "C" PGDLLEXPORT void idgen_hilo_worker_main(Datum main_arg);
static Oid	hilo_apply(const HiloRequest *req);

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
		if (!idgen_rel_ownercheck(relid, GetUserId()))
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
 * The key lock of relid.  Creating or changing a key takes it in
 * ExclusiveLock until its transaction commits; a draw takes it in ShareLock
 * while it reads the key's row and calls nextval(), and releases it at
 * once, so that a change waits for draws in progress but never for the
 * transactions that drew.  A lock on an object whose class is
 * id_gen.hilo_key and whose id is the table: no SQL function or command
 * takes such a lock, so no other role can hold it (an advisory lock key,
 * which version 1.0 used, anyone can compute and hold).  In pg_locks:
 * locktype object, classid id_gen.hilo_key, objid the table.
 */
static void
hilo_lock_key(Oid relid, LOCKMODE mode)
{
	Oid			tableoid;
	Oid			indexoid;

	hilo_key_table(&tableoid, &indexoid);
	LockDatabaseObject(tableoid, relid, 0, mode);
}

static void
hilo_unlock_key(Oid relid, LOCKMODE mode)
{
	Oid			tableoid;
	Oid			indexoid;

	hilo_key_table(&tableoid, &indexoid);
	UnlockDatabaseObject(tableoid, relid, 0, mode);
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
 * there).  The key lock serialises concurrent first uses of one key; the
 * primary key is the last line of defence.  The new sequence starts so
 * that the first block lies above taken_to, the largest id the caller found
 * in the table.
 */
static void
hilo_create_key_sql(Oid relid, int32 max_lo, int64 taken_to)
{
	Oid			oidtype[1] = {OIDOID};
	Oid			regtype[1] = {REGCLASSOID};
	Datum		rel[1] = {ObjectIdGetDatum(relid)};
	int64		n;
	char		sql[256];

	hilo_lock_key(relid, ExclusiveLock);
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

/* DROP SEQUENCE seqid, if it still exists (privileged SPI context). */
static void
hilo_drop_seq(Oid seqid)
{
	if (get_rel_name(seqid) == nullptr)
		return;
	hilo_spi(psprintf("DROP SEQUENCE %s", hilo_quoted_name(seqid)), 0, NULL, NULL, SPI_OK_UTILITY);
}

/*
 * The key worker: runs one request (a first use's key creation, a
 * hilo_set_max_lo(), a hilo_bind()) in a transaction of its own, committed
 * before the caller continues.  So nothing the caller's transaction does
 * next (ROLLBACK, ROLLBACK TO SAVEPOINT, ROLLBACK PREPARED) can undo a key
 * or a change of it whose blocks may already be handed out, just as
 * nothing undoes a nextval() or a setval().  It runs as the extension
 * owner; the caller's privileges were checked by the caller, and are
 * checked again for the caller's role once the key is locked.  An ERROR is
 * logged and copied into the request, for the caller to raise as its own.
 */
void
idgen_hilo_worker_main(Datum main_arg)
{
	dsm_segment *seg;
	HiloRequest *req;

	BackgroundWorkerUnblockSignals();
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		proc_exit(0);			/* the caller gave up waiting */
	req = (HiloRequest *) dsm_segment_address(seg);
	BackgroundWorkerInitializeConnectionByOid(req->dboid, req->owner, 0);
	/* Never wait forever on a lock the waiting caller might hold. */
	SetConfigOption("lock_timeout", "30s", PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PG_TRY();
	{
		Oid			drop;

		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		drop = hilo_apply(req);

		/*
		 * A bind's former own sequence goes with the change, unless a
		 * transaction that drew from it is still open (perhaps the
		 * caller's): then the caller drops it, in its own transaction.
		 */
		if (OidIsValid(drop) && ConditionalLockRelationOid(drop, AccessExclusiveLock))
		{
			hilo_drop_seq(drop);
			drop = InvalidOid;
		}
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
		/* Durable before the caller draws under it, whatever synchronous_commit. */
		XLogFlush(XactLastCommitEnd);
		req->drop_seqid = drop;
		req->committed = true;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(TopMemoryContext);
		edata = CopyErrorData();
		req->sqlerrcode = edata->sqlerrcode;
		strlcpy(req->message, edata->message ? edata->message : "", sizeof(req->message));
		strlcpy(req->detail, edata->detail ? edata->detail : "", sizeof(req->detail));
		strlcpy(req->hint, edata->hint ? edata->hint : "", sizeof(req->hint));
		req->failed = true;
		EmitErrorReport();
		FlushErrorState();
		AbortCurrentTransaction();
		proc_exit(1);
	}
	PG_END_TRY();
	proc_exit(0);
}

/*
 * Runs req in the key worker and waits until the worker has exited; raises
 * the worker's ERROR, if any, as ours.  what ("create", "change") names the
 * operation in messages.  If we are cancelled while waiting, so is the
 * worker (which may have committed by then, as a cancelled COMMIT may).
 */
static void
hilo_run_worker(HiloRequest *req, const char *what)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	dsm_segment *seg;
	HiloRequest *shared;
	volatile BgwHandleStatus status = BGWH_STOPPED;

	req->dboid = MyDatabaseId;
	req->owner = hilo_extension_owner();
	req->committed = false;
	req->failed = false;
	req->drop_seqid = InvalidOid;
	seg = dsm_create(sizeof(HiloRequest), 0);
	shared = (HiloRequest *) dsm_segment_address(seg);
	memcpy(shared, req, sizeof(HiloRequest));

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = BGW_NEVER_RESTART;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "id_gen");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "idgen_hilo_worker_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "id_gen Hi/Lo key worker for table %u", req->relid);
	snprintf(worker.bgw_type, BGW_MAXLEN, "id_gen Hi/Lo key worker");
	worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(seg));
	worker.bgw_notify_pid = MyProcPid;

	if (!RegisterDynamicBackgroundWorker(&worker, &handle))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not start a background worker to %s the Hi/Lo key of table %s",
						what, hilo_relname(req->relid)),
				 errdetail("Keys are created and changed in transactions of their own, by a background worker."),
				 errhint("Raise max_worker_processes, or retry when fewer background workers run.")));
	PG_TRY();
	{
		status = WaitForBackgroundWorkerShutdown(handle);
	}
	PG_CATCH();
	{
		TerminateBackgroundWorker(handle);
		PG_RE_THROW();
	}
	PG_END_TRY();
	pfree(handle);
	if (status == BGWH_POSTMASTER_DIED)
		ereport(FATAL,
				(errcode(ERRCODE_ADMIN_SHUTDOWN),
				 errmsg("postmaster exited while a background worker changed a Hi/Lo key")));
	memcpy(req, shared, sizeof(HiloRequest));
	dsm_detach(seg);
	if (req->failed)
		ereport(ERROR,
				(errcode(req->sqlerrcode),
				 errmsg_internal("%s", req->message),
				 req->detail[0] ? errdetail_internal("%s", req->detail) : 0,
				 req->hint[0] ? errhint("%s", req->hint) : 0));
	if (!req->committed)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("could not %s the Hi/Lo key of table %s", what, hilo_relname(req->relid)),
				 errdetail("The background worker doing it exited without committing."),
				 errhint("The server log has the worker's error.")));
}

/*
 * True if relid (a table or a sequence) was created in this transaction:
 * the key worker cannot see it.
 */
static bool
hilo_created_here(Oid relid)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	bool		created_here;

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	created_here = rel->rd_createSubid != InvalidSubTransactionId || hilo_key_written_here(relid);
	relation_close(rel, NoLock);
	return created_here;
}

/*
 * Creates relid's key with block size max_lo (or repairs it): in the key
 * worker, or for a table (or a key row) created in this very transaction
 * (invisible to the worker) right here.  The largest id in the table is read
 * here, not in the worker, which could wait forever on a lock this
 * transaction holds (ALTER TABLE ... ADD COLUMN ... DEFAULT hilo_next() fills
 * the column under an exclusive lock); here the rows this transaction is
 * inserting count too.
 */
void
hilo_create_key(Oid relid, int32 max_lo)
{
	int64		taken_to;
	bool		complete;

	/* The worker would write on behalf of a read-only transaction. */
	PreventCommandIfReadOnly("hilo_next()");
	if (!hilo_data_max(relid, false, &taken_to, &complete))
		taken_to = 0;

	if (hilo_created_here(relid))
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
	{
		HiloRequest req;

		memset(&req, 0, sizeof(req));
		req.op = HiloOp::create_key;
		req.relid = relid;
		req.max_lo = max_lo;
		req.taken_to = taken_to;
		req.caller = GetUserId();
		hilo_run_worker(&req, "create");
	}
}

/* ---------------------------------------------------------------------
 * hilo_next
 * --------------------------------------------------------------------- */

#ifdef IDGEN_TEST_HOOKS
/*
 * Test builds only: a pause point.  With id_gen.test_wait_before_draw_flush
 * = n, the backend waits here until it can take pg_advisory_lock(n) (the
 * bigint form), which the test holds in another session; pg_locks shows it
 * waiting.  An ordinary heavyweight lock wait: interruptible, and gone
 * with the transaction.
 */
static void
hilo_test_wait(int key)
{
	LOCKTAG		tag;

	if (key == 0)
		return;
	SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, 0, (uint32) key, 1);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	LockRelease(&tag, ExclusiveLock, false);
}
#endif

/*
 * Rereads a stale entry's row.  Returns false (entry erased) if the key is
 * gone or now draws from another sequence or with another formula: its
 * cached block no longer belongs to the key.  A new block size empties the
 * block, and so does a block the table's ids have reached since it was
 * drawn (a bulk load, then hilo_set_floor, which sends the invalidation).
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
	if (hilo_row_size(&row) != e->size)
	{
		/*
		 * A block is used only under the block size it was drawn with.  A
		 * committed change moved the sequence above it, but a change made
		 * and rolled back in the transaction that created the table (the
		 * one kind of change the worker does not commit) did not: blocks
		 * drawn under the restored size may reach it.
		 */
		e->block.next = 1;
		e->block.last = 0;
		e->size = hilo_row_size(&row);
	}
	else if (hilo_block_reached(relid, &e->block))
	{
		e = hilo_cache->find(relid);
		e->block.next = 1;
		e->block.last = 0;
	}
	return true;
}

/*
 * Makes the value just drawn from seqid durable before any id of its block
 * is returned.  nextval() WAL-logs 32 values ahead and leaves the flush to
 * the transaction's commit; but a block serves later transactions (and the
 * drawing one may roll back or have no xid at all), and the record that
 * covers our value may be another backend's, not flushed yet: its
 * XLogFlush may still be running, or fail with a PANIC.  Flushing up to
 * the LSN of the sequence's page, which is at or past the record that
 * logged our value, covers both: after a crash no block handed out is drawn
 * again.  GetFlushRecPtr() is a read of shared memory, so the common case
 * (the record is durable already) costs a buffer pin and no I/O.  (The
 * key worker flushes its commit before it reports, so a change of the key
 * is durable before any id drawn under it.)
 */
static void
hilo_flush_draw(Oid seqid)
{
	Relation	rel = relation_open(seqid, NoLock);	/* locked by our caller */
	XLogRecPtr	lsn = InvalidXLogRecPtr;

	if (RelationNeedsWAL(rel))
	{
		Buffer		buf = ReadBuffer(rel, 0);

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		lsn = PageGetLSN(BufferGetPage(buf));
		UnlockReleaseBuffer(buf);
	}
	relation_close(rel, NoLock);
	if (lsn > GetFlushRecPtr(NULL))
		XLogFlush(lsn);
}

/*
 * A key's sequence must survive what its ids survive: a crash resets an
 * unlogged sequence and a temporary one ends with its session, after which
 * the key would hand out its ids again.  Checked when binding and at every
 * draw (ALTER SEQUENCE ... SET UNLOGGED may come after the bind).
 */
static void
hilo_require_permanent_seq(Oid seqid)
{
	char		persistence = get_rel_persistence(seqid);

	if (persistence != RELPERSISTENCE_PERMANENT)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("sequence %s is %s", hilo_relname(seqid),
						persistence == RELPERSISTENCE_TEMP ? "temporary" : "unlogged"),
				 errdetail("A crash resets an unlogged sequence and a temporary one ends with its session: "
						   "the Hi/Lo key would start again and hand out its ids again."),
				 errhint("Use a permanent sequence; ALTER SEQUENCE ... SET LOGGED makes an unlogged one permanent.")));
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
	 * The sequence lock nextval() takes anyway (to the end of the
	 * transaction), before reading the row: it waits for an ALTER SEQUENCE,
	 * and for a change of a key whose sequence others draw from too.  Then
	 * the key lock, held only while we draw: once we hold it, no change of
	 * the key is in progress, and rereading the row with the latest
	 * snapshot gives the block size every other draw uses.  Reading it
	 * here, once per block, rather than trusting invalidations to have
	 * arrived in the right order, keeps the argument simple.  A change
	 * waits for the draw to finish; it then moves the sequence past the
	 * value drawn (hilo_set_max_lo_sql), so the block stays unique.
	 */
	LockRelationOid(seqid, RowExclusiveLock);
	hilo_require_permanent_seq(seqid);
	hilo_lock_key(relid, ShareLock);
	if (!hilo_refresh(relid))
	{
		hilo_unlock_key(relid, ShareLock);
		return false;
	}

	for (int attempt = 0;; attempt++)
	{
		int64		v = nextval_internal(seqid, false);
		HiloBlock	block;
		HiloStatus	st;

#ifdef IDGEN_TEST_HOOKS
		/* Between the draw's WAL record (if it wrote one) and the flush. */
		hilo_test_wait(idgen_test_wait_before_draw_flush);
#endif
		hilo_flush_draw(seqid);

		e = hilo_cache->find(relid);
		st = idgen::hilo_block(e->strategy, v, e->size, &block);
		switch (st)
		{
			case HiloStatus::ok:
				if (!hilo_block_above_data(relid, seqid, e->strategy, e->size, &block))
					continue;	/* ids already in the table: draw again */
				e = hilo_cache->find(relid);
				e->block = block;
				hilo_unlock_key(relid, ShareLock);
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
			uint64		seen = hilo_inval_count;

			hilo_checking = relid;
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
			e->checked_role = seen == hilo_inval_count ? role : InvalidOid;
			continue;
		}
		else if (e->stale || e->checked_role != role)
		{
			uint64		seen = hilo_inval_count;

			hilo_checking = relid;
			hilo_check_table(relid, false);
			e = hilo_cache->find(relid);
			if (e->stale && !hilo_refresh(relid))
				continue;
			/* Something changed while we checked: check again. */
			if (seen != hilo_inval_count)
				continue;
			e = hilo_cache->find(relid);
			e->checked_role = role;
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
 * A change of a key (hilo_set_max_lo, hilo_bind) moves a sequence, which
 * no ROLLBACK undoes, and rewrites the key's row.  Were the row rewritten
 * in the caller's transaction, a rollback would restore it while the
 * sequence stays moved and blocks drawn under the new row stay cached and
 * handed out: blocks drawn later under the restored row would overlap
 * them.  So the change is made by the key worker and committed before the
 * function returns, like setval(): it stands whatever the caller's
 * transaction does next (hilo_change_key).  The caller checks privileges
 * first, for clear errors; the worker checks them again for the caller's
 * role once it holds the key, in case the key changed in between.
 */

/*
 * The sequences a change of a key locks, before the key lock, against
 * writers other than the key's draws: the key's sequence unless it is the
 * key's own (only the key's draws use that, and the key lock holds them
 * off), in ShareRowExclusiveLock as ALTER SEQUENCE takes it, so that no
 * nextval() of an application runs while it is read and moved; and the
 * sequence a bind moves the key to, likewise if the key is in use (else
 * only AccessShareLock, which keeps it from being dropped).  In OID order.
 */
struct HiloSeqLock
{
	Oid			seqid;
	LOCKMODE	mode;
};

static int
hilo_change_locks(const HiloKeyRow *row, Oid newseq, HiloSeqLock locks[2])
{
	int			n = 0;

	if (row != nullptr && !row->own_seq)
		locks[n++] = {row->seqid, ShareRowExclusiveLock};
	if (OidIsValid(newseq) && (row == nullptr || newseq != row->seqid))
		locks[n++] = {newseq, row != nullptr ? ShareRowExclusiveLock : AccessShareLock};
	if (n == 2 && locks[1].seqid < locks[0].seqid)
	{
		HiloSeqLock first = locks[1];

		locks[1] = locks[0];
		locks[0] = first;
	}
	return n;
}

/*
 * Locks relid's key for a change and reads its row under the locks: the
 * sequences first, then the key lock in ExclusiveLock (the order in which
 * draws take theirs, so that a draw and a change never wait for each other
 * in a circle).  The key lock waits for draws of the key in progress and
 * holds off later ones until the change commits.  Returns false if the key
 * has no row.
 */
static bool
hilo_lock_for_change(Oid relid, Oid newseq, HiloKeyRow *row)
{
	for (;;)
	{
		HiloKeyRow	seen;
		bool		found = hilo_read_key(relid, &seen);
		HiloSeqLock locks[2];
		int			n = hilo_change_locks(found ? &seen : nullptr, newseq, locks);

		for (int i = 0; i < n; i++)
			LockRelationOid(locks[i].seqid, locks[i].mode);
		hilo_lock_key(relid, ExclusiveLock);
		if (hilo_read_key(relid, row) == found &&
			(!found || (row->seqid == seen.seqid && row->own_seq == seen.own_seq)))
			return found;
		/* The key changed while we waited: take what it needs now. */
		hilo_unlock_key(relid, ExclusiveLock);
	}
}

/*
 * The privileges hilo_set_max_lo needs besides owning the table, for role:
 * moving a sequence others draw from needs UPDATE on it (setval() would),
 * and a pooled block size is the sequence's INCREMENT, which only its owner
 * may change.
 */
static void
hilo_check_set_max_lo_privileges(const HiloKeyRow *row, Oid role)
{
	if (!row->own_seq && pg_class_aclcheck(row->seqid, role, ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(row->seqid)),
				 errdetail("Changing the block size moves the key's sequence forward, as setval() does."),
				 errhint("Changing the block size of a bound key needs UPDATE on its sequence.")));
	if ((row->strategy == HiloStrategy::pooled || row->strategy == HiloStrategy::pooled_lo) &&
		!idgen_rel_ownercheck(row->seqid, role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of sequence %s", hilo_relname(row->seqid)),
				 errdetail("The block size of a %s key is its sequence's INCREMENT, which only the sequence's owner may change.",
						   idgen::hilo_strategy_name(row->strategy))));
}

/* Moving a key in use to seqid sets seqid forward: UPDATE, for role. */
static void
hilo_check_move_privilege(Oid seqid, Oid role)
{
	if (pg_class_aclcheck(seqid, role, ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(seqid)),
				 errdetail("Binding a key in use moves the sequence forward, as setval() does."),
				 errhint("Moving a key to a sequence needs UPDATE on the sequence.")));
}

/*
 * hilo_set_max_lo's change, as the extension owner in a privileged SPI
 * context (the key worker's transaction, or the caller's for a table
 * created in it): a key not used yet is created with block size max_lo;
 * else the sequence is moved so that the next block under max_lo starts
 * above every block drawn under the old size, and the row is rewritten.
 */
static void
hilo_set_max_lo_sql(Oid relid, int32 max_lo, Oid caller, int64 taken_to)
{
	HiloKeyRow	row;
	bool		pooled;
	int64		new_next_v = 0;

	if (!hilo_lock_for_change(relid, InvalidOid, &row))
	{
		hilo_create_key_sql(relid, max_lo, taken_to);
		CacheInvalidateRelcacheByRelid(relid);
		return;
	}
	if (hilo_row_size(&row) == max_lo)
		return;					/* nothing to change */
	hilo_check_set_max_lo_privileges(&row, caller);

	pooled = row.strategy == HiloStrategy::pooled || row.strategy == HiloStrategy::pooled_lo;
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
	CacheInvalidateRelcacheByRelid(relid);
}

/*
 * hilo_bind's change, in a privileged SPI context like hilo_set_max_lo_sql:
 * binds a key not used yet, or moves a key in use to seqid.  Both
 * sequences are locked, so no draw is in progress; the new sequence is
 * moved forward until its next block starts above every id the old key
 * could have handed out (it never moves back, so blocks an application
 * drew from it stay its own).  Returns the key's former own sequence, no
 * longer needed, for the caller to drop (InvalidOid if none).  Backends
 * holding a block of the old key drop it at their next call.
 */
static Oid
hilo_bind_sql(Oid relid, Oid seqid, HiloStrategy strategy, int32 max_lo, Oid caller)
{
	HiloKeyRow	row;
	int64		new_next_v = 0;
	/* The row names the sequence (hilo_key.hpp). */
	Oid			types[4] = {REGCLASSOID, TEXTOID, TEXTOID, INT4OID};
	Datum		values[4] = {ObjectIdGetDatum(relid), CStringGetTextDatum(hilo_seq_name(seqid)),
		CStringGetTextDatum(idgen::hilo_strategy_name(strategy)), Int32GetDatum(max_lo)};

	if (!hilo_lock_for_change(relid, seqid, &row))
	{
		hilo_spi("INSERT INTO id_gen.hilo_key (relid, seq, strategy, max_lo, own_seq) "
				 "VALUES ($1, $2, $3, $4, false)", 4, types, values, SPI_OK_INSERT);
		CacheInvalidateRelcacheByRelid(relid);
		return InvalidOid;
	}
	if (row.seqid == seqid && row.strategy == strategy && hilo_row_size(&row) == max_lo)
		return InvalidOid;		/* already bound just so */
	hilo_check_move_privilege(seqid, caller);

	if (idgen::hilo_move(row.strategy, hilo_seq_next_value(row.seqid), hilo_row_size(&row),
						 strategy, hilo_seq_next_value(seqid), max_lo, &new_next_v) != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("cannot bind the Hi/Lo key of table %s to sequence %s",
						hilo_relname(relid), hilo_relname(seqid)),
				 errdetail("Its blocks would have to start above ids that do not fit in bigint."),
				 errhint("Nothing was changed.")));
	hilo_seq_set_next(seqid, new_next_v);
	hilo_spi("UPDATE id_gen.hilo_key SET seq = $2, strategy = $3, max_lo = $4, own_seq = false "
			 "WHERE relid = $1", 4, types, values, SPI_OK_UPDATE);
	CacheInvalidateRelcacheByRelid(relid);
	return row.own_seq && row.seqid != seqid ? row.seqid : InvalidOid;
}

/* Runs req's operation (privileged SPI context, inside a transaction). */
static Oid
hilo_apply(const HiloRequest *req)
{
	switch (req->op)
	{
		case HiloOp::create_key:
			hilo_create_key_sql(req->relid, req->max_lo, req->taken_to);
			break;
		case HiloOp::set_max_lo:
			hilo_set_max_lo_sql(req->relid, req->max_lo, req->caller, req->taken_to);
			break;
		case HiloOp::bind:
			return hilo_bind_sql(req->relid, req->seqid, req->strategy, req->max_lo, req->caller);
	}
	return InvalidOid;
}

/* True if this transaction holds a lock on tag that conflicts with mode. */
static bool
hilo_holds_conflicting_lock(const LOCKTAG *tag, LOCKMODE mode)
{
	for (LOCKMODE held = AccessShareLock; held <= AccessExclusiveLock; held++)
	{
		if (DoLockModesConflict(held, mode) && idgen_lock_held_by_me(tag, held))
			return true;
	}
	return false;
}

/*
 * Runs a change of relid's key, described by req, given the row as we read
 * it (nullptr: no key yet).  For a table created in this transaction, which
 * the worker cannot see and whose key lives and dies with it, right here;
 * otherwise in the key worker, committed before we return.
 */
static void
hilo_change_key(HiloRequest *req, const HiloKeyRow *row)
{
	Oid			newseq = req->op == HiloOp::bind ? req->seqid : InvalidOid;
	HiloSeqLock locks[2];
	int			n;

	/* The worker would write on behalf of a read-only transaction. */
	PreventCommandIfReadOnly(req->op == HiloOp::bind ? "hilo_bind()" : "hilo_set_max_lo()");

	if (hilo_created_here(req->relid))
	{
		HiloPrivState st;
		Oid			drop;

		hilo_priv_enter(&st);
		drop = hilo_apply(req);
		if (OidIsValid(drop))
			hilo_drop_seq(drop);
		hilo_priv_leave(&st);
		hilo_invalidate(req->relid);
		return;
	}

	/* A binding that ROLLBACK does not undo cannot name what it would remove. */
	if (OidIsValid(newseq) && hilo_created_here(newseq))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot bind the Hi/Lo key of table %s to sequence %s, created in this transaction",
						hilo_relname(req->relid), hilo_relname(newseq)),
				 errdetail("A binding is committed at once, by a background worker, so that ROLLBACK cannot undo it; it cannot name a sequence this transaction may still roll back."),
				 errhint("Commit the CREATE SEQUENCE first, or create the table in the same transaction.")));

	/*
	 * The worker waits for the sequence locks of hilo_change_locks.  Should
	 * this transaction hold a conflicting one (it drew from a bound key or
	 * called nextval() on the sequence, both of which hold RowExclusiveLock
	 * to the end of the transaction, or it altered the sequence), the
	 * worker would wait for the very transaction that waits for it.
	 */
	n = hilo_change_locks(row, newseq, locks);
	for (int i = 0; i < n; i++)
	{
		LOCKTAG		tag;

		SET_LOCKTAG_RELATION(tag, MyDatabaseId, locks[i].seqid);
		if (hilo_holds_conflicting_lock(&tag, locks[i].mode))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("cannot change the Hi/Lo key of table %s: this transaction holds a lock on sequence %s",
							hilo_relname(req->relid), hilo_relname(locks[i].seqid)),
					 errdetail("The change is committed at once by a background worker, which would wait for this transaction's lock (taken by drawing ids from the sequence, nextval() or ALTER SEQUENCE)."),
					 errhint("Change the key in a transaction of its own, or before this transaction uses the sequence.")));
	}

	hilo_run_worker(req, "change");
	/* The worker's commit sent the invalidation: let our cache see it now. */
	AcceptInvalidationMessages();
	if (OidIsValid(req->drop_seqid))
	{
		/*
		 * A transaction that drew from the key's former own sequence was
		 * still open (perhaps ours): drop it here, waiting as DROP SEQUENCE
		 * does.  Should this transaction roll back, the sequence stays,
		 * unused.  A snapshot older than the worker's commit would still see
		 * the key use it, and the sql_drop trigger would refuse: leave it.
		 */
		if (IsolationUsesXactSnapshot())
			ereport(NOTICE,
					(errmsg("sequence %s, no longer used by the Hi/Lo key of table %s, was left in place",
							hilo_relname(req->drop_seqid), hilo_relname(req->relid)),
					 errhint("Drop it after this transaction, as the owner of extension id_gen.")));
		else
		{
			HiloPrivState st;

			hilo_priv_enter(&st);
			hilo_drop_seq(req->drop_seqid);
			hilo_priv_leave(&st);
		}
	}
}

/*
 * hilo_set_max_lo(tbl, max_lo): changes the block size and moves the
 * sequence so that the next block under the new size starts above every
 * block drawn under the old one (hilo_set_max_lo_sql).  Committed at once,
 * by the key worker (hilo_change_key).
 */
IDGEN_FUNCTION(hilo_set_max_lo)
{
	Oid			relid;
	int32		max_lo;
	HiloKeyRow	row;
	bool		found;
	HiloRequest req;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key changes, e.g. hilo_set_max_lo('orders', 100).");
	if (PG_ARGISNULL(1))
		hilo_null_argument("max_lo", "Pass the number of ids per block, e.g. hilo_set_max_lo('orders', 100).");
	relid = PG_GETARG_OID(0);
	max_lo = PG_GETARG_INT32(1);
	hilo_check_max_lo(max_lo);
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);

	found = hilo_read_key(relid, &row);
	if (found)
	{
		if (hilo_row_size(&row) == max_lo)
			PG_RETURN_VOID();	/* nothing to change */
		hilo_check_set_max_lo_privileges(&row, GetUserId());
	}
	memset(&req, 0, sizeof(req));
	req.op = HiloOp::set_max_lo;
	req.relid = relid;
	req.max_lo = max_lo;
	req.caller = GetUserId();
	/* A key it creates starts above the table's rows (read here, see hilo_create_key). */
	if (!found)
	{
		bool		complete;

		if (!hilo_data_max(relid, false, &req.taken_to, &complete))
			req.taken_to = 0;
	}
	hilo_change_key(&req, found ? &row : nullptr);
	PG_RETURN_VOID();
}

/*
 * hilo_bind(tbl, seq, strategy, max_lo): makes tbl's key draw from an
 * existing sequence with the formula of the application's ORM, so that rows
 * the application keys itself and rows keyed by DEFAULT hilo_next('tbl')
 * share one key space.  For the pooled strategies the block size is the
 * sequence's INCREMENT, read from pg_sequence: trusting an argument instead
 * is how EF Core users got duplicates.  A key already in use is moved
 * (hilo_bind_sql).  Committed at once, by the key worker (hilo_change_key).
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
	bool		found;
	HiloRequest req;

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
	hilo_require_permanent_seq(seqid);
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

	found = hilo_read_key(relid, &row);
	if (found)
	{
		if (row.seqid == seqid && row.strategy == strategy && hilo_row_size(&row) == max_lo)
			PG_RETURN_VOID();	/* already bound just so */
		hilo_check_move_privilege(seqid, GetUserId());
	}
	memset(&req, 0, sizeof(req));
	req.op = HiloOp::bind;
	req.relid = relid;
	req.seqid = seqid;
	req.strategy = strategy;
	req.max_lo = max_lo;
	req.caller = GetUserId();
	hilo_change_key(&req, found ? &row : nullptr);
	PG_RETURN_VOID();
}

/* Relcache invalidation of relid (InvalidOid: all): entries go stale. */
static void
hilo_relcache_callback(Datum arg, Oid relid)
{
	if (!OidIsValid(relid) || relid == hilo_checking)
		hilo_inval_count++;
	if (hilo_cache != nullptr)
		hilo_cache->mark_stale(relid);
}

/*
 * A role or a role membership changed (ALTER ROLE ... NOSUPERUSER, GRANT or
 * REVOKE role ...): no relcache invalidation tells the tables, yet any
 * role's INSERT privilege may have changed.  Every entry goes stale, so the
 * next call of every key checks again; such changes are rare, and the fast
 * path stays a lookup and an increment.
 */
static void
hilo_role_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	hilo_inval_count++;
	if (hilo_cache != nullptr)
		hilo_cache->mark_stale(0);
}

void
idgen_hilo_init(void)
{
	CacheRegisterRelcacheCallback(hilo_relcache_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, hilo_role_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHOID, hilo_role_callback, (Datum) 0);
}
