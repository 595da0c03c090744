// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bloomctl -V / --version: the tool's version, and the loaded module's as
 * its STATUS reply gives it (KBLOOM_A_VERSION). Both come from
 * PACKAGE_VERSION in dkms.conf (userspace/Makefile, kmod/Kbuild). The
 * module is not loaded for this: a version check should not change what
 * is loaded, so /sys/module/kbloom is looked at before the netlink socket
 * (whose family lookup would load it) is opened.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "util.h"

#ifndef KBLOOM_VERSION
#error "KBLOOM_VERSION is set by userspace/Makefile from dkms.conf"
#endif

const char kb_tool_version[] = KBLOOM_VERSION;

struct module_version {
	char v[KBLOOM_VERSION_MAX];
	bool have;
	int replies;
};

static int status_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct module_version *mv = arg;

	if (mv->replies++)
		return kb_nl_fail(nl, "more than one status reply");
	if (tb[KBLOOM_A_VERSION]) {
		nla_strlcpy(mv->v, tb[KBLOOM_A_VERSION], sizeof(mv->v));
		mv->have = true;
	}
	return 0;
}

int print_version(void)
{
	struct module_version mv = { .have = false };
	struct nl_msg *msg;
	struct kb_nl nl;
	int r;

	printf("bloomctl %s\n", kb_tool_version);
	if (access("/sys/module/kbloom", F_OK)) {
		if (errno != ENOENT) {
			errorf("unable to tell whether the kbloom module is loaded (/sys/module/kbloom): %s",
			       strerror(errno));
			return EXIT_ERROR;
		}
		printf("kbloom module: not loaded\n");
		return EXIT_OK;
	}
	fflush(stdout);
	if (open_netlink(&nl))
		return EXIT_ERROR;
	msg = kb_nl_msg(&nl, KBLOOM_CMD_STATUS, 0, 0);
	r = kb_nl_request(&nl, msg, status_reply, &mv);
	nlmsg_free(msg);
	if (r || !mv.replies) {
		kb_nl_perror(&nl, "unable to ask the kbloom module its version");
		kb_nl_close(&nl);
		return EXIT_ERROR;
	}
	kb_nl_close(&nl);
	if (!mv.have) {
		printf("kbloom module: version not reported\n");
		warnf("the loaded kbloom module is older than bloomctl %s (its status reply has no version): load the module built with it",
		      kb_tool_version);
		return EXIT_OK;
	}
	printf("kbloom module %s\n", quote(mv.v));
	if (strcmp(mv.v, kb_tool_version))
		warnf("bloomctl %s and the loaded kbloom module %s differ: load the module built with this bloomctl",
		      kb_tool_version, quote(mv.v));
	return EXIT_OK;
}
