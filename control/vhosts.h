/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual RoCE hosts (hosts/rhost.h) on a fabric's edge: one on every
 * host port of the config ("hosts": name, switch, port, IPv4 address, MAC)
 * that has no device and no other binding, at the port's speed, sending to
 * the switch port's MAC, on the priorities the switch's policy pauses by
 * (its DSCP -> TC -> PG maps).  And the base RTT between two of them, for
 * ideals, slowdowns and the hosts' timeouts (each host's scale with its
 * farthest peer's): a full-MTU data packet along the fewest-delay path
 * (store and forward: serialization at every hop's rate plus every link's
 * delay) and its ACK back, plus the NIC's ACK delay.
 *
 *	struct aif_vhosts v;
 *	aif_rhost_params_default(&tmpl, 0);      // rate and addresses are per host
 *	if (aif_vhosts_build(&v, cfg, &fab, &tmpl, skip, pool, err, sizeof(err)) != 0) ...
 *	jobs = aif_jobs_create(v.h, v.n, v.rate_bps, aif_vhosts_rtt, &v);
 *	aif_jobs_set_path(jobs, aif_vhosts_path);   // ideals: a lower bound
 *	...
 *	aif_vhosts_free(&v);   // after the runners and the fabric's switches
 */
#ifndef AIF_VHOSTS_H
#define AIF_VHOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "../hosts/jobs.h"
#include "../hosts/rhost.h"
#include "config.h"
#include "fabric.h"
#include "paths.h"

struct rte_mempool;

struct aif_vhosts {
	uint32_t n;
	struct aif_rhost **h;
	uint32_t *cfg_host;      /* its entry in cfg->hosts */
	uint32_t *by_name;       /* the hosts by name (aif_vhosts_find) */
	uint16_t *sw, *port;
	uint64_t rate_bps;       /* the fastest host's */
	struct aif_paths paths;  /* between switches */
	aif_time_ns ack_delay_ns;
	/* wire bytes of a full data packet and of an ACK, by wire model (the
	 * links' and the hosts') */
	uint32_t data_wire[AIF_WIRE_MODEL_MAX], ack_wire[AIF_WIRE_MODEL_MAX];
	uint32_t mtu;
	struct aif_vhosts_wake *wake; /* per host, aif_vhosts_wake_by */
	uint32_t *by_ptr;        /* the hosts by their rhost's address (wake_by's) */
};

struct aif_runner;
struct aif_vhosts_wake {
	struct aif_runner *w;
	uint16_t rxq;
};

/*
 * Hosts on every eligible host port; skip(sw, port, arg) true keeps a port
 * for something else (NULL: none kept).  tmpl gives everything but rate,
 * addresses and priorities; its seed is varied per host.  0, or -1 with
 * err (the host and why).
 */
int aif_vhosts_build(struct aif_vhosts *v, const struct aif_config *cfg, struct aif_fabric *f,
		     const struct aif_rhost_params *tmpl,
		     int (*skip)(uint16_t sw, uint16_t port, void *arg), void *skip_arg,
		     struct rte_mempool *pool, char *err, size_t err_len);
/* The base RTT from host a to host b (aif_jobs_rtt_fn). */
aif_time_ns aif_vhosts_rtt(uint32_t a, uint32_t b, void *v);
/* Its parts, rounded down (aif_jobs_path_fn): a full-MTU data frame from a
 * (its first bit leaving a) to b (its last bit in), an ACK from b to a. */
void aif_vhosts_path(uint32_t a, uint32_t b, aif_time_ns *data_ns, aif_time_ns *ack_ns, void *v);
/* The path a -> b as ns-3 counts it for its ideal FCT
 * (aif_jobs_ns3_path_fn): host links included. */
void aif_vhosts_ns3_path(uint32_t a, uint32_t b, struct aif_jobs_ns3_path *p, void *v);
/* In virtual time: a host given work from outside (another host's callback)
 * tells its runner w, which asks its next frame again (rhost.h waker,
 * runner.h aif_runner_wake).  For the hosts whose ports w polls: call it
 * for each runner when there are several. */
int aif_vhosts_wake_by(struct aif_vhosts *v, struct aif_runner *w);
/* Index of the host called name (cfg->hosts), or -1. */
int aif_vhosts_find(const struct aif_vhosts *v, const struct aif_config *cfg, const char *name);
void aif_vhosts_free(struct aif_vhosts *v);

#endif /* AIF_VHOSTS_H */
