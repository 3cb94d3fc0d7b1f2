/*
 * db_slots.hpp: the per-database slot registry.  Generators keep some state
 * per database in shared memory (clock.cpp's floors, decimal_id.cpp's
 * generators), in arrays of IDGEN_MAX_DATABASES entries: a database gets
 * the same index in every one of them, assigned at its first use since the
 * server started and kept until the next start, or, once the database is
 * dropped, until another database needs an index and none is free (then
 * every registered reset clears the index first).
 */
#pragma once

#include "pg/pg.hpp"

/* Databases that can use the generators between two server starts. */
#define IDGEN_MAX_DATABASES 64

/*
 * This database's index: with create, assigns a free one, or one of a
 * dropped database (ERROR 54000 when every holder exists); otherwise -1 if
 * the database has none yet.  Needs a transaction (it reads pg_database).
 */
extern int	idgen_database_index(bool create);

/* From _PG_init: registers the registry's shared memory. */
extern void idgen_db_slots_init(void);

/*
 * A module's reset of its per-database state at index, called (from _PG_init
 * registration) before the index is handed to another database, once the
 * database that held it no longer exists.
 */
typedef void (*IdgenDbSlotReset) (int index);
extern void idgen_db_slots_on_reuse(IdgenDbSlotReset reset);
