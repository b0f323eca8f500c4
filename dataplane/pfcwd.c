/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC watchdog: storm detection and restoration per (port, queue).  What it
 * reads and writes, its knobs, counters and timing rules are in pfcwd.h.
 *
 * State machine (one struct aif_pfcwd_state):
 *   normal: run = "paused && has_packets since run_start_ns";
 *           run long enough (now - start >= detection_ns) -> storm,
 *           STORM_DETECTED.
 *   storm:  run = "not paused since run_start_ns";
 *           run long enough (now - start >= restoration_ns) -> normal,
 *           STORM_RESTORED.
 * A sample that breaks the run's condition ends the run; the next sample
 * that meets it starts a new one at its own now_ns.
 */
#include <string.h>

#include "pfcwd.h"

static const char *const action_names[AIF_PFCWD_ACTION_MAX] = {
#define AIF_PFCWD_ACTION_NAME(id, name) [AIF_PFCWD_##id] = name,
	AIF_FOREACH_PFCWD_ACTION(AIF_PFCWD_ACTION_NAME)
#undef AIF_PFCWD_ACTION_NAME
};

static const char *const err_names[] = {
#define AIF_PFCWD_ERR_NAME(id, val, name) [-(val)] = name,
	AIF_FOREACH_PFCWD_ERR(AIF_PFCWD_ERR_NAME)
#undef AIF_PFCWD_ERR_NAME
};

const char *const aif_pfcwd_ctr_names[] = {
#define AIF_PFCWD_CTR_NAME(n) #n,
	AIF_FOREACH_PFCWD_CTR(AIF_PFCWD_CTR_NAME)
#undef AIF_PFCWD_CTR_NAME
};
const unsigned aif_pfcwd_ctr_n =
	sizeof(aif_pfcwd_ctr_names) / sizeof(aif_pfcwd_ctr_names[0]);

const char *
aif_pfcwd_err_name(int err)
{
	if (err > 0 || (unsigned)-err >= sizeof(err_names) / sizeof(err_names[0]))
		return "unknown";
	return err_names[-err];
}

const char *
aif_pfcwd_action_name(enum aif_pfcwd_action a)
{
	if ((unsigned)a >= AIF_PFCWD_ACTION_MAX)
		return "unknown";
	return action_names[a];
}

int
aif_pfcwd_action_parse(const char *s, enum aif_pfcwd_action *out)
{
	for (unsigned i = 0; i < AIF_PFCWD_ACTION_MAX; i++) {
		if (strcmp(s, action_names[i]) == 0) {
			*out = (enum aif_pfcwd_action)i;
			return 0;
		}
	}
	return -1;
}

const char *
aif_pfcwd_event_name(enum aif_pfcwd_event ev)
{
	switch (ev) {
	case AIF_PFCWD_NONE:
		return "none";
	case AIF_PFCWD_STORM_DETECTED:
		return "storm_detected";
	case AIF_PFCWD_STORM_RESTORED:
		return "storm_restored";
	}
	return "unknown";
}

int
aif_pfcwd_config_init(struct aif_pfcwd_config *c,
		      const struct aif_pfcwd_params *p)
{
	struct aif_pfcwd_config n;

	n.detection_ns = p->detection_ns ? p->detection_ns
					 : AIF_PFCWD_DEFAULT_DETECTION_NS;
	if (n.detection_ns > AIF_PFCWD_DETECTION_MAX_NS)
		return AIF_PFCWD_ERR_DETECTION;
	n.restoration_ns = p->restoration_ns ? p->restoration_ns
					     : AIF_PFCWD_DEFAULT_RESTORATION_NS;
	if (n.restoration_ns > AIF_PFCWD_RESTORATION_MAX_NS)
		return AIF_PFCWD_ERR_RESTORATION;
	if (p->action >= AIF_PFCWD_ACTION_MAX)
		return AIF_PFCWD_ERR_ACTION;
	n.action = p->action;
	*c = n;
	return AIF_PFCWD_ERR_OK;
}

void
aif_pfcwd_state_init(struct aif_pfcwd_state *s)
{
	memset(s, 0, sizeof(*s));
}

enum aif_pfcwd_event
aif_pfcwd_update(struct aif_pfcwd_state *s, const struct aif_pfcwd_config *c,
		 bool paused, bool has_packets, aif_time_ns now_ns)
{
	bool cond = s->storm ? !paused : (paused && has_packets);
	aif_time_ns need = s->storm ? c->restoration_ns : c->detection_ns;

	if (!cond) {
		s->in_run = false;
		return AIF_PFCWD_NONE;
	}
	if (!s->in_run) {
		s->in_run = true;
		s->run_start_ns = now_ns;
	}
	if (now_ns < s->run_start_ns || now_ns - s->run_start_ns < need)
		return AIF_PFCWD_NONE;
	s->in_run = false;
	if (s->storm) {
		s->storm = false;
		s->ctr.storms_restored++;
		return AIF_PFCWD_STORM_RESTORED;
	}
	s->storm = true;
	s->ctr.storms_detected++;
	return AIF_PFCWD_STORM_DETECTED;
}
