/*
 * uuid_layout.hpp: the bit layouts of the time-based UUIDs (RFC 9562
 * versions 1, 6 and 7, and the version 13 COMB layout that predates RFC
 * 9562), their text form, and the time order that the timeuuid type sorts
 * by.
 *
 * A UUID is 16 bytes in network order, as PostgreSQL stores uuid.  Nothing
 * here allocates or throws; failures are reported by return value.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace idgen {

constexpr int kUuidLen = 16;

/* Length of the canonical text form 8-4-4-4-12, without the terminator. */
constexpr int kUuidTextLen = 36;

/* 100-ns ticks from the Gregorian epoch (1582-10-15) to 1970-01-01. */
constexpr uint64_t kGregorianToUnixTicks = 0x01B21DD213814000ULL;

/* Largest values of the time fields. */
constexpr uint64_t kMaxV7Ms = (1ULL << 48) - 1;
constexpr uint64_t kMaxTicks = (1ULL << 60) - 1;

/*
 * Parse the text forms PostgreSQL's uuid input accepts: 32 hexadecimal
 * digits of either case, optionally a hyphen after any group of four digits
 * (but not after the last), optionally the whole between braces.  Nothing
 * else, not even surrounding spaces.  Returns false on any other text.
 */
bool uuid_parse(const char *text, uint8_t out[kUuidLen]) noexcept;

/* Length-bounded variant for text that is not NUL-terminated (the fuzzer). */
bool uuid_parse_n(const char *text, size_t len, uint8_t out[kUuidLen]) noexcept;

/* Canonical lower-case 8-4-4-4-12 form; out receives 37 bytes (with NUL). */
void uuid_format(const uint8_t in[kUuidLen], char out[kUuidTextLen + 1]) noexcept;

/* The version nibble, and whether the variant bits are RFC 9562's 10xx. */
inline int
uuid_version(const uint8_t u[kUuidLen]) noexcept
{
	return u[6] >> 4;
}

inline bool
uuid_variant_is_rfc(const uint8_t u[kUuidLen]) noexcept
{
	return (u[8] & 0xC0) == 0x80;
}

bool uuid_is_nil(const uint8_t u[kUuidLen]) noexcept;
bool uuid_is_max(const uint8_t u[kUuidLen]) noexcept;

/* What a value is, as far as the timeuuid type is concerned. */
enum class TimeuuidKind
{
	nil,						/* 00000000-...: accepted, sorts first */
	v1,
	v6,
	v7,
	comb,						/* version 13: v6's layout, see below */
	max,						/* ffffffff-...: accepted, sorts last */
	bad_variant,				/* variant bits other than 10 */
	bad_version					/* RFC variant, but not version 1, 6, 7 or 13 */
};

/*
 * Version 13 ("COMB"): a design that predates RFC 9562 rewrites a version 1
 * UUID's timestamp most significant first (time_high 32 bits, time_mid 16,
 * then the version nibble set to 13, then the low 12 bits), leaving clock
 * sequence and node where v1 has them.  That is exactly version 6's layout
 * with another version number.  RFC 9562 leaves version 13 unassigned (it
 * defines 1 to 8; 9 to 15 are "reserved for future definition"), so no
 * standard UUID can carry it and reading it as v6 cannot misread one.
 */
constexpr int kCombVersion = 13;

TimeuuidKind timeuuid_classify(const uint8_t u[kUuidLen]) noexcept;

inline bool
timeuuid_kind_valid(TimeuuidKind k) noexcept
{
	return k != TimeuuidKind::bad_variant && k != TimeuuidKind::bad_version;
}

/*
 * The time order.  Every value maps to a key (cls, hi, lo), compared
 * lexicographically as unsigned integers:
 *
 *  - cls: 0 for nil, 1 for a v1/v6/v7/v13 value, 2 for anything else (a
 *    uuid that no timeuuid can be, met when a timeuuid is compared with a
 *    uuid column), 3 for max.
 *  - hi, for v1/v6/v7: time in half 100-ns ticks since 1582-10-15.  A v1 or
 *    v6 value at tick t has hi = 2t.  A v7 value at Unix millisecond m whose
 *    rand_a is r has hi = 2*T(m) - 1 + floor(r * 19999 / 4095), where T(m) is
 *    the tick m begins at: the millisecond's v7 values span [2T-1, 2T+19998],
 *    bracketing the v1/v6 values of that millisecond ([2T, 2T+19998]), and
 *    rand_a is read as the sub-millisecond fraction (RFC 9562 method 3).
 *    A v13 (COMB) value at tick t has hi = 2t, like v6.
 *  - lo, for v1/v6/v7/v13: a rank (v13 = 0, v1 = 1, v6 = 2, v7 = 3) in the
 *    top two bits, then the remaining 62 bits: clock_seq (14) and node (48)
 *    for v1, v6 and v13, rand_b for v7.  v13 took the free rank 0, so the
 *    order among the versions accepted before it did not change (indexes
 *    built then stay valid).
 *  - for cls 2, hi and lo are the bytes themselves.
 *
 * The map is injective (each field is recoverable from the key), so the
 * order is total over all 16-byte values and agrees with byte equality.  Among v7 values alone it
 * is the byte order; among v6 values alone too, and among v13 values alone.
 */
struct TimeuuidKey
{
	uint32_t	cls;
	uint64_t	hi;
	uint64_t	lo;
};

TimeuuidKey timeuuid_key(const uint8_t u[kUuidLen]) noexcept;

/* Big-endian 64-bit load, and host <-> big-endian conversion. */
inline uint64_t
to_be64(uint64_t v) noexcept
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap64(v);
#else
	return v;
#endif
}

inline uint64_t
load_be64(const uint8_t *p) noexcept
{
	uint64_t	v;

	memcpy(&v, p, sizeof(v));
	return to_be64(v);
}

/* The general comparison, by key. */
int timeuuid_compare_keys(const uint8_t a[kUuidLen], const uint8_t b[kUuidLen]) noexcept;

/*
 * <0, 0, >0 in the time order above.  Two v7, two v6 or two v13 values of
 * the RFC variant compare in byte order, which is what almost every comparison in
 * an index of timeuuid_next() values is; that path is inline and branch-light.
 */
inline int
timeuuid_compare(const uint8_t a[kUuidLen], const uint8_t b[kUuidLen]) noexcept
{
	if (((a[6] ^ b[6]) & 0xF0) == 0 &&
		((a[6] >> 4) == 7 || (a[6] >> 4) == 6 || (a[6] >> 4) == kCombVersion) &&
		(a[8] & 0xC0) == 0x80 && (b[8] & 0xC0) == 0x80)
	{
		uint64_t	ah = load_be64(a), bh = load_be64(b);

		if (ah == bh)
		{
			ah = load_be64(a + 8);
			bh = load_be64(b + 8);
		}
		return (ah > bh) - (ah < bh);
	}
	return timeuuid_compare_keys(a, b);
}

/*
 * A 64-bit summary that never contradicts the order: a < b implies
 * abbrev(a) <= abbrev(b).  It is the key's hi, 0 for nil, all ones for
 * cls 2 and 3.  Used as the abbreviated sort key.
 */
uint64_t timeuuid_abbrev(const uint8_t u[kUuidLen]) noexcept;

/* Fields. */
uint64_t uuid_v1_ticks(const uint8_t u[kUuidLen]) noexcept;
uint64_t uuid_v6_ticks(const uint8_t u[kUuidLen]) noexcept;
uint64_t uuid_v7_ms(const uint8_t u[kUuidLen]) noexcept;
unsigned uuid_v7_rand_a(const uint8_t u[kUuidLen]) noexcept;

/*
 * Microseconds since 1970-01-01 UTC (floor; negative before 1970) of a
 * v1, v6, v13 or v7 value.  v7 has millisecond precision: its rand_a is not
 * trusted as a clock, since generators may use it as a counter.  Returns
 * false for other values.
 */
bool timeuuid_unix_us(const uint8_t u[kUuidLen], int64_t *unix_us) noexcept;

/* Reorder a v1 value's timestamp into v6 layout and back; rest unchanged. */
void uuid_v1_to_v6(const uint8_t in[kUuidLen], uint8_t out[kUuidLen]) noexcept;
void uuid_v6_to_v1(const uint8_t in[kUuidLen], uint8_t out[kUuidLen]) noexcept;

/*
 * The same bytes with another version nibble: v13 (COMB) <-> v6 is exactly
 * that, since the two layouts differ only there.
 */
void uuid_set_version(const uint8_t in[kUuidLen], int version, uint8_t out[kUuidLen]) noexcept;

/*
 * The version 1 value carrying the same time, clock sequence and node as a
 * v1, v6 or v13 value (copied as it is for v1).  False for anything else.
 */
bool uuid_gregorian_to_v1(const uint8_t in[kUuidLen], uint8_t out[kUuidLen]) noexcept;

/*
 * SQL Server's NEWSEQUENTIALID() is a v1 UUID whose first three fields
 * (Data1, Data2, Data3 of a Windows GUID) appear byte-swapped in its text
 * and in the bytes a driver copies.  Swapping them back gives the v1 value.
 * The swap is its own inverse.
 */
void uuid_swap_guid_fields(const uint8_t in[kUuidLen], uint8_t out[kUuidLen]) noexcept;

/*
 * Build a v7 value: 48-bit Unix milliseconds, 12-bit rand_a, 62-bit rand_b
 * (higher bits of the arguments are ignored).
 */
void uuid_v7_build(uint8_t out[kUuidLen], uint64_t ms, unsigned rand_a, uint64_t rand_b) noexcept;

/* Sub-millisecond fraction in 1/4096 ms of a nanosecond count in [0, 1e6). */
inline unsigned
subms_fraction_from_ns(uint64_t ns_in_ms) noexcept
{
	return static_cast<unsigned>((ns_in_ms << 12) / 1000000);
}

/*
 * The state word of the monotonic v7 generator, as kept in one shared
 * 64-bit atomic:
 *
 *   bits 63..20  Unix milliseconds (44 bits: until the year 2527)
 *   bits 19..8   sub-millisecond fraction, becomes rand_a
 *   bits  7..0   counter, becomes the top 8 bits of rand_b
 *
 * Each id takes the larger of "now" (the clock's millisecond and fraction,
 * counter 0) and the previous word plus one.  So ids are strictly increasing
 * in the order the word was advanced, follow the clock to about 244 ns when
 * it moves forward, and keep counting from the last value when it steps
 * back.  256 ids fit in each 1/4096 ms (about 1 billion per second) before
 * the logical time runs ahead of the clock, and then only until the clock
 * catches up.
 */
constexpr int kWordMsShift = 20;
constexpr uint64_t kWordMaxMs = (1ULL << 44) - 1;

inline uint64_t
v7_word_from_clock(uint64_t unix_ns) noexcept
{
	uint64_t	ms = unix_ns / 1000000;

	return (ms << kWordMsShift) | (static_cast<uint64_t>(subms_fraction_from_ns(unix_ns % 1000000)) << 8);
}

inline uint64_t
v7_word_advance(uint64_t prev, uint64_t now) noexcept
{
	return now > prev ? now : prev + 1;
}

inline uint64_t
v7_word_ms(uint64_t word) noexcept
{
	return word >> kWordMsShift;
}

/* The v7 value for a state word; `random` supplies the low 54 bits of rand_b. */
void uuid_v7_from_word(uint8_t out[kUuidLen], uint64_t word, uint64_t random) noexcept;

/*
 * The smallest and largest v7 values of Unix millisecond `ms`.  In the time
 * order every v1, v6 or v7 value whose time falls in that millisecond lies
 * between them (inclusive), and nothing else does.
 */
void timeuuid_min_of_ms(uint8_t out[kUuidLen], uint64_t ms) noexcept;
void timeuuid_max_of_ms(uint8_t out[kUuidLen], uint64_t ms) noexcept;

}  // namespace idgen
