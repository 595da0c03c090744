/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The per-type keywords of create and calc (the parameter table,
 * params.h): their checks, the parameters they set, and the attributes
 * that send them.
 */
#ifndef BLOOMCTL_TYPEOPTS_H
#define BLOOMCTL_TYPEOPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keyparse.h"
#include "params.h"
#include "sizing.h"

/*
 * The attributes of the parameters @p's type takes, for CREATE (create,
 * restore); a multi filter's p->dims names from @dim_names.
 */
struct nl_msg;
void kb_put_params(struct nl_msg *msg, const struct kb_shape *p,
		   const char (*dim_names)[KBLOOM_DIM_NAME_MAX]);

/*
 * create's and calc's "KEYWORD VALUE" arguments from argv[@first..), in
 * any order, each at most once (kwargs.c): the command's own @names (@n
 * of them) into @val[], the type parameters' keywords (params.h) into
 * @tval[]. Prints the usage error naming @cmd; 0 or -1.
 */
int typeopts_args(const char *cmd, int argc, char **argv, int first,
		  const char *const *names, int n, const char **val,
		  const char *tval[TO_NUM]);

/*
 * Checks the keywords given (@val[i] non-NULL) against @p->type and
 * stores them in @p (and the names in @dims). @dims_count: calc also
 * takes "dims N", a number of dimensions. Prints the error, naming the
 * command @cmd, and returns -1 when a value is bad or the type does not
 * take the keyword.
 */
int typeopts_apply(const char *cmd, const char *const val[TO_NUM],
		   struct kb_shape *p, struct kb_dims *dims, bool dims_count);

/*
 * 'windows W' and 'interval DURATION' of create and calc (either may be
 * NULL; they go together): *@windows 0 and *@interval_ms 0 when neither is
 * given. Prints the error; 0 or -1.
 */
int paging_parse(const char *cmd, const char *windows_s,
		 const char *interval_s, uint32_t *windows,
		 uint64_t *interval_ms);

#endif
