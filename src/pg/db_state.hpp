/*
 * db_state.hpp: the generators' per-database state in shared memory, one
 * entry per database in a shared hash table that grows with the databases
 * using the generators (db_state.cpp).
 *
 * An entry is a cache: everything in it can be loaded again from the
 * database's own WAL-logged objects (its floor sequences, its
 * id_gen.decimal_counter and claim), and each module checks what it finds
 * against them at a backend's first use, so an entry left by a dropped
 * database whose OID is reused, or by a dropped extension, is never issued
 * from.  An entry no backend uses may be evicted once its database is gone.
 */
#pragma once

#include "pg/clock.hpp"
#include "pg/decimal_id.hpp"

typedef struct IdgenDbEntry
{
	Oid			dboid;			/* the hash key */
	pg_atomic_uint32 backends;	/* backends holding the entry: never evicted while > 0 */
	IdgenFloorSlot floor;		/* clock.cpp */
	char		pad[PG_CACHE_LINE_SIZE];	/* the floors, read at every call, and decimal's word, */
	IdgenDecimalSlot decimal;	/* swapped at every call, on other cache lines; decimal_id.cpp */
} IdgenDbEntry;

/*
 * This database's entry, held until the backend exits.  With create, made
 * on the database's first use since the start; otherwise nullptr when
 * there is none yet.  Needs a transaction (the first creation may look up
 * pg_database to evict the entries of dropped databases).  May ERROR
 * (53200 when dynamic shared memory is used up).
 */
extern IdgenDbEntry *idgen_db_entry(bool create);

/* From _PG_init: registers the fixed part (the hash table's handles). */
extern void idgen_db_state_init(void);
