// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* The table of output formats. */
#include "config.h"

#include <string.h>

#include "rbflame/output.h"

static const struct output_ops *const outputs[] = {
	&output_collapsed,
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
	return "collapsed";
}
