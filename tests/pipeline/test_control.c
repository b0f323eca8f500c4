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

#include "commands.h"
#include "config.h"
#include "switch.h"
#include "tables.h"

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links_changed_reuses_parsed_config),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
