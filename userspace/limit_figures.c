// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The figures behind a refused CREATE. 6.2+ kernels format them into the
 * extack message; 6.1's message only names the limit, and STATUS has
 * the rest.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "limit_figures.h"

struct status {
	uint64_t mem_all, mem_limit, mem_netns;
	uint32_t nfilters, max_filters;
	bool all;
	int replies;
};

static int status_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct status *st = arg;

	if (st->replies++)
		return kb_nl_fail(nl, "more than one status reply");
	if (!tb[KBLOOM_A_MEM_LIMIT] || !tb[KBLOOM_A_MEM_NETNS] ||
	    !tb[KBLOOM_A_NFILTERS] || !tb[KBLOOM_A_MAX_FILTERS])
		return kb_nl_fail(nl, "status reply without its figures");
	/* Only an admin of the initial namespace is told all namespaces'. */
	st->all = tb[KBLOOM_A_MEM_ALL] != NULL;
	if (st->all)
		st->mem_all = nla_get_u64(tb[KBLOOM_A_MEM_ALL]);
	st->mem_limit = nla_get_u64(tb[KBLOOM_A_MEM_LIMIT]);
	st->mem_netns = nla_get_u64(tb[KBLOOM_A_MEM_NETNS]);
	st->nfilters = nla_get_u32(tb[KBLOOM_A_NFILTERS]);
	st->max_filters = nla_get_u32(tb[KBLOOM_A_MAX_FILTERS]);
	return 0;
}

void kb_nl_limit_figures(struct kb_nl *nl)
{
	struct kb_nl_error refused = nl->error;
	bool memory = !strcmp(refused.kmsg, KBLOOM_MSG_MAX_MEMORY);
	struct status st = { 0 };
	struct nl_msg *msg;
	size_t n;
	int r;

	if (!memory && strcmp(refused.kmsg, KBLOOM_MSG_MAX_FILTERS))
		return;
	msg = kb_nl_msg(nl, KBLOOM_CMD_STATUS, 0, 0);
	r = kb_nl_request(nl, msg, status_reply, &st);
	nlmsg_free(msg);
	nl->error = refused;
	if (r || !st.replies)
		return;
	n = strlen(refused.kmsg);
	if (memory && !st.all)
		snprintf(nl->error.kmsg + n, sizeof(nl->error.kmsg) - n,
			 ": max_memory %" PRIu64 " with the other namespaces, %"
			 PRIu64 " B by this namespace", st.mem_limit, st.mem_netns);
	else if (memory)
		snprintf(nl->error.kmsg + n, sizeof(nl->error.kmsg) - n,
			 ": %" PRIu64 " B of max_memory %" PRIu64
			 " in use, %" PRIu64 " B by this namespace",
			 st.mem_all, st.mem_limit, st.mem_netns);
	else
		snprintf(nl->error.kmsg + n, sizeof(nl->error.kmsg) - n,
			 ": %" PRIu32 " of max_filters %" PRIu32,
			 st.nfilters, st.max_filters);
}

void kb_nl_need_figure(struct kb_nl *nl, uint64_t cells)
{
	char *kmsg = nl->error.kmsg;
	size_t n = strlen(kmsg);

	if (strncmp(kmsg, KBLOOM_MSG_MAX_MEMORY, strlen(KBLOOM_MSG_MAX_MEMORY)) &&
	    strcmp(kmsg, KBLOOM_MSG_NOMEM))
		return;
	snprintf(kmsg + n, sizeof(nl->error.kmsg) - n,
		 "; its cells need %" PRIu64 " B", cells);
}
