/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the frame parser (pipelines/parse.c), what every
 * frame from a device port or a pcap file meets first.  The input is the
 * frame, held in a buffer of exactly its length (ASan: no byte past it is
 * read).  A finding is any fault, or:
 *
 *   a verdict that is not 0 or a parse drop reason, or a drop field that
 *   differs from it;
 *   a frame passed whose fields say more than its bytes hold: the IP packet
 *   past the frame's end, an L4 header past the IP packet's, a RoCEv2 BTH
 *   past it, a tag flag without the tag;
 *   a different answer for the same frame behind an 802.1Q tag of VID 0
 *   (the parser's own path for the common RoCEv2 frame against its general
 *   one, and the general one against itself): the same verdict, kind and
 *   drop, and when passed the same fields but the tag's own (its flag and
 *   priority, offsets 4 bytes further).
 *
 *   tests/fuzz/parse_seeds.py SEEDS && build-fuzz/tests/fuzz_parse -max_total_time=30 CORPUS SEEDS
 *   (or tests/fuzz/run.sh build-fuzz 30 parse)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define FRAME_MAX 4096 /* longer inputs are cut: every header is well inside */

static void
finding(const char *what, size_t n)
{
	fprintf(stderr, "fuzz_parse: %s (frame of %zu bytes)\n", what, n);
	abort();
}

static unsigned
l4_min(const struct aif_pkt *m)
{
	if (m->flags & AIF_PKT_F_ROCE)
		return 8 + AIF_BTH_LEN;
	switch (m->l4_proto) {
	case 17:
		return 8;
	case 6:
		return 20;
	default:
		return 4; /* ICMP, ICMPv6 */
	}
}

/* What a frame that passed says of itself, against its n bytes. */
static void
check_passed(const uint8_t *f, size_t n, const struct aif_pkt *m)
{
	if (m->drop != 0)
		finding("passed with a drop reason", n);
	if ((m->flags & AIF_PKT_F_VLAN) && !(n >= 18 && f[12] == 0x81 && f[13] == 0x00))
		finding("a tag flag without the tag", n);
	if (m->kind != AIF_PKT_IPV4 && m->kind != AIF_PKT_IPV6)
		return;
	if (m->l3_off != ((m->flags & AIF_PKT_F_VLAN) ? 18 : 14))
		finding("IP header elsewhere than after the Ethernet header", n);
	if ((size_t)m->l3_off + m->l3_len > n)
		finding("IP packet past the frame's end", n);
	if (m->l4_off != 0 && (m->l4_off <= m->l3_off ||
			       (size_t)m->l4_off + l4_min(m) > (size_t)m->l3_off + m->l3_len))
		finding("L4 header past the IP packet's end", n);
	if ((m->flags & AIF_PKT_F_L4) && m->l4_off == 0)
		finding("L4 ports without an L4 header", n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = size < FRAME_MAX ? size : FRAME_MAX;
	uint8_t *f = malloc(n ? n : 1), *t = malloc(n + 4);
	struct aif_pkt m, g;

	if (f == NULL || t == NULL)
		abort();
	memcpy(f, data, n);
	memset(&m, 0xa5, sizeof(m));
	int r = aif_parse(f, (uint32_t)n, &m);
	if (r != 0 && r != AIF_DROP_TRUNCATED && r != AIF_DROP_MALFORMED &&
	    r != AIF_DROP_UNSUPPORTED)
		finding("a verdict that is not the parser's", n);
	if (r != 0 && m.drop != r)
		finding("the drop field differs from the verdict", n);
	if (r == 0)
		check_passed(f, n, &m);

	/* the same frame behind a tag of VID 0 (not one tagged already: a tag
	 * inside a tag is refused, where alone it is read) */
	if (n >= 14 && !(f[12] == 0x81 && f[13] == 0x00) && !(f[12] == 0x88 && f[13] == 0xa8)) {
		memcpy(t, f, 12);
		t[12] = 0x81, t[13] = 0x00, t[14] = 0, t[15] = 0;
		memcpy(t + 16, f + 12, n - 12);
		memset(&g, 0x5a, sizeof(g));
		int rg = aif_parse(t, (uint32_t)n + 4, &g);
		if (rg != r || g.drop != m.drop || g.kind != m.kind)
			finding("a different verdict behind a tag of VID 0", n);
		if (r == 0) {
			if (g.flags != (m.flags | AIF_PKT_F_VLAN) || g.vlan_id != 0 || g.pcp != 0 ||
			    g.l3_off != (m.l3_off ? m.l3_off + 4 : 0) ||
			    g.l4_off != (m.l4_off ? m.l4_off + 4 : 0))
				finding("the tag read wrongly", n);
			g.flags = m.flags;
			g.l3_off = m.l3_off;
			g.l4_off = m.l4_off;
			if (memcmp(&m, &g, sizeof(m)) != 0)
				finding("different fields behind a tag of VID 0", n);
		}
	}
	free(f);
	free(t);
	return 0;
}
