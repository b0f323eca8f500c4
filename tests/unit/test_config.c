/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for control/config.c: the shipped example parses to the
 * expected params, defaults are filled in, and a table of bad configs each
 * fails with its exact "<json path>: <reason>" message and *out NULL.
 *
 * Inline configs are written with single quotes for readability; q() turns
 * them into JSON (no test string needs a literal single quote).
 *
 * Build: needs AIF_SOURCE_ROOT (a string literal, the source tree) to find
 * config/example.json.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "wire.h"

#include "../../control/config.h"
#include "../../dataplane/rng.h"

#ifndef AIF_SOURCE_ROOT
#error "define AIF_SOURCE_ROOT as the source tree, e.g. -DAIF_SOURCE_ROOT='\"/src\"'"
#endif

#define EXAMPLE_PATH AIF_SOURCE_ROOT "/config/example.json"

/* 32-bit FNV-1a of "leaf0", computed independently of config.c. */
#define LEAF0_SEED 0xa99b55ffu

static char qbuf[8192];

/* Single quotes -> double quotes. */
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

/* Parse q(text); must succeed. */
static struct aif_config *
parse_ok(const char *text)
{
	struct aif_config *cfg = NULL;
	char err[AIF_ERR_MAX];
	const char *json = q(text);

	if (aif_config_parse(json, strlen(json), &cfg, err, sizeof(err)) != 0)
		fail_msg("unexpected error: %s", err);
	assert_non_null(cfg);
	assert_string_equal(err, "");
	return cfg;
}

static const char *
fmt_ip(const struct aif_ip *ip)
{
	static char buf[64];

	return aif_ip_fmt(ip, buf, sizeof(buf));
}

static const char *
fmt_prefix(const struct aif_prefix *p)
{
	static char buf[64];

	return aif_prefix_fmt(p, buf, sizeof(buf));
}

static const char *
fmt_mac(const struct aif_mac *m)
{
	static char buf[32];

	return aif_mac_fmt(m, buf, sizeof(buf));
}

/* Every qos field holds the default documented in config.h. */
static void
assert_qos_defaults(const struct aif_qos_params *q)
{
	unsigned int i;

	assert_true(q->enable);
	for (i = 0; i < 8; i++) {
		assert_int_equal(q->tc_to_queue[i], i);
		assert_int_equal(q->tc_to_pg[i], i);
		assert_int_equal(q->weight[i], 1);
	}
	assert_int_equal(q->pfc_enable, 1u << 3);
	assert_int_equal(q->strict_queues, 1u << 6);
	assert_int_equal(q->buffer_model, AIF_QOS_BUF_HPCC);
	assert_int_equal(q->buffer_bytes, 12 * 1024 * 1024);
	assert_int_equal(q->reserve_bytes, 4096);
	assert_int_equal(q->dynamic_th, -3);
	assert_int_equal(q->resume_offset_bytes, 3072);
	assert_int_equal(q->headroom_bytes, 0);
	assert_int_equal(q->cable_delay_ns, 1000);
	assert_int_equal(q->ecn_queues, 1u << 3);
	assert_int_equal(q->ecn_mode, AIF_QOS_ECN_ON);
	assert_int_equal(q->ecn_mark_point, AIF_QOS_MARK_DEQUEUE);
	assert_int_equal(q->kmin_bytes, 100000);
	assert_int_equal(q->kmax_bytes, 400000);
	assert_true(q->pmax == 0.2);
	assert_int_equal(q->pfc_quanta, 0xFFFF);
	assert_int_equal(q->wd_detection_ns, 200000000);
	assert_int_equal(q->wd_restoration_ns, 200000000);
	assert_int_equal(q->wd_action, AIF_QOS_WD_DROP);
	assert_int_equal(q->trim_queues, 0);
	assert_int_equal(q->trim_size_bytes, 128);
	assert_int_equal(q->trim_dscp, 11);
	assert_int_equal(q->trim_queue, 7);
	assert_int_equal(q->mmu_bypass, 1u << 6); /* ACKs, NAKs, CNPs outside the buffer */
	assert_int_equal(q->bypass_limit_bytes, 262144);
}

/* ---- the example file ---- */

static void
test_example_file(void **state)
{
	const struct aif_switch_params *sw;
	const struct aif_policy_params *pol;
	struct aif_config *cfg = NULL;
	char err[AIF_ERR_MAX];
	unsigned int i;

	(void)state;
	if (aif_config_load_file(EXAMPLE_PATH, &cfg, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_int_equal(cfg->n_policies, 1);
	assert_int_equal(cfg->n_switches, 1);
	assert_int_equal(cfg->n_hosts, 1);
	assert_int_equal(cfg->n_links, 0);

	pol = &cfg->policies[0];
	assert_string_equal(pol->name, "default");
	assert_int_equal(pol->trust, AIF_TRUST_DSCP);
	for (i = 0; i < 64; i++)
		assert_int_equal(pol->dscp_to_tc[i],
				 i == 26 ? 3 : i == 48 ? 6 : 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(pol->pcp_to_tc[i], i);
	assert_int_equal(pol->lb.scheme, AIF_LB_ECMP);
	assert_int_equal(pol->lb.hash_alg, AIF_HASH_CRC32C);
	assert_int_equal(pol->lb.hash_fields, AIF_HF_DEFAULT);
	assert_qos_defaults(&pol->qos); /* spelled out, equal to the defaults */

	sw = &cfg->switches[0];
	assert_string_equal(sw->name, "leaf0");
	assert_false(sw->seed_set);
	assert_int_equal(sw->seed, LEAF0_SEED);
	assert_false(sw->proxy_arp);
	/* neighbour learning: the defaults */
	assert_int_equal(sw->neigh.reachable_s, 300);
	assert_int_equal(sw->neigh.stale_s, 60);
	assert_int_equal(sw->neigh.max_learned, 4096);
	assert_int_equal(sw->neigh.rate_pps, 1000);
	assert_int_equal(sw->neigh.burst, 100);
	assert_int_equal(sw->policy, 0);

	assert_int_equal(sw->n_ports, 4);
	assert_string_equal(sw->ports[0].name, "p0");
	assert_string_equal(sw->ports[0].device, "net_pcap0");
	assert_true(sw->ports[0].mac_set);
	assert_string_equal(fmt_mac(&sw->ports[0].mac), "02:00:00:00:00:10");
	assert_int_equal(sw->ports[0].mtu, 1500);
	assert_int_equal(sw->ports[0].speed_mbps, 100000);
	assert_int_equal(sw->ports[0].shaper_bps, 40000000000ull);
	assert_int_equal(sw->ports[1].shaper_bps, 0);
	assert_int_equal(sw->ports[0].n_addrs, 2);
	assert_string_equal(fmt_prefix(&sw->ports[0].addrs[0]), "10.0.0.1/24");
	assert_string_equal(fmt_prefix(&sw->ports[0].addrs[1]),
			    "2001:db8::1/64");
	assert_string_equal(sw->ports[3].name, "p3");
	assert_string_equal(sw->ports[3].device, "net_pcap3");
	assert_int_equal(sw->ports[3].mtu, 9000);
	assert_string_equal(fmt_prefix(&sw->ports[3].addrs[0]), "10.0.1.5/31");
	assert_string_equal(fmt_prefix(&sw->ports[3].addrs[1]),
			    "2001:db8:ff::5/127");

	/* 6 explicit neighbours + host h0 appended last. */
	assert_int_equal(sw->n_neighbors, 7);
	assert_string_equal(fmt_ip(&sw->neighbors[0].ip), "10.0.1.0");
	assert_int_equal(sw->neighbors[0].port, 1);
	assert_string_equal(fmt_ip(&sw->neighbors[3].ip), "2001:db8:ff::");
	assert_string_equal(fmt_ip(&sw->neighbors[6].ip), "10.0.0.2");
	assert_string_equal(fmt_mac(&sw->neighbors[6].mac), "02:00:00:00:00:02");
	assert_int_equal(sw->neighbors[6].port, 0);

	/* uplinks, uplinks6 and the implicit group of the nexthop route. */
	assert_int_equal(sw->n_groups, 3);
	assert_string_equal(sw->groups[0].name, "uplinks");
	assert_int_equal(sw->groups[0].n_members, 3);
	assert_string_equal(fmt_ip(&sw->groups[0].members[2].ip), "10.0.1.4");
	assert_int_equal(sw->groups[0].members[2].port, 3);
	assert_int_equal(sw->groups[0].members[2].weight, 1);
	assert_string_equal(sw->groups[1].name, "uplinks6");
	assert_int_equal(sw->groups[1].n_members, 3);
	assert_string_equal(fmt_ip(&sw->groups[1].members[0].ip),
			    "2001:db8:ff::");
	assert_string_equal(sw->groups[2].name, "10.0.1.2@p2");
	assert_int_equal(sw->groups[2].n_members, 1);
	assert_int_equal(sw->groups[2].members[0].port, 2);
	assert_int_equal(sw->groups[2].members[0].weight, 1);

	assert_int_equal(sw->n_routes, 4);
	assert_string_equal(fmt_prefix(&sw->routes[0].prefix), "10.1.0.0/16");
	assert_int_equal(sw->routes[0].kind, AIF_ROUTE_GROUP);
	assert_int_equal(sw->routes[0].group, 0);
	assert_string_equal(fmt_prefix(&sw->routes[1].prefix),
			    "2001:db8:1::/48");
	assert_int_equal(sw->routes[1].group, 1);
	assert_int_equal(sw->routes[2].kind, AIF_ROUTE_GROUP);
	assert_int_equal(sw->routes[2].group, 2);
	assert_string_equal(fmt_prefix(&sw->routes[3].prefix), "10.9.0.0/16");
	assert_int_equal(sw->routes[3].kind, AIF_ROUTE_DROP);

	assert_string_equal(cfg->hosts[0].name, "h0");
	assert_int_equal(cfg->hosts[0].sw, 0);
	assert_int_equal(cfg->hosts[0].port, 0);
	assert_string_equal(fmt_ip(&cfg->hosts[0].ip), "10.0.0.2");

	assert_int_equal(aif_config_switch_find(cfg, "leaf0"), 0);
	assert_int_equal(aif_config_switch_find(cfg, "leaf1"), -1);
	assert_int_equal(aif_config_port_find(sw, "p2"), 2);
	assert_int_equal(aif_config_port_find(sw, "p9"), -1);
	aif_config_free(cfg);
}

/* ---- good inline configs: defaults and derived values ---- */

#define P0 "{'name':'p0','device':'d0','addresses':['10.0.0.1/24']}"
#define P1 "{'name':'p1','device':'d1','addresses':['10.0.1.1/31']}"
#define PORTS "'ports':[" P0 "," P1 "]"
/* One switch s0 with ports p0, p1 and more switch fields. */
#define SW(extra) "{'switches':[{'name':'s0'," PORTS extra "}]}"
/* Same, plus top-level fields after "switches". */
#define SWT(extra, top) "{'switches':[{'name':'s0'," PORTS extra "}]" top "}"
/* Two switches s0 (p0, p1) and s1 (p0, p1). */
#define TWO(top) \
	"{'switches':[{'name':'s0'," PORTS "}," \
	"{'name':'s1','ports':[{'name':'p0','device':'e0'}," \
	"{'name':'p1','device':'e1'}]}]" top "}"
/* One switch with the default policy's "qos" holding fields. */
#define QOS(fields) SWT("", ",'policies':{'default':{'qos':{" fields "}}}")

static void
test_defaults(void **state)
{
	struct aif_config *cfg;
	const struct aif_port_params *p;

	(void)state;
	cfg = parse_ok("{'switches':[{'name':'x','ports':[{'name':'a','device':'d'}]}]}");
	assert_int_equal(cfg->n_policies, 1);
	assert_string_equal(cfg->policies[0].name, "default");
	assert_int_equal(cfg->policies[0].dscp_to_tc[26], 3);
	assert_int_equal(cfg->policies[0].dscp_to_tc[48], 6);
	assert_int_equal(cfg->policies[0].dscp_to_tc[46], 0);
	assert_int_equal(cfg->switches[0].seed, 0xfd0c5087u); /* FNV-1a("x") */
	p = &cfg->switches[0].ports[0];
	assert_false(p->mac_set);
	assert_int_equal(p->mtu, 1500);
	assert_false(p->vlan_set); /* untagged */
	assert_int_equal(p->speed_mbps, 0);
	assert_int_equal(p->shaper_bps, 0);
	assert_int_equal(p->n_addrs, 0);
	assert_int_equal(cfg->switches[0].n_neighbors, 0);
	assert_null(cfg->switches[0].neighbors);
	assert_int_equal(cfg->switches[0].n_groups, 0);
	assert_int_equal(cfg->switches[0].n_routes, 0);
	assert_qos_defaults(&cfg->policies[0].qos);
	aif_config_free(cfg);
}

static void
test_qos_defaults(void **state)
{
	struct aif_policy_params p;

	(void)state;
	memset(&p, 0xa5, sizeof(p));
	aif_policy_defaults(&p);
	assert_string_equal(p.name, "default");
	assert_qos_defaults(&p.qos);
}

/* The options that follow ConWeave's ns-3: defaults, and "conweave" filling
 * the buffer fields a policy leaves out with the model's values. */
static void
test_ns3_options(void **state)
{
	struct aif_config *cfg;
	const struct aif_qos_params *q;
	const struct aif_lb_params *lb;

	(void)state;
	cfg = parse_ok(SWT(",'ecmp_seed':130",
			   ",'policies':{'default':{'qos':{'buffer':{'model':'conweave',"
			   "'size_bytes':9000000},'pfc':{'mode':'ns3','pause_us':2.5}},"
			   "'load_balancing':{'hash':'murmur3_ns3','spray':{'distinct':false,"
			   "'memory':'group','queue_read':'step'},'flowlet':{'gap_test':'lt'}}},"
			   "'x':{'qos':{'buffer':{'model':'conweave','headroom_slot0_quirk':false},"
			   "'ecn':{'qmin_bytes':0}}}}"));
	assert_int_equal(cfg->switches[0].ecmp_seed, 130);
	q = &cfg->policies[0].qos;
	assert_int_equal(q->buffer_model, AIF_QOS_BUF_CONWEAVE);
	assert_int_equal(q->buffer_bytes, 9000000);     /* given */
	assert_int_equal(q->reserve_bytes, 1048);       /* the model's */
	assert_int_equal(q->dynamic_th, -4);
	assert_int_equal(q->resume_offset_bytes, 16);
	assert_true(q->headroom_slot0_quirk);
	assert_int_equal(q->ecn_qmin_bytes, 1049);
	assert_int_equal(q->pfc_mode, 1);
	assert_int_equal(q->pfc_pause_ns, 2500);
	lb = &cfg->policies[0].lb;
	assert_int_equal(lb->hash_alg, AIF_HASH_MURMUR3_NS3);
	assert_false(lb->drill_distinct);
	assert_int_equal(lb->drill_memory, AIF_DRILL_MEM_GROUP);
	assert_int_equal(lb->queue_read, AIF_LB_QREAD_STEP);
	assert_false(lb->flowlet_gap_le);
	q = &cfg->policies[1].qos;
	assert_int_equal(q->buffer_bytes, 9437184);
	assert_false(q->headroom_slot0_quirk);
	assert_int_equal(q->ecn_qmin_bytes, 0);
	/* defaults: ns-3's load balancing, aif's buffer and PFC */
	lb = &cfg->policies[1].lb;
	assert_true(lb->drill_distinct);
	assert_int_equal(lb->drill_memory, AIF_DRILL_MEM_DESTINATION);
	assert_int_equal(lb->queue_read, AIF_LB_QREAD_PACKET);
	assert_true(lb->flowlet_gap_le);
	aif_config_free(cfg);
	cfg = parse_ok(SW(",'seed':77"));
	assert_int_equal(cfg->switches[0].ecmp_seed, 77); /* the seed's */
	assert_int_equal(cfg->policies[0].qos.pfc_mode, 0);
	assert_int_equal(cfg->policies[0].qos.pfc_pause_ns, 5000);
	aif_config_free(cfg);
}

/* ACK/NAK/CNP traffic as ns-3 treats it: the control class (TC 6) outside
 * the buffer and on ECMP whatever the data's scheme, unless the policy
 * says otherwise. */
static void
test_control_class(void **state)
{
	const struct aif_policy_params *p;
	struct aif_config *cfg;

	(void)state;
	cfg = parse_ok(SWT("", ",'policies':{'default':{'load_balancing':{'scheme':'flowlet'}},"
			   "'s':{'load_balancing':{'scheme':'spray','per_tc':{'6':'spray'}}},"
			   "'c':{'load_balancing':{'scheme':'spray','control_tc':[]},"
			   "'qos':{'mmu_bypass':[],'buffer':{'bypass_limit_bytes':4096}}},"
			   "'d':{'load_balancing':{'scheme':'flowlet','control_tc':[5,6]},"
			   "'qos':{'mmu_bypass':[5,6]}},"
			   "'l':{'qos':{'pfc_enable':[3,6]}}}"));
	p = &cfg->policies[0]; /* default: TC 6 on ECMP, outside the buffer */
	for (unsigned tc = 0; tc < 8; tc++)
		assert_int_equal(p->lb.scheme_by_tc[tc], tc == 6 ? AIF_LB_ECMP : AIF_LB_FLOWLET);
	assert_int_equal(p->lb.control_tcs, 1u << 6);
	assert_int_equal(p->lb.flowlet_table, AIF_FLOWLET_TABLE_EXACT);
	assert_int_equal(p->qos.mmu_bypass, 1u << 6);
	p = &cfg->policies[1]; /* per_tc wins over control_tc */
	assert_int_equal(p->lb.scheme_by_tc[6], AIF_LB_SPRAY);
	p = &cfg->policies[2]; /* aif's: ACKs with the data, in the buffer */
	assert_int_equal(p->lb.scheme_by_tc[6], AIF_LB_SPRAY);
	assert_int_equal(p->qos.mmu_bypass, 0);
	assert_int_equal(p->qos.bypass_limit_bytes, 4096);
	p = &cfg->policies[3];
	assert_int_equal(p->lb.scheme_by_tc[5], AIF_LB_ECMP);
	assert_int_equal(p->lb.scheme_by_tc[4], AIF_LB_FLOWLET);
	assert_int_equal(p->qos.mmu_bypass, (1u << 5) | (1u << 6));
	p = &cfg->policies[4]; /* the default gives way to a lossless class */
	assert_int_equal(p->qos.mmu_bypass, 0);
	aif_config_free(cfg);
}

static void
test_qos_full(void **state)
{
	const struct aif_qos_params *q;
	const struct aif_port_params *port;
	struct aif_config *cfg;
	unsigned int i;

	(void)state;
	cfg = parse_ok("{'policies':{'rdma':{'qos':{'enable':false,"
		       "'tc_to_queue_map':{'0':1,'7':0},'tc_to_pg_map':{'3':4,'4':3},"
		       "'pfc_enable':[4,3],"
		       "'scheduler':{'strict':[7,6],'weights':{'0':10,'5':1000}},"
		       "'buffer':{'model':'broadcom','size_bytes':17179869184,'reserve_bytes':0,"
		       "'dynamic_th':1,'resume_offset_bytes':1048576,'headroom_bytes':262144,"
		       "'cable_delay_ns':5000},"
		       "'ecn':{'queues':[3,4],'mode':'wred','mark':'enqueue','kmin_bytes':5000,"
		       "'kmax_bytes':200000,'pmax':0.01},"
		       "'pfc':{'quanta':1000,'watchdog':{'detection_ms':0.5,'restoration_ms':1500,"
		       "'action':'alert'}},"
		       "'trimming':{'queues':[3,0],'size_bytes':1500,'dscp':0,'queue':0}}},"
		       "'lossy':{'qos':{'pfc_enable':[],'scheduler':{'strict':[]},"
		       "'buffer':{'model':'hpcc','dynamic_th':-16},"
		       "'ecn':{'queues':[],'mode':'off','mark':'dequeue','kmin_bytes':7,'kmax_bytes':7,'pmax':1},"
		       "'pfc':{'watchdog':{'action':'forward'}},"
		       "'trimming':{'queues':[7],'size_bytes':64,'dscp':63}}},"
		       "'default':{'qos':{'ecn':{'mode':'ecn','kmin_bytes':50000},'pfc':{},"
		       "'trimming':{}}}},"
		       "'switches':[{'name':'s0','policy':'rdma','ports':["
		       "{'name':'p0','device':'d0','speed_gbps':100,'shaper_gbps':40},"
		       "{'name':'p1','device':'d1','speed_gbps':0.1,'shaper_gbps':0.1},"
		       "{'name':'p2','device':'d2','shaper_gbps':2.5,'shaper_burst_bytes':3000,"
		       "'cable_delay_ns':5000},"
		       "{'name':'p3','device':'d3','shaper_gbps':0.0000000015}]}]}");
	assert_int_equal(cfg->n_policies, 3);

	q = &cfg->policies[1].qos;
	assert_string_equal(cfg->policies[1].name, "rdma");
	assert_false(q->enable);
	for (i = 0; i < 8; i++) {
		assert_int_equal(q->tc_to_queue[i], i == 0 ? 1 : i == 7 ? 0 : i);
		assert_int_equal(q->tc_to_pg[i], i == 3 ? 4 : i == 4 ? 3 : i);
		assert_int_equal(q->weight[i], i == 0 ? 10 : i == 5 ? 1000 : 1);
	}
	assert_int_equal(q->pfc_enable, (1u << 3) | (1u << 4));
	assert_int_equal(q->strict_queues, (1u << 6) | (1u << 7));
	assert_int_equal(q->buffer_model, AIF_QOS_BUF_BROADCOM);
	assert_int_equal(q->buffer_bytes, 1ull << 34);
	assert_int_equal(q->reserve_bytes, 0);
	assert_int_equal(q->dynamic_th, 1);
	assert_int_equal(q->resume_offset_bytes, 1048576);
	assert_int_equal(q->headroom_bytes, 262144);
	assert_int_equal(q->cable_delay_ns, 5000);
	assert_int_equal(q->ecn_queues, (1u << 3) | (1u << 4));
	assert_int_equal(q->ecn_mode, AIF_QOS_ECN_WRED);
	assert_int_equal(q->ecn_mark_point, AIF_QOS_MARK_ENQUEUE);
	assert_int_equal(q->kmin_bytes, 5000);
	assert_int_equal(q->kmax_bytes, 200000);
	assert_true(q->pmax == 0.01);
	assert_int_equal(q->pfc_quanta, 1000);
	assert_int_equal(q->wd_detection_ns, 500000);
	assert_int_equal(q->wd_restoration_ns, 1500000000ull);
	assert_int_equal(q->wd_action, AIF_QOS_WD_ALERT);
	assert_int_equal(q->trim_queues, (1u << 0) | (1u << 3));
	assert_int_equal(q->trim_size_bytes, 1500);
	assert_int_equal(q->trim_dscp, 0);
	assert_int_equal(q->trim_queue, 0);

	/* Empty arrays clear the masks; the rest keeps its defaults. */
	q = &cfg->policies[2].qos;
	assert_string_equal(cfg->policies[2].name, "lossy");
	assert_true(q->enable);
	assert_int_equal(q->pfc_enable, 0);
	assert_int_equal(q->strict_queues, 0);
	assert_int_equal(q->weight[6], 1);
	assert_int_equal(q->buffer_model, AIF_QOS_BUF_HPCC);
	assert_int_equal(q->buffer_bytes, 12 * 1024 * 1024);
	assert_int_equal(q->dynamic_th, -16);
	assert_int_equal(q->ecn_queues, 0);
	assert_int_equal(q->ecn_mode, AIF_QOS_ECN_OFF);
	assert_int_equal(q->ecn_mark_point, AIF_QOS_MARK_DEQUEUE);
	assert_int_equal(q->kmin_bytes, 7);
	assert_int_equal(q->kmax_bytes, 7);
	assert_true(q->pmax == 1.0);
	assert_int_equal(q->pfc_quanta, 0xFFFF);
	assert_int_equal(q->wd_detection_ns, 200000000);
	assert_int_equal(q->wd_action, AIF_QOS_WD_FORWARD);
	assert_int_equal(q->trim_queues, 1u << 7);
	assert_int_equal(q->trim_size_bytes, 64);
	assert_int_equal(q->trim_dscp, 63);
	assert_int_equal(q->trim_queue, 7); /* the default */

	/* "default" overridden field by field. */
	q = &cfg->policies[0].qos;
	assert_int_equal(q->kmin_bytes, 50000);
	assert_int_equal(q->kmax_bytes, 400000);
	assert_int_equal(q->ecn_mode, AIF_QOS_ECN_ON);
	assert_int_equal(q->pfc_enable, 1u << 3);
	assert_int_equal(q->pfc_quanta, 0xFFFF);
	/* an empty "trimming" object: still off, the defaults kept */
	assert_int_equal(q->trim_queues, 0);
	assert_int_equal(q->trim_size_bytes, 128);
	assert_int_equal(q->trim_dscp, 11);
	assert_int_equal(q->trim_queue, 7);

	assert_int_equal(cfg->switches[0].policy, 1);
	port = cfg->switches[0].ports;
	assert_int_equal(port[0].shaper_bps, 40000000000ull);
	assert_int_equal(port[1].speed_mbps, 100);
	assert_int_equal(port[1].shaper_bps, 100000000ull);
	assert_int_equal(port[2].shaper_bps, 2500000000ull);
	assert_int_equal(port[2].shaper_burst_bytes, 3000);
	assert_int_equal(port[1].shaper_burst_bytes, 0); /* derived at compile */
	assert_int_equal(port[2].cable_delay_ns, 5000);
	assert_int_equal(port[1].cable_delay_ns, 0); /* the policy's */
	assert_int_equal(port[3].shaper_bps, 2); /* 1.5 b/s rounds up */
	aif_config_free(cfg);
}

static void
test_policies(void **state)
{
	const struct aif_policy_params *p;
	struct aif_config *cfg;

	(void)state;
	cfg = parse_ok("{'policies':{'gold':{'trust':'pcp','pcp_to_tc_map':{'3':5},"
		       "'load_balancing':{'hash':'toeplitz','hash_fields':['dest_qp','flow_label']}},"
		       "'default':{'dscp_to_tc_map':{'10':2}}},"
		       "'switches':[{'name':'s0','policy':'gold','seed':7,'proxy_arp':true,"
		       "'neighbor_learning':{'reachable_s':30,'stale_s':5,'max_learned':64,"
		       "'rate_pps':0,'burst':1},"
		       "'ports':[{'name':'p0','device':'d0','speed_gbps':0.1,'mtu':9600}]}]}");
	assert_int_equal(cfg->n_policies, 2);
	assert_string_equal(cfg->policies[0].name, "default");
	assert_int_equal(cfg->policies[0].dscp_to_tc[10], 2);
	assert_int_equal(cfg->policies[0].dscp_to_tc[26], 0); /* map replaced */
	assert_int_equal(cfg->policies[0].dscp_to_tc[48], 0);
	p = &cfg->policies[1];
	assert_string_equal(p->name, "gold");
	assert_int_equal(p->trust, AIF_TRUST_PCP);
	assert_int_equal(p->pcp_to_tc[3], 5);
	assert_int_equal(p->pcp_to_tc[2], 2); /* identity kept */
	assert_int_equal(p->pcp_to_tc[7], 7);
	assert_int_equal(p->dscp_to_tc[26], 3); /* default map kept */
	assert_int_equal(p->lb.hash_alg, AIF_HASH_TOEPLITZ);
	assert_int_equal(p->lb.hash_fields, AIF_HF_DEST_QP | AIF_HF_FLOW_LABEL);
	assert_int_equal(cfg->switches[0].policy, 1);
	assert_true(cfg->switches[0].seed_set);
	assert_int_equal(cfg->switches[0].seed, 7);
	assert_true(cfg->switches[0].proxy_arp);
	assert_int_equal(cfg->switches[0].neigh.reachable_s, 30);
	assert_int_equal(cfg->switches[0].neigh.stale_s, 5);
	assert_int_equal(cfg->switches[0].neigh.max_learned, 64);
	assert_int_equal(cfg->switches[0].neigh.rate_pps, 0);
	assert_int_equal(cfg->switches[0].neigh.burst, 1);
	assert_int_equal(cfg->switches[0].ports[0].speed_mbps, 100);
	assert_int_equal(cfg->switches[0].ports[0].mtu, 9600);
	aif_config_free(cfg);
}

/* Port "vlan": a VID 0..4094 (0: priority tag); absent: untagged. */
/* "bfd" on a port: its knobs and its peer, the static neighbour on the
 * port in its subnet (not one elsewhere, not a host learned). */
static void
test_port_bfd(void **state)
{
	struct aif_config *cfg;

	(void)state;
	cfg = parse_ok("{'switches':[{'name':'s0','ports':["
		       "{'name':'p0','device':'d0','addresses':['10.0.0.1/24']},"
		       "{'name':'p1','device':'d1','addresses':['2001:db8::1/64','10.0.1.0/31'],"
		       "'bfd':{'interval_ms':100,'multiplier':5}},"
		       "{'name':'p2','device':'d2','addresses':['10.0.2.0/31'],'bfd':{}}],"
		       "'neighbors':[{'ip':'10.0.0.9','mac':'02:00:00:00:00:09','port':'p0'},"
		       "{'ip':'2001:db8::2','mac':'02:00:00:00:00:08','port':'p1'},"
		       "{'ip':'10.0.1.1','mac':'02:00:00:00:00:07','port':'p1'},"
		       "{'ip':'10.0.2.1','mac':'02:00:00:00:00:06','port':'p2'}]}]}");
	const struct aif_port_params *p = cfg->switches[0].ports;
	assert_int_equal(p[0].bfd_interval_us, 0);
	assert_int_equal(p[1].bfd_interval_us, 100000);
	assert_int_equal(p[1].bfd_mult, 5);
	assert_int_equal(p[1].bfd_neighbor, 2);
	assert_int_equal(p[1].bfd_addr, 1);
	assert_int_equal(p[2].bfd_interval_us, 50000); /* the defaults */
	assert_int_equal(p[2].bfd_mult, 3);
	assert_int_equal(p[2].bfd_neighbor, 3);
	assert_int_equal(p[2].bfd_addr, 0);
	aif_config_free(cfg);
}

static void
test_port_vlan(void **state)
{
	const struct aif_switch_params *sw;
	struct aif_config *cfg;

	(void)state;
	cfg = parse_ok("{'switches':[{'name':'s0','ports':["
		       "{'name':'p0','device':'d0','vlan':100},"
		       "{'name':'p1','device':'d1','vlan':0},"
		       "{'name':'p2','device':'d2','vlan':4094},"
		       "{'name':'p3','device':'d3'}]}]}");
	sw = &cfg->switches[0];
	assert_true(sw->ports[0].vlan_set);
	assert_int_equal(sw->ports[0].vlan, 100);
	assert_true(sw->ports[1].vlan_set);
	assert_int_equal(sw->ports[1].vlan, 0);
	assert_true(sw->ports[2].vlan_set);
	assert_int_equal(sw->ports[2].vlan, 4094);
	assert_false(sw->ports[3].vlan_set);
	aif_config_free(cfg);
}

static void
test_routes_and_groups(void **state)
{
	const struct aif_switch_params *sw;
	struct aif_config *cfg;

	(void)state;
	cfg = parse_ok(SW(",'neighbors':[{'ip':'192.168.9.9','mac':'02:00:00:00:09:09','port':'p1'}],"
			  "'nexthop_groups':[{'name':'g','members':[{'ip':'10.0.1.0','port':'p1','weight':65535},"
			  "{'ip':'192.168.9.9','port':'p1'}]}],"
			  "'routes':[{'prefix':'10.5.6.7/16','nexthop':{'ip':'10.0.0.9','port':'p0'}},"
			  "{'prefix':'10.6.0.0/16','nexthop':{'ip':'10.0.0.9','port':'p0'}},"
			  "{'prefix':'10.7.0.0/16','nexthop':{'ip':'192.168.9.9','port':'p1'}},"
			  "{'prefix':'10.8.0.1','group':'g'}]"));
	sw = &cfg->switches[0];
	assert_int_equal(sw->n_groups, 3); /* g + two implicit, one reused */
	assert_int_equal(sw->groups[0].members[0].weight, 65535);
	assert_string_equal(sw->groups[1].name, "10.0.0.9@p0");
	assert_string_equal(sw->groups[2].name, "192.168.9.9@p1");
	assert_int_equal(sw->n_routes, 4);
	assert_string_equal(fmt_prefix(&sw->routes[0].prefix), "10.5.0.0/16");
	assert_int_equal(sw->routes[0].group, 1);
	assert_int_equal(sw->routes[1].group, 1);
	assert_int_equal(sw->routes[2].group, 2);
	assert_string_equal(fmt_prefix(&sw->routes[3].prefix), "10.8.0.1/32");
	assert_int_equal(sw->routes[3].group, 0);
	aif_config_free(cfg);

	/* "<ip>@<port>" too long for AIF_NAME_MAX: "@<group index>". */
	cfg = parse_ok("{'switches':[{'name':'s0','ports':[{'name':'port_with_long_name',"
		       "'device':'d0','addresses':['2001:db8::1/64']}],"
		       "'routes':[{'prefix':'::/0','nexthop':{'ip':'2001:db8::1111:2222:3333:4444',"
		       "'port':'port_with_long_name'}}]}]}");
	sw = &cfg->switches[0];
	assert_int_equal(sw->n_groups, 1);
	assert_string_equal(sw->groups[0].name, "@0");
	assert_string_equal(fmt_prefix(&sw->routes[0].prefix), "::/0");
	aif_config_free(cfg);
}

static void
test_links(void **state)
{
	struct aif_config *cfg;

	(void)state;
	cfg = parse_ok(TWO(",'links':[{'a':'s0:p1','b':'s1:p0','rate_gbps':2.5,'delay_ns':1000},"
			   "{'a':'s0:p0','b':'s1:p1'}]"));
	assert_int_equal(cfg->n_links, 2);
	assert_int_equal(cfg->links[0].a_switch, 0);
	assert_int_equal(cfg->links[0].a_port, 1);
	assert_int_equal(cfg->links[0].b_switch, 1);
	assert_int_equal(cfg->links[0].b_port, 0);
	assert_int_equal(cfg->links[0].rate_bps, 2500000000ull);
	assert_int_equal(cfg->links[0].delay_ns, 1000);
	assert_int_equal(cfg->links[1].rate_bps, 0);
	assert_int_equal(cfg->links[1].delay_ns, 0);
	assert_int_equal(cfg->wire_model, AIF_WIRE_ETHERNET);
	assert_int_equal(cfg->links[0].wire_model, AIF_WIRE_ETHERNET);
	aif_config_free(cfg);
	/* ns-3's wire model: the file's, each link's unless it says otherwise */
	cfg = parse_ok(TWO(",'wire_model':'ns3','links':[{'a':'s0:p1','b':'s1:p0'},"
			   "{'a':'s0:p0','b':'s1:p1','wire_model':'ethernet'}]"));
	assert_int_equal(cfg->wire_model, AIF_WIRE_NS3);
	assert_int_equal(cfg->links[0].wire_model, AIF_WIRE_NS3);
	assert_int_equal(cfg->links[1].wire_model, AIF_WIRE_ETHERNET);
	aif_config_free(cfg);
}

/* Addresses and routes next to the ones refused: IPv4 link-local and class E
 * on a port, routes around a connected subnet and beside one, another
 * switch's subnet, two ports without "mac" (their devices' own). */
static void
test_addresses_and_routes_ok(void **state)
{
	struct aif_config *cfg;

	(void)state;
	cfg = parse_ok("{'switches':[{'name':'s0','ports':["
		       "{'name':'p0','device':'d0','addresses':['10.0.0.1/24','2001:db8::1/64']},"
		       "{'name':'p1','device':'d1','addresses':['169.254.0.1/16','10.0.1.1/31']},"
		       "{'name':'p2','device':'d2','addresses':['240.0.0.1/24','2001:db8:1::1/128']},"
		       "{'name':'p3','device':'d3','mac':'02:00:00:00:00:03'}],"
		       "'routes':[{'prefix':'10.0.2.128/25','nexthop':{'ip':'10.0.1.0','port':'p1'}},"
		       "{'prefix':'10.0.0.0/8','action':'drop'},{'prefix':'10.0.1.2/32','action':'drop'},"
		       "{'prefix':'2001:db8::/48','action':'drop'},{'prefix':'2001:db8:0:1::2/128','action':'drop'}]},"
		       "{'name':'s1','ports':[{'name':'p0','device':'e0','mac':'02:00:00:00:00:03',"
		       "'addresses':['10.0.0.1/24']}]}]}");
	assert_int_equal(cfg->switches[0].n_routes, 5);
	assert_int_equal(cfg->switches[0].ports[1].n_addrs, 2);
	aif_config_free(cfg);
}

/* ---- bad configs ---- */

struct bad_case {
	const char *json; /* single-quoted, see q() */
	const char *err;  /* the whole expected message */
};

static const struct bad_case bad_cases[] = {
	/* structure and types */
	{ "{'switches':[", "line 1 column 13: ']' expected near end of file" },
	{ "{'switches':[1],'switches':[2]}",
	  "line 1 column 26: duplicate object key near '\"switches\"'" },
	{ "[]", "$: expected object, got array" },
	{ "{}", "$.switches: required field is missing" },
	{ "{'switches':[]}", "$.switches: expected 1..4096 entries, got 0" },
	{ "{'switches':{}}", "$.switches: expected array, got object" },
	{ "{'switches':[5]}", "$.switches[0]: expected object, got integer" },
	{ SWT("", ",'switch':1"), "$: unknown field 'switch'" },
	{ "{'switches':[{'name':5," PORTS "}]}",
	  "$.switches[0].name: expected string, got integer" },
	{ "{'switches':[{'name':'a b'," PORTS "}]}",
	  "$.switches[0].name: invalid name 'a b' (1..31 characters from A-Z a-z 0-9 _ . -)" },
	{ "{'switches':[{'name':'s0'," PORTS "},{'name':'s0','ports':[{'name':'p0','device':'e0'}]}]}",
	  "$.switches[1].name: duplicate switch name 's0'" },
	/* a name found among several (an index of them, not a scan) */
	{ "{'switches':[{'name':'s0'," PORTS "},{'name':'s1','ports':[{'name':'p0','device':'e0'}]},"
	  "{'name':'s2','ports':[{'name':'p0','device':'e1'}]},"
	  "{'name':'s1','ports':[{'name':'p0','device':'e2'}]}]}",
	  "$.switches[3].name: duplicate switch name 's1'" },
	{ "{'switches':[{'name':'s0'," PORTS "},{'name':'s1','ports':[{'name':'p0','device':'e0'}]},"
	  "{'name':'s2','ports':[{'name':'p0','device':'e1'}]}],"
	  "'links':[{'a':'s2:p0','b':'s1:p0'},{'a':'s0:p0','b':'s3:p0'}]}",
	  "$.links[1].b: unknown switch 's3'" },
	{ "{'switches':[{'name':'s0'}]}", "$.switches[0].ports: required field is missing" },
	{ SW(",'seed':-1"), "$.switches[0].seed: must be 0..4294967295, got -1" },
	{ SW(",'proxy_arp':1"), "$.switches[0].proxy_arp: expected boolean, got integer" },
	{ SW(",'neighbor_learning':{'max_learned':5000}"),
	  "$.switches[0].neighbor_learning.max_learned: must be 1..4096, got 5000" },
	{ SW(",'neighbor_learning':{'reachable_s':0}"),
	  "$.switches[0].neighbor_learning.reachable_s: must be 1..86400, got 0" },
	{ SW(",'neighbor_learning':{'burst':0}"),
	  "$.switches[0].neighbor_learning.burst: must be 1..1000000, got 0" },
	{ SW(",'neighbor_learning':{'aging':1}"),
	  "$.switches[0].neighbor_learning: unknown field 'aging'" },
	{ SW(",'neighbor_learning':3"),
	  "$.switches[0].neighbor_learning: expected object, got integer" },
	/* ports */
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','foo':1}]}]}",
	  "$.switches[0].ports[0]: unknown field 'foo'" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':''}]}]}",
	  "$.switches[0].ports[0].device: device name must be 1..63 characters" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','mac':'zz'}]}]}",
	  "$.switches[0].ports[0].mac: invalid MAC address 'zz'" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','mac':'01:00:5e:00:00:01'}]}]}",
	  "$.switches[0].ports[0].mac: multicast MAC address '01:00:5e:00:00:01' is not allowed" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','mac':'02:00:00:00:00:10'},"
	  "{'name':'p1','device':'d1'},{'name':'p2','device':'d2','mac':'02:00:00:00:00:10'}]}]}",
	  "$.switches[0].ports[2].mac: MAC 02:00:00:00:00:10 is already the MAC of port p0" },
	{ "{'switches':[{'name':'s0','ports':[" P0 ",{'name':'p0','device':'d1'}]}]}",
	  "$.switches[0].ports[1].name: duplicate port name 'p0'" },
	{ "{'switches':[{'name':'s0','ports':[" P0 ",{'name':'p1','device':'d0'}]}]}",
	  "$.switches[0].ports[1].device: device 'd0' is already used by s0:p0" },
	{ "{'switches':[{'name':'s0'," PORTS "},{'name':'s1','ports':[{'name':'p0','device':'d1'}]}]}",
	  "$.switches[1].ports[0].device: device 'd1' is already used by s0:p1" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','mtu':20}]}]}",
	  "$.switches[0].ports[0].mtu: must be 68..9600, got 20" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','mtu':'1500'}]}]}",
	  "$.switches[0].ports[0].mtu: expected integer, got string" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','vlan':4095}]}]}",
	  "$.switches[0].ports[0].vlan: must be 0..4094, got 4095" },
	{ "{'switches':[{'name':'s0','ports':[" P0 ",{'name':'p1','device':'d1','vlan':-1}]}]}",
	  "$.switches[0].ports[1].vlan: must be 0..4094, got -1" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','vlan':'100'}]}]}",
	  "$.switches[0].ports[0].vlan: expected integer, got string" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','vlan':1.5}]}]}",
	  "$.switches[0].ports[0].vlan: expected integer, got number" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','vlan':null}]}]}",
	  "$.switches[0].ports[0].vlan: expected integer, got null" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','speed_gbps':0}]}]}",
	  "$.switches[0].ports[0].speed_gbps: must be > 0 and at most 1000000, got 0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.0.1/33']}]}]}",
	  "$.switches[0].ports[0].addresses[0]: invalid address '10.0.0.1/33'" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.0.1']}]}]}",
	  "$.switches[0].ports[0].addresses[0]: prefix length is required in '10.0.0.1'" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.0.0/24']}]}]}",
	  "$.switches[0].ports[0].addresses[0]: '10.0.0.0/24' is the network address of its subnet" },
	{ "{'switches':[{'name':'s0','ports':[" P0 ",{'name':'p1','device':'d1','addresses':['2001:db8::1/64','10.0.0.2/24']}]}]}",
	  "$.switches[0].ports[1].addresses[1]: subnet 10.0.0.0/24 is already on port p0" },
	/* addresses that are no host's, and overlapping subnets */
#define ADDR1(a) "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['" a "']}]}]}"
	{ ADDR1("10.0.0.1/0"),
	  "$.switches[0].ports[0].addresses[0]: '10.0.0.1/0' is a /0: its subnet would make every destination connected" },
	{ ADDR1("2001:db8::1/0"),
	  "$.switches[0].ports[0].addresses[0]: '2001:db8::1/0' is a /0: its subnet would make every destination connected" },
	{ ADDR1("224.0.0.5/24"),
	  "$.switches[0].ports[0].addresses[0]: '224.0.0.5/24' is a multicast address (224.0.0.0/4)" },
	{ ADDR1("239.1.1.1/32"),
	  "$.switches[0].ports[0].addresses[0]: '239.1.1.1/32' is a multicast address (224.0.0.0/4)" },
	{ ADDR1("0.0.0.1/24"),
	  "$.switches[0].ports[0].addresses[0]: '0.0.0.1/24' is in 0.0.0.0/8 (\"this network\"), not a host address" },
	{ ADDR1("0.0.0.0/32"),
	  "$.switches[0].ports[0].addresses[0]: '0.0.0.0/32' is in 0.0.0.0/8 (\"this network\"), not a host address" },
	{ ADDR1("127.0.0.1/8"),
	  "$.switches[0].ports[0].addresses[0]: '127.0.0.1/8' is a loopback address (127.0.0.0/8)" },
	{ ADDR1("255.255.255.255/32"),
	  "$.switches[0].ports[0].addresses[0]: '255.255.255.255/32' is the limited broadcast address" },
	{ ADDR1("ff02::1/64"),
	  "$.switches[0].ports[0].addresses[0]: 'ff02::1/64' is a multicast address (ff00::/8)" },
	{ ADDR1("::/128"),
	  "$.switches[0].ports[0].addresses[0]: '::/128' is the unspecified address" },
	{ ADDR1("::1/128"),
	  "$.switches[0].ports[0].addresses[0]: '::1/128' is the loopback address" },
	{ ADDR1("::ffff:10.0.0.1/120"),
	  "$.switches[0].ports[0].addresses[0]: '::ffff:10.0.0.1/120' is an IPv4-mapped address (::ffff:0:0/96)" },
	{ ADDR1("fe80::1/64"),
	  "$.switches[0].ports[0].addresses[0]: 'fe80::1/64' is a link-local address (fe80::/10), which is never routed" },
	{ ADDR1("febf::1/64"),
	  "$.switches[0].ports[0].addresses[0]: 'febf::1/64' is a link-local address (fe80::/10), which is never routed" },
#undef ADDR1
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.0.1/16']},"
	  "{'name':'p1','device':'d1','addresses':['10.0.1.1/24']}]}]}",
	  "$.switches[0].ports[1].addresses[0]: subnet 10.0.1.0/24 overlaps 10.0.0.0/16 on port p0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.1.1/24']},"
	  "{'name':'p1','device':'d1','addresses':['10.0.0.1/16']}]}]}",
	  "$.switches[0].ports[1].addresses[0]: subnet 10.0.0.0/16 overlaps 10.0.1.0/24 on port p0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.0.1/24']},"
	  "{'name':'p1','device':'d1','addresses':['10.0.0.9/32']}]}]}",
	  "$.switches[0].ports[1].addresses[0]: subnet 10.0.0.9/32 overlaps 10.0.0.0/24 on port p0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['2001:db8::1/48']},"
	  "{'name':'p1','device':'d1','addresses':['2001:db8:0:1::1/64']}]}]}",
	  "$.switches[0].ports[1].addresses[0]: subnet 2001:db8:0:1::/64 overlaps 2001:db8::/48 on port p0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.0.1/24','10.0.0.2/25']}]}]}",
	  "$.switches[0].ports[0].addresses[1]: subnet 10.0.0.0/25 overlaps 10.0.0.0/24 on port p0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':"
	  "['1.0.0.1/8','2.0.0.1/8','3.0.0.1/8','4.0.0.1/8','5.0.0.1/8','6.0.0.1/8','7.0.0.1/8','8.0.0.1/8','9.0.0.1/8']}]}]}",
	  "$.switches[0].ports[0].addresses: expected 0..8 entries, got 9" },
	/* neighbours */
	{ SW(",'neighbors':[{'ip':'10.0.0.5','mac':'02:00:00:00:00:05','port':'p9'}]"),
	  "$.switches[0].neighbors[0].port: unknown port 'p9' on switch s0" },
	{ SW(",'neighbors':[{'ip':'10.0.0.5','mac':'00:00:00:00:00:00','port':'p0'}]"),
	  "$.switches[0].neighbors[0].mac: zero MAC address is not allowed" },
	{ SW(",'neighbors':[{'ip':'10.0.0.5','mac':'02:00:00:00:00:05','port':'p0'},"
	     "{'ip':'10.0.0.5','mac':'02:00:00:00:00:06','port':'p0'}]"),
	  "$.switches[0].neighbors[1].ip: duplicate neighbor 10.0.0.5" },
	{ SW(",'neighbors':[{'ip':'10.0.0.300','mac':'02:00:00:00:00:05','port':'p0'}]"),
	  "$.switches[0].neighbors[0].ip: invalid IP address '10.0.0.300'" },
	/* groups */
	{ SW(",'nexthop_groups':[{'name':'g','members':[{'ip':'10.9.9.9','port':'p1'}]}]"),
	  "$.switches[0].nexthop_groups[0].members[0].ip: next hop 10.9.9.9 is not on a subnet of port p1 and has no static neighbor" },
	{ SW(",'neighbors':[{'ip':'10.9.9.9','mac':'02:00:00:00:00:05','port':'p0'}],"
	     "'nexthop_groups':[{'name':'g','members':[{'ip':'10.9.9.9','port':'p1'}]}]"),
	  "$.switches[0].nexthop_groups[0].members[0].ip: next hop 10.9.9.9 is not on a subnet of port p1 and has no static neighbor" },
	{ SW(",'nexthop_groups':[{'name':'g','members':[{'ip':'10.0.1.1','port':'p1'}]}]"),
	  "$.switches[0].nexthop_groups[0].members[0].ip: next hop 10.0.1.1 is an address of this switch (port p1)" },
	{ SW(",'nexthop_groups':[{'name':'g','members':[{'ip':'10.0.1.0','port':'p1'},{'ip':'10.0.1.0','port':'p1'}]}]"),
	  "$.switches[0].nexthop_groups[0].members[1]: duplicate member 10.0.1.0@p1" },
	{ SW(",'nexthop_groups':[{'name':'g','members':[{'ip':'10.0.1.0','port':'p1','weight':0}]}]"),
	  "$.switches[0].nexthop_groups[0].members[0].weight: must be 1..65535, got 0" },
	{ SW(",'nexthop_groups':[{'name':'g','members':[]}]"),
	  "$.switches[0].nexthop_groups[0].members: expected 1..64 entries, got 0" },
	{ SW(",'nexthop_groups':[{'name':'g','members':[{'ip':'10.0.1.0','port':'p1'}]},"
	     "{'name':'g','members':[{'ip':'10.0.1.0','port':'p1'}]}]"),
	  "$.switches[0].nexthop_groups[1].name: duplicate group name 'g'" },
	/* routes */
	{ SW(",'nexthop_groups':[{'name':'g','members':[{'ip':'10.0.1.0','port':'p1'}]}],"
	     "'routes':[{'prefix':'10.2.0.0/16','group':'g','nexthop':{'ip':'10.0.1.0','port':'p1'}}]"),
	  "$.switches[0].routes[0]: exactly one of 'group', 'nexthop' or 'action' is required" },
	{ SW(",'routes':[{'prefix':'10.2.0.0/16'}]"),
	  "$.switches[0].routes[0]: exactly one of 'group', 'nexthop' or 'action' is required" },
	{ SW(",'routes':[{'prefix':'10.2.0.0/16','group':'nope'}]"),
	  "$.switches[0].routes[0].group: unknown group 'nope'" },
	{ SW(",'routes':[{'prefix':'10.2.0.0/16','group':5}]"),
	  "$.switches[0].routes[0].group: expected string, got integer" },
	{ SW(",'routes':[{'prefix':'10.0.0.0/33','action':'drop'}]"),
	  "$.switches[0].routes[0].prefix: invalid prefix '10.0.0.0/33'" },
	{ SW(",'routes':[{'prefix':'10.2.0.0/16','action':'forward'}]"),
	  "$.switches[0].routes[0].action: unknown action 'forward' (expected \"drop\")" },
	{ SW(",'routes':[{'prefix':'10.2.0.0/16','nexthop':{'ip':'10.9.9.9','port':'p1'}}]"),
	  "$.switches[0].routes[0].nexthop.ip: next hop 10.9.9.9 is not on a subnet of port p1 and has no static neighbor" },
	{ SW(",'routes':[{'prefix':'10.2.0.0/16','nexthop':{'ip':'10.0.1.0','port':'p1','weight':2}}]"),
	  "$.switches[0].routes[0].nexthop: unknown field 'weight'" },
	/* routes that would take the place of the switch's own entries */
	{ SW(",'routes':[{'prefix':'10.2.0.0/16','action':'drop'},{'prefix':'10.0.0.0/24','nexthop':{'ip':'10.0.1.0','port':'p1'}}]"),
	  "$.switches[0].routes[1].prefix: 10.0.0.0/24 is the connected subnet of port p0; a route would replace it and cut off its hosts" },
	{ SW(",'routes':[{'prefix':'10.0.0.77/24','action':'drop'}]"),
	  "$.switches[0].routes[0].prefix: 10.0.0.0/24 is the connected subnet of port p0; a route would replace it and cut off its hosts" },
	{ SW(",'routes':[{'prefix':'10.0.1.0/31','action':'drop'}]"),
	  "$.switches[0].routes[0].prefix: 10.0.1.0/31 is the connected subnet of port p1; a route would replace it and cut off its hosts" },
	{ SW(",'routes':[{'prefix':'10.0.1.1/32','action':'drop'}]"),
	  "$.switches[0].routes[0].prefix: 10.0.1.1/32 is an address of this switch (port p1); a route to it would never be used" },
	{ SW(",'routes':[{'prefix':'10.0.0.1','nexthop':{'ip':'10.0.1.0','port':'p1'}}]"),
	  "$.switches[0].routes[0].prefix: 10.0.0.1/32 is an address of this switch (port p0); a route to it would never be used" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['2001:db8::1/64']}],"
	  "'routes':[{'prefix':'2001:db8::1/128','action':'drop'}]}]}",
	  "$.switches[0].routes[0].prefix: 2001:db8::1/128 is an address of this switch (port p0); a route to it would never be used" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['2001:db8::1/64']}],"
	  "'routes':[{'prefix':'2001:db8::/64','action':'drop'}]}]}",
	  "$.switches[0].routes[0].prefix: 2001:db8::/64 is the connected subnet of port p0; a route would replace it and cut off its hosts" },
	/* inside a connected subnet: the route would win for those hosts */
	{ SW(",'routes':[{'prefix':'10.0.0.128/25','nexthop':{'ip':'10.0.1.0','port':'p1'}}]"),
	  "$.switches[0].routes[0].prefix: 10.0.0.128/25 is inside 10.0.0.0/24, the connected subnet of port p0; a route would take those hosts from it" },
	{ SW(",'routes':[{'prefix':'10.0.0.2','action':'drop'}]"),
	  "$.switches[0].routes[0].prefix: 10.0.0.2/32 is inside 10.0.0.0/24, the connected subnet of port p0; a route would take those hosts from it" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['2001:db8::1/64']}],"
	  "'routes':[{'prefix':'2001:db8::8/125','action':'drop'}]}]}",
	  "$.switches[0].routes[0].prefix: 2001:db8::8/125 is inside 2001:db8::/64, the connected subnet of port p0; a route would take those hosts from it" },
	/* next hops of the other family */
	{ SW(",'nexthop_groups':[{'name':'g','members':[{'ip':'10.0.1.0','port':'p1'}]}],"
	     "'routes':[{'prefix':'2001:db8:9::/48','group':'g'}]"),
	  "$.switches[0].routes[0].group: an IPv6 route cannot use group 'g': its member 10.0.1.0@p1 is IPv4" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.0.1/24','2001:db8::1/64']}],"
	  "'routes':[{'prefix':'10.9.0.0/16','nexthop':{'ip':'2001:db8::2','port':'p0'}}]}]}",
	  "$.switches[0].routes[0].nexthop: an IPv4 route cannot go through the IPv6 next hop 2001:db8::2" },
	/* a neighbour or host at the switch's own address */
	{ SW(",'neighbors':[{'ip':'10.0.0.1','mac':'02:00:00:00:00:05','port':'p0'}]"),
	  "$.switches[0].neighbors[0].ip: neighbor 10.0.0.1 is an address of this switch (port p0)" },
	{ SWT("", ",'hosts':[{'name':'h0','switch':'s0','port':'p0','ip':'10.0.1.1','mac':'02:00:00:00:00:05'}]"),
	  "$.hosts[0].ip: host 10.0.1.1 is an address of this switch (port p1)" },
	/* a port's own /32: the address check comes first */
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':['10.0.0.1/32']}],"
	  "'routes':[{'prefix':'10.0.0.1/32','action':'drop'}]}]}",
	  "$.switches[0].routes[0].prefix: 10.0.0.1/32 is an address of this switch (port p0); a route to it would never be used" },
	{ SW(",'routes':[{'prefix':'10.3.0.0/16','action':'drop'},{'prefix':'10.2.0.0/16','action':'drop'},"
	     "{'prefix':'10.2.1.1/16','action':'drop'},{'prefix':'10.3.0.0/16','action':'drop'}]"),
	  "$.switches[0].routes[2].prefix: duplicate prefix 10.2.0.0/16 (also routes[1])" },
	/* policies */
	{ SWT("", ",'policies':{'default':{'dscp_to_tc_map':{'64':1}}}"),
	  "$.policies.default.dscp_to_tc_map.64: key must be a DSCP value 0..63" },
	{ SWT("", ",'policies':{'default':{'dscp_to_tc_map':{'07':1}}}"),
	  "$.policies.default.dscp_to_tc_map.07: key must be a DSCP value 0..63" },
	{ SWT("", ",'policies':{'default':{'pcp_to_tc_map':{'3':8}}}"),
	  "$.policies.default.pcp_to_tc_map.3: traffic class must be 0..7, got 8" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'hash_fields':[]}}}"),
	  "$.policies.default.load_balancing.hash_fields: expected 1..7 entries, got 0" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'hash_fields':['src_ip','ttl']}}}"),
	  "$.policies.default.load_balancing.hash_fields[1]: unknown hash field 'ttl'" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'hash':'md5'}}}"),
	  "$.policies.default.load_balancing.hash: unknown hash 'md5' (expected \"crc32c\", \"toeplitz\" or \"murmur3_ns3\")" },
	{ SWT("", ",'policies':{'p':{'trust':'cos'}}"),
	  "$.policies.p.trust: unknown trust 'cos' (expected \"dscp\" or \"pcp\")" },
	{ SWT("", ",'policies':{'p':{'ecn':1}}"), "$.policies.p: unknown field 'ecn'" },
	{ SW(",'policy':'gold'"), "$.switches[0].policy: unknown policy 'gold'" },
	/* policies: qos */
	{ QOS("'foo':1"), "$.policies.default.qos: unknown field 'foo'" },
	{ SWT("", ",'policies':{'gold':{'qos':1}}"),
	  "$.policies.gold.qos: expected object, got integer" },
	{ QOS("'enable':'yes'"), "$.policies.default.qos.enable: expected boolean, got string" },
	{ QOS("'tc_to_queue_map':{'8':1}"),
	  "$.policies.default.qos.tc_to_queue_map.8: key must be a traffic class 0..7" },
	{ QOS("'tc_to_queue_map':{'3':8}"),
	  "$.policies.default.qos.tc_to_queue_map.3: queue must be 0..7, got 8" },
	{ QOS("'tc_to_pg_map':{'03':1}"),
	  "$.policies.default.qos.tc_to_pg_map.03: key must be a traffic class 0..7" },
	{ QOS("'tc_to_pg_map':{'3':8}"),
	  "$.policies.default.qos.tc_to_pg_map.3: priority group must be 0..7, got 8" },
	{ QOS("'tc_to_pg_map':[]"),
	  "$.policies.default.qos.tc_to_pg_map: expected object, got array" },
	{ QOS("'pfc_enable':[3,4,3]"),
	  "$.policies.default.qos.pfc_enable[2]: duplicate priority 3" },
	{ QOS("'pfc_enable':[9]"),
	  "$.policies.default.qos.pfc_enable[0]: priority must be 0..7, got 9" },
	{ QOS("'pfc_enable':['3']"),
	  "$.policies.default.qos.pfc_enable[0]: expected integer, got string" },
	{ QOS("'pfc_enable':3"), "$.policies.default.qos.pfc_enable: expected array, got integer" },
	{ QOS("'pfc_enable':[0,1,2,3,4,5,6,7,0]"),
	  "$.policies.default.qos.pfc_enable: expected 0..8 entries, got 9" },
	{ QOS("'scheduler':[]"), "$.policies.default.qos.scheduler: expected object, got array" },
	{ QOS("'scheduler':{'wrr':1}"), "$.policies.default.qos.scheduler: unknown field 'wrr'" },
	{ QOS("'scheduler':{'strict':[8]}"),
	  "$.policies.default.qos.scheduler.strict[0]: queue must be 0..7, got 8" },
	{ QOS("'scheduler':{'strict':[6,6]}"),
	  "$.policies.default.qos.scheduler.strict[1]: duplicate queue 6" },
	{ QOS("'scheduler':{'weights':{'0':0}}"),
	  "$.policies.default.qos.scheduler.weights.0: weight must be 1..1000, got 0" },
	{ QOS("'scheduler':{'weights':{'7':70000}}"),
	  "$.policies.default.qos.scheduler.weights.7: weight must be 1..1000, got 70000" },
	/* the scheduler's limit, not only the parser's (compiled, 1001 failed) */
	{ QOS("'scheduler':{'weights':{'2':1001}}"),
	  "$.policies.default.qos.scheduler.weights.2: weight must be 1..1000, got 1001" },
	{ QOS("'scheduler':{'weights':{'8':1}}"),
	  "$.policies.default.qos.scheduler.weights.8: key must be a queue 0..7" },
	{ QOS("'buffer':{'size':1}"), "$.policies.default.qos.buffer: unknown field 'size'" },
	{ QOS("'buffer':{'headroom_slot0_quirk':true}"),
	  "$.policies.default.qos.buffer.headroom_slot0_quirk: only with \"model\": \"conweave\"" },
	{ QOS("'pfc':{'pause_us':5}"),
	  "$.policies.default.qos.pfc.pause_us: only with \"mode\": \"ns3\" (the standard "
	  "mode's time is \"quanta\")" },
	{ QOS("'pfc':{'mode':'ns3','pause_us':0}"),
	  "$.policies.default.qos.pfc.pause_us: must be 0.01..300, got 0" },
	{ QOS("'pfc':{'mode':'ieee'}"),
	  "$.policies.default.qos.pfc.mode: unknown mode 'ieee' (expected \"standard\" or \"ns3\")" },
	{ QOS("'ecn':{'qmin_bytes':-1}"),
	  "$.policies.default.qos.ecn.qmin_bytes: must be 0..1048576, got -1" },
	{ QOS("'pfc_enable':[3],'mmu_bypass':[3]"),
	  "$.policies.default.qos.mmu_bypass: traffic class 3 is lossless (its priority group 3 "
	  "is in pfc_enable): a class outside the buffer is never paused" },
	{ QOS("'tc_to_pg_map':{'6':3},'mmu_bypass':[6]"),
	  "$.policies.default.qos.mmu_bypass: traffic class 6 is lossless (its priority group 3 "
	  "is in pfc_enable): a class outside the buffer is never paused" },
	{ QOS("'mmu_bypass':[8]"),
	  "$.policies.default.qos.mmu_bypass[0]: traffic class must be 0..7, got 8" },
	{ QOS("'buffer':{'bypass_limit_bytes':1000}"),
	  "$.policies.default.qos.buffer.bypass_limit_bytes: must be 2048..16777216, got 1000" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'control_tc':[6,6]}}}"),
	  "$.policies.default.load_balancing.control_tc[1]: duplicate traffic class 6" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'flowlet':{'table':'hash'}}}}"),
	  "$.policies.default.load_balancing.flowlet.table: unknown table 'hash' (expected "
	  "\"direct\" or \"exact\")" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'spray':{'memory':'flow'}}}}"),
	  "$.policies.default.load_balancing.spray.memory: unknown memory 'flow' (expected "
	  "\"destination\" or \"group\")" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'spray':{'distinct':1}}}}"),
	  "$.policies.default.load_balancing.spray.distinct: expected boolean, got integer" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'flowlet':{'gap_test':'<='}}}}"),
	  "$.policies.default.load_balancing.flowlet.gap_test: unknown gap test '<=' (expected "
	  "\"lt\" or \"le\")" },
	{ SWT("", ",'policies':{'default':{'load_balancing':{'spray':{'queue_read':'flow'}}}}"),
	  "$.policies.default.load_balancing.spray.queue_read: unknown queue read 'flow' "
	  "(expected \"packet\" or \"step\")" },
	{ SW(",'ecmp_seed':-1"), "$.switches[0].ecmp_seed: must be 0..4294967295, got -1" },
	{ QOS("'buffer':{'model':'cisco'}"),
	  "$.policies.default.qos.buffer.model: unknown model 'cisco' (expected \"hpcc\", \"broadcom\" or \"conweave\")" },
	{ QOS("'buffer':{'size_bytes':100}"),
	  "$.policies.default.qos.buffer.size_bytes: must be 65536..17179869184, got 100" },
	{ QOS("'buffer':{'size_bytes':17179869185}"),
	  "$.policies.default.qos.buffer.size_bytes: must be 65536..17179869184, got 17179869185" },
	{ QOS("'buffer':{'reserve_bytes':1048577}"),
	  "$.policies.default.qos.buffer.reserve_bytes: must be 0..1048576, got 1048577" },
	{ QOS("'buffer':{'dynamic_th':4}"),
	  "$.policies.default.qos.buffer.dynamic_th: must be -16..3, got 4" },
	{ QOS("'buffer':{'dynamic_th':-17}"),
	  "$.policies.default.qos.buffer.dynamic_th: must be -16..3, got -17" },
	{ QOS("'buffer':{'resume_offset_bytes':-1}"),
	  "$.policies.default.qos.buffer.resume_offset_bytes: must be 0..1048576, got -1" },
	{ QOS("'buffer':{'headroom_bytes':16777217}"),
	  "$.policies.default.qos.buffer.headroom_bytes: must be 0..16777216, got 16777217" },
	{ QOS("'buffer':{'cable_delay_ns':100000001}"),
	  "$.policies.default.qos.buffer.cable_delay_ns: must be 0..100000000, got 100000001" },
	{ QOS("'ecn':{'kmin':1}"), "$.policies.default.qos.ecn: unknown field 'kmin'" },
	{ QOS("'ecn':{'kmin_bytes':500000,'kmax_bytes':400000}"),
	  "$.policies.default.qos.ecn.kmax_bytes: must be >= kmin_bytes (500000)" },
	{ QOS("'ecn':{'kmax_bytes':50000}"),
	  "$.policies.default.qos.ecn.kmax_bytes: must be >= kmin_bytes (100000)" },
	{ QOS("'ecn':{'kmin_bytes':500000}"),
	  "$.policies.default.qos.ecn.kmin_bytes: must be <= kmax_bytes (400000)" },
	{ QOS("'ecn':{'kmin_bytes':4294967296}"),
	  "$.policies.default.qos.ecn.kmin_bytes: must be 0..4294967295, got 4294967296" },
	{ QOS("'ecn':{'pmax':1.5}"), "$.policies.default.qos.ecn.pmax: must be 0..1, got 1.5" },
	{ QOS("'ecn':{'pmax':-0.1}"), "$.policies.default.qos.ecn.pmax: must be 0..1, got -0.1" },
	{ QOS("'ecn':{'pmax':'0.2'}"), "$.policies.default.qos.ecn.pmax: expected number, got string" },
	{ QOS("'ecn':{'mark':'middle'}"),
	  "$.policies.default.qos.ecn.mark: unknown mark point 'middle' (expected \"dequeue\" or \"enqueue\")" },
	{ QOS("'ecn':{'mode':'red'}"),
	  "$.policies.default.qos.ecn.mode: unknown mode 'red' (expected \"ecn\", \"wred\" or \"off\")" },
	{ QOS("'ecn':{'queues':[3,3]}"), "$.policies.default.qos.ecn.queues[1]: duplicate queue 3" },
	{ QOS("'pfc':{'watchdg':{}}"), "$.policies.default.qos.pfc: unknown field 'watchdg'" },
	{ QOS("'pfc':{'quanta':0}"), "$.policies.default.qos.pfc.quanta: must be 1..65535, got 0" },
	{ QOS("'pfc':{'quanta':70000}"),
	  "$.policies.default.qos.pfc.quanta: must be 1..65535, got 70000" },
	{ QOS("'pfc':{'watchdog':{'timeout_ms':1}}"),
	  "$.policies.default.qos.pfc.watchdog: unknown field 'timeout_ms'" },
	{ QOS("'pfc':{'watchdog':[]}"),
	  "$.policies.default.qos.pfc.watchdog: expected object, got array" },
	{ QOS("'pfc':{'watchdog':{'detection_ms':0}}"),
	  "$.policies.default.qos.pfc.watchdog.detection_ms: must be > 0 and at most 5000, got 0" },
	{ QOS("'pfc':{'watchdog':{'detection_ms':5000.5}}"),
	  "$.policies.default.qos.pfc.watchdog.detection_ms: must be > 0 and at most 5000, got 5000.5" },
	{ QOS("'pfc':{'watchdog':{'detection_ms':0.0000001}}"),
	  "$.policies.default.qos.pfc.watchdog.detection_ms: must be at least 0.000001 (1 ns), got 1e-07" },
	{ QOS("'pfc':{'watchdog':{'restoration_ms':60001}}"),
	  "$.policies.default.qos.pfc.watchdog.restoration_ms: must be > 0 and at most 60000, got 60001" },
	{ QOS("'pfc':{'watchdog':{'action':'panic'}}"),
	  "$.policies.default.qos.pfc.watchdog.action: unknown action 'panic' (expected \"drop\", \"forward\" or \"alert\")" },
	{ QOS("'trimming':[]"), "$.policies.default.qos.trimming: expected object, got array" },
	{ QOS("'trimming':{'size':128}"), "$.policies.default.qos.trimming: unknown field 'size'" },
	{ QOS("'trimming':{'queues':3}"),
	  "$.policies.default.qos.trimming.queues: expected array, got integer" },
	{ QOS("'trimming':{'queues':[3,3]}"),
	  "$.policies.default.qos.trimming.queues[1]: duplicate queue 3" },
	{ QOS("'trimming':{'queues':[8]}"),
	  "$.policies.default.qos.trimming.queues[0]: queue must be 0..7, got 8" },
	{ QOS("'trimming':{'size_bytes':63}"),
	  "$.policies.default.qos.trimming.size_bytes: must be 64..1500, got 63" },
	{ QOS("'trimming':{'size_bytes':1501}"),
	  "$.policies.default.qos.trimming.size_bytes: must be 64..1500, got 1501" },
	{ QOS("'trimming':{'dscp':64}"),
	  "$.policies.default.qos.trimming.dscp: must be 0..63, got 64" },
	{ QOS("'trimming':{'dscp':-1}"),
	  "$.policies.default.qos.trimming.dscp: must be 0..63, got -1" },
	{ QOS("'trimming':{'queue':8}"),
	  "$.policies.default.qos.trimming.queue: must be 0..7, got 8" },
	{ QOS("'trimming':{'queue':'7'}"),
	  "$.policies.default.qos.trimming.queue: expected integer, got string" },
	/* ports: PFC mode */
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','pfc_mode':'magic'}]}]}",
	  "$.switches[0].ports[0].pfc_mode: unknown PFC mode 'magic' (expected \"software\" or \"hardware\")" },
	/* ports: shaper */
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','shaper_gbps':0}]}]}",
	  "$.switches[0].ports[0].shaper_gbps: must be > 0 and at most 1000000, got 0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','shaper_gbps':'1'}]}]}",
	  "$.switches[0].ports[0].shaper_gbps: expected number, got string" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','speed_gbps':10,'shaper_gbps':25}]}]}",
	  "$.switches[0].ports[0].shaper_gbps: must be at most speed_gbps (10), got 25" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','shaper_burst_bytes':3000}]}]}",
	  "$.switches[0].ports[0].shaper_burst_bytes: goes with shaper_gbps (the port is not shaped)" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','cable_delay_ns':-1}]}]}",
	  "$.switches[0].ports[0].cable_delay_ns: must be 0..100000000, got -1" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','shaper_gbps':1,"
	  "'shaper_burst_bytes':63}]}]}",
	  "$.switches[0].ports[0].shaper_burst_bytes: must be 64..67108864, got 63" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','shaper_gbps':1600.5}]}]}",
	  "$.switches[0].ports[0].shaper_gbps: must be at most 1600 (the scheduler's limit), got 1600.5" },
	/* speed rounds down to 1 Mb/s: 1.2 Mb/s is more than the port carries */
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','speed_gbps':0.0014,'shaper_gbps':0.0012}]}]}",
	  "$.switches[0].ports[0].shaper_gbps: must be at most speed_gbps (0.0014), got 0.0012" },
	/* hosts */
	{ SWT("", ",'hosts':[{'name':'h0','switch':'s9','port':'p0','ip':'10.0.0.2','mac':'02:00:00:00:00:02'}]"),
	  "$.hosts[0].switch: unknown switch 's9'" },
	{ SWT(",'neighbors':[{'ip':'10.0.0.2','mac':'02:00:00:00:00:05','port':'p0'}]",
	      ",'hosts':[{'name':'h0','switch':'s0','port':'p0','ip':'10.0.0.2','mac':'02:00:00:00:00:02'}]"),
	  "$.hosts[0].ip: 10.0.0.2 is already a neighbor on switch s0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','addresses':['10.0.0.1/24']}]}],"
	  "'hosts':[{'name':'h0','switch':'s0','port':'p0','ip':'10.0.0.2'}]}",
	  "$.hosts[0].mac: required for a host on a port without a device (port s0:p0); "
	  "without it the switch learns a real host's MAC from its ARP/ND" },
	{ SWT("", ",'hosts':[{'name':'h0','switch':'s0','port':'p0','ip':'10.0.0.2','mac':'02:00:00:00:00:02'},"
	      "{'name':'h1','switch':'s0','port':'p0','ip':'10.0.0.3','mac':'02:00:00:00:00:03'},"
	      "{'name':'h0','switch':'s0','port':'p0','ip':'10.0.0.4','mac':'02:00:00:00:00:04'}]"),
	  "$.hosts[2].name: duplicate host name 'h0'" },
	/* links */
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p9'}]"), "$.links[0].b: unknown port 'p9' on switch s1" },
	{ TWO(",'links':[{'a':'s0p0','b':'s1:p0'}]"),
	  "$.links[0].a: invalid endpoint 's0p0' (expected \"switch:port\")" },
	{ TWO(",'links':[{'a':'s0:p0','b':'s2:p0'}]"), "$.links[0].b: unknown switch 's2'" },
	{ TWO(",'links':[{'a':'s0:p0','b':'s0:p0'}]"), "$.links[0]: both ends are s0:p0" },
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p0','wire_model':'ppp'}]"),
	  "$.links[0].wire_model: unknown wire model 'ppp' (expected \"ethernet\" or \"ns3\")" },
	{ TWO(",'wire_model':3"), "$.wire_model: expected string, got integer" },
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p0'},{'a':'s0:p0','b':'s1:p1'}]"),
	  "$.links[1].a: port s0:p0 is already in links[0]" },
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p0'},{'a':'s1:p1','b':'s1:p0'}]"),
	  "$.links[1].b: port s1:p0 is already in links[0]" },
	/* the link that took it, not the first one seen */
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p0'},{'a':'s0:p1','b':'s1:p1'},"
	      "{'a':'s1:p1','b':'s0:p0'}]"),
	  "$.links[2].a: port s1:p1 is already in links[1]" },
	{ TWO(",'hosts':[{'name':'h0','switch':'s0','port':'p0','ip':'10.0.0.2','mac':'02:00:00:00:00:02'}],"
	      "'links':[{'a':'s0:p0','b':'s1:p0'}]"),
	  "$.links[0].a: port s0:p0 carries host h0 and cannot be in a link" },
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p0','delay_ns':-1}]"),
	  "$.links[0].delay_ns: must be 0..10000000, got -1" },
	/* what an emulated link can do, refused before anything starts */
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p0','delay_ns':9223372036854775807}]"),
	  "$.links[0].delay_ns: must be 0..10000000, got 9223372036854775807" },
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p0','rate_gbps':1e-12}]"),
	  "$.links[0].rate_gbps: must be 1e-09..1600, got 1e-12" },
	{ TWO(",'links':[{'a':'s0:p0','b':'s1:p0','rate_gbps':2000}]"),
	  "$.links[0].rate_gbps: must be 1e-09..1600, got 2000" },
	/* a BFD session: its knobs, a device, a peer to talk to */
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':"
	  "['10.0.1.1/31'],'bfd':{'interval_ms':9}}]}]}",
	  "$.switches[0].ports[0].bfd.interval_ms: must be 10..10000, got 9" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':"
	  "['10.0.1.1/31'],'bfd':{'multiplier':0}}]}]}",
	  "$.switches[0].ports[0].bfd.multiplier: must be 1..255, got 0" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':"
	  "['10.0.1.1/31'],'bfd':{'auth':true}}]}]}",
	  "$.switches[0].ports[0].bfd: unknown field 'auth'" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':"
	  "['10.0.1.1/31'],'bfd':{}}]}]}",
	  "$.switches[0].ports[0].bfd: a BFD session needs its peer: a static neighbor on port "
	  "p0 with an IPv4 address in one of the port's IPv4 subnets (the generator writes one "
	  "for a link's far end)" },
	{ "{'switches':[{'name':'s0','ports':[{'name':'p0','device':'d0','addresses':"
	  "['10.0.1.1/31'],'bfd':{}},{'name':'p1','device':'d1','addresses':['10.0.2.1/24']}],"
	  "'neighbors':[{'ip':'10.0.2.2','mac':'02:00:00:00:00:09','port':'p0'}]}]}",
	  "$.switches[0].ports[0].bfd: a BFD session needs its peer: a static neighbor on port "
	  "p0 with an IPv4 address in one of the port's IPv4 subnets (the generator writes one "
	  "for a link's far end)" },
};

static void
test_bad_configs(void **state)
{
	size_t i, bad = 0;

	(void)state;
	/* every case is tried and every mismatch printed, then the test fails */
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *bc = &bad_cases[i];
		struct aif_config *cfg = (struct aif_config *)&cfg;
		char err[AIF_ERR_MAX];
		const char *json = q(bc->json);
		int rc;

		memset(err, 'x', sizeof(err));
		rc = aif_config_parse(json, strlen(json), &cfg, err,
				      sizeof(err));
		if (rc != -1 || cfg != NULL) {
			print_error("case %zu parsed: %s\n", i, bc->json);
			aif_config_free(cfg == (struct aif_config *)&cfg ? NULL : cfg);
			bad++;
			continue;
		}
		assert_non_null(memchr(err, '\0', sizeof(err)));
		if (strcmp(err, bc->err) != 0) {
			print_error("case %zu: got\n  %s\nwant\n  %s\n", i, err,
				    bc->err);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	assert_true(i >= 120);
}

static void
test_limits(void **state)
{
	char *json = malloc(65536);
	struct aif_config *cfg = NULL;
	char err[AIF_ERR_MAX];
	size_t n;
	int i;

	(void)state;
	assert_non_null(json);
	n = (size_t)sprintf(json, "{\"switches\":[{\"name\":\"s\",\"ports\":[");
	for (i = 0; i <= AIF_MAX_PORTS; i++)
		n += (size_t)sprintf(json + n, "%s{\"name\":\"p%d\",\"device\":\"d%d\"}",
				     i ? "," : "", i, i);
	n += (size_t)sprintf(json + n, "]}]}");
	assert_int_equal(aif_config_parse(json, n, &cfg, err, sizeof(err)), -1);
	assert_null(cfg);
	assert_string_equal(err, "$.switches[0].ports: expected 1..64 entries, got 65");
	free(json);
}

static void
test_err_buffer(void **state)
{
	const char *json = q("{'switches':[]}");
	struct aif_config *cfg = NULL;
	char err[8];

	(void)state;
	memset(err, 'x', sizeof(err));
	assert_int_equal(aif_config_parse(json, strlen(json), &cfg, err,
					  sizeof(err)), -1);
	assert_string_equal(err, "$.switc");
	assert_null(cfg);
	/* err_len 0: err untouched; NULL err is allowed too. */
	memset(err, 'x', sizeof(err));
	assert_int_equal(aif_config_parse(json, strlen(json), &cfg, err, 0), -1);
	assert_int_equal(err[0], 'x');
	assert_int_equal(aif_config_parse(json, strlen(json), &cfg, NULL, 64), -1);
	assert_int_equal(aif_config_parse(NULL, 0, &cfg, err, sizeof(err)), -1);
	assert_null(cfg);
	aif_config_free(NULL);
}

/* A host without "mac" on a device port: a neighbour whose MAC is learned. */
static void
test_host_learned(void **state)
{
	struct aif_config *cfg;
	const struct aif_switch_params *sw;

	(void)state;
	cfg = parse_ok(SWT("", ",'hosts':[{'name':'h0','switch':'s0','port':'p0','ip':'10.0.0.2'},"
			   "{'name':'h1','switch':'s0','port':'p0','ip':'10.0.0.3',"
			   "'mac':'02:00:00:00:00:03'}]"));
	sw = &cfg->switches[0];
	assert_int_equal(cfg->n_hosts, 2);
	assert_true(cfg->hosts[0].learned);
	assert_false(cfg->hosts[1].learned);
	assert_int_equal(sw->n_neighbors, 2);
	assert_string_equal(fmt_ip(&sw->neighbors[0].ip), "10.0.0.2");
	assert_true(sw->neighbors[0].learned);
	assert_false(sw->neighbors[1].learned);
	assert_int_equal(sw->neighbors[1].mac.b[5], 3);
	aif_config_free(cfg);
}

static void
test_hash_field_names(void **state)
{
	(void)state;
	assert_string_equal(aif_hash_field_name(AIF_HF_SRC_IP), "src_ip");
	assert_string_equal(aif_hash_field_name(AIF_HF_DST_PORT), "dst_port");
	assert_string_equal(aif_hash_field_name(AIF_HF_FLOW_LABEL), "flow_label");
	assert_string_equal(aif_hash_field_name(AIF_HF_DEST_QP), "dest_qp");
	assert_null(aif_hash_field_name(0));
	assert_null(aif_hash_field_name(AIF_HF_SRC_IP | AIF_HF_DST_IP));
	assert_null(aif_hash_field_name(1u << 7));
}

/*
 * Mutated configs: a switch with routes inside and around its subnets,
 * groups of both families, static neighbours, hosts and links, a few bytes
 * changed at random.  Each is taken, or refused with a JSON path (or the
 * JSON error's line); what is taken keeps the rules between entries.
 */
static void
test_fuzz_mutated(void **state)
{
	static const char base[] =
		"{\"switches\":[{\"name\":\"s0\",\"ports\":["
		"{\"name\":\"p0\",\"device\":\"d0\",\"addresses\":[\"10.0.0.1/24\",\"2001:db8::1/64\"]},"
		"{\"name\":\"p1\",\"device\":\"d1\",\"addresses\":[\"10.0.1.1/31\"]}],"
		"\"neighbors\":[{\"ip\":\"10.0.0.9\",\"mac\":\"02:00:00:00:00:09\",\"port\":\"p0\"}],"
		"\"nexthop_groups\":[{\"name\":\"g\",\"members\":[{\"ip\":\"10.0.1.0\",\"port\":\"p1\"}]},"
		"{\"name\":\"g6\",\"members\":[{\"ip\":\"2001:db8::2\",\"port\":\"p0\"}]}],"
		"\"routes\":[{\"prefix\":\"10.2.0.0/16\",\"group\":\"g\"},"
		"{\"prefix\":\"2001:db8:9::/48\",\"group\":\"g6\"},"
		"{\"prefix\":\"10.0.2.0/24\",\"nexthop\":{\"ip\":\"10.0.0.7\",\"port\":\"p0\"}},"
		"{\"prefix\":\"10.9.0.0/16\",\"action\":\"drop\"}]},"
		"{\"name\":\"s1\",\"ports\":[{\"name\":\"p0\",\"device\":\"e0\"},"
		"{\"name\":\"p1\",\"device\":\"e1\",\"addresses\":[\"10.3.0.1/24\"]}]}],"
		"\"hosts\":[{\"name\":\"h0\",\"switch\":\"s1\",\"port\":\"p1\",\"ip\":\"10.3.0.2\","
		"\"mac\":\"02:00:00:00:03:02\"}],"
		"\"links\":[{\"a\":\"s0:p1\",\"b\":\"s1:p0\",\"rate_gbps\":100,\"delay_ns\":1000}]}";
	static const char alphabet[] = "0123456789./:\"[]{},-e abfgp";
	char text[sizeof(base)], err[AIF_ERR_MAX];
	struct aif_rng r;
	unsigned taken = 0;

	(void)state;
	aif_rng_seed(&r, 2024);
	for (int round = 0; round < 5000; round++) {
		struct aif_config *cfg = NULL;

		memcpy(text, base, sizeof(base));
		for (unsigned k = 1 + aif_rng_below(&r, 3); k > 0; k--)
			text[aif_rng_below(&r, sizeof(base) - 1)] =
				alphabet[aif_rng_below(&r, sizeof(alphabet) - 1)];
		if (aif_config_parse(text, sizeof(base) - 1, &cfg, err, sizeof(err)) != 0) {
			assert_null(cfg);
			if (err[0] != '$' && strncmp(err, "line ", 5) != 0)
				fail_msg("round %d: %s", round, err);
			continue;
		}
		taken++;
		for (uint16_t s = 0; s < cfg->n_switches; s++) {
			const struct aif_switch_params *sw = &cfg->switches[s];
			char why[AIF_ERR_MAX];

			for (uint32_t i = 0; i < sw->n_neighbors; i++)
				assert_int_equal(aif_config_addr_port(sw, &sw->neighbors[i].ip), -1);
			for (uint32_t i = 0; i < sw->n_routes; i++) {
				assert_int_equal(aif_config_check_route_prefix(sw, &sw->routes[i].prefix,
									       why, sizeof(why)), 0);
				assert_int_equal(aif_config_check_route_family(sw, &sw->routes[i],
									       why, sizeof(why)), 0);
			}
		}
		for (uint32_t l = 0; l < cfg->n_links; l++)
			assert_true(cfg->links[l].delay_ns <= 10000000 &&
				    cfg->links[l].rate_bps <= 1600000000000ull);
		aif_config_free(cfg);
	}
	print_message("# 5000 mutated configs: %u taken\n", taken);
	assert_true(taken > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_file),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_qos_defaults),
		cmocka_unit_test(test_ns3_options),
		cmocka_unit_test(test_control_class),
		cmocka_unit_test(test_qos_full),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_port_vlan),
		cmocka_unit_test(test_routes_and_groups),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_addresses_and_routes_ok),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_err_buffer),
		cmocka_unit_test(test_host_learned),
		cmocka_unit_test(test_hash_field_names),
		cmocka_unit_test(test_fuzz_mutated),
		cmocka_unit_test(test_port_bfd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
