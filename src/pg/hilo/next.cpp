/*
 * hilo/next.cpp: hilo_next(table), the per-row path, and the backend's
 * cache of blocks.
 *
 * Cache coherence: every change of a key row (set_max_lo, bind) and every
 * key created in the caller's transaction sends a relcache invalidation for
 * the table; a change of a role or a role membership marks every entry.
 * The callbacks only mark entries stale (they never free), and the core's
 * cache never moves an entry, so pointers into it stay valid while
 * PostgreSQL code runs; only hilo_refresh() erases an entry, and then says
 * so.  A stale entry rechecks the role's privilege and rereads its row
 * before its next use; its cached block stays valid if the key still draws
 * from the same sequence with the same formula and block size.  Drawing a
 * block takes the key lock, which waits for a change of the key in
 * progress to commit, then rereads the row, so a block is never computed
 * with a block size that is no longer current; a change takes the key lock
 * exclusively, so it waits for draws in progress and moves the sequence
 * past them.
 */
#include "pg/pg.hpp"

#include "pg/compat.hpp"
#include "pg/guard.hpp"
#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"
#include "pg/node_identity.hpp"

extern "C" {
#include "access/relation.h"
#include "common/int.h"
#include "access/xlog.h"
#include "commands/sequence.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/inval.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

using idgen::HiloBlock;
using idgen::HiloCache;
using idgen::HiloEntry;
using idgen::HiloStatus;

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

static void
hilo_ensure_cache(void)
{
	if (hilo_cache == nullptr)
		hilo_cache = idgen_guard([] { return new HiloCache(); });
}

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
 * Rereads a stale entry's row.  Returns false (entry erased: e is no longer
 * the key's) if the key is gone or now draws from another sequence or with
 * another formula: its cached block no longer belongs to the key.  A new
 * block size empties the block.  The table is never read here: as with a
 * sequence's cached values, a block drawn before a bulk load and
 * hilo_set_floor() is used up first.
 */
static bool
hilo_refresh(Oid relid, HiloEntry *e, HiloKeyRow *rowp = nullptr)
{
	HiloKeyRow	local;
	HiloKeyRow &row = rowp != nullptr ? *rowp : local;
	bool		found;

	/* Cleared first: an invalidation arriving during the read re-marks it. */
	e->stale = false;
	if (!OidIsValid(e->seqid))
	{
		/* A key bound to a hi table row (hilo/orm.cpp): no sequence, no row here. */
		idgen::HiloStrategy strategy;
		int64		size;

		if (!hilo_orm_bound(relid, &strategy, &size) || strategy != e->strategy || size != e->size)
		{
			hilo_cache->erase(relid);
			return false;
		}
		return true;
	}
	found = hilo_read_key(relid, &row, true);
	/*
	 * Gone, changed, or an own sequence below this node's range (the node
	 * got its identity after the key was made): load it again, which has
	 * the key worker move the sequence into the range first.
	 */
	if (!found || row.seqid != e->seqid || row.strategy != e->strategy || hilo_own_seq_below_node(&row))
	{
		hilo_cache->erase(relid);
		return false;
	}
	e->adaptive = row.adaptive;
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
 * Called once a draw has its value(s), before it hands out any id: a test
 * build's pause point (between the draw's WAL record, if it wrote one, and
 * the flush), then the flush.
 */
void
hilo_draw_durable(Oid seqid)
{
#ifdef IDGEN_TEST_HOOKS
	hilo_test_wait(idgen_test_wait_before_draw_flush);
#endif
	hilo_flush_draw(seqid);
}

/*
 * The block value v of relid's key gives, into *block.  False for a block
 * entirely below 1 (draw again) unless this is the third attempt in a row:
 * then, as for a block that would pass 2^63-1, an ERROR.
 */
bool
hilo_block_checked(Oid relid, Oid seqid, idgen::HiloStrategy strategy, int64 v, int64 size,
				   int attempt, HiloBlock *block)
{
	switch (idgen::hilo_block(strategy, v, size, block))
	{
		case HiloStatus::ok:
			return true;
		case HiloStatus::overflow:
			ereport(ERROR,
					(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
					 errmsg("Hi/Lo key of table %s is exhausted", hilo_relname(relid)),
					 errdetail("Hi value " INT64_FORMAT " with block size " INT64_FORMAT " (%s) would give ids above 9223372036854775807.",
							   v, size, idgen::hilo_strategy_name(strategy)),
					 errhint("The key has used up the bigint range; no id was handed out.")));
			break;
		case HiloStatus::below_one:
			if (attempt < 2)
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("sequence %s of the Hi/Lo key of table %s gives no ids above 0",
							hilo_relname(seqid), hilo_relname(relid)),
					 errdetail("Its value " INT64_FORMAT " gives a block entirely below 1.", v),
					 errhint("Move the sequence to a value >= 0 with setval().")));
			break;
		case HiloStatus::bad_size:
			break;
	}
	elog(ERROR, "Hi/Lo key of table %u has block size " INT64_FORMAT, relid, size);
	pg_unreachable();
}

idgen::HiloNodeRange
hilo_this_node_range(void)
{
	int64		group = 0;
	idgen::node_identity::Resolved w;

	/* A single server: the whole space, whatever its worker id. */
	if (!idgen_hilo_node_ranges && !idgen_citus_group(&group))
		return idgen::hilo_node_range(-1);
	w = idgen_node_worker(idgen::kHiloMaxNode);
	if (w.source == idgen::node_identity::Source::Default)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this node has no Hi/Lo range: id_gen.hilo_node_ranges is on but id_gen.worker_id is not set"),
				 errhint("Set id_gen.worker_id on this node to a number no other node uses, or turn id_gen.hilo_node_ranges off.")));
	if (w.status != idgen::node_identity::Status::Ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this node has no Hi/Lo range: its Citus group lies past worker id %d",
						(int) idgen::kHiloMaxNode),
				 errhint("Set id_gen.worker_id on this node to a number no other node uses.")));
	return idgen::hilo_node_range(w.id);
}

idgen::HiloNodeRange
hilo_key_range(const HiloKeyRow *row)
{
	if (row != nullptr && !row->own_seq)
		return idgen::hilo_node_range(-1);
	return hilo_this_node_range();
}

bool
hilo_own_seq_below_node(const HiloKeyRow *row)
{
	idgen::HiloNodeRange range;
	int64		next;
	HiloBlock	block;

	if (!row->own_seq || !OidIsValid(row->seqid))
		return false;
	range = hilo_this_node_range();
	if (range.first <= 1)
		return false;			/* node 0, or no node: every block is in range */
	next = hilo_seq_peek_next(row->seqid, row->increment);
	return idgen::hilo_block(row->strategy, next, hilo_row_size(row), &block) != HiloStatus::ok ||
		block.next < range.first;
}

void
hilo_check_node_end(Oid relid, const HiloKeyRow *row, const HiloBlock *block)
{
	idgen::HiloNodeRange range = hilo_key_range(row);

	if (block->last > range.last)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("Hi/Lo key of table %s has used up this node's range", hilo_relname(relid)),
				 errdetail("The node's ids end at " INT64_FORMAT "; the next block would end at " INT64_FORMAT ".",
						   range.last, block->last),
				 errhint("No id was handed out.  Each node owns 2^43 ids per key; give this node another worker id.")));
	hilo_warn_near_end(relid, row, range, block);
}

bool
hilo_lock_seq_for_draw(Oid seqid)
{
	LockRelationOid(seqid, RowExclusiveLock);
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(seqid)))
	{
		UnlockRelationOid(seqid, RowExclusiveLock);
		return false;
	}
	hilo_require_drawable_seq(seqid);
	return true;
}

/* At most this many values are drawn one by one for one run. */
static const int kHiloMaxSingleDraws = 10000;

/* Makes nextval() of seqid return next_v next (privileged SPI). */
static void
hilo_move_seq(Oid seqid, int64 next_v)
{
	HiloPrivState st;

	hilo_priv_enter(&st);
	hilo_seq_set_next(seqid, next_v);
	hilo_priv_leave(&st);
}

void
hilo_take_run(Oid relid, const HiloKeyRow *row, int64 need, bool alone, HiloRun *run)
{
	Oid			seqid = row->seqid;
	int64		size = hilo_row_size(row);
	int64		inc = row->increment;
	bool		adjacent = idgen::hilo_values_adjacent(row->strategy, size, inc);
	int64		blocks = 0;
	int			draws = 0;

	run->ids.next = 1;
	run->ids.last = 0;
	run->first_v = run->last_v = 0;
	for (int attempt = 0;; attempt++)
	{
		int64		v;
		HiloBlock	block;

		if (++draws > kHiloMaxSingleDraws)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("could not draw " INT64_FORMAT " consecutive blocks of the Hi/Lo key of table %s",
							need, hilo_relname(relid)),
					 errdetail("Its sequence %s is shared with writers that took values in between.",
							   hilo_relname(seqid)),
					 errhint("Ask for at most %lld ids (one block), or retry when fewer transactions hold the sequence.",
							 (long long) idgen::hilo_ids_per_block(row->strategy, size))));
		v = nextval_internal(seqid, false);
		if (!hilo_block_checked(relid, seqid, row->strategy, v, size, attempt, &block))
			continue;
		if (blocks == 0 || block.next != run->ids.last + 1)
		{
			/* A first block, or someone else took the values in between. */
			run->ids = block;
			run->first_v = v;
			blocks = 1;
		}
		else
		{
			run->ids.last = block.last;
			blocks++;
		}
		run->last_v = v;
		attempt = -1;
		hilo_check_node_end(relid, row, &run->ids);
		if (blocks >= need)
			return;
		if (!adjacent)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the Hi/Lo key of table %s cannot give more than one block at once", hilo_relname(relid)),
					 errdetail("With INCREMENT " INT64_FORMAT " its sequence %s leaves ids between consecutive blocks.",
							   inc, hilo_relname(seqid)),
					 errhint("Ask for at most %lld ids.",
							 (long long) idgen::hilo_ids_per_block(row->strategy, size))));
		if (alone)
		{
			/* The rest in one step: nobody else draws, the values are ours. */
			int64		to_v;
			int64		next_v;

			if (pg_mul_s64_overflow(need - blocks, inc, &to_v) ||
				pg_add_s64_overflow(v, to_v, &to_v) || pg_add_s64_overflow(to_v, inc, &next_v))
				ereport(ERROR,
						(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
						 errmsg("Hi/Lo key of table %s is exhausted", hilo_relname(relid)),
						 errdetail(INT64_FORMAT " blocks would pass the end of the sequence's bigint range.", need),
						 errhint("Ask for fewer ids.")));
			(void) hilo_block_checked(relid, seqid, row->strategy, to_v, size, 2, &block);
			hilo_check_node_end(relid, row, &block);
#ifdef IDGEN_TEST_HOOKS
			/* Between the run's first value and the setval() past the rest. */
			hilo_test_wait(idgen_test_wait_before_run_jump);
#endif
			hilo_move_seq(seqid, next_v);
			run->ids.last = block.last;
			run->last_v = to_v;
			return;
		}
	}
}

/*
 * Draws the next block of relid's key from its sequence into e.  Returns
 * false if the key changed underneath (entry erased; the caller starts
 * over).
 */
static bool
hilo_draw(Oid relid, HiloEntry *e)
{
	Oid			seqid = e->seqid;

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
	HiloKeyRow	row;
	int64		need = 1;
	int64		want = 0;
	int64		now_ms = 0;
	LOCKMODE	mode;

	/* A key bound to a hi table row: one block per advance of the row. */
	if (!OidIsValid(seqid))
	{
		if (!hilo_orm_draw(relid, e->strategy, e->size, &e->block))
		{
			hilo_cache->erase(relid);
			return false;
		}
		e->draws++;
		return true;
	}

	/*
	 * An adaptive key: how many blocks this backend takes now (the core's
	 * rule, hilo_adapt_range, on the ids it took last time and how long they
	 * lasted).  More than one block is a run, drawn with the key lock held
	 * exclusively, as hilo_reserve draws a range.
	 */
	if (e->adaptive)
	{
		int64		per = idgen::hilo_ids_per_block(e->strategy, e->size);

		now_ms = GetCurrentTimestamp() / 1000;
		want = idgen::hilo_adapt_range(e->adapt_size, e->adapt_size > 0 ? now_ms - e->adapt_at_ms : 0);
		if (per > 0)
			need = (want + per - 1) / per;
	}
	mode = need > 1 ? ExclusiveLock : ShareLock;

	if (!hilo_lock_seq_for_draw(seqid))
	{
		hilo_cache->erase(relid);
		return false;
	}
	hilo_lock_key(relid, mode);
	if (!hilo_refresh(relid, e, &row))
	{
		hilo_unlock_key(relid, mode);
		return false;
	}
	e->draws++;
	/* The row may have changed (its block size): count the run in its blocks. */
	if (need > 1)
	{
		int64		per = idgen::hilo_ids_per_block(row.strategy, hilo_row_size(&row));

		need = row.adaptive && per > 0 ? (want + per - 1) / per : 1;
	}
	if (need > 1)
	{
		bool		alone = row.own_seq || ConditionalLockRelationOid(seqid, ShareRowExclusiveLock);
		HiloRun		run;

		hilo_take_run(relid, &row, need, alone, &run);
		hilo_draw_durable(seqid);
		if (alone && !row.own_seq)
			UnlockRelationOid(seqid, ShareRowExclusiveLock);	/* setval() is not transactional */
		e->block = run.ids;
		e->adapt_size = want;
		e->adapt_at_ms = now_ms;
		hilo_unlock_key(relid, mode);
		return true;
	}
	if (e->adaptive)
	{
		e->adapt_size = want;
		e->adapt_at_ms = now_ms;
	}

	for (int attempt = 0;; attempt++)
	{
		int64		v = nextval_internal(seqid, false);
		HiloBlock	block;

		hilo_draw_durable(seqid);
		if (!hilo_block_checked(relid, seqid, e->strategy, v, e->size, attempt, &block))
			continue;			/* a block below 1: draw again */
		hilo_check_node_end(relid, &row, &block);
		e->block = block;
		hilo_unlock_key(relid, mode);
		return true;
	}
}

/*
 * Reads relid's key row into row; on a first use, or for a key to repair
 * (hilo/repair.cpp), has the key worker create it first, then reads what
 * the worker committed, which a draw (under the sequence's lock) needs to
 * know first.  The caller checked the table and the privilege.
 */
void
hilo_ensure_key(Oid relid, HiloKeyRow *row)
{
	bool		ready;

	if (hilo_read_key(relid, row, true) && !hilo_key_needs_repair(relid, row))
		return;
	/* Others using the key for the first time wait here, then find it made. */
	hilo_lock_key_maker(relid);
	ready = hilo_read_key(relid, row, true) && !hilo_key_needs_repair(relid, row);
	if (!ready)
		hilo_create_key(relid, idgen_hilo_max_lo);
	hilo_unlock_key_maker(relid);
	if (ready)
		return;
	if (!hilo_read_key(relid, row) || hilo_key_needs_repair(relid, row, false))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("could not create the Hi/Lo key of table %s", hilo_relname(relid)),
				 errdetail("The background worker creating it failed or the table was dropped."),
				 errhint("The server log has the worker's error.")));
}

/* Everything but the fast path: first use, a stale entry, a used-up block. */
static int64
hilo_next_slow(Oid relid)
{
	Oid			role = GetUserId();

	/* A standby has no cache to fill: say why before anything else. */
	hilo_refuse_in_recovery();
	hilo_ensure_cache();
	for (;;)
	{
		HiloEntry  *e = hilo_cache->find(relid);
		int64_t		id;

		if (e == nullptr)
		{
			HiloKeyRow	row;
			uint64		seen = hilo_inval_count;

			idgen::HiloStrategy orm_strategy;
			int64		orm_size;
			bool		found;
			bool		orm;

			hilo_checking = relid;
			hilo_check_table(relid, false);
			/* A key bound to a hi table row has no row in hilo_key (hilo/orm.cpp). */
			found = hilo_read_key(relid, &row, true);
			orm = !found && hilo_orm_bound(relid, &orm_strategy, &orm_size);
			/* The row read once on the common path; first uses and repairs read again. */
			if (!orm && (!found || hilo_key_needs_repair(relid, &row)))
				hilo_ensure_key(relid, &row);
			e = idgen_guard([&] { return hilo_cache->insert(relid); });
			e->seqid = orm ? InvalidOid : row.seqid;
			e->strategy = orm ? orm_strategy : row.strategy;
			e->adaptive = orm ? false : row.adaptive;
			e->size = orm ? orm_size : hilo_row_size(&row);
			e->stale = false;
			e->checked_role = seen == hilo_inval_count ? role : InvalidOid;
		}
		else if (e->stale || e->checked_role != role)
		{
			uint64		seen = hilo_inval_count;

			hilo_checking = relid;
			hilo_check_table(relid, false);
			if (e->stale && !hilo_refresh(relid, e))
				continue;
			/* Something changed while we checked: check again. */
			if (seen != hilo_inval_count)
				continue;
			e->checked_role = role;
		}

		if (e->block.next > e->block.last && !hilo_draw(relid, e))
			continue;
		if (idgen::hilo_take(&e->block, &id))
			return id;
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

/*
 * hilo_backend_draws(tbl regclass): how many times this backend drew a
 * block (or a run of blocks, for an adaptive key) of tbl's key since it
 * last (re)loaded it; 0 if it never did.  What the benchmark counts.
 */
IDGEN_FUNCTION(hilo_backend_draws)
{
	HiloEntry  *e = hilo_cache != nullptr && !PG_ARGISNULL(0) ? hilo_cache->find(PG_GETARG_OID(0)) : nullptr;

	PG_RETURN_INT64(e != nullptr ? e->draws : 0);
}

/* ---------------------------------------------------------------------
 * Invalidation
 * --------------------------------------------------------------------- */

/* Relcache invalidation of relid (InvalidOid: all): entries go stale. */
void
idgen_hilo_relcache(Oid relid)
{
	if (!OidIsValid(relid) || relid == hilo_checking)
		hilo_inval_count++;
	if (hilo_cache != nullptr)
		hilo_cache->mark_stale(relid);
	hilo_catalog_relcache(relid);
}

/*
 * A role or a role membership changed (ALTER ROLE ... NOSUPERUSER, GRANT or
 * REVOKE role ...): no relcache invalidation tells the tables, yet any
 * role's INSERT privilege may have changed.  Every entry goes stale, so the
 * next call of every key checks again; such changes are rare, and the fast
 * path stays a lookup and an increment.
 */
static void
hilo_role_callback(Datum arg, idgen_syscache_id cacheid, uint32 hashvalue)
{
	hilo_inval_count++;
	if (hilo_cache != nullptr)
		hilo_cache->mark_stale(0);
}

void
idgen_hilo_init(void)
{
	hilo_worker_shmem_init();
	CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, hilo_role_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHOID, hilo_role_callback, (Datum) 0);
}
