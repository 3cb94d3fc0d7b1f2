/*
 * hilo/admin.cpp: the table owner's changes of a key (hilo_set_max_lo(),
 * hilo_bind(), hilo_set_adaptive(), hilo_set_floor()), and what the view
 * id_gen.hilo_keys asks.  A change is the owner's DDL (locks: hilo.hpp): the
 * default is rewritten in the caller's transaction, and the sequence moves
 * forward with setval() above every id either formula could have given,
 * held as ALTER SEQUENCE holds it (ShareRowExclusiveLock), so that an
 * application's nextval() waits and the setval() never moves it back.
 */
#include "pg/pg.hpp"

#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/pg_attrdef.h"
#include "catalog/pg_class.h"
#include "funcapi.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"
}

#include <climits>

using idgen::HiloBlock;
using idgen::HiloStatus;
using idgen::HiloStrategy;

/* The start of a change: the lock ALTER TABLE takes, then the draw lock to the end. */
static void
hilo_begin_change(Oid relid, HiloKey *key)
{
	hilo_check_table(relid, true);
	PreventCommandIfReadOnly("a change of a Hi/Lo key");
	LockRelationOid(relid, AccessExclusiveLock);
	hilo_require_key(relid, key);
	hilo_draw_lock(key->seqid, ExclusiveLock);
}

/* Moving a sequence the table's owner does not own needs what setval() needs. */
static void
hilo_move_forward(Oid seqid, int64 from_v, int64 to_v)
{
	if (to_v <= from_v)
		return;
	if (pg_class_aclcheck(seqid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(seqid)),
				 errdetail("The change moves the sequence forward, as setval() does."),
				 errhint("Grant UPDATE on the sequence to the table's owner.")));
	hilo_seq_move_to(seqid, to_v);
}

static void
hilo_cannot_move(const HiloKey *key)
{
	ereport(ERROR,
			(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
			 errmsg("cannot change the Hi/Lo key of table %s", hilo_relname(key->relid)),
			 errdetail("Its next block would give ids above 9223372036854775807."),
			 errhint("Nothing was changed.")));
}

/*
 * hilo_set_max_lo(tbl, max_lo): a new block size.  The next block under it
 * starts at the first id no block reached (core hilo_rebase).
 */
IDGEN_FUNCTION(hilo_set_max_lo)
{
	Oid			relid;
	int32		max_lo;
	HiloKey		key;
	int64		next;
	int64		v;
	idgen::HiloNodeRange range;
	HiloBlock	block;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key changes, e.g. hilo_set_max_lo('orders', 100).");
	if (PG_ARGISNULL(1))
		hilo_null_argument("max_lo", "Pass the number of ids per block, e.g. hilo_set_max_lo('orders', 100).");
	relid = PG_GETARG_OID(0);
	max_lo = PG_GETARG_INT32(1);
	hilo_check_max_lo(max_lo);
	hilo_begin_change(relid, &key);
	if (idgen::hilo_size_is_increment(key.strategy))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the block size of the Hi/Lo key of table %s is the INCREMENT of sequence %s",
						hilo_relname(relid), hilo_relname(key.seqid)),
				 errdetail("Its strategy, %s, is the application's.", idgen::hilo_strategy_name(key.strategy)),
				 errhint("Change the application's allocation size and its sequence's INCREMENT together.")));
	if (key.hi_table != nullptr)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the block size of the Hi/Lo key of table %s is the max_lo of the ORM reading %s",
						hilo_relname(relid), key.hi_table),
				 errdetail("The ORM keeps using its own max_lo with the hi values it reads: its blocks and the key's would overlap."),
				 errhint("The ORM's max_lo is the application's configuration; the key keeps it.")));
	if (key.max_lo == max_lo)
		PG_RETURN_VOID();
	LockRelationOid(key.seqid, ShareRowExclusiveLock);
	next = hilo_seq_next_value(key.seqid);
	if (idgen::hilo_rebase(key.strategy, next - key.seq_base, key.max_lo, max_lo, &v) != HiloStatus::ok)
		hilo_cannot_move(&key);
	v += key.seq_base;
	key.max_lo = max_lo;
	/* A grow keeps the next hi: a block past this node's range would end the key for good. */
	range = hilo_key_range(&key);
	if (hilo_key_block(&key, v > next ? v : next, &block) == HiloStatus::ok &&
		block.last > range.last)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("blocks of %d ids would carry the Hi/Lo key of table %s past this node's range",
						max_lo, hilo_relname(relid)),
				 errdetail("Its next block would end at " INT64_FORMAT "; the node's ids end at " INT64_FORMAT
						   ", and a key never moves back.", block.last, range.last),
				 errhint("Nothing was changed.  Choose a smaller block size.")));
	hilo_move_forward(key.seqid, next, v);
	hilo_write_defaults(&key, false);
	PG_RETURN_VOID();
}

/*
 * hilo_bind(tbl, seq, strategy, max_lo): tbl's key draws from the
 * application's sequence with its ORM's formula, moved above every id the
 * key gave and the table's rows.  For the pooled strategies the block size
 * is the sequence's INCREMENT (trusting an argument gave EF Core duplicates).
 */
IDGEN_FUNCTION(hilo_bind)
{
	Oid			relid;
	Oid			seqid;
	HiloStrategy strategy;
	int64		increment;
	int32		max_lo;
	HiloKey		key;
	HiloKey		bound;
	int64		next;
	int64		to_next;
	int64		v;
	bool		called = false;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table to bind, e.g. hilo_bind('orders', 'orders_hilo_seq', 'pooled_lo').");
	if (PG_ARGISNULL(1))
		hilo_null_argument("sequence", "Pass the sequence the application draws from, e.g. hilo_bind('orders', 'orders_hilo_seq', 'pooled_lo').");
	if (PG_ARGISNULL(2))
		hilo_null_argument("strategy", "Use one of: classic, legacy, pooled_lo, pooled, pooled_hibernate3.");
	relid = PG_GETARG_OID(0);
	seqid = PG_GETARG_OID(1);
	strategy = hilo_strategy_arg(PG_GETARG_TEXT_PP(2));
	if (!PG_ARGISNULL(3))
		hilo_check_max_lo(PG_GETARG_INT32(3));
	hilo_begin_change(relid, &key);
	hilo_require_drawable_seq(seqid, relid);
	if (pg_class_aclcheck(seqid, GetUserId(), ACL_UPDATE | ACL_USAGE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for sequence %s", hilo_relname(seqid)),
				 errhint("Binding a key to a sequence needs USAGE or UPDATE on the sequence.")));
	increment = hilo_seq_params(seqid).seqincrement;
	if (increment <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sequence %s counts down (INCREMENT " INT64_FORMAT ")", hilo_relname(seqid), increment),
				 errhint("Hi/Lo needs an ascending sequence.")));
	if (idgen::hilo_size_is_increment(strategy))
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
					 errdetail("With strategy %s the block size is the sequence's increment.",
							   idgen::hilo_strategy_name(strategy)),
					 errhint("Omit max_lo, or ALTER SEQUENCE ... INCREMENT BY to the application's block size.")));
		max_lo = 0;
	}
	else
	{
		if (PG_ARGISNULL(3))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("strategy %s needs max_lo", idgen::hilo_strategy_name(strategy)),
					 errhint("Pass the max_lo the application uses: a different one gives duplicate ids.")));
		max_lo = PG_GETARG_INT32(3);
	}
	bound = key;
	bound.seqid = seqid;
	bound.strategy = strategy;
	bound.max_lo = max_lo;
	bound.increment = increment;
	bound.own = false;
	bound.hi_table = nullptr;
	bound.seq_base = bound.id_base = 0;
	if (key.seqid == seqid && key.strategy == strategy && hilo_key_size(&key) == hilo_key_size(&bound))
		PG_RETURN_VOID();		/* bound just so already */
	if (seqid != key.seqid)
		hilo_draw_lock(seqid, ExclusiveLock);
	LockRelationOid(Min(seqid, key.seqid), ShareRowExclusiveLock);
	LockRelationOid(Max(seqid, key.seqid), ShareRowExclusiveLock);
	next = hilo_seq_next_value(key.seqid, &called);
	to_next = seqid == key.seqid ? next : hilo_seq_next_value(seqid);
	/* A key never drawn from reserved nothing: the sequence stays where its application has it. */
	v = to_next;
	if (called && idgen::hilo_move(key.strategy, next - key.seq_base, hilo_key_size(&key), strategy, to_next,
								   hilo_key_size(&bound), &v) != HiloStatus::ok)
		hilo_cannot_move(&key);
	v = hilo_value_above(&bound, hilo_column_max(&bound), v);
	hilo_move_forward(seqid, to_next, v);
	hilo_write_defaults(&bound, false);
	PG_RETURN_VOID();
}

/* hilo_set_adaptive(tbl, adaptive DEFAULT true): runs of blocks at each backend's pace. */
IDGEN_FUNCTION(hilo_set_adaptive)
{
	HiloKey		key;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key changes, e.g. hilo_set_adaptive('orders').");
	if (PG_ARGISNULL(1))
		hilo_null_argument("adaptive", "Pass true (blocks adapt per backend) or false (max_lo ids per block).");
	hilo_begin_change(PG_GETARG_OID(0), &key);
	if (key.adaptive != PG_GETARG_BOOL(1))
	{
		key.adaptive = PG_GETARG_BOOL(1);
		hilo_write_defaults(&key, false);
	}
	PG_RETURN_VOID();
}

/*
 * hilo_set_floor(tbl, next_id DEFAULT NULL): as setval() after a bulk load,
 * moves tbl's key forward above its column's ids and to next_id or above;
 * returns the first id of the next block.
 */
IDGEN_FUNCTION(hilo_set_floor)
{
	Oid			relid;
	bool		has_id = !PG_ARGISNULL(1);
	int64		next_id = has_id ? PG_GETARG_INT64(1) : 0;
	int64		taken = 0;
	HiloKey		key;
	int64		next;
	int64		v;
	HiloBlock	block;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table whose key moves, e.g. hilo_set_floor('orders').");
	relid = PG_GETARG_OID(0);
	if (has_id && next_id < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("next_id must be at least 1, not " INT64_FORMAT, next_id),
				 errhint("Ids start at 1; pass NULL to move the key above the table's rows.")));
	hilo_check_table(relid, true);
	PreventCommandIfReadOnly("hilo_set_floor()");
	LockRelationOid(relid, ShareLock);	/* no writer adds ids while we read them */
	hilo_require_key(relid, &key);
	taken = hilo_column_max(&key);
	if (has_id)
		taken = Max(taken, next_id - 1);
	hilo_draw_lock(key.seqid, ExclusiveLock);
	LockRelationOid(key.seqid, ShareRowExclusiveLock);
	next = hilo_seq_next_value(key.seqid);
	v = hilo_value_above(&key, taken, next);
	hilo_move_forward(key.seqid, next, v);
	/* setval() is not transactional: nothing to hold to the end. */
	UnlockRelationOid(key.seqid, ShareRowExclusiveLock);
	hilo_draw_unlock(key.seqid, ExclusiveLock);
	/* The value parked for the ORM's next reader was drawn before: park one above. */
	if (key.hi_table != nullptr && v > next)
		hilo_orm_repark(&key);
	/* The first id of the next block (ids below 1 are skipped). */
	for (int i = 0; i < 3 && hilo_key_block(&key, v, &block) == HiloStatus::below_one; i++)
		v += key.increment;
	if (hilo_key_block(&key, v, &block) != HiloStatus::ok)
		PG_RETURN_INT64(1);
	PG_RETURN_INT64(block.next);
}

/*
 * id_gen.hilo_key_list(): every key of this database: a table's first
 * full-form default naming itself (pg_attrdef is readable by every role).
 */
IDGEN_FUNCTION(hilo_key_list)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *seen = NIL;

	InitMaterializedSRF(fcinfo, 0);
	rel = table_open(AttrDefaultRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_attrdef ad = (Form_pg_attrdef) GETSTRUCT(tup);
		bool		isnull;
		Datum		bin = heap_getattr(tup, Anum_pg_attrdef_adbin, RelationGetDescr(rel), &isnull);
		HiloKey		k;
		Oid			named;
		Oid			owner_rel;
		int32		owner_col;
		Datum		values[8];
		bool		nulls[8] = {false, false, false, false, false, false, false, false};

		if (isnull || list_member_oid(seen, ad->adrelid) ||
			hilo_parse_default((Node *) stringToNode(TextDatumGetCString(bin)), &named, &k) != HiloForm::full_form ||
			named != ad->adrelid || get_rel_relkind(k.seqid) != RELKIND_SEQUENCE)
			continue;
		seen = lappend_oid(seen, ad->adrelid);
		values[0] = ObjectIdGetDatum(ad->adrelid);
		values[1] = CStringGetDatum(get_attname(ad->adrelid, ad->adnum, false));
		values[1] = DirectFunctionCall1(namein, values[1]);
		values[2] = ObjectIdGetDatum(k.seqid);
		values[3] = CStringGetTextDatum(idgen::hilo_strategy_name(k.strategy));
		values[4] = Int32GetDatum(k.max_lo);
		nulls[4] = k.max_lo == 0;
		values[5] = BoolGetDatum(k.adaptive);
		values[6] = k.hi_table ? CStringGetTextDatum(k.hi_table) : (Datum) 0;
		nulls[6] = k.hi_table == nullptr;
		values[7] = BoolGetDatum(sequenceIsOwned(k.seqid, DEPENDENCY_AUTO, &owner_rel, &owner_col) &&
								 owner_rel == ad->adrelid);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return (Datum) 0;
}

/* id_gen.hilo_block_size(strategy, max_lo, increment): the increment for the pooled strategies. */
IDGEN_FUNCTION(hilo_block_size)
{
	int			arg;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	arg = idgen::hilo_size_is_increment(hilo_strategy_arg(PG_GETARG_TEXT_PP(0))) ? 2 : 1;
	if (PG_ARGISNULL(arg))
		PG_RETURN_NULL();
	PG_RETURN_INT64(arg == 2 ? PG_GETARG_INT64(2) : PG_GETARG_INT32(1));
}

/* id_gen.hilo_reserved_to(strategy, last_hi, size): the last id of last_hi's block, capped. */
IDGEN_FUNCTION(hilo_reserved_to)
{
	HiloStrategy strategy = hilo_strategy_arg(PG_GETARG_TEXT_PP(0));
	int64		size = PG_GETARG_INT64(2);

	if (size < 1)
		PG_RETURN_NULL();
	PG_RETURN_INT64(idgen::hilo_reserved_to(strategy, PG_GETARG_INT64(1), size));
}

/* id_gen.hilo_key_reserved_to(seq, own, strategy, last_hi, size): in Citus' window. */
IDGEN_FUNCTION(hilo_key_reserved_to)
{
	HiloKey		key = {};
	int64		size = PG_GETARG_INT64(4);
	int64		to;

	if (size < 1)
		PG_RETURN_NULL();
	key.seqid = PG_GETARG_OID(0);
	key.own = PG_GETARG_BOOL(1);
	key.strategy = hilo_strategy_arg(PG_GETARG_TEXT_PP(2));
	hilo_citus_window(&key);
	to = idgen::hilo_reserved_to(key.strategy, PG_GETARG_INT64(3) - key.seq_base, size);
	PG_RETURN_INT64(to > PG_INT64_MAX - key.id_base ? PG_INT64_MAX : to + key.id_base);
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
	Datum		values[2];

	if (node < 0 || node > idgen::kHiloMaxNode)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("node must be between 0 and %d, not %d", (int) idgen::kHiloMaxNode, node),
				 errhint("A node is a worker id, as node_identity() reports it.")));
	range = idgen::hilo_node_range(node);
	values[0] = Int64GetDatum(range.first);
	values[1] = Int64GetDatum(range.last);
	PG_RETURN_DATUM(hilo_result_row(fcinfo, values));
}
