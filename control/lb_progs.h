/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The load-balancing programs a daemon has loaded (pipelines/lb_prog.h),
 * where they run, and the control commands about them.
 *
 * A program comes from the config ("lb_programs", used by "scheme":
 * "bpf:NAME") or from a client (lb load: the object's bytes in the request,
 * attached to some switches and to traffic classes or one group).  Each
 * has, per switch it may run on, one state per shard (flow table,
 * counters).  The tables reference programs and states; publishing tables
 * is the only way a worker starts or stops running one, so loading,
 * replacing and unloading under traffic lose nothing: the new tables are
 * compiled with everything they need, published (RCU), and what only the
 * old ones used is freed after.
 *
 * Where a program runs, per switch: traffic classes whose policy scheme is
 * bpf:NAME; then client attachments on top, in load order (a class, all
 * classes, or a group by name, which wins over its class's scheme).
 */
#ifndef AIF_LB_PROGS_H
#define AIF_LB_PROGS_H

#include <stdbool.h>
#include <stdint.h>

#include "../dataplane/switch.h"
#include "../dataplane/tables.h"
#include "config.h"

#define AIF_LB_LOADED_MAX 16 /* programs a daemon holds at once */

struct aif_lb_loaded {
	char name[64];
	struct aif_lb_prog_spec spec;  /* from the config, or what lb load said */
	bool from_config;
	bool client;                   /* attached by lb load */
	int32_t sw;                    /* client: the switch index, -1 all */
	uint8_t tc_mask;               /* client: classes (0 with a group) */
	char group[AIF_NAME_MAX];      /* client: a group ("" none) */
	struct aif_lb_prog *prog;
	/* per switch it may run on: [n_shards] states (NULL: not on it) */
	struct aif_lb_prog_state **st[AIF_MAX_SWITCHES];
	uint64_t seq;                  /* load order */
};

struct aif_lb_progs {
	struct aif_lb_loaded *e[AIF_LB_LOADED_MAX];
	uint64_t seq;
	uint64_t loads, unloads, rejected;
	/* config objects: read as paths (the operator's start-up config) or
	 * only as names in config_dir (configs sent by clients) */
	bool objects_by_path;
};

/* What the registry needs of the daemon, per call. */
struct aif_lb_env {
	struct aif_switch *const *sws; /* the switches, in config order */
	uint16_t n_sw;
	const char *config_dir;        /* --config-dir, or NULL */
	const struct aif_config *running; /* the running config, or NULL */
};

/*
 * Before a config is compiled: load the programs it declares that are not
 * loaded as declared already.  0, or -1 with err ("$.lb_programs.NAME...").
 * What it loaded stays until aif_lb_progs_gc.
 */
int aif_lb_progs_prepare(struct aif_lb_progs *r, const struct aif_lb_env *v,
			 const struct aif_config *cfg, char *err, size_t err_len);

/*
 * Fill compiled tables t of switch i (not yet published) with the programs
 * they run (above); 0, or -1 with err (a client attachment to a group the
 * switch does not have).
 */
int aif_lb_progs_attach(struct aif_lb_progs *r, const struct aif_lb_env *v, uint16_t i,
			const struct aif_config *cfg, struct aif_tables *t, char *err,
			size_t err_len);

/* After tables were published: free the programs neither the running
 * config nor a client uses. */
void aif_lb_progs_gc(struct aif_lb_progs *r, const struct aif_lb_env *v);

/* Free them all (the daemon's exit, after its workers stopped). */
void aif_lb_progs_free(struct aif_lb_progs *r, const struct aif_lb_env *v);

/* Entries, for the commands (lb_cmds.c): the client's program called
 * name (or NULL); add (-1: full); remove; free (and its states). */
struct aif_lb_loaded *aif_lb_progs_client(struct aif_lb_progs *r, const char *name);
int aif_lb_progs_add(struct aif_lb_progs *r, struct aif_lb_loaded *e);
void aif_lb_progs_remove(struct aif_lb_progs *r, const struct aif_lb_loaded *e);
void aif_lb_loaded_free(struct aif_lb_loaded *e, const struct aif_lb_env *v);

#endif /* AIF_LB_PROGS_H */
