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
 * otherwise it is rendered as text tables, each view described by a small
 * column-spec array (struct col) so adding a view or a column is one line.
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
#include "lb_test.h"

#define EXIT_ERR 1
#define EXIT_CONNECT 2
#define EXIT_TIMEOUT 3

#define DEFAULT_TIMEOUT_S 10.0
#define TRACE_PAGE_RECORDS 8192 /* show trace: records per request */
#define MAX_COLS 16
#define COL_GAP "  "

/* ---------------------------------------------------------------- */
/* Table rendering                                                   */

enum fmt {
	F_STR,   /* string as is; other scalars printed */
	F_NUM,   /* number, right-aligned */
	F_SPEED, /* Mb/s as "100G", "25G", "100M"; 0 is "-" */
	F_LIST,  /* array of strings, comma-separated */
	F_BOOL,  /* "yes" / "no" */
	F_SUM,   /* object of numbers: their sum, right-aligned */
};

/* One column: its title, the row field it shows (or alt when key is
 * absent) and how to format it. */
struct col {
	const char *title;
	const char *key;
	const char *alt;
	enum fmt fmt;
	unsigned at;     /* 1-based element of an array field; 0: the field itself */
};

#define COLS(a) (a), (sizeof(a) / sizeof((a)[0]))

static const struct col port_cols[] = {
	{ "NAME", "name", NULL, F_STR },
	{ "DEVICE", "device", NULL, F_STR },
	{ "DRIVER", "driver", NULL, F_STR },
	{ "MAC", "mac", NULL, F_STR },
	{ "SPEED", "speed_mbps", NULL, F_SPEED },
	{ "MTU", "mtu", NULL, F_NUM },
	{ "VLAN", "vlan", NULL, F_NUM },
	{ "LINK", "link", NULL, F_STR },
	{ "RXQ", "rx_queues", NULL, F_NUM },
	{ "TXQ", "tx_queues", NULL, F_NUM },
	{ "ADDRESSES", "addresses", NULL, F_LIST },
};

static const struct col route_cols[] = {
	{ "PREFIX", "prefix", NULL, F_STR },
	{ "TYPE", "type", NULL, F_STR },
	{ "VIA", "group", "port", F_STR },
};

static const struct col neighbor_cols[] = {
	{ "IP", "ip", NULL, F_STR },
	{ "MAC", "mac", NULL, F_STR },
	{ "PORT", "port", NULL, F_STR },
	{ "TYPE", "type", NULL, F_STR },
	{ "STATE", "state", NULL, F_STR },
	{ "AGE_S", "age_s", NULL, F_NUM },
};

static const struct col member_cols[] = {
	{ "IP", "ip", NULL, F_STR },
	{ "PORT", "port", NULL, F_STR },
	{ "WEIGHT", "weight", NULL, F_NUM },
	{ "RESOLVED", "resolved", NULL, F_BOOL },
	{ "UP", "up", NULL, F_BOOL },
	{ "PACKETS", "packets", NULL, F_NUM },
	{ "BYTES", "bytes", NULL, F_NUM },
	{ "FLOWLETS", "flowlet_starts", NULL, F_NUM },
	{ "RESELECT", "reselections", NULL, F_NUM },
};

static const struct col port_counter_cols[] = {
	{ "NAME", "name", NULL, F_STR },
	{ "RX_PKTS", "rx_packets", NULL, F_NUM },
	{ "RX_BYTES", "rx_bytes", NULL, F_NUM },
	{ "TX_PKTS", "tx_packets", NULL, F_NUM },
	{ "TX_BYTES", "tx_bytes", NULL, F_NUM },
	{ "DROPS", "drops", NULL, F_SUM },
};

/* Per-priority arrays as SONiC's PFC0..PFC7 columns. */
#define PRIO_COLS(key) \
	{ "PFC0", key, NULL, F_NUM, 1 }, { "PFC1", key, NULL, F_NUM, 2 }, \
	{ "PFC2", key, NULL, F_NUM, 3 }, { "PFC3", key, NULL, F_NUM, 4 }, \
	{ "PFC4", key, NULL, F_NUM, 5 }, { "PFC5", key, NULL, F_NUM, 6 }, \
	{ "PFC6", key, NULL, F_NUM, 7 }, { "PFC7", key, NULL, F_NUM, 8 }

static const struct col pfc_rx_cols[] = { { "PORT RX", "name", NULL, F_STR }, PRIO_COLS("rx_pfc") };
static const struct col pfc_rx_xon_cols[] = { { "PORT RX XON", "name", NULL, F_STR }, PRIO_COLS("rx_xon") };
static const struct col pfc_tx_cols[] = { { "PORT TX", "name", NULL, F_STR }, PRIO_COLS("tx_pfc") };
static const struct col pfc_tx_xon_cols[] = { { "PORT TX XON", "name", NULL, F_STR }, PRIO_COLS("tx_xon") };
static const struct col pfc_us_cols[] = { { "PAUSED us", "name", NULL, F_STR }, PRIO_COLS("paused_us") };
static const struct col pfc_port_cols[] = {
	{ "PORT", "name", NULL, F_STR },
	{ "RX PAUSE", "rx_pause", NULL, F_NUM },
	{ "PAUSE TO PORT MAC", "rx_pause_port_mac", NULL, F_NUM },
	{ "RX MALFORMED", "rx_malformed", NULL, F_NUM },
	{ "TX FRAMES", "tx_frames", NULL, F_NUM },
	{ "XOFF SENT", "xoff_sent", NULL, F_STR },
};
static const struct col pfc_err_cols[] = {
	{ "PORT", "port", NULL, F_STR },
	{ "REASON", "reason", NULL, F_STR },
	{ "COUNT", "count", NULL, F_NUM },
};

static const struct col queue_cols[] = {
	{ "PORT", "port", NULL, F_STR },
	{ "QUEUE", "queue", NULL, F_NUM },
	{ "PACKETS", "packets", NULL, F_NUM },
	{ "BYTES", "bytes", NULL, F_NUM },
	{ "DROPS", "drop_packets", NULL, F_NUM },
	{ "DROP_BYTES", "drop_bytes", NULL, F_NUM },
	{ "ECN_MARKED", "ecn_marked", NULL, F_NUM },
	{ "WRED", "wred_drops", NULL, F_NUM },
	{ "TRIMMED", "trimmed", NULL, F_NUM },
	{ "DEPTH", "depth_bytes", NULL, F_NUM },
	{ "WATERMARK", "watermark_bytes", NULL, F_NUM },
};

static const struct col pg_cols[] = {
	{ "PORT", "port", NULL, F_STR },
	{ "PG", "pg", NULL, F_NUM },
	{ "LOSSLESS", "lossless", NULL, F_BOOL },
	{ "XOFF", "xoff", NULL, F_BOOL },
	{ "SHARED", "shared_bytes", NULL, F_NUM },
	{ "HEADROOM", "headroom_bytes", NULL, F_NUM },
	{ "SHARED_WM", "shared_watermark_bytes", NULL, F_NUM },
	{ "HEADROOM_WM", "headroom_watermark_bytes", NULL, F_NUM },
	{ "XOFFS", "xoff_events", NULL, F_NUM },
	{ "XONS", "xon_events", NULL, F_NUM },
};

static const struct col pfcwd_cols[] = {
	{ "PORT", "port", NULL, F_STR },
	{ "QUEUE", "queue", NULL, F_NUM },
	{ "STATUS", "status", NULL, F_STR },
	{ "ACTION", "action", NULL, F_STR },
	{ "STORMS", "storms_detected", NULL, F_NUM },
	{ "RESTORED", "storms_restored", NULL, F_NUM },
	{ "DROPS", "drop_packets", NULL, F_NUM },
};

static const struct col trace_cols[] = {
	{ "T_NS", "t_ns", NULL, F_NUM },
	{ "SRC", "src", NULL, F_STR },
	{ "DST", "dst", NULL, F_STR },
	{ "SPORT", "src_port", NULL, F_NUM },
	{ "DPORT", "dst_port", NULL, F_NUM },
	{ "PSN", "psn", NULL, F_NUM },
	{ "GROUP", "group", NULL, F_STR },
	{ "SCHEME", "scheme", NULL, F_STR },
	{ "MEMBER", "member", NULL, F_NUM },
	{ "PORT", "port", NULL, F_STR },
};

static const struct col capture_cols[] = {
	{ "PORT", "port", NULL, F_STR },
	{ "FILE", "file", NULL, F_STR },
	{ "DROPS", "drops", NULL, F_BOOL },
	{ "SNAPLEN", "snaplen", NULL, F_NUM },
	{ "WRITTEN", "packets_written", NULL, F_NUM },
	{ "SKIPPED", "packets_skipped", NULL, F_NUM },
	{ "BYTES", "bytes_written", NULL, F_NUM },
	{ "LIMIT_REACHED", "limit_reached", NULL, F_STR },
};

/* Rows built from an object's entries: {"reason": key, "count": value}. */
static const struct col drop_reason_cols[] = {
	{ "REASON", "reason", NULL, F_STR },
	{ "COUNT", "count", NULL, F_NUM },
};

static void *
xmalloc(size_t n)
{
	void *p = malloc(n);

	if (p == NULL) {
		fprintf(stderr, "aifabricctl: out of memory\n");
		exit(EXIT_ERR);
	}
	return p;
}

static char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

/* Server text goes to a terminal: no control characters. */
static char *
printable(char *s)
{
	for (unsigned char *p = (unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return s;
}

/* Columns a string takes on a UTF-8 terminal (code points). */
static size_t
display_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Any JSON value as one line of text; malloc'd. */
static char *
scalar_text(const json_t *v)
{
	char buf[64];

	switch (json_typeof(v)) {
	case JSON_STRING:
		return printable(xstrdup(json_string_value(v)));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
		return xstrdup(buf);
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		return xstrdup(buf);
	case JSON_TRUE:
		return xstrdup("true");
	case JSON_FALSE:
		return xstrdup("false");
	case JSON_NULL:
		return xstrdup("-");
	default: {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		return s ? printable(s) : xstrdup("?");
	}
	}
}

static char *
speed_text(const json_t *v)
{
	char buf[32];
	json_int_t mbps;

	if (!json_is_integer(v))
		return json_is_real(v) ? scalar_text(v) : xstrdup("-");
	mbps = json_integer_value(v);
	if (mbps <= 0)
		return xstrdup("-");
	if (mbps % 1000000 == 0)
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "T", mbps / 1000000);
	else if (mbps % 1000 == 0)
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "G", mbps / 1000);
	else if (mbps > 1000)
		snprintf(buf, sizeof(buf), "%.1fG", (double)mbps / 1000);
	else
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "M", mbps);
	return xstrdup(buf);
}

static char *
list_text(const json_t *v)
{
	size_t len = 1, i;
	json_t *e;
	char *s;

	if (!json_is_array(v))
		return scalar_text(v);
	if (json_array_size(v) == 0)
		return xstrdup("-");
	json_array_foreach(v, i, e) {
		char *t = scalar_text(e);

		len += strlen(t) + 1;
		free(t);
	}
	s = xmalloc(len);
	s[0] = '\0';
	json_array_foreach(v, i, e) {
		char *t = scalar_text(e);

		if (i > 0)
			strcat(s, ",");
		strcat(s, t);
		free(t);
	}
	return s;
}

static char *
sum_text(const json_t *v)
{
	const char *k;
	json_int_t sum = 0;
	json_t *e;
	char buf[32];

	if (!json_is_object(v))
		return json_is_number(v) ? scalar_text(v) : xstrdup("-");
	json_object_foreach((json_t *)v, k, e)
		sum += json_is_integer(e) ? json_integer_value(e) : 0;
	snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, sum);
	return xstrdup(buf);
}

/* The text of one cell; "-" when the field is missing. */
static char *
cell_text(const struct col *c, const json_t *row)
{
	const json_t *v = json_object_get(row, c->key);

	if ((v == NULL || json_is_null(v)) && c->alt != NULL)
		v = json_object_get(row, c->alt);
	if (c->at && json_is_array(v))
		v = json_array_get(v, c->at - 1);
	if (v == NULL || json_is_null(v))
		return xstrdup("-");
	switch (c->fmt) {
	case F_SPEED:
		return speed_text(v);
	case F_LIST:
		return list_text(v);
	case F_BOOL:
		if (json_is_boolean(v))
			return xstrdup(json_is_true(v) ? "yes" : "no");
		return scalar_text(v);
	case F_SUM:
		return sum_text(v);
	case F_STR:
	case F_NUM:
		break;
	}
	return scalar_text(v);
}

static bool
right_aligned(enum fmt f)
{
	return f == F_NUM || f == F_SPEED || f == F_SUM;
}

/*
 * Print the array rows as a table with the given columns, each as wide as
 * its widest cell, two spaces apart, indent spaces in; with a title row
 * unless header is false.  Rows that are not objects show "-" throughout.
 */
static void
print_table(const struct col *cols, size_t ncols, const json_t *rows,
	    bool header, int indent)
{
	size_t nrows = json_array_size(rows) + 1; /* + titles */
	size_t width[MAX_COLS] = { 0 };
	char **cell;

	if (ncols > MAX_COLS)
		ncols = MAX_COLS;
	cell = xmalloc(nrows * ncols * sizeof(*cell));
	for (size_t c = 0; c < ncols; c++)
		cell[c] = xstrdup(cols[c].title);
	for (size_t r = 1; r < nrows; r++)
		for (size_t c = 0; c < ncols; c++)
			cell[r * ncols + c] =
				cell_text(&cols[c], json_array_get(rows, r - 1));
	for (size_t r = header ? 0 : 1; r < nrows; r++)
		for (size_t c = 0; c < ncols; c++) {
			size_t w = display_width(cell[r * ncols + c]);

			if (w > width[c])
				width[c] = w;
		}

	for (size_t r = header ? 0 : 1; r < nrows; r++) {
		printf("%*s", indent, "");
		for (size_t c = 0; c < ncols; c++) {
			const char *s = cell[r * ncols + c];
			size_t pad = width[c] - display_width(s);
			bool last = c + 1 == ncols;

			if (right_aligned(cols[c].fmt))
				printf("%*s%s", (int)pad, "", s);
			else if (last)
				printf("%s", s);
			else
				printf("%s%*s", s, (int)pad, "");
			if (!last)
				printf(COL_GAP);
		}
		printf("\n");
	}
	for (size_t i = 0; i < nrows * ncols; i++)
		free(cell[i]);
	free(cell);
}

/* ---------------------------------------------------------------- */
/* Views                                                             */

struct view {
	const char *cmd;
	void (*render)(const struct view *v, const json_t *result);
	const struct col *cols;
	size_t ncols;
};

static void render_json(const json_t *result);

static void
render_rows(const struct view *v, const json_t *result)
{
	if (!json_is_array(result)) {
		render_json(result);
		return;
	}
	print_table(v->cols, v->ncols, result, true, 0);
}

/* The neighbour table, then one line of learning limits and counters. */
static void
render_neighbors(const struct view *v, const json_t *result)
{
	const json_t *entries = json_object_get(result, "entries");
	const json_t *lr = json_object_get(result, "learning");
	const char *k;
	json_t *n;

	if (!json_is_array(entries) || !json_is_object(lr)) {
		render_json(result);
		return;
	}
	if (json_array_size(entries) == 0)
		printf("no neighbors\n");
	else
		print_table(v->cols, v->ncols, entries, true, 0);
	printf("learning:");
	json_object_foreach((json_t *)lr, k, n)
		if (json_is_integer(n))
			printf(" %s %" JSON_INTEGER_FORMAT, k, json_integer_value(n));
	printf("\n");
}

static void
render_group_list(const json_t *groups)
{
	size_t i;
	json_t *g;

	if (json_array_size(groups) == 0) {
		printf("no groups\n");
		return;
	}
	json_array_foreach(groups, i, g) {
		const json_t *members = json_object_get(g, "members");
		size_t n = json_array_size(members);
		char *name = cell_text(&(struct col){ NULL, "name", NULL, F_STR }, g);
		char *scheme = cell_text(&(struct col){ NULL, "scheme", NULL, F_STR }, g);

		const json_t *coll = json_object_get(g, "flowlet_collisions");
		const json_t *untr = json_object_get(g, "flowlet_untracked");

		if (i > 0)
			printf("\n");
		printf("group %s (%s, %zu member%s", name, scheme, n, n == 1 ? "" : "s");
		/* flows that shared another flow's flowlet (pipelines/lb_flowlet.c) */
		if (json_is_integer(coll))
			printf(", %" JSON_INTEGER_FORMAT " flowlet collisions",
			       json_integer_value(coll));
		/* packets the exact flowlet table had no room for */
		if (json_is_integer(untr) && json_integer_value(untr) != 0)
			printf(", %" JSON_INTEGER_FORMAT " packets without a flowlet entry",
			       json_integer_value(untr));
		printf(")\n");
		if (n > 0)
			print_table(COLS(member_cols), members, true, 2);
		free(name);
		free(scheme);
	}
}

static void
render_groups(const struct view *v, const json_t *result)
{
	(void)v;
	if (!json_is_array(result)) {
		render_json(result);
		return;
	}
	render_group_list(result);
}

static void
render_counters(const struct view *v, const json_t *result)
{
	const json_t *drops = json_object_get(result, "drops");
	const json_t *groups = json_object_get(result, "groups");
	json_t *rows;
	const char *k;
	json_t *n;

	(void)v;
	if (!json_is_object(result)) {
		render_json(result);
		return;
	}
	print_table(COLS(port_counter_cols), json_object_get(result, "ports"),
		    true, 0);

	rows = json_array();
	json_object_foreach((json_t *)drops, k, n) {
		if (json_is_number(n) && json_number_value(n) == 0)
			continue;
		json_array_append_new(rows, json_pack("{s:s,s:O}", "reason", k,
						      "count", n));
	}
	if (json_array_size(rows) == 0) {
		printf("\ndrops by reason: none\n");
	} else {
		printf("\ndrops by reason:\n");
		print_table(COLS(drop_reason_cols), rows, false, 2);
	}
	json_decref(rows);

	if (json_array_size(groups) > 0) {
		printf("\n");
		render_group_list(groups);
	}
}

/* "key: value" lines; nested objects as "key.sub: value". */
static void
print_kv(const json_t *obj, const char *prefix)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)obj, k, v) {
		char *key, *text;
		size_t n = strlen(prefix) + strlen(k) + 2;

		key = xmalloc(n);
		snprintf(key, n, "%s%s%s", prefix, *prefix ? "." : "", k);
		if (json_is_object(v) && json_object_size(v) > 0) {
			print_kv(v, key);
			free(key);
			continue;
		}
		text = json_is_array(v) ? list_text(v) : scalar_text(v);
		printf("%s: %s\n", printable(key), text);
		free(text);
		free(key);
	}
}

static void
render_status(const struct view *v, const json_t *result)
{
	(void)v;
	if (json_is_object(result))
		print_kv(result, "");
	else
		render_json(result);
}

/* load, clear_counters and anything else: "ok" and what came back. */
static void
render_ok(const struct view *v, const json_t *result)
{
	(void)v;
	printf("ok\n");
	if (json_is_object(result))
		print_kv(result, "");
	else if (result != NULL && !json_is_null(result))
		render_json(result);
}

/* load: "ok"; on a fabric, a line per switch with what it now runs. */
static void
render_load(const struct view *v, const json_t *result)
{
	const json_t *sws = json_object_get(result, "switches");
	const char *k;
	json_t *e;
	size_t i;

	if (!json_is_array(sws)) {
		render_ok(v, result);
		return;
	}
	printf("ok\n");
	json_object_foreach((json_t *)result, k, e) {
		if (strcmp(k, "switches") == 0)
			continue;
		char *t = scalar_text(e), *key = xstrdup(k);
		printf("%s: %s\n", printable(key), t);
		free(key);
		free(t);
	}
	json_array_foreach(sws, i, e) {
		if (!json_is_string(json_object_get(e, "switch")))
			continue;
		char *name = scalar_text(json_object_get(e, "switch"));
		printf("%s: generation %lld, routes %lld, groups %lld, neighbors %lld\n",
		       name, (long long)json_integer_value(json_object_get(e, "generation")),
		       (long long)json_integer_value(json_object_get(e, "routes")),
		       (long long)json_integer_value(json_object_get(e, "groups")),
		       (long long)json_integer_value(json_object_get(e, "neighbors")));
		free(name);
	}
}

static void
render_pfc(const struct view *v, const json_t *result)
{
	(void)v;
	if (!json_is_array(result)) {
		render_json(result);
		return;
	}
	print_table(COLS(pfc_rx_cols), result, true, 0);
	printf("\n");
	print_table(COLS(pfc_rx_xon_cols), result, true, 0);
	printf("\n");
	print_table(COLS(pfc_tx_cols), result, true, 0);
	printf("\n");
	print_table(COLS(pfc_tx_xon_cols), result, true, 0);
	printf("\n");
	print_table(COLS(pfc_us_cols), result, true, 0);
	printf("\n");
	print_table(COLS(pfc_port_cols), result, true, 0);

	/* refused MAC control frames: the reasons that occurred, per port */
	json_t *rows = json_array(), *row, *n;
	const char *k;
	size_t i;
	json_array_foreach(result, i, row) {
		json_object_foreach(json_object_get(row, "rx_errors"), k, n) {
			if (json_is_number(n) && json_number_value(n) == 0)
				continue;
			json_array_append_new(rows, json_pack("{s:O?, s:s, s:O}", "port",
							      json_object_get(row, "name"),
							      "reason", k, "count", n));
		}
	}
	if (json_array_size(rows) == 0) {
		printf("\nmalformed MAC control by reason: none\n");
	} else {
		printf("\nmalformed MAC control by reason:\n");
		print_table(COLS(pfc_err_cols), rows, false, 2);
	}
	json_decref(rows);
}

static void
render_buffer(const struct view *v, const json_t *result)
{
	const json_t *pool = json_object_get(result, "pool");
	const char *k;
	json_t *e;

	(void)v;
	if (!json_is_object(pool)) {
		render_json(result);
		return;
	}
	printf("buffer pool:\n");
	json_object_foreach((json_t *)pool, k, e) {
		char *s = scalar_text(e);
		printf("  %-26s %s\n", k, s);
		free(s);
	}
	printf("\n");
	print_table(COLS(pg_cols), json_object_get(result, "priority_groups"), true, 0);
}

static void
render_trace(const struct view *v, const json_t *result)
{
	(void)v;
	const json_t *rows = json_object_get(result, "packets");
	if (!json_is_array(rows)) {
		render_json(result);
		return;
	}
	printf("tracing: %s, lost: %" JSON_INTEGER_FORMAT "\n",
	       json_is_true(json_object_get(result, "tracing")) ? "on" : "off",
	       json_integer_value(json_object_get(result, "lost")));
	print_table(COLS(trace_cols), rows, true, 0);
}

static const struct col topology_cols[] = {
	{ "PORT", "name", NULL, F_STR },
	{ "KIND", "kind", NULL, F_STR },
	{ "DEVICE", "device", NULL, F_STR },
	{ "SPEED", "speed_mbps", NULL, F_SPEED },
	{ "LINK", "link", NULL, F_STR },
	{ "PEER", "peer", NULL, F_STR },
};

static const struct col link_cols[] = {
	{ "FROM", "from", NULL, F_STR },
	{ "TO", "to", NULL, F_STR },
	{ "RATE", "rate", NULL, F_STR },
	{ "DELAY_NS", "delay_ns", NULL, F_NUM },
	{ "LINK", "link", NULL, F_STR },
	{ "PACKETS", "tx_packets", NULL, F_NUM },
	{ "BYTES", "tx_bytes", NULL, F_NUM },
	{ "UTIL", "util", NULL, F_STR },
	{ "PAUSES", "tx_ctrl", NULL, F_NUM },
	{ "REFUSED", "refused", NULL, F_NUM },
	{ "LOST", "lost_full", NULL, F_NUM },
};

/* One row per link direction. */
static void
render_links(const struct view *v, const json_t *result)
{
	json_t *rows = json_array(), *l, *d;
	size_t i, j;
	char buf[32];

	if (!json_is_array(result)) {
		render_json(result);
		json_decref(rows);
		return;
	}
	json_array_foreach(result, i, l) {
		json_array_foreach(json_object_get(l, "directions"), j, d) {
			json_t *r = json_deep_copy(d);
			snprintf(buf, sizeof(buf), "%gG",
				 json_number_value(json_object_get(l, "rate_gbps")));
			json_object_set_new(r, "rate", json_string(buf));
			json_object_set(r, "delay_ns", json_object_get(l, "delay_ns"));
			json_object_set(r, "link", json_object_get(l, "link"));
			snprintf(buf, sizeof(buf), "%.1f%%",
				 100.0 * json_number_value(json_object_get(d, "utilization")));
			json_object_set_new(r, "util", json_string(buf));
			json_array_append_new(rows, r);
		}
	}
	if (json_array_size(rows) == 0)
		printf("no emulated links\n");
	else
		print_table(v->cols, v->ncols, rows, true, 0);
	json_decref(rows);
}

/* show lb: a line per program, then where it runs and its counters. */
static void
render_lb(const struct view *v, const json_t *result)
{
	const json_t *arr = json_object_get(result, "programs"), *e, *w;
	size_t i, j;

	(void)v;
	if (!json_is_array(arr)) {
		render_json(result);
		return;
	}
	if (json_array_size(arr) == 0) {
		printf("no load-balancing programs\n");
		return;
	}
	printf("%-16s %-7s %-12s %6s %10s %14s %10s  %s\n", "NAME", "SOURCE", "ENGINE", "INSNS",
	       "TABLE", "RUNS", "FALLBACKS", "WHERE");
	json_array_foreach(arr, i, e) {
		char where[256];
		size_t at = 0;
		where[0] = '\0';
		json_array_foreach(json_object_get(e, "where"), j, w)
			if (at < sizeof(where))
				at += (size_t)snprintf(where + at, sizeof(where) - at, "%s%s",
						       j ? ", " : "", json_string_value(w));
		printf("%-16s %-7s %-12s %6lld %10lld %14lld %10lld  %s\n",
		       json_string_value(json_object_get(e, "name")),
		       json_string_value(json_object_get(e, "source")),
		       json_string_value(json_object_get(e, "engine")),
		       (long long)json_integer_value(json_object_get(e, "instructions")),
		       (long long)json_integer_value(json_object_get(e, "table_size")),
		       (long long)json_integer_value(json_object_get(e, "runs")),
		       (long long)json_integer_value(json_object_get(e, "fallbacks")), where);
		printf("%-16s counters:", "");
		json_array_foreach(json_object_get(e, "counters"), j, w)
			printf(" %lld", (long long)json_integer_value(w));
		printf("\n");
	}
}

static const struct view views[] = {
	{ "show_lb", render_lb, NULL, 0 },
	{ "show_links", render_links, COLS(link_cols) },
	{ "show_topology", render_rows, COLS(topology_cols) },
	{ "status", render_status, NULL, 0 },
	{ "load", render_load, NULL, 0 },
	{ "show_ports", render_rows, COLS(port_cols) },
	{ "show_routes", render_rows, COLS(route_cols) },
	{ "show_neighbors", render_neighbors, COLS(neighbor_cols) },
	{ "show_groups", render_groups, NULL, 0 },
	{ "show_counters", render_counters, NULL, 0 },
	{ "show_pfc", render_pfc, NULL, 0 },
	{ "show_queues", render_rows, COLS(queue_cols) },
	{ "show_buffer", render_buffer, NULL, 0 },
	{ "show_pfcwd", render_rows, COLS(pfcwd_cols) },
	{ "show_captures", render_rows, COLS(capture_cols) },
	{ "show_trace", render_trace, NULL, 0 },
};

static const struct view default_view = { NULL, render_ok, NULL, 0 };

static const struct view *
view_for(const char *cmd)
{
	for (size_t i = 0; cmd != NULL && i < sizeof(views) / sizeof(views[0]); i++)
		if (strcmp(views[i].cmd, cmd) == 0)
			return &views[i];
	return &default_view;
}

static void
render_json(const json_t *result)
{
	char *s = json_dumps(result, JSON_INDENT(2) | JSON_ENCODE_ANY);

	printf("%s\n", s ? s : "null");
	free(s);
}

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
		return xstrdup(argv[1]);
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
	char *buf = xmalloc(len + 1);

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
	char *buf = xmalloc(cap);

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
			sock_path, printable(text));
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

/* A result for several switches: each one's view under its name. */
static bool
render_switches(const struct view *v, const json_t *result)
{
	const json_t *arr = json_object_get(result, "switches");
	size_t i;
	const json_t *e;

	if (!json_is_array(arr) || json_object_size(result) != 1)
		return false;
	json_array_foreach(arr, i, e) {
		printf("%sswitch %s:\n", i ? "\n" : "",
		       json_string_value(json_object_get(e, "switch")));
		v->render(v, json_object_get(e, "result"));
	}
	return true;
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
		char *msg = xstrdup(e ? e : "(no reason given)");

		fprintf(stderr, "error: %s\n", printable(msg));
		free(msg);
		json_decref(reply);
		return EXIT_ERR;
	}
	result = json_object_get(reply, "result");
	if (as_json) {
		render_json(result ? result : json_null());
	} else {
		const struct view *v = view_for(cmd);

		if (!render_switches(v, result))
			v->render(v, result);
	}
	json_decref(reply);
	return fflush(stdout) == 0 ? 0 : EXIT_ERR;
}
