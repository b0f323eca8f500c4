/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for load-balancing programs: the loader (ELF reader,
 * our check, our JIT) and, for every program it accepts, runs from the
 * same state that must agree:
 *
 *   the oracle    an interpreter of our own that checks every memory
 *                 access against what a loaded program may touch: the
 *                 context (reads), its 512-byte stack (bytes it wrote),
 *                 the 16 bytes of each flow-table entry a helper handed it;
 *   the interpreter the switch runs (lb_prog_interp.c), and the JIT
 *                 (lb_prog_jit.c) as the loader compiled it (jumps 8-bit
 *                 where they fit) and again with every jump 32-bit, on a
 *                 thread whose stack has guard pages, with the context
 *                 read-only between guard pages (at a page's end, then at
 *                 a page's start) and the flow table between guard pages.
 *
 * Any access outside, any fault, or any difference in the answer, the
 * flow table, the counters or the random numbers drawn aborts: a finding.
 *
 * Input: an eBPF object (starting with the ELF magic: its only program), or
 * raw instructions, 8 bytes each (helper calls by id).  The group's size,
 * members up, queues and the packet come from a hash of the input.
 *
 * A load that takes long shows as a libFuzzer timeout.
 *
 *   build-fuzz/tests/fuzz_lb_prog -max_total_time=60 CORPUS_DIR SEED_DIR
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf_def.h>
#include <rte_common.h>

#include "lb.h"
#include "lb_buckets.h"
#include "lb_prog.h"
#include "lb_prog_elf.h"
#include "rng.h"

#define PAGE 4096u
#define TABLE_SIZE 256 /* entries: one page */
#define STACK_PAGES 64
#define MAX_ENTRIES AIF_LB_PROG_MAX_INSNS /* entries handed out in one run: a call each */

/* ---- guarded memory ---- */

struct world {
	uint8_t *ctx_area; /* [G][A][G][B][G]: the context at A's end, at B's start */
	struct aif_lb_prog_entry *table; /* one page between guards */
	uint8_t *stack;    /* STACK_PAGES pages between guards */
	struct aif_lb_prog_ctx model;  /* what the context holds this run */
	struct aif_group g;
	struct aif_member mem[AIF_LB_PROG_MAX_MEMBERS];
	uint8_t buckets[AIF_LB_PROG_MAX_MEMBERS * 16];
	uint32_t qb[AIF_MAX_PORTS];
	struct aif_lb_params params;
	struct aif_pkt pkt;
	aif_time_ns now_ns;
	uint64_t seed;
};

static struct world W;
static uint64_t n_inputs, n_loaded, n_jit, n_branchy;

static void
summary(void)
{
	fprintf(stderr, "fuzz_lb_prog: %llu inputs, %llu programs loaded and run on the oracle "
		"and the interpreter, %llu of them on the JIT too (%llu with jumps, in both "
		"layouts); no escape, no difference\n", (unsigned long long)n_inputs,
		(unsigned long long)n_loaded, (unsigned long long)n_jit,
		(unsigned long long)n_branchy);
}

static uint8_t *
guarded(size_t pages)
{
	uint8_t *m = mmap(NULL, (pages + 2) * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		abort();
	if (mprotect(m + PAGE, pages * PAGE, PROT_READ | PROT_WRITE) != 0)
		abort();
	return m + PAGE;
}

static void
world_init(void)
{
	W.ctx_area = guarded(3); /* pages A, (G), B */
	if (mprotect(W.ctx_area + PAGE, PAGE, PROT_NONE) != 0)
		abort();
	W.table = (struct aif_lb_prog_entry *)guarded(1);
	W.stack = guarded(STACK_PAGES);
	atexit(summary);
}

/* The context where a run sees it: read-only, a guard page on one side. */
static struct aif_lb_prog_ctx *
ctx_place(int where)
{
	uint8_t *page = W.ctx_area + (where ? 2 * PAGE : 0);
	uint8_t *at = where ? page : page + PAGE - sizeof(struct aif_lb_prog_ctx);

	if (mprotect(page, PAGE, PROT_READ | PROT_WRITE) != 0)
		abort();
	memcpy(at, &W.model, sizeof(W.model));
	if (mprotect(page, PAGE, PROT_READ) != 0)
		abort();
	return (struct aif_lb_prog_ctx *)at;
}

/* A group, its members' state and a packet from the input's hash. */
static void
world_draw(uint64_t seed, uint32_t table_size)
{
	struct aif_rng r;
	bool up[AIF_LB_PROG_MAX_MEMBERS];

	aif_rng_seed(&r, seed | 1);
	memset(&W.g, 0, sizeof(W.g));
	uint16_t n = (uint16_t)(1 + aif_rng_below(&r, AIF_LB_PROG_MAX_MEMBERS));
	W.g.n = n;
	W.g.n_buckets = (uint32_t)n * 16;
	for (uint16_t i = 0; i < n; i++) {
		W.mem[i].port = i;
		W.mem[i].weight = (uint16_t)(1 + aif_rng_below(&r, 4));
		up[i] = aif_rng_below(&r, 8) != 0;
		if (up[i]) {
			W.g.up_mask |= 1ull << i;
			W.g.up[W.g.n_up++] = (uint8_t)i;
		}
		W.qb[i] = aif_rng_below(&r, 4) == 0 ? 0 : (uint32_t)aif_rng_next(&r);
	}
	aif_lb_buckets_build(W.buckets, W.g.n_buckets, n, NULL, up, NULL, 0);
	W.params.flowlet_gap_ns = 100000;
	W.params.flowlet_age_ns = 2000000;
	W.params.flowlet_table_size = 1u << aif_rng_below(&r, 13);
	memset(&W.pkt, 0, sizeof(W.pkt));
	W.pkt.kind = aif_rng_below(&r, 2) ? AIF_PKT_IPV6 : AIF_PKT_IPV4;
	W.pkt.l4_proto = 17;
	W.pkt.tc = (uint8_t)aif_rng_below(&r, 8);
	W.pkt.hash = (uint32_t)aif_rng_next(&r);
	W.pkt.src_port = (uint16_t)aif_rng_next(&r);
	W.pkt.dst_port = (uint16_t)aif_rng_next(&r);
	W.pkt.dest_qp = (uint32_t)aif_rng_next(&r) & 0xffffff;
	W.pkt.psn = (uint32_t)aif_rng_next(&r) & 0xffffff;
	for (int i = 0; i < 16; i++) {
		W.pkt.src.b[i] = (uint8_t)aif_rng_next(&r);
		W.pkt.dst.b[i] = (uint8_t)aif_rng_next(&r);
	}
	W.now_ns = aif_rng_below(&r, 4) == 0 ? 0 : aif_rng_next(&r) >> 8;
	memset(&W.model, 0, sizeof(W.model));
	aif_lb_prog_ctx_group(&W.model, &W.g, (uint16_t)aif_rng_below(&r, 1024), W.mem, W.qb,
			      NULL, NULL, &W.params, table_size);
	aif_lb_prog_ctx_packet(&W.model, &W.pkt, W.now_ns, AIF_LB_CTX_ALL, &W.g, W.buckets);
	W.seed = aif_rng_next(&r);
}

/* The flow table's starting contents (entries half written). */
static void
table_reset(void)
{
	struct aif_rng r;

	aif_rng_seed(&r, W.seed);
	for (unsigned i = 0; i < TABLE_SIZE; i++) {
		bool used = aif_rng_below(&r, 2);
		W.table[i].last_ns = used ? 1 + (aif_rng_next(&r) >> 20) : 0;
		W.table[i].key = used ? (uint32_t)aif_rng_next(&r) : 0;
		W.table[i].value = used ? (uint32_t)aif_rng_below(&r, 80) : 0;
	}
}

/* What a run ends with. */
struct outcome {
	uint64_t r0;
	uint64_t counters[AIF_LB_PROG_COUNTERS];
	uint64_t rng_after;
	struct aif_lb_prog_entry table[TABLE_SIZE];
};

/* ---- the oracle ---- */

struct oracle {
	const struct ebpf_insn *ins;
	uint32_t n;
	const uint8_t *ctx;
	uint8_t stack[512];
	uint8_t written[512];
	uintptr_t entries[MAX_ENTRIES];
	unsigned n_entries;
	struct aif_lb_prog_state st;
	struct aif_rng rng;
};

static void
escape(const char *what, uint32_t pc, uintptr_t a, unsigned size)
{
	fprintf(stderr, "ESCAPE at instruction %u: %s (address %#lx, %u bytes)\n", pc, what,
		(unsigned long)a, size);
	abort();
}

static void
touch_mem(struct oracle *o, uint32_t pc, uintptr_t a, unsigned size, bool write)
{
	uintptr_t c = (uintptr_t)o->ctx, s = (uintptr_t)o->stack;

	if (a >= c && a + size <= c + sizeof(struct aif_lb_prog_ctx)) {
		if (write)
			escape("writes the context", pc, a, size);
		return;
	}
	if (a >= s && a + size <= s + sizeof(o->stack)) {
		for (unsigned b = 0; b < size; b++) {
			if (write)
				o->written[a - s + b] = 1;
			else if (!o->written[a - s + b])
				escape("reads a stack byte it did not write", pc, a, size);
		}
		return;
	}
	for (unsigned k = 0; k < o->n_entries; k++)
		if (a >= o->entries[k] && a + size <= o->entries[k] + 16)
			return;
	escape(write ? "writes outside its regions" : "reads outside its regions", pc, a, size);
}

static uint64_t
load_mem(uintptr_t a, unsigned size)
{
	uint64_t v = 0;

	memcpy(&v, (const void *)a, size); /* little-endian */
	return v;
}

static uint64_t
oracle_call(struct oracle *o, uint32_t pc, int id, uint64_t *r)
{
	struct aif_lb_prog_entry *e;
	uint64_t stamp = W.now_ns ? W.now_ns : 1;

	switch (id) {
	case AIF_LB_HELPER_RANDOM:
		return aif_rng_next(&o->rng) >> 32;
	case AIF_LB_HELPER_RANDOM_BELOW:
		return r[1] == 0 ? 0 : aif_rng_below(&o->rng, r[1] > UINT32_MAX ? UINT32_MAX :
								   (uint32_t)r[1]);
	case AIF_LB_HELPER_TABLE_READ:
		touch_mem(o, pc, (uintptr_t)r[2], 16, true);
		memcpy((void *)(uintptr_t)r[2], &o->st.table[r[1] & o->st.table_mask], 16);
		return 0;
	case AIF_LB_HELPER_TABLE_WRITE:
		e = &o->st.table[r[1] & o->st.table_mask];
		e->last_ns = stamp, e->key = (uint32_t)r[2], e->value = (uint32_t)r[3];
		return 0;
	case AIF_LB_HELPER_TABLE_TOUCH:
		o->st.table[r[1] & o->st.table_mask].last_ns = stamp;
		return 0;
	case AIF_LB_HELPER_COUNTER_ADD:
		if (r[1] < AIF_LB_PROG_COUNTERS)
			o->st.counters[r[1]] += r[2];
		return 0;
	case AIF_LB_HELPER_BUCKET:
		return aif_lb_bucket_pick(&W.g, W.buckets, (uint32_t)r[1]);
	case AIF_LB_HELPER_TABLE_ENTRY:
		e = &o->st.table[r[1] & o->st.table_mask];
		if (o->n_entries >= MAX_ENTRIES)
			escape("calls aif_lb_table_entry more often than it has instructions", pc,
			       0, 0);
		o->entries[o->n_entries++] = (uintptr_t)e;
		return (uint64_t)(uintptr_t)e;
	}
	escape("calls an unknown helper", pc, 0, 0);
	return 0;
}

static bool
jump(uint8_t op, uint64_t a, uint64_t b)
{
	switch (op) {
	case BPF_JEQ: return a == b;
	case EBPF_JNE: return a != b;
	case BPF_JGT: return a > b;
	case BPF_JGE: return a >= b;
	case EBPF_JLT: return a < b;
	case EBPF_JLE: return a <= b;
	case BPF_JSET: return (a & b) != 0;
	case EBPF_JSGT: return (int64_t)a > (int64_t)b;
	case EBPF_JSGE: return (int64_t)a >= (int64_t)b;
	case EBPF_JSLT: return (int64_t)a < (int64_t)b;
	case EBPF_JSLE: return (int64_t)a <= (int64_t)b;
	}
	abort();
}

static uint64_t
alu(uint32_t pc, uint8_t op, uint64_t a, uint64_t b, bool b64)
{
	if (!b64)
		a = (uint32_t)a, b = (uint32_t)b;
	uint64_t m = b64 ? 63 : 31, v;
	switch (op) {
	case BPF_ADD: v = a + b; break;
	case BPF_SUB: v = a - b; break;
	case BPF_MUL: v = a * b; break;
	case BPF_DIV:
	case BPF_MOD:
		if (b == 0)
			escape("divides by 0", pc, 0, 0);
		v = op == BPF_DIV ? a / b : a % b;
		break;
	case BPF_OR: v = a | b; break;
	case BPF_AND: v = a & b; break;
	case BPF_XOR: v = a ^ b; break;
	case BPF_LSH: v = a << (b & m); break;
	case BPF_RSH: v = a >> (b & m); break;
	case EBPF_ARSH: v = (uint64_t)((int64_t)a >> (b & 63)); break;
	case EBPF_MOV: v = b; break;
	default: abort();
	}
	return b64 ? v : (uint32_t)v;
}

static uint64_t
oracle_run(struct oracle *o)
{
	uint64_t r[11] = { 0 };

	r[1] = (uintptr_t)o->ctx;
	r[10] = (uintptr_t)o->stack + sizeof(o->stack);
	for (uint32_t pc = 0, steps = 0; pc < o->n; pc++, steps++) {
		const struct ebpf_insn x = o->ins[pc];
		uint8_t cls = BPF_CLASS(x.code), op = BPF_OP(x.code);
		bool k = BPF_SRC(x.code) == BPF_K;
		unsigned size = BPF_SIZE(x.code) == BPF_B ? 1 : BPF_SIZE(x.code) == BPF_H ? 2 :
				BPF_SIZE(x.code) == BPF_W ? 4 : 8;
		uintptr_t a;
		if (steps > o->n)
			escape("loops", pc, 0, 0);
		switch (cls) {
		case BPF_ALU:
		case EBPF_ALU64: {
			bool b64 = cls == EBPF_ALU64;
			if (op == BPF_NEG) {
				r[x.dst_reg] = b64 ? -r[x.dst_reg] : (uint32_t)-r[x.dst_reg];
			} else if (op == EBPF_END) {
				uint64_t v = r[x.dst_reg];
				if (BPF_SRC(x.code) == EBPF_TO_BE)
					v = x.imm == 16 ? __builtin_bswap16((uint16_t)v) :
					    x.imm == 32 ? __builtin_bswap32((uint32_t)v) :
							  __builtin_bswap64(v);
				r[x.dst_reg] = v;
			} else {
				uint64_t b = k ? (b64 ? (uint64_t)(int64_t)x.imm : (uint32_t)x.imm)
					       : r[x.src_reg];
				r[x.dst_reg] = alu(pc, op, r[x.dst_reg], b, b64);
			}
			break;
		}
		case BPF_LD:
			r[x.dst_reg] = (uint32_t)x.imm | (uint64_t)(uint32_t)o->ins[pc + 1].imm << 32;
			pc++;
			break;
		case BPF_LDX:
			a = (uintptr_t)(r[x.src_reg] + (uint64_t)(int64_t)x.off);
			touch_mem(o, pc, a, size, false);
			r[x.dst_reg] = load_mem(a, size);
			break;
		case BPF_ST:
		case BPF_STX: {
			a = (uintptr_t)(r[x.dst_reg] + (uint64_t)(int64_t)x.off);
			touch_mem(o, pc, a, size, true);
			uint64_t v = cls == BPF_ST ? (uint64_t)(int64_t)x.imm : r[x.src_reg];
			if (BPF_MODE(x.code) == EBPF_XADD)
				v += load_mem(a, size);
			memcpy((void *)a, &v, size);
			break;
		}
		case BPF_JMP:
			if (op == EBPF_EXIT)
				return r[0];
			if (op == EBPF_CALL) {
				r[0] = oracle_call(o, pc, x.imm, r);
				break;
			}
			if (op == BPF_JA || jump(op, r[x.dst_reg], k ? (uint64_t)(int64_t)x.imm :
								     r[x.src_reg]))
				pc += (uint32_t)(int32_t)x.off;
			break;
		default:
			escape("an instruction the check should have refused", pc, 0, 0);
		}
	}
	escape("runs past its end", o->n, 0, 0);
	return 0;
}

/* ---- the switch's runs, on a thread with a guarded stack ---- */

struct job {
	const struct aif_lb_prog *p;
	struct aif_lb_prog_ctx *ctx;
	struct aif_lb_prog_env *env;
	uint64_t r0;
};

static void *
job_run(void *arg)
{
	struct job *j = arg;

	j->r0 = aif_lb_prog_exec(j->p, j->ctx, j->env);
	return NULL;
}

/* p run by code (NULL: the interpreter), the context at where. */
static void
run_switch(struct aif_lb_prog *p, uint64_t (*code)(void *), int where, struct outcome *out)
{
	uint64_t (*fn)(void *) = p->jit;
	struct aif_lb_prog_state st = { .table = W.table, .table_mask = TABLE_SIZE - 1 };
	struct aif_rng rng;
	struct aif_lb_prog_env env = { .st = &st, .rng = &rng, .g = &W.g, .buckets = W.buckets };
	struct job j = { .p = p, .ctx = ctx_place(where), .env = &env };
	pthread_attr_t at;
	pthread_t t;

	table_reset();
	aif_rng_seed(&rng, W.seed);
	p->jit = code;
	if (pthread_attr_init(&at) != 0 ||
	    pthread_attr_setstack(&at, W.stack, STACK_PAGES * PAGE) != 0 ||
	    pthread_create(&t, &at, job_run, &j) != 0 || pthread_join(t, NULL) != 0)
		abort();
	pthread_attr_destroy(&at);
	p->jit = fn;
	out->r0 = j.r0;
	memcpy(out->counters, st.counters, sizeof(out->counters));
	out->rng_after = aif_rng_next(&rng);
	memcpy(out->table, W.table, sizeof(out->table));
}

static void
run_oracle(const struct ebpf_insn *ins, uint32_t n, struct outcome *out)
{
	static struct oracle o;
	struct aif_lb_prog_ctx *c = ctx_place(0);

	memset(&o, 0, sizeof(o));
	o.ins = ins;
	o.n = n;
	o.ctx = (const uint8_t *)c;
	o.st.table = W.table;
	o.st.table_mask = TABLE_SIZE - 1;
	table_reset();
	aif_rng_seed(&o.rng, W.seed);
	out->r0 = oracle_run(&o);
	memcpy(out->counters, o.st.counters, sizeof(out->counters));
	out->rng_after = aif_rng_next(&o.rng);
	memcpy(out->table, W.table, sizeof(out->table));
}

static void
same(const char *a, const struct outcome *x, const char *b, const struct outcome *y)
{
	if (x->r0 != y->r0 || memcmp(x->counters, y->counters, sizeof(x->counters)) != 0 ||
	    x->rng_after != y->rng_after || memcmp(x->table, y->table, sizeof(x->table)) != 0) {
		fprintf(stderr, "DIFFER: %s answered %#llx, %s %#llx\n", a,
			(unsigned long long)x->r0, b, (unsigned long long)y->r0);
		for (int k = 0; k < AIF_LB_PROG_COUNTERS; k++)
			if (x->counters[k] != y->counters[k])
				fprintf(stderr, "  counter %d: %llu against %llu\n", k,
					(unsigned long long)x->counters[k],
					(unsigned long long)y->counters[k]);
		if (x->rng_after != y->rng_after)
			fprintf(stderr, "  they drew different random numbers\n");
		for (int k = 0; k < TABLE_SIZE; k++)
			if (memcmp(&x->table[k], &y->table[k], sizeof(x->table[k])) != 0)
				fprintf(stderr, "  entry %d: %llu %u %u against %llu %u %u\n", k,
					(unsigned long long)x->table[k].last_ns, x->table[k].key,
					x->table[k].value, (unsigned long long)y->table[k].last_ns,
					y->table[k].key, y->table[k].value);
		abort();
	}
}

/* A jump or an exit before the end: code the JIT lays out. */
static bool
has_jumps(const struct ebpf_insn *ins, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (BPF_CLASS(ins[i].code) == BPF_JMP && BPF_OP(ins[i].code) != EBPF_CALL &&
		    (BPF_OP(ins[i].code) != EBPF_EXIT || i + 1 < n))
			return true;
	return false;
}

static uint64_t
fnv(const uint8_t *d, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 1099511628211ull;
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	static struct outcome o1, o2, o3;
	struct aif_lb_elf_prog e = { .insns = NULL };
	char err[512];
	uint64_t *ins, *orig;
	uint32_t n;

	if (!ready) {
		world_init();
		ready = true;
	}
	n_inputs++;
	if (size >= 4 && memcmp(data, "\177ELF", 4) == 0) {
		if (aif_lb_elf_read(data, size, "fuzz.o", NULL, &e, err, sizeof(err)) != 0)
			return 0;
		n = e.n_insns;
		ins = e.insns;
	} else {
		n = (uint32_t)(size / 8);
		if (n > AIF_LB_PROG_MAX_INSNS + 1)
			n = AIF_LB_PROG_MAX_INSNS + 1;
		ins = malloc((size_t)n * 8 + 8);
		if (ins == NULL)
			return 0;
		memcpy(ins, data, (size_t)n * 8);
	}
	orig = malloc((size_t)n * 8 + 8);
	if (orig == NULL)
		goto out;
	memcpy(orig, ins, (size_t)n * 8);
	struct aif_lb_prog *p = aif_lb_prog_load_insns(ins, n, "aifabric/lb/fuzz", "fuzz",
						       TABLE_SIZE, err, sizeof(err));
	if (p == NULL)
		goto out;
	n_loaded++;
	if (p->jit == NULL) { /* the JIT takes every checked program */
		fprintf(stderr, "REFUSED by the JIT, accepted by the check: %s\n", p->interp_why);
		abort();
	}
	n_jit++;
	/* the same code with every jump 32-bit */
	struct aif_lb_prog_jit j32;
	if (aif_lb_prog_jit_compile(orig, n, aif_lb_prog_helpers, AIF_LB_HELPER_MAX + 1,
				    AIF_LB_PROG_JIT_REL32, &j32, err, sizeof(err)) != 0) {
		fprintf(stderr, "REFUSED by the JIT with 32-bit jumps: %s\n", err);
		abort();
	}
	n_branchy += has_jumps((const struct ebpf_insn *)orig, n);
	world_draw(fnv(data, size), TABLE_SIZE);
	run_oracle((const struct ebpf_insn *)orig, n, &o1);
	run_switch(p, NULL, 1, &o2);
	same("the oracle", &o1, "the interpreter", &o2);
	run_switch(p, p->jit, 0, &o3);
	same("the interpreter", &o2, "the JIT", &o3);
	run_switch(p, p->jit, 1, &o3);
	same("the interpreter", &o2, "the JIT", &o3);
	run_switch(p, j32.fn, 1, &o3);
	same("the interpreter", &o2, "the JIT with 32-bit jumps", &o3);
	aif_lb_prog_jit_free(&j32);
	aif_lb_prog_free(p);
out:
	free(orig);
	if (e.insns != NULL)
		aif_lb_elf_prog_free(&e);
	else
		free(ins);
	return 0;
}
