/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PFC / PAUSE: wire format, reception state, generation state.  The rules,
 * knobs, counters and units are at the top of pfc.h.
 *
 * Accounting of time paused (reception), per priority p:
 *   pause_ns_total[p] holds the paused time in [0, accounted_ns[p]); the
 *   pause still running covers [accounted_ns[p], paused_until_ns[p]).
 *   sync(now): end = min(now, until); if end > accounted: total += end -
 *   accounted, accounted = end.  A pause that starts at now (none running)
 *   first moves accounted to now, so gaps between pauses are never counted;
 *   an XON at now sets until = now after the sync, closing the span there.
 *   Every addition is an exact difference of two integer times in ns.
 */
#include <string.h>

#include "pfc.h"

#define ETH_HLEN 14
#define OFF_ETHERTYPE 12
#define OFF_OPCODE 14
#define OFF_VECTOR 16   /* PFC: class-enable vector; PAUSE: the time */
#define OFF_TIMES 18    /* PFC: eight times */
#define PAUSE_NEED 18   /* bytes a PAUSE frame needs */
#define PFC_NEED 34     /* bytes a PFC frame needs */
#define ETHERTYPE_MAC_CTRL 0x8808
#define ETHERTYPE_VLAN 0x8100
#define ETHERTYPE_QINQ 0x88A8
#define MIN_FRAME_WIRE_BITS (84u * 8) /* 64 B frame + 8 preamble + 12 gap */

const struct aif_mac aif_pfc_dst_mac = { { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 } };

static const char *const err_names[AIF_PFC_ERRIDX_COUNT_] = {
	[AIF_PFC_ERRIDX_OK_] = "ok",
#define AIF_PFC_ERR_NAME(id, name) [AIF_PFC_ERRIDX_##id] = name,
	AIF_FOREACH_PFC_ERR(AIF_PFC_ERR_NAME)
#undef AIF_PFC_ERR_NAME
};

/* rx_err[-err - 1] holds for exactly the received-frame errors */
_Static_assert(AIF_PFC_ERRIDX_TRUNCATED == 1 && (int)AIF_PFC_ERRIDX_BAD_DST == (int)AIF_PFC_RX_ERR_N,
	       "the received-frame errors must lead AIF_FOREACH_PFC_ERR");

const char *
aif_pfc_err_name(int err)
{
	if (err > 0 || -err >= AIF_PFC_ERRIDX_COUNT_)
		return "unknown";
	return err_names[-err];
}

#define AIF_PFC_CTR_NAME(n) #n,
const char *const aif_pfc_rx_prio_ctr_names[] = { AIF_FOREACH_PFC_RX_PRIO_CTR(AIF_PFC_CTR_NAME) };
const char *const aif_pfc_rx_port_ctr_names[] = { AIF_FOREACH_PFC_RX_PORT_CTR(AIF_PFC_CTR_NAME) };
const char *const aif_pfc_tx_prio_ctr_names[] = { AIF_FOREACH_PFC_TX_PRIO_CTR(AIF_PFC_CTR_NAME) };
const char *const aif_pfc_tx_port_ctr_names[] = { AIF_FOREACH_PFC_TX_PORT_CTR(AIF_PFC_CTR_NAME) };
#undef AIF_PFC_CTR_NAME
#define NAMES_N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))
const unsigned aif_pfc_rx_prio_ctr_n = NAMES_N(aif_pfc_rx_prio_ctr_names);
const unsigned aif_pfc_rx_port_ctr_n = NAMES_N(aif_pfc_rx_port_ctr_names);
const unsigned aif_pfc_tx_prio_ctr_n = NAMES_N(aif_pfc_tx_prio_ctr_names);
const unsigned aif_pfc_tx_port_ctr_n = NAMES_N(aif_pfc_tx_port_ctr_names);

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline aif_time_ns
add_sat(aif_time_ns a, aif_time_ns b)
{
	return a > AIF_TIME_NS_NEVER - b ? AIF_TIME_NS_NEVER : a + b;
}

/* ---- Wire format ---- */

/* dst, src, EtherType, opcode; zero the rest of the 60 bytes. */
static void
mac_ctrl_header(uint8_t *buf, const struct aif_mac *src, uint16_t opcode)
{
	memset(buf, 0, AIF_PFC_FRAME_LEN);
	memcpy(buf, aif_pfc_dst_mac.b, 6);
	memcpy(buf + 6, src->b, 6);
	wr16(buf + OFF_ETHERTYPE, ETHERTYPE_MAC_CTRL);
	wr16(buf + OFF_OPCODE, opcode);
}

int
aif_pfc_frame_build(uint8_t *buf, size_t len, const struct aif_mac *src,
		    uint8_t class_enable, const uint16_t quanta[AIF_PFC_PRIOS])
{
	unsigned p;

	if (len < AIF_PFC_FRAME_LEN)
		return -1;
	mac_ctrl_header(buf, src, AIF_MAC_CTRL_OP_PFC);
	wr16(buf + OFF_VECTOR, class_enable); /* upper octet stays zero */
	for (p = 0; p < AIF_PFC_PRIOS; p++)
		if (class_enable & (1u << p))
			wr16(buf + OFF_TIMES + 2 * p, quanta[p]);
	return AIF_PFC_FRAME_LEN;
}

int
aif_pause_frame_build(uint8_t *buf, size_t len, const struct aif_mac *src, uint16_t quanta)
{
	if (len < AIF_PFC_FRAME_LEN)
		return -1;
	mac_ctrl_header(buf, src, AIF_MAC_CTRL_OP_PAUSE);
	wr16(buf + OFF_VECTOR, quanta);
	return AIF_PFC_FRAME_LEN;
}

int
aif_pfc_frame_parse(const uint8_t *frame, uint32_t len, struct aif_pfc_rx *out)
{
	uint16_t type, opcode, vector, t;
	unsigned p;

	if (len < ETH_HLEN)
		return AIF_PFC_E_TRUNCATED;
	type = rd16(frame + OFF_ETHERTYPE);
	if (type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ) {
		if (len < ETH_HLEN + 4)
			return AIF_PFC_E_TRUNCATED;
		return rd16(frame + OFF_ETHERTYPE + 4) == ETHERTYPE_MAC_CTRL ?
			       AIF_PFC_E_VLAN_TAGGED : AIF_PFC_E_NOT_MAC_CTRL;
	}
	if (type != ETHERTYPE_MAC_CTRL)
		return AIF_PFC_E_NOT_MAC_CTRL;
	if (len < OFF_OPCODE + 2)
		return AIF_PFC_E_TRUNCATED;
	opcode = rd16(frame + OFF_OPCODE);

	if (opcode == AIF_MAC_CTRL_OP_PFC) {
		if (len < PFC_NEED)
			return AIF_PFC_E_TRUNCATED;
		vector = rd16(frame + OFF_VECTOR);
		if (vector & 0xff00)
			return AIF_PFC_E_RESERVED;
		out->kind = AIF_PFC_KIND_PFC;
		out->class_enable = (uint8_t)vector;
		for (p = 0; p < AIF_PFC_PRIOS; p++)
			out->quanta[p] = rd16(frame + OFF_TIMES + 2 * p);
	} else if (opcode == AIF_MAC_CTRL_OP_PAUSE) {
		if (len < PAUSE_NEED)
			return AIF_PFC_E_TRUNCATED;
		t = rd16(frame + OFF_VECTOR);
		out->kind = AIF_PFC_KIND_PAUSE;
		out->class_enable = 0xff;
		for (p = 0; p < AIF_PFC_PRIOS; p++)
			out->quanta[p] = t;
	} else {
		return AIF_PFC_E_OPCODE;
	}
	memcpy(out->dst.b, frame, 6);
	out->dst_reserved = memcmp(frame, aif_pfc_dst_mac.b, 6) == 0;
	memcpy(out->src.b, frame + 6, 6);
	return 0;
}

/*
 * quanta * 512 bits / speed_bps seconds = quanta * 512e9 / speed_bps ns,
 * rounded up.  quanta * 512e9 <= 65535 * 512e9 < 3.4e16, and adding
 * speed_bps - 1 (any speed below 1.8e19 b/s) cannot overflow 64 bits.
 */
aif_time_ns
aif_pfc_quanta_to_ns(uint16_t quanta, uint64_t speed_bps)
{
	uint64_t bits_ns = (uint64_t)quanta * AIF_PFC_QUANTUM_BITS * AIF_NS_PER_S;

	if (speed_bps == 0)
		return 0;
	return (bits_ns + speed_bps - 1) / speed_bps;
}

/* ---- Reception ---- */

void
aif_pfc_rx_init(struct aif_pfc_rx_state *s)
{
	memset(s, 0, sizeof(*s));
}

static inline void
sync_prio(struct aif_pfc_rx_state *s, unsigned p, aif_time_ns now_ns)
{
	aif_time_ns end = now_ns < s->paused_until_ns[p] ? now_ns : s->paused_until_ns[p];

	if (end > s->accounted_ns[p]) {
		s->pause_ns_total[p] += end - s->accounted_ns[p];
		s->accounted_ns[p] = end;
	}
}

void
aif_pfc_rx_sync(struct aif_pfc_rx_state *s, aif_time_ns now_ns)
{
	unsigned p;

	for (p = 0; p < AIF_PFC_PRIOS; p++)
		sync_prio(s, p, now_ns);
}

int
aif_pfc_rx_dst_check(const struct aif_pfc_rx *f, const struct aif_mac *port_mac)
{
	if (f->dst_reserved)
		return 0;
	/* 802.3x lets a station be paused at its own address; 802.1Qbb names
	 * the reserved address alone */
	if (f->kind == AIF_PFC_KIND_PAUSE && memcmp(f->dst.b, port_mac->b, 6) == 0)
		return 0;
	return AIF_PFC_E_BAD_DST;
}

void
aif_pfc_rx_apply(struct aif_pfc_rx_state *s, const struct aif_pfc_rx *f,
		 uint64_t speed_bps, aif_time_ns now_ns)
{
	bool pfc = f->kind == AIF_PFC_KIND_PFC;
	unsigned p;

	if (!pfc) {
		s->ctr.rx_pause++;
		if (!f->dst_reserved)
			s->ctr.rx_pause_port_mac++;
	}
	for (p = 0; p < AIF_PFC_PRIOS; p++) {
		if (!(f->class_enable & (1u << p)))
			continue;
		sync_prio(s, p, now_ns);
		if (f->quanta[p] == 0) {
			/* XON: the running span (if any) was closed at now. */
			if (s->paused_until_ns[p] > now_ns)
				s->paused_until_ns[p] = now_ns;
			if (pfc)
				s->ctr.rx_xon[p]++;
			continue;
		}
		if (s->paused_until_ns[p] <= now_ns) /* none running: start now */
			s->accounted_ns[p] = now_ns;
		aif_time_ns d = aif_pfc_quanta_to_ns(f->quanta[p], speed_bps);
		if (s->round_ns != 0 && d != AIF_TIME_NS_NEVER)
			d = (d + s->round_ns / 2) / s->round_ns * s->round_ns;
		s->paused_until_ns[p] = add_sat(now_ns, d);
		if (s->paused_until_ns[p] > s->latest_until_ns)
			s->latest_until_ns = s->paused_until_ns[p];
		if (pfc)
			s->ctr.rx_pfc[p]++;
	}
	if (s->log != NULL) {
		bool pause = false;
		for (p = 0; p < AIF_PFC_PRIOS; p++)
			pause |= (f->class_enable >> p & 1) && f->quanta[p] != 0;
		s->log(s->log_arg, now_ns, pause);
	}
}

int
aif_pfc_rx_input(struct aif_pfc_rx_state *s, const uint8_t *frame, uint32_t len,
		 const struct aif_mac *port_mac, uint64_t speed_bps, aif_time_ns now_ns)
{
	struct aif_pfc_rx f;
	int rc = aif_pfc_frame_parse(frame, len, &f);

	if (rc == 0)
		rc = aif_pfc_rx_dst_check(&f, port_mac);
	if (rc < 0) {
		s->ctr.rx_err[-rc - 1]++; /* the frame errors lead the list */
		return rc;
	}
	aif_pfc_rx_apply(s, &f, speed_bps, now_ns);
	return 0;
}

/* ---- Generation ---- */

/* One minimum frame on the wire, in ns, rounded up. */
static aif_time_ns
min_frame_ns(uint64_t speed_bps)
{
	return ((uint64_t)MIN_FRAME_WIRE_BITS * AIF_NS_PER_S + speed_bps - 1) / speed_bps;
}

int
aif_pfc_tx_config_init(struct aif_pfc_tx_config *cfg, const struct aif_pfc_tx_params *p)
{
	struct aif_pfc_tx_config c;
	aif_time_ns frame_ns;
	unsigned i;

	if (cfg == NULL || p == NULL)
		return AIF_PFC_E_CFG_NULL;
	if (p->speed_bps == 0)
		return AIF_PFC_E_CFG_SPEED;
	memset(&c, 0, sizeof(c));
	c.speed_bps = p->speed_bps;
	c.pfc_enable = p->pfc_enable;
	frame_ns = min_frame_ns(p->speed_bps);
	c.mode = p->mode;
	if (p->mode == AIF_PFC_TX_NS3) {
		/* a pause per packet, never refreshed: the time in quanta,
		 * rounded up, at least one */
		aif_time_ns t = p->ns3_pause_ns ? p->ns3_pause_ns : AIF_PFC_NS3_PAUSE_NS;
		unsigned __int128 q = ((unsigned __int128)t * p->speed_bps +
				       (unsigned __int128)AIF_PFC_QUANTUM_BITS * 1000000000u - 1) /
				      ((unsigned __int128)AIF_PFC_QUANTUM_BITS * 1000000000u);
		if (q > AIF_PFC_QUANTA_MAX)
			return AIF_PFC_E_CFG_QUANTA;
		c.ns3_pause_ns = t;
		for (i = 0; i < AIF_PFC_PRIOS; i++) {
			c.quanta[i] = q ? (uint16_t)q : 1;
			c.pause_ns[i] = aif_pfc_quanta_to_ns(c.quanta[i], p->speed_bps);
			c.refresh_ns[i] = c.pause_ns[i];
		}
		*cfg = c;
		return 0;
	}
	if (p->refresh_ns != 0 && p->refresh_ns < frame_ns)
		return AIF_PFC_E_CFG_REFRESH_SHORT;
	for (i = 0; i < AIF_PFC_PRIOS; i++) {
		c.quanta[i] = p->quanta[i] ? p->quanta[i] : AIF_PFC_QUANTA_MAX;
		c.pause_ns[i] = aif_pfc_quanta_to_ns(c.quanta[i], p->speed_bps);
		c.refresh_ns[i] = p->refresh_ns ? p->refresh_ns : c.pause_ns[i] / 2;
		if (!(p->pfc_enable & (1u << i)))
			continue;
		if (p->refresh_ns == 0 && c.refresh_ns[i] < frame_ns)
			return AIF_PFC_E_CFG_QUANTA;
		if (c.refresh_ns[i] >= c.pause_ns[i])
			return AIF_PFC_E_CFG_REFRESH_LONG;
	}
	*cfg = c;
	return 0;
}

void
aif_pfc_tx_init(struct aif_pfc_tx_state *s)
{
	memset(s, 0, sizeof(*s));
}

unsigned
aif_pfc_tx_update(struct aif_pfc_tx_state *s, const struct aif_pfc_tx_config *c,
		  uint8_t xoff_mask, aif_time_ns now_ns, uint8_t *class_enable,
		  uint16_t quanta[AIF_PFC_PRIOS])
{
	uint8_t xoff = xoff_mask & c->pfc_enable;
	uint8_t fresh = xoff & (uint8_t)~s->xoff;
	uint8_t cleared = s->xoff & (uint8_t)~xoff;
	uint8_t due = 0;
	unsigned p;

	for (p = 0; p < AIF_PFC_PRIOS; p++)
		if ((xoff & s->xoff & (1u << p)) && s->next_refresh_ns[p] <= now_ns)
			due |= (uint8_t)(1u << p);
	if (!(fresh | cleared | due))
		return 0;

	for (p = 0; p < AIF_PFC_PRIOS; p++) {
		uint8_t bit = (uint8_t)(1u << p);

		quanta[p] = 0;
		if (xoff & bit) {
			quanta[p] = c->quanta[p];
			s->next_refresh_ns[p] = add_sat(now_ns, c->refresh_ns[p]);
			s->ctr.tx_pfc[p]++;
		} else if (cleared & bit) {
			s->ctr.tx_xon[p]++;
		}
	}
	*class_enable = xoff | cleared;
	s->xoff = xoff;
	s->ctr.tx_frames++;
	return 1;
}

void
aif_pfc_tx_unsent(struct aif_pfc_tx_state *s, uint8_t class_enable,
		  const uint16_t quanta[AIF_PFC_PRIOS])
{
	unsigned p;

	for (p = 0; p < AIF_PFC_PRIOS; p++) {
		uint8_t bit = (uint8_t)(1u << p);

		if (!(class_enable & bit))
			continue;
		if (quanta[p]) {
			s->xoff &= (uint8_t)~bit; /* looks new next time */
			s->ctr.tx_pfc[p]--;
		} else {
			s->xoff |= bit; /* still to clear */
			s->ctr.tx_xon[p]--;
		}
	}
	s->ctr.tx_frames--;
}

int
aif_pfc_host_hear(struct aif_pfc_rx_state *s, aif_time_ns pause_from_ns[AIF_PFC_PRIOS],
		  const uint8_t *frame, uint32_t len, uint64_t speed_bps, aif_time_ns at_ns)
{
	struct aif_pfc_rx f;
	int xoff = 0;

	if (frame == NULL || aif_pfc_frame_parse(frame, len, &f) != 0)
		return -1;
	for (unsigned i = 0; i < AIF_PFC_PRIOS; i++)
		if (((f.class_enable >> i) & 1) && f.quanta[i] != 0) {
			xoff = 1;
			/* a new pause starts now; a refresh keeps its start */
			if (s->paused_until_ns[i] <= at_ns)
				pause_from_ns[i] = at_ns;
		}
	aif_pfc_rx_apply(s, &f, speed_bps, at_ns);
	return xoff;
}

/* ---- Generation, ns-3 mode ---- */

uint8_t
aif_pfc_tx_ns3_open(struct aif_pfc_tx_state *s, aif_time_ns now_ns)
{
	for (unsigned p = 0; p < AIF_PFC_PRIOS; p++)
		if (((s->ns3_paused >> p) & 1) && now_ns >= s->ns3_until_ns[p])
			s->ns3_paused &= (uint8_t)~(1u << p);
	return s->ns3_paused;
}

unsigned
aif_pfc_tx_ns3_pause(struct aif_pfc_tx_state *s, const struct aif_pfc_tx_config *c,
		     uint8_t pause_mask, aif_time_ns now_ns, uint8_t *class_enable,
		     uint16_t quanta[AIF_PFC_PRIOS], uint8_t *fresh)
{
	uint8_t m = pause_mask & c->pfc_enable;

	*fresh = m & (uint8_t)~aif_pfc_tx_ns3_open(s, now_ns);
	if (m == 0)
		return 0;
	memset(quanta, 0, AIF_PFC_PRIOS * sizeof(quanta[0]));
	for (unsigned p = 0; p < AIF_PFC_PRIOS; p++) {
		if (!((m >> p) & 1))
			continue;
		quanta[p] = c->quanta[p];
		s->ns3_until_ns[p] = add_sat(now_ns, c->ns3_pause_ns);
		s->ctr.tx_pfc[p]++;
	}
	s->ns3_paused |= m;
	s->ctr.tx_frames++;
	*class_enable = m;
	return 1;
}

unsigned
aif_pfc_tx_ns3_resume(struct aif_pfc_tx_state *s, uint8_t resume_mask, aif_time_ns now_ns,
		      uint8_t *class_enable, uint16_t quanta[AIF_PFC_PRIOS])
{
	uint8_t m = resume_mask & aif_pfc_tx_ns3_open(s, now_ns);

	if (m == 0)
		return 0;
	memset(quanta, 0, AIF_PFC_PRIOS * sizeof(quanta[0]));
	for (unsigned p = 0; p < AIF_PFC_PRIOS; p++)
		if ((m >> p) & 1)
			s->ctr.tx_xon[p]++;
	s->ns3_paused &= (uint8_t)~m;
	s->ctr.tx_frames++;
	*class_enable = m;
	return 1;
}
