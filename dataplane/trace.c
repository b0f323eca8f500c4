/* SPDX-License-Identifier: BSD-3-Clause */
/* Path trace rings and the control-side list (protocol in trace.h). */
#include <stdio.h>
#include <stdlib.h>

#include <rte_ring.h>

#include "trace.h"

struct aif_trace *
aif_trace_create(uint16_t sw_index, uint16_t n_workers)
{
	struct aif_trace *tr = calloc(1, sizeof(*tr));
	char name[RTE_RING_NAMESIZE];

	if (tr == NULL || n_workers > RTE_DIM(tr->ring))
		goto err;
	tr->kept = calloc(AIF_TRACE_KEEP, sizeof(*tr->kept));
	if (tr->kept == NULL)
		goto err;
	for (uint16_t w = 0; w < n_workers; w++) {
		snprintf(name, sizeof(name), "aif_trace_%u_%u", sw_index, w);
		tr->ring[w] = rte_ring_create_elem(name, sizeof(struct aif_trace_rec),
						   AIF_TRACE_RING, SOCKET_ID_ANY,
						   RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (tr->ring[w] == NULL)
			goto err;
	}
	return tr;
err:
	aif_trace_free(tr, n_workers);
	return NULL;
}

void
aif_trace_free(struct aif_trace *tr, uint16_t n_workers)
{
	if (tr == NULL)
		return;
	for (uint16_t w = 0; w < n_workers && w < RTE_DIM(tr->ring); w++)
		rte_ring_free(tr->ring[w]);
	free(tr->kept);
	free(tr);
}

void
aif_trace_record(struct aif_trace *tr, uint16_t worker, const struct aif_trace_rec *r)
{
	if (rte_ring_enqueue_elem(tr->ring[worker], (void *)(uintptr_t)r, sizeof(*r)) != 0)
		__atomic_add_fetch(&tr->lost, 1, __ATOMIC_RELAXED);
}

void
aif_trace_drain(struct aif_trace *tr, uint16_t n_workers)
{
	struct aif_trace_rec r;

	for (uint16_t w = 0; w < n_workers; w++)
		while (rte_ring_dequeue_elem(tr->ring[w], &r, sizeof(r)) == 0) {
			if (tr->n_kept < AIF_TRACE_KEEP)
				tr->kept[tr->n_kept++] = r;
			else
				__atomic_add_fetch(&tr->lost, 1, __ATOMIC_RELAXED);
		}
}
