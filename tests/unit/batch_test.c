// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Batches (kb_filter_add_many / kb_filter_test_many, used by the netlink
 * ADD and TEST paths): for every single-key type, a filter filled by
 * batches holds exactly the cells of one filled key by key, and batch
 * tests answer exactly as single tests, whatever the batch length. And
 * struct kb_batch (the packet path's per-CPU digest queue): full after
 * exactly KB_BATCH puts, and a filter filled through it holds exactly the
 * cells of one filled key by key.
 */
#include "kselftest_harness.h"
#include "kb_test.h"

#include "engine/batch.h"
#include "engine/filter.h"

static const u8 hk[16] = { 7, 6, 5, 4, 3, 2, 1, 0, 8, 9, 10, 11, 12, 13, 14, 15 };

static const struct kb_shape shapes[] = {
	{ .type = KBLOOM_TYPE_BLOOM, .m = 1 << 16, .k = 7 },
	{ .type = KBLOOM_TYPE_PARTITIONED, .m = 7 * 9000, .k = 7 },
	{ .type = KBLOOM_TYPE_BLOCKED, .m = 1 << 16, .k = 6 },
	{ .type = KBLOOM_TYPE_COUNTING, .m = 1 << 16, .k = 4, .cell_bits = 4 },
	{ .type = KBLOOM_TYPE_DLEFT, .m = 4 * 8 * 512, .k = 1, .subtables = 4,
	  .bucket_cells = 8, .fp_bits = 16 },
	{ .type = KBLOOM_TYPE_STABLE, .m = 1 << 16, .k = 3, .cell_bits = 2,
	  .decrement = 4 },
};

#define NKEYS 5000

static void hash_all(const struct kb_filter *f, struct kb_hash *h, u32 base)
{
	u32 i;
	u64 key;

	for (i = 0; i < NKEYS; i++) {
		key = (u64)(base + i) * 0x9e3779b97f4a7c15ULL;
		kb_hash_key(&f->hkey, &key, sizeof(key), &h[i]);
	}
}

TEST(batches_equal_single_keys)
{
	static struct kb_hash h[NKEYS], q[NKEYS];
	static bool many[NKEYS];
	struct kb_filter a, b;
	size_t t;
	u32 i, off, len;

	for (t = 0; t < ARRAY_SIZE(shapes); t++) {
		ASSERT_EQ(0, kb_filter_init(&a, &shapes[t], hk));
		ASSERT_EQ(0, kb_filter_init(&b, &shapes[t], hk));
		hash_all(&a, h, 0);
		hash_all(&a, q, NKEYS / 2);
		for (i = 0; i < NKEYS; i++)
			kb_filter_add_hash(&a, &h[i]);
		/* Batches of every length 0..40, then the rest. */
		for (off = 0, len = 0; off < NKEYS; off += len, len = len % 41 + 1) {
			if (off + len > NKEYS)
				len = NKEYS - off;
			kb_filter_add_many(&b, &h[off], len);
		}
		/* Stable decrements at random: only its tests can be compared. */
		if (shapes[t].type != KBLOOM_TYPE_STABLE)
			EXPECT_EQ(0, memcmp(a.mem, b.mem, kb_filter_mem(&a)))
				TH_LOG("type %u: batch adds set other cells",
				       shapes[t].type);
		kb_filter_test_many(&a, q, NKEYS, many);
		for (i = 0; i < NKEYS; i++)
			ASSERT_EQ(kb_filter_test_hash(&a, &q[i]), many[i])
				TH_LOG("type %u key %u", shapes[t].type, i);
		kb_filter_free(&a);
		kb_filter_free(&b);
	}
}

TEST(a_queue_of_digests_equals_single_keys)
{
	struct kb_filter a, b;
	struct kb_batch q = { 0 };
	u32 i, full;
	size_t t;
	u64 key;

	for (t = 0; t < ARRAY_SIZE(shapes); t++) {
		if (shapes[t].type == KBLOOM_TYPE_STABLE)
			continue;	/* decrements at random */
		ASSERT_EQ(0, kb_filter_init(&a, &shapes[t], hk));
		ASSERT_EQ(0, kb_filter_init(&b, &shapes[t], hk));
		for (i = 0, full = 0; i < NKEYS; i++) {
			key = (u64)i * 0x9e3779b97f4a7c15ULL;
			kb_filter_add(&a, &key, sizeof(key));
			if (kb_batch_put(&q, &b, &key, sizeof(key))) {
				ASSERT_EQ(KB_BATCH, q.n);
				ASSERT_EQ(KB_BATCH, kb_batch_add(&q, &b));
				ASSERT_EQ(0, q.n);
				full++;
			}
		}
		EXPECT_EQ(NKEYS / KB_BATCH, full);
		/* What is left in the queue is in the filter once added. */
		EXPECT_EQ(NKEYS % KB_BATCH, kb_batch_add(&q, &b));
		EXPECT_EQ(0, memcmp(a.mem, b.mem, kb_filter_mem(&a)))
			TH_LOG("type %u: the queue set other cells",
			       shapes[t].type);
		kb_filter_free(&a);
		kb_filter_free(&b);
	}
}

TEST_HARNESS_MAIN
