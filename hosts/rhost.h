/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A virtual RoCE host: a port implementation (port.h) whose far side is a
 * RoCEv2 NIC with queue pairs, as the edge of a fabric in virtual or real
 * time.  It sends and receives real frames: Ethernet / IPv4 / UDP 4791 /
 * BTH (RC RDMA WRITE or SEND, first/middle/last/only) / payload / ICRC,
 * answered by RC ACKs and NAKs (BTH + AETH) that carry congestion
 * notification as the BTH's BECN bit, or by CNPs (opcode 0x81).
 *
 * Requester (per QP): messages posted with aif_rhost_post are cut into
 * packets of mtu payload bytes, each with the next 24-bit PSN (wrapping),
 * from the QP's UDP source port (its entropy: 0xC000..0xFFFF, drawn from
 * the seed) to the peer QP.  Paced at the QP's rate: after a frame starts
 * at s the QP's next starts no earlier than s + wire bits / rate (DCQCN's
 * reaction point, dcqcn.h, sets the rate from the CNPs; without DCQCN the
 * line rate).  ACKs are cumulative; a NAK (PSN sequence error) carries the
 * PSN the responder expects.
 *
 * Go-back-N peer (as NICs without out-of-order placement, and ns-3's
 * rdma-hw.cc): on every NAK the requester goes back to the oldest
 * unacknowledged packet, also on a NAK for a PSN it already knows arrived
 * (nak_rewind_stale; false: such a NAK is old news).  Its timer (gbn_timer):
 * per_packet (ns-3's) restarts at every packet sent and every ACK or NAK
 * received while packets are outstanding, and fires rto_gbn_ns (ns-3's
 * L2Timeout, 4 ms) later; progress restarts it only when the oldest
 * outstanding packet changes, and waits at least the measured SRTT + 4
 * RTTVAR too.  On a timeout it goes back to the oldest unacknowledged
 * packet.
 *
 * Out-of-order-tolerant peer: selective repeat as IRN does it (Mittal et
 * al., "Revisiting Network Support for RDMA", SIGCOMM 2018).  The responder
 * answers every packet that comes ahead of the expected PSN with a NAK
 * carrying the cumulative point and, in a 4-byte extension after the AETH
 * (a reserved byte, then the PSN), the PSN that arrived: a SACK.  The
 * requester keeps a bitmap of what was SACKed; a hole is lost once a packet
 * nak_gap PSNs past it is SACKed (spraying reorders by up to a few hundred
 * packets: a smaller gap resends what is only late), and lost holes are
 * resent, each once, before new data.  The timer restarts on every ACK or
 * SACK that brings news; it is RTO_low (rto_low_ns) while at most
 * rto_low_pkts packets are in flight, else RTO_high (rto_ns).  In flight:
 * sent after the highest SACKed packet and not acknowledged (below it
 * packets arrived, or are lost, or late: a lost tail, or the last holes of
 * a burst, cost RTO_low, not RTO_high).  On a timeout every packet from the
 * oldest unacknowledged one that was not SACKed is sent again, before new
 * data.
 *
 * Timeouts, either mode: go-back-N's, RTO_high and RTO_low are at least
 * their parameter, and at least AIF_RHOST_RTO_K x (base_rtt_ns + the
 * serialization at the host rate of AIF_RHOST_RTO_PKTS, resp.
 * rto_low_pkts, full packets): slow hosts (0.1 Gb/s: 87 us a packet) wait
 * longer.  Selective repeat's (and go-back-N's with the progress timer)
 * never less than the QP's measured SRTT + 4 RTTVAR (RFC 6298's estimator
 * over one packet timed at a time, never a resent one): queues that hold
 * ACKs (other QPs' packets ahead, PFC) raise it.
 *
 * Responder (per QP), go-back-N, as rdma-hw.cc: the expected PSN is
 * accepted; a later one is dropped, and a NAK goes back for the expected
 * PSN if none went for it yet or the last went nak_interval_ns ago or more
 * (ns-3's NACKGenerationInterval, 4 us: while out-of-order packets keep
 * coming, a NAK every 4 us); otherwise nothing at all.  With cnp_on_ooo
 * the NAK carries congestion notification too (ns-3 always does, as RoCE
 * NICs send a CNP on out-of-order arrival).  Out-of-order tolerant (ooo):
 * packets up to AIF_RHOST_OOO_WINDOW PSNs ahead are kept in a bitmap and
 * SACKed as above.  Either mode: an ACK of the last in-order PSN every
 * ack_every packets and at each message's end (coalescing); duplicates are
 * counted and dropped.  A message is received when every packet up to its
 * last is.  Congestion notification (cnp): ack_flag (ns-3's, the default):
 * the ACK or NAK that answers a CE-marked packet (or an out-of-order one,
 * above) carries it, as the BECN bit of its BTH: no frame of its own, no
 * delay; IBA returns congestion notification on ACKs that way, and
 * RoCEv2's ICRC masks that byte, so the frame stays a valid RoCE ACK that
 * a NIC unaware of it reads as a plain one.  (With ack_every > 1 a mark on
 * a packet that gets no ACK of its own rides on the next.)  frame: a CNP
 * of its own (opcode 0x81, BECN set, 16 bytes of zeros, as ConnectX sends
 * them) cnp_delay_ns after the packet.  Either way at most one per QP per
 * cnp_interval_ns (DCQCN's notification point, dcqcn.h; 0: no limit, as
 * ns-3).  With icrc the ICRC of every received frame
 * is checked (a bad one is counted and dropped, as a NIC does) and sent
 * frames carry a valid one; without, sent frames carry zero (for speed, when
 * nothing checks).  With light_frames a data frame's payload, zeros, is
 * in no mbuf (dataplane/frame.h): the frame is its headers and its ICRC,
 * computed over the whole frame; what a host receives light it checks the
 * same way (the ICRC of the headers that arrived and of the zeros, against
 * the one carried), and the bytes anyone observes (pcap files, captures,
 * a DPDK port) are those of the whole frame.
 *
 * The NIC's wire: one frame at a time at rate_bps over a cable of
 * link_delay_ns each way, a frame taking the bytes wire_model (wire.h)
 * gives it: AIF_WIRE_ETHERNET, the frame and link.h's overhead (a
 * 1,000-byte payload 1,098 B on the wire with its RETH, 1,082 without, an ACK 86);
 * AIF_WIRE_NS3, ConWeave's ns-3 (L payload bytes L + 36, an ACK, NAK or
 * CNP 48, a PFC frame 31), in both directions: its sends, its pacing and
 * when what the switch sends it is in; ACKs, NAKs and CNPs go
 * before data; the host honours the PFC (and PAUSE) the switch sends it on
 * the priorities prio_of_dscp[] gives its DSCPs.  NIC-side delays
 * (ack_delay_ns, cnp_delay_ns, react_delay_ns: congestion notification in
 * to rate cut) are parameters, 0 by default as in ns-3: real NICs react
 * late, and that changes how deep queues get before PFC.
 *
 * Time.  A frame is decided at the time its first bit leaves and handed
 * to the switch when its last bit arrives, link_delay_ns after it left
 * the host's wire (rx_next_ns says when: a loop in virtual time steps
 * there).  Frames the switch sends the host arrive when their last bit
 * does, link_delay_ns after the switch's wire: data are handled at once
 * (what they change is the
 * responder's alone), ACKs, NAKs and CNPs in time order with the host's
 * own sends.  Timers (aif_rhost_timer) call back at their time; a workload
 * posts from its callbacks, so a run depends only on its inputs and seeds.
 *
 *	struct aif_rhost_params p;
 *	aif_rhost_params_default(&p, 100000000000ull);
 *	p.ip = ..., p.mac = ..., p.gw_mac = <the switch port's MAC>;
 *	struct aif_rhost *a = aif_rhost_create(&p, pool, 64, err, sizeof(err));
 *	aif_rhost_connect(a, b, &qa, &qb);      // a QP on each, paired
 *	aif_rhost_set_callback(a, done, arg);   // messages sent, received; timers
 *	aif_rhost_post(a, qa, 1 << 20, cookie, now);
 *	aif_rhost_attach(a, &sw->ports[0]);
 *
 * Single runner: a host is driven by the runner of its switch only.
 */
#ifndef AIF_RHOST_H
#define AIF_RHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../dataplane/dcqcn.h"
#include "../dataplane/port.h"
#include "../dataplane/types.h"

struct rte_mempool;

#define AIF_RHOST_OOO_WINDOW 4096 /* PSNs past the expected one an ooo responder keeps */
#define AIF_RHOST_QPN_BASE 0x100  /* local QP numbers start here */
#define AIF_RHOST_MTU_MIN 64
#define AIF_RHOST_MTU_MAX 8192
#define AIF_RHOST_RTO_K 4         /* timeouts: at least K x (base RTT + ...) */
#define AIF_RHOST_RTO_PKTS 64     /* ... + this many packets' serialization (RTO_high) */

enum aif_rhost_verb { AIF_RHOST_WRITE, AIF_RHOST_SEND };
/* How congestion notification goes back (see above). */
enum aif_rhost_cnp { AIF_RHOST_CNP_ACK_FLAG, AIF_RHOST_CNP_FRAME };
/* Go-back-N's retransmit timer (see above). */
enum aif_rhost_gbn_timer { AIF_RHOST_GBN_TIMER_PER_PACKET, AIF_RHOST_GBN_TIMER_PROGRESS };

/* link_delay_ns: the fabric's (control/vhosts.c resolves it: the delay of
 * the fabric's links; a host on its own has none). */
#define AIF_RHOST_LINK_DELAY_FABRIC AIF_TIME_NS_NEVER
#define AIF_RHOST_LINK_DELAY_MAX (1000 * AIF_NS_PER_MS)

struct aif_rhost_params {
	uint64_t rate_bps;          /* the NIC's line rate */
	struct aif_mac mac;         /* the host's */
	struct aif_mac gw_mac;      /* where every frame goes: the switch port's */
	uint32_t ip;                /* host order */
	uint16_t mtu;               /* payload bytes per packet, multiple of 4 */
	enum aif_rhost_verb verb;   /* RDMA WRITE (RETH on the first) or SEND */
	uint8_t dscp;               /* data: 26 (lossless class 3), ECT(0) */
	uint8_t ack_dscp;           /* ACK/NAK */
	uint8_t cnp_dscp;           /* CNP: 48 (ConnectX CNP_DSCP) */
	uint8_t prio_of_dscp[64];   /* the switch's DSCP -> priority (PFC) */
	bool ooo;                   /* responder: out-of-order tolerant */
	bool cnp_on_ooo;            /* go-back-N responder: CNP on out-of-order */
	bool dcqcn;                 /* reaction and notification points on */
	struct aif_dcqcn_params dc; /* their parameters */
	enum aif_rhost_cnp cnp;     /* on the ACK/NAK (ns-3), or a frame of its own */
	uint16_t ack_every;         /* ACK every this many packets (and at ends) */
	uint16_t nak_gap;           /* ooo: a hole is lost this many PSNs behind a SACK */
	aif_time_ns nak_interval_ns; /* go-back-N: NAK again for the same PSN after
				      * (ns-3's NACKGenerationInterval) */
	bool nak_rewind_stale;      /* go-back-N: a NAK for a PSN known arrived rewinds too */
	enum aif_rhost_gbn_timer gbn_timer;
	aif_time_ns rto_gbn_ns;     /* go-back-N's timeout (ns-3's L2Timeout) */
	aif_time_ns rto_ns;         /* RTO_high: selective repeat's timeout (at least) */
	aif_time_ns rto_low_ns;     /* RTO_low: ooo peer, few packets in flight */
	uint16_t rto_low_pkts;      /* "few": at most this many (IRN's N) */
	aif_time_ns base_rtt_ns;    /* the path's base RTT, 0: unknown (timeouts) */
	aif_time_ns link_delay_ns;  /* the cable's, each way (AIF_RHOST_LINK_DELAY_FABRIC) */
	aif_time_ns ack_delay_ns;   /* packet in to its ACK/NAK out */
	aif_time_ns cnp_delay_ns;   /* CE-marked packet in to CNP out (cnp frame) */
	aif_time_ns react_delay_ns; /* congestion notification in to the rate cut */
	bool icrc;                  /* send valid ICRCs and check received ones */
	bool light_frames;          /* data frames without their payload in the
				     * mbuf (dataplane/frame.h; false: whole) */
	uint8_t wire_model;         /* enum aif_wire_model: what a frame costs on
				     * the host's wire (control/vhosts.c: the
				     * fabric's "wire_model") */
	uint64_t seed;              /* first PSNs and UDP source ports */
};

/*
 * Defaults, those of ConWeave's ns-3 runs where it has them: mtu 1024,
 * WRITE, DSCP 26 for data, 48 for ACKs and CNPs (the high-priority queue
 * ACKs take in HPCC's simulator), priorities by DSCP 26 -> 3 and 48 -> 6
 * (others 0), go-back-N with cnp_on_ooo, DCQCN on with ConWeave's settings
 * (dcqcn.h aif_dcqcn_params_conweave: no CNP interval), congestion
 * notification on the ACK (ack_flag), ACK every packet, NAK again after
 * 4 us, stale NAKs rewind, go-back-N's timer per packet at 4 ms, nak_gap
 * 256 (spraying over a few paths with queues reorders by tens to hundreds
 * of packets: a smaller gap resends what is only late), selective
 * repeat's RTO_high 500 us (queues held by PFC delay ACKs by hundreds of
 * us; real NICs wait milliseconds) and RTO_low 100 us with at most 3
 * packets in flight (IRN's, at 40G), base RTT unknown, the fabric's link
 * delay, no ACK, CNP or reaction delay, ICRC on, light frames, Ethernet's
 * wire.
 */
void aif_rhost_params_default(struct aif_rhost_params *p, uint64_t rate_bps);


/* What the host tells its workload. */
enum aif_rhost_event {
	AIF_RHOST_SENT,     /* a posted message is acknowledged: cookie as posted */
	AIF_RHOST_RECEIVED, /* a whole message arrived: cookie = its number on the QP, from 0 */
	AIF_RHOST_TIMER,    /* a timer fired: cookie as set; qp unused */
};

struct aif_rhost;
typedef void (*aif_rhost_cb)(struct aif_rhost *h, enum aif_rhost_event ev, uint32_t qp,
			     uint64_t cookie, aif_time_ns at_ns, void *arg);

#define AIF_FOREACH_RHOST_QP_CTR(_)                                            \
	_(tx_packets, "data packets sent, retransmissions included")         \
	_(tx_bytes, "their payload bytes")                                   \
	_(retx, "data packets sent again")                                   \
	_(naks_rx, "NAKs received")                                          \
	_(timeouts, "retransmit timeouts")                                   \
	_(cnps_rx, "congestion notifications received (CNPs, flagged ACKs)") \
	_(rx_packets, "data packets received and kept")                      \
	_(rx_bytes, "their payload bytes")                                   \
	_(rx_ooo, "data packets that came ahead of the expected PSN")        \
	_(rx_dup, "duplicates: dropped")                                     \
	_(rx_ooo_drop, "out-of-order packets dropped (go-back-N, window)")   \
	_(rx_ce, "CE-marked data packets")                                   \
	_(acks_tx, "ACKs sent")                                              \
	_(naks_tx, "NAKs sent")                                              \
	_(cnps_tx, "congestion notifications sent (CNPs, flagged ACKs)")  \
	_(msgs_sent, "messages acknowledged")                                \
	_(msgs_rcvd, "messages received")

struct aif_rhost_qp_ctr {
#define AIF_RHOST_CTR_FIELD(name, text) uint64_t name;
	AIF_FOREACH_RHOST_QP_CTR(AIF_RHOST_CTR_FIELD)
};

#define AIF_FOREACH_RHOST_CTR(_)                                               \
	_(tx_frames, "frames sent to the switch")                            \
	_(tx_wire_bytes, "their bytes on the wire (wire_model)")            \
	_(rx_frames, "frames the switch sent the host")                      \
	_(rx_wire_bytes, "their bytes on the wire, PFC included")           \
	_(rx_icrc_bad, "RoCE frames with a bad ICRC: dropped")               \
	_(rx_other, "frames neither RoCE nor PFC for this host: dropped")    \
	_(rx_pfc, "PFC/PAUSE frames that paused the host (XOFF)")            \
	_(rx_xon, "PFC frames that resumed it")                              \
	_(paused_ns, "time the host's next frame waited for a pause")        \
	_(nombuf, "frames not sent: no mbuf (sent again later)")             \
	_(ctrl_overflow, "ACK/NAK/CNP not sent: the NIC's queue was full")  \
	_(refused, "frames refused: the host's receive wire busy")

struct aif_rhost_ctr {
	AIF_FOREACH_RHOST_CTR(AIF_RHOST_CTR_FIELD)
	struct aif_rhost_qp_ctr qp; /* the sum over QPs */
#undef AIF_RHOST_CTR_FIELD
};

extern const struct aif_port_ops aif_port_rhost_ops;

/* A host with up to max_qps QPs; NULL with err (the parameter and why). */
struct aif_rhost *aif_rhost_create(const struct aif_rhost_params *p, struct rte_mempool *pool,
				   uint32_t max_qps, char *err, size_t err_len);
void aif_rhost_free(struct aif_rhost *h);
const struct aif_rhost_params *aif_rhost_params(const struct aif_rhost *h);
void aif_rhost_set_callback(struct aif_rhost *h, aif_rhost_cb cb, void *arg);
/* Make port this host: its ops become aif_port_rhost_ops. */
void aif_rhost_attach(struct aif_rhost *h, struct aif_port *port);

/* The base RTT of the host's paths (the farthest peer's), which its
 * timeouts' floors scale with; before the run. */
void aif_rhost_set_base_rtt(struct aif_rhost *h, aif_time_ns rtt_ns);
/* RTO_high (low false) or RTO_low as the host applies them before any RTT
 * is measured: the parameter, raised for the base RTT and the rate. */
aif_time_ns aif_rhost_rto_ns(const struct aif_rhost *h, bool low);
/* Go-back-N's timeout, raised the same way. */
aif_time_ns aif_rhost_rto_gbn_ns(const struct aif_rhost *h);

/* Room for n more QPs (up to max_qps) at once, so that connecting them
 * does not grow the table n times over; 0, or -1 out of memory.  Before
 * the run, as connect. */
int aif_rhost_reserve_qps(struct aif_rhost *h, uint32_t n);
/* A QP on a and one on b, each the other's peer (*qa, *qb: their indices);
 * 0, or -1 when either host is out of QPs.  Before the run: QP state moves
 * as the table grows. */
int aif_rhost_connect(struct aif_rhost *a, struct aif_rhost *b, uint32_t *qa, uint32_t *qb);
/* The same with the first PSN each side sends (verbs' sq_psn), not drawn. */
int aif_rhost_connect_psn(struct aif_rhost *a, struct aif_rhost *b, uint32_t psn_a,
			  uint32_t psn_b, uint32_t *qa, uint32_t *qb);
/* Send bytes (> 0) on qp, not before ready_ns; 0, or -1 (no such QP, out
 * of memory).  AIF_RHOST_SENT with cookie when it is acknowledged. */
int aif_rhost_post(struct aif_rhost *h, uint32_t qp, uint64_t bytes, uint64_t cookie,
		   aif_time_ns ready_ns);
/* fn(arg) when work is given to the host from outside its own port calls
 * (a post or timer from another host's callback: a multi-plane rank): its
 * runner, which keeps when the host next sends, must ask again.  A loop
 * that polls every port every step needs none. */
void aif_rhost_set_waker(struct aif_rhost *h, void (*fn)(void *arg), void *arg);
/* AIF_RHOST_TIMER with cookie at at_ns; 0 or -1 (out of memory). */
int aif_rhost_timer(struct aif_rhost *h, aif_time_ns at_ns, uint64_t cookie);

const struct aif_rhost_ctr *aif_rhost_ctr(const struct aif_rhost *h);
const struct aif_rhost_qp_ctr *aif_rhost_qp_ctr(const struct aif_rhost *h, uint32_t qp);
uint32_t aif_rhost_n_qps(const struct aif_rhost *h);
/* The host's counters, its own and each QP's, as byte ranges: fn(p, len,
 * arg) for each, in one order (a process that did not run the host takes
 * them from one that did: control/ranks.h). */
void aif_rhost_ctr_ranges(struct aif_rhost *h, void (*fn)(void *p, size_t len, void *arg),
			  void *arg);
/* A QP's UDP source port, its current DCQCN rate (b/s). */
uint16_t aif_rhost_qp_sport(const struct aif_rhost *h, uint32_t qp);
double aif_rhost_qp_rate(const struct aif_rhost *h, uint32_t qp);
/* A QP's sending state now (for time series: rhost does not sample). */
struct aif_rhost_qp_state {
	double rate_bps;         /* DCQCN's current rate Rc (line rate without DCQCN) */
	double target_bps;       /* its target rate Rt */
	double alpha;
	uint64_t inflight_pkts;  /* packets sent and not acknowledged */
	uint64_t inflight_bytes; /* their payload */
	uint64_t unsent_pkts;    /* posted, not sent yet */
	uint64_t cnps_rx;        /* congestion notifications received */
	uint64_t naks_rx;        /* NAKs received */
};
/* The state at now_ns (DCQCN's timers run up to it on a copy; a
 * notification received and not yet acted on is not in it): 0, or -1 if
 * there is no such QP. */
int aif_rhost_qp_state(const struct aif_rhost *h, uint32_t qp, aif_time_ns now_ns,
		       struct aif_rhost_qp_state *st);
/* Make a QP send from UDP source port sport (an identity another simulator
 * gave the flow); before the run. */
void aif_rhost_qp_set_sport(struct aif_rhost *h, uint32_t qp, uint16_t sport);
/* log(arg, at_ns, pause) for every PFC/PAUSE frame the host receives and
 * acts on (pfc.h struct aif_pfc_rx_state); before the run. */
void aif_rhost_set_pfc_log(struct aif_rhost *h, void (*log)(void *arg, aif_time_ns now_ns,
							    bool pause), void *arg);
/* Nothing posted is left unacknowledged, nothing is waiting to be sent, no
 * timer is set. */
bool aif_rhost_idle(const struct aif_rhost *h);
/* When the host next has something to do (AIF_TIME_NS_NEVER: nothing). */
aif_time_ns aif_rhost_next_ns(const struct aif_rhost *h);

/* Frame bytes of a data packet with len payload bytes (first: with RETH). */
uint32_t aif_rhost_data_frame_len(const struct aif_rhost_params *p, uint32_t len, bool first);
/* Bytes of an ACK frame (a NAK with a SACK: 4 more). */
uint32_t aif_rhost_ack_frame_len(void);
/* What the same take on the wire under p->wire_model (wire.h): Ethernet's
 * frame + FCS, preamble and gap, or ns-3's len + 36 and 48. */
uint32_t aif_rhost_data_wire_bytes(const struct aif_rhost_params *p, uint32_t len, bool first);
uint32_t aif_rhost_ack_wire_bytes(const struct aif_rhost_params *p);

#endif /* AIF_RHOST_H */
