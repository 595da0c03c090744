// SPDX-License-Identifier: GPL-2.0
/*
 * The events multicast group, in the test VM:
 *
 *   listener --join "events"--> kbloom family
 *   test --CREATE w (windows 3, 200 ms)--> CREATE event
 *        ... a rotation ...            --> ROTATED: window 1 closed, 2 opened
 *   test --DESTROY w-->                    DESTROY event
 *   uid 65534 --join--> refused (CAP_NET_ADMIN)
 *   root of a user namespace (uid 65534 outside), its own netns N:
 *        --join--> allowed by the genl core, but (userns_admin=0) hears
 *        nothing when root makes a filter in N: events follow the read
 *        rule, as list does; root's own listener in N hears the CREATE
 *        on 6.12 (6.1 sends no events in such a netns)
 */
#include <linux/genetlink.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "vm_harness.h"
#include "nlraw.h"
#include "userns.h"

/* The id of the family's "events" group, from the controller. */
static int events_group(struct nlr *s, struct nlr_msg *m)
{
	struct nlattr *groups, *g, *a;
	int rem, rem2, id = -1;
	char name[GENL_NAMSIZ];

	nlr_init(s, m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->version = 1;
	nlr_put_str(m, CTRL_ATTR_FAMILY_NAME, KBLOOM_GENL_NAME);
	if (nlr_send(s, m))
		return -1;
	groups = nlr_reply_attr(s, CTRL_ATTR_MCAST_GROUPS);
	if (!groups)
		return -1;
	rem = groups->nla_len - NLA_HDRLEN;
	for (g = (struct nlattr *)((char *)groups + NLA_HDRLEN); rem >= NLA_HDRLEN;
	     rem -= NLA_ALIGN(g->nla_len),
	     g = (struct nlattr *)((char *)g + NLA_ALIGN(g->nla_len))) {
		int gid = -1;

		name[0] = 0;
		rem2 = g->nla_len - NLA_HDRLEN;
		for (a = (struct nlattr *)((char *)g + NLA_HDRLEN); rem2 >= NLA_HDRLEN;
		     rem2 -= NLA_ALIGN(a->nla_len),
		     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_ID)
				memcpy(&gid, (char *)a + NLA_HDRLEN, 4);
			if (a->nla_type == CTRL_ATTR_MCAST_GRP_NAME)
				snprintf(name, sizeof(name), "%s", (char *)a + NLA_HDRLEN);
		}
		if (!strcmp(name, KBLOOM_MCGRP_EVENTS))
			id = gid;
	}
	return id;
}

/* The next event's command within @ms, its message in @buf; -1: none. */
static int next_event(int fd, uint8_t *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;

	if (poll(&p, 1, ms) != 1 || recv(fd, buf, len, 0) <= 0)
		return -1;
	return ((struct genlmsghdr *)NLMSG_DATA(h))->cmd;
}

static const char *event_name(uint8_t *buf)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);

	return a->nla_type == KBLOOM_A_NAME ? (char *)a + NLA_HDRLEN : "";
}

/* The top-level attribute @type of an event, or NULL. */
static struct nlattr *event_attr(uint8_t *buf, int type)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
	struct nlattr *a;

	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		a = (struct nlattr *)(buf + off);
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

/* IDs of the windows in a ROTATED event's WINDOW_LIST. */
static void rotated_ids(uint8_t *buf, uint64_t *closed, uint64_t *opened,
			uint64_t *closed_end)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
	struct nlattr *a = NULL, *w, *v;
	uint64_t *ids[2] = { closed, opened };
	int n = 0, rem;

	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		a = (struct nlattr *)(buf + off);
		if ((a->nla_type & NLA_TYPE_MASK) == KBLOOM_A_WINDOW_LIST)
			break;
		off += NLA_ALIGN(a->nla_len);
		a = NULL;
	}
	if (!a)
		return;
	rem = a->nla_len - NLA_HDRLEN;
	for (w = (struct nlattr *)((char *)a + NLA_HDRLEN); rem >= NLA_HDRLEN && n < 2;
	     rem -= NLA_ALIGN(w->nla_len),
	     w = (struct nlattr *)((char *)w + NLA_ALIGN(w->nla_len)), n++) {
		for (v = (struct nlattr *)((char *)w + NLA_HDRLEN);
		     (char *)v < (char *)w + w->nla_len;
		     v = (struct nlattr *)((char *)v + NLA_ALIGN(v->nla_len))) {
			if (v->nla_type == KBLOOM_WINDOW_A_ID)
				memcpy(ids[n], (char *)v + NLA_HDRLEN, 8);
			if (n == 0 && v->nla_type == KBLOOM_WINDOW_A_END)
				memcpy(closed_end, (char *)v + NLA_HDRLEN, 8);
		}
	}
}

FIXTURE(ev) {
	struct nlr s;
	struct nlr_msg m;
	int listener;
	int group;
};

FIXTURE_SETUP(ev)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
	self->group = events_group(&self->s, &self->m);
	ASSERT_LT(0, self->group);
	self->listener = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	ASSERT_LE(0, self->listener);
	ASSERT_EQ(0, bind(self->listener, (struct sockaddr *)&sa, sizeof(sa)));
}

FIXTURE_TEARDOWN(ev)
{
	nlr_destroy_all(&self->s, &self->m);
	close(self->s.fd);
	close(self->listener);
}

TEST_F(ev, create_rotate_destroy_announced)
{
	static uint8_t buf[16384];
	uint64_t closed = 0, opened = 0, end = 0;
	struct nlr *s = &self->s;
	int cmd, i;

	ASSERT_EQ(0, setsockopt(self->listener, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				&self->group, sizeof(self->group)));
	create_msg(s, &self->m, "w", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_WINDOWS, 3);
	nlr_put_u64(&self->m, KBLOOM_A_INTERVAL, 200);
	ASSERT_EQ(0, nlr_send(s, &self->m));

	ASSERT_EQ(KBLOOM_CMD_CREATE, next_event(self->listener, buf, sizeof(buf), 2000));
	EXPECT_STREQ("w", event_name(buf));
	ASSERT_EQ(KBLOOM_CMD_ROTATED, next_event(self->listener, buf, sizeof(buf), 5000));
	EXPECT_STREQ("w", event_name(buf));
	rotated_ids(buf, &closed, &opened, &end);
	EXPECT_EQ(1, closed);
	EXPECT_EQ(2, opened);
	EXPECT_NE(0, end);

	nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "w");
	ASSERT_EQ(0, nlr_send(s, &self->m));
	/* Rotations may come first; the DESTROY follows them. */
	for (i = 0; i < 50; i++) {
		cmd = next_event(self->listener, buf, sizeof(buf), 2000);
		if (cmd != KBLOOM_CMD_ROTATED)
			break;
	}
	EXPECT_EQ(KBLOOM_CMD_DESTROY, cmd);
	EXPECT_STREQ("w", event_name(buf));
	/* And nothing after it. */
	EXPECT_EQ(-1, next_event(self->listener, buf, sizeof(buf), 600));
}

TEST_F(ev, saturated_beside_the_window_list)
{
	static uint8_t buf[16384];
	struct nlattr *list, *w, *sat;
	struct nlr *s = &self->s;
	int rem, n = 0;
	uint64_t v = 1;

	ASSERT_EQ(0, setsockopt(self->listener, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				&self->group, sizeof(self->group)));
	create_msg(s, &self->m, "w", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_WINDOWS, 3);
	nlr_put_u64(&self->m, KBLOOM_A_INTERVAL, 100);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(KBLOOM_CMD_CREATE, next_event(self->listener, buf, sizeof(buf), 2000));
	ASSERT_EQ(KBLOOM_CMD_ROTATED, next_event(self->listener, buf, sizeof(buf), 5000));
	/* SATURATED at the top level: 0, nothing was added */
	sat = event_attr(buf, KBLOOM_A_SATURATED);
	ASSERT_NE(NULL, sat);
	ASSERT_EQ(8, sat->nla_len - NLA_HDRLEN);
	memcpy(&v, (char *)sat + NLA_HDRLEN, 8);
	EXPECT_EQ(0, v);
	/* and the list holds exactly the two windows, nothing else */
	list = event_attr(buf, KBLOOM_A_WINDOW_LIST);
	ASSERT_NE(NULL, list);
	rem = list->nla_len - NLA_HDRLEN;
	for (w = (struct nlattr *)((char *)list + NLA_HDRLEN); rem >= NLA_HDRLEN;
	     rem -= NLA_ALIGN(w->nla_len),
	     w = (struct nlattr *)((char *)w + NLA_ALIGN(w->nla_len)), n++)
		EXPECT_NE(KBLOOM_A_SATURATED, w->nla_type & NLA_TYPE_MASK);
	EXPECT_EQ(2, n);
}

TEST_F(ev, no_rotation_announced_after_destroy)
{
	static uint8_t buf[16384];
	struct nlr *s = &self->s;
	int cmd, i, round;

	ASSERT_EQ(0, setsockopt(self->listener, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				&self->group, sizeof(self->group)));
	/* 10 ms windows, destroyed while they rotate: 20 times */
	for (round = 0; round < 20; round++) {
		create_msg(s, &self->m, "fast", KBLOOM_TYPE_BLOOM, 4096, 3);
		nlr_put_u32(&self->m, KBLOOM_A_WINDOWS, 2);
		nlr_put_u64(&self->m, KBLOOM_A_INTERVAL, 10);
		ASSERT_EQ(0, nlr_send(s, &self->m));
		usleep(25000 + round * 1000);
		nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
		nlr_put_str(&self->m, KBLOOM_A_NAME, "fast");
		ASSERT_EQ(0, nlr_send(s, &self->m));
		for (i = 0; i < 1000; i++) {
			cmd = next_event(self->listener, buf, sizeof(buf), 2000);
			if (cmd == KBLOOM_CMD_DESTROY)
				break;
			ASSERT_NE(-1, cmd);
		}
		ASSERT_EQ(KBLOOM_CMD_DESTROY, cmd);
		/* nothing after the destroy */
		ASSERT_EQ(-1, next_event(self->listener, buf, sizeof(buf), 50)) {
			TH_LOG("round %d: event %d after the destroy", round,
			       ((struct genlmsghdr *)NLMSG_DATA((struct nlmsghdr *)buf))->cmd);
		}
	}
}

TEST_F(ev, unprivileged_listener_refused)
{
	pid_t pid = fork();
	int status;

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (setuid(65534))
			_exit(3);
		_exit(setsockopt(self->listener, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
				 &self->group, sizeof(self->group)) == -1 &&
		      errno == EPERM ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* A socket of the current netns joined to events group @group; or -1. */
static int join_events(int group)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
		       sizeof(group)))
		return -1;
	return fd;
}

/* Whether the running kernel is @maj.@min or newer. */
static bool kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;

	return !uname(&u) && sscanf(u.release, "%d.%d", &a, &b) == 2 &&
	       (a > maj || (a == maj && b >= min));
}

TEST_F(ev, a_container_root_hears_nothing_it_may_not_read)
{
	int ready[2], go[2], st, fd, root_fd, netfd, self_net, heard = -1;
	uint8_t buf[8192];
	char path[64], c;
	struct nlr in;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* unshare -Urn as uid 65534, then join and listen */
		if (userns_as(65534, true, 0))
			_exit(2);
		fd = join_events(self->group);
		c = fd < 0 ? 'n' : 'y';
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		/* whatever came meanwhile, or within a second */
		_exit(fd >= 0 && next_event(fd, buf, sizeof(buf), 1000) != -1 ?
		      1 : 0);
	}
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ('y', c);	/* the core lets it join */
	/* root makes a filter in the container's netns, listening too */
	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	netfd = open(path, O_RDONLY);
	self_net = open("/proc/self/ns/net", O_RDONLY);
	ASSERT_LE(0, netfd);
	ASSERT_LE(0, self_net);
	ASSERT_EQ(0, setns(netfd, CLONE_NEWNET));
	root_fd = join_events(self->group);
	ASSERT_EQ(0, nlr_open(&in));
	ASSERT_EQ(0, create(&in, &self->m, "hidden", 4096, 3));
	if (root_fd >= 0)
		heard = next_event(root_fd, buf, sizeof(buf), 2000);
	ASSERT_EQ(0, setns(self_net, CLONE_NEWNET));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("the container's root heard an event (status %d)", st);
	if (kernel_at_least(6, 12)) {
		EXPECT_EQ(KBLOOM_CMD_CREATE, heard);
	} else {
		EXPECT_EQ(-1, heard);
	}
	close(in.fd);
	close(root_fd);
	close(netfd);
	close(self_net);
}

TEST_HARNESS_MAIN
