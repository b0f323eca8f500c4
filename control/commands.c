/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control command handlers (list in commands.h).  They run on the control
 * thread only; the one that changes forwarding (load) builds new tables and
 * publishes them, the others read the published tables, the neighbour
 * table's control-side bookkeeping and the summed counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "../dataplane/capture.h"
#include "../dataplane/qos.h"
#include "../dataplane/runner.h"
#include "../pipelines/lb.h"
#include "commands.h"
#include "compile.h"
#include "config.h"
#include "ctl_commands.h"
#include "ctl_server.h"
#include "fabric.h"
#include "reroute.h"
#include "withdraw.h"

static json_t *
ip_json(const struct aif_ip *ip)
{
	char buf[64];
	return json_string(aif_ip_fmt(ip, buf, sizeof(buf)));
}

static json_t *
mac_json(const struct aif_mac *m)
{
	char buf[32];
	return json_string(aif_mac_fmt(m, buf, sizeof(buf)));
}

static json_t *
prefix_json(const struct aif_prefix *p)
{
	char buf[64];
	return json_string(aif_prefix_fmt(p, buf, sizeof(buf)));
}

static const struct aif_tables *
tables(const struct aif_ctl *c)
{
	return c->sw != NULL ? c->sw->tables : NULL;
}

/*
 * One switch: its name, ports, workers (shards) and config generation.  A
 * fabric: every switch by name, the ports of all of them, its links, and
 * the generation its switches share (each load and link change publishes
 * to all of them at once).
 */
static json_t *
cmd_status(struct aif_ctl *c)
{
	const struct aif_tables *t = tables(c);
	double up = (double)(aif_clock_now(&c->clock) - c->start_ns) / 1e9;
	unsigned ports = 0;
	json_t *names = json_array();

	for (uint16_t i = 0; i < c->n_sw; i++) {
		json_array_append_new(names, json_string(c->sws[i]->name));
		ports += c->sws[i]->n_ports;
	}
	json_t *st = json_pack("{s:s, s:f, s:i, s:i, s:I, s:I, s:I}",
			 "version", AIF_VERSION, "uptime_s", up,
			 "workers", c->n_runners ? c->n_runners : c->sw->n_shards, "ports", ports,
			 "config_generation", (json_int_t)(t ? t->generation : 0),
			 "loads_ok", (json_int_t)c->loads_ok,
			 "loads_rejected", (json_int_t)c->loads_rejected);
	if (c->n_sw == 1)
		json_object_set_new(st, "switch", json_string(c->sw->name));
	else
		json_object_set_new(st, "links", json_integer(c->n_links));
	json_object_set_new(st, "link_rebuilds", json_integer((json_int_t)c->link_rebuilds));
	if (c->behind_ns != NULL) /* real time, paced: the emulation's lag so far */
		json_object_set_new(st, "behind_ns", json_integer((json_int_t)__atomic_load_n(
						   c->behind_ns, __ATOMIC_RELAXED)));
	json_object_set_new(st, "switches", names);
	return st;
}

static json_t *
cmd_show_ports(struct aif_ctl *c, struct aif_switch *sw)
{
	const struct aif_tables *t = sw->tables;
	const struct aif_switch_params *sp = &c->cfg->switches[sw->index];
	json_t *arr = json_array();

	for (uint16_t p = 0; p < sw->n_ports; p++) {
		const struct aif_port *port = &sw->ports[p];
		static const struct aif_port_info none = { .driver = "-" };
		/* the start-up report's findings: DPDK ports */
		const struct aif_port_info *pi = c->pinfo[sw->index] != NULL
			? &c->pinfo[sw->index][p] : &none;
		json_t *addrs = json_array();
		for (unsigned a = 0; a < t->ports[p].n_addrs; a++)
			json_array_append_new(addrs, prefix_json(&t->ports[p].addrs[a]));
		json_t *o = json_pack("{s:s, s:i, s:s, s:i, s:s, s:o, s:I, s:i, s:s, s:i, s:i, s:o}",
				      "name", port->name, "index", p,
				      "device", sp->ports[p].device,
				      "dpdk_port", port->dpdk_port,
				      "driver", pi->driver,
				      "mac", mac_json(&t->ports[p].mac),
				      "speed_mbps", (json_int_t)port->speed_mbps,
				      "mtu", t->ports[p].mtu,
				      "link", port->link_up ? "up" : "down",
				      "rx_queues", port->n_rxq, "tx_queues", port->n_txq,
				      "addresses", addrs);
		const struct aif_port_ops *impl = port->base != NULL ? port->base : port->ops;
		json_object_set_new(o, "kind", json_string(impl != NULL ? impl->kind : "none"));
		json_object_set_new(o, "link_changes",
				    json_integer((json_int_t)port->link_changes));
		/* 802.1Q VID routed frames leave with (0: priority tag); null: untagged */
		json_object_set_new(o, "vlan", t->ports[p].tagged
				    ? json_integer(t->ports[p].vlan_id) : json_null());
		json_object_set_new(o, "lossless",
				    json_pack("{s:s, s:s, s:s}",
					      "software_pfc", pi->software_pfc,
					      "hardware_pfc", pi->hardware_pfc,
					      "link_pause", pi->link_pause));
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *
route_json(const char *type, json_t *prefix, const char *group, const char *port)
{
	json_t *o = json_pack("{s:o, s:s}", "prefix", prefix, "type", type);
	if (group)
		json_object_set_new(o, "group", json_string(group));
	if (port)
		json_object_set_new(o, "port", json_string(port));
	return o;
}

static int withdraw_now(const struct aif_ctl *c, const struct aif_config *cfg,
			struct aif_config **w, char *err, size_t err_len);

static json_t *
cmd_show_routes(struct aif_ctl *c, struct aif_switch *sw)
{
	const struct aif_switch_params *sp = &c->cfg->switches[sw->index];
	json_t *arr = json_array();
	/* what the links down withdraw now (withdraw.h), as the tables have it */
	struct aif_config *w = NULL;
	char err[AIF_ERR_MAX];
	if (withdraw_now(c, c->cfg, &w, err, sizeof(err)) != 0)
		w = NULL; /* out of memory: the routes as configured */
	const struct aif_switch_params *wp = w != NULL ? &w->switches[sw->index] : sp;

	for (uint16_t p = 0; p < sp->n_ports; p++)
		for (unsigned a = 0; a < sp->ports[p].n_addrs; a++) {
			struct aif_prefix net = sp->ports[p].addrs[a], host = net;
			aif_prefix_normalize(&net);
			host.len = host.addr.family == AIF_AF_INET4 ? 32 : 128;
			json_array_append_new(arr, route_json("connected", prefix_json(&net),
							      NULL, sp->ports[p].name));
			json_array_append_new(arr, route_json("local", prefix_json(&host),
							      NULL, sp->ports[p].name));
		}
	for (uint32_t r = 0; r < sp->n_routes; r++) {
		const struct aif_route_params *rp = &sp->routes[r];
		bool grp = rp->kind == AIF_ROUTE_GROUP;
		json_t *o = route_json(grp ? "group" : "drop", prefix_json(&rp->prefix),
				       grp ? sp->groups[rp->group].name : NULL, NULL);
		const struct aif_group_params *g = grp ? &wp->groups[wp->routes[r].group] : NULL;
		if (g != NULL && g->withdrawn != 0) {
			/* the next hops it leaves out: the switch behind them
			 * no longer reaches the prefix */
			json_t *out = json_array();
			for (uint16_t k = 0; k < g->n_members; k++)
				if ((g->withdrawn >> k) & 1)
					json_array_append_new(out, json_pack("{s:o, s:s}",
						"ip", ip_json(&g->members[k].ip),
						"port", sw->ports[g->members[k].port].name));
			json_object_set_new(o, "withdrawn", out);
		}
		json_array_append_new(arr, o);
	}
	aif_withdraw_free(w, c->cfg);
	return arr;
}

static const char *const neigh_type_names[] = {
	[AIF_NEIGH_FREE] = "free", [AIF_NEIGH_UNRESOLVED] = "unresolved",
	[AIF_NEIGH_STATIC] = "static", [AIF_NEIGH_LEARNED] = "learned",
};

/*
 * {"entries": [...], "learning": {...}}: every neighbour with its state
 * (reachable/stale for learned ones) and seconds since it was set or last
 * refreshed, then the learning limits and counters (neigh.h) and the ports'
 * learn_ratelimited and learn_ring_full.
 */
static json_t *
cmd_show_neighbors(struct aif_ctl *c, struct aif_switch *sw)
{
	const struct aif_neigh *nb = sw->neigh;
	const struct aif_tables *t = sw->tables;
	aif_time_ns now = aif_ctl_now(c);
	json_t *arr = json_array();

	for (uint32_t s = 0; s < nb->cap; s++) {
		const struct aif_neigh_meta *mt = &nb->meta[s];
		if (mt->type == AIF_NEIGH_FREE)
			continue;
		uint64_t v = aif_neigh_read(nb, s);
		struct aif_mac mac;
		uint16_t port = mt->port;
		const char *state = mt->type == AIF_NEIGH_LEARNED
			? (mt->stale ? "stale" : "reachable") : neigh_type_names[mt->type];
		json_t *o = json_pack("{s:o, s:s, s:s, s:s, s:i}", "ip", ip_json(&mt->ip),
				      "port", port < sw->n_ports ? sw->ports[port].name : "-",
				      "type", neigh_type_names[mt->type], "state", state,
				      "slot", (int)s);
		if (v & AIF_NEIGH_VALID) {
			aif_neigh_unpack(v, &mac, &port);
			json_object_set_new(o, "mac", mac_json(&mac));
			json_object_set_new(o, "age_s", json_integer((json_int_t)
				((now > mt->updated_ns ? now - mt->updated_ns : 0) / AIF_NS_PER_S)));
		}
		if (mt->pinned)
			json_object_set_new(o, "configured", json_true());
		json_array_append_new(arr, o);
	}
	json_t *lr = json_object();
	if (t != NULL) {
		json_object_set_new(lr, "reachable_s", json_integer(t->neigh.reachable_s));
		json_object_set_new(lr, "stale_s", json_integer(t->neigh.stale_s));
		json_object_set_new(lr, "max_learned", json_integer(t->neigh.max_learned));
		json_object_set_new(lr, "rate_pps", json_integer(t->neigh.rate_pps));
		json_object_set_new(lr, "burst", json_integer(t->neigh.burst));
	}
	json_object_set_new(lr, "learned_now", json_integer(nb->n_learned));
#define NEIGH_CTR_JSON(n) json_object_set_new(lr, #n, json_integer((json_int_t)nb->ctr.n));
	AIF_FOREACH_NEIGH_CTR(NEIGH_CTR_JSON)
#undef NEIGH_CTR_JSON
	uint64_t limited = 0, ring_full = 0;
	for (uint16_t p = 0; p < sw->n_ports; p++) {
		struct aif_port_ctr pc;
		aif_switch_port_counters(sw, p, &pc);
		limited += pc.learn_ratelimited;
		ring_full += pc.learn_ring_full;
	}
	json_object_set_new(lr, "learn_ratelimited", json_integer((json_int_t)limited));
	json_object_set_new(lr, "learn_ring_full", json_integer((json_int_t)ring_full));
	return json_pack("{s:o, s:o}", "entries", arr, "learning", lr);
}

static json_t *
groups_json(const struct aif_switch *sw)
{
	const struct aif_tables *t = sw->tables;
	json_t *arr = json_array();

	for (uint32_t g = 0; g < t->n_groups; g++) {
		const struct aif_group *gr = &t->groups[g];
		json_t *members = json_array();
		uint64_t collisions = 0; /* counted by the shared member (lb.h) */
		uint64_t untracked = 0;  /* exact table full: by the hash's member */
		for (uint16_t k = 0; k < gr->n; k++) {
			const struct aif_member *m = &t->members[gr->first + k];
			struct aif_member_sums ctr;
			aif_switch_member_counters(sw, m->ctr_slot, &ctr);
			uint64_t v = aif_neigh_read(sw->neigh, m->neigh_slot);
			collisions += ctr.flowlet_collisions;
			untracked += ctr.flowlet_untracked;
			json_array_append_new(members,
				json_pack("{s:o, s:s, s:i, s:b, s:b, s:b, s:I, s:I, s:I, s:I}",
					  "ip", ip_json(&m->ip),
					  "port", sw->ports[m->port].name,
					  "weight", m->weight,
					  "resolved", (v & AIF_NEIGH_VALID) != 0,
					  "up", sw->ports[m->port].link_up != 0,
					  /* a route's copy of the group leaves it out
					   * (withdraw.h) */
					  "withdrawn", ((gr->withdrawn >> k) & 1) != 0,
					  "packets", (json_int_t)ctr.packets,
					  "bytes", (json_int_t)ctr.bytes,
					  "flowlet_starts", (json_int_t)ctr.flowlet_starts,
					  "reselections", (json_int_t)ctr.reselections));
		}
		json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:I, s:o}", "name", gr->name,
						     "scheme", aif_lb_schemes[gr->scheme].name,
						     "flowlet_collisions", (json_int_t)collisions,
						     "flowlet_untracked", (json_int_t)untracked,
						     "members", members));
	}
	return arr;
}

/* A switch's counters: every one (all), or what the exit summary reads
 * (each port's packets and bytes, its drops that are not zero); the
 * switch's drops by reason either way, all of them. */
static json_t *
counters_json(const struct aif_switch *sw, bool all)
{
	json_t *ports = json_array(), *total = json_object();
	uint64_t sum[AIF_DROP_MAX] = { 0 };

	for (uint16_t p = 0; p < sw->n_ports; p++) {
		struct aif_port_ctr ctr;
		aif_switch_port_counters(sw, p, &ctr);
		json_t *o = json_pack("{s:s}", "name", sw->ports[p].name);
		if (all) {
			const uint64_t *words = (const uint64_t *)&ctr;
			for (unsigned i = 0; i < aif_port_ctr_n; i++)
				json_object_set_new(o, aif_port_ctr_names[i],
						    json_integer((json_int_t)words[i]));
		} else {
			json_object_set_new(o, "rx_packets", json_integer((json_int_t)ctr.rx_packets));
			json_object_set_new(o, "tx_packets", json_integer((json_int_t)ctr.tx_packets));
			json_object_set_new(o, "rx_bytes", json_integer((json_int_t)ctr.rx_bytes));
			json_object_set_new(o, "tx_bytes", json_integer((json_int_t)ctr.tx_bytes));
		}
		json_t *drops = json_object();
		for (unsigned r = AIF_DROP_FIRST; r < AIF_DROP_MAX; r++) {
			if (all || ctr.drops[r] != 0)
				json_object_set_new(drops, aif_drop_name(r),
						    json_integer((json_int_t)ctr.drops[r]));
			sum[r] += ctr.drops[r];
		}
		json_object_set_new(o, "drops", drops);
		json_array_append_new(ports, o);
	}
	for (unsigned r = AIF_DROP_FIRST; r < AIF_DROP_MAX; r++)
		json_object_set_new(total, aif_drop_name(r), json_integer((json_int_t)sum[r]));
	json_t *cj = json_pack("{s:o, s:o}", "ports", ports, "drops", total);
	if (all)
		json_object_set_new(cj, "groups", groups_json(sw));
	return cj;
}

json_t *
aif_ctl_counters_json(const struct aif_switch *sw)
{
	return counters_json(sw, true);
}

json_t *
aif_ctl_summary_counters_json(const struct aif_switch *sw)
{
	return counters_json(sw, false);
}

/* Switch i of the new config must be the running switch i with the same
 * ports on the same devices. */
static int
same_switch(const struct aif_ctl *c, uint16_t i, const struct aif_switch_params *sp,
	    char *err, size_t err_len)
{
	const struct aif_switch *sw = c->sws[i];
	const struct aif_switch_params *run = c->cfg ? &c->cfg->switches[i] : NULL;

	if (strcmp(sp->name, sw->name) != 0) {
		snprintf(err, err_len, "$.switches[%u].name: '%s' is not the running switch %s "
			 "(restart to change switches)", i, sp->name, sw->name);
		return -1;
	}
	if (sp->n_ports != sw->n_ports) {
		snprintf(err, err_len, "$.switches[%u].ports: the running switch has %u ports, "
			 "the new config %u (restart to change ports)",
			 i, sw->n_ports, sp->n_ports);
		return -1;
	}
	for (uint16_t p = 0; p < sp->n_ports; p++) {
		if (strcmp(sp->ports[p].name, sw->ports[p].name) != 0 ||
		    (run && strcmp(sp->ports[p].device, run->ports[p].device) != 0)) {
			snprintf(err, err_len, "$.switches[%u].ports[%u]: port %s on %s differs "
				 "from the running port %s (restart to change ports)",
				 i, p, sp->ports[p].name, sp->ports[p].device,
				 sw->ports[p].name);
			return -1;
		}
	}
	return 0;
}

/*
 * The new config's links must be the running ones: the ports they join,
 * their rates and delays belong to the emulated links built at start (a
 * link's delay line is sized from its rate and delay), so a load that
 * changes them is refused, with the link and both values.  (Loss and
 * corruption rates a load does apply: cmd_load.)  Control without
 * emulated links (a test of one switch) has nothing to compare.
 */
static int
same_links(const struct aif_ctl *c, const struct aif_config *cfg, char *err, size_t err_len)
{
	const char *gen = cfg->topology != NULL ? " (as $.topology generates them)" : "";

	if (c->links == NULL)
		return 0;
	if (cfg->n_links != c->n_links) {
		snprintf(err, err_len, "$.links: the fabric runs %u link%s, the config has %u%s "
			 "(restart to change links)", c->n_links, c->n_links == 1 ? "" : "s",
			 cfg->n_links, gen);
		return -1;
	}
	for (uint32_t k = 0; k < cfg->n_links; k++) {
		const struct aif_topo_link *tl = &cfg->links[k];
		const struct aif_link *l = c->links[k];
		char name[4 * AIF_NAME_MAX + 8];
		snprintf(name, sizeof(name), "%s:%s-%s:%s", cfg->switches[tl->a_switch].name,
			 cfg->switches[tl->a_switch].ports[tl->a_port].name,
			 cfg->switches[tl->b_switch].name,
			 cfg->switches[tl->b_switch].ports[tl->b_port].name);
		if (strcmp(name, l->name) != 0) {
			snprintf(err, err_len, "$.links[%u]: %s is not the running link %s%s "
				 "(restart to change links)", k, name, l->name, gen);
			return -1;
		}
		uint64_t rate = aif_fabric_link_rate_bps(cfg, k);
		if (rate != l->p.rate_bps) {
			snprintf(err, err_len, "$.links[%u].rate_gbps: %g Gb/s%s, the running link "
				 "%s runs at %g Gb/s: a link's rate is set when the fabric starts "
				 "(restart to change it)", k, (double)rate / 1e9, gen, l->name,
				 (double)l->p.rate_bps / 1e9);
			return -1;
		}
		if (tl->delay_ns != l->p.delay_ns) {
			snprintf(err, err_len, "$.links[%u].delay_ns: %llu ns%s, the running link "
				 "%s has %llu ns: a link's delay is set when the fabric starts "
				 "(restart to change it)", k, (unsigned long long)tl->delay_ns, gen,
				 l->name, (unsigned long long)l->p.delay_ns);
			return -1;
		}
		if (tl->wire_model != l->p.wire_model) {
			snprintf(err, err_len, "$.links[%u].wire_model: \"%s\"%s, the running link "
				 "%s has \"%s\": a link's wire model is set when the fabric starts "
				 "(restart to change it)", k,
				 aif_wire_model_name((enum aif_wire_model)tl->wire_model), gen,
				 l->name, aif_wire_model_name((enum aif_wire_model)l->p.wire_model));
			return -1;
		}
	}
	return 0;
}

/* A written-out fabric's routes around its links that are down, from the
 * ports' link states now (withdraw.h): *w NULL when nothing is withdrawn. */
static int
withdraw_now(const struct aif_ctl *c, const struct aif_config *cfg, struct aif_config **w,
	     char *err, size_t err_len)
{
	*w = NULL;
	if (cfg->n_links == 0 || (cfg->topology != NULL && !cfg->topology_split))
		return 0; /* no links, or a whole generated fabric (reroute.h) */
	uint8_t *up = calloc((size_t)c->n_sw * AIF_MAX_PORTS, 1);
	if (up == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	for (uint16_t s = 0; s < c->n_sw; s++)
		for (uint16_t p = 0; p < c->sws[s]->n_ports; p++)
			up[(size_t)s * AIF_MAX_PORTS + p] = c->sws[s]->ports[p].link_up != 0;
	int rc = aif_withdraw(cfg, up, w, err, err_len);
	free(up);
	return rc;
}

int
aif_ctl_apply_config(struct aif_ctl *c, struct aif_config *cfg, char *err,
		     size_t err_len)
{
	struct aif_tables *t[AIF_MAX_SWITCHES];
	struct aif_config *wc = NULL; /* cfg with routes withdrawn, if any */
	uint16_t i, n = c->n_sw;

	if (cfg->n_switches != n) {
		snprintf(err, err_len, "$.switches: the daemon runs %u switch%s, the config has "
			 "%u (restart to change switches)", n, n == 1 ? "" : "es",
			 cfg->n_switches);
		goto reject;
	}
	if (same_links(c, cfg, err, err_len) != 0)
		goto reject;
	for (i = 0; i < n; i++) {
		const struct aif_switch_params *sp = &cfg->switches[i];
		if (same_switch(c, i, sp, err, err_len) != 0)
			goto reject;
		if (cfg->policies[sp->policy].qos.enable && c->sws[i]->n_shards > 1) {
			snprintf(err, err_len, "$.policies.%s.qos.enable: the lossless QoS state "
				 "of a switch belongs to one worker; run one worker (EAL -l 0-1) "
				 "or set \"enable\": false", cfg->policies[sp->policy].name);
			goto reject;
		}
	}
	/* the programs it declares, loaded (nothing running changes) */
	struct aif_lb_env lbv = aif_ctl_lb_env(c);
	if (aif_lb_progs_prepare(&c->lb, &lbv, cfg, err, err_len) != 0) {
		i = 0;
		goto undo;
	}
	struct aif_bfd_env bv = aif_ctl_bfd_env(c);
	if (withdraw_now(c, cfg, &wc, err, err_len) != 0 ||
	    (c->bfd_on && aif_bfd_sessions_prepare(&bv, cfg, err, err_len) != 0)) {
		i = 0;
		goto undo;
	}
	const struct aif_config *cc = wc != NULL ? wc : cfg; /* what is compiled */
	/* compile every switch before anything running changes */
	for (i = 0; i < n; i++) {
		t[i] = aif_tables_compile(c->sws[i], cc, i, err, err_len);
		if (t[i] != NULL && aif_lb_progs_attach(&c->lb, &lbv, i, cc, t[i], err, err_len) != 0) {
			aif_tables_free(t[i]);
			aif_switch_gc_neighbors(c->sws[i], c->sws[i]->tables, NULL);
			aif_switch_gc_member_slots(c->sws[i], c->sws[i]->tables);
			t[i] = NULL;
		}
		if (t[i] == NULL)
			goto undo;
		struct aif_switch *sw = c->sws[i];
		if (t[i]->qos->enable && sw->qos == NULL) {
			/* created here, driven by the shard that drives_qos once published */
			struct aif_qos *q = aif_qos_create(t[i]->qos, sw->n_ports, 0);
			if (q == NULL) {
				snprintf(err, err_len, "$.switches[%u]: cannot allocate the egress "
					 "queues", i);
				aif_tables_free(t[i]);
				aif_switch_gc_neighbors(sw, sw->tables, NULL);
				aif_switch_gc_member_slots(sw, sw->tables);
				goto undo;
			}
			__atomic_store_n(&sw->qos, q, __ATOMIC_RELEASE);
		}
	}
	/* then publish them all */
	aif_time_ns now = aif_ctl_now(c);
	for (i = 0; i < n; i++) {
		const struct aif_switch_params *sp = &cfg->switches[i];
		aif_switch_apply_neighbors(c->sws[i], sp, now);
		aif_switch_publish(c->sws[i], t[i]);
		aif_switch_gc_neighbors(c->sws[i], t[i], sp);
		aif_switch_gc_member_slots(c->sws[i], t[i]);
	}
	aif_withdraw_free(wc, cfg);
	aif_config_free(c->cfg);
	c->cfg = cfg;
	bv.running = cfg;
	if (c->bfd_on && c->bfd == NULL) { /* its BFD ports' sessions */
		bool nomem;
		c->bfd = aif_bfd_sessions_create(&bv, &nomem);
		if (nomem)
			fprintf(stderr, "BFD: out of memory for the sessions of the config loaded\n");
	} else {
		aif_bfd_sessions_sync(c->bfd, &bv);
	}
	lbv.running = cfg;
	aif_lb_progs_gc(&c->lb, &lbv); /* what only the old tables ran */
	return 0;
undo:
	aif_withdraw_free(wc, cfg);
	/* the switches compiled so far give back what they took */
	while (i-- > 0) {
		aif_tables_free(t[i]);
		aif_switch_gc_neighbors(c->sws[i], c->sws[i]->tables, NULL);
		aif_switch_gc_member_slots(c->sws[i], c->sws[i]->tables);
	}
	aif_lb_progs_gc(&c->lb, &lbv); /* what only the rejected config declared */
reject:
	aif_config_free(cfg);
	return -1;
}

struct aif_bfd_env
aif_ctl_bfd_env(const struct aif_ctl *c)
{
	/* the wall clock's time (bfd_sessions.h), not the emulation's */
	return (struct aif_bfd_env){ .sws = c->sws, .n_sw = c->n_sw, .running = c->cfg,
				     .now_ns = aif_clock_now(&c->clock) };
}

int
aif_ctl_bfd_start(struct aif_ctl *c, char *err, size_t err_len)
{
	if (c->bfd_on)
		return 0;
	c->bfd_on = true;
	/* the running config again: its BFD ports' rings, tables that send
	 * their packets there, the sessions (aif_ctl_apply_config) */
	return aif_ctl_links_changed(c, err, err_len);
}

void
aif_ctl_bfd_stop(struct aif_ctl *c)
{
	struct aif_bfd_env bv = aif_ctl_bfd_env(c);

	if (c->bfd == NULL)
		return;
	aif_bfd_sessions_goodbye(c->bfd, &bv);
	/* the runners send them: at most 50 ms */
	for (int i = 0; i < 250; i++) {
		bool left = false;
		for (uint16_t s = 0; s < c->n_sw; s++)
			left |= c->sws[s]->bfd_tx != NULL && !rte_ring_empty(c->sws[s]->bfd_tx);
		if (!left)
			break;
		rte_delay_us_sleep(200);
	}
}

void
aif_ctl_bfd_poll(struct aif_ctl *c)
{
	struct aif_bfd_env bv = aif_ctl_bfd_env(c);

	aif_bfd_sessions_poll(c->bfd, &bv);
}

struct aif_lb_env
aif_ctl_lb_env(const struct aif_ctl *c)
{
	return (struct aif_lb_env){ .sws = c->sws, .n_sw = c->n_sw,
				    .config_dir = c->config_dir, .running = c->cfg };
}

int
aif_ctl_links_changed(struct aif_ctl *c, char *err, size_t err_len)
{
	if (c->cfg == NULL)
		return 0;
	/* The running config again, as parsed: nothing is read or parsed;
	 * only the bucket tables see the new link states. */
	if (aif_ctl_apply_config(c, aif_config_ref(c->cfg), err, err_len) != 0)
		return -1;
	c->link_rebuilds++;
	return 0;
}

/* The text of a load by name: a file named in config_dir. */
static char *
load_path_text(struct aif_ctl *c, const char *name, size_t *len, char *err,
	       size_t err_len)
{
	if (c->config_dir == NULL) {
		snprintf(err, err_len, "load by \"path\" is off: the daemon has no "
			 "--config-dir; send the config itself as \"config\" "
			 "(aifabricctl load FILE does)");
		return NULL;
	}
	if (aif_ctl_name_check(name, err, err_len) != 0)
		return NULL;
	return aif_config_read_at(c->config_dir, name, AIF_CTL_CONFIG_FILE_MAX_BYTES, len,
				  err, err_len);
}

/*
 * A file named by a client is not its to read: why it was rejected is
 * said without its content (parse errors quote the text, e.g. jansson's
 * "near '...'", and field errors quote values).  A JSON syntax error keeps
 * its position, which quotes nothing.
 */
static void
redact_load_error(const char *name, char *err, size_t err_len)
{
	int line, col;

	if (sscanf(err, "line %d column %d:", &line, &col) == 2)
		snprintf(err, err_len, "%s: invalid JSON at line %d column %d", name, line,
			 col);
	else
		snprintf(err, err_len, "%s: not a config this switch can run (send it as "
			 "\"config\", e.g. aifabricctl load FILE, to be told why)", name);
}

static json_t *
cmd_load(struct aif_ctl *c, json_t *req, char *err, size_t err_len)
{
	json_t *conf = json_object_get(req, "config");
	json_t *path = json_object_get(req, "path");
	const char *name = json_string_value(path);
	struct aif_config *cfg = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (json_is_object(conf)) {
		text = json_dumps(conf, JSON_COMPACT);
		len = text ? strlen(text) : 0;
		if (text == NULL)
			snprintf(err, err_len, "out of memory");
	} else if (name != NULL) {
		text = load_path_text(c, name, &len, err, err_len);
	} else {
		snprintf(err, err_len, "load needs \"config\" (an object) or \"path\" (a string)");
		return NULL;
	}
	if (text == NULL) {
		c->loads_rejected++;
		return NULL;
	}
	rc = aif_config_parse(text, len, &cfg, err, err_len);
	free(text);
	/* the config it replaces, for the link faults that changed */
	struct aif_config *old = c->cfg != NULL ? aif_config_ref(c->cfg) : NULL;
	if (rc != 0 || aif_ctl_apply_config(c, cfg, err, err_len) != 0) {
		if (name != NULL)
			redact_load_error(name, err, err_len);
		c->loads_rejected++;
		aif_config_free(old);
		return NULL;
	}
	c->loads_ok++;
	/* loss and corruption rates the file changed (not those a link
	 * command set since and the file leaves as they were) */
	for (uint32_t k = 0; c->links != NULL && k < c->cfg->n_links; k++) {
		const struct aif_topo_link *nl = &c->cfg->links[k];
		const struct aif_topo_link *ol = old != NULL && k < old->n_links ? &old->links[k]
										 : NULL;
		if (ol == NULL || nl->loss_rate != ol->loss_rate ||
		    nl->corrupt_rate != ol->corrupt_rate)
			aif_link_set_faults(c->links[k], nl->loss_rate, nl->corrupt_rate);
	}
	aif_config_free(old);
	/* every switch, by name, with what it now runs */
	json_t *sws = json_array();
	for (uint16_t i = 0; i < c->n_sw; i++) {
		const struct aif_switch_params *sp = &c->cfg->switches[i];
		json_array_append_new(sws, json_pack("{s:s, s:I, s:i, s:i, s:i}", "switch",
						     sp->name, "generation",
						     (json_int_t)c->sws[i]->tables->generation,
						     "routes", (int)sp->n_routes,
						     "groups", (int)sp->n_groups,
						     "neighbors", (int)sp->n_neighbors));
	}
	if (c->n_sw > 1)
		return json_pack("{s:b, s:o, s:i}", "loaded", 1, "switches", sws,
				 "links", (int)c->cfg->n_links);
	json_t *one = json_incref(json_array_get(sws, 0));
	json_decref(sws);
	json_object_set_new(one, "loaded", json_true());
	return one;
}

/* The switch port named by req's "port"; -1 with err set when none. */
static int
req_port(const struct aif_switch *sw, const json_t *req, char *err, size_t err_len)
{
	const char *name = json_string_value(json_object_get(req, "port"));

	if (name == NULL) {
		snprintf(err, err_len, "\"port\" (a port name) is required");
		return -1;
	}
	for (uint16_t p = 0; p < sw->n_ports; p++)
		if (strcmp(sw->ports[p].name, name) == 0)
			return p;
	snprintf(err, err_len, "unknown port '%s'", name);
	return -1;
}

static json_t *
capture_json(const struct aif_switch *sw, uint16_t p, const struct aif_capture_info *ci)
{
	const char *name = strrchr(ci->path, '/');
	json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:i, s:I, s:I, s:I, s:I, s:f}",
			      "port", sw->ports[p].name, "file", name ? name + 1 : ci->path,
			      "path", ci->path, "drops", ci->drops, "snaplen", (int)ci->snaplen,
			      "packets_written", (json_int_t)ci->written,
			      "packets_skipped", (json_int_t)ci->skipped,
			      "drops_annotated", (json_int_t)ci->drop_comments,
			      "bytes_written", (json_int_t)ci->bytes,
			      "seconds", ci->seconds);
	json_object_set_new(o, "max_bytes", json_integer((json_int_t)ci->max_bytes));
	json_object_set_new(o, "max_packets", ci->max_packets ?
			    json_integer((json_int_t)ci->max_packets) : json_null());
	/* at a limit the capture writes nothing more until stopped: say so */
	json_object_set_new(o, "limit_reached", ci->limit ? json_string(ci->limit) : json_null());
	json_object_set_new(o, "packets_past_limit", json_integer((json_int_t)ci->past_limit));
	if (ci->write_errno != 0)
		json_object_set_new(o, "write_error", json_string(strerror(ci->write_errno)));
	return o;
}

/* mkdir -p dir, each missing component mode 0750 (captures are traffic). */
static int
make_dir(const char *dir, char *err, size_t err_len)
{
	char buf[AIF_CAPTURE_PATH_MAX];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(buf)) {
		snprintf(err, err_len, "capture directory '%s' is not usable", dir);
		return -1;
	}
	memcpy(buf, dir, n + 1);
	for (char *p = buf + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char was = *p;
		*p = '\0';
		if (mkdir(buf, 0750) != 0 && errno != EEXIST) {
			snprintf(err, err_len, "cannot create capture directory %s: %s", buf,
				 strerror(errno));
			return -1;
		}
		*p = was;
		if (was == '\0')
			return 0;
	}
}

/* An optional integer >= 1; -1 with err when malformed. */
static int
count_arg(const json_t *req, const char *key, uint64_t *out, char *err, size_t err_len)
{
	const json_t *v = json_object_get(req, key);

	if (v == NULL)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 1) {
		snprintf(err, err_len, "\"%s\" must be an integer >= 1", key);
		return -1;
	}
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* {"cmd":"capture_start","port":"p0","file":"p0.pcapng","drops":true,"snaplen":256,
 *  "max_bytes":1048576,"max_packets":1000} */
static json_t *
cmd_capture_start(struct aif_ctl *c, struct aif_switch *sw, json_t *req, char *err,
		  size_t err_len)
{
	const json_t *file = json_object_get(req, "file");
	const json_t *drops = json_object_get(req, "drops");
	const json_t *snap = json_object_get(req, "snaplen");
	json_int_t snaplen = AIF_CAPTURE_SNAPLEN_DEFAULT;
	struct aif_capture_params cp = { 0 };
	struct aif_capture_info ci;
	char why[AIF_CTL_ERR_MAX];
	int p = req_port(sw, req, err, err_len);

	if (p < 0)
		return NULL;
	if (c->capture_dir == NULL) {
		snprintf(err, err_len, "captures are off: the daemon has no --capture-dir");
		return NULL;
	}
	if (!json_is_string(file)) {
		snprintf(err, err_len, "\"file\" (a file name; captures go to %s) is required",
			 c->capture_dir);
		return NULL;
	}
	if (aif_ctl_name_check(json_string_value(file), why, sizeof(why)) != 0) {
		snprintf(err, err_len, "\"file\": %s; captures go to %s", why, c->capture_dir);
		return NULL;
	}
	if (drops != NULL && !json_is_boolean(drops)) {
		snprintf(err, err_len, "\"drops\" must be true or false");
		return NULL;
	}
	if (snap != NULL) {
		if (!json_is_integer(snap)) {
			snprintf(err, err_len, "\"snaplen\" must be an integer, %u..%u",
				 AIF_CAPTURE_SNAPLEN_MIN, AIF_CAPTURE_SNAPLEN_MAX);
			return NULL;
		}
		snaplen = json_integer_value(snap);
		if (snaplen < AIF_CAPTURE_SNAPLEN_MIN || snaplen > AIF_CAPTURE_SNAPLEN_MAX) {
			snprintf(err, err_len, "snaplen %" JSON_INTEGER_FORMAT " out of range %u..%u",
				 snaplen, AIF_CAPTURE_SNAPLEN_MIN, AIF_CAPTURE_SNAPLEN_MAX);
			return NULL;
		}
	}
	if (count_arg(req, "max_bytes", &cp.max_bytes, err, err_len) != 0 ||
	    count_arg(req, "max_packets", &cp.max_packets, err, err_len) != 0)
		return NULL;
	cp.snaplen = (uint32_t)snaplen;
	cp.drops = json_is_true(drops);
	if (make_dir(c->capture_dir, err, err_len) != 0 ||
	    aif_capture_start(sw, (uint16_t)p, c->capture_dir, json_string_value(file),
			      &cp, aif_ctl_now(c), err, err_len) != 0)
		return NULL;
	aif_capture_get(sw, (uint16_t)p, &ci);
	return capture_json(sw, (uint16_t)p, &ci);
}

static json_t *
cmd_capture_stop(struct aif_switch *sw, json_t *req, char *err, size_t err_len)
{
	struct aif_capture_info ci;
	int p = req_port(sw, req, err, err_len);

	if (p < 0 || aif_capture_stop(sw, (uint16_t)p, &ci, err, err_len) != 0)
		return NULL;
	return capture_json(sw, (uint16_t)p, &ci);
}

static json_t *
cmd_show_captures(struct aif_switch *sw)
{
	struct aif_capture_info ci;
	json_t *arr = json_array();

	for (uint16_t p = 0; p < sw->n_ports; p++)
		if (aif_capture_get(sw, p, &ci))
			json_array_append_new(arr, capture_json(sw, p, &ci));
	return arr;
}

/* ---- dispatch: one table (ctl_commands.h) ---- */

typedef json_t *(*ctl_fn)(struct aif_ctl *c, struct aif_switch *sw, json_t *req,
			  char *err, size_t err_len);

#define CTL_ARGS struct aif_ctl *c, struct aif_switch *sw, json_t *req, char *err, \
	size_t err_len
#define CTL_UNUSED (void)c, (void)sw, (void)req, (void)err, (void)err_len

static json_t *ctl_status(CTL_ARGS) { CTL_UNUSED; return cmd_status(c); }
static json_t *ctl_load(CTL_ARGS) { CTL_UNUSED; return cmd_load(c, req, err, err_len); }
static json_t *ctl_show_ports(CTL_ARGS) { CTL_UNUSED; return cmd_show_ports(c, sw); }
static json_t *ctl_show_routes(CTL_ARGS) { CTL_UNUSED; return cmd_show_routes(c, sw); }
static json_t *ctl_show_neighbors(CTL_ARGS) { CTL_UNUSED; return cmd_show_neighbors(c, sw); }
static json_t *ctl_show_groups(CTL_ARGS) { CTL_UNUSED; return groups_json(sw); }
/* A switch's ports and what is behind each: the far end of a link, a
 * host, a device. */
static json_t *
ctl_show_topology(CTL_ARGS)
{
	const struct aif_switch_params *sp = &c->cfg->switches[sw->index];
	json_t *arr = json_array();

	CTL_UNUSED;
	for (uint16_t p = 0; p < sw->n_ports; p++) {
		const struct aif_port *port = &sw->ports[p];
		const struct aif_port_ops *impl = port->base != NULL ? port->base : port->ops;
		char peer[2 * AIF_NAME_MAX + 8] = "";
		if (impl == &aif_port_link_ops) {
			const struct aif_link_end *e = port->ctx;
			const struct aif_port *far = e->link->end[!e->side].port;
			snprintf(peer, sizeof(peer), "%s:%s", far->sw->name, far->name);
		} else {
			for (uint32_t h = 0; h < c->cfg->n_hosts; h++)
				if (c->cfg->hosts[h].sw == sw->index && c->cfg->hosts[h].port == p) {
					snprintf(peer, sizeof(peer), "host %s", c->cfg->hosts[h].name);
					break;
				}
		}
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:I, s:s}",
			"name", port->name, "kind", impl != NULL ? impl->kind : "none",
			"device", sp->ports[p].device, "link", port->link_up ? "up" : "down",
			"speed_mbps", (json_int_t)port->speed_mbps, "peer", peer));
	}
	return arr;
}

static json_t *
ctl_show_links(CTL_ARGS)
{
	const json_t *s = json_object_get(req, "switch");
	const struct aif_switch *only = NULL;

	(void)sw;
	if (s != NULL) {
		for (uint16_t i = 0; i < c->n_sw && only == NULL; i++)
			if (json_is_string(s) && strcmp(c->sws[i]->name, json_string_value(s)) == 0)
				only = c->sws[i];
		if (only == NULL) {
			snprintf(err, err_len, "unknown switch '%s'",
				 json_is_string(s) ? json_string_value(s) : "(not a string)");
			return NULL;
		}
	}
	return aif_ctl_links_json(c, only, aif_ctl_now(c));
}

int
aif_ctl_find_link(const struct aif_ctl *c, const char *name)
{
	for (uint32_t k = 0; k < c->n_links; k++) {
		const struct aif_link *l = c->links[k];
		if (strcmp(l->name, name) == 0)
			return (int)k;
		for (int e = 0; e < 2; e++) {
			const struct aif_port *p = l->end[e].port;
			char end[2 * AIF_NAME_MAX + 2];
			snprintf(end, sizeof(end), "%s:%s", p->sw->name, p->name);
			if (strcmp(end, name) == 0)
				return (int)k;
		}
	}
	return -1;
}

/*
 * A generated fabric routed again around the links that are down now
 * (reroute.h: from the running config as parsed); applied as a load is
 * (all or nothing).
 */
static int
reroute(struct aif_ctl *c, char *err, size_t err_len)
{
	bool *down = calloc(c->n_links ? c->n_links : 1, sizeof(*down));
	struct aif_config *nc = NULL;

	for (uint32_t k = 0; down != NULL && k < c->n_links; k++)
		down[k] = !c->links[k]->up;
	if (down == NULL)
		snprintf(err, err_len, "out of memory");
	else
		nc = aif_reroute(c->cfg, down, err, err_len);
	free(down);
	return nc != NULL ? aif_ctl_apply_config(c, nc, err, err_len) : -1;
}

int
aif_ctl_link_set(struct aif_ctl *c, uint32_t k, int up, double loss_rate,
		 double corrupt_rate, aif_time_ns now_ns, char *err, size_t err_len)
{
	struct aif_link *l = c->links[k];

	/* a negative rate: unchanged; NaN is no rate at all */
	if (!(loss_rate <= 1) || !(corrupt_rate <= 1)) {
		snprintf(err, err_len, "rates are 0..1");
		return -1;
	}
	aif_link_set_faults(l, loss_rate, corrupt_rate);
	if (up < 0 || (up != 0) == (l->up != 0))
		return 0;
	aif_link_set_up(l, up, now_ns);
	for (int e = 0; e < 2; e++)
		l->end[e].port->link_changes++;
	/* A fabric split over daemons knows only its part: its routes are
	 * withdrawn around the link as a written-out fabric's (withdraw.h),
	 * a cut link's far end counted as reaching on. */
	if (c->cfg != NULL && c->cfg->topology != NULL && !c->cfg->topology_split) {
		/* routes around it, on every switch, in one update */
		if (reroute(c, err, err_len) != 0)
			return -1;
		c->link_rebuilds++;
		return 0;
	}
	return aif_ctl_links_changed(c, err, err_len);
}

static json_t *
ctl_link_set(CTL_ARGS)
{
	const char *name = json_string_value(json_object_get(req, "link"));
	const json_t *st = json_object_get(req, "state");
	double rate[2] = { -1, -1 };
	static const char *const keys[2] = { "loss_rate", "corrupt_rate" };
	int up = -1;

	(void)sw;
	if (name == NULL) {
		snprintf(err, err_len, "\"link\": a link's name or one of its ends "
			 "(\"leaf0:u0\"), as show links names them");
		return NULL;
	}
	if (st != NULL) {
		const char *v = json_string_value(st);
		if (v == NULL || (strcmp(v, "up") != 0 && strcmp(v, "down") != 0)) {
			snprintf(err, err_len, "\"state\": \"up\" or \"down\"");
			return NULL;
		}
		up = strcmp(v, "up") == 0;
	}
	int k = aif_ctl_find_link(c, name);
	if (k < 0 && up >= 0 && json_object_get(req, keys[0]) == NULL &&
	    json_object_get(req, keys[1]) == NULL) {
		/* a port's BFD session, administratively (a link to elsewhere) */
		struct aif_bfd_env bv = aif_ctl_bfd_env(c);
		uint16_t p;
		int s = aif_bfd_admin(c->bfd, &bv, name, up == 0, &p);
		if (s >= 0 && s < c->n_sw) { /* no traffic from now: routes around it */
			aif_port_set_link_up(&c->sws[s]->ports[p], false);
			c->sws[s]->ports[p].link_changes++;
			if (aif_ctl_links_changed(c, err, err_len) != 0)
				return NULL;
		}
		if (s >= 0)
			return json_pack("{s:s, s:s, s:s}", "link", name, "state",
					 up ? "up" : "down", "bfd", up ? "down" : "admin_down");
	}
	if (k < 0) {
		snprintf(err, err_len, "no emulated link '%s' (show links names them), nor a "
			 "port running BFD (show bfd)", name);
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		const json_t *r = json_object_get(req, keys[i]);
		if (r == NULL)
			continue;
		if (!json_is_number(r) || !(json_number_value(r) >= 0 && json_number_value(r) <= 1)) {
			snprintf(err, err_len, "\"%s\": a number 0..1", keys[i]);
			return NULL;
		}
		rate[i] = json_number_value(r);
	}
	if (up < 0 && rate[0] < 0 && rate[1] < 0) {
		snprintf(err, err_len, "nothing to change: give \"state\" (\"up\" or \"down\"), "
			 "\"loss_rate\" or \"corrupt_rate\" (numbers 0..1)");
		return NULL;
	}
	if (aif_ctl_link_set(c, (uint32_t)k, up, rate[0], rate[1], aif_ctl_now(c),
			     err, err_len) != 0)
		return NULL;
	return json_pack("{s:s, s:s}", "link", c->links[k]->name, "state",
			 c->links[k]->up ? "up" : "down");
}

/* The links' JSON: every field (all), or what the summary reads. */
static json_t *
links_json(const struct aif_ctl *c, const struct aif_switch *only, aif_time_ns now_ns, bool all)
{
	json_t *arr = json_array();
	double elapsed_ps = now_ns > c->start_ns ? (double)(now_ns - c->start_ns) * 1000.0 : 0;

	for (uint32_t k = 0; k < c->n_links; k++) {
		const struct aif_link *l = c->links[k];
		const struct aif_port *end[2] = { l->end[0].port, l->end[1].port };
		if (only != NULL && end[0]->sw != only && end[1]->sw != only)
			continue;
		json_t *dirs = json_array();
		for (int d = 0; d < 2; d++) {
			const struct aif_link_ctr *ctr = &l->dir[d].ctr;
			char from[2 * AIF_NAME_MAX + 2], to[2 * AIF_NAME_MAX + 2];
			snprintf(from, sizeof(from), "%s:%s", end[d]->sw->name, end[d]->name);
			snprintf(to, sizeof(to), "%s:%s", end[!d]->sw->name, end[!d]->name);
			json_t *o = json_pack("{s:s, s:s}", "from", from, "to", to);
#define LINK_CTR_JSON(name, text) \
			if (all || ctr->name != 0) \
				json_object_set_new(o, #name, json_integer((json_int_t)ctr->name));
			AIF_FOREACH_LINK_CTR(LINK_CTR_JSON)
#undef LINK_CTR_JSON
			if (all || ctr->busy_ps != 0)
				json_object_set_new(o, "utilization", json_real(
					elapsed_ps > 0 ? (double)ctr->busy_ps / elapsed_ps : 0.0));
			json_array_append_new(dirs, o);
		}
		if (!all) {
			json_array_append_new(arr, json_pack("{s:o}", "directions", dirs));
			continue;
		}
		json_array_append_new(arr, json_pack("{s:s, s:f, s:I, s:s, s:o}", "name", l->name,
			"rate_gbps", (double)l->p.rate_bps / 1e9, "delay_ns", (json_int_t)l->p.delay_ns,
			"link", end[0]->link_up && end[1]->link_up ? "up" : "down", "directions", dirs));
	}
	return arr;
}

json_t *
aif_ctl_links_json(const struct aif_ctl *c, const struct aif_switch *only, aif_time_ns now_ns)
{
	return links_json(c, only, now_ns, true);
}

json_t *
aif_ctl_summary_links_json(const struct aif_ctl *c, aif_time_ns now_ns)
{
	return links_json(c, NULL, now_ns, false);
}

static json_t *ctl_show_counters(CTL_ARGS) { CTL_UNUSED; return aif_ctl_counters_json(sw); }
static json_t *
ctl_clear_counters(CTL_ARGS)
{
	CTL_UNUSED;
	aif_switch_clear_counters(sw);
	return json_pack("{s:b}", "cleared", 1);
}
static json_t *
ctl_show_pfc(CTL_ARGS)
{
	CTL_UNUSED;
	return aif_ctl_show_pfc(sw, aif_ctl_now(c), err, err_len);
}
static json_t *ctl_show_queues(CTL_ARGS) { CTL_UNUSED; return aif_ctl_show_queues(sw, err, err_len); }
static json_t *ctl_show_buffer(CTL_ARGS) { CTL_UNUSED; return aif_ctl_show_buffer(sw, err, err_len); }
static json_t *ctl_show_pfcwd(CTL_ARGS) { CTL_UNUSED; return aif_ctl_show_pfcwd(sw, err, err_len); }
static json_t *
ctl_show_bfd(CTL_ARGS)
{
	CTL_UNUSED;
	struct aif_bfd_env bv = aif_ctl_bfd_env(c);
	return aif_bfd_sessions_show(c->bfd, &bv, sw);
}
static json_t *
ctl_clear_watermarks(CTL_ARGS)
{
	CTL_UNUSED;
	return aif_ctl_clear_watermarks(sw, err, err_len);
}
static json_t *
ctl_capture_start(CTL_ARGS)
{
	return cmd_capture_start(c, sw, req, err, err_len);
}
static json_t *ctl_capture_stop(CTL_ARGS) { CTL_UNUSED; return cmd_capture_stop(sw, req, err, err_len); }
static json_t *ctl_show_captures(CTL_ARGS) { CTL_UNUSED; return cmd_show_captures(sw); }
static json_t *ctl_trace_start(CTL_ARGS) { CTL_UNUSED; return aif_ctl_trace_start(sw, req, err, err_len); }
static json_t *ctl_trace_stop(CTL_ARGS) { CTL_UNUSED; return aif_ctl_trace_stop(sw, err, err_len); }
static json_t *ctl_show_trace(CTL_ARGS) { CTL_UNUSED; return aif_ctl_show_trace(sw, req, err, err_len); }
static json_t *ctl_lb_load(CTL_ARGS) { CTL_UNUSED; return aif_ctl_lb_load(c, req, err, err_len); }
static json_t *ctl_lb_unload(CTL_ARGS) { CTL_UNUSED; return aif_ctl_lb_unload(c, req, err, err_len); }
static json_t *ctl_show_lb(CTL_ARGS) { CTL_UNUSED; return aif_ctl_show_lb(c, sw); }

static const struct ctl_cmd {
	const char *name;
	ctl_fn fn;
	unsigned flags;
} ctl_cmds[] = {
#define CTL_CMD_ENTRY(name, words, args, flags, what) { #name, ctl_##name, flags },
	AIF_FOREACH_CTL_CMD(CTL_CMD_ENTRY)
#undef CTL_CMD_ENTRY
};

/* "unknown command 'x' (try status, load, ...)" from the table. */
static void
unknown_command(const char *cmd, char *err, size_t err_len)
{
	size_t n = (size_t)snprintf(err, err_len, "unknown command '%s' (try", cmd);

	for (size_t i = 0; i < RTE_DIM(ctl_cmds) && n < err_len; i++)
		n += (size_t)snprintf(err + n, err_len - n, "%s %s", i ? "," : "",
				      ctl_cmds[i].name);
	if (n < err_len)
		snprintf(err + n, err_len - n, ")");
}

/* The switches a request is about: the one "switch" names, else all (or,
 * for a command about one switch, the only one).  Returns how many, or -1
 * with err. */
static int
select_switches(const struct aif_ctl *c, const json_t *req, unsigned flags,
		struct aif_switch **out, char *err, size_t err_len)
{
	const json_t *s = json_object_get(req, "switch");

	if (s != NULL) {
		const char *name = json_string_value(s);
		if (name == NULL) {
			snprintf(err, err_len, "\"switch\" must be a switch name");
			return -1;
		}
		for (uint16_t i = 0; i < c->n_sw; i++)
			if (strcmp(c->sws[i]->name, name) == 0) {
				out[0] = c->sws[i];
				return 1;
			}
		size_t n = (size_t)snprintf(err, err_len, "unknown switch '%s' (switches:", name);
		for (uint16_t i = 0; i < c->n_sw && n < err_len; i++)
			n += (size_t)snprintf(err + n, err_len - n, " %s", c->sws[i]->name);
		if (n < err_len)
			snprintf(err + n, err_len - n, ")");
		return -1;
	}
	if ((flags & AIF_CTL_F_ONE) && c->n_sw > 1) {
		snprintf(err, err_len, "name a switch (\"switch\"): this daemon runs %u",
			 c->n_sw);
		return -1;
	}
	memcpy(out, c->sws, c->n_sw * sizeof(out[0]));
	return c->n_sw;
}

json_t *
aif_ctl_dispatch(void *ctx, const char *cmd, json_t *req, char *err,
		 size_t err_len)
{
	struct aif_switch *sel[AIF_MAX_SWITCHES];
	struct aif_ctl *c = ctx;
	const struct ctl_cmd *k = NULL;

	for (size_t i = 0; i < RTE_DIM(ctl_cmds) && k == NULL; i++)
		if (strcmp(ctl_cmds[i].name, cmd) == 0)
			k = &ctl_cmds[i];
	if (k == NULL) {
		unknown_command(cmd, err, err_len);
		return NULL;
	}
	if (!(k->flags & (AIF_CTL_F_SWITCH | AIF_CTL_F_ONE)))
		return k->fn(c, c->sw, req, err, err_len);
	int n = select_switches(c, req, k->flags, sel, err, err_len);
	if (n < 0)
		return NULL;
	if ((k->flags & AIF_CTL_F_CONFIG) && (c->cfg == NULL || n == 0)) {
		snprintf(err, err_len, "no config loaded");
		return NULL;
	}
	if (n == 1)
		return k->fn(c, sel[0], req, err, err_len);
	/* every switch: {"switches": [{"switch": name, "result": ...}, ...]} */
	json_t *arr = json_array();
	for (int i = 0; i < n; i++) {
		json_t *r = k->fn(c, sel[i], req, err, err_len);
		if (r == NULL) {
			char why[AIF_CTL_ERR_MAX];
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, err_len, "switch %s: %s", sel[i]->name, why);
			json_decref(arr);
			return NULL;
		}
		json_array_append_new(arr, json_pack("{s:s, s:o}", "switch", sel[i]->name,
						     "result", r));
	}
	return json_pack("{s:o}", "switches", arr);
}

aif_time_ns
aif_ctl_now(const struct aif_ctl *c)
{
	aif_time_ns now = aif_clock_now(&c->clock);
	aif_time_ns behind = c->behind_ns != NULL
		? __atomic_load_n(c->behind_ns, __ATOMIC_RELAXED) : 0;

	return now > behind ? now - behind : 0;
}

int
aif_ctl_add_switch(struct aif_ctl *c, struct aif_switch *sw)
{
	if (c->n_sw >= AIF_MAX_SWITCHES)
		return -1;
	c->sws[c->n_sw++] = sw;
	if (c->sw == NULL)
		c->sw = sw;
	return 0;
}
