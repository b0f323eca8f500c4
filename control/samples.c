/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time series in virtual time (samples.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/link.h"
#include "../dataplane/qos.h"
#include "../dataplane/shard.h"
#include "../dataplane/switch.h"
#include "../hosts/rhost.h"
#include "commands.h"
#include "samples.h"
#include "vhosts.h"

struct qp_prev {
	uint64_t cnps, naks;
};

struct aif_samples {
	const struct aif_ctl *ctl;
	const struct aif_vhosts *v;
	FILE *links, *queues, *qps;
	aif_time_ns every_ns, next_ns, last_ns;
	uint64_t (*prev)[3];   /* [link * 2 + dir]: busy_ps, tx_bytes, tx_ctrl */
	uint64_t (*hprev)[4];  /* [host]: its wire bytes; the switch port's wire
				* bytes, packets, PFC frames */
	struct qp_prev **qprev; /* [host][qp] */
	uint32_t *n_qprev;
};

struct aif_samples *
aif_samples_open(const char *prefix, const struct aif_ctl *ctl, const struct aif_vhosts *v,
		 aif_time_ns every_ns, char *err, size_t err_len)
{
	char path[PATH_MAX];
	struct aif_samples *s = calloc(1, sizeof(*s));

	if (s == NULL)
		goto oom;
	s->ctl = ctl;
	s->v = v;
	s->every_ns = every_ns ? every_ns : 10 * AIF_NS_PER_US;
	s->prev = calloc((size_t)ctl->n_links * 2 + 1, sizeof(*s->prev));
	if (s->prev == NULL)
		goto oom;
	if (v != NULL && v->n > 0) {
		s->hprev = calloc(v->n, sizeof(*s->hprev));
		s->qprev = calloc(v->n, sizeof(*s->qprev));
		s->n_qprev = calloc(v->n, sizeof(*s->n_qprev));
		if (s->hprev == NULL || s->qprev == NULL || s->n_qprev == NULL)
			goto oom;
	}
	snprintf(path, sizeof(path), "%s-links.csv", prefix);
	if ((s->links = fopen(path, "w")) == NULL)
		goto io;
	snprintf(path, sizeof(path), "%s-queues.csv", prefix);
	if ((s->queues = fopen(path, "w")) == NULL)
		goto io;
	if (v != NULL) {
		snprintf(path, sizeof(path), "%s-qps.csv", prefix);
		if ((s->qps = fopen(path, "w")) == NULL)
			goto io;
		fprintf(s->qps, "time_us,host,qp,sport,rate_gbps,target_gbps,alpha,inflight_bytes,"
			"cnps,naks\n");
	}
	fprintf(s->links, "time_us,from,to,utilization,bytes,pauses\n");
	fprintf(s->queues, "time_us,switch,port,queue,bytes\n");
	return s;
io:
	snprintf(err, err_len, "%s: %s", path, strerror(errno));
	aif_samples_close(s, 0);
	return NULL;
oom:
	snprintf(err, err_len, "out of memory");
	aif_samples_close(s, 0);
	return NULL;
}

static void
fabric_links(struct aif_samples *sm, aif_time_ns t, double us, double span_ps)
{
	const struct aif_ctl *c = sm->ctl;

	for (uint32_t k = 0; k < c->n_links; k++)
		for (int d = 0; d < 2; d++) {
			const struct aif_link *l = c->links[k];
			const struct aif_link_ctr *x = &l->dir[d].ctr;
			uint64_t *p = sm->prev[k * 2 + d];
			const struct aif_port *a = l->end[d].port, *b = l->end[!d].port;
			if (t > sm->last_ns)
				fprintf(sm->links, "%.3f,%s:%s,%s:%s,%.4f,%" PRIu64 ",%" PRIu64 "\n", us,
					a->sw->name, a->name, b->sw->name, b->name,
					(double)(x->busy_ps - p[0]) / span_ps, x->tx_bytes - p[1],
					x->tx_ctrl - p[2]);
			p[0] = x->busy_ps, p[1] = x->tx_bytes, p[2] = x->tx_ctrl;
		}
}

/* The virtual hosts' edges, both ways, as the fabric's links. */
static void
edge_links(struct aif_samples *sm, aif_time_ns t, double us, double span_ps)
{
	const struct aif_vhosts *v = sm->v;
	const struct aif_ctl *c = sm->ctl;

	for (uint32_t i = 0; v != NULL && i < v->n; i++) {
		if (v->sw[i] >= c->n_sw)
			continue;
		const struct aif_switch *sw = c->sws[v->sw[i]];
		const struct aif_port *port = &sw->ports[v->port[i]];
		uint64_t rate = aif_rhost_params(v->h[i])->rate_bps;
		/* wire bytes both ways as the host's wire model counts them
		 * (the frames and link.h's overhead, or ns-3's) */
		const struct aif_rhost_ctr *hc = aif_rhost_ctr(v->h[i]);
		uint64_t up = hc->tx_wire_bytes, dn = hc->rx_wire_bytes, dn_p = 0, pfc = 0;
		for (uint16_t h = 0; h < sw->n_shards; h++)
			dn_p += sw->shards[h]->port_ctr[v->port[i]].tx_packets;
		if (sw->qos != NULL && v->port[i] < sw->qos->n_ports)
			pfc = sw->qos->port[v->port[i]].pfc_tx.ctr.tx_frames;
		uint64_t *p = sm->hprev[i];
		const char *hn = sm->ctl->cfg->hosts[v->cfg_host[i]].name;
		if (t > sm->last_ns && rate > 0) {
			double cap = (double)rate / 8 * span_ps / 1e12; /* bytes the span holds */
			fprintf(sm->links, "%.3f,%s,%s:%s,%.4f,%" PRIu64 ",0\n", us, hn, sw->name,
				port->name, (double)(up - p[0]) / cap, up - p[0]);
			fprintf(sm->links, "%.3f,%s:%s,%s,%.4f,%" PRIu64 ",%" PRIu64 "\n", us,
				sw->name, port->name, hn, (double)(dn - p[1]) / cap, dn - p[1],
				pfc - p[3]);
		}
		p[0] = up, p[1] = dn, p[2] = dn_p, p[3] = pfc;
	}
}

static void
queues(struct aif_samples *sm, double us)
{
	const struct aif_ctl *c = sm->ctl;

	for (uint16_t s = 0; s < c->n_sw; s++) {
		const struct aif_switch *sw = c->sws[s];
		const struct aif_qos *q = sw->qos;
		for (uint16_t p = 0; q != NULL && p < q->n_ports; p++)
			for (unsigned k = 0; k < AIF_QOS_NQ; k++)
				if (q->mmu.port[p].queue_bytes[k] != 0)
					fprintf(sm->queues, "%.3f,%s,%s,%u,%u\n", us, sw->name,
						sw->ports[p].name, k, q->mmu.port[p].queue_bytes[k]);
	}
}

static void
qps(struct aif_samples *sm, aif_time_ns t, double us)
{
	const struct aif_vhosts *v = sm->v;

	for (uint32_t i = 0; v != NULL && i < v->n; i++) {
		const struct aif_rhost *h = v->h[i];
		uint32_t n = aif_rhost_n_qps(h);
		if (n > sm->n_qprev[i]) {
			struct qp_prev *x = realloc(sm->qprev[i], n * sizeof(*x));
			if (x == NULL)
				continue;
			memset(x + sm->n_qprev[i], 0, (n - sm->n_qprev[i]) * sizeof(*x));
			sm->qprev[i] = x;
			sm->n_qprev[i] = n;
		}
		const char *hn = sm->ctl->cfg->hosts[v->cfg_host[i]].name;
		for (uint32_t q = 0; q < n; q++) {
			const struct aif_rhost_qp_ctr *c = aif_rhost_qp_ctr(h, q);
			struct qp_prev *p = &sm->qprev[i][q];
			struct aif_rhost_qp_state st;
			if (aif_rhost_qp_state(h, q, t, &st) != 0)
				continue;
			uint64_t dc = c->cnps_rx - p->cnps, dn = c->naks_rx - p->naks;
			if (t > sm->last_ns && (st.inflight_pkts || st.unsent_pkts || dc || dn))
				fprintf(sm->qps, "%.3f,%s,%u,%u,%.4f,%.4f,%.5f,%" PRIu64 ",%" PRIu64
					",%" PRIu64 "\n", us, hn, q, aif_rhost_qp_sport(h, q),
					st.rate_bps / 1e9, st.target_bps / 1e9, st.alpha,
					st.inflight_bytes, dc, dn);
			p->cnps = c->cnps_rx;
			p->naks = c->naks_rx;
		}
	}
}

static void
take(struct aif_samples *sm, aif_time_ns t)
{
	double us = (double)t / 1e3, span_ps = (double)(t - sm->last_ns) * 1e3;

	fabric_links(sm, t, us, span_ps);
	edge_links(sm, t, us, span_ps);
	queues(sm, us);
	if (sm->qps != NULL)
		qps(sm, t, us);
	sm->last_ns = t;
}

void
aif_samples_take(struct aif_samples *sm, aif_time_ns t)
{
	if (t < sm->next_ns)
		return;
	take(sm, t);
	sm->next_ns = (t / sm->every_ns + 1) * sm->every_ns;
}

int
aif_samples_close(struct aif_samples *sm, aif_time_ns end_ns)
{
	int bad = 0;

	if (sm == NULL)
		return 0;
	if (sm->links != NULL && sm->queues != NULL && end_ns > sm->last_ns)
		take(sm, end_ns);
	if (sm->links != NULL)
		bad |= fclose(sm->links) != 0;
	if (sm->queues != NULL)
		bad |= fclose(sm->queues) != 0;
	if (sm->qps != NULL)
		bad |= fclose(sm->qps) != 0;
	for (uint32_t i = 0; sm->qprev != NULL && i < sm->v->n; i++)
		free(sm->qprev[i]);
	free(sm->qprev);
	free(sm->n_qprev);
	free(sm->hprev);
	free(sm->prev);
	free(sm);
	return bad ? -1 : 0;
}
