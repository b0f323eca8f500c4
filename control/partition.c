/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fabric split over runners (partition.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/groups.h"
#include "partition.h"

aif_time_ns
aif_partition_lookahead(const struct aif_config *cfg, const uint16_t *runner_of,
			uint32_t *n_cut)
{
	aif_time_ns la = AIF_TIME_NS_NEVER;
	uint32_t cut = 0;

	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *l = &cfg->links[k];
		if (runner_of[l->a_switch] == runner_of[l->b_switch])
			continue;
		cut++;
		if (l->delay_ns < la)
			la = l->delay_ns;
	}
	if (n_cut != NULL)
		*n_cut = cut;
	return la;
}

/* Tiers: 0 for switches with a port that is no link's end, else the
 * distance in links from one (UINT16_MAX: not reached); the top tier. */
static uint16_t
tiers(const struct aif_config *cfg, uint16_t *tier, uint16_t *queue)
{
	uint16_t n = cfg->n_switches, head = 0, tail = 0, top = 0;
	uint32_t *ends = calloc(n, sizeof(*ends));

	for (uint16_t s = 0; s < n; s++)
		tier[s] = UINT16_MAX;
	for (uint32_t k = 0; ends != NULL && k < cfg->n_links; k++) {
		ends[cfg->links[k].a_switch]++;
		ends[cfg->links[k].b_switch]++;
	}
	for (uint16_t s = 0; s < n; s++)
		if (ends == NULL || ends[s] < cfg->switches[s].n_ports) {
			tier[s] = 0;
			queue[tail++] = s;
		}
	free(ends);
	while (head < tail) {
		uint16_t s = queue[head++];
		for (uint32_t k = 0; k < cfg->n_links; k++) {
			const struct aif_topo_link *l = &cfg->links[k];
			uint16_t o = l->a_switch == s ? l->b_switch : l->b_switch == s ? l->a_switch
											 : UINT16_MAX;
			if (o != UINT16_MAX && tier[o] == UINT16_MAX) {
				tier[o] = (uint16_t)(tier[s] + 1);
				top = tier[o] > top ? tier[o] : top;
				queue[tail++] = o;
			}
		}
	}
	return top;
}

/* The least loaded runner (the first on a tie). */
static unsigned
least(const uint64_t *load, unsigned n)
{
	unsigned best = 0;

	for (unsigned i = 1; i < n; i++)
		if (load[i] < load[best])
			best = i;
	return best;
}

int
aif_partition_make(struct aif_partition *pt, const struct aif_config *cfg, unsigned want,
		   const struct aif_partition_tie *ties, unsigned n_ties)
{
	uint16_t n = cfg->n_switches;
	uint16_t *tier = calloc(n ? n : 1, sizeof(*tier));
	uint16_t *queue = calloc(n ? n : 1, sizeof(*queue));
	uint16_t *up = calloc(n ? n : 1, sizeof(*up));
	uint16_t *order = calloc(n ? n : 1, sizeof(*order));
	uint64_t *weight = calloc(n ? n : 1, sizeof(*weight));
	uint64_t load[AIF_MAX_RUNNERS] = { 0 };
	int rc = -1;

	memset(pt, 0, sizeof(*pt));
	pt->n_run = 1;
	pt->lookahead_ns = AIF_TIME_NS_NEVER;
	if (tier == NULL || queue == NULL || up == NULL || order == NULL || weight == NULL)
		goto out;
	rc = 0;
	want = want < 1 ? 1 : want > AIF_MAX_RUNNERS ? AIF_MAX_RUNNERS : want;
	uint16_t top = tiers(cfg, tier, queue);
	uint16_t *size = queue; /* (the tiers' queue, done with) */
	/* groups: the switches below the top joined by links, and the ties;
	 * when a group would weigh more than twice a runner's even share,
	 * every switch alone (ties kept): a k=16 fat-tree's pods on 16
	 * runners, its 320 switches on 64 */
	for (int by_switch = 0; by_switch < 2; by_switch++) {
		uint64_t total = 0, heaviest = 0;
		bool joined = false; /* links made groups (a leaf-spine's leaves stay alone) */
		for (uint16_t s = 0; s < n; s++)
			up[s] = s;
		for (uint32_t k = 0; k < cfg->n_links && !by_switch; k++) {
			const struct aif_topo_link *l = &cfg->links[k];
			if (top != 0 && tier[l->a_switch] < top && tier[l->b_switch] < top) {
				aif_groups_join(up, l->a_switch, l->b_switch);
				joined = true;
			}
		}
		for (unsigned i = 0; i < n_ties; i++)
			if (ties[i].a < n && ties[i].b < n)
				aif_groups_join(up, ties[i].a, ties[i].b);
		/* a group's weight: its switches' ports; a top switch alone is
		 * spread after the groups (tied to a group, it is of the group) */
		memset(size, 0, n * sizeof(*size));
		memset(weight, 0, n * sizeof(*weight));
		for (uint16_t s = 0; s < n; s++) {
			weight[aif_groups_find(up, s)] += cfg->switches[s].n_ports;
			size[aif_groups_find(up, s)]++;
			total += cfg->switches[s].n_ports;
		}
		for (uint16_t s = 0; s < n; s++)
			heaviest = weight[s] > heaviest ? weight[s] : heaviest;
		pt->by_switch = by_switch != 0;
		if (!joined || heaviest * want <= 2 * total)
			break;
	}
#define ALONE_TOP(s) (top != 0 && tier[s] == top && size[s] == 1)
	uint16_t n_order = 0;
	for (uint16_t s = 0; s < n; s++) {
		if (aif_groups_find(up, s) != s)
			continue;
		if (ALONE_TOP(s))
			pt->n_top++;
		else
			order[n_order++] = s;
	}
	pt->n_groups = n_order;
	/* groups heaviest first (the first switch's index on a tie) */
	for (uint16_t i = 1; i < n_order; i++)
		for (uint16_t j = i; j > 0 && weight[order[j]] > weight[order[j - 1]]; j--) {
			uint16_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	unsigned cap = (unsigned)pt->n_groups + pt->n_top;
	unsigned nr = want < cap ? want : cap ? cap : 1;
	uint16_t group_run[AIF_MAX_SWITCHES];
	for (uint16_t i = 0; i < n_order; i++) {
		unsigned r = least(load, nr);
		group_run[order[i]] = (uint16_t)r;
		load[r] += weight[order[i]];
	}
	for (uint16_t s = 0; s < n; s++)
		if (aif_groups_find(up, s) == s && ALONE_TOP(s)) {
			unsigned r = least(load, nr);
			group_run[s] = (uint16_t)r;
			load[r] += weight[s];
		}
#undef ALONE_TOP
	for (uint16_t s = 0; s < n; s++)
		pt->runner_of[s] = group_run[aif_groups_find(up, s)];
	/* runners that got nothing are not used: the others renumbered in order */
	uint16_t renum[AIF_MAX_RUNNERS];
	unsigned used = 0;
	for (unsigned r = 0; r < nr; r++) {
		bool any = false;
		for (uint16_t s = 0; s < n && !any; s++)
			any = pt->runner_of[s] == r;
		renum[r] = (uint16_t)(any ? used++ : 0);
	}
	for (uint16_t s = 0; s < n; s++)
		pt->runner_of[s] = renum[pt->runner_of[s]];
	pt->n_run = used ? used : 1;
	pt->lookahead_ns = aif_partition_lookahead(cfg, pt->runner_of, &pt->n_cut);
	if (pt->n_run > 1 && pt->lookahead_ns == 0) {
		pt->why_one = "a link between runners has no delay: no lookahead";
		memset(pt->runner_of, 0, sizeof(pt->runner_of));
		pt->n_run = 1;
		pt->n_cut = 0;
		pt->lookahead_ns = AIF_TIME_NS_NEVER;
	} else if (want > 1 && pt->n_run == 1) {
		pt->why_one = "nothing to split (one switch, or one group)";
	}
out:
	free(tier);
	free(queue);
	free(up);
	free(order);
	free(weight);
	return rc;
}

unsigned
aif_partition_max(const struct aif_partition *pt)
{
	unsigned m = (unsigned)pt->n_groups + pt->n_top;

	return m ? m : 1;
}

void
aif_partition_print(const struct aif_partition *pt, const struct aif_config *cfg, FILE *f)
{
	if (pt->n_run == 1) {
		fprintf(f, "  one runner%s%s\n", pt->why_one ? ": " : "",
			pt->why_one ? pt->why_one : "");
		return;
	}
	fprintf(f, "  %u runners%s, window by window: lookahead %.3f us (the shortest delay of "
		"the %u links between runners)\n", pt->n_run,
		pt->by_switch ? ", switch by switch" : "", (double)pt->lookahead_ns / 1e3,
		pt->n_cut);
	for (unsigned r = 0; r < pt->n_run; r++) {
		unsigned sw = 0, hosts = 0, ports = 0, shown = 0;
		fprintf(f, "    runner %u:", r);
		for (uint16_t s = 0; s < cfg->n_switches; s++) {
			if (pt->runner_of[s] != r)
				continue;
			sw++;
			ports += cfg->switches[s].n_ports;
			if (shown++ < 8)
				fprintf(f, " %s", cfg->switches[s].name);
		}
		for (uint32_t h = 0; h < cfg->n_hosts; h++)
			hosts += pt->runner_of[cfg->hosts[h].sw] == r;
		fprintf(f, "%s (%u switch%s, %u hosts, %u ports)\n", shown > 8 ? " ..." : "", sw,
			sw == 1 ? "" : "es", hosts, ports);
	}
}
