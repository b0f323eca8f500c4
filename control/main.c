/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aifabric: the switch daemon.
 *
 *	aifabric [EAL args] -- --config FILE [--socket PATH] [--duration SECONDS]
 *	                       [--stats FILE] [--capture-dir DIR] [--config-dir DIR]
 *	aifabric -- --config FILE --virtual-time [...]      (--help: the options)
 *
 * Real time: the main lcore runs the control thread (socket, neighbour
 * learning, link state); every other lcore runs one runner that polls its
 * RX queues and runs the pipeline to completion.  Ports come from EAL (PCI
 * NICs or vdevs) and are bound to switch ports by the "device" name in the
 * config.  Virtual time: one core runs the whole fabric, deterministically,
 * as fast as it can.  Both drive the same objects through the same event
 * loop (dataplane/evloop.h) and differ in the clock.
 *
 * SIGINT/SIGTERM (or --duration) stop the run: the runners flush their TX
 * buffers, the egress queues are emptied and every peer still paused by
 * the switch gets an XON (aif_egress_shutdown), the ports are stopped and
 * closed, and the summary says whether every mbuf went back to its pool.
 * A failure at any step exits with status 1 and its reason (control/run.h
 * has the steps).
 */
#include "ranks.h"
#include "run.h"

int
main(int argc, char **argv)
{
	static struct aif_run r;
	int rc;

	/* mpirun: one rank of several (control/ranks.h) */
	if (aif_ranks_start(&argc, &argv) != 0)
		return 1;
	/* options, config, jobs, socket, outputs: before EAL touches a device */
	rc = aif_run_prepare(&r, argc, argv);
	/* several ranks: each step of the start taken by all or by none, from
	 * the same inputs (ranks.h aif_ranks_agree) */
	rc = aif_ranks_agree(rc, rc == 0 && aif_ranks_on() ? aif_run_inputs_digest(&r) : 0);
	/* EAL, pool, fabric, ports, hosts, config applied, runners */
	if (rc == 0)
		rc = aif_run_build(&r, argc, argv);
	rc = aif_ranks_agree(rc, 0);
	if (rc == 0)
		rc = r.o.vtime ? aif_run_virtual(&r) : aif_run_real(&r);
	/* captures, XON to paused peers, counters, jobs' results, stats */
	if (rc == 0)
		rc = aif_run_report(&r);
	rc = aif_run_end(&r, rc);
	aif_ranks_end(rc, r.ran);
	return rc;
}
