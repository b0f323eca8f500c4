/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A generated fabric routed again around the links that are down, from the
 * parsed config: each switch's next-hop groups and routes computed as the
 * generator computes them (topology.h: every host subnet on another switch
 * through the neighbours one hop closer to it, over the links that are up;
 * one group per set of next hops, named after them), from the switches,
 * ports, neighbours and links as parsed.  Nothing is written as JSON or
 * parsed again.
 *
 *	bool down[n_links] = { ... };
 *	struct aif_config *nc = aif_reroute(c->cfg, down, err, sizeof(err));
 *	if (nc != NULL) aif_ctl_apply_config(c, nc, err, sizeof(err));
 */
#ifndef AIF_REROUTE_H
#define AIF_REROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* A copy of cfg (a generated fabric: cfg->topology set) with links[k].down
 * = down[k] and every switch's groups and routes around the links down; the
 * caller's (aif_config_free).  NULL with err when out of memory or cfg is
 * not a generated fabric. */
struct aif_config *aif_reroute(const struct aif_config *cfg, const bool *down, char *err,
			       size_t err_len);

#endif /* AIF_REROUTE_H */
