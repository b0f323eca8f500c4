/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fewest-delay paths between switches (paths.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../dataplane/wire.h"
#include "fabric.h"
#include "paths.h"

#define FAR (UINT64_MAX / 4) /* no path (a sum of two stays above any) */

uint64_t
aif_paths_ser_ps(uint8_t m, uint32_t wire, uint64_t rate_bps)
{
	return rate_bps ? aif_wire_ser_ps((enum aif_wire_model)m, wire, rate_bps) : 0;
}

uint64_t
aif_paths_payload_ns(uint32_t mtu, uint64_t rate_bps)
{
	return rate_bps ? (uint64_t)mtu * 8000000000ull / rate_bps : 0;
}

void
aif_paths_free(struct aif_paths *p)
{
	free(p->data_ps);
	free(p->ack_ps);
	free(p->prop_ns);
	free(p->tx_ns);
	free(p->rate_bps);
	free(p->hops);
	free(p->row);
	memset(p, 0, sizeof(*p));
}

/* One link's figures, as a path of one link. */
struct hop {
	uint64_t data_ps, ack_ps, prop_ns, tx_ns, rate_bps;
};

static struct hop
hop_of(const struct aif_config *cfg, uint32_t k, const uint32_t *data_wire,
       const uint32_t *ack_wire, uint32_t mtu)
{
	const struct aif_topo_link *l = &cfg->links[k];
	uint64_t rate = aif_fabric_link_rate_bps(cfg, k);
	uint8_t wm = l->wire_model < AIF_WIRE_MODEL_MAX ? l->wire_model : AIF_WIRE_ETHERNET;

	return (struct hop){
		.data_ps = l->delay_ns * 1000 + aif_paths_ser_ps(wm, data_wire[wm], rate),
		.ack_ps = l->delay_ns * 1000 + aif_paths_ser_ps(wm, ack_wire[wm], rate),
		.prop_ns = l->delay_ns, .tx_ns = aif_paths_payload_ns(mtu, rate), .rate_bps = rate,
	};
}

static void
floyd(struct aif_paths *p)
{
	uint32_t n = p->n;

	for (uint32_t k = 0; k < n; k++)
		for (uint32_t i = 0; i < n; i++) {
			size_t ik = (size_t)i * n + k;
			if (p->data_ps[ik] >= FAR)
				continue; /* nothing through k from i (no sum would win) */
			for (uint32_t j = 0; j < n; j++) {
				size_t ij = (size_t)i * n + j, kj = (size_t)k * n + j;
				uint64_t x = p->data_ps[ik] + p->data_ps[kj];
				if (x < p->data_ps[ij]) {
					p->data_ps[ij] = x;
					p->ack_ps[ij] = p->ack_ps[ik] + p->ack_ps[kj];
					p->prop_ns[ij] = p->prop_ns[ik] + p->prop_ns[kj];
					p->tx_ns[ij] = p->tx_ns[ik] + p->tx_ns[kj];
					p->rate_bps[ij] = p->rate_bps[ik] < p->rate_bps[kj]
							  ? p->rate_bps[ik] : p->rate_bps[kj];
					p->hops[ij] = p->hops[ik] + p->hops[kj];
				}
			}
		}
}

int
aif_paths_links_of(const struct aif_config *cfg, uint32_t **first_out, uint32_t **at_out)
{
	uint32_t n = cfg->n_switches, m = cfg->n_links;
	uint32_t *first = calloc(n + 2u, sizeof(*first));
	uint32_t *at = malloc((2 * (size_t)m + 1) * sizeof(*at));

	*first_out = *at_out = NULL;
	if (first == NULL || at == NULL) {
		free(first);
		free(at);
		return -1;
	}
	/* counted at first[s + 2], summed to the starts at first[s + 1], then
	 * each link put at first[s + 1]++, which leaves first[s] the start */
	for (uint32_t k = 0; k < m; k++) {
		const struct aif_topo_link *l = &cfg->links[k];
		if (l->a_switch < n)
			first[l->a_switch + 2]++;
		if (l->b_switch < n && l->b_switch != l->a_switch)
			first[l->b_switch + 2]++;
	}
	for (uint32_t s = 0; s < n; s++)
		first[s + 2] += first[s + 1];
	for (uint32_t k = 0; k < m; k++) {
		const struct aif_topo_link *l = &cfg->links[k];
		if (l->a_switch < n)
			at[first[l->a_switch + 1]++] = k;
		if (l->b_switch < n && l->b_switch != l->a_switch)
			at[first[l->b_switch + 1]++] = k;
	}
	*first_out = first;
	*at_out = at;
	return 0;
}

/* Tables of n x n entries, each no path but a switch's to itself (the
 * row's own column).  0, or -1 out of memory. */
static int
tables_make(struct aif_paths *p, uint32_t n)
{
	size_t nn = (size_t)n * n;

	p->n = n;
	p->data_ps = malloc(sizeof(uint64_t) * (nn ? nn : 1));
	p->ack_ps = malloc(sizeof(uint64_t) * (nn ? nn : 1));
	p->prop_ns = malloc(sizeof(uint64_t) * (nn ? nn : 1));
	p->tx_ns = malloc(sizeof(uint64_t) * (nn ? nn : 1));
	p->rate_bps = malloc(sizeof(uint64_t) * (nn ? nn : 1));
	p->hops = malloc(sizeof(uint32_t) * (nn ? nn : 1));
	if (p->data_ps == NULL || p->ack_ps == NULL || p->prop_ns == NULL || p->tx_ns == NULL ||
	    p->rate_bps == NULL || p->hops == NULL)
		return -1;
	for (size_t i = 0; i < nn; i++) {
		p->data_ps[i] = p->ack_ps[i] = i % (n + 1) == 0 ? 0 : FAR;
		p->prop_ns[i] = p->tx_ns[i] = 0;
		p->rate_bps[i] = UINT64_MAX;
		p->hops[i] = 0;
	}
	return 0;
}

/* Every link the same (h): the fewest links are the fewest delay, a path
 * of h links h times the link's figures; a search from each switch with a
 * row, to the others with one.  0, or -1 out of memory. */
static int
search(struct aif_paths *p, const struct aif_config *cfg, const struct hop *h)
{
	uint32_t n = cfg->n_switches, *first, *at;
	uint32_t *queue = malloc(n * sizeof(*queue)), *dist = malloc(n * sizeof(*dist));
	int rc = -1;

	if (queue == NULL || dist == NULL || aif_paths_links_of(cfg, &first, &at) != 0)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		if (p->row[i] == UINT32_MAX)
			continue;
		uint32_t head = 0, tail = 0;
		for (uint32_t j = 0; j < n; j++)
			dist[j] = UINT32_MAX;
		dist[i] = 0;
		queue[tail++] = i;
		while (head < tail) {
			uint32_t s = queue[head++];
			for (uint32_t e = first[s]; e < first[s + 1]; e++) {
				const struct aif_topo_link *l = &cfg->links[at[e]];
				uint32_t x = l->a_switch == s ? l->b_switch : l->a_switch;
				if (dist[x] == UINT32_MAX) {
					dist[x] = dist[s] + 1;
					queue[tail++] = x;
				}
			}
		}
		for (uint32_t j = 0; j < n; j++) {
			if (j == i || dist[j] == UINT32_MAX || p->row[j] == UINT32_MAX)
				continue;
			size_t ij = aif_paths_at(p, i, j);
			p->data_ps[ij] = dist[j] * h->data_ps;
			p->ack_ps[ij] = dist[j] * h->ack_ps;
			p->prop_ns[ij] = dist[j] * h->prop_ns;
			p->tx_ns[ij] = dist[j] * h->tx_ns;
			p->rate_bps[ij] = h->rate_bps;
			p->hops[ij] = dist[j];
		}
	}
	rc = 0;
	free(first);
	free(at);
out:
	free(queue);
	free(dist);
	return rc;
}

int
aif_paths_build(struct aif_paths *p, const struct aif_config *cfg, const uint32_t *data_wire,
		const uint32_t *ack_wire, uint32_t mtu, bool use_floyd, const bool *ends)
{
	uint32_t n = cfg->n_switches;

	memset(p, 0, sizeof(*p));
	/* the links, the fastest of parallel ones; are they all the same? */
	bool same = cfg->n_links > 0;
	struct hop h0 = { 0 };
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		struct hop h = hop_of(cfg, k, data_wire, ack_wire, mtu);
		if (k == 0)
			h0 = h;
		same = same && memcmp(&h, &h0, sizeof(h)) == 0 && h.data_ps > 0;
	}
	bool by_search = same && !use_floyd;
	/* rows: the ends for the search, every switch for Floyd-Warshall
	 * (its paths go through any) */
	uint32_t rows = 0;
	if ((p->row = malloc(sizeof(*p->row) * (n ? n : 1))) == NULL)
		return -1;
	for (uint32_t s = 0; s < n; s++)
		p->row[s] = !by_search || ends == NULL || ends[s] ? rows++ : UINT32_MAX;
	if (tables_make(p, rows) != 0) {
		aif_paths_free(p);
		return -1;
	}
	if (by_search) {
		if (search(p, cfg, &h0) != 0) {
			aif_paths_free(p);
			return -1;
		}
		return 0;
	}
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *l = &cfg->links[k];
		struct hop h = hop_of(cfg, k, data_wire, ack_wire, mtu);
		size_t ab = aif_paths_at(p, l->a_switch, l->b_switch);
		size_t ba = aif_paths_at(p, l->b_switch, l->a_switch);
		if (h.data_ps < p->data_ps[ab]) {
			p->data_ps[ab] = p->data_ps[ba] = h.data_ps;
			p->ack_ps[ab] = p->ack_ps[ba] = h.ack_ps;
			p->prop_ns[ab] = p->prop_ns[ba] = h.prop_ns;
			p->tx_ns[ab] = p->tx_ns[ba] = h.tx_ns;
			p->rate_bps[ab] = p->rate_bps[ba] = h.rate_bps;
			p->hops[ab] = p->hops[ba] = 1;
		}
	}
	floyd(p);
	return 0;
}

static int
kind_cmp(const void *x, const void *y)
{
	const struct aif_peer_kind *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw < b->sw ? -1 : 1;
	if (a->wire_ps != b->wire_ps)
		return a->wire_ps < b->wire_ps ? -1 : 1;
	if (a->cable_ns != b->cable_ns)
		return a->cable_ns < b->cable_ns ? -1 : 1;
	return a->host < b->host ? -1 : a->host > b->host;
}

int
aif_paths_farthest(struct aif_peer_kind *k, uint32_t n,
		   aif_time_ns (*rtt)(uint32_t a, uint32_t b, void *arg), void *arg, aif_time_ns *far)
{
	uint32_t *first = malloc(sizeof(*first) * (n + 1u)), n_kinds = 0;

	if (first == NULL)
		return -1;
	qsort(k, n, sizeof(*k), kind_cmp);
	for (uint32_t i = 0; i < n; i++)
		if (i == 0 || k[i].sw != k[i - 1].sw || k[i].wire_ps != k[i - 1].wire_ps ||
		    k[i].cable_ns != k[i - 1].cable_ns)
			first[n_kinds++] = i;
	first[n_kinds] = n;
	/* each kind's farthest, from its first host; its hosts take it */
	for (uint32_t a = 0; a < n_kinds; a++) {
		uint64_t f = 0;
		uint32_t h = k[first[a]].host;
		for (uint32_t c = 0; c < n_kinds; c++) {
			if (c == a && first[c + 1] - first[c] == 1)
				continue; /* h alone of its kind */
			uint64_t x = rtt(h, k[first[c]].host, arg);
			f = x > f ? x : f;
		}
		for (uint32_t i = first[a]; i < first[a + 1]; i++)
			far[k[i].host] = f;
	}
	free(first);
	return 0;
}
