/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workload files (control/workload.c) and the flow-size CDFs they name
 * (hosts/jobs.c, aif_cdf_parse): what a hostile or broken file gets
 * instead of a hang, a silent truncation or an endless stream of flows.
 * Each refusal names the JSON path and the reason.  Then mutated CDFs and
 * jobs files: each is taken or refused, never a crash, and what is taken
 * keeps the CDF's rules.  No EAL.
 *
 * flow_file jobs and the monitors of --results: a flow_file job read (its
 * flows, format, absolute and ideal; the hosts' ns-3 identities;
 * qlen_monitor and pfc_log), and refused with the JSON path of what is
 * wrong: a flow file that is missing, no regular file or has a bad line
 * (its file and line in the message), no format or an unknown one, a host
 * id past the job's hosts list, keys of other kinds on a flow_file job and
 * flow_file's keys on others, bad monitor settings and identities.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rng.h"
#include "workload.h"

static char dir[64];

static void
write_file(const char *name, const char *text, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* A jobs file with one poisson job over cdf, or with the given job. */
static void
jobs_file(const char *job)
{
	char text[512];

	snprintf(text, sizeof(text), "{\"jobs\": [%s]}", job);
	write_file("jobs.json", text, strlen(text));
}

static void
poisson(const char *cdf)
{
	char job[256];

	snprintf(job, sizeof(job), "{\"name\": \"p\", \"kind\": \"poisson\", \"load\": 0.5, "
		 "\"stop_us\": 10, \"cdf\": \"%s\"}", cdf);
	jobs_file(job);
}

/* Load jobs.json: "" when taken, else the error after "<dir>/jobs.json: ". */
static const char *
load(void)
{
	static char err[1024];
	char path[128];
	struct aif_workload *w = calloc(1, sizeof(*w));

	assert_non_null(w);
	snprintf(path, sizeof(path), "%s/jobs.json", dir);
	err[0] = '\0';
	if (aif_workload_load(w, path, err, sizeof(err)) == 0) {
		aif_workload_free(w);
		free(w);
		return "";
	}
	free(w);
	size_t n = strlen(path);
	assert_true(strncmp(err, path, n) == 0 && strncmp(err + n, ": ", 2) == 0);
	return err + n + 2;
}

/* The error with the CDF's path (dir/name) written as NAME. */
static const char *
load_cdf_error(void)
{
	static char out[1024];
	const char *e = load();
	char prefix[128];
	const char *at;

	snprintf(prefix, sizeof(prefix), "%s/", dir);
	at = strstr(e, prefix);
	if (at == NULL)
		return e;
	snprintf(out, sizeof(out), "%.*s%s", (int)(at - e), e, at + strlen(prefix));
	return out;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/aif_test_workload.%d", (int)getpid());
	return mkdir(dir, 0700);
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_good_cdf(void **state)
{
	static const char cdf[] = "# size percent\n0 0\n\n1000 50 # half\r\n8000 100\n";

	(void)state;
	write_file("ok.txt", cdf, strlen(cdf));
	poisson("ok.txt");
	assert_string_equal(load(), "");
}

/* The CDFs shipped in config/workloads (HPCC's four) are taken, GoogleRPC2008
 * with its 843 points among them; sampled, each gives what HPCC's
 * traffic_gen.py's getValueFromPercentile gives (the first point whose
 * percent reaches it, linear from the one before), checked here by a scan. */
static void
test_shipped_cdfs(void **state)
{
	static const char *const names[] = { "AliStorage2019.txt", "FbHdp_distribution.txt",
					      "GoogleRPC2008.txt", "WebSearch_distribution.txt" };
	static char text[1 << 20];
	char path[512], err[512];

	(void)state;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		snprintf(path, sizeof(path), "%s/config/workloads/%s", AIF_SOURCE_ROOT, names[k]);
		FILE *f = fopen(path, "r");
		assert_non_null(f);
		size_t n = fread(text, 1, sizeof(text), f);
		fclose(f);
		struct aif_cdf *c = malloc(sizeof(*c));
		assert_non_null(c);
		if (aif_cdf_parse(text, n, names[k], c, err, sizeof(err)) != 0)
			fail_msg("%s", err);
		if (strcmp(names[k], "GoogleRPC2008.txt") == 0)
			assert_int_equal(c->n, 843);
		assert_true(c->pct[0] == 0);
		for (int i = 0; i <= 1000; i++) {
			double y = i / 1000.0 * 100, want = c->size[c->n - 1];
			for (uint32_t j = 1; j < c->n; j++)
				if (y <= c->pct[j]) {
					double span = c->pct[j] - c->pct[j - 1];
					double t = span > 0 ? (y - c->pct[j - 1]) / span : 1;
					want = c->size[j - 1] + t * (c->size[j] - c->size[j - 1]);
					break;
				}
			assert_true(aif_cdf_sample(c, i / 1000.0) == want);
		}
		free(c);
	}
}

/* Not a regular file: refused at once (a FIFO would wait for a writer,
 * /dev/zero never end); too large a file too. */
static void
test_cdf_not_a_file(void **state)
{
	char path[128];

	(void)state;
	alarm(30); /* a hang is a failure */
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	poisson("fifo");
	assert_string_equal(load_cdf_error(), "$.jobs[0].cdf: fifo: not a regular file (a FIFO)");
	poisson("/dev/zero");
	assert_string_equal(load_cdf_error(),
			    "$.jobs[0].cdf: /dev/zero: not a regular file (a device)");
	poisson(".");
	assert_string_equal(load_cdf_error(), "$.jobs[0].cdf: .: not a regular file (a directory)");
	char *big = malloc((1u << 20) + 1);
	assert_non_null(big);
	memset(big, ' ', (1u << 20) + 1);
	write_file("big.txt", big, (1u << 20) + 1);
	free(big);
	poisson("big.txt");
	assert_string_equal(load_cdf_error(), "$.jobs[0].cdf: big.txt: larger than 1048576 bytes");
	/* the jobs file itself */
	char jobs[128];
	snprintf(jobs, sizeof(jobs), "%s/jobs.json", dir);
	unlink(jobs);
	assert_int_equal(mkfifo(jobs, 0600), 0);
	char err[512];
	struct aif_workload *w = calloc(1, sizeof(*w));
	assert_int_not_equal(aif_workload_load(w, jobs, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "jobs.json: not a regular file (a FIFO)"));
	free(w);
	unlink(jobs);
	alarm(0);
}

/* Points that are no numbers, no whole sizes, or no flow at all. */
static void
test_cdf_bad_points(void **state)
{
	static const struct { const char *text, *err; } cases[] = {
		{ "0 0\n0 100\n", "$.jobs[0].cdf: c.txt: the sizes average under 1 byte (all "
				  "0?): no flow could be sent" },
		{ "0 0\nnan 50\n100 100\n", "$.jobs[0].cdf: c.txt:2: not a number (nan or inf)" },
		{ "0 0\n100 nan\n", "$.jobs[0].cdf: c.txt:2: not a number (nan or inf)" },
		{ "0 0\ninf 100\n", "$.jobs[0].cdf: c.txt:2: not a number (nan or inf)" },
		{ "-5 0\n100 100\n", "$.jobs[0].cdf: c.txt:1: the size must be a whole number of "
				     "bytes 0..1e12" },
		{ "0 0\n1.5 100\n", "$.jobs[0].cdf: c.txt:2: the size must be a whole number of "
				    "bytes 0..1e12" },
		{ "0 0\n1e13 100\n", "$.jobs[0].cdf: c.txt:2: the size must be a whole number of "
				     "bytes 0..1e12" },
		{ "0 0\n10 101\n", "$.jobs[0].cdf: c.txt:2: the percent must be 0..100" },
		{ "0 0\n10 50 7\n20 100\n", "$.jobs[0].cdf: c.txt:2: more than a size and a "
					    "percent" },
		{ "0 0\n20 50\n10 100\n", "$.jobs[0].cdf: c.txt:3: sizes and percents must not "
					  "decrease" },
		/* a line that is not a point is no comment: refused, not skipped */
		{ "0 0\n5\n10 100\n", "$.jobs[0].cdf: c.txt:2: a point is a size and a "
				     "percent (\"size percent\")" },
		{ "0 0\n93.5x 50\n10 100\n", "$.jobs[0].cdf: c.txt:2: a point is a size and a "
					   "percent (\"size percent\")" },
		{ "0 0\nx 50\n10 100\n", "$.jobs[0].cdf: c.txt:2: a point is a size and a "
				       "percent (\"size percent\")" },
		/* mass below the first point: sizes under it, negative ones */
		{ "1000 10\n2000 100\n", "$.jobs[0].cdf: c.txt:1: the first point must be at "
					 "0%, as HPCC's traffic_gen.py wants" },
		{ "0 0\n10 50\n", "$.jobs[0].cdf: c.txt: needs at least two points, the last at "
				  "100%" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file("c.txt", cases[i].text, strlen(cases[i].text));
		poisson("c.txt");
		const char *e = load_cdf_error();
		if (strcmp(e, cases[i].err) != 0)
			fail_msg("case %zu: got\n  %s\nwant\n  %s", i, e, cases[i].err);
	}
	/* more points than a CDF holds */
	size_t cap = (size_t)(AIF_CDF_MAX_POINTS + 1) * 24;
	char *many = malloc(cap);
	size_t at = 0;
	assert_non_null(many);
	for (unsigned i = 0; i <= AIF_CDF_MAX_POINTS; i++)
		at += (size_t)snprintf(many + at, cap - at, "%u %.6f\n", i,
				       100.0 * i / AIF_CDF_MAX_POINTS);
	write_file("many.txt", many, at);
	free(many);
	poisson("many.txt");
	char want[128];
	snprintf(want, sizeof(want), "$.jobs[0].cdf: many.txt:%u: more than %u points",
		 AIF_CDF_MAX_POINTS + 1, AIF_CDF_MAX_POINTS);
	assert_string_equal(load_cdf_error(), want);
	write_file("nul.txt", "0 0\n\0\n10 100\n", 13);
	poisson("nul.txt");
	assert_string_equal(load_cdf_error(), "$.jobs[0].cdf: nul.txt: not a text file (it has "
			    "NUL bytes)");
}

/* Counts are whole numbers: 1.5 bytes is refused, not taken as 1. */
static void
test_whole_numbers(void **state)
{
	static const struct { const char *job, *err; } cases[] = {
		{ "{\"name\": \"a\", \"kind\": \"alltoall\", \"bytes\": 1.5}",
		  "$.jobs[0].bytes: a whole number of bytes, 1..1e12" },
		{ "{\"name\": \"a\", \"kind\": \"alltoall\", \"bytes\": 1024, \"iterations\": 2.5}",
		  "$.jobs[0].iterations: a whole number 1..100000" },
		{ "{\"name\": \"a\", \"kind\": \"alltoall\", \"bytes\": 1024, \"chunks\": 1.1}",
		  "$.jobs[0].chunks: a whole number 1..1024" },
		{ "{\"name\": \"a\", \"kind\": \"alltoall\", \"bytes\": 1024, \"seed\": 0.5}",
		  "$.jobs[0].seed: a whole number 0..4294967295" },
		{ "{\"name\": \"a\", \"kind\": \"alltoall\", \"bytes\": 1024}", "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		jobs_file(cases[i].job);
		const char *e = load();
		if (strcmp(e, cases[i].err) != 0)
			fail_msg("case %zu: got\n  %s\nwant\n  %s", i, e, cases[i].err);
	}
	static const char mtu[] = "{\"hosts\": {\"mtu\": 1024.5}, \"jobs\": [{\"name\": "
				  "\"a\", \"kind\": \"alltoall\", \"bytes\": 8}]}";
	write_file("jobs.json", mtu, strlen(mtu));
	assert_string_equal(load(), "$.hosts.mtu: a whole number in 64..8192");
}

/* A taken CDF keeps the rules: at least two points, sizes and percents
 * not decreasing, finite, whole sizes, the last at 100, a mean of 1+. */
static void
check_cdf(const struct aif_cdf *c)
{
	assert_true(c->n >= 2 && c->n <= AIF_CDF_MAX_POINTS);
	assert_true(c->pct[0] == 0 && c->pct[c->n - 1] == 100);
	for (uint32_t i = 0; i < c->n; i++) {
		assert_true(isfinite(c->size[i]) && c->size[i] == floor(c->size[i]));
		assert_true(c->size[i] >= 0 && c->pct[i] >= 0 && c->pct[i] <= 100);
		if (i > 0)
			assert_true(c->size[i] >= c->size[i - 1] && c->pct[i] >= c->pct[i - 1]);
	}
	assert_true(aif_cdf_mean(c) >= 1);
	for (int i = 0; i < 100; i++) {
		double x = aif_cdf_sample(c, i / 100.0);
		assert_true(x >= c->size[0] && x <= c->size[c->n - 1]);
	}
}

static void
test_fuzz_cdf(void **state)
{
	static const char base[] = "0 0\n4000 22.93\n8000 69.21\n16000 80.61\n# x\n"
				   "32000 90.47\n2000000 100\n";
	static const char alphabet[] = "0123456789 .\n-+einfa#\t\r\0x";
	struct aif_rng r;
	char text[256], err[512];
	unsigned taken = 0;

	(void)state;
	aif_rng_seed(&r, 42);
	for (int round = 0; round < 20000; round++) {
		size_t n = sizeof(base) - 1;
		memcpy(text, base, n);
		for (unsigned k = 1 + aif_rng_below(&r, 4); k > 0; k--) {
			size_t at = aif_rng_below(&r, (uint32_t)n);
			char ch = alphabet[aif_rng_below(&r, sizeof(alphabet) - 1)];
			switch (aif_rng_below(&r, 3)) {
			case 0: /* replace */
				text[at] = ch;
				break;
			case 1: /* insert */
				if (n + 1 < sizeof(text)) {
					memmove(text + at + 1, text + at, n - at);
					text[at] = ch;
					n++;
				}
				break;
			default: /* delete */
				memmove(text + at, text + at + 1, n - at - 1);
				n--;
			}
		}
		struct aif_cdf c;
		if (aif_cdf_parse(text, n, "fuzz", &c, err, sizeof(err)) == 0) {
			check_cdf(&c);
			taken++;
		} else {
			assert_true(strncmp(err, "fuzz", 4) == 0 && strlen(err) > 6);
		}
	}
	print_message("# 20000 mutated CDFs: %u taken, the rest refused with a reason\n", taken);
	assert_true(taken > 0 && taken < 20000);
}

/* Mutated jobs files: taken, or refused naming the file and a reason. */
static void
test_fuzz_jobs(void **state)
{
	static const char base[] = "{\"hosts\": {\"mtu\": 1024, \"rto_us\": 500}, \"jobs\": "
		"[{\"name\": \"a\", \"kind\": \"alltoall\", \"bytes\": 4096, \"iterations\": 2}, "
		"{\"name\": \"p\", \"kind\": \"poisson\", \"load\": 0.5, \"stop_us\": 10, "
		"\"cdf\": \"ok.txt\"}]}";
	static const char alphabet[] = "0123456789.-e\"{}[],: naxk";
	static const char cdf[] = "0 0\n1000 50\n8000 100\n";
	struct aif_rng r;
	char text[512];
	unsigned taken = 0;

	(void)state;
	write_file("ok.txt", cdf, strlen(cdf));
	aif_rng_seed(&r, 7);
	for (int round = 0; round < 1000; round++) {
		size_t n = sizeof(base) - 1;
		memcpy(text, base, n);
		for (unsigned k = 1 + aif_rng_below(&r, 3); k > 0; k--)
			text[aif_rng_below(&r, (uint32_t)n)] =
				alphabet[aif_rng_below(&r, sizeof(alphabet) - 1)];
		write_file("jobs.json", text, n);
		const char *e = load();
		if (e[0] == '\0')
			taken++;
		else
			assert_true(e[0] == '$' || strncmp(e, "line ", 5) == 0);
	}
	print_message("# 1000 mutated jobs files: %u taken\n", taken);
}

/* ---- flow_file jobs, monitors ---- */

static const char *
put(const char *name, const char *text)
{
	static char path[2][128];
	static int k;
	char *p = path[k++ & 1];
	snprintf(p, 128, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static void
test_flow_file_read(void **state)
{
	struct aif_workload w;
	char err[512] = "";
	(void)state;
	put("flows.txt", "3\n0 1 3 1000 2.000001\n1 0 3 0 2.000000\n2 3 3 5000 2.5\n");
	put("bad.txt", "2\n0 1 3 1000 2.0\n0 1 3 nan 2.0\n");
	const char *p = put("ok.json",
		"{\"hosts\": {\"mtu\": 1000, \"identities\": \"ns3\"},"
		" \"qlen_monitor\": {\"interval_ns\": 1000, \"start_us\": 5, \"end_us\": 50},"
		" \"pfc_log\": false,"
		" \"jobs\": [{\"name\": \"t\", \"kind\": \"flow_file\", \"file\": \"flows.txt\","
		" \"format\": \"conweave\", \"absolute\": true, \"ideal\": \"base\"}]}");
	if (aif_workload_load(&w, p, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n_jobs, 1);
	assert_int_equal(w.job[0].p.kind, AIF_JOB_FLOW_FILE);
	assert_int_equal(w.job[0].ff.n, 3);
	assert_int_equal(w.job[0].ff.f[1].bytes, 1);
	assert_int_equal(w.job[0].ff.first_ns, 2000000000ull);
	assert_true(w.job[0].absolute);
	assert_false(w.job[0].ideal_ns3);
	assert_true(w.ns3_sport);
	assert_true(w.mon_params.qlen);
	assert_false(w.mon_params.pfc);
	assert_int_equal(w.mon_params.qlen_interval_ns, 1000);
	assert_int_equal(w.mon_params.qlen_start_ns, 5000);
	assert_int_equal(w.mon_params.qlen_end_ns, 50000);
	aif_workload_free(&w);

	/* defaults: relative starts, ns-3's ideal, both monitors every 100 ns */
	p = put("def.json", "{\"jobs\": [{\"name\": \"t\", \"kind\": \"flow_file\", "
			    "\"file\": \"flows.txt\", \"format\": \"conweave\"}]}");
	if (aif_workload_load(&w, p, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_false(w.job[0].absolute);
	assert_true(w.job[0].ideal_ns3);
	assert_false(w.ns3_sport);
	assert_true(w.mon_params.qlen && w.mon_params.pfc);
	assert_int_equal(w.mon_params.qlen_interval_ns, 100);
	aif_workload_free(&w);
}

static void
expect_refused(const char *json, const char *want)
{
	struct aif_workload w;
	char err[512] = "";
	const char *p = put("bad.json", json);

	assert_int_equal(aif_workload_load(&w, p, err, sizeof(err)), -1);
	if (strstr(err, want) == NULL)
		fail_msg("'%s' does not say '%s'", err, want);
}

#define JOBS(x) "\"jobs\": [{\"name\": \"t\", \"kind\": \"flow_file\"" x "}]"
#define JOB(x) "{" JOBS(x) "}"

static void
test_refused(void **state)
{
	(void)state;
	put("flows.txt", "3\n0 1 3 1000 2.000001\n1 0 3 0 2.000000\n2 3 3 5000 2.5\n");
	put("bad.txt", "2\n0 1 3 1000 2.0\n0 1 3 nan 2.0\n");
	expect_refused(JOB(", \"format\": \"conweave\""), "$.jobs[0].file: required");
	expect_refused(JOB(", \"file\": \"absent.txt\", \"format\": \"conweave\""),
		       "$.jobs[0].file: ");
	expect_refused(JOB(", \"file\": \"absent.txt\", \"format\": \"conweave\""),
		       "absent.txt: No such file");
	expect_refused(JOB(", \"file\": \".\", \"format\": \"conweave\""),
		       "$.jobs[0].file: ");
	expect_refused(JOB(", \"file\": \".\", \"format\": \"conweave\""), "not a regular file");
	expect_refused(JOB(", \"file\": \"bad.txt\", \"format\": \"conweave\""),
		       "bad.txt:3: size_bytes");
	expect_refused(JOB(", \"file\": \"flows.txt\""), "$.jobs[0].format: required");
	expect_refused(JOB(", \"file\": \"flows.txt\", \"format\": \"ns3\""), "$.jobs[0].format");
	/* the file's flows as HPCC's: five fields, not six */
	expect_refused(JOB(", \"file\": \"flows.txt\", \"format\": \"hpcc\""),
		       "flows.txt:2: 5 fields, expected 6");
	expect_refused(JOB(", \"file\": \"flows.txt\", \"format\": \"conweave\", "
			   "\"hosts\": [\"a\", \"b\", \"c\"]"),
		       "$.jobs[0].file: ");
	expect_refused(JOB(", \"file\": \"flows.txt\", \"format\": \"conweave\", "
			   "\"hosts\": [\"a\", \"b\", \"c\"]"),
		       "flows.txt:4: host id 3: the job's hosts are 0..2");
	expect_refused(JOB(", \"file\": \"flows.txt\", \"format\": \"conweave\", \"bytes\": 5"),
		       "$.jobs[0].bytes: not for kind flow_file");
	expect_refused(JOB(", \"file\": \"flows.txt\", \"format\": \"conweave\", \"absolute\": 1"),
		       "$.jobs[0].absolute: true or false");
	expect_refused(JOB(", \"file\": \"flows.txt\", \"format\": \"conweave\", \"ideal\": \"x\""),
		       "$.jobs[0].ideal");
	expect_refused("{\"jobs\": [{\"name\": \"p\", \"kind\": \"permutation\", \"bytes\": 5, "
		       "\"file\": \"flows.txt\"}]}", "$.jobs[0].file: for kind flow_file only");
	expect_refused("{\"qlen_monitor\": {\"interval_ns\": 0}, " JOBS(", \"file\": \"flows.txt\", "
		       "\"format\": \"conweave\"") "}", "$.qlen_monitor.interval_ns");
	expect_refused("{\"qlen_monitor\": {\"every\": 5}, " JOBS(", \"file\": \"flows.txt\", "
		       "\"format\": \"conweave\"") "}", "$.qlen_monitor.every: unknown key");
	expect_refused("{\"qlen_monitor\": {\"start_us\": 9, \"end_us\": 5}, "
		       JOBS(", \"file\": \"flows.txt\", \"format\": \"conweave\"") "}",
		       "$.qlen_monitor.end_us");
	expect_refused("{\"pfc_log\": \"yes\", " JOBS(", \"file\": \"flows.txt\", "
		       "\"format\": \"conweave\"") "}", "$.pfc_log");
	expect_refused("{\"hosts\": {\"identities\": \"hpcc\"}, " JOBS(", \"file\": \"flows.txt\", "
		       "\"format\": \"conweave\"") "}", "$.hosts.identities");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_cdf),
		cmocka_unit_test(test_shipped_cdfs),
		cmocka_unit_test(test_cdf_not_a_file),
		cmocka_unit_test(test_cdf_bad_points),
		cmocka_unit_test(test_whole_numbers),
		cmocka_unit_test(test_fuzz_cdf),
		cmocka_unit_test(test_fuzz_jobs),
		cmocka_unit_test(test_flow_file_read),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
