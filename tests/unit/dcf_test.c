// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The dynamic count filter engine (kmod/engine/dcf.c) on the host: shape
 * checks; every cell equal, exactly, to a plain counting filter of wide
 * (64-bit) counters on the same probes, through a skewed stream of adds
 * that widens the overflow vector 1 -> 2 -> ... bits, then through
 * deletes that borrow back; key counts = the reference's minimum; a
 * widening that does not come in time drops increments (LOST: DEL
 * refused, counts low but never 0 for an added key) until clear; the
 * memory beside a counting filter of 16-bit counters; and presence equal
 * to a bloom filter's with the same probes, key by key. Adders and a
 * deleter on several threads racing carries and borrows are in
 * concurrency_contract_test.c.
 */
#include <errno.h>
#include <math.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/uapi/kbloom.h"

static const u8 hkey[16] = { 'd', 'c', 'f', '-', 't', 'e', 's', 't',
			     0, 1, 2, 3, 4, 5, 6, 7 };

static struct kb_shape dshape(u64 m, u32 k, u32 x)
{
	struct kb_shape s = { .type = KBLOOM_TYPE_DCF, .m = m, .k = k,
			      .cell_bits = x };

	return s;
}

static void key_of(u8 key[9], u8 set, u64 i)
{
	key[0] = set;
	kb_put_le64(key + 1, i);
}

/* The kick widens at once (a host may allocate anywhere). */
static void widen_now(void *arg)
{
	struct kb_filter *f = arg;
	u64 bytes;

	if (kb_dcf_next(f, &bytes) || kb_dcf_widen(f))
		kb_dcf_fail(f, KBLOOM_GROW_NOMEM);
	kb_dcf_retire(f);
}

/* The reference: wide counters on the ABI's probe positions. */
struct ref {
	u64 *cell;
	u64 m;
	u32 k;
};

static void ref_pos(const struct kb_filter *f, const u8 *key, u64 *pos)
{
	u64 h1 = siphash(key, 9, &f->hkey);
	u32 i;

	for (i = 0; i < f->s.k; i++)
		pos[i] = kb_ref_probe(h1, kb_ref_mix64(h1), f->s.m, i);
}

static void ref_add(struct ref *r, const struct kb_filter *f, const u8 *key,
		    int d)
{
	u64 pos[KBLOOM_HASHES_MAX];
	u32 i;

	ref_pos(f, key, pos);
	for (i = 0; i < r->k; i++)
		r->cell[pos[i]] += d;
}

static u64 ref_count(const struct ref *r, const struct kb_filter *f,
		     const u8 *key)
{
	u64 pos[KBLOOM_HASHES_MAX], min = UINT64_MAX;
	u32 i;

	ref_pos(f, key, pos);
	for (i = 0; i < r->k; i++)
		if (r->cell[pos[i]] < min)
			min = r->cell[pos[i]];
	return min;
}

/* Every cell exactly; returns the largest. */
static u64 cells_equal(struct __test_metadata *_metadata,
		       const struct kb_filter *f, const struct ref *r)
{
	u64 i, max = 0;

	for (i = 0; i < r->m; i++) {
		ASSERT_EQ(r->cell[i], kb_dcf_cell(f, i)) {
			TH_LOG("cell %llu", (unsigned long long)i);
		}
		if (r->cell[i] > max)
			max = r->cell[i];
	}
	return max;
}

/* Bits the OFV needs for @max in cells of x bits: a power of two. */
static u32 ofv_needed(u64 max, u32 x)
{
	u64 o = max >> x;
	u32 b = 1;

	while (b < 32 && o >= 1ULL << (b - 1))
		b *= 2;
	return b;
}

TEST(shape_refusals)
{
	static const u32 bad_x[] = { 0, 1, 3, 5, 16, 32 };
	struct kb_filter f;
	struct kb_shape s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad_x); i++) {
		s = dshape(1024, 3, bad_x[i]);
		EXPECT_EQ(KB_SHAPE_BAD_COUNTER_BITS, kb_filter_check_shape(&s));
		EXPECT_EQ(-EINVAL, kb_filter_init(&f, &s, hkey));
	}
	s = dshape(1024, 3, 4);
	s.update = 1;
	EXPECT_EQ(KB_SHAPE_EXTRA_PARAM, kb_filter_check_shape(&s));
	s.update = 0;
	s.growth = 2;
	EXPECT_EQ(KB_SHAPE_EXTRA_PARAM, kb_filter_check_shape(&s));
	s.growth = 0;
	EXPECT_EQ(KB_SHAPE_OK, kb_filter_check_shape(&s));
	/* CBFV of m * x bits and a 1-bit OFV, in whole longs each. */
	EXPECT_EQ(1024 * 4 / 8 + 1024 / 8, kb_filter_mem_for(&s));
	s = dshape(65, 1, 2);
	EXPECT_EQ(24 + 16, kb_filter_mem_for(&s));
	ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
	EXPECT_TRUE(kb_filter_can_delete(&f));
	EXPECT_TRUE(kb_filter_can_count(&f));
	EXPECT_EQ(1, kb_dcf_ofv_bits(&f));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/*
 * A skewed stream: key i added (i % 97 == 0 ? 3000 : 1 + i % 5) times,
 * so hot cells need a wide OFV. Cells equal the reference's after the
 * adds and after deleting half of every key's adds again; the OFV ends
 * exactly as wide as the largest count needed (widening on demand).
 */
TEST(exact_against_wide_counters)
{
	static const u32 xs[] = { 2, 4, 8 };
	const u64 m = 20000, nkeys = 3000;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(xs); c++) {
		struct kb_shape s = dshape(m, 4, xs[c]);
		struct ref r = { .m = m, .k = 4 };
		struct kb_filter f, cnt16;
		struct kb_shape cs = { .type = KBLOOM_TYPE_COUNTING, .m = m,
				       .k = 4, .cell_bits = 16 };
		u64 i, n, max, adds = 0;
		u8 key[9];

		r.cell = calloc(m, sizeof(*r.cell));
		ASSERT_NE(NULL, r.cell);
		ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
		ASSERT_EQ(0, kb_filter_init(&cnt16, &cs, hkey));
		kb_dcf_set_kick(&f, widen_now, &f);
		for (i = 0; i < nkeys; i++) {
			u64 times = i % 97 == 0 ? 3000 : 1 + i % 5;

			key_of(key, 1, i);
			for (n = 0; n < times; n++) {
				kb_filter_add(&f, key, sizeof(key));
				kb_filter_add(&cnt16, key, sizeof(key));
				ref_add(&r, &f, key, 1);
			}
			adds += times;
		}
		max = cells_equal(_metadata, &f, &r);
		EXPECT_EQ(0, kb_dcf_lost(&f));
		EXPECT_EQ(ofv_needed(max, xs[c]), kb_dcf_ofv_bits(&f));
		for (i = 0; i < nkeys; i++) {
			key_of(key, 1, i);
			ASSERT_EQ(ref_count(&r, &f, key),
				  kb_filter_count(&f, key, sizeof(key)));
			/* Below 16-bit saturation, counting16 agrees too. */
			ASSERT_EQ(kb_filter_count(&cnt16, key, sizeof(key)),
				  kb_filter_count(&f, key, sizeof(key)));
		}
		kb_diag("x=%u: %llu adds of %llu keys, largest cell %llu: OFV widened to %u bits; memory %llu bytes, counting counter-bits 16 %llu bytes",
			xs[c], (unsigned long long)adds,
			(unsigned long long)nkeys, (unsigned long long)max,
			kb_dcf_ofv_bits(&f),
			(unsigned long long)kb_filter_mem(&f),
			(unsigned long long)kb_filter_mem(&cnt16));
		/* Deletes borrow back from the OFV, exactly. */
		for (i = 0; i < nkeys; i++) {
			u64 times = (i % 97 == 0 ? 3000 : 1 + i % 5) / 2;

			key_of(key, 1, i);
			for (n = 0; n < times; n++) {
				ASSERT_EQ(0, kb_filter_del(&f, key, sizeof(key)));
				ref_add(&r, &f, key, -1);
			}
		}
		cells_equal(_metadata, &f, &r);
		for (i = 0; i < nkeys; i++) {
			key_of(key, 1, i);
			ASSERT_EQ(ref_count(&r, &f, key),
				  kb_filter_count(&f, key, sizeof(key)));
			ASSERT_TRUE(kb_filter_test(&f, key, sizeof(key)));
		}
		/* An absent key is refused, and changes nothing. */
		key_of(key, 2, 12345);
		if (!kb_filter_test(&f, key, sizeof(key)))
			EXPECT_EQ(-ENOENT, kb_filter_del(&f, key, sizeof(key)));
		cells_equal(_metadata, &f, &r);
		kb_filter_free(&f);
		kb_filter_free(&cnt16);
		free(r.cell);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * No widening in time: a carry into a full OFV counter is dropped and
 * counted; counts are then low, never 0 for an added key; DEL is refused;
 * clear makes the filter exact again.
 */
TEST(lost_when_widening_is_late)
{
	struct kb_shape s = dshape(1024, 1, 2);
	struct kb_filter f;
	struct kb_fill fl;
	u8 key[9];
	u32 n;

	ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
	key_of(key, 3, 1);
	/* x = 2, OFV 1 bit: a cell holds up to 1 * 4 + 3 = 7. */
	for (n = 0; n < 7; n++)
		kb_filter_add(&f, key, sizeof(key));
	EXPECT_EQ(7, kb_filter_count(&f, key, sizeof(key)));
	EXPECT_TRUE(kb_dcf_wants_widen(&f));
	EXPECT_EQ(0, kb_dcf_lost(&f));
	/* Each further add needs a carry the OFV cannot take: dropped. */
	for (n = 0; n < 10; n++)
		kb_filter_add(&f, key, sizeof(key));
	EXPECT_EQ(10, kb_dcf_lost(&f));
	EXPECT_EQ(7, kb_filter_count(&f, key, sizeof(key)));
	EXPECT_FALSE(kb_filter_can_delete(&f));
	EXPECT_EQ(-EOPNOTSUPP, kb_filter_del(&f, key, sizeof(key)));
	EXPECT_TRUE(kb_filter_test(&f, key, sizeof(key)));
	kb_filter_fill(&f, &fl);
	EXPECT_EQ(1, fl.nonzero);
	/* Widened late: the rest is exact again, the loss stays counted. */
	widen_now(&f);
	EXPECT_EQ(2, kb_dcf_ofv_bits(&f));
	for (n = 0; n < 4; n++)
		kb_filter_add(&f, key, sizeof(key));
	EXPECT_EQ(7 + 4, kb_filter_count(&f, key, sizeof(key)));
	EXPECT_EQ(10, kb_dcf_lost(&f));
	kb_filter_clear(&f);
	EXPECT_EQ(0, kb_dcf_lost(&f));
	EXPECT_TRUE(kb_filter_can_delete(&f));
	EXPECT_EQ(0, kb_filter_count(&f, key, sizeof(key)));
	/* Growth stopped: no more kicks, no more widening wanted. */
	kb_dcf_fail(&f, KBLOOM_GROW_MEMORY_LIMIT);
	EXPECT_FALSE(kb_dcf_wants_widen(&f));
	EXPECT_EQ(KBLOOM_GROW_MEMORY_LIMIT, kb_dcf_grow_error(&f));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Memory on a stream of small counts with a few larger ones (flows:
 * most a few packets, one in seven 25 more): exact, with the OFV as wide
 * as the largest cell needs and no wider, in (4 + y)/16 of the bytes of
 * a counting filter of 16-bit counters.
 */
TEST(memory_beside_counting16)
{
	const u64 m = 1 << 20, nkeys = 100000;
	struct kb_shape s = dshape(m, 4, 4);
	struct kb_shape cs = { .type = KBLOOM_TYPE_COUNTING, .m = m, .k = 4,
			       .cell_bits = 16 };
	struct kb_filter f, c16;
	u64 i, n, adds = 0, max = 0;
	u8 key[9];

	ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
	ASSERT_EQ(0, kb_filter_init(&c16, &cs, hkey));
	kb_dcf_set_kick(&f, widen_now, &f);
	for (i = 0; i < nkeys; i++) {
		u64 times = 1 + i % 3 + (i % 7 == 0 ? 25 : 0);

		key_of(key, 30, i);
		for (n = 0; n < times; n++) {
			kb_filter_add(&f, key, sizeof(key));
			kb_filter_add(&c16, key, sizeof(key));
		}
		adds += times;
	}
	for (i = 0; i < m; i++) {
		u64 v = kb_dcf_cell(&f, i);

		if (v > max)
			max = v;
	}
	for (i = 0; i < nkeys; i++) {
		key_of(key, 30, i);
		ASSERT_EQ(kb_filter_count(&c16, key, sizeof(key)),
			  kb_filter_count(&f, key, sizeof(key)));
	}
	kb_diag("m=%llu k=4 x=4: %llu keys, %llu adds, largest cell %llu: OFV %u bits, dcf %llu bytes vs counting counter-bits 16 %llu bytes (%.2f)",
		(unsigned long long)m, (unsigned long long)nkeys,
		(unsigned long long)adds, (unsigned long long)max,
		kb_dcf_ofv_bits(&f), (unsigned long long)kb_filter_mem(&f),
		(unsigned long long)kb_filter_mem(&c16),
		(double)kb_filter_mem(&f) / kb_filter_mem(&c16));
	EXPECT_EQ(0, kb_dcf_lost(&f));
	EXPECT_EQ(ofv_needed(max, 4), kb_dcf_ofv_bits(&f));
	EXPECT_EQ(kb_filter_mem(&c16) * (4 + kb_dcf_ofv_bits(&f)) / 16,
		  kb_filter_mem(&f));
	EXPECT_GT(kb_filter_mem(&c16), kb_filter_mem(&f));
	kb_filter_free(&f);
	kb_filter_free(&c16);
	KB_ASSERT_NO_LEAKS();
}

/* Presence: the probes are bloom's, so tests agree key for key. */
TEST(presence_is_bloom)
{
	struct kb_shape s = dshape(80000, 5, 4);
	struct kb_shape bs = { .type = KBLOOM_TYPE_BLOOM, .m = 80000, .k = 5 };
	struct kb_filter f, b;
	u64 i, pos = 0;
	u8 key[9];

	ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
	ASSERT_EQ(0, kb_filter_init(&b, &bs, hkey));
	kb_dcf_set_kick(&f, widen_now, &f);
	for (i = 0; i < 10000; i++) {
		key_of(key, 20, i % 7000);
		kb_filter_add(&f, key, sizeof(key));
		kb_filter_add(&b, key, sizeof(key));
	}
	for (i = 0; i < 200000; i++) {
		bool p;

		key_of(key, 21, i);
		p = kb_filter_test(&f, key, sizeof(key));
		ASSERT_EQ(kb_filter_test(&b, key, sizeof(key)), p);
		ASSERT_EQ(p, kb_filter_count(&f, key, sizeof(key)) > 0);
		pos += p;
	}
	kb_diag("7000 keys in m=80000 k=5: %llu of 200000 absent keys positive, as bloom's",
		(unsigned long long)pos);
	kb_filter_free(&f);
	kb_filter_free(&b);
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
