/*
 * extension_owner.cpp: see extension_owner.hpp.
 */
#include "pg/extension_owner.hpp"

extern "C" {
#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_extension.h"
#include "commands/extension.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
}

/* The owner and schema of extension id_gen (ERROR if not installed). */
static void
idgen_extension_row(Oid *owner, Oid *schema)
{
	Oid			extoid = get_extension_oid("id_gen", false);
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	*owner = InvalidOid;
	*schema = InvalidOid;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		*owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
		*schema = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (!OidIsValid(*owner))
		elog(ERROR, "extension \"id_gen\" has no owner");
}

Oid
idgen_extension_owner(void)
{
	Oid			owner;
	Oid			schema;

	idgen_extension_row(&owner, &schema);
	return owner;
}

Oid
idgen_extension_schema(void)
{
	Oid			owner;
	Oid			schema;

	idgen_extension_row(&owner, &schema);
	return schema;
}

void
idgen_become_extension_owner(IdgenSavedUser *saved, bool restricted)
{
	Oid			owner = idgen_extension_owner();

	GetUserIdAndSecContext(&saved->userid, &saved->sec_context);
	SetUserIdAndSecContext(owner, saved->sec_context | SECURITY_LOCAL_USERID_CHANGE |
						   (restricted ? SECURITY_RESTRICTED_OPERATION : 0));
}

void
idgen_restore_user(const IdgenSavedUser *saved)
{
	SetUserIdAndSecContext(saved->userid, saved->sec_context);
}
