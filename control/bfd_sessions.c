/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The switches' BFD sessions (bfd_sessions.h).  Control thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "../dataplane/bfd.h"
#include "../dataplane/switch.h"
#include "bfd_sessions.h"
#include "config.h"

struct sess {
	uint16_t sw, port;
	struct aif_ip peer;          /* (addrs.dst_ip, for show bfd) */
	struct aif_bfd_addrs addrs;
	struct aif_bfd_session s;
	bool was_up;
	uint64_t tx_lost;            /* no mbuf, or the TX ring full */
};

struct aif_bfd_sessions {
	unsigned n;
	struct sess *v;
	uint64_t unmatched;          /* heard on a port with no session (any more) */
};

static struct sess *
find(const struct aif_bfd_sessions *b, uint16_t s, uint16_t p)
{
	for (unsigned i = 0; b != NULL && i < b->n; i++)
		if (b->v[i].sw == s && b->v[i].port == p)
			return &b->v[i];
	return NULL;
}

/* The session's addresses as the config gives them. */
static void
addrs_of(const struct aif_bfd_env *v, uint16_t s, uint16_t p, struct sess *x)
{
	const struct aif_port_params *pp = &v->running->switches[s].ports[p];
	const struct aif_neighbor_params *nb = &v->running->switches[s].neighbors[pp->bfd_neighbor];

	x->sw = s;
	x->port = p;
	x->peer = nb->ip;
	x->addrs.src_mac = pp->mac_set ? pp->mac : v->sws[s]->ports[p].dev_mac;
	x->addrs.dst_mac = nb->mac;
	x->addrs.src_ip = aif_ip4_host(&pp->addrs[pp->bfd_addr].addr);
	x->addrs.dst_ip = aif_ip4_host(&nb->ip);
}

/* Our discriminator: one per switch and port, never 0. */
static uint32_t
disc_of(uint16_t s, uint16_t p)
{
	return ((uint32_t)s << 8 | p) + 1;
}

int
aif_bfd_sessions_prepare(const struct aif_bfd_env *v, const struct aif_config *cfg, char *err,
			 size_t err_len)
{
	for (uint16_t s = 0; s < cfg->n_switches && s < v->n_sw; s++)
		for (uint16_t p = 0; p < cfg->switches[s].n_ports; p++)
			if (cfg->switches[s].ports[p].bfd_interval_us != 0 &&
			    aif_switch_bfd_rings(v->sws[s]) != 0) {
				snprintf(err, err_len, "$.switches[%u].ports[%u].bfd: out of "
					 "memory for its rings", s, p);
				return -1;
			}
	return 0;
}

void
aif_bfd_sessions_sync(struct aif_bfd_sessions *b, const struct aif_bfd_env *v)
{
	const struct aif_config *cfg = v->running;
	unsigned n = 0;

	if (b == NULL || cfg == NULL)
		return;
	for (uint16_t s = 0; s < cfg->n_switches && s < v->n_sw; s++)
		for (uint16_t p = 0; p < cfg->switches[s].n_ports; p++)
			n += cfg->switches[s].ports[p].bfd_interval_us != 0;
	struct sess *nv = calloc(n ? n : 1, sizeof(*nv));
	if (nv == NULL)
		return; /* (the sessions as they were) */
	unsigned k = 0;
	for (uint16_t s = 0; s < cfg->n_switches && s < v->n_sw; s++)
		for (uint16_t p = 0; p < cfg->switches[s].n_ports; p++) {
			const struct aif_port_params *pp = &cfg->switches[s].ports[p];
			if (pp->bfd_interval_us == 0)
				continue;
			struct aif_bfd_params bp = { pp->bfd_interval_us, pp->bfd_mult };
			struct sess *x = &nv[k++], *old = find(b, s, p);
			addrs_of(v, s, p, x);
			x->addrs.src_port = (uint16_t)(AIF_BFD_SRC_PORT_MIN + disc_of(s, p) % 16384);
			if (old != NULL && old->addrs.dst_ip == x->addrs.dst_ip &&
			    old->addrs.src_ip == x->addrs.src_ip) {
				/* the same session, its params as the config has them now */
				struct aif_bfd_addrs a = x->addrs;
				*x = *old;
				x->addrs = a;
				aif_bfd_set_params(&x->s, &bp);
			} else {
				aif_bfd_init(&x->s, &bp, disc_of(s, p), v->now_ns);
			}
		}
	free(b->v);
	b->v = nv;
	b->n = n;
}

struct aif_bfd_sessions *
aif_bfd_sessions_create(const struct aif_bfd_env *v, bool *nomem)
{
	const struct aif_config *cfg = v->running;
	bool any = false;

	*nomem = false;
	for (uint16_t s = 0; cfg != NULL && s < cfg->n_switches; s++)
		for (uint16_t p = 0; p < cfg->switches[s].n_ports; p++)
			any |= cfg->switches[s].ports[p].bfd_interval_us != 0;
	if (!any)
		return NULL;
	struct aif_bfd_sessions *b = calloc(1, sizeof(*b));
	if (b == NULL) {
		*nomem = true;
		return NULL;
	}
	aif_bfd_sessions_sync(b, v);
	for (unsigned i = 0; i < b->n; i++) {
		const struct sess *x = &b->v[i];
		const struct aif_port_params *pp = &cfg->switches[x->sw].ports[x->port];
		char ip[48];
		printf("  bfd %s:%s: to %s every %u ms (x%u), down until it answers\n",
		       v->sws[x->sw]->name, pp->name,
		       aif_ip_fmt(&cfg->switches[x->sw].neighbors[pp->bfd_neighbor].ip, ip,
				  sizeof(ip)),
		       pp->bfd_interval_us / 1000, pp->bfd_mult);
	}
	fflush(stdout);
	return b;
}

/* A packet of x now onto its switch's TX ring (its timers move on even
 * when it cannot go: a lost packet is what BFD is made to outlast). */
static void
send_now(const struct aif_bfd_env *v, struct sess *x, aif_time_ns now_ns)
{
	struct aif_switch *sw = v->sws[x->sw];
	uint8_t pkt[AIF_BFD_PKT_LEN];
	struct rte_mbuf *mb = rte_pktmbuf_alloc(sw->pool);
	uint8_t *f = mb != NULL ? (uint8_t *)rte_pktmbuf_append(mb, AIF_BFD_FRAME_LEN) : NULL;

	aif_bfd_encode(&x->s, pkt);
	aif_bfd_sent(&x->s, now_ns);
	if (f == NULL) {
		rte_pktmbuf_free(mb);
		x->tx_lost++;
		return;
	}
	aif_bfd_frame_build(f, &x->addrs, pkt);
	mb->port = x->port;
	if (rte_ring_sp_enqueue(sw->bfd_tx, mb) != 0) {
		rte_pktmbuf_free(mb);
		x->tx_lost++;
	}
}

/* What the switch's ports heard since the last poll. */
static void
heard(struct aif_bfd_sessions *b, const struct aif_bfd_env *v, uint16_t s)
{
	struct aif_switch *sw = v->sws[s];
	struct aif_bfd_heard h;
	struct aif_bfd_pkt pkt;

	if (sw->bfd_rx == NULL)
		return;
	while (rte_ring_sc_dequeue_elem(sw->bfd_rx, &h, sizeof(h)) == 0) {
		struct sess *x = find(b, s, h.port);
		enum aif_bfd_bad r;
		if (x == NULL) {
			b->unmatched++;
			continue;
		}
		if (h.ttl != AIF_BFD_TTL) /* one hop only (RFC 5881 5) */
			r = AIF_BFD_BAD_TTL;
		else if (h.src_ip != x->addrs.dst_ip)
			r = AIF_BFD_ADDRESS;
		else
			r = aif_bfd_decode(h.pkt, h.len, &pkt);
		if (r != AIF_BFD_OK)
			x->s.rx_bad[r]++;
		else
			aif_bfd_rx(&x->s, &pkt, v->now_ns); /* (counts what it refuses) */
	}
}

static void
say(const struct aif_bfd_env *v, const struct sess *x)
{
	bool up = x->s.state == AIF_BFD_UP;

	printf("%s:%s: BFD %s%s%s%s\n", v->sws[x->sw]->name, v->sws[x->sw]->ports[x->port].name,
	       aif_bfd_state_name(x->s.state), up ? "" : " (",
	       up ? "" : aif_bfd_diag_name(x->s.diag), up ? "" : ")");
	fflush(stdout);
}

bool
aif_bfd_sessions_poll(struct aif_bfd_sessions *b, const struct aif_bfd_env *v)
{
	aif_time_ns now_ns = v->now_ns;
	bool changed = false;

	if (b == NULL)
		return false;
	for (uint16_t s = 0; s < v->n_sw; s++)
		heard(b, v, s);
	for (unsigned i = 0; i < b->n; i++) {
		struct sess *x = &b->v[i];
		aif_bfd_timers(&x->s, now_ns);
		if (aif_bfd_tx_due(&x->s, now_ns))
			send_now(v, x, now_ns);
		bool up = x->s.state == AIF_BFD_UP;
		if (up != x->was_up) {
			x->was_up = up;
			changed = true;
			say(v, x);
		}
	}
	return changed;
}

bool
aif_bfd_port_up(const struct aif_bfd_sessions *b, uint16_t s, uint16_t p)
{
	const struct sess *x = find(b, s, p);

	return x == NULL || x->s.state == AIF_BFD_UP;
}

int
aif_bfd_admin(struct aif_bfd_sessions *b, const struct aif_bfd_env *v, const char *name,
	      bool down, uint16_t *port)
{
	const char *colon = strchr(name, ':');

	for (unsigned i = 0; colon != NULL && b != NULL && i < b->n; i++) {
		struct sess *x = &b->v[i];
		const struct aif_switch *sw = v->sws[x->sw];
		if (strlen(sw->name) != (size_t)(colon - name) ||
		    strncmp(sw->name, name, (size_t)(colon - name)) != 0 ||
		    strcmp(sw->ports[x->port].name, colon + 1) != 0)
			continue;
		aif_bfd_set_admin(&x->s, down, v->now_ns);
		send_now(v, x, v->now_ns); /* the peer hears it now */
		*port = x->port;
		if (!x->was_up)
			return v->n_sw;
		x->was_up = false; /* no traffic from now */
		say(v, x);
		return x->sw;
	}
	return -1;
}

void
aif_bfd_sessions_goodbye(struct aif_bfd_sessions *b, const struct aif_bfd_env *v)
{
	for (unsigned i = 0; b != NULL && i < b->n; i++) {
		aif_bfd_set_admin(&b->v[i].s, true, v->now_ns);
		send_now(v, &b->v[i], v->now_ns);
	}
}

json_t *
aif_bfd_sessions_show(const struct aif_bfd_sessions *b, const struct aif_bfd_env *v,
		      const struct aif_switch *sw)
{
	json_t *arr = json_array();
	aif_time_ns now = v->now_ns;

	for (unsigned i = 0; b != NULL && i < b->n; i++) {
		const struct sess *x = &b->v[i];
		if (v->sws[x->sw] != sw)
			continue;
		const struct aif_bfd_session *s = &x->s;
		char ip[48];
		json_t *bad = json_object();
		uint64_t n_bad = 0;
		for (unsigned r = 1; r < AIF_BFD_N_BAD; r++)
			if (s->rx_bad[r] != 0) {
				json_object_set_new(bad, aif_bfd_bad_name(r),
						    json_integer((json_int_t)s->rx_bad[r]));
				n_bad += s->rx_bad[r];
			}
		json_t *o = json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:i, s:I, s:I, s:I, s:I, s:I, s:I, "
			"s:o, s:I, s:I, s:f}",
			"port", sw->ports[x->port].name, "peer", aif_ip_fmt(&x->peer, ip, sizeof(ip)),
			"state", aif_bfd_state_name(s->state),
			"remote_state", aif_bfd_state_name(s->remote_state),
			"diag", aif_bfd_diag_name(s->diag),
			"my_discriminator", (json_int_t)s->my_disc,
			"your_discriminator", (json_int_t)s->your_disc,
			"interval_us", (json_int_t)s->p.interval_us, "multiplier", s->p.detect_mult,
			"tx_interval_us", (json_int_t)aif_bfd_tx_interval_us(s),
			"detect_us", (json_int_t)(aif_bfd_detect_ns(s) / 1000),
			"tx", (json_int_t)s->tx, "rx", (json_int_t)s->rx, "ups", (json_int_t)s->ups,
			"downs", (json_int_t)s->downs, "rx_bad", bad, "rx_bad_total", (json_int_t)n_bad,
			"tx_lost", (json_int_t)x->tx_lost,
			"since_s", now > s->changed_ns ? (double)(now - s->changed_ns) / 1e9 : 0.0);
		json_array_append_new(arr, o);
	}
	return arr;
}

void
aif_bfd_sessions_free(struct aif_bfd_sessions *b)
{
	if (b == NULL)
		return;
	free(b->v);
	free(b);
}
