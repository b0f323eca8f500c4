/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balancing programs in the daemon (lb_progs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "../pipelines/lb_prog.h"
#include "ctl_server.h"
#include "lb_progs.h"

static bool
spec_eq(const struct aif_lb_prog_spec *a, const struct aif_lb_prog_spec *b)
{
	return strcmp(a->name, b->name) == 0 && strcmp(a->object, b->object) == 0 &&
	       strcmp(a->program, b->program) == 0 && a->table_size == b->table_size;
}

/* The config entry loaded as spec declares (prepare loads one at most),
 * or NULL. */
static struct aif_lb_loaded *
config_entry(struct aif_lb_progs *r, const struct aif_lb_prog_spec *spec)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++) {
		struct aif_lb_loaded *e = r->e[k];
		if (e != NULL && e->from_config && spec_eq(&e->spec, spec))
			return e;
	}
	return NULL;
}

struct aif_lb_loaded *
aif_lb_progs_client(struct aif_lb_progs *r, const char *name)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		if (r->e[k] != NULL && r->e[k]->client && strcmp(r->e[k]->name, name) == 0)
			return r->e[k];
	return NULL;
}

void
aif_lb_loaded_free(struct aif_lb_loaded *e, const struct aif_lb_env *v)
{
	for (uint16_t i = 0; i < AIF_MAX_SWITCHES; i++) {
		if (e->st[i] == NULL)
			continue;
		uint16_t n = i < v->n_sw ? v->sws[i]->n_shards : 0;
		for (uint16_t s = 0; s < n; s++)
			aif_lb_prog_state_free(e->st[i][s]);
		free(e->st[i]);
	}
	aif_lb_prog_free(e->prog);
	free(e);
}

int
aif_lb_progs_add(struct aif_lb_progs *r, struct aif_lb_loaded *e)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		if (r->e[k] == NULL) {
			e->seq = ++r->seq;
			r->e[k] = e;
			return 0;
		}
	return -1;
}

void
aif_lb_progs_remove(struct aif_lb_progs *r, const struct aif_lb_loaded *e)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		if (r->e[k] == e)
			r->e[k] = NULL;
}

/* A config's object: a path (start-up config) or a name in config_dir. */
static struct aif_lb_prog *
load_spec(struct aif_lb_progs *r, const struct aif_lb_env *v, const struct aif_lb_prog_spec *sp,
	  char *err, size_t err_len)
{
	const char *prog = sp->program[0] ? sp->program : NULL;
	char why[400];
	struct aif_lb_prog *p = NULL;

	if (r->objects_by_path) {
		p = aif_lb_prog_load_file(sp->object, prog, sp->table_size, why, sizeof(why));
	} else if (v->config_dir == NULL) {
		snprintf(err, err_len, "$.lb_programs.%s.object: a config a client sends names "
			 "objects in the daemon's --config-dir, and it has none (or load the "
			 "program with aifabricctl lb load)", sp->name);
		return NULL;
	} else {
		size_t len = 0;
		if (aif_ctl_name_check(sp->object, why, sizeof(why)) == 0) {
			char *buf = aif_config_read_at(v->config_dir, sp->object, 64u << 20, &len,
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
aif_lb_progs_prepare(struct aif_lb_progs *r, const struct aif_lb_env *v,
		     const struct aif_config *cfg, char *err,
		     size_t err_len)
{
	for (uint8_t k = 0; k < cfg->n_lb_programs; k++) {
		const struct aif_lb_prog_spec *sp = &cfg->lb_programs[k];
		if (config_entry(r, sp) != NULL)
			continue; /* loaded as declared */
		if (aif_lb_progs_client(r, sp->name) != NULL) {
			snprintf(err, err_len, "$.lb_programs.%s: a program a client loaded has "
				 "that name (lb unload it first)", sp->name);
			return -1;
		}
		struct aif_lb_loaded *e = calloc(1, sizeof(*e));
		if (e == NULL) {
			snprintf(err, err_len, "$.lb_programs.%s: out of memory", sp->name);
			return -1;
		}
		e->prog = load_spec(r, v, sp, err, err_len);
		if (e->prog == NULL) {
			free(e);
			r->rejected++;
			return -1;
		}
		snprintf(e->name, sizeof(e->name), "%s", sp->name);
		e->spec = *sp;
		e->from_config = true;
		e->sw = -1;
		if (aif_lb_progs_add(r, e) != 0) {
			snprintf(err, err_len, "$.lb_programs.%s: more than %d programs loaded",
				 sp->name, AIF_LB_LOADED_MAX);
			aif_lb_loaded_free(e, v);
			return -1;
		}
		r->loads++;
	}
	return 0;
}

/* The index of e in t->lb_progs, added (with its states on switch i). */
static int
ref_of(const struct aif_lb_env *v, uint16_t i, struct aif_tables *t, struct aif_lb_loaded *e, char *err,
       size_t err_len)
{
	for (uint8_t k = 0; k < t->n_lb_progs; k++)
		if (t->lb_progs[k].prog == e->prog)
			return k;
	if (t->n_lb_progs >= AIF_LB_MAX_PROGS) {
		snprintf(err, err_len, "switch %s: more than %d load-balancing programs",
			 v->sws[i]->name, AIF_LB_MAX_PROGS);
		return -1;
	}
	if (e->st[i] == NULL) {
		uint16_t n = v->sws[i]->n_shards;
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
aif_lb_progs_attach(struct aif_lb_progs *r, const struct aif_lb_env *v, uint16_t i, const struct aif_config *cfg,
		    struct aif_tables *t, char *err, size_t err_len)
{
	struct aif_lb_loaded *order[AIF_LB_LOADED_MAX];
	unsigned n = 0;
	int k;

	t->n_lb_progs = 0;
	for (unsigned tc = 0; tc < 8; tc++) {
		if (t->lb.scheme_by_tc[tc] != AIF_LB_PROG)
			continue;
		struct aif_lb_loaded *e = config_entry(r,
						       &cfg->lb_programs[t->lb.prog_by_tc[tc]]);
		if (e == NULL) {
			snprintf(err, err_len, "$.lb_programs.%s: not loaded",
				 cfg->lb_programs[t->lb.prog_by_tc[tc]].name);
			return -1;
		}
		if ((k = ref_of(v, i, t, e, err, err_len)) < 0)
			return -1;
		t->lb_prog_by_tc[tc] = (uint8_t)k;
	}
	/* client attachments, oldest first */
	for (unsigned j = 0; j < AIF_LB_LOADED_MAX; j++)
		if (r->e[j] != NULL && r->e[j]->client &&
		    (r->e[j]->sw < 0 || r->e[j]->sw == i))
			order[n++] = r->e[j];
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
				snprintf(err, err_len, "switch %s has no group %s", v->sws[i]->name,
					 e->group);
				return -1;
			}
		}
		if ((k = ref_of(v, i, t, e, err, err_len)) < 0)
			return -1;
		if (g != NULL) {
			/* and the routes' copies of it (withdraw.h), which
			 * follow it in the tables under its name */
			for (uint32_t x = (uint32_t)(g - t->groups); x < t->n_groups; x++)
				if (strcmp(t->groups[x].name, e->group) == 0)
					t->groups[x].prog = (uint8_t)(k + 1);
			continue;
		}
		for (unsigned tc = 0; tc < 8; tc++)
			if ((e->tc_mask >> tc) & 1) {
				t->lb.scheme_by_tc[tc] = AIF_LB_PROG;
				t->lb_prog_by_tc[tc] = (uint8_t)k;
			}
	}
	for (uint8_t k = 0; k < t->n_lb_progs; k++)
		if (t->lb_progs[k].prog->ctx_uses & AIF_LB_CTX_GROUP) {
			/* it reads the members: queue depths and load bands kept */
			t->lb_adaptive = true;
			t->lb_load_aware = true;
		}
	return 0;
}

/* Does a switch's published tables run e's program? */
static bool
published(const struct aif_lb_loaded *e, const struct aif_lb_env *v)
{
	for (uint16_t i = 0; i < v->n_sw; i++) {
		const struct aif_tables *t = v->sws[i]->tables;
		for (uint8_t k = 0; t != NULL && k < t->n_lb_progs; k++)
			if (t->lb_progs[k].prog == e->prog)
				return true;
	}
	return false;
}

void
aif_lb_progs_gc(struct aif_lb_progs *r, const struct aif_lb_env *v)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++) {
		struct aif_lb_loaded *e = r->e[k];
		bool keep = false;
		if (e == NULL)
			continue;
		if (e->client || published(e, v))
			keep = true; /* (after a rejected apply the old tables still run it) */
		else if (e->from_config && v->running != NULL)
			for (uint8_t j = 0; j < v->running->n_lb_programs && !keep; j++)
				keep = config_entry(r, &v->running->lb_programs[j]) == e;
		if (!keep) {
			r->e[k] = NULL;
			aif_lb_loaded_free(e, v);
		}
	}
}

void
aif_lb_progs_free(struct aif_lb_progs *r, const struct aif_lb_env *v)
{
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		if (r->e[k] != NULL) {
			aif_lb_loaded_free(r->e[k], v);
			r->e[k] = NULL;
		}
}

