/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared-buffer MMU: admission, release, thresholds, PFC XOFF/XON.  The
 * model, the buckets, the arithmetic and the knobs are described in mmu.h.
 *
 * HPCC and Broadcom share the accounting and differ in three places, each a
 * switch on cfg->model: the pool's total reserve (config init), the XOFF
 * comparison (>= for HPCC, > for Broadcom) and the XON rule.  CONWEAVE
 * (ns-3's switch-mmu.cc as ConWeave runs it) has its own admission
 * (admit_conweave), threshold and XOFF/XON rules on whole-PG and
 * whole-switch byte counts (mmu.h); release is common.
 *
 * Where this departs from HPCC's switch-mmu.cc, on purpose:
 *   - a packet that straddles the end of the reserve keeps its reserved part
 *     there when the rest goes to headroom (HPCC moves the whole packet);
 *   - a PG with no shared bytes is never XOFF for the shared clause (HPCC
 *     pauses it when the threshold has fallen to 0, and its XON rule would
 *     resume it at once);
 *   - lossy PGs (HPCC has none): no headroom, drop at the threshold;
 *   - egress limit for lossy queues (HPCC admits everything at egress).
 */
#include <assert.h>
#include <string.h>

#include "capacity.h"
#include "mmu.h"

_Static_assert(AIF_MMU_MAX_PORTS == AIF_MAX_PORTS,
	       "one MMU port per switch port");

#define DYNAMIC_TH_MIN (-16)
#define DYNAMIC_TH_MAX 3

static const char *const verdict_names[AIF_MMU_VERDICT_MAX] = {
#define AIF_MMU_VERDICT_NAME(id, name) [AIF_MMU_##id] = name,
	AIF_FOREACH_MMU_VERDICT(AIF_MMU_VERDICT_NAME)
#undef AIF_MMU_VERDICT_NAME
};

static const char *const err_names[AIF_MMU_ERR_MAX] = {
	[AIF_MMU_OK] = "ok",
#define AIF_MMU_ERR_NAME(id, text) [AIF_MMU_ERR_##id] = text,
	AIF_FOREACH_MMU_ERR(AIF_MMU_ERR_NAME)
#undef AIF_MMU_ERR_NAME
};

const char *
aif_mmu_verdict_name(enum aif_mmu_verdict v)
{
	if ((unsigned)v >= AIF_MMU_VERDICT_MAX)
		return "unknown";
	return verdict_names[v];
}

const char *
aif_mmu_err_name(int err)
{
	if (err < 0)
		err = -err;
	if (err >= AIF_MMU_ERR_MAX)
		return "unknown";
	return err_names[err];
}

/* ---- arithmetic ---- */

static inline uint32_t
min32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static inline uint32_t
sub_sat32(uint32_t a, uint32_t b)
{
	return a > b ? a - b : 0;
}

static inline uint64_t
sub_sat64(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* x * 2^log2, log2 in DYNAMIC_TH_MIN..DYNAMIC_TH_MAX (x < 2^60: no overflow). */
static inline uint64_t
scale_pow2(uint64_t x, int8_t log2)
{
	return log2 >= 0 ? x << log2 : x >> -log2;
}

/* The PG shared threshold: alpha * free shared pool, or the static value. */
static inline uint64_t
threshold(const struct aif_mmu *m)
{
	const struct aif_mmu_config *c = m->cfg;

	if (c->th_mode == AIF_MMU_TH_STATIC)
		return c->static_th_bytes;
	return scale_pow2(sub_sat64(c->shared_limit_bytes,
				    c->model == AIF_MMU_CONWEAVE ? m->used_bytes
								 : m->shared_used_bytes),
			  c->dynamic_th);
}

/* Lossy egress limit of one queue, in bytes. */
static inline uint64_t
egress_limit(const struct aif_mmu *m)
{
	const struct aif_mmu_config *c = m->cfg;

	switch (c->egress_mode) {
	case AIF_MMU_EGRESS_STATIC:
		return c->egress_static_th_bytes;
	case AIF_MMU_EGRESS_DYNAMIC:
		return scale_pow2(sub_sat64(c->egress_pool_bytes, m->used_bytes),
				  c->egress_dynamic_th);
	default:
		return UINT64_MAX;
	}
}

static inline uint32_t
sat32(unsigned __int128 x)
{
	return x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
}

uint32_t
aif_mmu_headroom_min_bytes(enum aif_mmu_model model, uint64_t speed_bps, uint64_t delay_ns,
			   uint32_t mtu_bytes)
{
	/* the cable both ways, rounded up: 2 * R * D / 8e9 = R * D / 4e9 */
	unsigned __int128 cable = ((unsigned __int128)speed_bps * delay_ns + 3999999999u) /
				  4000000000u;
	unsigned __int128 frame = (unsigned __int128)mtu_bytes + AIF_MMU_FRAME_OVERHEAD_BYTES;

	/* HPCC and BCM charge the frame that crosses the threshold to the
	 * headroom whole: one frame more than the vendors' two */
	unsigned frames = AIF_MMU_WORST_FRAMES(model);

	return sat32(frames * frame + AIF_MMU_PFC_FRAME_WIRE_BYTES + AIF_MMU_RESPONSE_BITS / 8 +
		     cable);
}

uint32_t
aif_mmu_headroom_bytes(enum aif_mmu_model model, uint64_t speed_bps,
		       uint64_t delay_ns, uint32_t mtu_bytes)
{
	/* BDP = floor(speed_bps * delay_ns / 8 / 1e9), as HPCC's integer code. */
	unsigned __int128 bdp = (unsigned __int128)speed_bps * delay_ns / 8 /
				1000000000u;
	unsigned __int128 h;

	if (speed_bps == 0)
		return 0;
	if (model == AIF_MMU_BROADCOM || model == AIF_MMU_CONWEAVE)
		h = 2 * bdp + 2 * (unsigned __int128)mtu_bytes;
	else
		h = 3 * bdp;
	uint32_t min = aif_mmu_headroom_min_bytes(model, speed_bps, delay_ns, mtu_bytes);
	return sat32(h) > min ? sat32(h) : min;
}

#define RTE_MAX_U64(a, b) ((a) > (b) ? (a) : (b))

/*
 * CONWEAVE: the headroom port i sets aside in the pool: headroom_bytes when
 * given, else 2 * BDP + 2 * mtu_bytes (0 without a speed); with the quirk,
 * port 0's derived one is ns-3's attribute default, 12,500 + 2 * mtu_bytes.
 */
static uint64_t
conweave_set_aside(const struct aif_mmu_params *p, unsigned i)
{
	const struct aif_mmu_port_params *pp = &p->port[i];

	if (pp->headroom_bytes != 0)
		return pp->headroom_bytes;
	if (pp->speed_bps == 0)
		return 0;
	if (i == 0 && p->headroom_slot0_quirk)
		return 12500 + 2 * (uint64_t)p->mtu_bytes;
	return 2 * ((unsigned __int128)pp->speed_bps * pp->cable_delay_ns / 8 / 1000000000u) +
	       2 * (uint64_t)p->mtu_bytes;
}

/* ---- set-up ---- */

void
aif_mmu_params_default(struct aif_mmu_params *p, enum aif_mmu_model model,
		       uint16_t n_ports)
{
	memset(p, 0, sizeof(*p));
	p->model = model;
	p->n_ports = n_ports;
	p->mtu_bytes = 1500;
	p->th_mode = AIF_MMU_TH_DYNAMIC;
	if (model == AIF_MMU_CONWEAVE) {
		p->buffer_bytes = 9ull * 1024 * 1024;
		p->mtu_bytes = AIF_MMU_CONWEAVE_MTU_BYTES;
		p->reserve_bytes = p->mtu_bytes;
		p->port_reserve_bytes = p->mtu_bytes;
		p->dynamic_th = -4;
		p->resume_offset_bytes = 16;
		p->egress_mode = AIF_MMU_EGRESS_DYNAMIC;
		p->egress_dynamic_th = 0;
		p->headroom_slot0_quirk = true;
	} else if (model == AIF_MMU_BROADCOM) {
		p->buffer_bytes = 9ull * 1024 * 1024;
		p->reserve_bytes = p->mtu_bytes;
		p->port_reserve_bytes = p->mtu_bytes;
		p->dynamic_th = -4;
		p->resume_offset_bytes = 16;
		p->egress_mode = AIF_MMU_EGRESS_DYNAMIC;
		p->egress_dynamic_th = 0;
	} else {
		p->buffer_bytes = 12ull * 1024 * 1024;
		p->reserve_bytes = 4 * 1024;
		p->port_reserve_bytes = 0;
		p->dynamic_th = -3;
		p->resume_offset_bytes = 3 * 1024;
		p->egress_mode = AIF_MMU_EGRESS_NONE;
	}
	for (unsigned i = 0; i < AIF_MMU_MAX_PORTS; i++)
		p->port[i].pfc_enable = (1u << 3) | (1u << 4);
}

int
aif_mmu_config_init(struct aif_mmu_config *c, const struct aif_mmu_params *p)
{
	uint64_t total_hdrm = 0, total_rsrv;

	memset(c, 0, sizeof(*c));
	if ((unsigned)p->model >= AIF_MMU_MODEL_MAX)
		return -AIF_MMU_ERR_MODEL;
	if (p->n_ports == 0 || p->n_ports > AIF_MMU_MAX_PORTS)
		return -AIF_MMU_ERR_N_PORTS;
	if (p->buffer_bytes == 0)
		return -AIF_MMU_ERR_BUFFER;
	if (p->model != AIF_MMU_HPCC && p->mtu_bytes == 0)
		return -AIF_MMU_ERR_MTU;
	if ((unsigned)p->th_mode >= AIF_MMU_TH_MODE_MAX)
		return -AIF_MMU_ERR_TH_MODE;
	if (p->dynamic_th < DYNAMIC_TH_MIN || p->dynamic_th > DYNAMIC_TH_MAX)
		return -AIF_MMU_ERR_DYNAMIC_TH;
	if (p->th_mode == AIF_MMU_TH_STATIC && p->static_th_bytes == 0)
		return -AIF_MMU_ERR_STATIC_TH;
	if ((unsigned)p->egress_mode >= AIF_MMU_EGRESS_MODE_MAX)
		return -AIF_MMU_ERR_EGRESS_MODE;
	if (p->egress_dynamic_th < DYNAMIC_TH_MIN ||
	    p->egress_dynamic_th > DYNAMIC_TH_MAX)
		return -AIF_MMU_ERR_EGRESS_DYNAMIC_TH;
	if (p->egress_mode == AIF_MMU_EGRESS_STATIC && p->egress_static_th_bytes == 0)
		return -AIF_MMU_ERR_EGRESS_STATIC_TH;

	uint64_t slack = 0; /* CONWEAVE: headroom beyond the set-aside */
	for (unsigned i = 0; i < p->n_ports; i++) {
		const struct aif_mmu_port_params *pp = &p->port[i];
		uint32_t h = pp->headroom_bytes;
		uint32_t mtu = pp->mtu_bytes ? pp->mtu_bytes : p->mtu_bytes;

		if (p->model == AIF_MMU_CONWEAVE) {
			uint64_t aside = conweave_set_aside(p, i);
			uint32_t min = pp->speed_bps == 0 ? 0
				: aif_mmu_headroom_min_bytes(p->model, pp->speed_bps, pp->cable_delay_ns,
							     mtu);
			if (h == 0 && aside == 0 && pp->pfc_enable != 0)
				return -AIF_MMU_ERR_HEADROOM;
			if (h != 0 && h < min && pp->pfc_enable != 0)
				return -AIF_MMU_ERR_HEADROOM_LOW;
			if (h == 0) /* ns-3's formula, never below the worst case */
				h = aside > min ? (uint32_t)aside : min;
			if (pp->pfc_enable != 0 && h > aside)
				slack += h - aside;
			c->headroom_bytes[i] = h;
			c->pfc_enable[i] = pp->pfc_enable;
			total_hdrm += aside;
			continue;
		}
		if (h == 0)
			h = aif_mmu_headroom_bytes(p->model, pp->speed_bps,
						   pp->cable_delay_ns, mtu);
		/* A lossless PG without headroom drops at the first XOFF (SONiC#480). */
		if (h == 0 && pp->pfc_enable != 0)
			return -AIF_MMU_ERR_HEADROOM;
		/* nor may it have less than the worst case, where that is known */
		if (pp->pfc_enable != 0 && pp->speed_bps != 0 &&
		    h < aif_mmu_headroom_min_bytes(p->model, pp->speed_bps, pp->cable_delay_ns, mtu))
			return -AIF_MMU_ERR_HEADROOM_LOW;
		c->headroom_bytes[i] = h;
		c->pfc_enable[i] = pp->pfc_enable;
		total_hdrm += h;
	}

	if (p->model == AIF_MMU_BROADCOM)
		total_rsrv = (uint64_t)p->n_ports *
			     ((uint64_t)AIF_MMU_N_PG * p->reserve_bytes + p->port_reserve_bytes);
	else if (p->model == AIF_MMU_CONWEAVE) /* max(qCnt * pg_min, port_min) */
		total_rsrv = (uint64_t)p->n_ports *
			     RTE_MAX_U64((uint64_t)AIF_MMU_N_PG * p->reserve_bytes,
					 p->port_reserve_bytes);
	else
		total_rsrv = (uint64_t)p->n_ports * p->reserve_bytes;
	if (total_rsrv >= p->buffer_bytes)
		return -AIF_MMU_ERR_RESERVE;
	if (total_rsrv + total_hdrm >= p->buffer_bytes)
		return -AIF_MMU_ERR_POOL;
	if (p->resume_offset_bytes >= p->buffer_bytes - total_rsrv - total_hdrm)
		return -AIF_MMU_ERR_RESUME_OFFSET;
	if (slack > total_rsrv)
		return -AIF_MMU_ERR_HEADROOM_SLACK;

	c->model = (uint8_t)p->model;
	c->th_mode = (uint8_t)p->th_mode;
	c->egress_mode = (uint8_t)p->egress_mode;
	c->dynamic_th = p->dynamic_th;
	c->egress_dynamic_th = p->egress_dynamic_th;
	c->n_ports = p->n_ports;
	c->reserve_bytes = p->reserve_bytes;
	c->port_reserve_bytes = p->port_reserve_bytes;
	c->static_th_bytes = p->static_th_bytes;
	c->resume_offset_bytes = p->resume_offset_bytes;
	c->egress_static_th_bytes = p->egress_static_th_bytes;
	c->buffer_bytes = p->buffer_bytes;
	c->total_headroom_bytes = total_hdrm;
	c->total_reserve_bytes = total_rsrv;
	c->shared_limit_bytes = p->buffer_bytes - total_hdrm - total_rsrv;
	c->egress_pool_bytes = p->buffer_bytes - total_rsrv;
	if (p->model == AIF_MMU_CONWEAVE) {
		c->guarantee_bytes = p->reserve_bytes + p->port_reserve_bytes;
		c->queue_min_bytes = p->mtu_bytes + 1;
	}
	return 0;
}

void
aif_mmu_init(struct aif_mmu *m, const struct aif_mmu_config *cfg)
{
	memset(m, 0, sizeof(*m));
	m->cfg = cfg;
}

void
aif_mmu_watermarks_clear(struct aif_mmu *m)
{
	memset(&m->wm, 0, sizeof(m->wm));
}

/* ---- per packet ---- */

static inline void
wm_max32(uint32_t *wm, uint32_t v)
{
	if (v > *wm)
		*wm = v;
}

static inline void
wm_max64(uint64_t *wm, uint64_t v)
{
	if (v > *wm)
		*wm = v;
}

/* Bytes of the PG, every bucket. */
static inline uint32_t
pg_total(const struct aif_mmu_pg *g)
{
	return g->reserve_bytes + g->port_reserve_bytes + g->shared_bytes + g->headroom_bytes;
}

/* CONWEAVE: x compared with alpha * y, exactly: sign(x - y * 2^dt). */
static inline int
cmp_alpha(int64_t x, int64_t y, int8_t dt)
{
	__int128 l = dt >= 0 ? (__int128)x : (__int128)x * ((__int128)1 << -dt);
	__int128 r = dt >= 0 ? (__int128)y * ((__int128)1 << dt) : (__int128)y;

	return l < r ? -1 : l > r;
}

/* CONWEAVE: a queue's bytes beyond its guaranteed minimum. */
static inline uint64_t
q_excess(const struct aif_mmu_config *c, uint64_t q)
{
	return q > c->queue_min_bytes ? q - c->queue_min_bytes : 0;
}

/* CONWEAVE: the PG's bytes past the guarantee vs the dynamic (or static)
 * threshold less off bytes: sign(PG - guarantee - thr). */
static inline int
conweave_cmp(const struct aif_mmu *m, const struct aif_mmu_pg *g, uint32_t extra,
	     uint32_t off)
{
	const struct aif_mmu_config *c = m->cfg;
	int64_t over = (int64_t)pg_total(g) + extra - c->guarantee_bytes;

	if (c->th_mode == AIF_MMU_TH_STATIC)
		return cmp_alpha(over, (int64_t)c->static_th_bytes - off, 0);
	return cmp_alpha(over, (int64_t)c->shared_limit_bytes - (int64_t)m->used_bytes - off,
			 c->dynamic_th);
}

/* Add an admitted packet's buckets, watermarks and the charge record. */
static inline void
charge(struct aif_mmu *m, uint16_t in_port, uint8_t pg, uint16_t out_port, uint8_t queue,
       uint32_t bytes, bool lossless, uint32_t to_rsv, uint32_t to_prsv, uint32_t to_shared,
       uint32_t to_hdrm, struct aif_mmu_charge *ch)
{
	struct aif_mmu_port *ip = &m->port[in_port];
	struct aif_mmu_pg *g = &ip->pg[pg];

	if (m->cfg->model == AIF_MMU_CONWEAVE) {
		uint64_t q = m->port[out_port].queue_bytes[queue];
		m->egress_shared_bytes += q_excess(m->cfg, q + bytes) - q_excess(m->cfg, q);
	}
	g->reserve_bytes += to_rsv;
	g->port_reserve_bytes += to_prsv;
	ip->port_reserve_bytes += to_prsv;
	ip->ingress_bytes += bytes;
	g->shared_bytes += to_shared;
	g->headroom_bytes += to_hdrm;
	m->shared_used_bytes += to_shared;
	m->headroom_used_bytes += to_hdrm;
	m->used_bytes += bytes;
	m->port[out_port].queue_bytes[queue] += bytes;
	m->port_bytes[out_port] += bytes;

	wm_max32(&m->wm.pg_shared_bytes[in_port][pg], g->shared_bytes);
	wm_max32(&m->wm.pg_headroom_bytes[in_port][pg], g->headroom_bytes);
	wm_max32(&m->wm.queue_bytes[out_port][queue], m->port[out_port].queue_bytes[queue]);
	wm_max64(&m->wm.pool_used_bytes, m->used_bytes);
	wm_max64(&m->wm.pool_shared_bytes, m->shared_used_bytes);
	wm_max64(&m->wm.pool_headroom_bytes, m->headroom_used_bytes);

	ch->bytes = bytes;
	ch->in_port = in_port;
	ch->out_port = out_port;
	ch->pg = pg;
	ch->queue = queue;
	ch->lossless = lossless;
	ch->bypass = 0;
}

void
aif_mmu_bypass(struct aif_mmu *m, uint16_t in_port, uint8_t pg, uint16_t out_port,
	       uint8_t queue, uint32_t bytes, struct aif_mmu_charge *ch)
{
	assert(in_port < m->cfg->n_ports && out_port < m->cfg->n_ports);
	m->port_bytes[out_port] += bytes;
	ch->bytes = bytes;
	ch->in_port = in_port;
	ch->out_port = out_port;
	ch->pg = pg;
	ch->queue = queue;
	ch->lossless = 0;
	ch->bypass = 1;
}

static enum aif_mmu_verdict
admit_conweave(struct aif_mmu *m, uint16_t in_port, uint8_t pg, uint16_t out_port,
	       uint8_t queue, uint32_t bytes, bool lossless, struct aif_mmu_charge *ch);

enum aif_mmu_verdict
aif_mmu_admit(struct aif_mmu *m, uint16_t in_port, uint8_t pg, uint16_t out_port,
	      uint8_t queue, uint32_t bytes, bool lossless, struct aif_mmu_charge *ch)
{
	const struct aif_mmu_config *c = m->cfg;
	struct aif_mmu_port *ip = &m->port[in_port];
	struct aif_mmu_pg *g = &ip->pg[pg];
	uint32_t left = bytes, to_rsv, to_prsv, to_shared = 0, to_hdrm = 0;
	enum aif_mmu_verdict v = AIF_MMU_ADMIT;

	assert(in_port < c->n_ports && out_port < c->n_ports);
	assert(pg < AIF_MMU_N_PG && queue < AIF_MMU_N_QUEUE);
	if (c->model == AIF_MMU_CONWEAVE)
		return admit_conweave(m, in_port, pg, out_port, queue, bytes, lossless, ch);

	/* 1, 2: the guarantees. */
	to_rsv = min32(left, sub_sat32(c->reserve_bytes, g->reserve_bytes));
	left -= to_rsv;
	to_prsv = min32(left, sub_sat32(c->port_reserve_bytes, ip->port_reserve_bytes));
	left -= to_prsv;

	/* 3, 4: shared while under the threshold, then headroom or a drop. */
	if (left != 0) {
		bool under_th = (uint64_t)g->shared_bytes + left <= threshold(m);
		bool pool_room = m->shared_used_bytes + left <= c->shared_limit_bytes;

		if (under_th && pool_room)
			to_shared = left;
		else if (!lossless)
			v = under_th ? AIF_MMU_DROP_POOL_FULL : AIF_MMU_DROP_SHARED_LIMIT;
		else if ((uint64_t)g->headroom_bytes + left > c->headroom_bytes[in_port])
			v = AIF_MMU_DROP_HEADROOM_OVERFLOW;
		else
			to_hdrm = left;
	}
	if (v == AIF_MMU_ADMIT && !lossless &&
	    (uint64_t)m->port[out_port].queue_bytes[queue] + bytes > egress_limit(m))
		v = AIF_MMU_DROP_EGRESS_LIMIT;
	if (v == AIF_MMU_ADMIT && m->used_bytes + bytes > c->buffer_bytes)
		v = AIF_MMU_DROP_POOL_FULL;

	m->pg_ctr[in_port][pg].packets[v]++;
	m->pg_ctr[in_port][pg].bytes[v] += bytes;
	if (v != AIF_MMU_ADMIT) {
		m->queue_ctr[out_port][queue].drop_packets++;
		m->queue_ctr[out_port][queue].drop_bytes += bytes;
		return v;
	}

	charge(m, in_port, pg, out_port, queue, bytes, lossless, to_rsv, to_prsv, to_shared,
	       to_hdrm, ch);
	return AIF_MMU_ADMIT;
}

static enum aif_mmu_verdict
admit_conweave(struct aif_mmu *m, uint16_t in_port, uint8_t pg, uint16_t out_port,
	       uint8_t queue, uint32_t bytes, bool lossless, struct aif_mmu_charge *ch)
{
	const struct aif_mmu_config *c = m->cfg;
	struct aif_mmu_port *ip = &m->port[in_port];
	struct aif_mmu_pg *g = &ip->pg[pg];
	uint64_t q = m->port[out_port].queue_bytes[queue];
	uint32_t total = pg_total(g);
	enum aif_mmu_verdict v = AIF_MMU_ADMIT;

	/* egress first (ns-3 CheckEgressAdmission), every data queue */
	if (c->egress_mode == AIF_MMU_EGRESS_DYNAMIC) {
		if (m->egress_shared_bytes + bytes > c->egress_pool_bytes ||
		    cmp_alpha((int64_t)(q_excess(c, q) + bytes),
			      (int64_t)c->egress_pool_bytes - (int64_t)m->egress_shared_bytes,
			      c->egress_dynamic_th) > 0)
			v = AIF_MMU_DROP_EGRESS_LIMIT;
	} else if (c->egress_mode == AIF_MMU_EGRESS_STATIC &&
		   q_excess(c, q) + bytes > c->egress_static_th_bytes) {
		v = AIF_MMU_DROP_EGRESS_LIMIT;
	}
	if (v == AIF_MMU_ADMIT && m->used_bytes + bytes > c->buffer_bytes)
		v = AIF_MMU_DROP_POOL_FULL;
	/* past both guarantees (ns-3 CheckIngressAdmission) */
	if (v == AIF_MMU_ADMIT && (uint64_t)total + bytes > c->reserve_bytes &&
	    (uint64_t)ip->ingress_bytes + bytes > c->port_reserve_bytes) {
		if (lossless) {
			if (m->used_bytes > c->shared_limit_bytes &&
			    (uint64_t)g->headroom_bytes + bytes > c->headroom_bytes[in_port])
				v = AIF_MMU_DROP_HEADROOM_OVERFLOW;
		} else if (conweave_cmp(m, g, bytes, 0) > 0) {
			v = AIF_MMU_DROP_SHARED_LIMIT;
		}
	}
	m->pg_ctr[in_port][pg].packets[v]++;
	m->pg_ctr[in_port][pg].bytes[v] += bytes;
	if (v != AIF_MMU_ADMIT) {
		m->queue_ctr[out_port][queue].drop_packets++;
		m->queue_ctr[out_port][queue].drop_bytes += bytes;
		return v;
	}
	/* the whole packet to headroom once the pool is over sp_limit (ns-3
	 * UpdateIngressAdmission), else reserve, port reserve, shared */
	if (m->used_bytes + bytes > c->shared_limit_bytes) {
		charge(m, in_port, pg, out_port, queue, bytes, lossless, 0, 0, 0, bytes, ch);
	} else {
		uint32_t to_rsv = min32(bytes, sub_sat32(c->reserve_bytes, g->reserve_bytes));
		uint32_t to_prsv = min32(bytes - to_rsv, sub_sat32(c->port_reserve_bytes,
								   ip->port_reserve_bytes));
		charge(m, in_port, pg, out_port, queue, bytes, lossless, to_rsv, to_prsv,
		       bytes - to_rsv - to_prsv, 0, ch);
	}
	return AIF_MMU_ADMIT;
}

bool
aif_mmu_admit_passing(struct aif_mmu *m, uint16_t in_port, uint8_t pg,
		      uint16_t out_port, uint8_t queue, uint32_t bytes)
{
	const struct aif_mmu_config *c = m->cfg;
	const struct aif_mmu_pg *g = &m->port[in_port].pg[pg];

	if ((uint64_t)g->reserve_bytes + bytes > c->reserve_bytes ||
	    m->used_bytes + bytes > c->buffer_bytes)
		return false;
	/* CONWEAVE charges whole packets to headroom: the PG as a whole */
	if (c->model == AIF_MMU_CONWEAVE &&
	    ((uint64_t)pg_total(g) + bytes > c->reserve_bytes ||
	     m->used_bytes + bytes > c->shared_limit_bytes))
		return false;
	m->pg_ctr[in_port][pg].packets[AIF_MMU_ADMIT]++;
	m->pg_ctr[in_port][pg].bytes[AIF_MMU_ADMIT] += bytes;
	wm_max32(&m->wm.queue_bytes[out_port][queue],
		 m->port[out_port].queue_bytes[queue] + bytes);
	return true;
}

/* Scalar on purpose: vectorised, it loaded a PG's four counters in one
 * 16-byte read right after admit stored them one by one, a store-forwarding
 * stall that cost more than the whole function. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
void
aif_mmu_release(struct aif_mmu *m, const struct aif_mmu_charge *ch)
{
	struct aif_mmu_port *ip = &m->port[ch->in_port];
	struct aif_mmu_pg *g = &ip->pg[ch->pg];
	uint32_t left = ch->bytes, n;

	if (__builtin_expect(ch->bypass, 0)) { /* aif_mmu_bypass: outside the buffer */
		m->port_bytes[ch->out_port] -= ch->bytes;
		return;
	}
	/* HPCC order: headroom, shared, then the guarantees. */
	n = min32(left, g->headroom_bytes);
	g->headroom_bytes -= n;
	m->headroom_used_bytes -= n;
	left -= n;
	n = min32(left, g->shared_bytes);
	g->shared_bytes -= n;
	m->shared_used_bytes -= n;
	left -= n;
	n = min32(left, g->port_reserve_bytes);
	g->port_reserve_bytes -= n;
	ip->port_reserve_bytes -= n;
	left -= n;
	n = min32(left, g->reserve_bytes);
	g->reserve_bytes -= n;
	left -= n;
	assert(left == 0); /* released more than the PG held */

	ip->ingress_bytes -= ch->bytes;

	uint32_t *qb = &m->port[ch->out_port].queue_bytes[ch->queue];
	assert(*qb >= ch->bytes);
	if (m->cfg->model == AIF_MMU_CONWEAVE)
		m->egress_shared_bytes -= q_excess(m->cfg, *qb) - q_excess(m->cfg, *qb - ch->bytes);
	*qb -= ch->bytes;
	m->port_bytes[ch->out_port] -= ch->bytes;
	m->used_bytes -= ch->bytes;
}

uint32_t
aif_mmu_threshold_bytes(const struct aif_mmu *m)
{
	uint64_t t = threshold(m);

	return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

static inline bool
pause_due(const struct aif_mmu *m, const struct aif_mmu_pg *g, uint64_t thr)
{
	if (m->cfg->model == AIF_MMU_CONWEAVE) /* ns-3 GetPauseClasses */
		return pg_total(g) > m->cfg->guarantee_bytes &&
		       (g->headroom_bytes != 0 || conweave_cmp(m, g, 0, 0) > 0);
	if (g->headroom_bytes != 0)
		return true;
	if (g->shared_bytes == 0)
		return false;
	if (m->cfg->model == AIF_MMU_BROADCOM)
		return g->shared_bytes > thr;
	return g->shared_bytes >= thr;
}

static inline bool
resume_due(const struct aif_mmu *m, const struct aif_mmu_pg *g, uint64_t thr)
{
	const struct aif_mmu_config *c = m->cfg;
	uint64_t off_th;

	if (g->headroom_bytes != 0)
		return false;
	if (c->model == AIF_MMU_CONWEAVE) /* ns-3 GetResumeClasses */
		return conweave_cmp(m, g, 0, c->resume_offset_bytes) < 0;
	if (g->shared_bytes == 0)
		return true;
	if (c->model != AIF_MMU_BROADCOM)
		return (uint64_t)g->shared_bytes + c->resume_offset_bytes <= thr;
	/* Broadcom: below alpha * (free - offset), or static - offset. */
	if (c->th_mode == AIF_MMU_TH_STATIC)
		off_th = sub_sat64(c->static_th_bytes, c->resume_offset_bytes);
	else
		off_th = scale_pow2(sub_sat64(sub_sat64(c->shared_limit_bytes,
							m->shared_used_bytes),
					      c->resume_offset_bytes),
				    c->dynamic_th);
	return g->shared_bytes < off_th;
}

bool
aif_mmu_should_pause(const struct aif_mmu *m, uint16_t port, uint8_t pg)
{
	return pause_due(m, &m->port[port].pg[pg], threshold(m));
}

bool
aif_mmu_should_resume(const struct aif_mmu *m, uint16_t port, uint8_t pg)
{
	return resume_due(m, &m->port[port].pg[pg], threshold(m));
}

uint8_t
aif_mmu_xoff_mask(struct aif_mmu *m, uint16_t port)
{
	struct aif_mmu_port *p = &m->port[port];
	unsigned en = m->cfg->pfc_enable[port];
	unsigned mask = p->xoff_mask & en;
	uint64_t thr = threshold(m);

	for (unsigned pg = 0; en != 0; pg++, en >>= 1) {
		unsigned bit = 1u << pg;

		if (!(en & 1))
			continue;
		if (mask & bit) {
			if (resume_due(m, &p->pg[pg], thr)) {
				mask &= ~bit;
				m->pg_ctr[port][pg].xon_events++;
			}
		} else if (pause_due(m, &p->pg[pg], thr)) {
			mask |= bit;
			m->pg_ctr[port][pg].xoff_events++;
		}
	}
	p->xoff_mask = (uint8_t)mask;
	return (uint8_t)mask;
}
