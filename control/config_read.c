/* SPDX-License-Identifier: BSD-3-Clause */
/* The typed field access of the topology and policy readers (config_read.h). */
#include "config_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_LEN AIF_CFG_PATH_LEN
#define GBPS_MAX AIF_CFG_GBPS_MAX

/* ---- errors and paths ---- */

int
aif_cfg_fail(struct pctx *c, const char *path, const char *fmt, ...)
{
	char reason[AIF_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (c->err != NULL && c->err_len > 0)
		snprintf(c->err, c->err_len, "%s: %s", path, reason);
	return -1;
}

/* A path too long for PATH_LEN ends in "..." (only a user's key can do that). */
void
aif_cfg_path_mark_truncated(char *dst, int n)
{
	if (n >= PATH_LEN)
		memcpy(dst + PATH_LEN - 4, "...", 4);
}

/* "$.a" + "b" -> "$.a.b" */
void
aif_cfg_path_key(char *dst, const char *parent, const char *key)
{
	aif_cfg_path_mark_truncated(dst, snprintf(dst, PATH_LEN, "%s.%s", parent, key));
}

/* "$.a" + 3 -> "$.a[3]" */
void
aif_cfg_path_idx(char *dst, const char *parent, size_t i)
{
	aif_cfg_path_mark_truncated(dst, snprintf(dst, PATH_LEN, "%s[%zu]", parent, i));
}

const char *
aif_cfg_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "object";
	case JSON_ARRAY:
		return "array";
	case JSON_STRING:
		return "string";
	case JSON_INTEGER:
		return "integer";
	case JSON_REAL:
		return "number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "boolean";
	default:
		return "null";
	}
}

/* ---- typed field access: -1 error, 0 absent (optional), 1 present ---- */

/* j must be an object whose keys are all in keys (NULL-terminated). */
int
aif_cfg_check_object(struct pctx *c, json_t *j, const char *path,
	     const char *const *keys)
{
	const char *key;
	json_t *v;

	if (!json_is_object(j))
		return aif_cfg_fail(c, path, "expected object, got %s", aif_cfg_type_name(j));
	json_object_foreach(j, key, v) {
		const char *const *k;

		for (k = keys; *k != NULL; k++)
			if (strcmp(*k, key) == 0)
				break;
		if (*k == NULL)
			return aif_cfg_fail(c, path, "unknown field '%s'", key);
	}
	return 0;
}

int
aif_cfg_get_value(struct pctx *c, json_t *obj, const char *path, const char *key,
	  bool req, json_t **out)
{
	char fp[PATH_LEN];

	*out = json_object_get(obj, key);
	if (*out != NULL)
		return 1;
	if (!req)
		return 0;
	aif_cfg_path_key(fp, path, key);
	return aif_cfg_fail(c, fp, "required field is missing");
}

int
aif_cfg_get_string(struct pctx *c, json_t *obj, const char *path, const char *key,
	   bool req, const char **out)
{
	char fp[PATH_LEN];
	json_t *v;
	int rc = aif_cfg_get_value(c, obj, path, key, req, &v);

	if (rc <= 0)
		return rc;
	if (!json_is_string(v)) {
		aif_cfg_path_key(fp, path, key);
		return aif_cfg_fail(c, fp, "expected string, got %s", aif_cfg_type_name(v));
	}
	*out = json_string_value(v);
	return 1;
}

int
aif_cfg_get_int(struct pctx *c, json_t *obj, const char *path, const char *key,
	bool req, long long min, long long max, long long *out)
{
	char fp[PATH_LEN];
	json_t *v;
	int rc = aif_cfg_get_value(c, obj, path, key, req, &v);

	if (rc <= 0)
		return rc;
	aif_cfg_path_key(fp, path, key);
	if (!json_is_integer(v))
		return aif_cfg_fail(c, fp, "expected integer, got %s", aif_cfg_type_name(v));
	*out = json_integer_value(v);
	if (*out < min || *out > max)
		return aif_cfg_fail(c, fp, "must be %lld..%lld, got %lld", min, max,
			    *out);
	return 1;
}

/* A number (integer or real) in (0, GBPS_MAX]. */
int
aif_cfg_get_gbps(struct pctx *c, json_t *obj, const char *path, const char *key,
	 double *out)
{
	char fp[PATH_LEN];
	json_t *v;
	int rc = aif_cfg_get_value(c, obj, path, key, false, &v);

	if (rc <= 0)
		return rc;
	aif_cfg_path_key(fp, path, key);
	if (!json_is_number(v))
		return aif_cfg_fail(c, fp, "expected number, got %s", aif_cfg_type_name(v));
	*out = json_number_value(v);
	if (!(*out > 0) || *out > GBPS_MAX)
		return aif_cfg_fail(c, fp, "must be > 0 and at most %.0f, got %g",
			    GBPS_MAX, *out);
	return 1;
}

int
aif_cfg_get_bool(struct pctx *c, json_t *obj, const char *path, const char *key,
	 bool *out)
{
	char fp[PATH_LEN];
	json_t *v;
	int rc = aif_cfg_get_value(c, obj, path, key, false, &v);

	if (rc <= 0)
		return rc;
	if (!json_is_boolean(v)) {
		aif_cfg_path_key(fp, path, key);
		return aif_cfg_fail(c, fp, "expected boolean, got %s", aif_cfg_type_name(v));
	}
	*out = json_is_true(v);
	return 1;
}

/* A number (integer or real) in [min, max], or (min, max] if min_open. */
int
aif_cfg_get_real(struct pctx *c, json_t *obj, const char *path, const char *key,
	 double min, bool min_open, double max, double *out)
{
	char fp[PATH_LEN];
	json_t *v;
	int rc = aif_cfg_get_value(c, obj, path, key, false, &v);

	if (rc <= 0)
		return rc;
	aif_cfg_path_key(fp, path, key);
	if (!json_is_number(v))
		return aif_cfg_fail(c, fp, "expected number, got %s", aif_cfg_type_name(v));
	*out = json_number_value(v);
	if (min_open && (!(*out > min) || *out > max))
		return aif_cfg_fail(c, fp, "must be > %g and at most %g, got %g", min,
			    max, *out);
	if (!min_open && (!(*out >= min) || *out > max))
		return aif_cfg_fail(c, fp, "must be %g..%g, got %g", min, max, *out);
	return 1;
}

/*
 * A string from names (NULL-terminated, in the order of the enum it stands
 * for); *out gets its index.  The error names them:
 *   "unknown mode 'x' (expected \"ecn\", \"wred\" or \"off\")".
 */
int
aif_cfg_get_enum(struct pctx *c, json_t *obj, const char *path, const char *key,
	 const char *const *names, const char *what, uint8_t *out)
{
	char fp[PATH_LEN], expect[128];
	const char *s = NULL;
	size_t n, len = 0, i;
	int rc = aif_cfg_get_string(c, obj, path, key, false, &s);

	if (rc <= 0)
		return rc;
	for (n = 0; names[n] != NULL; n++) {
		if (strcmp(names[n], s) == 0) {
			*out = (uint8_t)n;
			return 1;
		}
	}
	expect[0] = '\0';
	for (i = 0; i < n && len < sizeof(expect); i++)
		len += (size_t)snprintf(expect + len, sizeof(expect) - len,
					"%s\"%s\"",
					i == 0 ? "" : i + 1 == n ? " or " : ", ",
					names[i]);
	aif_cfg_path_key(fp, path, key);
	return aif_cfg_fail(c, fp, "unknown %s '%s' (expected %s)", what, s, expect);
}

int
aif_cfg_get_array(struct pctx *c, json_t *obj, const char *path, const char *key,
	  bool req, size_t min, size_t max, json_t **out)
{
	char fp[PATH_LEN];
	int rc = aif_cfg_get_value(c, obj, path, key, req, out);

	if (rc <= 0)
		return rc;
	aif_cfg_path_key(fp, path, key);
	if (!json_is_array(*out))
		return aif_cfg_fail(c, fp, "expected array, got %s", aif_cfg_type_name(*out));
	if (json_array_size(*out) < min || json_array_size(*out) > max)
		return aif_cfg_fail(c, fp, "expected %zu..%zu entries, got %zu", min,
			    max, json_array_size(*out));
	return 1;
}

bool
aif_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= AIF_NAME_MAX)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_.-") == n;
}

int
aif_cfg_check_name(struct pctx *c, const char *path, const char *s)
{
	if (aif_name_valid(s))
		return 0;
	return aif_cfg_fail(c, path,
		    "invalid name '%s' (1..%d characters from A-Z a-z 0-9 _ . -)",
		    s, AIF_NAME_MAX - 1);
}

int
aif_cfg_get_name(struct pctx *c, json_t *obj, const char *path, const char *key,
	 bool req, char *out)
{
	char fp[PATH_LEN];
	const char *s = NULL;
	int rc = aif_cfg_get_string(c, obj, path, key, req, &s);

	if (rc <= 0)
		return rc;
	aif_cfg_path_key(fp, path, key);
	if (aif_cfg_check_name(c, fp, s) < 0)
		return -1;
	snprintf(out, AIF_NAME_MAX, "%s", s);
	return 1;
}

int
aif_cfg_get_ip(struct pctx *c, json_t *obj, const char *path, const char *key,
       struct aif_ip *out)
{
	char fp[PATH_LEN];
	const char *s = NULL;
	int rc = aif_cfg_get_string(c, obj, path, key, true, &s);

	if (rc <= 0)
		return -1;
	if (aif_ip_parse(s, out) == 0)
		return 1;
	aif_cfg_path_key(fp, path, key);
	return aif_cfg_fail(c, fp, "invalid IP address '%s'", s);
}

/* A unicast, non-zero MAC. */
int
aif_cfg_get_mac(struct pctx *c, json_t *obj, const char *path, const char *key,
	bool req, struct aif_mac *out)
{
	static const struct aif_mac zero;
	char fp[PATH_LEN];
	const char *s = NULL;
	int rc = aif_cfg_get_string(c, obj, path, key, req, &s);

	if (rc <= 0)
		return rc;
	aif_cfg_path_key(fp, path, key);
	if (aif_mac_parse(s, out) < 0)
		return aif_cfg_fail(c, fp, "invalid MAC address '%s'", s);
	if (out->b[0] & 1)
		return aif_cfg_fail(c, fp, "multicast MAC address '%s' is not allowed",
			    s);
	if (memcmp(out, &zero, sizeof(zero)) == 0)
		return aif_cfg_fail(c, fp, "zero MAC address is not allowed");
	return 1;
}

/*
 * [3, 4] -> bit per entry: distinct integers 0..7, what is "priority" or
 * "queue".  The array may be empty; it replaces *mask when present.
 */
int
aif_cfg_get_bitset8(struct pctx *c, json_t *obj, const char *path, const char *key,
		    const char *what, uint8_t *mask)
{
	char ap[AIF_CFG_PATH_LEN], ep[AIF_CFG_PATH_LEN];
	json_t *arr, *v;
	uint8_t m = 0;
	size_t i;
	int rc = aif_cfg_get_array(c, obj, path, key, false, 0, 8, &arr);

	if (rc <= 0)
		return rc;
	aif_cfg_path_key(ap, path, key);
	json_array_foreach(arr, i, v) {
		long long x;

		aif_cfg_path_idx(ep, ap, i);
		if (!json_is_integer(v))
			return aif_cfg_fail(c, ep, "expected integer, got %s",
				    aif_cfg_type_name(v));
		x = json_integer_value(v);
		if (x < 0 || x > 7)
			return aif_cfg_fail(c, ep, "%s must be 0..7, got %lld", what, x);
		if (m & (1u << x))
			return aif_cfg_fail(c, ep, "duplicate %s %lld", what, x);
		m |= (uint8_t)(1u << x);
	}
	*mask = m;
	return 1;
}

/* ---- policies ---- */

/* Canonical decimal "0".."max" (no sign, no leading zeros). */


/* ---- names read so far ---- */

static uint32_t
name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static inline const char *
name_at(const struct aif_cfg_names *nm, uint32_t i)
{
	return nm->base + (size_t)i * nm->stride;
}

int
aif_cfg_names_init(struct aif_cfg_names *nm, size_t n, const void *base, size_t stride)
{
	nm->mask = 15;
	while (nm->mask < 2 * n)
		nm->mask = 2 * nm->mask + 1;
	nm->base = base;
	nm->stride = stride;
	nm->slot = calloc((size_t)nm->mask + 1, sizeof(*nm->slot));
	return nm->slot != NULL ? 0 : -1;
}

void
aif_cfg_names_free(struct aif_cfg_names *nm)
{
	free(nm->slot);
	nm->slot = NULL;
}

long
aif_cfg_names_add(struct aif_cfg_names *nm, uint32_t idx)
{
	const char *name = name_at(nm, idx);

	for (uint32_t i = name_hash(name) & nm->mask;; i = (i + 1) & nm->mask) {
		if (nm->slot[i] == 0) {
			nm->slot[i] = idx + 1;
			return -1;
		}
		if (strcmp(name_at(nm, nm->slot[i] - 1), name) == 0)
			return (long)nm->slot[i] - 1;
	}
}

long
aif_cfg_names_find(const struct aif_cfg_names *nm, const char *name)
{
	for (uint32_t i = name_hash(name) & nm->mask; nm->slot[i] != 0; i = (i + 1) & nm->mask)
		if (strcmp(name_at(nm, nm->slot[i] - 1), name) == 0)
			return (long)nm->slot[i] - 1;
	return -1;
}
