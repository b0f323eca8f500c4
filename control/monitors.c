/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pfc.txt and qlen.txt as ns-3 writes them (monitors.h).
 *
 * The PFC hooks run on the runner that receives the frames: each device's
 * hook keeps its own log (in virtual time on several runners, devices on
 * different runners log at once), merged and sorted when written.  In
 * real time nobody installs them (main.c: --virtual-time only).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/qos.h"
#include "../dataplane/switch.h"
#include "../hosts/rhost.h"
#include "commands.h"
#include "monitors.h"
#include "vhosts.h"

struct pfc_ev {
	aif_time_ns at_ns;
	uint32_t node;
	uint16_t ifindex;
	uint8_t type;       /* 1 pause, 0 resume */
	uint8_t is_switch;
	uint32_t seq;       /* in its device's log */
};

/* What a hook knows of the device it listens on, and its log. */
struct hook {
	struct aif_monitors *m;
	uint32_t node;
	uint16_t ifindex;
	uint8_t is_switch;
	bool ev_oom;        /* an event was lost for memory */
	struct pfc_ev *ev;
	size_t n_ev, cap_ev;
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
	/* qlen: per switch s, port p: hist[port0[s] + p] */
	uint32_t *port0;
	struct hist *hist;
	/* per switch: samples taken while its buffer was empty, not yet in its
	 * ports' histograms (each a 0 KB sample of every port: zeros_flush);
	 * per port (as hist): its own 0 KB samples, taken while the switch's
	 * buffer held something, not yet in its histogram */
	uint64_t *zeros;
	uint64_t *pzeros;
	aif_time_ns next_ns;
	struct sw_dumps *dumps; /* per switch: its part of the 100-ms dumps so far */
};

/* A switch's lines of each 100-ms dump: its runner samples and writes
 * them (virtual time on several runners: each its own switches), and
 * they are put together when written. */
struct sw_dumps {
	char *buf;
	size_t len;
	FILE *f;
	aif_time_ns *at;   /* [n] the dumps' times */
	long *end;         /* [n] where each ends in buf */
	uint32_t n, cap;
	bool oom;
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

	if (h->n_ev == h->cap_ev) {
		size_t cap = h->cap_ev ? 2 * h->cap_ev : 64;
		struct pfc_ev *x = realloc(h->ev, cap * sizeof(*x));
		if (x == NULL) {
			h->ev_oom = true;
			return;
		}
		h->ev = x;
		h->cap_ev = cap;
	}
	h->ev[h->n_ev] = (struct pfc_ev){ now_ns, h->node, h->ifindex, pause ? 1 : 0,
					  h->is_switch, (uint32_t)h->n_ev };
	h->n_ev++;
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
			*h = (struct hook){ .m = m, .node = i, .ifindex = 1, .is_switch = 0 };
			aif_rhost_set_pfc_log(v->h[i], on_pfc, h);
		}
		for (uint16_t s = 0; s < ctl->n_sw; s++) {
			struct aif_qos *q = ctl->sws[s]->qos;
			for (uint16_t k = 0; q != NULL && k < q->n_ports; k++) {
				struct hook *h = &m->hooks[m->n_hooks++];
				*h = (struct hook){ .m = m, .node = m->n_hosts + s,
						    .ifindex = (uint16_t)(k + 1), .is_switch = 1 };
				q->port[k].pfc_rx.log = on_pfc;
				q->port[k].pfc_rx.log_arg = h;
			}
		}
	}
	if (p->qlen) {
		m->hist = calloc(n_ports + 1u, sizeof(*m->hist));
		m->dumps = calloc(ctl->n_sw + 1u, sizeof(*m->dumps));
		m->zeros = calloc(ctl->n_sw + 1u, sizeof(*m->zeros));
		m->pzeros = calloc(n_ports + 1u, sizeof(*m->pzeros));
		if (m->hist == NULL || m->dumps == NULL || m->zeros == NULL || m->pzeros == NULL)
			goto oom;
		for (uint16_t s = 0; s < ctl->n_sw; s++)
			if ((m->dumps[s].f = open_memstream(&m->dumps[s].buf, &m->dumps[s].len)) == NULL)
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

/* Switch s's 0 KB samples not yet counted (its empty samples, each
 * port's own) into its ports' histograms, as hist_add(h, 0) each would
 * have put them: before a histogram is read. */
static void
zeros_flush(struct aif_monitors *m, uint16_t s)
{
	uint64_t z = m->zeros[s];

	m->zeros[s] = 0;
	for (uint32_t k = m->port0[s]; k < m->port0[s + 1]; k++) {
		uint64_t n = z + m->pzeros[k];
		if (n == 0)
			continue;
		m->pzeros[k] = 0;
		struct hist *h = &m->hist[k];
		hist_add(h, 0); /* one, with its room */
		if (h->cap != 0) /* (else out of memory: the samples are lost) */
			h->cnt[0] += (uint32_t)(n - 1);
	}
}

/* Switch s's lines of a dump. */
static void
dump_sw(struct aif_monitors *m, FILE *f, uint16_t s)
{
	const struct aif_ctl *c = m->ctl;

	zeros_flush(m, s);
	for (uint32_t k = 0; k < c->sws[s]->n_ports; k++) {
		const struct hist *h = &m->hist[m->port0[s] + k];
		fprintf(f, "%u %u", m->n_hosts + s, k + 1);
		for (uint32_t i = 0; i < h->n; i++)
			fprintf(f, " %u", h->cnt[i]);
		fputc('\n', f);
	}
}

static void
dump(struct aif_monitors *m, FILE *f, aif_time_ns t)
{
	fprintf(f, "time: %" PRIu64 "\n", t + m->p.time_offset_ns);
	for (uint16_t s = 0; s < m->ctl->n_sw; s++)
		dump_sw(m, f, s);
}

void
aif_monitors_qlen_take(struct aif_monitors *m, aif_time_ns t, uint16_t s)
{
	const struct aif_qos *q = m->ctl->sws[s]->qos;

	if (m->hist == NULL)
		return;
	if (q == NULL || q->mmu.used_bytes == 0) {
		/* nothing queued anywhere (a queue's bytes are in the buffer's
		 * count): every port's sample is 0, added when next read; on a
		 * k=28 fat-tree whose few busy switches sample 27,440 ports every
		 * 100 ns, this was the run's largest cost */
		m->zeros[s]++;
	} else {
		/* a port with nothing queued (its bytes, all queues and those
		 * outside the buffer: none) or under a KB counts a 0 KB sample,
		 * added when next read; on a busy fabric most of a busy switch's
		 * ports every 100 ns (3.5% of a k=40 fat-tree's run) */
		uint64_t *pz = &m->pzeros[m->port0[s]];
		for (uint16_t k = 0; k < m->ctl->sws[s]->n_ports; k++) {
			uint64_t b = 0;
			if (k < q->n_ports && q->mmu.port_bytes[k] != 0)
				for (unsigned i = 0; i < AIF_QOS_NQ; i++)
					b += q->mmu.port[k].queue_bytes[i];
			if (b < 1000)
				pz[k]++;
			else
				hist_add(&m->hist[m->port0[s] + k], (uint32_t)(b / 1000));
		}
	}
	if ((t + m->p.time_offset_ns) % AIF_MONITOR_QLEN_DUMP_NS != 0)
		return;
	struct sw_dumps *d = &m->dumps[s];
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? 2 * d->cap : 8;
		aif_time_ns *at = realloc(d->at, cap * sizeof(*at));
		if (at != NULL)
			d->at = at;
		long *end = realloc(d->end, cap * sizeof(*end));
		if (end != NULL)
			d->end = end;
		if (at == NULL || end == NULL) {
			d->oom = true;
			return;
		}
		d->cap = cap;
	}
	dump_sw(m, d->f, s);
	d->at[d->n] = t;
	d->end[d->n++] = ftell(d->f);
}

aif_time_ns
aif_monitors_qlen_first_ns(const struct aif_monitors *m)
{
	return m->hist != NULL ? m->p.qlen_start_ns : AIF_TIME_NS_NEVER;
}

aif_time_ns
aif_monitors_qlen_after(const struct aif_monitors *m, aif_time_ns t)
{
	/* the next on the grid from start */
	aif_time_ns iv = m->p.qlen_interval_ns;
	return m->p.qlen_start_ns + ((t - m->p.qlen_start_ns) / iv + 1) * iv;
}

bool
aif_monitors_qlen_over(const struct aif_monitors *m, aif_time_ns t)
{
	return m->p.qlen_end_ns != 0 && t > m->p.qlen_end_ns;
}

void
aif_monitors_sample(struct aif_monitors *m, aif_time_ns t)
{
	if (m->hist == NULL || t < m->next_ns)
		return;
	if (aif_monitors_qlen_over(m, t)) {
		m->next_ns = AIF_TIME_NS_NEVER;
		return;
	}
	for (uint16_t s = 0; s < m->ctl->n_sw; s++)
		aif_monitors_qlen_take(m, t, s);
	m->next_ns = aif_monitors_qlen_after(m, t);
}

uint64_t
aif_monitors_pfc_events(const struct aif_monitors *m)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < m->n_hooks; i++)
		n += m->hooks[i].n_ev;
	return n;
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
	if (x->is_switch != y->is_switch)
		return x->is_switch < y->is_switch ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int
aif_monitors_share_pfc(struct aif_monitors *m, int (*owner)(void *arg, bool is_switch, uint32_t i),
		       void (*bcast)(void *buf, size_t len, int root, void *arg), void *arg)
{
	for (uint32_t i = 0; i < m->n_hooks; i++) {
		struct hook *h = &m->hooks[i];
		int root = owner(arg, h->is_switch != 0, h->is_switch ? h->node - m->n_hosts : h->node);
		uint64_t n = h->n_ev, oom = h->ev_oom;
		bcast(&n, sizeof(n), root, arg);
		bcast(&oom, sizeof(oom), root, arg);
		if (n > h->cap_ev) {
			struct pfc_ev *x = realloc(h->ev, n * sizeof(*x));
			if (x == NULL)
				return -1; /* (the processes part here: the run is over) */
			h->ev = x;
			h->cap_ev = n;
		}
		h->n_ev = n;
		h->ev_oom = oom != 0;
		if (n)
			bcast(h->ev, n * sizeof(*h->ev), root, arg);
	}
	return 0;
}

int
aif_monitors_share_qlen(struct aif_monitors *m, int (*owner)(void *arg, bool is_switch, uint32_t i),
			void (*bcast)(void *buf, size_t len, int root, void *arg), void *arg)
{
	if (m->hist == NULL)
		return 0;
	for (uint16_t s = 0; s < m->ctl->n_sw; s++)
		zeros_flush(m, s); /* (the owner's; the others have none) */
	for (uint16_t s = 0; s < m->ctl->n_sw; s++) {
		int root = owner(arg, true, s);
		struct sw_dumps *d = &m->dumps[s];
		fflush(d->f);
		uint64_t hdr[3] = { d->len, d->n, d->oom };
		bcast(hdr, sizeof(hdr), root, arg);
		/* the owner's dumps: its bytes, times and ends (the others have none) */
		char *bytes = malloc(hdr[0] ? hdr[0] : 1);
		aif_time_ns *at = malloc((hdr[1] ? hdr[1] : 1) * sizeof(*at));
		long *end = malloc((hdr[1] ? hdr[1] : 1) * sizeof(*end));
		if (bytes == NULL || at == NULL || end == NULL) {
			free(bytes);
			free(at);
			free(end);
			return -1; /* (the processes part here: the run is over) */
		}
		if (d->len)
			memcpy(bytes, d->buf, RTE_MIN((size_t)hdr[0], d->len));
		if (d->n) {
			memcpy(at, d->at, RTE_MIN(hdr[1], (uint64_t)d->n) * sizeof(*at));
			memcpy(end, d->end, RTE_MIN(hdr[1], (uint64_t)d->n) * sizeof(*end));
		}
		bcast(bytes, hdr[0], root, arg);
		bcast(at, hdr[1] * sizeof(*at), root, arg);
		bcast(end, hdr[1] * sizeof(*end), root, arg);
		rewind(d->f);
		fwrite(bytes, 1, hdr[0], d->f);
		fflush(d->f);
		free(bytes);
		free(d->at);
		free(d->end);
		d->at = at;
		d->end = end;
		d->n = d->cap = (uint32_t)hdr[1];
		d->oom = hdr[2] != 0;
		/* its ports' histograms */
		for (uint32_t k = m->port0[s]; k < m->port0[s + 1]; k++) {
			struct hist *h = &m->hist[k];
			uint32_t nc[2] = { h->n, h->cap };
			bcast(nc, sizeof(nc), root, arg);
			if (nc[1] > h->cap) {
				uint32_t *x = realloc(h->cnt, nc[1] * sizeof(*x));
				if (x == NULL)
					return -1;
				memset(x + h->cap, 0, (nc[1] - h->cap) * sizeof(*x));
				h->cnt = x;
				h->cap = nc[1];
			}
			h->n = nc[0];
			if (nc[0])
				bcast(h->cnt, nc[0] * sizeof(*h->cnt), root, arg);
		}
	}
	return 0;
}

int
aif_monitors_write(struct aif_monitors *m, const char *dir, aif_time_ns end_ns,
		   char *err, size_t err_len)
{
	char path[PATH_MAX];
	FILE *f;
	int bad = 0;

	if (m->p.pfc) {
		snprintf(path, sizeof(path), "%s/pfc.txt", dir);
		if ((f = fopen(path, "w")) == NULL)
			goto io;
		/* every device's log in order, sorted by time, device and
		 * then each device's own order: one order however many
		 * runners logged them */
		size_t n_ev = aif_monitors_pfc_events(m), k = 0;
		bool oom = false;
		struct pfc_ev *e = malloc((n_ev ? n_ev : 1) * sizeof(*e));
		if (e == NULL) {
			fclose(f);
			snprintf(err, err_len, "%s: out of memory", path);
			return -1;
		}
		for (uint32_t i = 0; i < m->n_hooks; i++) {
			if (m->hooks[i].n_ev)
				memcpy(e + k, m->hooks[i].ev, m->hooks[i].n_ev * sizeof(*e));
			k += m->hooks[i].n_ev;
			oom |= m->hooks[i].ev_oom;
		}
		qsort(e, n_ev, sizeof(*e), cmp_ev);
		for (size_t i = 0; i < n_ev; i++)
			fprintf(f, "%" PRIu64 " %u %u %u %u\n", e[i].at_ns + m->p.time_offset_ns,
				e[i].node, e[i].is_switch, e[i].ifindex, e[i].type);
		free(e);
		bad |= fclose(f) != 0;
		if (oom) {
			snprintf(err, err_len, "%s: events lost (out of memory)", path);
			return -1;
		}
	}
	if (m->hist != NULL) {
		snprintf(path, sizeof(path), "%s/qlen.txt", dir);
		if ((f = fopen(path, "w")) == NULL)
			goto io;
		/* the dumps, each switch's part of each in the switches' order */
		uint32_t n_dumps = m->ctl->n_sw ? m->dumps[0].n : 0;
		for (uint16_t s = 0; s < m->ctl->n_sw; s++) {
			fflush(m->dumps[s].f);
			if (m->dumps[s].oom || m->dumps[s].n != n_dumps) {
				fclose(f);
				snprintf(err, err_len, "%s: dumps lost (out of memory)", path);
				return -1;
			}
		}
		for (uint32_t k = 0; k < n_dumps; k++) {
			fprintf(f, "time: %" PRIu64 "\n", m->dumps[0].at[k] + m->p.time_offset_ns);
			for (uint16_t s = 0; s < m->ctl->n_sw; s++) {
				const struct sw_dumps *d = &m->dumps[s];
				long from = k ? d->end[k - 1] : 0;
				fwrite(d->buf + from, 1, (size_t)(d->end[k] - from), f);
			}
		}
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
	for (uint16_t s = 0; m->dumps != NULL && s < m->ctl->n_sw; s++) {
		if (m->dumps[s].f != NULL)
			fclose(m->dumps[s].f);
		free(m->dumps[s].buf);
		free(m->dumps[s].at);
		free(m->dumps[s].end);
	}
	free(m->dumps);
	free(m->zeros);
	free(m->pzeros);
	free(m->hist);
	for (uint32_t i = 0; m->hooks != NULL && i < m->n_hooks; i++)
		free(m->hooks[i].ev);
	free(m->hooks);
	free(m->port0);
	free(m);
}
