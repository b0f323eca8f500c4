/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for pipelines/lb_prog.c (and lb_prog_elf.c): load-balancing
 * programs compiled by clang (examples/lb/, tests/lb_prog/), loaded with
 * libbpf, checked and compiled by the switch's JIT, run against the
 * built-in schemes.  No EAL; time is
 * what the test puts in now_ns; random numbers from seeded xorshifts.
 *
 *   - The ECMP example (the context's ecmp_member) and a program asking
 *     the aif_lb_bucket helper pick exactly the built-in ECMP's member for
 *     100,000 flows hashed from random 5-tuples, with all members up and
 *     again after one goes down (resilient buckets rebuilt from the old);
 *     each has only the context parts it reads filled.
 *   - The flowlet example makes the built-in flowlet's decision for every
 *     packet of a trace with gaps (64 flows, 20,000 packets, gaps around
 *     the 100 us flowlet gap, a member down for part of it), on the JIT
 *     and on the interpreter, with as many flowlet starts.
 *   - Refused with the section, the instruction and the reason: a read past
 *     the context, an unknown helper, a division by a value that may be 0,
 *     a write to the context (also through a pointer kept on the stack),
 *     a write past the flow-table entry a helper gave, a pointer kept on
 *     the stack read back in part (the context's, a flow-table entry's), a
 *     block reached by a backward jump, a divisor that is non-zero on one
 *     path only,
 *     a loop, too many instructions, a call to
 *     another eBPF function, a global variable, no lb section, several
 *     programs and no name, a file that is not an object.  The same
 *     division tested against 0 first loads.
 *   - Section headers libbpf would follow into bad memory (past the end,
 *     a relocation for a section without data, links and entry sizes
 *     that are wrong, a symbol in no section, section 0 with bytes), one
 *     field of the ECMP example changed at a time, and the fuzzer's
 *     finding: refused with the reason before libbpf reads the object.
 *   - A program answering a member out of range: counted, and ECMP's
 *     member taken instead.
 *   - DRILL and REPS examples: only members that are up, and the expected
 *     preference for short queues; on the JIT, deciding as the interpreter
 *     does packet by packet.
 *   - Every example and test program that loads runs on the JIT; a
 *     least-loaded choice over 16 members (2^15 paths) loads at once.
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

#include "flow_hash.h"
#include "lb.h"
#include "lb_buckets.h"
#include "lb_prog.h"
#include "lb_prog_elf.h"
#include "rng.h"

#if !defined(AIF_LB_EXAMPLES_DIR) || !defined(AIF_LB_TESTS_DIR)
#error "AIF_LB_EXAMPLES_DIR, AIF_LB_TESTS_DIR: where the compiled programs are"
#endif

#define GAP_NS (100 * AIF_NS_PER_US)
#define BPM 64 /* buckets per member */

static char err[512];

static struct aif_lb_prog *
load(const char *obj, const char *name)
{
	char path[512];

	bool example = strcmp(obj, "ecmp") == 0 || strcmp(obj, "flowlet") == 0 ||
		       strcmp(obj, "drill") == 0 || strcmp(obj, "reps") == 0;
	snprintf(path, sizeof(path), "%s/%s.o", example ? AIF_LB_EXAMPLES_DIR : AIF_LB_TESTS_DIR,
		 obj);
	err[0] = '\0';
	return aif_lb_prog_load_file(path, name, 0, err, sizeof(err));
}

/* A group of n members on ports 1..n, all up, with its buckets. */
struct grp {
	struct aif_group g;
	struct aif_member mem[AIF_MAX_MEMBERS];
	uint8_t buckets[AIF_MAX_MEMBERS * BPM];
	bool up[AIF_MAX_MEMBERS];
	struct aif_lb_params p;
	uint32_t qb[AIF_MAX_PORTS];
};

static void
grp_build(struct grp *x, uint16_t n, const uint8_t *prev)
{
	uint8_t old[AIF_MAX_MEMBERS * BPM];

	x->g.n = n;
	x->g.n_buckets = (uint32_t)n * BPM;
	x->g.up_mask = 0;
	x->g.n_up = 0;
	for (uint16_t i = 0; i < n; i++) {
		x->mem[i].port = (uint16_t)(i + 1);
		x->mem[i].weight = 1;
		x->mem[i].ctr_slot = i;
		if (x->up[i]) {
			x->g.up_mask |= 1ull << i;
			x->g.up[x->g.n_up++] = (uint8_t)i;
		}
	}
	if (prev != NULL)
		memcpy(old, prev, x->g.n_buckets);
	assert_int_equal(aif_lb_buckets_build(x->buckets, x->g.n_buckets, n, NULL, x->up,
					      prev != NULL ? old : NULL, x->g.n_buckets), 0);
	x->p.flowlet_gap_ns = GAP_NS;
	x->p.flowlet_age_ns = 2 * AIF_NS_PER_MS;
	x->p.flowlet_table_size = 4096;
	x->p.flowlet_mode = AIF_FLOWLET_RANDOM;
}

static struct grp *
grp_new(uint16_t n)
{
	struct grp *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	for (uint16_t i = 0; i < n; i++)
		x->up[i] = true;
	grp_build(x, n, NULL);
	return x;
}

/* A random IPv4 UDP (RoCEv2 half the time) packet's metadata and hash. */
static void
random_pkt(struct aif_pkt *m, struct aif_rng *r)
{
	uint32_t s = (uint32_t)aif_rng_next(r), d = (uint32_t)aif_rng_next(r);

	memset(m, 0, sizeof(*m));
	m->kind = AIF_PKT_IPV4;
	m->l4_proto = 17;
	m->flags = AIF_PKT_F_L4;
	m->src.family = m->dst.family = AIF_AF_INET4;
	memcpy(m->src.b, &s, 4);
	memcpy(m->dst.b, &d, 4);
	m->src_port = (uint16_t)aif_rng_next(r);
	m->dst_port = aif_rng_below(r, 2) ? rte_cpu_to_be_16(4791) : (uint16_t)aif_rng_next(r);
	m->hash = aif_flow_hash(m, AIF_HF_DEFAULT, AIF_HASH_CRC32C, 7);
}

static void
ecmp_matches_builtin(const char *obj, const char *name, uint32_t uses)
{
	struct aif_lb_prog *p = load(obj, name);
	assert_non_null(p);
	assert_non_null(p->jit);
	assert_int_equal(p->ctx_uses, uses); /* only what it reads is filled */
	struct aif_lb_prog_state *st = aif_lb_prog_state_new(p);
	struct grp *x = grp_new(8);
	struct aif_lb_prog_ctx *c = calloc(1, sizeof(*c));
	struct aif_rng r, prng;
	struct aif_lb_prog_env env = { .st = st, .rng = &prng, .g = &x->g,
				       .buckets = x->buckets };
	unsigned on[8] = { 0 };

	aif_rng_seed(&prng, 1);
	for (int round = 0; round < 2; round++) {
		if (round == 1) { /* member 3 goes down: its buckets move, no others */
			x->up[3] = false;
			grp_build(x, 8, x->buckets);
		}
		aif_lb_prog_ctx_group(c, &x->g, 0, x->mem, NULL, NULL, NULL, &x->p, p->table_size);
		aif_rng_seed(&r, 42);
		for (int i = 0; i < 100000; i++) {
			struct aif_pkt m;
			random_pkt(&m, &r);
			aif_lb_prog_ctx_packet(c, &m, (aif_time_ns)i, p->ctx_uses, &x->g, x->buckets);
			uint32_t want = aif_lb_bucket_pick(&x->g, x->buckets, m.hash);
			uint32_t got = aif_lb_prog_run(p, c, &env);
			if (got != want)
				fail_msg("flow %d round %d: program %u, built-in %u", i, round, got,
					 want);
			if (round == 1)
				assert_int_not_equal(got, 3);
			on[got]++;
		}
	}
	assert_int_equal(st->runs, 200000);
	assert_int_equal(st->fallbacks, 0);
	for (int k = 0; k < 8; k++)
		assert_true(on[k] > 200000 / 8 / 2); /* every member used */
	free(c);
	free(x);
	aif_lb_prog_state_free(st);
	aif_lb_prog_free(p);
}

static void
test_ecmp_matches_builtin(void **state)
{
	(void)state;
	ecmp_matches_builtin("ecmp", NULL, AIF_LB_CTX_ECMP); /* the context's ecmp_member */
	ecmp_matches_builtin("bad", "bucket", 0);            /* the aif_lb_bucket helper */
}

/* The flowlet example against the built-in flowlet over one trace. */
static void
flowlet_trace(bool interp)
{
	struct aif_lb_prog *p = load("flowlet", NULL);
	assert_non_null(p);
	assert_non_null(p->jit); /* (it branches: on our JIT all the same) */
	if (interp)
		p->jit = NULL; /* the switch's interpreter */
	struct aif_lb_prog_state *st = aif_lb_prog_state_new(p);
	struct grp *x = grp_new(4);
	struct aif_lb_state *bst = calloc(1, sizeof(*bst));
	bst->flowlet = calloc(AIF_FLOWLET_MAX, sizeof(*bst->flowlet)); /* control's part */
	struct aif_lb_prog_ctx *c = calloc(1, sizeof(*c));
	struct aif_rng r, brng, prng, trng;
	struct aif_lb_ctx bx = { .st = bst, .p = &x->p, .rng = &brng, .group = 2 };
	struct aif_lb_prog_env env = { .st = st, .rng = &prng, .g = &x->g,
				       .buckets = x->buckets };
	struct aif_pkt flows[64];
	aif_time_ns t = 1000, last_member_change = 0;
	uint64_t starts = 0, moves = 0;
	uint32_t prev[64];

	assert_non_null(bst);
	aif_rng_seed(&r, 5);
	aif_rng_seed(&brng, 77);
	aif_rng_seed(&prng, 77);
	aif_rng_seed(&trng, 9);
	for (int f = 0; f < 64; f++) {
		random_pkt(&flows[f], &r);
		prev[f] = UINT32_MAX;
	}
	aif_lb_prog_ctx_group(c, &x->g, 2, x->mem, NULL, NULL, NULL, &x->p, p->table_size);
	for (int i = 0; i < 20000; i++) {
		/* gaps: mostly short, now and then a flowlet gap or more */
		t += aif_rng_below(&trng, 8) == 0 ? GAP_NS / 2 + aif_rng_below(&trng, 2 * GAP_NS)
						   : aif_rng_below(&trng, 2000);
		if (i == 8000 || i == 14000) { /* member 1 down, then back */
			x->up[1] = i == 14000;
			grp_build(x, 4, x->buckets);
			aif_lb_prog_ctx_group(c, &x->g, 2, x->mem, NULL, NULL, NULL, &x->p,
					      p->table_size);
			last_member_change = t;
		}
		int f = (int)aif_rng_below(&trng, 64);
		bx.now_ns = t;
		uint32_t want = aif_lb_flowlet_select(&x->g, x->mem, x->buckets, &flows[f], &bx);
		aif_lb_prog_ctx_packet(c, &flows[f], t, p->ctx_uses, &x->g, x->buckets);
		uint32_t got = aif_lb_prog_run(p, c, &env);
		if (got != want)
			fail_msg("packet %d (flow %d, t %lu ns): program %u, built-in %u", i, f,
				 (unsigned long)t, got, want);
		if (prev[f] != UINT32_MAX && prev[f] != got)
			moves++;
		prev[f] = got;
	}
	for (int k = 0; k < AIF_MAX_MEMBER_SLOTS; k++)
		starts += bst->flowlet_starts[k];
	assert_int_equal(st->counters[0], starts);
	assert_int_equal(st->counters[0] + st->counters[1], 20000);
	assert_true(starts > 1000); /* the trace has gaps: flowlets start often */
	assert_true(moves > 500);   /* and flows move between them */
	assert_int_equal(st->fallbacks, 0);
	(void)last_member_change;
	free(c);
	free(bst->flowlet);
	free(bst);
	free(x);
	aif_lb_prog_state_free(st);
	aif_lb_prog_free(p);
}

static void
test_flowlet_matches_builtin(void **state)
{
	(void)state;
	flowlet_trace(false);
}

static void
test_flowlet_interpreter(void **state)
{
	(void)state;
	flowlet_trace(true);
}

static void
expect_reject(const char *obj, const char *name, const char *const *want)
{
	struct aif_lb_prog *p = load(obj, name);

	if (p != NULL)
		fail_msg("%s/%s: loaded; expected a refusal", obj, name ? name : "-");
	for (const char *const *w = want; *w != NULL; w++)
		if (strstr(err, *w) == NULL)
			fail_msg("%s/%s: \"%s\" lacks \"%s\"", obj, name ? name : "-", err, *w);
}

static void
test_rejects(void **state)
{
	(void)state;
#define R(obj, name, ...) expect_reject(obj, name, (const char *const[]){ __VA_ARGS__, NULL })
	R("bad", "oob", "section aifabric/lb/oob", "instruction 4",
	  "reads the context at bytes 192..4276 (a variable offset), outside its 0..3256");
	R("bad", "helper", "section aifabric/lb/helper", "instruction 1", "unknown helper 99");
	R("bad", "div", "section aifabric/lb/div", "instruction 3", "which may be 0");
	R("bad", "write", "section aifabric/lb/write", "instruction 1", "writes to the context");
	R("bad", "loop", "section aifabric/lb/loop", "instruction 28", "jumps backwards");
	R("bad", "big", "section aifabric/lb/big", "more than the 4096 allowed");
	R("bad", "call", "section aifabric/lb/call", "instruction 0", "another eBPF function");
	R("global", NULL, "section aifabric/lb/global", "global variables");
	R("nosection", NULL, "no program in a section named aifabric/lb", "xdp");
	R("bad", "spill", "section aifabric/lb/spill", "instruction 3", "writes to the context");
	R("bad", "entry_oob", "section aifabric/lb/entry_oob", "instruction 3",
	  "writes a flow-table entry at bytes 28..32, outside its 0..16");
	R("bad", "half_ptr", "section aifabric/lb/half_ptr", "instruction 1",
	  "reads part of a pointer kept on the stack");
	R("bad", "half_entry", "section aifabric/lb/half_entry",
	  "reads part of a pointer kept on the stack");
	R("bad", "backjump", "section aifabric/lb/backjump", "instruction 5", "jumps backwards");
	R("bad", "merge_nz", "section aifabric/lb/merge_nz", "instruction 5",
	  "divides by r3, which may be 0");
	/* escapes: native code through the JIT, pointer arithmetic, the bytes
	 * around the flow table */
	R("hostile", "inj_rsh", "instruction 1", "shifts by 0x9002b001 (0..63)");
	R("hostile", "inj_ud2", "instruction 1", "shifts by 0x900b0f01 (0..63)");
	R("hostile", "inj_alu32", "instruction 1", "shifts by 0x9002b001 (0..31)");
	R("hostile", "inj_arsh", "instruction 1", "shifts by 0x9002b001 (0..63)");
	R("hostile", "ptr_add_ptr", "instruction 3", "add of two pointers");
	R("hostile", "ptr_sub_ptr", "instruction 3", "sub of two pointers");
	R("hostile", "ptr_mul", "instruction 2", "mul on a pointer");
	R("hostile", "ptr_lsh", "instruction 2", "lsh on a pointer");
	R("hostile", "ptr_mov32", "instruction 2", "copies the low half of a pointer");
	R("hostile", "before_table", "instruction 3", "reads a flow-table entry at bytes -8..0");
	R("hostile", "past_table", "instruction 3", "writes a flow-table entry at bytes 16..24");
	R("bad", NULL, "16 load-balancing programs", "say which by name");
	R("bad", "nope", "no load-balancing program named nope");
#undef R
	/* not an object at all */
	char path[512];
	snprintf(path, sizeof(path), "%s/test_lb_prog.c", AIF_SOURCE_ROOT "/tests/unit");
	assert_null(aif_lb_prog_load_file(path, NULL, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "not an eBPF object"));
	/* a bad table size */
	snprintf(path, sizeof(path), "%s/ecmp.o", AIF_LB_EXAMPLES_DIR);
	assert_null(aif_lb_prog_load_file(path, NULL, 1000, err, sizeof(err)));
	assert_non_null(strstr(err, "power of two"));
	/* the division made safe loads */
	struct aif_lb_prog *p = load("bad", "div_ok");
	assert_non_null(p);
	aif_lb_prog_free(p);
}

/* An object's bytes, read whole. */
static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t *b = malloc(1 << 20);
	assert_non_null(b);
	*len = fread(b, 1, 1 << 20, f);
	fclose(f);
	assert_true(*len > 64 && *len < (1 << 20));
	return b;
}

static void
put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Headers a client's object may carry that libbpf (1.1) would follow into
 * a NULL or wild pointer: each refused, with the reason, before libbpf
 * reads the object.  The example ECMP object with one field changed each
 * time (its section headers at e_shoff, 64 bytes each: type at +4, offset
 * +24, size +32, link +40, info +44, entry size +56), and the fuzzer's
 * finding (sections past the end, a relocation for one of them).
 */
static void
test_hostile_headers(void **state)
{
	char path[512], err[512];
	size_t len;
	struct aif_lb_elf_prog e;

	(void)state;
	snprintf(path, sizeof(path), "%s/ecmp.o", AIF_LB_EXAMPLES_DIR);
	uint8_t *orig = slurp(path, &len), *b = malloc(len);
	assert_non_null(b);
	uint64_t shoff = orig[40] | (uint64_t)orig[41] << 8 | (uint64_t)orig[42] << 16;
	unsigned n = orig[60] | orig[61] << 8, symtab = 0, rel = 0;
	for (unsigned i = 1; i < n; i++) {
		const uint8_t *h = orig + shoff + 64 * i;
		symtab = h[4] == 2 ? i : symtab;
		rel = h[4] == 9 && rel == 0 ? i : rel;
	}
	assert_true(symtab != 0 && rel != 0);
	/* as it is: read */
	assert_int_equal(aif_lb_elf_read(orig, len, "ecmp.o", NULL, &e, err, sizeof(err)), 0);
	aif_lb_elf_prog_free(&e);
	static const struct {
		unsigned field, width; /* offset in the header named below, bytes */
		int sect;              /* -1: the ELF header; 0: the symbol table; 1: a REL;
					* 2: section 0 */
		uint64_t v;
		const char *why;
	} cases[] = {
		{ 40, 8, -1, 1u << 20, "section headers past the end" },
		{ 60, 2, -1, 0, "0 section headers" },
		{ 62, 2, -1, 0xfff, "section name table 4095" },
		{ 18, 2, -1, 62, "not a relocatable eBPF object" },
		{ 24, 8, 0, 1u << 30, "past the end" },
		{ 56, 8, 0, 16, "a symbol table of entries of 16 bytes" },
		{ 40, 4, 0, 9999, "links to section 9999" },
		{ 44, 4, 1, 0, "relocations of 16 bytes, for section 0" },
		{ 44, 4, 1, 2, "past its section's 0 bytes" }, /* .text: no data */
		{ 40, 4, 1, 1, "with symbols of section 1" },
		{ 32, 8, 1, 7, "relocations of 16 bytes" },
		{ 48, 8, 1, 3, "alignment 3" },
		/* section 0 made a string table far past the end (the fuzzer's) */
		{ 4, 4, 2, 3, "section 0: bytes 1073741824..1073741825 past the end" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		memcpy(b, orig, len);
		static const unsigned none = 0;
		const unsigned *which[] = { &symtab, &rel, &none };
		uint64_t at = cases[c].sect < 0 ? 0 : shoff + 64 * *which[cases[c].sect];
		put_le(b + at + cases[c].field, cases[c].v, cases[c].width);
		if (cases[c].sect == 2) /* its bytes at 1 GiB, one of them */
			put_le(b + at + 24, 1u << 30, 8), put_le(b + at + 32, 1, 8);
		err[0] = '\0';
		assert_int_equal(aif_lb_elf_read(b, len, "x.o", NULL, &e, err, sizeof(err)), -1);
		if (strstr(err, cases[c].why) == NULL || strstr(err, "x.o: not an eBPF object") == NULL)
			fail_msg("case %zu: %s (want: %s)", c, err, cases[c].why);
	}
	/* a symbol in a section the object does not have */
	memcpy(b, orig, len);
	const uint8_t *sh = orig + shoff + 64 * symtab;
	uint64_t sym_off = sh[24] | (uint64_t)sh[25] << 8 | (uint64_t)sh[26] << 16;
	put_le(b + sym_off + 24 + 6, 300, 2);
	assert_int_equal(aif_lb_elf_read(b, len, "x.o", NULL, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "in section 300"));
	free(b);
	free(orig);
	/* the fuzzer's finding */
	snprintf(path, sizeof(path), "%s/tests/fuzz/regressions/sections-past-the-end.bin",
		 AIF_SOURCE_ROOT);
	b = slurp(path, &len);
	assert_int_equal(aif_lb_elf_read(b, len, "found.o", NULL, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "past the end"));
	free(b);
}

static void
test_out_of_range_falls_back(void **state)
{
	(void)state;
	struct aif_lb_prog *p = load("bad", "range");
	assert_non_null(p);
	struct aif_lb_prog_state *st = aif_lb_prog_state_new(p);
	struct grp *x = grp_new(4);
	struct aif_lb_prog_ctx *c = calloc(1, sizeof(*c));
	struct aif_rng r, prng;
	struct aif_lb_prog_env env = { .st = st, .rng = &prng, .g = &x->g,
				       .buckets = x->buckets };

	aif_rng_seed(&r, 3);
	aif_lb_prog_ctx_group(c, &x->g, 0, x->mem, NULL, NULL, NULL, &x->p, p->table_size);
	for (int i = 0; i < 100; i++) {
		struct aif_pkt m;
		random_pkt(&m, &r);
		aif_lb_prog_ctx_packet(c, &m, 0, p->ctx_uses, &x->g, x->buckets);
		assert_int_equal(aif_lb_prog_run(p, c, &env),
				 aif_lb_bucket_pick(&x->g, x->buckets, m.hash));
	}
	assert_int_equal(st->runs, 100);
	assert_int_equal(st->fallbacks, 100);
	free(c);
	free(x);
	aif_lb_prog_state_free(st);
	aif_lb_prog_free(p);
}

/* DRILL and REPS: members that are up only; short queues preferred. */
static void
test_drill_reps(void **state)
{
	(void)state;
	const char *names[] = { "drill", "reps" };

	for (int e = 0; e < 2; e++) {
		struct aif_lb_prog *p = load(names[e], NULL);
		assert_non_null(p);
		assert_non_null(p->jit);
		assert_string_equal(p->interp_why, "");
		struct aif_lb_prog_state *st = aif_lb_prog_state_new(p),
					 *ist = aif_lb_prog_state_new(p);
		struct grp *x = grp_new(8);
		struct aif_lb_prog_ctx *c = calloc(1, sizeof(*c));
		struct aif_rng r, prng, iprng;
		struct aif_lb_prog_env env = { .st = st, .rng = &prng, .g = &x->g,
					       .buckets = x->buckets },
				       ienv = { .st = ist, .rng = &iprng, .g = &x->g,
						.buckets = x->buckets };
		uint64_t (*jit)(void *) = p->jit;
		unsigned on[8] = { 0 };

		x->up[5] = false;
		grp_build(x, 8, NULL);
		for (int k = 0; k < 8; k++) /* member 2 nearly empty, the rest busy */
			x->qb[x->mem[k].port] = k == 2 ? 1000 : 200000 + 1000 * (uint32_t)k;
		aif_rng_seed(&r, 11);
		aif_rng_seed(&prng, 12);
		aif_rng_seed(&iprng, 12);
		aif_lb_prog_ctx_group(c, &x->g, 0, x->mem, x->qb, NULL, NULL, &x->p,
				      p->table_size);
		for (int i = 0; i < 10000; i++) {
			struct aif_pkt m;
			random_pkt(&m, &r);
			aif_lb_prog_ctx_packet(c, &m, 1000 + (aif_time_ns)i * 100, p->ctx_uses, &x->g, x->buckets);
			uint32_t k = aif_lb_prog_run(p, c, &env);
			p->jit = NULL; /* the interpreter, from its own state */
			uint32_t ik = aif_lb_prog_run(p, c, &ienv);
			p->jit = jit;
			if (k != ik)
				fail_msg("%s packet %d: the JIT %u, the interpreter %u", names[e], i,
					 k, ik);
			on[k]++;
		}
		assert_int_equal(on[5], 0);
		assert_int_equal(st->fallbacks, 0);
		assert_memory_equal(st->counters, ist->counters, sizeof(st->counters));
		assert_memory_equal(st->table, ist->table, p->table_size * sizeof(*st->table));
		/* DRILL remembers the best: nearly everything to member 2; REPS
		 * explores away from the busy members towards it */
		assert_true(on[2] > (e == 0 ? 9000u : 2000u));
		free(c);
		free(x);
		aif_lb_prog_state_free(st);
		aif_lb_prog_state_free(ist);
		aif_lb_prog_free(p);
	}
}

/* The context's per-class queue bytes: each member's port's, by class,
 * adding up to the member's queued_bytes; none given: zeros. */
static void
test_ctx_tc_queued_bytes(void **state)
{
	(void)state;
	struct grp *x = grp_new(4);
	struct aif_lb_prog_ctx *c = calloc(1, sizeof(*c));
	static uint32_t tcq[AIF_MAX_PORTS][AIF_LB_PROG_TCS];

	assert_non_null(c);
	for (uint16_t p = 0; p < AIF_MAX_PORTS; p++) {
		x->qb[p] = 0;
		for (unsigned k = 0; k < AIF_LB_PROG_TCS; k++) {
			tcq[p][k] = 1000u * p + k * (k == 3 ? 100 : 1);
			x->qb[p] += tcq[p][k];
		}
	}
	aif_lb_prog_ctx_group(c, &x->g, 0, x->mem, x->qb, NULL, NULL, &x->p, 64);
	aif_lb_prog_ctx_group_tc(c, &x->g, x->mem, (const uint32_t (*)[AIF_LB_PROG_TCS])tcq);
	for (unsigned m = 0; m < 4; m++) {
		uint32_t sum = 0;
		for (unsigned k = 0; k < AIF_LB_PROG_TCS; k++) {
			assert_int_equal(c->tc_queued_bytes[m][k], tcq[x->mem[m].port][k]);
			sum += c->tc_queued_bytes[m][k];
		}
		assert_int_equal(sum, c->member[m].queued_bytes);
	}
	assert_int_equal(c->tc_queued_bytes[1][3], 1000u * x->mem[1].port + 300);
	aif_lb_prog_ctx_group_tc(c, &x->g, x->mem, NULL);
	assert_int_equal(c->tc_queued_bytes[1][3], 0);
	free(c);
	free(x);
}

/*
 * A flow-table entry pointer that clang keeps on the stack across helper
 * calls and writes through (tests/lb_prog/spill.c): it loads on the JIT,
 * the JIT and the interpreter decide alike, flows keep their member inside
 * a flowlet, and new flowlets prefer the short queue of two.
 */
static void
test_spilled_entry_pointer(void **state)
{
	(void)state;
	struct aif_lb_prog *p = load("spill", "flowlet2");

	if (p == NULL)
		fail_msg("refused: %s", err);
	assert_non_null(p->jit);
	struct aif_lb_prog_state *st[2] = { aif_lb_prog_state_new(p), aif_lb_prog_state_new(p) };
	struct grp *x = grp_new(8);
	struct aif_lb_prog_ctx *c = calloc(1, sizeof(*c));
	struct aif_rng r, prng[2];
	struct aif_pkt flows[32];
	uint32_t last[32];
	aif_time_ns last_t[32];
	uint64_t (*jit)(void *) = p->jit;
	unsigned on_short = 0, kept = 0, starts = 0;
	aif_time_ns t = 1000;

	for (int k = 0; k < 8; k++) /* member 3 nearly empty */
		x->qb[x->mem[k].port] = k == 3 ? 100 : 100000;
	aif_rng_seed(&r, 21);
	aif_rng_seed(&prng[0], 22);
	aif_rng_seed(&prng[1], 22);
	for (int f = 0; f < 32; f++) {
		random_pkt(&flows[f], &r);
		last[f] = UINT32_MAX;
	}
	aif_lb_prog_ctx_group(c, &x->g, 1, x->mem, x->qb, NULL, NULL, &x->p, p->table_size);
	for (int i = 0; i < 5000; i++) {
		int f = (int)aif_rng_below(&r, 32);
		t += aif_rng_below(&r, 40) == 0 ? 2 * GAP_NS : 500;
		aif_lb_prog_ctx_packet(c, &flows[f], t, p->ctx_uses, &x->g, x->buckets);
		uint32_t k[2];
		for (int e = 0; e < 2; e++) { /* the JIT, then the interpreter */
			struct aif_lb_prog_env env = { .st = st[e], .rng = &prng[e], .g = &x->g,
						       .buckets = x->buckets };
			p->jit = e == 0 ? jit : NULL;
			k[e] = aif_lb_prog_run(p, c, &env);
		}
		assert_int_equal(k[0], k[1]);
		bool within = last[f] != UINT32_MAX && t - last_t[f] < GAP_NS;
		if (within && k[0] == last[f])
			kept++;
		else if (within)
			fail_msg("packet %d: flow %d moved inside its flowlet (%u -> %u)", i, f,
				 last[f], k[0]);
		on_short += k[0] == 3;
		last[f] = k[0];
		last_t[f] = t;
	}
	p->jit = jit;
	starts = (unsigned)st[0]->counters[0];
	assert_int_equal(st[0]->counters[0], st[1]->counters[0]);
	assert_int_equal(st[0]->fallbacks, 0);
	print_message("flowlets %u, packets kept %u, on the short queue %u\n", starts, kept, on_short);
	assert_true(starts > 1000 && kept > 2000);
	/* of two draws the short queue wins: 1 - (7/8)^2 of new flowlets, not 1/8 */
	assert_true(on_short > 900);
	free(c);
	free(x);
	aif_lb_prog_state_free(st[0]);
	aif_lb_prog_state_free(st[1]);
	aif_lb_prog_free(p);
}

/*
 * A least-loaded choice over 16 members, unrolled: 2^15 paths (DPDK's
 * validator walked them for more than a minute).  It loads at once, on the
 * JIT, and picks the shortest queue.
 */
static void
test_many_paths(void **state)
{
	(void)state;
	struct aif_lb_prog *p = load("least", "least16");

	if (p == NULL)
		fail_msg("refused: %s", err);
	assert_non_null(p->jit);
	assert_string_equal(p->interp_why, "");
	struct aif_lb_prog_state *st = aif_lb_prog_state_new(p);
	struct grp *x = grp_new(16);
	struct aif_lb_prog_ctx *c = calloc(1, sizeof(*c));
	struct aif_rng r, prng;
	struct aif_lb_prog_env env = { .st = st, .rng = &prng, .g = &x->g,
				       .buckets = x->buckets };

	aif_rng_seed(&r, 17);
	for (int round = 0; round < 200; round++) {
		uint32_t best = 0;
		for (int k = 0; k < 16; k++) {
			x->qb[x->mem[k].port] = 1000 + (uint32_t)aif_rng_below(&r, 1000000);
			if (x->qb[x->mem[k].port] < x->qb[x->mem[best].port])
				best = (uint32_t)k;
		}
		aif_lb_prog_ctx_group(c, &x->g, 0, x->mem, x->qb, NULL, NULL, &x->p,
				      p->table_size);
		struct aif_pkt m;
		random_pkt(&m, &r);
		aif_lb_prog_ctx_packet(c, &m, 1000, p->ctx_uses, &x->g, x->buckets);
		assert_int_equal(aif_lb_prog_run(p, c, &env), best);
		p->jit = NULL; /* the interpreter too */
		assert_int_equal(aif_lb_prog_run(p, c, &env), best);
		p->jit = p->code.fn;
	}
	free(c);
	free(x);
	aif_lb_prog_state_free(st);
	aif_lb_prog_free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ecmp_matches_builtin),
		cmocka_unit_test(test_flowlet_matches_builtin),
		cmocka_unit_test(test_flowlet_interpreter),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_out_of_range_falls_back),
		cmocka_unit_test(test_drill_reps),
		cmocka_unit_test(test_ctx_tc_queued_bytes),
		cmocka_unit_test(test_spilled_entry_pointer),
		cmocka_unit_test(test_many_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
