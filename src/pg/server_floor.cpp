/*
 * server_floor.cpp: server-wide counters kept in replication origins (see
 * server_floor.hpp for why).
 *
 * Locking: an origin's progress is read and written under core's
 * ReplicationOriginLock and the origin's own LWLock (inside
 * replorigin_get_progress / replorigin_advance).  Around a write we also
 * hold RowExclusiveLock on pg_replication_origin, as core's
 * pg_replication_origin_advance() does, and a share lock on the origin
 * object, so that it cannot be dropped (and its id given to a subscription)
 * between the name lookup and the write.  Concurrent writers need no more:
 * replorigin_advance keeps the maximum, in memory and at replay.
 */
#include "pg/server_floor.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_replication_origin.h"
#include "replication/origin.h"
#include "replication/slot.h"
#include "storage/lmgr.h"
}

/* The origin's id, or InvalidRepOriginId when origins are unusable or it is missing. */
static RepOriginId
counter_origin(const char *name)
{
	if (max_replication_slots == 0)
		return InvalidRepOriginId;
	return replorigin_by_name(name, true);
}

bool
idgen_server_counter_read(const char *name, uint64 *value)
{
	RepOriginId id = counter_origin(name);

	if (id == InvalidRepOriginId)
		return false;
	if (value != nullptr)
		*value = (uint64) replorigin_get_progress(id, false);
	return true;
}

XLogRecPtr
idgen_server_counter_raise(const char *name, uint64 value)
{
	RepOriginId id = counter_origin(name);
	XLogRecPtr	end;

	if (id == InvalidRepOriginId)
		return InvalidXLogRecPtr;
	LockRelationOid(ReplicationOriginRelationId, RowExclusiveLock);
	LockSharedObject(ReplicationOriginRelationId, id, 0, AccessShareLock);
	/* Dropped (and maybe recreated) while we waited: look it up again. */
	if (replorigin_by_name(name, true) != id)
	{
		UnlockSharedObject(ReplicationOriginRelationId, id, 0, AccessShareLock);
		UnlockRelationOid(ReplicationOriginRelationId, RowExclusiveLock);
		return idgen_server_counter_raise(name, value);
	}
	replorigin_advance(id, (XLogRecPtr) value, InvalidXLogRecPtr,
					   false /* never backwards */ , true /* WAL-log */ );
	end = XactLastRecEnd;
	UnlockSharedObject(ReplicationOriginRelationId, id, 0, AccessShareLock);
	UnlockRelationOid(ReplicationOriginRelationId, RowExclusiveLock);
	return end;
}
