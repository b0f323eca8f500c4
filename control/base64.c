/* SPDX-License-Identifier: BSD-3-Clause */
/* Base64 (base64.h). */
#include <stdlib.h>
#include <string.h>

#include "base64.h"

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
aif_base64_encode(const uint8_t *p, size_t n)
{
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);
		*o++ = alphabet[v >> 18 & 63];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? alphabet[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static int
value(char ch)
{
	const char *p = ch != '\0' ? strchr(alphabet, ch) : NULL;

	return p != NULL ? (int)(p - alphabet) : -1;
}

uint8_t *
aif_base64_decode(const char *s, size_t *len)
{
	size_t n = strlen(s), at = 0;
	uint8_t *out;
	uint32_t acc = 0;
	int bits = 0;

	if (n % 4 != 0 || (out = malloc(n / 4 * 3 + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '=') { /* padding: the last one or two */
			if (i + 2 < n || (i + 1 < n && s[i + 1] != '='))
				break;
			*len = at;
			return out;
		}
		int v = value(s[i]);
		if (v < 0)
			break;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[at++] = (uint8_t)(acc >> bits);
		}
	}
	if (at == n / 4 * 3 && n > 0 && s[n - 1] != '=') {
		*len = at;
		return out;
	}
	if (n == 0) {
		*len = 0;
		return out;
	}
	free(out);
	return NULL;
}
