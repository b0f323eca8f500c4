/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress with lossless QoS (qos.h says what and why): the runtime's side of
 * a routed packet after the stages, run by the shard that drives the
 * switch's QoS (shard.h).
 *
 * aif_egress_enqueue(), per routed packet after the rewrite:
 *   reads  pkt->tc, in_port, ecn, kind, l3_off; the QoS config maps;
 *   writes the MMU charge and, once queued, the queue's link (mbuf
 *          dynfield, struct aif_qos_dynfield), mbuf l2_len (= l3 offset)
 *          and packet_type (IPv4/IPv6), for ECN at dequeue;
 *   returns AIF_DROP_NONE (queued) or the reason (the caller drops it).
 * aif_egress_service(), once per worker step after the RX bursts: serves
 *   every port's queues (PFC pause, watchdog, shaper), releases the MMU
 *   charge, applies ECN at dequeue, and sends the PFC XOFF/refresh/XON
 *   frames the ports' XOFF masks call for.
 * aif_egress_pfc_input(): a MAC control frame received on a port whose
 *   MAC is port_mac: pauses the port's queues if it is a PFC or PAUSE
 *   frame addressed as its standard says (dataplane/pfc.h, "rules"), else
 *   is refused and counted by reason (pfc_rx.ctr.rx_err[]).
 * aif_egress_shutdown(), once, when the switch stops (its workers have
 *   stopped; the caller may be another thread, using the worker's TX
 *   queue): frees every packet still queued (releasing its MMU charge),
 *   then sends an XON (PFC, time 0) out of every port for the priorities
 *   its peer was last told XOFF, so that no peer stays paused for up to
 *   65535 quanta (or for good, until its own time runs out at low
 *   speeds) by a switch that is gone.  Counts them as tx_xon.
 * Counters: the modules' own (mmu, sched, ecn, pfc, pfcwd, in struct
 * aif_qos), plus drop reasons on the ingress port.
 */
#ifndef AIF_EGRESS_H
#define AIF_EGRESS_H

#include <stdint.h>

#include "pkt.h"
#include "qos.h"

struct rte_mbuf;
struct aif_switch;
struct aif_shard;

enum aif_drop_reason aif_egress_enqueue(struct aif_shard *sh, struct aif_qos *q, struct rte_mbuf *mb,
		       const struct aif_pkt *m, uint16_t out);
void aif_egress_service(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q,
			aif_time_ns now_ns);
/* What aif_egress_shutdown did. */
struct aif_egress_stop_info {
	unsigned discarded;  /* packets still queued, freed */
	unsigned xon_frames; /* XON frames the ports accepted */
	unsigned xon_prios;  /* priorities they released */
	unsigned xon_unsent; /* XON frames lost (no mbuf, or the port refused) */
};

/* Returns AIF_DROP_NONE when consumed, or AIF_DROP_MALFORMED when refused. */
enum aif_drop_reason aif_egress_pfc_input(struct aif_qos *q, uint16_t port, const struct aif_mac *port_mac,
			 const uint8_t *frame, uint32_t len, aif_time_ns now_ns);
/*
 * When the QoS of the switch next has something to do at or after now_ns
 * (a queue's packet may leave: shaper, pause end, the port ready again; a
 * PFC refresh; the watchdog), for a loop that jumps from event to event;
 * now_ns when it has work now.  Call after aif_egress_service.
 */
aif_time_ns aif_egress_next_event_ns(struct aif_switch *sw, struct aif_shard *sh,
				     struct aif_qos *q, aif_time_ns now_ns);
void aif_egress_shutdown(struct aif_switch *sw, struct aif_shard *sh, struct aif_qos *q,
			 aif_time_ns now_ns, struct aif_egress_stop_info *info);

#endif /* AIF_EGRESS_H */
