/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for control/compile.c: a config compiled into the FIBs the
 * workers read (the LPM), the group members' neighbour and counter slots,
 * and the failure path.
 *
 * Needs EAL (rte_fib, rte_malloc): the group setup starts it with
 * --no-huge --no-pci and a private file prefix, and creates one switch with
 * the four ports of the config below.  Every lookup is checked against an
 * exact (type, index) or (GROUP, group name).
 *
 * Inline configs are written with single quotes for readability; q() turns
 * them into JSON.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "compile.h"
#include "qos.h"
#include "config.h"
#include "neigh.h"
#include "switch.h"
#include "tables.h"

#include "test_eal.h"

#define N_PORTS 4

/*
 * One single-member group per prefix of the nest 10.0.0.0/8 > 10.1.0.0/16 >
 * 10.1.2.0/24 > 10.1.2.128/25 > 10.1.2.129/32, and of the IPv6 nest
 * ::/0 > 2001:db8::/32 > 2001:db8:1::/48 > 2001:db8:1:2::/64 > a /128.
 * gdef shares its next hop (10.0.0.10@p0) with g8: one neighbour slot, two
 * counter slots.  The IPv4 default route is spliced in at %s.
 */
static const char *const cfg_fmt =
	"{'switches': [{'name': 'leaf0', 'seed': 7, 'ports': ["
	" {'name': 'p0', 'device': 'net_null0', 'mac': '02:00:00:00:00:10',"
	"  'addresses': ['10.0.0.1/24', '2001:db8::1/64']},"
	" {'name': 'p1', 'device': 'net_null1', 'mac': '02:00:00:00:00:11',"
	"  'addresses': ['10.0.1.1/31', '2001:db8:ff::1/127']},"
	" {'name': 'p2', 'device': 'net_null2', 'mac': '02:00:00:00:00:12',"
	"  'addresses': ['10.0.1.3/31', '2001:db8:ff::3/127']},"
	" {'name': 'p3', 'device': 'net_null3',"
	"  'addresses': ['10.0.1.5/31', '2001:db8:ff::5/127']}],"
	" 'nexthop_groups': ["
	"  {'name': 'g8', 'members': [{'ip': '10.0.0.10', 'port': 'p0'}]},"
	"  {'name': 'g16', 'members': [{'ip': '10.0.1.0', 'port': 'p1'}]},"
	"  {'name': 'g24', 'members': [{'ip': '10.0.1.2', 'port': 'p2'}]},"
	"  {'name': 'g25', 'members': [{'ip': '10.0.1.4', 'port': 'p3'}]},"
	"  {'name': 'g32', 'members': [{'ip': '10.0.0.11', 'port': 'p0'}]},"
	"  {'name': 'gdef', 'members': [{'ip': '10.0.0.10', 'port': 'p0'}]},"
	"  {'name': 'h0', 'members': [{'ip': '2001:db8::10', 'port': 'p0'}]},"
	"  {'name': 'h32', 'members': [{'ip': '2001:db8:ff::', 'port': 'p1'}]},"
	"  {'name': 'h48', 'members': [{'ip': '2001:db8:ff::2', 'port': 'p2'}]},"
	"  {'name': 'h64', 'members': [{'ip': '2001:db8:ff::4', 'port': 'p3'}]},"
	"  {'name': 'h128', 'members': [{'ip': '2001:db8::11', 'port': 'p0'}]}],"
	" 'routes': [%s"
	"  {'prefix': '10.0.0.0/8', 'group': 'g8'},"
	"  {'prefix': '10.1.0.0/16', 'group': 'g16'},"
	"  {'prefix': '10.1.2.0/24', 'group': 'g24'},"
	"  {'prefix': '10.1.2.128/25', 'group': 'g25'},"
	"  {'prefix': '10.1.2.129/32', 'group': 'g32'},"
	"  {'prefix': '10.9.0.0/16', 'action': 'drop'},"
	"  {'prefix': '::/0', 'group': 'h0'},"
	"  {'prefix': '2001:db8::/32', 'group': 'h32'},"
	"  {'prefix': '2001:db8:1::/48', 'group': 'h48'},"
	"  {'prefix': '2001:db8:1:2::/64', 'group': 'h64'},"
	"  {'prefix': '2001:db8:1:2::99/128', 'group': 'h128'},"
	"  {'prefix': '2001:db8:dead::/48', 'action': 'drop'}]}]}";

#define DEFAULT_ROUTE "{'prefix': '0.0.0.0/0', 'group': 'gdef'},"

static struct rte_mempool *pool;
static struct aif_switch *sw;
static char qbuf[8192];

/* ---- helpers ---- */

static const char *
q(const char *s)
{
	size_t i;

	assert_true(strlen(s) < sizeof(qbuf));
	for (i = 0; s[i] != '\0'; i++)
		qbuf[i] = s[i] == '\'' ? '"' : s[i];
	qbuf[i] = '\0';
	return qbuf;
}

static struct aif_config *
parse_cfg(bool with_default)
{
	char text[sizeof(qbuf)];
	struct aif_config *cfg = NULL;
	char err[AIF_ERR_MAX] = "";

	snprintf(text, sizeof(text), cfg_fmt, with_default ? DEFAULT_ROUTE : "");
	const char *json = q(text);
	if (aif_config_parse(json, strlen(json), &cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	assert_non_null(cfg);
	return cfg;
}

/* Compile and publish (as the control thread does); returns the tables. */
static struct aif_tables *
compile_publish(bool with_default)
{
	struct aif_config *cfg = parse_cfg(with_default);
	char err[AIF_ERR_MAX] = "";

	struct aif_tables *t = aif_tables_compile(sw, cfg, 0, err, sizeof(err));
	if (t == NULL) {
		aif_config_free(cfg);
		fail_msg("compile: %s", err);
	}
	aif_config_free(cfg); /* the tables do not keep it */
	aif_switch_publish(sw, t);
	return t;
}

static int
group_index(const struct aif_tables *t, const char *name)
{
	for (uint32_t g = 0; g < t->n_groups; g++)
		if (strcmp(t->groups[g].name, name) == 0)
			return (int)g;
	fail_msg("no group %s", name);
	return -1;
}

/* Expected FIB result: a type and either a port index or a group name. */
struct lpm_case {
	const char *addr;
	enum aif_nh_type type;
	unsigned port;     /* CONNECTED, LOCAL */
	const char *group; /* GROUP */
};

#define GRP(a, g) { a, AIF_NH_GROUP, 0, g }
#define CONN(a, p) { a, AIF_NH_CONNECTED, p, NULL }
#define LOCAL(a, p) { a, AIF_NH_LOCAL, p, NULL }
#define DROP(a) { a, AIF_NH_DROP, 0, NULL }
#define MISS(a) { a, AIF_NH_MISS, 0, NULL }

static uint64_t
lookup(const struct aif_tables *t, const char *addr)
{
	struct aif_ip ip;
	uint64_t nh = UINT64_MAX;

	if (aif_ip_parse(addr, &ip) != 0)
		fail_msg("bad address in test table: %s", addr);
	if (ip.family == AIF_AF_INET4) {
		uint32_t a = aif_ip4_host(&ip);
		assert_int_equal(rte_fib_lookup_bulk(t->fib4, &a, &nh, 1), 0);
	} else {
		uint8_t a[1][RTE_FIB6_IPV6_ADDR_SIZE];
		memcpy(a[0], ip.b, 16);
		assert_int_equal(rte_fib6_lookup_bulk(t->fib6, a, &nh, 1), 0);
	}
	return nh;
}

static void
check_cases(const struct aif_tables *t, const struct lpm_case *c, size_t n)
{
	unsigned bad = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t nh = lookup(t, c[i].addr);
		enum aif_nh_type type = aif_nh_type(nh);
		uint32_t idx = aif_nh_index(nh);
		bool ok = type == c[i].type;

		if (ok && (type == AIF_NH_CONNECTED || type == AIF_NH_LOCAL))
			ok = idx == c[i].port;
		if (ok && type == AIF_NH_GROUP)
			ok = idx < t->n_groups && strcmp(t->groups[idx].name, c[i].group) == 0;
		if (ok && (type == AIF_NH_MISS || type == AIF_NH_DROP))
			ok = idx == 0;
		if (!ok) {
			printf("%s: got %s %u (%s), want %s %u %s\n", c[i].addr,
			       aif_nh_type_name(type), idx,
			       type == AIF_NH_GROUP && idx < t->n_groups ? t->groups[idx].name : "-",
			       aif_nh_type_name(c[i].type), c[i].port,
			       c[i].group ? c[i].group : "");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* ---- setup ---- */

static int
group_setup(void **state)
{
	(void)state;
	if (test_eal_init("test_compile", "aif-ut-compile", 512) != 0)
		return -1;
	pool = rte_pktmbuf_pool_create("ut_compile", 511, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (pool == NULL)
		return -1;
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	rte_mempool_free(pool);
	test_eal_cleanup();
	return 0;
}

/* A fresh switch per test: neighbour and counter slots start empty. */
static int
setup_switch(void **state)
{
	static const char *const names[N_PORTS] = { "p0", "p1", "p2", "p3" };

	(void)state;
	sw = aif_switch_create("leaf0", 0, 1, pool);
	if (sw == NULL)
		return -1;
	sw->n_ports = N_PORTS;
	for (unsigned p = 0; p < N_PORTS; p++) {
		snprintf(sw->ports[p].name, sizeof(sw->ports[p].name), "%s", names[p]);
		sw->ports[p].dpdk_port = (uint16_t)p;
		sw->ports[p].dev_mac = (struct aif_mac){ { 0x02, 0xde, 0x0e, 0, 0, (uint8_t)p } };
		aif_port_set_link_up(&sw->ports[p], true); /* as a started port's would be */
	}
	return 0;
}

static int
teardown_switch(void **state)
{
	(void)state;
	aif_switch_free(sw); /* frees the published tables and their config */
	sw = NULL;
	return 0;
}

/* ---- LPM ---- */

static const struct lpm_case v4_cases[] = {
	/* the nest: the longest prefix wins */
	GRP("10.1.2.129", "g32"),
	GRP("10.1.2.128", "g25"),  /* first of the /25 */
	GRP("10.1.2.130", "g25"),  /* next after the /32 */
	GRP("10.1.2.255", "g25"),  /* last of the /25 */
	GRP("10.1.2.127", "g24"),  /* one below the /25 */
	GRP("10.1.2.0", "g24"),    /* first of the /24 */
	GRP("10.1.3.0", "g16"),    /* one above the /24 */
	GRP("10.1.1.255", "g16"),  /* one below the /24 */
	GRP("10.1.0.0", "g16"),    /* first of the /16 */
	GRP("10.1.255.255", "g16"),/* last of the /16 */
	GRP("10.0.255.255", "g8"), /* one below the /16 */
	GRP("10.2.0.0", "g8"),     /* one above the /16 */
	GRP("10.255.255.255", "g8"), /* last of the /8 */
	GRP("10.0.1.6", "g8"),     /* past the last /31 port subnet */
	GRP("10.0.2.0", "g8"),
	/* default route */
	GRP("11.0.0.0", "gdef"),   /* one above the /8 */
	GRP("9.255.255.255", "gdef"), /* one below the /8 */
	GRP("0.0.0.0", "gdef"),
	GRP("255.255.255.255", "gdef"),
	GRP("192.0.2.1", "gdef"),
	/* drop route inside the /8 */
	DROP("10.9.0.0"),
	DROP("10.9.128.7"),
	DROP("10.9.255.255"),
	GRP("10.8.255.255", "g8"),
	GRP("10.10.0.0", "g8"),
	/* connected subnets (more specific than the /8) */
	CONN("10.0.0.0", 0),
	CONN("10.0.0.2", 0),
	CONN("10.0.0.10", 0),
	CONN("10.0.0.255", 0),
	CONN("10.0.1.0", 1),
	CONN("10.0.1.2", 2),
	CONN("10.0.1.4", 3),
	/* the switch's own addresses */
	LOCAL("10.0.0.1", 0),
	LOCAL("10.0.1.1", 1),
	LOCAL("10.0.1.3", 2),
	LOCAL("10.0.1.5", 3),
};

static const struct lpm_case v6_cases[] = {
	GRP("2001:db8:1:2::99", "h128"),
	GRP("2001:db8:1:2::98", "h64"),   /* one below the /128 */
	GRP("2001:db8:1:2::9a", "h64"),   /* one above the /128 */
	GRP("2001:db8:1:2::", "h64"),     /* first of the /64 */
	GRP("2001:db8:1:2:ffff:ffff:ffff:ffff", "h64"), /* last of the /64 */
	GRP("2001:db8:1:1:ffff:ffff:ffff:ffff", "h48"), /* one below the /64 */
	GRP("2001:db8:1:3::", "h48"),     /* one above the /64 */
	GRP("2001:db8:1::", "h48"),       /* first of the /48 */
	GRP("2001:db8:1:ffff:ffff:ffff:ffff:ffff", "h48"), /* last of the /48 */
	GRP("2001:db8:0:ffff:ffff:ffff:ffff:ffff", "h32"), /* one below the /48 */
	GRP("2001:db8:2::", "h32"),       /* one above the /48 */
	GRP("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "h32"), /* last of the /32 */
	GRP("2001:db8:ff::6", "h32"),     /* past the last /127 port subnet */
	GRP("2001:db9::", "h0"),          /* one above the /32 */
	GRP("2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "h0"), /* one below */
	GRP("::", "h0"),
	GRP("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "h0"),
	DROP("2001:db8:dead::"),
	DROP("2001:db8:dead:ffff:ffff:ffff:ffff:ffff"),
	GRP("2001:db8:deae::", "h32"),
	CONN("2001:db8::", 0),
	CONN("2001:db8::2", 0),
	CONN("2001:db8::ffff:ffff:ffff:ffff", 0),
	CONN("2001:db8:ff::", 1),
	CONN("2001:db8:ff::2", 2),
	CONN("2001:db8:ff::4", 3),
	LOCAL("2001:db8::1", 0),
	LOCAL("2001:db8:ff::1", 1),
	LOCAL("2001:db8:ff::3", 2),
	LOCAL("2001:db8:ff::5", 3),
};

static const struct lpm_case v4_no_default_cases[] = {
	MISS("11.0.0.0"),
	MISS("9.255.255.255"),
	MISS("0.0.0.0"),
	MISS("255.255.255.255"),
	MISS("192.0.2.1"),
	GRP("10.1.2.129", "g32"),
	GRP("10.255.255.255", "g8"),
	DROP("10.9.0.0"),
	CONN("10.0.0.2", 0),
	LOCAL("10.0.0.1", 0),
};

static void
test_lpm_v4(void **state)
{
	(void)state;
	struct aif_tables *t = compile_publish(true);
	check_cases(t, v4_cases, sizeof(v4_cases) / sizeof(v4_cases[0]));
}

static void
test_lpm_v6(void **state)
{
	(void)state;
	struct aif_tables *t = compile_publish(true);
	check_cases(t, v6_cases, sizeof(v6_cases) / sizeof(v6_cases[0]));
}

static void
test_lpm_no_default(void **state)
{
	(void)state;
	struct aif_tables *t = compile_publish(false);
	check_cases(t, v4_no_default_cases,
		    sizeof(v4_no_default_cases) / sizeof(v4_no_default_cases[0]));
}

/* A burst lookup gives what one-by-one lookups give, in order. */
static void
test_lpm_bulk(void **state)
{
	enum { N = sizeof(v4_cases) / sizeof(v4_cases[0]) };
	uint32_t ips[N];
	uint64_t nh[N];

	(void)state;
	struct aif_tables *t = compile_publish(true);
	for (unsigned i = 0; i < N; i++) {
		struct aif_ip ip;
		assert_int_equal(aif_ip_parse(v4_cases[i].addr, &ip), 0);
		ips[i] = aif_ip4_host(&ip);
	}
	assert_int_equal(rte_fib_lookup_bulk(t->fib4, ips, nh, N), 0);
	for (unsigned i = 0; i < N; i++)
		assert_int_equal(nh[i], lookup(t, v4_cases[i].addr));
}

/* ---- what else the tables carry ---- */

static void
test_tables_fields(void **state)
{
	static const struct aif_mac mac0 = { { 0x02, 0, 0, 0, 0, 0x10 } };

	(void)state;
	struct aif_tables *t = compile_publish(true);
	assert_ptr_equal(sw->tables, t);
	assert_int_equal(t->generation, 1);
	assert_int_equal(t->n_ports, N_PORTS);
	assert_int_equal(t->seed, 7);
	assert_int_equal(t->n_groups, 11);
	assert_int_equal(t->n_members, 11);
	assert_memory_equal(&t->ports[0].mac, &mac0, sizeof(mac0));
	/* p3 has no mac in the config: the device's */
	assert_memory_equal(&t->ports[3].mac, &sw->ports[3].dev_mac, sizeof(mac0));
	assert_int_equal(t->ports[1].n_addrs, 2);
	assert_int_equal(t->ports[1].addrs[0].len, 31);
	for (uint32_t g = 0; g < t->n_groups; g++) {
		assert_int_equal(t->groups[g].first, g);
		assert_int_equal(t->groups[g].n, 1);
		assert_int_equal(t->groups[g].scheme, AIF_LB_ECMP);
	}
	assert_int_equal(group_index(t, "g8"), 0);
	assert_int_equal(group_index(t, "h128"), 10);
}

/* ---- neighbour and counter slots ---- */

static void
test_member_slots(void **state)
{
	struct aif_member first[11];

	(void)state;
	struct aif_tables *t = compile_publish(true);
	assert_int_equal(t->n_members, 11);
	for (uint32_t m = 0; m < t->n_members; m++) {
		const struct aif_member *mb = &t->members[m];
		uint32_t s = mb->neigh_slot;

		assert_int_not_equal(s, AIF_NEIGH_NONE);
		assert_true(s < sw->neigh->cap);
		assert_int_equal(aif_neigh_find(sw->neigh, &mb->ip), s);
		assert_true(aif_ip_equal(&sw->neigh->meta[s].ip, &mb->ip));
		assert_int_equal(sw->neigh->meta[s].port, mb->port);
		assert_int_equal(sw->neigh->meta[s].type, AIF_NEIGH_UNRESOLVED);
		/* no MAC yet: the worker sees an invalid slot */
		assert_int_equal(aif_neigh_read(sw->neigh, s), 0);
		/* counter slots are handed out in member order from an empty switch */
		assert_int_equal(mb->ctr_slot, m);
		assert_int_equal(mb->weight, 1);
	}
	/* g8 and gdef share the next hop 10.0.0.10@p0: one neighbour, two counters */
	const struct aif_member *g8 = &t->members[t->groups[group_index(t, "g8")].first];
	const struct aif_member *gd = &t->members[t->groups[group_index(t, "gdef")].first];
	assert_int_equal(g8->neigh_slot, gd->neigh_slot);
	assert_int_not_equal(g8->ctr_slot, gd->ctr_slot);
	for (uint32_t a = 0; a < t->n_members; a++)
		for (uint32_t b = a + 1; b < t->n_members; b++) {
			assert_int_not_equal(t->members[a].ctr_slot, t->members[b].ctr_slot);
			if (!aif_ip_equal(&t->members[a].ip, &t->members[b].ip))
				assert_int_not_equal(t->members[a].neigh_slot,
						     t->members[b].neigh_slot);
		}
	memcpy(first, t->members, sizeof(first));

	/* the same config again: the same slots (publishing frees the old tables) */
	t = compile_publish(true);
	assert_int_equal(t->generation, 2);
	assert_int_equal(t->n_members, 11);
	for (uint32_t m = 0; m < t->n_members; m++) {
		assert_int_equal(t->members[m].neigh_slot, first[m].neigh_slot);
		assert_int_equal(t->members[m].ctr_slot, first[m].ctr_slot);
	}

	/* without the default route gdef still exists: its slots are kept too */
	t = compile_publish(false);
	assert_int_equal(t->generation, 3);
	for (uint32_t m = 0; m < t->n_members; m++) {
		assert_int_equal(t->members[m].neigh_slot, first[m].neigh_slot);
		assert_int_equal(t->members[m].ctr_slot, first[m].ctr_slot);
	}
}

/*
 * A config whose group "g" has 64 members 10.<round>.2..65 on p0, and, when
 * bad_qos, a buffer that leaves no shared pool (rejected after the members
 * took their slots).
 */
static struct aif_config *
parse_round_cfg(unsigned round, bool bad_qos)
{
	static char text[16384];
	char err[AIF_ERR_MAX] = "";
	struct aif_config *cfg = NULL;
	size_t n = 0;

	n += (size_t)snprintf(text + n, sizeof(text) - n,
		"{\"policies\": {\"gold\": {\"qos\": {%s}}},"
		" \"switches\": [{\"name\": \"leaf0\", \"policy\": \"gold\", \"ports\": ["
		" {\"name\": \"p0\", \"device\": \"net_null0\", \"addresses\": [\"10.0.0.1/8\"]},"
		" {\"name\": \"p1\", \"device\": \"net_null1\"}, {\"name\": \"p2\", \"device\": \"net_null2\"},"
		" {\"name\": \"p3\", \"device\": \"net_null3\"}],"
		" \"nexthop_groups\": [{\"name\": \"g\", \"members\": [",
		bad_qos ? "\"buffer\": {\"size_bytes\": 65536, \"reserve_bytes\": 16384}" : "");
	for (unsigned k = 0; k < 64; k++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "%s{\"ip\": \"10.%u.%u.%u\", \"port\": \"p0\"}",
				      k ? ", " : "", round / 256, round % 256, k + 2);
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "]}], \"routes\": [{\"prefix\": \"192.168.0.0/16\", \"group\": \"g\"}]}]}");
	assert_true(n < sizeof(text));
	if (aif_config_parse(text, n, &cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	return cfg;
}

static unsigned
member_slots_used(void)
{
	unsigned used = 0;
	for (uint32_t s = 0; s < sw->n_member_slots; s++)
		used += sw->member_keys[s].used;
	return used;
}

/*
 * Counter and neighbour slots of members no longer configured come back:
 * 200 reloads of 64 new members each (12,800 members over the switch's
 * life, more than AIF_MAX_MEMBER_SLOTS) all load, and a rejected config
 * keeps none of the slots it took.
 */
static void
test_member_slots_reclaimed(void **state)
{
	char err[AIF_ERR_MAX];

	(void)state;
	for (unsigned r = 0; r < 200; r++) {
		struct aif_config *cfg = parse_round_cfg(r, false);
		err[0] = '\0';
		struct aif_tables *t = aif_tables_compile(sw, cfg, 0, err, sizeof(err));
		if (t == NULL)
			fail_msg("reload %u: %s", r, err);
		aif_switch_apply_neighbors(sw, &cfg->switches[0], 0);
		aif_switch_publish(sw, t);
		aif_switch_gc_neighbors(sw, t, &cfg->switches[0]);
		aif_switch_gc_member_slots(sw, t);
		aif_config_free(cfg);
		assert_int_equal(member_slots_used(), 64);
	}
	uint32_t neigh_used = 0;
	for (uint32_t s = 0; s < sw->neigh->cap; s++)
		neigh_used += sw->neigh->meta[s].type != AIF_NEIGH_FREE;
	assert_int_equal(neigh_used, 64);

	/* rejected after its 64 new members took slots: they are given back */
	for (unsigned r = 200; r < 400; r++) {
		struct aif_config *cfg = parse_round_cfg(r, true);
		err[0] = '\0';
		assert_null(aif_tables_compile(sw, cfg, 0, err, sizeof(err)));
		assert_non_null(strstr(err, "reserve_bytes"));
		aif_config_free(cfg);
		assert_int_equal(member_slots_used(), 64);
	}
	neigh_used = 0;
	for (uint32_t s = 0; s < sw->neigh->cap; s++)
		neigh_used += sw->neigh->meta[s].type != AIF_NEIGH_FREE;
	assert_int_equal(neigh_used, 64);
	/* the running members kept their slots */
	const struct aif_tables *t = sw->tables;
	for (uint32_t m = 0; m < t->n_members; m++) {
		assert_true(sw->member_keys[t->members[m].ctr_slot].used);
		assert_int_equal(aif_neigh_find(sw->neigh, &t->members[m].ip),
				 t->members[m].neigh_slot);
	}
}

/* ---- QoS compile errors: the path of the field at fault, the numbers ---- */

struct qos_err_case {
	const char *qos;   /* the "qos" object of policy gold (single quotes) */
	const char *err;   /* the whole message */
	int weight_q;      /* >= 0: set that queue's weight past the parser's check */
	uint64_t shaper_bps; /* != 0: port p1's shaper, past the parser's check */
	uint32_t cable_p0; /* port p0's own cable_delay_ns */
};

static void
test_qos_errors(void **state)
{
	static const struct qos_err_case cases[] = {
		/* 4 ports at 10 Gb/s (unknown speed), HPCC: one headroom and one
		 * reserve per port */
		{ "{'buffer': {'size_bytes': 4194304, 'headroom_bytes': 1048576}}",
		  "$.policies.gold.qos.buffer.headroom_bytes: 1048576 B x 4 ports = 4194304 B "
		  "of headroom + 16384 B of reserves leave no shared pool in size_bytes 4194304", -1, 0 },
		{ "{'buffer': {'cable_delay_ns': 100000000}}",
		  "$.policies.gold.qos.buffer.size_bytes: 12582912 B leaves no shared pool: "
		  "1500000000 B of headroom (derived from port speeds and cable_delay_ns 100000000, "
		  "up to 375000000 B on port p0) + 16384 B of reserves over 4 ports", -1, 0 },
		{ "{'buffer': {'size_bytes': 65536, 'reserve_bytes': 16384}}",
		  "$.policies.gold.qos.buffer.reserve_bytes: 16384 B per port x 4 ports = 65536 B "
		  "of reserves, not below size_bytes 65536", -1, 0 },
		/* 4 x the worst case 3 * 1542 + 84 + 480 + 2500 = 7,690 B at 10G, 1 us */
		{ "{'buffer': {'size_bytes': 1048576, 'resume_offset_bytes': 1048576}}",
		  "$.policies.gold.qos.buffer.resume_offset_bytes: 1048576 B is not below the "
		  "shared pool (1001432 B = size_bytes 1048576 - 30760 B of headroom - 16384 B of "
		  "reserves)", -1, 0 },
		/* a headroom below the worst case: refused with both numbers */
		{ "{'buffer': {'headroom_bytes': 7689}}",
		  "$.policies.gold.qos.buffer.headroom_bytes: 7689 B is below the worst case 7690 B "
		  "of lossless port p0 of $.switches[0] (10000 Mb/s, MTU 1500, cable 1000 ns: "
		  "3 x 1542 B frames + 84 B PFC + 480 B response + 2500 B cable)", -1, 0 },
		/* a port's own cable, longer than the policy's: its worst case */
		{ "{'buffer': {'headroom_bytes': 10189}}",
		  "$.policies.gold.qos.buffer.headroom_bytes: 10189 B is below the worst case "
		  "10190 B of lossless port p0 of $.switches[0] (10000 Mb/s, MTU 1500, cable "
		  "2000 ns: 3 x 1542 B frames + 84 B PFC + 480 B response + 5000 B cable)", -1, 0,
		  2000 },
		/* ... and shorter: the policy's */
		{ "{'buffer': {'headroom_bytes': 7689}}",
		  "$.policies.gold.qos.buffer.headroom_bytes: 7689 B is below the worst case 7690 B "
		  "of lossless port p0 of $.switches[0] (10000 Mb/s, MTU 1500, cable 1000 ns: "
		  "3 x 1542 B frames + 84 B PFC + 480 B response + 2500 B cable)", -1, 0, 500 },
		{ "{'buffer': {'headroom_bytes': 1000, 'cable_delay_ns': 0}}",
		  "$.policies.gold.qos.buffer.headroom_bytes: 1000 B is below the worst case 5190 B "
		  "of lossless port p0 of $.switches[0] (10000 Mb/s, MTU 1500, cable 0 ns: "
		  "3 x 1542 B frames + 84 B PFC + 480 B response + 0 B cable)", -1, 0 },
		{ "{'pfc': {'quanta': 1}}",
		  "$.policies.gold.qos.pfc.quanta: 1 quanta pause port p0 for 52 ns at 10000 Mb/s; "
		  "XOFF is refreshed at half that, sooner than one minimum frame takes", -1, 0 },
		{ "{}", "$.policies.gold.qos.scheduler.weights.2: 2000 is over the scheduler's "
		  "limit 1000", 2, 0 },
		{ "{}", "$.switches[0].ports[1].shaper_gbps: rate_bps above 1.6 Tb/s", -1,
		  2000000000000ull },
	};
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		char text[2048], err[AIF_ERR_MAX] = "";
		struct aif_config *cfg = NULL;

		snprintf(text, sizeof(text),
			 "{'policies': {'gold': {'qos': %s}},"
			 " 'switches': [{'name': 'leaf0', 'policy': 'gold', 'ports': ["
			 " {'name': 'p0', 'device': 'net_null0'}, {'name': 'p1', 'device': 'net_null1'},"
			 " {'name': 'p2', 'device': 'net_null2'}, {'name': 'p3', 'device': 'net_null3'}]}]}",
			 cases[i].qos);
		const char *json = q(text);
		if (aif_config_parse(json, strlen(json), &cfg, err, sizeof(err)) != 0)
			fail_msg("case %zu: config: %s", i, err);
		if (cases[i].weight_q >= 0)
			cfg->policies[1].qos.weight[cases[i].weight_q] = 2000;
		if (cases[i].shaper_bps)
			cfg->switches[0].ports[1].shaper_bps = cases[i].shaper_bps;
		cfg->switches[0].ports[0].cable_delay_ns = cases[i].cable_p0;
		struct aif_tables *t = aif_tables_compile(sw, cfg, 0, err, sizeof(err));
		aif_tables_free(t);
		aif_config_free(cfg);
		if (t != NULL || strcmp(err, cases[i].err) != 0) {
			printf("case %zu: got\n  %s\nwant\n  %s\n", i, t ? "(compiled)" : err,
			       cases[i].err);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* ---- 65,536 IPv6 routes in the test's 512 MiB of EAL memory ---- */

/* DPDK heap bytes in use, all sockets. */
static uint64_t
heap_used_bytes(void)
{
	uint64_t used = 0;

	for (unsigned i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			used += st.heap_allocsz_bytes;
	}
	return used;
}

enum many_kind { MANY_HOST, MANY_MIX };

/* Prefix i of a kind: host routes 2001:db8:100::<i+1>/128 (one /112...
 * /120 apart, the way hosts are numbered), or 2001:db9:<i>:<r>::/len with
 * len 48..64 and r pseudo-random, all distinct (i differs). */
static void
many_prefix(enum many_kind k, uint32_t i, char *buf, size_t len)
{
	uint32_t h = i * 2654435761u;

	if (k == MANY_HOST)
		snprintf(buf, len, "2001:db8:100::%x:%x/128", (i + 1) >> 16, (i + 1) & 0xffff);
	else
		snprintf(buf, len, "2001:db9:%x:%x::/%u", i, (h >> 8) & 0xffff, 48 + h % 17);
}

/*
 * 65,536 IPv6 routes (AIF_MAX_ROUTES) in a leaf with the four ports above:
 * host routes and a /48../64 mix, each route on one of groups g0..g3 or
 * drop.  They must compile within the test's EAL -m 512 (a pool sized for
 * the worst case, 14 tbl8 groups per route, is 896 MiB) and every route
 * must look up to its own next hop, its first and last address alike.
 */
static void
many_routes(enum many_kind kind)
{
	const uint32_t n = AIF_MAX_ROUTES;
	size_t cap = (size_t)n * 96 + 4096, len = 0;
	char *json = malloc(cap), err[AIF_ERR_MAX] = "", pfx[64];
	struct aif_config *cfg = NULL;
	unsigned bad = 0;

	assert_non_null(json);
	len += (size_t)snprintf(json + len, cap - len,
		"{\"switches\": [{\"name\": \"leaf0\", \"ports\": ["
		"{\"name\": \"p0\", \"device\": \"net_null0\", \"addresses\": [\"10.0.0.1/24\", \"2001:db8::1/64\"]},"
		"{\"name\": \"p1\", \"device\": \"net_null1\", \"addresses\": [\"10.0.1.1/31\", \"2001:db8:ff::1/127\"]},"
		"{\"name\": \"p2\", \"device\": \"net_null2\", \"addresses\": [\"10.0.1.3/31\"]},"
		"{\"name\": \"p3\", \"device\": \"net_null3\", \"addresses\": [\"10.0.1.5/31\"]}],"
		"\"nexthop_groups\": [");
	for (unsigned g = 0; g < 4; g++)
		len += (size_t)snprintf(json + len, cap - len,
			"%s{\"name\": \"g%u\", \"members\": [{\"ip\": \"2001:db8::%x\", \"port\": \"p0\"}]}",
			g ? "," : "", g, 0x10 + g);
	len += (size_t)snprintf(json + len, cap - len, "], \"routes\": [");
	for (uint32_t i = 0; i < n; i++) {
		many_prefix(kind, i, pfx, sizeof(pfx));
		if (i % 5 == 4)
			len += (size_t)snprintf(json + len, cap - len, "%s{\"prefix\": \"%s\", \"action\": \"drop\"}",
						i ? "," : "", pfx);
		else
			len += (size_t)snprintf(json + len, cap - len, "%s{\"prefix\": \"%s\", \"group\": \"g%u\"}",
						i ? "," : "", pfx, i % 5);
	}
	len += (size_t)snprintf(json + len, cap - len, "]}]}");
	assert_true(len < cap);
	if (aif_config_parse(json, len, &cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	free(json);

	uint64_t before = heap_used_bytes();
	struct aif_tables *t = aif_tables_compile(sw, cfg, 0, err, sizeof(err));
	if (t == NULL) {
		aif_config_free(cfg);
		fail_msg("compile: %s", err);
	}
	print_message("%u IPv6 %s routes: the FIBs take %.1f MiB of DPDK memory\n", n,
		      kind == MANY_HOST ? "/128 host" : "/48../64", (double)(heap_used_bytes() - before) / (1 << 20));
	aif_switch_publish(sw, t);
	for (uint32_t i = 0; i < n; i++) {
		const struct aif_route_params *rp = &cfg->switches[0].routes[i];
		uint64_t want = rp->kind == AIF_ROUTE_DROP ? aif_nh_make(AIF_NH_DROP, 0)
							   : aif_nh_make(AIF_NH_GROUP, rp->group);
		uint8_t a[2][RTE_FIB6_IPV6_ADDR_SIZE];
		uint64_t nh[2];
		memcpy(a[0], rp->prefix.addr.b, 16);
		memcpy(a[1], rp->prefix.addr.b, 16);
		for (unsigned bit = rp->prefix.len; bit < 128; bit++) /* the last address */
			a[1][bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
		assert_int_equal(rte_fib6_lookup_bulk(t->fib6, a, nh, 2), 0);
		if (nh[0] != want || nh[1] != want) {
			if (bad++ < 5)
				printf("route %u: got %#" PRIx64 " %#" PRIx64 ", want %#" PRIx64 "\n",
				       i, nh[0], nh[1], want);
		}
	}
	assert_int_equal(bad, 0);
	/* around them: the connected subnet, and nothing past the routes */
	const struct lpm_case around[] = {
		CONN("2001:db8::99", 0), LOCAL("2001:db8::1", 0), CONN("2001:db8:ff::", 1),
		MISS("2001:db8:100::1:0:0"), MISS("2001:dba::"), MISS("2001:db7:ffff::"),
	};
	check_cases(t, around, RTE_DIM(around));
	aif_config_free(cfg);
}

/* Out of DPDK memory: the error says how much the FIB needs and how much
 * there is, and to raise EAL -m. */
static void
test_fib_no_memory(void **state)
{
	struct rte_malloc_socket_stats st;
	char err[AIF_ERR_MAX] = "";
	void *hog[16];
	unsigned n = 0;

	(void)state;
	/* leave less than the 64 MiB of the IPv4 table */
	while (n < RTE_DIM(hog) &&
	       rte_malloc_get_socket_stats(rte_socket_id_by_idx(0), &st) == 0 &&
	       st.greatest_free_size > (32u << 20))
		hog[n++] = rte_malloc("hog", st.greatest_free_size - (16u << 20), 0);
	struct aif_config *cfg = parse_cfg(true);
	struct aif_tables *t = aif_tables_compile(sw, cfg, 0, err, sizeof(err));
	while (n > 0)
		rte_free(hog[--n]);
	assert_null(t);
	aif_config_free(cfg);
	print_message("%s\n", err);
	const char *want = "cannot create the IPv4 FIB for 15 entries: it needs about 65 MiB "
			   "of DPDK memory (67 tbl8 groups of 1024 B), DPDK has ";
	if (strncmp(err, want, strlen(want)) != 0 || strstr(err, "; raise EAL -m") == NULL)
		fail_msg("got: %s", err);
}

static void
test_many_host_routes(void **state)
{
	(void)state;
	many_routes(MANY_HOST);
}

static void
test_many_mixed_routes(void **state)
{
	(void)state;
	many_routes(MANY_MIX);
}

/* ---- failure ---- */

static void
test_compile_fails(void **state)
{
	char err[AIF_ERR_MAX];
	struct aif_config *cfg;
	const char *one_port =
		"{'switches': [{'name': 'leaf0', 'ports': ["
		" {'name': 'p0', 'device': 'net_null0', 'addresses': ['10.0.0.1/24']}]}]}";

	(void)state;
	/* a config with another number of ports than the running switch */
	const char *json = q(one_port);
	assert_int_equal(aif_config_parse(json, strlen(json), &cfg, err, sizeof(err)), 0);
	memset(err, 0, sizeof(err));
	assert_null(aif_tables_compile(sw, cfg, 0, err, sizeof(err)));
	assert_string_equal(err, "$.switches[0].ports: switch leaf0 has 1 ports, the running switch 4");
	assert_null(sw->tables);
	aif_config_free(cfg); /* still the caller's */

	/* a switch index past the config's switches */
	cfg = parse_cfg(true);
	memset(err, 0, sizeof(err));
	assert_null(aif_tables_compile(sw, cfg, 1, err, sizeof(err)));
	assert_string_equal(err, "$.switches: no switch 1 in the config (it has 1)");
	/* the rejected compiles left nothing behind: the same config compiles */
	struct aif_tables *t = aif_tables_compile(sw, cfg, 0, err, sizeof(err));
	assert_non_null(t);
	aif_switch_publish(sw, t);
	assert_int_equal(t->generation, 1);
	assert_int_equal(aif_nh_type(lookup(t, "10.1.2.129")), AIF_NH_GROUP);
	aif_config_free(cfg);
}

/*
 * A shaped port's token bucket: one MTU frame plus 10 us at the rate by
 * default (what a polling worker needs), or shaper_burst_bytes when the
 * port says so (one frame is enough for a runner stepping at the shaper's
 * next event).
 */
static void
test_shaper_burst(void **state)
{
	static const char text[] =
		"{\"switches\": [{\"name\": \"leaf0\", \"ports\": ["
		" {\"name\": \"p0\", \"device\": \"net_null0\", \"shaper_gbps\": 10},"
		" {\"name\": \"p1\", \"device\": \"net_null1\", \"shaper_gbps\": 10,"
		"  \"shaper_burst_bytes\": 1538},"
		" {\"name\": \"p2\", \"device\": \"net_null2\"},"
		" {\"name\": \"p3\", \"device\": \"net_null3\"}]}]}";
	char err[AIF_ERR_MAX] = "";
	struct aif_config *cfg = NULL;

	(void)state;
	if (aif_config_parse(text, strlen(text), &cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	struct aif_tables *t = aif_tables_compile(sw, cfg, 0, err, sizeof(err));
	if (t == NULL)
		fail_msg("compile: %s", err);
	/* 1518 + 20 wire bytes, plus 10 us at 10 Gb/s = 12,500 B */
	assert_int_equal(t->qos->sched[0].burst_bytes, 1518 + 20 + 12500);
	assert_int_equal(t->qos->sched[1].burst_bytes, 1538);
	assert_int_equal(t->qos->sched[1].depth_nbit, 1538ull * 8 * 1000000000ull);
	assert_int_equal(t->qos->sched[2].rate_bps, 0);
	aif_tables_free(t);
	aif_config_free(cfg);
}

#define SW_TEST(f) cmocka_unit_test_setup_teardown(f, setup_switch, teardown_switch)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		SW_TEST(test_lpm_v4),
		SW_TEST(test_shaper_burst),
		SW_TEST(test_lpm_v6),
		SW_TEST(test_lpm_no_default),
		SW_TEST(test_lpm_bulk),
		SW_TEST(test_tables_fields),
		SW_TEST(test_member_slots),
		SW_TEST(test_compile_fails),
		SW_TEST(test_member_slots_reclaimed),
		SW_TEST(test_qos_errors),
		SW_TEST(test_fib_no_memory),
		SW_TEST(test_many_host_routes),
		SW_TEST(test_many_mixed_routes),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
