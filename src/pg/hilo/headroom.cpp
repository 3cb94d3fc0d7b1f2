/*
 * hilo/headroom.cpp: the WARNING a Hi/Lo draw gives when its key nears the
 * end of its ids, at the point where the view id_gen.headroom says warning
 * (id_gen.headroom_warning_percent) and again where it says critical
 * (id_gen.headroom_critical_percent).  A key's ids end at the first of: its
 * node's range (own sequences on a node with a range), its sequence's
 * MAXVALUE (through the key's formula), bigint.  The view
 * (id_gen.headroom_hilo()) measures the same space, from the same core rule
 * (hilo_reserved_to).
 */
#include "pg/pg.hpp"
#include "pg/guc.hpp"
#include "pg/hilo/hilo.hpp"

extern "C" {
#include "access/htup_details.h"
#include "catalog/pg_sequence.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
}

/* A backend warns once per key and level, and again after a minute. */
#define HILO_WARN_AGAIN_MS 60000

static Oid	warned_relid = InvalidOid;
static int	warned_level = 0;
static TimestampTz warned_at = 0;

void
hilo_warn_near_end(const HiloKey *key, idgen::HiloNodeRange range, const idgen::HiloBlock *block)
{
	Oid			relid = key->relid;
	int64		last = PG_INT64_MAX;
	HeapTuple	tup;
	double		used;
	int			level;
	TimestampTz now;

	if ((tup = SearchSysCache1(SEQRELID, ObjectIdGetDatum(key->seqid))) != nullptr)
	{
		int64		seqmax = ((Form_pg_sequence) GETSTRUCT(tup))->seqmax;

		ReleaseSysCache(tup);
		last = idgen::hilo_reserved_to(key->strategy, seqmax, hilo_key_size(key));
	}
	last = Min(last, range.last);
	if (last < range.first)
		return;
	used = ((double) block->last - (double) range.first + 1) / ((double) last - (double) range.first + 1);
	level = used * 100.0 >= idgen_headroom_critical_percent ? 2 :
		used * 100.0 >= idgen_headroom_warning_percent ? 1 : 0;
	if (level == 0)
		return;
	now = GetCurrentTimestamp();
	if (relid == warned_relid && level <= warned_level &&
		!TimestampDifferenceExceeds(warned_at, now, HILO_WARN_AGAIN_MS))
		return;
	warned_relid = relid;
	warned_level = level;
	warned_at = now;
	ereport(WARNING,
			(errcode(ERRCODE_WARNING),
			 errmsg("Hi/Lo key of table %s has used %.1f%% of its ids", hilo_relname(relid), used * 100.0),
			 errdetail("Its ids end at " INT64_FORMAT "; the block just drawn ends at " INT64_FORMAT ".",
					   last, block->last),
			 errhint("id_gen.headroom shows every key's headroom; id_gen.headroom_warning_percent "
					 "and id_gen.headroom_critical_percent set the points of this warning.")));
}
