/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the virtual RoCE hosts (hosts/rhost*.c): what a
 * host can be sent by the switch, which forwards whatever a pcap file or a
 * peer put on the fabric.  Three hosts: A sends to B (go-back-N) and to C
 * (out of order, selective repeat) and B to A, messages posted again as they
 * finish, the hosts' own frames carried between them.  The input's first
 * byte picks the host the frame goes to (and, one time in eight, leaves its
 * ICRC as it is); the rest is the frame, its RoCEv2 ICRC made right where
 * its IPv4 length allows (else nearly every mutation would end at the ICRC
 * check), as data, ACK, NAK, SACK or CNP for the hosts' QPs.  Then the
 * hosts run 20 us.  A finding is any fault or a leak.
 *
 *   build-fuzz/tests/fuzz_rhost -max_total_time=30 CORPUS SEEDS
 *   (or tests/fuzz/run.sh build-fuzz 30 rhost: the seeds are the hosts' own
 *   first frames, written by this harness with FUZZ_RHOST_SEEDS=DIR)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "frame.h"
#include "port.h"
#include "rhost.h"
#include "roce.h"

#include "rhost_params.h"
#include "test_eal.h"

#define N_HOSTS 3
#define FRAME_MAX 1500
#define RATE 100000000000ull

static struct rte_mempool *pool;
static struct aif_rhost *host[N_HOSTS];
static struct aif_port port[N_HOSTS];
static uint32_t qp_ab, qp_ba, qp_ac, qp_ca;
static aif_time_ns now;
static const struct aif_port_ops *ops = &aif_port_rhost_ops;

static void
params(struct aif_rhost_params *p, int i, bool ooo)
{
	rhost_test_params(p, i, ooo, RATE);
}

/* Messages again where they finished: A to B and C, B to A. */
static void
post(void)
{
	if (aif_rhost_idle(host[0])) {
		aif_rhost_post(host[0], qp_ab, 16 * 1024, 1, now);
		aif_rhost_post(host[0], qp_ac, 16 * 1024, 2, now);
	}
	if (aif_rhost_idle(host[1]))
		aif_rhost_post(host[1], qp_ba, 4 * 1024, 3, now);
}

/* The host a frame from the hosts goes to, by its destination IP. */
static int
host_of(const struct rte_mbuf *m)
{
	uint8_t buf[64];
	const uint8_t *f = rte_pktmbuf_pkt_len(m) >= 34 ? aif_frame_read(m, 0, 34, buf) : NULL;

	if (f == NULL)
		return -1;
	uint32_t ip = (uint32_t)f[30] << 24 | (uint32_t)f[31] << 16 | (uint32_t)f[32] << 8 | f[33];
	for (int i = 0; i < N_HOSTS; i++)
		if (aif_rhost_params(host[i])->ip == ip)
			return i;
	return -1;
}

/* Each host's frames due by now to the host they are for (the wire
 * between them: no queue, no loss). */
static void
exchange(void)
{
	struct rte_mbuf *m[32];
	uint16_t n;

	for (int i = 0; i < N_HOSTS; i++)
		while ((n = ops->rx_burst(&port[i], 0, m, 32, now)) > 0)
			for (uint16_t k = 0; k < n; k++) {
				int to = host_of(m[k]);
				if (to < 0 || ops->tx_burst(&port[to], 0, &m[k], 1, now) != 1)
					rte_pktmbuf_free(m[k]);
			}
}

/* FUZZ_RHOST_SEEDS=DIR: the hosts' first frames into DIR, made whole. */
static void
write_seeds(const char *dir)
{
	struct rte_mbuf *m[32];
	uint8_t buf[FRAME_MAX + 64];
	unsigned n_out = 0;

	for (int round = 0; round < 200 && n_out < 64; round++) {
		now += 100;
		for (int i = 0; i < N_HOSTS; i++) {
			uint16_t n = ops->rx_burst(&port[i], 0, m, 32, now);
			for (uint16_t k = 0; k < n; k++) {
				int to = host_of(m[k]);
				uint32_t len = rte_pktmbuf_pkt_len(m[k]);
				const uint8_t *f = len <= FRAME_MAX ? aif_frame_read(m[k], 0, len, buf + 1)
								    : NULL;
				if (f != NULL && to >= 0) {
					char path[512];
					snprintf(path, sizeof(path), "%s/frame_%03u", dir, n_out++);
					FILE *o = fopen(path, "wb");
					uint8_t b0 = (uint8_t)to;
					if (o == NULL || fwrite(&b0, 1, 1, o) != 1 ||
					    fwrite(f, 1, len, o) != len || fclose(o) != 0) {
						fprintf(stderr, "fuzz_rhost: cannot write %s\n", path);
						exit(2);
					}
				}
				if (to < 0 || ops->tx_burst(&port[to], 0, &m[k], 1, now) != 1)
					rte_pktmbuf_free(m[k]);
			}
		}
	}
	fprintf(stderr, "fuzz_rhost: %u seeds in %s\n", n_out, dir);
	exit(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct aif_rhost_params p;
	char err[128];

	(void)argc;
	(void)argv;
	if (test_eal_init("fuzz_rhost", "aif-fuzz-rhost", 256) != 0) {
		fprintf(stderr, "fuzz_rhost: EAL did not start\n");
		exit(2);
	}
	test_eal_rmdir_at_exit();
	pool = rte_pktmbuf_pool_create("fz_rhost", 8191, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "fuzz_rhost: no mbuf pool\n");
		exit(2);
	}
	for (int i = 0; i < N_HOSTS; i++) {
		params(&p, i, i == 2);
		host[i] = aif_rhost_create(&p, pool, 4, err, sizeof(err));
		if (host[i] == NULL) {
			fprintf(stderr, "fuzz_rhost: %s\n", err);
			exit(2);
		}
		aif_rhost_attach(host[i], &port[i]);
	}
	if (aif_rhost_connect(host[0], host[1], &qp_ab, &qp_ba) != 0 ||
	    aif_rhost_connect(host[0], host[2], &qp_ac, &qp_ca) != 0) {
		fprintf(stderr, "fuzz_rhost: no QPs\n");
		exit(2);
	}
	post();
	const char *seeds = getenv("FUZZ_RHOST_SEEDS");
	if (seeds != NULL)
		write_seeds(seeds);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size - 1 > FRAME_MAX)
		return 0;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		abort(); /* the hosts kept every frame */
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(size - 1));
	uint32_t len = (uint32_t)size - 1;
	memcpy(f, data + 1, len);
	/* its ICRC made right, where the IPv4 length says where it is */
	uint32_t l3 = len >= 18 ? (uint32_t)f[16] << 8 | f[17] : 0;
	if ((data[0] & 0x38) != 0x38 && len >= 14 + 44 && f[12] == 0x08 && f[13] == 0x00 &&
	    l3 >= 44 && 14 + l3 <= len)
		aif_roce_icrc_put(f + 14, l3);
	now += 1000;
	if (ops->tx_burst(&port[data[0] % N_HOSTS], 0, &m, 1, now) != 1)
		rte_pktmbuf_free(m);
	for (int step = 0; step < 20; step++) {
		now += 1000;
		exchange();
	}
	post();
	return 0;
}
