/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the MMU's unit tests share (test_mmu.c, test_mmu_a1.c): a new MMU,
 * the check that every occupancy figure is back to zero, and scenario A1's
 * switch.
 */
#ifndef AIF_TEST_MMU_FIXTURES_H
#define AIF_TEST_MMU_FIXTURES_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "mmu.h"

#define GBPS 1000000000ull
#define PG3 3
#define Q3 3

static inline struct aif_mmu *
mmu_new(const struct aif_mmu_config *c)
{
	struct aif_mmu *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	aif_mmu_init(m, c);
	return m;
}

/* Every occupancy figure is zero. */
static inline void
assert_empty(const struct aif_mmu *m)
{
	assert_int_equal(m->used_bytes, 0);
	assert_int_equal(m->shared_used_bytes, 0);
	assert_int_equal(m->headroom_used_bytes, 0);
	for (unsigned p = 0; p < m->cfg->n_ports; p++) {
		const struct aif_mmu_port *ps = &m->port[p];

		assert_int_equal(ps->port_reserve_bytes, 0);
		for (unsigned g = 0; g < AIF_MMU_N_PG; g++) {
			assert_int_equal(ps->pg[g].reserve_bytes, 0);
			assert_int_equal(ps->pg[g].port_reserve_bytes, 0);
			assert_int_equal(ps->pg[g].shared_bytes, 0);
			assert_int_equal(ps->pg[g].headroom_bytes, 0);
		}
		for (unsigned q = 0; q < AIF_MMU_N_QUEUE; q++)
			assert_int_equal(ps->queue_bytes[q], 0);
	}
}

/* A1's switch: 17 ports at 100G with 1 us links, 32 MiB, HPCC defaults. */
static inline void
a1_params(struct aif_mmu_params *p, bool pfc)
{
	aif_mmu_params_default(p, AIF_MMU_HPCC, 17);
	p->buffer_bytes = 32ull * 1024 * 1024;
	for (unsigned i = 0; i < 17; i++) {
		p->port[i].speed_bps = 100 * GBPS;
		p->port[i].cable_delay_ns = 1000;
		p->port[i].pfc_enable = pfc ? 1u << PG3 : 0;
	}
}

#endif /* AIF_TEST_MMU_FIXTURES_H */
