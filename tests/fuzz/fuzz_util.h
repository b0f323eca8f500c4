/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fuzzers share: how a finding ends the run (libFuzzer keeps the
 * input that gave it), and a folder of their own under /tmp, removed with
 * what is in it at exit.
 *
 *	fuzz_finding("fuzz_pcap", "frames out of order", NULL);   // aborts
 *	fuzz_tmpdir("fuzz_pcap", dir, sizeof(dir));   // or exit(2)
 */
#ifndef AIF_FUZZ_UTIL_H
#define AIF_FUZZ_UTIL_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static inline void __attribute__((noreturn))
fuzz_finding(const char *harness, const char *what, const char *detail)
{
	fprintf(stderr, "%s: %s%s%s\n", harness, what, detail ? ": " : "", detail ? detail : "");
	abort();
}

static const char *fuzz_tmpdir_path; /* the folder fuzz_tmpdir made */

static int
fuzz_tmpdir_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void
fuzz_tmpdir_remove(void)
{
	if (nftw(fuzz_tmpdir_path, fuzz_tmpdir_rm, 8, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "%s left behind\n", fuzz_tmpdir_path);
}

/* dir (len bytes): a new folder /tmp/aif-<harness>.XXXXXX, removed at exit
 * (after the exit handlers registered later have run). */
static inline void
fuzz_tmpdir(const char *harness, char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/aif-%s.XXXXXX", harness);
	if (mkdtemp(dir) == NULL) {
		fprintf(stderr, "%s: no folder in /tmp\n", harness);
		exit(2);
	}
	fuzz_tmpdir_path = dir;
	atexit(fuzz_tmpdir_remove);
}

#endif /* AIF_FUZZ_UTIL_H */
