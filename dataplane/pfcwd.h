/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC watchdog, per (port, queue): finds a queue held paused by a PFC storm
 * and tells the caller when to stop honouring the pause and when to restore
 * it.  Names and defaults follow SONiC's `pfcwd` (detection_time,
 * restoration_time, action drop|forward|alert; `show pfcwd stats`).
 *
 * Reads:  per call, whether the queue is paused by received PFC (the pause
 *         as received, not as applied: in a storm the caller may ignore it,
 *         and the watchdog still needs to see it to know when the storm
 *         ends), whether the queue holds packets, and now_ns.
 * Writes: struct aif_pfcwd_state (one per (port, queue), one worker owns it).
 * The caller acts on the verdict: on STORM_DETECTED it applies the action
 *   drop    discard the queue's packets (aif_sched_drain) and those that
 *           arrive for it, and transmit it as if not paused;
 *   forward transmit as if not paused;
 *   alert   nothing but the count (and a log line);
 * aif_pfcwd_ignore_pause() and aif_pfcwd_drop() say which applies now.
 *
 * Knobs (struct aif_pfcwd_params):
 *   detection_ns    0 = 200 ms; at most 5 s (SONiC: 100..5000 ms)
 *   restoration_ns  0 = 200 ms; at most 60 s (SONiC: 100..60000 ms)
 *   action          AIF_PFCWD_DROP (SONiC default) | FORWARD | ALERT
 *
 * Counters (AIF_FOREACH_PFCWD_CTR): storms detected, storms restored,
 * packets and bytes the caller dropped because of the watchdog
 * (aif_pfcwd_count_drop).
 *
 * Timing, in the caller's sampling (it calls aif_pfcwd_update() every step
 * or e.g. every 10 ms of switch time):
 *   - a "paused run" starts at the first call that sees paused && has_packets
 *     (time t0); any call that sees !(paused && has_packets) ends it;
 *   - the first call in the run with now_ns - t0 >= detection_ns returns
 *     AIF_PFCWD_STORM_DETECTED and enters the storm state;
 *   - in a storm, an "unpaused run" starts at the first call that sees
 *     !paused (time t1); any call that sees paused ends it; the first call
 *     with now_ns - t1 >= restoration_ns returns AIF_PFCWD_STORM_RESTORED
 *     and leaves the storm state (detection starts afresh).
 * So detection and restoration are exact at call times and late by at most
 * one call period otherwise.
 *
 *	enum aif_pfcwd_event ev = aif_pfcwd_update(&wd[port][q], &wdcfg,
 *		rx_paused & (1u << q), aif_sched_qlen_pkts(s, q) != 0, now_ns);
 *	if (aif_pfcwd_ignore_pause(&wd[port][q], &wdcfg))
 *		paused_mask &= ~(1u << q);
 */
#ifndef AIF_PFCWD_H
#define AIF_PFCWD_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

#define AIF_PFCWD_DEFAULT_DETECTION_NS (200 * AIF_NS_PER_MS)
#define AIF_PFCWD_DEFAULT_RESTORATION_NS (200 * AIF_NS_PER_MS)
#define AIF_PFCWD_DETECTION_MAX_NS (5000 * AIF_NS_PER_MS)
#define AIF_PFCWD_RESTORATION_MAX_NS (60000 * AIF_NS_PER_MS)

/* (id, SONiC name) */
#define AIF_FOREACH_PFCWD_ACTION(_) \
	_(DROP, "drop")             \
	_(FORWARD, "forward")       \
	_(ALERT, "alert")

enum aif_pfcwd_action {
#define AIF_PFCWD_ACTION_ENUM(id, name) AIF_PFCWD_##id,
	AIF_FOREACH_PFCWD_ACTION(AIF_PFCWD_ACTION_ENUM)
#undef AIF_PFCWD_ACTION_ENUM
	AIF_PFCWD_ACTION_MAX
};

enum aif_pfcwd_event {
	AIF_PFCWD_NONE = 0,
	AIF_PFCWD_STORM_DETECTED,
	AIF_PFCWD_STORM_RESTORED,
};

/* Config-init errors: (id, value, name). */
#define AIF_FOREACH_PFCWD_ERR(_)                                     \
	_(OK, 0, "ok")                                               \
	_(DETECTION, -1, "detection_time above 5000 ms")             \
	_(RESTORATION, -2, "restoration_time above 60000 ms")        \
	_(ACTION, -3, "action not drop|forward|alert")

enum aif_pfcwd_err {
#define AIF_PFCWD_ERR_ENUM(id, val, name) AIF_PFCWD_ERR_##id = (val),
	AIF_FOREACH_PFCWD_ERR(AIF_PFCWD_ERR_ENUM)
#undef AIF_PFCWD_ERR_ENUM
};

#define AIF_FOREACH_PFCWD_CTR(_) \
	_(storms_detected)       \
	_(storms_restored)       \
	_(drop_packets)          \
	_(drop_bytes)

struct aif_pfcwd_ctr {
#define AIF_PFCWD_CTR_FIELD(n) uint64_t n;
	AIF_FOREACH_PFCWD_CTR(AIF_PFCWD_CTR_FIELD)
#undef AIF_PFCWD_CTR_FIELD
};

extern const char *const aif_pfcwd_ctr_names[];
extern const unsigned aif_pfcwd_ctr_n;

/* What the user wrote. */
struct aif_pfcwd_params {
	aif_time_ns detection_ns;   /* 0 = 200 ms */
	aif_time_ns restoration_ns; /* 0 = 200 ms */
	uint8_t action;             /* enum aif_pfcwd_action */
};

/* Read-only for the workers. */
struct aif_pfcwd_config {
	aif_time_ns detection_ns;
	aif_time_ns restoration_ns;
	uint8_t action; /* enum aif_pfcwd_action */
};

/* One (port, queue); zero it (aif_pfcwd_state_init) to start. */
struct aif_pfcwd_state {
	bool storm;
	bool in_run;          /* a paused run (no storm) / unpaused run (storm) */
	aif_time_ns run_start_ns;
	struct aif_pfcwd_ctr ctr;
};

/* Check params, fill in defaults.  Returns 0 or an AIF_PFCWD_ERR_*
 * (negative, one per bad field); c is untouched on error. */
int aif_pfcwd_config_init(struct aif_pfcwd_config *c,
			  const struct aif_pfcwd_params *p);
const char *aif_pfcwd_err_name(int err);

/* "drop" / "forward" / "alert" ("unknown" otherwise). */
const char *aif_pfcwd_action_name(enum aif_pfcwd_action a);
/* Parse a SONiC action name; returns 0 or -1. */
int aif_pfcwd_action_parse(const char *s, enum aif_pfcwd_action *out);
/* "none" / "storm_detected" / "storm_restored". */
const char *aif_pfcwd_event_name(enum aif_pfcwd_event ev);

void aif_pfcwd_state_init(struct aif_pfcwd_state *s);

/* One sample of one queue; returns the event it causes (see the top). */
enum aif_pfcwd_event aif_pfcwd_update(struct aif_pfcwd_state *s,
				      const struct aif_pfcwd_config *c,
				      bool paused, bool has_packets,
				      aif_time_ns now_ns);

/* In a storm with action drop or forward: transmit as if not paused. */
static inline bool
aif_pfcwd_ignore_pause(const struct aif_pfcwd_state *s,
		       const struct aif_pfcwd_config *c)
{
	return s->storm && c->action != AIF_PFCWD_ALERT;
}

/* In a storm with action drop: discard the queue's packets. */
static inline bool
aif_pfcwd_drop(const struct aif_pfcwd_state *s,
	       const struct aif_pfcwd_config *c)
{
	return s->storm && c->action == AIF_PFCWD_DROP;
}

/* The caller dropped packets/bytes of this queue because of the watchdog. */
static inline void
aif_pfcwd_count_drop(struct aif_pfcwd_state *s, uint64_t packets,
		     uint64_t bytes)
{
	s->ctr.drop_packets += packets;
	s->ctr.drop_bytes += bytes;
}

#endif /* AIF_PFCWD_H */
