/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control commands of the path trace (dataplane/trace.h):
 *   trace_start {"dst": IP, "src": IP, "src_port": N, "dst_port": N}
 *   trace_stop
 *   show_trace  {"offset": N, "limit": N, "clear": true}
 *               -> the packets recorded, oldest first: records offset..
 *                  offset+limit-1 of "total" (default: all of them); the
 *                  kept records only grow until cleared, so a client reads
 *                  a large trace page by page (aifabricctl does); "clear"
 *                  drops every record once this reply is built
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_rcu_qsbr.h>

#include "../dataplane/trace.h"
#include "commands.h"

static const char *const scheme_names[] = { "ecmp", "wcmp", "flowlet", "spray", "adaptive" };

static int
port_arg(const json_t *req, const char *key, uint16_t *out, char *err, size_t err_len)
{
	const json_t *v = json_object_get(req, key);
	*out = 0;
	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65535) {
		snprintf(err, err_len, "\"%s\" must be a port number 1..65535", key);
		return -1;
	}
	*out = rte_cpu_to_be_16((uint16_t)json_integer_value(v));
	return 0;
}

json_t *
aif_ctl_trace_start(struct aif_switch *sw, json_t *req, char *err, size_t err_len)
{
	struct aif_trace_filter f;
	const char *dst = json_string_value(json_object_get(req, "dst"));
	const char *src = json_string_value(json_object_get(req, "src"));

	memset(&f, 0, sizeof(f));
	if (dst == NULL || aif_ip_parse(dst, &f.dst) != 0) {
		snprintf(err, err_len, "trace_start needs \"dst\": an IPv4 or IPv6 address");
		return NULL;
	}
	if (src != NULL && aif_ip_parse(src, &f.src) != 0) {
		snprintf(err, err_len, "\"src\": '%s' is not an IP address", src);
		return NULL;
	}
	if (port_arg(req, "src_port", &f.src_port, err, err_len) != 0 ||
	    port_arg(req, "dst_port", &f.dst_port, err, err_len) != 0)
		return NULL;
	if (sw->trace == NULL) {
		struct aif_trace *tr = aif_trace_create(sw->index, sw->n_shards);
		if (tr == NULL) {
			snprintf(err, err_len, "cannot allocate the trace rings");
			return NULL;
		}
		__atomic_store_n(&sw->trace, tr, __ATOMIC_RELEASE);
	}
	struct aif_trace *tr = sw->trace;
	/* the filter changes only while no worker records */
	__atomic_store_n(&tr->on, 0, __ATOMIC_RELEASE);
	rte_rcu_qsbr_synchronize(sw->qsv, RTE_QSBR_THRID_INVALID);
	aif_trace_drain(tr, sw->n_shards);
	tr->f = f;
	__atomic_store_n(&tr->on, 1, __ATOMIC_RELEASE);
	return json_pack("{s:b}", "tracing", 1);
}

json_t *
aif_ctl_trace_stop(struct aif_switch *sw, char *err, size_t err_len)
{
	struct aif_trace *tr = sw->trace;
	if (tr == NULL || !tr->on) {
		snprintf(err, err_len, "no trace is on");
		return NULL;
	}
	__atomic_store_n(&tr->on, 0, __ATOMIC_RELEASE);
	rte_rcu_qsbr_synchronize(sw->qsv, RTE_QSBR_THRID_INVALID);
	aif_trace_drain(tr, sw->n_shards);
	return json_pack("{s:b, s:I, s:I}", "tracing", 0, "records", (json_int_t)tr->n_kept,
			 "lost", (json_int_t)tr->lost);
}

/* An optional non-negative integer argument; -1 with err when malformed. */
static int
count_arg(const json_t *req, const char *key, uint64_t min, uint64_t *out, char *err,
	  size_t err_len)
{
	const json_t *v = json_object_get(req, key);

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)min) {
		snprintf(err, err_len, "\"%s\" must be an integer >= %" PRIu64, key, min);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

json_t *
aif_ctl_show_trace(struct aif_switch *sw, json_t *req, char *err, size_t err_len)
{
	struct aif_trace *tr = sw->trace;
	const struct aif_tables *t = sw->tables;
	uint64_t offset = 0, limit = UINT64_MAX;
	char a[64], b[64];

	if (tr == NULL) {
		snprintf(err, err_len, "no trace was started (trace_start)");
		return NULL;
	}
	if (count_arg(req, "offset", 0, &offset, err, err_len) != 0 ||
	    count_arg(req, "limit", 1, &limit, err, err_len) != 0)
		return NULL;
	aif_trace_drain(tr, sw->n_shards);
	json_t *rows = json_array();
	uint64_t end = offset + RTE_MIN(limit, (uint64_t)tr->n_kept);
	for (uint64_t i = offset; i < tr->n_kept && i < end; i++) {
		const struct aif_trace_rec *r = &tr->kept[i];
		const char *group = r->group < t->n_groups ? t->groups[r->group].name : "?";
		json_array_append_new(rows, json_pack(
			"{s:I, s:s, s:s, s:i, s:i, s:I, s:s, s:s, s:i, s:s, s:I}",
			"t_ns", (json_int_t)r->t_ns,
			"src", aif_ip_fmt(&r->src, a, sizeof(a)),
			"dst", aif_ip_fmt(&r->dst, b, sizeof(b)),
			"src_port", rte_be_to_cpu_16(r->src_port),
			"dst_port", rte_be_to_cpu_16(r->dst_port),
			"psn", (json_int_t)r->psn, "group", group,
			"scheme", r->scheme < RTE_DIM(scheme_names) ? scheme_names[r->scheme] : "?",
			"member", r->member,
			"port", r->out_port < sw->n_ports ? sw->ports[r->out_port].name : "?",
			"hash", (json_int_t)r->hash));
	}
	json_t *res = json_pack("{s:b, s:I, s:I, s:I, s:o}", "tracing", tr->on, "lost",
				(json_int_t)tr->lost, "total", (json_int_t)tr->n_kept,
				"offset", (json_int_t)offset, "packets", rows);
	if (json_is_true(json_object_get(req, "clear")))
		tr->n_kept = 0;
	return res;
}
