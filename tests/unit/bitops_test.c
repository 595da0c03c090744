// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What the bit-array types (bloom, partitioned, blocked) share, run once
 * per type: parameter refusals, no false negatives, add's "fresh" answer,
 * fill counts, clear, merges (OR, AND) and union fill counts (kmod/engine/
 * bits.c) and their refusals. Positions and shapes of each type are in
 * its own test; concurrent adds, and OR merges racing adds, in
 * concurrency_contract_test.c.
 */
#include <errno.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/uapi/kbloom.h"

static const u8 key_a[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};
static const u8 key_b[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x8f,	/* one bit apart */
};

/* m rounded up to what the type needs (a multiple of k, or of 512). */
static u64 fit_m(u32 type, u64 m, u32 k)
{
	u64 q = type == KBLOOM_TYPE_PARTITIONED ? k :
		type == KBLOOM_TYPE_BLOCKED ? 512 : 1;

	return (m + q - 1) / q * q;
}

static struct kb_shape shape(u32 type, u64 m, u32 k)
{
	struct kb_shape s = { .type = type, .m = fit_m(type, m, k), .k = k };

	return s;
}

static int finit(struct kb_filter *f, u32 type, u64 m, u32 k,
		 const u8 hkey[16])
{
	struct kb_shape s = shape(type, m, k);

	return kb_filter_init(f, &s, hkey);
}

static u64 fill_of(const struct kb_filter *f)
{
	struct kb_fill out;

	kb_filter_fill(f, &out);
	return out.nonzero;
}

static u64 popcount_words(const struct kb_filter *f)
{
	u64 w, n = 0;

	for (w = 0; w < f->nwords; w++)
		n += __builtin_popcountl(f->mem[w]);
	return n;
}

/* Adds keys [lo, hi) of @ks. */
static void add_range(struct kb_filter *f, const struct keyset *ks,
		      size_t lo, size_t hi)
{
	size_t i, len;

	for (i = lo; i < hi; i++) {
		const u8 *key = keyset_key(ks, i, &len);

		kb_filter_add(f, key, len);
	}
}

FIXTURE(bits) {};
FIXTURE_SETUP(bits) {}
FIXTURE_TEARDOWN(bits) {}

FIXTURE_VARIANT(bits) {
	u32 type;
};

FIXTURE_VARIANT_ADD(bits, bloom) {
	.type = KBLOOM_TYPE_BLOOM,
};
FIXTURE_VARIANT_ADD(bits, partitioned) {
	.type = KBLOOM_TYPE_PARTITIONED,
};
FIXTURE_VARIANT_ADD(bits, blocked) {
	.type = KBLOOM_TYPE_BLOCKED,
};

/*
 * Bit types take no parameter but the cell width, which may be given as 0
 * or 1 and means the same filter.
 */
TEST_F(bits, parameters)
{
	static const u32 widths[] = { 2, 4, 8, 16, 32, UINT32_MAX };
	struct kb_filter f0, f1, g;
	struct kb_shape s;
	struct kb_fill fl;
	size_t i;
	int p;

	for (p = 0; p < 6; p++) {
		s = shape(variant->type, 4096, 4);
		switch (p) {
		case 0:
			s.update = KBLOOM_UPDATE_CONSERVATIVE;
			break;
		case 1:
			s.decrement = 1;
			break;
		case 2:
			s.subtables = 2;
			break;
		case 3:
			s.bucket_cells = 4;
			break;
		case 4:
			s.fp_bits = 8;
			break;
		default:
			s.dims = 1;
			break;
		}
		EXPECT_EQ(KB_SHAPE_EXTRA_PARAM, kb_filter_check_shape(&s)) {
			TH_LOG("parameter %d", p);
		}
		EXPECT_EQ(-EINVAL, kb_filter_init(&g, &s, key_a));
	}
	for (i = 0; i < ARRAY_SIZE(widths); i++) {
		s = shape(variant->type, 4096, 4);
		s.cell_bits = widths[i];
		EXPECT_EQ(KB_SHAPE_EXTRA_PARAM, kb_filter_check_shape(&s));
		EXPECT_EQ(-EINVAL, kb_filter_init(&g, &s, key_a));
	}
	s = shape(variant->type, 4096, 4);
	ASSERT_EQ(0, kb_filter_init(&f0, &s, key_a));
	s.cell_bits = 1;
	ASSERT_EQ(0, kb_filter_init(&f1, &s, key_a));
	EXPECT_EQ(kb_filter_mem(&f0), kb_filter_mem(&f1));
	EXPECT_EQ(512, kb_filter_mem(&f0));
	EXPECT_FALSE(kb_filter_can_delete(&f0));
	EXPECT_FALSE(kb_filter_is_multi(&f0));
	for (i = 0; i < 300; i++) {
		kb_filter_add(&f0, &i, sizeof(i));
		kb_filter_add(&f1, &i, sizeof(i));
	}
	EXPECT_EQ(0, memcmp(f0.mem, f1.mem, kb_filter_mem(&f0)));
	kb_filter_fill(&f0, &fl);
	EXPECT_EQ(popcount_words(&f0), fl.nonzero);
	EXPECT_EQ(0, fl.saturated);	/* bits never saturate */
	/* No deletion; count is 0/1. */
	EXPECT_EQ(-EOPNOTSUPP, kb_filter_del(&f0, &i, sizeof(i)));
	i = 7;
	EXPECT_EQ(1, kb_filter_count(&f0, &i, sizeof(i)));
	kb_filter_free(&f0);
	kb_filter_free(&f1);
	KB_ASSERT_NO_LEAKS();
}

/*
 * 100k random keys of 1..64 bytes at 10 bits per key, k = 7: every one
 * tests present after the adds; add reports "fresh" exactly when a test
 * just before would have said absent, and never for a key already added.
 * The pre-hashed entry points do the same.
 */
TEST_F(bits, no_false_negatives)
{
	const size_t n = 100000;
	struct kb_filter f, g;
	struct keyset ks;
	u64 fresh = 0;
	size_t i;

	ASSERT_EQ(0, keyset_make(&ks, n, 12));
	ASSERT_EQ(0, finit(&f, variant->type, 10 * n, 7, key_a));
	ASSERT_EQ(0, finit(&g, variant->type, 10 * n, 7, key_a));
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);
		bool before = kb_filter_test(&f, key, len);
		bool added = kb_filter_add(&f, key, len);
		struct kb_hash h;

		ASSERT_EQ(!before, added);
		fresh += added;
		ASSERT_TRUE(kb_filter_test(&f, key, len));
		kb_hash_key(&g.hkey, key, len, &h);
		ASSERT_EQ(added, kb_filter_add_hash(&g, &h));
		ASSERT_TRUE(kb_filter_test_hash(&g, &h));
		ASSERT_EQ(1, kb_filter_count_hash(&g, &h));
	}
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);

		ASSERT_TRUE(kb_filter_test(&f, key, len));
		ASSERT_FALSE(kb_filter_add(&f, key, len));
	}
	EXPECT_EQ(0, memcmp(f.mem, g.mem, kb_filter_mem(&f)));
	EXPECT_EQ(popcount_words(&f), fill_of(&f));
	/* About 1% of adds find all their bits already set. */
	kb_diag("%llu of %zu adds were fresh, fill %llu of %llu",
		(unsigned long long)fresh, n,
		(unsigned long long)fill_of(&f), (unsigned long long)f.s.m);
	EXPECT_GT(fresh, n * 97 / 100);
	kb_filter_free(&f);
	kb_filter_free(&g);
	keyset_free(&ks);
	KB_ASSERT_NO_LEAKS();
}

/*
 * "Fresh" is about bits, not keys: with k = 1 a key whose only bit another
 * key already set is not fresh although it was never added (and tests
 * present: a false positive), while a key with any new bit is.
 */
TEST_F(bits, fresh_is_about_bits)
{
	struct kb_filter f, probe;
	u64 owner[512];
	u64 i, w;
	bool found = false;

	ASSERT_EQ(0, finit(&f, variant->type, 512, 1, key_a));
	ASSERT_EQ(0, finit(&probe, variant->type, 512, 1, key_a));
	EXPECT_FALSE(kb_filter_test(&f, "", 0));
	EXPECT_TRUE(kb_filter_add(&f, "", 0));
	EXPECT_FALSE(kb_filter_add(&f, "", 0));
	kb_filter_clear(&f);
	/* Find two keys i < j sharing their bit: the birthday bound. */
	for (i = 0; i < 512 && !found; i++) {
		u64 pos = 0;

		kb_filter_clear(&probe);
		EXPECT_TRUE(kb_filter_add(&probe, &i, sizeof(i)));
		EXPECT_EQ(1, popcount_words(&probe));
		for (w = 0; w < probe.nwords; w++)
			if (probe.mem[w])
				pos = w * 64 + __builtin_ctzl(probe.mem[w]);
		owner[i] = pos;
		for (w = 0; w < i; w++) {
			if (owner[w] != pos)
				continue;
			found = true;
			EXPECT_FALSE(kb_filter_test(&f, &i, sizeof(i)));
			EXPECT_TRUE(kb_filter_add(&f, &w, sizeof(w)));
			EXPECT_TRUE(kb_filter_test(&f, &i, sizeof(i)));
			EXPECT_FALSE(kb_filter_add(&f, &i, sizeof(i)));
			EXPECT_EQ(1, fill_of(&f));
			break;
		}
	}
	EXPECT_TRUE(found);
	kb_filter_free(&f);
	kb_filter_free(&probe);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Clear empties the filter (more than one 1 MiB step of it) and keeps
 * shape and hash key: the same adds then give the same bits again.
 */
TEST_F(bits, clear_empties)
{
	const u64 m = 3 * (8ULL << 20) + 12345;
	const size_t n = 200000;
	struct kb_filter f;
	unsigned long *copy;
	struct kb_shape s0;
	struct keyset ks;
	u64 fill;
	size_t i;

	ASSERT_EQ(0, keyset_make(&ks, n, 13));
	ASSERT_EQ(0, finit(&f, variant->type, m, 4, key_a));
	s0 = f.s;
	add_range(&f, &ks, 0, n);
	fill = fill_of(&f);
	EXPECT_EQ(popcount_words(&f), fill);
	EXPECT_GT(fill, n * 4 * 9 / 10);
	copy = malloc(kb_filter_mem(&f));
	ASSERT_NE(NULL, copy);
	memcpy(copy, f.mem, kb_filter_mem(&f));

	kb_filter_clear(&f);
	EXPECT_EQ(0, fill_of(&f));
	EXPECT_EQ(0, popcount_words(&f));
	EXPECT_EQ(0, memcmp(&s0, &f.s, sizeof(s0)));
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);

		ASSERT_FALSE(kb_filter_test(&f, key, len));
	}
	add_range(&f, &ks, 0, n);
	EXPECT_EQ(fill, fill_of(&f));
	EXPECT_EQ(0, memcmp(copy, f.mem, kb_filter_mem(&f)));
	free(copy);
	kb_filter_free(&f);
	keyset_free(&ks);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Merges and union counts against word-by-word references: A holds keys
 * [0, 30000), B keys [20000, 50000). OR equals the filter of both sets;
 * AND keeps every key of the intersection; union_fill is the popcount of
 * A | B, whichever order, and of A with itself its fill.
 */
TEST_F(bits, merge_and_union)
{
	const u64 m = 400000;
	const u32 k = 5;
	struct kb_filter a, b, both, x;
	unsigned long *ref_or, *ref_and;
	u64 w, un = 0, u;
	struct keyset ks;
	size_t i, words, len;

	ASSERT_EQ(0, keyset_make(&ks, 50000, 21));
	ASSERT_EQ(0, finit(&a, variant->type, m, k, key_b));
	ASSERT_EQ(0, finit(&b, variant->type, m, k, key_b));
	ASSERT_EQ(0, finit(&both, variant->type, m, k, key_b));
	ASSERT_EQ(0, finit(&x, variant->type, m, k, key_b));
	add_range(&a, &ks, 0, 30000);
	add_range(&b, &ks, 20000, 50000);
	add_range(&both, &ks, 0, 50000);
	words = a.nwords;
	ref_or = malloc(words * sizeof(*ref_or));
	ref_and = malloc(words * sizeof(*ref_and));
	ASSERT_NE(NULL, ref_or);
	ASSERT_NE(NULL, ref_and);
	for (w = 0; w < words; w++) {
		ref_or[w] = a.mem[w] | b.mem[w];
		ref_and[w] = a.mem[w] & b.mem[w];
		un += __builtin_popcountl(ref_or[w]);
	}

	ASSERT_EQ(0, kb_filter_union_fill(&a, &b, &u));
	EXPECT_EQ(un, u);
	ASSERT_EQ(0, kb_filter_union_fill(&b, &a, &u));
	EXPECT_EQ(un, u);
	ASSERT_EQ(0, kb_filter_union_fill(&a, &a, &u));
	EXPECT_EQ(fill_of(&a), u);
	ASSERT_EQ(0, kb_filter_union_fill(&a, &x, &u));
	EXPECT_EQ(fill_of(&a), u);

	/* OR: the union of the bits, the same as adding both sets. */
	memcpy(x.mem, a.mem, words * sizeof(*ref_or));
	ASSERT_EQ(0, kb_filter_merge(&x, &b, KBLOOM_MERGE_OR));
	EXPECT_EQ(0, memcmp(ref_or, x.mem, words * sizeof(*ref_or)));
	EXPECT_EQ(0, memcmp(both.mem, x.mem, words * sizeof(*ref_or)));
	EXPECT_EQ(un, fill_of(&x));
	for (i = 0; i < 50000; i++) {
		const u8 *key = keyset_key(&ks, i, &len);

		ASSERT_TRUE(kb_filter_test(&x, key, len));
	}

	/* AND: the common bits; keys of both sets stay present. */
	memcpy(x.mem, a.mem, words * sizeof(*ref_or));
	ASSERT_EQ(0, kb_filter_merge(&x, &b, KBLOOM_MERGE_AND));
	EXPECT_EQ(0, memcmp(ref_and, x.mem, words * sizeof(*ref_and)));
	for (i = 20000; i < 30000; i++) {
		const u8 *key = keyset_key(&ks, i, &len);

		ASSERT_TRUE(kb_filter_test(&x, key, len));
	}
	kb_diag("fill A %llu, B %llu, A|B %llu, A&B %llu",
		(unsigned long long)fill_of(&a),
		(unsigned long long)fill_of(&b), (unsigned long long)un,
		(unsigned long long)fill_of(&x));
	/* Merging a filter with itself changes nothing. */
	memcpy(ref_or, a.mem, words * sizeof(*ref_or));
	ASSERT_EQ(0, kb_filter_merge(&a, &a, KBLOOM_MERGE_OR));
	ASSERT_EQ(0, kb_filter_merge(&a, &a, KBLOOM_MERGE_AND));
	EXPECT_EQ(0, memcmp(ref_or, a.mem, words * sizeof(*ref_or)));

	free(ref_or);
	free(ref_and);
	kb_filter_free(&a);
	kb_filter_free(&b);
	kb_filter_free(&both);
	kb_filter_free(&x);
	keyset_free(&ks);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Merge and union fill need the same type, shape and hash key: anything
 * else is -EINVAL and changes nothing, as is an unknown merge operation.
 */
TEST_F(bits, merge_refusals)
{
	const u32 other = variant->type == KBLOOM_TYPE_BLOOM ?
			  KBLOOM_TYPE_BLOCKED : KBLOOM_TYPE_BLOOM;
	struct kb_filter dst, src[5];
	unsigned long *copy;
	u64 u = 12345, i;
	int j;

	/* m = 3072 fits every type (a multiple of 512, of k = 4 and 3). */
	ASSERT_EQ(0, finit(&dst, variant->type, 3072, 4, key_a));
	ASSERT_EQ(0, finit(&src[0], variant->type, 3072, 4, key_b));
	ASSERT_EQ(0, finit(&src[1], variant->type, 3072 + 512, 4, key_a));
	ASSERT_EQ(0, finit(&src[2], variant->type, 3072, 3, key_a));
	ASSERT_EQ(0, finit(&src[3], other, 3072, 4, key_a));
	ASSERT_EQ(0, finit(&src[4], variant->type, 3072, 4, key_a));
	for (i = 0; i < 200; i++) {
		kb_filter_add(&dst, &i, sizeof(i));
		for (j = 0; j < 5; j++) {
			u64 v = i + 1000;

			kb_filter_add(&src[j], &v, sizeof(v));
		}
	}
	copy = malloc(kb_filter_mem(&dst));
	ASSERT_NE(NULL, copy);
	memcpy(copy, dst.mem, kb_filter_mem(&dst));
	for (j = 0; j < 4; j++) {
		EXPECT_FALSE(kb_filter_compatible(&dst, &src[j]));
		EXPECT_EQ(-EINVAL, kb_filter_merge(&dst, &src[j],
						   KBLOOM_MERGE_OR)) {
			TH_LOG("source %d", j);
		}
		EXPECT_EQ(-EINVAL, kb_filter_merge(&dst, &src[j],
						   KBLOOM_MERGE_AND));
		EXPECT_EQ(-EINVAL, kb_filter_union_fill(&dst, &src[j], &u));
		EXPECT_EQ(-EINVAL, kb_filter_union_fill(&src[j], &dst, &u));
	}
	EXPECT_TRUE(kb_filter_compatible(&dst, &src[4]));
	EXPECT_EQ(-EINVAL, kb_filter_merge(&dst, &src[4], KBLOOM_MERGE_MAX + 1));
	EXPECT_EQ(-EINVAL, kb_filter_merge(&dst, &src[4], UINT32_MAX));
	EXPECT_EQ(12345, u);
	EXPECT_EQ(0, memcmp(copy, dst.mem, kb_filter_mem(&dst)));
	/* The compatible one merges. */
	EXPECT_EQ(0, kb_filter_merge(&dst, &src[4], KBLOOM_MERGE_OR));
	EXPECT_NE(0, memcmp(copy, dst.mem, kb_filter_mem(&dst)));
	free(copy);
	kb_filter_free(&dst);
	for (j = 0; j < 5; j++)
		kb_filter_free(&src[j]);
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
