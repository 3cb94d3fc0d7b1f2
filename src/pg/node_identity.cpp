/*
 * node_identity.cpp: which node this is, for the ids that carry a node field
 * (snowflake and jsid worker ids, the decimal_id launch id), and
 * node_identity(), which reports it.
 *
 * The settings id_gen.worker_id and id_gen.launch_id win when set (>= 0).
 * Left automatic (-1), a node of a Citus cluster takes its group id, read
 * from pg_catalog.pg_dist_local_group of the current database.  A worker
 * learns its group only when the coordinator runs citus_add_node, and the
 * citus extension may come or go, so the group is read lazily, at most once
 * per transaction: the cache is dropped at every transaction's end.  Not
 * through a relcache callback on that table: PostgreSQL 15 allows 10 per
 * backend, Citus registers five, and the library keeps to its one
 * (id_gen.cpp).  The rules themselves (precedence, ranges) are pure and live
 * in src/core/node_identity.cpp.
 */
#include "pg/node_identity.hpp"

#include "core/decimal_id.hpp"
#include "core/snowflake.hpp"
#include "pg/guc.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_namespace_d.h"
#include "funcapi.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace ni = idgen::node_identity;

static bool ni_cached = false;		/* ni_on_citus and ni_group read in this transaction */
static bool ni_on_citus = false;
static int64 ni_group = 0;

/* Every transaction reads the group afresh. */
static void
ni_xact_callback(XactEvent event, void *arg)
{
	ni_cached = false;
}

void
idgen_node_identity_init(void)
{
	RegisterXactCallback(ni_xact_callback, nullptr);
}

/*
 * Reads the group from its one-row table, not through SQL: this runs on the
 * generators' per-row path once per transaction, and the table
 * belongs to Citus, whose privileges on it are not ours to need.
 */
static void
ni_load(void)
{
	bool		on_citus = false;
	int64		group = 0;
	Oid			relid = get_relname_relid("pg_dist_local_group", PG_CATALOG_NAMESPACE);

	if (OidIsValid(relid))
	{
		Relation	rel = table_open(relid, AccessShareLock);
		SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 0, nullptr);
		HeapTuple	tup = systable_getnext(scan);

		if (HeapTupleIsValid(tup))
		{
			bool		isnull;
			Datum		d = heap_getattr(tup, 1, RelationGetDescr(rel), &isnull);

			if (!isnull)
			{
				on_citus = true;
				group = DatumGetInt32(d);
			}
		}
		systable_endscan(scan);
		table_close(rel, AccessShareLock);
	}
	ni_on_citus = on_citus;
	ni_group = group;
	ni_cached = true;
}

bool
idgen_citus_group(int64 *group)
{
	if (!ni_cached)
		ni_load();
	*group = ni_group;
	return ni_on_citus;
}

ni::Resolved
idgen_node_worker(int32 max_worker)
{
	int64		group = 0;
	bool		on_citus = false;

	if (idgen_worker_id < 0)
		on_citus = idgen_citus_group(&group);
	return ni::resolve_worker(idgen_worker_id, on_citus, group, max_worker);
}

ni::Resolved
idgen_node_launch(void)
{
	int64		group = 0;
	bool		on_citus = false;

	if (idgen_launch_id < 0)
		on_citus = idgen_citus_group(&group);
	return ni::resolve_launch(idgen_launch_id, on_citus, group, idgen::decimal_id::kMaxLaunch);
}

/*
 * node_identity() → (citus_group_id, worker_id, worker_id_source,
 * jsid_worker_id, launch_id, launch_id_source): what this node writes into
 * its ids and where each value came from.  An id is NULL where the generator
 * would refuse (a group past the field, no launch id outside Citus), so that
 * a cluster check can list every node, usable or not.
 */
IDGEN_FUNCTION(node_identity)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	int64		group = 0;
	bool		on_citus = idgen_citus_group(&group);
	ni::Resolved w = idgen_node_worker(idgen::snowflake::kSnowflake.max_worker());
	ni::Resolved js = idgen_node_worker(idgen::snowflake::kJsid.max_worker());
	ni::Resolved l = idgen_node_launch();

	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	nulls[0] = !on_citus;
	values[0] = Int32GetDatum((int32) group);
	nulls[1] = w.status != ni::Status::Ok;
	values[1] = Int32GetDatum(w.id);
	values[2] = CStringGetTextDatum(ni::source_name(w.source));
	nulls[3] = js.status != ni::Status::Ok;
	values[3] = Int32GetDatum(js.id);
	nulls[4] = l.status != ni::Status::Ok;
	values[4] = Int32GetDatum(l.id);
	values[5] = CStringGetTextDatum(ni::source_name(l.source));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
