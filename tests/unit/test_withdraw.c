/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * control/withdraw.c without EAL: a written-out fabric's routes around its
 * links that are down.
 *
 * Against the generator: a generated leaf-spine's config, written out (its
 * generator forgotten), with uplinks down.  For every leaf and every host
 * elsewhere, the next hops the leaf's longest matching route keeps usable
 * (up, not withdrawn) are those the generator gives it when routing again
 * around the same links (reroute.h), wherever some spine still joins the
 * two leaves; where none does (the generator finds a longer way, which no
 * written route holds), the route keeps every member that is up.  Then
 * small fabrics written by hand: a diamond (a route to a prefix, and to a
 * part of one the next switch routes), a route that points back (split
 * horizon), an aggregate (overlap keeps it), routes that only point at
 * each other (they reach nothing), every link up (nothing to do); and the
 * part of a generated fabric one daemon runs, a link down inside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"
#include "../config_ok.h"
#include "reroute.h"
#include "withdraw.h"

/* The route of sp that ip takes (longest prefix), or NULL. */
static const struct aif_route_params *
lpm(const struct aif_switch_params *sp, const struct aif_ip *ip)
{
	const struct aif_route_params *best = NULL;

	for (uint32_t r = 0; r < sp->n_routes; r++)
		if (aif_prefix_contains(&sp->routes[r].prefix, ip) &&
		    (best == NULL || sp->routes[r].prefix.len > best->prefix.len))
			best = &sp->routes[r];
	return best;
}

/* The next hops group g uses at switch s, by port (a leaf has one
 * uplink to each spine): its members on ports that are up and not
 * withdrawn. */
static uint64_t
ports_used(const struct aif_group_params *g, const uint8_t *up, uint16_t s)
{
	uint64_t m = 0;

	for (uint16_t k = 0; k < g->n_members; k++)
		if (up[(size_t)s * AIF_MAX_PORTS + g->members[k].port] && !((g->withdrawn >> k) & 1))
			m |= 1ull << g->members[k].port;
	return m;
}

/* Leaf-spine: leaves x spines, the uplinks in down[] ("leafL:uS" names,
 * NULL-terminated) down. */
static void
check_leaf_spine(unsigned leaves, unsigned spines, const char *const *down, bool some_kept)
{
	char topo[512], err[256];

	snprintf(topo, sizeof(topo), "{\"topology\": {\"leaf_spine\": {\"leaves\": %u, "
		 "\"spines\": %u, \"hosts_per_leaf\": 2}}}", leaves, spines);
	struct aif_config *gen = parse_ok(topo), *cfg = parse_ok(topo);
	/* written out: the same switches, routes and links, no generator */
	free(cfg->topology);
	cfg->topology = NULL;

	uint8_t *up = malloc((size_t)cfg->n_switches * AIF_MAX_PORTS);
	bool *ldown = calloc(cfg->n_links, sizeof(*ldown));
	assert_non_null(up);
	assert_non_null(ldown);
	memset(up, 1, (size_t)cfg->n_switches * AIF_MAX_PORTS);
	for (unsigned d = 0; down[d] != NULL; d++) {
		unsigned l, s, found = 0;
		assert_int_equal(sscanf(down[d], "leaf%u:u%u", &l, &s), 2);
		for (uint32_t k = 0; k < cfg->n_links; k++) {
			const struct aif_topo_link *lk = &cfg->links[k];
			const struct aif_switch_params *a = &cfg->switches[lk->a_switch];
			char end[64];
			snprintf(end, sizeof(end), "%s:%s", a->name, a->ports[lk->a_port].name);
			if (strcmp(end, down[d]) != 0)
				continue;
			ldown[k] = true;
			up[(size_t)lk->a_switch * AIF_MAX_PORTS + lk->a_port] = 0;
			up[(size_t)lk->b_switch * AIF_MAX_PORTS + lk->b_port] = 0;
			found++;
		}
		assert_int_equal(found, 1);
		(void)l;
		(void)s;
	}

	struct aif_config *w = NULL, *rr = aif_reroute(gen, ldown, err, sizeof(err));
	assert_non_null(rr);
	assert_int_equal(aif_withdraw(cfg, up, &w, err, sizeof(err)), 0);
	assert_non_null(w);
	unsigned compared = 0, kept = 0, withdrawn = 0;
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *sp = &cfg->switches[s];
		if (strncmp(sp->name, "leaf", 4) != 0)
			continue;
		for (uint32_t h = 0; h < cfg->n_hosts; h++) {
			if (cfg->hosts[h].sw == s)
				continue;
			const struct aif_ip *ip = &cfg->hosts[h].ip;
			const struct aif_route_params *a = lpm(&w->switches[s], ip);
			const struct aif_route_params *b = lpm(&rr->switches[s], ip);
			const struct aif_route_params *o = lpm(sp, ip);
			assert_non_null(a);
			assert_non_null(o);
			uint64_t got = ports_used(&w->switches[s].groups[a->group], up, s);
			uint64_t all = ports_used(&sp->groups[o->group], up, s);
			/* the spines that still join the two leaves */
			uint16_t to = cfg->hosts[h].sw;
			bool joined = false;
			for (uint32_t k = 0; k < cfg->n_links && !joined; k++) {
				const struct aif_topo_link *x = &cfg->links[k];
				if (ldown[k] || x->a_switch != s)
					continue;
				for (uint32_t j = 0; j < cfg->n_links && !joined; j++)
					joined = !ldown[j] && cfg->links[j].a_switch == to &&
						 cfg->links[j].b_switch == x->b_switch;
			}
			if (!joined) {
				assert_int_equal(got, all); /* nothing usable: as it is */
				kept++;
				continue;
			}
			assert_non_null(b);
			uint64_t want = ports_used(&rr->switches[s].groups[b->group], up, s);
			assert_int_equal(got, want);
			withdrawn += got != all;
			compared++;
		}
	}
	assert_true(compared > 0);
	assert_true(withdrawn > 0);
	assert_true(some_kept ? kept > 0 : kept == 0);
	aif_withdraw_free(w, cfg);
	aif_config_free(rr);
	aif_config_free(gen);
	aif_config_free(cfg);
	free(up);
	free(ldown);
}

static void
test_leaf_spine_uplink_down(void **state)
{
	(void)state;
	check_leaf_spine(4, 2, (const char *const[]){ "leaf0:u0", NULL }, false);
	check_leaf_spine(4, 3, (const char *const[]){ "leaf2:u1", NULL }, false);
}

static void
test_leaf_spine_links_down(void **state)
{
	(void)state;
	/* leaf0 and leaf1 share no spine: their routes stay as they are */
	check_leaf_spine(3, 2, (const char *const[]){ "leaf0:u0", "leaf1:u1", NULL }, true);
	check_leaf_spine(4, 3, (const char *const[]){ "leaf0:u0", "leaf1:u1", "leaf3:u0",
						      "leaf3:u2", NULL }, true);
}

/*
 * By hand: a diamond, host subnets on a and c.
 *
 *	         b1
 *	a(10.0.0/24) <    > c(10.0.2/24)
 *	         b2
 */
#define PORT(n, dev, addr) "{\"name\": \"" n "\", \"device\": \"" dev "\", \"addresses\": [\"" addr "\"]}"
#define NB(ip, port) "{\"ip\": \"" ip "\", \"mac\": \"02:00:00:00:00:99\", \"port\": \"" port "\"}"
#define MEMB(ip, port) "{\"ip\": \"" ip "\", \"port\": \"" port "\"}"

static const char *const diamond_a =
	"{\"name\": \"a\", \"ports\": [" PORT("h", "d0", "10.0.0.1/24") ","
	PORT("u1", "d1", "10.9.1.0/31") "," PORT("u2", "d2", "10.9.2.0/31") "],"
	" \"neighbors\": [" NB("10.9.1.1", "u1") "," NB("10.9.2.1", "u2") "],"
	" \"nexthop_groups\": [{\"name\": \"up\", \"members\": [" MEMB("10.9.1.1", "u1") ","
	MEMB("10.9.2.1", "u2") "]}],"
	" \"routes\": [{\"prefix\": \"%s\", \"group\": \"up\"}]}";

/* b1: to c, and (back) to a, and a subnet of its own on port x; then its
 * routes' JSON */
static const char *const diamond_b1 =
	"{\"name\": \"b1\", \"ports\": [" PORT("d", "d3", "10.9.1.1/31") ","
	PORT("u", "d4", "10.9.3.0/31") ",{\"name\": \"x\", \"device\": \"d9\", "
	"\"addresses\": [\"%s\"]}],"
	" \"neighbors\": [" NB("10.9.1.0", "d") "," NB("10.9.3.1", "u") "],"
	" \"nexthop_groups\": [{\"name\": \"toc\", \"members\": [" MEMB("10.9.3.1", "u") "]},"
	" {\"name\": \"both\", \"members\": [" MEMB("10.9.3.1", "u") "," MEMB("10.9.1.0", "d") "]},"
	" {\"name\": \"toa\", \"members\": [" MEMB("10.9.1.0", "d") "]}],"
	" \"routes\": [%s]}";

static const char *const diamond_rest =
	"{\"name\": \"b2\", \"ports\": [" PORT("d", "d5", "10.9.2.1/31") ","
	PORT("u", "d6", "10.9.4.0/31") "],"
	" \"neighbors\": [" NB("10.9.2.0", "d") "," NB("10.9.4.1", "u") "],"
	" \"nexthop_groups\": [{\"name\": \"toc\", \"members\": [" MEMB("10.9.4.1", "u") "]},"
	" {\"name\": \"toa\", \"members\": [" MEMB("10.9.2.0", "d") "]}],"
	" \"routes\": [{\"prefix\": \"10.0.2.0/24\", \"group\": \"toc\"},"
	" {\"prefix\": \"10.0.0.0/24\", \"group\": \"toa\"}]},"
	"{\"name\": \"c\", \"ports\": [" PORT("h", "d7", "10.0.2.1/24") ","
	PORT("d1", "d8", "10.9.3.1/31") "," PORT("d2", "d10", "10.9.4.1/31") "],"
	" \"neighbors\": [" NB("10.9.3.0", "d1") "," NB("10.9.4.0", "d2") "],"
	" \"nexthop_groups\": [{\"name\": \"down\", \"members\": [" MEMB("10.9.3.0", "d1") ","
	MEMB("10.9.4.0", "d2") "]}],"
	" \"routes\": [{\"prefix\": \"10.0.0.0/24\", \"group\": \"down\"}]}";

static const char *const diamond_links =
	" \"links\": [{\"a\": \"a:u1\", \"b\": \"b1:d\"}, {\"a\": \"a:u2\", \"b\": \"b2:d\"},"
	" {\"a\": \"b1:u\", \"b\": \"c:d1\"}, {\"a\": \"b2:u\", \"b\": \"c:d2\"}]";

/* The diamond with a's route to a_prefix, b1's subnet on x and its
 * routes; link b1-c (link 2) down when cut. */
static struct aif_config *
diamond_x(const char *a_prefix, const char *b1_x, const char *b1_routes, uint8_t *up,
	  bool cut)
{
	char a[2048], b1[2048], text[8192];

	snprintf(a, sizeof(a), diamond_a, a_prefix);
	snprintf(b1, sizeof(b1), diamond_b1, b1_x, b1_routes);
	snprintf(text, sizeof(text), "{\"switches\": [%s, %s, %s], %s}", a, b1, diamond_rest,
		 diamond_links);
	struct aif_config *cfg = parse_ok(text);
	memset(up, 1, (size_t)cfg->n_switches * AIF_MAX_PORTS);
	if (cut) {
		const struct aif_topo_link *l = &cfg->links[2];
		up[(size_t)l->a_switch * AIF_MAX_PORTS + l->a_port] = 0;
		up[(size_t)l->b_switch * AIF_MAX_PORTS + l->b_port] = 0;
	}
	return cfg;
}

static struct aif_config *
diamond(const char *a_prefix, const char *b1_routes, uint8_t *up, bool cut)
{
	return diamond_x(a_prefix, "10.0.3.1/24", b1_routes, up, cut);
}

/* a's route (its only one) after the withdrawal: bit k for member k used */
static uint64_t
a_uses(const struct aif_config *cfg, const uint8_t *up, bool *changed)
{
	char err[128];
	struct aif_config *w = NULL;

	assert_int_equal(aif_withdraw(cfg, up, &w, err, sizeof(err)), 0);
	*changed = w != NULL;
	const struct aif_switch_params *sp = w != NULL ? &w->switches[0] : &cfg->switches[0];
	assert_int_equal(sp->n_routes, 1);
	const struct aif_group_params *g = &sp->groups[sp->routes[0].group];
	assert_string_equal(g->name, "up");
	assert_int_equal(g->n_members, 2);
	uint64_t m = 3 & ~g->withdrawn;
	if (w != NULL) /* the group as written is kept for the routes that use it whole */
		assert_int_equal(cfg->switches[0].groups[0].withdrawn, 0);
	aif_withdraw_free(w, cfg);
	return m;
}

static void
test_diamond(void **state)
{
	uint8_t up[4 * AIF_MAX_PORTS];
	bool changed;
	const char *b1_to_c = "{\"prefix\": \"10.0.2.0/24\", \"group\": \"toc\"},"
			      " {\"prefix\": \"10.0.0.0/24\", \"group\": \"toa\"}";

	(void)state;
	/* every link up: nothing to do */
	struct aif_config *cfg = diamond("10.0.2.0/24", b1_to_c, up, false);
	assert_int_equal(a_uses(cfg, up, &changed), 3);
	assert_false(changed);
	aif_config_free(cfg);
	/* b1-c down: a withdraws b1 (member 0) for c's subnet */
	cfg = diamond("10.0.2.0/24", b1_to_c, up, true);
	assert_int_equal(a_uses(cfg, up, &changed), 2);
	assert_true(changed);
	aif_config_free(cfg);
	/* the same for a part of it: b2's route (and c's subnet) contain it */
	cfg = diamond("10.0.2.128/25", b1_to_c, up, true);
	assert_int_equal(a_uses(cfg, up, &changed), 2);
	assert_true(changed);
	aif_config_free(cfg);
}

static void
test_split_horizon(void **state)
{
	uint8_t up[4 * AIF_MAX_PORTS];
	bool changed;

	(void)state;
	/* b1 routes c's subnet to c and back to a: with b1-c down, its way
	 * to c is a, which does not make b1 a way to c for a */
	struct aif_config *cfg = diamond("10.0.2.0/24",
		"{\"prefix\": \"10.0.2.0/24\", \"group\": \"both\"},"
		" {\"prefix\": \"10.0.0.0/24\", \"group\": \"toa\"}", up, true);
	assert_int_equal(a_uses(cfg, up, &changed), 2);
	aif_config_free(cfg);
}

static void
test_aggregate(void **state)
{
	uint8_t up[4 * AIF_MAX_PORTS];
	bool changed;
	const char *b1_to_c = "{\"prefix\": \"10.0.2.0/24\", \"group\": \"toc\"},"
			      " {\"prefix\": \"10.0.0.0/24\", \"group\": \"toa\"}";

	(void)state;
	/* a sends all of 10.0.0.0/16 up; b1 still reaches part of it (its own
	 * 10.0.3.0/24): overlap keeps b1, as a routing protocol given the
	 * aggregate would */
	struct aif_config *cfg = diamond("10.0.0.0/16", b1_to_c, up, true);
	assert_int_equal(a_uses(cfg, up, &changed), 3);
	assert_false(changed);
	aif_config_free(cfg);
	/* b1's own subnet outside the aggregate: b1 is withdrawn, b2 stays
	 * (c's subnet, which b2 reaches, is part of it) */
	cfg = diamond_x("10.0.0.0/16", "10.8.3.1/24", b1_to_c, up, true);
	assert_int_equal(a_uses(cfg, up, &changed), 2);
	assert_true(changed);
	aif_config_free(cfg);
}

static void
test_nothing_usable(void **state)
{
	uint8_t up[4 * AIF_MAX_PORTS];
	bool changed;

	(void)state;
	/* c's subnet: b1 only back to a (its link to c down), and a prefix
	 * nobody has: a keeps its route as it is (withdrawal never empties a
	 * group), b1 and b2 reach nothing */
	struct aif_config *cfg = diamond("10.7.0.0/24",
		"{\"prefix\": \"10.7.0.0/24\", \"group\": \"toa\"},"
		" {\"prefix\": \"10.0.0.0/24\", \"group\": \"toa\"}", up, true);
	assert_int_equal(a_uses(cfg, up, &changed), 3);
	aif_config_free(cfg);
}

/* The part of a generated leaf-spine one daemon runs ("emulate"): a link
 * down inside it is withdrawn around as a written-out fabric's; a cut
 * link's far end (another daemon's spine) counts as reaching on. */
static void
test_split_part(void **state)
{
	char err[128];
	struct aif_config *cfg = parse_ok(
		"{\"topology\": {\"leaf_spine\": {\"leaves\": 3, \"spines\": 2, "
		"\"hosts_per_leaf\": 1, \"emulate\": [\"leaf0\", \"leaf1\", \"leaf2\", \"spine0\"], "
		"\"link_devices\": {\"leaf0:u1\": \"net_x0\", \"leaf1:u1\": \"net_x1\", "
		"\"leaf2:u1\": \"net_x2\"}}}}");
	uint8_t *up = malloc((size_t)cfg->n_switches * AIF_MAX_PORTS);
	struct aif_config *w = NULL;
	int leaf0 = -1, leaf1 = -1;

	(void)state;
	assert_non_null(up);
	assert_true(cfg->topology_split);
	memset(up, 1, (size_t)cfg->n_switches * AIF_MAX_PORTS);
	/* every link up: nothing */
	assert_int_equal(aif_withdraw(cfg, up, &w, err, sizeof(err)), 0);
	assert_null(w);
	for (uint16_t s = 0; s < cfg->n_switches; s++) {
		leaf0 = strcmp(cfg->switches[s].name, "leaf0") == 0 ? s : leaf0;
		leaf1 = strcmp(cfg->switches[s].name, "leaf1") == 0 ? s : leaf1;
	}
	assert_true(leaf0 >= 0 && leaf1 >= 0);
	for (uint32_t k = 0; k < cfg->n_links; k++) /* leaf0's link to spine0 down */
		if (cfg->links[k].a_switch == leaf0 || cfg->links[k].b_switch == leaf0) {
			up[(size_t)cfg->links[k].a_switch * AIF_MAX_PORTS + cfg->links[k].a_port] = 0;
			up[(size_t)cfg->links[k].b_switch * AIF_MAX_PORTS + cfg->links[k].b_port] = 0;
		}
	assert_int_equal(aif_withdraw(cfg, up, &w, err, sizeof(err)), 0);
	assert_non_null(w);
	/* leaf1 to leaf0's host: spine1 (the cut link) only; to leaf2's: both */
	for (uint32_t h = 0; h < cfg->n_hosts; h++) {
		if (cfg->hosts[h].sw == leaf1)
			continue;
		const struct aif_switch_params *sp = &w->switches[leaf1];
		const struct aif_route_params *r = lpm(sp, &cfg->hosts[h].ip);
		assert_non_null(r);
		uint64_t used = ports_used(&sp->groups[r->group], up, (uint16_t)leaf1);
		const struct aif_port_params *u1 = NULL;
		for (uint64_t m = used; m; m &= m - 1)
			u1 = &sp->ports[__builtin_ctzll(m)];
		if (cfg->hosts[h].sw == leaf0) {
			assert_int_equal(__builtin_popcountll(used), 1);
			assert_string_equal(u1->name, "u1");
		} else {
			assert_int_equal(__builtin_popcountll(used), 2);
		}
	}
	aif_withdraw_free(w, cfg);
	aif_config_free(cfg);
	free(up);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_spine_uplink_down),
		cmocka_unit_test(test_leaf_spine_links_down),
		cmocka_unit_test(test_diamond),
		cmocka_unit_test(test_split_horizon),
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_nothing_usable),
		cmocka_unit_test(test_split_part),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
