/*
 * hilo/citus.cpp: DEFAULT hilo_next('t') on Citus shards.
 *
 * Citus creates a distributed table's shards on the workers with the
 * table's own DDL, renamed: CREATE TABLE public.t_102008 (... DEFAULT
 * public.hilo_next('public.t'::regclass)).  The regclass literal is
 * resolved when that statement is analysed, and on a worker the table it
 * names (the shell table that metadata sync creates) may not exist yet:
 * create_distributed_table() and create_reference_table() failed with
 * "relation public.t does not exist".  On a Citus node, for a CREATE
 * TABLE whose name is a shard name of the relation its hilo_next() default
 * names (<name>_<digits>, same schema) while that relation does not exist,
 * this ProcessUtility hook turns the literal into 'public.t'::text::regclass,
 * resolved at each call instead: on the shard the default then draws from
 * the node's key of the shell table, inside the node's range
 * (hilo_this_node_range).  The name is qualified with the shard's schema as
 * the CREATE TABLE resolves it, so that the call does not depend on the
 * caller's search_path (sessions with different paths would draw from two
 * keys).  Every other statement passes untouched, including the shell
 * table's own CREATE TABLE, whose default names itself.
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"

#include "pg/hilo/hilo.hpp"
#include "pg/node_identity.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/namespace.h"
#include "nodes/makefuncs.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
}

#include <cctype>
#include <cstring>

static ProcessUtility_hook_type prev_process_utility = nullptr;

/* Whether name is a shard name of base: base, '_' and one or more digits. */
static bool
hilo_is_shard_name(const char *name, const char *base)
{
	size_t		n = strlen(base);

	if (strncmp(name, base, n) != 0 || name[n] != '_' || name[n + 1] == '\0')
		return false;
	for (const char *p = name + n + 1; *p; p++)
	{
		if (!isdigit((unsigned char) *p))
			return false;
	}
	return true;
}

/* The last name of a FuncCall's qualified name. */
static const char *
hilo_func_name(const FuncCall *fc)
{
	return strVal(llast(fc->funcname));
}

/*
 * If expr is hilo_next(<string>::regclass) (or hilo_next_text) naming a
 * relation that does not exist and of which stmt creates a shard, rewrites
 * the argument in place; returns whether it did.
 */
static bool
hilo_rewrite_default(Node *expr, const CreateStmt *stmt)
{
	FuncCall   *fc;
	TypeCast   *tc;
	A_Const    *con;
	RangeVar   *named;
	const char *tname;
	char	   *nspname;

	if (expr == nullptr || !IsA(expr, FuncCall))
		return false;
	fc = (FuncCall *) expr;
	if (list_length(fc->args) != 1 ||
		(strcmp(hilo_func_name(fc), "hilo_next") != 0 && strcmp(hilo_func_name(fc), "hilo_next_text") != 0))
		return false;
	if (!IsA(linitial(fc->args), TypeCast))
		return false;
	tc = (TypeCast *) linitial(fc->args);
	tname = strVal(llast(tc->typeName->names));
	if (strcmp(tname, "regclass") != 0 || tc->arg == nullptr || !IsA(tc->arg, A_Const))
		return false;
	con = (A_Const *) tc->arg;
	if (con->isnull || !IsA(&con->val, String))
		return false;

	named = makeRangeVarFromNameList(idgen_qualified_name_list(strVal(&con->val)));
	if (!hilo_is_shard_name(stmt->relation->relname, named->relname))
		return false;
	/* The shard's schema, as this CREATE TABLE resolves it now. */
	nspname = get_namespace_name(RangeVarGetCreationNamespace(stmt->relation));
	if (named->schemaname != nullptr && strcmp(named->schemaname, nspname) != 0)
		return false;
	named->schemaname = nspname;
	if (OidIsValid(RangeVarGetRelid(named, NoLock, true)))
		return false;			/* it exists: the literal resolves as it is */

	/*
	 * 't'::regclass  ->  'public.t'::pg_catalog.text::regclass: qualified
	 * with the shard's schema, so that every session finds the same table
	 * whatever its search_path, and the data floor finds the column
	 * (hilo/floor.cpp reads the qualified name).
	 */
	con->val.sval.sval = pstrdup(quote_qualified_identifier(nspname, named->relname));
	{
		TypeCast   *to_text = makeNode(TypeCast);

		to_text->arg = tc->arg;
		to_text->typeName = makeTypeNameFromNameList(list_make2(makeString(pstrdup("pg_catalog")),
																  makeString(pstrdup("text"))));
		to_text->location = -1;
		tc->arg = (Node *) to_text;
	}
	return true;
}

static void
hilo_rewrite_shard_defaults(CreateStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->tableElts)
	{
		ListCell   *cc;

		if (!IsA(lfirst(lc), ColumnDef))
			continue;
		foreach(cc, ((ColumnDef *) lfirst(lc))->constraints)
		{
			Constraint *con = (Constraint *) lfirst(cc);

			if (con->contype == CONSTR_DEFAULT)
				(void) hilo_rewrite_default(con->raw_expr, stmt);
		}
	}
}

/* Only a Citus node's CREATE TABLE of a table whose name ends in _<digits>. */
static bool
hilo_may_be_shard_ddl(Node *parsetree)
{
	const CreateStmt *stmt;
	const char *us;
	int64		group;

	if (!IsA(parsetree, CreateStmt))
		return false;
	stmt = (const CreateStmt *) parsetree;
	us = strrchr(stmt->relation->relname, '_');
	if (us == nullptr || !isdigit((unsigned char) us[1]) || !IsTransactionState())
		return false;
	return idgen_citus_group(&group);
}

static void
hilo_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
					 ProcessUtilityContext context, ParamListInfo params,
					 QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	if (hilo_may_be_shard_ddl(pstmt->utilityStmt))
	{
		if (readOnlyTree)
			pstmt = (PlannedStmt *) copyObjectImpl(pstmt);	/* copyObject() is C's typeof */
		readOnlyTree = false;
		hilo_rewrite_shard_defaults((CreateStmt *) pstmt->utilityStmt);
	}
	if (prev_process_utility != nullptr)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

void
idgen_hilo_citus_init(void)
{
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = hilo_process_utility;
}
