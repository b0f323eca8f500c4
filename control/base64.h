/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Base64 (RFC 4648, with padding): how a client sends a load-balancing
 * program's object in a JSON request line (lb load), and how the daemon
 * reads it back.
 */
#ifndef AIF_BASE64_H
#define AIF_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* n bytes -> NUL-terminated text (malloc'd), or NULL. */
char *aif_base64_encode(const uint8_t *p, size_t n);
/* text -> bytes (malloc'd, *len of them), or NULL if it is not base64. */
uint8_t *aif_base64_decode(const char *s, size_t *len);

#endif /* AIF_BASE64_H */
