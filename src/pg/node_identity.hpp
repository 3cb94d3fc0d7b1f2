/*
 * node_identity.hpp: this node's worker id and launch id, from the explicit
 * settings or, when they are left automatic, from its Citus group.
 */
#pragma once

#include "pg/pg.hpp"
#include "core/node_identity.hpp"

/* Registers the invalidation callbacks that keep the cached group current. */
extern void idgen_node_identity_init(void);

/* The worker id for a layout whose field holds 0..max_worker (no ERROR). */
extern idgen::node_identity::Resolved idgen_node_worker(int32 max_worker);

/* The decimal_id launch id (no ERROR). */
extern idgen::node_identity::Resolved idgen_node_launch(void);

/*
 * This database's Citus group id: true and *group when the citus extension
 * is installed here (pg_catalog.pg_dist_local_group exists), else false.
 */
extern bool idgen_citus_group(int64 *group);
