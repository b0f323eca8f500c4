/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A virtual-time run's scheduled actions, from its options: --link
 * NAME@SECONDS=ACTION (a link down, up, its loss or corruption rate) and
 * --lb SECONDS=load:FILE.o[,...] | unload:NAME (a load-balancing program
 * loaded or unloaded as aifabricctl does), into control actions sorted by
 * time (ctl_events.h aif_ctl_schedule).  A program's object is read and
 * checked now: a bad one stops the run before it starts.
 */
#ifndef AIF_SCHEDULE_H
#define AIF_SCHEDULE_H

#include "ctl_events.h"
#include "opts.h"

struct aif_ctl;

/* acts: room for o->n_link_ev + o->n_lb_ev; 0, or -1 with a message. */
int aif_schedule_parse(const struct aif_opts *o, const struct aif_ctl *ctl,
		       struct aif_ctl_action *acts);
/* The requests the actions own. */
void aif_schedule_free(struct aif_ctl_action *acts, unsigned n);

#endif /* AIF_SCHEDULE_H */
