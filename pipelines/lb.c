/* SPDX-License-Identifier: BSD-3-Clause */
/* The registry of load-balancing schemes (see lb.h). */
#include <rte_common.h>

#include "lb.h"

const struct aif_lb_scheme_ops aif_lb_schemes[] = {
	[AIF_LB_ECMP] = { .name = "ecmp", .select = aif_lb_ecmp_select },
	[AIF_LB_WCMP] = { .name = "wcmp", .select = aif_lb_ecmp_select },
	[AIF_LB_FLOWLET] = { .name = "flowlet", .select = aif_lb_flowlet_select },
	[AIF_LB_SPRAY] = { .name = "spray", .select = aif_lb_spray_select },
	[AIF_LB_ADAPTIVE] = { .name = "adaptive", .select = aif_lb_adaptive_select },
	[AIF_LB_PROG] = { .name = "bpf", .select = aif_lb_prog_select },
};

const unsigned aif_lb_n_schemes = RTE_DIM(aif_lb_schemes);
