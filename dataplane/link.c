/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Emulated link (link.h): two FIFO delay lines and the port ops of an end.
 *
 * Cost: one slot write per frame sent and one read per frame delivered;
 * the serialization arithmetic is two multiplications and a division.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "frame.h"
#include "link.h"

#define PS_PER_NS AIF_PS_PER_NS
#define PS_PER_S 1000000000000ull

/* Picoseconds to serialize wire bytes at rate_bps (rounded up). */
static inline uint64_t
ser_ps(uint32_t wire, uint64_t rate_bps)
{
	return ((uint64_t)wire * 8 * PS_PER_S + rate_bps - 1) / rate_bps;
}

static inline aif_time_ns
ps_to_ns_up(uint64_t ps)
{
	return (ps + PS_PER_NS - 1) / PS_PER_NS;
}

static uint32_t
slots_for(const struct aif_link_params *p)
{
	/* frames in flight: the delay (plus the horizon) over the shortest
	 * frame's serialization, twice (a receiver driven by another runner
	 * takes them up to a window later, and a window is at most the
	 * delay: windows.h), plus room for control frames */
	uint64_t min_ps = ser_ps(p->wire_model == AIF_WIRE_NS3 ? AIF_WIRE_NS3_MIN_BYTES
							      : aif_link_wire_bytes(0), p->rate_bps);
	uint64_t n = ((2 * p->delay_ns + p->horizon_ns) * PS_PER_NS) / min_ps + 2 * AIF_BURST + 64;
	uint32_t s = 64;

	while (s < n && s < (1u << 24))
		s <<= 1;
	return s;
}

/* One direction's ring, on cache lines. */
static size_t
ring_bytes(uint32_t slots)
{
	return RTE_ALIGN_CEIL((size_t)slots * sizeof(struct aif_link_slot), RTE_CACHE_LINE_SIZE);
}

size_t
aif_link_rings_bytes(const struct aif_link_params *p)
{
	if (p->rate_bps == 0 || p->rate_bps > AIF_LINK_RATE_MAX_BPS ||
	    p->delay_ns > AIF_LINK_DELAY_MAX_NS || p->horizon_ns > AIF_LINK_DELAY_MAX_NS)
		return 0; /* (refused) */
	return 2 * ring_bytes(slots_for(p));
}

size_t
aif_link_mem_bytes(const struct aif_link_params *p)
{
	return sizeof(struct aif_link) + aif_link_rings_bytes(p);
}

struct aif_link *
aif_link_create(const char *name, const struct aif_link_params *p, char *err,
		size_t err_len)
{
	return aif_link_create_at(name, p, NULL, err, err_len);
}

struct aif_link *
aif_link_create_at(const char *name, const struct aif_link_params *p, void *rings,
		   char *err, size_t err_len)
{
	struct aif_link *l;

	if (p->rate_bps == 0 || p->rate_bps > AIF_LINK_RATE_MAX_BPS) {
		snprintf(err, err_len, "rate %llu b/s out of 1..%llu",
			 (unsigned long long)p->rate_bps, AIF_LINK_RATE_MAX_BPS);
		return NULL;
	}
	if (!(p->loss_rate >= 0 && p->loss_rate <= 1 && p->corrupt_rate >= 0 &&
	      p->corrupt_rate <= 1)) {
		snprintf(err, err_len, "loss_rate and corrupt_rate must be 0..1");
		return NULL;
	}
	if (p->wire_model >= AIF_WIRE_MODEL_MAX) {
		snprintf(err, err_len, "wire model %u unknown", p->wire_model);
		return NULL;
	}
	if (p->delay_ns > AIF_LINK_DELAY_MAX_NS || p->horizon_ns > AIF_LINK_DELAY_MAX_NS) {
		snprintf(err, err_len, "delay %llu ns or horizon %llu ns above %llu ns",
			 (unsigned long long)p->delay_ns, (unsigned long long)p->horizon_ns,
			 AIF_LINK_DELAY_MAX_NS);
		return NULL;
	}
	if (strlen(name) >= AIF_LINK_NAME_MAX) {
		snprintf(err, err_len, "name longer than %d characters", AIF_LINK_NAME_MAX - 1);
		return NULL;
	}
	l = rte_zmalloc("aif_link", sizeof(*l), RTE_CACHE_LINE_SIZE);
	if (l == NULL)
		goto nomem;
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->p = *p;
	l->up = 1;
	l->own_rings = rings == NULL;
	aif_link_set_faults(l, p->loss_rate, p->corrupt_rate);
	uint32_t n = slots_for(p);
	for (int d = 0; d < 2; d++) {
		l->end[d] = (struct aif_link_end){ .link = l, .side = (uint8_t)d };
		l->dir[d].mask = l->dir[d].smask = n - 1;
		/* splitmix64 of the seed and the direction: never 0 */
		uint64_t z = p->seed + 0x9E3779B97F4A7C15ull * (uint64_t)(d + 1);
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		aif_rng_seed(&l->dir[d].rng, (z ^ (z >> 31)) | 1);
		/* not zeroed: a slot is read only once written (head != tail),
		 * so a ring costs only the pages its traffic reaches (on 4 KiB
		 * pages a k=56 fat-tree's 2.1 GiB of rings were all touched at
		 * start-up, 1.9 s of it, where a two-host job reaches a few) */
		if (rings != NULL)
			l->dir[d].slot = (struct aif_link_slot *)((char *)rings + d * ring_bytes(n));
		else
			l->dir[d].slot = rte_malloc("aif_link_slots", ring_bytes(n),
						    RTE_CACHE_LINE_SIZE);
		if (l->dir[d].slot == NULL)
			goto nomem;
		l->dir[d].sslot = l->dir[d].slot;
	}
	return l;
nomem:
	snprintf(err, err_len, "out of memory for link %s", name);
	aif_link_free(l);
	return NULL;
}

/* The frames on the wire back to their pools. */
static void
link_drain(struct aif_link *l)
{
	for (int d = 0; d < 2; d++) {
		struct aif_link_dir *dir = &l->dir[d];
		for (uint32_t i = dir->head; dir->slot != NULL && i != dir->tail; i++)
			rte_pktmbuf_free(dir->slot[i & dir->mask].m);
		dir->head = dir->tail;
	}
}

void
aif_link_free(struct aif_link *l)
{
	if (l == NULL)
		return;
	link_drain(l);
	for (int d = 0; d < 2 && l->own_rings; d++)
		rte_free(l->dir[d].slot);
	rte_free(l);
}

void
aif_link_free_at_exit(struct aif_link *l)
{
	if (l != NULL)
		link_drain(l);
}

void
aif_link_attach(struct aif_link *l, uint8_t side, struct aif_port *port)
{
	l->end[side & 1].port = port;
	aif_port_attach(port, &aif_port_link_ops, &l->end[side & 1],
			(uint32_t)(l->p.rate_bps / 1000000), 0, 1);
}

bool
aif_link_is_end(const struct aif_port *p)
{
	return p->base == &aif_port_link_ops;
}

struct aif_port *
aif_link_peer(const struct aif_port *p)
{
	const struct aif_link_end *e = p->ctx;

	return aif_link_is_end(p) ? e->link->end[!e->side].port : NULL;
}

aif_time_ns
aif_link_delay_ns(const struct aif_port *p)
{
	const struct aif_link_end *e = p->ctx;

	return e->link->p.delay_ns;
}

aif_time_ns
aif_link_peer_rx_next_ns(const struct aif_port *p)
{
	const struct aif_link_end *e = p->ctx;

	return aif_link_rx_next_ns(e->link, (uint8_t)!e->side);
}

uint32_t
aif_link_sent_mark(const struct aif_port *p)
{
	const struct aif_link_end *e = p->ctx;

	return e->link->dir[e->side].tail;
}

aif_time_ns
aif_link_sent_since(const struct aif_port *p, uint32_t *mark)
{
	const struct aif_link_end *e = p->ctx;
	const struct aif_link_dir *d = &e->link->dir[e->side];
	uint32_t from = *mark;

	if (d->tail == from)
		return AIF_TIME_NS_NEVER;
	*mark = d->tail;
	/* arrivals on one direction only grow: the first is the earliest */
	return d->sslot[from & d->smask].arrive_ns;
}

aif_time_ns
aif_link_rx_next_ns(struct aif_link *l, uint8_t side)
{
	struct aif_link_dir *d = &l->dir[!side];
	uint32_t head = d->head;

	if (head == d->tail_seen &&
	    head == (d->tail_seen = __atomic_load_n(&d->tail, __ATOMIC_ACQUIRE)))
		return AIF_TIME_NS_NEVER;
	return d->slot[head & d->mask].arrive_ns;
}

void
aif_link_set_faults(struct aif_link *l, double loss_rate, double corrupt_rate)
{
	/* a rate as a threshold on a 64-bit draw; 1 is every draw */
	if (loss_rate >= 0)
		__atomic_store_n(&l->loss_thresh, loss_rate >= 1 ? UINT64_MAX
				 : (uint64_t)(loss_rate * 18446744073709551616.0), __ATOMIC_RELAXED);
	if (corrupt_rate >= 0)
		__atomic_store_n(&l->corrupt_thresh, corrupt_rate >= 1 ? UINT64_MAX
				 : (uint64_t)(corrupt_rate * 18446744073709551616.0), __ATOMIC_RELAXED);
}

void
aif_link_set_up(struct aif_link *l, int up, aif_time_ns now_ns)
{
	if (!up && __atomic_load_n(&l->up, __ATOMIC_RELAXED))
		__atomic_store_n(&l->down_ns, now_ns, __ATOMIC_RELEASE);
	__atomic_store_n(&l->up, (uint8_t)(up != 0), __ATOMIC_RELEASE);
	for (int e = 0; e < 2; e++)
		if (l->end[e].port != NULL)
			aif_port_set_link_up(l->end[e].port, up != 0);
}

#define CORRUPT_FROM 54 /* Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 */
#define ICRC_BYTES 4

/* Flip one bit of m's payload (pcap_port.h: past the headers, before the
 * ICRC), a light frame made whole first (frame.h); 0 if the frame has no
 * such payload (or no mbuf to make it whole). */
static int
corrupt(struct aif_link_dir *d, struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);

	if (len <= CORRUPT_FROM + ICRC_BYTES || aif_frame_materialise(m) != 0)
		return 0;
	uint64_t r = aif_rng_next(&d->rng);
	uint32_t off = CORRUPT_FROM + (uint32_t)((r >> 3) % (len - CORRUPT_FROM - ICRC_BYTES));
	struct rte_mbuf *seg = m;
	while (off >= seg->data_len) {
		off -= seg->data_len;
		seg = seg->next;
	}
	*rte_pktmbuf_mtod_offset(seg, uint8_t *, off) ^= (uint8_t)(1u << (r & 7));
	return 1;
}

uint32_t
aif_link_frame_wire_bytes(const struct aif_link *l, const struct rte_mbuf *m)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t buf[AIF_WIRE_PARSE_BYTES];

	if (likely(l->p.wire_model == AIF_WIRE_ETHERNET))
		return aif_link_wire_bytes(len);
	uint32_t n = RTE_MIN(len, (uint32_t)AIF_WIRE_PARSE_BYTES);
	const uint8_t *f = aif_frame_read(m, 0, n, buf);
	return aif_wire_ns3_bytes(f, f != NULL ? n : 0, len);
}

/* Put m on the wire of d: it starts at start_ps.  0 if the line is full
 * (the caller keeps m); 1 when taken (delivered later, or lost and freed). */
static inline int
put(struct aif_link *l, struct aif_link_dir *d, struct rte_mbuf *m, uint64_t start_ps)
{
	uint32_t tail = d->tail;

	if (unlikely(tail - d->head_seen > d->smask)) {
		d->head_seen = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);
		if (tail - d->head_seen > d->smask) {
			d->ctr.lost_full++;
			return 0;
		}
	}
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t busy = aif_wire_ser_ps((enum aif_wire_model)l->p.wire_model,
					aif_link_frame_wire_bytes(l, m), l->p.rate_bps);
	uint64_t finish = start_ps + busy;
	d->busy_until_ps = finish;
	d->ctr.tx_packets++;
	d->ctr.tx_bytes += len;
	d->ctr.busy_ps += busy;
	uint64_t lt = __atomic_load_n(&l->loss_thresh, __ATOMIC_RELAXED);
	uint64_t ct = __atomic_load_n(&l->corrupt_thresh, __ATOMIC_RELAXED);
	if (unlikely(lt != 0) && aif_rng_next(&d->rng) < lt) {
		d->ctr.lost_random++;
		rte_pktmbuf_free(m);
		return 1;
	}
	if (unlikely(ct != 0) && aif_rng_next(&d->rng) < ct)
		d->ctr.corrupted += (uint64_t)corrupt(d, m);
	d->sslot[tail & d->smask] = (struct aif_link_slot){
		.m = m, .start_ns = start_ps / PS_PER_NS,
		.arrive_ns = ps_to_ns_up(finish) + l->p.delay_ns,
	};
	__atomic_store_n(&d->tail, tail + 1, __ATOMIC_RELEASE);
	return 1;
}

/* The link is down: m is dropped (counted), as a port with its link down
 * drops what it is given. */
static inline void
drop_down(struct aif_link_dir *d, struct rte_mbuf *m)
{
	d->ctr.dropped_down++;
	rte_pktmbuf_free(m);
}

static uint16_t
link_tx(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	struct aif_link_end *e = p->ctx;
	struct aif_link *l = e->link;
	struct aif_link_dir *d = &l->dir[e->side];
	uint64_t now_ps = now_ns * PS_PER_NS, limit_ps = now_ps + l->p.horizon_ns * PS_PER_NS;
	uint16_t i;

	(void)queue;
	if (unlikely(!__atomic_load_n(&l->up, __ATOMIC_ACQUIRE))) {
		for (i = 0; i < n; i++)
			drop_down(d, pkts[i]);
		return n;
	}
	for (i = 0; i < n; i++) {
		/* the wire is free at now (or within the horizon) */
		uint64_t start = aif_link_start_ps(d->busy_until_ps, now_ps);
		if (start > limit_ps || !put(l, d, pkts[i], start))
			break;
	}
	d->ctr.refused += n - i;
	return i;
}

static uint16_t
link_tx_ctrl(struct aif_port *p, uint16_t queue, struct rte_mbuf *m, aif_time_ns now_ns)
{
	struct aif_link_end *e = p->ctx;
	struct aif_link_dir *d = &e->link->dir[e->side];

	(void)queue;
	if (unlikely(!__atomic_load_n(&e->link->up, __ATOMIC_ACQUIRE))) {
		drop_down(d, m);
		return 1;
	}
	/* Next frame boundary: after the frame on the wire now.  Frames the
	 * end took ahead of the wire (horizon) are already on the line: it
	 * goes after them, which a horizon of 0 makes exact. */
	if (!put(e->link, d, m, aif_link_start_ps(d->busy_until_ps, now_ns * PS_PER_NS)))
		return 0;
	d->ctr.tx_ctrl++;
	return 1;
}

static aif_time_ns
link_tx_ready_ns(struct aif_port *p, uint16_t queue, aif_time_ns now_ns)
{
	struct aif_link_end *e = p->ctx;
	const struct aif_link_dir *d = &e->link->dir[e->side];
	aif_time_ns free_ns = ps_to_ns_up(d->busy_until_ps);
	aif_time_ns h = e->link->p.horizon_ns;

	(void)queue;
	return free_ns <= now_ns + h ? now_ns : free_ns - h;
}

static uint16_t
link_rx(struct aif_port *p, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	struct aif_link_end *e = p->ctx;
	struct aif_link_dir *d = &e->link->dir[!e->side];
	uint32_t head = d->head, tail = d->tail_seen;
	uint16_t k = 0;

	aif_time_ns down = __atomic_load_n(&e->link->down_ns, __ATOMIC_ACQUIRE);

	(void)queue;
	while (k < n) {
		if (head == tail) { /* every frame known delivered: any since? */
			tail = d->tail_seen = __atomic_load_n(&d->tail, __ATOMIC_ACQUIRE);
			if (head == tail)
				break;
		}
		if (d->slot[head & d->mask].arrive_ns > now_ns)
			break;
		const struct aif_link_slot *s = &d->slot[head++ & d->mask];
		/* on the wire when the link went down: lost */
		if (unlikely(down != 0) && s->start_ns <= down && s->arrive_ns > down) {
			d->ctr.lost_down++;
			rte_pktmbuf_free(s->m);
			continue;
		}
		pkts[k++] = s->m;
	}
	/* the next frame on this wire comes at least one serialization
	 * later: its mbuf's header and first data line into the cache now.
	 * The data's address without reading buf_addr (that read waited for
	 * the line the prefetch asks for: a third of this function's time):
	 * where the pools put it, no private area (control/run.c); a hint
	 * only, harmless for an mbuf from elsewhere. */
	if (head != tail) {
		const struct rte_mbuf *nx = d->slot[head & d->mask].m;
		rte_prefetch0(nx);
		rte_prefetch0((const char *)nx + RTE_CACHE_LINE_SIZE);
		rte_prefetch0((const char *)nx + sizeof(struct rte_mbuf) + RTE_PKTMBUF_HEADROOM);
	}
	__atomic_store_n(&d->head, head, __ATOMIC_RELEASE);
	return k;
}

static aif_time_ns
link_rx_next_ns(struct aif_port *p, uint16_t queue)
{
	const struct aif_link_end *e = p->ctx;

	(void)queue;
	return aif_link_rx_next_ns(e->link, e->side);
}

int
aif_link_take(struct aif_link *l, uint8_t side, struct aif_link_slot *out)
{
	struct aif_link_dir *d = &l->dir[side];
	uint32_t head = d->head;

	if (head == d->tail)
		return 0;
	*out = d->slot[head & d->mask];
	d->head = head + 1;
	d->tail_seen = d->tail;
	return 1;
}

int
aif_link_put_arrival(struct aif_link *l, uint8_t side, const struct aif_link_slot *s)
{
	struct aif_link_dir *d = &l->dir[side];
	uint32_t tail = d->tail;

	if (tail - d->head > d->mask) {
		d->ctr.lost_full++;
		rte_pktmbuf_free(s->m);
		return -1;
	}
	d->slot[tail & d->mask] = *s;
	d->tail = tail + 1;
	return 0;
}

const struct aif_port_ops aif_port_link_ops = {
	.kind = "link", .rx_burst = link_rx, .tx_burst = link_tx, .tx_ctrl = link_tx_ctrl,
	.rx_next_ns = link_rx_next_ns, .tx_ready_ns = link_tx_ready_ns,
};
