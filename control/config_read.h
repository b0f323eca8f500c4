/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For the readers of the topology and policy file (control/config*.c): the
 * parse context and the typed field access, one place for every group of
 * options (config.c, config_qos.c: the switch's buffer, PFC, ECN and
 * load-balancing options that follow the reference simulator).  A getter
 * returns -1 on an error (the context's err holds "<json path>: <reason>"),
 * 0 when the key is absent, 1 when present; paths are "$.a.b[3]" of at most
 * AIF_CFG_PATH_LEN bytes.
 */
#ifndef AIF_CONFIG_READ_H
#define AIF_CONFIG_READ_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "../dataplane/params.h"
#include "../dataplane/types.h"

struct aif_config;
struct aif_switch_params;

#define AIF_CFG_PATH_LEN 256
#define AIF_CFG_GBPS_MAX 1000000.0 /* a rate in Gb/s: at most */

struct aif_cfg_names;

struct pctx {
	char *err;
	size_t err_len;
	struct aif_config *cfg;
	struct aif_cfg_names *switches; /* the switches' names read so far */
};

/* Names read so far (switches', hosts'), found without a scan of every
 * earlier one: open addressing, slot = index + 1; name i at base + i x
 * stride (an array of records, each its name first or at a fixed place). */
struct aif_cfg_names {
	uint32_t *slot;
	uint32_t mask;
	const char *base;
	size_t stride;
};

/* For up to n names.  0, or -1 out of memory. */
int aif_cfg_names_init(struct aif_cfg_names *nm, size_t n, const void *base, size_t stride);
void aif_cfg_names_free(struct aif_cfg_names *nm);
/* Name idx: the index of an earlier one of the same name (kept as it was),
 * or -1 (added). */
long aif_cfg_names_add(struct aif_cfg_names *nm, uint32_t idx);
/* The index of name, or -1. */
long aif_cfg_names_find(const struct aif_cfg_names *nm, const char *name);

int aif_cfg_fail(struct pctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void aif_cfg_path_mark_truncated(char *dst, int n);
void aif_cfg_path_key(char *dst, const char *parent, const char *key);
void aif_cfg_path_idx(char *dst, const char *parent, size_t i);
const char *aif_cfg_type_name(const json_t *v);
int aif_cfg_check_object(struct pctx *c, json_t *j, const char *path,
	     const char *const *keys);
int aif_cfg_get_value(struct pctx *c, json_t *obj, const char *path, const char *key,
	  bool req, json_t **out);
int aif_cfg_get_string(struct pctx *c, json_t *obj, const char *path, const char *key,
	   bool req, const char **out);
int aif_cfg_get_int(struct pctx *c, json_t *obj, const char *path, const char *key,
	bool req, long long min, long long max, long long *out);
int aif_cfg_get_gbps(struct pctx *c, json_t *obj, const char *path, const char *key,
	 double *out);
int aif_cfg_get_bool(struct pctx *c, json_t *obj, const char *path, const char *key,
	 bool *out);
int aif_cfg_get_real(struct pctx *c, json_t *obj, const char *path, const char *key,
	 double min, bool min_open, double max, double *out);
int aif_cfg_get_enum(struct pctx *c, json_t *obj, const char *path, const char *key,
	 const char *const *names, const char *what, uint8_t *out);
int aif_cfg_get_array(struct pctx *c, json_t *obj, const char *path, const char *key,
	  bool req, size_t min, size_t max, json_t **out);
int aif_cfg_get_bitset8(struct pctx *c, json_t *obj, const char *path, const char *key,
			const char *what, uint8_t *mask);
bool aif_name_valid(const char *s);
int aif_cfg_check_name(struct pctx *c, const char *path, const char *s);
int aif_cfg_get_name(struct pctx *c, json_t *obj, const char *path, const char *key,
	 bool req, char *out);
int aif_cfg_get_ip(struct pctx *c, json_t *obj, const char *path, const char *key,
       struct aif_ip *out);
int aif_cfg_get_mac(struct pctx *c, json_t *obj, const char *path, const char *key,
	bool req, struct aif_mac *out);

/* The parts of the file's reader (config.c calls in): config_policy.c
 * ("policies", "lb_programs"), config_ports.c (a switch's "ports" and
 * "neighbors"); and helpers they share. */
int aif_cfg_parse_policies(struct pctx *c, json_t *root);
int aif_cfg_parse_lb_programs(struct pctx *c, json_t *root);
int aif_cfg_parse_ports(struct pctx *c, json_t *j, const char *path,
			struct aif_switch_params *sw);
int aif_cfg_parse_neighbors(struct pctx *c, json_t *j, const char *path,
			    struct aif_switch_params *sw);
/* Each BFD port's peer and own address, once its neighbours are read. */
int aif_cfg_check_bfd(struct pctx *c, const char *path, struct aif_switch_params *sw);
/* The static neighbour of sw with address ip, or -1. */
int aif_cfg_find_neighbor(const struct aif_switch_params *sw, const struct aif_ip *ip);
/* The "port" field of j, as an index into sw->ports. */
int aif_cfg_get_port_ref(struct pctx *c, json_t *j, const char *path,
			 const struct aif_switch_params *sw, uint16_t *port);
/* The optional object obj[key], checked against keys; *out NULL if absent. */
int aif_cfg_get_object(struct pctx *c, json_t *obj, const char *path, const char *key,
		       const char *const *keys, char *fp, json_t **out);

/* config_qos.c: the options of each object beyond config.c's own keys
 * (their names are the *_KEYS lists below, which config.c's key lists
 * take in). */
#define AIF_CFG_QOS_KEYS "mmu_bypass"
#define AIF_CFG_LB_KEYS "control_tc"
#define AIF_CFG_BUFFER_KEYS "headroom_slot0_quirk", "bypass_limit_bytes"
#define AIF_CFG_ECN_KEYS "qmin_bytes"
#define AIF_CFG_PFC_KEYS "mode", "pause_us"
#define AIF_CFG_SPRAY_KEYS "distinct", "memory", "queue_read"
#define AIF_CFG_FLOWLET_KEYS "gap_test", "queue_read", "table"
int aif_cfg_qos_buffer(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q);
int aif_cfg_qos_ecn(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q);
int aif_cfg_qos_pfc(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q);
int aif_cfg_lb_spray(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb);
int aif_cfg_lb_flowlet(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb);
/* qos "mmu_bypass", once the rest of the qos object is read (it checks the
 * classes' PGs against pfc_enable) */
int aif_cfg_qos_bypass(struct pctx *c, json_t *j, const char *path, struct aif_qos_params *q);
/* "wire_model": "ethernet" | "ns3" (the file's, or a link's) */
int aif_cfg_wire_model(struct pctx *c, json_t *j, const char *path, uint8_t *model);
/* load_balancing "control_tc", before the classes take their schemes */
int aif_cfg_lb_control(struct pctx *c, json_t *j, const char *path, struct aif_lb_params *lb);

#endif /* AIF_CONFIG_READ_H */
