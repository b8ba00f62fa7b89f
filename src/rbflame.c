// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/* main(): parse the command line and run a profile. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rbflame/diff.h"
#include "rbflame/dump.h"
#include "rbflame/error.h"
#include "rbflame/options.h"
#include "rbflame/output.h"
#include "rbflame/report.h"
#include "rbflame/run.h"
#include "rbflame/top.h"

int
main(int argc, char **argv)
{
	struct options o;
	char err[256];

	if (getenv("RBFLAME_DEBUG"))
		debug_enabled = true;
	if (argc > 1 && !strcmp(argv[1], "dump"))
		return dump_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "top"))
		return top_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	switch (options_parse(argc, argv, &output_formats, &o, err,
			      sizeof(err))) {
	case OPTIONS_HELP:
		run_help(stdout);
		return 0;
	case OPTIONS_VERSION:
		printf("rbflame %s\n", PACKAGE_VERSION);
		return 0;
	case OPTIONS_ERROR:
		error_msg_and_help("%s", err);
	case OPTIONS_OK:
		break;
	}
	if (o.debug)
		debug_enabled = true;
	quiet_enabled = o.quiet;
	return run_profile(&o);
}
