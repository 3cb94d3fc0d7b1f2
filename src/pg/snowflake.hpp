/*
 * snowflake.hpp: snowflake_next() and friends (snowflake.cpp).
 */
#pragma once

/* From _PG_init: register the shared state and its clock floor hook. */
extern void idgen_snowflake_init(void);
