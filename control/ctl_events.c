/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control's event sources (ctl_events.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../dataplane/capture.h"
#include "../dataplane/switch.h"
#include "commands.h"
#include "ctl_events.h"
#include "ctl_server.h"

static aif_time_ns
tick_next(struct aif_ev_source *s, aif_time_ns now_ns)
{
	(void)now_ns;
	return ((struct aif_ctl_tick *)s)->at_ns;
}

static unsigned
tick_fire(struct aif_ev_source *s, aif_time_ns now_ns)
{
	struct aif_ctl_tick *k = (struct aif_ctl_tick *)s;
	struct aif_ctl *c = k->ctl;
	aif_time_ns t = aif_ctl_now(c); /* the dataplane's (paced: less the lag) */
	unsigned learned = 0, r = 0;

	for (uint16_t i = 0; i < c->n_sw; i++) {
		learned += aif_switch_learn(c->sws[i], t);
		aif_capture_poll(c->sws[i]); /* packet copies to their files */
	}
	if (t >= k->next_age_ns) {
		for (uint16_t i = 0; i < c->n_sw; i++)
			aif_switch_age_neighbors(c->sws[i], t);
		k->next_age_ns = t + AIF_NEIGH_AGE_NS;
		r = AIF_EV_CHANGED;
	}
	k->at_ns = now_ns + k->period_ns;
	/* the sources look again only when the neighbours may have changed:
	 * a tick that found nothing to learn and aged nothing changed nothing
	 * a switch's next event depends on (every drive of every runner asked
	 * again, every 10 us: 1.25% of a k=32 fat-tree's run) */
	return learned != 0 ? AIF_EV_CHANGED : r;
}

static const struct aif_ev_ops tick_ops = { .next_ns = tick_next, .fire = tick_fire };

void
aif_ctl_tick_init(struct aif_ctl_tick *t, struct aif_ctl *c, aif_time_ns start_ns,
		  aif_time_ns period_ns)
{
	*t = (struct aif_ctl_tick){ .src = { .ops = &tick_ops, .flags = AIF_EV_TICK },
				    .ctl = c, .period_ns = period_ns, .at_ns = start_ns,
				    .next_age_ns = start_ns + AIF_NEIGH_AGE_NS };
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

static aif_time_ns
schedule_next(struct aif_ev_source *s, aif_time_ns now_ns)
{
	const struct aif_ctl_schedule *x = (struct aif_ctl_schedule *)s;

	(void)now_ns;
	return x->next < x->n ? x->acts[x->next].at_ns : AIF_TIME_NS_NEVER;
}

static unsigned
schedule_fire(struct aif_ev_source *s, aif_time_ns now_ns)
{
	struct aif_ctl_schedule *x = (struct aif_ctl_schedule *)s;
	const struct aif_ctl_action *a = &x->acts[x->next++];
	struct aif_ctl *c = x->ctl;
	char err[256];

	if (a->request != NULL)
		request(c, a->request, now_ns);
	else if (aif_ctl_link_set(c, a->link, a->up, a->loss_rate, a->corrupt_rate, now_ns,
				  err, sizeof(err)) != 0)
		fprintf(stderr, "at %.9f s: link %s: %s\n", (double)now_ns / 1e9,
			c->links[a->link]->name, err);
	return AIF_EV_CHANGED;
}

static const struct aif_ev_ops schedule_ops = {
	.next_ns = schedule_next, .fire = schedule_fire,
};

void
aif_ctl_schedule_init(struct aif_ctl_schedule *s, struct aif_ctl *c,
		      const struct aif_ctl_action *acts, unsigned n, aif_time_ns start_ns)
{
	*s = (struct aif_ctl_schedule){ .src = { .ops = &schedule_ops, .flags = AIF_EV_URGENT },
					.ctl = c, .acts = acts, .n = n };
	while (s->next < n && acts[s->next].at_ns < start_ns)
		s->next++; /* in the past: not done */
}

static aif_time_ns
socket_next(struct aif_ev_source *s, aif_time_ns now_ns)
{
	(void)s;
	return now_ns;
}

static unsigned
socket_fire(struct aif_ev_source *s, aif_time_ns now_ns)
{
	struct aif_ctl_socket *k = (struct aif_ctl_socket *)s;

	(void)now_ns;
	aif_ctl_server_poll(k->srv, k->timeout_ms);
	return 0;
}

static const struct aif_ev_ops socket_ops = { .next_ns = socket_next, .fire = socket_fire };

void
aif_ctl_socket_init(struct aif_ctl_socket *s, struct aif_ctl_server *srv, int timeout_ms)
{
	*s = (struct aif_ctl_socket){ .src = { .ops = &socket_ops }, .srv = srv,
				      .timeout_ms = timeout_ms };
}
