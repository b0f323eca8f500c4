/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the pcap port's reader (dataplane/pcap_port.c): the
 * --pcap-in files of virtual time, any capture a user brings.  The input
 * is the file, written to a folder of the harness's own, opened as a port
 * at 100 Gb/s and received to its end (at most 4,096 frames).  A finding is
 * any fault, a leak, or:
 *
 *   a refusal that does not name the file, or a file taken whose header
 *   the reader promises to refuse (not classic pcap, not Ethernet);
 *   a frame received shorter than an Ethernet header or longer than a
 *   record may be, arriving before the one before it or before it was
 *   said to (rx_next_ns), or the counters disagreeing with what came.
 *
 *   build-fuzz/tests/fuzz_pcap -max_total_time=30 CORPUS SEEDS
 *   (or tests/fuzz/run.sh build-fuzz 30 pcap: the seeds are the pcap files
 *   of config/incast)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "pcap_port.h"

#include "test_eal.h"
#include "fuzz_util.h"

#define MAX_FRAMES 4096

static struct rte_mempool *pool;
static char dir[64], path[96];

static void
finding(const char *what, const char *err)
{
	fuzz_finding("fuzz_pcap", what, err);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{

	(void)argc;
	(void)argv;
	if (test_eal_init("fuzz_pcap", "aif-fuzz-pcap", 256) != 0) {
		fprintf(stderr, "fuzz_pcap: EAL did not start\n");
		exit(2);
	}
	test_eal_rmdir_at_exit();
	pool = rte_pktmbuf_pool_create("fz_pcap", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "fuzz_pcap: no pool\n");
		exit(2);
	}
	fuzz_tmpdir("fuzz_pcap", dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/in.pcap", dir);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "";
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		finding("cannot write the file", path);
	struct aif_pcap_port *pp = aif_pcap_port_open(&(struct aif_pcap_port_params){
		.in_path = path, .rate_bps = 100000000000ull }, pool, err, sizeof(err));
	if (pp == NULL) {
		if (strncmp(err, path, strlen(path)) != 0)
			finding("a refusal that does not name the file", err);
		return 0;
	}
	uint32_t magic = size >= 4 ? (uint32_t)data[0] | (uint32_t)data[1] << 8 |
				     (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24 : 0;
	if (size < 24 || (magic != 0xa1b2c3d4u && magic != 0xa1b23c4du &&
			  magic != 0xd4c3b2a1u && magic != 0x4d3cb2a1u))
		finding("a file taken that is not classic pcap", NULL);
	struct aif_port port;
	memset(&port, 0, sizeof(port));
	aif_pcap_port_attach(pp, &port);
	const struct aif_port_ops *ops = aif_port_ops(&port);
	aif_time_ns last = 0;
	uint64_t frames = 0, bytes = 0;
	for (unsigned round = 0; round < MAX_FRAMES && frames < MAX_FRAMES; round++) {
		aif_time_ns t = ops->rx_next_ns(&port, 0);
		if (t == AIF_TIME_NS_NEVER)
			break;
		if (t < last)
			finding("a frame said to arrive before the one before it", NULL);
		struct rte_mbuf *m[32];
		uint16_t n = ops->rx_burst(&port, 0, m, 32, t);
		if (n == 0 && ops->rx_next_ns(&port, 0) <= t)
			finding("a frame due that does not come", NULL);
		for (uint16_t i = 0; i < n; i++) {
			uint32_t len = rte_pktmbuf_pkt_len(m[i]);
			if (len < 14 || len > 65535)
				finding("a frame received of an impossible length", NULL);
			frames++;
			bytes += len;
			rte_pktmbuf_free(m[i]);
		}
		last = t;
	}
	const struct aif_pcap_port_ctr *c = aif_pcap_port_ctr(pp);
	if (c->rx_packets != frames || c->rx_bytes != bytes)
		finding("the counters disagree with the frames received", NULL);
	aif_pcap_port_close(pp);
	if (rte_mempool_in_use_count(pool) != 0)
		finding("a frame kept after the port closed", NULL);
	return 0;
}
