/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for control/ctl_server.c.
 *
 * aif_ctl_handle_line() is checked against a fake handler, one table row
 * per case.  The socket tests run server and clients in this one process:
 * clients are nonblocking sockets, and each test calls
 * aif_ctl_server_poll_at() a bounded number of times (timeout 0 or 10 ms)
 * until the replies it expects have arrived.  The server's time is the
 * fixture's now_ns, which only a test moves (the idle timeout).  No test
 * sleeps and every loop has an iteration bound.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../control/ctl_server.h"

#define MAX_ROUNDS 2000   /* server polls while waiting for replies (a 64 MiB
			   * reply takes ~350) */
#define MAX_SENDS 100000  /* send() attempts for one buffer */
#define T0_NS 1000000000ull /* the fixture's clock at the start */

/* ---------------------------------------------------------------- */
/* Fake handler                                                      */

struct fake {
	int calls;
};

/*
 * "echo": the request back.  "fail": an error.  "big": a string of
 * req.bytes 'a's.  Anything else: unknown command.
 */
static json_t *
fake_handler(void *ctx, const char *cmd, json_t *req, char *err,
	     size_t err_len)
{
	struct fake *f = ctx;

	f->calls++;
	if (strcmp(cmd, "echo") == 0)
		return json_deep_copy(req);
	if (strcmp(cmd, "fail") == 0) {
		snprintf(err, err_len, "boom");
		return NULL;
	}
	if (strcmp(cmd, "big") == 0) {
		size_t n = (size_t)json_integer_value(json_object_get(req, "bytes"));
		char *s = malloc(n + 1);
		json_t *r;

		assert_non_null(s);
		memset(s, 'a', n);
		s[n] = '\0';
		r = json_string(s);
		free(s);
		return r;
	}
	if (strcmp(cmd, "silent") == 0)
		return NULL; /* error without a reason */
	snprintf(err, err_len, "unknown command '%s'", cmd);
	return NULL;
}

/* Parse a reply line; checks the framing and the ok/error shape. */
static json_t *
parse_reply(const char *reply, size_t len)
{
	json_error_t jerr;
	json_t *j;

	assert_true(len > 0);
	assert_int_equal(reply[len - 1], '\n');
	assert_null(memchr(reply, '\n', len - 1));
	j = json_loadb(reply, len, 0, &jerr);
	if (j == NULL)
		fail_msg("reply is not JSON: %s: %.*s", jerr.text, (int)len, reply);
	assert_true(json_is_object(j));
	assert_true(json_is_boolean(json_object_get(j, "ok")));
	if (json_is_true(json_object_get(j, "ok")))
		assert_non_null(json_object_get(j, "result"));
	else
		assert_true(json_is_string(json_object_get(j, "error")));
	return j;
}

/* ---------------------------------------------------------------- */
/* aif_ctl_handle_line                                               */

struct line_case {
	const char *name;
	const char *line;
	size_t len;           /* 0: strlen(line) */
	bool ok;
	const char *result;   /* ok: expected result, as JSON text */
	const char *error;    /* !ok: expected error, or its prefix... */
	bool error_prefix;    /* ...when this is set */
	int calls;            /* handler calls expected */
};

static const struct line_case line_cases[] = {
	{ "valid", "{\"cmd\":\"echo\",\"x\":1}", 0, true,
	  "{\"cmd\":\"echo\",\"x\":1}", NULL, false, 1 },
	{ "valid with spaces", "  { \"cmd\" : \"echo\" }", 0, true,
	  "{\"cmd\":\"echo\"}", NULL, false, 1 },
	{ "trailing whitespace", "{\"cmd\":\"echo\"} \t ", 0, true,
	  "{\"cmd\":\"echo\"}", NULL, false, 1 },
	{ "CRLF", "{\"cmd\":\"echo\"}\r\n", 0, true,
	  "{\"cmd\":\"echo\"}", NULL, false, 1 },
	{ "CR only", "{\"cmd\":\"echo\"}\r", 0, true,
	  "{\"cmd\":\"echo\"}", NULL, false, 1 },
	{ "length bounds the line", "{\"cmd\":\"echo\"}garbage", 14, true,
	  "{\"cmd\":\"echo\"}", NULL, false, 1 },
	{ "invalid JSON", "{\"cmd\": }", 0, false, NULL,
	  "invalid JSON at column 9: ", true, 0 },
	{ "trailing garbage", "{\"cmd\":\"echo\"} x", 0, false, NULL,
	  "invalid JSON at column 16: ", true, 0 },
	{ "empty", "", 0, false, NULL, "empty request (one JSON object per line, "
	  "e.g. {\"cmd\": \"status\"})", false, 0 },
	{ "blank", " \t\r", 0, false, NULL, "empty request ", true, 0 },
	{ "invalid UTF-8", "{\"cmd\":\"\xff\"}", 0, false, NULL,
	  "invalid JSON at column 8: ", true, 0 },
	{ "duplicate key", "{\"cmd\":\"echo\",\"cmd\":\"fail\"}", 0, false,
	  NULL, "invalid JSON at column ", true, 0 },
	{ "array", "[\"echo\"]", 0, false, NULL,
	  "request must be a JSON object", false, 0 },
	{ "scalar", "42", 0, false, NULL,
	  "request must be a JSON object", false, 0 },
	{ "string", "\"echo\"", 0, false, NULL,
	  "request must be a JSON object", false, 0 },
	{ "missing cmd", "{\"x\":1}", 0, false, NULL,
	  "missing \"cmd\" string", false, 0 },
	{ "cmd not a string", "{\"cmd\":5}", 0, false, NULL,
	  "missing \"cmd\" string", false, 0 },
	{ "cmd null", "{\"cmd\":null}", 0, false, NULL,
	  "missing \"cmd\" string", false, 0 },
	{ "handler error", "{\"cmd\":\"fail\"}", 0, false, NULL, "boom",
	  false, 1 },
	{ "handler error without reason", "{\"cmd\":\"silent\"}", 0, false,
	  NULL, "command 'silent' failed", false, 1 },
	{ "unknown command", "{\"cmd\":\"nope\"}", 0, false, NULL,
	  "unknown command 'nope'", false, 1 },
};

static void
test_handle_line_cases(void **state)
{
	(void)state;

	for (size_t i = 0; i < sizeof(line_cases) / sizeof(line_cases[0]); i++) {
		const struct line_case *lc = &line_cases[i];
		size_t len = lc->len ? lc->len : strlen(lc->line);
		struct fake f = { 0 };
		char *reply;
		json_t *j, *ok;

		print_message("case: %s\n", lc->name);
		reply = aif_ctl_handle_line(lc->line, len, fake_handler, &f);
		assert_non_null(reply);
		j = parse_reply(reply, strlen(reply));
		ok = json_object_get(j, "ok");
		assert_int_equal(json_is_true(ok), lc->ok);
		assert_int_equal(f.calls, lc->calls);
		if (lc->ok) {
			json_t *want = json_loads(lc->result, 0, NULL);

			assert_non_null(want);
			assert_true(json_equal(json_object_get(j, "result"), want));
			json_decref(want);
		} else {
			const char *e = json_string_value(json_object_get(j, "error"));

			if (lc->error_prefix)
				assert_memory_equal(e, lc->error, strlen(lc->error));
			else
				assert_string_equal(e, lc->error);
		}
		json_decref(j);
		free(reply);
	}
}

/* The exact bytes of a reply: compact, one line. */
static void
test_handle_line_exact(void **state)
{
	struct fake f = { 0 };
	char *r;

	(void)state;
	r = aif_ctl_handle_line("{\"cmd\":\"echo\"}", 14, fake_handler, &f);
	assert_string_equal(r, "{\"ok\":true,\"result\":{\"cmd\":\"echo\"}}\n");
	free(r);
	r = aif_ctl_handle_line("[]", 2, fake_handler, &f);
	assert_string_equal(r, "{\"ok\":false,\"error\":\"request must be a JSON object\"}\n");
	free(r);
}

/* ---------------------------------------------------------------- */
/* aif_ctl_name_check                                                */

static void
test_name_check(void **state)
{
	static const struct { const char *name; const char *why; } cases[] = {
		{ "p0.pcapng", NULL },
		{ "lab_2024-01-05.json", NULL },
		{ "A", NULL },
		{ "0", NULL },
		{ "a..b", NULL },             /* one component all the same */
		{ "", "is empty" },
		{ ".", "starts with '.'" },
		{ "..", "starts with '.'" },
		{ ".hidden", "starts with '.'" },
		{ "-rf", "starts with '-'" },
		{ "/etc/passwd", "contains '/' (a name, not a path)" },
		{ "../x", "contains '/' (a name, not a path)" },
		{ "a/b", "contains '/' (a name, not a path)" },
		{ "dir/", "contains '/' (a name, not a path)" },
		{ "a b", "has a character other than A-Z a-z 0-9 . _ -" },
		{ "a\nb", "has a character other than A-Z a-z 0-9 . _ -" },
		{ "a\\b", "has a character other than A-Z a-z 0-9 . _ -" },
		{ "x*", "has a character other than A-Z a-z 0-9 . _ -" },
		{ "caf\xc3\xa9", "has a character other than A-Z a-z 0-9 . _ -" },
		{ "~root", "has a character other than A-Z a-z 0-9 . _ -" },
	};
	char err[AIF_CTL_ERR_MAX], want[AIF_CTL_ERR_MAX], name[AIF_CTL_NAME_MAX + 2];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("case: '%s'\n", cases[i].name);
		err[0] = '\0';
		if (cases[i].why == NULL) {
			assert_int_equal(aif_ctl_name_check(cases[i].name, err, sizeof(err)), 0);
			continue;
		}
		assert_int_equal(aif_ctl_name_check(cases[i].name, err, sizeof(err)), -1);
		snprintf(want, sizeof(want), "file name %s (1..%u characters of "
			 "A-Z a-z 0-9 . _ -, not starting with '.' or '-')", cases[i].why,
			 AIF_CTL_NAME_MAX);
		assert_string_equal(err, want);
	}
	/* the length limit, exactly */
	memset(name, 'n', sizeof(name));
	name[AIF_CTL_NAME_MAX] = '\0';
	assert_int_equal(aif_ctl_name_check(name, err, sizeof(err)), 0);
	name[AIF_CTL_NAME_MAX] = 'n';
	name[AIF_CTL_NAME_MAX + 1] = '\0';
	assert_int_equal(aif_ctl_name_check(name, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "file name is too long"));
}

/* ---------------------------------------------------------------- */
/* Socket tests                                                      */

struct fixture {
	char path[108];
	struct aif_ctl_server *srv;
	struct fake fake;
	int handled;          /* requests answered, summed over polls */
	uint64_t now_ns;      /* the server's clock */
};

struct reader {
	char *buf;
	size_t len;
	size_t cap;
	bool eof;             /* EOF or reset seen */
	size_t counted;       /* buf[0..counted) holds lines '\n' */
	size_t lines;
};

static void
make_path(char *buf, size_t len)
{
	static unsigned seq;

	snprintf(buf, len, "/tmp/aif_test_ctl.%d.%u.sock", (int)getpid(), seq++);
}

static int
setup_server(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	char err[AIF_CTL_ERR_MAX];

	if (fx == NULL)
		return -1;
	make_path(fx->path, sizeof(fx->path));
	fx->now_ns = T0_NS;
	fx->srv = aif_ctl_server_create(fx->path, fake_handler, &fx->fake, err,
					sizeof(err));
	if (fx->srv == NULL) {
		fprintf(stderr, "server: %s\n", err);
		free(fx);
		return -1;
	}
	*state = fx;
	return 0;
}

static int
teardown_server(void **state)
{
	struct fixture *fx = *state;

	aif_ctl_server_destroy(fx->srv);
	unlink(fx->path); /* in case a test destroyed nothing */
	free(fx);
	return 0;
}

static void
server_round(struct fixture *fx, int timeout_ms)
{
	int n = aif_ctl_server_poll_at(fx->srv, timeout_ms, fx->now_ns);

	assert_true(n >= 0);
	fx->handled += n;
}

/* A nonblocking client, connected (the server accepts on a later poll). */
static int
client_connect(struct fixture *fx)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	strcpy(addr.sun_path, fx->path);
	for (int i = 0; i < MAX_ROUNDS; i++) {
		if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0)
			return fd;
		assert_int_equal(errno, EAGAIN); /* backlog full */
		server_round(fx, 0);
	}
	fail_msg("cannot connect to %s", fx->path);
	return -1;
}

/* Send all of buf, letting the server read between partial sends. */
static void
client_send(struct fixture *fx, int fd, const char *buf, size_t len)
{
	size_t off = 0;

	for (int i = 0; i < MAX_SENDS && off < len; i++) {
		ssize_t n = send(fd, buf + off, len - off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		assert_true(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
		server_round(fx, 0);
	}
	assert_int_equal(off, len);
}

static void
client_send_str(struct fixture *fx, int fd, const char *s)
{
	client_send(fx, fd, s, strlen(s));
}

/* Take whatever the client can read now. */
static void
reader_drain(struct reader *r, int fd)
{
	for (int i = 0; i < MAX_SENDS && !r->eof; i++) {
		ssize_t n;

		if (r->cap - r->len < 65536) {
			r->cap = r->cap ? r->cap * 2 : 65536;
			r->buf = realloc(r->buf, r->cap);
			assert_non_null(r->buf);
		}
		n = recv(fd, r->buf + r->len, r->cap - r->len, MSG_DONTWAIT);
		if (n > 0) {
			r->len += (size_t)n;
		} else if (n == 0 || errno == ECONNRESET) {
			r->eof = true;
		} else {
			assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
			return;
		}
	}
}

/* Lines read so far (counted once each: replies are tens of MB). */
static size_t
reader_lines(struct reader *r)
{
	const char *p;

	while (r->counted < r->len &&
	       (p = memchr(r->buf + r->counted, '\n', r->len - r->counted)) != NULL) {
		r->counted = (size_t)(p - r->buf) + 1;
		r->lines++;
	}
	r->counted = r->len;
	return r->lines;
}

/* Poll the server until the client has want lines (or EOF when want_eof). */
static void
pump(struct fixture *fx, int fd, struct reader *r, size_t want,
     bool want_eof)
{
	for (int i = 0; i < MAX_ROUNDS; i++) {
		reader_drain(r, fd);
		if (reader_lines(r) >= want && (!want_eof || r->eof))
			return;
		if (r->eof)
			break;
		server_round(fx, 10);
	}
	fail_msg("got %zu of %zu replies, eof %d", reader_lines(r), want,
		 r->eof);
}

/* Line i of what the client read, parsed. */
static json_t *
reader_reply(const struct reader *r, size_t idx)
{
	size_t start = 0;

	for (size_t i = 0; i < r->len; i++) {
		if (r->buf[i] != '\n')
			continue;
		if (idx-- == 0)
			return parse_reply(r->buf + start, i + 1 - start);
		start = i + 1;
	}
	fail_msg("no reply %zu", idx);
	return NULL;
}

static void
assert_reply_error(const struct reader *r, size_t idx, const char *error)
{
	json_t *j = reader_reply(r, idx);

	assert_false(json_is_true(json_object_get(j, "ok")));
	assert_string_equal(json_string_value(json_object_get(j, "error")), error);
	json_decref(j);
}

static void
assert_reply_id(const struct reader *r, size_t idx, json_int_t id)
{
	json_t *j = reader_reply(r, idx);
	json_t *res = json_object_get(j, "result");

	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_int_equal(json_integer_value(json_object_get(res, "id")), id);
	json_decref(j);
}

static void
test_socket_mode(void **state)
{
	struct fixture *fx = *state;
	struct stat st;

	assert_int_equal(stat(fx->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0660);
}

static void
test_pipelined(void **state)
{
	struct fixture *fx = *state;
	struct reader r = { 0 };
	int fd = client_connect(fx);

	client_send_str(fx, fd, "{\"cmd\":\"echo\",\"id\":1}\n"
				"{\"cmd\":\"echo\",\"id\":2}\n");
	pump(fx, fd, &r, 2, false);
	assert_int_equal(reader_lines(&r), 2);
	assert_reply_id(&r, 0, 1);
	assert_reply_id(&r, 1, 2);
	assert_int_equal(fx->handled, 2);
	assert_int_equal(fx->fake.calls, 2);

	/* The connection stays open for more. */
	client_send_str(fx, fd, "{\"cmd\":\"nope\"}\n");
	pump(fx, fd, &r, 3, false);
	assert_reply_error(&r, 2, "unknown command 'nope'");
	assert_false(r.eof);
	close(fd);
	free(r.buf);
}

/* Every line gets a reply, a blank one an error; an unterminated blank
 * tail at EOF is no line. */
static void
test_blank_lines_answered(void **state)
{
	struct fixture *fx = *state;
	struct reader r = { 0 };
	int fd = client_connect(fx);

	client_send_str(fx, fd, "\n\r\n  \n{\"cmd\":\"echo\",\"id\":7}\r\n\n \t");
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	pump(fx, fd, &r, 5, true);
	assert_int_equal(reader_lines(&r), 5);
	for (size_t i = 0; i < 3; i++)
		assert_reply_error(&r, i, "empty request (one JSON object per line, "
			       "e.g. {\"cmd\": \"status\"})");
	assert_reply_id(&r, 3, 7);
	assert_reply_error(&r, 4, "empty request (one JSON object per line, "
		       "e.g. {\"cmd\": \"status\"})");
	assert_int_equal(fx->handled, 5);
	assert_int_equal(fx->fake.calls, 1);
	close(fd);
	free(r.buf);
}

static void
test_oversized_line(void **state)
{
	struct fixture *fx = *state;
	const char *first = "{\"cmd\":\"echo\",\"id\":1}\n";
	size_t big_len = AIF_CTL_MAX_REQ + 1;
	struct reader r = { 0 }, r2 = { 0 };
	char *big = malloc(big_len + 1);
	int fd = client_connect(fx), fd2;

	assert_non_null(big);
	memset(big, 'x', big_len);
	big[big_len] = '\n';

	/* A good request, then the limit + 1 bytes and its '\n'. */
	client_send_str(fx, fd, first);
	client_send(fx, fd, big, big_len + 1);
	pump(fx, fd, &r, 2, true);
	assert_int_equal(reader_lines(&r), 2);
	assert_reply_id(&r, 0, 1);
	char want[64];
	snprintf(want, sizeof(want), "request too large (limit %u bytes)", AIF_CTL_MAX_REQ);
	assert_reply_error(&r, 1, want);
	assert_true(r.eof);
	close(fd);

	/* The server goes on serving. */
	fd2 = client_connect(fx);
	client_send_str(fx, fd2, "{\"cmd\":\"echo\",\"id\":2}\n");
	pump(fx, fd2, &r2, 1, false);
	assert_reply_id(&r2, 0, 2);
	close(fd2);
	free(r.buf);
	free(r2.buf);
	free(big);
}

/* A line of exactly AIF_CTL_MAX_REQ bytes is accepted. */
static void
test_line_at_limit(void **state)
{
	struct fixture *fx = *state;
	const char *head = "{\"cmd\":\"echo\",\"id\":3,\"pad\":\"";
	size_t len = AIF_CTL_MAX_REQ;
	struct reader r = { 0 };
	char *line = malloc(len + 1);
	int fd = client_connect(fx);

	assert_non_null(line);
	memset(line, 'p', len);
	memcpy(line, head, strlen(head));
	memcpy(line + len - 2, "\"}", 2);
	line[len] = '\n';
	client_send(fx, fd, line, len + 1);
	pump(fx, fd, &r, 1, false);
	assert_reply_id(&r, 0, 3);
	assert_false(r.eof);
	close(fd);
	free(r.buf);
	free(line);
}

static void
test_split_line(void **state)
{
	struct fixture *fx = *state;
	struct reader r = { 0 };
	int fd = client_connect(fx);

	client_send_str(fx, fd, "{\"cmd\":\"ec");
	for (int i = 0; i < 5; i++)
		server_round(fx, 1);
	reader_drain(&r, fd);
	assert_int_equal(r.len, 0);
	assert_int_equal(fx->handled, 0);

	client_send_str(fx, fd, "ho\",\"id\":5}\n");
	pump(fx, fd, &r, 1, false);
	assert_int_equal(reader_lines(&r), 1);
	assert_reply_id(&r, 0, 5);
	assert_int_equal(fx->handled, 1);
	close(fd);
	free(r.buf);
}

/* An unterminated last line is answered at EOF, then the server closes. */
static void
test_eof_answers_last_line(void **state)
{
	struct fixture *fx = *state;
	struct reader r = { 0 };
	int fd = client_connect(fx);

	client_send_str(fx, fd, "{\"cmd\":\"echo\",\"id\":9}");
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	pump(fx, fd, &r, 1, true);
	assert_int_equal(reader_lines(&r), 1);
	assert_reply_id(&r, 0, 9);
	close(fd);
	free(r.buf);
}

/* A 4 MB request line (a 65,536-route config is 3.4 MB) is answered. */
static void
test_large_request(void **state)
{
	struct fixture *fx = *state;
	const char *head = "{\"cmd\":\"echo\",\"id\":8,\"pad\":\"";
	size_t len = 4u << 20;
	struct reader r = { 0 };
	char *line = malloc(len + 1);
	int fd = client_connect(fx);

	assert_non_null(line);
	memset(line, 'p', len);
	memcpy(line, head, strlen(head));
	memcpy(line + len - 2, "\"}", 2);
	line[len] = '\n';
	client_send(fx, fd, line, len + 1);
	pump(fx, fd, &r, 1, false);
	assert_reply_id(&r, 0, 8);
	assert_true(r.len > len);
	assert_false(r.eof);
	close(fd);
	free(r.buf);
	free(line);
}

/* Read at most max bytes now. */
static void
reader_take(struct reader *r, int fd, size_t max)
{
	ssize_t n;

	if (r->cap - r->len < max) {
		r->cap = r->len + max;
		r->buf = realloc(r->buf, r->cap);
		assert_non_null(r->buf);
	}
	n = recv(fd, r->buf + r->len, max, MSG_DONTWAIT);
	if (n > 0)
		r->len += (size_t)n;
	else if (n == 0)
		r->eof = true;
	else
		assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
}

#define BIG_REPLY_BYTES (20u << 20)

/* The length of the "result" string of reply idx, which must be ok. */
static size_t
reply_string_len(const struct reader *r, size_t idx)
{
	json_t *j = reader_reply(r, idx);
	size_t n;

	assert_true(json_is_true(json_object_get(j, "ok")));
	n = json_string_length(json_object_get(j, "result"));
	json_decref(j);
	return n;
}

/*
 * A 20 MiB reply reaches a client that reads it 256 KiB at a time; the
 * requests it sent behind it wait (the server neither reads nor answers
 * them while the reply is mostly unsent: memory stays bounded) and are
 * answered in order once it has taken the reply.
 */
static void
test_large_reply_slow_reader(void **state)
{
	struct fixture *fx = *state;
	struct reader r = { 0 };
	char req[256];
	int fd = client_connect(fx);
	int rounds = 0;

	snprintf(req, sizeof(req),
		 "{\"cmd\":\"big\",\"bytes\":%u}\n{\"cmd\":\"big\",\"bytes\":%u}\n"
		 "{\"cmd\":\"echo\",\"id\":11}\n", BIG_REPLY_BYTES, BIG_REPLY_BYTES);
	client_send_str(fx, fd, req);
	for (int i = 0; i < 20; i++)
		server_round(fx, 0);
	/* the first is answered; the rest wait while 20 MiB are unsent */
	assert_int_equal(fx->fake.calls, 1);
	assert_int_equal(fx->handled, 1);

	/* 2 x 20 MiB + a line, 256 KiB per round: ~170 rounds */
	while (reader_lines(&r) < 3 && !r.eof && rounds++ < 4000) {
		reader_take(&r, fd, 256u << 10);
		server_round(fx, 0);
	}
	assert_false(r.eof);
	assert_int_equal(reader_lines(&r), 3);
	assert_int_equal(fx->fake.calls, 3);
	assert_int_equal(reply_string_len(&r, 0), BIG_REPLY_BYTES);
	assert_int_equal(reply_string_len(&r, 1), BIG_REPLY_BYTES);
	assert_reply_id(&r, 2, 11);
	print_message("# 2 x %u MiB replies taken in %d rounds\n", BIG_REPLY_BYTES >> 20,
		      rounds);

	/* the connection goes on serving */
	client_send_str(fx, fd, "{\"cmd\":\"echo\",\"id\":12}\n");
	pump(fx, fd, &r, 4, false);
	assert_reply_id(&r, 3, 12);
	close(fd);
	free(r.buf);
}

/* A client that never reads stalls only itself: others are served. */
static void
test_stalled_reader_alone(void **state)
{
	struct fixture *fx = *state;
	struct reader r2 = { 0 };
	char req[64];
	int fd = client_connect(fx), fd2;

	snprintf(req, sizeof(req), "{\"cmd\":\"big\",\"bytes\":%u}\n", 1u << 20);
	for (int i = 0; i < 12; i++)
		client_send_str(fx, fd, req);
	for (int i = 0; i < 20; i++)
		server_round(fx, 0);
	/* answered up to the pause mark (8 MiB unsent) and one reply over */
	assert_true(fx->fake.calls >= 8 && fx->fake.calls <= 10);

	fd2 = client_connect(fx);
	client_send_str(fx, fd2, "{\"cmd\":\"echo\",\"id\":4}\n");
	pump(fx, fd2, &r2, 1, false);
	assert_reply_id(&r2, 0, 4);
	close(fd2);
	close(fd);
	free(r2.buf);
}

/* Has the server closed fd?  Any line it sent first is kept in r. */
static bool
client_closed(struct reader *r, int fd)
{
	reader_drain(r, fd);
	return r->eof;
}

/*
 * With every slot taken, a new client is served: the least recently
 * useful connection (here the first, none has asked anything) is told why
 * and closed; the others stay.  A freed slot is reused.
 */
static void
test_client_limit(void **state)
{
	struct fixture *fx = *state;
	int fds[AIF_CTL_MAX_CLIENTS];
	struct reader r = { 0 }, r2 = { 0 }, gone = { 0 };
	int extra, again;

	for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++) {
		fds[i] = client_connect(fx);
		server_round(fx, 0);
		fx->now_ns += 1000;
	}
	extra = client_connect(fx);
	client_send_str(fx, extra, "{\"cmd\":\"echo\",\"id\":5}\n");
	pump(fx, extra, &r, 1, false);
	assert_reply_id(&r, 0, 5);
	assert_true(client_closed(&gone, fds[0]));
	assert_int_equal(reader_lines(&gone), 1);
	assert_non_null(strstr(gone.buf, "connection closed to serve a new client"));
	for (int i = 1; i < AIF_CTL_MAX_CLIENTS; i++) {
		struct reader e = { 0 };

		assert_false(client_closed(&e, fds[i]));
		free(e.buf);
	}
	close(extra);
	close(fds[0]);

	/* Client EOF frees its slot. */
	for (int i = 0; i < 3; i++)
		server_round(fx, 0);
	again = client_connect(fx);
	client_send_str(fx, again, "{\"cmd\":\"echo\",\"id\":6}\n");
	pump(fx, again, &r2, 1, false);
	assert_reply_id(&r2, 0, 6);
	close(again);
	for (int i = 1; i < AIF_CTL_MAX_CLIENTS; i++)
		close(fds[i]);
	free(r.buf);
	free(r2.buf);
	free(gone.buf);
}

/*
 * Clients that send a byte every 30 s never reach the idle timeout, so
 * they could hold every slot for good.  A 65th client is still served;
 * the trickler that connected first goes, not the one that asked
 * something lately, nor one that trickles later.
 */
static void
test_trickling_clients_evicted(void **state)
{
	struct fixture *fx = *state;
	int fds[AIF_CTL_MAX_CLIENTS];
	struct reader asked = { 0 }, r = { 0 };
	int extra;

	for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++) {
		fds[i] = client_connect(fx);
		server_round(fx, 0);
		fx->now_ns += 1000;
	}
	for (int t = 0; t < 6; t++) { /* three minutes */
		fx->now_ns += 30ull * 1000000000ull;
		for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++)
			client_send_str(fx, fds[i], t == 0 ? "{" : " ");
		server_round(fx, 0);
		server_round(fx, 0);
	}
	/* client 0 completes a request: now the most recently useful */
	client_send_str(fx, fds[0], "\"cmd\":\"echo\",\"id\":1}\n");
	pump(fx, fds[0], &asked, 1, false);
	assert_reply_id(&asked, 0, 1);

	for (int k = 0; k < 3; k++) {
		struct reader e = { 0 };

		extra = client_connect(fx);
		client_send_str(fx, extra, "{\"cmd\":\"echo\",\"id\":2}\n");
		pump(fx, extra, &r, 1, false);
		assert_reply_id(&r, 0, 2);
		/* the oldest tricklers went, in order (1, 2, 3) */
		assert_true(client_closed(&e, fds[1 + k]));
		free(e.buf);
		fds[1 + k] = extra;
		free(r.buf);
		memset(&r, 0, sizeof(r));
	}
	{
		struct reader e = { 0 };

		assert_false(client_closed(&e, fds[0]));
		assert_false(client_closed(&e, fds[4]));
		free(e.buf);
	}
	for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++)
		close(fds[i]);
	free(asked.buf);
}

/* More than the limit connecting within one round: the ones beyond it are
 * told why; none of those just accepted is thrown out for them. */
static void
test_client_burst(void **state)
{
	struct fixture *fx = *state;
	int fds[AIF_CTL_MAX_CLIENTS + 1];
	struct reader r = { 0 };
	char want[64];

	for (int i = 0; i <= AIF_CTL_MAX_CLIENTS; i++)
		fds[i] = client_connect(fx);
	pump(fx, fds[AIF_CTL_MAX_CLIENTS], &r, 1, true);
	snprintf(want, sizeof(want), "too many clients at once (limit %d)",
		 AIF_CTL_MAX_CLIENTS);
	assert_reply_error(&r, 0, want);
	for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++) {
		struct reader e = { 0 };

		assert_false(client_closed(&e, fds[i]));
		free(e.buf);
	}
	for (int i = 0; i <= AIF_CTL_MAX_CLIENTS; i++)
		close(fds[i]);
	free(r.buf);
}

/*
 * Clients that connect and say nothing hold every slot for a while, not
 * for good: once they have been idle AIF_CTL_IDLE_TIMEOUT_NS they are
 * closed and a new client is served.  One that made a request meanwhile
 * stays.
 */
static void
test_idle_clients_closed(void **state)
{
	struct fixture *fx = *state;
	int fds[AIF_CTL_MAX_CLIENTS];
	struct reader r = { 0 }, busy = { 0 };
	int fd = -1;

	for (int i = 0; i < AIF_CTL_MAX_CLIENTS; i++) {
		fds[i] = client_connect(fx);
		server_round(fx, 0);
	}
	/* half the timeout later, client 0 asks something */
	fx->now_ns += AIF_CTL_IDLE_TIMEOUT_NS / 2;
	client_send_str(fx, fds[0], "{\"cmd\":\"echo\",\"id\":1}\n");
	pump(fx, fds[0], &busy, 1, false);
	assert_reply_id(&busy, 0, 1);

	/* the others' timeout is up; a new client gets a slot and a reply */
	fx->now_ns = T0_NS + AIF_CTL_IDLE_TIMEOUT_NS;
	for (int i = 0; i < MAX_ROUNDS && fd < 0; i++) {
		struct reader probe = { 0 };
		int c = client_connect(fx);

		client_send_str(fx, c, "{\"cmd\":\"echo\",\"id\":2}\n");
		pump(fx, c, &probe, 1, false);
		json_t *j = reader_reply(&probe, 0);
		if (json_is_true(json_object_get(j, "ok")))
			fd = c, r = probe;
		else
			close(c), free(probe.buf);
		json_decref(j);
	}
	assert_true(fd >= 0);
	assert_reply_id(&r, 0, 2);

	/* the idle ones were closed (EOF), the one that asked was not */
	for (int i = 1; i < AIF_CTL_MAX_CLIENTS; i++) {
		struct reader e = { 0 };

		reader_drain(&e, fds[i]);
		assert_true(e.eof);
		assert_int_equal(e.len, 0);
		close(fds[i]);
		free(e.buf);
	}
	client_send_str(fx, fds[0], "{\"cmd\":\"echo\",\"id\":3}\n");
	pump(fx, fds[0], &busy, 2, false);
	assert_reply_id(&busy, 1, 3);
	close(fds[0]);
	close(fd);
	free(r.buf);
	free(busy.buf);
}

/* A live socket is refused, a stale one replaced, a regular file kept. */
static void
test_create_path_checks(void **state)
{
	struct fixture *fx = *state;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct aif_ctl_server *s2;
	char path[108], err[AIF_CTL_ERR_MAX];
	struct stat st;
	int fd;

	s2 = aif_ctl_server_create(fx->path, fake_handler, &fx->fake, err,
				   sizeof(err));
	assert_null(s2);
	assert_non_null(strstr(err, "another server is listening"));

	/* Stale: bound, then closed without unlink. */
	make_path(path, sizeof(path));
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	close(fd);
	s2 = aif_ctl_server_create(path, fake_handler, &fx->fake, err,
				   sizeof(err));
	assert_non_null(s2);
	aif_ctl_server_destroy(s2);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);

	/* Not a socket. */
	fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	s2 = aif_ctl_server_create(path, fake_handler, &fx->fake, err,
				   sizeof(err));
	assert_null(s2);
	assert_non_null(strstr(err, "not a socket"));
	assert_int_equal(stat(path, &st), 0);
	unlink(path);
}

#define SRV_TEST(f) cmocka_unit_test_setup_teardown(f, setup_server, teardown_server)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handle_line_cases),
		cmocka_unit_test(test_handle_line_exact),
		cmocka_unit_test(test_name_check),
		SRV_TEST(test_socket_mode),
		SRV_TEST(test_pipelined),
		SRV_TEST(test_blank_lines_answered),
		SRV_TEST(test_oversized_line),
		SRV_TEST(test_line_at_limit),
		SRV_TEST(test_split_line),
		SRV_TEST(test_eof_answers_last_line),
		SRV_TEST(test_large_request),
		SRV_TEST(test_large_reply_slow_reader),
		SRV_TEST(test_stalled_reader_alone),
		SRV_TEST(test_client_limit),
		SRV_TEST(test_trickling_clients_evicted),
		SRV_TEST(test_client_burst),
		SRV_TEST(test_idle_clients_closed),
		SRV_TEST(test_create_path_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
