/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compact longest-prefix match (dataplane/lpm.c): known answers, then
 * random tables of both families checked address by address against a
 * linear scan of the entries (the longest match; of equal prefixes, the
 * later entry).  No EAL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lpm.h"
#include "rng.h"
#include "types.h"

#define MISS 0xdeadull

static struct aif_prefix
pfx(const char *s)
{
	struct aif_prefix p;

	assert_int_equal(aif_prefix_parse(s, &p), 0);
	return p;
}

static uint32_t
ip4(const char *s)
{
	struct aif_ip a;

	assert_int_equal(aif_ip_parse(s, &a), 0);
	return aif_ip4_host(&a);
}

/* A fabric switch's table: connected /24 and /31, a route, own /32s. */
static void
test_known_answers(void **state)
{
	const struct aif_prefix pf[] = {
		pfx("10.0.0.1/24"), pfx("172.16.0.0/31"), pfx("10.1.0.0/16"),
		pfx("10.1.2.0/24"), pfx("0.0.0.0/0"), pfx("10.0.0.1/32"),
		pfx("2001:db8::1/64"), pfx("10.1.2.0/24"),
	};
	const uint64_t nh[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct aif_lpm *l = aif_lpm_create(AIF_AF_INET4, pf, nh, 8, MISS);
	const struct { const char *ip; uint64_t nh; } cases[] = {
		{ "10.0.0.1", 6 },    /* own address over its subnet */
		{ "10.0.0.77", 1 },
		{ "172.16.0.1", 2 },
		{ "172.16.0.2", 5 },  /* outside the /31: the default */
		{ "10.1.2.3", 8 },    /* the later of two equal prefixes */
		{ "10.1.3.3", 3 },
		{ "192.0.2.1", 5 },
	};

	(void)state;
	assert_non_null(l);
	assert_int_equal(aif_lpm_count(l), 6); /* v6 skipped, one duplicate */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t a = ip4(cases[i].ip);
		uint64_t got;

		aif_lpm4_lookup_bulk(l, &a, &got, 1);
		if (got != cases[i].nh)
			fail_msg("%s: got %llu, want %llu", cases[i].ip,
				 (unsigned long long)got, (unsigned long long)cases[i].nh);
	}
	aif_lpm_free(l);

	/* no entries: every lookup misses */
	l = aif_lpm_create(AIF_AF_INET6, pf, nh, 6, MISS);
	assert_non_null(l);
	uint8_t a6[1][16] = { { 0x20, 0x01, 0x0d, 0xb8 } };
	uint64_t got;
	aif_lpm6_lookup_bulk(l, (const uint8_t (*)[16])a6, &got, 1);
	assert_int_equal(got, MISS);
	aif_lpm_free(l);
}

/* What the table must answer: the longest matching entry, the later of
 * equal ones. */
static uint64_t
reference(const struct aif_prefix *pf, const uint64_t *nh, uint32_t n, const struct aif_ip *a)
{
	int best = -1;

	for (uint32_t i = 0; i < n; i++) {
		if (pf[i].addr.family != a->family || !aif_prefix_contains(&pf[i], a))
			continue;
		if (best < 0 || pf[i].len >= pf[best].len)
			best = (int)i;
	}
	return best < 0 ? MISS : nh[best];
}

/* A random address near one of the entries (so that most match some). */
static void
random_ip(struct aif_rng *r, uint8_t family, const struct aif_prefix *pf, uint32_t n,
	  struct aif_ip *a)
{
	unsigned bytes = family == AIF_AF_INET4 ? 4 : 16;

	memset(a, 0, sizeof(*a));
	a->family = family;
	if (n > 0 && aif_rng_below(r, 4) != 0) {
		*a = pf[aif_rng_below(r, n)].addr;
		/* flip a few low bits */
		for (unsigned k = aif_rng_below(r, 4); k > 0; k--) {
			unsigned bit = bytes * 8 - 1 - aif_rng_below(r, bytes * 8);
			a->b[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
		}
	} else {
		for (unsigned i = 0; i < bytes; i++)
			a->b[i] = (uint8_t)aif_rng_below(r, 256);
	}
}

static void
random_tables(uint8_t family)
{
	unsigned bytes = family == AIF_AF_INET4 ? 4 : 16, max_len = bytes * 8;
	struct aif_rng r;

	aif_rng_seed(&r, 0x1badb002 + family);
	for (int round = 0; round < 200; round++) {
		uint32_t n = aif_rng_below(&r, 300);
		struct aif_prefix *pf = calloc(n + 1, sizeof(*pf));
		uint64_t *nh = calloc(n + 1, sizeof(*nh));

		assert_non_null(pf);
		assert_non_null(nh);
		for (uint32_t i = 0; i < n; i++) {
			pf[i].addr.family = family;
			/* few distinct first bytes: prefixes nest and repeat */
			pf[i].addr.b[0] = (uint8_t)(10 + aif_rng_below(&r, 3));
			for (unsigned b = 1; b < bytes; b++)
				pf[i].addr.b[b] = (uint8_t)aif_rng_below(&r, b < 3 ? 4 : 256);
			pf[i].len = (uint8_t)(aif_rng_below(&r, 4) == 0 ? aif_rng_below(&r, max_len + 1)
					      : max_len - aif_rng_below(&r, 10));
			aif_prefix_normalize(&pf[i]);
			nh[i] = i + 1;
			if (i > 0 && aif_rng_below(&r, 8) == 0)
				pf[i] = pf[aif_rng_below(&r, i)]; /* a repeat: it wins */
		}
		struct aif_lpm *l = aif_lpm_create(family, pf, nh, n, MISS);
		assert_non_null(l);
		for (int k = 0; k < 200; k++) {
			struct aif_ip a;
			uint64_t got;

			random_ip(&r, family, pf, n, &a);
			if (family == AIF_AF_INET4) {
				uint32_t h = aif_ip4_host(&a);
				aif_lpm4_lookup_bulk(l, &h, &got, 1);
			} else {
				uint8_t b[1][16];
				memcpy(b[0], a.b, 16);
				aif_lpm6_lookup_bulk(l, (const uint8_t (*)[16])b, &got, 1);
			}
			uint64_t want = reference(pf, nh, n, &a);
			if (got != want) {
				char buf[64];
				fail_msg("round %d: %s: got %llu, want %llu", round,
					 aif_ip_fmt(&a, buf, sizeof(buf)),
					 (unsigned long long)got, (unsigned long long)want);
			}
		}
		aif_lpm_free(l);
		free(pf);
		free(nh);
	}
}

static void
test_random_ipv4(void **state)
{
	(void)state;
	random_tables(AIF_AF_INET4);
}

static void
test_random_ipv6(void **state)
{
	(void)state;
	random_tables(AIF_AF_INET6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_answers),
		cmocka_unit_test(test_random_ipv4),
		cmocka_unit_test(test_random_ipv6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
