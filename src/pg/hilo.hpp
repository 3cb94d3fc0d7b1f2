/*
 * hilo.hpp: Hi/Lo keys (hilo.cpp).
 */
#pragma once

/* From _PG_init: the cache invalidation callbacks of the per-backend key cache. */
extern void idgen_hilo_init(void);
