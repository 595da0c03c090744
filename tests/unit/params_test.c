// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of the filter types' descriptions and of bloomctl's words
 * for the shape's parameters (userspace/params.c), checked against the
 * engine's table of them (kb_params[], kmod/engine/filter.c), which
 * create, restore, the GET reply parser and show loop over: every engine
 * parameter has its words and every row of words is an engine
 * parameter's, each reaches the field of struct kb_shape the engine
 * names, keywords, attributes and JSON keys are each one parameter's,
 * the words naming the types that take it agree with the engine, and
 * each type is named and described once.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../userspace/params.h"

/* One row of words per engine row, and no more. */
_Static_assert(sizeof(kb_param_table) / sizeof(kb_param_table[0]) == KB_P_NUM,
	       "bloomctl's parameter words are not the engine's rows");

TEST(each_entry_sets_and_gets_its_own_field)
{
	struct kb_shape s, zero;
	int i;

	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param_def *e = &kb_params[i];

		memset(&s, 0, sizeof(s));
		memset(&zero, 0, sizeof(zero));
		ASSERT_LE(e->offset + e->width, sizeof(s));
		kb_param_set(&s, i, 0xabc0 + i);
		EXPECT_EQ(0xabc0U + i, kb_param_get(&s, i));
		EXPECT_EQ(0xabc0U + i, kb_shape_get(&s, e));
		/* nothing else changed */
		kb_shape_set(&s, e, 0);
		EXPECT_EQ(0, memcmp(&s, &zero, sizeof(s)));
	}
	EXPECT_EQ(offsetof(struct kb_shape, fp_bits), kb_params[TO_FP_BITS].offset);
	EXPECT_EQ(offsetof(struct kb_shape, cell_bits),
		  kb_params[TO_COUNTER_BITS].offset);
}

TEST(every_engine_parameter_has_words_each_its_own)
{
	int i, n;

	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *a = &kb_param_table[i];

		ASSERT_NE(NULL, a->keyword) {
			TH_LOG("engine parameter %s has no words", kb_params[i].name);
		}
		ASSERT_NE(NULL, a->json);
		ASSERT_NE(NULL, a->text);
		ASSERT_NE(NULL, a->types_text);
		ASSERT_NE(NULL, kb_params[i].name);
		EXPECT_GT(kb_param_attr(i), 0);
		EXPECT_LE(kb_param_attr(i), KBLOOM_A_MAX);
		EXPECT_EQ(kb_params[i].attr, kb_param_attr(i));
		EXPECT_EQ(kb_params[i].nest, a->kind == KB_PARAM_DIMS);
		for (n = 0; n < i; n++) {
			const struct kb_param *b = &kb_param_table[n];

			EXPECT_STRNE(a->keyword, b->keyword);
			EXPECT_STRNE(a->json, b->json);
			EXPECT_NE(kb_param_attr(i), kb_param_attr(n));
		}
	}
	EXPECT_EQ(KBLOOM_A_COUNTER_BITS, kb_param_attr(TO_COUNTER_BITS));
	EXPECT_EQ(KBLOOM_A_DIMS, kb_param_attr(TO_DIMS));
	EXPECT_STREQ("fp-bits", kb_param_table[TO_FP_BITS].keyword);
	EXPECT_STREQ("fp_bits", kb_param_table[TO_FP_BITS].json);
	EXPECT_EQ(KB_PARAM_NAMED, kb_param_table[TO_UPDATE].kind);
	EXPECT_EQ(KB_PARAM_NAMED, kb_param_table[TO_HASH_FN].kind);
	EXPECT_EQ(KBLOOM_A_HASH_FN, kb_param_attr(TO_HASH_FN));
	EXPECT_STREQ("hash", kb_param_table[TO_HASH_FN].keyword);
	EXPECT_EQ(KB_PARAM_RATIO, kb_param_table[TO_TIGHTEN].kind);
	EXPECT_EQ(KB_PARAM_DIMS, kb_param_table[TO_DIMS].kind);
}

TEST(whole_number_ranges_are_the_engines)
{
	uint32_t lo, hi;
	int i;

	for (i = 0; i < TO_NUM; i++) {
		if (!kb_param_bounds(i, &lo, &hi))
			continue;
		EXPECT_EQ(kb_params[i].min, lo);
		EXPECT_EQ(kb_params[i].max, hi);
	}
	ASSERT_TRUE(kb_param_bounds(TO_DECREMENT, &lo, &hi));
	EXPECT_EQ(1, lo);
	EXPECT_EQ(KBLOOM_DECREMENT_MAX, hi);
	ASSERT_TRUE(kb_param_bounds(TO_SUBTABLES, &lo, &hi));
	EXPECT_EQ(2, lo);
	EXPECT_EQ(8, hi);
	ASSERT_TRUE(kb_param_bounds(TO_BUCKET_CELLS, &lo, &hi));
	EXPECT_EQ(1, lo);
	EXPECT_EQ(16, hi);
	ASSERT_TRUE(kb_param_bounds(TO_FP_BITS, &lo, &hi));
	EXPECT_EQ(4, lo);
	EXPECT_EQ(24, hi);
	ASSERT_TRUE(kb_param_bounds(TO_GROWTH, &lo, &hi));
	EXPECT_EQ(KBLOOM_GROWTH_MIN, lo);
	EXPECT_EQ(KBLOOM_GROWTH_MAX, hi);
	/* checked by typeopts.c itself: no range */
	EXPECT_FALSE(kb_param_bounds(TO_COUNTER_BITS, &lo, &hi));
	EXPECT_FALSE(kb_param_bounds(TO_UPDATE, &lo, &hi));
	EXPECT_FALSE(kb_param_bounds(TO_HASH_FN, &lo, &hi));
	EXPECT_FALSE(kb_param_bounds(TO_DIMS, &lo, &hi));
	EXPECT_FALSE(kb_param_bounds(TO_TIGHTEN, &lo, &hi));
}

/*
 * The words that name the types taking a parameter ("counting, stable
 * and dcf filters") name exactly the types the engine says take it.
 */
TEST(types_named_are_the_engines)
{
	uint32_t t;
	int i;

	for (i = 0; i < TO_NUM; i++) {
		const char *words = kb_param_table[i].types_text;
		bool any = false;

		for (t = 0; t <= KBLOOM_TYPE_MAX; t++) {
			const struct kb_type_desc *d = kb_type_desc(t);

			if (!d)
				continue;
			any |= kb_param_taken(i, t);
			if (i == TO_HASH_FN) {
				/* "filters of keys, not transforms" */
				EXPECT_EQ(!(kb_type_info(t)->caps & KB_CAP_RECORDS),
					  kb_param_taken(i, t));
				continue;
			}
			EXPECT_EQ(kb_param_taken(i, t),
				  strstr(words, d->name) != NULL) {
				TH_LOG("%s: '%s' and type %s",
				       kb_param_table[i].keyword, words, d->name);
			}
		}
		EXPECT_TRUE(any);
		/* a type newer than the table, and one past any bit */
		EXPECT_FALSE(kb_param_taken(i, KBLOOM_TYPE_MAX + 1));
		EXPECT_FALSE(kb_param_taken(i, 40));
	}
}

/* bloomctl's defaults of a type's parameters are the engine's. */
TEST(defaults_are_the_engines)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_DLEFT };

	kb_params_defaults(&p);
	EXPECT_EQ(kb_params[TO_SUBTABLES].def, p.subtables);
	EXPECT_EQ(kb_params[TO_BUCKET_CELLS].def, p.bucket_cells);
	EXPECT_EQ(KB_DLEFT_FP_DEFAULT, kb_params[TO_FP_BITS].def);
	p = (struct kb_shape){ .type = KBLOOM_TYPE_SCALABLE };
	kb_params_defaults(&p);
	EXPECT_EQ(kb_params[TO_GROWTH].def, p.growth);
	EXPECT_EQ(kb_params[TO_TIGHTEN].def, p.tighten);
	p = (struct kb_shape){ .type = KBLOOM_TYPE_MULTI };
	kb_params_defaults(&p);
	EXPECT_EQ(kb_params[TO_DIMS].def, p.dims);
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
