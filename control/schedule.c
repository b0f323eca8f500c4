/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A run's scheduled actions from its options (schedule.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../pipelines/lb_prog.h"
#include "base64.h"
#include "commands.h"
#include "config.h"
#include "schedule.h"

/* --link NAME@SECONDS=ACTION into actions sorted by time (stable); -1
 * with a message on a bad one. */
static int
link_events(const struct aif_opts *o, const struct aif_ctl *ctl, struct aif_ctl_action *acts)
{
	for (unsigned i = 0; i < o->n_link_ev; i++) {
		const char *a = o->link_ev[i], *at = strrchr(a, '@'), *eq = strchr(at, '=');
		char name[2 * AIF_NAME_MAX + 4], *end;
		struct aif_ctl_action *x = &acts[i];

		snprintf(name, sizeof(name), "%.*s", (int)(at - a), a);
		int k = aif_ctl_find_link(ctl, name);
		if (k < 0) {
			fprintf(stderr, "--link '%s': no emulated link '%s' (a link's name, e.g. "
				"%s, or one of its ends)\n", a, name,
				ctl->n_links ? ctl->links[0]->name : "none in this config");
			return -1;
		}
		double t = strtod(at + 1, &end);
		if (end != eq || !(t >= 0) || t > 1e6) {
			fprintf(stderr, "--link '%s': '%.*s' is not a time in seconds\n", a,
				(int)(eq - at - 1), at + 1);
			return -1;
		}
		*x = (struct aif_ctl_action){ .at_ns = (aif_time_ns)(t * 1e9 + 0.5),
						.link = (uint32_t)k, .up = -1, .loss_rate = -1,
						.corrupt_rate = -1 };
		const char *act = eq + 1;
		double r = 0;
		if (strcmp(act, "down") == 0 || strcmp(act, "up") == 0)
			x->up = act[0] == 'u';
		else if ((strncmp(act, "loss:", 5) == 0 || strncmp(act, "corrupt:", 8) == 0) &&
			 (r = strtod(strchr(act, ':') + 1, &end), *end == '\0') && r >= 0 && r <= 1)
			*(act[0] == 'l' ? &x->loss_rate : &x->corrupt_rate) = r;
		else {
			fprintf(stderr, "--link '%s': action '%s' is not down, up, loss:RATE or "
				"corrupt:RATE (RATE 0..1)\n", a, act);
			return -1;
		}
	}
	return 0;
}

/*
 * --lb SECONDS=load:FILE.o[,name=N][,tc=N|,group=G][,switch=S][,program=P]
 * and --lb SECONDS=unload:NAME into request actions after the n links ones;
 * the object is read and checked now (a bad one stops the run before it
 * starts).  Then all of them sorted by time (stable).  -1 with a message.
 */
static int
lb_events(const struct aif_opts *o, struct aif_ctl_action *acts, unsigned n)
{
	for (unsigned i = 0; i < o->n_lb_ev; i++) {
		const char *a = o->lb_ev[i], *eq = strchr(a, '=');
		struct aif_ctl_action *x = &acts[n + i];
		char *end = NULL;
		double t = eq != NULL ? strtod(a, &end) : -1;
		if (eq == NULL || end != eq || !(t >= 0) || t > 1e6) {
			fprintf(stderr, "--lb '%s': expected SECONDS=load:FILE.o[,...] or "
				"SECONDS=unload:NAME\n", a);
			return -1;
		}
		json_t *req = NULL;
		if (strncmp(eq + 1, "unload:", 7) == 0 && eq[8] != '\0') {
			req = json_pack("{s:s, s:s}", "cmd", "lb_unload", "name", eq + 8);
		} else if (strncmp(eq + 1, "load:", 5) == 0) {
			char spec[PATH_MAX], err[512], *save = NULL;
			snprintf(spec, sizeof(spec), "%s", eq + 6);
			char *file = strtok_r(spec, ",", &save);
			req = json_pack("{s:s}", "cmd", "lb_load");
			const char *prog = NULL;
			for (char *kv = strtok_r(NULL, ",", &save); kv != NULL;
			     kv = strtok_r(NULL, ",", &save)) {
				char *v = strchr(kv, '=');
				if (v == NULL) {
					fprintf(stderr, "--lb '%s': '%s' is not KEY=VALUE\n", a, kv);
					json_decref(req);
					return -1;
				}
				*v++ = '\0';
				if (strcmp(kv, "tc") == 0) {
					char *e2;
					long tc = strtol(v, &e2, 10);
					if (*v == '\0' || *e2 != '\0' || tc < 0 || tc > 7) {
						fprintf(stderr, "--lb '%s': tc=%s is not a traffic "
							"class 0..7\n", a, v);
						json_decref(req);
						return -1;
					}
					json_object_set_new(req, "tc", json_integer(tc));
				} else if (strcmp(kv, "name") == 0 || strcmp(kv, "group") == 0 ||
					   strcmp(kv, "switch") == 0 || strcmp(kv, "program") == 0) {
					json_object_set_new(req, kv, json_string(v));
					if (kv[0] == 'p')
						prog = json_string_value(json_object_get(req, "program"));
				} else {
					fprintf(stderr, "--lb '%s': unknown key '%s' (name, tc, group, "
						"switch, program)\n", a, kv);
					json_decref(req);
					return -1;
				}
			}
			struct aif_lb_prog *p = file != NULL ?
				aif_lb_prog_load_file(file, prog, 0, err, sizeof(err)) : NULL;
			if (p == NULL) {
				fprintf(stderr, "--lb '%s': %s\n", a, file != NULL ? err : "no FILE.o");
				json_decref(req);
				return -1;
			}
			aif_lb_prog_free(p);
			size_t len = 0;
			char text_err[256];
			char *bytes = aif_config_read_file(file, &len, text_err, sizeof(text_err));
			char *b64 = bytes != NULL ? aif_base64_encode((const uint8_t *)bytes, len) : NULL;
			if (b64 == NULL) {
				fprintf(stderr, "--lb '%s': %s\n", a, bytes == NULL ? text_err :
					"out of memory");
				free(bytes);
				json_decref(req);
				return -1;
			}
			const char *base = strrchr(file, '/');
			json_object_set_new(req, "file", json_string(base != NULL ? base + 1 : file));
			json_object_set_new(req, "object", json_string(b64 != NULL ? b64 : ""));
			free(bytes);
			free(b64);
		} else {
			fprintf(stderr, "--lb '%s': expected load:FILE.o[,...] or unload:NAME after "
				"'='\n", a);
			return -1;
		}
		*x = (struct aif_ctl_action){ .at_ns = (aif_time_ns)(t * 1e9 + 0.5),
						.request = json_dumps(req, JSON_COMPACT) };
		json_decref(req);
		if (x->request == NULL) {
			fprintf(stderr, "--lb: out of memory\n");
			return -1;
		}
	}
	/* insertion sort: stable, few */
	for (unsigned i = 1; i < n + o->n_lb_ev; i++)
		for (unsigned j = i; j > 0 && acts[j - 1].at_ns > acts[j].at_ns; j--) {
			struct aif_ctl_action t = acts[j];
			acts[j] = acts[j - 1];
			acts[j - 1] = t;
		}
	return 0;
}

int
aif_schedule_parse(const struct aif_opts *o, const struct aif_ctl *ctl,
		   struct aif_ctl_action *acts)
{
	return link_events(o, ctl, acts) != 0 || lb_events(o, acts, o->n_link_ev) != 0 ? -1 : 0;
}

void
aif_schedule_free(struct aif_ctl_action *acts, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(acts[i].request);
		acts[i].request = NULL;
	}
}
