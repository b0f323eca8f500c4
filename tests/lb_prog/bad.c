/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balancing programs the loader must refuse (test_lb_prog.c), and one
 * that loads but answers out of range. */
#include <aifabric/lb_prog.h>

/* reads past the context: member[] has 64 entries, then tc_queued_bytes */
AIF_LB_PROG("oob")
uint64_t
oob(const struct aif_lb_prog_ctx *c)
{
	return c->member[c->hash & 255].queued_bytes; /* past member[] and tc_queued_bytes */
}

/* a helper id that does not exist */
static uint64_t (*const no_such_helper)(uint64_t) = (void *)99;
AIF_LB_PROG("helper")
uint64_t
helper(const struct aif_lb_prog_ctx *c)
{
	return no_such_helper(c->hash);
}

/* n_up may be 0 */
AIF_LB_PROG("div")
uint64_t
div(const struct aif_lb_prog_ctx *c)
{
	return c->hash % c->n_up;
}

/* the same, tested first: accepted */
AIF_LB_PROG("div_ok")
uint64_t
div_ok(const struct aif_lb_prog_ctx *c)
{
	if (c->n_up == 0)
		return 0;
	return c->up_at[(c->hash % c->n_up) & 63];
}

/* writes the context */
AIF_LB_PROG("write")
uint64_t
write(const struct aif_lb_prog_ctx *c)
{
	((struct aif_lb_prog_ctx *)c)->hash = 0;
	return 0;
}

/* a loop the validator cannot unroll */
AIF_LB_PROG("loop")
uint64_t
loop(const struct aif_lb_prog_ctx *c)
{
	uint32_t best = 0;
	for (uint32_t i = 1; i < c->n_members; i++)
		if (c->member[i & 63].queued_bytes < c->member[best & 63].queued_bytes)
			best = i;
	return best;
}

/* more instructions than allowed: 4^6 = 4096 rounds of two or more */
#define R1(x) x = x * 31 + c->src_ip[x & 3];
#define R4(x) R1(x) R1(x) R1(x) R1(x)
#define R16(x) R4(x) R4(x) R4(x) R4(x)
#define R64(x) R16(x) R16(x) R16(x) R16(x)
#define R256(x) R64(x) R64(x) R64(x) R64(x)
#define R1024(x) R256(x) R256(x) R256(x) R256(x)
#define R4096(x) R1024(x) R1024(x) R1024(x) R1024(x)
AIF_LB_PROG("big")
uint64_t
big(const struct aif_lb_prog_ctx *c)
{
	uint32_t h = c->hash;
	R4096(h)
	return h % c->n_members;
}

/* calls another eBPF function */
static __attribute__((noinline)) uint64_t
sub(const struct aif_lb_prog_ctx *c)
{
	return c->hash % c->n_members;
}
AIF_LB_PROG("call")
uint64_t
call(const struct aif_lb_prog_ctx *c)
{
	return sub(c) + 1;
}

/* loads, but answers a member that is not there */
AIF_LB_PROG("range")
uint64_t
range(const struct aif_lb_prog_ctx *c)
{
	return c->n_members + 3;
}

/* writes the context through a pointer kept on the stack and read back */
AIF_LB_PROG("spill")
uint64_t
spill(const struct aif_lb_prog_ctx *c)
{
	struct aif_lb_prog_ctx *volatile p = (struct aif_lb_prog_ctx *)c;

	p->hash = 1;
	return 0;
}

/* ECMP through the helper: loads, and agrees with the built-in */
AIF_LB_PROG("bucket")
uint64_t
bucket(const struct aif_lb_prog_ctx *c)
{
	return aif_lb_bucket(c->hash);
}

/* writes past the flow-table entry the helper gave */
AIF_LB_PROG("entry_oob")
uint64_t
entry_oob(const struct aif_lb_prog_ctx *c)
{
	struct aif_lb_prog_entry *e = aif_lb_table_entry(c->hash);

	e[1].value = 1;
	return 0;
}

/* Sequences clang would not write, in eBPF assembly. */

/* a context pointer stored on the stack, read back in part, written through */
AIF_LB_PROG("half_ptr")
uint64_t
half_ptr(const struct aif_lb_prog_ctx *c)
{
	(void)c;
	asm volatile("*(u64 *)(r10 - 8) = r1\n\t"
		     "r2 = *(u32 *)(r10 - 8)\n\t"
		     "r3 = 0\n\t"
		     "*(u32 *)(r2 + 84) = r3\n\t" ::: "r2", "r3", "memory");
	return 0;
}

/* a flow-table entry pointer stored, read back in part, read through */
AIF_LB_PROG("half_entry")
uint64_t
half_entry(const struct aif_lb_prog_ctx *c)
{
	uint64_t r;

	(void)c;
	asm volatile("r1 = 0\n\t"
		     "call 8\n\t"
		     "*(u64 *)(r10 - 8) = r0\n\t"
		     "r2 = *(u32 *)(r10 - 8)\n\t"
		     "%0 = *(u32 *)(r2 + 0)\n\t" : "=r"(r) :: "r0", "r1", "r2", "r3", "r4", "r5",
		     "memory");
	return r;
}

/* a block reached only by a backward jump, writing the context */
AIF_LB_PROG("backjump")
uint64_t
backjump(const struct aif_lb_prog_ctx *c)
{
	(void)c;
	asm volatile("goto +3\n\t"
		     "r2 = 0\n\t"
		     "*(u32 *)(r1 + 84) = r2\n\t"
		     "exit\n\t"
		     "r0 = 0\n\t"
		     "goto -5\n\t" ::: "r0", "r2", "memory");
	__builtin_unreachable();
}

/* a divisor that is n_members (never 0) on one path and 0 on the other */
AIF_LB_PROG("merge_nz")
uint64_t
merge_nz(const struct aif_lb_prog_ctx *c)
{
	uint64_t r;

	(void)c;
	asm volatile("r3 = *(u32 *)(r1 + 84)\n\t" /* n_members */
		     "r4 = *(u32 *)(r1 + 4)\n\t"  /* hash */
		     "if r4 != 0 goto +1\n\t"
		     "r3 = 0\n\t"
		     "r0 = 5\n\t"
		     "r0 /= r3\n\t"
		     "%0 = r0\n\t" : "=r"(r) :: "r0", "r3", "r4", "memory");
	return r;
}
