/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aifabricctl's views (ctl_views.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ctl_views.h"

#define EXIT_ERR 1
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

static const struct col bfd_cols[] = {
	{ "PORT", "port", NULL, F_STR },
	{ "PEER", "peer", NULL, F_STR },
	{ "STATE", "state", NULL, F_STR },
	{ "REMOTE", "remote_state", NULL, F_STR },
	{ "DIAG", "diag", NULL, F_STR },
	{ "TX_US", "tx_interval_us", NULL, F_NUM },
	{ "DETECT_US", "detect_us", NULL, F_NUM },
	{ "TX", "tx", NULL, F_NUM },
	{ "RX", "rx", NULL, F_NUM },
	{ "BAD", "rx_bad_total", NULL, F_NUM },
	{ "UPS", "ups", NULL, F_NUM },
	{ "DOWNS", "downs", NULL, F_NUM },
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

void *
aif_ctl_xmalloc(size_t n)
{
	void *p = malloc(n);

	if (p == NULL) {
		fprintf(stderr, "aifabricctl: out of memory\n");
		exit(EXIT_ERR);
	}
	return p;
}

char *
aif_ctl_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(aif_ctl_xmalloc(n), s, n);
}

/* Server text goes to a terminal: no control characters. */
char *
aif_ctl_printable(char *s)
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
		return aif_ctl_printable(aif_ctl_xstrdup(json_string_value(v)));
	case JSON_INTEGER:
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
		return aif_ctl_xstrdup(buf);
	case JSON_REAL:
		snprintf(buf, sizeof(buf), "%g", json_real_value(v));
		return aif_ctl_xstrdup(buf);
	case JSON_TRUE:
		return aif_ctl_xstrdup("true");
	case JSON_FALSE:
		return aif_ctl_xstrdup("false");
	case JSON_NULL:
		return aif_ctl_xstrdup("-");
	default: {
		char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		return s ? aif_ctl_printable(s) : aif_ctl_xstrdup("?");
	}
	}
}

static char *
speed_text(const json_t *v)
{
	char buf[32];
	json_int_t mbps;

	if (!json_is_integer(v))
		return json_is_real(v) ? scalar_text(v) : aif_ctl_xstrdup("-");
	mbps = json_integer_value(v);
	if (mbps <= 0)
		return aif_ctl_xstrdup("-");
	if (mbps % 1000000 == 0)
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "T", mbps / 1000000);
	else if (mbps % 1000 == 0)
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "G", mbps / 1000);
	else if (mbps > 1000)
		snprintf(buf, sizeof(buf), "%.1fG", (double)mbps / 1000);
	else
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "M", mbps);
	return aif_ctl_xstrdup(buf);
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
		return aif_ctl_xstrdup("-");
	json_array_foreach(v, i, e) {
		char *t = scalar_text(e);

		len += strlen(t) + 1;
		free(t);
	}
	s = aif_ctl_xmalloc(len);
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
		return json_is_number(v) ? scalar_text(v) : aif_ctl_xstrdup("-");
	json_object_foreach((json_t *)v, k, e)
		sum += json_is_integer(e) ? json_integer_value(e) : 0;
	snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, sum);
	return aif_ctl_xstrdup(buf);
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
		return aif_ctl_xstrdup("-");
	switch (c->fmt) {
	case F_SPEED:
		return speed_text(v);
	case F_LIST:
		return list_text(v);
	case F_BOOL:
		if (json_is_boolean(v))
			return aif_ctl_xstrdup(json_is_true(v) ? "yes" : "no");
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
	cell = aif_ctl_xmalloc(nrows * ncols * sizeof(*cell));
	for (size_t c = 0; c < ncols; c++)
		cell[c] = aif_ctl_xstrdup(cols[c].title);
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


static void
render_rows(const struct view *v, const json_t *result)
{
	if (!json_is_array(result)) {
		aif_ctl_view_json(result);
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
		aif_ctl_view_json(result);
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
		aif_ctl_view_json(result);
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
		aif_ctl_view_json(result);
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

		key = aif_ctl_xmalloc(n);
		snprintf(key, n, "%s%s%s", prefix, *prefix ? "." : "", k);
		if (json_is_object(v) && json_object_size(v) > 0) {
			print_kv(v, key);
			free(key);
			continue;
		}
		text = json_is_array(v) ? list_text(v) : scalar_text(v);
		printf("%s: %s\n", aif_ctl_printable(key), text);
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
		aif_ctl_view_json(result);
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
		aif_ctl_view_json(result);
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
		char *t = scalar_text(e), *key = aif_ctl_xstrdup(k);
		printf("%s: %s\n", aif_ctl_printable(key), t);
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
		aif_ctl_view_json(result);
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
		aif_ctl_view_json(result);
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
		aif_ctl_view_json(result);
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
		aif_ctl_view_json(result);
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
		aif_ctl_view_json(result);
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
	{ "show_bfd", render_rows, COLS(bfd_cols) },
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

void
aif_ctl_view_json(const json_t *result)
{
	char *s = json_dumps(result, JSON_INDENT(2) | JSON_ENCODE_ANY);

	printf("%s\n", s ? s : "null");
	free(s);
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


void
aif_ctl_view_print(const char *cmd, const json_t *result)
{
	const struct view *v = view_for(cmd);

	if (!render_switches(v, result))
		v->render(v, result);
}
