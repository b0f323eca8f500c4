/* SPDX-License-Identifier: BSD-3-Clause */
/* The exit check of the mbuf pool (see pool_check.h).  Plain C, no EAL. */
#include <stdio.h>

#include "pool_check.h"

unsigned
aif_pool_check(unsigned in_use, unsigned size, const struct aif_pool_port *ports,
	       unsigned n_ports, char *msg, size_t msg_len)
{
	uint64_t may_keep = 0;
	size_t o = 0;
	char who[512] = "";

	for (unsigned i = 0; i < n_ports; i++) {
		uint64_t m = aif_pool_port_may_keep(&ports[i]);
		if (m == 0)
			continue;
		may_keep += m;
		if (o < sizeof(who))
			o += (size_t)snprintf(who + o, sizeof(who) - o,
					      "%s%s %s: %u of its RX ring and up to %u sent",
					      o ? "; " : "", ports[i].name, ports[i].driver,
					      aif_pool_port_kept(&ports[i]), ports[i].tx_desc);
	}
	if (in_use == 0) {
		snprintf(msg, msg_len, "mbufs: 0 of %u still held, all returned to the pool",
			 size);
		return 0;
	}
	if (in_use <= may_keep) {
		snprintf(msg, msg_len, "mbufs: %u of %u still held, all by drivers that keep "
			 "them after their ports close (%s); none by the switch", in_use, size,
			 who);
		return 0;
	}
	if (may_keep == 0)
		snprintf(msg, msg_len, "mbufs: %u of %u still held (LEAK)", in_use, size);
	else
		snprintf(msg, msg_len, "mbufs: %u of %u still held: up to %u by drivers that "
			 "keep them after their ports close (%s), the other %u by the switch "
			 "(LEAK)", in_use, size, (unsigned)may_keep, who,
			 in_use - (unsigned)may_keep);
	return in_use - (unsigned)may_keep;
}
