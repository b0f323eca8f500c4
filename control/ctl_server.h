/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control socket: newline-delimited JSON over a Unix stream socket.
 *
 * A request is one JSON object on one line, {"cmd": "<name>", ...args}.
 * A reply is one line, {"ok": true, "result": <any JSON>} or
 * {"ok": false, "error": "<reason>"}.  Replies come back in request order;
 * a client may pipeline several requests on one connection.
 *
 * Threads and ownership: everything here runs on the control thread only,
 * and the command handler runs there too, called from
 * aif_ctl_server_poll().  Nothing in this file is shared with the workers;
 * a handler that changes forwarding state does so by building a new
 * immutable table and publishing it (see control/ for that protocol).  The
 * server owns its sockets and buffers; the handler owns nothing it is given
 * (req is borrowed) and returns a new reference that the server releases.
 *
 * The daemon's start-up config is applied by the function the load command
 * applies a config with (aif_ctl_apply_config), from the one parse of the
 * file: the socket and the start-up file share one set of checks.
 */
#ifndef AIF_CTL_SERVER_H
#define AIF_CTL_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define AIF_CTL_DEFAULT_SOCKET "/run/aifabric/aifabric.sock"
#define AIF_CTL_DEFAULT_CAPTURE_DIR "/run/aifabric/captures" /* next to the socket */
#define AIF_CTL_MAX_REQ (64u << 20)         /* bytes in one request line, '\n' excluded */
#define AIF_CTL_MAX_CLIENTS 64              /* connections served at once */
#define AIF_CTL_BACKLOG 256                 /* connections waiting for accept() */
#define AIF_CTL_OUT_PAUSE_BYTES (8u << 20)  /* unsent reply bytes past which a client's
					     * further requests wait (backpressure) */
#define AIF_CTL_IDLE_TIMEOUT_NS (60ull * 1000000000ull) /* a client that moves no
					     * byte either way this long is closed */
#define AIF_CTL_ERR_MAX 256                 /* size of the err buffer given to a handler */
#define AIF_CTL_NAME_MAX 128                /* bytes in a file name a client gives */

/*
 * A command handler.  cmd is the request's "cmd" string, req the whole
 * request object (borrowed).  Returns a new reference to the result (any
 * JSON value; json_null() when there is nothing to say), or NULL with a
 * reason written into err (err_len bytes, AIF_CTL_ERR_MAX).  An unknown
 * command is an error like any other, e.g. "unknown command 'foo'".
 */
typedef json_t *(*aif_ctl_handler)(void *ctx, const char *cmd, json_t *req,
				   char *err, size_t err_len);

/*
 * Parse one request line (len bytes, need not be NUL-terminated; trailing
 * whitespace and a CR are tolerated), check it, call h and build the reply.
 * A blank line is answered too, with the error "empty request".
 * Returns the reply as a malloc'd NUL-terminated line ending in '\n' (free()
 * it), or NULL when out of memory.
 *
 *	char *reply = aif_ctl_handle_line(line, strlen(line), handler, ctx);
 *	fputs(reply, stdout);
 *	free(reply);
 */
char *aif_ctl_handle_line(const char *line, size_t len, aif_ctl_handler h,
			  void *ctx);

/*
 * Is name a file name a client may give (a capture file, a config file in
 * the config directory)?  1..AIF_CTL_NAME_MAX bytes of A-Z a-z 0-9 . _ -,
 * not starting with '.' or '-': so never a path ('/'), never "." or "..",
 * no hidden file, nothing an option parser would take.  0, or -1 with the
 * reason in err (which does not quote the name).
 *
 *	if (aif_ctl_name_check(name, err, err_len) != 0)
 *		return NULL;
 */
int aif_ctl_name_check(const char *name, char *err, size_t err_len);

struct aif_ctl_server;

/*
 * Listen on the Unix socket path: a stale socket left there is removed (a
 * live one, or a file that is not a socket, is an error), the new one is
 * made mode 0660 and all sockets are nonblocking.  Returns NULL with a
 * reason in err on failure.
 */
struct aif_ctl_server *aif_ctl_server_create(const char *path,
					     aif_ctl_handler h, void *ctx,
					     char *err, size_t err_len);

/*
 * One round: poll() the listener and up to AIF_CTL_MAX_CLIENTS clients for
 * at most timeout_ms (0: do not wait, -1: wait for an event), accept new
 * clients, read what is available, answer each complete line and write
 * what the clients will take.  Every line gets one reply, in order.  Never
 * blocks on a client: a reply of any size is queued, and a client whose
 * unsent replies exceed AIF_CTL_OUT_PAUSE_BYTES is not read (its further
 * requests wait in its socket) until it has taken them below that.  A
 * client that moved no byte either way for AIF_CTL_IDLE_TIMEOUT_NS is
 * closed.  Returns the number of requests answered this round, or -1 when
 * poll() itself failed (errno set).
 *
 *	while (running)
 *		if (aif_ctl_server_poll(srv, 100) < 0)
 *			break;
 *
 * aif_ctl_server_poll() reads CLOCK_MONOTONIC for the idle check;
 * aif_ctl_server_poll_at() takes the time instead (now_ns, any monotonic
 * origin, the same one on every call), so that a test can move it.
 */
int aif_ctl_server_poll(struct aif_ctl_server *s, int timeout_ms);
int aif_ctl_server_poll_at(struct aif_ctl_server *s, int timeout_ms,
			   uint64_t now_ns);

/* Close every connection and the listener and remove the socket path. */
void aif_ctl_server_destroy(struct aif_ctl_server *s);

#endif /* AIF_CTL_SERVER_H */
