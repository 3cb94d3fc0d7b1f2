/*
 * pg.hpp: PostgreSQL headers for the glue layer, and the macro that
 * declares an SQL-callable function with C linkage.
 *
 * Only files under src/pg/ include this; src/core/ never does.
 */
#pragma once

extern "C" {
#include "postgres.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/builtins.h"
}

/*
 * IDGEN_FUNCTION(name) declares and starts the definition of the
 * V1-convention function `name`, whose C symbol equals its SQL name.
 */
#define IDGEN_FUNCTION(name) \
	extern "C" { PG_FUNCTION_INFO_V1(name); } \
	extern "C" Datum name(PG_FUNCTION_ARGS)
