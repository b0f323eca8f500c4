/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN at a RoCE host: the reaction point (RP) that sets a queue pair's
 * sending rate from the CNPs it receives, and the notification point (NP)
 * that turns CE-marked packets into CNPs.  The Mellanox-style RP of HPCC's
 * simulator (rdma-hw.cc), event for event, for the virtual hosts; a
 * primitive: it includes nothing but types.h and keeps its own timers, so
 * a host can say when its next event is (aif_dcqcn_rp_next_event_ns).
 *
 * Reaction point (per QP).  Parameters as HPCC's and ConWeave's config
 * files (and rdma-hw.cc's attributes) name them, and ours beside them:
 *   EWMA_GAIN g                 g                   alpha's gain
 *   ALPHA_RESUME_INTERVAL       alpha_period_ns     alpha update period
 *   RATE_DECREASE_INTERVAL      decrease_period_ns  rate decrease check period
 *   RP_TIMER                    rp_timer_ns         rate increase timer
 *   FAST_RECOVERY_TIMES F       fast_recovery       fast recovery stages
 *   RATE_AI, RATE_HAI           rai_bps, rhai_bps   additive / hyper increase
 *                                                   of the target
 *   MIN_RATE                    min_rate_bps        floor
 *   CLAMP_TARGET_RATE           clamp_target        set the target to the
 *                               current rate on every decrease (else only
 *                               after an increase began)
 *   RateOnFirstCnp              rate_on_first_cnp   the rate cut at the first
 *                                                   CNP (1: none)
 * Rules:
 *   first CNP: alpha = 1, Rt = Rc = Rc x RATE_ON_FIRST_CNP; the alpha timer
 *     starts (every ALPHA_RESUME_INTERVAL) and the decrease check (every
 *     RATE_DECREASE_INTERVAL, 1 ns after the alpha tick it coincides with);
 *   alpha tick: alpha = (1 - g) alpha + g if a CNP came since the last
 *     tick, else (1 - g) alpha;
 *   decrease check, if a CNP came since the last check: Rt = Rc (if
 *     clamping or an increase began), Rc = max(MIN_RATE, Rc (1 - alpha/2)),
 *     stage = 0, the RP timer restarts;
 *   RP timer tick: stage < F: Rc = (Rc + Rt)/2; stage = F: Rt += RATE_AI;
 *     stage > F: Rt += RATE_HAI; then (not in fast recovery) Rt is capped
 *     at the line rate and Rc = (Rc + Rt)/2; stage += 1.
 *   Timers due at the same nanosecond: the RP timer before the decrease
 *   check (the order HPCC's event queue gives them).
 *
 * Notification point (per QP): on a CE-marked packet, a CNP unless one was
 * sent less than cnp_interval_ns ago.  0 (every preset): a CNP for every
 * CE-marked packet, as HPCC's and ConWeave's simulators do (they have no
 * such interval); 50 us is the DCQCN paper's and ConnectX's
 * (MIN_TIME_BETWEEN_CNPS).
 *
 *	struct aif_dcqcn_params p;
 *	aif_dcqcn_params_default(&p, 100000000000ull);
 *	struct aif_dcqcn_rp rp;
 *	aif_dcqcn_rp_init(&rp, &p);
 *	aif_dcqcn_rp_cnp(&rp, &p, now);          // a CNP arrived
 *	aif_dcqcn_rp_advance(&rp, &p, later);    // run the timers up to later
 *	rate = rp.rate_bps;
 */
#ifndef AIF_DCQCN_H
#define AIF_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

struct aif_dcqcn_params {
	uint64_t line_rate_bps;
	double g;                       /* EWMA_GAIN */
	aif_time_ns alpha_period_ns;    /* ALPHA_RESUME_INTERVAL */
	aif_time_ns decrease_period_ns; /* RATE_DECREASE_INTERVAL */
	aif_time_ns rp_timer_ns;        /* RP_TIMER */
	uint32_t fast_recovery;         /* FAST_RECOVERY_TIMES */
	uint64_t rai_bps;               /* RATE_AI */
	uint64_t rhai_bps;              /* RATE_HAI */
	uint64_t min_rate_bps;          /* MIN_RATE */
	bool clamp_target;              /* CLAMP_TARGET_RATE */
	double rate_on_first_cnp;       /* RATE_ON_FIRST_CNP */
	aif_time_ns cnp_interval_ns;    /* NP: at most one CNP per QP this often (0: no limit) */
};

/*
 * The defaults of HPCC's rdma-hw.cc attributes, at line_rate_bps: g 1/16,
 * alpha every 55 us, decrease every 4 us, RP timer 1500 us, F 5, AI 5 Mb/s
 * and HAI 50 Mb/s scaled by line rate / 25 Gb/s, MinRate 100 Mb/s, no
 * clamping, no cut at the first CNP, no CNP interval.
 */
void aif_dcqcn_params_default(struct aif_dcqcn_params *p, uint64_t line_rate_bps);
/*
 * The settings HPCC's experiments run DCQCN with (its run.py config
 * template, also used by ConWeave's): alpha every 1 us, decrease every
 * 4 us, RP timer 300 us, g 1/256, F 1; AI, HAI and the rest as the
 * defaults above.  Faster to recover than the attribute defaults (RP timer
 * 1500 us, F 5), which leave a flow cut by a burst of marks below half
 * rate for milliseconds.
 */
void aif_dcqcn_params_hpcc_run(struct aif_dcqcn_params *p, uint64_t line_rate_bps);
/*
 * ConWeave's runs (its run.py for --cc dcqcn): hpcc_run's timers with
 * RATE_AI = line rate / 2,500 and RATE_HAI = line rate / 1,000 (40 and
 * 100 Mb/s at 100 Gb/s), MIN_RATE 100 Mb/s.  The virtual hosts' default.
 */
void aif_dcqcn_params_conweave(struct aif_dcqcn_params *p, uint64_t line_rate_bps);

struct aif_dcqcn_rp {
	double rate_bps;        /* Rc: the QP sends at this rate */
	double target_bps;      /* Rt */
	double alpha;
	bool first_cnp_seen;
	bool alpha_cnp;         /* a CNP came since the last alpha tick */
	bool decrease_cnp;      /* ... since the last decrease check */
	uint32_t stage;         /* RP timer ticks since the last decrease */
	aif_time_ns next_alpha_ns, next_decrease_ns, next_timer_ns; /* NEVER: off */
};

/* Line rate, no congestion seen, no timer running. */
void aif_dcqcn_rp_init(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p);
/* A CNP arrived at now_ns (the timers due before it run first). */
void aif_dcqcn_rp_cnp(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p,
		      aif_time_ns now_ns);
/* Run every timer due at or before now_ns, in time order. */
void aif_dcqcn_rp_advance(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p,
			  aif_time_ns now_ns);
/* When the next timer fires (AIF_TIME_NS_NEVER: none running). */
aif_time_ns aif_dcqcn_rp_next_event_ns(const struct aif_dcqcn_rp *rp);

struct aif_dcqcn_np {
	aif_time_ns last_cnp_ns;
	bool sent_any;
};

/* A CE-marked packet of the QP arrived at now_ns: true if a CNP goes back. */
bool aif_dcqcn_np_ce(struct aif_dcqcn_np *np, const struct aif_dcqcn_params *p,
		     aif_time_ns now_ns);

#endif /* AIF_DCQCN_H */
