/*
 * decimal_id.cpp: decimal_id() = counter * 10^10 + generator_id * 10^5 +
 * launch_id, its decoder and its state.
 *
 * A database's generator id is the one it claimed (decimal_claim.cpp).  Its
 * counter is reserved ahead in the sequence id_gen.decimal_counter the way
 * nextval() pre-logs values: the shared word advances by one
 * compare-and-swap up to the reserved end; at the end, under a
 * self-conflicting heavyweight lock on the sequence, the sequence is raised
 * by a chunk (next_chunk()), the WAL flushed, and only then the new end
 * published.  A restart resumes above the reserved end; a crash, a standby,
 * PITR, pg_upgrade and pg_dump carry it as they carry the database.
 *
 * Shared memory: one slot per database, in its entry (db_state.hpp); a
 * backend's first decimal_id() checks it against the database's claim and
 * counter (decimal_attach).
 *
 * DROP EXTENSION drops the counter's sequence and the claim: CREATE
 * EXTENSION claims a new generator id (above every one claimed on the
 * server), so the counter starting again repeats nothing.
 */
#include "pg/clock.hpp"
#include "pg/guc.hpp"
#include "pg/node_identity.hpp"
#include "pg/decimal_id.hpp"
#include "pg/pg.hpp"

extern "C" {
#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "storage/lmgr.h"
#include "utils/timestamp.h"
}

#include "core/decimal_id.hpp"

namespace dec = idgen::decimal_id;

typedef IdgenDecimalSlot DecimalSlot;

static DecimalSlot *dec_slot = nullptr;

void
idgen_decimal_slot_init(DecimalSlot *s)
{
	pg_atomic_init_u64(&s->word, 0);
	pg_atomic_init_u64(&s->reserved, 0);
	s->chunk = 0;
	s->last_reserve = 0;
}

/* This database's slot, in its entry (db_state.cpp). */
static DecimalSlot *
decimal_slot(bool create)
{
	if (dec_slot == nullptr)
		dec_slot = idgen_db_decimal_slot(create);
	return dec_slot;
}

/*
 * This database's claimed generator id, else ERROR 55000 with why and the
 * way out.
 */
static int32
checked_generator(void)
{
	IdgenDecimalClaim c = idgen_decimal_resolve();

	if (c.id >= 0)
		return c.id;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("decimal_id(): %s", c.why),
			 errdetail("%s", c.detail),
			 c.uncommitted ?
			 errhint("Commit the transaction that claimed it (CREATE EXTENSION id_gen or id_gen.decimal_id_claim()) "
					 "before the first decimal_id().") :
			 errhint("As a superuser, claim a generator id for this database: SELECT id_gen.decimal_id_claim(); "
					 "then reconnect.")));
	pg_unreachable();
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
publish(DecimalSlot *slot, int32 generator, int64 counter)
{
	/* A backend that sees the new word must see its reserved end: write it first. */
	(void) pg_atomic_exchange_u64(&slot->reserved, (uint64) counter);
	(void) pg_atomic_exchange_u64(&slot->word, dec::pack(generator, counter));
}

static void
exhausted(int32 generator)
{
	ereport(ERROR,
			(errcode(ERRCODE_SEQUENCE_GENERATOR_LIMIT_EXCEEDED),
			 errmsg("decimal_id(): the counter of generator id %d is used up in this database", generator),
			 errdetail("A generator id gives %lld ids per launch id.", (long long) dec::kMaxCounter),
			 errhint("As a superuser, claim a new generator id, which restarts the counter: "
					 "SELECT id_gen.decimal_id_claim(new_generator => true); and reconnect.")));
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
	Oid			seqoid = idgen_internal_sequence("decimal_counter");
	int64		warn_left = -1;
	int32		generator = 0;

	LockRelationOid(seqoid, ShareUpdateExclusiveLock);
	uint64		word = pg_atomic_read_u64(&slot->word);
	int64		reserved = (int64) pg_atomic_read_u64(&slot->reserved);
	int64		counter = dec::word_counter(word);

	if (word != seen)
		;						/* somebody else did it */
	else if (word == 0)
		publish(slot, checked_generator(), persisted_counter(seqoid));
	else if (counter >= dec::kMaxCounter)
	{
		int32		g = checked_generator();
		int64		restarted = persisted_counter(seqoid);

		if (g == dec::word_generator(word) || restarted >= dec::kMaxCounter)
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
						 "SELECT id_gen.decimal_id_claim(new_generator => true); and reconnect.")));
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
	Oid			counter_seq = idgen_internal_sequence("decimal_counter");
	int32		g;
	uint64		word;
	int64		reserved;
	int64		persisted;

	LockRelationOid(counter_seq, ShareUpdateExclusiveLock);
	g = checked_generator();
	word = pg_atomic_read_u64(&slot->word);
	reserved = (int64) pg_atomic_read_u64(&slot->reserved);
	persisted = persisted_counter(counter_seq);
	/*
	 * Under the lock, what a slot reserved is in the counter's sequence.
	 * Reserved beyond it: the entry was another database's with this OID
	 * (db_state.hpp), or the counter was restarted with a new claim.  Count
	 * from this database's own counter.
	 */
	if (word != 0 && reserved > persisted)
		publish(slot, g, persisted);
	else if (word != 0 && dec::word_generator(word) != g && dec::word_counter(word) < dec::kMaxCounter)
		publish(slot, g, Max(Max(reserved, dec::word_counter(word)), persisted));
	UnlockRelationOid(counter_seq, ShareUpdateExclusiveLock);
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
			CHECK_FOR_INTERRUPTS();
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
 * decimal_id_state() → (launch_id, generator_id, refusal, counter,
 * reserved_to, counter_left) for this database: refusal says why
 * decimal_id() refuses (NULL when it may issue).  Before its first
 * decimal_id() since the start: no counter, and the persisted reserved end.
 */
IDGEN_FUNCTION(decimal_id_state)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};
	DecimalSlot *slot = decimal_slot(false);
	uint64		word = slot ? pg_atomic_read_u64(&slot->word) : 0;
	IdgenDecimalClaim g = idgen_decimal_resolve();
	idgen::node_identity::Resolved launch = idgen_node_launch();
	int64		reserved;
	int64		counter;

	if (get_call_result_type(fcinfo, nullptr, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
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
	nulls[2] = g.id >= 0;
	values[2] = CStringGetTextDatum(g.id < 0 ? g.why : "");
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
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		if (dec::word_counter(word) >= target)
			PG_RETURN_INT64(dec::word_counter(word));
		if (pg_atomic_compare_exchange_u64(&slot->word, &word, dec::pack(dec::word_generator(word), target)))
			PG_RETURN_INT64(target);
	}
}
