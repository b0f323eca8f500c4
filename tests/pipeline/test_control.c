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

	H.sw->ports[port].link_up = up;
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
	assert_ptr_equal(t->cfg, cfg);
	assert_string_equal(t->groups[0].name, "second");
	uint64_t gen = t->generation;
	unsigned n_buckets = t->groups[0].n_buckets;
	assert_true(buckets_on_port(t, 2) > 0);

	set_link(2, 0);
	t = H.sw->tables;
	assert_int_equal(t->generation, gen + 1);
	assert_int_equal(H.ctl.link_rebuilds, rebuilds + 1);
	assert_ptr_equal(t->cfg, cfg);             /* shared, not parsed again */
	assert_string_equal(t->groups[0].name, "second"); /* not an older config */
	assert_int_equal(buckets_on_port(t, 2), 0);
	assert_int_equal(buckets_on_port(t, 1), n_buckets);

	set_link(2, 1);
	t = H.sw->tables;
	assert_int_equal(t->generation, gen + 2);
	assert_ptr_equal(t->cfg, cfg);
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
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, &H.ctl);
	json_t *j;

	assert_non_null(reply);
	j = json_loads(reply, 0, NULL);
	free(reply);
	assert_non_null(j);
	return j;
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_changed_reuses_parsed_config),
		cmocka_unit_test(test_show_trace_pages),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
