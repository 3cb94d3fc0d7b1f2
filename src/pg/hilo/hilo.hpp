/*
 * hilo.hpp: Hi/Lo keys, the PostgreSQL side (the formulas and the
 * backend-local cache are plain C++ in src/core/hilo.cpp; the user's
 * description is README.md, "Hi/Lo keys").  One header for the module's
 * files, one file per execution context:
 *
 *   hilo/next.cpp     the per-row path: hilo_next(), the backend's cache of
 *                     blocks, drawing a block from the key's sequence
 *   hilo/worker.cpp   the key worker: creates and changes keys in a
 *                     transaction of its own, and the SQL it runs
 *   hilo/admin.cpp    the administrative functions: hilo_set_max_lo(),
 *                     hilo_bind(), hilo_set_floor()
 *   hilo/floor.cpp    the data floor: the key's columns and their largest
 *                     id, read when a key is made or its owner moves it
 *   hilo/repair.cpp   keys whose sequence is missing, shared or never drawn
 *                     from (logical replication, restores)
 *   hilo/catalog.cpp  the key table, locks, privileges, privileged SPI
 *   hilo/reserve.cpp  ranges for applications: hilo_reserve(),
 *                     hilo_return(), hilo_next_text()
 *   hilo/orm.cpp      keys bound to an ORM's hi table row: hilo_bind_table(),
 *                     drawing a block by advancing the row
 *   hilo/citus.cpp    a utility hook letting Citus create shards whose
 *                     default names a shell table not created yet
 *
 * On many nodes (Citus, or id_gen.hilo_node_ranges on) each node's own
 * keys draw from its node range (core hilo_node_range;
 * hilo_this_node_range, hilo/next.cpp); a single server uses the whole
 * space.
 *
 * Where the state lives:
 *  - id_gen.hilo_key: one row per key (table, sequence name, strategy,
 *    max_lo).  Read through its index (hilo_read_key), written only through
 *    SQL run as the extension owner, so that its constraints, the sql_drop
 *    trigger and pg_dump see ordinary rows.
 *  - one sequence per key: the source of hi values.  Sequences are
 *    non-transactional, WAL-logged and replicated, so a hi once drawn is
 *    never drawn again, whatever happens to the drawing transaction.
 *  - a backend-local cache (idgen::HiloCache) of each key's current block:
 *    the fast path is a hash lookup and an increment, nothing else.
 *
 * Locking and state / Security model.  Every Hi/Lo file follows it; a
 * change that reads, locks or runs another role's objects, or holds a shared
 * resource, says so here (sql/hilo_roles.sql, test/specs/hilo_roles.spec
 * and test/t/054_hilo_worker_slots.pl attack it).
 *
 *  - Who may do what.  hilo_next(), hilo_next_text(), hilo_reserve() and
 *    hilo_return() need INSERT on the table (checked again after any
 *    relcache, role or membership invalidation, never cached past one);
 *    hilo_set_max_lo(), hilo_bind(), hilo_bind_table(), hilo_set_floor()
 *    and hilo_set_adaptive() need the table's ownership, plus the
 *    privileges on the sequence or hi table they move (hilo/catalog.cpp,
 *    hilo/orm.cpp), checked again by the worker under the key lock.
 *
 *  - What runs as whom.  Our own SQL (the key table, sequences, setval)
 *    runs as the extension owner with search_path pg_catalog, pg_temp and
 *    qualified names (hilo_priv_enter), in the caller's backend or in the
 *    key worker; it runs no code of any other role.  The caller's code
 *    runs as the caller: in its own backend as usual, and in the key
 *    worker (an ORM draw: the hi table's row security policies, CHECK
 *    constraints, generated columns, index expressions, triggers) as the
 *    caller in a security-restricted operation from before the first
 *    statement to after the commit (hilo/worker.cpp), so that nothing of
 *    the caller's ever runs with the owner's rights.  PostgreSQL refuses
 *    deferred triggers there (42501): a hi table with one cannot be drawn
 *    from.  The worker is never switched back to the owner before commit.
 *
 *  - Which objects of other roles are read.  A draw reads no table: only
 *    the key's row and sequence.  The data floor (hilo/floor.cpp), read
 *    when a key is made and by its owner's hilo_set_floor(), reads only
 *    tables trusted for the key: the key table, its partitions and
 *    inheritance children, and tables owned by the key table's owner (on
 *    Citus also its shards).  Another role's table whose DEFAULT names the
 *    key is neither read nor locked.  An ORM draw reads the hi table the
 *    table's owner bound, as the drawing role.
 *
 *  - Locks, and for how long.  The key lock (hilo_lock_key: ShareLock for
 *    a draw, released at once; ExclusiveLock for a creation or change, to
 *    its commit) and the maker lock are object locks no SQL can take.  A
 *    draw holds RowExclusiveLock on the key's sequence to the end of the
 *    transaction (as nextval() does), and no lock on any table, partition
 *    or index.  A change takes ShareRowExclusiveLock on the
 *    sequences it moves (hilo_change_locks), in the worker.
 *
 *  - Shared resources one role can hold, and the bound.  Key workers take
 *    background-worker slots shared with parallel query and logical
 *    replication: a role runs at most a quarter of max_worker_processes
 *    (at least one) at once, counted in shared memory (hilo/worker.cpp);
 *    its further callers wait in their own backends, up to 5 s, then
 *    ERROR 53000.  An ORM draw's worker never waits on the hi row (FOR
 *    UPDATE NOWAIT, lock_timeout 10 ms): the caller waits in its own
 *    backend, asking again, within its lock_timeout (55P03) and
 *    statement_timeout.  Other workers wait at most 30 s (lock_timeout) for
 *    the key's own locks, which only the key's owner and writers can hold.
 *    A worker's output is a dynamic shared memory segment of the caller's.
 *
 *  - Transactions.  Keys and their changes are committed by the worker
 *    before the call returns (nothing the caller rolls back can undo
 *    them), except for a table created in the caller's transaction.  A
 *    binding (hilo_bind_table) is written in the caller's transaction, and
 *    no id is drawn through it until it has committed (55000).
 *
 * Everything declared here is C-style PostgreSQL glue: no function owns a
 * C++ object with a destructor, so any of them may ereport(ERROR).
 */
#pragma once

#include "pg/pg.hpp"
#include "pg/extension_owner.hpp"

#include "core/hilo.hpp"

extern "C" {
#include "storage/lockdefs.h"
}

/* From _PG_init: the invalidation callbacks of the backend's caches. */
extern void idgen_hilo_init(void);

/* hilo/citus.cpp: lets Citus create shards of tables with DEFAULT hilo_next(). */
extern void idgen_hilo_citus_init(void);

/* Whether name is a shard name of base: base, '_' and one or more digits. */
extern bool hilo_is_shard_name(const char *name, const char *base);

/* A relcache invalidation of relid (InvalidOid: all), from id_gen.cpp. */
extern void idgen_hilo_relcache(Oid relid);

/* ---------------------------------------------------------------------
 * Shared structures
 * --------------------------------------------------------------------- */

/*
 * What a key's row says, plus the increment of its sequence.  The row names
 * the sequence (schema-qualified, quoted as quote_qualified_identifier does)
 * rather than holding its OID, so that logical replication and restores can
 * carry it; the name is resolved at use.
 */
struct HiloKeyRow
{
	Oid			seqid;			/* InvalidOid: no such sequence here */
	char	   *seqname;		/* as stored (palloc'd); NULL if unknown */
	idgen::HiloStrategy strategy;
	int32		max_lo;
	bool		own_seq;
	bool		adaptive;		/* blocks adapt per backend (hilo_set_adaptive) */
	int64		increment;		/* 0 when the sequence does not exist */
};

/* The block size of a key: the core's rule (max_lo, or the increment). */
static inline int64
hilo_row_size(const HiloKeyRow *row)
{
	return idgen::hilo_block_size(row->strategy, row->max_lo, row->increment);
}

/* Saved user, security context and GUC level of a privileged section. */
struct HiloPrivState
{
	IdgenSavedUser saved;
	int			nest_level;
};

/* What the key worker is asked to do. */
enum class HiloOp : uint8_t
{
	create_key,					/* a first use (hilo_next, hilo_set_floor) */
	set_max_lo,					/* hilo_set_max_lo() */
	bind,						/* hilo_bind() */
	set_adaptive,				/* hilo_set_adaptive() */
	orm_draw					/* a block of a key bound to an ORM hi table row */
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
	idgen::HiloStrategy strategy;	/* bind: the formula */
	bool		adaptive;		/* set_adaptive: the new setting; else a new key's */
	int64		taken_to;		/* create_key, set_max_lo: the data floor the caller read */
	/* Set by the worker. */
	bool		committed;
	bool		failed;			/* it raised the ERROR below */
	int			sqlerrcode;
	Oid			drop_seqid;		/* bind: the key's former own sequence, to drop */
	char		message[1024];
	char		detail[1024];
	char		hint[1024];
	/* orm_draw: the hi row's statements, run as caller (hilo/orm.cpp), and the hi read. */
	char		orm_select[1024];
	char		orm_update[1024];
	char		orm_key[1024];	/* $1 of both; empty: the table has one row */
	bool		orm_has_key;
	int64		orm_hi;
	bool		orm_row_busy;	/* the worker's own FOR UPDATE NOWAIT found the row locked */
};

/* A sequence a change of a key locks, and how (hilo_change_locks). */
struct HiloSeqLock
{
	Oid			seqid;
	LOCKMODE	mode;
};

/* ---------------------------------------------------------------------
 * hilo/catalog.cpp: names, checks, the key table, locks, privileged SPI
 * --------------------------------------------------------------------- */

/* The table's name as regclass prints it: qualified when not visible. */
extern char *hilo_relname(Oid relid);

/* The schema-qualified, quoted name, for SQL text and for key rows. */
extern char *hilo_quoted_name(Oid relid);

/* The sequence a stored (qualified) name denotes, or InvalidOid. */
extern Oid	hilo_seq_resolve(const char *name);

extern void hilo_refuse_in_recovery(void);
extern void hilo_null_argument(const char *what, const char *example);
extern void hilo_check_max_lo(int32 max_lo);

/* The increment (and optionally the minimum) of a sequence. */
extern int64 hilo_seq_increment(Oid seqid, int64 *min = nullptr);

/*
 * A table argument must name an existing, permanent table; the caller must
 * own it (need_owner) or be allowed to INSERT into it.
 */
extern void hilo_check_table(Oid relid, bool need_owner);

/*
 * A key's sequence must be permanent and must not wrap around (CYCLE):
 * checked at bind and at every draw, since its owner may ALTER it later.
 */
extern void hilo_require_drawable_seq(Oid seqid);

/* True if relid (a table or a sequence) was created in this transaction. */
extern bool hilo_created_here(Oid relid);

/* The key lock of relid (see hilo/catalog.cpp for who takes it how). */
extern void hilo_lock_key(Oid relid, LOCKMODE mode);
extern void hilo_unlock_key(Oid relid, LOCKMODE mode);

/*
 * The maker lock of relid, held by a backend while the key worker creates
 * or repairs the key for it, so that concurrent first uses of one key wait
 * for one worker instead of each starting its own.  Distinct from the key
 * lock, which the worker itself takes.
 */
extern void hilo_lock_key_maker(Oid relid);
extern void hilo_unlock_key_maker(Oid relid);

/*
 * Reads relid's key row with the latest snapshot.  False if there is none.
 * A name that denotes no sequence is an ERROR unless missing_ok (then
 * seqid is InvalidOid, for the caller to repair).
 */
extern bool hilo_read_key(Oid relid, HiloKeyRow *row, bool missing_ok = false);

/* Whether relid's key row was written by this transaction. */
extern bool hilo_key_written_here(Oid relid);

/*
 * Privileged SQL: as the extension owner, search_path pg_catalog, pg_temp,
 * inside SPI.  hilo_spi runs one statement and returns the rows processed.
 */
extern void hilo_priv_enter(HiloPrivState *st);
extern void hilo_priv_leave(HiloPrivState *st);
extern uint64 hilo_spi(const char *sql, int nargs, Oid *types, Datum *values, int expect);
extern int64 hilo_spi_int8(int col, bool *isnull);

/* Where a sequence stands, and moving it (privileged SPI, sequence locked). */
extern int64 hilo_seq_next_value(Oid seqid);

/* The value nextval() would return next, read from the page (no privilege needed). */
extern int64 hilo_seq_peek_next(Oid seqid, int64 increment);
extern void hilo_seq_set_next(Oid seqid, int64 next_v);

/* Tells our own and (at commit) every backend's cache that relid changed. */
extern void hilo_invalidate(Oid relid);

/* Relcache invalidation of relid (InvalidOid: all): cached key table OIDs. */
extern void hilo_catalog_relcache(Oid relid);

/* ---------------------------------------------------------------------
 * hilo/next.cpp: drawing blocks (shared with hilo/reserve.cpp)
 * --------------------------------------------------------------------- */

/*
 * relid's key row, the key created (or repaired) first by the key worker
 * if need be; the caller checked the table and the privilege.
 */
extern void hilo_ensure_key(Oid relid, HiloKeyRow *row);

/*
 * A run of consecutive values of a key's sequence whose blocks follow each
 * other: one range of ids (hilo_take_run).
 */
struct HiloRun
{
	idgen::HiloBlock ids;
	int64		first_v;
	int64		last_v;
};

/*
 * The first lock of a draw: RowExclusiveLock on the key's sequence, as
 * nextval() takes it, and the check that it is permanent.  False (nothing
 * held) if it was dropped meanwhile: the key moved to another sequence (a
 * hilo_set_max_lo that grew the block, a hilo_bind), whose row the caller
 * reads again.
 */
extern bool hilo_lock_seq_for_draw(Oid seqid);

/*
 * Draws need whole blocks of relid's key, as row says, into run: value by
 * value, starting again after a value someone else took, or, when alone
 * (nobody else can draw from the sequence meanwhile: the key lock held
 * exclusively, and for a bound sequence the ALTER SEQUENCE lock), one value
 * and one setval() past the rest.  The caller holds the sequence and key
 * locks and makes the run durable (hilo_draw_durable) before using it.
 */
extern void hilo_take_run(Oid relid, const HiloKeyRow *row, int64 need, bool alone, HiloRun *run);

/*
 * A draw has its value(s) from seqid: makes them durable before any id is
 * handed out (WAL flushed up to the sequence page's LSN; a test build's
 * pause point first).
 */
extern void hilo_draw_durable(Oid seqid);

/*
 * The block value v gives: false for one entirely below 1 (draw again),
 * an ERROR on the third such attempt or if the block passes 2^63-1.
 */
extern bool hilo_block_checked(Oid relid, Oid seqid, idgen::HiloStrategy strategy, int64 v,
							   int64 size, int attempt, idgen::HiloBlock *block);

/*
 * This node's range of Hi/Lo ids (core hilo_node_range): on a Citus node,
 * or with id_gen.hilo_node_ranges on, the range of its worker id (set, or
 * derived from its Citus group); on a single server the whole space,
 * whatever id_gen.worker_id says.  ERROR 55000 for a group past 1023, or
 * node ranges on without a worker id.  Keys' own sequences draw inside it;
 * bound sequences are the application's, which numbers them.
 */
extern idgen::HiloNodeRange hilo_this_node_range(void);

/*
 * The ids a key draws from, and whose largest its data floor counts: this
 * node's range for an own sequence (row nullptr: a key not made yet, which
 * gets one), the whole space for a bound one.
 */
extern idgen::HiloNodeRange hilo_key_range(const HiloKeyRow *row);

/* Whether an own sequence's next block starts below this node's range. */
extern bool hilo_own_seq_below_node(const HiloKeyRow *row);

/* ERROR if block passes the end of this node's range (own sequences). */
extern void hilo_check_node_end(Oid relid, const HiloKeyRow *row, const idgen::HiloBlock *block);

/*
 * WARNING when block reaches id_gen.headroom_warning_percent (and again at
 * _critical_percent) of the key's ids: its node's range, its sequence's
 * MAXVALUE, bigint (hilo/headroom.cpp; the view id_gen.headroom agrees).
 */
extern void hilo_warn_near_end(Oid relid, const HiloKeyRow *row, idgen::HiloNodeRange range,
							   const idgen::HiloBlock *block);

/* ---------------------------------------------------------------------
 * hilo/worker.cpp: creating and changing keys
 * --------------------------------------------------------------------- */

/*
 * Creates relid's key with block size max_lo, or repairs it: in the key
 * worker, or here for a table (or key row) created in this transaction.
 */
extern void hilo_create_key(Oid relid, int32 max_lo);

/*
 * Runs a change of a key (hilo_set_max_lo, hilo_bind), given its row as the
 * caller read it (nullptr: none): committed at once by the key worker.
 */
extern void hilo_change_key(HiloRequest *req, const HiloKeyRow *row);

/* The sequences a change of a key locks before the key lock, in OID order. */
extern int	hilo_change_locks(const HiloKeyRow *row, Oid newseq, HiloSeqLock locks[2]);

/*
 * Runs req in the key worker, committed before it returns; raises its
 * ERROR.  False (nothing done) only for an ORM draw whose hi row was busy:
 * the caller waits and asks again (hilo_orm_draw).  Each role runs a
 * bounded number of key workers at once (the security model above).
 */
extern bool hilo_run_worker(HiloRequest *req, const char *what);

/* From _PG_init: the shared count of key workers per role. */
extern void hilo_worker_shmem_init(void);

/* Privileges a change needs besides owning the table, for role. */
extern void hilo_check_set_max_lo_privileges(const HiloKeyRow *row, Oid role);
extern void hilo_check_move_privilege(Oid seqid, Oid role);

/* ---------------------------------------------------------------------
 * hilo/floor.cpp: the data floor
 * --------------------------------------------------------------------- */

/*
 * The largest id in range (hilo_key_range) in a key's column(s): the
 * columns whose DEFAULT is hilo_next(relid), in every table (and every
 * partition or inheritance child) that has one.  Ids outside the range
 * (another node's, replicated here) do not count; ids being inserted by
 * transactions still in progress do.  Columns a btree index leads with are
 * read by one index probe each, the others in full.  Returns false
 * if no column holds an id in the range.
 */
extern bool hilo_data_max(Oid relid, idgen::HiloNodeRange range, int64 *max, bool *complete);

/* The key's data reaches the end of the bigint range: ERROR. */
[[noreturn]] extern void hilo_exhausted(Oid relid, int64 taken_to);

/* ---------------------------------------------------------------------
 * hilo/repair.cpp: creation and repair inside the key's transaction
 * --------------------------------------------------------------------- */

/*
 * Load time: whether the key described by row must be repaired (by
 * hilo_create_key, in a transaction of its own) before a backend draws
 * from it: its sequence is missing, serves another key as that key's own,
 * or was never drawn from (fresh from a schema-only restore, or never used
 * since it was bound) and lies below the table's data.
 * never_drawn_too = false asks only about a missing or shared one.
 */
extern bool hilo_key_needs_repair(Oid relid, const HiloKeyRow *row, bool never_drawn_too = true);

/*
 * Inside the creation of a key (privileged SPI, the key lock held).
 * taken_to: the data floor the caller read.
 */
extern int64 hilo_new_seq_number(void);
extern void hilo_place_new_seq(const char *seqname, int32 max_lo, int64 taken_to);
extern void hilo_repair_key_sql(Oid relid, int64 taken_to);

/* A new own sequence for a key with this formula, at v: its qualified name. */
extern char *hilo_new_own_seq(idgen::HiloStrategy strategy, int32 max_lo, int64 v);

/* ---------------------------------------------------------------------
 * hilo/orm.cpp: keys bound to an ORM's hi table row
 * --------------------------------------------------------------------- */

/*
 * Whether relid's key is bound to a hi table row (id_gen.hilo_orm_key), and
 * with which formula and block size (either may be nullptr).
 */
extern bool hilo_orm_bound(Oid relid, idgen::HiloStrategy *strategy, int64 *size);

/*
 * Refuses a sequence key (creation, change) for a table bound to a hi table
 * row: called with the key lock held, so that hilo_bind_table and a key's
 * creation never both succeed.
 */
extern void hilo_orm_refuse_sequence_key(Oid relid);

/*
 * Draws the next block of relid's key from its hi table row, whose binding
 * must still say strategy and size: false if it no longer does.
 */
extern bool hilo_orm_draw(Oid relid, idgen::HiloStrategy strategy, int64 size, idgen::HiloBlock *block);

/* In the key worker: advances the hi row of req as the ORM does. */
extern void hilo_orm_draw_sql(HiloRequest *req);
