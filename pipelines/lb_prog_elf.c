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

/* ---- the object's structure, checked before libbpf reads it ----
 *
 * libbpf (1.1, Debian 12's) trusts an object's section headers: a
 * relocation section whose target holds no data, or sections past the
 * end of the bytes, make it read through a NULL or wild pointer, and an
 * object is a client's (aifabricctl lb load).  So every header is checked
 * here first, as an ELF64 little-endian eBPF relocatable object must have
 * them: each section's bytes inside the object, names inside the section
 * name table, links and targets that are sections of the right type,
 * entry sizes as the format fixes them, string tables ending in NUL, and
 * every symbol and relocation pointing inside what it names. */

#define EHDR_LEN 64
#define SHDR_LEN 64
#define SYM_LEN 24
#define REL_LEN 16
#define RELA_LEN 24
#define MAX_SECTIONS 4096
#define SHT_NULL_ 0
#define SHT_SYMTAB_ 2
#define SHT_STRTAB_ 3
#define SHT_RELA_ 4
#define SHT_NOBITS_ 8
#define SHT_REL_ 9
#define SHT_PROGBITS_ 1
#define SHN_LORESERVE_ 0xff00u
#define SHN_XINDEX_ 0xffffu

static uint16_t
le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

struct shdr {
	uint32_t name, type, link, info;
	uint64_t off, size, align, entsize;
};

static struct shdr
shdr_at(const uint8_t *b, uint64_t shoff, unsigned i)
{
	const uint8_t *h = b + shoff + (uint64_t)i * SHDR_LEN;

	return (struct shdr){ .name = le32(h), .type = le32(h + 4), .off = le64(h + 24),
			      .size = le64(h + 32), .link = le32(h + 40), .info = le32(h + 44),
			      .align = le64(h + 48), .entsize = le64(h + 56) };
}

static int
bad(char *err, size_t err_len, const char *file, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(err, err_len, "%s: not an eBPF object libbpf can read: %s", file, why);
	return -1;
}

/* Section i's symbols and relocations (its header sh): inside what they name. */
static int
check_entries(const uint8_t *b, uint64_t shoff, unsigned n, unsigned i, const struct shdr *sh,
	      const char *file, char *err, size_t err_len)
{
	if (sh->type == SHT_SYMTAB_) {
		struct shdr st = shdr_at(b, shoff, sh->link);
		for (uint64_t k = 0; k < sh->size / SYM_LEN; k++) {
			const uint8_t *sym = b + sh->off + k * SYM_LEN;
			uint16_t shndx = le16(sym + 6);
			if (le32(sym) >= st.size && !(le32(sym) == 0 && st.size == 0))
				return bad(err, err_len, file, "symbol %llu of section %u: its name "
					   "past its string table", (unsigned long long)k, i);
			if (shndx == SHN_XINDEX_ || (shndx >= n && shndx < SHN_LORESERVE_))
				return bad(err, err_len, file, "symbol %llu of section %u: in "
					   "section %u, of %u", (unsigned long long)k, i, shndx, n);
		}
		return 0;
	}
	/* a relocation section: its symbols in its symbol table, its offsets
	 * in its target */
	struct shdr sym = shdr_at(b, shoff, sh->link), tgt = shdr_at(b, shoff, sh->info);
	uint64_t esz = sh->type == SHT_REL_ ? REL_LEN : RELA_LEN;
	for (uint64_t k = 0; k < sh->size / esz; k++) {
		const uint8_t *r = b + sh->off + k * esz;
		uint64_t off = le64(r), symi = le64(r + 8) >> 32;
		if (symi >= sym.size / SYM_LEN)
			return bad(err, err_len, file, "relocation %llu of section %u: symbol %llu "
				   "of %llu", (unsigned long long)k, i, (unsigned long long)symi,
				   (unsigned long long)(sym.size / SYM_LEN));
		if (off >= tgt.size)
			return bad(err, err_len, file, "relocation %llu of section %u: offset %llu "
				   "past its section's %llu bytes", (unsigned long long)k, i,
				   (unsigned long long)off, (unsigned long long)tgt.size);
	}
	return 0;
}

static int
check_object(const uint8_t *b, size_t len, const char *file, char *err, size_t err_len)
{
	if (len < EHDR_LEN || memcmp(b, "\177ELF", 4) != 0)
		return bad(err, err_len, file, "no ELF header");
	if (b[4] != 2 || b[5] != 1 || b[6] != 1)
		return bad(err, err_len, file, "not ELF64, little-endian, version 1");
	if (le16(b + 16) != 1 || le16(b + 18) != 247)
		return bad(err, err_len, file, "not a relocatable eBPF object (type %u, machine "
			   "%u)", le16(b + 16), le16(b + 18));
	uint64_t shoff = le64(b + 40);
	unsigned shentsize = le16(b + 58), n = le16(b + 60), shstrndx = le16(b + 62);
	if (shentsize != SHDR_LEN || n == 0 || n > MAX_SECTIONS)
		return bad(err, err_len, file, "%u section headers of %u bytes", n, shentsize);
	if (shoff > len || (len - shoff) / SHDR_LEN < n)
		return bad(err, err_len, file, "section headers past the end");
	if (shstrndx == 0 || shstrndx >= n)
		return bad(err, err_len, file, "section name table %u of %u", shstrndx, n);
	struct shdr names = shdr_at(b, shoff, shstrndx);
	for (unsigned i = 0; i < n; i++) {
		struct shdr sh = shdr_at(b, shoff, i);
		/* (every section that has bytes, the first included: a NULL
		 * one has none) */
		if (sh.type != SHT_NULL_ && sh.type != SHT_NOBITS_ &&
		    (sh.off > len || len - sh.off < sh.size))
			return bad(err, err_len, file, "section %u: bytes %llu..%llu past the end "
				   "(%zu)", i, (unsigned long long)sh.off,
				   (unsigned long long)(sh.off + sh.size), len);
		if (sh.align > 4096 || (sh.align & (sh.align - 1)) != 0)
			return bad(err, err_len, file, "section %u: alignment %llu", i,
				   (unsigned long long)sh.align);
		if (sh.link >= n)
			return bad(err, err_len, file, "section %u: links to section %u of %u", i,
				   sh.link, n);
		if (i != 0 && (sh.name >= names.size))
			return bad(err, err_len, file, "section %u: its name past the name table",
				   i);
		if (sh.type == SHT_STRTAB_ && sh.size != 0 && b[sh.off + sh.size - 1] != '\0')
			return bad(err, err_len, file, "section %u: a string table not ending "
				   "in NUL", i);
		if (sh.type == SHT_SYMTAB_ &&
		    (sh.entsize != SYM_LEN || sh.size % SYM_LEN != 0 ||
		     shdr_at(b, shoff, sh.link).type != SHT_STRTAB_))
			return bad(err, err_len, file, "section %u: a symbol table of entries of "
				   "%llu bytes, or without its string table", i,
				   (unsigned long long)sh.entsize);
		if (sh.type == SHT_REL_ || sh.type == SHT_RELA_) {
			uint64_t esz = sh.type == SHT_REL_ ? REL_LEN : RELA_LEN;
			if (sh.entsize != esz || sh.size % esz != 0 || sh.info == 0 || sh.info >= n ||
			    shdr_at(b, shoff, sh.info).type != SHT_PROGBITS_ ||
			    shdr_at(b, shoff, sh.link).type != SHT_SYMTAB_)
				return bad(err, err_len, file, "section %u: relocations of %llu "
					   "bytes, for section %u, with symbols of section %u", i,
					   (unsigned long long)sh.entsize, sh.info, sh.link);
		}
	}
	if (names.type != SHT_STRTAB_)
		return bad(err, err_len, file, "the section name table is not a string table");
	for (unsigned i = 1; i < n; i++) {
		struct shdr sh = shdr_at(b, shoff, i);
		if ((sh.type == SHT_SYMTAB_ || sh.type == SHT_REL_ || sh.type == SHT_RELA_) &&
		    check_entries(b, shoff, n, i, &sh, file, err, err_len) != 0)
			return -1;
	}
	return 0;
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
	if (check_object(buf, len, file, err, err_len) != 0)
		return -1;
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
