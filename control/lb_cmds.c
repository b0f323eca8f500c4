/* SPDX-License-Identifier: BSD-3-Clause */
/* The load-balancing program commands (commands.h): lb load, lb unload, show lb. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "../pipelines/lb_prog.h"
#include "base64.h"
#include "commands.h"
#include "lb_progs.h"

static int
switch_index(const struct aif_ctl *c, const char *name)
{
	for (uint16_t i = 0; i < c->n_sw; i++)
		if (strcmp(c->sws[i]->name, name) == 0)
			return i;
	return -1;
}

/* Do the tables of switch i have group name? */
static bool
has_group(const struct aif_ctl *c, uint16_t i, const char *name)
{
	const struct aif_tables *t = c->sws[i]->tables;

	for (uint32_t x = 0; t != NULL && x < t->n_groups; x++)
		if (strcmp(t->groups[x].name, name) == 0)
			return true;
	return false;
}

json_t *
aif_ctl_lb_load(struct aif_ctl *c, json_t *req, char *err, size_t err_len)
{
	const char *obj = json_string_value(json_object_get(req, "object"));
	const char *file = json_string_value(json_object_get(req, "file"));
	const char *name = json_string_value(json_object_get(req, "name"));
	const char *prog = json_string_value(json_object_get(req, "program"));
	const char *sw = json_string_value(json_object_get(req, "switch"));
	const char *group = json_string_value(json_object_get(req, "group"));
	json_t *tcj = json_object_get(req, "tc"), *tsj = json_object_get(req, "table_size");
	struct aif_lb_loaded *e = NULL, *old;
	const struct aif_lb_env v = aif_ctl_lb_env(c);
	char why[400];
	size_t len = 0;
	uint8_t *buf = NULL;

	if (c->cfg == NULL) {
		snprintf(err, err_len, "no config loaded");
		return NULL;
	}
	static const char *const strings[] = { "file", "name", "program", "switch", "group" };
	for (size_t k = 0; k < RTE_DIM(strings); k++) {
		const json_t *j = json_object_get(req, strings[k]);
		if (j != NULL && (!json_is_string(j) || json_string_length(j) == 0 ||
				  json_string_length(j) >= 64)) {
			snprintf(err, err_len, "\"%s\" must be a string of 1..63 bytes", strings[k]);
			goto reject;
		}
	}
	if (name != NULL && !aif_name_valid(name)) {
		snprintf(err, err_len, "\"name\": invalid name '%s' (1..31 characters from A-Z "
			 "a-z 0-9 _ . -)", name);
		goto reject;
	}
	if (obj == NULL || (buf = aif_base64_decode(obj, &len)) == NULL) {
		snprintf(err, err_len, "lb_load needs \"object\": the object file's bytes in "
			 "base64 (aifabricctl lb load FILE.o sends them)");
		goto reject;
	}
	if (tcj != NULL && (!json_is_integer(tcj) || json_integer_value(tcj) < 0 ||
			    json_integer_value(tcj) > 7)) {
		snprintf(err, err_len, "\"tc\" must be a traffic class 0..7");
		goto reject;
	}
	if (tcj != NULL && group != NULL) {
		snprintf(err, err_len, "give \"tc\" or \"group\", not both");
		goto reject;
	}
	if (tsj != NULL && (!json_is_integer(tsj) || json_integer_value(tsj) < 16 ||
			    json_integer_value(tsj) > (1 << 24))) {
		snprintf(err, err_len, "\"table_size\" must be a power of two 16..2^24");
		goto reject;
	}
	int swi = -1;
	if (sw != NULL && (swi = switch_index(c, sw)) < 0) {
		snprintf(err, err_len, "unknown switch '%s'", sw);
		goto reject;
	}
	if (group != NULL) {
		bool any = false;
		for (uint16_t i = 0; i < c->n_sw; i++)
			if ((swi < 0 || swi == i) && has_group(c, i, group))
				any = true;
		if (!any) {
			snprintf(err, err_len, "no group '%s' on %s%s", group,
				 swi < 0 ? "any switch" : "switch ", swi < 0 ? "" : sw);
			goto reject;
		}
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL) {
		snprintf(err, err_len, "out of memory");
		goto reject;
	}
	e->prog = aif_lb_prog_load(buf, len, file != NULL ? file : "object", prog,
				   tsj != NULL ? (uint32_t)json_integer_value(tsj) : 0, why,
				   sizeof(why));
	if (e->prog == NULL) {
		snprintf(err, err_len, "%s", why);
		goto reject;
	}
	if (name == NULL && !aif_name_valid(e->prog->name)) {
		snprintf(err, err_len, "the program's name '%.64s' is not a name (1..31 "
			 "characters from A-Z a-z 0-9 _ . -): give --name", e->prog->name);
		goto reject;
	}
	snprintf(e->name, sizeof(e->name), "%s", name != NULL ? name : e->prog->name);
	for (uint8_t j = 0; j < c->cfg->n_lb_programs; j++)
		if (strcmp(c->cfg->lb_programs[j].name, e->name) == 0) {
			snprintf(err, err_len, "'%s' is a program of the config: give another "
				 "--name", e->name);
			goto reject;
		}
	snprintf(e->spec.name, sizeof(e->spec.name), "%s", e->name);
	snprintf(e->spec.object, sizeof(e->spec.object), "%s", file != NULL ? file : "");
	snprintf(e->spec.program, sizeof(e->spec.program), "%s", e->prog->name);
	e->spec.table_size = e->prog->table_size;
	e->client = true;
	e->sw = swi;
	e->tc_mask = group != NULL ? 0 : tcj != NULL ? (uint8_t)(1u << json_integer_value(tcj))
						     : 0xFF;
	snprintf(e->group, sizeof(e->group), "%s", group != NULL ? group : "");
	old = aif_lb_progs_client(&c->lb, e->name); /* replaced: its attachment goes */
	if (old != NULL)
		old->client = false;
	if (aif_lb_progs_add(&c->lb, e) != 0) {
		snprintf(err, err_len, "more than %d programs loaded", AIF_LB_LOADED_MAX);
		if (old != NULL)
			old->client = true;
		goto reject;
	}
	if (aif_ctl_apply_config(c, aif_config_ref(c->cfg), err, err_len) != 0) {
		aif_lb_progs_remove(&c->lb, e); /* (freed below) */
		if (old != NULL)
			old->client = true;
		goto reject;
	}
	free(buf);
	c->lb.loads++;
	return json_pack("{s:s, s:s, s:i, s:s, s:s, s:i, s:s, s:s}", "loaded", e->name,
			 "section", e->prog->section, "instructions", (int)e->prog->n_insns,
			 "engine", e->prog->jit != NULL ? "jit" : "interpreter",
			 "engine_why", e->prog->interp_why,
			 "table_size", (int)e->prog->table_size,
			 "switch", swi < 0 ? "all" : sw,
			 "replaced", old != NULL ? "yes" : "no");
reject:
	if (e != NULL)
		aif_lb_loaded_free(e, &v);
	free(buf);
	c->lb.rejected++;
	return NULL;
}

json_t *
aif_ctl_lb_unload(struct aif_ctl *c, json_t *req, char *err, size_t err_len)
{
	const char *name = json_string_value(json_object_get(req, "name"));
	struct aif_lb_loaded *e;

	if (name == NULL) {
		snprintf(err, err_len, "lb_unload needs \"name\"");
		return NULL;
	}
	e = aif_lb_progs_client(&c->lb, name);
	if (e == NULL) {
		for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
			if (c->lb.e[k] != NULL && strcmp(c->lb.e[k]->name, name) == 0) {
				snprintf(err, err_len, "'%s' comes from the config: load a config "
					 "without it", name);
				return NULL;
			}
		snprintf(err, err_len, "no program '%s' loaded", name);
		return NULL;
	}
	e->client = false;
	if (c->cfg == NULL || aif_ctl_apply_config(c, aif_config_ref(c->cfg), err, err_len) != 0) {
		e->client = true;
		return NULL;
	}
	c->lb.unloads++; /* (the apply freed it) */
	return json_pack("{s:s}", "unloaded", name);
}

json_t *
aif_ctl_show_lb(struct aif_ctl *c, const struct aif_switch *sw)
{
	const struct aif_tables *t = sw->tables;
	json_t *arr = json_array();
	int i = switch_index(c, sw->name);

	for (unsigned k = 0; t != NULL && i >= 0 && k < AIF_LB_LOADED_MAX; k++) {
		const struct aif_lb_loaded *e = c->lb.e[k];
		int slot = -1;
		if (e == NULL)
			continue;
		for (uint8_t s = 0; s < t->n_lb_progs; s++)
			if (t->lb_progs[s].prog == e->prog)
				slot = s;
		if (slot < 0)
			continue; /* not running on this switch */
		json_t *where = json_array();
		for (unsigned tc = 0; tc < 8; tc++)
			if (t->lb.scheme_by_tc[tc] == AIF_LB_PROG && t->lb_prog_by_tc[tc] == slot) {
				char w[16];
				snprintf(w, sizeof(w), "tc %u", tc);
				json_array_append_new(where, json_string(w));
			}
		for (uint32_t g = 0; g < t->n_groups; g++)
			/* (a route's copy of a group, withdraw.h: named once) */
			if (t->groups[g].prog == slot + 1 && t->groups[g].withdrawn == 0) {
				char w[AIF_NAME_MAX + 8];
				snprintf(w, sizeof(w), "group %s", t->groups[g].name);
				json_array_append_new(where, json_string(w));
			}
		uint64_t runs = 0, fallbacks = 0, ctr[AIF_LB_PROG_COUNTERS] = { 0 };
		for (uint16_t s = 0; s < sw->n_shards && e->st[i] != NULL; s++) {
			const struct aif_lb_prog_state *st = e->st[i][s];
			runs += __atomic_load_n(&st->runs, __ATOMIC_RELAXED);
			fallbacks += __atomic_load_n(&st->fallbacks, __ATOMIC_RELAXED);
			for (unsigned x = 0; x < AIF_LB_PROG_COUNTERS; x++)
				ctr[x] += __atomic_load_n(&st->counters[x], __ATOMIC_RELAXED);
		}
		json_t *cj = json_array();
		for (unsigned x = 0; x < AIF_LB_PROG_COUNTERS; x++)
			json_array_append_new(cj, json_integer((json_int_t)ctr[x]));
		json_array_append_new(arr, json_pack(
			"{s:s, s:s, s:s, s:s, s:i, s:s, s:s, s:I, s:i, s:o, s:I, s:I, s:o}",
			"name", e->name, "source", e->from_config ? "config" : "client",
			"object", e->spec.object, "section", e->prog->section,
			"instructions", (int)e->prog->n_insns,
			"engine", e->prog->jit != NULL ? "jit" : "interpreter",
			"engine_why", e->prog->interp_why,
			"jit_bytes", (json_int_t)e->prog->jit_bytes,
			"table_size", (int)e->prog->table_size, "where", where,
			"runs", (json_int_t)runs, "fallbacks", (json_int_t)fallbacks,
			"counters", cj));
	}
	return json_pack("{s:o}", "programs", arr);
}
