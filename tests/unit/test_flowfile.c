/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for hosts/flowfile.c: ConWeave's and HPCC's flow files.
 *
 *   - both formats read, every field where it belongs, size 0 sent as 1,
 *     the count line's trailing text ignored, lines past the count too;
 *   - start times exactly as ns-3 makes them: floor(double(s) x 1e9),
 *     where neither (int)(d * 1e9) nor the decimal's own value agrees
 *     (cases taken from ConWeave's flow files and checked against its
 *     per-flow output);
 *   - refused with the file and line: a missing file, a directory, a FIFO
 *     (without waiting for a writer), an empty file, a bad count, too few
 *     lines, too few or too many fields, nan / negative / fractional /
 *     huge sizes, nan / negative / inf starts, priority and dport out of
 *     range, a flow to itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "flowfile.h"

static char dir[64];

static const char *
put(const char *name, const char *text)
{
	static char path[128];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/aif-flowfile.XXXXXX");
	return mkdtemp(dir) != NULL ? 0 : -1;
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
test_conweave(void **state)
{
	struct aif_flowfile ff;
	char err[256] = "";
	(void)state;
	/* the count overwritten in place over a longer estimate: text after it */
	const char *p = put("cw.txt", "3   \n"
				      "13 47 3 4995 2.000000027\n"
				      "91 40 3 0 2.000000074\n"
				      "5 6 2 1000000 2.5\n"
				      "this line is past the count and ignored\n");
	assert_int_equal(aif_flowfile_load(p, AIF_FLOWFILE_CONWEAVE, &ff, err, sizeof(err)), 0);
	assert_int_equal(ff.n, 3);
	assert_int_equal(ff.f[0].src, 13);
	assert_int_equal(ff.f[0].dst, 47);
	assert_int_equal(ff.f[0].pg, 3);
	assert_int_equal(ff.f[0].bytes, 4995);
	assert_int_equal(ff.f[0].line, 2);
	assert_int_equal(ff.f[1].bytes, 1); /* 0: one byte, as ns-3 sends */
	assert_int_equal(ff.f[2].pg, 2);
	assert_int_equal(ff.f[2].start_ns, 2500000000ull);
	assert_int_equal(ff.f[2].dport, 0);
	assert_int_equal(ff.max_host, 91);
	assert_int_equal(ff.first_ns, ff.f[0].start_ns);
	aif_flowfile_free(&ff);
}

static void
test_hpcc(void **state)
{
	struct aif_flowfile ff;
	char err[256] = "";
	(void)state;
	const char *p = put("hpcc.txt", "2\n0 1 3 100 10000 2.000001\n1 0 3 65535 5 2\n");
	assert_int_equal(aif_flowfile_load(p, AIF_FLOWFILE_HPCC, &ff, err, sizeof(err)), 0);
	assert_int_equal(ff.n, 2);
	assert_int_equal(ff.f[0].dport, 100);
	assert_int_equal(ff.f[0].bytes, 10000);
	assert_int_equal(ff.f[0].start_ns, 2000001000ull);
	assert_int_equal(ff.f[1].dport, 65535);
	assert_int_equal(ff.f[1].start_ns, 2000000000ull);
	aif_flowfile_free(&ff);
	/* the same file read as ConWeave's: six fields are one too many */
	assert_int_equal(aif_flowfile_load(p, AIF_FLOWFILE_CONWEAVE, &ff, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "hpcc.txt:2: 6 fields, expected 5"));
	assert_null(ff.f);
	assert_int_equal(aif_flowfile_format_parse("hpcc"), AIF_FLOWFILE_HPCC);
	assert_int_equal(aif_flowfile_format_parse("conweave"), AIF_FLOWFILE_CONWEAVE);
	assert_int_equal(aif_flowfile_format_parse("ns3"), -1);
}

/* floor(double(s) x 1e9), exact: ConWeave's starts, checked against the
 * start_ns ns-3 wrote for them */
static void
test_start_exact(void **state)
{
	static const struct { const char *s; aif_time_ns ns; } c[] = {
		{ "2.000000027", 2000000027ull },  /* all three agree */
		{ "2.000000074", 2000000073ull },  /* (int)(d * 1e9): 74, the decimal: 74 */
		{ "2.000000191", 2000000190ull },  /* the decimal: 191 */
		{ "2.000000100", 2000000099ull },
		{ "2.000000376", 2000000376ull },
		{ "2.000996671", 2000996670ull },
		{ "0", 0 }, { "0.000000001", 1 }, { "1e-9", 1 }, { ".5", 500000000ull },
		{ "1000000", 1000000000000000ull },
	};
	aif_time_ns ns;
	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		assert_int_equal(aif_flowfile_time_ns(c[i].s, &ns), 0);
		if (ns != c[i].ns)
			fail_msg("%s: %llu, expected %llu", c[i].s, (unsigned long long)ns,
				 (unsigned long long)c[i].ns);
	}
	static const char *const bad[] = { "nan", "-1", "-0.0", "inf", "1e400", "", "2.0x",
					   "1000000.5", "+2", " 2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (aif_flowfile_time_ns(bad[i], &ns) != -1)
			fail_msg("'%s' taken", bad[i]);
}

static void
expect_refused(const char *name, const char *text, enum aif_flowfile_format fmt,
	       const char *why)
{
	struct aif_flowfile ff;
	char err[256] = "";
	const char *p = put(name, text);

	if (aif_flowfile_load(p, fmt, &ff, err, sizeof(err)) != -1)
		fail_msg("%s: taken", name);
	if (strstr(err, why) == NULL)
		fail_msg("%s: '%s' does not say '%s'", name, err, why);
	assert_null(ff.f);
	assert_int_equal(ff.n, 0);
}

static void
test_refused(void **state)
{
	struct aif_flowfile ff;
	char err[256] = "", path[128];
	(void)state;
	const enum aif_flowfile_format CW = AIF_FLOWFILE_CONWEAVE, HP = AIF_FLOWFILE_HPCC;

	snprintf(path, sizeof(path), "%s/absent.txt", dir);
	assert_int_equal(aif_flowfile_load(path, CW, &ff, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "absent.txt: No such file"));
	/* a directory, a FIFO with no writer: refused at once */
	assert_int_equal(aif_flowfile_load(dir, CW, &ff, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(aif_flowfile_load(path, CW, &ff, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "fifo: not a regular file"));

	expect_refused("empty", "", CW, "empty: the first line must be the number of flows");
	expect_refused("count0", "0\n", CW, "count0:1: the first line must be the number");
	expect_refused("countx", "x 3\n", CW, "countx:1: the first line must be the number");
	expect_refused("short", "3\n0 1 3 10 2.0\n1 0 3 10 2.0\n", CW,
		       "short:3: the first line says 3 flows, the file ends after 2");
	expect_refused("few", "1\n0 1 3 10\n", CW, "few:2: 4 fields, expected 5");
	char longl[1024];
	memset(longl, ' ', sizeof(longl));
	memcpy(longl, "1\n0 1 3 10 2.0", 14);
	memcpy(longl + sizeof(longl) - 3, "x\n", 3);
	expect_refused("long", longl, CW, "long:2: line too long");
	expect_refused("many", "1\n0 1 3 10 2.0 9\n", CW, "many:2: 6 fields, expected 5");
	expect_refused("nansize", "1\n0 1 3 nan 2.0\n", CW, "nansize:2: size_bytes");
	expect_refused("negsize", "1\n0 1 3 -5 2.0\n", CW, "negsize:2: size_bytes");
	expect_refused("fracsize", "1\n0 1 3 10.5 2.0\n", CW, "fracsize:2: size_bytes");
	expect_refused("hugesize", "1\n0 1 3 1000000000001 2.0\n", CW, "hugesize:2: size_bytes");
	expect_refused("nanstart", "2\n0 1 3 10 2.0\n0 1 3 10 nan\n", CW, "nanstart:3: start_seconds");
	expect_refused("negstart", "1\n0 1 3 10 -2.0\n", CW, "negstart:2: start_seconds");
	expect_refused("infstart", "1\n0 1 3 10 inf\n", CW, "infstart:2: start_seconds");
	expect_refused("negsrc", "1\n-1 1 3 10 2.0\n", CW, "negsrc:2: src and dst");
	expect_refused("fracdst", "1\n0 1.0 3 10 2.0\n", CW, "fracdst:2: src and dst");
	expect_refused("self", "1\n4 4 3 10 2.0\n", CW, "self:2: a flow from host 4 to itself");
	expect_refused("prio", "1\n0 1 8 10 2.0\n", CW, "prio:2: priority: 0..7");
	expect_refused("dport", "1\n0 1 3 65536 10 2.0\n", HP, "dport:2: dport: 0..65535");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conweave),
		cmocka_unit_test(test_hpcc),
		cmocka_unit_test(test_start_exact),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
