/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rules a config entry must keep against the rest of its switch: a
 * neighbour, host, next hop or route against the switch's own addresses
 * and connected subnets, a route against the next hops it names.  The
 * config reader (config.c) calls them where it reads the entry and
 * reports the reason at the entry's JSON path; each returns 0, or -1 with
 * the reason in why (no path).
 *
 *	if (aif_config_check_route_prefix(sw, &r->prefix, why, sizeof(why)) < 0)
 *		return fail(c, path, "%s", why);
 */
#ifndef AIF_CONFIG_CHECK_H
#define AIF_CONFIG_CHECK_H

#include <stddef.h>

#include "config.h"

/* The port of sw that has ip as one of its addresses, or -1. */
int aif_config_addr_port(const struct aif_switch_params *sw, const struct aif_ip *ip);

/* A neighbour, host or next hop at ip: not an address of the switch
 * itself (what would answer for it, the switch or the neighbour?). */
int aif_config_check_not_own(const struct aif_switch_params *sw, const struct aif_ip *ip,
			     const char *what, char *why, size_t why_len);

/*
 * A route's prefix (host bits clear) must not take the place of an entry
 * the switch makes itself: one of its addresses (/32, /128: the local
 * entry wins and the route is never used), a connected subnet, or a part
 * of one (longest match would take those hosts from the subnet).
 */
int aif_config_check_route_prefix(const struct aif_switch_params *sw,
				  const struct aif_prefix *pf, char *why, size_t why_len);

/* A route to a group: every member's next hop of the route's family. */
int aif_config_check_route_family(const struct aif_switch_params *sw,
				  const struct aif_route_params *r, char *why, size_t why_len);

#endif /* AIF_CONFIG_CHECK_H */
