/*
 * hilo.cpp: Hi/Lo formulas, rebase and the backend-local block cache.
 *
 * All arithmetic is done in 128 bits and checked against the int64 range,
 * so that no formula wraps silently whatever the sequence holds.
 */
#include "core/hilo.hpp"

#include <cstring>

#include "core/cpp_only.hpp"

namespace idgen {

typedef __int128 i128;

static const i128 kMaxId = INT64_MAX;

const char *const hilo_strategy_list = "classic, legacy, pooled_lo, pooled, pooled_hibernate3";

bool
hilo_parse_strategy(const char *text, HiloStrategy *out) noexcept
{
	static const struct
	{
		const char *name;
		HiloStrategy s;
	}			names[] = {
		{"classic", HiloStrategy::classic},
		{"legacy", HiloStrategy::legacy},
		{"pooled_lo", HiloStrategy::pooled_lo},
		{"pooled", HiloStrategy::pooled},
		{"pooled_hibernate3", HiloStrategy::pooled_hibernate3},
	};

	if (text == nullptr)
		return false;
	for (const auto &n : names)
	{
		if (strcmp(text, n.name) == 0)
		{
			*out = n.s;
			return true;
		}
	}
	return false;
}

const char *
hilo_strategy_name(HiloStrategy s) noexcept
{
	switch (s)
	{
		case HiloStrategy::classic:
			return "classic";
		case HiloStrategy::legacy:
			return "legacy";
		case HiloStrategy::pooled_lo:
			return "pooled_lo";
		case HiloStrategy::pooled:
			return "pooled";
		case HiloStrategy::pooled_hibernate3:
			return "pooled_hibernate3";
	}
	return "?";
}

/* First and last id of v's block, before cutting at 1, in 128 bits. */
static void
block_bounds(HiloStrategy s, int64_t v, int64_t size, i128 *first, i128 *last) noexcept
{
	*first = 0;
	*last = 0;
	switch (s)
	{
		case HiloStrategy::classic:
			*first = (i128) v * size;
			*last = *first + size - 1;
			break;
		case HiloStrategy::legacy:
			*first = (i128) v * ((i128) size + 1);
			*last = *first + size;
			break;
		case HiloStrategy::pooled_lo:
			*first = v;
			*last = (i128) v + size - 1;
			break;
		case HiloStrategy::pooled:
			*first = (i128) v - size + 1;
			*last = v;
			break;
		case HiloStrategy::pooled_hibernate3:
			*first = (i128) v - size;
			*last = (i128) v - 1;
			break;
	}
}

HiloStatus
hilo_block(HiloStrategy s, int64_t v, int64_t size, HiloBlock *out) noexcept
{
	i128		first;
	i128		last;

	if (size < 1)
		return HiloStatus::bad_size;
	block_bounds(s, v, size, &first, &last);
	if (last > kMaxId)
		return HiloStatus::overflow;
	if (last < 1)
		return HiloStatus::below_one;
	if (first < 1)
		first = 1;
	out->next = (int64_t) first;
	out->last = (int64_t) last;
	return HiloStatus::ok;
}

int64_t
hilo_reserved_to(HiloStrategy s, int64_t v, int64_t size) noexcept
{
	i128		first;
	i128		last;

	block_bounds(s, v, size, &first, &last);
	return last > kMaxId ? INT64_MAX : (int64_t) last;
}

int64_t
hilo_adapt_range(int64_t prev_size, int64_t elapsed_ms) noexcept
{
	int64_t		size = prev_size;
	int64_t		factor = 1;

	if (size < kHiloRangeMin)
		return kHiloRangeMin;	/* a new client, or one that came back */
	if (size > kHiloRangeMax)
		size = kHiloRangeMax;
	if (elapsed_ms < 0)
		elapsed_ms = 0;			/* a clock stepped back: as fast as can be */
	if (elapsed_ms < kHiloRangeTargetMs)
	{
		/* The power of two that would have made the range last the target. */
		while (factor < 16 && elapsed_ms * factor < kHiloRangeTargetMs)
			factor *= 2;
		size = size > kHiloRangeMax / factor ? kHiloRangeMax : size * factor;
	}
	else if (elapsed_ms > 2 * kHiloRangeTargetMs)
	{
		while (factor < 16 && elapsed_ms >= 2 * factor * kHiloRangeTargetMs)
			factor *= 2;
		size /= factor;
	}
	return size < kHiloRangeMin ? kHiloRangeMin : size;
}

static bool
tag_char(char c) noexcept
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

bool
hilo_valid_node_tag(const char *tag) noexcept
{
	size_t		i = 0;

	if (tag == nullptr)
		return false;
	for (; tag[i] != '\0'; i++)
		if (i >= kHiloNodeTagMax || !tag_char(tag[i]))
			return false;
	return i > 0;
}

bool
hilo_parse_text_id(const char *text, size_t len, size_t *table_len, int64_t *n,
				   size_t *tag_at) noexcept
{
	size_t		slash = len;
	size_t		i;
	uint64_t	value = 0;

	for (i = len; i > 0; i--)
		if (text[i - 1] == '/')
		{
			slash = i - 1;
			break;
		}
	if (slash == len || slash == 0)
		return false;
	/* The number: digits, no leading zero, at most 2^63-1. */
	i = slash + 1;
	if (i >= len || text[i] < '1' || text[i] > '9')
		return false;
	for (; i < len && text[i] >= '0' && text[i] <= '9'; i++)
	{
		value = value * 10 + (uint64_t) (text[i] - '0');
		if (value > (uint64_t) INT64_MAX)
			return false;
	}
	if (i >= len || text[i] != '-')
		return false;
	/* The tag: the rest, valid by hilo_valid_node_tag. */
	if (len - (i + 1) < 1 || len - (i + 1) > kHiloNodeTagMax)
		return false;
	for (size_t j = i + 1; j < len; j++)
		if (!tag_char(text[j]))
			return false;
	*table_len = slash;
	*n = (int64_t) value;
	*tag_at = i + 1;
	return true;
}

/*
 * The smallest value, not below to_next_v, whose block under `to` and
 * new_size starts at or above free_from (>= 1), and whose block fits.
 */
static HiloStatus
value_above(HiloStrategy to, i128 free_from, int64_t to_next_v, int64_t new_size,
			int64_t *new_next_v) noexcept
{
	i128		h = 0;

	switch (to)
	{
		case HiloStrategy::classic:
			h = (free_from + new_size - 1) / new_size;
			break;
		case HiloStrategy::legacy:
			h = (free_from + new_size) / ((i128) new_size + 1);
			break;
		case HiloStrategy::pooled_lo:
			h = free_from;
			break;
		case HiloStrategy::pooled:
			h = free_from + new_size - 1;
			break;
		case HiloStrategy::pooled_hibernate3:
			h = free_from + new_size;
			break;
	}
	if (h < to_next_v)
		h = to_next_v;
	if (h > kMaxId)
		return HiloStatus::overflow;

	/* The first block drawn after the move must itself fit. */
	i128		first;
	i128		last;

	block_bounds(to, (int64_t) h, new_size, &first, &last);
	if (last > kMaxId)
		return HiloStatus::overflow;
	*new_next_v = (int64_t) h;
	return HiloStatus::ok;
}

HiloStatus
hilo_move(HiloStrategy from, int64_t next_v, int64_t old_size,
		  HiloStrategy to, int64_t to_next_v, int64_t new_size, int64_t *new_next_v) noexcept
{
	i128		free_from = 0;	/* no id >= this was reserved by a past draw */

	if (old_size < 1 || new_size < 1)
		return HiloStatus::bad_size;

	/*
	 * Blocks grow with v, so every past draw (values below next_v) reserved
	 * only ids below the first id of next_v's block under the old size.
	 */
	switch (from)
	{
		case HiloStrategy::classic:
			free_from = (i128) next_v * old_size;
			break;
		case HiloStrategy::legacy:
			free_from = (i128) next_v * ((i128) old_size + 1);
			break;
		case HiloStrategy::pooled_lo:
			free_from = next_v;
			break;
		case HiloStrategy::pooled:
			free_from = (i128) next_v - old_size + 1;
			break;
		case HiloStrategy::pooled_hibernate3:
			free_from = (i128) next_v - old_size;
			break;
	}
	if (free_from < 1)
		free_from = 1;
	return value_above(to, free_from, to_next_v, new_size, new_next_v);
}

HiloStatus
hilo_floor(HiloStrategy s, int64_t size, int64_t taken_to, int64_t next_v,
		   int64_t *new_next_v) noexcept
{
	if (size < 1)
		return HiloStatus::bad_size;

	/*
	 * Ids below 1 are never handed out, so a floor below 1 asks for
	 * nothing; above it, cutting blocks at 1 changes no block's first id
	 * relative to the floor, and the formulas of hilo_move are exact.
	 */
	if (taken_to < 1)
	{
		i128		first;
		i128		last;

		block_bounds(s, next_v, size, &first, &last);
		if (last > kMaxId)
			return HiloStatus::overflow;
		*new_next_v = next_v;
		return HiloStatus::ok;
	}
	return value_above(s, (i128) taken_to + 1, next_v, size, new_next_v);
}

HiloNodeRange
hilo_node_range(int32_t node) noexcept
{
	if (node < 0 || node > kHiloMaxNode)
		return HiloNodeRange{1, INT64_MAX};
	int64_t		first = (int64_t) node << kHiloNodeBits;

	return HiloNodeRange{node == 0 ? 1 : first, first + (((int64_t) 1 << kHiloNodeBits) - 1)};
}

HiloStatus
hilo_rebase(HiloStrategy s, int64_t next_v, int64_t old_size,
			int64_t new_size, int64_t *new_next_v) noexcept
{
	return hilo_move(s, next_v, old_size, s, next_v, new_size, new_next_v);
}

HiloCache::HiloCache()
	: slots_(16, nullptr), count_(0)
{
}

/* Puts e into the first free slot of its probe run (capacity ensured). */
void
HiloCache::place(HiloEntry *e) noexcept
{
	size_t		mask = slots_.size() - 1;
	size_t		i = hash(e->relid) & mask;

	while (slots_[i] != nullptr)
		i = (i + 1) & mask;
	slots_[i] = e;
}

HiloEntry *
HiloCache::insert(uint32_t relid)
{
	HiloEntry  *e = find(relid);

	if (e != nullptr)
		return e;

	/* Everything that can throw comes before the table changes. */
	if ((count_ + 1) * 2 > slots_.size())
	{
		std::vector<HiloEntry *> bigger(slots_.size() * 2, nullptr);

		bigger.swap(slots_);
		for (HiloEntry *old : bigger)
			if (old != nullptr)
				place(old);
	}
	if (free_.empty())
	{
		pool_.emplace_back();
		/* erase() pushes without allocating: room for every entry. */
		free_.reserve(pool_.size());
		e = &pool_.back();
	}
	else
	{
		e = free_.back();
		free_.pop_back();
	}
	memset(static_cast<void *>(e), 0, sizeof(*e));
	e->relid = relid;
	e->stale = true;
	e->block.next = 1;
	e->block.last = 0;
	place(e);
	count_++;
	return e;
}

void
HiloCache::erase(uint32_t relid) noexcept
{
	size_t		mask = slots_.size() - 1;
	size_t		hole;
	HiloEntry  *e = nullptr;

	if (relid == 0)
		return;
	for (hole = hash(relid) & mask; slots_[hole] != nullptr; hole = (hole + 1) & mask)
	{
		if (slots_[hole]->relid == relid)
		{
			e = slots_[hole];
			break;
		}
	}
	if (e == nullptr)
		return;

	/* Backward-shift: move later members of the probe run into the hole. */
	for (size_t j = (hole + 1) & mask; slots_[j] != nullptr; j = (j + 1) & mask)
	{
		size_t		home = hash(slots_[j]->relid) & mask;

		/* j may move to hole unless its home lies cyclically in (hole, j]. */
		bool		stays = (hole <= j) ? (home > hole && home <= j)
			: (home > hole || home <= j);

		if (!stays)
		{
			slots_[hole] = slots_[j];
			hole = j;
		}
	}
	slots_[hole] = nullptr;
	e->relid = 0;
	free_.push_back(e);			/* capacity reserved by insert() */
	count_--;
}

void
HiloCache::mark_stale(uint32_t oid) noexcept
{
	for (HiloEntry &e : pool_)
	{
		if (e.relid != 0 && (oid == 0 || e.relid == oid || e.seqid == oid))
		{
			e.stale = true;
			e.checked_role = 0;
		}
	}
}

void
HiloCache::clear() noexcept
{
	for (HiloEntry *&slot : slots_)
	{
		if (slot != nullptr)
		{
			slot->relid = 0;
			free_.push_back(slot);
			slot = nullptr;
		}
	}
	count_ = 0;
}

}  // namespace idgen
