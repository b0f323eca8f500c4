/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The summary the daemon prints when it stops, from the counters as JSON
 * (the same objects --stats writes).
 *
 * A fabric's summary names every port switch:port.  A small fabric gets
 * its full tables: a row per switch (packets in and out, drops), per link
 * direction (packets, bytes, utilization, PFC frames, frames lost and
 * corrupted) and per edge port that carried traffic.  A large one (more
 * than AIF_SUMMARY_FULL_ROWS such rows: a k=8 fat-tree has 80 switches,
 * 512 link directions and 128 edge ports) gets totals, the switches and
 * edge ports that dropped the most, the worst link directions (frames
 * lost or corrupted first, then PFC frames, then utilization) and where
 * the full tables are: the --stats file.
 *
 *	json_t *fj = json_pack("{s:o, s:o}", "switches", sws, "links", links);
 *	struct aif_summary_run r = { .elapsed_s = 0.4, .virtual_ns = 55000,
 *				     .packet_hops = 108236, .stats_path = "run.json" };
 *	unsigned lines = aif_summary_print_fabric(stdout, fj, &r);
 *
 * Plain C and jansson, no EAL.
 */
#ifndef AIF_SUMMARY_H
#define AIF_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "../dataplane/types.h"

/* A fabric with more rows than this (switches, link directions and edge
 * ports with traffic) is summarised; its full tables are in --stats. */
#define AIF_SUMMARY_FULL_ROWS 64
/* Rows of the worst link directions, switches and edge ports shown. */
#define AIF_SUMMARY_WORST_LINKS 8
#define AIF_SUMMARY_TOP 5

struct aif_summary_run {
	double elapsed_s;        /* wall-clock time of the run */
	aif_time_ns virtual_ns;  /* virtual time reached; AIF_TIME_NS_NEVER: real time */
	uint64_t packet_hops;
	const char *stats_path;  /* --stats FILE, or NULL */
	const char *pcap_out;    /* --pcap-out DIR, or NULL */
};

/*
 * A fabric's summary to f from fj ({"switches": [aif_ctl_counters_json
 * with "switch": NAME, ...], "links": aif_ctl_links_json}); edge ports are
 * the switch ports no link direction names.  Returns the lines printed.
 */
unsigned aif_summary_print_fabric(FILE *f, const json_t *fj, const struct aif_summary_run *r);

/* One switch's summary (real time, a single switch): a row per port and
 * its drops by reason, from aif_ctl_counters_json.  Returns the lines. */
unsigned aif_summary_print_switch(FILE *f, const json_t *counters, double elapsed_s);

#endif /* AIF_SUMMARY_H */
