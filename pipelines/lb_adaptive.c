/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing scheme adaptive (Broadcom DLB, Spectrum-X adaptive
 * routing): every egress port has a quality band 0 (best) .. 7 (worst),
 * refreshed once per adaptive_period_ns from the port's recent transmitted
 * load and its queued bytes; a packet goes to a member in the best band.
 *
 * Bands (aif_lb_adaptive_tick, called by the worker at the start of each
 * step; it does nothing while now_ns < st->next_band_ns):
 *   rate_bps  = 8e9 * (tx_bytes - last_tx_bytes) / (now_ns - last_band_ns)
 *               (bytes this worker sent on the port since the last refresh;
 *               the first refresh measures from time 0, where the clock and
 *               the counters start; a counter that went backwards counts 0)
 *   load_ewma += (rate_bps - load_ewma) / 2^ewma_shift, in integers:
 *               ewma + ((rate - ewma) >> s) when rate >= ewma, else
 *               ewma - ((ewma - rate) >> s), shift capped at 63
 *   band_load = min(7, floor(8 * load_ewma / speed_bps)): eighths of the
 *               line rate; 0 when the speed is unknown (0)
 *   band_q    = number of these thresholds that queued bytes reach:
 *               1 KiB, 4 KiB, 16 KiB, 64 KiB, 256 KiB, 512 KiB, 1 MiB
 *               (log2 steps of 2 up to 256 KiB, then of 1), so
 *               < 1 KiB -> 0, [1, 4) KiB -> 1, ..., >= 1 MiB -> 7
 *   band      = max(band_load, band_q)
 *   next_band_ns = now_ns + period (not next + period: a late step does not
 *   bring a burst of refreshes).
 *
 * Select: among the members whose link is up (all when none is), those
 * whose port has the lowest band; among them the one
 * with the highest weight(flow hash, member ctr_slot) (rendezvous hashing;
 * weight = murmur3 fmix32 of hash ^ ctr_slot * 0x9E3779B9, ties to the
 * lower offset).  So a flow stays on its member while bands do not change,
 * flows spread evenly over the tied members, and when a member leaves the
 * best band only its own flows move (when one joins, only the flows that now
 * weigh it highest, about 1/k of them): fewer reorders than hash mod k,
 * which would remap most flows at every band change.  ctr_slot, not the
 * offset, names the member, so a new table that removes another member does
 * not remap the flows either.  Cost: one fmix32 per member in the best band
 * so far, per packet.
 * "mode": "packet": every packet takes that pick (Spectrum-X); "flowlet":
 * the flowlet table of lb_flowlet.c (flowlet_gap_ns, flowlet_age_ns,
 * flowlet_table_size, the same counters), a new flowlet takes that pick and
 * an open one keeps its member (DLB flowset mode); flows that share a table
 * entry share its flowlet, so none moves inside its own (lb_flowlet.c).
 *
 * Reads:  pkt->hash; st->band[]; ctx now_ns; params adaptive_mode (and the
 *         flowlet params in flowlet mode).
 * Writes: the flowlet table and counters in flowlet mode; the tick writes
 *         next_band_ns, last_band_ns, last_tx_bytes, load_ewma_bps, band.
 * Random draws: none.
 */
#include "lb.h"

static const uint32_t qbytes_band_min[7] = {
	1u << 10, 1u << 12, 1u << 14, 1u << 16, 1u << 18, 1u << 19, 1u << 20,
};

uint8_t
aif_lb_qbytes_band(uint32_t qbytes)
{
	uint8_t b = 0;

	while (b < 7 && qbytes >= qbytes_band_min[b])
		b++;
	return b;
}

void
aif_lb_adaptive_tick(struct aif_lb_state *st, const struct aif_lb_params *p,
		     const uint64_t *port_tx_bytes, const uint32_t *port_qbytes,
		     const uint64_t *port_speed_bps, uint16_t n_ports,
		     aif_time_ns now_ns)
{
	aif_time_ns dt_ns;
	unsigned shift;

	if (now_ns < st->next_band_ns)
		return;
	dt_ns = now_ns - st->last_band_ns;
	shift = p->adaptive_ewma_shift < 63 ? p->adaptive_ewma_shift : 63;
	if (n_ports > AIF_MAX_PORTS)
		n_ports = AIF_MAX_PORTS;
	for (uint16_t i = 0; i < n_ports; i++) {
		uint64_t tx = port_tx_bytes[i];
		uint64_t ewma = st->load_ewma_bps[i];
		uint8_t band_load = 0, band_q;

		if (dt_ns > 0) {
			uint64_t sent = tx >= st->last_tx_bytes[i] ? tx - st->last_tx_bytes[i] : 0;
			uint64_t rate = (uint64_t)((unsigned __int128)sent * 8 * AIF_NS_PER_S / dt_ns);
			if (rate >= ewma)
				ewma += (rate - ewma) >> shift;
			else
				ewma -= (ewma - rate) >> shift;
			st->load_ewma_bps[i] = ewma;
		}
		st->last_tx_bytes[i] = tx;
		if (port_speed_bps[i] > 0) {
			unsigned __int128 eighths = (unsigned __int128)ewma * 8 / port_speed_bps[i];
			band_load = eighths >= 7 ? 7 : (uint8_t)eighths;
		}
		band_q = aif_lb_qbytes_band(port_qbytes[i]);
		st->band[i] = band_load > band_q ? band_load : band_q;
	}
	st->last_band_ns = now_ns;
	st->next_band_ns = now_ns + p->adaptive_period_ns;
}

/* A flow's weight for a member (murmur3 fmix32 of hash and counter slot). */
static inline uint32_t
weight(uint32_t hash, uint32_t ctr_slot)
{
	uint32_t h = hash ^ (ctr_slot * 0x9E3779B9u);

	h ^= h >> 16;
	h *= 0x85EBCA6Bu;
	h ^= h >> 13;
	h *= 0xC2B2AE35u;
	h ^= h >> 16;
	return h;
}

/* Lowest band; among the tied, the flow's highest weight (rendezvous). */
static uint32_t
pick_best_band(const struct aif_group *g, const struct aif_member *members,
	       const struct aif_pkt *m, struct aif_lb_ctx *x)
{
	const uint8_t *band = x->st->band;
	uint32_t n = aif_lb_up_n(g), pick = aif_lb_up_at(g, 0);
	uint8_t best = band[members[pick].port];
	uint32_t best_w = weight(m->hash, members[pick].ctr_slot);

	for (uint32_t i = 1; i < n; i++) {
		uint32_t k = aif_lb_up_at(g, i);
		uint8_t b = band[members[k].port];
		uint32_t w;
		if (b > best)
			continue;
		w = weight(m->hash, members[k].ctr_slot);
		if (b < best || w > best_w) {
			best = b;
			best_w = w;
			pick = k;
		}
	}
	return pick;
}

uint32_t
aif_lb_adaptive_select(const struct aif_group *g, const struct aif_member *members,
		       const uint8_t *buckets, const struct aif_pkt *m,
		       struct aif_lb_ctx *x)
{
	(void)buckets;
	if (x->p->adaptive_mode == AIF_ADAPTIVE_FLOWLET)
		return aif_lb_flowlet_track(g, members, m, x, pick_best_band);
	return pick_best_band(g, members, m, x);
}
