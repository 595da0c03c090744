// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The estimates bloomctl prints, on real filters of the engine (not on
 * synthetic fills): n* = -(m/k) ln(1 - X/m) (Swamidass and Baldi, 2007) is
 * within 2% of the
 * true number of keys at fills from 10% to 80%, for bloom, partitioned and
 * counting; union and intersection of two same-key filters within 5%.
 */
#include <math.h>

#include "kselftest_harness.h"
#include "kb_test.h"

#include "cardinality.h"
#include "engine/filter.h"

static const u8 hk[16] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3 };

#define M	(1 << 20)
#define K	5

static void add_range(struct kb_filter *f, u64 from, u64 to)
{
	u64 i, key;

	for (i = from; i < to; i++) {
		key = i * 0x9e3779b97f4a7c15ULL + 1;
		kb_filter_add(f, &key, sizeof(key));
	}
}

static u64 fill(const struct kb_filter *f)
{
	struct kb_fill fl;

	kb_filter_fill(f, &fl);
	return fl.nonzero;
}

TEST(cardinality_within_2_percent_at_fills_10_to_80)
{
	static const u32 types[] = { KBLOOM_TYPE_BLOOM, KBLOOM_TYPE_PARTITIONED,
				     KBLOOM_TYPE_COUNTING };
	size_t t;
	int pct;

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		struct kb_shape s = { .type = types[t], .m = M, .k = K };
		struct kb_shape p = { .type = types[t], .m = M, .k = K };
		struct kb_filter f;
		u64 n = 0;

		if (types[t] == KBLOOM_TYPE_PARTITIONED)
			s.m = p.m = M - M % K;
		if (types[t] == KBLOOM_TYPE_COUNTING)
			s.cell_bits = p.cell_bits = 4;
		ASSERT_EQ(0, kb_filter_init(&f, &s, hk));
		for (pct = 10; pct <= 80; pct += 10) {
			/* Keys that bring the expected fill to pct%. */
			u64 target = (u64)(-(double)s.m / K * log(1 - pct / 100.0));
			double est;

			add_range(&f, n, target);
			n = target;
			est = card_keys(&p, fill(&f));
			kb_diag("type %u fill %d%%: %llu keys, estimate %.1f (%+.2f%%)",
				types[t], pct, (unsigned long long)n, est,
				100 * (est - n) / n);
			EXPECT_GT(0.02, fabs(est - n) / n);
		}
		kb_filter_free(&f);
	}
}

TEST(union_and_intersection_within_5_percent)
{
	struct kb_shape s = { .type = KBLOOM_TYPE_BLOOM, .m = M, .k = K };
	struct kb_shape p = { .type = KBLOOM_TYPE_BLOOM, .m = M, .k = K };
	struct kb_filter a, b;
	struct card_sets cs;
	u64 u;

	ASSERT_EQ(0, kb_filter_init(&a, &s, hk));
	ASSERT_EQ(0, kb_filter_init(&b, &s, hk));
	/* A: 0..60000, B: 40000..100000: union 100000, intersection 20000. */
	add_range(&a, 0, 60000);
	add_range(&b, 40000, 100000);
	ASSERT_EQ(0, kb_filter_union_fill(&a, &b, &u));
	card_sets(&p, fill(&a), fill(&b), u, &cs);
	kb_diag("union %.0f (100000), intersection %.0f (20000)", cs.uni,
		cs.inter);
	EXPECT_GT(0.05, fabs(cs.uni - 100000) / 100000);
	EXPECT_GT(0.05, fabs(cs.inter - 20000) / 20000);
	kb_filter_free(&a);
	kb_filter_free(&b);
}

TEST_HARNESS_MAIN
