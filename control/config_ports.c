/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config file's switch ports and static neighbours (config.c has the
 * format and calls in here): devices, addresses and their subnets, speed,
 * shaper, MAC, VLANs; neighbours by port.
 */
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

#include "../dataplane/bfd.h"
#include "../dataplane/sched.h"
#include "../dataplane/link.h"
#include "../dataplane/tables.h"
#include "config.h"
#include "config_read.h"

#define PATH_LEN AIF_CFG_PATH_LEN
#define N_HASH_FIELDS 7
#define GBPS_MAX AIF_CFG_GBPS_MAX

/* ---- ports ---- */

/* Which switch:port already uses device dev (the switches parsed so far). */
static bool
device_used(const struct aif_config *cfg, const char *dev,
	    const char **sw_name, const char **port_name)
{
	uint16_t s, p;

	for (s = 0; s < cfg->n_switches; s++) {
		const struct aif_switch_params *o = &cfg->switches[s];

		for (p = 0; p < o->n_ports; p++) {
			if (strcmp(o->ports[p].device, dev) == 0) {
				*sw_name = o->name;
				*port_name = o->ports[p].name;
				return true;
			}
		}
	}
	return false;
}

/*
 * What an interface address must not be: it is a unicast address the switch
 * answers for and its subnet is connected to the port, so the ranges that
 * are never a host's (RFC 6890: "this network", loopback, multicast, the
 * limited broadcast; IPv6 unspecified, loopback, IPv4-mapped, multicast)
 * and link-local IPv6 (fe80::/10: never forwarded, yet a connected route
 * would forward it between ports) are refused, and so is a /0, which would
 * make every destination connected.  NULL when a is fine.
 */
static const char *
addr_not_unicast(const struct aif_prefix *a)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	static const uint8_t zero[16];
	const uint8_t *b = a->addr.b;

	if (a->len == 0)
		return "is a /0: its subnet would make every destination connected";
	if (a->addr.family == AIF_AF_INET4) {
		if (b[0] == 0)
			return "is in 0.0.0.0/8 (\"this network\"), not a host address";
		if (b[0] == 127)
			return "is a loopback address (127.0.0.0/8)";
		if (b[0] >= 224 && b[0] <= 239)
			return "is a multicast address (224.0.0.0/4)";
		if (aif_ip4_host(&a->addr) == UINT32_MAX)
			return "is the limited broadcast address";
		return NULL;
	}
	if (memcmp(b, zero, 16) == 0)
		return "is the unspecified address";
	if (memcmp(b, zero, 15) == 0 && b[15] == 1)
		return "is the loopback address";
	if (memcmp(b, v4mapped, 12) == 0)
		return "is an IPv4-mapped address (::ffff:0:0/96)";
	if (b[0] == 0xff)
		return "is a multicast address (ff00::/8)";
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return "is a link-local address (fe80::/10), which is never routed";
	return NULL;
}

/* Interface address "a/len": length required, a unicast address (above),
 * not the network or broadcast address of its subnet. */
static int
check_port_addr(struct pctx *c, const char *path, const char *s,
		const struct aif_prefix *a)
{
	struct aif_prefix net = *a;
	uint32_t host_mask;
	const char *why;

	if (strchr(s, '/') == NULL)
		return aif_cfg_fail(c, path, "prefix length is required in '%s'", s);
	why = addr_not_unicast(a);
	if (why != NULL)
		return aif_cfg_fail(c, path, "'%s' %s", s, why);
	if (a->addr.family != AIF_AF_INET4 || a->len >= 31)
		return 0;
	aif_prefix_normalize(&net);
	if (aif_ip_equal(&net.addr, &a->addr))
		return aif_cfg_fail(c, path, "'%s' is the network address of its subnet",
			    s);
	host_mask = UINT32_MAX >> a->len;
	if ((aif_ip4_host(&a->addr) & host_mask) == host_mask)
		return aif_cfg_fail(c, path,
			    "'%s' is the broadcast address of its subnet", s);
	return 0;
}

/*
 * The port of sw holding a subnet that overlaps net (the new port's own
 * addresses so far included), with that subnet in *other; NULL when none.
 * Overlapping subnets on two ports would make one port's hosts unreachable
 * through the other's connected route, so a switch's subnets are disjoint.
 */
static const char *
subnet_overlap(const struct aif_switch_params *sw, uint16_t n_ports,
	       const struct aif_prefix *net, struct aif_prefix *other)
{
	uint16_t p, i;

	for (p = 0; p < n_ports; p++) {
		const struct aif_port_params *port = &sw->ports[p];

		for (i = 0; i < port->n_addrs; i++) {
			struct aif_prefix o = port->addrs[i];

			aif_prefix_normalize(&o);
			if (o.addr.family != net->addr.family)
				continue;
			if (o.len <= net->len ? aif_prefix_contains(&o, &net->addr)
					      : aif_prefix_contains(net, &o.addr)) {
				*other = o;
				return port->name;
			}
		}
	}
	return NULL;
}

static int
parse_port_addrs(struct pctx *c, json_t *arr, const char *path,
		 struct aif_switch_params *sw, uint16_t idx)
{
	struct aif_port_params *port = &sw->ports[idx];
	char ep[PATH_LEN], buf[64], obuf[64];
	const char *owner;
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		struct aif_prefix a, net, other;
		const char *s;

		aif_cfg_path_idx(ep, path, i);
		if (!json_is_string(v))
			return aif_cfg_fail(c, ep, "expected string, got %s",
				    aif_cfg_type_name(v));
		s = json_string_value(v);
		if (aif_prefix_parse(s, &a) < 0)
			return aif_cfg_fail(c, ep, "invalid address '%s'", s);
		if (check_port_addr(c, ep, s, &a) < 0)
			return -1;
		net = a;
		aif_prefix_normalize(&net);
		owner = subnet_overlap(sw, idx + 1, &net, &other);
		aif_prefix_fmt(&net, buf, sizeof(buf));
		if (owner != NULL && other.len == net.len)
			return aif_cfg_fail(c, ep, "subnet %s is already on port %s",
				    buf, owner);
		if (owner != NULL)
			return aif_cfg_fail(c, ep, "subnet %s overlaps %s on port %s", buf,
				    aif_prefix_fmt(&other, obuf, sizeof(obuf)), owner);
		port->addrs[port->n_addrs++] = a;
	}
	return 0;
}

static int
parse_port_device(struct pctx *c, json_t *j, const char *path,
		  struct aif_port_params *port)
{
	const char *dev = NULL, *sw_name = NULL, *port_name = NULL;
	char fp[PATH_LEN];

	int rc = aif_cfg_get_string(c, j, path, "device", false, &dev);
	if (rc <= 0)
		return rc; /* none: a virtual port (a link end); the daemon needs one
			    * for every other port */
	aif_cfg_path_key(fp, path, "device");
	if (dev[0] == '\0' || strlen(dev) >= AIF_DEV_NAME_MAX)
		return aif_cfg_fail(c, fp, "device name must be 1..%d characters",
			    AIF_DEV_NAME_MAX - 1);
	if (device_used(c->cfg, dev, &sw_name, &port_name))
		return aif_cfg_fail(c, fp, "device '%s' is already used by %s:%s", dev,
			    sw_name, port_name);
	snprintf(port->device, sizeof(port->device), "%s", dev);
	return 0;
}

static int
parse_port_speed(struct pctx *c, json_t *j, const char *path,
		 struct aif_port_params *port)
{
	char fp[PATH_LEN];
	double gbps, mbps;
	int rc = aif_cfg_get_gbps(c, j, path, "speed_gbps", &gbps);

	if (rc <= 0)
		return rc;
	mbps = gbps * 1000.0 + 0.5;
	if (mbps < 1.0) {
		aif_cfg_path_key(fp, path, "speed_gbps");
		return aif_cfg_fail(c, fp, "must be at least 0.001 (1 Mb/s), got %g",
			    gbps);
	}
	port->speed_mbps = (uint32_t)mbps;
	return 0;
}

/*
 * "shaper_gbps" into shaper_bps (rounded); at most the port's speed_gbps,
 * as written and as stored, when that is given (parsed before).
 */
static int
parse_port_shaper(struct pctx *c, json_t *j, const char *path,
		  struct aif_port_params *port)
{
	json_t *speed = json_object_get(j, "speed_gbps");
	char fp[PATH_LEN];
	double gbps;
	int rc = aif_cfg_get_gbps(c, j, path, "shaper_gbps", &gbps);

	if (rc <= 0)
		return rc;
	port->shaper_bps = (uint64_t)(gbps * 1e9 + 0.5);
	if (port->shaper_bps > AIF_SCHED_RATE_MAX_BPS) {
		aif_cfg_path_key(fp, path, "shaper_gbps");
		return aif_cfg_fail(c, fp, "must be at most %g (the scheduler's limit), got %g",
			    (double)AIF_SCHED_RATE_MAX_BPS / 1e9, gbps);
	}
	if (speed != NULL &&
	    (gbps > json_number_value(speed) ||
	     port->shaper_bps > (uint64_t)port->speed_mbps * 1000000u)) {
		aif_cfg_path_key(fp, path, "shaper_gbps");
		return aif_cfg_fail(c, fp, "must be at most speed_gbps (%g), got %g",
			    json_number_value(speed), gbps);
	}
	return 0;
}

/* Two ports of a switch with one MAC would each take the other's frames
 * (and ARP replies) for their own: a "mac" given must be the port's alone. */
static int
check_port_mac(struct pctx *c, const char *path,
	       const struct aif_switch_params *sw, uint16_t idx)
{
	const struct aif_port_params *port = &sw->ports[idx];
	char fp[PATH_LEN], buf[32];
	uint16_t p;

	for (p = 0; p < idx; p++) {
		if (!sw->ports[p].mac_set ||
		    memcmp(sw->ports[p].mac.b, port->mac.b, sizeof(port->mac.b)) != 0)
			continue;
		aif_cfg_path_key(fp, path, "mac");
		return aif_cfg_fail(c, fp, "MAC %s is already the MAC of port %s",
			    aif_mac_fmt(&port->mac, buf, sizeof(buf)),
			    sw->ports[p].name);
	}
	return 0;
}

/* "bfd": {"interval_ms": 50, "multiplier": 3}: a BFD session with the
 * port's peer (its neighbour: aif_cfg_check_bfd, once they are read). */
static int
parse_port_bfd(struct pctx *c, json_t *j, const char *path, struct aif_port_params *port)
{
	static const char *const keys[] = {"interval_ms", "multiplier", NULL};
	long long ms = AIF_BFD_INTERVAL_DEFAULT_MS, mult = AIF_BFD_MULT_DEFAULT;
	char fp[PATH_LEN];
	json_t *o;
	int rc = aif_cfg_get_object(c, j, path, "bfd", keys, fp, &o);

	if (rc <= 0)
		return rc;
	if (aif_cfg_get_int(c, o, fp, "interval_ms", false, AIF_BFD_INTERVAL_MIN_MS,
			    AIF_BFD_INTERVAL_MAX_MS, &ms) < 0 ||
	    aif_cfg_get_int(c, o, fp, "multiplier", false, 1, AIF_BFD_MULT_MAX, &mult) < 0)
		return -1;
	if (port->device[0] == '\0')
		return aif_cfg_fail(c, fp, "BFD runs on a port with a \"device\" (a link to "
				    "another daemon or machine)");
	port->bfd_interval_us = (uint32_t)ms * 1000;
	port->bfd_mult = (uint8_t)mult;
	return 0;
}

/* sw->ports[idx]; sw->n_ports already counts it (zeroed). */
static int
parse_port(struct pctx *c, json_t *j, const char *path,
	   struct aif_switch_params *sw, uint16_t idx)
{
	static const char *const keys[] = {"name", "device", "mac", "mtu",
					   "vlan", "speed_gbps", "shaper_gbps",
					   "shaper_burst_bytes", "pfc_mode", "cable_delay_ns",
					   "addresses", "bfd", NULL};
	static const char *const pfc_modes[] = {"software", "hardware", NULL};
	struct aif_port_params *port = &sw->ports[idx];
	char fp[PATH_LEN];
	long long mtu = 1500, vlan = 0, burst = 0, cable = 0;
	json_t *arr;
	int rc;

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    aif_cfg_get_name(c, j, path, "name", true, port->name) < 0)
		return -1;
	if (aif_config_port_find(sw, port->name) != idx) {
		aif_cfg_path_key(fp, path, "name");
		return aif_cfg_fail(c, fp, "duplicate port name '%s'", port->name);
	}
	if (parse_port_device(c, j, path, port) < 0)
		return -1;
	rc = aif_cfg_get_mac(c, j, path, "mac", false, &port->mac);
	if (rc < 0)
		return -1;
	port->mac_set = rc > 0;
	if (port->mac_set && check_port_mac(c, path, sw, idx) < 0)
		return -1;
	if (aif_cfg_get_int(c, j, path, "mtu", false, 68, 9600, &mtu) < 0)
		return -1;
	port->mtu = (uint16_t)mtu;
	/* 4095 is reserved (802.1Q); 0 tags with the priority alone */
	rc = aif_cfg_get_int(c, j, path, "vlan", false, 0, 4094, &vlan);
	if (rc < 0)
		return -1;
	port->vlan_set = rc > 0;
	port->vlan = (uint16_t)vlan;
	if (parse_port_speed(c, j, path, port) < 0 ||
	    parse_port_shaper(c, j, path, port) < 0 ||
	    (rc = aif_cfg_get_int(c, j, path, "shaper_burst_bytes", false, 64, AIF_SCHED_BURST_MAX_BYTES,
			  &burst)) < 0)
		return -1;
	port->shaper_burst_bytes = (uint32_t)burst;
	if (rc > 0 && port->shaper_bps == 0) {
		aif_cfg_path_key(fp, path, "shaper_burst_bytes");
		return aif_cfg_fail(c, fp, "goes with shaper_gbps (the port is not shaped)");
	}
	if (aif_cfg_get_enum(c, j, path, "pfc_mode", pfc_modes, "PFC mode", &port->pfc_mode) < 0 ||
	    aif_cfg_get_int(c, j, path, "cable_delay_ns", false, 0, 100000000, &cable) < 0)
		return -1;
	port->cable_delay_ns = (uint32_t)cable;
	rc = aif_cfg_get_array(c, j, path, "addresses", false, 0, AIF_MAX_PORT_ADDRS,
		       &arr);
	if (rc < 0)
		return -1;
	aif_cfg_path_key(fp, path, "addresses");
	if (rc > 0 && parse_port_addrs(c, arr, fp, sw, idx) < 0)
		return -1;
	return parse_port_bfd(c, j, path, port);
}

int
aif_cfg_parse_ports(struct pctx *c, json_t *j, const char *path,
	    struct aif_switch_params *sw)
{
	char ap[PATH_LEN], ep[PATH_LEN];
	json_t *arr, *v;
	size_t i;

	if (aif_cfg_get_array(c, j, path, "ports", true, 1, AIF_MAX_PORTS, &arr) < 0)
		return -1;
	sw->ports = calloc(json_array_size(arr), sizeof(*sw->ports));
	if (sw->ports == NULL)
		return aif_cfg_fail(c, path, "out of memory");
	aif_cfg_path_key(ap, path, "ports");
	json_array_foreach(arr, i, v) {
		aif_cfg_path_idx(ep, ap, i);
		sw->n_ports = (uint16_t)(i + 1);
		if (parse_port(c, v, ep, sw, (uint16_t)i) < 0)
			return -1;
	}
	return 0;
}

/* ---- neighbours ---- */

/*
 * A port's BFD session goes to its peer: the first static neighbour on the
 * port whose IPv4 address is in one of the port's IPv4 subnets (what the
 * generator writes for a link's far end), from that address of the port.
 */
int
aif_cfg_check_bfd(struct pctx *c, const char *path, struct aif_switch_params *sw)
{
	char fp[PATH_LEN], pp[PATH_LEN];

	for (uint16_t p = 0; p < sw->n_ports; p++) {
		struct aif_port_params *port = &sw->ports[p];
		if (port->bfd_interval_us == 0)
			continue;
		for (uint32_t i = 0; i < sw->n_neighbors; i++) {
			const struct aif_neighbor_params *n = &sw->neighbors[i];
			if (n->port != p || n->learned || n->ip.family != AIF_AF_INET4)
				continue;
			for (uint16_t a = 0; a < port->n_addrs; a++)
				if (aif_prefix_contains(&port->addrs[a], &n->ip)) {
					port->bfd_neighbor = i;
					port->bfd_addr = (uint8_t)a;
					goto found;
				}
		}
		aif_cfg_path_key(pp, path, "ports");
		aif_cfg_path_idx(fp, pp, p);
		aif_cfg_path_key(pp, fp, "bfd");
		return aif_cfg_fail(c, pp, "a BFD session needs its peer: a static neighbor on "
				    "port %s with an IPv4 address in one of the port's IPv4 "
				    "subnets (the generator writes one for a link's far end)",
				    port->name);
found:;
	}
	return 0;
}

int
aif_cfg_find_neighbor(const struct aif_switch_params *sw, const struct aif_ip *ip)
{
	uint32_t i;

	for (i = 0; i < sw->n_neighbors; i++)
		if (aif_ip_equal(&sw->neighbors[i].ip, ip))
			return (int)i;
	return -1;
}

/* The "port" field of j, as an index into sw->ports. */
int
aif_cfg_get_port_ref(struct pctx *c, json_t *j, const char *path,
	     const struct aif_switch_params *sw, uint16_t *port)
{
	char fp[PATH_LEN];
	const char *s = NULL;
	int idx;

	if (aif_cfg_get_string(c, j, path, "port", true, &s) < 0)
		return -1;
	idx = aif_config_port_find(sw, s);
	if (idx < 0) {
		aif_cfg_path_key(fp, path, "port");
		return aif_cfg_fail(c, fp, "unknown port '%s' on switch %s", s,
			    sw->name);
	}
	*port = (uint16_t)idx;
	return 0;
}

static int
parse_neighbor(struct pctx *c, json_t *j, const char *path,
	       struct aif_switch_params *sw)
{
	static const char *const keys[] = {"ip", "mac", "port", NULL};
	struct aif_neighbor_params *n = &sw->neighbors[sw->n_neighbors];
	char fp[PATH_LEN], buf[64], why[AIF_ERR_MAX];

	if (aif_cfg_check_object(c, j, path, keys) < 0 ||
	    aif_cfg_get_ip(c, j, path, "ip", &n->ip) < 0)
		return -1;
	aif_cfg_path_key(fp, path, "ip");
	if (aif_cfg_find_neighbor(sw, &n->ip) >= 0)
		return aif_cfg_fail(c, fp, "duplicate neighbor %s",
			    aif_ip_fmt(&n->ip, buf, sizeof(buf)));
	if (aif_config_check_not_own(sw, &n->ip, "neighbor", why, sizeof(why)) < 0)
		return aif_cfg_fail(c, fp, "%s", why);
	if (aif_cfg_get_mac(c, j, path, "mac", true, &n->mac) < 0 ||
	    aif_cfg_get_port_ref(c, j, path, sw, &n->port) < 0)
		return -1;
	sw->n_neighbors++;
	return 0;
}

int
aif_cfg_parse_neighbors(struct pctx *c, json_t *j, const char *path,
		struct aif_switch_params *sw)
{
	char ap[PATH_LEN], ep[PATH_LEN];
	json_t *arr, *v;
	size_t i;
	int rc;

	rc = aif_cfg_get_array(c, j, path, "neighbors", false, 0, AIF_MAX_NEIGHBORS,
		       &arr);
	if (rc <= 0 || json_array_size(arr) == 0)
		return rc;
	sw->neighbors = calloc(json_array_size(arr), sizeof(*sw->neighbors));
	if (sw->neighbors == NULL)
		return aif_cfg_fail(c, path, "out of memory");
	aif_cfg_path_key(ap, path, "neighbors");
	json_array_foreach(arr, i, v) {
		aif_cfg_path_idx(ep, ap, i);
		if (parse_neighbor(c, v, ep, sw) < 0)
			return -1;
	}
	return 0;
}

