/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * "KEYWORD VALUE" arguments in any order, each at most once, as attach,
 * query and digest take them; a flag keyword takes no value (digest ...
 * kernel).
 */
#ifndef BLOOMCTL_KWARGS_H
#define BLOOMCTL_KWARGS_H

#include <stdbool.h>

struct kwarg {
	const char *name;
	bool flag;		/* takes no value */
	const char *val;	/* set: the value, or the keyword for a flag */
};

/*
 * Fills @kw[i].val from argv[@first..@argc). Prints a usage error naming
 * command @cmd (unknown keyword, given twice, missing value) and returns
 * -1.
 */
int kwargs_parse(const char *cmd, int argc, char **argv, int first,
		 struct kwarg *kw, int n);

#endif
