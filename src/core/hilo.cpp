/*
 * hilo.cpp: Hi/Lo formulas and the backend-local block cache.
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

HiloStatus
hilo_count_block(int64_t v, int64_t increment, int64_t floor, bool first, HiloBlock *out) noexcept
{
	i128		lo;

	if (increment < 1)
		return HiloStatus::bad_size;
	if (floor < 1)
		floor = 1;
	if (v < floor)
		return HiloStatus::below_one;
	lo = first ? (i128) v : (i128) v - increment + 1;
	out->next = lo < floor ? floor : (int64_t) lo;
	out->last = v;
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

HiloNodeRange
hilo_node_range(int32_t node) noexcept
{
	if (node < 0 || node > kHiloMaxNode)
		return HiloNodeRange{1, INT64_MAX};
	int64_t		first = (int64_t) node << kHiloNodeBits;

	return HiloNodeRange{node == 0 ? 1 : first, first + (((int64_t) 1 << kHiloNodeBits) - 1)};
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
HiloCache::drop_tentative() noexcept
{
	for (HiloEntry &e : pool_)
	{
		if (e.relid != 0 && e.tentative)
		{
			e.block.next = 1;
			e.block.last = 0;
		}
	}
}

void
HiloCache::end_transaction(bool aborted) noexcept
{
	if (aborted)
		drop_tentative();
	for (HiloEntry &e : pool_)
		e.tentative = false;
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
