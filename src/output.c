// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The table of output formats. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rbflame/output.h"

static const struct output_ops *const outputs[] = {
	&output_collapsed,
	&output_svg,
	&output_summary,
	&output_lines,
	&output_dot,
};

const struct output_ops *
output_find(const char *name)
{
	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++)
		if (!strcmp(outputs[i]->name, name))
			return outputs[i];
	return NULL;
}

const char *
output_names(void)
{
	static char names[256];

	/* Built from the table, so a new writer is listed without an edit. */
	if (!names[0])
		for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]);
		     i++)
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", outputs[i]->name);
	return names;
}

int
output_write(const struct output_ops *w, const struct profile *p,
	     const struct output_opts *o, FILE *f)
{
	static const struct output_opts none;

	if (w->write_opts)
		return w->write_opts(p, o ? o : &none, f);
	return w->write(p, f);
}
