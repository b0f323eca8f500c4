/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtual-time loop (vtime.h).
 *
 * The runner is stepped one switch at a time: each switch keeps its next
 * event (aif_runner_drive_next_ns), the loop steps the earliest (the first
 * in drive order on a tie) and then asks again only that switch and the
 * switches at the far ends of its links (what it sent may arrive there
 * sooner than their next event).  A step costs the ports of one switch, not
 * of the fabric.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/capture.h"
#include "../dataplane/clock.h"
#include "../dataplane/link.h"
#include "../dataplane/switch.h"
#include "../dataplane/runner.h"
#include "commands.h"
#include "ctl_server.h"
#include "vtime.h"

/* Control's periodic work at virtual time t. */
static void
control_tick(struct aif_ctl *c, aif_time_ns t, aif_time_ns *next_age)
{
	for (uint16_t i = 0; i < c->n_sw; i++) {
		aif_switch_learn(c->sws[i], t);
		aif_capture_poll(c->sws[i]);
	}
	if (t >= *next_age) {
		for (uint16_t i = 0; i < c->n_sw; i++)
			aif_switch_age_neighbors(c->sws[i], t);
		*next_age = t + AIF_NEIGH_AGE_NS;
	}
}

/* A scheduled control request: as a client's, its refusal said on stderr,
 * its success on stdout (one line: the command and its result). */
static void
request(struct aif_ctl *c, const char *line, aif_time_ns now)
{
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, c);
	json_t *j = reply != NULL ? json_loads(reply, 0, NULL) : NULL;
	json_t *req = json_loads(line, 0, NULL);
	const char *cmd = json_string_value(json_object_get(req, "cmd"));

	if (json_is_true(json_object_get(j, "ok"))) {
		char *r = json_dumps(json_object_get(j, "result"), JSON_COMPACT);
		printf("at %.9f s: %s: %s\n", (double)now / 1e9, cmd ? cmd : "?", r ? r : "");
		free(r);
	} else {
		const char *e = json_string_value(json_object_get(j, "error"));
		fprintf(stderr, "at %.9f s: %s: %s\n", (double)now / 1e9, cmd ? cmd : "?",
			e != NULL ? e : "(no reply)");
	}
	json_decref(req);
	json_decref(j);
	free(reply);
}

/* Per drive: the drives at the far ends of its links, and those ends. */
struct peers {
	uint32_t *first; /* [n_drive + 1] into list */
	uint16_t *list;
	const struct aif_link_end **far; /* the far end of each */
	uint16_t *far_rxq;               /* and its RX queue */
	uint16_t *port;                  /* the near end's port */
};

static int
peers_build(struct peers *pe, const struct aif_runner *w)
{
	uint32_t n = 0, k = 0;

	for (uint16_t d = 0; d < w->n_drive; d++)
		n += w->drive[d].sw->n_ports;
	pe->first = calloc((size_t)w->n_drive + 1, sizeof(*pe->first));
	pe->list = calloc(n ? n : 1, sizeof(*pe->list));
	pe->far = calloc(n ? n : 1, sizeof(*pe->far));
	pe->far_rxq = calloc(n ? n : 1, sizeof(*pe->far_rxq));
	pe->port = calloc(n ? n : 1, sizeof(*pe->port));
	if (pe->first == NULL || pe->list == NULL || pe->far == NULL || pe->far_rxq == NULL ||
	    pe->port == NULL)
		return -1;
	for (uint16_t d = 0; d < w->n_drive; d++) {
		const struct aif_switch *sw = w->drive[d].sw;
		pe->first[d] = k;
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			if (sw->ports[p].base != &aif_port_link_ops)
				continue;
			const struct aif_link_end *e = sw->ports[p].ctx;
			const struct aif_port *far = e->link->end[!e->side].port;
			for (uint16_t x = 0; far != NULL && x < w->n_drive; x++)
				if (w->drive[x].sw == far->sw && x != d) {
					uint16_t r = 0;
					while (r < w->n_rxq && !(w->rxq[r].drive == x &&
								 w->rxq[r].port == far->index))
						r++;
					if (r == w->n_rxq)
						break; /* not polled: nothing to tell */
					pe->far[k] = &e->link->end[!e->side];
					pe->far_rxq[k] = r;
					pe->port[k] = p;
					pe->list[k++] = x;
					break;
				}
		}
	}
	pe->first[w->n_drive] = k;
	return 0;
}

void
aif_vtime_wake(struct aif_vtime *v, uint32_t rxq)
{
	if (v->n_woken == v->cap_woken) {
		uint32_t cap = v->cap_woken ? 2 * v->cap_woken : 64;
		uint32_t *x = realloc(v->woken, sizeof(*x) * cap);
		if (x == NULL)
			return; /* asked again at the next control tick anyway */
		v->woken = x;
		v->cap_woken = cap;
	}
	v->woken[v->n_woken++] = rxq;
}

/* The woken queues: their drives' next events again. */
static void
woken_next(struct aif_vtime *v, aif_time_ns *next, aif_time_ns now)
{
	struct aif_runner *w = v->w;

	for (uint32_t i = 0; i < v->n_woken; i++) {
		uint32_t q = v->woken[i];
		if (q >= w->n_rxq)
			continue;
		uint16_t d = w->rxq[q].drive;
		aif_runner_rxq_stale(w, (uint16_t)q);
		next[d] = aif_runner_drive_next_ns(w, d, now);
	}
	v->n_woken = 0;
}

static void
all_next(struct aif_runner *w, aif_time_ns *next, aif_time_ns now)
{
	aif_runner_rxq_stale_all(w);
	for (uint16_t d = 0; d < w->n_drive; d++)
		next[d] = aif_runner_drive_next_ns(w, d, now);
}

aif_time_ns
aif_vtime_run(struct aif_vtime *v)
{
	struct aif_ctl *c = v->ctl;
	struct aif_runner *w = v->w;
	aif_time_ns now = aif_clock_now(&c->clock);
	aif_time_ns next_ctl = now, next_age = now + AIF_NEIGH_AGE_NS;
	aif_time_ns next_sample = v->sample != NULL && v->sample_ns > 0 ? now : AIF_TIME_NS_NEVER;
	aif_time_ns next_progress = v->progress != NULL ? now + v->progress_ns : AIF_TIME_NS_NEVER;
	uint64_t since_check = 0;
	unsigned next_action = 0;
	aif_time_ns *next = calloc(w->n_drive ? w->n_drive : 1, sizeof(*next));
	struct peers pe = { 0 };

	if (next == NULL || peers_build(&pe, w) != 0) {
		fprintf(stderr, "virtual time: out of memory\n");
		goto out;
	}
	while (next_action < v->n_actions && v->actions[next_action].at_ns < now)
		next_action++; /* in the past: not done */
	all_next(w, next, now);
	for (;;) {
		/* the earliest switch */
		uint16_t dmin = 0;
		aif_time_ns t = AIF_TIME_NS_NEVER;
		for (uint16_t d = 0; d < w->n_drive; d++)
			if (next[d] < t) {
				t = next[d];
				dmin = d;
			}
		/* a scheduled action first, at its own time */
		if (next_action < v->n_actions) {
			const struct aif_vtime_action *a = &v->actions[next_action];
			if (a->at_ns <= next_ctl && a->at_ns <= t && a->at_ns <= v->end_ns) {
				char err[256];
				now = a->at_ns;
				aif_clock_set(&c->clock, now);
				if (a->request != NULL)
					request(c, a->request, now);
				else if (aif_ctl_link_set(c, a->link, a->up, a->loss_rate,
							  a->corrupt_rate, now, err, sizeof(err)) != 0)
					fprintf(stderr, "at %.9f s: link %s: %s\n", (double)now / 1e9,
						c->links[a->link]->name, err);
				next_action++;
				v->n_woken = 0;
				all_next(w, next, now);
				continue;
			}
		}
		/* only periodic work ahead (PFC refresh, bands, control), or
		 * now and then: is anything left to come? */
		if (t > next_ctl || ++since_check >= AIF_VTIME_IDLE_CHECK_STEPS) {
			since_check = 0;
			if ((v->stop != NULL && *v->stop) ||
			    (v->idle != NULL && v->idle(v->idle_arg)))
				break;
		}
		if (next_sample <= t && next_sample <= next_ctl) {
			/* a sample: before the switches' events at that time */
			if (next_sample > v->end_ns)
				break;
			now = next_sample;
			aif_clock_set(&c->clock, now);
			v->sample(now, v->sample_arg);
			next_sample = now + v->sample_ns;
			v->n_woken = 0; /* (samples change nothing) */
			continue;
		}
		if (next_ctl <= t) {
			/* control's turn first: at its own time, then the switches */
			if (next_ctl > v->end_ns)
				break;
			now = next_ctl;
			aif_clock_set(&c->clock, now);
			control_tick(c, now, &next_age);
			next_ctl = now + AIF_VTIME_CONTROL_NS;
			v->n_woken = 0;
			all_next(w, next, now);
			continue;
		}
		if (t > v->end_ns)
			break;
		now = t;
		aif_clock_set(&c->clock, now);
		v->packets += aif_runner_step_drive(w, dmin, now);
		v->steps++;
		next[dmin] = aif_runner_drive_next_ns(w, dmin, now);
		if (v->n_woken)
			woken_next(v, next, now);
		/* what it sent can only bring its peers' next events closer: the
		 * next arrival on each link it sent on */
		uint64_t sent = aif_runner_drive_sent(w, dmin);
		for (uint32_t k = pe.first[dmin]; sent && k < pe.first[dmin + 1]; k++) {
			if (!((sent >> pe.port[k]) & 1))
				continue;
			const struct aif_link_end *far = pe.far[k];
			aif_time_ns a = aif_link_rx_next_ns(far->link, far->side);
			aif_runner_rxq_arrival(w, pe.far_rxq[k], a);
			if (a < next[pe.list[k]])
				next[pe.list[k]] = a < now ? now : a;
		}
		if (now >= next_progress) {
			v->now_ns = now;
			v->progress(v, v->progress_arg);
			next_progress = now + v->progress_ns;
		}
	}
out:
	free(v->woken);
	v->woken = NULL;
	v->n_woken = v->cap_woken = 0;
	free(next);
	free(pe.first);
	free(pe.list);
	free(pe.far);
	free(pe.far_rxq);
	free(pe.port);
	aif_runner_rxq_stale_all(w);
	v->now_ns = now;
	return now;
}
