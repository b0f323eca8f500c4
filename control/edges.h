/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time's edge ports: every switch port that is neither a link's end
 * nor a virtual host's is a pcap port (dataplane/pcap_port.h) that reads
 * --pcap-in SWITCH:PORT=FILE, generates --traffic, and writes what it is
 * sent to --pcap-out DIR/SWITCH-PORT.pcap.
 *
 *	if (aif_edges_check(&o, cfg, &fab) != 0 || aif_edges_bind(&o, cfg, &fab, &e, pool) != 0)
 *		...
 *	loop.idle = aif_edges_idle; loop.idle_arg = &e;   // inputs read, fabric empty
 *	aif_edges_close(&e);                              // 0, or -1: output short
 */
#ifndef AIF_EDGES_H
#define AIF_EDGES_H

#include <stdint.h>

#include <jansson.h>

#include "../dataplane/capacity.h"
#include "config.h"
#include "fabric.h"
#include "opts.h"

struct aif_pcap_port;
struct rte_mempool;

struct aif_edges {
	unsigned n;
	struct aif_pcap_port *pp[AIF_MAX_SWITCHES * 8];
	char name[AIF_MAX_SWITCHES * 8][2 * AIF_NAME_MAX + 2];
	const char *in[AIF_MAX_SWITCHES * 8];
	struct rte_mempool *pool;
};

/* Every --pcap-in names an edge port of the config; 0, or -1 with a
 * message. */
int aif_edges_check(const struct aif_opts *o, const struct aif_config *cfg,
		    const struct aif_fabric *f);
/* The file --pcap-in gives port port of switch sw, or NULL. */
const char *aif_edges_input_of(const struct aif_opts *o, const char *sw, const char *port);
/* Every port of the fabric that is not a link end and not taken (a virtual
 * host) becomes a pcap port; 0, or -1 with a message. */
int aif_edges_bind(const struct aif_opts *o, const struct aif_config *cfg, struct aif_fabric *f,
		   struct aif_edges *e, struct rte_mempool *pool);
/* Nothing more will come: every input read and no packet anywhere (every
 * mbuf back in the pool).  arg: the struct aif_edges. */
int aif_edges_idle(void *arg);
/* The edge ports' counters. */
json_t *aif_edges_json(const struct aif_edges *e);
/* Close them all; 0, or -1 (said) when an output was not written in full. */
int aif_edges_close(struct aif_edges *e);

#endif /* AIF_EDGES_H */
