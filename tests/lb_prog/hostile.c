/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Programs that tried to escape the sandbox (test_lb_prog.c): each must be
 * refused at load, with its instruction and reason.  Written in eBPF
 * assembly, as an attacker would.
 */
#include <aifabric/lb_prog.h>

#define HOSTILE(name, body)                                                  \
	AIF_LB_PROG(#name)                                                   \
	uint64_t name(const struct aif_lb_prog_ctx *c)                       \
	{                                                                    \
		uint64_t r;                                                  \
		(void)c;                                                     \
		asm volatile(body "%0 = r0\n\t" : "=r"(r) :: "r0", "r1", "r2", "r3", \
			     "r4", "r5", "memory");                          \
		return r;                                                    \
	}

/* a shift immediate the JIT emits in 4 bytes after a 1-byte-immediate
 * opcode: the other three run as native code (mov al, 2 / ud2) */
HOSTILE(inj_rsh, "r0 = 0\n\t r0 >>= 0x9002b001\n\t")
HOSTILE(inj_ud2, "r0 = 0\n\t r0 <<= 0x900b0f01\n\t")
HOSTILE(inj_alu32, "w0 = 0\n\t w0 >>= 0x9002b001\n\t")
HOSTILE(inj_arsh, "r0 = 0\n\t r0 s>>= 0x9002b001\n\t")

/* pointer arithmetic rte_bpf's validator takes for scalar arithmetic */
HOSTILE(ptr_add_ptr, "r1 = 0\n\t call 8\n\t r2 = r0\n\t r0 += r2\n\t r0 = *(u64 *)(r0 + 0)\n\t")
HOSTILE(ptr_sub_ptr, "r1 = 0\n\t call 8\n\t r2 = r0\n\t r2 -= r10\n\t r3 = r10\n\t"
		     "r3 += r2\n\t r0 = *(u64 *)(r3 - 8)\n\t")
HOSTILE(ptr_mul, "r1 = 0\n\t call 8\n\t r0 *= 3\n\t r0 = *(u64 *)(r0 + 0)\n\t")
HOSTILE(ptr_lsh, "r1 = 0\n\t call 8\n\t r0 <<= 1\n\t r0 = *(u64 *)(r0 + 0)\n\t")
HOSTILE(ptr_mov32, "r1 = 0\n\t call 8\n\t w0 = w0\n\t r0 = *(u64 *)(r0 + 0)\n\t")

/* the 8 bytes before the flow table (a heap chunk header), read out
 * through a counter; 8 bytes past the table's last entry written */
HOSTILE(before_table, "r1 = 0\n\t call 8\n\t r0 += -8\n\t r2 = *(u64 *)(r0 + 0)\n\t"
		      "r1 = 0\n\t call 6\n\t r0 = 0\n\t")
HOSTILE(past_table, "r1 = -1\n\t call 8\n\t r2 = 0x4141\n\t *(u64 *)(r0 + 16) = r2\n\t"
		    "r0 = 0\n\t")
