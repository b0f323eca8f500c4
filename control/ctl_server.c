/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control socket server: newline-delimited JSON over a Unix stream socket.
 *
 * Publication and ownership: this file runs on the control thread only.
 * aif_ctl_server_poll() calls the command handler on that thread, one
 * request at a time, in the order each client sent them; no lock is taken
 * here because nothing here is reachable from another thread.  A handler
 * that changes what the workers see must not write worker state: it builds
 * a new immutable table and publishes it (pointer swap with a release
 * barrier, old table freed after an RCU quiescent period).  The server owns
 * the sockets and the per-client buffers; a request object is lent to the
 * handler for the length of the call, and the result it returns is a new
 * reference that the server puts into the reply and releases.
 *
 * Per client there is an input buffer (grown on demand up to one request
 * line, AIF_CTL_MAX_REQ bytes plus its '\n', and shrunk again when idle)
 * and an output buffer of replies not yet taken by the peer.  Every line
 * is answered, a blank one with an error.  A reply is queued whatever its
 * size (a full path trace is tens of MB), and the control thread never
 * waits for the peer to take it: backpressure instead.  While a client's
 * unsent output is over AIF_CTL_OUT_PAUSE_BYTES the server neither reads
 * from it nor answers the lines it has already received, so one client
 * holds at most that much plus one reply, and a client that does not read
 * stalls only itself.  A line longer than AIF_CTL_MAX_REQ is answered with
 * an error, the rest of it is read and thrown away, and the connection is
 * closed once the error has been sent.
 *
 * Slots are few (AIF_CTL_MAX_CLIENTS), so a client that moves no byte
 * either way for AIF_CTL_IDLE_TIMEOUT_NS (no request, nothing taken) is
 * closed; time comes in as an argument (aif_ctl_server_poll_at) so a test
 * can move it.  A byte now and then keeps a connection from that timeout,
 * so when every slot is taken a new client is still served: the connection
 * least recently useful goes, the one whose last answered request (or
 * accept, when it has asked nothing) is oldest, the longest idle among
 * equals.  A client accepted in this round is never the one to go (it has
 * not had its chance yet); a connection beyond the limit within one round
 * is told "too many clients at once" and closed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl_server.h"

#define IN_MIN_BYTES 4096u                 /* first input buffer */
#define IN_KEEP_BYTES (64u << 10)          /* larger idle buffers are freed */
#define READS_PER_ROUND 16                 /* recv() calls per client per round */
#define DISCARD_CHUNK_BYTES (16u << 10)  /* on the stack */
#define DISCARD_MAX_BYTES (64u << 20)      /* then close without the '\n' */

struct client {
	int fd;              /* -1: free slot */
	char *in;            /* received bytes not yet answered */
	size_t in_len;
	size_t in_cap;
	size_t in_scanned;   /* in[0..in_scanned) holds no '\n' */
	char *out;           /* replies not yet sent: out[out_off..out_len) */
	size_t out_off;
	size_t out_len;
	size_t out_cap;
	uint64_t last_ns;    /* when a byte last moved either way (or accept) */
	uint64_t useful_ns;  /* when a request was last answered (or accept) */
	bool fresh;          /* accepted this round: not yet polled, never evicted */
	bool discarding;     /* after an oversized line: drop input up to '\n' */
	size_t discarded;    /* bytes dropped so far, capped at DISCARD_MAX_BYTES */
	bool eof;            /* the peer sent all it will: answer what is left */
	bool closing;        /* read nothing more; close once out is sent */
};

struct aif_ctl_server {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	dev_t dev;           /* identity of the socket file we made, so */
	ino_t ino;           /* destroy never unlinks someone else's */
	aif_ctl_handler h;
	void *ctx;
	struct client clients[AIF_CTL_MAX_CLIENTS];
};

/* ---------------------------------------------------------------- */
/* Request line -> reply line                                        */

/* A json string for text that may not be valid UTF-8 (jansson's error
 * text quotes the bad input). */
static json_t *
string_lossy(char *text)
{
	json_t *s = json_string(text);
	char *p;

	if (s != NULL)
		return s;
	for (p = text; *p != '\0'; p++)
		if ((unsigned char)*p >= 0x80 || (unsigned char)*p < 0x20)
			*p = '?';
	return json_string(text);
}

static bool
is_blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	return true;
}

char *
aif_ctl_handle_line(const char *line, size_t len, aif_ctl_handler h, void *ctx)
{
	char err[AIF_CTL_ERR_MAX] = "";
	json_error_t jerr;
	json_t *req, *cmd, *result = NULL, *reply;
	char *text, *line_out;
	size_t n;

	if (is_blank(line, len)) {
		req = NULL;
		snprintf(err, sizeof(err), "empty request (one JSON object per line, "
			 "e.g. {\"cmd\": \"status\"})");
	} else if ((req = json_loadb(line, len,
				     JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
				     &jerr)) == NULL) {
		snprintf(err, sizeof(err), "invalid JSON at column %d: %s",
			 jerr.column, jerr.text);
	} else if (!json_is_object(req)) {
		snprintf(err, sizeof(err), "request must be a JSON object");
	} else if (cmd = json_object_get(req, "cmd"), !json_is_string(cmd)) {
		snprintf(err, sizeof(err), "missing \"cmd\" string");
	} else {
		result = h(ctx, json_string_value(cmd), req, err, sizeof(err));
		err[sizeof(err) - 1] = '\0';
		if (result == NULL && err[0] == '\0')
			snprintf(err, sizeof(err), "command '%s' failed",
				 json_string_value(cmd));
	}
	json_decref(req);

	reply = json_object();
	if (reply == NULL) {
		json_decref(result);
		return NULL;
	}
	if (result != NULL) {
		if (json_object_set_new(reply, "ok", json_true()) < 0 ||
		    json_object_set_new(reply, "result", result) < 0)
			goto err;
	} else {
		if (json_object_set_new(reply, "ok", json_false()) < 0 ||
		    json_object_set_new(reply, "error", string_lossy(err)) < 0)
			goto err;
	}
	text = json_dumps(reply, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(reply);
	if (text == NULL)
		return NULL;
	n = strlen(text);
	line_out = realloc(text, n + 2);
	if (line_out == NULL) {
		free(text);
		return NULL;
	}
	line_out[n] = '\n';
	line_out[n + 1] = '\0';
	return line_out;
err:
	json_decref(reply);
	return NULL;
}

/* ---------------------------------------------------------------- */
/* File names from clients                                           */

int
aif_ctl_name_check(const char *name, char *err, size_t err_len)
{
	size_t n = strnlen(name, AIF_CTL_NAME_MAX + 1);
	const char *why = NULL;

	if (n == 0)
		why = "is empty";
	else if (n > AIF_CTL_NAME_MAX)
		why = "is too long";
	else if (strchr(name, '/') != NULL)
		why = "contains '/' (a name, not a path)";
	else if (name[0] == '.')
		why = "starts with '.'";
	else if (name[0] == '-')
		why = "starts with '-'";
	else if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			"0123456789._-") != n)
		why = "has a character other than A-Z a-z 0-9 . _ -";
	if (why == NULL)
		return 0;
	snprintf(err, err_len, "file name %s (1..%u characters of A-Z a-z 0-9 . _ -, "
		 "not starting with '.' or '-')", why, AIF_CTL_NAME_MAX);
	return -1;
}

/* ---------------------------------------------------------------- */
/* Server                                                            */

static void
client_close(struct client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static size_t
out_pending(const struct client *c)
{
	return c->out_len - c->out_off;
}

/* Over the mark: read and answer nothing more until the peer takes some. */
static bool
paused(const struct client *c)
{
	return out_pending(c) > AIF_CTL_OUT_PAUSE_BYTES;
}

/*
 * Queue a reply line of n bytes (malloc'd, taken over: freed here or kept
 * as the output buffer itself when nothing else is pending, so a large
 * reply is never copied).  -1 when out of memory.
 */
static int
out_queue(struct client *c, char *data, size_t n)
{
	size_t pending = out_pending(c);

	if (pending == 0) {
		free(c->out);
		c->out = data;
		c->out_off = 0;
		c->out_len = n;
		c->out_cap = n;
		return 0;
	}
	if (c->out_off > 0) {
		memmove(c->out, c->out + c->out_off, pending);
		c->out_off = 0;
		c->out_len = pending;
	}
	if (c->out_len + n > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : IN_MIN_BYTES;
		char *p;

		while (cap < c->out_len + n)
			cap *= 2;
		p = realloc(c->out, cap);
		if (p == NULL) {
			free(data);
			return -1;
		}
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, data, n);
	c->out_len += n;
	free(data);
	return 0;
}

/* Send what the peer will take now; -1 when the connection is gone. */
static int
out_flush(struct client *c, uint64_t now_ns)
{
	while (out_pending(c) > 0) {
		ssize_t n = send(c->fd, c->out + c->out_off, out_pending(c),
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -1;
		}
		c->out_off += (size_t)n;
		c->last_ns = now_ns;
	}
	c->out_off = 0;
	c->out_len = 0;
	if (c->out_cap > IN_KEEP_BYTES) {
		free(c->out);
		c->out = NULL;
		c->out_cap = 0;
	}
	return 0;
}

/* Answer one request line (a blank one too); -1 to drop the client. */
static int
answer(struct aif_ctl_server *s, struct client *c, const char *line,
       size_t len)
{
	char *reply = aif_ctl_handle_line(line, len, s->h, s->ctx);

	if (reply == NULL)
		return -1;
	return out_queue(c, reply, strlen(reply));
}

static int
answer_too_large(struct client *c)
{
	char msg[128], *line;

	snprintf(msg, sizeof(msg),
		 "{\"ok\":false,\"error\":\"request too large (limit %u bytes)\"}\n",
		 AIF_CTL_MAX_REQ);
	line = strdup(msg);
	return line != NULL ? out_queue(c, line, strlen(line)) : -1;
}

/*
 * Answer the complete lines in c->in, in order, while the client is not
 * paused, and keep the rest (lines not yet answered, the partial tail),
 * adding the requests answered to *handled.  Returns 0, or -1 to drop the
 * client.
 */
static int
answer_lines(struct aif_ctl_server *s, struct client *c, int *handled)
{
	size_t start = 0;

	while (!paused(c)) {
		/* c->in is NULL while nothing is buffered */
		char *nl = c->in_scanned < c->in_len ?
			   memchr(c->in + c->in_scanned, '\n', c->in_len - c->in_scanned) :
			   NULL;
		size_t end;

		if (nl == NULL) {
			c->in_scanned = c->in_len;
			break;
		}
		end = (size_t)(nl - c->in);
		if (answer(s, c, c->in + start, end - start) < 0)
			return -1;
		(*handled)++;
		c->useful_ns = c->last_ns;
		start = end + 1;
		c->in_scanned = start;
	}

	/* No '\n' within the limit: refuse, then drop the rest of the line. */
	if (c->in_scanned == c->in_len && c->in_len - start > AIF_CTL_MAX_REQ) {
		if (answer_too_large(c) < 0)
			return -1;
		c->discarding = true;
		start = c->in_len;
		c->in_scanned = c->in_len;
		(*handled)++;
	}
	if (start > 0) {
		c->in_len -= start;
		memmove(c->in, c->in + start, c->in_len);
		c->in_scanned -= start;
	}
	if (c->in_len == 0 && c->in_cap > IN_KEEP_BYTES) {
		free(c->in);
		c->in = NULL;
		c->in_cap = 0;
	}
	return 0;
}

/*
 * Answer what can be answered now; after the peer's EOF, once every
 * complete line is answered, an unterminated last line is a request too,
 * and then the connection closes when its replies are sent.
 */
static int
serve(struct aif_ctl_server *s, struct client *c, int *handled)
{
	if (c->discarding)
		return 0;
	if (answer_lines(s, c, handled) < 0)
		return -1;
	if (!c->eof || paused(c))
		return 0;
	/* not paused, so answer_lines found no '\n' in what is left: an
	 * unterminated last line, answered unless it is only whitespace */
	if (c->in_len > 0 && !is_blank(c->in, c->in_len)) {
		if (answer(s, c, c->in, c->in_len) < 0)
			return -1;
		(*handled)++;
	}
	c->in_len = 0;
	c->in_scanned = 0;
	c->closing = true;
	return 0;
}

/* Make room to receive; the buffer never exceeds one line plus '\n'. */
static int
in_reserve(struct client *c)
{
	size_t cap;
	char *p;

	if (c->in_len < c->in_cap)
		return 0;
	cap = c->in_cap ? c->in_cap * 2 : IN_MIN_BYTES;
	if (cap > AIF_CTL_MAX_REQ + 1)
		cap = AIF_CTL_MAX_REQ + 1;
	if (cap <= c->in_cap)
		return -1; /* cannot happen: answer_lines empties a full buffer */
	p = realloc(c->in, cap);
	if (p == NULL)
		return -1;
	c->in = p;
	c->in_cap = cap;
	return 0;
}

/* Throw input away up to the '\n' that ends an oversized line. */
static ssize_t
discard_input(struct client *c)
{
	char buf[DISCARD_CHUNK_BYTES];
	ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n <= 0)
		return n;
	c->discarded += (size_t)n;
	if (memchr(buf, '\n', (size_t)n) != NULL ||
	    c->discarded > DISCARD_MAX_BYTES) {
		c->discarding = false;
		c->closing = true;
	}
	return n;
}

/*
 * Read what the client has sent and answer each complete line, adding the
 * requests answered to *handled; stop once the client is paused.  Returns
 * 0, or -1 to drop the client.
 */
static int
client_read(struct aif_ctl_server *s, struct client *c, int *handled,
	    uint64_t now_ns)
{
	for (int i = 0; i < READS_PER_ROUND && !c->closing && !c->eof &&
			!paused(c); i++) {
		bool discarding = c->discarding;
		ssize_t n;

		if (discarding) {
			n = discard_input(c);
		} else {
			if (in_reserve(c) < 0)
				return -1;
			n = recv(c->fd, c->in + c->in_len,
				 c->in_cap - c->in_len, MSG_DONTWAIT);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return -1;
		}
		if (n == 0) {
			if (discarding)
				c->closing = true;
			c->eof = true;
		} else {
			c->last_ns = now_ns;
			if (discarding)
				continue;
			c->in_len += (size_t)n;
		}
		if (serve(s, c, handled) < 0 || out_flush(c, now_ns) < 0)
			return -1;
	}
	return 0;
}

/*
 * The slot to give a new client when none is free: the least recently
 * useful connection's, closed here (told why when no reply of its own is
 * on the way).  NULL when every client is fresh.
 */
static struct client *
evict_one(struct aif_ctl_server *s)
{
	static const char msg[] =
		"{\"ok\":false,\"error\":\"connection closed to serve a new client "
		"(all slots taken; the least recently served goes first)\"}\n";
	struct client *victim = NULL;
	ssize_t rc;

	for (int j = 0; j < AIF_CTL_MAX_CLIENTS; j++) {
		struct client *c = &s->clients[j];

		if (c->fd < 0 || c->fresh)
			continue;
		if (victim == NULL || c->useful_ns < victim->useful_ns ||
		    (c->useful_ns == victim->useful_ns && c->last_ns < victim->last_ns))
			victim = c;
	}
	if (victim == NULL)
		return NULL;
	if (out_pending(victim) == 0) {
		rc = send(victim->fd, msg, sizeof(msg) - 1,
			  MSG_DONTWAIT | MSG_NOSIGNAL);
		(void)rc; /* best effort */
	}
	client_close(victim);
	return victim;
}

static void
accept_clients(struct aif_ctl_server *s, uint64_t now_ns)
{
	for (int i = 0; i <= AIF_CTL_MAX_CLIENTS; i++) {
		struct client *c = NULL;
		int fd = accept4(s->fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN, or out of descriptors: next round */
		}
		for (int j = 0; j < AIF_CTL_MAX_CLIENTS; j++) {
			if (s->clients[j].fd < 0) {
				c = &s->clients[j];
				break;
			}
		}
		if (c == NULL)
			c = evict_one(s);
		if (c == NULL) {
			/* more than the limit connected within one round */
			char msg[112];
			ssize_t rc;

			snprintf(msg, sizeof(msg),
				 "{\"ok\":false,\"error\":\"too many clients at once "
				 "(limit %d)\"}\n", AIF_CTL_MAX_CLIENTS);
			rc = send(fd, msg, strlen(msg),
				  MSG_DONTWAIT | MSG_NOSIGNAL);
			(void)rc; /* best effort */
			close(fd);
			continue;
		}
		c->fd = fd;
		c->last_ns = now_ns;
		c->useful_ns = now_ns;
		c->fresh = true;
	}
}

struct aif_ctl_server *
aif_ctl_server_create(const char *path, aif_ctl_handler h, void *ctx,
		      char *err, size_t err_len)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct aif_ctl_server *s;
	struct stat st;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		snprintf(err, err_len, "socket path too long (limit %zu bytes): %s",
			 sizeof(addr.sun_path) - 1, path);
		return NULL;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	s->fd = -1;
	s->h = h;
	s->ctx = ctx;
	memcpy(s->path, addr.sun_path, sizeof(s->path));
	for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++)
		s->clients[i].fd = -1;

	/* Remove a stale socket; never a live one nor a regular file. */
	if (lstat(path, &st) == 0) {
		int probe;

		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, err_len, "%s exists and is not a socket", path);
			goto err;
		}
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (probe < 0) {
			snprintf(err, err_len, "socket: %s", strerror(errno));
			goto err;
		}
		if (connect(probe, (struct sockaddr *)&addr, sizeof(addr)) == 0 ||
		    errno == EAGAIN) {
			close(probe);
			snprintf(err, err_len, "another server is listening on %s",
				 path);
			goto err;
		}
		close(probe);
		if (unlink(path) < 0 && errno != ENOENT) {
			snprintf(err, err_len, "cannot remove stale %s: %s", path,
				 strerror(errno));
			goto err;
		}
	}

	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		snprintf(err, err_len, "socket: %s", strerror(errno));
		goto err;
	}
	if (bind(s->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		snprintf(err, err_len, "bind %s: %s", path, strerror(errno));
		goto err;
	}
	if (chmod(s->path, 0660) < 0 || lstat(s->path, &st) < 0) {
		snprintf(err, err_len, "chmod %s: %s", s->path, strerror(errno));
		unlink(s->path);
		goto err;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	/* The kernel caps this at net.core.somaxconn (4096 on current kernels). */
	if (listen(s->fd, AIF_CTL_BACKLOG) < 0) {
		snprintf(err, err_len, "listen %s: %s", path, strerror(errno));
		unlink(path);
		goto err;
	}
	return s;
err:
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return NULL;
}

int
aif_ctl_server_poll_at(struct aif_ctl_server *s, int timeout_ms, uint64_t now_ns)
{
	struct pollfd pfd[1 + AIF_CTL_MAX_CLIENTS];
	struct client *who[1 + AIF_CTL_MAX_CLIENTS];
	int n = 1, handled = 0;

	pfd[0] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
	who[0] = NULL;
	for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++) {
		struct client *c = &s->clients[i];
		short ev = 0;

		if (c->fd < 0)
			continue;
		if (!c->closing && !c->eof && !paused(c))
			ev |= POLLIN;
		if (out_pending(c) > 0)
			ev |= POLLOUT;
		pfd[n] = (struct pollfd){ .fd = c->fd, .events = ev };
		who[n++] = c;
	}

	if (poll(pfd, (nfds_t)n, timeout_ms) < 0)
		return errno == EINTR ? 0 : -1;

	for (int i = 1; i < n; i++) {
		struct client *c = who[i];
		short rev = pfd[i].revents;

		if (rev & POLLNVAL) {
			client_close(c);
			continue;
		}
		if (!c->closing && !c->eof && !paused(c) &&
		    (rev & (POLLIN | POLLHUP | POLLERR)) &&
		    client_read(s, c, &handled, now_ns) < 0) {
			client_close(c);
			continue;
		}
		/* A peer that hung up makes send() fail: dropped here too. */
		if (out_flush(c, now_ns) < 0) {
			client_close(c);
			continue;
		}
		/* Taken below the mark: answer the requests that waited (and
		 * go on reading next round). */
		if (!c->closing && serve(s, c, &handled) < 0) {
			client_close(c);
			continue;
		}
		if (out_flush(c, now_ns) < 0 ||
		    (c->closing && out_pending(c) == 0) ||
		    (now_ns > c->last_ns &&
		     now_ns - c->last_ns >= AIF_CTL_IDLE_TIMEOUT_NS)) {
			client_close(c);
			continue;
		}
		c->fresh = false;
	}

	if (pfd[0].revents & POLLIN)
		accept_clients(s, now_ns);
	return handled;
}

int
aif_ctl_server_poll(struct aif_ctl_server *s, int timeout_ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return aif_ctl_server_poll_at(s, timeout_ms,
				      (uint64_t)ts.tv_sec * 1000000000ull +
				      (uint64_t)ts.tv_nsec);
}

void
aif_ctl_server_destroy(struct aif_ctl_server *s)
{
	struct stat st;

	if (s == NULL)
		return;
	for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++)
		if (s->clients[i].fd >= 0)
			client_close(&s->clients[i]);
	close(s->fd);
	if (lstat(s->path, &st) == 0 && st.st_dev == s->dev &&
	    st.st_ino == s->ino)
		unlink(s->path);
	free(s);
}
