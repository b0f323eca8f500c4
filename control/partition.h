/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fabric split over runners for virtual time on several cores
 * (dataplane/windows.h): which runner drives which switch, and the
 * lookahead, the smallest delay of a link between two runners.
 *
 * The cut is on links.  Switches with edge ports (hosts, pcap or device
 * ports: leaves, ToRs) are tier 0, and each other switch's tier is its
 * distance in links from them; the top tier (spines of a leaf-spine, cores
 * of a fat-tree) is spread alone, the rest kept in groups: the switches
 * below the top joined by links (a fat-tree's pod; a leaf-spine's leaf),
 * joined again where virtual hosts hand each other work without a packet
 * (ties: a multi-plane host's ports on every plane's leaf).  A group that
 * would weigh more than twice a runner's even share (a pod of a k=16
 * fat-tree on 64 runners) leaves each switch alone instead (ties still
 * kept: by switch).  Groups go to
 * runners heaviest first (its switches' ports), each to the least loaded
 * runner; then the top switches in order, each to the least loaded (a
 * leaf-spine on two runners: leaves 0, 2, ... and spines 0, 2, ... on the
 * first).  Runners that get nothing are not used: at most groups + top
 * switches run.  Within a runner, switches keep the fabric's order.
 *
 * A cut link with no delay leaves no lookahead: then one runner.
 *
 *	struct aif_partition pt;
 *	aif_partition_make(&pt, cfg, 4, ties, n_ties);
 *	aif_partition_print(&pt, cfg, stdout);
 */
#ifndef AIF_PARTITION_H
#define AIF_PARTITION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../dataplane/capacity.h"
#include "../dataplane/types.h"
#include "config.h"

/* Switches a and b run on one runner. */
struct aif_partition_tie {
	uint16_t a, b;
};

struct aif_partition {
	unsigned n_run;                         /* runners used (1 .. asked for) */
	uint16_t runner_of[AIF_MAX_SWITCHES];
	aif_time_ns lookahead_ns;               /* AIF_TIME_NS_NEVER: nothing cut */
	uint32_t n_cut;                         /* links between runners */
	uint16_t n_groups, n_top;               /* what there was to spread */
	bool by_switch;                         /* groups too heavy: each switch alone */
	const char *why_one;                    /* asked for more, got one: why */
};

/* Split cfg's switches over at most want runners (1 .. AIF_MAX_RUNNERS).
 * 0, or -1 (out of memory). */
int aif_partition_make(struct aif_partition *pt, const struct aif_config *cfg, unsigned want,
		       const struct aif_partition_tie *ties, unsigned n_ties);
/* The runners the fabric can use: groups + top switches (1 when nothing
 * can be cut). */
unsigned aif_partition_max(const struct aif_partition *pt);
/* The links between two runners (runner_of: each switch's) and the
 * shortest delay of one, the lookahead (AIF_TIME_NS_NEVER: none);
 * *n_cut how many, if n_cut is not NULL. */
aif_time_ns aif_partition_lookahead(const struct aif_config *cfg, const uint16_t *runner_of,
				    uint32_t *n_cut);
/* What each runner drives (switches, hosts, ports) and the lookahead. */
void aif_partition_print(const struct aif_partition *pt, const struct aif_config *cfg,
			 FILE *f);

#endif /* AIF_PARTITION_H */
