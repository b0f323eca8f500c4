/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What HPCC's and ConWeave's ns-3 write besides the FCTs, in their formats,
 * from a run in virtual time, so that their analysis scripts read ours.
 *
 * Node ids as theirs: the virtual hosts 0 .. N-1 in the fabric's order
 * (leaf by leaf), then the switches N, N+1, ... in the config's order;
 * interface indices: a switch's ports 1..n in its port order (the order a
 * generated fabric lists its links: host ports, then uplinks), a host's 1.
 *
 * pfc.txt, one line per PFC or PAUSE frame, logged by the device that
 * RECEIVES it when it acts on it (the paused side):
 *	time_ns node_id node_type ifindex type
 * node_type 0 host, 1 switch; type 1 pause (a class with time > 0), 0
 * resume.  In time order (ties: hosts before switches, then by node).
 *
 * qlen.txt, HPCC's monitor_buffer: every interval_ns from start_ns to
 * end_ns, every switch port's egress bytes (its eight queues) is counted
 * into a histogram by KB (floor(bytes / 1000)), cumulative.  Written when
 * a sample falls on a multiple of 100 ms (offset included), as HPCC does,
 * and once at the end:
 *	time: <ns>
 *	<switch node id> <ifindex> <count of 0 KB> <count of 1 KB> ... <count of K KB>
 * per switch, per port (K: the largest seen on that port; a port never
 * sampled: no counts).
 *
 * Times in both are virtual ns plus an offset (a flow file's earliest
 * start: the files read as if the run had started there).
 */
#ifndef AIF_MONITORS_H
#define AIF_MONITORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../dataplane/types.h"

#define AIF_MONITOR_QLEN_DUMP_NS (100 * AIF_NS_PER_MS) /* HPCC's qlen_dump_interval */

struct aif_monitor_params {
	bool pfc;                     /* pfc.txt */
	bool qlen;                    /* qlen.txt */
	aif_time_ns qlen_interval_ns; /* default 100 */
	aif_time_ns qlen_start_ns;    /* virtual time */
	aif_time_ns qlen_end_ns;      /* 0: the end of the run */
	aif_time_ns time_offset_ns;   /* added to every time written */
};

struct aif_ctl;
struct aif_vhosts;
struct aif_monitors;

/* Defaults: both on, every 100 ns over the whole run. */
void aif_monitor_params_default(struct aif_monitor_params *p);

/* Monitors over ctl's switches (their QoS made: after the config is
 * applied) and v's hosts; NULL if out of memory.  Hooks the PFC reception
 * of every switch port and host. */
struct aif_monitors *aif_monitors_create(const struct aif_monitor_params *p,
					 const struct aif_ctl *ctl, struct aif_vhosts *v);
/* The next time the monitors want to sample (AIF_TIME_NS_NEVER: none). */
aif_time_ns aif_monitors_next_ns(const struct aif_monitors *m);
/* Sample at t if due (state is read, never changed). */
void aif_monitors_sample(struct aif_monitors *m, aif_time_ns t);
/*
 * The same, one switch at a time, for runners that each sample their own
 * switches (virtual time on several runners, dataplane/windows.h): the
 * first sample's time (AIF_TIME_NS_NEVER: no qlen monitor), the one after
 * a sample at t, whether t is past the end (no more samples); switch sw
 * sampled at t (its part of the dump when t is a dump's time).  A sample
 * at t of every switch is what aif_monitors_sample does.
 */
aif_time_ns aif_monitors_qlen_first_ns(const struct aif_monitors *m);
aif_time_ns aif_monitors_qlen_after(const struct aif_monitors *m, aif_time_ns t);
bool aif_monitors_qlen_over(const struct aif_monitors *m, aif_time_ns t);
void aif_monitors_qlen_take(struct aif_monitors *m, aif_time_ns t, uint16_t sw);
/* PFC frames logged so far. */
uint64_t aif_monitors_pfc_events(const struct aif_monitors *m);
/* Several processes, each running its own devices (control/ranks.h): each
 * switch's qlen.txt dumps and histograms (aif_monitors_share_qlen) and
 * each device's PFC log (aif_monitors_share_pfc) copied from the process
 * that has it, owner(arg,
 * is_switch, host or switch index), to every other, with bcast(buf, len,
 * root, arg) (every process calls it in the same order).  0, or -1 (out
 * of memory). */
int aif_monitors_share_pfc(struct aif_monitors *m, int (*owner)(void *arg, bool is_switch, uint32_t i),
			   void (*bcast)(void *buf, size_t len, int root, void *arg), void *arg);
int aif_monitors_share_qlen(struct aif_monitors *m, int (*owner)(void *arg, bool is_switch, uint32_t i),
			    void (*bcast)(void *buf, size_t len, int root, void *arg), void *arg);
/* pfc.txt and qlen.txt into dir (those monitored), the histogram's last
 * dump at end_ns (virtual); 0, or -1 with err. */
int aif_monitors_write(struct aif_monitors *m, const char *dir, aif_time_ns end_ns,
		       char *err, size_t err_len);
/* Frees; after the switches and hosts whose hooks point here are freed
 * (or never run again). */
void aif_monitors_free(struct aif_monitors *m);

#endif /* AIF_MONITORS_H */
