/* SPDX-License-Identifier: BSD-3-Clause */
/* A program outside the aifabric/lb sections: refused. */
#include <aifabric/lb_prog.h>

__attribute__((section("xdp"), used)) uint64_t
elsewhere(const struct aif_lb_prog_ctx *c)
{
	return c->hash % c->n_members;
}
