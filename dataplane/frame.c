/* SPDX-License-Identifier: BSD-3-Clause */
/* Light frames (frame.h): the flag, and the frame made whole where observed. */
#include <string.h>

#include <rte_mbuf_dyn.h>

#include "frame.h"
#include "mbuf.h"
#include "roce.h"

/* Segments a frame made whole may take: a jumbo frame in 128-byte rooms. */
#define MAX_SEGS 128

uint64_t aif_frame_light_mask;
uint64_t aif_frame_icrc_deferred_mask;

int
aif_frame_light_enable(void)
{
	static const struct rte_mbuf_dynflag desc = { .name = "aif_light_frame" };
	static const struct rte_mbuf_dynflag icrc = { .name = "aif_light_icrc_deferred" };

	if (aif_frame_light_mask != 0)
		return 0;
	int bit = rte_mbuf_dynflag_register(&desc), ibit = rte_mbuf_dynflag_register(&icrc);
	if (bit < 0 || ibit < 0)
		return -1;
	aif_frame_icrc_deferred_mask = 1ull << ibit;
	aif_frame_light_mask = 1ull << bit;
	return 0;
}

/* The 4 bytes of light frame m's tail: as kept, or its ICRC computed from
 * its head as it is now (its IP header after the Ethernet header and a
 * tag, if one was pushed). */
static void
tail_bytes(const struct rte_mbuf *m, uint8_t *t)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t head = aif_frame_head_len(m);

	if (!aif_frame_icrc_deferred(m)) {
		memcpy(t, d + head, AIF_FRAME_LIGHT_TAIL);
		return;
	}
	uint32_t l3 = head >= 14 && d[12] == 0x81 && d[13] == 0x00 ? 18 : 14;
	uint32_t icrc = head > l3 ? aif_roce_icrc_zeros(d + l3, head - l3,
						      m->pkt_len - head - AIF_FRAME_LIGHT_TAIL)
				  : 0;
	t[0] = (uint8_t)icrc, t[1] = (uint8_t)(icrc >> 8);
	t[2] = (uint8_t)(icrc >> 16), t[3] = (uint8_t)(icrc >> 24);
}

void
aif_frame_icrc_fill(struct rte_mbuf *m)
{
	if (!aif_frame_is_light(m) || !aif_frame_icrc_deferred(m))
		return;
	tail_bytes(m, rte_pktmbuf_mtod_offset(m, uint8_t *, aif_frame_head_len(m)));
	m->ol_flags &= ~aif_frame_icrc_deferred_mask;
}

/* Bytes [pos, pos + n) of what follows a light frame's head (zeros up to
 * total - 4 from the frame's start, then the 4 of tail) into o; pos and
 * n count from the frame's start. */
static void
after_head(uint8_t *o, uint32_t pos, uint32_t n, uint32_t total, const uint8_t *tail)
{
	uint32_t tail_at = total - AIF_FRAME_LIGHT_TAIL, end = pos + n;

	if (pos < tail_at) {
		uint32_t z = RTE_MIN(end, tail_at) - pos;
		memset(o, 0, z);
		o += z;
		pos += z;
	}
	if (pos < end)
		memcpy(o, tail + (pos - tail_at), end - pos);
}

/* Bytes [off, off + len) of light frame m, whole, into o. */
static void
whole_bytes(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint8_t *o)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t head = aif_frame_head_len(m);

	if (off < head) {
		uint32_t n = RTE_MIN(off + len, head) - off;
		memcpy(o, d + off, n);
		o += n;
		off += n;
		len -= n;
	}
	if (len != 0) {
		uint8_t t[AIF_FRAME_LIGHT_TAIL];
		tail_bytes(m, t);
		after_head(o, off, len, m->pkt_len, t);
	}
}

struct rte_mbuf *
aif_frame_light_from_bytes(struct rte_mempool *pool, const uint8_t *data, uint32_t head_len,
			   uint32_t zeros)
{
	if (aif_frame_light_mask == 0)
		return NULL;
	uint16_t n = (uint16_t)(head_len + AIF_FRAME_LIGHT_TAIL);
	struct rte_mbuf *m = aif_mbuf_alloc_len(pool, n);
	if (m == NULL)
		return NULL;
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, n);
	if (d == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(d, data, n);
	m->pkt_len += zeros;
	m->ol_flags |= aif_frame_light_mask;
	return m;
}

const void *
aif_frame_read(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *buf)
{
	if (!aif_frame_is_light(m))
		return rte_pktmbuf_read(m, off, len, buf);
	if (off > m->pkt_len || len > m->pkt_len - off)
		return NULL;
	if (off + len <= aif_frame_head_len(m))
		return rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	whole_bytes(m, off, len, buf);
	return buf;
}

int
aif_frame_materialise(struct rte_mbuf *m)
{
	if (!aif_frame_is_light(m))
		return 0;
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *), tail[AIF_FRAME_LIGHT_TAIL];
	uint32_t head = aif_frame_head_len(m), total = m->pkt_len;
	uint32_t room = head + AIF_FRAME_LIGHT_TAIL + rte_pktmbuf_tailroom(m);
	struct rte_mbuf *segs[MAX_SEGS];
	uint16_t n = 0;

	tail_bytes(m, tail);
	/* the segments it needs first, so that an empty pool changes nothing */
	for (uint32_t have = room; have < total; n++) {
		if (n + 1u >= RTE_DIM(segs) ||
		    (segs[n] = aif_mbuf_alloc(aif_mbuf_large(m->pool))) == NULL) {
			rte_pktmbuf_free_bulk(segs, n);
			return -1;
		}
		have += rte_pktmbuf_tailroom(segs[n]);
	}
	uint32_t pos = head, n0 = RTE_MIN(total, room) - head;
	after_head(d + head, pos, n0, total, tail);
	m->data_len = (uint16_t)(head + n0);
	pos += n0;
	struct rte_mbuf *last = m;
	for (uint16_t i = 0; i < n; i++) {
		uint32_t k = RTE_MIN(total - pos, (uint32_t)rte_pktmbuf_tailroom(segs[i]));
		after_head(rte_pktmbuf_mtod(segs[i], uint8_t *), pos, k, total, tail);
		segs[i]->data_len = (uint16_t)k;
		last->next = segs[i];
		last = segs[i];
		pos += k;
	}
	m->nb_segs = (uint16_t)(1 + n);
	m->ol_flags &= ~(aif_frame_light_mask | aif_frame_icrc_deferred_mask);
	return 0;
}

int
aif_frame_gather(struct rte_mbuf **pm)
{
	struct rte_mbuf *m = *pm;

	if (m->nb_segs == 1 || rte_pktmbuf_linearize(m) == 0)
		return 0;
	struct rte_mbuf *c = aif_mbuf_alloc(aif_mbuf_large(m->pool));
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t *d = c != NULL && len <= rte_pktmbuf_tailroom(c)
		     ? (uint8_t *)rte_pktmbuf_append(c, (uint16_t)len) : NULL;
	const void *src = d != NULL ? rte_pktmbuf_read(m, 0, len, d) : NULL;
	if (src == NULL) {
		rte_pktmbuf_free(c);
		return -1;
	}
	if (src != d) /* (in the first segment after all) */
		memcpy(d, src, len);
	__rte_pktmbuf_copy_hdr(c, m);
	c->ol_flags = m->ol_flags & ~(aif_frame_light_mask | aif_frame_icrc_deferred_mask);
	rte_pktmbuf_free(m);
	*pm = c;
	return 0;
}

struct rte_mbuf *
aif_frame_copy(const struct rte_mbuf *m, struct rte_mempool *pool, uint32_t len)
{
	if (!aif_frame_is_light(m))
		return rte_pktmbuf_copy(m, pool, 0, len);
	len = RTE_MIN(len, m->pkt_len);
	struct rte_mbuf *c = rte_pktmbuf_alloc(pool), *last = c;
	if (c == NULL)
		return NULL;
	c->port = m->port;
	c->vlan_tci = m->vlan_tci;
	c->vlan_tci_outer = m->vlan_tci_outer;
	c->tx_offload = m->tx_offload;
	c->hash = m->hash;
	c->packet_type = m->packet_type;
	if (len == m->pkt_len && m->data_len <= rte_pktmbuf_tailroom(c)) {
		/* whole: stays light */
		memcpy(rte_pktmbuf_mtod(c, uint8_t *), rte_pktmbuf_mtod(m, const uint8_t *),
		       m->data_len);
		c->data_len = m->data_len;
		c->pkt_len = m->pkt_len;
		c->ol_flags |= m->ol_flags & (aif_frame_light_mask | aif_frame_icrc_deferred_mask);
		return c;
	}
	/* cut short: the first len bytes, whole */
	for (uint32_t pos = 0; pos < len;) {
		uint32_t k = RTE_MIN(len - pos, (uint32_t)rte_pktmbuf_tailroom(last));
		if (k == 0) {
			struct rte_mbuf *seg = rte_pktmbuf_alloc(pool);
			if (seg == NULL || rte_pktmbuf_chain(c, seg) != 0) {
				rte_pktmbuf_free(seg);
				rte_pktmbuf_free(c);
				return NULL;
			}
			last = seg;
			continue;
		}
		whole_bytes(m, pos, k, rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len));
		last->data_len = (uint16_t)(last->data_len + k);
		c->pkt_len += k;
		pos += k;
	}
	return c;
}
