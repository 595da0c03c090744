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

int kb_status_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct kb_status *st = arg;

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
	/* Older modules kept no charge for mappings of destroyed filters. */
	if (tb[KBLOOM_A_MEM_MAPPED_GONE])
		st->mem_mapped_gone = nla_get_u64(tb[KBLOOM_A_MEM_MAPPED_GONE]);
	st->nfilters = nla_get_u32(tb[KBLOOM_A_NFILTERS]);
	st->max_filters = nla_get_u32(tb[KBLOOM_A_MAX_FILTERS]);
	/* A netns of a user namespace: its owner's figures too. */
	st->owned = tb[KBLOOM_A_MEM_USER] && tb[KBLOOM_A_MEM_USER_LIMIT] &&
		    tb[KBLOOM_A_USER_FILTERS] && tb[KBLOOM_A_USER_MAX_FILTERS];
	if (st->owned) {
		st->mem_user = nla_get_u64(tb[KBLOOM_A_MEM_USER]);
		st->mem_user_limit = nla_get_u64(tb[KBLOOM_A_MEM_USER_LIMIT]);
		st->user_filters = nla_get_u32(tb[KBLOOM_A_USER_FILTERS]);
		st->user_max_filters = nla_get_u32(tb[KBLOOM_A_USER_MAX_FILTERS]);
	}
	if (tb[KBLOOM_A_VERSION])
		nla_strlcpy(st->version, tb[KBLOOM_A_VERSION],
			    sizeof(st->version));
	return 0;
}

/* The limits whose 6.1 message bloomctl completes with STATUS's figures. */
enum limit { L_MEMORY, L_FILTERS, L_USERNS_MEMORY, L_USER_MEMORY, L_USER_FILTERS, L_NONE };

static enum limit limit_of(const char *kmsg)
{
	static const char *const msgs[] = {
		[L_MEMORY] = KBLOOM_MSG_MAX_MEMORY,
		[L_FILTERS] = KBLOOM_MSG_MAX_FILTERS,
		[L_USERNS_MEMORY] = KBLOOM_MSG_USERNS_MEMORY,
		[L_USER_MEMORY] = KBLOOM_MSG_USER_MEMORY,
		[L_USER_FILTERS] = KBLOOM_MSG_USER_FILTERS,
	};
	int i;

	for (i = 0; i < L_NONE; i++)
		if (!strcmp(kmsg, msgs[i]))
			return i;
	return L_NONE;
}

void kb_nl_limit_figures(struct kb_nl *nl)
{
	struct kb_nl_error refused = nl->error;
	enum limit which = limit_of(refused.kmsg);
	struct kb_status st = { 0 };
	struct nl_msg *msg;
	char *tail;
	size_t n, room;
	int r;

	if (which == L_NONE)
		return;
	msg = kb_nl_msg(nl, KBLOOM_CMD_STATUS, 0, 0);
	r = kb_nl_request(nl, msg, kb_status_reply, &st);
	nlmsg_free(msg);
	nl->error = refused;
	if (r || !st.replies)
		return;
	n = strlen(refused.kmsg);
	tail = nl->error.kmsg + n;
	room = sizeof(nl->error.kmsg) - n;
	switch (which) {
	case L_MEMORY:
		if (st.all)
			snprintf(tail, room, ": %" PRIu64 " B of max_memory %" PRIu64
				 " in use, %" PRIu64 " B by this namespace",
				 st.mem_all, st.mem_limit, st.mem_netns);
		else
			snprintf(tail, room, ": max_memory %" PRIu64
				 " with the other namespaces, %" PRIu64
				 " B by this namespace", st.mem_limit, st.mem_netns);
		break;
	case L_FILTERS:
		snprintf(tail, room, ": %" PRIu32 " of max_filters %" PRIu32,
			 st.nfilters, st.max_filters);
		break;
	case L_USERNS_MEMORY:
		snprintf(tail, room, " (a share of max_memory %" PRIu64
			 "), %" PRIu64 " B by this namespace",
			 st.mem_limit, st.mem_netns);
		break;
	case L_USER_MEMORY:
		if (st.owned)
			snprintf(tail, room, ": %" PRIu64 " of %" PRIu64
				 " B in use, %" PRIu64 " B by this namespace",
				 st.mem_user, st.mem_user_limit, st.mem_netns);
		break;
	case L_USER_FILTERS:
		if (st.owned)
			snprintf(tail, room, ": %" PRIu32 " of %" PRIu32,
				 st.user_filters, st.user_max_filters);
		break;
	case L_NONE:
		break;
	}
}

void kb_nl_need_figure(struct kb_nl *nl, uint64_t cells)
{
	static const char *const memory[] = {
		KBLOOM_MSG_MAX_MEMORY, KBLOOM_MSG_USERNS_MEMORY,
		KBLOOM_MSG_USER_MEMORY,
	};
	char *kmsg = nl->error.kmsg;
	size_t n = strlen(kmsg), i;

	for (i = 0; i < sizeof(memory) / sizeof(memory[0]); i++)
		if (!strncmp(kmsg, memory[i], strlen(memory[i])))
			break;
	if (i == sizeof(memory) / sizeof(memory[0]) && strcmp(kmsg, KBLOOM_MSG_NOMEM))
		return;
	snprintf(kmsg + n, sizeof(nl->error.kmsg) - n,
		 "; its cells need %" PRIu64 " B", cells);
}
