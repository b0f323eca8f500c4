/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balancing programs: checks, rte_bpf, helpers, context (lb_prog.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_bpf.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "lb.h"
#include "lb_prog.h"
#include "lb_prog_elf.h"

__thread struct aif_lb_prog_env *aif_lb_prog_cur;

/* ---- helpers: what a program may call (ids in lb_prog.h) ---- */

/* Entry i of the running program's flow table. */
static inline struct aif_lb_prog_entry *
entry_at(uint64_t i)
{
	struct aif_lb_prog_state *st = aif_lb_prog_cur->st;

	return &st->table[i & st->table_mask];
}

/* An entry's time stamp now (0 marks one never written). */
static inline uint64_t
stamp(void)
{
	return aif_lb_prog_cur->now_ns ? aif_lb_prog_cur->now_ns : 1;
}

static uint64_t
h_random(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	RTE_SET_USED(a), RTE_SET_USED(b), RTE_SET_USED(c), RTE_SET_USED(d), RTE_SET_USED(e);
	return aif_rng_next(aif_lb_prog_cur->rng) >> 32;
}

static uint64_t
h_random_below(uint64_t n, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	RTE_SET_USED(b), RTE_SET_USED(c), RTE_SET_USED(d), RTE_SET_USED(e);
	if (n == 0)
		return 0;
	return aif_rng_below(aif_lb_prog_cur->rng, n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
}

static uint64_t
h_table_read(uint64_t i, uint64_t out, uint64_t c, uint64_t d, uint64_t e)
{
	RTE_SET_USED(c), RTE_SET_USED(d), RTE_SET_USED(e);
	memcpy((void *)(uintptr_t)out, entry_at(i), sizeof(struct aif_lb_prog_entry));
	return 0;
}

static uint64_t
h_table_write(uint64_t i, uint64_t key, uint64_t value, uint64_t d, uint64_t e)
{
	struct aif_lb_prog_entry *x = entry_at(i);

	RTE_SET_USED(d), RTE_SET_USED(e);
	x->last_ns = stamp();
	x->key = (uint32_t)key;
	x->value = (uint32_t)value;
	return 0;
}

static uint64_t
h_table_touch(uint64_t i, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	RTE_SET_USED(b), RTE_SET_USED(c), RTE_SET_USED(d), RTE_SET_USED(e);
	entry_at(i)->last_ns = stamp();
	return 0;
}

static uint64_t
h_counter_add(uint64_t i, uint64_t n, uint64_t c, uint64_t d, uint64_t e)
{
	RTE_SET_USED(c), RTE_SET_USED(d), RTE_SET_USED(e);
	if (i < AIF_LB_PROG_COUNTERS)
		aif_lb_prog_cur->st->counters[i] += n;
	return 0;
}

static uint64_t
h_bucket(uint64_t hash, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	const struct aif_lb_prog_env *env = aif_lb_prog_cur;

	RTE_SET_USED(b), RTE_SET_USED(c), RTE_SET_USED(d), RTE_SET_USED(e);
	return aif_lb_bucket_pick(env->g, env->buckets, (uint32_t)hash);
}

static uint64_t
h_table_entry(uint64_t i, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	RTE_SET_USED(b), RTE_SET_USED(c), RTE_SET_USED(d), RTE_SET_USED(e);
	return (uint64_t)(uintptr_t)entry_at(i);
}

#define RAW8 { .type = RTE_BPF_ARG_RAW, .size = sizeof(uint64_t) }

/* xsym[id - 1] is helper id (the loader rewrites call ids to indices). */
static const struct rte_bpf_xsym helpers[AIF_LB_HELPER_MAX] = {
	[AIF_LB_HELPER_RANDOM - 1] = { .name = "aif_lb_random", .type = RTE_BPF_XTYPE_FUNC,
		.func = { .val = h_random, .nb_args = 0, .ret = RAW8 } },
	[AIF_LB_HELPER_RANDOM_BELOW - 1] = { .name = "aif_lb_random_below",
		.type = RTE_BPF_XTYPE_FUNC,
		.func = { .val = h_random_below, .nb_args = 1, .args = { RAW8 }, .ret = RAW8 } },
	[AIF_LB_HELPER_TABLE_READ - 1] = { .name = "aif_lb_table_read", .type = RTE_BPF_XTYPE_FUNC,
		.func = { .val = h_table_read, .nb_args = 2,
			  .args = { RAW8, { .type = RTE_BPF_ARG_PTR,
					    .size = sizeof(struct aif_lb_prog_entry) } },
			  .ret = RAW8 } },
	[AIF_LB_HELPER_TABLE_WRITE - 1] = { .name = "aif_lb_table_write", .type = RTE_BPF_XTYPE_FUNC,
		.func = { .val = h_table_write, .nb_args = 3, .args = { RAW8, RAW8, RAW8 },
			  .ret = RAW8 } },
	[AIF_LB_HELPER_TABLE_TOUCH - 1] = { .name = "aif_lb_table_touch", .type = RTE_BPF_XTYPE_FUNC,
		.func = { .val = h_table_touch, .nb_args = 1, .args = { RAW8 }, .ret = RAW8 } },
	[AIF_LB_HELPER_COUNTER_ADD - 1] = { .name = "aif_lb_counter_add", .type = RTE_BPF_XTYPE_FUNC,
		.func = { .val = h_counter_add, .nb_args = 2, .args = { RAW8, RAW8 }, .ret = RAW8 } },
	[AIF_LB_HELPER_BUCKET - 1] = { .name = "aif_lb_bucket", .type = RTE_BPF_XTYPE_FUNC,
		.func = { .val = h_bucket, .nb_args = 1, .args = { RAW8 }, .ret = RAW8 } },
	[AIF_LB_HELPER_TABLE_ENTRY - 1] = { .name = "aif_lb_table_entry", .type = RTE_BPF_XTYPE_FUNC,
		.func = { .val = h_table_entry, .nb_args = 1, .args = { RAW8 },
			  .ret = { .type = RTE_BPF_ARG_PTR,
				   .size = sizeof(struct aif_lb_prog_entry) } } },
};

/* ---- our checks ---- */

/* eBPF encodings: DPDK's bpf_def.h (through rte_bpf.h), and the one it
 * lacks */
#define EBPF_JMP32 0x06 /* 32-bit compares */
#define EBPF_ATOMIC_CMPXCHG 0xf1
#define EBPF_ATOMIC_FETCH 0x01

#define FAIL(...) do { snprintf(err, err_len, __VA_ARGS__); return -1; } while (0)

/* Size, calls, map references; rewrites helper ids to rte_bpf's indices. */
static int
check_calls(uint64_t *v, uint32_t n, const char *sec, char *err, size_t err_len)
{
	if (n > AIF_LB_PROG_MAX_INSNS)
		FAIL("section %s: %u instructions, more than the %u allowed", sec, n,
		     AIF_LB_PROG_MAX_INSNS);
	struct ebpf_insn *ins = (struct ebpf_insn *)v;

	for (uint32_t i = 0; i < n; i++) {
		const struct ebpf_insn x = ins[i];
		if (x.code == (BPF_LD | BPF_IMM | EBPF_DW)) { /* ld_imm64: two slots */
			if (x.src_reg != 0)
				FAIL("section %s: instruction %u: refers to a map or a global "
				     "variable (not supported)", sec, i);
			i++;
			continue;
		}
		if (x.code != (BPF_JMP | EBPF_CALL))
			continue;
		if (x.src_reg == EBPF_PSEUDO_CALL)
			FAIL("section %s: instruction %u: calls another eBPF function (not "
			     "supported: make it static inline)", sec, i);
		if (x.src_reg != 0 || x.imm < 1 || x.imm > AIF_LB_HELPER_MAX)
			FAIL("section %s: instruction %u: calls unknown helper %d (helpers are "
			     "1..%d, include/aifabric/lb_prog.h)", sec, i, x.imm, AIF_LB_HELPER_MAX);
		ins[i].imm = x.imm - 1;
	}
	return 0;
}

/*
 * The dataflow checks, on a program rte_bpf accepted.  Jumps must go
 * forward (refused otherwise: rte_bpf refuses loops, and a block reached
 * only by a backward jump would escape a single pass), so one pass in
 * order sees every predecessor first.  Per register: may it point into the
 * context (and at which offset: -1 unknown or not on every path); may it
 * hold any pointer (the context, the stack, a flow-table entry); is it the
 * frame pointer plus a known offset, or may it point into the stack at an
 * unknown one; is it known non-zero (64-bit, and in its low 32 bits); is it
 * a known non-zero 32-bit value shifted left by 32 (clang's zero
 * extension).  Per 8-byte stack slot: may it hold a pointer.  A pointer
 * stored on the stack and read back whole may be the context's; read back
 * in part it is refused (rte_bpf's validator would take the part for the
 * whole pointer, and the program would use a truncated address).
 */
struct regs {
	uint16_t ctx;      /* bit r: may point into the context */
	uint16_t ptr;      /* bit r: may hold a pointer */
	uint16_t fp;       /* bit r: frame pointer + fpoff[r], on every path */
	uint16_t fp_may;   /* bit r: may point into the stack (offset unknown) */
	uint16_t nz64;     /* bit r: known != 0 */
	uint16_t nz32;     /* bit r: low 32 bits known != 0 */
	uint16_t shl32;    /* bit r: (nz32 value) << 32 */
	int32_t off[11];   /* context offset when ctx bit set, -1 unknown */
	int32_t fpoff[11]; /* frame offset when fp bit set */
	uint64_t ptr_slots; /* bit k: stack slot [fp - 8(k+1), fp - 8k) may hold a pointer */
	uint8_t seen;
};

static void
merge(struct regs *to, const struct regs *from)
{
	if (!to->seen) {
		*to = *from;
		to->seen = 1;
		return;
	}
	for (int r = 0; r < 11; r++) {
		uint16_t bit = (uint16_t)(1u << r);
		bool a = to->ctx & bit, b = from->ctx & bit;
		if (a != b || (a && to->off[r] != from->off[r]))
			to->off[r] = -1; /* not the context at one offset on every path */
		bool fa = to->fp & bit, fb = from->fp & bit;
		if (fa && fb && to->fpoff[r] == from->fpoff[r])
			continue;
		if (fa || fb || ((to->fp_may | from->fp_may) & bit)) {
			to->fp &= (uint16_t)~bit;
			to->fp_may |= bit;
		}
	}
	to->ctx |= from->ctx;
	to->ptr |= from->ptr;
	to->fp_may |= from->fp_may;
	to->ptr_slots |= from->ptr_slots;
	to->nz64 &= from->nz64;
	to->nz32 &= from->nz32;
	to->shl32 &= from->shl32;
}

static void
clobber(struct regs *s, int r)
{
	uint16_t m = (uint16_t)~(1u << r);
	s->ctx &= m;
	s->ptr &= m;
	s->fp &= m;
	s->fp_may &= m;
	s->nz64 &= m;
	s->nz32 &= m;
	s->shl32 &= m;
}

/* Copy what is known of register sr to d (a 64-bit move). */
static void
copy_reg(struct regs *s, int d, int sr)
{
	struct regs t = *s;

	clobber(s, d);
	uint16_t bit = (uint16_t)(1u << d);
#define CP(f) if ((t.f >> sr) & 1) s->f |= bit
	CP(ctx); CP(ptr); CP(fp); CP(fp_may); CP(nz64); CP(nz32); CP(shl32);
#undef CP
	s->off[d] = t.off[sr];
	s->fpoff[d] = t.fpoff[sr];
}

/* The stack slot of a frame offset (negative, 8-byte aligned), or -1. */
static int
slot_of(int32_t fpoff)
{
	return fpoff < 0 && fpoff >= -512 && (fpoff & 7) == 0 ? (int)(-fpoff / 8 - 1) : -1;
}

/* Context fields that are never 0: a division by them is safe. */
static bool
ctx_field_nonzero(int32_t off, uint8_t size)
{
	return size == 4 && (off == (int32_t)offsetof(struct aif_lb_prog_ctx, n_members) ||
			     off == (int32_t)offsetof(struct aif_lb_prog_ctx, table_size) ||
			     off == (int32_t)offsetof(struct aif_lb_prog_ctx, version));
}

/* Which parts of the context a read of size bytes at off touches (-1:
 * unknown, all of them). */
static uint32_t
ctx_parts(int32_t off, uint32_t size)
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

	if (off < 0)
		return AIF_LB_CTX_ALL;
	for (unsigned k = 0; k < RTE_DIM(parts); k++)
		if ((uint32_t)off < parts[k].to && (uint32_t)off + size > parts[k].from)
			m |= parts[k].part;
	return m;
}

/* Bytes a load or store of this code moves. */
static uint8_t
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
check_flow(const uint64_t *v, uint32_t n, const char *sec, uint32_t *uses, char *err,
	   size_t err_len)
{
	const struct ebpf_insn *ins = (const struct ebpf_insn *)v;
	struct regs *in = calloc(n + 1, sizeof(*in));
	const char *why = NULL;
	uint32_t i;

	if (in == NULL)
		FAIL("out of memory");
	in[0].seen = 1;
	in[0].ctx = 1u << 1; /* r1: the context, offset 0 */
	in[0].off[1] = 0;
	in[0].fp = 1u << 10; /* r10: the frame pointer, offset 0 */
	in[0].ptr = in[0].ctx | in[0].fp;
	in[0].nz64 = in[0].fp;
	for (i = 0; i < n && why == NULL; i++) {
		const struct ebpf_insn x = ins[i];
		struct regs s = in[i];
		uint32_t next = i + 1;
		if (!s.seen)
			continue; /* unreachable */
		uint8_t cls = BPF_CLASS(x.code), d = x.dst_reg, sr = x.src_reg;
		uint16_t dbit = (uint16_t)(1u << d), sbit = (uint16_t)(1u << sr);
		bool xs = BPF_SRC(x.code) == BPF_X;
		switch (cls) {
		case BPF_LD:
			if (x.code == (BPF_LD | BPF_IMM | EBPF_DW) && i + 1 < n) {
				const struct ebpf_insn hi = ins[i + 1];
				clobber(&s, d);
				if (x.imm != 0 || hi.imm != 0)
					s.nz64 |= dbit;
				if (x.imm != 0)
					s.nz32 |= dbit;
				next = i + 2;
			} else {
				clobber(&s, 0); /* legacy packet loads: R0 */
			}
			break;
		case BPF_LDX: {
			uint8_t size = bytes_of(x.code);
			bool nz = (s.ctx & sbit) && s.off[sr] >= 0 &&
				  ctx_field_nonzero(s.off[sr] + x.off, size);
			if (s.ctx & sbit)
				*uses |= ctx_parts(s.off[sr] < 0 ? -1 : s.off[sr] + x.off, size);
			/* a pointer stored on the stack, read back */
			bool stored_ptr = false;
			if (s.fp & sbit) {
				int32_t at = s.fpoff[sr] + x.off;
				int k = slot_of(at & ~7);
				stored_ptr = k < 0 || ((s.ptr_slots >> k) & 1);
				if (stored_ptr && (size != 8 || (at & 7) != 0) && s.ptr_slots != 0)
					why = "reads part of a pointer kept on the stack";
				stored_ptr = stored_ptr && s.ptr_slots != 0;
			} else if ((s.fp_may & sbit) && s.ptr_slots != 0) {
				stored_ptr = true;
				if (size != 8)
					why = "reads part of what may be a pointer kept on the stack";
			}
			clobber(&s, d);
			if (nz)
				s.nz64 |= dbit, s.nz32 |= dbit;
			if (stored_ptr) { /* perhaps the context, perhaps the stack */
				s.ctx |= dbit, s.ptr |= dbit, s.fp_may |= dbit;
				s.off[d] = -1;
			}
			break;
		}
		case BPF_ST:
		case BPF_STX: {
			uint8_t size = bytes_of(x.code);
			bool atomic = cls == BPF_STX && BPF_MODE(x.code) == EBPF_XADD;
			if (s.ctx & dbit) {
				why = "writes to the context (it is read-only)";
				break;
			}
			bool on_stack = (s.fp | s.fp_may) & dbit;
			int k = (s.fp & dbit) ? slot_of(s.fpoff[d] + x.off) : -1;
			if (atomic && on_stack && s.ptr_slots != 0) {
				why = "an atomic operation on the stack, which holds a pointer";
				break;
			}
			if (cls == BPF_STX && (s.ptr & sbit) && !atomic) {
				if (k >= 0 && size == 8)
					s.ptr_slots |= 1ull << k;
				else if (on_stack)
					s.ptr_slots = ~0ull; /* somewhere on the stack */
			} else if (k >= 0 && size == 8 && !atomic) {
				s.ptr_slots &= ~(1ull << k); /* overwritten */
			}
			if (atomic && x.imm == EBPF_ATOMIC_CMPXCHG) /* its r0 */
				clobber(&s, 0);
			else if (atomic && (x.imm & EBPF_ATOMIC_FETCH)) /* its source */
				clobber(&s, sr);
			break;
		}
		case BPF_ALU:
		case EBPF_ALU64: {
			uint8_t op = BPF_OP(x.code);
			bool b64 = cls == EBPF_ALU64;
			bool src_nz = xs ? ((b64 ? s.nz64 : s.nz32) & sbit) != 0 : x.imm != 0;
			if ((op == BPF_DIV || op == BPF_MOD) && !src_nz) {
				why = xs ? "divides by a register that may be 0 (test it against 0 "
					   "first, or divide by n_members)"
					 : "divides by the constant 0";
				break;
			}
			if (op == EBPF_MOV) {
				if (xs && b64) {
					copy_reg(&s, d, sr);
				} else if (xs) {
					bool nz = s.nz32 & sbit;
					clobber(&s, d);
					if (nz)
						s.nz64 |= dbit, s.nz32 |= dbit;
				} else {
					clobber(&s, d);
					if (x.imm != 0)
						s.nz64 |= dbit, s.nz32 |= dbit;
				}
				break;
			}
			struct regs t = s;
			bool nz32 = t.nz32 & dbit, shl = t.shl32 & dbit;
			bool any_ctx = (t.ctx & dbit) || (xs && (t.ctx & sbit));
			bool any_ptr = (t.ptr & dbit) || (xs && (t.ptr & sbit));
			bool any_stack = ((t.fp | t.fp_may) & dbit) ||
					 (xs && ((t.fp | t.fp_may) & sbit));
			clobber(&s, d);
			if (b64 && !xs && (op == BPF_ADD || op == BPF_SUB)) { /* a constant */
				int32_t delta = op == BPF_ADD ? x.imm : -x.imm;
				if (t.ctx & dbit)
					s.off[d] = t.off[d] < 0 ? -1 : t.off[d] + delta;
				if (t.fp & dbit) {
					s.fp |= dbit;
					s.fpoff[d] = t.fpoff[d] + delta;
				}
			} else {
				s.off[d] = -1;
			}
			/* a pointer changed by anything else stays a pointer of unknown
			 * offset, to whatever it may have pointed into */
			if (any_ctx)
				s.ctx |= dbit;
			if (any_ptr)
				s.ptr |= dbit;
			if (any_stack && !(s.fp & dbit))
				s.fp_may |= dbit;
			if (b64 && !xs && op == BPF_LSH && x.imm == 32 && nz32)
				s.shl32 |= dbit, s.nz64 |= dbit;
			if (b64 && !xs && op == BPF_RSH && x.imm == 32 && shl)
				s.nz64 |= dbit, s.nz32 |= dbit;
			if (!xs && op == BPF_OR && x.imm != 0) /* a non-zero constant */
				s.nz64 |= dbit, s.nz32 |= dbit;
			break;
		}
		case BPF_JMP:
		case EBPF_JMP32: {
			uint8_t op = BPF_OP(x.code);
			if (cls == BPF_JMP && op == EBPF_EXIT) {
				next = n;
				break;
			}
			if (cls == BPF_JMP && op == EBPF_CALL) { /* r1..r5 clobbered, r0 result */
				if (x.imm == AIF_LB_HELPER_TABLE_READ - 1 && (s.ctx & (1u << 2))) {
					why = "passes the context to aif_lb_table_read, which writes "
					      "its buffer";
					break;
				}
				for (int r = 0; r <= 5; r++)
					clobber(&s, r);
				if (x.imm == AIF_LB_HELPER_TABLE_ENTRY - 1)
					s.ptr |= 1u, s.nz64 |= 1u; /* a flow-table entry */
				break;
			}
			uint32_t tgt = i + 1 + (uint32_t)(int32_t)x.off;
			if ((int32_t)x.off < 0) {
				why = "jumps backwards (loops must be unrolled: #pragma unroll)";
				break;
			}
			struct regs taken = s, fall = s;
			bool zero_cmp = !xs && x.imm == 0;
			if (op == BPF_JA) {
				if (tgt < n)
					merge(&in[tgt], &s);
				next = n;
				break;
			}
			if (zero_cmp && op == BPF_JEQ) { /* falls through when != 0 */
				fall.nz64 |= dbit;
				if (cls == EBPF_JMP32)
					fall.nz32 |= dbit;
			} else if (zero_cmp && (op == EBPF_JNE || op == BPF_JGT)) { /* taken when != 0 */
				taken.nz64 |= dbit;
				if (cls == EBPF_JMP32)
					taken.nz32 |= dbit;
			} else if (!xs && x.imm == 1 && op == BPF_JGE) {
				taken.nz64 |= dbit;
				if (cls == EBPF_JMP32)
					taken.nz32 |= dbit;
			}
			if (tgt < n)
				merge(&in[tgt], &taken);
			s = fall;
			break;
		}
		}
		if (why == NULL && next < n)
			merge(&in[next], &s);
	}
	free(in);
	if (why != NULL) {
		if (strncmp(why, "divides by a register", 21) == 0)
			FAIL("section %s: instruction %u: divides by r%u, which may be 0 (test it "
			     "against 0 first, or divide by n_members)", sec, i - 1,
			     ins[i - 1].src_reg);
		FAIL("section %s: instruction %u: %s", sec, i - 1, why);
	}
	return 0;
}

/* ---- loading ---- */

/*
 * rte_bpf's validator reports through rte_log: catch it for the error.  The
 * log stream is global, and a worker may log while it is swapped: the
 * stream swapped in is never closed (one per process, rewound each time),
 * so a worker that took it writes into it, never into freed memory.  (Its
 * line may then show in the error.)  Loads come from one thread at a time.
 */
static struct rte_bpf *
bpf_load_logged(const struct rte_bpf_prm *prm, char *log, size_t log_len)
{
	static char *mbuf;
	static size_t mlen;
	static FILE *mf;
	FILE *old = rte_log_get_stream();
	struct rte_bpf *b;
	char *buf = NULL;

	if (mf == NULL)
		mf = open_memstream(&mbuf, &mlen);
	if (mf != NULL) {
		fflush(mf);
		rewind(mf);
		rte_openlog_stream(mf);
	}
	b = rte_bpf_load(prm);
	if (mf != NULL) {
		rte_openlog_stream(old == stderr ? NULL : old);
		fflush(mf);
		long at = ftell(mf);
		if (at > 0 && mbuf != NULL && (buf = malloc((size_t)at + 1)) != NULL) {
			memcpy(buf, mbuf, (size_t)at);
			buf[at] = '\0';
		}
	}
	log[0] = '\0';
	if (buf != NULL) {
		/* one line: the messages joined by "; " */
		size_t at = 0;
		for (char *p = buf; *p && at + 3 < log_len; p++) {
			if (*p == '\n') {
				if (p[1] != '\0')
					log[at++] = ';', log[at++] = ' ';
			} else {
				log[at++] = *p;
			}
		}
		while (at > 0 && (log[at - 1] == ' ' || log[at - 1] == ';'))
			at--;
		log[at] = '\0';
	}
	free(buf);
	return b;
}

/*
 * Tidy rte_bpf's messages in place ("evaluate: memory boundary violation at
 * pc: 4", "validate(0x7ffd...) loops detected;; loop at pc:12 --> pc:14"):
 * drop the function names and addresses; return the first "pc" named, or -1.
 */
static long
validator_pc(char *log)
{
	char out[512];
	size_t at = 0;
	long pc = -1;

	for (const char *p = log; *p && at + 1 < sizeof(out);) {
		const char *q = p;
		while ((*q >= 'a' && *q <= 'z') || *q == '_')
			q++;
		if (q > p && q[0] == '(' && q[1] == '0' && q[2] == 'x') { /* fn(0x..) */
			const char *r = strchr(q, ')');
			if (r != NULL) {
				p = r + 1;
				while (*p == ' ')
					p++;
				continue;
			}
		}
		if (q > p && q[0] == ':' && q[1] == ' ' && p == log) { /* "evaluate: " */
			p = q + 2;
			continue;
		}
		if (strncmp(p, "pc:", 3) == 0 && pc < 0)
			pc = strtol(p + 3, NULL, 10);
		if (p[0] == ';' && p[1] == ';') {
			p++;
			continue;
		}
		out[at++] = *p++;
	}
	out[at] = '\0';
	strcpy(log, out);
	return pc;
}

struct aif_lb_prog *
aif_lb_prog_load(const void *buf, size_t len, const char *file, const char *name,
		 uint32_t table_size, char *err, size_t err_len)
{
	struct aif_lb_elf_prog e;
	struct aif_lb_prog *p = NULL;
	char log[512];

	if (table_size == 0)
		table_size = AIF_LB_PROG_TABLE_DEFAULT;
	if (table_size & (table_size - 1) || table_size > (1u << 24)) {
		snprintf(err, err_len, "flow table size %u: not a power of two up to 2^24",
			 table_size);
		return NULL;
	}
	if (aif_lb_elf_read(buf, len, file, name, &e, err, err_len) != 0)
		return NULL;
	if (check_calls(e.insns, e.n_insns, e.section, err, err_len) != 0)
		goto out;
	struct rte_bpf_prm prm = {
		.ins = (const struct ebpf_insn *)e.insns, .nb_ins = e.n_insns,
		.xsym = helpers, .nb_xsym = RTE_DIM(helpers),
		.prog_arg = { .type = RTE_BPF_ARG_PTR, .size = sizeof(struct aif_lb_prog_ctx) },
	};
	struct rte_bpf *b = bpf_load_logged(&prm, log, sizeof(log));
	if (b == NULL) {
		long pc = validator_pc(log);
		if (pc >= 0)
			snprintf(err, err_len, "section %s: instruction %ld: %s (rte_bpf's validator)",
				 e.section, pc, log[0] ? log : rte_strerror(rte_errno));
		else
			snprintf(err, err_len, "section %s: %s (rte_bpf's validator)", e.section,
				 log[0] ? log : rte_strerror(rte_errno));
		goto out;
	}
	uint32_t uses = 0;
	if (check_flow(e.insns, e.n_insns, e.section, &uses, err, err_len) != 0) {
		rte_bpf_destroy(b);
		goto out;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		rte_bpf_destroy(b);
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	snprintf(p->name, sizeof(p->name), "%s", e.name);
	snprintf(p->section, sizeof(p->section), "%s", e.section);
	p->n_insns = e.n_insns;
	p->table_size = table_size;
	p->ctx_uses = uses;
	p->bpf = b;
	struct rte_bpf_jit jit;
	if (rte_bpf_get_jit(b, &jit) == 0 && jit.func != NULL) {
		p->jit = jit.func;
		p->jit_bytes = jit.sz;
	}
out:
	aif_lb_elf_prog_free(&e);
	return p;
}

struct aif_lb_prog *
aif_lb_prog_load_file(const char *path, const char *name, uint32_t table_size, char *err,
		      size_t err_len)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;
	struct aif_lb_prog *p = NULL;

	if (f == NULL || fstat(fileno(f), &sb) != 0) {
		snprintf(err, err_len, "%s: %s", path, strerror(errno));
		if (f != NULL)
			fclose(f);
		return NULL;
	}
	if (sb.st_size <= 0 || sb.st_size > (64 << 20)) {
		snprintf(err, err_len, "%s: %lld bytes: not an eBPF object of at most 64 MiB", path,
			 (long long)sb.st_size);
		fclose(f);
		return NULL;
	}
	void *buf = malloc((size_t)sb.st_size);
	if (buf == NULL || fread(buf, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size)
		snprintf(err, err_len, "%s: cannot read it", path);
	else
		p = aif_lb_prog_load(buf, (size_t)sb.st_size, path, name, table_size, err,
				     err_len);
	free(buf);
	fclose(f);
	return p;
}

void
aif_lb_prog_free(struct aif_lb_prog *p)
{
	if (p == NULL)
		return;
	rte_bpf_destroy(p->bpf);
	free(p);
}

uint64_t
aif_lb_prog_interp(const struct aif_lb_prog *p, void *ctx)
{
	return rte_bpf_exec(p->bpf, ctx);
}

struct aif_lb_prog_state *
aif_lb_prog_state_new(const struct aif_lb_prog *p)
{
	struct aif_lb_prog_state *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return NULL;
	st->table = calloc(p->table_size, sizeof(*st->table));
	if (st->table == NULL) {
		free(st);
		return NULL;
	}
	st->table_mask = p->table_size - 1;
	return st;
}

void
aif_lb_prog_state_free(struct aif_lb_prog_state *st)
{
	if (st == NULL)
		return;
	free(st->table);
	free(st);
}

/* ---- the context ---- */

void
aif_lb_prog_ctx_group(struct aif_lb_prog_ctx *c, const struct aif_group *g, uint16_t group,
		      const struct aif_member *members, const uint32_t *port_qbytes,
		      const uint8_t *bands, const uint64_t *load_bps,
		      const struct aif_lb_params *p, uint32_t table_size)
{
	uint32_t n = g->n < AIF_LB_PROG_MAX_MEMBERS ? g->n : AIF_LB_PROG_MAX_MEMBERS;

	c->version = AIF_LB_PROG_VERSION;
	c->group = group;
	c->n_members = n ? n : 1;
	c->n_up = g->n_up;
	c->table_size = table_size;
	c->flowlet_gap_ns = p->flowlet_gap_ns;
	c->flowlet_age_ns = p->flowlet_age_ns;
	c->flowlet_table_size = p->flowlet_table_size;
	memcpy(c->up_at, g->up, sizeof(c->up_at));
	for (uint32_t k = 0; k < n; k++) {
		const struct aif_member *mb = &members[k];
		struct aif_lb_prog_member *v = &c->member[k];
		uint16_t port = mb->port < AIF_MAX_PORTS ? mb->port : 0;
		v->up = g->n_up == 0 ? 0 : (uint8_t)((g->up_mask >> k) & 1);
		v->weight = mb->weight ? mb->weight : 1;
		v->port = mb->port;
		v->queued_bytes = port_qbytes != NULL ? port_qbytes[port] : 0;
		v->band = bands != NULL ? bands[port] : 0;
		v->tx_load_mbps = load_bps != NULL ? (uint32_t)RTE_MIN(load_bps[port] / 1000000,
								       (uint64_t)UINT32_MAX) : 0;
	}
}

void
aif_lb_prog_ctx_packet(struct aif_lb_prog_ctx *c, const struct aif_pkt *m, aif_time_ns now_ns,
		       uint32_t uses, const struct aif_group *g, const uint8_t *buckets)
{
	c->version = AIF_LB_PROG_VERSION;
	c->hash = m->hash;
	c->now_ns = now_ns;
	if (uses & AIF_LB_CTX_ECMP)
		c->ecmp_member = aif_lb_bucket_pick(g, buckets, m->hash);
	if (uses & AIF_LB_CTX_L4) {
		c->ip_version = m->kind == AIF_PKT_IPV6 ? 6 : 4;
		c->l4_proto = m->l4_proto;
		c->tc = m->tc;
		c->roce = (m->flags & AIF_PKT_F_ROCE) != 0;
		c->src_port = rte_be_to_cpu_16(m->src_port);
		c->dst_port = rte_be_to_cpu_16(m->dst_port);
	}
	if (!(uses & AIF_LB_CTX_ADDR)) {
		/* not read */
	} else if (m->kind != AIF_PKT_IPV6) {
		c->src_ip[0] = aif_ip4_host(&m->src);
		c->dst_ip[0] = aif_ip4_host(&m->dst);
		c->src_ip[1] = c->src_ip[2] = c->src_ip[3] = 0;
		c->dst_ip[1] = c->dst_ip[2] = c->dst_ip[3] = 0;
	} else {
		for (int w = 0; w < 4; w++) { /* four words, most significant first */
			uint32_t sw, dw;
			memcpy(&sw, m->src.b + 4 * w, 4);
			memcpy(&dw, m->dst.b + 4 * w, 4);
			c->src_ip[w] = rte_be_to_cpu_32(sw);
			c->dst_ip[w] = rte_be_to_cpu_32(dw);
		}
	}
	if (uses & AIF_LB_CTX_ROCE) {
		c->dest_qp = m->dest_qp;
		c->psn = m->psn;
		c->opcode = m->bth_opcode;
		c->in_port = m->in_port;
	}
}

/* ---- the scheme ---- */

uint32_t
aif_lb_prog_select(const struct aif_group *g, const struct aif_member *members,
		   const uint8_t *buckets, const struct aif_pkt *m, struct aif_lb_ctx *x)
{
	const struct aif_tables *t = x->t;
	struct aif_lb_state *st = x->st;
	uint8_t pi = g->prog != AIF_LB_PROG_NONE ? (uint8_t)(g->prog - 1)
						 : t->lb_prog_by_tc[m->tc & 7];

	if (unlikely(pi >= t->n_lb_progs))
		return aif_lb_bucket_pick(g, buckets, m->hash); /* (compile never does it) */
	const struct aif_lb_prog_ref *r = &t->lb_progs[pi];
	if ((r->prog->ctx_uses & AIF_LB_CTX_GROUP) &&
	    (st->prog_ctx_gen != t->generation || st->prog_ctx_ns != x->now_ns ||
	     st->prog_ctx_group != x->group || st->prog_ctx_prog != pi)) {
		/* the group's part: once per burst and group */
		aif_lb_prog_ctx_group(&st->prog_ctx, g, x->group, members, x->port_qbytes,
				      st->band, st->load_ewma_bps, x->p, r->prog->table_size);
		st->prog_ctx_gen = t->generation;
		st->prog_ctx_ns = x->now_ns;
		st->prog_ctx_group = x->group;
		st->prog_ctx_prog = pi;
	}
	aif_lb_prog_ctx_packet(&st->prog_ctx, m, x->now_ns, r->prog->ctx_uses, g, buckets);
	struct aif_lb_prog_env env = {
		.st = r->st[x->shard], .rng = x->rng, .g = g, .buckets = buckets,
	};
	return aif_lb_prog_run(r->prog, &st->prog_ctx, &env);
}
