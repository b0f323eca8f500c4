/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QoS fixture: the config, frames, runner and counter helpers that the
 * test_qos_* programs share (what they are: qos_fixture.h).
 */
#include <errno.h>
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

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "clock.h"
#include "commands.h"
#include "counters.h"
#include "ctl_server.h"
#include "drop.h"
#include "egress.h"
#include "mmu.h"
#include "pfc.h"
#include "pkt.h"
#include "qos.h"
#include "sched.h"
#include "switch.h"
#include "tables.h"
#include "runner.h"

#include "qos_fixture.h"

#define RING_SIZE 4096      /* per RX/TX ring of a test port */
#define POOL_SIZE 8191
#define POOL_CACHE 64

/* ---------------------------------------------------------------- */
/* Addresses                                                         */

const uint8_t mac_port[N_PORTS][6] = {
	{ 0x02, 0, 0, 0, 0, 0x10 }, { 0x02, 0, 0, 0, 0, 0x11 },
	{ 0x02, 0, 0, 0, 0, 0x12 }, { 0x02, 0, 0, 0, 0, 0x13 },
};
const uint8_t mac_host[N_PORTS][6] = {
	{ 0x02, 0, 0, 0, 0x01, 0x00 }, { 0x02, 0, 0, 0, 0x01, 0x01 },
	{ 0x02, 0, 0, 0, 0x01, 0x02 }, { 0x02, 0, 0, 0, 0x01, 0x03 },
};
const uint8_t mac_pfc[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

/* ---------------------------------------------------------------- */
/* Harness state                                                     */

struct rs_harness H;

/* quanta * 512 bit times at speed_bps, rounded up to a whole ns. */
aif_time_ns
pause_ns(uint16_t quanta, uint64_t speed_bps)
{
	return ((uint64_t)quanta * 512u * 1000000000ull + speed_bps - 1) / speed_bps;
}

/* ---------------------------------------------------------------- */
/* Frames                                                            */

/*
 * Ethernet / IPv4 (dscp, ecn) / UDP 4791 / BTH / payload, FRAME_LEN bytes,
 * from the neighbour of port in to the neighbour of port out.  The BTH
 * opcode is a CNP (0x81) for DSCP 48, else RC SEND Only; the sequence
 * number rides in the PSN and the first payload word.
 */
uint16_t
build_data(uint8_t *f, uint16_t in, uint16_t out, uint8_t dscp, uint8_t ecn,
	   uint32_t seq)
{
	uint8_t *ip = f + ETH_HLEN, *udp = ip + IP4_HLEN, *bth = udp + UDP_HLEN;
	uint16_t udp_len = FRAME_LEN - ETH_HLEN - IP4_HLEN;

	memset(f, 0, FRAME_LEN);
	memcpy(f, mac_port[in], 6);
	memcpy(f + 6, mac_host[in], 6);
	put16(f + 12, AIF_ETHERTYPE_IPV4);
	ip[0] = 0x45;
	ip[1] = (uint8_t)(dscp << 2 | (ecn & 3));
	put16(ip + 2, FRAME_LEN - ETH_HLEN);
	put16(ip + 4, (uint16_t)seq);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, (10u << 24) | ((uint32_t)in << 8) | 2);
	put32(ip + 16, (10u << 24) | ((uint32_t)out << 8) | 2);
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	put16(udp, (uint16_t)(0xc000 | in));
	put16(udp + 2, AIF_UDP_PORT_ROCEV2);
	put16(udp + 4, udp_len);
	bth[0] = dscp == 48 ? 0x81 : 0x04;
	bth[1] = 0x40;
	put16(bth + 2, 0xffff);
	put32(bth + 4, 0x100u + in);
	put32(bth + 8, 0x80000000u | (seq & 0xffffff));
	put32(bth + AIF_BTH_LEN, seq);
	bth[AIF_BTH_LEN + 4] = (uint8_t)in;
	for (unsigned i = AIF_BTH_LEN + 5; i < (unsigned)udp_len - UDP_HLEN; i++)
		bth[i] = (uint8_t)(i * 7 + seq);
	return FRAME_LEN;
}

/*
 * A PFC frame as a peer sends it (built here, not by dataplane/pfc.c):
 * dst 01:80:C2:00:00:01, src the peer, 0x8808, opcode 0x0101, class vector
 * `vector`, time `quanta` for every class in the vector, padded to 60.
 */
uint16_t
build_pfc(uint8_t *f, const uint8_t *src, uint8_t vector, uint16_t quanta)
{
	memset(f, 0, 60);
	memcpy(f, mac_pfc, 6);
	memcpy(f + 6, src, 6);
	put16(f + 12, AIF_ETHERTYPE_MAC_CTRL);
	put16(f + 14, 0x0101);
	put16(f + 16, vector);
	for (unsigned p = 0; p < 8; p++)
		if (vector & (1u << p))
			put16(f + 18 + 2 * p, quanta);
	return 60;
}

/* 802.3x PAUSE: opcode 0x0001, one time. */
uint16_t
build_pause(uint8_t *f, const uint8_t *src, uint16_t quanta)
{
	memset(f, 0, 60);
	memcpy(f, mac_pfc, 6);
	memcpy(f + 6, src, 6);
	put16(f + 12, AIF_ETHERTYPE_MAC_CTRL);
	put16(f + 14, 0x0001);
	put16(f + 16, quanta);
	return 60;
}

/*
 * Check a data frame the switch sent on port out (rewritten for the
 * neighbour, TTL 63, valid IPv4 checksum, payload intact) and return what
 * it carried.
 */
struct out_pkt
parse_out(const struct rte_mbuf *m, uint16_t out)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = f + ETH_HLEN, *bth = ip + IP4_HLEN + UDP_HLEN;
	struct out_pkt o;

	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), FRAME_LEN);
	assert_memory_equal(f, mac_host[out], 6);
	assert_memory_equal(f + 6, mac_port[out], 6);
	assert_int_equal(get16(f + 12), AIF_ETHERTYPE_IPV4);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[8], 63);
	if (sum16(0, ip, IP4_HLEN) != 0xffff)
		fail_msg("IPv4 header checksum invalid (sum %#x)", sum16(0, ip, IP4_HLEN));
	assert_int_equal(get32(ip + 16), (10u << 24) | ((uint32_t)out << 8) | 2);
	o.in = ip[14];
	o.seq = get32(bth + AIF_BTH_LEN);
	o.dscp = ip[1] >> 2;
	o.ecn = ip[1] & 3;
	assert_int_equal(bth[AIF_BTH_LEN + 4], o.in);
	assert_int_equal(get32(ip + 12), (10u << 24) | ((uint32_t)o.in << 8) | 2);
	assert_int_equal(get16(ip + 4), (uint16_t)o.seq);
	assert_int_equal(get32(bth + 8) & 0xffffff, o.seq & 0xffffff);
	return o;
}

/*
 * Check a PFC frame the switch sent out of port p, byte by byte: dst
 * 01:80:C2:00:00:01, src the port MAC, 0x8808, opcode 0x0101, class vector
 * 0x0008, priority 3's time and nothing else, zero padding, 60 bytes.  The
 * project's parser must agree.  Returns the time of priority 3.
 */
uint16_t
check_pfc_out(const struct rte_mbuf *m, uint16_t p)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	struct aif_pfc_rx parsed;

	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(rte_pktmbuf_pkt_len(m), AIF_PFC_FRAME_LEN);
	assert_memory_equal(f, mac_pfc, 6);
	assert_memory_equal(f + 6, mac_port[p], 6);
	assert_int_equal(get16(f + 12), 0x8808);
	assert_int_equal(get16(f + 14), 0x0101);
	assert_int_equal(get16(f + 16), 1u << PRIO);
	for (unsigned k = 0; k < 8; k++)
		if (k != PRIO)
			assert_int_equal(get16(f + 18 + 2 * k), 0);
	for (unsigned i = 34; i < 60; i++)
		assert_int_equal(f[i], 0);
	assert_int_equal(aif_pfc_frame_parse(f, AIF_PFC_FRAME_LEN, &parsed), 0);
	assert_int_equal(parsed.kind, AIF_PFC_KIND_PFC);
	assert_int_equal(parsed.class_enable, 1u << PRIO);
	assert_true(parsed.dst_reserved);
	assert_int_equal(parsed.quanta[PRIO], get16(f + 18 + 2 * PRIO));
	return get16(f + 18 + 2 * PRIO);
}

/* ---------------------------------------------------------------- */
/* Running the switch                                                */

aif_time_ns
now_ns(void)
{
	return rs_now(&H);
}

void
step(aif_time_ns dt_ns)
{
	rs_step(&H, dt_ns);
}

struct aif_qos *
qos(void)
{
	assert_non_null(H.sw->qos);
	return H.sw->qos;
}

void
inject_frame(uint16_t port, const uint8_t *f, uint16_t len)
{
	rs_inject(&H, port, f, len);
}

void
inject_data(uint16_t in, uint16_t out, uint8_t dscp, uint8_t ecn, uint32_t seq)
{
	uint8_t f[FRAME_LEN];
	inject_frame(in, f, build_data(f, in, out, dscp, ecn, seq));
}

/* Data frames sent on port out since the last call (up to max), parsed and
 * freed; the ring is left empty. */
unsigned
take_out(uint16_t out, struct out_pkt *o, unsigned max)
{
	struct rte_mbuf *m[64];
	unsigned n, total = 0;

	while ((n = rte_ring_dequeue_burst(H.tx[out], (void **)m, 64, NULL)) > 0) {
		for (unsigned i = 0; i < n; i++) {
			if (total >= max)
				fail_msg("more than %u frames on p%u", max, out);
			o[total++] = parse_out(m[i], out);
		}
		rs_free_all(m, n);
	}
	return total;
}

void
assert_tx_empty(uint16_t port)
{
	if (rte_ring_count(H.tx[port]) != 0)
		fail_msg("p%u sent %u unexpected frame(s)", port, rte_ring_count(H.tx[port]));
}

/* Every ring empty, every queue and buffer empty, every mbuf back. */
void
assert_clean(void)
{
	const struct aif_qos *q = qos();

	for (uint16_t p = 0; p < N_PORTS; p++) {
		assert_int_equal(rte_ring_count(H.rx[p]), 0);
		assert_tx_empty(p);
		assert_int_equal(H.w->sh->tx[p].n, 0);
		for (uint8_t k = 0; k < AIF_QOS_NQ; k++)
			assert_int_equal(aif_sched_qlen_pkts(&q->port[p].sched, k), 0);
	}
	assert_int_equal(q->mmu.used_bytes, 0);
	assert_int_equal(rte_mempool_in_use_count(H.pool), H.pool_base);
}

/* ---------------------------------------------------------------- */
/* Counters                                                          */

void
snap_take(struct rs_snap *s)
{
	rs_snap_take(&H, s);
}

struct aif_port_ctr
delta(const struct rs_snap *before, uint16_t port)
{
	return rs_delta(&H, before, port);
}

/* Drops of reason r on port since the snapshot. */
uint64_t
drops_of(const struct rs_snap *before, uint16_t port, enum aif_drop_reason r)
{
	return delta(before, port).drops[r];
}

/* Since the snapshot: no drop of a reason outside `allowed` (bit per reason)
 * on any port, and none at all on ports outside `ports` (bit per port).
 * Returns the sum of the allowed drops. */
uint64_t
assert_drops_within(const struct rs_snap *before, uint32_t ports, uint64_t allowed)
{
	uint64_t sum = 0;

	for (uint16_t p = 0; p < N_PORTS; p++) {
		struct aif_port_ctr d = delta(before, p);
		for (unsigned k = 0; k < AIF_DROP_MAX; k++) {
			bool ok = ((ports >> p) & 1) && ((allowed >> k) & 1);
			if (d.drops[k] != 0 && !ok)
				fail_msg("port p%u: %llu unexpected %s drop(s)", p,
					 (unsigned long long)d.drops[k], aif_drop_name(k));
			sum += d.drops[k];
		}
	}
	return sum;
}

void
assert_no_drops(const struct rs_snap *before)
{
	assert_drops_within(before, 0, 0);
}

/* ---------------------------------------------------------------- */
/* Control                                                           */

/*
 * The config: four 100G ports, pN = 10.0.N.1/24 and fd00:N::1/64 with the
 * static neighbour 10.0.N.2 and fd00:N::2 (one MAC); `qos` is the body of the default policy's "qos" object (NULL:
 * no "qos", the defaults); port `shaped` (or none if >= N_PORTS) gets
 * "shaper_gbps": 10.
 */
char *
config_text(const char *qos_body, uint16_t shaped)
{
	size_t n = 8192;
	char *s = malloc(n);
	int len;

	assert_non_null(s);
	if (qos_body != NULL)
		len = snprintf(s, n, "{\"policies\": {\"default\": {\"qos\": {%s}}},", qos_body);
	else
		len = snprintf(s, n, "{");
	len += snprintf(s + len, n - (size_t)len,
			"\"switches\": [{\"name\": \"leaf0\", \"ports\": [");
	for (uint16_t p = 0; p < N_PORTS; p++)
		len += snprintf(s + len, n - (size_t)len,
				"%s{\"name\": \"p%u\", \"device\": \"net_ring_qs%u\","
				" \"mac\": \"02:00:00:00:00:1%u\", \"speed_gbps\": 100,%s"
				" \"addresses\": [\"10.0.%u.1/24\", \"fd00:%u::1/64\"]}",
				p ? ", " : "", p, p, p,
				p == shaped ? " \"shaper_gbps\": 10," : "", p, p);
	len += snprintf(s + len, n - (size_t)len, "], \"neighbors\": [");
	for (uint16_t p = 0; p < N_PORTS; p++)
		len += snprintf(s + len, n - (size_t)len,
				"%s{\"ip\": \"10.0.%u.2\", \"mac\": \"02:00:00:00:01:0%u\","
				" \"port\": \"p%u\"}, {\"ip\": \"fd00:%u::2\","
				" \"mac\": \"02:00:00:00:01:0%u\", \"port\": \"p%u\"}",
				p ? ", " : "", p, p, p, p, p, p);
	len += snprintf(s + len, n - (size_t)len, "]}]}");
	assert_true(len > 0 && (size_t)len < n);
	return s;
}

/* Load a config and step once so that worker 0 adopts it. */
void
load(const char *qos_body, uint16_t shaped)
{
	char err[AIF_ERR_MAX] = "";
	char *text = config_text(qos_body, shaped);
	bool ok = rs_load(&H, text, err, sizeof(err));
	free(text);
	if (!ok)
		fail_msg("load rejected: %s", err);
	step(US);
	assert_int_equal(qos()->generation, H.sw->tables->generation);
	assert_true(qos()->cfg.enable);
}

/* One control request through the socket's line handler; the reply's
 * result (asserting "ok"). */
json_t *
ctl_result(const char *line)
{
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &H.ctl);
	assert_non_null(reply);
	json_t *j = json_loads(reply, 0, NULL);
	free(reply);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "ok")));
	json_t *r = json_incref(json_object_get(j, "result"));
	json_decref(j);
	assert_non_null(r);
	return r;
}

/* The row of `show_pfc` for port p (borrowed from rows). */
json_t *
pfc_row(json_t *rows, uint16_t p)
{
	char name[8];
	json_t *row;
	size_t i;

	snprintf(name, sizeof(name), "p%u", p);
	json_array_foreach(rows, i, row)
		if (strcmp(json_string_value(json_object_get(row, "name")), name) == 0)
			return row;
	fail_msg("show_pfc has no row for %s", name);
	return NULL;
}

/* Integer field key of a `show_pfc` row. */
uint64_t
jint(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_integer(v))
		fail_msg("show_pfc: %s is not an integer", key);
	return (uint64_t)json_integer_value(v);
}

/* Element k of array field key of a `show_pfc` row (8 of them). */
uint64_t
jint_at(const json_t *o, const char *key, unsigned k)
{
	const json_t *a = json_object_get(o, key);
	if (!json_is_array(a) || json_array_size(a) != 8)
		fail_msg("show_pfc: %s is not an array of 8", key);
	return (uint64_t)json_integer_value(json_array_get(a, k));
}

/* ---------------------------------------------------------------- */
/* Group setup: EAL, pool, ring ports, switch, config, worker        */

int
group_teardown(void **state)
{
	(void)state;
	rs_teardown(&H);
	return 0;
}

int
group_setup(void **state)
{
	char *text = config_text(NULL, N_PORTS);
	const struct rs_params params = {
		.prog = program_invocation_short_name, /* this test program */
		.file_prefix = "aif-qos", .tag = "qs",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = text,
	};
	int rc;

	(void)state;
	rc = rs_setup(&H, &params);
	free(text);
	if (rc != 0)
		return -1;
	if (H.sw->qos == NULL) {
		fprintf(stderr, "no QoS state after a default config\n");
		rs_teardown(&H);
		return -1;
	}
	return 0;
}

/* Before each test: empty every ring, note the mbufs in use (rs_reset). */
int
test_setup(void **state)
{
	(void)state;
	rs_reset(&H);
	return 0;
}
