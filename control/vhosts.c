/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual RoCE hosts on a fabric's edge (vhosts.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/link.h"
#include "../dataplane/runner.h"
#include "paths.h"
#include "vhosts.h"


/* A full data packet's and an ACK's time on host h's wire, ps. */
static uint64_t
host_data_ps(const struct aif_vhosts *v, uint32_t h)
{
	const struct aif_rhost_params *p = aif_rhost_params(v->h[h]);
	return aif_paths_ser_ps(p->wire_model, v->data_wire[p->wire_model], p->rate_bps);
}

static uint64_t
host_ack_ps(const struct aif_vhosts *v, uint32_t h)
{
	const struct aif_rhost_params *p = aif_rhost_params(v->h[h]);
	return aif_paths_ser_ps(p->wire_model, v->ack_wire[p->wire_model], p->rate_bps);
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

/* Each host's timeouts scale with its farthest peer's base RTT, which
 * depends on the peer only through its switch, its wire times and its
 * cable (aif_vhosts_rtt): each kind of peer asked once (paths.h). */
static int
set_base_rtts(struct aif_vhosts *v)
{
	struct aif_peer_kind *k = malloc(sizeof(*k) * (v->n ? v->n : 1));
	aif_time_ns *far = malloc(sizeof(*far) * (v->n ? v->n : 1));
	int rc = -1;

	if (k != NULL && far != NULL) {
		for (uint32_t i = 0; i < v->n; i++)
			k[i] = (struct aif_peer_kind){
				.sw = v->sw[i], .host = i,
				.wire_ps = host_data_ps(v, i) + host_ack_ps(v, i),
				.cable_ns = aif_rhost_params(v->h[i])->link_delay_ns };
		rc = aif_paths_farthest(k, v->n, aif_vhosts_rtt, v, far);
		for (uint32_t i = 0; rc == 0 && i < v->n; i++)
			aif_rhost_set_base_rtt(v->h[i], far[i]);
	}
	free(k);
	free(far);
	return rc;
}

struct name_order {
	const struct aif_vhosts *v;
	const struct aif_config *cfg;
};

static int
by_name_cmp(const void *x, const void *y, void *arg)
{
	const struct name_order *o = arg;

	return strcmp(o->cfg->hosts[o->v->cfg_host[*(const uint32_t *)x]].name,
		      o->cfg->hosts[o->v->cfg_host[*(const uint32_t *)y]].name);
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
	/* the ports given a host so far, a word a switch */
	_Static_assert(AIF_MAX_PORTS <= 64, "a switch's ports in one word");
	uint64_t *taken = calloc(cfg->n_switches ? cfg->n_switches : 1, sizeof(*taken));
	if (taken == NULL)
		goto oom;
	aif_time_ns delay_ns = fabric_delay_ns(cfg);
	for (uint32_t i = 0; i < cfg->n_hosts; i++) {
		const struct aif_host_params *hp = &cfg->hosts[i];
		struct aif_port *port = &f->sw[hp->sw]->ports[hp->port];
		const struct aif_port_params *pp = &cfg->switches[hp->sw].ports[hp->port];
		if (hp->ip.family != AIF_AF_INET4 || pp->device[0] != '\0' ||
		    port->base != &aif_port_detached_ops ||
		    (skip != NULL && skip(hp->sw, hp->port, skip_arg)))
			continue;
		/* one host per port (a port may list an IPv6 address too) */
		if ((taken[hp->sw] >> hp->port) & 1)
			continue;
		taken[hp->sw] |= 1ull << hp->port;
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
			p.link_delay_ns = delay_ns;
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
			free(taken);
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
	free(taken);
	/* the paths between the switches with hosts */
	bool *ends = calloc(cfg->n_switches ? cfg->n_switches : 1, sizeof(*ends));
	if (ends == NULL)
		goto oom;
	for (uint32_t i = 0; i < v->n; i++)
		ends[v->sw[i]] = true;
	int rc = aif_paths_build(&v->paths, cfg, v->data_wire, v->ack_wire, v->mtu, false, ends);
	free(ends);
	if (rc != 0 || set_base_rtts(v) != 0 ||
	    (v->by_name = malloc(sizeof(*v->by_name) * cap)) == NULL)
		goto oom;
	/* by name, for jobs naming their hosts (a job of every host of a k=28
	 * fat-tree: 5,488 names against 5,488 hosts each) */
	for (uint32_t i = 0; i < v->n; i++)
		v->by_name[i] = i;
	struct name_order o = { v, cfg };
	qsort_r(v->by_name, v->n, sizeof(*v->by_name), by_name_cmp, &o);
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
	size_t ab = aif_paths_at(&v->paths, v->sw[a], v->sw[b]);
	size_t ba = aif_paths_at(&v->paths, v->sw[b], v->sw[a]);
	uint64_t ps = host_data_ps(v, a) + v->paths.data_ps[ab] + host_data_ps(v, b) +
		      host_ack_ps(v, b) + v->paths.ack_ps[ba] + host_ack_ps(v, a);

	/* each host's cable, both ways */
	return (ps + 999) / 1000 + v->ack_delay_ns +
	       2 * (aif_rhost_params(v->h[a])->link_delay_ns + aif_rhost_params(v->h[b])->link_delay_ns);
}

void
aif_vhosts_path(uint32_t a, uint32_t b, aif_time_ns *data_ns, aif_time_ns *ack_ns, void *arg)
{
	const struct aif_vhosts *v = arg;
	size_t ab = aif_paths_at(&v->paths, v->sw[a], v->sw[b]);
	size_t ba = aif_paths_at(&v->paths, v->sw[b], v->sw[a]);
	aif_time_ns cables = aif_rhost_params(v->h[a])->link_delay_ns +
			     aif_rhost_params(v->h[b])->link_delay_ns;

	*data_ns = (host_data_ps(v, a) + v->paths.data_ps[ab] + host_data_ps(v, b)) / 1000 + cables;
	*ack_ns = (host_ack_ps(v, b) + v->paths.ack_ps[ba] + host_ack_ps(v, a)) / 1000 + cables;
}

void
aif_vhosts_ns3_path(uint32_t a, uint32_t b, struct aif_jobs_ns3_path *p, void *arg)
{
	const struct aif_vhosts *v = arg;
	size_t ab = aif_paths_at(&v->paths, v->sw[a], v->sw[b]);
	const struct aif_rhost_params *pa = aif_rhost_params(v->h[a]), *pb = aif_rhost_params(v->h[b]);

	p->prop_ns = pa->link_delay_ns + v->paths.prop_ns[ab] + pb->link_delay_ns;
	p->tx_ns = aif_paths_payload_ns(v->mtu, pa->rate_bps) + v->paths.tx_ns[ab] +
		   aif_paths_payload_ns(v->mtu, pb->rate_bps);
	p->rate_bps = RTE_MIN(RTE_MIN(pa->rate_bps, pb->rate_bps), v->paths.rate_bps[ab]);
	p->hops = 2 + v->paths.hops[ab];
}

static void
wake_one(void *arg)
{
	const struct aif_vhosts_wake *x = arg;
	aif_runner_wake(x->w, x->rxq);
}

static int
by_ptr_cmp(const void *x, const void *y, void *arg)
{
	const struct aif_vhosts *v = arg;
	uintptr_t a = (uintptr_t)v->h[*(const uint32_t *)x], b = (uintptr_t)v->h[*(const uint32_t *)y];

	return a < b ? -1 : a > b;
}

/* The index of host h, or -1. */
static int
index_of(const struct aif_vhosts *v, const void *h)
{
	uint32_t lo = 0, hi = v->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uintptr_t m = (uintptr_t)v->h[v->by_ptr[mid]];
		if (m == (uintptr_t)h)
			return (int)v->by_ptr[mid];
		if (m < (uintptr_t)h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int
aif_vhosts_wake_by(struct aif_vhosts *v, struct aif_runner *w)
{
	if (v->wake == NULL && (v->wake = calloc(v->n ? v->n : 1, sizeof(*v->wake))) == NULL)
		return -1;
	if (v->by_ptr == NULL) {
		if ((v->by_ptr = malloc(sizeof(*v->by_ptr) * (v->n ? v->n : 1))) == NULL)
			return -1;
		for (uint32_t i = 0; i < v->n; i++)
			v->by_ptr[i] = i;
		qsort_r(v->by_ptr, v->n, sizeof(*v->by_ptr), by_ptr_cmp, v);
	}
	/* each host on this runner's RX queues: its first queue (the lowest
	 * written last) */
	for (uint16_t q = w->n_rxq; q-- > 0;) {
		const struct aif_port *p = &w->drive[w->rxq[q].drive].sw->ports[w->rxq[q].port];
		int i = p->base == &aif_port_rhost_ops ? index_of(v, p->ctx) : -1;
		if (i < 0)
			continue;
		v->wake[i] = (struct aif_vhosts_wake){ w, q };
		aif_rhost_set_waker(v->h[i], wake_one, &v->wake[i]);
	}
	return 0;
}

int
aif_vhosts_find(const struct aif_vhosts *v, const struct aif_config *cfg, const char *name)
{
	uint32_t lo = 0, hi = v->n; /* by_name[lo..hi) may hold it */

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(cfg->hosts[v->cfg_host[v->by_name[mid]]].name, name);
		if (c == 0)
			return (int)v->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void
aif_vhosts_free(struct aif_vhosts *v)
{
	for (uint32_t i = 0; v->h != NULL && i < v->n; i++)
		aif_rhost_free(v->h[i]);
	free(v->h);
	free(v->cfg_host);
	free(v->by_name);
	free(v->sw);
	free(v->port);
	aif_paths_free(&v->paths);
	free(v->wake);
	free(v->by_ptr);
	memset(v, 0, sizeof(*v));
}
