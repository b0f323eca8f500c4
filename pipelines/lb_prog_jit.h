/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The x86-64 JIT for load-balancing programs (lb_prog_jit.c): native code
 * for every program lb_prog_check.c accepted, with the interpreter's
 * semantics (lb_prog_interp.c) exactly.
 *
 * Registers: r0 rax, r1 rdi, r2 rsi, r3 rdx, r4 rcx, r5 r8 (the SysV
 * argument registers, so a helper call needs no move), r6 rbx, r7 r13,
 * r8 r14, r9 r15 (callee-saved: they live across calls), r10 rbp over a
 * 512-byte frame; r9, r10 and r11 are the JIT's scratch registers, never a
 * program's.  A shift by a register goes through rcx (r4) and a division
 * through rax:rdx (r0, r3); both save and restore what they borrow, for
 * every pair of registers.
 *
 * Layout: the code is sized by the same function that writes it, jumps
 * first all 32-bit; then a jump becomes 8-bit where its displacement fits
 * under the previous pass's offsets, until no instruction's offset
 * changes (jumps only go forward, so sizes only shrink and a short jump
 * stays short: the passes converge).  The writing pass checks that every
 * instruction starts where the last sizing pass put it, or the program is
 * refused (it then runs on the interpreter).  Code is written into a
 * read-write mapping, which is then made read-execute (never both).
 */
#ifndef AIF_LB_PROG_JIT_H
#define AIF_LB_PROG_JIT_H

#include <stddef.h>
#include <stdint.h>

/* A helper as the JIT and the interpreter call it: r1..r5 in, r0 out. */
typedef uint64_t aif_lb_helper_fn(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

/* At most this many bytes of code per eBPF instruction (a division by a
 * register, the longest, takes 35), and around them. */
#define AIF_LB_PROG_JIT_INSN_BYTES_MAX 40
#define AIF_LB_PROG_JIT_FRAME_BYTES_MAX 64

/* Compile flags. */
#define AIF_LB_PROG_JIT_REL32 (1u << 0) /* every jump 32-bit (one sizing pass) */

/* A compiled program. */
struct aif_lb_prog_jit {
	uint64_t (*fn)(void *ctx); /* run it: r1 = ctx, returns r0 */
	void *map;                 /* the mapping (read-execute) */
	size_t map_bytes;
	size_t code_bytes;         /* of it, code */
	uint32_t passes;           /* sizing passes the layout took */
	uint32_t short_jumps;      /* jumps laid out 8-bit (the rest 32-bit) */
};

/*
 * Compile the n checked instructions at insns (helper calls by id, called
 * through helpers[id], ids 1..n_helpers - 1).  0 and *out, or -1 and why
 * in why (what the JIT refused, or the system's error).  Instructions the
 * check would refuse are not all caught here: the check comes first.
 *
 *	struct aif_lb_prog_jit j;
 *	if (aif_lb_prog_jit_compile(v, n, aif_lb_prog_helpers, AIF_LB_HELPER_MAX + 1, 0,
 *			       &j, why, sizeof(why)) == 0)
 *		r0 = j.fn(ctx);
 */
int aif_lb_prog_jit_compile(const uint64_t *insns, uint32_t n, aif_lb_helper_fn *const *helpers,
		       uint32_t n_helpers, unsigned flags, struct aif_lb_prog_jit *out, char *why,
		       size_t why_len);
/* Unmap j's code (nothing if it holds none). */
void aif_lb_prog_jit_free(struct aif_lb_prog_jit *j);

#endif /* AIF_LB_PROG_JIT_H */
