/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's options: those after the first "--" (EAL takes the ones
 * before), read and checked before EAL starts, so that a bad option, a
 * config that does not parse or a control socket in use stops the daemon
 * before a device is probed or memory reserved.
 *
 *	struct aif_opts o = { 0 };
 *	int rc = aif_opts_parse(argc, argv, &o);  // 0, -1 (said), 1: --help printed
 */
#ifndef AIF_OPTS_H
#define AIF_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#define AIF_OPTS_MAX_LIST 1024 /* of each repeated option */

struct aif_opts {
	const char *config;
	const char *socket;
	const char *stats;
	const char *capture_dir;
	const char *config_dir;
	double duration_s;
	bool vtime;                      /* --virtual-time */
	const char *pcap_out;            /* --pcap-out DIR (virtual time) */
	unsigned n_pcap_in;
	const char *pcap_in[AIF_OPTS_MAX_LIST]; /* --pcap-in SWITCH:PORT=FILE */
	uint64_t seed;                   /* --seed: the runners' random sources */
	double traffic_load;             /* --traffic LOAD[:BYTES] */
	unsigned traffic_bytes;
	const char *samples;             /* --samples PREFIX (virtual time) */
	double sample_us;                /* --sample-us */
	unsigned n_link_ev;
	const char *link_ev[AIF_OPTS_MAX_LIST]; /* --link NAME@SECONDS=ACTION */
	unsigned n_lb_ev;
	const char *lb_ev[AIF_OPTS_MAX_LIST];   /* --lb SECONDS=load:FILE.o,... | unload:NAME */
	const char *jobs;                /* --jobs FILE: virtual hosts and their jobs */
	unsigned n_capture;
	const char *capture[AIF_OPTS_MAX_LIST]; /* --capture SWITCH:PORT (virtual time) */
	const char *results;             /* --results DIR */
	unsigned runners;                /* --runners N (virtual time); 0: as many as the
					  * fabric can use */
	unsigned threads;                /* --threads N (virtual time): the runners'
					  * threads; 0: one per core given */
};

/* Our options (after "--"; argv is left as it is for EAL): 0, -1 with a
 * message, or 1 when --help printed the usage (before or after the "--"). */
int aif_opts_parse(int argc, char **argv, struct aif_opts *o);
/* Is the control socket free (no daemon answers there)?  0, or -1 with a
 * message. */
int aif_opts_socket_free(const char *path);
/* The outputs' directories made (--pcap-out, --results, the directories of
 * --samples PREFIX and --stats FILE): 0, or -1 with a message naming the
 * option. */
int aif_opts_make_dirs(const struct aif_opts *o);

#endif /* AIF_OPTS_H */
