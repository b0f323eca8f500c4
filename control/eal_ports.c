/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's DPDK side (eal_ports.h).
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "../dataplane/port.h"
#include "../dataplane/switch.h"
#include "commands.h"
#include "eal_ports.h"
#include "pool_check.h"

static char eal_runtime_dir[PATH_MAX]; /* /var/run/dpdk/<file-prefix> */
static cpu_set_t given_cores;           /* before EAL pinned the main thread */
static bool given_known;

/*
 * At exit, after EAL's own exit handlers (registered later, so run earlier:
 * the telemetry socket goes there): remove EAL's runtime directory when it
 * is empty, so that runs with a new --file-prefix each do not pile them up.
 */
static void
remove_runtime_dir(void)
{
	if (eal_runtime_dir[0] != '\0')
		rmdir(eal_runtime_dir);
}

/* Free 2 MiB hugepages, if hugetlbfs is mounted; 0 if not. */
static long
free_hugepages_2m(void)
{
	char line[512];
	bool mounted = false;
	long n = 0;
	FILE *f = fopen("/proc/mounts", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, " hugetlbfs ") != NULL && strstr(line, "pagesize=1G") == NULL)
			mounted = true;
	if (f != NULL)
		fclose(f);
	f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	if (f != NULL && fscanf(f, "%ld", &n) != 1)
		n = 0;
	if (f != NULL)
		fclose(f);
	return mounted ? n : 0;
}

long
aif_eal_free_hugepages_mb(void)
{
	return 2 * free_hugepages_2m();
}

unsigned
aif_eal_no_huge_mb(unsigned need_mb)
{
	uint64_t m = (uint64_t)need_mb + need_mb / 2;

	m = (m + 1023) / 1024 * 1024;
	return (unsigned)RTE_MIN(RTE_MAX(m, 4096ull), 1ull << 30);
}

/*
 * Default EAL arguments for a virtual-time run given none: no devices, one
 * lcore, nothing left behind; hugepages (--in-memory: no file is kept) when
 * at least 1 GiB of 2 MiB pages is free and a quarter more than the run's
 * DPDK memory (need_mb), else 4 KiB pages (--no-huge).  The
 * mbuf pool and tables are touched once at start-up: on 4 KiB pages that is
 * some 100,000 page faults, 2.5 s of a 128-host run's 5 s on this class of
 * machine, against 0.3 s on hugepages.  A fabric larger than the free
 * hugepages (a k=56 fat-tree's 2.7 GiB on a machine with 2 GiB of them)
 * ran out of memory as its links were made.
 */
static char **
vtime_eal_args(int argc, char **argv, int *eal_argc, char *prefix, size_t prefix_len,
	       unsigned lcore, unsigned need_mb, unsigned sharers)
{
	static char lc[16], msz[16];
	static char *huge[] = { "--in-memory" }; /* on demand, no -m */
	static char *small[] = { "--no-huge", "-m", msz };
	static char *rest[] = { "--no-pci", "--no-shconf", "--no-telemetry", "-l", lc,
				"--log-level", "error", "--file-prefix" };
	long free_mb = aif_eal_free_hugepages_mb();
	bool use_huge = free_mb >= 1024 &&
			(uint64_t)free_mb >= ((uint64_t)need_mb + need_mb / 4) * RTE_MAX(sharers, 1u);
	char **mem = use_huge ? huge : small;
	size_t n_mem = use_huge ? RTE_DIM(huge) : RTE_DIM(small), k = 0;
	char **av = calloc(1 + n_mem + RTE_DIM(rest) + 1 + (size_t)argc, sizeof(*av));

	if (av == NULL)
		return NULL;
	snprintf(lc, sizeof(lc), "%u", lcore);
	snprintf(msz, sizeof(msz), "%u", aif_eal_no_huge_mb(need_mb));
	if (!use_huge && free_mb >= 1024)
		printf("memory: 4 KiB pages (EAL --no-huge -m %s): the fabric takes about %u MiB "
		       "of DPDK memory%s, more than the %ld MiB of free 2 MiB hugepages allow\n",
		       msz, need_mb, sharers > 1 ? " on each rank here" : "", free_mb);
	snprintf(prefix, prefix_len, "aif-vt-%d", (int)getpid());
	av[k++] = argv[0];
	for (size_t i = 0; i < n_mem; i++)
		av[k++] = mem[i];
	for (size_t i = 0; i < RTE_DIM(rest); i++)
		av[k++] = rest[i];
	av[k++] = prefix;
	for (int i = 1; i < argc; i++)
		av[k++] = argv[i];
	*eal_argc = (int)k;
	return av;
}

int
aif_eal_start(int argc, char **argv, bool vtime, unsigned lcore, unsigned need_mb,
	      unsigned sharers, char ***eal_argv)
{
	static char prefix[64];
	int eal_argc = argc;

	*eal_argv = NULL;
	atexit(remove_runtime_dir);
	given_known = sched_getaffinity(0, sizeof(given_cores), &given_cores) == 0 &&
		      CPU_COUNT(&given_cores) > 0;
	if (vtime && (argc < 2 || strcmp(argv[1], "--") == 0)) {
		*eal_argv = vtime_eal_args(argc, argv, &eal_argc, prefix, sizeof(prefix), lcore,
					   need_mb, sharers);
		if (*eal_argv == NULL)
			return -1;
	}
	if (rte_eal_init(eal_argc, *eal_argv != NULL ? *eal_argv : argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s", rte_eal_get_runtime_dir());
	/* EAL pinned this thread to the main lcore, and every thread it starts
	 * would inherit that one core: in virtual time the runners are plain
	 * threads, so this one gets back the cores the process was given */
	if (vtime && given_known &&
	    sched_setaffinity(0, sizeof(given_cores), &given_cores) != 0)
		fprintf(stderr, "EAL: cannot run on the cores given (%s): one core for every "
			"runner\n", strerror(errno));
	return 0;
}

unsigned
aif_eal_cores_given(void)
{
	cpu_set_t set;

	if (given_known)
		return (unsigned)CPU_COUNT(&given_cores);
	return sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0
	       ? (unsigned)CPU_COUNT(&set) : 1;
}

static void
describe_rc(char *buf, size_t len, int rc, const char *what)
{
	if (rc == 0)
		snprintf(buf, len, "%s", what);
	else if (rc == -ENOTSUP || rc == -ENOSYS)
		snprintf(buf, len, "not supported by the driver (%s)", rc == -ENOTSUP ? "-ENOTSUP" : "-ENOSYS");
	else
		snprintf(buf, len, "error %d (%s)", rc, rte_strerror(-rc));
}

/* Which lossless mechanisms does this device offer?  (start-up report) */
static void
probe_lossless(uint16_t pid, struct aif_port_info *pi)
{
	struct rte_eth_fc_conf fc;
	struct rte_eth_pfc_conf pfc;
	int rc;

	/* Asking to leave priority 3 unpaused is harmless where PFC works, and
	 * the ethdev layer answers -ENOTSUP before touching hardware where it
	 * does not. */
	memset(&pfc, 0, sizeof(pfc));
	pfc.fc.mode = RTE_ETH_FC_NONE;
	pfc.priority = 3;
	rc = rte_eth_dev_priority_flow_ctrl_set(pid, &pfc);
	describe_rc(pi->hardware_pfc, sizeof(pi->hardware_pfc), rc,
		    "available (rte_eth_dev_priority_flow_ctrl_set)");

	memset(&fc, 0, sizeof(fc));
	rc = rte_eth_dev_flow_ctrl_get(pid, &fc);
	if (rc == 0)
		snprintf(pi->link_pause, sizeof(pi->link_pause), "802.3x pause %s",
			 fc.mode == RTE_ETH_FC_NONE ? "off" : "on");
	else {
		char why[96];
		describe_rc(why, sizeof(why), rc, "");
		snprintf(pi->link_pause, sizeof(pi->link_pause), "802.3x pause: %s", why);
	}

	if (strstr(pi->driver, "i40e") != NULL)
		snprintf(pi->software_pfc, sizeof(pi->software_pfc),
			 "unavailable: the NIC drops transmitted EtherType 0x8808");
	else
		snprintf(pi->software_pfc, sizeof(pi->software_pfc),
			 "available (frames built by the switch)");
}

/*
 * "pfc_mode": "hardware": the NIC sends PFC for the lossless priorities from
 * its own receive buffer (and honours PFC it receives); the switch then sends
 * none of its own for that port.  Water marks are the driver's units (ixgbe:
 * KB of its Rx packet buffer); the values here suit a 10G/25G port.
 */
static int
enable_hw_pfc(uint16_t pid, unsigned swi, uint16_t p, const struct aif_port_params *pp, uint8_t pfc_enable,
	      struct aif_port_info *pi)
{
	for (uint8_t prio = 0; prio < 8; prio++) {
		if (!((pfc_enable >> prio) & 1))
			continue;
		struct rte_eth_pfc_conf pfc = {
			.fc = { .mode = RTE_ETH_FC_FULL, .high_water = 160, .low_water = 128,
				.pause_time = 0xFFFF, .send_xon = 1 },
			.priority = prio,
		};
		int rc = rte_eth_dev_priority_flow_ctrl_set(pid, &pfc);
		if (rc != 0) {
			fprintf(stderr, "$.switches[%u].ports[%u].pfc_mode: \"hardware\" but the "
				"driver of %s (port %s) cannot enable PFC on priority %u: %s; "
				"use \"software\"\n", swi, p, pp->device, pp->name, prio,
				rc == -ENOTSUP || rc == -ENOSYS ? "not supported" : rte_strerror(-rc));
			return -1;
		}
	}
	snprintf(pi->hardware_pfc, sizeof(pi->hardware_pfc),
		 "enabled by the switch (pfc_mode hardware), mask 0x%02x", pfc_enable);
	snprintf(pi->software_pfc, sizeof(pi->software_pfc), "off (the NIC sends PFC)");
	return 0;
}

int
aif_eal_port_init(struct aif_switch *sw, unsigned swi, struct aif_port_info *pinfo, uint16_t p,
	  const struct aif_port_params *pp, struct rte_mempool *pool,
	  uint16_t n_queues, uint8_t pfc_enable)
{
	struct aif_port *port = &sw->ports[p];
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	const char *step = "device info";
	unsigned held0 = rte_mempool_in_use_count(pool);
	uint16_t pid;
	int rc;

	if (rte_eth_dev_get_port_by_name(pp->device, &pid) != 0) {
		fprintf(stderr, "$.switches[%u].ports[%u].device: no DPDK device named '%s' "
			"(port %s; pass it to EAL, e.g. --vdev %s,... or -a <PCI address>)\n",
			swi, p, pp->device, pp->name, pp->device);
		return -1;
	}
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc != 0)
		goto err;
	snprintf(port->name, sizeof(port->name), "%s", pp->name);
	snprintf(pinfo[p].driver, sizeof(pinfo[p].driver), "%s", info.driver_name);
	pinfo[p].max_rxq = info.max_rx_queues;
	pinfo[p].max_txq = info.max_tx_queues;
	port->dpdk_port = pid;
	port->n_rxq = RTE_MIN(n_queues, info.max_rx_queues);
	port->n_txq = n_queues;
	if (info.max_tx_queues < n_queues) {
		fprintf(stderr, "$.switches[%u].ports[%u] (port %s, device %s): %u TX queues, "
			"%u workers need one each (fewer lcores in EAL -l)\n", swi, p, pp->name,
			pp->device, info.max_tx_queues, n_queues);
		return -1;
	}
	memset(&conf, 0, sizeof(conf));
	if (port->n_rxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) &
			info.flow_type_rss_offloads;
	}
	step = "configure";
	rc = rte_eth_dev_configure(pid, port->n_rxq, port->n_txq, &conf);
	if (rc != 0)
		goto err;
	uint16_t nrx = AIF_EAL_RX_DESC, ntx = AIF_EAL_TX_DESC;
	rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
	/* sent frames a driver may hold: its TX rings, and as many completions
	 * not yet taken back (pool_check.h) */
	pinfo[p].tx_desc = 2u * ntx * port->n_txq;
	step = "RX queue set-up";
	for (uint16_t q = 0; q < port->n_rxq; q++)
		if ((rc = rte_eth_rx_queue_setup(pid, q, nrx, rte_eth_dev_socket_id(pid),
						 NULL, pool)) != 0)
			goto err;
	step = "TX queue set-up";
	for (uint16_t q = 0; q < port->n_txq; q++)
		if ((rc = rte_eth_tx_queue_setup(pid, q, ntx, rte_eth_dev_socket_id(pid),
						 NULL)) != 0)
			goto err;
	/* The frame MTU; drivers without MTU control (vdevs) keep theirs. */
	rte_eth_dev_set_mtu(pid, pp->mtu);
	if (pp->mac_set)
		rte_eth_dev_default_mac_addr_set(pid, (struct rte_ether_addr *)pp->mac.b);
	rte_eth_macaddr_get(pid, &mac);
	memcpy(port->dev_mac.b, mac.addr_bytes, 6);
	probe_lossless(pid, &pinfo[p]);
	if (pp->pfc_mode == AIF_PFC_MODE_HARDWARE &&
	    enable_hw_pfc(pid, swi, p, pp, pfc_enable, &pinfo[p]) != 0)
		return -1;
	step = "start";
	rc = rte_eth_dev_start(pid);
	if (rc != 0)
		goto err;
	/* what the driver holds from now on (its RX rings): see pool_check.h */
	unsigned held1 = rte_mempool_in_use_count(pool);
	pinfo[p].mbufs_taken = held1 > held0 ? held1 - held0 : 0;
	/* Software filters on destination MAC; promiscuous also lets ND multicast in. */
	rte_eth_promiscuous_enable(pid);
	rte_eth_link_get_nowait(pid, &link);
	aif_port_set_link_up(port, link.link_status != 0);
	port->speed_mbps = pp->speed_mbps ? pp->speed_mbps :
			   (link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN ? link.link_speed : 0);
	aif_port_init_dpdk(port, p, pid);
	return 0;
err:
	fprintf(stderr, "$.switches[%u].ports[%u] (port %s, device %s): %s failed: %s\n",
		swi, p, pp->name, pp->device, step, rte_strerror(-rc));
	if (strcmp(step, "RX queue set-up") == 0)
		fprintf(stderr, "  an mbuf holds %u bytes of frame (sized from the largest "
			"port \"mtu\"); a driver that cannot chain mbufs (net_pcap "
			"infinite_rx) needs every frame it receives to fit in one: raise "
			"the port's \"mtu\"\n",
			rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM);
	return -1;
}

static bool
is_dpdk(const struct aif_port *p)
{
	return p->base == &aif_port_dpdk_ops;
}

/*
 * Stop the DPDK ports that started and close every port EAL made, set up
 * or not, before the mbuf pool is freed: a driver may hold mbufs from the
 * pool or state that points into it (a net_pcap infinite_rx queue loads its
 * whole file into mbufs) and releases them when closed.  Left to
 * rte_eal_cleanup, that would happen after the pool is gone.  What each
 * driver gave back goes to pp[*n_pp].
 */
void
aif_eal_ports_close(const struct aif_ctl *ctl, const struct rte_mempool *pool,
	    struct aif_pool_port *pp, unsigned *n_pp)
{
	uint16_t pid;

	*n_pp = 0;
	for (uint16_t s = 0; s < ctl->n_sw; s++) {
		const struct aif_switch *sw = ctl->sws[s];
		const struct aif_port_info *pinfo = ctl->pinfo[s];
		for (uint16_t p = 0; pinfo != NULL && p < sw->n_ports; p++) {
			if (!is_dpdk(&sw->ports[p]) || *n_pp >= RTE_MAX_ETHPORTS)
				continue;
			/* what its driver gives back, against what it took (pool_check.h) */
			unsigned before = pool ? rte_mempool_in_use_count(pool) : 0;
			rte_eth_dev_stop(sw->ports[p].dpdk_port);
			rte_eth_dev_close(sw->ports[p].dpdk_port);
			unsigned after = pool ? rte_mempool_in_use_count(pool) : 0;
			struct aif_pool_port *q = &pp[(*n_pp)++];
			/* a fabric's ports by switch:port (every leaf has an h0) */
			if (ctl->n_sw > 1)
				snprintf(q->name, sizeof(q->name), "%s:%s", sw->name,
					 sw->ports[p].name);
			else
				snprintf(q->name, sizeof(q->name), "%s", sw->ports[p].name);
			snprintf(q->driver, sizeof(q->driver), "%s", pinfo[p].driver);
			q->took = pinfo[p].mbufs_taken;
			q->tx_desc = pinfo[p].tx_desc;
			q->returned = (int64_t)before - (int64_t)after;
		}
	}
	RTE_ETH_FOREACH_DEV(pid)
		rte_eth_dev_close(pid);
}

void
aif_eal_links_poll(struct aif_ctl *c)
{
	struct rte_eth_link link;
	bool changed = false;
	char err[AIF_ERR_MAX];

	for (uint16_t s = 0; s < c->n_sw; s++) {
		struct aif_switch *sw = c->sws[s];
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			struct aif_port *port = &sw->ports[p];
			if (!is_dpdk(port) ||
			    rte_eth_link_get_nowait(port->dpdk_port, &link) != 0)
				continue;
			/* the carrier, and where a BFD session runs, its word */
			bool bfd = aif_bfd_port_up(c->bfd, s, p), up = link.link_status != 0 && bfd;
			if (up == (port->link_up != 0))
				continue;
			aif_port_set_link_up(port, up);
			port->link_changes++;
			changed = true;
			printf("%s%s%s: link %s%s\n", c->n_sw > 1 ? sw->name : "",
			       c->n_sw > 1 ? ":" : "port ", port->name, up ? "up" : "down",
			       link.link_status && !bfd ? " (BFD not up)" : "");
		}
	}
	if (changed && aif_ctl_links_changed(c, err, sizeof(err)) != 0)
		fprintf(stderr, "rebuilding the tables after a link change failed: %s\n", err);
}
