/*
 * fuzz_uuid_text.cpp: libFuzzer target for the UUID text parser and the
 * layout functions that consume its output.
 *
 * Properties checked on every input (any crash, sanitizer report or
 * __builtin_trap() is a finding):
 *  - the parser never reads outside the input (AddressSanitizer);
 *  - it accepts exactly the language of an independent, deliberately naive
 *    oracle (optional balanced braces around 8 groups of 4 hex digits, each
 *    group but the last optionally followed by one hyphen), with the same
 *    bytes;
 *  - the length-bounded and NUL-terminated entry points agree;
 *  - parse -> format -> parse gives the same bytes, and the format is the
 *    canonical 36-character lower-case form;
 *  - the time order is reflexive and antisymmetric against a second value,
 *    total and transitive with a third of another version and variant (its
 *    fast path agreeing with the keys), the abbreviation never contradicts
 *    it, and the v1<->v6 and GUID
 *    byte-swap conversions round-trip, v13 (COMB) <-> v6 too.
 *
 *   make fuzz              (runs for FUZZ_TIME seconds)
 */
#include "core/uuid_layout.hpp"

#include <cstdint>
#include <cstring>
#include <string>

using namespace idgen;

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static int
oracle_hex(char c)
{
	static const char digits[] = "0123456789abcdef";
	const char *p;

	if (c >= 'A' && c <= 'F')
		c = static_cast<char>(c - 'A' + 'a');
	p = c ? strchr(digits, c) : nullptr;
	return p ? static_cast<int>(p - digits) : -1;
}

/* The grammar, written as plainly as possible, on a std::string. */
static bool
oracle_parse(const std::string &s, uint8_t out[kUuidLen])
{
	std::string body = s;
	std::string hex;

	if (!body.empty() && body.front() == '{')
	{
		if (body.size() < 2 || body.back() != '}')
			return false;
		body = body.substr(1, body.size() - 2);
	}
	size_t		i = 0;

	for (int group = 0; group < 8; group++)
	{
		for (int k = 0; k < 4; k++, i++)
		{
			if (i >= body.size() || oracle_hex(body[i]) < 0)
				return false;
			hex += body[i];
		}
		if (group < 7 && i < body.size() && body[i] == '-')
			i++;
	}
	if (i != body.size())
		return false;
	for (int b = 0; b < kUuidLen; b++)
		out[b] = static_cast<uint8_t>(oracle_hex(hex[2 * b]) << 4 | oracle_hex(hex[2 * b + 1]));
	return true;
}

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = reinterpret_cast<const char *>(data);
	uint8_t		a[kUuidLen], b[kUuidLen], o[kUuidLen];
	bool		ok = uuid_parse_n(text, size, a);
	bool		has_nul = memchr(data, 0, size) != nullptr;

	/* The oracle sees only text without NUL bytes, as PostgreSQL does. */
	CHECK(ok == (!has_nul && oracle_parse(std::string(text, size), o)));
	if (!has_nul)
	{
		std::string copy(text, size);

		CHECK(uuid_parse(copy.c_str(), b) == ok);
		if (ok)
			CHECK(memcmp(a, b, kUuidLen) == 0);
	}
	if (!ok)
		return 0;
	CHECK(memcmp(a, o, kUuidLen) == 0);

	char		canon[kUuidTextLen + 1];

	uuid_format(a, canon);
	CHECK(strlen(canon) == kUuidTextLen);
	for (int i = 0; i < kUuidTextLen; i++)
		CHECK((i == 8 || i == 13 || i == 18 || i == 23) ? canon[i] == '-'
			  : ((canon[i] >= '0' && canon[i] <= '9') || (canon[i] >= 'a' && canon[i] <= 'f')));
	CHECK(uuid_parse(canon, b) && memcmp(a, b, kUuidLen) == 0);

	/* Order properties against the value with its last byte flipped. */
	memcpy(b, a, kUuidLen);
	b[15] ^= 0x5A;
	CHECK(timeuuid_compare(a, a) == 0);
	int			c = timeuuid_compare(a, b);

	CHECK(c != 0);
	CHECK(timeuuid_compare(b, a) == -c);
	if (c < 0)
		CHECK(timeuuid_abbrev(a) <= timeuuid_abbrev(b));
	else
		CHECK(timeuuid_abbrev(a) >= timeuuid_abbrev(b));

	/*
	 * The order is total over any bytes (a timeuuid is compared with uuids
	 * of every version): the inline fast path agrees with the keys, and
	 * three values are ordered transitively.  The third is a under another
	 * version and variant, taken from a's last bytes.
	 */
	uint8_t		d[kUuidLen];
	const uint8_t *v[3] = {a, b, d};

	memcpy(d, a, kUuidLen);
	d[6] = static_cast<uint8_t>((d[6] & 0x0F) | ((a[15] & 0x0F) << 4));
	d[8] = static_cast<uint8_t>((d[8] & 0x3F) | (a[14] & 0xC0));
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
		{
			CHECK(timeuuid_compare(v[i], v[j]) == timeuuid_compare_keys(v[i], v[j]));
			for (int k = 0; k < 3; k++)
				if (timeuuid_compare(v[i], v[j]) <= 0 && timeuuid_compare(v[j], v[k]) <= 0)
					CHECK(timeuuid_compare(v[i], v[k]) <= 0);
		}

	/* Conversions round-trip. */
	TimeuuidKind kind = timeuuid_classify(a);

	if (kind == TimeuuidKind::v1)
	{
		uuid_v1_to_v6(a, b);
		CHECK(timeuuid_classify(b) == TimeuuidKind::v6);
		CHECK(uuid_v6_ticks(b) == uuid_v1_ticks(a));
		uuid_v6_to_v1(b, b);
		CHECK(memcmp(a, b, kUuidLen) == 0);
	}
	if (kind == TimeuuidKind::comb)
	{
		uuid_set_version(a, 6, b);
		CHECK(timeuuid_classify(b) == TimeuuidKind::v6);
		CHECK(timeuuid_abbrev(a) == timeuuid_abbrev(b) && timeuuid_compare(a, b) < 0);
		uuid_set_version(b, kCombVersion, b);
		CHECK(memcmp(a, b, kUuidLen) == 0);
	}
	CHECK(uuid_gregorian_to_v1(a, b) ==
		  (kind == TimeuuidKind::v1 || kind == TimeuuidKind::v6 || kind == TimeuuidKind::comb));
	uuid_swap_guid_fields(a, b);
	uuid_swap_guid_fields(b, b);
	CHECK(memcmp(a, b, kUuidLen) == 0);

	int64_t		us;

	CHECK(timeuuid_unix_us(a, &us) ==
		  (kind == TimeuuidKind::v1 || kind == TimeuuidKind::v6 || kind == TimeuuidKind::v7 ||
		   kind == TimeuuidKind::comb));
	return 0;
}
