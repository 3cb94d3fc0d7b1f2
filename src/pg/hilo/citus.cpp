/*
 * hilo/citus.cpp: Hi/Lo defaults on Citus shards.
 *
 * Citus creates a distributed or reference table's shards on the workers
 * with the table's own DDL, renamed: CREATE TABLE public.t_102008 (...
 * DEFAULT public.hilo_next('public.t'::regclass, 'public.t_id_seq'::regclass,
 * ...)), and it does so before metadata sync creates the shell table
 * public.t there.  The regclass literal is resolved when the statement is
 * analysed, so create_distributed_table() failed with "relation public.t
 * does not exist"; where the table exists (a reference table's shard on
 * the coordinator), the shard's default depended on the table and its
 * sequence, and DROP TABLE public.t failed.  The same holds for the ALTER
 * TABLE ... SET DEFAULT a change of the key sends to each shard, which on a
 * worker also waited for the shell table, locked by the same distributed
 * transaction on another connection (Citus cancelled it as a deadlock).
 * On a Citus node, for a CREATE TABLE or ALTER TABLE of a shard name of the
 * table a hilo_next()/hilo_next_text() default names (<name>_<digits>, same
 * schema), this ProcessUtility hook writes the default as
 * hilo_next('public.t'::text::regclass): the name is resolved at each call
 * and nothing is recorded against the table or its sequence; the shard
 * draws from this node's key of the table, as its default states it.
 * Every other statement passes untouched.
 *
 * Citus also copies the key's sequence to every worker and, being bigint,
 * gives each copy a window of its own: MINVALUE and RESTART at
 * (group << 48) + 1, MAXVALUE 2^48 above (worker_apply_sequence_command),
 * restarting it there whenever it finds other bounds (metadata sync of a
 * node).  Block v of that window would give ids far past the node's range.
 * A worker's key whose sequence has exactly this node's window therefore
 * counts from the window's start into the node's range, as a key made on
 * this node counts from its sequence's start: value v gives the ids of
 * v - window start, shifted to the range's start (hilo_citus_window).  The
 * window's bounds stay as Citus set them, so it never restarts the
 * sequence; a window belongs to one group, so no two nodes share one.
 *
 * A key is made before Citus distributes its table, never after
 * (hilo_citus_refuse_key): Citus sends ALTER TABLE ... SET DEFAULT
 * hilo_next('t') to every node as written, where each worker would make a
 * key of its own, which the next metadata sync replaces with the copy of
 * the coordinator's, starting the node's ids again.
 */
#include "pg/pg.hpp"

#include "pg/compat.hpp"
#include "pg/hilo/hilo.hpp"
#include "pg/node_identity.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_sequence.h"
#include "catalog/namespace.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
}

#include <cctype>
#include <cstring>

static ProcessUtility_hook_type prev_process_utility = nullptr;

/* Whether name is base, '_' and one or more digits. */
static bool
hilo_is_shard_name(const char *name, const char *base)
{
	size_t		n = strlen(base);

	if (strncmp(name, base, n) != 0 || name[n] != '_' || name[n + 1] == '\0')
		return false;
	for (const char *p = name + n + 1; *p; p++)
		if (!isdigit((unsigned char) *p))
			return false;
	return true;
}

/*
 * Rewrites expr, a hilo_next() or hilo_next_text() call, into its short
 * form naming the table by name, if it names a table of which shard (in
 * schema nsp) is a shard.
 */
static void
hilo_rewrite_default(Node *expr, const char *shard, const char *nsp)
{
	FuncCall   *fc = (FuncCall *) expr;
	const char *fname;
	TypeCast   *tc;
	A_Const    *con;
	RangeVar   *named;

	if (expr == nullptr || !IsA(expr, FuncCall) || fc->args == NIL)
		return;
	fname = strVal(llast(fc->funcname));
	if (strcmp(fname, "hilo_next") != 0 && strcmp(fname, "hilo_next_text") != 0)
		return;
	tc = (TypeCast *) linitial(fc->args);
	if (!IsA(tc, TypeCast) || strcmp(strVal(llast(tc->typeName->names)), "regclass") != 0 ||
		tc->arg == nullptr || !IsA(tc->arg, A_Const))
		return;
	con = (A_Const *) tc->arg;
	if (con->isnull || !IsA(&con->val, String))
		return;
	named = makeRangeVarFromNameList(idgen_qualified_name_list(strVal(&con->val)));
	if (!hilo_is_shard_name(shard, named->relname) ||
		(named->schemaname != nullptr && strcmp(named->schemaname, nsp) != 0))
		return;
	/* Qualified, so that every session finds the same table whatever its search_path. */
	con->val.sval.sval = pstrdup(quote_qualified_identifier(nsp, named->relname));
	{
		TypeCast   *to_text = makeNode(TypeCast);

		to_text->arg = tc->arg;
		to_text->typeName = makeTypeNameFromNameList(list_make2(makeString(pstrdup("pg_catalog")),
																  makeString(pstrdup("text"))));
		to_text->location = -1;
		tc->arg = (Node *) to_text;
	}
	fc->args = list_make1(tc);
}

/*
 * The relation a Citus node's CREATE TABLE or ALTER TABLE names, if its name
 * ends in _<digits>, else nullptr.
 */
static RangeVar *
hilo_may_be_shard_ddl(Node *parsetree)
{
	RangeVar   *rel;
	const char *us;
	int64		group;

	if (IsA(parsetree, CreateStmt))
		rel = ((CreateStmt *) parsetree)->relation;
	else if (IsA(parsetree, AlterTableStmt) && ((AlterTableStmt *) parsetree)->objtype == OBJECT_TABLE)
		rel = ((AlterTableStmt *) parsetree)->relation;
	else
		return nullptr;
	us = strrchr(rel->relname, '_');
	if (us == nullptr || !isdigit((unsigned char) us[1]) || !IsTransactionState() || !idgen_citus_group(&group))
		return nullptr;
	return rel;
}

static void
hilo_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	RangeVar   *rel = hilo_may_be_shard_ddl(pstmt->utilityStmt);

	if (rel != nullptr)
	{
		Node	   *stmt;
		Oid			nsp;
		ListCell   *lc;

		if (readOnlyTree)
			pstmt = (PlannedStmt *) copyObjectImpl(pstmt);	/* copyObject() is C's typeof */
		readOnlyTree = false;
		stmt = pstmt->utilityStmt;
		/* The shard's schema, as the statement resolves it now. */
		nsp = IsA(stmt, CreateStmt) ? RangeVarGetCreationNamespace(rel)
			: get_rel_namespace(RangeVarGetRelid(rel, NoLock, true));
		if (OidIsValid(nsp) && IsA(stmt, CreateStmt))
		{
			foreach(lc, ((CreateStmt *) stmt)->tableElts)
			{
				ListCell   *cc;

				if (!IsA(lfirst(lc), ColumnDef))
					continue;
				foreach(cc, ((ColumnDef *) lfirst(lc))->constraints)
					if (((Constraint *) lfirst(cc))->contype == CONSTR_DEFAULT)
						hilo_rewrite_default(((Constraint *) lfirst(cc))->raw_expr, rel->relname,
											 get_namespace_name(nsp));
			}
		}
		else if (OidIsValid(nsp))
		{
			foreach(lc, ((AlterTableStmt *) stmt)->cmds)
				if (((AlterTableCmd *) lfirst(lc))->subtype == AT_ColumnDefault)
					hilo_rewrite_default(((AlterTableCmd *) lfirst(lc))->def, rel->relname,
										 get_namespace_name(nsp));
		}
	}
	if (prev_process_utility != nullptr)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

void
hilo_citus_window(HiloKey *key)
{
	int64		group;
	HeapTuple	tup;

	key->seq_base = key->id_base = 0;
	if (!key->own || !idgen_citus_group(&group) || group < 1 || group > idgen::kHiloMaxNode)
		return;
	tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(key->seqid));
	if (!HeapTupleIsValid(tup))
		return;
	if (((Form_pg_sequence) GETSTRUCT(tup))->seqmin == (group << 48) + 1 &&
		((Form_pg_sequence) GETSTRUCT(tup))->seqmax == (group << 48) + 1 + ((int64) 1 << 48))
	{
		key->seq_base = (group << 48) + 1;
		key->id_base = hilo_key_range(key).first - 1;
	}
	ReleaseSysCache(tup);
}

void
hilo_citus_refuse_key(Oid relid)
{
	Oid			dist = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	AttrNumber	col;
	bool		found = false;

	if (!OidIsValid(dist) || (col = get_attnum(dist, "logicalrelid")) == InvalidAttrNumber)
		return;
	{
		Relation	rel = table_open(dist, AccessShareLock);
		SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, nullptr, 0, nullptr);
		HeapTuple	tup;

		while (!found && HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			bool		isnull;
			Datum		d = heap_getattr(tup, col, RelationGetDescr(rel), &isnull);

			found = !isnull && DatumGetObjectId(d) == relid;
		}
		systable_endscan(scan);
		table_close(rel, AccessShareLock);
	}
	if (found)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot make a Hi/Lo key for table %s, which Citus distributes already", hilo_relname(relid)),
				 errdetail("Citus sends ALTER TABLE ... SET DEFAULT to every node as written: each worker would make a key "
						   "of its own, which the next metadata sync replaces with the coordinator's, handing out its ids again."),
				 errhint("Set DEFAULT hilo_next('%s') before create_distributed_table() or create_reference_table(); "
						 "here: undistribute_table('%s'), set the default, distribute the table again.",
						 hilo_relname(relid), hilo_relname(relid))));
}

void
idgen_hilo_citus_init(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = hilo_process_utility;
}
