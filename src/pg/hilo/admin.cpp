/*
 * hilo/admin.cpp: the administrative functions of Hi/Lo keys,
 * hilo_set_max_lo(), hilo_bind() and hilo_set_floor().  Each checks its
 * arguments and the caller's privileges here, for clear errors; the first
 * two then hand the change to the key worker (hilo/worker.cpp), which
 * commits it at once, like setval().
 */
#include "pg/pg.hpp"

#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
}

#include <climits>

using idgen::HiloBlock;
using idgen::HiloStatus;
using idgen::HiloStrategy;

/*
 * Hands a change that may create the key (set_max_lo, set_adaptive) to the
 * key worker, for the calling role; row is the key as read (nullptr: none
 * yet).  A key it creates starts above the table's rows, read here (see
 * hilo_create_key).
 */
static void
hilo_submit_change(HiloRequest *req, const HiloKeyRow *row)
{
	req->caller = GetUserId();
	if (row == nullptr)
	{
		bool		complete;

		if (!hilo_data_max(req->relid, hilo_key_range(nullptr), &req->taken_to, &complete))
			req->taken_to = 0;
	}
	hilo_change_key(req, row);
}

/*
 * hilo_set_max_lo(tbl, max_lo): changes the block size and moves the
 * sequence so that the next block under the new size starts above every
 * block drawn under the old one (hilo_set_max_lo_sql).  Committed at once,
 * by the key worker (hilo_change_key).
 */
IDGEN_FUNCTION(hilo_set_max_lo)
{
	Oid			relid;
	int32		max_lo;
	HiloKeyRow	row;
	bool		found;
	HiloRequest req;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key changes, e.g. hilo_set_max_lo('orders', 100).");
	if (PG_ARGISNULL(1))
		hilo_null_argument("max_lo", "Pass the number of ids per block, e.g. hilo_set_max_lo('orders', 100).");
	relid = PG_GETARG_OID(0);
	max_lo = PG_GETARG_INT32(1);
	hilo_check_max_lo(max_lo);
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);

	found = hilo_read_key(relid, &row);
	if (found)
	{
		if (hilo_row_size(&row) == max_lo)
			PG_RETURN_VOID();	/* nothing to change */
		hilo_check_set_max_lo_privileges(&row, GetUserId());
	}
	memset(&req, 0, sizeof(req));
	req.op = HiloOp::set_max_lo;
	req.relid = relid;
	req.max_lo = max_lo;
	req.adaptive = idgen_hilo_adaptive;	/* for a key it creates */
	hilo_submit_change(&req, found ? &row : nullptr);
	PG_RETURN_VOID();
}

/*
 * hilo_bind(tbl, seq, strategy, max_lo): makes tbl's key draw from an
 * existing sequence with the formula of the application's ORM, so that rows
 * the application keys itself and rows keyed by DEFAULT hilo_next('tbl')
 * share one key space.  For the pooled strategies the block size is the
 * sequence's INCREMENT, read from pg_sequence: trusting an argument instead
 * is how EF Core users got duplicates.  A key already in use is moved
 * (hilo_bind_sql).  Committed at once, by the key worker (hilo_change_key).
 */
IDGEN_FUNCTION(hilo_bind)
{
	Oid			relid;
	Oid			seqid;
	char	   *strategy_text;
	HiloStrategy strategy;
	int64		increment;
	int32		max_lo;
	bool		pooled;
	HiloKeyRow	row;
	bool		found;
	HiloRequest req;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table to bind, e.g. hilo_bind('orders', 'orders_hilo_seq', 'pooled_lo').");
	if (PG_ARGISNULL(1))
		hilo_null_argument("sequence", "Pass the sequence the application draws from, e.g. hilo_bind('orders', 'orders_hilo_seq', 'pooled_lo').");
	if (PG_ARGISNULL(2))
		hilo_null_argument("strategy", "Use one of: classic, legacy, pooled_lo, pooled, pooled_hibernate3.");
	relid = PG_GETARG_OID(0);
	seqid = PG_GETARG_OID(1);
	strategy_text = text_to_cstring(PG_GETARG_TEXT_PP(2));
	if (!idgen::hilo_parse_strategy(strategy_text, &strategy))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown Hi/Lo strategy \"%s\"", strategy_text),
				 errhint("Use one of: %s.", idgen::hilo_strategy_list)));
	pooled = idgen::hilo_size_is_increment(strategy);
	if (!PG_ARGISNULL(3))
		hilo_check_max_lo(PG_GETARG_INT32(3));
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);

	if (get_rel_relkind(seqid) != RELKIND_SEQUENCE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a sequence", get_rel_name(seqid) ? get_rel_name(seqid) : "?"),
				 errhint("Pass the sequence the application draws its hi values from.")));
	hilo_require_drawable_seq(seqid);
	if (pg_class_aclcheck(seqid, GetUserId(), ACL_UPDATE | ACL_USAGE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(seqid)),
				 errhint("Binding a key to a sequence needs USAGE or UPDATE on the sequence.")));
	increment = hilo_seq_increment(seqid);
	if (increment <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sequence %s counts down (INCREMENT " INT64_FORMAT ")", hilo_relname(seqid), increment),
				 errhint("Hi/Lo needs an ascending sequence.")));

	if (pooled)
	{
		if (increment > INT_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("INCREMENT " INT64_FORMAT " of sequence %s is too large for a block", increment,
							hilo_relname(seqid)),
					 errhint("Use an increment of at most %d.", INT_MAX)));
		if (!PG_ARGISNULL(3) && PG_GETARG_INT32(3) != increment)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_lo %d does not match the INCREMENT " INT64_FORMAT " of sequence %s",
							PG_GETARG_INT32(3), increment, hilo_relname(seqid)),
					 errdetail("With strategy %s the block size is the sequence's increment.", strategy_text),
					 errhint("Omit max_lo, or ALTER SEQUENCE ... INCREMENT BY to the application's block size.")));
		max_lo = (int32) increment;
	}
	else
	{
		if (PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("strategy %s needs max_lo", strategy_text),
					 errhint("Pass the max_lo the application uses: a different one gives duplicate ids.")));
		max_lo = PG_GETARG_INT32(3);
	}

	found = hilo_read_key(relid, &row);
	if (found)
	{
		if (row.seqid == seqid && row.strategy == strategy && hilo_row_size(&row) == max_lo)
			PG_RETURN_VOID();	/* already bound just so */
		hilo_check_move_privilege(seqid, GetUserId());
	}
	memset(&req, 0, sizeof(req));
	req.op = HiloOp::bind;
	req.relid = relid;
	req.seqid = seqid;
	req.strategy = strategy;
	req.max_lo = max_lo;
	req.caller = GetUserId();
	hilo_change_key(&req, found ? &row : nullptr);
	PG_RETURN_VOID();
}

/*
 * hilo_set_floor(tbl, next_id DEFAULT NULL): moves tbl's key forward so
 * that every block drawn from now on starts above the largest id of the
 * key's column(s) (read in full, index or not) and, if given, at or above
 * next_id.  Never moves it back.  Returns the first id of the next block.
 * Table owner only; an id for a key bound to an application's sequence
 * also needs UPDATE on it (the data floor is what every draw enforces
 * anyway).  Sends an invalidation: each backend drops at its next call a
 * block the table's ids have reached.
 */
IDGEN_FUNCTION(hilo_set_floor)
{
	Oid			relid;
	bool		has_id = !PG_ARGISNULL(1);
	int64		next_id = has_id ? PG_GETARG_INT64(1) : 0;
	int64		taken = 0;
	bool		complete;
	HiloKeyRow	row;
	HiloPrivState st;
	int64		next;
	int64		v = 0;
	HiloBlock	block;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key moves, e.g. hilo_set_floor('orders').");
	relid = PG_GETARG_OID(0);
	if (has_id && next_id < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("next_id must be at least 1, not " INT64_FORMAT, next_id),
				 errhint("Ids start at 1; pass NULL to move the key above the table's rows.")));
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);
	PreventCommandIfReadOnly("hilo_set_floor()");

	if (!hilo_read_key(relid, &row, true) || hilo_key_needs_repair(relid, &row, false))
	{
		hilo_create_key(relid, idgen_hilo_max_lo);
		if (!hilo_read_key(relid, &row))
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("could not create the Hi/Lo key of table %s", hilo_relname(relid)),
					 errhint("The server log has the background worker's error.")));
	}
	if (has_id && !row.own_seq && pg_class_aclcheck(row.seqid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(row.seqid)),
				 errdetail("Moving a bound key to a given id moves the application's sequence, as setval() does."),
				 errhint("Grant UPDATE on the sequence, or pass NULL to move the key just above the table's rows.")));

	/* The ids in the key's range (another node's do not count). */
	if (!hilo_data_max(relid, hilo_key_range(&row), &taken, &complete) || taken < 0)
		taken = 0;
	if (has_id && next_id - 1 > taken)
		taken = next_id - 1;

	/* Like ALTER SEQUENCE: waits for draws in progress, holds off new ones. */
	LockRelationOid(row.seqid, ShareRowExclusiveLock);
	{
		Oid			seqid = row.seqid;

		if (!hilo_read_key(relid, &row) || row.seqid != seqid)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the Hi/Lo key of table %s changed concurrently", hilo_relname(relid)),
					 errhint("Call hilo_set_floor() again.")));
	}
	hilo_priv_enter(&st);
	next = hilo_seq_next_value(row.seqid);
	if (idgen::hilo_floor(row.strategy, hilo_row_size(&row), taken, next, &v) != HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("cannot move the Hi/Lo key of table %s above id " INT64_FORMAT,
						hilo_relname(relid), taken),
				 errdetail("Its next block would give ids above 9223372036854775807."),
				 errhint("Nothing was changed.")));
	if (v > next)
		hilo_seq_set_next(row.seqid, v);
	hilo_priv_leave(&st);
	hilo_invalidate(relid);

	/* The first id of the next block (ids below 1 are skipped). */
	for (int i = 0; i < 3 && idgen::hilo_block(row.strategy, v, hilo_row_size(&row), &block) == HiloStatus::below_one; i++)
		v += row.increment;
	if (idgen::hilo_block(row.strategy, v, hilo_row_size(&row), &block) != HiloStatus::ok)
		PG_RETURN_INT64(1);
	PG_RETURN_INT64(block.next);
}

/*
 * hilo_set_adaptive(tbl, adaptive DEFAULT true): whether each backend takes
 * runs of blocks whose length adapts to its pace (hilo_draw), or one block
 * of max_lo ids at a time.  A key not used yet is created (with
 * id_gen.hilo_max_lo, its block size: the unit runs are made of).
 * Committed at once, by the key worker (hilo_change_key).  Table owner only.
 */
IDGEN_FUNCTION(hilo_set_adaptive)
{
	Oid			relid;
	HiloKeyRow	row;
	bool		found;
	HiloRequest req;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key changes, e.g. hilo_set_adaptive('orders').");
	if (PG_ARGISNULL(1))
		hilo_null_argument("adaptive", "Pass true (blocks adapt per backend) or false (max_lo ids per block).");
	relid = PG_GETARG_OID(0);
	hilo_refuse_in_recovery();
	hilo_check_table(relid, true);

	found = hilo_read_key(relid, &row);
	if (found && row.adaptive == PG_GETARG_BOOL(1))
		PG_RETURN_VOID();		/* nothing to change */
	memset(&req, 0, sizeof(req));
	req.op = HiloOp::set_adaptive;
	req.relid = relid;
	req.adaptive = PG_GETARG_BOOL(1);
	req.max_lo = idgen_hilo_max_lo;
	hilo_submit_change(&req, found ? &row : nullptr);
	PG_RETURN_VOID();
}

/* ---------------------------------------------------------------------
 * The id_gen.hilo_keys view asks the core's rules, as the glue does
 * --------------------------------------------------------------------- */

static bool
hilo_strategy_arg(text *arg, HiloStrategy *strategy)
{
	char	   *s = text_to_cstring(arg);

	if (!idgen::hilo_parse_strategy(s, strategy))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown Hi/Lo strategy \"%s\"", s),
				 errhint("Use one of: %s.", idgen::hilo_strategy_list)));
	return true;
}

/*
 * id_gen.hilo_block_size(strategy, max_lo, increment): max_lo, or the
 * sequence's increment for the pooled strategies; NULL when the one that
 * counts is NULL (a key whose sequence does not exist here).
 */
IDGEN_FUNCTION(hilo_block_size)
{
	HiloStrategy strategy;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	hilo_strategy_arg(PG_GETARG_TEXT_PP(0), &strategy);
	if (idgen::hilo_size_is_increment(strategy))
	{
		if (PG_ARGISNULL(2))
			PG_RETURN_NULL();
		PG_RETURN_INT64(PG_GETARG_INT64(2));
	}
	if (PG_ARGISNULL(1))
		PG_RETURN_NULL();
	PG_RETURN_INT64(PG_GETARG_INT32(1));
}

/*
 * id_gen.hilo_reserved_to(strategy, last_hi, size): the last id of the block
 * of last_hi, capped at bigint's maximum; NULL for a size below 1.
 */
IDGEN_FUNCTION(hilo_reserved_to)
{
	HiloStrategy strategy;
	int64		size = PG_GETARG_INT64(2);

	hilo_strategy_arg(PG_GETARG_TEXT_PP(0), &strategy);
	if (size < 1)
		PG_RETURN_NULL();
	PG_RETURN_INT64(idgen::hilo_reserved_to(strategy, PG_GETARG_INT64(1), size));
}

/* hilo_node_of(id bigint): the node whose range holds id; NULL: none does. */
IDGEN_FUNCTION(hilo_node_of)
{
	int32		node = idgen::hilo_node_of(PG_GETARG_INT64(0));

	if (node < 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32(node);
}

/* hilo_node_range(node integer, OUT first_id bigint, OUT last_id bigint) */
IDGEN_FUNCTION(hilo_node_range)
{
	int32		node = PG_GETARG_INT32(0);
	idgen::HiloNodeRange range;
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (node < 0 || node > idgen::kHiloMaxNode)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("node must be between 0 and %d, not %d", (int) idgen::kHiloMaxNode, node),
				 errhint("A node is a worker id, as node_identity() reports it.")));
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "hilo_node_range must return a composite type");
	range = idgen::hilo_node_range(node);
	values[0] = Int64GetDatum(range.first);
	values[1] = Int64GetDatum(range.last);
	desc = BlessTupleDesc(desc);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
