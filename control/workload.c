/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workload files and results (workload.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dataplane/qos.h"
#include "../dataplane/shard.h"
#include "../dataplane/switch.h"
#include "../hosts/textbuf.h"
#include "paths.h"
#include "workload.h"

#define JOBS_FILE_MAX_BYTES (16u << 20)
#define CDF_FILE_MAX_BYTES (1u << 20) /* 256 points of at most 255 characters fit */

static int
bad(char *err, size_t err_len, const char *file, const char *path, const char *why)
{
	snprintf(err, err_len, "%s: %s: %s", file, path, why);
	return -1;
}

/* A non-negative number at key (absent: keep *v); -1 if not one or out of [lo, hi]. */
static int
num(json_t *o, const char *key, double lo, double hi, double *v)
{
	json_t *x = json_object_get(o, key);
	if (x == NULL)
		return 0;
	if (!json_is_number(x))
		return -1;
	double d = json_number_value(x);
	if (!(d >= lo && d <= hi))
		return -1;
	*v = d;
	return 0;
}

/* As num(), a whole number. */
static int
whole(json_t *o, const char *key, double lo, double hi, double *v)
{
	double d = *v;

	if (num(o, key, lo, hi, &d) != 0 || d != floor(d))
		return -1;
	*v = d;
	return 0;
}

/*
 * A whole regular file of at most max_bytes, NUL-terminated; NULL with why.
 * Opened without blocking and checked before anything is read: a FIFO
 * would wait for a writer, /dev/zero never end.
 */
static char *
read_regular(const char *path, size_t max_bytes, size_t *len, char *why, size_t why_len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;

	if (fd < 0) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, why_len, "%s: not a regular file (%s)", path,
			 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a device" :
			 S_ISDIR(st.st_mode) ? "a directory" : S_ISSOCK(st.st_mode) ? "a socket"
			 : "not a file");
		goto out;
	}
	if ((uint64_t)st.st_size > max_bytes) {
		snprintf(why, why_len, "%s: larger than %zu bytes", path, max_bytes);
		goto out;
	}
	/* one byte more than allowed shows a file that grew meanwhile */
	buf = malloc(max_bytes + 2);
	if (buf == NULL) {
		snprintf(why, why_len, "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		ssize_t got = read(fd, buf + n, max_bytes + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(why, why_len, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max_bytes) {
			snprintf(why, why_len, "%s: larger than %zu bytes", path, max_bytes);
			goto fail;
		}
	}
	buf[n] = '\0';
	*len = n;
	close(fd);
	return buf;
fail:
	free(buf);
	buf = NULL;
out:
	close(fd);
	return NULL;
}

static int
boolean(json_t *o, const char *key, bool *v)
{
	json_t *x = json_object_get(o, key);
	if (x == NULL)
		return 0;
	if (!json_is_boolean(x))
		return -1;
	*v = json_is_true(x);
	return 0;
}

static int
keys_ok(json_t *o, const char *const *allowed, const char **badkey)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		bool ok = false;
		for (unsigned i = 0; allowed[i] != NULL && !ok; i++)
			ok = strcmp(k, allowed[i]) == 0;
		if (!ok) {
			*badkey = k;
			return -1;
		}
	}
	return 0;
}

/* One of names[] at key (absent: keep *v); -1 if not. */
static int
choice(json_t *o, const char *key, const char *const *names, int *v)
{
	json_t *x = json_object_get(o, key);
	if (x == NULL)
		return 0;
	const char *s = json_string_value(x);
	for (int i = 0; s != NULL && names[i] != NULL; i++)
		if (strcmp(s, names[i]) == 0) {
			*v = i;
			return 0;
		}
	return -1;
}

/* A DCQCN preset by name into dc (at 100 Gb/s: vhosts scales the increase
 * steps for other host rates); -1 if no such preset. */
static int
dcqcn_preset(const char *s, struct aif_dcqcn_params *dc)
{
	uint64_t line = dc->line_rate_bps;
	aif_time_ns interval = dc->cnp_interval_ns;

	if (strcmp(s, "conweave") == 0)
		aif_dcqcn_params_conweave(dc, line);
	else if (strcmp(s, "hpcc_run") == 0)
		aif_dcqcn_params_hpcc_run(dc, line);
	else if (strcmp(s, "hpcc_default") == 0)
		aif_dcqcn_params_default(dc, line);
	else
		return -1;
	dc->cnp_interval_ns = interval; /* a host setting, not the preset's */
	return 0;
}

#define DCQCN_KEYS "preset, ewma_gain, alpha_interval_ns, decrease_interval_ns, " \
		   "rp_timer_ns, fast_recovery, rate_ai_mbps, rate_hai_mbps, min_rate_mbps, " \
		   "clamp_target, rate_on_first_cnp"

/* "dcqcn": {...}: a preset, then each parameter on its own (ns-3's names
 * in the README). */
static int
parse_dcqcn(struct aif_dcqcn_params *dc, json_t *o, const char *file, char *err,
	    size_t err_len)
{
	static const char *const allowed[] = {
		"preset", "ewma_gain", "alpha_interval_ns", "decrease_interval_ns", "rp_timer_ns",
		"fast_recovery", "rate_ai_mbps", "rate_hai_mbps", "min_rate_mbps",
		"clamp_target", "rate_on_first_cnp", NULL };
	const char *k;
	char path[64];
	double d;

	if (keys_ok(o, allowed, &k) != 0) {
		snprintf(path, sizeof(path), "$.hosts.dcqcn.%s", k);
		return bad(err, err_len, file, path, "unknown key (" DCQCN_KEYS ")");
	}
	json_t *x = json_object_get(o, "preset");
	if (x != NULL && (json_string_value(x) == NULL ||
			  dcqcn_preset(json_string_value(x), dc) != 0))
		return bad(err, err_len, file, "$.hosts.dcqcn.preset",
			   "\"conweave\", \"hpcc_run\" or \"hpcc_default\"");
#define DNUM(key, lo, hi, field, scale)                                                  \
	do {                                                                             \
		d = (double)dc->field / (scale);                                         \
		if (num(o, key, lo, hi, &d) != 0)                                        \
			return bad(err, err_len, file, "$.hosts.dcqcn." key,             \
				   "a number in " #lo ".." #hi);                          \
		dc->field = (__typeof__(dc->field))(d * (scale) + 0.5);                  \
	} while (0)
	d = dc->g;
	if (num(o, "ewma_gain", 0, 1, &d) != 0 || d == 0)
		return bad(err, err_len, file, "$.hosts.dcqcn.ewma_gain", "a number in (0, 1]");
	dc->g = d;
	DNUM("alpha_interval_ns", 1, 1e9, alpha_period_ns, 1);
	DNUM("decrease_interval_ns", 1, 1e9, decrease_period_ns, 1);
	DNUM("rp_timer_ns", 1, 1e9, rp_timer_ns, 1);
	DNUM("fast_recovery", 0, 1000, fast_recovery, 1);
	DNUM("rate_ai_mbps", 0, 1e6, rai_bps, 1e6);
	DNUM("rate_hai_mbps", 0, 1e6, rhai_bps, 1e6);
	DNUM("min_rate_mbps", 0, 1e6, min_rate_bps, 1e6);
#undef DNUM
	d = dc->rate_on_first_cnp;
	if (num(o, "rate_on_first_cnp", 0, 1, &d) != 0 || d == 0)
		return bad(err, err_len, file, "$.hosts.dcqcn.rate_on_first_cnp",
			   "a number in (0, 1]");
	dc->rate_on_first_cnp = d;
	if (boolean(o, "clamp_target", &dc->clamp_target) != 0)
		return bad(err, err_len, file, "$.hosts.dcqcn.clamp_target", "true or false");
	return 0;
}

static int
parse_hosts(struct aif_rhost_params *h, json_t *o, const char *file, char *err, size_t err_len)
{
	static const char *const allowed[] = {
		"mtu", "verb", "receive", "cnp_on_ooo", "dcqcn", "dcqcn_preset", "cnp",
		"cnp_interval_ns", "ack_every", "nak_gap", "nak_interval_ns", "nak_rewind_stale",
		"gbn_timer", "rto_gbn_us", "rto_us", "rto_low_us", "rto_low_packets",
		"host_link_delay_ns", "ack_delay_ns", "cnp_delay_ns", "react_delay_ns", "icrc",
		"light_frames", "dscp", "cnp_dscp", "ack_dscp", "identities", NULL };
	static const char *const cnp_modes[] = { "ack_flag", "frame", NULL };
	static const char *const timers[] = { "per_packet", "progress", NULL };
	const char *k;
	char path[64];
	double d;

	if (!json_is_object(o))
		return bad(err, err_len, file, "$.hosts", "must be an object");
	if (keys_ok(o, allowed, &k) != 0) {
		snprintf(path, sizeof(path), "$.hosts.%s", k);
		return bad(err, err_len, file, path, "unknown key (mtu, verb, receive, cnp_on_ooo, "
			   "dcqcn, dcqcn_preset, cnp, cnp_interval_ns, ack_every, nak_gap, "
			   "nak_interval_ns, nak_rewind_stale, gbn_timer, rto_gbn_us, rto_us, "
			   "rto_low_us, rto_low_packets, host_link_delay_ns, ack_delay_ns, "
			   "cnp_delay_ns, react_delay_ns, icrc, light_frames, dscp, cnp_dscp, "
			   "ack_dscp, identities)");
	}
#define NUM(key, lo, hi, field, scale)                                                   \
	do {                                                                             \
		d = (double)h->field / (scale);                                          \
		if (num(o, key, lo, hi, &d) != 0 || ((scale) == 1 && d != floor(d)))    \
			return bad(err, err_len, file, "$.hosts." key,                   \
				   (scale) == 1 ? "a whole number in " #lo ".." #hi       \
						: "a number in " #lo ".." #hi);         \
		h->field = (__typeof__(h->field))(d * (scale) + 0.5);                    \
	} while (0)
	NUM("mtu", 64, 8192, mtu, 1);
	NUM("ack_every", 1, 65535, ack_every, 1);
	NUM("nak_gap", 1, 4095, nak_gap, 1);
	NUM("nak_interval_ns", 0, 1e12, nak_interval_ns, 1);
	NUM("rto_gbn_us", 1, 1000000, rto_gbn_ns, 1000);
	NUM("rto_us", 1, 1000000, rto_ns, 1000);
	NUM("rto_low_us", 1, 1000000, rto_low_ns, 1000);
	NUM("rto_low_packets", 0, 4095, rto_low_pkts, 1);
	NUM("ack_delay_ns", 0, 1000000, ack_delay_ns, 1);
	NUM("cnp_delay_ns", 0, 1000000, cnp_delay_ns, 1);
	NUM("cnp_interval_ns", 0, 1000000000, dc.cnp_interval_ns, 1);
	NUM("react_delay_ns", 0, 1000000, react_delay_ns, 1);
	NUM("dscp", 0, 63, dscp, 1);
	NUM("cnp_dscp", 0, 63, cnp_dscp, 1);
	NUM("ack_dscp", 0, 63, ack_dscp, 1);
#undef NUM
	if (json_object_get(o, "host_link_delay_ns") != NULL) {
		d = 0;
		if (num(o, "host_link_delay_ns", 0, (double)AIF_RHOST_LINK_DELAY_MAX, &d) != 0)
			return bad(err, err_len, file, "$.hosts.host_link_delay_ns",
				   "a number in 0..1000000000 (absent: the fabric's link delay)");
		h->link_delay_ns = (aif_time_ns)(d + 0.5);
	}
	if (h->mtu % 4)
		return bad(err, err_len, file, "$.hosts.mtu", "a multiple of 4");
	if (h->rto_low_ns > h->rto_ns && json_object_get(o, "rto_low_us") != NULL)
		return bad(err, err_len, file, "$.hosts.rto_low_us", "at most rto_us");
	if (h->rto_low_ns > h->rto_ns) /* a short rto_us alone: RTO_low with it */
		h->rto_low_ns = h->rto_ns;
	if (boolean(o, "cnp_on_ooo", &h->cnp_on_ooo) || boolean(o, "icrc", &h->icrc) ||
	    boolean(o, "nak_rewind_stale", &h->nak_rewind_stale) ||
	    boolean(o, "light_frames", &h->light_frames))
		return bad(err, err_len, file, "$.hosts",
			   "cnp_on_ooo, icrc, nak_rewind_stale, light_frames: true or false");
	int mode = (int)h->cnp;
	if (choice(o, "cnp", cnp_modes, &mode) != 0)
		return bad(err, err_len, file, "$.hosts.cnp", "\"ack_flag\" or \"frame\"");
	h->cnp = (enum aif_rhost_cnp)mode;
	mode = (int)h->gbn_timer;
	if (choice(o, "gbn_timer", timers, &mode) != 0)
		return bad(err, err_len, file, "$.hosts.gbn_timer", "\"per_packet\" or \"progress\"");
	h->gbn_timer = (enum aif_rhost_gbn_timer)mode;
	json_t *x = json_object_get(o, "verb");
	if (x != NULL) {
		const char *s = json_string_value(x);
		if (s == NULL || (strcmp(s, "write") && strcmp(s, "send")))
			return bad(err, err_len, file, "$.hosts.verb", "\"write\" or \"send\"");
		h->verb = strcmp(s, "send") == 0 ? AIF_RHOST_SEND : AIF_RHOST_WRITE;
	}
	x = json_object_get(o, "receive");
	if (x != NULL) {
		const char *s = json_string_value(x);
		if (s == NULL || (strcmp(s, "go_back_n") && strcmp(s, "out_of_order")))
			return bad(err, err_len, file, "$.hosts.receive",
				   "\"go_back_n\" or \"out_of_order\"");
		h->ooo = strcmp(s, "out_of_order") == 0;
	}
	x = json_object_get(o, "identities");
	if (x != NULL && (!json_is_string(x) || (strcmp(json_string_value(x), "ns3") &&
						 strcmp(json_string_value(x), "fabric"))))
		return bad(err, err_len, file, "$.hosts.identities", "\"ns3\" or \"fabric\"");
	x = json_object_get(o, "dcqcn_preset");
	if (x != NULL && (json_string_value(x) == NULL ||
			  dcqcn_preset(json_string_value(x), &h->dc) != 0))
		return bad(err, err_len, file, "$.hosts.dcqcn_preset",
			   "\"conweave\", \"hpcc_run\" or \"hpcc_default\"");
	x = json_object_get(o, "dcqcn");
	if (x != NULL) {
		if (json_is_boolean(x))
			h->dcqcn = json_is_true(x);
		else if (json_is_object(x))
			return parse_dcqcn(&h->dc, x, file, err, err_len);
		else
			return bad(err, err_len, file, "$.hosts.dcqcn",
				   "true, false, or an object of parameters (" DCQCN_KEYS ")");
	}
	return 0;
}

/* A path relative to the workload file's directory (absolute: as is). */
static void
relative_to(char *out, size_t len, const char *file, const char *path)
{
	const char *slash = strrchr(file, '/');

	if (path[0] == '/' || slash == NULL)
		snprintf(out, len, "%s", path);
	else
		snprintf(out, len, "%.*s/%s", (int)(slash - file), file, path);
}

/* flow_file: file, format, absolute, ideal; the flows read and checked
 * (host ids against a hosts list here, against the fabric's hosts when
 * the jobs are made). */
static int
parse_flow_file(struct aif_workload_job *j, json_t *o, unsigned i, const char *file,
		char *err, size_t err_len)
{
	char path[96], why[1024]; /* a file path (512) and a line */

#define P(sub) (snprintf(path, sizeof(path), "$.jobs[%u]%s", i, sub), path)
	static const char *const no[] = { "bytes", "iterations", "chunks", "compute_us",
					  "straggler", "load", "cdf", "stop_us", "seed", NULL };
	for (unsigned k = 0; no[k] != NULL; k++)
		if (json_object_get(o, no[k]) != NULL) {
			char sub[48];
			snprintf(sub, sizeof(sub), ".%s", no[k]);
			return bad(err, err_len, file, P(sub), "not for kind flow_file (the file "
				   "gives every flow)");
		}
	const char *ff = json_string_value(json_object_get(o, "file"));
	if (ff == NULL || ff[0] == '\0')
		return bad(err, err_len, file, P(".file"), "required for flow_file: a flow file");
	relative_to(j->file_path, sizeof(j->file_path), file, ff);
	json_t *x = json_object_get(o, "format");
	int fmt = json_is_string(x) ? aif_flowfile_format_parse(json_string_value(x)) : -1;
	if (fmt < 0)
		return bad(err, err_len, file, P(".format"), "required for flow_file: \"conweave\" "
			   "(src dst priority size_bytes start_seconds) or \"hpcc\" (src dst "
			   "priority dport size_bytes start_seconds)");
	if (boolean(o, "absolute", &j->absolute) != 0)
		return bad(err, err_len, file, P(".absolute"), "true or false");
	/* ns-3's formula unless the job says "base" (parse_job read it) */
	j->ideal_ns3 = json_object_get(o, "ideal") == NULL || j->p.ideal == AIF_JOB_IDEAL_NS3;
	if (aif_flowfile_load(j->file_path, (enum aif_flowfile_format)fmt, &j->ff, why,
			      sizeof(why)) != 0)
		return bad(err, err_len, file, P(".file"), why);
	if (j->host_names != NULL && j->ff.max_host >= j->n_host_names) {
		for (uint32_t k = 0; k < j->ff.n; k++)
			if (RTE_MAX(j->ff.f[k].src, j->ff.f[k].dst) >= j->n_host_names) {
				snprintf(why, sizeof(why), "%s:%u: host id %u: the job's hosts are "
					 "0..%u", j->file_path, j->ff.f[k].line,
					 RTE_MAX(j->ff.f[k].src, j->ff.f[k].dst), j->n_host_names - 1);
				break;
			}
		return bad(err, err_len, file, P(".file"), why);
	}
#undef P
	return 0;
}

static int
parse_job(struct aif_workload_job *j, json_t *o, unsigned i, const char *file,
	  char *err, size_t err_len)
{
	static const char *const allowed[] = {
		"name", "kind", "hosts", "bytes", "iterations", "chunks", "start_us",
		"compute_us", "straggler", "load", "cdf", "stop_us", "seed", "file", "format",
		"absolute", "ideal", NULL };
	static const char *const ideals[] = { "base", "ns3", NULL };
	char path[96];
	const char *k;
	double d;

#define P(sub) (snprintf(path, sizeof(path), "$.jobs[%u]%s", i, sub), path)
	if (!json_is_object(o))
		return bad(err, err_len, file, P(""), "must be an object");
	if (keys_ok(o, allowed, &k) != 0) {
		char sub[48];
		snprintf(sub, sizeof(sub), ".%s", k);
		return bad(err, err_len, file, P(sub), "unknown key (name, kind, hosts, bytes, "
			   "iterations, chunks, start_us, compute_us, straggler, load, cdf, "
			   "stop_us, seed, file, format, absolute, ideal)");
	}
	memset(j, 0, sizeof(*j));
	j->p.straggler = -1;
	j->p.iterations = 1;
	j->p.chunks = 1;
	j->p.seed = i + 1;
	const char *name = json_string_value(json_object_get(o, "name"));
	if (name == NULL || name[0] == '\0' || strlen(name) >= sizeof(j->p.name))
		return bad(err, err_len, file, P(".name"), "required, 1..31 characters");
	snprintf(j->p.name, sizeof(j->p.name), "%s", name);
	const char *kind = json_string_value(json_object_get(o, "kind"));
	int kd = kind != NULL ? aif_job_kind_parse(kind) : -1;
	if (kd < 0)
		return bad(err, err_len, file, P(".kind"), "one of allreduce_ring, allreduce_hd, "
			   "allgather, reduce_scatter, alltoall, incast, permutation, poisson, "
			   "flow_file");
	j->p.kind = (enum aif_job_kind)kd;
	int ideal = AIF_JOB_IDEAL_BASE;
	if (choice(o, "ideal", ideals, &ideal) != 0)
		return bad(err, err_len, file, P(".ideal"), "\"base\" or \"ns3\"");
	j->p.ideal = (enum aif_job_ideal)ideal;
	json_t *h = json_object_get(o, "hosts");
	if (h == NULL || (json_is_string(h) && strcmp(json_string_value(h), "all") == 0)) {
		j->host_names = NULL;
	} else if (json_is_array(h) && json_array_size(h) >= 2) {
		j->n_host_names = (uint32_t)json_array_size(h);
		j->host_names = calloc(j->n_host_names, sizeof(char *));
		for (uint32_t r = 0; j->host_names != NULL && r < j->n_host_names; r++) {
			const char *s = json_string_value(json_array_get(h, r));
			if (s == NULL)
				return bad(err, err_len, file, P(".hosts"), "host names");
			j->host_names[r] = strdup(s);
		}
	} else {
		return bad(err, err_len, file, P(".hosts"), "\"all\" or at least two host names");
	}
	d = 0;
	if (whole(o, "bytes", 1, AIF_CDF_SIZE_MAX, &d) != 0)
		return bad(err, err_len, file, P(".bytes"), "a whole number of bytes, 1..1e12");
	j->p.bytes = (uint64_t)d;
	if (j->p.kind != AIF_JOB_POISSON && j->p.kind != AIF_JOB_FLOW_FILE && j->p.bytes == 0)
		return bad(err, err_len, file, P(".bytes"), "required");
	d = 1;
	if (whole(o, "iterations", 1, 100000, &d) != 0)
		return bad(err, err_len, file, P(".iterations"), "a whole number 1..100000");
	j->p.iterations = (uint32_t)d;
	d = 1;
	if (whole(o, "chunks", 1, 1024, &d) != 0)
		return bad(err, err_len, file, P(".chunks"), "a whole number 1..1024");
	j->p.chunks = (uint32_t)d;
	d = 0;
	if (num(o, "start_us", 0, 1e9, &d) != 0)
		return bad(err, err_len, file, P(".start_us"), "0..1e9");
	j->p.start_ns = (aif_time_ns)(d * 1e3 + 0.5);
	d = 0;
	if (num(o, "compute_us", 0, 1e9, &d) != 0)
		return bad(err, err_len, file, P(".compute_us"), "0..1e9");
	j->p.compute_ns = (aif_time_ns)(d * 1e3 + 0.5);
	d = (double)j->p.seed;
	if (whole(o, "seed", 0, 4294967295.0, &d) != 0)
		return bad(err, err_len, file, P(".seed"), "a whole number 0..4294967295");
	j->p.seed = (uint64_t)d;
	json_t *st = json_object_get(o, "straggler");
	if (st != NULL) {
		const char *hn = json_string_value(json_object_get(st, "host"));
		d = 0;
		if (!json_is_object(st) || hn == NULL || num(st, "us", 0, 1e9, &d) != 0)
			return bad(err, err_len, file, P(".straggler"),
				   "{\"host\": NAME, \"us\": extra compute per iteration}");
		j->straggler_host = strdup(hn);
		j->p.straggler_ns = (aif_time_ns)(d * 1e3 + 0.5);
	}
	if (j->p.kind == AIF_JOB_POISSON) {
		d = 0;
		if (num(o, "load", 1e-6, 1, &d) != 0 || d == 0)
			return bad(err, err_len, file, P(".load"), "required for poisson, (0, 1]");
		j->p.load = d;
		d = 0;
		if (num(o, "stop_us", 0.001, 1e9, &d) != 0 || d == 0)
			return bad(err, err_len, file, P(".stop_us"), "required for poisson, > 0");
		j->p.stop_ns = (aif_time_ns)(d * 1e3 + 0.5);
		const char *cdf = json_string_value(json_object_get(o, "cdf"));
		if (cdf == NULL)
			return bad(err, err_len, file, P(".cdf"), "required for poisson: a size CDF file");
		/* relative to the workload file */
		const char *slash = strrchr(file, '/');
		if (cdf[0] == '/' || slash == NULL)
			snprintf(j->cdf_path, sizeof(j->cdf_path), "%s", cdf);
		else
			snprintf(j->cdf_path, sizeof(j->cdf_path), "%.*s/%s", (int)(slash - file),
				 file, cdf);
		char why[512];
		size_t len;
		char *text = read_regular(j->cdf_path, CDF_FILE_MAX_BYTES, &len, why, sizeof(why));
		int rc = text != NULL ? aif_cdf_parse(text, len, j->cdf_path, &j->cdf, why,
						      sizeof(why)) : -1;
		free(text);
		if (rc != 0)
			return bad(err, err_len, file, P(".cdf"), why);
	}
	if (j->p.kind == AIF_JOB_FLOW_FILE)
		return parse_flow_file(j, o, i, file, err, err_len);
	static const char *const only_ff[] = { "file", "format", "absolute", NULL };
	for (unsigned k = 0; only_ff[k] != NULL; k++)
		if (json_object_get(o, only_ff[k]) != NULL) {
			char sub[48];
			snprintf(sub, sizeof(sub), ".%s", only_ff[k]);
			return bad(err, err_len, file, P(sub), "for kind flow_file only");
		}
#undef P
	return 0;
}

/* "qlen_monitor": {...} | false, "pfc_log": bool */
static int
parse_monitors(struct aif_monitor_params *m, json_t *root, const char *file, char *err,
	       size_t err_len)
{
	static const char *const allowed[] = { "interval_ns", "start_us", "end_us", NULL };
	json_t *q = json_object_get(root, "qlen_monitor");
	const char *k;
	double d;

	aif_monitor_params_default(m);
	if (boolean(root, "pfc_log", &m->pfc) != 0)
		return bad(err, err_len, file, "$.pfc_log", "true or false");
	if (q == NULL)
		return 0;
	if (json_is_false(q)) {
		m->qlen = false;
		return 0;
	}
	if (!json_is_object(q))
		return bad(err, err_len, file, "$.qlen_monitor", "an object (interval_ns, start_us, "
			   "end_us) or false");
	if (keys_ok(q, allowed, &k) != 0) {
		char p[64];
		snprintf(p, sizeof(p), "$.qlen_monitor.%s", k);
		return bad(err, err_len, file, p, "unknown key (interval_ns, start_us, end_us)");
	}
	d = 100;
	if (num(q, "interval_ns", 1, 1e9, &d) != 0)
		return bad(err, err_len, file, "$.qlen_monitor.interval_ns", "1..1e9");
	m->qlen_interval_ns = (aif_time_ns)d;
	d = 0;
	if (num(q, "start_us", 0, 1e9, &d) != 0)
		return bad(err, err_len, file, "$.qlen_monitor.start_us", "0..1e9");
	m->qlen_start_ns = (aif_time_ns)(d * 1e3 + 0.5);
	d = 0;
	if (num(q, "end_us", 0, 1e9, &d) != 0)
		return bad(err, err_len, file, "$.qlen_monitor.end_us", "0..1e9 (0: the end)");
	m->qlen_end_ns = (aif_time_ns)(d * 1e3 + 0.5);
	if (m->qlen_end_ns != 0 && m->qlen_end_ns < m->qlen_start_ns)
		return bad(err, err_len, file, "$.qlen_monitor.end_us", "at least start_us");
	return 0;
}

int
aif_workload_load(struct aif_workload *w, const char *path, char *err, size_t err_len)
{
	json_error_t je;
	size_t len;
	int rc = -1;

	memset(w, 0, sizeof(*w));
	aif_rhost_params_default(&w->host, 100000000000ull);
	char *text = read_regular(path, JOBS_FILE_MAX_BYTES, &len, err, err_len);
	if (text == NULL)
		return -1;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (root == NULL) {
		snprintf(err, err_len, "%s: line %d: %s", path, je.line, je.text);
		return -1;
	}
	const char *k;
	static const char *const allowed[] = { "hosts", "jobs", "qlen_monitor", "pfc_log", NULL };
	if (!json_is_object(root) || keys_ok(root, allowed, &k) != 0) {
		bad(err, err_len, path, "$", "an object with \"hosts\" and \"jobs\" (and "
		    "\"qlen_monitor\", \"pfc_log\")");
		goto out;
	}
	json_t *h = json_object_get(root, "hosts");
	if (h != NULL && parse_hosts(&w->host, h, path, err, err_len) != 0)
		goto out;
	w->ns3_sport = h != NULL && json_is_string(json_object_get(h, "identities")) &&
		       strcmp(json_string_value(json_object_get(h, "identities")), "ns3") == 0;
	if (parse_monitors(&w->mon_params, root, path, err, err_len) != 0)
		goto out;
	json_t *jobs = json_object_get(root, "jobs");
	if (!json_is_array(jobs) || json_array_size(jobs) == 0 ||
	    json_array_size(jobs) > AIF_JOBS_MAX) {
		bad(err, err_len, path, "$.jobs", "an array of 1..64 jobs");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(jobs); i++) {
		w->n_jobs = (uint32_t)i + 1;
		if (parse_job(&w->job[i], json_array_get(jobs, i), (unsigned)i, path, err,
			      err_len) != 0)
			goto out;
	}
	rc = 0;
out:
	json_decref(root);
	if (rc != 0)
		aif_workload_free(w);
	return rc;
}

int
aif_workload_hosts(struct aif_workload *w, const struct aif_config *cfg, struct aif_fabric *f,
		   int (*skip)(uint16_t sw, uint16_t port, void *arg), void *skip_arg,
		   struct rte_mempool *pool, uint64_t seed, char *err, size_t err_len)
{
	w->host.seed = seed;
	if (aif_vhosts_build(&w->v, cfg, f, &w->host, skip, skip_arg, pool, err, err_len) != 0)
		return -1;
	w->started = true;
	if (w->v.n < 2) {
		snprintf(err, err_len, "jobs: %u free host port%s for virtual hosts; jobs need "
			 "two or more (hosts in the config, on ports with no device)", w->v.n,
			 w->v.n == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* A multi-plane fabric names its hosts p<k>-NAME: one host NAME with a port
 * per plane.  The number of planes (1: not multi-plane). */
static uint32_t
planes_of(const struct aif_vhosts *v, const struct aif_config *cfg)
{
	uint32_t P = 1;

	for (uint32_t i = 0; i < v->n; i++) {
		const char *n = cfg->hosts[v->cfg_host[i]].name;
		char *end;
		if (n[0] != 'p' || n[1] < '0' || n[1] > '9')
			return 1;
		unsigned long k = strtoul(n + 1, &end, 10);
		if (*end != '-' || k >= 8)
			return 1;
		P = RTE_MAX(P, (uint32_t)k + 1);
	}
	return P;
}

/* The virtual host of host name on plane k (P planes); -1 if none. */
static int
plane_host(const struct aif_vhosts *v, const struct aif_config *cfg, uint32_t P, uint32_t k,
	   const char *name)
{
	char full[AIF_NAME_MAX + 8];

	if (P == 1)
		return aif_vhosts_find(v, cfg, name);
	snprintf(full, sizeof(full), "p%u-%s", k, name);
	return aif_vhosts_find(v, cfg, full);
}

/* Host names as jobs see them: NAME for p<k>-NAME in a multi-plane fabric. */
static const char *
logical_name(const struct aif_config *cfg, const struct aif_vhosts *v, uint32_t i, uint32_t P)
{
	const char *n = cfg->hosts[v->cfg_host[i]].name;
	return P > 1 ? strchr(n, '-') + 1 : n;
}

/*
 * ns-3's standalone FCT (ConWeave's and HPCC's qp_finish), the one place
 * it is computed: over the fewest-hop path (breadth first, as ns-3's
 * CalculateRoute; the least delay among equals), with every link's
 * propagation delay, hop count and slowest rate,
 *	rtt   = 2 x delay + sum over its links of mtu x 8 / link rate
 *	ideal = rtt + (bytes + packets x 48) x 8 / slowest rate
 * in integer ns as there (48: the header bytes ns-3 counts per packet).
 * Host links carry no propagation delay here (rhost.h: a frame is at the
 * switch when its last bit is): host_link_delay_ns says so, and is where
 * a host link's delay goes when the hosts model one.
 */
#define NS3_HDR_BYTES 48

struct ns3_paths {
	uint32_t n;                 /* switches */
	uint32_t *hops;             /* [a * n + b]: links between switches */
	uint64_t *delay_ns, *tx_ns; /* propagation, per-link mtu serialization */
	uint64_t *min_bps;
};

/* A virtual host's cable to its switch, one way. */
static aif_time_ns
host_link_delay_ns(const struct aif_workload *w, uint32_t host)
{
	return aif_rhost_params(w->v.h[host])->link_delay_ns;
}

static uint64_t
link_bps(const struct aif_config *cfg, const struct aif_topo_link *l)
{
	if (l->rate_bps)
		return l->rate_bps;
	uint32_t mbps = cfg->switches[l->a_switch].ports[l->a_port].speed_mbps;
	return (uint64_t)(mbps ? mbps : 100000) * 1000000;
}

static void
ns3_paths_free(struct ns3_paths *np)
{
	free(np->hops);
	free(np->delay_ns);
	free(np->tx_ns);
	free(np->min_bps);
}

static int
ns3_paths_make(struct ns3_paths *np, const struct aif_config *cfg, uint32_t mtu)
{
	uint32_t n = cfg->n_switches, *first = NULL, *at = NULL;
	size_t nn = (size_t)n * n;
	uint32_t *queue = calloc(n ? n : 1, sizeof(*queue));

	np->n = n;
	np->hops = malloc(nn * sizeof(*np->hops));
	np->delay_ns = calloc(nn, sizeof(*np->delay_ns));
	np->tx_ns = calloc(nn, sizeof(*np->tx_ns));
	np->min_bps = calloc(nn, sizeof(*np->min_bps));
	/* each switch's links in the links' order (what a scan of every link
	 * for each switch reached: n x n x links, 10^10 steps on k=28) */
	if (queue == NULL || np->hops == NULL || np->delay_ns == NULL || np->tx_ns == NULL ||
	    np->min_bps == NULL || aif_paths_links_of(cfg, &first, &at) != 0) {
		free(queue);
		free(first);
		free(at);
		ns3_paths_free(np);
		return -1;
	}
	memset(np->hops, 0xFF, nn * sizeof(*np->hops));
	for (uint32_t a = 0; a < n; a++) {
		uint32_t *hp = &np->hops[(size_t)a * n], qh = 0, qt = 0;
		uint64_t *dl = &np->delay_ns[(size_t)a * n], *tx = &np->tx_ns[(size_t)a * n];
		uint64_t *mb = &np->min_bps[(size_t)a * n];
		hp[a] = 0;
		mb[a] = UINT64_MAX;
		queue[qt++] = a;
		while (qh < qt) {
			uint32_t u = queue[qh++];
			for (uint32_t e = first[u]; e < first[u + 1]; e++) {
				const struct aif_topo_link *l = &cfg->links[at[e]];
				uint32_t x = l->a_switch == u ? l->b_switch
					     : l->b_switch == u ? l->a_switch : UINT32_MAX;
				if (x == UINT32_MAX || x >= n)
					continue;
				uint64_t bps = link_bps(cfg, l), d = dl[u] + l->delay_ns;
				if (hp[x] == UINT32_MAX)
					queue[qt++] = x;
				else if (hp[x] != hp[u] + 1 || d >= dl[x])
					continue;
				hp[x] = hp[u] + 1;
				dl[x] = d;
				tx[x] = tx[u] + (uint64_t)mtu * 1000000000ull * 8 / bps;
				mb[x] = RTE_MIN(mb[u], bps);
			}
		}
	}
	free(queue);
	free(first);
	free(at);
	return 0;
}

/* Hosts a and b (virtual host indices), bytes: ns-3's ideal; 0 if no path. */
static aif_time_ns
ns3_ideal_ns(const struct aif_workload *w, const struct ns3_paths *np, uint32_t a, uint32_t b,
	     uint64_t bytes)
{
	size_t ab = (size_t)w->v.sw[a] * np->n + w->v.sw[b];
	uint64_t ra = aif_rhost_params(w->v.h[a])->rate_bps;
	uint64_t rb = aif_rhost_params(w->v.h[b])->rate_bps;
	uint64_t mtu = w->host.mtu;

	if (np->hops[ab] == UINT32_MAX || ra == 0 || rb == 0)
		return 0;
	uint64_t bw = RTE_MIN(np->min_bps[ab], RTE_MIN(ra, rb));
	uint64_t delay = np->delay_ns[ab] + host_link_delay_ns(w, a) + host_link_delay_ns(w, b);
	uint64_t tx = np->tx_ns[ab] + mtu * 1000000000ull * 8 / ra + mtu * 1000000000ull * 8 / rb;
	uint64_t total = bytes + ((bytes - 1) / mtu + 1) * NS3_HDR_BYTES;
	return 2 * delay + tx + (aif_time_ns)((unsigned __int128)total * 8000000000ull / bw);
}

/* A flow_file job's flows as jobs.h takes them: ranks, starts from the
 * job's (the earliest flow at 0 unless absolute), ns-3's identities and
 * ideals.  hosts: rank -> virtual host. */
static int
flow_file_flows(struct aif_workload *w, const struct aif_config *cfg,
		struct aif_workload_job *j, uint32_t ji, const uint32_t *hosts, uint32_t n,
		struct aif_job_flow **out, char *err, size_t err_len)
{
	const struct aif_flowfile *ff = &j->ff;
	struct ns3_paths np = { 0 };
	uint32_t *sent = calloc(n, sizeof(*sent)), *rcvd = calloc(n, sizeof(*rcvd));
	struct aif_job_flow *jf = calloc(ff->n, sizeof(*jf));
	int rc = -1;

	if (sent == NULL || rcvd == NULL || jf == NULL ||
	    (j->ideal_ns3 && ns3_paths_make(&np, cfg, w->host.mtu) != 0)) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	aif_time_ns base = j->absolute ? 0 : ff->first_ns;
	if (!j->absolute && w->time_offset_ns == 0)
		w->time_offset_ns = base; /* the results read as the file's times */
	for (uint32_t k = 0; k < ff->n; k++) {
		const struct aif_flowfile_flow *f = &ff->f[k];
		if (f->src >= n || f->dst >= n) {
			snprintf(err, err_len, "$.jobs[%u].file: %s:%u: host id %u: the fabric has "
				 "%u hosts (0..%u) for this job", ji, j->file_path, f->line,
				 f->src >= n ? f->src : f->dst, n, n - 1);
			goto out;
		}
		jf[k] = (struct aif_job_flow){
			.src = f->src, .dst = f->dst, .bytes = f->bytes,
			.start_ns = f->start_ns - base,
			.sport = (uint16_t)(10000 + sent[f->src]++),
			.dport = ff->format == AIF_FLOWFILE_HPCC ? f->dport
								 : (uint16_t)(100 + rcvd[f->dst]++),
			.ideal_ns = j->ideal_ns3 ? ns3_ideal_ns(w, &np, hosts[f->src],
								hosts[f->dst], f->bytes) : 0,
		};
	}
	*out = jf;
	jf = NULL;
	rc = 0;
out:
	ns3_paths_free(&np);
	free(sent);
	free(rcvd);
	free(jf);
	return rc;
}

int
aif_workload_jobs(struct aif_workload *w, const struct aif_config *cfg, aif_time_ns t0_ns,
		  char *err, size_t err_len)
{
	char why[AIF_ERR_MAX];
	uint32_t P = planes_of(&w->v, cfg);
	w->planes = P;
	/* the hosts of plane 0 (all of them when not multi-plane), in order */
	uint32_t n_all = 0, *all = calloc(w->v.n ? w->v.n : 1, sizeof(*all));

	if (all == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < w->v.n; i++)
		if (P == 1 || strncmp(cfg->hosts[w->v.cfg_host[i]].name, "p0-", 3) == 0)
			all[n_all++] = i;
	w->n_hosts = n_all;

	w->js = aif_jobs_create(w->v.h, w->v.n, w->v.rate_bps, aif_vhosts_rtt, &w->v);
	if (w->js == NULL) {
		snprintf(err, err_len, "out of memory");
		free(all);
		return -1;
	}
	aif_jobs_set_path(w->js, aif_vhosts_path);
	aif_jobs_set_ns3_path(w->js, aif_vhosts_ns3_path);
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		struct aif_workload_job *j = &w->job[i];
		uint32_t n = j->host_names ? j->n_host_names : n_all;
		uint32_t *hosts = calloc((size_t)n * P, sizeof(*hosts));
		if (hosts == NULL) {
			snprintf(err, err_len, "out of memory");
			free(all);
			return -1;
		}
		for (uint32_t r = 0; r < n; r++) {
			const char *name = j->host_names ? j->host_names[r]
							 : logical_name(cfg, &w->v, all[r], P);
			for (uint32_t k = 0; k < P; k++) {
				int hi = plane_host(&w->v, cfg, P, k, name);
				if (hi < 0) {
					snprintf(err, err_len, "$.jobs[%u].hosts[%u]: %s is not a virtual "
						 "host%s (a host of the config on a port with no device)",
						 i, r, name, P > 1 ? " on every plane" : "");
					free(hosts);
					free(all);
					return -1;
				}
				hosts[(size_t)r * P + k] = (uint32_t)hi;
			}
			if (j->straggler_host != NULL && strcmp(name, j->straggler_host) == 0)
				j->p.straggler = (int32_t)r;
		}
		if (j->straggler_host != NULL && j->p.straggler < 0) {
			snprintf(err, err_len, "$.jobs[%u].straggler.host: %s is not one of the job's "
				 "hosts", i, j->straggler_host);
			free(hosts);
			free(all);
			return -1;
		}
		j->p.n_ranks = n;
		j->p.planes = P;
		j->p.hosts = hosts;
		j->p.cdf = j->p.kind == AIF_JOB_POISSON ? &j->cdf : NULL;
		struct aif_job_flow *jf = NULL;
		if (j->p.kind == AIF_JOB_FLOW_FILE) {
			if (P > 1) {
				snprintf(err, err_len, "$.jobs[%u]: flow_file: not on a multi-plane "
					 "fabric (its hosts are not one host each)", i);
				free(hosts);
				free(all);
				return -1;
			}
			if (flow_file_flows(w, cfg, j, i, hosts, n, &jf, err, err_len) != 0) {
				free(hosts);
				free(all);
				return -1;
			}
			j->p.flows = jf;
			j->p.n_flows = j->ff.n;
			j->p.set_sport = w->ns3_sport;
		}
		struct aif_job_params p = j->p;
		p.start_ns += t0_ns;
		p.stop_ns += t0_ns;
		int rc = aif_jobs_add(w->js, &p, why, sizeof(why));
		free(hosts);
		free(jf);
		j->p.hosts = NULL;
		j->p.flows = NULL;
		if (rc < 0) {
			snprintf(err, err_len, "$.jobs[%u]: %s", i, why);
			free(all);
			return -1;
		}
	}
	free(all);
	return 0;
}

void
aif_workload_ties(const struct aif_workload *w,
		  void (*tie)(uint16_t sw_a, uint16_t sw_b, void *arg), void *arg)
{
	/* a rank's callbacks post and set timers on its hosts of every plane
	 * (jobs.c): those hosts' switches are tied */
	for (uint32_t k = 0; w->js != NULL && k < aif_jobs_n(w->js); k++) {
		const struct aif_job_params *p = aif_jobs_params(w->js, k);
		uint32_t P = p->planes > 1 ? p->planes : 1;
		for (uint32_t r = 0; P > 1 && r < p->n_ranks; r++)
			for (uint32_t pl = 1; pl < P; pl++)
				tie(w->v.sw[p->hosts[(size_t)r * P]],
				    w->v.sw[p->hosts[(size_t)r * P + pl]], arg);
	}
}

void
aif_workload_plane_ties(const struct aif_workload *w, const struct aif_config *cfg,
			void (*tie)(uint16_t sw_a, uint16_t sw_b, void *arg), void *arg)
{
	uint32_t P = planes_of(&w->v, cfg);

	for (uint32_t i = 0; P > 1 && i < w->v.n; i++) {
		if (strncmp(cfg->hosts[w->v.cfg_host[i]].name, "p0-", 3) != 0)
			continue;
		const char *name = logical_name(cfg, &w->v, i, P);
		for (uint32_t k = 1; k < P; k++) {
			int hk = plane_host(&w->v, cfg, P, k, name);
			if (hk >= 0)
				tie(w->v.sw[i], w->v.sw[hk], arg);
		}
	}
}

int
aif_workload_idle(void *arg)
{
	const struct aif_workload *w = arg;

	if (w->js == NULL || !aif_jobs_done(w->js))
		return 0;
	for (uint32_t i = 0; i < w->v.n; i++)
		if (!aif_rhost_idle(w->v.h[i]))
			return 0;
	return 1;
}

int
aif_workload_stuck(const struct aif_workload *w)
{
	if (w->js == NULL || aif_jobs_done(w->js))
		return 0;
	for (uint32_t i = 0; i < w->v.n; i++)
		if (aif_rhost_next_ns(w->v.h[i]) != AIF_TIME_NS_NEVER)
			return 0;
	return 1;
}

int
aif_workload_monitors(struct aif_workload *w, const struct aif_ctl *ctl)
{
	w->mon_params.time_offset_ns = w->time_offset_ns;
	w->mon = aif_monitors_create(&w->mon_params, ctl, &w->v);
	return w->mon != NULL ? 0 : -1;
}

/* ---- results ---- */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
pct(const double *v, size_t n, double p)
{
	if (n == 0)
		return 0;
	size_t i = (size_t)ceil(p / 100 * (double)n);
	return v[i ? i - 1 : 0];
}

struct qp_sum {
	json_t *arr;
	const struct aif_workload *w;
	const struct aif_config *cfg;
};

json_t *
aif_workload_json(const struct aif_workload *w, const struct aif_ctl *ctl,
		  const struct aif_config *cfg)
{
	json_t *root = json_object(), *jobs = json_array();
	const struct aif_jobs *js = w->js;

	for (uint32_t k = 0; js != NULL && k < aif_jobs_n(js); k++) {
		const struct aif_job_params *p = aif_jobs_params(js, k);
		uint32_t n;
		const struct aif_job_iter *it = aif_jobs_iters(js, k, &n);
		json_t *iters = json_array();
		double sum_jct = 0, sum_x = 0, sum_bus = 0;
		uint32_t done = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (it[i].end_ns == 0)
				continue;
			double jct = (double)(it[i].end_ns - it[i].start_ns) / 1e3;
			double x = it[i].ideal_ns ? jct * 1e3 / (double)it[i].ideal_ns : 0;
			double bus = aif_jobs_busbw_gbps(js, k, &it[i]);
			json_array_append_new(iters, json_pack(
				"{s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "iteration", (int)i,
				"start_us", (double)it[i].start_ns / 1e3, "jct_us", jct,
				"ideal_us", (double)it[i].ideal_ns / 1e3, "x_ideal", x,
				"algbw_gbps", aif_jobs_algbw_gbps(js, k, &it[i]), "busbw_gbps", bus));
			sum_jct += jct, sum_x += x, sum_bus += bus;
			done++;
		}
		json_array_append_new(jobs, json_pack(
			"{s:s, s:s, s:i, s:I, s:i, s:i, s:o, s:f, s:f, s:f}", "name", p->name,
			"kind", aif_job_kind_name(p->kind), "ranks", (int)p->n_ranks,
			"bytes", (json_int_t)p->bytes, "iterations", (int)n, "finished", (int)done,
			"iteration_results", iters, "jct_us_mean", done ? sum_jct / done : 0.0,
			"x_ideal_mean", done ? sum_x / done : 0.0,
			"busbw_gbps_mean", done ? sum_bus / done : 0.0));
	}
	json_object_set_new(root, "jobs", jobs);

	/* flows: FCT slowdown */
	uint32_t nf = 0, fin = 0;
	const struct aif_flow *fl = js != NULL ? aif_jobs_flows(js, &nf) : NULL;
	double *sd = calloc(nf ? nf : 1, sizeof(double)), sum = 0;
	for (uint32_t i = 0; sd != NULL && i < nf; i++)
		if (fl[i].end_ns) {
			double s = fl[i].standalone_ns
					   ? (double)(fl[i].end_ns - fl[i].start_ns) /
						     (double)fl[i].standalone_ns
					   : 1;
			sd[fin++] = s < 1 ? 1 : s;
			sum += sd[fin - 1];
		}
	if (sd != NULL)
		qsort(sd, fin, sizeof(double), cmp_double);
	json_object_set_new(root, "flows", json_pack(
		"{s:i, s:i, s:f, s:f, s:f, s:f}", "count", (int)nf, "finished", (int)fin,
		"slowdown_avg", fin ? sum / fin : 0.0, "slowdown_p50", pct(sd, fin, 50),
		"slowdown_p95", pct(sd, fin, 95), "slowdown_p99", pct(sd, fin, 99)));
	free(sd);

	/* hosts */
	struct aif_rhost_qp_ctr t = { 0 };
	uint64_t icrc = 0, paused = 0, pfc_rx = 0;
	for (uint32_t i = 0; i < w->v.n; i++) {
		const struct aif_rhost_ctr *c = aif_rhost_ctr(w->v.h[i]);
#define ADD(name, text) t.name += c->qp.name;
		AIF_FOREACH_RHOST_QP_CTR(ADD)
#undef ADD
		icrc += c->rx_icrc_bad;
		paused += c->paused_ns;
		pfc_rx += c->rx_pfc;
	}
	json_t *hj = json_object();
#define HJ(name, text) json_object_set_new(hj, #name, json_integer((json_int_t)t.name));
	AIF_FOREACH_RHOST_QP_CTR(HJ)
#undef HJ
	json_object_set_new(hj, "icrc_bad", json_integer((json_int_t)icrc));
	json_object_set_new(hj, "paused_us", json_real((double)paused / 1e3));
	json_object_set_new(hj, "pfc_xoff_received", json_integer((json_int_t)pfc_rx));
	json_object_set_new(hj, "count", json_integer(w->v.n));
	json_object_set_new(root, "hosts", hj);

	/* fabric: pauses the switches sent, drops, path imbalance at the leaves */
	uint64_t pfc = 0, drops = 0;
	double imb = 1;
	for (uint16_t s = 0; ctl != NULL && s < ctl->n_sw; s++) {
		const struct aif_switch *sw = ctl->sws[s];
		bool leaf = false;
		uint64_t maxb = 0, sumb = 0, nl = 0;
		for (uint16_t p = 0; p < sw->n_ports; p++) {
			uint64_t tx = 0;
			for (uint16_t h = 0; h < sw->n_shards; h++) {
				const struct aif_port_ctr *c = &sw->shards[h]->port_ctr[p];
				tx += c->tx_bytes;
				for (unsigned d = 0; d < AIF_DROP_MAX; d++)
					drops += c->drops[d];
			}
			if (sw->qos != NULL)
				for (unsigned q = 0; q < 8; q++)
					pfc += sw->qos->port[p].pfc_tx.ctr.tx_pfc[q];
			if (sw->ports[p].base == &aif_port_rhost_ops) {
				leaf = true;
			} else if (sw->ports[p].base == &aif_port_link_ops) {
				maxb = tx > maxb ? tx : maxb;
				sumb += tx;
				nl++;
			}
		}
		if (leaf && nl > 1 && sumb > 0) {
			double x = (double)maxb * (double)nl / (double)sumb;
			imb = x > imb ? x : imb;
		}
	}
	(void)cfg;
	json_object_set_new(root, "fabric", json_pack("{s:I, s:I, s:f}", "pfc_xoff_sent",
						      (json_int_t)pfc, "drops", (json_int_t)drops,
						      "path_imbalance", imb));
	return root;
}

static double
jreal(const json_t *o, const char *k)
{
	json_t *x = json_object_get(o, k);
	return json_is_number(x) ? json_number_value(x) : 0;
}

void
aif_workload_print(const json_t *sum)
{
	json_t *j;
	size_t i;

	printf("  %-14s %-15s %5s %10s %10s %8s %10s %10s\n", "job", "kind", "iters",
	       "JCT us", "ideal us", "x ideal", "algbw Gb/s", "busbw Gb/s");
	json_array_foreach(json_object_get(sum, "jobs"), i, j) {
		json_t *it0 = json_array_get(json_object_get(j, "iteration_results"), 0);
		double jct = jreal(j, "jct_us_mean");
		const char *kind = json_string_value(json_object_get(j, "kind"));
		if (strcmp(kind, "poisson") == 0 || strcmp(kind, "flow_file") == 0) {
			printf("  %-14s %-15s %2d/%-2d %10.1f %10s %8s %10s %10s   (flows below)\n",
			       json_string_value(json_object_get(j, "name")), kind,
			       (int)jreal(j, "finished"), (int)jreal(j, "iterations"), jct, "-", "-",
			       "-", "-");
			continue;
		}
		printf("  %-14s %-15s %2d/%-2d %10.1f %10.1f %8.3f %10.1f %10.1f\n",
		       json_string_value(json_object_get(j, "name")),
		       json_string_value(json_object_get(j, "kind")),
		       (int)jreal(j, "finished"), (int)jreal(j, "iterations"), jct,
		       jreal(it0, "ideal_us"), jreal(j, "x_ideal_mean"),
		       jct > 0 ? jreal(j, "bytes") * 8 / jct / 1e3 : 0, jreal(j, "busbw_gbps_mean"));
	}
	const json_t *f = json_object_get(sum, "flows"), *h = json_object_get(sum, "hosts"),
		     *fb = json_object_get(sum, "fabric");
	if (jreal(f, "count") > 0)
		printf("  flows %d (%d done): FCT slowdown avg %.2f, p50 %.2f, p95 %.2f, p99 %.2f\n",
		       (int)jreal(f, "count"), (int)jreal(f, "finished"), jreal(f, "slowdown_avg"),
		       jreal(f, "slowdown_p50"), jreal(f, "slowdown_p95"), jreal(f, "slowdown_p99"));
	printf("  hosts: %.0f data packets, %.0f retransmitted, %.0f NAKs, %.0f timeouts, %.0f CNPs, "
	       "%.0f CE-marked, %.0f out of order\n", jreal(h, "tx_packets"), jreal(h, "retx"),
	       jreal(h, "naks_rx"), jreal(h, "timeouts"), jreal(h, "cnps_rx"), jreal(h, "rx_ce"),
	       jreal(h, "rx_ooo"));
	printf("  fabric: %.0f PFC pauses sent, %.0f drops, path imbalance %.2f (max/mean bytes "
	       "on a leaf's uplinks)\n", jreal(fb, "pfc_xoff_sent"), jreal(fb, "drops"),
	       jreal(fb, "path_imbalance"));
}

static uint32_t
ip_of(const struct aif_workload *w, uint32_t host)
{
	return aif_rhost_params(w->v.h[host])->ip;
}

/* ns-3's address of host id i (HPCC, ConWeave: node i's). */
static uint32_t
ns3_ip(uint32_t i)
{
	return 0x0b000001u + ((i / 256) << 16) + ((i % 256) << 8);
}

static int
write_fct(const struct aif_workload *w, struct aif_textbuf *f)
{
	uint32_t nf = 0;
	const struct aif_flow *fl = w->js != NULL ? aif_jobs_flows(w->js, &nf) : NULL;
	/* flow_file jobs: virtual host -> host id in the file, per job */
	int32_t *id_of[AIF_JOBS_MAX] = { NULL };
	int rc = 0;

	for (uint32_t k = 0; k < w->n_jobs && w->js != NULL && k < aif_jobs_n(w->js); k++) {
		const struct aif_job_params *p = aif_jobs_params(w->js, k);
		if (p->kind != AIF_JOB_FLOW_FILE)
			continue;
		if ((id_of[k] = malloc(sizeof(int32_t) * (w->v.n ? w->v.n : 1))) == NULL) {
			rc = -1;
			goto out;
		}
		for (uint32_t i = 0; i < w->v.n; i++)
			id_of[k][i] = -1;
		for (uint32_t r = 0; r < p->n_ranks; r++)
			id_of[k][p->hosts[r]] = (int32_t)r;
	}
	for (uint32_t x = 0; x < nf; x++) {
		const struct aif_flow *a = &fl[x];
		if (a->end_ns == 0)
			continue;
		uint64_t st = a->start_ns + w->time_offset_ns, fct = a->end_ns - a->start_ns;
		if (a->job < AIF_JOBS_MAX && id_of[a->job] != NULL) {
			uint32_t s = (uint32_t)id_of[a->job][a->src], d = (uint32_t)id_of[a->job][a->dst];
			if (w->job[a->job].ff.format == AIF_FLOWFILE_CONWEAVE) {
				aif_textbuf_u64(f, s);
				aif_textbuf_char(f, ' ');
				aif_textbuf_u64(f, d);
			} else {
				aif_textbuf_hex32(f, ns3_ip(s));
				aif_textbuf_char(f, ' ');
				aif_textbuf_hex32(f, ns3_ip(d));
			}
		} else {
			aif_textbuf_hex32(f, ip_of(w, a->src));
			aif_textbuf_char(f, ' ');
			aif_textbuf_hex32(f, ip_of(w, a->dst));
		}
		/* " %u %u %lu %lu %lu %lu\n" */
		const uint64_t col[] = { a->sport, a->dport ? a->dport : 4791, a->bytes, st, fct,
					 a->standalone_ns };
		for (unsigned c = 0; c < sizeof(col) / sizeof(col[0]); c++) {
			aif_textbuf_char(f, ' ');
			aif_textbuf_u64(f, col[c]);
		}
		aif_textbuf_char(f, '\n');
	}
out:
	for (uint32_t k = 0; k < AIF_JOBS_MAX; k++)
		free(id_of[k]);
	return rc;
}

struct qp_write {
	struct aif_textbuf *t;
	const struct aif_workload *w;
	const struct aif_config *cfg;
};

static void
write_qp(uint32_t job, uint32_t host, uint32_t qp, void *arg)
{
	struct qp_write *q = arg;
	struct aif_textbuf *t = q->t;
	const struct aif_rhost_qp_ctr *c = aif_rhost_qp_ctr(q->w->v.h[host], qp);

	/* "%s,%s,%u,%u" and ",%lu" per counter */
	aif_textbuf_str(t, aif_jobs_params(q->w->js, job)->name);
	aif_textbuf_char(t, ',');
	aif_textbuf_str(t, q->cfg->hosts[q->w->v.cfg_host[host]].name);
	aif_textbuf_char(t, ',');
	aif_textbuf_u64(t, qp);
	aif_textbuf_char(t, ',');
	aif_textbuf_u64(t, aif_rhost_qp_sport(q->w->v.h[host], qp));
#define QW(name, text)                   \
	aif_textbuf_char(t, ',');        \
	aif_textbuf_u64(t, c->name);
	AIF_FOREACH_RHOST_QP_CTR(QW)
#undef QW
	aif_textbuf_char(t, '\n');
}

int
aif_workload_write(const struct aif_workload *w, const struct aif_config *cfg,
		   const json_t *summary, const char *dir, char *err, size_t err_len)
{
	char path[PATH_MAX];
	FILE *f;
	int bad_io = 0;
	struct aif_textbuf tbuf, *tb = &tbuf; /* the long tables' lines */

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, err_len, "%s: %s", dir, strerror(errno));
		return -1;
	}
	/* jobs.csv */
	snprintf(path, sizeof(path), "%s/jobs.csv", dir);
	if ((f = fopen(path, "w")) == NULL)
		goto io;
	fprintf(f, "job,kind,ranks,bytes,iteration,start_us,jct_us,ideal_us,x_ideal,algbw_gbps,"
		"busbw_gbps\n");
	json_t *j, *it;
	size_t i, k;
	json_array_foreach(json_object_get(summary, "jobs"), i, j)
		json_array_foreach(json_object_get(j, "iteration_results"), k, it)
			fprintf(f, "%s,%s,%d,%.0f,%d,%.3f,%.3f,%.3f,%.4f,%.3f,%.3f\n",
				json_string_value(json_object_get(j, "name")),
				json_string_value(json_object_get(j, "kind")), (int)jreal(j, "ranks"),
				jreal(j, "bytes"), (int)jreal(it, "iteration"), jreal(it, "start_us"),
				jreal(it, "jct_us"), jreal(it, "ideal_us"), jreal(it, "x_ideal"),
				jreal(it, "algbw_gbps"), jreal(it, "busbw_gbps"));
	bad_io |= fclose(f) != 0;
	/* fct.txt, HPCC's format (a flow file's flows: as its simulator names them) */
	snprintf(path, sizeof(path), "%s/fct.txt", dir);
	if ((f = fopen(path, "w")) == NULL)
		goto io;
	aif_textbuf_init(tb, f);
	int fct_rc = write_fct(w, tb);
	aif_textbuf_flush(tb);
	if (fct_rc != 0) {
		fclose(f);
		snprintf(err, err_len, "%s: out of memory", path);
		return -1;
	}
	bad_io |= fclose(f) != 0;
	if (w->mon != NULL && aif_monitors_write(w->mon, dir, w->end_ns, err, err_len) != 0)
		return -1;
	/* qps.csv */
	snprintf(path, sizeof(path), "%s/qps.csv", dir);
	if ((f = fopen(path, "w")) == NULL)
		goto io;
	fprintf(f, "job,host,qp,udp_sport");
#define QH(name, text) fprintf(f, ",%s", #name);
	AIF_FOREACH_RHOST_QP_CTR(QH)
#undef QH
	fputc('\n', f);
	aif_textbuf_init(tb, f);
	struct qp_write qw = { tb, w, cfg };
	if (w->js != NULL)
		aif_jobs_foreach_qp(w->js, write_qp, &qw);
	aif_textbuf_flush(tb);
	bad_io |= fclose(f) != 0;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (json_dump_file(summary, path, JSON_INDENT(2) | JSON_SORT_KEYS) != 0)
		goto io;
	if (bad_io)
		goto io;
	return 0;
io:
	snprintf(err, err_len, "%s: %s", path, errno ? strerror(errno) : "could not write");
	return -1;
}

void
aif_workload_free(struct aif_workload *w)
{
	aif_jobs_free(w->js);
	w->js = NULL;
	if (w->started)
		aif_vhosts_free(&w->v);
	w->started = false;
	aif_monitors_free(w->mon); /* after the hosts it hooked */
	w->mon = NULL;
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		for (uint32_t r = 0; r < w->job[i].n_host_names; r++)
			free(w->job[i].host_names ? w->job[i].host_names[r] : NULL);
		free(w->job[i].host_names);
		free(w->job[i].straggler_host);
		aif_flowfile_free(&w->job[i].ff);
		w->job[i].host_names = NULL;
		w->job[i].straggler_host = NULL;
		w->job[i].n_host_names = 0;
	}
}
