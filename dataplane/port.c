/* SPDX-License-Identifier: BSD-3-Clause */
/* DPDK ethdev transmit for struct aif_txif (see port.h). */
#include <rte_ethdev.h>

#include "port.h"

uint16_t
aif_txif_dpdk(struct aif_txif *tx, uint16_t queue, struct rte_mbuf **pkts,
	      uint16_t n)
{
	return rte_eth_tx_burst(tx->dpdk_port, queue, pkts, n);
}
