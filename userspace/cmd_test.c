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
#include "types.h"
#include "util.h"

struct test_state {
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
	else if (!opts.json) {
		fwrite(label, 1, len, stdout);
		fputs(present ? " present\n" : " absent\n", stdout);
	}
	t->keys++;
	t->present += !!present;
	return 0;
}

static void print_json(const char *name, const struct test_state *t,
		       const struct keysrc *src, bool tuple)
{
	struct json j;
	uint64_t i;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_key(&j, "filter");
	json_str(&j, name);
	json_key(&j, "keys");
	json_u64(&j, t->keys);
	json_key(&j, "present");
	json_u64(&j, t->present);
	json_key(&j, "absent");
	json_u64(&j, t->keys - t->present);
	if (t->results) {
		json_key(&j, "results");
		json_arr_begin(&j);
		for (i = 0; i < t->keys; i++) {
			json_obj_begin(&j);
			json_key(&j, "key");
			json_keytext(&j, src->keys[i], strlen(src->keys[i]),
				     tuple);
			json_key(&j, "present");
			json_bool(&j, t->results[i]);
			json_obj_end(&j);
		}
		json_arr_end(&j);
	}
	json_obj_end(&j);
}

int cmd_test(int argc, char **argv)
{
	struct test_state t = { 0 };
	struct keycmd kc;
	int ret = EXIT_ERROR;

	if (keycmd_open(&kc, KBLOOM_CMD_TEST, argc, argv))
		goto out;
	t.file = keysrc_is_file(&kc.src);
	if (!t.file && opts.json) {
		t.results = calloc(kc.src.nkeys, sizeof(*t.results));
		if (!t.results) {
			errorf("out of memory");
			goto out;
		}
	}
	if (keycmd_run(&kc, test_result, &t))
		goto out;
	if (opts.json)
		print_json(kc.name, &t, &kc.src,
			   kb_utype_tuples(kc.desc.p.type));
	else if (t.file)
		printf("%llu keys: %llu present, %llu absent\n",
		       (unsigned long long)t.keys,
		       (unsigned long long)t.present,
		       (unsigned long long)(t.keys - t.present));
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
