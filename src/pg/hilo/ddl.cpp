/*
 * hilo/ddl.cpp: where keys are made.  The event trigger id_gen_hilo_keys
 * (ddl_command_end of CREATE/ALTER TABLE, in the owner's DDL transaction,
 * as the owner, under its lock) turns a default hilo_next() naming the
 * table itself into its key: a sequence OWNED BY the column, owned by the
 * table's owner, starting above the table's rows, and the default
 * rewritten to name it; hilo_create_key() does the same where event
 * triggers do not run.  A default naming another table (LIKE, PARTITION OF)
 * draws from that table's key; a restore brings the full form: nothing is made.
 */
#include "pg/pg.hpp"

#include "pg/compat.hpp"
#include "pg/extension_owner.hpp"
#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/relation.h"
#include "catalog/dependency.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/event_trigger.h"
#include "storage/lmgr.h"
#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "catalog/namespace.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
}

/* Set while hilo_write_defaults runs its ALTER TABLE. */
static bool hilo_writing_defaults = false;

/* The key an ALTER TABLE ... SET/DROP DEFAULT is about to change (hilo_before_ddl). */
static struct
{
	LocalTransactionId lxid;	/* InvalidLocalTransactionId: none */
	HiloKey		key;
}			hilo_old_key;

void
hilo_write_defaults(const HiloKey *key, bool short_only)
{
	List	   *cols = hilo_self_columns(key->relid, short_only ? HiloForm::short_form : HiloForm::full_form);
	char	   *expr = hilo_key_expression(key);
	char	   *table = hilo_quoted_name(key->relid);
	char	   *text_expr = psprintf("%s.hilo_next_text(%s::pg_catalog.regclass, %s)",
									 quote_identifier(get_namespace_name(idgen_extension_schema())),
									 quote_literal_cstr(table), expr);
	HiloAsRole	st;
	ListCell   *lc;

	if (!list_member_int(cols, key->attnum) && !list_member_int(cols, key->attnum | kHiloTextColumn))
		cols = lappend_int(cols, key->attnum);
	hilo_as_role_enter(&st, hilo_rel_owner(key->relid));
	/* Our own ALTER TABLE fires the event trigger again: it has nothing to do. */
	hilo_writing_defaults = true;
	PG_TRY();
	{
		foreach(lc, cols)
		{
			int			c = lfirst_int(lc);

			hilo_spi(psprintf("ALTER TABLE %s ALTER COLUMN %s SET DEFAULT %s", table,
							  quote_identifier(get_attname(key->relid, (AttrNumber) (c & ~kHiloTextColumn), false)),
							  (c & kHiloTextColumn) ? text_expr : expr),
					 SPI_OK_UTILITY);
		}
	}
	PG_FINALLY();
	{
		hilo_writing_defaults = false;
	}
	PG_END_TRY();
	hilo_as_role_leave(&st);
	CommandCounterIncrement();
}

int64
hilo_column_max(const HiloKey *key)
{
	idgen::HiloNodeRange range = hilo_key_range(key);
	HiloAsRole	st;
	SPIPlanPtr	plan;
	bool		isnull;
	int64		max = 0;
	char		kind = get_rel_relkind(key->relid);
	Oid			type = get_atttype(key->relid, key->attnum);
	const char *col = quote_identifier(get_attname(key->relid, key->attnum, false));

	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE)
		return 0;				/* a foreign table's rows are another server's */
	if (type != INT2OID && type != INT4OID && type != INT8OID && type != NUMERICOID)
		return 0;				/* text ids: hilo_set_floor(t, n) after a load */
	hilo_as_role_enter(&st, hilo_rel_owner(key->relid));
	/* The latest snapshot: under REPEATABLE READ the transaction's predates our lock. */
	plan = SPI_prepare(psprintf("SELECT pg_catalog.max(%s)::pg_catalog.int8 FROM %s WHERE %s BETWEEN "
								INT64_FORMAT " AND " INT64_FORMAT,
								col, hilo_quoted_name(key->relid), col, range.first, range.last), 0, nullptr);
	if (plan == nullptr ||
		SPI_execute_snapshot(plan, nullptr, nullptr, GetLatestSnapshot(), InvalidSnapshot,
							 true, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "id_gen: reading the largest id of table %u failed", key->relid);
	/* One row, but none from a Citus shell table read inside the DDL Citus sent. */
	isnull = SPI_processed != 1;
	if (!isnull)
		max = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	hilo_as_role_leave(&st);
	return isnull ? 0 : max;
}

/* Makes relid's own key on attnum, above the column's ids in this node's range. */
static Oid
hilo_make_key(Oid relid, AttrNumber attnum, int32 max_lo)
{
	HiloKey		key = {};
	Oid			nsp = get_rel_namespace(relid);
	char	   *seqname;
	int64		start;
	HiloAsRole	st;
	ListCell   *lc;

	hilo_citus_refuse_key(relid);
	/* A column that owns a sequence had a key (or was a serial): its sessions hold blocks. */
	foreach(lc, getOwnedSequences(relid))
	{
		Oid			owner_rel;
		int32		owner_col;

		if (sequenceIsOwned(lfirst_oid(lc), DEPENDENCY_AUTO, &owner_rel, &owner_col) && owner_col == attnum)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("column %s of table %s owns sequence %s already",
							quote_identifier(get_attname(relid, attnum, false)), hilo_relname(relid),
							hilo_relname(lfirst_oid(lc))),
					 errdetail("It is the sequence of an earlier Hi/Lo key or of a serial column; a new key "
							   "would start above the table's rows, not above the ids its sessions hold."),
					 errhint("hilo_bind('%s', '%s', 'classic', <max_lo>) makes it the key again, above every id it gave; "
							 "ALTER SEQUENCE %s OWNED BY NONE first starts a new key above the rows.",
							 hilo_relname(relid), hilo_relname(lfirst_oid(lc)), hilo_relname(lfirst_oid(lc)))));
	}
	key.relid = relid;
	key.attnum = attnum;
	key.strategy = idgen::HiloStrategy::classic;
	key.max_lo = max_lo;
	key.adaptive = idgen_hilo_adaptive;
	key.increment = 1;
	key.own = true;
	start = hilo_value_above(&key, hilo_column_max(&key), 0);

	seqname = ChooseRelationName(get_rel_name(relid), get_attname(relid, attnum, false), "seq", nsp, false);
	hilo_as_role_enter(&st, hilo_rel_owner(relid));
	hilo_spi(psprintf("CREATE %sSEQUENCE %s AS pg_catalog.int8 MINVALUE 0 START " INT64_FORMAT
					  " NO CYCLE OWNED BY %s.%s",
					  get_rel_persistence(relid) == RELPERSISTENCE_UNLOGGED ? "UNLOGGED " : "",
					  quote_qualified_identifier(get_namespace_name(nsp), seqname), start,
					  hilo_quoted_name(relid), quote_identifier(get_attname(relid, attnum, false))),
			 SPI_OK_UTILITY);
	hilo_as_role_leave(&st);
	CommandCounterIncrement();
	key.seqid = get_relname_relid(seqname, nsp);
	if (!OidIsValid(key.seqid))
		elog(ERROR, "id_gen: sequence %s of table %u was not created", seqname, relid);
	hilo_write_defaults(&key, true);
	return key.seqid;
}

/* Two keys in one partitioned table repeat ids across its partitions: a WARNING. */
static void
hilo_warn_partition_key(Oid part, AttrNumber attnum, Oid parent)
{
	ereport(WARNING,
			(errmsg("partition %s has a Hi/Lo key of its own, beside the key of %s",
					hilo_relname(part), hilo_relname(parent)),
			 errdetail("Rows inserted through either key may repeat the other's ids."),
			 errhint("ALTER TABLE %s ALTER COLUMN %s SET DEFAULT hilo_next('%s') shares the parent's key.",
					 hilo_relname(part), quote_identifier(get_attname(part, attnum, false)),
					 hilo_relname(parent))));
}

/* The owner wrote a key's default by hand: the sequence moves as hilo_set_max_lo/bind would. */
static void
hilo_follow_hand_change(Oid relid)
{
	HiloKey		old = hilo_old_key.key;
	HiloKey		now;
	bool		called = false;
	int64		next;
	int64		to_next;
	int64		v;
	idgen::HiloBlock block;

	if (hilo_old_key.lxid != idgen_my_lxid() || old.relid != relid || !hilo_table_key(relid, &now) ||
		(now.seqid == old.seqid && now.strategy == old.strategy && hilo_key_size(&now) == hilo_key_size(&old)))
		return;
	hilo_old_key.lxid = InvalidLocalTransactionId;
	hilo_draw_lock(old.seqid, ExclusiveLock);
	hilo_draw_lock(now.seqid, ExclusiveLock);
	LockRelationOid(Min(old.seqid, now.seqid), ShareRowExclusiveLock);
	LockRelationOid(Max(old.seqid, now.seqid), ShareRowExclusiveLock);
	next = hilo_seq_next_value(old.seqid, &called);
	to_next = now.seqid == old.seqid ? next : hilo_seq_next_value(now.seqid);
	v = to_next - now.seq_base;
	if (called && idgen::hilo_move(old.strategy, next - old.seq_base, hilo_key_size(&old), now.strategy,
								   v, hilo_key_size(&now), &v) != idgen::HiloStatus::ok)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("cannot change the Hi/Lo key of table %s", hilo_relname(relid)),
				 errdetail("Its next block would give ids above 9223372036854775807.")));
	v += now.seq_base;
	v = hilo_value_above(&now, hilo_column_max(&now), v);
	if (hilo_key_block(&now, v, &block) == idgen::HiloStatus::ok &&
		block.last > hilo_key_range(&now).last)
		ereport(ERROR,
				(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
				 errmsg("the new default would carry the Hi/Lo key of table %s past this node's range",
						hilo_relname(relid)),
				 errhint("Nothing was changed.  Choose a smaller block size.")));
	if (v > to_next)
	{
		if (pg_class_aclcheck(now.seqid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied for sequence %s", hilo_relname(now.seqid)),
					 errdetail("The new default of %s moves the sequence forward, as setval() does.",
							   hilo_relname(relid))));
		hilo_seq_move_to(now.seqid, v);
	}
}

/* ddl_command_start of ALTER TABLE: the key a SET or DROP DEFAULT may change. */
IDGEN_FUNCTION(hilo_before_ddl)
{
	EventTriggerData *trig = (EventTriggerData *) fcinfo->context;
	AlterTableStmt *stmt;
	ListCell   *lc;
	Oid			relid;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "hilo_before_ddl: not fired by an event trigger");
	hilo_old_key.lxid = InvalidLocalTransactionId;
	if (hilo_writing_defaults || trig->parsetree == nullptr || !IsA(trig->parsetree, AlterTableStmt))
		PG_RETURN_VOID();
	stmt = (AlterTableStmt *) trig->parsetree;
	foreach(lc, stmt->cmds)
	{
		if (((AlterTableCmd *) lfirst(lc))->subtype != AT_ColumnDefault)
			continue;
		/* The lock SET DEFAULT takes, only for the owner: another role must not queue one. */
		relid = RangeVarGetRelid(stmt->relation, NoLock, true);
		if (!OidIsValid(relid) || !idgen_rel_ownercheck(relid, GetUserId()))
			break;
		LockRelationOid(relid, AccessExclusiveLock);
		if (hilo_table_key(relid, &hilo_old_key.key))
			hilo_old_key.lxid = idgen_my_lxid();
		break;
	}
	PG_RETURN_VOID();
}

/* DDL on relid: its short forms become its key; a logged table draws from no unlogged key. */
static void
hilo_table_ddl(Oid relid)
{
	char		kind = get_rel_relkind(relid);
	List	   *short_cols;
	HiloKey		key;
	HiloKey		other;
	Relation	rel;
	TupleConstr *constr;

	if ((kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE && kind != RELKIND_FOREIGN_TABLE) ||
		get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		return;
	rel = relation_open(relid, AccessShareLock);
	constr = RelationGetDescr(rel)->constr;
	for (int i = 0; constr != nullptr && i < constr->num_defval; i++)
	{
		HiloKey		k;
		Oid			named;

		if (hilo_parse_default((Node *) stringToNode(constr->defval[i].adbin), &named, &k) ==
			HiloForm::full_form && named != relid &&
			get_rel_persistence(k.seqid) == RELPERSISTENCE_UNLOGGED &&
			rel->rd_rel->relpersistence == RELPERSISTENCE_PERMANENT)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("table %s cannot draw from the Hi/Lo key of unlogged table %s",
							hilo_relname(relid), hilo_relname(named)),
					 errdetail("A crash resets that key; this table would get its ids again."),
					 errhint("Give %s a key of its own: DEFAULT hilo_next('%s').",
							 hilo_relname(relid), hilo_relname(relid))));
	}
	relation_close(rel, NoLock);

	hilo_follow_hand_change(relid);
	short_cols = hilo_self_columns(relid, HiloForm::short_form);
	if (short_cols != NIL)
	{
		if (hilo_table_key(relid, &key))
			hilo_write_defaults(&key, true);	/* a second column shares the key */
		else
			(void) hilo_make_key(relid, (AttrNumber) (linitial_int(short_cols) & ~kHiloTextColumn),
								 idgen_hilo_max_lo);
	}
	if (get_rel_relispartition(relid) && hilo_table_key(relid, &key) &&
		hilo_table_key(get_partition_parent(relid, true), &other))
		hilo_warn_partition_key(relid, key.attnum, other.relid);
	if (kind == RELKIND_PARTITIONED_TABLE && hilo_table_key(relid, &other))
	{
		ListCell   *lc;

		foreach(lc, find_inheritance_children(relid, NoLock))
		{
			if (hilo_table_key(lfirst_oid(lc), &key))
				hilo_warn_partition_key(lfirst_oid(lc), key.attnum, relid);
		}
	}
}

/* The event trigger id_gen_hilo_keys (ddl_command_end). */
IDGEN_FUNCTION(hilo_on_ddl)
{
	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "hilo_on_ddl: not fired by an event trigger");
	if (hilo_writing_defaults)
		PG_RETURN_VOID();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT DISTINCT objid FROM pg_catalog.pg_event_trigger_ddl_commands() "
					"WHERE classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND objsubid = 0",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "id_gen: pg_event_trigger_ddl_commands() failed");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);

		/* Our own SPI calls in it restore SPI_tuptable and SPI_processed. */
		if (!isnull)
			hilo_table_ddl(DatumGetObjectId(d));
	}
	SPI_finish();
	PG_RETURN_VOID();
}

/* hilo_create_key(tbl, col DEFAULT NULL, max_lo DEFAULT NULL): the event trigger's work. */
IDGEN_FUNCTION(hilo_create_key)
{
	Oid			relid;
	AttrNumber	attnum;
	int32		max_lo = PG_ARGISNULL(2) ? idgen_hilo_max_lo : PG_GETARG_INT32(2);
	HiloKey		key;

	if (PG_ARGISNULL(0))
		hilo_null_argument("table", "Pass the table, e.g. hilo_create_key('orders', 'id').");
	relid = PG_GETARG_OID(0);
	hilo_check_max_lo(max_lo);
	hilo_check_table(relid, true);
	LockRelationOid(relid, AccessExclusiveLock);	/* what ALTER TABLE takes: no writer meanwhile */
	if (hilo_table_key(relid, &key))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_OBJECT),
				 errmsg("table %s has a Hi/Lo key already", hilo_relname(relid)),
				 errdetail("It draws from sequence %s.", hilo_relname(key.seqid)),
				 errhint("hilo_set_max_lo() and hilo_bind() change a key.")));
	if (!PG_ARGISNULL(1))
	{
		attnum = get_attnum(relid, NameStr(*PG_GETARG_NAME(1)));
		if (attnum == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of table %s does not exist", NameStr(*PG_GETARG_NAME(1)),
							hilo_relname(relid))));
	}
	else
	{
		List	   *cols = hilo_self_columns(relid, HiloForm::short_form);

		if (cols == NIL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("no column of table %s defaults to hilo_next('%s')", hilo_relname(relid),
							hilo_relname(relid)),
					 errhint("Name the column: hilo_create_key('%s', 'id').", hilo_relname(relid))));
		attnum = (AttrNumber) (linitial_int(cols) & ~kHiloTextColumn);
	}
	PG_RETURN_OID(hilo_make_key(relid, attnum, max_lo));
}
