// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bloomctl's reader of a mapped filter (userspace/mapview.c) over a
 * mapping made here in memory as the module lays it out (uapi/kbloom.h,
 * "/dev/kbloom"): a header, then tables of an engine filter's cells.
 *
 *   engine filters a, b (keys 0..n / none) --copied--> header | t0 | t1
 *   a writer thread: seq odd, t0 emptied and filled again, seq even, ...
 *   kb_mapview_test() of 64 keys: every key present, every time
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "mapview.h"

#define M	65536
#define K	4
#define NKEYS	64
#define PAGE	4096

static const uint8_t hkey[16] = { 7, 6, 5, 4, 3, 2, 1 };

struct fake {
	struct kbloom_map_header *h;
	size_t size;
	struct kb_filter full, empty;	/* keys 0..NKEYS-1 / none */
	struct kb_hash hash[NKEYS];
	volatile bool stop;
	volatile unsigned int reads;	/* lookups the reader finished */
};

/* Two tables: 0 holds the keys, 1 is empty; one window, table 0. 0 or -1. */
static int fake_init(struct fake *f, uint32_t type)
{
	struct kb_shape s = { .type = type, .m = M, .k = K };
	size_t cells;
	uint64_t i;

	if (kb_filter_init(&f->full, &s, hkey) ||
	    kb_filter_init(&f->empty, &s, hkey))
		return -1;
	for (i = 0; i < NKEYS; i++) {
		kb_hash_key(&f->full.hkey, &i, sizeof(i), &f->hash[i]);
		kb_filter_add_hash(&f->full, &f->hash[i]);
	}
	cells = kb_filter_mem_for(&s);
	f->size = PAGE + 2 * cells;
	f->h = aligned_alloc(PAGE, f->size);
	if (!f->h)
		return -1;
	memset(f->h, 0, PAGE);
	f->h->magic = KBLOOM_MAP_MAGIC;
	f->h->version = KBLOOM_MAP_VERSION;
	f->h->type = type;
	f->h->hashes = K;
	f->h->bits = M;
	f->h->counter_bits = 1;
	f->h->ntables = 2;
	memcpy(f->h->hash_key, hkey, sizeof(hkey));
	f->h->cell_bytes = cells;
	f->h->cells_off = PAGE;
	f->h->table_stride = cells;
	f->h->windows_max = 2;
	f->h->nwindows = 1;
	f->h->window[0].table = 0;
	memcpy((char *)f->h + PAGE, f->full.mem, cells);
	memcpy((char *)f->h + PAGE + cells, f->empty.mem, cells);
	return 0;
}

static void fake_free(struct fake *f)
{
	kb_filter_free(&f->full);
	kb_filter_free(&f->empty);
	free(f->h);
}

static bool all(const bool *p, bool v)
{
	int i;

	for (i = 0; i < NKEYS; i++)
		if (p[i] != v)
			return false;
	return true;
}

TEST(answers_are_the_engines)
{
	struct kb_mapview v = { .fd = -1 };
	bool present[NKEYS];
	struct fake f = { 0 };
	uint32_t types[] = { KBLOOM_TYPE_BLOOM, KBLOOM_TYPE_BLOCKED,
			     KBLOOM_TYPE_PARTITIONED };
	unsigned int t;

	for (t = 0; t < 3; t++) {
		ASSERT_EQ(0, fake_init(&f, types[t]));
		ASSERT_EQ(0, kb_mapview_attach(&v, f.h, f.size));
		ASSERT_EQ(0, kb_mapview_test(&v, f.hash, NKEYS, present));
		EXPECT_TRUE(all(present, true));
		/* Table 1, empty, as the window: every key absent. */
		f.h->window[0].table = 1;
		ASSERT_EQ(0, kb_mapview_test(&v, f.hash, NKEYS, present));
		EXPECT_TRUE(all(present, false));
		/* Both retained, newest first: present in either. */
		f.h->nwindows = 2;
		f.h->window[1].table = 0;
		ASSERT_EQ(0, kb_mapview_test(&v, f.hash, NKEYS, present));
		EXPECT_TRUE(all(present, true));
		kb_mapview_close(&v);
		fake_free(&f);
	}
}

TEST(a_header_that_does_not_hold_together_is_refused)
{
	struct kb_mapview v = { .fd = -1 };
	struct fake f = { 0 };

	ASSERT_EQ(0, fake_init(&f, KBLOOM_TYPE_BLOOM));
	EXPECT_EQ(-1, kb_mapview_attach(&v, f.h, f.size - 1));
	EXPECT_EQ(EPROTO, errno);
	kb_mapview_close(&v);
	f.h->cell_bytes++;
	EXPECT_EQ(-1, kb_mapview_attach(&v, f.h, f.size));
	kb_mapview_close(&v);
	f.h->cell_bytes--;
	f.h->magic++;
	EXPECT_EQ(-1, kb_mapview_attach(&v, f.h, f.size));
	kb_mapview_close(&v);
	f.h->magic--;
	f.h->type = KBLOOM_TYPE_SCALABLE;
	EXPECT_EQ(-1, kb_mapview_attach(&v, f.h, f.size));
	kb_mapview_close(&v);
	fake_free(&f);
}

TEST(destroyed_is_an_error)
{
	struct kb_mapview v = { .fd = -1 };
	struct fake f = { 0 };
	bool present[NKEYS];

	ASSERT_EQ(0, fake_init(&f, KBLOOM_TYPE_BLOOM));
	ASSERT_EQ(0, kb_mapview_attach(&v, f.h, f.size));
	f.h->flags = KBLOOM_MAP_F_DESTROYED;
	EXPECT_EQ(-1, kb_mapview_test(&v, f.hash, NKEYS, present));
	EXPECT_EQ(ENOENT, errno);
	kb_mapview_close(&v);
	fake_free(&f);
}

/*
 * A CLEAR that the keys' adds follow at once, as fast as it can go: table
 * 0 emptied and filled again, seq odd all the while. Every state a reader
 * may take for settled holds every key.
 */
static void *writer(void *arg)
{
	struct fake *f = arg;
	char *t0 = (char *)f->h + f->h->cells_off;

	unsigned int seen;

	while (!f->stop) {
		seen = f->reads;
		__atomic_store_n(&f->h->seq, f->h->seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		memset(t0, 0, f->h->cell_bytes);
		memcpy(t0, f->full.mem, f->h->cell_bytes);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&f->h->seq, f->h->seq + 1, __ATOMIC_RELAXED);
		/* The reader finishes one lookup between changes: no livelock. */
		while (f->reads == seen && !f->stop)
			sched_yield();
	}
	return NULL;
}

/*
 * A lookup that overlaps a change is done again: no key is ever absent,
 * however the reader and the writer interleave. (Without the second read
 * of seq, 19748 of the 20000 batches missed keys in one run.)
 */
TEST(a_lookup_that_overlaps_a_change_is_done_again)
{
	struct kb_mapview v = { .fd = -1 };
	struct fake f = { 0 };
	bool present[NKEYS];
	pthread_t th;
	int i, mixed = 0;

	ASSERT_EQ(0, fake_init(&f, KBLOOM_TYPE_BLOOM));
	ASSERT_EQ(0, kb_mapview_attach(&v, f.h, f.size));
	ASSERT_EQ(0, pthread_create(&th, NULL, writer, &f));
	for (i = 0; i < 20000; i++) {
		ASSERT_EQ(0, kb_mapview_test(&v, f.hash, NKEYS, present));
		f.reads++;
		mixed += !all(present, true);
	}
	f.stop = true;
	pthread_join(th, NULL);
	EXPECT_EQ(0, mixed);
	EXPECT_LT(0, f.h->seq);
	kb_mapview_close(&v);
	fake_free(&f);
}

TEST_HARNESS_MAIN
