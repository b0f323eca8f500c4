/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address helpers for the small shared types in types.h: parse and format
 * IPv4/IPv6 addresses, prefixes and MAC addresses, clear the host bits of a
 * prefix and test prefix membership.
 *
 * Used by control (config parsing, show commands) and by tests; nothing here
 * needs DPDK or touches the packet path.  Parsers are strict: they accept
 * exactly the textual form documented on each function and nothing else, and
 * leave *out zeroed on failure.
 */
#include "types.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#define ADDR_TEXT_MAX 64 /* longer than any address text we accept */

static size_t
af_bytes(uint8_t family)
{
	return family == AIF_AF_INET4 ? 4 : 16;
}

static unsigned int
af_bits(uint8_t family)
{
	return family == AIF_AF_INET4 ? 32 : 128;
}

/* Parse "10.0.0.1" or "2001:db8::1" (inet_pton forms); returns 0 or -1. */
int
aif_ip_parse(const char *s, struct aif_ip *out)
{
	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -1;
	if (inet_pton(AF_INET, s, out->b) == 1) {
		out->family = AIF_AF_INET4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, out->b) == 1) {
		out->family = AIF_AF_INET6;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -1;
}

/* Decimal prefix length "0".."max": digits only, no sign, no leading zero. */
static int
parse_len(const char *s, unsigned int max, uint8_t *len)
{
	unsigned int v = 0;
	size_t n = 0;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (; *s != '\0'; s++, n++) {
		if (*s < '0' || *s > '9' || n >= 3)
			return -1;
		v = v * 10 + (unsigned int)(*s - '0');
	}
	if (v > max)
		return -1;
	*len = (uint8_t)v;
	return 0;
}

/*
 * Parse "10.0.0.0/8" or "2001:db8::/32"; a bare address is a host prefix
 * (/32 or /128).  Host bits are kept as written (interface addresses need
 * them); call aif_prefix_normalize() to clear them.  Returns 0 or -1.
 */
int
aif_prefix_parse(const char *s, struct aif_prefix *out)
{
	char addr[ADDR_TEXT_MAX];
	const char *slash;
	size_t alen;

	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -1;
	slash = strchr(s, '/');
	alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	if (alen == 0 || alen >= sizeof(addr))
		return -1;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (aif_ip_parse(addr, &out->addr) < 0)
		goto err;
	if (slash == NULL) {
		out->len = (uint8_t)af_bits(out->addr.family);
		return 0;
	}
	if (parse_len(slash + 1, af_bits(out->addr.family), &out->len) < 0)
		goto err;
	return 0;
err:
	memset(out, 0, sizeof(*out));
	return -1;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse exactly "xx:xx:xx:xx:xx:xx" (hex, either case); returns 0 or -1. */
int
aif_mac_parse(const char *s, struct aif_mac *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	if (s == NULL || strlen(s) != 17)
		return -1;
	for (i = 0; i < 6; i++) {
		const char *p = s + 3 * i;
		int hi = hex_digit(p[0]);
		int lo = hex_digit(p[1]);

		if (hi < 0 || lo < 0 || (i < 5 && p[2] != ':'))
			goto err;
		out->b[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
err:
	memset(out, 0, sizeof(*out));
	return -1;
}

/*
 * Format an address ("10.0.0.1", "2001:db8::1"; "none" for AIF_AF_NONE).
 * The text is truncated to fit len; returns buf.
 */
const char *
aif_ip_fmt(const struct aif_ip *a, char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];
	const char *s = "none";

	if (a->family == AIF_AF_INET4)
		s = inet_ntop(AF_INET, a->b, tmp, sizeof(tmp));
	else if (a->family == AIF_AF_INET6)
		s = inet_ntop(AF_INET6, a->b, tmp, sizeof(tmp));
	if (s == NULL)
		s = "?";
	if (len > 0)
		snprintf(buf, len, "%s", s);
	return buf;
}

/* Format "addr/len"; returns buf. */
const char *
aif_prefix_fmt(const struct aif_prefix *p, char *buf, size_t len)
{
	char tmp[INET6_ADDRSTRLEN];

	aif_ip_fmt(&p->addr, tmp, sizeof(tmp));
	if (len > 0)
		snprintf(buf, len, "%s/%u", tmp, (unsigned int)p->len);
	return buf;
}

/* Format "02:00:00:00:00:01" (lower-case hex); returns buf. */
const char *
aif_mac_fmt(const struct aif_mac *m, char *buf, size_t len)
{
	if (len > 0)
		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m->b[0],
			 m->b[1], m->b[2], m->b[3], m->b[4], m->b[5]);
	return buf;
}

/* Zero the host bits (and, for v4, the unused bytes 4..15) in place. */
void
aif_prefix_normalize(struct aif_prefix *p)
{
	size_t n = af_bytes(p->addr.family);
	unsigned int bits = p->len;
	size_t i;

	if (bits > af_bits(p->addr.family))
		bits = af_bits(p->addr.family);
	for (i = 0; i < sizeof(p->addr.b); i++) {
		if (i >= n || bits == 0)
			p->addr.b[i] = 0;
		else if (bits < 8)
			p->addr.b[i] &= (uint8_t)(0xff00u >> bits);
		bits = bits >= 8 ? bits - 8 : 0;
	}
}

/* Family, address, then length. */
int
aif_prefix_cmp(const struct aif_prefix *a, const struct aif_prefix *b)
{
	if (a->addr.family != b->addr.family)
		return a->addr.family < b->addr.family ? -1 : 1;
	int c = memcmp(a->addr.b, b->addr.b, sizeof(a->addr.b));
	if (c != 0)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* True if addr lies inside p (same family, first p->len bits equal). */
bool
aif_prefix_contains(const struct aif_prefix *p, const struct aif_ip *addr)
{
	unsigned int bits = p->len;
	size_t i;

	if (p->addr.family == AIF_AF_NONE || p->addr.family != addr->family)
		return false;
	if (bits > af_bits(p->addr.family))
		bits = af_bits(p->addr.family);
	for (i = 0; bits >= 8; i++, bits -= 8)
		if (p->addr.b[i] != addr->b[i])
			return false;
	if (bits > 0) {
		uint8_t mask = (uint8_t)(0xff00u >> bits);

		if ((p->addr.b[i] & mask) != (addr->b[i] & mask))
			return false;
	}
	return true;
}
