/*
 * hilo.hpp: Hi/Lo keys, the PostgreSQL side (formulas and the backend's cache
 * are plain C++ in src/core/hilo.cpp; the guide is docs/hilo.md).  key.cpp:
 * what a key is, making one, the key list; next.cpp: hilo_next() and the
 * cache; reserve.cpp: ranges, readable ids; citus.cpp: shards' defaults.
 *
 * State.  A table t's key is what a serial is: the one sequence OWNED BY the
 * column of t whose default calls hilo_next('t').  The sequence counts ids
 * (value v gives v - INCREMENT + 1 .. v; INCREMENT BY is the block size), so
 * START, RESTART, CACHE, its bounds and pg_dump keep their meaning.  Nothing
 * of ours rewrites the default.  An ORM's sequence is named in the call
 * (hilo_next('app_seq', 'pooled_lo')), as nextval('app_seq') names it.
 *
 * Who runs as whom (sql/hilo_roles.sql).  A draw runs as the caller: an own
 * key needs INSERT on t or USAGE/UPDATE on its sequence (as a serial's
 * default), checked before any lock; hilo_reserve() and an ORM form need
 * what nextval() needs on the sequence.  hilo_create_key() runs one CREATE
 * SEQUENCE as the table's owner, search_path pinned.
 *
 * Locks.  A draw locks the sequence RowExclusiveLock as nextval() does, then
 * reads its pg_sequence row and data and calls nextval: an ALTER SEQUENCE
 * (ShareRowExclusiveLock) commits before or after, never between.
 */
#pragma once

#include "pg/pg.hpp"

#include "core/hilo.hpp"

extern "C" {
#include "access/attnum.h"
}

/* From _PG_init: the callbacks, the utility hook (hilo/citus.cpp); and a relcache
 * invalidation of relid (InvalidOid: all), from id_gen.cpp. */
extern void idgen_hilo_init(void);
extern void idgen_hilo_citus_init(void);
extern void idgen_hilo_relcache(Oid relid);

/* ---- hilo/key.cpp ---- */
extern char *hilo_relname(Oid relid);
extern char *hilo_quoted_name(Oid relid);
extern void hilo_refuse_in_recovery(void);
extern void hilo_null_argument(const char *what, const char *example);
extern Datum hilo_result_row(FunctionCallInfo fcinfo, Datum *values);
extern idgen::HiloStrategy hilo_strategy_arg(text *arg);	/* ERROR 22023 if unknown */
/* relid a table, not temporary; the caller owns it, may draw its ids (INSERT on it, or USAGE
 * or UPDATE on its key's sequence, as a serial's default) or use its key's sequence. */
enum class HiloNeed : uint8_t { owner, draw, sequence };
extern void hilo_check_table(Oid relid, HiloNeed need);
/* relid's key: its sequence and column (ERROR 55000 with the hint if none); memo dropped at
 * a relcache or pg_sequence invalidation (hilo_forget_key, InvalidOid: all). */
extern Oid	hilo_table_key(Oid relid, AttrNumber *attnum);
extern void hilo_forget_key(Oid relid);

/* ---- hilo/next.cpp ---- */
/* hilo_reserve(): one durable block of relid's key, never from a relfilenode this transaction made. */
extern idgen::HiloBlock hilo_draw_block(Oid relid);
extern void hilo_discard(void);	/* DISCARD SEQUENCES: drops this backend's blocks */
/* An own key's ids on this node: its range with id_gen.hilo_node_ranges, else all. */
extern idgen::HiloNodeRange hilo_own_range(void);

/* ---- hilo/reserve.cpp ---- */
extern char *hilo_text_table(Oid relid);	/* the table as text ids name it */

/* ---- hilo/citus.cpp ---- */
/* ERROR on a Citus node for a key whose sequence is not bigint. */
extern void hilo_citus_check_type(Oid seqtypid, Oid relid);
