/*
 * decimal_id.hpp: decimal_id() and its state (decimal_id.cpp).
 */
#pragma once

#include "pg/pg.hpp"

extern "C" {
#include "port/atomics.h"
#include "datatype/timestamp.h"
}

/* A database's decimal_id() state in shared memory (db_state.hpp). */
typedef struct IdgenDecimalSlot
{
	pg_atomic_uint64 word;		/* (generator + 1) << 32 | counter; 0 = not loaded */
	pg_atomic_uint64 reserved;	/* counter values durable in id_gen.decimal_counter */
	/* Written under the sequence's heavyweight lock: */
	int64		chunk;			/* size of the last reservation */
	TimestampTz last_reserve;	/* when it was made */
} IdgenDecimalSlot;

/*
 * This database's claimed generator id (decimal_claim.cpp), or -1 and why
 * decimal_id() refuses: why (the message), detail, and whether it is a
 * claim of this transaction, not committed yet.
 */
typedef struct IdgenDecimalClaim
{
	int32		id;
	const char *why;
	const char *detail;
	bool		uncommitted;
} IdgenDecimalClaim;

extern IdgenDecimalClaim idgen_decimal_resolve(void);

/* A new entry's slot: nothing loaded. */
extern void idgen_decimal_slot_init(IdgenDecimalSlot *slot);

/* This database's slot, in its entry (db_state.cpp), as idgen_db_floor_slot(). */
extern IdgenDecimalSlot *idgen_db_decimal_slot(bool create);
