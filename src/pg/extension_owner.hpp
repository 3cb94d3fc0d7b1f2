/*
 * extension_owner.hpp: running as the role that owns extension id_gen, the
 * owner of its internal tables and sequences, like a SECURITY DEFINER
 * function does.  The one place that looks the owner up and switches to it.
 */
#pragma once

#include "pg/pg.hpp"

/* The role that owns extension id_gen in this database (ERROR if none). */
extern Oid	idgen_extension_owner(void);

/* The schema extension id_gen was installed in (its functions' schema). */
extern Oid	idgen_extension_schema(void);

/* The user and security context to go back to. */
struct IdgenSavedUser
{
	Oid			userid;
	int			sec_context;
};

/*
 * Switches to the extension owner until idgen_restore_user.  restricted
 * also forbids what SECURITY_RESTRICTED_OPERATION forbids (temporary
 * objects, session state), for code that runs SQL.  An ERROR in between
 * needs no cleanup: transaction abort restores the user.
 */
extern void idgen_become_extension_owner(IdgenSavedUser *saved, bool restricted);
extern void idgen_restore_user(const IdgenSavedUser *saved);
