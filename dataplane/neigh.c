/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour table; the single-writer protocol is described in neigh.h. */
#include <errno.h>
#include <stdlib.h>

#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "neigh.h"

struct aif_neigh *
aif_neigh_create(const char *name, uint32_t cap, struct rte_rcu_qsbr *qsv)
{
	struct aif_neigh *n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->cap = cap;
	n->slot = rte_zmalloc(name, sizeof(uint64_t) * cap, RTE_CACHE_LINE_SIZE);
	n->meta = calloc(cap, sizeof(*n->meta));
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = cap < 8 ? 8 : cap,
		.key_len = sizeof(struct aif_ip),
		.hash_func = rte_jhash,
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF,
	};
	n->by_ip = rte_hash_create(&hp);
	if (n->slot == NULL || n->meta == NULL || n->by_ip == NULL)
		goto err;
	if (qsv != NULL) {
		struct rte_hash_rcu_config rc = {
			.v = qsv,
			.mode = RTE_HASH_QSBR_MODE_DQ,
		};
		if (rte_hash_rcu_qsbr_add(n->by_ip, &rc) != 0)
			goto err;
	}
	return n;
err:
	aif_neigh_free(n);
	return NULL;
}

void
aif_neigh_free(struct aif_neigh *n)
{
	if (n == NULL)
		return;
	rte_hash_free(n->by_ip);
	rte_free(n->slot);
	free(n->meta);
	free(n);
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
aif_neigh_find(const struct aif_neigh *n, const struct aif_ip *ip)
{
	struct aif_ip k = key_of(ip);
	void *data;
	if (rte_hash_lookup_data(n->by_ip, &k, &data) < 0)
		return AIF_NEIGH_NONE;
	return (uint32_t)(uintptr_t)data;
}

uint32_t
aif_neigh_get(struct aif_neigh *n, const struct aif_ip *ip, uint16_t port)
{
	uint32_t s = aif_neigh_find(n, ip);
	if (s != AIF_NEIGH_NONE)
		return s;
	for (s = 0; s < n->cap; s++)
		if (n->meta[s].type == AIF_NEIGH_FREE)
			break;
	if (s == n->cap)
		return AIF_NEIGH_NONE;
	struct aif_ip k = key_of(ip);
	__atomic_store_n(&n->slot[s], 0, __ATOMIC_RELEASE);
	if (rte_hash_add_key_data(n->by_ip, &k, (void *)(uintptr_t)s) != 0)
		return AIF_NEIGH_NONE;
	n->meta[s] = (struct aif_neigh_meta){
		.ip = k, .type = AIF_NEIGH_UNRESOLVED, .port = port,
	};
	return s;
}

void
aif_neigh_set(struct aif_neigh *n, uint32_t slot, const struct aif_mac *mac,
	      uint16_t port, enum aif_neigh_type type, aif_time_ns now_ns)
{
	n->meta[slot].type = (uint8_t)type;
	n->meta[slot].port = port;
	n->meta[slot].updated_ns = now_ns;
	__atomic_store_n(&n->slot[slot], aif_neigh_pack(mac, port),
			 __ATOMIC_RELEASE);
}

void
aif_neigh_del(struct aif_neigh *n, uint32_t slot)
{
	struct aif_ip k = n->meta[slot].ip;
	__atomic_store_n(&n->slot[slot], 0, __ATOMIC_RELEASE);
	rte_hash_del_key(n->by_ip, &k);
	memset(&n->meta[slot], 0, sizeof(n->meta[slot]));
}
