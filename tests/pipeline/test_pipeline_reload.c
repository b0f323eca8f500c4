/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests of reloading and counters: one whole switch ("leaf0",
 * four ports) run in virtual time (pipeline_fixture.h: the config, the
 * harness, the frames).
 *
 * Configs reloaded under traffic (stepped: 20 reloads and not a frame
 * lost; and for real, the worker on its own thread while control publishes
 * 20 configs), rejected loads naming what is wrong and leaving the running
 * tables in place and forwarding, and clear counters (every port and
 * member counter back to zero, then counting again from zero).
 */
#include <pthread.h>
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
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "clock.h"
#include "commands.h"
#include "counters.h"
#include "drop.h"
#include "runner.h"
#include "switch.h"
#include "tables.h"

#include "pipeline_fixture.h"

#define RELOAD_STEPS 200
#define RELOAD_EVERY 10
#define RELOAD_PKTS_PER_STEP 8

/* A valid config of three ports: the running switch has four. */
static const char config_3ports[] =
	"{\"switches\": [{\"name\": \"leaf0\", \"ports\": ["
	"  {\"name\": \"p0\", \"device\": \"net_ring_pl0\", \"addresses\": [\"10.0.0.1/24\"]},"
	"  {\"name\": \"p1\", \"device\": \"net_ring_pl1\", \"addresses\": [\"10.0.1.1/31\"]},"
	"  {\"name\": \"p2\", \"device\": \"net_ring_pl2\", \"addresses\": [\"10.0.1.3/31\"]}],"
	" \"routes\": [{\"prefix\": \"10.9.0.0/16\", \"action\": \"drop\"}]}]}";

/* ---------------------------------------------------------------- */
/* 1. Reload under traffic                                            */

static void
test_reload_under_traffic(void **state)
{
	struct rs_snap before;
	uint64_t injected = 0, out = 0;
	uint64_t gen0 = H.sw->generation;
	uint32_t seed0 = H.sw->tables->seed;
	unsigned reloads = 0;

	(void)state;
	snap_take(&before);
	for (unsigned s = 0; s < RELOAD_STEPS; s++) {
		if (s % RELOAD_EVERY == RELOAD_EVERY - 1) {
			/* alternate: new seed and reversed members, then back */
			bool odd = (reloads++ & 1) == 0;
			load_config(odd ? BASE_SEED + 1 : BASE_SEED,
				    odd ? members_rev : members_fwd);
			assert_int_equal(H.sw->generation, gen0 + reloads);
			assert_int_equal(H.sw->tables->generation, H.sw->generation);
			assert_int_equal(H.sw->tables->seed, odd ? BASE_SEED + 1 : BASE_SEED);
		}
		/* packets already queued before the reload meet the new tables */
		inject_flows(RELOAD_PKTS_PER_STEP);
		injected += RELOAD_PKTS_PER_STEP;
		if (s % 3 == 0) /* and some wait in the ring across a reload */
			continue;
		step();
		out += drain_uplinks();
	}
	run();
	out += drain_uplinks();
	assert_int_equal(reloads, RELOAD_STEPS / RELOAD_EVERY);
	assert_int_equal(out, injected);
	assert_int_equal(delta(&before, 0).rx_packets, injected);
	uint64_t tx = 0;
	for (uint16_t p = 1; p < N_PORTS; p++)
		tx += delta(&before, p).tx_packets;
	assert_int_equal(tx, injected);
	assert_no_drops(&before);
	/* an even number of reloads: back on the base config */
	assert_int_equal(H.sw->tables->seed, seed0);
	assert_clean();
}

/*
 * The same for real: the worker steps on its own thread and a traffic thread
 * keeps injecting and collecting while control (this thread) publishes 20
 * configs, so traffic flows through every pointer swap and old tables are
 * freed while the worker runs (the RCU protocol of tables.h).  A table freed
 * too early is a use-after-free that ASan may catch, but only when the
 * timing hits it: this is a smoke test of the protocol, not a proof; the
 * exact no-loss accounting is test_reload_under_traffic's.  The worker keeps
 * its own virtual clock.  Each ring still has one producer and one consumer.
 */
#define CONC_TEMPLATES 64
#define CONC_RX_FILL 256 /* keep at most this many waiting in p0's RX ring */
#define CONC_RELOADS 20

struct conc {
	int stop_worker, stop_traffic;
	aif_time_ns now_ns;
	uint64_t steps;
	uint64_t injected, out, bad;
	uint8_t frame[CONC_TEMPLATES][FRAME_MAX];
	uint16_t len[CONC_TEMPLATES];
};

static void *
conc_worker(void *arg)
{
	struct conc *c = arg;
	while (!__atomic_load_n(&c->stop_worker, __ATOMIC_ACQUIRE)) {
		c->now_ns += STEP_NS;
		aif_runner_step(H.w, c->now_ns);
		c->steps++;
	}
	return NULL;
}

/* Collect what the switch sent: count it, check its MACs, free it. */
static void
conc_collect(struct conc *c)
{
	struct rte_mbuf *m[AIF_BURST];
	unsigned n;

	for (uint16_t p = 0; p < N_PORTS; p++)
		while ((n = rte_ring_dequeue_burst(H.tx[p], (void **)m, AIF_BURST,
						   NULL)) > 0) {
			for (unsigned k = 0; k < n; k++) {
				const uint8_t *f = rte_pktmbuf_mtod(m[k], const uint8_t *);
				if (p == 0 || memcmp(f, mac_nbr[p], 6) != 0 ||
				    memcmp(f + 6, mac_port[p], 6) != 0)
					c->bad++;
			}
			c->out += n;
			rs_free_all(m, n);
		}
}

static void *
conc_traffic(void *arg)
{
	struct conc *c = arg;
	unsigned t = 0;

	while (!__atomic_load_n(&c->stop_traffic, __ATOMIC_ACQUIRE)) {
		/* whole bursts, so the worker spends its time in the pipeline */
		struct rte_mbuf *m[AIF_BURST];
		if (rte_ring_count(H.rx[0]) < CONC_RX_FILL &&
		    rte_pktmbuf_alloc_bulk(H.pool, m, AIF_BURST) == 0) {
			for (unsigned k = 0; k < AIF_BURST; k++) {
				memcpy(rte_pktmbuf_append(m[k], c->len[t]), c->frame[t],
				       c->len[t]);
				t = (t + 1) % CONC_TEMPLATES;
			}
			unsigned n = rte_ring_enqueue_burst(H.rx[0], (void **)m,
							    AIF_BURST, NULL);
			c->injected += n;
			rs_free_all(m + n, AIF_BURST - n);
		}
		conc_collect(c);
	}
	return NULL;
}

static void
test_reload_concurrent(void **state)
{
	static struct conc c;
	struct rs_snap before;
	uint64_t gen0 = H.sw->generation;
	unsigned reloads = CONC_RELOADS;
	pthread_t worker, traffic;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.now_ns = now_ns();
	for (unsigned i = 0; i < CONC_TEMPLATES; i++) {
		struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
				  .dip = IP4(10, 1, rnd() & 0xff, rnd() & 0xff),
				  .sport = (uint16_t)(0xC000 | (rnd() & 0x3fff)),
				  .ttl = 64, .qp = 11 };
		c.len[i] = build_roce4(c.frame[i], &r);
	}
	snap_take(&before);
	assert_int_equal(pthread_create(&worker, NULL, conc_worker, &c), 0);
	assert_int_equal(pthread_create(&traffic, NULL, conc_traffic, &c), 0);
	for (unsigned i = 0; i < reloads; i++)
		load_config((i & 1) == 0 ? BASE_SEED + 1 : BASE_SEED,
			    (i & 1) == 0 ? members_rev : members_fwd);
	__atomic_store_n(&c.stop_traffic, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(traffic, NULL), 0);
	__atomic_store_n(&c.stop_worker, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(worker, NULL), 0);

	/* single-threaded again: finish what is still queued */
	aif_clock_set(&H.ctl.clock, c.now_ns);
	run();
	conc_collect(&c);
	print_message("  %u reloads, %llu packets, %llu worker steps\n", reloads,
		      (unsigned long long)c.injected, (unsigned long long)c.steps);
	assert_int_equal(H.sw->generation, gen0 + reloads);
	assert_int_equal(H.sw->tables->seed, BASE_SEED);
	assert_true(c.injected > 0);
	assert_int_equal(c.bad, 0);
	assert_int_equal(c.out, c.injected);
	assert_int_equal(delta(&before, 0).rx_packets, c.injected);
	assert_no_drops(&before);
	assert_clean();
}

static void
test_reload_rejected(void **state)
{
	char err[AIF_ERR_MAX];
	struct rs_snap before;

	(void)state;
	const struct aif_tables *t0 = H.sw->tables;
	uint64_t gen0 = H.sw->generation, tgen0 = t0->generation;
	uint64_t ok0 = H.ctl.loads_ok, rej0 = H.ctl.loads_rejected;

	/* a route naming a group that does not exist */
	char *bad_group = config_text(BASE_SEED + 7, members_rev, "net_ring_pl3",
				      ", {\"prefix\": \"10.3.0.0/16\", \"group\": \"nosuch\"}");
	/* p3 bound to another device */
	char *bad_dev = config_text(BASE_SEED + 7, members_rev, "net_ring_other", "");
	const char *bad[] = { bad_group, bad_dev, config_3ports, "{\"switches\": 5}" };
	const char *why[] = { "nosuch", "p3", "ports", "switches" };

	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		err[0] = '\0';
		assert_false(rs_load(&H, bad[i], err, sizeof(err)));
		print_message("  rejected: %s\n", err);
		if (strstr(err, why[i]) == NULL)
			fail_msg("error '%s' does not mention '%s'", err, why[i]);
		assert_ptr_equal(H.sw->tables, t0);
		assert_int_equal(H.sw->generation, gen0);
		assert_int_equal(H.sw->tables->generation, tgen0);
		assert_int_equal(H.ctl.loads_rejected, rej0 + i + 1);
		assert_int_equal(H.ctl.loads_ok, ok0);
	}
	free(bad_group);
	free(bad_dev);

	/* and the running tables still forward */
	snap_take(&before);
	inject_flows(64);
	run();
	assert_int_equal(drain_uplinks(), 64);
	assert_no_drops(&before);
	assert_clean();
}

/* ---------------------------------------------------------------- */
/* 2. clear counters                                                  */

static void
test_clear_counters(void **state)
{
	uint8_t f[FRAME_MAX];
	struct aif_port_ctr c;
	struct aif_member_sums mc[N_PORTS];
	uint16_t len = 0;

	(void)state;
	/* make sure there is something to clear, a drop included */
	inject_flows(10);
	struct roce r = { .dmac = mac_port[0], .smac = mac_h0, .sip = ip_h0,
			  .dip = IP4(172, 16, 0, 1), .sport = 0xC000, .ttl = 64, .qp = 1 };
	len = build_roce4(f, &r);
	inject(0, f, len);
	run();
	drain_uplinks();
	aif_switch_port_counters(H.sw, 0, &c);
	assert_true(c.rx_packets > 0 && c.drops[AIF_DROP_NO_ROUTE] > 0);

	aif_switch_clear_counters(H.sw);
	for (uint16_t p = 0; p < N_PORTS; p++) {
		aif_switch_port_counters(H.sw, p, &c);
		const uint64_t *w = (const uint64_t *)&c;
		for (size_t i = 0; i < AIF_PORT_CTR_WORDS; i++)
			assert_int_equal(w[i], 0);
	}
	member_ctrs_by_port("uplinks", mc);
	for (uint16_t p = 0; p < N_PORTS; p++)
		assert_int_equal(mc[p].packets + mc[p].bytes, 0);

	/* and they count again from zero */
	r.dip = ip_remote;
	len = build_roce4(f, &r);
	for (unsigned i = 0; i < 5; i++)
		inject(0, f, len);
	r.dip = IP4(172, 16, 0, 1);
	uint16_t len_nr = build_roce4(f, &r);
	inject(0, f, len_nr);
	run();
	assert_int_equal(drain_uplinks(), 5);
	aif_switch_port_counters(H.sw, 0, &c);
	assert_int_equal(c.rx_packets, 6);
	assert_int_equal(c.rx_bytes, 5ull * len + len_nr);
	assert_int_equal(c.tx_packets, 0);
	for (unsigned k = 0; k < AIF_DROP_MAX; k++)
		assert_int_equal(c.drops[k], k == AIF_DROP_NO_ROUTE ? 1 : 0);
	uint64_t tx = 0, txb = 0;
	for (uint16_t p = 1; p < N_PORTS; p++) {
		aif_switch_port_counters(H.sw, p, &c);
		tx += c.tx_packets;
		txb += c.tx_bytes;
	}
	assert_int_equal(tx, 5);
	assert_int_equal(txb, 5ull * len);
	member_ctrs_by_port("uplinks", mc);
	uint64_t mp = 0;
	for (uint16_t p = 0; p < N_PORTS; p++)
		mp += mc[p].packets;
	assert_int_equal(mp, 5);
	assert_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_reload_under_traffic, test_setup),
		cmocka_unit_test_setup(test_reload_concurrent, test_setup),
		cmocka_unit_test_setup(test_reload_rejected, test_setup),
		cmocka_unit_test_setup(test_clear_counters, test_setup),
	};
	return cmocka_run_group_tests_name("pipeline_reload", tests, group_setup,
					   group_teardown);
}
