/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour table; the single-writer protocol and the life of a learned
 * entry are described in neigh.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "neigh.h"

/* The index's hash of a key (key_of's: its unused bytes zero). */
static inline uint32_t
key_hash(const struct aif_ip *k)
{
	return rte_hash_crc(k, sizeof(*k), 0);
}

static inline bool
key_eq(const struct aif_ip *a, const struct aif_ip *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* A view of cap slots, its index empty (NULL: out of memory).  The index
 * has at least twice the slots' entries: the live ones fill at most half. */
static struct aif_neigh_view *
view_make(uint32_t cap)
{
	struct aif_neigh_view *v = calloc(1, sizeof(*v));
	uint32_t ni = 16;

	if (v == NULL)
		return NULL;
	while (ni < 2 * cap)
		ni *= 2;
	v->cap = cap;
	v->idx_mask = ni - 1;
	v->slot = rte_zmalloc("aif_neigh_slot", sizeof(uint64_t) * cap, RTE_CACHE_LINE_SIZE);
	v->meta = calloc(cap, sizeof(*v->meta));
	v->key = calloc(cap, sizeof(*v->key));
	v->idx = calloc(ni, sizeof(*v->idx));
	if (v->slot == NULL || v->meta == NULL || v->key == NULL || v->idx == NULL) {
		rte_free(v->slot);
		free(v->meta);
		free(v->key);
		free(v->idx);
		free(v);
		return NULL;
	}
	return v;
}

/* Slot of key k in v's index, or AIF_NEIGH_NONE: a reader's probe, safe
 * beside control's adds and deletes (neigh.h). */
static uint32_t
idx_find(const struct aif_neigh_view *v, const struct aif_ip *k)
{
	uint32_t h = key_hash(k);

	for (uint32_t i = h & v->idx_mask, n = 0; n <= v->idx_mask; i = (i + 1) & v->idx_mask, n++) {
		uint64_t e = __atomic_load_n(&v->idx[i], __ATOMIC_ACQUIRE);
		if (e == 0)
			break;
		if (e == AIF_NEIGH_TOMB || (uint32_t)(e >> 32) != h)
			continue;
		uint32_t s = (uint32_t)e - 1;
		if (key_eq(&v->key[s], k))
			return s;
	}
	return AIF_NEIGH_NONE;
}

/* Control: slot s under key k (absent) in v's index, its key written
 * first; the first tombstone or empty entry on its probe taken.  0, or -1
 * when the index is full (it never is: idx_add's callers make it again
 * before three quarters are used, and the live entries fill half). */
static int
idx_add(struct aif_neigh_view *v, const struct aif_ip *k, uint32_t s)
{
	uint32_t h = key_hash(k);

	v->key[s] = *k;
	for (uint32_t i = h & v->idx_mask, n = 0; n <= v->idx_mask; i = (i + 1) & v->idx_mask, n++) {
		uint64_t e = v->idx[i];
		if (e != 0 && e != AIF_NEIGH_TOMB)
			continue;
		v->idx_used += e == 0;
		__atomic_store_n(&v->idx[i], (uint64_t)h << 32 | (s + 1), __ATOMIC_RELEASE);
		return 0;
	}
	return -1;
}

/* Control: slot s's entry (under key k) a tombstone. */
static void
idx_del(struct aif_neigh_view *v, const struct aif_ip *k, uint32_t s)
{
	uint32_t h = key_hash(k);
	uint64_t want = (uint64_t)h << 32 | (s + 1);

	for (uint32_t i = h & v->idx_mask, n = 0; n <= v->idx_mask; i = (i + 1) & v->idx_mask, n++) {
		uint64_t e = v->idx[i];
		if (e == 0)
			return;
		if (e == want) {
			__atomic_store_n(&v->idx[i], AIF_NEIGH_TOMB, __ATOMIC_RELEASE);
			return;
		}
	}
}

/* Does one more entry take the index past three quarters? */
static inline bool
idx_crowded(const struct aif_neigh_view *v)
{
	return (uint64_t)(v->idx_used + 1) * 4 > 3 * ((uint64_t)v->idx_mask + 1);
}

/* A view no worker reads any more; its slot words too unless at_exit
 * (DPDK zeroes what it frees: aif_neigh_free_at_exit). */
static void
view_free(struct aif_neigh_view *v, bool at_exit)
{
	if (!at_exit)
		rte_free(v->slot);
	free(v->meta);
	free(v->key);
	free(v->idx);
	free(v);
}

/* Free the retired views every worker has stopped reading (all: every
 * one, the workers stopped). */
static void
reap(struct aif_neigh *n, bool all, bool at_exit)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n->n_retired; i++) {
		struct aif_neigh_view *v = n->retired[i];
		if (all || n->qsv == NULL || rte_rcu_qsbr_check(n->qsv, v->token, false) == 1)
			view_free(v, at_exit);
		else
			n->retired[k++] = v;
	}
	n->n_retired = k;
}

/* The current view's fields, for control. */
static void
mirror(struct aif_neigh *n, const struct aif_neigh_view *v)
{
	n->cap = v->cap;
	n->slot = v->slot;
	n->meta = v->meta;
}

struct aif_neigh *
aif_neigh_create(const char *name, uint32_t max, struct rte_rcu_qsbr *qsv)
{
	struct aif_neigh *n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->max = max;
	n->qsv = qsv;
	snprintf(n->name, sizeof(n->name), "%s", name);
	struct aif_neigh_view *v = view_make(max < AIF_NEIGH_CAP_MIN ? max : AIF_NEIGH_CAP_MIN);
	if (v == NULL) {
		free(n);
		return NULL;
	}
	n->view = v;
	mirror(n, v);
	return n;
}

/* The table in a new view of cap slots (at least the current), every
 * entry in the same slot, its index made again without tombstones: the
 * new view published, the old one retired.  0, or -1 (out of memory, or
 * too many old views still read). */
static int
remake(struct aif_neigh *n, uint32_t cap)
{
	reap(n, false, false);
	if (n->n_retired == AIF_NEIGH_RETIRED_MAX)
		return -1;
	struct aif_neigh_view *v = view_make(cap), *old = n->view;
	if (v == NULL)
		return -1;
	n->grows++;
	for (uint32_t s = 0; s < old->cap; s++) {
		v->slot[s] = old->slot[s]; /* (control is the only writer) */
		v->meta[s] = old->meta[s];
		v->key[s] = old->key[s];
		if (v->meta[s].type != AIF_NEIGH_FREE && idx_add(v, &v->meta[s].ip, s) != 0) {
			view_free(v, false);
			return -1;
		}
	}
	__atomic_store_n(&n->view, v, __ATOMIC_RELEASE);
	mirror(n, v);
	old->token = n->qsv != NULL ? rte_rcu_qsbr_start(n->qsv) : 0;
	n->retired[n->n_retired++] = old;
	if (n->qsv == NULL)
		reap(n, true, false);
	return 0;
}

/* Twice the slots (up to max).  0, or -1 (at max, or as remake). */
static int
grow(struct aif_neigh *n)
{
	uint32_t cap = n->cap > n->max / 2 ? n->max : 2 * n->cap;

	if (cap <= n->cap)
		return -1;
	return remake(n, cap);
}

/* Every view, the workers stopped (at_exit: the hashes left to the exit). */
static void
neigh_free(struct aif_neigh *n, bool at_exit)
{
	if (n == NULL)
		return;
	reap(n, true, at_exit);
	view_free(n->view, at_exit);
	free(n);
}

void
aif_neigh_free_at_exit(struct aif_neigh *n)
{
	neigh_free(n, true);
}

void
aif_neigh_free(struct aif_neigh *n)
{
	neigh_free(n, false);
}

static struct aif_ip
key_of(const struct aif_ip *ip)
{
	struct aif_ip k;
	memset(&k, 0, sizeof(k));
	k.family = ip->family;
	memcpy(k.b, ip->b, ip->family == AIF_AF_INET4 ? 4 : 16);
	return k;
}

uint32_t
aif_neigh_view_find(const struct aif_neigh_view *v, const struct aif_ip *ip)
{
	struct aif_ip k = key_of(ip);

	return idx_find(v, &k);
}

uint32_t
aif_neigh_find(const struct aif_neigh *n, const struct aif_ip *ip)
{
	return aif_neigh_view_find(n->view, ip);
}

/* A free slot every worker has stopped reading since it was freed; the
 * table grown when there is none. */
static uint32_t
free_slot(struct aif_neigh *n)
{
	for (uint32_t s = 0; s < n->cap; s++) {
		const struct aif_neigh_meta *mt = &n->meta[s];
		if (mt->type != AIF_NEIGH_FREE)
			continue;
		if (mt->free_token == 0 || n->qsv == NULL ||
		    rte_rcu_qsbr_check(n->qsv, mt->free_token, false) == 1)
			return s;
	}
	uint32_t s = n->cap; /* the first of the new ones */
	return grow(n) == 0 ? s : AIF_NEIGH_NONE;
}

/* The unpinned learned entry refreshed longest ago (stale ones only when
 * stale_only), or AIF_NEIGH_NONE. */
static uint32_t
oldest_learned(const struct aif_neigh *n, bool stale_only)
{
	uint32_t best = AIF_NEIGH_NONE;
	for (uint32_t s = 0; s < n->cap; s++) {
		const struct aif_neigh_meta *mt = &n->meta[s];
		if (mt->type != AIF_NEIGH_LEARNED || mt->pinned || (stale_only && !mt->stale))
			continue;
		if (best == AIF_NEIGH_NONE || mt->updated_ns < n->meta[best].updated_ns)
			best = s;
	}
	return best;
}

/* Put ip in slot s (free and past its grace period) as UNRESOLVED. */
static uint32_t
take(struct aif_neigh *n, uint32_t s, const struct aif_ip *ip, uint16_t port)
{
	struct aif_ip k = key_of(ip);
	/* tombstones and entries past three quarters: the index made again
	 * (where old views still wait, this add takes a tombstone) */
	if (idx_crowded(n->view))
		(void)remake(n, n->cap);
	__atomic_store_n(&n->slot[s], 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&n->gen, 1, __ATOMIC_RELEASE);
	if (idx_add(n->view, &k, s) != 0)
		return AIF_NEIGH_NONE;
	n->meta[s] = (struct aif_neigh_meta){
		.ip = k, .type = AIF_NEIGH_UNRESOLVED, .port = port,
	};
	return s;
}

uint32_t
aif_neigh_get(struct aif_neigh *n, const struct aif_ip *ip, uint16_t port)
{
	uint32_t s = aif_neigh_find(n, ip);
	if (s != AIF_NEIGH_NONE)
		return s;
	s = free_slot(n);
	if (s == AIF_NEIGH_NONE) {
		/* configured entries come before learned ones */
		s = oldest_learned(n, false);
		if (s == AIF_NEIGH_NONE)
			return AIF_NEIGH_NONE;
		aif_neigh_del(n, s);
		n->ctr.evicted_for_config++;
		s = free_slot(n);
		if (s == AIF_NEIGH_NONE)
			return AIF_NEIGH_NONE; /* in its grace period: the next load */
	}
	return take(n, s, ip, port);
}

void
aif_neigh_set(struct aif_neigh *n, uint32_t slot, const struct aif_mac *mac,
	      uint16_t port, enum aif_neigh_type type, aif_time_ns now_ns)
{
	struct aif_neigh_meta *mt = &n->meta[slot];
	bool was_learned = mt->type == AIF_NEIGH_LEARNED && !mt->pinned;
	bool is_learned = type == AIF_NEIGH_LEARNED && !mt->pinned;

	n->n_learned += (uint32_t)is_learned - (uint32_t)was_learned;
	mt->type = (uint8_t)type;
	mt->port = port;
	mt->updated_ns = now_ns;
	mt->stale = 0;
	__atomic_store_n(&n->slot[slot], aif_neigh_pack(mac, port),
			 __ATOMIC_RELEASE);
}

void
aif_neigh_unresolve(struct aif_neigh *n, uint32_t slot)
{
	struct aif_neigh_meta *mt = &n->meta[slot];

	if (mt->type == AIF_NEIGH_LEARNED && !mt->pinned)
		n->n_learned--;
	mt->type = AIF_NEIGH_UNRESOLVED;
	mt->stale = 0;
	__atomic_store_n(&n->slot[slot], 0, __ATOMIC_RELEASE);
}

void
aif_neigh_del(struct aif_neigh *n, uint32_t slot)
{
	struct aif_neigh_meta *mt = &n->meta[slot];
	struct aif_ip k = mt->ip;

	if (mt->type == AIF_NEIGH_LEARNED && !mt->pinned)
		n->n_learned--;
	__atomic_store_n(&n->slot[slot], 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&n->gen, 1, __ATOMIC_RELEASE);
	idx_del(n->view, &k, slot);
	memset(mt, 0, sizeof(*mt));
	mt->free_token = n->qsv != NULL ? rte_rcu_qsbr_start(n->qsv) : 0;
}

uint32_t
aif_neigh_learn(struct aif_neigh *n, const struct aif_ip *ip,
		const struct aif_mac *mac, uint16_t port, bool create,
		const struct aif_neigh_params *p, aif_time_ns now_ns)
{
	uint32_t s = aif_neigh_find(n, ip);

	if (s != AIF_NEIGH_NONE) {
		struct aif_neigh_meta *mt = &n->meta[s];
		if (mt->type == AIF_NEIGH_STATIC) {
			n->ctr.static_kept++;
			return AIF_NEIGH_NONE;
		}
		if (mt->type == AIF_NEIGH_LEARNED)
			n->ctr.refreshed++;
		else
			n->ctr.learned++; /* an unresolved next hop answered */
		aif_neigh_set(n, s, mac, port, AIF_NEIGH_LEARNED, now_ns);
		return s;
	}
	if (!create) {
		n->ctr.update_only++;
		return AIF_NEIGH_NONE;
	}
	if (n->n_learned >= p->max_learned) {
		uint32_t old = oldest_learned(n, true);
		if (old == AIF_NEIGH_NONE) {
			n->ctr.learn_refused++;
			return AIF_NEIGH_NONE;
		}
		aif_neigh_del(n, old);
		n->ctr.replaced++;
	}
	/* learned entries fit beside AIF_NEIGH_CONFIGURED_MAX configured ones */
	s = free_slot(n);
	if (s == AIF_NEIGH_NONE) {
		n->ctr.learn_refused++;
		return AIF_NEIGH_NONE;
	}
	if (take(n, s, ip, port) == AIF_NEIGH_NONE) {
		n->ctr.learn_refused++;
		return AIF_NEIGH_NONE;
	}
	n->ctr.learned++;
	aif_neigh_set(n, s, mac, port, AIF_NEIGH_LEARNED, now_ns);
	return s;
}

void
aif_neigh_age(struct aif_neigh *n, const struct aif_neigh_params *p,
	      aif_time_ns now_ns)
{
	aif_time_ns reach = (aif_time_ns)p->reachable_s * AIF_NS_PER_S;

	reap(n, false, false); /* old views past their grace period */
	aif_time_ns gone = reach + (aif_time_ns)p->stale_s * AIF_NS_PER_S;

	for (uint32_t s = 0; s < n->cap; s++) {
		struct aif_neigh_meta *mt = &n->meta[s];
		if (mt->type != AIF_NEIGH_LEARNED || now_ns < mt->updated_ns)
			continue;
		aif_time_ns idle = now_ns - mt->updated_ns;
		if (!mt->stale && idle >= reach) {
			mt->stale = 1;
			__atomic_fetch_or(&n->slot[s], AIF_NEIGH_STALE, __ATOMIC_RELEASE);
			n->ctr.went_stale++;
		}
		if (mt->stale && idle >= gone && !mt->pinned) {
			aif_neigh_del(n, s);
			n->ctr.aged_out++;
		}
	}
}

void
aif_neigh_recount(struct aif_neigh *n)
{
	n->n_learned = 0;
	for (uint32_t s = 0; s < n->cap; s++)
		n->n_learned += n->meta[s].type == AIF_NEIGH_LEARNED && !n->meta[s].pinned;
}
