/* SPDX-License-Identifier: BSD-3-Clause */
/* A fabric's switches and links, built from a config (fabric.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>

#include "../dataplane/lazymem.h"
#include "fabric.h"

int
aif_fabric_build(struct aif_fabric *f, const struct aif_config *cfg,
		 struct rte_mempool *pool, uint16_t n_shards, uint64_t seed, char *err,
		 size_t err_len)
{
	char why[AIF_ERR_MAX];

	memset(f, 0, sizeof(*f));
	for (uint16_t i = 0; i < cfg->n_switches; i++) {
		const struct aif_switch_params *sp = &cfg->switches[i];
		struct aif_switch *sw = aif_switch_create(sp->name, i, n_shards, pool);
		if (sw == NULL) {
			snprintf(err, err_len, "$.switches[%u]: cannot create switch %s", i,
				 sp->name);
			goto err;
		}
		f->sw[f->n_sw++] = sw;
		sw->n_ports = sp->n_ports;
		sw->fib_compact = cfg->n_switches > 1;
		for (uint16_t p = 0; p < sp->n_ports; p++) {
			snprintf(sw->ports[p].name, AIF_NAME_MAX, "%s", sp->ports[p].name);
			sw->ports[p].dev_mac = sp->ports[p].mac;
			sw->ports[p].speed_mbps = sp->ports[p].speed_mbps;
			aif_port_init_detached(&sw->ports[p], p); /* until bound */
		}
	}
	f->link = calloc(cfg->n_links ? cfg->n_links : 1, sizeof(*f->link));
	if (f->link == NULL) {
		snprintf(err, err_len, "$.links: out of memory");
		goto err;
	}
	size_t at = 0;
	if (!rte_eal_has_hugepages() && cfg->n_links > 0) {
		for (uint32_t k = 0; k < cfg->n_links; k++) {
			const struct aif_link_params lp = aif_fabric_link_params(cfg, k, seed);
			f->rings_len += aif_link_rings_bytes(&lp);
		}
		f->rings = aif_lazy_zalloc(f->rings_len);
		if (f->rings == NULL) {
			snprintf(err, err_len, "$.links: out of memory for their rings (%zu MiB)",
				 f->rings_len >> 20);
			goto err;
		}
	}
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *tl = &cfg->links[k];
		struct aif_switch *a = f->sw[tl->a_switch], *b = f->sw[tl->b_switch];
		char name[4 * AIF_NAME_MAX + 8];
		const struct aif_link_params lp = aif_fabric_link_params(cfg, k, seed);
		void *rings = f->rings != NULL ? (char *)f->rings + at : NULL;

		snprintf(name, sizeof(name), "%s:%s-%s:%s", a->name, a->ports[tl->a_port].name,
			 b->name, b->ports[tl->b_port].name);
		at += aif_link_rings_bytes(&lp); /* (as counted above) */
		f->link[k] = aif_link_create_at(name, &lp, rings, why, sizeof(why));
		if (f->link[k] == NULL) {
			snprintf(err, err_len, "$.links[%u]: %s", k, why);
			goto err;
		}
		f->n_links = k + 1;
		aif_link_attach(f->link[k], 0, &a->ports[tl->a_port]);
		aif_link_attach(f->link[k], 1, &b->ports[tl->b_port]);
		if (tl->down)
			aif_link_set_up(f->link[k], 0, 0);
	}
	return 0;
err:
	aif_fabric_free(f);
	return -1;
}

struct aif_link_params
aif_fabric_link_params(const struct aif_config *cfg, uint32_t k, uint64_t seed)
{
	const struct aif_topo_link *tl = &cfg->links[k];

	return (struct aif_link_params){
		.rate_bps = aif_fabric_link_rate_bps(cfg, k), .delay_ns = tl->delay_ns,
		.loss_rate = tl->loss_rate, .corrupt_rate = tl->corrupt_rate,
		.seed = seed * 0x9E3779B97F4A7C15ull + k, .wire_model = tl->wire_model,
	};
}

uint64_t
aif_fabric_link_rate_bps(const struct aif_config *cfg, uint32_t k)
{
	const struct aif_topo_link *tl = &cfg->links[k];
	uint32_t mbps = cfg->switches[tl->a_switch].ports[tl->a_port].speed_mbps;

	if (tl->rate_bps)
		return tl->rate_bps;
	return (uint64_t)(mbps ? mbps : 100000) * 1000000;
}

/* The switches and links freed, or at the process's end (at_exit) what
 * the exit gives back faster left to it. */
static void
fabric_free(struct aif_fabric *f, bool at_exit)
{
	for (uint16_t i = 0; i < f->n_sw; i++)
		(at_exit ? aif_switch_free_at_exit : aif_switch_free)(f->sw[i]);
	for (uint32_t k = 0; k < f->n_links; k++)
		(at_exit ? aif_link_free_at_exit : aif_link_free)(f->link[k]);
	free(f->link);
	if (!at_exit)
		aif_lazy_free(f->rings, f->rings_len);
	memset(f, 0, sizeof(*f));
}

void
aif_fabric_free(struct aif_fabric *f)
{
	fabric_free(f, false);
}

void
aif_fabric_free_at_exit(struct aif_fabric *f)
{
	fabric_free(f, true);
}
