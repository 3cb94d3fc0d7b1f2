/*
 * hilo.hpp: Hi/Lo keys, the PostgreSQL side (formulas and the backend's cache
 * are plain C++ in src/core/hilo.cpp; the guide is docs/hilo.md).  key.cpp:
 * what a key is, its checks and sequence; next.cpp: hilo_next() and the
 * cache; ddl.cpp: the event triggers that make keys; admin.cpp: the owner's
 * changes, the key list; reserve.cpp: ranges, readable ids; orm.cpp: an ORM's
 * hi row; citus.cpp: shards' defaults, a worker's window.
 *
 * State.  A key is a sequence and a formula in its column's default,
 * hilo_next('s.t'::regclass, 's.t_id_seq'::regclass, 'classic', 1000, true,
 * NULL) (table, sequence, strategy, max_lo, adaptive, hi table).  An own key's
 * sequence is OWNED BY that column, so PostgreSQL drops, dumps, restores,
 * moves and replicates it with the table; a bound key names the application's.
 * Nothing else is stored, no draw reads a table's rows, and the backend's
 * cache holds each key's block.
 *
 * Who runs as whom (sql/hilo_roles.sql, test/specs/hilo_roles.spec).  A draw
 * (hilo_next, hilo_reserve) needs INSERT on the key's table, as an identity
 * column, and nothing on its own sequence; a bound key also needs what
 * nextval() needs on the application's, and a call draws only under the
 * formula the table's own default states.  A change is the table owner's DDL
 * (the event trigger, hilo_set_max_lo() and friends), whose SQL runs as that
 * owner, search_path pinned, security-restricted; no other role's code runs.
 *
 * Locks.  A draw: the table's AccessShareLock and the sequence's
 * RowExclusiveLock, as nextval() (to the end of the transaction), then the
 * key's draw lock (an object lock: pg_class, the sequence's OID, sub-id 1,
 * which no SQL command takes), ShareLock for one block, ExclusiveLock for a
 * run, released once the values are drawn.  A change: the table's
 * AccessExclusiveLock, then the draw lock ExclusiveLock to the end of the
 * (sub)transaction, which may not draw from the key (a ROLLBACK would bring
 * the old formula back); other backends draw before it or under the
 * committed formula.
 *
 * No C++ object with a destructor lives across a call that may
 * ereport(ERROR); the core's calls that may throw go through idgen_guard().
 */
#pragma once

#include "pg/pg.hpp"

#include "core/hilo.hpp"

extern "C" {
#include "access/attnum.h"
#include "catalog/pg_sequence.h"
#include "nodes/pg_list.h"
#include "storage/lockdefs.h"
}

/* From _PG_init: the invalidation callbacks, the utility hook (hilo/citus.cpp); and a
 * relcache invalidation of relid (InvalidOid: all), from id_gen.cpp. */
extern void idgen_hilo_init(void);
extern void idgen_hilo_citus_init(void);
extern void idgen_hilo_relcache(Oid relid);

/* ---- hilo/key.cpp: what a key is ---- */

/* A key, as the default of its table's column states it. */
struct HiloKey
{
	Oid			relid;			/* the key's table */
	AttrNumber	attnum;			/* the column whose default states it */
	Oid			seqid;
	idgen::HiloStrategy strategy;
	int32		max_lo;			/* 0: the sequence's INCREMENT (pooled strategies) */
	bool		adaptive;
	char	   *hi_table;		/* an ORM's hi table (qualified name), or nullptr */
	int64		increment;		/* the sequence's */
	bool		own;			/* the sequence is OWNED BY a column of relid */
	/* Citus' window (hilo_citus_window): value v gives the ids of v - seq_base, plus id_base */
	int64		seq_base;
	int64		id_base;
};

static inline int64
hilo_key_size(const HiloKey *k)
{
	return idgen::hilo_block_size(k->strategy, k->max_lo, k->increment);
}

/* hilo/citus.cpp: key->seq_base and id_base (0 but on a Citus worker); ERROR if Citus
 * distributes relid already (its key is made before). */
extern void hilo_citus_window(HiloKey *key);
extern void hilo_citus_refuse_key(Oid relid);

/* The ids value v of key gives (core hilo_block, in key's window). */
extern idgen::HiloStatus hilo_key_block(const HiloKey *key, int64 v, idgen::HiloBlock *block);

/* funcid's C symbol if it is a C function of this library (only a superuser makes one). */
extern const char *hilo_c_symbol(Oid funcid);

/* What a column default is, for us. */
enum class HiloForm : uint8_t
{
	none,						/* not a call of hilo_next with constant arguments */
	short_form,					/* hilo_next('t') */
	full_form					/* hilo_next('t', 't_id_seq', ...): a key */
};

/* A default's form, the table it names, the full form's key (but increment, own); *textp: text. */
extern HiloForm hilo_parse_default(Node *expr, Oid *relid, HiloKey *key, bool *textp = nullptr);

/*
 * The attnums (| kHiloTextColumn: text form) of relid's columns whose default has
 * form and names relid (opened with AccessShareLock); *first: the first one's key.
 */
static const int kHiloTextColumn = 0x10000;
extern List *hilo_self_columns(Oid relid, HiloForm form, HiloKey *first = nullptr);

/* relid's key: its first full-form default naming relid (false if none; hilo_require_key:
 * ERROR 55000 naming the command that makes one); what is kept of it is dropped with
 * relid's relcache entry (hilo_forget_parsed, InvalidOid: all). */
extern bool hilo_table_key(Oid relid, HiloKey *key);
extern void hilo_require_key(Oid relid, HiloKey *key);
extern void hilo_forget_parsed(Oid relid);

/* The full-form default text of key (schema-qualified, for ALTER TABLE). */
extern char *hilo_key_expression(const HiloKey *key);

/* The name as regclass prints it; the schema-qualified, quoted name for SQL. */
extern char *hilo_relname(Oid relid);
extern char *hilo_quoted_name(Oid relid);

extern void hilo_refuse_in_recovery(void);
extern void hilo_null_argument(const char *what, const char *example);
extern void hilo_check_max_lo(int32 max_lo);
extern idgen::HiloStrategy hilo_strategy_arg(text *arg);

/* The function's composite result, none of values NULL. */
extern Datum hilo_result_row(FunctionCallInfo fcinfo, Datum *values);
/* Not in recovery; relid a table, not temporary, the caller's (need_owner) or insertable. */
extern void hilo_check_table(Oid relid, bool need_owner);
/* A key's sequence: not CYCLE, not temporary, unlogged only for an unlogged table. */
extern void hilo_require_drawable_seq(Oid seqid, Oid relid);

extern FormData_pg_sequence hilo_seq_params(Oid seqid);
extern Oid	hilo_rel_owner(Oid relid);

/* SQL run as role, search_path pinned, in a security-restricted operation, inside SPI. */
struct HiloAsRole
{
	Oid			saved_user;
	int			saved_sec;
	int			nest_level;
};
extern void hilo_as_role_enter(HiloAsRole *st, Oid role);
extern void hilo_as_role_leave(HiloAsRole *st);
extern void hilo_spi(const char *sql, int expect);

/* As the sequence's owner: the value nextval() would return next (*called: drawn from
 * yet); make nextval() return next_v next, forward only. */
extern int64 hilo_seq_next_value(Oid seqid, bool *called = nullptr);
extern void hilo_seq_move_to(Oid seqid, int64 next_v);

extern void hilo_draw_lock(Oid seqid, LOCKMODE mode);	/* "Locks" above */
extern void hilo_draw_unlock(Oid seqid, LOCKMODE mode);

/* ---- hilo/next.cpp: drawing blocks ---- */
/* The locks of a draw; ERROR (55000) in the transaction that made or changed the key. */
extern void hilo_lock_for_draw(const HiloKey *key, LOCKMODE draw_mode);
/* Draws need whole, adjacent blocks of key into run, durable, under the draw lock in draw_mode. */
extern void hilo_take_run(const HiloKey *key, int64 need, LOCKMODE draw_mode,
						  idgen::HiloBlock *run);
/* Makes a drawn value of seqid durable before any id of it is handed out. */
extern void hilo_draw_durable(Oid seqid);
/* An own key's ids: this node's range (on Citus or with id_gen.hilo_node_ranges), else all. */
extern idgen::HiloNodeRange hilo_key_range(const HiloKey *key);
/* The first value of key's sequence whose block lies above taken_to and in its range. */
extern int64 hilo_value_above(const HiloKey *key, int64 taken_to, int64 next_v);

/* ---- hilo/ddl.cpp ---- */
/* Rewrites key's defaults (short_only: its short forms) into its full form, as the owner. */
extern void hilo_write_defaults(const HiloKey *key, bool short_only);
/* The largest id in key's column and range (as the table's owner); 0: none. */
extern int64 hilo_column_max(const HiloKey *key);

/* ---- hilo/orm.cpp ---- */
/* ERROR unless key's hi table has the extension's trigger, enabled always, for key. */
extern void hilo_orm_check(const HiloKey *key);
/* Parks the key's next value in its hi row again (after hilo_set_floor moved the key). */
extern void hilo_orm_repark(const HiloKey *key);
