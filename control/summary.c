/* SPDX-License-Identifier: BSD-3-Clause */
/* The daemon's exit summary (see summary.h).  Plain C and jansson. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"

#define NAME_LEN (2 * AIF_NAME_MAX + 2) /* switch:port */

struct out {
	FILE *f;
	unsigned lines;
};

/* printf to o->f, counting lines (the arguments never hold a newline). */
static void __attribute__((format(printf, 2, 3)))
emit(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
	for (const char *p = fmt; *p != '\0'; p++)
		o->lines += *p == '\n';
}

static json_int_t
jint(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static json_int_t
drops_of(const json_t *port_or_switch)
{
	const char *k;
	json_t *v;
	json_int_t n = 0;

	json_object_foreach(json_object_get(port_or_switch, "drops"), k, v)
		n += json_integer_value(v);
	return n;
}

/* Non-zero counts of drops (reason -> count), under title. */
static void
print_drops(struct out *o, const json_t *drops, const char *title)
{
	const char *k;
	json_t *v;
	int any = 0;

	json_object_foreach((json_t *)drops, k, v) {
		if (json_integer_value(v) == 0)
			continue;
		if (!any++)
			emit(o, "  %s:\n", title);
		emit(o, "    %-28s %" JSON_INTEGER_FORMAT "\n", k, json_integer_value(v));
	}
	if (!any)
		emit(o, "  drops: none\n");
}

unsigned
aif_summary_print_switch(FILE *f, const json_t *c, double elapsed_s)
{
	struct out o = { f, 0 };
	json_t *p;
	size_t i;

	emit(&o, "\nsummary: %.2f s\n", elapsed_s);
	emit(&o, "  %-6s %14s %14s %14s %14s %12s\n", "port", "rx_packets", "rx_bytes",
	     "tx_packets", "tx_bytes", "rx_Mpps");
	json_array_foreach(json_object_get(c, "ports"), i, p) {
		json_int_t rx = jint(p, "rx_packets");
		emit(&o, "  %-6s %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT
		     " %14" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT " %12.3f\n",
		     json_string_value(json_object_get(p, "name")), rx, jint(p, "rx_bytes"),
		     jint(p, "tx_packets"), jint(p, "tx_bytes"),
		     elapsed_s > 0 ? (double)rx / elapsed_s / 1e6 : 0.0);
	}
	print_drops(&o, json_object_get(c, "drops"), "drops by reason");
	return o.lines;
}

struct sw_row {
	const char *name;
	json_int_t rx, tx, drops;
};

struct dir_row {
	char name[2 * NAME_LEN + 1]; /* from>to */
	json_int_t packets, bytes, pauses, lost, corrupt;
	double util;
};

struct edge_row {
	char name[NAME_LEN];
	json_int_t in, out, drops;
};

/* Worst first: frames lost or corrupted, then PFC frames, then utilization,
 * then packets; the name last, so that the order is always the same. */
static int
dir_worse(const void *a, const void *b)
{
	const struct dir_row *x = a, *y = b;

	if (x->lost + x->corrupt != y->lost + y->corrupt)
		return x->lost + x->corrupt > y->lost + y->corrupt ? -1 : 1;
	if (x->pauses != y->pauses)
		return x->pauses > y->pauses ? -1 : 1;
	if (x->util != y->util)
		return x->util > y->util ? -1 : 1;
	if (x->packets != y->packets)
		return x->packets > y->packets ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
sw_more_drops(const void *a, const void *b)
{
	const struct sw_row *x = a, *y = b;

	return x->drops != y->drops ? (x->drops > y->drops ? -1 : 1) : strcmp(x->name, y->name);
}

static int
edge_more_drops(const void *a, const void *b)
{
	const struct edge_row *x = a, *y = b;

	return x->drops != y->drops ? (x->drops > y->drops ? -1 : 1) : strcmp(x->name, y->name);
}

static int
edge_busier(const void *a, const void *b)
{
	const struct edge_row *x = a, *y = b;

	return x->in + x->out != y->in + y->out ? (x->in + x->out > y->in + y->out ? -1 : 1)
						: strcmp(x->name, y->name);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void
dir_header(struct out *o)
{
	emit(o, "  %-36s %12s %14s %6s %8s %6s %8s\n", "link direction", "packets", "bytes",
	     "util", "pauses", "lost", "corrupt");
}

static void
dir_print(struct out *o, const struct dir_row *d)
{
	/* lost: delay line full, random loss, on the wire at a link down,
	 * handed to it while down (the JSON has each) */
	emit(o, "  %-36s %12" JSON_INTEGER_FORMAT " %14" JSON_INTEGER_FORMAT " %5.1f%% %8"
	     JSON_INTEGER_FORMAT " %6" JSON_INTEGER_FORMAT " %8" JSON_INTEGER_FORMAT "\n",
	     d->name, d->packets, d->bytes, 100.0 * d->util, d->pauses, d->lost, d->corrupt);
}

static void
edge_print(struct out *o, const struct edge_row *e)
{
	if (e->drops != 0)
		emit(o, "  edge %-20s in %8" JSON_INTEGER_FORMAT "  out %8" JSON_INTEGER_FORMAT
		     "  dropped %" JSON_INTEGER_FORMAT "\n", e->name, e->in, e->out, e->drops);
	else
		emit(o, "  edge %-20s in %8" JSON_INTEGER_FORMAT "  out %8" JSON_INTEGER_FORMAT "\n",
		     e->name, e->in, e->out);
}

unsigned
aif_summary_print_fabric(FILE *f, const json_t *fj, const struct aif_summary_run *r)
{
	const json_t *sws = json_object_get(fj, "switches"), *links = json_object_get(fj, "links");
	struct out o = { f, 0 };
	size_t n_sw = json_array_size(sws), n_dir = 0, n_ends = 0, n_edge = 0, n_active = 0;
	json_t *sw, *l, *d, *p, *v, *total = json_object();
	const char *k;
	size_t i, j;

	json_array_foreach(links, i, l)
		n_dir += json_array_size(json_object_get(l, "directions"));
	size_t n_ports = 0;
	json_array_foreach(sws, i, sw)
		n_ports += json_array_size(json_object_get(sw, "ports"));
	struct sw_row *srow = calloc(n_sw + 1, sizeof(*srow));
	struct dir_row *drow = calloc(n_dir + 1, sizeof(*drow));
	struct edge_row *erow = calloc(n_ports + 1, sizeof(*erow));
	const char **ends = calloc(n_dir + 1, sizeof(*ends));
	if (total == NULL || srow == NULL || drow == NULL || erow == NULL || ends == NULL) {
		emit(&o, "\nsummary: out of memory\n");
		goto out;
	}

	/* the link directions, and the ports at their ends */
	n_dir = 0;
	json_array_foreach(links, i, l)
		json_array_foreach(json_object_get(l, "directions"), j, d) {
			struct dir_row *x = &drow[n_dir++];
			const char *from = json_string_value(json_object_get(d, "from"));
			snprintf(x->name, sizeof(x->name), "%s>%s", from ? from : "?",
				 json_string_value(json_object_get(d, "to")));
			x->packets = jint(d, "tx_packets");
			x->bytes = jint(d, "tx_bytes");
			x->util = json_number_value(json_object_get(d, "utilization"));
			x->pauses = jint(d, "tx_ctrl");
			x->lost = jint(d, "lost_full") + jint(d, "lost_random") +
				  jint(d, "lost_down") + jint(d, "dropped_down");
			x->corrupt = jint(d, "corrupted");
			if (from != NULL)
				ends[n_ends++] = from;
		}
	qsort(ends, n_ends, sizeof(*ends), name_cmp);

	/* the switches, their drops by reason, and their edge ports */
	json_array_foreach(sws, i, sw) {
		struct sw_row *x = &srow[i];
		x->name = json_string_value(json_object_get(sw, "switch"));
		json_array_foreach(json_object_get(sw, "ports"), j, p) {
			x->rx += jint(p, "rx_packets");
			x->tx += jint(p, "tx_packets");
			char name[NAME_LEN];
			const char *key = name;
			snprintf(name, sizeof(name), "%s:%s", x->name ? x->name : "?",
				 json_string_value(json_object_get(p, "name")));
			if (bsearch(&key, ends, n_ends, sizeof(*ends), name_cmp) != NULL)
				continue;
			struct edge_row *e = &erow[n_edge++];
			memcpy(e->name, name, sizeof(e->name));
			e->in = jint(p, "rx_packets");
			e->out = jint(p, "tx_packets");
			e->drops = drops_of(p);
			n_active += e->in || e->out;
		}
		json_object_foreach(json_object_get(sw, "drops"), k, v) {
			x->drops += json_integer_value(v);
			json_object_set_new(total, k, json_integer(jint(total, k) +
								   json_integer_value(v)));
		}
	}

	if (r->virtual_ns != AIF_TIME_NS_NEVER)
		emit(&o, "\nsummary: %.6f s of virtual time in %.2f s: %" PRIu64 " packet-hops, "
		     "%.2f M packet-hops/s\n", (double)r->virtual_ns / 1e9, r->elapsed_s,
		     r->packet_hops, r->elapsed_s > 0 ? (double)r->packet_hops / r->elapsed_s / 1e6
						      : 0.0);
	else
		emit(&o, "\nsummary: %.2f s: %" PRIu64 " packet-hops, %.2f M packet-hops/s\n",
		     r->elapsed_s, r->packet_hops,
		     r->elapsed_s > 0 ? (double)r->packet_hops / r->elapsed_s / 1e6 : 0.0);

	if (n_sw + n_dir + n_active <= AIF_SUMMARY_FULL_ROWS) {
		emit(&o, "  %-16s %12s %12s %10s\n", "switch", "rx_packets", "tx_packets", "drops");
		for (i = 0; i < n_sw; i++)
			emit(&o, "  %-16s %12" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT
			     " %10" JSON_INTEGER_FORMAT "\n", srow[i].name, srow[i].rx, srow[i].tx,
			     srow[i].drops);
		if (n_dir > 0)
			dir_header(&o);
		for (i = 0; i < n_dir; i++)
			dir_print(&o, &drow[i]);
		for (i = 0; i < n_edge; i++)
			if (erow[i].in || erow[i].out)
				edge_print(&o, &erow[i]);
		print_drops(&o, total, "drops by reason, fabric-wide");
		goto out;
	}

	/* a large fabric: totals, the worst, and where the rest is */
	json_int_t rx = 0, tx = 0, drops = 0, sw_dropping = 0;
	for (i = 0; i < n_sw; i++) {
		rx += srow[i].rx, tx += srow[i].tx, drops += srow[i].drops;
		sw_dropping += srow[i].drops != 0;
	}
	emit(&o, "  %zu switches: %" JSON_INTEGER_FORMAT " packets in, %" JSON_INTEGER_FORMAT
	     " out, %" JSON_INTEGER_FORMAT " dropped\n", n_sw, rx, tx, drops);
	if (sw_dropping > 0) {
		qsort(srow, n_sw, sizeof(*srow), sw_more_drops);
		emit(&o, "    most drops:");
		for (i = 0; i < n_sw && i < AIF_SUMMARY_TOP && srow[i].drops > 0; i++)
			emit(&o, "%s %s %" JSON_INTEGER_FORMAT, i ? "," : "", srow[i].name,
			     srow[i].drops);
		emit(&o, sw_dropping > AIF_SUMMARY_TOP ? " (%" JSON_INTEGER_FORMAT
			 " switches drop)\n" : "\n", sw_dropping);
	}
	if (n_dir > 0) {
		json_int_t pk = 0, by = 0, pa = 0, lo = 0, co = 0;
		double usum = 0, umax = 0;
		for (i = 0; i < n_dir; i++) {
			pk += drow[i].packets, by += drow[i].bytes, pa += drow[i].pauses;
			lo += drow[i].lost, co += drow[i].corrupt, usum += drow[i].util;
			umax = drow[i].util > umax ? drow[i].util : umax;
		}
		qsort(drow, n_dir, sizeof(*drow), dir_worse);
		size_t show = n_dir < AIF_SUMMARY_WORST_LINKS ? n_dir : AIF_SUMMARY_WORST_LINKS;
		emit(&o, "  %zu link directions: %" JSON_INTEGER_FORMAT " packets, %" JSON_INTEGER_FORMAT
		     " bytes, %" JSON_INTEGER_FORMAT " PFC frames, %" JSON_INTEGER_FORMAT " lost, %"
		     JSON_INTEGER_FORMAT " corrupted\n", n_dir, pk, by, pa, lo, co);
		emit(&o, "    utilization mean %.1f%%, max %.1f%%; the %zu worst by frames lost or "
		     "corrupted, PFC frames, utilization:\n",
		     100.0 * usum / (double)n_dir, 100.0 * umax, show);
		dir_header(&o);
		for (i = 0; i < show; i++)
			dir_print(&o, &drow[i]);
	}
	if (n_edge > 0) {
		json_int_t in = 0, out = 0, edrops = 0, e_dropping = 0;
		for (i = 0; i < n_edge; i++) {
			in += erow[i].in, out += erow[i].out, edrops += erow[i].drops;
			e_dropping += erow[i].drops != 0;
		}
		qsort(erow, n_edge, sizeof(*erow), edge_busier);
		emit(&o, "  %zu edge ports (%zu with traffic): %" JSON_INTEGER_FORMAT " packets in, %"
		     JSON_INTEGER_FORMAT " out, %" JSON_INTEGER_FORMAT " dropped\n", n_edge, n_active,
		     in, out, edrops);
		if (n_active > 0)
			emit(&o, "    busiest %s: in %" JSON_INTEGER_FORMAT ", out %" JSON_INTEGER_FORMAT
			     "\n", erow[0].name, erow[0].in, erow[0].out);
		if (e_dropping > 0) {
			qsort(erow, n_edge, sizeof(*erow), edge_more_drops);
			emit(&o, "    most drops:");
			for (i = 0; i < n_edge && i < AIF_SUMMARY_TOP && erow[i].drops > 0; i++)
				emit(&o, "%s %s %" JSON_INTEGER_FORMAT, i ? "," : "", erow[i].name,
				     erow[i].drops);
			emit(&o, "\n");
		}
	}
	print_drops(&o, total, "drops by reason, fabric-wide");
	if (r->stats_path != NULL)
		emit(&o, "  every switch, port and link direction: %s\n", r->stats_path);
	else
		emit(&o, "  every switch, port and link direction: run with --stats FILE\n");
out:
	if (r->pcap_out != NULL && n_active > 0)
		emit(&o, "  what the switches sent the hosts: %s/SWITCH-PORT.pcap\n", r->pcap_out);
	json_decref(total);
	free(srow);
	free(drow);
	free(erow);
	free(ends);
	return o.lines;
}
