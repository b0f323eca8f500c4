/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Long result tables (qps.csv, fct.txt: a line per flow, ~100,000 lines a
 * 10 ms run) written without stdio's formatting: text gathered in a buffer,
 * numbers formatted by hand (decimal, or 8 hex digits as "%08x"), the
 * buffer handed to fwrite when nearly full and at the end.  The bytes are
 * those fprintf would write; errors surface where stdio's do (ferror,
 * fclose).
 *
 *	struct aif_textbuf t;
 *	aif_textbuf_init(&t, f);
 *	aif_textbuf_str(&t, name);
 *	aif_textbuf_char(&t, ',');
 *	aif_textbuf_u64(&t, n);
 *	aif_textbuf_char(&t, '\n');
 *	aif_textbuf_flush(&t);   // before fclose(f)
 */
#ifndef AIF_TEXTBUF_H
#define AIF_TEXTBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define AIF_TEXTBUF_SIZE 65536
#define AIF_TEXTBUF_U64_MAX 20 /* digits of UINT64_MAX */

struct aif_textbuf {
	FILE *f;
	size_t n;
	char b[AIF_TEXTBUF_SIZE];
};

static inline void
aif_textbuf_init(struct aif_textbuf *t, FILE *f)
{
	t->f = f;
	t->n = 0;
}

/* Hand what is gathered to the file (a short write: ferror(f) says so). */
static inline void
aif_textbuf_flush(struct aif_textbuf *t)
{
	if (t->n != 0)
		(void)fwrite(t->b, 1, t->n, t->f);
	t->n = 0;
}

/* Room for need more bytes (need <= AIF_TEXTBUF_SIZE). */
static inline char *
aif_textbuf_room(struct aif_textbuf *t, size_t need)
{
	if (t->n + need > sizeof(t->b))
		aif_textbuf_flush(t);
	return t->b + t->n;
}

static inline void
aif_textbuf_char(struct aif_textbuf *t, char c)
{
	*aif_textbuf_room(t, 1) = c;
	t->n++;
}

static inline void
aif_textbuf_mem(struct aif_textbuf *t, const char *s, size_t len)
{
	while (len > 0) {
		size_t k = len < sizeof(t->b) ? len : sizeof(t->b);
		memcpy(aif_textbuf_room(t, k), s, k);
		t->n += k;
		s += k;
		len -= k;
	}
}

static inline void
aif_textbuf_str(struct aif_textbuf *t, const char *s)
{
	aif_textbuf_mem(t, s, strlen(s));
}

/* v in decimal, as "%" PRIu64. */
static inline void
aif_textbuf_u64(struct aif_textbuf *t, uint64_t v)
{
	char d[AIF_TEXTBUF_U64_MAX];
	unsigned k = sizeof(d);

	do {
		d[--k] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	aif_textbuf_mem(t, d + k, sizeof(d) - k);
}

/* v as eight lowercase hex digits, as "%08x". */
static inline void
aif_textbuf_hex32(struct aif_textbuf *t, uint32_t v)
{
	static const char hex[] = "0123456789abcdef";
	char *p = aif_textbuf_room(t, 8);

	for (int i = 7; i >= 0; i--, v >>= 4)
		p[i] = hex[v & 15];
	t->n += 8;
}

#endif /* AIF_TEXTBUF_H */
