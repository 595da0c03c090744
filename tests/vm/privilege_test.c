// SPDX-License-Identifier: GPL-2.0
/*
 * Privilege and isolation, in the test VM:
 *
 *   uid 65534 (no CAP_NET_ADMIN) --every command--> EPERM, nothing changes
 *   uid 65534 in a new user namespace mapping it to 1000 (no uid 0), no
 *        capabilities, in its new netns --every command--> EPERM
 *   root of a new user namespace (uid 65534 outside):
 *        a socket of the init netns --any command--> EPERM
 *        its own new netns --every command--> EPERM (userns_admin=0, the
 *             default); with the module loaded userns_admin=1:
 *             --CREATE/ADD/ATTACH--> allowed there, only its filter seen,
 *             STATUS without MEM_ALL (the bytes of all namespaces)
 *   GET never carries the hash key; EXPORT (admin only) does.
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

/*
 * As uid 65534, makes a new user namespace (and, with @net, a new netns)
 * mapping it to @inner (0: root there), as an unprivileged user would
 * (`unshare -Urn` for 0).
 */
static int userns_as_nobody(bool net, int inner)
{
	char map[32];

	snprintf(map, sizeof(map), "%d 65534 1", inner);
	/*
	 * setuid() made the process undumpable, and its /proc/self files
	 * root's: dumpable again, as after the exec of `unshare -Urn`.
	 */
	if (setgid(65534) || setuid(65534) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ||
	    unshare(CLONE_NEWUSER | (net ? CLONE_NEWNET : 0)))
		return -1;
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", map) ||
	    write_file("/proc/self/gid_map", map))
		return -1;
	return 0;
}

static int userns_root(bool net)
{
	return userns_as_nobody(net, 0);
}

/*
 * A really unprivileged user: uid 1000 of its own user namespace (no uid
 * 0 mapped), with the capabilities the namespace gave it dropped, in its
 * own netns.
 */
static int userns_unprivileged(struct nlr *unused)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct none[2] = { 0 };
	struct nlr s;

	if (userns_as_nobody(true, 1000) ||
	    syscall(SYS_capset, &h, none) || nlr_open(&s))
		return 3;
	return every_command_refused(&s);
}

/* User-ns root in its own netns, userns_admin=0: refused there too. */
static int userns_root_inside_refused(struct nlr *unused)
{
	struct nlr s;

	if (userns_root(true) || nlr_open(&s))
		return 4;
	return every_command_refused(&s);
}

/* User-ns root: the init netns' socket is refused. */
static int userns_root_outside(struct nlr *s)
{
	if (userns_root(false))
		return 3;
	return every_command_refused(s);
}

/*
 * User-ns root in its own netns: a full life cycle works; windows shorter
 * than KBLOOM_USERNS_INTERVAL_MIN are refused (rotations cost kernel
 * workers nobody is charged for).
 */
static int userns_root_inside(struct nlr *unused)
{
	static struct nlr_msg m;
	struct nlr s;

	if (userns_root(true) || nlr_open(&s))
		return 4;
	create_msg(&s, &m, "fast", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&m, KBLOOM_A_WINDOWS, 4);
	nlr_put_u64(&m, KBLOOM_A_INTERVAL, KBLOOM_USERNS_INTERVAL_MIN - 1);
	if (nlr_send(&s, &m) != -EINVAL ||
	    strcmp(s.extack, "in a netns of a user namespace, INTERVAL is 1000 ms or more"))
		return 8;
	create_msg(&s, &m, "slow", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&m, KBLOOM_A_WINDOWS, 4);
	nlr_put_u64(&m, KBLOOM_A_INTERVAL, KBLOOM_USERNS_INTERVAL_MIN);
	if (nlr_send(&s, &m))
		return 9;
	nlr_init(&s, &m, s.family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_str(&m, KBLOOM_A_NAME, "slow");
	if (nlr_send(&s, &m))
		return 10;
	/* Its own namespace's figures; not what all namespaces hold. */
	nlr_init(&s, &m, s.family, KBLOOM_CMD_STATUS, 0);
	if (nlr_send(&s, &m) || !nlr_reply_attr(&s, KBLOOM_A_MEM_NETNS) ||
	    nlr_reply_attr(&s, KBLOOM_A_MEM_ALL))
		return 11;
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

TEST_F(priv, unprivileged_userns_user_refused_in_its_own_netns)
{
	EXPECT_EQ(0, in_child(userns_unprivileged, NULL));
	unchanged(_metadata, &self->s, &self->m);
}

static bool userns_admin_on(void)
{
	char c = 'N';
	FILE *f = fopen("/sys/module/kbloom/parameters/userns_admin", "r");

	if (f) {
		c = fgetc(f);
		fclose(f);
	}
	return c == 'Y';
}

TEST_F(priv, userns_root_refused_in_its_own_netns_by_default)
{
	ASSERT_FALSE(userns_admin_on());
	EXPECT_EQ(0, in_child(userns_root_inside_refused, NULL));
	unchanged(_metadata, &self->s, &self->m);
}

/* Loads the module again, with @params; false if that failed. */
static bool reload(const char *params)
{
	const char *ko = getenv("KBLOOM_KO");
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rmmod kbloom && insmod '%s' %s",
		 ko ? ko : "kmod/kbloom.ko", params);
	return system(cmd) == 0;
}

/*
 * userns_admin=1: the root of a user namespace uses kbloom in its own
 * netns (and still not in the init netns); a user without capabilities
 * is still refused everywhere. The module is loaded as before afterwards.
 */
TEST(userns_admin_lets_container_roots_into_their_own_netns)
{
	struct nlr s;
	int inside, outside, unpriv;

	ASSERT_TRUE(reload("userns_admin=1"));
	inside = in_child(userns_root_inside, NULL);
	unpriv = in_child(userns_unprivileged, NULL);
	outside = nlr_open(&s) ? -1 : in_child(userns_root_outside, &s);
	if (outside >= 0)
		close(s.fd);
	EXPECT_TRUE(userns_admin_on());
	ASSERT_TRUE(reload(""));
	EXPECT_FALSE(userns_admin_on());
	EXPECT_EQ(0, inside);
	EXPECT_EQ(0, unpriv);
	EXPECT_EQ(0, outside);
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
