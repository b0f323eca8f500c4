/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pfc_pcap: write a pcap file of PFC and PAUSE frames built by
 * aif_pfc_frame_build / aif_pause_frame_build, and the values each frame
 * was built with, so that a third party (tshark, in
 * tests/e2e/check_pfc_tshark.sh) can check the bytes we put on the wire.
 *
 *	pfc_pcap OUT.pcap OUT.csv
 *
 * OUT.pcap: classic pcap (magic 0xa1b2c3d4 in host order, version 2.4,
 * LINKTYPE_ETHERNET), one 60-byte frame per record, timestamps 1 us apart.
 * OUT.csv: one line per frame, "n,kind,opcode,enbv,t0,...,t7,pause_time":
 * kind pfc|pause; opcode and enbv as 0x%04x; t0..t7 the time each priority
 * must show on the wire (0 where the class is not enabled: the builder
 * writes no time there, whatever the caller passed); pause_time for PAUSE
 * (empty for PFC), t0..t7 empty for PAUSE.
 * Plain stdio, no libpcap.  Exit 0, or 1 on an I/O or build error.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pfc.h"

struct gen_frame {
	int pause;                      /* 1: 802.3x PAUSE */
	uint8_t class_enable;           /* PFC */
	uint16_t quanta[AIF_PFC_PRIOS]; /* PFC; [0] is the PAUSE time */
};

static const struct gen_frame frames[] = {
	/* XOFF on priority 3, the RoCE class, full time. */
	{ 0, 0x08, { [3] = 0xFFFF } },
	/* Two priorities in one frame (SONiC lossless 3 and 4). */
	{ 0, 0x18, { [3] = 0xFFFF, [4] = 0x1234 } },
	/* XON on priority 3. */
	{ 0, 0x08, { 0 } },
	/* All eight, edge values. */
	{ 0, 0xFF, { 1, 2, 0x00FF, 0x0100, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF } },
	/* Mixed XON/XOFF; times passed for disabled classes 1, 3, 4, 6 must
	 * not reach the wire. */
	{ 0, 0xA5, { 0, 0x5555, 0xABCD, 0x5555, 0x5555, 0, 0x5555, 0x0001 } },
	/* 802.3x PAUSE, full time, then XON. */
	{ 1, 0, { 0xFFFF } },
	{ 1, 0, { 0 } },
};

static const struct aif_mac src_mac = { { 0x02, 0x00, 0x00, 0x00, 0x00, 0x03 } };

static int
put32(FILE *f, uint32_t v)
{
	return fwrite(&v, sizeof(v), 1, f) == 1 ? 0 : -1;
}

static int
put16(FILE *f, uint16_t v)
{
	return fwrite(&v, sizeof(v), 1, f) == 1 ? 0 : -1;
}

int
main(int argc, char **argv)
{
	FILE *pcap, *csv;
	unsigned i, p;
	int rc = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s OUT.pcap OUT.csv\n", argv[0]);
		return 1;
	}
	pcap = fopen(argv[1], "wb");
	csv = fopen(argv[2], "w");
	if (pcap == NULL || csv == NULL) {
		perror("pfc_pcap: open");
		return 1;
	}
	/* Global header: magic, version 2.4, thiszone, sigfigs, snaplen,
	 * network (1 = Ethernet). */
	rc |= put32(pcap, 0xa1b2c3d4);
	rc |= put16(pcap, 2);
	rc |= put16(pcap, 4);
	rc |= put32(pcap, 0);
	rc |= put32(pcap, 0);
	rc |= put32(pcap, 65535);
	rc |= put32(pcap, 1);

	for (i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
		const struct gen_frame *g = &frames[i];
		uint8_t buf[AIF_PFC_FRAME_LEN];
		int n;

		if (g->pause)
			n = aif_pause_frame_build(buf, sizeof(buf), &src_mac, g->quanta[0]);
		else
			n = aif_pfc_frame_build(buf, sizeof(buf), &src_mac, g->class_enable,
						g->quanta);
		if (n != AIF_PFC_FRAME_LEN) {
			fprintf(stderr, "pfc_pcap: frame %u: build returned %d\n", i + 1, n);
			return 1;
		}
		rc |= put32(pcap, 1);      /* ts_sec */
		rc |= put32(pcap, i);      /* ts_usec */
		rc |= put32(pcap, (uint32_t)n); /* incl_len */
		rc |= put32(pcap, (uint32_t)n); /* orig_len (no FCS captured) */
		if (fwrite(buf, 1, (size_t)n, pcap) != (size_t)n)
			rc = -1;

		if (g->pause) {
			fprintf(csv, "%u,pause,0x%04x,,,,,,,,,,%u\n", i + 1,
				AIF_MAC_CTRL_OP_PAUSE, g->quanta[0]);
			continue;
		}
		fprintf(csv, "%u,pfc,0x%04x,0x%04x", i + 1, AIF_MAC_CTRL_OP_PFC,
			g->class_enable);
		for (p = 0; p < AIF_PFC_PRIOS; p++)
			fprintf(csv, ",%u",
				(g->class_enable & (1u << p)) ? g->quanta[p] : 0u);
		fprintf(csv, ",\n");
	}
	if (fclose(pcap) != 0)
		rc = -1;
	if (fclose(csv) != 0)
		rc = -1;
	if (rc) {
		fprintf(stderr, "pfc_pcap: write failed\n");
		return 1;
	}
	return 0;
}
