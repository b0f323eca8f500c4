/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for control/summary.c: the daemon's exit summary.
 *
 *   - A small fabric (two leaves and a spine): a row per switch and link
 *     direction, and per edge port with traffic, each named switch:port
 *     (both leaves have an h0); drops by reason over the fabric.
 *   - A large one (40 switches with 3 ports, 60 links): 21 lines,
 *     totals that add up, the worst link directions first (lost or
 *     corrupted frames, then PFC frames, then utilization), the switches
 *     and edge ports that dropped the most, and where the rest is (the
 *     --stats file, or how to get it).
 *   - A single switch: a row per port and its drops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "summary.h"

static json_t *
port(const char *name, int rx, int tx, int drops)
{
	return json_pack("{s:s, s:i, s:i, s:{s:i, s:i}}", "name", name, "rx_packets", rx,
			 "tx_packets", tx, "drops", "no_route", drops, "ttl_expired", 0);
}

static json_t *
sw(const char *name, json_t *ports, int no_route)
{
	return json_pack("{s:s, s:o, s:{s:i, s:i}}", "switch", name, "ports", ports, "drops",
			 "no_route", no_route, "ttl_expired", 0);
}

static json_t *
dir(const char *from, const char *to, int pkts, double util, int pauses, int lost)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:f, s:i, s:i, s:i, s:i, s:i, s:i}", "from", from,
			 "to", to, "tx_packets", pkts, "tx_bytes", pkts * 1000, "utilization", util,
			 "tx_ctrl", pauses, "lost_full", 0, "lost_random", lost, "lost_down", 0,
			 "dropped_down", 0, "corrupted", 0);
}

static json_t *
link_of(json_t *a, json_t *b)
{
	return json_pack("{s:s, s:[o, o]}", "name", "x", "directions", a, b);
}

/* Run the summary into a string; *lines: what it returned.  (Not inlined:
 * gcc would take the pointers into the string for ones to a local.) */
static __attribute__((noinline)) char *
run(const json_t *fj, const struct aif_summary_run *r, unsigned *lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*lines = aif_summary_print_fabric(f, fj, r);
	fclose(f);
	unsigned nl = 0;
	for (char *p = buf; *p != '\0'; p++)
		nl += *p == '\n';
	assert_int_equal(nl, *lines);
	return buf;
}

static void
test_small_fabric_full_tables(void **state)
{
	(void)state;
	json_t *fj = json_pack(
		"{s:[o, o, o], s:[o, o]}", "switches",
		sw("leaf0", json_pack("[o, o]", port("h0", 10, 9, 1), port("u0", 9, 9, 0)), 1),
		sw("leaf1", json_pack("[o, o]", port("h0", 0, 9, 0), port("u0", 9, 0, 0)), 0),
		sw("spine0", json_pack("[o, o]", port("d0", 9, 9, 0), port("d1", 9, 9, 0)), 0),
		"links",
		link_of(dir("leaf0:u0", "spine0:d0", 9, 0.1, 0, 0),
			dir("spine0:d0", "leaf0:u0", 9, 0.1, 0, 0)),
		link_of(dir("leaf1:u0", "spine0:d1", 9, 0.1, 0, 0),
			dir("spine0:d1", "leaf1:u0", 9, 0.1, 0, 0)));
	struct aif_summary_run r = { .elapsed_s = 1, .virtual_ns = 5000, .packet_hops = 37 };
	unsigned lines;
	char *out = run(fj, &r, &lines);

	/* blank, summary, switch header + 3, link header + 4, 2 edges, drops
	 * title + 1 reason */
	assert_int_equal(lines, 2 + 4 + 5 + 2 + 2);
	assert_non_null(strstr(out, "summary: 0.000005 s of virtual time in 1.00 s: 37 "
				    "packet-hops"));
	assert_non_null(strstr(out, "  edge leaf0:h0             in       10  out        9  "
				    "dropped 1\n"));
	assert_non_null(strstr(out, "  edge leaf1:h0             in        0  out        9\n"));
	assert_null(strstr(out, "edge leaf0:u0")); /* a link end is no edge port */
	assert_null(strstr(out, "edge spine0:"));
	assert_non_null(strstr(out, "  spine0:d1>leaf1:u0 "));
	assert_non_null(strstr(out, "    no_route                     1\n"));
	assert_null(strstr(out, "ttl_expired")); /* zero counts are left out */
	free(out);
	json_decref(fj);
}

/* 40 switches s0..s39 with edge port h0 and link ends a, b; 60 links. */
static json_t *
large_fabric(void)
{
	json_t *sws = json_array(), *links = json_array();
	char name[32], from[40], to[40];

	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		/* s7 drops 30 at its edge port, s3 5 */
		int drops = i == 7 ? 30 : i == 3 ? 5 : 0;
		json_array_append_new(sws, sw(name, json_pack("[o, o, o]",
			port("h0", 100 + i, 100, drops), port("a", 50, 50, 0),
			port("b", 50, 50, 0)), drops));
	}
	for (int k = 0; k < 60; k++) {
		int a = k % 40, b = (k + 1 + k / 40) % 40;
		snprintf(from, sizeof(from), "s%d:%s", a, k < 40 ? "a" : "b");
		snprintf(to, sizeof(to), "s%d:%s", b, k < 40 ? "b" : "a");
		/* direction 17 loses 2 frames, 33 sends 4 PFC frames, 50 is busiest */
		json_array_append_new(links, link_of(
			dir(from, to, 10 + k, k == 50 ? 0.9 : 0.01 * (k % 30), k == 33 ? 4 : 0,
			    k == 17 ? 2 : 0),
			dir(to, from, 10, 0.05, 0, 0)));
	}
	return json_pack("{s:o, s:o}", "switches", sws, "links", links);
}

static void
test_large_fabric_summarised(void **state)
{
	(void)state;
	json_t *fj = large_fabric();
	struct aif_summary_run r = { .elapsed_s = 2, .virtual_ns = AIF_TIME_NS_NEVER,
				     .packet_hops = 12345, .stats_path = "run.json" };
	unsigned lines;
	char *out = run(fj, &r, &lines);

	/* blank, summary; switches 2; links 2, header, 8 worst; edge ports 3;
	 * drops 2; where the rest is */
	assert_int_equal(lines, 2 + 2 + 3 + 8 + 3 + 2 + 1);
	assert_non_null(strstr(out, "\nsummary: 2.00 s: 12345 packet-hops"));
	/* totals: rx 40 x (100 + 50 + 50) + (0 + .. + 39), drops 35 */
	assert_non_null(strstr(out, "  40 switches: 8780 packets in, 8000 out, 35 dropped\n"));
	assert_non_null(strstr(out, "    most drops: s7 30, s3 5\n"));
	assert_non_null(strstr(out, "  120 link directions: "));
	assert_non_null(strstr(out, " 4 PFC frames, 2 lost, 0 corrupted\n"));
	assert_non_null(strstr(out, "max 90.0%; the 8 worst"));
	/* the worst: the lossy one, then the pausing one, then the busiest */
	char *l17 = strstr(out, "  s17:a>s18:b "), *l33 = strstr(out, "  s33:a>s34:b "),
	     *l50 = strstr(out, "  s10:b>s12:a ");
	assert_non_null(l17);
	assert_non_null(l33);
	assert_non_null(l50);
	assert_true(l17 < l33 && l33 < l50);
	/* edge ports by switch:port, never link ends */
	assert_non_null(strstr(out, "  40 edge ports (40 with traffic): 4780 packets in, 4000 "
				    "out, 35 dropped\n"));
	assert_non_null(strstr(out, "    busiest s39:h0: in 139, out 100\n"));
	assert_non_null(strstr(out, "    most drops: s7:h0 30, s3:h0 5\n"));
	assert_non_null(strstr(out, "  every switch, port and link direction: run.json\n"));
	free(out);

	r.stats_path = NULL;
	out = run(fj, &r, &lines);
	assert_non_null(strstr(out, "  every switch, port and link direction: run with --stats "
				    "FILE\n"));
	free(out);
	json_decref(fj);
}

static void
test_single_switch(void **state)
{
	(void)state;
	json_t *c = json_pack("{s:[o, o], s:{s:i}}", "ports", port("p0", 2000000, 1, 0),
			      port("p1", 0, 2000000, 0), "drops", "no_route", 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(aif_summary_print_switch(f, c, 2.0), 6);
	fclose(f);
	assert_non_null(strstr(buf, "  p0            2000000 "));
	assert_non_null(strstr(buf, "        1.000\n"));
	assert_non_null(strstr(buf, "  drops: none\n"));
	free(buf);
	json_decref(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_fabric_full_tables),
		cmocka_unit_test(test_large_fabric_summarised),
		cmocka_unit_test(test_single_switch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
