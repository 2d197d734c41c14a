/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the project's pseudo-random generators, one definition each.
 *
 * xoshiro256** (Blackman & Vigna), seeded through splitmix64: the
 * generators' stream (hgw-feedgen, hgw-tablegen). The same seed gives the
 * same stream on every host, so generated feeds and tables are
 * reproducible byte for byte.
 *
 * xorshift64* (Vigna): one word of state, for the unit tests and
 * hgw-chanprobe's choice of lines; deterministic, so a failing seed
 * replays.
 */
#ifndef HGW_PRNG_H
#define HGW_PRNG_H

#include <stdint.h>

struct hgw_rng {
	uint64_t s[4];
};

static inline uint64_t
hgw_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void
hgw_rng_seed(struct hgw_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = hgw_splitmix64(&seed);
}

static inline uint64_t
hgw_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t
hgw_rng_next(struct hgw_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = hgw_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = hgw_rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n) for 0 < n <= 2^32 (multiply-shift; the bias is below
 * 2^-32, and it is deterministic). */
static inline uint32_t
hgw_rng_below(struct hgw_rng *r, uint64_t n)
{
	return (uint32_t)(((hgw_rng_next(r) >> 32) * n) >> 32);
}

/* xorshift64*: advances *state (which must not be 0; it never becomes 0)
 * and returns the next value. */
static inline uint64_t
hgw_xorshift64s(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

#endif /* HGW_PRNG_H */
