/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compile a validated config into the immutable tables one switch's workers
 * read (dataplane/tables.h), and apply its static neighbours.
 *
 *	const struct aif_switch_params *sp = &cfg->switches[i];
 *	struct aif_tables *t = aif_tables_compile(sw, cfg, i, err, sizeof(err));
 *	if (t == NULL) reject(err);             // running tables untouched
 *	aif_switch_apply_neighbors(sw, sp, now); // static neighbours
 *	aif_switch_publish(sw, t);
 *	aif_switch_gc_neighbors(sw, t, sp);
 *	aif_switch_gc_member_slots(sw, t);
 *
 * The tables do not hold the config: control keeps the running config
 * (struct aif_ctl) beside the tables it published from it.
 */
#ifndef AIF_COMPILE_H
#define AIF_COMPILE_H

#include <stddef.h>
#include <stdint.h>

#include "../dataplane/switch.h"
#include "../dataplane/tables.h"
#include "config.h"

/*
 * Build tables for switch sw_index of cfg (read, not kept).  On failure
 * returns NULL with err set, and the slots the attempt took are given back.
 */
struct aif_tables *aif_tables_compile(struct aif_switch *sw, const struct aif_config *cfg,
				      uint16_t sw_index, char *err, size_t err_len);

/* Before publishing tables compiled from sp: install its static neighbours;
 * its hosts without a MAC keep a configured slot that stays unresolved
 * until the host's ARP/ND is learned (a MAC an older config gave them is
 * forgotten). */
void aif_switch_apply_neighbors(struct aif_switch *sw, const struct aif_switch_params *sp,
				aif_time_ns now_ns);
/* After publishing t, compiled from sp: free the neighbour slots nothing
 * refers to any more (t NULL: no tables run, unresolved next hops go; sp
 * NULL, after a load was undone: the entries the running config named,
 * static ones and hosts to be learned, stay as they are). */
void aif_switch_gc_neighbors(struct aif_switch *sw, const struct aif_tables *t,
			     const struct aif_switch_params *sp);
/* After publishing t: give back the counter slots of members t does not
 * name (t NULL: all of them). */
void aif_switch_gc_member_slots(struct aif_switch *sw, const struct aif_tables *t);

/* Fold a FIB next-hop value back into words for `show routes`. */
const char *aif_nh_type_name(enum aif_nh_type type);

#endif /* AIF_COMPILE_H */
