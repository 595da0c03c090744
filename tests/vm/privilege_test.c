// SPDX-License-Identifier: GPL-2.0
/*
 * Privilege and isolation, in the test VM:
 *
 *   uid 65534 (no CAP_NET_ADMIN) --every command--> EPERM, nothing changes
 *   root of a new user namespace:
 *        its own new netns   --CREATE/ADD/ATTACH--> allowed there
 *        a socket of the init netns --any command--> EPERM
 *   GET never carries the hash key; EXPORT (admin only) does.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "nlraw.h"

/* Runs @fn(@s) in a child; returns its exit status. */
static int in_child(int (*fn)(struct nlr *s), struct nlr *s)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(s));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Every command but the event-only ones, with a plausible body. */
static int every_command_refused(struct nlr *s)
{
	static struct nlr_msg m;
	uint8_t cmd;
	int err;

	for (cmd = 1; cmd <= KBLOOM_CMD_MAX; cmd++) {
		if (cmd == KBLOOM_CMD_ROTATED)
			continue;
		nlr_init(s, &m, s->family, cmd,
			 cmd == KBLOOM_CMD_EXPORT ? NLM_F_DUMP : 0);
		nlr_put_str(&m, KBLOOM_A_NAME, "priv");
		err = nlr_send(s, &m);
		if (err != -EPERM) {
			fprintf(stderr, "command %u: %d, not EPERM\n", cmd, err);
			return 1;
		}
	}
	return 0;
}

static int drop_to_nobody(struct nlr *s)
{
	if (setgid(65534) || setuid(65534))
		return 2;
	return every_command_refused(s);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/* Becomes root of a new user namespace (and, with @net, a new netns). */
static int userns_root(bool net)
{
	if (unshare(CLONE_NEWUSER | (net ? CLONE_NEWNET : 0)))
		return -1;
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/gid_map", "0 0 1"))
		return -1;
	return 0;
}

/* User-ns root: the init netns' socket is refused. */
static int userns_root_outside(struct nlr *s)
{
	if (userns_root(false))
		return 3;
	return every_command_refused(s);
}

/* User-ns root in its own netns: a full life cycle works. */
static int userns_root_inside(struct nlr *unused)
{
	static struct nlr_msg m;
	struct nlr s;

	if (userns_root(true) || nlr_open(&s))
		return 4;
	if (create(&s, &m, "mine", 4096, 3) ||
	    keys_cmd(&s, &m, KBLOOM_CMD_ADD, "mine", 0, 10) ||
	    keys_cmd(&s, &m, KBLOOM_CMD_TEST, "mine", 0, 10) ||
	    reply_u32(&s, KBLOOM_A_NPRESENT) != 10)
		return 5;
	nlr_init(&s, &m, s.family, KBLOOM_CMD_ATTACH, 0);
	nlr_put_str(&m, KBLOOM_A_NAME, "mine");
	nlr_put_u32(&m, KBLOOM_A_HOOK, KBLOOM_HOOK_INPUT);
	nlr_put_u32(&m, KBLOOM_A_DIGEST, KBLOOM_DIGEST_SPIE);
	if (nlr_send(&s, &m))
		return 6;
	/* Only its own filter is visible. */
	return dump_count(&s, &m) == 1 ? 0 : 7;
}

FIXTURE(priv) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_SETUP(priv)
{
	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, create(&self->s, &self->m, "priv", 4096, 3));
	ASSERT_EQ(0, keys_cmd(&self->s, &self->m, KBLOOM_CMD_ADD, "priv", 0, 5));
}

FIXTURE_TEARDOWN(priv)
{
	nlr_init(&self->s, &self->m, self->s.family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
	nlr_send(&self->s, &self->m);
	close(self->s.fd);
}

static void unchanged(struct __test_metadata *_metadata, struct nlr *s,
		      struct nlr_msg *m)
{
	EXPECT_EQ(1, dump_count(s, m));
	ASSERT_EQ(0, keys_cmd(s, m, KBLOOM_CMD_TEST, "priv", 0, 5));
	EXPECT_EQ(5, reply_u32(s, KBLOOM_A_NPRESENT));
	ASSERT_EQ(0, get(s, m, "priv"));
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_ATTACH));
}

TEST_F(priv, unprivileged_user_refused_every_command)
{
	EXPECT_EQ(0, in_child(drop_to_nobody, &self->s));
	unchanged(_metadata, &self->s, &self->m);
}

TEST_F(priv, userns_root_refused_in_the_init_netns)
{
	EXPECT_EQ(0, in_child(userns_root_outside, &self->s));
	unchanged(_metadata, &self->s, &self->m);
}

TEST_F(priv, userns_root_acts_in_its_own_netns)
{
	EXPECT_EQ(0, in_child(userns_root_inside, NULL));
	unchanged(_metadata, &self->s, &self->m);
}

static int key_seen;

/* Counts export messages whose HASH_KEY is the 16 bytes at @arg. */
static void find_key(struct nlmsghdr *h, void *arg)
{
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		struct nlattr *a = (struct nlattr *)((uint8_t *)h + off);

		if (a->nla_len < NLA_HDRLEN)
			return;
		if (a->nla_type == KBLOOM_A_HASH_KEY && a->nla_len == NLA_HDRLEN + 16 &&
		    !memcmp((char *)a + NLA_HDRLEN, arg, 16))
			key_seen++;
		off += NLA_ALIGN(a->nla_len);
	}
}

TEST_F(priv, hash_key_only_in_export)
{
	static const uint8_t hkey[16] = { 0xde, 0xad, 0xbe, 0xef };
	struct nlr *s = &self->s;

	create_msg(s, &self->m, "keyed", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put(&self->m, KBLOOM_A_HASH_KEY, hkey, sizeof(hkey));
	ASSERT_EQ(0, nlr_send(s, &self->m));
	ASSERT_EQ(0, get(s, &self->m, "keyed"));
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_HASH_KEY));
	EXPECT_EQ(NULL, memmem(s->reply, s->reply_len, hkey, 4));

	nlr_init(s, &self->m, s->family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "keyed");
	s->each = find_key;
	s->each_arg = (void *)hkey;
	key_seen = 0;
	ASSERT_EQ(0, nlr_send(s, &self->m));
	s->each = NULL;
	EXPECT_EQ(1, key_seen);
}

TEST_HARNESS_MAIN
