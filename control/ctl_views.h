/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aifabricctl's views: a reply's result as text tables, each view a small
 * column-spec array (struct col) so adding a view or a column is one line;
 * or as JSON (--json).  Text from the server reaches a terminal without its
 * control characters.
 */
#ifndef AIF_CTL_VIEWS_H
#define AIF_CTL_VIEWS_H

#include <stddef.h>

#include <jansson.h>

/* The result of command cmd in its view (a result for several switches:
 * each one's under its name). */
void aif_ctl_view_print(const char *cmd, const json_t *result);
/* The result as JSON. */
void aif_ctl_view_json(const json_t *result);
/* malloc and strdup that end the client (status 1) when out of memory. */
void *aif_ctl_xmalloc(size_t n);
char *aif_ctl_xstrdup(const char *s);
/* s with its control characters replaced (in place); s. */
char *aif_ctl_printable(char *s);

#endif /* AIF_CTL_VIEWS_H */
