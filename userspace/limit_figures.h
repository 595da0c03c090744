/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef KBLOOM_LIMIT_FIGURES_H
#define KBLOOM_LIMIT_FIGURES_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"

/*
 * STATUS's figures (uapi/kbloom.h, KBLOOM_CMD_STATUS): @all when the
 * caller was told MEM_ALL (an admin of the initial namespace), @owned
 * when the namespace's owner's figures came too.
 */
struct kb_status {
	uint64_t mem_netns, mem_mapped_gone, mem_all, mem_limit, mem_user, mem_user_limit;
	uint32_t nfilters, max_filters, user_filters, user_max_filters;
	bool all, owned;
	char version[KBLOOM_VERSION_MAX];
	int replies;
};

/* The reply callback of a STATUS request, filling the kb_status @arg. */
int kb_status_reply(struct kb_nl *nl, struct nlattr **tb, void *arg);

/*
 * After a CREATE refused at a module limit: when the kernel's message
 * names the limit without figures (6.1 has only static extack messages),
 * appends them from STATUS to nl->error.kmsg. Leaves the error as it was
 * when STATUS cannot be had.
 */
void kb_nl_limit_figures(struct kb_nl *nl);

/*
 * After a CREATE refused for memory (max_memory, a user namespace
 * owner's share, or the memory cgroup):
 * when the kernel's message does not say what the filter needs (6.1),
 * appends "; its cells need N B" (@cells: kb_params_ring_bytes(); the
 * kernel charges a little more for its bookkeeping).
 */
void kb_nl_need_figure(struct kb_nl *nl, uint64_t cells);

#endif
