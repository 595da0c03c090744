// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The engine's concurrency contract (kmod/engine/filter.h), one variant per
 * filter type: add, test and count are safe against each other from any
 * number of CPUs, and the owner's del, merge and growth may race the adds.
 *
 *   adds.*.race_tests_and_the_owner  writers add keys while a reader tests
 *       keys added before and the owner deletes, merges or grows: no test
 *       ever misses, every key is present afterwards, and the filter is
 *       what the same operations done one by one leave (byte for byte,
 *       count for count, or key for key, as the type allows)
 *   one_word.*.loses_no_update  threads update different cells of the
 *       same words at the same moment, round after round: no round loses
 *       an update (a non-atomic read-modify-write does within a few)
 *   same_keys.*.count_every_add  threads add the same keys at once: every
 *       add is counted; where counts are exact, as many deletes empty the
 *       filter again
 *   same_records.transforms.recorded_once_per_thread_at_most  threads put
 *       the same records (a transforms table): each recorded, at most
 *       once per thread, and every NEW answer is one valid cell
 *
 * Each variant says what its type can promise (exact bytes, or counts, or
 * presence alone) and with which shapes and numbers of threads and keys.
 * Each type's own test (bitops_test.c, counting_test.c ...) has what it
 * does one thread at a time.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_scalable.h"
#include "../../kmod/engine/dcf.h"
#include "../../kmod/engine/scalable.h"
#include "../../kmod/engine/xlate.h"
#include "../../kmod/uapi/kbloom.h"

static const u8 hkey[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

/* Key i of set @set: 9 bytes, disjoint between sets. */
enum {
	SET_READ = 1,	/* added before; the reader tests them throughout */
	SET_WRITE,	/* the writers' keys */
	SET_OWNER,	/* deleted, or merged in, by the owner */
	SET_SAME,	/* same_keys */
	SET_WORD,	/* one_word: candidates for the cells */
};

static void key_of(u8 key[9], u8 set, u64 i)
{
	key[0] = set;
	kb_put_le64(key + 1, i);
}

/*
 * A key's add and test, for every keyed type: a multi filter takes it as
 * the tuple holding it in every dimension (its add says nothing fresh).
 */
static struct kb_tuple tuple_of(const struct kb_filter *f, const u8 key[9])
{
	struct kb_tuple t = { .mask = (1U << f->s.dims) - 1 };
	u32 d;

	for (d = 0; d < f->s.dims; d++) {
		t.val[d] = key;
		t.len[d] = 9;
	}
	return t;
}

static bool add_key(struct kb_filter *f, const u8 key[9])
{
	struct kb_tuple t;

	if (!kb_filter_is_multi(f))
		return kb_filter_add(f, key, 9);
	t = tuple_of(f, key);
	kb_filter_add_tuple(f, &t);	/* 0: every dimension is given */
	return false;
}

static bool test_key(const struct kb_filter *f, const u8 key[9])
{
	struct kb_tuple t;

	if (!kb_filter_is_multi(f))
		return kb_filter_test(f, key, 9);
	t = tuple_of(f, key);
	return kb_filter_test_tuple(f, &t);
}

static struct kb_fill fill_of(const struct kb_filter *f)
{
	struct kb_fill fl;

	kb_filter_fill(f, &fl);
	return fl;
}

/* ---- a crew of threads, released together by one barrier */

#define CREW_MAX	8

struct crew {
	pthread_t th[CREW_MAX];
	pthread_barrier_t go, done;
	int n;
};

struct member {
	struct crew *crew;
	void *ctx;
	void *arg;		/* the member's own */
	int id;
	void (*fn)(struct member *m);
};

static void *member_main(void *p)
{
	struct member *m = p;

	pthread_barrier_wait(&m->crew->go);
	m->fn(m);
	return NULL;
}

/*
 * Starts the n members; they begin together once @watchers more threads
 * (the caller, for rounds) wait on crew->go too.
 */
static int crew_start(struct crew *c, struct member *m, int n, int watchers)
{
	int t;

	c->n = 0;
	if (n > CREW_MAX || pthread_barrier_init(&c->go, NULL, n + watchers) ||
	    pthread_barrier_init(&c->done, NULL, n + watchers))
		return -1;
	for (t = 0; t < n; t++) {
		m[t].crew = c;
		if (pthread_create(&c->th[t], NULL, member_main, &m[t]))
			return -1;
		c->n++;
	}
	return 0;
}

static int crew_join(struct crew *c)
{
	int t, err = 0;

	for (t = 0; t < c->n; t++)
		err |= pthread_join(c->th[t], NULL);
	pthread_barrier_destroy(&c->go);
	pthread_barrier_destroy(&c->done);
	return err;
}

/* ---- adds racing tests and the owner */

enum owner_op {
	OWNER_NONE,
	OWNER_MERGE,	/* OR-merges a filter of SET_OWNER keys in, once */
	OWNER_DELETE,	/* deletes SET_OWNER keys added before, every copy */
	OWNER_GROW,	/* grows whenever growth is wanted (the work item) */
};

/* What "the same operations one by one" must equal. */
enum sameness {
	SAME_BYTES,	/* the transfer stream (every cell), fill, overflow */
	SAME_COUNTS,	/* every key's count; no counter saturated */
	SAME_KEYS,	/* presence only (random decrements, timing of growth) */
};

struct race {
	struct kb_shape s;
	int writers;
	u64 per_writer;		/* keys each writer adds ... */
	u32 overlap;		/* ... each key by this many writers ... */
	u32 reps;		/* ... this many times */
	u64 read_keys;		/* SET_READ keys, added before */
	enum owner_op owner;
	u64 owner_keys;		/* SET_OWNER keys ... */
	u32 owner_reps;		/* ... added (and deleted) this many times */
};

struct race_ctx {
	const struct race *r;
	struct kb_filter *f, *src;
	int done;		/* writers finished */
	u64 misses, rounds;
	u64 owner_fails;	/* merges or deletes refused */
	u64 fresh[CREW_MAX];	/* per writer: adds answered "fresh" */
};

static u64 first_key(const struct race *r, int id)
{
	return (u64)id * r->per_writer / r->overlap;
}

static void race_writer(struct member *m)
{
	struct race_ctx *c = m->ctx;
	const struct race *r = c->r;
	u64 i, first = first_key(r, m->id);
	u32 n;
	u8 key[9];

	for (n = 0; n < r->reps; n++)
		for (i = first; i < first + r->per_writer; i++) {
			key_of(key, SET_WRITE, i);
			c->fresh[m->id] += add_key(c->f, key);
		}
	__atomic_fetch_add(&c->done, 1, __ATOMIC_RELEASE);
}

static bool writers_done(struct race_ctx *c)
{
	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) >= c->r->writers;
}

static void race_reader(struct member *m)
{
	struct race_ctx *c = m->ctx;
	u8 key[9];
	u64 i;

	do {
		for (i = 0; i < c->r->read_keys; i++) {
			key_of(key, SET_READ, i);
			if (!test_key(c->f, key))
				c->misses++;
		}
		c->rounds++;
	} while (!writers_done(c));
}


static void race_owner(struct member *m)
{
	struct race_ctx *c = m->ctx;
	const struct race *r = c->r;
	u8 key[9];
	u64 i;
	u32 n;

	switch (r->owner) {
	case OWNER_NONE:
		break;
	case OWNER_MERGE:
		c->owner_fails += kb_filter_merge(c->f, c->src,
						  KBLOOM_MERGE_OR) != 0;
		break;
	case OWNER_DELETE:
		for (n = 0; n < r->owner_reps; n++)
			for (i = 0; i < r->owner_keys; i++) {
				key_of(key, SET_OWNER, i);
				c->owner_fails += kb_filter_del(c->f, key,
							    sizeof(key)) != 0;
			}
		break;
	case OWNER_GROW:
		while (!writers_done(c))
			if (kb_scalable_wants_slice(c->f))
				grow_at_once(c->f);
		break;
	}
}

/* Before any key: dcf's overflow vector wide enough for every count. */
static int prepare(struct kb_filter *f)
{
	if (f->s.type != KBLOOM_TYPE_DCF)
		return 0;
	while (kb_dcf_ofv_bits(f) < 16) {
		if (kb_dcf_widen(f))
			return -1;
		kb_dcf_retire(f);
	}
	return 0;
}

/* The transfer streams (every cell of every part) are equal. */
static bool same_stream(const struct kb_filter *a, const struct kb_filter *b)
{
	u64 off = 0, la, lb, n;

	if (kb_filter_xfer_bytes(a) != kb_filter_xfer_bytes(b))
		return false;
	while (off < kb_filter_xfer_bytes(a)) {
		const u8 *pa = kb_filter_xfer(a, off, &la);
		const u8 *pb = kb_filter_xfer(b, off, &lb);

		if (!pa || !pb)
			return false;
		n = la < lb ? la : lb;
		if (!n || memcmp(pa, pb, n))
			return false;
		off += n;
	}
	return true;
}

/*
 * Scalable, the growth accounting with adders outrunning the grower:
 * every fresh key counted once in some slice, every key a slice took
 * beyond its capacity counted once as overflow, growth never failed, and
 * the slices made about as many as the keys needed.
 */
static void scalable_accounting(struct __test_metadata *_metadata,
				const struct kb_filter *f, u64 fresh)
{
	struct kb_slice_info si;
	u64 sum = 0, over = 0;
	u32 j, n = kb_scalable_slices(f);

	for (j = 0; j < n; j++) {
		kb_scalable_slice(f, j, &si);
		sum += si.keys;
		over += si.keys > si.capacity ? si.keys - si.capacity : 0;
	}
	EXPECT_EQ(over, kb_scalable_overflow(f));
	EXPECT_EQ(fresh, sum);
	EXPECT_EQ(KBLOOM_GROW_OK, kb_scalable_grow_error(f));
	EXPECT_GE(active(f), slices_for(f->s.capacity, f->s.growth, sum) - 1);
	kb_diag("%u slices (%u active), %llu fresh, overflow %llu", n,
		active(f), (unsigned long long)fresh, (unsigned long long)over);
}

/*
 * dcf: every cell equal, exactly, to a counter of 64 bits on the probe
 * positions uapi/kbloom.h defines, fed the same adds (what was deleted
 * was added as often): one by one is right, not only the same.
 */
static void dcf_cells_exact(struct __test_metadata *_metadata,
			    const struct kb_filter *f, const struct race *r)
{
	u64 *ref, i, h1;
	u8 key[9];
	u32 j;
	int t;

	ref = calloc(f->s.m, sizeof(*ref));
	ASSERT_NE(NULL, ref);
	for (t = -1; t < r->writers; t++) {
		u64 first = t < 0 ? 0 : first_key(r, t);
		u64 n = t < 0 ? r->read_keys : r->per_writer;

		for (i = first; i < first + n; i++) {
			key_of(key, t < 0 ? SET_READ : SET_WRITE, i);
			h1 = siphash(key, sizeof(key), &f->hkey);
			for (j = 0; j < f->s.k; j++)
				ref[kb_ref_probe(h1, kb_ref_mix64(h1), f->s.m,
						 j)] += t < 0 ? 1 : r->reps;
		}
	}
	for (i = 0; i < f->s.m; i++)
		ASSERT_EQ(ref[i], kb_dcf_cell(f, i)) {
			TH_LOG("cell %llu", (unsigned long long)i);
		}
	free(ref);
}

static void race_once(struct __test_metadata *_metadata, const struct race *r,
		      enum sameness same)
{
	struct member m[CREW_MAX];
	struct kb_filter f, seq, src;
	struct race_ctx *c;
	struct kb_fill fl, sfl;
	const struct kb_type_info *info;
	struct crew crew;
	u64 i, nkeys, fresh = 0;
	u32 n;
	u8 key[9];
	int t;

	c = calloc(1, sizeof(*c));
	ASSERT_NE(NULL, c);
	c->r = r;
	c->f = &f;
	c->src = &src;
	ASSERT_EQ(0, kb_filter_init(&f, &r->s, hkey));
	ASSERT_EQ(0, kb_filter_init(&seq, &r->s, hkey));
	ASSERT_EQ(0, kb_filter_init(&src, &r->s, hkey));
	ASSERT_EQ(0, prepare(&f));
	ASSERT_EQ(0, prepare(&seq));
	for (i = 0; i < r->read_keys; i++) {
		key_of(key, SET_READ, i);
		fresh += add_key(&f, key);
		add_key(&seq, key);
	}
	for (i = 0; i < r->owner_keys; i++) {
		key_of(key, SET_OWNER, i);
		if (r->owner == OWNER_MERGE)
			add_key(&src, key);
		for (n = 0; r->owner == OWNER_DELETE && n < r->owner_reps; n++)
			add_key(&f, key);
	}

	for (t = 0; t < r->writers; t++)
		m[t] = (struct member){ .ctx = c, .id = t, .fn = race_writer };
	if (r->read_keys)
		m[t++] = (struct member){ .ctx = c, .fn = race_reader };
	if (r->owner != OWNER_NONE)
		m[t++] = (struct member){ .ctx = c, .fn = race_owner };
	ASSERT_EQ(0, crew_start(&crew, m, t, 0));
	ASSERT_EQ(0, crew_join(&crew));

	/* The same operations one by one: the owner's, then the writers'. */
	if (r->owner == OWNER_MERGE)
		ASSERT_EQ(0, kb_filter_merge(&seq, &src, KBLOOM_MERGE_OR));
	for (t = 0; t < r->writers; t++) {
		fresh += c->fresh[t];
		for (n = 0; same != SAME_KEYS && n < r->reps; n++)
			for (i = first_key(r, t);
			     i < first_key(r, t) + r->per_writer; i++) {
				key_of(key, SET_WRITE, i);
				add_key(&seq, key);
			}
	}

	EXPECT_EQ(0, c->misses);
	EXPECT_EQ(0, c->owner_fails);
	nkeys = first_key(r, r->writers - 1) + r->per_writer;
	for (i = 0; i < nkeys; i++) {
		key_of(key, SET_WRITE, i);
		ASSERT_TRUE(test_key(&f, key));
	}
	for (i = 0; i < r->read_keys; i++) {
		key_of(key, SET_READ, i);
		ASSERT_TRUE(test_key(&f, key));
	}
	for (i = 0; r->owner == OWNER_MERGE && i < r->owner_keys; i++) {
		key_of(key, SET_OWNER, i);
		ASSERT_TRUE(test_key(&f, key));
	}
	fl = fill_of(&f);
	sfl = fill_of(&seq);
	info = kb_filter_info(&f);
	switch (same) {
	case SAME_BYTES:
		EXPECT_TRUE(same_stream(&f, &seq));
		EXPECT_EQ(sfl.nonzero, fl.nonzero);
		EXPECT_EQ(sfl.saturated, fl.saturated);
		if (info->grow) {
			/* dcf: no increment LOST. */
			EXPECT_EQ(0, info->grow->overflow(&f));
			EXPECT_EQ(info->grow->overflow(&seq),
				  info->grow->overflow(&f));
		}
		break;
	case SAME_COUNTS:
		EXPECT_EQ(0, fl.saturated);
		EXPECT_EQ(0, sfl.saturated);
		for (i = 0; i < nkeys; i++) {
			key_of(key, SET_WRITE, i);
			ASSERT_EQ(kb_filter_count(&seq, key, sizeof(key)),
				  kb_filter_count(&f, key, sizeof(key)));
		}
		for (i = 0; i < r->read_keys; i++) {
			key_of(key, SET_READ, i);
			ASSERT_EQ(1, kb_filter_count(&f, key, sizeof(key)));
		}
		for (i = 0; i < r->owner_keys; i++) {
			key_of(key, SET_OWNER, i);
			ASSERT_EQ(kb_filter_count(&seq, key, sizeof(key)),
				  kb_filter_count(&f, key, sizeof(key)));
		}
		/* Racing first adds of one key may take two cells. */
		EXPECT_LE(sfl.nonzero, fl.nonzero);
		kb_diag("%llu cells more than one by one",
			(unsigned long long)(fl.nonzero - sfl.nonzero));
		break;
	case SAME_KEYS:
		break;
	}
	if (r->owner == OWNER_GROW)
		scalable_accounting(_metadata, &f, fresh);
	if (r->s.type == KBLOOM_TYPE_DCF)
		dcf_cells_exact(_metadata, &f, r);
	kb_diag("m=%llu k=%u: %d writers x %llu keys (x%u), reader rounds %llu%s, %llu cells non-zero",
		(unsigned long long)r->s.m, r->s.k, r->writers,
		(unsigned long long)r->per_writer, r->reps,
		(unsigned long long)c->rounds,
		r->owner == OWNER_MERGE ? ", racing a merge" :
		r->owner == OWNER_DELETE ? ", racing deletes" :
		r->owner == OWNER_GROW ? ", racing growth" : "",
		(unsigned long long)fl.nonzero);
	kb_filter_free(&f);
	kb_filter_free(&seq);
	kb_filter_free(&src);
	free(c);
}

FIXTURE(adds) {};
FIXTURE_SETUP(adds) {}
FIXTURE_TEARDOWN(adds) {}

FIXTURE_VARIANT(adds) {
	enum sameness same;
	struct race runs[3];
};

/*
 * Bit types: 2^19 bits, where writers often hit the same words (fill
 * ~60%), then 2^22; and 2^19 again with the owner's OR merge racing.
 */
#define BIT_RUNS(ty, m19, m22, d)					\
	.same = SAME_BYTES,						\
	.runs = {							\
		{ .s = { .type = ty, .m = m19, .k = 3, .dims = d },	\
		  .writers = 4, .per_writer = 40000, .overlap = 1,	\
		  .reps = 1, .read_keys = 5000 },			\
		{ .s = { .type = ty, .m = m22, .k = 3, .dims = d },	\
		  .writers = 4, .per_writer = 40000, .overlap = 1,	\
		  .reps = 1, .read_keys = 5000 },			\
		{ .s = { .type = ty, .m = m19, .k = 3, .dims = d },	\
		  .writers = 4, .per_writer = 40000, .overlap = 1,	\
		  .reps = 1, .read_keys = 5000, .owner = OWNER_MERGE,	\
		  .owner_keys = 5000 },					\
	}

FIXTURE_VARIANT_ADD(adds, bloom) {
	BIT_RUNS(KBLOOM_TYPE_BLOOM, 1 << 19, 1 << 22, 0),
};

/* m a multiple of k. */
/* Filters made with SipHash-1-3 (KBLOOM_A_HASH_FN): the same contract. */
FIXTURE_VARIANT_ADD(adds, bloom_siphash13) {
	.same = SAME_BYTES,
	.runs = {
		{ .s = { .type = KBLOOM_TYPE_BLOOM, .m = 1 << 19, .k = 3,
			 .hash_fn = KBLOOM_HASH_FN_SIPHASH13 },
		  .writers = 4, .per_writer = 40000, .overlap = 1,
		  .reps = 1, .read_keys = 5000 },
	},
};

FIXTURE_VARIANT_ADD(adds, blocked_siphash13) {
	.same = SAME_BYTES,
	.runs = {
		{ .s = { .type = KBLOOM_TYPE_BLOCKED, .m = 1 << 22, .k = 3,
			 .hash_fn = KBLOOM_HASH_FN_SIPHASH13 },
		  .writers = 4, .per_writer = 40000, .overlap = 1,
		  .reps = 1, .read_keys = 5000, .owner = OWNER_MERGE,
		  .owner_keys = 5000 },
	},
};

FIXTURE_VARIANT_ADD(adds, partitioned) {
	BIT_RUNS(KBLOOM_TYPE_PARTITIONED, 524289, 4194306, 0),
};

FIXTURE_VARIANT_ADD(adds, blocked) {
	BIT_RUNS(KBLOOM_TYPE_BLOCKED, 1 << 19, 1 << 22, 0),
};

/* Three dimensions of m bits each, every one holding the key. */
FIXTURE_VARIANT_ADD(adds, multi) {
	BIT_RUNS(KBLOOM_TYPE_MULTI, 1 << 19, 1 << 22, 3),
};

/*
 * Each key by two writers; counters that saturate (m = 2^12) and that do
 * not: saturating increments commute, so the counters equal those of the
 * adds done one by one either way. A lost or torn nibble shows here.
 */
FIXTURE_VARIANT_ADD(adds, counting) {
	.same = SAME_BYTES,
	.runs = {
		{ .s = { .type = KBLOOM_TYPE_COUNTING, .m = 1 << 12, .k = 3,
			 .cell_bits = 4 },
		  .writers = 4, .per_writer = 40000, .overlap = 2, .reps = 1,
		  .read_keys = 2000 },
		{ .s = { .type = KBLOOM_TYPE_COUNTING, .m = 1 << 20, .k = 3,
			 .cell_bits = 4 },
		  .writers = 4, .per_writer = 40000, .overlap = 2, .reps = 1,
		  .read_keys = 2000 },
	},
};

/*
 * Each key by two writers, twice each, while the owner deletes another
 * set added before; 75% full at the peak, and roomy. Every count equals
 * the one by one count, and the deleted set is gone.
 */
FIXTURE_VARIANT_ADD(adds, dleft) {
	.same = SAME_COUNTS,
	.runs = {
		{ .s = { .type = KBLOOM_TYPE_DLEFT, .m = 80000, .k = 1,
			 .subtables = 4, .bucket_cells = 4, .fp_bits = 24 },
		  .writers = 4, .per_writer = 20000, .overlap = 2, .reps = 2,
		  .read_keys = 5000, .owner = OWNER_DELETE,
		  .owner_keys = 5000, .owner_reps = 1 },
		{ .s = { .type = KBLOOM_TYPE_DLEFT, .m = 1 << 18, .k = 1,
			 .subtables = 4, .bucket_cells = 8, .fp_bits = 24 },
		  .writers = 4, .per_writer = 20000, .overlap = 2, .reps = 2,
		  .read_keys = 5000, .owner = OWNER_DELETE,
		  .owner_keys = 5000, .owner_reps = 1 },
	},
};

/*
 * 4-bit cells with P = 1: a cell needs 15 decrements to fade, which no
 * cell gets from these 85000 adds over 2^20 cells, so every key must be
 * present — a set lost to a racing update of its word leaves one absent.
 */
FIXTURE_VARIANT_ADD(adds, stable) {
	.same = SAME_KEYS,
	.runs = {
		{ .s = { .type = KBLOOM_TYPE_STABLE, .m = 1 << 20, .k = 3,
			 .cell_bits = 4, .decrement = 1 },
		  .writers = 4, .per_writer = 20000, .overlap = 1, .reps = 1,
		  .read_keys = 5000 },
	},
};

/*
 * Adders and a grower (the module's work item) on the two CPUs; the keys
 * read throughout fill slice 0 before.
 */
FIXTURE_VARIANT_ADD(adds, scalable) {
	.same = SAME_KEYS,
	.runs = {
		{ .s = { .type = KBLOOM_TYPE_SCALABLE, .m = 9600, .k = 7,
			 .capacity = 1000, .growth = 2, .tighten = 900000 },
		  .writers = 2, .per_writer = 200000, .overlap = 1,
		  .reps = 1, .read_keys = 1000, .owner = OWNER_GROW },
	},
};

/*
 * x = 2: carries and borrows all the time, neighbours in every word; the
 * overflow vector already wide enough. Two adders and the owner deleting
 * a set added before as often: every cell equals the one by one cell,
 * and the exact count of its adds.
 */
FIXTURE_VARIANT_ADD(adds, dcf) {
	.same = SAME_BYTES,
	.runs = {
		{ .s = { .type = KBLOOM_TYPE_DCF, .m = 4096, .k = 3,
			 .cell_bits = 2 },
		  .writers = 2, .per_writer = 4000, .overlap = 1, .reps = 20,
		  .owner = OWNER_DELETE, .owner_keys = 4000,
		  .owner_reps = 20 },
	},
};

TEST_F(adds, race_tests_and_the_owner)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(variant->runs) && variant->runs[i].writers;
	     i++)
		race_once(_metadata, &variant->runs[i], variant->same);
	KB_ASSERT_NO_LEAKS();
}

/* ---- updates of different cells in one word, at the same moment */

#define WORD_THREADS	4
#define WORD_KEYS	128	/* per thread at most: 512 cells / 4 */

struct word_ctx {
	struct kb_filter *f;
	u32 rounds, reps;
	u32 nkeys[WORD_THREADS];
	u8 keys[WORD_THREADS][WORD_KEYS][9];
};

static void word_writer(struct member *m)
{
	struct word_ctx *c = m->ctx;
	u32 r, i, n;

	for (r = 0; r < c->rounds; r++) {
		for (n = 0; n < c->reps; n++)
			for (i = 0; i < c->nkeys[m->id]; i++)
				kb_filter_add(c->f, c->keys[m->id][i], 9);
		pthread_barrier_wait(&m->crew->done);
		pthread_barrier_wait(&m->crew->go);
	}
}

/*
 * The one non-zero cell of a filter holding one key (k = 1), by its place
 * in memory: cells of @bits packed from bit 0 of 32-bit words up. -1 if
 * not exactly one.
 */
static long long only_cell(const struct kb_filter *f, u32 bits)
{
	const u32 *w = (const u32 *)f->mem;
	u64 nw = kb_filter_mem(f) / 4, i;
	long long pos = -1;
	u32 b;

	for (i = 0; i < nw; i++)
		for (b = 0; b < 32; b += bits) {
			if (!((w[i] >> b) & ((1ULL << bits) - 1)))
				continue;
			if (pos >= 0)
				return -1;
			pos = (i * 32 + b) / bits;
		}
	return pos;
}

FIXTURE(one_word) {};
FIXTURE_SETUP(one_word) {}
FIXTURE_TEARDOWN(one_word) {}

/*
 * Cells (k = 1), each taken by one key; thread t owns the keys of cells
 * p with p % 4 == t, so all four threads write every word. Each round
 * every thread adds each of its keys @reps times; then every key's count
 * must be @want (a bit set, a counter at reps, a stable cell not zero).
 */
FIXTURE_VARIANT(one_word) {
	struct kb_shape s;
	u32 rounds, reps, want;
};

FIXTURE_VARIANT_ADD(one_word, bloom) {
	.s = { .type = KBLOOM_TYPE_BLOOM, .m = 512, .k = 1 },
	.rounds = 3000, .reps = 1, .want = 1,
};

FIXTURE_VARIANT_ADD(one_word, partitioned) {
	.s = { .type = KBLOOM_TYPE_PARTITIONED, .m = 512, .k = 1 },
	.rounds = 3000, .reps = 1, .want = 1,
};

/* One cache line. */
FIXTURE_VARIANT_ADD(one_word, blocked) {
	.s = { .type = KBLOOM_TYPE_BLOCKED, .m = 512, .k = 1 },
	.rounds = 3000, .reps = 1, .want = 1,
};

/* Each counter to max - 1: 14 adds. */
FIXTURE_VARIANT_ADD(one_word, counting4) {
	.s = { .type = KBLOOM_TYPE_COUNTING, .m = 64, .k = 1,
	       .cell_bits = 4 },
	.rounds = 200, .reps = 14, .want = 14,
};

FIXTURE_VARIANT_ADD(one_word, counting8) {
	.s = { .type = KBLOOM_TYPE_COUNTING, .m = 64, .k = 1,
	       .cell_bits = 8 },
	.rounds = 200, .reps = 254, .want = 254,
};

/*
 * 8-bit cells with P = 1: a round takes at most a few of a cell's 255.
 * (With 4-bit cells 15 decrements after a set do happen now and then, as
 * the host's kb_random_u32 gives every thread the same sequence.)
 */
FIXTURE_VARIANT_ADD(one_word, stable) {
	.s = { .type = KBLOOM_TYPE_STABLE, .m = 64, .k = 1, .cell_bits = 8,
	       .decrement = 1 },
	.rounds = 2000, .reps = 1, .want = 1,
};

TEST_F(one_word, loses_no_update)
{
	u32 bits = kb_shape_cell_bits(&variant->s) ?: 1, r, i, t;
	struct member m[WORD_THREADS];
	u64 bad_rounds = 0, taken = 0, key_i;
	u8 *seen, key[9];
	struct word_ctx *c;
	struct kb_filter f;
	struct crew crew;
	long long pos;

	c = calloc(1, sizeof(*c));
	seen = calloc(variant->s.m, 1);
	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, seen);
	c->f = &f;
	c->rounds = variant->rounds;
	c->reps = variant->reps;
	ASSERT_EQ(0, kb_filter_init(&f, &variant->s, hkey));
	/* A key for each cell: add it alone and look. */
	for (key_i = 0; taken < variant->s.m; key_i++) {
		ASSERT_LT(key_i, 100000);
		key_of(key, SET_WORD, key_i);
		kb_filter_clear(&f);
		kb_filter_add(&f, key, sizeof(key));
		pos = only_cell(&f, bits);
		ASSERT_LE(0, pos);
		ASSERT_GT(variant->s.m, pos);
		if (seen[pos])
			continue;
		seen[pos] = 1;
		taken++;
		t = pos % WORD_THREADS;
		ASSERT_GT(WORD_KEYS, c->nkeys[t]);
		memcpy(c->keys[t][c->nkeys[t]++], key, sizeof(key));
	}
	kb_filter_clear(&f);
	for (t = 0; t < WORD_THREADS; t++)
		m[t] = (struct member){ .ctx = c, .id = t, .fn = word_writer };
	ASSERT_EQ(0, crew_start(&crew, m, WORD_THREADS, 1));
	pthread_barrier_wait(&crew.go);
	for (r = 0; r < variant->rounds; r++) {
		bool bad = false;

		pthread_barrier_wait(&crew.done);
		for (t = 0; t < WORD_THREADS; t++)
			for (i = 0; i < c->nkeys[t]; i++)
				bad |= kb_filter_count(&f, c->keys[t][i], 9) !=
				       variant->want;
		bad_rounds += bad;
		kb_filter_clear(&f);
		pthread_barrier_wait(&crew.go);
	}
	ASSERT_EQ(0, crew_join(&crew));
	EXPECT_EQ(0, bad_rounds) {
		TH_LOG("%llu of %u rounds lost updates",
		       (unsigned long long)bad_rounds, variant->rounds);
	}
	kb_filter_free(&f);
	free(seen);
	free(c);
	KB_ASSERT_NO_LEAKS();
}

/* ---- the same keys from every thread at once */

#define SAME_THREADS	4

struct same_ctx {
	struct kb_filter *f;
	u32 nkeys, reps;
};

static void same_writer(struct member *m)
{
	struct same_ctx *c = m->ctx;
	u32 r, i;
	u8 key[9];

	for (r = 0; r < c->reps; r++)
		for (i = 0; i < c->nkeys; i++) {
			key_of(key, SET_SAME, i);
			kb_filter_add(c->f, key, sizeof(key));
		}
}

FIXTURE(same_keys) {};
FIXTURE_SETUP(same_keys) {}
FIXTURE_TEARDOWN(same_keys) {}

/*
 * Four threads add the same @nkeys keys @reps times each, @rounds times
 * over on a fresh filter. Every key's count is at least the 4 * reps adds
 * (exactly that where @exact; then 4 * reps deletes of each empty the
 * filter, and one more is refused).
 */
FIXTURE_VARIANT(same_keys) {
	struct kb_shape s;
	u32 nkeys, reps, rounds;
	bool exact;
};

/*
 * 16-bit counters shared by many keys (m = 256, k = 3): a racy minimal
 * increase (conservative update) loses adds here.
 */
FIXTURE_VARIANT_ADD(same_keys, counting) {
	.s = { .type = KBLOOM_TYPE_COUNTING, .m = 256, .k = 3,
	       .cell_bits = 16, .update = KBLOOM_UPDATE_PLAIN },
	.nkeys = 64, .reps = 300, .rounds = 1,
};

FIXTURE_VARIANT_ADD(same_keys, counting_conservative) {
	.s = { .type = KBLOOM_TYPE_COUNTING, .m = 256, .k = 3,
	       .cell_bits = 16, .update = KBLOOM_UPDATE_CONSERVATIVE },
	.nkeys = 64, .reps = 300, .rounds = 1,
};

/* Racing first adds may give a key two cells, never a wrong count. */
FIXTURE_VARIANT_ADD(same_keys, dleft) {
	.s = { .type = KBLOOM_TYPE_DLEFT, .m = 256, .k = 1, .subtables = 4,
	       .bucket_cells = 4, .fp_bits = 24 },
	.nkeys = 64, .reps = 60, .rounds = 20, .exact = true,
};

TEST_F(same_keys, count_every_add)
{
	u32 adds = SAME_THREADS * variant->reps, round, i, n;
	u32 minc = UINT32_MAX, maxc = 0;
	struct member m[SAME_THREADS];
	struct same_ctx c = { .nkeys = variant->nkeys, .reps = variant->reps };
	u64 extra = 0;
	struct kb_filter f;
	struct crew crew;
	u8 key[9];
	int t;

	c.f = &f;
	for (round = 0; round < variant->rounds; round++) {
		ASSERT_EQ(0, kb_filter_init(&f, &variant->s, hkey));
		for (t = 0; t < SAME_THREADS; t++)
			m[t] = (struct member){ .ctx = &c, .id = t,
						.fn = same_writer };
		ASSERT_EQ(0, crew_start(&crew, m, SAME_THREADS, 0));
		ASSERT_EQ(0, crew_join(&crew));
		ASSERT_EQ(0, fill_of(&f).saturated);
		extra += fill_of(&f).nonzero;
		for (i = 0; i < c.nkeys; i++) {
			key_of(key, SET_SAME, i);
			n = kb_filter_count(&f, key, sizeof(key));
			if (variant->exact)
				ASSERT_EQ(adds, n);
			ASSERT_LE(adds, n);
			minc = n < minc ? n : minc;
			maxc = n > maxc ? n : maxc;
		}
		for (i = 0; variant->exact && i < c.nkeys; i++) {
			key_of(key, SET_SAME, i);
			for (n = 0; n < adds; n++)
				ASSERT_EQ(0, kb_filter_del(&f, key,
							   sizeof(key)));
			ASSERT_EQ(-ENOENT, kb_filter_del(&f, key, sizeof(key)));
		}
		for (i = 0; variant->exact && i < f.nwords; i++)
			ASSERT_EQ(0, f.mem[i]);
		kb_filter_free(&f);
	}
	kb_diag("%u rounds, %u keys x %u adds: counts %u..%u, %llu cells non-zero",
		variant->rounds, c.nkeys, adds, minc, maxc,
		(unsigned long long)extra);
	KB_ASSERT_NO_LEAKS();
}

/* ---- the same records from every thread at once */

#define REC_THREADS	4

/*
 * Record of flow @i as thread @t puts it (FIRST: which thread's it is): a
 * masqueraded UDP flow 10.0.x.y:(1024 + i) -> 198.19.0.1:9 leaving as
 * 192.0.2.1:(20000 + i).
 */
static struct kbloom_xlate rec_nr(u32 i, u32 t)
{
	struct kbloom_xlate r = {
		.kind = KBLOOM_XLATE_SNAT, .proto = 17, .family = 4,
		.before_src = htonl(0x0a000000 | (i & 0xffff)),
		.before_dst = htonl(0xc6130001),
		.after_src = htonl(0xc0000201), .after_dst = htonl(0xc6130001),
		.before_sport = htons((u16)(1024 + i)), .before_dport = htons(9),
		.after_sport = htons((u16)(20000 + i)), .after_dport = htons(9),
		.first = t,
	};

	return r;
}

struct rec_ctx {
	struct kb_filter *f;
	u32 nflows;
	u64 n[REC_THREADS][3];	/* per thread: NEW, KNOWN, FULL */
};

static void rec_putter(struct member *m)
{
	struct rec_ctx *c = m->ctx;
	const u32 *order = m->arg;
	u32 i;

	for (i = 0; i < c->nflows; i++) {
		struct kbloom_xlate r = rec_nr(order[i], m->id);

		c->n[m->id][kb_xlate_put(c->f, &r)]++;
	}
}

FIXTURE(same_records) {};
FIXTURE_SETUP(same_records) {}
FIXTURE_TEARDOWN(same_records) {}

/*
 * Four threads put the same @nflows records (FIRST aside) into a table of
 * @m cells, each in its own order: one in order, one backwards, two
 * shuffled differently. Every put is NEW or KNOWN, never FULL; every
 * flow is recorded once, or once per thread that found no VALID copy
 * while another thread was still writing its own: at most one copy per
 * thread; and every NEW is one valid cell, and nothing else is.
 */
FIXTURE_VARIANT(same_records) {
	struct kb_shape s;
	u32 nflows;
};

/* 1000 records (a few more when threads race) fill an eighth of 8192
 * cells, far from a full run of 16 cells.
 */
FIXTURE_VARIANT_ADD(same_records, transforms) {
	.s = { .type = KBLOOM_TYPE_TRANSFORMS, .m = 8192, .k = 1 },
	.nflows = 1000,
};

TEST_F(same_records, recorded_once_per_thread_at_most)
{
	u64 news = 0, knowns = 0, fulls = 0, copies = 0, dups = 0;
	struct kbloom_xlate out[REC_THREADS + 1], want;
	u32 n_fl = variant->nflows, t, i, j, n, tmp;
	struct member m[REC_THREADS];
	u32 *order[REC_THREADS];
	struct rec_ctx *c;
	struct kb_filter f;
	struct crew crew;
	struct kb_rng r;

	c = calloc(1, sizeof(*c));
	ASSERT_NE(NULL, c);
	c->f = &f;
	c->nflows = n_fl;
	ASSERT_EQ(0, kb_filter_init(&f, &variant->s, hkey));
	for (t = 0; t < REC_THREADS; t++) {
		order[t] = malloc(n_fl * sizeof(u32));
		ASSERT_NE(NULL, order[t]);
		for (i = 0; i < n_fl; i++)
			order[t][i] = t == 1 ? n_fl - 1 - i : i;
		if (t >= 2) {
			kb_rng_seed(&r, t);
			for (i = n_fl - 1; i > 0; i--) {
				j = kb_rng_below(&r, i + 1);
				tmp = order[t][i];
				order[t][i] = order[t][j];
				order[t][j] = tmp;
			}
		}
		m[t] = (struct member){ .ctx = c, .arg = order[t], .id = t,
					.fn = rec_putter };
	}
	ASSERT_EQ(0, crew_start(&crew, m, REC_THREADS, 0));
	ASSERT_EQ(0, crew_join(&crew));
	for (t = 0; t < REC_THREADS; t++) {
		news += c->n[t][KB_XLATE_NEW];
		knowns += c->n[t][KB_XLATE_KNOWN];
		fulls += c->n[t][KB_XLATE_FULL];
	}
	ASSERT_EQ(0, fulls);
	ASSERT_EQ(REC_THREADS * n_fl, news + knowns);
	ASSERT_LE(n_fl, news);
	ASSERT_EQ(news, fill_of(&f).nonzero);
	for (i = 0; i < n_fl; i++) {
		want = rec_nr(i, 0);
		n = kb_xlate_find((const struct kbloom_xlate *)f.mem, f.s.m,
				  &f.hkey, &want, out, REC_THREADS + 1);
		EXPECT_LE(1, n);
		EXPECT_GE(REC_THREADS, n) {
			TH_LOG("flow %u recorded %u times", i, n);
		}
		copies += n;
		dups += n > 1;
		for (j = 0; j < n && j < REC_THREADS; j++) {
			/* Thread FIRST's record, every field, VALID. */
			EXPECT_GT(REC_THREADS, out[j].first);
			want = rec_nr(i, out[j].first);
			want.state = KBLOOM_XLATE_VALID;
			EXPECT_EQ(0, memcmp(&out[j], &want, sizeof(want)));
		}
	}
	ASSERT_EQ(news, copies);
	kb_diag("%llu NEW of %u puts; %llu flows recorded more than once",
		(unsigned long long)news, REC_THREADS * n_fl,
		(unsigned long long)dups);
	for (t = 0; t < REC_THREADS; t++)
		free(order[t]);
	kb_filter_free(&f);
	free(c);
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
