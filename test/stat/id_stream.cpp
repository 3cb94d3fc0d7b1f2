/*
 * id_stream.cpp: writes the images of consecutive ids 1, 2, 3, ... under a
 * mapping, for the randomness tests of id_encode (test/stat/randomness.sh).
 *
 *   id_stream MAPPING DOMAIN KEY COUNT [text]
 *
 * MAPPING: encode (id_encode's permutation), identity, multiplicative
 * (id * 0x9E3779B97F4A7C15 mod 2^w, Knuth's multiplicative hashing, the
 * classic "hide the sequence" trick), feistelN (id_encode's network with N
 * rounds instead of 8, no cycle walking: feistel1 leaves half the bits as
 * they are).  DOMAIN: 63 (bigint) or 53 (js_safe).  COUNT ids,
 * or 0 for an endless stream (dieharder reads what it needs).  The output
 * packs each image's w bits (63 or 53) into one continuous bit stream, so
 * every bit of the output is tested, not only the low bytes; with "text" it
 * prints one image per line instead (to compare with SQL's id_encode).
 */
#include "core/id_permute.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace idgen::permute;

int
main(int argc, char **argv)
{
	if (argc < 5)
	{
		fprintf(stderr, "usage: %s encode|identity|multiplicative|feistelN 63|53 KEY COUNT [text]\n", argv[0]);
		return 2;
	}
	std::string mapping = argv[1];
	int			w = atoi(argv[2]);
	const char *secret = argv[3];
	unsigned long long count = strtoull(argv[4], nullptr, 10);
	bool		text = argc > 5 && strcmp(argv[5], "text") == 0;
	uint64_t	n = w == 53 ? kJsSafeMax : kBigintMax;
	Key			key;

	if ((w != 53 && w != 63) ||
		!make_key(reinterpret_cast<const uint8_t *>(secret), strlen(secret), n, &key))
		return 2;

	uint8_t		buf[1 << 16];
	size_t		used = 0;
	unsigned __int128 acc = 0;	/* bits not yet written, low bits first */
	int			acc_bits = 0;

	for (unsigned long long i = 1; count == 0 || i <= count; i++)
	{
		uint64_t	x = (i - 1) % n + 1;
		uint64_t	y;

		if (mapping == "encode")
			y = encode(key, x);
		else if (mapping == "identity")
			y = x;
		else if (mapping == "multiplicative")
			y = (x * UINT64_C(0x9E3779B97F4A7C15)) & n;
		else if (mapping.compare(0, 7, "feistel") == 0)
			y = feistel(key, x - 1, atoi(mapping.c_str() + 7)) + 1;
		else
			return 2;
		if (text)
		{
			printf("%llu\n", static_cast<unsigned long long>(y));
			continue;
		}
		acc |= static_cast<unsigned __int128>(y & n) << acc_bits;
		acc_bits += w;
		while (acc_bits >= 8)
		{
			buf[used++] = static_cast<uint8_t>(acc);
			acc >>= 8;
			acc_bits -= 8;
		}
		if (used > sizeof(buf) - 16)
		{
			if (fwrite(buf, 1, used, stdout) != used)
				return 0;		/* the reader has seen enough */
			used = 0;
		}
	}
	if (used > 0)
		fwrite(buf, 1, used, stdout);
	return 0;
}
