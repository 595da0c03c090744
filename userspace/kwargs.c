// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <string.h>

#include "commands.h"
#include "kwargs.h"

int kwargs_parse(const char *cmd, int argc, char **argv, int first,
		 struct kwarg *kw, int n)
{
	int i, k;

	for (i = first; i < argc; i++) {
		for (k = 0; k < n; k++)
			if (!strcmp(argv[i], kw[k].name))
				break;
		if (k == n) {
			unexpected_argument(cmd, argv[i]);
			return -1;
		}
		if (kw[k].val) {
			usage_errorf(cmd, "'%s' given twice", kw[k].name);
			return -1;
		}
		if (kw[k].flag) {
			kw[k].val = argv[i];
			continue;
		}
		if (i + 1 >= argc) {
			usage_errorf(cmd, "'%s' needs a value", kw[k].name);
			return -1;
		}
		kw[k].val = argv[++i];
	}
	return 0;
}
