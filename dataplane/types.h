/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small shared types: time, addresses, prefixes.
 *
 * Time is always nanoseconds in an aif_time_ns.  Addresses are stored in
 * network byte order; an IPv4 address lives in the first four bytes of
 * struct aif_ip (family AIF_AF_INET4), so v4 and v6 share one key shape.
 */
#ifndef AIF_TYPES_H
#define AIF_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t aif_time_ns;

#define AIF_NS_PER_US 1000ull
#define AIF_NS_PER_MS 1000000ull
#define AIF_NS_PER_S 1000000000ull
#define AIF_TIME_NS_NEVER UINT64_MAX /* no event due */

#define AIF_NAME_MAX 32

enum aif_af {
	AIF_AF_NONE = 0,
	AIF_AF_INET4 = 4,
	AIF_AF_INET6 = 6,
};

/* An IPv4 or IPv6 address, network byte order. */
struct aif_ip {
	uint8_t family; /* enum aif_af */
	uint8_t pad[3];
	uint8_t b[16]; /* v4: b[0..3] */
};

struct aif_prefix {
	struct aif_ip addr;
	uint8_t len; /* prefix length in bits */
};

struct aif_mac {
	uint8_t b[6];
};

static inline bool
aif_ip_equal(const struct aif_ip *a, const struct aif_ip *b)
{
	size_t n = a->family == AIF_AF_INET4 ? 4 : 16;
	return a->family == b->family && memcmp(a->b, b->b, n) == 0;
}

/* IPv4 address as a host-order uint32 (for rte_fib). */
static inline uint32_t
aif_ip4_host(const struct aif_ip *a)
{
	return ((uint32_t)a->b[0] << 24) | ((uint32_t)a->b[1] << 16) |
	       ((uint32_t)a->b[2] << 8) | a->b[3];
}

/* Parse "10.0.0.1" or "2001:db8::1"; returns 0 or -1. */
int aif_ip_parse(const char *s, struct aif_ip *out);
/* Parse "10.0.0.0/8" or "2001:db8::/32" (a bare address is a host prefix). */
int aif_prefix_parse(const char *s, struct aif_prefix *out);
/* Parse "02:00:00:00:00:01"; returns 0 or -1. */
int aif_mac_parse(const char *s, struct aif_mac *out);
/* Format into buf (at least 48 bytes); returns buf. */
const char *aif_ip_fmt(const struct aif_ip *a, char *buf, size_t len);
const char *aif_prefix_fmt(const struct aif_prefix *p, char *buf, size_t len);
const char *aif_mac_fmt(const struct aif_mac *m, char *buf, size_t len);
/* Zero the host bits of a prefix in place. */
void aif_prefix_normalize(struct aif_prefix *p);
/* True if addr lies inside prefix. */
bool aif_prefix_contains(const struct aif_prefix *p, const struct aif_ip *addr);
/* Order of prefixes: family, address, then length (<0, 0, >0). */
int aif_prefix_cmp(const struct aif_prefix *a, const struct aif_prefix *b);

#endif /* AIF_TYPES_H */
