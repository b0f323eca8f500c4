/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the control commands: what any client of the Unix
 * socket sends.  The input is one request line, answered by the daemon's
 * own line handler and dispatch (control/ctl_server.c, commands.c and the
 * files of each command) over a generated 2 x 2 leaf-spine with two hosts
 * a leaf, built and loaded as the daemon builds it, with a capture folder
 * and a config folder (fabric.json: the running config; bad.json: not
 * JSON) for the commands that name files.  Requests accumulate, as a
 * client's do: links go down and up, configs load, captures start.  A
 * finding is any fault, a leak, or:
 *
 *   no reply, a reply that is not one line of JSON, not an object with a
 *   boolean "ok", or a refusal without an "error" string;
 *   a request that leaves control without a running config or with other
 *   switches than it had.
 *
 * FUZZ_CTL_SAY set in the environment: each reply on stderr.
 *
 *   tests/fuzz/ctl_seeds.py SEEDS && build-fuzz/tests/fuzz_ctl -max_total_time=30 CORPUS SEEDS
 *   (or tests/fuzz/run.sh build-fuzz 30 ctl)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "capture.h"
#include "commands.h"
#include "config.h"
#include "ctl_server.h"
#include "fabric.h"
#include "lsan_dpdk.h"

#include "test_eal.h"
#include "fuzz_util.h"

#define LINE_MAX_BYTES 65536 /* longer inputs are cut */

static const char config_text[] =
	"{\"topology\": {\"leaf_spine\": {\"leaves\": 2, \"spines\": 2, \"hosts_per_leaf\": 2}}}";

static struct aif_fabric fab;
static struct aif_ctl ctl;
static char dir[64], cap_dir[96], cfg_dir[96];
static bool say; /* FUZZ_CTL_SAY set: each reply on stderr */

static void
finding(const char *what, const char *line)
{
	fuzz_finding("fuzz_ctl", what, line);
}

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "fuzz_ctl: cannot write %s\n", path);
		exit(2);
	}
}

static void
at_exit(void)
{
	/* the captures' files closed (the folder goes after: fuzz_tmpdir) */
	for (uint16_t i = 0; i < fab.n_sw; i++)
		aif_capture_free(fab.sw[i]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[160], err[AIF_ERR_MAX] = "";
	struct aif_config *cfg = NULL;

	(void)argc;
	(void)argv;
	say = getenv("FUZZ_CTL_SAY") != NULL;
	if (test_eal_init("fuzz_ctl", "aif-fuzz-ctl", 256) != 0) {
		fprintf(stderr, "fuzz_ctl: EAL did not start\n");
		exit(2);
	}
	test_eal_rmdir_at_exit();
	lsan_dpdk_roots();
	struct rte_mempool *pool = rte_pktmbuf_pool_create("fz_ctl", 4095, 0, 0,
							   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "fuzz_ctl: no pool\n");
		exit(2);
	}
	fuzz_tmpdir("fuzz_ctl", dir, sizeof(dir));
	snprintf(cap_dir, sizeof(cap_dir), "%s/captures", dir);
	snprintf(cfg_dir, sizeof(cfg_dir), "%s/configs", dir);
	if (mkdir(cap_dir, 0700) != 0 || mkdir(cfg_dir, 0700) != 0) {
		fprintf(stderr, "fuzz_ctl: no folders in %s\n", dir);
		exit(2);
	}
	snprintf(path, sizeof(path), "%s/fabric.json", cfg_dir);
	put(path, config_text);
	snprintf(path, sizeof(path), "%s/bad.json", cfg_dir);
	put(path, "{\"topology\": ");
	if (aif_config_parse(config_text, strlen(config_text), &cfg, err, sizeof(err)) != 0 ||
	    aif_fabric_build(&fab, cfg, pool, 1, 1, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_ctl: %s\n", err);
		exit(2);
	}
	aif_clock_init_virtual(&ctl.clock, 0);
	for (uint16_t i = 0; i < fab.n_sw; i++)
		aif_ctl_add_switch(&ctl, fab.sw[i]);
	ctl.links = fab.link;
	ctl.n_links = fab.n_links;
	ctl.capture_dir = cap_dir;
	ctl.config_dir = cfg_dir;
	if (aif_ctl_apply_config(&ctl, cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz_ctl: load: %s\n", err);
		exit(2);
	}
	atexit(at_exit);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > LINE_MAX_BYTES)
		size = LINE_MAX_BYTES;
	/* one line: the server splits at '\n' before the handler sees it */
	const uint8_t *nl = memchr(data, '\n', size);
	if (nl != NULL)
		size = (size_t)(nl - data);
	/* the daemon's clock moves between requests */
	aif_clock_set(&ctl.clock, aif_clock_now(&ctl.clock) + 1000);

	char *reply = aif_ctl_handle_line((const char *)data, size, aif_ctl_dispatch, &ctl);
	if (reply == NULL)
		finding("no reply", NULL);
	if (say)
		fprintf(stderr, "fuzz_ctl: %.300s", reply);
	size_t n = strlen(reply);
	if (n == 0 || reply[n - 1] != '\n' || memchr(reply, '\n', n - 1) != NULL)
		finding("a reply that is not one line", reply);
	json_error_t je;
	json_t *j = json_loads(reply, 0, &je);
	if (j == NULL)
		finding("a reply that is not JSON", reply);
	const json_t *ok = json_object_get(j, "ok");
	if (!json_is_object(j) || !json_is_boolean(ok))
		finding("a reply without a boolean \"ok\"", reply);
	if (json_is_false(ok)) {
		const char *e = json_string_value(json_object_get(j, "error"));
		if (e == NULL || e[0] == '\0')
			finding("a refusal without a reason", reply);
	}
	json_decref(j);
	free(reply);
	if (ctl.cfg == NULL || ctl.cfg->n_switches != fab.n_sw || ctl.n_sw != fab.n_sw)
		finding("control left without its config or switches", NULL);
	return 0;
}
