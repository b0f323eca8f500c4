/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules between a config entry and the rest of its switch (config.h). */
#include <stdio.h>
#include <string.h>

#include "config.h"

int
aif_config_addr_port(const struct aif_switch_params *sw, const struct aif_ip *ip)
{
	for (uint16_t p = 0; p < sw->n_ports; p++)
		for (unsigned i = 0; i < sw->ports[p].n_addrs; i++)
			if (aif_ip_equal(&sw->ports[p].addrs[i].addr, ip))
				return p;
	return -1;
}

int
aif_config_check_not_own(const struct aif_switch_params *sw, const struct aif_ip *ip,
			 const char *what, char *why, size_t why_len)
{
	int p = aif_config_addr_port(sw, ip);
	char buf[64];

	if (p < 0)
		return 0;
	snprintf(why, why_len, "%s %s is an address of this switch (port %s)", what,
		 aif_ip_fmt(ip, buf, sizeof(buf)), sw->ports[p].name);
	return -1;
}

int
aif_config_check_route_prefix(const struct aif_switch_params *sw,
			      const struct aif_prefix *pf, char *why, size_t why_len)
{
	unsigned int host_len = pf->addr.family == AIF_AF_INET4 ? 32 : 128;
	char buf[64], net_buf[64];
	int own;

	/* (the prefix written out only for an error: a generated fabric's
	 * switches have 100,000 routes) */
	if (pf->len == host_len && (own = aif_config_addr_port(sw, &pf->addr)) >= 0) {
		snprintf(why, why_len, "%s is an address of this switch (port %s); a route to "
			 "it would never be used", aif_prefix_fmt(pf, buf, sizeof(buf)),
			 sw->ports[own].name);
		return -1;
	}
	for (uint16_t p = 0; p < sw->n_ports; p++)
		for (unsigned i = 0; i < sw->ports[p].n_addrs; i++) {
			struct aif_prefix net = sw->ports[p].addrs[i];

			if (net.addr.family != pf->addr.family || pf->len < net.len ||
			    !aif_prefix_contains(&net, &pf->addr))
				continue;
			aif_prefix_normalize(&net);
			aif_prefix_fmt(pf, buf, sizeof(buf));
			if (pf->len == net.len)
				snprintf(why, why_len, "%s is the connected subnet of port %s; a "
					 "route would replace it and cut off its hosts", buf,
					 sw->ports[p].name);
			else
				snprintf(why, why_len, "%s is inside %s, the connected subnet of "
					 "port %s; a route would take those hosts from it", buf,
					 aif_prefix_fmt(&net, net_buf, sizeof(net_buf)),
					 sw->ports[p].name);
			return -1;
		}
	return 0;
}

int
aif_config_check_route_family(const struct aif_switch_params *sw,
			      const struct aif_route_params *r, char *why, size_t why_len)
{
	const struct aif_group_params *g;
	char buf[64];

	if (r->kind != AIF_ROUTE_GROUP || r->group >= sw->n_groups)
		return 0;
	g = &sw->groups[r->group];
	for (uint16_t m = 0; m < g->n_members; m++) {
		const struct aif_nexthop_params *nh = &g->members[m];
		const char *rf = r->prefix.addr.family == AIF_AF_INET4 ? "IPv4" : "IPv6";
		const char *mf = nh->ip.family == AIF_AF_INET4 ? "IPv4" : "IPv6";

		if (nh->ip.family == r->prefix.addr.family)
			continue;
		aif_ip_fmt(&nh->ip, buf, sizeof(buf));
		if (strchr(g->name, '@') != NULL) /* a route's own "nexthop" */
			snprintf(why, why_len, "an %s route cannot go through the %s next hop %s",
				 rf, mf, buf);
		else
			snprintf(why, why_len, "an %s route cannot use group '%s': its member "
				 "%s@%s is %s", rf, g->name, buf, sw->ports[nh->port].name, mf);
		return -1;
	}
	return 0;
}
