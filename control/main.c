/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aifabric: the switch daemon.
 *
 *	aifabric [EAL args] -- --config FILE [--socket PATH] [--duration SECONDS]
 *	                       [--stats FILE] [--capture-dir DIR] [--config-dir DIR]
 *
 * The main lcore runs the control thread (socket, neighbour learning, link
 * state); every other lcore runs one worker that polls its RX queues and
 * runs the pipeline to completion.  Ports come from EAL (PCI NICs or vdevs)
 * and are bound to switch ports by the "device" name in the config.
 * SIGINT/SIGTERM (or --duration) stop the workers; they flush their TX
 * buffers, the egress queues are emptied and every peer still paused by
 * the switch gets an XON (aif_egress_shutdown), the ports are stopped and
 * closed, and the summary says whether every mbuf went back to its pool.
 *
 * Start-up: the options, the config file (read and checked once; the same
 * text is applied and kept as the running config) and the control socket
 * (not one another daemon listens on) come before EAL; then EAL, the mbuf
 * pool, the ports, the config applied, the workers, the socket.  A failure
 * at any step exits with status 1 and its reason, every port EAL made
 * closed before the pool is freed.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>

#include "../dataplane/capture.h"
#include "../dataplane/clock.h"
#include "../dataplane/egress.h"
#include "../dataplane/qos.h"
#include "../dataplane/switch.h"
#include "../dataplane/worker.h"
#include "commands.h"
#include "config.h"
#include "ctl_server.h"
#include "pool_check.h"

#define RX_DESC 1024
#define TX_DESC 1024
#define POOL_CACHE 256
#define LINK_POLL_NS (10 * AIF_NS_PER_MS)

static volatile sig_atomic_t stop_requested;
static volatile int workers_run = 1;
static char eal_runtime_dir[PATH_MAX]; /* /var/run/dpdk/<file-prefix> */

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

struct opts {
	const char *config;
	const char *socket;
	const char *stats;
	const char *capture_dir;
	const char *config_dir;
	double duration_s;
};

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [EAL args] -- --config FILE [--socket PATH] "
		"[--duration SECONDS] [--stats FILE] [--capture-dir DIR] [--config-dir DIR]\n"
		"  --config FILE      topology and policy (JSON, see README)\n"
		"  --socket PATH      control socket (default %s)\n"
		"  --duration SECONDS stop by itself after this long\n"
		"  --stats FILE       write the final counters there as JSON\n"
		"  --capture-dir DIR  captures are files named in DIR, made 0750 if missing\n"
		"                     (default %s)\n"
		"  --config-dir DIR   load {\"path\": NAME} reads NAME in DIR (default: off)\n",
		prog, AIF_CTL_DEFAULT_SOCKET, AIF_CTL_DEFAULT_CAPTURE_DIR);
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "stats", required_argument, NULL, 'S' },
		{ "capture-dir", required_argument, NULL, 'C' },
		{ "config-dir", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;

	o->socket = AIF_CTL_DEFAULT_SOCKET;
	o->capture_dir = AIF_CTL_DEFAULT_CAPTURE_DIR;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 's': o->socket = optarg; break;
		case 'S': o->stats = optarg; break;
		case 'C': o->capture_dir = optarg; break;
		case 'D': o->config_dir = optarg; break;
		case 'd':
			o->duration_s = strtod(optarg, &end);
			if (*end != '\0' || o->duration_s <= 0) {
				fprintf(stderr, "--duration: '%s' is not a positive number\n", optarg);
				return -1;
			}
			break;
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (o->config == NULL) {
		fprintf(stderr, "--config FILE is required\n");
		usage(argv[0]);
		return -1;
	}
	struct stat st;
	if (o->config_dir != NULL) {
		if (stat(o->config_dir, &st) != 0) {
			fprintf(stderr, "--config-dir %s: %s\n", o->config_dir, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			fprintf(stderr, "--config-dir %s: not a directory\n", o->config_dir);
			return -1;
		}
	}
	return 0;
}

/*
 * Our options are those after the first "--"; read them before EAL so that
 * a bad config or a control socket in use stops the daemon before EAL
 * probes a device or reserves memory.  argv is left as it is for EAL.
 */
static int
parse_app_opts(int argc, char **argv, struct opts *o)
{
	int first = 1, rc;
	char **av;

	while (first < argc && strcmp(argv[first], "--") != 0)
		first++;
	av = calloc((size_t)(argc - first) + 2, sizeof(*av));
	if (av == NULL)
		return -1;
	av[0] = "aifabric";
	for (int i = first + 1; i < argc; i++)
		av[i - first] = argv[i];
	rc = parse_opts(first < argc ? argc - first : 1, av, o);
	free(av);
	optind = 1; /* EAL's getopt starts afresh */
	return rc;
}

/*
 * Is the control socket taken?  A daemon listening there answers a
 * connect (or has a full backlog: EAGAIN).  Checked before EAL, so that a
 * second daemon never starts its ports; aif_ctl_server_create checks again
 * when it binds (a stale socket file is removed there).  0, or -1 with a
 * message.
 */
static int
check_socket_free(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, live;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "control socket %s: path too long (limit %zu bytes); "
			"choose another with --socket PATH\n", path, sizeof(addr.sun_path) - 1);
		return -1;
	}
	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "control socket %s exists and is not a socket; choose "
			"another with --socket PATH\n", path);
		return -1;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0; /* the server will say */
	live = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0 || errno == EAGAIN;
	close(fd);
	if (!live)
		return 0;
	if (strcmp(path, AIF_CTL_DEFAULT_SOCKET) == 0)
		fprintf(stderr, "control socket %s is taken: another aifabric is running "
			"with the default socket; two daemons on one machine need a socket "
			"each: stop that one, or start this one with -- --socket PATH\n", path);
	else
		fprintf(stderr, "control socket %s is taken: another aifabric is listening "
			"there; stop it, or give this one its own with --socket PATH\n", path);
	return -1;
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
enable_hw_pfc(uint16_t pid, uint16_t p, const struct aif_port_params *pp, uint8_t pfc_enable,
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
			fprintf(stderr, "$.switches[0].ports[%u].pfc_mode: \"hardware\" but the "
				"driver of %s (port %s) cannot enable PFC on priority %u: %s; "
				"use \"software\"\n", p, pp->device, pp->name, prio,
				rc == -ENOTSUP || rc == -ENOSYS ? "not supported" : rte_strerror(-rc));
			return -1;
		}
	}
	snprintf(pi->hardware_pfc, sizeof(pi->hardware_pfc),
		 "enabled by the switch (pfc_mode hardware), mask 0x%02x", pfc_enable);
	snprintf(pi->software_pfc, sizeof(pi->software_pfc), "off (the NIC sends PFC)");
	return 0;
}

static int
port_init(struct aif_switch *sw, struct aif_ctl *ctl, uint16_t p,
	  const struct aif_port_params *pp, struct rte_mempool *pool,
	  uint16_t n_workers, uint8_t pfc_enable)
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
		fprintf(stderr, "$.switches[0].ports[%u].device: no DPDK device named '%s' "
			"(port %s; pass it to EAL, e.g. --vdev %s,... or -a <PCI address>)\n",
			p, pp->device, pp->name, pp->device);
		return -1;
	}
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc != 0)
		goto err;
	snprintf(port->name, sizeof(port->name), "%s", pp->name);
	snprintf(ctl->pinfo[p].driver, sizeof(ctl->pinfo[p].driver), "%s", info.driver_name);
	ctl->pinfo[p].max_rxq = info.max_rx_queues;
	ctl->pinfo[p].max_txq = info.max_tx_queues;
	port->dpdk_port = pid;
	port->n_rxq = RTE_MIN(n_workers, info.max_rx_queues);
	port->n_txq = n_workers;
	if (info.max_tx_queues < n_workers) {
		fprintf(stderr, "$.switches[0].ports[%u] (port %s, device %s): %u TX queues, "
			"%u workers need one each (fewer lcores in EAL -l)\n", p, pp->name,
			pp->device, info.max_tx_queues, n_workers);
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
	uint16_t nrx = RX_DESC, ntx = TX_DESC;
	rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
	/* sent frames a driver may hold: its TX rings, and as many completions
	 * not yet taken back (pool_check.h) */
	ctl->pinfo[p].tx_desc = 2u * ntx * port->n_txq;
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
	probe_lossless(pid, &ctl->pinfo[p]);
	if (pp->pfc_mode == AIF_PFC_MODE_HARDWARE &&
	    enable_hw_pfc(pid, p, pp, pfc_enable, &ctl->pinfo[p]) != 0)
		return -1;
	step = "start";
	rc = rte_eth_dev_start(pid);
	if (rc != 0)
		goto err;
	/* what the driver holds from now on (its RX rings): see pool_check.h */
	unsigned held1 = rte_mempool_in_use_count(pool);
	ctl->pinfo[p].mbufs_taken = held1 > held0 ? held1 - held0 : 0;
	/* Software filters on destination MAC; promiscuous also lets ND multicast in. */
	rte_eth_promiscuous_enable(pid);
	rte_eth_link_get_nowait(pid, &link);
	port->link_up = link.link_status;
	port->speed_mbps = pp->speed_mbps ? pp->speed_mbps :
			   (link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN ? link.link_speed : 0);
	aif_port_init_dpdk(port, p, pid);
	return 0;
err:
	fprintf(stderr, "$.switches[0].ports[%u] (port %s, device %s): %s failed: %s\n",
		p, pp->name, pp->device, step, rte_strerror(-rc));
	if (strcmp(step, "RX queue set-up") == 0)
		fprintf(stderr, "  an mbuf holds %u bytes of frame (sized from the largest "
			"port \"mtu\"); a driver that cannot chain mbufs (net_pcap "
			"infinite_rx) needs every frame it receives to fit in one: raise "
			"the port's \"mtu\"\n",
			rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM);
	return -1;
}

/*
 * Stop the ports that started and close every port EAL made, set up or
 * not, before the mbuf pool is freed: a driver may hold mbufs from the pool
 * or state that points into it (a net_pcap infinite_rx queue loads its whole
 * file into mbufs) and releases them when closed.  Left to rte_eal_cleanup,
 * that would happen after the pool is gone.
 */
static void
close_ports(const struct aif_switch *sw, const struct aif_ctl *ctl,
	    const struct rte_mempool *pool, struct aif_pool_port *pp)
{
	uint16_t pid;

	for (uint16_t p = 0; sw != NULL && p < sw->n_ports; p++) {
		if (sw->ports[p].ops == NULL) /* set once started */
			continue;
		/* what its driver gives back, against what it took (pool_check.h) */
		unsigned before = pool ? rte_mempool_in_use_count(pool) : 0;
		rte_eth_dev_stop(sw->ports[p].dpdk_port);
		rte_eth_dev_close(sw->ports[p].dpdk_port);
		unsigned after = pool ? rte_mempool_in_use_count(pool) : 0;
		snprintf(pp[p].name, sizeof(pp[p].name), "%s", sw->ports[p].name);
		snprintf(pp[p].driver, sizeof(pp[p].driver), "%s", ctl->pinfo[p].driver);
		pp[p].took = ctl->pinfo[p].mbufs_taken;
		pp[p].tx_desc = ctl->pinfo[p].tx_desc;
		pp[p].returned = (int64_t)before - (int64_t)after;
	}
	RTE_ETH_FOREACH_DEV(pid)
		rte_eth_dev_close(pid);
}

static void
print_ports(const struct aif_ctl *ctl)
{
	const struct aif_switch *sw = ctl->sw;
	const struct aif_tables *t = sw->tables;
	const struct aif_switch_params *sp = &ctl->cfg->switches[0];
	char mac[32];

	printf("switch %s: %u ports, %u workers\n", sw->name, sw->n_ports, sw->n_shards);
	for (uint16_t p = 0; p < sw->n_ports; p++) {
		const struct aif_port *port = &sw->ports[p];
		const struct aif_port_info *pi = &ctl->pinfo[p];
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

static int
worker_main(void *arg)
{
	struct aif_worker *w = arg;

	/* control's clock: one time base for the runners and control */
	while (__atomic_load_n(&workers_run, __ATOMIC_RELAXED))
		aif_worker_step(w, aif_clock_now(w->clock));
	return 0;
}

/* Read every port's link; on a change, count it and rebuild the tables so
 * group members follow their links. */
static void
poll_links(struct aif_ctl *c)
{
	struct aif_switch *sw = c->sw;
	struct rte_eth_link link;
	bool changed = false;
	char err[AIF_ERR_MAX];

	for (uint16_t p = 0; p < sw->n_ports; p++) {
		if (rte_eth_link_get_nowait(sw->ports[p].dpdk_port, &link) != 0 ||
		    link.link_status == sw->ports[p].link_up)
			continue;
		__atomic_store_n(&sw->ports[p].link_up, link.link_status, __ATOMIC_RELAXED);
		c->link_changes[p]++;
		changed = true;
		printf("port %s: link %s\n", sw->ports[p].name, link.link_status ? "up" : "down");
	}
	if (changed && aif_ctl_links_changed(c, err, sizeof(err)) != 0)
		fprintf(stderr, "rebuilding the tables after a link change failed: %s\n", err);
}

static void
print_summary(const struct aif_switch *sw, double elapsed_s)
{
	json_t *c = aif_ctl_counters_json(sw);
	json_t *ports = json_object_get(c, "ports"), *p;
	size_t i;

	printf("\nsummary: %.2f s\n", elapsed_s);
	printf("  %-6s %14s %14s %14s %14s %12s\n", "port", "rx_packets", "rx_bytes",
	       "tx_packets", "tx_bytes", "rx_Mpps");
	json_array_foreach(ports, i, p) {
		json_int_t rx = json_integer_value(json_object_get(p, "rx_packets"));
		printf("  %-6s %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT
		       " %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT " %12.3f\n",
		       json_string_value(json_object_get(p, "name")), rx,
		       json_integer_value(json_object_get(p, "rx_bytes")),
		       json_integer_value(json_object_get(p, "tx_packets")),
		       json_integer_value(json_object_get(p, "tx_bytes")),
		       elapsed_s > 0 ? (double)rx / elapsed_s / 1e6 : 0.0);
	}
	const char *k;
	json_t *v;
	int any = 0;
	json_object_foreach(json_object_get(c, "drops"), k, v) {
		if (json_integer_value(v) == 0)
			continue;
		if (!any++)
			printf("  drops by reason:\n");
		printf("    %-28s %" JSON_INTEGER_FORMAT "\n", k, json_integer_value(v));
	}
	if (!any)
		printf("  drops: none\n");
	json_decref(c);
}

static int
write_stats(const char *path, const struct aif_switch *sw, double elapsed_s)
{
	json_t *c = aif_ctl_counters_json(sw);
	json_object_set_new(c, "elapsed_s", json_real(elapsed_s));
	json_object_set_new(c, "workers", json_integer(sw->n_shards));
	int rc = json_dump_file(c, path, JSON_INDENT(2));
	json_decref(c);
	if (rc != 0)
		fprintf(stderr, "cannot write stats to %s\n", path);
	return rc;
}

static double
mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct aif_config *cfg = NULL;
	struct aif_ctl ctl = { 0 };
	struct aif_worker *runners[AIF_MAX_WORKERS] = { NULL };
	struct aif_ctl_server *srv = NULL;
	struct rte_mempool *pool = NULL;
	struct aif_switch *sw = NULL;
	char err[AIF_ERR_MAX], *text = NULL;
	size_t text_len = 0;
	bool eal_up = false, ran = false;
	struct aif_pool_port pool_ports[AIF_MAX_PORTS];
	uint16_t sw_ports = 0;
	int ret = 1, n;

	/* Options, config and control socket first: any of them wrong stops
	 * the daemon before EAL touches a device.  The config file is read and
	 * parsed once; what is applied below (and kept by the tables as the
	 * running config) is that one parse (a file changed meanwhile cannot
	 * mix in). */
	if (parse_app_opts(argc, argv, &o) != 0)
		goto out;
	text = aif_config_read_file(o.config, &text_len, err, sizeof(err));
	if (text == NULL || aif_config_parse(text, text_len, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "config %s: %s\n", o.config, err);
		goto out;
	}
	free(text);
	text = NULL;
	if (cfg->n_switches != 1) {
		fprintf(stderr, "config %s: $.switches: this build runs one switch per "
			"process; the config has %u\n", o.config, cfg->n_switches);
		goto out;
	}
	for (uint16_t p = 0; p < cfg->switches[0].n_ports; p++)
		if (cfg->switches[0].ports[p].device[0] == '\0') {
			fprintf(stderr, "config %s: $.switches[0].ports[%u].device: required: the "
				"daemon binds every port of its switch to a DPDK device\n",
				o.config, p);
			goto out;
		}
	if (check_socket_free(o.socket) != 0)
		goto out;

	atexit(remove_runtime_dir);
	n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	eal_up = true;
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s", rte_eal_get_runtime_dir());
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	rte_pdump_init();

	unsigned n_workers = rte_lcore_count() - 1;
	if (n_workers == 0 || n_workers > AIF_MAX_WORKERS) {
		fprintf(stderr, "need 1..%u worker lcores besides the main one (e.g. EAL -l 0-1)\n",
			AIF_MAX_WORKERS);
		goto out;
	}
	const struct aif_switch_params *sp = &cfg->switches[0];
	uint16_t max_mtu = 1500;
	for (uint16_t p = 0; p < sp->n_ports; p++)
		max_mtu = RTE_MAX(max_mtu, sp->ports[p].mtu);
	unsigned n_mbufs = sp->n_ports * (RX_DESC + TX_DESC + n_workers * 2 * AIF_BURST) +
			   (n_workers + 1) * POOL_CACHE * 2 + 1024;
	/* Packets held in the egress queues: as many as the shared buffer holds
	 * at 256 bytes each, up to 65536. */
	const struct aif_qos_params *qp = &cfg->policies[sp->policy].qos;
	if (qp->enable)
		n_mbufs += (unsigned)RTE_MIN(qp->buffer_bytes / 256, (uint64_t)65536);
	uint16_t room = RTE_MAX(RTE_MBUF_DEFAULT_BUF_SIZE,
				max_mtu + RTE_ETHER_HDR_LEN + 8 + RTE_PKTMBUF_HEADROOM);
	pool = rte_pktmbuf_pool_create("aif_pool", n_mbufs, POOL_CACHE, 0, room,
				       rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "cannot create mbuf pool: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	sw = aif_switch_create(sp->name, 0, (uint16_t)n_workers, pool);
	if (sw == NULL) {
		fprintf(stderr, "cannot create switch\n");
		goto out;
	}
	sw->n_ports = sp->n_ports;
	memset(&ctl, 0, sizeof(ctl));
	aif_ctl_add_switch(&ctl, sw);
	aif_clock_init_real(&ctl.clock);
	ctl.start_ns = aif_clock_now(&ctl.clock);
	ctl.capture_dir = o.capture_dir;
	ctl.config_dir = o.config_dir;
	for (uint16_t p = 0; p < sp->n_ports; p++)
		if (port_init(sw, &ctl, p, &sp->ports[p], pool, (uint16_t)n_workers,
			      qp->enable ? qp->pfc_enable : 0) != 0)
			goto out;

	/* Applied as a load is (the tables own cfg from here, or it is freed). */
	n = aif_ctl_apply_config(&ctl, cfg, err, sizeof(err));
	cfg = NULL;
	if (n != 0) {
		fprintf(stderr, "config %s: %s\n", o.config, err);
		goto out;
	}
	ctl.loads_ok++;

	unsigned lcore, w = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		struct aif_worker *wk = aif_worker_create(sw, (uint16_t)w, 0x5eed + w);
		if (wk == NULL) {
			fprintf(stderr, "cannot create worker %u\n", w);
			goto out;
		}
		runners[w] = wk;
		aif_worker_set_clock(wk, &ctl.clock);
		for (uint16_t p = 0; p < sw->n_ports; p++)
			if (w < sw->ports[p].n_rxq)
				aif_worker_add_rxq(wk, p, (uint16_t)w);
		w++;
	}

	if (strchr(o.socket, '/') != NULL) {
		char dir[512];
		snprintf(dir, sizeof(dir), "%s", o.socket);
		*strrchr(dir, '/') = '\0';
		if (dir[0] != '\0')
			mkdir(dir, 0770);
	}
	srv = aif_ctl_server_create(o.socket, aif_ctl_dispatch, &ctl, err, sizeof(err));
	if (srv == NULL) {
		fprintf(stderr, "control socket %s: %s\n", o.socket, err);
		goto out;
	}
	print_ports(&ctl);
	printf("control socket %s\n", o.socket);
	fflush(stdout);

	double t0 = mono_s();
	w = 0;
	RTE_LCORE_FOREACH_WORKER(lcore)
		rte_eal_remote_launch(worker_main, runners[w++], lcore);
	ran = true;

	aif_time_ns next_link = 0, next_age = 0;
	while (!stop_requested) {
		aif_ctl_server_poll(srv, 10);
		aif_time_ns now = aif_clock_now(&ctl.clock);
		aif_switch_learn(sw, now);
		if (now >= next_age) {
			aif_switch_age_neighbors(sw, now);
			next_age = now + AIF_NEIGH_AGE_NS;
		}
		aif_capture_poll(sw); /* packet copies to their files */
		if (now >= next_link) {
			poll_links(&ctl);
			next_link = now + LINK_POLL_NS;
		}
		if (o.duration_s > 0 && mono_s() - t0 >= o.duration_s)
			break;
	}
	__atomic_store_n(&workers_run, 0, __ATOMIC_RELAXED);
	rte_eal_mp_wait_lcore();
	double elapsed = mono_s() - t0;

	/* The workers are done, so worker 0's TX queue is free: release the
	 * peers the switch left paused (XON), before the ports stop. */
	struct aif_egress_stop_info stop = { 0 };
	if (sw->qos != NULL)
		aif_egress_shutdown(sw, sw->shards[0], sw->qos, aif_clock_now(&ctl.clock),
				    &stop);
	print_summary(sw, elapsed);
	for (uint16_t p = 0; p < sw->n_ports; p++) {
		struct aif_capture_info ci;
		if (aif_capture_get(sw, p, NULL) &&
		    aif_capture_stop(sw, p, &ci, err, sizeof(err)) == 0)
			printf("  capture %s: %" PRIu64 " packets written to %s, %" PRIu64
			       " skipped%s%s\n", sw->ports[p].name, ci.written, ci.path,
			       ci.skipped, ci.write_errno ? ", write error: " : "",
			       ci.write_errno ? strerror(ci.write_errno) : "");
	}
	if (stop.discarded)
		printf("  %u packets still in the egress queues at stop were discarded\n",
		       stop.discarded);
	if (stop.xon_frames || stop.xon_unsent)
		printf("  PFC XON at stop: %u frame(s) released %u paused priorit%s;"
		       " %u could not be sent (no mbuf, or the port refused it)\n",
		       stop.xon_frames, stop.xon_prios, stop.xon_prios == 1 ? "y" : "ies",
		       stop.xon_unsent);
	if (o.stats && write_stats(o.stats, sw, elapsed) != 0)
		goto out;
	ret = 0;
out:
	/* Every exit, start-up failures included: ports closed before the
	 * switch (its queues return their mbufs) and the pool are freed. */
	aif_ctl_server_destroy(srv);
	memset(pool_ports, 0, sizeof(pool_ports));
	sw_ports = sw != NULL ? sw->n_ports : 0;
	if (eal_up)
		close_ports(sw, &ctl, pool, pool_ports);
	for (unsigned i = 0; i < AIF_MAX_WORKERS; i++)
		aif_worker_free(runners[i]);
	if (sw != NULL)
		aif_capture_free(sw);
	aif_switch_free(sw);
	aif_config_free(ctl.cfg);
	if (pool != NULL) {
		unsigned in_use = rte_mempool_in_use_count(pool);
		char msg[768];
		if (ran) {
			if (aif_pool_check(in_use, pool->size, pool_ports,
					   sw_ports, msg, sizeof(msg)) == 0)
				in_use = 0; /* every one back, or kept by a driver */
			printf("%s\n", msg);
		} else if (in_use) /* e.g. net_pcap keeps a frame it refused */
			printf("mbufs: %u of %u still held by a driver after its port "
			       "was closed\n", in_use, pool->size);
		if (in_use && ret == 0)
			ret = 1;
		rte_mempool_free(pool);
	}
	aif_config_free(cfg);
	free(text);
	if (eal_up)
		rte_eal_cleanup();
	return ret;
}
