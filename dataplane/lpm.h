/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compact longest-prefix match: a fabric switch's route table.
 *
 * A fabric has hundreds of switches with a few hundred entries each, and
 * DPDK's tables cost it dearly there: DIR24_8 and TRIE start at 64 MiB,
 * and rte_fib's RIB, even alone (RTE_FIB_DUMMY), is a mempool: three of
 * the process's RTE_MAX_MEMZONE (2,560) memzones per table, so a few
 * hundred switches, twice that while a reload builds the new tables, ran
 * out.  This table is one malloc'd block: per prefix length present,
 * longest first, the masked keys in order and their next hops; a lookup
 * tries each length with a binary search (few lengths in a fabric: the
 * hosts' /24s, the links' /31s, the switch's own /32s).  Built once,
 * read-only after, freed with the tables that hold it (tables.h: readers
 * are done after the RCU grace period).
 *
 *	struct aif_lpm *l = aif_lpm_create(AIF_AF_INET4, pf, nh, n, miss);
 *	aif_lpm4_lookup_bulk(l, ips_host_order, nhs, 32);
 *	aif_lpm_free(l);
 */
#ifndef AIF_LPM_H
#define AIF_LPM_H

#include <stdint.h>

#include "types.h"

struct aif_lpm;

/*
 * The table of n entries pf[i] -> nh[i] of one family (entries of the
 * other are skipped; host bits are ignored); of two entries with one
 * prefix the later wins, as a later rte_fib_add would.  A lookup that
 * matches nothing gives miss_nh.  NULL when out of memory.
 */
struct aif_lpm *aif_lpm_create(uint8_t family, const struct aif_prefix *pf,
			       const uint64_t *nh, uint32_t n, uint64_t miss_nh);
void aif_lpm_free(struct aif_lpm *l);
/* Entries held (one per distinct prefix). */
uint32_t aif_lpm_count(const struct aif_lpm *l);

/* ip[i] in host byte order (as rte_fib_lookup_bulk takes them). */
void aif_lpm4_lookup_bulk(const struct aif_lpm *l, const uint32_t *ip, uint64_t *nh,
			  unsigned n);
/* ip[i] 16 bytes in network order (as rte_fib6_lookup_bulk takes them). */
void aif_lpm6_lookup_bulk(const struct aif_lpm *l, const uint8_t (*ip)[16], uint64_t *nh,
			  unsigned n);

#endif /* AIF_LPM_H */
