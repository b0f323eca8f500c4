/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lossless QoS of one switch: the egress half of the pipeline.
 *
 * Routed packets go, per egress port, through
 *   MMU admission (mmu.h: reserve, shared pool, headroom, drops by reason)
 *   -> ECN/WRED at enqueue or dequeue (ecn.h)
 *   -> one of 8 queues, strict priority over DWRR, shaped (sched.h)
 *   -> TX, unless PFC frames received on the port pause the queue (pfc.h),
 * and every admission or release re-evaluates the ingress port's XOFF mask,
 * which the PFC sender turns into XOFF / refresh / XON frames out of that
 * port.  The PFC watchdog (pfcwd.h) watches paused queues.
 *
 * Params come from the policy's "qos" object (params.h); control
 * compiles them into a struct aif_qos_config inside the immutable tables.
 * The state (struct aif_qos) belongs to the one worker that runs the switch
 * (a switch is run by one worker: the fabric work gives each worker a set of
 * switches); it copies the config it uses when the tables change, at the
 * start of a step, so nothing it holds between steps points into tables
 * that control may free.
 *
 * Mapping: traffic class -> queue (tc_to_queue) and -> priority group
 * (tc_to_pg); PG p is lossless when bit p of pfc_enable is set; a received
 * PFC frame for priority p pauses queue p (SONiC's default pfc_to_queue_map).
 *
 * Classes outside the buffer (bypass_tcs, policy "mmu_bypass", default
 * TC 6: ACKs, NAKs and CNPs): as ConWeave's ns-3 treats its ACK/NAK queue,
 * such a packet is not admitted by the MMU (aif_mmu_bypass: no ingress or
 * egress accounting, so no PFC and no buffer drop for it, and it moves
 * nobody's threshold), nor ECN-marked; it is queued on its class's queue
 * (strict priority by default) unless that queue already holds
 * bypass_limit_bytes of frames on the port, when it is dropped as
 * bypass_queue_full: a class that cannot be paused must be bounded
 * somewhere, and ACK-sized traffic never gets near the default 256 KiB.
 */
#ifndef AIF_QOS_H
#define AIF_QOS_H

#include <stdbool.h>
#include <stdint.h>

#include "capacity.h"
#include "params.h"
#include "ecn.h"
#include "mintree.h"
#include "mmu.h"
#include "pfc.h"
#include "pfcwd.h"
#include "sched.h"
#include "types.h"

struct rte_mbuf;

#define AIF_QOS_NQ 8
#define AIF_QOS_WD_PERIOD_NS (1 * AIF_NS_PER_MS) /* watchdog sampling */
/*
 * A shaped port's token bucket holds one MTU frame plus what the rate earns
 * in this long: the worker serves a port once per step, and tokens earned
 * beyond a full bucket between two services are lost, so a bucket of one
 * frame (the scheduler's default) loses rate whenever a step takes longer
 * than the frame's slack (at 10 Gb/s a 1 us step sends one 1000 B frame per
 * step: 8.2 Gb/s).  Steps up to this long keep the exact rate (the rule
 * Linux tbf states as burst >= rate / HZ); the price is a burst of this much
 * at line rate after an idle period.  It is the default of the port's
 * "shaper_burst_bytes", which says it explicitly: a runner in virtual time
 * steps at the shaper's next event (aif_runner_next_event_ns), where one
 * frame is enough.
 */
#define AIF_QOS_SHAPER_SLACK_NS (10 * AIF_NS_PER_US)

/* Compiled from the policy, read-only (lives in struct aif_tables). */
struct aif_qos_config {
	bool enable;
	uint8_t tc_to_queue[8];
	uint8_t tc_to_pg[8];
	uint8_t pfc_enable;
	uint8_t ecn_queues;
	uint8_t ecn_at_enqueue;
	uint8_t trim_queues;          /* bit q: overflow of queue q is trimmed */
	uint8_t trim_queue;
	uint8_t trim_dscp;
	uint16_t trim_size_bytes;
	uint8_t bypass_tcs;           /* bit tc: the class stays outside the MMU
				       * (aif_mmu_bypass; policy "mmu_bypass") */
	uint32_t bypass_limit_bytes;  /* a bypass class's queue: at most this
				       * many frame bytes per port */
	uint8_t wire_model;           /* enum aif_wire_model: what the MMU
				       * charges a packet (wire.h; the fabric's
				       * "wire_model", set by control) */
	uint16_t n_ports;
	struct aif_mmu_config mmu;
	struct aif_ecn_config ecn;
	struct aif_pfcwd_config wd;
	struct aif_sched_config sched[AIF_MAX_PORTS];
	struct aif_pfc_tx_config pfc_tx[AIF_MAX_PORTS];
	uint64_t speed_bps[AIF_MAX_PORTS];
};

struct aif_qos_port {
	struct aif_sched sched;
	struct aif_pfc_rx_state pfc_rx;
	struct aif_pfc_tx_state pfc_tx;
	struct aif_pfcwd_state wd[AIF_QOS_NQ];
	struct aif_ecn_ctr ecn[AIF_QOS_NQ];
	uint64_t trimmed[AIF_QOS_NQ];  /* packets trimmed on overflow of queue q */
	/* Cut-through: admitted while nothing was queued on the port; sent by
	 * this step's egress service unless their queue was paused meanwhile.
	 * Anything enqueued on the port first moves these into the queues. */
	uint16_t n_through;
	uint8_t through_q[32];
	uint8_t through_charged[32];  /* 0: admitted without a charge (passing) */
	void *through[32];
	uint8_t xoff_mask;            /* last XOFF mask of the port's PGs */
};

/* Owned by the switch's worker; control reads its counters. */
struct aif_qos {
	uint64_t generation;          /* of the tables the config came from */
	struct aif_qos_config cfg;    /* copy, see above */
	struct aif_mmu mmu;
	uint64_t check_xoff;          /* bit p: re-evaluate port p's XOFF mask */
	uint64_t stale_next;          /* bit p: port[p].next_ns to compute again */
	uint64_t active;              /* bit p: port p may hold packets (queued or
				       * passing through) or is shaped */
	uint64_t xoff_ports;          /* bit p: port p's peer was last told XOFF */
	uint64_t check_xon;           /* bit p: a packet that came in on port p
				       * left (PFC ns-3 mode: XON may be due) */
	uint64_t next_generation;     /* the config next_ns were computed under */
	uint32_t clear_wm_req;        /* control asks (increments)... */
	uint32_t clear_wm_done;       /* ...the worker clears the watermarks */
	aif_time_ns next_wd_ns;
	uint64_t wd_storm_ports;      /* bit p: a queue of port p is in a PFC
				       * storm (port[p].wd[k].storm, set by the
				       * watchdog's tick): what the packet path
				       * reads instead of the cold watchdog state */
	uint16_t n_ports;
	/* port p's next event, as last computed (egress.c), in a min tree:
	 * every step takes their minimum, and a step serves those due */
	struct aif_mintree next;
	/* PFC ns-3 mode: packets admitted from port p since its last check
	 * that found a lossless PG of p over its threshold as they came in (a
	 * PAUSE goes for each, as ns-3's CheckAndSendPfc after each
	 * admission), and those PGs */
	uint16_t ns3_admits[AIF_MAX_PORTS];
	uint8_t ns3_over[AIF_MAX_PORTS];
	struct aif_qos_port port[AIF_MAX_PORTS];
};

/*
 * Control: compile the QoS part (qp) of the policy named policy_name for
 * switch sw_index, whose ports run at speed_bps[] and are described by
 * ports[] (shaper, MTU); link_delay_ns[] (or NULL) is the one-way delay of
 * the emulated link on each port (0: none), which the headroom counts when
 * it is longer than the policy's cable_delay_ns.  Returns 0 or -1 with err
 * naming the JSON path of the field at fault
 * ("$.policies.<name>.qos.buffer.headroom_bytes: ...") and the numbers that
 * made it so.
 */
int aif_qos_compile(struct aif_qos_config *qc, const struct aif_qos_params *qp,
		    const struct aif_port_params *ports, uint16_t n_ports,
		    const uint64_t *speed_bps, const uint64_t *link_delay_ns,
		    const char *policy_name, uint16_t sw_index, char *err, size_t err_len);

/* Worker: create the state for n_ports ports (one calloc of struct
 * aif_qos: the queues live in the mbufs they hold, see struct
 * aif_qos_dynfield); NULL on failure.  Registers the dynfield if nobody
 * has (EAL must be up). */
struct aif_qos *aif_qos_create(const struct aif_qos_config *qc, uint16_t n_ports,
			       aif_time_ns now_ns);
void aif_qos_free(struct aif_qos *q);

/* Free every packet still queued (releasing its buffer charge); returns how
 * many.  For the owning worker, or anyone once the workers have stopped. */
unsigned aif_qos_discard(struct aif_qos *q);

/* Worker: adopt a new config (tables of a new generation). */
int aif_qos_apply(struct aif_qos *q, const struct aif_qos_config *qc,
		  uint64_t generation, aif_time_ns now_ns);

/*
 * What every packet the QoS holds carries in its mbuf (one dynfield, 24 of
 * the 36 bytes DPDK keeps for them; qos.c says why no more): its MMU
 * charge, and the node that links it into its egress queue (the
 * scheduler's node_off points there).
 */
struct aif_qos_dynfield {
	struct aif_mmu_charge charge;
	struct aif_sched_node node;
};

/* Offset of struct aif_qos_dynfield in an mbuf; -1 until registered. */
extern int aif_qos_dynfield_off;
int aif_qos_register_dynfield(void);

static inline struct aif_mmu_charge *
aif_qos_charge(struct rte_mbuf *m)
{
	return &((struct aif_qos_dynfield *)((char *)m + aif_qos_dynfield_off))->charge;
}

#endif /* AIF_QOS_H */
