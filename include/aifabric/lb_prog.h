/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aifabric load-balancing programs: the program's view (version 1).
 *
 * A load-balancing scheme can be a small C function compiled to eBPF:
 *
 *	#include <aifabric/lb_prog.h>
 *
 *	AIF_LB_PROG("my_scheme")
 *	uint64_t my_scheme(const struct aif_lb_prog_ctx *c)
 *	{
 *		return c->up_at[aif_lb_prog_pick(c->hash, c->n_up)];
 *	}
 *
 *	clang -O2 -target bpf -I include -c my_scheme.c -o my_scheme.o
 *
 * aifabric reads the object with libbpf, checks it (below) and compiles
 * it to x86-64 with its own JIT, branches, divisions and helper calls
 * included; it runs once per packet that a route sends to a next-hop
 * group whose scheme is the program, on the worker's core.  The program returns a member offset
 * of the group, 0 .. n_members - 1; an offset out of range or of a member
 * whose link is down is counted (show lb: "fallbacks") and the packet takes
 * the member ECMP gives it.
 *
 * What a program may do (checked at load, where a failure names the
 * section, the instruction and the reason):
 *   - read the context below, within its size; it may not write it;
 *   - call the helpers below by their ids (no other call, no program-to-
 *     program call: mark functions static inline);
 *   - use its 512-byte stack; no maps and no global or static variables
 *     (state belongs in the flow table, constants in #defines);
 *   - branch forwards only (loops must be unrolled: #pragma unroll with a
 *     constant bound); at most AIF_LB_PROG_MAX_INSNS instructions;
 *   - divide only by constants other than 0 or by a value it has tested
 *     against 0 (or by n_members or table_size: never 0; n_up may be);
 *   - keep pointers whole: a pointer stored on the stack is read back as
 *     8 bytes, never in part.
 * The program's section must start with "aifabric/lb" (AIF_LB_PROG does it);
 * an object may hold several, chosen by name at load.
 *
 * Everything is an unsigned integer in host byte order unless said; times
 * in nanoseconds of the switch's clock (virtual time in a virtual-time run).
 * The layout only grows at the end; version says which one a switch fills.
 */
#ifndef AIFABRIC_LB_PROG_H
#define AIFABRIC_LB_PROG_H

#ifdef __bpf__
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
#else
#include <stdint.h>
#endif

#define AIF_LB_PROG_VERSION 1
#define AIF_LB_PROG_MAX_MEMBERS 64  /* members of a next-hop group */
#define AIF_LB_PROG_MAX_INSNS 4096  /* instructions of one program */
#define AIF_LB_PROG_COUNTERS 8      /* counters of a scheme's own */
#define AIF_LB_PROG_TCS 8           /* traffic classes (a port's queues) */
#define AIF_LB_PROG_SECTION "aifabric/lb"

/* One member of the group, as the switch sees it when the packet is
 * processed (queue and load figures are refreshed once per burst). */
struct aif_lb_prog_member {
	uint8_t up;           /* 1: its port's link is up */
	uint8_t band;         /* adaptive quality band 0 (best) .. 7 (worst) */
	uint16_t weight;      /* configured weight (WCMP), >= 1 */
	uint16_t port;        /* egress port index on this switch */
	uint16_t reserved;
	uint32_t queued_bytes; /* bytes queued on its egress port, all queues */
	uint32_t tx_load_mbps; /* transmitted-load EWMA of its port, Mb/s (0 where
				* the adaptive scheme's bands are not kept) */
};

/* The context: read-only, one per packet. */
struct aif_lb_prog_ctx {
	uint32_t version;     /* AIF_LB_PROG_VERSION */
	uint32_t hash;        /* the flow hash (policy hash and hash_fields) */
	uint32_t ecmp_member; /* the member built-in ECMP/WCMP gives the packet
			       * (the group's resilient buckets): the default a
			       * scheme may keep or override */
	uint32_t reserved4;
	/* the packet */
	uint8_t ip_version;   /* 4 or 6 */
	uint8_t l4_proto;     /* IP protocol (17 UDP, 6 TCP) */
	uint8_t tc;           /* traffic class 0..7 */
	uint8_t roce;         /* 1: RoCEv2 (UDP port 4791) with a BTH */
	uint16_t src_port;    /* L4 ports, 0 if none */
	uint16_t dst_port;
	uint32_t src_ip[4];   /* IPv4 in src_ip[0]; IPv6 as four 32-bit words,
			       * most significant first */
	uint32_t dst_ip[4];
	uint32_t dest_qp;     /* BTH destination QP (24 bits), roce only */
	uint32_t psn;         /* BTH PSN (24 bits), roce only */
	uint8_t opcode;       /* BTH opcode, roce only */
	uint8_t reserved0;
	uint16_t in_port;     /* ingress port index */
	uint32_t reserved3;
	uint64_t now_ns;      /* the switch's time for this packet's burst */
	/* the group */
	uint16_t group;       /* next-hop group index on this switch */
	uint16_t reserved1;
	uint32_t n_members;   /* members, 1 .. AIF_LB_PROG_MAX_MEMBERS */
	uint32_t n_up;        /* members that are up; 0: none (then pick any) */
	uint32_t table_size;  /* entries of the flow table, a power of two */
	/* the policy's flowlet knobs, for schemes that follow them */
	uint64_t flowlet_gap_ns;
	uint64_t flowlet_age_ns;
	uint32_t flowlet_table_size;
	uint32_t reserved2;
	uint8_t up_at[AIF_LB_PROG_MAX_MEMBERS]; /* up_at[i], i < n_up: the i-th
						 * member that is up */
	struct aif_lb_prog_member member[AIF_LB_PROG_MAX_MEMBERS];
	/* per member, per traffic class: bytes queued on its egress port's
	 * queue of that class (member[i].queued_bytes is their sum; refreshed
	 * as it is; 0 where the switch keeps no queues) */
	uint32_t tc_queued_bytes[AIF_LB_PROG_MAX_MEMBERS][AIF_LB_PROG_TCS];
};

/* A flow-table entry as aif_lb_table_read copies it. */
struct aif_lb_prog_entry {
	uint64_t last_ns; /* when it was last written or touched; 0: never */
	uint32_t key;     /* what the program stored */
	uint32_t value;
};

/*
 * Helpers, called by id.  The flow table is the scheme's own, per worker
 * (one core's packets), direct-mapped: index is taken modulo table_size.
 *
 *   aif_lb_random()           32 random bits from the worker's seeded source
 *   aif_lb_random_below(n)    uniform in [0, n) from that source (0 if n is 0)
 *   aif_lb_table_read(i, e)   copy entry i to *e (on the program's stack)
 *   aif_lb_table_write(i, k, v)  entry i = {now, k, v}
 *   aif_lb_table_touch(i)     entry i's last_ns = now
 *   aif_lb_counter_add(i, n)  the scheme's counter i (< AIF_LB_PROG_COUNTERS)
 *                             += n: show lb lists them
 *   aif_lb_bucket(hash)       the member the group's resilient bucket table
 *                             gives hash (what built-in ECMP/WCMP pick)
 *   aif_lb_table_entry(i)     entry i itself, to read and write in place
 *                             (never NULL; one call instead of read and
 *                             write; last_ns is then the program's to set,
 *                             from now_ns, and 0 means never)
 */
#define AIF_LB_HELPER_RANDOM 1
#define AIF_LB_HELPER_RANDOM_BELOW 2
#define AIF_LB_HELPER_TABLE_READ 3
#define AIF_LB_HELPER_TABLE_WRITE 4
#define AIF_LB_HELPER_TABLE_TOUCH 5
#define AIF_LB_HELPER_COUNTER_ADD 6
#define AIF_LB_HELPER_BUCKET 7
#define AIF_LB_HELPER_TABLE_ENTRY 8
#define AIF_LB_HELPER_MAX 8

#ifdef __bpf__
static uint64_t (*const aif_lb_random)(void) = (void *)AIF_LB_HELPER_RANDOM;
static uint64_t (*const aif_lb_random_below)(uint64_t n) = (void *)AIF_LB_HELPER_RANDOM_BELOW;
static uint64_t (*const aif_lb_table_read)(uint64_t index, struct aif_lb_prog_entry *e) =
	(void *)AIF_LB_HELPER_TABLE_READ;
static uint64_t (*const aif_lb_table_write)(uint64_t index, uint64_t key, uint64_t value) =
	(void *)AIF_LB_HELPER_TABLE_WRITE;
static uint64_t (*const aif_lb_table_touch)(uint64_t index) = (void *)AIF_LB_HELPER_TABLE_TOUCH;
static uint64_t (*const aif_lb_counter_add)(uint64_t index, uint64_t n) =
	(void *)AIF_LB_HELPER_COUNTER_ADD;
static uint64_t (*const aif_lb_bucket)(uint64_t hash) = (void *)AIF_LB_HELPER_BUCKET;
static struct aif_lb_prog_entry *(*const aif_lb_table_entry)(uint64_t index) =
	(void *)AIF_LB_HELPER_TABLE_ENTRY;

/* Put the function that follows in a load-balancing program section. */
#define AIF_LB_PROG(name) __attribute__((section(AIF_LB_PROG_SECTION "/" name), used))
#endif

/* hash -> [0, n) by multiply-shift, as the built-in schemes map a hash. */
static inline uint32_t
aif_lb_prog_pick(uint32_t hash, uint32_t n)
{
	return (uint32_t)(((uint64_t)hash * n) >> 32);
}

#ifdef __bpf__
/* A member that is up, uniformly at random (any member when none is up), as
 * the built-in schemes draw one; masked so that the check sees it index
 * member[] within bounds. */
static inline uint32_t
aif_lb_random_up(const struct aif_lb_prog_ctx *c)
{
	uint32_t k;

	if (c->n_up != 0)
		k = c->up_at[aif_lb_random_below(c->n_up) & (AIF_LB_PROG_MAX_MEMBERS - 1)];
	else
		k = (uint32_t)aif_lb_random_below(c->n_members);
	return k & (AIF_LB_PROG_MAX_MEMBERS - 1);
}

/* Flow-table lookup with aging: 1 and *value if entry index holds key and
 * was written or touched less than age_ns ago, else 0. */
static inline int
aif_lb_flow_get(const struct aif_lb_prog_ctx *c, uint32_t index, uint32_t key,
		uint64_t age_ns, uint32_t *value)
{
	struct aif_lb_prog_entry e;

	aif_lb_table_read(index, &e);
	if (e.last_ns == 0 || e.key != key || c->now_ns - e.last_ns >= age_ns)
		return 0;
	*value = e.value;
	return 1;
}
#endif

#endif /* AIFABRIC_LB_PROG_H */
