/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests: one control request through the socket's line handler (what a
 * client's line meets), its reply parsed; the test fails when there is no
 * reply or it is not JSON.  Include after <cmocka.h>.
 *
 *	json_t *r = ctl_reply(&ctl, "{\"cmd\": \"show_routes\", \"switch\": \"a\"}");
 *	...
 *	json_decref(r);
 */
#ifndef AIF_TEST_CTL_REPLY_H
#define AIF_TEST_CTL_REPLY_H

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "ctl_server.h"

static inline json_t *
ctl_reply(struct aif_ctl *c, const char *line)
{
	char *reply = aif_ctl_handle_line(line, strlen(line), aif_ctl_dispatch, c);
	json_t *j;

	assert_non_null(reply);
	j = json_loads(reply, 0, NULL);
	if (j == NULL)
		fail_msg("reply is not JSON: %s", reply);
	free(reply);
	return j;
}

#endif /* AIF_TEST_CTL_REPLY_H */
