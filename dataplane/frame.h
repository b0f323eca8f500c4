/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Light frames: a RoCEv2 data frame whose payload no mbuf holds.  A
 * primitive.
 *
 * Nothing in the switch reads a RoCE payload, and the virtual hosts' is
 * zeros (rhost.h).  A host sends a data frame as its headers and its last
 * 4 bytes, the ICRC it computed over the whole frame (roce.h
 * aif_roce_icrc_zeros); the mbuf's pkt_len is the whole frame's length:
 *
 *	the mbuf's data:  [ head: Ethernet .. BTH, RETH | tail: ICRC (4) ]
 *	the frame:        [ head | pkt_len - data_len zero bytes | tail ]
 *
 * so a WRITE MIDDLE of 1,000 payload bytes, a 1,058-byte frame, takes 58
 * bytes in flight, one cache line (a WRITE FIRST, with its RETH, 74: two).
 * Every stage that reads headers reads the head as it reads a whole frame
 * (it holds every header the parser reads: Ethernet, a tag, IPv4 or IPv6,
 * UDP, BTH); every length (MMU charges, serialization, counters, MTU, the
 * ns-3 wire model) is pkt_len, the whole frame's; the stages that change
 * headers (TTL and IPv4 checksum, ECN, DSCP, MACs, a tag pushed or popped
 * at the front) change the head, and what they change the ICRC masks or
 * does not cover.  Where the bytes are observed they are made whole,
 * the same bytes the host's whole frame would have had: aif_frame_read
 * (a pcap file, a capture's file, a host reading a frame, the ns-3 wire
 * model), aif_frame_copy (a capture's copy), aif_frame_materialise (a DPDK
 * port's transmit, a link corrupting a payload bit, a packet trimmed).
 *
 * A light frame is one segment, marked by a dynamic mbuf flag registered
 * by aif_frame_light_enable (before it, aif_frame_light_mask is 0 and no
 * frame is light).  A frame from a driver or a pcap file never carries it
 * (a fresh mbuf's ol_flags are cleared).
 *
 * Its ICRC too may wait until the bytes are observed (a second flag,
 * aif_frame_icrc_defer): the tail is then computed where it is read, from
 * the head as it is by then.  The ICRC masks every field a stage changes
 * in the IP, UDP and BTH headers (TOS, TTL, the checksums) and does not
 * cover the Ethernet header or a tag, so it is the value the host would
 * have put there at the start; a stage that changes anything else makes
 * the frame whole first (aif_frame_materialise), the ICRC computed before
 * the change.  A virtual host receiving such a frame need not check it:
 * the check would compute the same value from the same bytes.
 *
 *	if (aif_frame_light_enable() == 0)
 *		m = aif_frame_light_from_bytes(pool, hdrs_then_icrc, head_len, zeros);
 *	aif_parse(rte_pktmbuf_mtod(m, uint8_t *), aif_frame_parse_len(m), &meta);
 *	const uint8_t *b = aif_frame_read(m, 0, rte_pktmbuf_pkt_len(m), buf);
 */
#ifndef AIF_FRAME_H
#define AIF_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#define AIF_FRAME_LIGHT_TAIL 4 /* the ICRC: the frame's last bytes, in the mbuf */

/* The light frame's flag in ol_flags; 0: none registered, nothing light.
 * The deferred-ICRC flag's, with it. */
extern uint64_t aif_frame_light_mask;
extern uint64_t aif_frame_icrc_deferred_mask;

/* Register the flags (once; again: nothing).  0, or -1 if DPDK has no room
 * for them (then frames stay whole). */
int aif_frame_light_enable(void);

static inline bool
aif_frame_is_light(const struct rte_mbuf *m)
{
	return (m->ol_flags & aif_frame_light_mask) != 0;
}

/* Light frame m, a RoCEv2 one: its tail is its ICRC, computed when the
 * bytes are observed (above).  Its tail's bytes until then are anything. */
static inline void
aif_frame_icrc_defer(struct rte_mbuf *m)
{
	m->ol_flags |= aif_frame_icrc_deferred_mask;
}

/* Is m a light frame whose ICRC waits? */
static inline bool
aif_frame_icrc_deferred(const struct rte_mbuf *m)
{
	return (m->ol_flags & aif_frame_icrc_deferred_mask) != 0;
}

/* Put the ICRC of a light frame that waits for it in its tail, now (a
 * frame's bytes about to leave the process as they are); others: nothing. */
void aif_frame_icrc_fill(struct rte_mbuf *m);

/* Bytes of the frame from its start that are in the mbuf's first segment,
 * in order: the head of a light frame, else data_len. */
static inline uint32_t
aif_frame_head_len(const struct rte_mbuf *m)
{
	return aif_frame_is_light(m) ? (uint32_t)m->data_len - AIF_FRAME_LIGHT_TAIL
				     : m->data_len;
}

/* The length to give a parser of the first segment's bytes: a light
 * frame's whole length (its head holds every header a parser reads, and
 * the IP length is checked against the frame's), else data_len. */
static inline uint32_t
aif_frame_parse_len(const struct rte_mbuf *m)
{
	return aif_frame_is_light(m) ? m->pkt_len : m->data_len;
}

/* A light frame from pool: head_len bytes of headers then the 4 of the
 * tail from data, zeros zero bytes between them in the frame.  NULL if
 * the pool is empty or the flag is not registered. */
struct rte_mbuf *aif_frame_light_from_bytes(struct rte_mempool *pool, const uint8_t *data,
					    uint32_t head_len, uint32_t zeros);

/* len bytes of the frame from off, as rte_pktmbuf_read: a pointer into
 * the mbuf where they are there in a row, else copied (a light frame's
 * made whole) into buf; NULL if off + len is past the frame. */
const void *aif_frame_read(const struct rte_mbuf *m, uint32_t off, uint32_t len, void *buf);

/* Make a light frame whole in place: in its segment if it has the room,
 * else in segments chained from its pool.  0 (a frame that is not light:
 * nothing to do), or -1 with m unchanged when the pool is empty. */
int aif_frame_materialise(struct rte_mbuf *m);

/* The frame (*pm) in one segment, as a parser reads it: gathered into its
 * first segment (rte_pktmbuf_linearize), or, where that has not the room
 * (a small frame's mbuf made whole: mbuf.h), copied whole into one mbuf of
 * the large pool, headers and dynamic fields too, *pm then the copy and the
 * old one freed.  0, or -1 with *pm unchanged (no room, no mbuf). */
int aif_frame_gather(struct rte_mbuf **pm);

/* A copy of the frame's first len bytes (all: UINT32_MAX) from pool, as
 * rte_pktmbuf_copy: a light frame copied whole stays light, one cut short
 * is made whole up to len.  NULL if the pool is empty. */
struct rte_mbuf *aif_frame_copy(const struct rte_mbuf *m, struct rte_mempool *pool,
				uint32_t len);

#endif /* AIF_FRAME_H */
