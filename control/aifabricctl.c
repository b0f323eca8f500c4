/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aifabricctl: the command-line client of the aifabric control socket.
 *
 *	aifabricctl [-s|--socket PATH] [--json] [--timeout SEC] COMMAND...
 *
 *	status                  {"cmd":"status"}
 *	show ports|routes|neighbors|groups|counters
 *	                        {"cmd":"show_ports"}, ...
 *	clear counters          {"cmd":"clear_counters"}
 *	load FILE               {"cmd":"load","config":<FILE's JSON object>}
 *	capture start PORT NAME [--drops] [--snaplen N] [--max-bytes N] [--max-packets N]
 *	                        {"cmd":"capture_start","port":PORT,"file":NAME,...}
 *	                        (NAME is a file name in the daemon's --capture-dir)
 *	capture stop PORT       {"cmd":"capture_stop","port":PORT}
 *	show captures           {"cmd":"show_captures"}
 *	show trace              {"cmd":"show_trace","offset":N,"limit":8192}, page
 *	                        after page on one connection until a short one
 *	lb load FILE.o [--name N] [--program P] [--tc N | --group G] [--table-size N]
 *	                        {"cmd":"lb_load","object":<FILE's bytes, base64>,
 *	                         "file":FILE,...}
 *	lb unload NAME          {"cmd":"lb_unload","name":NAME}
 *	show lb                 {"cmd":"show_lb"}
 *	lb test FILE.o ...      no daemon: the program against a packet trace
 *	                        (lb_test.c); must come first on the line
 *	raw JSON                JSON, sent as given
 *
 * One request, one reply line (see control/ctl_server.h for the protocol);
 * --timeout applies to each.
 * The socket is -s PATH, else $AIFABRIC_SOCKET, else
 * /run/aifabric/aifabric.sock.  --json prints the reply's result as JSON;
 * otherwise it is rendered as text tables (ctl_views.h), each view described
 * by a small column-spec array so adding a view or a column is one line.
 *
 * Exit status: 0 ok; 1 an error reply, a bad command line or a bad FILE;
 * 2 cannot connect (or the server hung up before replying); 3 no reply
 * within --timeout seconds (default 10).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base64.h"
#include "ctl_commands.h"
#include "ctl_server.h"
#include "ctl_views.h"
#include "lb_test.h"

#define EXIT_ERR 1
#define EXIT_CONNECT 2
#define EXIT_TIMEOUT 3

#define DEFAULT_TIMEOUT_S 10.0
#define TRACE_PAGE_RECORDS 8192 /* show trace: records per request */

/* ---------------------------------------------------------------- */
/* Command line -> request                                           */

/* The commands (ctl_commands.h): words, arguments, flags, help. */
static const struct {
	const char *cmd, *words, *args;
	unsigned flags;
	const char *what;
} commands[] = {
#define CTL_CMD_ENTRY(name, words, args, flags, what) { #name, words, args, flags, what },
	AIF_FOREACH_CTL_CMD(CTL_CMD_ENTRY)
#undef CTL_CMD_ENTRY
};

/* --switch NAME: the switch a command is about (all when omitted). */
static const char *opt_switch;

static void
usage(FILE *f)
{
	fprintf(f, "usage: aifabricctl [-s|--socket PATH] [--json] [--timeout SEC] "
		   "[--switch NAME] COMMAND...\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char head[160];
		snprintf(head, sizeof(head), "%s%s%s", commands[i].words,
			 commands[i].args[0] ? " " : "", commands[i].args);
		fprintf(f, "  %s\n      %s%s\n", head, commands[i].what,
			(commands[i].flags & (AIF_CTL_F_SWITCH | AIF_CTL_F_ONE)) ?
			" [--switch NAME]" : "");
	}
	fprintf(f,
		"  raw JSON\n      one request line as it is\n"
		"  lb test FILE.o [--against SCHEME] [--members N] [--down I,J..] [--gbps R]\n"
		"          [--pcap FILE | --flows F --packets P --gap-ns G --seed S] [--name NAME]\n"
		"          [--table-size N]\n"
		"      no daemon: run a load-balancing program on a packet trace beside a\n"
		"      built-in scheme (ecmp, flowlet, spray, drill, adaptive); lb test --help\n"
		"--switch NAME: the switch a command is about; without it, every switch\n"
		"(commands about one switch need it when the daemon runs several)\n"
		"captures: NAME is a file in the daemon's --capture-dir, default %s\n"
		"socket: -s PATH, else $AIFABRIC_SOCKET, else %s\n",
		AIF_CTL_DEFAULT_CAPTURE_DIR, AIF_CTL_DEFAULT_SOCKET);
}

/* argv is words (e.g. "show pfc"): all of them, nothing more. */
static bool
words_match(int argc, char **argv, const char *words)
{
	char buf[64];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok(buf, " "); w != NULL; w = strtok(NULL, " "), n++)
		if (n >= argc || strcmp(argv[n], w) != 0)
			return false;
	return n == argc;
}

/* {"cmd":"load","config":<FILE>} as a line; exits on a bad file. */
static char *
load_request(const char *file)
{
	json_error_t jerr;
	json_t *cfg, *req;
	char *line;

	cfg = json_load_file(file, JSON_REJECT_DUPLICATES, &jerr);
	if (cfg == NULL) {
		if (jerr.line > 0)
			fprintf(stderr, "%s:%d:%d: invalid JSON: %s\n", file,
				jerr.line, jerr.column, jerr.text);
		else
			fprintf(stderr, "%s: %s\n", file, jerr.text);
		exit(EXIT_ERR);
	}
	if (!json_is_object(cfg)) {
		fprintf(stderr, "%s: configuration must be a JSON object\n", file);
		json_decref(cfg);
		exit(EXIT_ERR);
	}
	req = json_pack("{s:s,s:o}", "cmd", "load", "config", cfg);
	line = req ? json_dumps(req, JSON_COMPACT) : NULL;
	if (line == NULL) {
		fprintf(stderr, "aifabricctl: out of memory\n");
		exit(EXIT_ERR);
	}
	json_decref(req);
	return line;
}

/* lb load's options */
static const char *opt_name, *opt_program, *opt_tc, *opt_group, *opt_table_size;

static char *dump_request(json_t *req);
static json_int_t number_opt(const char *name, const char *text);

/* lb load FILE.o [...] | lb unload NAME; exits on a bad line or file. */
static char *
lb_request(int argc, char **argv, const char **cmd)
{
	if (argc == 3 && strcmp(argv[1], "load") == 0) {
		FILE *f = fopen(argv[2], "rb");
		unsigned char *buf = NULL;
		size_t n = 0, cap = 0, k;
		if (f == NULL) {
			fprintf(stderr, "aifabricctl: %s: %s\n", argv[2], strerror(errno));
			exit(EXIT_ERR);
		}
		do {
			if (n == cap) {
				cap = cap ? 2 * cap : 65536;
				if (cap > (48u << 20) || (buf = realloc(buf, cap)) == NULL) {
					fprintf(stderr, "aifabricctl: %s: too large for a request\n",
						argv[2]);
					exit(EXIT_ERR);
				}
			}
			k = fread(buf + n, 1, cap - n, f);
			n += k;
		} while (k > 0);
		fclose(f);
		char *b64 = aif_base64_encode(buf, n);
		free(buf);
		const char *base = strrchr(argv[2], '/');
		json_t *req = json_pack("{s:s, s:s, s:s}", "cmd", "lb_load", "object",
					b64 ? b64 : "", "file", base ? base + 1 : argv[2]);
		free(b64);
		if (opt_name != NULL)
			json_object_set_new(req, "name", json_string(opt_name));
		if (opt_program != NULL)
			json_object_set_new(req, "program", json_string(opt_program));
		if (opt_group != NULL)
			json_object_set_new(req, "group", json_string(opt_group));
		if (opt_tc != NULL)
			json_object_set_new(req, "tc", json_integer(number_opt("tc", opt_tc)));
		if (opt_table_size != NULL)
			json_object_set_new(req, "table_size",
					    json_integer(number_opt("table-size", opt_table_size)));
		*cmd = "lb_load";
		return dump_request(req);
	}
	if (argc == 3 && strcmp(argv[1], "unload") == 0) {
		*cmd = "lb_unload";
		return dump_request(json_pack("{s:s, s:s}", "cmd", *cmd, "name", argv[2]));
	}
	fprintf(stderr, "aifabricctl: lb load FILE.o [--name N] [--program P] [--tc N | "
		"--group G] [--table-size N] | lb unload NAME | lb test FILE.o ...\n");
	exit(EXIT_ERR);
}

/* capture start's options (getopt takes them anywhere on the line). */
static bool opt_drops;
static const char *opt_snaplen, *opt_max_bytes, *opt_max_packets;

static bool
capture_opts(void)
{
	return opt_drops || opt_snaplen || opt_max_bytes || opt_max_packets;
}

/* --name N: an integer (the daemon checks the range); exits when it is not. */
static json_int_t
number_opt(const char *name, const char *text)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (end == text || *end != '\0' || errno != 0) {
		fprintf(stderr, "aifabricctl: bad --%s '%s'\n", name, text);
		exit(EXIT_ERR);
	}
	return (json_int_t)v;
}
/* show trace: fetched page by page (fetch_trace) */
static bool page_trace;

static char *
dump_request(json_t *req)
{
	char *line = req ? json_dumps(req, JSON_COMPACT) : NULL;

	json_decref(req);
	if (line == NULL) {
		fprintf(stderr, "aifabricctl: out of memory\n");
		exit(EXIT_ERR);
	}
	return line;
}

/* capture start PORT FILE | capture stop PORT; NULL: not a capture command. */
static char *
capture_request(int argc, char **argv, const char **cmd)
{
	if (argc == 4 && strcmp(argv[1], "start") == 0) {
		json_t *req;

		*cmd = "capture_start";
		req = json_pack("{s:s, s:s, s:s, s:b}", "cmd", *cmd, "port", argv[2],
				"file", argv[3], "drops", opt_drops);
		if (opt_snaplen != NULL)
			json_object_set_new(req, "snaplen", json_integer(number_opt("snaplen",
									  opt_snaplen)));
		if (opt_max_bytes != NULL)
			json_object_set_new(req, "max_bytes", json_integer(number_opt("max-bytes",
									    opt_max_bytes)));
		if (opt_max_packets != NULL)
			json_object_set_new(req, "max_packets",
					    json_integer(number_opt("max-packets", opt_max_packets)));
		return dump_request(req);
	}
	if (argc == 3 && strcmp(argv[1], "stop") == 0 && !capture_opts()) {
		*cmd = "capture_stop";
		return dump_request(json_pack("{s:s, s:s}", "cmd", *cmd, "port", argv[2]));
	}
	return NULL;
}

/*
 * trace start DST [src=IP] [sport=N] [dport=N] | trace stop; NULL: not one.
 */
static char *
trace_request(int argc, char **argv, const char **cmd)
{
	if (argc >= 3 && strcmp(argv[1], "start") == 0) {
		json_t *req = json_pack("{s:s, s:s}", "cmd", "trace_start", "dst", argv[2]);
		for (int i = 3; i < argc; i++) {
			char *eq = strchr(argv[i], '=');
			if (eq == NULL)
				goto bad;
			*eq = '\0';
			if (strcmp(argv[i], "src") == 0)
				json_object_set_new(req, "src", json_string(eq + 1));
			else if (strcmp(argv[i], "sport") == 0 || strcmp(argv[i], "dport") == 0)
				json_object_set_new(req, argv[i][0] == 's' ? "src_port" : "dst_port",
						    json_integer(strtol(eq + 1, NULL, 10)));
			else
				goto bad;
		}
		*cmd = "trace_start";
		return dump_request(req);
bad:
		fprintf(stderr, "aifabricctl: trace start DST [src=IP] [sport=N] [dport=N]\n");
		exit(EXIT_ERR);
	}
	if (argc == 2 && strcmp(argv[1], "stop") == 0) {
		*cmd = "trace_stop";
		return dump_request(json_pack("{s:s}", "cmd", *cmd));
	}
	return NULL;
}

/* link NAME [up|down] [loss=RATE] [corrupt=RATE] */
static char *
link_request(int argc, char **argv, const char **cmd)
{
	if (argc < 3)
		goto bad;
	json_t *req = json_pack("{s:s, s:s}", "cmd", "link_set", "link", argv[1]);
	for (int i = 2; i < argc; i++) {
		char *end;
		if (strcmp(argv[i], "up") == 0 || strcmp(argv[i], "down") == 0) {
			json_object_set_new(req, "state", json_string(argv[i]));
			continue;
		}
		const char *key = strncmp(argv[i], "loss=", 5) == 0 ? "loss_rate"
				: strncmp(argv[i], "corrupt=", 8) == 0 ? "corrupt_rate" : NULL;
		if (key == NULL)
			goto bad;
		double v = strtod(strchr(argv[i], '=') + 1, &end);
		if (*end != '\0' || end == strchr(argv[i], '=') + 1)
			goto bad;
		/* nan and inf parse, but JSON has no such number: a request
		 * without it would change nothing and say ok */
		if (!(v >= 0 && v <= 1)) {
			fprintf(stderr, "aifabricctl: link: %s: a rate is a number 0..1\n", argv[i]);
			exit(EXIT_ERR);
		}
		json_object_set_new(req, key, json_real(v));
	}
	*cmd = "link_set";
	return dump_request(req);
bad:
	fprintf(stderr, "aifabricctl: link NAME [up|down] [loss=RATE] [corrupt=RATE]\n");
	exit(EXIT_ERR);
}

/*
 * The request line (no '\n') for the words of a command, and in *cmd the
 * command name that picks the view; exits on a bad command line.
 */
static char *
build_request(int argc, char **argv, const char **cmd)
{
	if (argc >= 1 && strcmp(argv[0], "capture") == 0) {
		char *line = capture_request(argc, argv, cmd);
		if (line != NULL)
			return line;
		goto unknown;
	}
	if (argc >= 1 && strcmp(argv[0], "link") == 0)
		return link_request(argc, argv, cmd);
	if (argc >= 1 && strcmp(argv[0], "lb") == 0)
		return lb_request(argc, argv, cmd);
	if (argc >= 1 && strcmp(argv[0], "trace") == 0) {
		char *line = trace_request(argc, argv, cmd);
		if (line != NULL)
			return line;
		goto unknown;
	}
	if (capture_opts()) {
		fprintf(stderr, "aifabricctl: --drops, --snaplen, --max-bytes and --max-packets "
			"go with capture start\n");
		exit(EXIT_ERR);
	}
	if (argc == 2 && strcmp(argv[0], "load") == 0) {
		*cmd = "load";
		return load_request(argv[1]);
	}
	if (argc == 2 && strcmp(argv[0], "raw") == 0) {
		json_t *j = json_loads(argv[1], JSON_DECODE_ANY, NULL);
		static char name[64];

		if (strchr(argv[1], '\n') != NULL) {
			fprintf(stderr, "aifabricctl: raw request must be one line\n");
			exit(EXIT_ERR);
		}
		*cmd = NULL;
		if (json_is_string(json_object_get(j, "cmd"))) {
			snprintf(name, sizeof(name), "%s",
				 json_string_value(json_object_get(j, "cmd")));
			*cmd = name;
		}
		json_decref(j);
		return aif_ctl_xstrdup(argv[1]);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char *line;
		json_t *req;

		if (!(commands[i].flags & AIF_CTL_F_WORDS) ||
		    !words_match(argc, argv, commands[i].words))
			continue;
		*cmd = commands[i].cmd;
		page_trace = strcmp(*cmd, "show_trace") == 0;
		req = json_pack("{s:s}", "cmd", *cmd);
		line = req ? json_dumps(req, JSON_COMPACT) : NULL;
		json_decref(req);
		if (line == NULL) {
			fprintf(stderr, "aifabricctl: out of memory\n");
			exit(EXIT_ERR);
		}
		return line;
	}
unknown:
	fprintf(stderr, "aifabricctl: unknown command:");
	for (int i = 0; i < argc; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n");
	usage(stderr);
	exit(EXIT_ERR);
}

/* ---------------------------------------------------------------- */
/* Transport                                                         */

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *sock_path;
static double timeout_s = DEFAULT_TIMEOUT_S;
static double deadline_s;

static void __attribute__((noreturn))
timed_out(void)
{
	fprintf(stderr, "aifabricctl: no reply from %s within %g s\n",
		sock_path, timeout_s);
	exit(EXIT_TIMEOUT);
}

/* Milliseconds left before the deadline, for poll(). */
static int
ms_left(void)
{
	double left = deadline_s - now_s();

	if (left <= 0)
		timed_out();
	return left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
}

static int
connect_socket(void)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	double left = deadline_s - now_s();
	struct timeval tv = {
		.tv_sec = (time_t)left,
		.tv_usec = (suseconds_t)((left - (double)(time_t)left) * 1e6),
	};
	int fd;

	if (strlen(sock_path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "cannot connect to %s: %s\n", sock_path,
			strerror(ENAMETOOLONG));
		exit(EXIT_CONNECT);
	}
	strcpy(addr.sun_path, sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "cannot connect to %s: %s\n", sock_path,
			strerror(errno));
		exit(EXIT_CONNECT);
	}
	/* A blocking connect() to a Unix socket waits SO_SNDTIMEO at most
	 * when the server's backlog is full. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		if (errno == EAGAIN || errno == EINPROGRESS)
			timed_out();
		fprintf(stderr, "cannot connect to %s: %s\n", sock_path,
			strerror(errno));
		exit(EXIT_CONNECT);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		fprintf(stderr, "aifabricctl: fcntl: %s\n", strerror(errno));
		exit(EXIT_ERR);
	}
	return fd;
}

/* Send the request and its '\n'.  A server that hangs up early (a request
 * over its size limit) still has a reply for us: stop sending and read. */
static void
send_request(int fd, const char *line)
{
	size_t len = strlen(line), off = 0;
	char *buf = aif_ctl_xmalloc(len + 1);

	memcpy(buf, line, len);
	buf[len++] = '\n';
	while (off < len) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		ssize_t n = send(fd, buf + off, len - off, MSG_NOSIGNAL);

		if (n >= 0) {
			off += (size_t)n;
			continue;
		}
		if (errno == EPIPE || errno == ECONNRESET)
			break;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			fprintf(stderr, "aifabricctl: send to %s: %s\n",
				sock_path, strerror(errno));
			exit(EXIT_CONNECT);
		}
		if (poll(&p, 1, ms_left()) == 0)
			timed_out();
	}
	free(buf);
}

/* Read up to the first '\n'; the reply line, NUL-terminated. */
static char *
read_reply(int fd)
{
	size_t len = 0, cap = 65536;
	char *buf = aif_ctl_xmalloc(cap);

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char *nl;
		ssize_t n;

		if (cap - len < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (buf == NULL) {
				fprintf(stderr, "aifabricctl: out of memory\n");
				exit(EXIT_ERR);
			}
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n > 0) {
			nl = memchr(buf + len, '\n', (size_t)n);
			len += (size_t)n;
			if (nl != NULL) {
				*nl = '\0';
				return buf;
			}
			continue;
		}
		if (n == 0 || errno == ECONNRESET) {
			fprintf(stderr, "aifabricctl: %s closed the connection "
				"without a reply\n", sock_path);
			exit(EXIT_CONNECT);
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			fprintf(stderr, "aifabricctl: recv from %s: %s\n",
				sock_path, strerror(errno));
			exit(EXIT_CONNECT);
		}
		if (poll(&p, 1, ms_left()) == 0)
			timed_out();
	}
}

/*
 * One request, one reply: send line, read the reply line and parse it;
 * exits on a malformed reply.  The timeout counts from here.
 */
static json_t *
request(int fd, const char *line)
{
	json_error_t jerr;
	json_t *reply;
	char *text;

	deadline_s = now_s() + timeout_s;
	send_request(fd, line);
	text = read_reply(fd);
	reply = json_loads(text, 0, &jerr);
	if (!json_is_boolean(json_object_get(reply, "ok"))) {
		fprintf(stderr, "aifabricctl: malformed reply from %s: %s\n",
			sock_path, aif_ctl_printable(text));
		exit(EXIT_ERR);
	}
	free(text);
	return reply;
}

/*
 * show trace: every page of the trace, one request each on the one
 * connection (a full trace, 65,536 records, is tens of MB), put together
 * as one reply: the last page's, holding all the packets.  An error reply
 * is returned as it is.
 */
static json_t *
fetch_trace(int fd)
{
	json_t *packets = json_array(), *reply = NULL;
	json_int_t offset = 0;

	for (;;) {
		json_t *page;
		size_t n;
		json_t *req = json_pack("{s:s, s:I, s:i}", "cmd", "show_trace", "offset",
					offset, "limit", TRACE_PAGE_RECORDS);

		if (opt_switch != NULL)
			json_object_set_new(req, "switch", json_string(opt_switch));
		char *line = dump_request(req);
		json_decref(reply);
		reply = request(fd, line);
		free(line);
		if (!json_is_true(json_object_get(reply, "ok")))
			break;
		page = json_object_get(json_object_get(reply, "result"), "packets");
		n = json_array_size(page);
		if (json_array_extend(packets, page) != 0) {
			fprintf(stderr, "aifabricctl: out of memory\n");
			exit(EXIT_ERR);
		}
		offset += (json_int_t)n;
		if (n < TRACE_PAGE_RECORDS) {
			json_t *res = json_object_get(reply, "result");

			json_object_set(res, "packets", packets);
			json_object_set_new(res, "offset", json_integer(0));
			break;
		}
	}
	json_decref(packets);
	return reply;
}

/* ---------------------------------------------------------------- */

/* The request line with "switch": --switch added (load and raw lines
 * are left as they are). */
static char *
with_switch(char *line, const char *cmd)
{
	if (cmd == NULL || strcmp(cmd, "load") == 0 || strcmp(cmd, "status") == 0)
		return line;
	json_t *req = json_loads(line, 0, NULL);
	if (!json_is_object(req) || json_object_get(req, "switch") != NULL) {
		json_decref(req);
		return line;
	}
	free(line);
	json_object_set_new(req, "switch", json_string(opt_switch));
	return dump_request(req);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "drops", no_argument, NULL, 'D' },
		{ "snaplen", required_argument, NULL, 'n' },
		{ "max-bytes", required_argument, NULL, 'B' },
		{ "max-packets", required_argument, NULL, 'P' },
		{ "switch", required_argument, NULL, 'S' },
		{ "name", required_argument, NULL, 'N' },
		{ "program", required_argument, NULL, 'G' },
		{ "tc", required_argument, NULL, 'C' },
		{ "group", required_argument, NULL, 'R' },
		{ "table-size", required_argument, NULL, 'Z' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = NULL;
	bool as_json = false;
	json_t *reply, *ok, *result;
	char *line, *end;
	int opt, fd;

	/* lb test: offline, its own options */
	if (argc >= 3 && strcmp(argv[1], "lb") == 0 && strcmp(argv[2], "test") == 0)
		return aif_lb_test_main(argc - 2, argv + 2) == 0 ? 0 : EXIT_ERR;
	sock_path = getenv("AIFABRIC_SOCKET");
	if (sock_path == NULL || *sock_path == '\0')
		sock_path = AIF_CTL_DEFAULT_SOCKET;
	while ((opt = getopt_long(argc, argv, "s:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sock_path = optarg;
			break;
		case 'j':
			as_json = true;
			break;
		case 't':
			timeout_s = strtod(optarg, &end);
			if (end == optarg || *end != '\0' || !(timeout_s > 0) ||
			    !isfinite(timeout_s)) {
				fprintf(stderr, "aifabricctl: bad --timeout '%s'\n",
					optarg);
				return EXIT_ERR;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'D':
			opt_drops = true;
			break;
		case 'n':
			opt_snaplen = optarg;
			break;
		case 'B':
			opt_max_bytes = optarg;
			break;
		case 'P':
			opt_max_packets = optarg;
			break;
		case 'S':
			opt_switch = optarg;
			break;
		case 'N':
			opt_name = optarg;
			break;
		case 'G':
			opt_program = optarg;
			break;
		case 'C':
			opt_tc = optarg;
			break;
		case 'R':
			opt_group = optarg;
			break;
		case 'Z':
			opt_table_size = optarg;
			break;
		default:
			usage(stderr);
			return EXIT_ERR;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_ERR;
	}

	line = build_request(argc - optind, argv + optind, &cmd);
	if (opt_switch != NULL)
		line = with_switch(line, cmd);
	deadline_s = now_s() + timeout_s;
	fd = connect_socket();
	if (page_trace)
		reply = fetch_trace(fd);
	else
		reply = request(fd, line);
	close(fd);
	free(line);
	ok = json_object_get(reply, "ok");
	if (!json_is_true(ok)) {
		const char *e = json_string_value(json_object_get(reply, "error"));
		char *msg = aif_ctl_xstrdup(e ? e : "(no reason given)");

		fprintf(stderr, "error: %s\n", aif_ctl_printable(msg));
		free(msg);
		json_decref(reply);
		return EXIT_ERR;
	}
	result = json_object_get(reply, "result");
	if (as_json) {
		aif_ctl_view_json(result ? result : json_null());
	} else {
		aif_ctl_view_print(cmd, result);
	}
	json_decref(reply);
	return fflush(stdout) == 0 ? 0 : EXIT_ERR;
}
