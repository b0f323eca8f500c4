/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the daemon says of a run (report.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "../dataplane/link.h"
#include "../dataplane/port.h"
#include "../dataplane/qos.h"
#include "../dataplane/runner.h"
#include "../dataplane/switch.h"
#include "commands.h"
#include "config.h"
#include "ranks.h"
#include "report.h"
#include "workload.h"

static bool
is_dpdk(const struct aif_port *p)
{
	return p->base == &aif_port_dpdk_ops;
}

static bool
is_link(const struct aif_port *p)
{
	return p->base == &aif_port_link_ops;
}

void
aif_report_ports(const struct aif_ctl *ctl)
{
	const struct aif_switch *sw = ctl->sw;
	const struct aif_tables *t = sw->tables;
	const struct aif_switch_params *sp = &ctl->cfg->switches[0];
	char mac[32];

	printf("switch %s: %u ports, %u workers\n", sw->name, sw->n_ports, sw->n_shards);
	for (uint16_t p = 0; p < sw->n_ports; p++) {
		const struct aif_port *port = &sw->ports[p];
		const struct aif_port_info *pi = &ctl->pinfo[0][p];
		printf("  %-6s %-14s driver %-12s mac %s speed %u Mb/s mtu %u link %s rxq %u txq %u\n",
		       port->name, sp->ports[p].device, pi->driver,
		       aif_mac_fmt(&t->ports[p].mac, mac, sizeof(mac)), port->speed_mbps,
		       t->ports[p].mtu, port->link_up ? "up" : "down", port->n_rxq,
		       port->n_txq);
		printf("         lossless: software PFC %s; hardware PFC %s; %s\n",
		       pi->software_pfc, pi->hardware_pfc, pi->link_pause);
	}
	/* who owns what: the QoS state is one shard's, plain forwarding spreads */
	unsigned first = rte_get_next_lcore(-1, 1, 0);
	if (t->qos != NULL && t->qos->enable)
		printf("  lossless QoS on: the shared buffer (%" PRIu64 " B) and the %u egress "
		       "queues of each port belong to worker 0 (lcore %u), which receives, "
		       "queues and sends for every port\n",
		       t->qos->mmu.buffer_bytes, AIF_QOS_NQ, first);
	else
		printf("  lossless QoS off: %u worker%s forward%s, each with its own RX and TX "
		       "queue on every port (RSS spreads the flows)\n", sw->n_shards,
		       sw->n_shards == 1 ? "" : "s", sw->n_shards == 1 ? "s" : "");
	fflush(stdout);
}

/*
 * Mean number of switches a packet crosses between two edge switches
 * (those with edge ports), over all ordered pairs, the same switch counted
 * once: breadth first over the config's links.
 */
static double
mean_path_switches(const struct aif_config *cfg, const bool *edge)
{
	uint16_t n = cfg->n_switches, *dist = malloc(n * sizeof(*dist)), *q = malloc(n * sizeof(*q));
	double sum = 0;
	uint64_t pairs = 0;

	for (uint16_t a = 0; dist != NULL && q != NULL && a < n; a++) {
		if (!edge[a])
			continue;
		for (uint16_t i = 0; i < n; i++)
			dist[i] = UINT16_MAX;
		unsigned head = 0, tail = 0;
		dist[a] = 1;
		q[tail++] = a;
		while (head < tail) {
			uint16_t u = q[head++];
			for (uint32_t k = 0; k < cfg->n_links; k++) {
				const struct aif_topo_link *l = &cfg->links[k];
				uint16_t v = l->a_switch == u ? l->b_switch
					   : l->b_switch == u ? l->a_switch : UINT16_MAX;
				if (v != UINT16_MAX && dist[v] == UINT16_MAX) {
					dist[v] = (uint16_t)(dist[u] + 1);
					q[tail++] = v;
				}
			}
		}
		for (uint16_t b = 0; b < n; b++)
			if (edge[b] && dist[b] != UINT16_MAX) {
				sum += dist[b];
				pairs++;
			}
	}
	free(dist);
	free(q);
	return pairs ? sum / (double)pairs : 1.0;
}

/*
 * The start-up report of a fabric: its size, the edge ports and what they
 * are bound to, which runner drives which switches, and whether the
 * fabric fits the cores: the packet rate its edge ports offer at line rate
 * (1500-byte frames) times the mean path, against what one runner carries
 * here (AIF_RUNNER_HOPS_PER_S, measured by scripts/bench).
 */
#define AIF_RUNNER_HOPS_PER_S 8e6 /* scripts/bench, real time: 7.2..9.0 M on this class of machine */
#define REPORT_FRAME_BYTES 1514

void
aif_report_fabric(const struct aif_ctl *ctl, const struct aif_config *cfg,
	     const uint16_t *runner_of, unsigned n_run, bool vtime)
{
	bool *edge = calloc(cfg->n_switches, sizeof(*edge));
	double offered_pps = 0;
	unsigned n_edge = 0, n_dpdk = 0;

	printf("fabric: %u switches, %u links, %u hosts; %s\n", ctl->n_sw, ctl->n_links,
	       cfg->n_hosts, !vtime ? "real time" : n_run > 1 ? "virtual time (deterministic)"
			     : "virtual time (one core, deterministic)");
	for (uint16_t s = 0; s < ctl->n_sw; s++) {
		const struct aif_switch *sw = ctl->sws[s];
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			const struct aif_port *port = &sw->ports[p];
			if (is_link(port))
				continue;
			if (edge != NULL)
				edge[s] = true;
			n_edge++;
			if (is_dpdk(port)) {
				n_dpdk++;
				offered_pps += (double)port->speed_mbps * 1e6 /
					       ((REPORT_FRAME_BYTES + AIF_LINK_WIRE_OVERHEAD_BYTES) * 8.0);
				printf("  edge %s:%s  %s (driver %s, %u Mb/s, link %s)\n", sw->name,
				       port->name, cfg->switches[s].ports[p].device,
				       ctl->pinfo[s] ? ctl->pinfo[s][p].driver : "-", port->speed_mbps,
				       port->link_up ? "up" : "down");
			} else if (port->base != &aif_port_detached_ops) {
				if (port->base == &aif_port_rhost_ops) {
					/* a virtual host: its data and an ACK per packet */
					n_dpdk++;
					offered_pps += 2 * (double)port->speed_mbps * 1e6 /
						       ((REPORT_FRAME_BYTES + AIF_LINK_WIRE_OVERHEAD_BYTES) * 8.0);
				}
				if (n_edge <= 16)
					printf("  edge %s:%s  %s, %u Mb/s\n", sw->name, port->name,
					       port->base->kind, port->speed_mbps);
			}
		}
	}
	if (n_edge > 16 && n_dpdk < n_edge)
		printf("  ... %u edge ports in all\n", n_edge);
	if (!vtime) {
		double hops = mean_path_switches(cfg, edge);
		double need = offered_pps * hops;
		unsigned lcore = rte_get_next_lcore(-1, 1, 0);
		for (unsigned r = 0; r < n_run; r++) {
			unsigned k = 0;
			printf("  runner %u (lcore %u):", r, lcore);
			for (uint16_t s = 0; s < ctl->n_sw; s++)
				if (runner_of[s] == r && k++ < 12)
					printf(" %s", ctl->sws[s]->name);
			printf(k > 12 ? " ... (%u switches)\n" : "\n", k);
			lcore = rte_get_next_lcore(lcore, 1, 0);
		}
		printf("  load: %u edge ports (DPDK, virtual hosts with their ACKs) at line rate with "
		       "%u-byte frames offer %.2f Mpps;"
		       " a packet crosses %.2f switches on average: %.1f M packet-hops/s, against"
		       " about %.0f M per runner here x %u runner%s: %s\n",
		       n_dpdk, REPORT_FRAME_BYTES, offered_pps / 1e6, hops, need / 1e6,
		       AIF_RUNNER_HOPS_PER_S / 1e6, n_run, n_run == 1 ? "" : "s",
		       need <= AIF_RUNNER_HOPS_PER_S * n_run ? "fits"
		       : "does not fit at line rate: fewer or slower edge ports, smaller "
			 "frames' share, or more lcores (EAL -l)");
	}
	free(edge);
	fflush(stdout);
}

/* The runners' pacing over the run: the lag, late steps, the worst. */
static void
pace_sum(struct aif_runner *const *runners, unsigned n_run, uint64_t *steps, uint64_t *late,
	 aif_time_ns *late_max, uint64_t *held)
{
	*steps = *late = *held = 0;
	*late_max = 0;
	for (unsigned r = 0; r < n_run; r++) {
		*steps += runners[r]->steps;
		*late += runners[r]->pace.late_steps;
		*held += runners[r]->pace.held_steps;
		*late_max = RTE_MAX(*late_max, runners[r]->pace.late_max_ns);
	}
}

json_t *
aif_report_pace_json(struct aif_runner *const *runners, unsigned n_run,
		     aif_time_ns quantum, aif_time_ns behind_ns)
{
	uint64_t steps, late, held;
	aif_time_ns late_max;

	pace_sum(runners, n_run, &steps, &late, &late_max, &held);
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "quantum_ns", (json_int_t)quantum,
			 "behind_ns", (json_int_t)behind_ns,
			 "steps", (json_int_t)steps, "late_steps", (json_int_t)late,
			 "late_max_ns", (json_int_t)late_max, "held_steps", (json_int_t)held);
}

/* "fell behind real time by X ms (Y% of the run)", and why. */
void
aif_report_pace(struct aif_runner *const *runners, unsigned n_run, aif_time_ns quantum,
		aif_time_ns behind_ns, double elapsed_s)
{
	uint64_t steps, late, held;
	aif_time_ns late_max;
	double behind_ms = (double)behind_ns / 1e6;

	pace_sum(runners, n_run, &steps, &late, &late_max, &held);
	printf("  real time: the emulation fell behind real time by %.1f ms (%.1f%% of the run): "
	       "%" PRIu64 " of %" PRIu64 " steps came more than %" PRIu64 " ns after the one "
	       "before (the most by %.3f ms more); it ran that much slower instead of "
	       "catching up\n", behind_ms, elapsed_s > 0 ? behind_ms / 10.0 / elapsed_s : 0.0,
	       late, steps, (uint64_t)quantum, (double)late_max / 1e6);
	if (held)
		printf("  real time: %" PRIu64 " steps held back for a slower runner\n", held);
}

/*
 * A fabric's summary, as JSON (the --stats file) and as tables: per switch
 * (packets in and out, drops, PFC sent, and the load-balancing programs
 * running on it as show lb gives them: runs, fallbacks, their counters),
 * per link direction (packets, bytes, utilization, pauses), drops
 * fabric-wide by reason.
 */
json_t *
aif_report_fabric_json(const struct aif_ctl *c, aif_time_ns now_ns, bool full)
{
	json_t *sws = json_array();

	for (uint16_t s = 0; s < c->n_sw; s++) {
		if (!full) {
			json_t *cj = aif_ctl_summary_counters_json(c->sws[s]);
			json_object_set_new(cj, "switch", json_string(c->sws[s]->name));
			json_array_append_new(sws, cj);
			continue;
		}
		json_t *cj = aif_ctl_counters_json(c->sws[s]);
		json_object_set_new(cj, "switch", json_string(c->sws[s]->name));
		json_t *lb = aif_ctl_show_lb((struct aif_ctl *)c, c->sws[s]);
		json_t *progs = json_object_get(lb, "programs");
		if (json_array_size(progs) > 0)
			json_object_set(cj, "lb_programs", progs);
		json_decref(lb);
		json_array_append_new(sws, cj);
	}
	return json_pack("{s:o, s:o}", "switches", sws, "links",
			 full ? aif_ctl_links_json(c, NULL, now_ns)
			      : aif_ctl_summary_links_json(c, now_ns));
}

int
aif_report_write_json(const char *path, json_t *j)
{
	int rc = json_dump_file(j, path, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (rc != 0)
		fprintf(stderr, "cannot write stats to %s\n", path);
	return rc;
}

int
aif_report_write_stats(const char *path, const struct aif_switch *sw, double elapsed_s)
{
	json_t *c = aif_ctl_counters_json(sw);
	json_object_set_new(c, "elapsed_s", json_real(elapsed_s));
	json_object_set_new(c, "workers", json_integer(sw->n_shards));
	int rc = aif_report_write_json(path, c);
	json_decref(c);
	return rc;
}

double
aif_report_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The hugepage memory DPDK's heaps hold, kB (not in VmHWM). */
static long
hugepage_heap_kb(void)
{
	uint64_t bytes = 0;

	if (!rte_eal_has_hugepages())
		return 0; /* 4 KiB pages: counted in the resident set */
	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		struct rte_malloc_socket_stats st;
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			bytes += st.heap_totalsz_bytes;
	}
	return (long)(bytes / 1024);
}

/* The process's peak memory, kB: its peak resident set (VmHWM) plus the
 * hugepages its heaps hold now (heaps do not shrink during a run); -1 if
 * unknown. */
long
aif_report_peak_rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	if (f != NULL)
		fclose(f);
	return kb < 0 ? kb : kb + hugepage_heap_kb();
}

int
aif_report_workload(struct aif_workload *wl, const struct aif_ctl *ctl,
		    const struct aif_config *cfg, const char *results, json_t *fj)
{
	char err[AIF_ERR_MAX];
	json_t *wj = aif_workload_json(wl, ctl, cfg);

	if (!(aif_ranks_on() ? aif_ranks_jobs_idle() : aif_workload_idle(wl))) {
		printf("  the jobs did not finish by the end of the run:\n");
		aif_jobs_print_pending(wl->js, stdout);
	}
	aif_workload_print(wj);
	if (results != NULL) {
		if (aif_workload_write(wl, cfg, wj, results, err, sizeof(err)) != 0) {
			fprintf(stderr, "--results %s\n", err);
			json_decref(wj);
			return -1;
		}
		printf("  results: %s/jobs.csv, fct.txt, qps.csv, summary.json%s%s\n", results,
		       wl->mon != NULL && wl->mon_params.pfc ? ", pfc.txt" : "",
		       wl->mon != NULL && wl->mon_params.qlen ? ", qlen.txt" : "");
	}
	if (fj != NULL)
		json_object_set_new(fj, "workload", wj);
	else
		json_decref(wj);
	return 0;
}
