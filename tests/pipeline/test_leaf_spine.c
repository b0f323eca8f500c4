/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A generated 4-leaf x 2-spine fabric (control/topology.c) built into
 * switches and emulated links (control/fabric.c), loaded by control, driven
 * by one runner in virtual time at the next events it reports.
 *
 * Host leaf0-0 sends 32 UDP flows to leaf3-0 (ring PMD edge ports): ECMP
 * spreads them over both spines, every frame leaves leaf3 routed three
 * times (TTL 61, the host's MAC from leaf3's port), and the first arrives
 * exactly when its two 100 Gb/s, 1 us hops say: 2 x (serialization + 1 us).
 * With host_devices that give no MAC (real hosts), the leaves learn the
 * hosts from their ARP replies and gratuitous ARPs.  Probes with TTL 1..3
 * come back as ICMP time exceeded from each switch on the way, as
 * traceroute shows them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "pfc.h"
#include "qos.h"
#include "clock.h"
#include "commands.h"
#include "config.h"
#include "compile.h"
#include "ctl_server.h"
#include "fabric.h"
#include "runner.h"

#include "test_eal.h"

#define N_PKTS 32
#define PAYLOAD 1000
#define LEAVES 4

/* The hosts' MACs given, so that no ARP is needed (leaf i's host
 * 02:0a:00:0i:00:02); test_real_hosts_learned leaves them to be learned. */
static const char config_json[] =
	"{\"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 2, \"hosts_per_leaf\": 1,"
	" \"host_gbps\": 100, \"uplink_gbps\": 100, \"delay_ns\": 1000,"
	" \"host_devices\": [{\"device\": \"ls_e0\", \"mac\": \"02:0a:00:00:00:02\"},"
	" {\"device\": \"ls_e1\", \"mac\": \"02:0a:00:01:00:02\"},"
	" {\"device\": \"ls_e2\", \"mac\": \"02:0a:00:02:00:02\"},"
	" {\"device\": \"ls_e3\", \"mac\": \"02:0a:00:03:00:02\"}]}}}";
static const char learn_json[] =
	"{\"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 2, \"hosts_per_leaf\": 1,"
	" \"host_gbps\": 100, \"uplink_gbps\": 100, \"delay_ns\": 1000,"
	" \"host_devices\": [\"ls_e0\", \"ls_e1\", \"ls_e2\", \"ls_e3\"]}}}";

static struct {
	struct rte_mempool *pool;
	struct aif_config *cfg;
	struct aif_fabric fab;
	struct aif_ctl ctl;
	struct aif_runner *w;
	struct rte_ring *rx[LEAVES], *tx[LEAVES];
	uint16_t pid[LEAVES];
	unsigned edge_sw[LEAVES];       /* the switch whose h0 is edge ring i */
	uint32_t dst_ip;                /* where udp_from sends */
	unsigned back;                  /* frames leaf0-0 got (link failure) */
} F;

/* Host port h0 of switch swi: edge ring i, a ring PMD ethdev (unique names
 * per build). */
static int
bind_edge(unsigned i, unsigned swi)
{
	static unsigned builds;
	struct aif_switch *sw = F.fab.sw[swi];
	struct rte_eth_conf conf;
	char name[32];

	builds++;
	snprintf(name, sizeof(name), "ls_rx%u", builds);
	F.rx[i] = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "ls_tx%u", builds);
	F.tx[i] = rte_ring_create(name, 8192, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (F.rx[i] == NULL || F.tx[i] == NULL)
		return -1;
	snprintf(name, sizeof(name), "ls_e%u", builds);
	int pid = rte_eth_from_rings(name, &F.rx[i], 1, &F.tx[i], 1, 0);
	memset(&conf, 0, sizeof(conf));
	if (pid < 0 || rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)pid, 0, 256, 0, NULL, F.pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)pid, 0, 256, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)pid) != 0)
		return -1;
	F.pid[i] = (uint16_t)pid;
	aif_port_set_link_up(&sw->ports[0], true);
	aif_port_init_dpdk(&sw->ports[0], 0, (uint16_t)pid);
	return 0;
}

/*
 * Build the fabric of json, with h0 of switches edges[0..3] on the edge
 * rings and the last one's shaped to shaper_bps (0: not), load it and give
 * it one runner over every switch and port.
 */
static void
build_from(const char *json, const unsigned *edges, uint64_t shaper_bps)
{
	char err[AIF_ERR_MAX] = "";

	memset(&F.fab, 0, sizeof(F.fab));
	memset(&F.ctl, 0, sizeof(F.ctl));
	memcpy(F.edge_sw, edges, sizeof(F.edge_sw));
	if (aif_config_parse(json, strlen(json), &F.cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	if (shaper_bps) {
		/* the bottleneck, one frame of bucket: exact in virtual time */
		F.cfg->switches[edges[3]].ports[0].shaper_bps = shaper_bps;
		F.cfg->switches[edges[3]].ports[0].shaper_burst_bytes = 1538;
		/* a 2 MB buffer per switch, so that a few MB of incast fill it */
		F.cfg->policies[0].qos.buffer_bytes = 2000000;
	}
	if (aif_fabric_build(&F.fab, F.cfg, F.pool, 1, 0x5eed, err, sizeof(err)) != 0)
		fail_msg("fabric: %s", err);
	for (unsigned i = 0; i < LEAVES; i++)
		assert_int_equal(bind_edge(i, edges[i]), 0);
	aif_clock_init_virtual(&F.ctl.clock, 0);
	for (uint16_t i = 0; i < F.fab.n_sw; i++)
		aif_ctl_add_switch(&F.ctl, F.fab.sw[i]);
	F.ctl.links = F.fab.link;
	F.ctl.n_links = F.fab.n_links;
	if (aif_ctl_apply_config(&F.ctl, aif_config_ref(F.cfg), err, sizeof(err)) != 0)
		fail_msg("load: %s", err);
	/* one runner: every switch, every port */
	F.w = aif_runner_create(F.fab.sw[0], 0, 0x5eed);
	assert_non_null(F.w);
	for (uint16_t i = 1; i < F.fab.n_sw; i++)
		assert_int_equal(aif_runner_add_switch(F.w, F.fab.sw[i], 0, 0x5eed), i);
	for (uint16_t i = 0; i < F.fab.n_sw; i++)
		for (uint16_t p = 0; p < F.fab.sw[i]->n_ports; p++)
			assert_int_equal(aif_runner_add_rxq_of(F.w, i, p, 0), 0);
}

/* The generated 4 x 2 leaf-spine, leaf i's h0 on edge ring i. */
static void
build(uint64_t shaper_bps)
{
	static const unsigned leaves[LEAVES] = { 0, 1, 2, 3 };

	F.dst_ip = 0x0a030002; /* leaf3-0 */
	build_from(config_json, leaves, shaper_bps);
}

static void
unbuild(void)
{
	struct rte_mbuf *m[64];
	unsigned n;

	aif_runner_free(F.w);
	for (unsigned i = 0; i < LEAVES; i++) {
		rte_eth_dev_stop(F.pid[i]);
		rte_eth_dev_close(F.pid[i]);
	}
	aif_fabric_free(&F.fab);
	for (unsigned i = 0; i < LEAVES; i++) {
		while ((n = rte_ring_dequeue_burst(F.tx[i], (void **)m, 64, NULL)) > 0)
			rte_pktmbuf_free_bulk(m, n);
		while ((n = rte_ring_dequeue_burst(F.rx[i], (void **)m, 64, NULL)) > 0)
			rte_pktmbuf_free_bulk(m, n);
		rte_ring_free(F.rx[i]);
		rte_ring_free(F.tx[i]);
	}
	aif_config_free(F.ctl.cfg);
	aif_config_free(F.cfg);
	F.cfg = NULL;
	assert_int_equal(rte_mempool_in_use_count(F.pool), 0); /* nothing lost */
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_leaf_spine", "aif-pl-leafspine", 512) != 0)
		return -1;
	F.pool = rte_pktmbuf_pool_create("ls_pool", 16383, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	return F.pool == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(F.pool);
	test_eal_cleanup();
	return 0;
}

/* UDP from leaf<src>-0 (10.<src>.0.2) to leaf3-0 (10.3.0.2), source port
 * sport, DSCP dscp (26: the lossless class). */
static struct rte_mbuf *
udp_from(unsigned src, uint16_t sport, uint8_t dscp)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(F.pool);
	uint16_t l3 = (uint16_t)(20 + 8 + PAYLOAD);
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + l3));
	const uint8_t dmac[6] = { 2, 0x1f, 0, (uint8_t)F.edge_sw[src], 0, 0 };
	const uint8_t smac[6] = { 2, 0x0a, 0, (uint8_t)F.edge_sw[src], 0, 2 };

	assert_non_null(f);
	memset(f, 0, 14 + l3);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	ip->version_ihl = 0x45;
	ip->type_of_service = (uint8_t)(dscp << 2);
	ip->total_length = rte_cpu_to_be_16(l3);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000002 | (src << 16));
	ip->dst_addr = rte_cpu_to_be_32(F.dst_ip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uint8_t *udp = f + 34;
	udp[0] = (uint8_t)(sport >> 8); udp[1] = (uint8_t)sport;
	udp[2] = 0x12; udp[3] = 0xb7;                  /* 4791 */
	udp[4] = (uint8_t)((8 + PAYLOAD) >> 8); udp[5] = (uint8_t)(8 + PAYLOAD);
	return m;
}

static struct rte_mbuf *
udp_frame(uint16_t sport)
{
	return udp_from(0, sport, 0);
}

/* The computed routes and groups, seen through control. */
static void
test_show_computed_routes(void)
{
	char *reply;
	json_t *r, *res;
	const char *line = "{\"cmd\": \"show_groups\", \"switch\": \"leaf0\"}";

	reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &F.ctl);
	r = json_loads(reply, 0, NULL);
	free(reply);
	res = json_object_get(r, "result");
	assert_int_equal(json_array_size(res), 1);
	json_t *g = json_array_get(res, 0);
	assert_string_equal(json_string_value(json_object_get(g, "name")), "via-spine0-spine1");
	json_t *members = json_object_get(g, "members");
	assert_int_equal(json_array_size(members), 2);
	json_int_t sum = 0;
	for (size_t i = 0; i < 2; i++)
		sum += json_integer_value(json_object_get(json_array_get(members, i), "packets"));
	assert_int_equal(sum, N_PKTS);
	json_decref(r);

	line = "{\"cmd\": \"show_routes\", \"switch\": \"spine1\"}";
	reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &F.ctl);
	r = json_loads(reply, 0, NULL);
	free(reply);
	unsigned groups = 0;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(r, "result"), i, e)
		groups += strcmp(json_string_value(json_object_get(e, "type")), "group") == 0;
	assert_int_equal(groups, 4); /* one per leaf's host subnet */
	json_decref(r);
}

static void
test_leaf_to_leaf(void **state)
{
	struct rte_mbuf *out[N_PKTS + 1];
	aif_time_ns first = 0, now = 0;
	unsigned n_out = 0;

	(void)state;
	build(0);
	for (uint16_t i = 0; i < N_PKTS; i++)
		assert_int_equal(rte_ring_enqueue(F.rx[0], udp_frame((uint16_t)(49152 + i))), 0);
	for (;;) {
		aif_runner_step(F.w, now);
		unsigned k = rte_ring_dequeue_burst(F.tx[3], (void **)&out[n_out],
						    N_PKTS + 1 - n_out, NULL);
		if (k != 0 && n_out == 0)
			first = now;
		n_out += k;
		aif_time_ns next = aif_runner_next_event_ns(F.w, now);
		if (n_out >= N_PKTS || next == AIF_TIME_NS_NEVER || next > AIF_NS_PER_MS / 2)
			break;
		now = next;
	}
	assert_int_equal(n_out, N_PKTS);
	/* 1042 + 24 wire bytes at 100 Gb/s = 85.28 ns; two hops of 1 us:
	 * spine gets it at ceil(85.28) + 1000 = 1086, leaf3 at 1086 + 86 + 1000 */
	assert_int_equal(first, 2172);
	for (unsigned i = 0; i < n_out; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[i], const uint8_t *);
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + 14);
		static const uint8_t dmac[6] = { 2, 0x0a, 0, 3, 0, 2 }, smac[6] = { 2, 0x1f, 0, 3, 0, 0 };
		struct rte_ipv4_hdr h = *ip;

		assert_memory_equal(f, dmac, 6);
		assert_memory_equal(f + 6, smac, 6);
		assert_int_equal(ip->time_to_live, 61); /* leaf0, a spine, leaf3 */
		h.hdr_checksum = 0;
		assert_int_equal(rte_ipv4_cksum(&h), ip->hdr_checksum);
		rte_pktmbuf_free(out[i]);
	}
	/* ECMP used both spines: leaf0's links 0 (u0) and 1 (u1) */
	uint64_t via0 = F.fab.link[0]->dir[0].ctr.tx_packets;
	uint64_t via1 = F.fab.link[1]->dir[0].ctr.tx_packets;
	print_message("leaf0 -> spine0: %lu, -> spine1: %lu\n", (unsigned long)via0,
		      (unsigned long)via1);
	assert_int_equal(via0 + via1, N_PKTS);
	assert_true(via0 > 0 && via1 > 0);
	assert_int_equal(rte_ring_count(F.tx[1]) + rte_ring_count(F.tx[2]), 0);
	test_show_computed_routes();
	unbuild();
}


/* Step from *now to until (at the runner's next events), control learning
 * what the runner heard as it goes. */
static void
run_to(aif_time_ns *now, aif_time_ns until)
{
	for (;;) {
		aif_runner_step(F.w, *now);
		for (uint16_t i = 0; i < F.fab.n_sw; i++)
			aif_switch_learn(F.fab.sw[i], *now);
		aif_time_ns next = aif_runner_next_event_ns(F.w, *now);
		if (next == AIF_TIME_NS_NEVER || next > until)
			break;
		*now = RTE_MAX(next, *now + 1);
	}
	*now = until;
}

/* An ARP frame: op (1 request, 2 reply) from sha/sip to tip, sent to dmac. */
static struct rte_mbuf *
arp_frame(uint16_t op, const uint8_t *dmac, const uint8_t *sha, uint32_t sip, uint32_t tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(F.pool);
	uint8_t f[60] = { 0 };
	uint8_t *to = (uint8_t *)rte_pktmbuf_append(m, sizeof(f));

	assert_non_null(to);
	memcpy(f, dmac, 6);
	memcpy(f + 6, sha, 6);
	f[12] = 0x08, f[13] = 0x06;
	f[14] = 0, f[15] = 1, f[16] = 8, f[17] = 0, f[18] = 6, f[19] = 4;
	f[20] = (uint8_t)(op >> 8), f[21] = (uint8_t)op;
	memcpy(f + 22, sha, 6);
	for (int b = 0; b < 4; b++) {
		f[28 + b] = (uint8_t)(sip >> (24 - 8 * b));
		f[38 + b] = (uint8_t)(tip >> (24 - 8 * b));
	}
	memcpy(to, f, sizeof(f));
	return m;
}

/* {"ip": ..., "type": ..., "mac": ...} of ip among switch sw's neighbours,
 * through control (a new reference, or NULL). */
static json_t *
neighbor_of(const char *sw, const char *ip)
{
	char line[128];
	snprintf(line, sizeof(line), "{\"cmd\": \"show_neighbors\", \"switch\": \"%s\"}", sw);
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &F.ctl);
	json_t *r = json_loads(reply, 0, NULL), *found = NULL, *e;
	size_t i;
	free(reply);
	json_array_foreach(json_object_get(json_object_get(r, "result"), "entries"), i, e)
		if (strcmp(json_string_value(json_object_get(e, "ip")), ip) == 0)
			found = json_incref(e);
	json_decref(r);
	return found;
}

static void
free_ring(struct rte_ring *r)
{
	struct rte_mbuf *m[64];
	unsigned k;
	while ((k = rte_ring_dequeue_burst(r, (void **)m, 64, NULL)) > 0)
		rte_pktmbuf_free_bulk(m, k);
}

/*
 * Real hosts on device ports (host_devices with no MAC): the generated
 * config gives them none, their leaves learn them.  A frame to leaf3-0
 * before it spoke is dropped (neighbor_unresolved) and leaf3 asks for it
 * by ARP on its host port; the host's ARP reply is learned, and the next
 * frames reach it at its own MAC.  Host leaf0-0 announces itself with a
 * gratuitous ARP (never asked, never asking the switch): leaf0 learns it
 * too, since the config names it, and traffic back reaches it with no ARP.
 */
static void
test_real_hosts_learned(void **state)
{
	static const unsigned leaves[LEAVES] = { 0, 1, 2, 3 };
	static const uint8_t mac_a[6] = { 0x02, 0x42, 0, 0, 0, 0x0a };
	static const uint8_t mac_b[6] = { 0x02, 0x42, 0, 0, 0, 0x0b };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const uint8_t leaf3_mac[6] = { 2, 0x1f, 0, 3, 0, 0 };
	struct rte_mbuf *out[N_PKTS + 1];
	aif_time_ns now = 0;
	unsigned k;

	(void)state;
	F.dst_ip = 0x0a030002; /* leaf3-0 */
	build_from(learn_json, leaves, 0);
	json_t *nb = neighbor_of("leaf3", "10.3.0.2");
	assert_non_null(nb);
	assert_string_equal(json_string_value(json_object_get(nb, "type")), "unresolved");
	assert_true(json_is_true(json_object_get(nb, "configured")));
	json_decref(nb);

	/* before leaf3-0 has spoken: dropped at leaf3, which asks for it */
	assert_int_equal(rte_ring_enqueue(F.rx[0], udp_frame(49152)), 0);
	run_to(&now, 10000);
	k = rte_ring_dequeue_burst(F.tx[3], (void **)out, N_PKTS, NULL);
	assert_int_equal(k, 1);
	const uint8_t *f = rte_pktmbuf_mtod(out[0], const uint8_t *);
	assert_memory_equal(f, bcast, 6);
	assert_memory_equal(f + 6, leaf3_mac, 6);
	assert_int_equal(f[12], 0x08);
	assert_int_equal(f[13], 0x06);
	assert_int_equal(f[21], 1); /* request: who has 10.3.0.2? tell 10.3.0.1 */
	static const uint8_t who[4] = { 10, 3, 0, 2 }, tell[4] = { 10, 3, 0, 1 };
	assert_memory_equal(f + 38, who, 4);
	assert_memory_equal(f + 28, tell, 4);
	rte_pktmbuf_free(out[0]);
	uint64_t unresolved = 0; /* counted on the uplink it came by */
	for (uint16_t p = 0; p < F.fab.sw[3]->n_ports; p++) {
		struct aif_port_ctr c;
		aif_switch_port_counters(F.fab.sw[3], p, &c);
		unresolved += c.drops[AIF_DROP_NEIGH_UNRESOLVED];
	}
	assert_int_equal(unresolved, 1);

	/* the host answers: learned */
	assert_int_equal(rte_ring_enqueue(F.rx[3], arp_frame(2, leaf3_mac, mac_b, 0x0a030002,
							     0x0a030001)), 0);
	run_to(&now, 20000);
	nb = neighbor_of("leaf3", "10.3.0.2");
	assert_string_equal(json_string_value(json_object_get(nb, "type")), "learned");
	assert_string_equal(json_string_value(json_object_get(nb, "mac")), "02:42:00:00:00:0b");
	json_decref(nb);

	/* now the frames reach it, at its own MAC */
	for (uint16_t i = 0; i < N_PKTS; i++)
		assert_int_equal(rte_ring_enqueue(F.rx[0], udp_frame((uint16_t)(49152 + i))), 0);
	run_to(&now, 100000);
	k = rte_ring_dequeue_burst(F.tx[3], (void **)out, N_PKTS + 1, NULL);
	assert_int_equal(k, N_PKTS);
	for (unsigned i = 0; i < k; i++) {
		f = rte_pktmbuf_mtod(out[i], const uint8_t *);
		assert_memory_equal(f, mac_b, 6);
		assert_int_equal(f[14 + 8], 61);
		rte_pktmbuf_free(out[i]);
	}

	/* a load undone (every switch gives back what it took: no params) keeps
	 * the hosts the running config names, learned or not yet */
	aif_switch_gc_neighbors(F.fab.sw[0], F.fab.sw[0]->tables, NULL);
	aif_switch_gc_neighbors(F.fab.sw[3], F.fab.sw[3]->tables, NULL);
	nb = neighbor_of("leaf3", "10.3.0.2");
	assert_true(json_is_true(json_object_get(nb, "configured")));
	assert_string_equal(json_string_value(json_object_get(nb, "type")), "learned");
	json_decref(nb);
	nb = neighbor_of("leaf0", "10.0.0.2");
	assert_non_null(nb);
	assert_true(json_is_true(json_object_get(nb, "configured")));
	json_decref(nb);

	/* leaf0-0's gratuitous ARP: who has 10.0.0.2, from 10.0.0.2, broadcast */
	assert_int_equal(rte_ring_enqueue(F.rx[0], arp_frame(1, bcast, mac_a, 0x0a000002,
							     0x0a000002)), 0);
	run_to(&now, 110000);
	nb = neighbor_of("leaf0", "10.0.0.2");
	assert_string_equal(json_string_value(json_object_get(nb, "type")), "learned");
	assert_string_equal(json_string_value(json_object_get(nb, "mac")), "02:42:00:00:00:0a");
	json_decref(nb);
	free_ring(F.tx[0]);
	F.dst_ip = 0x0a000002;
	assert_int_equal(rte_ring_enqueue(F.rx[3], udp_from(3, 49152, 0)), 0);
	run_to(&now, 200000);
	k = rte_ring_dequeue_burst(F.tx[0], (void **)out, N_PKTS + 1, NULL);
	assert_int_equal(k, 1); /* the frame itself, no ARP request first */
	f = rte_pktmbuf_mtod(out[0], const uint8_t *);
	assert_memory_equal(f, mac_a, 6);
	assert_int_equal(f[12], 0x08);
	assert_int_equal(f[13], 0x00);
	rte_pktmbuf_free(out[0]);
	unbuild();
}

/*
 * traceroute from leaf0-0 to leaf3-0: probes with TTL 1, 2, 3 come back
 * to the host as ICMP time exceeded from leaf0 (10.0.0.1, its port on the
 * host's subnet), from the spine the flow crossed (its port facing leaf0)
 * and from leaf3 (its uplink from that spine), each having come back
 * through the switches before it (TTL 64, 63, 62 at the host); a probe
 * with TTL 4 reaches leaf3-0 with TTL 1.
 */
static void
test_traceroute(void **state)
{
	struct rte_mbuf *out[8];
	aif_time_ns now = 0;
	uint32_t from[4] = { 0 };
	uint8_t ttl_back[4] = { 0 };

	(void)state;
	build(0);
	for (uint8_t ttl = 1; ttl <= 4; ttl++) {
		struct rte_mbuf *m = udp_frame(33434);
		uint8_t *ip = rte_pktmbuf_mtod_offset(m, uint8_t *, 14);
		ip[8] = ttl;
		((struct rte_ipv4_hdr *)ip)->hdr_checksum = 0;
		((struct rte_ipv4_hdr *)ip)->hdr_checksum = rte_ipv4_cksum((struct rte_ipv4_hdr *)ip);
		assert_int_equal(rte_ring_enqueue(F.rx[0], m), 0);
		run_to(&now, now + 20000);
		unsigned k = rte_ring_dequeue_burst(ttl < 4 ? F.tx[0] : F.tx[3], (void **)out, 8, NULL);
		assert_int_equal(k, 1);
		const uint8_t *f = rte_pktmbuf_mtod(out[0], const uint8_t *);
		if (ttl < 4) {
			assert_int_equal(f[14 + 9], 1);   /* ICMP */
			assert_int_equal(f[34], 11);      /* time exceeded */
			assert_int_equal(f[34 + 8 + 9], 17); /* quoting the UDP probe */
			from[ttl - 1] = rte_be_to_cpu_32(((const struct rte_ipv4_hdr *)(f + 14))->src_addr);
			ttl_back[ttl - 1] = f[14 + 8];
		} else {
			assert_int_equal(f[14 + 8], 1);
		}
		rte_pktmbuf_free(out[0]);
	}
	print_message("hops: %08x %08x %08x\n", from[0], from[1], from[2]);
	assert_int_equal(from[0], 0x0a000001);
	/* leaf i to spine s is link i * 2 + s: 172.16.0.(2k) at the leaf, +1 at the spine */
	assert_true(from[1] == 0xac100001 || from[1] == 0xac100003);
	unsigned s = (from[1] & 0xff) == 1 ? 0 : 1;
	assert_int_equal(from[2], 0xac100000u + 2 * (3 * 2 + s));
	assert_int_equal(ttl_back[0], 64);
	assert_int_equal(ttl_back[1], 63);
	assert_int_equal(ttl_back[2], 62);
	/* counted where the probes expired */
	struct aif_port_ctr c;
	aif_switch_port_counters(F.fab.sw[0], 0, &c);
	assert_int_equal(c.icmp_time_exceeded, 1);
	unbuild();
}

/* Control's reply to line (a new reference). */
static json_t *
ctl(const char *line)
{
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &F.ctl);
	json_t *r = json_loads(reply, 0, NULL);
	free(reply);
	assert_non_null(r);
	return r;
}

/*
 * The generated fabric through control: status names all six switches; a
 * load of the same topology with other uplink rates, or another wire model,
 * is refused, saying which link and why, and the links keep theirs; the same topology
 * again loads, naming every switch.
 */
static void
test_load_generated(void **state)
{
	static char line[4096];
	json_t *r;

	(void)state;
	build(0);
	r = ctl("{\"cmd\": \"status\"}");
	json_t *names = json_object_get(json_object_get(r, "result"), "switches");
	assert_int_equal(json_array_size(names), 6);
	assert_string_equal(json_string_value(json_array_get(names, 5)), "spine1");
	json_decref(r);

	const char *at = strstr(config_json, "\"uplink_gbps\": 100");
	assert_non_null(at);
	snprintf(line, sizeof(line), "{\"cmd\": \"load\", \"config\": %.*s\"uplink_gbps\": 40%s}",
		 (int)(at - config_json), config_json, at + strlen("\"uplink_gbps\": 100"));
	r = ctl(line);
	assert_false(json_is_true(json_object_get(r, "ok")));
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "$.links[0].rate_gbps: 40 Gb/s (as $.topology generates them), the "
			    "running link leaf0:u0-spine0:d0 runs at 100 Gb/s: a link's rate is set "
			    "when the fabric starts (restart to change it)");
	json_decref(r);
	for (uint32_t k = 0; k < F.fab.n_links; k++)
		assert_int_equal(F.fab.link[k]->p.rate_bps, 100000000000ull);
	/* nor another wire model (the links', set at start) */
	assert_int_equal(config_json[0], '{');
	snprintf(line, sizeof(line), "{\"cmd\": \"load\", \"config\": {\"wire_model\": \"ns3\", %s}",
		 config_json + 1);
	r = ctl(line);
	assert_false(json_is_true(json_object_get(r, "ok")));
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "$.links[0].wire_model: \"ns3\" (as $.topology generates them), the "
			    "running link leaf0:u0-spine0:d0 has \"ethernet\": a link's wire model is "
			    "set when the fabric starts (restart to change it)");
	json_decref(r);
	for (uint32_t k = 0; k < F.fab.n_links; k++)
		assert_int_equal(F.fab.link[k]->p.wire_model, AIF_WIRE_ETHERNET);

	snprintf(line, sizeof(line), "{\"cmd\": \"load\", \"config\": %s}", config_json);
	r = ctl(line);
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_t *sws = json_object_get(json_object_get(r, "result"), "switches");
	assert_int_equal(json_array_size(sws), 6);
	assert_string_equal(json_string_value(json_object_get(json_array_get(sws, 4), "switch")),
			    "spine0");
	json_decref(r);
	unbuild();
}

#define INCAST_BUDGET 1500      /* frames per sender */
#define INCAST_GAP_NS 100       /* a sender's frames: ~83 Gb/s each */
#define PRIO 3                  /* DSCP 26 -> TC 3, lossless by default */

struct incast_result {
	unsigned delivered;
	uint64_t digest;            /* of (time, sender, seq) of every delivery */
	uint64_t host_xoff[3];      /* PFC XOFF the senders' leaves sent them */
	uint64_t link_pfc[8][2];    /* control frames per link direction */
	aif_time_ns end_ns;
};

/* A QoS counter of port p of switch i: PFC XOFF frames it sent for PRIO. */
static uint64_t
tx_xoff(unsigned i, uint16_t p)
{
	return F.fab.sw[i]->qos->port[p].pfc_tx.ctr.tx_pfc[PRIO];
}

/*
 * Incast: leaf0-0, leaf1-0 and leaf2-0 send lossless traffic to leaf3-0,
 * whose port is shaped to 10 Gb/s.  The senders obey the PFC their leaves
 * send them.  Stepped at injections and at the runner's next events.
 */
static void
run_incast(struct incast_result *res)
{
	aif_time_ns now = 0, next_inj = 0, paused_until[3] = { 0 };
	unsigned sent[3] = { 0 }, total = 3 * INCAST_BUDGET;
	struct rte_mbuf *m[64];

	memset(res, 0, sizeof(*res));
	build(10000000000ull);
	while (res->delivered < total && now < 50 * AIF_NS_PER_MS) {
		if (now >= next_inj) {
			for (unsigned s = 0; s < 3; s++)
				if (sent[s] < INCAST_BUDGET && now >= paused_until[s]) {
					uint32_t seq = sent[s]++;
					struct rte_mbuf *f = udp_from(s, (uint16_t)(49152 + seq % 64), 26);
					memcpy(rte_pktmbuf_mtod_offset(f, void *, 42), &seq, sizeof(seq));
					assert_int_equal(rte_ring_enqueue(F.rx[s], f), 0);
				}
			next_inj = now + INCAST_GAP_NS;
		}
		aif_runner_step(F.w, now);
		unsigned k;
		while ((k = rte_ring_dequeue_burst(F.tx[3], (void **)m, 64, NULL)) > 0) {
			for (unsigned j = 0; j < k; j++) {
				const uint8_t *f = rte_pktmbuf_mtod(m[j], const uint8_t *);
				uint32_t seq;
				memcpy(&seq, f + 42, sizeof(seq));
				res->digest = (res->digest ^ (now * 1000003u + f[29] * 7919u + seq)) *
					      0x100000001b3ull;
			}
			res->delivered += k;
			res->end_ns = now; /* the last delivery */
			rte_pktmbuf_free_bulk(m, k);
		}
		/* what the senders' leaves sent them: PFC only */
		for (unsigned s = 0; s < 3; s++)
			while ((k = rte_ring_dequeue_burst(F.tx[s], (void **)m, 64, NULL)) > 0) {
				for (unsigned j = 0; j < k; j++) {
					struct aif_pfc_rx pf;
					assert_int_equal(aif_pfc_frame_parse(rte_pktmbuf_mtod(m[j],
						const uint8_t *), rte_pktmbuf_data_len(m[j]), &pf), 0);
					if (!((pf.class_enable >> PRIO) & 1))
						continue;
					if (pf.quanta[PRIO] != 0) {
						res->host_xoff[s]++;
						paused_until[s] = now + aif_pfc_quanta_to_ns(
							pf.quanta[PRIO], 100000000000ull);
					} else {
						paused_until[s] = now;
					}
				}
				rte_pktmbuf_free_bulk(m, k);
			}
		aif_time_ns nx = aif_runner_next_event_ns(F.w, now);
		bool sending = false;
		for (unsigned s = 0; s < 3; s++)
			sending = sending || sent[s] < INCAST_BUDGET;
		if (sending && next_inj < nx)
			nx = next_inj;
		if (nx == AIF_TIME_NS_NEVER)
			break;
		now = nx > now ? nx : now + 1;
	}
	for (uint32_t l = 0; l < F.fab.n_links && l < 8; l++)
		for (int d = 0; d < 2; d++)
			res->link_pfc[l][d] = F.fab.link[l]->dir[d].ctr.tx_ctrl;
}

static void
test_incast_pfc(void **state)
{
	struct incast_result a, b;
	struct aif_port_ctr c;

	(void)state;
	run_incast(&a);
	print_message("incast: %u frames delivered in %.6f ms of fabric time; XOFF to the "
		      "senders %lu %lu %lu\n", a.delivered, (double)a.end_ns / 1e6,
		      (unsigned long)a.host_xoff[0], (unsigned long)a.host_xoff[1],
		      (unsigned long)a.host_xoff[2]);
	assert_int_equal(a.delivered, 3 * INCAST_BUDGET);
	/* the 10 Gb/s port was never idle: 4,500 frames of 1,066 wire bytes
	 * (852.8 ns each) from the first one's arrival, 2 us in */
	assert_true(a.end_ns < 2 * AIF_NS_PER_US + 4500ull * 8528 / 10 + AIF_NS_PER_US);
	/* zero drops, fabric-wide */
	for (uint16_t i = 0; i < F.fab.n_sw; i++)
		for (uint16_t p = 0; p < F.fab.sw[i]->n_ports; p++) {
			aif_switch_port_counters(F.fab.sw[i], p, &c);
			for (unsigned r = AIF_DROP_FIRST; r < AIF_DROP_MAX; r++)
				if (c.drops[r] != 0)
					fail_msg("%s %s: %lu %s", F.fab.sw[i]->name,
						 F.fab.sw[i]->ports[p].name, (unsigned long)c.drops[r],
						 aif_drop_name(r));
		}
	/* pauses go upstream hop by hop: leaf3 to the spines, the spines to
	 * the senders' leaves, those leaves to the senders */
	for (uint16_t u = 0; u < 2; u++)
		assert_true(tx_xoff(3, (uint16_t)(1 + u)) > 0);    /* leaf3 u0, u1 */
	for (unsigned sp = 0; sp < 2; sp++)
		for (uint16_t d = 0; d < 3; d++)
			assert_true(tx_xoff(4 + sp, d) > 0);        /* spine d0..d2 */
	for (unsigned s = 0; s < 3; s++) {
		assert_true(tx_xoff(s, 0) > 0);                     /* leaf h0 */
		assert_true(a.host_xoff[s] > 0);
	}
	/* per link: leaf3's links (6, 7) carried PFC towards the spines */
	assert_true(a.link_pfc[6][0] > 0 && a.link_pfc[7][0] > 0);
	assert_true(a.link_pfc[0][1] > 0); /* spine0 -> leaf0 */
	unbuild();

	/* the same run again: the same deliveries at the same times */
	run_incast(&b);
	assert_int_equal(b.delivered, a.delivered);
	assert_int_equal(b.digest, a.digest);
	assert_int_equal(b.end_ns, a.end_ns);
	assert_memory_equal(b.link_pfc, a.link_pfc, sizeof(a.link_pfc));
	assert_memory_equal(b.host_xoff, a.host_xoff, sizeof(a.host_xoff));
	unbuild();
}

/*
 * A generated k=4 fat-tree: 32 flows from pod0-edge0-0 to pod3-edge1-0 go
 * up through both aggregations and several cores and down again, five
 * switches each (TTL 59), the first arriving after exactly four hops of
 * serialization plus 1 us.
 */
static void
test_fat_tree_forwarding(void **state)
{
	static const unsigned edges[LEAVES] = { 0, 4, 8, 13 }; /* pod3-edge1 last */
	struct rte_mbuf *out[N_PKTS + 1];
	aif_time_ns first = 0, now = 0;
	unsigned n_out = 0;

	(void)state;
	F.dst_ip = 0x0a030202; /* pod3-edge1-0: 10.3.(1 * 2 + 0).2 */
	build_from("{\"topology\": {\"fat_tree\": {\"k\": 4}}}", edges, 0);
	assert_string_equal(F.fab.sw[13]->name, "pod3-edge1");
	for (uint16_t i = 0; i < N_PKTS; i++)
		assert_int_equal(rte_ring_enqueue(F.rx[0], udp_frame((uint16_t)(49152 + i))), 0);
	for (;;) {
		aif_runner_step(F.w, now);
		unsigned k = rte_ring_dequeue_burst(F.tx[3], (void **)&out[n_out],
						    N_PKTS + 1 - n_out, NULL);
		if (k != 0 && n_out == 0)
			first = now;
		n_out += k;
		aif_time_ns next = aif_runner_next_event_ns(F.w, now);
		if (n_out >= N_PKTS || next == AIF_TIME_NS_NEVER || next > AIF_NS_PER_MS / 2)
			break;
		now = next;
	}
	assert_int_equal(n_out, N_PKTS);
	assert_int_equal(first, 4 * (86 + 1000));
	for (unsigned i = 0; i < n_out; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[i], const uint8_t *);
		static const uint8_t dmac[6] = { 2, 0x0a, 0, 13, 0, 2 }, smac[6] = { 2, 0x1f, 0, 13, 0, 0 };
		assert_memory_equal(f, dmac, 6);
		assert_memory_equal(f + 6, smac, 6);
		assert_int_equal(f[14 + 8], 59); /* edge, agg, core, agg, edge */
		rte_pktmbuf_free(out[i]);
	}
	/* the aggregation -> core links that carried them: more than one */
	unsigned cores_used = 0;
	for (uint32_t l = 0; l < F.fab.n_links; l++) {
		const char *a = F.fab.link[l]->name;
		if (strncmp(a, "pod0-agg", 8) == 0 && F.fab.link[l]->dir[0].ctr.tx_packets > 0)
			cores_used++;
	}
	print_message("pod0's aggregations used %u core links\n", cores_used);
	assert_true(cores_used >= 2);
	unbuild();
}

/*
 * A spine link fails mid-run.  Host leaf0-0 sends 64 flows to leaf3-0 and
 * leaf3-0 64 back, a frame each way every 250 ns (about 34 Gb/s), over
 * both spines; at 40 us the link leaf0-spine0 goes down (aif_ctl_link_set:
 * the fabric generated again without it, one routing update for every
 * switch at that instant).  From then on nothing more crosses it, every
 * flow goes by spine1 both ways (leaf3 stops sending leaf0's traffic to
 * spine0); the only frames lost are those on its wire at that moment,
 * counted as lost_down; no switch drops anything.  At 80 us the link
 * comes back and flows use it again.
 */
#define FAIL_FLOWS 64
#define FAIL_GAP_NS 250

/* Send (when send) and step from from to to; the frames leaf3-0 got. */
static unsigned
fail_run(aif_time_ns from, aif_time_ns to, unsigned *seq, int send)
{
	struct rte_mbuf *out[64];
	aif_time_ns now = from, next_tx = from;
	unsigned got = 0, k;

	while (now < to) {
		if (send && now >= next_tx) {
			/* leaf0-0 to leaf3-0, and leaf3-0 back to leaf0-0 */
			struct rte_mbuf *m = udp_from(0, (uint16_t)(49152 + *seq % FAIL_FLOWS), 26);
			assert_int_equal(rte_ring_enqueue(F.rx[0], m), 0);
			F.dst_ip = 0x0a000002;
			m = udp_from(3, (uint16_t)(49152 + *seq % FAIL_FLOWS), 26);
			F.dst_ip = 0x0a030002;
			assert_int_equal(rte_ring_enqueue(F.rx[3], m), 0);
			(*seq)++;
			next_tx += FAIL_GAP_NS;
		}
		aif_runner_step(F.w, now);
		while ((k = rte_ring_dequeue_burst(F.tx[3], (void **)out, 64, NULL)) > 0) {
			got += k;
			rte_pktmbuf_free_bulk(out, k);
		}
		while ((k = rte_ring_dequeue_burst(F.tx[0], (void **)out, 64, NULL)) > 0) {
			F.back += k;
			rte_pktmbuf_free_bulk(out, k);
		}
		aif_time_ns next = aif_runner_next_event_ns(F.w, now);
		now = RTE_MAX(next, now + 1);
		if (send)
			now = RTE_MIN(now, next_tx);
	}
	return got;
}

static void
test_spine_link_failure(void **state)
{
	char err[AIF_ERR_MAX] = "";
	unsigned seq = 0, got = 0;
	struct aif_link *u0 = NULL;

	(void)state;
	build(0);
	int k = aif_ctl_find_link(&F.ctl, "leaf0:u0");
	assert_true(k >= 0);
	u0 = F.fab.link[k];
	assert_int_equal(aif_ctl_find_link(&F.ctl, u0->name), k);
	struct aif_link *u1 = F.fab.link[aif_ctl_find_link(&F.ctl, "leaf0:u1")];

	F.back = 0;
	got += fail_run(0, 40000, &seq, 1);
	/* the way back crossed spine0 too */
	struct aif_link *d0 = F.fab.link[k];
	assert_true(d0->dir[1].ctr.tx_packets > 40);
	uint64_t before0 = u0->dir[0].ctr.tx_packets, before1 = u1->dir[0].ctr.tx_packets;
	assert_true(before0 > 40 && before1 > 40);
	assert_int_equal(aif_ctl_link_set(&F.ctl, (uint32_t)k, 0, -1, -1, 40000, err,
					  sizeof(err)), 0);
	assert_int_equal(F.fab.sw[0]->ports[F.fab.sw[0]->n_ports - 2].link_up, 0);
	got += fail_run(40000, 80000, &seq, 1);
	/* nothing more crossed the failed link; everything went by spine1 */
	assert_int_equal(u0->dir[0].ctr.tx_packets, before0);
	uint64_t lost = u0->dir[0].ctr.lost_down + u0->dir[0].ctr.dropped_down;
	print_message("at the failure: %lu on the wire lost, %lu handed to the down link\n",
		      (unsigned long)u0->dir[0].ctr.lost_down,
		      (unsigned long)u0->dir[0].ctr.dropped_down);
	assert_int_equal(u0->dir[0].ctr.dropped_down, 0);
	/* at most the frames sent in the last delay + serialization (1086 ns) */
	assert_true(u0->dir[0].ctr.lost_down >= 1 &&
		    u0->dir[0].ctr.lost_down <= 1086 / FAIL_GAP_NS + 1);
	uint64_t after1 = u1->dir[0].ctr.tx_packets - before1;
	assert_true(after1 >= 40000 / FAIL_GAP_NS - 8);

	/* the link comes back: its flows return to it */
	assert_int_equal(aif_ctl_link_set(&F.ctl, (uint32_t)k, 1, -1, -1, 80000, err,
					  sizeof(err)), 0);
	got += fail_run(80000, 120000, &seq, 1);
	uint64_t back0 = u0->dir[0].ctr.tx_packets - before0;
	print_message("back up: %lu frames on leaf0:u0 again\n", (unsigned long)back0);
	assert_true(back0 > 40);
	/* drain, then account for every frame, both ways: the way back lost
	 * only what was on spine0 -> leaf0's wire at the failure, no switch
	 * dropped anything (spine0 stopped being a way to leaf0 for every
	 * switch at that instant) */
	got += fail_run(120000, 140000, &seq, 0);
	assert_int_equal(got + lost, seq);
	print_message("the way back: %u of %u, %lu lost on the failed link's wire\n", F.back,
		      seq, (unsigned long)d0->dir[1].ctr.lost_down);
	assert_int_equal(F.back + d0->dir[1].ctr.lost_down + d0->dir[1].ctr.dropped_down, seq);
	assert_int_equal(d0->dir[1].ctr.dropped_down, 0);
	for (uint16_t i = 0; i < F.fab.n_sw; i++)
		for (uint16_t p = 0; p < F.fab.sw[i]->n_ports; p++) {
			struct aif_port_ctr c;
			aif_switch_port_counters(F.fab.sw[i], p, &c);
			for (unsigned r = 0; r < AIF_DROP_MAX; r++)
				if (c.drops[r])
					fail_msg("%s:%s dropped %lu (%s)", F.fab.sw[i]->name,
						 F.fab.sw[i]->ports[p].name, (unsigned long)c.drops[r],
						 aif_drop_name(r));
		}
	unbuild();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_to_leaf),
		cmocka_unit_test(test_real_hosts_learned),
		cmocka_unit_test(test_traceroute),
		cmocka_unit_test(test_load_generated),
		cmocka_unit_test(test_incast_pfc),
		cmocka_unit_test(test_fat_tree_forwarding),
		cmocka_unit_test(test_spine_link_failure),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
