/* SPDX-License-Identifier: BSD-3-Clause */
/* The virtual-time loop (vtime.h). */
#include <stdio.h>

#include "../dataplane/capture.h"
#include "../dataplane/clock.h"
#include "../dataplane/switch.h"
#include "../dataplane/worker.h"
#include "commands.h"
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

aif_time_ns
aif_vtime_run(struct aif_vtime *v)
{
	struct aif_ctl *c = v->ctl;
	aif_time_ns now = aif_clock_now(&c->clock);
	aif_time_ns next_ctl = now, next_age = now + AIF_NEIGH_AGE_NS;
	aif_time_ns next_progress = v->progress != NULL ? now + v->progress_ns : AIF_TIME_NS_NEVER;
	uint64_t since_check = 0;
	unsigned next_action = 0;

	while (next_action < v->n_actions && v->actions[next_action].at_ns < now)
		next_action++; /* in the past: not done */
	for (;;) {
		/* a scheduled action first, at its own time */
		if (next_action < v->n_actions) {
			const struct aif_vtime_action *a = &v->actions[next_action];
			if (a->at_ns <= next_ctl && a->at_ns <= aif_worker_next_event_ns(v->w, now) &&
			    a->at_ns <= v->end_ns) {
				char err[256];
				now = a->at_ns;
				aif_clock_set(&c->clock, now);
				if (aif_ctl_link_set(c, a->link, a->up, a->loss_rate, a->corrupt_rate,
						     now, err, sizeof(err)) != 0)
					fprintf(stderr, "at %.9f s: link %s: %s\n", (double)now / 1e9,
						c->links[a->link]->name, err);
				next_action++;
				continue;
			}
		}
		aif_time_ns t = aif_worker_next_event_ns(v->w, now);
		/* periodic work only ahead (PFC refresh, bands, control): is
		 * anything left to come? */
		if (v->idle != NULL &&
		    (t > next_ctl || ++since_check >= AIF_VTIME_IDLE_CHECK_STEPS)) {
			since_check = 0;
			if (v->idle(v->idle_arg))
				break;
		}
		if (next_ctl <= t) {
			/* control's turn first: at its own time, then the runner */
			if (next_ctl > v->end_ns)
				break;
			now = next_ctl;
			aif_clock_set(&c->clock, now);
			control_tick(c, now, &next_age);
			next_ctl = now + AIF_VTIME_CONTROL_NS;
			continue;
		}
		if (t > v->end_ns)
			break;
		now = t;
		aif_clock_set(&c->clock, now);
		v->packets += aif_worker_step(v->w, now);
		v->steps++;
		if (now >= next_progress) {
			v->now_ns = now;
			v->progress(v, v->progress_arg);
			next_progress = now + v->progress_ns;
		}
	}
	v->now_ns = now;
	return now;
}
