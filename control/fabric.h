/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fabric from a config: its switches and the emulated links between
 * them, ready for control to load tables into and for runners to drive.
 *
 *	struct aif_fabric f;
 *	if (aif_fabric_build(&f, cfg, pool, 1, seed, err, sizeof(err)) != 0) ...
 *	// bind the ports that have a device (DPDK) yourself, then
 *	for (i = 0; i < f.n_sw; i++) aif_ctl_add_switch(&ctl, f.sw[i]);
 *	aif_ctl_apply_config(&ctl, aif_config_ref(cfg), err, sizeof(err));
 *	...
 *	aif_fabric_free(&f);
 *
 * Switch i is cfg->switches[i] (same name and port names).  A port in
 * cfg->links becomes that link's end (rate and delay from the link, speed
 * from the rate); a port with a device is left for the caller to bind; any
 * other port is detached: link down, nothing received, what it is sent
 * refused (tx_full).  With more than one switch their route tables are
 * compact (fib_compact in switch.h).
 */
#ifndef AIF_FABRIC_H
#define AIF_FABRIC_H

#include <stddef.h>
#include <stdint.h>

#include "../dataplane/link.h"
#include "../dataplane/switch.h"
#include "config.h"

struct rte_mempool;

struct aif_fabric {
	uint16_t n_sw;
	struct aif_switch *sw[AIF_MAX_SWITCHES];
	uint32_t n_links;
	struct aif_link **link;      /* [n_links], as cfg->links */
	/* on 4 KiB pages (EAL --no-huge) the links' rings, one mapping (NULL:
	 * each link's in DPDK's heap, on its hugepages) */
	void *rings;
	size_t rings_len;
};

/* Build cfg's switches (n_shards each) and links (link k's loss and
 * corruption draws seeded from seed and k); 0, or -1 with err (the JSON
 * path of what could not be built) and nothing left behind.  On 4 KiB
 * pages the links' rings share one anonymous mapping, whose pages cost
 * only when traffic reaches them (a k=56 fat-tree's 2.1 GiB: its two-host
 * all-to-all 9.4 -> 7.5 s, 3.9 -> 3.2 GB resident); on hugepages each
 * link's are in DPDK's heap, within the hugepages' TLB reach. */
int aif_fabric_build(struct aif_fabric *f, const struct aif_config *cfg,
		     struct rte_mempool *pool, uint16_t n_shards, uint64_t seed, char *err,
		     size_t err_len);
/* What link k of cfg is made with (its loss and corruption draws seeded
 * from seed and k). */
struct aif_link_params aif_fabric_link_params(const struct aif_config *cfg, uint32_t k,
					      uint64_t seed);
/* The rate link k of cfg runs at: its rate_gbps, else its first end's
 * port speed, else 100 Gb/s. */
uint64_t aif_fabric_link_rate_bps(const struct aif_config *cfg, uint32_t k);
/* Free the switches and links (the runners and captures first). */
void aif_fabric_free(struct aif_fabric *f);
/* The same at the process's end: the switches' neighbour slots and the
 * links' rings left to the exit (aif_switch_free_at_exit,
 * aif_link_free_at_exit); every frame back to its pool. */
void aif_fabric_free_at_exit(struct aif_fabric *f);

#endif /* AIF_FABRIC_H */
