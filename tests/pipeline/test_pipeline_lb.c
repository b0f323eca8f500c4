/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of load balancing: one whole switch ("leaf0", four ports)
 * run in virtual time (pipeline_fixture.h: the config, the harness, the
 * frames).
 *
 * Members following their links (down, then up; a link down seen by the
 * next burst), switching schemes under traffic without loss and every
 * scheme skipping members that are down, flowlet table sharing and the
 * exact table's untracked packets as show_groups reports them, per-member
 * counts cleared and restarted for a member that comes back, and flowlet
 * gaps measured from receive time across a worker stall.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "clock.h"
#include "commands.h"
#include "ctl_server.h"
#include "drop.h"
#include "flow_hash.h"
#include "lb.h"
#include "parse.h"
#include "pkt.h"
#include "switch.h"
#include "tables.h"

#include "pipeline_fixture.h"

/* ---------------------------------------------------------------- */
/* Member state: a link goes down, then comes back                    */

#define MEMBER_FLOWS 600

static void
member_flow(uint8_t *f, uint16_t *len, unsigned i)
{
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
			  .dip = IP4(10, 1, (uint8_t)(i >> 8), (uint8_t)i),
			  .sport = (uint16_t)(0xC000 | ((i * 2654435761u) & 0x3fff)),
			  .ttl = 64, .qp = 5 };
	*len = build_roce4(f, &r);
}

/* Send every flow once; per port, how many left there. */
static void
member_send_all(unsigned *per_port)
{
	uint8_t f[FRAME_MAX];
	uint16_t len;
	struct rte_mbuf *out[RING_SIZE];

	memset(per_port, 0, sizeof(unsigned) * N_PORTS);
	for (unsigned i = 0; i < MEMBER_FLOWS; i++) {
		member_flow(f, &len, i);
		inject(0, f, len);
		if (i % 64 == 63)
			run();
	}
	run();
	for (uint16_t p = 1; p < N_PORTS; p++) {
		unsigned n = sent(p, out, RING_SIZE);
		per_port[p] += n;
		rs_free_all(out, n);
	}
}

static void
test_member_down_up(void **state)
{
	uint16_t before[MEMBER_FLOWS], down[MEMBER_FLOWS], back[MEMBER_FLOWS];
	unsigned per_port[N_PORTS], expect[N_PORTS];
	uint8_t f[FRAME_MAX];
	uint16_t len;
	char err[AIF_ERR_MAX];
	struct rs_snap snap0;

	(void)state;
	load_config(BASE_SEED, members_fwd);
	snap_take(&snap0);
	for (unsigned i = 0; i < MEMBER_FLOWS; i++) {
		member_flow(f, &len, i);
		before[i] = expected_port(f, len, "uplinks");
	}

	/* p2 goes down: its members leave, nobody else's flows move */
	uint64_t rebuilds = H.ctl.link_rebuilds;
	aif_port_set_link_up(&H.sw->ports[2], false);
	assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
	assert_int_equal(H.ctl.link_rebuilds, rebuilds + 1);
	unsigned moved = 0, was_on_2 = 0;
	memset(expect, 0, sizeof(expect));
	for (unsigned i = 0; i < MEMBER_FLOWS; i++) {
		member_flow(f, &len, i);
		down[i] = expected_port(f, len, "uplinks");
		assert_int_not_equal(down[i], 2);
		if (before[i] != 2)
			assert_int_equal(down[i], before[i]); /* resilient */
		was_on_2 += before[i] == 2;
		moved += down[i] != before[i];
		expect[down[i]]++;
	}
	assert_int_equal(moved, was_on_2);
	print_message("# member p2 down: %u of %u flows moved (all of them were on p2)\n",
		      moved, MEMBER_FLOWS);
	member_send_all(per_port);
	for (uint16_t p = 1; p < N_PORTS; p++)
		assert_int_equal(per_port[p], expect[p]);

	/* p2 comes back: it rejoins; only flows that go to p2 move */
	aif_port_set_link_up(&H.sw->ports[2], true);
	assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
	unsigned to_2 = 0;
	memset(expect, 0, sizeof(expect));
	for (unsigned i = 0; i < MEMBER_FLOWS; i++) {
		member_flow(f, &len, i);
		back[i] = expected_port(f, len, "uplinks");
		if (back[i] != down[i])
			assert_int_equal(back[i], 2);
		to_2 += back[i] == 2;
		expect[back[i]]++;
	}
	/* it takes about its third back */
	assert_true(to_2 > MEMBER_FLOWS / 5 && to_2 < MEMBER_FLOWS / 2);
	print_message("# member p2 back: %u of %u flows go to it again\n", to_2, MEMBER_FLOWS);
	member_send_all(per_port);
	for (uint16_t p = 1; p < N_PORTS; p++)
		assert_int_equal(per_port[p], expect[p]);
	assert_no_drops(&snap0);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* Switching the load-balancing scheme under traffic loses nothing    */

static void
load_scheme(const char *scheme)
{
	char *base = config_text(BASE_SEED, members_fwd, "net_ring_pl3", "");
	size_t n = strlen(base) + 256;
	char *text = malloc(n);
	assert_non_null(text);
	/* the same switch, with a default policy naming the scheme */
	snprintf(text, n, "{\"policies\": {\"default\": {\"load_balancing\": "
		 "{\"scheme\": \"%s\"}}}, %s", scheme, base + 1);
	free(base);
	load_text(text);
}

static void
test_scheme_switch_under_traffic(void **state)
{
	static const char *const schemes[] = { "spray", "flowlet", "adaptive", "wcmp", "ecmp" };
	static const uint8_t ids[] = { AIF_LB_SPRAY, AIF_LB_FLOWLET, AIF_LB_ADAPTIVE,
				       AIF_LB_WCMP, AIF_LB_ECMP };
	struct rs_snap before;
	uint64_t injected = 0, out = 0;

	(void)state;
	load_config(BASE_SEED, members_fwd);
	snap_take(&before);
	for (unsigned s = 0; s < 200; s++) {
		if (s % 20 == 19) {
			unsigned k = (s / 20) % RTE_DIM(schemes);
			load_scheme(schemes[k]);
			assert_int_equal(H.sw->tables->lb.scheme, ids[k]);
		}
		inject_flows(8);
		injected += 8;
		if (s % 3 == 0) /* some wait in the ring across a switch */
			continue;
		step();
		out += drain_uplinks();
	}
	run();
	out += drain_uplinks();
	assert_int_equal(out, injected);
	assert_no_drops(&before);
	print_message("# scheme switched 10 times under traffic: %llu of %llu packets out\n",
		      (unsigned long long)out, (unsigned long long)injected);
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * The schemes that choose per flowlet or per packet choose among the members
 * that are up: with p2 down no packet leaves by p2 nor is dropped as
 * port_down, and a flowlet open on p2 when it goes down moves at once.
 */
static void
test_schemes_skip_down_members(void **state)
{
	static const char *const schemes[] = { "flowlet", "spray", "adaptive" };
	unsigned per_port[N_PORTS];
	char err[AIF_ERR_MAX];
	struct rs_snap before;

	(void)state;
	for (unsigned s = 0; s < RTE_DIM(schemes); s++) {
		load_scheme(schemes[s]);
		aif_port_set_link_up(&H.sw->ports[2], true);
		assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
		/* the previous scheme's flowlets are over; new ones open on
		 * every member, p2 included */
		rs_step(&H, 3 * AIF_NS_PER_MS);
		member_send_all(per_port);
		print_message("# %s with p2 up: p1 %u, p2 %u, p3 %u\n", schemes[s],
			      per_port[1], per_port[2], per_port[3]);
		assert_true(per_port[2] > 0);
		aif_port_set_link_up(&H.sw->ports[2], false);
		assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
		snap_take(&before);
		/* the same flows again, well inside the flowlet gap */
		member_send_all(per_port);
		print_message("# %s with p2 down: p1 %u, p2 %u, p3 %u\n", schemes[s],
			      per_port[1], per_port[2], per_port[3]);
		assert_int_equal(per_port[2], 0);
		assert_int_equal(per_port[1] + per_port[3], MEMBER_FLOWS);
		assert_no_drops(&before);
	}
	aif_port_set_link_up(&H.sw->ports[2], true);
	assert_int_equal(aif_ctl_links_changed(&H.ctl, err, sizeof(err)), 0);
	assert_clean();
}

/*
 * A link that goes down is seen by the next burst, before control has
 * rebuilt the groups: what is routed to it is dropped as port_down, and
 * when it comes back it carries the flow again.
 */
static void
test_link_down_seen_at_once(void **state)
{
	uint8_t f[FRAME_MAX];
	struct rte_mbuf *out[4];
	struct rs_snap before;
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0, .dip = ip_remote,
			  .sport = 0xC123, .ttl = 64, .qp = 0x000123 };
	uint16_t len = build_roce4(f, &r), via = 0;

	(void)state;
	inject(0, f, len);
	run();
	for (uint16_t p = 1; p < N_PORTS && via == 0; p++) {
		unsigned n = sent(p, out, RTE_DIM(out));
		for (unsigned k = 0; k < n; k++)
			rte_pktmbuf_free(out[k]);
		if (n != 0)
			via = p;
	}
	assert_int_not_equal(via, 0);

	aif_port_set_link_up(&H.sw->ports[via], false);
	snap_take(&before);
	inject(0, f, len);
	run();
	assert_no_tx();
	assert_drops(&before, 0, AIF_DROP_PORT_DOWN, 1);

	aif_port_set_link_up(&H.sw->ports[via], true);
	inject(0, f, len);
	run();
	unsigned n = sent(via, out, RTE_DIM(out));
	for (unsigned k = 0; k < n; k++)
		rte_pktmbuf_free(out[k]);
	assert_int_equal(n, 1);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* Flowlet: shared table entries, and gaps measured at receive       */

#define FL_GAP_US 1000

/* The test config with the flowlet scheme: a table of table_size entries,
 * "direct" or "exact", gap 1 ms. */
static void
load_flowlet_table(unsigned table_size, const char *table)
{
	char *base = config_text(BASE_SEED, members_fwd, "net_ring_pl3", "");
	size_t n = strlen(base) + 256;
	char *text = malloc(n);
	assert_non_null(text);
	snprintf(text, n, "{\"policies\": {\"default\": {\"load_balancing\": "
		 "{\"scheme\": \"flowlet\", \"flowlet\": {\"table_size\": %u, "
		 "\"gap_us\": %u, \"aging_us\": %u, \"table\": \"%s\"}}}}, %s",
		 table_size, FL_GAP_US, 10 * FL_GAP_US, table, base + 1);
	free(base);
	load_text(text);
}

/* The direct-mapped table, whose sharing these tests count. */
static void
load_flowlet(unsigned table_size)
{
	load_flowlet_table(table_size, "direct");
}

/* Flow i of these tests: member_flow(i), destination 10.1.(i >> 8).(i & 255). */
static uint32_t
fl_hash(unsigned i)
{
	const struct aif_tables *t = H.sw->tables;
	uint8_t f[FRAME_MAX];
	uint16_t len;
	struct aif_pkt m;

	member_flow(f, &len, i);
	assert_int_equal(aif_parse(f, len, &m), 0);
	return aif_flow_hash(&m, t->lb.hash_fields, t->lb.hash_alg, t->seed);
}

/* Inject flows 0..n-1 once each, in order, on p0. */
static void
fl_inject(unsigned n)
{
	uint8_t f[FRAME_MAX];
	uint16_t len;

	for (unsigned i = 0; i < n; i++) {
		member_flow(f, &len, i);
		inject(0, f, len);
	}
}

/* Dequeue what the uplinks sent; port_of[flow] gets the port each flow
 * left on, *moved counts packets that left on another port than the
 * flow's previous one.  Returns how many. */
static unsigned
fl_collect(int8_t *port_of, unsigned n, unsigned *moved)
{
	struct rte_mbuf *out[RING_SIZE];
	unsigned total = 0;

	assert_int_equal(rte_ring_count(H.tx[0]), 0);
	for (uint16_t p = 1; p < N_PORTS; p++) {
		unsigned k = sent(p, out, RING_SIZE);
		for (unsigned j = 0; j < k; j++) {
			const uint8_t *ip = rte_pktmbuf_mtod(out[j], const uint8_t *) + ETH_HLEN;
			unsigned i = get16(ip + 18); /* dst 10.1.x.y: flow x << 8 | y */
			assert_true(i < n);
			*moved += port_of[i] >= 0 && port_of[i] != p;
			port_of[i] = (int8_t)p;
		}
		rs_free_all(out, k);
		total += k;
	}
	return total;
}

/* Group name's load-balancing counters as the show_groups reply gives them. */
struct fl_counters {
	uint64_t starts, reselections, collisions, untracked;
};

static struct fl_counters
fl_counters(const char *name)
{
	json_t *r = ctl_request("{\"cmd\": \"show_groups\"}");
	json_t *groups = json_object_get(r, "result"), *g;
	struct fl_counters c = { 0 };
	bool found = false;
	size_t i, k;

	assert_true(json_is_true(json_object_get(r, "ok")));
	json_array_foreach(groups, i, g) {
		json_t *members = json_object_get(g, "members"), *m;
		if (strcmp(json_string_value(json_object_get(g, "name")), name) != 0)
			continue;
		found = true;
		assert_true(json_is_integer(json_object_get(g, "flowlet_collisions")));
		c.collisions = (uint64_t)json_integer_value(json_object_get(g, "flowlet_collisions"));
		c.untracked = (uint64_t)json_integer_value(json_object_get(g, "flowlet_untracked"));
		json_array_foreach(members, k, m) {
			c.starts += (uint64_t)json_integer_value(json_object_get(m, "flowlet_starts"));
			c.reselections += (uint64_t)json_integer_value(json_object_get(m, "reselections"));
		}
	}
	assert_true(found);
	json_decref(r);
	return c;
}

/* Flows 0..n-1 of group gi on a table of size entries: how many entries they
 * use, and the collisions lb_flowlet.c counts when they all arrive, in
 * order, within one gap (the first flow on an entry owns it; every other
 * flow is a guest, counted once per guest bit, lb.h). */
static unsigned
fl_expect(unsigned n, uint16_t gi, uint32_t size, unsigned *collisions)
{
	uint32_t *owner = calloc(size, sizeof(*owner));
	uint8_t *guests = calloc(size, 1);
	unsigned entries = 0;

	assert_non_null(owner);
	assert_non_null(guests);
	*collisions = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t h = fl_hash(i), e = aif_lb_flowlet_index(h, gi, size);
		uint8_t bit = (uint8_t)(1u << (h >> 29));
		if (owner[e] == 0) {
			owner[e] = h | 1;
			entries++;
		} else if (owner[e] != (h | 1) && !(guests[e] & bit)) {
			guests[e] |= bit;
			(*collisions)++;
		}
	}
	free(owner);
	free(guests);
	return entries;
}

/*
 * 64 flows on a 16-entry table, eight packets each within the gap: flows
 * share entries, none leaves on two ports, and show_groups reports the
 * collisions (exactly as the sharing rule counts them).
 */
static void
test_flowlet_collisions_shown(void **state)
{
	enum { N = 64, SIZE = 16, ROUNDS = 8 };
	int8_t port_of[N];
	unsigned want_coll, entries, moved = 0;
	struct fl_counters c0, c1;

	(void)state;
	load_flowlet(SIZE);
	/* every entry left by earlier tests idle for longer than aging */
	aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
	const struct aif_group *g = group_named("uplinks");
	uint16_t gi = (uint16_t)(g - H.sw->tables->groups);
	entries = fl_expect(N, gi, SIZE, &want_coll);
	memset(port_of, -1, sizeof(port_of));
	c0 = fl_counters("uplinks");
	for (unsigned r = 0; r < ROUNDS; r++) {
		fl_inject(N);
		run();
		assert_int_equal(fl_collect(port_of, N, &moved), N);
	}
	c1 = fl_counters("uplinks");
	print_message("# flowlet, %u flows on %u entries (%u used), %u packets each: "
		      "%u moved; %llu collisions shown (%u expected), %llu flowlet starts, "
		      "%llu reselections\n", N, SIZE, entries, ROUNDS, moved,
		      (unsigned long long)(c1.collisions - c0.collisions), want_coll,
		      (unsigned long long)(c1.starts - c0.starts),
		      (unsigned long long)(c1.reselections - c0.reselections));
	assert_int_equal(moved, 0);
	assert_true(want_coll > 0);
	assert_int_equal(c1.collisions - c0.collisions, want_coll);
	assert_int_equal(c1.starts - c0.starts, entries);
	assert_int_equal(c1.reselections - c0.reselections, 0);
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * The exact table (the default): 64 flows, eight packets each within the
 * gap.  On 4,096 entries every flow starts its own flowlet and none shares
 * one; on 16 (a window of AIF_FLOWLET_PROBES = the whole table) the first
 * 16 flows take the entries and the other 48 go by their hash, each packet
 * counted as flowlet_untracked; no flow moves in either.
 */
static void
test_flowlet_exact_shown(void **state)
{
	enum { N = 64, ROUNDS = 8 };
	static const unsigned sizes[] = { 4096, 16 };
	int8_t port_of[N];
	unsigned moved = 0;

	(void)state;
	for (unsigned k = 0; k < 2; k++) {
		unsigned size = sizes[k], tracked = size < N ? size : N;
		load_flowlet_table(size, "exact");
		aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
		memset(port_of, -1, sizeof(port_of));
		struct fl_counters c0 = fl_counters("uplinks"), c1;
		for (unsigned r = 0; r < ROUNDS; r++) {
			fl_inject(N);
			run();
			assert_int_equal(fl_collect(port_of, N, &moved), N);
		}
		c1 = fl_counters("uplinks");
		print_message("# flowlet, exact table of %u: %u flows x %u packets: %u moved, "
			      "%llu flowlet starts, %llu collisions, %llu packets untracked\n",
			      size, N, ROUNDS, moved, (unsigned long long)(c1.starts - c0.starts),
			      (unsigned long long)(c1.collisions - c0.collisions),
			      (unsigned long long)(c1.untracked - c0.untracked));
		assert_int_equal(moved, 0);
		assert_int_equal(c1.starts - c0.starts, tracked);
		assert_int_equal(c1.collisions - c0.collisions, 0);
		assert_int_equal(c1.untracked - c0.untracked, (N - tracked) * ROUNDS);
		assert_int_equal(c1.reselections - c0.reselections, 0);
	}
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/*
 * Per-member counts (packets, bytes, and the load balancer's flowlet starts,
 * reselections and collisions) all clear, and a member that leaves the
 * config and comes back starts from zero: its counter slot was given back
 * and taken anew.
 */
static void
test_member_counts_clear_and_reuse(void **state)
{
	enum { N = 64, SIZE = 16 };
	static const char members_two[] =
		"{\"ip\": \"10.0.1.0\", \"port\": \"p1\"},"
		"{\"ip\": \"10.0.1.2\", \"port\": \"p2\"}";
	int8_t port_of[N];
	unsigned moved = 0;
	struct aif_member_sums mc[N_PORTS];
	struct fl_counters c;

	(void)state;
	load_flowlet(SIZE);
	aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
	memset(port_of, -1, sizeof(port_of));
	fl_inject(N);
	run();
	assert_int_equal(fl_collect(port_of, N, &moved), N);
	c = fl_counters("uplinks");
	assert_true(c.starts > 0 && c.collisions > 0);

	json_decref(ctl_request("{\"cmd\": \"clear_counters\"}"));
	c = fl_counters("uplinks");
	assert_int_equal(c.starts, 0);
	assert_int_equal(c.reselections, 0);
	assert_int_equal(c.collisions, 0);
	member_ctrs_by_port("uplinks", mc);
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(mc[p].packets + mc[p].flowlet_starts, 0);

	/* traffic again on every member, p3's included */
	aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
	fl_inject(N);
	run();
	assert_int_equal(fl_collect(port_of, N, &moved), N);
	member_ctrs_by_port("uplinks", mc);
	assert_true(mc[3].packets > 0 && mc[3].flowlet_starts > 0);

	/* 10.0.1.4@p3 leaves the group and comes back: it counts from zero */
	load_config(BASE_SEED, members_two);
	load_flowlet(SIZE);
	member_ctrs_by_port("uplinks", mc);
	assert_int_equal(mc[3].packets, 0);
	assert_int_equal(mc[3].bytes, 0);
	assert_int_equal(mc[3].flowlet_starts, 0);
	assert_int_equal(mc[3].reselections, 0);
	assert_int_equal(mc[3].flowlet_collisions, 0);
	assert_true(mc[1].packets > 0 && mc[2].packets > 0); /* the others kept theirs */
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

/* An RX callback on p0 that plays a worker stall: the next non-empty burst
 * takes stall_ns of virtual time to receive. */
static uint16_t
stall_rx(uint16_t port_id, uint16_t queue, struct rte_mbuf *pkts[], uint16_t nb_pkts,
	 uint16_t max_pkts, void *arg)
{
	aif_time_ns *stall_ns = arg;

	(void)port_id;
	(void)queue;
	(void)pkts;
	(void)max_pkts;
	if (nb_pkts > 0 && *stall_ns > 0) {
		aif_clock_advance(&H.ctl.clock, *stall_ns);
		*stall_ns = 0;
	}
	return nb_pkts;
}

/*
 * Flowlet gaps are measured between receive times.  32 flows (one burst):
 * the first packets are received in a step that stalls for 500 us between
 * its clock read and rx_burst; the next ones arrive 600 us after that
 * receive, less than the 1 ms gap: no flow starts a new flowlet or moves.
 * The ones after a true gap of 1.1 ms do start new flowlets.
 */
static void
test_flowlet_gap_from_receive_time(void **state)
{
	enum { N = AIF_BURST, SIZE = 65536 };
	int8_t port_of[N];
	unsigned entries, coll, moved = 0, moved_after = 0;
	aif_time_ns stall_ns = 0;
	struct fl_counters c0, c1, c2;

	(void)state;
	load_flowlet(SIZE);
	aif_clock_advance(&H.ctl.clock, 100 * AIF_NS_PER_MS);
	const struct aif_group *g = group_named("uplinks");
	entries = fl_expect(N, (uint16_t)(g - H.sw->tables->groups), SIZE, &coll);
	const struct rte_eth_rxtx_callback *cb =
		rte_eth_add_rx_callback(H.pid[0], 0, stall_rx, &stall_ns);
	assert_non_null(cb);
	memset(port_of, -1, sizeof(port_of));
	c0 = fl_counters("uplinks");

	/* received 500 us after the step read the clock */
	fl_inject(N);
	stall_ns = 500 * AIF_NS_PER_US;
	rs_step(&H, STEP_NS);
	assert_int_equal(stall_ns, 0);
	assert_false(rs_rx_pending(&H));
	run();
	assert_int_equal(fl_collect(port_of, N, &moved), N);
	/* 600 us after that receive: the same flowlets */
	fl_inject(N);
	rs_step(&H, 600 * AIF_NS_PER_US - STEP_NS);
	assert_false(rs_rx_pending(&H));
	run();
	assert_int_equal(fl_collect(port_of, N, &moved), N);
	c1 = fl_counters("uplinks");
	print_message("# flowlet gap 1 ms, a 500 us stall before receive, next packets "
		      "600 us later: %u of %u flows moved, %llu flowlet starts for %u "
		      "entries, %llu reselections\n", moved, N,
		      (unsigned long long)(c1.starts - c0.starts), entries,
		      (unsigned long long)(c1.reselections - c0.reselections));
	assert_int_equal(moved, 0);
	assert_int_equal(c1.starts - c0.starts, entries);
	assert_int_equal(c1.reselections - c0.reselections, 0);

	/* a true gap of 1.1 ms: every flow starts a new flowlet */
	fl_inject(N);
	rs_step(&H, 1100 * AIF_NS_PER_US);
	assert_false(rs_rx_pending(&H));
	run();
	assert_int_equal(fl_collect(port_of, N, &moved_after), N);
	c2 = fl_counters("uplinks");
	print_message("# then 1.1 ms later: %llu flowlet starts, %u of %u flows moved\n",
		      (unsigned long long)(c2.starts - c1.starts), moved_after, N);
	assert_int_equal(c2.starts - c1.starts, entries);

	assert_int_equal(rte_eth_remove_rx_callback(H.pid[0], 0, cb), 0);
	rte_free((void *)(uintptr_t)cb); /* the worker is not running: safe now */
	load_config(BASE_SEED, members_fwd);
	assert_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_member_down_up, test_setup),
		cmocka_unit_test_setup(test_scheme_switch_under_traffic, test_setup),
		cmocka_unit_test_setup(test_schemes_skip_down_members, test_setup),
		cmocka_unit_test_setup(test_link_down_seen_at_once, test_setup),
		cmocka_unit_test_setup(test_flowlet_collisions_shown, test_setup),
		cmocka_unit_test_setup(test_flowlet_exact_shown, test_setup),
		cmocka_unit_test_setup(test_member_counts_clear_and_reuse, test_setup),
		cmocka_unit_test_setup(test_flowlet_gap_from_receive_time, test_setup),
	};
	return cmocka_run_group_tests_name("pipeline_lb", tests, group_setup,
					   group_teardown);
}
