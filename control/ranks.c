/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Virtual time on several processes (ranks.h).
 *
 * Each window, every rank calls one MPI_Alltoall (the bytes of frames it
 * has for each rank, its next event), then sends and receives the frames
 * point to point where there are some (MPI_Isend, MPI_Irecv, MPI_Waitall).
 * At the start and after control changed something, one MPI_Allreduce
 * (the next event); at the idle question, two.  Nothing else passes
 * between ranks during the run, so every rank takes the same path through
 * the windows: the same boundaries, the same control sources, the same
 * answers.  (An MPI_Alltoallv of the frames in place of the point-to-point
 * sends ran the main job as fast, within the noise of a shared machine.)
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dataplane/frame.h"
#include "../dataplane/link.h"
#include "../dataplane/port.h"
#include "../dataplane/qos.h"
#include "../dataplane/shard.h"
#include "../dataplane/switch.h"
#include "../dataplane/windows.h"
#include "../hosts/jobs.h"
#include "../hosts/rhost.h"
#include "config.h"
#include "edges.h"
#include "fabric.h"
#include "monitors.h"
#include "opts.h"
#include "ranks.h"
#include "workload.h"

#ifdef AIF_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank, g_size = 1, g_local = 1;
static bool g_jobs_idle;

int
aif_ranks_local(void)
{
	return g_local;
}

bool
aif_ranks_jobs_idle(void)
{
	return g_jobs_idle;
}

int
aif_ranks_rank(void)
{
	return g_rank;
}

int
aif_ranks_size(void)
{
	return g_size;
}

bool
aif_ranks_on(void)
{
	return g_size > 1;
}

/* Started by mpirun (Open MPI's, or another with PMI): its environment. */
static bool
under_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL ||
	       getenv("PMIX_RANK") != NULL;
}

int
aif_ranks_check_opts(const struct aif_opts *o)
{
	const char *bad = !o->vtime ? "real time (--virtual-time only)"
			: o->samples != NULL ? "--samples"
			: o->n_capture ? "--capture"
			: o->n_link_ev ? "--link"
			: o->n_lb_ev ? "--lb"
			: o->n_pcap_in ? "--pcap-in"
			: o->pcap_out != NULL ? "--pcap-out"
			: o->traffic_load > 0 ? "--traffic"
			: o->stats != NULL ? "--stats"
			: o->jobs == NULL ? "a run without --jobs" : NULL;

	if (!aif_ranks_on())
		return 0;
	if (bad != NULL) {
		fprintf(stderr, "mpirun: %s is not supported on several ranks\n", bad);
		return -1;
	}
	if (o->runners != 0 && o->runners < (unsigned)g_size) {
		fprintf(stderr, "mpirun -np %d: --runners %u: fewer runners than ranks\n", g_size,
			o->runners);
		return -1;
	}
	return 0;
}

int
aif_ranks_of_part(unsigned i)
{
	return (int)(i % (unsigned)g_size);
}

int
aif_ranks_check_parts(unsigned n_parts, aif_time_ns lookahead_ns)
{
	if (!aif_ranks_on() || n_parts >= (unsigned)g_size)
		return 0;
	fprintf(stderr, "mpirun -np %d: the fabric splits in %u part%s here (%s): run as many "
		"ranks at most\n", g_size, n_parts, n_parts == 1 ? "" : "s",
		lookahead_ns ? "leaves or pods and top switches"
			     : "no delay on a link between parts");
	return -1;
}

#ifndef AIF_HAVE_MPI

int
aif_ranks_start(int *argc, char ***argv)
{
	(void)argc;
	if (!under_mpirun())
		return 0;
#ifdef AIF_MPI_DAEMON
	/* the daemon linked with MPI, beside this one */
	char self[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash != NULL)
			*slash = '\0';
		snprintf(path, sizeof(path), "%s/%s", self, AIF_MPI_DAEMON);
		execv(path, *argv);
		fprintf(stderr, "mpirun: %s: %s\n", path, strerror(errno));
		return -1;
	}
#else
	(void)argv;
#endif
	fprintf(stderr, "mpirun: MPI is not built in (build with Open MPI's development files, "
		"meson -Dmpi=enabled)\n");
	return -1;
}

int
aif_ranks_join(const struct aif_ranks_fabric *f, struct aif_windows *win)
{
	(void)f;
	(void)win;
	return -1;
}

int
aif_ranks_gather(struct aif_windows *win, uint64_t *v, unsigned n)
{
	(void)win;
	(void)v;
	(void)n;
	return -1;
}

void
aif_ranks_end(int status, bool ran)
{
	(void)status;
	(void)ran;
}

int
aif_ranks_agree(int rc, uint64_t digest)
{
	(void)digest;
	return rc;
}

#else /* AIF_HAVE_MPI */

static bool g_mpi;

int
aif_ranks_start(int *argc, char ***argv)
{
	if (!under_mpirun())
		return 0;
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		fprintf(stderr, "mpirun: MPI_Init failed\n");
		return -1;
	}
	g_mpi = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &g_size);
	MPI_Comm local;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				&local) == MPI_SUCCESS) {
		MPI_Comm_size(local, &g_local);
		MPI_Comm_free(&local);
	}
	/* one voice: rank 0's, a line at a time, so that mpirun, which passes
	 * on each rank's stdout and stderr as it reads them, never puts a
	 * rank's stderr line inside one of rank 0's (a log of both had
	 * "  edge leaf1:h0     rank 0 of 2: ...") */
	if (g_rank != 0 && freopen("/dev/null", "w", stdout) == NULL)
		return -1;
	if (g_rank == 0)
		setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

int
aif_ranks_agree(int rc, uint64_t digest)
{
	struct { int64_t rc; uint64_t digest; } me = { rc, digest }, *all;
	int first = -1;

	if (!g_mpi || g_size < 2)
		return rc;
	all = calloc((size_t)g_size, sizeof(*all));
	if (all == NULL) {
		fprintf(stderr, "mpirun: rank %d: out of memory at the start\n", g_rank);
		MPI_Abort(MPI_COMM_WORLD, 1); /* (the others cannot be told otherwise) */
	}
	MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE,
		      MPI_COMM_WORLD);
	/* a rank that failed, else one whose status or inputs are not rank 0's */
	for (int k = 0; k < g_size && first < 0; k++)
		if (all[k].rc < 0)
			first = k;
	if (first >= 0) {
		if (g_rank == 0 && rc >= 0)
			fprintf(stderr, "mpirun: rank %d stopped at the start (it says why): "
				"every rank stops\n", first);
		rc = -1;
	} else {
		for (int k = 1; k < g_size && first < 0; k++)
			if (all[k].rc != all[0].rc || all[k].digest != all[0].digest)
				first = k;
		if (first >= 0) {
			if (g_rank == 0)
				fprintf(stderr, "mpirun: rank %d's inputs differ from rank 0's: every "
					"rank needs the same build (commit), config, jobs file (and "
					"the CDF and flow files it names) and options (--runners, "
					"--seed, --duration, --results or not, ...): every rank "
					"stops\n", first);
			rc = -1;
		}
	}
	free(all);
	return rc;
}

void
aif_ranks_end(int status, bool ran)
{
	if (!g_mpi)
		return;
	if (status != 0 && ran && g_size > 1)
		MPI_Abort(MPI_COMM_WORLD, status);
	MPI_Finalize();
	g_mpi = false;
}

#define TMP_BYTES 65536 /* a frame made whole to be sent (the largest MTU's fits) */

/* A frame on its way to another rank, followed by its bytes (padded to 8). */
struct rec {
	uint32_t link;
	uint8_t side;
	uint8_t light;
	uint16_t pad;
	uint32_t pkt_len;
	uint32_t data_len;   /* bytes that follow: a light frame's head and tail */
	uint64_t start_ns, arrive_ns;
};

struct buf {
	uint8_t *p;
	size_t len, cap;
};

struct dir_ref {
	uint32_t link;
	uint8_t side;
};

/* What one rank keeps for the exchange. */
struct net {
	struct aif_windows_net ops;
	const struct aif_ranks_fabric *f;
	struct dir_ref *out;       /* directions it sends on to another rank */
	uint32_t n_out;
	int *to;                   /* [n_out] their ranks */
	struct buf *tx;            /* [size]: frames for each rank */
	uint8_t *rx;
	size_t rx_cap;
	uint64_t *say, *heard;     /* [3 * size]: bytes for it, next event, stop */
	const volatile int *stop;  /* this rank's (a signal) */
	int stop_all;              /* any rank's, as of the last window: the windows' */
	int *rx_off;               /* [size] */
	MPI_Request *req;          /* [2 * size] */
	uint8_t *tmp;              /* a frame's bytes, whole */
	bool failed;
};

static struct net g_net;

static int
buf_room(struct buf *b, size_t more)
{
	if (b->len + more <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 65536;
	while (cap < b->len + more)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (p == NULL)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

static aif_time_ns
net_min_ns(void *arg, aif_time_ns t)
{
	uint64_t in = t, out = t;

	(void)arg;
	MPI_Allreduce(&in, &out, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
	return out;
}

/* Frame m as a record in b (m freed); 0 or -1. */
static int
pack(struct net *n, struct buf *b, uint32_t link, uint8_t side, const struct aif_link_slot *s)
{
	struct rte_mbuf *m = s->m;
	bool light = aif_frame_is_light(m);

	aif_frame_icrc_fill(m); /* (the record carries the tail as it is) */
	uint32_t len = light ? m->data_len : rte_pktmbuf_pkt_len(m);
	const void *bytes = light ? rte_pktmbuf_mtod(m, const void *)
			  : len <= TMP_BYTES ? rte_pktmbuf_read(m, 0, len, n->tmp) : NULL;
	size_t pad = (8 - len % 8) % 8;

	if ((!light && len > TMP_BYTES) || bytes == NULL || buf_room(b, sizeof(struct rec) + len + pad) != 0)
		return -1;
	struct rec h = { .link = link, .side = side, .light = light, .pkt_len = m->pkt_len,
			 .data_len = len, .start_ns = s->start_ns, .arrive_ns = s->arrive_ns };
	memcpy(b->p + b->len, &h, sizeof(h));
	memcpy(b->p + b->len + sizeof(h), bytes, len);
	memset(b->p + b->len + sizeof(h) + len, 0, pad);
	b->len += sizeof(h) + len + pad;
	rte_pktmbuf_free(m);
	return 0;
}

static void
oom_abort(void)
{
	fprintf(stderr, "mpirun: rank %d: out of memory for the frames between ranks\n", g_rank);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* After a window: one MPI_Alltoall says to every rank how many bytes of
 * frames it gets, this rank's next event and whether it was asked to stop; the frames go point to point,
 * only between ranks that have some for each other. */
static aif_time_ns
net_window_end(void *arg, aif_time_ns t)
{
	struct net *n = arg;
	const struct aif_ranks_fabric *r = n->f;
	struct aif_link_slot s;

	for (int i = 0; i < g_size; i++)
		n->tx[i].len = 0;
	for (uint32_t i = 0; i < n->n_out; i++) {
		struct aif_link *l = r->fab->link[n->out[i].link];
		while (aif_link_take(l, n->out[i].side, &s))
			if (pack(n, &n->tx[n->to[i]], n->out[i].link, n->out[i].side, &s) != 0) {
				rte_pktmbuf_free(s.m);
				n->failed = true;
			}
	}
	for (int i = 0; i < g_size; i++) {
		n->say[3 * i] = n->tx[i].len;
		n->say[3 * i + 1] = t;
		n->say[3 * i + 2] = n->stop != NULL && *n->stop;
	}
	MPI_Alltoall(n->say, 3, MPI_UINT64_T, n->heard, 3, MPI_UINT64_T, MPI_COMM_WORLD);
	size_t total = 0;
	int k = 0;
	for (int i = 0; i < g_size; i++) {
		t = RTE_MIN(t, n->heard[3 * i + 1]);
		n->stop_all |= n->heard[3 * i + 2] != 0;
		n->rx_off[i] = (int)total;
		total += n->heard[3 * i];
	}
	if (total > n->rx_cap) {
		uint8_t *p = realloc(n->rx, total);
		if (p == NULL)
			oom_abort();
		n->rx = p;
		n->rx_cap = total;
	}
	for (int i = 0; i < g_size; i++) {
		if (n->heard[3 * i])
			MPI_Irecv(n->rx + n->rx_off[i], (int)n->heard[3 * i], MPI_BYTE, i, 0,
				  MPI_COMM_WORLD, &n->req[k++]);
		if (n->tx[i].len)
			MPI_Isend(n->tx[i].p, (int)n->tx[i].len, MPI_BYTE, i, 0, MPI_COMM_WORLD,
				  &n->req[k++]);
	}
	if (k)
		MPI_Waitall(k, n->req, MPI_STATUSES_IGNORE);
	/* in the senders' order: one link's frames come from one rank, in order */
	for (size_t at = 0; at < total;) {
		struct rec h;
		memcpy(&h, n->rx + at, sizeof(h));
		const uint8_t *p = n->rx + at + sizeof(h);
		at += sizeof(h) + h.data_len + (8 - h.data_len % 8) % 8;
		struct rte_mbuf *m = h.light
			? aif_frame_light_from_bytes(r->pool, p, h.data_len - AIF_FRAME_LIGHT_TAIL,
						     h.pkt_len - h.data_len)
			: aif_mbuf_from_bytes(r->pool, p, h.data_len);
		if (m == NULL || h.link >= r->fab->n_links) {
			rte_pktmbuf_free(m);
			n->failed = true;
			continue;
		}
		s = (struct aif_link_slot){ .m = m, .start_ns = h.start_ns,
					    .arrive_ns = h.arrive_ns };
		(void)aif_link_put_arrival(r->fab->link[h.link], h.side, &s);
	}
	return t;
}

/* The rank that runs switch s. */
static int
switch_rank(const struct aif_ranks_fabric *r, uint16_t s)
{
	return aif_ranks_of_part(r->runner_of[s]);
}

/* The rank that runs host i. */
static int
host_rank(const struct aif_ranks_fabric *r, uint32_t i)
{
	return switch_rank(r, r->wl->v.sw[i]);
}

/* The run is over: every rank's edge ports and hosts have nothing left,
 * and every job is done (or stuck), as one process's inputs_idle says. */
static int
net_idle(void *arg)
{
	const struct aif_ranks_fabric *r = arg;
	const struct aif_workload *w = r->wl;
	int32_t mine[3] = { aif_edges_idle(r->edges), 1, 1 }, all[3];
	uint64_t done = 0, done_all = 0;

	for (uint32_t i = 0; i < w->v.n; i++) {
		if (host_rank(r, i) != g_rank)
			continue;
		mine[1] &= aif_rhost_idle(w->v.h[i]);
		mine[2] &= aif_rhost_next_ns(w->v.h[i]) == AIF_TIME_NS_NEVER;
	}
	if (w->js != NULL)
		done = aif_jobs_ranks_done(w->js);
	MPI_Allreduce(mine, all, 3, MPI_INT32_T, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&done, &done_all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (!all[0])
		return 0;
	if (w->js == NULL)
		return 0;
	bool jobs_done = done_all == aif_jobs_ranks_total(w->js);
	return jobs_done ? all[1] : all[2];
}

int
aif_ranks_join(const struct aif_ranks_fabric *f, struct aif_windows *win)
{
	struct net *n = &g_net;
	const struct aif_config *cfg = f->cfg;
	const struct aif_ranks_fabric *r = f;

	*n = (struct net){ .ops = { .min_ns = net_min_ns, .window_end = net_window_end, .arg = n },
			   .f = f };
	n->out = calloc(2 * (size_t)cfg->n_links + 1, sizeof(*n->out));
	n->to = calloc(2 * (size_t)cfg->n_links + 1, sizeof(*n->to));
	n->tx = calloc((size_t)g_size, sizeof(*n->tx));
	n->say = calloc(3 * (size_t)g_size, sizeof(uint64_t));
	n->heard = calloc(3 * (size_t)g_size, sizeof(uint64_t));
	n->rx_off = calloc((size_t)g_size, sizeof(int));
	n->req = calloc(2 * (size_t)g_size, sizeof(MPI_Request));
	n->tmp = malloc(TMP_BYTES);
	if (n->out == NULL || n->to == NULL || n->tx == NULL || n->say == NULL ||
	    n->heard == NULL || n->rx_off == NULL || n->req == NULL || n->tmp == NULL)
		return -1;
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		int a = switch_rank(r, cfg->links[k].a_switch), b = switch_rank(r, cfg->links[k].b_switch);
		if (a == b)
			continue;
		/* side 0 sends from a's end, side 1 from b's */
		if (a == g_rank) {
			n->out[n->n_out] = (struct dir_ref){ k, 0 };
			n->to[n->n_out++] = b;
		} else if (b == g_rank) {
			n->out[n->n_out] = (struct dir_ref){ k, 1 };
			n->to[n->n_out++] = a;
		}
	}
	/* a signal stops every rank at the same window */
	n->stop = win->stop;
	win->stop = &n->stop_all;
	win->net = &n->ops;
	win->idle = net_idle;
	win->idle_arg = (void *)(uintptr_t)f;
	return 0;
}

static void
bcast(void *p, size_t len, int root, void *arg)
{
	(void)arg;
	MPI_Bcast(p, (int)len, MPI_BYTE, root, MPI_COMM_WORLD);
}

static void
bcast_range(void *p, size_t len, void *arg)
{
	bcast(p, len, *(const int *)arg, NULL);
}

static void
reduce(uint64_t *v, size_t n, enum aif_jobs_reduce_op op, void *arg)
{
	(void)arg;
	if (op == AIF_JOBS_RED_MIN_SET)
		for (size_t i = 0; i < n; i++)
			v[i] = v[i] ? v[i] : UINT64_MAX;
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T,
		      op == AIF_JOBS_RED_SUM ? MPI_SUM : op == AIF_JOBS_RED_MAX ? MPI_MAX : MPI_MIN,
		      MPI_COMM_WORLD);
	if (op == AIF_JOBS_RED_MIN_SET)
		for (size_t i = 0; i < n; i++)
			v[i] = v[i] == UINT64_MAX ? 0 : v[i];
}

static int
dev_rank(void *arg, bool is_switch, uint32_t i)
{
	const struct aif_ranks_fabric *r = arg;

	return is_switch ? switch_rank(r, (uint16_t)i) : host_rank(r, i);
}

int
aif_ranks_gather(struct aif_windows *win, uint64_t *v, unsigned n_v)
{
	const struct aif_ranks_fabric *r = g_net.f;
	struct aif_workload *wl = r->wl;
	int failed = g_net.failed, any_failed = 0;

	(void)win;
	MPI_Allreduce(MPI_IN_PLACE, &v[0], 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	if (n_v > 1)
		MPI_Allreduce(MPI_IN_PLACE, &v[1], (int)n_v - 1, MPI_UINT64_T, MPI_SUM,
			      MPI_COMM_WORLD);
	if (wl->js != NULL && aif_jobs_merge(wl->js, reduce, NULL) != 0)
		failed = 1;
	for (uint32_t i = 0; i < wl->v.n; i++) {
		int root = host_rank(r, i);
		aif_rhost_ctr_ranges(wl->v.h[i], bcast_range, &root);
	}
	for (uint16_t s = 0; s < r->fab->n_sw; s++) {
		struct aif_switch *sw = r->fab->sw[s];
		int root = switch_rank(r, s);
		for (uint16_t h = 0; h < sw->n_shards; h++)
			bcast(sw->shards[h]->port_ctr, sw->n_ports * sizeof(sw->shards[h]->port_ctr[0]),
			      root, NULL);
		for (uint16_t p = 0; sw->qos != NULL && p < sw->qos->n_ports; p++) {
			bcast(&sw->qos->port[p].pfc_rx.ctr, sizeof(sw->qos->port[p].pfc_rx.ctr), root,
			      NULL);
			bcast(&sw->qos->port[p].pfc_tx.ctr, sizeof(sw->qos->port[p].pfc_tx.ctr), root,
			      NULL);
		}
	}
	int32_t idle = 1;
	for (uint32_t i = 0; i < wl->v.n; i++)
		if (host_rank(r, i) == g_rank)
			idle &= aif_rhost_idle(wl->v.h[i]);
	MPI_Allreduce(MPI_IN_PLACE, &idle, 1, MPI_INT32_T, MPI_MIN, MPI_COMM_WORLD);
	g_jobs_idle = idle && wl->js != NULL && aif_jobs_done(wl->js);
	if (wl->mon != NULL &&
	    (aif_monitors_share_pfc(wl->mon, dev_rank, bcast, (void *)(uintptr_t)r) != 0 ||
	     aif_monitors_share_qlen(wl->mon, dev_rank, bcast, (void *)(uintptr_t)r) != 0))
		failed = 1;
	MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any_failed) {
		fprintf(stderr, "mpirun: rank %d: frames or results lost between ranks (out of "
			"memory)\n", g_rank);
		return -1;
	}
	return 0;
}

#endif /* AIF_HAVE_MPI */
