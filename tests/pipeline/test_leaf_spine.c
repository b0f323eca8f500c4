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

#include "eal_cleanup.h"
#include "clock.h"
#include "commands.h"
#include "config.h"
#include "ctl_server.h"
#include "fabric.h"
#include "worker.h"

#define N_PKTS 32
#define PAYLOAD 1000
#define LEAVES 4

static const char config_json[] =
	"{\"topology\": {\"leaf_spine\": {\"leaves\": 4, \"spines\": 2, \"hosts_per_leaf\": 1,"
	" \"host_gbps\": 100, \"uplink_gbps\": 100, \"delay_ns\": 1000,"
	" \"host_devices\": [\"ls_e0\", \"ls_e1\", \"ls_e2\", \"ls_e3\"]}}}";

static struct {
	struct rte_mempool *pool;
	struct aif_config *cfg;
	struct aif_fabric fab;
	struct aif_ctl ctl;
	struct aif_worker *w;
	struct rte_ring *rx[LEAVES], *tx[LEAVES];
	uint16_t pid[LEAVES];
} F;

/* Host port h0 of leaf i: a ring PMD ethdev named as its config device. */
static int
bind_edge(unsigned i)
{
	struct aif_switch *sw = F.fab.sw[i];
	const char *dev = F.cfg->switches[i].ports[0].device;
	struct rte_eth_conf conf;
	char name[32];

	snprintf(name, sizeof(name), "ls_rx%u", i);
	F.rx[i] = rte_ring_create(name, 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "ls_tx%u", i);
	F.tx[i] = rte_ring_create(name, 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (F.rx[i] == NULL || F.tx[i] == NULL)
		return -1;
	int pid = rte_eth_from_rings(dev, &F.rx[i], 1, &F.tx[i], 1, 0);
	memset(&conf, 0, sizeof(conf));
	if (pid < 0 || rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup((uint16_t)pid, 0, 256, 0, NULL, F.pool) != 0 ||
	    rte_eth_tx_queue_setup((uint16_t)pid, 0, 256, 0, NULL) != 0 ||
	    rte_eth_dev_start((uint16_t)pid) != 0)
		return -1;
	F.pid[i] = (uint16_t)pid;
	sw->ports[0].link_up = 1;
	aif_port_init_dpdk(&sw->ports[0], 0, (uint16_t)pid);
	return 0;
}

static int
setup(void **state)
{
	char prefix[64], err[AIF_ERR_MAX] = "";

	(void)state;
	snprintf(prefix, sizeof(prefix), "aif-pl-leafspine-%d", (int)getpid());
	char *argv[] = {
		"test_leaf_spine", "--no-huge", "-m", "512", "--no-pci", "--no-shconf",
		"--no-telemetry", "--file-prefix", prefix, "-l", "0", "--log-level", "error",
	};
	if (rte_eal_init((int)RTE_DIM(argv), argv) < 0)
		return -1;
	F.pool = rte_pktmbuf_pool_create("ls_pool", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (F.pool == NULL ||
	    aif_config_parse(config_json, strlen(config_json), &F.cfg, err, sizeof(err)) != 0 ||
	    aif_fabric_build(&F.fab, F.cfg, F.pool, 1, err, sizeof(err)) != 0) {
		fprintf(stderr, "setup: %s\n", err);
		return -1;
	}
	for (unsigned i = 0; i < LEAVES; i++)
		if (bind_edge(i) != 0)
			return -1;
	aif_clock_init_virtual(&F.ctl.clock, 0);
	for (uint16_t i = 0; i < F.fab.n_sw; i++)
		aif_ctl_add_switch(&F.ctl, F.fab.sw[i]);
	if (aif_ctl_apply_config(&F.ctl, aif_config_ref(F.cfg), err, sizeof(err)) != 0) {
		fprintf(stderr, "load: %s\n", err);
		return -1;
	}
	/* one runner: every switch, every port */
	F.w = aif_worker_create(F.fab.sw[0], 0, 0x5eed);
	if (F.w == NULL)
		return -1;
	for (uint16_t i = 1; i < F.fab.n_sw; i++)
		if (aif_worker_add_switch(F.w, F.fab.sw[i], 0, 0x5eed) != i)
			return -1;
	for (uint16_t i = 0; i < F.fab.n_sw; i++)
		for (uint16_t p = 0; p < F.fab.sw[i]->n_ports; p++)
			if (aif_worker_add_rxq_of(F.w, i, p, 0) != 0)
				return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	aif_worker_free(F.w);
	for (unsigned i = 0; i < LEAVES; i++) {
		rte_eth_dev_stop(F.pid[i]);
		rte_eth_dev_close(F.pid[i]);
	}
	aif_fabric_free(&F.fab);
	for (unsigned i = 0; i < LEAVES; i++) {
		rte_ring_free(F.rx[i]);
		rte_ring_free(F.tx[i]);
	}
	aif_config_free(F.ctl.cfg);
	aif_config_free(F.cfg);
	rte_mempool_free(F.pool);
	test_eal_cleanup();
	return 0;
}

/* UDP from leaf0-0 (10.0.0.2) to leaf3-0 (10.3.0.2), source port sport. */
static struct rte_mbuf *
udp_frame(uint16_t sport)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(F.pool);
	uint16_t l3 = (uint16_t)(20 + 8 + PAYLOAD);
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + l3));
	static const uint8_t dmac[6] = { 2, 0x1f, 0, 0, 0, 0 }, smac[6] = { 2, 0x0a, 0, 0, 0, 2 };

	assert_non_null(f);
	memset(f, 0, 14 + l3);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(l3);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000002);
	ip->dst_addr = rte_cpu_to_be_32(0x0a030002);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uint8_t *udp = f + 34;
	udp[0] = (uint8_t)(sport >> 8); udp[1] = (uint8_t)sport;
	udp[2] = 0x12; udp[3] = 0xb7;                  /* 4791 */
	udp[4] = (uint8_t)((8 + PAYLOAD) >> 8); udp[5] = (uint8_t)(8 + PAYLOAD);
	return m;
}

static void
test_leaf_to_leaf(void **state)
{
	struct rte_mbuf *out[N_PKTS + 1];
	aif_time_ns first = 0, now = 0;
	unsigned n_out = 0;

	(void)state;
	for (uint16_t i = 0; i < N_PKTS; i++)
		assert_int_equal(rte_ring_enqueue(F.rx[0], udp_frame((uint16_t)(49152 + i))), 0);
	for (;;) {
		aif_worker_step(F.w, now);
		unsigned k = rte_ring_dequeue_burst(F.tx[3], (void **)&out[n_out],
						    N_PKTS + 1 - n_out, NULL);
		if (k != 0 && n_out == 0)
			first = now;
		n_out += k;
		aif_time_ns next = aif_worker_next_event_ns(F.w, now);
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
}

/* The computed routes and groups, seen through control. */
static void
test_show_computed_routes(void **state)
{
	char *reply;
	json_t *r, *res;
	const char *line = "{\"cmd\": \"show_groups\", \"switch\": \"leaf0\"}";

	(void)state;
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_to_leaf),
		cmocka_unit_test(test_show_computed_routes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
