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

#include "../dataplane/neigh.h"
#include "../dataplane/types.h"

#define AIF_MAX_SWITCHES 256
#define AIF_MAX_PORTS 64          /* per switch */
#define AIF_MAX_PORT_ADDRS 8      /* per port, v4 and v6 together */
#define AIF_MAX_GROUPS 1024       /* next-hop groups per switch */
#define AIF_MAX_MEMBERS 64        /* members per next-hop group */
#define AIF_MAX_ROUTES 65536      /* per switch */
#define AIF_MAX_NEIGHBORS 4096    /* neighbour slots per switch */
#define AIF_MAX_POLICIES 64
#define AIF_FLOWLET_TABLE_MAX 65536 /* = AIF_FLOWLET_MAX (pipelines/lb.h) */
#define AIF_DEV_NAME_MAX 64
#define AIF_ERR_MAX 256

/* Fields the ECMP hash may cover (policy load_balancing.hash_fields). */
#define AIF_HF_SRC_IP (1u << 0)     /* "src_ip" */
#define AIF_HF_DST_IP (1u << 1)     /* "dst_ip" */
#define AIF_HF_PROTO (1u << 2)      /* "proto" */
#define AIF_HF_SRC_PORT (1u << 3)   /* "src_port" (RoCE entropy) */
#define AIF_HF_DST_PORT (1u << 4)   /* "dst_port" */
#define AIF_HF_FLOW_LABEL (1u << 5) /* "flow_label" (IPv6) */
#define AIF_HF_DEST_QP (1u << 6)    /* "dest_qp" (RoCE BTH) */
#define AIF_HF_DEFAULT (AIF_HF_SRC_IP | AIF_HF_DST_IP | AIF_HF_PROTO | \
			AIF_HF_SRC_PORT | AIF_HF_DST_PORT)

enum aif_trust { AIF_TRUST_DSCP = 0, AIF_TRUST_PCP = 1 };
/* Load-balancing schemes ("scheme"), in the order of aif_lb_schemes (lb.c). */
enum aif_lb_scheme {
	AIF_LB_ECMP = 0,     /* "ecmp": flow hash over a resilient bucket table */
	AIF_LB_WCMP = 1,     /* "wcmp": the same, buckets in proportion to weights */
	AIF_LB_FLOWLET = 2,  /* "flowlet": LetFlow / least-loaded per flowlet */
	AIF_LB_SPRAY = 3,    /* "spray": per packet, round robin / random / DRILL */
	AIF_LB_ADAPTIVE = 4, /* "adaptive": quality bands (DLB / Spectrum-X-like) */
	AIF_LB_N_SCHEMES
};
enum aif_flowlet_mode { AIF_FLOWLET_RANDOM = 0, AIF_FLOWLET_LEAST_LOADED = 1 };
enum aif_spray_mode { AIF_SPRAY_RR = 0, AIF_SPRAY_RANDOM = 1, AIF_SPRAY_DRILL = 2 };
enum aif_adaptive_mode { AIF_ADAPTIVE_PACKET = 0, AIF_ADAPTIVE_FLOWLET = 1 };
enum aif_hash_alg { AIF_HASH_CRC32C = 0, AIF_HASH_TOEPLITZ = 1 }; /* "crc32c", "toeplitz" */

struct aif_lb_params {
	uint8_t scheme;       /* enum aif_lb_scheme, default ECMP */
	uint8_t hash_alg;     /* enum aif_hash_alg, default CRC32C */
	uint32_t hash_fields; /* AIF_HF_* mask, default AIF_HF_DEFAULT */
	uint8_t scheme_by_tc[8]; /* "per_tc": {"3": "spray"}; default: scheme */
	uint8_t tc_scheme_set;   /* bit tc: scheme_by_tc[tc] was given */
	/* "flowlet" */
	aif_time_ns flowlet_gap_ns;   /* "gap_us", default 100 us */
	aif_time_ns flowlet_age_ns;   /* "aging_us", default 2 ms */
	uint32_t flowlet_table_size;  /* "table_size", power of two, default 4096 */
	uint8_t flowlet_mode;         /* "mode": "random" (LetFlow) | "least_loaded" */
	/* "spray" */
	uint8_t spray_mode;           /* "mode": "round_robin" | "random" | "drill" */
	uint8_t drill_samples;        /* "samples": d, default 2 */
	/* "adaptive" */
	aif_time_ns adaptive_period_ns; /* "period_ns", default 1000 */
	uint8_t adaptive_mode;        /* "mode": "packet" | "flowlet" */
	uint8_t adaptive_ewma_shift;  /* "ewma_shift": load EWMA gain 2^-shift, default 3 */
	uint16_t buckets_per_member;  /* "buckets_per_member": resilient table, default 64 */
};

/*
 * Lossless QoS of a policy (the "qos" object; SONiC names in comments).
 * Defaults (aif_policy_defaults): enabled; TC -> queue and TC -> PG identity;
 * PFC on priority 3; queue 6 strict priority (CNP), the others DWRR weight 1;
 * HPCC buffer model, 12 MiB, reserve 4096 B per PG, dynamic_th -3 (alpha
 * 1/8), resume offset 3072 B, headroom derived from port speed and a 1 us
 * cable; ECN on queue 3 with Kmin 100 KB, Kmax 400 KB, Pmax 0.2 marked at
 * dequeue; PFC quanta 0xFFFF; watchdog 200 ms / 200 ms / drop; no trimming
 * (when on: 128-byte frames, DSCP 11, queue 7).
 */
enum aif_qos_mark_point { AIF_QOS_MARK_DEQUEUE = 0, AIF_QOS_MARK_ENQUEUE = 1 };
enum aif_qos_ecn_mode { AIF_QOS_ECN_ON = 0, AIF_QOS_ECN_WRED = 1, AIF_QOS_ECN_OFF = 2 };
enum aif_qos_buffer_model { AIF_QOS_BUF_HPCC = 0, AIF_QOS_BUF_BROADCOM = 1 };
enum aif_qos_wd_action { AIF_QOS_WD_DROP = 0, AIF_QOS_WD_FORWARD = 1, AIF_QOS_WD_ALERT = 2 };

struct aif_qos_params {
	bool enable;                /* "enable" */
	uint8_t tc_to_queue[8];     /* "tc_to_queue_map" (PORT_QOS_MAP) */
	uint8_t tc_to_pg[8];        /* "tc_to_pg_map" */
	uint8_t pfc_enable;         /* "pfc_enable": [3, 4]: bit per priority = PG */
	/* "scheduler" */
	uint8_t strict_queues;      /* "strict": [6]: bit per queue */
	uint32_t weight[8];         /* "weights": {"0": 1, ...}, DWRR, 1..65535 */
	/* "buffer" (BUFFER_POOL / BUFFER_PROFILE) */
	uint8_t buffer_model;       /* "model": "hpcc" | "broadcom" */
	uint64_t buffer_bytes;      /* "size_bytes" */
	uint32_t reserve_bytes;     /* "reserve_bytes", per PG */
	int8_t dynamic_th;          /* "dynamic_th": alpha = 2^dynamic_th, -16..3 */
	uint32_t resume_offset_bytes; /* "resume_offset_bytes" (XON hysteresis) */
	uint32_t headroom_bytes;    /* "headroom_bytes" per lossless PG; 0: derived */
	uint32_t cable_delay_ns;    /* "cable_delay_ns": for derived headroom */
	/* "ecn" (WRED_PROFILE) */
	uint8_t ecn_queues;         /* "queues": [3]: bit per queue using the profile */
	uint8_t ecn_mode;           /* "mode": "ecn" | "wred" | "off" */
	uint8_t ecn_mark_point;     /* "mark": "dequeue" | "enqueue" */
	uint32_t kmin_bytes;        /* "kmin_bytes" (green_min_threshold) */
	uint32_t kmax_bytes;        /* "kmax_bytes" (green_max_threshold) */
	double pmax;                /* "pmax" 0..1 (green_drop_probability / 100) */
	/* "trimming" (Ultra Ethernet packet trimming, SAI PACKET_DISCARD_ACTION TRIM) */
	uint8_t trim_queues;        /* "queues": [0]: lossy queues whose overflow is
				     * trimmed instead of dropped; default none */
	uint16_t trim_size_bytes;   /* "size_bytes": frame bytes kept, 64..1500, default 128 */
	uint8_t trim_dscp;          /* "dscp": DSCP of trimmed packets, default 11 */
	uint8_t trim_queue;         /* "queue": where trimmed packets go, default 7 */
	/* "pfc" */
	uint16_t pfc_quanta;        /* "quanta", 1..65535 */
	aif_time_ns wd_detection_ns;   /* "watchdog": {"detection_ms"} */
	aif_time_ns wd_restoration_ns; /* {"restoration_ms"} */
	uint8_t wd_action;          /* {"action": "drop" | "forward" | "alert"} */
};

struct aif_policy_params {
	char name[AIF_NAME_MAX];
	uint8_t trust;             /* enum aif_trust, default DSCP */
	uint8_t dscp_to_tc[64];    /* default: 26->3, 48->6, others 0 */
	uint8_t pcp_to_tc[8];      /* default: identity */
	struct aif_lb_params lb;
	struct aif_qos_params qos;
};

/* Who sends PFC for a port's lossless priorities (port "pfc_mode"). */
enum aif_pfc_mode {
	AIF_PFC_MODE_SOFTWARE = 0, /* "software": the switch builds the frames */
	AIF_PFC_MODE_HARDWARE = 1, /* "hardware": the NIC, via rte_eth_dev_priority_flow_ctrl_set */
};

struct aif_port_params {
	char name[AIF_NAME_MAX];
	char device[AIF_DEV_NAME_MAX]; /* EAL device name: "net_pcap0", "0000:03:00.0" */
	struct aif_mac mac;            /* default: the device's own MAC */
	bool mac_set;
	uint32_t speed_mbps;           /* 0: as the device reports */
	uint16_t mtu;                  /* IP MTU, default 1500 */
	bool vlan_set;                 /* "vlan" given: the port is tagged */
	uint16_t vlan;                 /* "vlan": VID 0..4094 (0: priority tag) */
	uint64_t shaper_bps;           /* "shaper_gbps": egress rate limit, 0 = none */
	uint8_t pfc_mode;              /* "pfc_mode": enum aif_pfc_mode, default software */
	uint16_t n_addrs;
	struct aif_prefix addrs[AIF_MAX_PORT_ADDRS]; /* interface addresses with subnet */
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
};

enum aif_route_kind { AIF_ROUTE_GROUP = 0, AIF_ROUTE_DROP = 1 };

struct aif_route_params {
	struct aif_prefix prefix; /* normalised: host bits zero */
	uint8_t kind;             /* enum aif_route_kind */
	uint16_t group;           /* index into groups, for AIF_ROUTE_GROUP */
};

struct aif_neighbor_params {
	struct aif_ip ip;
	struct aif_mac mac;
	uint16_t port;
};

struct aif_switch_params {
	char name[AIF_NAME_MAX];
	uint32_t seed;      /* per-switch hash seed; default derived from name */
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
	struct aif_neighbor_params *neighbors; /* static, incl. those from "hosts" */
};

struct aif_link_params {
	uint16_t a_switch, a_port, b_switch, b_port;
	uint64_t rate_bps;   /* 0: port speed */
	uint64_t delay_ns;
};

struct aif_host_params {
	char name[AIF_NAME_MAX];
	uint16_t sw, port;
	struct aif_ip ip;
	struct aif_mac mac;
};

/*
 * A parsed config is immutable once aif_config_parse() returns it, so
 * holders share it by reference: tables compiled from it (t->cfg) and a
 * rebuild of those tables for a link change hold one each.  Control thread
 * only; the count is atomic all the same, as it costs nothing here.
 */
struct aif_config {
	uint32_t refs;                      /* aif_config_ref / aif_config_free */
	uint16_t n_policies;
	struct aif_policy_params *policies; /* [0] is "default" when none is named */
	uint16_t n_switches;
	struct aif_switch_params *switches;
	uint32_t n_links;
	struct aif_link_params *links;
	uint32_t n_hosts;
	struct aif_host_params *hosts;
};

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

#endif /* AIF_CONFIG_H */
