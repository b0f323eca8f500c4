/* SPDX-License-Identifier: BSD-3-Clause */
/* The load-time check of a load-balancing program (lb_prog_check.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf_def.h>

#include "../include/aifabric/lb_prog.h"
#include "lb_prog_check.h"

/* eBPF encodings DPDK's bpf_def.h lacks */
#define JMP32 0x06     /* the 32-bit jump class */
#define PSEUDO_CALL 1  /* a call's src_reg: to another eBPF function */

#define STACK_BYTES 512
#define N_SLOTS (STACK_BYTES / 8)
#define ENTRY_BYTES ((int64_t)sizeof(struct aif_lb_prog_entry))
#define CTX_BYTES ((int64_t)sizeof(struct aif_lb_prog_ctx))
#define OFF_LIMIT (1ll << 30)      /* |pointer offset| beyond this: refused */
#define ADD_LIMIT (1ull << 29)     /* a number added to a pointer: at most */

/* ---- abstract values ---- */

enum kind {
	V_NONE,   /* not set (on some path) */
	V_MIXED,  /* a pointer on one path, something else on another */
	V_SCALAR, /* a number in [lo, hi] (unsigned) */
	V_CTX,    /* the context + [lo, hi] (signed) */
	V_STACK,  /* the frame pointer + [lo, hi] (signed) */
	V_ENTRY,  /* a flow-table entry + [lo, hi] (signed) */
};

struct val {
	uint8_t kind;
	uint64_t lo, hi; /* numbers: unsigned; pointers: signed offsets */
};

struct slot {
	uint8_t init;  /* bit b: byte b written */
	uint8_t spill; /* a whole register kept here: v */
	struct val v;
};

struct state {
	struct val r[11];
	struct slot s[N_SLOTS]; /* s[k]: bytes [fp - 8(k+1), fp - 8k) */
};

static bool
is_ptr(const struct val *v)
{
	return v->kind >= V_CTX;
}

static struct val
num(uint64_t lo, uint64_t hi)
{
	return (struct val){ .kind = V_SCALAR, .lo = lo, .hi = hi };
}

static struct val
num_const(uint64_t c)
{
	return num(c, c);
}

static const struct val ANY = { .kind = V_SCALAR, .lo = 0, .hi = UINT64_MAX };

static struct val
trunc32(struct val v)
{
	return v.hi <= UINT32_MAX ? v : num(0, UINT32_MAX);
}

static uint64_t
width_max(unsigned bytes)
{
	return bytes >= 8 ? UINT64_MAX : (1ull << (8 * bytes)) - 1;
}

static struct val
merge_val(struct val a, struct val b)
{
	if (a.kind == V_NONE || b.kind == V_NONE)
		return (struct val){ .kind = V_NONE };
	if (a.kind != b.kind || a.kind == V_MIXED)
		return (struct val){ .kind = V_MIXED };
	if (a.kind == V_SCALAR)
		return num(a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi);
	int64_t lo = (int64_t)a.lo < (int64_t)b.lo ? (int64_t)a.lo : (int64_t)b.lo;
	int64_t hi = (int64_t)a.hi > (int64_t)b.hi ? (int64_t)a.hi : (int64_t)b.hi;
	return (struct val){ .kind = a.kind, .lo = (uint64_t)lo, .hi = (uint64_t)hi };
}

static void
merge_state(struct state *to, const struct state *from)
{
	for (int r = 0; r < 11; r++)
		to->r[r] = merge_val(to->r[r], from->r[r]);
	for (int k = 0; k < N_SLOTS; k++) {
		struct slot *a = &to->s[k];
		const struct slot *b = &from->s[k];
		a->init &= b->init;
		if (a->spill && b->spill) {
			a->v = merge_val(a->v, b->v);
		} else if ((a->spill && is_ptr(&a->v)) || (b->spill && is_ptr(&b->v))) {
			/* a pointer on one path: unreadable in part, unusable whole */
			a->spill = 1;
			a->v = (struct val){ .kind = V_MIXED };
		} else {
			a->spill = 0;
		}
	}
}

/* ---- the context ---- */

/* Which parts of the context bytes [from, to) are in. */
static uint32_t
ctx_parts(int64_t from, int64_t to)
{
	static const struct { uint32_t from, to, part; } parts[] = {
		{ offsetof(struct aif_lb_prog_ctx, ip_version),
		  offsetof(struct aif_lb_prog_ctx, src_ip), AIF_LB_CTX_L4 },
		{ offsetof(struct aif_lb_prog_ctx, src_ip),
		  offsetof(struct aif_lb_prog_ctx, dest_qp), AIF_LB_CTX_ADDR },
		{ offsetof(struct aif_lb_prog_ctx, dest_qp),
		  offsetof(struct aif_lb_prog_ctx, now_ns), AIF_LB_CTX_ROCE },
		{ offsetof(struct aif_lb_prog_ctx, group),
		  sizeof(struct aif_lb_prog_ctx), AIF_LB_CTX_GROUP },
		{ offsetof(struct aif_lb_prog_ctx, ecmp_member),
		  offsetof(struct aif_lb_prog_ctx, ip_version), AIF_LB_CTX_ECMP },
	};
	uint32_t m = 0;

	for (unsigned k = 0; k < sizeof(parts) / sizeof(parts[0]); k++)
		if (from < (int64_t)parts[k].to && to > (int64_t)parts[k].from)
			m |= parts[k].part;
	return m;
}

/* What a read of a context field gives: the ranges aif_lb_prog_ctx_group
 * and aif_lb_prog_ctx_packet keep to.  Fields with no entry read as any
 * value of their size (member[].queued_bytes, tc_queued_bytes[][]: bytes
 * queued, unbounded); the group's part of ctx_parts runs to the end of the
 * context, so a field appended there is in it, and every read is checked
 * against CTX_BYTES. */
static struct val
ctx_field(int64_t off, unsigned size)
{
	static const struct { uint32_t off, size; uint64_t lo, hi; } f[] = {
		{ offsetof(struct aif_lb_prog_ctx, version), 4, 1, UINT32_MAX },
		{ offsetof(struct aif_lb_prog_ctx, tc), 1, 0, 7 },
		{ offsetof(struct aif_lb_prog_ctx, n_members), 4, 1, AIF_LB_PROG_MAX_MEMBERS },
		{ offsetof(struct aif_lb_prog_ctx, n_up), 4, 0, AIF_LB_PROG_MAX_MEMBERS },
		{ offsetof(struct aif_lb_prog_ctx, table_size), 4, 1, 1u << 24 },
	};

	for (unsigned k = 0; k < sizeof(f) / sizeof(f[0]); k++)
		if (off == (int64_t)f[k].off && size == f[k].size)
			return num(f[k].lo, f[k].hi);
	return num(0, width_max(size));
}

/* ---- the check ---- */

struct checker {
	const struct ebpf_insn *ins;
	uint32_t n;
	const char *sec;
	char *err;
	size_t err_len;
	uint32_t pc; /* the instruction being checked */
	struct aif_lb_prog_check *out;
};

static int
fail(struct checker *c, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->err_len, "section %s: instruction %u: %s", c->sec, c->pc, why);
	return -1;
}

static const char *
op_name(uint8_t op)
{
	static const char *const names[16] = {
		"add", "sub", "mul", "div", "or", "and", "lsh", "rsh",
		"neg", "mod", "xor", "mov", "arsh", "byte swap", "op 0xe0", "op 0xf0",
	};
	return names[op >> 4];
}

/* Instruction i is the second half of a 64-bit load. */
static bool
second_half(const struct ebpf_insn *ins, uint32_t i)
{
	return i > 0 && ins[i - 1].code == (BPF_LD | BPF_IMM | EBPF_DW);
}

/* ---- pass 1: the shape of every instruction ---- */

static int
check_shape(struct checker *c)
{
	const struct ebpf_insn *ins = c->ins;
	uint32_t n = c->n;

	for (uint32_t i = 0; i < n; i++) {
		const struct ebpf_insn x = ins[i];
		uint8_t cls = BPF_CLASS(x.code), op = BPF_OP(x.code);
		bool k = BPF_SRC(x.code) == BPF_K;
		c->pc = i;
		if (x.dst_reg > 10 || x.src_reg > 10)
			return fail(c, "register r%u does not exist (r0..r10)",
				    x.dst_reg > 10 ? x.dst_reg : x.src_reg);
		switch (cls) {
		case BPF_ALU:
		case EBPF_ALU64: {
			bool b64 = cls == EBPF_ALU64;
			if (x.dst_reg == 10)
				return fail(c, "writes the frame pointer r10");
			if (x.off != 0 || (k && x.src_reg != 0) || (!k && x.imm != 0 && op != EBPF_END))
				return fail(c, "unused fields of a %s are not 0", op_name(op));
			if (op == EBPF_END) {
				if (b64)
					return fail(c, "64-bit class byte swap is not supported");
				if (x.imm != 16 && x.imm != 32 && x.imm != 64)
					return fail(c, "byte swap of %d bits (16, 32 or 64)", x.imm);
				if (x.src_reg != 0)
					return fail(c, "unused fields of a byte swap are not 0");
				if (BPF_SRC(x.code) == EBPF_TO_LE && x.imm != 64)
					return fail(c, "le%d is not supported (le64 is: eBPF "
						    "implementations disagree on the high bits)", x.imm);
				break;
			}
			if (op == BPF_NEG && (!k || x.imm != 0))
				return fail(c, "unused fields of a neg are not 0");
			if (op == EBPF_ARSH && !b64)
				return fail(c, "32-bit arsh is not supported (64-bit is)");
			if (op > EBPF_ARSH)
				return fail(c, "opcode 0x%02x is not an ALU operation", x.code);
			if (k && (op == BPF_LSH || op == BPF_RSH || op == EBPF_ARSH) &&
			    (x.imm < 0 || x.imm >= (b64 ? 64 : 32)))
				return fail(c, x.imm >= -255 && x.imm <= 255 ? "shifts by %d (0..%d)" :
					    "shifts by %#x (0..%d)", x.imm, b64 ? 63 : 31);
			if (k && (op == BPF_DIV || op == BPF_MOD) && x.imm == 0)
				return fail(c, "divides by the constant 0");
			break;
		}
		case BPF_JMP:
			if ((op == EBPF_CALL || op == EBPF_EXIT) && !k)
				return fail(c, "opcode 0x%02x is not a jump (a call or exit by "
					    "register)", x.code);
			if (op == EBPF_CALL) {
				if (x.src_reg == PSEUDO_CALL)
					return fail(c, "calls another eBPF function (not supported: "
						    "make it static inline)");
				if (x.src_reg != 0 || x.dst_reg != 0 || x.off != 0 ||
				    x.imm < 1 || x.imm > AIF_LB_HELPER_MAX)
					return fail(c, "calls unknown helper %d (helpers are 1..%d, "
						    "include/aifabric/lb_prog.h)", x.imm,
						    AIF_LB_HELPER_MAX);
				break;
			}
			if (op == EBPF_EXIT) {
				if (x.src_reg || x.dst_reg || x.off || x.imm)
					return fail(c, "unused fields of exit are not 0");
				break;
			}
			if (op > EBPF_JSLE)
				return fail(c, "opcode 0x%02x is not a jump", x.code);
			if (op == BPF_JA && (x.src_reg || x.dst_reg || x.imm || !k))
				return fail(c, "unused fields of a jump are not 0");
			if (op != BPF_JA && ((k && x.src_reg) || (!k && x.imm)))
				return fail(c, "unused fields of a jump are not 0");
			if (x.off < 0)
				return fail(c, "jumps backwards (loops must be unrolled: "
					    "#pragma unroll)");
			if ((uint64_t)i + 1 + (uint64_t)x.off >= n)
				return fail(c, "jumps past the end of the program");
			if (second_half(ins, i + 1 + (uint32_t)x.off))
				return fail(c, "jumps into the middle of a 64-bit load");
			break;
		case JMP32:
			return fail(c, "32-bit jumps are not supported (compile for -mcpu=v2 "
				    "or older)");
		case BPF_LD:
			if (x.code != (BPF_LD | BPF_IMM | EBPF_DW))
				return fail(c, "packet loads (ld_abs, ld_ind) are not supported");
			if (x.src_reg != 0)
				return fail(c, "refers to a map or a global variable (not supported)");
			if (x.dst_reg == 10)
				return fail(c, "writes the frame pointer r10");
			if (i + 1 >= n)
				return fail(c, "a 64-bit load without its second half");
			if (ins[i + 1].code || ins[i + 1].dst_reg || ins[i + 1].src_reg ||
			    ins[i + 1].off || x.off)
				return fail(c, "a malformed 64-bit load");
			i++;
			break;
		case BPF_LDX:
			if (BPF_MODE(x.code) != BPF_MEM)
				return fail(c, "opcode 0x%02x is not a load", x.code);
			if (x.dst_reg == 10)
				return fail(c, "writes the frame pointer r10");
			if (x.imm != 0)
				return fail(c, "unused fields of a load are not 0");
			break;
		case BPF_ST:
			if (BPF_MODE(x.code) != BPF_MEM)
				return fail(c, "opcode 0x%02x is not a store", x.code);
			if (x.src_reg != 0)
				return fail(c, "unused fields of a store are not 0");
			break;
		case BPF_STX:
			if (BPF_MODE(x.code) == EBPF_XADD) {
				if (BPF_SIZE(x.code) != BPF_W && BPF_SIZE(x.code) != EBPF_DW)
					return fail(c, "an atomic add of 1 or 2 bytes");
				if (x.imm != BPF_ADD)
					return fail(c, "atomic operation 0x%x is not supported (add "
						    "is)", (unsigned)x.imm);
				break;
			}
			if (BPF_MODE(x.code) != BPF_MEM)
				return fail(c, "opcode 0x%02x is not a store", x.code);
			if (x.imm != 0)
				return fail(c, "unused fields of a store are not 0");
			break;
		}
	}
	return 0;
}

/* ---- pass 2: the dataflow ---- */

static int
use(struct checker *c, const struct state *s, unsigned r)
{
	if (s->r[r].kind == V_NONE)
		return fail(c, "reads r%u, which is not set (on some path)", r);
	if (s->r[r].kind == V_MIXED)
		return fail(c, "uses r%u, a pointer on one path and something else on "
			    "another", r);
	return 0;
}

static const char *
region_name(uint8_t kind)
{
	return kind == V_CTX ? "the context" : kind == V_STACK ? "the stack" : "a flow-table entry";
}

/*
 * An access of size bytes at pointer p + off: inside its region?  Sets
 * [*from, *to) to the byte range it may touch, relative to the region.
 */
/* Bytes a load or store of this opcode moves. */
static unsigned
bytes_of(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_W: return 4;
	case BPF_H: return 2;
	case BPF_B: return 1;
	default: return 8;
	}
}

static int
check_bounds(struct checker *c, const struct val *p, int16_t off, unsigned size, bool write,
	     int64_t *from, int64_t *to)
{
	int64_t lo = (int64_t)p->lo + off, hi = (int64_t)p->hi + off + (int64_t)size;
	int64_t rlo = 0, rhi = CTX_BYTES;

	if (p->kind == V_STACK)
		rlo = -STACK_BYTES, rhi = 0;
	else if (p->kind == V_ENTRY)
		rhi = ENTRY_BYTES;
	*from = lo, *to = hi;
	if (lo < rlo || hi > rhi) {
		if (p->lo == p->hi)
			return fail(c, "%s %s at bytes %lld..%lld, outside its %lld..%lld",
				    write ? "writes" : "reads", region_name(p->kind), (long long)lo,
				    (long long)hi, (long long)rlo, (long long)rhi);
		return fail(c, "%s %s at bytes %lld..%lld (a variable offset), outside its "
			    "%lld..%lld: mask or test the index first",
			    write ? "writes" : "reads", region_name(p->kind), (long long)lo,
			    (long long)hi, (long long)rlo, (long long)rhi);
	}
	return 0;
}

/* Stack byte at fp + o (o < 0): its slot and the byte in it. */
static inline int
slot_k(int64_t o)
{
	return (int)((-o - 1) / 8);
}

static inline int
slot_b(int64_t o)
{
	return (int)(o + 8 * (slot_k(o) + 1));
}

/* Bytes [from, to) of the stack written with a number (or bytes of one):
 * a register kept whole in a slot partly overwritten is gone, and the
 * unwritten bytes of a pointer are unreadable. */
static void
stack_write_bytes(struct state *s, int64_t from, int64_t to)
{
	for (int64_t o = from; o < to; o++) {
		struct slot *sl = &s->s[slot_k(o)];
		if (sl->spill) {
			if (is_ptr(&sl->v) || sl->v.kind == V_MIXED)
				sl->init = 0;
			sl->spill = 0;
		}
		sl->init |= (uint8_t)(1u << slot_b(o));
	}
}

static int
stack_read_bytes(struct checker *c, const struct state *s, int64_t from, int64_t to)
{
	for (int64_t o = from; o < to; o++) {
		const struct slot *sl = &s->s[slot_k(o)];
		if (sl->spill && sl->v.kind != V_SCALAR)
			return fail(c, "reads part of a pointer kept on the stack (at fp%lld)",
				    (long long)o);
		if (!(sl->init & (1u << slot_b(o))))
			return fail(c, "reads the stack at fp%lld, which it did not write "
				    "(on some path)", (long long)o);
	}
	return 0;
}

static int
do_load(struct checker *c, struct state *s, const struct ebpf_insn x)
{
	unsigned size = bytes_of(x.code);
	struct val p = s->r[x.src_reg];
	int64_t from, to;

	if (use(c, s, x.src_reg) != 0)
		return -1;
	if (!is_ptr(&p))
		return fail(c, "reads memory through r%u, which is not a pointer", x.src_reg);
	if (check_bounds(c, &p, x.off, size, false, &from, &to) != 0)
		return -1;
	struct val v = num(0, width_max(size));
	if (p.kind == V_CTX) {
		c->out->ctx_uses |= ctx_parts(from, to);
		if (p.lo == p.hi)
			v = ctx_field(from, size);
	} else if (p.kind == V_STACK) {
		const struct slot *sl = &s->s[slot_k(from)];
		if (p.lo == p.hi && size == 8 && (from & 7) == 0 && sl->spill) {
			v = sl->v; /* a register kept whole, read back whole */
			if (v.kind == V_MIXED)
				return fail(c, "reads back a stack slot that holds a pointer on one "
					    "path and something else on another (at fp%lld)",
					    (long long)from);
		} else if (stack_read_bytes(c, s, from, to) != 0) {
			return -1;
		}
	}
	s->r[x.dst_reg] = v;
	return 0;
}

static int
do_store(struct checker *c, struct state *s, const struct ebpf_insn x)
{
	unsigned size = bytes_of(x.code);
	bool atomic = BPF_CLASS(x.code) == BPF_STX && BPF_MODE(x.code) == EBPF_XADD;
	struct val p = s->r[x.dst_reg], v;
	int64_t from, to;

	if (use(c, s, x.dst_reg) != 0)
		return -1;
	if (BPF_CLASS(x.code) == BPF_STX) {
		if (use(c, s, x.src_reg) != 0)
			return -1;
		v = s->r[x.src_reg];
	} else {
		v = num_const((uint64_t)(int64_t)x.imm & width_max(size));
	}
	if (!is_ptr(&p))
		return fail(c, "writes memory through r%u, which is not a pointer", x.dst_reg);
	if (p.kind == V_CTX)
		return fail(c, "writes to the context (it is read-only)");
	if (check_bounds(c, &p, x.off, size, true, &from, &to) != 0)
		return -1;
	if (is_ptr(&v) && (atomic || p.kind != V_STACK))
		return fail(c, "stores a pointer outside the stack");
	if (p.kind == V_ENTRY)
		return 0;
	/* the stack */
	if (p.lo != p.hi)
		return fail(c, "writes the stack at a variable offset");
	if (atomic)
		return stack_read_bytes(c, s, from, to) != 0 ? -1 :
		       (stack_write_bytes(s, from, to), 0);
	if (size == 8 && (from & 7) == 0) {
		struct slot *sl = &s->s[slot_k(from)];
		sl->spill = 1;
		sl->init = 0xff;
		sl->v = v;
		return 0;
	}
	if (is_ptr(&v))
		return fail(c, "stores part of a pointer on the stack");
	stack_write_bytes(s, from, to);
	return 0;
}

/* dst = dst op src for numbers; b64: 64-bit class. */
static struct val
alu_num(uint8_t op, struct val a, struct val b, bool b64)
{
	struct val r = ANY;
	bool bc = b.lo == b.hi;

	if (!b64) {
		a = trunc32(a);
		b = trunc32(b);
		bc = b.lo == b.hi;
	}
	switch (op) {
	case BPF_ADD:
		if (a.hi + b.hi >= a.hi) /* no overflow */
			r = num(a.lo + b.lo, a.hi + b.hi);
		break;
	case BPF_SUB:
		if (a.lo >= b.hi)
			r = num(a.lo - b.hi, a.hi - b.lo);
		break;
	case BPF_MUL:
		if (a.hi == 0 || b.hi == 0)
			r = num_const(0);
		else if (a.hi <= UINT64_MAX / b.hi)
			r = num(a.lo * b.lo, a.hi * b.hi);
		break;
	case BPF_DIV: /* b.lo >= 1 (checked) */
		r = num(a.lo / b.hi, a.hi / b.lo);
		break;
	case BPF_MOD:
		r = num(0, a.hi < b.hi - 1 ? a.hi : b.hi - 1);
		if (a.lo == a.hi && bc)
			r = num_const(a.lo % b.lo);
		break;
	case BPF_AND:
		r = num(0, a.hi < b.hi ? a.hi : b.hi);
		if (a.lo == a.hi && bc)
			r = num_const(a.lo & b.lo);
		break;
	case BPF_OR:
	case BPF_XOR: {
		uint64_t m = a.hi | b.hi;
		for (int sh = 1; sh < 64; sh <<= 1)
			m |= m >> sh; /* every bit below the highest that may be set */
		r = num(op == BPF_OR ? (a.lo > b.lo ? a.lo : b.lo) : 0, m);
		if (a.lo == a.hi && bc)
			r = num_const(op == BPF_OR ? a.lo | b.lo : a.lo ^ b.lo);
		break;
	}
	case BPF_LSH:
		if (bc) {
			unsigned sh = (unsigned)(b.lo & (b64 ? 63 : 31));
			if (sh == 0)
				r = a;
			else if (a.hi <= (UINT64_MAX >> sh))
				r = num(a.lo << sh, a.hi << sh);
		}
		break;
	case BPF_RSH:
		if (bc) {
			unsigned sh = (unsigned)(b.lo & (b64 ? 63 : 31));
			r = num(a.lo >> sh, a.hi >> sh);
		} else {
			r = num(0, a.hi);
		}
		break;
	case EBPF_ARSH: /* 64-bit only */
		if (a.hi <= INT64_MAX) /* never negative: as rsh */
			r = bc ? num(a.lo >> (b.lo & 63), a.hi >> (b.lo & 63)) : num(0, a.hi);
		break;
	case EBPF_MOV:
		r = b;
		break;
	}
	return b64 ? r : trunc32(r);
}

static int
do_alu(struct checker *c, struct state *s, const struct ebpf_insn x)
{
	uint8_t op = BPF_OP(x.code);
	bool b64 = BPF_CLASS(x.code) == EBPF_ALU64, k = BPF_SRC(x.code) == BPF_K;
	struct val *d = &s->r[x.dst_reg], b;

	if (k)
		b = num_const(b64 ? (uint64_t)(int64_t)x.imm : (uint32_t)x.imm);
	else if (use(c, s, x.src_reg) != 0)
		return -1;
	else
		b = s->r[x.src_reg];

	if (op == EBPF_MOV) {
		if (is_ptr(&b) && !b64)
			return fail(c, "copies the low half of a pointer (r%u)", x.src_reg);
		*d = b64 ? b : trunc32(b);
		return 0;
	}
	if (use(c, s, x.dst_reg) != 0)
		return -1;
	if (op == BPF_NEG || op == EBPF_END) {
		if (is_ptr(d))
			return fail(c, "%s on a pointer (r%u)", op_name(op), x.dst_reg);
		if (op == BPF_NEG && d->lo == d->hi)
			*d = b64 ? num_const(-d->lo) : num_const((uint32_t)-d->lo);
		else if (op == BPF_NEG)
			*d = b64 ? ANY : num(0, UINT32_MAX);
		else if (BPF_SRC(x.code) == EBPF_TO_LE) /* le64: nothing on x86 */
			;
		else
			*d = num(0, width_max((unsigned)x.imm / 8));
		return 0;
	}
	if (is_ptr(d) || is_ptr(&b)) {
		if (!b64)
			return fail(c, "32-bit %s on a pointer", op_name(op));
		if (is_ptr(d) && is_ptr(&b))
			return fail(c, "%s of two pointers (r%u, r%u)", op_name(op), x.dst_reg,
				    x.src_reg);
		if (op != BPF_ADD && !(op == BPF_SUB && is_ptr(d)))
			return fail(c, "%s on a pointer (only adding or subtracting a number "
				    "moves one)", op_name(op));
		struct val p = is_ptr(d) ? *d : b, q = is_ptr(d) ? b : *d;
		int64_t lo, hi;
		if (k) { /* an immediate: signed */
			int64_t imm = x.imm;
			lo = (int64_t)p.lo + (op == BPF_ADD ? imm : -imm);
			hi = (int64_t)p.hi + (op == BPF_ADD ? imm : -imm);
		} else {
			if (q.hi > ADD_LIMIT)
				return fail(c, "%s a number of up to %llu to a pointer: mask or "
					    "test it first", op == BPF_ADD ? "adds" : "subtracts",
					    (unsigned long long)q.hi);
			lo = op == BPF_ADD ? (int64_t)p.lo + (int64_t)q.lo :
					     (int64_t)p.lo - (int64_t)q.hi;
			hi = op == BPF_ADD ? (int64_t)p.hi + (int64_t)q.hi :
					     (int64_t)p.hi - (int64_t)q.lo;
		}
		if (lo < -OFF_LIMIT || hi > OFF_LIMIT)
			return fail(c, "moves a pointer too far (offset %lld..%lld)",
				    (long long)lo, (long long)hi);
		*d = (struct val){ .kind = p.kind, .lo = (uint64_t)lo, .hi = (uint64_t)hi };
		return 0;
	}
	if (op == BPF_DIV || op == BPF_MOD) {
		struct val q = b64 ? b : trunc32(b);
		if (q.lo == 0 || (!b64 && b.hi > UINT32_MAX))
			return fail(c, "divides by r%u, which may be 0 (test it against 0 first, "
				    "or divide by n_members)", x.src_reg);
	}
	*d = alu_num(op, *d, b, b64);
	return 0;
}

/* Narrow a to the values for which "a op b" (b a constant) is true. */
static struct val
refine(uint8_t op, struct val a, uint64_t b, bool *empty)
{
	uint64_t lo = a.lo, hi = a.hi;

	*empty = false;
	if (op == EBPF_JSGT || op == EBPF_JSGE || op == EBPF_JSLT || op == EBPF_JSLE) {
		if (a.hi > INT64_MAX || b > INT64_MAX)
			return a; /* signs differ from the unsigned view: keep it */
		op = op == EBPF_JSGT ? BPF_JGT : op == EBPF_JSGE ? BPF_JGE :
		     op == EBPF_JSLT ? EBPF_JLT : EBPF_JLE;
	}
	switch (op) {
	case BPF_JEQ:
		lo = b, hi = b;
		*empty = b < a.lo || b > a.hi;
		break;
	case EBPF_JNE:
		if (a.lo == b && a.hi == b)
			*empty = true;
		else if (a.lo == b)
			lo++;
		else if (a.hi == b)
			hi--;
		break;
	case BPF_JGT:
		if (b == UINT64_MAX)
			*empty = true;
		else if (lo < b + 1)
			lo = b + 1;
		break;
	case BPF_JGE:
		if (lo < b)
			lo = b;
		break;
	case EBPF_JLT:
		if (b == 0)
			*empty = true;
		else if (hi > b - 1)
			hi = b - 1;
		break;
	case EBPF_JLE:
		if (hi > b)
			hi = b;
		break;
	default: /* jset */
		if (a.lo == a.hi && (a.lo & b) == 0)
			*empty = true;
		return a;
	}
	if (lo > hi)
		*empty = true;
	return num(lo, hi);
}

/* The opposite test, and the test with its operands swapped. */
static uint8_t
negate(uint8_t op, bool *ok)
{
	*ok = true;
	switch (op) {
	case BPF_JEQ: return EBPF_JNE;
	case EBPF_JNE: return BPF_JEQ;
	case BPF_JGT: return EBPF_JLE;
	case BPF_JGE: return EBPF_JLT;
	case EBPF_JLT: return BPF_JGE;
	case EBPF_JLE: return BPF_JGT;
	case EBPF_JSGT: return EBPF_JSLE;
	case EBPF_JSGE: return EBPF_JSLT;
	case EBPF_JSLT: return EBPF_JSGE;
	case EBPF_JSLE: return EBPF_JSGT;
	}
	*ok = false; /* jset: not taken says little */
	return op;
}

static uint8_t
swapped(uint8_t op)
{
	switch (op) {
	case BPF_JGT: return EBPF_JLT;
	case BPF_JGE: return EBPF_JLE;
	case EBPF_JLT: return BPF_JGT;
	case EBPF_JLE: return BPF_JGE;
	case EBPF_JSGT: return EBPF_JSLT;
	case EBPF_JSGE: return EBPF_JSLE;
	case EBPF_JSLT: return EBPF_JSGT;
	case EBPF_JSLE: return EBPF_JSGE;
	}
	return op;
}

/*
 * A conditional jump: *taken and *fall get the state on each side,
 * *t_live and *f_live whether that side can happen.
 */
static int
do_cond(struct checker *c, const struct state *s, const struct ebpf_insn x, struct state *taken,
	bool *t_live, struct state *fall, bool *f_live)
{
	uint8_t op = BPF_OP(x.code);
	bool k = BPF_SRC(x.code) == BPF_K;
	struct val a = s->r[x.dst_reg], b;

	*taken = *s, *fall = *s;
	*t_live = *f_live = true;
	if (use(c, s, x.dst_reg) != 0 || (!k && use(c, s, x.src_reg) != 0))
		return -1;
	b = k ? num_const((uint64_t)(int64_t)x.imm) : s->r[x.src_reg];
	if (is_ptr(&a) || is_ptr(&b)) {
		if (is_ptr(&a) && is_ptr(&b) && a.kind == b.kind)
			return 0; /* two pointers into one region: an order, no address */
		if (is_ptr(&a) && k && x.imm == 0 && (op == BPF_JEQ || op == EBPF_JNE)) {
			/* a null test: pointers here are never 0 */
			if (op == BPF_JEQ)
				*t_live = false;
			else
				*f_live = false;
			return 0;
		}
		return fail(c, "compares a pointer with %s", is_ptr(&a) && is_ptr(&b) ?
			    "a pointer into another region" : "a number");
	}
	bool inv_ok, empty;
	uint8_t inv = negate(op, &inv_ok);
	if (b.lo == b.hi) { /* narrow dst */
		taken->r[x.dst_reg] = refine(op, a, b.lo, &empty);
		*t_live = !empty;
		if (inv_ok) {
			fall->r[x.dst_reg] = refine(inv, a, b.lo, &empty);
			*f_live = !empty;
		}
	} else if (a.lo == a.hi) { /* narrow src: "a op b" is "b op' a" */
		taken->r[x.src_reg] = refine(swapped(op), b, a.lo, &empty);
		*t_live = !empty;
		if (inv_ok) {
			fall->r[x.src_reg] = refine(swapped(inv), b, a.lo, &empty);
			*f_live = !empty;
		}
	}
	return 0;
}

static int
do_call(struct checker *c, struct state *s, const struct ebpf_insn x)
{
	static const uint8_t nargs[AIF_LB_HELPER_MAX + 1] = {
		[AIF_LB_HELPER_RANDOM] = 0, [AIF_LB_HELPER_RANDOM_BELOW] = 1,
		[AIF_LB_HELPER_TABLE_READ] = 2, [AIF_LB_HELPER_TABLE_WRITE] = 3,
		[AIF_LB_HELPER_TABLE_TOUCH] = 1, [AIF_LB_HELPER_COUNTER_ADD] = 2,
		[AIF_LB_HELPER_BUCKET] = 1, [AIF_LB_HELPER_TABLE_ENTRY] = 1,
	};
	int id = x.imm;
	struct val r0 = num_const(0);

	for (unsigned r = 1; r <= nargs[id]; r++) {
		if (use(c, s, r) != 0)
			return -1;
		if (id == AIF_LB_HELPER_TABLE_READ && r == 2)
			continue;
		if (is_ptr(&s->r[r]))
			return fail(c, "passes a pointer (r%u) to helper %d, which takes a number",
				    r, id);
	}
	switch (id) {
	case AIF_LB_HELPER_TABLE_READ: {
		const struct val *p = &s->r[2];
		int64_t from, to;
		if (p->kind != V_STACK || p->lo != p->hi)
			return fail(c, "passes aif_lb_table_read a buffer (r2) that is not at a "
				    "fixed place on the stack");
		if (check_bounds(c, p, 0, (unsigned)ENTRY_BYTES, true, &from, &to) != 0)
			return -1;
		stack_write_bytes(s, from, to);
		break;
	}
	case AIF_LB_HELPER_RANDOM:
	case AIF_LB_HELPER_BUCKET:
		r0 = num(0, UINT32_MAX);
		break;
	case AIF_LB_HELPER_RANDOM_BELOW: { /* [0, n) with n capped to 2^32 - 1; 0 if n is 0 */
		uint64_t n = s->r[1].hi > UINT32_MAX ? UINT32_MAX : s->r[1].hi;
		r0 = num(0, n == 0 ? 0 : n - 1);
		break;
	}
	case AIF_LB_HELPER_TABLE_ENTRY:
		r0 = (struct val){ .kind = V_ENTRY, .lo = 0, .hi = 0 };
		break;
	}
	for (unsigned r = 1; r <= 5; r++)
		s->r[r] = (struct val){ .kind = V_NONE };
	s->r[0] = r0;
	return 0;
}

/* Merge st into the state waiting at instruction t. */
static int
flow_to(struct state **at, uint32_t t, const struct state *st)
{
	if (at[t] == NULL) {
		at[t] = malloc(sizeof(*at[t]));
		if (at[t] == NULL)
			return -1;
		*at[t] = *st;
		return 0;
	}
	merge_state(at[t], st);
	return 0;
}

static int
check_flow(struct checker *c)
{
	const struct ebpf_insn *ins = c->ins;
	uint32_t n = c->n;
	struct state **at = calloc(n + 1, sizeof(*at));
	struct state *cur = calloc(1, sizeof(*cur)), *t = malloc(sizeof(*t)),
		     *f = malloc(sizeof(*f));
	bool live = true;
	int rc = -1;

	if (at == NULL || cur == NULL || t == NULL || f == NULL) {
		snprintf(c->err, c->err_len, "section %s: out of memory", c->sec);
		goto out;
	}
	cur->r[1] = (struct val){ .kind = V_CTX };
	cur->r[10] = (struct val){ .kind = V_STACK };
	for (uint32_t i = 0; i < n; i++) {
		c->pc = i;
		if (at[i] != NULL) {
			if (live)
				merge_state(at[i], cur);
			*cur = *at[i];
			free(at[i]);
			at[i] = NULL;
			live = true;
		}
		if (!live)
			continue;
		const struct ebpf_insn x = ins[i];
		uint8_t cls = BPF_CLASS(x.code), op = BPF_OP(x.code);
		int r = 0;
		switch (cls) {
		case BPF_LD: /* ld_imm64, shape-checked */
			cur->r[x.dst_reg] = num_const((uint32_t)x.imm |
						      (uint64_t)(uint32_t)ins[i + 1].imm << 32);
			i++;
			break;
		case BPF_LDX:
			r = do_load(c, cur, x);
			break;
		case BPF_ST:
		case BPF_STX:
			r = do_store(c, cur, x);
			break;
		case BPF_ALU:
		case EBPF_ALU64:
			r = do_alu(c, cur, x);
			break;
		case BPF_JMP:
			if (op == EBPF_EXIT) {
				if (use(c, cur, 0) != 0)
					goto out;
				if (is_ptr(&cur->r[0]))
					r = fail(c, "returns a pointer");
				live = false;
			} else if (op == EBPF_CALL) {
				r = do_call(c, cur, x);
			} else if (op == BPF_JA) {
				if (flow_to(at, i + 1 + (uint32_t)x.off, cur) != 0)
					r = fail(c, "out of memory");
				live = false;
			} else {
				bool tl, fl;
				r = do_cond(c, cur, x, t, &tl, f, &fl);
				if (r == 0 && tl && flow_to(at, i + 1 + (uint32_t)x.off, t) != 0)
					r = fail(c, "out of memory");
				if (r == 0) {
					*cur = *f;
					live = fl;
				}
			}
			break;
		}
		if (r != 0)
			goto out;
	}
	if (live) {
		c->pc = n - 1;
		fail(c, "runs past the last instruction (no exit)");
		goto out;
	}
	rc = 0;
out:
	if (at != NULL)
		for (uint32_t i = 0; i <= n; i++)
			free(at[i]);
	free(at);
	free(cur);
	free(t);
	free(f);
	return rc;
}

int
aif_lb_prog_check_insns(const uint64_t *insns, uint32_t n, const char *sec,
			struct aif_lb_prog_check *out, char *err, size_t err_len)
{
	struct checker c = {
		.ins = (const struct ebpf_insn *)insns, .n = n, .sec = sec,
		.err = err, .err_len = err_len, .out = out,
	};

	memset(out, 0, sizeof(*out));
	if (n == 0) {
		snprintf(err, err_len, "section %s: no instructions", sec);
		return -1;
	}
	if (n > AIF_LB_PROG_MAX_INSNS) {
		snprintf(err, err_len, "section %s: %u instructions, more than the %u allowed", sec,
			 n, AIF_LB_PROG_MAX_INSNS);
		return -1;
	}
	if (check_shape(&c) != 0)
		return -1;
	/* the last instruction ends every path that reaches it, reachable or
	 * not (the JIT compiles every instruction: no code may run off the
	 * end) */
	const struct ebpf_insn *last = &c.ins[n - 1];
	if (last->code != (BPF_JMP | EBPF_EXIT) && last->code != (BPF_JMP | BPF_JA) &&
	    !second_half(c.ins, n - 1)) {
		c.pc = n - 1;
		return fail(&c, "runs past the last instruction (the last is not exit)");
	}
	if (second_half(c.ins, n - 1)) {
		c.pc = n - 1;
		return fail(&c, "runs past the last instruction (the last is a 64-bit load)");
	}
	return check_flow(&c);
}
