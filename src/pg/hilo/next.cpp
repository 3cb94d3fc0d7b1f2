/*
 * hilo/next.cpp: hilo_next() and the backend's cache of blocks, one per table
 * (own key) or ORM sequence, as the caller (locks: hilo.hpp).  A block goes
 * as nextval()'s cached values go: with a new relfilenode of its sequence
 * (seen through an invalidation), setval() and DISCARD SEQUENCES in this
 * backend, and the abort of the (sub)transaction that made its relfilenode.
 */
#include "pg/pg.hpp"

#include "pg/compat.hpp"
#include "pg/guard.hpp"
#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"
#include "pg/node_identity.hpp"

extern "C" {
#include "access/relation.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_sequence.h"
#include "commands/sequence.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

using idgen::HiloBlock;
using idgen::HiloCache;
using idgen::HiloEntry;
using idgen::HiloStatus;
using idgen::HiloStrategy;

static HiloCache *hilo_cache = nullptr;

/* A privilege check is recorded only if no invalidation that could change it arrived meanwhile. */
static uint64 hilo_inval_count = 0;
static Oid	hilo_checking = InvalidOid;

/*
 * Counts the invalidations that may move a key (relcache, pg_sequence: ALTER SEQUENCE ...
 * OWNED BY sends only the latter); each also forgets the key memo.  A draw reads pg_depend
 * again only when one arrived between finding the key and locking its sequence.
 */
static uint64 hilo_key_changes = 0;

#ifdef IDGEN_TEST_HOOKS
/* Test builds only: waits until it can take pg_advisory_lock(key) (bigint form). */
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

idgen::HiloNodeRange
hilo_own_range(void)
{
	idgen::node_identity::Resolved w;

	if (!idgen_hilo_node_ranges)
		return idgen::hilo_node_range(-1);
	w = idgen_node_worker(idgen::kHiloMaxNode);
	if (w.source == idgen::node_identity::Source::Default || w.status != idgen::node_identity::Status::Ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this node has no Hi/Lo range: id_gen.hilo_node_ranges is on but id_gen.worker_id is not set"),
				 errhint("Set id_gen.worker_id on this node to a number no other node uses, or turn id_gen.hilo_node_ranges off.")));
	return idgen::hilo_node_range(w.id);
}

/*
 * The sequence's data page: its LSN, and last_value and is_called into *d.  forget: under
 * wal_level = minimal a relfilenode made in this transaction is not WAL-logged but written
 * whole at the commit, with the count of values nextval() believes pre-logged, which would
 * let that many blocks be drawn after the commit with no record a crash could bring back;
 * zeroing it makes the first draw after the commit write its record.
 */
static XLogRecPtr
hilo_seq_page(Relation seq, FormData_pg_sequence_data *d, bool forget = false)
{
	Buffer		buf = ReadBuffer(seq, 0);
	Page		page;
	HeapTupleHeader th;
	XLogRecPtr	lsn;

	LockBuffer(buf, forget ? BUFFER_LOCK_EXCLUSIVE : BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	th = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, FirstOffsetNumber));
	if (forget)
	{
		((Form_pg_sequence_data) ((char *) th + th->t_hoff))->log_cnt = 0;
		MarkBufferDirty(buf);
	}
	if (d != nullptr)
		*d = *(Form_pg_sequence_data) ((char *) th + th->t_hoff);
	lsn = PageGetLSN(page);
	UnlockReleaseBuffer(buf);
	return lsn;
}

/* A WARNING where id_gen.headroom says warning or critical: once per key and level a minute. */
#define HILO_WARN_AGAIN_MS 60000

static Oid	warned_relid = InvalidOid;
static int	warned_level = 0;
static TimestampTz warned_at = 0;

static void
hilo_warn_near_end(Oid relid, bool own, int64 first, int64 last, const HiloBlock *block)
{
	double		used;
	int			level;
	TimestampTz now;

	if (last < first)
		return;
	used = ((double) block->last - (double) first + 1) / ((double) last - (double) first + 1);
	level = used * 100.0 >= idgen_headroom_critical_percent ? 2 :
		used * 100.0 >= idgen_headroom_warning_percent ? 1 : 0;
	if (level == 0)
		return;
	now = GetCurrentTimestamp();
	if (relid == warned_relid && level <= warned_level &&
		!TimestampDifferenceExceeds(warned_at, now, HILO_WARN_AGAIN_MS))
		return;
	warned_relid = relid;
	warned_level = level;
	warned_at = now;
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("Hi/Lo %s %s has used %.1f%% of its ids", own ? "key of table" : "sequence",
					hilo_relname(relid), used * 100.0),
			 errdetail("Its ids end at " INT64_FORMAT "; the block just drawn ends at " INT64_FORMAT ".",
					   last, block->last),
			 errhint("id_gen.headroom shows every key's headroom; id_gen.headroom_warning_percent "
					 "and id_gen.headroom_critical_percent set the points of this warning.")));
}

/* What a draw learnt about the sequence besides its block. */
struct HiloDrawn
{
	Oid			seqid;
	uint32		filenode;
	bool		tentative;		/* a relfilenode of this transaction */
	bool		durable;		/* in: flush WAL up to the block's sequence page */
};

/*
 * One block of relid's key (own) or of the ORM sequence relid: lock the sequence, read its
 * pg_sequence row and data, nextval.  Blocks lie at or above max(MINVALUE, 1).
 */
static HiloBlock
hilo_draw(Oid relid, bool own, HiloStrategy strategy, int32 max_lo, HiloDrawn *out)
{
	for (int attempt = 0;; attempt++)
	{
		uint64		changes = hilo_key_changes;
		AttrNumber	attnum = InvalidAttrNumber;
		Oid			owner_rel;
		int32		owner_col;
		Oid			seqid = own ? hilo_table_key(relid, &attnum) : relid;
		Relation	seq;
		HeapTuple	tup;
		FormData_pg_sequence params;
		FormData_pg_sequence_data data;
		int64		v;
		HiloBlock	block;
		HiloStatus	st;

#ifdef IDGEN_TEST_HOOKS
		/* Between finding the key and locking its sequence. */
		hilo_test_wait(idgen_test_wait_before_draw_lock);
#endif
		seq = try_relation_open(seqid, RowExclusiveLock);	/* as nextval() */
		if (seq == nullptr && !own)
			ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE), errmsg("sequence with OID %u does not exist", seqid),
							errhint("It was dropped: name in the default the sequence the application draws from.")));
		/* OWNED BY lives in pg_depend: read it again if an invalidation came since the key was found. */
		if (seq == nullptr ||
			(own && changes != hilo_key_changes &&
			 !(sequenceIsOwned(seqid, DEPENDENCY_AUTO, &owner_rel, &owner_col) &&
			   owner_rel == relid && owner_col == attnum)))
		{
			/* Dropped while we waited for its lock, or OWNED BY changed: find the key again. */
			if (seq != nullptr)
				relation_close(seq, NoLock);
			hilo_forget_key(relid);
			if (attempt < 2)
				continue;
			elog(ERROR, "id_gen: the Hi/Lo key of table %u keeps changing", relid);
		}
		if (seq->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("sequence %s is not logged", hilo_relname(seqid)),
					 errdetail("A crash resets an unlogged sequence and a temporary one ends with its session: "
							   "its Hi/Lo blocks would come again."),
					 errhint("ALTER SEQUENCE %s SET LOGGED (ALTER TABLE ... SET UNLOGGED makes a table's sequences unlogged too).",
							 hilo_relname(seqid))));
		tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(seqid));
		if (!HeapTupleIsValid(tup))
			elog(ERROR, "cache lookup failed for sequence %u", seqid);
		params = *(Form_pg_sequence) GETSTRUCT(tup);
		ReleaseSysCache(tup);
		if (params.seqcycle)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("sequence %s is CYCLE", hilo_relname(seqid)),
					 errdetail("After it wraps around it gives its values again: its Hi/Lo blocks would come again."),
					 errhint("ALTER SEQUENCE %s NO CYCLE.", hilo_relname(seqid))));
		if (params.seqincrement < 1)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("sequence %s counts down", hilo_relname(seqid)),
					 errhint("ALTER SEQUENCE %s INCREMENT BY <block size>.", hilo_relname(seqid))));
		if (own)
			hilo_citus_check_type(params.seqtypid, relid);
		(void) hilo_seq_page(seq, &data);
		v = nextval_internal(seqid, !own);
		if (!RelationNeedsWAL(seq))
			(void) hilo_seq_page(seq, nullptr, true);	/* permanent, so wal_level = minimal */
		else if (out->durable)
			XLogFlush(hilo_seq_page(seq, nullptr));
		if (own || strategy == HiloStrategy::pooled)
			st = idgen::hilo_count_block(v, params.seqincrement, params.seqmin, !data.is_called && v == data.last_value, &block);
		else
			st = idgen::hilo_block(strategy, v, idgen::hilo_block_size(strategy, max_lo, params.seqincrement), &block);
		if (st == HiloStatus::below_one && attempt < 2)
		{
			relation_close(seq, NoLock);
			continue;
		}
		if (st == HiloStatus::overflow)
			ereport(ERROR,
					(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
					 errmsg("Hi/Lo key of %s is exhausted", hilo_relname(relid)),
					 errdetail("Value " INT64_FORMAT " of sequence %s would give ids above 9223372036854775807.",
							   v, hilo_relname(seqid)),
					 errhint("No id was handed out.")));
		if (st != HiloStatus::ok)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("sequence %s gives no Hi/Lo ids above 0", hilo_relname(seqid)),
					 errdetail("Its value " INT64_FORMAT " gives no id of at least 1.", v),
					 errhint("Move it with setval() or ALTER SEQUENCE ... RESTART; ORM forms need max_lo > 0.")));
		if (own && idgen_hilo_node_ranges)
		{
			idgen::HiloNodeRange range = hilo_own_range();

			if (block.next < range.first || block.last > range.last)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("Hi/Lo key of table %s lies outside this node's range", hilo_relname(relid)),
						 errdetail("The node's ids are " INT64_FORMAT " .. " INT64_FORMAT "; the block drawn is "
								   INT64_FORMAT " .. " INT64_FORMAT ".", range.first, range.last, block.next, block.last),
						 errhint("ALTER SEQUENCE %s MINVALUE <first> MAXVALUE <last> RESTART WITH <first id above the rows>.",
								 hilo_relname(seqid))));
		}
		hilo_warn_near_end(relid, own, Max(params.seqmin, 1),
						   idgen::hilo_reserved_to(strategy, params.seqmax,
												   idgen::hilo_block_size(strategy, max_lo, params.seqincrement)),
						   &block);
		out->seqid = seqid;
		out->filenode = seq->rd_rel->relfilenode;
		out->tentative = seq->rd_createSubid != InvalidSubTransactionId ||
			seq->rd_newRelfilenodeSubid != InvalidSubTransactionId;
		relation_close(seq, NoLock);
		return block;
	}
}

/*
 * For hilo_reserve(): a block of relid's key that an abort could not take back, or an ERROR.
 * Its ids leave the database, so unlike nextval()'s values it is durable when returned: WAL
 * flushed to its sequence page's LSN (the record covering it may be another backend's).
 */
HiloBlock
hilo_draw_block(Oid relid)
{
	HiloDrawn	d = {InvalidOid, 0, false, true};
	HiloBlock	b = hilo_draw(relid, true, HiloStrategy::pooled, 0, &d);

	if (d.tentative)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot reserve Hi/Lo ids of sequence %s in the transaction that made or changed it",
						hilo_relname(d.seqid)),
				 errdetail("A ROLLBACK would bring back the sequence as it was, which gives these ids again."),
				 errhint("Commit the CREATE or ALTER SEQUENCE first.")));
	return b;
}

/* The sequence's relfilenode now (locked as nextval() locks it); 0 if it was dropped. */
static uint32
hilo_filenode(Oid seqid)
{
	Relation	seq = try_relation_open(seqid, RowExclusiveLock);
	uint32		fn = seq != nullptr ? seq->rd_rel->relfilenode : 0;

	if (seq != nullptr)
		relation_close(seq, NoLock);
	return fn;
}

/* All but the fast path: own (relid a table) or an ORM form (relid its sequence). */
static int64
hilo_next_slow(Oid relid, bool own, HiloStrategy strategy, int32 max_lo)
{
	Oid			role = GetUserId();

	/* A standby has no cache to fill: say why before anything else. */
	hilo_refuse_in_recovery();
	if (hilo_cache == nullptr)
		hilo_cache = idgen_guard([] { return new HiloCache(); });
	for (;;)
	{
		HiloEntry  *e = hilo_cache->find(relid);
		int64_t		id;
		HiloDrawn	d = {InvalidOid, 0, false, false};

		if (e == nullptr || e->stale || e->checked_role != role ||
			(!own && (e->strategy != strategy || e->max_lo != max_lo)))
		{
			uint64		seen = hilo_inval_count;
			Oid			seqid = relid;
			AttrNumber	attnum;

			hilo_checking = relid;
			if (own)
			{
				hilo_check_table(relid, HiloNeed::draw);
				seqid = hilo_table_key(relid, &attnum);
			}
			else if (get_rel_relkind(relid) != RELKIND_SEQUENCE)
				ereport(ERROR,
						(errcode(ERRCODE_WRONG_OBJECT_TYPE),
						 errmsg("\"%s\" is not a sequence", get_rel_name(relid) ? get_rel_name(relid) : "?"),
						 errhint("hilo_next(seq, strategy) names the sequence the application draws from; "
								 "hilo_next('t') draws from table t's key.")));
			else if (pg_class_aclcheck(relid, role, ACL_USAGE | ACL_UPDATE) != ACLCHECK_OK)
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("permission denied for sequence %s", get_rel_name(relid))));
			if (e == nullptr)
				e = idgen_guard([&] { return hilo_cache->insert(relid); });
			/* Another sequence, another relfilenode or formula: the block is not this key's. */
			if (e->block.next <= e->block.last &&
				(e->seqid != seqid || e->filenode != hilo_filenode(seqid) ||
				 e->strategy != strategy || e->max_lo != max_lo))
				e->block = HiloBlock{1, 0};
			e->seqid = seqid;
			e->strategy = strategy;
			e->max_lo = max_lo;
			e->stale = false;
			/* Something changed while we checked: check again. */
			if (seen != hilo_inval_count)
				continue;
			e->checked_role = role;
		}
		if (idgen::hilo_take(&e->block, &id))
			return id;
		e->block = hilo_draw(relid, own, strategy, max_lo, &d);
		e->seqid = d.seqid;
		e->filenode = d.filenode;
		e->tentative = e->tentative || d.tentative;
		e->draws++;
	}
}

/* hilo_next(tbl): the next id of tbl's key.  The fast path: a hash lookup and an increment. */
IDGEN_FUNCTION(hilo_next)
{
	HiloEntry  *e;
	int64_t		id;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table the ids are for, e.g. hilo_next('orders').");
	e = likely(hilo_cache != nullptr) ? hilo_cache->find(PG_GETARG_OID(0)) : nullptr;
	if (likely(e != nullptr && !e->stale && e->checked_role == GetUserId() &&
			   idgen::hilo_take(&e->block, &id)))
		return Int64GetDatum(id);
	return Int64GetDatum(hilo_next_slow(PG_GETARG_OID(0), true, HiloStrategy::pooled, 0));
}

/* hilo_next(seq, strategy, max_lo DEFAULT NULL): an ORM's sequence, under its formula. */
IDGEN_FUNCTION(hilo_next_orm)
{
	HiloStrategy strategy;
	int32		max_lo = PG_ARGISNULL(2) ? 0 : PG_GETARG_INT32(2);
	HiloEntry  *e;
	int64_t		id;

	if (PG_ARGISNULL(0))
		hilo_null_argument("seq", "Pass the sequence the application draws from, e.g. hilo_next('app_seq', 'pooled_lo').");
	if (PG_ARGISNULL(1))
		hilo_null_argument("strategy", "Pass the ORM's formula, one of classic, legacy, pooled_lo, pooled, pooled_hibernate3.");
	strategy = hilo_strategy_arg(PG_GETARG_TEXT_PP(1));
	if (!idgen::hilo_size_is_increment(strategy) && max_lo <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("strategy %s needs max_lo greater than zero", idgen::hilo_strategy_name(strategy)),
				 errhint("Pass the ORM's max_lo, e.g. hilo_next('hi_seq', 'legacy', 32767).")));
	e = likely(hilo_cache != nullptr) ? hilo_cache->find(PG_GETARG_OID(0)) : nullptr;
	if (likely(e != nullptr && !e->stale && e->checked_role == GetUserId() &&
			   e->strategy == strategy && e->max_lo == max_lo && idgen::hilo_take(&e->block, &id)))
		return Int64GetDatum(id);
	return Int64GetDatum(hilo_next_slow(PG_GETARG_OID(0), false, strategy, max_lo));
}

/* hilo_backend_draws(tbl regclass): this backend's draws of tbl's key (for bench/). */
IDGEN_FUNCTION(hilo_backend_draws)
{
	HiloEntry  *e = hilo_cache != nullptr && !PG_ARGISNULL(0) ? hilo_cache->find(PG_GETARG_OID(0)) : nullptr;

	PG_RETURN_INT64(e != nullptr ? e->draws : 0);
}

void
idgen_hilo_relcache(Oid relid)
{
	if (!OidIsValid(relid) || relid == hilo_checking)
		hilo_inval_count++;
	hilo_key_changes++;
	hilo_forget_key(relid);
	if (hilo_cache != nullptr)
		hilo_cache->mark_stale(relid);
}

/* A role or a membership changed: any INSERT privilege may have; every entry goes stale. */
static void
hilo_role_callback(Datum arg, idgen_syscache_id cacheid, uint32 hashvalue)
{
	hilo_inval_count++;
	if (hilo_cache != nullptr)
		hilo_cache->mark_stale(0);
}

/*
 * A pg_sequence row changed (CREATE, ALTER, DROP SEQUENCE): any key may have moved, by hand
 * (ALTER SEQUENCE ... OWNED BY, CREATE SEQUENCE ... OWNED BY) with no invalidation of its
 * table, so every entry is checked again and keeps its block only if its key is the same.
 */
static void
hilo_sequence_callback(Datum arg, idgen_syscache_id cacheid, uint32 hashvalue)
{
	hilo_key_changes++;
	hilo_forget_key(InvalidOid);
	if (hilo_cache != nullptr)
		hilo_cache->mark_stale(0);
}

static void
hilo_xact_callback(XactEvent event, void *arg)
{
	if (hilo_cache == nullptr)
		return;
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		hilo_cache->end_transaction(true);
	else if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PREPARE)
		hilo_cache->end_transaction(false);
}

/* A subtransaction's abort may bring back a relfilenode: drop every tentative block. */
static void
hilo_subxact_callback(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid, void *arg)
{
	if (hilo_cache != nullptr && event == SUBXACT_EVENT_ABORT_SUB)
		hilo_cache->drop_tentative();
}

/* DISCARD SEQUENCES and setval() drop this backend's blocks, as they drop nextval()'s cached values. */
void
hilo_discard(void)
{
	if (hilo_cache != nullptr)
		hilo_cache->clear();
}

/* setval(), a built-in, runs no fmgr hook: its statement's start does (every block, no argument seen). */
static object_access_hook_type hilo_prev_object_access = nullptr;

static void
hilo_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (access == OAT_FUNCTION_EXECUTE && (objectId == F_SETVAL_REGCLASS_INT8 || objectId == F_SETVAL_REGCLASS_INT8_BOOL))
		hilo_discard();
	if (hilo_prev_object_access != nullptr)
		hilo_prev_object_access(access, classId, objectId, subId, arg);
}

void
idgen_hilo_init(void)
{
	hilo_prev_object_access = object_access_hook;
	object_access_hook = hilo_object_access;
	CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, hilo_role_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHOID, hilo_role_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(SEQRELID, hilo_sequence_callback, (Datum) 0);
	RegisterXactCallback(hilo_xact_callback, nullptr);
	RegisterSubXactCallback(hilo_subxact_callback, nullptr);
}
