/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pool and its spares (mbuf.h).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "mbuf.h"

#define SPARE_BASES 4   /* pools with spares at once */
#define SPARES_MAX 32   /* each as large as the pool */

struct spares {
	struct rte_mempool *base;
	rte_spinlock_t lock;           /* publishing a spare (and making one here) */
	unsigned n;                    /* spares published (release) */
	struct rte_mempool *pool[SPARES_MAX];
	bool closed;                   /* a spare could not be made: no more tries */
	uint64_t failed;
	/* the next spare made ahead, on a thread of its own (the helper):
	 * asked for when the newest is first taken from; an allocation that
	 * finds every pool empty while one is asked waits for it */
	unsigned asked;                /* spares asked for (atomic; under mu) */
	bool helper_on, stop;          /* (under mu) */
	pthread_t helper;
	pthread_mutex_t mu;
	pthread_cond_t cv;             /* asked, stop (helper); made (settle) */
};

static struct spares spare_of[SPARE_BASES];
static unsigned spare_seq; /* names: one a spare, never used twice in a process */

struct rte_mempool *aif_mbuf_small_pool, *aif_mbuf_large_pool;

void
aif_mbuf_small_set(struct rte_mempool *small, struct rte_mempool *large)
{
	aif_mbuf_small_pool = small;
	aif_mbuf_large_pool = small != NULL ? large : NULL;
}

/* The spares of pool: pool is their base, or one of them. */
static struct spares *
find(const struct rte_mempool *pool)
{
	for (unsigned i = 0; i < SPARE_BASES; i++) {
		struct spares *s = &spare_of[i];
		if (s->base == NULL)
			continue;
		if (s->base == pool)
			return s;
		unsigned n = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
		for (unsigned k = 0; k < n; k++)
			if (s->pool[k] == pool)
				return s;
	}
	return NULL;
}

/* The spares whose base is pool (NULL: it has none, or is a spare itself). */
static struct spares *
spares_of_base(const struct rte_mempool *pool)
{
	struct spares *s = find(pool);

	return s != NULL && s->base == pool ? s : NULL;
}

int
aif_mbuf_spares_enable(struct rte_mempool *pool)
{
	if (find(pool) != NULL)
		return 0;
	for (unsigned i = 0; i < SPARE_BASES; i++)
		if (spare_of[i].base == NULL) {
			spare_of[i] = (struct spares){ .base = pool };
			rte_spinlock_init(&spare_of[i].lock);
			pthread_mutex_init(&spare_of[i].mu, NULL);
			pthread_cond_init(&spare_of[i].cv, NULL);
			return 0;
		}
	return -1;
}

/* A spare's memory: anonymous pages, not DPDK's (hugepages are few and
 * shared, and -m caps the rest); no device reads it in virtual time, so it
 * has no IO address. */
struct chunk {
	void *addr;
	size_t len;
};

static void
chunk_unmap(struct rte_mempool_memhdr *memhdr, void *opaque)
{
	struct chunk *c = opaque;

	(void)memhdr;
	munmap(c->addr, c->len);
	free(c);
}

/* n mbufs as base's (room, private area, cache), named name. */
static struct rte_mempool *
spare_make(const struct rte_mempool *base, unsigned n, const char *name)
{
	struct rte_pktmbuf_pool_private pp = {
		.mbuf_data_room_size = rte_pktmbuf_data_room_size((struct rte_mempool *)base),
		.mbuf_priv_size = rte_pktmbuf_priv_size((struct rte_mempool *)base),
	};
	struct rte_mempool *mp = rte_mempool_create_empty(
		name, n, sizeof(struct rte_mbuf) + pp.mbuf_priv_size + pp.mbuf_data_room_size,
		base->cache_size, sizeof(pp), base->socket_id, RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	struct chunk *c = NULL;

	if (mp == NULL)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL) != 0)
		goto err;
	rte_pktmbuf_pool_init(mp, &pp);
	/* the objects one after the other (headers, mbufs, trailers), the
	 * first on a cache line (pages ignored: nothing maps them for IO) */
	size_t len = (size_t)n * (mp->header_size + mp->elt_size + mp->trailer_size) +
		     RTE_MEMPOOL_ALIGN;
	if ((c = malloc(sizeof(*c))) == NULL)
		goto err;
	c->len = len;
	c->addr = mmap(NULL, c->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->addr == MAP_FAILED)
		goto err;
	if (rte_mempool_populate_iova(mp, c->addr, RTE_BAD_IOVA, len, chunk_unmap, c) <= 0) {
		munmap(c->addr, c->len);
		goto err;
	}
	c = NULL; /* the pool's now: unmapped when it is freed */
	if (mp->populated_size != n)
		goto err;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
err:
	free(c);
	rte_mempool_free(mp);
	return NULL;
}

/* The newest spares first (the older ones are the likelier empty), but
 * the newest of all last: it is the one made ahead, kept until every other
 * is empty (taking from it asks for the next).  *k: which one it came
 * from. */
static struct rte_mbuf *
from_spares(struct spares *s, unsigned n, unsigned *k)
{
	struct rte_mbuf *m;

	if (n == 0)
		return NULL;
	for (*k = n - 1; (*k)-- > 0;)
		if ((m = rte_pktmbuf_alloc(s->pool[*k])) != NULL)
			return m;
	*k = n - 1;
	return rte_pktmbuf_alloc(s->pool[n - 1]);
}

/* A new spare, as large as the pool (at most a pool's worth unused);
 * NULL: no memory. */
static struct rte_mempool *
spare_new(const struct spares *s)
{
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "aif_spare%u",
		 __atomic_fetch_add(&spare_seq, 1, __ATOMIC_RELAXED));
	return spare_make(s->base, s->base->size, name);
}

/* Publish sp (NULL: none could be made, no more tries); under s->lock.
 * false: no room for it (freed). */
static bool
publish(struct spares *s, struct rte_mempool *sp)
{
	if (sp == NULL) {
		__atomic_store_n(&s->closed, true, __ATOMIC_RELEASE);
		return false;
	}
	if (s->n == SPARES_MAX) {
		rte_mempool_free(sp);
		return false;
	}
	s->pool[s->n] = sp;
	__atomic_store_n(&s->n, s->n + 1, __ATOMIC_RELEASE);
	return true;
}

/* The helper: makes the spares asked for, one at a time. */
static void *
helper_run(void *arg)
{
	struct spares *s = arg;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (!s->stop && (__atomic_load_n(&s->closed, __ATOMIC_ACQUIRE) ||
				    __atomic_load_n(&s->n, __ATOMIC_ACQUIRE) >= s->asked))
			pthread_cond_wait(&s->cv, &s->mu);
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->mu);
		struct rte_mempool *sp = spare_new(s);
		rte_spinlock_lock(&s->lock);
		publish(s, sp);
		rte_spinlock_unlock(&s->lock);
		pthread_mutex_lock(&s->mu);
		pthread_cond_broadcast(&s->cv); /* (settle) */
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

/* Spare n (0: the first) is in use: ask the helper for the next. */
static void
ask_next(struct spares *s, unsigned n)
{
	unsigned want = n + 1;

	if (__atomic_load_n(&s->asked, __ATOMIC_RELAXED) >= want || want > SPARES_MAX)
		return;
	pthread_mutex_lock(&s->mu);
	if (!s->helper_on && !s->stop &&
	    rte_ctrl_thread_create(&s->helper, "aif-spares", NULL, helper_run, s) == 0)
		s->helper_on = true;
	if (s->helper_on && s->asked < want) {
		__atomic_store_n(&s->asked, want, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
}

/* An mbuf of a spare, the helper's next asked for when it is the newest's
 * first. */
static struct rte_mbuf *
taken(struct spares *s, struct rte_mbuf *m, unsigned k, unsigned n)
{
	if (m != NULL && k + 1 == n)
		ask_next(s, n);
	return m;
}

struct rte_mbuf *
aif_mbuf_alloc_spare(struct rte_mempool *pool)
{
	struct spares *s = find(pool);
	unsigned k;

	if (s == NULL)
		return NULL;
	unsigned n = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
	struct rte_mbuf *m = pool != s->base ? rte_pktmbuf_alloc(s->base) : NULL;
	if (m != NULL)
		return m;
	if ((m = from_spares(s, n, &k)) != NULL)
		return taken(s, m, k, n);
	/* every pool empty: the helper's spare, when one is asked */
	while (__atomic_load_n(&s->asked, __ATOMIC_ACQUIRE) > n &&
	       !__atomic_load_n(&s->closed, __ATOMIC_ACQUIRE)) {
		unsigned now = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
		if (now != n) {
			n = now;
			if ((m = from_spares(s, n, &k)) != NULL)
				return taken(s, m, k, n);
		} else {
			rte_pause();
		}
	}
	/* else made here, as the helper would */
	rte_spinlock_lock(&s->lock);
	if (s->n != n) { /* another runner made one meanwhile */
		n = s->n;
		m = from_spares(s, n, &k);
		if (m != NULL) {
			rte_spinlock_unlock(&s->lock);
			return taken(s, m, k, n);
		}
	}
	if (s->n < SPARES_MAX && !s->closed && publish(s, spare_new(s))) {
		n = s->n;
		m = rte_pktmbuf_alloc(s->pool[n - 1]);
	}
	if (m == NULL)
		__atomic_add_fetch(&s->failed, 1, __ATOMIC_RELAXED);
	rte_spinlock_unlock(&s->lock);
	return taken(s, m, n - 1, n);
}

void
aif_mbuf_spares_settle(struct rte_mempool *pool)
{
	struct spares *s = spares_of_base(pool);

	if (s == NULL)
		return;
	pthread_mutex_lock(&s->mu);
	while (s->helper_on && !__atomic_load_n(&s->closed, __ATOMIC_ACQUIRE) &&
	       __atomic_load_n(&s->n, __ATOMIC_ACQUIRE) < s->asked)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

void
aif_mbuf_spares_info(const struct rte_mempool *pool, struct aif_mbuf_spares_info *info)
{
	const struct spares *s = spares_of_base(pool);

	*info = (struct aif_mbuf_spares_info){ .size = pool->size,
					       .in_use = rte_mempool_in_use_count(pool) };
	if (s == NULL)
		return;
	unsigned n = __atomic_load_n(&s->n, __ATOMIC_ACQUIRE);
	info->pools = n;
	info->failed = __atomic_load_n(&s->failed, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < n; k++) {
		info->size += s->pool[k]->size;
		info->in_use += rte_mempool_in_use_count(s->pool[k]);
	}
}

unsigned
aif_mbuf_held(const struct rte_mempool *pool)
{
	struct aif_mbuf_spares_info i, k = { 0 };

	aif_mbuf_spares_info(pool, &i);
	if (aif_mbuf_small_pool != NULL && aif_mbuf_large_pool == pool)
		aif_mbuf_spares_info(aif_mbuf_small_pool, &k);
	return i.in_use + k.in_use;
}

void
aif_mbuf_spares_free(struct rte_mempool *pool)
{
	struct spares *s = spares_of_base(pool);

	if (s == NULL)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	if (s->helper_on)
		pthread_join(s->helper, NULL);
	for (unsigned k = 0; k < s->n; k++)
		rte_mempool_free(s->pool[k]);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	*s = (struct spares){ 0 };
}
