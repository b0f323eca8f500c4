/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's DPDK side: EAL started (and its runtime directory removed at
 * exit), switch ports set up on their DPDK devices (RX queues with RSS, TX
 * queues, MTU, MAC, hardware PFC where asked, started), their links
 * polled, and every port EAL made closed before the mbuf pool is freed.
 */
#ifndef AIF_EAL_PORTS_H
#define AIF_EAL_PORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "../dataplane/types.h"
#include "config.h"

struct aif_ctl;
struct aif_pool_port;
struct aif_port_info;
struct aif_switch;
struct rte_mempool;

#define AIF_EAL_RX_DESC 1024
#define AIF_EAL_TX_DESC 1024
#define AIF_EAL_LINK_POLL_NS (10 * AIF_NS_PER_MS)

/*
 * EAL with argv; in virtual time with no EAL arguments given, the defaults
 * of a run with no devices (*eal_argv: what was made of them, the
 * caller's to free), lcore the main one, on 2 MiB hugepages where enough
 * are free for need_mb MiB of DPDK memory for each of the sharers
 * processes starting alike on this machine (MPI ranks), and 1 GiB at
 * least, else on 4 KiB pages (aif_eal_no_huge_mb(need_mb)), which it says.
 * The runtime directory is removed at exit when empty.  0, or -1 with a
 * message.
 */
int aif_eal_start(int argc, char **argv, bool vtime, unsigned lcore, unsigned need_mb,
		  unsigned sharers, char ***eal_argv);

/* MiB of free 2 MiB hugepages (0: none, or hugetlbfs not mounted). */
long aif_eal_free_hugepages_mb(void);

/* EAL's -m on 4 KiB pages for need_mb MiB of DPDK memory: half again as
 * much, in GiB, 4 GiB at least (it costs only what is touched). */
unsigned aif_eal_no_huge_mb(unsigned need_mb);

/* How many cores the process was given (its affinity before EAL pinned the
 * main thread to one lcore; in virtual time every thread runs on them
 * again after aif_eal_start).  At least 1. */
unsigned aif_eal_cores_given(void);

/* Port p of switch swi on its DPDK device, with n_queues RX (RSS) and TX
 * queues; what the report says of it goes to pinfo[p].  0, or -1 with a
 * message naming the config's path. */
int aif_eal_port_init(struct aif_switch *sw, unsigned swi, struct aif_port_info *pinfo,
		      uint16_t p, const struct aif_port_params *pp, struct rte_mempool *pool,
		      uint16_t n_queues, uint8_t pfc_enable);

/* Every DPDK port's link read; on a change, counted and the tables rebuilt
 * so group members follow their links. */
void aif_eal_links_poll(struct aif_ctl *c);

/* Stop the DPDK ports that started and close every port EAL made; what each
 * driver gave back goes to pp[*n_pp]. */
void aif_eal_ports_close(const struct aif_ctl *ctl, const struct rte_mempool *pool,
			 struct aif_pool_port *pp, unsigned *n_pp);

#endif /* AIF_EAL_PORTS_H */
