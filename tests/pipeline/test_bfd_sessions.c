/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipeline tests for control/bfd_sessions.c: a BFD session on a switch's
 * port, end to end through the switch (the pipeline fixture's leaf0, p1
 * with "bfd"), stepped in virtual time:
 *
 *   - started, the session sends Down out of p1 at once: Ethernet to the
 *     neighbour's MAC, IPv4 10.0.1.1 -> 10.0.1.0, TTL 255, CS6, UDP 3784
 *     from 49152 up, both checksums right (the tests' own sum), and the
 *     24 bytes of RFC 5880; p1 carries no traffic while the session is
 *     not Up;
 *   - the peer's Down heard on p1 (bfd_rx) takes it Init, sent at once
 *     with the peer's discriminator; the peer's Up takes it Up; show bfd
 *     says so;
 *   - what is refused and counted: TTL 254 ("TTL not 255"), a source that
 *     is not the peer, another discriminator; a BFD packet to p2, which
 *     runs no session, dropped as to_switch;
 *   - nothing heard for the detection time: Down (control detection time
 *     expired), p1 out of use again; "link leaf0:p1 down" sends AdminDown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_mbuf.h>

#include "bfd.h"
#include "bfd_sessions.h"
#include "pipeline_fixture.h"

#define PEER_DISC 0x77u

static const uint32_t ip_p1 = IP4(10, 0, 1, 1), ip_peer = IP4(10, 0, 1, 0);
static const uint8_t mac_peer[6] = { 0x02, 0, 0, 0, 0x01, 0x00 };

/* The fixture's config with "bfd" on p1 (10 ms, x3). */
static char *
bfd_config(void)
{
	char *s = config_text(BASE_SEED, members_fwd, "net_ring_pl3", "");
	const char *at = strstr(s, "\"name\": \"p1\",");
	const char *add = "\"bfd\": {\"interval_ms\": 10}, ";
	char *t = malloc(strlen(s) + strlen(add) + 1);

	assert_non_null(at);
	assert_non_null(t);
	size_t k = (size_t)(at - s);
	memcpy(t, s, k);
	strcpy(t + k, add);
	strcat(t, s + k);
	free(s);
	return t;
}

/* A BFD control packet from src to 10.0.1.1 with ttl, into port. */
static void
inject_bfd(uint16_t port, uint32_t src, uint8_t ttl, uint8_t state, uint32_t my, uint32_t your)
{
	uint8_t f[FRAME_MAX], *ip = eth(f, mac_port[port], mac_peer, 0x0800), *udp = ip + IP4_HLEN;
	uint8_t *b = udp + UDP_HLEN;

	memset(ip, 0, IP4_HLEN + UDP_HLEN + AIF_BFD_PKT_LEN);
	ip[0] = 0x45;
	ip[1] = 48 << 2;
	put16(ip + 2, IP4_HLEN + UDP_HLEN + AIF_BFD_PKT_LEN);
	ip[8] = ttl;
	ip[9] = 17;
	put32(ip + 12, src);
	put32(ip + 16, port == 1 ? ip_p1 : IP4(10, 0, 1, 3));
	put16(ip + 10, (uint16_t)~sum16(0, ip, IP4_HLEN));
	put16(udp, 49999);
	put16(udp + 2, AIF_BFD_UDP_PORT);
	put16(udp + 4, UDP_HLEN + AIF_BFD_PKT_LEN);
	b[0] = 1 << 5;
	b[1] = (uint8_t)(state << 6);
	b[2] = 3;
	b[3] = AIF_BFD_PKT_LEN;
	put32(b + 4, my);
	put32(b + 8, your);
	put32(b + 12, 10000);
	put32(b + 16, 10000);
	inject(port, f, (uint16_t)(ETH_HLEN + IP4_HLEN + UDP_HLEN + AIF_BFD_PKT_LEN));
	run();
}

/* Control's poll at the time now, then a step: what p1 sent (NULL: none). */
static struct rte_mbuf *
poll_sent(void)
{
	aif_ctl_bfd_poll(&H.ctl);
	step();
	struct rte_mbuf *out[4];
	unsigned n = sent(1, out, 4);
	assert_true(n <= 1);
	return n ? out[0] : NULL;
}

/* The frame is BFD from p1 to its peer, every byte as it must be; its
 * packet decoded. */
static void
check_frame(struct rte_mbuf *mb, struct aif_bfd_pkt *pkt)
{
	const uint8_t *f = rte_pktmbuf_mtod(mb, const uint8_t *);
	const uint8_t *ip = f + ETH_HLEN, *udp = ip + IP4_HLEN;

	assert_int_equal(rte_pktmbuf_pkt_len(mb), AIF_BFD_FRAME_LEN);
	assert_memory_equal(f, mac_peer, 6);
	assert_memory_equal(f + 6, mac_port[1], 6);
	assert_int_equal(get16(f + 12), 0x0800);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[1] >> 2, 48);
	assert_int_equal(ip[8], 255);
	assert_int_equal(ip[9], 17);
	assert_int_equal(get32(ip + 12), ip_p1);
	assert_int_equal(get32(ip + 16), ip_peer);
	assert_int_equal(sum16(0, ip, IP4_HLEN), 0xffff);
	assert_in_range(get16(udp), 49152, 65535);
	assert_int_equal(get16(udp + 2), 3784);
	assert_int_equal(get16(udp + 4), UDP_HLEN + AIF_BFD_PKT_LEN);
	uint8_t pseudo[12];
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = 17;
	put16(pseudo + 10, UDP_HLEN + AIF_BFD_PKT_LEN);
	assert_int_equal(sum16(sum16(0, pseudo, 12), udp, UDP_HLEN + AIF_BFD_PKT_LEN), 0xffff);
	assert_int_equal(aif_bfd_decode(udp + UDP_HLEN, AIF_BFD_PKT_LEN, pkt), AIF_BFD_OK);
	rte_pktmbuf_free(mb);
}

/* show bfd's one session, a field of it. */
static json_t *
shown(void)
{
	json_t *r = ctl_request("{\"cmd\": \"show_bfd\"}");
	json_t *arr = json_object_get(r, "result");
	assert_true(json_is_array(arr));
	assert_int_equal(json_array_size(arr), 1);
	json_t *s = json_incref(json_array_get(arr, 0));
	json_decref(r);
	return s;
}

static void
assert_shown(const char *key, const char *want)
{
	json_t *s = shown();
	assert_string_equal(json_string_value(json_object_get(s, key)), want);
	json_decref(s);
}

static long long
shown_bad(const char *why)
{
	json_t *s = shown();
	json_t *v = json_object_get(json_object_get(s, "rx_bad"), why);
	long long n = v != NULL ? json_integer_value(v) : 0;
	json_decref(s);
	return n;
}

static void
test_session(void **state)
{
	char err[AIF_ERR_MAX] = "";
	struct aif_bfd_pkt pkt;
	struct rs_snap before;

	(void)state;
	load_text(bfd_config());
	assert_int_equal(aif_ctl_bfd_start(&H.ctl, err, sizeof(err)), 0);
	assert_non_null(H.ctl.bfd);
	assert_non_null(H.sw->bfd_rx);
	assert_false(aif_bfd_port_up(H.ctl.bfd, 0, 1)); /* Down: no traffic on p1 */
	assert_true(aif_bfd_port_up(H.ctl.bfd, 0, 2));  /* p2 runs none */

	/* Down, sent at once */
	struct rte_mbuf *mb = poll_sent();
	assert_non_null(mb);
	check_frame(mb, &pkt);
	assert_int_equal(pkt.state, AIF_BFD_DOWN);
	assert_int_equal(pkt.your_disc, 0);
	assert_int_equal(pkt.desired_min_tx_us, 1000000);
	assert_int_equal(pkt.required_min_rx_us, 10000);
	uint32_t ours = pkt.my_disc;
	assert_true(ours != 0);
	assert_null(poll_sent()); /* the next one a second later, less jitter */

	/* the peer's Down: Init, sent at once, to its discriminator */
	snap_take(&before);
	inject_bfd(1, ip_peer, 255, AIF_BFD_DOWN, PEER_DISC, 0);
	assert_int_equal(delta(&before, 1).bfd_rx, 1);
	assert_int_equal(delta(&before, 1).bfd_ring_full, 0);
	mb = poll_sent();
	assert_non_null(mb);
	check_frame(mb, &pkt);
	assert_int_equal(pkt.state, AIF_BFD_INIT);
	assert_int_equal(pkt.your_disc, PEER_DISC);
	assert_shown("state", "init");

	/* the peer's Up: Up */
	inject_bfd(1, ip_peer, 255, AIF_BFD_UP, PEER_DISC, ours);
	mb = poll_sent();
	assert_non_null(mb);
	check_frame(mb, &pkt);
	assert_int_equal(pkt.state, AIF_BFD_UP);
	assert_true(pkt.poll); /* to 10 ms, by a poll sequence */
	assert_int_equal(pkt.desired_min_tx_us, 10000);
	assert_true(aif_bfd_port_up(H.ctl.bfd, 0, 1));
	assert_shown("state", "up");
	assert_shown("remote_state", "up");

	/* refused, counted: nothing moves */
	inject_bfd(1, ip_peer, 254, AIF_BFD_DOWN, PEER_DISC, ours);
	inject_bfd(1, IP4(10, 0, 1, 9), 255, AIF_BFD_DOWN, PEER_DISC, ours);
	inject_bfd(1, ip_peer, 255, AIF_BFD_DOWN, PEER_DISC, ours + 1);
	aif_ctl_bfd_poll(&H.ctl);
	assert_int_equal(shown_bad("TTL not 255"), 1);
	assert_int_equal(shown_bad("not from the port's peer"), 1);
	assert_int_equal(shown_bad("your discriminator not ours"), 1);
	assert_shown("state", "up");
	/* to p2, which runs no session: not the switch's to take */
	snap_take(&before);
	inject_bfd(2, IP4(10, 0, 1, 2), 255, AIF_BFD_DOWN, PEER_DISC, 0);
	assert_int_equal(delta(&before, 2).bfd_rx, 0);
	assert_drops(&before, 2, AIF_DROP_TO_SWITCH, 1);

	/* nothing for the detection time (3 x 10 ms): Down, expired */
	rs_step(&H, 31 * AIF_NS_PER_MS);
	mb = poll_sent();
	assert_non_null(mb);
	check_frame(mb, &pkt);
	assert_int_equal(pkt.state, AIF_BFD_DOWN);
	assert_int_equal(pkt.diag, AIF_BFD_DIAG_EXPIRED);
	assert_false(aif_bfd_port_up(H.ctl.bfd, 0, 1));
	assert_shown("diag", "control_detection_time_expired");

	/* by hand: AdminDown on the wire at once */
	json_t *r = ctl_request("{\"cmd\": \"link_set\", \"link\": \"leaf0:p1\", \"state\": \"down\"}");
	json_t *res = json_object_get(r, "result");
	assert_string_equal(json_string_value(json_object_get(res, "bfd")), "admin_down");
	json_decref(r);
	step();
	mb = sent_one(1);
	check_frame(mb, &pkt);
	assert_int_equal(pkt.state, AIF_BFD_ADMIN_DOWN);
	assert_int_equal(pkt.diag, AIF_BFD_DIAG_ADMIN_DOWN);

	/* the base config again: no session, p1 as its device says */
	load_config(BASE_SEED, members_fwd);
	assert_true(aif_bfd_port_up(H.ctl.bfd, 0, 1));
	aif_bfd_sessions_free(H.ctl.bfd);
	H.ctl.bfd = NULL;
	H.ctl.bfd_on = false;
	assert_clean();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_session, test_setup),
	};
	return cmocka_run_group_tests_name("bfd_sessions", tests, group_setup, group_teardown);
}
