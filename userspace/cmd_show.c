// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * show NAME: every field of the description and the numbers derived from
 * it here (cardinality estimate, false positive rates; describe.c).
 */
#include "commands.h"
#include "describe.h"
#include "util.h"

int cmd_show(int argc, char **argv)
{
	struct kb_desc d;
	struct kb_nl nl;
	int r;

	if (filter_cmd_open(argc, argv, false, &nl))
		return EXIT_ERROR;
	r = kb_desc_get(&nl, argv[1], &d);
	if (r) {
		kb_nl_perror(&nl, "unable to show filter '%s'",
			     quote(argv[1]));
	} else {
		struct kb_out o;
		struct json j;

		kb_out_stdout(&o, &j, opts.json);
		kb_desc_render(&o, &d);
	}
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_show = {
	.name = "show",
	.fn = cmd_show,
	.summary = "show a filter, with estimates",
	.usage = "NAME\n",
	.help =
		"Prints every field of filter NAME: type, m (bits, or cells for the\n"
		"counting, dleft and stable types; per dimension for multi), hashes (k),\n"
		"hash function (siphash-2-4 or siphash-1-3; not for transforms), the\n"
		"type's options (counter bits, update, decrement, subtables, bucket\n"
		"cells, fingerprint bits, dimensions), capacity, kernel memory, fill\n"
		"(cells set or non-zero, X) and fill %, saturated counters (counting,\n"
		"dleft; stable: cells at their maximum), inserts, deletes (counting,\n"
		"dleft), queries, positives, generation; and, computed here (see\n"
		"'bloomctl estimate --help' and 'bloomctl calc --help'):\n"
		"  estimated keys        n* by the type's formula, 'saturated' when\n"
		"                        X = m, 'none' for stable\n"
		"  estimate basis        that formula\n"
		"  fpr now               the false positive rate at the current fill\n"
		"  fpr at capacity       the type's rate for n = capacity, when set\n"
		"  overflow at capacity  counting: the counter overflow bound\n"
		"  fpr at the stable point\n"
		"                        stable, instead of the rate at capacity\n"
		"With -j, one JSON object: name, type, bits, hashes, hash, counter_bits, update,\n"
		"decrement, subtables, bucket_cells, fp_bits, dims (the names), capacity,\n"
		"memory, fill, fill_percent, saturated_counters, inserts, deletes,\n"
		"queries, positives, generation, saturated (X = m), estimated_keys (null\n"
		"when none or saturated), estimate_basis, fpr_now, fpr_at_capacity,\n"
		"overflow_at_capacity, overflow_log10_at_capacity, fpr_stable_point,\n"
		"stable_zero_fraction; each only where it applies.\n"
		"A time-paged filter also shows \"windows: W of D\" and one line per\n"
		"window, newest first:\n"
		"  window ID: START to END, inserts N, fill X\n"
		"(END 'now' for the current window; times local, with milliseconds;\n"
		"fill and the estimates above are the current window's); JSON:\n"
		"windows, interval_ms, window_list [{id, start, start_ns, end, end_ns,\n"
		"packets (the window's inserts), fill}]. inserts counts every key put\n"
		"in, by add and by the hook (its digests) alike. Then the attachment\n"
		"('attached: no', or its hook, device, family and digest, and the\n"
		"packets seen, digested and skipped by reason); JSON: attach {hook,\n"
		"family, digest, dev, seen, digested, skipped, skipped_by_reason\n"
		"{short, malformed, fragment, gso}}.\n"
		"A scalable filter shows its first slice's m, k and capacity, growth\n"
		"and tighten, one line per slice (capacity, bits, hashes, keys, fill;\n"
		"'current' takes the adds, 'made ahead' waits), the keys, the\n"
		"overflow (keys added beyond a full slice), whether it still grows\n"
		"(or why not), the rate now from the slices' fills and the bound\n"
		"P0/(1-r); JSON: growth, tighten, overflow, grow_error, keys, slices\n"
		"[{capacity, bits, hashes, keys, fill, current}], fpr_now, fpr_limit.\n"
		"A dcf shows its counter bits, the overflow vector's bits per cell,\n"
		"the memory of its cells beside that of 16-bit counters, the\n"
		"increments lost and whether the vector can still widen; JSON:\n"
		"ofv_bits, lost, grow_error, cell_bytes, counting16_bytes.\n",
};
