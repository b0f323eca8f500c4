/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A written-out fabric under control, a link going down (control/withdraw.h
 * through commands.c and the compiler):
 *
 *	        b1
 *	a(10.0.0/24)  <    > c(10.0.2/24)
 *	        b2
 *
 * a routes c's subnet through group "up" = {b1, b2}.  With b1-c down, a's
 * published tables take that route through a copy of "up" whose up_mask
 * leaves b1 out (b1's own link to a is up: before, a kept sending b1 c's
 * traffic); show routes lists b1 as withdrawn for it, show groups marks
 * b1 in the copy; the running config stays the one loaded.  Up again: the
 * copy is gone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <rte_mbuf.h>

#include "commands.h"
#include "config.h"
#include "ctl_server.h"
#include "link.h"
#include "switch.h"
#include "tables.h"

#include "test_eal.h"
#include "ctl_reply.h"

#define PORT(n, addr) "{\"name\": \"" n "\", \"device\": \"dev_" n "\", \"addresses\": [\"" addr "\"]}"
#define NB(ip, port) "{\"ip\": \"" ip "\", \"mac\": \"02:00:00:00:00:99\", \"port\": \"" port "\"}"
#define MEMB(ip, port) "{\"ip\": \"" ip "\", \"port\": \"" port "\"}"
#define ROUTE(pfx, g) "{\"prefix\": \"" pfx "\", \"group\": \"" g "\"}"

static const char *const config_json =
	"{\"switches\": ["
	"{\"name\": \"a\", \"ports\": [" PORT("ah", "10.0.0.1/24") "," PORT("au1", "10.9.1.0/31") ","
	PORT("au2", "10.9.2.0/31") "], \"neighbors\": [" NB("10.9.1.1", "au1") ","
	NB("10.9.2.1", "au2") "], \"nexthop_groups\": [{\"name\": \"up\", \"members\": ["
	MEMB("10.9.1.1", "au1") "," MEMB("10.9.2.1", "au2") "]}], \"routes\": ["
	ROUTE("10.0.2.0/24", "up") "]},"
	"{\"name\": \"b1\", \"ports\": [" PORT("b1d", "10.9.1.1/31") "," PORT("b1u", "10.9.3.0/31")
	"], \"neighbors\": [" NB("10.9.1.0", "b1d") "," NB("10.9.3.1", "b1u") "],"
	" \"nexthop_groups\": [{\"name\": \"toc\", \"members\": [" MEMB("10.9.3.1", "b1u") "]},"
	" {\"name\": \"toa\", \"members\": [" MEMB("10.9.1.0", "b1d") "]}], \"routes\": ["
	ROUTE("10.0.2.0/24", "toc") "," ROUTE("10.0.0.0/24", "toa") "]},"
	"{\"name\": \"b2\", \"ports\": [" PORT("b2d", "10.9.2.1/31") "," PORT("b2u", "10.9.4.0/31")
	"], \"neighbors\": [" NB("10.9.2.0", "b2d") "," NB("10.9.4.1", "b2u") "],"
	" \"nexthop_groups\": [{\"name\": \"toc\", \"members\": [" MEMB("10.9.4.1", "b2u") "]},"
	" {\"name\": \"toa\", \"members\": [" MEMB("10.9.2.0", "b2d") "]}], \"routes\": ["
	ROUTE("10.0.2.0/24", "toc") "," ROUTE("10.0.0.0/24", "toa") "]},"
	"{\"name\": \"c\", \"ports\": [" PORT("ch", "10.0.2.1/24") "," PORT("cd1", "10.9.3.1/31") ","
	PORT("cd2", "10.9.4.1/31") "], \"neighbors\": [" NB("10.9.3.0", "cd1") ","
	NB("10.9.4.0", "cd2") "], \"nexthop_groups\": [{\"name\": \"down\", \"members\": ["
	MEMB("10.9.3.0", "cd1") "," MEMB("10.9.4.0", "cd2") "]}], \"routes\": ["
	ROUTE("10.0.0.0/24", "down") "]}],"
	" \"links\": ["
	"{\"a\": \"a:au1\", \"b\": \"b1:b1d\", \"rate_gbps\": 100, \"delay_ns\": 1000},"
	"{\"a\": \"a:au2\", \"b\": \"b2:b2d\", \"rate_gbps\": 100, \"delay_ns\": 1000},"
	"{\"a\": \"b1:b1u\", \"b\": \"c:cd1\", \"rate_gbps\": 100, \"delay_ns\": 1000},"
	"{\"a\": \"b2:b2u\", \"b\": \"c:cd2\", \"rate_gbps\": 100, \"delay_ns\": 1000}]}";

#define N_SW 4
#define N_LINKS 4

static struct {
	struct rte_mempool *pool;
	struct aif_switch *sw[N_SW];
	struct aif_link *links[N_LINKS];
	struct aif_config *cfg;
	struct aif_ctl ctl;
} F;

static int
setup(void **state)
{
	char err[AIF_ERR_MAX] = "";

	(void)state;
	if (test_eal_init("test_written_fabric", "aif-pl-written", 512) != 0)
		return -1;
	F.pool = rte_pktmbuf_pool_create("wf_pool", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (F.pool == NULL ||
	    aif_config_parse(config_json, strlen(config_json), &F.cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "setup: %s\n", err);
		return -1;
	}
	for (uint16_t s = 0; s < N_SW; s++) {
		const struct aif_switch_params *sp = &F.cfg->switches[s];
		F.sw[s] = aif_switch_create(sp->name, s, 1, F.pool);
		if (F.sw[s] == NULL)
			return -1;
		F.sw[s]->n_ports = sp->n_ports;
		F.sw[s]->fib_compact = 1;
		for (uint16_t p = 0; p < sp->n_ports; p++) {
			snprintf(F.sw[s]->ports[p].name, AIF_NAME_MAX, "%s", sp->ports[p].name);
			aif_port_set_link_up(&F.sw[s]->ports[p], true);
		}
	}
	const struct aif_link_params lp = { .rate_bps = 100000000000ull, .delay_ns = 1000 };
	for (uint32_t k = 0; k < N_LINKS; k++) {
		const struct aif_topo_link *tl = &F.cfg->links[k];
		char name[4 * AIF_NAME_MAX + 8];
		snprintf(name, sizeof(name), "%s:%s-%s:%s", F.sw[tl->a_switch]->name,
			 F.sw[tl->a_switch]->ports[tl->a_port].name, F.sw[tl->b_switch]->name,
			 F.sw[tl->b_switch]->ports[tl->b_port].name);
		F.links[k] = aif_link_create(name, &lp, err, sizeof(err));
		if (F.links[k] == NULL) {
			fprintf(stderr, "setup: %s\n", err);
			return -1;
		}
		aif_link_attach(F.links[k], 0, &F.sw[tl->a_switch]->ports[tl->a_port]);
		aif_link_attach(F.links[k], 1, &F.sw[tl->b_switch]->ports[tl->b_port]);
	}
	aif_clock_init_virtual(&F.ctl.clock, 0);
	for (uint16_t s = 0; s < N_SW; s++)
		aif_ctl_add_switch(&F.ctl, F.sw[s]);
	F.ctl.links = F.links;
	F.ctl.n_links = N_LINKS;
	if (aif_ctl_apply_config(&F.ctl, aif_config_ref(F.cfg), err, sizeof(err)) != 0) {
		fprintf(stderr, "load: %s\n", err);
		return -1;
	}
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	for (unsigned s = 0; s < N_SW; s++)
		aif_switch_free(F.sw[s]);
	for (unsigned k = 0; k < N_LINKS; k++)
		aif_link_free(F.links[k]);
	aif_config_free(F.ctl.cfg);
	aif_config_free(F.cfg);
	rte_mempool_free(F.pool);
	test_eal_cleanup();
	return 0;
}

/* A request that must succeed: its reply. */
static json_t *
ctl(const char *line)
{
	json_t *j = ctl_reply(&F.ctl, line);

	assert_true(json_is_true(json_object_get(j, "ok")));
	return j;
}

/* a's route to c's subnet: the group its tables use (the only route) */
static const struct aif_group *
a_group(void)
{
	const struct aif_tables *t = F.sw[0]->tables;
	const struct aif_group *g = NULL;

	for (uint32_t x = 0; x < t->n_groups; x++)
		if (strcmp(t->groups[x].name, "up") == 0)
			g = &t->groups[x]; /* the copy, when there is one, comes last */
	assert_non_null(g);
	return g;
}

/* show routes of a: the route to 10.0.2.0/24's withdrawn next hops' ports
 * ("" for none), as "p1,p2" */
static void
a_withdrawn(char *out, size_t len)
{
	json_t *r = ctl("{\"cmd\": \"show_routes\", \"switch\": \"a\"}"), *e;
	size_t i;

	out[0] = '\0';
	json_array_foreach(json_object_get(r, "result"), i, e) {
		const char *type = json_string_value(json_object_get(e, "type"));
		if (type == NULL || strcmp(type, "group") != 0)
			continue;
		json_t *w = json_object_get(e, "withdrawn"), *m;
		size_t k;
		json_array_foreach(w, k, m)
			snprintf(out + strlen(out), len - strlen(out), "%s%s", k ? "," : "",
				 json_string_value(json_object_get(m, "port")));
	}
	json_decref(r);
}

static void
test_link_down_withdraws(void **state)
{
	char err[AIF_ERR_MAX], w[64];

	(void)state;
	/* all up: the group as written, both members in use */
	assert_int_equal(a_group()->up_mask, 3);
	assert_int_equal(a_group()->withdrawn, 0);
	a_withdrawn(w, sizeof(w));
	assert_string_equal(w, "");

	/* b1-c down: a's route leaves b1 out, though a's link to b1 is up */
	assert_int_equal(aif_ctl_link_set(&F.ctl, 2, 0, -1, -1, 0, err, sizeof(err)), 0);
	assert_true(F.sw[0]->ports[1].link_up);
	const struct aif_group *g = a_group();
	assert_int_equal(g->n, 2);
	assert_int_equal(g->withdrawn, 1);
	assert_int_equal(g->up_mask, 2);
	assert_int_equal(g->n_up, 1);
	a_withdrawn(w, sizeof(w));
	assert_string_equal(w, "au1");
	/* show groups: the copy, b1 marked */
	json_t *r = ctl("{\"cmd\": \"show_groups\", \"switch\": \"a\"}"), *e;
	size_t i, copies = 0;
	json_array_foreach(json_object_get(r, "result"), i, e) {
		json_t *m0 = json_array_get(json_object_get(e, "members"), 0);
		copies += json_is_true(json_object_get(m0, "withdrawn"));
		assert_true(json_is_true(json_object_get(m0, "up")));
	}
	assert_int_equal(copies, 1);
	json_decref(r);
	/* the running config is the one loaded: one group on a */
	assert_int_equal(F.ctl.cfg->switches[0].n_groups, 1);
	assert_int_equal(F.ctl.cfg->switches[0].groups[0].withdrawn, 0);

	/* up again: no copy */
	assert_int_equal(aif_ctl_link_set(&F.ctl, 2, 1, -1, -1, 0, err, sizeof(err)), 0);
	assert_int_equal(F.sw[0]->tables->n_groups, 1);
	assert_int_equal(a_group()->up_mask, 3);
	a_withdrawn(w, sizeof(w));
	assert_string_equal(w, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_down_withdraws),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
