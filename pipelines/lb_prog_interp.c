/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The interpreter for load-balancing programs: the reference the JIT
 * (lb_prog_jit.c) is tested against, and the engine of a program the JIT
 * could not compile (no memory for its code).  It runs only programs
 * lb_prog_check.c accepted, so it checks no access: every load and store
 * is inside the context, the stack or a flow-table entry, every jump
 * forward inside the program, every divisor non-zero (tested anyway, as
 * rte_bpf does: the program then returns 0).  Accesses may be unaligned,
 * as on the JIT.  Semantics are rte_bpf's interpreter's: 32-bit operations
 * zero-extend, shift counts are taken modulo the width, immediates are
 * sign-extended to 64 bits.  Helpers are called by id, through the table
 * given.
 */
#include <stdint.h>
#include <string.h>

#include <bpf_def.h>
#include <rte_common.h>

#include "lb_prog.h"

#define LD(T, a) ({ T v_; memcpy(&v_, (const void *)(uintptr_t)(a), sizeof(T)); (uint64_t)v_; })
#define ST(T, a, v) do { T v_ = (T)(v); memcpy((void *)(uintptr_t)(a), &v_, sizeof(T)); } while (0)

/* One 64-bit and one 32-bit case of an ALU operation, K and X. */
#define ALU(OP, expr64, expr32) \
	case EBPF_ALU64 | OP | BPF_K: s = (uint64_t)(int64_t)x->imm; a = *d; *d = (expr64); break; \
	case EBPF_ALU64 | OP | BPF_X: s = r[x->src_reg]; a = *d; *d = (expr64); break; \
	case BPF_ALU | OP | BPF_K: s = (uint32_t)x->imm; a = (uint32_t)*d; *d = (uint32_t)(expr32); break; \
	case BPF_ALU | OP | BPF_X: s = (uint32_t)r[x->src_reg]; a = (uint32_t)*d; \
		*d = (uint32_t)(expr32); break;
/* Divisors are non-zero (checked); 0 would end the program with 0, as
 * rte_bpf does. */
#define DIVMOD(OP, op) \
	case EBPF_ALU64 | OP | BPF_K: s = (uint64_t)(int64_t)x->imm; goto OP##64; \
	case EBPF_ALU64 | OP | BPF_X: s = r[x->src_reg]; OP##64: \
		if (s == 0) return 0; \
		*d = *d op s; break; \
	case BPF_ALU | OP | BPF_K: s = (uint32_t)x->imm; goto OP##32; \
	case BPF_ALU | OP | BPF_X: s = (uint32_t)r[x->src_reg]; OP##32: \
		if (s == 0) return 0; \
		*d = (uint32_t)*d op s; break;
#define JMP(OP, cond) \
	case BPF_JMP | OP | BPF_K: s = (uint64_t)(int64_t)x->imm; a = *d; if (cond) x += x->off; break; \
	case BPF_JMP | OP | BPF_X: s = r[x->src_reg]; a = *d; if (cond) x += x->off; break;
#define MEM(SZ, T) \
	case BPF_LDX | BPF_MEM | SZ: *d = LD(T, r[x->src_reg] + (int64_t)x->off); break; \
	case BPF_ST | BPF_MEM | SZ: ST(T, *d + (int64_t)x->off, (int64_t)x->imm); break; \
	case BPF_STX | BPF_MEM | SZ: ST(T, *d + (int64_t)x->off, r[x->src_reg]); break;

uint64_t
aif_lb_prog_interp_run(const uint64_t *insns, uint32_t n, void *ctx,
		       aif_lb_helper_fn *const *helpers)
{
	const struct ebpf_insn *x = (const struct ebpf_insn *)insns;
	uint64_t stack[64]; /* 512 bytes */
	uint64_t r[11] = { 0 }, a, s, *d;

	RTE_SET_USED(n); /* (every path ends in exit: checked) */
	r[1] = (uintptr_t)ctx;
	r[10] = (uintptr_t)(stack + 64);
	for (;; x++) {
		d = &r[x->dst_reg];
		switch (x->code) {
		ALU(BPF_ADD, a + s, a + s)
		ALU(BPF_SUB, a - s, a - s)
		ALU(BPF_MUL, a * s, a * s)
		ALU(BPF_OR, a | s, a | s)
		ALU(BPF_AND, a & s, a & s)
		ALU(BPF_XOR, a ^ s, a ^ s)
		ALU(BPF_LSH, a << (s & 63), a << (s & 31))
		ALU(BPF_RSH, a >> (s & 63), a >> (s & 31))
		ALU(EBPF_MOV, s, s)
		DIVMOD(BPF_DIV, /)
		DIVMOD(BPF_MOD, %)
		case EBPF_ALU64 | EBPF_ARSH | BPF_K:
			*d = (uint64_t)((int64_t)*d >> (x->imm & 63));
			break;
		case EBPF_ALU64 | EBPF_ARSH | BPF_X:
			*d = (uint64_t)((int64_t)*d >> (r[x->src_reg] & 63));
			break;
		case EBPF_ALU64 | BPF_NEG:
			*d = -*d;
			break;
		case BPF_ALU | BPF_NEG:
			*d = (uint32_t)-*d;
			break;
		case BPF_ALU | EBPF_END | EBPF_TO_BE:
			*d = x->imm == 16 ? __builtin_bswap16((uint16_t)*d) :
			     x->imm == 32 ? __builtin_bswap32((uint32_t)*d) : __builtin_bswap64(*d);
			break;
		case BPF_ALU | EBPF_END | EBPF_TO_LE: /* le64 only (checked): nothing on x86 */
			break;
		case BPF_LD | BPF_IMM | EBPF_DW:
			*d = (uint32_t)x[0].imm | (uint64_t)(uint32_t)x[1].imm << 32;
			x++;
			break;
		MEM(BPF_B, uint8_t)
		MEM(BPF_H, uint16_t)
		MEM(BPF_W, uint32_t)
		MEM(EBPF_DW, uint64_t)
		/* (no lock: the stack and the flow table are this worker's alone) */
		case BPF_STX | EBPF_XADD | BPF_W:
			ST(uint32_t, *d + (int64_t)x->off,
			   LD(uint32_t, *d + (int64_t)x->off) + r[x->src_reg]);
			break;
		case BPF_STX | EBPF_XADD | EBPF_DW:
			ST(uint64_t, *d + (int64_t)x->off,
			   LD(uint64_t, *d + (int64_t)x->off) + r[x->src_reg]);
			break;
		case BPF_JMP | BPF_JA:
			x += x->off;
			break;
		JMP(BPF_JEQ, a == s)
		JMP(EBPF_JNE, a != s)
		JMP(BPF_JGT, a > s)
		JMP(BPF_JGE, a >= s)
		JMP(EBPF_JLT, a < s)
		JMP(EBPF_JLE, a <= s)
		JMP(BPF_JSET, (a & s) != 0)
		JMP(EBPF_JSGT, (int64_t)a > (int64_t)s)
		JMP(EBPF_JSGE, (int64_t)a >= (int64_t)s)
		JMP(EBPF_JSLT, (int64_t)a < (int64_t)s)
		JMP(EBPF_JSLE, (int64_t)a <= (int64_t)s)
		case BPF_JMP | EBPF_CALL:
			r[0] = helpers[x->imm](r[1], r[2], r[3], r[4], r[5]);
			break;
		case BPF_JMP | EBPF_EXIT:
			return r[0];
		default:
			return 0; /* (never: the check knows every opcode here) */
		}
	}
}
