// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures, on the debug kernel (CONFIG_FAULT_INJECTION and
 * failslab; skipped elsewhere): /proc/thread-self/fail-nth makes the N-th
 * allocation of this task fail, for N = 1, 2, ... until the request runs
 * to its end without meeting the fault:
 *
 *   test --CREATE (counting, transforms; with windows) | CREATE LOAD +
 *         IMPORT + LOADED (bloom, scalable of 3-4 slices, dcf with a
 *         4-bit OFV, transforms) | ATTACH |
 *         ADD 500 keys | QUERY | EXPORT | a scalable grown to 3 slices |
 *         a dcf's OFV widened 1 -> 8 bits
 *                                --> kbloom.ko, N-th allocation fails
 *   each failure: an error, no half-made filter (what is listed answers
 *   GET and TEST; a transforms table, which takes no TEST, GET and
 *   EXPORT), every byte charged given back once it is destroyed,
 *   the run without a fault succeeds, and after the run kmemleak finds
 *   nothing (vm-init).
 */
#include <fcntl.h>
#include <stdlib.h>

#include "vm_harness.h"
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

enum op {
	OP_CREATE, OP_RESTORE, OP_RESTORE_SCALABLE, OP_RESTORE_DCF, OP_ATTACH,
	OP_ADD, OP_QUERY, OP_EXPORT, OP_GROW_SCALABLE, OP_WIDEN_DCF,
	OP_CREATE_TRANSFORMS, OP_RESTORE_TRANSFORMS,
};

static bool is_restore(enum op op)
{
	return op == OP_RESTORE || op == OP_RESTORE_SCALABLE ||
	       op == OP_RESTORE_DCF || op == OP_RESTORE_TRANSFORMS;
}

/* "f" is a transforms table: no TEST (EOPNOTSUPP), its cells by EXPORT. */
static bool is_transforms(enum op op)
{
	return op == OP_CREATE_TRANSFORMS || op == OP_RESTORE_TRANSFORMS;
}

/*
 * Transforms tables (HASHES 1, BITS = records): one of 4096 records a
 * window created, one of 256 restored (8 KiB, two IMPORTs: each injected
 * failure replays the IMPORTs before it, and the debug kernel is slow).
 */
#define XLATE_RECORDS		4096
#define XLATE_RESTORE_RECORDS	256

/* The layout of "sbase", a scalable filter of 700 keys (setup). */
static struct slice base_slices[KBLOOM_SLICES_MAX];
static int base_nslices;

static void scalable_create_msg(struct nlr *s, struct nlr_msg *m,
				const char *name, uint64_t bits, uint32_t k)
{
	create_msg(s, m, name, KBLOOM_TYPE_SCALABLE, bits, k);
	nlr_put_u64(m, KBLOOM_A_CAPACITY, 100);
	nlr_put_u32(m, KBLOOM_A_GROWTH, 2);
	nlr_put_u32(m, KBLOOM_A_TIGHTEN, 500000);
}

/* IMPORT of @total zero bytes into "f" in 4 KiB chunks, then LOADED. */
static int import_zeros(struct nlr *s, struct nlr_msg *m, uint64_t total)
{
	static uint8_t cells[4096];
	uint64_t off;
	int err;

	for (off = 0; off < total; off += sizeof(cells)) {
		uint64_t n = total - off < sizeof(cells) ? total - off :
			     sizeof(cells);

		nlr_init(s, m, s->family, KBLOOM_CMD_IMPORT, 0);
		nlr_put_str(m, KBLOOM_A_NAME, "f");
		nlr_put_u64(m, KBLOOM_A_OFFSET, off);
		nlr_put(m, KBLOOM_A_CELLS, cells, n);
		if (off + n == total)
			nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOADED);
		err = nlr_send(s, m);
		if (err)
			return err;
	}
	return 0;
}

static int run_op(struct nlr *s, struct nlr_msg *m, enum op op)
{
	static uint8_t cells[4096];
	uint8_t hkey[16] = { 3 };
	uint64_t total = 0;
	size_t nest;
	int err, i;

	switch (op) {
	case OP_CREATE:
		create_msg(s, m, "f", KBLOOM_TYPE_COUNTING, 1 << 15, 4);
		nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 8);
		nlr_put_u32(m, KBLOOM_A_WINDOWS, 3);
		nlr_put_u64(m, KBLOOM_A_INTERVAL, 60000);
		return nlr_send(s, m);
	case OP_CREATE_TRANSFORMS:
		create_msg(s, m, "f", KBLOOM_TYPE_TRANSFORMS, XLATE_RECORDS, 1);
		nlr_put_u32(m, KBLOOM_A_WINDOWS, 3);
		nlr_put_u64(m, KBLOOM_A_INTERVAL, 60000);
		return nlr_send(s, m);
	case OP_RESTORE_TRANSFORMS:
		create_msg(s, m, "f", KBLOOM_TYPE_TRANSFORMS,
			   XLATE_RESTORE_RECORDS, 1);
		nlr_put(m, KBLOOM_A_HASH_KEY, hkey, 16);
		nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
		err = nlr_send(s, m);
		if (err)
			return err;
		/* free cells (STATE 0), a record of 32 bytes each */
		return import_zeros(s, m, XLATE_RESTORE_RECORDS *
				    sizeof(struct kbloom_xlate));
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
	case OP_RESTORE_SCALABLE:
		scalable_create_msg(s, m, "f", base_slices[0].m,
				    base_slices[0].k);
		nlr_put(m, KBLOOM_A_HASH_KEY, hkey, 16);
		nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
		put_slices(m, base_slices, base_nslices);
		err = nlr_send(s, m);
		if (err)
			return err;
		/* each slice's bits as 64-bit words, oldest first */
		for (i = 0; i < base_nslices; i++)
			total += (base_slices[i].m + 63) / 64 * 8;
		return import_zeros(s, m, total);
	case OP_RESTORE_DCF:
		create_msg(s, m, "f", KBLOOM_TYPE_DCF, 8192, 3);
		nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 4);
		nlr_put_u32(m, KBLOOM_A_OFV_BITS, 4);
		nlr_put(m, KBLOOM_A_HASH_KEY, hkey, 16);
		nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
		err = nlr_send(s, m);
		if (err)
			return err;
		/* 8192 4-bit counters, then the OFV's 8192 of 4 bits */
		return import_zeros(s, m, 8192 * 4 / 8 * 2);
	case OP_GROW_SCALABLE:
		scalable_create_msg(s, m, "f", 1024, 4);
		err = nlr_send(s, m);
		if (err)
			return err;
		/* slices of 100, 200 and 400 keys (and one made ahead) */
		return keys_cmd(s, m, KBLOOM_CMD_ADD, "f", 0, 700);
	case OP_WIDEN_DCF:
		create_msg(s, m, "f", KBLOOM_TYPE_DCF, 8192, 3);
		nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 2);
		err = nlr_send(s, m);
		if (err)
			return err;
		/*
		 * One ADD of 100 copies of a key (widening is made between
		 * its keys): 25 wraps of a 2-bit counter, OFV 1 -> 8 bits.
		 */
		nlr_init(s, m, s->family, KBLOOM_CMD_ADD, 0);
		nlr_put_str(m, KBLOOM_A_NAME, "f");
		nest = nlr_nest_start(m, KBLOOM_A_KEYS);
		for (i = 0; i < 100; i++)
			nlr_put(m, KBLOOM_KEYS_A_KEY, "key-0", 5);
		nlr_nest_end(m, nest);
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
	/* what an earlier variant's failed setup may have left */
	nlr_init(&self->s, &self->m, self->s.family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_u32(&self->m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
	nlr_send(&self->s, &self->m);
	ASSERT_EQ(0, create(&self->s, &self->m, "base", 1 << 16, 4));
	scalable_create_msg(&self->s, &self->m, "sbase", 1024, 4);
	ASSERT_EQ(0, nlr_send(&self->s, &self->m));
	ASSERT_EQ(0, keys_cmd(&self->s, &self->m, KBLOOM_CMD_ADD, "sbase", 0, 700));
	ASSERT_EQ(0, get(&self->s, &self->m, "sbase"));
	base_nslices = slices_of(nlr_reply_attr(&self->s, KBLOOM_A_SLICE_LIST),
				 base_slices, KBLOOM_SLICES_MAX);
	/* 100 + 200 + 400 keys, and maybe a fourth slice made ahead */
	ASSERT_LE(3, base_nslices);
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
FIXTURE_VARIANT_ADD(fs, restore_scalable) { .op = OP_RESTORE_SCALABLE };
FIXTURE_VARIANT_ADD(fs, restore_dcf) { .op = OP_RESTORE_DCF };
FIXTURE_VARIANT_ADD(fs, grow_scalable) { .op = OP_GROW_SCALABLE };
FIXTURE_VARIANT_ADD(fs, widen_dcf) { .op = OP_WIDEN_DCF };
FIXTURE_VARIANT_ADD(fs, create_transforms) { .op = OP_CREATE_TRANSFORMS };
FIXTURE_VARIANT_ADD(fs, restore_transforms) { .op = OP_RESTORE_TRANSFORMS };

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
			/* ran to the end without the fault: it must work */
			EXPECT_EQ(0, err);
			break;
		}
		fail_nth_set(0);
		injected++;
		refused += err != 0;
		/*
		 * The socket may have lost the answer (ENOBUFS); whatever is
		 * listed must be whole: it answers GET and TEST.
		 */
		if (!get(s, &self->m, "f")) {
			if (is_transforms(variant->op)) {
				nlr_init(s, &self->m, s->family,
					 KBLOOM_CMD_EXPORT, NLM_F_DUMP);
				nlr_put_str(&self->m, KBLOOM_A_NAME, "f");
				EXPECT_EQ(0, nlr_send(s, &self->m));
			} else {
				EXPECT_EQ(0, keys_cmd(s, &self->m,
						      KBLOOM_CMD_TEST, "f", 0, 1));
			}
			nlr_init(s, &self->m, s->family, KBLOOM_CMD_DESTROY, 0);
			nlr_put_str(&self->m, KBLOOM_A_NAME, "f");
			EXPECT_EQ(0, nlr_send(s, &self->m));
		}
		EXPECT_EQ(0, get(s, &self->m, "base"));
		/*
		 * An attach that happened though its answer was lost (asked
		 * of the GET just made, before any other request).
		 */
		if (variant->op == OP_ATTACH && nlr_reply_attr(s, KBLOOM_A_ATTACH)) {
			nlr_init(s, &self->m, s->family, KBLOOM_CMD_DETACH, 0);
			nlr_put_str(&self->m, KBLOOM_A_NAME, "base");
			EXPECT_EQ(0, nlr_send(s, &self->m));
		}
		/*
		 * A restore whose IMPORT failed leaves its loading filter to
		 * its socket, which frees it on close: else the next CREATE
		 * LOAD of "f" would only meet EEXIST.
		 */
		if (is_restore(variant->op)) {
			close(s->fd);
			ASSERT_EQ(0, nlr_open(s));
		}
		/* A refused request gave back every byte it charged. */
		EXPECT_EQ(charged, mem_netns(s, &self->m)) {
			TH_LOG("allocation %d failed: %lld bytes charged, %lld before",
			       n, mem_netns(s, &self->m), charged);
		}
	}
	TH_LOG("%d allocation failures injected, %d requests refused", injected,
	       refused);
	EXPECT_LT(0, injected);
	EXPECT_GT(400, n);
}

TEST_HARNESS_MAIN
