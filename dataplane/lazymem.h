/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zeroed memory that costs only what is touched: an anonymous mapping,
 * whose 4 KiB pages the kernel backs on first write.  For tables sized by
 * a limit and used far below it (a shard's 8,192 member counter slots, of
 * which a fat-tree switch uses its ports'), where DPDK's heap would hold
 * them all in hugepages (a k=28 fat-tree's 980 shards: 370 MiB).  Not for
 * what the packet path walks through (a link's ring): those want the
 * hugepages' TLB reach.  A primitive.
 *
 *	uint64_t *x = aif_lazy_zalloc(n * sizeof(*x));   // NULL: no memory
 *	aif_lazy_free(x, n * sizeof(*x));
 */
#ifndef AIF_LAZYMEM_H
#define AIF_LAZYMEM_H

#include <stddef.h>

#include <sys/mman.h>

static inline void *
aif_lazy_zalloc(size_t size)
{
	void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/* p from aif_lazy_zalloc(size), or NULL. */
static inline void
aif_lazy_free(void *p, size_t size)
{
	if (p != NULL)
		munmap(p, size ? size : 1);
}

#endif /* AIF_LAZYMEM_H */
