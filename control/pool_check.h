/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Did every mbuf go back to the pool?  The check the daemon makes at exit,
 * after the workers stopped, the egress queues were emptied and every port
 * was stopped and closed.
 *
 * A driver takes mbufs from the pool when its RX queues are set up (the
 * ring it receives into) and most give them all back when the port closes,
 * with the frames still in their TX rings.  Some do not: DPDK 22.11's
 * net_af_xdp hands its fill ring's mbufs to the kernel (the UMEM is the
 * pool's memory) and forgets them at close, and with them the frames it
 * sent whose completions it had not yet taken back (it takes them back only
 * once its completion ring is half full), so the pool never sees them again
 * however cleanly the switch stopped.  Such a driver is known by what its
 * port's stop and close gave back: less than its set-up took.  It may then
 * keep what its set-up took, less what it gave back, plus up to tx_desc
 * sent frames; anything held beyond what the drivers may keep is the
 * switch's own, and a leak.  A leak smaller than the TX allowance of such a
 * driver goes unseen; one that grows with traffic does not.
 *
 *	struct aif_pool_port pp[2] = {
 *		{ "p0", "net_af_xdp", .took = 2048, .returned = 0, .tx_desc = 2048 },
 *		{ "p1", "net_af_xdp", .took = 2048, .returned = 0, .tx_desc = 2048 },
 *	};
 *	unsigned leaked = aif_pool_check(4098, 55424, pp, 2, msg, sizeof(msg));
 *	// 0; msg: "mbufs: 4098 of 55424 still held, all by drivers that keep
 *	//   them after their ports close (p0 net_af_xdp: 2048 of its RX ring and
 *	//   up to 2048 sent; p1 ...); none by the switch"
 */
#ifndef AIF_POOL_CHECK_H
#define AIF_POOL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "../dataplane/types.h"

/* One port's dealings with the pool. */
struct aif_pool_port {
	char name[2 * AIF_NAME_MAX + 2]; /* port, or switch:port in a fabric */
	char driver[64];
	uint32_t took;        /* in use after its set-up and start, less before */
	int64_t returned;     /* in use before its stop and close, less after */
	uint32_t tx_desc;     /* sent frames such a driver may still hold */
};

/* RX mbufs a port's driver kept after its port closed (took, less what it
 * gave back). */
static inline uint32_t
aif_pool_port_kept(const struct aif_pool_port *p)
{
	uint64_t back = p->returned > 0 ? (uint64_t)p->returned : 0;

	return back < p->took ? (uint32_t)(p->took - back) : 0;
}

/* All a port's driver may hold after its port closed: nothing for a driver
 * that gave back all it took, else what it kept and its TX allowance. */
static inline uint64_t
aif_pool_port_may_keep(const struct aif_pool_port *p)
{
	uint32_t k = aif_pool_port_kept(p);

	return k ? (uint64_t)k + p->tx_desc : 0;
}

/*
 * With in_use mbufs of a pool of size still held, say in msg (a line, no
 * newline) who holds them, and return how many are unaccounted for (the
 * switch's: a leak), 0 when every one is back or kept by a driver.
 */
unsigned aif_pool_check(unsigned in_use, unsigned size, const struct aif_pool_port *ports,
			unsigned n_ports, char *msg, size_t msg_len);

#endif /* AIF_POOL_CHECK_H */
