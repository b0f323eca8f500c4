/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC (IEEE 802.1Qbb) and 802.3x PAUSE: the wire format, what a port does
 * with the frames it receives (reception state), and when a port must send
 * one (generation state).  Plain C, no EAL.
 *
 * Wire format (60 bytes before the FCS; all fields big-endian):
 *
 *	0  dst 01:80:C2:00:00:01     6  src (the port MAC)
 *	12 EtherType 0x8808          14 opcode: 0x0101 PFC, 0x0001 PAUSE
 *	PFC:   16 class-enable vector (2 bytes; bit n = time n valid; the
 *	          upper octet is reserved, zero)
 *	       18 eight 2-byte times in quanta, priority 0 first (18 + 2n)
 *	       34..59 zero padding
 *	PAUSE: 16 one 2-byte time in quanta, for the whole link
 *	       18..59 zero padding
 *
 * Time: one quantum is 512 bit times at the port speed, so
 *	t_ns = ceil(quanta * 512 * 1e9 / speed_bps)     (exact, integers)
 * 0xFFFF quanta = 335,540 ns at 100G (335,539.2 rounded up), 838,848 ns at
 * 40G, 83,885 ns at 400G.  A time of 0 means "resume now" (XON).
 *
 * Reception (struct aif_pfc_rx_state, one per port, mutated by the worker
 * that receives on it):
 *   reads:  parsed frames (aif_pfc_frame_parse), the port MAC and speed,
 *           now_ns;
 *   writes: per priority the deadline until which the peer has paused us
 *           (paused_until_ns: paused while now_ns < deadline) and the exact
 *           time spent paused (pause_ns_total);
 *   rules:  a frame acts only if it is addressed as its standard says:
 *           PFC (802.1Qbb) to 01:80:C2:00:00:01 alone; PAUSE (802.3
 *           Annex 31B) to 01:80:C2:00:00:01 or to the receiving port's own
 *           MAC.  Anything else (01:80:C2:00:00:02, a foreign unicast MAC,
 *           a group address) is refused as bad_destination: a frame meant
 *           for another station or protocol must not stop our queues.
 *           For each enabled priority of an accepted frame, a time of 0
 *           resumes now, else the pause lasts until now + time; a new
 *           frame replaces the old deadline (also with a shorter one).
 *           PAUSE acts on all eight.
 *   counters (AIF_FOREACH_PFC_RX_*_CTR): per priority rx_pfc (XOFF, time
 *           > 0) and rx_xon (time 0); per port rx_pause (802.3x frames
 *           accepted) and rx_pause_port_mac (of those, sent to the port's
 *           own MAC, as some NICs do); rx_err[], the frames refused, one
 *           counter per reason of AIF_FOREACH_PFC_RX_ERR (named by
 *           aif_pfc_err_name).
 *
 * Generation (struct aif_pfc_tx_state, one per port, mutated by the worker
 * that transmits on it), kept apart from the wire:
 *   reads:  which priorities the buffer manager holds congested (an xoff
 *           mask, folded from struct aif_pfc_signal), the config, now_ns;
 *   writes: per priority "peer told XOFF" and the next refresh time;
 *   verdict: aif_pfc_tx_update() returns 1 and fills class_enable/quanta
 *           when a frame must go now (the caller builds and sends it):
 *           on a new XOFF, when an XOFF priority's refresh is due, and on
 *           XON (time 0 for the priorities that cleared).  Any frame sent
 *           carries every priority currently XOFF (an early refresh is
 *           harmless and saves frames), so one frame can carry several.
 *   knobs (struct aif_pfc_tx_params): quanta per priority (default
 *           0xFFFF), refresh_ns (default half the pause time of each
 *           priority at the port speed), speed_bps, pfc_enable (priorities
 *           that may ever be paused; others are never signalled).
 *   counters (AIF_FOREACH_PFC_TX_*_CTR): per priority tx_pfc (XOFF, time
 *           > 0, first or refresh) and tx_xon; per port tx_frames.
 *
 *	struct aif_pfc_tx_config cfg;
 *	struct aif_pfc_tx_params p = { .speed_bps = 100000000000ull,
 *				       .pfc_enable = 1u << 3 };
 *	if (aif_pfc_tx_config_init(&cfg, &p) < 0) ...
 *	if (aif_pfc_tx_update(&st, &cfg, mmu_xoff_mask, now_ns, &ce, q))
 *		send(aif_pfc_frame_build(buf, sizeof(buf), &port_mac, ce, q));
 */
#ifndef AIF_PFC_H
#define AIF_PFC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

#define AIF_PFC_PRIOS 8
#define AIF_PFC_FRAME_LEN 60      /* bytes, without the FCS */
#define AIF_MAC_CTRL_OP_PAUSE 0x0001
#define AIF_MAC_CTRL_OP_PFC 0x0101
#define AIF_PFC_QUANTUM_BITS 512  /* bit times per quantum */
#define AIF_PFC_QUANTA_MAX 0xFFFF

/* 01:80:C2:00:00:01, the reserved MAC control destination. */
extern const struct aif_mac aif_pfc_dst_mac;

/*
 * Errors of this module, negative, each distinct: frame parsing and
 * config-init (CFG_*).  aif_pfc_err_name(err) gives the name.
 */
#define AIF_FOREACH_PFC_RX_ERR(_)                                              \
	_(TRUNCATED, "truncated")            /* ends before a field it needs */ \
	_(NOT_MAC_CTRL, "not_mac_control")   /* EtherType is not 0x8808 */      \
	_(VLAN_TAGGED, "vlan_tagged")        /* MAC control is never tagged */  \
	_(OPCODE, "unknown_opcode")          /* neither 0x0001 nor 0x0101 */    \
	_(RESERVED, "class_vector_reserved") /* vector's upper octet != 0 */    \
	_(BAD_DST, "bad_destination")        /* see "rules" above */
#define AIF_FOREACH_PFC_CFG_ERR(_)                                             \
	_(CFG_NULL, "config_null")           /* no params or no config */       \
	_(CFG_SPEED, "config_speed")         /* speed_bps == 0 */               \
	_(CFG_QUANTA, "config_quanta")       /* half the pause < 1 min frame */ \
	_(CFG_REFRESH_LONG, "config_refresh_long")   /* >= a pause time */      \
	_(CFG_REFRESH_SHORT, "config_refresh_short") /* < 1 min frame */
/* The received-frame errors come first: they are also counters (rx_err[]). */
#define AIF_FOREACH_PFC_ERR(_) AIF_FOREACH_PFC_RX_ERR(_) AIF_FOREACH_PFC_CFG_ERR(_)

/* Positions in the list (1, 2, ...), then the errors themselves: -1, -2, ...
 * named AIF_PFC_E_<ID> (AIF_PFC_E_TRUNCATED, AIF_PFC_E_CFG_SPEED, ...). */
enum aif_pfc_err_idx {
	AIF_PFC_ERRIDX_OK_ = 0,
#define AIF_PFC_ERR_IDX(id, name) AIF_PFC_ERRIDX_##id,
	AIF_FOREACH_PFC_ERR(AIF_PFC_ERR_IDX)
#undef AIF_PFC_ERR_IDX
	AIF_PFC_ERRIDX_COUNT_,
};
enum aif_pfc_err {
	AIF_PFC_OK = 0,
#define AIF_PFC_ERR_ENUM(id, name) AIF_PFC_E_##id = -(int)AIF_PFC_ERRIDX_##id,
	AIF_FOREACH_PFC_ERR(AIF_PFC_ERR_ENUM)
#undef AIF_PFC_ERR_ENUM
};

/* Name of an error (0 -> "ok"; unknown -> "unknown"). */
const char *aif_pfc_err_name(int err);

/* How many received-frame errors there are; error err (one of them) is
 * counted in rx_err[-err - 1], and rx_err[i] is named
 * aif_pfc_err_name(-(int)i - 1). */
enum {
#define AIF_PFC_RX_ERR_ONE(id, name) + 1
	AIF_PFC_RX_ERR_N = 0 AIF_FOREACH_PFC_RX_ERR(AIF_PFC_RX_ERR_ONE)
#undef AIF_PFC_RX_ERR_ONE
};

/* ---- Counters, declared once ---- */

#define AIF_FOREACH_PFC_RX_PRIO_CTR(_) \
	_(rx_pfc)   /* PFC frames with this class enabled, time > 0 */ \
	_(rx_xon)   /* PFC frames with this class enabled, time 0 */
#define AIF_FOREACH_PFC_RX_PORT_CTR(_) \
	_(rx_pause)           /* 802.3x PAUSE frames accepted (any time) */ \
	_(rx_pause_port_mac)  /* of those, sent to the port's own MAC */
#define AIF_FOREACH_PFC_TX_PRIO_CTR(_) \
	_(tx_pfc)   /* frames that told the peer XOFF (first or refresh) */ \
	_(tx_xon)   /* frames that told the peer XON */
#define AIF_FOREACH_PFC_TX_PORT_CTR(_) \
	_(tx_frames) /* PFC frames asked for (one may carry several classes) */

#define AIF_PFC_CTR_ARRAY(n) uint64_t n[AIF_PFC_PRIOS];
#define AIF_PFC_CTR_FIELD(n) uint64_t n;
struct aif_pfc_rx_ctr {
	AIF_FOREACH_PFC_RX_PRIO_CTR(AIF_PFC_CTR_ARRAY)
	AIF_FOREACH_PFC_RX_PORT_CTR(AIF_PFC_CTR_FIELD)
	uint64_t rx_err[AIF_PFC_RX_ERR_N]; /* frames refused, per reason */
};
struct aif_pfc_tx_ctr {
	AIF_FOREACH_PFC_TX_PRIO_CTR(AIF_PFC_CTR_ARRAY)
	AIF_FOREACH_PFC_TX_PORT_CTR(AIF_PFC_CTR_FIELD)
};
#undef AIF_PFC_CTR_ARRAY
#undef AIF_PFC_CTR_FIELD

/* Frames refused for any reason (the sum of rx_err[]). */
static inline uint64_t
aif_pfc_rx_err_total(const struct aif_pfc_rx_ctr *c)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < AIF_PFC_RX_ERR_N; i++)
		n += c->rx_err[i];
	return n;
}

/* Names, in declaration order (per-priority ones get 0..7 appended by
 * whoever prints them, as SONiC's PFC0..PFC7). */
extern const char *const aif_pfc_rx_prio_ctr_names[];
extern const unsigned aif_pfc_rx_prio_ctr_n;
extern const char *const aif_pfc_rx_port_ctr_names[];
extern const unsigned aif_pfc_rx_port_ctr_n;
extern const char *const aif_pfc_tx_prio_ctr_names[];
extern const unsigned aif_pfc_tx_prio_ctr_n;
extern const char *const aif_pfc_tx_port_ctr_names[];
extern const unsigned aif_pfc_tx_port_ctr_n;

/* ---- Wire format ---- */

/*
 * Build a PFC frame into buf (60 bytes, no FCS).  A time is written only for
 * a class enabled in class_enable; the others are zero.  Returns 60, or -1
 * if len < 60.
 *
 *	uint16_t q[8] = { [3] = 0xFFFF };
 *	n = aif_pfc_frame_build(buf, sizeof(buf), &port_mac, 1u << 3, q);
 */
int aif_pfc_frame_build(uint8_t *buf, size_t len, const struct aif_mac *src,
			uint8_t class_enable, const uint16_t quanta[AIF_PFC_PRIOS]);

/* Build an 802.3x PAUSE frame (opcode 0x0001, one time); 60 or -1. */
int aif_pause_frame_build(uint8_t *buf, size_t len, const struct aif_mac *src,
			  uint16_t quanta);

enum aif_pfc_kind {
	AIF_PFC_KIND_PFC = 1,   /* 802.1Qbb, per priority */
	AIF_PFC_KIND_PAUSE = 2, /* 802.3x, the whole link */
};

/* A parsed MAC control flow-control frame. */
struct aif_pfc_rx {
	uint8_t kind;           /* enum aif_pfc_kind */
	uint8_t class_enable;   /* PAUSE: 0xFF */
	bool dst_reserved;      /* dst was 01:80:C2:00:00:01 */
	struct aif_mac dst;
	struct aif_mac src;
	uint16_t quanta[AIF_PFC_PRIOS]; /* as on the wire; PAUSE: its one time
					 * in all eight */
};

/*
 * Parse a frame (from its first byte; len without or with FCS).  The
 * format only: any destination MAC parses (out->dst, out->dst_reserved);
 * whether the frame may act on a port is aif_pfc_rx_dst_check's question.
 * Returns 0, or AIF_PFC_E_TRUNCATED, _NOT_MAC_CTRL, _VLAN_TAGGED, _OPCODE
 * or _RESERVED.  Only the bytes the opcode needs must be present (18 for
 * PAUSE, 34 for PFC): padding is not checked.
 */
int aif_pfc_frame_parse(const uint8_t *frame, uint32_t len, struct aif_pfc_rx *out);

/* quanta * 512 bit times at speed_bps, in ns, rounded up; 0 if speed is 0. */
aif_time_ns aif_pfc_quanta_to_ns(uint16_t quanta, uint64_t speed_bps);

/* ---- Reception ---- */

struct aif_pfc_rx_state {
	aif_time_ns paused_until_ns[AIF_PFC_PRIOS]; /* paused while now < this */
	aif_time_ns latest_until_ns; /* no priority paused from this on: the
				      * latest deadline set (an XON only
				      * shortens one), so the mask's question
				      * is one compare while none runs */
	uint64_t pause_ns_total[AIF_PFC_PRIOS];     /* time paused, exact up to
						     * accounted_ns */
	aif_time_ns accounted_ns[AIF_PFC_PRIOS];    /* pause_ns_total covers
						     * [.., accounted_ns) */
	struct aif_pfc_rx_ctr ctr;
	/* optional: told of every accepted frame when it acts (pause: some
	 * class it enables has a time > 0; else a resume), for event logs in
	 * virtual time; set after aif_pfc_rx_init, called on the receiving
	 * worker */
	void (*log)(void *arg, aif_time_ns now_ns, bool pause);
	void *log_arg;
	/* optional: a pause's time rounded to the nearest multiple of this
	 * many ns (0: as the quanta say).  1000 for a NIC that reads ns-3's
	 * PAUSE frames, whose time is whole microseconds: 977 quanta at
	 * 100G (5,002.24 ns) pause it 5 us, as ns-3's PAUSE_TIME 5 does */
	aif_time_ns round_ns;
};

/* Nothing paused, counters zero (a zeroed struct is the same state). */
void aif_pfc_rx_init(struct aif_pfc_rx_state *s);

/*
 * May parsed frame f act on a port whose MAC is port_mac?  PFC: only if
 * sent to 01:80:C2:00:00:01; PAUSE: to that or to port_mac.  Returns 0 or
 * AIF_PFC_E_BAD_DST.
 */
int aif_pfc_rx_dst_check(const struct aif_pfc_rx *f, const struct aif_mac *port_mac);

/*
 * Apply a parsed frame, already checked (aif_pfc_rx_dst_check), received
 * at now_ns on a port of speed_bps (see the rules at the top).  Counts
 * rx_pfc/rx_xon per enabled class, or rx_pause (and rx_pause_port_mac).
 * Time must not go backwards between calls.
 */
void aif_pfc_rx_apply(struct aif_pfc_rx_state *s, const struct aif_pfc_rx *f,
		      uint64_t speed_bps, aif_time_ns now_ns);

/*
 * A host NIC hearing a PFC or PAUSE frame its switch sent it, the frame's
 * last bit in at at_ns (the virtual hosts and the pcap file port): applied
 * as aif_pfc_rx_apply does, and for each priority it newly pauses,
 * pause_from_ns[prio] = at_ns (a frame that started before goes on; a
 * refresh keeps the pause's start).  Returns 1 for XOFF, 0 for XON, -1 if
 * frame is not a PFC/PAUSE frame (nothing changed).
 */
int aif_pfc_host_hear(struct aif_pfc_rx_state *s, aif_time_ns pause_from_ns[AIF_PFC_PRIOS],
		      const uint8_t *frame, uint32_t len, uint64_t speed_bps, aif_time_ns at_ns);

/*
 * Parse, check the destination against the receiving port's MAC, and
 * apply, in one call: returns 0, or the error (a parse error or
 * AIF_PFC_E_BAD_DST; then counted in rx_err[-err - 1] and the state is
 * unchanged).  Give it the frames the parser classified as MAC control
 * (EtherType 0x8808, tagged or not).
 *
 *	rc = aif_pfc_rx_input(&st, data, len, &t->ports[p].mac, speed_bps, now_ns);
 */
int aif_pfc_rx_input(struct aif_pfc_rx_state *s, const uint8_t *frame, uint32_t len,
		     const struct aif_mac *port_mac, uint64_t speed_bps, aif_time_ns now_ns);

/* Bring pause_ns_total up to date at now_ns (pauses that expired are
 * closed at their deadline; running ones are counted up to now_ns). */
void aif_pfc_rx_sync(struct aif_pfc_rx_state *s, aif_time_ns now_ns);

/* Is priority prio (< 8) paused by the peer at now_ns? */
static inline bool
aif_pfc_rx_paused(const struct aif_pfc_rx_state *s, unsigned prio, aif_time_ns now_ns)
{
	return now_ns < s->paused_until_ns[prio];
}

/* Bit n set = priority n paused at now_ns.  (Asked for each port at each
 * egress step: inline, one compare when no pause runs.) */
static inline uint8_t
aif_pfc_rx_paused_mask(const struct aif_pfc_rx_state *s, aif_time_ns now_ns)
{
	uint8_t m = 0;

	if (__builtin_expect(now_ns >= s->latest_until_ns, 1))
		return 0;
	for (unsigned p = 0; p < AIF_PFC_PRIOS; p++)
		m |= (uint8_t)((now_ns < s->paused_until_ns[p]) << p);
	return m;
}

/* ---- Generation ---- */

/* What the buffer manager raises: (port, priority) crossed XOFF or XON. */
struct aif_pfc_signal {
	uint16_t port;
	uint8_t prio;
	uint8_t xoff; /* 1 XOFF, 0 XON */
};

/* Fold a signal (for this port) into the port's xoff mask. */
static inline uint8_t
aif_pfc_signal_fold(uint8_t xoff_mask, const struct aif_pfc_signal *sig)
{
	uint8_t bit = (uint8_t)(1u << (sig->prio & 7));

	return sig->xoff ? (uint8_t)(xoff_mask | bit) : (uint8_t)(xoff_mask & ~bit);
}

/*
 * How a port decides to send (struct aif_pfc_tx_params mode):
 *   STANDARD  as above: XOFF on a new congestion, refreshed before it
 *             expires, XON when it clears (aif_pfc_tx_update).
 *   NS3       ConWeave's ns-3 (switch-node.cc CheckAndSendPfc /
 *             CheckAndSendResume, switch-mmu.cc SetPause): a PAUSE of
 *             ns3_pause_ns (ns-3 PAUSE_TIME, 5 us) for every data packet
 *             admitted while its PG is over the threshold, no refresh; an
 *             XON only while the last PAUSE's time has not run out (the
 *             peer resumes by itself after it), when the PG may resume:
 *             checked on each admission and on each dequeue of a packet
 *             that came in on the port (aif_pfc_tx_ns3_pause / _resume).
 *             The frames stay 802.1Qbb: the time is ceil(ns3_pause_ns *
 *             speed / 512e9) quanta (977 at 100G: 5,002.24 ns, where ns-3
 *             pauses 5,000 ns exactly), XON is time 0.  Not lossless by
 *             construction: a peer that resumes every 5 us sends an RTT's
 *             bytes each time, which the buffer must absorb (ns-3 drops when
 *             it cannot); below ~25 Gb/s a 5 us pause is shorter than a
 *             frame.  For emulating the reference, not for real NICs.
 */
enum aif_pfc_tx_mode {
	AIF_PFC_TX_STANDARD = 0,
	AIF_PFC_TX_NS3 = 1,
};
#define AIF_PFC_NS3_PAUSE_NS 5000 /* ns-3 PAUSE_TIME default, 5 us */

/* What the user wrote.  Zero means "default" for quanta and refresh_ns. */
struct aif_pfc_tx_params {
	uint16_t quanta[AIF_PFC_PRIOS]; /* XOFF time; 0 -> 0xFFFF */
	aif_time_ns refresh_ns;         /* 0 -> half each priority's pause time */
	uint64_t speed_bps;             /* port speed */
	uint8_t pfc_enable;             /* bit n: priority n is lossless */
	uint8_t mode;                   /* enum aif_pfc_tx_mode */
	aif_time_ns ns3_pause_ns;       /* NS3: pause time; 0 -> 5 us */
};

/* Precomputed, read-only for the worker. */
struct aif_pfc_tx_config {
	uint16_t quanta[AIF_PFC_PRIOS];     /* XOFF time sent, > 0 */
	aif_time_ns pause_ns[AIF_PFC_PRIOS];   /* quanta at speed_bps */
	aif_time_ns refresh_ns[AIF_PFC_PRIOS]; /* < pause_ns */
	uint64_t speed_bps;
	uint8_t pfc_enable;
	uint8_t mode;                       /* enum aif_pfc_tx_mode */
	aif_time_ns ns3_pause_ns;           /* NS3: the window an XON may follow in */
};

/*
 * Validate params and fill cfg.  Returns 0 or AIF_PFC_E_CFG_NULL,
 * _CFG_SPEED, _CFG_QUANTA, _CFG_REFRESH_LONG or _CFG_REFRESH_SHORT; only
 * enabled priorities are checked.  The minimum frame is 84 bytes on the
 * wire (64 + preamble 8 + gap 12): ceil(672e9 / speed_bps) ns.
 */
int aif_pfc_tx_config_init(struct aif_pfc_tx_config *cfg,
			   const struct aif_pfc_tx_params *p);

struct aif_pfc_tx_state {
	uint8_t xoff;  /* bit n: the peer was last told XOFF for priority n */
	uint8_t ns3_paused; /* NS3: bit n: a PAUSE went, its window may be open */
	aif_time_ns next_refresh_ns[AIF_PFC_PRIOS]; /* valid while xoff bit set */
	aif_time_ns ns3_until_ns[AIF_PFC_PRIOS];    /* NS3: last PAUSE + pause time */
	struct aif_pfc_tx_ctr ctr;
};

/* Nobody paused, counters zero (a zeroed struct is the same state). */
void aif_pfc_tx_init(struct aif_pfc_tx_state *s);

/*
 * Given the priorities congested now (xoff_mask, from the buffer manager;
 * bits outside pfc_enable are ignored), decide whether a PFC frame must go
 * at now_ns.  Returns 1 and fills class_enable and quanta[8] (XOFF
 * priorities: cfg quanta; cleared ones: 0; others 0 and not enabled), and
 * updates the state as if the frame were sent; 0 otherwise (outputs
 * untouched).  Call it whenever the mask changes and at
 * aif_pfc_tx_next_event_ns().
 */
unsigned aif_pfc_tx_update(struct aif_pfc_tx_state *s, const struct aif_pfc_tx_config *c,
			   uint8_t xoff_mask, aif_time_ns now_ns, uint8_t *class_enable,
			   uint16_t quanta[AIF_PFC_PRIOS]);

/*
 * The frame aif_pfc_tx_update() asked for could not be sent (TX full):
 * undo its effect so that the next update asks again at once (XOFF
 * priorities look new, XON priorities look still to clear) and its counts.
 */
void aif_pfc_tx_unsent(struct aif_pfc_tx_state *s, uint8_t class_enable,
		       const uint16_t quanta[AIF_PFC_PRIOS]);

/*
 * NS3 mode, after an admission: pause_mask holds the lossless priorities
 * over their threshold (bits outside pfc_enable ignored).  Returns 1 and
 * fills class_enable and quanta (cfg quanta) when a PAUSE must go: the
 * priorities' windows restart at now_ns + ns3_pause_ns, tx_pfc counts.
 * *fresh gets the priorities whose window was closed (new pauses).
 */
unsigned aif_pfc_tx_ns3_pause(struct aif_pfc_tx_state *s, const struct aif_pfc_tx_config *c,
			      uint8_t pause_mask, aif_time_ns now_ns, uint8_t *class_enable,
			      uint16_t quanta[AIF_PFC_PRIOS], uint8_t *fresh);

/* NS3 mode: the priorities whose window is open at now_ns (a PAUSE went
 * less than ns3_pause_ns ago); closes the others. */
uint8_t aif_pfc_tx_ns3_open(struct aif_pfc_tx_state *s, aif_time_ns now_ns);

/*
 * NS3 mode: resume_mask holds the priorities that may resume; of those
 * whose window is open, an XON (time 0) closes it: returns 1 and fills
 * class_enable and quanta, tx_xon counts.
 */
unsigned aif_pfc_tx_ns3_resume(struct aif_pfc_tx_state *s, uint8_t resume_mask,
			       aif_time_ns now_ns, uint8_t *class_enable,
			       uint16_t quanta[AIF_PFC_PRIOS]);

/* When the next refresh is due (earliest over the XOFF priorities), or
 * AIF_TIME_NS_NEVER when none is XOFF.  (Asked for each port whose next
 * event moved: inline, one test when none is XOFF.) */
static inline aif_time_ns
aif_pfc_tx_next_event_ns(const struct aif_pfc_tx_state *s)
{
	aif_time_ns t = AIF_TIME_NS_NEVER;

	for (unsigned p = 0; s->xoff != 0 && p < AIF_PFC_PRIOS; p++)
		if ((s->xoff & (1u << p)) && s->next_refresh_ns[p] < t)
			t = s->next_refresh_ns[p];
	return t;
}

#endif /* AIF_PFC_H */
