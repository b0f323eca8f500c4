/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring switch: the pipeline tests' shared harness (see ring_switch.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "clock.h"
#include "commands.h"
#include "counters.h"
#include "ctl_server.h"
#include "switch.h"
#include "runner.h"

#include "test_eal.h"

#include "../../dataplane/capture.h"
#include "ring_switch.h"

int
rs_port_setup(struct rs_harness *h, uint16_t p)
{
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	struct rte_eth_link link;
	char name[RTE_RING_NAMESIZE];
	struct aif_port *port = &h->sw->ports[p];
	int pid;

	snprintf(name, sizeof(name), "%s_rx%u", h->tag, p);
	h->rx[p] = rte_ring_create(name, h->ring_size, (int)rte_socket_id(),
				   RING_F_SP_ENQ | RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "%s_tx%u", h->tag, p);
	h->tx[p] = rte_ring_create(name, h->ring_size, (int)rte_socket_id(),
				   RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (h->rx[p] == NULL || h->tx[p] == NULL)
		return -1;
	snprintf(name, sizeof(name), "%s%u", h->tag, p);
	pid = rte_eth_from_rings(name, &h->rx[p], 1, &h->tx[p], 1, rte_socket_id());
	if (pid < 0)
		return -1;
	h->pid[p] = (uint16_t)pid;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(h->pid[p], 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(h->pid[p], 0, h->ring_size, rte_socket_id(), NULL,
				   h->pool) != 0 ||
	    rte_eth_tx_queue_setup(h->pid[p], 0, h->ring_size, rte_socket_id(), NULL) != 0 ||
	    rte_eth_dev_start(h->pid[p]) != 0)
		return -1;
	h->started[p] = true;
	rte_eth_promiscuous_enable(h->pid[p]);
	rte_eth_link_get_nowait(h->pid[p], &link);
	rte_eth_macaddr_get(h->pid[p], &mac);

	snprintf(port->name, sizeof(port->name), "p%u", p);
	port->n_rxq = port->n_txq = 1;
	aif_port_set_link_up(port, true);
	memcpy(port->dev_mac.b, mac.addr_bytes, 6);
	aif_port_init_dpdk(port, p, h->pid[p]);
	return 0;
}

void
rs_teardown(struct rs_harness *h)
{
	if (h->sw != NULL) {
		aif_capture_free(h->sw);
		aif_runner_free(h->w);
		aif_switch_free(h->sw);
	}
	aif_config_free(h->ctl.cfg);
	for (uint16_t p = 0; p < h->n_ports; p++) {
		if (h->started[p]) {
			rte_eth_dev_stop(h->pid[p]);
			rte_eth_dev_close(h->pid[p]);
		}
		rte_ring_free(h->rx[p]);
		rte_ring_free(h->tx[p]);
	}
	rte_mempool_free(h->pool);
	test_eal_cleanup();
	memset(h, 0, sizeof(*h));
}

int
rs_setup(struct rs_harness *h, const struct rs_params *params)
{
	char prefix[64], pool_name[RTE_MEMPOOL_NAMESIZE];
	snprintf(prefix, sizeof(prefix), "%s-%d", params->file_prefix, (int)getpid());
	char *argv[] = {
		(char *)params->prog, "--no-huge", "-m", "512", "--no-pci", "--no-shconf", "--no-telemetry",
		"--file-prefix", prefix, "-l", "0", "--log-level", "error", NULL,
	};
	int argc = (int)RTE_DIM(argv) - 1;

	memset(h, 0, sizeof(*h));
	if (params->n_ports > RS_MAX_PORTS) {
		fprintf(stderr, "%u ports: at most %u\n", params->n_ports, RS_MAX_PORTS);
		return -1;
	}
	h->tag = params->tag;
	h->ring_size = params->ring_size;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return -1;
	}
	snprintf(pool_name, sizeof(pool_name), "%s_pool", params->tag);
	h->pool = rte_pktmbuf_pool_create(pool_name, params->pool_size, params->pool_cache,
					  0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (h->pool == NULL)
		goto err;
	h->sw = aif_switch_create("leaf0", 0, 1, h->pool);
	if (h->sw == NULL)
		goto err;
	h->sw->n_ports = params->n_ports;
	h->n_ports = params->n_ports;
	for (uint16_t p = 0; p < h->n_ports; p++)
		if (rs_port_setup(h, p) != 0) {
			fprintf(stderr, "port p%u: setup failed\n", p);
			goto err;
		}
	aif_ctl_add_switch(&h->ctl, h->sw);
	aif_clock_init_virtual(&h->ctl.clock, 0);
	h->ctl.start_ns = 0;

	char err[AIF_ERR_MAX] = "";
	if (!rs_load(h, params->config, err, sizeof(err))) {
		fprintf(stderr, "config rejected: %s\n", err);
		goto err;
	}
	h->w = aif_runner_create(h->sw, 0, 0x5eed);
	if (h->w == NULL)
		goto err;
	aif_runner_set_clock(h->w, &h->ctl.clock); /* bursts stamped as in main.c */
	for (uint16_t p = 0; p < h->n_ports; p++)
		if (aif_runner_add_rxq(h->w, p, 0) != 0)
			goto err;
	return 0;
err:
	rs_teardown(h);
	return -1;
}

void
rs_reset(struct rs_harness *h)
{
	struct rte_mbuf *m[64];
	unsigned n;

	for (uint16_t p = 0; p < h->n_ports; p++) {
		while ((n = rte_ring_dequeue_burst(h->rx[p], (void **)m, 64, NULL)) > 0)
			rs_free_all(m, n);
		while ((n = rte_ring_dequeue_burst(h->tx[p], (void **)m, 64, NULL)) > 0)
			rs_free_all(m, n);
	}
	h->pool_base = rte_mempool_in_use_count(h->pool);
}

bool
rs_load(struct rs_harness *h, const char *config, char *err, size_t err_len)
{
	size_t n = strlen(config) + 64;
	char *line = malloc(n);
	assert_non_null(line);
	snprintf(line, n, "{\"cmd\": \"load\", \"config\": %s}", config);
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &h->ctl);
	free(line);
	assert_non_null(reply);
	json_error_t jerr;
	json_t *j = json_loads(reply, 0, &jerr);
	if (j == NULL)
		fail_msg("reply is not JSON: %s", reply);
	free(reply);
	bool ok = json_is_true(json_object_get(j, "ok"));
	if (!ok && err != NULL)
		snprintf(err, err_len, "%s",
			 json_string_value(json_object_get(j, "error")) ?: "");
	json_decref(j);
	return ok;
}

aif_time_ns
rs_now(const struct rs_harness *h)
{
	return aif_clock_now(&h->ctl.clock);
}

void
rs_step(struct rs_harness *h, aif_time_ns dt_ns)
{
	aif_clock_advance(&h->ctl.clock, dt_ns);
	aif_runner_step(h->w, rs_now(h));
}

bool
rs_rx_pending(const struct rs_harness *h)
{
	for (unsigned p = 0; p < h->n_ports; p++)
		if (rte_ring_count(h->rx[p]) != 0)
			return true;
	return false;
}

void
rs_run(struct rs_harness *h, aif_time_ns dt_ns, unsigned max_steps)
{
	unsigned i = 0;
	do
		rs_step(h, dt_ns);
	while (rs_rx_pending(h) && ++i < max_steps);
	assert_false(rs_rx_pending(h));
}

struct rte_mbuf *
rs_mbuf_of(struct rs_harness *h, const uint8_t *f, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(h->pool);
	assert_non_null(m);
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, len);
	assert_non_null(d);
	memcpy(d, f, len);
	return m;
}

void
rs_inject(struct rs_harness *h, uint16_t port, const uint8_t *f, uint16_t len)
{
	assert_int_equal(rte_ring_enqueue(h->rx[port], rs_mbuf_of(h, f, len)), 0);
}

unsigned
rs_sent(struct rs_harness *h, uint16_t port, struct rte_mbuf **out, unsigned max)
{
	unsigned n = rte_ring_dequeue_burst(h->tx[port], (void **)out, max, NULL);
	assert_int_equal(rte_ring_count(h->tx[port]), 0);
	return n;
}

struct rte_mbuf *
rs_sent_one(struct rs_harness *h, uint16_t port)
{
	struct rte_mbuf *m[4];

	for (uint16_t p = 0; p < h->n_ports; p++)
		if (p != port)
			assert_int_equal(rte_ring_count(h->tx[p]), 0);
	assert_int_equal(rs_sent(h, port, m, 4), 1);
	return m[0];
}

void
rs_free_all(struct rte_mbuf **m, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		rte_pktmbuf_free(m[i]);
}

void
rs_snap_take(const struct rs_harness *h, struct rs_snap *s)
{
	for (uint16_t p = 0; p < h->n_ports; p++)
		aif_switch_port_counters(h->sw, p, &s->port[p]);
}

struct aif_port_ctr
rs_delta(const struct rs_harness *h, const struct rs_snap *before, uint16_t port)
{
	struct aif_port_ctr now;
	uint64_t *n = (uint64_t *)&now;
	const uint64_t *b = (const uint64_t *)&before->port[port];

	aif_switch_port_counters(h->sw, port, &now);
	for (size_t i = 0; i < AIF_PORT_CTR_WORDS; i++)
		n[i] -= b[i];
	return now;
}
