/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology and policy file: JSON text -> struct aif_config (the params).
 *
 * Every field is checked; the first bad one is reported as
 * "<json path>: <reason>", e.g.
 *   "$.switches[0].ports[1].mac: invalid MAC address 'zz'"
 *   "$.policies.default.dscp_to_tc_map.99: key must be a DSCP value 0..63"
 * and a JSON syntax error as "line L column C: <jansson's text>".  Unknown
 * fields are rejected everywhere ("<object path>: unknown field 'foo'"), as
 * are duplicate keys in one object.  On any error nothing is kept.
 *
 * The file format (the users' reference, every field with its range and
 * default: README.md, "Configuration"):
 *
 * {
 *   "policies": {                 optional object, keyed by policy name
 *     "<name>": {                 name: 1..31 chars of [A-Za-z0-9_.-]
 *       "trust": "dscp"|"pcp",    default "dscp"
 *       "dscp_to_tc_map": {"26": 3, ...}
 *                                 keys "0".."63", values 0..7; if given it
 *                                 replaces the whole default map (26->3,
 *                                 48->6); DSCPs not listed map to TC 0
 *       "pcp_to_tc_map": {"3": 3, ...}
 *                                 keys "0".."7", values 0..7; starts from the
 *                                 identity map, entries given override it
 *       "load_balancing": {
 *         "scheme": "ecmp",       default "ecmp"
 *         "hash": "crc32c"|"toeplitz",   default "crc32c"
 *         "hash_fields": [...]    non-empty, no repeats, from "src_ip",
 *                                 "dst_ip", "proto", "src_port", "dst_port",
 *                                 "flow_label", "dest_qp"; default the first
 *                                 five (AIF_HF_DEFAULT)
 *       },
 *       "qos": {                  optional; every field optional, defaults
 *                                 as documented above struct
 *                                 aif_qos_params in config.h
 *         "enable": true,
 *         "tc_to_queue_map": {"3": 3, ...}
 *         "tc_to_pg_map": {"3": 3, ...}
 *                                 keys "0".."7", values 0..7; start from
 *                                 the identity map, entries override it
 *         "pfc_enable": [3],      distinct priorities 0..7, may be empty;
 *                                 replaces the default
 *         "scheduler": {
 *           "strict": [6],        distinct queues 0..7, may be empty;
 *                                 replaces the default
 *           "weights": {"0": 1, ...}   keys "0".."7", values 1..1000,
 *                                 override the default 1
 *         },
 *         "buffer": {
 *           "model": "hpcc"|"broadcom",
 *           "size_bytes": 12582912,     65536..2^34
 *           "reserve_bytes": 4096,      0..1048576, per PG
 *           "dynamic_th": -3,           -16..3 (alpha = 2^dynamic_th)
 *           "resume_offset_bytes": 3072,    0..1048576
 *           "headroom_bytes": 0,        0..16777216; 0: derived; else at
 *                                       least the worst case (mmu.h)
 *           "cable_delay_ns": 1000      0..100000000
 *         },
 *         "ecn": {
 *           "queues": [3],        distinct queues 0..7, may be empty;
 *                                 replaces the default
 *           "mode": "ecn"|"wred"|"off",
 *           "mark": "dequeue"|"enqueue",
 *           "kmin_bytes": 100000, "kmax_bytes": 400000,
 *                                 0..4294967295, kmin <= kmax (reported
 *                                 at kmax_bytes, or at kmin_bytes when
 *                                 kmax_bytes is not given)
 *           "pmax": 0.2           number 0..1
 *         },
 *         "pfc": {
 *           "quanta": 65535,      1..65535
 *           "watchdog": {
 *             "detection_ms": 200,     number > 0, at most 5000
 *             "restoration_ms": 200,   number > 0, at most 60000
 *             "action": "drop"|"forward"|"alert"
 *           }                     ms are stored as ns, rounded, >= 1 ns
 *         }
 *       }
 *     }
 *   },                            a built-in policy "default" is always
 *                                 policies[0]; a policy named "default"
 *                                 overrides it; others follow in file order;
 *                                 at most AIF_MAX_POLICIES in all
 *   "switches": [                 required, 1..AIF_MAX_SWITCHES
 *     {
 *       "name": "leaf0",          required, unique, as policy names
 *       "policy": "default",      optional, must name a policy
 *       "seed": 7,                optional 0..4294967295; default: 32-bit
 *                                 FNV-1a hash of the name
 *       "proxy_arp": false,       optional boolean, default false
 *       "neighbor_learning": {    optional; learned neighbours (neigh.h)
 *         "reachable_s": 300,     1..86400: a learned entry not refreshed
 *                                 for this long goes stale (is probed
 *                                 when used)
 *         "stale_s": 60,          1..86400: a stale entry not answered for
 *                                 this long is removed
 *         "max_learned": 4096,    1..AIF_NEIGH_LEARNED_MAX learned entries
 *         "rate_pps": 1000,       0..1000000 ARP/ND packets learned from,
 *                                 per port (per worker); 0: no limit
 *         "burst": 100            1..1000000 packets above the rate at once
 *       },
 *       "ports": [                required, 1..AIF_MAX_PORTS
 *         {
 *           "name": "p0",         required, unique in the switch
 *           "device": "net_pcap0",    required, EAL device name, 1..63
 *                                 chars, unique in the whole file
 *           "mac": "02:00:00:00:00:10",   optional, unicast, non-zero,
 *                                 not another port's of the switch;
 *                                 default: the device's own MAC
 *           "mtu": 1500,          optional IP MTU 68..9600, default 1500
 *           "vlan": 100,          optional 802.1Q VID 0..4094 of the port's
 *                                 tag (0: priority tag, PCP only); default
 *                                 none: routed frames leave untagged
 *           "speed_gbps": 100,    optional number > 0 (0.1 = 100 Mb/s),
 *                                 stored as speed_mbps (rounded, >= 1);
 *                                 default: as the device reports
 *           "shaper_gbps": 40,    optional egress rate limit, number > 0
 *                                 (shaper: at most 1600, the scheduler's
 *                                 limit), stored as shaper_bps
 *                                 (rounded); at most speed_gbps if that is
 *                                 given; default none (0)
 *           "shaper_burst_bytes": 3000, optional, with shaper_gbps: the
 *                                 bucket depth in wire bytes, 64..64 MiB;
 *                                 default one MTU frame plus 10 us at the rate
 *           "pfc_mode": "software" optional: who sends PFC for the port's
 *                                 lossless priorities, "software" (the
 *                                 switch) or "hardware" (the NIC)
 *           "cable_delay_ns": 5000 optional 0..100000000: the port's cable,
 *                                 one way, for its PFC headroom where
 *                                 longer than the policy's cable_delay_ns
 *                                 (SONiC's per-port cable length); the
 *                                 generator sets it on a cut link's port
 *           "bfd": {"interval_ms": 50, "multiplier": 3}
 *                                 optional: a BFD session with the port's
 *                                 peer (dataplane/bfd.h), 10..10000 ms and
 *                                 1..255, those the defaults; only with a
 *                                 "device", the peer the first static
 *                                 neighbour on the port in one of its IPv4
 *                                 subnets (config_ports.c aif_cfg_check_bfd)
 *           "addresses": ["10.0.0.1/24", "2001:db8::1/64"]
 *                                 optional, at most AIF_MAX_PORT_ADDRS;
 *                                 address with its prefix length (required,
 *                                 not /0); a unicast address: not in
 *                                 0.0.0.0/8, 127.0.0.0/8, 224.0.0.0/4,
 *                                 255.255.255.255, ::, ::1, ::ffff:0:0/96,
 *                                 ff00::/8 or fe80::/10 (addr_not_unicast);
 *                                 an IPv4 address on a subnet shorter than
 *                                 /31 must be neither the network nor the
 *                                 broadcast address; the subnets of a
 *                                 switch's addresses do not overlap
 *         }
 *       ],
 *       "neighbors": [            optional static neighbours
 *         {"ip": "10.0.1.0", "mac": "02:00:00:00:01:00", "port": "p1"}
 *                                 all required; ip unique in the switch,
 *                                 not its own address (config_check.c);
 *                                 mac unicast, non-zero; port must exist
 *       ],
 *       "nexthop_groups": [       optional, names unique
 *         {"name": "uplinks",
 *          "members": [{"ip": "10.0.1.0", "port": "p1", "weight": 1}]}
 *                                 1..AIF_MAX_MEMBERS members; weight
 *                                 1..65535, default 1; no repeated
 *                                 (ip, port); see "next hops" below
 *       ],
 *       "routes": [               optional, at most AIF_MAX_ROUTES
 *         {"prefix": "10.2.0.0/16", "group": "uplinks"},
 *         {"prefix": "10.3.0.0/16", "nexthop": {"ip": "10.0.1.0", "port": "p1"}},
 *         {"prefix": "10.9.0.0/16", "action": "drop"}
 *                                 exactly one of group / nexthop / action;
 *                                 action is "drop"; prefix host bits are
 *                                 cleared (a bare address is a /32 or /128);
 *                                 no prefix twice; not a connected subnet,
 *                                 nor inside one, nor an address of the
 *                                 switch (/32, /128); a group's next hops of
 *                                 the prefix's family (config_check.c);
 *                                 "nexthop" uses (or
 *                                 creates) an implicit one-member group named
 *                                 "<ip>@<port>", e.g. "10.0.1.0@p1", or
 *                                 "@<group index>" if that would not fit in
 *                                 AIF_NAME_MAX
 *       ]
 *     }
 *   ],
 *   "hosts": [                    optional
 *     {"name": "h0", "switch": "leaf0", "port": "p0",
 *      "ip": "10.0.0.2", "mac": "02:00:00:00:00:02"}
 *                                 all required but mac; name unique; each
 *                                 host is also appended to its switch's
 *                                 neighbours (an ip already there, or the
 *                                 switch's own, is an error): static with its mac; without one
 *                                 (only on a port with a device: a real
 *                                 host) a configured neighbour whose MAC the
 *                                 switch learns from the host's ARP/ND
 *   ],
 *   "links": [                    optional
 *     {"a": "leaf0:p2", "b": "spine0:p0", "rate_gbps": 100, "delay_ns": 1000}
 *                                 a, b required "switch:port", both must
 *                                 exist and differ; a port is in at most one
 *                                 link and a linked port carries no host;
 *                                 rate_gbps optional number 1e-9 (1 b/s)
 *                                 .. 1600 (AIF_LINK_RATE_MAX_BPS), default
 *                                 the port speed; delay_ns optional integer
 *                                 0..10000000 (AIF_LINK_DELAY_MAX_NS), default 0;
 *                                 loss_rate, corrupt_rate optional 0..1,
 *                                 default 0: each frame lost, or one bit of
 *                                 its payload flipped, with that probability;
 *                                 up optional boolean, default true: false,
 *                                 the link starts down; wire_model optional,
 *                                 "ethernet" | "ns3", default the file's
 *   ],
 *   "wire_model": "ethernet"      optional, "ethernet" | "ns3" (wire.h): the
 *                                 links' default and what the switches'
 *                                 buffers charge
 * }
 *
 * Next hops (group members and route "nexthop"): the ip must lie in a subnet
 * of one of its port's addresses, or be a static neighbour (or host) on that
 * port, and must not be an address of the switch itself.
 *
 * Parsing runs in phases so a next hop can name a host: policies, then each
 * switch's ports and neighbours, then hosts, then each switch's groups and
 * routes, then links.
 */
#include "config.h"
#include "config_read.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../dataplane/sched.h"
#include "../dataplane/link.h"
#include "../dataplane/tables.h"
#include "topology.h"

#define PATH_LEN AIF_CFG_PATH_LEN
#define FILE_MAX_BYTES (64u << 20)
#define N_HASH_FIELDS 7
#define GBPS_MAX AIF_CFG_GBPS_MAX

/* ---- switches, phase 1: identity, ports, neighbours ---- */

static uint32_t
fnv1a32(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s != '\0'; s++) {
		h ^= (uint8_t)*s;
		h *= 16777619u;
	}
	return h;
}

static int
find_policy(const struct aif_config *cfg, const char *name)
{
	uint16_t i;

	for (i = 0; i < cfg->n_policies; i++)
		if (strcmp(cfg->policies[i].name, name) == 0)
			return i;
	return -1;
}

static int
parse_switch_policy(struct pctx *c, json_t *j, const char *path,
		    struct aif_switch_params *sw)
{
	char fp[PATH_LEN];
	const char *s = NULL;
	int rc = aif_cfg_get_string(c, j, path, "policy", false, &s);
	int idx;

	if (rc <= 0)
		return rc;
	idx = find_policy(c->cfg, s);
	if (idx < 0) {
		aif_cfg_path_key(fp, path, "policy");
		return aif_cfg_fail(c, fp, "unknown policy '%s'", s);
	}
	sw->policy = (uint16_t)idx;
	return 0;
}

/* "neighbor_learning": how learned neighbours age and how fast they come. */
static int
parse_neighbor_learning(struct pctx *c, json_t *j, const char *path,
			struct aif_neigh_params *p)
{
	static const char *const keys[] = {"reachable_s", "stale_s", "max_learned",
					   "rate_pps", "burst", NULL};
	static const struct {
		const char *key;
		long long min, max;
		size_t off;
	} f[] = {
		{ "reachable_s", 1, 86400, offsetof(struct aif_neigh_params, reachable_s) },
		{ "stale_s", 1, 86400, offsetof(struct aif_neigh_params, stale_s) },
		{ "max_learned", 1, AIF_NEIGH_LEARNED_MAX,
		  offsetof(struct aif_neigh_params, max_learned) },
		{ "rate_pps", 0, 1000000, offsetof(struct aif_neigh_params, rate_pps) },
		{ "burst", 1, 1000000, offsetof(struct aif_neigh_params, burst) },
	};
	char fp[PATH_LEN];
	json_t *o;
	int rc;

	*p = AIF_NEIGH_PARAMS_DEFAULT;
	rc = aif_cfg_get_object(c, j, path, "neighbor_learning", keys, fp, &o);
	if (rc <= 0)
		return rc;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		long long v;
		rc = aif_cfg_get_int(c, o, fp, f[i].key, false, f[i].min, f[i].max, &v);
		if (rc < 0)
			return -1;
		if (rc > 0)
			*(uint32_t *)((char *)p + f[i].off) = (uint32_t)v;
	}
	return 0;
}

/* cfg->switches[idx]; n_switches already counts it. */
static int
parse_switch_base(struct pctx *c, json_t *j, const char *path, uint16_t idx)
{
	static const char *const keys[] = {"name", "policy", "seed", "ecmp_seed",
					   "proxy_arp", "neighbor_learning", "ports",
					   "neighbors", "nexthop_groups", "routes", NULL};
	struct aif_switch_params *sw = &c->cfg->switches[idx];
	char fp[PATH_LEN];
	long long seed;
	int rc;

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    aif_cfg_get_name(c, j, path, "name", true, sw->name) < 0)
		return -1;
	if (aif_cfg_names_add(c->switches, idx) >= 0) {
		aif_cfg_path_key(fp, path, "name");
		return aif_cfg_fail(c, fp, "duplicate switch name '%s'", sw->name);
	}
	if (parse_switch_policy(c, j, path, sw) < 0)
		return -1;
	rc = aif_cfg_get_int(c, j, path, "seed", false, 0, UINT32_MAX, &seed);
	if (rc < 0)
		return -1;
	sw->seed_set = rc > 0;
	sw->seed = rc > 0 ? (uint32_t)seed : fnv1a32(sw->name);
	/* the seed of hash "murmur3_ns3" (ns-3: the switch's node id) */
	rc = aif_cfg_get_int(c, j, path, "ecmp_seed", false, 0, UINT32_MAX, &seed);
	if (rc < 0)
		return -1;
	sw->ecmp_seed = rc > 0 ? (uint32_t)seed : sw->seed;
	if (aif_cfg_get_bool(c, j, path, "proxy_arp", &sw->proxy_arp) < 0 ||
	    parse_neighbor_learning(c, j, path, &sw->neigh) < 0 ||
	    aif_cfg_parse_ports(c, j, path, sw) < 0 ||
	    aif_cfg_parse_neighbors(c, j, path, sw) < 0 ||
	    aif_cfg_check_bfd(c, path, sw) < 0)
		return -1;
	return 0;
}

/* ---- hosts ---- */

static int
append_neighbor(struct pctx *c, const char *path, struct aif_switch_params *sw,
		const struct aif_neighbor_params *n)
{
	struct aif_neighbor_params *grown;
	char buf[64];

	if (aif_cfg_find_neighbor(sw, &n->ip) >= 0)
		return aif_cfg_fail(c, path, "%s is already a neighbor on switch %s",
			    aif_ip_fmt(&n->ip, buf, sizeof(buf)), sw->name);
	if (sw->n_neighbors >= AIF_MAX_NEIGHBORS)
		return aif_cfg_fail(c, path, "too many neighbors on switch %s (max %d)",
			    sw->name, AIF_MAX_NEIGHBORS);
	grown = realloc(sw->neighbors,
			(sw->n_neighbors + 1) * sizeof(*sw->neighbors));
	if (grown == NULL)
		return aif_cfg_fail(c, path, "out of memory");
	sw->neighbors = grown;
	sw->neighbors[sw->n_neighbors++] = *n;
	return 0;
}

static int
get_switch_ref(struct pctx *c, json_t *j, const char *path, uint16_t *sw)
{
	char fp[PATH_LEN];
	const char *s = NULL;
	int idx;

	if (aif_cfg_get_string(c, j, path, "switch", true, &s) < 0)
		return -1;
	idx = (int)aif_cfg_names_find(c->switches, s);
	if (idx < 0) {
		aif_cfg_path_key(fp, path, "switch");
		return aif_cfg_fail(c, fp, "unknown switch '%s'", s);
	}
	*sw = (uint16_t)idx;
	return 0;
}

/* cfg->hosts[idx]; n_hosts already counts it. */
static int
parse_host(struct pctx *c, json_t *j, const char *path, uint32_t idx, struct aif_cfg_names *hn)
{
	static const char *const keys[] = {"name", "switch", "port", "ip",
					   "mac", NULL};
	struct aif_host_params *h = &c->cfg->hosts[idx];
	struct aif_neighbor_params n;
	struct aif_switch_params *sw;
	char fp[PATH_LEN], why[AIF_ERR_MAX];

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    aif_cfg_get_name(c, j, path, "name", true, h->name) < 0)
		return -1;
	if (aif_cfg_names_add(hn, idx) >= 0) {
		aif_cfg_path_key(fp, path, "name");
		return aif_cfg_fail(c, fp, "duplicate host name '%s'", h->name);
	}
	if (get_switch_ref(c, j, path, &h->sw) < 0)
		return -1;
	sw = &c->cfg->switches[h->sw];
	int rc;
	if (aif_cfg_get_port_ref(c, j, path, sw, &h->port) < 0 ||
	    aif_cfg_get_ip(c, j, path, "ip", &h->ip) < 0 ||
	    (rc = aif_cfg_get_mac(c, j, path, "mac", false, &h->mac)) < 0)
		return -1;
	h->learned = rc == 0;
	if (h->learned && sw->ports[h->port].device[0] == '\0') {
		/* a virtual host or a pcap file port sends with the MAC given */
		aif_cfg_path_key(fp, path, "mac");
		return aif_cfg_fail(c, fp, "required for a host on a port without a device "
			    "(port %s:%s); without it the switch learns a real host's MAC "
			    "from its ARP/ND", sw->name, sw->ports[h->port].name);
	}
	memset(&n, 0, sizeof(n));
	n.ip = h->ip;
	n.mac = h->mac;
	n.port = h->port;
	n.learned = h->learned;
	aif_cfg_path_key(fp, path, "ip");
	if (aif_config_check_not_own(sw, &h->ip, "host", why, sizeof(why)) < 0)
		return aif_cfg_fail(c, fp, "%s", why);
	return append_neighbor(c, fp, sw, &n);
}

static int
parse_hosts(struct pctx *c, json_t *root)
{
	char ep[PATH_LEN];
	json_t *arr, *v;
	size_t i;
	int rc;

	rc = aif_cfg_get_array(c, root, "$", "hosts", false, 0, SIZE_MAX, &arr);
	if (rc <= 0 || json_array_size(arr) == 0)
		return rc;
	c->cfg->hosts = calloc(json_array_size(arr), sizeof(*c->cfg->hosts));
	/* (a scan of every earlier host was quadratic: 65,536 hosts, 2
	 * billion comparisons) */
	struct aif_cfg_names hn = { 0 };
	if (c->cfg->hosts == NULL ||
	    aif_cfg_names_init(&hn, json_array_size(arr), c->cfg->hosts[0].name,
			       sizeof(*c->cfg->hosts)) != 0) {
		aif_cfg_names_free(&hn);
		return aif_cfg_fail(c, "$.hosts", "out of memory");
	}
	json_array_foreach(arr, i, v) {
		aif_cfg_path_idx(ep, "$.hosts", i);
		c->cfg->n_hosts = (uint32_t)(i + 1);
		if (parse_host(c, v, ep, (uint32_t)i, &hn) < 0) {
			aif_cfg_names_free(&hn);
			return -1;
		}
	}
	aif_cfg_names_free(&hn);
	return 0;
}

/* ---- next hops and groups ---- */

/* ip must be on a subnet of the port or a static neighbour on it. */
static int
check_nexthop(struct pctx *c, const char *path,
	      const struct aif_switch_params *sw,
	      const struct aif_nexthop_params *m)
{
	const struct aif_port_params *port = &sw->ports[m->port];
	char buf[64], why[AIF_ERR_MAX];
	uint16_t i;
	int n;

	aif_ip_fmt(&m->ip, buf, sizeof(buf));
	if (aif_config_check_not_own(sw, &m->ip, "next hop", why, sizeof(why)) < 0)
		return aif_cfg_fail(c, path, "%s", why);
	for (i = 0; i < port->n_addrs; i++)
		if (aif_prefix_contains(&port->addrs[i], &m->ip))
			return 0;
	n = aif_cfg_find_neighbor(sw, &m->ip);
	if (n >= 0 && sw->neighbors[n].port == m->port)
		return 0;
	return aif_cfg_fail(c, path,
		    "next hop %s is not on a subnet of port %s and has no static neighbor",
		    buf, port->name);
}

/* {"ip", "port"[, "weight"]} -> m, validated as a next hop of sw. */
static int
parse_nexthop(struct pctx *c, json_t *j, const char *path,
	      const struct aif_switch_params *sw, bool weighted,
	      struct aif_nexthop_params *m)
{
	static const char *const keys_w[] = {"ip", "port", "weight", NULL};
	static const char *const keys[] = {"ip", "port", NULL};
	char fp[PATH_LEN];
	long long weight = 1;

	memset(m, 0, sizeof(*m));
	if (aif_cfg_check_object(c, j, path, weighted ? keys_w : keys) < 0 ||
	    aif_cfg_get_ip(c, j, path, "ip", &m->ip) < 0 ||
	    aif_cfg_get_port_ref(c, j, path, sw, &m->port) < 0)
		return -1;
	if (weighted &&
	    aif_cfg_get_int(c, j, path, "weight", false, 1, 65535, &weight) < 0)
		return -1;
	m->weight = (uint32_t)weight;
	aif_cfg_path_key(fp, path, "ip");
	return check_nexthop(c, fp, sw, m);
}

static int
parse_members(struct pctx *c, json_t *arr, const char *path,
	      const struct aif_switch_params *sw, struct aif_group_params *g)
{
	char ep[PATH_LEN], buf[64];
	json_t *v;
	size_t i;
	uint16_t k;

	json_array_foreach(arr, i, v) {
		struct aif_nexthop_params *m = &g->members[i];

		aif_cfg_path_idx(ep, path, i);
		if (parse_nexthop(c, v, ep, sw, true, m) < 0)
			return -1;
		for (k = 0; k < i; k++)
			if (g->members[k].port == m->port &&
			    aif_ip_equal(&g->members[k].ip, &m->ip))
				return aif_cfg_fail(c, ep, "duplicate member %s@%s",
					    aif_ip_fmt(&m->ip, buf, sizeof(buf)),
					    sw->ports[m->port].name);
		g->n_members = (uint16_t)(i + 1);
	}
	return 0;
}

static int
find_group(const struct aif_switch_params *sw, const char *name)
{
	uint32_t i;

	for (i = 0; i < sw->n_groups; i++)
		if (strcmp(sw->groups[i].name, name) == 0)
			return (int)i;
	return -1;
}

static int
parse_group(struct pctx *c, json_t *j, const char *path,
	    struct aif_switch_params *sw)
{
	static const char *const keys[] = {"name", "members", NULL};
	struct aif_group_params *g = &sw->groups[sw->n_groups];
	char fp[PATH_LEN];
	json_t *arr;

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    aif_cfg_get_name(c, j, path, "name", true, g->name) < 0)
		return -1;
	if (find_group(sw, g->name) >= 0) {
		aif_cfg_path_key(fp, path, "name");
		return aif_cfg_fail(c, fp, "duplicate group name '%s'", g->name);
	}
	if (aif_cfg_get_array(c, j, path, "members", true, 1, AIF_MAX_MEMBERS,
		      &arr) < 0)
		return -1;
	aif_cfg_path_key(fp, path, "members");
	if (parse_members(c, arr, fp, sw, g) < 0)
		return -1;
	sw->n_groups++;
	return 0;
}

/* Upper bound on groups: explicit ones plus one per "nexthop" route. */
static size_t
groups_needed(json_t *groups, json_t *routes)
{
	size_t n = json_is_array(groups) ? json_array_size(groups) : 0;
	json_t *v;
	size_t i;

	if (!json_is_array(routes))
		return n < AIF_MAX_GROUPS ? n : AIF_MAX_GROUPS;
	json_array_foreach(routes, i, v) {
		if (json_is_object(v) && json_object_get(v, "nexthop") != NULL)
			n++;
	}
	return n < AIF_MAX_GROUPS ? n : AIF_MAX_GROUPS;
}

static int
parse_groups(struct pctx *c, json_t *j, const char *path,
	     struct aif_switch_params *sw)
{
	char ap[PATH_LEN], ep[PATH_LEN];
	json_t *arr, *v;
	size_t i, cap;
	int rc;

	rc = aif_cfg_get_array(c, j, path, "nexthop_groups", false, 0, AIF_MAX_GROUPS,
		       &arr);
	if (rc < 0)
		return -1;
	cap = groups_needed(arr, json_object_get(j, "routes"));
	if (cap == 0)
		return 0;
	sw->groups = calloc(cap, sizeof(*sw->groups));
	if (sw->groups == NULL)
		return aif_cfg_fail(c, path, "out of memory");
	if (rc == 0)
		return 0;
	aif_cfg_path_key(ap, path, "nexthop_groups");
	json_array_foreach(arr, i, v) {
		aif_cfg_path_idx(ep, ap, i);
		if (parse_group(c, v, ep, sw) < 0)
			return -1;
	}
	return 0;
}

/* ---- routes ---- */

/* Index of the implicit group for m, created if new. */
static int
implicit_group(struct pctx *c, const char *path, struct aif_switch_params *sw,
	       const struct aif_nexthop_params *m, uint16_t *group)
{
	struct aif_group_params *g;
	char buf[64];
	uint32_t i;
	int n;

	for (i = 0; i < sw->n_groups; i++) {
		g = &sw->groups[i];
		if (strchr(g->name, '@') != NULL && g->n_members == 1 &&
		    g->members[0].port == m->port &&
		    aif_ip_equal(&g->members[0].ip, &m->ip)) {
			*group = (uint16_t)i;
			return 0;
		}
	}
	if (sw->n_groups >= AIF_MAX_GROUPS)
		return aif_cfg_fail(c, path, "too many next-hop groups (max %d)",
			    AIF_MAX_GROUPS);
	g = &sw->groups[sw->n_groups];
	n = snprintf(g->name, sizeof(g->name), "%s@%s",
		     aif_ip_fmt(&m->ip, buf, sizeof(buf)),
		     sw->ports[m->port].name);
	if (n < 0 || (size_t)n >= sizeof(g->name))
		snprintf(g->name, sizeof(g->name), "@%u", sw->n_groups);
	g->n_members = 1;
	g->members[0] = *m;
	*group = (uint16_t)sw->n_groups++;
	return 0;
}

static int
parse_route_target(struct pctx *c, json_t *j, const char *path,
		   struct aif_switch_params *sw, struct aif_route_params *r)
{
	struct aif_nexthop_params m;
	char fp[PATH_LEN];
	const char *s = NULL;
	json_t *nh;
	int idx, rc;

	rc = aif_cfg_get_string(c, j, path, "group", false, &s);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		aif_cfg_path_key(fp, path, "group");
		idx = find_group(sw, s);
		if (idx < 0 || strchr(s, '@') != NULL)
			return aif_cfg_fail(c, fp, "unknown group '%s'", s);
		r->kind = AIF_ROUTE_GROUP;
		r->group = (uint16_t)idx;
		return 0;
	}
	rc = aif_cfg_get_string(c, j, path, "action", false, &s);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		aif_cfg_path_key(fp, path, "action");
		if (strcmp(s, "drop") != 0)
			return aif_cfg_fail(c, fp,
				    "unknown action '%s' (expected \"drop\")", s);
		r->kind = AIF_ROUTE_DROP;
		return 0;
	}
	nh = json_object_get(j, "nexthop");
	aif_cfg_path_key(fp, path, "nexthop");
	if (parse_nexthop(c, nh, fp, sw, false, &m) < 0)
		return -1;
	r->kind = AIF_ROUTE_GROUP;
	return implicit_group(c, fp, sw, &m, &r->group);
}

static int
parse_route(struct pctx *c, json_t *j, const char *path,
	    struct aif_switch_params *sw, struct aif_route_params *r)
{
	static const char *const keys[] = {"prefix", "group", "nexthop",
					   "action", NULL};
	char fp[PATH_LEN], why[AIF_ERR_MAX];
	const char *s = NULL;
	int n;

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    aif_cfg_get_string(c, j, path, "prefix", true, &s) < 0)
		return -1;
	if (aif_prefix_parse(s, &r->prefix) < 0) {
		aif_cfg_path_key(fp, path, "prefix");
		return aif_cfg_fail(c, fp, "invalid prefix '%s'", s);
	}
	aif_prefix_normalize(&r->prefix);
	/* (the paths written out only for an error: a generated fabric's
	 * switches have 100,000 routes) */
	if (aif_config_check_route_prefix(sw, &r->prefix, why, sizeof(why)) < 0) {
		aif_cfg_path_key(fp, path, "prefix");
		return aif_cfg_fail(c, fp, "%s", why);
	}
	n = (json_object_get(j, "group") != NULL) +
	    (json_object_get(j, "nexthop") != NULL) +
	    (json_object_get(j, "action") != NULL);
	if (n != 1)
		return aif_cfg_fail(c, path,
			    "exactly one of 'group', 'nexthop' or 'action' is required");
	if (parse_route_target(c, j, path, sw, r) < 0)
		return -1;
	if (aif_config_check_route_family(sw, r, why, sizeof(why)) < 0) {
		aif_cfg_path_key(fp, path, json_object_get(j, "group") != NULL ? "group"
										: "nexthop");
		return aif_cfg_fail(c, fp, "%s", why);
	}
	return 0;
}

struct route_key {
	struct aif_prefix p;
	uint32_t idx;
};

static int
route_key_cmp(const void *va, const void *vb)
{
	const struct route_key *a = va, *b = vb;
	int d;

	if (a->p.addr.family != b->p.addr.family)
		return a->p.addr.family < b->p.addr.family ? -1 : 1;
	if (a->p.len != b->p.len)
		return a->p.len < b->p.len ? -1 : 1;
	d = memcmp(a->p.addr.b, b->p.addr.b, sizeof(a->p.addr.b));
	if (d != 0)
		return d;
	return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

static bool
route_key_same(const struct route_key *a, const struct route_key *b)
{
	return a->p.len == b->p.len && aif_ip_equal(&a->p.addr, &b->p.addr);
}

/* Report the first (in file order) route whose prefix came earlier too. */
static int
check_dup_routes(struct pctx *c, const char *path,
		 const struct aif_switch_params *sw)
{
	struct route_key *k;
	uint32_t i, dup = UINT32_MAX, first = 0;
	char rp[PATH_LEN], fp[PATH_LEN], buf[64];

	if (sw->n_routes < 2)
		return 0;
	k = calloc(sw->n_routes, sizeof(*k));
	if (k == NULL)
		return aif_cfg_fail(c, path, "out of memory");
	for (i = 0; i < sw->n_routes; i++) {
		k[i].p = sw->routes[i].prefix;
		k[i].idx = i;
	}
	qsort(k, sw->n_routes, sizeof(*k), route_key_cmp);
	for (i = 1; i < sw->n_routes; i++) {
		if (route_key_same(&k[i - 1], &k[i]) && k[i].idx < dup) {
			dup = k[i].idx;
			first = k[i - 1].idx;
		}
	}
	free(k);
	if (dup == UINT32_MAX)
		return 0;
	aif_cfg_path_idx(rp, path, dup);
	aif_cfg_path_key(fp, rp, "prefix");
	return aif_cfg_fail(c, fp, "duplicate prefix %s (also routes[%u])",
		    aif_prefix_fmt(&sw->routes[dup].prefix, buf, sizeof(buf)),
		    first);
}

static int
parse_routes(struct pctx *c, json_t *j, const char *path,
	     struct aif_switch_params *sw)
{
	char ap[PATH_LEN], ep[PATH_LEN];
	json_t *arr, *v;
	size_t i;
	int rc;

	rc = aif_cfg_get_array(c, j, path, "routes", false, 0, AIF_MAX_ROUTES, &arr);
	if (rc <= 0 || json_array_size(arr) == 0)
		return rc;
	sw->routes = calloc(json_array_size(arr), sizeof(*sw->routes));
	if (sw->routes == NULL)
		return aif_cfg_fail(c, path, "out of memory");
	aif_cfg_path_key(ap, path, "routes");
	json_array_foreach(arr, i, v) {
		aif_cfg_path_idx(ep, ap, i);
		if (parse_route(c, v, ep, sw, &sw->routes[i]) < 0)
			return -1;
		sw->n_routes = (uint32_t)(i + 1);
	}
	return check_dup_routes(c, ap, sw);
}

/* ---- switches ---- */

static int
parse_switches(struct pctx *c, json_t *arr)
{
	char ep[PATH_LEN];
	json_t *v;
	size_t i;

	c->cfg->switches = calloc(json_array_size(arr),
				  sizeof(*c->cfg->switches));
	/* found by name by the hosts and links (a scan for each: a k=56
	 * fat-tree's 87,808 links, 690 M comparisons) */
	if (c->cfg->switches == NULL ||
	    aif_cfg_names_init(c->switches, json_array_size(arr), c->cfg->switches[0].name,
			       sizeof(*c->cfg->switches)) != 0)
		return aif_cfg_fail(c, "$.switches", "out of memory");
	json_array_foreach(arr, i, v) {
		aif_cfg_path_idx(ep, "$.switches", i);
		c->cfg->n_switches = (uint16_t)(i + 1);
		if (parse_switch_base(c, v, ep, (uint16_t)i) < 0)
			return -1;
	}
	return 0;
}

/* Phase 3: groups and routes, once every neighbour and host is known. */
static int
parse_switches_routing(struct pctx *c, json_t *arr)
{
	char ep[PATH_LEN];
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		struct aif_switch_params *sw = &c->cfg->switches[i];

		aif_cfg_path_idx(ep, "$.switches", i);
		if (parse_groups(c, v, ep, sw) < 0 ||
		    parse_routes(c, v, ep, sw) < 0)
			return -1;
	}
	return 0;
}

/* ---- links ---- */

/* "switch:port" -> indices. */
static int
parse_endpoint(struct pctx *c, json_t *j, const char *path, const char *key,
	       uint16_t *sw, uint16_t *port)
{
	char fp[PATH_LEN], name[AIF_NAME_MAX];
	const char *s = NULL, *colon;
	int si, pi;

	if (aif_cfg_get_string(c, j, path, key, true, &s) < 0)
		return -1;
	aif_cfg_path_key(fp, path, key);
	colon = strchr(s, ':');
	if (colon == NULL || (size_t)(colon - s) >= sizeof(name))
		return aif_cfg_fail(c, fp, "invalid endpoint '%s' (expected \"switch:port\")",
			    s);
	memcpy(name, s, (size_t)(colon - s));
	name[colon - s] = '\0';
	si = (int)aif_cfg_names_find(c->switches, name);
	if (si < 0)
		return aif_cfg_fail(c, fp, "unknown switch '%s'", name);
	pi = aif_config_port_find(&c->cfg->switches[si], colon + 1);
	if (pi < 0)
		return aif_cfg_fail(c, fp, "unknown port '%s' on switch %s", colon + 1,
			    name);
	*sw = (uint16_t)si;
	*port = (uint16_t)pi;
	return 0;
}

/* A port joins at most one link and carries no host: its owner while
 * links are read, 0 none, link i as i + 1, host h as OWNER_HOST | (h + 1)
 * (the first on the port); the checks were a scan of every link and host
 * for each link's end, 0.3 s for a k=28 fat-tree. */
#define OWNER_HOST 0x80000000u

static int
check_endpoint_free(struct pctx *c, const char *path, const char *key, const uint32_t *owner,
		    uint16_t sw, uint16_t port)
{
	const struct aif_config *cfg = c->cfg;
	const char *sn = cfg->switches[sw].name;
	const char *pn = cfg->switches[sw].ports[port].name;
	uint32_t o = owner[(size_t)sw * AIF_MAX_PORTS + port];
	char fp[PATH_LEN];

	aif_cfg_path_key(fp, path, key);
	if (o == 0)
		return 0;
	if (o & OWNER_HOST)
		return aif_cfg_fail(c, fp, "port %s:%s carries host %s and cannot be in a link",
				    sn, pn, cfg->hosts[(o & ~OWNER_HOST) - 1].name);
	return aif_cfg_fail(c, fp, "port %s:%s is already in links[%u]", sn, pn, o - 1);
}

static int
parse_link(struct pctx *c, json_t *j, const char *path, uint32_t idx, uint32_t *owner)
{
	static const char *const keys[] = {"a", "b", "rate_gbps", "delay_ns",
					   "loss_rate", "corrupt_rate", "up", "wire_model", NULL};
	struct aif_topo_link *l = &c->cfg->links[idx];
	long long delay = 0;
	double gbps;
	int rc;

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    parse_endpoint(c, j, path, "a", &l->a_switch, &l->a_port) < 0 ||
	    parse_endpoint(c, j, path, "b", &l->b_switch, &l->b_port) < 0)
		return -1;
	if (l->a_switch == l->b_switch && l->a_port == l->b_port)
		return aif_cfg_fail(c, path, "both ends are %s:%s",
			    c->cfg->switches[l->a_switch].name,
			    c->cfg->switches[l->a_switch].ports[l->a_port].name);
	if (check_endpoint_free(c, path, "a", owner, l->a_switch, l->a_port) < 0 ||
	    check_endpoint_free(c, path, "b", owner, l->b_switch, l->b_port) < 0)
		return -1;
	owner[(size_t)l->a_switch * AIF_MAX_PORTS + l->a_port] = idx + 1;
	owner[(size_t)l->b_switch * AIF_MAX_PORTS + l->b_port] = idx + 1;
	/* what an emulated link can do (link.h), refused here, not at start */
	rc = aif_cfg_get_real(c, j, path, "rate_gbps", 1e-9, false, AIF_LINK_RATE_MAX_BPS / 1e9, &gbps);
	if (rc < 0)
		return -1;
	if (rc > 0)
		l->rate_bps = (uint64_t)(gbps * 1e9 + 0.5);
	if (aif_cfg_get_int(c, j, path, "delay_ns", false, 0, AIF_LINK_DELAY_MAX_NS, &delay) < 0)
		return -1;
	l->delay_ns = (uint64_t)delay;
	if (aif_cfg_get_real(c, j, path, "loss_rate", 0, false, 1, &l->loss_rate) < 0 ||
	    aif_cfg_get_real(c, j, path, "corrupt_rate", 0, false, 1, &l->corrupt_rate) < 0)
		return -1;
	bool up = true;
	if (aif_cfg_get_bool(c, j, path, "up", &up) < 0)
		return -1;
	l->down = !up;
	l->wire_model = c->cfg->wire_model;
	return aif_cfg_wire_model(c, j, path, &l->wire_model);
}

static int
parse_links(struct pctx *c, json_t *root)
{
	char ep[PATH_LEN];
	json_t *arr, *v;
	size_t i;
	int rc;

	rc = aif_cfg_get_array(c, root, "$", "links", false, 0, SIZE_MAX, &arr);
	if (rc <= 0 || json_array_size(arr) == 0)
		return rc;
	c->cfg->links = calloc(json_array_size(arr), sizeof(*c->cfg->links));
	/* who has each port: its first host, or the link that took it */
	uint32_t *owner = calloc((size_t)c->cfg->n_switches * AIF_MAX_PORTS, sizeof(*owner));
	if (c->cfg->links == NULL || owner == NULL) {
		free(owner);
		return aif_cfg_fail(c, "$.links", "out of memory");
	}
	for (uint32_t h = c->cfg->n_hosts; h-- > 0;)
		owner[(size_t)c->cfg->hosts[h].sw * AIF_MAX_PORTS + c->cfg->hosts[h].port] =
			OWNER_HOST | (h + 1);
	json_array_foreach(arr, i, v) {
		aif_cfg_path_idx(ep, "$.links", i);
		if (parse_link(c, v, ep, (uint32_t)i, owner) < 0) {
			free(owner);
			return -1;
		}
		c->cfg->n_links = (uint32_t)(i + 1);
	}
	free(owner);
	return 0;
}

/* ---- entry points ---- */

static int
parse_root(struct pctx *c, json_t *root)
{
	static const char *const keys[] = {"policies", "switches", "hosts",
					   "links", "lb_programs", "wire_model", NULL};
	json_t *switches;

	/* a generated fabric becomes switches, links and hosts (topology.h);
	 * what it came from is kept to generate it again */
	const json_t *topo = json_object_get(root, "topology");
	if (topo != NULL) {
		c->cfg->topology = json_dumps(topo, JSON_COMPACT);
		c->cfg->topology_split = json_is_object(topo) && aif_topology_split(topo);
		const json_t *pol = json_object_get(root, "policies");
		c->cfg->topology_policies = pol != NULL ? json_dumps(pol, JSON_COMPACT) : NULL;
		const json_t *lbp = json_object_get(root, "lb_programs");
		c->cfg->topology_lb_programs = lbp != NULL ? json_dumps(lbp, JSON_COMPACT) : NULL;
		if (c->cfg->topology == NULL || (pol != NULL && c->cfg->topology_policies == NULL) ||
		    (lbp != NULL && c->cfg->topology_lb_programs == NULL))
			return aif_cfg_fail(c, "$.topology", "out of memory");
	}
	if (aif_topology_expand(root, c->err, c->err_len) != 0)
		return -1;
	if (aif_cfg_check_object(c, root, "$", keys) < 0 ||
	    aif_cfg_wire_model(c, root, "$", &c->cfg->wire_model) < 0 ||
	    aif_cfg_parse_lb_programs(c, root) < 0 ||
	    aif_cfg_parse_policies(c, root) < 0 ||
	    aif_cfg_get_array(c, root, "$", "switches", true, 1, AIF_MAX_SWITCHES,
		      &switches) < 0 ||
	    parse_switches(c, switches) < 0 ||
	    parse_hosts(c, root) < 0 ||
	    parse_switches_routing(c, switches) < 0 ||
	    parse_links(c, root) < 0)
		return -1;
	return 0;
}

/*
 * Parse and validate a config from JSON text, e.g.
 *   if (aif_config_parse(buf, n, &cfg, err, sizeof(err)) < 0)
 *           fprintf(stderr, "config: %s\n", err);
 */
int
aif_config_parse(const char *text, size_t len, struct aif_config **out,
		 char *err, size_t err_len)
{
	struct aif_cfg_names sw_names = { 0 };
	struct pctx c = { .err = err, .err_len = err_len, .switches = &sw_names };
	json_error_t jerr;
	json_t *root;
	int rc;

	if (err != NULL && err_len > 0)
		err[0] = '\0';
	if (out == NULL)
		return -1;
	*out = NULL;
	root = json_loadb(text != NULL ? text : "", text != NULL ? len : 0,
			  JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL) {
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "line %d column %d: %s",
				 jerr.line, jerr.column, jerr.text);
		return -1;
	}
	c.cfg = calloc(1, sizeof(*c.cfg));
	if (c.cfg == NULL) {
		rc = aif_cfg_fail(&c, "$", "out of memory");
	} else {
		c.cfg->refs = 1;
		rc = parse_root(&c, root);
	}
	aif_cfg_names_free(&sw_names);
	json_decref(root);
	if (rc < 0) {
		aif_config_free(c.cfg);
		return -1;
	}
	*out = c.cfg;
	return 0;
}


struct aif_config *
aif_config_ref(struct aif_config *cfg)
{
	__atomic_add_fetch(&cfg->refs, 1, __ATOMIC_RELAXED);
	return cfg;
}

/* Drop a reference to a config from aif_config_parse(); the last frees it. */
void
aif_config_free(struct aif_config *cfg)
{
	uint16_t i;

	if (cfg == NULL)
		return;
	/* refs 0: built by hand, never shared */
	if (__atomic_load_n(&cfg->refs, __ATOMIC_RELAXED) > 1 &&
	    __atomic_sub_fetch(&cfg->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	for (i = 0; i < cfg->n_switches; i++) {
		free(cfg->switches[i].ports);
		free(cfg->switches[i].groups);
		free(cfg->switches[i].routes);
		free(cfg->switches[i].neighbors);
	}
	free(cfg->switches);
	free(cfg->policies);
	free(cfg->links);
	free(cfg->hosts);
	free(cfg->topology);
	free(cfg->topology_policies);
	free(cfg->topology_lb_programs);
	free(cfg->lb_programs);
	free(cfg);
}

/* The defaults documented above struct aif_qos_params in config.h. */
static void
qos_defaults(struct aif_qos_params *q)
{
	unsigned int i;

	q->enable = true;
	for (i = 0; i < 8; i++) {
		q->tc_to_queue[i] = (uint8_t)i;
		q->tc_to_pg[i] = (uint8_t)i;
		q->weight[i] = 1;
	}
	q->pfc_enable = 1u << 3;
	q->strict_queues = 1u << 6;
	q->buffer_model = AIF_QOS_BUF_HPCC;
	q->buffer_bytes = 12u << 20;
	q->reserve_bytes = 4096;
	q->dynamic_th = -3;
	q->resume_offset_bytes = 3072;
	q->headroom_bytes = 0;
	q->cable_delay_ns = 1000;
	q->ecn_queues = 1u << 3;
	q->ecn_mode = AIF_QOS_ECN_ON;
	q->ecn_mark_point = AIF_QOS_MARK_DEQUEUE;
	q->kmin_bytes = 100000;
	q->kmax_bytes = 400000;
	q->pmax = 0.2;
	q->trim_queues = 0;
	q->trim_size_bytes = 128;
	q->trim_dscp = 11;
	q->trim_queue = 7;
	q->pfc_quanta = 0xFFFF;
	q->pfc_mode = 0;                       /* standard */
	q->pfc_pause_ns = 5 * AIF_NS_PER_US;   /* ns3 mode's */
	q->ecn_qmin_bytes = 0;
	q->headroom_slot0_quirk = false;
	q->mmu_bypass = 1u << 6;               /* ACKs, NAKs, CNPs (DSCP 48) */
	q->bypass_limit_bytes = 256 * 1024;
	q->wd_detection_ns = 200000000;
	q->wd_restoration_ns = 200000000;
	q->wd_action = AIF_QOS_WD_DROP;
}

/*
 * Default policy, named "default": trust DSCP, DSCP 26 -> TC 3, 48 -> TC 6,
 * other DSCPs -> TC 0, PCP n -> TC n, ECMP over AIF_HF_DEFAULT with CRC32C,
 * and the qos defaults (config.h, above struct aif_qos_params).
 */
void
aif_policy_defaults(struct aif_policy_params *p)
{
	unsigned int i;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "default");
	p->trust = AIF_TRUST_DSCP;
	p->dscp_to_tc[26] = 3;
	p->dscp_to_tc[48] = 6;
	for (i = 0; i < 8; i++)
		p->pcp_to_tc[i] = (uint8_t)i;
	p->lb.scheme = AIF_LB_ECMP;
	p->lb.hash_alg = AIF_HASH_CRC32C;
	p->lb.hash_fields = AIF_HF_DEFAULT;
	p->lb.flowlet_gap_ns = 100 * AIF_NS_PER_US;
	p->lb.flowlet_age_ns = 2 * AIF_NS_PER_MS;
	p->lb.flowlet_table_size = 4096;
	p->lb.flowlet_mode = AIF_FLOWLET_RANDOM;
	p->lb.spray_mode = AIF_SPRAY_RR;
	p->lb.drill_samples = 2;
	p->lb.drill_distinct = true;
	p->lb.drill_memory = AIF_DRILL_MEM_DESTINATION;
	p->lb.queue_read = AIF_LB_QREAD_PACKET;
	p->lb.flowlet_gap_le = true;
	p->lb.flowlet_table = AIF_FLOWLET_TABLE_EXACT;
	p->lb.control_tcs = 1u << 6;
	p->lb.adaptive_period_ns = 1 * AIF_NS_PER_US;
	p->lb.adaptive_mode = AIF_ADAPTIVE_FLOWLET;
	p->lb.adaptive_ewma_shift = 3;
	p->lb.buckets_per_member = 64;
	qos_defaults(&p->qos);
}

/* Index of the switch called name, or -1. */
int
aif_config_switch_find(const struct aif_config *cfg, const char *name)
{
	uint16_t i;

	for (i = 0; i < cfg->n_switches; i++)
		if (strcmp(cfg->switches[i].name, name) == 0)
			return i;
	return -1;
}

/* Index of the port called name in sw, or -1. */
int
aif_config_port_find(const struct aif_switch_params *sw, const char *name)
{
	uint16_t i;

	for (i = 0; i < sw->n_ports; i++)
		if (strcmp(sw->ports[i].name, name) == 0)
			return i;
	return -1;
}
