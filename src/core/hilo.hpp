/*
 * hilo.hpp: the Hi/Lo algorithm without PostgreSQL: the id formulas of the
 * supported strategies (with overflow checks) and the backend-local cache
 * of blocks.
 *
 * Vocabulary: a key draws values v from a sequence; each v reserves a block
 * of ids for one backend.  "size" is the block parameter of the strategy:
 * max_lo for classic and legacy, the sequence's INCREMENT for the pooled
 * strategies.
 *
 *   classic    ids v*size .. v*size + size-1          (lo = 0 .. max_lo-1)
 *   legacy     ids v*(size+1) .. v*(size+1) + size    (NHibernate, old Hibernate)
 *   pooled_lo  ids v .. v + size-1                    (EF Core UseHiLo, Hibernate pooled-lo)
 *   pooled     ids v-size+1 .. v                      (Hibernate pooled, 4.x on)
 *   pooled_hibernate3  ids v-size .. v-1          (Hibernate 3.x pooled)
 *
 * Ids below 1 are never handed out: the part of a block below 1 is cut off.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace idgen {

enum class HiloStrategy : uint8_t
{
	classic = 0,
	legacy = 1,
	pooled_lo = 2,
	pooled = 3,
	pooled_hibernate3 = 4
};

enum class HiloStatus : uint8_t
{
	ok,
	bad_size,		/* size < 1 */
	overflow,		/* some id of the block would exceed INT64_MAX */
	below_one		/* the whole block lies below 1: draw the next value */
};

/* Ids still to hand out from a block: next .. last; empty when next > last. */
struct HiloBlock
{
	int64_t		next;
	int64_t		last;
};

/*
 * Takes the next id of a block; false when the block is used up.  The last
 * id empties the block instead of incrementing past it, so a block ending
 * at INT64_MAX never wraps.
 */
static inline bool
hilo_take(HiloBlock *b, int64_t *id) noexcept
{
	if (b->next > b->last)
		return false;
	*id = b->next;
	if (b->next == b->last)
	{
		b->next = 1;
		b->last = 0;
	}
	else
		b->next++;
	return true;
}

/* Parses a strategy name (hilo_strategy_list); false for anything else. */
bool		hilo_parse_strategy(const char *text, HiloStrategy *out) noexcept;
const char *hilo_strategy_name(HiloStrategy s) noexcept;

/*
 * Whether a strategy's block size is its sequence's INCREMENT (the pooled
 * ones: the ORM draws one value per block and the increment spaces them)
 * rather than the key's max_lo.
 */
constexpr bool
hilo_size_is_increment(HiloStrategy s) noexcept
{
	return s == HiloStrategy::pooled || s == HiloStrategy::pooled_lo ||
		s == HiloStrategy::pooled_hibernate3;
}

/* The block size of a key: max_lo, or the sequence's INCREMENT (above). */
constexpr int64_t
hilo_block_size(HiloStrategy s, int32_t max_lo, int64_t increment) noexcept
{
	return hilo_size_is_increment(s) ? increment : max_lo;
}

/*
 * The ids one whole block holds (before any cut at 1): max_lo + 1 for
 * legacy, the size for the others.
 */
constexpr int64_t
hilo_ids_per_block(HiloStrategy s, int64_t size) noexcept
{
	return s == HiloStrategy::legacy ? size + 1 : size;
}

/*
 * Whether consecutive values of a sequence with this INCREMENT give blocks
 * that follow each other with no id in between (v+increment's block starts
 * right after v's), so that a run of values is one range of ids: increment
 * 1 for classic and legacy, increment = size for the pooled strategies.
 */
constexpr bool
hilo_values_adjacent(HiloStrategy s, int64_t size, int64_t increment) noexcept
{
	return hilo_size_is_increment(s) ? increment == size : increment == 1;
}

/*
 * Readable ids, RavenDB's form "<table>/<n>-<node tag>" (orders/54-A).  A
 * node tag is 1 .. kHiloNodeTagMax letters, digits or underscores, so that
 * the last '/' of an id always ends the table part, whatever the table is
 * called, and the '-' after the digits always starts the tag.
 */
constexpr size_t kHiloNodeTagMax = 16;

bool		hilo_valid_node_tag(const char *tag) noexcept;

/*
 * Splits a readable id of len bytes: the table part is text[0 .. *table_len),
 * the tag text[*tag_at .. len).  False unless it has the form exactly: a
 * non-empty table part, '/', a number 1 .. 2^63-1 in plain decimal (no sign,
 * no leading zero), '-', a valid node tag.
 */
bool		hilo_parse_text_id(const char *text, size_t len, size_t *table_len, int64_t *n,
							   size_t *tag_at) noexcept;

/*
 * Where a key stands once its sequence has given v: the last id of v's
 * block, capped at INT64_MAX.  Every later block starts above it (the
 * id_gen.hilo_keys view's reserved_to).
 */
int64_t		hilo_reserved_to(HiloStrategy s, int64_t v, int64_t size) noexcept;

/* The comma-separated list of strategy names, for hints. */
extern const char *const hilo_strategy_list;

/*
 * The block of ids sequence value v reserves.  On any status but ok, *out
 * is left untouched.
 */
HiloStatus	hilo_block(HiloStrategy s, int64_t v, int64_t size, HiloBlock *out) noexcept;

/*
 * A sequence that counts ids (an own key, and the pooled strategy): value v
 * gives v - increment + 1 .. v, so that no id handed out lies above the
 * sequence's last value; none below floor (max(MINVALUE, 1)); a value the
 * sequence returned before it was ever called (first: START, RESTART WITH,
 * setval(s, n, false)) gives the one id v, "the next id is n".  below_one
 * when v lies below floor; bad_size for an increment below 1.
 */
HiloStatus	hilo_count_block(int64_t v, int64_t increment, int64_t floor, bool first,
							 HiloBlock *out) noexcept;

/*
 * Node ranges.  Where there are many nodes (a Citus cluster, or primaries
 * that write into one key space with id_gen.hilo_node_ranges on) each
 * node's keys draw from the node's own slice of the id space, so that two
 * nodes never hand out one id: node n of 0..1023 (its worker id, as
 * snowflake_next writes it) owns n * 2^43 .. (n+1) * 2^43 - 1, node 0 from
 * 1.  Every range lies below 2^53, so ids stay exact in JavaScript; each
 * node has 8.8e12 ids per key.  An id's node is id >> 43; ids at or above
 * 2^53 (and below 1) belong to no node.  A single server uses no range:
 * its keys draw from the whole space, from 1.
 */
constexpr int		kHiloNodeBits = 43;
constexpr int32_t	kHiloMaxNode = 1023;

struct HiloNodeRange
{
	int64_t		first;
	int64_t		last;
};

/* Node n's range; n outside 0..kHiloMaxNode gives the whole space. */
HiloNodeRange hilo_node_range(int32_t node) noexcept;

/* The node whose range holds id; -1 for an id in no node's range. */
constexpr int32_t
hilo_node_of(int64_t id) noexcept
{
	return id < 1 || (id >> kHiloNodeBits) > kHiloMaxNode ? -1 : (int32_t) (id >> kHiloNodeBits);
}


/*
 * One cached key of a backend.  Plain data: the glue reads and writes the
 * fields directly on the fast path.
 */
struct HiloEntry
{
	uint32_t	relid;			/* table oid; 0 marks a free slot */
	uint32_t	seqid;			/* oid of the sequence the key draws from */
	uint32_t	checked_role;	/* role that passed the INSERT check; 0: none */
	uint32_t	filenode;		/* the sequence's relfilenode the block came from */
	bool		stale;			/* an invalidation arrived: check before use */
	bool		tentative;		/* drawn from a relfilenode this transaction made */
	HiloStrategy strategy;		/* ORM forms: as the call states it */
	int32_t		max_lo;			/* ORM forms: as the call states it (0: none) */
	HiloBlock	block;			/* empty (next > last) until the first draw */
	int64_t		draws;			/* blocks drawn by this backend */
};

/*
 * The backend-local cache of keys: a small open-addressing hash table
 * (linear probing, backward-shift deletion, capacity a power of two kept at
 * most half full) of pointers to entries that live in a pool.  An entry's
 * address is stable while it is cached: inserting or erasing other keys
 * never moves it, so the glue may keep a pointer across calls that run
 * PostgreSQL code; only erase(relid) ends relid's entry (its slot is
 * reused by a later insert).  find() and the marking functions never
 * allocate and never throw; insert() may throw std::bad_alloc.
 */
class HiloCache
{
public:
	HiloCache();

	HiloEntry  *find(uint32_t relid) const noexcept
	{
		size_t		mask = slots_.size() - 1;

		if (relid == 0)
			return nullptr;		/* 0 marks free entries: never a key */

		for (size_t i = hash(relid) & mask;; i = (i + 1) & mask)
		{
			if (slots_[i] == nullptr)
				return nullptr;
			if (slots_[i]->relid == relid)
				return slots_[i];
		}
	}

	/* The entry for relid, created empty (stale, no block) if absent. */
	HiloEntry  *insert(uint32_t relid);

	void		erase(uint32_t relid) noexcept;

	/*
	 * An invalidation for relation oid: marks stale the entry of that table
	 * and every entry drawing from that sequence; oid 0 marks all.  Blocks
	 * are kept here: the glue drops a block whose sequence got a new
	 * relfilenode, as nextval() drops its cached values.
	 */
	void		mark_stale(uint32_t oid) noexcept;

	/* Empties every block drawn from a relfilenode of this transaction (an abort). */
	void		drop_tentative() noexcept;
	/* The end of a transaction: an abort drops tentative blocks; either way none stays so. */
	void		end_transaction(bool aborted) noexcept;

	void		clear() noexcept;
	size_t		size() const noexcept { return count_; }

private:
	static size_t hash(uint32_t relid) noexcept
	{
		return static_cast<size_t>(relid * UINT32_C(2654435761));
	}
	void		place(HiloEntry *e) noexcept;

	std::vector<HiloEntry *> slots_;	/* nullptr: free slot */
	std::deque<HiloEntry> pool_;		/* every entry ever made; never shrinks */
	std::vector<HiloEntry *> free_;		/* entries of pool_ not in use */
	size_t		count_;
};

}  // namespace idgen
