/* SPDX-License-Identifier: BSD-3-Clause */
/* The registry of load-balancing schemes (see lb.h). */
#include <rte_common.h>

#include "lb.h"

const struct aif_lb_scheme_ops aif_lb_schemes[] = {
	[AIF_LB_ECMP] = { .name = "ecmp", .select = aif_lb_ecmp_select },
};

const unsigned aif_lb_n_schemes = RTE_DIM(aif_lb_schemes);
