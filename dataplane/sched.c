/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Egress port scheduler: ETS (strict priority + DWRR) over 8 intrusive
 * FIFOs and a token-bucket shaper.  The arithmetic, units, knobs and
 * memory are in sched.h.
 *
 * Reads:  cfg (copied from control at init / set_config), now_ns,
 *         paused_mask, the queued elements' nodes.
 * Writes: struct aif_sched (queue heads and tails, DWRR position, tokens,
 *         counters) and the nodes of the elements it queues; one worker
 *         owns it.
 *
 * The choice of the next packet is one function, pick(), that works on a
 * struct aif_sched_dwrr.  dequeue runs it on the scheduler's own position;
 * next_event runs it on a copy, so it names exactly the packet the next
 * dequeue will send (for the same paused_mask) without changing anything.
 */
#include <string.h>

#include "sched.h"

#define NBIT_PER_BIT 1000000000ull /* tokens are nanobits: rate_bps * ns */

static const char *const err_names[] = {
#define AIF_SCHED_ERR_NAME(id, val, name) [-(val)] = name,
	AIF_FOREACH_SCHED_ERR(AIF_SCHED_ERR_NAME)
#undef AIF_SCHED_ERR_NAME
};

const char *
aif_sched_err_name(int err)
{
	if (err > 0 || (unsigned)-err >= sizeof(err_names) / sizeof(err_names[0]))
		return "unknown";
	return err_names[-err];
}

const char *const aif_sched_qctr_names[] = {
#define AIF_SCHED_CTR_NAME(n) #n,
	AIF_FOREACH_SCHED_QCTR(AIF_SCHED_CTR_NAME)
};
const unsigned aif_sched_qctr_n =
	sizeof(aif_sched_qctr_names) / sizeof(aif_sched_qctr_names[0]);

const char *const aif_sched_pctr_names[] = {
	AIF_FOREACH_SCHED_PCTR(AIF_SCHED_CTR_NAME)
#undef AIF_SCHED_CTR_NAME
};
const unsigned aif_sched_pctr_n =
	sizeof(aif_sched_pctr_names) / sizeof(aif_sched_pctr_names[0]);

void
aif_sched_params_default(struct aif_sched_params *p)
{
	memset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < AIF_SCHED_NQ; i++) {
		p->q[i].mode = AIF_SCHED_DWRR;
		p->q[i].weight = 1;
	}
}

int
aif_sched_config_init(struct aif_sched_config *c,
		      const struct aif_sched_params *p)
{
	struct aif_sched_config n;
	uint32_t base;

	memset(&n, 0, sizeof(n));
	n.mtu_bytes = p->mtu_bytes ? p->mtu_bytes : AIF_SCHED_DEFAULT_MTU_BYTES;
	if (n.mtu_bytes < AIF_SCHED_MTU_MIN_BYTES ||
	    n.mtu_bytes > AIF_SCHED_MTU_MAX_BYTES)
		return AIF_SCHED_ERR_MTU;
	base = p->quantum_base_bytes ? p->quantum_base_bytes : n.mtu_bytes;
	if (base < AIF_SCHED_QUANTUM_MIN_BYTES ||
	    base > AIF_SCHED_QUANTUM_MAX_BYTES)
		return AIF_SCHED_ERR_QUANTUM;
	for (unsigned i = 0; i < AIF_SCHED_NQ; i++) {
		switch (p->q[i].mode) {
		case AIF_SCHED_SP:
			n.sp_mask |= (uint8_t)(1u << i);
			break;
		case AIF_SCHED_DWRR:
			if (p->q[i].weight < 1 ||
			    p->q[i].weight > AIF_SCHED_WEIGHT_MAX)
				return AIF_SCHED_ERR_WEIGHT;
			n.dwrr_mask |= (uint8_t)(1u << i);
			n.quantum_bytes[i] = p->q[i].weight * base;
			break;
		default:
			return AIF_SCHED_ERR_MODE;
		}
	}
	if (p->rate_bps > AIF_SCHED_RATE_MAX_BPS)
		return AIF_SCHED_ERR_RATE;
	n.rate_bps = p->rate_bps;
	n.burst_bytes = p->burst_bytes ? p->burst_bytes
				       : n.mtu_bytes + AIF_SCHED_WIRE_OVERHEAD_BYTES;
	if (n.burst_bytes > AIF_SCHED_BURST_MAX_BYTES)
		return AIF_SCHED_ERR_BURST;
	n.depth_nbit = (uint64_t)n.burst_bytes * 8 * NBIT_PER_BIT;
	if (p->node_off % _Alignof(struct aif_sched_node) != 0)
		return AIF_SCHED_ERR_NODE;
	n.node_off = p->node_off;
	*c = n;
	return AIF_SCHED_ERR_OK;
}

int
aif_sched_init(struct aif_sched *s, const struct aif_sched_config *c,
	       aif_time_ns now_ns)
{
	memset(s, 0, sizeof(*s));
	if (c->node_off % _Alignof(struct aif_sched_node) != 0)
		return AIF_SCHED_ERR_NODE;
	s->cfg = *c;
	s->dwrr.cur = 0;
	s->tokens_nbit = (int64_t)c->depth_nbit;
	s->last_ns = now_ns;
	return AIF_SCHED_ERR_OK;
}

void
aif_sched_free(struct aif_sched *s)
{
	for (unsigned i = 0; i < AIF_SCHED_NQ; i++) {
		s->q[i].head = s->q[i].tail = NULL;
		s->q[i].qlen_pkts = 0;
		s->q[i].qlen_bytes = 0;
	}
	s->nonempty_mask = 0;
}

/* Tokens at now_ns under cfg (not stored). */
static int64_t
tokens_at(const struct aif_sched *s, aif_time_ns now_ns)
{
	int64_t depth = (int64_t)s->cfg.depth_nbit;
	uint64_t rate = s->cfg.rate_bps;
	uint64_t room, dt, fill_ns;

	if (s->tokens_nbit >= depth)
		return depth;
	if (now_ns <= s->last_ns || rate == 0)
		return s->tokens_nbit;
	room = (uint64_t)(depth - s->tokens_nbit);
	dt = now_ns - s->last_ns;
	fill_ns = (room + rate - 1) / rate;
	if (dt >= fill_ns)
		return depth;
	/* dt < room / rate + 1, so dt * rate < room + rate: no overflow */
	return s->tokens_nbit + (int64_t)(dt * rate);
}

static void
refill(struct aif_sched *s, aif_time_ns now_ns)
{
	if (now_ns <= s->last_ns)
		return;
	s->tokens_nbit = tokens_at(s, now_ns);
	s->last_ns = now_ns;
}

/* Tokens the packet needs: min(cost, depth), nanobits. */
static int64_t
need_nbit(const struct aif_sched *s, uint32_t bytes)
{
	uint64_t cost = ((uint64_t)bytes + AIF_SCHED_WIRE_OVERHEAD_BYTES) * 8 *
			NBIT_PER_BIT;

	return (int64_t)(cost < s->cfg.depth_nbit ? cost : s->cfg.depth_nbit);
}

/* The node of element pkt. */
static inline struct aif_sched_node *
node_of(const struct aif_sched *s, void *pkt)
{
	return (struct aif_sched_node *)((char *)pkt + s->cfg.node_off);
}

static inline uint32_t
head_bytes(const struct aif_sched *s, unsigned q)
{
	return s->q[q].head_bytes;
}

/* Next set bit of mask after q, wrapping (mask != 0). */
static inline unsigned
next_q(uint8_t mask, unsigned q)
{
	unsigned rot = (q + 1) & (AIF_SCHED_NQ - 1);
	unsigned m = ((unsigned)mask >> rot) | ((unsigned)mask << (AIF_SCHED_NQ - rot));

	m &= (1u << AIF_SCHED_NQ) - 1;
	return (rot + (unsigned)__builtin_ctz(m)) & (AIF_SCHED_NQ - 1);
}

/*
 * The queue whose head goes next, or -1.  Updates d (DWRR turn and
 * deficits) the way serving would; a queue is only picked when its head fits
 * its deficit, so picking again without serving returns the same queue.
 */
static int
pick(const struct aif_sched *s, struct aif_sched_dwrr *d, uint8_t paused_mask)
{
	uint8_t eligible = s->nonempty_mask & (uint8_t)~paused_mask;
	uint8_t sp = eligible & s->cfg.sp_mask;
	uint8_t dw = eligible & s->cfg.dwrr_mask;
	unsigned q;

	if (sp)
		return 31 - __builtin_clz(sp);
	if (!dw)
		return -1;
	q = d->cur;
	for (;;) {
		if (!(dw & (1u << q))) {
			q = next_q(dw, q);
			d->cur = (uint8_t)q;
			d->started = 0;
			continue;
		}
		if (!d->started) {
			d->deficit_bytes[q] += s->cfg.quantum_bytes[q];
			d->started = 1;
		}
		if (head_bytes(s, q) <= d->deficit_bytes[q])
			return (int)q;
		q = next_q(dw, q);
		d->cur = (uint8_t)q;
		d->started = 0;
	}
}

/*
 * Take queue q's head (the queue holds packets).  Its node says the next
 * one's bytes, so the new head is not read now (it has waited in the queue:
 * that read missed the cache at nearly every dequeue, a quarter of the
 * egress service's samples on the hosts run); it is fetched ahead of the
 * next dequeue instead, a frame's time away at least on a paced port.
 */
static inline void
pop(struct aif_sched *s, unsigned q, void **pkt, uint32_t *bytes)
{
	struct aif_sched_queue *r = &s->q[q];
	const struct aif_sched_node *n = node_of(s, r->head);

	*pkt = r->head;
	*bytes = r->head_bytes;
	r->head = n->next;
	r->qlen_bytes -= r->head_bytes;
	if (--r->qlen_pkts == 0) {
		s->nonempty_mask &= (uint8_t)~(1u << q);
	} else {
		r->head_bytes = n->next_bytes;
		__builtin_prefetch(r->head); /* (an mbuf: its first line) */
		__builtin_prefetch(node_of(s, r->head));
	}
}

int
aif_sched_enqueue(struct aif_sched *s, uint8_t q, void *pkt, uint32_t bytes)
{
	struct aif_sched_queue *r;
	struct aif_sched_node *n;

	if (q >= AIF_SCHED_NQ || bytes > AIF_SCHED_PKT_MAX_BYTES)
		return AIF_SCHED_ENQ_INVALID;
	r = &s->q[q];
	n = node_of(s, pkt);
	n->next = NULL;
	if (r->qlen_pkts++ == 0) {
		r->head = pkt;
		r->head_bytes = bytes;
	} else {
		struct aif_sched_node *t = node_of(s, r->tail);
		t->next = pkt;
		t->next_bytes = bytes;
	}
	r->tail = pkt;
	r->qlen_bytes += bytes;
	s->nonempty_mask |= (uint8_t)(1u << q);
	s->qctr[q].enq_packets++;
	s->qctr[q].enq_bytes += bytes;
	return AIF_SCHED_ENQ_OK;
}

unsigned
aif_sched_dequeue_qid(struct aif_sched *s, aif_time_ns now_ns,
		      uint8_t paused_mask, void **pkts, uint32_t *lens,
		      uint8_t *qids, unsigned max)
{
	bool shaped = s->cfg.rate_bps != 0;
	unsigned n = 0;

	s->paused_mask = paused_mask;
	if (shaped)
		refill(s, now_ns);
	while (n < max) {
		int q = pick(s, &s->dwrr, paused_mask);
		uint32_t bytes;

		if (q < 0)
			break;
		bytes = head_bytes(s, (unsigned)q);
		if (shaped) {
			if (s->tokens_nbit < need_nbit(s, bytes)) {
				s->pctr.shaper_holds++;
				break;
			}
			s->tokens_nbit -= (int64_t)(((uint64_t)bytes +
						     AIF_SCHED_WIRE_OVERHEAD_BYTES) *
						    8 * NBIT_PER_BIT);
		}
		pop(s, (unsigned)q, &pkts[n], &bytes);
		if (lens != NULL)
			lens[n] = bytes;
		if (qids != NULL)
			qids[n] = (uint8_t)q;
		s->qctr[q].deq_packets++;
		s->qctr[q].deq_bytes += bytes;
		if (s->cfg.dwrr_mask & (1u << q)) {
			s->dwrr.deficit_bytes[q] -= bytes;
			if (!(s->nonempty_mask & (1u << q))) {
				/* emptied: its turn ends, its deficit goes */
				s->dwrr.deficit_bytes[q] = 0;
				s->dwrr.started = 0;
				s->dwrr.cur = (uint8_t)next_q(
					(uint8_t)(s->cfg.dwrr_mask), (unsigned)q);
			}
		}
		n++;
	}
	return n;
}

int
aif_sched_pass(struct aif_sched *s, uint8_t q, void *pkt, uint32_t bytes,
	       uint8_t paused_mask)
{
	struct aif_sched_queue *r;

	if (q >= AIF_SCHED_NQ || bytes > AIF_SCHED_PKT_MAX_BYTES)
		return AIF_SCHED_ENQ_INVALID;
	r = &s->q[q];
	r->head = NULL; /* (its node's next) */
	r->tail = pkt;
	r->head_bytes = bytes;
	s->qctr[q].enq_packets++;
	s->qctr[q].enq_bytes += bytes;
	s->qctr[q].deq_packets++;
	s->qctr[q].deq_bytes += bytes;
	s->paused_mask = paused_mask;
	/* pick() finds q alone: a DWRR queue's turn comes, and ends emptied */
	if (s->cfg.dwrr_mask & (1u << q)) {
		s->dwrr.deficit_bytes[q] = 0;
		s->dwrr.started = 0;
		s->dwrr.cur = (uint8_t)next_q((uint8_t)(s->cfg.dwrr_mask), q);
	}
	return AIF_SCHED_ENQ_OK;
}

aif_time_ns
aif_sched_next_event_mask_ns(const struct aif_sched *s, aif_time_ns now_ns,
			     uint8_t paused_mask)
{
	/* unshaped: a packet can go now if any queue not paused holds one
	 * (what pick() would find, without running DWRR's rounds) */
	if (s->cfg.rate_bps == 0)
		return (s->nonempty_mask & (uint8_t)~paused_mask &
			(s->cfg.sp_mask | s->cfg.dwrr_mask)) ? now_ns : AIF_SCHED_NEVER_NS;

	struct aif_sched_dwrr d = s->dwrr;
	int q = pick(s, &d, paused_mask);
	int64_t need, have;
	aif_time_ns t = now_ns > s->last_ns ? now_ns : s->last_ns;

	if (q < 0)
		return AIF_SCHED_NEVER_NS;
	if (s->cfg.rate_bps == 0)
		return now_ns;
	need = need_nbit(s, head_bytes(s, (unsigned)q));
	have = tokens_at(s, t);
	if (have >= need)
		return now_ns;
	return t + ((uint64_t)(need - have) + s->cfg.rate_bps - 1) /
			   s->cfg.rate_bps;
}

aif_time_ns
aif_sched_next_event_ns(const struct aif_sched *s, aif_time_ns now_ns)
{
	return aif_sched_next_event_mask_ns(s, now_ns, s->paused_mask);
}

unsigned
aif_sched_drain(struct aif_sched *s, uint8_t q, void **pkts, uint32_t *lens,
		unsigned max)
{
	unsigned n = 0;
	uint32_t bytes;

	if (q >= AIF_SCHED_NQ)
		return 0;
	while (n < max && (s->nonempty_mask & (1u << q))) {
		pop(s, q, &pkts[n], &bytes);
		if (lens != NULL)
			lens[n] = bytes;
		s->qctr[q].drain_packets++;
		s->qctr[q].drain_bytes += bytes;
		n++;
	}
	if (!(s->nonempty_mask & (1u << q)) && (s->cfg.dwrr_mask & (1u << q))) {
		s->dwrr.deficit_bytes[q] = 0;
		if (s->dwrr.cur == q)
			s->dwrr.started = 0;
	}
	return n;
}

int
aif_sched_set_config(struct aif_sched *s, const struct aif_sched_config *c,
		     aif_time_ns now_ns)
{
	if (c->node_off != s->cfg.node_off)
		return AIF_SCHED_ERR_NODE;
	if (s->cfg.rate_bps != 0)
		refill(s, now_ns);
	else
		s->tokens_nbit = (int64_t)c->depth_nbit; /* was unshaped: full */
	s->last_ns = now_ns > s->last_ns ? now_ns : s->last_ns;
	s->cfg = *c;
	if (s->tokens_nbit > (int64_t)c->depth_nbit)
		s->tokens_nbit = (int64_t)c->depth_nbit;
	for (unsigned i = 0; i < AIF_SCHED_NQ; i++)
		if (!(c->dwrr_mask & (1u << i)))
			s->dwrr.deficit_bytes[i] = 0;
	return AIF_SCHED_ERR_OK;
}
