/*
 * shmem.hpp: shared memory for the server-wide generators.
 */
#pragma once

#include "pg/pg.hpp"

/* True when id_gen is in shared_preload_libraries. */
extern bool idgen_preloaded;

/*
 * From _PG_init only: reserve `size` bytes for a structure that will be
 * attached later with idgen_shmem_attach().  Has effect only when preloaded.
 */
extern void idgen_shmem_reserve(Size size);

/* From _PG_init only: install the shmem_request_hook when preloaded. */
extern void idgen_shmem_install_hooks(void);

/*
 * Attach to the named structure, creating and initialising it with `init`
 * if no backend has done so since the postmaster started.  Works with and
 * without shared_preload_libraries (see shmem.cpp).  May ereport(ERROR).
 */
extern void *idgen_shmem_attach(const char *name, Size size, void (*init) (void *));
