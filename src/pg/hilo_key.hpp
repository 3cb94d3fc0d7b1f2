/*
 * hilo_key.hpp: what hilo.cpp (hilo_next, hilo_set_max_lo, hilo_bind, the
 * key-creating worker) and hilo_floor.cpp (the data floor, hilo_set_floor,
 * repairing keys whose sequence is missing or shared) share.
 *
 * Everything here is C-style PostgreSQL glue: no function owns a C++ object
 * with a destructor, so any of them may ereport(ERROR).
 */
#pragma once

#include "pg/pg.hpp"

#include "core/hilo.hpp"

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
	int64		increment;		/* 0 when the sequence does not exist */
};

/* Saved user, security context and GUC level of a privileged section. */
struct HiloPrivState
{
	Oid			save_userid;
	int			save_sec_context;
	int			nest_level;
};

/* hilo.cpp */
extern char *hilo_relname(Oid relid);
extern char *hilo_quoted_name(Oid relid);
extern void hilo_refuse_in_recovery(void);
extern void hilo_null_argument(const char *what, const char *example);
extern void hilo_check_table(Oid relid, bool need_owner);
extern bool hilo_read_key(Oid relid, HiloKeyRow *row, bool missing_ok = false);
extern int64 hilo_row_size(const HiloKeyRow *row);
extern void hilo_priv_enter(HiloPrivState *st);
extern void hilo_priv_leave(HiloPrivState *st);
extern uint64 hilo_spi(const char *sql, int nargs, Oid *types, Datum *values, int expect);
extern int64 hilo_spi_int8(int col, bool *isnull);
extern int64 hilo_seq_next_value(Oid seqid);
extern void hilo_seq_set_next(Oid seqid, int64 next_v);
extern void hilo_create_key(Oid relid, int32 max_lo);
extern void hilo_invalidate(Oid relid);

/* hilo_floor.cpp */

/* The sequence a stored name denotes, or InvalidOid (qualified names only). */
extern Oid	hilo_seq_resolve(const char *name);

/* The schema-qualified, quoted name a key row stores for a sequence. */
extern char *hilo_seq_name(Oid seqid);

/*
 * The largest id in a key's column(s): the columns whose DEFAULT is
 * hilo_next(relid), in every table (and every partition or inheritance
 * child) that has one.  Ids being inserted by transactions still in progress
 * count.  cheap_only: read only columns a btree index leads with (one index
 * probe each) and set *complete to false if some column has none; otherwise
 * read the others in full.  Returns false if no column holds an id.
 */
extern bool hilo_data_max(Oid relid, bool cheap_only, int64 *max, bool *complete);

/*
 * Load time: whether the key described by row must be repaired (by
 * hilo_create_key, in a transaction of its own) before a backend draws
 * from it: its sequence is missing, serves another key as that key's own,
 * or was never drawn from (fresh from a schema-only restore, or never used
 * since it was bound) and so may lie below the table's data.  After a
 * repair, a sequence may still be undrawn (it already lay above the data):
 * never_drawn_too = false asks only about a missing or shared one.
 */
extern bool hilo_key_needs_repair(Oid relid, const HiloKeyRow *row, bool never_drawn_too = true);

/*
 * Whether relid's key row was written by this transaction (hilo_bind in an
 * open transaction): the worker could not see it, and would wait forever on
 * its unique index entry; it is repaired in this transaction instead.
 */
extern bool hilo_key_written_here(Oid relid);

/*
 * Key creation and repair, inside hilo_create_key_sql (privileged SPI, the
 * key lock held).  taken_to: the data floor the caller read.
 */
extern int64 hilo_new_seq_number(void);
extern void hilo_place_new_seq(const char *seqname, int32 max_lo, int64 taken_to);
extern void hilo_repair_key_sql(Oid relid, int64 taken_to);

/*
 * Draw time: whether a block just drawn may be handed out (it lies above
 * the column's largest id, as far as an index tells cheaply).  If not, the
 * sequence has been moved forward, or could not be and will be stepped by
 * drawing again; the caller draws again.
 */
extern bool hilo_block_above_data(Oid relid, Oid seqid, idgen::HiloStrategy strategy,
								  int64 size, const idgen::HiloBlock *block);

/* Whether ids already in the table reach into a cached block (cheap check). */
extern bool hilo_block_reached(Oid relid, const idgen::HiloBlock *block);
