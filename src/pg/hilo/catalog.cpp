/*
 * hilo/catalog.cpp: what every Hi/Lo file asks of the catalogs: names,
 * argument and privilege checks, the key table and the key lock, and
 * privileged SQL run as the extension owner.
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"

#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_sequence.h"
#include "common/int.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/regproc.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
}

using idgen::HiloStrategy;

/*
 * OIDs of id_gen.hilo_key and its primary key index, looked up once per
 * backend: every draw locks and reads the key.  Forgotten when the table's
 * relcache entry is invalidated (DROP EXTENSION drops it) or all are.
 */
static Oid	hilo_key_oid = InvalidOid;
static Oid	hilo_key_index_oid = InvalidOid;

/* ---------------------------------------------------------------------
 * Names and checks
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

/* The increment (and optionally the minimum) of a sequence, from pg_sequence. */
int64
hilo_seq_increment(Oid seqid, int64 *min)
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

/* Whether a sequence wraps around at its end (CYCLE). */
static bool
hilo_seq_cycles(Oid seqid)
{
	HeapTuple	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(seqid));
	bool		cycles = false;

	if (HeapTupleIsValid(tup))
	{
		cycles = ((Form_pg_sequence) GETSTRUCT(tup))->seqcycle;
		ReleaseSysCache(tup);
	}
	return cycles;
}

/*
 * A key's sequence must survive what its ids survive: a crash resets an
 * unlogged sequence and a temporary one ends with its session, after which
 * the key would hand out its ids again; a CYCLE sequence wraps around and
 * gives its values again.  Checked when binding and at every draw (ALTER
 * SEQUENCE ... SET UNLOGGED or CYCLE may come after the bind).
 */
void
hilo_require_drawable_seq(Oid seqid)
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
	if (hilo_seq_cycles(seqid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("sequence %s is CYCLE", hilo_relname(seqid)),
				 errdetail("After it wraps around it gives its values again: the Hi/Lo key would hand out its blocks again."),
				 errhint("ALTER SEQUENCE %s NO CYCLE.", hilo_relname(seqid))));
}

/*
 * True if relid (a table or a sequence) was created in this transaction:
 * the key worker cannot see it.
 */
bool
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

/* ---------------------------------------------------------------------
 * The key table and the key lock
 * --------------------------------------------------------------------- */

/* OIDs of id_gen.hilo_key and its primary key index (cached). */
static void
hilo_key_table(Oid *tableoid, Oid *indexoid)
{
	if (!OidIsValid(hilo_key_oid) || !OidIsValid(hilo_key_index_oid))
	{
		Oid			nsp = get_namespace_oid("id_gen", true);
		Oid			table = OidIsValid(nsp) ? get_relname_relid("hilo_key", nsp) : InvalidOid;
		Oid			index = OidIsValid(nsp) ? get_relname_relid("hilo_key_pkey", nsp) : InvalidOid;

		if (!OidIsValid(table) || !OidIsValid(index))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("extension \"id_gen\" is not installed in this database"),
					 errhint("Run CREATE EXTENSION id_gen.")));
		hilo_key_oid = table;
		hilo_key_index_oid = index;
	}
	*tableoid = hilo_key_oid;
	*indexoid = hilo_key_index_oid;
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
 * locktype object, classid id_gen.hilo_key, objid the table, objsubid 0
 * (the maker lock, hilo.hpp, is objsubid 1).
 */
static void
hilo_key_object_lock(Oid relid, uint16 subid, LOCKMODE mode, bool lock)
{
	Oid			tableoid;
	Oid			indexoid;

	hilo_key_table(&tableoid, &indexoid);
	if (lock)
		LockDatabaseObject(tableoid, relid, subid, mode);
	else
		UnlockDatabaseObject(tableoid, relid, subid, mode);
}

void
hilo_lock_key(Oid relid, LOCKMODE mode)
{
	hilo_key_object_lock(relid, 0, mode, true);
}

void
hilo_unlock_key(Oid relid, LOCKMODE mode)
{
	hilo_key_object_lock(relid, 0, mode, false);
}

void
hilo_lock_key_maker(Oid relid)
{
	hilo_key_object_lock(relid, 1, ExclusiveLock, true);
}

void
hilo_unlock_key_maker(Oid relid)
{
	hilo_key_object_lock(relid, 1, ExclusiveLock, false);
}

/*
 * Looks up relid's key row with the latest snapshot, so that a row the
 * worker has just committed is seen even in a REPEATABLE READ transaction.
 * Fills row (if not NULL) with what the row says, without resolving the
 * sequence's name; sets *mine (if not NULL) to whether this transaction
 * wrote the row.  Returns false if there is none.
 */
static bool
hilo_fetch_key(Oid relid, HiloKeyRow *row, bool *mine)
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
		found = true;
		if (mine != NULL)
			*mine = TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup->t_data));
		if (row != NULL)
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
				row->seqname = get_rel_name(row->seqid) ? hilo_quoted_name(row->seqid) : nullptr;
			}
			else
			{
				row->seqid = InvalidOid;
				row->seqname = TextDatumGetCString(seq);
			}
			row->max_lo = DatumGetInt32(max_lo);
			row->own_seq = DatumGetBool(own);
			/* Added by the update to 1.3: a 1.2 installation has no such column. */
			row->adaptive = false;
			if (desc->natts >= 6 && !TupleDescAttr(desc, 5)->attisdropped)
			{
				bool		anull;
				Datum		adaptive = heap_getattr(tup, 6, desc, &anull);

				row->adaptive = !anull && DatumGetBool(adaptive);
			}
		}
	}
	systable_endscan(scan);
	UnregisterSnapshot(snap);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * Reads the key row of relid.  Returns false if there is none.  The row
 * names its sequence; a name that denotes no sequence here (a row copied by
 * logical replication, a bound sequence renamed) is an ERROR unless
 * missing_ok, which leaves seqid InvalidOid for the caller to repair.
 */
bool
hilo_read_key(Oid relid, HiloKeyRow *row, bool missing_ok)
{
	for (int attempt = 0;; attempt++)
	{
		HeapTuple	seq;

		if (!hilo_fetch_key(relid, row, NULL))
			return false;
		row->seqid = hilo_seq_resolve(row->seqname);
		if (!OidIsValid(row->seqid))
		{
			/*
			 * The row, read with the latest snapshot, may name a sequence
			 * created by a change committed since this backend last read
			 * the invalidation queue (a block size grown, a bind): read it,
			 * retry.
			 */
			AcceptInvalidationMessages();
			row->seqid = hilo_seq_resolve(row->seqname);
		}
		row->increment = 0;
		if (!OidIsValid(row->seqid))
			break;
		seq = SearchSysCache1(SEQRELID, ObjectIdGetDatum(row->seqid));
		if (HeapTupleIsValid(seq))
		{
			row->increment = ((Form_pg_sequence) GETSTRUCT(seq))->seqincrement;
			ReleaseSysCache(seq);
			break;
		}
		/*
		 * A growing block size committed since the row was read has dropped
		 * the sequence it named: read the row again.
		 */
		AcceptInvalidationMessages();
		if (attempt >= 3)
		{
			row->seqid = InvalidOid;
			break;
		}
	}
	if (!OidIsValid(row->seqid) && !missing_ok)
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

/*
 * Whether relid's key row was written by this transaction (hilo_bind in an
 * open transaction): the worker could not see it, and would wait forever on
 * its unique index entry; it is repaired in this transaction instead.
 */
bool
hilo_key_written_here(Oid relid)
{
	bool		mine = false;

	return hilo_fetch_key(relid, NULL, &mine) && mine;
}

/* ---------------------------------------------------------------------
 * Privileged SQL
 * --------------------------------------------------------------------- */

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
	idgen_become_extension_owner(&st->saved, true);
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
	idgen_restore_user(&st->saved);
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
 * value before when its range allows, so that id_gen.hilo_keys can show where the
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

/* Tells our own and (at commit) every backend's cache that relid changed. */
void
hilo_invalidate(Oid relid)
{
	CacheInvalidateRelcacheByRelid(relid);
	CommandCounterIncrement();
}

/* The key table dropped (DROP EXTENSION) or everything invalidated. */
void
hilo_catalog_relcache(Oid relid)
{
	if (!OidIsValid(relid) || relid == hilo_key_oid || relid == hilo_key_index_oid)
	{
		hilo_key_oid = InvalidOid;
		hilo_key_index_oid = InvalidOid;
	}
}
