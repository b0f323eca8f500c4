/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading load-balancing programs out of an eBPF object file with libbpf
 * (lb_prog_elf.c).  Kept apart from lb_prog.c: libbpf's headers and DPDK's
 * rte_bpf headers define the same instruction macros.
 *
 * An object may hold several programs; those in a section named
 * "aifabric/lb" or "aifabric/lb/NAME" (include/aifabric/lb_prog.h,
 * AIF_LB_PROG) are load-balancing programs, named by NAME (else by the
 * function's name).  Objects with maps or global variables are refused:
 * their instructions refer to memory that is not there.  An object's
 * section headers, symbols and relocations are checked before libbpf
 * reads it (lb_prog_elf.c: libbpf trusts them).
 */
#ifndef AIF_LB_PROG_ELF_H
#define AIF_LB_PROG_ELF_H

#include <stddef.h>
#include <stdint.h>

#define AIF_LB_ELF_NAME_MAX 64

/* One program's instructions as the object has them (8 bytes each). */
struct aif_lb_elf_prog {
	char name[AIF_LB_ELF_NAME_MAX];
	char section[128];
	uint64_t *insns;
	uint32_t n_insns;
};

/*
 * Read the program called name (NULL: the object's only load-balancing
 * program) from the object in buf[0..len) (what is shown as file in
 * errors).  0 and *out (free it with aif_lb_elf_prog_free), or -1 and the
 * reason in err.
 */
int aif_lb_elf_read(const void *buf, size_t len, const char *file, const char *name,
		    struct aif_lb_elf_prog *out, char *err, size_t err_len);
void aif_lb_elf_prog_free(struct aif_lb_elf_prog *p);

#endif /* AIF_LB_PROG_ELF_H */
