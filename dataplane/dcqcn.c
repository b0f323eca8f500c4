/* SPDX-License-Identifier: BSD-3-Clause */
/* DCQCN reaction and notification points (dcqcn.h). */
#include "dcqcn.h"

void
aif_dcqcn_params_default(struct aif_dcqcn_params *p, uint64_t line_rate_bps)
{
	double scale = (double)line_rate_bps / 25e9;

	*p = (struct aif_dcqcn_params){
		.line_rate_bps = line_rate_bps,
		.g = 1.0 / 16,
		.alpha_period_ns = 55 * AIF_NS_PER_US,
		.decrease_period_ns = 4 * AIF_NS_PER_US,
		.rp_timer_ns = 1500 * AIF_NS_PER_US,
		.fast_recovery = 5,
		.rai_bps = (uint64_t)(5e6 * scale),
		.rhai_bps = (uint64_t)(50e6 * scale),
		.min_rate_bps = 100000000ull,
		.clamp_target = false,
		.rate_on_first_cnp = 1.0,
		.cnp_interval_ns = 0,
	};
}

void
aif_dcqcn_params_hpcc_run(struct aif_dcqcn_params *p, uint64_t line_rate_bps)
{
	aif_dcqcn_params_default(p, line_rate_bps);
	p->alpha_period_ns = 1 * AIF_NS_PER_US;
	p->decrease_period_ns = 4 * AIF_NS_PER_US;
	p->rp_timer_ns = 300 * AIF_NS_PER_US;
	p->g = 1.0 / 256;
	p->fast_recovery = 1;
}

void
aif_dcqcn_params_conweave(struct aif_dcqcn_params *p, uint64_t line_rate_bps)
{
	aif_dcqcn_params_hpcc_run(p, line_rate_bps);
	/* run.py: RATE_AI = 10 x bw / 25 Mb/s, RATE_HAI = 25 x bw / 25 Mb/s (bw in Gb/s) */
	p->rai_bps = line_rate_bps / 2500;
	p->rhai_bps = line_rate_bps / 1000;
}

void
aif_dcqcn_rp_init(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p)
{
	*rp = (struct aif_dcqcn_rp){
		.rate_bps = (double)p->line_rate_bps,
		.target_bps = (double)p->line_rate_bps,
		.alpha = 1.0,
		.next_alpha_ns = AIF_TIME_NS_NEVER,
		.next_decrease_ns = AIF_TIME_NS_NEVER,
		.next_timer_ns = AIF_TIME_NS_NEVER,
	};
}

static void
alpha_tick(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p)
{
	rp->alpha = (1 - p->g) * rp->alpha + (rp->alpha_cnp ? p->g : 0);
	rp->alpha_cnp = false;
	rp->next_alpha_ns += p->alpha_period_ns;
}

static void
decrease_check(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p)
{
	aif_time_ns at = rp->next_decrease_ns;

	rp->next_decrease_ns += p->decrease_period_ns;
	if (!rp->decrease_cnp)
		return;
	if (p->clamp_target || rp->stage != 0)
		rp->target_bps = rp->rate_bps;
	double r = rp->rate_bps * (1 - rp->alpha / 2);
	rp->rate_bps = r > (double)p->min_rate_bps ? r : (double)p->min_rate_bps;
	rp->stage = 0;
	rp->decrease_cnp = false;
	rp->next_timer_ns = at + p->rp_timer_ns; /* the increase timer restarts */
}

static void
timer_tick(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p)
{
	double line = (double)p->line_rate_bps;

	rp->next_timer_ns += p->rp_timer_ns;
	if (rp->stage < p->fast_recovery) {
		rp->rate_bps = rp->rate_bps / 2 + rp->target_bps / 2;
	} else {
		rp->target_bps += (double)(rp->stage == p->fast_recovery ? p->rai_bps : p->rhai_bps);
		if (rp->target_bps > line)
			rp->target_bps = line;
		rp->rate_bps = rp->rate_bps / 2 + rp->target_bps / 2;
	}
	rp->stage++;
}

void
aif_dcqcn_rp_advance(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p,
		     aif_time_ns now_ns)
{
	for (;;) {
		aif_time_ns a = rp->next_alpha_ns, d = rp->next_decrease_ns, t = rp->next_timer_ns;
		aif_time_ns first = a < d ? a : d;
		first = t < first ? t : first;
		if (first > now_ns)
			return;
		if (t == first)
			timer_tick(rp, p);           /* ties: the timer first */
		else if (a == first)
			alpha_tick(rp, p);
		else
			decrease_check(rp, p);
	}
}

void
aif_dcqcn_rp_cnp(struct aif_dcqcn_rp *rp, const struct aif_dcqcn_params *p,
		 aif_time_ns now_ns)
{
	aif_dcqcn_rp_advance(rp, p, now_ns);
	rp->alpha_cnp = true;
	rp->decrease_cnp = true;
	if (rp->first_cnp_seen)
		return;
	rp->first_cnp_seen = true;
	rp->alpha = 1.0;
	rp->alpha_cnp = false;
	rp->next_alpha_ns = now_ns + p->alpha_period_ns;
	/* 1 ns after the alpha tick it coincides with, as in HPCC */
	rp->next_decrease_ns = now_ns + p->decrease_period_ns + 1;
	rp->rate_bps *= p->rate_on_first_cnp;
	rp->target_bps = rp->rate_bps;
}

aif_time_ns
aif_dcqcn_rp_next_event_ns(const struct aif_dcqcn_rp *rp)
{
	aif_time_ns a = rp->next_alpha_ns, d = rp->next_decrease_ns, t = rp->next_timer_ns;
	aif_time_ns first = a < d ? a : d;

	return t < first ? t : first;
}

bool
aif_dcqcn_np_ce(struct aif_dcqcn_np *np, const struct aif_dcqcn_params *p, aif_time_ns now_ns)
{
	if (np->sent_any && now_ns - np->last_cnp_ns < p->cnp_interval_ns)
		return false;
	np->sent_any = true;
	np->last_cnp_ns = now_ns;
	return true;
}
