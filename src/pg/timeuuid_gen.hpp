/*
 * timeuuid_gen.hpp: the timeuuid generators (timeuuid_gen.cpp).
 */
#pragma once

/* From _PG_init: register the shared stream and its clock floor hook. */
extern void idgen_timeuuid_init(void);
