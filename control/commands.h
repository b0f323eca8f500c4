/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control commands: the one command set served over the Unix socket and
 * used for the start-up config (through aif_ctl_handle_line); the list is
 * ctl_commands.h.  Every command about switches takes "switch": NAME.
 *
 *   status                      version, uptime, workers, config generation
 *   load {"config": {...}}      replace the running config; or {"path": NAME}, a
 *                               file NAMED in config_dir (none: refused)
 *   show_ports | show_routes | show_neighbors | show_groups | show_counters
 *   clear_counters
 *   show_pfc | show_queues | show_buffer | show_pfcwd | clear_watermarks
 *                               lossless QoS (qos_views.c)
 *   capture_start {"port": "p0", "file": "p0.pcapng", "drops": true, "snaplen": 256,
 *                  "max_bytes": 1073741824, "max_packets": 1000}
 *   capture_stop {"port": "p0"} | show_captures
 *                               pcapng capture of a port (dataplane/capture.h)
 *                               into a file NAMED in capture_dir; drops,
 *                               snaplen, max_bytes and max_packets optional
 *                               (false, 65535, 1 GiB, none)
 *
 * Files named by a client are names, never paths (aif_ctl_name_check), in
 * a directory the daemon's operator chose, opened so that no link is
 * followed and nothing but a regular file is used (no FIFO can hold the
 * control thread), and the errors of a load by name never quote the file.
 *
 * A rejected load changes nothing: the new config is parsed, validated and
 * compiled into fresh tables for every switch before anything running is
 * touched; then all are published.
 */
#ifndef AIF_COMMANDS_H
#define AIF_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../dataplane/clock.h"
#include "../dataplane/link.h"
#include "../dataplane/switch.h"
#include "bfd_sessions.h"
#include "config.h"
#include "lb_progs.h"

#define AIF_VERSION "0.1.0"
#define AIF_CTL_CONFIG_FILE_MAX_BYTES (64u << 20) /* a load by name */

/* What the start-up report found out about a port's device. */
struct aif_port_info {
	char driver[64];
	char software_pfc[128];
	char hardware_pfc[128];
	char link_pause[128];
	uint16_t max_rxq, max_txq;
	uint32_t mbufs_taken;   /* from the pool by its set-up and start (RX rings) */
	uint32_t tx_desc;       /* sent frames its driver may hold (pool_check.h) */
};

struct aif_ctl {
	struct aif_switch *sw;         /* the first switch (its ports are the DPDK ones) */
	uint16_t n_sw;                 /* switches, in the config's order */
	struct aif_switch *sws[AIF_MAX_SWITCHES];
	struct aif_config *cfg;        /* running: the published tables came from it */
	/* the start-up report's findings per switch ([port]; NULL: none, no
	 * DPDK device): the daemon's, which owns them */
	struct aif_port_info *pinfo[AIF_MAX_SWITCHES];
	struct aif_clock clock;
	aif_time_ns start_ns;
	/* real time, paced runners (runner.h): how far their emulated time is
	 * behind the clock (NULL: not paced); aif_ctl_now() takes it off */
	const aif_time_ns *behind_ns;
	unsigned n_runners;            /* worker lcores running switches (0: the
					* first switch's shards) */
	uint64_t loads_ok, loads_rejected;
	const char *capture_dir;       /* --capture-dir: captures go here; NULL: refused */
	const char *config_dir;        /* --config-dir: load by name; NULL: refused */
	uint64_t link_rebuilds;        /* tables rebuilt for a link change */
	struct aif_link **links;       /* the fabric's emulated links (show links) */
	uint32_t n_links;
	struct aif_lb_progs lb;        /* load-balancing programs (lb_progs.h) */
	struct aif_bfd_sessions *bfd;  /* BFD sessions (bfd_sessions.h); NULL: none run */
	bool bfd_on;                   /* real time: the config's BFD ports run sessions */
};

/* The dataplane's time now: the clock less what the runners fell behind
 * (links, pauses and queues move in it). */
aif_time_ns aif_ctl_now(const struct aif_ctl *c);

/* Add a switch (in the config's order); the first becomes c->sw. */
int aif_ctl_add_switch(struct aif_ctl *c, struct aif_switch *sw);

/*
 * The aif_ctl_handler for struct aif_ctl (ctx): the commands of
 * ctl_commands.h.  A request about switches may name one ("switch"); when
 * it does not, it is about all of them: with one switch the result is that
 * switch's, with several {"switches": [{"switch": name, "result": ...}]}.
 */
json_t *aif_ctl_dispatch(void *ctx, const char *cmd, json_t *req, char *err,
			 size_t err_len);

/* BFD (bfd_sessions.h): what its sessions see of the daemon now; sessions
 * on from now (real time: for the running config's BFD ports and every
 * load's; 0, or -1 with err); a poll (every 10 ms, before the links'); at
 * the end, AdminDown to every peer (it takes its end down at once, not
 * after its detection time), sent before the runners stop. */
struct aif_bfd_env aif_ctl_bfd_env(const struct aif_ctl *c);
int aif_ctl_bfd_start(struct aif_ctl *c, char *err, size_t err_len);
void aif_ctl_bfd_poll(struct aif_ctl *c);
void aif_ctl_bfd_stop(struct aif_ctl *c);

/* Load-balancing programs (lb_cmds.c, lb_progs.h): lb load, lb unload,
 * show lb; and what the registry is given of the daemon. */
json_t *aif_ctl_lb_load(struct aif_ctl *c, json_t *req, char *err, size_t err_len);
json_t *aif_ctl_lb_unload(struct aif_ctl *c, json_t *req, char *err, size_t err_len);
json_t *aif_ctl_show_lb(struct aif_ctl *c, const struct aif_switch *sw);
struct aif_lb_env aif_ctl_lb_env(const struct aif_ctl *c);

/* QoS views (qos_views.c); NULL with err when QoS is off. */
json_t *aif_ctl_show_pfc(const struct aif_switch *sw, aif_time_ns now_ns, char *err,
			 size_t err_len);
json_t *aif_ctl_show_queues(const struct aif_switch *sw, char *err, size_t err_len);
json_t *aif_ctl_show_buffer(const struct aif_switch *sw, char *err, size_t err_len);
json_t *aif_ctl_show_pfcwd(const struct aif_switch *sw, char *err, size_t err_len);
json_t *aif_ctl_clear_watermarks(struct aif_switch *sw, char *err, size_t err_len);

/*
 * A port's link went down or up: rebuild the tables from the running config
 * (c->cfg, as parsed, shared by reference: nothing is re-read or re-parsed) so that group members on down ports leave their
 * groups (their buckets go to the others) and members that came back
 * rejoin.  0 (also when no config is loaded yet), or -1 with err.
 */
int aif_ctl_links_changed(struct aif_ctl *c, char *err, size_t err_len);

/* Path trace (trace_cmds.c). */
json_t *aif_ctl_trace_start(struct aif_switch *sw, json_t *req, char *err, size_t err_len);
json_t *aif_ctl_trace_stop(struct aif_switch *sw, char *err, size_t err_len);
json_t *aif_ctl_show_trace(struct aif_switch *sw, json_t *req, char *err, size_t err_len);

/* The emulated link named name ("leaf0:u0-spine0:d0"), or with an end
 * named so ("leaf0:u0"); -1 if none. */
int aif_ctl_find_link(const struct aif_ctl *c, const char *name);

/*
 * Link k goes up or down at now_ns (up: 1/0; -1: as it is) and gets its
 * loss and corruption rates (0..1; -1: as they are).  On a change of
 * state both ends' ports count it (link_changes) and, in one routing
 * update: a generated fabric is routed again around the links that are
 * down now, from the running config as parsed, so every switch routes
 * around them (reroute.h); otherwise the tables are rebuilt from the
 * running config, so the group members on it leave their groups (switches
 * further away keep their routes).  0, or -1 with err.
 */
int aif_ctl_link_set(struct aif_ctl *c, uint32_t k, int up, double loss_rate,
		     double corrupt_rate, aif_time_ns now_ns, char *err, size_t err_len);

/* The emulated links as JSON (show links, the exit summary): both
 * directions' counters, utilization since start_ns; only those with an
 * end on switch sw when sw is not NULL. */
json_t *aif_ctl_links_json(const struct aif_ctl *c, const struct aif_switch *sw,
			   aif_time_ns now_ns);
/* Of those, what the exit summary reads: each direction's ends and its
 * counters and utilization that are not zero (most of a large fabric's
 * links, in a short run). */
json_t *aif_ctl_summary_links_json(const struct aif_ctl *c, aif_time_ns now_ns);

/* Counters of a switch as JSON (show_counters, and the --stats file). */
json_t *aif_ctl_counters_json(const struct aif_switch *sw);
/* Of those, what the exit summary reads (aif_summary_print_fabric): each
 * port's name, packets, bytes and the drops that are not zero, the
 * switch's drops by reason, all of them. */
json_t *aif_ctl_summary_counters_json(const struct aif_switch *sw);

/*
 * Load cfg (owned on success and on failure) into the switch: compile,
 * install neighbours, publish; cfg becomes c->cfg.  Returns 0, or -1 with err set and the
 * running config untouched.  The load command counts loads; this does not.
 */
int aif_ctl_apply_config(struct aif_ctl *c, struct aif_config *cfg, char *err,
			 size_t err_len);

#endif /* AIF_COMMANDS_H */
