/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Workloads on virtual RoCE hosts (jobs.h).
 *
 * Every QP a job makes is known by a reference (job, rank at this end,
 * peer rank or flow) on its host; the hosts' callbacks (a message
 * received, a message acknowledged, a timer) come here and drive the
 * ranks.  Timers carry (job, what, rank) in their cookie.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataplane/link.h"
#include "../dataplane/rng.h"
#include "jobs.h"

#define TM_START 0
#define TM_FLOW 1

static const char *const kind_names[AIF_JOB_N_KINDS] = {
	"allreduce_ring", "allreduce_hd", "allgather", "reduce_scatter",
	"alltoall", "incast", "permutation", "poisson", "flow_file",
};

int
aif_job_kind_parse(const char *name)
{
	for (int k = 0; k < AIF_JOB_N_KINDS; k++)
		if (strcmp(name, kind_names[k]) == 0)
			return k;
	return -1;
}

const char *
aif_job_kind_name(enum aif_job_kind k)
{
	return k < AIF_JOB_N_KINDS ? kind_names[k] : "?";
}

/* ---- CDFs ---- */

/* One point: "size percent", each a finite number; the size a whole
 * number of bytes 0..AIF_CDF_SIZE_MAX, the percent 0..100.  1: a point,
 * 0: no point (blank or comment), -1: why says what is wrong. */
static int
cdf_point(const char *line, double *s, double *p, const char **why)
{
	char extra;
	const char *c = line + strspn(line, " \t\r");
	if (*c == '\0' || *c == '#')
		return 0;
	int n = sscanf(line, "%lf %lf %c", s, p, &extra);

	if (n < 2)
		*why = "a point is a size and a percent (\"size percent\")";
	else if (n > 2 && extra != '#')
		*why = "more than a size and a percent";
	else if (!isfinite(*s) || !isfinite(*p))
		*why = "not a number (nan or inf)";
	else if (*s < 0 || *s > AIF_CDF_SIZE_MAX || *s != floor(*s))
		*why = "the size must be a whole number of bytes 0..1e12";
	else if (*p < 0 || *p > 100)
		*why = "the percent must be 0..100";
	else
		return 1;
	return -1;
}

int
aif_cdf_parse(const char *text, size_t len, const char *name, struct aif_cdf *cdf,
	      char *err, size_t err_len)
{
	const char *why = NULL;
	unsigned ln = 0;
	size_t at = 0;

	memset(cdf, 0, sizeof(*cdf));
	if (memchr(text, '\0', len) != NULL) {
		snprintf(err, err_len, "%s: not a text file (it has NUL bytes)", name);
		return -1;
	}
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl != NULL ? (size_t)(nl - (text + at)) : len - at;
		char line[256];
		double s, p;
		int rc;

		ln++;
		if (n >= sizeof(line)) {
			why = "line longer than 255 characters";
			goto bad;
		}
		memcpy(line, text + at, n);
		line[n] = '\0';
		at += n + 1;
		rc = cdf_point(line, &s, &p, &why);
		if (rc < 0)
			goto bad;
		if (rc == 0)
			continue; /* blank or comment */
		if (cdf->n == RTE_DIM(cdf->size)) {
			snprintf(err, err_len, "%s:%u: more than %zu points", name, ln,
				 RTE_DIM(cdf->size));
			return -1;
		}
		if (cdf->n == 0 && p != 0)
			why = "the first point must be at 0%, as HPCC's traffic_gen.py wants";
		else if (cdf->n && (s < cdf->size[cdf->n - 1] || p < cdf->pct[cdf->n - 1]))
			why = "sizes and percents must not decrease";
		if (why != NULL)
			goto bad;
		cdf->size[cdf->n] = s;
		cdf->pct[cdf->n++] = p;
	}
	if (cdf->n < 2 || cdf->pct[cdf->n - 1] != 100) {
		snprintf(err, err_len, "%s: needs at least two points, the last at 100%%", name);
		return -1;
	}
	/* flows come at load x rate / mean size: a mean of nothing is an
	 * endless stream of flows at one instant */
	if (!(aif_cdf_mean(cdf) >= 1)) {
		snprintf(err, err_len, "%s: the sizes average under 1 byte (all 0?): no flow "
			 "could be sent", name);
		return -1;
	}
	return 0;
bad:
	snprintf(err, err_len, "%s:%u: %s", name, ln, why);
	return -1;
}

double
aif_cdf_sample(const struct aif_cdf *cdf, double u)
{
	double x = u * 100;
	/* the first point from the second whose percent reaches x (percents
	 * never go down: a bisection finds what a scan from the start would) */
	uint32_t lo = 1, hi = cdf->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x <= cdf->pct[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == cdf->n)
		return cdf->size[cdf->n - 1];
	double span = cdf->pct[lo] - cdf->pct[lo - 1];
	double t = span > 0 ? (x - cdf->pct[lo - 1]) / span : 1;
	return cdf->size[lo - 1] + t * (cdf->size[lo] - cdf->size[lo - 1]);
}

double
aif_cdf_mean(const struct aif_cdf *cdf)
{
	double m = 0;

	for (uint32_t i = 1; i < cdf->n; i++)
		m += (cdf->pct[i] - cdf->pct[i - 1]) / 100 *
		     (cdf->size[i] + cdf->size[i - 1]) / 2;
	return m;
}

/* ---- state ---- */

struct qref {
	uint32_t job;
	uint32_t rank;   /* at this end */
	uint32_t peer;   /* rank at the other end, or the flow (poisson) */
	uint32_t plane;
};

struct hctx {
	struct aif_jobs *js;
	uint32_t host;
	struct qref *ref;  /* by QP index on the host */
	uint32_t n_ref;
};

struct stash {
	uint32_t peer, plane;
	uint64_t msg;
};

struct rank_st {
	uint32_t iter;        /* the iteration started last */
	bool running, started_any;
	uint32_t recv_got, send_acked;
	uint32_t early;       /* receipts already here for the next iteration */
	struct stash *st;     /* ... that make this rank send */
	uint32_t n_st, cap_st;
	uint32_t flow_first, flow_next, flow_end; /* poisson, flow_file: its flows in
						   * js->flows (flow_file: through
						   * job.order) */
};

struct job {
	struct aif_job_params p;
	uint32_t P;          /* planes: rank r's plane k is host hosts[r * P + k] */
	uint32_t *hosts;
	struct aif_cdf cdf;
	struct rank_st *r;
	uint32_t *to_next;   /* ring: [r * P + k] the QP to the next rank, plane k */
	uint32_t *mat;       /* alltoall, hd: [(r * N + s) * P + k] the QP of r to s;
			      * incast, permutation: [r * P + k] */
	uint32_t *perm;      /* permutation: where each rank sends */
	uint32_t *order;     /* flow_file: js->flows indices by rank, then start */
	struct aif_job_flow *flows; /* flow_file: the flows given */
	uint32_t steps, lg;  /* ring: steps; hd: log2 N */
	uint32_t recv_need_all, send_need_all; /* per rank, per iteration */
	uint32_t flow_first; /* incast, permutation: sender s's iteration i is flow
			      * flow_first + s * iterations + i (incast: s = rank - 1) */
	struct aif_job_iter *it;
	uint32_t *fin;       /* ranks finished, per iteration */
};

struct aif_jobs {
	struct aif_rhost **hosts;
	uint32_t n_hosts;
	uint64_t rate_bps;
	aif_jobs_rtt_fn rtt;
	aif_jobs_path_fn path;
	aif_jobs_ns3_path_fn ns3_path;
	void *rtt_arg;
	struct hctx *hc;
	struct job *job[AIF_JOBS_MAX];
	uint32_t n_jobs;
	struct aif_flow *flows;
	uint32_t n_flows, cap_flows;
	uint32_t jobs_done;   /* jobs whose last iteration every rank finished */
	uint32_t ranks_done;  /* ranks (of every job) that finished their last one */
	int all_done;         /* jobs_done == n_jobs: stored for other threads */
};

static void on_event(struct aif_rhost *h, enum aif_rhost_event ev, uint32_t qp,
		     uint64_t cookie, aif_time_ns at, void *arg);

struct aif_jobs *
aif_jobs_create(struct aif_rhost **hosts, uint32_t n_hosts, uint64_t rate_bps,
		aif_jobs_rtt_fn rtt, void *rtt_arg)
{
	struct aif_jobs *js = calloc(1, sizeof(*js));

	if (js == NULL || (js->hc = calloc(n_hosts ? n_hosts : 1, sizeof(*js->hc))) == NULL) {
		free(js);
		return NULL;
	}
	js->hosts = hosts;
	js->n_hosts = n_hosts;
	js->rate_bps = rate_bps;
	js->rtt = rtt;
	js->rtt_arg = rtt_arg;
	for (uint32_t i = 0; i < n_hosts; i++) {
		js->hc[i].js = js;
		js->hc[i].host = i;
		aif_rhost_set_callback(hosts[i], on_event, &js->hc[i]);
	}
	return js;
}

static void
job_free(struct job *j)
{
	if (j == NULL)
		return;
	for (uint32_t r = 0; j->r != NULL && r < j->p.n_ranks; r++)
		free(j->r[r].st);
	free(j->r);
	free(j->hosts);
	free(j->to_next);
	free(j->mat);
	free(j->perm);
	free(j->order);
	free(j->flows);
	free(j->it);
	free(j->fin);
	free(j);
}

void
aif_jobs_free(struct aif_jobs *js)
{
	if (js == NULL)
		return;
	for (uint32_t i = 0; i < js->n_jobs; i++)
		job_free(js->job[i]);
	for (uint32_t i = 0; i < js->n_hosts; i++) {
		free(js->hc[i].ref);
		aif_rhost_set_callback(js->hosts[i], NULL, NULL);
	}
	free(js->hc);
	free(js->flows);
	free(js);
}

static int
ref_set(struct aif_jobs *js, uint32_t host, uint32_t qp, struct qref r)
{
	struct hctx *hc = &js->hc[host];

	if (qp >= hc->n_ref) {
		uint32_t n = qp + 1 > 2 * hc->n_ref ? qp + 1 : 2 * hc->n_ref;
		struct qref *x = realloc(hc->ref, sizeof(*x) * n);
		if (x == NULL)
			return -1;
		for (uint32_t i = hc->n_ref; i < n; i++)
			x[i] = (struct qref){ .job = UINT32_MAX };
		hc->ref = x;
		hc->n_ref = n;
	}
	hc->ref[qp] = r;
	return 0;
}

/* rank r's host on plane k */
static inline uint32_t
host_of(const struct job *j, uint32_t r, uint32_t k)
{
	return j->hosts[(size_t)r * j->P + k];
}

/* Connect rank a's host to rank b's on plane k; *qa on a's host. */
static int
pair(struct aif_jobs *js, uint32_t ji, uint32_t a, uint32_t b, uint32_t k, uint32_t *qa,
     uint32_t *qb)
{
	const struct job *j = js->job[ji];
	uint32_t ha = host_of(j, a, k), hb = host_of(j, b, k), x, y;

	if (aif_rhost_connect(js->hosts[ha], js->hosts[hb], &x, &y) != 0 ||
	    ref_set(js, ha, x, (struct qref){ ji, a, b, k }) != 0 ||
	    ref_set(js, hb, y, (struct qref){ ji, b, a, k }) != 0)
		return -1;
	if (qa != NULL)
		*qa = x;
	if (qb != NULL)
		*qb = y;
	return 0;
}

/* The k-th flow of the ranks' order (poisson: js->flows in order). */
static inline uint32_t
flow_at(const struct job *j, uint32_t k)
{
	return j->order != NULL ? j->order[k] : k;
}

static inline uint64_t
cookie(uint32_t job, uint32_t what, uint32_t rank)
{
	return (uint64_t)job << 40 | (uint64_t)what << 32 | rank;
}

/* ---- the algorithms ---- */

static uint64_t
ring_chunk(const struct job *j)
{
	uint64_t c = j->p.bytes / j->p.n_ranks / j->p.chunks / j->P;
	return c ? c : 1;
}

/* hd: step k's partner and bytes for rank r (k in 0 .. 2 lg). */
static void
hd_step(const struct job *j, uint32_t r, uint32_t k, uint32_t *peer, uint64_t *bytes)
{
	uint32_t n = j->p.n_ranks;
	uint64_t b;

	if (k < j->lg) {
		*peer = r ^ (n >> (k + 1));
		b = (j->p.bytes >> (k + 1)) / j->P;
	} else {
		uint32_t a = k - j->lg;
		*peer = r ^ (1u << a);
		b = ((j->p.bytes / n) << a) / j->P;
	}
	*bytes = b ? b : 1;
}

static void
post(struct aif_jobs *js, struct job *j, uint32_t r, uint32_t k, uint32_t qp, uint64_t bytes,
     aif_time_ns at)
{
	(void)aif_rhost_post(js->hosts[host_of(j, r, k)], qp, bytes, 0, at);
}

/* A message from peer arrived at rank r and belongs to the iteration r
 * runs: what r sends because of it. */
static void
forward(struct aif_jobs *js, struct job *j, uint32_t r, uint32_t peer, uint32_t pl,
	uint64_t msg, aif_time_ns at)
{
	uint32_t n = j->p.n_ranks;

	switch (j->p.kind) {
	case AIF_JOB_ALLREDUCE_RING:
	case AIF_JOB_ALLGATHER:
	case AIF_JOB_REDUCE_SCATTER: {
		uint64_t k = msg % ((uint64_t)j->steps * j->p.chunks);
		if (k / j->p.chunks + 1 < j->steps)
			post(js, j, r, pl, j->to_next[(size_t)r * j->P + pl], ring_chunk(j), at);
		break;
	}
	case AIF_JOB_ALLREDUCE_HD: {
		uint32_t d = r ^ peer, lgd = (uint32_t)__builtin_ctz(d);
		uint32_t k = msg % 2 == 0 ? j->lg - 1 - lgd : j->lg + lgd;
		if (k + 1 < 2 * j->lg) {
			uint32_t p2;
			uint64_t b;
			hd_step(j, r, k + 1, &p2, &b);
			post(js, j, r, pl, j->mat[((size_t)r * n + p2) * j->P + pl], b, at);
		}
		break;
	}
	default:
		break;
	}
}

/* Which iteration message msg from peer belongs to. */
static uint32_t
iter_of(const struct job *j, uint64_t msg)
{
	switch (j->p.kind) {
	case AIF_JOB_ALLREDUCE_RING:
	case AIF_JOB_ALLGATHER:
	case AIF_JOB_REDUCE_SCATTER:
		return (uint32_t)(msg / ((uint64_t)j->steps * j->p.chunks));
	case AIF_JOB_ALLREDUCE_HD:
		return (uint32_t)(msg / 2);
	default:
		return (uint32_t)msg;
	}
}

static uint32_t
recv_need(const struct job *j, uint32_t r)
{
	if (j->p.kind == AIF_JOB_INCAST)
		return r == 0 ? (j->p.n_ranks - 1) * j->P : 0;
	return j->recv_need_all;
}

static uint32_t
send_need(const struct job *j, uint32_t r)
{
	if (j->p.kind == AIF_JOB_INCAST)
		return r == 0 ? 0 : j->P;
	if (j->p.kind == AIF_JOB_POISSON || j->p.kind == AIF_JOB_FLOW_FILE)
		return j->r[r].flow_end - j->r[r].flow_first;
	return j->send_need_all;
}

/* Incast, permutation: the flow of sender rank r's iteration i on plane k. */
static inline size_t
flow_of(const struct job *j, uint32_t r, uint32_t i, uint32_t k)
{
	uint32_t s = j->p.kind == AIF_JOB_INCAST ? r - 1 : r;
	return (size_t)j->flow_first + ((size_t)s * j->p.iterations + i) * j->P + k;
}

/*
 * What the ranks of a job share: an iteration's first start and last
 * finish, the ranks that finished it, the jobs done.  Ranks on switches
 * that different runners drive (dataplane/windows.h) write them at once;
 * the results (min, max, counts) do not depend on the order.
 */
static inline void
atomic_max(aif_time_ns *x, aif_time_ns v)
{
	aif_time_ns cur = __atomic_load_n(x, __ATOMIC_RELAXED);

	while (v > cur && !__atomic_compare_exchange_n(x, &cur, v, true, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}

/* *x = v if *x is 0 (not set) or later. */
static inline void
atomic_min_set(aif_time_ns *x, aif_time_ns v)
{
	aif_time_ns cur = __atomic_load_n(x, __ATOMIC_RELAXED);

	while ((cur == 0 || v < cur) &&
	       !__atomic_compare_exchange_n(x, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void
maybe_finish(struct aif_jobs *js, uint32_t ji, uint32_t r, aif_time_ns at)
{
	struct job *j = js->job[ji];
	struct rank_st *s = &j->r[r];

	if (!s->running || s->recv_got < recv_need(j, r) || s->send_acked < send_need(j, r))
		return;
	s->running = false;
	struct aif_job_iter *it = &j->it[s->iter];
	uint32_t fin = __atomic_add_fetch(&j->fin[s->iter], 1, __ATOMIC_RELAXED);
	atomic_max(&it->end_ns, at);
	if (s->iter + 1 == j->p.iterations)
		__atomic_add_fetch(&js->ranks_done, 1, __ATOMIC_RELAXED);
	if (s->iter + 1 == j->p.iterations && fin == j->p.n_ranks &&
	    __atomic_add_fetch(&js->jobs_done, 1, __ATOMIC_RELAXED) == js->n_jobs)
		__atomic_store_n(&js->all_done, 1, __ATOMIC_RELEASE);
	if (s->iter + 1 < j->p.iterations) {
		aif_time_ns t = at + j->p.compute_ns +
				((int32_t)r == j->p.straggler ? j->p.straggler_ns : 0);
		(void)aif_rhost_timer(js->hosts[host_of(j, r, 0)], t, cookie(ji, TM_START, r));
	}
}

static void
start_iter(struct aif_jobs *js, uint32_t ji, uint32_t r, aif_time_ns at)
{
	struct job *j = js->job[ji];
	struct rank_st *s = &j->r[r];
	uint32_t n = j->p.n_ranks;

	if (s->started_any)
		s->iter++;
	s->started_any = true;
	s->running = true;
	s->recv_got = s->early;
	s->early = 0;
	s->send_acked = 0;
	atomic_min_set(&j->it[s->iter].start_ns, at ? at : 1);
	for (uint32_t pl = 0; pl < j->P; pl++)
	switch (j->p.kind) {
	case AIF_JOB_ALLREDUCE_RING:
	case AIF_JOB_ALLGATHER:
	case AIF_JOB_REDUCE_SCATTER:
		for (uint32_t c = 0; c < j->p.chunks; c++)
			post(js, j, r, pl, j->to_next[(size_t)r * j->P + pl], ring_chunk(j), at);
		break;
	case AIF_JOB_ALLREDUCE_HD: {
		uint32_t p2;
		uint64_t b;
		hd_step(j, r, 0, &p2, &b);
		post(js, j, r, pl, j->mat[((size_t)r * n + p2) * j->P + pl], b, at);
		break;
	}
	case AIF_JOB_ALLTOALL: {
		uint64_t b = j->p.bytes / n / j->P ? j->p.bytes / n / j->P : 1;
		for (uint32_t k = 1; k < n; k++)
			post(js, j, r, pl, j->mat[((size_t)r * n + (r + k) % n) * j->P + pl], b, at);
		break;
	}
	case AIF_JOB_INCAST:
	case AIF_JOB_PERMUTATION: {
		if (j->p.kind == AIF_JOB_INCAST && r == 0)
			break;
		uint64_t b = j->p.bytes / j->P ? j->p.bytes / j->P : 1;
		js->flows[flow_of(j, r, s->iter, pl)].start_ns = at;
		post(js, j, r, pl, j->mat[(size_t)r * j->P + pl], b, at);
		break;
	}
	case AIF_JOB_POISSON:
	case AIF_JOB_FLOW_FILE:
		if (pl == 0 && s->flow_next < s->flow_end) {
			const struct aif_flow *f = &js->flows[flow_at(j, s->flow_next)];
			(void)aif_rhost_timer(js->hosts[f->src], f->start_ns, cookie(ji, TM_FLOW, r));
		}
		break;
	default:
		break;
	}
	/* what arrived before this rank started */
	uint32_t n_st = s->n_st;
	s->n_st = 0;
	for (uint32_t i = 0; i < n_st; i++)
		forward(js, j, r, s->st[i].peer, s->st[i].plane, s->st[i].msg, at);
	maybe_finish(js, ji, r, at);
}

static void
on_event(struct aif_rhost *h, enum aif_rhost_event ev, uint32_t qp, uint64_t ck,
	 aif_time_ns at, void *arg)
{
	struct hctx *hc = arg;
	struct aif_jobs *js = hc->js;

	(void)h;
	if (ev == AIF_RHOST_TIMER) {
		uint32_t ji = (uint32_t)(ck >> 40), what = (uint32_t)(ck >> 32) & 0xFF;
		uint32_t r = (uint32_t)ck;
		if (ji >= js->n_jobs)
			return;
		struct job *j = js->job[ji];
		if (what == TM_START) {
			start_iter(js, ji, r, at);
		} else if (what == TM_FLOW) {
			struct rank_st *s = &j->r[r];
			uint32_t fi = flow_at(j, s->flow_next);
			/* flow_next counts up to flow_end; flows done are counted by
			 * send_acked against the rank's total */
			struct aif_flow *f = &js->flows[fi];
			(void)aif_rhost_post(js->hosts[f->src], f->qp, f->bytes, fi, at);
			s->flow_next++;
			if (s->flow_next < s->flow_end) {
				/* the same time: at once, in the order given */
				const struct aif_flow *g = &js->flows[flow_at(j, s->flow_next)];
				(void)aif_rhost_timer(js->hosts[g->src], g->start_ns,
						      cookie(ji, TM_FLOW, r));
			}
		}
		return;
	}
	if (qp >= hc->n_ref || hc->ref[qp].job == UINT32_MAX)
		return; /* not ours */
	struct qref q = hc->ref[qp];
	struct job *j = js->job[q.job];
	struct rank_st *s = &j->r[q.rank];
	if (ev == AIF_RHOST_SENT) {
		if (j->p.kind == AIF_JOB_POISSON || j->p.kind == AIF_JOB_FLOW_FILE)
			js->flows[ck].end_ns = at;
		else if (j->p.kind == AIF_JOB_INCAST || j->p.kind == AIF_JOB_PERMUTATION)
			js->flows[flow_of(j, q.rank, s->iter, q.plane)].end_ns = at;
		s->send_acked++;
		maybe_finish(js, q.job, q.rank, at);
		return;
	}
	/* received: message ck from q.peer */
	uint32_t it = iter_of(j, ck);
	if (!s->started_any || it > s->iter || (it == s->iter && !s->running)) {
		/* ahead of this rank: kept for its next iteration */
		s->early++;
		if (j->p.kind != AIF_JOB_ALLTOALL && j->p.kind != AIF_JOB_INCAST &&
		    j->p.kind != AIF_JOB_PERMUTATION) {
			if (s->n_st == s->cap_st) {
				uint32_t cap = s->cap_st ? 2 * s->cap_st : 8;
				struct stash *x = realloc(s->st, sizeof(*x) * cap);
				if (x == NULL)
					return;
				s->st = x;
				s->cap_st = cap;
			}
			s->st[s->n_st++] = (struct stash){ q.peer, q.plane, ck };
		}
		return;
	}
	s->recv_got++;
	forward(js, j, q.rank, q.peer, q.plane, ck, at);
	maybe_finish(js, q.job, q.rank, at);
}

/* ---- adding a job ---- */

/* Wire bytes of a message of b bytes (every packet, headers and overhead,
 * a WRITE's RETH on the first). */
static uint64_t
msg_wire_bytes(const struct aif_rhost_params *hp, uint64_t b)
{
	uint64_t n = (b + hp->mtu - 1) / hp->mtu, last = b - (n - 1) * hp->mtu;
	uint64_t full = aif_rhost_data_wire_bytes(hp, hp->mtu, false);

	if (n == 1)
		return aif_rhost_data_wire_bytes(hp, (uint32_t)b, true);
	return aif_rhost_data_wire_bytes(hp, hp->mtu, true) + (n - 2) * full +
	       aif_rhost_data_wire_bytes(hp, (uint32_t)last, false);
}

static aif_time_ns
rtt(const struct aif_jobs *js, const struct job *j, uint32_t a, uint32_t b)
{
	return js->rtt != NULL ? js->rtt(host_of(j, a, 0), host_of(j, b, 0), js->rtt_arg) : 0;
}

static int
flow_add(struct aif_jobs *js, const struct aif_flow *f)
{
	if (js->n_flows == js->cap_flows) {
		uint32_t cap = js->cap_flows ? 2 * js->cap_flows : 1024;
		struct aif_flow *x = realloc(js->flows, sizeof(*x) * cap);
		if (x == NULL)
			return -1;
		js->flows = x;
		js->cap_flows = cap;
	}
	js->flows[js->n_flows++] = *f;
	return 0;
}

aif_time_ns
aif_jobs_ideal_ns3(uint64_t bytes, uint32_t payload_bytes, uint32_t hdr_bytes,
		   const struct aif_jobs_ns3_path *p)
{
	uint64_t b = bytes ? bytes : 1;
	uint64_t n = (b + payload_bytes - 1) / payload_bytes;
	uint64_t total = b + n * hdr_bytes;

	/* qp_finish: base_rtt + total_bytes * 8000000000lu / b, integers */
	return 2 * p->prop_ns + p->tx_ns + (aif_time_ns)(total * 8000000000ull / p->rate_bps);
}

/* A flow's standalone FCT, by the job's ideal (jobs.h). */
static aif_time_ns
standalone(const struct aif_jobs *js, const struct job *j, uint32_t a, uint32_t b,
	   uint64_t bytes)
{
	const struct aif_rhost_params *hp = aif_rhost_params(js->hosts[host_of(j, a, 0)]);

	if (j->p.ideal == AIF_JOB_IDEAL_NS3) {
		struct aif_jobs_ns3_path p;
		js->ns3_path(host_of(j, a, 0), host_of(j, b, 0), &p, js->rtt_arg);
		return aif_jobs_ideal_ns3(bytes, hp->mtu, AIF_JOBS_NS3_HDR_BYTES, &p);
	}
	return rtt(js, j, a, b) +
	       (aif_time_ns)((double)msg_wire_bytes(hp, bytes) * 8e9 / (double)js->rate_bps);
}

void
aif_jobs_set_path(struct aif_jobs *js, aif_jobs_path_fn path)
{
	js->path = path;
}

void
aif_jobs_set_ns3_path(struct aif_jobs *js, aif_jobs_ns3_path_fn path)
{
	js->ns3_path = path;
}

/*
 * The ideal JCT of one iteration: a lower bound (jobs.h).  Per plane (a
 * plane's ports carry 1/P of every message), over the messages of one
 * iteration: every rank's wire both ways, and the chains of messages that
 * wait for one another.
 */
struct bound {
	const struct aif_jobs *js;
	const struct job *j;
	const struct aif_rhost_params *hp;
	uint32_t ack_wire;       /* an ACK's wire bytes */
	double *tx, *rx;         /* per rank: wire bytes it sends, receives */
	double *lead, *tail;     /* ns: before its receive wire can start, after
				  * its send wire stopped */
	double *rx_tail;         /* ns: after its receive wire stopped */
	double chain;            /* ns: the longest chain of messages */
};

static double
ns_of(uint64_t wire_bytes, uint64_t rate_bps)
{
	return (double)wire_bytes * 8e9 / (double)rate_bps;
}

static uint64_t
rate_of(const struct aif_jobs *js, const struct job *j, uint32_t r)
{
	return aif_rhost_params(js->hosts[host_of(j, r, 0)])->rate_bps;
}

/* The base path a -> b: a full data frame's one way, an ACK's way back
 * (without the NIC's delay); zeros when the set knows none. */
static void
path_of(const struct aif_jobs *js, const struct job *j, uint32_t a, uint32_t b, double *data,
	double *ack)
{
	aif_time_ns d = 0, k = 0;

	if (js->path != NULL)
		js->path(host_of(j, a, 0), host_of(j, b, 0), &d, &k, js->rtt_arg);
	*data = (double)d;
	*ack = (double)k;
}

/* A message of `bytes` from rank a to rank b, from the time a posts it to
 * the time its last bit is in at b: its first packet's way, then the rest
 * through b's wire; a message of one short packet: its serialization. */
static double
hop_ns(const struct bound *bd, uint32_t a, uint32_t b, uint64_t bytes)
{
	const struct aif_rhost_params *hp = bd->hp;
	uint64_t w = msg_wire_bytes(hp, bytes);
	double data, ack;

	if (bytes < hp->mtu)
		return ns_of(w, rate_of(bd->js, bd->j, a));
	path_of(bd->js, bd->j, a, b, &data, &ack);
	return data + ns_of(w - msg_wire_bytes(hp, hp->mtu), rate_of(bd->js, bd->j, b));
}

/* count messages of `bytes` from a to b. */
static void
bound_msgs(struct bound *bd, uint32_t a, uint32_t b, uint64_t bytes, uint64_t count)
{
	const struct aif_rhost_params *hp = bd->hp;
	uint64_t pkts = (bytes + hp->mtu - 1) / hp->mtu;
	/* ACKs: every packet is counted once towards ack_every (SACKs only add) */
	double w = (double)(count * msg_wire_bytes(hp, bytes));
	double acks = (double)(count * (pkts / hp->ack_every) * bd->ack_wire);
	double data, ack;

	bd->tx[a] += w, bd->rx[b] += w;
	bd->tx[b] += acks, bd->rx[a] += acks;
	path_of(bd->js, bd->j, a, b, &data, &ack);
	/* b's wire: not before a full first packet could start in */
	uint64_t rb = rate_of(bd->js, bd->j, b);
	double first = bytes < hp->mtu ? 0 : data - ns_of(aif_rhost_data_wire_bytes(
					hp, hp->mtu, false), rb);
	bd->lead[b] = RTE_MIN(bd->lead[b], RTE_MAX(first, 0.0));
	/* a's wire: not before an ACK could (of a's first packet) */
	first = data + (double)hp->ack_delay_ns + ack -
		ns_of(bd->ack_wire, rate_of(bd->js, bd->j, a));
	bd->lead[a] = RTE_MIN(bd->lead[a], RTE_MAX(first, 0.0));
	/* after either one's last frame (a data packet, or an ACK of b's):
	 * at least an ACK's way from b's wire */
	double rest = RTE_MAX(ack - ns_of(bd->ack_wire, rb), 0.0);
	bd->tail[a] = RTE_MIN(bd->tail[a], rest);
	bd->tail[b] = RTE_MIN(bd->tail[b], rest);
	/* after a data packet in at b, its ACK; after an ACK in at a, nothing */
	bd->rx_tail[b] = RTE_MIN(bd->rx_tail[b], (double)hp->ack_delay_ns + ack);
	bd->rx_tail[a] = 0;
	/* each message alone: its way, its ACK back */
	bd->chain = RTE_MAX(bd->chain, hop_ns(bd, a, b, bytes) + (double)hp->ack_delay_ns + ack);
}

/* Ring kinds: chunk j of step s leaves rank r when chunk j of step s-1
 * came in from r-1, on the one QP to r+1 behind the chunks before it.  The
 * last chunk's chain: the chunks before it on the first rank's wire, then
 * a hop per step along the ring, then the last ACK. */
static int
bound_ring(struct bound *bd)
{
	const struct job *j = bd->j;
	uint32_t n = j->p.n_ranks;
	uint64_t m = ring_chunk(j), hops = j->steps;
	double *sum = malloc((2 * (size_t)n + 1) * sizeof(*sum)); /* of hops along two laps */

	if (sum == NULL)
		return -1;
	sum[0] = 0;
	for (uint32_t i = 0; i < 2 * n; i++)
		sum[i + 1] = sum[i] + hop_ns(bd, i % n, (i + 1) % n, m);
	double lap = sum[n];
	for (uint32_t e = 0; e < n; e++) {
		/* the chain that ends at rank e starts at first, hops steps back */
		uint32_t first = (uint32_t)((e + (uint64_t)n * hops - hops) % n), rest = hops % n;
		double t = (double)(j->p.chunks - 1) * ns_of(msg_wire_bytes(bd->hp, m),
							    rate_of(bd->js, j, first));
		t += (double)(hops / n) * lap + sum[first + rest] - sum[first];
		double data, ack;
		path_of(bd->js, j, (e + n - 1) % n, e, &data, &ack);
		bd->chain = RTE_MAX(bd->chain, t + (double)bd->hp->ack_delay_ns + ack);
	}
	free(sum);
	return 0;
}

/* Halving-doubling: rank r's step k+1 leaves when its partner's step k came
 * in, and that partner's step k left when its own partner's step k-1 did. */
static int
bound_hd(struct bound *bd)
{
	const struct job *j = bd->j;
	uint32_t n = j->p.n_ranks;
	double *t = calloc(n, sizeof(*t)), *u = calloc(n, sizeof(*u));

	if (t == NULL || u == NULL) {
		free(t);
		free(u);
		return -1;
	}
	/* t[r]: when rank r's step k-1 message came in (0: step 0 leaves at the start) */
	for (uint32_t k = 0; k < 2 * j->lg; k++) {
		for (uint32_t r = 0; r < n; r++) {
			uint32_t p, back;
			uint64_t b;
			hd_step(j, r, k, &p, &b);
			hd_step(j, p, k, &back, &b); /* what p sends r */
			u[r] = t[p] + hop_ns(bd, p, r, b);
		}
		memcpy(t, u, sizeof(*t) * n);
	}
	for (uint32_t r = 0; r < n; r++) {
		uint32_t p;
		uint64_t b;
		double data, ack;
		hd_step(j, r, 2 * j->lg - 1, &p, &b);
		path_of(bd->js, j, p, r, &data, &ack);
		bd->chain = RTE_MAX(bd->chain, t[r] + (double)bd->hp->ack_delay_ns + ack);
	}
	free(t);
	free(u);
	return 0;
}

static aif_time_ns
ideal(const struct aif_jobs *js, const struct job *j)
{
	uint32_t n = j->p.n_ranks;
	struct bound bd = { .js = js, .j = j,
			    .hp = aif_rhost_params(js->hosts[host_of(j, 0, 0)]) };
	double best = 0;

	if (j->p.kind == AIF_JOB_POISSON || j->p.kind == AIF_JOB_FLOW_FILE)
		return 0;
	bd.ack_wire = aif_rhost_ack_wire_bytes(bd.hp);
	bd.tx = calloc(n, sizeof(double));
	bd.rx = calloc(n, sizeof(double));
	bd.lead = malloc(n * sizeof(double));
	bd.tail = malloc(n * sizeof(double));
	bd.rx_tail = malloc(n * sizeof(double));
	if (bd.tx == NULL || bd.rx == NULL || bd.lead == NULL || bd.tail == NULL ||
	    bd.rx_tail == NULL)
		goto out;
	for (uint32_t r = 0; r < n; r++)
		bd.lead[r] = bd.tail[r] = bd.rx_tail[r] = HUGE_VAL;
	switch (j->p.kind) {
	case AIF_JOB_ALLREDUCE_RING:
	case AIF_JOB_ALLGATHER:
	case AIF_JOB_REDUCE_SCATTER:
		for (uint32_t r = 0; r < n; r++)
			bound_msgs(&bd, r, (r + 1) % n, ring_chunk(j),
				   (uint64_t)j->steps * j->p.chunks);
		if (bound_ring(&bd) != 0)
			goto out;
		break;
	case AIF_JOB_ALLREDUCE_HD:
		for (uint32_t r = 0; r < n; r++)
			for (uint32_t k = 0; k < 2 * j->lg; k++) {
				uint32_t p;
				uint64_t b;
				hd_step(j, r, k, &p, &b);
				bound_msgs(&bd, r, p, b, 1);
			}
		if (bound_hd(&bd) != 0)
			goto out;
		break;
	case AIF_JOB_ALLTOALL: {
		uint64_t b = j->p.bytes / n / j->P ? j->p.bytes / n / j->P : 1;
		for (uint32_t r = 0; r < n; r++)
			for (uint32_t k = 1; k < n; k++)
				bound_msgs(&bd, r, (r + k) % n, b, 1);
		break;
	}
	case AIF_JOB_INCAST:
	case AIF_JOB_PERMUTATION: {
		uint64_t b = j->p.bytes / j->P ? j->p.bytes / j->P : 1;
		for (uint32_t r = j->p.kind == AIF_JOB_INCAST ? 1 : 0; r < n; r++)
			bound_msgs(&bd, r, j->perm[r], b, 1);
		break;
	}
	default:
		goto out;
	}
	best = bd.chain;
	for (uint32_t r = 0; r < n; r++) {
		uint64_t rate = rate_of(js, j, r);
		if (bd.tx[r] > 0)
			best = RTE_MAX(best, bd.tx[r] * 8e9 / (double)rate + bd.tail[r]);
		if (bd.rx[r] > 0)
			best = RTE_MAX(best, bd.lead[r] + bd.rx[r] * 8e9 / (double)rate +
					       bd.rx_tail[r]);
	}
out:
	free(bd.tx);
	free(bd.rx);
	free(bd.lead);
	free(bd.tail);
	free(bd.rx_tail);
	return (aif_time_ns)best;
}

static int
fail(char *err, size_t err_len, const char *msg)
{
	snprintf(err, err_len, "%s", msg);
	return -1;
}

struct by_rank {
	uint32_t rank;
	uint32_t idx;
	aif_time_ns start_ns;
};

static int
cmp_by_rank(const void *a, const void *b)
{
	const struct by_rank *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* flow_file: a QP per flow in the order given (js->flows in that order),
 * and each rank's flows by start time, ties in the order given. */
static int
build_flow_file(struct aif_jobs *js, uint32_t ji, char *err, size_t err_len)
{
	struct job *j = js->job[ji];
	uint32_t n = j->p.n_flows, base = js->n_flows;
	struct by_rank *o = calloc(n ? n : 1, sizeof(*o));

	j->order = calloc(n ? n : 1, sizeof(*j->order));
	if (o == NULL || j->order == NULL) {
		free(o);
		return fail(err, err_len, "out of memory");
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct aif_job_flow *f = &j->flows[i];
		uint32_t hs = host_of(j, f->src, 0), qa;
		if (pair(js, ji, f->src, f->dst, 0, &qa, NULL) != 0) {
			free(o);
			return fail(err, err_len, "out of QPs");
		}
		js->hc[hs].ref[qa].peer = js->n_flows;
		if (j->p.set_sport && f->sport != 0)
			aif_rhost_qp_set_sport(js->hosts[hs], qa, f->sport);
		uint16_t sport = f->sport ? f->sport : aif_rhost_qp_sport(js->hosts[hs], qa);
		if (flow_add(js, &(struct aif_flow){ .job = ji, .src = hs,
				.dst = host_of(j, f->dst, 0), .qp = qa, .sport = sport,
				.dport = f->dport, .bytes = f->bytes,
				.start_ns = j->p.start_ns + f->start_ns,
				.standalone_ns = f->ideal_ns ? f->ideal_ns
					: standalone(js, j, f->src, f->dst, f->bytes) }) != 0) {
			free(o);
			return fail(err, err_len, "out of memory");
		}
		o[i] = (struct by_rank){ f->src, i, f->start_ns };
	}
	qsort(o, n, sizeof(*o), cmp_by_rank);
	for (uint32_t k = 0, r = 0; r < j->p.n_ranks; r++) {
		j->r[r].flow_first = j->r[r].flow_next = k;
		while (k < n && o[k].rank == r) {
			j->order[k] = base + o[k].idx;
			k++;
		}
		j->r[r].flow_end = k;
	}
	free(o);
	return 0;
}

static int
job_build(struct aif_jobs *js, uint32_t ji, char *err, size_t err_len)
{
	struct job *j = js->job[ji];
	const struct aif_job_params *p = &j->p;
	uint32_t n = p->n_ranks;
	struct aif_rng g;

	aif_rng_seed(&g, (p->seed + 1) * 0x9E3779B97F4A7C15ull ^ ji);
	switch (p->kind) {
	case AIF_JOB_ALLREDUCE_RING:
	case AIF_JOB_ALLGATHER:
	case AIF_JOB_REDUCE_SCATTER:
		j->steps = p->kind == AIF_JOB_ALLREDUCE_RING ? 2 * (n - 1) : n - 1;
		j->recv_need_all = j->send_need_all = j->steps * p->chunks * j->P;
		if ((j->to_next = calloc((size_t)n * j->P, sizeof(*j->to_next))) == NULL)
			return fail(err, err_len, "out of memory");
		for (uint32_t r = 0; r < n; r++)
			for (uint32_t k = 0; k < j->P; k++)
				if (pair(js, ji, r, (r + 1) % n, k, &j->to_next[(size_t)r * j->P + k],
					 NULL) != 0)
					return fail(err, err_len, "out of QPs");
		return 0;
	case AIF_JOB_ALLREDUCE_HD:
	case AIF_JOB_ALLTOALL:
		if (p->kind == AIF_JOB_ALLREDUCE_HD) {
			if (n & (n - 1))
				return fail(err, err_len, "ranks: allreduce_hd needs a power of two");
			j->lg = (uint32_t)__builtin_ctz(n);
			j->recv_need_all = j->send_need_all = 2 * j->lg * j->P;
		} else {
			j->recv_need_all = j->send_need_all = (n - 1) * j->P;
		}
		if ((j->mat = calloc((size_t)n * n * j->P, sizeof(*j->mat))) == NULL)
			return fail(err, err_len, "out of memory");
		/* every host's QPs of the job in one table, not doubled up to them */
		for (uint32_t r = 0; r < n; r++)
			for (uint32_t k = 0; k < j->P; k++)
				if (aif_rhost_reserve_qps(js->hosts[host_of(j, r, k)],
							  p->kind == AIF_JOB_ALLREDUCE_HD ? j->lg
											  : n - 1) != 0)
					return fail(err, err_len, "out of memory");
		for (uint32_t a = 0; a < n; a++)
			for (uint32_t b = a + 1; b < n; b++)
				for (uint32_t k = 0; k < j->P; k++) {
					if (p->kind == AIF_JOB_ALLREDUCE_HD &&
					    __builtin_popcount(a ^ b) != 1)
						continue;
					if (pair(js, ji, a, b, k, &j->mat[((size_t)a * n + b) * j->P + k],
						 &j->mat[((size_t)b * n + a) * j->P + k]) != 0)
						return fail(err, err_len, "out of QPs");
				}
		return 0;
	case AIF_JOB_INCAST:
	case AIF_JOB_PERMUTATION: {
		if ((j->mat = calloc((size_t)n * j->P, sizeof(*j->mat))) == NULL ||
		    (j->perm = calloc(n, sizeof(*j->perm))) == NULL)
			return fail(err, err_len, "out of memory");
		for (uint32_t r = 0; r < n; r++)
			j->perm[r] = p->kind == AIF_JOB_INCAST ? 0 : r;
		if (p->kind == AIF_JOB_PERMUTATION) /* Sattolo: one cycle, no rank to itself */
			for (uint32_t i = n - 1; i > 0; i--) {
				uint32_t k = aif_rng_below(&g, i), t = j->perm[i];
				j->perm[i] = j->perm[k];
				j->perm[k] = t;
			}
		j->recv_need_all = j->send_need_all = j->P;
		j->flow_first = js->n_flows;
		uint64_t part = p->bytes / j->P ? p->bytes / j->P : 1;
		for (uint32_t r = p->kind == AIF_JOB_INCAST ? 1 : 0; r < n; r++) {
			for (uint32_t k = 0; k < j->P; k++)
				if (pair(js, ji, r, j->perm[r], k, &j->mat[(size_t)r * j->P + k],
					 NULL) != 0)
					return fail(err, err_len, "out of QPs");
			/* flows: iteration-major, then plane (flow_of) */
			for (uint32_t i = 0; i < p->iterations; i++)
				for (uint32_t k = 0; k < j->P; k++) {
					uint32_t hs = host_of(j, r, k), q = j->mat[(size_t)r * j->P + k];
					if (flow_add(js, &(struct aif_flow){ .job = ji, .src = hs,
							.dst = host_of(j, j->perm[r], k), .qp = q,
							.sport = aif_rhost_qp_sport(js->hosts[hs], q),
							.bytes = part,
							.standalone_ns = standalone(js, j, r, j->perm[r], part),
						}) != 0)
						return fail(err, err_len, "out of memory");
				}
		}
		return 0;
	}
	case AIF_JOB_POISSON: {
		double mean = aif_cdf_mean(&j->cdf);
		double gap = mean * 8e9 / ((double)js->rate_bps * p->load);
		for (uint32_t r = 0; r < n; r++) {
			double t = (double)p->start_ns;
			j->r[r].flow_first = j->r[r].flow_next = js->n_flows;
			for (;;) {
				double u = (double)((aif_rng_next(&g) >> 11) + 1) / 9007199254740992.0;
				t += -log(u) * gap;
				if ((aif_time_ns)t >= p->stop_ns)
					break;
				double sz = aif_cdf_sample(&j->cdf, (double)(aif_rng_next(&g) >> 11) /
								    9007199254740992.0);
				uint64_t bytes = sz < 1 ? 1 : (uint64_t)(sz + 0.5);
				uint32_t d = aif_rng_below(&g, n - 1);
				d = d >= r ? d + 1 : d;
				uint32_t qa, k = (js->n_flows - j->r[r].flow_first) % j->P;
				if (pair(js, ji, r, d, k, &qa, NULL) != 0)
					return fail(err, err_len, "out of QPs");
				/* the flow id is the QP reference's peer; flows take
				 * the planes in turn */
				js->hc[host_of(j, r, k)].ref[qa].peer = js->n_flows;
				if (flow_add(js, &(struct aif_flow){ .job = ji, .src = host_of(j, r, k),
						.dst = host_of(j, d, k), .qp = qa,
						.sport = aif_rhost_qp_sport(js->hosts[host_of(j, r, k)], qa),
						.bytes = bytes, .start_ns = (aif_time_ns)t,
						.standalone_ns = standalone(js, j, r, d, bytes) }) != 0)
					return fail(err, err_len, "out of memory");
			}
			j->r[r].flow_end = js->n_flows;
		}
		return 0;
	}
	case AIF_JOB_FLOW_FILE:
		return build_flow_file(js, ji, err, err_len);
	default:
		return fail(err, err_len, "kind: unknown");
	}
}

int
aif_jobs_add(struct aif_jobs *js, const struct aif_job_params *p, char *err, size_t err_len)
{
	struct job *j;
	uint32_t ji = js->n_jobs;

	if (js->n_jobs == AIF_JOBS_MAX)
		return fail(err, err_len, "too many jobs");
	if (p->kind >= AIF_JOB_N_KINDS)
		return fail(err, err_len, "kind: unknown");
	if ((unsigned)p->ideal > AIF_JOB_IDEAL_NS3 ||
	    (p->ideal == AIF_JOB_IDEAL_NS3 && js->ns3_path == NULL))
		return fail(err, err_len, "ideal: \"ns3\" needs the paths (aif_jobs_set_ns3_path)");
	if (p->n_ranks < 2 || p->n_ranks > AIF_JOB_MAX_RANKS)
		return fail(err, err_len, "ranks: 2 or more, at most 65536");
	if (p->kind != AIF_JOB_POISSON && p->kind != AIF_JOB_FLOW_FILE && p->bytes == 0)
		return fail(err, err_len, "bytes: at least 1");
	if (p->iterations == 0 || p->chunks == 0)
		return fail(err, err_len, "iterations and chunks: at least 1");
	if (p->kind == AIF_JOB_POISSON &&
	    (p->cdf == NULL || !(p->load > 0 && p->load <= 1) || p->stop_ns <= p->start_ns))
		return fail(err, err_len, "poisson: a size CDF, load in (0, 1] and a stop "
			    "after the start");
	if (p->kind == AIF_JOB_FLOW_FILE) {
		if (p->n_flows == 0 || p->flows == NULL)
			return fail(err, err_len, "flow_file: no flows");
		if (p->planes > 1)
			return fail(err, err_len, "flow_file: one plane (a multi-plane fabric's "
				    "hosts are not a flow file's)");
		for (uint32_t i = 0; i < p->n_flows; i++)
			if (p->flows[i].src >= p->n_ranks || p->flows[i].dst >= p->n_ranks ||
			    p->flows[i].src == p->flows[i].dst || p->flows[i].bytes == 0)
				return fail(err, err_len, "flow_file: a flow's ranks or bytes");
	}
	if (p->straggler >= (int32_t)p->n_ranks)
		return fail(err, err_len, "straggler: not a rank");
	if (p->planes > 8)
		return fail(err, err_len, "planes: at most 8");
	uint32_t P = p->planes ? p->planes : 1, nh = p->n_ranks * P;
	/* (a host seen, by its index: a job may have every host of a fabric) */
	uint8_t *seen = calloc(js->n_hosts ? js->n_hosts : 1, 1);
	if (seen == NULL)
		return fail(err, err_len, "out of memory");
	for (uint32_t r = 0; r < nh; r++) {
		const char *why = p->hosts[r] >= js->n_hosts ? "hosts: no such host"
				  : seen[p->hosts[r]] ? "hosts: one rank per host (and plane)" : NULL;
		if (why != NULL) {
			free(seen);
			return fail(err, err_len, why);
		}
		seen[p->hosts[r]] = 1;
	}
	free(seen);
	if ((j = calloc(1, sizeof(*j))) == NULL)
		return fail(err, err_len, "out of memory");
	j->p = *p;
	j->P = P;
	if (p->kind == AIF_JOB_POISSON) {
		j->p.iterations = 1;
		j->cdf = *p->cdf;
		j->p.cdf = &j->cdf;
	}
	if (p->kind == AIF_JOB_FLOW_FILE) {
		j->p.iterations = 1;
		j->flows = malloc(sizeof(*j->flows) * p->n_flows);
		if (j->flows == NULL) {
			free(j);
			return fail(err, err_len, "out of memory");
		}
		memcpy(j->flows, p->flows, sizeof(*j->flows) * p->n_flows);
		j->p.flows = j->flows;
	}
	j->hosts = malloc(sizeof(*j->hosts) * nh);
	j->r = calloc(p->n_ranks, sizeof(*j->r));
	j->it = calloc(j->p.iterations, sizeof(*j->it));
	j->fin = calloc(j->p.iterations, sizeof(*j->fin));
	if (j->hosts == NULL || j->r == NULL || j->it == NULL || j->fin == NULL) {
		job_free(j);
		return fail(err, err_len, "out of memory");
	}
	memcpy(j->hosts, p->hosts, sizeof(*j->hosts) * nh);
	j->p.hosts = j->hosts;
	js->job[js->n_jobs++] = j;
	if (job_build(js, ji, err, err_len) != 0) {
		/* QPs already made stay (unused); the job does not */
		js->n_jobs--;
		job_free(j);
		return -1;
	}
	aif_time_ns id = ideal(js, j);
	for (uint32_t i = 0; i < j->p.iterations; i++)
		j->it[i].ideal_ns = id;
	for (uint32_t r = 0; r < p->n_ranks; r++) {
		aif_time_ns t = p->start_ns +
				((int32_t)r == p->straggler ? p->straggler_ns : 0);
		if (aif_rhost_timer(js->hosts[host_of(j, r, 0)], t, cookie(ji, TM_START, r)) != 0)
			return fail(err, err_len, "out of memory");
	}
	return (int)ji;
}

/* ---- results ---- */

bool
aif_jobs_all_done(const struct aif_jobs *js)
{
	return __atomic_load_n(&js->all_done, __ATOMIC_ACQUIRE) != 0;
}

uint32_t
aif_jobs_n(const struct aif_jobs *js)
{
	return js->n_jobs;
}

const struct aif_job_params *
aif_jobs_params(const struct aif_jobs *js, uint32_t job)
{
	return job < js->n_jobs ? &js->job[job]->p : NULL;
}

bool
aif_jobs_done(const struct aif_jobs *js)
{
	return js->jobs_done == js->n_jobs;
}

uint32_t
aif_jobs_ranks_done(const struct aif_jobs *js)
{
	return __atomic_load_n(&js->ranks_done, __ATOMIC_RELAXED);
}

uint32_t
aif_jobs_ranks_total(const struct aif_jobs *js)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < js->n_jobs; k++)
		n += js->job[k]->p.n_ranks;
	return n;
}

/* One field of n structs of size sz from base, through v[n]: reduced. */
static void
reduce_field(uint64_t *v, void *base, size_t sz, size_t off, uint32_t n,
	     enum aif_jobs_reduce_op op, aif_jobs_reduce_fn reduce, void *arg)
{
	for (uint32_t i = 0; i < n; i++)
		memcpy(&v[i], (uint8_t *)base + i * sz + off, sizeof(uint64_t));
	reduce(v, n, op, arg);
	for (uint32_t i = 0; i < n; i++)
		memcpy((uint8_t *)base + i * sz + off, &v[i], sizeof(uint64_t));
}

int
aif_jobs_merge(struct aif_jobs *js, aif_jobs_reduce_fn reduce, void *arg)
{
	uint32_t most = js->n_flows;

	for (uint32_t k = 0; k < js->n_jobs; k++)
		most = RTE_MAX(most, js->job[k]->p.iterations);
	uint64_t *v = calloc(most ? most : 1, sizeof(*v));
	if (v == NULL)
		return -1;
	js->jobs_done = 0;
	for (uint32_t k = 0; k < js->n_jobs; k++) {
		struct job *j = js->job[k];
		uint32_t n = j->p.iterations;
		size_t sz = sizeof(*j->it);
		reduce_field(v, j->it, sz, offsetof(struct aif_job_iter, start_ns), n,
			     AIF_JOBS_RED_MIN_SET, reduce, arg);
		reduce_field(v, j->it, sz, offsetof(struct aif_job_iter, end_ns), n,
			     AIF_JOBS_RED_MAX, reduce, arg);
		reduce_field(v, j->it, sz, offsetof(struct aif_job_iter, ideal_ns), n,
			     AIF_JOBS_RED_MAX, reduce, arg);
		for (uint32_t i = 0; i < n; i++)
			v[i] = j->fin[i];
		reduce(v, n, AIF_JOBS_RED_SUM, arg);
		for (uint32_t i = 0; i < n; i++)
			j->fin[i] = (uint32_t)v[i];
		js->jobs_done += n > 0 && j->fin[n - 1] == j->p.n_ranks;
	}
	reduce_field(v, js->flows, sizeof(*js->flows), offsetof(struct aif_flow, start_ns),
		     js->n_flows, AIF_JOBS_RED_MAX, reduce, arg);
	reduce_field(v, js->flows, sizeof(*js->flows), offsetof(struct aif_flow, end_ns),
		     js->n_flows, AIF_JOBS_RED_MAX, reduce, arg);
	v[0] = js->ranks_done;
	reduce(v, 1, AIF_JOBS_RED_SUM, arg);
	js->ranks_done = (uint32_t)v[0];
	js->all_done = js->jobs_done == js->n_jobs;
	free(v);
	return 0;
}

const struct aif_job_iter *
aif_jobs_iters(const struct aif_jobs *js, uint32_t job, uint32_t *n_iter)
{
	if (job >= js->n_jobs) {
		*n_iter = 0;
		return NULL;
	}
	*n_iter = js->job[job]->p.iterations;
	return js->job[job]->it;
}

double
aif_jobs_algbw_gbps(const struct aif_jobs *js, uint32_t job, const struct aif_job_iter *it)
{
	if (job >= js->n_jobs || it->end_ns <= it->start_ns)
		return 0;
	return (double)js->job[job]->p.bytes * 8 / (double)(it->end_ns - it->start_ns);
}

double
aif_jobs_busbw_gbps(const struct aif_jobs *js, uint32_t job, const struct aif_job_iter *it)
{
	double a = aif_jobs_algbw_gbps(js, job, it);
	const struct job *j = job < js->n_jobs ? js->job[job] : NULL;

	if (j == NULL)
		return 0;
	double n = j->p.n_ranks;
	switch (j->p.kind) {
	case AIF_JOB_ALLREDUCE_RING:
	case AIF_JOB_ALLREDUCE_HD:
		return a * 2 * (n - 1) / n;
	case AIF_JOB_ALLGATHER:
	case AIF_JOB_REDUCE_SCATTER:
	case AIF_JOB_ALLTOALL:
		return a * (n - 1) / n;
	default:
		return a;
	}
}

const struct aif_flow *
aif_jobs_flows(const struct aif_jobs *js, uint32_t *n_flows)
{
	*n_flows = js->n_flows;
	return js->flows;
}

void
aif_jobs_foreach_qp(const struct aif_jobs *js,
		    void (*fn)(uint32_t job, uint32_t host, uint32_t qp, void *arg), void *arg)
{
	for (uint32_t h = 0; h < js->n_hosts; h++)
		for (uint32_t q = 0; q < js->hc[h].n_ref; q++)
			if (js->hc[h].ref[q].job != UINT32_MAX)
				fn(js->hc[h].ref[q].job, h, q, arg);
}

void
aif_jobs_print_pending(const struct aif_jobs *js, FILE *f)
{
	for (uint32_t k = 0; k < js->n_jobs; k++) {
		const struct job *j = js->job[k];
		for (uint32_t r = 0; r < j->p.n_ranks; r++) {
			const struct rank_st *s = &j->r[r];
			if (s->iter + 1 == j->p.iterations && !s->running && s->started_any)
				continue;
			fprintf(f, "  %s rank %u (host %u): iteration %u%s, received %u/%u, "
				"acknowledged %u/%u, early %u\n", j->p.name, r, host_of(j, r, 0), s->iter,
				s->running ? " running" : s->started_any ? " done" : " not started",
				s->recv_got, recv_need(j, r), s->send_acked, send_need(j, r), s->early);
		}
	}
}
