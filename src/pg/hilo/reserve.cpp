/*
 * hilo/reserve.cpp: Hi/Lo for applications.  hilo_reserve() hands a range
 * of a key's ids to application code (RavenDB's "range", the textbook
 * get_next_hi), hilo_return() takes the unused end of the session's latest
 * range back, hilo_next_text() writes ids in RavenDB's readable form.
 *
 * A range is a run of consecutive values of the key's sequence, whose
 * blocks follow each other (hilo_values_adjacent): whole blocks, never a
 * part of one, so a range never shares a block with a backend's cache.  It
 * is drawn under the sequence lock and then the key lock in ExclusiveLock
 * (draws of hilo_next take it in ShareLock), so no draw of the key runs
 * meanwhile; for a key's own sequence, which nothing else draws from, the
 * run is made with one setval() past its first value, whatever its length.
 * A bound sequence is shared with an application that calls nextval()
 * without our locks: the run is made that way only while the sequence is
 * locked as ALTER SEQUENCE locks it (granted at once or not at all), else
 * value by value, starting again after a value someone else took.  Like a
 * block of hilo_next, the range is made durable (WAL flushed up to the
 * sequence page) before it is returned.
 *
 * A return moves the sequence back, which is safe only when no id above the
 * new position can be in anybody's hands: the range must be this session's
 * latest (the session remembers it; nobody can return another session's
 * range, nor a block of hilo_next), the sequence must still stand exactly
 * where that range left it (nobody drew after it: checked under the same
 * locks a draw takes, the key lock exclusively, and for a bound sequence
 * the ALTER SEQUENCE lock, granted at once or the return is refused), and
 * only whole blocks at or above next_unused and above the table's largest
 * id are taken back.
 *
 * The client of the adaptive size (n NULL) is the session, per table: its
 * state lives here, in backend memory, with the latest range.
 */
#include "pg/pg.hpp"

#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"

extern "C" {
#include "common/int.h"
#include "access/htup_details.h"
#include "funcapi.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
}

extern "C" Datum hilo_next(PG_FUNCTION_ARGS);

using idgen::HiloBlock;
using idgen::HiloStatus;
using idgen::HiloStrategy;

/* A session's state for one table: the adaptive size and its latest range. */
struct HiloClient
{
	Oid			relid;			/* hash key */
	int64		size;			/* ids of its last range of adaptive size; 0: none */
	TimestampTz at;				/* when that range was handed out */
	/* The latest range (any size), for hilo_return; seqid 0: none. */
	Oid			seqid;
	HiloStrategy strategy;
	int64		block_size;
	int64		first_v;		/* its run of sequence values */
	int64		last_v;
	int64		first;			/* its ids */
	int64		last;
};

static HTAB *hilo_clients = nullptr;

static HiloClient *
hilo_client(Oid relid, bool create)
{
	bool		found;
	HiloClient *c;

	if (hilo_clients == nullptr)
	{
		HASHCTL		ctl;

		if (!create)
			return nullptr;
		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(HiloClient);
		ctl.hcxt = TopMemoryContext;
		hilo_clients = hash_create("id_gen Hi/Lo clients", 16, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	c = (HiloClient *) hash_search(hilo_clients, &relid, create ? HASH_ENTER : HASH_FIND, &found);
	if (c != nullptr && !found)
	{
		c->size = 0;
		c->at = 0;
		c->seqid = InvalidOid;
	}
	return c;
}

/* The checks every function of this file makes first. */
static Oid
hilo_app_table(FunctionCallInfo fcinfo, const char *what)
{
	Oid			relid;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table the ids are for, e.g. hilo_reserve('orders').");
	relid = PG_GETARG_OID(0);
	hilo_refuse_in_recovery();
	hilo_check_table(relid, false);
	/* A range is drawn (or given back) for good: not in a read-only transaction. */
	PreventCommandIfReadOnly(what);
	return relid;
}

/*
 * Draws a range of at least want ids (whole blocks) of relid's key, as seen
 * (read before the locks) says, into c.  False if the key changed meanwhile
 * (read it again).
 */
static bool
hilo_reserve_run(Oid relid, const HiloKeyRow *seen, int64 want, HiloClient *c)
{
	Oid			seqid = seen->seqid;
	HiloKeyRow	row;
	int64		size;
	int64		per;
	bool		alone;
	HiloRun		run;

	/* The order of a draw: the sequence, then the key (hilo_draw). */
	if (!hilo_lock_seq_for_draw(seqid))
		return false;			/* the key moved to another sequence and dropped it */
	hilo_lock_key(relid, ExclusiveLock);
	if (!hilo_read_key(relid, &row, true) || row.seqid != seqid || hilo_own_seq_below_node(&row))
	{
		hilo_unlock_key(relid, ExclusiveLock);
		return false;			/* changed, or to be moved into this node's range */
	}
	size = hilo_row_size(&row);
	per = idgen::hilo_ids_per_block(row.strategy, size);
	/* Nobody else takes values meanwhile: the key's own, or locked out. */
	alone = row.own_seq || ConditionalLockRelationOid(seqid, ShareRowExclusiveLock);
	/* Whole blocks: the block of hi 0 counts as one, though it lacks id 0. */
	hilo_take_run(relid, &row, (want + per - 1) / per, alone, &run);
	hilo_draw_durable(seqid);
	if (alone && !row.own_seq)
		UnlockRelationOid(seqid, ShareRowExclusiveLock);	/* setval() is not transactional */
	hilo_unlock_key(relid, ExclusiveLock);

	c->seqid = seqid;
	c->strategy = row.strategy;
	c->block_size = size;
	c->first_v = run.first_v;
	c->last_v = run.last_v;
	c->first = run.ids.next;
	c->last = run.ids.last;
	return true;
}

/*
 * hilo_reserve(tbl regclass, n integer DEFAULT NULL, OUT first_id bigint,
 * OUT last_id bigint): a range of at least n ids of tbl's key for the
 * application (whole blocks), or of the session's adaptive size when n is
 * NULL.  Needs INSERT on tbl, like hilo_next.
 */
IDGEN_FUNCTION(hilo_reserve)
{
	Oid			relid = hilo_app_table(fcinfo, "hilo_reserve()");
	bool		adaptive = PG_ARGISNULL(1);
	HiloClient *c;
	TimestampTz now = GetCurrentTimestamp();
	int64		want;
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (!adaptive && PG_GETARG_INT32(1) < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be at least 1, not %d", PG_GETARG_INT32(1)),
				 errhint("Pass the number of ids wanted, or NULL to let the server choose.")));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "hilo_reserve must return a composite type");

	c = hilo_client(relid, true);
	if (adaptive)
		want = idgen::hilo_adapt_range(c->size, c->size > 0 ? (now - c->at) / 1000 : 0);
	else
		want = PG_GETARG_INT32(1);

	for (;;)
	{
		HiloKeyRow	row;

		hilo_ensure_key(relid, &row);
		if (hilo_reserve_run(relid, &row, want, c))
			break;
	}
	if (adaptive)
	{
		c->size = want;
		c->at = now;
	}

	values[0] = Int64GetDatum(c->first);
	values[1] = Int64GetDatum(c->last);
	desc = BlessTupleDesc(desc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/*
 * hilo_return(tbl regclass, next_unused bigint, last_id bigint): takes back
 * the whole blocks of next_unused .. last_id when that range ends this
 * session's latest hilo_reserve() of tbl and nobody drew from the key since;
 * else changes nothing.  True if something was taken back.
 */
IDGEN_FUNCTION(hilo_return)
{
	Oid			relid = hilo_app_table(fcinfo, "hilo_return()");
	int64		next_unused;
	int64		last_id;
	HiloClient *c;
	HiloKeyRow	row;
	bool		locked_seq = false;
	bool		taken = false;

	if (PG_ARGISNULL(1))
		hilo_null_argument("next_unused", "Pass the first id the application did not use, e.g. hilo_return('orders', 1017, 1999).");
	if (PG_ARGISNULL(2))
		hilo_null_argument("last_id", "Pass the last id of the range, as hilo_reserve() gave it.");
	next_unused = PG_GETARG_INT64(1);
	last_id = PG_GETARG_INT64(2);
	c = hilo_client(relid, false);
	if (c == nullptr || !OidIsValid(c->seqid) || last_id != c->last)
		PG_RETURN_BOOL(false);	/* not the end of this session's latest range */
	if (next_unused < c->first || next_unused > last_id + 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("next_unused " INT64_FORMAT " lies outside the range " INT64_FORMAT " .. " INT64_FORMAT,
						next_unused, c->first, c->last),
				 errhint("Pass the first id the application did not use; last_id + 1 if it used them all.")));
	if (next_unused > last_id)
		PG_RETURN_BOOL(false);	/* all used: nothing to take back */

	/* The locks of a draw, the key's exclusively, as hilo_reserve takes them. */
	if (!hilo_read_key(relid, &row, true) || row.seqid != c->seqid)
		PG_RETURN_BOOL(false);
	LockRelationOid(row.seqid, RowExclusiveLock);
	hilo_lock_key(relid, ExclusiveLock);
	if (hilo_read_key(relid, &row, true) && row.seqid == c->seqid && row.strategy == c->strategy &&
		hilo_row_size(&row) == c->block_size &&
		(row.own_seq || (locked_seq = ConditionalLockRelationOid(row.seqid, ShareRowExclusiveLock))))
	{
		int64		h = 0;
		HiloPrivState st;

		hilo_priv_enter(&st);
		/*
		 * The sequence stands where the range left it: nobody drew after it,
		 * so no id above the range is in anybody's hands.  h: the first value
		 * whose block lies at or above next_unused, never below the range's
		 * first value (the values before it were others').
		 */
		if (!pg_add_s64_overflow(c->last_v, row.increment, &h) &&
			hilo_seq_next_value(row.seqid) == h &&
			next_unused <= last_id &&
			idgen::hilo_floor(c->strategy, c->block_size, next_unused - 1, c->first_v, &h) == HiloStatus::ok &&
			h <= c->last_v)
		{
			hilo_seq_set_next(row.seqid, h);
			taken = true;
		}
		hilo_priv_leave(&st);
	}
	if (locked_seq)
		UnlockRelationOid(row.seqid, ShareRowExclusiveLock);
	hilo_unlock_key(relid, ExclusiveLock);
	if (taken)
		c->seqid = InvalidOid;	/* one return per range */
	PG_RETURN_BOOL(taken);
}

/* ---------------------------------------------------------------------
 * Readable ids
 * --------------------------------------------------------------------- */

/*
 * The table part of a readable id: the table's name, schema-qualified
 * unless the schema is public, quoted where SQL needs it; the same in
 * every session, whatever its search_path.
 */
static char *
hilo_text_table(Oid relid)
{
	char	   *qualified = hilo_quoted_name(relid);	/* ERROR if it is gone */

	if (strcmp(get_namespace_name(get_rel_namespace(relid)), "public") == 0)
		return (char *) quote_identifier(get_rel_name(relid));
	return qualified;
}

/* hilo_next_text(tbl regclass): '<table>/<n>-<node tag>', n from hilo_next(tbl). */
IDGEN_FUNCTION(hilo_next_text)
{
	Oid			relid;
	int64		id;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table the ids are for, e.g. hilo_next_text('orders').");
	relid = PG_GETARG_OID(0);
	id = DatumGetInt64(DirectFunctionCall1(hilo_next, ObjectIdGetDatum(relid)));
	PG_RETURN_TEXT_P(cstring_to_text(psprintf("%s/" INT64_FORMAT "-%s", hilo_text_table(relid), id,
											  idgen_node_tag)));
}

/* hilo_parse_text(id text, OUT table_name text, OUT n bigint, OUT node_tag text) */
IDGEN_FUNCTION(hilo_parse_text)
{
	text	   *arg = PG_GETARG_TEXT_PP(0);
	const char *s = VARDATA_ANY(arg);
	size_t		len = VARSIZE_ANY_EXHDR(arg);
	size_t		table_len;
	size_t		tag_at;
	int64_t		n;
	TupleDesc	desc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (!idgen::hilo_parse_text_id(s, len, &table_len, &n, &tag_at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid Hi/Lo text id: \"%s\"", text_to_cstring(arg)),
				 errdetail("A text id has the form <table>/<n>-<node tag>, e.g. orders/54-A: n from 1 to 9223372036854775807 without sign or leading zeros, the tag 1 to %d letters, digits or underscores.",
						   (int) idgen::kHiloNodeTagMax)));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "hilo_parse_text must return a composite type");
	values[0] = PointerGetDatum(cstring_to_text_with_len(s, (int) table_len));
	values[1] = Int64GetDatum(n);
	values[2] = PointerGetDatum(cstring_to_text_with_len(s + tag_at, (int) (len - tag_at)));
	desc = BlessTupleDesc(desc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
