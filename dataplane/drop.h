/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop reasons, declared once.  The enum, the names shown by `aifabricctl
 * show counters` and the JSON keys of the stats file all come from this list.
 */
#ifndef AIF_DROP_H
#define AIF_DROP_H

#define AIF_FOREACH_DROP(_)                                                    \
	_(TRUNCATED, "truncated")          /* shorter than its headers say */  \
	_(MALFORMED, "malformed")          /* bad version, IHL, length, csum */\
	_(UNSUPPORTED, "unsupported")      /* EtherType or VLAN stack we do not route */ \
	_(NOT_FOR_US, "l2_not_for_us")     /* unicast to another MAC */        \
	_(VLAN_MISMATCH, "vlan_mismatch")  /* tagged with a VID the port does not take */ \
	_(TTL_EXPIRED, "ttl_expired")      /* TTL/hop limit <= 1 */            \
	_(NO_ROUTE, "no_route")            /* no LPM match */                   \
	_(NEIGH_UNRESOLVED, "neighbor_unresolved") /* next hop MAC unknown */  \
	_(TO_SWITCH, "to_switch")          /* addressed to the switch, not answered */ \
	_(MTU_EXCEEDED, "mtu_exceeded")    /* larger than the egress MTU, or chained and over the ingress MTU */ \
	_(MBUF_TOO_SMALL, "mbuf_too_small") /* no room: chained frame not gathered, no headroom for a tag */ \
	_(MAC_CTRL, "mac_control")         /* PAUSE/PFC consumed, never forwarded */ \
	_(PORT_DOWN, "port_down")          /* egress port link down */          \
	_(BUFFER_LIMIT, "buffer_shared_limit") /* lossy PG over its shared threshold */ \
	_(LOSSLESS_VIOLATION, "lossless_headroom_overflow") /* lossless PG: headroom full */ \
	_(EGRESS_LIMIT, "egress_queue_limit") /* lossy egress queue over its limit */ \
	_(POOL_FULL, "buffer_pool_full")   /* no room left in the shared buffer */ \
	_(WRED, "wred")                    /* Not-ECT on a congested lossy queue */ \
	_(PFCWD, "pfc_watchdog")           /* dropped by the PFC storm watchdog */ \
	_(TX_FULL, "tx_full")              /* the NIC refused it */           \
	_(BYPASS_FULL, "bypass_queue_full") /* a class outside the buffer (mmu_bypass): its queue over bypass_limit_bytes */

/*
 * A stage's verdict on a packet: AIF_DROP_NONE (0, it goes on) or the
 * reason it is dropped, AIF_DROP_FIRST..AIF_DROP_MAX - 1.  Counter arrays
 * are indexed by reason (slot 0 stays zero).
 */
enum aif_drop_reason {
	AIF_DROP_NONE = 0,
#define AIF_DROP_ENUM(id, name) AIF_DROP_##id,
	AIF_FOREACH_DROP(AIF_DROP_ENUM)
#undef AIF_DROP_ENUM
	AIF_DROP_MAX
};
#define AIF_DROP_FIRST (AIF_DROP_NONE + 1)

/* Name of a drop reason, as in counters output. */
const char *aif_drop_name(enum aif_drop_reason r);

#endif /* AIF_DROP_H */
