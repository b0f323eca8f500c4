/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parameter types of the dataplane: what the user wrote for a policy's load
 * balancing and lossless QoS and for a port, as control's config reader
 * (control/config.c) fills them and the dataplane's config-init functions
 * (aif_qos_compile, the load-balancing schemes) read them.  Defaults:
 * aif_policy_defaults (control/config.c).
 */
#ifndef AIF_PARAMS_H
#define AIF_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "capacity.h"
#include "types.h"

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
	AIF_LB_PROG = 5,     /* "bpf:NAME": a load-balancing program (lb_prog.h) */
	AIF_LB_N_SCHEMES
};
enum aif_flowlet_mode { AIF_FLOWLET_RANDOM = 0, AIF_FLOWLET_LEAST_LOADED = 1 };
enum aif_spray_mode { AIF_SPRAY_RR = 0, AIF_SPRAY_RANDOM = 1, AIF_SPRAY_DRILL = 2 };
enum aif_adaptive_mode { AIF_ADAPTIVE_PACKET = 0, AIF_ADAPTIVE_FLOWLET = 1 };
/* "crc32c", "toeplitz", "murmur3_ns3" (ConWeave's ns-3 EcmpHash: see flow_hash.h) */
enum aif_hash_alg { AIF_HASH_CRC32C = 0, AIF_HASH_TOEPLITZ = 1, AIF_HASH_MURMUR3_NS3 = 2 };
enum aif_drill_memory { AIF_DRILL_MEM_DESTINATION = 0, AIF_DRILL_MEM_GROUP = 1 };
enum aif_lb_queue_read { AIF_LB_QREAD_PACKET = 0, AIF_LB_QREAD_STEP = 1 };
/* flowlet "table": "direct" (direct-mapped, colliding flows share a
 * flowlet) or "exact" (one entry per flow, ns-3's LetFlow map) */
enum aif_flowlet_table { AIF_FLOWLET_TABLE_DIRECT = 0, AIF_FLOWLET_TABLE_EXACT = 1 };

struct aif_lb_params {
	uint8_t scheme;       /* enum aif_lb_scheme, default ECMP */
	uint8_t hash_alg;     /* enum aif_hash_alg, default CRC32C */
	uint32_t hash_fields; /* AIF_HF_* mask, default AIF_HF_DEFAULT */
	uint8_t scheme_by_tc[8]; /* "per_tc": {"3": "spray"}; default: scheme */
	uint8_t tc_scheme_set;   /* bit tc: scheme_by_tc[tc] was given */
	uint8_t prog;            /* scheme "bpf:NAME": index of NAME in the
				  * config's lb_programs */
	uint8_t prog_by_tc[8];   /* the same per traffic class */
	/* "flowlet" */
	aif_time_ns flowlet_gap_ns;   /* "gap_us", default 100 us */
	aif_time_ns flowlet_age_ns;   /* "aging_us", default 2 ms */
	uint32_t flowlet_table_size;  /* "table_size", power of two, default 4096 */
	uint8_t flowlet_mode;         /* "mode": "random" (LetFlow) | "least_loaded" */
	/* "spray" */
	uint8_t spray_mode;           /* "mode": "round_robin" | "random" | "drill" */
	uint8_t drill_samples;        /* "samples": d, default 2 */
	bool drill_distinct;          /* "distinct": samples without replacement
				       * (ns-3 random_shuffle), default true */
	uint8_t drill_memory;         /* "memory": "destination" (ns-3, per dst IP)
				       * | "group"; default destination */
	uint8_t queue_read;           /* "queue_read": "packet" (the port's bytes
				       * at each packet, ns-3) | "step"; DRILL and
				       * least_loaded; default packet */
	bool flowlet_gap_le;          /* flowlet "gap_test": "le" (idle <= gap
				       * keeps the path, ns-3) | "lt"; default le */
	uint8_t flowlet_table;        /* flowlet "table": enum aif_flowlet_table,
				       * default exact (ns-3's per-flow map) */
	uint8_t control_tcs;          /* "control_tc": [6]: bit per traffic class
				       * routed by ECMP whatever the scheme, unless
				       * per_tc names it (ns-3 routes ACK/NAK/CNP
				       * by flow hash) */
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
enum aif_qos_buffer_model { AIF_QOS_BUF_HPCC = 0, AIF_QOS_BUF_BROADCOM = 1,
			    AIF_QOS_BUF_CONWEAVE = 2 };
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
	bool headroom_slot0_quirk;  /* "headroom_slot0_quirk" (conweave model) */
	uint32_t ecn_qmin_bytes;    /* "qmin_bytes": subtracted from the queue's
				     * bytes before Kmin/Kmax (ns-3 1,049) */
	uint8_t mmu_bypass;         /* "mmu_bypass": [6]: bit per traffic class
				     * kept outside the buffer (never charged,
				     * paused, marked or dropped by it; ns-3's
				     * ACK/NAK queue 0); default TC 6 unless its
				     * PG is lossless */
	uint32_t bypass_limit_bytes; /* buffer "bypass_limit_bytes": a bypass
				     * class's queue per port holds at most this
				     * much; beyond, drop bypass_queue_full */
	/* "pfc" */
	uint16_t pfc_quanta;        /* "quanta", 1..65535 */
	uint8_t pfc_mode;           /* "mode": "standard" | "ns3" (aif_pfc_tx_mode) */
	aif_time_ns pfc_pause_ns;   /* "pause_us" (ns3 mode), default 5 us */
	aif_time_ns wd_detection_ns;   /* "watchdog": {"detection_ms"} */
	aif_time_ns wd_restoration_ns; /* {"restoration_ms"} */
	uint8_t wd_action;          /* {"action": "drop" | "forward" | "alert"} */
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
	uint32_t shaper_burst_bytes;   /* "shaper_burst_bytes": bucket depth; 0: one
					* frame plus AIF_QOS_SHAPER_SLACK_NS at the rate */
	uint8_t pfc_mode;              /* "pfc_mode": enum aif_pfc_mode, default software */
	uint32_t cable_delay_ns;       /* "cable_delay_ns": the port's cable, one way, for
					* its PFC headroom where longer than the policy's;
					* 0: the policy's */
	uint16_t n_addrs;
	struct aif_prefix addrs[AIF_MAX_PORT_ADDRS]; /* interface addresses with subnet */
	uint32_t bfd_interval_us;      /* "bfd": {"interval_ms"}: a BFD session with the
					* port's peer (bfd.h); 0: none */
	uint8_t bfd_mult;              /* {"multiplier"} */
	uint8_t bfd_addr;              /* its own address: addrs[bfd_addr] */
	uint32_t bfd_neighbor;         /* its peer: the switch's neighbors[bfd_neighbor] */
};

#endif /* AIF_PARAMS_H */
