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
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pdump.h>

#include "../dataplane/capture.h"
#include "../dataplane/clock.h"
#include "../dataplane/egress.h"
#include "../dataplane/link.h"
#include "../dataplane/pcap_port.h"
#include "../dataplane/qos.h"
#include "../dataplane/switch.h"
#include "../dataplane/runner.h"
#include "../pipelines/lb_prog.h"
#include "base64.h"
#include "commands.h"
#include "config.h"
#include "ctl_server.h"
#include "fabric.h"
#include "monitors.h"
#include "pool_check.h"
#include "samples.h"
#include "summary.h"
#include "vtime.h"
#include "workload.h"

#define RX_DESC 1024
#define TX_DESC 1024
#define POOL_CACHE 256
#define LINK_POLL_NS (10 * AIF_NS_PER_MS)

static volatile sig_atomic_t stop_requested;
static volatile int workers_run = 1;
/* real time: how far the paced runners' emulated time is behind the clock */
static aif_time_ns pace_behind_ns;
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

#define MAX_PCAP_IN 1024

struct opts {
	const char *config;
	const char *socket;
	const char *stats;
	const char *capture_dir;
	const char *config_dir;
	double duration_s;
	bool vtime;                      /* --virtual-time */
	const char *pcap_out;            /* --pcap-out DIR (virtual time) */
	unsigned n_pcap_in;
	const char *pcap_in[MAX_PCAP_IN]; /* --pcap-in SWITCH:PORT=FILE */
	uint64_t seed;                   /* --seed: the runners' random sources */
	double traffic_load;             /* --traffic LOAD[:BYTES] */
	unsigned traffic_bytes;
	const char *samples;             /* --samples PREFIX (virtual time) */
	double sample_us;                /* --sample-us */
	unsigned n_link_ev;
	const char *link_ev[MAX_PCAP_IN]; /* --link NAME@SECONDS=ACTION */
	unsigned n_lb_ev;
	const char *lb_ev[MAX_PCAP_IN];   /* --lb SECONDS=load:FILE.o,... | unload:NAME */
	const char *jobs;                /* --jobs FILE: virtual hosts and their jobs */
	unsigned n_capture;
	const char *capture[MAX_PCAP_IN]; /* --capture SWITCH:PORT (virtual time) */
	const char *results;             /* --results DIR */
};

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void
usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [EAL args] -- --config FILE [--socket PATH] [--duration SECONDS]\n"
		"                [--stats FILE] [--capture-dir DIR] [--config-dir DIR] [--seed N]\n"
		"                [--jobs FILE [--results DIR]]\n"
		"       %s -- --config FILE --virtual-time [--pcap-in SWITCH:PORT=FILE ...]\n"
		"                [--pcap-out DIR] [--traffic LOAD[:BYTES]] [--samples PREFIX]\n"
		"                [--sample-us US] [--link ...] [--lb ...] [--jobs FILE [--results DIR]]\n"
		"                [--capture SWITCH:PORT ...] [--duration SECONDS] [--stats FILE]\n"
		"                [--seed N]\n"
		"EAL args are DPDK's (e.g. -l 0-1 --in-memory --vdev net_pcap0,rx_pcap=in.pcap);\n"
		"in virtual time they may be left out.  Ours come after \"--\":\n"
		"  --config FILE      topology and policy (JSON, see README)\n"
		"  --socket PATH      control socket (default %s)\n"
		"  --duration SECONDS stop by itself after this long\n"
		"  --stats FILE       write the final counters there as JSON\n"
		"  --capture-dir DIR  captures are files named in DIR, made 0750 if missing\n"
		"                     (default %s)\n"
		"  --config-dir DIR   load {\"path\": NAME} reads NAME in DIR (default: off)\n"
		"  --seed N           seed of the runners' random sources (default 0x5eed)\n"
		"  --virtual-time     run the fabric in virtual time, as fast as the CPU allows\n"
		"                     (one core, deterministic; --duration is virtual seconds;\n"
		"                     without it the run ends when the inputs are done and the\n"
		"                     fabric is empty; no control socket); edge ports are pcap\n"
		"                     files:\n"
		"  --pcap-in SWITCH:PORT=FILE  frames received on that edge port, at their\n"
		"                     timestamps (repeat for more ports)\n"
		"  --pcap-out DIR     every edge port writes what it sends to DIR/SWITCH-PORT.pcap\n"
		"                     (nanosecond virtual timestamps)\n"
		"  --traffic LOAD[:BYTES]  every edge port with a host and no --pcap-in sends\n"
		"                     RoCEv2 frames of BYTES (default 1024, valid ICRC) to the other hosts,\n"
		"                     Poisson at LOAD (0..1] of its rate, for --duration; the run\n"
		"                     ends when the fabric has drained\n"
		"  --samples PREFIX   every --sample-us (10) of virtual time, write each link\n"
		"                     direction's utilization and pauses to PREFIX-links.csv and\n"
		"                     every non-empty egress queue's bytes to PREFIX-queues.csv\n"
		"                     (PREFIX's directory is made if missing)\n"
		"  --sample-us US     the sampling period, 0.001..1000000 us (default 10)\n"
		"  --link NAME@SECONDS=ACTION  at that virtual time, link NAME (or the link with\n"
		"                     an end NAME, e.g. leaf0:u0) goes down, up, or gets\n"
		"                     loss:RATE or corrupt:RATE (repeat for more)\n"
		"  --lb SECONDS=load:FILE.o[,name=N][,tc=N|,group=G][,switch=S][,program=P]\n"
		"  --lb SECONDS=unload:NAME  at that virtual time, lb load or lb unload a\n"
		"                     load-balancing program, as aifabricctl does in real time\n"
		"  --jobs FILE        virtual RoCE hosts on every free host port, running the\n"
		"                     jobs of FILE (collectives, incast, Poisson flows; see\n"
		"                     README); the run ends when they are done\n"
		"  --results DIR      write jobs.csv, fct.txt, qps.csv and summary.json there\n"
		"  --capture SWITCH:PORT  capture that port both ways from the start (pcapng in\n"
		"                     --capture-dir, named SWITCH-PORT.pcapng; repeat for more)\n"
		"  --help             this text\n",
		prog, prog, AIF_CTL_DEFAULT_SOCKET, AIF_CTL_DEFAULT_CAPTURE_DIR);
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
		{ "virtual-time", no_argument, NULL, 'V' },
		{ "pcap-in", required_argument, NULL, 'I' },
		{ "pcap-out", required_argument, NULL, 'O' },
		{ "seed", required_argument, NULL, 'E' },
		{ "link", required_argument, NULL, 'L' },
		{ "lb", required_argument, NULL, 'B' },
		{ "traffic", required_argument, NULL, 'T' },
		{ "samples", required_argument, NULL, 'P' },
		{ "sample-us", required_argument, NULL, 'U' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "capture", required_argument, NULL, 'K' },
		{ "results", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;

	o->socket = AIF_CTL_DEFAULT_SOCKET;
	o->capture_dir = AIF_CTL_DEFAULT_CAPTURE_DIR;
	o->seed = 0x5eed;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case 's': o->socket = optarg; break;
		case 'S': o->stats = optarg; break;
		case 'C': o->capture_dir = optarg; break;
		case 'D': o->config_dir = optarg; break;
		case 'V': o->vtime = true; break;
		case 'O': o->pcap_out = optarg; break;
		case 'I':
			if (strchr(optarg, ':') == NULL || strchr(optarg, '=') == NULL) {
				fprintf(stderr, "--pcap-in '%s': expected SWITCH:PORT=FILE\n", optarg);
				return -1;
			}
			if (o->n_pcap_in == MAX_PCAP_IN) {
				fprintf(stderr, "--pcap-in: at most %u\n", MAX_PCAP_IN);
				return -1;
			}
			o->pcap_in[o->n_pcap_in++] = optarg;
			break;
		case 'P': o->samples = optarg; break;
		case 'J': o->jobs = optarg; break;
		case 'K':
			if (strchr(optarg, ':') == NULL || o->n_capture == MAX_PCAP_IN) {
				fprintf(stderr, "--capture '%s': SWITCH:PORT, at most %u\n", optarg,
					MAX_PCAP_IN);
				return -1;
			}
			o->capture[o->n_capture++] = optarg;
			break;
		case 'R': o->results = optarg; break;
		case 'U':
			o->sample_us = strtod(optarg, &end);
			if (*end != '\0' || !(o->sample_us >= 0.001) || o->sample_us > 1e6) {
				fprintf(stderr, "--sample-us '%s': a period of 0.001..1000000 us\n",
					optarg);
				return -1;
			}
			break;
		case 'T':
			o->traffic_load = strtod(optarg, &end);
			o->traffic_bytes = 1024;
			if (*end == ':')
				o->traffic_bytes = (unsigned)strtoul(end + 1, &end, 10);
			if (*end != '\0' || !(o->traffic_load > 0 && o->traffic_load <= 1) ||
			    o->traffic_bytes < 64 || o->traffic_bytes > 9000) {
				fprintf(stderr, "--traffic '%s': LOAD in (0, 1], BYTES 64..9000\n",
					optarg);
				return -1;
			}
			break;
		case 'L':
			if (strchr(optarg, '@') == NULL || strchr(strchr(optarg, '@'), '=') == NULL) {
				fprintf(stderr, "--link '%s': expected NAME@SECONDS=down|up|loss:RATE|"
					"corrupt:RATE\n", optarg);
				return -1;
			}
			if (o->n_link_ev == MAX_PCAP_IN) {
				fprintf(stderr, "--link: at most %u\n", MAX_PCAP_IN);
				return -1;
			}
			o->link_ev[o->n_link_ev++] = optarg;
			break;
		case 'B':
			if (o->n_lb_ev == MAX_PCAP_IN) {
				fprintf(stderr, "--lb: at most %u\n", MAX_PCAP_IN);
				return -1;
			}
			o->lb_ev[o->n_lb_ev++] = optarg;
			break;
		case 'E':
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno != 0 || *end != '\0' || optarg[0] == '-') {
				fprintf(stderr, "--seed: '%s' is not a number\n", optarg);
				return -1;
			}
			break;
		case 'd':
			o->duration_s = strtod(optarg, &end);
			if (*end != '\0' || o->duration_s <= 0) {
				fprintf(stderr, "--duration: '%s' is not a positive number\n", optarg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 1;
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (o->config == NULL) {
		fprintf(stderr, "--config FILE is required (--help: the options)\n");
		usage(stderr, argv[0]);
		return -1;
	}
	if (!o->vtime && (o->n_pcap_in > 0 || o->pcap_out != NULL)) {
		fprintf(stderr, "--pcap-in and --pcap-out are for --virtual-time; in real time "
			"an edge port reads a pcap through its DPDK device (--vdev "
			"net_pcap0,rx_pcap=FILE)\n");
		return -1;
	}
	if (o->samples != NULL && !o->vtime) {
		fprintf(stderr, "--samples is for --virtual-time (in real time: aifabricctl "
			"show links and show queues)\n");
		return -1;
	}
	if (o->n_capture > 0 && !o->vtime) {
		fprintf(stderr, "--capture is for --virtual-time; in real time: aifabricctl "
			"capture start PORT\n");
		return -1;
	}
	if (o->results != NULL && o->jobs == NULL) {
		fprintf(stderr, "--results needs --jobs\n");
		return -1;
	}
	if (o->traffic_load > 0 && (!o->vtime || o->duration_s <= 0)) {
		fprintf(stderr, "--traffic needs --virtual-time and --duration\n");
		return -1;
	}
	if (!o->vtime && o->n_lb_ev > 0) {
		fprintf(stderr, "--lb is for --virtual-time; in real time: aifabricctl lb load "
			"FILE.o | lb unload NAME\n");
		return -1;
	}
	if (!o->vtime && o->n_link_ev > 0) {
		fprintf(stderr, "--link is for --virtual-time; in real time: aifabricctl link "
			"NAME down|up|loss=RATE\n");
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
 * 0, -1 with a message, or 1 when --help printed the usage (before or
 * after the "--": "aifabric --help" is how one asks).
 */
static int
parse_app_opts(int argc, char **argv, struct opts *o)
{
	int first = 1, rc;
	char **av;

	while (first < argc && strcmp(argv[first], "--") != 0) {
		if (strcmp(argv[first], "--help") == 0 || strcmp(argv[first], "-h") == 0) {
			usage(stdout, "aifabric");
			return 1;
		}
		first++;
	}
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

/* Port p of switch swi on its DPDK device, with n_workers RX (RSS) and TX
 * queues; what the report says of it goes to pinfo[p]. */
static int
port_init(struct aif_switch *sw, unsigned swi, struct aif_port_info *pinfo, uint16_t p,
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
	port->n_rxq = RTE_MIN(n_workers, info.max_rx_queues);
	port->n_txq = n_workers;
	if (info.max_tx_queues < n_workers) {
		fprintf(stderr, "$.switches[%u].ports[%u] (port %s, device %s): %u TX queues, "
			"%u workers need one each (fewer lcores in EAL -l)\n", swi, p, pp->name,
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

static bool
is_link(const struct aif_port *p)
{
	return p->base == &aif_port_link_ops;
}

/*
 * Stop the DPDK ports that started and close every port EAL made, set up
 * or not, before the mbuf pool is freed: a driver may hold mbufs from the
 * pool or state that points into it (a net_pcap infinite_rx queue loads its
 * whole file into mbufs) and releases them when closed.  Left to
 * rte_eal_cleanup, that would happen after the pool is gone.  What each
 * driver gave back goes to pp[*n_pp].
 */
static void
close_ports(const struct aif_ctl *ctl, const struct rte_mempool *pool,
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

/* The start-up report of a single switch: every port and who owns the QoS
 * state. */
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
		const struct aif_port_info *pi = &ctl->pinfo[0][p];
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

/*
 * Mean number of switches a packet crosses between two edge switches
 * (those with edge ports), over all ordered pairs, the same switch counted
 * once: breadth first over the config's links.
 */
static double
mean_path_switches(const struct aif_config *cfg, const bool *edge)
{
	uint16_t n = cfg->n_switches, *dist = malloc(n * sizeof(*dist)), *q = malloc(n * sizeof(*q));
	double sum = 0;
	uint64_t pairs = 0;

	for (uint16_t a = 0; dist != NULL && q != NULL && a < n; a++) {
		if (!edge[a])
			continue;
		for (uint16_t i = 0; i < n; i++)
			dist[i] = UINT16_MAX;
		unsigned head = 0, tail = 0;
		dist[a] = 1;
		q[tail++] = a;
		while (head < tail) {
			uint16_t u = q[head++];
			for (uint32_t k = 0; k < cfg->n_links; k++) {
				const struct aif_topo_link *l = &cfg->links[k];
				uint16_t v = l->a_switch == u ? l->b_switch
					   : l->b_switch == u ? l->a_switch : UINT16_MAX;
				if (v != UINT16_MAX && dist[v] == UINT16_MAX) {
					dist[v] = (uint16_t)(dist[u] + 1);
					q[tail++] = v;
				}
			}
		}
		for (uint16_t b = 0; b < n; b++)
			if (edge[b] && dist[b] != UINT16_MAX) {
				sum += dist[b];
				pairs++;
			}
	}
	free(dist);
	free(q);
	return pairs ? sum / (double)pairs : 1.0;
}

/*
 * The start-up report of a fabric: its size, the edge ports and what they
 * are bound to, which runner drives which switches, and whether the
 * fabric fits the cores: the packet rate its edge ports offer at line rate
 * (1500-byte frames) times the mean path, against what one runner carries
 * here (AIF_RUNNER_HOPS_PER_S, measured by scripts/bench).
 */
#define AIF_RUNNER_HOPS_PER_S 8e6 /* scripts/bench, real time: 7.2..9.0 M on this class of machine */
#define REPORT_FRAME_BYTES 1514

static void
print_fabric(const struct aif_ctl *ctl, const struct aif_config *cfg,
	     const uint16_t *runner_of, unsigned n_run, bool vtime)
{
	bool *edge = calloc(cfg->n_switches, sizeof(*edge));
	double offered_pps = 0;
	unsigned n_edge = 0, n_dpdk = 0;

	printf("fabric: %u switches, %u links, %u hosts; %s\n", ctl->n_sw, ctl->n_links,
	       cfg->n_hosts, vtime ? "virtual time (one core, deterministic)" : "real time");
	for (uint16_t s = 0; s < ctl->n_sw; s++) {
		const struct aif_switch *sw = ctl->sws[s];
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			const struct aif_port *port = &sw->ports[p];
			if (is_link(port))
				continue;
			if (edge != NULL)
				edge[s] = true;
			n_edge++;
			if (is_dpdk(port)) {
				n_dpdk++;
				offered_pps += (double)port->speed_mbps * 1e6 /
					       ((REPORT_FRAME_BYTES + AIF_LINK_WIRE_OVERHEAD_BYTES) * 8.0);
				printf("  edge %s:%s  %s (driver %s, %u Mb/s, link %s)\n", sw->name,
				       port->name, cfg->switches[s].ports[p].device,
				       ctl->pinfo[s] ? ctl->pinfo[s][p].driver : "-", port->speed_mbps,
				       port->link_up ? "up" : "down");
			} else if (port->base != &aif_port_detached_ops) {
				if (port->base == &aif_port_rhost_ops) {
					/* a virtual host: its data and an ACK per packet */
					n_dpdk++;
					offered_pps += 2 * (double)port->speed_mbps * 1e6 /
						       ((REPORT_FRAME_BYTES + AIF_LINK_WIRE_OVERHEAD_BYTES) * 8.0);
				}
				if (n_edge <= 16)
					printf("  edge %s:%s  %s, %u Mb/s\n", sw->name, port->name,
					       port->base->kind, port->speed_mbps);
			}
		}
	}
	if (n_edge > 16 && n_dpdk < n_edge)
		printf("  ... %u edge ports in all\n", n_edge);
	if (!vtime) {
		double hops = mean_path_switches(cfg, edge);
		double need = offered_pps * hops;
		unsigned lcore = rte_get_next_lcore(-1, 1, 0);
		for (unsigned r = 0; r < n_run; r++) {
			unsigned k = 0;
			printf("  runner %u (lcore %u):", r, lcore);
			for (uint16_t s = 0; s < ctl->n_sw; s++)
				if (runner_of[s] == r && k++ < 12)
					printf(" %s", ctl->sws[s]->name);
			printf(k > 12 ? " ... (%u switches)\n" : "\n", k);
			lcore = rte_get_next_lcore(lcore, 1, 0);
		}
		printf("  load: %u edge ports (DPDK, virtual hosts with their ACKs) at line rate with "
		       "%u-byte frames offer %.2f Mpps;"
		       " a packet crosses %.2f switches on average: %.1f M packet-hops/s, against"
		       " about %.0f M per runner here x %u runner%s: %s\n",
		       n_dpdk, REPORT_FRAME_BYTES, offered_pps / 1e6, hops, need / 1e6,
		       AIF_RUNNER_HOPS_PER_S / 1e6, n_run, n_run == 1 ? "" : "s",
		       need <= AIF_RUNNER_HOPS_PER_S * n_run ? "fits"
		       : "does not fit at line rate: fewer or slower edge ports, smaller "
			 "frames' share, or more lcores (EAL -l)");
	}
	free(edge);
	fflush(stdout);
}

/* The runners' pacing over the run: the lag, late steps, the worst. */
static void
pace_sum(struct aif_runner *const *runners, unsigned n_run, uint64_t *steps, uint64_t *late,
	 aif_time_ns *late_max)
{
	*steps = *late = 0;
	*late_max = 0;
	for (unsigned r = 0; r < n_run; r++) {
		*steps += runners[r]->steps;
		*late += runners[r]->pace.late_steps;
		*late_max = RTE_MAX(*late_max, runners[r]->pace.late_max_ns);
	}
}

static json_t *
pace_json(struct aif_runner *const *runners, unsigned n_run, aif_time_ns quantum)
{
	uint64_t steps, late;
	aif_time_ns late_max;

	pace_sum(runners, n_run, &steps, &late, &late_max);
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "quantum_ns", (json_int_t)quantum,
			 "behind_ns", (json_int_t)__atomic_load_n(&pace_behind_ns, __ATOMIC_RELAXED),
			 "steps", (json_int_t)steps, "late_steps", (json_int_t)late,
			 "late_max_ns", (json_int_t)late_max);
}

/* "fell behind real time by X ms (Y% of the run)", and why. */
static void
print_pace(struct aif_runner *const *runners, unsigned n_run, aif_time_ns quantum,
	   double elapsed_s)
{
	uint64_t steps, late;
	aif_time_ns late_max;
	double behind_ms = (double)__atomic_load_n(&pace_behind_ns, __ATOMIC_RELAXED) / 1e6;

	pace_sum(runners, n_run, &steps, &late, &late_max);
	printf("  real time: the emulation fell behind real time by %.1f ms (%.1f%% of the run): "
	       "%" PRIu64 " of %" PRIu64 " steps came more than %" PRIu64 " ns after the one "
	       "before (the most by %.3f ms more); it ran that much slower instead of "
	       "catching up\n", behind_ms, elapsed_s > 0 ? behind_ms / 10.0 / elapsed_s : 0.0,
	       late, steps, (uint64_t)quantum, (double)late_max / 1e6);
}

static int
worker_main(void *arg)
{
	struct aif_runner *w = arg;

	/* control's clock: one time base for the runners and control */
	while (__atomic_load_n(&workers_run, __ATOMIC_RELAXED))
		aif_runner_step(w, aif_clock_now(w->clock));
	return 0;
}

/* Read every DPDK port's link; on a change, count it and rebuild the
 * tables so group members follow their links. */
static void
poll_links(struct aif_ctl *c)
{
	struct rte_eth_link link;
	bool changed = false;
	char err[AIF_ERR_MAX];

	for (uint16_t s = 0; s < c->n_sw; s++) {
		struct aif_switch *sw = c->sws[s];
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			struct aif_port *port = &sw->ports[p];
			if (!is_dpdk(port) ||
			    rte_eth_link_get_nowait(port->dpdk_port, &link) != 0 ||
			    link.link_status == port->link_up)
				continue;
			aif_port_set_link_up(port, link.link_status != 0);
			port->link_changes++;
			changed = true;
			printf("%s%s%s: link %s\n", c->n_sw > 1 ? sw->name : "",
			       c->n_sw > 1 ? ":" : "port ", port->name,
			       link.link_status ? "up" : "down");
		}
	}
	if (changed && aif_ctl_links_changed(c, err, sizeof(err)) != 0)
		fprintf(stderr, "rebuilding the tables after a link change failed: %s\n", err);
}

static json_int_t
jint(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/*
 * A fabric's summary, as JSON (the --stats file) and as tables: per switch
 * (packets in and out, drops, PFC sent, and the load-balancing programs
 * running on it as show lb gives them: runs, fallbacks, their counters),
 * per link direction (packets, bytes, utilization, pauses), drops
 * fabric-wide by reason.
 */
static json_t *
fabric_json(const struct aif_ctl *c, aif_time_ns now_ns)
{
	json_t *sws = json_array();

	for (uint16_t s = 0; s < c->n_sw; s++) {
		json_t *cj = aif_ctl_counters_json(c->sws[s]);
		json_object_set_new(cj, "switch", json_string(c->sws[s]->name));
		json_t *lb = aif_ctl_show_lb((struct aif_ctl *)c, c->sws[s]);
		json_t *progs = json_object_get(lb, "programs");
		if (json_array_size(progs) > 0)
			json_object_set(cj, "lb_programs", progs);
		json_decref(lb);
		json_array_append_new(sws, cj);
	}
	return json_pack("{s:o, s:o}", "switches", sws, "links",
			 aif_ctl_links_json(c, NULL, now_ns));
}

static int
write_json(const char *path, json_t *j)
{
	int rc = json_dump_file(j, path, JSON_INDENT(2) | JSON_SORT_KEYS);
	if (rc != 0)
		fprintf(stderr, "cannot write stats to %s\n", path);
	return rc;
}

static int
write_stats(const char *path, const struct aif_switch *sw, double elapsed_s)
{
	json_t *c = aif_ctl_counters_json(sw);
	json_object_set_new(c, "elapsed_s", json_real(elapsed_s));
	json_object_set_new(c, "workers", json_integer(sw->n_shards));
	int rc = write_json(path, c);
	json_decref(c);
	return rc;
}

static double
mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The hugepage memory DPDK's heaps hold, kB (not in VmHWM). */
static long
hugepage_heap_kb(void)
{
	uint64_t bytes = 0;

	if (!rte_eal_has_hugepages())
		return 0; /* 4 KiB pages: counted in the resident set */
	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++) {
		struct rte_malloc_socket_stats st;
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			bytes += st.heap_totalsz_bytes;
	}
	return (long)(bytes / 1024);
}

/* The process's peak memory, kB: its peak resident set (VmHWM) plus the
 * hugepages its heaps hold now (heaps do not shrink during a run); -1 if
 * unknown. */
static long
peak_rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	if (f != NULL)
		fclose(f);
	return kb < 0 ? kb : kb + hugepage_heap_kb();
}

/* ---- virtual time: pcap edge ports ---- */

struct edges {
	unsigned n;
	struct aif_pcap_port *pp[AIF_MAX_SWITCHES * 8];
	char name[AIF_MAX_SWITCHES * 8][2 * AIF_NAME_MAX + 2];
	const char *in[AIF_MAX_SWITCHES * 8];
	struct rte_mempool *pool;
};

/* Which --pcap-in names switch s port p (NULL: none); -1 if one names no
 * edge port. */
static int
pcap_in_check(const struct opts *o, const struct aif_config *cfg, const struct aif_fabric *f)
{
	for (unsigned i = 0; i < o->n_pcap_in; i++) {
		const char *a = o->pcap_in[i], *colon = strchr(a, ':'), *eq = strchr(a, '=');
		bool found = false;
		if (eq < colon) {
			fprintf(stderr, "--pcap-in '%s': expected SWITCH:PORT=FILE\n", a);
			return -1;
		}
		for (uint16_t s = 0; s < cfg->n_switches && !found; s++) {
			if (strlen(cfg->switches[s].name) != (size_t)(colon - a) ||
			    strncmp(cfg->switches[s].name, a, (size_t)(colon - a)) != 0)
				continue;
			for (uint16_t p = 0; p < cfg->switches[s].n_ports && !found; p++) {
				const char *pn = cfg->switches[s].ports[p].name;
				if (strlen(pn) != (size_t)(eq - colon - 1) ||
				    strncmp(pn, colon + 1, (size_t)(eq - colon - 1)) != 0)
					continue;
				if (is_link(&f->sw[s]->ports[p])) {
					fprintf(stderr, "--pcap-in '%s': %s:%s is a fabric link's end, "
						"not an edge port\n", a, cfg->switches[s].name, pn);
					return -1;
				}
				found = true;
			}
			if (!found) {
				fprintf(stderr, "--pcap-in '%s': switch %s has no port '%.*s'\n", a,
					cfg->switches[s].name, (int)(eq - colon - 1), colon + 1);
				return -1;
			}
		}
		if (!found) {
			fprintf(stderr, "--pcap-in '%s': no switch '%.*s'\n", a, (int)(colon - a), a);
			return -1;
		}
	}
	return 0;
}

static const char *
pcap_in_of(const struct opts *o, const char *sw, const char *port)
{
	for (unsigned i = 0; i < o->n_pcap_in; i++) {
		const char *a = o->pcap_in[i], *colon = strchr(a, ':'), *eq = strchr(a, '=');
		if (strlen(sw) == (size_t)(colon - a) && strncmp(sw, a, (size_t)(colon - a)) == 0 &&
		    strlen(port) == (size_t)(eq - colon - 1) &&
		    strncmp(port, colon + 1, (size_t)(eq - colon - 1)) == 0)
			return eq + 1;
	}
	return NULL;
}

static uint32_t
ip4_of(const struct aif_ip *ip)
{
	return (uint32_t)ip->b[0] << 24 | (uint32_t)ip->b[1] << 16 | (uint32_t)ip->b[2] << 8 |
	       ip->b[3];
}

/* Every port of the fabric that is not a link end becomes a pcap port. */
static int
bind_pcap_edges(const struct opts *o, const struct aif_config *cfg, struct aif_fabric *f,
		struct edges *e, struct rte_mempool *pool)
{
	char err[AIF_ERR_MAX], out[PATH_MAX];

	e->pool = pool;
	for (uint16_t s = 0; s < f->n_sw; s++) {
		struct aif_switch *sw = f->sw[s];
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			struct aif_port *port = &sw->ports[p];
			if (is_link(port) || port->base != &aif_port_detached_ops ||
			    e->n == RTE_DIM(e->pp))
				continue; /* a link end, or a virtual host */
			const char *in = pcap_in_of(o, sw->name, port->name);
			/* the host on this port, for --traffic: to every other host
			 * (those with a MAC: a pcap file answers no ARP) */
			const struct aif_host_params *host = NULL;
			for (uint32_t h = 0; h < cfg->n_hosts && host == NULL; h++)
				if (cfg->hosts[h].sw == s && cfg->hosts[h].port == p &&
				    cfg->hosts[h].ip.family == AIF_AF_INET4 &&
				    !cfg->hosts[h].learned)
					host = &cfg->hosts[h];
			struct aif_pcap_gen gen;
			uint32_t *dst = NULL;
			if (in == NULL && host != NULL && o->traffic_load > 0) {
				gen = (struct aif_pcap_gen){
					.load = o->traffic_load, .frame_len = (uint16_t)o->traffic_bytes,
					.dscp = 26, .n_flows = 64, .seed = o->seed + e->n + 1,
					.stop_ns = (aif_time_ns)(o->duration_s * 1e9 + 0.5),
					.src_mac = host->mac, .dst_mac = cfg->switches[s].ports[p].mac,
					.src_ip = ip4_of(&host->ip),
				};
				dst = calloc(cfg->n_hosts + 1, sizeof(*dst));
				for (uint32_t h = 0; dst != NULL && h < cfg->n_hosts; h++)
					if (cfg->hosts[h].ip.family == AIF_AF_INET4 &&
					    !cfg->hosts[h].learned &&
					    ip4_of(&cfg->hosts[h].ip) != gen.src_ip)
						dst[gen.n_dst++] = ip4_of(&cfg->hosts[h].ip);
				gen.dst_ip = dst;
			}
			if (o->pcap_out != NULL)
				snprintf(out, sizeof(out), "%s/%s-%s.pcap", o->pcap_out, sw->name,
					 port->name);
			struct aif_pcap_port_params pp = {
				.in_path = in, .out_path = o->pcap_out != NULL ? out : NULL,
				.rate_bps = (uint64_t)(port->speed_mbps ? port->speed_mbps : 100000) *
					    1000000,
				.gen = dst != NULL && gen.n_dst > 0 ? &gen : NULL,
			};
			/* the host sends on the priorities the switch pauses by: its
			 * policy's class maps, through tc_to_pg */
			const struct aif_policy_params *pol = &cfg->policies[cfg->switches[s].policy];
			pp.trust_pcp = pol->trust == AIF_TRUST_PCP;
			for (unsigned d = 0; d < 64; d++)
				pp.prio_of_dscp[d] = pol->qos.tc_to_pg[pol->dscp_to_tc[d] & 7];
			for (unsigned c = 0; c < 8; c++)
				pp.prio_of_pcp[c] = pol->qos.tc_to_pg[pol->pcp_to_tc[c] & 7];
			e->pp[e->n] = aif_pcap_port_open(&pp, pool, err, sizeof(err));
			free(dst);
			if (e->pp[e->n] == NULL) {
				fprintf(stderr, "edge port %s:%s: %s\n", sw->name, port->name, err);
				return -1;
			}
			snprintf(e->name[e->n], sizeof(e->name[0]), "%s:%s", sw->name, port->name);
			e->in[e->n] = in;
			aif_pcap_port_attach(e->pp[e->n++], port);
		}
	}
	return 0;
}

/* --link NAME@SECONDS=ACTION into actions sorted by time (stable); -1
 * with a message on a bad one. */
static int
link_events(const struct opts *o, const struct aif_ctl *ctl, struct aif_vtime_action *acts)
{
	for (unsigned i = 0; i < o->n_link_ev; i++) {
		const char *a = o->link_ev[i], *at = strrchr(a, '@'), *eq = strchr(at, '=');
		char name[2 * AIF_NAME_MAX + 4], *end;
		struct aif_vtime_action *x = &acts[i];

		snprintf(name, sizeof(name), "%.*s", (int)(at - a), a);
		int k = aif_ctl_find_link(ctl, name);
		if (k < 0) {
			fprintf(stderr, "--link '%s': no emulated link '%s' (a link's name, e.g. "
				"%s, or one of its ends)\n", a, name,
				ctl->n_links ? ctl->links[0]->name : "none in this config");
			return -1;
		}
		double t = strtod(at + 1, &end);
		if (end != eq || !(t >= 0) || t > 1e6) {
			fprintf(stderr, "--link '%s': '%.*s' is not a time in seconds\n", a,
				(int)(eq - at - 1), at + 1);
			return -1;
		}
		*x = (struct aif_vtime_action){ .at_ns = (aif_time_ns)(t * 1e9 + 0.5),
						.link = (uint32_t)k, .up = -1, .loss_rate = -1,
						.corrupt_rate = -1 };
		const char *act = eq + 1;
		double r = 0;
		if (strcmp(act, "down") == 0 || strcmp(act, "up") == 0)
			x->up = act[0] == 'u';
		else if ((strncmp(act, "loss:", 5) == 0 || strncmp(act, "corrupt:", 8) == 0) &&
			 (r = strtod(strchr(act, ':') + 1, &end), *end == '\0') && r >= 0 && r <= 1)
			*(act[0] == 'l' ? &x->loss_rate : &x->corrupt_rate) = r;
		else {
			fprintf(stderr, "--link '%s': action '%s' is not down, up, loss:RATE or "
				"corrupt:RATE (RATE 0..1)\n", a, act);
			return -1;
		}
	}
	return 0;
}

/*
 * --lb SECONDS=load:FILE.o[,name=N][,tc=N|,group=G][,switch=S][,program=P]
 * and --lb SECONDS=unload:NAME into request actions after the n links ones;
 * the object is read and checked now (a bad one stops the run before it
 * starts).  Then all of them sorted by time (stable).  -1 with a message.
 */
static int
lb_events(const struct opts *o, struct aif_vtime_action *acts, unsigned n)
{
	for (unsigned i = 0; i < o->n_lb_ev; i++) {
		const char *a = o->lb_ev[i], *eq = strchr(a, '=');
		struct aif_vtime_action *x = &acts[n + i];
		char *end = NULL;
		double t = eq != NULL ? strtod(a, &end) : -1;
		if (eq == NULL || end != eq || !(t >= 0) || t > 1e6) {
			fprintf(stderr, "--lb '%s': expected SECONDS=load:FILE.o[,...] or "
				"SECONDS=unload:NAME\n", a);
			return -1;
		}
		json_t *req = NULL;
		if (strncmp(eq + 1, "unload:", 7) == 0 && eq[8] != '\0') {
			req = json_pack("{s:s, s:s}", "cmd", "lb_unload", "name", eq + 8);
		} else if (strncmp(eq + 1, "load:", 5) == 0) {
			char spec[PATH_MAX], err[512], *save = NULL;
			snprintf(spec, sizeof(spec), "%s", eq + 6);
			char *file = strtok_r(spec, ",", &save);
			req = json_pack("{s:s}", "cmd", "lb_load");
			const char *prog = NULL;
			for (char *kv = strtok_r(NULL, ",", &save); kv != NULL;
			     kv = strtok_r(NULL, ",", &save)) {
				char *v = strchr(kv, '=');
				if (v == NULL) {
					fprintf(stderr, "--lb '%s': '%s' is not KEY=VALUE\n", a, kv);
					json_decref(req);
					return -1;
				}
				*v++ = '\0';
				if (strcmp(kv, "tc") == 0) {
					char *e2;
					long tc = strtol(v, &e2, 10);
					if (*v == '\0' || *e2 != '\0' || tc < 0 || tc > 7) {
						fprintf(stderr, "--lb '%s': tc=%s is not a traffic "
							"class 0..7\n", a, v);
						json_decref(req);
						return -1;
					}
					json_object_set_new(req, "tc", json_integer(tc));
				} else if (strcmp(kv, "name") == 0 || strcmp(kv, "group") == 0 ||
					   strcmp(kv, "switch") == 0 || strcmp(kv, "program") == 0) {
					json_object_set_new(req, kv, json_string(v));
					if (kv[0] == 'p')
						prog = json_string_value(json_object_get(req, "program"));
				} else {
					fprintf(stderr, "--lb '%s': unknown key '%s' (name, tc, group, "
						"switch, program)\n", a, kv);
					json_decref(req);
					return -1;
				}
			}
			struct aif_lb_prog *p = file != NULL ?
				aif_lb_prog_load_file(file, prog, 0, err, sizeof(err)) : NULL;
			if (p == NULL) {
				fprintf(stderr, "--lb '%s': %s\n", a, file != NULL ? err : "no FILE.o");
				json_decref(req);
				return -1;
			}
			aif_lb_prog_free(p);
			size_t len = 0;
			char text_err[256];
			char *bytes = aif_config_read_file(file, &len, text_err, sizeof(text_err));
			char *b64 = bytes != NULL ? aif_base64_encode((const uint8_t *)bytes, len) : NULL;
			if (b64 == NULL) {
				fprintf(stderr, "--lb '%s': %s\n", a, bytes == NULL ? text_err :
					"out of memory");
				free(bytes);
				json_decref(req);
				return -1;
			}
			const char *base = strrchr(file, '/');
			json_object_set_new(req, "file", json_string(base != NULL ? base + 1 : file));
			json_object_set_new(req, "object", json_string(b64 != NULL ? b64 : ""));
			free(bytes);
			free(b64);
		} else {
			fprintf(stderr, "--lb '%s': expected load:FILE.o[,...] or unload:NAME after "
				"'='\n", a);
			return -1;
		}
		*x = (struct aif_vtime_action){ .at_ns = (aif_time_ns)(t * 1e9 + 0.5),
						.request = json_dumps(req, JSON_COMPACT) };
		json_decref(req);
		if (x->request == NULL) {
			fprintf(stderr, "--lb: out of memory\n");
			return -1;
		}
	}
	/* insertion sort: stable, few */
	for (unsigned i = 1; i < n + o->n_lb_ev; i++)
		for (unsigned j = i; j > 0 && acts[j - 1].at_ns > acts[j].at_ns; j--) {
			struct aif_vtime_action t = acts[j];
			acts[j] = acts[j - 1];
			acts[j - 1] = t;
		}
	return 0;
}

/* What runs at fixed virtual times besides the switches: --samples and
 * the monitors of --results (pfc.txt, qlen.txt); each keeps its own period
 * on the loop's grid. */
struct ticks {
	struct aif_samples *sm;
	struct aif_monitors *mon;
};

static void
tick(aif_time_ns t, void *arg)
{
	struct ticks *k = arg;

	if (k->mon != NULL)
		aif_monitors_sample(k->mon, t);
	if (k->sm != NULL)
		aif_samples_take(k->sm, t);
}

static aif_time_ns
gcd_ns(aif_time_ns a, aif_time_ns b)
{
	while (b != 0) {
		aif_time_ns r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* Nothing more will come: every input read and no packet anywhere (every
 * mbuf back in the pool). */
static int
edges_idle(void *arg)
{
	const struct edges *e = arg;

	for (unsigned i = 0; i < e->n; i++)
		if (!aif_pcap_port_rx_done(e->pp[i]))
			return 0;
	return rte_mempool_in_use_count(e->pool) == 0;
}

/* The jobs' results: a table, the files of --results, "workload" in fj
 * (NULL: not kept); 0, or -1 if the files could not be written. */
static int
workload_report(struct aif_workload *wl, const struct aif_ctl *ctl,
		const struct aif_config *cfg, const struct opts *o, json_t *fj)
{
	char err[AIF_ERR_MAX];
	json_t *wj = aif_workload_json(wl, ctl, cfg);

	if (!aif_workload_idle(wl)) {
		printf("  the jobs did not finish by the end of the run:\n");
		aif_jobs_print_pending(wl->js, stdout);
	}
	aif_workload_print(wj);
	if (o->results != NULL) {
		if (aif_workload_write(wl, cfg, wj, o->results, err, sizeof(err)) != 0) {
			fprintf(stderr, "--results %s\n", err);
			json_decref(wj);
			return -1;
		}
		printf("  results: %s/jobs.csv, fct.txt, qps.csv, summary.json%s%s\n", o->results,
		       wl->mon != NULL && wl->mon_params.pfc ? ", pfc.txt" : "",
		       wl->mon != NULL && wl->mon_params.qlen ? ", qlen.txt" : "");
	}
	if (fj != NULL)
		json_object_set_new(fj, "workload", wj);
	else
		json_decref(wj);
	return 0;
}

/* --jobs: the ports given --pcap-in stay pcap ports. */
static int
pcap_in_port(uint16_t s, uint16_t p, void *arg)
{
	const struct opts *o = ((void **)arg)[0];
	const struct aif_fabric *f = ((void **)arg)[1];

	return pcap_in_of(o, f->sw[s]->name, f->sw[s]->ports[p].name) != NULL;
}

struct run_inputs {
	struct edges *edges;
	struct aif_workload *wl; /* NULL: no jobs */
};

/* The edge ports' inputs are done, the jobs too, and nothing is in flight. */
static int
inputs_idle(void *arg)
{
	const struct run_inputs *in = arg;

	if (!edges_idle(in->edges))
		return 0;
	/* unfinished jobs on hosts with nothing left to do, an empty fabric:
	 * nothing will ever happen again (said at the end) */
	return in->wl == NULL || aif_workload_idle(in->wl) || aif_workload_stuck(in->wl);
}

static json_t *
edges_json(const struct edges *e)
{
	json_t *arr = json_array();

	for (unsigned i = 0; i < e->n; i++) {
		const struct aif_pcap_port_ctr *c = aif_pcap_port_ctr(e->pp[i]);
		json_t *o = json_pack("{s:s}", "port", e->name[i]);
#define PCAP_CTR_JSON(name, text) json_object_set_new(o, #name, json_integer((json_int_t)c->name));
		AIF_FOREACH_PCAP_PORT_CTR(PCAP_CTR_JSON)
#undef PCAP_CTR_JSON
		json_array_append_new(arr, o);
	}
	return arr;
}

struct progress {
	double t0, last;
};

static void
vtime_progress(const struct aif_vtime *v, void *arg)
{
	struct progress *pr = arg;
	double now = mono_s();

	if (now - pr->last < 1.0)
		return;
	pr->last = now;
	fprintf(stderr, "  virtual %.3f ms, %" PRIu64 " events, %" PRIu64 " packet-hops, "
		"%.1f s\n", (double)v->now_ns / 1e6, v->steps, v->packets, now - pr->t0);
}

/*
 * mkdir -p: dir and each missing directory above it (mode 0755), for the
 * run's outputs (--pcap-out, --results, the directory of --samples PREFIX
 * and of --stats FILE), made before the run so that a path that cannot be
 * made stops it at once.  0, or -1 with a message naming the option.
 */
static int
make_dirs(const char *opt, const char *dir)
{
	char buf[PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf)) {
		fprintf(stderr, "%s: '%s' is not a usable directory\n", opt, dir);
		return -1;
	}
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char was = *p;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "%s: cannot create directory %s: %s\n", opt, buf,
				strerror(errno));
			return -1;
		}
		*p = was;
		if (was == '\0')
			return 0;
	}
}

/* The directory part of a --samples PREFIX or --stats FILE made (none: the
 * working one). */
static int
make_prefix_dir(const char *opt, const char *prefix)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(prefix, '/');

	if (slash == NULL || slash == prefix)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - prefix), prefix);
	return make_dirs(opt, dir);
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

/*
 * Default EAL arguments for a virtual-time run given none: no devices, one
 * lcore, nothing left behind; hugepages (--in-memory: no file is kept) when
 * at least 1 GiB of 2 MiB pages is free, else 4 KiB pages (--no-huge).  The
 * mbuf pool and tables are touched once at start-up: on 4 KiB pages that is
 * some 100,000 page faults, 2.5 s of a 128-host run's 5 s on this class of
 * machine, against 0.3 s on hugepages.
 */
static char **
vtime_eal_args(int argc, char **argv, int *eal_argc, char *prefix, size_t prefix_len)
{
	static char *huge[] = { "--in-memory" }; /* on demand, no -m */
	static char *small[] = { "--no-huge", "-m", "4096" };
	static char *rest[] = { "--no-pci", "--no-shconf", "--no-telemetry", "-l", "0",
				"--log-level", "error", "--file-prefix" };
	bool use_huge = free_hugepages_2m() >= 512;
	char **mem = use_huge ? huge : small;
	size_t n_mem = use_huge ? RTE_DIM(huge) : RTE_DIM(small), k = 0;
	char **av = calloc(1 + n_mem + RTE_DIM(rest) + 1 + (size_t)argc, sizeof(*av));

	if (av == NULL)
		return NULL;
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
main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct aif_config *cfg = NULL;
	static struct aif_ctl ctl;
	static struct aif_fabric fab;
	static struct edges edges;
	static struct aif_workload wl;
	static uint16_t runner_of[AIF_MAX_SWITCHES];
	struct aif_runner *runners[AIF_MAX_RUNNERS] = { NULL };
	struct aif_ctl_server *srv = NULL;
	struct rte_mempool *pool = NULL;
	char err[AIF_ERR_MAX], *text = NULL, prefix[64];
	char **eal_argv = NULL;
	size_t text_len = 0;
	bool eal_up = false, ran = false, built = false;
	static struct aif_pool_port pool_ports[RTE_MAX_ETHPORTS];
	unsigned n_pool_ports = 0, n_run = 0;
	int ret = 1, n, eal_argc = argc;

	/* Options, config and control socket first: any of them wrong stops
	 * the daemon before EAL touches a device.  The config file is read and
	 * parsed once; what is applied below (and kept as the running config)
	 * is that one parse (a file changed meanwhile cannot mix in). */
	n = parse_app_opts(argc, argv, &o);
	if (n != 0) {
		ret = n > 0 ? 0 : 1; /* --help: done */
		goto out;
	}
	text = aif_config_read_file(o.config, &text_len, err, sizeof(err));
	if (text == NULL || aif_config_parse(text, text_len, &cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "config %s: %s\n", o.config, err);
		goto out;
	}
	free(text);
	text = NULL;
	if (o.jobs != NULL && aif_workload_load(&wl, o.jobs, err, sizeof(err)) != 0) {
		fprintf(stderr, "--jobs %s\n", err);
		goto out;
	}
	/* Real time: every port that is not a link's end is a DPDK device. */
	for (uint16_t s = 0; !o.vtime && s < cfg->n_switches; s++)
		for (uint16_t p = 0; p < cfg->switches[s].n_ports; p++) {
			bool link_end = false;
			for (uint32_t k = 0; k < cfg->n_links && !link_end; k++)
				link_end = (cfg->links[k].a_switch == s && cfg->links[k].a_port == p) ||
					   (cfg->links[k].b_switch == s && cfg->links[k].b_port == p);
			bool host = false; /* --jobs: a virtual host's port */
			for (uint32_t h = 0; o.jobs != NULL && h < cfg->n_hosts && !host; h++)
				host = cfg->hosts[h].sw == s && cfg->hosts[h].port == p;
			if (!link_end && !host && cfg->switches[s].ports[p].device[0] == '\0') {
				fprintf(stderr, "config %s: $.switches[%u].ports[%u].device: required: "
					"in real time every port that is not a link's end is bound to "
					"a DPDK device (or run it with --virtual-time)\n", o.config, s, p);
				goto out;
			}
		}
	if (!o.vtime && check_socket_free(o.socket) != 0)
		goto out;
	/* the outputs' directories, once the inputs are known to be good */
	if ((o.samples != NULL && make_prefix_dir("--samples", o.samples) != 0) ||
	    (o.stats != NULL && make_prefix_dir("--stats", o.stats) != 0) ||
	    (o.pcap_out != NULL && make_dirs("--pcap-out", o.pcap_out) != 0) ||
	    (o.results != NULL && make_dirs("--results", o.results) != 0))
		goto out;

	atexit(remove_runtime_dir);
	if (o.vtime && (argc < 2 || strcmp(argv[1], "--") == 0)) {
		eal_argv = vtime_eal_args(argc, argv, &eal_argc, prefix, sizeof(prefix));
		if (eal_argv == NULL)
			goto out;
	}
	n = rte_eal_init(eal_argc, eal_argv != NULL ? eal_argv : argv);
	if (n < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	eal_up = true;
	snprintf(eal_runtime_dir, sizeof(eal_runtime_dir), "%s", rte_eal_get_runtime_dir());
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	if (!o.vtime)
		rte_pdump_init();

	unsigned n_workers = rte_lcore_count() - 1;
	if (!o.vtime && (n_workers == 0 || n_workers > AIF_MAX_RUNNERS)) {
		fprintf(stderr, "need 1..%u worker lcores besides the main one (e.g. EAL -l 0-1)\n",
			AIF_MAX_RUNNERS);
		goto out;
	}
	/* One switch: every worker drives a shard of it (RSS).  A fabric: each
	 * switch has one shard, on one runner; virtual time: one runner. */
	/* (virtual hosts run on one runner: their jobs are single-threaded) */
	bool single = cfg->n_switches == 1 && !o.vtime && o.jobs == NULL;
	uint16_t n_shards = single ? (uint16_t)n_workers : 1;
	uint16_t max_mtu = 1500;
	unsigned n_mbufs = 1024, qos_mbufs = 0;
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *sp = &cfg->switches[s];
		for (uint16_t p = 0; p < sp->n_ports; p++) {
			max_mtu = RTE_MAX(max_mtu, sp->ports[p].mtu);
			if (!o.vtime && sp->ports[p].device[0] != '\0')
				n_mbufs += RX_DESC + TX_DESC + n_shards * 2 * AIF_BURST;
		}
		/* Packets held in the egress queues: as many as the shared buffer
		 * holds at 256 bytes each, up to 65536 a switch, 131072 a fabric. */
		const struct aif_qos_params *qp = &cfg->policies[sp->policy].qos;
		if (qp->enable)
			qos_mbufs += (unsigned)RTE_MIN(qp->buffer_bytes / 256, (uint64_t)65536);
	}
	n_mbufs += RTE_MIN(qos_mbufs, 131072u) + (n_workers + 1) * POOL_CACHE * 2;
	/* A frame of the largest MTU, tagged, in one mbuf.  NIC drivers want
	 * at least the default 2 KiB of room; virtual time has no NIC, and its
	 * pool, touched whole at start-up, is a quarter smaller for it. */
	uint16_t room = RTE_ALIGN_CEIL(max_mtu + RTE_ETHER_HDR_LEN + 8 + RTE_PKTMBUF_HEADROOM,
				       RTE_CACHE_LINE_SIZE);
	if (!o.vtime)
		room = RTE_MAX(room, RTE_MBUF_DEFAULT_BUF_SIZE);
	pool = rte_pktmbuf_pool_create("aif_pool", n_mbufs, POOL_CACHE, 0, room,
				       rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "cannot create mbuf pool: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	if (aif_fabric_build(&fab, cfg, pool, n_shards, o.seed, err, sizeof(err)) != 0) {
		fprintf(stderr, "config %s: %s\n", o.config, err);
		goto out;
	}
	built = true;
	for (uint16_t s = 0; s < fab.n_sw; s++)
		aif_ctl_add_switch(&ctl, fab.sw[s]);
	ctl.links = fab.link;
	ctl.n_links = fab.n_links;
	if (o.vtime)
		aif_clock_init_virtual(&ctl.clock, 0);
	else
		aif_clock_init_real(&ctl.clock);
	ctl.start_ns = aif_clock_now(&ctl.clock);
	ctl.capture_dir = o.capture_dir;
	ctl.config_dir = o.config_dir;
	if (o.vtime) {
		void *skip_arg[2] = { &o, &fab };
		if (pcap_in_check(&o, cfg, &fab) != 0)
			goto out;
		if (o.jobs != NULL &&
		    (aif_workload_hosts(&wl, cfg, &fab, pcap_in_port, skip_arg, pool, o.seed, err,
					sizeof(err)) != 0 ||
		     aif_workload_jobs(&wl, cfg, 0, err, sizeof(err)) != 0)) {
			fprintf(stderr, "--jobs %s: %s\n", o.jobs, err);
			goto out;
		}
		if (bind_pcap_edges(&o, cfg, &fab, &edges, pool) != 0)
			goto out;
	} else {
		for (uint16_t s = 0; s < fab.n_sw; s++) {
			const struct aif_switch_params *sp = &cfg->switches[s];
			const struct aif_qos_params *qp = &cfg->policies[sp->policy].qos;
			for (uint16_t p = 0; p < sp->n_ports; p++) {
				if (is_link(&fab.sw[s]->ports[p]) || sp->ports[p].device[0] == '\0')
					continue; /* a link end, or a virtual host's port */
				if (ctl.pinfo[s] == NULL &&
				    (ctl.pinfo[s] = calloc(AIF_MAX_PORTS, sizeof(*ctl.pinfo[s]))) == NULL)
					goto out;
				if (port_init(fab.sw[s], s, ctl.pinfo[s], p, &sp->ports[p], pool,
					      n_shards, qp->enable ? qp->pfc_enable : 0) != 0)
					goto out;
			}
		}
	}

	if (!o.vtime && o.jobs != NULL &&
	    aif_workload_hosts(&wl, cfg, &fab, NULL, NULL, pool, o.seed, err, sizeof(err)) != 0) {
		fprintf(stderr, "--jobs %s: %s\n", o.jobs, err);
		goto out;
	}

	/* Applied as a load is (control owns cfg from here, or it is freed);
	 * the operator's config names program objects by path, a client's
	 * only by name in --config-dir */
	ctl.lb.objects_by_path = true;
	n = aif_ctl_apply_config(&ctl, aif_config_ref(cfg), err, sizeof(err));
	ctl.lb.objects_by_path = false;
	if (n != 0) {
		fprintf(stderr, "config %s: %s\n", o.config, err);
		goto out;
	}
	ctl.loads_ok++;

	/* Runners: which drives what (runner_of), and their RX queues. */
	n_run = o.vtime || o.jobs != NULL ? 1 : single ? n_workers
					      : RTE_MIN(n_workers, (unsigned)fab.n_sw);
	if (!o.vtime && o.jobs != NULL && n_workers > 1)
		printf("--jobs: one runner drives every switch and virtual host (the jobs are "
		       "single-threaded); %u worker lcore%s idle\n", n_workers - 1,
		       n_workers == 2 ? "" : "s");
	for (unsigned r = 0; r < n_run; r++) {
		uint16_t first = single ? 0 : (uint16_t)r;
		runners[r] = aif_runner_create(fab.sw[first], single ? (uint16_t)r : 0,
					       o.seed + r);
		if (runners[r] == NULL) {
			fprintf(stderr, "cannot create runner %u\n", r);
			goto out;
		}
		aif_runner_set_clock(runners[r], o.vtime ? NULL : &ctl.clock);
	}
	for (uint16_t s = 0; s < fab.n_sw; s++) {
		struct aif_switch *sw = fab.sw[s];
		unsigned r = single ? 0 : s % n_run;
		int d = 0;
		runner_of[s] = (uint16_t)r;
		if (!single && s >= n_run &&
		    (d = aif_runner_add_switch(runners[r], sw, 0, o.seed + s)) < 0) {
			fprintf(stderr, "cannot add switch %s to runner %u\n", sw->name, r);
			goto out;
		}
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			if (single) {
				for (unsigned w = 0; w < n_run; w++)
					if (w < sw->ports[p].n_rxq)
						aif_runner_add_rxq(runners[w], p, (uint16_t)w);
			} else if (sw->ports[p].base != &aif_port_detached_ops &&
				   aif_runner_add_rxq_of(runners[r], (uint16_t)d, p, 0) != 0) {
				fprintf(stderr, "runner %u: too many RX queues\n", r);
				goto out;
			}
		}
	}

	if (single)
		print_ports(&ctl);
	else
		print_fabric(&ctl, cfg, runner_of, n_run, o.vtime);

	if (o.vtime) {
		static struct aif_vtime_action acts[2 * MAX_PCAP_IN];
		if (link_events(&o, &ctl, acts) != 0 || lb_events(&o, acts, o.n_link_ev) != 0)
			goto out;
		static struct ticks tk;
		aif_time_ns sample_ns = (aif_time_ns)((o.sample_us > 0 ? o.sample_us : 10) * 1e3 + 0.5);
		aif_time_ns tick_ns = 0;
		if (o.samples != NULL) {
			tk.sm = aif_samples_open(o.samples, &ctl, o.jobs != NULL ? &wl.v : NULL,
						 sample_ns, err, sizeof(err));
			if (tk.sm == NULL) {
				fprintf(stderr, "--samples %s\n", err);
				goto out;
			}
			tick_ns = sample_ns;
		}
		if (o.jobs != NULL && o.results != NULL &&
		    (wl.mon_params.pfc || wl.mon_params.qlen)) {
			if (aif_workload_monitors(&wl, &ctl) != 0) {
				fprintf(stderr, "--results: out of memory\n");
				goto out;
			}
			tk.mon = wl.mon;
			if (wl.mon_params.qlen)
				tick_ns = tick_ns ? gcd_ns(tick_ns, wl.mon_params.qlen_interval_ns)
						  : wl.mon_params.qlen_interval_ns;
		}
		for (unsigned i = 0; i < o.n_capture; i++) {
			char sw_name[AIF_NAME_MAX], file[2 * AIF_NAME_MAX + 16];
			const char *colon = strchr(o.capture[i], ':');
			snprintf(sw_name, sizeof(sw_name), "%.*s", (int)(colon - o.capture[i]),
				 o.capture[i]);
			int si = -1, pi = -1;
			for (uint16_t x = 0; x < fab.n_sw && si < 0; x++)
				if (strcmp(fab.sw[x]->name, sw_name) == 0)
					si = x;
			for (uint16_t x = 0; si >= 0 && x < fab.sw[si]->n_ports && pi < 0; x++)
				if (strcmp(fab.sw[si]->ports[x].name, colon + 1) == 0)
					pi = x;
			if (pi < 0) {
				fprintf(stderr, "--capture %s: no such switch port\n", o.capture[i]);
				goto out;
			}
			snprintf(file, sizeof(file), "%s-%s.pcapng", sw_name, colon + 1);
			struct aif_capture_params cp = { .snaplen = 65535, .drops = true };
			if (aif_capture_start(fab.sw[si], (uint16_t)pi, o.capture_dir, file, &cp,
					      aif_clock_now(&ctl.clock), err, sizeof(err)) != 0) {
				fprintf(stderr, "--capture %s: %s\n", o.capture[i], err);
				goto out;
			}
		}
		struct progress pr = { .t0 = mono_s(), .last = mono_s() };
		struct run_inputs inputs = { &edges, o.jobs != NULL ? &wl : NULL };
		struct aif_vtime v = {
			.ctl = &ctl, .w = runners[0],
			/* --traffic: the hosts send for --duration, then the fabric
			 * drains (at most 10 ms more: a fabric that cannot empty
			 * itself, a PFC deadlock, is stopped there) */
			.end_ns = o.traffic_load > 0 ? (aif_time_ns)(o.duration_s * 1e9 + 0.5) +
						       10 * AIF_NS_PER_MS
				: o.duration_s > 0 ? (aif_time_ns)(o.duration_s * 1e9 + 0.5)
						   : AIF_TIME_NS_NEVER,
			.idle = o.duration_s > 0 && o.traffic_load <= 0 && o.jobs == NULL ? NULL
											  : inputs_idle,
			.idle_arg = &inputs, .stop = &stop_requested,
			.progress = vtime_progress, .progress_arg = &pr,
			.progress_ns = 100 * AIF_NS_PER_US,
			.actions = acts, .n_actions = o.n_link_ev + o.n_lb_ev,
			.sample = tick_ns ? tick : NULL, .sample_arg = &tk, .sample_ns = tick_ns,
		};
		if (o.jobs != NULL && aif_vhosts_wake_by(&wl.v, &v, runners[0]) != 0) {
			fprintf(stderr, "out of memory\n");
			goto out;
		}
		if (o.duration_s <= 0 && inputs_idle(&inputs))
			printf("no input: nothing to run (--pcap-in SWITCH:PORT=FILE, --jobs FILE)\n");
		if (o.jobs != NULL && wl.planes > 1)
			/* a host has a port (a virtual NIC) on every plane */
			printf("  %u virtual hosts, each with a port on %u planes (%u host ports), "
			       "%u job%s from %s\n", wl.n_hosts, wl.planes, wl.v.n,
			       wl.n_jobs, wl.n_jobs == 1 ? "" : "s", o.jobs);
		else if (o.jobs != NULL)
			printf("  %u virtual hosts, %u job%s from %s\n", wl.v.n, wl.n_jobs,
			       wl.n_jobs == 1 ? "" : "s", o.jobs);
		ran = true;
		aif_vtime_run(&v);
		double elapsed = mono_s() - pr.t0;
		for (unsigned i = 0; i < o.n_link_ev + o.n_lb_ev; i++) {
			free(acts[i].request);
			acts[i].request = NULL;
		}
		aif_time_ns end = aif_clock_now(&ctl.clock);
		wl.end_ns = end;
		if (o.samples != NULL) {
			/* the last stretch, so that the samples add up to the totals */
			int bad = aif_samples_close(tk.sm, end);
			tk.sm = NULL;
			if (bad) {
				fprintf(stderr, "--samples %s: could not write in full\n", o.samples);
				goto out;
			}
			printf("  samples every %.3f us: %s-links.csv, %s-queues.csv%s%s%s\n",
			       (double)sample_ns / 1e3, o.samples, o.samples,
			       o.jobs != NULL ? ", " : "", o.jobs != NULL ? o.samples : "",
			       o.jobs != NULL ? "-qps.csv" : "");
		}
		for (uint16_t x = 0; x < fab.n_sw; x++)
			for (uint16_t p = 0; p < fab.sw[x]->n_ports; p++) {
				struct aif_capture_info ci;
				if (aif_capture_get(fab.sw[x], p, NULL) &&
				    aif_capture_stop(fab.sw[x], p, &ci, err, sizeof(err)) == 0)
					printf("  capture %s:%s: %" PRIu64 " packets written to %s%s%s\n",
					       fab.sw[x]->name, fab.sw[x]->ports[p].name, ci.written,
					       ci.path, ci.limit ? ", stopped at " : "",
					       ci.limit ? ci.limit : "");
			}
		/* leave no peer paused; then the counters */
		for (uint16_t s = 0; s < fab.n_sw; s++) {
			struct aif_egress_stop_info stop = { 0 };
			if (fab.sw[s]->qos != NULL)
				aif_egress_shutdown(fab.sw[s], fab.sw[s]->shards[0], fab.sw[s]->qos,
						    end, &stop);
			if (stop.discarded)
				printf("  %s: %u packets still queued at the end were discarded\n",
				       fab.sw[s]->name, stop.discarded);
		}
		json_t *fj = fabric_json(&ctl, end);
		json_object_set_new(fj, "edge_ports", edges_json(&edges));
		json_object_set_new(fj, "virtual_ns", json_integer((json_int_t)end));
		json_object_set_new(fj, "events", json_integer((json_int_t)v.steps));
		json_object_set_new(fj, "packet_hops", json_integer((json_int_t)v.packets));
		struct aif_summary_run sr = { .elapsed_s = elapsed, .virtual_ns = end,
					      .packet_hops = v.packets, .stats_path = o.stats,
					      .pcap_out = o.pcap_out };
		aif_summary_print_fabric(stdout, fj, &sr);
		json_object_set_new(fj, "elapsed_s", json_real(elapsed));
		json_object_set_new(fj, "peak_rss_kb", json_integer(peak_rss_kb()));
		printf("  peak resident memory %.1f MiB\n", (double)peak_rss_kb() / 1024);
		if (o.jobs != NULL && workload_report(&wl, &ctl, cfg, &o, fj) != 0) {
			json_decref(fj);
			goto out;
		}
		if (o.stats && write_json(o.stats, fj) != 0) {
			json_decref(fj);
			goto out;
		}
		json_decref(fj);
		ret = 0;
		goto out;
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
	printf("control socket %s\n", o.socket);
	fflush(stdout);

	/* the jobs' times count from now, as the runners start, and so does
	 * the paced emulation: a runner launched later starts behind */
	aif_time_ns start_ns = aif_clock_now(&ctl.clock);
	if (o.jobs != NULL &&
	    aif_workload_jobs(&wl, cfg, start_ns, err, sizeof(err)) != 0) {
		fprintf(stderr, "--jobs %s: %s\n", o.jobs, err);
		goto out;
	}
	/* Pacing (runner.h): the emulation's time advances by at most the
	 * quantum its fastest emulated port needs per step, the runners'
	 * shortest; a runner that falls behind slows it (pace_behind_ns) */
	aif_time_ns quantum = AIF_TIME_NS_NEVER;
	for (unsigned r = 0; r < n_run; r++)
		quantum = RTE_MIN(quantum, aif_runner_pace_quantum_ns(runners[r]));
	if (quantum != AIF_TIME_NS_NEVER) {
		for (unsigned r = 0; r < n_run; r++)
			aif_runner_set_pace(runners[r], quantum, start_ns, &pace_behind_ns);
		ctl.behind_ns = &pace_behind_ns;
		printf("  paced: the emulation advances at most %" PRIu64 " ns per step (3840 "
		       "bit times at its fastest emulated port); a runner that falls behind "
		       "slows it\n", (uint64_t)quantum);
		fflush(stdout);
	}
	double t0 = mono_s();
	unsigned lcore, w = 0;
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (w < n_run)
			rte_eal_remote_launch(worker_main, runners[w], lcore);
		w++;
	}
	ran = true;

	aif_time_ns next_link = 0, next_age = 0;
	while (!stop_requested) {
		aif_ctl_server_poll(srv, 10);
		aif_time_ns now = aif_ctl_now(&ctl);
		for (uint16_t s = 0; s < fab.n_sw; s++) {
			aif_switch_learn(fab.sw[s], now);
			aif_capture_poll(fab.sw[s]); /* packet copies to their files */
		}
		if (now >= next_age) {
			for (uint16_t s = 0; s < fab.n_sw; s++)
				aif_switch_age_neighbors(fab.sw[s], now);
			next_age = now + AIF_NEIGH_AGE_NS;
		}
		if (now >= next_link) {
			poll_links(&ctl);
			next_link = now + LINK_POLL_NS;
		}
		if (o.duration_s > 0 && mono_s() - t0 >= o.duration_s)
			break;
		if (wl.js != NULL && aif_jobs_all_done(wl.js))
			break; /* the jobs are done */
	}
	__atomic_store_n(&workers_run, 0, __ATOMIC_RELAXED);
	rte_eal_mp_wait_lcore();
	double elapsed = mono_s() - t0;

	/* The runners are done, so their TX queues are free: release the peers
	 * the switches left paused (XON), before the ports stop. */
	struct aif_egress_stop_info stop = { 0 };
	for (uint16_t s = 0; s < fab.n_sw; s++)
		if (fab.sw[s]->qos != NULL)
			aif_egress_shutdown(fab.sw[s], fab.sw[s]->shards[0], fab.sw[s]->qos,
					    aif_ctl_now(&ctl), &stop);
	json_t *fj = NULL;
	if (single) {
		json_t *c = aif_ctl_counters_json(fab.sw[0]);
		aif_summary_print_switch(stdout, c, elapsed);
		json_decref(c);
	} else {
		fj = fabric_json(&ctl, aif_ctl_now(&ctl));
		uint64_t hops = 0;
		json_t *sw, *p;
		size_t i, j;
		json_array_foreach(json_object_get(fj, "switches"), i, sw)
			json_array_foreach(json_object_get(sw, "ports"), j, p)
				hops += (uint64_t)jint(p, "rx_packets");
		struct aif_summary_run sr = { .elapsed_s = elapsed, .virtual_ns = AIF_TIME_NS_NEVER,
					      .packet_hops = hops, .stats_path = o.stats };
		aif_summary_print_fabric(stdout, fj, &sr);
		json_object_set_new(fj, "elapsed_s", json_real(elapsed));
		json_object_set_new(fj, "packet_hops", json_integer((json_int_t)hops));
		json_object_set_new(fj, "workers", json_integer(n_run));
		if (ctl.behind_ns != NULL)
			json_object_set_new(fj, "pace", pace_json(runners, n_run, quantum));
		json_object_set_new(fj, "peak_rss_kb", json_integer(peak_rss_kb()));
		if (o.jobs != NULL && workload_report(&wl, &ctl, cfg, &o, fj) != 0) {
			json_decref(fj);
			goto out;
		}
	}
	for (uint16_t s = 0; s < fab.n_sw; s++)
		for (uint16_t p = 0; p < fab.sw[s]->n_ports; p++) {
			struct aif_switch *sw = fab.sw[s];
			struct aif_capture_info ci;
			if (aif_capture_get(sw, p, NULL) &&
			    aif_capture_stop(sw, p, &ci, err, sizeof(err)) == 0)
				printf("  capture %s%s%s: %" PRIu64 " packets written to %s, %" PRIu64
				       " skipped%s%s\n", single ? "" : sw->name, single ? "" : ":",
				       sw->ports[p].name, ci.written, ci.path, ci.skipped,
				       ci.write_errno ? ", write error: " : "",
				       ci.write_errno ? strerror(ci.write_errno) : "");
		}
	if (ctl.behind_ns != NULL)
		print_pace(runners, n_run, quantum, elapsed);
	if (stop.discarded)
		printf("  %u packets still in the egress queues at stop were discarded\n",
		       stop.discarded);
	if (stop.xon_frames || stop.xon_unsent)
		printf("  PFC XON at stop: %u frame(s) released %u paused priorit%s;"
		       " %u could not be sent (no mbuf, or the port refused it)\n",
		       stop.xon_frames, stop.xon_prios, stop.xon_prios == 1 ? "y" : "ies",
		       stop.xon_unsent);
	if (o.stats && (single ? write_stats(o.stats, fab.sw[0], elapsed)
			       : write_json(o.stats, fj)) != 0) {
		json_decref(fj);
		goto out;
	}
	json_decref(fj);
	ret = 0;
out:
	/* Every exit, start-up failures included: ports closed before the
	 * switches (their queues return their mbufs) and the pool are freed. */
	aif_ctl_server_destroy(srv);
	if (eal_up)
		close_ports(&ctl, pool, pool_ports, &n_pool_ports);
	for (unsigned i = 0; i < edges.n; i++)
		if (aif_pcap_port_close(edges.pp[i]) != 0 && ret == 0) {
			fprintf(stderr, "edge port %s: its output could not be written in full\n",
				edges.name[i]);
			ret = 1;
		}
	for (unsigned i = 0; i < AIF_MAX_RUNNERS; i++)
		aif_runner_free(runners[i]);
	for (uint16_t s = 0; s < fab.n_sw; s++)
		aif_capture_free(fab.sw[s]);
	struct aif_lb_env lbv = aif_ctl_lb_env(&ctl);
	aif_lb_progs_free(&ctl.lb, &lbv); /* (its states are per switch shard) */
	if (built)
		aif_fabric_free(&fab);
	aif_workload_free(&wl); /* the hosts, after the ports that were theirs */
	for (uint16_t s = 0; s < AIF_MAX_SWITCHES; s++)
		free(ctl.pinfo[s]);
	aif_config_free(ctl.cfg);
	if (pool != NULL) {
		unsigned in_use = rte_mempool_in_use_count(pool);
		char msg[768];
		if (ran) {
			if (aif_pool_check(in_use, pool->size, pool_ports,
					   n_pool_ports, msg, sizeof(msg)) == 0)
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
	free(eal_argv);
	if (eal_up)
		rte_eal_cleanup();
	return ret;
}
