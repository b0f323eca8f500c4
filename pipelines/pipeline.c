/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The L3 switch pipeline for one RX burst (stage order in pipeline.h).
 *
 * Passes over the burst: the first parses, checks and classifies each
 * packet and gathers IPv4 and IPv6 destinations; then one bulk FIB lookup per
 * family; then one pass chooses each packet's next hop (load balancing) and
 * a last one resolves the neighbour, rewrites and gives the packet its
 * verdict (fwd.h).  Each pass is a short loop of independent packets, so
 * the CPU overlaps them.  Nothing here sends or frees a packet.
 */
#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "../dataplane/frame.h"
#include "../dataplane/neigh.h"
#include "../dataplane/trace.h"
#include "arp_nd.h"
#include "classify.h"
#include "flow_hash.h"
#include "fwd.h"
#include "icmp_error.h"
#include "lb.h"
#include "parse.h"
#include "pipeline.h"
#include "rewrite.h"

#define PREFETCH_AHEAD 4

/*
 * What every packet of a burst reads, loaded once per burst into locals:
 * the rewrite writes packet bytes through char pointers, which may alias
 * anything, so without this the compiler reloads each pointer chain
 * (the neighbour view, t->ports...) for every packet.
 */
struct fwd_ctx {
	const struct aif_tables *t;
	const struct aif_port_l3 *l3;   /* t->ports */
	const struct aif_group *groups;
	const struct aif_member *members;
	const struct aif_neigh_view *nv; /* the neighbour table, this burst */
	const uint64_t *neigh_slot;     /* nv->slot */
	struct aif_fwd *f;
	struct aif_fwd_out *o;
	uint64_t link_up;               /* f->link_up */
	uint16_t in_port;
	const uint8_t *buckets;         /* t->buckets */
	const uint8_t *scheme_by_tc;    /* t->lb.scheme_by_tc */
	struct aif_lb_ctx *lb;          /* for the schemes with state (NULL: made
					 * when one is asked, run_one) */
	struct aif_trace *trace;        /* path trace when on, else NULL */
	uint32_t hash_fields, seed;
	uint8_t hash_alg;
	aif_time_ns now_ns;
};

struct burst {
	uint16_t idx4[AIF_BURST], idx6[AIF_BURST];
	uint32_t ip4[AIF_BURST];
	uint8_t ip6[AIF_BURST][16];
	uint64_t nh4[AIF_BURST], nh6[AIF_BURST];
	uint16_t n4, n6;
};

static inline bool
mac_eq(const uint8_t *a, const struct aif_mac *b)
{
	return memcmp(a, b->b, 6) == 0;
}

static void
trace_packet(struct aif_trace *trace, uint16_t shard, const struct aif_member *mem,
	     aif_time_ns now_ns, const struct aif_pkt *m, uint64_t nh, uint32_t member,
	     uint8_t scheme)
{
	if (!aif_trace_match(&trace->f, m))
		return;
	struct aif_trace_rec r = {
		.t_ns = now_ns, .src = m->src, .dst = m->dst,
		.src_port = m->src_port, .dst_port = m->dst_port, .hash = m->hash,
		.psn = (m->flags & AIF_PKT_F_ROCE) ? m->psn : 0,
		.group = (uint16_t)aif_nh_index(nh), .member = (uint16_t)member,
		.out_port = mem->port, .scheme = scheme,
	};
	aif_trace_record(trace, shard, &r);
}

/*
 * A frame that arrived in several segments (net_pcap and other vdevs chain
 * what one mbuf cannot hold; a small frame made whole upstream, frame.h;
 * the parser reads one contiguous frame).  Longer than the ingress port's
 * MTU (plus its Ethernet header and a tag): mtu_exceeded.  Otherwise it is
 * gathered into one segment (aif_frame_gather: its first, which holds any
 * frame within the largest port MTU when the pool's data room is sized from
 * it as control/run.c does, or one of the large pool, *pm then that one);
 * if it cannot be: mbuf_too_small.  Returns the verdict.
 */
static enum aif_drop_reason
gather_segments(const struct aif_tables *t, uint16_t in_port, struct rte_mbuf **pm)
{
	struct rte_mbuf *mb = *pm;
	uint8_t type_buf[2];
	const uint8_t *type = rte_pktmbuf_read(mb, RTE_ETHER_ADDR_LEN * 2, 2, type_buf);
	uint32_t l2_bytes = RTE_ETHER_HDR_LEN;

	if (type != NULL && type[0] == AIF_ETHERTYPE_VLAN >> 8 &&
	    type[1] == (AIF_ETHERTYPE_VLAN & 0xff))
		l2_bytes += RTE_VLAN_HLEN;
	if (rte_pktmbuf_pkt_len(mb) > t->ports[in_port].mtu + l2_bytes)
		return AIF_DROP_MTU_EXCEEDED;
	if (aif_frame_gather(pm) != 0)
		return AIF_DROP_MBUF_TOO_SMALL;
	return AIF_DROP_NONE;
}

/*
 * 802.1Q on ingress: a port with "vlan" V takes untagged, priority-tagged
 * (VID 0) and VID V frames; one without takes any VID, as it always has
 * (the tag is removed on the way out).  Only for tagged frames.
 */
static inline bool
vlan_accepted(const struct aif_port_l3 *l3, const struct aif_pkt *m)
{
	return !l3->tagged || m->vlan_id == 0 || m->vlan_id == l3->vlan_id;
}

/* Pass 1 for one packet: parse, divert control traffic, gather for lookup. */
static inline __attribute__((always_inline)) void
ingress(struct aif_fwd *f, const struct aif_tables *t, uint16_t in_port,
	struct burst *b, struct aif_fwd_out *o, struct rte_mbuf **pm, uint16_t i,
	aif_time_ns now_ns)
{
	struct aif_pkt *m = &o->meta[i];
	const uint8_t *data;
	enum aif_drop_reason rc;

	if (unlikely((*pm)->nb_segs > 1)) {
		rc = gather_segments(t, in_port, pm); /* (*pm may be another now) */
		if (rc != 0) {
			aif_fwd_drop(f, o, i, in_port, rc);
			return;
		}
	}
	struct rte_mbuf *mb = *pm;
	data = rte_pktmbuf_mtod(mb, const uint8_t *);
	rc = aif_parse(data, aif_frame_parse_len(mb), m);
	if (unlikely(rc != 0)) {
		aif_fwd_drop(f, o, i, in_port, rc);
		return;
	}
	if (unlikely(m->flags & AIF_PKT_F_VLAN) && !vlan_accepted(&t->ports[in_port], m)) {
		aif_fwd_drop(f, o, i, in_port, AIF_DROP_VLAN_MISMATCH);
		return;
	}
	m->in_port = in_port;
	switch (m->kind) {
	case AIF_PKT_IPV4:
		if (unlikely(!mac_eq(data, &t->ports[in_port].mac)))
			goto not_unicast;
		aif_classify(t, m);
		b->idx4[b->n4] = i;
		b->ip4[b->n4++] = aif_ip4_host(&m->dst);
		return;
	case AIF_PKT_IPV6:
		if (unlikely(m->flags & AIF_PKT_F_ND)) {
			aif_nd_input(f, t, in_port, mb, m, now_ns, o, i);
			return;
		}
		if (unlikely(!mac_eq(data, &t->ports[in_port].mac)))
			goto not_unicast;
		aif_classify(t, m);
		b->idx6[b->n6] = i;
		memcpy(b->ip6[b->n6++], m->dst.b, 16);
		return;
	case AIF_PKT_ARP:
		aif_arp_input(f, t, in_port, mb, m, now_ns, o, i);
		return;
	case AIF_PKT_MAC_CTRL:
		/* PAUSE/PFC: for the port's pause state, never forwarded */
		aif_fwd_to(o, i, AIF_NEXT_MAC_CTRL, in_port);
		return;
	default:
		aif_fwd_drop(f, o, i, in_port, AIF_DROP_UNSUPPORTED);
		return;
	}
not_unicast:
	/* group-addressed IP (RS, MLD, mDNS...) is for the switch, not routed */
	aif_fwd_drop(f, o, i, in_port, (m->flags & AIF_PKT_F_L2_BCAST) ? AIF_DROP_TO_SWITCH
								       : AIF_DROP_NOT_FOR_US);
}

/* An IPv4 address's entry in the shard's route and neighbour caches
 * (multiplicative hashing: the product's top bits). */
static inline unsigned
cache4_slot(uint32_t ip)
{
	return (ip * 2654435761u) >> (32 - AIF_FWD_CACHE4_BITS);
}

/*
 * A connected destination's neighbour slot (aif_neigh_find), IPv4 through
 * the shard's cache: a slot found is kept under the table's generation,
 * which any add or delete moves (neigh.h); a miss is not kept.  The hash
 * lookup was 2% of a packet-hop's instructions on the 128-host hosts run.
 */
static inline uint32_t
neigh_find_cached(struct aif_fwd *f, const struct aif_neigh_view *nv, const struct aif_ip *ip)
{
	if (ip->family != AIF_AF_INET4)
		return aif_neigh_view_find(nv, ip);
	uint32_t a;
	memcpy(&a, ip->b, sizeof(a));
	uint64_t gen = __atomic_load_n(&f->neigh->gen, __ATOMIC_ACQUIRE);
	unsigned h = cache4_slot(a);
	if (f->nc4[h].gen == gen + 1 && f->nc4[h].ip == a)
		return f->nc4[h].slot;
	uint32_t s = aif_neigh_view_find(nv, ip);
	if (s != AIF_NEIGH_NONE) {
		f->nc4[h].gen = gen + 1; /* (0: never filled) */
		f->nc4[h].ip = a;
		f->nc4[h].slot = s;
	}
	return s;
}

/* What the schemes with state see (struct aif_lb_ctx), for a burst or a
 * packet at now_ns. */
static inline struct aif_lb_ctx
lb_ctx_of(struct aif_fwd *f, const struct aif_tables *t, aif_time_ns now_ns)
{
	return (struct aif_lb_ctx){
		.st = f->lb, .p = &t->lb, .port_qbytes = f->port_qbytes,
		.port_tc_qbytes = f->port_tc_qbytes,
		.rng = &f->rng, .now_ns = now_ns, .shard = f->shard, .t = t,
	};
}

/*
 * Pass 2a for one packet with its FIB result: choose the next hop (group
 * member, or the destination itself when connected) and leave its
 * neighbour slot in m->nh_slot.  Returns false when the packet was consumed
 * (dropped, or answered by the switch).  Split from pass 2b so the hash ->
 * member -> slot chains of a whole burst overlap instead of each packet
 * waiting for its own.
 */
static inline __attribute__((always_inline)) bool
resolve_inline(const struct fwd_ctx *x, struct rte_mbuf *mb, uint16_t i, uint64_t nh)
{
	struct aif_pkt *m = &x->o->meta[i];
	uint32_t slot;

	switch (aif_nh_type(nh)) {
	case AIF_NH_GROUP: {
		if (unlikely(m->ttl <= 1))
			goto ttl_expired;
		const struct aif_group *g = &x->groups[aif_nh_index(nh)];
		const struct aif_member *mem = &x->members[g->first];
		uint32_t k = 0;
		uint8_t scheme = g->prog == AIF_LB_PROG_NONE ? x->scheme_by_tc[m->tc & 7]
							      : AIF_LB_PROG;
		if (g->n > 1) {
			m->hash = aif_flow_hash(m, x->hash_fields, x->hash_alg, x->seed);
			const uint8_t *bk = x->buckets + g->bucket_first;
			/* ECMP/WCMP, the common case, without the indirect call */
			if (likely(scheme <= AIF_LB_WCMP)) {
				/* ns-3's ECMP: hash % n over the members (up) in order */
				k = unlikely(x->hash_alg == AIF_HASH_MURMUR3_NS3)
				    ? aif_lb_up_at(g, m->hash % aif_lb_up_n(g))
				    : aif_lb_bucket_pick(g, bk, m->hash);
			} else {
				/* the burst's, or (one packet) made here */
				struct aif_lb_ctx one, *lb = x->lb;
				if (lb == NULL) {
					one = lb_ctx_of(x->f, x->t, x->now_ns);
					lb = &one;
				}
				lb->group = (uint16_t)aif_nh_index(nh);
				/* a program without the indirect call too */
				k = scheme == AIF_LB_PROG ?
				    aif_lb_prog_select(g, mem, bk, m, lb) :
				    aif_lb_schemes[scheme].select(g, mem, bk, m, lb);
			}
			mem += k;
		}
		if (unlikely(x->trace != NULL))
			trace_packet(x->trace, x->f->shard, mem, x->now_ns, m, nh, k, scheme);
		m->member = mem->ctr_slot;
		m->nh_slot = mem->neigh_slot;
		return true;
	}
	case AIF_NH_CONNECTED:
		if (unlikely(m->ttl <= 1))
			goto ttl_expired;
		slot = neigh_find_cached(x->f, x->nv, &m->dst);
		if (unlikely(slot == AIF_NEIGH_NONE)) {
			aif_neigh_solicit(x->f, x->t, (uint16_t)aif_nh_index(nh), &m->dst,
					  x->now_ns, x->o);
			aif_fwd_drop(x->f, x->o, i, x->in_port, AIF_DROP_NEIGH_UNRESOLVED);
			return false;
		}
		m->member = UINT32_MAX;
		m->nh_slot = slot;
		return true;
	case AIF_NH_LOCAL:
		aif_local_input(x->f, x->t, m->in_port, mb, m, x->o, i);
		return false;
	default: /* miss, drop route */
		aif_fwd_drop(x->f, x->o, i, x->in_port, AIF_DROP_NO_ROUTE);
		return false;
	}
ttl_expired:
	aif_icmp_time_exceeded(x->f, x->t, mb, m, x->now_ns, x->o);
	aif_fwd_drop(x->f, x->o, i, x->in_port, AIF_DROP_TTL_EXPIRED);
	return false;
}

/* (out of line in the burst's loop: the chains of several packets overlap) */
static bool
resolve(const struct fwd_ctx *x, struct rte_mbuf *mb, uint16_t i, uint64_t nh)
{
	return resolve_inline(x, mb, i, nh);
}

/* Pass 2b: neighbour MAC and port, MTU and link checks, rewrite, verdict. */
static inline void
emit(const struct fwd_ctx *x, struct rte_mbuf *mb, uint16_t i)
{
	struct aif_pkt *m = &x->o->meta[i];
	uint64_t nb = __atomic_load_n(&x->neigh_slot[m->nh_slot], __ATOMIC_RELAXED);
	struct aif_mac dmac;
	uint16_t out;

	if (unlikely((nb & (AIF_NEIGH_VALID | AIF_NEIGH_STALE)) != AIF_NEIGH_VALID)) {
		/* unresolved: ask, and drop; stale: ask (the answer refreshes
		 * it), and forward with the MAC known so far.  The question is
		 * for the neighbour's address, the next hop's for a group
		 * member, not the packet's destination.  (meta is control's;
		 * a slot reused meanwhile costs one wasted request.) */
		const struct aif_neigh_meta *nm = &x->nv->meta[m->nh_slot];
		struct aif_ip target = nm->ip;
		aif_neigh_solicit(x->f, x->t, (nb & AIF_NEIGH_VALID) ? (uint16_t)((nb >> 48) &
				  AIF_NEIGH_PORT_MASK) : nm->port, &target, x->now_ns, x->o);
		if (!(nb & AIF_NEIGH_VALID)) {
			aif_fwd_drop(x->f, x->o, i, x->in_port, AIF_DROP_NEIGH_UNRESOLVED);
			return;
		}
	}
	out = (uint16_t)((nb >> 48) & AIF_NEIGH_PORT_MASK);
	nb = rte_cpu_to_le_64(nb); /* MAC bytes first, in wire order */
	memcpy(dmac.b, &nb, 6);
	if (unlikely(m->l3_len > x->l3[out].mtu)) {
		aif_icmp_too_big(x->f, x->t, mb, m, x->l3[out].mtu, x->now_ns, x->o);
		aif_fwd_drop(x->f, x->o, i, x->in_port, AIF_DROP_MTU_EXCEEDED);
		return;
	}
	if (unlikely(!((x->link_up >> out) & 1))) {
		aif_fwd_drop(x->f, x->o, i, x->in_port, AIF_DROP_PORT_DOWN);
		return;
	}
	if (unlikely(aif_rewrite_routed(mb, m, &x->l3[out], &dmac) != 0)) {
		aif_fwd_drop(x->f, x->o, i, x->in_port, AIF_DROP_MBUF_TOO_SMALL);
		return;
	}
	m->out_port = out;
	aif_fwd_to(x->o, i, AIF_NEXT_ROUTE, out);
}

/* The passes' context for a burst (or one packet: lb NULL) at now_ns,
 * made after the FIB lookups: a neighbour view as new as the slots they
 * name. */
static inline __attribute__((always_inline)) struct fwd_ctx
fwd_ctx_of(struct aif_fwd *f, const struct aif_tables *t, struct aif_fwd_out *o,
	   uint16_t in_port, aif_time_ns now_ns, struct aif_lb_ctx *lb)
{
	const struct aif_neigh_view *nv = aif_neigh_view(f->neigh);

	return (struct fwd_ctx){
		.t = t, .l3 = t->ports, .groups = t->groups, .members = t->members,
		.nv = nv, .neigh_slot = nv->slot, .f = f, .o = o, .link_up = f->link_up,
		.in_port = in_port,
		.hash_fields = t->lb.hash_fields, .seed = t->seed,
		.hash_alg = t->lb.hash_alg, .now_ns = now_ns,
		.buckets = t->buckets, .scheme_by_tc = t->lb.scheme_by_tc, .lb = lb,
		.trace = f->trace,
	};
}

/* The route cache's set for ip: cache4_slot's, a set holding the ways of
 * AIF_FWD_RC4_WAYS slots. */
static inline unsigned
rc4_set(uint32_t ip)
{
	return cache4_slot(ip) / AIF_FWD_RC4_WAYS;
}

/* ip's next hop from the shard's route cache (below) into *nh; false: not
 * there for these tables. */
static inline bool
rc4_get(const struct aif_fwd *f, const struct aif_tables *t, uint32_t ip, uint64_t *nh)
{
	const struct aif_fwd_rc4_set *s = &f->rc4[rc4_set(ip)];

	if (s->gen != t->generation)
		return false;
	for (unsigned w = 0; w < s->n; w++)
		if (s->ip[w] == ip) {
			*nh = s->nh[w];
			return true;
		}
	return false;
}

/* Keep ip's next hop: in a free way of its set, else in place of the
 * way filled longest ago; a set of older tables is emptied first. */
static inline void
rc4_put(struct aif_fwd *f, const struct aif_tables *t, uint32_t ip, uint64_t nh)
{
	struct aif_fwd_rc4_set *s = &f->rc4[rc4_set(ip)];
	unsigned w;

	if (s->gen != t->generation) {
		s->gen = t->generation;
		s->n = 0;
		s->victim = 0;
	}
	for (w = 0; w < s->n; w++)
		if (s->ip[w] == ip)
			break; /* (twice in one burst) */
	if (w == s->n) {
		if (s->n < AIF_FWD_RC4_WAYS) {
			s->n++;
		} else {
			w = s->victim;
			s->victim = (uint8_t)((w + 1) % AIF_FWD_RC4_WAYS);
		}
	}
	s->ip[w] = ip;
	s->nh[w] = nh;
}

/*
 * IPv4 next hops through the shard's route cache (compact tables: a tree
 * walk per lookup otherwise).  An entry holds for the tables' generation:
 * a new config or link change starts it afresh.  A fabric's switches see
 * few destinations (its hosts), so nearly every lookup hits; measured in
 * virtual time on the 128-host leaf-spine: rte_rib_lookup from 10% of the
 * run to under 1%.
 */
static void
lookup4_cached(struct aif_fwd *f, const struct aif_tables *t, struct burst *b)
{
	uint32_t mip[AIF_BURST];
	uint64_t mnh[AIF_BURST];
	uint16_t mi[AIF_BURST], nm = 0;

	for (uint16_t i = 0; i < b->n4; i++) {
		if (rc4_get(f, t, b->ip4[i], &b->nh4[i]))
			continue;
		mi[nm] = i;
		mip[nm++] = b->ip4[i];
	}
	if (nm == 0)
		return;
	aif_tables_lookup4(t, mip, mnh, nm);
	for (uint16_t k = 0; k < nm; k++) {
		b->nh4[mi[k]] = mnh[k];
		rc4_put(f, t, mip[k], mnh[k]);
	}
}

/*
 * A burst of one packet: the passes of aif_pipeline_run without their loops,
 * the route cache probed for the one address, the stages inlined (what every
 * emulated port gives in virtual time, where a frame is taken in at the
 * instant it arrives).  The same verdicts, counters and bytes as the burst
 * path (tests/pipeline/test_pipeline_forwarding.c, one frame at a time).
 * The hosts run on one runner: 3,128 -> 2,971 instructions per packet-hop
 * with the IPv4 checksum's fixed-size sum (parse.c).
 */
static void
run_one(struct aif_fwd *f, const struct aif_tables *t, uint16_t in_port,
	struct rte_mbuf **pkts, aif_time_ns now_ns, struct aif_fwd_out *o)
{
	struct aif_port_ctr *c = &f->port_ctr[in_port];
	struct burst b;

	b.n4 = b.n6 = 0;
	o->n_built = 0;
	c->rx_packets++;
	c->rx_bytes += rte_pktmbuf_pkt_len(pkts[0]);
	ingress(f, t, in_port, &b, o, pkts, 0, now_ns);
	if (b.n4 && t->fib_compact) {
		if (!rc4_get(f, t, b.ip4[0], &b.nh4[0])) {
			aif_tables_lookup4(t, b.ip4, b.nh4, 1);
			rc4_put(f, t, b.ip4[0], b.nh4[0]);
		}
	} else if (b.n4)
		aif_tables_lookup4(t, b.ip4, b.nh4, 1);
	else if (b.n6)
		aif_tables_lookup6(t, b.ip6, b.nh6, 1);
	else
		return;
	const struct fwd_ctx x = fwd_ctx_of(f, t, o, in_port, now_ns, NULL);
	if (resolve_inline(&x, pkts[0], 0, b.n4 ? b.nh4[0] : b.nh6[0]))
		emit(&x, pkts[0], 0);
}

void
aif_pipeline_run(struct aif_fwd *f, const struct aif_tables *t, uint16_t in_port,
		 struct rte_mbuf **pkts, uint16_t n, aif_time_ns now_ns,
		 struct aif_fwd_out *o)
{
	if (n == 1) {
		run_one(f, t, in_port, pkts, now_ns, o);
		return;
	}
	struct aif_port_ctr *c = &f->port_ctr[in_port];
	struct burst b;
	uint64_t bytes = 0;
	uint16_t i;

	b.n4 = b.n6 = 0;
	o->n_built = 0;
	for (i = 0; i < n && i < PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));
	for (i = 0; i < n; i++) {
		if (i + PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + PREFETCH_AHEAD], void *));
		bytes += rte_pktmbuf_pkt_len(pkts[i]);
		ingress(f, t, in_port, &b, o, &pkts[i], i, now_ns);
	}
	c->rx_packets += n;
	c->rx_bytes += bytes;

	if (b.n4 && t->fib_compact)
		lookup4_cached(f, t, &b);
	else if (b.n4)
		aif_tables_lookup4(t, b.ip4, b.nh4, b.n4);
	if (b.n6)
		aif_tables_lookup6(t, b.ip6, b.nh6, b.n6);
	struct aif_lb_ctx lbx = lb_ctx_of(f, t, now_ns);
	const struct fwd_ctx x = fwd_ctx_of(f, t, o, in_port, now_ns, &lbx);
	uint16_t live[AIF_BURST], n_live = 0;
	for (i = 0; i < b.n4; i++)
		if (resolve(&x, pkts[b.idx4[i]], b.idx4[i], b.nh4[i]))
			live[n_live++] = b.idx4[i];
	for (i = 0; i < b.n6; i++)
		if (resolve(&x, pkts[b.idx6[i]], b.idx6[i], b.nh6[i]))
			live[n_live++] = b.idx6[i];
	for (i = 0; i < n_live; i++)
		emit(&x, pkts[live[i]], live[i]);
}
