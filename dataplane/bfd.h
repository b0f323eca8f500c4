/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFD (RFC 5880, asynchronous mode; single hop over IPv4, RFC 5881): the
 * wire format of a control packet, one session's state machine and timers,
 * and the frame that carries it.  No EAL (DPDK's checksums, rte_ip.h).  A
 * primitive: it knows nothing of switches, ports or threads
 * (control/bfd_sessions.c runs the sessions of a switch's ports).
 *
 * Control packet (24 bytes, the mandatory section; no authentication):
 *
 *	0  version (3 bits, 1) | diagnostic (5 bits)
 *	1  state (2 bits) | P F C A D M flags
 *	2  detect multiplier            3  length (24)
 *	4  my discriminator             8  your discriminator
 *	12 desired min TX interval (us) 16 required min RX interval (us)
 *	20 required min echo RX interval (us; 0: no echo)
 *
 * Carried in UDP to port 3784 from a source port in 49152..65535, in IPv4
 * with TTL 255 (the receiver discards any other TTL: RFC 5881 section 5,
 * GTSM), DSCP CS6: 66 bytes with Ethernet (aif_bfd_frame_build).
 *
 * Session (struct aif_bfd_session; one per link end, one writer):
 *   reads:  received packets (aif_bfd_decode, then aif_bfd_rx), now_ns, the
 *           params (desired TX interval, detect multiplier, admin down);
 *   writes: the state (AdminDown, Down, Init, Up), the diagnostic, the
 *           remote's discriminator, state and intervals, the detection
 *           and transmit deadlines;
 *   rules:  the reception rules and three-way handshake of RFC 5880
 *           6.8.6: Down hearing Down goes Init, Down or Init hearing Init
 *           or Up goes Up, Up hearing Down goes Down (diagnostic 3,
 *           neighbour signalled down), any state hearing AdminDown goes
 *           Down (3); no packet for the detection time (the remote's
 *           multiplier times the slower of its TX and our RX interval)
 *           in Init or Up goes Down (1, control detection time expired).
 *           While not Up the desired TX interval is at least one second
 *           (6.8.3); a change of the intervals it sends starts a poll
 *           sequence (P until an F comes back), and a P received is
 *           answered at once with F (6.8.7).  Packets go at the
 *           negotiated interval less a deterministic jitter of 0 to 25%
 *           (10 to 25% with a multiplier of 1), and at once on a state
 *           change.
 *   counters: tx, rx (accepted), rx_bad (refused: enum aif_bfd_bad),
 *           ups and downs (transitions).
 *
 *	struct aif_bfd_session s;
 *	aif_bfd_init(&s, &params, my_disc, now_ns);
 *	if (aif_bfd_decode(bytes, len, &pkt) == AIF_BFD_OK &&
 *	    aif_bfd_rx(&s, &pkt, now_ns) == AIF_BFD_OK) ...   // state may move
 *	aif_bfd_timers(&s, now_ns);                           // detection
 *	if (aif_bfd_tx_due(&s, now_ns)) { aif_bfd_encode(&s, out); aif_bfd_sent(&s, now_ns); }
 */
#ifndef AIF_BFD_H
#define AIF_BFD_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"

#define AIF_BFD_UDP_PORT 3784          /* single-hop control (RFC 5881) */
#define AIF_BFD_SRC_PORT_MIN 49152     /* source ports 49152..65535 */
#define AIF_BFD_TTL 255
#define AIF_BFD_DSCP 48                /* CS6, network control */
#define AIF_BFD_PKT_LEN 24
#define AIF_BFD_FRAME_LEN (14 + 20 + 8 + AIF_BFD_PKT_LEN) /* Ethernet, IPv4, UDP */
#define AIF_BFD_SLOW_TX_US 1000000     /* the TX interval while not Up */
#define AIF_BFD_INTERVAL_MIN_MS 10    /* "bfd": {"interval_ms"}: its range and default */
#define AIF_BFD_INTERVAL_MAX_MS 10000
#define AIF_BFD_INTERVAL_DEFAULT_MS 50
#define AIF_BFD_MULT_MAX 255          /* {"multiplier"}: 1..this, and its default */
#define AIF_BFD_MULT_DEFAULT 3

enum aif_bfd_state {
	AIF_BFD_ADMIN_DOWN = 0,
	AIF_BFD_DOWN = 1,
	AIF_BFD_INIT = 2,
	AIF_BFD_UP = 3,
};

/* Diagnostics (RFC 5880 4.1), those a session here sets. */
enum aif_bfd_diag {
	AIF_BFD_DIAG_NONE = 0,
	AIF_BFD_DIAG_EXPIRED = 1,         /* control detection time expired */
	AIF_BFD_DIAG_NEIGHBOR_DOWN = 3,   /* neighbour signalled session down */
	AIF_BFD_DIAG_ADMIN_DOWN = 7,      /* administratively down */
};

/* Why a packet was refused (decode, then the session's checks). */
#define AIF_FOREACH_BFD_BAD(_) \
	_(OK, "ok")                                   \
	_(SHORT, "shorter than its length")           \
	_(VERSION, "not version 1")                   \
	_(LENGTH, "length not 24")                    \
	_(MULT, "detect multiplier 0")                \
	_(MULTIPOINT, "multipoint bit set")           \
	_(MY_DISC, "my discriminator 0")              \
	_(AUTH, "authentication (not configured)")    \
	_(YOUR_DISC, "your discriminator not ours")   \
	_(NO_DISC, "your discriminator 0 while not down") \
	_(BAD_TTL, "TTL not 255")                     \
	_(ADDRESS, "not from the port's peer")
enum aif_bfd_bad {
#define AIF_BFD_BAD_ENUM(n, s) AIF_BFD_##n,
	AIF_FOREACH_BFD_BAD(AIF_BFD_BAD_ENUM)
#undef AIF_BFD_BAD_ENUM
	AIF_BFD_N_BAD
};

/* A control packet, fields in host order. */
struct aif_bfd_pkt {
	uint8_t version, diag, state;
	bool poll, final, cpi, auth, demand, multipoint;
	uint8_t detect_mult, length;
	uint32_t my_disc, your_disc;
	uint32_t desired_min_tx_us, required_min_rx_us, required_min_echo_rx_us;
};

/* What the user sets of a session. */
struct aif_bfd_params {
	uint32_t interval_us;    /* desired min TX and required min RX once Up */
	uint8_t detect_mult;     /* 1..255 */
};

struct aif_bfd_session {
	struct aif_bfd_params p;
	uint8_t state, remote_state, diag;
	bool admin_down;
	bool poll;               /* a poll sequence under way (P sent until F) */
	bool final_due;          /* a P received: the next packet carries F, now */
	bool sent_state;         /* the state changed: a packet goes now */
	uint32_t my_disc, your_disc;
	uint32_t tx_us;          /* desired min TX we advertise now */
	uint32_t tx_use_us;      /* ... and the one we go by (a longer one
				  * once its poll sequence ends: 6.8.3) */
	uint32_t remote_tx_us, remote_rx_us;
	uint8_t remote_mult;
	aif_time_ns last_rx_ns;  /* the last packet accepted */
	aif_time_ns next_tx_ns;
	aif_time_ns changed_ns;  /* the last state change */
	uint64_t rng;            /* the jitter's (xorshift64, seeded by my_disc) */
	uint64_t tx, rx, ups, downs;
	uint64_t rx_bad[AIF_BFD_N_BAD];
};

/* A session in Down (or AdminDown) from now, my_disc nonzero. */
void aif_bfd_init(struct aif_bfd_session *s, const struct aif_bfd_params *p, uint32_t my_disc,
		  aif_time_ns now_ns);

/* New params for a running session (a poll sequence where the intervals
 * it sends change). */
void aif_bfd_set_params(struct aif_bfd_session *s, const struct aif_bfd_params *p);

/* Administratively down (AdminDown, diagnostic 7, packets say so) or up
 * again (Down: the handshake starts over). */
void aif_bfd_set_admin(struct aif_bfd_session *s, bool down, aif_time_ns now_ns);

/* Bytes to packet; AIF_BFD_OK or why not (what a session does not need). */
enum aif_bfd_bad aif_bfd_decode(const uint8_t *b, uint32_t len, struct aif_bfd_pkt *out);

/* A decoded packet received at now_ns: AIF_BFD_OK (acted on) or why it was
 * refused (counted in rx_bad). */
enum aif_bfd_bad aif_bfd_rx(struct aif_bfd_session *s, const struct aif_bfd_pkt *pkt,
			    aif_time_ns now_ns);

/* The detection time now (0: none runs, not Init or Up). */
aif_time_ns aif_bfd_detect_ns(const struct aif_bfd_session *s);

/* Detection: Init or Up with nothing heard for the detection time goes
 * Down.  true when the state moved. */
bool aif_bfd_timers(struct aif_bfd_session *s, aif_time_ns now_ns);

/* A packet is due now (its interval came, the state changed, an F owed). */
bool aif_bfd_tx_due(const struct aif_bfd_session *s, aif_time_ns now_ns);

/* The packet the session sends now, 24 bytes into out. */
void aif_bfd_encode(const struct aif_bfd_session *s, uint8_t out[AIF_BFD_PKT_LEN]);

/* The TX interval in force: the slower of the one it goes by and the
 * remote's required RX (6.8.7). */
uint32_t aif_bfd_tx_interval_us(const struct aif_bfd_session *s);

/* It was sent at now_ns: the next one's time (interval less jitter). */
void aif_bfd_sent(struct aif_bfd_session *s, aif_time_ns now_ns);

/* Its next deadline: a packet to send or the detection time (0: a packet
 * is due now). */
aif_time_ns aif_bfd_next_ns(const struct aif_bfd_session *s);

/* A packet a switch's port heard, from the data path to control (a ring
 * element: 32 bytes; control times it as it takes it: see
 * control/bfd_sessions.h). */
struct aif_bfd_heard {
	uint32_t src_ip;             /* host order */
	uint16_t port;               /* the switch's */
	uint8_t ttl;
	uint8_t len;                 /* UDP payload bytes (at most 255) */
	uint8_t pkt[AIF_BFD_PKT_LEN]; /* its first bytes, zeros past len */
};

/* The addresses a frame goes between. */
struct aif_bfd_addrs {
	struct aif_mac src_mac, dst_mac;
	uint32_t src_ip, dst_ip;     /* host order */
	uint16_t src_port;           /* host order, 49152..65535 */
};

/* An Ethernet/IPv4/UDP frame of the 24-byte packet pkt into frame
 * (AIF_BFD_FRAME_LEN bytes, checksums filled); its length. */
uint32_t aif_bfd_frame_build(uint8_t *frame, const struct aif_bfd_addrs *a,
			     const uint8_t pkt[AIF_BFD_PKT_LEN]);

const char *aif_bfd_state_name(uint8_t state);
const char *aif_bfd_diag_name(uint8_t diag);
const char *aif_bfd_bad_name(enum aif_bfd_bad b);

#endif /* AIF_BFD_H */
