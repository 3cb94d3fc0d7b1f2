/*
 * hilo/worker.cpp: creating and changing Hi/Lo keys.
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
#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/guc.hpp"

#include "pg/hilo/hilo.hpp"
#include "pg/shmem.hpp"

extern "C" {
#include "access/relation.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "executor/spi.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "storage/spin.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"
}

using idgen::HiloStatus;
using idgen::HiloStrategy;

extern "C" PGDLLEXPORT void idgen_hilo_worker_main(Datum main_arg);

/* ---------------------------------------------------------------------
 * What the worker runs (as the extension owner, privileged SPI; an ORM
 * draw as the caller: the security model, hilo.hpp)
 * --------------------------------------------------------------------- */

/*
 * Creates the key of relid, with its own sequence, unless it exists (then
 * repairs it if its sequence is missing, shared or never drawn from: see
 * hilo/floor.cpp).  Runs inside a transaction as the extension owner (in
 * the worker, or privileged in the caller's transaction for a table created
 * there).  The key lock serialises concurrent first uses of one key; the
 * primary key is the last line of defence.  The new sequence starts so
 * that the first block lies above taken_to, the largest id the caller found
 * in the table.  adaptive: its blocks adapt per backend (id_gen.hilo_adaptive,
 * on an installation whose key table has the column).
 */
static void
hilo_create_key_sql(Oid relid, int32 max_lo, int64 taken_to, bool adaptive)
{
	Oid			oidtype[1] = {OIDOID};
	Oid			regtype[1] = {REGCLASSOID};
	Datum		rel[1] = {ObjectIdGetDatum(relid)};
	int64		n;
	char		sql[256];

	hilo_lock_key(relid, ExclusiveLock);
	hilo_orm_refuse_sequence_key(relid);
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
		else if (adaptive &&
				 get_attnum(get_relname_relid("hilo_key", get_namespace_oid("id_gen", false)),
							"adaptive") != InvalidAttrNumber)
			hilo_spi("UPDATE id_gen.hilo_key SET adaptive = true WHERE relid = $1", 1, itypes, ivalues,
					 SPI_OK_UPDATE);
	}
}

/*
 * DROP SEQUENCE seqid, if it still exists (privileged SPI context).  With
 * CASCADE: creating a view needs no privilege on what it reads, so any role
 * can make one on a key's sequence, and without CASCADE it would veto the
 * owner's change of the key.  Those views go with the sequence, as they
 * would with a serial column's.
 */
static void
hilo_drop_seq(Oid seqid)
{
	if (get_rel_name(seqid) == nullptr)
		return;
	hilo_spi(psprintf("DROP SEQUENCE %s CASCADE", hilo_quoted_name(seqid)), 0, NULL, NULL, SPI_OK_UTILITY);
}

/*
 * The sequences a change of a key locks, before the key lock, against
 * writers other than the key's draws: the key's sequence unless it is the
 * key's own (only the key's draws use that, and the key lock holds them
 * off), in ShareRowExclusiveLock as ALTER SEQUENCE takes it, so that no
 * nextval() of an application runs while it is read and moved; and the
 * sequence a bind moves the key to, likewise if the key is in use (else
 * only AccessShareLock, which keeps it from being dropped).  In OID order.
 */
int
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
		/*
		 * Read before any lock, the row may name a sequence a change just
		 * committed has created, which this backend cannot see until it
		 * reads that change's invalidations (the key lock below does):
		 * missing here is no error, and the row is read again under the lock.
		 */
		bool		found = hilo_read_key(relid, &seen, true);
		HiloSeqLock locks[2];
		int			n = hilo_change_locks(found && OidIsValid(seen.seqid) ? &seen : nullptr, newseq, locks);

		for (int i = 0; i < n; i++)
			LockRelationOid(locks[i].seqid, locks[i].mode);
		hilo_lock_key(relid, ExclusiveLock);
		hilo_orm_refuse_sequence_key(relid);
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
void
hilo_check_set_max_lo_privileges(const HiloKeyRow *row, Oid role)
{
	if (!row->own_seq && pg_class_aclcheck(row->seqid, role, ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(row->seqid)),
				 errdetail("Changing the block size moves the key's sequence forward, as setval() does."),
				 errhint("Changing the block size of a bound key needs UPDATE on its sequence.")));
	if (idgen::hilo_size_is_increment(row->strategy) &&
		!idgen_rel_ownercheck(row->seqid, role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of sequence %s", hilo_relname(row->seqid)),
				 errdetail("The block size of a %s key is its sequence's INCREMENT, which only the sequence's owner may change.",
						   idgen::hilo_strategy_name(row->strategy))));
}

/* Moving a key in use to seqid sets seqid forward: UPDATE, for role. */
void
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
 * else the next block under max_lo must start above every block drawn
 * under the old size, and the row is rewritten.
 *
 * A key's own sequence keeps its position in ids: the next block starts at
 * the first id no block reached (and inside this node's range), whatever
 * the sizes, so that growing the block size never rescales the position
 * (v * max_lo would multiply it, and carry a node's key out of its range).
 * Where that block needs a value below the one the sequence would return,
 * the key moves to a new own sequence placed there, and the old one is
 * returned for the caller to drop: a sequence never moves back, since
 * setval() is not transactional and a crash before the commit would pair
 * the old block size with a lower value.  A bound sequence is the
 * application's: it only moves forward (hilo_rebase).
 */
static Oid
hilo_set_max_lo_sql(Oid relid, int32 max_lo, Oid caller, int64 taken_to, bool adaptive)
{
	HiloKeyRow	row;
	bool		pooled;
	int64		next_v;
	int64		new_next_v = 0;
	HiloStatus	st;
	Oid			types[3] = {REGCLASSOID, INT4OID, TEXTOID};
	Datum		values[3];
	char	   *newseq = NULL;

	if (!hilo_lock_for_change(relid, InvalidOid, &row))
	{
		hilo_create_key_sql(relid, max_lo, taken_to, adaptive);
		CacheInvalidateRelcacheByRelid(relid);
		return InvalidOid;
	}
	if (hilo_row_size(&row) == max_lo)
		return InvalidOid;		/* nothing to change */
	hilo_check_set_max_lo_privileges(&row, caller);

	pooled = idgen::hilo_size_is_increment(row.strategy);
	next_v = hilo_seq_next_value(row.seqid);
	if (row.own_seq)
	{
		idgen::HiloNodeRange range = hilo_this_node_range();

		st = idgen::hilo_move(row.strategy, next_v, hilo_row_size(&row), row.strategy, 0, max_lo,
							  &new_next_v);
		if (st == HiloStatus::ok)
			st = idgen::hilo_floor(row.strategy, max_lo, range.first - 1, new_next_v, &new_next_v);
	}
	else
		st = idgen::hilo_rebase(row.strategy, next_v, hilo_row_size(&row), max_lo, &new_next_v);
	if (st != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("cannot change the block size of the Hi/Lo key of table %s to %d",
						hilo_relname(relid), max_lo),
				 errdetail("Its next block would give ids above 9223372036854775807."),
				 errhint("Nothing was changed.")));

	if (new_next_v < next_v)
		newseq = hilo_new_own_seq(row.strategy, max_lo, new_next_v);
	else
	{
		if (pooled && row.increment != max_lo)
		{
			/* The block size of pooled strategies is the increment. */
			char	   *sql = psprintf("ALTER SEQUENCE %s INCREMENT BY %d",
									   hilo_quoted_name(row.seqid), max_lo);

			hilo_spi(sql, 0, NULL, NULL, SPI_OK_UTILITY);
		}
		hilo_seq_set_next(row.seqid, new_next_v);
	}
	values[0] = ObjectIdGetDatum(relid);
	values[1] = Int32GetDatum(max_lo);
	values[2] = CStringGetTextDatum(newseq != NULL ? newseq : "");
	/* seq::regclass: the column is regclass before the update to 1.3. */
	hilo_spi(newseq != NULL
			 ? "UPDATE id_gen.hilo_key SET max_lo = $2, seq = $3::pg_catalog.regclass WHERE relid = $1"
			 : "UPDATE id_gen.hilo_key SET max_lo = $2 WHERE relid = $1",
			 newseq != NULL ? 3 : 2, types, values, SPI_OK_UPDATE);
	CacheInvalidateRelcacheByRelid(relid);
	return newseq != NULL ? row.seqid : InvalidOid;
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
	/* The row names the sequence (HiloKeyRow, hilo.hpp). */
	Oid			types[4] = {REGCLASSOID, TEXTOID, TEXTOID, INT4OID};
	Datum		values[4] = {ObjectIdGetDatum(relid), CStringGetTextDatum(hilo_quoted_name(seqid)),
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

/*
 * hilo_set_adaptive's change, in a privileged SPI context like
 * hilo_set_max_lo_sql: the key (created first if not used yet, with block
 * size max_lo) takes runs of blocks that adapt per backend, or one block at
 * a time.  Blocks keep their formula and size, so no sequence moves; the
 * change is still committed at once, so that the caller's transaction never
 * writes the key's row (a row it wrote would make later changes of the key
 * in that transaction its own, undone by its rollback).
 */
static void
hilo_set_adaptive_sql(Oid relid, bool adaptive, int32 max_lo, int64 taken_to)
{
	HiloKeyRow	row;
	Oid			types[2] = {REGCLASSOID, BOOLOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), BoolGetDatum(adaptive)};

	if (!hilo_lock_for_change(relid, InvalidOid, &row))
		hilo_create_key_sql(relid, max_lo, taken_to, adaptive);
	else if (row.adaptive == adaptive)
		return;
	hilo_spi("UPDATE id_gen.hilo_key SET adaptive = $2 WHERE relid = $1", 2, types, values,
			 SPI_OK_UPDATE);
	CacheInvalidateRelcacheByRelid(relid);
}

/* Runs req's operation (privileged SPI context, inside a transaction). */
static Oid
hilo_apply(HiloRequest *req)
{
	switch (req->op)
	{
		case HiloOp::create_key:
			hilo_create_key_sql(req->relid, req->max_lo, req->taken_to, req->adaptive);
			break;
		case HiloOp::set_max_lo:
			return hilo_set_max_lo_sql(req->relid, req->max_lo, req->caller, req->taken_to, req->adaptive);
		case HiloOp::bind:
			return hilo_bind_sql(req->relid, req->seqid, req->strategy, req->max_lo, req->caller);
		case HiloOp::set_adaptive:
			hilo_set_adaptive_sql(req->relid, req->adaptive, req->max_lo, req->taken_to);
			break;
		case HiloOp::orm_draw:
			hilo_orm_draw_sql(req);
			break;
	}
	return InvalidOid;
}

/* ---------------------------------------------------------------------
 * The worker and its callers
 * --------------------------------------------------------------------- */

/*
 * The key worker: runs one request (a first use's key creation, a
 * hilo_set_max_lo(), a hilo_bind()) in a transaction of its own, committed
 * before the caller continues.  So nothing the caller's transaction does
 * next (ROLLBACK, ROLLBACK TO SAVEPOINT, ROLLBACK PREPARED) can undo a key
 * or a change of it whose blocks may already be handed out, just as
 * nothing undoes a nextval() or a setval().  It runs as the extension
 * owner; the caller's privileges were checked by the caller, and are
 * checked again for the caller's role once the key is locked.  An ORM draw
 * runs the caller's statements, and its whole transaction, as the caller
 * (the security model, hilo.hpp).  An ERROR is logged and copied into the
 * request, for the caller to raise as its own.
 */
void
idgen_hilo_worker_main(Datum main_arg)
{
	dsm_segment *seg;
	HiloRequest *req;

	/*
	 * A cancelled caller terminates us (SIGTERM).  The default handler of
	 * background workers raises FATAL inside the signal handler, wherever
	 * the worker is, even holding a spinlock (seen: "stuck spinlock" PANIC
	 * in a later test); die() only sets the flag that the next
	 * CHECK_FOR_INTERRUPTS() acts on, as a backend's does.
	 */
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();
	seg = dsm_attach(DatumGetUInt32(main_arg));
	if (seg == NULL)
		proc_exit(0);			/* the caller gave up waiting */
	req = (HiloRequest *) dsm_segment_address(seg);
	BackgroundWorkerInitializeConnectionByOid(req->dboid, req->owner, 0);

	/*
	 * Never wait forever on a lock the waiting caller might hold.  An ORM
	 * draw waits on no lock a role controls (its hi row, its hi table): it
	 * gives up at once (FOR UPDATE NOWAIT, lock_timeout below), and its
	 * caller waits in its own backend and asks again (hilo_orm_draw), so
	 * that no role holds a worker slot while its transaction holds the row.
	 */
	SetConfigOption("lock_timeout", req->op == HiloOp::orm_draw ? "10ms" : "30s",
					PGC_SUSET, PGC_S_OVERRIDE);
	SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
	/*
	 * READ COMMITTED whatever the server's or database's defaults: each
	 * statement must see what committed while the worker waited for the key
	 * lock (a binding, a change); a REPEATABLE READ snapshot taken before
	 * the wait would not, and the worker would make a second key.
	 */
	SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PG_TRY();
	{
		Oid			drop;

		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");

		/*
		 * An ORM draw runs the caller's statements on the caller's hi table,
		 * and with them the caller's code (row security policies, checks,
		 * triggers, index expressions; deferred triggers fire at our
		 * commit): as the caller, in a security-restricted operation, until
		 * the transaction has committed (the security model, hilo.hpp).
		 */
		if (req->op == HiloOp::orm_draw)
			SetUserIdAndSecContext(req->caller,
								   SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
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
		SetUserIdAndSecContext(req->owner, 0);
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

/* ---------------------------------------------------------------------
 * Key workers per role
 * --------------------------------------------------------------------- */

/*
 * Background-worker slots are shared by the whole server (parallel query,
 * logical replication, other extensions).  A role whose key workers could
 * take them all (each held by that role's own code or locks) would keep
 * every other owner's first insert from starting a worker (issue 16,
 * defect 4).  So each role runs at most hilo_role_worker_limit() key
 * workers at once, counted here, by the role the worker acts for; its
 * further callers wait in their own backends, holding no slot.  A spinlock
 * guards the table; a backend counts at most one worker (its own, while it
 * waits for it), released on every exit path, FATAL included.
 */
#define HILO_ROLE_ENTRIES 64

struct HiloRoleWorkers
{
	slock_t		mutex;
	struct
	{
		Oid			role;		/* InvalidOid: free */
		int			running;
	}			e[HILO_ROLE_ENTRIES];
};

static void
hilo_role_workers_init(void *ptr)
{
	HiloRoleWorkers *w = static_cast<HiloRoleWorkers *>(ptr);

	SpinLockInit(&w->mutex);
	for (int i = 0; i < HILO_ROLE_ENTRIES; i++)
	{
		w->e[i].role = InvalidOid;
		w->e[i].running = 0;
	}
}

static const IdgenShmemStruct hilo_role_workers_shmem = {
	"id_gen Hi/Lo key workers", sizeof(HiloRoleWorkers), hilo_role_workers_init
};

static HiloRoleWorkers *hilo_role_workers = nullptr;
static Oid	hilo_role_counted = InvalidOid;	/* the role our worker is counted for */
static BackgroundWorkerHandle *hilo_worker_handle = nullptr;	/* ours, while it runs */
static bool hilo_exit_registered = false;

void
hilo_worker_shmem_init(void)
{
	idgen_shmem_register(&hilo_role_workers_shmem);
}

/* A quarter of max_worker_processes, at least one. */
static int
hilo_role_worker_limit(void)
{
	return Max(1, max_worker_processes / 4);
}

/* Counts a worker for role, unless it runs its limit already (or the table is full). */
static bool
hilo_role_take(Oid role)
{
	int			found = -1;
	int			free_entry = -1;
	bool		taken = false;

	SpinLockAcquire(&hilo_role_workers->mutex);
	for (int i = 0; i < HILO_ROLE_ENTRIES; i++)
	{
		if (hilo_role_workers->e[i].role == role)
			found = i;
		else if (hilo_role_workers->e[i].role == InvalidOid && free_entry < 0)
			free_entry = i;
	}
	if (found < 0 && free_entry >= 0)
	{
		found = free_entry;
		hilo_role_workers->e[found].role = role;
		hilo_role_workers->e[found].running = 0;
	}
	if (found >= 0 && hilo_role_workers->e[found].running < hilo_role_worker_limit())
	{
		hilo_role_workers->e[found].running++;
		taken = true;
	}
	SpinLockRelease(&hilo_role_workers->mutex);
	if (taken)
		hilo_role_counted = role;
	return taken;
}

static void
hilo_role_release(void)
{
	if (!OidIsValid(hilo_role_counted) || hilo_role_workers == nullptr)
		return;
	SpinLockAcquire(&hilo_role_workers->mutex);
	for (int i = 0; i < HILO_ROLE_ENTRIES; i++)
	{
		if (hilo_role_workers->e[i].role == hilo_role_counted)
		{
			if (--hilo_role_workers->e[i].running <= 0)
			{
				hilo_role_workers->e[i].running = 0;
				hilo_role_workers->e[i].role = InvalidOid;
			}
			break;
		}
	}
	SpinLockRelease(&hilo_role_workers->mutex);
	hilo_role_counted = InvalidOid;
}

/* A backend exiting (FATAL too) while its worker runs: stop it, uncount it. */
static void
hilo_role_exit(int code, Datum arg)
{
	if (hilo_worker_handle != nullptr)
		TerminateBackgroundWorker(hilo_worker_handle);
	hilo_worker_handle = nullptr;
	hilo_role_release();
}

/*
 * Stops a worker we were waiting for (we were cancelled) and waits, with
 * interrupts held and for 10 s at most, until it has exited: returning
 * while it still runs would let it go on and commit once whatever it waits
 * for (a lock the caller's next statement releases) is over.
 */
static void
hilo_stop_worker(BackgroundWorkerHandle *handle)
{
	pid_t		pid;
	TimestampTz give_up = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), 10000);

	TerminateBackgroundWorker(handle);
	HOLD_INTERRUPTS();
	while (GetBackgroundWorkerPid(handle, &pid) != BGWH_STOPPED &&
		   GetCurrentTimestamp() < give_up)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	RESUME_INTERRUPTS();
}

/*
 * Runs req in the key worker and waits until the worker has exited; raises
 * the worker's ERROR, if any, as ours, except that a worker that found an
 * ORM's hi row busy (55P03; it waits on no lock a role holds) makes us
 * return false, for the caller to wait and ask again.  what ("create",
 * "change") names the operation in messages.  If we are cancelled while
 * waiting, so is the worker (which may have committed by then, as a
 * cancelled COMMIT may).
 */
static constexpr int kHiloWorkerSlotWaitMs = 5000;

static void hilo_run_worker_counted(HiloRequest *req, const char *what);

bool
hilo_run_worker(HiloRequest *req, const char *what)
{
	Oid			role = GetUserId();
	TimestampTz give_up;

	if (hilo_role_workers == nullptr)
		hilo_role_workers = static_cast<HiloRoleWorkers *>(idgen_shmem_attach(&hilo_role_workers_shmem));
	if (!hilo_exit_registered)
	{
		before_shmem_exit(hilo_role_exit, (Datum) 0);
		hilo_exit_registered = true;
	}

	/* This role's other workers end soon, or their callers are cancelled. */
	give_up = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), kHiloWorkerSlotWaitMs);
	while (!hilo_role_take(role))
	{
		if (GetCurrentTimestamp() >= give_up)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("could not start a background worker to %s the Hi/Lo key of table %s",
							what, hilo_relname(req->relid)),
					 errdetail("Role %s already runs %d key workers, the most one role may (a quarter of max_worker_processes); none ended within %d seconds.",
							   GetUserNameFromId(role, false), hilo_role_worker_limit(),
							   kHiloWorkerSlotWaitMs / 1000),
					 errhint("Retry when fewer of the role's transactions hold its hi rows or keys, or raise max_worker_processes.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	PG_TRY();
	{
		hilo_run_worker_counted(req, what);
	}
	PG_CATCH();
	{
		hilo_role_release();
		PG_RE_THROW();
	}
	PG_END_TRY();
	hilo_role_release();

	if (req->failed && req->op == HiloOp::orm_draw && req->orm_row_busy &&
		req->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE)
		return false;
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
	return true;
}

/* hilo_run_worker, counted for our role: starts the worker and waits for it. */
static void
hilo_run_worker_counted(HiloRequest *req, const char *what)
{
	BackgroundWorker worker;
	BackgroundWorkerHandle *handle;
	dsm_segment *seg;
	HiloRequest *shared;
	volatile BgwHandleStatus status = BGWH_STOPPED;
	TimestampTz give_up;

	req->dboid = MyDatabaseId;
	req->owner = idgen_extension_owner();
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

	/*
	 * Slots free up as other workers (ours for other keys, parallel query)
	 * exit: a burst of first uses waits for one rather than failing.
	 */
	give_up = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), kHiloWorkerSlotWaitMs);
	while (!RegisterDynamicBackgroundWorker(&worker, &handle))
	{
		if (GetCurrentTimestamp() >= give_up)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
					 errmsg("could not start a background worker to %s the Hi/Lo key of table %s",
							what, hilo_relname(req->relid)),
					 errdetail("Keys are created and changed in transactions of their own, by a background worker; no worker slot came free within %d seconds.",
							   kHiloWorkerSlotWaitMs / 1000),
					 errhint("Raise max_worker_processes, or retry when fewer background workers run.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	hilo_worker_handle = handle;
	PG_TRY();
	{
		status = WaitForBackgroundWorkerShutdown(handle);
	}
	PG_CATCH();
	{
		hilo_stop_worker(handle);
		hilo_worker_handle = nullptr;
		PG_RE_THROW();
	}
	PG_END_TRY();
	hilo_worker_handle = nullptr;
	pfree(handle);
	if (status == BGWH_POSTMASTER_DIED)
		ereport(FATAL,
				(errcode(ERRCODE_ADMIN_SHUTDOWN),
				 errmsg("postmaster exited while a background worker changed a Hi/Lo key")));
	memcpy(req, shared, sizeof(HiloRequest));
	dsm_detach(seg);
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
	if (!hilo_data_max(relid, hilo_key_range(nullptr), &taken_to, &complete))
		taken_to = 0;

	if (hilo_created_here(relid))
	{
		HiloPrivState st;

		hilo_priv_enter(&st);
		hilo_create_key_sql(relid, max_lo, taken_to, idgen_hilo_adaptive);
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
		req.adaptive = idgen_hilo_adaptive;
		req.taken_to = taken_to;
		req.caller = GetUserId();
		hilo_run_worker(&req, "create");
	}
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
void
hilo_change_key(HiloRequest *req, const HiloKeyRow *row)
{
	Oid			newseq = req->op == HiloOp::bind ? req->seqid : InvalidOid;
	HiloSeqLock locks[2];
	int			n;

	/* The worker would write on behalf of a read-only transaction. */
	PreventCommandIfReadOnly(req->op == HiloOp::bind ? "hilo_bind()" :
							 req->op == HiloOp::set_adaptive ? "hilo_set_adaptive()" : "hilo_set_max_lo()");

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
