/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading a config file (config.h): by path for the operator, by name in a
 * directory for a client (no link followed, nothing but a regular file, a
 * size limit), then parsed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../dataplane/sched.h"
#include "../dataplane/link.h"
#include "../dataplane/tables.h"
#include "config.h"
#include "config_read.h"

#define PATH_LEN AIF_CFG_PATH_LEN
#define FILE_MAX_BYTES (64u << 20)

static int
io_fail(const char *path, int errnum, char *err, size_t err_len)
{
	if (err != NULL && err_len > 0)
		snprintf(err, err_len, "%s: %s", path, strerror(errnum));
	return -1;
}

/*
 * Read fd to its end into a malloc'd buffer with a NUL after the text (the
 * text itself may hold NULs: *n is what counts); at most max_bytes, else
 * EFBIG.  A nonblocking fd that has nothing more to give ends the text as
 * EOF would not: EAGAIN (only regular files are read that way).
 */
static char *
read_fd(int fd, size_t max_bytes, size_t *n, int *errnum)
{
	size_t cap = 0;
	char *buf = NULL;

	*n = 0;
	for (;;) {
		ssize_t got;

		if (*n == cap) {
			char *grown;

			if (cap >= max_bytes + 1) {
				*errnum = EFBIG;
				goto err;
			}
			cap = cap == 0 ? 65536 : cap * 2;
			if (cap > max_bytes + 1)
				cap = max_bytes + 1; /* one byte more shows the file is larger */
			/* + 1: the NUL after the text */
			grown = realloc(buf, cap + 1);
			if (grown == NULL) {
				*errnum = ENOMEM;
				goto err;
			}
			buf = grown;
		}
		got = read(fd, buf + *n, cap - *n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			*errnum = errno;
			goto err;
		}
		if (got == 0)
			break;
		*n += (size_t)got;
	}
	if (*n > max_bytes) {
		*errnum = EFBIG;
		goto err;
	}
	if (buf == NULL && (buf = malloc(1)) == NULL) {
		*errnum = ENOMEM;
		return NULL;
	}
	buf[*n] = '\0';
	return buf;
err:
	free(buf);
	return NULL;
}

/* Read a whole file into a malloc'd NUL-terminated buffer; *n gets its length. */
static char *
read_file(const char *path, size_t *n, int *errnum)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;

	*n = 0;
	if (fd < 0) {
		*errnum = errno;
		return NULL;
	}
	buf = read_fd(fd, FILE_MAX_BYTES, n, errnum);
	close(fd);
	return buf;
}

/* The whole file as a NUL-terminated string; NULL with err naming the file. */
char *
aif_config_read_file(const char *path, size_t *len, char *err, size_t err_len)
{
	int errnum = 0;
	char *text = read_file(path, len, &errnum);

	if (text == NULL)
		io_fail(path, errnum, err, err_len);
	return text;
}

char *
aif_config_read_at(const char *dir, const char *name, size_t max_bytes, size_t *len,
		   char *err, size_t err_len)
{
	const char *why = NULL;
	char *text = NULL;
	int dfd = -1, fd = -1, errnum = 0;
	struct stat st;

	*len = 0;
	if (name[0] == '\0' || strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0) {
		why = "not a file name (one path component)";
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		errnum = errno;
		goto out;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		errnum = errno;
		if (errnum == ELOOP)
			why = "it is a symbolic link";
		goto out;
	}
	if (fstat(fd, &st) != 0) {
		errnum = errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		why = S_ISFIFO(st.st_mode) ? "not a regular file (a FIFO)" :
		      S_ISDIR(st.st_mode) ? "not a regular file (a directory)" :
		      "not a regular file";
		goto out;
	}
	if ((uint64_t)st.st_size > max_bytes) {
		errnum = EFBIG;
		goto out;
	}
	text = read_fd(fd, max_bytes, len, &errnum);
out:
	if (text == NULL && err != NULL && err_len > 0) {
		if (why == NULL && errnum == EFBIG)
			snprintf(err, err_len, "%s in %s: larger than %zu bytes", name, dir,
				 max_bytes);
		else
			snprintf(err, err_len, "%s in %s: %s", name, dir,
				 why ? why : strerror(errnum));
	}
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return text;
}

/* Same as aif_config_parse(), from a file; err names the file on I/O errors. */
int
aif_config_load_file(const char *path, struct aif_config **out, char *err,
		     size_t err_len)
{
	size_t n;
	char *text;
	int rc;

	if (out != NULL)
		*out = NULL;
	text = aif_config_read_file(path, &n, err, err_len);
	if (text == NULL)
		return -1;
	rc = aif_config_parse(text, n, out, err, err_len);
	free(text);
	return rc;
}
