/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing programs: schemes written in restricted C, compiled to
 * eBPF, checked and loaded at run time (the author's view is
 * include/aifabric/lb_prog.h).
 *
 * Loading (control thread, or the offline tester): libbpf reads the object
 * (lb_prog_elf.c); then our check (lb_prog_check.h: the shape of every
 * instruction and immediate, then a dataflow pass that decides memory
 * safety: pointer kinds and bounds per register and stack slot).  A
 * failure says the section, the instruction and the reason.  An accepted
 * program is compiled by our x86-64 JIT (lb_prog_jit.h), or, where that
 * fails (no memory for the code), runs on our interpreter
 * (lb_prog_interp.c); interp_why says why.
 *
 * Running (worker, per packet): aif_lb_prog_ctx_group fills the group's
 * part of the context (members, up list, knobs) when the group or the step
 * changes, aif_lb_prog_ctx_packet the packet's part; aif_lb_prog_run calls
 * the JIT-compiled code (one indirect call) with the helpers' environment
 * in a thread-local pointer, so no helper reads anything but the calling
 * worker's state.
 *
 * Reads:  the context; the environment (flow table, counters, rng, the
 *         group's buckets, now).
 * Writes: the program's per-worker state (flow table, counters) only.
 */
#ifndef AIF_LB_PROG_INT_H
#define AIF_LB_PROG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "../dataplane/params.h"
#include "../dataplane/pkt.h"
#include "../dataplane/rng.h"
#include "../dataplane/tables.h"
#include "../dataplane/types.h"
#include "../include/aifabric/lb_prog.h"
#include "lb.h"
#include "lb_prog_check.h"
#include "lb_prog_jit.h"

#define AIF_LB_PROG_NAME_MAX 64
#define AIF_LB_PROG_TABLE_DEFAULT 4096 /* flow-table entries per worker */

/* A loaded, checked program: immutable, shared by every worker. */
struct aif_lb_prog {
	char name[AIF_LB_PROG_NAME_MAX];
	char section[128];
	uint32_t n_insns;
	uint32_t table_size;         /* flow-table entries, a power of two */
	uint32_t ctx_uses;           /* AIF_LB_CTX_*: what it reads */
	uint64_t *insns;             /* n_insns, helper calls by id */
	struct aif_lb_prog_jit code; /* the JIT's (code.fn NULL where it failed) */
	uint64_t (*jit)(void *ctx);  /* code.fn; NULL: the interpreter (lb_prog_interp.c) */
	size_t jit_bytes;
	char interp_why[160];        /* why not the JIT ("" where it runs) */
};

/* One worker's state for one program. */
struct aif_lb_prog_state {
	uint64_t runs;         /* packets the program chose for */
	uint64_t fallbacks;    /* ... where it returned a bad member (ECMP took over) */
	uint64_t counters[AIF_LB_PROG_COUNTERS];
	uint32_t table_mask;
	struct aif_lb_prog_entry *table; /* table_mask + 1 entries */
};

/* What the helpers act on during one run. */
struct aif_lb_prog_env {
	struct aif_lb_prog_state *st;
	struct aif_rng *rng;
	const struct aif_group *g;
	const uint8_t *buckets;      /* the group's resilient bucket table */
	aif_time_ns now_ns;          /* (set from the context's by the run) */
};

/*
 * Load the program called name (NULL: the only one) from the eBPF object
 * in buf[0..len), file naming it in errors; table_size flow-table entries
 * per worker (0: AIF_LB_PROG_TABLE_DEFAULT; else a power of two).  The
 * program, or NULL and the reason in err.
 */
struct aif_lb_prog *aif_lb_prog_load(const void *buf, size_t len, const char *file,
				     const char *name, uint32_t table_size, char *err,
				     size_t err_len);
/* The same from n instructions already read (helper calls by id), section and name naming it. */
struct aif_lb_prog *aif_lb_prog_load_insns(uint64_t *insns, uint32_t n, const char *section,
					   const char *name, uint32_t table_size, char *err,
					   size_t err_len);
/* The same from a file. */
struct aif_lb_prog *aif_lb_prog_load_file(const char *path, const char *name,
					  uint32_t table_size, char *err, size_t err_len);
void aif_lb_prog_free(struct aif_lb_prog *p);

/* A worker's state for p (zeroed table), or NULL; free with _state_free. */
struct aif_lb_prog_state *aif_lb_prog_state_new(const struct aif_lb_prog *p);
void aif_lb_prog_state_free(struct aif_lb_prog_state *st);

/*
 * The group's part of the context: members (up from up_mask, weight, port,
 * bytes queued from port_qbytes (NULL: 0), band and load from bands/
 * load_mbps (NULL: 0), indexed by port), the up list, the flowlet knobs.
 */
void aif_lb_prog_ctx_group(struct aif_lb_prog_ctx *c, const struct aif_group *g,
			   uint16_t group, const struct aif_member *members,
			   const uint32_t *port_qbytes, const uint8_t *bands,
			   const uint64_t *load_bps, const struct aif_lb_params *p,
			   uint32_t table_size);
/* The group's members' bytes queued per traffic class, from
 * port_tc_qbytes[port][tc] (NULL: 0). */
void aif_lb_prog_ctx_group_tc(struct aif_lb_prog_ctx *c, const struct aif_group *g,
			      const struct aif_member *members,
			      const uint32_t (*port_tc_qbytes)[AIF_LB_PROG_TCS]);
/* The packet's part: hash and now_ns, and the AIF_LB_CTX_* parts in uses
 * (ecmp_member from g and its buckets). */
void aif_lb_prog_ctx_packet(struct aif_lb_prog_ctx *c, const struct aif_pkt *m,
			    aif_time_ns now_ns, uint32_t uses, const struct aif_group *g,
			    const uint8_t *buckets);

/* The thread's environment for the helpers (lb_prog.c). */
extern __thread struct aif_lb_prog_env *aif_lb_prog_cur;

/* p run by the interpreter (lb_prog_interp.c). */
uint64_t aif_lb_prog_interp(const struct aif_lb_prog *p, void *ctx);
/* The interpreter: n checked instructions on ctx, helper calls through
 * helpers[id] (aif_lb_prog_helpers, or a test's). */
uint64_t aif_lb_prog_interp_run(const uint64_t *insns, uint32_t n, void *ctx,
				aif_lb_helper_fn *const *helpers);

/* The helpers by id (lb_prog.c; aif_lb_helper_fn in lb_prog_jit.h). */
extern aif_lb_helper_fn *const aif_lb_prog_helpers[AIF_LB_HELPER_MAX + 1];

/* Run p on c: the member offset it returns (unchecked). */
static inline uint64_t
aif_lb_prog_exec(const struct aif_lb_prog *p, struct aif_lb_prog_ctx *c,
		 struct aif_lb_prog_env *env)
{
	aif_lb_prog_cur = env;
	env->now_ns = c->now_ns;
	return p->jit != NULL ? p->jit(c) : aif_lb_prog_interp(p, c);
}

/*
 * Run p for the packet whose context c is, and check its answer: a member
 * offset of the group that is up (or any, when none is); otherwise the
 * fallback is counted and the group's bucket table (ECMP) answers.
 */
static inline uint32_t
aif_lb_prog_run(const struct aif_lb_prog *p, struct aif_lb_prog_ctx *c,
		struct aif_lb_prog_env *env)
{
	const struct aif_group *g = env->g;
	uint64_t k = aif_lb_prog_exec(p, c, env);

	env->st->runs++;
	if (likely(k < g->n && (g->n_up == 0 || ((g->up_mask >> k) & 1))))
		return (uint32_t)k;
	env->st->fallbacks++;
	return aif_lb_bucket_pick(g, env->buckets, c->hash);
}

#endif /* AIF_LB_PROG_INT_H */
