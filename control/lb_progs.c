/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balancing programs in the daemon (lb_progs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "../pipelines/lb_prog.h"
#include "commands.h"
#include "ctl_server.h"
#include "lb_progs.h"

static bool
spec_eq(const struct aif_lb_prog_spec *a, const struct aif_lb_prog_spec *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->object, b->object) == 0 &&
	       strcmp(a->program, b->program) == 0 && a->table_size == b->table_size;
}

/* The newest config entry loaded as spec declares, or NULL. */
static struct aif_lb_loaded *
config_entry(struct aif_lb_progs *r, const struct aif_lb_prog_spec *spec)
{
	struct aif_lb_loaded *best = NULL;

	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++) {
		struct aif_lb_loaded *e = r->e[k];
		if (e != NULL && e->from_config && spec_eq(&e->spec, spec) &&
		    (best == NULL || e->seq > best->seq))
			best = e;
	}
	return best;
}

static struct aif_lb_loaded *
client_entry(struct aif_lb_progs *r, const char *name)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		if (r->e[k] != NULL && r->e[k]->client && strcmp(r->e[k]->name, name) == 0)
			return r->e[k];
	return NULL;
}

static void
entry_free(struct aif_ctl *c, struct aif_lb_loaded *e)
{
	for (uint16_t i = 0; i < AIF_MAX_SWITCHES; i++) {
		if (e->st[i] == NULL)
			continue;
		uint16_t n = i < c->n_sw ? c->sws[i]->n_shards : 0;
		for (uint16_t s = 0; s < n; s++)
			aif_lb_prog_state_free(e->st[i][s]);
		free(e->st[i]);
	}
	aif_lb_prog_free(e->prog);
	free(e);
}

static int
entry_add(struct aif_lb_progs *r, struct aif_lb_loaded *e)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		if (r->e[k] == NULL) {
			e->seq = ++r->seq;
			r->e[k] = e;
			return 0;
		}
	return -1;
}

static void
entry_remove(struct aif_lb_progs *r, const struct aif_lb_loaded *e)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		if (r->e[k] == e)
			r->e[k] = NULL;
}

/* A config's object: a path (start-up config) or a name in config_dir. */
static struct aif_lb_prog *
load_spec(struct aif_ctl *c, const struct aif_lb_prog_spec *sp, char *err, size_t err_len)
{
	const char *prog = sp->program[0] ? sp->program : NULL;
	char why[400];
	struct aif_lb_prog *p = NULL;

	if (c->lb.objects_by_path) {
		p = aif_lb_prog_load_file(sp->object, prog, sp->table_size, why, sizeof(why));
	} else if (c->config_dir == NULL) {
		snprintf(err, err_len, "$.lb_programs.%s.object: a config a client sends names "
			 "objects in the daemon's --config-dir, and it has none (or load the "
			 "program with aifabricctl lb load)", sp->name);
		return NULL;
	} else {
		size_t len = 0;
		if (aif_ctl_name_check(sp->object, why, sizeof(why)) == 0) {
			char *buf = aif_config_read_at(c->config_dir, sp->object, 64u << 20, &len,
						       why, sizeof(why));
			if (buf != NULL)
				p = aif_lb_prog_load(buf, len, sp->object, prog, sp->table_size, why,
						     sizeof(why));
			free(buf);
		}
	}
	if (p == NULL)
		snprintf(err, err_len, "$.lb_programs.%s.object: %s", sp->name, why);
	return p;
}

int
aif_lb_progs_prepare(struct aif_ctl *c, const struct aif_config *cfg, char *err,
		     size_t err_len)
{
	for (uint8_t k = 0; k < cfg->n_lb_programs; k++) {
		const struct aif_lb_prog_spec *sp = &cfg->lb_programs[k];
		if (config_entry(&c->lb, sp) != NULL)
			continue; /* loaded as declared */
		if (client_entry(&c->lb, sp->name) != NULL) {
			snprintf(err, err_len, "$.lb_programs.%s: a program a client loaded has "
				 "that name (lb unload it first)", sp->name);
			return -1;
		}
		struct aif_lb_loaded *e = calloc(1, sizeof(*e));
		if (e == NULL) {
			snprintf(err, err_len, "$.lb_programs.%s: out of memory", sp->name);
			return -1;
		}
		e->prog = load_spec(c, sp, err, err_len);
		if (e->prog == NULL) {
			free(e);
			c->lb.rejected++;
			return -1;
		}
		snprintf(e->name, sizeof(e->name), "%s", sp->name);
		e->spec = *sp;
		e->from_config = true;
		e->sw = -1;
		if (entry_add(&c->lb, e) != 0) {
			snprintf(err, err_len, "$.lb_programs.%s: more than %d programs loaded",
				 sp->name, AIF_LB_LOADED_MAX);
			entry_free(c, e);
			return -1;
		}
		c->lb.loads++;
	}
	return 0;
}

/* The index of e in t->lb_progs, added (with its states on switch i). */
static int
ref_of(struct aif_ctl *c, uint16_t i, struct aif_tables *t, struct aif_lb_loaded *e, char *err,
       size_t err_len)
{
	for (uint8_t k = 0; k < t->n_lb_progs; k++)
		if (t->lb_progs[k].prog == e->prog)
			return k;
	if (t->n_lb_progs >= AIF_LB_MAX_PROGS) {
		snprintf(err, err_len, "switch %s: more than %d load-balancing programs",
			 c->sws[i]->name, AIF_LB_MAX_PROGS);
		return -1;
	}
	if (e->st[i] == NULL) {
		uint16_t n = c->sws[i]->n_shards;
		e->st[i] = calloc(n ? n : 1, sizeof(*e->st[i]));
		for (uint16_t s = 0; e->st[i] != NULL && s < n; s++)
			if ((e->st[i][s] = aif_lb_prog_state_new(e->prog)) == NULL) {
				while (s-- > 0)
					aif_lb_prog_state_free(e->st[i][s]);
				free(e->st[i]);
				e->st[i] = NULL;
			}
		if (e->st[i] == NULL) {
			snprintf(err, err_len, "program %s: out of memory for its flow tables",
				 e->name);
			return -1;
		}
	}
	t->lb_progs[t->n_lb_progs] = (struct aif_lb_prog_ref){ .prog = e->prog, .st = e->st[i] };
	return t->n_lb_progs++;
}

int
aif_lb_progs_attach(struct aif_ctl *c, uint16_t i, const struct aif_config *cfg,
		    struct aif_tables *t, char *err, size_t err_len)
{
	struct aif_lb_loaded *order[AIF_LB_LOADED_MAX];
	unsigned n = 0;
	int k;

	t->n_lb_progs = 0;
	for (unsigned tc = 0; tc < 8; tc++) {
		if (t->lb.scheme_by_tc[tc] != AIF_LB_PROG)
			continue;
		struct aif_lb_loaded *e = config_entry(&c->lb,
						       &cfg->lb_programs[t->lb.prog_by_tc[tc]]);
		if (e == NULL) {
			snprintf(err, err_len, "$.lb_programs.%s: not loaded",
				 cfg->lb_programs[t->lb.prog_by_tc[tc]].name);
			return -1;
		}
		if ((k = ref_of(c, i, t, e, err, err_len)) < 0)
			return -1;
		t->lb_prog_by_tc[tc] = (uint8_t)k;
	}
	/* client attachments, oldest first */
	for (unsigned j = 0; j < AIF_LB_LOADED_MAX; j++)
		if (c->lb.e[j] != NULL && c->lb.e[j]->client &&
		    (c->lb.e[j]->sw < 0 || c->lb.e[j]->sw == i))
			order[n++] = c->lb.e[j];
	for (unsigned a = 1; a < n; a++)
		for (unsigned b = a; b > 0 && order[b]->seq < order[b - 1]->seq; b--)
			RTE_SWAP(order[b], order[b - 1]);
	for (unsigned j = 0; j < n; j++) {
		struct aif_lb_loaded *e = order[j];
		struct aif_group *g = NULL;
		if (e->group[0] != '\0') {
			for (uint32_t x = 0; x < t->n_groups && g == NULL; x++)
				if (strcmp(t->groups[x].name, e->group) == 0)
					g = &t->groups[x];
			if (g == NULL && e->sw < 0)
				continue; /* on the switches that have it */
			if (g == NULL) {
				snprintf(err, err_len, "switch %s has no group %s", c->sws[i]->name,
					 e->group);
				return -1;
			}
		}
		if ((k = ref_of(c, i, t, e, err, err_len)) < 0)
			return -1;
		if (g != NULL) {
			g->prog = (uint8_t)(k + 1);
			continue;
		}
		for (unsigned tc = 0; tc < 8; tc++)
			if ((e->tc_mask >> tc) & 1) {
				t->lb.scheme_by_tc[tc] = AIF_LB_PROG;
				t->lb_prog_by_tc[tc] = (uint8_t)k;
			}
	}
	if (t->n_lb_progs > 0) {
		/* programs see queue depths and load bands */
		t->lb_adaptive = true;
		t->lb_load_aware = true;
	}
	return 0;
}

void
aif_lb_progs_gc(struct aif_ctl *c)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++) {
		struct aif_lb_loaded *e = c->lb.e[k];
		bool keep = false;
		if (e == NULL)
			continue;
		if (e->client)
			keep = true;
		else if (e->from_config && c->cfg != NULL)
			for (uint8_t j = 0; j < c->cfg->n_lb_programs && !keep; j++)
				keep = config_entry(&c->lb, &c->cfg->lb_programs[j]) == e;
		if (!keep) {
			c->lb.e[k] = NULL;
			entry_free(c, e);
		}
	}
}

void
aif_lb_progs_free(struct aif_ctl *c)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		if (c->lb.e[k] != NULL) {
			entry_free(c, c->lb.e[k]);
			c->lb.e[k] = NULL;
		}
}

/* ---- commands ---- */

static int
b64_value(char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	return ch == '+' ? 62 : ch == '/' ? 63 : -1;
}

/* Base64 text -> bytes (malloc'd); NULL if it is not base64. */
static uint8_t *
b64_decode(const char *s, size_t *len)
{
	size_t n = strlen(s), at = 0;
	uint8_t *out = malloc(n / 4 * 3 + 3);
	uint32_t acc = 0;
	int bits = 0;

	if (out == NULL || n % 4 != 0) {
		free(out);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '=') {
			if (i + 2 < n || (i + 1 < n && s[i + 1] != '='))
				break;
			*len = at;
			return out;
		}
		int v = b64_value(s[i]);
		if (v < 0)
			break;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[at++] = (uint8_t)(acc >> bits);
		}
		if (i + 1 == n) {
			*len = at;
			return out;
		}
	}
	free(out);
	return NULL;
}

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
	char why[400];
	size_t len = 0;
	uint8_t *buf = NULL;

	if (c->cfg == NULL) {
		snprintf(err, err_len, "no config loaded");
		return NULL;
	}
	if (obj == NULL || (buf = b64_decode(obj, &len)) == NULL) {
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
	old = client_entry(&c->lb, e->name); /* replaced: its attachment goes */
	if (old != NULL)
		old->client = false;
	if (entry_add(&c->lb, e) != 0) {
		snprintf(err, err_len, "more than %d programs loaded", AIF_LB_LOADED_MAX);
		if (old != NULL)
			old->client = true;
		goto reject;
	}
	if (aif_ctl_apply_config(c, aif_config_ref(c->cfg), err, err_len) != 0) {
		entry_remove(&c->lb, e);
		if (old != NULL)
			old->client = true;
		aif_lb_progs_gc(c);
		goto reject;
	}
	free(buf);
	c->lb.loads++;
	return json_pack("{s:s, s:s, s:i, s:s, s:i, s:s, s:s}", "loaded", e->name,
			 "section", e->prog->section, "instructions", (int)e->prog->n_insns,
			 "engine", e->prog->jit != NULL ? "jit" : "interpreter",
			 "table_size", (int)e->prog->table_size,
			 "switch", swi < 0 ? "all" : sw,
			 "replaced", old != NULL ? "yes" : "no");
reject:
	if (e != NULL)
		entry_free(c, e);
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
	e = client_entry(&c->lb, name);
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
			if (t->groups[g].prog == slot + 1) {
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
			"{s:s, s:s, s:s, s:s, s:i, s:s, s:I, s:i, s:o, s:I, s:I, s:o}",
			"name", e->name, "source", e->from_config ? "config" : "client",
			"object", e->spec.object, "section", e->prog->section,
			"instructions", (int)e->prog->n_insns,
			"engine", e->prog->jit != NULL ? "jit" : "interpreter",
			"jit_bytes", (json_int_t)e->prog->jit_bytes,
			"table_size", (int)e->prog->table_size, "where", where,
			"runs", (json_int_t)runs, "fallbacks", (json_int_t)fallbacks,
			"counters", cj));
	}
	return json_pack("{s:o}", "programs", arr);
}
