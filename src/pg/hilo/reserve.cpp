/*
 * hilo/reserve.cpp: hilo_reserve() hands a range of a key's ids to the
 * application (RavenDB's "range"), hilo_next_text() writes readable ids;
 * as the caller.  A range is whole blocks, drawn as a run (hilo_take_run,
 * the draw lock held exclusively), durable before it is returned.  The
 * adaptive size (n NULL) is kept per session and table, in backend memory.
 */
#include "pg/pg.hpp"

#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"

extern "C" {
#include "tcop/utility.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
}

extern "C" Datum hilo_next(PG_FUNCTION_ARGS);

using idgen::HiloBlock;

/* A session's state for one table: the adaptive size and its latest range. */
struct HiloClient
{
	Oid			relid;			/* hash key */
	int64		size;			/* ids of its last range of adaptive size; 0: none */
	TimestampTz at;				/* when that range was handed out */
};

static HTAB *hilo_clients = nullptr;

static HiloClient *
hilo_client(Oid relid)
{
	bool		found;
	HiloClient *c;

	if (hilo_clients == nullptr)
	{
		HASHCTL		ctl = {};

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(HiloClient);
		ctl.hcxt = TopMemoryContext;
		hilo_clients = hash_create("id_gen Hi/Lo clients", 16, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	c = (HiloClient *) hash_search(hilo_clients, &relid, HASH_ENTER, &found);
	if (!found)
	{
		c->size = 0;
		c->at = 0;
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
	hilo_check_table(relid, false);
	/* A range is drawn (or given back) for good: not in a read-only transaction. */
	PreventCommandIfReadOnly(what);
	return relid;
}

/* hilo_reserve(tbl, n DEFAULT NULL, OUT first_id, OUT last_id): at least n ids (NULL: adaptive). */
IDGEN_FUNCTION(hilo_reserve)
{
	Oid			relid = hilo_app_table(fcinfo, "hilo_reserve()");
	bool		adaptive = PG_ARGISNULL(1);
	HiloClient *c;
	TimestampTz now = GetCurrentTimestamp();
	HiloKey		key;
	int64		want;
	int64		per;
	HiloBlock	ids;
	Datum		values[2];

	/* A role that may draw must not burn a key faster than hilo_next() would. */
	if (!adaptive && (PG_GETARG_INT32(1) < 1 || PG_GETARG_INT32(1) > idgen::kHiloRangeMax))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be between 1 and %lld, not %d",
						(long long) idgen::kHiloRangeMax, PG_GETARG_INT32(1)),
				 errhint("Pass the number of ids wanted, or NULL to let the server choose; take more ranges for more ids.")));

	c = hilo_client(relid);
	if (adaptive)
		want = idgen::hilo_adapt_range(c->size, c->size > 0 ? (now - c->at) / 1000 : 0);
	else
		want = PG_GETARG_INT32(1);

	hilo_require_key(relid, &key);
	per = idgen::hilo_ids_per_block(key.strategy, hilo_key_size(&key));
	/* Whole blocks: the block of hi 0 counts as one, though it lacks id 0. */
	hilo_take_run(&key, (want + per - 1) / per, ExclusiveLock, &ids);
	if (adaptive)
	{
		c->size = want;
		c->at = now;
	}

	values[0] = Int64GetDatum(ids.next);
	values[1] = Int64GetDatum(ids.last);
	PG_RETURN_DATUM(hilo_result_row(fcinfo, values));
}

/* hilo_return(tbl, next_unused, last_id): false; moving a key back could repeat ids. */
IDGEN_FUNCTION(hilo_return)
{
	(void) hilo_app_table(fcinfo, "hilo_return()");
	if (PG_ARGISNULL(1))
		hilo_null_argument("next_unused", "Pass the first id the application did not use, e.g. hilo_return('orders', 1017, 1999).");
	if (PG_ARGISNULL(2))
		hilo_null_argument("last_id", "Pass the last id of the range, as hilo_reserve() gave it.");
	PG_RETURN_BOOL(false);
}

/* id as text: the table (qualified unless in public, quoted), the number, the node's tag. */
static text *
hilo_text_of(Oid relid, int64 id)
{
	char	   *table = hilo_quoted_name(relid);	/* ERROR if it is gone */

	if (strcmp(get_namespace_name(get_rel_namespace(relid)), "public") == 0)
		table = (char *) quote_identifier(get_rel_name(relid));
	return cstring_to_text(psprintf("%s/" INT64_FORMAT "-%s", table, id, idgen_node_tag));
}

/* hilo_next_text(tbl regclass): '<table>/<n>-<node tag>', n from hilo_next(tbl). */
IDGEN_FUNCTION(hilo_next_text)
{
	int64		id;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table the ids are for, e.g. hilo_next_text('orders').");
	id = DatumGetInt64(DirectFunctionCall1(hilo_next, PG_GETARG_DATUM(0)));
	PG_RETURN_TEXT_P(hilo_text_of(PG_GETARG_OID(0), id));
}

/* hilo_next_text(tbl, id): id as text; the text form of a key's default wraps its full form. */
IDGEN_FUNCTION(hilo_text_id)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		hilo_null_argument("table", "Pass the table the ids are for, e.g. hilo_next_text('orders').");
	PG_RETURN_TEXT_P(hilo_text_of(PG_GETARG_OID(0), PG_GETARG_INT64(1)));
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
	Datum		values[3];

	if (!idgen::hilo_parse_text_id(s, len, &table_len, &n, &tag_at))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid Hi/Lo text id: \"%s\"", text_to_cstring(arg)),
				 errdetail("A text id has the form <table>/<n>-<node tag>, e.g. orders/54-A: n from 1 to 9223372036854775807 without sign or leading zeros, the tag 1 to %d letters, digits or underscores.",
						   (int) idgen::kHiloNodeTagMax)));
	values[0] = PointerGetDatum(cstring_to_text_with_len(s, (int) table_len));
	values[1] = Int64GetDatum(n);
	values[2] = PointerGetDatum(cstring_to_text_with_len(s + tag_at, (int) (len - tag_at)));
	PG_RETURN_DATUM(hilo_result_row(fcinfo, values));
}
