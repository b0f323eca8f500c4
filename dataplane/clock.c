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
				      .shared_ns = shared_ns };
}

aif_time_ns
aif_clock_pace_step(struct aif_clock_pace *p, aif_time_ns real_ns)
{
	if (p->quantum_ns == 0)
		return p->now_ns = real_ns;
	aif_time_ns behind = p->shared_ns != NULL
		? __atomic_load_n(p->shared_ns, __ATOMIC_RELAXED) : p->behind_ns;
	if (behind < p->behind_ns)
		behind = p->behind_ns;
	aif_time_ns t = real_ns > behind ? real_ns - behind : 0;

	if (t > p->now_ns + p->quantum_ns) {
		/* late: the emulation moves one quantum, the rest is lag */
		aif_time_ns late = t - p->now_ns - p->quantum_ns;
		p->late_steps++;
		if (late > p->late_max_ns)
			p->late_max_ns = late;
		t = p->now_ns + p->quantum_ns;
		behind = real_ns - t;
		if (p->shared_ns != NULL) {
			aif_time_ns cur = __atomic_load_n(p->shared_ns, __ATOMIC_RELAXED);
			while (cur < behind &&
			       !__atomic_compare_exchange_n(p->shared_ns, &cur, behind, true,
							    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				;
		}
	} else if (t < p->now_ns) {
		t = p->now_ns; /* another runner's lag grew, or before the start: wait */
	}
	p->behind_ns = behind;
	p->now_ns = t;
	return t;
}
