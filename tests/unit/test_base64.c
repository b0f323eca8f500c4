/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for control/base64.c: RFC 4648's test vectors both ways, all
 * 256 byte values round trip, and text that is not base64 (bad length,
 * characters outside the alphabet, padding in the middle) refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base64.h"

static void
test_rfc4648_vectors(void **state)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const coded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
					     "Zm9vYmFy" };
	(void)state;
	for (int i = 0; i < 7; i++) {
		char *e = aif_base64_encode((const uint8_t *)plain[i], strlen(plain[i]));
		assert_non_null(e);
		assert_string_equal(e, coded[i]);
		free(e);
		size_t n = 99;
		uint8_t *d = aif_base64_decode(coded[i], &n);
		assert_non_null(d);
		assert_int_equal(n, strlen(plain[i]));
		assert_memory_equal(d, plain[i], n);
		free(d);
	}
}

static void
test_all_bytes_round_trip(void **state)
{
	uint8_t b[256];

	(void)state;
	for (int i = 0; i < 256; i++)
		b[i] = (uint8_t)i;
	for (size_t len = 250; len <= 256; len++) {
		char *e = aif_base64_encode(b, len);
		size_t n = 0;
		uint8_t *d = aif_base64_decode(e, &n);
		assert_non_null(d);
		assert_int_equal(n, len);
		assert_memory_equal(d, b, len);
		free(d);
		free(e);
	}
}

static void
test_not_base64(void **state)
{
	static const char *const bad[] = { "Zg=", "Zm9", "Zm9v!A==", "Zg==Zg==", "Z===",
					   "Zm 9v", "=Zg=" };
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = 0;
		if (aif_base64_decode(bad[i], &n) != NULL)
			fail_msg("'%s' decoded", bad[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648_vectors),
		cmocka_unit_test(test_all_bytes_round_trip),
		cmocka_unit_test(test_not_base64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
