/*
 * shmem.hpp: shared memory for the server-wide generators.
 */
#pragma once

#include "pg/pg.hpp"

/* True when id_gen is in shared_preload_libraries. */
extern bool idgen_preloaded;

/* A structure in shared memory: its name, size and initialiser. */
typedef struct IdgenShmemStruct
{
	const char *name;
	Size		size;
	void		(*init) (void *ptr);
} IdgenShmemStruct;

/*
 * The layout revision: part of the layout number every library checks
 * against the one that set up the server's shared memory (see shmem.cpp).
 * Sizes and names of the structures are counted in already; raise this when
 * the meaning of a structure changes and its size does not.
 */
#define IDGEN_SHMEM_REVISION 1

/*
 * From _PG_init only: when preloaded, the structure's space is requested and
 * the structure is created at server start (shmem_startup_hook), so nothing
 * that later uses up shared memory (a big lock table) can deny it.
 */
extern void idgen_shmem_register(const IdgenShmemStruct *s);

/* From _PG_init only: install the shmem request and startup hooks when preloaded. */
extern void idgen_shmem_install_hooks(void);

/* From _PG_init only: when not preloaded, claim the layout for this build (shmem.cpp). */
extern void idgen_shmem_claim_layout(void);

/*
 * Attach to the structure, creating and initialising it if no process has
 * done so since the postmaster started.  Works with and without
 * shared_preload_libraries (see shmem.cpp).  May ereport(ERROR): 55000 when
 * another build of the library, with another layout, set up shared memory
 * (the library was replaced on a running server); 53200 when the spare
 * shared memory is used up (only possible when not preloaded).
 */
extern void *idgen_shmem_attach(const IdgenShmemStruct *s);
