/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/lb_prog_jit.c: the x86-64 JIT for load-balancing
 * programs, against the switch's interpreter (pipelines/lb_prog_interp.c),
 * on eBPF instructions written here (no ELF, no EAL).  Every program is
 * compiled twice, with jumps laid out 8-bit where they fit and with every
 * jump 32-bit, and all runs must agree to the bit.
 *
 *   - Every ALU form (32 and 64 bits, immediate and register) over edge
 *     immediates (0, 1, 31, 32, 63, 127, 128, -1, -128, 2^31, 0x9002b001
 *     ...) and edge values, against rte_bpf's interpreter too where the
 *     check accepts the program.
 *   - Every register pair of every register form (divisions by 0 and
 *     32-bit divisors with a high half included: the JIT's zero test ends
 *     the program with 0, as the interpreter does), with every register
 *     then folded into r0, so that a register the JIT borrows and fails to
 *     give back shows; immediates, neg, byte swaps and 64-bit loads into
 *     every register.
 *   - Every jump over immediates and values, and every register pair.
 *   - Stores and loads of every size through every base register, from and
 *     into every register, with 8- and 32-bit displacements; immediates
 *     stored at each width; atomic adds.
 *   - Jumps over 0..80 instructions (the 8-bit limit crossed), a layout
 *     that needs several passes (a jump that fits only once another one
 *     shrank), a 4,096-instruction program jumped across, 3,000 random
 *     branchy programs with helper calls, stack traffic and exits.
 *   - Helper calls: arguments r1..r5 in order, r0 back, r6..r9 kept, the
 *     stack 16-byte aligned at the call for every frame shape; unknown
 *     helpers refused.
 *   - The code is never writable and executable at once, and its size is
 *     bounded (4,096 divisions, the longest instruction).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_bpf.h>
#include <rte_common.h>

#include "lb_prog.h"
#include "lb_prog_check.h"
#include "lb_prog_jit.h"
#include "rng.h"

#define I(c, d, s, o, i) ((struct ebpf_insn){ .code = (uint8_t)(c), .dst_reg = (uint8_t)(d), \
			   .src_reg = (uint8_t)(s), .off = (int16_t)(o), .imm = (int32_t)(i) })
#define MOV64K(d, i) I(EBPF_ALU64 | EBPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64X(d, s) I(EBPF_ALU64 | EBPF_MOV | BPF_X, d, s, 0, 0)
#define A64K(op, d, i) I(EBPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define A64X(op, d, s) I(EBPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o) I(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o) I(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, i) I(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define XADD(sz, d, s, o) I(BPF_STX | EBPF_XADD | (sz), d, s, o, 0)
#define JK(op, d, i, o) I(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JX(op, d, s, o) I(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JA(o) I(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(id) I(BPF_JMP | EBPF_CALL, 0, 0, 0, id)
#define EXIT I(BPF_JMP | EBPF_EXIT, 0, 0, 0, 0)

#define MAX_P 8192

static const int32_t imms[] = {
	0, 1, 2, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, -1, -2, -127, -128, -129,
	0x7fff, 0x8000, 0x7fffffff, INT32_MIN, (int32_t)0x9002b001, (int32_t)0x900b0f01,
};
static const uint64_t vals[] = {
	0, 1, 5, 31, 32, 63, 64, 0x80, 0xff, 0xffffffffull, 0x100000000ull,
	0x8000000000000000ull, 0xdeadbeefcafef00dull, UINT64_MAX,
};
static const uint8_t sizes[] = { BPF_B, BPF_H, BPF_W, EBPF_DW };

/* ---- test helpers: what a call hands over ---- */

static uint64_t calls_hash; /* every call's arguments, in order */

static uint64_t
th_mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	calls_hash = (calls_hash ^ a) * 31 + (b ^ (c << 1)) * 7 + (d ^ (e << 2));
	return a * 3 + (b ^ 0x55) - c * 5 + (d >> 3) + (e | 1);
}

static uint64_t
th_args(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	/* each argument must be its number: 1..5 in r1..r5 */
	return (a == 1) | (b == 2) << 1 | (c == 3) << 2 | (d == 4) << 3 | (uint64_t)(e == 5) << 4;
}

/* The stack pointer at its entry: 8 off a multiple of 16 when the caller
 * kept the SysV alignment. */
uint64_t aif_test_jit_rsp(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
__asm__(".text\n.globl aif_test_jit_rsp\n.type aif_test_jit_rsp, @function\n"
	"aif_test_jit_rsp:\n\tmov %rsp, %rax\n\tret\n");

/* A helper that uses every caller-saved register it may. */
static uint64_t
th_clobber(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	__asm__ volatile("mov $-1, %%r9\n\tmov $-1, %%r10\n\tmov $-1, %%r11\n\t"
			 "mov $-1, %%rdi\n\tmov $-1, %%rsi\n\tmov $-1, %%rdx\n\t"
			 "mov $-1, %%rcx\n\tmov $-1, %%r8" ::: "r9", "r10", "r11", "rdi", "rsi",
			 "rdx", "rcx", "r8", "memory");
	return a + b + c + d + e;
}

#define TH_MIX 1
#define TH_ARGS 2
#define TH_RSP 3
#define TH_CLOBBER 4
static aif_lb_helper_fn *const test_helpers[] = {
	NULL, th_mix, th_args, aif_test_jit_rsp, th_clobber, NULL,
};

/* The switch's interpreter with the tests' helpers. */
static uint64_t
interp_with(const struct ebpf_insn *p, uint32_t n, void *ctx)
{
	return aif_lb_prog_interp_run((const uint64_t *)p, n, ctx, test_helpers);
}

/* ---- running both ---- */

struct jits {
	struct aif_lb_prog_jit j[2]; /* 8-bit jumps where they fit; all 32-bit */
};

static void
jits_new(const struct ebpf_insn *p, uint32_t n, struct jits *js, const char *what)
{
	char why[160];

	for (int k = 0; k < 2; k++)
		if (aif_lb_prog_jit_compile((const uint64_t *)p, n, test_helpers,
					    RTE_DIM(test_helpers), k ? AIF_LB_PROG_JIT_REL32 : 0,
					    &js->j[k], why, sizeof(why)) != 0)
			fail_msg("%s: the JIT refused: %s", what, why);
}

static void
jits_free(struct jits *js)
{
	aif_lb_prog_jit_free(&js->j[0]);
	aif_lb_prog_jit_free(&js->j[1]);
}

/* Run p on the interpreter and both JITs on ctx: they must agree, calls
 * included.  The interpreter's answer. */
static uint64_t
agree_on(const struct ebpf_insn *p, uint32_t n, const struct jits *js, void *ctx,
	 const char *what)
{
	calls_hash = 0;
	uint64_t want = interp_with(p, n, ctx), want_calls = calls_hash;

	for (int k = 0; k < 2; k++) {
		calls_hash = 0;
		uint64_t got = js->j[k].fn(ctx);
		if (got != want || calls_hash != want_calls)
			fail_msg("%s (%s jumps): interpreter %#llx, JIT %#llx%s", what,
				 k ? "32-bit" : "8-bit", (unsigned long long)want,
				 (unsigned long long)got,
				 calls_hash != want_calls ? " (helpers called differently)" : "");
	}
	return want;
}

/* A context whose first words are v (the rest random from r). */
static struct aif_lb_prog_ctx *
ctx_fill(struct aif_lb_prog_ctx *c, struct aif_rng *r, const uint64_t *v, unsigned nv)
{
	uint64_t *w = (uint64_t *)c;

	for (unsigned k = 0; k < sizeof(*c) / 8; k++)
		w[k] = k < nv ? v[k] : r != NULL ? aif_rng_next(r) : 0;
	return c;
}

/* ---- ALU forms ---- */

static unsigned compared;

/* p on every pair of values in ctx words 0 and 1; where the check accepts
 * it, rte_bpf's interpreter (an outside opinion of eBPF's meaning, where
 * its validator takes p) must agree too. */
static void
sweep_values(const struct ebpf_insn *p, uint32_t n, uint32_t at, struct aif_lb_prog_ctx *c)
{
	struct aif_lb_prog_check chk;
	struct rte_bpf *ref = NULL;
	struct jits js;
	char what[160], err[256];

	if (aif_lb_prog_check_insns((const uint64_t *)p, n, "aifabric/lb/t", &chk, err,
				    sizeof(err)) == 0) {
		struct rte_bpf_prm prm = {
			.ins = p, .nb_ins = n,
			.prog_arg = { .type = RTE_BPF_ARG_PTR,
				      .size = sizeof(struct aif_lb_prog_ctx) },
		};
		ref = rte_bpf_load(&prm);
	}
	snprintf(what, sizeof(what), "opcode 0x%02x imm %d dst r%u src r%u", p[at].code,
		 p[at].imm, p[at].dst_reg, p[at].src_reg);
	jits_new(p, n, &js, what);
	for (unsigned x = 0; x < RTE_DIM(vals); x++)
		for (unsigned y = 0; y < RTE_DIM(vals); y++) {
			uint64_t v2[2] = { vals[x], vals[y] };
			char w2[240];
			ctx_fill(c, NULL, v2, 2);
			snprintf(w2, sizeof(w2), "%s on %#llx, %#llx", what,
				 (unsigned long long)vals[x], (unsigned long long)vals[y]);
			uint64_t v = agree_on(p, n, &js, c, w2);
			if (ref != NULL && rte_bpf_exec(ref, c) != v)
				fail_msg("%s: rte_bpf's interpreter %#llx, the switch's %#llx", w2,
					 (unsigned long long)rte_bpf_exec(ref, c),
					 (unsigned long long)v);
			compared++;
		}
	rte_bpf_destroy(ref);
	jits_free(&js);
}

static void
test_alu_forms(void **state)
{
	struct aif_lb_prog_ctx *c = *state;

	compared = 0;
	for (int cls = 0; cls < 2; cls++)
		for (unsigned op = 0; op <= EBPF_END; op += 0x10) {
			uint8_t base = cls ? EBPF_ALU64 : BPF_ALU;
			if (op == EBPF_ARSH && !cls)
				continue; /* (32-bit arsh: refused by the check and the JIT) */
			for (unsigned i = 0; i < RTE_DIM(imms); i++) {
				struct ebpf_insn p[] = {
					LDX(EBPF_DW, 0, 1, 0), LDX(EBPF_DW, 2, 1, 8),
					I(base | op | BPF_K, 0, 0, 0, imms[i]), EXIT,
				};
				if (op == BPF_NEG && imms[i] != 0)
					continue;
				if (op == EBPF_END) { /* to_be 16/32/64, le64 */
					if (imms[i] != 16 && imms[i] != 32 && imms[i] != 64)
						continue;
					p[2].code = (uint8_t)(BPF_ALU | op | (cls ? EBPF_TO_BE : EBPF_TO_LE));
					if (!cls && imms[i] != 64)
						continue;
				}
				if ((op == BPF_LSH || op == BPF_RSH || op == EBPF_ARSH) &&
				    (imms[i] < 0 || imms[i] > (cls ? 63 : 31)))
					continue;
				sweep_values(p, RTE_DIM(p), 2, c);
			}
			if (op == BPF_NEG || op == EBPF_END)
				continue;
			struct ebpf_insn q[] = {
				LDX(EBPF_DW, 0, 1, 0), LDX(EBPF_DW, 2, 1, 8),
				I(base | op | BPF_X, 0, 2, 0, 0), EXIT,
			};
			sweep_values(q, RTE_DIM(q), 2, c);
		}
	/* 64-bit loads */
	for (unsigned i = 0; i < RTE_DIM(imms); i++) {
		struct ebpf_insn p[] = {
			LDX(EBPF_DW, 0, 1, 0),
			I(BPF_LD | BPF_IMM | EBPF_DW, 0, 0, 0, imms[i]),
			I(0, 0, 0, 0, imms[RTE_DIM(imms) - 1 - i]), EXIT,
		};
		sweep_values(p, RTE_DIM(p), 1, c);
	}
	print_message("compared %u runs\n", compared);
	assert_true(compared > 100000);
}

/* ---- register pairs ---- */

/* All of r0..r9 from the context (r1, the context, last). */
static uint32_t
load_all(struct ebpf_insn *p, uint32_t n)
{
	for (uint8_t k = 0; k <= 9; k++)
		p[n++] = LDX(EBPF_DW, (k + 2) % 10, 1, 8 * (k + 1));
	return n;
}

/* r0 = every register folded in, then exit. */
static uint32_t
fold_exit(struct ebpf_insn *p, uint32_t n)
{
	for (uint8_t k = 1; k <= 9; k++) {
		p[n++] = A64K(BPF_MUL, 0, 31);
		p[n++] = A64X(BPF_ADD, 0, k);
	}
	p[n++] = EXIT;
	return n;
}

/* p on 8 contexts: edge values, then random ones. */
static void
run_contexts(const struct ebpf_insn *p, uint32_t n, struct aif_lb_prog_ctx *c,
	     struct aif_rng *r, const char *what)
{
	struct jits js;

	jits_new(p, n, &js, what);
	for (int t = 0; t < 8; t++) {
		uint64_t v[12];
		for (unsigned k = 0; k < RTE_DIM(v); k++)
			v[k] = t < 4 ? vals[aif_rng_below(r, RTE_DIM(vals))] : aif_rng_next(r);
		if (t == 0) /* some zeros: divisors of 0, counts of 0 */
			for (unsigned k = 0; k < RTE_DIM(v); k += 2)
				v[k] = 0;
		if (t == 1) /* 32-bit halves of 0 with high halves set */
			for (unsigned k = 0; k < RTE_DIM(v); k++)
				v[k] = 0xffffffff00000000ull;
		ctx_fill(c, r, v, RTE_DIM(v));
		agree_on(p, n, &js, c, what);
		compared++;
	}
	jits_free(&js);
}

static void
test_register_pairs(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	struct aif_rng r;
	char what[160];

	compared = 0;
	aif_rng_seed(&r, 99);
	for (int cls = 0; cls < 2; cls++)
		for (unsigned op = 0; op <= EBPF_ARSH; op += 0x10) {
			uint8_t base = cls ? EBPF_ALU64 : BPF_ALU;
			if (op == BPF_NEG || (op == EBPF_ARSH && !cls))
				continue;
			for (uint8_t dr = 0; dr <= 9; dr++)
				for (uint8_t sr = 0; sr <= 9; sr++) {
					struct ebpf_insn p[40];
					uint32_t n = load_all(p, 0);
					p[n++] = I(base | op | BPF_X, dr, sr, 0, 0);
					n = fold_exit(p, n);
					snprintf(what, sizeof(what), "opcode 0x%02x r%u, r%u",
						 base | op | BPF_X, dr, sr);
					run_contexts(p, n, c, &r, what);
				}
		}
	/* immediates, neg, byte swaps, 64-bit loads into every register */
	for (uint8_t dr = 0; dr <= 9; dr++)
		for (int cls = 0; cls < 2; cls++)
			for (unsigned op = 0; op <= EBPF_END; op += 0x10) {
				uint8_t base = cls ? EBPF_ALU64 : BPF_ALU;
				static const int32_t some[] = { 0, 1, 5, 31, -1, -128, 128, 0x7fffffff,
								INT32_MIN, 16, 32, 64 };
				if (op == EBPF_ARSH && !cls)
					continue;
				for (unsigned i = 0; i < RTE_DIM(some); i++) {
					struct ebpf_insn p[40];
					uint32_t n = load_all(p, 0);
					int32_t imm = some[i];
					uint8_t code = (uint8_t)(base | op | BPF_K);
					if (op == BPF_NEG && imm != 0)
						continue;
					if ((op == BPF_LSH || op == BPF_RSH || op == EBPF_ARSH) &&
					    (imm < 0 || imm > (cls ? 63 : 31)))
						continue;
					if (op == EBPF_END) {
						if (imm != 16 && imm != 32 && imm != 64)
							continue;
						if (!cls && imm != 64)
							continue;
						code = (uint8_t)(BPF_ALU | op | (cls ? EBPF_TO_BE : EBPF_TO_LE));
					}
					p[n++] = I(code, dr, 0, 0, imm);
					n = fold_exit(p, n);
					snprintf(what, sizeof(what), "opcode 0x%02x r%u, %d", code, dr, imm);
					run_contexts(p, n, c, &r, what);
				}
			}
	for (uint8_t dr = 0; dr <= 9; dr++)
		for (unsigned i = 0; i < RTE_DIM(vals); i++) {
			struct ebpf_insn p[40];
			uint32_t n = load_all(p, 0);
			p[n++] = I(BPF_LD | BPF_IMM | EBPF_DW, dr, 0, 0, (uint32_t)vals[i]);
			p[n++] = I(0, 0, 0, 0, (uint32_t)(vals[i] >> 32));
			n = fold_exit(p, n);
			snprintf(what, sizeof(what), "ld_imm64 r%u, %#llx", dr,
				 (unsigned long long)vals[i]);
			run_contexts(p, n, c, &r, what);
		}
	print_message("compared %u runs\n", compared);
	assert_true(compared > 20000);
}

/* A divisor of 0 ends the program with 0 on both (the check refuses such
 * a program; the JIT keeps the interpreter's guard); r0's high half is
 * not touched by the test of a 32-bit divisor. */
static void
test_division_by_zero(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	struct jits js;

	for (int cls = 0; cls < 2; cls++)
		for (int mod = 0; mod < 2; mod++)
			for (int k = 0; k < 2; k++) {
				uint8_t code = (uint8_t)((cls ? EBPF_ALU64 : BPF_ALU) |
							 (mod ? BPF_MOD : BPF_DIV) | (k ? BPF_K : BPF_X));
				struct ebpf_insn p[] = {
					I(BPF_LD | BPF_IMM | EBPF_DW, 0, 0, 0, 0xcafef00d),
					I(0, 0, 0, 0, 0xdeadbeef), LDX(EBPF_DW, 2, 1, 0),
					LDX(EBPF_DW, 3, 1, 8), I(code, 2, 3, 0, 0), EXIT,
				};
				uint64_t v[2] = { 1234567, 0 };
				jits_new(p, RTE_DIM(p), &js, "a division by 0");
				assert_int_equal(agree_on(p, RTE_DIM(p), &js, ctx_fill(c, NULL, v, 2),
							  "a division by 0"), 0);
				v[1] = 0xffffffff00000000ull; /* 0 in 32 bits */
				assert_int_equal(agree_on(p, RTE_DIM(p), &js, ctx_fill(c, NULL, v, 2),
							  "a division by 0"), k ? 0 : cls ? 0xdeadbeefcafef00dull : 0);
				v[1] = 7;
				assert_int_equal(agree_on(p, RTE_DIM(p), &js, ctx_fill(c, NULL, v, 2),
							  "a division by 7"), k ? 0 : 0xdeadbeefcafef00dull);
				jits_free(&js);
			}
}

/* ---- jumps ---- */

static void
test_jump_forms(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	struct aif_rng r;
	char what[160];

	compared = 0;
	aif_rng_seed(&r, 7);
	for (unsigned op = BPF_JEQ; op <= EBPF_JSLE; op += 0x10) {
		if (op == EBPF_CALL || op == EBPF_EXIT)
			continue;
		for (unsigned i = 0; i < RTE_DIM(imms); i++) {
			struct ebpf_insn p[] = {
				LDX(EBPF_DW, 2, 1, 0), LDX(EBPF_DW, 3, 1, 8),
				JK(op, 2, imms[i], 2), MOV64K(0, 7), EXIT, MOV64K(0, 9), EXIT,
			};
			sweep_values(p, RTE_DIM(p), 2, c);
		}
		struct ebpf_insn q[] = {
			LDX(EBPF_DW, 2, 1, 0), LDX(EBPF_DW, 3, 1, 8),
			JX(op, 2, 3, 2), MOV64K(0, 7), EXIT, MOV64K(0, 9), EXIT,
		};
		sweep_values(q, RTE_DIM(q), 2, c);
		/* every register pair, every register with an immediate */
		for (uint8_t dr = 0; dr <= 9; dr++)
			for (uint8_t sr = 0; sr <= 10; sr++) {
				struct ebpf_insn p[48];
				uint32_t n = load_all(p, 0);
				if (sr == 10)
					p[n++] = JK(op, dr, imms[aif_rng_below(&r, RTE_DIM(imms))], 2);
				else
					p[n++] = JX(op, dr, sr, 2);
				p[n++] = A64K(BPF_XOR, 0, 0x5a5a);
				p[n++] = JA(1);
				p[n++] = A64K(BPF_ADD, 0, 0x77);
				n = fold_exit(p, n);
				snprintf(what, sizeof(what), "jump 0x%02x r%u, %s%u", p[10].code, dr,
					 sr == 10 ? "imm #" : "r", sr);
				run_contexts(p, n, c, &r, what);
			}
	}
	print_message("compared %u runs\n", compared);
	assert_true(compared > 10000);
}

/* ---- memory ---- */

static void
test_memory(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	struct aif_rng r;
	char what[160];
	static const int16_t offs[] = { 3, 300 }; /* 8- and 32-bit displacements */

	compared = 0;
	aif_rng_seed(&r, 11);
	for (unsigned z = 0; z < RTE_DIM(sizes); z++)
		for (uint8_t base = 0; base <= 10; base++)
			for (uint8_t sr = 0; sr <= 10; sr++)
				for (unsigned o = 0; o < RTE_DIM(offs); o++) {
					struct ebpf_insn p[128];
					uint32_t n = 0;
					int16_t off = offs[o], at = (int16_t)(-16 - (o ? 320 : 0));
					if (sr == base)
						continue; /* (the base's own bytes: an address) */
					for (int16_t s = -8; s >= -352; s -= 8)
						p[n++] = ST(EBPF_DW, 10, s, -1);
					n = load_all(p, n);
					if (base != 10) {
						p[n++] = MOV64X(base, 10);
						p[n++] = A64K(BPF_ADD, base, at - off);
					}
					int16_t d = base == 10 ? at : off;
					uint32_t st_at = n;
					if (sr == 10) /* an immediate store */
						p[n++] = ST(sizes[z], base, d,
							    imms[aif_rng_below(&r, RTE_DIM(imms))]);
					else
						p[n++] = STX(sizes[z], base, sr, d);
					uint8_t dr = (uint8_t)((sr + 3) % 10);
					if (dr == base)
						dr = (uint8_t)((dr + 1) % 10);
					p[n++] = LDX(sizes[z], dr, base, d);            /* the bytes back */
					p[n++] = XADD(z & 1 ? EBPF_DW : BPF_W, base, dr, d - 1);
					p[n++] = LDX(EBPF_DW, (uint8_t)((dr + 1) % 10 == base ? (dr + 2) % 10 :
									(dr + 1) % 10), 10, at - 8);
					p[n++] = LDX(EBPF_DW, base == 0 ? 2 : 0, 10, at);
					if (base != 10)
						p[n++] = MOV64K(base, 0); /* (no address in the answer) */
					n = fold_exit(p, n);
					snprintf(what, sizeof(what), "store 0x%02x base r%u src %s%u off %d",
						 p[st_at].code, base, sr == 10 ? "imm #" : "r", sr, d);
					run_contexts(p, n, c, &r, what);
				}
	/* loads through every base, into every register, from the context */
	for (unsigned z = 0; z < RTE_DIM(sizes); z++)
		for (uint8_t base = 0; base <= 9; base++)
			for (uint8_t dr = 0; dr <= 9; dr++) {
				static const int16_t loff[] = { 0, 5, 100, 1000 };
				struct ebpf_insn p[128];
				uint32_t n = 0;
				uint8_t acc = 0;
				while (acc == dr || acc == base)
					acc++;
				p[n++] = STX(EBPF_DW, 10, 1, -8); /* the context kept */
				n = load_all(p, n);
				p[n++] = LDX(EBPF_DW, base, 10, -8);
				for (unsigned o = 0; o < RTE_DIM(loff); o++) {
					p[n++] = LDX(sizes[z], dr, base, loff[o]);
					if (dr == base)
						break; /* (the base is gone) */
					p[n++] = A64X(BPF_XOR, acc, dr);
				}
				if (base != dr)
					p[n++] = MOV64K(base, 0);
				n = fold_exit(p, n);
				snprintf(what, sizeof(what), "load size 0x%02x base r%u into r%u", sizes[z],
					 base, dr);
				run_contexts(p, n, c, &r, what);
			}
	print_message("compared %u runs\n", compared);
	assert_true(compared > 5000);
}

/* ---- layout ---- */

/* Jumps over 0..80 additions: the 8-bit limit is crossed on the way, and
 * both layouts answer alike; the 8-bit layout uses short jumps exactly
 * while they fit. */
static void
test_jump_lengths(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	static struct ebpf_insn p[256];
	bool saw_short = false, saw_long = false;
	char what[64];

	for (int k = 0; k <= 80; k++) {
		uint32_t n = 0;
		p[n++] = LDX(EBPF_DW, 2, 1, 0);
		p[n++] = MOV64K(0, 0);
		p[n++] = JK(BPF_JEQ, 2, 1, k); /* over k additions */
		for (int f = 0; f < k; f++)
			p[n++] = A64K(BPF_ADD, 0, f + 1);
		p[n++] = JA(1);
		p[n++] = EXIT; /* (never) */
		p[n++] = EXIT;
		struct jits js;
		snprintf(what, sizeof(what), "a jump over %d instructions", k);
		jits_new(p, n, &js, what);
		for (uint64_t v = 0; v < 3; v++)
			assert_int_equal(agree_on(p, n, &js, ctx_fill(c, NULL, &v, 1), what),
					 v == 1 ? 0 : (uint64_t)k * (k + 1) / 2);
		assert_int_equal(js.j[1].short_jumps, 0);
		/* (the JA and the first exit's jump to the epilogue are short) */
		if (js.j[0].short_jumps == 3)
			saw_short = true;
		else if (js.j[0].short_jumps == 2)
			saw_long = true;
		else
			fail_msg("%s: %u short jumps", what, js.j[0].short_jumps);
		assert_true(js.j[0].code_bytes < js.j[1].code_bytes);
		jits_free(&js);
	}
	assert_true(saw_short && saw_long);
}

/* A jump that fits 8 bits only once the jump inside its span shrank:
 * the layout takes more than one pass to settle, and is right. */
static void
test_layout_passes(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	static struct ebpf_insn p[256];
	uint32_t most = 0;
	char what[64];

	for (int f = 20; f <= 40; f++) {
		uint32_t n = 0;
		p[n++] = LDX(EBPF_DW, 2, 1, 0);
		p[n++] = MOV64K(0, 0);
		uint32_t a = n;
		p[n++] = JK(BPF_JEQ, 2, 1, 0);     /* A: over all of it */
		for (int k = 0; k < f / 2; k++)
			p[n++] = A64K(BPF_ADD, 0, 1);
		p[n++] = JK(BPF_JEQ, 2, 2, 1);     /* B: over one */
		p[n++] = A64K(BPF_ADD, 0, 1000);
		for (int k = 0; k < f - f / 2; k++)
			p[n++] = A64K(BPF_ADD, 0, 1);
		p[a].off = (int16_t)(n - a - 1);
		p[n++] = EXIT;
		struct jits js;
		snprintf(what, sizeof(what), "nested jumps over %d", f);
		jits_new(p, n, &js, what);
		for (uint64_t v = 0; v < 4; v++)
			agree_on(p, n, &js, ctx_fill(c, NULL, &v, 1), what);
		if (js.j[0].passes > most)
			most = js.j[0].passes;
		assert_int_equal(js.j[1].passes, 1);
		jits_free(&js);
	}
	print_message("the layout took up to %u passes\n", most);
	assert_true(most >= 3); /* all long, B short, then A short, then settled */
}

/* 4,096 instructions: a jump from the first across all of them, jumps
 * into the middle, exits everywhere. */
static void
test_large_program(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	static struct ebpf_insn p[AIF_LB_PROG_MAX_INSNS];
	uint32_t n = 0, N = AIF_LB_PROG_MAX_INSNS;
	struct aif_rng r;
	struct jits js;

	aif_rng_seed(&r, 3);
	p[n++] = LDX(EBPF_DW, 2, 1, 0);
	p[n++] = LDX(EBPF_DW, 3, 1, 8);
	p[n++] = MOV64K(0, 0);
	p[n++] = JK(BPF_JEQ, 2, 0, (int16_t)(N - 2 - 4)); /* to the last but one */
	while (n < N - 2) {
		uint32_t left = N - 2 - n;
		switch (aif_rng_below(&r, 6)) {
		case 0: /* a jump far ahead */
			p[n] = JX(BPF_JGT, 3, 2, (int16_t)aif_rng_below(&r, left));
			break;
		case 1:
			p[n] = JK(BPF_JSET, 3, (int32_t)(1u << aif_rng_below(&r, 32)),
				  (int16_t)aif_rng_below(&r, left < 40 ? left : 40));
			break;
		case 2:
			p[n] = aif_rng_below(&r, 50) == 0 ? EXIT : A64X(BPF_XOR, 3, 2);
			break;
		default:
			p[n] = A64K(BPF_ADD, 0, (int32_t)aif_rng_below(&r, 1000));
			break;
		}
		n++;
	}
	p[n++] = A64K(BPF_MUL, 0, 3);
	p[n++] = EXIT;
	jits_new(p, n, &js, "4096 instructions");
	for (int t = 0; t < 64; t++) {
		uint64_t v[2] = { t == 0 ? 0 : aif_rng_next(&r), aif_rng_next(&r) };
		agree_on(p, n, &js, ctx_fill(c, NULL, v, 2), "4096 instructions");
	}
	print_message("%u bytes (%u short jumps, %u passes), all 32-bit: %zu bytes\n",
		      (unsigned)js.j[0].code_bytes, js.j[0].short_jumps, js.j[0].passes,
		      js.j[1].code_bytes);
	jits_free(&js);
}

/* Random programs: ALU in every form, forward jumps of every kind, exits,
 * helper calls, stack stores, loads and adds; all registers set first
 * (r1..r5 again after each call, which the JIT does not keep). */
static uint32_t
random_prog(struct aif_rng *r, struct ebpf_insn *p, uint32_t cap)
{
	static bool second[MAX_P];
	static int32_t target[MAX_P]; /* jumps: the instruction they go to */
	uint32_t n = 0;

	for (int16_t s = -8; s >= -64; s -= 8)
		p[n++] = ST(EBPF_DW, 10, s, (int32_t)aif_rng_next(r));
	n = load_all(p, n);
	uint32_t body = n, end = n + 8 + aif_rng_below(r, cap - n - 30);
	memset(second, 0, sizeof(second));
	while (n < end) {
		uint32_t k = aif_rng_below(r, 100);
		uint8_t d = (uint8_t)aif_rng_below(r, 10), s = (uint8_t)aif_rng_below(r, 10);
		target[n] = -1;
		if (k < 40) { /* ALU */
			uint8_t op = (uint8_t)(aif_rng_below(r, 13) << 4), cls = aif_rng_below(r, 2) ?
				     EBPF_ALU64 : BPF_ALU;
			bool x = aif_rng_below(r, 2);
			int32_t imm = aif_rng_below(r, 2) ? imms[aif_rng_below(r, RTE_DIM(imms))] :
				      (int32_t)aif_rng_next(r);
			if (op == EBPF_ARSH)
				cls = EBPF_ALU64;
			if (op == BPF_NEG)
				x = false, imm = 0;
			if (!x && (op == BPF_LSH || op == BPF_RSH || op == EBPF_ARSH))
				imm = (int32_t)aif_rng_below(r, cls == EBPF_ALU64 ? 64 : 32);
			p[n++] = x ? I(cls | op | BPF_X, d, s, 0, 0) : I(cls | op | BPF_K, d, 0, 0, imm);
		} else if (k < 45) { /* byte swaps */
			static const int32_t w[] = { 16, 32, 64 };
			p[n++] = aif_rng_below(r, 4) == 0 ? I(BPF_ALU | EBPF_END | EBPF_TO_LE, d, 0, 0, 64) :
				 I(BPF_ALU | EBPF_END | EBPF_TO_BE, d, 0, 0, w[aif_rng_below(r, 3)]);
		} else if (k < 48 && n + 2 < end) { /* 64-bit loads */
			uint64_t v = aif_rng_below(r, 2) ? aif_rng_next(r) : vals[aif_rng_below(r, RTE_DIM(vals))];
			p[n++] = I(BPF_LD | BPF_IMM | EBPF_DW, d, 0, 0, (uint32_t)v);
			second[n] = true;
			target[n] = -1;
			p[n++] = I(0, 0, 0, 0, (uint32_t)(v >> 32));
		} else if (k < 70) { /* conditional jumps, forward */
			uint8_t op = (uint8_t)(aif_rng_below(r, 12) << 4);
			if (op == BPF_JA || op == EBPF_CALL || op == EBPF_EXIT)
				op = BPF_JSET;
			uint32_t far = aif_rng_below(r, 8) == 0 ? end - n : 30;
			target[n] = (int32_t)(n + 1 + aif_rng_below(r, far < end - n ? far : end - n));
			p[n++] = aif_rng_below(r, 2) ? JX(op, d, s, 0) :
				 JK(op, d, aif_rng_below(r, 2) ? imms[aif_rng_below(r, RTE_DIM(imms))] :
					   (int32_t)aif_rng_next(r), 0);
		} else if (k < 74) {
			target[n] = (int32_t)(n + 1 + aif_rng_below(r, end - n < 60 ? end - n : 60));
			p[n++] = JA(0);
		} else if (k < 76) {
			p[n++] = EXIT;
		} else if (k < 80 && n + 6 < end) { /* a call, then r1..r5 set again */
			p[n++] = CALL(aif_rng_below(r, 8) == 0 ? TH_CLOBBER : TH_MIX);
			for (uint8_t a = 1; a <= 5; a++) {
				target[n] = -1;
				p[n++] = MOV64K(a, (int32_t)aif_rng_next(r));
			}
		} else if (k < 88) { /* the stack: a store, through r10 */
			uint8_t z = sizes[aif_rng_below(r, 4)];
			int bytes = z == BPF_B ? 1 : z == BPF_H ? 2 : z == BPF_W ? 4 : 8;
			int16_t at = (int16_t)(-64 + (int)aif_rng_below(r, (uint32_t)(64 - bytes + 1)));
			p[n++] = aif_rng_below(r, 2) ? STX(z, 10, s, at) :
				 ST(z, 10, at, imms[aif_rng_below(r, RTE_DIM(imms))]);
		} else if (k < 96) { /* a load */
			uint8_t z = sizes[aif_rng_below(r, 4)];
			int bytes = z == BPF_B ? 1 : z == BPF_H ? 2 : z == BPF_W ? 4 : 8;
			int16_t at = (int16_t)(-64 + (int)aif_rng_below(r, (uint32_t)(64 - bytes + 1)));
			p[n++] = LDX(z, d, 10, at);
		} else { /* an add to the stack */
			int16_t at = (int16_t)(-64 + (int)aif_rng_below(r, 57));
			p[n++] = XADD(aif_rng_below(r, 2) ? EBPF_DW : BPF_W, 10, s, at);
		}
	}
	for (uint32_t i = body; i < end; i++) /* (never into a 64-bit load) */
		if (target[i] >= 0 && !second[i]) {
			int32_t t = target[i];
			if (t < (int32_t)end && second[t])
				t++;
			p[i].off = (int16_t)(t - (int32_t)i - 1);
		}
	return fold_exit(p, end);
}

static void
test_random_programs(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	static struct ebpf_insn p[MAX_P];
	struct aif_rng r;
	uint64_t shorts = 0, longs_bytes = 0, shorts_bytes = 0;
	char what[64];

	aif_rng_seed(&r, 2024);
	for (int t = 0; t < 3000; t++) {
		uint32_t n = random_prog(&r, p, t % 100 == 0 ? 3000 : 300);
		struct jits js;
		snprintf(what, sizeof(what), "random program %d", t);
		jits_new(p, n, &js, what);
		for (int k = 0; k < 4; k++) {
			uint64_t v[12];
			for (unsigned q = 0; q < RTE_DIM(v); q++)
				v[q] = k < 2 ? vals[aif_rng_below(&r, RTE_DIM(vals))] : aif_rng_next(&r);
			agree_on(p, n, &js, ctx_fill(c, &r, v, RTE_DIM(v)), what);
		}
		shorts += js.j[0].short_jumps;
		shorts_bytes += js.j[0].code_bytes;
		longs_bytes += js.j[1].code_bytes;
		jits_free(&js);
	}
	print_message("3000 programs: %llu short jumps; code %llu bytes, %llu with every jump "
		      "32-bit\n", (unsigned long long)shorts, (unsigned long long)shorts_bytes,
		      (unsigned long long)longs_bytes);
}

/* ---- calls ---- */

static void
test_helper_calls(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	struct jits js;
	char what[64];

	/* r1..r5 in order, r0 back */
	struct ebpf_insn a[] = {
		MOV64K(1, 1), MOV64K(2, 2), MOV64K(3, 3), MOV64K(4, 4), MOV64K(5, 5),
		CALL(TH_ARGS), EXIT,
	};
	jits_new(a, RTE_DIM(a), &js, "arguments");
	assert_int_equal(agree_on(a, RTE_DIM(a), &js, c, "arguments"), 0x1f);
	jits_free(&js);
	/* r6..r9 kept across a helper that uses every caller-saved register */
	struct ebpf_insn k[] = {
		LDX(EBPF_DW, 6, 1, 0), LDX(EBPF_DW, 7, 1, 8), LDX(EBPF_DW, 8, 1, 16),
		LDX(EBPF_DW, 9, 1, 24), ST(EBPF_DW, 10, -8, 77), CALL(TH_CLOBBER),
		MOV64X(0, 6), A64X(BPF_XOR, 0, 7), A64K(BPF_MUL, 0, 3), A64X(BPF_ADD, 0, 8),
		A64X(BPF_SUB, 0, 9), LDX(EBPF_DW, 2, 10, -8), A64X(BPF_ADD, 0, 2), EXIT,
	};
	uint64_t v[4] = { 0x1111, 0x2222000000000000ull, 0x33, UINT64_MAX };
	jits_new(k, RTE_DIM(k), &js, "callee-saved");
	assert_int_equal(agree_on(k, RTE_DIM(k), &js, ctx_fill(c, NULL, v, 4), "callee-saved"),
			 ((v[0] ^ v[1]) * 3 + v[2] - v[3] + 77));
	jits_free(&js);
	/* the stack 16-byte aligned at every call, whichever of r6..r10 the
	 * program uses (so whichever registers the JIT saves, and its frame) */
	for (unsigned m = 0; m < 32; m++) {
		struct ebpf_insn p[24];
		uint32_t n = 0;
		for (uint8_t q = 0; q < 5; q++)
			if (m & (1u << q))
				p[n++] = q == 4 ? ST(EBPF_DW, 10, -8, 5) : MOV64K(6 + q, q);
		p[n++] = CALL(TH_RSP);
		p[n++] = A64K(BPF_AND, 0, 15);
		p[n++] = CALL(TH_RSP);
		p[n++] = A64K(BPF_AND, 0, 15);
		p[n++] = EXIT;
		snprintf(what, sizeof(what), "registers %#x: the stack at a call", m);
		jits_new(p, n, &js, what);
		for (int q = 0; q < 2; q++)
			if (js.j[q].fn(c) != 8) /* (the call pushed 8 bytes) */
				fail_msg("%s: the stack at %llu mod 16 in the helper", what,
					 (unsigned long long)js.j[q].fn(c));
		jits_free(&js);
	}
	/* an unknown helper: refused */
	struct aif_lb_prog_jit j;
	char why[160];
	static const int32_t bad[] = { 0, 5, 6, -1, 1000 };
	for (unsigned q = 0; q < RTE_DIM(bad); q++) {
		struct ebpf_insn p[] = { CALL(bad[q]), EXIT };
		assert_int_not_equal(aif_lb_prog_jit_compile((const uint64_t *)p, 2, test_helpers,
							     RTE_DIM(test_helpers), 0, &j, why,
							     sizeof(why)), 0);
		assert_non_null(strstr(why, "helper"));
	}
}

/* ---- the mapping ---- */

/* The permissions of the mapping holding a ("r-xp"). */
static void
perms_of(const void *a, char *out)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uintptr_t at = (uintptr_t)a;

	strcpy(out, "none");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;
		char pr[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, pr) == 3 && at >= lo && at < hi) {
			strcpy(out, pr);
			break;
		}
	}
	fclose(f);
}

static void
test_code_mapping(void **state)
{
	struct aif_lb_prog_ctx *c = *state;
	static struct ebpf_insn p[AIF_LB_PROG_MAX_INSNS];
	uint32_t n = 0;
	struct aif_lb_prog_jit j;
	char why[160], pr[8];

	/* the longest instructions: 4,094 64-bit divisions by a register */
	p[n++] = LDX(EBPF_DW, 6, 1, 0);
	p[n++] = MOV64K(7, 3);
	while (n < AIF_LB_PROG_MAX_INSNS - 2)
		p[n++] = A64X(BPF_MOD, 6, 7);
	p[n++] = MOV64X(0, 6);
	p[n++] = EXIT;
	assert_int_equal(aif_lb_prog_jit_compile((const uint64_t *)p, n, test_helpers,
						 RTE_DIM(test_helpers), 0, &j, why, sizeof(why)), 0);
	perms_of((const void *)(uintptr_t)j.fn, pr);
	assert_string_equal(pr, "r-xp");
	assert_true(j.code_bytes <= (size_t)n * AIF_LB_PROG_JIT_INSN_BYTES_MAX +
				    AIF_LB_PROG_JIT_FRAME_BYTES_MAX);
	assert_true(j.map_bytes >= j.code_bytes);
	uint64_t v = 1000000007;
	assert_int_equal(j.fn(ctx_fill(c, NULL, &v, 1)), v % 3);
	print_message("4,094 divisions: %zu bytes of code (%.1f per instruction)\n", j.code_bytes,
		      (double)j.code_bytes / n);
	aif_lb_prog_jit_free(&j);
	assert_null(j.fn);
	/* what the JIT refuses, the check refused first */
	struct ebpf_insn q[][2] = {
		{ A64K(BPF_LSH, 0, 64), EXIT },
		{ I(BPF_ALU | EBPF_ARSH | BPF_K, 0, 0, 0, 1), EXIT },
		{ I(BPF_ALU | EBPF_END | EBPF_TO_LE, 0, 0, 0, 16), EXIT },
		{ I(BPF_LD | BPF_ABS | BPF_W, 0, 0, 0, 0), EXIT },
		{ MOV64K(10, 0), EXIT },
		{ JA(5), EXIT },
		{ I(EBPF_ALU64 | EBPF_MOV | BPF_X, 0, 11, 0, 0), EXIT },
	};
	for (unsigned k = 0; k < RTE_DIM(q); k++)
		assert_int_not_equal(aif_lb_prog_jit_compile((const uint64_t *)q[k], 2,
							     test_helpers, RTE_DIM(test_helpers),
							     0, &j, why, sizeof(why)), 0);
}

static int
setup(void **state)
{
	*state = calloc(1, sizeof(struct aif_lb_prog_ctx));
	return *state == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	free(*state);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alu_forms),
		cmocka_unit_test(test_register_pairs),
		cmocka_unit_test(test_division_by_zero),
		cmocka_unit_test(test_jump_forms),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_jump_lengths),
		cmocka_unit_test(test_layout_passes),
		cmocka_unit_test(test_large_program),
		cmocka_unit_test(test_random_programs),
		cmocka_unit_test(test_helper_calls),
		cmocka_unit_test(test_code_mapping),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
