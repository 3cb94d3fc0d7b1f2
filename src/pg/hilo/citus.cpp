/*
 * hilo/citus.cpp: Hi/Lo defaults on Citus.  Citus makes a shard as its table's DDL renamed
 * (DEFAULT hilo_next('public.t'::regclass) in CREATE TABLE public.t_102008), sometimes before
 * t exists on the node, and drops t before its shards: on a Citus node, this ProcessUtility
 * hook writes a hilo_next() or hilo_next_text() default naming another table, of a
 * <name>_<digits> table Citus makes (never a top-level statement), as
 * hilo_next('public.t'::text::regclass), resolved at each call and holding nothing.  A
 * worker's copy of a bigint key's sequence has a window of its own (MINVALUE (group << 48)
 * + 1); a key that is not bigint is refused on Citus, which leaves such a sequence exhausted.
 */
#include "pg/pg.hpp"

#include "pg/compat.hpp"
#include "pg/hilo/hilo.hpp"
#include "pg/node_identity.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "catalog/namespace.h"
#include "common/hashfn.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
}

#include <cctype>
#include <cstring>

static ProcessUtility_hook_type prev_process_utility = nullptr;

/* Rewrites expr, a default hilo_next[_text]('t') of table rel in nsp, if t is another table. */
static void
hilo_rewrite_default(Node *expr, const char *rel, const char *nsp)
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
	const char *t = named->relname;
	/* Its own key, or t's replacement in undistribute_table() etc., renamed t once t is dropped. */
	if ((named->schemaname == nullptr || strcmp(named->schemaname, nsp) == 0) &&
		(strcmp(t, rel) == 0 || strcmp(rel, psprintf("%s_%u", t, hash_bytes((const unsigned char *) t, strlen(t)))) == 0))
	{
		con->val.sval.sval = pstrdup(quote_qualified_identifier(nsp, rel));
		return;
	}
	/* Qualified, so that every session finds the same table whatever its search_path. */
	con->val.sval.sval = pstrdup(quote_qualified_identifier(named->schemaname ? named->schemaname : nsp, t));
	TypeCast   *to_text = makeNode(TypeCast);
	to_text->arg = tc->arg;
	to_text->typeName = SystemTypeName((char *) "text");
	to_text->location = -1;
	tc->arg = (Node *) to_text;
	fc->args = list_make1(tc);
}

/* DISCARD SEQUENCES; on a Citus node, CREATE or ALTER TABLE of a <name>_<digits> table run from
 * a function (worker_apply_shard_ddl_command() etc.): the user's own statements are never rewritten. */
static void
hilo_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *stmt = pstmt->utilityStmt;
	RangeVar   *rel = nullptr;
	const char *us;
	int64		group;

	if (IsA(stmt, DiscardStmt) && ((DiscardStmt *) stmt)->target == DISCARD_SEQUENCES)
		hilo_discard();
	else if (IsA(stmt, CreateStmt))
		rel = ((CreateStmt *) stmt)->relation;
	else if (IsA(stmt, AlterTableStmt) && ((AlterTableStmt *) stmt)->objtype == OBJECT_TABLE)
		rel = ((AlterTableStmt *) stmt)->relation;
	us = rel != nullptr ? strrchr(rel->relname, '_') : nullptr;
	if (us != nullptr && isdigit((unsigned char) us[1]) && context != PROCESS_UTILITY_TOPLEVEL &&
		IsTransactionState() && idgen_citus_group(&group))
	{
		bool		create = IsA(stmt, CreateStmt);
		/* The shard's schema, as the statement resolves it now. */
		Oid			nsp = create ? RangeVarGetCreationNamespace(rel)
			: get_rel_namespace(RangeVarGetRelid(rel, NoLock, true));
		const char *nspname = OidIsValid(nsp) ? get_namespace_name(nsp) : nullptr;
		ListCell   *lc;

		if (readOnlyTree)
			pstmt = (PlannedStmt *) copyObjectImpl(pstmt);	/* copyObject() is C's typeof */
		readOnlyTree = false;
		stmt = pstmt->utilityStmt;
		foreach(lc, nspname == nullptr ? NIL
				: create ? ((CreateStmt *) stmt)->tableElts : ((AlterTableStmt *) stmt)->cmds)
		{
			AlterTableCmd *cmd = (AlterTableCmd *) lfirst(lc);
			ListCell   *cc;

			if (IsA(cmd, AlterTableCmd) && cmd->subtype == AT_ColumnDefault)
				hilo_rewrite_default(cmd->def, rel->relname, nspname);
			if (!IsA(cmd, ColumnDef))
				continue;
			foreach(cc, ((ColumnDef *) cmd)->constraints)
			{
				Constraint *con = (Constraint *) lfirst(cc);

				if (con->contype == CONSTR_DEFAULT)
					hilo_rewrite_default(con->raw_expr, rel->relname, nspname);
			}
		}
	}
	if (prev_process_utility != nullptr)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

void
hilo_citus_check_type(Oid seqtypid, Oid relid)
{
	int64		group;

	if (seqtypid != INT8OID && idgen_citus_group(&group))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the Hi/Lo key of table %s is not bigint, which Citus needs", hilo_relname(relid)),
				 errdetail("Citus gives each node a window of a bigint sequence; a smaller sequence it leaves exhausted."),
				 errhint("undistribute_table(), ALTER COLUMN ... TYPE bigint, DROP SEQUENCE, SET DEFAULT, hilo_create_key(), then create_distributed_table().")));
}

void
idgen_hilo_citus_init(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = hilo_process_utility;
}
