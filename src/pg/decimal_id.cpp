/*
 * decimal_id.cpp: decimal_id() = counter * 10^10 + generator_id * 10^5 +
 * launch_id, its decoder and its state.
 *
 * All of a database's state lives in its own WAL-logged objects, so a crash,
 * a standby, PITR, pg_upgrade and pg_dump carry it as they carry the
 * database:
 *  - its generator id, kept for its life: id_gen.decimal_generator_id as set
 *    for the database (ALTER DATABASE ... SET, in the shared catalog
 *    pg_db_role_setting), else 50000 + its OID % 50000 (pg_upgrade keeps
 *    database OIDs from PostgreSQL 15 on; a copy gets a new OID, hence a new
 *    generator id).  At its first use after a start it is checked against
 *    every other database's (pg_database and pg_db_role_setting are shared
 *    catalogs) and against the generator ids id_gen 1.0 to 1.2 took in this
 *    database (0 upward, one per start, in id_gen.decimal_generator);
 *  - its counter, reserved ahead in the sequence id_gen.decimal_counter the
 *    way nextval() pre-logs values: the shared word advances by one
 *    compare-and-swap up to the reserved end; at the end, under a
 *    self-conflicting heavyweight lock on the sequence, the sequence is
 *    raised by a chunk (next_chunk()), the WAL flushed, and only then the
 *    new end published.  A restart resumes above the reserved end.
 *
 * Shared memory: one slot per database, in its entry (db_state.hpp); a
 * backend's first decimal_id() checks it against the database's claim and
 * counter (decimal_attach).
 *
 * What no object of a database can carry, and so the limits: a generator id
 * no existing database maps to any more (the database was dropped, or its
 * setting changed) can be taken by another database, whose counter starts
 * again; DROP EXTENSION drops the counter's sequence (a reinstall while the
 * server runs carries the reserved end over, decimal_id_carry_counter(); one
 * across a restart starts the counter again, as a re-created sequence would).
 */
#include "pg/clock.hpp"
#include "pg/db_state.hpp"
#include "pg/guc.hpp"
#include "pg/node_identity.hpp"
#include "pg/decimal_id.hpp"
#include "pg/pg.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_db_role_setting.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "storage/lmgr.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
}

#include "core/decimal_id.hpp"

namespace dec = idgen::decimal_id;

/*
 * Where a database's generator id comes from (DecimalSlot.source).  Legacy:
 * the database's schema is older than 1.3 (no id_gen.decimal_counter, after
 * the library was upgraded and before ALTER EXTENSION UPDATE): 1.2's way, a
 * new generator id from id_gen.decimal_generator at each start, the counter
 * from 0 and nothing reserved.
 */
#define DEC_FROM_OID 0
#define DEC_FROM_SETTING 1
#define DEC_LEGACY 2
#define DEC_CLAIMED 3

typedef IdgenDecimalSlot DecimalSlot;

static DecimalSlot *dec_slot = nullptr;

void
idgen_decimal_slot_init(DecimalSlot *s)
{
	pg_atomic_init_u64(&s->word, 0);
	pg_atomic_init_u64(&s->reserved, 0);
	s->chunk = 0;
	s->last_reserve = 0;
	s->source = DEC_FROM_OID;
}

/* This database's slot, in its entry (db_state.hpp). */
static DecimalSlot *
decimal_slot(bool create)
{
	IdgenDbEntry *e;

	if (dec_slot != nullptr)
		return dec_slot;
	e = idgen_db_entry(create);
	if (e == nullptr)
		return nullptr;
	dec_slot = &e->decimal;
	return dec_slot;
}

/* A database's generator id as decimal_id() would use it. */
typedef struct DecimalGenerator
{
	int32		id;				/* -1: none (no valid claim, or an invalid setting) */
	int32		source;			/* DEC_FROM_* */
} DecimalGenerator;

/* id_gen.decimal_generator_id as stored in pg_db_role_setting; false if invalid. */
static bool
parse_generator_setting(const char *text, int32 *out)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < -1 || v > dec::kMaxGenerator)
		return false;
	*out = (int32) v;
	return true;
}

/* id_gen.<name> if it exists in this database, else InvalidOid. */
static Oid
internal_sequence_if_any(const char *name)
{
	Oid			nsp = get_namespace_oid("id_gen", true);

	return OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;
}

/*
 * The claim this database keeps of its generator id (id_gen.decimal_claim:
 * the claiming database's OID * 10^5 + the generator id), read as the
 * extension owner.  false if there is none (never claimed, or a schema
 * older than 1.4: *has_sequence tells).
 */
static bool
read_claim(int32 *generator, Oid *claimed_by, bool *has_sequence)
{
	Oid			seqoid = internal_sequence_if_any("decimal_claim");
	bool		is_called;
	int64		v;

	*has_sequence = OidIsValid(seqoid) && get_rel_relkind(seqoid) == RELKIND_SEQUENCE;
	if (!*has_sequence)
		return false;
	v = idgen_sequence_last_value(seqoid, &is_called);
	if (!is_called || v <= 0)
		return false;
	*generator = (int32) (v % dec::kGeneratorScale);
	*claimed_by = (Oid) (v / dec::kGeneratorScale);
	return true;
}

/*
 * What the shared catalogs say about generator ids: this database's setting
 * (and whether it was written by the current transaction), and every other
 * database's generator id (its setting, else the one id_gen 1.3 derived
 * from its OID), every one but template0-like ones, which refuse
 * connections.
 */
typedef struct DecimalCatalog
{
	bool		has_setting;	/* id_gen.decimal_generator_id set for this database */
	bool		valid_setting;	/* ... and a generator id (or -1) */
	int32		setting;
	char	   *setting_text;
	bool		setting_uncommitted;	/* written by this transaction */
	int32		max_other_setting;	/* the largest another database has set, or -1 */
	bool	   *used;			/* [generator id]: another database's */
	char	  **user;			/* [generator id]: its name */
} DecimalCatalog;

static void
read_catalog(DecimalCatalog *c)
{
	static const char *query =
		"SELECT d.oid, d.datname::pg_catalog.text, "
		"       (SELECT pg_catalog.substr(c, 29) FROM pg_catalog.unnest(s.setconfig) AS c "
		"         WHERE pg_catalog.starts_with(pg_catalog.lower(c), 'id_gen.decimal_generator_id=') LIMIT 1), "
		"       s.xmin::pg_catalog.text "
		"  FROM pg_catalog.pg_database d "
		"  LEFT JOIN pg_catalog.pg_db_role_setting s "
		"    ON s.setdatabase OPERATOR(pg_catalog.=) d.oid AND s.setrole OPERATOR(pg_catalog.=) 0 "
		" WHERE d.datallowconn OR NOT d.datistemplate";

	memset(c, 0, sizeof(*c));
	c->max_other_setting = -1;
	c->used = static_cast<bool *>(palloc0(sizeof(bool) * (dec::kMaxGenerator + 1)));
	c->user = static_cast<char **>(palloc0(sizeof(char *) * (dec::kMaxGenerator + 1)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/*
	 * Read with the latest snapshot, not the transaction's: under REPEATABLE
	 * READ or SERIALIZABLE (a server's or database's default) the
	 * transaction's snapshot may predate a claim another database committed
	 * before we took the lock on pg_db_role_setting.
	 */
	SPIPlanPtr	plan = SPI_prepare(query, 0, nullptr);

	if (plan == nullptr ||
		SPI_execute_snapshot(plan, nullptr, nullptr, GetLatestSnapshot(), InvalidSnapshot,
							 true, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "decimal_id(): reading pg_database failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tup = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Oid			oid = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		char	   *setting = SPI_getvalue(tup, desc, 3);
		int32		v = -1;
		bool		valid = setting == nullptr || parse_generator_setting(setting, &v);

		if (oid == MyDatabaseId)
		{
			char	   *xmin = SPI_getvalue(tup, desc, 4);

			c->has_setting = setting != nullptr && (!valid || v >= 0);
			c->valid_setting = valid;
			c->setting = v;
			c->setting_text = setting ? MemoryContextStrdup(CurTransactionContext, setting) : nullptr;
			c->setting_uncommitted = xmin != nullptr &&
				TransactionIdIsCurrentTransactionId((TransactionId) strtoul(xmin, nullptr, 10));
			continue;
		}
		if (!valid)
			continue;
		c->max_other_setting = Max(c->max_other_setting, v);
		if (v < 0)
			v = dec::derived_generator(oid);
		if (!c->used[v])
			c->user[v] = MemoryContextStrdup(CurTransactionContext, SPI_getvalue(tup, desc, 2));
		c->used[v] = true;
	}
	SPI_finish();
}

static void
refuse_unclaimed(const char *why, const char *detail, bool uncommitted = false)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("decimal_id(): %s", why),
			 errdetail("%s", detail),
			 uncommitted ?
			 errhint("Commit the transaction that claimed it (CREATE EXTENSION id_gen, ALTER EXTENSION id_gen UPDATE "
					 "or id_gen.decimal_id_claim()) before the first decimal_id().") :
			 errhint("As a superuser, claim a generator id for this database: SELECT id_gen.decimal_id_claim(); "
					 "then reconnect.")));
}

/*
 * This database's generator id: the one it claimed (id_gen 1.4), else
 * (schema 1.3) its setting, else derived from its OID.  With check, ERROR
 * 55000 unless it may generate: the claim kept in the database and the
 * setting in pg_db_role_setting agree, were committed, and no other
 * database has the same generator id unless the claim was made by this
 * very database (then the other one is its copy); the hint names the
 * command that claims one.
 */
static DecimalGenerator
resolve_generator(bool check)
{
	DecimalCatalog c;
	DecimalGenerator mine = {-1, DEC_CLAIMED};
	int32		claimed = -1;
	Oid			claimed_by = InvalidOid;
	bool		has_claims;
	bool		has_claim = read_claim(&claimed, &claimed_by, &has_claims);

	read_catalog(&c);
	if (!has_claims)
	{
		/* id_gen 1.3's schema, until ALTER EXTENSION UPDATE claims. */
		mine.id = !c.valid_setting ? -1 : c.has_setting ? c.setting : dec::derived_generator(MyDatabaseId);
		mine.source = c.has_setting ? DEC_FROM_SETTING : DEC_FROM_OID;
	}
	else if (has_claim && c.has_setting && c.valid_setting && c.setting == claimed)
	{
		mine.id = claimed;
		mine.source = DEC_CLAIMED;
	}
	if (!check)
		return mine;
	if (!has_claims && mine.id < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("decimal_id(): id_gen.decimal_generator_id = \"%s\" set for this database is not a generator id",
						c.setting_text),
				 errhint("Run ALTER EXTENSION id_gen UPDATE in this database.")));
	if (has_claims && !has_claim)
		refuse_unclaimed("this database has claimed no generator id",
						 "A database claims its generator id at CREATE EXTENSION; a copy (CREATE DATABASE ... TEMPLATE, "
						 "a restored dump) keeps no claim of its own.");
	if (has_claims && (!c.has_setting || !c.valid_setting || c.setting != claimed))
		refuse_unclaimed(psprintf("this database's claim of generator id %d does not match its id_gen.decimal_generator_id",
								  claimed),
						 "The database keeps the generator id it claimed beside the setting in pg_db_role_setting; "
						 "they differ in a copy of another database, or after the setting was changed by hand.");
	if (c.setting_uncommitted)
		refuse_unclaimed(psprintf("the claim of generator id %d is not committed yet", mine.id),
						 "Ids of a claim that might still roll back could be issued again by another database.", true);
	if (c.used[mine.id] && (!has_claims || claimed_by != MyDatabaseId))
		refuse_unclaimed(psprintf("database \"%s\" has generator id %d too", c.user[mine.id], mine.id),
						 "Two databases with one generator id could issue the same ids; the database that claimed "
						 "it keeps it, a copy claims another.");
	return mine;
}

/*
 * id_gen.decimal_id_claim(new_generator, generator_id) → integer (superuser;
 * the install scripts call it): claim a generator id for this database.
 * A valid claim is kept unless new_generator; otherwise the id asked for,
 * else the first one above every id this database is known to have had,
 * that no other database has.  Written, in this transaction, into
 * pg_db_role_setting (ALTER DATABASE ... SET id_gen.decimal_generator_id)
 * and into id_gen.decimal_claim with this database's OID, under a lock on
 * pg_db_role_setting that makes claims of the server's databases one at a
 * time (an unprivileged role can take no lock that conflicts with it);
 * decimal_id() refuses until it commits.
 */
/* The counter of this database has been used (it ran under id_gen 1.3's generator id). */
static bool
counter_used(void)
{
	Oid			seqoid = internal_sequence_if_any("decimal_counter");
	bool		is_called = false;

	if (OidIsValid(seqoid))
		(void) idgen_sequence_last_value(seqoid, &is_called);
	return is_called;
}

IDGEN_FUNCTION(decimal_id_claim)
{
	bool		new_generator = !PG_ARGISNULL(0) && PG_GETARG_BOOL(0);
	int32		wanted = PG_ARGISNULL(1) ? -1 : PG_GETARG_INT32(1);
	Oid			seqoid = idgen_internal_sequence("decimal_claim");
	DecimalCatalog c;
	int32		claimed = -1;
	Oid			claimed_by = InvalidOid;
	bool		has_claims;
	bool		has_claim;
	int64		history;
	int32		above;
	int32		id = -1;
	char	   *dbname = get_database_name(MyDatabaseId);

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("only a superuser may claim a decimal_id generator id")));
	LockRelationOid(DbRoleSettingRelationId, ShareRowExclusiveLock);
	has_claim = read_claim(&claimed, &claimed_by, &has_claims);
	read_catalog(&c);
	history = -1;
	if (wanted < 0 && !new_generator && has_claim && claimed_by == MyDatabaseId &&
		c.has_setting && c.valid_setting && c.setting == claimed && !c.used[claimed] && claimed > history)
		PG_RETURN_INT32(claimed);
	/*
	 * Never one this database had (above its claim, its setting and 1.2's
	 * history), nor one another database had: claims only grow, so above
	 * every id set for any database.
	 */
	above = (int32) Max(history, (int64) Max(dec::kDerivedBase - 1, c.max_other_setting));
	if (has_claim)
		above = Max(above, claimed);
	if (c.has_setting && c.valid_setting)
		above = Max(above, c.setting);
	if (wanted >= 0)
	{
		if (wanted > dec::kMaxGenerator || wanted <= history || c.used[wanted] ||
			(has_claim && wanted <= claimed) || (c.has_setting && c.valid_setting && wanted <= c.setting))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("generator id %d cannot be claimed by this database", wanted),
					 errdetail(wanted > dec::kMaxGenerator ? "A generator id is from 0 to 99999." :
							   c.used[wanted] ? "Another database has it." :
							   "A new claim is above every generator id this database has had."),
					 errhint("Call id_gen.decimal_id_claim() without a generator id to take a free one.")));
		id = wanted;
	}
	else if (!new_generator && !has_claim && counter_used() && c.valid_setting &&
			 (id = c.has_setting ? c.setting : dec::derived_generator(MyDatabaseId)) > history &&
			 !c.used[id])
		;						/* ALTER EXTENSION UPDATE from 1.3 keeps the id its counter ran with */
	else
	{
		id = -1;
		for (int32 g = above + 1; g <= dec::kMaxGenerator; g++)
			if (!c.used[g] && (has_claim || c.has_setting || g != dec::derived_generator(MyDatabaseId)))
			{
				id = g;
				break;
			}
		if (id < 0)
			ereport(ERROR,
					(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
					 errmsg("no generator id above %d is free for this database", above),
					 errhint("Claim one no database has had: id_gen.decimal_id_claim(generator_id => n).")));
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(psprintf("ALTER DATABASE %s SET id_gen.decimal_generator_id = %d",
							 quote_identifier(dbname), id), false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "decimal_id_claim(): ALTER DATABASE failed");
	/*
	 * A new relfilenode, so that the setval below rolls back with the
	 * setting (setval alone is not transactional).
	 */
	if (SPI_execute("ALTER SEQUENCE id_gen.decimal_claim RESTART", false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "decimal_id_claim(): ALTER SEQUENCE failed");
	SPI_finish();
	idgen_sequence_setval(seqoid, (int64) MyDatabaseId * dec::kGeneratorScale + id);
	PG_RETURN_INT32(id);
}

/* The persisted reserved end of this database's counter. */
static int64
persisted_counter(Oid seqoid)
{
	bool		is_called;
	int64		v = idgen_sequence_last_value(seqoid, &is_called);

	return is_called ? v : 0;
}

static void
publish(DecimalSlot *slot, DecimalGenerator g, int64 counter)
{
	slot->source = g.source;
	/* A backend that sees the new word must see its reserved end: write it first. */
	(void) pg_atomic_exchange_u64(&slot->reserved, (uint64) counter);
	(void) pg_atomic_exchange_u64(&slot->word, dec::pack(g.id, counter));
}

static void
exhausted(int32 generator)
{
	ereport(ERROR,
			(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
			 errmsg("decimal_id(): the counter of generator id %d is used up in this database", generator),
			 errdetail("A generator id gives %lld ids per launch id.", (long long) dec::kMaxCounter),
			 errhint("As a superuser, claim a new generator id and restart the counter "
					 "(SELECT id_gen.decimal_id_claim(new_generator => true); SELECT setval('id_gen.decimal_counter', 0)) "
					 "and reconnect: ids then start again from a low counter under the new generator id.")));
}

/*
 * The slow path, under the sequence's lock, when the word `seen` could not
 * advance: load the slot (first use since the start), reserve more counter
 * values, or, at the counter's end, switch to a new generator id the DBA set
 * (with the counter restarted), else ERROR 2200H.
 */
static void
decimal_slow(DecimalSlot *slot, uint64 seen)
{
	Oid			seqoid = internal_sequence_if_any("decimal_counter");
	int64		warn_left = -1;
	int32		generator = 0;

	if (!OidIsValid(seqoid) || get_rel_relkind(seqoid) != RELKIND_SEQUENCE)
		seqoid = idgen_internal_sequence("decimal_counter");	/* ERROR */
	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	uint64		word = pg_atomic_read_u64(&slot->word);
	int64		reserved = (int64) pg_atomic_read_u64(&slot->reserved);
	int64		counter = dec::word_counter(word);

	if (word != seen)
		;						/* somebody else did it */
	else if (word == 0)
		publish(slot, resolve_generator(true), persisted_counter(seqoid));
	else if (counter >= dec::kMaxCounter)
	{
		DecimalGenerator g = resolve_generator(true);
		int64		restarted = persisted_counter(seqoid);

		if (g.id == dec::word_generator(word) || restarted >= dec::kMaxCounter)
			exhausted(dec::word_generator(word));
		publish(slot, g, restarted);
	}
	else if (counter >= reserved)
	{
		/* Above everything reserved before, whatever the sequence says. */
		int64		base = Max(Max(reserved, counter), persisted_counter(seqoid));
		TimestampTz now = GetCurrentTimestamp();
		int64		chunk = dec::next_chunk(slot->chunk, now - slot->last_reserve);
		int64		end = dec::reservation_end(base, chunk);

		if (base > counter &&
			!pg_atomic_compare_exchange_u64(&slot->word, &word, dec::pack(dec::word_generator(word), base)))
		{
			UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
			return;
		}
		idgen_sequence_setval(seqoid, end);
		/* Nobody else flushes this record; the ids depend on it. */
		XLogFlush(XactLastRecEnd);
		slot->chunk = chunk;
		slot->last_reserve = now;
		(void) pg_atomic_exchange_u64(&slot->reserved, (uint64) end);
		if ((double) end * 100.0 >= idgen_headroom_warning_percent * (double) dec::kMaxCounter)
		{
			warn_left = dec::kMaxCounter - Max(base, counter);
			generator = dec::word_generator(word);
		}
	}
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if (warn_left >= 0)
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("decimal_id(): only %lld ids of generator id %d remain in this database",
						(long long) warn_left, generator),
				 errdetail("A generator id gives %lld ids per launch id; a WARNING comes once id_gen.headroom_warning_percent (%g%%) of them are reserved, where id_gen.headroom says warning.",
						   (long long) dec::kMaxCounter, idgen_headroom_warning_percent),
				 errhint("Plan a new generator id: when the counter is used up, as a superuser, "
						 "SELECT id_gen.decimal_id_claim(new_generator => true); SELECT setval('id_gen.decimal_counter', 0); "
						 "and reconnect.")));
}

/*
 * The launch id: id_gen.launch_id when set, else on a Citus node its group
 * id + 1, else none, and decimal_id() refuses (node_identity.cpp).
 */
static int32
checked_launch_id(void)
{
	namespace ni = idgen::node_identity;
	ni::Resolved r = idgen_node_launch();

	if (r.status == ni::Status::Ok)
		return r.id;
	if (r.status == ni::Status::Unset)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("decimal_id(): id_gen.launch_id is not set"),
				 errhint("Set id_gen.launch_id (1..99999, distinct for every server writing into the same tables) "
						 "in postgresql.conf and reload; 0 is for tests only.")));
	int64		group = 0;

	(void) idgen_citus_group(&group);
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("decimal_id(): this node's Citus group id %lld gives no launch id", (long long) group),
			 errdetail("With id_gen.launch_id unset (-1) the launch id is the Citus group id + 1, at most %d.",
					   idgen::decimal_id::kMaxLaunch),
			 errhint("Set id_gen.launch_id on this node to a launch id from 1 to %d that no other node uses "
					 "(node_identity_check() lists them) and reload.", idgen::decimal_id::kMaxLaunch)));
	pg_unreachable();
}

/*
 * A backend's first decimal_id(): check this database's claim against the
 * shared catalogs (ERROR unless it may generate), and make the slot issue
 * under the claimed generator id.  A slot holding another one (loaded before
 * a new claim: a reinstall, a claim after the counter's end) moves to the
 * claimed one, its counter continuing above everything it reserved.  A slot
 * whose reservation this database's counter never held (the entry was a
 * dropped database's with the same OID) counts from this database's counter.
 */
static bool dec_attached = false;

static void
decimal_attach(DecimalSlot *slot)
{
	Oid			seqoid = internal_sequence_if_any("decimal_claim");

	if (OidIsValid(seqoid))
	{
		Oid			counter_seq = idgen_internal_sequence("decimal_counter");
		DecimalGenerator g;
		uint64		word;
		int64		reserved;
		int64		persisted;

		LockRelationOid(counter_seq, ShareUpdateExclusiveLock);
		g = resolve_generator(true);
		word = pg_atomic_read_u64(&slot->word);
		reserved = (int64) pg_atomic_read_u64(&slot->reserved);
		persisted = persisted_counter(counter_seq);
		/*
		 * Under the lock, what a slot reserved is in the counter's sequence.
		 * Reserved beyond it: the entry was another database's with this OID
		 * (db_state.hpp), or a superuser restarted the counter.  Count from
		 * this database's own counter.
		 */
		if (word != 0 && reserved > persisted)
			publish(slot, g, persisted);
		else if (word != 0 && dec::word_generator(word) != g.id && dec::word_counter(word) < dec::kMaxCounter)
			publish(slot, g, Max(Max(reserved, dec::word_counter(word)), persisted));
		UnlockRelationOid(counter_seq, ShareUpdateExclusiveLock);
	}
	dec_attached = true;
}

/* decimal_id() → bigint. */
IDGEN_FUNCTION(decimal_id)
{
	int32		launch = checked_launch_id();
	DecimalSlot *slot;
	int64		id = 0;

	idgen_check_can_generate("decimal_id");
	slot = decimal_slot(true);
	if (unlikely(!dec_attached))
		decimal_attach(slot);
	for (;;)
	{
		uint64		word = pg_atomic_read_u64(&slot->word);
		uint64		next;
		dec::Parts	p;

		pg_read_barrier();
		dec::Step	step = dec::advance(word, (int64) pg_atomic_read_u64(&slot->reserved), &next, &p);

		if (step != dec::Step::Ok)
		{
			decimal_slow(slot, word);
			continue;
		}
		if (pg_atomic_compare_exchange_u64(&slot->word, &word, next))
		{
			if (!dec::encode(p.counter, p.generator, launch, &id))
				elog(ERROR, "decimal_id(): field out of range");
			PG_RETURN_INT64(id);
		}
	}
}

/* decimal_id_decode(id) → (counter, generator_id, launch_id). */
IDGEN_FUNCTION(decimal_id_decode)
{
	int64		id = PG_GETARG_INT64(0);
	dec::Parts	p;
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (!dec::decode(id, &p))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%lld is not a decimal_id", (long long) id),
				 errdetail("A decimal_id is at least %lld (counter 1).", (long long) dec::kCounterScale)));
	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int64GetDatum(p.counter);
	values[1] = Int32GetDatum(p.generator);
	values[2] = Int32GetDatum(p.launch);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * decimal_id_state() → (launch_id, generator_id, generator_source, counter,
 * reserved_to, counter_left) for this database.  Before its first
 * decimal_id() since the start: the generator id it would take (unchecked),
 * no counter, and the persisted reserved end.
 */
IDGEN_FUNCTION(decimal_id_state)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	DecimalSlot *slot = decimal_slot(false);
	uint64		word = slot ? pg_atomic_read_u64(&slot->word) : 0;
	DecimalGenerator g;
	int64		reserved;
	int64		counter;

	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != 6)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("decimal_id_state() of this database is an older version's"),
				 errhint("Run ALTER EXTENSION id_gen UPDATE in this database.")));
	idgen::node_identity::Resolved launch = idgen_node_launch();

	if (word != 0 && slot->source == DEC_LEGACY)
		g.id = dec::word_generator(word), g.source = DEC_LEGACY;
	else
		g = resolve_generator(false);
	if (word != 0 && dec::word_generator(word) == g.id)
	{
		counter = dec::word_counter(word);
		reserved = (int64) pg_atomic_read_u64(&slot->reserved);
	}
	else
	{
		reserved = persisted_counter(idgen_internal_sequence("decimal_counter"));
		counter = reserved;
		nulls[3] = true;
	}
	nulls[0] = launch.status != idgen::node_identity::Status::Ok;
	values[0] = Int32GetDatum(launch.id);
	nulls[1] = g.id < 0;
	values[1] = Int32GetDatum(g.id);
	values[2] = CStringGetTextDatum(g.id < 0 ? "none (no valid claim)" :
									g.source == DEC_CLAIMED ? "claimed" :
									g.source == DEC_FROM_SETTING ? "id_gen.decimal_generator_id" :
									g.source == DEC_LEGACY ? "id_gen.decimal_generator (before 1.3)" : "database OID");
	values[3] = Int64GetDatum(counter);
	values[4] = Int64GetDatum(reserved);
	values[5] = Int64GetDatum(dec::kMaxCounter - counter);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * id_gen.decimal_id_skip(counter) (superuser test hook): move this
 * database's counter forward to `counter` (never back), so tests can reach
 * the counter's end; the next id reserves above it.  Returns the counter
 * now in the word.
 */
IDGEN_FUNCTION(decimal_id_skip)
{
	int64		target = PG_GETARG_INT64(0);
	DecimalSlot *slot;

	if (target < 0 || target > dec::kMaxCounter)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the counter must be between 0 and %lld", (long long) dec::kMaxCounter)));
	idgen_check_can_generate("decimal_id_skip");
	slot = decimal_slot(true);
	if (!dec_attached)
		decimal_attach(slot);
	for (;;)
	{
		uint64		word = pg_atomic_read_u64(&slot->word);

		if (word == 0)
		{
			decimal_slow(slot, word);
			continue;
		}
		if (dec::word_counter(word) >= target)
			PG_RETURN_INT64(dec::word_counter(word));
		if (pg_atomic_compare_exchange_u64(&slot->word, &word, dec::pack(dec::word_generator(word), target)))
			PG_RETURN_INT64(target);
	}
}

/*
 * id_gen.decimal_id_carry_counter() (install scripts only): CREATE EXTENSION
 * makes id_gen.decimal_counter anew, at 0; if this database generated since
 * the server started (DROP EXTENSION and CREATE EXTENSION while it runs), its
 * slot still knows the reserved end: put it into the new sequence, WAL-
 * flushed, so that a later restart resumes above every id issued.
 */
IDGEN_FUNCTION(decimal_id_carry_counter)
{
	DecimalSlot *slot = decimal_slot(false);
	Oid			seqoid;
	int64		carried = 0;

	if (slot == nullptr || pg_atomic_read_u64(&slot->word) == 0 || slot->source == DEC_LEGACY)
		PG_RETURN_NULL();
	seqoid = idgen_internal_sequence("decimal_counter");
	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	carried = Max((int64) pg_atomic_read_u64(&slot->reserved),
				  dec::word_counter(pg_atomic_read_u64(&slot->word)));
	if (carried > persisted_counter(seqoid))
	{
		idgen_sequence_setval(seqoid, carried);
		XLogFlush(XactLastRecEnd);
	}
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
	PG_RETURN_INT64(carried);
}
