/*
 * decimal_id.hpp: decimal_id() and its state (decimal_id.cpp).
 */
#pragma once

/* From _PG_init: register the per-database counters' shared memory. */
extern void idgen_decimal_id_init(void);
