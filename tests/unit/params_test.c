// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of the filter types' descriptions and parameter table
 * (userspace/params.c), which create, restore, the GET reply parser and
 * show loop over: each entry reaches the field of struct kb_shape it
 * names, keywords, attributes and JSON keys are each one parameter's,
 * each type takes exactly the parameters the module's CREATE takes for
 * it (docs/design.md, "Filter types"), and each type is named and
 * described once.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../userspace/params.h"

/* The field each entry must name. */
static uint32_t *field_of(struct kb_shape *s, int i)
{
	switch (i) {
	case TO_HASH_FN: return &s->hash_fn;
	case TO_COUNTER_BITS: return &s->cell_bits;
	case TO_UPDATE: return &s->update;
	case TO_DECREMENT: return &s->decrement;
	case TO_SUBTABLES: return &s->subtables;
	case TO_BUCKET_CELLS: return &s->bucket_cells;
	case TO_FP_BITS: return &s->fp_bits;
	case TO_DIMS: return &s->dims;
	case TO_GROWTH: return &s->growth;
	case TO_TIGHTEN: return &s->tighten;
	}
	return NULL;
}

TEST(each_entry_sets_and_gets_its_own_field)
{
	struct kb_shape s, zero;
	int i;

	for (i = 0; i < TO_NUM; i++) {
		memset(&s, 0, sizeof(s));
		memset(&zero, 0, sizeof(zero));
		kb_param_set(&s, i, 0xabc0 + i);
		ASSERT_NE(NULL, field_of(&s, i));
		EXPECT_EQ(0xabc0U + i, *field_of(&s, i));
		EXPECT_EQ(0xabc0U + i, kb_param_get(&s, i));
		/* nothing else changed */
		*field_of(&s, i) = 0;
		EXPECT_EQ(0, memcmp(&s, &zero, sizeof(s)));
	}
}

TEST(keywords_attributes_and_keys_are_each_ones)
{
	int i, n;

	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *a = &kb_param_table[i];

		ASSERT_NE(NULL, a->keyword);
		ASSERT_NE(NULL, a->json);
		ASSERT_NE(NULL, a->text);
		ASSERT_NE(NULL, a->types_text);
		EXPECT_GT(a->attr, 0);
		EXPECT_LE(a->attr, KBLOOM_A_MAX);
		for (n = 0; n < i; n++) {
			const struct kb_param *b = &kb_param_table[n];

			EXPECT_STRNE(a->keyword, b->keyword);
			EXPECT_STRNE(a->json, b->json);
			EXPECT_NE(a->attr, b->attr);
		}
	}
	EXPECT_EQ(KBLOOM_A_COUNTER_BITS, kb_param_table[TO_COUNTER_BITS].attr);
	EXPECT_EQ(KBLOOM_A_DIMS, kb_param_table[TO_DIMS].attr);
	EXPECT_STREQ("fp-bits", kb_param_table[TO_FP_BITS].keyword);
	EXPECT_STREQ("fp_bits", kb_param_table[TO_FP_BITS].json);
	EXPECT_EQ(KB_PARAM_NAMED, kb_param_table[TO_UPDATE].kind);
	EXPECT_EQ(KB_PARAM_NAMED, kb_param_table[TO_HASH_FN].kind);
	EXPECT_EQ(KBLOOM_A_HASH_FN, kb_param_table[TO_HASH_FN].attr);
	EXPECT_STREQ("hash", kb_param_table[TO_HASH_FN].keyword);
	EXPECT_EQ(KB_PARAM_RATIO, kb_param_table[TO_TIGHTEN].kind);
	EXPECT_EQ(KB_PARAM_DIMS, kb_param_table[TO_DIMS].kind);
}

TEST(whole_number_ranges_are_the_modules)
{
	const struct kb_param *t = kb_param_table;

	EXPECT_EQ(1, t[TO_DECREMENT].lo);
	EXPECT_EQ(KBLOOM_DECREMENT_MAX, t[TO_DECREMENT].hi);
	EXPECT_EQ(2, t[TO_SUBTABLES].lo);
	EXPECT_EQ(8, t[TO_SUBTABLES].hi);
	EXPECT_EQ(1, t[TO_BUCKET_CELLS].lo);
	EXPECT_EQ(16, t[TO_BUCKET_CELLS].hi);
	EXPECT_EQ(4, t[TO_FP_BITS].lo);
	EXPECT_EQ(24, t[TO_FP_BITS].hi);
	EXPECT_EQ(KBLOOM_GROWTH_MIN, t[TO_GROWTH].lo);
	EXPECT_EQ(KBLOOM_GROWTH_MAX, t[TO_GROWTH].hi);
	/* checked by typeopts.c itself: no range */
	EXPECT_EQ(0, t[TO_COUNTER_BITS].hi);
	EXPECT_EQ(0, t[TO_UPDATE].hi);
	EXPECT_EQ(0, t[TO_HASH_FN].hi);
	EXPECT_EQ(0, t[TO_DIMS].hi);
	EXPECT_EQ(0, t[TO_TIGHTEN].hi);
}

/* The parameters each type takes, as a bit set of TO_*. */
static uint32_t taken(uint32_t type)
{
	uint32_t set = 0;
	int i;

	for (i = 0; i < TO_NUM; i++)
		if (kb_param_taken(i, type))
			set |= 1U << i;
	return set;
}

#define B(x)	(1U << TO_##x)

TEST(each_type_takes_its_parameters)
{
	/* Every type of keys takes the hash function; transforms none. */
	const uint32_t h = B(HASH_FN);

	EXPECT_EQ(h, taken(KBLOOM_TYPE_BLOOM));
	EXPECT_EQ(h, taken(KBLOOM_TYPE_PARTITIONED));
	EXPECT_EQ(h, taken(KBLOOM_TYPE_BLOCKED));
	EXPECT_EQ(h | B(COUNTER_BITS) | B(UPDATE), taken(KBLOOM_TYPE_COUNTING));
	EXPECT_EQ(h | B(SUBTABLES) | B(BUCKET_CELLS) | B(FP_BITS),
		  taken(KBLOOM_TYPE_DLEFT));
	EXPECT_EQ(h | B(COUNTER_BITS) | B(DECREMENT), taken(KBLOOM_TYPE_STABLE));
	EXPECT_EQ(h | B(DIMS), taken(KBLOOM_TYPE_MULTI));
	EXPECT_EQ(h | B(GROWTH) | B(TIGHTEN), taken(KBLOOM_TYPE_SCALABLE));
	EXPECT_EQ(h | B(COUNTER_BITS), taken(KBLOOM_TYPE_DCF));
	EXPECT_EQ(0, taken(KBLOOM_TYPE_TRANSFORMS));
	/* a type newer than the table, and one past any bit */
	EXPECT_EQ(0, taken(KBLOOM_TYPE_MAX + 1));
	EXPECT_EQ(0, taken(40));
}

/* Names and values of the named parameters, both ways. */
TEST(named_values)
{
	uint32_t v = 99;

	EXPECT_STREQ("siphash-2-4",
		     kb_param_name(TO_HASH_FN, KBLOOM_HASH_FN_SIPHASH24));
	EXPECT_STREQ("siphash-1-3",
		     kb_param_name(TO_HASH_FN, KBLOOM_HASH_FN_SIPHASH13));
	EXPECT_STREQ("unknown", kb_param_name(TO_HASH_FN, KBLOOM_HASH_FN_MAX + 1));
	EXPECT_STREQ("conservative",
		     kb_param_name(TO_UPDATE, KBLOOM_UPDATE_CONSERVATIVE));
	EXPECT_STREQ("unknown", kb_param_name(TO_DIMS, 0));
	EXPECT_EQ(0, kb_param_value(TO_HASH_FN, "siphash-1-3", &v));
	EXPECT_EQ(KBLOOM_HASH_FN_SIPHASH13, v);
	EXPECT_EQ(0, kb_param_value(TO_UPDATE, "plain", &v));
	EXPECT_EQ(KBLOOM_UPDATE_PLAIN, v);
	EXPECT_EQ(-1, kb_param_value(TO_HASH_FN, "siphash", &v));
	EXPECT_EQ(-1, kb_param_value(TO_HASH_FN, "", &v));
	EXPECT_EQ(KBLOOM_UPDATE_PLAIN, v);
	/* Only the hash function is left out of calc and sent only set. */
	EXPECT_TRUE(kb_param_table[TO_HASH_FN].not_sized);
	EXPECT_TRUE(kb_param_table[TO_HASH_FN].zero_absent);
	EXPECT_FALSE(kb_param_table[TO_UPDATE].not_sized);
	EXPECT_FALSE(kb_param_table[TO_UPDATE].zero_absent);
}

TEST(each_type_is_described_once)
{
	const char *const names[] = {
		[KBLOOM_TYPE_BLOOM] = "bloom",
		[KBLOOM_TYPE_PARTITIONED] = "partitioned",
		[KBLOOM_TYPE_BLOCKED] = "blocked",
		[KBLOOM_TYPE_COUNTING] = "counting",
		[KBLOOM_TYPE_DLEFT] = "dleft",
		[KBLOOM_TYPE_STABLE] = "stable",
		[KBLOOM_TYPE_MULTI] = "multi",
		[KBLOOM_TYPE_SCALABLE] = "scalable",
		[KBLOOM_TYPE_DCF] = "dcf",
		[KBLOOM_TYPE_TRANSFORMS] = "transforms",
	};
	uint32_t t, counts = 0, saturates = 0;

	for (t = 0; t <= KBLOOM_TYPE_MAX; t++) {
		const struct kb_type_desc *i = kb_type_desc(t);

		if (!names[t]) {
			EXPECT_EQ(NULL, i);
			continue;
		}
		ASSERT_NE(NULL, i);
		EXPECT_STREQ(names[t], i->name);
		ASSERT_NE(NULL, i->fill_what);
		counts |= i->counts ? 1U << t : 0;
		saturates |= i->saturated ? 1U << t : 0;
	}
	EXPECT_EQ(1U << KBLOOM_TYPE_COUNTING | 1U << KBLOOM_TYPE_DLEFT |
		  1U << KBLOOM_TYPE_DCF, counts);
	EXPECT_EQ(1U << KBLOOM_TYPE_COUNTING | 1U << KBLOOM_TYPE_DLEFT |
		  1U << KBLOOM_TYPE_STABLE, saturates);
	EXPECT_STREQ("cells at maximum",
		     kb_type_desc(KBLOOM_TYPE_STABLE)->saturated);
	EXPECT_STREQ("records", kb_type_desc(KBLOOM_TYPE_TRANSFORMS)->fill_what);
	EXPECT_EQ(NULL, kb_type_desc(KBLOOM_TYPE_MAX + 1));
}

TEST_HARNESS_MAIN
