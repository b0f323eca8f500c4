/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for dataplane/types.c: address, prefix and MAC parsing
 * (accepted and rejected forms), formatting round trips, prefix
 * normalisation and membership.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../dataplane/types.h"

static const char *
ip_rt(const char *s)
{
	static char buf[64];
	struct aif_ip ip;

	if (aif_ip_parse(s, &ip) != 0)
		fail_msg("aif_ip_parse(\"%s\") failed", s);
	return aif_ip_fmt(&ip, buf, sizeof(buf));
}

static const char *
prefix_rt(const char *s, bool normalize)
{
	static char buf[64];
	struct aif_prefix p;

	if (aif_prefix_parse(s, &p) != 0)
		fail_msg("aif_prefix_parse(\"%s\") failed", s);
	if (normalize)
		aif_prefix_normalize(&p);
	return aif_prefix_fmt(&p, buf, sizeof(buf));
}

static void
test_ip_parse(void **state)
{
	static const char *const bad[] = {
		"", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.4 ", " 1.2.3.4",
		"01.2.3.4", "::g", "1:2:3:4:5:6:7:8:9", "10.0.0.1/24", "x",
	};
	struct aif_ip ip;
	size_t i;

	(void)state;
	assert_int_equal(aif_ip_parse("10.0.0.1", &ip), 0);
	assert_int_equal(ip.family, AIF_AF_INET4);
	assert_int_equal(ip.b[0], 10);
	assert_int_equal(ip.b[3], 1);
	assert_int_equal(ip.b[4], 0);
	assert_int_equal(aif_ip4_host(&ip), 0x0a000001);
	assert_int_equal(aif_ip_parse("2001:db8::1", &ip), 0);
	assert_int_equal(ip.family, AIF_AF_INET6);
	assert_int_equal(ip.b[0], 0x20);
	assert_int_equal(ip.b[1], 0x01);
	assert_int_equal(ip.b[15], 1);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&ip, 0xab, sizeof(ip));
		if (aif_ip_parse(bad[i], &ip) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_int_equal(ip.family, AIF_AF_NONE);
	}
	assert_int_equal(aif_ip_parse(NULL, &ip), -1);
}

static void
test_ip_fmt(void **state)
{
	struct aif_ip ip;
	char small[5];

	(void)state;
	assert_string_equal(ip_rt("10.0.0.1"), "10.0.0.1");
	assert_string_equal(ip_rt("0.0.0.0"), "0.0.0.0");
	assert_string_equal(ip_rt("255.255.255.255"), "255.255.255.255");
	assert_string_equal(ip_rt("2001:DB8:0:0::1"), "2001:db8::1");
	assert_string_equal(ip_rt("::"), "::");
	assert_string_equal(ip_rt("fe80::1:2"), "fe80::1:2");
	memset(&ip, 0, sizeof(ip));
	assert_string_equal(aif_ip_fmt(&ip, small, sizeof(small)), "none");
	assert_int_equal(aif_ip_parse("192.168.100.200", &ip), 0);
	assert_string_equal(aif_ip_fmt(&ip, small, sizeof(small)), "192.");
}

static void
test_ip_equal(void **state)
{
	struct aif_ip a, b;

	(void)state;
	assert_int_equal(aif_ip_parse("10.0.0.1", &a), 0);
	assert_int_equal(aif_ip_parse("10.0.0.1", &b), 0);
	assert_true(aif_ip_equal(&a, &b));
	assert_int_equal(aif_ip_parse("10.0.0.2", &b), 0);
	assert_false(aif_ip_equal(&a, &b));
	assert_int_equal(aif_ip_parse("::a00:1", &b), 0); /* same bytes, v6 */
	assert_false(aif_ip_equal(&a, &b));
}

static void
test_prefix_parse(void **state)
{
	static const char *const bad[] = {
		"10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8",
		"10.0.0.0/08", "10.0.0.0/8/8", "10.0.0.0/ 8", "10.0.0.0/8 ",
		"/8", "2001:db8::/129", "2001:db8::/1000", "10.0.0/8", "",
	};
	struct aif_prefix p;
	size_t i;

	(void)state;
	assert_int_equal(aif_prefix_parse("10.0.0.0/8", &p), 0);
	assert_int_equal(p.addr.family, AIF_AF_INET4);
	assert_int_equal(p.len, 8);
	assert_int_equal(aif_prefix_parse("10.1.2.3", &p), 0);
	assert_int_equal(p.len, 32);
	assert_int_equal(aif_prefix_parse("2001:db8::1", &p), 0);
	assert_int_equal(p.addr.family, AIF_AF_INET6);
	assert_int_equal(p.len, 128);
	assert_int_equal(aif_prefix_parse("::/0", &p), 0);
	assert_int_equal(p.len, 0);
	assert_int_equal(aif_prefix_parse("2001:db8::/128", &p), 0);
	assert_int_equal(p.len, 128);
	assert_int_equal(aif_prefix_parse("0.0.0.0/0", &p), 0);
	assert_int_equal(p.len, 0);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&p, 0xab, sizeof(p));
		if (aif_prefix_parse(bad[i], &p) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_int_equal(p.addr.family, AIF_AF_NONE);
		assert_int_equal(p.len, 0);
	}
	assert_int_equal(aif_prefix_parse(NULL, &p), -1);
}

static void
test_prefix_fmt_normalize(void **state)
{
	(void)state;
	/* parse keeps host bits; normalize clears them */
	assert_string_equal(prefix_rt("10.1.2.3/8", false), "10.1.2.3/8");
	assert_string_equal(prefix_rt("10.1.2.3/8", true), "10.0.0.0/8");
	assert_string_equal(prefix_rt("10.255.255.255/20", true), "10.255.240.0/20");
	assert_string_equal(prefix_rt("10.0.1.1/31", true), "10.0.1.0/31");
	assert_string_equal(prefix_rt("10.0.1.1/32", true), "10.0.1.1/32");
	assert_string_equal(prefix_rt("192.168.1.1/0", true), "0.0.0.0/0");
	assert_string_equal(prefix_rt("10.0.0.1", true), "10.0.0.1/32");
	assert_string_equal(prefix_rt("2001:db8:ffff::1/33", true), "2001:db8:8000::/33");
	assert_string_equal(prefix_rt("2001:db8::1/64", true), "2001:db8::/64");
	assert_string_equal(prefix_rt("2001:db8::1/64", false), "2001:db8::1/64");
	assert_string_equal(prefix_rt("2001:db8::1/127", true), "2001:db8::/127");
	assert_string_equal(prefix_rt("2001:db8::1", true), "2001:db8::1/128");
	assert_string_equal(prefix_rt("ffff::1/0", true), "::/0");
}

static void
test_prefix_contains(void **state)
{
	static const struct {
		const char *prefix, *addr;
		bool in;
	} cases[] = {
		{ "10.0.0.0/8", "10.1.2.3", true },
		{ "10.0.0.0/8", "11.0.0.0", false },
		{ "10.0.0.1/24", "10.0.0.200", true }, /* host bits ignored */
		{ "10.0.0.1/24", "10.0.1.1", false },
		{ "10.0.1.0/31", "10.0.1.1", true },
		{ "10.0.1.0/31", "10.0.1.2", false },
		{ "10.0.240.0/20", "10.0.255.255", true },
		{ "10.0.240.0/20", "10.0.224.0", false },
		{ "10.0.0.1/32", "10.0.0.1", true },
		{ "10.0.0.1/32", "10.0.0.2", false },
		{ "0.0.0.0/0", "255.255.255.255", true },
		{ "0.0.0.0/0", "::1", false }, /* family differs */
		{ "::/0", "10.0.0.1", false },
		{ "::/0", "2001:db8::1", true },
		{ "2001:db8::/32", "2001:db8:ffff::1", true },
		{ "2001:db8::/32", "2001:db9::1", false },
		{ "2001:db8::/127", "2001:db8::1", true },
		{ "2001:db8::/127", "2001:db8::2", false },
		{ "2001:db8:8000::/33", "2001:db8:7fff::1", false },
		{ "2001:db8:8000::/33", "2001:db8:8fff::1", true },
	};
	struct aif_prefix p;
	struct aif_ip a;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(aif_prefix_parse(cases[i].prefix, &p), 0);
		assert_int_equal(aif_ip_parse(cases[i].addr, &a), 0);
		if (aif_prefix_contains(&p, &a) != cases[i].in)
			fail_msg("%s contains %s: want %d", cases[i].prefix,
				 cases[i].addr, cases[i].in);
	}
}

/* The order the route indexes sort by: family, address, then length. */
static void
test_prefix_cmp(void **state)
{
	static const char *const ordered[] = {
		"0.0.0.0/0", "10.0.0.0/8", "10.0.0.0/16", "10.0.0.0/24", "10.0.1.0/24",
		"10.1.0.0/16", "192.168.0.0/16", "::/0", "2001:db8::/32", "2001:db8::/48",
		"2001:db9::/32",
	};
	struct aif_prefix a, b;

	(void)state;
	for (size_t i = 0; i < sizeof(ordered) / sizeof(ordered[0]); i++)
		for (size_t j = 0; j < sizeof(ordered) / sizeof(ordered[0]); j++) {
			assert_int_equal(aif_prefix_parse(ordered[i], &a), 0);
			assert_int_equal(aif_prefix_parse(ordered[j], &b), 0);
			int c = aif_prefix_cmp(&a, &b);
			if ((i < j && c >= 0) || (i == j && c != 0) || (i > j && c <= 0))
				fail_msg("%s against %s: %d", ordered[i], ordered[j], c);
		}
}

static void
test_mac(void **state)
{
	static const char *const bad[] = {
		"", "02:00:00:00:00", "02:00:00:00:00:01:02", "2:0:0:0:0:1",
		"02-00-00-00-00-01", "02:00:00:00:00:0g", "0200.0000.0001",
		"02:00:00:00:00:01 ", "02:00:00:00:00:001", "02:00:00:00:0:001",
	};
	struct aif_mac m;
	char buf[18], small[6];
	size_t i;

	(void)state;
	assert_int_equal(aif_mac_parse("02:00:00:00:00:01", &m), 0);
	assert_int_equal(m.b[0], 0x02);
	assert_int_equal(m.b[5], 0x01);
	assert_string_equal(aif_mac_fmt(&m, buf, sizeof(buf)), "02:00:00:00:00:01");
	assert_int_equal(aif_mac_parse("AA:bb:Cc:dD:ee:FF", &m), 0);
	assert_int_equal(m.b[0], 0xaa);
	assert_int_equal(m.b[3], 0xdd);
	assert_string_equal(aif_mac_fmt(&m, buf, sizeof(buf)), "aa:bb:cc:dd:ee:ff");
	assert_string_equal(aif_mac_fmt(&m, small, sizeof(small)), "aa:bb");

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&m, 0xab, sizeof(m));
		if (aif_mac_parse(bad[i], &m) != -1)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_int_equal(m.b[0], 0);
	}
	assert_int_equal(aif_mac_parse(NULL, &m), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ip_parse),
		cmocka_unit_test(test_ip_fmt),
		cmocka_unit_test(test_ip_equal),
		cmocka_unit_test(test_prefix_parse),
		cmocka_unit_test(test_prefix_fmt_normalize),
		cmocka_unit_test(test_prefix_contains),
		cmocka_unit_test(test_prefix_cmp),
		cmocka_unit_test(test_mac),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
