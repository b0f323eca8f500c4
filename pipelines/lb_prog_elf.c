/* SPDX-License-Identifier: BSD-3-Clause */
/* Load-balancing programs out of eBPF objects, with libbpf (lb_prog_elf.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "lb_prog_elf.h"

#define SECTION "aifabric/lb"

/* libbpf's messages while one object is opened (the control thread opens
 * one at a time; libbpf's print hook is global) */
static __thread char *libbpf_msg;
static __thread size_t libbpf_msg_len;

static int
libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || libbpf_msg == NULL || libbpf_msg_len == 0)
		return 0;
	size_t used = strlen(libbpf_msg);
	if (used + 1 < libbpf_msg_len)
		vsnprintf(libbpf_msg + used, libbpf_msg_len - used, fmt, ap);
	return 0;
}

/* The program's name: NAME of "aifabric/lb/NAME", else the function's. */
static const char *
prog_name(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);

	if (strncmp(sec, SECTION "/", sizeof(SECTION)) == 0 && sec[sizeof(SECTION)] != '\0')
		return sec + sizeof(SECTION);
	return bpf_program__name(p);
}

static int
is_lb(const struct bpf_program *p)
{
	const char *sec = bpf_program__section_name(p);

	return strcmp(sec, SECTION) == 0 || strncmp(sec, SECTION "/", sizeof(SECTION)) == 0;
}

/* "a, b, c" of the sections (all: 1) or of the lb programs' names. */
static void
list(struct bpf_object *o, int sections, char *buf, size_t len)
{
	struct bpf_program *p;
	size_t at = 0;

	buf[0] = '\0';
	bpf_object__for_each_program(p, o) {
		if (!sections && !is_lb(p))
			continue;
		int k = snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
				 sections ? bpf_program__section_name(p) : prog_name(p));
		if (k < 0 || (size_t)k >= len - at)
			break;
		at += (size_t)k;
	}
	if (at == 0)
		snprintf(buf, len, "none");
}

int
aif_lb_elf_read(const void *buf, size_t len, const char *file, const char *name,
		struct aif_lb_elf_prog *out, char *err, size_t err_len)
{
	char msg[512] = "", names[256];
	struct bpf_object *o;
	struct bpf_program *p, *found = NULL;
	struct bpf_map *map;
	unsigned n_lb = 0;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	const char *base = strrchr(file, '/');
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = base != NULL ? base + 1 : file);
	libbpf_print_fn_t old = libbpf_set_print(libbpf_print);
	libbpf_msg = msg;
	libbpf_msg_len = sizeof(msg);
	o = bpf_object__open_mem(buf, len, &opts);
	libbpf_msg = NULL;
	libbpf_set_print(old);
	if (o == NULL || libbpf_get_error(o) != 0) {
		size_t l = strlen(msg);
		while (l > 0 && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
			msg[--l] = '\0';
		snprintf(err, err_len, "%s: not an eBPF object libbpf can read%s%s", file,
			 l ? ": " : "", msg);
		return -1;
	}
	bpf_object__for_each_program(p, o) {
		if (!is_lb(p))
			continue;
		n_lb++;
		if (name == NULL || strcmp(prog_name(p), name) == 0)
			found = found != NULL && name == NULL ? found : p;
	}
	if (n_lb == 0) {
		list(o, 1, names, sizeof(names));
		snprintf(err, err_len, "%s: no program in a section named " SECTION " or "
			 SECTION "/NAME (the object's sections: %s)", file, names);
		goto out;
	}
	if (found == NULL) {
		list(o, 0, names, sizeof(names));
		snprintf(err, err_len, "%s: no load-balancing program named %s (it has: %s)",
			 file, name, names);
		goto out;
	}
	if (name == NULL && n_lb > 1) {
		list(o, 0, names, sizeof(names));
		snprintf(err, err_len, "%s: %u load-balancing programs (%s): say which by name",
			 file, n_lb, names);
		goto out;
	}
	map = bpf_object__next_map(o, NULL);
	if (map != NULL) {
		snprintf(err, err_len, "section %s: the object has a map or global variables "
			 "(%s): programs keep state in the flow table and constants in "
			 "#defines", bpf_program__section_name(found), bpf_map__name(map));
		goto out;
	}
	size_t n = bpf_program__insn_cnt(found);
	if (n == 0 || n > UINT32_MAX) {
		snprintf(err, err_len, "section %s: no instructions",
			 bpf_program__section_name(found));
		goto out;
	}
	out->insns = malloc(n * sizeof(*out->insns));
	if (out->insns == NULL) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	memcpy(out->insns, bpf_program__insns(found), n * sizeof(*out->insns));
	out->n_insns = (uint32_t)n;
	snprintf(out->name, sizeof(out->name), "%s", prog_name(found));
	snprintf(out->section, sizeof(out->section), "%s", bpf_program__section_name(found));
	ret = 0;
out:
	bpf_object__close(o);
	return ret;
}

void
aif_lb_elf_prog_free(struct aif_lb_elf_prog *p)
{
	free(p->insns);
	p->insns = NULL;
	p->n_insns = 0;
}
