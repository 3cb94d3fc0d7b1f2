/*
 * decimal_id.cpp: decimal_id() = counter * 10^10 + generator_id * 10^5 +
 * launch_id, its decoder and its state.
 *
 * Shared memory "id_gen decimal_id": one counter word per database,
 * (generator_id + 1) << 32 | counter, advanced by compare-and-swap.  A
 * generator id is taken the first time the database generates after a
 * server start, and again when the counter passes 922,337,202.  Generator
 * ids are never taken twice on a server: the next free one is kept
 * server-wide in the replication origin id_gen_decimal_generators
 * (server_floor.hpp), which survives DROP EXTENSION and is shared by all
 * databases, and in the database's sequence id_gen.decimal_generator, which
 * a dump carries to another server; a new one is above both, WAL-flushed
 * before use.  Taking one is serialised by a self-conflicting heavyweight
 * lock on that sequence, so concurrent backends never burn two for one
 * need; connection churn burns none (the word lives in shared memory).
 */
#include "pg/clock.hpp"
#include "pg/db_slots.hpp"
#include "pg/guc.hpp"
#include "pg/node_identity.hpp"
#include "pg/decimal_id.hpp"
#include "pg/pg.hpp"
/*
 * Issue 17: the replication origins (server_floor.hpp) are gone; until the
 * decimal_id() state is redesigned, its generator ids are kept per database
 * only, as they were without an origin.
 */
#define IDGEN_ORIGIN_DECIMAL_GENERATORS "id_gen_decimal_generators"
static bool
idgen_server_counter_read(const char *, uint64 *)
{
	return false;
}
static void
idgen_server_counter_raise(const char *, uint64)
{
}
#include "pg/shmem.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "storage/lmgr.h"
}

#include "core/decimal_id.hpp"

namespace dec = idgen::decimal_id;

/* A WARNING when fewer generator ids than this remain. */
#define GENERATORS_LOW 1000

typedef struct DecimalSlot
{
	pg_atomic_uint64 word;		/* (generator + 1) << 32 | counter; 0 = none */
	pg_atomic_uint64 generators_taken;
	char		pad[PG_CACHE_LINE_SIZE - 2 * sizeof(pg_atomic_uint64)];
} DecimalSlot;

/* Indexed like the clock floors: idgen_database_index(). */
typedef struct DecimalShared
{
	DecimalSlot slots[IDGEN_MAX_DATABASES];
} DecimalShared;

static DecimalShared *dec_shared = nullptr;
static DecimalSlot *dec_slot = nullptr;

static void
decimal_shared_init(void *ptr)
{
	DecimalShared *d = static_cast<DecimalShared *>(ptr);

	for (int i = 0; i < IDGEN_MAX_DATABASES; i++)
	{
		pg_atomic_init_u64(&d->slots[i].word, 0);
		pg_atomic_init_u64(&d->slots[i].generators_taken, 0);
	}
}

static const IdgenShmemStruct decimal_shmem = {
	"id_gen decimal_id", sizeof(DecimalShared), decimal_shared_init
};

void
idgen_decimal_id_init(void)
{
	idgen_shmem_register(&decimal_shmem);
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
	if (dec_shared == nullptr)
		dec_shared = static_cast<DecimalShared *>(idgen_shmem_attach(&decimal_shmem));
	dec_slot = &dec_shared->slots[i];
	return dec_slot;
}

/*
 * The next generator id free for this database: above the database's
 * sequence and the server-wide counter (when the server has it).
 */
static int64
next_free_generator(Oid seqoid, bool *server_wide)
{
	bool		is_called;
	int64		last = idgen_sequence_last_value(seqoid, &is_called);
	int64		next = is_called ? last + 1 : 0;
	uint64		srv = 0;

	*server_wide = idgen_server_counter_read(IDGEN_ORIGIN_DECIMAL_GENERATORS, &srv);
	return Max(next, (int64) srv);
}

/*
 * Replace the generator id of this database if the word still equals
 * `seen` (nobody replaced it meanwhile): the next free one, recorded in the
 * database's sequence and the server-wide counter and flushed before it is
 * published.
 */
static void
take_generator(DecimalSlot *slot, uint64 seen)
{
	Oid			seqoid = idgen_internal_sequence("decimal_generator");

	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	if (pg_atomic_read_u64(&slot->word) == seen)
	{
		bool		server_wide;
		int64		g = next_free_generator(seqoid, &server_wide);

		if (g > dec::kMaxGenerator)
			ereport(ERROR,
					(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
					 errmsg("decimal_id(): all %d generator ids of this %s are used",
							dec::kMaxGenerator + 1, server_wide ? "server" : "database"),
					 errdetail("A generator id is taken at each server start by each database that generates, and each time a generator's counter passes %lld.",
							   (long long) dec::kMaxCounter),
					 errhint("Ids keep their uniqueness only with a new launch_id: set a launch_id never used with these tables, "
							 "then as a superuser SELECT pg_replication_origin_advance('%s', '0/0') and in every database "
							 "SELECT setval('id_gen.decimal_generator', 0, false).", IDGEN_ORIGIN_DECIMAL_GENERATORS)));
		idgen_sequence_setval(seqoid, g);
		if (server_wide)
			(void) idgen_server_counter_raise(IDGEN_ORIGIN_DECIMAL_GENERATORS, (uint64) g + 1);
		/* Nobody else flushes these records; the ids depend on them. */
		XLogFlush(XactLastRecEnd);
		pg_atomic_write_u64(&slot->word, dec::pack((int32) g, 0));
		pg_atomic_fetch_add_u64(&slot->generators_taken, 1);
		if (dec::kMaxGenerator - g < GENERATORS_LOW)
			ereport(WARNING,
					(errcode(ERRCODE_WARNING),
					 errmsg("decimal_id(): only %lld generator ids of this %s remain",
							(long long) (dec::kMaxGenerator - g), server_wide ? "server" : "database"),
					 errdetail("Generator id %lld was taken; the last one is %d.",
							   (long long) g, dec::kMaxGenerator),
					 errhint("Each server start takes one per database; plan a new launch_id.")));
		else if (!server_wide)
			ereport(WARNING,
					(errcode(ERRCODE_WARNING),
					 errmsg("decimal_id(): generator ids are kept per database only on this server"),
					 errdetail("The replication origin \"%s\" does not exist, or max_replication_slots is 0: "
							   "after DROP EXTENSION id_gen, generator ids would be taken again.",
							   IDGEN_ORIGIN_DECIMAL_GENERATORS),
					 errhint("With max_replication_slots above 0, run ALTER EXTENSION id_gen UPDATE, "
							 "or as a superuser SELECT pg_replication_origin_create('%s').",
							 IDGEN_ORIGIN_DECIMAL_GENERATORS)));
	}
	UnlockRelationOid(seqoid, ShareUpdateExclusiveLock);
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

		if (!dec::advance(word, &next, &p))
		{
			take_generator(slot, word);
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
 * decimal_id_state() → (launch_id, generator_id, counter, generators_taken,
 * generator_ids_left) for this database.
 */
IDGEN_FUNCTION(decimal_id_state)
{
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};
	DecimalSlot *slot = decimal_slot(false);
	uint64		word = slot ? pg_atomic_read_u64(&slot->word) : 0;
	bool		server_wide;
	int64		next_free = next_free_generator(idgen_internal_sequence("decimal_generator"), &server_wide);

	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	idgen::node_identity::Resolved launch = idgen_node_launch();

	nulls[0] = launch.status != idgen::node_identity::Status::Ok;
	values[0] = Int32GetDatum(launch.id);
	nulls[1] = nulls[2] = (word >> 32) == 0;
	values[1] = Int32GetDatum((int32) ((word >> 32) - 1));
	values[2] = Int64GetDatum((int64) (word & 0xFFFFFFFFu));
	values[3] = Int64GetDatum(slot ? (int64) pg_atomic_read_u64(&slot->generators_taken) : 0);
	values[4] = Int64GetDatum(Max(dec::kMaxGenerator + 1 - next_free, 0));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * id_gen.decimal_id_skip(counter) (superuser test hook): move this
 * database's counter forward to `counter` (never back), so tests can reach
 * the counter's end.  Returns the counter now in the word.
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

		if ((word >> 32) == 0)
		{
			take_generator(slot, word);
			continue;
		}
		if ((int64) (word & 0xFFFFFFFFu) >= target)
			PG_RETURN_INT64((int64) (word & 0xFFFFFFFFu));
		if (pg_atomic_compare_exchange_u64(&slot->word, &word, (word & ~UINT64CONST(0xFFFFFFFF)) | (uint64) target))
			PG_RETURN_INT64(target);
	}
}
