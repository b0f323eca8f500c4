/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the daemon says of a run: the start-up report (a switch's ports and
 * who owns its QoS state; a fabric's size, edge ports, runners and whether
 * it fits the cores), and the end (a fabric's counters as JSON, the pacing
 * of real time, the jobs' results, peak memory).
 */
#ifndef AIF_REPORT_H
#define AIF_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "../dataplane/types.h"

struct aif_config;
struct aif_ctl;
struct aif_runner;
struct aif_switch;
struct aif_workload;

/* The start-up report of a single switch: every port and who owns the QoS
 * state. */
void aif_report_ports(const struct aif_ctl *ctl);
/* The start-up report of a fabric: its size, the edge ports and what they
 * are bound to, which runner drives which switches (runner_of[switch]),
 * and whether the fabric fits the cores (real time). */
void aif_report_fabric(const struct aif_ctl *ctl, const struct aif_config *cfg,
		       const uint16_t *runner_of, unsigned n_run, bool vtime);
/* A fabric's counters: per switch (its load-balancing programs too) and per
 * link direction.  full false: of the switches only what the exit summary
 * reads (aif_summary_print_fabric: each port's name, packets, bytes and
 * drops, the drops that are not zero; each switch's drops by reason), for
 * a run without --stats: a k=32 fat-tree's every counter was 6% of its
 * run. */
json_t *aif_report_fabric_json(const struct aif_ctl *c, aif_time_ns now_ns, bool full);
/* Real time, paced: the runners' pacing (quantum, lag behind_ns, steps,
 * late steps), as JSON and as a line. */
json_t *aif_report_pace_json(struct aif_runner *const *runners, unsigned n_run,
			     aif_time_ns quantum, aif_time_ns behind_ns);
void aif_report_pace(struct aif_runner *const *runners, unsigned n_run, aif_time_ns quantum,
		     aif_time_ns behind_ns, double elapsed_s);
/* The jobs' results: a table, the files of results (NULL: none), and
 * "workload" in fj (NULL: not kept); 0, or -1 if the files could not be
 * written. */
int aif_report_workload(struct aif_workload *wl, const struct aif_ctl *ctl,
			const struct aif_config *cfg, const char *results, json_t *fj);
/* j to path (indented, keys sorted); 0, or -1 with a message. */
int aif_report_write_json(const char *path, json_t *j);
/* A single switch's counters to path, with the run's length. */
int aif_report_write_stats(const char *path, const struct aif_switch *sw, double elapsed_s);
/* Seconds of CLOCK_MONOTONIC. */
double aif_report_mono_s(void);
/* The process's peak memory, kB (peak resident set and the hugepages DPDK's
 * heaps hold); -1 if unknown. */
long aif_report_peak_rss_kb(void);

#endif /* AIF_REPORT_H */
