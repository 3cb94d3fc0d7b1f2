/*
 * decimal_claim.cpp: a database's decimal_id() generator id, its claim.
 *
 * A database claims a generator id (id_gen.decimal_id_claim(), run by
 * CREATE EXTENSION) and keeps it for its life, in two places that must
 * agree: its setting id_gen.decimal_generator_id in the shared catalog
 * pg_db_role_setting (ALTER DATABASE ... SET: every database's is readable
 * from any database), and its sequence id_gen.decimal_claim (its OID *
 * 10^5 + the generator id: a copy, whose OID differs and whose setting is
 * not copied, claims its own).  The server's high-water mark of claims,
 * id_gen.decimal_claims_to set for the bootstrap superuser (ALTER ROLE ...
 * SET: no DROP DATABASE removes it, no database owner can change it), only
 * grows: a new claim is above it, so the id of a dropped database, or one
 * whose settings were RESET, is never given again.
 *
 * Claims are made one at a time under a lock no SQL can take (an advisory
 * tag on database InvalidOid, to transaction end), the catalog read with a
 * snapshot taken after it; never a lock on pg_db_role_setting, which any
 * role can hold (ALTER ROLE ... SET in an open transaction).  A database
 * owner holding its own settings row (an open ALTER DATABASE ... SET) makes
 * its claim fail after CLAIM_ROW_WAIT_MS (55P03, lock_timeout), so that
 * the claims of other databases, waiting for the server-wide lock, are not
 * held for longer.
 */
#include "pg/clock.hpp"
#include "pg/decimal_id.hpp"

extern "C" {
#include "access/xact.h"
#include "catalog/pg_authid_d.h"
#include "catalog/pg_class.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lock.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
}

#include "core/decimal_id.hpp"

namespace dec = idgen::decimal_id;

/* What the shared catalog says about generator ids. */
typedef struct ClaimCatalog
{
	bool		has_setting;	/* id_gen.decimal_generator_id set for this database */
	bool		valid_setting;	/* ... and a generator id */
	int32		setting;
	bool		setting_uncommitted;	/* written by this transaction */
	int32		claims_to;		/* the server's high-water mark, -1: none */
	int32		max_other;		/* the largest another database has, -1: none */
	bool	   *used;			/* [generator id]: another database's */
	char	  **user;			/* [generator id]: its name */
} ClaimCatalog;

static bool
parse_id(const char *text, int32 *out)
{
	char	   *end;
	long		v;

	if (text == nullptr)
		return false;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < 0 || v > dec::kMaxGenerator)
		return false;
	*out = (int32) v;
	return true;
}

/*
 * Every database's row of pg_db_role_setting (setrole 0), whatever the
 * database accepts (templates, ALLOW_CONNECTIONS false), and the bootstrap
 * superuser's row of no database, read with a snapshot taken now (after the
 * caller's lock; under REPEATABLE READ the transaction's could predate a
 * claim committed meanwhile).
 */
static void
read_catalog(ClaimCatalog *c)
{
	const char *query = psprintf(
		"SELECT s.setdatabase, COALESCE(d.datname::pg_catalog.text, 'with OID ' OPERATOR(pg_catalog.||) s.setdatabase), "
		"       (SELECT pg_catalog.substr(x, 29) FROM pg_catalog.unnest(s.setconfig) AS x "
		"         WHERE pg_catalog.starts_with(pg_catalog.lower(x), 'id_gen.decimal_generator_id=') LIMIT 1), "
		"       (SELECT pg_catalog.substr(x, 26) FROM pg_catalog.unnest(s.setconfig) AS x "
		"         WHERE pg_catalog.starts_with(pg_catalog.lower(x), 'id_gen.decimal_claims_to=') LIMIT 1), "
		"       s.xmin::pg_catalog.text "
		"  FROM pg_catalog.pg_db_role_setting s "
		"  LEFT JOIN pg_catalog.pg_database d ON d.oid OPERATOR(pg_catalog.=) s.setdatabase "
		" WHERE (s.setrole OPERATOR(pg_catalog.=) 0 AND s.setdatabase OPERATOR(pg_catalog.<>) 0) "
		"    OR (s.setrole OPERATOR(pg_catalog.=) %u AND s.setdatabase OPERATOR(pg_catalog.=) 0)",
		BOOTSTRAP_SUPERUSERID);
	SPIPlanPtr	plan;

	memset(c, 0, sizeof(*c));
	c->claims_to = c->max_other = -1;
	c->used = static_cast<bool *>(palloc0(sizeof(bool) * (dec::kMaxGenerator + 1)));
	c->user = static_cast<char **>(palloc0(sizeof(char *) * (dec::kMaxGenerator + 1)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(query, 0, nullptr);
	if (plan == nullptr ||
		SPI_execute_snapshot(plan, nullptr, nullptr, GetLatestSnapshot(), InvalidSnapshot,
							 true, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "decimal_id(): reading pg_db_role_setting failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Oid			db = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		char	   *setting = SPI_getvalue(tup, desc, 3);
		int32		v = -1;

		if (db == InvalidOid)
		{
			if (parse_id(SPI_getvalue(tup, desc, 4), &v))
				c->claims_to = v;
			continue;
		}
		if (setting == nullptr)
			continue;
		if (db == MyDatabaseId)
		{
			char	   *xmin = SPI_getvalue(tup, desc, 5);

			c->has_setting = true;
			c->valid_setting = parse_id(setting, &c->setting);
			c->setting_uncommitted = xmin != nullptr &&
				TransactionIdIsCurrentTransactionId((TransactionId) strtoul(xmin, nullptr, 10));
			continue;
		}
		if (!parse_id(setting, &v))
			continue;
		c->max_other = Max(c->max_other, v);
		if (!c->used[v])
			c->user[v] = MemoryContextStrdup(CurTransactionContext, SPI_getvalue(tup, desc, 2));
		c->used[v] = true;
	}
	SPI_finish();
}

/*
 * The claim this database keeps (id_gen.decimal_claim), read as the
 * extension owner; false if there is none.
 */
static bool
read_claim(int32 *generator, Oid *claimed_by)
{
	bool		is_called;
	int64		v = idgen_sequence_last_value(idgen_internal_sequence("decimal_claim"), &is_called);

	if (!is_called || v <= 0)
		return false;
	*generator = (int32) (v % dec::kGeneratorScale);
	*claimed_by = (Oid) (v / dec::kGeneratorScale);
	return true;
}

IdgenDecimalClaim
idgen_decimal_resolve(void)
{
	ClaimCatalog c;
	IdgenDecimalClaim r = {-1, nullptr, nullptr, false};
	int32		claimed = -1;
	Oid			claimed_by = InvalidOid;
	bool		has_claim = read_claim(&claimed, &claimed_by);

	read_catalog(&c);
	if (!has_claim)
		r.why = "this database has claimed no generator id";
	else if (!c.has_setting || !c.valid_setting || c.setting != claimed)
		r.why = psprintf("this database's claim of generator id %d does not match its id_gen.decimal_generator_id",
						 claimed);
	else if (c.setting_uncommitted)
	{
		r.why = psprintf("the claim of generator id %d is not committed yet", claimed);
		r.uncommitted = true;
	}
	else if (c.used[claimed] && claimed_by != MyDatabaseId)
		r.why = psprintf("database \"%s\" has generator id %d too", c.user[claimed], claimed);
	else
	{
		r.id = claimed;
		return r;
	}
	r.detail = !has_claim ?
		"A database claims its generator id at CREATE EXTENSION; a copy (CREATE DATABASE ... TEMPLATE, a restored dump) "
		"keeps no claim of its own." :
		r.uncommitted ? "Ids of a claim that might still roll back could be issued again by another database." :
		c.used[claimed] && c.has_setting && c.setting == claimed ?
		"Two databases with one generator id could issue the same ids; the database that claimed it keeps it, a copy claims another." :
		"The database keeps the generator id it claimed beside the setting in pg_db_role_setting; they differ in a copy of "
		"another database, or after the setting was changed or reset by hand.";
	return r;
}

/* ALTER ... SET in this transaction (SPI: transactional, as the caller). */
static void
run_utility(const char *sql)
{
	if (SPI_execute(sql, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "id_gen.decimal_id_claim(): \"%s\" failed", sql);
}

/* How long a claim waits for this database's settings row, held by another transaction. */
#define CLAIM_ROW_WAIT_MS 1000

static void
claim_row_context(void *arg)
{
	errcontext("id_gen.decimal_id_claim() waits at most %d ms for this database's row of pg_db_role_setting: "
			   "another transaction holds it (an open ALTER DATABASE ... SET); "
			   "commit or roll that back, then claim again (CREATE EXTENSION, or id_gen.decimal_id_claim())",
			   CLAIM_ROW_WAIT_MS);
}

/*
 * ALTER DATABASE <this> SET ... under the server-wide claim lock, waiting
 * for the row at most CLAIM_ROW_WAIT_MS (a lower lock_timeout is kept).
 */
static void
set_database_setting(const char *sql)
{
	ErrorContextCallback cb = {error_context_stack, claim_row_context, nullptr};
	int			nest = NewGUCNestLevel();

	if (LockTimeout == 0 || LockTimeout > CLAIM_ROW_WAIT_MS)
		(void) set_config_option("lock_timeout", CppAsString2(CLAIM_ROW_WAIT_MS), PGC_SUSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	error_context_stack = &cb;
	run_utility(sql);
	error_context_stack = cb.previous;
	AtEOXact_GUC(true, nest);
}

/*
 * id_gen.decimal_id_claim(new_generator, generator_id) → integer (superuser;
 * CREATE EXTENSION calls it): claim a generator id for this database.  A
 * valid claim is kept unless new_generator; otherwise the id asked for, else
 * the first above the server's high-water mark and every id a database has,
 * that no database has.  Written in this transaction (decimal_id() refuses
 * until it commits): the database's setting, the high-water mark, the claim
 * sequence (a new relfilenode, so that it rolls back with them), and with
 * new_generator the counter restarted under the new id.
 */
IDGEN_FUNCTION(decimal_id_claim)
{
	bool		new_generator = !PG_ARGISNULL(0) && PG_GETARG_BOOL(0);
	int32		wanted = PG_ARGISNULL(1) ? -1 : PG_GETARG_INT32(1);
	Oid			seqoid = idgen_internal_sequence("decimal_claim");
	ClaimCatalog c;
	int32		claimed = -1;
	Oid			claimed_by = InvalidOid;
	bool		has_claim;
	int32		above;
	int32		id = -1;
	LOCKTAG		tag;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only a superuser may claim a decimal_id generator id")));
	/* Database InvalidOid: no pg_advisory_lock() can name this tag. */
	SET_LOCKTAG_ADVISORY(tag, InvalidOid, 0x69645f67, 0x64656331, 3);
	(void) LockAcquire(&tag, ExclusiveLock, false, false);
	has_claim = read_claim(&claimed, &claimed_by);
	read_catalog(&c);
	if (wanted < 0 && !new_generator && has_claim && claimed_by == MyDatabaseId &&
		c.has_setting && c.valid_setting && c.setting == claimed && !c.used[claimed])
		PG_RETURN_INT32(claimed);
	above = Max(c.claims_to, c.max_other);
	if (has_claim)
		above = Max(above, claimed);
	if (c.has_setting && c.valid_setting)
		above = Max(above, c.setting);
	if (wanted >= 0)
	{
		if (wanted > dec::kMaxGenerator || wanted <= above)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("generator id %d cannot be claimed by this database", wanted),
					 errdetail(wanted > dec::kMaxGenerator ? "A generator id is from 0 to 99999." :
							   "A new claim is above every generator id claimed on this server (%d so far).", above),
					 errhint("Call id_gen.decimal_id_claim() without a generator id to take a free one.")));
		id = wanted;
	}
	else
	{
		for (int32 g = above + 1; g <= dec::kMaxGenerator && id < 0; g++)
			if (!c.used[g])
				id = g;
		if (id < 0)
			ereport(ERROR,
					(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
					 errmsg("no generator id above %d is free on this server", above),
					 errdetail("Generator ids are never claimed twice: id_gen.decimal_claims_to, set for the bootstrap "
							   "superuser, holds the largest claimed so far.")));
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	set_database_setting(psprintf("ALTER DATABASE %s SET id_gen.decimal_generator_id = %d",
								  quote_identifier(get_database_name(MyDatabaseId)), id));
	if (id > c.claims_to)
		run_utility(psprintf("ALTER ROLE %s SET id_gen.decimal_claims_to = %d",
							 quote_identifier(GetUserNameFromId(BOOTSTRAP_SUPERUSERID, false)), id));
	run_utility("ALTER SEQUENCE id_gen.decimal_claim RESTART");
	if (new_generator)
		run_utility("ALTER SEQUENCE id_gen.decimal_counter RESTART");
	SPI_finish();
	idgen_sequence_setval(seqoid, (int64) MyDatabaseId * dec::kGeneratorScale + id);
	PG_RETURN_INT32(id);
}
