/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The clock: one per worker loop (or per simulation), read once per
 * iteration into now_ns and passed down to every stage, and once per
 * received burst to stamp it (worker.h: Time).  No stage reads the TSC
 * itself.
 *
 * Two backends:
 *   real:    TSC, converted to ns since aif_clock_init_real();
 *   virtual: a counter that only aif_clock_advance()/aif_clock_set() move,
 *            for tests and the deterministic simulator.
 *
 *	struct aif_clock c;
 *	aif_clock_init_virtual(&c, 0);
 *	aif_clock_advance(&c, 5 * AIF_NS_PER_US);
 *	aif_worker_step(w, aif_clock_now(&c));
 */
#ifndef AIF_CLOCK_H
#define AIF_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

struct aif_clock {
	bool is_virtual;
	aif_time_ns virt_ns;  /* virtual: current time */
	uint64_t tsc_start;   /* real: TSC at init */
	uint64_t tsc_hz;      /* real: TSC frequency */
	uint64_t ns_per_tsc_q32; /* real: ns per TSC tick, 32.32 fixed point */
};

/* Real clock starting at 0 now; tsc_hz from rte_get_tsc_hz(). */
void aif_clock_init_real(struct aif_clock *c);
/* Virtual clock starting at start_ns. */
void aif_clock_init_virtual(struct aif_clock *c, aif_time_ns start_ns);
/* Current time in ns. */
aif_time_ns aif_clock_now(const struct aif_clock *c);
/* Virtual only: move forward by delta_ns / to t_ns (never backwards). */
void aif_clock_advance(struct aif_clock *c, aif_time_ns delta_ns);
void aif_clock_set(struct aif_clock *c, aif_time_ns t_ns);

#endif /* AIF_CLOCK_H */
