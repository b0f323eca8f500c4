/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control commands (control/commands.c) on a whole switch: three ring-backed
 * ports (tests/pipeline/ring_switch.h), p0 towards hosts, p1 and p2 the two
 * members of group "up".
 *
 *   - A link change rebuilds the tables from the parsed running config the
 *     published tables hold: the very same struct aif_config, nothing read
 *     or parsed again, even for a config that never went through the load
 *     command as text; members on a down port get no bucket, and get theirs
 *     back when it comes up.
 *   - show_trace pages: "offset" and "limit" over the records kept, with
 *     their "total"; bad values refused.
 *   - load by "path": refused without a config directory; inside it, by
 *     name only, regular files only (a FIFO is refused at once), and a
 *     rejected file's error never quotes its content.
 *   - capture_start: a file name in the capture directory (made 0750 when
 *     missing; the file 0640), never a path; limits given and shown.
 *
 * No test sleeps; the switch never needs its worker to run here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <rte_byteorder.h>

#include "commands.h"
#include "config.h"
#include "ctl_server.h"
#include "switch.h"
#include "tables.h"
#include "trace.h"

#include "ring_switch.h"
#include "ctl_reply.h"

#define N_PORTS 3
#define RING_SIZE 256
#define POOL_SIZE 2047
#define POOL_CACHE 32

static struct rs_harness H;

/* Two configs that differ in their group's name: which one runs shows. */
#define CONFIG_FMT                                                                 \
	"{\"switches\": [{\"name\": \"leaf0\", \"ports\": ["                       \
	" {\"name\": \"p0\", \"device\": \"net_ring_ct0\", \"addresses\": [\"10.0.0.1/24\"]}," \
	" {\"name\": \"p1\", \"device\": \"net_ring_ct1\", \"addresses\": [\"10.0.1.0/31\"]}," \
	" {\"name\": \"p2\", \"device\": \"net_ring_ct2\", \"addresses\": [\"10.0.2.0/31\"]}]," \
	" \"nexthop_groups\": [{\"name\": \"%s\", \"members\": ["                  \
	"  {\"ip\": \"10.0.1.1\", \"port\": \"p1\"}, {\"ip\": \"10.0.2.1\", \"port\": \"p2\"}]}]," \
	" \"routes\": [{\"prefix\": \"10.1.0.0/16\", \"group\": \"%s\"}]}]}"

static char *
config_text(const char *group)
{
	size_t n = strlen(CONFIG_FMT) + 2 * strlen(group) + 1;
	char *s = malloc(n);

	assert_non_null(s);
	snprintf(s, n, CONFIG_FMT, group, group);
	return s;
}

static int
group_setup(void **state)
{
	char *text = config_text("first");
	const struct rs_params params = {
		.prog = "test_control", .file_prefix = "aif-ct", .tag = "ct",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = text,
	};
	int rc;

	(void)state;
	rc = rs_setup(&H, &params);
	free(text);
	return rc;
}

static int
group_teardown(void **state)
{
	(void)state;
	rs_teardown(&H);
	return 0;
}

/* Buckets of group 0 that point at the member on port. */
static unsigned
buckets_on_port(const struct aif_tables *t, uint16_t port)
{
	const struct aif_group *g = &t->groups[0];
	unsigned n = 0;

	for (uint32_t b = 0; b < g->n_buckets; b++)
		n += t->members[g->first + t->buckets[g->bucket_first + b]].port == port;
	return n;
}

static void
set_link(uint16_t port, uint8_t up)
{
	char err[AIF_ERR_MAX] = "";

	aif_port_set_link_up(&H.sw->ports[port], up);
	if (aif_ctl_links_changed(&H.ctl, err, sizeof(err)) != 0)
		fail_msg("links_changed: %s", err);
}

/*
 * A config applied as parsed (as start-up may do, with no JSON text kept
 * anywhere): a link flap rebuilds the tables from that very config object.
 */
static void
test_links_changed_reuses_parsed_config(void **state)
{
	char err[AIF_ERR_MAX] = "";
	struct aif_config *cfg = NULL;
	char *text = config_text("second");
	uint64_t rebuilds = H.ctl.link_rebuilds;

	(void)state;
	assert_int_equal(aif_config_parse(text, strlen(text), &cfg, err, sizeof(err)), 0);
	free(text);
	if (aif_ctl_apply_config(&H.ctl, cfg, err, sizeof(err)) != 0)
		fail_msg("apply: %s", err);
	const struct aif_tables *t = H.sw->tables;
	assert_ptr_equal(H.ctl.cfg, cfg);
	assert_string_equal(t->groups[0].name, "second");
	uint64_t gen = t->generation;
	unsigned n_buckets = t->groups[0].n_buckets;
	assert_true(buckets_on_port(t, 2) > 0);

	set_link(2, 0);
	t = H.sw->tables;
	assert_int_equal(t->generation, gen + 1);
	assert_int_equal(H.ctl.link_rebuilds, rebuilds + 1);
	assert_ptr_equal(H.ctl.cfg, cfg);             /* shared, not parsed again */
	assert_string_equal(t->groups[0].name, "second"); /* not an older config */
	assert_int_equal(buckets_on_port(t, 2), 0);
	assert_int_equal(buckets_on_port(t, 1), n_buckets);

	set_link(2, 1);
	t = H.sw->tables;
	assert_int_equal(t->generation, gen + 2);
	assert_ptr_equal(H.ctl.cfg, cfg);
	assert_true(buckets_on_port(t, 2) > 0);
	assert_true(buckets_on_port(t, 1) > 0);
	/* the config outlives every table that held it but the last (ASan
	 * would see a use after free in the reads above otherwise) */
	assert_int_equal(cfg->refs, 1);
}

/* One control request through the socket's line handler; the reply. */
static json_t *
ctl_request(const char *line)
{
	return ctl_reply(&H.ctl, line);
}

/* The result of a request that must succeed (the reply is kept in *reply). */
static json_t *
ctl_ok(const char *line, json_t **reply)
{
	*reply = ctl_request(line);
	if (!json_is_true(json_object_get(*reply, "ok")))
		fail_msg("%s: %s", line,
			 json_string_value(json_object_get(*reply, "error")));
	return json_object_get(*reply, "result");
}

static void
ctl_error(const char *line, const char *want)
{
	json_t *r = ctl_request(line);

	assert_false(json_is_true(json_object_get(r, "ok")));
	assert_string_equal(json_string_value(json_object_get(r, "error")), want);
	json_decref(r);
}

/* Page [offset, offset + n) holds the records with those source ports. */
static void
assert_page(const json_t *res, unsigned total, unsigned offset, unsigned n)
{
	const json_t *pk = json_object_get(res, "packets");

	assert_int_equal(json_integer_value(json_object_get(res, "total")), total);
	assert_int_equal(json_integer_value(json_object_get(res, "offset")), offset);
	assert_int_equal(json_array_size(pk), n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(pk, i),
								    "src_port")),
				 1000 + offset + i);
}

#define TRACE_RECS 100

static void
test_show_trace_pages(void **state)
{
	json_t *r;

	(void)state;
	ctl_ok("{\"cmd\": \"trace_start\", \"dst\": \"10.1.7.7\"}", &r);
	json_decref(r);
	ctl_ok("{\"cmd\": \"trace_stop\"}", &r);
	json_decref(r);
	/* records as aif_trace_drain leaves them in the control's list */
	struct aif_trace *tr = H.sw->trace;
	for (unsigned i = 0; i < TRACE_RECS; i++)
		tr->kept[i] = (struct aif_trace_rec){
			.t_ns = i, .src_port = rte_cpu_to_be_16((uint16_t)(1000 + i)),
			.out_port = 1,
		};
	tr->n_kept = TRACE_RECS;

	assert_page(ctl_ok("{\"cmd\": \"show_trace\"}", &r), TRACE_RECS, 0, TRACE_RECS);
	json_decref(r);
	assert_page(ctl_ok("{\"cmd\": \"show_trace\", \"limit\": 30}", &r), TRACE_RECS, 0, 30);
	json_decref(r);
	assert_page(ctl_ok("{\"cmd\": \"show_trace\", \"offset\": 30, \"limit\": 30}", &r),
		    TRACE_RECS, 30, 30);
	json_decref(r);
	assert_page(ctl_ok("{\"cmd\": \"show_trace\", \"offset\": 90, \"limit\": 30}", &r),
		    TRACE_RECS, 90, 10);
	json_decref(r);
	assert_page(ctl_ok("{\"cmd\": \"show_trace\", \"offset\": 90}", &r), TRACE_RECS, 90, 10);
	json_decref(r);
	assert_page(ctl_ok("{\"cmd\": \"show_trace\", \"offset\": 100}", &r), TRACE_RECS, 100, 0);
	json_decref(r);
	json_t *res = ctl_ok("{\"cmd\": \"show_trace\", \"offset\": 9223372036854775807, "
			     "\"limit\": 9223372036854775807}", &r);
	assert_int_equal(json_array_size(json_object_get(res, "packets")), 0);
	assert_int_equal(json_integer_value(json_object_get(res, "total")), TRACE_RECS);
	json_decref(r);
	ctl_error("{\"cmd\": \"show_trace\", \"limit\": 0}", "\"limit\" must be an integer >= 1");
	ctl_error("{\"cmd\": \"show_trace\", \"offset\": -1}",
		  "\"offset\" must be an integer >= 0");
	ctl_error("{\"cmd\": \"show_trace\", \"offset\": \"1\"}",
		  "\"offset\" must be an integer >= 0");
	/* clear drops every record after the page it returns */
	assert_page(ctl_ok("{\"cmd\": \"show_trace\", \"limit\": 5, \"clear\": true}", &r),
		    TRACE_RECS, 0, 5);
	json_decref(r);
	assert_page(ctl_ok("{\"cmd\": \"show_trace\"}", &r), 0, 0, 0);
	json_decref(r);
}

/* A file in dir with the given text. */
static void
write_file(const char *dir, const char *name, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static const char *
reply_error(json_t *r)
{
	assert_false(json_is_true(json_object_get(r, "ok")));
	return json_string_value(json_object_get(r, "error"));
}

/* {"cmd":"load","path":name}; the reply. */
static json_t *
load_path(const char *name)
{
	json_t *req = json_pack("{s:s, s:s}", "cmd", "load", "path", name);
	char *line = json_dumps(req, JSON_COMPACT);
	json_t *r;

	json_decref(req);
	r = ctl_request(line);
	free(line);
	return r;
}

static void
test_load_by_path(void **state)
{
	char dir[] = "/tmp/aif_test_control.XXXXXX";
	char p[256], *text;
	json_t *r;
	uint64_t gen, rejected = H.ctl.loads_rejected;

	(void)state;
	assert_non_null(mkdtemp(dir));
	text = config_text("bypath");
	write_file(dir, "good.json", text);
	free(text);
	write_file(dir, "bad.json", "secret-token-123 and more secrets\n");
	write_file(dir, "bad2.json", "{\"switches\": [], \"mysecretkey\": 1}");
	text = config_text("other");
	text[strlen(text) - 3] = '\0'; /* cut inside a string: a syntax error */
	write_file(dir, "cut.json", text);
	free(text);
	snprintf(p, sizeof(p), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/link.json", dir);
	assert_int_equal(symlink("good.json", p), 0);
	gen = H.sw->tables->generation;

	/* no --config-dir: no load by path at all */
	H.ctl.config_dir = NULL;
	r = load_path("good.json");
	assert_string_equal(reply_error(r), "load by \"path\" is off: the daemon has no "
			    "--config-dir; send the config itself as \"config\" "
			    "(aifabricctl load FILE does)");
	json_decref(r);
	r = load_path("/etc/passwd");
	assert_non_null(strstr(reply_error(r), "is off"));
	json_decref(r);

	H.ctl.config_dir = dir;
	alarm(60); /* a hang is a failure (SIGALRM ends the test), not a wait */
	static const struct { const char *name, *error; } refused[] = {
		{ "/etc/passwd", "file name contains '/' (a name, not a path) (1..128 "
		  "characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-')" },
		{ "../good.json", "file name contains '/' (a name, not a path) (1..128 "
		  "characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-')" },
		{ ".good.json", "file name starts with '.' (1..128 characters of "
		  "A-Z a-z 0-9 . _ -, not starting with '.' or '-')" },
		{ "fifo.json", "fifo.json in %s: not a regular file (a FIFO)" },
		{ "link.json", "link.json in %s: it is a symbolic link" },
		{ "none.json", "none.json in %s: No such file or directory" },
		{ "bad.json", "bad.json: invalid JSON at line 1 column 6" },
		{ "cut.json", "cut.json: invalid JSON at line 1 column %zu" },
		{ "bad2.json", "bad2.json: not a config this switch can run (send it as "
		  "\"config\", e.g. aifabricctl load FILE, to be told why)" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char want[512];

		if (strstr(refused[i].error, "%zu") != NULL) {
			text = config_text("other");
			snprintf(want, sizeof(want), refused[i].error, strlen(text) - 3);
			free(text);
		} else {
			snprintf(want, sizeof(want), refused[i].error, dir);
		}
		print_message("# %s\n", refused[i].name);
		r = load_path(refused[i].name);
		assert_string_equal(reply_error(r), want);
		assert_null(strstr(reply_error(r), "secret"));
		json_decref(r);
	}
	alarm(0);
	assert_int_equal(H.sw->tables->generation, gen); /* nothing changed */
	assert_int_equal(H.ctl.loads_rejected, rejected + 2 + 9);

	/* a config file in the directory, by name */
	r = ctl_request("{\"cmd\": \"load\", \"path\": \"good.json\"}");
	assert_true(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	assert_int_equal(H.sw->tables->generation, gen + 1);
	assert_string_equal(H.sw->tables->groups[0].name, "bypath");

	/* a path, even to a file in the directory, is not a name */
	H.ctl.config_dir = NULL;
	snprintf(p, sizeof(p), "%s/good.json", dir);
	r = load_path(p);
	assert_false(json_is_true(json_object_get(r, "ok")));
	json_decref(r);
	H.ctl.config_dir = dir;
	r = load_path(p);
	assert_false(json_is_true(json_object_get(r, "ok")));
	json_decref(r);

	static const char *const files[] = { "good.json", "bad.json", "bad2.json",
					     "cut.json", "fifo.json", "link.json" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(rmdir(dir), 0);
}

static void
test_capture_by_name(void **state)
{
	char dir[] = "/tmp/aif_test_control.XXXXXX";
	char caps[128], p[256], want[512];
	struct stat st;
	json_t *r, *res;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(caps, sizeof(caps), "%s/run/captures", dir); /* two levels missing */

	H.ctl.capture_dir = NULL;
	r = ctl_request("{\"cmd\": \"capture_start\", \"port\": \"p0\", \"file\": \"p0.pcapng\"}");
	assert_string_equal(reply_error(r), "captures are off: the daemon has no --capture-dir");
	json_decref(r);

	H.ctl.capture_dir = caps;
	static const char *const bad[] = { "/tmp/x.pcapng", "../x.pcapng", "sub/x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[256];

		snprintf(line, sizeof(line), "{\"cmd\": \"capture_start\", \"port\": \"p0\", "
			 "\"file\": \"%s\"}", bad[i]);
		r = ctl_request(line);
		snprintf(want, sizeof(want), "\"file\": file name contains '/' (a name, not a "
			 "path) (1..128 characters of A-Z a-z 0-9 . _ -, not starting with "
			 "'.' or '-'); captures go to %s", caps);
		assert_string_equal(reply_error(r), want);
		json_decref(r);
	}
	r = ctl_request("{\"cmd\": \"capture_start\", \"port\": \"p0\", \"file\": \"a\", "
			"\"max_bytes\": 0}");
	assert_string_equal(reply_error(r), "\"max_bytes\" must be an integer >= 1");
	json_decref(r);
	r = ctl_request("{\"cmd\": \"capture_start\", \"port\": \"p0\", \"file\": \"a\", "
			"\"max_packets\": \"10\"}");
	assert_string_equal(reply_error(r), "\"max_packets\" must be an integer >= 1");
	json_decref(r);
	assert_int_equal(stat(caps, &st), -1); /* nothing made for a refused request */

	res = ctl_ok("{\"cmd\": \"capture_start\", \"port\": \"p0\", \"file\": \"p0.pcapng\", "
		     "\"max_packets\": 1000}", &r);
	snprintf(p, sizeof(p), "%s/p0.pcapng", caps);
	assert_string_equal(json_string_value(json_object_get(res, "file")), "p0.pcapng");
	assert_string_equal(json_string_value(json_object_get(res, "path")), p);
	assert_int_equal(json_integer_value(json_object_get(res, "max_bytes")), 1ll << 30);
	assert_int_equal(json_integer_value(json_object_get(res, "max_packets")), 1000);
	assert_true(json_is_null(json_object_get(res, "limit_reached")));
	json_decref(r);
	assert_int_equal(stat(caps, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	snprintf(want, sizeof(want), "%s/run", dir);
	assert_int_equal(stat(want, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0750);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	res = ctl_ok("{\"cmd\": \"show_captures\"}", &r);
	assert_int_equal(json_array_size(res), 1);
	json_decref(r);
	res = ctl_ok("{\"cmd\": \"capture_stop\", \"port\": \"p0\"}", &r);
	assert_string_equal(json_string_value(json_object_get(res, "file")), "p0.pcapng");
	json_decref(r);

	assert_int_equal(unlink(p), 0);
	assert_int_equal(rmdir(caps), 0);
	snprintf(p, sizeof(p), "%s/run", dir);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rmdir(dir), 0);
	H.ctl.capture_dir = NULL;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_changed_reuses_parsed_config),
		cmocka_unit_test(test_show_trace_pages),
		cmocka_unit_test(test_load_by_path),
		cmocka_unit_test(test_capture_by_name),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
