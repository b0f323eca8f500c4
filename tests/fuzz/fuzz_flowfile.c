/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the text files a jobs file names: flow files in
 * ConWeave's and HPCC's formats (hosts/flowfile.c) and flow-size CDFs
 * (hosts/jobs.c aif_cdf_parse).  The input's first byte picks which (0
 * ConWeave, 1 HPCC, 2 a CDF); the rest is the file, written to a folder of
 * the harness's own for the flow files (they are read by path).  A finding
 * is any fault, a leak, or:
 *
 *   a refusal that does not start with the file's name, or says nothing
 *   after it;
 *   a flow file taken with a flow that breaks what its reader promises
 *   (src = dst, no byte, a priority over 7, a port in a ConWeave file, the
 *   largest host or the earliest start not what the flows say);
 *   a CDF taken whose sizes or percents go down, do not go from 0 to 100, or
 *   whose mean or samples are not finite and within its sizes.
 *
 *   build-fuzz/tests/fuzz_flowfile -max_total_time=30 CORPUS SEEDS
 *   (or tests/fuzz/run.sh build-fuzz 30 flowfile: the seeds are the CDFs
 *   of config/workloads and small flow files of both formats)
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flowfile.h"
#include "jobs.h"
#include "fuzz_util.h"

static char dir[64], path[96];

static void
finding(const char *what, const char *err)
{
	fuzz_finding("fuzz_flowfile", what, err);
}

static void
check_refusal(const char *name, const char *err)
{
	size_t n = strlen(name);

	if (strncmp(err, name, n) != 0 || err[n] != ':' || err[n + 1] == '\0')
		finding("a refusal that does not name the file", err);
}

static void
check_flows(const struct aif_flowfile *ff, enum aif_flowfile_format fmt)
{
	uint32_t max_host = 0;
	aif_time_ns first = AIF_TIME_NS_NEVER;

	if (ff->n == 0 || ff->format != fmt)
		finding("a flow file taken without flows", NULL);
	for (uint32_t i = 0; i < ff->n; i++) {
		const struct aif_flowfile_flow *x = &ff->f[i];
		if (x->src == x->dst || x->bytes == 0 || x->bytes > AIF_FLOWFILE_MAX_BYTES ||
		    x->pg > 7 || (fmt == AIF_FLOWFILE_CONWEAVE && x->dport != 0) || x->line < 2)
			finding("a flow taken that its reader refuses", NULL);
		max_host = x->src > max_host ? x->src : max_host;
		max_host = x->dst > max_host ? x->dst : max_host;
		first = x->start_ns < first ? x->start_ns : first;
	}
	if (max_host != ff->max_host || first != ff->first_ns)
		finding("a flow file's largest host or earliest start wrong", NULL);
}

static void
check_cdf(const struct aif_cdf *c)
{
	if (c->n < 2 || c->n > AIF_CDF_MAX_POINTS || c->pct[0] != 0 || c->pct[c->n - 1] != 100)
		finding("a CDF taken that does not go from 0% to 100%", NULL);
	for (uint32_t i = 0; i < c->n; i++)
		if (!isfinite(c->size[i]) || !isfinite(c->pct[i]) || c->size[i] < 0 ||
		    c->pct[i] < 0 || (i > 0 && (c->size[i] < c->size[i - 1] ||
						c->pct[i] < c->pct[i - 1])))
			finding("a CDF taken whose points go down", NULL);
	double mean = aif_cdf_mean(c);
	if (!isfinite(mean) || mean < 1)
		finding("a CDF taken with no finite mean of a byte or more", NULL);
	double prev = -1;
	for (int k = 0; k < 64; k++) {
		double s = aif_cdf_sample(c, k / 64.0);
		if (!isfinite(s) || s < prev || s > c->size[c->n - 1])
			finding("a CDF's samples out of its sizes or going down", NULL);
		prev = s;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_tmpdir("fuzz_flowfile", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/flows.txt", dir);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";

	if (size < 1)
		return 0;
	if (data[0] % 3 == 2) {
		struct aif_cdf cdf;
		if (aif_cdf_parse((const char *)data + 1, size - 1, "cdf.txt", &cdf, err,
				  sizeof(err)) != 0)
			check_refusal("cdf.txt", err);
		else
			check_cdf(&cdf);
		return 0;
	}
	enum aif_flowfile_format fmt = data[0] % 3 == 0 ? AIF_FLOWFILE_CONWEAVE : AIF_FLOWFILE_HPCC;
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(data + 1, 1, size - 1, f) != size - 1 || fclose(f) != 0)
		finding("cannot write the file", path);
	struct aif_flowfile ff;
	if (aif_flowfile_load(path, fmt, &ff, err, sizeof(err)) != 0) {
		check_refusal(path, err);
		return 0;
	}
	check_flows(&ff, fmt);
	aif_flowfile_free(&ff);
	return 0;
}
