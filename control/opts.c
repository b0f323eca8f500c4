/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The daemon's options (opts.h).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../dataplane/capacity.h"
#include "ctl_server.h"
#include "opts.h"

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
		"                [--seed N] [--runners N] [--threads N]\n"
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
		"  --runners N        virtual time on N runners, 1..%u, the fabric split between\n"
		"                     them (by leaf or pod, switch by switch when a pod is\n"
		"                     too much of a runner's share; the same results for\n"
		"                     any N), run window by window on a thread per available\n"
		"                     core, each thread its runners in turn; default: as many\n"
		"                     as the fabric can use; under mpirun -np N (--jobs\n"
		"                     runs, MPI built in: README), at least N, the ranks\n"
		"                     taking them in turn\n"
		"  --threads N        virtual time: the threads that run the runners, 1..%u\n"
		"                     (default: one per core the process may use, at most\n"
		"                     one per runner; more threads than cores take turns)\n"
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
		prog, prog, AIF_CTL_DEFAULT_SOCKET, AIF_CTL_DEFAULT_CAPTURE_DIR, AIF_MAX_RUNNERS,
		AIF_MAX_RUNNERS);
}

/* --runners and --threads: 1..AIF_MAX_RUNNERS of what (their name) into *n;
 * 0, or -1 said on stderr. */
static int
parse_count(const char *arg, const char *what, unsigned *n)
{
	char *end;

	errno = 0;
	unsigned long v = strtoul(arg, &end, 10);
	if (errno != 0 || *end != '\0' || arg[0] == '-' || v < 1 || v > AIF_MAX_RUNNERS) {
		fprintf(stderr, "--%s: '%s': a number of %s, 1..%u\n", what, arg, what,
			AIF_MAX_RUNNERS);
		return -1;
	}
	*n = (unsigned)v;
	return 0;
}

static int
parse_opts(int argc, char **argv, struct aif_opts *o)
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
		{ "runners", required_argument, NULL, 'N' },
		{ "threads", required_argument, NULL, 'H' },
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
			if (o->n_pcap_in == AIF_OPTS_MAX_LIST) {
				fprintf(stderr, "--pcap-in: at most %u\n", AIF_OPTS_MAX_LIST);
				return -1;
			}
			o->pcap_in[o->n_pcap_in++] = optarg;
			break;
		case 'P': o->samples = optarg; break;
		case 'J': o->jobs = optarg; break;
		case 'K':
			if (strchr(optarg, ':') == NULL || o->n_capture == AIF_OPTS_MAX_LIST) {
				fprintf(stderr, "--capture '%s': SWITCH:PORT, at most %u\n", optarg,
					AIF_OPTS_MAX_LIST);
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
			if (o->n_link_ev == AIF_OPTS_MAX_LIST) {
				fprintf(stderr, "--link: at most %u\n", AIF_OPTS_MAX_LIST);
				return -1;
			}
			o->link_ev[o->n_link_ev++] = optarg;
			break;
		case 'B':
			if (o->n_lb_ev == AIF_OPTS_MAX_LIST) {
				fprintf(stderr, "--lb: at most %u\n", AIF_OPTS_MAX_LIST);
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
		case 'N':
			if (parse_count(optarg, "runners", &o->runners) != 0)
				return -1;
			break;
		case 'H':
			if (parse_count(optarg, "threads", &o->threads) != 0)
				return -1;
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
	if ((o->runners != 0 || o->threads != 0) && !o->vtime) {
		fprintf(stderr, "--%s is for --virtual-time; in real time a runner is an EAL "
			"worker lcore (-l 0-N)\n", o->runners != 0 ? "runners" : "threads");
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
int
aif_opts_parse(int argc, char **argv, struct aif_opts *o)
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
int
aif_opts_socket_free(const char *path)
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

int
aif_opts_make_dirs(const struct aif_opts *o)
{
	if ((o->samples != NULL && make_prefix_dir("--samples", o->samples) != 0) ||
	    (o->stats != NULL && make_prefix_dir("--stats", o->stats) != 0) ||
	    (o->pcap_out != NULL && make_dirs("--pcap-out", o->pcap_out) != 0) ||
	    (o->results != NULL && make_dirs("--results", o->results) != 0))
		return -1;
	return 0;
}
