/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route tables: freeing them (control/compile.c builds them; the switch
 * frees the old ones after publication, tables.h).
 */
#include <stdlib.h>

#include <rte_fib.h>
#include <rte_fib6.h>

#include "tables.h"

void
aif_tables_free(struct aif_tables *t)
{
	if (t == NULL)
		return;
	rte_fib_free(t->fib4);
	rte_fib6_free(t->fib6);
	aif_lpm_free(t->lpm4);
	aif_lpm_free(t->lpm6);
	free(t->groups);
	free(t->members);
	free(t->buckets);
	free(t->qos);
	free(t);
}
