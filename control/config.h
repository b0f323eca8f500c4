/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology and policy file: the params, as the user wrote them.
 *
 * aif_config_parse() turns the JSON text into a struct aif_config, checking
 * every field; the first bad field is reported with its JSON path and the
 * reason, e.g. "$.switches[0].ports[1].mac: invalid MAC address 'zz'".
 * Nothing here touches DPDK: control/compile.c turns a validated config into
 * the immutable tables the workers read.
 *
 * The file describes a fabric (switches, links, hosts, policies) even where
 * the daemon runs a single switch.  See README.md "Configuration".
 */
#ifndef AIF_CONFIG_H
#define AIF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../dataplane/capacity.h"
#include "../dataplane/neigh.h"
#include "../dataplane/params.h"
#include "../dataplane/types.h"

struct aif_policy_params {
	char name[AIF_NAME_MAX];
	uint8_t trust;             /* enum aif_trust, default DSCP */
	uint8_t dscp_to_tc[64];    /* default: 26->3, 48->6, others 0 */
	uint8_t pcp_to_tc[8];      /* default: identity */
	struct aif_lb_params lb;
	struct aif_qos_params qos;
};

/* A next hop: a neighbour IP reached through a port. */
struct aif_nexthop_params {
	struct aif_ip ip;
	uint16_t port;   /* index into the switch's ports */
	uint32_t weight; /* default 1 (used by weighted schemes) */
};

struct aif_group_params {
	char name[AIF_NAME_MAX];
	uint16_t n_members;
	struct aif_nexthop_params members[AIF_MAX_MEMBERS];
	uint64_t withdrawn; /* bit k: members[k] left out, its next switch
			     * cannot reach the routes' prefix (a route's copy
			     * of a group, withdraw.h); 0 as parsed */
};

enum aif_route_kind { AIF_ROUTE_GROUP = 0, AIF_ROUTE_DROP = 1 };

struct aif_route_params {
	struct aif_prefix prefix; /* normalised: host bits zero */
	uint8_t kind;             /* enum aif_route_kind */
	uint16_t group;           /* index into groups, for AIF_ROUTE_GROUP */
};

struct aif_neighbor_params {
	struct aif_ip ip;
	struct aif_mac mac;   /* zero when learned */
	uint16_t port;
	bool learned;         /* a host whose MAC the switch learns (ARP/ND) */
};

struct aif_switch_params {
	char name[AIF_NAME_MAX];
	uint32_t seed;      /* per-switch hash seed; default derived from name */
	uint32_t ecmp_seed; /* "ecmp_seed": hash murmur3_ns3's seed (ns-3 node id);
			     * default seed */
	bool seed_set;
	bool proxy_arp;     /* answer ARP/NS for routed destinations too */
	struct aif_neigh_params neigh; /* "neighbor_learning" */
	uint16_t policy;    /* index into aif_config.policies */
	uint16_t n_ports;
	struct aif_port_params *ports;
	uint32_t n_groups;
	struct aif_group_params *groups;
	uint32_t n_routes;
	struct aif_route_params *routes;
	uint32_t n_neighbors;
	struct aif_neighbor_params *neighbors; /* static, incl. those from "hosts";
						* and hosts without a MAC (learned) */
};

struct aif_topo_link {
	uint16_t a_switch, a_port, b_switch, b_port;
	uint64_t rate_bps;   /* 0: port speed */
	uint64_t delay_ns;
	double loss_rate;    /* 0..1: frames lost on the way */
	double corrupt_rate; /* 0..1: frames with a payload bit flipped */
	bool down;           /* "up": false: the link starts down */
	uint8_t wire_model;  /* "wire_model": enum aif_wire_model, default the
			      * file's */
};

struct aif_host_params {
	char name[AIF_NAME_MAX];
	uint16_t sw, port;
	struct aif_ip ip;
	struct aif_mac mac;   /* zero when learned */
	bool learned;         /* no "mac": a real host on a device port, its MAC
			       * learned from its ARP/ND */
};

/*
 * A parsed config is immutable once aif_config_parse() returns it, so
 * holders share it by reference: tables compiled from it (t->cfg) and a
 * rebuild of those tables for a link change hold one each.  Control thread
 * only; the count is atomic all the same, as it costs nothing here.
 */
/* A load-balancing program the config declares ("lb_programs"). */
struct aif_lb_prog_spec {
	char name[64];          /* the key: "scheme": "bpf:<name>" */
	char object[4096];      /* "object": the eBPF object file */
	char program[64];       /* "program": which of its programs ("": its only one) */
	uint32_t table_size;    /* "table_size": flow-table entries (0: default) */
};

struct aif_config {
	uint32_t refs;                      /* aif_config_ref / aif_config_free */
	uint8_t n_lb_programs;
	struct aif_lb_prog_spec *lb_programs; /* [n_lb_programs] */
	uint16_t n_policies;
	struct aif_policy_params *policies; /* [0] is "default" when none is named */
	uint16_t n_switches;
	struct aif_switch_params *switches;
	uint32_t n_links;
	struct aif_topo_link *links;
	uint8_t wire_model;                 /* "wire_model": enum aif_wire_model
					     * (dataplane/wire.h): every link's
					     * default and what the switches'
					     * buffers charge */
	uint32_t n_hosts;
	struct aif_host_params *hosts;
	/* a generated fabric: the "topology" object it came from (JSON text,
	 * malloc'd), so that control can generate it again with other links
	 * down; NULL otherwise */
	char *topology;
	bool topology_split;     /* only part of it runs here ("emulate"): the
				  * routes stay the whole fabric's */
	char *topology_policies; /* and the "policies" beside it (NULL: none) */
	char *topology_lb_programs; /* and the "lb_programs" (NULL: none) */
};

/* A name as the config takes them: 1..AIF_NAME_MAX - 1 characters of
 * A-Z a-z 0-9 _ . - (policies, switches, ports, groups, programs). */
bool aif_name_valid(const char *s);

/*
 * Parse and validate a config from JSON text.  On success returns 0 and
 * *out (free with aif_config_free).  On failure returns -1, *out is NULL
 * and err holds "<json path>: <reason>".
 */
int aif_config_parse(const char *text, size_t len, struct aif_config **out,
		     char *err, size_t err_len);

/* A file's text (malloc'd, NUL-terminated, *len bytes); NULL with err naming
 * the file on I/O errors. */
char *aif_config_read_file(const char *path, size_t *len, char *err, size_t err_len);

/*
 * The text of the file called name in directory dir (malloc'd,
 * NUL-terminated, *len bytes), for a load by name from a client: name is
 * one path component; the file is opened relative to dir with O_NOFOLLOW
 * (no symbolic link), O_NONBLOCK (a FIFO or device cannot hold the caller)
 * and must be a regular file of at most max_bytes.  NULL with err naming
 * the file and saying why; err never quotes the file's content.
 */
char *aif_config_read_at(const char *dir, const char *name, size_t max_bytes,
			 size_t *len, char *err, size_t err_len);

/* Same as aif_config_parse(), from a file; err names the file on I/O errors. */
int aif_config_load_file(const char *path, struct aif_config **out, char *err,
			 size_t err_len);

/* Another reference to cfg (returned); each is dropped with aif_config_free. */
struct aif_config *aif_config_ref(struct aif_config *cfg);

/* Drop a reference; the last one frees the config.  NULL is fine. */
void aif_config_free(struct aif_config *cfg);

/* Default policy values (used for omitted fields). */
void aif_policy_defaults(struct aif_policy_params *p);

/* Index of a switch / port by name, or -1. */
int aif_config_switch_find(const struct aif_config *cfg, const char *name);
int aif_config_port_find(const struct aif_switch_params *sw, const char *name);

/* Hash-field names <-> AIF_HF_* bits. */
const char *aif_hash_field_name(uint32_t bit);

/*
 * Rules a config entry keeps against the rest of its switch (config_check.c):
 * a neighbour, host, next hop or route against the switch's own addresses
 * and connected subnets, a route against the next hops it names.  The
 * reader (config.c) calls them where it reads the entry and reports the
 * reason at the entry's JSON path; each returns 0, or -1 with the reason in
 * why (no path).
 *
 *	if (aif_config_check_route_prefix(sw, &r->prefix, why, sizeof(why)) < 0)
 *		return fail(c, path, "%s", why);
 */

/* The port of sw that has ip as one of its addresses, or -1. */
int aif_config_addr_port(const struct aif_switch_params *sw, const struct aif_ip *ip);

/* A neighbour, host or next hop at ip: not an address of the switch
 * itself (what would answer for it, the switch or the neighbour?). */
int aif_config_check_not_own(const struct aif_switch_params *sw, const struct aif_ip *ip,
			     const char *what, char *why, size_t why_len);

/*
 * A route's prefix (host bits clear) must not take the place of an entry
 * the switch makes itself: one of its addresses (/32, /128: the local
 * entry wins and the route is never used), a connected subnet, or a part
 * of one (longest match would take those hosts from the subnet).
 */
int aif_config_check_route_prefix(const struct aif_switch_params *sw,
				  const struct aif_prefix *pf, char *why, size_t why_len);

/* A route to a group: every member's next hop of the route's family. */
int aif_config_check_route_family(const struct aif_switch_params *sw,
				  const struct aif_route_params *r, char *why, size_t why_len);

#endif /* AIF_CONFIG_H */
