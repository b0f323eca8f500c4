/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The BFD sessions of the switches' ports (a port's "bfd" in the config),
 * run by control in real time: what tells a daemon that the far end of a
 * link it shares with another daemon or machine is gone, where the device
 * cannot (a veth or af_packet port keeps its carrier; a daemon that hangs
 * or exits leaves its NIC's link up).
 *
 * Control runs each session (dataplane/bfd.h) every link poll (10 ms):
 * the packets the ports heard (the data path hands them over through the
 * switch's bfd_rx ring: pipelines/arp_nd.h), the detection times, the
 * packets due, built here and left on the switch's bfd_tx ring for the
 * runner to send.  A port with a session carries traffic only while the
 * session is Up (aif_bfd_port_up; control's link poll takes it down and up
 * as it does on the device's carrier, withdrawing routes around it), so a
 * link comes into use only once both ends have heard each other.  In
 * virtual time no session runs: the port is as its device says.
 *
 * Time: the real clock's (wall time), not the emulation's, which a paced
 * daemon lets fall behind (runner.h): two daemons agree on the wall clock
 * alone.  A packet counts as heard when control takes it from the ring,
 * up to one poll (10 ms) after it came: detection times are that much
 * longer at most.
 *
 *	b = aif_bfd_sessions_create(&env, &nomem);  // real time, config loaded
 *	...every 10 ms: aif_bfd_sessions_poll(b, &env); then the links
 */
#ifndef AIF_BFD_SESSIONS_H
#define AIF_BFD_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../dataplane/types.h"

struct aif_config;
struct aif_switch;
struct aif_bfd_sessions;

/* What the sessions see of the daemon (commands.c aif_ctl_bfd_env). */
struct aif_bfd_env {
	struct aif_switch *const *sws; /* the switches, in config order */
	uint16_t n_sw;
	const struct aif_config *running; /* the running config */
	aif_time_ns now_ns;               /* the real clock's: see above */
};

/* Sessions for the running config's BFD ports (NULL: it has none, or out
 * of memory: err says which), every one Down and sending from now. */
struct aif_bfd_sessions *aif_bfd_sessions_create(const struct aif_bfd_env *v, bool *nomem);

/* Before a config is compiled: the rings its BFD ports need.  0, or -1 with
 * err (out of memory). */
int aif_bfd_sessions_prepare(const struct aif_bfd_env *v, const struct aif_config *cfg,
			     char *err, size_t err_len);

/* The running config changed: its BFD ports' sessions kept (with their
 * params now), made, or ended. */
void aif_bfd_sessions_sync(struct aif_bfd_sessions *b, const struct aif_bfd_env *v);

/* What the sessions heard, their timers and the packets due at now; true
 * when one went Up or left it. */
bool aif_bfd_sessions_poll(struct aif_bfd_sessions *b, const struct aif_bfd_env *v);

/* Switch s's port p may carry traffic as far as BFD says: it runs no
 * session (or none run: b NULL), or its session is Up. */
bool aif_bfd_port_up(const struct aif_bfd_sessions *b, uint16_t s, uint16_t p);

/* The session of "switch:port" (name) administratively down (AdminDown:
 * the peer is told now) or up again (the handshake starts over).  -1: no
 * session of that name; else the switch whose port stops carrying traffic
 * now (the caller takes its link down), or n_sw for none. */
int aif_bfd_admin(struct aif_bfd_sessions *b, const struct aif_bfd_env *v, const char *name,
		  bool down, uint16_t *port);

/* The end: every session AdminDown, a packet of it to every peer now (left
 * for the runners to send), so that each takes its end down at once. */
void aif_bfd_sessions_goodbye(struct aif_bfd_sessions *b, const struct aif_bfd_env *v);

/* show bfd: sw's sessions. */
json_t *aif_bfd_sessions_show(const struct aif_bfd_sessions *b, const struct aif_bfd_env *v,
			      const struct aif_switch *sw);

void aif_bfd_sessions_free(struct aif_bfd_sessions *b);

#endif /* AIF_BFD_SESSIONS_H */
