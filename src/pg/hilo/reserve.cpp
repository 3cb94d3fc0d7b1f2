/*
 * hilo/reserve.cpp: hilo_reserve() hands ranges of whole blocks of a key to the application
 * (RavenDB's "range"), each drawn as hilo_next() draws one and durable before it is returned
 * (blocks others' draws left apart: separate ranges); hilo_next_text(): readable ids.
 */
#include "pg/pg.hpp"

#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"

extern "C" {
#include "funcapi.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"
}

extern "C" Datum hilo_next(PG_FUNCTION_ARGS);

using idgen::HiloBlock;

static void
hilo_put_range(ReturnSetInfo *rsinfo, HiloBlock run)
{
	Datum		values[2] = {Int64GetDatum(run.next), Int64GetDatum(run.last)};
	bool		nulls[2] = {false, false};

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* hilo_reserve(tbl, n DEFAULT NULL, OUT first_id, OUT last_id): ranges of at least n ids (NULL: one block). */
IDGEN_FUNCTION(hilo_reserve)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	int64		want = PG_ARGISNULL(1) ? 1 : PG_GETARG_INT32(1);
	int64		got = 0;
	HiloBlock	run = {1, 0};

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table the ids are for, e.g. hilo_reserve('orders', 100).");
	relid = PG_GETARG_OID(0);
	if (want < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("n must be at least 1, not " INT64_FORMAT, want),
				 errhint("Pass the number of ids wanted, or NULL for one block.")));
	hilo_check_table(relid, HiloNeed::sequence);
	/* A range is drawn for good: not in a read-only transaction. */
	PreventCommandIfReadOnly("hilo_reserve()");
	InitMaterializedSRF(fcinfo, 0);
	/* As many blocks as asked: a role that may use the sequence could draw them with nextval(). */
	while (got < want)
	{
		HiloBlock	b = hilo_draw_block(relid);

		CHECK_FOR_INTERRUPTS();
		got += b.last - b.next + 1;
		if (run.next <= run.last && b.next == run.last + 1)
			run.last = b.last;	/* adjacent: one range */
		else
		{
			if (run.next <= run.last)
				hilo_put_range(rsinfo, run);
			run = b;
		}
	}
	hilo_put_range(rsinfo, run);
	return (Datum) 0;
}

/* The table as a text id names it: qualified unless in public, quoted. */
char *
hilo_text_table(Oid relid)
{
	char	   *table = hilo_quoted_name(relid);	/* ERROR if it is gone */

	if (strcmp(get_namespace_name(get_rel_namespace(relid)), "public") == 0)
		table = (char *) quote_identifier(get_rel_name(relid));
	return table;
}

static text *
hilo_text_of(Oid relid, int64 id)
{
	return cstring_to_text(psprintf("%s/" INT64_FORMAT "-%s", hilo_text_table(relid), id, idgen_node_tag));
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

/* hilo_next_text(tbl, id): id as text. */
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
