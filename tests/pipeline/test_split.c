/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A generated 2-leaf x 2-spine fabric split over two daemons ("emulate",
 * "link_devices"), both built in this process in virtual time: half A runs
 * leaf0, half B leaf1 and both spines, each with its own control and
 * runner.  The cut links leaf0:u<k>-spine<k>:d0 are pairs of rings, one
 * ring PMD port on each side, as a veth pair would be with net_af_packet.
 *
 * Frames from host leaf0-0 reach leaf1-0 routed three times (TTL 61, the
 * host's MAC from leaf1's port), ECMP spreading them over both cut links,
 * and back; after B's emulated link leaf1-spine0 goes down and up again
 * (aif_ctl_link_set), B still routes to leaf0's hosts, which only the
 * whole fabric's routes know of.
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

#include "clock.h"
#include "commands.h"
#include "config.h"
#include "ctl_server.h"
#include "fabric.h"
#include "runner.h"

#include "test_eal.h"

#define N_PKTS 16
#define PAYLOAD 500
#define STEP_NS 100

#define SPLIT_TOPO(part)                                                                   \
	"{\"topology\": {\"leaf_spine\": {\"leaves\": 2, \"spines\": 2,"                  \
	" \"host_devices\": [{\"device\": \"sp_h0\", \"mac\": \"02:0a:00:00:00:02\"},"     \
	" {\"device\": \"sp_h1\", \"mac\": \"02:0a:00:01:00:02\"}], " part "}}}"

static const char *const half_json[2] = {
	SPLIT_TOPO("\"emulate\": [\"leaf0\"],"
		   " \"link_devices\": {\"leaf0:u0\": \"sp_a0\", \"leaf0:u1\": \"sp_a1\"}"),
	SPLIT_TOPO("\"emulate\": [\"leaf1\", \"spine0\", \"spine1\"],"
		   " \"link_devices\": {\"spine0:d0\": \"sp_b0\", \"spine1:d0\": \"sp_b1\"}"),
};

/* One daemon: its config, switches, control and runner; its host port's
 * rings (h0 of its leaf) and its end of the wire. */
struct half {
	struct aif_config *cfg;
	struct aif_fabric fab;
	struct aif_ctl ctl;
	struct aif_runner *w;
	struct rte_ring *host_rx, *host_tx;
	uint16_t pid[3]; /* host port, wire ports to spine0, spine1 */
};

static struct {
	struct rte_mempool *pool;
	struct rte_ring *wire[2][2]; /* cut link k: [k][0] A to B, [k][1] B to A */
	struct half h[2];
} F;

/* Port p of switch s of half x on a ring PMD port over rx and tx. */
static uint16_t
bind_port(struct half *x, uint16_t s, uint16_t p, const char *name, struct rte_ring *rx,
	  struct rte_ring *tx)
{
	struct rte_eth_conf conf;
	int pid = rte_eth_from_rings(name, &rx, 1, &tx, 1, 0);

	memset(&conf, 0, sizeof(conf));
	assert_true(pid >= 0);
	assert_int_equal(rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup((uint16_t)pid, 0, 256, 0, NULL, F.pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup((uint16_t)pid, 0, 256, 0, NULL), 0);
	assert_int_equal(rte_eth_dev_start((uint16_t)pid), 0);
	aif_port_set_link_up(&x->fab.sw[s]->ports[p], true);
	aif_port_init_dpdk(&x->fab.sw[s]->ports[p], p, (uint16_t)pid);
	return (uint16_t)pid;
}

static struct rte_ring *
ring(const char *name)
{
	struct rte_ring *r = rte_ring_create(name, 1024, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(r);
	return r;
}

/* Half i as its daemon would build it: the wires are the ports the config
 * gives a device on the cut links (A: leaf0 u0, u1; B: spine0 d0, spine1
 * d0). */
static void
build_half(unsigned i)
{
	struct half *x = &F.h[i];
	char err[AIF_ERR_MAX] = "", name[32];

	memset(&x->fab, 0, sizeof(x->fab));
	memset(&x->ctl, 0, sizeof(x->ctl));
	if (aif_config_parse(half_json[i], strlen(half_json[i]), &x->cfg, err, sizeof(err)) != 0)
		fail_msg("config %u: %s", i, err);
	if (aif_fabric_build(&x->fab, x->cfg, F.pool, 1, 0x5eed, err, sizeof(err)) != 0)
		fail_msg("fabric %u: %s", i, err);
	snprintf(name, sizeof(name), "sp_hrx%u", i);
	x->host_rx = ring(name);
	snprintf(name, sizeof(name), "sp_htx%u", i);
	x->host_tx = ring(name);
	snprintf(name, sizeof(name), "sp_h%u", i);
	x->pid[0] = bind_port(x, 0, 0, name, x->host_rx, x->host_tx);  /* leaf<i>:h0 */
	for (uint16_t k = 0; k < 2; k++) {
		uint16_t s = i == 0 ? 0 : 1 + k, wp = i == 0 ? 1 + k : 0; /* u<k>, d0 */
		snprintf(name, sizeof(name), "sp_%c%u", i == 0 ? 'a' : 'b', k);
		assert_string_equal(x->cfg->switches[s].ports[wp].device, name);
		x->pid[1 + k] = bind_port(x, s, wp, name, F.wire[k][1 - i], F.wire[k][i]);
	}
	aif_clock_init_virtual(&x->ctl.clock, 0);
	for (uint16_t s = 0; s < x->fab.n_sw; s++)
		aif_ctl_add_switch(&x->ctl, x->fab.sw[s]);
	x->ctl.links = x->fab.link;
	x->ctl.n_links = x->fab.n_links;
	if (aif_ctl_apply_config(&x->ctl, aif_config_ref(x->cfg), err, sizeof(err)) != 0)
		fail_msg("load %u: %s", i, err);
	x->w = aif_runner_create(x->fab.sw[0], 0, 0x5eed);
	assert_non_null(x->w);
	for (uint16_t s = 1; s < x->fab.n_sw; s++)
		assert_int_equal(aif_runner_add_switch(x->w, x->fab.sw[s], 0, 0x5eed), s);
	for (uint16_t s = 0; s < x->fab.n_sw; s++)
		for (uint16_t p = 0; p < x->fab.sw[s]->n_ports; p++)
			assert_int_equal(aif_runner_add_rxq_of(x->w, s, p, 0), 0);
}

static void
free_ring(struct rte_ring *r)
{
	struct rte_mbuf *m[64];
	unsigned k;

	while ((k = rte_ring_dequeue_burst(r, (void **)m, 64, NULL)) > 0)
		rte_pktmbuf_free_bulk(m, k);
	rte_ring_free(r);
}

static void
unbuild_half(unsigned i)
{
	struct half *x = &F.h[i];

	aif_runner_free(x->w);
	for (unsigned k = 0; k < 3; k++) {
		rte_eth_dev_stop(x->pid[k]);
		rte_eth_dev_close(x->pid[k]);
	}
	aif_fabric_free(&x->fab);
	free_ring(x->host_rx);
	free_ring(x->host_tx);
	aif_config_free(x->ctl.cfg);
	aif_config_free(x->cfg);
}

/* UDP (RoCEv2 port) from host leaf<src>-0 to leaf<1 - src>-0, into its
 * leaf's h0 (the port's MAC, 02:1f:00:0<src>:00:00). */
static struct rte_mbuf *
udp_from(unsigned src, uint16_t sport)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(F.pool);
	uint16_t l3 = (uint16_t)(20 + 8 + PAYLOAD);
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + l3));
	const uint8_t dmac[6] = { 2, 0x1f, 0, (uint8_t)src, 0, 0 };
	const uint8_t smac[6] = { 2, 0x0a, 0, (uint8_t)src, 0, 2 };

	assert_non_null(f);
	memset(f, 0, 14 + l3);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	ip->version_ihl = 0x45;
	ip->type_of_service = 26 << 2;
	ip->total_length = rte_cpu_to_be_16(l3);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0a000002 | (src << 16));
	ip->dst_addr = rte_cpu_to_be_32(0x0a000002 | ((1 - src) << 16));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uint8_t *udp = f + 34;
	udp[0] = (uint8_t)(sport >> 8);
	udp[1] = (uint8_t)sport;
	udp[2] = 0x12;
	udp[3] = 0xb7; /* 4791 */
	udp[4] = (uint8_t)((8 + PAYLOAD) >> 8);
	udp[5] = (uint8_t)(8 + PAYLOAD);
	return m;
}

/* Both halves stepped from *now to *now + span_ns, STEP_NS at a time (the
 * wire between them is a ring, which no runner's next event sees). */
static void
run_for(aif_time_ns *now, aif_time_ns span_ns)
{
	for (aif_time_ns end = *now + span_ns; *now < end; *now += STEP_NS)
		for (unsigned i = 0; i < 2; i++)
			aif_runner_step(F.h[i].w, *now);
}

/* N_PKTS from host leaf<src>-0: every one out of the other leaf's h0,
 * TTL 61, from that leaf's port to the host's MAC, checksum right. */
static void
send_across(unsigned src, aif_time_ns *now)
{
	struct half *from = &F.h[src], *to = &F.h[1 - src];
	struct rte_mbuf *out[N_PKTS + 1];
	const uint8_t dmac[6] = { 2, 0x0a, 0, (uint8_t)(1 - src), 0, 2 };
	const uint8_t smac[6] = { 2, 0x1f, 0, (uint8_t)(1 - src), 0, 0 };

	for (uint16_t k = 0; k < N_PKTS; k++)
		assert_int_equal(rte_ring_enqueue(from->host_rx, udp_from(src, 49152 + k)), 0);
	run_for(now, 20 * AIF_NS_PER_US);
	unsigned n = rte_ring_dequeue_burst(to->host_tx, (void **)out, N_PKTS + 1, NULL);
	assert_int_equal(n, N_PKTS);
	for (unsigned k = 0; k < n; k++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[k], const uint8_t *);
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + 14);
		struct rte_ipv4_hdr h = *ip;

		assert_memory_equal(f, dmac, 6);
		assert_memory_equal(f + 6, smac, 6);
		assert_int_equal(ip->time_to_live, 61); /* leaf, spine, leaf */
		h.hdr_checksum = 0;
		assert_int_equal(rte_ipv4_cksum(&h), ip->hdr_checksum);
		rte_pktmbuf_free(out[k]);
	}
	assert_int_equal(rte_ring_count(from->host_tx), 0);
}

/* The packets switch sw's one group sent by each of its two members,
 * through control (show groups). */
static void
members_packets(struct aif_ctl *c, const char *sw, uint64_t out[2])
{
	char line[96];

	snprintf(line, sizeof(line), "{\"cmd\": \"show_groups\", \"switch\": \"%s\"}", sw);
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, c);
	json_t *r = json_loads(reply, 0, NULL);
	free(reply);
	json_t *res = json_object_get(r, "result");
	assert_int_equal(json_array_size(res), 1);
	json_t *m = json_object_get(json_array_get(res, 0), "members");
	assert_int_equal(json_array_size(m), 2);
	for (size_t i = 0; i < 2; i++)
		out[i] = (uint64_t)json_integer_value(json_object_get(json_array_get(m, i),
								      "packets"));
	json_decref(r);
}

static void
test_split_across(void **state)
{
	char err[AIF_ERR_MAX] = "";
	aif_time_ns now = 0;

	(void)state;
	for (unsigned k = 0; k < 2; k++)
		for (unsigned d = 0; d < 2; d++) {
			char name[16];
			snprintf(name, sizeof(name), "sp_wire%u%u", k, d);
			F.wire[k][d] = ring(name);
		}
	build_half(0);
	build_half(1);
	assert_int_equal(F.h[0].fab.n_sw, 1);
	assert_int_equal(F.h[0].fab.n_links, 0);
	assert_int_equal(F.h[1].fab.n_sw, 3);
	assert_int_equal(F.h[1].fab.n_links, 2);

	send_across(0, &now);
	/* ECMP over both cut links, as over any uplink */
	uint64_t via[2];
	members_packets(&F.h[0].ctl, "leaf0", via);
	print_message("leaf0 -> spine0: %lu, -> spine1: %lu\n", (unsigned long)via[0],
		      (unsigned long)via[1]);
	assert_int_equal(via[0] + via[1], N_PKTS);
	assert_true(via[0] > 0 && via[1] > 0);
	send_across(1, &now);
	/* B's emulated link down and up: its groups follow it, and its
	 * routes stay the whole fabric's (leaf0's hosts behind the wire) */
	assert_int_equal(aif_ctl_link_set(&F.h[1].ctl, 0, 0, -1, -1, now, err, sizeof(err)), 0);
	run_for(&now, 5 * AIF_NS_PER_US);
	assert_int_equal(aif_ctl_link_set(&F.h[1].ctl, 0, 1, -1, -1, now, err, sizeof(err)), 0);
	run_for(&now, 5 * AIF_NS_PER_US);
	send_across(1, &now);
	send_across(0, &now);

	unbuild_half(0);
	unbuild_half(1);
	for (unsigned k = 0; k < 2; k++)
		for (unsigned d = 0; d < 2; d++)
			free_ring(F.wire[k][d]);
	assert_int_equal(rte_mempool_in_use_count(F.pool), 0); /* nothing lost */
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_split", "aif-pl-split", 512) != 0)
		return -1;
	F.pool = rte_pktmbuf_pool_create("sp_pool", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_across),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
