// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the JSON reader of 'bloomctl trace' over ssh
 * (userspace/trace_json.c), which reads what a remote router's bloomctl
 * prints: every value of the input, one after another.
 * Invariants (a trap when broken): each value read moves the position
 * forward and within the input; a refusal has a reason, unless only
 * blanks were left; objects' keys are strings and tj_get finds the first
 * of each; a number tj_u64 accepts is all digits and prints back to its
 * text (leading zeros aside); what is built is freed (ASan's leak check).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "trace_json.h"
#include "fuzz_common.h"

static void check(const struct tj *v, int depth)
{
	size_t i, j;
	uint64_t u;

	FUZZ_CHECK(depth <= 64, "depth %d", depth);
	switch (v->type) {
	case TJ_NUM:
		FUZZ_CHECK(v->s && *v->s, "number without text");
		if (!tj_u64(v, &u)) {
			char back[32];
			const char *p = v->s;

			for (; *p; p++)
				FUZZ_CHECK(isdigit((unsigned char)*p),
					   "u64 from '%s'", v->s);
			for (p = v->s; *p == '0' && p[1]; p++)
				;
			snprintf(back, sizeof(back), "%" PRIu64, u);
			FUZZ_CHECK(!strcmp(back, p), "'%s' read as %s", v->s, back);
		}
		break;
	case TJ_STR:
		FUZZ_CHECK(v->s != NULL, "string without text");
		FUZZ_CHECK(tj_u64(v, &u) == -1, "a string read as a number");
		break;
	case TJ_OBJ:
		for (i = 0; i < v->n; i++) {
			FUZZ_CHECK(v->k && v->k[i], "member %zu without key", i);
			for (j = 0; j < i && strcmp(v->k[j], v->k[i]); j++)
				;
			FUZZ_CHECK(tj_get(v, v->k[i]) == &v->v[j],
				   "key '%s' not found at its first place", v->k[i]);
		}
		/* fall through */
	case TJ_ARR:
		for (i = 0; i < v->n; i++)
			check(&v->v[i], depth + 1);
		break;
	default:
		FUZZ_CHECK(tj_get(v, "x") == NULL, "member of a scalar");
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = (char *)fuzz_dup(data, size), err[256];
	size_t pos = 0, before, i;
	struct tj *v;

	for (;;) {
		before = pos;
		err[0] = 0;
		v = tj_parse(s, size, &pos, err, sizeof(err));
		if (!v) {
			if (!err[0])
				for (i = before; i < size; i++)
					FUZZ_CHECK(isspace((unsigned char)s[i]),
						   "no value, no reason, byte %zu is 0x%02x",
						   i, (uint8_t)s[i]);
			break;
		}
		FUZZ_CHECK(pos > before && pos <= size, "position %zu -> %zu of %zu",
			   before, pos, size);
		check(v, 0);
		tj_free(v);
	}
	free(s);
	return 0;
}
