/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An injectable random source: xorshift64*, one state per worker (or per
 * test), seeded explicitly.  Stages take a struct aif_rng * instead of
 * calling rand() or rte_rand(), so a seeded run repeats exactly.
 */
#ifndef AIF_RNG_H
#define AIF_RNG_H

#include <stdint.h>

struct aif_rng {
	uint64_t s;
};

/*
 * Seeds pass through splitmix64 first: xorshift64* started from small or
 * neighbouring seeds (a switch's seed + its index) gives streams that stay
 * alike for many draws, and LetFlow's new flowlets then took the same
 * uplink at every leaf of a fabric at once.
 */
static inline void
aif_rng_seed(struct aif_rng *r, uint64_t seed)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	r->s = z ? z : 0x9E3779B97F4A7C15ull;
}

static inline uint64_t
aif_rng_next(struct aif_rng *r)
{
	uint64_t x = r->s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n) for n < 2^32 (Lemire's multiply-shift). */
static inline uint32_t
aif_rng_below(struct aif_rng *r, uint32_t n)
{
	return (uint32_t)(((aif_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

#endif /* AIF_RNG_H */
