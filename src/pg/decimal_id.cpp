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
 * Shared memory "id_gen decimal_id": one slot per database (db_slots.hpp),
 * reset by the registry before a dropped database's index is reused.
 *
 * What no object of a database can carry, and so the limits: a generator id
 * no existing database maps to any more (the database was dropped, or its
 * setting changed) can be taken by another database, whose counter starts
 * again; DROP EXTENSION drops the counter's sequence (a reinstall while the
 * server runs carries the reserved end over, decimal_id_carry_counter(); one
 * across a restart starts the counter again, as a re-created sequence would).
 */
#include "pg/clock.hpp"
#include "pg/db_slots.hpp"
#include "pg/guc.hpp"
#include "pg/node_identity.hpp"
#include "pg/decimal_id.hpp"
#include "pg/pg.hpp"
#include "pg/shmem.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "commands/dbcommands.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "storage/lmgr.h"
#include "utils/lsyscache.h"
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

typedef struct DecimalSlot
{
	pg_atomic_uint64 word;		/* (generator + 1) << 32 | counter; 0 = not loaded */
	pg_atomic_uint64 reserved;	/* counter values durable in id_gen.decimal_counter */
	/* Written under the sequence's heavyweight lock: */
	int64		chunk;			/* size of the last reservation */
	TimestampTz last_reserve;	/* when it was made */
	int32		source;			/* DEC_FROM_* of the generator id in word */
} DecimalSlot;

typedef union DecimalSlotPadded
{
	DecimalSlot slot;
	char		pad[PG_CACHE_LINE_SIZE];
} DecimalSlotPadded;

/* Indexed like the clock floors: idgen_database_index(). */
typedef struct DecimalShared
{
	DecimalSlotPadded slots[IDGEN_MAX_DATABASES];
} DecimalShared;

static DecimalShared *dec_shared = nullptr;
static DecimalSlot *dec_slot = nullptr;

static void
decimal_slot_clear(DecimalSlot *s)
{
	pg_atomic_write_u64(&s->reserved, 0);
	pg_atomic_write_u64(&s->word, 0);
	s->chunk = 0;
	s->last_reserve = 0;
	s->source = DEC_FROM_OID;
}

static void
decimal_shared_init(void *ptr)
{
	DecimalShared *d = static_cast<DecimalShared *>(ptr);

	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		pg_atomic_init_u64(&d->slots[i].slot.word, 0);
		pg_atomic_init_u64(&d->slots[i].slot.reserved, 0);
		decimal_slot_clear(&d->slots[i].slot);
	}
}

static const IdgenShmemStruct decimal_shmem = {
	"id_gen decimal_id", sizeof(DecimalShared), decimal_shared_init
};

static DecimalShared *
decimal_shared(void)
{
	if (dec_shared == nullptr)
		dec_shared = static_cast<DecimalShared *>(idgen_shmem_attach(&decimal_shmem));
	return dec_shared;
}

/* The registry hands index to another database: forget the dropped one. */
static void
decimal_slot_reset(int index)
{
	decimal_slot_clear(&decimal_shared()->slots[index].slot);
}

void
idgen_decimal_id_init(void)
{
	idgen_shmem_register(&decimal_shmem);
	idgen_db_slots_on_reuse(decimal_slot_reset);
}

static DecimalSlot *
decimal_slot(bool create)
{
	int			i;

	if (dec_slot != nullptr)
		return dec_slot;
	i = idgen_database_index(create);
	if (i < 0)
		return nullptr;
	dec_slot = &decimal_shared()->slots[i].slot;
	return dec_slot;
}

/* A database's generator id as decimal_id() would use it. */
typedef struct DecimalGenerator
{
	int32		id;				/* -1: this database's setting is not a valid one */
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

/* The largest generator id id_gen 1.0 to 1.2 took in this database, or -1. */
static int64
earlier_generators_to(void)
{
	bool		is_called;
	int64		last = idgen_sequence_last_value(idgen_internal_sequence("decimal_generator"), &is_called);

	return is_called ? last : -1;
}

/* The generator id of one row of resolve_generator()'s query. */
static DecimalGenerator
row_generator(uint64 r, Oid *oid, char **setting)
{
	HeapTuple	tup = SPI_tuptable->vals[r];
	bool		isnull;
	DecimalGenerator g;
	int32		v;

	*oid = DatumGetObjectId(SPI_getbinval(tup, SPI_tuptable->tupdesc, 1, &isnull));
	*setting = SPI_getvalue(tup, SPI_tuptable->tupdesc, 3);
	g.id = dec::derived_generator(*oid);
	g.source = DEC_FROM_OID;
	if (*setting != nullptr)
	{
		if (!parse_generator_setting(*setting, &v))
			g.id = -1;
		else if (v >= 0)
		{
			g.id = v;
			g.source = DEC_FROM_SETTING;
		}
	}
	return g;
}

/*
 * This database's generator id: the setting stored for it, else derived
 * from its OID.  With check, ERROR 55000 when another database (every one
 * but template0-like ones, which refuse connections) would use the same, or
 * when id_gen 1.0 to 1.2 took it here; the hint names a free one.
 */
static DecimalGenerator
resolve_generator(bool check)
{
	static const char *query =
		"SELECT d.oid, d.datname::pg_catalog.text, "
		"       (SELECT pg_catalog.substr(c, 29) FROM pg_catalog.unnest(s.setconfig) AS c "
		"         WHERE pg_catalog.starts_with(pg_catalog.lower(c), 'id_gen.decimal_generator_id=') LIMIT 1) "
		"  FROM pg_catalog.pg_database d "
		"  LEFT JOIN pg_catalog.pg_db_role_setting s "
		"    ON s.setdatabase OPERATOR(pg_catalog.=) d.oid AND s.setrole OPERATOR(pg_catalog.=) 0 "
		" WHERE d.datallowconn OR NOT d.datistemplate";
	DecimalGenerator mine = {dec::derived_generator(MyDatabaseId), DEC_FROM_OID};
	char	   *mine_setting = nullptr;
	bool	   *used;
	char	   *clash = nullptr;
	int64		history;
	int32		free_id = -1;
	Oid			oid;
	char	   *setting;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(query, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "decimal_id(): reading pg_database failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		DecimalGenerator g = row_generator(r, &oid, &setting);

		if (oid == MyDatabaseId)
		{
			mine = g;
			mine_setting = setting;
		}
	}
	if (!check)
	{
		SPI_finish();
		return mine;
	}
	if (mine.id < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("decimal_id(): id_gen.decimal_generator_id = \"%s\" set for this database is not a generator id",
						mine_setting),
				 errhint("As a superuser, ALTER DATABASE %s SET id_gen.decimal_generator_id to one from 0 to %d, or RESET it.",
						 quote_identifier(get_database_name(MyDatabaseId)), dec::kMaxGenerator)));
	/* Other databases' generator ids; an invalid setting keeps one from generating. */
	used = static_cast<bool *>(palloc0(sizeof(bool) * (dec::kMaxGenerator + 1)));
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		DecimalGenerator g = row_generator(r, &oid, &setting);

		if (oid == MyDatabaseId || g.id < 0)
			continue;
		used[g.id] = true;
		if (clash == nullptr && g.id == mine.id)
			clash = SPI_getvalue(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2);
	}
	history = earlier_generators_to();
	for (int32 g = Max(dec::kDerivedBase, (int32) history + 1); g <= dec::kMaxGenerator; g++)
		if (!used[g] && g != mine.id)
		{
			free_id = g;
			break;
		}
	if (mine.id <= history)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("decimal_id(): generator id %d was taken in this database by an earlier version of id_gen", mine.id),
				 errdetail("id_gen 1.2 and earlier took generator ids 0 to %lld here (sequence id_gen.decimal_generator); "
						   "ids made with them may be in its tables.", (long long) history),
				 errhint("As a superuser, give this database a generator id above %lld that no other database uses, "
						 "e.g. ALTER DATABASE %s SET id_gen.decimal_generator_id = %d, and reconnect.",
						 (long long) history, quote_identifier(get_database_name(MyDatabaseId)), free_id)));
	if (clash != nullptr)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("decimal_id(): database \"%s\" would use generator id %d too", clash, mine.id),
				 errdetail("A database's generator id is id_gen.decimal_generator_id as set for it, else 50000 + its OID %% 50000; "
						   "two databases with one generator id could issue the same ids."),
				 errhint("As a superuser, give this database a generator id no other database uses, "
						 "e.g. ALTER DATABASE %s SET id_gen.decimal_generator_id = %d, and reconnect.",
						 quote_identifier(get_database_name(MyDatabaseId)), free_id)));
	SPI_finish();
	return mine;
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
			 errhint("As a superuser, give this database a generator id no database has used "
					 "(ALTER DATABASE %s SET id_gen.decimal_generator_id = n), restart its counter "
					 "(SELECT setval('id_gen.decimal_counter', 0)) and reconnect.",
					 quote_identifier(get_database_name(MyDatabaseId)))));
}

/* id_gen.<name> if it exists in this database, else InvalidOid. */
static Oid
internal_sequence_if_any(const char *name)
{
	Oid			nsp = get_namespace_oid("id_gen", true);

	return OidIsValid(nsp) ? get_relname_relid(name, nsp) : InvalidOid;
}

/*
 * decimal_id() on a schema older than 1.3 (DEC_LEGACY), where `seen` could
 * not advance: take 1.2's next generator id, WAL-flushed, and count from 0.
 */
static void
legacy_slow(DecimalSlot *slot, uint64 seen)
{
	Oid			seqoid = idgen_internal_sequence("decimal_generator");

	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if (pg_atomic_read_u64(&slot->word) == seen)
	{
		bool		is_called;
		int64		last = idgen_sequence_last_value(seqoid, &is_called);
		DecimalGenerator g = {is_called ? (int32) last + 1 : 0, DEC_LEGACY};

		if (g.id > dec::kDerivedBase - 1)
			ereport(ERROR,
					(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
					 errmsg("decimal_id(): the generator ids of id_gen 1.2 are used up in this database"),
					 errhint("Run ALTER EXTENSION id_gen UPDATE in this database.")));
		idgen_sequence_setval(seqoid, g.id);
		XLogFlush(XactLastRecEnd);
		slot->source = DEC_LEGACY;
		(void) pg_atomic_exchange_u64(&slot->reserved, (uint64) dec::kMaxCounter);
		(void) pg_atomic_exchange_u64(&slot->word, dec::pack(g.id, 0));
	}
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
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
	{
		legacy_slow(slot, seen);
		return;
	}
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
				 errhint("Plan a new generator id: as a superuser, ALTER DATABASE %s SET id_gen.decimal_generator_id "
						 "to one no database has used, restart the counter (SELECT setval('id_gen.decimal_counter', 0)) "
						 "when it is used up, and reconnect.",
						 quote_identifier(get_database_name(MyDatabaseId)))));
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

/* decimal_id() → bigint. */
IDGEN_FUNCTION(decimal_id)
{
	int32		launch = checked_launch_id();
	DecimalSlot *slot;
	int64		id = 0;

	idgen_check_can_generate("decimal_id");
	slot = decimal_slot(true);
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

	if (word != 0)
	{
		g.id = dec::word_generator(word);
		g.source = slot->source;
		counter = dec::word_counter(word);
		reserved = (int64) pg_atomic_read_u64(&slot->reserved);
	}
	else
	{
		g = resolve_generator(false);
		reserved = persisted_counter(idgen_internal_sequence("decimal_counter"));
		counter = reserved;
		nulls[3] = true;
	}
	nulls[0] = launch.status != idgen::node_identity::Status::Ok;
	values[0] = Int32GetDatum(launch.id);
	nulls[1] = g.id < 0;
	values[1] = Int32GetDatum(g.id);
	values[2] = CStringGetTextDatum(g.id < 0 ? "id_gen.decimal_generator_id (not a generator id)" :
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
