/* SPDX-License-Identifier: BSD-3-Clause */
/* A program with a global variable (a map to libbpf): refused. */
#include <aifabric/lb_prog.h>

static uint64_t packets;

AIF_LB_PROG("global")
uint64_t
global(const struct aif_lb_prog_ctx *c)
{
	packets++;
	return c->hash % c->n_members;
}
