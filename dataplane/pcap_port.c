/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcap file port (pcap_port.h).
 *
 * Cost: one fread of a record per frame received and one fwrite per frame
 * sent, into 1 MiB stdio buffers; the serialization arithmetic is the
 * emulated link's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "frame.h"
#include "link.h"
#include "pcap_port.h"
#include "pfc.h"
#include "rng.h"
#include "roce.h"

#define PS_PER_NS AIF_PS_PER_NS
#define PS_PER_S 1000000000000ull
#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAP_LINKTYPE_ETHERNET 1
#define PCAP_SNAPLEN 65535u
#define PCAP_IO_BUF (1u << 20)

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec, ts_frac, incl_len, orig_len;
};

struct aif_pcap_port {
	struct aif_pcap_port_params p;
	struct rte_mempool *pool;
	FILE *in, *out;
	int swapped;              /* input written on a machine of the other byte order */
	int ns;                   /* input timestamps in nanoseconds */
	int started;              /* first frame's timestamp known */
	uint64_t t0_ns;           /* the first frame's timestamp */
	aif_time_ns last_ns;      /* file time of the frame before */
	int ahead;                /* the next frame is read ahead into inbuf */
	aif_time_ns ahead_ns;     /* when it may start, by the file */
	uint32_t ahead_len;
	uint8_t ahead_prio;
	uint64_t in_free_ps;      /* the input wire is free from then on */
	aif_time_ns pause_from_ns[AIF_PFC_PRIOS]; /* a pause takes effect then */
	struct aif_pfc_rx_state pause; /* what the switch told the host */
	uint64_t busy_until_ps;   /* the output wire is free from then on */
	uint8_t *inbuf;           /* the frame read ahead */
	/* generator (params.gen, copied; dst_ip used at open only): */
	struct aif_pcap_gen gen;
	struct aif_rng rng;
	uint32_t *gen_dst;        /* per flow: destination (host order) */
	uint16_t *gen_sport;      /* per flow: UDP source port */
	uint32_t gen_psn;
	int gen_light;            /* frames go light (frame.h): headers and length,
				   * the ICRC computed where observed; inbuf then
				   * holds the headers (and 4 bytes of tail) */
	double gen_mean_ns;       /* mean gap between frame starts */
	double gen_t_ns;          /* the next frame's start (exact) */
	uint8_t *buf;             /* a frame being written */
	struct aif_pcap_port_ctr ctr;
};

static inline uint32_t
sw32(const struct aif_pcap_port *pp, uint32_t v)
{
	return pp->swapped ? __builtin_bswap32(v) : v;
}

/* The priority a host NIC sends frame f on (pcap_port.h). */
static uint8_t
prio_of(const struct aif_pcap_port *pp, const uint8_t *f, uint32_t len)
{
	uint32_t off = 12;
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);
	int pcp = -1;

	if (type == 0x8100 && len >= 18) {
		pcp = f[14] >> 5;
		type = (uint16_t)(f[16] << 8 | f[17]);
		off = 16;
	}
	if (pcp >= 0 && pp->p.trust_pcp)
		return pp->p.prio_of_pcp[pcp] & 7;
	if (type == 0x0800 && len >= off + 4)
		return pp->p.prio_of_dscp[f[off + 3] >> 2] & 7;
	if (type == 0x86DD && len >= off + 4)
		return pp->p.prio_of_dscp[((f[off + 2] & 0x0F) << 2 | f[off + 3] >> 6)] & 7;
	return 0;
}

/* The generator's frames: Ethernet, IPv4, UDP, BTH, then zeros and the
 * ICRC.  In virtual time they go light (frame.h), as the virtual hosts'
 * data frames do: the headers and the ICRC in the mbuf, the zeros only
 * counted, made whole where bytes are observed. */
#define GEN_HEAD (14 + 20 + 8 + AIF_ROCE_BTH_LEN)

/* The generator's frame template (headers; the per-frame fields are
 * written by gen_next). */
static void
gen_template(struct aif_pcap_port *pp)
{
	const struct aif_pcap_gen *g = pp->p.gen;
	uint8_t *f = pp->inbuf;
	uint16_t l3 = (uint16_t)(g->frame_len - 14);

	memset(f, 0, g->frame_len);
	memcpy(f, g->dst_mac.b, 6);
	memcpy(f + 6, g->src_mac.b, 6);
	f[12] = 0x08;
	f[14] = 0x45;
	f[15] = (uint8_t)(g->dscp << 2 | 2); /* ECT(0) */
	f[16] = (uint8_t)(l3 >> 8), f[17] = (uint8_t)l3;
	f[20] = 0x40;                         /* DF */
	f[22] = 64, f[23] = 17;               /* TTL, UDP */
	for (int i = 0; i < 4; i++)
		f[26 + i] = (uint8_t)(g->src_ip >> (24 - 8 * i));
	f[36] = 0x12, f[37] = 0xb7;           /* 4791 */
	f[38] = (uint8_t)((l3 - 20) >> 8), f[39] = (uint8_t)(l3 - 20);
	f[42] = 4;                            /* BTH: RC SEND_ONLY */
	f[44] = 0xff, f[45] = 0xff;           /* P_Key */
	f[50] = 0x80;                         /* AckReq */
	pp->ahead_len = g->frame_len;
	pp->ahead_prio = prio_of(pp, f, g->frame_len);
}

/* The generator's next frame into inbuf (none after stop_ns: ahead 0). */
static void
gen_next(struct aif_pcap_port *pp)
{
	const struct aif_pcap_gen *g = pp->p.gen;
	uint8_t *f = pp->inbuf;
	/* exponential gap: -ln(U) x mean, U in (0, 1] */
	double u = (double)((aif_rng_next(&pp->rng) >> 11) + 1) * (1.0 / 9007199254740992.0);

	pp->ahead = 0;
	if ((aif_time_ns)pp->gen_t_ns >= g->stop_ns)
		return;
	pp->ahead_ns = (aif_time_ns)pp->gen_t_ns;
	pp->gen_t_ns += -log(u) * pp->gen_mean_ns;
	uint32_t k = (uint32_t)(aif_rng_next(&pp->rng) % g->n_flows);
	uint32_t dst = pp->gen_dst[k];
	for (int i = 0; i < 4; i++)
		f[30 + i] = (uint8_t)(dst >> (24 - 8 * i));
	f[34] = (uint8_t)(pp->gen_sport[k] >> 8), f[35] = (uint8_t)pp->gen_sport[k];
	f[18] = (uint8_t)(pp->gen_psn >> 8), f[19] = (uint8_t)pp->gen_psn; /* IP id */
	f[51] = (uint8_t)(pp->gen_psn >> 16), f[52] = (uint8_t)(pp->gen_psn >> 8);
	f[53] = (uint8_t)pp->gen_psn;
	f[47] = (uint8_t)k;                   /* dest QP: the flow */
	pp->gen_psn = (pp->gen_psn + 1) & 0xFFFFFF;
	/* IPv4 header checksum, then the ICRC over the masked headers and
	 * payload (zeros: a light frame's is computed where its bytes are
	 * observed, from the headers and the zeros' count: frame.h) */
	f[24] = f[25] = 0;
	uint16_t ck = rte_ipv4_cksum((const struct rte_ipv4_hdr *)(f + 14));
	memcpy(f + 24, &ck, sizeof(ck));
	if (!pp->gen_light)
		aif_roce_icrc_put(f + 14, g->frame_len - 14u);
	pp->ahead = 1;
}

static int
gen_init(struct aif_pcap_port *pp, char *err, size_t err_len)
{
	const struct aif_pcap_gen *g = pp->p.gen;

	if (!(g->load > 0 && g->load <= 1) || g->frame_len < 64 || g->frame_len > 9000 ||
	    g->n_flows == 0 || g->n_flows > 4096 || g->n_dst == 0) {
		snprintf(err, err_len, "generator: load (0, 1], frame 64..9000 bytes, 1..4096 "
			 "flows, at least one destination");
		return -1;
	}
	pp->gen_dst = calloc(g->n_flows, sizeof(*pp->gen_dst));
	pp->gen_sport = calloc(g->n_flows, sizeof(*pp->gen_sport));
	if (pp->gen_dst == NULL || pp->gen_sport == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	aif_rng_seed(&pp->rng, (g->seed * 0x9E3779B97F4A7C15ull) | 1);
	for (uint16_t k = 0; k < g->n_flows; k++) {
		pp->gen_dst[k] = g->dst_ip[aif_rng_next(&pp->rng) % g->n_dst];
		pp->gen_sport[k] = (uint16_t)(0xC000 | (aif_rng_next(&pp->rng) & 0x3FFF));
	}
	pp->gen_mean_ns = (double)aif_link_wire_bytes(g->frame_len) * 8 * 1e9 /
			  ((double)pp->p.rate_bps * g->load);
	pp->gen_t_ns = (double)pp->p.start_ns;
	pp->gen_light = g->light && g->frame_len >= GEN_HEAD + AIF_ROCE_ICRC_LEN &&
			aif_frame_light_enable() == 0;
	gen_template(pp);
	return 0;
}

/* Read the next usable record into inbuf (none left: ahead 0). */
static void
read_ahead(struct aif_pcap_port *pp)
{
	struct pcap_rec_hdr r;

	if (pp->p.gen != NULL) {
		gen_next(pp);
		return;
	}
	pp->ahead = 0;
	while (pp->in != NULL && fread(&r, sizeof(r), 1, pp->in) == 1) {
		uint32_t incl = sw32(pp, r.incl_len), orig = sw32(pp, r.orig_len);
		if (incl > PCAP_SNAPLEN || fread(pp->inbuf, 1, incl, pp->in) != incl)
			break; /* cut short: the end */
		if (incl < orig || incl < 14) {
			pp->ctr.rx_truncated++;
			continue;
		}
		uint64_t ts = (uint64_t)sw32(pp, r.ts_sec) * AIF_NS_PER_S +
			      (uint64_t)sw32(pp, r.ts_frac) * (pp->ns ? 1 : 1000);
		if (!pp->started) {
			pp->started = 1;
			pp->t0_ns = ts;
		}
		aif_time_ns at = pp->p.start_ns + (ts >= pp->t0_ns ? ts - pp->t0_ns : 0);
		if (at < pp->last_ns) {
			pp->ctr.rx_reordered++;
			at = pp->last_ns;
		}
		pp->last_ns = at;
		pp->ahead_ns = at;
		pp->ahead_len = incl;
		pp->ahead_prio = prio_of(pp, pp->inbuf, incl);
		pp->ahead = 1;
		return;
	}
	if (pp->in != NULL) {
		fclose(pp->in);
		pp->in = NULL;
	}
}

static int
open_input(struct aif_pcap_port *pp, char *err, size_t err_len)
{
	struct pcap_file_hdr h;

	pp->in = fopen(pp->p.in_path, "rb");
	if (pp->in == NULL) {
		snprintf(err, err_len, "%s: %s", pp->p.in_path, strerror(errno));
		return -1;
	}
	setvbuf(pp->in, NULL, _IOFBF, PCAP_IO_BUF);
	if (fread(&h, sizeof(h), 1, pp->in) != 1) {
		snprintf(err, err_len, "%s: shorter than a pcap file header", pp->p.in_path);
		return -1;
	}
	if (h.magic == PCAP_MAGIC_US || h.magic == PCAP_MAGIC_NS)
		pp->ns = h.magic == PCAP_MAGIC_NS;
	else if (h.magic == __builtin_bswap32(PCAP_MAGIC_US) ||
		 h.magic == __builtin_bswap32(PCAP_MAGIC_NS)) {
		pp->swapped = 1;
		pp->ns = h.magic == __builtin_bswap32(PCAP_MAGIC_NS);
	} else if (h.magic == 0x0a0d0d0au) {
		snprintf(err, err_len, "%s: a pcapng file; give a pcap file (editcap -F pcap "
			 "converts one)", pp->p.in_path);
		return -1;
	} else {
		snprintf(err, err_len, "%s: not a pcap file (magic 0x%08x)", pp->p.in_path,
			 h.magic);
		return -1;
	}
	if (sw32(pp, h.linktype) != PCAP_LINKTYPE_ETHERNET) {
		snprintf(err, err_len, "%s: link type %u, not Ethernet (1)", pp->p.in_path,
			 sw32(pp, h.linktype));
		return -1;
	}
	return 0;
}

static int
open_output(struct aif_pcap_port *pp, char *err, size_t err_len)
{
	const struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_NS, .major = 2, .minor = 4,
		.snaplen = PCAP_SNAPLEN, .linktype = PCAP_LINKTYPE_ETHERNET,
	};

	pp->out = fopen(pp->p.out_path, "wb");
	if (pp->out == NULL) {
		snprintf(err, err_len, "%s: %s", pp->p.out_path, strerror(errno));
		return -1;
	}
	setvbuf(pp->out, NULL, _IOFBF, PCAP_IO_BUF);
	if (fwrite(&h, sizeof(h), 1, pp->out) != 1) {
		snprintf(err, err_len, "%s: %s", pp->p.out_path, strerror(errno));
		return -1;
	}
	return 0;
}

struct aif_pcap_port *
aif_pcap_port_open(const struct aif_pcap_port_params *p, struct rte_mempool *pool,
		   char *err, size_t err_len)
{
	struct aif_pcap_port *pp;

	if (p->rate_bps == 0 || p->rate_bps > AIF_LINK_RATE_MAX_BPS) {
		snprintf(err, err_len, "rate %llu b/s out of 1..%llu",
			 (unsigned long long)p->rate_bps, AIF_LINK_RATE_MAX_BPS);
		return NULL;
	}
	pp = calloc(1, sizeof(*pp));
	if (pp == NULL || (pp->buf = malloc(PCAP_SNAPLEN)) == NULL ||
	    (pp->inbuf = malloc(PCAP_SNAPLEN)) == NULL) {
		if (pp != NULL)
			free(pp->buf);
		free(pp);
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	pp->p = *p;
	if (p->gen != NULL) {
		pp->gen = *p->gen;
		pp->p.gen = &pp->gen;
	}
	pp->pool = pool;
	pp->last_ns = p->start_ns;
	if ((p->in_path != NULL && open_input(pp, err, err_len) != 0) ||
	    (p->gen != NULL && gen_init(pp, err, err_len) != 0) ||
	    (p->out_path != NULL && open_output(pp, err, err_len) != 0)) {
		aif_pcap_port_close(pp);
		return NULL;
	}
	read_ahead(pp);
	return pp;
}

void
aif_pcap_port_attach(struct aif_pcap_port *pp, struct aif_port *port)
{
	aif_port_attach(port, &aif_port_pcap_ops, pp, (uint32_t)(pp->p.rate_bps / 1000000), 1, 1);
}

const struct aif_pcap_port_ctr *
aif_pcap_port_ctr(const struct aif_pcap_port *pp)
{
	return &pp->ctr;
}

int
aif_pcap_port_rx_done(const struct aif_pcap_port *pp)
{
	return pp->in == NULL && !pp->ahead;
}

int
aif_pcap_port_close(struct aif_pcap_port *pp)
{
	int rc = 0;

	if (pp == NULL)
		return 0;
	if (pp->in != NULL)
		fclose(pp->in);
	if (pp->out != NULL && fclose(pp->out) != 0)
		rc = -1;
	if (pp->ctr.write_errors)
		rc = -1;
	free(pp->buf);
	free(pp->inbuf);
	free(pp->gen_dst);
	free(pp->gen_sport);
	free(pp);
	return rc;
}

static inline uint64_t
ser_ps(const struct aif_pcap_port *pp, uint32_t len)
{
	return ((uint64_t)aif_link_wire_bytes(len) * 8 * PS_PER_S + pp->p.rate_bps - 1) /
	       pp->p.rate_bps;
}

/* When the frame read ahead starts: by the file, after the frame before,
 * after its priority's pause (as the host knows it now). */
static uint64_t
head_start_ps(const struct aif_pcap_port *pp)
{
	uint64_t s = RTE_MAX((uint64_t)pp->ahead_ns * PS_PER_NS, pp->in_free_ps);
	unsigned prio = pp->ahead_prio;
	uint64_t until = (uint64_t)pp->pause.paused_until_ns[prio] * PS_PER_NS;

	if (until > s && (uint64_t)pp->pause_from_ns[prio] * PS_PER_NS <= s)
		s = until;
	return s;
}

static inline aif_time_ns
head_arrival_ns(const struct aif_pcap_port *pp, uint64_t start_ps)
{
	return (start_ps + ser_ps(pp, pp->ahead_len) + PS_PER_NS - 1) / PS_PER_NS;
}

static uint16_t
pcap_rx(struct aif_port *port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	struct aif_pcap_port *pp = port->ctx;
	uint16_t k = 0;

	(void)queue;
	while (k < n && pp->ahead) {
		uint64_t start = head_start_ps(pp);
		if (head_arrival_ns(pp, start) > now_ns)
			break;
		uint64_t free_ps = RTE_MAX((uint64_t)pp->ahead_ns * PS_PER_NS, pp->in_free_ps);
		pp->ctr.rx_paused_ns += (start - free_ps) / PS_PER_NS;
		pp->in_free_ps = start + ser_ps(pp, pp->ahead_len);
		struct rte_mbuf *m;
		if (pp->gen_light) {
			m = aif_frame_light_from_bytes(pp->pool, pp->inbuf, GEN_HEAD,
						       pp->ahead_len - GEN_HEAD - AIF_ROCE_ICRC_LEN);
			if (m != NULL)
				aif_frame_icrc_defer(m);
		} else
			m = aif_mbuf_from_bytes(pp->pool, pp->inbuf, pp->ahead_len);
		if (m != NULL) {
			pp->ctr.rx_packets++;
			pp->ctr.rx_bytes += pp->ahead_len;
			pkts[k++] = m;
		} else
			pp->ctr.rx_nombuf++;
		read_ahead(pp);
	}
	return k;
}

static aif_time_ns
pcap_rx_next_ns(struct aif_port *port, uint16_t queue)
{
	const struct aif_pcap_port *pp = port->ctx;

	(void)queue;
	return pp->ahead ? head_arrival_ns(pp, head_start_ps(pp)) : AIF_TIME_NS_NEVER;
}

/* Serialize m from start_ps and write it stamped with its last bit; a
 * PFC or PAUSE frame (ctrl) pauses the host from then on. */
static void
put(struct aif_pcap_port *pp, struct rte_mbuf *m, uint64_t start_ps, int ctrl)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint64_t busy = ser_ps(pp, len);
	uint64_t finish = start_ps + busy;

	if (ctrl) {
		const uint8_t *d = aif_frame_read(m, 0, RTE_MIN(len, 64u), pp->buf);
		int xoff = aif_pfc_host_hear(&pp->pause, pp->pause_from_ns, d, RTE_MIN(len, 64u),
					     pp->p.rate_bps, (finish + PS_PER_NS - 1) / PS_PER_NS);
		if (xoff >= 0) {
			pp->ctr.rx_pfc += xoff;
			pp->ctr.rx_xon += !xoff;
		}
	}

	pp->busy_until_ps = finish;
	pp->ctr.tx_packets++;
	pp->ctr.tx_bytes += len;
	pp->ctr.busy_ps += busy;
	if (pp->out != NULL) {
		uint64_t t = (finish + PS_PER_NS - 1) / PS_PER_NS;
		uint32_t cap = RTE_MIN(len, PCAP_SNAPLEN);
		struct pcap_rec_hdr r = {
			.ts_sec = (uint32_t)(t / AIF_NS_PER_S), .ts_frac = (uint32_t)(t % AIF_NS_PER_S),
			.incl_len = cap, .orig_len = len,
		};
		const void *data = aif_frame_read(m, 0, cap, pp->buf); /* whole */
		if (data == NULL || fwrite(&r, sizeof(r), 1, pp->out) != 1 ||
		    fwrite(data, 1, cap, pp->out) != cap)
			pp->ctr.write_errors++;
	}
	rte_pktmbuf_free(m);
}

static uint16_t
pcap_tx(struct aif_port *port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
	aif_time_ns now_ns)
{
	struct aif_pcap_port *pp = port->ctx;
	uint64_t now_ps = now_ns * PS_PER_NS;
	uint16_t i;

	(void)queue;
	for (i = 0; i < n; i++) {
		uint64_t s = aif_link_start_ps(pp->busy_until_ps, now_ps);
		if (s > now_ps)
			break;
		put(pp, pkts[i], s, 0);
	}
	pp->ctr.refused += n - i;
	return i;
}

static uint16_t
pcap_tx_ctrl(struct aif_port *port, uint16_t queue, struct rte_mbuf *m, aif_time_ns now_ns)
{
	struct aif_pcap_port *pp = port->ctx;

	(void)queue;
	put(pp, m, aif_link_start_ps(pp->busy_until_ps, now_ns * PS_PER_NS), 1);
	pp->ctr.tx_ctrl++;
	return 1;
}

static aif_time_ns
pcap_tx_ready_ns(struct aif_port *port, uint16_t queue, aif_time_ns now_ns)
{
	const struct aif_pcap_port *pp = port->ctx;
	aif_time_ns free_ns = (pp->busy_until_ps + PS_PER_NS - 1) / PS_PER_NS;

	(void)queue;
	return free_ns <= now_ns ? now_ns : free_ns;
}

const struct aif_port_ops aif_port_pcap_ops = {
	.kind = "pcap", .rx_burst = pcap_rx, .tx_burst = pcap_tx, .tx_ctrl = pcap_tx_ctrl,
	.rx_next_ns = pcap_rx_next_ns, .tx_ready_ns = pcap_tx_ready_ns,
};
