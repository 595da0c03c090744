// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test NAME [--] KEY... | test NAME -f FILE
 *
 * Text: "KEY present" or "KEY absent" per key, in order; with -f also a
 * summary line "N keys: P present, A absent".
 * JSON: {"filter":NAME,"keys":N,"present":P,"absent":A,"results":[...]}
 * where results ({"key":KEY,"present":BOOL} per key) is given only for
 * keys on the command line; with -f the counts only.
 * Exit: 0 every key present, 1 some key absent, 2 error.
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "json.h"
#include "keycmd.h"
#include "print.h"
#include "types.h"
#include "util.h"

struct test_state {
	struct kb_out o;	/* JSON: written once every answer is in */
	struct json j;
	bool file;
	uint64_t keys, present;
	bool *results;		/* command line and JSON: one per key */
};

static int test_result(void *arg, const char *label, size_t len,
		       uint32_t present)
{
	struct test_state *t = arg;

	if (t->results)
		t->results[t->keys] = present;
	kb_print_key(&t->o, KB_PRINT_TEXT, NULL, label, len, false);
	kb_print_str(&t->o, KB_PRINT_TEXT, NULL, " %s\n",
		     present ? "present" : "absent");
	t->keys++;
	t->present += !!present;
	return 0;
}

/*
 * The summary: JSON always (with each key's answer for keys on the command
 * line), text after -f's lines only.
 */
static void print_summary(const char *name, const struct test_state *t,
			  const struct keysrc *src, bool tuple)
{
	enum kb_print_where w = t->file ? KB_PRINT_ANY : KB_PRINT_JSON;
	const struct kb_out *o = &t->o;
	uint64_t i;

	kb_print_obj_begin(o, NULL);
	kb_print_str(o, KB_PRINT_JSON, "filter", NULL, name);
	kb_print_u64(o, w, "keys", "%llu keys: ", t->keys);
	kb_print_u64(o, w, "present", "%llu present, ", t->present);
	kb_print_u64(o, w, "absent", "%llu absent\n", t->keys - t->present);
	if (t->results) {
		kb_print_arr_begin(o, "results");
		for (i = 0; i < t->keys; i++) {
			kb_print_obj_begin(o, NULL);
			kb_print_key(o, KB_PRINT_JSON, "key", src->keys[i],
				     strlen(src->keys[i]), tuple);
			kb_print_bool(o, KB_PRINT_JSON, "present", NULL,
				      t->results[i]);
			kb_print_obj_end(o);
		}
		kb_print_arr_end(o);
	}
	kb_print_obj_end(o);
}

int cmd_test(int argc, char **argv)
{
	struct test_state t = { 0 };
	struct keycmd kc;
	int ret = EXIT_ERROR;

	if (keycmd_open(&kc, KBLOOM_CMD_TEST, argc, argv))
		goto out;
	t.file = keysrc_is_file(&kc.src);
	kb_out_stdout(&t.o, &t.j, opts.json);
	if (!t.file && opts.json) {
		t.results = calloc(kc.src.nkeys, sizeof(*t.results));
		if (!t.results) {
			errorf("out of memory");
			goto out;
		}
	}
	if (keycmd_run(&kc, test_result, &t))
		goto out;
	print_summary(kc.name, &t, &kc.src, kb_utype_tuples(kc.desc.p.type));
	ret = t.present == t.keys ? EXIT_OK : EXIT_NEGATIVE;
out:
	keycmd_close(&kc);
	free(t.results);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_test = {
	.name = "test",
	.fn = cmd_test,
	.summary = "test whether keys are in a filter",
	.usage =
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
	.help =
		"Tests each KEY against filter NAME ('present' may be a false positive;\n"
		"'absent' is certain). Prints \"KEY present\" or \"KEY absent\" per key,\n"
		"in order; with -f FILE (as for add) also a summary line\n"
		"\"N keys: P present, A absent\". With -j prints one JSON object\n"
		"  {\"filter\":NAME,\"keys\":N,\"present\":P,\"absent\":A,\n"
		"   \"results\":[{\"key\":KEY,\"present\":true|false},...]}\n"
		"where \"results\" is given for keys on the command line only; with -f\n"
		"the object has the counts only. KEY is the key as given when it is\n"
		"valid UTF-8, else 0x and its bytes in hex (a multi filter's tuple:\n"
		"only the VALUE that is not UTF-8): bloomctl reads it back as the same\n"
		"key.\n"
		"With -f, where the filter can be mapped (cells of a page or more, a\n"
		"type whose memory does not grow, single keys), keys are tested here in\n"
		"a read-only mapping of its cells (/dev/kbloom), with the same answers;\n"
		"else, and with KBLOOM_NO_MAP=1, over netlink.\n"
		"Exit status: 0 every key present, 1 some key absent, 2 error.\n",
};
