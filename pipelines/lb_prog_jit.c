/* SPDX-License-Identifier: BSD-3-Clause */
/* The x86-64 JIT for load-balancing programs (lb_prog_jit.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf_def.h>

#include "lb_prog_jit.h"

enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

/* eBPF register -> x86-64 register (lb_prog_jit.h) */
static const uint8_t reg_of[11] = { RAX, RDI, RSI, RDX, RCX, R8, RBX, R13, R14, R15, RBP };

#define STACK_BYTES 512
#define MAX_PASSES 32 /* then every jump 32-bit (never seen: see lb_prog_jit.h) */

/* x86 condition codes (jcc = 0x70 + cc, or 0x0f 0x80 + cc) by eBPF jump */
#define CC_ALWAYS (-1)
static const int8_t cc_of[16] = {
	[BPF_JEQ >> 4] = 0x4,   /* je */
	[EBPF_JNE >> 4] = 0x5,  /* jne */
	[BPF_JSET >> 4] = 0x5,  /* jne (after test) */
	[BPF_JGT >> 4] = 0x7,   /* ja */
	[BPF_JGE >> 4] = 0x3,   /* jae */
	[EBPF_JLT >> 4] = 0x2,  /* jb */
	[EBPF_JLE >> 4] = 0x6,  /* jbe */
	[EBPF_JSGT >> 4] = 0xf, /* jg */
	[EBPF_JSGE >> 4] = 0xd, /* jge */
	[EBPF_JSLT >> 4] = 0xc, /* jl */
	[EBPF_JSLE >> 4] = 0xe, /* jle */
};

struct jit {
	const struct ebpf_insn *ins;
	uint32_t n;
	aif_lb_helper_fn *const *helpers;
	uint32_t n_helpers;
	bool rel32;           /* every jump 32-bit */
	uint8_t *buf;         /* NULL: a sizing pass */
	size_t cap;           /* buf's bytes */
	size_t pos;           /* where the next byte goes */
	uint32_t *off;        /* this pass: off[i] where instruction i starts,
			       * off[n] the epilogue, off[n + 1] the exit with 0 */
	const uint32_t *prev; /* the previous pass's (NULL: every jump 32-bit) */
	uint32_t insn;        /* the instruction being laid out */
	uint32_t short_jumps;
	uint8_t saved[5];     /* callee-saved registers pushed, in order */
	unsigned n_saved;
	uint32_t frame_bytes; /* below them: the program's stack and padding */
	bool fp;              /* r10 used: rbp is the frame pointer */
	bool divides;         /* a division: the exit with 0 is laid out */
	bool failed;
	char why[160];
};

static void
refuse(struct jit *j, const char *fmt, ...)
{
	va_list ap;

	if (j->failed)
		return;
	j->failed = true;
	va_start(ap, fmt);
	vsnprintf(j->why, sizeof(j->why), fmt, ap);
	va_end(ap);
}

/* Refuse and return from the (void) function. */
#define REFUSE(...) do { refuse(__VA_ARGS__); return; } while (0)

/* ---- bytes ---- */

static void
emit1(struct jit *j, uint8_t b)
{
	if (j->buf != NULL) {
		if (j->pos >= j->cap) {
			refuse(j, "instruction %u: the code outgrew its layout", j->insn);
			return;
		}
		j->buf[j->pos] = b;
	}
	j->pos++;
}

static void
emit2(struct jit *j, uint16_t v)
{
	emit1(j, (uint8_t)v);
	emit1(j, (uint8_t)(v >> 8));
}

static void
emit4(struct jit *j, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		emit1(j, (uint8_t)(v >> (8 * k)));
}

static void
emit8(struct jit *j, uint64_t v)
{
	emit4(j, (uint32_t)v);
	emit4(j, (uint32_t)(v >> 32));
}

static bool
fits8(int64_t v)
{
	return v >= -128 && v <= 127;
}

/* ---- encodings ---- */

/* The REX prefix: w 64-bit operands, r ModRM.reg, b ModRM.rm (or the
 * base); force: even with no bit set (so that byte registers 4..7 are
 * spl, bpl, sil, dil rather than ah, ch, dh, bh). */
static void
rex(struct jit *j, bool w, unsigned r, unsigned b, bool force)
{
	uint8_t v = (uint8_t)(0x40 | (w ? 8 : 0) | ((r >> 3) << 2) | (b >> 3));

	if (v != 0x40 || force)
		emit1(j, v);
}

static void
opcode(struct jit *j, uint16_t opc)
{
	if (opc > 0xff)
		emit1(j, (uint8_t)(opc >> 8)); /* 0x0f xx */
	emit1(j, (uint8_t)opc);
}

static void
modrm(struct jit *j, unsigned mod, unsigned r, unsigned rm)
{
	emit1(j, (uint8_t)((mod << 6) | ((r & 7) << 3) | (rm & 7)));
}

/* opc with ModRM.reg = r, ModRM.rm = the register rm. */
static void
op_rr(struct jit *j, bool w, uint16_t opc, unsigned r, unsigned rm)
{
	rex(j, w, r, rm, false);
	opcode(j, opc);
	modrm(j, 3, r, rm);
}

/* dst = src, 64 bits (w) or 32 zero-extended. */
static void
mov_rr(struct jit *j, bool w, unsigned dst, unsigned src)
{
	op_rr(j, w, 0x89, src, dst);
}

/* [66] [REX] opc, ModRM.reg = r, memory at [base + disp]; byte: r is a
 * byte register.  (rbp and r13 as a base need a displacement, rsp and r12
 * a SIB byte.) */
static void
op_mem(struct jit *j, bool p66, bool w, bool byte, uint16_t opc, unsigned r, unsigned base,
       int32_t disp)
{
	unsigned mod = disp == 0 && (base & 7) != RBP ? 0 : fits8(disp) ? 1 : 2;

	if (p66)
		emit1(j, 0x66);
	rex(j, w, r, base, byte && r >= 4 && r <= 7);
	opcode(j, opc);
	modrm(j, mod, r, base);
	if ((base & 7) == RSP)
		emit1(j, 0x24);
	if (mod == 1)
		emit1(j, (uint8_t)disp);
	else if (mod == 2)
		emit4(j, (uint32_t)disp);
}

/* op dst, imm (ext: the opcode's ModRM.reg): 83 with an 8-bit immediate,
 * 81 with 32 bits, both sign-extended to the operand's size. */
static void
alu_ri(struct jit *j, bool w, unsigned ext, unsigned dst, int32_t imm)
{
	rex(j, w, 0, dst, false);
	emit1(j, fits8(imm) ? 0x83 : 0x81);
	modrm(j, 3, ext, dst);
	if (fits8(imm))
		emit1(j, (uint8_t)imm);
	else
		emit4(j, (uint32_t)imm);
}

/* dst = imm: as a 64-bit value sign-extended (w), or 32 bits zero-extended. */
static void
mov_ri(struct jit *j, bool w, unsigned dst, int32_t imm)
{
	if (imm == 0) { /* xor dst32, dst32 (flags are dead between instructions) */
		op_rr(j, false, 0x31, dst, dst);
	} else if (!w || imm > 0) { /* mov dst32, imm32 */
		rex(j, false, 0, dst, false);
		emit1(j, (uint8_t)(0xb8 + (dst & 7)));
		emit4(j, (uint32_t)imm);
	} else { /* mov dst64, simm32 */
		rex(j, true, 0, dst, false);
		emit1(j, 0xc7);
		modrm(j, 3, 0, dst);
		emit4(j, (uint32_t)imm);
	}
}

/* dst = v, 64 bits. */
static void
mov_r64(struct jit *j, unsigned dst, uint64_t v)
{
	if (v <= INT32_MAX || (int64_t)v == (int64_t)(int32_t)v) {
		mov_ri(j, true, dst, (int32_t)v);
	} else if (v <= UINT32_MAX) { /* mov dst32, imm32 */
		rex(j, false, 0, dst, false);
		emit1(j, (uint8_t)(0xb8 + (dst & 7)));
		emit4(j, (uint32_t)v);
	} else { /* movabs */
		rex(j, true, 0, dst, false);
		emit1(j, (uint8_t)(0xb8 + (dst & 7)));
		emit8(j, v);
	}
}

/*
 * A jump (cc: an x86 condition, or CC_ALWAYS) to t: an instruction, n the
 * epilogue, n + 1 the exit with 0.  8-bit where the displacement fits under
 * the previous pass's layout, in which this jump would end at
 * prev[insn] + (the bytes of the instruction before it) + 2.
 */
static void
jump(struct jit *j, int cc, uint32_t t)
{
	bool shrt = false;

	if (j->prev != NULL && !j->rel32) {
		int64_t end = (int64_t)j->prev[j->insn] + (int64_t)(j->pos - j->off[j->insn]) + 2;
		shrt = fits8((int64_t)j->prev[t] - end);
	}
	if (shrt) {
		emit1(j, cc == CC_ALWAYS ? 0xeb : (uint8_t)(0x70 + cc));
		int64_t d = (int64_t)j->prev[t] - (int64_t)(j->pos + 1);
		if (j->buf != NULL && !fits8(d))
			refuse(j, "instruction %u: a short jump's target moved", j->insn);
		emit1(j, (uint8_t)d);
		j->short_jumps++;
		return;
	}
	if (cc == CC_ALWAYS) {
		emit1(j, 0xe9);
	} else {
		emit1(j, 0x0f);
		emit1(j, (uint8_t)(0x80 + cc));
	}
	emit4(j, j->prev != NULL ? (uint32_t)((int64_t)j->prev[t] - (int64_t)(j->pos + 4)) : 0);
}

/* ---- instructions ---- */

/*
 * dst = dst shift by src (ext: 4 shl, 5 shr, 7 sar).  x86 takes the count
 * in cl (eBPF r4) and masks it by 63, or 31 in 32 bits, as eBPF does.
 */
static void
shift_by_reg(struct jit *j, bool w, unsigned ext, unsigned d, unsigned s)
{
	unsigned work = d == RCX ? R11 : d;

	if (d == RCX)
		mov_rr(j, true, R11, RCX);  /* the value out of rcx */
	if (s != RCX) {
		if (d != RCX)
			mov_rr(j, true, R10, RCX); /* rcx (r4) kept */
		mov_rr(j, true, RCX, s);        /* the count (even if s is d) */
	}
	rex(j, w, 0, work, false);
	emit1(j, 0xd3);
	modrm(j, 3, ext, work);
	if (!w)
		mov_rr(j, false, work, work); /* zero-extended on a count of 0 too */
	if (d == RCX)
		mov_rr(j, true, RCX, R11);
	else if (s != RCX)
		mov_rr(j, true, RCX, R10);
}

/*
 * dst = dst / src or dst % src (unsigned; 32 bits: both cut and the result
 * zero-extended).  x86 divides rdx:rax (r3:r0): both are kept in r9 and
 * r10 unless dst is that register, the divisor first copied to r11 (so
 * src may be any register, dst itself included).  A divisor of 0 (never in
 * a checked program) ends the program with 0, as the interpreter does; the
 * test reads only r11.
 */
static void
divide(struct jit *j, bool w, bool mod, unsigned d, bool k, unsigned s, int32_t imm)
{
	unsigned res = mod ? RDX : RAX;

	if (k && imm == 0) {
		jump(j, CC_ALWAYS, j->n + 1);
		return;
	}
	if (k) {
		mov_ri(j, w, R11, imm);
	} else {
		mov_rr(j, w, R11, s);
		op_rr(j, w, 0x85, R11, R11); /* test */
		jump(j, 0x4, j->n + 1);      /* je: the exit with 0 */
	}
	if (d != RAX)
		mov_rr(j, true, R9, RAX);
	if (d != RDX)
		mov_rr(j, true, R10, RDX);
	if (d != RAX)
		mov_rr(j, w, RAX, d);
	op_rr(j, false, 0x31, RDX, RDX); /* xor edx, edx */
	rex(j, w, 0, R11, false);
	emit1(j, 0xf7);
	modrm(j, 3, 6, R11);             /* div r11 */
	if (d != res)
		mov_rr(j, true, d, res);
	if (d != RAX)
		mov_rr(j, true, RAX, R9);
	if (d != RDX)
		mov_rr(j, true, RDX, R10);
}

static void
alu(struct jit *j, const struct ebpf_insn x)
{
	static const uint8_t rr[16] = { /* op r/m, reg */
		[BPF_ADD >> 4] = 0x01, [BPF_SUB >> 4] = 0x29, [BPF_OR >> 4] = 0x09,
		[BPF_AND >> 4] = 0x21, [BPF_XOR >> 4] = 0x31,
	};
	static const uint8_t ext[16] = { /* 81 /ext, 83 /ext; c1 /ext, d3 /ext */
		[BPF_ADD >> 4] = 0, [BPF_OR >> 4] = 1, [BPF_AND >> 4] = 4, [BPF_SUB >> 4] = 5,
		[BPF_XOR >> 4] = 6, [BPF_LSH >> 4] = 4, [BPF_RSH >> 4] = 5, [EBPF_ARSH >> 4] = 7,
	};
	bool w = BPF_CLASS(x.code) == EBPF_ALU64, k = BPF_SRC(x.code) == BPF_K;
	unsigned d = reg_of[x.dst_reg], s = reg_of[x.src_reg];
	uint8_t op = BPF_OP(x.code);

	if (x.dst_reg == 10)
		REFUSE(j, "instruction %u: writes r10", j->insn);
	switch (op) {
	case BPF_ADD:
	case BPF_SUB:
	case BPF_OR:
	case BPF_AND:
	case BPF_XOR:
		if (k)
			alu_ri(j, w, ext[op >> 4], d, x.imm);
		else
			op_rr(j, w, rr[op >> 4], s, d);
		break;
	case EBPF_MOV:
		if (k)
			mov_ri(j, w, d, x.imm);
		else
			mov_rr(j, w, d, s);
		break;
	case BPF_MUL: /* imul: its low half is the unsigned product's */
		if (!k) {
			op_rr(j, w, 0x0faf, d, s);
			break;
		}
		rex(j, w, d, d, false);
		emit1(j, fits8(x.imm) ? 0x6b : 0x69);
		modrm(j, 3, d, d);
		if (fits8(x.imm))
			emit1(j, (uint8_t)x.imm);
		else
			emit4(j, (uint32_t)x.imm);
		break;
	case BPF_NEG:
		rex(j, w, 0, d, false);
		emit1(j, 0xf7);
		modrm(j, 3, 3, d);
		break;
	case BPF_LSH:
	case BPF_RSH:
	case EBPF_ARSH:
		if (op == EBPF_ARSH && !w)
			REFUSE(j, "instruction %u: a 32-bit arsh", j->insn);
		if (!k) {
			shift_by_reg(j, w, ext[op >> 4], d, s);
		} else if (x.imm < 0 || x.imm > (w ? 63 : 31)) {
			refuse(j, "instruction %u: a shift by %d", j->insn, x.imm);
		} else if (x.imm == 0) {
			if (!w)
				mov_rr(j, false, d, d); /* a 32-bit operation: zero-extended */
		} else {
			rex(j, w, 0, d, false);
			emit1(j, 0xc1);
			modrm(j, 3, ext[op >> 4], d);
			emit1(j, (uint8_t)x.imm);
		}
		break;
	case BPF_DIV:
	case BPF_MOD:
		divide(j, w, op == BPF_MOD, d, k, s, x.imm);
		break;
	case EBPF_END:
		if (w)
			REFUSE(j, "instruction %u: a 64-bit class byte swap", j->insn);
		if (BPF_SRC(x.code) == EBPF_TO_LE) { /* le64: nothing on x86 */
			if (x.imm != 64)
				refuse(j, "instruction %u: le%d", j->insn, x.imm);
		} else if (x.imm == 16) { /* rol d16, 8; movzx d32, d16 */
			emit1(j, 0x66);
			rex(j, false, 0, d, false);
			emit1(j, 0xc1);
			modrm(j, 3, 0, d);
			emit1(j, 8);
			op_rr(j, false, 0x0fb7, d, d);
		} else if (x.imm == 32 || x.imm == 64) { /* bswap */
			rex(j, x.imm == 64, 0, d, false);
			emit1(j, 0x0f);
			emit1(j, (uint8_t)(0xc8 + (d & 7)));
		} else {
			refuse(j, "instruction %u: a byte swap of %d bits", j->insn, x.imm);
		}
		break;
	default:
		refuse(j, "instruction %u: opcode 0x%02x", j->insn, x.code);
	}
}

static void
load_store(struct jit *j, const struct ebpf_insn x)
{
	unsigned d = reg_of[x.dst_reg], s = reg_of[x.src_reg];
	uint8_t size = BPF_SIZE(x.code);

	switch (BPF_CLASS(x.code) | BPF_MODE(x.code)) {
	case BPF_LDX | BPF_MEM: /* zero-extended */
		if (x.dst_reg == 10)
			REFUSE(j, "instruction %u: writes r10", j->insn);
		op_mem(j, false, size == EBPF_DW, false,
		       size == BPF_B ? 0x0fb6 : size == BPF_H ? 0x0fb7 : 0x8b, d, s, x.off);
		break;
	case BPF_STX | BPF_MEM:
		op_mem(j, size == BPF_H, size == EBPF_DW, size == BPF_B, size == BPF_B ? 0x88 : 0x89,
		       s, d, x.off);
		break;
	case BPF_ST | BPF_MEM: /* (an 8-byte store sign-extends its immediate) */
		op_mem(j, size == BPF_H, size == EBPF_DW, false, size == BPF_B ? 0xc6 : 0xc7, 0, d,
		       x.off);
		if (size == BPF_B)
			emit1(j, (uint8_t)x.imm);
		else if (size == BPF_H)
			emit2(j, (uint16_t)x.imm);
		else
			emit4(j, (uint32_t)x.imm);
		break;
	case BPF_STX | EBPF_XADD: /* a plain add: the memory is this worker's */
		if ((size != BPF_W && size != EBPF_DW) || x.imm != BPF_ADD)
			REFUSE(j, "instruction %u: atomic operation 0x%02x/%d", j->insn,
				      x.code, x.imm);
		op_mem(j, false, size == EBPF_DW, false, 0x01, s, d, x.off);
		break;
	default:
		refuse(j, "instruction %u: opcode 0x%02x", j->insn, x.code);
	}
}

static void
jmp(struct jit *j, const struct ebpf_insn x, uint32_t i)
{
	uint8_t op = BPF_OP(x.code);
	unsigned d = reg_of[x.dst_reg], s = reg_of[x.src_reg];
	uint32_t t = i + 1 + (uint32_t)(int32_t)x.off;

	if (op == EBPF_CALL) {
		if (x.imm < 1 || (uint32_t)x.imm >= j->n_helpers || j->helpers[x.imm] == NULL)
			REFUSE(j, "instruction %u: helper %d", i, x.imm);
		mov_r64(j, RAX, (uint64_t)(uintptr_t)j->helpers[x.imm]);
		emit1(j, 0xff); /* call rax */
		emit1(j, 0xd0);
		return;
	}
	if (op == EBPF_EXIT) {
		if (i + 1 < j->n)
			jump(j, CC_ALWAYS, j->n);
		return;
	}
	if (op > EBPF_JSLE || x.off < 0 || t >= j->n)
		REFUSE(j, "instruction %u: opcode 0x%02x to %d", i, x.code, x.off);
	if (op == BPF_JA) {
		jump(j, CC_ALWAYS, t);
		return;
	}
	if (BPF_SRC(x.code) == BPF_X) {
		op_rr(j, true, op == BPF_JSET ? 0x85 : 0x39, s, d); /* test / cmp d, s */
	} else if (op == BPF_JSET) { /* test d, simm32 */
		rex(j, true, 0, d, false);
		emit1(j, 0xf7);
		modrm(j, 3, 0, d);
		emit4(j, (uint32_t)x.imm);
	} else if (x.imm == 0) {
		op_rr(j, true, 0x85, d, d); /* test d, d: the flags of cmp d, 0 */
	} else {
		alu_ri(j, true, 7, d, x.imm); /* cmp d, simm */
	}
	jump(j, cc_of[op >> 4], t);
}

/* ---- the frame ---- */

static void
prologue(struct jit *j)
{
	for (unsigned k = 0; k < j->n_saved; k++) { /* push */
		rex(j, false, 0, j->saved[k], false);
		emit1(j, (uint8_t)(0x50 + (j->saved[k] & 7)));
	}
	if (j->fp)
		mov_rr(j, true, RBP, RSP);
	if (j->frame_bytes > 0) { /* sub rsp, frame */
		rex(j, true, 0, RSP, false);
		emit1(j, 0x81);
		modrm(j, 3, 5, RSP);
		emit4(j, j->frame_bytes);
	}
}

static void
epilogue(struct jit *j)
{
	if (j->frame_bytes > 0) { /* add rsp, frame */
		rex(j, true, 0, RSP, false);
		emit1(j, 0x81);
		modrm(j, 3, 0, RSP);
		emit4(j, j->frame_bytes);
	}
	for (unsigned k = j->n_saved; k-- > 0;) { /* pop */
		rex(j, false, 0, j->saved[k], false);
		emit1(j, (uint8_t)(0x58 + (j->saved[k] & 7)));
	}
	emit1(j, 0xc3);
}

/* The registers the program names, whether it calls: the frame. */
static void
frame(struct jit *j)
{
	static const uint8_t callee_saved[] = { 6, 7, 8, 9 }; /* rbx, r13, r14, r15 */
	bool used[11] = { false }, calls = false;

	for (uint32_t i = 0; i < j->n; i++) {
		const struct ebpf_insn x = j->ins[i];
		if (x.dst_reg <= 10)
			used[x.dst_reg] = true;
		if (x.src_reg <= 10)
			used[x.src_reg] = true;
		calls |= x.code == (BPF_JMP | EBPF_CALL);
		j->divides |= (BPF_CLASS(x.code) == BPF_ALU || BPF_CLASS(x.code) == EBPF_ALU64) &&
			      (BPF_OP(x.code) == BPF_DIV || BPF_OP(x.code) == BPF_MOD);
		if (x.code == (BPF_LD | BPF_IMM | EBPF_DW))
			i++;
	}
	j->n_saved = 0;
	j->fp = used[10];
	if (j->fp)
		j->saved[j->n_saved++] = RBP;
	for (unsigned k = 0; k < sizeof(callee_saved); k++)
		if (used[callee_saved[k]])
			j->saved[j->n_saved++] = reg_of[callee_saved[k]];
	j->frame_bytes = j->fp ? STACK_BYTES : 0;
	/* rsp is 8 off a multiple of 16 at entry; 16-aligned at a call */
	if (calls && (8 + 8 * j->n_saved + j->frame_bytes) % 16 != 0)
		j->frame_bytes += 8;
}

/* ---- passes ---- */

/* Lay out (buf NULL) or write the whole program; off[] gets this pass's
 * offsets.  Writing, every instruction must start where prev has it. */
static void
pass(struct jit *j)
{
	j->pos = 0;
	j->short_jumps = 0;
	j->insn = 0;
	prologue(j);
	for (uint32_t i = 0; i < j->n && !j->failed; i++) {
		const struct ebpf_insn x = j->ins[i];
		size_t at = j->pos;
		j->insn = i;
		if (j->buf != NULL && j->pos != j->prev[i])
			REFUSE(j, "instruction %u: at byte %zu, laid out at %u", i, j->pos,
				      j->prev[i]);
		j->off[i] = (uint32_t)j->pos;
		if (x.dst_reg > 10 || x.src_reg > 10)
			REFUSE(j, "instruction %u: register r%u", i,
				      x.dst_reg > 10 ? x.dst_reg : x.src_reg);
		switch (BPF_CLASS(x.code)) {
		case BPF_ALU:
		case EBPF_ALU64:
			alu(j, x);
			break;
		case BPF_LDX:
		case BPF_ST:
		case BPF_STX:
			load_store(j, x);
			break;
		case BPF_JMP:
			jmp(j, x, i);
			break;
		case BPF_LD:
			if (x.code != (BPF_LD | BPF_IMM | EBPF_DW) || i + 1 >= j->n || x.dst_reg == 10)
				REFUSE(j, "instruction %u: opcode 0x%02x", i, x.code);
			mov_r64(j, reg_of[x.dst_reg],
				(uint32_t)x.imm | (uint64_t)(uint32_t)j->ins[i + 1].imm << 32);
			j->off[++i] = (uint32_t)j->pos; /* (the second half: no code) */
			break;
		default:
			REFUSE(j, "instruction %u: opcode 0x%02x", i, x.code);
		}
		if (j->pos - at > AIF_LB_PROG_JIT_INSN_BYTES_MAX)
			REFUSE(j, "instruction %u: %zu bytes of code", i, j->pos - at);
	}
	if (j->failed)
		return;
	j->insn = j->n;
	if (j->buf != NULL && j->pos != j->prev[j->n])
		REFUSE(j, "the epilogue at byte %zu, laid out at %u", j->pos, j->prev[j->n]);
	j->off[j->n] = (uint32_t)j->pos;
	epilogue(j);
	j->off[j->n + 1] = (uint32_t)j->pos; /* the exit with 0 (a divisor of 0) */
	if (j->divides) {
		op_rr(j, false, 0x31, RAX, RAX);
		epilogue(j);
	}
}

int
aif_lb_prog_jit_compile(const uint64_t *insns, uint32_t n, aif_lb_helper_fn *const *helpers,
			uint32_t n_helpers, unsigned flags, struct aif_lb_prog_jit *out, char *why,
			size_t why_len)
{
	struct jit j = {
		.ins = (const struct ebpf_insn *)insns, .n = n, .helpers = helpers,
		.n_helpers = n_helpers, .rel32 = (flags & AIF_LB_PROG_JIT_REL32) != 0,
	};
	uint32_t *a = calloc((size_t)n + 2, sizeof(*a)), *b = calloc((size_t)n + 2, sizeof(*b));
	uint8_t *m = MAP_FAILED;
	size_t map_bytes = 0, page = (size_t)sysconf(_SC_PAGESIZE);

	memset(out, 0, sizeof(*out));
	if (a == NULL || b == NULL) {
		refuse(&j, "out of memory");
		goto out;
	}
	if (n == 0 || n > (1u << 16)) {
		refuse(&j, "%u instructions", n);
		goto out;
	}
	frame(&j);
	/* pass 1: every jump 32-bit; then shorter where they fit, until no
	 * offset moves */
	j.off = a;
	pass(&j);
	out->passes = 1;
	while (!j.failed && !j.rel32) {
		j.prev = a;
		j.off = b;
		pass(&j);
		out->passes++;
		if (memcmp(a, b, ((size_t)n + 2) * sizeof(*a)) == 0)
			break;
		uint32_t *t = a;
		a = b;
		b = t;
		if (out->passes >= MAX_PASSES) { /* all 32-bit: one pass lays that out */
			j.rel32 = true;
			j.prev = NULL;
			j.off = a;
			pass(&j);
		}
	}
	if (j.failed)
		goto out;
	size_t bytes = j.pos;
	map_bytes = (bytes + page - 1) / page * page;
	m = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		refuse(&j, "no memory for the code: %s", strerror(errno));
		goto out;
	}
	memset(m, 0xcc, map_bytes); /* int3 */
	j.buf = m;
	j.cap = bytes;
	j.prev = a;
	j.off = b;
	pass(&j);
	if (!j.failed && j.pos != bytes)
		refuse(&j, "%zu bytes of code, laid out as %zu", j.pos, bytes);
	if (!j.failed && mprotect(m, map_bytes, PROT_READ | PROT_EXEC) != 0)
		refuse(&j, "cannot make the code executable: %s", strerror(errno));
	if (j.failed)
		goto out;
	out->map = m;
	out->map_bytes = map_bytes;
	out->code_bytes = bytes;
	out->short_jumps = j.short_jumps;
	out->fn = (uint64_t (*)(void *))(uintptr_t)m;
	m = MAP_FAILED;
out:
	if (m != MAP_FAILED)
		munmap(m, map_bytes);
	free(a);
	free(b);
	if (j.failed)
		snprintf(why, why_len, "%s", j.why);
	return j.failed ? -1 : 0;
}

void
aif_lb_prog_jit_free(struct aif_lb_prog_jit *j)
{
	if (j->map != NULL)
		munmap(j->map, j->map_bytes);
	memset(j, 0, sizeof(*j));
}
