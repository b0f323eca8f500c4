/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter names, generated from the lists in counters.h. */
#include <rte_common.h>

#include "counters.h"

const char *const aif_port_ctr_names[] = {
#define AIF_CTR_NAME(n) #n,
	AIF_FOREACH_PORT_CTR(AIF_CTR_NAME)
#undef AIF_CTR_NAME
};

const unsigned aif_port_ctr_n = RTE_DIM(aif_port_ctr_names);
