/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balancing programs: check, JIT, helpers, context (lb_prog.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "lb.h"
#include "lb_prog.h"
#include "lb_prog_check.h"
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

/* By id, for the JIT and the interpreter. */
aif_lb_helper_fn *const aif_lb_prog_helpers[AIF_LB_HELPER_MAX + 1] = {
	[AIF_LB_HELPER_RANDOM] = h_random,
	[AIF_LB_HELPER_RANDOM_BELOW] = h_random_below,
	[AIF_LB_HELPER_TABLE_READ] = h_table_read,
	[AIF_LB_HELPER_TABLE_WRITE] = h_table_write,
	[AIF_LB_HELPER_TABLE_TOUCH] = h_table_touch,
	[AIF_LB_HELPER_COUNTER_ADD] = h_counter_add,
	[AIF_LB_HELPER_BUCKET] = h_bucket,
	[AIF_LB_HELPER_TABLE_ENTRY] = h_table_entry,
};

struct aif_lb_prog *
aif_lb_prog_load_insns(uint64_t *insns, uint32_t n, const char *section, const char *name,
		       uint32_t table_size, char *err, size_t err_len)
{
	struct aif_lb_prog_check chk;
	struct aif_lb_prog *p;

	if (table_size == 0)
		table_size = AIF_LB_PROG_TABLE_DEFAULT;
	if (table_size & (table_size - 1) || table_size > (1u << 24)) {
		snprintf(err, err_len, "flow table size %u: not a power of two up to 2^24",
			 table_size);
		return NULL;
	}
	if (aif_lb_prog_check_insns(insns, n, section, &chk, err, err_len) != 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (p == NULL || (p->insns = malloc((size_t)n * sizeof(*insns))) == NULL) {
		free(p);
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	memcpy(p->insns, insns, (size_t)n * sizeof(*insns));
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->section, sizeof(p->section), "%s", section);
	p->n_insns = n;
	p->table_size = table_size;
	p->ctx_uses = chk.ctx_uses;
	char why[128];
	if (aif_lb_prog_jit_compile(insns, n, aif_lb_prog_helpers, AIF_LB_HELPER_MAX + 1, 0,
				    &p->code, why, sizeof(why)) == 0) {
		p->jit = p->code.fn;
		p->jit_bytes = p->code.code_bytes;
	} else {
		snprintf(p->interp_why, sizeof(p->interp_why), "the JIT: %s", why);
	}
	return p;
}

struct aif_lb_prog *
aif_lb_prog_load(const void *buf, size_t len, const char *file, const char *name,
		 uint32_t table_size, char *err, size_t err_len)
{
	struct aif_lb_elf_prog e;
	struct aif_lb_prog *p;

	if (table_size & (table_size - 1) || table_size > (1u << 24)) {
		snprintf(err, err_len, "flow table size %u: not a power of two up to 2^24",
			 table_size);
		return NULL;
	}
	if (aif_lb_elf_read(buf, len, file, name, &e, err, err_len) != 0)
		return NULL;
	p = aif_lb_prog_load_insns(e.insns, e.n_insns, e.section, e.name, table_size, err,
				   err_len);
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
	aif_lb_prog_jit_free(&p->code);
	free(p->insns);
	free(p);
}

uint64_t
aif_lb_prog_interp(const struct aif_lb_prog *p, void *ctx)
{
	return aif_lb_prog_interp_run(p->insns, p->n_insns, ctx, aif_lb_prog_helpers);
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
	c->n_up = g->n_up < n ? g->n_up : n; /* (the check counts on <= n_members) */
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
aif_lb_prog_ctx_group_tc(struct aif_lb_prog_ctx *c, const struct aif_group *g,
			 const struct aif_member *members,
			 const uint32_t (*port_tc_qbytes)[AIF_LB_PROG_TCS])
{
	uint32_t n = g->n < AIF_LB_PROG_MAX_MEMBERS ? g->n : AIF_LB_PROG_MAX_MEMBERS;

	for (uint32_t k = 0; k < n; k++) {
		uint16_t port = members[k].port < AIF_MAX_PORTS ? members[k].port : 0;
		if (port_tc_qbytes != NULL)
			memcpy(c->tc_queued_bytes[k], port_tc_qbytes[port],
			       sizeof(c->tc_queued_bytes[k]));
		else
			memset(c->tc_queued_bytes[k], 0, sizeof(c->tc_queued_bytes[k]));
	}
}

/* (inlined in aif_lb_prog_select: a program reading only the hash and
 * ecmp_member fills three fields per packet, with no call) */
static inline __attribute__((always_inline)) void
ctx_packet(struct aif_lb_prog_ctx *c, const struct aif_pkt *m, aif_time_ns now_ns,
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

void
aif_lb_prog_ctx_packet(struct aif_lb_prog_ctx *c, const struct aif_pkt *m, aif_time_ns now_ns,
		       uint32_t uses, const struct aif_group *g, const uint8_t *buckets)
{
	ctx_packet(c, m, now_ns, uses, g, buckets);
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
		aif_lb_prog_ctx_group_tc(&st->prog_ctx, g, members, x->port_tc_qbytes);
		st->prog_ctx_gen = t->generation;
		st->prog_ctx_ns = x->now_ns;
		st->prog_ctx_group = x->group;
		st->prog_ctx_prog = pi;
	}
	ctx_packet(&st->prog_ctx, m, x->now_ns, r->prog->ctx_uses, g, buckets);
	struct aif_lb_prog_env env = {
		.st = r->st[x->shard], .rng = x->rng, .g = g, .buckets = buckets,
	};
	return aif_lb_prog_run(r->prog, &st->prog_ctx, &env);
}
