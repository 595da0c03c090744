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
 *   userns_admin=1: one user's namespaces, however many, share one budget
 *        of memory and filters; all users' together leave root the rest
 *        (drawn above their tests).
 */
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "vm_harness.h"
#include "nlraw.h"
#include "userns.h"

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

static int userns_as_nobody(bool net, int inner)
{
	return userns_as(65534, net, inner);
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

#define MIB (1ULL << 20)

/* A @mib MiB bloom filter (plus its small fixed cost). */
static int create_mib(struct nlr *s, struct nlr_msg *m, const char *name,
		      uint64_t mib)
{
	return create(s, m, name, mib * MIB * 8, 3);
}

/* True when @s's last request failed with @err and an extack naming @limit. */
static bool refused_by(struct nlr *s, int got, int err, const char *limit)
{
	if (got != err || !strstr(s->extack, limit)) {
		fprintf(stderr, "got %d '%s', want %d naming %s\n", got,
			s->extack, err, limit);
		return false;
	}
	return true;
}

/*
 * Makes a new netns (with @user, a new user namespace too, root there
 * mapped to root of the current one) and opens a socket in it.
 */
static int new_netns(struct nlr *s, bool user)
{
	if (user) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET) ||
		    write_file("/proc/self/setgroups", "deny") ||
		    write_file("/proc/self/uid_map", "0 0 1") ||
		    write_file("/proc/self/gid_map", "0 0 1"))
			return -1;
	} else if (unshare(CLONE_NEWNET)) {
		return -1;
	}
	return nlr_open(s);
}

/*
 * A child that does @fn as its own user, reports @fn's status on a pipe
 * and keeps its namespaces (and filters) until the parent says go.
 */
struct holder {
	pid_t pid;
	int status, go;
};

static int hold(struct holder *h, int (*fn)(void))
{
	int res[2], go[2];
	char c = 0;

	if (pipe(res) || pipe(go))
		return -1;
	h->pid = fork();
	if (h->pid < 0)
		return -1;
	if (h->pid == 0) {
		close(res[0]);
		close(go[1]);
		c = fn();
		if (write(res[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(res[1]);
	close(go[0]);
	h->go = go[1];
	if (read(res[0], &c, 1) != 1)
		c = 100;
	close(res[0]);
	h->status = c;
	return 0;
}

static void release(struct holder *h)
{
	int st;

	close(h->go);
	waitpid(h->pid, &st, 0);
}

/*
 * One owner, max_memory 64 MiB, user_memory_percent 25 (16 MiB),
 * user_max_filters 3:
 *
 *   uid 65534 --unshare -Urn--> root of U1, netns A:  "a" 8 MiB  ok
 *     U1 --unshare -n--> netns B:  "b" 8 MiB  ENOMEM, user_memory_percent
 *                                  "b" 2 MiB  ok; STATUS: 2 filters and
 *                                  10 MiB of the owner's 16 MiB
 *     U1 --unshare -Urn--> U2 (nested), netns C:
 *                                  "c" 8 MiB  ENOMEM: the same owner
 *                                  "c" 1 MiB  ok, its third filter
 *                                  "d" 1 MiB  ENOSPC, user_max_filters
 *   meanwhile root, init netns:    "big" 40 MiB  ok
 */
static int one_owner(void)
{
	static struct nlr_msg m;
	struct nlr a, b, c;

	if (userns_root(true) || nlr_open(&a))
		return 2;
	if (create_mib(&a, &m, "a", 8))
		return 3;
	if (new_netns(&b, false))
		return 4;
	if (!refused_by(&b, create_mib(&b, &m, "b", 8), -ENOMEM,
			"user_memory_percent"))
		return 5;
	if (dump_count(&b, &m) != 0 || create_mib(&b, &m, "b", 2))
		return 6;
	nlr_init(&b, &m, b.family, KBLOOM_CMD_STATUS, 0);
	if (nlr_send(&b, &m) || reply_u32(&b, KBLOOM_A_USER_FILTERS) != 2 ||
	    reply_u32(&b, KBLOOM_A_USER_MAX_FILTERS) != 3 ||
	    reply_u64(&b, KBLOOM_A_MEM_USER_LIMIT) != 16 * MIB ||
	    reply_u64(&b, KBLOOM_A_MEM_USER) < 10 * MIB ||
	    reply_u64(&b, KBLOOM_A_MEM_USER) > 11 * MIB ||
	    reply_u64(&b, KBLOOM_A_MEM_NETNS) > 3 * MIB)
		return 7;
	if (new_netns(&c, true))
		return 8;
	if (!refused_by(&c, create_mib(&c, &m, "c", 8), -ENOMEM,
			"user_memory_percent"))
		return 9;
	if (create_mib(&c, &m, "c", 1))
		return 10;
	if (!refused_by(&c, create_mib(&c, &m, "d", 1), -ENOSPC,
			"user_max_filters"))
		return 11;
	return 0;
}

TEST(one_users_namespaces_share_one_budget)
{
	static struct nlr_msg m;
	struct holder h;
	struct nlr s;
	int big;

	ASSERT_TRUE(reload("userns_admin=1 max_memory=67108864 user_max_filters=3"));
	ASSERT_EQ(0, hold(&h, one_owner));
	ASSERT_EQ(0, nlr_open(&s));
	big = create_mib(&s, &m, "big", 40);
	name_cmd(&s, &m, KBLOOM_CMD_DESTROY, "big");
	close(s.fd);
	release(&h);
	ASSERT_TRUE(reload(""));
	EXPECT_EQ(0, h.status);
	EXPECT_EQ(0, big);
}

/* 20 MiB in a netns of a user namespace of @uid. */
static int owner_takes_20(int uid)
{
	static struct nlr_msg m;
	struct nlr s;

	if (userns_as(uid, true, 0) || nlr_open(&s))
		return 2;
	return create_mib(&s, &m, "twenty", 20) ? 3 : 0;
}

static int nobody_takes_20(void)
{
	return owner_takes_20(65534);
}

/*
 * Two owners, max_memory 64 MiB, user_memory_percent 40 (25.6 MiB each),
 * userns_memory_percent 50 (32 MiB for all):
 *
 *   uid 65534 in its user namespace:  "twenty" 20 MiB  ok
 *   uid 65533 in its user namespace:  "twenty" 20 MiB  ENOMEM,
 *                                     userns_memory_percent
 *                                     "eight"   8 MiB  ok
 *   root, init netns:                 "rest"   30 MiB  ok
 */
static int second_owner_at_the_cap(void)
{
	static struct nlr_msg m;
	struct nlr s;

	if (userns_as(65533, true, 0) || nlr_open(&s))
		return 2;
	if (!refused_by(&s, create_mib(&s, &m, "twenty", 20), -ENOMEM,
			"userns_memory_percent"))
		return 3;
	return create_mib(&s, &m, "eight", 8) ? 4 : 0;
}

TEST(all_users_together_leave_root_the_rest)
{
	static struct nlr_msg m;
	struct holder first, second;
	struct nlr s;
	int rest;

	ASSERT_TRUE(reload("userns_admin=1 max_memory=67108864 user_memory_percent=40 userns_memory_percent=50"));
	ASSERT_EQ(0, hold(&first, nobody_takes_20));
	ASSERT_EQ(0, hold(&second, second_owner_at_the_cap));
	ASSERT_EQ(0, nlr_open(&s));
	rest = create_mib(&s, &m, "rest", 30);
	name_cmd(&s, &m, KBLOOM_CMD_DESTROY, "rest");
	close(s.fd);
	release(&second);
	release(&first);
	ASSERT_TRUE(reload(""));
	EXPECT_EQ(0, first.status);
	EXPECT_EQ(0, second.status);
	EXPECT_EQ(0, rest);
}

/*
 * A container root cannot keep memory past its share by mapping a filter
 * and destroying it: the pages stay charged to their owner until the
 * last mapping goes. userns_admin=1, max_memory 64 MiB (the owner's
 * share: 16 MiB):
 *
 *   uid 65534 --unshare -Urn--> root of U, its netns:
 *     "a" 12 MiB, MAP, mmap, DESTROY   STATUS: MEM_USER 12 MiB, all of
 *                                      it MEM_MAPPED_GONE
 *     "b" 12 MiB                       ENOMEM, user_memory_percent
 *     munmap, close                    MEM_USER and MEM_MAPPED_GONE 0
 *     "b" 12 MiB                       ok
 */
static int map_destroy_keep(void)
{
	static struct nlr_msg m;
	struct kbloom_map_req req = { .name = "a" };
	uint64_t gone;
	struct nlr s;
	void *p;
	int fd;

	if (userns_root(true) || nlr_open(&s))
		return 2;
	if (create_mib(&s, &m, "a", 12))
		return 3;
	fd = open("/dev/" KBLOOM_DEV_NAME, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, KBLOOM_IOC_MAP, &req))
		return 4;
	p = mmap(NULL, req.size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED || name_cmd(&s, &m, KBLOOM_CMD_DESTROY, "a"))
		return 5;
	nlr_init(&s, &m, s.family, KBLOOM_CMD_STATUS, 0);
	if (nlr_send(&s, &m))
		return 6;
	gone = reply_u64(&s, KBLOOM_A_MEM_MAPPED_GONE);
	if (gone < 12 * MIB || gone > 13 * MIB ||
	    reply_u64(&s, KBLOOM_A_MEM_USER) != gone ||
	    reply_u64(&s, KBLOOM_A_MEM_NETNS) != gone)
		return 7;
	if (!refused_by(&s, create_mib(&s, &m, "b", 12), -ENOMEM,
			"user_memory_percent"))
		return 8;
	munmap(p, req.size);
	close(fd);
	nlr_init(&s, &m, s.family, KBLOOM_CMD_STATUS, 0);
	if (nlr_send(&s, &m) || reply_u64(&s, KBLOOM_A_MEM_USER) != 0 ||
	    reply_u64(&s, KBLOOM_A_MEM_MAPPED_GONE) != 0)
		return 9;
	return create_mib(&s, &m, "b", 12) ? 10 : 0;
}

TEST(destroyed_but_mapped_stays_its_owners)
{
	struct holder h;

	ASSERT_TRUE(reload("userns_admin=1 max_memory=67108864"));
	ASSERT_EQ(0, hold(&h, map_destroy_keep));
	release(&h);
	ASSERT_TRUE(reload(""));
	EXPECT_EQ(0, h.status);
}

TEST_HARNESS_MAIN
