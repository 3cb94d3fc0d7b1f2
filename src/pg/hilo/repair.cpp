/*
 * hilo/repair.cpp: keys whose sequence cannot be trusted as it is.  Rows of
 * id_gen.hilo_key can arrive without their sequences (logical replication
 * carries tables, not sequences; pg_dump -t; a schema-only restore), name a
 * sequence that serves another key as its own, or name one never drawn
 * from that lies below the table's ids.  hilo_key_needs_repair() tells at
 * load time; the repair runs where keys are created (hilo_create_key_sql,
 * in the key worker's transaction, the key lock held): a missing own
 * sequence is made again above the data, a shared one is split, an undrawn
 * one is moved above the data.
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"

#include "pg/hilo/hilo.hpp"

extern "C" {
#include "common/int.h"
#include "access/relation.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_sequence.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "postmaster/bgworker.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/lmgr.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

using idgen::HiloStatus;
using idgen::HiloStrategy;

/* ---------------------------------------------------------------------
 * Names of own sequences
 * --------------------------------------------------------------------- */

/* Whether some key other than except_relid names the sequence (as text). */
static bool
hilo_rows_name_seq(const char *seqname, Oid except_relid)
{
	Oid			types[2] = {TEXTOID, OIDOID};
	Datum		values[2] = {CStringGetTextDatum(seqname), ObjectIdGetDatum(except_relid)};

	/* seq::text also reads a regclass column of a 1.2 install, qualified. */
	return hilo_spi("SELECT 1 FROM id_gen.hilo_key WHERE seq::pg_catalog.text = $1 AND relid::pg_catalog.oid <> $2",
					2, types, values, SPI_OK_SELECT) > 0;
}

/* Only names of the form the extension gives its own sequences are reused. */
static bool
hilo_is_own_seq_name(const char *name)
{
	const char *p = "id_gen.hilo_seq_";

	if (strncmp(name, p, strlen(p)) != 0 || name[strlen(p)] == '\0')
		return false;
	for (const char *c = name + strlen(p); *c; c++)
		if (*c < '0' || *c > '9')
			return false;
	return true;
}

/*
 * A number for a new own sequence, id_gen.hilo_seq_<n>, whose name neither
 * an existing relation nor a key row (say, one copied from another server
 * whose sequence does not exist here yet) has taken.
 */
int64
hilo_new_seq_number(void)
{
	Oid			nsp = get_namespace_oid("id_gen", false);

	for (;;)
	{
		bool		isnull;
		int64		n;
		char		rel[NAMEDATALEN];

		hilo_spi("SELECT pg_catalog.nextval('id_gen.hilo_seq_counter'::pg_catalog.regclass)",
				 0, NULL, NULL, SPI_OK_SELECT);
		n = hilo_spi_int8(1, &isnull);
		snprintf(rel, sizeof(rel), "hilo_seq_" INT64_FORMAT, n);
		if (OidIsValid(get_relname_relid(rel, nsp)))
			continue;
		if (hilo_rows_name_seq(psprintf("id_gen.%s", rel), InvalidOid))
			continue;
		return n;
	}
}

/* ---------------------------------------------------------------------
 * Load time
 * --------------------------------------------------------------------- */

/*
 * A sequence's last_value and is_called, read from its page as
 * sequence.c's read_seq_tuple does, without a privilege check (the caller
 * checked the table).  False if it is gone.  The lock is released at once:
 * held to the end of the transaction, it would make a concurrent
 * hilo_bind(), which drops the key's old sequence, wait for this backend
 * while this backend waits for it to draw.
 */
static bool
hilo_seq_read_page(Oid seqid, int64 *last_value, bool *is_called)
{
	Relation	rel = try_relation_open(seqid, AccessShareLock);
	bool		found = false;

	if (rel == NULL)
		return false;
	if (rel->rd_rel->relkind == RELKIND_SEQUENCE)
	{
		Buffer		buf = ReadBuffer(rel, 0);
		Page		page;
		HeapTupleHeader tup;
		Form_pg_sequence_data seq;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		tup = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, FirstOffsetNumber));
		seq = (Form_pg_sequence_data) ((char *) tup + tup->t_hoff);
		*last_value = seq->last_value;
		*is_called = seq->is_called;
		found = true;
		UnlockReleaseBuffer(buf);
	}
	relation_close(rel, AccessShareLock);
	return found;
}

/* Whether a sequence was never drawn from; *next: what nextval() returns first. */
static bool
hilo_seq_never_drawn(Oid seqid, int64 *next)
{
	bool		is_called = true;

	return hilo_seq_read_page(seqid, next, &is_called) && !is_called;
}

int64
hilo_seq_peek_next(Oid seqid, int64 increment)
{
	int64		last = 0;
	bool		is_called = false;
	int64		next;

	if (!hilo_seq_read_page(seqid, &last, &is_called) || !is_called)
		return last;
	return pg_add_s64_overflow(last, increment, &next) ? PG_INT64_MAX : next;
}

/* taken_to raised to just below this node's range, for an own sequence. */
static int64
hilo_node_floor(int64 taken_to)
{
	idgen::HiloNodeRange range = hilo_this_node_range();

	return range.first - 1 > taken_to ? range.first - 1 : taken_to;
}

/*
 * Whether the first block an undrawn sequence (nextval() would return next)
 * gives reaches the table's ids.  A key fresh from creation was placed
 * above them and is not: every backend's first use before the first draw
 * would otherwise start a worker for a repair that moves nothing.
 */
static bool
hilo_undrawn_below_data(Oid relid, const HiloKeyRow *row, int64 next)
{
	int64		taken = 0;
	int64		v = 0;
	bool		complete;

	if (!hilo_data_max(relid, hilo_key_range(row), &taken, &complete))
		return false;
	/* A floor past the end: the repair reports it. */
	return idgen::hilo_floor(row->strategy, hilo_row_size(row), taken, next, &v) != HiloStatus::ok ||
		v > next;
}

bool
hilo_key_needs_repair(Oid relid, const HiloKeyRow *row, bool never_drawn_too)
{
	HiloPrivState st;
	bool		repair = false;

	if (!OidIsValid(row->seqid))
		return true;
	if (row->own_seq)
	{
		hilo_priv_enter(&st);
		repair = hilo_rows_name_seq(row->seqname, relid);
		hilo_priv_leave(&st);
	}
	if (!repair)
		repair = hilo_own_seq_below_node(row);
	if (!repair && never_drawn_too)
	{
		int64		next = 0;

		if (hilo_seq_never_drawn(row->seqid, &next))
			repair = hilo_undrawn_below_data(relid, row, next);
	}
	return repair;
}

/* ---------------------------------------------------------------------
 * Creation and repair (privileged SPI, inside hilo_create_key_sql)
 * --------------------------------------------------------------------- */

void
hilo_place_new_seq(const char *seqname, int32 max_lo, int64 taken_to)
{
	Oid			seqid = hilo_seq_resolve(seqname);
	int64		v = 0;

	taken_to = hilo_node_floor(taken_to);
	if (idgen::hilo_floor(HiloStrategy::classic, max_lo, taken_to, 0, &v) != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("no Hi/Lo block of %d ids fits above id " INT64_FORMAT, max_lo, taken_to),
				 errhint("The table's ids reach the end of the bigint range.")));
	if (v > 0)
		hilo_seq_set_next(seqid, v);
}

/* Creates an own sequence under name, for a key with this formula, at v. */
static void
hilo_create_own_seq(const char *name, HiloStrategy strategy, int32 max_lo, int64 v)
{
	bool		pooled = idgen::hilo_size_is_increment(strategy);

	hilo_spi(psprintf("CREATE SEQUENCE %s AS bigint INCREMENT %d MINVALUE 0 START 0 NO CYCLE",
					  name, pooled ? max_lo : 1), 0, NULL, NULL, SPI_OK_UTILITY);
	hilo_spi(psprintf("GRANT SELECT ON SEQUENCE %s TO PUBLIC", name), 0, NULL, NULL, SPI_OK_UTILITY);
	if (v > 0)
		hilo_seq_set_next(hilo_seq_resolve(name), v);
}

char *
hilo_new_own_seq(HiloStrategy strategy, int32 max_lo, int64 v)
{
	char	   *name = psprintf("id_gen.hilo_seq_" INT64_FORMAT, hilo_new_seq_number());

	hilo_create_own_seq(name, strategy, max_lo, v);
	return name;
}

/*
 * Repairs are worth a line in the server log when the worker makes them
 * (it has no client); in the caller's transaction the caller sees them.
 */
static int
hilo_repair_elevel(void)
{
	return idgen_am_background_worker() ? LOG : NOTICE;
}

static void
hilo_set_row_seq(Oid relid, const char *name)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(relid), CStringGetTextDatum(name)};

	hilo_spi("UPDATE id_gen.hilo_key SET seq = $2 WHERE relid::pg_catalog.oid = $1",
			 2, types, values, SPI_OK_UPDATE);
	CacheInvalidateRelcacheByRelid(relid);
}

/*
 * An own key whose sequence does not exist here (its row came from another
 * server or a restore without it): create it, under its name if no other
 * key has taken that name, starting above the data.
 */
static void
hilo_recreate_own_seq(Oid relid, const HiloKeyRow *row, int64 taken_to)
{
	const char *name = row->seqname;
	int64		v = 0;
	int64		size = row->max_lo;

	taken_to = hilo_node_floor(taken_to);
	if (idgen::hilo_floor(row->strategy, size, taken_to, 0, &v) != HiloStatus::ok)
		hilo_exhausted(relid, taken_to);
	if (name == NULL || !hilo_is_own_seq_name(name) || hilo_rows_name_seq(name, relid))
		name = psprintf("id_gen.hilo_seq_" INT64_FORMAT, hilo_new_seq_number());
	hilo_create_own_seq(name, row->strategy, row->max_lo, v);
	hilo_set_row_seq(relid, name);
	ereport(hilo_repair_elevel(),
			(errmsg("created sequence %s for the Hi/Lo key of table %s", name, hilo_relname(relid)),
			 errdetail("The key's row names a sequence that does not exist in this database; its first block starts above the table's ids.")));
}

/*
 * Own keys naming one sequence (rows from another server or a restore can
 * name a sequence that serves a key of this database): every one of them
 * moves to a sequence of its own, starting above its data and above every
 * block any backend may hold from the shared one.
 */
static void
hilo_split_shared_seq(Oid relid, const HiloKeyRow *row, int64 taken_to)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(row->seqname)};
	int			nkeys;
	Oid		   *keys;
	int64		shared_next;

	/*
	 * No draw from it while we read where it stands.  We hold the key lock
	 * (hilo_create_key_sql), and a drawer of the other key takes the
	 * sequence's lock before its key lock: waiting here could deadlock.  If
	 * the sequence is busy, leave the split to a later first use (each
	 * backend loading the key checks again, hilo_key_needs_repair).
	 */
	if (!ConditionalLockRelationOid(row->seqid, ShareRowExclusiveLock))
		return;
	shared_next = hilo_seq_next_value(row->seqid);
	nkeys = (int) hilo_spi("SELECT relid::pg_catalog.oid FROM id_gen.hilo_key "
						   "WHERE own_seq AND seq::pg_catalog.text = $1 ORDER BY 1",
						   1, types, values, SPI_OK_SELECT);
	keys = (Oid *) palloc(nkeys * sizeof(Oid));
	for (int i = 0; i < nkeys; i++)
	{
		bool		isnull;

		keys[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	for (int i = 0; i < nkeys; i++)
	{
		HiloKeyRow	k;
		int64		taken = 0;
		int64		above_shared = 0;
		int64		v = 0;
		int64		size;
		bool		complete;
		char	   *name;

		if (!hilo_read_key(keys[i], &k, true))
			continue;
		size = hilo_row_size(&k);
		if (keys[i] == relid)
			taken = taken_to;
		else if (!hilo_data_max(keys[i], hilo_key_range(&k), &taken, &complete))
			taken = 0;
		taken = hilo_node_floor(taken);
		if (idgen::hilo_move(k.strategy, shared_next, size, k.strategy, 0, size, &above_shared) != HiloStatus::ok ||
			idgen::hilo_floor(k.strategy, size, taken, above_shared, &v) != HiloStatus::ok)
			hilo_exhausted(keys[i], taken);
		name = psprintf("id_gen.hilo_seq_" INT64_FORMAT, hilo_new_seq_number());
		hilo_create_own_seq(name, k.strategy, (int32) size, v);
		hilo_set_row_seq(keys[i], name);
		ereport(hilo_repair_elevel(),
				(errmsg("the Hi/Lo key of table %s now draws from %s", hilo_relname(keys[i]), name),
				 errdetail("Its sequence %s also served the key of another table as its own.", row->seqname)));
	}
}

void
hilo_repair_key_sql(Oid relid, int64 taken_to)
{
	HiloKeyRow	row;

	if (!hilo_read_key(relid, &row, true))
		return;
	if (!OidIsValid(row.seqid))
	{
		/* A bound key's sequence is the application's: not ours to create. */
		if (row.own_seq)
			hilo_recreate_own_seq(relid, &row, taken_to);
		return;
	}
	if (row.own_seq && hilo_rows_name_seq(row.seqname, relid))
	{
		hilo_split_shared_seq(relid, &row, taken_to);
		return;
	}

	/*
	 * Never drawn from: fresh from a schema-only restore (a logical
	 * replica's schema), or bound but not used yet.  It may lie below the
	 * table's rows; move it above them.  We hold the key lock, which every
	 * hilo draw of this key takes before nextval(): for the key's own
	 * sequence (nobody else may draw from it) that excludes every draw.  A
	 * bound sequence is the application's too: lock it, but only if it is
	 * free, since a drawer takes it before the key lock and waiting could
	 * deadlock; a busy one is being drawn from, and draws check the data.
	 */
	if (!row.own_seq && !ConditionalLockRelationOid(row.seqid, ShareRowExclusiveLock))
		return;
	{
		int64		next = hilo_seq_next_value(row.seqid);
		int64		v = 0;

		/* An own sequence also moves into this node's range. */
		if (row.own_seq)
			taken_to = hilo_node_floor(taken_to);
		if (idgen::hilo_floor(row.strategy, hilo_row_size(&row), taken_to, next, &v) != HiloStatus::ok)
			hilo_exhausted(relid, taken_to);
		if (v > next)
		{
			hilo_seq_set_next(row.seqid, v);
			CacheInvalidateRelcacheByRelid(relid);
		}
	}
}
