/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing programs in a running switch (control/lb_progs.c,
 * pipelines/lb_prog.c): three ring-backed ports, p0 towards hosts, p1 and
 * p2 the members of group "up"; RoCEv2 frames of many flows from p0.
 *
 *   - "scheme": "bpf:ecmp" in the policy (the ECMP example, an object named
 *     in the config directory, as a config a client sends must): every frame
 *     leaves by the port the built-in ECMP sends its flow to, show lb
 *     counts them, JIT.
 *   - lb load / lb unload ten times each under steady traffic (frames
 *     injected and the worker stepped between every request): every frame
 *     injected leaves, none is dropped, and while loaded the program ran.
 *   - lb load of an unsafe object: refused with the section, instruction
 *     and reason; the tables (generation) and show lb are as they were.
 *   - lb load --group up, and a client name clashing with the config's.
 *   - The registry collected while published tables still run a program
 *     whose flags say it is unused (a failed replacement): it stays, and
 *     the switch goes on running it.
 *
 * No sleeps: virtual clock, the worker stepped by the test.
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
#include <rte_mbuf.h>

#include "base64.h"
#include "commands.h"
#include "lb_prog.h"
#include "rewrite.h"
#include "config.h"
#include "ctl_server.h"
#include "switch.h"
#include "tables.h"

#include "ring_switch.h"
#include "ctl_reply.h"

#if !defined(AIF_LB_EXAMPLES_DIR) || !defined(AIF_LB_TESTS_DIR)
#error "AIF_LB_EXAMPLES_DIR, AIF_LB_TESTS_DIR: where the compiled programs are"
#endif

#define N_PORTS 3
#define RING_SIZE 1024
#define POOL_SIZE 8191
#define POOL_CACHE 32
#define FLOWS 512

static struct rs_harness H;

static const uint8_t MAC_P0[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t MAC_HOST[6] = { 0x02, 0, 0, 0, 0, 0x99 };

#define CONFIG_HEAD                                                                     \
	"{\"switches\": [{\"name\": \"leaf0\", \"ports\": ["                            \
	" {\"name\": \"p0\", \"device\": \"net_ring_lp0\", \"mac\": \"02:00:00:00:00:10\","  \
	"  \"addresses\": [\"10.0.0.1/24\"]},"                                          \
	" {\"name\": \"p1\", \"device\": \"net_ring_lp1\", \"mac\": \"02:00:00:00:00:11\","  \
	"  \"addresses\": [\"10.0.1.0/31\"]},"                                          \
	" {\"name\": \"p2\", \"device\": \"net_ring_lp2\", \"mac\": \"02:00:00:00:00:12\","  \
	"  \"addresses\": [\"10.0.2.0/31\"]}],"                                         \
	" \"neighbors\": [{\"ip\": \"10.0.1.1\", \"mac\": \"02:00:00:00:01:01\", \"port\": \"p1\"}," \
	"  {\"ip\": \"10.0.2.1\", \"mac\": \"02:00:00:00:02:01\", \"port\": \"p2\"}],"  \
	" \"nexthop_groups\": [{\"name\": \"up\", \"members\": ["                      \
	"  {\"ip\": \"10.0.1.1\", \"port\": \"p1\"}, {\"ip\": \"10.0.2.1\", \"port\": \"p2\"}]}]," \
	" \"routes\": [{\"prefix\": \"10.1.0.0/16\", \"group\": \"up\"}]}]"

static const char config_builtin[] = CONFIG_HEAD "}";
static const char config_prog[] = CONFIG_HEAD
	", \"lb_programs\": {\"ecmp\": {\"object\": \"ecmp.o\"}},"
	" \"policies\": {\"default\": {\"load_balancing\": {\"scheme\": \"bpf:ecmp\"}}}}";

static int
group_setup(void **state)
{
	const struct rs_params params = {
		.prog = "test_lb_progs", .file_prefix = "aif-lp", .tag = "lp",
		.n_ports = N_PORTS, .ring_size = RING_SIZE, .pool_size = POOL_SIZE,
		.pool_cache = POOL_CACHE, .config = config_builtin,
	};

	(void)state;
	if (rs_setup(&H, &params) != 0)
		return -1;
	/* a client's config names objects in the config directory */
	H.ctl.config_dir = AIF_LB_EXAMPLES_DIR;
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	rs_teardown(&H);
	return 0;
}

/* Ethernet / IPv4 / UDP 4791 / BTH (SEND only) / 64 bytes / ICRC, flow f. */
static uint16_t
frame(uint8_t *f, unsigned flow)
{
	uint8_t *ip = f + ETH_HLEN, *udp = ip + IP4_HLEN, *bth = udp + UDP_HLEN;
	uint16_t udp_len = UDP_HLEN + 12 + 64 + 4;

	memcpy(f, MAC_P0, 6);
	memcpy(f + 6, MAC_HOST, 6);
	put16(f + 12, 0x0800);
	memset(ip, 0, IP4_HLEN);
	ip[0] = 0x45;
	ip[1] = 26 << 2 | 2;
	put16(ip + 2, IP4_HLEN + udp_len);
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, 0x0a000002u);
	put32(ip + 16, 0x0a010000u | (flow * 7919u & 0xffff));
	uint16_t csum = aif_ipv4_csum(ip, IP4_HLEN);
	memcpy(ip + 10, &csum, 2);
	put16(udp, (uint16_t)(49152 + flow));
	put16(udp + 2, 4791);
	put16(udp + 4, udp_len);
	put16(udp + 6, 0);
	memset(bth, 0, 12 + 64 + 4);
	bth[0] = 0x04;
	put16(bth + 2, 0xffff);
	put32(bth + 4, 0x100 + flow);
	return (uint16_t)(ETH_HLEN + IP4_HLEN + udp_len);
}

/* One request through the socket's line handler: the reply. */
static json_t *
ctl_request(const char *line)
{
	return ctl_reply(&H.ctl, line);
}

/* {"cmd":"lb_load", "object": <path's bytes>, extra...}: the reply. */
static json_t *
lb_load(const char *path, const char *extra)
{
	static unsigned char buf[4 << 20];
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	assert_true(feof(f)); /* all of it */
	fclose(f);
	char *o = aif_base64_encode(buf, n);
	assert_non_null(o);
	size_t len = strlen(o) + strlen(extra) + 128;
	char *line = malloc(len);
	assert_non_null(line);
	snprintf(line, len, "{\"cmd\": \"lb_load\", \"object\": \"%s\", \"file\": \"x.o\"%s}", o,
		 extra);
	json_t *r = ctl_request(line);
	free(line);
	free(o);
	return r;
}

static void
expect_ok(json_t *r)
{
	if (!json_is_true(json_object_get(r, "ok")))
		fail_msg("refused: %s", json_string_value(json_object_get(r, "error")));
	json_decref(r);
}

/* show lb's programs array (its reply in *keep). */
static json_t *
show_lb(json_t **keep)
{
	*keep = ctl_request("{\"cmd\": \"show_lb\"}");
	assert_true(json_is_true(json_object_get(*keep, "ok")));
	return json_object_get(json_object_get(*keep, "result"), "programs");
}

/* Inject frames of flows [first, first + n); step until they are out. */
static void
send_flows(unsigned first, unsigned n)
{
	uint8_t f[256];

	for (unsigned i = 0; i < n; i++) {
		uint16_t len = frame(f, (first + i) % FLOWS);
		rs_inject(&H, 0, f, len);
	}
}

/* Which port each flow leaves by (1 or 2), one frame per flow. */
static void
ports_of_flows(uint8_t *port)
{
	struct rte_mbuf *out[FLOWS];
	uint8_t f[256];

	for (unsigned fl = 0; fl < FLOWS; fl++) {
		uint16_t len = frame(f, fl);
		rs_inject(&H, 0, f, len);
		rs_run(&H, 1000, 100);
		rs_step(&H, 1000);
		unsigned n1 = rs_sent(&H, 1, out, FLOWS);
		rs_free_all(out, n1);
		unsigned n2 = rs_sent(&H, 2, out, FLOWS);
		rs_free_all(out, n2);
		assert_int_equal(n1 + n2, 1);
		port[fl] = n1 ? 1 : 2;
	}
}

static void
test_policy_program_is_ecmp(void **state)
{
	uint8_t builtin[FLOWS], prog[FLOWS];
	char err[AIF_ERR_MAX] = "";
	json_t *keep;

	(void)state;
	if (!rs_load(&H, config_builtin, err, sizeof(err)))
		fail_msg("load: %s", err);
	ports_of_flows(builtin);
	if (!rs_load(&H, config_prog, err, sizeof(err)))
		fail_msg("load: %s", err);
	ports_of_flows(prog);
	unsigned on2 = 0;
	for (unsigned fl = 0; fl < FLOWS; fl++) {
		if (builtin[fl] != prog[fl])
			fail_msg("flow %u: built-in ECMP p%u, program p%u", fl, builtin[fl], prog[fl]);
		on2 += prog[fl] == 2;
	}
	assert_true(on2 > FLOWS / 4 && on2 < 3 * FLOWS / 4);
	json_t *p = json_array_get(show_lb(&keep), 0);
	assert_non_null(p);
	assert_string_equal(json_string_value(json_object_get(p, "name")), "ecmp");
	assert_string_equal(json_string_value(json_object_get(p, "source")), "config");
	assert_string_equal(json_string_value(json_object_get(p, "engine")), "jit");
	assert_int_equal(json_integer_value(json_object_get(p, "runs")), FLOWS);
	assert_int_equal(json_integer_value(json_object_get(p, "fallbacks")), 0);
	json_decref(keep);
	if (!rs_load(&H, config_builtin, err, sizeof(err)))
		fail_msg("load: %s", err);
	assert_int_equal(json_array_size(show_lb(&keep)), 0); /* gone with its config */
	json_decref(keep);
}

static void
test_load_unload_under_traffic(void **state)
{
	char err[AIF_ERR_MAX] = "";
	struct rte_mbuf *out[4096];
	struct rs_snap before;
	unsigned injected = 0, left = 0;
	json_t *keep;

	(void)state;
	if (!rs_load(&H, config_builtin, err, sizeof(err)))
		fail_msg("load: %s", err);
	rs_snap_take(&H, &before);
	for (int round = 0; round < 10; round++) {
		uint64_t runs = 0;
		for (int phase = 0; phase < 2; phase++) {
			/* traffic before, between and after the requests */
			for (int s = 0; s < 4; s++) {
				send_flows(injected, 16);
				injected += 16;
				rs_step(&H, 1000);
			}
			if (phase == 0) {
				expect_ok(lb_load(AIF_LB_EXAMPLES_DIR "/flowlet.o", ", \"name\": \"fl\""));
			} else {
				json_t *p = json_array_get(show_lb(&keep), 0);
				assert_non_null(p);
				runs = (uint64_t)json_integer_value(json_object_get(p, "runs"));
				json_decref(keep);
				expect_ok(ctl_request("{\"cmd\": \"lb_unload\", \"name\": \"fl\"}"));
			}
		}
		assert_true(runs >= 16); /* it chose for the frames between */
		for (unsigned p = 1; p <= 2; p++) {
			unsigned n = rs_sent(&H, (uint16_t)p, out, 4096);
			left += n;
			rs_free_all(out, n);
		}
	}
	rs_run(&H, 1000, 1000);
	for (int s = 0; s < 20; s++)
		rs_step(&H, 1000);
	for (unsigned p = 1; p <= 2; p++) {
		unsigned n = rs_sent(&H, (uint16_t)p, out, 4096);
		left += n;
		rs_free_all(out, n);
	}
	assert_int_equal(left, injected);
	struct aif_port_ctr d = rs_delta(&H, &before, 0);
	for (unsigned r = 0; r < AIF_DROP_MAX; r++)
		if (d.drops[r] != 0)
			fail_msg("%lu drops for reason %u", (unsigned long)d.drops[r], r);
	assert_int_equal(json_array_size(show_lb(&keep)), 0);
	json_decref(keep);
}

static void
test_unsafe_refused_untouched(void **state)
{
	char err[AIF_ERR_MAX] = "";
	json_t *keep;

	(void)state;
	if (!rs_load(&H, config_prog, err, sizeof(err)))
		fail_msg("load: %s", err);
	uint64_t gen = H.sw->tables->generation;
	const struct aif_tables *t = H.sw->tables;
	json_t *r = lb_load(AIF_LB_TESTS_DIR "/bad.o", ", \"program\": \"oob\"");
	assert_false(json_is_true(json_object_get(r, "ok")));
	const char *e = json_string_value(json_object_get(r, "error"));
	if (strstr(e, "section aifabric/lb/oob: instruction 4: reads the context at bytes") == NULL)
		fail_msg("error: %s", e);
	json_decref(r);
	r = lb_load(AIF_LB_TESTS_DIR "/bad.o", ", \"program\": \"write\"");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")),
			       "writes to the context"));
	json_decref(r);
	assert_ptr_equal(H.sw->tables, t);
	assert_int_equal(H.sw->tables->generation, gen);
	json_t *progs = show_lb(&keep);
	assert_int_equal(json_array_size(progs), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(progs, 0), "name")),
			    "ecmp");
	json_decref(keep);
	/* a client's program may not take the config's name */
	r = lb_load(AIF_LB_EXAMPLES_DIR "/reps.o", ", \"name\": \"ecmp\"");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")),
			       "is a program of the config"));
	json_decref(r);
	/* nor unload it */
	r = ctl_request("{\"cmd\": \"lb_unload\", \"name\": \"ecmp\"}");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")),
			       "comes from the config"));
	json_decref(r);
	/* bad request fields */
	r = lb_load(AIF_LB_EXAMPLES_DIR "/reps.o", ", \"name\": 7");
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "\"name\" must be a string of 1..63 bytes");
	json_decref(r);
	r = lb_load(AIF_LB_EXAMPLES_DIR "/reps.o", ", \"name\": \"a b\"");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")), "invalid name"));
	json_decref(r);
	r = lb_load(AIF_LB_EXAMPLES_DIR "/reps.o", ", \"tc\": 8");
	assert_string_equal(json_string_value(json_object_get(r, "error")),
			    "\"tc\" must be a traffic class 0..7");
	json_decref(r);
	r = ctl_request("{\"cmd\": \"lb_load\", \"object\": \"not base64!\"}");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")), "base64"));
	json_decref(r);
	assert_int_equal(H.sw->tables->generation, gen); /* none of them changed anything */
	/* a group: its name decides, and it wins over the class's program */
	r = lb_load(AIF_LB_EXAMPLES_DIR "/reps.o", ", \"group\": \"nope\"");
	assert_non_null(strstr(json_string_value(json_object_get(r, "error")), "no group 'nope'"));
	json_decref(r);
	expect_ok(lb_load(AIF_LB_EXAMPLES_DIR "/reps.o", ", \"group\": \"up\""));
	assert_int_equal(H.sw->tables->groups[0].prog, 2); /* lb_progs[1] + 1 */
	progs = show_lb(&keep);
	assert_int_equal(json_array_size(progs), 2);
	json_t *w = json_object_get(json_array_get(progs, 1), "where");
	assert_string_equal(json_string_value(json_array_get(w, 0)), "group up");
	json_decref(keep);
	expect_ok(ctl_request("{\"cmd\": \"lb_unload\", \"name\": \"reps\"}"));
	assert_int_equal(H.sw->tables->groups[0].prog, 0);
	if (!rs_load(&H, config_builtin, err, sizeof(err)))
		fail_msg("load: %s", err);
}

/*
 * After a rejected apply the registry is collected while the old tables are
 * still published: a program they run must survive, whatever its flags say
 * (a failed replacement had cleared the old one's, and freed it under the
 * workers).
 */
static void
test_gc_keeps_published(void **state)
{
	char err[AIF_ERR_MAX] = "";
	uint8_t f[256];

	(void)state;
	if (!rs_load(&H, config_builtin, err, sizeof(err)))
		fail_msg("load: %s", err);
	expect_ok(lb_load(AIF_LB_EXAMPLES_DIR "/flowlet.o", ", \"name\": \"fl\""));
	struct aif_lb_loaded *e = aif_lb_progs_client(&H.ctl.lb, "fl");
	assert_non_null(e);
	e->client = false; /* as a replacement under way does */
	struct aif_lb_env env = aif_ctl_lb_env(&H.ctl);
	aif_lb_progs_gc(&H.ctl.lb, &env);
	unsigned found = 0;
	for (unsigned k = 0; k < AIF_LB_LOADED_MAX; k++)
		found += H.ctl.lb.e[k] == e;
	assert_int_equal(found, 1); /* still there: the published tables run it */
	/* and it still runs (ASan would see a use after free otherwise) */
	for (unsigned i = 0; i < 64; i++) {
		uint16_t len = frame(f, i);
		rs_inject(&H, 0, f, len);
	}
	rs_run(&H, 1000, 100);
	for (int s = 0; s < 10; s++)
		rs_step(&H, 1000);
	struct rte_mbuf *out[128];
	unsigned n = 0;
	for (unsigned p = 1; p <= 2; p++) {
		unsigned k = rs_sent(&H, (uint16_t)p, out, 128);
		n += k;
		rs_free_all(out, k);
	}
	assert_int_equal(n, 64);
	assert_true(e->st[0][0]->runs >= 64);
	e->client = true;
	expect_ok(ctl_request("{\"cmd\": \"lb_unload\", \"name\": \"fl\"}"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_program_is_ecmp),
		cmocka_unit_test(test_load_unload_under_traffic),
		cmocka_unit_test(test_unsafe_refused_untouched),
		cmocka_unit_test(test_gc_keeps_published),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
