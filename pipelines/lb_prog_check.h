/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The load-time check of a load-balancing program: what decides whether a
 * program may run on a worker's core.  Nothing runs after it but the
 * compilation (lb_prog_jit.h), which takes every accepted instruction as
 * it is: memory safety rests on this check alone.
 *
 * Two passes over the instructions:
 *
 *   shape     every instruction, reachable or not: an opcode on the list
 *             below, registers r0..r10 (r10 never written), the fields an
 *             opcode does not use zero, immediates the x86-64 JIT encodes
 *             as the interpreter runs them (shifts 0..63, or 0..31 in 32
 *             bits; byte swaps 16, 32 or 64; no division by the constant
 *             0), jumps forward to an instruction inside the program that
 *             is not the second half of a 64-bit load, helper ids
 *             1..AIF_LB_HELPER_MAX, no map, global or program-to-program
 *             reference, no legacy packet load, no 32-bit jump class.
 *   dataflow  one pass in order (jumps only go forward, so every
 *             predecessor of an instruction is seen before it), states
 *             merged where paths join.  Per register: not set, a number
 *             (its unsigned range), or a pointer into the context, the
 *             stack or a flow-table entry (the offset's signed range).
 *             Per 8-byte stack slot: which bytes were written, and a whole
 *             register kept there (a spill: its kind and range come back
 *             when it is read back whole).
 *
 * What a checked program can do, whatever its instructions:
 *   - read the context (read-only) within its size, its own 512-byte stack
 *     only where it wrote before, and the 16 bytes of a flow-table entry a
 *     helper handed it (read and write);
 *   - move pointers only by adding or subtracting a bounded number; keep
 *     them whole, and only in registers and on its stack (never stored
 *     elsewhere, passed where a number is expected, returned, compared
 *     with a number, or cut to 32 bits);
 *   - pass aif_lb_table_read a 16-byte buffer on its stack;
 *   - divide only by a value known non-zero on every path.
 * Ranges come from constants, masks, shifts, comparisons, the helpers'
 * results (aif_lb_random_below(n) < n) and these context fields: version
 * >= 1, tc <= 7, 1 <= n_members <= AIF_LB_PROG_MAX_MEMBERS, n_up <=
 * AIF_LB_PROG_MAX_MEMBERS, 1 <= table_size <= 2^24 (aif_lb_prog_ctx_group
 * fills them so).
 *
 * le16 and le32, whose high bits eBPF implementations disagree on (DPDK's
 * interpreter keeps them, its JIT and Linux clear them), are refused; le64
 * is nothing on x86.
 */
#ifndef AIF_LB_PROG_CHECK_H
#define AIF_LB_PROG_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* Parts of the context a program reads (found at load): only those are
 * filled per packet (hash and now_ns always). */
#define AIF_LB_CTX_L4 (1u << 0)    /* ip_version .. dst_port */
#define AIF_LB_CTX_ADDR (1u << 1)  /* src_ip, dst_ip */
#define AIF_LB_CTX_ROCE (1u << 2)  /* dest_qp .. in_port */
#define AIF_LB_CTX_GROUP (1u << 3) /* group .. member[] (once per burst and group) */
#define AIF_LB_CTX_ECMP (1u << 4)  /* ecmp_member */
#define AIF_LB_CTX_ALL 0x1Fu

/* What the check found of a program it accepted. */
struct aif_lb_prog_check {
	uint32_t ctx_uses; /* AIF_LB_CTX_* parts of the context it reads */
};

/*
 * Check the n eBPF instructions at insns (8 bytes each, as in the object;
 * helper calls still by their ids).  0 and *out filled if the program may
 * run; -1 with "section SEC: instruction I: reason" in err otherwise.
 *
 *	struct aif_lb_prog_check c;
 *	if (aif_lb_prog_check_insns(v, n, "aifabric/lb/x", &c, err, sizeof(err)) != 0)
 *		refuse(err);
 */
int aif_lb_prog_check_insns(const uint64_t *insns, uint32_t n, const char *sec,
			    struct aif_lb_prog_check *out, char *err, size_t err_len);

#endif /* AIF_LB_PROG_CHECK_H */
