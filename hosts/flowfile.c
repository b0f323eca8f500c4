/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flow files of HPCC's and ConWeave's ns-3 (flowfile.h).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flowfile.h"

#define LINE_MAX_BYTES 512

int
aif_flowfile_format_parse(const char *name)
{
	if (strcmp(name, "conweave") == 0)
		return AIF_FLOWFILE_CONWEAVE;
	if (strcmp(name, "hpcc") == 0)
		return AIF_FLOWFILE_HPCC;
	return -1;
}

const char *
aif_flowfile_format_name(enum aif_flowfile_format f)
{
	return f == AIF_FLOWFILE_HPCC ? "hpcc" : "conweave";
}

/* d = m x 2^e exactly (53-bit m), times 1e9 in 128 bits, floored. */
static aif_time_ns
exact_ns(double d)
{
	int e;

	if (d <= 0)
		return 0;
	double f = frexp(d, &e);
	uint64_t m = (uint64_t)ldexp(f, 53);
	unsigned __int128 x = (unsigned __int128)m * 1000000000u;
	e -= 53;
	if (e >= 0)
		return (aif_time_ns)(x << e); /* d <= 1e6 s: fits */
	if (e <= -128)
		return 0;
	return (aif_time_ns)(x >> -e);
}

int
aif_flowfile_time_ns(const char *s, aif_time_ns *ns)
{
	char *end;

	/* digits, at most one point, digits; an exponent allowed; no sign */
	if (s == NULL || !(isdigit((unsigned char)s[0]) ||
			   (s[0] == '.' && isdigit((unsigned char)s[1]))))
		return -1;
	errno = 0;
	double d = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(d) || d < 0 ||
	    d > AIF_FLOWFILE_MAX_START_S)
		return -1;
	*ns = exact_ns(d);
	return 0;
}

/* A whole number (digits only) up to max; 0, or -1. */
static int
whole(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (s[0] == '\0')
		return -1;
	for (const char *p = s; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		x = x * 10 + (uint64_t)(*p - '0');
		if (x > max)
			return -1;
	}
	*v = x;
	return 0;
}

static int
ferr(char *err, size_t err_len, const char *path, unsigned line, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err, err_len, "%s:%u: %s", path, line, why);
	else
		snprintf(err, err_len, "%s: %s", path, why);
	return -1;
}

/* Split line into at most max whitespace-separated fields; their count
 * (max + 1 if there are more). */
static unsigned
fields(char *line, char **tok, unsigned max)
{
	unsigned n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t\r\n", &save); t != NULL;
	     t = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return max + 1;
		tok[n++] = t;
	}
	return n;
}

/* Open path for reading only if it is a regular file: O_NONBLOCK so that
 * a FIFO does not wait for a writer before fstat says what it is. */
static FILE *
open_regular(const char *path, char *err, size_t err_len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		ferr(err, err_len, path, 0, "%s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		ferr(err, err_len, path, 0, "not a regular file");
		close(fd);
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "r");
	if (f == NULL) {
		ferr(err, err_len, path, 0, "%s", strerror(errno));
		close(fd);
	}
	return f;
}

/* One line into buf; 1, 0 at the end, -1 if it is longer than buf. */
static int
get_line(FILE *f, char *buf, size_t len)
{
	if (fgets(buf, (int)len, f) == NULL)
		return 0;
	size_t n = strlen(buf);
	if (n == len - 1 && buf[n - 1] != '\n' && !feof(f))
		return -1;
	return 1;
}

int
aif_flowfile_load(const char *path, enum aif_flowfile_format fmt, struct aif_flowfile *ff,
		  char *err, size_t err_len)
{
	char line[LINE_MAX_BYTES], *tok[8];
	unsigned ln = 0, want = fmt == AIF_FLOWFILE_HPCC ? 6 : 5;
	uint64_t n = 0;
	int rc;

	memset(ff, 0, sizeof(*ff));
	ff->format = fmt;
	FILE *f = open_regular(path, err, err_len);
	if (f == NULL)
		return -1;
	/* the count: the first line's first field */
	rc = get_line(f, line, sizeof(line));
	ln++;
	if (rc <= 0) {
		fclose(f);
		return ferr(err, err_len, path, rc < 0 ? ln : 0,
			    rc < 0 ? "line too long" : "empty: the first line must be the number of flows");
	}
	unsigned nt = fields(line, tok, 7);
	if (nt == 0 || whole(tok[0], AIF_FLOWFILE_MAX_FLOWS, &n) != 0 || n == 0) {
		fclose(f);
		return ferr(err, err_len, path, ln, "the first line must be the number of flows, "
			    "1..%u", AIF_FLOWFILE_MAX_FLOWS);
	}
	ff->f = calloc(n, sizeof(*ff->f));
	if (ff->f == NULL) {
		fclose(f);
		return ferr(err, err_len, path, 0, "out of memory");
	}
	ff->first_ns = AIF_TIME_NS_NEVER;
	while (ff->n < n) {
		rc = get_line(f, line, sizeof(line));
		ln++;
		if (rc == 0) {
			ferr(err, err_len, path, ln - 1, "the first line says %" PRIu64 " flows, the "
			     "file ends after %u", n, ff->n);
			goto bad;
		}
		if (rc < 0) {
			ferr(err, err_len, path, ln, "line too long");
			goto bad;
		}
		nt = fields(line, tok, want);
		if (nt != want) {
			ferr(err, err_len, path, ln, "%u fields, expected %u (%s)", nt > want ? want + 1 : nt,
			     want, fmt == AIF_FLOWFILE_HPCC ? "src dst priority dport size_bytes "
			     "start_seconds" : "src dst priority size_bytes start_seconds");
			goto bad;
		}
		struct aif_flowfile_flow *x = &ff->f[ff->n];
		uint64_t src, dst, pg, dport = 0, bytes;
		const char *ssz = tok[want - 2], *sst = tok[want - 1];
		if (whole(tok[0], 0xFFFFFF, &src) != 0 || whole(tok[1], 0xFFFFFF, &dst) != 0) {
			ferr(err, err_len, path, ln, "src and dst: host ids, whole numbers");
			goto bad;
		}
		if (src == dst) {
			ferr(err, err_len, path, ln, "a flow from host %" PRIu64 " to itself", src);
			goto bad;
		}
		if (whole(tok[2], 7, &pg) != 0) {
			ferr(err, err_len, path, ln, "priority: 0..7");
			goto bad;
		}
		if (fmt == AIF_FLOWFILE_HPCC && whole(tok[3], 65535, &dport) != 0) {
			ferr(err, err_len, path, ln, "dport: 0..65535");
			goto bad;
		}
		if (whole(ssz, AIF_FLOWFILE_MAX_BYTES, &bytes) != 0) {
			ferr(err, err_len, path, ln, "size_bytes: a whole number of bytes, 0..1e12 "
			     "(not '%.32s')", ssz);
			goto bad;
		}
		if (aif_flowfile_time_ns(sst, &x->start_ns) != 0) {
			ferr(err, err_len, path, ln, "start_seconds: a non-negative number of seconds, "
			     "at most 1e6 (not '%.32s')", sst);
			goto bad;
		}
		x->src = (uint32_t)src;
		x->dst = (uint32_t)dst;
		x->pg = (uint8_t)pg;
		x->dport = (uint16_t)dport;
		x->bytes = bytes ? bytes : 1; /* ns-3 sends one byte */
		x->line = ln;
		if (x->src > ff->max_host)
			ff->max_host = x->src;
		if (x->dst > ff->max_host)
			ff->max_host = x->dst;
		if (x->start_ns < ff->first_ns)
			ff->first_ns = x->start_ns;
		ff->n++;
	}
	fclose(f);
	return 0;
bad:
	fclose(f);
	aif_flowfile_free(ff);
	return -1;
}

void
aif_flowfile_free(struct aif_flowfile *ff)
{
	free(ff->f);
	ff->f = NULL;
	ff->n = 0;
}
