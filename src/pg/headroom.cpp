/*
 * headroom.cpp: id_gen.headroom_thresholds(), the one place the view
 * id_gen.headroom (sql/id_gen--2.0.0.sql) reads its thresholds from: the
 * id_gen.headroom_* settings the generators' exhaustion WARNINGs read
 * (snowflake.cpp, decimal_id.cpp), and the floor's step and the largest
 * clock step followed unconfirmed (clock.hpp), so that the view and the generators turn at the
 * same points.  A C function, not current_setting(): it loads the library,
 * whose settings a session that has not called a generator yet would not
 * know.  And id_gen.headroom_ms_capacity(): what id_gen.snowflake_start_spread
 * leaves of a millisecond of snowflake and jsid ids, for their rows.
 */
#include "pg/clock.hpp"
#include "pg/guc.hpp"
#include "pg/pg.hpp"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
}

#include "core/snowflake.hpp"

IDGEN_FUNCTION(headroom_thresholds)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};

	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int32GetDatum(idgen_headroom_warning_days);
	values[1] = Int32GetDatum(idgen_headroom_critical_days);
	values[2] = Float8GetDatum(idgen_headroom_warning_percent);
	values[3] = Float8GetDatum(idgen_headroom_critical_percent);
	values[4] = Int32GetDatum(IDGEN_FLOOR_STEP_MS);
	values[5] = Int32GetDatum(IDGEN_CLOCK_MAX_STEP_MS);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * id_gen.headroom_status(used_fraction, seconds_left) → 'ok', 'warning' or
 * 'critical': a used fraction (0..1) against the percent thresholds, a time
 * left (seconds) against the days thresholds; NULL judges nothing.  In C,
 * not SQL: the view calls it once per row, and a SQL function with a pinned
 * search_path costs tens of microseconds a call.
 */
IDGEN_FUNCTION(headroom_status)
{
	bool		has_used = !PG_ARGISNULL(0);
	bool		has_left = !PG_ARGISNULL(1);
	double		used = has_used ? PG_GETARG_FLOAT8(0) : 0;
	double		left = has_left ? PG_GETARG_FLOAT8(1) : 0;
	const char *status = "ok";

	if ((has_used && used * 100.0 >= idgen_headroom_critical_percent) ||
		(has_left && left < idgen_headroom_critical_days * 86400.0))
		status = "critical";
	else if ((has_used && used * 100.0 >= idgen_headroom_warning_percent) ||
			 (has_left && left < idgen_headroom_warning_days * 86400.0))
		status = "warning";
	PG_RETURN_TEXT_P(cstring_to_text(status));
}

/*
 * id_gen.headroom_ms_capacity('snowflake' | 'jsid') → (start_spread,
 * fewest_per_ms, saturated_per_ms): what id_gen.snowflake_start_spread, as
 * the generator applies it, leaves of a millisecond (core/snowflake.hpp,
 * capacity()), for the generator's row of the view.
 */
IDGEN_FUNCTION(headroom_ms_capacity)
{
	char	   *generator = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const idgen::snowflake::Layout *layout;
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (strcmp(generator, "snowflake") == 0)
		layout = &idgen::snowflake::kSnowflake;
	else if (strcmp(generator, "jsid") == 0)
		layout = &idgen::snowflake::kJsid;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("id_gen.headroom_ms_capacity(): unknown generator \"%s\"", generator),
				 errhint("Use 'snowflake' or 'jsid'.")));
	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	idgen::snowflake::Capacity c = idgen::snowflake::capacity(*layout, idgen_snowflake_start_spread);

	values[0] = Int32GetDatum(c.spread);
	values[1] = Int32GetDatum(c.fewest_per_ms);
	values[2] = Int32GetDatum(c.saturated_per_ms);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
