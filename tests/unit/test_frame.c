/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Light frames (dataplane/frame.c) against the whole frame they stand for:
 * nothing is light before the flag is registered; a light frame keeps its
 * whole length and gives a parser its headers; any range read is the whole
 * frame's (head, zeros, ICRC, and across them); made whole in place, in
 * segments chained from a pool of small mbufs, or not at all when that pool
 * is empty (the frame unchanged); copied whole it stays light, cut short it
 * is the whole frame's first bytes; frames that are not light pass through
 * every call as DPDK's own; an ICRC left to be computed where the frame is
 * read is the host's, after the stages' changes too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "frame.h"
#include "parse.h"
#include "roce.h"

#include "test_eal.h"

#define HEAD 70      /* Ethernet, IPv4, UDP, BTH, RETH */
#define PAYLOAD 1000

static struct rte_mempool *pool, *small, *tiny;
static uint8_t whole[HEAD + PAYLOAD + 4];

/* A RoCEv2 WRITE FIRST frame with a payload of zeros and its ICRC. */
static void
make_whole(void)
{
	static const uint8_t hdr[HEAD] = {
		2, 0, 0, 0, 0, 0x10, 2, 0, 0, 0, 0, 1, 0x08, 0x00,
		0x45, 0x6a, (HEAD - 14 + PAYLOAD + 4) >> 8, (HEAD - 14 + PAYLOAD + 4) & 0xff,
		0, 7, 0x40, 0, 64, 17, 0, 0, 10, 0, 0, 2, 10, 0, 1, 2,
		0xc1, 0x23, 0x12, 0xb7, (HEAD - 34 + PAYLOAD + 4) >> 8,
		(HEAD - 34 + PAYLOAD + 4) & 0xff, 0, 0,
		0x06, 0, 0xff, 0xff, 0, 0, 1, 0x01, 0x80, 0x12, 0x34, 0x56,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xe8,
	};
	memset(whole, 0, sizeof(whole));
	memcpy(whole, hdr, HEAD);
	uint16_t ck = rte_ipv4_cksum((const struct rte_ipv4_hdr *)(whole + 14));
	memcpy(whole + 24, &ck, 2);
	aif_roce_icrc_put(whole + 14, sizeof(whole) - 14);
}

/* The same frame light: its head, then its ICRC. */
static struct rte_mbuf *
make_light(struct rte_mempool *mp)
{
	uint8_t d[HEAD + 4];

	memcpy(d, whole, HEAD);
	memcpy(d + HEAD, whole + sizeof(whole) - 4, 4);
	return aif_frame_light_from_bytes(mp, d, HEAD, PAYLOAD);
}

/* The frame's bytes, segment by segment. */
static void
assert_whole(const struct rte_mbuf *m, const uint8_t *want, uint32_t len)
{
	uint32_t off = 0;

	assert_false(aif_frame_is_light(m));
	assert_int_equal(rte_pktmbuf_pkt_len(m), len);
	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		assert_true(off + s->data_len <= len);
		assert_memory_equal(rte_pktmbuf_mtod(s, const uint8_t *), want + off, s->data_len);
		off += s->data_len;
	}
	assert_int_equal(off, len);
}

static void
test_light_frame(void **state)
{
	struct aif_pkt meta;

	(void)state;
	struct rte_mbuf *m = make_light(pool);
	assert_non_null(m);
	assert_true(aif_frame_is_light(m));
	assert_int_equal(rte_pktmbuf_pkt_len(m), sizeof(whole));
	assert_int_equal(rte_pktmbuf_data_len(m), HEAD + 4);
	assert_int_equal(aif_frame_head_len(m), HEAD);
	assert_int_equal(aif_frame_parse_len(m), sizeof(whole));
	/* the parser sees the whole frame's headers and lengths */
	assert_int_equal(aif_parse(rte_pktmbuf_mtod(m, const uint8_t *), aif_frame_parse_len(m),
				   &meta), 0);
	assert_true(meta.flags & AIF_PKT_F_ROCE);
	assert_int_equal(meta.l3_len, sizeof(whole) - 14);
	assert_int_equal(meta.psn, 0x123456);
	rte_pktmbuf_free(m);
}

/* Every range: within the head a pointer into the mbuf, else the whole
 * frame's bytes copied. */
static void
test_read_ranges(void **state)
{
	static uint8_t buf[sizeof(whole)];
	const uint32_t len = sizeof(whole);
	const uint32_t offs[] = { 0, 13, HEAD - 1, HEAD, HEAD + 3, 500, len - 5, len - 4,
				  len - 1 };

	(void)state;
	struct rte_mbuf *m = make_light(pool);
	for (unsigned i = 0; i < RTE_DIM(offs); i++)
		for (uint32_t n = 1; offs[i] + n <= len; n = n < 8 ? n + 1 : n * 3) {
			memset(buf, 0xAA, sizeof(buf));
			const uint8_t *b = aif_frame_read(m, offs[i], n, buf);
			assert_non_null(b);
			assert_memory_equal(b, whole + offs[i], n);
			if (offs[i] + n <= HEAD)
				assert_ptr_equal(b, rte_pktmbuf_mtod_offset(m, uint8_t *, offs[i]));
		}
	assert_memory_equal(aif_frame_read(m, 0, len, buf), whole, len);
	assert_null(aif_frame_read(m, 1, len, buf));
	assert_null(aif_frame_read(m, len + 1, 0, buf));
	rte_pktmbuf_free(m);
}

static void
test_materialise(void **state)
{
	(void)state;
	/* in place: the room is there */
	struct rte_mbuf *m = make_light(pool);
	assert_int_equal(aif_frame_materialise(m), 0);
	assert_int_equal(m->nb_segs, 1);
	assert_whole(m, whole, sizeof(whole));
	assert_int_equal(aif_frame_materialise(m), 0); /* not light: nothing */
	assert_whole(m, whole, sizeof(whole));
	rte_pktmbuf_free(m);

	/* chained from its own pool's small mbufs */
	m = make_light(small);
	assert_int_equal(aif_frame_materialise(m), 0);
	assert_true(m->nb_segs > 1);
	assert_whole(m, whole, sizeof(whole));
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(small), 0);

	/* a pool too small for the segments: the frame stays as it was */
	m = make_light(tiny);
	assert_non_null(m);
	assert_int_equal(aif_frame_materialise(m), -1);
	assert_true(aif_frame_is_light(m));
	assert_int_equal(rte_pktmbuf_data_len(m), HEAD + 4);
	assert_int_equal(rte_pktmbuf_pkt_len(m), sizeof(whole));
	assert_int_equal(rte_mempool_in_use_count(tiny), 1);
	uint8_t buf[sizeof(whole)];
	assert_memory_equal(aif_frame_read(m, 0, sizeof(whole), buf), whole, sizeof(whole));
	rte_pktmbuf_free(m);
}

static void
test_copy(void **state)
{
	(void)state;
	struct rte_mbuf *m = make_light(pool);

	/* whole: light, the same bytes read back */
	struct rte_mbuf *c = aif_frame_copy(m, pool, UINT32_MAX);
	uint8_t buf[sizeof(whole)];
	assert_true(aif_frame_is_light(c));
	assert_int_equal(rte_pktmbuf_pkt_len(c), sizeof(whole));
	assert_memory_equal(aif_frame_read(c, 0, sizeof(whole), buf), whole, sizeof(whole));
	rte_pktmbuf_free(c);
	/* cut short, inside the head, inside the zeros, inside the ICRC; and
	 * into small mbufs (chained) */
	const uint32_t cuts[] = { 40, HEAD, 600, sizeof(whole) - 2 };
	for (unsigned i = 0; i < RTE_DIM(cuts); i++) {
		c = aif_frame_copy(m, pool, cuts[i]);
		assert_whole(c, whole, cuts[i]);
		rte_pktmbuf_free(c);
		c = aif_frame_copy(m, small, cuts[i]);
		assert_whole(c, whole, cuts[i]);
		rte_pktmbuf_free(c);
	}
	/* a frame that is not light: DPDK's copy */
	assert_int_equal(aif_frame_materialise(m), 0);
	c = aif_frame_copy(m, pool, 100);
	assert_whole(c, whole, 100);
	rte_pktmbuf_free(c);
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
	assert_int_equal(rte_mempool_in_use_count(small), 0);
}

/* The same frame light, its ICRC to be computed where it is read (its
 * tail garbage until then). */
static struct rte_mbuf *
make_light_deferred(struct rte_mempool *mp)
{
	uint8_t d[HEAD + 4];

	memcpy(d, whole, HEAD);
	memset(d + HEAD, 0xEE, 4);
	struct rte_mbuf *m = aif_frame_light_from_bytes(mp, d, HEAD, PAYLOAD);
	assert_non_null(m);
	aif_frame_icrc_defer(m);
	return m;
}

/*
 * An ICRC that waits: read, copied, made whole or put in place, the frame's
 * bytes are the whole frame's, its ICRC the host's; after the stages'
 * changes (TTL, ECN and the checksum; a tag pushed in front) the ICRC is
 * still the one the host computed, which the ICRC masks and does not
 * cover; a frame whose ICRC does not wait keeps its tail as it is.
 */
static void
test_icrc_deferred(void **state)
{
	static uint8_t buf[sizeof(whole) + 4], want[sizeof(whole) + 4];
	const uint32_t len = sizeof(whole);

	(void)state;
	struct rte_mbuf *m = make_light_deferred(pool);
	assert_true(aif_frame_icrc_deferred(m));
	assert_memory_equal(aif_frame_read(m, 0, len, buf), whole, len);
	assert_memory_equal(aif_frame_read(m, len - 4, 4, buf), whole + len - 4, 4);

	/* a switch's changes: TTL down, CE, the checksum again */
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	f[22] = 63;
	f[15] |= 3;
	f[24] = f[25] = 0;
	uint16_t ck = rte_ipv4_cksum((const struct rte_ipv4_hdr *)(f + 14));
	memcpy(f + 24, &ck, 2);
	memcpy(want, whole, len);
	memcpy(want, f, HEAD);
	uint32_t icrc = aif_roce_icrc(want + 14, len - 14);
	assert_memory_equal(&icrc, whole + len - 4, 4); /* masked: the host's */
	assert_memory_equal(aif_frame_read(m, 0, len, buf), want, len);

	/* copied whole: still waits; cut short: the bytes */
	struct rte_mbuf *c = aif_frame_copy(m, pool, UINT32_MAX);
	assert_true(aif_frame_is_light(c) && aif_frame_icrc_deferred(c));
	assert_memory_equal(aif_frame_read(c, 0, len, buf), want, len);
	rte_pktmbuf_free(c);
	c = aif_frame_copy(m, small, len - 2);
	assert_whole(c, want, len - 2);
	rte_pktmbuf_free(c);

	/* a tag pushed in front (an egress port with a VLAN) */
	struct rte_mbuf *t = aif_frame_copy(m, pool, UINT32_MAX);
	uint8_t macs[12];
	memcpy(macs, rte_pktmbuf_mtod(t, uint8_t *), 12);
	assert_non_null(rte_pktmbuf_prepend(t, 4));
	uint8_t *tf = rte_pktmbuf_mtod(t, uint8_t *);
	memcpy(tf, macs, 12);
	tf[12] = 0x81, tf[13] = 0x00, tf[14] = 0x00, tf[15] = 0x0a;
	memcpy(buf, want, 12);
	memcpy(buf + 12, tf + 12, 4);
	memcpy(buf + 16, want + 12, len - 12);
	memcpy(want, buf, len + 4);
	assert_memory_equal(aif_frame_read(t, 0, len + 4, buf), want, len + 4);
	assert_int_equal(aif_frame_materialise(t), 0);
	assert_false(aif_frame_icrc_deferred(t));
	assert_whole(t, want, len + 4);
	rte_pktmbuf_free(t);

	/* put in place: the tail holds it, nothing waits */
	aif_frame_icrc_fill(m);
	assert_true(aif_frame_is_light(m));
	assert_false(aif_frame_icrc_deferred(m));
	assert_memory_equal(rte_pktmbuf_mtod_offset(m, uint8_t *, HEAD), whole + len - 4, 4);
	rte_pktmbuf_free(m);

	/* made whole: the host's ICRC at the end, the flag gone */
	m = make_light_deferred(small);
	assert_int_equal(aif_frame_materialise(m), 0);
	assert_false(aif_frame_icrc_deferred(m));
	assert_whole(m, whole, len);
	rte_pktmbuf_free(m);

	/* not waiting: the tail as it was put there */
	m = make_light_deferred(pool);
	m->ol_flags &= ~aif_frame_icrc_deferred_mask;
	const uint8_t *tail = aif_frame_read(m, len - 4, 4, buf);
	assert_int_equal(tail[0], 0xEE);
	rte_pktmbuf_free(m);
	assert_int_equal(rte_mempool_in_use_count(pool), 0);
	assert_int_equal(rte_mempool_in_use_count(small), 0);
}

static int
setup(void **state)
{
	(void)state;
	if (test_eal_init("test_frame", "aif-ut-frame", 64) != 0)
		return -1;
	make_whole();
	/* nothing is light before the flag is registered */
	pool = rte_pktmbuf_pool_create("fr_pool", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	small = rte_pktmbuf_pool_create("fr_small", 63, 0, 0, RTE_PKTMBUF_HEADROOM + 128, 0);
	tiny = rte_pktmbuf_pool_create("fr_tiny", 2, 0, 0, RTE_PKTMBUF_HEADROOM + 128, 0);
	if (pool == NULL || small == NULL || tiny == NULL || make_light(pool) != NULL ||
	    aif_frame_light_mask != 0)
		return -1;
	return aif_frame_light_enable() == 0 && aif_frame_light_enable() == 0 &&
	       aif_frame_light_mask != 0 ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(pool);
	rte_mempool_free(small);
	rte_mempool_free(tiny);
	test_eal_cleanup();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_light_frame),
		cmocka_unit_test(test_read_ranges),
		cmocka_unit_test(test_materialise),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_icrc_deferred),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
