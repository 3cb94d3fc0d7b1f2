/*
 * id_gen.cpp: module entry point.
 *
 * _PG_init defines the settings, hooks shared memory when preloaded, and
 * lets each capability register what it needs.  Nothing here may assume
 * shared_preload_libraries: CREATE EXTENSION on a running server must work.
 */
#include "pg/pg.hpp"
#include "pg/clock.hpp"
#include "pg/db_state.hpp"
#include "pg/decimal_id.hpp"
#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"
#include "pg/node_identity.hpp"
#include "pg/shmem.hpp"
#include "pg/snowflake.hpp"
#include "pg/timeuuid_gen.hpp"

extern "C" {
#include "utils/inval.h"

PG_MODULE_MAGIC;
extern PGDLLEXPORT void _PG_init(void);
}

/*
 * One relcache callback for the whole library, handing each invalidation to
 * the modules that cache relation OIDs: PostgreSQL 15 allows a backend only
 * ten (MAX_RELCACHE_CALLBACKS), and other extensions loaded beside this one
 * (Citus registers several) need theirs.
 */
static void
idgen_relcache_callback(Datum arg, Oid relid)
{
	idgen_clock_relcache(relid);
	idgen_hilo_relcache(relid);
}

void
_PG_init(void)
{
	idgen_define_gucs();
	idgen_shmem_install_hooks();
	idgen_db_state_init();
	idgen_clock_init();
	idgen_node_identity_init();
	idgen_snowflake_init();
	idgen_timeuuid_init();
	idgen_hilo_init();
	idgen_hilo_citus_init();
	CacheRegisterRelcacheCallback(idgen_relcache_callback, (Datum) 0);
	idgen_shmem_claim_layout();
}

/*
 * id_gen.noop() (C symbol id_gen_noop) returns a constant: the cheapest C function call there is,
 * the floor the benchmark measures generators against.
 */
IDGEN_FUNCTION(id_gen_noop)
{
	PG_RETURN_INT64(0);
}
