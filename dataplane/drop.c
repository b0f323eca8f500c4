/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Drop reason names, generated from AIF_FOREACH_DROP in drop.h so the
 * enum and the names cannot drift apart.
 */
#include "drop.h"

static const char *const drop_names[AIF_DROP_MAX] = {
	[AIF_DROP_NONE] = "none",
#define AIF_DROP_NAME(id, name) [AIF_DROP_##id] = name,
	AIF_FOREACH_DROP(AIF_DROP_NAME)
#undef AIF_DROP_NAME
};

const char *
aif_drop_name(enum aif_drop_reason r)
{
	if ((unsigned)r >= AIF_DROP_MAX)
		return "unknown";
	return drop_names[r];
}
