/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time's edge ports (edges.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mempool.h>

#include "../dataplane/link.h"
#include "../dataplane/mbuf.h"
#include "../dataplane/pcap_port.h"
#include "../dataplane/switch.h"
#include "edges.h"

int
aif_edges_check(const struct aif_opts *o, const struct aif_config *cfg, const struct aif_fabric *f)
{
	for (unsigned i = 0; i < o->n_pcap_in; i++) {
		const char *a = o->pcap_in[i], *colon = strchr(a, ':'), *eq = strchr(a, '=');
		bool found = false;
		if (eq < colon) {
			fprintf(stderr, "--pcap-in '%s': expected SWITCH:PORT=FILE\n", a);
			return -1;
		}
		for (uint16_t s = 0; s < cfg->n_switches && !found; s++) {
			if (strlen(cfg->switches[s].name) != (size_t)(colon - a) ||
			    strncmp(cfg->switches[s].name, a, (size_t)(colon - a)) != 0)
				continue;
			for (uint16_t p = 0; p < cfg->switches[s].n_ports && !found; p++) {
				const char *pn = cfg->switches[s].ports[p].name;
				if (strlen(pn) != (size_t)(eq - colon - 1) ||
				    strncmp(pn, colon + 1, (size_t)(eq - colon - 1)) != 0)
					continue;
				if (aif_link_is_end(&f->sw[s]->ports[p])) {
					fprintf(stderr, "--pcap-in '%s': %s:%s is a fabric link's end, "
						"not an edge port\n", a, cfg->switches[s].name, pn);
					return -1;
				}
				found = true;
			}
			if (!found) {
				fprintf(stderr, "--pcap-in '%s': switch %s has no port '%.*s'\n", a,
					cfg->switches[s].name, (int)(eq - colon - 1), colon + 1);
				return -1;
			}
		}
		if (!found) {
			fprintf(stderr, "--pcap-in '%s': no switch '%.*s'\n", a, (int)(colon - a), a);
			return -1;
		}
	}
	return 0;
}

const char *
aif_edges_input_of(const struct aif_opts *o, const char *sw, const char *port)
{
	for (unsigned i = 0; i < o->n_pcap_in; i++) {
		const char *a = o->pcap_in[i], *colon = strchr(a, ':'), *eq = strchr(a, '=');
		if (strlen(sw) == (size_t)(colon - a) && strncmp(sw, a, (size_t)(colon - a)) == 0 &&
		    strlen(port) == (size_t)(eq - colon - 1) &&
		    strncmp(port, colon + 1, (size_t)(eq - colon - 1)) == 0)
			return eq + 1;
	}
	return NULL;
}

static uint32_t
ip4_of(const struct aif_ip *ip)
{
	return (uint32_t)ip->b[0] << 24 | (uint32_t)ip->b[1] << 16 | (uint32_t)ip->b[2] << 8 |
	       ip->b[3];
}

int
aif_edges_bind(const struct aif_opts *o, const struct aif_config *cfg, struct aif_fabric *f,
	       struct aif_edges *e, struct rte_mempool *pool)
{
	char err[AIF_ERR_MAX], out[PATH_MAX];

	e->pool = pool;
	for (uint16_t s = 0; s < f->n_sw; s++) {
		struct aif_switch *sw = f->sw[s];
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			struct aif_port *port = &sw->ports[p];
			if (aif_link_is_end(port) || port->base != &aif_port_detached_ops ||
			    e->n == RTE_DIM(e->pp))
				continue; /* a link end, or a virtual host */
			const char *in = aif_edges_input_of(o, sw->name, port->name);
			/* the host on this port, for --traffic: to every other host
			 * (those with a MAC: a pcap file answers no ARP) */
			const struct aif_host_params *host = NULL;
			for (uint32_t h = 0; h < cfg->n_hosts && host == NULL; h++)
				if (cfg->hosts[h].sw == s && cfg->hosts[h].port == p &&
				    cfg->hosts[h].ip.family == AIF_AF_INET4 &&
				    !cfg->hosts[h].learned)
					host = &cfg->hosts[h];
			struct aif_pcap_gen gen;
			uint32_t *dst = NULL;
			if (in == NULL && host != NULL && o->traffic_load > 0) {
				gen = (struct aif_pcap_gen){
					.load = o->traffic_load, .frame_len = (uint16_t)o->traffic_bytes,
					.dscp = 26, .n_flows = 64, .seed = o->seed + e->n + 1,
					.stop_ns = (aif_time_ns)(o->duration_s * 1e9 + 0.5),
					.src_mac = host->mac, .dst_mac = cfg->switches[s].ports[p].mac,
					.src_ip = ip4_of(&host->ip), .light = true,
				};
				dst = calloc(cfg->n_hosts + 1, sizeof(*dst));
				for (uint32_t h = 0; dst != NULL && h < cfg->n_hosts; h++)
					if (cfg->hosts[h].ip.family == AIF_AF_INET4 &&
					    !cfg->hosts[h].learned &&
					    ip4_of(&cfg->hosts[h].ip) != gen.src_ip)
						dst[gen.n_dst++] = ip4_of(&cfg->hosts[h].ip);
				gen.dst_ip = dst;
			}
			if (o->pcap_out != NULL)
				snprintf(out, sizeof(out), "%s/%s-%s.pcap", o->pcap_out, sw->name,
					 port->name);
			struct aif_pcap_port_params pp = {
				.in_path = in, .out_path = o->pcap_out != NULL ? out : NULL,
				.rate_bps = (uint64_t)(port->speed_mbps ? port->speed_mbps : 100000) *
					    1000000,
				.gen = dst != NULL && gen.n_dst > 0 ? &gen : NULL,
			};
			/* the host sends on the priorities the switch pauses by: its
			 * policy's class maps, through tc_to_pg */
			const struct aif_policy_params *pol = &cfg->policies[cfg->switches[s].policy];
			pp.trust_pcp = pol->trust == AIF_TRUST_PCP;
			for (unsigned d = 0; d < 64; d++)
				pp.prio_of_dscp[d] = pol->qos.tc_to_pg[pol->dscp_to_tc[d] & 7];
			for (unsigned c = 0; c < 8; c++)
				pp.prio_of_pcp[c] = pol->qos.tc_to_pg[pol->pcp_to_tc[c] & 7];
			e->pp[e->n] = aif_pcap_port_open(&pp, pool, err, sizeof(err));
			free(dst);
			if (e->pp[e->n] == NULL) {
				fprintf(stderr, "edge port %s:%s: %s\n", sw->name, port->name, err);
				return -1;
			}
			snprintf(e->name[e->n], sizeof(e->name[0]), "%s:%s", sw->name, port->name);
			e->in[e->n] = in;
			aif_pcap_port_attach(e->pp[e->n++], port);
		}
	}
	return 0;
}

int
aif_edges_idle(void *arg)
{
	const struct aif_edges *e = arg;

	for (unsigned i = 0; i < e->n; i++)
		if (!aif_pcap_port_rx_done(e->pp[i]))
			return 0;
	return aif_mbuf_held(e->pool) == 0; /* (spares and small frames too) */
}

json_t *
aif_edges_json(const struct aif_edges *e)
{
	json_t *arr = json_array();

	for (unsigned i = 0; i < e->n; i++) {
		const struct aif_pcap_port_ctr *c = aif_pcap_port_ctr(e->pp[i]);
		json_t *o = json_pack("{s:s}", "port", e->name[i]);
#define PCAP_CTR_JSON(name, text) json_object_set_new(o, #name, json_integer((json_int_t)c->name));
		AIF_FOREACH_PCAP_PORT_CTR(PCAP_CTR_JSON)
#undef PCAP_CTR_JSON
		json_array_append_new(arr, o);
	}
	return arr;
}

int
aif_edges_close(struct aif_edges *e)
{
	int rc = 0;

	for (unsigned i = 0; i < e->n; i++)
		if (aif_pcap_port_close(e->pp[i]) != 0) {
			fprintf(stderr, "edge port %s: its output could not be written in full\n",
				e->name[i]);
			rc = -1;
		}
	e->n = 0;
	return rc;
}
