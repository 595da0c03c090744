// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * monitor [NAME]: joins the family's multicast group KBLOOM_MCGRP_EVENTS
 * (uapi/kbloom.h, "Events") in the network namespace and prints each
 * create, destroy and window rotation as it arrives, a line each (JSON
 * with -j), flushed at once; until SIGINT or SIGTERM.
 *
 * The socket is read directly (recvmsg), not through libnl's callbacks:
 * libnl retries a read interrupted by a signal, and the wait must end on
 * SIGINT. The signals stay blocked except inside ppoll(), so one that
 * arrives between two waits is not missed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "commands.h"
#include "describe.h"
#include "json.h"
#include "pktfmt.h"
#include "print.h"
#include "util.h"

/* Events are a few hundred bytes; the kernel sends at most a page. */
#define MONITOR_BUF	(64 * 1024)

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

struct event {
	uint8_t cmd;		/* KBLOOM_CMD_CREATE, _DESTROY, _ROTATED, _DETACH */
	char name[KBLOOM_NAME_MAX];
	bool have_type;
	uint32_t type;
	uint32_t hook;		/* detach: the attachment's hook and device */
	char ifname[KBLOOM_IFNAME_MAX];
	uint64_t saturated;
	uint32_t nwin;		/* rotated: 2, the closed then the opened */
	struct kb_window_desc win[KBLOOM_WINDOWS_MAX];
};

static const char *cmd_name(uint8_t cmd)
{
	switch (cmd) {
	case KBLOOM_CMD_CREATE:
		return "create";
	case KBLOOM_CMD_DESTROY:
		return "destroy";
	case KBLOOM_CMD_DETACH:
		return "detach";
	default:
		return "rotate";
	}
}

/*
 * Parses one message of the family into @e. 1: an event to print; 0: not
 * an event this version knows (ignored); -1: malformed (printed).
 */
static int parse_event(struct kb_nl *nl, struct nlmsghdr *nlh, struct event *e)
{
	static struct nla_policy pol[KBLOOM_A_MAX + 1] = {
		[KBLOOM_A_NAME] = { .type = NLA_STRING, .maxlen = KBLOOM_NAME_MAX },
		[KBLOOM_A_TYPE] = { .type = NLA_U32 },
		[KBLOOM_A_WINDOW_LIST] = { .type = NLA_NESTED },
		[KBLOOM_A_SATURATED] = { .type = NLA_U64 },
		[KBLOOM_A_HOOK] = { .type = NLA_U32 },
		[KBLOOM_A_IFNAME] = { .type = NLA_STRING,
				      .maxlen = KBLOOM_IFNAME_MAX },
	};
	struct nlattr *tb[KBLOOM_A_MAX + 1];
	struct genlmsghdr *gh;
	int r;

	if (!genlmsg_valid_hdr(nlh, 0)) {
		errorf("monitor: malformed event from the kernel: short message");
		return -1;
	}
	gh = nlmsg_data(nlh);
	if (gh->cmd != KBLOOM_CMD_CREATE && gh->cmd != KBLOOM_CMD_DESTROY &&
	    gh->cmd != KBLOOM_CMD_ROTATED && gh->cmd != KBLOOM_CMD_DETACH)
		return 0;
	memset(e, 0, offsetof(struct event, win));
	e->cmd = gh->cmd;
	r = genlmsg_parse(nlh, 0, tb, KBLOOM_A_MAX, pol);
	if (r < 0) {
		errorf("monitor: malformed %s event from the kernel: bad attribute (%s)",
		       cmd_name(e->cmd), nl_geterror(r));
		return -1;
	}
	if (!tb[KBLOOM_A_NAME] || nla_len(tb[KBLOOM_A_NAME]) < 2) {
		errorf("monitor: malformed %s event from the kernel: no NAME",
		       cmd_name(e->cmd));
		return -1;
	}
	nla_strlcpy(e->name, tb[KBLOOM_A_NAME], sizeof(e->name));
	if (tb[KBLOOM_A_TYPE]) {
		e->have_type = true;
		e->type = nla_get_u32(tb[KBLOOM_A_TYPE]);
	}
	if (e->cmd == KBLOOM_CMD_CREATE && !e->have_type) {
		errorf("monitor: malformed create event from the kernel: filter '%s' without TYPE",
		       quote(e->name));
		return -1;
	}
	if (e->cmd == KBLOOM_CMD_DETACH) {
		if (!tb[KBLOOM_A_HOOK] || !tb[KBLOOM_A_IFNAME]) {
			errorf("monitor: malformed detach event from the kernel: filter '%s' without %s",
			       quote(e->name),
			       tb[KBLOOM_A_HOOK] ? "IFNAME" : "HOOK");
			return -1;
		}
		e->hook = nla_get_u32(tb[KBLOOM_A_HOOK]);
		nla_strlcpy(e->ifname, tb[KBLOOM_A_IFNAME], sizeof(e->ifname));
		return 1;
	}
	if (e->cmd != KBLOOM_CMD_ROTATED)
		return 1;
	if (!tb[KBLOOM_A_WINDOW_LIST]) {
		errorf("monitor: malformed rotate event from the kernel: filter '%s' without WINDOW_LIST",
		       quote(e->name));
		return -1;
	}
	if (tb[KBLOOM_A_SATURATED])
		e->saturated = nla_get_u64(tb[KBLOOM_A_SATURATED]);
	if (kb_windows_parse(nl, tb[KBLOOM_A_WINDOW_LIST], e->win, &e->nwin)) {
		errorf("monitor: rotate event of filter '%s': %s",
		       quote(e->name), nl->error.why);
		return -1;
	}
	if (e->nwin != 2) {
		errorf("monitor: malformed rotate event from the kernel: filter '%s' with %" PRIu32 " windows, not 2",
		       quote(e->name), e->nwin);
		return -1;
	}
	return 1;
}

/* Each event a line; JSON: an object a line. */
static void print_event(const struct event *e)
{
	static const struct kb_window_fmt closed = {
		.id = " closed window %llu", .span = " (%s",
		.packets = ", %llu packets)",
	}, opened = { .id = ", opened window %llu" };
	struct kb_out o;
	struct json j;

	kb_out_stdout(&o, &j, opts.json);
	kb_print_obj_begin(&o, NULL);
	kb_print_str(&o, KB_PRINT_ANY, "event", "%s", cmd_name(e->cmd));
	kb_print_str(&o, KB_PRINT_ANY, "filter", " %s", e->name);
	switch (e->cmd) {
	case KBLOOM_CMD_DETACH:
		kb_print_str(&o, KB_PRINT_ANY, "hook", " hook %s",
			     kb_hook_str(e->hook));
		kb_print_str(&o, KB_PRINT_ANY, "dev", " dev %s", e->ifname);
		kb_print_str(&o, KB_PRINT_JSON, "reason", NULL, "device gone");
		kb_print_text(&o, ": the device is gone");
		break;
	case KBLOOM_CMD_ROTATED:
		kb_print_window(&o, "closed", &closed, &e->win[0]);
		kb_print_window(&o, "opened", &opened, &e->win[1]);
		kb_print_u64(&o, e->saturated ? KB_PRINT_ANY : KB_PRINT_JSON,
			     "saturated", ", saturated %llu", e->saturated);
		break;
	default:
		/* a destroy's type: JSON only */
		if (e->have_type)
			kb_print_str(&o, e->cmd == KBLOOM_CMD_CREATE ?
				     KB_PRINT_ANY : KB_PRINT_JSON, "type",
				     " type %s", kb_type_str(e->type));
	}
	kb_print_text(&o, "\n");
	kb_print_obj_end(&o);
}

/*
 * Every datagram queued on @fd, without waiting. 0, or -1 after printing
 * an error.
 */
static int drain(struct kb_nl *nl, int fd, const char *only, void *buf,
		 struct event *e)
{
	for (;;) {
		struct sockaddr_nl from;
		struct iovec iov = { .iov_base = buf, .iov_len = MONITOR_BUF };
		struct msghdr mh = {
			.msg_name = &from, .msg_namelen = sizeof(from),
			.msg_iov = &iov, .msg_iovlen = 1,
		};
		struct nlmsghdr *nlh;
		ssize_t n;
		int len, r;

		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR) {
				if (stop_signal)
					return 0;
				continue;
			}
			if (errno == ENOBUFS) {
				/* The socket overran: go on with what comes next. */
				errorf("monitor: events lost: the receive buffer was full");
				continue;
			}
			errorf("monitor: unable to read events: %s",
			       strerror(errno));
			return -1;
		}
		if (mh.msg_flags & MSG_TRUNC) {
			errorf("monitor: an event longer than %d bytes was cut short",
			       MONITOR_BUF);
			return -1;
		}
		if (from.nl_pid != 0)
			continue;	/* not from the kernel */
		len = n;
		for (nlh = buf; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type != nl->family)
				continue;
			r = parse_event(nl, nlh, e);
			if (r < 0)
				return -1;
			if (!r || (only && strcmp(only, e->name)))
				continue;
			print_event(e);
			if (fflush(stdout) || ferror(stdout)) {
				errorf("monitor: unable to write the output: %s",
				       strerror(errno));
				return -1;
			}
		}
	}
}

int cmd_monitor(int argc, char **argv)
{
	struct sigaction sa, old_int, old_term;
	sigset_t block, old_mask, wait_mask;
	const char *only = NULL;
	struct event *e = NULL;
	void *buf = NULL;
	struct kb_nl nl;
	int grp, fd, r, ret = EXIT_ERROR;

	if (argc > 2) {
		unexpected_argument(argv[0], argv[2]);
		return EXIT_ERROR;
	}
	if (argc == 2) {
		only = argv[1];
		if (!check_name(only))
			return EXIT_ERROR;
	}
	e = malloc(sizeof(*e));
	buf = malloc(MONITOR_BUF);
	if (!e || !buf) {
		errorf("out of memory");
		free(e);
		free(buf);
		return EXIT_ERROR;
	}
	if (open_netlink(&nl)) {
		free(e);
		free(buf);
		return EXIT_ERROR;
	}
	grp = genl_ctrl_resolve_grp(nl.sk, KBLOOM_GENL_NAME, KBLOOM_MCGRP_EVENTS);
	if (grp < 0) {
		errorf("monitor: unable to find the multicast group '%s' of '%s': %s",
		       KBLOOM_MCGRP_EVENTS, KBLOOM_GENL_NAME,
		       grp == -NLE_OBJ_NOTFOUND ?
		       "the loaded module has no such group" : nl_geterror(grp));
		goto out_close;
	}
	r = nl_socket_add_membership(nl.sk, grp);
	if (r < 0) {
		errorf("monitor: unable to join the multicast group '%s' of '%s': %s",
		       KBLOOM_MCGRP_EVENTS, KBLOOM_GENL_NAME, nl_geterror(r));
		goto out_close;
	}
	fd = nl_socket_get_fd(nl.sk);

	stop_signal = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	wait_mask = old_mask;
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	while (!stop_signal) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (ppoll(&p, 1, NULL, &wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			errorf("monitor: unable to wait for events: %s",
			       strerror(errno));
			goto out_signals;
		}
		if (drain(&nl, fd, only, buf, e))
			goto out_signals;
	}
	ret = EXIT_OK;
out_signals:
	/* Unblocked first: one still pending lands in on_stop(). */
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out_close:
	kb_nl_close(&nl);
	free(e);
	free(buf);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_monitor = {
	.name = "monitor",
	.fn = cmd_monitor,
	.summary = "print filter events as they happen",
	.usage = "[NAME]\n",
	.help =
		"Listens to the module's events in the network namespace (the\n"
		"init one, or -n's; CAP_NET_ADMIN there is needed) and prints one\n"
		"line per event as it comes, of every filter or only of filter NAME\n"
		"(which need not exist yet), until SIGINT or SIGTERM (exit status 0):\n"
		"  create NAME type TYPE      a filter was created (or restored)\n"
		"  destroy NAME               a filter was destroyed (destroy NAME or\n"
		"                             destroy all)\n"
		"  rotate NAME closed window ID (START to END, N packets), opened window ID2\n"
		"                             a time-paged filter rotated: window ID\n"
		"                             closed holding N keys, ID2 opened (times\n"
		"                             local, with milliseconds)\n"
		"  detach NAME hook HOOK dev IFACE: the device is gone\n"
		"                             an attachment at hook ingress or egress\n"
		"                             went with its device (deleted, or moved\n"
		"                             to another namespace); NAME stays\n"
		"A rotate line ends in \", saturated S\" when S > 0: the counters at\n"
		"their maximum in the closed window (counting, dleft, stable). Each\n"
		"line is flushed as it is printed, so a pipe or a file sees it at\n"
		"once. With -j, one JSON object per line:\n"
		"  {\"event\":\"create\",\"filter\":NAME,\"type\":TYPE}\n"
		"  {\"event\":\"destroy\",\"filter\":NAME,\"type\":TYPE}\n"
		"  {\"event\":\"rotate\",\"filter\":NAME,\"closed\":WINDOW,\"opened\":WINDOW,\n"
		"   \"saturated\":S}\n"
		"  {\"event\":\"detach\",\"filter\":NAME,\"hook\":HOOK,\"dev\":IFACE,\n"
		"   \"reason\":\"device gone\"}\n"
		"where WINDOW is {\"id\",\"start\",\"start_ns\",\"end\",\"end_ns\",\"packets\",\n"
		"\"fill\"} as in 'show -j' (end null and end_ns 0 for the opened one).\n"
		"Events the kernel could not queue (a full receive buffer) are lost:\n"
		"a line on stderr says so and monitoring goes on. Exit status 2 on an\n"
		"error (module not loaded, no permission, unknown namespace).\n",
};
