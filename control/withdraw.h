/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A written-out fabric (switches and links of a config, no generator; or
 * the part of a generated one a daemon runs, "emulate") routed around the
 * links that are down, as a routing protocol would
 * withdraw what they carried: a route's next hop through a link stays
 * while the switch behind the link can still reach the route's prefix.
 *
 * Reach, computed from the destinations outward (a least fixed point, so
 * routes that only point at each other reach nothing):
 *   - a switch reaches prefix P on its own when a port of it that is up
 *     has an address whose subnet overlaps P;
 *   - a route's next hop through port p is usable when p is up and p is
 *     no link's end (a next hop outside the fabric, or a cut link's end
 *     to a switch another daemon runs: nothing more is known), or the
 *     switch t behind p's link reaches the prefix: on its
 *     own, or by a route of t whose prefix overlaps it through a usable
 *     next hop that does not lead straight back (split horizon).
 * Overlap, not containment: an aggregate (10.0.0.0/8) reaches on as long
 * as any part of it does, as it would for a routing protocol given the
 * same routes.
 *
 * A route whose group has members that are up but not usable takes a copy
 * of the group with those members withdrawn (struct aif_group_params
 * withdrawn; the same name and members, so its member counters and its
 * bucket table carry on); the compiler leaves withdrawn members out as it
 * leaves out members whose link is down.  A route none of whose members
 * is usable keeps its group: withdrawal never empties one (its packets go
 * as they would without it).  Copies are shared by the routes of one
 * group with the same members withdrawn; a switch at AIF_MAX_GROUPS keeps
 * the rest of its routes as they are.
 *
 *	uint8_t up[n_switches * AIF_MAX_PORTS];   // each port's link state
 *	struct aif_config *w = NULL;
 *	if (aif_withdraw(cfg, up, &w, err, sizeof(err)) != 0) ... out of memory
 *	compile from w != NULL ? w : cfg;
 *	aif_withdraw_free(w, cfg);
 */
#ifndef AIF_WITHDRAW_H
#define AIF_WITHDRAW_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* *out: NULL when nothing is withdrawn, else a copy of cfg sharing all but
 * its switches' groups and routes (aif_withdraw_free).  port_up[s *
 * AIF_MAX_PORTS + p]: switch s's port p is up.  0, or -1 with err (out of
 * memory). */
int aif_withdraw(const struct aif_config *cfg, const uint8_t *port_up,
		 struct aif_config **out, char *err, size_t err_len);

/* Frees what aif_withdraw made of base (w NULL: nothing). */
void aif_withdraw_free(struct aif_config *w, const struct aif_config *base);

#endif /* AIF_WITHDRAW_H */
