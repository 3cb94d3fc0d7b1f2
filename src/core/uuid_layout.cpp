/*
 * uuid_layout.cpp: see uuid_layout.hpp.
 */
#include "core/uuid_layout.hpp"

#include <cstring>

#include "core/cpp_only.hpp"

namespace idgen {

/* Value of a hexadecimal digit, or -1 (locale-independent, unlike isxdigit). */
static inline int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * One grammar for both entry points: `end` is the end of the text, and a NUL
 * byte before it ends the text too (so the NUL-terminated form agrees with
 * what PostgreSQL's uuid_in sees).
 */
static bool
parse_range(const char *p, const char *end, uint8_t out[kUuidLen])
{
	bool		braces = false;
	uint8_t		tmp[kUuidLen];

	auto at = [&](const char *q) -> unsigned char {
		return q < end ? static_cast<unsigned char>(*q) : '\0';
	};

	if (at(p) == '{')
	{
		braces = true;
		p++;
	}
	for (int i = 0; i < kUuidLen; i++)
	{
		int			hi = hex_value(at(p));
		int			lo = hi < 0 ? -1 : hex_value(at(p + 1));

		if (hi < 0 || lo < 0)
			return false;
		tmp[i] = static_cast<uint8_t>(hi << 4 | lo);
		p += 2;
		/* An optional hyphen after each group of four digits but the last. */
		if ((i & 1) == 1 && i < kUuidLen - 1 && at(p) == '-')
			p++;
	}
	if (braces)
	{
		if (at(p) != '}')
			return false;
		p++;
	}
	if (at(p) != '\0')
		return false;
	memcpy(out, tmp, kUuidLen);
	return true;
}

bool
uuid_parse(const char *text, uint8_t out[kUuidLen]) noexcept
{
	if (text == nullptr)
		return false;
	/* 2 braces + 32 digits + 15 hyphens at most; read no further. */
	return parse_range(text, text + strnlen(text, 64), out);
}

bool
uuid_parse_n(const char *text, size_t len, uint8_t out[kUuidLen]) noexcept
{
	if (text == nullptr)
		return false;
	/* Text with an embedded NUL is not a uuid, whatever precedes it. */
	if (memchr(text, '\0', len) != nullptr)
		return false;
	return parse_range(text, text + len, out);
}

void
uuid_format(const uint8_t in[kUuidLen], char out[kUuidTextLen + 1]) noexcept
{
	static const char digits[] = "0123456789abcdef";
	char	   *p = out;

	for (int i = 0; i < kUuidLen; i++)
	{
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*p++ = '-';
		*p++ = digits[in[i] >> 4];
		*p++ = digits[in[i] & 0xF];
	}
	*p = '\0';
}

bool
uuid_is_nil(const uint8_t u[kUuidLen]) noexcept
{
	for (int i = 0; i < kUuidLen; i++)
		if (u[i] != 0)
			return false;
	return true;
}

bool
uuid_is_max(const uint8_t u[kUuidLen]) noexcept
{
	for (int i = 0; i < kUuidLen; i++)
		if (u[i] != 0xFF)
			return false;
	return true;
}

TimeuuidKind
timeuuid_classify(const uint8_t u[kUuidLen]) noexcept
{
	if (!uuid_variant_is_rfc(u))
	{
		if (uuid_is_nil(u))
			return TimeuuidKind::nil;
		if (uuid_is_max(u))
			return TimeuuidKind::max;
		return TimeuuidKind::bad_variant;
	}
	switch (uuid_version(u))
	{
		case 1:
			return TimeuuidKind::v1;
		case 6:
			return TimeuuidKind::v6;
		case 7:
			return TimeuuidKind::v7;
		case kCombVersion:
			return TimeuuidKind::comb;
		default:
			return TimeuuidKind::bad_version;
	}
}

static inline uint64_t
load_be(const uint8_t *p, int n)
{
	if (n == 8)
		return load_be64(p);
	uint64_t	v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static inline void
store_be(uint8_t *p, int n, uint64_t v)
{
	if (n == 8)
	{
		v = to_be64(v);
		memcpy(p, &v, 8);
		return;
	}
	for (int i = n - 1; i >= 0; i--)
	{
		p[i] = static_cast<uint8_t>(v);
		v >>= 8;
	}
}

uint64_t
uuid_v1_ticks(const uint8_t u[kUuidLen]) noexcept
{
	uint64_t	time_low = load_be(u, 4);
	uint64_t	time_mid = load_be(u + 4, 2);
	uint64_t	time_hi = load_be(u + 6, 2) & 0x0FFF;

	return time_hi << 48 | time_mid << 32 | time_low;
}

uint64_t
uuid_v6_ticks(const uint8_t u[kUuidLen]) noexcept
{
	uint64_t	time_high = load_be(u, 4);
	uint64_t	time_mid = load_be(u + 4, 2);
	uint64_t	time_low = load_be(u + 6, 2) & 0x0FFF;

	return time_high << 28 | time_mid << 12 | time_low;
}

uint64_t
uuid_v7_ms(const uint8_t u[kUuidLen]) noexcept
{
	return load_be(u, 6);
}

unsigned
uuid_v7_rand_a(const uint8_t u[kUuidLen]) noexcept
{
	return static_cast<unsigned>(load_be(u + 6, 2) & 0x0FFF);
}

/* The 62 bits after the variant: clock_seq and node, or rand_b. */
static inline uint64_t
tail62(const uint8_t u[kUuidLen])
{
	return load_be(u + 8, 8) & ((1ULL << 62) - 1);
}

TimeuuidKey
timeuuid_key(const uint8_t u[kUuidLen]) noexcept
{
	TimeuuidKey k;

	switch (timeuuid_classify(u))
	{
		case TimeuuidKind::nil:
			k = {0, 0, 0};
			break;
		case TimeuuidKind::v1:
			k = {1, uuid_v1_ticks(u) * 2, 1ULL << 62 | tail62(u)};
			break;
		case TimeuuidKind::v6:
			k = {1, uuid_v6_ticks(u) * 2, 2ULL << 62 | tail62(u)};
			break;
		case TimeuuidKind::comb:
			k = {1, uuid_v6_ticks(u) * 2, tail62(u)};	/* rank 0 */
			break;
		case TimeuuidKind::v7:
			{
				uint64_t	t = kGregorianToUnixTicks + uuid_v7_ms(u) * 10000;
				uint64_t	sub = static_cast<uint64_t>(uuid_v7_rand_a(u)) * 19999 / 4095;

				k = {1, 2 * t - 1 + sub, 3ULL << 62 | tail62(u)};
				break;
			}
		case TimeuuidKind::max:
			k = {3, ~0ULL, ~0ULL};
			break;
		default:
			k = {2, load_be(u, 8), load_be(u + 8, 8)};
			break;
	}
	return k;
}

int
timeuuid_compare_keys(const uint8_t a[kUuidLen], const uint8_t b[kUuidLen]) noexcept
{
	TimeuuidKey ka = timeuuid_key(a);
	TimeuuidKey kb = timeuuid_key(b);

	if (ka.cls != kb.cls)
		return ka.cls < kb.cls ? -1 : 1;
	if (ka.hi != kb.hi)
		return ka.hi < kb.hi ? -1 : 1;
	if (ka.lo != kb.lo)
		return ka.lo < kb.lo ? -1 : 1;
	return 0;
}

uint64_t
timeuuid_abbrev(const uint8_t u[kUuidLen]) noexcept
{
	TimeuuidKey k = timeuuid_key(u);

	if (k.cls == 0)
		return 0;
	if (k.cls == 1)
		return k.hi;			/* at most about 5.9e18 < 2^63 */
	return ~0ULL;
}

bool
timeuuid_unix_us(const uint8_t u[kUuidLen], int64_t *unix_us) noexcept
{
	int64_t		ticks;

	switch (timeuuid_classify(u))
	{
		case TimeuuidKind::v7:
			*unix_us = static_cast<int64_t>(uuid_v7_ms(u)) * 1000;
			return true;
		case TimeuuidKind::v1:
			ticks = static_cast<int64_t>(uuid_v1_ticks(u));
			break;
		case TimeuuidKind::v6:
		case TimeuuidKind::comb:
			ticks = static_cast<int64_t>(uuid_v6_ticks(u));
			break;
		default:
			return false;
	}
	ticks -= static_cast<int64_t>(kGregorianToUnixTicks);
	/* Floor division: a time before 1970 rounds down, like after. */
	*unix_us = ticks >= 0 ? ticks / 10 : -((-ticks + 9) / 10);
	return true;
}

void
uuid_v1_to_v6(const uint8_t in[kUuidLen], uint8_t out[kUuidLen]) noexcept
{
	uint64_t	t = uuid_v1_ticks(in);
	uint8_t		tmp[kUuidLen];

	memcpy(tmp, in, kUuidLen);
	store_be(tmp, 4, t >> 28);
	store_be(tmp + 4, 2, (t >> 12) & 0xFFFF);
	store_be(tmp + 6, 2, 0x6000 | (t & 0x0FFF));
	memcpy(out, tmp, kUuidLen);
}

void
uuid_v6_to_v1(const uint8_t in[kUuidLen], uint8_t out[kUuidLen]) noexcept
{
	uint64_t	t = uuid_v6_ticks(in);
	uint8_t		tmp[kUuidLen];

	memcpy(tmp, in, kUuidLen);
	store_be(tmp, 4, t & 0xFFFFFFFF);
	store_be(tmp + 4, 2, (t >> 32) & 0xFFFF);
	store_be(tmp + 6, 2, 0x1000 | (t >> 48));
	memcpy(out, tmp, kUuidLen);
}

void
uuid_set_version(const uint8_t in[kUuidLen], int version, uint8_t out[kUuidLen]) noexcept
{
	memmove(out, in, kUuidLen);
	out[6] = static_cast<uint8_t>((version & 0x0F) << 4 | (out[6] & 0x0F));
}

bool
uuid_gregorian_to_v1(const uint8_t in[kUuidLen], uint8_t out[kUuidLen]) noexcept
{
	switch (timeuuid_classify(in))
	{
		case TimeuuidKind::v1:
			memmove(out, in, kUuidLen);
			return true;
		case TimeuuidKind::v6:
		case TimeuuidKind::comb:
			/* uuid_v6_to_v1 reads only the time fields, not the version */
			uuid_v6_to_v1(in, out);
			return true;
		default:
			return false;
	}
}

void
uuid_swap_guid_fields(const uint8_t in[kUuidLen], uint8_t out[kUuidLen]) noexcept
{
	static const int order[kUuidLen] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
	uint8_t		tmp[kUuidLen];

	for (int i = 0; i < kUuidLen; i++)
		tmp[i] = in[order[i]];
	memcpy(out, tmp, kUuidLen);
}

void
uuid_v7_build(uint8_t out[kUuidLen], uint64_t ms, unsigned rand_a, uint64_t rand_b) noexcept
{
	/* Two big-endian words: the compiler turns each into one byte swap. */
	store_be(out, 8, (ms & kMaxV7Ms) << 16 | 0x7000 | (rand_a & 0x0FFF));
	store_be(out + 8, 8, (2ULL << 62) | (rand_b & ((1ULL << 62) - 1)));
}

void
uuid_v7_from_word(uint8_t out[kUuidLen], uint64_t word, uint64_t random) noexcept
{
	uint64_t	rand_b = (word & 0xFF) << 54 | (random & ((1ULL << 54) - 1));

	uuid_v7_build(out, v7_word_ms(word), static_cast<unsigned>(word >> 8) & 0x0FFF, rand_b);
}

void
timeuuid_min_of_ms(uint8_t out[kUuidLen], uint64_t ms) noexcept
{
	uuid_v7_build(out, ms, 0, 0);
}

void
timeuuid_max_of_ms(uint8_t out[kUuidLen], uint64_t ms) noexcept
{
	uuid_v7_build(out, ms, 0x0FFF, ~0ULL);
}

}  // namespace idgen
