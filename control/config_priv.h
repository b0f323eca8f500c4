/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the readers of the topology and policy file only (control/config*.c):
 * the parse context and the typed field access of config.c, so that a
 * group of options can be read in a file of its own (config_qos.c: the
 * switch's buffer, PFC, ECN and load-balancing options that follow the
 * reference simulator).  Same contract as in config.c: -1 error (the
 * context's err holds "<json path>: <reason>"), 0 absent, 1 present.
 */
#ifndef AIF_CONFIG_PRIV_H
#define AIF_CONFIG_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "config.h"

#define AIF_CFG_PATH_LEN 256

struct pctx {
	char *err;
	size_t err_len;
	struct aif_config *cfg;
};

int aif_cfg_fail(struct pctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void aif_cfg_path_key(char *dst, const char *parent, const char *key);
int aif_cfg_get_int(struct pctx *c, json_t *obj, const char *path, const char *key,
		    bool req, long long min, long long max, long long *out);
int aif_cfg_get_bool(struct pctx *c, json_t *obj, const char *path, const char *key,
		     bool *out);
int aif_cfg_get_real(struct pctx *c, json_t *obj, const char *path, const char *key,
		     double min, bool min_open, double max, double *out);
int aif_cfg_get_enum(struct pctx *c, json_t *obj, const char *path, const char *key,
		     const char *const *names, const char *what, uint8_t *out);

/* config_qos.c: the options of each object beyond config.c's own keys
 * (their names are the *_KEYS lists below, which config.c's key lists
 * take in). */
#define AIF_CFG_BUFFER_KEYS "headroom_slot0_quirk"
#define AIF_CFG_ECN_KEYS "qmin_bytes"
#define AIF_CFG_PFC_KEYS "mode", "pause_us"
#define AIF_CFG_SPRAY_KEYS "distinct", "memory", "queue_read"
#define AIF_CFG_FLOWLET_KEYS "gap_test", "queue_read"
int aif_cfg_qos_buffer(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q);
int aif_cfg_qos_ecn(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q);
int aif_cfg_qos_pfc(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q);
int aif_cfg_lb_spray(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb);
int aif_cfg_lb_flowlet(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb);

#endif /* AIF_CONFIG_PRIV_H */
