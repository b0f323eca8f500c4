/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two switches joined by an emulated link, driven by one runner in virtual
 * time, stepping only at the next events it reports.
 *
 *	host 10.0.0.2 -- p0 [leaf0] p1 ==== 10 Gb/s, 5 us ==== p0 [leaf1] p1 -- host 10.0.1.2
 *
 * Edge ports are DPDK ports (ring PMD), the fabric ports link ends: both
 * port implementations in one switch.  A burst of frames sent into leaf0
 * leaves leaf1 routed twice (TTL - 2, MACs of leaf1's egress port and the
 * host, IPv4 checksum valid), in order, each at the time its last bit
 * arrived over the link: serialization back to back at the link rate
 * (24 bytes of overhead per frame) plus the 5 us, to the nanosecond.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memzone.h>
#include <rte_ring.h>

#include "clock.h"
#include "commands.h"
#include "compile.h"
#include "ctl_server.h"
#include "config.h"
#include "fabric.h"
#include "link.h"
#include "qos.h"
#include "shard.h"
#include "switch.h"
#include "runner.h"
#include "summary.h"

#include "test_eal.h"
#include "ctl_reply.h"

#define RATE_BPS 10000000000ull
#define DELAY_NS 5000
#define N_PKTS 32
#define PAYLOAD 1000

static const char *const config_json =
	"{\"switches\": ["
	" {\"name\": \"leaf0\", \"seed\": 1, \"ports\": ["
	"   {\"name\": \"p0\", \"device\": \"fab_e0\", \"mac\": \"02:00:00:00:00:10\","
	"    \"addresses\": [\"10.0.0.1/24\"]},"
	"   {\"name\": \"p1\", \"device\": \"fab_l0\", \"mac\": \"02:00:00:00:00:11\","
	"    \"addresses\": [\"10.1.0.0/31\"]}],"
	"  \"neighbors\": [{\"ip\": \"10.1.0.1\", \"mac\": \"02:00:00:00:01:10\", \"port\": \"p1\"}],"
	"  \"nexthop_groups\": [{\"name\": \"up\", \"members\": [{\"ip\": \"10.1.0.1\", \"port\": \"p1\"}]}],"
	"  \"routes\": [{\"prefix\": \"10.0.1.0/24\", \"group\": \"up\"}]},"
	" {\"name\": \"leaf1\", \"seed\": 2, \"ports\": ["
	"   {\"name\": \"p0\", \"device\": \"fab_l1\", \"mac\": \"02:00:00:00:01:10\","
	"    \"addresses\": [\"10.1.0.1/31\"]},"
	"   {\"name\": \"p1\", \"device\": \"fab_e1\", \"mac\": \"02:00:00:00:01:11\","
	"    \"addresses\": [\"10.0.1.1/24\"]}],"
	"  \"neighbors\": [{\"ip\": \"10.1.0.0\", \"mac\": \"02:00:00:00:00:11\", \"port\": \"p0\"}],"
	"  \"nexthop_groups\": [{\"name\": \"up\", \"members\": [{\"ip\": \"10.1.0.0\", \"port\": \"p0\"}]}],"
	"  \"routes\": [{\"prefix\": \"10.0.0.0/24\", \"group\": \"up\"}]}],"
	" \"hosts\": ["
	"  {\"name\": \"h0\", \"switch\": \"leaf0\", \"port\": \"p0\", \"ip\": \"10.0.0.2\","
	"   \"mac\": \"02:00:00:00:00:02\"},"
	"  {\"name\": \"h1\", \"switch\": \"leaf1\", \"port\": \"p1\", \"ip\": \"10.0.1.2\","
	"   \"mac\": \"02:00:00:00:01:02\"}],"
	" \"links\": [{\"a\": \"leaf0:p1\", \"b\": \"leaf1:p0\", \"rate_gbps\": 10, \"delay_ns\": 5000}]}";

static struct {
	struct rte_mempool *pool;
	struct aif_switch *sw[2];
	struct aif_link *link;
	struct aif_runner *w;
	struct aif_config *cfg;
	struct aif_ctl ctl;             /* control over both switches */
	struct rte_ring *rx[2], *tx[2]; /* edge ports: leaf0 p0, leaf1 p1 */
	uint16_t pid[2];
} F;

/* DPDK heap in use (what the switches, links and tables take). */
static uint64_t
heap_used_bytes(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t used = 0;

	for (unsigned i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			used += st.heap_allocsz_bytes;
	return used;
}

/* An edge port: a ring PMD ethdev (a DPDK port like any other). */
static void
edge_port(unsigned e, struct aif_port *port, uint16_t index)
{
	char name[32];
	struct rte_eth_conf conf;

	snprintf(name, sizeof(name), "fab_rx%u", e);
	F.rx[e] = rte_ring_create(name, 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "fab_tx%u", e);
	F.tx[e] = rte_ring_create(name, 256, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	assert_non_null(F.rx[e]);
	assert_non_null(F.tx[e]);
	snprintf(name, sizeof(name), "fab_e%u", e);
	int pid = rte_eth_from_rings(name, &F.rx[e], 1, &F.tx[e], 1, 0);
	assert_true(pid >= 0);
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup((uint16_t)pid, 0, 256, 0, NULL, F.pool), 0);
	assert_int_equal(rte_eth_tx_queue_setup((uint16_t)pid, 0, 256, 0, NULL), 0);
	assert_int_equal(rte_eth_dev_start((uint16_t)pid), 0);
	F.pid[e] = (uint16_t)pid;
	snprintf(port->name, sizeof(port->name), "p%u", index);
	aif_port_set_link_up(port, true);
	port->speed_mbps = 10000;
	aif_port_init_dpdk(port, index, (uint16_t)pid);
}

static int
setup(void **state)
{
	char err[128] = "";

	(void)state;
	if (test_eal_init("test_fabric", "aif-pl-fabric", 1024) != 0)
		return -1;
	F.pool = rte_pktmbuf_pool_create("fab_pool", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (F.pool == NULL ||
	    aif_config_parse(config_json, strlen(config_json), &F.cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "setup: %s\n", err);
		return -1;
	}
	uint64_t heap0 = heap_used_bytes();
	size_t malloc0 = mallinfo2().uordblks + mallinfo2().hblkhd;
	const struct aif_link_params lp = { .rate_bps = RATE_BPS, .delay_ns = DELAY_NS };
	F.link = aif_link_create("leaf0:p1-leaf1:p0", &lp, err, sizeof(err));
	if (F.link == NULL)
		return -1;
	for (uint16_t i = 0; i < 2; i++) {
		char name[16];
		snprintf(name, sizeof(name), "leaf%u", i);
		F.sw[i] = aif_switch_create(name, i, 1, F.pool);
		if (F.sw[i] == NULL)
			return -1;
		F.sw[i]->n_ports = 2;
		F.sw[i]->fib_compact = 1; /* a fabric: route tables sized by the routes */
	}
	edge_port(0, &F.sw[0]->ports[0], 0);
	edge_port(1, &F.sw[1]->ports[1], 1);
	snprintf(F.sw[0]->ports[1].name, AIF_NAME_MAX, "p1");
	snprintf(F.sw[1]->ports[0].name, AIF_NAME_MAX, "p0");
	aif_link_attach(F.link, 0, &F.sw[0]->ports[1]);
	aif_link_attach(F.link, 1, &F.sw[1]->ports[0]);
	/* control loads the config into both, as a load request does */
	aif_clock_init_virtual(&F.ctl.clock, 0);
	for (uint16_t i = 0; i < 2; i++)
		aif_ctl_add_switch(&F.ctl, F.sw[i]);
	F.ctl.links = &F.link;
	F.ctl.n_links = 1;
	if (aif_ctl_apply_config(&F.ctl, aif_config_ref(F.cfg), err, sizeof(err)) != 0) {
		fprintf(stderr, "load: %s\n", err);
		return -1;
	}

	/* what a switch costs, for the record (memory goes by what is configured) */
	fprintf(stderr, "# two 2-port switches with their tables and QoS, and a link: "
		"%.1f MiB of DPDK heap, %.1f MiB of malloc\n",
		(double)(heap_used_bytes() - heap0) / (1 << 20),
		(double)(mallinfo2().uordblks + mallinfo2().hblkhd - malloc0) / (1 << 20));
	/* one runner drives both switches and polls all four ports */
	F.w = aif_runner_create(F.sw[0], 0, 0x5eed);
	if (F.w == NULL || aif_runner_add_switch(F.w, F.sw[1], 0, 0x5eed) != 1)
		return -1;
	for (uint16_t d = 0; d < 2; d++)
		for (uint16_t p = 0; p < 2; p++)
			if (aif_runner_add_rxq_of(F.w, d, p, 0) != 0)
				return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	aif_runner_free(F.w);
	for (unsigned i = 0; i < 2; i++) {
		if (F.sw[i] != NULL)
			aif_switch_free(F.sw[i]);
		rte_eth_dev_stop(F.pid[i]);
		rte_eth_dev_close(F.pid[i]);
		rte_ring_free(F.rx[i]);
		rte_ring_free(F.tx[i]);
	}
	aif_link_free(F.link);
	aif_config_free(F.ctl.cfg);
	aif_config_free(F.cfg);
	rte_mempool_free(F.pool);
	test_eal_cleanup();
	return 0;
}

/* A UDP frame from h0 to h1, sequence number seq in its payload. */
static struct rte_mbuf *
udp_frame(uint32_t seq)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(F.pool);
	uint16_t l3 = (uint16_t)(20 + 8 + PAYLOAD);
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + l3));
	static const uint8_t dmac[6] = { 2, 0, 0, 0, 0, 0x10 }, smac[6] = { 2, 0, 0, 0, 0, 2 };

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
	ip->dst_addr = rte_cpu_to_be_32(0x0a000102);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	uint8_t *udp = f + 34;
	udp[0] = 0xc0; udp[1] = 0x00;                  /* 49152 */
	udp[2] = 0x12; udp[3] = 0xb7;                  /* 4791 */
	udp[4] = (uint8_t)((8 + PAYLOAD) >> 8); udp[5] = (uint8_t)(8 + PAYLOAD);
	memcpy(udp + 8, &seq, sizeof(seq));
	return m;
}

static json_t *ctl(const char *line);

static void
test_two_switches_over_a_link(void **state)
{
	struct rte_mbuf *out[N_PKTS + 1];
	aif_time_ns got_ns[N_PKTS], now = 0;
	unsigned n_out = 0, steps = 0;

	(void)state;
	for (uint32_t i = 0; i < N_PKTS; i++) {
		struct rte_mbuf *m = udp_frame(i);
		assert_int_equal(rte_ring_enqueue(F.rx[0], m), 0);
	}
	/* step now, then only at the next events the runner reports */
	for (;;) {
		aif_runner_step(F.w, now);
		steps++;
		unsigned k = rte_ring_dequeue_burst(F.tx[1], (void **)&out[n_out],
						    N_PKTS + 1 - n_out, NULL);
		for (unsigned i = 0; i < k; i++)
			got_ns[n_out + i] = now;
		n_out += k;
		aif_time_ns next = aif_runner_next_event_ns(F.w, now);
		if (n_out >= N_PKTS || next == AIF_TIME_NS_NEVER || next > AIF_NS_PER_MS / 2)
			break;
		assert_true(next > now); /* a step leaves nothing for now */
		now = next;
	}
	assert_int_equal(n_out, N_PKTS);
	assert_int_equal(rte_ring_count(F.tx[0]), 0);
	print_message("%u frames over the link in %u steps of virtual time\n", n_out, steps);

	/* the wire: 14 + 20 + 8 + 1000 bytes + 24 = 1066 B, 852.8 ns at 10G */
	const uint64_t ser_ps = (uint64_t)aif_link_wire_bytes(14 + 28 + PAYLOAD) * 8 * 100;
	assert_int_equal(ser_ps, 852800);
	for (unsigned i = 0; i < N_PKTS; i++) {
		const uint8_t *f = rte_pktmbuf_mtod(out[i], const uint8_t *);
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + 14);
		static const uint8_t dmac[6] = { 2, 0, 0, 0, 1, 2 }, smac[6] = { 2, 0, 0, 0, 1, 0x11 };
		uint32_t seq;

		memcpy(&seq, f + 42, sizeof(seq));
		assert_int_equal(seq, i);                          /* in order */
		assert_memory_equal(f, dmac, 6);                   /* the host's MAC */
		assert_memory_equal(f + 6, smac, 6);               /* leaf1 p1 */
		assert_int_equal(ip->time_to_live, 62);            /* two hops */
		struct rte_ipv4_hdr h = *ip;
		h.hdr_checksum = 0;
		assert_int_equal(rte_ipv4_cksum(&h), ip->hdr_checksum); /* valid */
		/* back to back on the wire from t = 0, then the delay */
		uint64_t finish_ps = (uint64_t)(i + 1) * ser_ps;
		assert_int_equal(got_ns[i], (finish_ps + 999) / 1000 + DELAY_NS);
		rte_pktmbuf_free(out[i]);
	}
	assert_int_equal(F.link->dir[0].ctr.tx_packets, N_PKTS);
	assert_int_equal(F.link->dir[0].ctr.refused, 0); /* served when ready */
	assert_int_equal(F.link->dir[1].ctr.tx_packets, 0);

	/* counters on both switches: what went in came out, nothing dropped */
	struct aif_port_ctr c;
	aif_switch_port_counters(F.sw[0], 1, &c);
	assert_int_equal(c.tx_packets, N_PKTS);
	aif_switch_port_counters(F.sw[1], 0, &c);
	assert_int_equal(c.rx_packets, N_PKTS);
	aif_switch_port_counters(F.sw[1], 1, &c);
	assert_int_equal(c.tx_packets, N_PKTS);
	for (unsigned i = 0; i < 2; i++)
		for (uint16_t p = 0; p < 2; p++) {
			aif_switch_port_counters(F.sw[i], p, &c);
			for (unsigned r = 0; r < AIF_DROP_MAX; r++)
				assert_int_equal(c.drops[r], 0);
		}

	/* show links: the link's two directions, named by their ends; its
	 * utilization over the time elapsed */
	aif_clock_set(&F.ctl.clock, got_ns[N_PKTS - 1]);
	json_t *r = ctl("{\"cmd\": \"show_links\", \"switch\": \"leaf1\"}");
	json_t *l = json_array_get(json_object_get(r, "result"), 0);
	assert_non_null(l);
	assert_string_equal(json_string_value(json_object_get(l, "link")), "up");
	json_t *d0 = json_array_get(json_object_get(l, "directions"), 0);
	assert_string_equal(json_string_value(json_object_get(d0, "from")), "leaf0:p1");
	assert_string_equal(json_string_value(json_object_get(d0, "to")), "leaf1:p0");
	assert_int_equal(json_integer_value(json_object_get(d0, "tx_packets")), N_PKTS);
	double util = json_real_value(json_object_get(d0, "utilization"));
	double want = (double)F.link->dir[0].ctr.busy_ps / ((double)got_ns[N_PKTS - 1] * 1000);
	assert_true(util > 0.5 && fabs(util - want) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(json_object_get(l, "directions"), 1), "tx_packets")), 0);
	json_decref(r);
}

/* The exit summary from a fabric's JSON of every counter and from one of
 * only what the summary reads (a run without --stats): the same lines,
 * after the frames above and one frame with no route, dropped. */
static char *
summary_of(bool lean, aif_time_ns now)
{
	json_t *sws = json_array();
	for (uint16_t s = 0; s < 2; s++) {
		json_t *cj = lean ? aif_ctl_summary_counters_json(F.sw[s])
				  : aif_ctl_counters_json(F.sw[s]);
		assert_true(json_object_get(cj, "groups") == NULL || !lean);
		json_object_set_new(cj, "switch", json_string(F.sw[s]->name));
		json_array_append_new(sws, cj);
	}
	json_t *lj = lean ? aif_ctl_summary_links_json(&F.ctl, now)
			  : aif_ctl_links_json(&F.ctl, NULL, now);
	json_t *fj = json_pack("{s:o, s:o}", "switches", sws, "links", lj);
	struct aif_summary_run sr = { .elapsed_s = 1.0, .virtual_ns = now, .packet_hops = 7 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	aif_summary_print_fabric(f, fj, &sr);
	fclose(f);
	if (lean) {
		/* a port's drops: those that are not zero */
		json_t *p0 = json_array_get(json_object_get(json_array_get(sws, 0), "ports"), 0);
		assert_int_equal(json_object_size(json_object_get(p0, "drops")), 1);
		/* a link direction's counters: those that are not zero (the
		 * second direction: its ends and what it lost) */
		json_t *l0 = json_array_get(lj, 0);
		assert_null(json_object_get(l0, "name"));
		json_t *d1 = json_array_get(json_object_get(l0, "directions"), 1);
		assert_null(json_object_get(d1, "tx_packets"));
		assert_null(json_object_get(d1, "utilization"));
		assert_int_equal(json_integer_value(json_object_get(d1, "lost_random")), 3);
		assert_int_equal(json_object_size(d1), 5);
	}
	json_decref(fj);
	return buf;
}

static void
test_summary_from_its_counters(void **state)
{
	struct rte_mbuf *m = udp_frame(0);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
	aif_time_ns now = AIF_NS_PER_MS;

	(void)state;
	ip->dst_addr = rte_cpu_to_be_32(0x0b000001); /* 11.0.0.1: no route */
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	assert_int_equal(rte_ring_enqueue(F.rx[0], m), 0);
	aif_runner_step(F.w, now);
	struct aif_port_ctr c;
	uint64_t dropped = 0;
	aif_switch_port_counters(F.sw[0], 0, &c);
	for (unsigned r = 0; r < AIF_DROP_MAX; r++)
		dropped += c.drops[r];
	assert_int_equal(dropped, 1);
	/* the way back lost and corrupted frames and sent PFC (as a link
	 * counts them; its summary rows show each) */
	struct aif_link_ctr keep = F.link->dir[1].ctr;
	F.link->dir[1].ctr.lost_random = 3;
	F.link->dir[1].ctr.corrupted = 2;
	F.link->dir[1].ctr.tx_ctrl = 1;
	char *full = summary_of(false, now), *lean = summary_of(true, now);
	F.link->dir[1].ctr = keep;
	print_message("%s", lean);
	assert_string_equal(lean, full);
	assert_non_null(strstr(lean, "drops by reason, fabric-wide"));
	assert_non_null(strstr(lean, "leaf1:p0>leaf0:p1"));
	free(full);
	free(lean);
}

/* One request through the socket's line handler: the reply, parsed. */
static json_t *
ctl(const char *line)
{
	return ctl_reply(&F.ctl, line);
}

static const char *
ctl_error(const char *line)
{
	static char why[512];
	json_t *r = ctl(line);

	if (json_is_true(json_object_get(r, "ok")))
		fail_msg("accepted: %s", line);
	snprintf(why, sizeof(why), "%s", json_string_value(json_object_get(r, "error")));
	json_decref(r);
	return why;
}

static unsigned
slots_used(const struct aif_switch *sw)
{
	unsigned n = 0;
	for (uint32_t s = 0; s < sw->n_member_slots; s++)
		n += sw->member_keys[s].used;
	for (uint32_t s = 0; s < sw->neigh->cap; s++)
		n += sw->neigh->meta[s].type != AIF_NEIGH_FREE;
	return n;
}

/*
 * Control over several switches: a view names one switch or covers all;
 * a command about one switch must name it; a load that one switch cannot
 * take is rejected whole and leaves both as they ran.
 */
static void
test_control_many_switches(void **state)
{
	json_t *r, *res;

	(void)state;
	r = ctl("{\"cmd\": \"show_counters\"}");
	res = json_object_get(r, "result");
	assert_int_equal(json_array_size(json_object_get(res, "switches")), 2);
	json_t *e = json_array_get(json_object_get(res, "switches"), 1);
	assert_string_equal(json_string_value(json_object_get(e, "switch")), "leaf1");
	assert_int_equal(json_array_size(json_object_get(json_object_get(e, "result"),
							 "ports")), 2);
	json_decref(r);
	r = ctl("{\"cmd\": \"show_routes\", \"switch\": \"leaf1\"}");
	res = json_object_get(r, "result");
	assert_true(json_is_array(res)); /* that switch's view, as with one switch */
	assert_string_equal(json_string_value(json_object_get(json_array_get(res, 0),
							      "port")), "p0");
	json_decref(r);
	/* the topology as control sees it: what each port is, what is behind it */
	r = ctl("{\"cmd\": \"show_topology\", \"switch\": \"leaf0\"}");
	res = json_object_get(r, "result");
	assert_int_equal(json_array_size(res), 2);
	json_t *p0 = json_array_get(res, 0), *p1 = json_array_get(res, 1);
	assert_string_equal(json_string_value(json_object_get(p0, "kind")), "dpdk");
	assert_string_equal(json_string_value(json_object_get(p0, "peer")), "host h0");
	assert_string_equal(json_string_value(json_object_get(p1, "kind")), "link");
	assert_string_equal(json_string_value(json_object_get(p1, "peer")), "leaf1:p0");
	json_decref(r);
	r = ctl("{\"cmd\": \"status\"}");
	assert_int_equal(json_array_size(json_object_get(json_object_get(r, "result"),
							 "switches")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "result"),
							    "workers")), 1);
	assert_null(json_object_get(json_object_get(r, "result"), "behind_ns"));
	json_decref(r);
	/* paced real time on two runners: the runners and the emulation's lag */
	aif_time_ns behind = 123456;
	F.ctl.behind_ns = &behind;
	F.ctl.n_runners = 2;
	r = ctl("{\"cmd\": \"status\"}");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "result"),
							    "workers")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "result"),
							    "behind_ns")), 123456);
	json_decref(r);
	F.ctl.behind_ns = NULL;
	F.ctl.n_runners = 0;

	assert_string_equal(ctl_error("{\"cmd\": \"show_pfc\", \"switch\": \"spine9\"}"),
			    "unknown switch 'spine9' (switches: leaf0 leaf1)");
	assert_string_equal(ctl_error("{\"cmd\": \"capture_stop\", \"port\": \"p0\"}"),
			    "name a switch (\"switch\"): this daemon runs 2");
	assert_non_null(strstr(ctl_error("{\"cmd\": \"nope\"}"),
			       "unknown command 'nope' (try status, load, show_ports,"));
	assert_string_equal(ctl_error("{\"cmd\": \"capture_stop\", \"switch\": \"leaf1\", "
				      "\"port\": \"p1\"}"), "port p1 is not capturing");

	/* leaf1 cannot take its new policy: nothing changes on either switch */
	uint64_t g0 = F.sw[0]->tables->generation, g1 = F.sw[1]->tables->generation;
	unsigned used0 = slots_used(F.sw[0]), used1 = slots_used(F.sw[1]);
	const struct aif_config *running = F.ctl.cfg;
	static char text[8192];
	const char *leaf1 = strstr(config_json, "{\"name\": \"leaf1\"");
	snprintf(text, sizeof(text), "{\"cmd\": \"load\", \"config\": {\"policies\": "
		 "{\"tight\": {\"qos\": {\"buffer\": {\"size_bytes\": 65536, "
		 "\"reserve_bytes\": 60000}}}}, %.*s\"policy\": \"tight\", %s}",
		 (int)(leaf1 - config_json), config_json + 1, leaf1 + 1);
	/* and leaf0 a new static neighbour, which takes a slot when it compiles */
	static const char extra[] = "{\"ip\": \"10.0.0.9\", \"mac\": \"02:00:00:00:00:09\", "
				    "\"port\": \"p0\"}, ";
	char *at = strstr(text, "\"neighbors\": [") + strlen("\"neighbors\": [");
	assert_true(strlen(text) + sizeof(extra) < sizeof(text));
	memmove(at + sizeof(extra) - 1, at, strlen(at) + 1);
	memcpy(at, extra, sizeof(extra) - 1);
	const char *why = ctl_error(text);
	print_message("rejected: %s\n", why);
	assert_non_null(strstr(why, "$.policies.tight.qos.buffer"));
	assert_int_equal(F.sw[0]->tables->generation, g0);
	assert_int_equal(F.sw[1]->tables->generation, g1);
	assert_ptr_equal(F.ctl.cfg, running);
	assert_int_equal(slots_used(F.sw[0]), used0); /* leaf0 compiled, then gave back */
	assert_int_equal(slots_used(F.sw[1]), used1);

	/* the same file as running: both switches publish */
	snprintf(text, sizeof(text), "{\"cmd\": \"load\", \"config\": %s}", config_json);
	r = ctl(text);
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	assert_int_equal(F.sw[0]->tables->generation, g0 + 1);
	assert_int_equal(F.sw[1]->tables->generation, g1 + 1);
}

/* Send one frame from h0 and run until the fabric is quiet: 1 if it came
 * out at h1. */
static unsigned
one_frame(uint32_t seq, aif_time_ns *now)
{
	struct rte_mbuf *out[4];
	unsigned got = 0;

	assert_int_equal(rte_ring_enqueue(F.rx[0], udp_frame(seq)), 0);
	for (int i = 0; i < 64; i++) {
		aif_runner_step(F.w, *now);
		unsigned k = rte_ring_dequeue_burst(F.tx[1], (void **)out, 4, NULL);
		got += k;
		rte_pktmbuf_free_bulk(out, k);
		aif_time_ns next = aif_runner_next_event_ns(F.w, *now);
		if (next == AIF_TIME_NS_NEVER)
			break;
		*now = next > *now ? next : *now + 1;
	}
	return got;
}

/*
 * Compact route tables are looked up through a per-shard cache: a load
 * that changes a route must change where the next packet goes.  leaf0's
 * route to h1 becomes a drop route, then comes back.
 */
static void
test_route_change_through_the_cache(void **state)
{
	static char text[8192];
	aif_time_ns now = AIF_NS_PER_MS;
	struct aif_port_ctr c;

	(void)state;
	assert_true(F.sw[0]->tables->fib_compact);
	assert_int_equal(one_frame(1000, &now), 1); /* the cache now holds 10.0.1.2 */
	const char *at = strstr(config_json, "{\"prefix\": \"10.0.1.0/24\", \"group\": \"up\"}");
	assert_non_null(at);
	snprintf(text, sizeof(text), "{\"cmd\": \"load\", \"config\": %.*s"
		 "{\"prefix\": \"10.0.1.0/24\", \"action\": \"drop\"}%s}",
		 (int)(at - config_json), config_json,
		 at + strlen("{\"prefix\": \"10.0.1.0/24\", \"group\": \"up\"}"));
	json_t *r = ctl(text);
	if (!json_is_true(json_object_get(r, "ok")))
		fail_msg("load: %s", json_string_value(json_object_get(r, "error")));
	json_decref(r);
	aif_switch_port_counters(F.sw[0], 0, &c);
	uint64_t before = c.drops[AIF_DROP_NO_ROUTE];
	assert_int_equal(one_frame(1001, &now), 0);  /* dropped at leaf0, not cached */
	aif_switch_port_counters(F.sw[0], 0, &c);
	assert_int_equal(c.drops[AIF_DROP_NO_ROUTE], before + 1);
	snprintf(text, sizeof(text), "{\"cmd\": \"load\", \"config\": %s}", config_json);
	r = ctl(text);
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	assert_int_equal(one_frame(1002, &now), 1);  /* and back */
}

/* {"cmd": "load", "config": <config_json with from replaced by to>} */
static const char *
load_with(const char *from, const char *to)
{
	static char text[8192];
	const char *at = strstr(config_json, from);

	assert_non_null(at);
	snprintf(text, sizeof(text), "{\"cmd\": \"load\", \"config\": %.*s%s%s}",
		 (int)(at - config_json), config_json, to, at + strlen(from));
	return text;
}

/*
 * A load names every switch it loaded; status names every switch.  A load
 * that changes the link's rate or delay is refused, saying which link and
 * both values, and nothing changes (the emulated link keeps what it was
 * built with); one that changes its loss rate is applied to the link.
 */
static void
test_load_and_links(void **state)
{
	json_t *r, *res;
	const struct aif_config *running = F.ctl.cfg;
	uint64_t g0 = F.sw[0]->tables->generation, g1 = F.sw[1]->tables->generation;
	uint64_t rejected = F.ctl.loads_rejected;

	(void)state;
	r = ctl("{\"cmd\": \"status\"}");
	res = json_object_get(r, "result");
	assert_null(json_object_get(res, "switch")); /* not the first one alone */
	assert_int_equal(json_array_size(json_object_get(res, "switches")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(res, "switches"), 1)),
			    "leaf1");
	assert_int_equal(json_integer_value(json_object_get(res, "ports")), 4);
	assert_int_equal(json_integer_value(json_object_get(res, "links")), 1);
	json_decref(r);

	assert_string_equal(ctl_error(load_with("\"rate_gbps\": 10", "\"rate_gbps\": 40")),
			    "$.links[0].rate_gbps: 40 Gb/s, the running link leaf0:p1-leaf1:p0 runs "
			    "at 10 Gb/s: a link's rate is set when the fabric starts (restart to "
			    "change it)");
	assert_string_equal(ctl_error(load_with("\"delay_ns\": 5000", "\"delay_ns\": 6000")),
			    "$.links[0].delay_ns: 6000 ns, the running link leaf0:p1-leaf1:p0 has "
			    "5000 ns: a link's delay is set when the fabric starts (restart to "
			    "change it)");
	assert_ptr_equal(F.ctl.cfg, running);
	assert_int_equal(F.ctl.loads_rejected, rejected + 2);
	assert_int_equal(F.link->p.rate_bps, RATE_BPS);
	assert_int_equal(F.link->p.delay_ns, DELAY_NS);
	assert_int_equal(F.sw[0]->tables->generation, g0);
	assert_int_equal(F.sw[1]->tables->generation, g1);

	/* loss: applied; the reply names both switches */
	r = ctl(load_with("\"delay_ns\": 5000", "\"delay_ns\": 5000, \"loss_rate\": 0.25"));
	assert_true(json_is_true(json_object_get(r, "ok")));
	res = json_object_get(r, "result");
	json_t *sws = json_object_get(res, "switches");
	assert_int_equal(json_array_size(sws), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(sws, 0), "switch")),
			    "leaf0");
	assert_string_equal(json_string_value(json_object_get(json_array_get(sws, 1), "switch")),
			    "leaf1");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(sws, 1), "generation")),
			 g1 + 1);
	json_decref(r);
	assert_int_equal(F.link->loss_thresh, 1ull << 62);
	/* and back */
	r = ctl(load_with("\"delay_ns\": 5000", "\"delay_ns\": 5000"));
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	assert_int_equal(F.link->loss_thresh, 0);
}

/*
 * A port's link going down moves its own switch's link generation and no
 * other's: at the next step that switch's shard reads its links again
 * (the port's bit in the stages' link_up goes), the other's does not.
 */
static void
test_link_gen_per_switch(void **state)
{
	struct aif_shard *sh0 = F.sw[0]->shards[0], *sh1 = F.sw[1]->shards[0];
	uint64_t g0 = F.sw[0]->link_gen, g1 = F.sw[1]->link_gen;

	(void)state;
	aif_runner_step(F.w, 0);
	assert_int_equal(sh0->link_gen, g0);
	assert_int_equal(sh1->link_gen, g1);
	assert_true(sh0->fwd.link_up & 1);
	aif_port_set_link_up(&F.sw[0]->ports[0], false);
	assert_int_equal(F.sw[0]->link_gen, g0 + 1);
	assert_int_equal(F.sw[1]->link_gen, g1);
	aif_runner_step(F.w, 0);
	assert_int_equal(sh0->link_gen, g0 + 1);
	assert_false(sh0->fwd.link_up & 1);
	assert_int_equal(sh1->link_gen, g1);
	aif_port_set_link_up(&F.sw[0]->ports[0], true);
	aif_runner_step(F.w, 0);
	assert_true(sh0->fwd.link_up & 1);
}

/*
 * A link_set that would change nothing is an error, not "ok"; a rate that
 * is no number (NaN, as a client's "nan" parses) is refused and changes
 * nothing.
 */
static void
test_link_set_refusals(void **state)
{
	char err[AIF_ERR_MAX] = "";
	uint64_t loss = F.link->loss_thresh, corrupt = F.link->corrupt_thresh;

	(void)state;
	assert_string_equal(ctl_error("{\"cmd\": \"link_set\", \"link\": \"leaf0:p1\"}"),
			    "nothing to change: give \"state\" (\"up\" or \"down\"), "
			    "\"loss_rate\" or \"corrupt_rate\" (numbers 0..1)");
	assert_string_equal(ctl_error("{\"cmd\": \"link_set\", \"link\": \"leaf0:p1\", "
				      "\"loss_rate\": 1.5}"), "\"loss_rate\": a number 0..1");
	assert_int_equal(aif_ctl_link_set(&F.ctl, 0, -1, NAN, -1, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "rates are 0..1");
	assert_int_equal(aif_ctl_link_set(&F.ctl, 0, -1, -1, INFINITY, 0, err, sizeof(err)), -1);
	assert_int_equal(F.link->loss_thresh, loss);
	assert_int_equal(F.link->corrupt_thresh, corrupt);
	assert_true(F.link->up);
}

static void
count_memzone(const struct rte_memzone *mz, void *arg)
{
	(void)mz;
	(*(unsigned *)arg)++;
}

static unsigned
memzones(void)
{
	unsigned n = 0;

	rte_memzone_walk(count_memzone, &n);
	return n;
}

/* Control over a built fabric's switches and links, cfg loaded into them. */
static void
fabric_load(struct aif_ctl *ctl, struct aif_fabric *fab, struct aif_config *cfg)
{
	char err[AIF_ERR_MAX] = "";

	aif_clock_init_virtual(&ctl->clock, 0);
	for (uint16_t i = 0; i < fab->n_sw; i++)
		aif_ctl_add_switch(ctl, fab->sw[i]);
	ctl->links = fab->link;
	ctl->n_links = fab->n_links;
	if (aif_ctl_apply_config(ctl, aif_config_ref(cfg), err, sizeof(err)) != 0)
		fail_msg("load: %s", err);
}

/*
 * A k=10 fat-tree (125 switches, 1,250 ports) built, loaded, and driven
 * by one runner that polls every port, as a virtual-time run does: more
 * RX queues than a runner once held (1,024), and no DPDK memzone taken by
 * its switches (DPDK has 2,560 in all), a reload's second set of tables
 * included.
 */
static void
test_large_fat_tree_one_runner(void **state)
{
	static const char text[] = "{\"topology\": {\"fat_tree\": {\"k\": 10}}}";
	static struct aif_fabric fab;
	static struct aif_ctl ctl;
	struct aif_config *cfg = NULL;
	char err[AIF_ERR_MAX] = "";
	unsigned mz0 = memzones(), n_rxq = 0;

	(void)state;
	if (aif_config_parse(text, strlen(text), &cfg, err, sizeof(err)) != 0 ||
	    aif_fabric_build(&fab, cfg, F.pool, 1, 1, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(fab.n_sw, 125);
	fabric_load(&ctl, &fab, cfg);
	/* and again: old and new tables both exist until the old are freed */
	if (aif_ctl_apply_config(&ctl, aif_config_ref(cfg), err, sizeof(err)) != 0)
		fail_msg("reload: %s", err);
	unsigned per_sw = (memzones() - mz0 + fab.n_sw - 1) / fab.n_sw;
	print_message("# %u switches: %u memzones, %u a switch\n", fab.n_sw, memzones() - mz0,
		      per_sw);
	assert_int_equal(per_sw, 0); /* switches not bounded by DPDK's memzones */

	struct aif_runner *w = aif_runner_create(fab.sw[0], 0, 1);
	assert_non_null(w);
	for (uint16_t s = 1; s < fab.n_sw; s++)
		assert_int_equal(aif_runner_add_switch(w, fab.sw[s], 0, 1), s);
	for (uint16_t s = 0; s < fab.n_sw; s++)
		for (uint16_t p = 0; p < fab.sw[s]->n_ports; p++, n_rxq++)
			assert_int_equal(aif_runner_add_rxq_of(w, s, p, 0), 0);
	assert_int_equal(n_rxq, 1250);
	assert_int_equal(w->n_rxq, 1250);
	/* a quiet fabric: a step polls every queue and finds nothing */
	assert_int_equal(aif_runner_step(w, AIF_NS_PER_MS), 0);
	for (uint16_t s = 0; s < fab.n_sw; s++)
		assert_int_equal(aif_runner_step_drive(w, s, AIF_NS_PER_MS), 0);

	aif_runner_free(w);
	aif_fabric_free(&fab);
	aif_config_free(ctl.cfg);
	aif_config_free(cfg);
}

/*
 * Names as long as a config allows (31 characters) make a link's name
 * "switch:port-switch:port" of up to 127: the fabric's link keeps it whole
 * and the config loads (a link name cut to 31 characters did not match the
 * config's and the fabric refused to start: "is not the running link").
 */
static void
test_long_names(void **state)
{
	static const char a[] = "leaf-with-a-long-name-0123456-a", b[] = "leaf-with-a-long-name-0123456-b",
			  pa[] = "uplink-port-with-a-long-name-aa", pb[] = "uplink-port-with-a-long-name-bb";
	char text[2048], err[AIF_ERR_MAX] = "", want[4 * AIF_NAME_MAX];
	static struct aif_fabric fab;
	static struct aif_ctl ctl;
	struct aif_config *cfg = NULL;

	(void)state;
	assert_int_equal(strlen(a), AIF_NAME_MAX - 1);
	assert_int_equal(strlen(pa), AIF_NAME_MAX - 1);
	snprintf(text, sizeof(text),
		 "{\"switches\": ["
		 " {\"name\": \"%s\", \"ports\": [{\"name\": \"%s\","
		 "   \"mac\": \"02:00:00:00:00:11\", \"addresses\": [\"10.1.0.0/31\"]}]},"
		 " {\"name\": \"%s\", \"ports\": [{\"name\": \"%s\","
		 "   \"mac\": \"02:00:00:00:01:10\", \"addresses\": [\"10.1.0.1/31\"]}]}],"
		 " \"links\": [{\"a\": \"%s:%s\", \"b\": \"%s:%s\"}]}",
		 a, pa, b, pb, a, pa, b, pb);
	if (aif_config_parse(text, strlen(text), &cfg, err, sizeof(err)) != 0 ||
	    aif_fabric_build(&fab, cfg, F.pool, 1, 1, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	snprintf(want, sizeof(want), "%s:%s-%s:%s", a, pa, b, pb);
	assert_int_equal(strlen(want), 4 * (AIF_NAME_MAX - 1) + 3);
	assert_string_equal(fab.link[0]->name, want);
	fabric_load(&ctl, &fab, cfg);
	aif_fabric_free(&fab);
	aif_config_free(ctl.cfg);
	aif_config_free(cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_switches_over_a_link),
		cmocka_unit_test(test_summary_from_its_counters),
		cmocka_unit_test(test_control_many_switches),
		cmocka_unit_test(test_load_and_links),
		cmocka_unit_test(test_route_change_through_the_cache),
		cmocka_unit_test(test_link_set_refusals),
		cmocka_unit_test(test_link_gen_per_switch),
		cmocka_unit_test(test_large_fat_tree_one_runner),
		cmocka_unit_test(test_long_names),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
