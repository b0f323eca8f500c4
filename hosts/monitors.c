/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pfc.txt and qlen.txt as ns-3 writes them (monitors.h).
 *
 * The PFC hooks run on the runner that receives the frames; in virtual
 * time that is the one thread, so the event log needs no lock.  In real
 * time nobody installs them (main.c: --virtual-time only).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../control/commands.h"
#include "../dataplane/qos.h"
#include "../dataplane/switch.h"
#include "monitors.h"
#include "rhost.h"
#include "vhosts.h"

struct pfc_ev {
	aif_time_ns at_ns;
	uint32_t node;
	uint16_t ifindex;
	uint8_t type;       /* 1 pause, 0 resume */
	uint8_t is_switch;
};

/* What a hook knows of the device it listens on. */
struct hook {
	struct aif_monitors *m;
	uint32_t node;
	uint16_t ifindex;
	uint8_t is_switch;
};

struct hist {
	uint32_t *cnt;      /* by KB */
	uint32_t n, cap;
};

struct aif_monitors {
	struct aif_monitor_params p;
	const struct aif_ctl *ctl;
	struct aif_vhosts *v;
	uint32_t n_hosts;
	struct hook *hooks;
	uint32_t n_hooks;
	struct pfc_ev *ev;
	size_t n_ev, cap_ev;
	bool ev_oom;        /* an event was lost for memory */
	/* qlen: per switch s, port p: hist[port0[s] + p] */
	uint32_t *port0;
	struct hist *hist;
	aif_time_ns next_ns;
	char *dumps;        /* the 100-ms dumps so far */
	size_t dumps_len;
	FILE *dumps_f;
};

void
aif_monitor_params_default(struct aif_monitor_params *p)
{
	memset(p, 0, sizeof(*p));
	p->pfc = true;
	p->qlen = true;
	p->qlen_interval_ns = 100;
}

static void
on_pfc(void *arg, aif_time_ns now_ns, bool pause)
{
	struct hook *h = arg;
	struct aif_monitors *m = h->m;

	if (m->n_ev == m->cap_ev) {
		size_t cap = m->cap_ev ? 2 * m->cap_ev : 1024;
		struct pfc_ev *x = realloc(m->ev, cap * sizeof(*x));
		if (x == NULL) {
			m->ev_oom = true;
			return;
		}
		m->ev = x;
		m->cap_ev = cap;
	}
	m->ev[m->n_ev++] = (struct pfc_ev){ now_ns, h->node, h->ifindex, pause ? 1 : 0,
					    h->is_switch };
}

struct aif_monitors *
aif_monitors_create(const struct aif_monitor_params *p, const struct aif_ctl *ctl,
		    struct aif_vhosts *v)
{
	struct aif_monitors *m = calloc(1, sizeof(*m));
	uint32_t n_ports = 0;

	if (m == NULL)
		return NULL;
	m->p = *p;
	if (m->p.qlen_interval_ns == 0)
		m->p.qlen_interval_ns = 100;
	m->ctl = ctl;
	m->v = v;
	m->n_hosts = v != NULL ? v->n : 0;
	m->port0 = calloc(ctl->n_sw + 1u, sizeof(*m->port0));
	if (m->port0 == NULL)
		goto oom;
	for (uint16_t s = 0; s < ctl->n_sw; s++) {
		m->port0[s] = n_ports;
		n_ports += ctl->sws[s]->n_ports;
	}
	m->port0[ctl->n_sw] = n_ports;
	if (p->pfc) {
		m->hooks = calloc(n_ports + m->n_hosts + 1u, sizeof(*m->hooks));
		if (m->hooks == NULL)
			goto oom;
		for (uint32_t i = 0; i < m->n_hosts; i++) {
			struct hook *h = &m->hooks[m->n_hooks++];
			*h = (struct hook){ m, i, 1, 0 };
			aif_rhost_set_pfc_log(v->h[i], on_pfc, h);
		}
		for (uint16_t s = 0; s < ctl->n_sw; s++) {
			struct aif_qos *q = ctl->sws[s]->qos;
			for (uint16_t k = 0; q != NULL && k < q->n_ports; k++) {
				struct hook *h = &m->hooks[m->n_hooks++];
				*h = (struct hook){ m, m->n_hosts + s, (uint16_t)(k + 1), 1 };
				q->port[k].pfc_rx.log = on_pfc;
				q->port[k].pfc_rx.log_arg = h;
			}
		}
	}
	if (p->qlen) {
		m->hist = calloc(n_ports + 1u, sizeof(*m->hist));
		m->dumps_f = open_memstream(&m->dumps, &m->dumps_len);
		if (m->hist == NULL || m->dumps_f == NULL)
			goto oom;
		m->next_ns = m->p.qlen_start_ns;
	} else {
		m->next_ns = AIF_TIME_NS_NEVER;
	}
	return m;
oom:
	aif_monitors_free(m);
	return NULL;
}

aif_time_ns
aif_monitors_next_ns(const struct aif_monitors *m)
{
	return m->next_ns;
}

static void
hist_add(struct hist *h, uint32_t kb)
{
	if (kb >= h->cap) {
		uint32_t cap = h->cap ? h->cap : 16;
		while (cap <= kb)
			cap *= 2;
		uint32_t *x = realloc(h->cnt, cap * sizeof(*x));
		if (x == NULL)
			return; /* the sample is lost, nothing else */
		memset(x + h->cap, 0, (cap - h->cap) * sizeof(*x));
		h->cnt = x;
		h->cap = cap;
	}
	h->cnt[kb]++;
	if (kb + 1 > h->n)
		h->n = kb + 1;
}

static void
dump(const struct aif_monitors *m, FILE *f, aif_time_ns t)
{
	const struct aif_ctl *c = m->ctl;

	fprintf(f, "time: %" PRIu64 "\n", t + m->p.time_offset_ns);
	for (uint16_t s = 0; s < c->n_sw; s++)
		for (uint32_t k = 0; k < c->sws[s]->n_ports; k++) {
			const struct hist *h = &m->hist[m->port0[s] + k];
			fprintf(f, "%u %u", m->n_hosts + s, k + 1);
			for (uint32_t i = 0; i < h->n; i++)
				fprintf(f, " %u", h->cnt[i]);
			fputc('\n', f);
		}
}

void
aif_monitors_sample(struct aif_monitors *m, aif_time_ns t)
{
	const struct aif_ctl *c = m->ctl;

	if (m->hist == NULL || t < m->next_ns)
		return;
	if (m->p.qlen_end_ns != 0 && t > m->p.qlen_end_ns) {
		m->next_ns = AIF_TIME_NS_NEVER;
		return;
	}
	for (uint16_t s = 0; s < c->n_sw; s++) {
		const struct aif_qos *q = c->sws[s]->qos;
		for (uint16_t k = 0; k < c->sws[s]->n_ports; k++) {
			uint64_t b = 0;
			for (unsigned i = 0; q != NULL && k < q->n_ports && i < AIF_QOS_NQ; i++)
				b += q->mmu.port[k].queue_bytes[i];
			hist_add(&m->hist[m->port0[s] + k], (uint32_t)(b / 1000));
		}
	}
	if ((t + m->p.time_offset_ns) % AIF_MONITOR_QLEN_DUMP_NS == 0)
		dump(m, m->dumps_f, t);
	/* the next on the grid from start */
	aif_time_ns iv = m->p.qlen_interval_ns;
	m->next_ns = m->p.qlen_start_ns + ((t - m->p.qlen_start_ns) / iv + 1) * iv;
}

uint64_t
aif_monitors_pfc_events(const struct aif_monitors *m)
{
	return m->n_ev;
}

static int
cmp_ev(const void *a, const void *b)
{
	const struct pfc_ev *x = a, *y = b;

	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return 0;
}

int
aif_monitors_write(const struct aif_monitors *m, const char *dir, aif_time_ns end_ns,
		   char *err, size_t err_len)
{
	char path[PATH_MAX];
	FILE *f;
	int bad = 0;

	if (m->p.pfc) {
		snprintf(path, sizeof(path), "%s/pfc.txt", dir);
		if ((f = fopen(path, "w")) == NULL)
			goto io;
		/* qsort is not stable: node and ifindex break ties, and one
		 * device logs one frame per instant at most in order anyway */
		struct pfc_ev *e = malloc((m->n_ev ? m->n_ev : 1) * sizeof(*e));
		if (e == NULL) {
			fclose(f);
			snprintf(err, err_len, "%s: out of memory", path);
			return -1;
		}
		if (m->n_ev)
			memcpy(e, m->ev, m->n_ev * sizeof(*e));
		qsort(e, m->n_ev, sizeof(*e), cmp_ev);
		for (size_t i = 0; i < m->n_ev; i++)
			fprintf(f, "%" PRIu64 " %u %u %u %u\n", e[i].at_ns + m->p.time_offset_ns,
				e[i].node, e[i].is_switch, e[i].ifindex, e[i].type);
		free(e);
		bad |= fclose(f) != 0;
		if (m->ev_oom) {
			snprintf(err, err_len, "%s: events lost (out of memory)", path);
			return -1;
		}
	}
	if (m->hist != NULL) {
		snprintf(path, sizeof(path), "%s/qlen.txt", dir);
		if ((f = fopen(path, "w")) == NULL)
			goto io;
		fflush(m->dumps_f);
		if (m->dumps_len)
			fwrite(m->dumps, 1, m->dumps_len, f);
		dump(m, f, end_ns);
		bad |= fclose(f) != 0;
	}
	if (bad)
		goto io;
	return 0;
io:
	snprintf(err, err_len, "%s: %s", path, errno ? strerror(errno) : "could not write");
	return -1;
}

void
aif_monitors_free(struct aif_monitors *m)
{
	if (m == NULL)
		return;
	/* the hooks stay where they are: the switches and hosts go first */
	for (uint32_t i = 0; m->hist != NULL && m->port0 != NULL && i < m->port0[m->ctl->n_sw]; i++)
		free(m->hist[i].cnt);
	if (m->dumps_f != NULL)
		fclose(m->dumps_f);
	free(m->dumps);
	free(m->hist);
	free(m->hooks);
	free(m->ev);
	free(m->port0);
	free(m);
}
