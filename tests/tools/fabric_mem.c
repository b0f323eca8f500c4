/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fabric_mem: what a generated fabric costs in memory once built and
 * loaded (switches, links, tables, QoS state, one runner), for
 * scripts/bench.
 *
 *	fabric_mem '{"leaf_spine": {"leaves": 8, "spines": 8, "hosts_per_leaf": 16}}'
 *	fabric_mem '{"fat_tree": {"k": 8}}'
 *
 * (the config's "topology" object, control/topology.h).
 * Prints one JSON line: switches, links, hosts, the DPDK heap and malloc
 * bytes the fabric took, the bytes its links' rings map (on 4 KiB pages
 * their own mapping, paid for as traffic touches it: control/fabric.h),
 * and the process's peak resident set (VmHWM) at the end.  EAL runs
 * --no-huge, so its memory is counted as it is touched.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "clock.h"
#include "commands.h"
#include "config.h"
#include "fabric.h"
#include "runner.h"

#include "test_eal.h"

static uint64_t
heap_used(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t used = 0;

	for (unsigned i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			used += st.heap_allocsz_bytes;
	return used;
}

static long
status_kb(const char *key)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, strlen(key)) == 0)
			kb = strtol(line + strlen(key) + 1, NULL, 10);
	if (f != NULL)
		fclose(f);
	return kb;
}

int
main(int argc, char **argv)
{
	char prefix[64], text[512], err[AIF_ERR_MAX] = "";
	struct aif_config *cfg = NULL;
	struct aif_fabric fab;
	static struct aif_ctl ctl;

	if (argc != 2) {
		fprintf(stderr, "usage: fabric_mem TOPOLOGY_JSON\n");
		return 1;
	}
	snprintf(text, sizeof(text), "{\"topology\": %s}", argv[1]);
	snprintf(prefix, sizeof(prefix), "aif-fabric-mem-%d", (int)getpid());
	char *eal[] = { argv[0], "--no-huge", "-m", "4096", "--no-pci", "--no-shconf",
			"--no-telemetry", "--file-prefix", prefix, "-l", "0",
			"--log-level", "error" };
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	struct rte_mempool *pool = rte_pktmbuf_pool_create("fm_pool", 8191, 256, 0,
							  RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	uint64_t heap0 = heap_used();
	struct mallinfo2 m0 = mallinfo2();
	if (pool == NULL ||
	    aif_config_parse(text, strlen(text), &cfg, err, sizeof(err)) != 0 ||
	    aif_fabric_build(&fab, cfg, pool, 1, 1, err, sizeof(err)) != 0) {
		fprintf(stderr, "fabric_mem: %s\n", err);
		return 1;
	}
	aif_clock_init_virtual(&ctl.clock, 0);
	for (uint16_t i = 0; i < fab.n_sw; i++)
		aif_ctl_add_switch(&ctl, fab.sw[i]);
	if (aif_ctl_apply_config(&ctl, aif_config_ref(cfg), err, sizeof(err)) != 0) {
		fprintf(stderr, "fabric_mem: load: %s\n", err);
		return 1;
	}
	struct aif_runner *w = aif_runner_create(fab.sw[0], 0, 1);
	for (uint16_t i = 1; w != NULL && i < fab.n_sw; i++)
		aif_runner_add_switch(w, fab.sw[i], 0, 1);
	struct mallinfo2 m1 = mallinfo2();
	printf("{\"switches\": %u, \"links\": %u, \"hosts\": %u, \"dpdk_heap_bytes\": %lu, "
	       "\"malloc_bytes\": %lu, \"rings_mapped_bytes\": %zu, \"peak_rss_kb\": %ld}\n",
	       fab.n_sw, fab.n_links, cfg->n_hosts, (unsigned long)(heap_used() - heap0),
	       (unsigned long)((m1.uordblks + m1.hblkhd) - (m0.uordblks + m0.hblkhd)),
	       fab.rings_len, status_kb("VmHWM:"));
	aif_runner_free(w);
	aif_fabric_free(&fab);
	aif_config_free(ctl.cfg);
	aif_config_free(cfg);
	rte_mempool_free(pool);
	test_eal_cleanup();
	return 0;
}
