// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of bloomctl's one-call-per-field output (userspace/print.c):
 * a field named once comes out as its text format in text and as
 * "key":value in JSON; a field for one form only is left out of the
 * other; objects and arrays are JSON's alone.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"

#include "../../userspace/print.h"

static char buf[4096];

/* What one rendering writes, as text (@json false) or as JSON. */
static const char *render(bool json, void (*fn)(const struct kb_out *o))
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct kb_out o;
	struct json j;

	if (json) {
		json_init(&j, f);
		kb_out_json(&o, &j);
	} else {
		kb_out_text(&o, f);
	}
	fn(&o);
	fclose(f);
	return buf;
}

static void fields(const struct kb_out *o)
{
	kb_print_obj_begin(o, NULL);
	kb_print_str(o, KB_PRINT_ANY, "name", "filter: %s\n", "a");
	kb_print_u64(o, KB_PRINT_ANY, "bits", "  bits: %llu\n", UINT64_MAX);
	kb_print_double(o, KB_PRINT_ANY, "fpr", "  fpr: %.3g\n", 0.012345);
	kb_print_bool(o, KB_PRINT_ANY, "full", "  full: %s\n", true);
	kb_print_obj_end(o);
}

TEST(any_field_is_written_in_both_forms)
{
	EXPECT_STREQ("filter: a\n  bits: 18446744073709551615\n  fpr: 0.0123\n  full: true\n",
		     render(false, fields));
	EXPECT_STREQ("{\"name\":\"a\",\"bits\":18446744073709551615,\"fpr\":0.012345,\"full\":true}\n",
		     render(true, fields));
}

static void one_form_each(const struct kb_out *o)
{
	kb_print_obj_begin(o, NULL);
	kb_print_u64(o, KB_PRINT_JSON, "interval_ms", NULL, 3600000);
	kb_print_u64(o, KB_PRINT_TEXT, NULL, "windows of %llu ms\n", 3600000);
	kb_print_text(o, "text %d\n", 1);
	kb_print_obj_end(o);
}

TEST(a_field_for_one_form_is_left_out_of_the_other)
{
	EXPECT_STREQ("windows of 3600000 ms\ntext 1\n",
		     render(false, one_form_each));
	EXPECT_STREQ("{\"interval_ms\":3600000}\n",
		     render(true, one_form_each));
}

static void absent_values(const struct kb_out *o)
{
	kb_print_obj_begin(o, NULL);
	kb_print_str(o, KB_PRINT_ANY, "digest", " digest %s", NULL);
	kb_print_double(o, KB_PRINT_ANY, "estimate", "estimate %.1f\n", NAN);
	kb_print_obj_end(o);
}

TEST(a_null_string_is_json_null_and_no_text)
{
	EXPECT_STREQ("estimate nan\n", render(false, absent_values));
	EXPECT_STREQ("{\"digest\":null,\"estimate\":null}\n",
		     render(true, absent_values));
}

static void nested(const struct kb_out *o)
{
	unsigned int i;

	kb_print_obj_begin(o, NULL);
	kb_print_arr_begin(o, "slices");
	for (i = 0; i < 2; i++) {
		kb_print_obj_begin(o, NULL);
		kb_print_u64(o, KB_PRINT_ANY, "bits", "slice bits %llu\n",
			     64 << i);
		kb_print_obj_end(o);
	}
	kb_print_arr_end(o);
	kb_print_obj_begin(o, "attach");
	kb_print_u64(o, KB_PRINT_ANY, "seen", "seen %llu\n", 0);
	kb_print_obj_end(o);
	kb_print_obj_end(o);
}

TEST(objects_and_arrays_are_json_only)
{
	EXPECT_STREQ("slice bits 64\nslice bits 128\nseen 0\n",
		     render(false, nested));
	EXPECT_STREQ("{\"slices\":[{\"bits\":64},{\"bits\":128}],\"attach\":{\"seen\":0}}\n",
		     render(true, nested));
}

static void keys_and_times(const struct kb_out *o)
{
	kb_print_obj_begin(o, NULL);
	kb_print_key(o, KB_PRINT_ANY, "key", "alpha", 5, false);
	kb_print_key(o, KB_PRINT_JSON, "raw", "\xff\x01", 2, false);
	kb_print_key(o, KB_PRINT_JSON, "tuple", "src=\xff,dport=80", 14, true);
	/* 2026-11-22T07:31:30.123 UTC */
	kb_print_time(o, KB_PRINT_ANY, "at", " at %s", 1795332690123456789ULL);
	kb_print_time(o, KB_PRINT_JSON, "end", NULL, 0);
	kb_print_text(o, "\n");
	kb_print_obj_end(o);
}

TEST(keys_as_given_and_times_in_both_forms)
{
	setenv("TZ", "UTC", 1);
	tzset();
	EXPECT_STREQ("alpha at 2026-11-22T07:31:30.123\n",
		     render(false, keys_and_times));
	EXPECT_STREQ("{\"key\":\"alpha\",\"raw\":\"0xff01\",\"tuple\":\"src=0xff,dport=80\","
		     "\"at\":\"2026-11-22T07:31:30.123+00:00\",\"at_ns\":1795332690123456789,"
		     "\"end\":null,\"end_ns\":0}\n",
		     render(true, keys_and_times));
}

/* A block the two forms place apart: once, through each form's view. */
static void block(const struct kb_out *o)
{
	kb_print_u64(o, KB_PRINT_ANY, "lost", "  lost: %llu\n", 3);
	kb_print_obj_begin(o, "slices");
	kb_print_text(o, "  (text)\n");
	kb_print_obj_end(o);
}

static void views(const struct kb_out *o)
{
	struct kb_out text, json;

	kb_out_only(&text, o, KB_PRINT_TEXT);
	kb_out_only(&json, o, KB_PRINT_JSON);
	kb_print_obj_begin(o, NULL);
	block(&text);
	kb_print_u64(o, KB_PRINT_ANY, "bits", "  bits: %llu\n", 64);
	block(&json);
	kb_print_obj_end(o);
}

TEST(a_view_writes_one_form_only)
{
	EXPECT_STREQ("  lost: 3\n  (text)\n  bits: 64\n", render(false, views));
	EXPECT_STREQ("{\"bits\":64,\"lost\":3,\"slices\":{}}\n",
		     render(true, views));
}

TEST_HARNESS_MAIN
