/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tests: a config that must parse (control/config.h), or the test fails
 * with the reader's message.  Include after <cmocka.h>.
 */
#ifndef AIF_TEST_CONFIG_OK_H
#define AIF_TEST_CONFIG_OK_H

#include <string.h>

#include "config.h"

static inline struct aif_config *
parse_ok(const char *text)
{
	char err[AIF_ERR_MAX] = "";
	struct aif_config *cfg = NULL;

	if (aif_config_parse(text, strlen(text), &cfg, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	return cfg;
}

#endif /* AIF_TEST_CONFIG_OK_H */
