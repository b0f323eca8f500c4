/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/lb_prog_check.c: the load-time check of
 * load-balancing programs, on eBPF instructions written here (no ELF, no
 * EAL).
 *
 *   - Hostile programs, each refused at its instruction with its reason:
 *     immediates out of range, which a JIT would run as native code (shifts by
 *     64 or more, 0x9002b001 and 0x900b0f01 among them, in 64 and 32 bits,
 *     arithmetic shifts too), pointer arithmetic (pointer + pointer,
 *     pointer - pointer, pointer * number, pointer << k, a 32-bit copy of
 *     a pointer, an unbounded number added), reads and writes outside the
 *     context, the stack or a flow-table entry (the 8 bytes before an
 *     entry, 8 bytes past it), pointers leaked (stored in an entry, passed
 *     as a number, returned, compared with a number), part of a pointer
 *     kept on the stack, stack bytes never written, registers never set,
 *     division by what may be 0, atomic writes to the context, malformed
 *     instructions (jumps into a 64-bit load, past the end, backwards;
 *     unknown opcodes; r11; packet loads; 32-bit jumps; byte swaps the
 *     eBPF implementations disagree on).
 *   - Valid programs that were refused before: a flow-table entry pointer
 *     kept on the stack across a helper call and written through; an
 *     index masked into member[]; a divisor tested against 0; a pointer
 *     null-tested.
 * (The JIT against the interpreter: test_lb_prog_jit.c.)
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
#include <bpf_def.h>
#include <rte_common.h>

#include "lb_prog.h"
#include "lb_prog_check.h"

#define I(c, d, s, o, i) { .code = (uint8_t)(c), .dst_reg = (d), .src_reg = (s), \
			   .off = (int16_t)(o), .imm = (int32_t)(i) }
#define MOV64K(d, i) I(EBPF_ALU64 | EBPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64X(d, s) I(EBPF_ALU64 | EBPF_MOV | BPF_X, d, s, 0, 0)
#define MOV32X(d, s) I(BPF_ALU | EBPF_MOV | BPF_X, d, s, 0, 0)
#define A64K(op, d, i) I(EBPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define A64X(op, d, s) I(EBPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define A32K(op, d, i) I(BPF_ALU | (op) | BPF_K, d, 0, 0, i)
#define A32X(op, d, s) I(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o) I(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o) I(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, i) I(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define XADD(sz, d, s, o) I(BPF_STX | EBPF_XADD | (sz), d, s, o, 0)
#define JK(op, d, i, o) I(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JX(op, d, s, o) I(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JA(o) I(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(id) I(BPF_JMP | EBPF_CALL, 0, 0, 0, id)
#define EXIT I(BPF_JMP | EBPF_EXIT, 0, 0, 0, 0)
#define LDDW(d, lo, hi) I(BPF_LD | BPF_IMM | EBPF_DW, d, 0, 0, lo), I(0, 0, 0, 0, hi)

#define CTX(f) ((int)offsetof(struct aif_lb_prog_ctx, f))
#define ENTRY(i) MOV64K(1, i), CALL(AIF_LB_HELPER_TABLE_ENTRY) /* r0: entry i */

static char err[512];

static int
check(const struct ebpf_insn *p, uint32_t n, struct aif_lb_prog_check *out)
{
	err[0] = '\0';
	return aif_lb_prog_check_insns((const uint64_t *)p, n, "aifabric/lb/t", out, err,
				       sizeof(err));
}

static void
refused(const struct ebpf_insn *p, uint32_t n, int pc, const char *why, int line)
{
	struct aif_lb_prog_check out;
	char want[64];

	if (check(p, n, &out) == 0)
		fail_msg("line %d: accepted; expected \"%s\"", line, why);
	snprintf(want, sizeof(want), "instruction %d: ", pc);
	if (pc >= 0 && strstr(err, want) == NULL)
		fail_msg("line %d: \"%s\" is not at instruction %d", line, err, pc);
	if (strstr(err, why) == NULL)
		fail_msg("line %d: \"%s\" lacks \"%s\"", line, err, why);
}

static void
accepted(const struct ebpf_insn *p, uint32_t n, int line)
{
	struct aif_lb_prog_check out;

	if (check(p, n, &out) != 0)
		fail_msg("line %d: refused: %s", line, err);
}

#define REFUSED(pc, why, ...) do { \
		const struct ebpf_insn p_[] = { __VA_ARGS__ }; \
		refused(p_, RTE_DIM(p_), pc, why, __LINE__); \
	} while (0)
#define ACCEPTED(...) do { \
		const struct ebpf_insn p_[] = { __VA_ARGS__ }; \
		accepted(p_, RTE_DIM(p_), __LINE__); \
	} while (0)

/* Immediates the JIT would turn into native instructions. */
static void
test_jit_immediates(void **state)
{
	(void)state;
	/* the review's injection: 0xb0 0x02 0x90 run as "mov al, 2; nop" */
	REFUSED(2, "shifts by", MOV64K(0, 0), MOV64K(1, 0), A64K(BPF_RSH, 1, 0x9002b001), EXIT);
	REFUSED(1, "shifts by", MOV64K(0, 0), A64K(BPF_LSH, 0, 0x900b0f01), EXIT); /* ud2 */
	REFUSED(1, "shifts by", MOV64K(0, 0), A32K(BPF_RSH, 0, 0x900b0f01), EXIT);
	REFUSED(1, "shifts by", MOV64K(0, 0), A64K(EBPF_ARSH, 0, 0x9002b001), EXIT);
	REFUSED(1, "shifts by 64 (0..63)", MOV64K(0, 0), A64K(BPF_LSH, 0, 64), EXIT);
	REFUSED(1, "shifts by 32 (0..31)", MOV64K(0, 0), A32K(BPF_LSH, 0, 32), EXIT);
	REFUSED(1, "shifts by -1", MOV64K(0, 0), A64K(BPF_RSH, 0, -1), EXIT);
	REFUSED(1, "32-bit arsh", MOV64K(0, 0), A32K(EBPF_ARSH, 0, 3), EXIT);
	REFUSED(1, "byte swap of 8 bits",
		MOV64K(0, 0), I(BPF_ALU | EBPF_END | EBPF_TO_BE, 0, 0, 0, 8), EXIT);
	REFUSED(1, "le16 is not supported",
		MOV64K(0, 0), I(BPF_ALU | EBPF_END | EBPF_TO_LE, 0, 0, 0, 16), EXIT);
	REFUSED(1, "divides by the constant 0", MOV64K(0, 5), A64K(BPF_DIV, 0, 0), EXIT);
	REFUSED(1, "divides by the constant 0", MOV64K(0, 5), A32K(BPF_MOD, 0, 0), EXIT);
	/* the edges that are fine */
	ACCEPTED(MOV64K(0, 5), A64K(BPF_LSH, 0, 63), A32K(BPF_RSH, 0, 31),
		 A64K(EBPF_ARSH, 0, 0), I(BPF_ALU | EBPF_END | EBPF_TO_BE, 0, 0, 0, 16), EXIT);
}

static void
test_malformed(void **state)
{
	(void)state;
	REFUSED(0, "unknown helper 9", CALL(9), EXIT);
	REFUSED(1, "a call or exit by register", MOV64K(1, 0),
		I(BPF_JMP | EBPF_CALL | BPF_X, 0, 0, 0, 8), MOV64K(0, 0), EXIT);
	REFUSED(1, "a call or exit by register", MOV64K(0, 0), I(BPF_JMP | EBPF_EXIT | BPF_X, 0, 0, 0, 0));
	REFUSED(0, "unknown helper 0", CALL(0), EXIT);
	REFUSED(0, "another eBPF function", I(BPF_JMP | EBPF_CALL, 0, 1, 0, 1), EXIT);
	REFUSED(1, "jumps into the middle of a 64-bit load",
		MOV64K(0, 0), JA(1), LDDW(0, 1, 2), EXIT);
	REFUSED(1, "jumps past the end", MOV64K(0, 0), JA(1), EXIT);
	REFUSED(2, "jumps backwards", MOV64K(0, 0), EXIT, JA(-2));
	REFUSED(1, "jumps backwards", MOV64K(0, 0), JA(-1), EXIT); /* to itself */
	REFUSED(1, "map or a global variable", MOV64K(0, 0),
		I(BPF_LD | BPF_IMM | EBPF_DW, 1, 1, 0, 0), I(0, 0, 0, 0, 0), EXIT);
	REFUSED(1, "a malformed 64-bit load", MOV64K(0, 0),
		I(BPF_LD | BPF_IMM | EBPF_DW, 1, 0, 0, 0), I(BPF_ALU, 0, 0, 0, 0), EXIT);
	REFUSED(1, "without its second half", MOV64K(0, 0), I(BPF_LD | BPF_IMM | EBPF_DW, 1, 0, 0, 0));
	REFUSED(0, "packet loads", I(BPF_LD | BPF_ABS | BPF_W, 0, 0, 0, 0), EXIT);
	REFUSED(1, "32-bit jumps", MOV64K(0, 0), I(0x06 | BPF_JEQ | BPF_K, 0, 0, 0, 0), EXIT);
	REFUSED(0, "r11 does not exist", I(EBPF_ALU64 | EBPF_MOV | BPF_X, 0, 11, 0, 0), EXIT);
	REFUSED(0, "writes the frame pointer", MOV64K(10, 0), EXIT);
	REFUSED(0, "writes the frame pointer", A64K(BPF_ADD, 10, 8), EXIT);
	REFUSED(1, "not an ALU operation", MOV64K(0, 0), I(EBPF_ALU64 | 0xe0, 0, 0, 0, 0), EXIT);
	REFUSED(1, "not a load", MOV64K(0, 0), I(BPF_LDX | BPF_ABS | BPF_W, 0, 1, 0, 0), EXIT);
	REFUSED(1, "unused fields", MOV64K(0, 0), I(EBPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 4, 1),
		EXIT);
	REFUSED(1, "unused fields", MOV64K(0, 0), I(EBPF_ALU64 | BPF_ADD | BPF_X, 0, 0, 0, 7),
		EXIT);
	REFUSED(0, "unused fields of exit", I(BPF_JMP | EBPF_EXIT, 0, 0, 0, 1));
	REFUSED(2, "atomic operation 0x1", MOV64K(0, 0), ST(EBPF_DW, 10, -8, 0),
		I(BPF_STX | EBPF_XADD | EBPF_DW, 10, 0, -8, 1), EXIT); /* fetch-add */
	REFUSED(0, "runs past the last instruction", MOV64K(0, 0));
	/* past the end only on a path the dataflow never takes (r0 is never
	 * negative): refused all the same, the JIT compiles every instruction */
	REFUSED(5, "runs past the last instruction", MOV64K(0, 0x1a610000),
		JK(EBPF_JSLT, 0, 0, 1), EXIT, JK(EBPF_JSGE, 0, 0x09000100, 0),
		JK(EBPF_JSGE, 0, 0x0022b001, 0), MOV64X(6, 0));
	REFUSED(3, "the last is a 64-bit load", MOV64K(0, 0), JA(0), LDDW(1, 1, 1));
	assert_int_not_equal(aif_lb_prog_check_insns(NULL, 0, "aifabric/lb/t", &(struct aif_lb_prog_check){ 0 }, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "no instructions"));
}

static void
test_pointer_arithmetic(void **state)
{
	(void)state;
	REFUSED(3, "add of two pointers", ENTRY(0), MOV64X(2, 0), A64X(BPF_ADD, 0, 2),
		LDX(EBPF_DW, 0, 0, 0), EXIT);
	REFUSED(3, "sub of two pointers", ENTRY(0), MOV64X(2, 0), A64X(BPF_SUB, 2, 10),
		MOV64X(3, 10), A64X(BPF_ADD, 3, 2), LDX(EBPF_DW, 0, 3, -8), EXIT);
	REFUSED(2, "mul on a pointer", ENTRY(0), A64K(BPF_MUL, 0, 3), LDX(EBPF_DW, 0, 0, 0),
		EXIT);
	REFUSED(2, "lsh on a pointer", ENTRY(0), A64K(BPF_LSH, 0, 1), LDX(EBPF_DW, 0, 0, 0),
		EXIT);
	REFUSED(0, "and on a pointer", A64K(BPF_AND, 1, -8), LDX(EBPF_DW, 0, 1, 0), EXIT);
	REFUSED(0, "xor of two pointers", A64X(BPF_XOR, 1, 1), MOV64K(0, 0), EXIT);
	REFUSED(0, "neg on a pointer", I(EBPF_ALU64 | BPF_NEG, 1, 0, 0, 0), MOV64K(0, 0), EXIT);
	REFUSED(2, "copies the low half of a pointer", ENTRY(0), MOV32X(0, 0),
		LDX(EBPF_DW, 0, 0, 0), EXIT);
	REFUSED(0, "32-bit add on a pointer", A32K(BPF_ADD, 1, 4), MOV64K(0, 0), EXIT);
	REFUSED(1, "sub on a pointer", MOV64K(2, 4), A64X(BPF_SUB, 2, 1), MOV64K(0, 0), EXIT);
	/* a number of unknown size added */
	REFUSED(3, "adds a number of up to 4294967295", LDX(BPF_W, 6, 1, CTX(hash)), ENTRY(0),
		A64X(BPF_ADD, 0, 6), LDX(BPF_W, 0, 0, 0), EXIT);
	REFUSED(4, "moves a pointer too far", ENTRY(0), LDDW(3, 0, 1), A64K(BPF_ADD, 0, 0x7fffffff),
		A64K(BPF_ADD, 0, 0x7fffffff), MOV64K(0, 0), EXIT);
	/* a pointer where a number is expected, or compared with one */
	REFUSED(4, "passes a pointer (r2) to helper 6", ENTRY(0), MOV64X(2, 0), MOV64K(1, 0),
		CALL(AIF_LB_HELPER_COUNTER_ADD), MOV64K(0, 0), EXIT);
	REFUSED(2, "stores a pointer outside the stack", ENTRY(0), STX(EBPF_DW, 0, 0, 0),
		MOV64K(0, 0), EXIT);
	REFUSED(2, "stores a pointer outside the stack", ENTRY(0), XADD(EBPF_DW, 10, 0, -8),
		MOV64K(0, 0), EXIT);
	REFUSED(1, "returns a pointer", MOV64X(0, 1), EXIT);
	REFUSED(0, "compares a pointer with a number", JK(BPF_JGT, 1, 100, 1), MOV64K(0, 0),
		EXIT);
	REFUSED(2, "compares a pointer with a pointer into another region", ENTRY(0),
		JX(BPF_JGT, 0, 10, 0), MOV64K(0, 0), EXIT);
	REFUSED(1, "reads memory through r2, which is not a pointer", MOV64K(2, 4096),
		LDX(BPF_W, 0, 2, 0), EXIT);
	REFUSED(1, "writes memory through r2, which is not a pointer", MOV64K(2, 4096),
		ST(BPF_W, 2, 0, 0), MOV64K(0, 0), EXIT);
}

static void
test_bounds(void **state)
{
	(void)state;
	int end = (int)sizeof(struct aif_lb_prog_ctx);

	/* the 8 bytes before an entry (the table's heap chunk header) */
	REFUSED(3, "reads a flow-table entry at bytes -8..0", ENTRY(0), A64K(BPF_ADD, 0, -8),
		LDX(EBPF_DW, 0, 0, 0), EXIT);
	/* 8 bytes past an entry, as past the last entry of the table */
	REFUSED(2, "writes a flow-table entry at bytes 16..24", ENTRY(-1), STX(EBPF_DW, 0, 10, 16),
		MOV64K(0, 0), EXIT);
	REFUSED(2, "writes a flow-table entry at bytes 16..24", ENTRY(-1), ST(EBPF_DW, 0, 16, 7),
		MOV64K(0, 0), EXIT);
	REFUSED(0, "reads the context at bytes", LDX(BPF_W, 0, 1, end), EXIT);
	REFUSED(0, "reads the context at bytes -4..0", LDX(BPF_W, 0, 1, -4), EXIT);
	REFUSED(0, "writes to the context", ST(BPF_W, 1, CTX(hash), 0), MOV64K(0, 0), EXIT);
	REFUSED(1, "writes to the context", MOV64K(2, 1), XADD(BPF_W, 1, 2, CTX(hash)),
		MOV64K(0, 0), EXIT);
	REFUSED(0, "reads the stack at bytes -520..-512", LDX(EBPF_DW, 0, 10, -520), EXIT);
	REFUSED(0, "writes the stack at bytes 0..8", STX(EBPF_DW, 10, 1, 0), MOV64K(0, 0), EXIT);
	/* member[hash & 255]: past the context (member[] and the per-class
	 * bytes after it hold 64 x 16 + 64 x 32 bytes) */
	REFUSED(4, "(a variable offset), outside", LDX(BPF_W, 2, 1, CTX(hash)),
		A64K(BPF_AND, 2, 255), A64K(BPF_LSH, 2, 4), A64X(BPF_ADD, 2, 1),
		LDX(BPF_W, 0, 2, CTX(member[0].queued_bytes)), EXIT);
	/* the last field, appended at the end: its last word reads, the next not */
	ACCEPTED(LDX(BPF_W, 0, 1, CTX(tc_queued_bytes[AIF_LB_PROG_MAX_MEMBERS - 1][7])), EXIT);
	assert_int_equal(CTX(tc_queued_bytes[AIF_LB_PROG_MAX_MEMBERS - 1][7]) + 4, end);
	/* tc_queued_bytes[hash & 63][tc]: inside */
	ACCEPTED(LDX(BPF_W, 2, 1, CTX(hash)), A64K(BPF_AND, 2, 63), A64K(BPF_LSH, 2, 5),
		 A64X(BPF_ADD, 2, 1), LDX(BPF_W, 0, 2, CTX(tc_queued_bytes[0][3])), EXIT);
	/* the stack: never written, partly overwritten pointer, variable writes */
	REFUSED(0, "reads the stack at fp-8, which it did not write", LDX(EBPF_DW, 0, 10, -8),
		EXIT);
	REFUSED(2, "which it did not write", ST(BPF_W, 10, -8, 1), MOV64K(0, 0),
		LDX(EBPF_DW, 0, 10, -8), EXIT);
	REFUSED(2, "reads part of a pointer kept on the stack", STX(EBPF_DW, 10, 1, -8),
		MOV64K(0, 0), LDX(BPF_W, 0, 10, -8), EXIT);
	REFUSED(3, "reads the stack at fp-4, which it did not write", STX(EBPF_DW, 10, 1, -8),
		ST(BPF_W, 10, -8, 0), MOV64K(0, 0), LDX(EBPF_DW, 0, 10, -8), EXIT);
	REFUSED(4, "writes the stack at a variable offset", LDX(BPF_W, 2, 1, CTX(hash)),
		A64K(BPF_AND, 2, 7), MOV64X(3, 10), A64X(BPF_ADD, 3, 2),
		ST(BPF_B, 3, -16, 1), MOV64K(0, 0), EXIT);
	REFUSED(3, "stores part of a pointer", MOV64K(0, 0), ST(EBPF_DW, 10, -16, 0),
		ST(EBPF_DW, 10, -8, 0), STX(BPF_W, 10, 1, -12), EXIT);
	/* registers never set */
	REFUSED(0, "reads r5, which is not set", MOV64X(0, 5), EXIT);
	REFUSED(0, "reads r0, which is not set", EXIT);
	REFUSED(2, "reads r1, which is not set", ENTRY(0), LDX(BPF_W, 0, 1, 0), EXIT);
	REFUSED(2, "reads r5, which is not set", JK(EBPF_JNE, 1, 0, 1), MOV64K(5, 1),
		MOV64X(0, 5), EXIT); /* (a pointer is never 0: the jump is taken) */
	/* aif_lb_table_read's buffer */
	REFUSED(2, "not at a fixed place on the stack", MOV64K(1, 0), MOV64X(2, 1 + 0),
		CALL(AIF_LB_HELPER_TABLE_READ), MOV64K(0, 0), EXIT);
	REFUSED(3, "writes the stack at bytes -8..8", MOV64K(1, 0), MOV64X(2, 10),
		A64K(BPF_ADD, 2, -8), CALL(AIF_LB_HELPER_TABLE_READ), MOV64K(0, 0), EXIT);
	/* division */
	REFUSED(2, "divides by r2, which may be 0", LDX(BPF_W, 2, 1, CTX(n_up)), MOV64K(0, 5),
		A64X(BPF_DIV, 0, 2), EXIT);
	REFUSED(5, "divides by r3, which may be 0", LDX(BPF_W, 3, 1, CTX(n_members)),
		LDX(BPF_W, 4, 1, CTX(hash)), JK(EBPF_JNE, 4, 0, 1), MOV64K(3, 0),
		MOV64K(0, 5), A64X(BPF_DIV, 0, 3), EXIT);
	REFUSED(3, "divides by r2, which may be 0", LDDW(2, 0, 1), MOV64K(0, 5),
		A32X(BPF_MOD, 0, 2), EXIT); /* 2^32: 0 in 32 bits */
	/* merged paths */
	REFUSED(4, "uses r2, a pointer on one path and something else on another",
		LDX(BPF_W, 3, 1, CTX(hash)), MOV64X(2, 1), JK(BPF_JEQ, 3, 0, 1), MOV64K(2, 0),
		LDX(BPF_W, 0, 2, 0), EXIT);
	REFUSED(6, "holds a pointer on one path and something else on another",
		LDX(BPF_W, 3, 1, CTX(hash)), STX(EBPF_DW, 10, 1, -8), JK(BPF_JEQ, 3, 0, 1),
		STX(EBPF_DW, 10, 3, -8), MOV64K(0, 0), MOV64K(0, 0), LDX(EBPF_DW, 2, 10, -8),
		LDX(BPF_W, 0, 2, 0), EXIT);
}

static void
test_valid(void **state)
{
	(void)state;
	/* a flow-table entry pointer kept on the stack across a helper call,
	 * read back and written through (clang does this under register
	 * pressure) */
	ACCEPTED(ENTRY(7), STX(EBPF_DW, 10, 0, -8), CALL(AIF_LB_HELPER_RANDOM),
		 LDX(EBPF_DW, 2, 10, -8), STX(BPF_W, 2, 0, 12), ST(EBPF_DW, 2, 0, 1),
		 LDX(BPF_W, 0, 2, 8), EXIT);
	/* the context kept and read back whole */
	ACCEPTED(STX(EBPF_DW, 10, 1, -16), CALL(AIF_LB_HELPER_RANDOM),
		 LDX(EBPF_DW, 1, 10, -16), LDX(BPF_W, 0, 1, CTX(hash)), EXIT);
	/* member[random_below(n_members) & 63].queued_bytes */
	ACCEPTED(MOV64X(6, 1), LDX(BPF_W, 1, 6, CTX(n_members)), CALL(AIF_LB_HELPER_RANDOM_BELOW),
		 A64K(BPF_AND, 0, 63), A64K(BPF_LSH, 0, 4), A64X(BPF_ADD, 0, 6),
		 LDX(BPF_W, 0, 0, CTX(member[0].queued_bytes)), EXIT);
	/* the same without the mask: random_below(n_members) < 64 */
	ACCEPTED(MOV64X(6, 1), LDX(BPF_W, 1, 6, CTX(n_members)), CALL(AIF_LB_HELPER_RANDOM_BELOW),
		 A64K(BPF_LSH, 0, 4), A64X(BPF_ADD, 6, 0),
		 LDX(BPF_W, 0, 6, CTX(member[0].queued_bytes)), EXIT);
	/* an index tested against a bound (clang's zero-extension shifts too) */
	ACCEPTED(LDX(BPF_W, 2, 1, CTX(hash)), A64K(BPF_LSH, 2, 32), A64K(BPF_RSH, 2, 32),
		 MOV64K(0, 0), JK(BPF_JGT, 2, 63, 2), A64X(BPF_ADD, 1, 2),
		 LDX(BPF_B, 0, 1, CTX(up_at[0])), EXIT);
	/* a divisor tested first; n_members never 0 */
	ACCEPTED(LDX(BPF_W, 2, 1, CTX(n_up)), MOV64K(0, 0), JK(BPF_JEQ, 2, 0, 2),
		 LDX(BPF_W, 0, 1, CTX(hash)), A64X(BPF_MOD, 0, 2), EXIT);
	ACCEPTED(LDX(BPF_W, 2, 1, CTX(n_members)), LDX(BPF_W, 0, 1, CTX(hash)),
		 A32X(BPF_MOD, 0, 2), EXIT);
	/* a 16-byte buffer on the stack for aif_lb_table_read, then read */
	ACCEPTED(MOV64K(1, 3), MOV64X(2, 10), A64K(BPF_ADD, 2, -16),
		 CALL(AIF_LB_HELPER_TABLE_READ), LDX(BPF_W, 0, 10, -4), EXIT);
	/* null test of an entry; atomic add to an entry and to the stack */
	ACCEPTED(ENTRY(1), JK(BPF_JEQ, 0, 0, 3), MOV64K(2, 1), XADD(EBPF_DW, 0, 2, 0),
		 ST(EBPF_DW, 10, -8, 0), XADD(BPF_W, 10, 2, -8), MOV64K(0, 0), EXIT);
	/* a read at a variable offset inside written stack bytes */
	ACCEPTED(ST(EBPF_DW, 10, -16, 1), ST(EBPF_DW, 10, -8, 2), LDX(BPF_W, 2, 1, CTX(hash)),
		 A64K(BPF_AND, 2, 8), MOV64X(3, 10), A64X(BPF_ADD, 3, 2),
		 LDX(EBPF_DW, 0, 3, -16), EXIT);
	/* unreachable code is not followed (its shape still is) */
	ACCEPTED(MOV64K(0, 0), JA(1), LDX(BPF_W, 0, 5, 0), EXIT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jit_immediates),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_pointer_arithmetic),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
