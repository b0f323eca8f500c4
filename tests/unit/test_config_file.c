/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for control/config_file.c: a config read by path (a missing
 * file named in the error; the text NUL-terminated whatever its size) and
 * by name in a directory (a regular file named there and nothing else, a
 * size cap, errors that never quote the file).
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

#include "../../control/config.h"

static void
test_load_file_missing(void **state)
{
	struct aif_config *cfg = (struct aif_config *)&cfg;
	char err[AIF_ERR_MAX];

	(void)state;
	assert_int_equal(aif_config_load_file("/nonexistent/aif.json", &cfg,
					      err, sizeof(err)), -1);
	assert_null(cfg);
	assert_string_equal(err, "/nonexistent/aif.json: No such file or directory");
}

/* A file of n bytes of JSON-ish text (a string padded to n), in a temp dir. */
static void
write_sized_file(const char *path, size_t n)
{
	FILE *f = fopen(path, "wb");
	size_t i;

	assert_non_null(f);
	assert_true(n >= 2);
	fputc('"', f);
	for (i = 1; i + 1 < n; i++)
		fputc('a' + (int)(i % 26), f);
	fputc('"', f);
	assert_int_equal(fclose(f), 0);
}

/*
 * The text is NUL-terminated as its header says, whatever the size: the
 * sizes that end exactly on a read chunk (64 KiB and its doubles) once left
 * the byte after the text unwritten, and strlen() read past it (ASan).
 */
static void
test_read_file_nul_terminated(void **state)
{
	static const size_t sizes[] = { 2, 100, 4095, 4096, 65535, 65536, 65537,
					131072, 262144 };
	char dir[] = "/tmp/aif_test_config_file.XXXXXX";
	char path[64], err[AIF_ERR_MAX];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sized.json", dir);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = 0;
		char *text;

		write_sized_file(path, sizes[i]);
		text = aif_config_read_file(path, &len, err, sizeof(err));
		assert_non_null(text);
		assert_int_equal(len, sizes[i]);
		assert_int_equal(text[len], '\0');
		assert_int_equal(strlen(text), len);
		assert_int_equal(text[len - 1], '"');
		free(text);
	}
	unlink(path);
	rmdir(dir);
}

/*
 * A load by name reads only a regular file named in its directory: no
 * symbolic link, no FIFO (refused at once: before, a FIFO held the reader
 * for good; the alarm turns such a hang into a failure), no directory, no
 * path, nothing over the size cap; errors name the file and never quote it.
 */
static void
test_read_at(void **state)
{
	char dir[] = "/tmp/aif_test_config_at.XXXXXX";
	char p[128], err[AIF_ERR_MAX];
	size_t len = 7;
	char *text;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/ok.json", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs("{\"secret\": 1}", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/link.json", dir);
	assert_int_equal(symlink("ok.json", p), 0);
	snprintf(p, sizeof(p), "%s/sub.json", dir);
	assert_int_equal(mkdir(p, 0700), 0);

	text = aif_config_read_at(dir, "ok.json", 1024, &len, err, sizeof(err));
	assert_non_null(text);
	assert_int_equal(len, 13);
	assert_string_equal(text, "{\"secret\": 1}");
	free(text);

	static const struct { const char *name; size_t max; const char *why; } cases[] = {
		{ "fifo.json", 1024, "not a regular file (a FIFO)" },
		{ "link.json", 1024, "it is a symbolic link" },
		{ "sub.json", 1024, "not a regular file (a directory)" },
		{ "none.json", 1024, "No such file or directory" },
		{ "ok.json", 12, "larger than 12 bytes" },
		{ "../x.json", 1024, "not a file name (one path component)" },
		{ "..", 1024, "not a file name (one path component)" },
		{ "", 1024, "not a file name (one path component)" },
	};
	alarm(60); /* a hang is a failure (SIGALRM ends the test), not a wait */
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[AIF_ERR_MAX];

		len = 7;
		text = aif_config_read_at(dir, cases[i].name, cases[i].max, &len, err,
					  sizeof(err));
		assert_null(text);
		assert_int_equal(len, 0);
		snprintf(want, sizeof(want), "%s in %s: %s", cases[i].name, dir, cases[i].why);
		assert_string_equal(err, want);
		assert_null(strstr(err, "secret"));
	}
	alarm(0);

	snprintf(p, sizeof(p), "%s/ok.json", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/fifo.json", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/link.json", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/sub.json", dir);
	rmdir(p);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_file_missing),
		cmocka_unit_test(test_read_file_nul_terminated),
		cmocka_unit_test(test_read_at),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
