/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for dataplane/bfd.c (and bfd.h): BFD control packets and one
 * session's state machine in virtual time (RFC 5880, 5881).  No EAL.
 *
 *   - The packet's bytes as the RFC lays them out; decode(encode) the same;
 *     each refusal of the reception rules, one field wrong at a time.
 *   - Two sessions handing each other their packets: the three-way
 *     handshake (Down, Init, Up), the slow TX interval until Up and the
 *     poll sequence that moves to the fast one (P answered by F).
 *   - Detection: Down exactly at the detection time without a packet, not
 *     one ns before (diagnostic 1); a neighbour's Down or AdminDown takes
 *     an Up session Down (diagnostic 3); admin down and up again.
 *   - TX times: 75 to 100% of the interval (75 to 90% with a multiplier of
 *     1), the same for the same discriminator.
 *   - The frame: TTL 255, CS6, UDP 3784, both checksums verify.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bfd.h"

#define MS AIF_NS_PER_MS
#define US AIF_NS_PER_US

static const struct aif_bfd_params P50 = { 50000, 3 };

/* Session a's packet now, decoded and given to b at t; what b said. */
static enum aif_bfd_bad
hand(struct aif_bfd_session *a, struct aif_bfd_session *b, aif_time_ns t)
{
	uint8_t buf[AIF_BFD_PKT_LEN];
	struct aif_bfd_pkt pkt;

	aif_bfd_encode(a, buf);
	aif_bfd_sent(a, t);
	assert_int_equal(aif_bfd_decode(buf, sizeof(buf), &pkt), AIF_BFD_OK);
	return aif_bfd_rx(b, &pkt, t);
}

/* a and b Up by the handshake, from t. */
static void
both_up(struct aif_bfd_session *a, struct aif_bfd_session *b, aif_time_ns t)
{
	aif_bfd_init(a, &P50, 0x11, t);
	aif_bfd_init(b, &P50, 0x22, t);
	assert_int_equal(hand(a, b, t), AIF_BFD_OK);      /* Down -> b Init */
	assert_int_equal(b->state, AIF_BFD_INIT);
	assert_int_equal(hand(b, a, t + 1), AIF_BFD_OK);  /* Init -> a Up */
	assert_int_equal(a->state, AIF_BFD_UP);
	assert_int_equal(hand(a, b, t + 2), AIF_BFD_OK);  /* Up -> b Up */
	assert_int_equal(b->state, AIF_BFD_UP);
}

static void
test_bytes(void **state)
{
	struct aif_bfd_session s;
	uint8_t b[AIF_BFD_PKT_LEN];
	struct aif_bfd_pkt pkt;

	(void)state;
	aif_bfd_init(&s, &P50, 0x01020304, 0);
	aif_bfd_encode(&s, b);
	static const uint8_t want[AIF_BFD_PKT_LEN] = {
		0x20, 0x40, 3, 24,             /* version 1, diag 0; Down, no flags */
		0x01, 0x02, 0x03, 0x04,        /* my discriminator */
		0, 0, 0, 0,                    /* your discriminator: none yet */
		0x00, 0x0f, 0x42, 0x40,        /* desired min TX: 1 s while not Up */
		0x00, 0x00, 0xc3, 0x50,        /* required min RX: 50,000 us */
		0, 0, 0, 0,                    /* no echo */
	};
	assert_memory_equal(b, want, sizeof(want));
	assert_int_equal(aif_bfd_decode(b, sizeof(b), &pkt), AIF_BFD_OK);
	assert_int_equal(pkt.version, 1);
	assert_int_equal(pkt.state, AIF_BFD_DOWN);
	assert_int_equal(pkt.detect_mult, 3);
	assert_int_equal(pkt.my_disc, 0x01020304);
	assert_int_equal(pkt.desired_min_tx_us, 1000000);
	assert_int_equal(pkt.required_min_rx_us, 50000);
	assert_false(pkt.poll || pkt.final || pkt.auth || pkt.multipoint);
}

static void
test_refusals(void **state)
{
	struct aif_bfd_session s;
	uint8_t ok[AIF_BFD_PKT_LEN], b[AIF_BFD_PKT_LEN + 4];
	struct aif_bfd_pkt pkt;

	(void)state;
	aif_bfd_init(&s, &P50, 7, 0);
	aif_bfd_encode(&s, ok);
	static const struct {
		unsigned off;
		uint8_t v;
		enum aif_bfd_bad want;
	} cases[] = {
		{ 0, 0x40, AIF_BFD_VERSION },    /* version 2 */
		{ 3, 23, AIF_BFD_LENGTH },
		{ 3, 29, AIF_BFD_SHORT },        /* longer than the 28 bytes given */
		{ 2, 0, AIF_BFD_MULT },
		{ 1, 0x41, AIF_BFD_MULTIPOINT },
		{ 1, 0x44, AIF_BFD_AUTH },
		{ 7, 0, AIF_BFD_MY_DISC },
		{ 1, 0xc0, AIF_BFD_NO_DISC },    /* Up, your discriminator 0 */
		{ 1, 0x80, AIF_BFD_NO_DISC },    /* Init, the same */
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(b, 0, sizeof(b));
		memcpy(b, ok, sizeof(ok));
		b[cases[i].off] = cases[i].v;
		assert_int_equal(aif_bfd_decode(b, sizeof(b), &pkt), cases[i].want);
	}
	assert_int_equal(aif_bfd_decode(ok, AIF_BFD_PKT_LEN - 1, &pkt), AIF_BFD_SHORT);
	/* Down with your discriminator 0 is how every session starts: taken */
	assert_int_equal(aif_bfd_decode(ok, sizeof(ok), &pkt), AIF_BFD_OK);

	/* a discriminator that is not ours: refused, counted, nothing moves */
	pkt.your_disc = 8;
	assert_int_equal(aif_bfd_rx(&s, &pkt, 5), AIF_BFD_YOUR_DISC);
	assert_int_equal(s.rx_bad[AIF_BFD_YOUR_DISC], 1);
	assert_int_equal(s.rx, 0);
	assert_int_equal(s.state, AIF_BFD_DOWN);
	assert_string_equal(aif_bfd_bad_name(AIF_BFD_YOUR_DISC), "your discriminator not ours");
}

static void
test_handshake_and_poll(void **state)
{
	struct aif_bfd_session a, b;
	uint8_t buf[AIF_BFD_PKT_LEN];
	struct aif_bfd_pkt pkt;

	(void)state;
	both_up(&a, &b, 0);
	assert_int_equal(a.ups, 1);
	assert_int_equal(b.ups, 1);
	assert_int_equal(a.your_disc, 0x22);
	assert_int_equal(b.your_disc, 0x11);
	/* Up: the fast interval, announced by a poll sequence */
	assert_int_equal(a.tx_us, 50000);
	assert_true(a.poll);
	aif_bfd_encode(&a, buf);
	assert_int_equal(aif_bfd_decode(buf, sizeof(buf), &pkt), AIF_BFD_OK);
	assert_true(pkt.poll);
	assert_false(pkt.final);
	assert_int_equal(pkt.desired_min_tx_us, 50000);
	/* b answers the P with F at once, a's poll ends */
	assert_int_equal(aif_bfd_rx(&b, &pkt, 3), AIF_BFD_OK);
	assert_true(aif_bfd_tx_due(&b, 3));
	aif_bfd_sent(&a, 3);
	aif_bfd_encode(&b, buf);
	assert_int_equal(aif_bfd_decode(buf, sizeof(buf), &pkt), AIF_BFD_OK);
	assert_true(pkt.final);
	assert_false(pkt.poll); /* never both */
	aif_bfd_sent(&b, 4);
	assert_false(b.final_due);
	assert_int_equal(aif_bfd_rx(&a, &pkt, 4), AIF_BFD_OK);
	assert_false(a.poll);
	/* the detection time: the remote's multiplier times its TX interval
	 * or our RX, the slower */
	assert_int_equal(aif_bfd_detect_ns(&a), 3 * 50 * MS);
}

static void
test_slow_until_up(void **state)
{
	struct aif_bfd_session a;

	(void)state;
	aif_bfd_init(&a, &P50, 0x11, 0);
	assert_true(aif_bfd_tx_due(&a, 0)); /* the first packet at once */
	aif_bfd_sent(&a, 0);
	/* not Up: 1 s less the jitter, not 50 ms */
	assert_in_range(a.next_tx_ns, 750 * MS, 1000 * MS);
	assert_false(aif_bfd_tx_due(&a, a.next_tx_ns - 1));
	assert_true(aif_bfd_tx_due(&a, a.next_tx_ns));
	assert_int_equal(aif_bfd_detect_ns(&a), 0); /* Down: no detection */
	assert_false(aif_bfd_timers(&a, 100 * AIF_NS_PER_S));
}

static void
test_detection(void **state)
{
	struct aif_bfd_session a, b;

	(void)state;
	both_up(&a, &b, 0);
	hand(&b, &a, 10 * MS); /* a last hears b at 10 ms; b's TX 50 ms */
	aif_time_ns d = aif_bfd_detect_ns(&a);
	assert_int_equal(d, 150 * MS);
	assert_false(aif_bfd_timers(&a, 10 * MS + d - 1));
	assert_int_equal(a.state, AIF_BFD_UP);
	assert_int_equal(aif_bfd_next_ns(&a) <= 10 * MS + d, 1);
	assert_true(aif_bfd_timers(&a, 10 * MS + d));
	assert_int_equal(a.state, AIF_BFD_DOWN);
	assert_int_equal(a.diag, AIF_BFD_DIAG_EXPIRED);
	assert_int_equal(a.your_disc, 0);
	assert_int_equal(a.downs, 1);
	assert_true(aif_bfd_tx_due(&a, 10 * MS + d)); /* says so at once */
	assert_string_equal(aif_bfd_diag_name(a.diag), "control_detection_time_expired");
	/* b hears a's Down while Up: Down, the neighbour said so */
	assert_int_equal(hand(&a, &b, 200 * MS), AIF_BFD_OK);
	assert_int_equal(b.state, AIF_BFD_DOWN);
	assert_int_equal(b.diag, AIF_BFD_DIAG_NEIGHBOR_DOWN);
	/* and they come up again by the handshake */
	hand(&b, &a, 201 * MS); /* Down -> a Init */
	assert_int_equal(a.state, AIF_BFD_INIT);
	hand(&a, &b, 202 * MS); /* Init -> b Up */
	hand(&b, &a, 203 * MS); /* Up -> a Up */
	assert_int_equal(a.state, AIF_BFD_UP);
	assert_int_equal(b.state, AIF_BFD_UP);
	assert_int_equal(a.ups, 2);
}

static void
test_admin(void **state)
{
	struct aif_bfd_session a, b;

	(void)state;
	both_up(&a, &b, 0);
	aif_bfd_set_admin(&a, true, 5 * MS);
	assert_int_equal(a.state, AIF_BFD_ADMIN_DOWN);
	assert_int_equal(a.diag, AIF_BFD_DIAG_ADMIN_DOWN);
	assert_int_equal(a.tx_us, 1000000); /* not Up: slow */
	assert_true(aif_bfd_tx_due(&a, 5 * MS));
	hand(&a, &b, 5 * MS);
	assert_int_equal(b.state, AIF_BFD_DOWN);
	assert_int_equal(b.diag, AIF_BFD_DIAG_NEIGHBOR_DOWN);
	/* b's Down does not bring a back, nor a's AdminDown b */
	hand(&b, &a, 6 * MS);
	assert_int_equal(a.state, AIF_BFD_ADMIN_DOWN);
	hand(&a, &b, 7 * MS);
	assert_int_equal(b.state, AIF_BFD_DOWN);
	/* no detection while admin down */
	assert_false(aif_bfd_timers(&a, 10 * AIF_NS_PER_S));
	aif_bfd_set_admin(&a, false, 8 * MS);
	assert_int_equal(a.state, AIF_BFD_DOWN);
	hand(&a, &b, 8 * MS);  /* Down -> b Init */
	hand(&b, &a, 9 * MS);  /* Init -> a Up */
	hand(&a, &b, 10 * MS); /* Up -> b Up */
	assert_int_equal(a.state, AIF_BFD_UP);
	assert_int_equal(b.state, AIF_BFD_UP);
	assert_int_equal(b.downs, 1);
}

static void
test_jitter(void **state)
{
	struct aif_bfd_session a, b, c;
	const struct aif_bfd_params one = { 50000, 1 };

	(void)state;
	both_up(&a, &b, 0);
	aif_bfd_init(&c, &one, 0x11, 0);
	c.state = AIF_BFD_UP;
	aif_bfd_set_params(&c, &one);
	c.remote_rx_us = 1;
	c.tx_use_us = 50000;
	unsigned seen_low = 0, seen_high = 0;
	for (int i = 0; i < 2000; i++) {
		aif_bfd_sent(&a, 0);
		assert_in_range(a.next_tx_ns, 37500 * US, 50000 * US);
		seen_low += a.next_tx_ns < 40000 * US;
		seen_high += a.next_tx_ns > 48000 * US;
		aif_bfd_sent(&c, 0);
		assert_in_range(c.next_tx_ns, 37500 * US, 45000 * US);
	}
	assert_true(seen_low > 0 && seen_high > 0); /* spread over the range */
	/* the same discriminator, the same times */
	struct aif_bfd_session x, y;
	aif_bfd_init(&x, &P50, 0x33, 0);
	aif_bfd_init(&y, &P50, 0x33, 0);
	for (int i = 0; i < 10; i++) {
		aif_bfd_sent(&x, (aif_time_ns)i);
		aif_bfd_sent(&y, (aif_time_ns)i);
		assert_int_equal(x.next_tx_ns, y.next_tx_ns);
	}
}

static uint32_t
sum16(const uint8_t *b, unsigned n, uint32_t s)
{
	for (unsigned i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static void
test_frame(void **state)
{
	struct aif_bfd_session s;
	uint8_t pkt[AIF_BFD_PKT_LEN], f[AIF_BFD_FRAME_LEN];
	struct aif_bfd_addrs a = {
		.src_mac = { { 0x02, 0, 0, 0, 0, 1 } }, .dst_mac = { { 0x02, 0, 0, 0, 0, 2 } },
		.src_ip = 0xac100000, .dst_ip = 0xac100001, .src_port = 49153,
	};

	(void)state;
	aif_bfd_init(&s, &P50, 9, 0);
	aif_bfd_encode(&s, pkt);
	assert_int_equal(aif_bfd_frame_build(f, &a, pkt), 66);
	assert_memory_equal(f, a.dst_mac.b, 6);
	assert_memory_equal(f + 6, a.src_mac.b, 6);
	assert_int_equal(f[12] << 8 | f[13], 0x0800);
	const uint8_t *ip = f + 14, *udp = ip + 20;
	assert_int_equal(ip[1] >> 2, 48); /* CS6 */
	assert_int_equal(ip[2] << 8 | ip[3], 52);
	assert_int_equal(ip[8], 255);
	assert_int_equal(ip[9], 17);
	assert_int_equal(sum16(ip, 20, 0), 0xffff); /* the header's checksum verifies */
	assert_int_equal(udp[0] << 8 | udp[1], 49153);
	assert_int_equal(udp[2] << 8 | udp[3], 3784);
	assert_int_equal(udp[4] << 8 | udp[5], 32);
	uint32_t ph = 0xac10 + 0x0000 + 0xac10 + 0x0001 + 17 + 32;
	assert_int_equal(sum16(udp, 32, ph), 0xffff); /* and the UDP one */
	assert_memory_equal(udp + 8, pkt, sizeof(pkt));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_handshake_and_poll),
		cmocka_unit_test(test_slow_until_up),
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_admin),
		cmocka_unit_test(test_jitter),
		cmocka_unit_test(test_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
