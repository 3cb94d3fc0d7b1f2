/*
 * hilo/next.cpp: hilo_next(), the per-row path, and the backend's cache of
 * blocks, one per key table, run as the caller (locks: hilo.hpp).
 * Invalidations mark entries stale: a stale entry checks the privilege
 * again.  A block stays valid across a change: every change moves the
 * sequence above it.
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
#include "commands/sequence.h"
#include "common/int.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
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

/* A privilege check is recorded only if no invalidation that could change it arrived meanwhile. */
static uint64 hilo_inval_count = 0;
static Oid	hilo_checking = InvalidOid;

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

/*
 * nextval() leaves the WAL flush to the commit, and the record covering our
 * value may be another backend's; a block serves later transactions.
 */
void
hilo_draw_durable(Oid seqid)
{
	Relation	rel;
	XLogRecPtr	lsn = InvalidXLogRecPtr;

#ifdef IDGEN_TEST_HOOKS
	hilo_test_wait(idgen_test_wait_before_draw_flush);
#endif
	rel = relation_open(seqid, NoLock);	/* locked by our caller */
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

idgen::HiloStatus
hilo_key_block(const HiloKey *key, int64 v, HiloBlock *block)
{
	HiloStatus	st = idgen::hilo_block(key->strategy, v - key->seq_base, hilo_key_size(key), block);

	if (st == HiloStatus::ok)
	{
		block->next += key->id_base;
		block->last += key->id_base;
	}
	return st;
}

/* The block of key's value v; false below 1 (draw again), an ERROR at the third attempt. */
static bool
hilo_block_checked(const HiloKey *key, int64 v, int attempt, HiloBlock *block)
{
	int64		size = hilo_key_size(key);

	switch (hilo_key_block(key, v, block))
	{
		case HiloStatus::ok:
			return true;
		case HiloStatus::overflow:
			ereport(ERROR,
					(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
					 errmsg("Hi/Lo key of table %s is exhausted", hilo_relname(key->relid)),
					 errdetail("Hi value " INT64_FORMAT " with block size " INT64_FORMAT " (%s) would give ids above 9223372036854775807.",
							   v, size, idgen::hilo_strategy_name(key->strategy)),
					 errhint("The key has used up the bigint range; no id was handed out.")));
		case HiloStatus::below_one:
			if (attempt < 2)
				return false;
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("sequence %s of the Hi/Lo key of table %s gives no ids above 0",
							hilo_relname(key->seqid), hilo_relname(key->relid)),
					 errdetail("Its value " INT64_FORMAT " gives a block entirely below 1.", v),
					 errhint("Move the sequence to a value >= 0 with setval().")));
		case HiloStatus::bad_size:
			break;
	}
	elog(ERROR, "Hi/Lo key of table %u has block size " INT64_FORMAT, key->relid, size);
	pg_unreachable();
}

idgen::HiloNodeRange
hilo_key_range(const HiloKey *key)
{
	int64		group = 0;
	idgen::node_identity::Resolved w;

	if (!key->own || (!idgen_hilo_node_ranges && !idgen_citus_group(&group)))
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

int64
hilo_value_above(const HiloKey *key, int64 taken_to, int64 next_v)
{
	idgen::HiloNodeRange range = hilo_key_range(key);
	int64		v = next_v - key->seq_base;

	taken_to = Max(taken_to, range.first - 1);
	if (idgen::hilo_floor(key->strategy, hilo_key_size(key), taken_to - key->id_base, v, &v) != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("cannot move the Hi/Lo key of table %s above id " INT64_FORMAT,
						hilo_relname(key->relid), taken_to),
				 errdetail("Its next block would give ids above 9223372036854775807."),
				 errhint("Nothing was changed.")));
	return v + key->seq_base;
}

/* A WARNING where id_gen.headroom says warning or critical: once per key and level a minute. */
#define HILO_WARN_AGAIN_MS 60000

static Oid	warned_relid = InvalidOid;
static int	warned_level = 0;
static TimestampTz warned_at = 0;

static void
hilo_warn_near_end(const HiloKey *key, idgen::HiloNodeRange range, const idgen::HiloBlock *block)
{
	Oid			relid = key->relid;
	int64		last = idgen::hilo_reserved_to(key->strategy, hilo_seq_params(key->seqid).seqmax,
											   hilo_key_size(key));
	double		used;
	int			level;
	TimestampTz now;

	last = Min(last, range.last);
	if (last < range.first)
		return;
	used = ((double) block->last - (double) range.first + 1) / ((double) last - (double) range.first + 1);
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
			 errmsg("Hi/Lo key of table %s has used %.1f%% of its ids", hilo_relname(relid), used * 100.0),
			 errdetail("Its ids end at " INT64_FORMAT "; the block just drawn ends at " INT64_FORMAT ".",
					   last, block->last),
			 errhint("id_gen.headroom shows every key's headroom; id_gen.headroom_warning_percent "
					 "and id_gen.headroom_critical_percent set the points of this warning.")));
}

static void
hilo_check_node_range(const HiloKey *key, const HiloBlock *block)
{
	idgen::HiloNodeRange range = hilo_key_range(key);

	if (block->next < range.first)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("Hi/Lo key of table %s lies below this node's range", hilo_relname(key->relid)),
				 errdetail("The node's ids start at " INT64_FORMAT "; the next block would start at " INT64_FORMAT
						   " (the key was made before the node had its worker id).",
						   range.first, block->next),
				 errhint("As the table's owner: SELECT hilo_set_floor('%s'); moves it into the range.",
						 hilo_relname(key->relid))));
	if (block->last > range.last)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("Hi/Lo key of table %s has used up this node's range", hilo_relname(key->relid)),
				 errdetail("The node's ids end at " INT64_FORMAT "; the next block would end at " INT64_FORMAT ".",
						   range.last, block->last),
				 errhint("No id was handed out.  Each node owns 2^43 ids per key; give this node another worker id.")));
	hilo_warn_near_end(key, range, block);
}

/* Whether relid was created in this transaction. */
static bool
hilo_created_here(Oid relid)
{
	Relation	rel = relation_open(relid, NoLock);	/* locked by our caller */
	bool		here = rel->rd_createSubid != InvalidSubTransactionId;

	relation_close(rel, NoLock);
	return here;
}

void
hilo_lock_for_draw(const HiloKey *key, LOCKMODE draw_mode)
{
	LOCKTAG		tag;
	LOCKTAG		seq_tag;
	bool		seq_new;

	LockRelationOid(key->seqid, RowExclusiveLock);
	hilo_require_drawable_seq(key->seqid, key->relid);
	seq_new = hilo_created_here(key->seqid);
	/* A ROLLBACK would take a key made here away but leave a table made before. */
	if (seq_new && !hilo_created_here(key->relid))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot draw from the Hi/Lo key of table %s in the transaction that made it",
						hilo_relname(key->relid)),
				 errdetail("A ROLLBACK would remove the key but keep the table: its next key would hand out these ids again."),
				 errhint("Commit the ALTER TABLE that made the key first.")));
	/* A change of the key or its sequence here: moot only if a ROLLBACK takes the whole key. */
	SET_LOCKTAG_OBJECT(tag, MyDatabaseId, RelationRelationId, key->seqid, 1);
	SET_LOCKTAG_RELATION(seq_tag, MyDatabaseId, key->seqid);
	if ((idgen_lock_held_by_me(&tag, ExclusiveLock) ||
		 idgen_lock_held_by_me(&seq_tag, ShareRowExclusiveLock) ||
		 idgen_lock_held_by_me(&seq_tag, AccessExclusiveLock)) &&
		!(seq_new && GetCurrentTransactionNestLevel() == 1))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot draw from the Hi/Lo key of table %s in the transaction that changed it",
						hilo_relname(key->relid)),
				 errdetail("A ROLLBACK would restore the key as it was, under which these ids could be handed out again."),
				 errhint("Commit the change of the key (or of its sequence) first.")));
	hilo_draw_lock(key->seqid, draw_mode);
}

/* At most this many values are drawn one by one for one run. */
static const int kHiloMaxSingleDraws = 10000;

void
hilo_take_run(const HiloKey *key, int64 need, LOCKMODE draw_mode, HiloBlock *run)
{
	Oid			seqid = key->seqid;
	int64		size = hilo_key_size(key);
	int64		inc = key->increment;
	bool		adjacent = idgen::hilo_values_adjacent(key->strategy, size, inc);
	bool		alone = false;
	bool		locked_seq = false;
	int64		blocks = 0;
	int			draws = 0;

	if (key->hi_table != nullptr)
		hilo_orm_check(key);
	hilo_lock_for_draw(key, draw_mode);
	run->next = 1;
	run->last = 0;
	/*
	 * Nobody else draws from an own sequence (the draw lock), nor from one we hold as ALTER
	 * SEQUENCE does: then a run is one setval() past its first value; else values one by one.
	 */
	if (need > 1)
	{
		alone = key->own || (locked_seq = ConditionalLockRelationOid(seqid, ShareRowExclusiveLock));
		/* setval() as the sequence's owner: what a bound key's caller may not do itself. */
		if (!key->own && alone && pg_class_aclcheck(seqid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
			alone = false;
	}
	for (int attempt = 0;; attempt++)
	{
		int64		v;
		HiloBlock	block;

		if (++draws > kHiloMaxSingleDraws)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("could not draw " INT64_FORMAT " consecutive blocks of the Hi/Lo key of table %s",
							need, hilo_relname(key->relid)),
					 errdetail("Its sequence %s is shared with writers that took values in between.",
							   hilo_relname(seqid)),
					 errhint("Ask for at most %lld ids (one block), or retry when fewer transactions hold the sequence.",
							 (long long) idgen::hilo_ids_per_block(key->strategy, size))));
		v = nextval_internal(seqid, !key->own);
		if (!hilo_block_checked(key, v, attempt, &block))
			continue;
		if (blocks == 0 || block.next != run->last + 1)
		{
			/* A first block, or someone else took the values in between. */
			*run = block;
			blocks = 1;
		}
		else
		{
			run->last = block.last;
			blocks++;
		}
		attempt = -1;
		hilo_check_node_range(key, run);
		if (blocks >= need)
			break;
		if (!adjacent)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the Hi/Lo key of table %s cannot give more than one block at once",
							hilo_relname(key->relid)),
					 errdetail("With INCREMENT " INT64_FORMAT " its sequence %s leaves ids between consecutive blocks.",
							   inc, hilo_relname(seqid)),
					 errhint("Ask for at most %lld ids.",
							 (long long) idgen::hilo_ids_per_block(key->strategy, size))));
		if (alone)
		{
			int64		to_v;
			int64		next_v;

			if (pg_mul_s64_overflow(need - blocks, inc, &to_v) ||
				pg_add_s64_overflow(v, to_v, &to_v) || pg_add_s64_overflow(to_v, inc, &next_v))
				ereport(ERROR,
						(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
						 errmsg("Hi/Lo key of table %s is exhausted", hilo_relname(key->relid)),
						 errdetail(INT64_FORMAT " blocks would pass the end of the sequence's bigint range.", need),
						 errhint("Ask for fewer ids.")));
			(void) hilo_block_checked(key, to_v, 2, &block);
			hilo_check_node_range(key, &block);
#ifdef IDGEN_TEST_HOOKS
			/* Between the run's first value and the setval() past the rest. */
			hilo_test_wait(idgen_test_wait_before_run_jump);
#endif
			hilo_seq_move_to(seqid, next_v);
			run->last = block.last;
			break;
		}
	}
	if (locked_seq)
		UnlockRelationOid(seqid, ShareRowExclusiveLock);	/* setval() is not transactional */
	hilo_draw_unlock(seqid, draw_mode);
	hilo_draw_durable(seqid);
}

/* Draws the next block (or adaptive run) of key, read with its table locked, into e. */
static void
hilo_draw(const HiloKey *key, HiloEntry *e)
{
	int64		need = 1;
	HiloBlock	run;

	/* An adaptive key: as many blocks as the core's hilo_adapt_range says, as a run. */
	if (key->adaptive)
	{
		int64		per = idgen::hilo_ids_per_block(key->strategy, hilo_key_size(key));
		int64		now_ms = GetCurrentTimestamp() / 1000;
		int64		want = idgen::hilo_adapt_range(e->adapt_size,
												   e->adapt_size > 0 ? now_ms - e->adapt_at_ms : 0);

		if (per > 0)
			need = (want + per - 1) / per;
		e->adapt_size = want;
		e->adapt_at_ms = now_ms;
	}
	hilo_take_run(key, need, need > 1 ? ExclusiveLock : ShareLock, &run);
	e->block = run;
	e->draws++;
}

/* All but the fast path.  seqid: the sequence the call names (the full form), or InvalidOid. */
static int64
hilo_next_slow(Oid relid, Oid seqid)
{
	Oid			role = GetUserId();

	/* A standby has no cache to fill: say why before anything else. */
	hilo_refuse_in_recovery();
	if (hilo_cache == nullptr)
		hilo_cache = idgen_guard([] { return new HiloCache(); });
	for (;;)
	{
		HiloEntry  *e = hilo_cache->find(relid);
		HiloKey		key;
		int64_t		id;

		if (e == nullptr || e->stale || e->checked_role != role ||
			(OidIsValid(seqid) && seqid != e->seqid))
		{
			uint64		seen = hilo_inval_count;

			hilo_checking = relid;
			hilo_check_table(relid, false);
			hilo_require_key(relid, &key);
			if (OidIsValid(seqid) && seqid != key.seqid)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("sequence %s is not the Hi/Lo key of table %s", hilo_relname(seqid),
								hilo_relname(relid)),
						 errdetail("The key of %s draws from %s.", hilo_relname(relid), hilo_relname(key.seqid)),
						 errhint("A default copied from another table: write hilo_next('%s'), which follows that table's key.",
								 hilo_relname(relid))));
			if (!key.own && pg_class_aclcheck(key.seqid, role, ACL_USAGE | ACL_UPDATE) != ACLCHECK_OK)
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("permission denied for sequence %s", hilo_relname(key.seqid)),
						 errdetail("The Hi/Lo key of table %s is bound to the application's sequence %s.",
								   hilo_relname(relid), hilo_relname(key.seqid)),
						 errhint("GRANT USAGE ON SEQUENCE %s to the role that inserts, as for DEFAULT nextval().",
								 hilo_relname(key.seqid))));
			if (e != nullptr && e->seqid != key.seqid)
			{
				hilo_cache->erase(relid);	/* another sequence: its block is not this key's */
				e = nullptr;
			}
			if (e == nullptr)
				e = idgen_guard([&] { return hilo_cache->insert(relid); });
			e->seqid = key.seqid;
			e->strategy = key.strategy;
			e->size = hilo_key_size(&key);
			e->adaptive = key.adaptive;
			e->stale = false;
			/* Something changed while we checked: check again. */
			if (seen != hilo_inval_count)
				continue;
			e->checked_role = role;
		}
		if (idgen::hilo_take(&e->block, &id))
			return id;
		hilo_require_key(relid, &key);
		if (key.seqid != e->seqid)
		{
			e->stale = true;	/* the key moved meanwhile: load it again */
			continue;
		}
		hilo_draw(&key, e);
	}
}

/*
 * hilo_next(tbl), and the full form hilo_next(tbl, seq, ...), which draws as tbl's default
 * states the key once seq is checked.  The fast path: a hash lookup and an increment.
 */
IDGEN_FUNCTION(hilo_next_key)
{
	Oid			seqid = PG_NARGS() > 1 && !PG_ARGISNULL(1) ? PG_GETARG_OID(1) : InvalidOid;
	HiloEntry  *e;
	int64_t		id;

	if (PG_ARGISNULL(0) || (PG_NARGS() > 1 && PG_ARGISNULL(1)))
		hilo_null_argument("table", "Pass the table the ids are for, e.g. hilo_next('orders').");
	e = likely(hilo_cache != nullptr) ? hilo_cache->find(PG_GETARG_OID(0)) : nullptr;
	if (likely(e != nullptr && !e->stale && e->checked_role == GetUserId() &&
			   (!OidIsValid(seqid) || e->seqid == seqid) && idgen::hilo_take(&e->block, &id)))
		return Int64GetDatum(id);
	return Int64GetDatum(hilo_next_slow(PG_GETARG_OID(0), seqid));
}

IDGEN_FUNCTION(hilo_next)
{
	return hilo_next_key(fcinfo);
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
	hilo_forget_parsed(relid);
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

void
idgen_hilo_init(void)
{
	CacheRegisterSyscacheCallback(AUTHMEMROLEMEM, hilo_role_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(AUTHOID, hilo_role_callback, (Datum) 0);
}
