/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A switch port's runtime side: where its frames come from and go to.
 *
 * Receive is a DPDK queue polled by a worker.  Transmit goes through a small
 * interface (struct aif_txif) so that a port can later be an emulated link or
 * a virtual host instead of a DPDK port; the DPDK implementation is
 * aif_txif_dpdk.  One indirect call per burst, none per packet.
 */
#ifndef AIF_PORT_H
#define AIF_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "capacity.h"
#include "types.h"

struct rte_mbuf;
struct aif_txif;

/* Send up to n packets on queue; returns how many were taken. */
typedef uint16_t (*aif_tx_burst_fn)(struct aif_txif *tx, uint16_t queue,
				    struct rte_mbuf **pkts, uint16_t n);

struct aif_txif {
	aif_tx_burst_fn burst;
	uint16_t dpdk_port; /* for aif_txif_dpdk */
	void *ctx;          /* for other implementations (tests, links) */
};

struct aif_port {
	char name[AIF_NAME_MAX];
	uint16_t dpdk_port;
	uint16_t n_rxq, n_txq;
	uint32_t speed_mbps;   /* configured, else as the device reports */
	uint8_t link_up;       /* written by control (atomic byte), read by workers */
	struct aif_mac dev_mac; /* the device's own MAC */
	struct aif_txif tx;
};

/* aif_txif burst function for DPDK ethdev ports. */
uint16_t aif_txif_dpdk(struct aif_txif *tx, uint16_t queue,
		       struct rte_mbuf **pkts, uint16_t n);

#endif /* AIF_PORT_H */
