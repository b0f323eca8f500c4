/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the workload loader (control/workload.c): the jobs
 * file of --jobs, with the flow-size CDFs and flow files it names
 * (hosts/jobs.c, hosts/flowfile.c).  The input is the jobs file, written as
 * jobs.json in a folder of its own that also holds a CDF
 * (workloads/AliStorage2019.txt, the project's) and a flow file in
 * ConWeave's format (flows.txt), so that a job naming them reads them.  A
 * finding is any fault, a leak, or a refusal that does not say
 * "<folder>/jobs.json: " and then a JSON path ("$...") or the JSON error's
 * line, or the CDF's or flow file's name.
 *
 *   build-fuzz/tests/fuzz_workload -max_total_time=30 CORPUS config/
 *   (or tests/fuzz/run.sh build-fuzz 30 workload)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload.h"
#include "fuzz_util.h"

static char dir[64], jobs[96];
static bool say; /* FUZZ_WORKLOAD_SAY set: each input's outcome on stderr */

static void
finding(const char *what, const char *err)
{
	fuzz_finding("fuzz_workload", what, err);
}

static void
put(const char *name, const void *data, size_t n)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "fuzz_workload: cannot write %s\n", path);
		exit(2);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char flows[] = "3\n0 5 3 4995 2.000000027\n1 6 3 100000 2.000001\n"
				    "2 7 3 1000 2.5\n";
	char src[512], path[160], buf[65536];
	(void)argc;
	(void)argv;
	say = getenv("FUZZ_WORKLOAD_SAY") != NULL;
	fuzz_tmpdir("fuzz_workload", dir, sizeof(dir));
	snprintf(jobs, sizeof(jobs), "%s/jobs.json", dir);
	snprintf(path, sizeof(path), "%s/workloads", dir);
	snprintf(src, sizeof(src), "%s/config/workloads/AliStorage2019.txt", AIF_SOURCE_ROOT);
	FILE *f = fopen(src, "r");
	size_t n = f != NULL ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f == NULL || n == 0 || mkdir(path, 0700) != 0) {
		fprintf(stderr, "fuzz_workload: cannot copy %s\n", src);
		exit(2);
	}
	fclose(f);
	put("workloads/AliStorage2019.txt", buf, n);
	put("flows.txt", flows, sizeof(flows) - 1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aif_workload *w = calloc(1, sizeof(*w));
	char err[1024] = "";

	if (w == NULL)
		finding("out of memory", NULL);
	put("jobs.json", data, size);
	if (aif_workload_load(w, jobs, err, sizeof(err)) == 0) {
		if (say)
			fprintf(stderr, "fuzz_workload: taken: %u jobs\n", w->n_jobs);
		aif_workload_free(w);
		free(w);
		return 0;
	}
	free(w);
	if (say)
		fprintf(stderr, "fuzz_workload: refused: %s\n", err);
	size_t n = strlen(jobs);
	const char *why = err + n + 2;
	if (strncmp(err, jobs, n) != 0 || strncmp(err + n, ": ", 2) != 0)
		finding("a refusal that does not name the file", err);
	if (why[0] != '$' && strncmp(why, "line ", 5) != 0 && strncmp(why, dir, strlen(dir)) != 0)
		finding("a refusal without a JSON path", err);
	return 0;
}
