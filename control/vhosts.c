/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual RoCE hosts on a fabric's edge (vhosts.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/link.h"
#include "../dataplane/runner.h"
#include "vhosts.h"


/* The wire time of wire bytes at rate_bps under wire model m, ps. */
static uint64_t
ser_ps(uint8_t m, uint32_t wire, uint64_t rate_bps)
{
	return rate_bps ? aif_wire_ser_ps((enum aif_wire_model)m, wire, rate_bps) : 0;
}

/* A full data packet's and an ACK's time on host h's wire, ps. */
static uint64_t
host_data_ps(const struct aif_vhosts *v, uint32_t h)
{
	const struct aif_rhost_params *p = aif_rhost_params(v->h[h]);
	return ser_ps(p->wire_model, v->data_wire[p->wire_model], p->rate_bps);
}

static uint64_t
host_ack_ps(const struct aif_vhosts *v, uint32_t h)
{
	const struct aif_rhost_params *p = aif_rhost_params(v->h[h]);
	return ser_ps(p->wire_model, v->ack_wire[p->wire_model], p->rate_bps);
}

static uint32_t
ip4(const struct aif_ip *ip)
{
	return (uint32_t)ip->b[0] << 24 | (uint32_t)ip->b[1] << 16 | (uint32_t)ip->b[2] << 8 |
	       ip->b[3];
}

static uint64_t
port_rate(const struct aif_config *cfg, uint16_t s, uint16_t p)
{
	uint32_t mbps = cfg->switches[s].ports[p].speed_mbps;
	return (uint64_t)(mbps ? mbps : 100000) * 1000000;
}

/* A payload of mtu bytes at rate, integer ns (as ns-3 counts a hop). */
static uint64_t
payload_ns(uint32_t mtu, uint64_t rate_bps)
{
	return rate_bps ? (uint64_t)mtu * 8000000000ull / rate_bps : 0;
}

/* Fewest-delay paths between switches (Floyd-Warshall on link time), and
 * along them what ns-3's ideal counts (propagation, a payload per link,
 * the slowest link). */
static int
paths(struct aif_vhosts *v, const struct aif_config *cfg)
{
	uint32_t n = cfg->n_switches;
	size_t nn = (size_t)n * n;

	v->n_sw = (uint16_t)n;
	v->ow_data_ps = malloc(sizeof(uint64_t) * nn);
	v->ow_ack_ps = malloc(sizeof(uint64_t) * nn);
	v->ow_prop_ns = malloc(sizeof(uint64_t) * nn);
	v->ow_tx_ns = malloc(sizeof(uint64_t) * nn);
	v->ow_rate_bps = malloc(sizeof(uint64_t) * nn);
	v->ow_hops = malloc(sizeof(uint32_t) * nn);
	if (v->ow_data_ps == NULL || v->ow_ack_ps == NULL || v->ow_prop_ns == NULL ||
	    v->ow_tx_ns == NULL || v->ow_rate_bps == NULL || v->ow_hops == NULL)
		return -1;
	for (size_t i = 0; i < nn; i++) {
		v->ow_data_ps[i] = v->ow_ack_ps[i] = i % (n + 1) == 0 ? 0 : UINT64_MAX / 4;
		v->ow_prop_ns[i] = v->ow_tx_ns[i] = 0;
		v->ow_rate_bps[i] = UINT64_MAX;
		v->ow_hops[i] = 0;
	}
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *l = &cfg->links[k];
		uint64_t rate = l->rate_bps ? l->rate_bps : port_rate(cfg, l->a_switch, l->a_port);
		uint8_t wm = l->wire_model < AIF_WIRE_MODEL_MAX ? l->wire_model : AIF_WIRE_ETHERNET;
		uint64_t d = l->delay_ns * 1000 + ser_ps(wm, v->data_wire[wm], rate);
		uint64_t a = l->delay_ns * 1000 + ser_ps(wm, v->ack_wire[wm], rate);
		size_t ab = (size_t)l->a_switch * n + l->b_switch, ba = (size_t)l->b_switch * n + l->a_switch;
		if (d < v->ow_data_ps[ab]) {
			v->ow_data_ps[ab] = v->ow_data_ps[ba] = d;
			v->ow_ack_ps[ab] = v->ow_ack_ps[ba] = a;
			v->ow_prop_ns[ab] = v->ow_prop_ns[ba] = l->delay_ns;
			v->ow_tx_ns[ab] = v->ow_tx_ns[ba] = payload_ns(v->mtu, rate);
			v->ow_rate_bps[ab] = v->ow_rate_bps[ba] = rate;
			v->ow_hops[ab] = v->ow_hops[ba] = 1;
		}
	}
	for (uint32_t k = 0; k < n; k++)
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t j = 0; j < n; j++) {
				size_t ij = (size_t)i * n + j, ik = (size_t)i * n + k, kj = (size_t)k * n + j;
				uint64_t x = v->ow_data_ps[ik] + v->ow_data_ps[kj];
				if (x < v->ow_data_ps[ij]) {
					v->ow_data_ps[ij] = x;
					v->ow_ack_ps[ij] = v->ow_ack_ps[ik] + v->ow_ack_ps[kj];
					v->ow_prop_ns[ij] = v->ow_prop_ns[ik] + v->ow_prop_ns[kj];
					v->ow_tx_ns[ij] = v->ow_tx_ns[ik] + v->ow_tx_ns[kj];
					v->ow_rate_bps[ij] = RTE_MIN(v->ow_rate_bps[ik], v->ow_rate_bps[kj]);
					v->ow_hops[ij] = v->ow_hops[ik] + v->ow_hops[kj];
				}
			}
	return 0;
}

/* The fabric's link delay: its links' (the shortest when they differ), 0
 * without links. */
static aif_time_ns
fabric_delay_ns(const struct aif_config *cfg)
{
	aif_time_ns d = AIF_TIME_NS_NEVER;

	for (uint32_t k = 0; k < cfg->n_links; k++)
		d = RTE_MIN(d, (aif_time_ns)cfg->links[k].delay_ns);
	return d == AIF_TIME_NS_NEVER ? 0 : d;
}

int
aif_vhosts_build(struct aif_vhosts *v, const struct aif_config *cfg, struct aif_fabric *f,
		 const struct aif_rhost_params *tmpl,
		 int (*skip)(uint16_t sw, uint16_t port, void *arg), void *skip_arg,
		 struct rte_mempool *pool, char *err, size_t err_len)
{
	uint32_t cap = cfg->n_hosts ? cfg->n_hosts : 1;

	memset(v, 0, sizeof(*v));
	v->h = calloc(cap, sizeof(*v->h));
	v->cfg_host = calloc(cap, sizeof(*v->cfg_host));
	v->sw = calloc(cap, sizeof(*v->sw));
	v->port = calloc(cap, sizeof(*v->port));
	if (v->h == NULL || v->cfg_host == NULL || v->sw == NULL || v->port == NULL)
		goto oom;
	v->ack_delay_ns = tmpl->ack_delay_ns;
	for (uint8_t wm = 0; wm < AIF_WIRE_MODEL_MAX; wm++) {
		struct aif_rhost_params x = *tmpl;
		x.wire_model = wm;
		v->data_wire[wm] = aif_rhost_data_wire_bytes(&x, x.mtu, false);
		v->ack_wire[wm] = aif_rhost_ack_wire_bytes(&x);
	}
	v->mtu = tmpl->mtu;
	for (uint32_t i = 0; i < cfg->n_hosts; i++) {
		const struct aif_host_params *hp = &cfg->hosts[i];
		struct aif_port *port = &f->sw[hp->sw]->ports[hp->port];
		const struct aif_port_params *pp = &cfg->switches[hp->sw].ports[hp->port];
		if (hp->ip.family != AIF_AF_INET4 || pp->device[0] != '\0' ||
		    port->base != &aif_port_detached_ops ||
		    (skip != NULL && skip(hp->sw, hp->port, skip_arg)))
			continue;
		/* one host per port (a port may list an IPv6 address too) */
		bool taken = false;
		for (uint32_t k = 0; k < v->n && !taken; k++)
			taken = v->sw[k] == hp->sw && v->port[k] == hp->port;
		if (taken)
			continue;
		struct aif_rhost_params p = *tmpl;
		const struct aif_policy_params *pol = &cfg->policies[cfg->switches[hp->sw].policy];
		p.rate_bps = port_rate(cfg, hp->sw, hp->port);
		p.wire_model = cfg->wire_model; /* the fabric's edge as its links */
		if (tmpl->dcqcn && p.rate_bps != tmpl->dc.line_rate_bps &&
		    tmpl->dc.line_rate_bps != 0) {
			/* the increase steps scale with the line rate (as HPCC's
			 * defaults and ConWeave's run.py derive them from it) */
			double k = (double)p.rate_bps / (double)tmpl->dc.line_rate_bps;
			p.dc.line_rate_bps = p.rate_bps;
			p.dc.rai_bps = (uint64_t)((double)tmpl->dc.rai_bps * k + 0.5);
			p.dc.rhai_bps = (uint64_t)((double)tmpl->dc.rhai_bps * k + 0.5);
		}
		if (p.link_delay_ns == AIF_RHOST_LINK_DELAY_FABRIC)
			p.link_delay_ns = fabric_delay_ns(cfg);
		p.mac = hp->mac;
		p.gw_mac = port->dev_mac;
		p.ip = ip4(&hp->ip);
		p.seed = tmpl->seed * 1000003u + i + 1;
		for (unsigned d = 0; d < 64; d++)
			p.prio_of_dscp[d] = pol->qos.tc_to_pg[pol->dscp_to_tc[d] & 7];
		v->h[v->n] = aif_rhost_create(&p, pool, 1u << 20, err, err_len);
		if (v->h[v->n] == NULL) {
			char why[256];
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, err_len, "$.hosts[%u] (%s): %s", i, hp->name, why);
			aif_vhosts_free(v);
			return -1;
		}
		v->cfg_host[v->n] = i;
		v->sw[v->n] = hp->sw;
		v->port[v->n] = hp->port;
		if (p.rate_bps > v->rate_bps)
			v->rate_bps = p.rate_bps;
		aif_rhost_attach(v->h[v->n++], port);
	}
	if (paths(v, cfg) != 0)
		goto oom;
	/* each host's timeouts scale with its farthest peer's base RTT */
	for (uint32_t i = 0; i < v->n; i++) {
		aif_time_ns far = 0;
		for (uint32_t j = 0; j < v->n; j++)
			if (j != i)
				far = RTE_MAX(far, aif_vhosts_rtt(i, j, v));
		aif_rhost_set_base_rtt(v->h[i], far);
	}
	return 0;
oom:
	aif_vhosts_free(v);
	snprintf(err, err_len, "out of memory");
	return -1;
}

aif_time_ns
aif_vhosts_rtt(uint32_t a, uint32_t b, void *arg)
{
	const struct aif_vhosts *v = arg;
	size_t ab = (size_t)v->sw[a] * v->n_sw + v->sw[b], ba = (size_t)v->sw[b] * v->n_sw + v->sw[a];
	uint64_t ps = host_data_ps(v, a) + v->ow_data_ps[ab] + host_data_ps(v, b) +
		      host_ack_ps(v, b) + v->ow_ack_ps[ba] + host_ack_ps(v, a);

	/* each host's cable, both ways */
	return (ps + 999) / 1000 + v->ack_delay_ns +
	       2 * (aif_rhost_params(v->h[a])->link_delay_ns + aif_rhost_params(v->h[b])->link_delay_ns);
}

void
aif_vhosts_path(uint32_t a, uint32_t b, aif_time_ns *data_ns, aif_time_ns *ack_ns, void *arg)
{
	const struct aif_vhosts *v = arg;
	size_t ab = (size_t)v->sw[a] * v->n_sw + v->sw[b], ba = (size_t)v->sw[b] * v->n_sw + v->sw[a];
	aif_time_ns cables = aif_rhost_params(v->h[a])->link_delay_ns +
			     aif_rhost_params(v->h[b])->link_delay_ns;

	*data_ns = (host_data_ps(v, a) + v->ow_data_ps[ab] + host_data_ps(v, b)) / 1000 + cables;
	*ack_ns = (host_ack_ps(v, b) + v->ow_ack_ps[ba] + host_ack_ps(v, a)) / 1000 + cables;
}

void
aif_vhosts_ns3_path(uint32_t a, uint32_t b, struct aif_jobs_ns3_path *p, void *arg)
{
	const struct aif_vhosts *v = arg;
	size_t ab = (size_t)v->sw[a] * v->n_sw + v->sw[b];
	const struct aif_rhost_params *pa = aif_rhost_params(v->h[a]), *pb = aif_rhost_params(v->h[b]);

	p->prop_ns = pa->link_delay_ns + v->ow_prop_ns[ab] + pb->link_delay_ns;
	p->tx_ns = payload_ns(v->mtu, pa->rate_bps) + v->ow_tx_ns[ab] +
		   payload_ns(v->mtu, pb->rate_bps);
	p->rate_bps = RTE_MIN(RTE_MIN(pa->rate_bps, pb->rate_bps), v->ow_rate_bps[ab]);
	p->hops = 2 + v->ow_hops[ab];
}

static void
wake_one(void *arg)
{
	const struct aif_vhosts_wake *x = arg;
	aif_runner_wake(x->w, x->rxq);
}

int
aif_vhosts_wake_by(struct aif_vhosts *v, struct aif_runner *w)
{
	if (v->wake == NULL && (v->wake = calloc(v->n ? v->n : 1, sizeof(*v->wake))) == NULL)
		return -1;
	for (uint32_t i = 0; i < v->n; i++)
		for (uint16_t q = 0; q < w->n_rxq; q++) {
			const struct aif_port *p =
				&w->drive[w->rxq[q].drive].sw->ports[w->rxq[q].port];
			if (p->base == &aif_port_rhost_ops && p->ctx == v->h[i]) {
				v->wake[i] = (struct aif_vhosts_wake){ w, q };
				aif_rhost_set_waker(v->h[i], wake_one, &v->wake[i]);
				break;
			}
		}
	return 0;
}

int
aif_vhosts_find(const struct aif_vhosts *v, const struct aif_config *cfg, const char *name)
{
	for (uint32_t i = 0; i < v->n; i++)
		if (strcmp(cfg->hosts[v->cfg_host[i]].name, name) == 0)
			return (int)i;
	return -1;
}

void
aif_vhosts_free(struct aif_vhosts *v)
{
	for (uint32_t i = 0; v->h != NULL && i < v->n; i++)
		aif_rhost_free(v->h[i]);
	free(v->h);
	free(v->cfg_host);
	free(v->sw);
	free(v->port);
	free(v->ow_data_ps);
	free(v->ow_ack_ps);
	free(v->ow_prop_ns);
	free(v->ow_tx_ns);
	free(v->ow_rate_bps);
	free(v->ow_hops);
	free(v->wake);
	memset(v, 0, sizeof(*v));
}
