/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The result tables' writer (hosts/textbuf.h) against fprintf: the same
 * lines into two temporary files, byte for byte.  Numbers at every power
 * of ten and of two and either side of them, UINT64_MAX, random ones; hex
 * at the edges; strings longer than the buffer; enough lines to flush it
 * many times.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rng.h"
#include "textbuf.h"

/* Everything written to f, from its start (malloc'd, NUL-terminated). */
static char *
slurp(FILE *f, size_t *len)
{
	long n;
	char *b;

	assert_int_equal(fflush(f), 0);
	assert_false(ferror(f));
	n = ftell(f);
	assert_true(n >= 0);
	b = malloc((size_t)n + 1);
	assert_non_null(b);
	rewind(f);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	b[n] = '\0';
	*len = (size_t)n;
	return b;
}

static void
same(FILE *a, FILE *b)
{
	size_t la, lb;
	char *x = slurp(a, &la), *y = slurp(b, &lb);

	assert_int_equal(la, lb);
	assert_memory_equal(x, y, la);
	free(x);
	free(y);
}

/* One value both ways: decimal, then hex of its low 32 bits. */
static void
both(struct aif_textbuf *t, FILE *ref, uint64_t v)
{
	aif_textbuf_u64(t, v);
	aif_textbuf_char(t, ' ');
	aif_textbuf_hex32(t, (uint32_t)v);
	aif_textbuf_char(t, '\n');
	fprintf(ref, "%" PRIu64 " %08x\n", v, (uint32_t)v);
}

static void
test_numbers(void **state)
{
	(void)state;
	FILE *f = tmpfile(), *ref = tmpfile();
	struct aif_textbuf *t = malloc(sizeof(*t));
	struct aif_rng rng;

	assert_non_null(f);
	assert_non_null(ref);
	assert_non_null(t);
	aif_textbuf_init(t, f);
	both(t, ref, 0);
	both(t, ref, UINT64_MAX);
	both(t, ref, UINT32_MAX);
	for (uint64_t p = 1; p <= UINT64_MAX / 10; p *= 10) {
		both(t, ref, p - 1);
		both(t, ref, p);
		both(t, ref, p + 1);
	}
	for (unsigned s = 0; s < 64; s++) {
		both(t, ref, (1ull << s) - 1);
		both(t, ref, 1ull << s);
	}
	aif_rng_seed(&rng, 7);
	for (unsigned i = 0; i < 200000; i++) /* ~6 MB: the buffer flushed ~100 times */
		both(t, ref, aif_rng_next(&rng) >> (i % 64));
	aif_textbuf_flush(t);
	same(f, ref);
	free(t);
	fclose(f);
	fclose(ref);
}

static void
test_strings(void **state)
{
	(void)state;
	FILE *f = tmpfile(), *ref = tmpfile();
	struct aif_textbuf *t = malloc(sizeof(*t));
	size_t big = 3 * AIF_TEXTBUF_SIZE + 17;
	char *s = malloc(big + 1);

	assert_non_null(f);
	assert_non_null(ref);
	assert_non_null(t);
	assert_non_null(s);
	for (size_t i = 0; i < big; i++)
		s[i] = (char)('a' + i % 26);
	s[big] = '\0';
	aif_textbuf_init(t, f);
	for (unsigned i = 0; i < 3; i++) {
		/* a string longer than the buffer, after a few bytes in it */
		aif_textbuf_str(t, "job,");
		aif_textbuf_str(t, s + i);
		aif_textbuf_str(t, "");
		aif_textbuf_char(t, '\n');
		fprintf(ref, "job,%s\n", s + i);
	}
	aif_textbuf_flush(t);
	aif_textbuf_flush(t); /* nothing left: writes nothing */
	same(f, ref);
	free(s);
	free(t);
	fclose(f);
	fclose(ref);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
