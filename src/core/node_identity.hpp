/*
 * node_identity.hpp: which worker id and launch id a node writes into its
 * ids, and where each comes from: the node's explicit setting, else (on a
 * Citus node) its group id, else the single-server default.
 */
#pragma once

#include <cstdint>

namespace idgen {
namespace node_identity {

/* Where a node's identity came from. */
enum class Source
{
	Setting,	/* id_gen.worker_id / id_gen.launch_id set explicitly */
	CitusGroup,	/* derived from pg_dist_local_group.groupid */
	Default,	/* a single server with nothing set (worker id 0) */
	Unset,		/* nothing to derive it from (launch id outside Citus) */
};

enum class Status
{
	Ok,
	OutOfRange,	/* derived from a group id the field cannot hold */
	Unset,		/* no identity: the generator must refuse */
};

struct Resolved
{
	int32_t		id;			/* valid when status == Ok */
	Source		source;
	Status		status;
};

/* The setting value that means "automatic" (both settings' boot default). */
constexpr int kAutomatic = -1;

/*
 * The worker id of a layout whose worker field holds 0..max_worker.  An
 * explicit setting (>= 0) wins; else the Citus group id, used as is (the
 * coordinator is group 0, workers count up from 1, as Citus numbers them),
 * refused rather than wrapped when it does not fit: two groups that wrapped
 * to the same bits would collide; else 0.  An explicit setting above
 * max_worker is OutOfRange too (jsid's 4 bits under a 10-bit setting).
 */
Resolved resolve_worker(int setting, bool on_citus, int64_t group, int32_t max_worker) noexcept;

/*
 * The decimal_id launch id (1..max_launch; 0 only when set explicitly, for
 * tests).  An explicit setting (>= 0) wins; else group g gives g + 1, so
 * every group, the coordinator's 0 included, gets a distinct launch id
 * above the test-only 0; groups past max_launch - 1 are OutOfRange; else
 * Unset: outside Citus a server has no identity it could derive one from.
 */
Resolved resolve_launch(int setting, bool on_citus, int64_t group, int32_t max_launch) noexcept;

/* "setting", "citus group", "default" or "unset". */
const char *source_name(Source source) noexcept;

}  // namespace node_identity
}  // namespace idgen
