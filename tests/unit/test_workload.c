/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for control/workload.c's reading of workload files (no EAL:
 * aif_workload_load only): flow_file jobs and the monitors of --results.
 *
 *   - a flow_file job read: its flows, format, absolute and ideal; the
 *     hosts' ns-3 identities; qlen_monitor and pfc_log;
 *   - refused with the JSON path of what is wrong: a flow file that is
 *     missing, no regular file or has a bad line (its file and line in the
 *     message), no format or an unknown one, a host id past the job's hosts
 *     list, keys of other kinds on a flow_file job and flow_file's keys on
 *     others, bad monitor settings and identities.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "workload.h"

static char dir[64];

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

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/aif-workload.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	put("flows.txt", "3\n0 1 3 1000 2.000001\n1 0 3 0 2.000000\n2 3 3 5000 2.5\n");
	put("bad.txt", "2\n0 1 3 1000 2.0\n0 1 3 nan 2.0\n");
	return 0;
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
test_flow_file_read(void **state)
{
	struct aif_workload w;
	char err[512] = "";
	(void)state;
	const char *p = put("ok.json",
		"{\"hosts\": {\"mtu\": 1000, \"identities\": \"ns3\"},"
		" \"qlen_monitor\": {\"interval_ns\": 1000, \"start_us\": 5, \"end_us\": 50},"
		" \"pfc_log\": false,"
		" \"jobs\": [{\"name\": \"t\", \"kind\": \"flow_file\", \"file\": \"flows.txt\","
		" \"format\": \"conweave\", \"absolute\": true, \"ideal\": \"aifabric\"}]}");
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
		cmocka_unit_test(test_flow_file_read),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
