/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config file's "policies" and "lb_programs" (config.c has the format
 * and calls in here): load balancing (scheme, hash fields, flowlet, spray,
 * adaptive, per traffic class, programs), QoS (class maps, scheduler,
 * buffer, ECN, PFC, trimming) and the policy object that holds them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../dataplane/sched.h"
#include "../dataplane/link.h"
#include "../dataplane/tables.h"
#include "config.h"
#include "config_read.h"

#define PATH_LEN AIF_CFG_PATH_LEN
#define N_HASH_FIELDS 7
#define GBPS_MAX AIF_CFG_GBPS_MAX

/* struct pctx and the typed field access: config_read.h */

static const char *const hash_field_names[N_HASH_FIELDS] = {
	"src_ip", "dst_ip", "proto", "src_port", "dst_port", "flow_label",
	"dest_qp",
};

static int
parse_small_uint(const char *s, unsigned int max, unsigned int *out)
{
	size_t n = strlen(s);
	size_t i;

	if (n == 0 || n > 3 || (n > 1 && s[0] == '0'))
		return -1;
	*out = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*out = *out * 10 + (unsigned int)(s[i] - '0');
	}
	return *out <= max ? 0 : -1;
}

/* The keys and values of a {"<code>": value, ...} map. */
struct code_map {
	unsigned int n;       /* keys "0".."n-1" */
	const char *key_what; /* "DSCP value", "traffic class", ... */
	const char *val_what; /* "traffic class", "queue", "weight", ... */
	long long min, max;   /* values */
};

/* {"<code>": value, ...} into vals[0..m->n-1]; codes not given keep theirs. */
static int
parse_code_map(struct pctx *c, json_t *j, const char *path,
	       const struct code_map *m, uint32_t *vals)
{
	char kp[PATH_LEN];
	const char *key;
	json_t *v;

	if (!json_is_object(j))
		return aif_cfg_fail(c, path, "expected object, got %s", aif_cfg_type_name(j));
	json_object_foreach(j, key, v) {
		unsigned int code;
		long long x;

		aif_cfg_path_key(kp, path, key);
		if (parse_small_uint(key, m->n - 1, &code) < 0)
			return aif_cfg_fail(c, kp, "key must be a %s 0..%u", m->key_what,
				    m->n - 1);
		if (!json_is_integer(v))
			return aif_cfg_fail(c, kp, "expected integer, got %s",
				    aif_cfg_type_name(v));
		x = json_integer_value(v);
		if (x < m->min || x > m->max)
			return aif_cfg_fail(c, kp, "%s must be %lld..%lld, got %lld",
				    m->val_what, m->min, m->max, x);
		vals[code] = (uint32_t)x;
	}
	return 0;
}

/* Same, for a map of small values (at most 64 codes, values <= 255). */
static int
parse_code_map8(struct pctx *c, json_t *j, const char *path,
		const struct code_map *m, uint8_t *map)
{
	uint32_t vals[64];
	unsigned int i;

	for (i = 0; i < m->n; i++)
		vals[i] = map[i];
	if (parse_code_map(c, j, path, m, vals) < 0)
		return -1;
	for (i = 0; i < m->n; i++)
		map[i] = (uint8_t)vals[i];
	return 0;
}

static const struct code_map dscp_to_tc_map = {
	64, "DSCP value", "traffic class", 0, 7,
};
static const struct code_map pcp_to_tc_map = {
	8, "PCP value", "traffic class", 0, 7,
};
/* The maps of "qos". */
static const struct code_map tc_to_queue_map = {
	8, "traffic class", "queue", 0, 7,
};
static const struct code_map tc_to_pg_map = {
	8, "traffic class", "priority group", 0, 7,
};
/* The scheduler's limit: a larger weight would fail only when compiled. */
static const struct code_map queue_weight_map = {
	8, "queue", "weight", 1, AIF_SCHED_WEIGHT_MAX,
};

static int
hash_field_bit(const char *name, uint32_t *bit)
{
	unsigned int i;

	for (i = 0; i < N_HASH_FIELDS; i++) {
		if (strcmp(hash_field_names[i], name) == 0) {
			*bit = 1u << i;
			return 0;
		}
	}
	return -1;
}

static int
parse_hash_fields(struct pctx *c, json_t *arr, const char *path,
		  uint32_t *mask)
{
	char ep[PATH_LEN];
	json_t *v;
	size_t i;

	*mask = 0;
	json_array_foreach(arr, i, v) {
		uint32_t bit;

		aif_cfg_path_idx(ep, path, i);
		if (!json_is_string(v))
			return aif_cfg_fail(c, ep, "expected string, got %s",
				    aif_cfg_type_name(v));
		if (hash_field_bit(json_string_value(v), &bit) < 0)
			return aif_cfg_fail(c, ep, "unknown hash field '%s'",
				    json_string_value(v));
		if (*mask & bit)
			return aif_cfg_fail(c, ep, "duplicate hash field '%s'",
				    json_string_value(v));
		*mask |= bit;
	}
	return 0;
}

/* Scheme names, in enum aif_lb_scheme order. */
static const char *const lb_schemes[] = {"ecmp", "wcmp", "flowlet", "spray",
					 "adaptive", NULL};

static int
parse_lb_flowlet(struct pctx *c, json_t *j, const char *path,
		 struct aif_lb_params *lb)
{
	static const char *const modes[] = {"random", "least_loaded", NULL};
	double gap_us = (double)lb->flowlet_gap_ns / 1e3;
	double age_us = (double)lb->flowlet_age_ns / 1e3;
	long long size = lb->flowlet_table_size;
	char fp[PATH_LEN];

	if (aif_cfg_get_real(c, j, path, "gap_us", 0, true, 1e6, &gap_us) < 0 ||
	    aif_cfg_get_real(c, j, path, "aging_us", 0, true, 1e8, &age_us) < 0 ||
	    aif_cfg_get_int(c, j, path, "table_size", false, 16, AIF_FLOWLET_TABLE_MAX, &size) < 0 ||
	    aif_cfg_get_enum(c, j, path, "mode", modes, "mode", &lb->flowlet_mode) < 0 ||
	    aif_cfg_lb_flowlet(c, j, path, lb) < 0)
		return -1;
	if (size & (size - 1)) {
		aif_cfg_path_key(fp, path, "table_size");
		return aif_cfg_fail(c, fp, "must be a power of two, got %lld", size);
	}
	lb->flowlet_gap_ns = (aif_time_ns)(gap_us * 1e3 + 0.5);
	lb->flowlet_age_ns = (aif_time_ns)(age_us * 1e3 + 0.5);
	lb->flowlet_table_size = (uint32_t)size;
	return 0;
}

static int
parse_lb_spray(struct pctx *c, json_t *j, const char *path,
	       struct aif_lb_params *lb)
{
	static const char *const modes[] = {"round_robin", "random", "drill", NULL};
	long long d = lb->drill_samples;

	if (aif_cfg_get_enum(c, j, path, "mode", modes, "mode", &lb->spray_mode) < 0 ||
	    aif_cfg_get_int(c, j, path, "samples", false, 1, 8, &d) < 0 ||
	    aif_cfg_lb_spray(c, j, path, lb) < 0)
		return -1;
	lb->drill_samples = (uint8_t)d;
	return 0;
}

static int
parse_lb_adaptive(struct pctx *c, json_t *j, const char *path,
		  struct aif_lb_params *lb)
{
	static const char *const modes[] = {"packet", "flowlet", NULL};
	long long period = (long long)lb->adaptive_period_ns, shift = lb->adaptive_ewma_shift;

	if (aif_cfg_get_int(c, j, path, "period_ns", false, 100, 1000000000, &period) < 0 ||
	    aif_cfg_get_int(c, j, path, "ewma_shift", false, 0, 16, &shift) < 0 ||
	    aif_cfg_get_enum(c, j, path, "mode", modes, "mode", &lb->adaptive_mode) < 0)
		return -1;
	lb->adaptive_period_ns = (aif_time_ns)period;
	lb->adaptive_ewma_shift = (uint8_t)shift;
	return 0;
}

/*
 * A scheme: a built-in name, or "bpf:NAME" for the program NAME of
 * "lb_programs" (*prog its index).  Like get_enum: 1 found, 0 absent, -1.
 */
static int
get_scheme(struct pctx *c, json_t *obj, const char *path, const char *key, uint8_t *scheme,
	   uint8_t *prog)
{
	const char *s = NULL;
	char fp[PATH_LEN];
	int rc = aif_cfg_get_string(c, obj, path, key, false, &s);

	if (rc <= 0)
		return rc;
	if (strncmp(s, "bpf:", 4) != 0)
		return aif_cfg_get_enum(c, obj, path, key, lb_schemes, "scheme", scheme);
	aif_cfg_path_key(fp, path, key);
	for (uint8_t i = 0; i < c->cfg->n_lb_programs; i++)
		if (strcmp(c->cfg->lb_programs[i].name, s + 4) == 0) {
			*scheme = AIF_LB_PROG;
			*prog = i;
			return 1;
		}
	if (c->cfg->n_lb_programs == 0)
		return aif_cfg_fail(c, fp, "no program '%s': \"lb_programs\" declares none", s + 4);
	char names[256];
	size_t at = 0;
	names[0] = '\0';
	for (uint8_t i = 0; i < c->cfg->n_lb_programs && at < sizeof(names); i++)
		at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s", i ? ", " : "",
				       c->cfg->lb_programs[i].name);
	return aif_cfg_fail(c, fp, "no program '%s' in \"lb_programs\" (it has %s)", s + 4, names);
}

/* "per_tc": {"3": "spray"}: keys "0".."7", values scheme names. */
static int
parse_lb_per_tc(struct pctx *c, json_t *j, const char *path,
		struct aif_lb_params *lb)
{
	char fp[PATH_LEN];
	const char *key;
	json_t *v;

	if (!json_is_object(j))
		return aif_cfg_fail(c, path, "expected object, got %s", aif_cfg_type_name(j));
	json_object_foreach(j, key, v) {
		aif_cfg_path_key(fp, path, key);
		if (strlen(key) != 1 || key[0] < '0' || key[0] > '7')
			return aif_cfg_fail(c, fp, "key must be a traffic class 0..7");
		unsigned tc = (unsigned)(key[0] - '0');
		if (get_scheme(c, j, path, key, &lb->scheme_by_tc[tc], &lb->prog_by_tc[tc]) < 0)
			return -1;
		lb->tc_scheme_set |= (uint8_t)(1u << tc);
	}
	return 0;
}

static int
parse_lb(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb)
{
	static const char *const keys[] = {"scheme", "hash", "hash_fields",
					   "buckets_per_member", "per_tc", "flowlet",
					   "spray", "adaptive", AIF_CFG_LB_KEYS, NULL};
	static const char *const flowlet_keys[] = {"gap_us", "aging_us", "table_size",
						   "mode", AIF_CFG_FLOWLET_KEYS, NULL};
	static const char *const spray_keys[] = {"mode", "samples", AIF_CFG_SPRAY_KEYS, NULL};
	static const char *const adaptive_keys[] = {"period_ns", "ewma_shift", "mode", NULL};
	static const char *const hashes[] = {"crc32c", "toeplitz", "murmur3_ns3", NULL};
	long long bpm = lb->buckets_per_member;
	char fp[PATH_LEN];
	json_t *arr, *v;
	int rc;

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    get_scheme(c, j, path, "scheme", &lb->scheme, &lb->prog) < 0 ||
	    aif_cfg_get_enum(c, j, path, "hash", hashes, "hash", &lb->hash_alg) < 0 ||
	    aif_cfg_get_int(c, j, path, "buckets_per_member", false, 1, 256, &bpm) < 0)
		return -1;
	lb->buckets_per_member = (uint16_t)bpm;
	rc = aif_cfg_get_array(c, j, path, "hash_fields", false, 1, N_HASH_FIELDS, &arr);
	if (rc < 0)
		return -1;
	aif_cfg_path_key(fp, path, "hash_fields");
	if (rc > 0 && parse_hash_fields(c, arr, fp, &lb->hash_fields) < 0)
		return -1;
	rc = aif_cfg_get_object(c, j, path, "flowlet", flowlet_keys, fp, &v);
	if (rc < 0 || (rc > 0 && parse_lb_flowlet(c, v, fp, lb) < 0))
		return -1;
	rc = aif_cfg_get_object(c, j, path, "spray", spray_keys, fp, &v);
	if (rc < 0 || (rc > 0 && parse_lb_spray(c, v, fp, lb) < 0))
		return -1;
	rc = aif_cfg_get_object(c, j, path, "adaptive", adaptive_keys, fp, &v);
	if (rc < 0 || (rc > 0 && parse_lb_adaptive(c, v, fp, lb) < 0))
		return -1;
	v = json_object_get(j, "per_tc");
	if (v != NULL) {
		aif_cfg_path_key(fp, path, "per_tc");
		if (parse_lb_per_tc(c, v, fp, lb) < 0)
			return -1;
	}
	if (aif_cfg_lb_control(c, j, path, lb) < 0)
		return -1;
	for (unsigned tc = 0; tc < 8; tc++)
		if (!((lb->tc_scheme_set >> tc) & 1)) {
			/* control traffic on flow hash, whatever the scheme */
			bool ctl = (lb->control_tcs >> tc) & 1;
			lb->scheme_by_tc[tc] = ctl ? AIF_LB_ECMP : lb->scheme;
			lb->prog_by_tc[tc] = ctl ? 0 : lb->prog;
		}
	return 0;
}

/*
 * "lb_programs": {"NAME": {"object": "x.o", "program": "p", "table_size": N}}:
 * load-balancing programs, used by "scheme": "bpf:NAME".  The objects are
 * read when the config is applied (a missing or bad one rejects it then).
 */
int
aif_cfg_parse_lb_programs(struct pctx *c, json_t *root)
{
	static const char *const keys[] = {"object", "program", "table_size", NULL};
	json_t *o = json_object_get(root, "lb_programs"), *v;
	const char *key;
	char fp[PATH_LEN];

	if (o == NULL)
		return 0;
	if (!json_is_object(o))
		return aif_cfg_fail(c, "$.lb_programs", "expected object, got %s", aif_cfg_type_name(o));
	if (json_object_size(o) > AIF_LB_MAX_PROGS)
		return aif_cfg_fail(c, "$.lb_programs", "too many programs (%zu, max %d)",
			    json_object_size(o), AIF_LB_MAX_PROGS);
	c->cfg->lb_programs = calloc(AIF_LB_MAX_PROGS, sizeof(*c->cfg->lb_programs));
	if (c->cfg->lb_programs == NULL)
		return aif_cfg_fail(c, "$.lb_programs", "out of memory");
	json_object_foreach(o, key, v) {
		struct aif_lb_prog_spec *sp = &c->cfg->lb_programs[c->cfg->n_lb_programs];
		const char *obj = NULL, *prog = NULL;
		long long size = 0;
		aif_cfg_path_key(fp, "$.lb_programs", key);
		if (aif_cfg_check_name(c, fp, key) < 0)
			return -1;
		if (aif_cfg_check_object(c, v, fp, keys) < 0 ||
		    aif_cfg_get_string(c, v, fp, "object", true, &obj) < 0 ||
		    aif_cfg_get_string(c, v, fp, "program", false, &prog) < 0 ||
		    aif_cfg_get_int(c, v, fp, "table_size", false, 16, 1 << 24, &size) < 0)
			return -1;
		if (size & (size - 1)) {
			char tp[PATH_LEN];
			aif_cfg_path_key(tp, fp, "table_size");
			return aif_cfg_fail(c, tp, "must be a power of two, got %lld", size);
		}
		if (obj[0] == '\0' || strlen(obj) >= sizeof(sp->object)) {
			char tp[PATH_LEN];
			aif_cfg_path_key(tp, fp, "object");
			return aif_cfg_fail(c, tp, "must be a file name of 1..%zu bytes",
				    sizeof(sp->object) - 1);
		}
		if (prog != NULL && strlen(prog) >= sizeof(sp->program)) {
			char tp[PATH_LEN];
			aif_cfg_path_key(tp, fp, "program");
			return aif_cfg_fail(c, tp, "too long (max %zu bytes)", sizeof(sp->program) - 1);
		}
		snprintf(sp->name, sizeof(sp->name), "%s", key);
		snprintf(sp->object, sizeof(sp->object), "%s", obj);
		snprintf(sp->program, sizeof(sp->program), "%s", prog != NULL ? prog : "");
		sp->table_size = (uint32_t)size;
		c->cfg->n_lb_programs++;
	}
	return 0;
}

/* ---- policies: qos ---- */

/* The optional object j[key], checked against keys; *out NULL if absent. */
int
aif_cfg_get_object(struct pctx *c, json_t *obj, const char *path, const char *key,
	   const char *const *keys, char *fp, json_t **out)
{
	*out = json_object_get(obj, key);
	if (*out == NULL)
		return 0;
	aif_cfg_path_key(fp, path, key);
	return aif_cfg_check_object(c, *out, fp, keys) < 0 ? -1 : 1;
}

static int
parse_qos_scheduler(struct pctx *c, json_t *j, const char *path,
		    struct aif_qos_params *q)
{
	char fp[PATH_LEN];
	json_t *v;

	if (aif_cfg_get_bitset8(c, j, path, "strict", "queue", &q->strict_queues) < 0)
		return -1;
	v = json_object_get(j, "weights");
	if (v == NULL)
		return 0;
	aif_cfg_path_key(fp, path, "weights");
	return parse_code_map(c, v, fp, &queue_weight_map, q->weight);
}

static int
parse_qos_buffer(struct pctx *c, json_t *j, const char *path,
		 struct aif_qos_params *q)
{
	static const char *const models[] = {"hpcc", "broadcom", "conweave", NULL};
	long long size = (long long)q->buffer_bytes, rsv = q->reserve_bytes;
	long long th = q->dynamic_th, resume = q->resume_offset_bytes;
	long long hr = q->headroom_bytes, cable = q->cable_delay_ns;

	if (aif_cfg_get_enum(c, j, path, "model", models, "model",
		     &q->buffer_model) < 0 ||
	    aif_cfg_get_int(c, j, path, "size_bytes", false, 65536, 1ll << 34,
		    &size) < 0 ||
	    aif_cfg_get_int(c, j, path, "reserve_bytes", false, 0, 1 << 20, &rsv) < 0 ||
	    aif_cfg_get_int(c, j, path, "dynamic_th", false, -16, 3, &th) < 0 ||
	    aif_cfg_get_int(c, j, path, "resume_offset_bytes", false, 0, 1 << 20,
		    &resume) < 0 ||
	    aif_cfg_get_int(c, j, path, "headroom_bytes", false, 0, 1 << 24, &hr) < 0 ||
	    aif_cfg_get_int(c, j, path, "cable_delay_ns", false, 0, 100000000,
		    &cable) < 0)
		return -1;
	q->buffer_bytes = (uint64_t)size;
	q->reserve_bytes = (uint32_t)rsv;
	q->dynamic_th = (int8_t)th;
	q->resume_offset_bytes = (uint32_t)resume;
	q->headroom_bytes = (uint32_t)hr;
	q->cable_delay_ns = (uint32_t)cable;
	return aif_cfg_qos_buffer(c, j, path, q);
}

/* Kmin <= Kmax: reported at kmax_bytes if given, else at kmin_bytes. */
static int
parse_qos_ecn(struct pctx *c, json_t *j, const char *path,
	      struct aif_qos_params *q)
{
	static const char *const modes[] = {"ecn", "wred", "off", NULL};
	static const char *const marks[] = {"dequeue", "enqueue", NULL};
	long long kmin = q->kmin_bytes, kmax = q->kmax_bytes;
	char fp[PATH_LEN];
	int rc;

	if (aif_cfg_get_bitset8(c, j, path, "queues", "queue", &q->ecn_queues) < 0 ||
	    aif_cfg_get_enum(c, j, path, "mode", modes, "mode", &q->ecn_mode) < 0 ||
	    aif_cfg_get_enum(c, j, path, "mark", marks, "mark point",
		     &q->ecn_mark_point) < 0 ||
	    aif_cfg_get_int(c, j, path, "kmin_bytes", false, 0, UINT32_MAX, &kmin) < 0)
		return -1;
	rc = aif_cfg_get_int(c, j, path, "kmax_bytes", false, 0, UINT32_MAX, &kmax);
	if (rc < 0)
		return -1;
	if (kmin > kmax) {
		if (rc > 0) {
			aif_cfg_path_key(fp, path, "kmax_bytes");
			return aif_cfg_fail(c, fp, "must be >= kmin_bytes (%lld)", kmin);
		}
		aif_cfg_path_key(fp, path, "kmin_bytes");
		return aif_cfg_fail(c, fp, "must be <= kmax_bytes (%lld)", kmax);
	}
	q->kmin_bytes = (uint32_t)kmin;
	q->kmax_bytes = (uint32_t)kmax;
	if (aif_cfg_get_real(c, j, path, "pmax", 0, false, 1, &q->pmax) < 0)
		return -1;
	return aif_cfg_qos_ecn(c, j, path, q);
}

/* j[key] in milliseconds, (0, max_ms], into *ns (rounded, at least 1 ns). */
static int
get_ms(struct pctx *c, json_t *j, const char *path, const char *key,
       double max_ms, aif_time_ns *ns)
{
	char fp[PATH_LEN];
	double ms = 0;
	int rc = aif_cfg_get_real(c, j, path, key, 0, true, max_ms, &ms);

	if (rc <= 0)
		return rc;
	if (ms * 1e6 + 0.5 < 1.0) {
		aif_cfg_path_key(fp, path, key);
		return aif_cfg_fail(c, fp, "must be at least 0.000001 (1 ns), got %g",
			    ms);
	}
	*ns = (aif_time_ns)(ms * 1e6 + 0.5);
	return 1;
}

static int
parse_qos_pfc(struct pctx *c, json_t *j, const char *path,
	      struct aif_qos_params *q)
{
	static const char *const wd_keys[] = {"detection_ms", "restoration_ms",
					      "action", NULL};
	static const char *const actions[] = {"drop", "forward", "alert", NULL};
	long long quanta = q->pfc_quanta;
	char wp[PATH_LEN];
	json_t *wd;
	int rc;

	if (aif_cfg_get_int(c, j, path, "quanta", false, 1, 65535, &quanta) < 0 ||
	    aif_cfg_qos_pfc(c, j, path, q) < 0)
		return -1;
	q->pfc_quanta = (uint16_t)quanta;
	rc = aif_cfg_get_object(c, j, path, "watchdog", wd_keys, wp, &wd);
	if (rc <= 0)
		return rc;
	if (get_ms(c, wd, wp, "detection_ms", 5000, &q->wd_detection_ns) < 0 ||
	    get_ms(c, wd, wp, "restoration_ms", 60000,
		   &q->wd_restoration_ns) < 0 ||
	    aif_cfg_get_enum(c, wd, wp, "action", actions, "action", &q->wd_action) < 0)
		return -1;
	return 0;
}

static int
parse_qos_trimming(struct pctx *c, json_t *j, const char *path,
		   struct aif_qos_params *q)
{
	long long size = q->trim_size_bytes, dscp = q->trim_dscp, queue = q->trim_queue;

	if (aif_cfg_get_bitset8(c, j, path, "queues", "queue", &q->trim_queues) < 0 ||
	    aif_cfg_get_int(c, j, path, "size_bytes", false, 64, 1500, &size) < 0 ||
	    aif_cfg_get_int(c, j, path, "dscp", false, 0, 63, &dscp) < 0 ||
	    aif_cfg_get_int(c, j, path, "queue", false, 0, 7, &queue) < 0)
		return -1;
	q->trim_size_bytes = (uint16_t)size;
	q->trim_dscp = (uint8_t)dscp;
	q->trim_queue = (uint8_t)queue;
	return 0;
}

/* The "qos" object of a policy; q already holds the defaults. */
static int
parse_qos(struct pctx *c, json_t *j, const char *path,
	  struct aif_qos_params *q)
{
	static const char *const keys[] = {"enable", "tc_to_queue_map",
					   "tc_to_pg_map", "pfc_enable",
					   "scheduler", "buffer", "ecn", "pfc",
					   "trimming", AIF_CFG_QOS_KEYS, NULL};
	static const char *const trim_keys[] = {"queues", "size_bytes", "dscp",
						"queue", NULL};
	static const char *const sched_keys[] = {"strict", "weights", NULL};
	static const char *const buf_keys[] = {"model", "size_bytes",
					       "reserve_bytes", "dynamic_th",
					       "resume_offset_bytes",
					       "headroom_bytes",
					       "cable_delay_ns", AIF_CFG_BUFFER_KEYS, NULL};
	static const char *const ecn_keys[] = {"queues", "mode", "mark",
					       "kmin_bytes", "kmax_bytes",
					       "pmax", AIF_CFG_ECN_KEYS, NULL};
	static const char *const pfc_keys[] = {"quanta", "watchdog", AIF_CFG_PFC_KEYS, NULL};
	char fp[PATH_LEN];
	json_t *v;
	int rc;

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    aif_cfg_get_bool(c, j, path, "enable", &q->enable) < 0)
		return -1;
	v = json_object_get(j, "tc_to_queue_map");
	aif_cfg_path_key(fp, path, "tc_to_queue_map");
	if (v != NULL &&
	    parse_code_map8(c, v, fp, &tc_to_queue_map, q->tc_to_queue) < 0)
		return -1;
	v = json_object_get(j, "tc_to_pg_map");
	aif_cfg_path_key(fp, path, "tc_to_pg_map");
	if (v != NULL &&
	    parse_code_map8(c, v, fp, &tc_to_pg_map, q->tc_to_pg) < 0)
		return -1;
	if (aif_cfg_get_bitset8(c, j, path, "pfc_enable", "priority",
			&q->pfc_enable) < 0)
		return -1;
	rc = aif_cfg_get_object(c, j, path, "scheduler", sched_keys, fp, &v);
	if (rc < 0 || (rc > 0 && parse_qos_scheduler(c, v, fp, q) < 0))
		return -1;
	rc = aif_cfg_get_object(c, j, path, "buffer", buf_keys, fp, &v);
	if (rc < 0 || (rc > 0 && parse_qos_buffer(c, v, fp, q) < 0))
		return -1;
	rc = aif_cfg_get_object(c, j, path, "ecn", ecn_keys, fp, &v);
	if (rc < 0 || (rc > 0 && parse_qos_ecn(c, v, fp, q) < 0))
		return -1;
	rc = aif_cfg_get_object(c, j, path, "pfc", pfc_keys, fp, &v);
	if (rc < 0 || (rc > 0 && parse_qos_pfc(c, v, fp, q) < 0))
		return -1;
	rc = aif_cfg_get_object(c, j, path, "trimming", trim_keys, fp, &v);
	if (rc < 0 || (rc > 0 && parse_qos_trimming(c, v, fp, q) < 0))
		return -1;
	return aif_cfg_qos_bypass(c, j, path, q);
}

/* ---- policies: the policy object ---- */

/* p already holds the defaults and its name. */
static int
parse_policy(struct pctx *c, json_t *j, const char *path,
	     struct aif_policy_params *p)
{
	static const char *const keys[] = {"trust", "dscp_to_tc_map",
					   "pcp_to_tc_map", "load_balancing",
					   "qos", NULL};
	static const char *const trusts[] = {"dscp", "pcp", NULL};
	char fp[PATH_LEN];
	json_t *v;

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    aif_cfg_get_enum(c, j, path, "trust", trusts, "trust", &p->trust) < 0)
		return -1;
	v = json_object_get(j, "dscp_to_tc_map");
	if (v != NULL) {
		memset(p->dscp_to_tc, 0, sizeof(p->dscp_to_tc));
		aif_cfg_path_key(fp, path, "dscp_to_tc_map");
		if (parse_code_map8(c, v, fp, &dscp_to_tc_map,
				    p->dscp_to_tc) < 0)
			return -1;
	}
	v = json_object_get(j, "pcp_to_tc_map");
	if (v != NULL) {
		aif_cfg_path_key(fp, path, "pcp_to_tc_map");
		if (parse_code_map8(c, v, fp, &pcp_to_tc_map, p->pcp_to_tc) < 0)
			return -1;
	}
	v = json_object_get(j, "load_balancing");
	if (v != NULL) {
		aif_cfg_path_key(fp, path, "load_balancing");
		if (parse_lb(c, v, fp, &p->lb) < 0)
			return -1;
	}
	v = json_object_get(j, "qos");
	if (v != NULL) {
		aif_cfg_path_key(fp, path, "qos");
		if (parse_qos(c, v, fp, &p->qos) < 0)
			return -1;
	}
	return 0;
}

int
aif_cfg_parse_policies(struct pctx *c, json_t *root)
{
	struct aif_config *cfg = c->cfg;
	json_t *pol = json_object_get(root, "policies");
	size_t n = 1;
	const char *key;
	char pp[PATH_LEN];
	json_t *v;

	if (pol != NULL) {
		if (!json_is_object(pol))
			return aif_cfg_fail(c, "$.policies", "expected object, got %s",
				    aif_cfg_type_name(pol));
		n += json_object_size(pol);
		if (json_object_get(pol, "default") != NULL)
			n--;
		if (n > AIF_MAX_POLICIES)
			return aif_cfg_fail(c, "$.policies",
				    "too many policies (%zu, max %d with \"default\")",
				    n, AIF_MAX_POLICIES);
	}
	cfg->policies = calloc(n, sizeof(*cfg->policies));
	if (cfg->policies == NULL)
		return aif_cfg_fail(c, "$.policies", "out of memory");
	aif_policy_defaults(&cfg->policies[0]);
	cfg->n_policies = 1;
	if (pol == NULL)
		return 0;
	json_object_foreach(pol, key, v) {
		struct aif_policy_params *p;

		aif_cfg_path_key(pp, "$.policies", key);
		if (aif_cfg_check_name(c, pp, key) < 0)
			return -1;
		p = &cfg->policies[0];
		if (strcmp(key, "default") != 0)
			p = &cfg->policies[cfg->n_policies++];
		aif_policy_defaults(p);
		snprintf(p->name, sizeof(p->name), "%s", key);
		if (parse_policy(c, v, pp, p) < 0)
			return -1;
	}
	return 0;
}

/* Name of one AIF_HF_* bit ("src_ip", ...), or NULL if bit is not one. */
const char *
aif_hash_field_name(uint32_t bit)
{
	unsigned int i;

	for (i = 0; i < N_HASH_FIELDS; i++)
		if (bit == 1u << i)
			return hash_field_names[i];
	return NULL;
}
