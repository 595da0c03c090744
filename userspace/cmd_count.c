// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * count NAME [--] KEY... | count NAME -f FILE: counting and dleft filters.
 *
 * Text: "KEY COUNT" per key, in order.
 * JSON: {"filter":NAME,"counts":[{"key":KEY,"count":N},...]}, keys as
 * given (command line or file lines; in hex when not UTF-8, see
 * json_keytext()), in order. The JSON is written only
 * once every answer is in, so a failure leaves no partial document.
 */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "json.h"
#include "keycmd.h"
#include "print.h"
#include "types.h"
#include "util.h"

struct count_state {
	struct kb_out o;
	struct json j;		/* -j: into a memory stream */
	FILE *mem;
	char *buf;
	size_t len;
	bool tuple;		/* a multi filter's keys (json_keytext) */
};

static int count_result(void *arg, const char *label, size_t len,
			uint32_t count)
{
	struct count_state *c = arg;

	kb_print_obj_begin(&c->o, NULL);
	kb_print_key(&c->o, KB_PRINT_ANY, "key", label, len, c->tuple);
	kb_print_u64(&c->o, KB_PRINT_ANY, "count", " %llu\n", count);
	kb_print_obj_end(&c->o);
	return 0;
}

int cmd_count(int argc, char **argv)
{
	struct count_state c = { 0 };
	struct keycmd kc;
	int ret = EXIT_ERROR;

	if (keycmd_open(&kc, KBLOOM_CMD_COUNT, argc, argv))
		goto out;
	c.tuple = kb_utype_tuples(kc.desc.p.type);
	kb_out_text(&c.o, stdout);
	if (opts.json) {
		c.mem = open_memstream(&c.buf, &c.len);
		if (!c.mem) {
			errorf("out of memory");
			goto out;
		}
		json_init(&c.j, c.mem);
		kb_out_json(&c.o, &c.j);
	}
	kb_print_obj_begin(&c.o, NULL);
	kb_print_str(&c.o, KB_PRINT_JSON, "filter", NULL, kc.name);
	kb_print_arr_begin(&c.o, "counts");
	if (keycmd_run(&kc, count_result, &c))
		goto out;
	kb_print_arr_end(&c.o);
	kb_print_obj_end(&c.o);
	if (c.mem) {
		if (fclose(c.mem)) {
			c.mem = NULL;
			errorf("out of memory");
			goto out;
		}
		c.mem = NULL;
		fwrite(c.buf, 1, c.len, stdout);
	}
	ret = EXIT_OK;
out:
	if (c.mem)
		fclose(c.mem);
	free(c.buf);
	keycmd_close(&kc);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_count = {
	.name = "count",
	.fn = cmd_count,
	.summary = "count keys in a counting, dleft or dcf filter",
	.usage =
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
	.help =
		"Prints \"KEY COUNT\" per key, in order, for filter NAME, a counting,\n"
		"dleft or dcf filter: the smallest of the key's k counters (a dcf's\n"
		"read with its overflow vector), or the count of its d-left cell. Not\n"
		"for the other types (bloom, partitioned, blocked, stable, multi,\n"
		"scalable). 0 means certainly absent; a count is never below the\n"
		"key's true count unless a counter saturated, and may be above it\n"
		"(other keys share counters). With -f, reads one key a line from FILE\n"
		"('-' for standard input), as add. With -j prints one JSON object\n"
		"  {\"filter\":NAME,\"counts\":[{\"key\":KEY,\"count\":N},...]}\n"
		"for keys on the command line and in a file alike; KEY as for test -j\n"
		"(in hex when not UTF-8).\n",
};
