/* SPDX-License-Identifier: BSD-3-Clause */
/* A switch's shard: creation and TX flush (shard.h). */
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "../pipelines/lb.h"
#include "lazymem.h"
#include "shard.h"

#define MEMBER_CTR_SIZE (sizeof(struct aif_member_ctr) * AIF_MAX_MEMBER_SLOTS)

struct aif_shard *
aif_shard_create(uint16_t id, uint64_t seed)
{
	struct aif_shard *sh = rte_zmalloc("aif_shard", sizeof(*sh), RTE_CACHE_LINE_SIZE);

	if (sh == NULL)
		return NULL;
	sh->id = id;
	sh->fwd.lb = aif_lazy_zalloc(sizeof(*sh->fwd.lb));
	sh->member_ctr = aif_lazy_zalloc(MEMBER_CTR_SIZE);
	if (sh->fwd.lb == NULL || sh->member_ctr == NULL) {
		aif_lazy_free(sh->fwd.lb, sizeof(*sh->fwd.lb));
		aif_lazy_free(sh->member_ctr, MEMBER_CTR_SIZE);
		rte_free(sh);
		return NULL;
	}
	sh->fwd.shard = id;
	sh->fwd.port_ctr = sh->port_ctr;
	sh->fwd.member_ctr = sh->member_ctr;
	sh->fwd.port_qbytes = sh->port_qbytes;
	sh->fwd.port_tc_qbytes = (const uint32_t (*)[8])sh->port_tc_qbytes;
	aif_rng_seed(&sh->fwd.rng, seed ^ ((uint64_t)id << 32));
	return sh;
}

static void
shard_free(struct aif_shard *sh, bool at_exit)
{
	if (sh == NULL)
		return;
	for (uint16_t p = 0; p < AIF_MAX_PORTS; p++)
		if (sh->tx[p].n) {
			rte_pktmbuf_free_bulk(sh->tx[p].pkts, sh->tx[p].n);
			sh->tx[p].n = 0;
		}
	if (at_exit)
		return;
	if (sh->fwd.lb != NULL)
		aif_lb_flowlet_table_free(sh->fwd.lb);
	aif_lazy_free(sh->fwd.lb, sizeof(*sh->fwd.lb));
	aif_lazy_free(sh->member_ctr, MEMBER_CTR_SIZE);
	rte_free(sh);
}

void
aif_shard_free(struct aif_shard *sh)
{
	shard_free(sh, false);
}

void
aif_shard_free_at_exit(struct aif_shard *sh)
{
	shard_free(sh, true);
}

void
aif_shard_flush(struct aif_shard *sh, struct aif_port *ports, uint16_t n_ports,
		aif_time_ns now_ns)
{
	/* only the ports that were sent something (one bit per port) */
	uint64_t pend = sh->tx_pending;

	sh->tx_pending = 0;
	while (pend) {
		uint16_t p = (uint16_t)__builtin_ctzll(pend);
		pend &= pend - 1;
		if (p < n_ports && sh->tx[p].n) {
			aif_shard_flush_port(sh, ports, p, now_ns);
			sh->sent_ports |= 1ull << p;
			/* a host answers: its next frame may come sooner */
			sh->wake_ports |= (uint64_t)ports[p].base->wakes_rx << p;
		}
	}
}
