/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared-buffer memory management unit (MMU): one per switch.  Ingress
 * accounting per (in-port, priority group), egress accounting per
 * (out-port, queue), the PFC XOFF/XON decision per PG, lossy drops.
 *
 * Reads:  per packet the caller's (in_port, pg, out_port, queue, bytes,
 *         lossless); the read-only struct aif_mmu_config.
 * Writes: only struct aif_mmu (state, watermarks, counters) and the
 *         caller's struct aif_mmu_charge.  Never the packet.
 * Time:   none is needed: every decision depends on occupancy only.
 *
 * Use (one worker owns the struct aif_mmu; nothing here is atomic):
 *
 *	struct aif_mmu_charge ch;                   // kept with the packet
 *	v = aif_mmu_admit(m, in, pg, out, q, len, aif_mmu_pg_lossless(m, in, pg), &ch);
 *	if (v != AIF_MMU_ADMIT) drop, counted by reason;  else enqueue
 *	mask = aif_mmu_xoff_mask(m, in);            // PFC sender sends on change
 *	...
 *	aif_mmu_release(m, &ch);                    // when the packet leaves its queue
 *	mask = aif_mmu_xoff_mask(m, ch.in_port);    // XON may be due now
 *
 * Buckets of one ingress PG, charged in this order (HPCC switch-mmu.cc
 * UpdateIngressAdmission; the Broadcom variant adds the port minimum):
 *   1. reserve:      guaranteed per PG, reserve_bytes (HPCC 4 KB, BCM pg_min = 1 MTU);
 *   2. port reserve: guaranteed per port, shared by its PGs (BCM port_min = 1 MTU, HPCC 0);
 *   3. shared:       the switch-wide shared pool, while the PG's shared bytes
 *                    plus the packet stay <= the threshold;
 *   4. headroom:     lossless PGs only, beyond the threshold, up to the
 *                    port's headroom_bytes per PG; beyond that the packet
 *                    is dropped as AIF_MMU_DROP_HEADROOM_OVERFLOW (a
 *                    lossless violation: the headroom was too small).
 * A lossy PG beyond the threshold drops (AIF_MMU_DROP_SHARED_LIMIT).  A
 * lossy packet whose egress queue is over the egress limit drops
 * (AIF_MMU_DROP_EGRESS_LIMIT).  A packet that does not fit in the buffer
 * drops (AIF_MMU_DROP_POOL_FULL); with the defaults this cannot happen to
 * a lossless packet, only with an oversubscribed configuration (static or
 * alpha > 1 thresholds, several lossless PGs on one port's headroom).
 *
 * Release (on dequeue) takes the packet's bytes back from its PG's
 * buckets in the order headroom, shared, port reserve, reserve (HPCC
 * RemoveFromIngressAdmission), not from the buckets the packet itself went
 * to: packets leave FIFO, so undoing each packet's own split would free
 * the oldest (reserve) bytes first and keep headroom occupied until the PG
 * drained, holding XON back.  So the charge record keeps what release
 * needs (bytes, ingress PG, egress queue), not the admit split; the sums
 * always return to zero because a PG's total is conserved.
 *
 * Pool arithmetic (bytes; all ports count, lossless PGs or not):
 *   total_headroom = sum over ports of headroom_bytes[port]   (one per port,
 *                    HPCC ConfigNPort; each lossless PG of the port may use
 *                    up to it, like a shared headroom pool)
 *   total_reserve  = HPCC: n_ports * reserve_bytes             (one per port,
 *                          as HPCC ConfigNPort, though each PG may hold one)
 *                    BCM:  n_ports * (8 * reserve_bytes + port_reserve_bytes)
 *   shared_limit   = buffer - total_headroom - total_reserve
 *   dynamic threshold (HPCC GetPfcThreshold, SONiC dynamic_th):
 *     threshold = alpha * (shared_limit - shared_used),  alpha = 2^dynamic_th
 *     i.e. (shared_limit - shared_used) >> shift with shift = -dynamic_th
 *   static threshold: threshold = static_th_bytes.
 *   Scenario A1: buffer 32 MiB = 33,554,432, 17 ports, headroom 37,500,
 *     reserve 4,096, shift 3, empty pool:
 *     (33,554,432 - 17*37,500 - 17*4,096 - 0) >> 3 = 32,847,300 >> 3 = 4,105,912.
 *
 * XOFF / XON per lossless PG (shared = the PG's shared bytes, hdrm = its
 * headroom bytes, thr = threshold above):
 *   HPCC:  XOFF when hdrm > 0 or shared >= thr;
 *          XON  when hdrm == 0 and (shared == 0 or shared + resume_offset <= thr)
 *          (resume_offset 3 KB).
 *   BCM:   XOFF when hdrm > 0 or shared > thr;
 *          XON  when hdrm == 0 and (shared == 0 or
 *               shared < alpha * (shared_limit - shared_used - resume_offset))
 *          (resume_offset 16, bytes as in ConWeave's switch-mmu.cc; static
 *          mode: shared < static_th - resume_offset).
 *   aif_mmu_xoff_mask() keeps the hysteresis: an XOFF PG stays XOFF until
 *   the XON condition holds.  "shared == 0" releases a PG whose threshold
 *   fell below the offset (the sonic-mgmt#7058 trap).
 *
 * Egress limit (lossy packets only; lossless queues are held by PFC):
 *   none (HPCC default), static (egress_static_th_bytes per queue) or
 *   dynamic: limit = alpha_e * (buffer - total_reserve - used), alpha_e =
 *   2^egress_dynamic_th (BCM default 1); drop when queue + packet > limit.
 *
 * CONWEAVE: ConWeave's ns-3 switch-mmu.cc (the reference's "dynamic PFC
 * threshold" switch) with its constants.  aif_mmu_params_default gives:
 * buffer 9 MiB (9,437,184), mtu_bytes 1048 (ns-3's SwitchMmu::MTU, the
 * buffer constant, whatever the ports' MTU), reserve_bytes (pg_min) =
 * port_reserve_bytes (port_min) = 1048, dynamic_th -4 (alpha 1/16),
 * resume_offset_bytes 16, egress limit dynamic with alpha 1 on every data
 * queue (lossless too), headroom_slot0_quirk on.  Per port of speed R and
 * cable D: headroom set aside in the pool = 2 * BDP + 2 * mtu_bytes
 * (27,096 B at 100G, 1 us), or headroom_bytes when given; with the quirk,
 * port 0 sets aside 12,500 + 2 * mtu_bytes = 14,596 instead (ns-3 sums
 * slots 0..n-1 of an array filled at 1..n).  total_reserve = n * 8 *
 * reserve_bytes (max(8 pg_min, port_min) per port).
 *   shared_limit (sp_limit) = buffer - total set-aside - total_reserve
 *     leaf, 24 ports at 100G: 9,437,184 - (14,596 + 23 * 27,096) - 24 * 8,384
 *                             = 9,437,184 - 637,804 - 201,216 = 8,598,164
 *   egress pool (op_limit)  = buffer - total_reserve
 * Accounting (per data packet; a class that bypasses the MMU is not seen,
 * see aif_mmu_bypass):
 *   used = every byte charged (ns-3 usedSP: reserved and headroom bytes
 *   included); PG = every byte of the PG; a packet is charged whole to the
 *   PG's headroom bucket when used, with it, is over sp_limit, else to
 *   reserve, port reserve and shared in that order (bookkeeping only: the
 *   decisions read PG and used).
 *   Drops, in ns-3's order: egress, when the queue's bytes beyond
 *   queue_min_bytes (1,049) + the packet > alpha_e * (op_limit - the sum of
 *   every queue's bytes beyond its minimum); used + packet > buffer (pool
 *   full); a packet past the PG's and the port's guarantees while used >
 *   sp_limit: headroom bucket + packet > the port's headroom (lossless),
 *   or (lossy) PG - guarantee + packet > the threshold.
 *   XOFF: PG > guarantee (2,096) and (PG - guarantee > alpha * (sp_limit -
 *   used) or the PG's headroom bucket != 0); XON: headroom bucket == 0
 *   and PG - guarantee < alpha * (sp_limit - used - resume_offset).  Signed
 *   and exact (alpha a power of two: both sides are scaled by 2^-dynamic_th
 *   in 64-bit integers), as ns-3's doubles.  On an empty leaf the
 *   threshold is 8,598,164 / 16 = 537,385 B; a PG filling alone pauses
 *   once 17 * PG > 8,598,164 + 16 * 2,096, past 507,747 B.
 *   The port's headroom (the drop limit) is never below the worst case
 *   (below); when that is above the set-aside, config init checks that
 *   the sum of the differences stays within total_reserve, so the buffer
 *   still holds every lossless byte (AIF_MMU_ERR_HEADROOM_SLACK).
 *
 * Headroom.  What a lossless PG must hold after it crosses its XOFF point
 * is what the peer still sends before it stops: the worst case, as switch
 * vendors compute it (Cisco's Nexus PFC sizing, Mellanox/SONiC
 * buffer_headroom), for a port of rate R b/s with a cable of one-way delay
 * D ns and an IP MTU of M bytes (aif_mmu_headroom_min_bytes):
 *   frame   = M + 42 B on the wire: Ethernet 14 + 802.1Q tag 4 + FCS 4 +
 *             preamble, SFD and inter-frame gap 20
 *   0. frame          (HPCC and BCM) the frame that crosses the threshold:
 *                     these models put it in the headroom whole, and XOFF
 *                     follows it (CONWEAVE keeps it in the shared pool)
 *   1. frame          the frame this port is sending when it decides XOFF:
 *                     the PFC frame waits behind it (no pre-emption)
 *   2. 84 B           the PFC frame itself (64 + 20), serialized
 *   3. 480 B          the peer's response time: 3840 bit times at the port
 *                     rate (802.1Qbb's bound for 100G-class ports), from
 *                     the PFC frame's last bit to the peer's decision
 *   4. frame          the frame the peer has started when it decides: it
 *                     is not cut short
 *   5. cable          ceil(2 * R * D / 8e9) B: what the peer put on the
 *                     cable while the PFC frame travelled, and what was
 *                     already on it
 *   min_bytes = F * (M + 42) + 84 + 480 + ceil(2 * R * D / 8e9), F = 3
 *   (HPCC, BCM) or 2 (CONWEAVE)
 *   e.g. HPCC, 1 Gb/s, 1 us, 1500: 4626 + 564 + 250 = 5,440 B;
 *        HPCC, 100 Gb/s, 1 us, 9000: 27,126 + 564 + 25,000 = 52,690 B.
 * (With two frames the 1 Gb/s all-to-all of tests/pipeline/test_lossless.c
 * overflowed by one frame once its hosts had 1 us cables: the crossing
 * frame and the two that followed it.)
 * Terms 0, 1, 2 and 4 take the same bytes at any rate and dominate below
 * 10 Gb/s: 3 * BDP alone is 37 B at 0.1 Gb/s, less than a frame.  (The
 * emulated peers, links and virtual hosts, respond within term 4; a real
 * NIC on a DPDK port may take longer, up to IEEE 802.3 Annex 31B's PAUSE
 * reaction time, 394 quanta at 100G: give it headroom_bytes.)
 *
 * Derived headroom (headroom_bytes 0; aif_mmu_headroom_bytes), BDP =
 * floor(R * D / 8e9): the model's own formula, never below the worst case:
 *   HPCC (scratch/third.cc): max(3 * BDP, min_bytes);
 *     100G, 1 us, 1500: max(37,500, 30,190) = 37,500 B (scenario A1).
 *   BCM:                     max(2 * BDP + 2 * M, min_bytes);
 *     100G, 1 us, 1500: max(28,000, 30,190) = 30,190 B.
 * A configured headroom_bytes below min_bytes on a port with lossless PGs
 * and a known speed is refused (AIF_MMU_ERR_HEADROOM_LOW): lossless means
 * no drop at any rate and load, and that one would drop.
 *
 * Knobs (struct aif_mmu_params; SONiC names in brackets): model, buffer_bytes
 * [BUFFER_POOL size], reserve_bytes / port_reserve_bytes, th_mode
 * [BUFFER_POOL mode], dynamic_th / static_th_bytes [BUFFER_PROFILE
 * dynamic_th, static_th], resume_offset_bytes, egress_mode /
 * egress_dynamic_th / egress_static_th_bytes, per port headroom_bytes
 * [BUFFER_PROFILE xoff] or speed_bps + cable_delay_ns + mtu_bytes,
 * pfc_enable [PORT_QOS_MAP pfc_enable].
 *
 * Counters (AIF_FOREACH_MMU_VERDICT, AIF_FOREACH_MMU_PG_CTR,
 * AIF_FOREACH_MMU_QUEUE_CTR): per (in-port, PG) packets and bytes by verdict
 * (admitted, and dropped by reason), XOFF and XON transitions; per (out-port,
 * queue) dropped packets and bytes.  Watermarks (peak bytes): per PG shared
 * and headroom, per egress queue, pool used / shared / headroom;
 * aif_mmu_watermarks_clear() resets them (call it on the owning worker).
 */
#ifndef AIF_MMU_H
#define AIF_MMU_H

#include <stdbool.h>
#include <stdint.h>

#define AIF_MMU_MAX_PORTS 64 /* = AIF_MAX_PORTS (capacity.h), checked in mmu.c */
#define AIF_MMU_N_PG 8
#define AIF_MMU_N_QUEUE 8
#define AIF_MMU_CONWEAVE_MTU_BYTES 1048 /* ns-3 SwitchMmu::MTU: 14 + 20 + 14 + 1000 */

enum aif_mmu_model {
	AIF_MMU_HPCC = 0,  /* alibaba-edu/HPCC switch-mmu.cc */
	AIF_MMU_BROADCOM,  /* ConWeave/TLT switch-mmu.cc, Broadcom-style */
	AIF_MMU_CONWEAVE,  /* ConWeave's switch-mmu.cc as it runs (see below) */
	AIF_MMU_MODEL_MAX
};

enum aif_mmu_th_mode {
	AIF_MMU_TH_DYNAMIC = 0, /* alpha * free shared pool */
	AIF_MMU_TH_STATIC,      /* fixed bytes per PG */
	AIF_MMU_TH_MODE_MAX
};

enum aif_mmu_egress_mode {
	AIF_MMU_EGRESS_NONE = 0, /* no egress limit (HPCC CheckEgressAdmission) */
	AIF_MMU_EGRESS_STATIC,   /* fixed bytes per queue */
	AIF_MMU_EGRESS_DYNAMIC,  /* alpha_e * free buffer */
	AIF_MMU_EGRESS_MODE_MAX
};

/* Verdicts of aif_mmu_admit, declared once: enum, names, counter keys. */
#define AIF_FOREACH_MMU_VERDICT(_)                                             \
	_(ADMIT, "admit")                                                      \
	_(DROP_SHARED_LIMIT, "shared_limit")     /* lossy PG over its threshold */ \
	_(DROP_HEADROOM_OVERFLOW, "headroom_overflow") /* lossless: headroom full */ \
	_(DROP_EGRESS_LIMIT, "egress_limit")     /* lossy, egress queue over limit */ \
	_(DROP_POOL_FULL, "pool_full")           /* no room left in the buffer */

enum aif_mmu_verdict {
#define AIF_MMU_VERDICT_ENUM(id, name) AIF_MMU_##id,
	AIF_FOREACH_MMU_VERDICT(AIF_MMU_VERDICT_ENUM)
#undef AIF_MMU_VERDICT_ENUM
	AIF_MMU_VERDICT_MAX
};

/* Config errors: aif_mmu_config_init returns -AIF_MMU_ERR_<field>. */
#define AIF_FOREACH_MMU_ERR(_)                                                 \
	_(MODEL, "model: unknown")                                             \
	_(N_PORTS, "n_ports: 1..AIF_MMU_MAX_PORTS")                            \
	_(BUFFER, "buffer_bytes: zero")                                        \
	_(MTU, "mtu_bytes: zero")                                              \
	_(RESERVE, "reserve_bytes/port_reserve_bytes: larger than the buffer") \
	_(TH_MODE, "th_mode: unknown")                                         \
	_(DYNAMIC_TH, "dynamic_th: outside -16..3")                            \
	_(STATIC_TH, "static_th_bytes: zero in static mode")                   \
	_(RESUME_OFFSET, "resume_offset_bytes: not below the shared pool")     \
	_(EGRESS_MODE, "egress_mode: unknown")                                 \
	_(EGRESS_DYNAMIC_TH, "egress_dynamic_th: outside -16..3")              \
	_(EGRESS_STATIC_TH, "egress_static_th_bytes: zero in static mode")     \
	_(HEADROOM, "headroom: a lossless PG with neither headroom_bytes nor speed_bps") \
	_(HEADROOM_LOW, "headroom_bytes: below the worst case of a lossless port") \
	_(POOL, "buffer_bytes: reserves and headroom leave no shared pool")     \
	_(HEADROOM_SLACK, "headroom: beyond the pool's set-aside by more than the reserves")

enum aif_mmu_err {
	AIF_MMU_OK = 0,
#define AIF_MMU_ERR_ENUM(id, text) AIF_MMU_ERR_##id,
	AIF_FOREACH_MMU_ERR(AIF_MMU_ERR_ENUM)
#undef AIF_MMU_ERR_ENUM
	AIF_MMU_ERR_MAX
};

/* ---- params: what the user wrote ---- */

struct aif_mmu_port_params {
	uint64_t speed_bps;      /* port speed, for the headroom (0: unknown) */
	uint32_t cable_delay_ns; /* one-way propagation delay of the attached link */
	uint32_t mtu_bytes;      /* the port's IP MTU; 0: the switch's mtu_bytes */
	uint32_t headroom_bytes; /* per lossless PG; 0 = derive from speed_bps,
				  * cable_delay_ns and the MTU; else at least
				  * their worst case (aif_mmu_headroom_min_bytes) */
	uint8_t pfc_enable;      /* bit n set: PG n is lossless */
};

struct aif_mmu_params {
	enum aif_mmu_model model;
	uint16_t n_ports;
	uint64_t buffer_bytes;          /* the pool */
	uint32_t mtu_bytes;             /* IP MTU of ports that give none (headroom) */
	uint32_t reserve_bytes;         /* per PG guaranteed (HPCC reserve, BCM pg_min) */
	uint32_t port_reserve_bytes;    /* per port guaranteed (BCM port_min; HPCC 0) */
	enum aif_mmu_th_mode th_mode;
	int8_t dynamic_th;              /* alpha = 2^dynamic_th, -16..3 (HPCC -3, BCM -4) */
	uint32_t static_th_bytes;       /* static mode: PG shared bytes threshold */
	uint32_t resume_offset_bytes;   /* XON hysteresis (HPCC 3072, BCM 16) */
	enum aif_mmu_egress_mode egress_mode;
	int8_t egress_dynamic_th;       /* alpha_e = 2^egress_dynamic_th (BCM 0) */
	uint32_t egress_static_th_bytes;
	bool headroom_slot0_quirk;      /* CONWEAVE: port 0's headroom set aside as
					 * 12,500 + 2 * mtu_bytes (ns-3 InitSwitch) */
	struct aif_mmu_port_params port[AIF_MMU_MAX_PORTS];
};

/* ---- config: precomputed, read-only for the worker ---- */

struct aif_mmu_config {
	uint8_t model;              /* enum aif_mmu_model */
	uint8_t th_mode;            /* enum aif_mmu_th_mode */
	uint8_t egress_mode;        /* enum aif_mmu_egress_mode */
	int8_t dynamic_th;
	int8_t egress_dynamic_th;
	uint16_t n_ports;
	uint32_t reserve_bytes;
	uint32_t port_reserve_bytes;
	uint32_t static_th_bytes;
	uint32_t resume_offset_bytes;
	uint32_t egress_static_th_bytes;
	uint64_t buffer_bytes;
	uint64_t total_headroom_bytes;
	uint64_t total_reserve_bytes;
	uint64_t shared_limit_bytes; /* buffer - total_headroom - total_reserve */
	uint64_t egress_pool_bytes;  /* buffer - total_reserve */
	uint32_t guarantee_bytes;    /* CONWEAVE: reserve + port_reserve (2,096) */
	uint32_t queue_min_bytes;    /* CONWEAVE: egress queue minimum, mtu + 1 */
	uint32_t headroom_bytes[AIF_MMU_MAX_PORTS]; /* per lossless PG of the port */
	uint8_t pfc_enable[AIF_MMU_MAX_PORTS];
};

/* ---- state: one worker writes it ---- */

/* One ingress PG's occupancy, by bucket. */
struct aif_mmu_pg {
	uint32_t reserve_bytes;
	uint32_t port_reserve_bytes; /* this PG's part of the port minimum */
	uint32_t shared_bytes;
	uint32_t headroom_bytes;
};

struct aif_mmu_port {
	struct aif_mmu_pg pg[AIF_MMU_N_PG];
	uint32_t queue_bytes[AIF_MMU_N_QUEUE]; /* egress: bytes queued to send */
	uint32_t ingress_bytes;                /* every byte charged to the port's PGs */
	uint32_t port_reserve_bytes;           /* sum of the PGs' port_reserve_bytes */
	uint8_t xoff_mask;                     /* bit n: PG n is XOFF (hysteresis state) */
};

/* What aif_mmu_admit charged; the caller keeps it with the packet (the
 * switch in the mbuf, next to its egress queue link: keep it small). */
struct aif_mmu_charge {
	uint32_t bytes;
	uint16_t in_port;
	uint16_t out_port;
	uint8_t pg;
	uint8_t queue;
	uint8_t lossless : 1;
	uint8_t bypass : 1; /* 1: outside the buffer (aif_mmu_bypass): only
			     * port_bytes counts it */
	/* not the MMU's: the frame's ECN codepoint when it was queued, for
	 * ECN at dequeue without reading the frame (egress.c) */
	uint8_t ecn;
};

#define AIF_FOREACH_MMU_PG_CTR(_) \
	_(xoff_events)            \
	_(xon_events)

struct aif_mmu_pg_ctr {
	uint64_t packets[AIF_MMU_VERDICT_MAX]; /* [AIF_MMU_ADMIT] admitted, else dropped by reason */
	uint64_t bytes[AIF_MMU_VERDICT_MAX];
#define AIF_MMU_CTR_FIELD(n) uint64_t n;
	AIF_FOREACH_MMU_PG_CTR(AIF_MMU_CTR_FIELD)
#undef AIF_MMU_CTR_FIELD
};

#define AIF_FOREACH_MMU_QUEUE_CTR(_) \
	_(drop_packets)              \
	_(drop_bytes)

struct aif_mmu_queue_ctr {
#define AIF_MMU_CTR_FIELD(n) uint64_t n;
	AIF_FOREACH_MMU_QUEUE_CTR(AIF_MMU_CTR_FIELD)
#undef AIF_MMU_CTR_FIELD
};

/* Peak bytes since the last aif_mmu_watermarks_clear(). */
struct aif_mmu_watermarks {
	uint32_t pg_shared_bytes[AIF_MMU_MAX_PORTS][AIF_MMU_N_PG];
	uint32_t pg_headroom_bytes[AIF_MMU_MAX_PORTS][AIF_MMU_N_PG];
	uint32_t queue_bytes[AIF_MMU_MAX_PORTS][AIF_MMU_N_QUEUE];
	uint64_t pool_used_bytes;
	uint64_t pool_shared_bytes;
	uint64_t pool_headroom_bytes;
};

struct aif_mmu {
	const struct aif_mmu_config *cfg; /* read-only; outlives the MMU */
	uint64_t used_bytes;              /* every byte held, all buckets */
	uint64_t shared_used_bytes;       /* the shared pool (HPCC shared_used_bytes) */
	uint64_t headroom_used_bytes;
	uint64_t egress_shared_bytes;     /* CONWEAVE: queues' bytes beyond queue_min */
	/* bytes queued per egress port, all queues (what DRILL reads), side
	 * by side for the load-balancing stage */
	uint32_t port_bytes[AIF_MMU_MAX_PORTS];
	struct aif_mmu_port port[AIF_MMU_MAX_PORTS];
	struct aif_mmu_watermarks wm;
	struct aif_mmu_pg_ctr pg_ctr[AIF_MMU_MAX_PORTS][AIF_MMU_N_PG];
	struct aif_mmu_queue_ctr queue_ctr[AIF_MMU_MAX_PORTS][AIF_MMU_N_QUEUE];
};

/* ---- set-up (control) ---- */

/*
 * Model defaults for n_ports ports.  HPCC: 12 MiB buffer, reserve 4096,
 * dynamic_th -3, resume offset 3072, no egress limit.  BCM: 9 MiB, MTU
 * 1500, pg_min = port_min = MTU, dynamic_th -4, resume offset 16, dynamic
 * egress limit with alpha 1.  Every port: pfc_enable 0x18 (priorities 3 and
 * 4, SONiC), headroom derived: set speed_bps and cable_delay_ns (or
 * headroom_bytes) before aif_mmu_config_init.
 */
void aif_mmu_params_default(struct aif_mmu_params *p, enum aif_mmu_model model,
			    uint16_t n_ports);

/* Check params and precompute; 0, or -AIF_MMU_ERR_<field> for the first bad field. */
int aif_mmu_config_init(struct aif_mmu_config *c, const struct aif_mmu_params *p);

/* Text for a config error (accepts err or -err). */
const char *aif_mmu_err_name(int err);

/* Name of a verdict, as in counters output. */
const char *aif_mmu_verdict_name(enum aif_mmu_verdict v);

/* The terms of the worst-case headroom (see "Headroom" above). */
#define AIF_MMU_FRAME_OVERHEAD_BYTES 42 /* Ethernet 14 + tag 4 + FCS 4 + 20 on the wire */
#define AIF_MMU_PFC_FRAME_WIRE_BYTES 84 /* 64-byte PFC frame + 20 */
#define AIF_MMU_RESPONSE_BITS 3840      /* the peer's response, bit times */
/* Frames in the worst case: HPCC and BCM charge the crossing frame to the
 * headroom whole (three), CONWEAVE keeps it in the shared pool (two). */
#define AIF_MMU_WORST_FRAMES(model) ((model) == AIF_MMU_CONWEAVE ? 2u : 3u)

/*
 * The worst-case headroom of a lossless PG on a port of speed_bps with a
 * cable of delay_ns one way and an IP MTU of mtu_bytes, for the model's
 * admission: F * (mtu + 42) + 84 + 480 + ceil(2 * speed * delay / 8e9)
 * bytes, F = 3 (HPCC, BCM: the crossing frame is headroom's whole) or 2
 * (CONWEAVE).  Saturates at UINT32_MAX.
 *	aif_mmu_headroom_min_bytes(AIF_MMU_HPCC, 1000000000ull, 1000, 1500) == 5440
 */
uint32_t aif_mmu_headroom_min_bytes(enum aif_mmu_model model, uint64_t speed_bps,
				    uint64_t delay_ns, uint32_t mtu_bytes);

/*
 * The derived headroom of a PG: the model's formula (HPCC 3 * BDP, BCM
 * 2 * BDP + 2 * mtu; BDP = floor(speed_bps * delay_ns / 8e9)), never below
 * aif_mmu_headroom_min_bytes.  0 when speed_bps is 0.  Saturates at
 * UINT32_MAX.
 *	aif_mmu_headroom_bytes(AIF_MMU_HPCC, 100000000000ull, 1000, 1500) == 37500
 *	aif_mmu_headroom_bytes(AIF_MMU_HPCC, 100000000ull, 1000, 1500) == 5215
 */
uint32_t aif_mmu_headroom_bytes(enum aif_mmu_model model, uint64_t speed_bps,
				uint64_t delay_ns, uint32_t mtu_bytes);

/* Empty state over cfg (kept by pointer); counters and watermarks zero. */
void aif_mmu_init(struct aif_mmu *m, const struct aif_mmu_config *cfg);

/* ---- per packet (worker) ---- */

/*
 * Admission of one packet of `bytes` from (in_port, pg) to (out_port,
 * queue).  On AIF_MMU_ADMIT the bytes are charged and *ch says where; keep
 * it and hand it to aif_mmu_release() when the packet leaves.  On a drop
 * nothing is charged, the reason is counted, and *ch is untouched.
 */
enum aif_mmu_verdict aif_mmu_admit(struct aif_mmu *m, uint16_t in_port, uint8_t pg,
				   uint16_t out_port, uint8_t queue, uint32_t bytes,
				   bool lossless, struct aif_mmu_charge *ch);

/* Give back what aif_mmu_admit (or aif_mmu_bypass) charged (on dequeue). */
void aif_mmu_release(struct aif_mmu *m, const struct aif_mmu_charge *ch);

/*
 * A packet of a class kept outside the buffer (ns-3's ACK/NAK queue 0,
 * policy qos "mmu_bypass"): no ingress or egress bucket, no threshold, no
 * counter and no watermark sees it, so it is never paused, refused or
 * marked for the buffer's sake and moves no other packet's threshold.
 * Only port_bytes (the port's queued bytes, all queues: what DRILL and
 * least_loaded read, as ns-3's GetNBytesTotal counts queue 0 too) carries
 * its bytes until aif_mmu_release gives them back.  Fills *ch (bypass 1).
 */
void aif_mmu_bypass(struct aif_mmu *m, uint16_t in_port, uint8_t pg, uint16_t out_port,
		    uint8_t queue, uint32_t bytes, struct aif_mmu_charge *ch);

/*
 * For a packet that leaves at once (cut-through): true when it fits in what
 * is left of its PG's reserve and of the pool, where aif_mmu_admit would
 * admit it into the reserve; it is then counted as admitted (and the queue
 * watermark sees it) but nothing is held, so no release follows.  False: use
 * aif_mmu_admit.
 */
bool aif_mmu_admit_passing(struct aif_mmu *m, uint16_t in_port, uint8_t pg,
			   uint16_t out_port, uint8_t queue, uint32_t bytes);

/* Current PG shared threshold in bytes (dynamic or static), capped at UINT32_MAX. */
uint32_t aif_mmu_threshold_bytes(const struct aif_mmu *m);

/* The XOFF condition of (port, pg), without hysteresis or pfc_enable. */
bool aif_mmu_should_pause(const struct aif_mmu *m, uint16_t port, uint8_t pg);

/* The XON condition of (port, pg), without hysteresis or pfc_enable. */
bool aif_mmu_should_resume(const struct aif_mmu *m, uint16_t port, uint8_t pg);

/*
 * The port's XOFF mask (bit n: PG n paused) with hysteresis: a lossless PG
 * turns XOFF when should_pause holds and back XON only when should_resume
 * holds; lossy PGs are never XOFF.  Counts transitions.  Call after each
 * admit (its in_port) and each release (every port whose XON may be due:
 * a release raises the dynamic threshold for all).
 */
uint8_t aif_mmu_xoff_mask(struct aif_mmu *m, uint16_t port);

/* True when aif_mmu_xoff_mask(m, port) would return 0 and change nothing:
 * no PG of the port in XOFF, and none of its lossless PGs holding shared
 * or headroom bytes (outside the ConWeave model, whose test differs). */
static inline bool
aif_mmu_port_calm(const struct aif_mmu *m, uint16_t port)
{
	const struct aif_mmu_port *p = &m->port[port];
	unsigned en = m->cfg->pfc_enable[port];

	if (p->xoff_mask != 0 || m->cfg->model == AIF_MMU_CONWEAVE)
		return false;
	for (unsigned pg = 0; en != 0; pg++, en >>= 1)
		if ((en & 1) && (p->pg[pg].shared_bytes | p->pg[pg].headroom_bytes) != 0)
			return false;
	return true;
}

/* Zero the watermarks (on the owning worker). */
void aif_mmu_watermarks_clear(struct aif_mmu *m);

static inline bool
aif_mmu_pg_lossless(const struct aif_mmu *m, uint16_t port, uint8_t pg)
{
	return (m->cfg->pfc_enable[port] >> pg) & 1;
}

/* Bytes queued on (port, queue): for ECN and schedulers. */
static inline uint32_t
aif_mmu_queue_bytes(const struct aif_mmu *m, uint16_t port, uint8_t queue)
{
	return m->port[port].queue_bytes[queue];
}

static inline const struct aif_mmu_pg *
aif_mmu_pg_get(const struct aif_mmu *m, uint16_t port, uint8_t pg)
{
	return &m->port[port].pg[pg];
}

#endif /* AIF_MMU_H */
