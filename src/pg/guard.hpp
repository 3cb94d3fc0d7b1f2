/*
 * guard.hpp: the single boundary between C++ and PostgreSQL error handling.
 *
 * PostgreSQL reports errors with ereport(ERROR), which longjmps to the
 * nearest sigsetjmp; C++ reports them with exceptions, which unwind.
 * Mixing them wrongly either lets an exception escape into C code (undefined
 * behaviour, usually a crash) or longjmps over a C++ frame whose destructors
 * then never run (leaks, corrupted exception-handling state).
 *
 * The rules, used everywhere in src/pg/:
 *
 *  1. Every call into C++ code that may throw (the src/core/ algorithms,
 *     anything touching std:: containers) goes through idgen_guard().
 *  2. The callable passed to idgen_guard() calls no PostgreSQL function
 *     that can ereport(ERROR), palloc, take an LWLock, or CHECK_FOR_INTERRUPTS:
 *     it is pure C++.  PostgreSQL work happens before or after it, in frames
 *     that own no object with a non-trivial destructor.
 *  3. idgen_guard() copies the exception's text into a stack buffer inside the
 *     catch block (no allocation there), leaves the try/catch scope, and only
 *     then raises the ERROR, with a real SQLSTATE: 53200 for std::bad_alloc,
 *     XX000 for anything else (an exception is a bug, not an expected failure:
 *     core code reports expected failures by return value).
 */
#pragma once

#include "pg/pg.hpp"

#include <cstdio>
#include <exception>
#include <new>

template <typename F>
static inline auto
idgen_guard(F &&fn) -> decltype(fn())
{
	char		message[256];
	int			sqlstate;

	{
		try
		{
			return fn();
		}
		catch (const std::bad_alloc &)
		{
			sqlstate = ERRCODE_OUT_OF_MEMORY;
			snprintf(message, sizeof(message), "out of memory");
		}
		catch (const std::exception &e)
		{
			sqlstate = ERRCODE_INTERNAL_ERROR;
			snprintf(message, sizeof(message), "%s", e.what());
		}
		catch (...)
		{
			sqlstate = ERRCODE_INTERNAL_ERROR;
			snprintf(message, sizeof(message), "unknown C++ exception");
		}
	}
	/* The exception object is destroyed; nothing C++ is live past here. */
	ereport(ERROR,
			(errcode(sqlstate),
			 errmsg("id_gen internal error: %s", message)));
	pg_unreachable();
}
