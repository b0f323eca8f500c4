/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests: the virtual hosts the host tests and the host fuzzer make, host i
 * of a few on one 10.0.i.0/24 each, behind one gateway MAC, one seed.
 *
 *	struct aif_rhost_params p;
 *	rhost_test_params(&p, 0, false, 100000000000ull);
 */
#ifndef AIF_TEST_RHOST_PARAMS_H
#define AIF_TEST_RHOST_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "rhost.h"

static inline void
rhost_test_params(struct aif_rhost_params *p, int i, bool ooo, uint64_t rate_bps)
{
	aif_rhost_params_default(p, rate_bps);
	p->ip = 0x0a000002 + ((uint32_t)i << 8);
	p->mac.b[0] = 2, p->mac.b[5] = (uint8_t)(i + 1);
	p->gw_mac.b[0] = 2, p->gw_mac.b[5] = 0x10;
	p->ooo = ooo;
	p->seed = 7;
}

#endif /* AIF_TEST_RHOST_PARAMS_H */
