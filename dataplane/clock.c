/* SPDX-License-Identifier: BSD-3-Clause */
/* The clock: TSC-backed real time or a virtual counter (see clock.h). */
#include <rte_cycles.h>

#include "clock.h"

void
aif_clock_init_real(struct aif_clock *c)
{
	c->is_virtual = false;
	c->virt_ns = 0;
	c->tsc_hz = rte_get_tsc_hz();
	c->ns_per_tsc_q32 = (uint64_t)(((unsigned __int128)AIF_NS_PER_S << 32) / c->tsc_hz);
	c->tsc_start = rte_rdtsc();
}

void
aif_clock_init_virtual(struct aif_clock *c, aif_time_ns start_ns)
{
	c->is_virtual = true;
	c->virt_ns = start_ns;
	c->tsc_hz = 0;
	c->tsc_start = 0;
}

aif_time_ns
aif_clock_now(const struct aif_clock *c)
{
	if (c->is_virtual)
		return c->virt_ns;
	uint64_t d = rte_rdtsc() - c->tsc_start;
	/* one multiply per call: once per worker iteration and per received burst */
	return (aif_time_ns)(((unsigned __int128)d * c->ns_per_tsc_q32) >> 32);
}

void
aif_clock_advance(struct aif_clock *c, aif_time_ns delta_ns)
{
	if (c->is_virtual)
		c->virt_ns += delta_ns;
}

void
aif_clock_set(struct aif_clock *c, aif_time_ns t_ns)
{
	if (c->is_virtual && t_ns > c->virt_ns)
		c->virt_ns = t_ns;
}

void
aif_clock_pace_init(struct aif_clock_pace *p, aif_time_ns quantum_ns, aif_time_ns start_ns,
		    aif_time_ns *shared_ns)
{
	*p = (struct aif_clock_pace){ .quantum_ns = quantum_ns, .now_ns = start_ns,
				      .cap_ns = start_ns + quantum_ns, .shared_ns = shared_ns,
				      .limit_ns = AIF_TIME_NS_NEVER };
}

void
aif_clock_pace_hold(struct aif_clock_pace *p, struct aif_clock_peer *peers, unsigned n,
		    unsigned self, aif_time_ns lookahead_ns)
{
	p->peers = peers;
	p->n_peers = n;
	p->self = self;
	p->lookahead_ns = lookahead_ns;
	p->limit_ns = 0; /* asked at the first step */
	__atomic_store_n(&peers[self].now_ns, p->now_ns, __ATOMIC_RELAXED);
}

/* The latest time the others let this runner reach (AIF_TIME_NS_NEVER:
 * not held). */
static inline aif_time_ns
held_to(const struct aif_clock_pace *p)
{
	aif_time_ns slowest = AIF_TIME_NS_NEVER;

	for (unsigned i = 0; i < p->n_peers; i++)
		if (i != p->self) {
			/* (acquire: what it sent before, on the links, is seen) */
			aif_time_ns t = __atomic_load_n(&p->peers[i].now_ns, __ATOMIC_ACQUIRE);
			slowest = t < slowest ? t : slowest;
		}
	return slowest == AIF_TIME_NS_NEVER ? slowest : slowest + p->lookahead_ns;
}

/* The lag is behind from now on (shared: raised to it); returns it. */
static aif_time_ns
lag_raise(struct aif_clock_pace *p, aif_time_ns behind)
{
	if (p->shared_ns != NULL) {
		aif_time_ns cur = __atomic_load_n(p->shared_ns, __ATOMIC_RELAXED);
		while (cur < behind &&
		       !__atomic_compare_exchange_n(p->shared_ns, &cur, behind, true,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
	return behind;
}

/* The step's time t and its stamps' cap, published. */
static inline aif_time_ns
step_at(struct aif_clock_pace *p, aif_time_ns t, aif_time_ns limit)
{
	aif_time_ns cap = t + p->quantum_ns;

	p->now_ns = t;
	p->cap_ns = cap < limit ? cap : limit > t ? limit : t;
	if (p->peers != NULL) /* (release: after what the last step sent) */
		__atomic_store_n(&p->peers[p->self].now_ns, t, __ATOMIC_RELEASE);
	return t;
}

aif_time_ns
aif_clock_pace_step(struct aif_clock_pace *p, aif_time_ns real_ns)
{
	if (p->quantum_ns == 0)
		return p->now_ns = p->cap_ns = real_ns;
	aif_time_ns behind = p->shared_ns != NULL
		? __atomic_load_n(p->shared_ns, __ATOMIC_RELAXED) : p->behind_ns;
	if (behind < p->behind_ns)
		behind = p->behind_ns;
	aif_time_ns t = real_ns > behind ? real_ns - behind : 0;
	/* the others' times only grow: asked again only when t passes what
	 * they allowed when last asked (a line of another core's read per
	 * step no more than needed) */
	aif_time_ns limit = p->limit_ns;
	if (t > limit && p->peers != NULL)
		limit = p->limit_ns = held_to(p);

	if (t > limit && limit <= p->now_ns + p->quantum_ns) {
		/* a slower runner holds this one at its time; held more than a
		 * quantum short of real time, the emulation is that late: the
		 * lag (shared) grows by the rest, as on a late step */
		aif_time_ns at = limit > p->now_ns ? limit : p->now_ns;
		p->held_steps++;
		p->held_run++;
		if (t > at + p->quantum_ns)
			behind = lag_raise(p, real_ns - at - p->quantum_ns);
		p->behind_ns = behind;
		return step_at(p, at, limit);
	}
	p->held_run = 0;
	if (t > p->now_ns + p->quantum_ns) {
		/* late: the emulation moves one quantum, the rest is lag */
		aif_time_ns late = t - p->now_ns - p->quantum_ns;
		p->late_steps++;
		if (late > p->late_max_ns)
			p->late_max_ns = late;
		t = p->now_ns + p->quantum_ns;
		behind = lag_raise(p, real_ns - t);
	} else if (t < p->now_ns) {
		t = p->now_ns; /* another runner's lag grew, or before the start: wait */
	}
	p->behind_ns = behind;
	return step_at(p, t, limit);
}
