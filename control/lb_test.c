/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aifabricctl lb test: a load-balancing program against a packet trace,
 * offline (lb_test.h).
 *
 * The group: --members N (8) members on ports 1..N, --down LIST of them
 * down, ECMP buckets as the switch builds them (64 per member).  Each
 * member's port drains at --gbps (100): its queued bytes, which the
 * program sees, grow by the packets sent to it and shrink with time, so
 * schemes that read queues react as they would.
 *
 * The trace: --pcap FILE (IPv4/IPv6 frames, their timestamps), or one
 * generated from --seed: --flows F (1000) flows of random 5-tuples (half
 * RoCEv2), --packets P (100000) packets of 1000 bytes, each from a flow
 * drawn at random, exponential gaps with mean --gap-ns (100): about 80 Gb/s
 * offered, each flow's own packets some 100 us apart, so flowlets end.
 *
 * Output: per member its packets and share (and the built-in's with
 * --against SCHEME, with how often both chose the same member), the
 * program's fallbacks and counters, and its cost per packet (the program
 * and its context, timed over the whole trace; the built-in's likewise).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>
#include <rte_byteorder.h>

#include "../pipelines/flow_hash.h"
#include "../pipelines/lb.h"
#include "../pipelines/lb_buckets.h"
#include "../pipelines/lb_prog.h"
#include "../pipelines/parse.h"
#include "config.h"
#include "lb_test.h"

#define BPM 64
#define PKT_BYTES 1000

struct trace {
	struct aif_pkt *m;
	aif_time_ns *t;
	uint32_t *bytes;
	uint32_t n;
};

static int
trace_generate(struct trace *tr, uint32_t flows, uint32_t packets, double gap_ns, uint64_t seed)
{
	struct aif_rng r;
	struct aif_pkt *f = calloc(flows, sizeof(*f));
	double t = 1000;

	tr->m = calloc(packets, sizeof(*tr->m));
	tr->t = calloc(packets, sizeof(*tr->t));
	tr->bytes = calloc(packets, sizeof(*tr->bytes));
	if (f == NULL || tr->m == NULL || tr->t == NULL || tr->bytes == NULL) {
		free(f);
		return -1;
	}
	aif_rng_seed(&r, seed);
	for (uint32_t i = 0; i < flows; i++) {
		struct aif_pkt *m = &f[i];
		uint32_t s = (uint32_t)aif_rng_next(&r), d = (uint32_t)aif_rng_next(&r);
		m->kind = AIF_PKT_IPV4;
		m->l4_proto = 17;
		m->flags = AIF_PKT_F_L4;
		m->src.family = m->dst.family = AIF_AF_INET4;
		memcpy(m->src.b, &s, 4);
		memcpy(m->dst.b, &d, 4);
		m->src_port = (uint16_t)aif_rng_next(&r);
		if (aif_rng_below(&r, 2)) {
			m->dst_port = rte_cpu_to_be_16(4791);
			m->flags |= AIF_PKT_F_ROCE;
			m->dest_qp = (uint32_t)aif_rng_next(&r) & 0xFFFFFF;
			m->bth_opcode = 10; /* RDMA WRITE only */
			m->tc = 3;
		} else {
			m->dst_port = (uint16_t)aif_rng_next(&r);
		}
	}
	for (uint32_t i = 0; i < packets; i++) {
		uint32_t k = aif_rng_below(&r, flows);
		tr->m[i] = f[k];
		if (f[k].flags & AIF_PKT_F_ROCE)
			f[k].psn = (f[k].psn + 1) & 0xFFFFFF;
		/* exponential gap: -mean ln(u), u in (0, 1] */
		double u = ((double)(aif_rng_next(&r) >> 11) + 1) / 9007199254740992.0;
		t += gap_ns * -log(u);
		tr->t[i] = (aif_time_ns)t;
		tr->bytes[i] = PKT_BYTES;
	}
	tr->n = packets;
	free(f);
	return 0;
}

static int
trace_pcap(struct trace *tr, const char *file, char *err, size_t err_len)
{
	char perr[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, perr);
	struct pcap_pkthdr *h;
	const u_char *data;
	uint32_t cap = 0, skipped = 0;
	aif_time_ns t0 = 0;

	if (pc == NULL) {
		snprintf(err, err_len, "%s: %s", file, perr);
		return -1;
	}
	while (pcap_next_ex(pc, &h, &data) == 1) {
		struct aif_pkt m;
		memset(&m, 0, sizeof(m));
		if (aif_parse(data, h->caplen, &m) != 0 ||
		    (m.kind != AIF_PKT_IPV4 && m.kind != AIF_PKT_IPV6)) {
			skipped++;
			continue;
		}
		if (tr->n == cap) {
			cap = cap ? 2 * cap : 4096;
			tr->m = realloc(tr->m, cap * sizeof(*tr->m));
			tr->t = realloc(tr->t, cap * sizeof(*tr->t));
			tr->bytes = realloc(tr->bytes, cap * sizeof(*tr->bytes));
			if (tr->m == NULL || tr->t == NULL || tr->bytes == NULL) {
				pcap_close(pc);
				snprintf(err, err_len, "out of memory");
				return -1;
			}
		}
		aif_time_ns t = (aif_time_ns)h->ts.tv_sec * 1000000000ull + (aif_time_ns)h->ts.tv_usec;
		if (tr->n == 0)
			t0 = t;
		tr->m[tr->n] = m;
		tr->t[tr->n] = 1000 + (t - t0);
		tr->bytes[tr->n] = h->len;
		tr->n++;
	}
	pcap_close(pc);
	if (tr->n == 0) {
		snprintf(err, err_len, "%s: no IPv4 or IPv6 packets (%u frames skipped)", file,
			 skipped);
		return -1;
	}
	if (skipped)
		printf("%s: %u IP packets, %u other frames skipped\n", file, tr->n, skipped);
	return 0;
}

/* The group and its queues (see the top). */
struct sim {
	struct aif_group g;
	struct aif_member mem[AIF_MAX_MEMBERS];
	uint8_t buckets[AIF_MAX_MEMBERS * BPM];
	uint32_t qb[AIF_MAX_PORTS];
	double q[AIF_MAX_MEMBERS];
	aif_time_ns last;
	double bytes_per_ns;
	uint64_t on[AIF_MAX_MEMBERS];
};

static int
sim_init(struct sim *s, uint16_t n, uint64_t down, double gbps)
{
	bool up[AIF_MAX_MEMBERS];

	memset(s, 0, sizeof(*s));
	s->g.n = n;
	s->g.n_buckets = (uint32_t)n * BPM;
	snprintf(s->g.name, sizeof(s->g.name), "test");
	for (uint16_t i = 0; i < n; i++) {
		up[i] = !((down >> i) & 1);
		s->mem[i].port = i; /* (< AIF_MAX_PORTS) */
		s->mem[i].weight = 1;
		s->mem[i].ctr_slot = i;
		if (up[i]) {
			s->g.up_mask |= 1ull << i;
			s->g.up[s->g.n_up++] = (uint8_t)i;
		}
	}
	s->bytes_per_ns = gbps / 8;
	return aif_lb_buckets_build(s->buckets, s->g.n_buckets, n, NULL, up, NULL, 0);
}

/* Drain to t; then the queue view. */
static void
sim_advance(struct sim *s, aif_time_ns t)
{
	double d = t > s->last ? (double)(t - s->last) * s->bytes_per_ns : 0;

	s->last = t;
	for (uint16_t i = 0; i < s->g.n; i++) {
		s->q[i] = s->q[i] > d ? s->q[i] - d : 0;
		s->qb[s->mem[i].port] = (uint32_t)s->q[i];
	}
}

static double
mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: aifabricctl lb test FILE.o [--name NAME] [--table-size N] "
		   "[--members N] [--down I,J..]\n"
		   "                      [--pcap FILE | --flows F --packets P --gap-ns G --seed S] "
		   "[--gbps R] [--against SCHEME]\n"
		   "  SCHEME: ecmp, flowlet, spray, drill, adaptive (the built-in, same trace)\n");
}

int
aif_lb_test_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "table-size", required_argument, NULL, 'T' },
		{ "members", required_argument, NULL, 'm' },
		{ "down", required_argument, NULL, 'd' },
		{ "pcap", required_argument, NULL, 'p' },
		{ "flows", required_argument, NULL, 'f' },
		{ "packets", required_argument, NULL, 'P' },
		{ "gap-ns", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "gbps", required_argument, NULL, 'r' },
		{ "against", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name = NULL, *pcap = NULL, *against = NULL;
	unsigned long members = 8, flows = 1000, packets = 100000, table = 0;
	unsigned long long seed = 1;
	double gap = 100, gbps = 100;
	uint64_t down = 0;
	char err[512];
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end = NULL;
		errno = 0;
		switch (opt) {
		case 'n': name = optarg; break;
		case 'T': table = strtoul(optarg, &end, 10); break;
		case 'm': members = strtoul(optarg, &end, 10); break;
		case 'p': pcap = optarg; break;
		case 'f': flows = strtoul(optarg, &end, 10); break;
		case 'P': packets = strtoul(optarg, &end, 10); break;
		case 'g': gap = strtod(optarg, &end); break;
		case 's': seed = strtoull(optarg, &end, 10); break;
		case 'r': gbps = strtod(optarg, &end); break;
		case 'a': against = optarg; break;
		case 'd':
			for (char *p = optarg; *p != '\0';) {
				unsigned long k = strtoul(p, &end, 10);
				if (end == p || k >= 64)
					break;
				down |= 1ull << k;
				p = *end == ',' ? end + 1 : end;
				if (*end != ',' && *end != '\0')
					break;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
		if (end != NULL && (*end != '\0' || errno != 0)) {
			fprintf(stderr, "aifabricctl lb test: bad value '%s'\n", optarg);
			return 1;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 1;
	}
	if (members < 1 || members > AIF_MAX_MEMBERS || flows < 1 || flows > 10000000 ||
	    packets < 1 || packets > 100000000 || !(gap > 0) || !(gbps > 0)) {
		fprintf(stderr, "aifabricctl lb test: members 1..64, flows and packets >= 1, "
			"gap-ns and gbps > 0\n");
		return 1;
	}
	int scheme = -1;
	uint8_t spray_mode = AIF_SPRAY_RR;
	if (against != NULL) {
		static const char *const names[] = { "ecmp", "wcmp", "flowlet", "spray",
						     "adaptive" };
		for (int k = 0; k < 5; k++)
			if (strcmp(against, names[k]) == 0)
				scheme = k;
		if (strcmp(against, "drill") == 0) {
			scheme = AIF_LB_SPRAY;
			spray_mode = AIF_SPRAY_DRILL;
		}
		if (scheme < 0) {
			fprintf(stderr, "aifabricctl lb test: --against ecmp, flowlet, spray, drill "
				"or adaptive\n");
			return 1;
		}
	}
	struct aif_lb_prog *p = aif_lb_prog_load_file(argv[optind], name, (uint32_t)table, err,
						      sizeof(err));
	if (p == NULL) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	struct trace tr = { 0 };
	if ((pcap != NULL ? trace_pcap(&tr, pcap, err, sizeof(err))
			  : trace_generate(&tr, (uint32_t)flows, (uint32_t)packets, gap, seed) ?
			    (snprintf(err, sizeof(err), "out of memory"), -1) : 0) != 0) {
		fprintf(stderr, "error: %s\n", err);
		aif_lb_prog_free(p);
		return 1;
	}
	struct aif_policy_params pol;
	aif_policy_defaults(&pol);
	pol.lb.spray_mode = spray_mode;
	if (scheme >= 0)
		pol.lb.scheme = (uint8_t)scheme;
	struct sim *s = calloc(2, sizeof(*s));
	struct aif_lb_prog_state *st = aif_lb_prog_state_new(p);
	struct aif_lb_state *bst = calloc(1, sizeof(*bst));
	struct aif_lb_prog_ctx *c = calloc(1, sizeof(*c));
	uint32_t *pick = calloc(tr.n, sizeof(*pick));
	/* the built-in flowlet schemes' table (the switch's control allocates
	 * it with its tables; here, off DPDK's heap) */
	if (bst != NULL)
		bst->flowlet = calloc(AIF_FLOWLET_MAX, sizeof(*bst->flowlet));
	if (s == NULL || st == NULL || bst == NULL || bst->flowlet == NULL || c == NULL ||
	    pick == NULL ||
	    sim_init(&s[0], (uint16_t)members, down, gbps) != 0 ||
	    sim_init(&s[1], (uint16_t)members, down, gbps) != 0) {
		fprintf(stderr, "error: out of memory, or every member down\n");
		return 1;
	}
	for (uint32_t i = 0; i < tr.n; i++)
		tr.m[i].hash = aif_flow_hash(&tr.m[i], pol.lb.hash_fields, pol.lb.hash_alg,
					     (uint32_t)seed);
	/* the program */
	struct aif_rng rng;
	aif_rng_seed(&rng, seed);
	struct aif_lb_prog_env env = { .st = st, .rng = &rng, .g = &s[0].g,
				       .buckets = s[0].buckets };
	double t0 = mono_ns();
	for (uint32_t i = 0; i < tr.n; i++) {
		sim_advance(&s[0], tr.t[i]);
		aif_lb_prog_ctx_group(c, &s[0].g, 0, s[0].mem, s[0].qb, NULL, NULL, &pol.lb,
				      p->table_size);
		aif_lb_prog_ctx_packet(c, &tr.m[i], tr.t[i], p->ctx_uses, &s[0].g, s[0].buckets);
		uint32_t k = aif_lb_prog_run(p, c, &env);
		pick[i] = k;
		s[0].q[k] += tr.bytes[i];
		s[0].on[k]++;
	}
	double prog_ns = (mono_ns() - t0) / tr.n;
	/* the built-in, same trace, same random source */
	double builtin_ns = 0;
	uint64_t same = 0;
	if (scheme >= 0) {
		aif_rng_seed(&rng, seed);
		struct aif_lb_ctx x = { .st = bst, .p = &pol.lb, .port_qbytes = s[1].qb,
					.rng = &rng, .group = 0 };
		t0 = mono_ns();
		for (uint32_t i = 0; i < tr.n; i++) {
			sim_advance(&s[1], tr.t[i]);
			x.now_ns = tr.t[i];
			uint32_t k = aif_lb_schemes[scheme].select(&s[1].g, s[1].mem, s[1].buckets,
								  &tr.m[i], &x);
			same += k == pick[i];
			s[1].q[k] += tr.bytes[i];
			s[1].on[k]++;
		}
		builtin_ns = (mono_ns() - t0) / tr.n;
	}
	printf("program %s (%s): %u instructions, %s%s%s%s, flow table %u entries\n", p->name,
	       p->section, p->n_insns, p->jit != NULL ? "x86-64 JIT" : "interpreter",
	       p->interp_why[0] ? " (" : "", p->interp_why, p->interp_why[0] ? ")" : "",
	       p->table_size);
	printf("trace: %u packets%s, %.3f ms; group of %lu members on %.0f Gb/s ports\n",
	       tr.n, pcap != NULL ? "" : " (generated)",
	       (double)(tr.t[tr.n - 1] - tr.t[0]) / 1e6, members, gbps);
	printf("%-8s %-4s %-3s %12s %8s", "MEMBER", "PORT", "UP", "PACKETS", "SHARE");
	if (scheme >= 0)
		printf(" %12s %8s", "BUILT-IN", "SHARE");
	printf("\n");
	for (uint16_t k = 0; k < members; k++) {
		printf("%-8u %-4u %-3s %12" PRIu64 " %7.2f%%", k, s[0].mem[k].port,
		       (down >> k) & 1 ? "no" : "yes", s[0].on[k], 100.0 * (double)s[0].on[k] / tr.n);
		if (scheme >= 0)
			printf(" %12" PRIu64 " %7.2f%%", s[1].on[k], 100.0 * (double)s[1].on[k] / tr.n);
		printf("\n");
	}
	printf("fallbacks (bad member returned, ECMP used): %" PRIu64 "\n", st->fallbacks);
	printf("counters:");
	for (unsigned k = 0; k < AIF_LB_PROG_COUNTERS; k++)
		printf(" %" PRIu64, st->counters[k]);
	printf("\ncost: %.1f ns per packet (program and its context)", prog_ns);
	if (scheme >= 0)
		printf("; built-in %s %.1f ns\nsame member as the built-in %s: %" PRIu64 " of %u "
		       "packets (%.2f%%)", against, builtin_ns, against, same, tr.n,
		       100.0 * (double)same / tr.n);
	printf("\n");
	free(pick);
	free(c);
	free(bst->flowlet);
	free(bst);
	free(s);
	aif_lb_prog_state_free(st);
	aif_lb_prog_free(p);
	free(tr.m);
	free(tr.t);
	free(tr.bytes);
	return 0;
}
