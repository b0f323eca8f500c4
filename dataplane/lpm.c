/* SPDX-License-Identifier: BSD-3-Clause */
/* Compact longest-prefix match (lpm.h). */
#include <stdlib.h>
#include <string.h>

#include "lpm.h"

/* A key: IPv4 in lo (host order), IPv6 as two host-order halves. */
struct key {
	uint64_t hi, lo;
};

struct len_run {
	uint32_t first, n;   /* keys[first .. first + n) */
	uint8_t len;
};

struct aif_lpm {
	uint8_t family;
	uint8_t n_lens;
	uint32_t n;
	uint64_t miss_nh;
	struct len_run lens[129]; /* longest first */
	struct key *keys;         /* within a run, ascending */
	uint64_t *nh;
};

/* Working entry for the build. */
struct ent {
	struct key k;
	uint8_t len;
	uint32_t order;          /* position in the input: later wins */
	uint64_t nh;
};

static inline uint64_t
be64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

static inline struct key
mask_key(struct key k, uint8_t family, uint8_t len)
{
	if (family == AIF_AF_INET4) {
		k.hi = 0;
		k.lo &= len == 0 ? 0 : (0xffffffffull << (32 - len)) & 0xffffffffull;
		return k;
	}
	if (len <= 64) {
		k.hi &= len == 0 ? 0 : ~0ull << (64 - len);
		k.lo = 0;
	} else {
		k.lo &= ~0ull << (128 - len);
	}
	return k;
}

static inline int
key_cmp(const struct key *a, const struct key *b)
{
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return 0;
}

/* Longest first, then key, then input order. */
static int
ent_cmp(const void *va, const void *vb)
{
	const struct ent *a = va, *b = vb;
	int d;

	if (a->len != b->len)
		return a->len > b->len ? -1 : 1;
	d = key_cmp(&a->k, &b->k);
	if (d != 0)
		return d;
	return a->order < b->order ? -1 : a->order > b->order;
}

struct aif_lpm *
aif_lpm_create(uint8_t family, const struct aif_prefix *pf, const uint64_t *nh, uint32_t n,
	       uint64_t miss_nh)
{
	unsigned max_len = family == AIF_AF_INET4 ? 32 : 128;
	struct aif_lpm *l = calloc(1, sizeof(*l));
	struct ent *e = malloc((n ? n : 1) * sizeof(*e));
	uint32_t m = 0, kept = 0;

	if (l == NULL || e == NULL)
		goto err;
	l->family = family;
	l->miss_nh = miss_nh;
	for (uint32_t i = 0; i < n; i++) {
		if (pf[i].addr.family != family || pf[i].len > max_len)
			continue;
		struct key k = { 0, 0 };
		if (family == AIF_AF_INET4)
			k.lo = aif_ip4_host(&pf[i].addr);
		else
			k = (struct key){ be64(pf[i].addr.b), be64(pf[i].addr.b + 8) };
		e[m++] = (struct ent){ mask_key(k, family, pf[i].len), pf[i].len, i, nh[i] };
	}
	qsort(e, m, sizeof(*e), ent_cmp);
	/* one per prefix: the last of a run of equal ones */
	for (uint32_t i = 0; i < m; i++) {
		if (i + 1 < m && e[i + 1].len == e[i].len && key_cmp(&e[i + 1].k, &e[i].k) == 0)
			continue;
		e[kept++] = e[i];
	}
	l->keys = malloc((kept ? kept : 1) * sizeof(*l->keys));
	l->nh = malloc((kept ? kept : 1) * sizeof(*l->nh));
	if (l->keys == NULL || l->nh == NULL)
		goto err;
	for (uint32_t i = 0; i < kept; i++) {
		l->keys[i] = e[i].k;
		l->nh[i] = e[i].nh;
		if (i == 0 || e[i].len != e[i - 1].len)
			l->lens[l->n_lens++] = (struct len_run){ .first = i, .len = e[i].len };
		l->lens[l->n_lens - 1].n++;
	}
	l->n = kept;
	free(e);
	return l;
err:
	free(e);
	aif_lpm_free(l);
	return NULL;
}

void
aif_lpm_free(struct aif_lpm *l)
{
	if (l == NULL)
		return;
	free(l->keys);
	free(l->nh);
	free(l);
}

uint32_t
aif_lpm_count(const struct aif_lpm *l)
{
	return l->n;
}

/* The next hop of k (a full-length key), longest prefix first. */
static inline uint64_t
lookup(const struct aif_lpm *l, struct key k)
{
	for (unsigned r = 0; r < l->n_lens; r++) {
		const struct len_run *run = &l->lens[r];
		struct key mk = mask_key(k, l->family, run->len);
		uint32_t lo = run->first, hi = run->first + run->n;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			int d = key_cmp(&l->keys[mid], &mk);

			if (d == 0)
				return l->nh[mid];
			if (d < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return l->miss_nh;
}

void
aif_lpm4_lookup_bulk(const struct aif_lpm *l, const uint32_t *ip, uint64_t *nh, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		nh[i] = lookup(l, (struct key){ 0, ip[i] });
}

void
aif_lpm6_lookup_bulk(const struct aif_lpm *l, const uint8_t (*ip)[16], uint64_t *nh,
		     unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		nh[i] = lookup(l, (struct key){ be64(ip[i]), be64(ip[i] + 8) });
}
