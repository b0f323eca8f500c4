/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFD sessions and packets (bfd.h).
 */
#include <string.h>

#include <rte_ip.h>

#include "bfd.h"

#define NS_PER_US 1000ull

static uint32_t
rd32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void
wr32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static void
wr16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* The desired min TX interval to advertise in the state the session is in
 * (at least one second while not Up: RFC 5880 6.8.3). */
static uint32_t
want_tx_us(const struct aif_bfd_session *s)
{
	if (s->state == AIF_BFD_UP || s->p.interval_us >= AIF_BFD_SLOW_TX_US)
		return s->p.interval_us;
	return AIF_BFD_SLOW_TX_US;
}

/* What it advertises follows its state; a change starts a poll sequence.
 * A longer interval while Up takes effect when the poll ends (6.8.3). */
static void
update_tx(struct aif_bfd_session *s)
{
	uint32_t want = want_tx_us(s);

	if (want == s->tx_us)
		return;
	s->tx_us = want;
	s->poll = true;
	if (s->state != AIF_BFD_UP || want < s->tx_use_us)
		s->tx_use_us = want;
}

static void
set_state(struct aif_bfd_session *s, uint8_t state, uint8_t diag, aif_time_ns now_ns)
{
	if (state == s->state)
		return;
	if (state == AIF_BFD_UP)
		s->ups++;
	else if (s->state == AIF_BFD_UP)
		s->downs++;
	s->state = state;
	s->diag = diag;
	s->changed_ns = now_ns;
	s->sent_state = true; /* a packet says so now */
	update_tx(s);
}

void
aif_bfd_init(struct aif_bfd_session *s, const struct aif_bfd_params *p, uint32_t my_disc,
	     aif_time_ns now_ns)
{
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->state = AIF_BFD_DOWN;
	s->remote_state = AIF_BFD_DOWN;
	s->my_disc = my_disc;
	s->remote_rx_us = 1; /* (6.8.1: until the remote says) */
	s->tx_us = s->tx_use_us = want_tx_us(s);
	s->next_tx_ns = now_ns; /* the first packet now */
	s->changed_ns = now_ns;
	s->rng = (uint64_t)my_disc * 0x9E3779B97F4A7C15ull | 1;
}

void
aif_bfd_set_params(struct aif_bfd_session *s, const struct aif_bfd_params *p)
{
	s->p = *p;
	update_tx(s);
}

void
aif_bfd_set_admin(struct aif_bfd_session *s, bool down, aif_time_ns now_ns)
{
	if (down == s->admin_down)
		return;
	s->admin_down = down;
	if (down) {
		set_state(s, AIF_BFD_ADMIN_DOWN, AIF_BFD_DIAG_ADMIN_DOWN, now_ns);
	} else {
		set_state(s, AIF_BFD_DOWN, AIF_BFD_DIAG_NONE, now_ns);
		s->your_disc = 0;
		s->remote_state = AIF_BFD_DOWN;
	}
}

enum aif_bfd_bad
aif_bfd_decode(const uint8_t *b, uint32_t len, struct aif_bfd_pkt *out)
{
	if (len < AIF_BFD_PKT_LEN)
		return AIF_BFD_SHORT;
	memset(out, 0, sizeof(*out));
	out->version = b[0] >> 5;
	out->diag = b[0] & 0x1f;
	out->state = b[1] >> 6;
	out->poll = (b[1] >> 5) & 1;
	out->final = (b[1] >> 4) & 1;
	out->cpi = (b[1] >> 3) & 1;
	out->auth = (b[1] >> 2) & 1;
	out->demand = (b[1] >> 1) & 1;
	out->multipoint = b[1] & 1;
	out->detect_mult = b[2];
	out->length = b[3];
	out->my_disc = rd32(b + 4);
	out->your_disc = rd32(b + 8);
	out->desired_min_tx_us = rd32(b + 12);
	out->required_min_rx_us = rd32(b + 16);
	out->required_min_echo_rx_us = rd32(b + 20);
	/* the reception checks of RFC 5880 6.8.6 that need no session */
	if (out->version != 1)
		return AIF_BFD_VERSION;
	if (out->length < AIF_BFD_PKT_LEN)
		return AIF_BFD_LENGTH;
	if (out->length > len)
		return AIF_BFD_SHORT;
	if (out->detect_mult == 0)
		return AIF_BFD_MULT;
	if (out->multipoint)
		return AIF_BFD_MULTIPOINT;
	if (out->my_disc == 0)
		return AIF_BFD_MY_DISC;
	if (out->your_disc == 0 && out->state != AIF_BFD_DOWN && out->state != AIF_BFD_ADMIN_DOWN)
		return AIF_BFD_NO_DISC;
	if (out->auth) /* no authentication is configured */
		return AIF_BFD_AUTH;
	return AIF_BFD_OK;
}

enum aif_bfd_bad
aif_bfd_rx(struct aif_bfd_session *s, const struct aif_bfd_pkt *pkt, aif_time_ns now_ns)
{
	if (pkt->your_disc != 0 && pkt->your_disc != s->my_disc) {
		s->rx_bad[AIF_BFD_YOUR_DISC]++;
		return AIF_BFD_YOUR_DISC;
	}
	s->rx++;
	s->your_disc = pkt->my_disc;
	s->remote_state = pkt->state;
	s->remote_tx_us = pkt->desired_min_tx_us;
	s->remote_rx_us = pkt->required_min_rx_us;
	s->remote_mult = pkt->detect_mult;
	if (pkt->final && s->poll) { /* the poll sequence ends */
		s->poll = false;
		s->tx_use_us = s->tx_us;
	}
	s->last_rx_ns = now_ns;
	if (s->state == AIF_BFD_ADMIN_DOWN)
		return AIF_BFD_OK; /* (heard, nothing moves) */
	if (pkt->poll)
		s->final_due = true;
	if (pkt->state == AIF_BFD_ADMIN_DOWN) {
		if (s->state != AIF_BFD_DOWN)
			set_state(s, AIF_BFD_DOWN, AIF_BFD_DIAG_NEIGHBOR_DOWN, now_ns);
	} else if (s->state == AIF_BFD_DOWN) {
		if (pkt->state == AIF_BFD_DOWN)
			set_state(s, AIF_BFD_INIT, AIF_BFD_DIAG_NONE, now_ns);
		else if (pkt->state == AIF_BFD_INIT)
			set_state(s, AIF_BFD_UP, AIF_BFD_DIAG_NONE, now_ns);
	} else if (s->state == AIF_BFD_INIT) {
		if (pkt->state == AIF_BFD_INIT || pkt->state == AIF_BFD_UP)
			set_state(s, AIF_BFD_UP, AIF_BFD_DIAG_NONE, now_ns);
	} else if (pkt->state == AIF_BFD_DOWN) { /* Up */
		set_state(s, AIF_BFD_DOWN, AIF_BFD_DIAG_NEIGHBOR_DOWN, now_ns);
	}
	return AIF_BFD_OK;
}

aif_time_ns
aif_bfd_detect_ns(const struct aif_bfd_session *s)
{
	if (s->state != AIF_BFD_INIT && s->state != AIF_BFD_UP)
		return 0;
	uint32_t us = s->p.interval_us > s->remote_tx_us ? s->p.interval_us : s->remote_tx_us;
	return (aif_time_ns)s->remote_mult * us * NS_PER_US;
}

bool
aif_bfd_timers(struct aif_bfd_session *s, aif_time_ns now_ns)
{
	aif_time_ns d = aif_bfd_detect_ns(s);

	if (d == 0 || now_ns < s->last_rx_ns + d)
		return false;
	set_state(s, AIF_BFD_DOWN, AIF_BFD_DIAG_EXPIRED, now_ns);
	s->your_disc = 0; /* (6.8.1: the remote is forgotten) */
	s->remote_state = AIF_BFD_DOWN;
	return true;
}

bool
aif_bfd_tx_due(const struct aif_bfd_session *s, aif_time_ns now_ns)
{
	if (s->sent_state || s->final_due)
		return true;
	/* no periodic packets where the remote wants none (6.8.7) */
	return s->remote_rx_us != 0 && now_ns >= s->next_tx_ns;
}

void
aif_bfd_encode(const struct aif_bfd_session *s, uint8_t out[AIF_BFD_PKT_LEN])
{
	bool final = s->final_due, poll = s->poll && !final; /* never both */

	out[0] = (uint8_t)(1u << 5 | (s->diag & 0x1f));
	out[1] = (uint8_t)(s->state << 6 | (unsigned)poll << 5 | (unsigned)final << 4);
	out[2] = s->p.detect_mult;
	out[3] = AIF_BFD_PKT_LEN;
	wr32(out + 4, s->my_disc);
	wr32(out + 8, s->your_disc);
	wr32(out + 12, s->tx_us);
	wr32(out + 16, s->p.interval_us);
	wr32(out + 20, 0); /* no echo */
}

uint32_t
aif_bfd_tx_interval_us(const struct aif_bfd_session *s)
{
	return s->tx_use_us > s->remote_rx_us ? s->tx_use_us : s->remote_rx_us;
}

void
aif_bfd_sent(struct aif_bfd_session *s, aif_time_ns now_ns)
{
	uint32_t us = aif_bfd_tx_interval_us(s);
	uint64_t x = s->rng;

	s->tx++;
	s->sent_state = false;
	s->final_due = false;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->rng = x;
	/* less 0 to 25% (10 to 25% with a multiplier of 1: 6.8.7) */
	unsigned pct = s->p.detect_mult == 1 ? 75 + (unsigned)(x % 16) : 75 + (unsigned)(x % 26);
	s->next_tx_ns = now_ns + (aif_time_ns)us * NS_PER_US * pct / 100;
}

aif_time_ns
aif_bfd_next_ns(const struct aif_bfd_session *s)
{
	aif_time_ns next = AIF_TIME_NS_NEVER, d = aif_bfd_detect_ns(s);

	if (s->sent_state || s->final_due)
		return 0;
	if (s->remote_rx_us != 0)
		next = s->next_tx_ns;
	if (d != 0 && s->last_rx_ns + d < next)
		next = s->last_rx_ns + d;
	return next;
}

uint32_t
aif_bfd_frame_build(uint8_t *f, const struct aif_bfd_addrs *a, const uint8_t pkt[AIF_BFD_PKT_LEN])
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	const uint16_t udp_len = 8 + AIF_BFD_PKT_LEN;

	memcpy(f, a->dst_mac.b, 6);
	memcpy(f + 6, a->src_mac.b, 6);
	wr16(f + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = AIF_BFD_DSCP << 2;
	wr16(ip + 2, (uint16_t)(20 + udp_len));
	wr16(ip + 4, 0);
	wr16(ip + 6, 0x4000); /* DF */
	ip[8] = AIF_BFD_TTL;
	ip[9] = 17; /* UDP */
	wr16(ip + 10, 0);
	wr32(ip + 12, a->src_ip);
	wr32(ip + 16, a->dst_ip);
	wr16(udp, a->src_port);
	wr16(udp + 2, AIF_BFD_UDP_PORT);
	wr16(udp + 4, udp_len);
	wr16(udp + 6, 0);
	memcpy(udp + 8, pkt, AIF_BFD_PKT_LEN);
	/* (both stored as the sums come: they are byte-order free) */
	const struct rte_ipv4_hdr *h = (const struct rte_ipv4_hdr *)ip;
	uint16_t ck = rte_ipv4_cksum(h);
	memcpy(ip + 10, &ck, 2);
	ck = rte_ipv4_udptcp_cksum(h, udp); /* (0xffff for 0) */
	memcpy(udp + 6, &ck, 2);
	return AIF_BFD_FRAME_LEN;
}

const char *
aif_bfd_state_name(uint8_t state)
{
	static const char *const n[] = { "admin_down", "down", "init", "up" };

	return n[state & 3];
}

const char *
aif_bfd_diag_name(uint8_t diag)
{
	switch (diag) {
	case AIF_BFD_DIAG_NONE: return "none";
	case AIF_BFD_DIAG_EXPIRED: return "control_detection_time_expired";
	case 2: return "echo_function_failed";
	case AIF_BFD_DIAG_NEIGHBOR_DOWN: return "neighbor_signaled_session_down";
	case 4: return "forwarding_plane_reset";
	case 5: return "path_down";
	case 6: return "concatenated_path_down";
	case AIF_BFD_DIAG_ADMIN_DOWN: return "administratively_down";
	case 8: return "reverse_concatenated_path_down";
	default: return "reserved";
	}
}

const char *
aif_bfd_bad_name(enum aif_bfd_bad b)
{
	static const char *const n[] = {
#define AIF_BFD_BAD_STR(x, s) s,
		AIF_FOREACH_BFD_BAD(AIF_BFD_BAD_STR)
#undef AIF_BFD_BAD_STR
	};

	return (unsigned)b < AIF_BFD_N_BAD ? n[b] : "?";
}
