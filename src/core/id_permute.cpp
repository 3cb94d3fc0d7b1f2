/*
 * id_permute.cpp: see id_permute.hpp.
 */
#include "core/id_permute.hpp"

#include <cstring>

#include "core/cpp_only.hpp"

namespace idgen {
namespace permute {

static inline uint64_t
rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t
load_le64(const uint8_t *p)
{
	uint64_t	v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* One SipRound on the four state words. */
static inline void
sip_round(uint64_t &v0, uint64_t &v1, uint64_t &v2, uint64_t &v3)
{
	v0 += v1;
	v1 = rotl(v1, 13) ^ v0;
	v0 = rotl(v0, 32);
	v2 += v3;
	v3 = rotl(v3, 16) ^ v2;
	v0 += v3;
	v3 = rotl(v3, 21) ^ v0;
	v2 += v1;
	v1 = rotl(v1, 17) ^ v2;
	v2 = rotl(v2, 32);
}

uint64_t
siphash24(uint64_t k0, uint64_t k1, const uint8_t *msg, size_t len) noexcept
{
	/* "somepseudorandomlygeneratedbytes", as the specification initialises */
	uint64_t	v0 = k0 ^ UINT64_C(0x736f6d6570736575);
	uint64_t	v1 = k1 ^ UINT64_C(0x646f72616e646f6d);
	uint64_t	v2 = k0 ^ UINT64_C(0x6c7967656e657261);
	uint64_t	v3 = k1 ^ UINT64_C(0x7465646279746573);
	size_t		whole = len - len % 8;
	uint8_t		last[8] = {0};

	for (size_t i = 0; i < whole; i += 8)
	{
		uint64_t	m = load_le64(msg + i);

		v3 ^= m;
		sip_round(v0, v1, v2, v3);
		sip_round(v0, v1, v2, v3);
		v0 ^= m;
	}
	/* the last block: the remaining bytes, and the length mod 256 on top */
	memcpy(last, msg + whole, len - whole);
	last[7] = static_cast<uint8_t>(len);
	uint64_t	m = load_le64(last);

	v3 ^= m;
	sip_round(v0, v1, v2, v3);
	sip_round(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xFF;
	for (int i = 0; i < 4; i++)
		sip_round(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

bool
make_key(const uint8_t *secret, size_t len, uint64_t n, Key *key) noexcept
{
	int			w = 2;
	uint8_t		msg[10];

	if (n == 0)
		return false;
	/* the smallest width whose 2^w strings hold [0, n-1] (at least 2 bits) */
	while (w < 64 && (UINT64_C(1) << w) < n)
		w++;
	key->n = n;
	key->lbits = w / 2;
	key->rbits = w - w / 2;

	/*
	 * A 128-bit master key from the secret (SipHash under two fixed keys),
	 * then one round key per round and domain size.
	 */
	uint64_t	m0 = siphash24(UINT64_C(0x69645f67656e2f31), UINT64_C(0x7065726d7574652f), secret, len);
	uint64_t	m1 = siphash24(UINT64_C(0x7065726d7574652f), UINT64_C(0x69645f67656e2f31), secret, len);

	for (int r = 0; r < kRounds; r++)
	{
		for (int i = 0; i < 8; i++)
			msg[i] = static_cast<uint8_t>(n >> (8 * i));
		msg[8] = static_cast<uint8_t>(r);
		msg[9] = static_cast<uint8_t>(w);
		key->round[r] = siphash24(m0, m1, msg, sizeof(msg));
	}
	return true;
}

/*
 * The round function: the part's value plus the round key, through a
 * xor-shift-multiply mixer whose every output bit depends on every input bit.
 */
static inline uint64_t
round_fn(uint64_t v, uint64_t round_key)
{
	uint64_t	x = v + round_key;

	x ^= x >> 32;
	x *= UINT64_C(0xd6e8feb86659fd93);
	x ^= x >> 32;
	x *= UINT64_C(0xd6e8feb86659fd93);
	x ^= x >> 32;
	return x;
}

static inline uint64_t
forward(const Key &key, uint64_t v, int rounds)
{
	const uint64_t rmask = (UINT64_C(1) << key.rbits) - 1;
	const uint64_t lmask = (UINT64_C(1) << key.lbits) - 1;
	uint64_t	l = v >> key.rbits;
	uint64_t	r = v & rmask;

	for (int i = 0; i < rounds; i++)
	{
		if ((i & 1) == 0)
			l ^= round_fn(r, key.round[i]) & lmask;
		else
			r ^= round_fn(l, key.round[i]) & rmask;
	}
	return l << key.rbits | r;
}

static inline uint64_t
backward(const Key &key, uint64_t v)
{
	const uint64_t rmask = (UINT64_C(1) << key.rbits) - 1;
	const uint64_t lmask = (UINT64_C(1) << key.lbits) - 1;
	uint64_t	l = v >> key.rbits;
	uint64_t	r = v & rmask;

	for (int i = kRounds - 1; i >= 0; i--)
	{
		if ((i & 1) == 0)
			l ^= round_fn(r, key.round[i]) & lmask;
		else
			r ^= round_fn(l, key.round[i]) & rmask;
	}
	return l << key.rbits | r;
}

uint64_t
feistel(const Key &key, uint64_t v, int rounds) noexcept
{
	return forward(key, v, rounds > kRounds ? kRounds : rounds);
}

uint64_t
encode(const Key &key, uint64_t x) noexcept
{
	uint64_t	v = x - 1;

	do
		v = forward(key, v, kRounds);
	while (v >= key.n);
	return v + 1;
}

uint64_t
decode(const Key &key, uint64_t y) noexcept
{
	uint64_t	v = y - 1;

	do
		v = backward(key, v);
	while (v >= key.n);
	return v + 1;
}

}  // namespace permute
}  // namespace idgen
