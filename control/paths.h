/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fewest-delay paths between a fabric's switches, for the virtual hosts'
 * base RTTs and ns-3's ideal FCTs (vhosts.h): for every pair, the one-way
 * time of a full data packet and of an ACK (each link's delay plus the
 * frame's serialization at its rate) along the path of least data time,
 * and along that path its propagation, a payload per link, its slowest
 * link and its links.  Every link counts, up or down.
 *
 * Floyd-Warshall (n^3: 0.9 s for a k=28 fat-tree's 980 switches); when
 * every link is the same (rate, delay, wire model: every generated fabric)
 * all paths of the fewest links are the fewest-delay paths and all carry
 * the same figures, so a breadth-first search from each switch gives the
 * same tables (n x links).  The search keeps only the switches asked for
 * (those with hosts: a k=56 fat-tree's 1,568 edges of 3,920 switches, its
 * tables 6 times smaller), and searches only from them.
 *
 *	struct aif_paths p;
 *	if (aif_paths_build(&p, cfg, data_wire, ack_wire, mtu, false, ends) != 0) ... no memory
 *	uint64_t t = p.data_ps[aif_paths_at(&p, a, b)];
 *	aif_paths_free(&p);
 */
#ifndef AIF_PATHS_H
#define AIF_PATHS_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"

struct aif_paths {
	uint32_t n;               /* rows: every table is [row a * n + row b] */
	uint32_t *row;            /* [switches]: switch s's row (UINT32_MAX: none) */
	uint64_t *data_ps, *ack_ps; /* one way; unreachable: UINT64_MAX / 4 */
	uint64_t *prop_ns, *tx_ns;  /* along it: propagation, a payload per link */
	uint64_t *rate_bps;       /* its slowest link (UINT64_MAX: none) */
	uint32_t *hops;           /* its links */
};

/* The paths of cfg's switches; data_wire[m] and ack_wire[m] the wire bytes
 * of a full data packet and of an ACK under wire model m, mtu the payload
 * a link carries per packet.  floyd: Floyd-Warshall even when every link is
 * the same (what the search must agree with).  ends[s] true for the
 * switches whose paths between them are asked (NULL: every switch; the
 * tables may hold others).  0, or -1 out of memory (p then holds
 * nothing). */
int aif_paths_build(struct aif_paths *p, const struct aif_config *cfg, const uint32_t *data_wire,
		    const uint32_t *ack_wire, uint32_t mtu, bool floyd, const bool *ends);

/* The tables' entry of the path from switch a to switch b (both ends). */
static inline size_t
aif_paths_at(const struct aif_paths *p, uint32_t a, uint32_t b)
{
	return (size_t)p->row[a] * p->n + p->row[b];
}
void aif_paths_free(struct aif_paths *p);

/* Each switch's links, in the links' order: switch s's are the link
 * indices at[first[s]] .. at[first[s + 1] - 1] (a link in both its ends'
 * lists, once in a loop's; an end that is no switch in none).  *first
 * [n_switches + 1] and *at are the caller's (free).  0, or -1 out of
 * memory (both NULL). */
int aif_paths_links_of(const struct aif_config *cfg, uint32_t **first, uint32_t **at);

/* A host as another's RTT to it sees it: its switch, its wire times (a
 * data packet's and an ACK's), its cable; host is the caller's index. */
struct aif_peer_kind {
	uint16_t sw;
	uint64_t wire_ps;
	uint64_t cable_ns;
	uint32_t host;
};

/* far[h] = the largest rtt(h, j, arg) over the other hosts j (0: none),
 * for an rtt that depends on each end only through its kind (sw, wire_ps,
 * cable_ns): each kind asked once by each, by its first host (maybe h
 * itself, when another host is of its kind): kinds x kinds, not hosts x
 * hosts (a k=28 fat-tree's 5,488 hosts: 392 kinds, 30 M RTTs -> 154 k; a
 * k=56 one's 43,904: 1,568 kinds, 2.5 M).  kind[] is sorted in place;
 * kind[i].host in 0..n-1, each once.  0, or -1 out of memory. */
int aif_paths_farthest(struct aif_peer_kind *kind, uint32_t n,
		       aif_time_ns (*rtt)(uint32_t a, uint32_t b, void *arg), void *arg,
		       aif_time_ns *far);

/* A payload of mtu bytes at rate, integer ns (as ns-3 counts a hop). */
uint64_t aif_paths_payload_ns(uint32_t mtu, uint64_t rate_bps);
/* wire bytes at rate_bps under wire model m, ps (0 at rate 0). */
uint64_t aif_paths_ser_ps(uint8_t m, uint32_t wire, uint64_t rate_bps);

#endif /* AIF_PATHS_H */
