/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the config loader: what a client's `load` (a config
 * object or a file) and the daemon's --config meet.  The input is the JSON
 * text.  It is parsed (control/config.c: the topology generators, policies,
 * QoS, switches, hosts, links), and a config taken is compiled switch by
 * switch into tables as a load does (control/compile.c, over switches made
 * with its ports), its QoS state created where enabled, compiled again over
 * the tables it published (a reload of the same file), and a generated
 * fabric routed again around a link down (control/reroute.c), a written-out
 * one's routes withdrawn around it (control/withdraw.c: every route keeps a
 * member up, copies keep their group's members).  A finding is
 * any fault, a leak, or:
 *
 *   a refusal without a reason, or one that names neither a JSON path
 *   ("$...") nor the JSON error's line;
 *   a config taken that breaks what the loader promises its users (a
 *   switch without ports, a link or host on a port the switch lacks);
 *   a compile refused without a reason naming a JSON path, or a config
 *   compiled once and refused when loaded again over its own tables.
 *
 * FUZZ_CONFIG_SAY set in the environment: each input's outcome on stderr.
 * Generated fabrics are kept small (at most 64 switches, every number
 * under the generator below 64): large ones are valid and slow (a k=56
 * fat-tree takes seconds), which is not what this looks for.
 *
 *   build-fuzz/tests/fuzz_config -max_total_time=30 CORPUS config/
 *   (or tests/fuzz/run.sh build-fuzz 30 config)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "compile.h"
#include "config.h"
#include "port.h"
#include "qos.h"
#include "reroute.h"
#include "switch.h"
#include "withdraw.h"

#include "test_eal.h"
#include "fuzz_util.h"

#define TEXT_MAX 65536   /* longer inputs are cut */
#define COMPILE_MAX 8    /* switches compiled per input */

static struct rte_mempool *pool;
static bool say; /* FUZZ_CONFIG_SAY set: each input's outcome on stderr */

static void
finding(const char *what, const char *err)
{
	fuzz_finding("fuzz_config", what, err);
}

/* A refusal's reason: a JSON path, or the JSON parser's line. */
static void
check_reason(const char *what, const char *err)
{
	if (err[0] == '\0')
		finding(what, "no reason given");
	if (err[0] != '$' && strncmp(err, "line ", 5) != 0)
		finding(what, err);
}

/* Any number in the generator's object at or past 64 (not a rate, delay or
 * seed): too large a fabric for a fuzzer's input. */
static bool
big(const json_t *v, const char *key)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_integer(v) || json_is_real(v)) {
		bool free_size = key != NULL &&
			(strstr(key, "gbps") || strstr(key, "_ns") || strstr(key, "seed") ||
			 strstr(key, "mtu") || strstr(key, "bytes") || strstr(key, "rate"));
		return !free_size && json_number_value(v) >= 64;
	}
	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x)
			if (big(x, k))
				return true;
	}
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (big(x, key))
				return true;
	}
	return false;
}

static double
num(const json_t *o, const char *key, double dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* The switches a generator would make (its defaults where a number is
 * missing or is not one). */
static double
switches_of(const json_t *topo)
{
	const json_t *ls = json_object_get(topo, "leaf_spine");
	const json_t *ft = json_object_get(topo, "fat_tree");
	double n = 0, k;

	if (json_is_object(ls))
		n += num(ls, "planes", 1) * (num(ls, "leaves", 2) + num(ls, "spines", 1));
	if (json_is_object(ft)) {
		k = num(ft, "k", 4);
		n += num(ft, "planes", 1) * 5 * k * k / 4;
	}
	return n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (test_eal_init("fuzz_config", "aif-fuzz-config", 512) != 0) {
		fprintf(stderr, "fuzz_config: EAL did not start\n");
		exit(2);
	}
	test_eal_rmdir_at_exit();
	say = getenv("FUZZ_CONFIG_SAY") != NULL;
	pool = rte_pktmbuf_pool_create("fz_config", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		fprintf(stderr, "fuzz_config: no mbuf pool\n");
		exit(2);
	}
	return 0;
}

/* What a config taken promises its users. */
static void
check_taken(const struct aif_config *cfg)
{
	if (cfg->n_switches == 0)
		finding("a config taken without switches", NULL);
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *sp = &cfg->switches[s];
		if (sp->n_ports == 0 || sp->n_ports > AIF_MAX_PORTS)
			finding("a switch taken with no ports or too many", sp->name);
		if (sp->policy >= cfg->n_policies)
			finding("a switch taken with a policy that is not there", sp->name);
	}
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *l = &cfg->links[k];
		if (l->a_switch >= cfg->n_switches || l->b_switch >= cfg->n_switches ||
		    l->a_port >= cfg->switches[l->a_switch].n_ports ||
		    l->b_port >= cfg->switches[l->b_switch].n_ports)
			finding("a link taken on a port that is not there", NULL);
	}
	for (uint32_t h = 0; h < cfg->n_hosts; h++) {
		const struct aif_host_params *hp = &cfg->hosts[h];
		if (hp->sw >= cfg->n_switches || hp->port >= cfg->switches[hp->sw].n_ports)
			finding("a host taken on a port that is not there", hp->name);
	}
}

static void compile_one(const struct aif_config *cfg, uint16_t s);

/* cfg's first link down: every route whose group has a member up keeps
 * one, a copy keeps its group's name and members, and what it gives
 * compiles. */
static void
withdraw_check(const struct aif_config *cfg)
{
	char err[AIF_ERR_MAX] = "";
	uint8_t *up = malloc((size_t)cfg->n_switches * AIF_MAX_PORTS);
	struct aif_config *w = NULL;

	if (up == NULL)
		finding("out of memory", NULL);
	memset(up, 1, (size_t)cfg->n_switches * AIF_MAX_PORTS);
	up[(size_t)cfg->links[0].a_switch * AIF_MAX_PORTS + cfg->links[0].a_port] = 0;
	up[(size_t)cfg->links[0].b_switch * AIF_MAX_PORTS + cfg->links[0].b_port] = 0;
	if (aif_withdraw(cfg, up, &w, err, sizeof(err)) != 0)
		finding("routes not withdrawn", err);
	for (uint16_t s = 0; w != NULL && s < w->n_switches; s++) {
		const struct aif_switch_params *a = &cfg->switches[s], *b = &w->switches[s];
		if (b->n_routes != a->n_routes || b->n_groups < a->n_groups ||
		    b->n_groups > AIF_MAX_GROUPS)
			finding("routes or groups lost in a withdrawal", a->name);
		for (uint32_t r = 0; r < b->n_routes; r++) {
			if (a->routes[r].kind != AIF_ROUTE_GROUP)
				continue;
			const struct aif_group_params *ga = &a->groups[a->routes[r].group];
			const struct aif_group_params *gb = &b->groups[b->routes[r].group];
			bool any = false, left = false;
			for (uint16_t k = 0; k < ga->n_members; k++) {
				bool on = up[(size_t)s * AIF_MAX_PORTS + ga->members[k].port];
				any = any || on;
				left = left || (on && !((gb->withdrawn >> k) & 1));
			}
			if (strcmp(ga->name, gb->name) != 0 || ga->n_members != gb->n_members ||
			    memcmp(ga->members, gb->members, ga->n_members * sizeof(ga->members[0])))
				finding("a route's copy of a group is another group", a->name);
			if (any && !left)
				finding("a route with a member up left with none", a->name);
		}
	}
	for (uint16_t s = 0; w != NULL && s < w->n_switches && s < COMPILE_MAX; s++)
		compile_one(w, s);
	aif_withdraw_free(w, cfg);
	free(up);
}

/* Switch s of cfg with its ports, its tables compiled and published, its
 * QoS state made as a load makes it. */
static void
compile_one(const struct aif_config *cfg, uint16_t s)
{
	const struct aif_switch_params *sp = &cfg->switches[s];
	char err[AIF_ERR_MAX] = "";
	struct aif_switch *sw = aif_switch_create(sp->name, s, 1, pool);

	if (sw == NULL)
		finding("no switch", sp->name);
	sw->n_ports = sp->n_ports;
	sw->fib_compact = cfg->n_switches > 1; /* as a fabric's (fabric.c) */
	for (uint16_t p = 0; p < sp->n_ports; p++) {
		snprintf(sw->ports[p].name, sizeof(sw->ports[p].name), "%s", sp->ports[p].name);
		sw->ports[p].dpdk_port = p;
		sw->ports[p].dev_mac = (struct aif_mac){ { 0x02, 0xfa, 0, 0, (uint8_t)s,
							    (uint8_t)p } };
		aif_port_set_link_up(&sw->ports[p], true);
	}
	struct aif_tables *t = aif_tables_compile(sw, cfg, s, err, sizeof(err));
	if (t == NULL) {
		if (say)
			fprintf(stderr, "fuzz_config: %s not compiled: %s\n", sp->name, err);
		if (err[0] != '$')
			finding("a compile refused without a JSON path", err);
		aif_switch_free(sw);
		return;
	}
	if (t->qos->enable) {
		struct aif_qos *q = aif_qos_create(t->qos, sw->n_ports, 0);
		if (q == NULL)
			finding("no QoS state", sp->name);
		sw->qos = q;
	}
	aif_switch_apply_neighbors(sw, sp, 0);
	aif_switch_publish(sw, t);
	aif_switch_gc_neighbors(sw, t, sp);
	aif_switch_gc_member_slots(sw, t);
	/* the same config loaded again over it: a reload's path (the slots
	 * the running tables hold, kept or given back) */
	struct aif_tables *t2 = aif_tables_compile(sw, cfg, s, err, sizeof(err));
	if (t2 == NULL)
		finding("a config compiled once, refused when loaded again", err);
	aif_switch_apply_neighbors(sw, sp, 1);
	aif_switch_publish(sw, t2);
	aif_switch_gc_neighbors(sw, t2, sp);
	aif_switch_gc_member_slots(sw, t2);
	aif_switch_free(sw);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[AIF_ERR_MAX];
	struct aif_config *cfg = NULL;

	if (size > TEXT_MAX)
		size = TEXT_MAX;
	/* a small fabric only (see the top) */
	json_t *root = json_loadb((const char *)data, size, 0, NULL);
	bool skip = root != NULL && json_is_object(root) &&
		    (big(json_object_get(root, "topology"), NULL) ||
		     switches_of(json_object_get(root, "topology")) > 64);
	json_decref(root);
	if (skip)
		return 0;

	if (aif_config_parse((const char *)data, size, &cfg, err, sizeof(err)) != 0) {
		if (cfg != NULL)
			finding("a refusal that returned a config", err);
		check_reason("a config refused", err);
		if (say)
			fprintf(stderr, "fuzz_config: refused: %s\n", err);
		return 0;
	}
	if (cfg == NULL)
		finding("a config taken, none returned", NULL);
	check_taken(cfg);
	if (say)
		fprintf(stderr, "fuzz_config: taken: %u switches, %u links, %u hosts\n",
			cfg->n_switches, cfg->n_links, cfg->n_hosts);
	for (uint16_t s = 0; s < cfg->n_switches && s < COMPILE_MAX; s++)
		compile_one(cfg, s);
	/* a generated fabric: around its first link, down */
	if (cfg->topology != NULL && !cfg->topology_split && cfg->n_links > 0) {
		bool *down = calloc(cfg->n_links, sizeof(*down));
		if (down == NULL)
			finding("out of memory", NULL);
		down[0] = true;
		struct aif_config *nc = aif_reroute(cfg, down, err, sizeof(err));
		free(down);
		if (nc == NULL)
			finding("a generated fabric not routed around a link", err);
		check_taken(nc);
		for (uint16_t s = 0; s < nc->n_switches && s < COMPILE_MAX; s++)
			compile_one(nc, s);
		aif_config_free(nc);
	}
	/* a written-out fabric: its first link down, routes withdrawn */
	if (cfg->topology == NULL && cfg->n_links > 0)
		withdraw_check(cfg);
	aif_config_free(cfg);
	return 0;
}
