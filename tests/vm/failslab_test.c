// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures, on the debug kernel (CONFIG_FAULT_INJECTION and
 * failslab; skipped elsewhere): /proc/thread-self/fail-nth makes the N-th
 * allocation of this task fail, for N = 1, 2, ... until the request runs
 * to its end without meeting the fault:
 *
 *   test --CREATE (windows) | CREATE LOAD + IMPORT + LOADED | ATTACH |
 *         ADD 500 keys | QUERY | EXPORT--> kbloom.ko, N-th allocation fails
 *   each failure: an error, no half-made filter (what is listed answers
 *   GET and TEST), and after the run kmemleak finds nothing (vm-init).
 */
#include <fcntl.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "nlraw.h"

static int fail_nth_set(int n)
{
	char buf[16];
	int fd = open("/proc/thread-self/fail-nth", O_RDWR), len, ok;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%d", n);
	ok = write(fd, buf, len) == len;
	close(fd);
	return ok ? 0 : -1;
}

/* 0 once the armed fault was consumed (an allocation failed). */
static int fail_nth_get(void)
{
	char buf[16] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY), n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

/* Writes @val to debugfs file @path; 0 on success. */
static int debugfs_set(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/* Bytes this netns has charged (STATUS MEM_NETNS); -1 on error. */
static long long mem_netns(struct nlr *s, struct nlr_msg *m)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_STATUS, 0);
	if (nlr_send(s, m))
		return -1;
	return reply_u64(s, KBLOOM_A_MEM_NETNS);
}

enum op { OP_CREATE, OP_RESTORE, OP_ATTACH, OP_ADD, OP_QUERY, OP_EXPORT };

static int run_op(struct nlr *s, struct nlr_msg *m, enum op op)
{
	static uint8_t cells[4096];
	uint8_t hkey[16] = { 3 };
	int err;

	switch (op) {
	case OP_CREATE:
		create_msg(s, m, "f", KBLOOM_TYPE_COUNTING, 1 << 15, 4);
		nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 8);
		nlr_put_u32(m, KBLOOM_A_WINDOWS, 3);
		nlr_put_u64(m, KBLOOM_A_INTERVAL, 60000);
		return nlr_send(s, m);
	case OP_RESTORE:
		create_msg(s, m, "f", KBLOOM_TYPE_BLOOM, 1 << 15, 4);
		nlr_put(m, KBLOOM_A_HASH_KEY, hkey, 16);
		nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
		err = nlr_send(s, m);
		if (err)
			return err;
		nlr_init(s, m, s->family, KBLOOM_CMD_IMPORT, 0);
		nlr_put_str(m, KBLOOM_A_NAME, "f");
		nlr_put_u64(m, KBLOOM_A_OFFSET, 0);
		nlr_put(m, KBLOOM_A_CELLS, cells, sizeof(cells));
		nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOADED);
		return nlr_send(s, m);
	case OP_ATTACH:
		nlr_init(s, m, s->family, KBLOOM_CMD_ATTACH, 0);
		nlr_put_str(m, KBLOOM_A_NAME, "base");
		nlr_put_u32(m, KBLOOM_A_HOOK, KBLOOM_HOOK_INPUT);
		nlr_put_u32(m, KBLOOM_A_DIGEST, KBLOOM_DIGEST_FLOW);
		return nlr_send(s, m);
	case OP_ADD:
		return keys_cmd(s, m, KBLOOM_CMD_ADD, "base", 0, 500);
	case OP_QUERY:
		return keys_cmd(s, m, KBLOOM_CMD_QUERY, "base", 0, 500);
	case OP_EXPORT:
		nlr_init(s, m, s->family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
		nlr_put_str(m, KBLOOM_A_NAME, "base");
		return nlr_send(s, m);
	}
	return -EINVAL;
}

FIXTURE(fs) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_SETUP(fs)
{
	if (access("/proc/thread-self/fail-nth", W_OK) ||
	    access("/sys/kernel/debug/failslab", F_OK))
		SKIP(return, "no fault injection (not the debug kernel)");
	/*
	 * By default failslab and fail_page_alloc leave sleeping (GFP_KERNEL)
	 * allocations alone, and fail_page_alloc order-0 pages: the module's
	 * allocations are those, so make them count.
	 */
	ASSERT_EQ(0, debugfs_set("/sys/kernel/debug/failslab/ignore-gfp-wait", "N"));
	ASSERT_EQ(0, debugfs_set("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N"));
	ASSERT_EQ(0, debugfs_set("/sys/kernel/debug/fail_page_alloc/min-order", "0"));
	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, create(&self->s, &self->m, "base", 1 << 16, 4));
}

FIXTURE_TEARDOWN(fs)
{
	if (!self->s.family)
		return;
	nlr_init(&self->s, &self->m, self->s.family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
	nlr_send(&self->s, &self->m);
	close(self->s.fd);
}

FIXTURE_VARIANT(fs) {
	enum op op;
};

FIXTURE_VARIANT_ADD(fs, create) { .op = OP_CREATE };
FIXTURE_VARIANT_ADD(fs, restore) { .op = OP_RESTORE };
FIXTURE_VARIANT_ADD(fs, attach) { .op = OP_ATTACH };
FIXTURE_VARIANT_ADD(fs, add) { .op = OP_ADD };
FIXTURE_VARIANT_ADD(fs, query) { .op = OP_QUERY };
FIXTURE_VARIANT_ADD(fs, export) { .op = OP_EXPORT };

TEST_F(fs, each_allocation_failure_is_clean)
{
	struct nlr *s = &self->s;
	int n, err, injected = 0, refused = 0;
	long long charged;

	/* The 6.1 harness runs the body even when the setup skipped. */
	if (!s->family)
		SKIP(return, "no fault injection (not the debug kernel)");
	charged = mem_netns(s, &self->m);
	ASSERT_LT(0, charged);
	for (n = 1; n < 400; n++) {
		ASSERT_EQ(0, fail_nth_set(n));
		err = run_op(s, &self->m, variant->op);
		if (fail_nth_get() > 0) {
			fail_nth_set(0);
			break;		/* ran to the end without the fault */
		}
		fail_nth_set(0);
		injected++;
		refused += err != 0;
		/*
		 * The socket may have lost the answer (ENOBUFS); whatever is
		 * listed must be whole: it answers GET and TEST.
		 */
		if (!get(s, &self->m, "f")) {
			EXPECT_EQ(0, keys_cmd(s, &self->m, KBLOOM_CMD_TEST, "f", 0, 1));
			nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
			nlr_put_str(&self->m, KBLOOM_A_NAME, "f");
			EXPECT_EQ(0, nlr_send(s, &self->m));
		}
		EXPECT_EQ(0, get(s, &self->m, "base"));
		/*
		 * A refused create gave back every byte it charged. (A restore
		 * whose IMPORT failed leaves its loading filter to its
		 * socket, which frees it on close: checked after the loop.)
		 */
		if (variant->op != OP_RESTORE) {
			EXPECT_EQ(charged, mem_netns(s, &self->m)) {
				TH_LOG("allocation %d failed: %lld bytes charged, %lld before",
				       n, mem_netns(s, &self->m), charged);
			}
		}
		/* An attach that happened though its answer was lost. */
		if (variant->op == OP_ATTACH && nlr_reply_attr(s, KBLOOM_A_ATTACH)) {
			nlr_init(s, &self->m, s->family, KBLOOM_CMD_DETACH, 0);
			nlr_put_str(&self->m, KBLOOM_A_NAME, "base");
			EXPECT_EQ(0, nlr_send(s, &self->m));
		}
	}
	if (variant->op == OP_RESTORE) {
		close(s->fd);
		ASSERT_EQ(0, nlr_open(s));
		EXPECT_EQ(charged, mem_netns(s, &self->m));
	}
	TH_LOG("%d allocation failures injected, %d requests refused", injected,
	       refused);
	EXPECT_LT(0, injected);
	EXPECT_GT(400, n);
}

TEST_HARNESS_MAIN
