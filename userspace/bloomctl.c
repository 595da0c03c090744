// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bloomctl: the command line tool of kbloom. Global options, then one
 * subcommand from the table below (one file per subcommand).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "progress.h"
#include "util.h"

struct global_opts opts;

/*
 * A subcommand. Its help texts may name the ABI limits as {NAME_LEN},
 * {KEY_MAX}, {BITS_MIN}, {BITS_MAX}, {BITS_MAX_LOG2}, {HASHES_MAX},
 * {MEM_MAX}, {DIMS_MAX}, {DIM_NAME_LEN}, {DECREMENT_MAX}, {WINDOWS_MAX},
 * {PACKET_MAX}: they are filled
 * in from uapi/kbloom.h when printed.
 */
struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;	/* one line, for bloomctl --help */
	const char *usage;	/* argument lines, after "bloomctl NAME " */
	const char *help;	/* the rest of bloomctl NAME --help */
};

static const struct command commands[] = {
	{
		"create", cmd_create, "create a filter",
		"NAME TYPE bits M hashes K [capacity N] [OPTION...]\n"
		"NAME TYPE capacity N fpr P [OPTION...]\n",
		"Creates filter NAME of type TYPE in the network namespace. NAME is 1 to\n"
		"{NAME_LEN} printable bytes without spaces or '/', not starting with '-', not\n"
		"'all'. Keywords may come in any order, each at most once; OPTION is\n"
		"key HEX32, windows W interval DURATION, or one of the type's keywords\n"
		"below:\n"
		"  bits M       m, the number of cells (bits for bloom, partitioned, blocked\n"
		"               and multi; per dimension for multi): {BITS_MIN} to\n"
		"               {BITS_MAX} (2^{BITS_MAX_LOG2}), rounded up to the type's multiple\n"
		"  hashes K     k, the number of hash functions: 1 to {HASHES_MAX} (dleft: 1,\n"
		"               the default)\n"
		"  capacity N   design capacity n >= 1, reported back by 'show' (which\n"
		"               then also prints the false positive rate at capacity)\n"
		"  fpr P        target false positive rate at capacity, 0 < P < 1; with\n"
		"               capacity N instead of bits and hashes, sizes the filter\n"
		"               as below ('bloomctl calc' prints the shape and its exact\n"
		"               rate without creating anything)\n"
		"  key HEX32    hash key: 32 hex digits (optionally 0x-prefixed) giving\n"
		"               the 16 key bytes in order; random when absent. Filters\n"
		"               with the same type, shape and key set the same cells:\n"
		"               merge and 'estimate ... with' need that.\n"
		"  windows W interval DURATION\n"
		"               time-paged: a ring of W tables (2 to {WINDOWS_MAX}) of this\n"
		"               shape and key. The newest takes every add; every\n"
		"               DURATION (10ms to 366d: 500ms, 10s, 5m, 1h, 1d; a plain\n"
		"               number is seconds) a new window opens and, once W are\n"
		"               kept, the oldest is dropped. test and count look at\n"
		"               every window, 'query' says which windows hold a key,\n"
		"               'show' lists them with their start and end times. W + 1\n"
		"               times the memory of one table; no del, merge or\n"
		"               'estimate ... with' (estimate alone: the current\n"
		"               window).\n"
		"The cells of one filter take at most {MEM_MAX} bytes.\n"
		"\n"
		"Types, how capacity N and fpr P size them, and their OPTIONs:\n"
		"  bloom        m bits, k probes anywhere: m = ceil(-N ln P / (ln 2)^2)\n"
		"               rounded up to a multiple of 64, k = round(ln 2 * m / N),\n"
		"               1 to {HASHES_MAX}.\n"
		"  partitioned  k slices of m/k bits, one probe in each; m a multiple of\n"
		"               k. Sized as bloom, m then rounded up.\n"
		"  blocked      all k probes in one 512-bit block (a cache line); m a\n"
		"               multiple of 512. Sized by search: the fewest blocks, and\n"
		"               the best k for them, whose rate by the block occupancy\n"
		"               model (see 'bloomctl calc --help') is at most P. Below\n"
		"               P = 1e-3 it needs far more memory than bloom.\n"
		"  counting     m counters, k probes as bloom: add, del, count. Sized as\n"
		"               bloom.\n"
		"    counter-bits 4|8|16        bits per counter (default 4); a counter\n"
		"                               at its maximum stays there\n"
		"    update plain|conservative  increment all k counters (default), or\n"
		"                               only the smallest: counts nearer the\n"
		"                               truth, but no del\n"
		"  dleft        d-left counting filter: d subtables of buckets of c cells,\n"
		"               a cell a fingerprint and an 8-bit counter (4 bytes); one\n"
		"               hash (k = 1) gives the d buckets and the fingerprint;\n"
		"               add, del, count. m cells, a multiple of d*c. Sized for\n"
		"               75% load: m = ceil(N / 0.75) rounded up, and F the\n"
		"               fewest fingerprint bits with 1 - (1 - d*c/(m 2^F))^N <= P.\n"
		"    subtables D                d, 2 to 8 (default 4)\n"
		"    bucket-cells C             c, 1 to 16 (default 8)\n"
		"    fp-bits F                  fingerprint bits, 4 to 24 (default: from\n"
		"                               fpr P, else 16)\n"
		"  stable       stable Bloom filter for endless streams (Deng & Rafiei):\n"
		"               each add first decrements CELLS cells (a run from a\n"
		"               random start), then sets its k cells to the maximum;\n"
		"               the rate settles at a stable point whatever the number\n"
		"               of adds. m and k sized as bloom.\n"
		"    counter-bits 1|2|4|8       bits per cell (default 1)\n"
		"    decrement CELLS            cells decremented per add, 1 to m and\n"
		"                               to {DECREMENT_MAX}\n"
		"                               (default: with fpr, the fewest whose\n"
		"                               stable-point rate is at most P; else\n"
		"                               those that keep half the cells zero, a\n"
		"                               rate near 2^-k)\n"
		"  multi        one bloom sub-filter of m bits and k hashes per dimension;\n"
		"               keys are tuples (see 'bloomctl add --help'). Sized as\n"
		"               bloom, per dimension.\n"
		"    dims LIST                  1 to {DIMS_MAX} comma-separated dimension names,\n"
		"                               each 1 to {DIM_NAME_LEN} bytes of a-z, 0-9, '_'\n"
		"                               and '-' (required)\n"
		"  dcf          dynamic count filter (Aguilar-Saborit et al. 2006): m\n"
		"               small counters (CBFV) plus an overflow vector (OFV) that\n"
		"               counts their wraps, 1 bit per cell at first and doubled\n"
		"               (2, 4, .. 32) as counts grow: exact counts of any size\n"
		"               in about counter-bits + 1 bits per cell while counts\n"
		"               are small (counting with counter-bits 16 takes 16).\n"
		"               add, del, count; probes and rate as bloom's, sized as\n"
		"               bloom. The OFV is widened outside the packet path; an\n"
		"               increment that finds it full is dropped and counted\n"
		"               ('increments lost' in show; then del is refused until\n"
		"               clear). No merge or windows; save writes a version 2\n"
		"               file with the OFV.\n"
		"    counter-bits 2|4|8         bits per small counter (default 4)\n"
		"  scalable     scalable Bloom filter (Almeida et al. 2007): bloom\n"
		"               slices added as keys arrive, slice i for N s^i keys with\n"
		"               k + i log2(1/r) hashes (rounded) and log2(1/r)/ln 2 more\n"
		"               bits per key than the one before, so the compound rate\n"
		"               stays below P0/(1 - r) for any number of keys (P0: the\n"
		"               first slice's rate at capacity N). m, k: the first\n"
		"               slice's, sized as bloom for N keys at P0 = P (1 - r);\n"
		"               capacity N is required. A test asks every slice: about\n"
		"               log_s(n (s-1)/N + 1) of them for n keys. Slices are\n"
		"               made outside the packet path; until the next one is\n"
		"               made, keys go on into the full one (shown as overflow).\n"
		"               At the memory limit growth waits with an error (tried\n"
		"               again by itself, 1 to 64 s later); the filter still\n"
		"               answers tests. No del, count, merge or windows; save\n"
		"               writes a version 2 file with the slices.\n"
		"    growth S                   s, slice capacity factor, 2 to 16\n"
		"                               (default 2)\n"
		"    tighten R                  r, slice rate factor, 0.01 to 0.99\n"
		"                               (default 0.9)\n"
		"  transforms   no filter: a table of what a NAT router rewrote (the\n"
		"               transform lookup table of SPIE, Snoeren et al. 2002),\n"
		"               so 'trace' can walk through it. 'capacity N' (required)\n"
		"               records per window, in m = N / 0.75 cells of 32 bytes\n"
		"               ('bits M' gives m itself); no fpr, hashes or keys.\n"
		"               Written by its attachment at hook postrouting (no\n"
		"               digest), read by query and trace; windows, save,\n"
		"               restore and archive as a filter's.\n"
		"An existing NAME is refused. With the global option --exist\n"
		"('bloomctl --exist create ...', as ipset -exist), a filter NAME made\n"
		"with these very parameters (type, shape, capacity, dims, windows,\n"
		"interval and, when given, key) is success and nothing changes, so a\n"
		"setup script may run again; one that differs is still refused,\n"
		"naming the first difference. Prints nothing on success.\n",
	},
	{
		"destroy", cmd_destroy, "destroy a filter, or all filters",
		"NAME\n"
		"all\n",
		"Destroys filter NAME, or every filter of the network namespace.\n",
	},
	{
		"list", cmd_list, "list the filters, one line each",
		"\n",
		"Prints one line per filter, sorted by name:\n"
		"  NAME TYPE bits M hashes K memory BYTES fill X inserts N\n"
		"where M is the number of cells (per dimension for multi; the first\n"
		"slice's for scalable) and X the cells set or non-zero (of the current\n"
		"window when time-paged). A time-paged filter's line goes on with\n"
		"\"windows W interval D\", an\n"
		"attached filter's with \"hook HOOK [dev IFACE] family F digest MODE\".\n"
		"With -j, a JSON array of objects as printed by 'show -j' (without\n"
		"window_list).\n",
	},
	{
		"show", cmd_show, "show a filter, with estimates",
		"NAME\n",
		"Prints every field of filter NAME: type, m (bits, or cells for the\n"
		"counting, dleft and stable types; per dimension for multi), hashes (k),\n"
		"the type's options (counter bits, update, decrement, subtables, bucket\n"
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
		"With -j, one JSON object: name, type, bits, hashes, counter_bits, update,\n"
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
	},
	{
		"add", cmd_add, "add keys to a filter",
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
		"Adds each KEY to filter NAME. With -f, reads one key a line from FILE\n"
		"('-' for standard input); a trailing \\r is dropped, an empty line is an\n"
		"error. A bad line stops the file there, naming it: every key before\n"
		"it is added, none after. Prints nothing on success.\n"
		"A KEY starting with '-' on the command line is refused as a mistyped\n"
		"option (exit 2, nothing sent) unless the keys follow '--'; or give it\n"
		"in hex (0x2d...). The same holds for del, test and count.\n",
	},
	{
		"del", cmd_del, "delete keys from a counting, dleft or dcf filter",
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
		"Deletes each KEY, in order, from filter NAME, a counting filter with\n"
		"plain update, a dleft filter or a dcf: its k counters are decremented\n"
		"(a counter at its maximum stays there), or its d-left cell's count.\n"
		"Not for the other types (bloom, partitioned, blocked, stable, multi,\n"
		"scalable); a dcf that lost increments refuses del until clear. A key\n"
		"that is certainly absent is an error naming it (exit 2), and its\n"
		"message changes nothing: the kernel puts back the keys of that message\n"
		"deleted before it. Keys go in messages of up to 60 KiB (thousands of\n"
		"short keys); when a later message fails, the keys of the earlier ones\n"
		"stay deleted and the error says how many. With -f, reads one key a\n"
		"line from FILE ('-' for standard input), as add. Delete only keys that\n"
		"were added: deleting a false positive decrements other keys' counters\n"
		"and can make them absent. Prints nothing on success.\n",
	},
	{
		"test", cmd_test, "test whether keys are in a filter",
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
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
		"Exit status: 0 every key present, 1 some key absent, 2 error.\n",
	},
	{
		"count", cmd_count, "count keys in a counting, dleft or dcf filter",
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
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
	},
	{
		"clear", cmd_clear, "empty a filter",
		"NAME\n",
		"Empties filter NAME; its shape and hash key are kept.\n",
	},
	{
		"merge", cmd_merge, "merge a filter into another",
		"DST SRC [op or|and]\n",
		"Merges filter SRC into filter DST, in the same network namespace; SRC\n"
		"is not changed:\n"
		"  op or    (default) bit types: the union of the bits, as if DST had\n"
		"           also been given SRC's keys; counting: the counters added,\n"
		"           saturating\n"
		"  op and   bit types: the bits set in both, a filter of the common keys\n"
		"           whose false positive rate can be higher than one built from\n"
		"           them; counting: the smaller of the two counters\n"
		"Both filters must have the same type, shape (bits, hashes, the type's\n"
		"options) and hash key: create both with the same 'key HEX32'. When\n"
		"they differ the error says what differs. Not for dleft, stable,\n"
		"scalable or dcf filters. Prints nothing on success.\n",
	},
	{
		"estimate", cmd_estimate, "estimate keys, union and intersection",
		"NAME\n"
		"NAME with NAME2\n",
		"Estimates from its fill X (cells set or non-zero) how many distinct\n"
		"keys filter NAME holds, and its false positive rate now:\n"
		"  bloom, counting   n* = -(m/k) ln(1 - X/m) (Swamidass and Baldi,\n"
		"                    J. Chem. Inf. Model. 47(3), 2007; counting: X\n"
		"                    non-zero counters)\n"
		"  partitioned,      n* = ln(1 - X/m) / ln(1 - k/m): a key sets one bit\n"
		"  blocked           in each slice of m/k (partitioned) or k distinct\n"
		"                    bits of one block (blocked), any given bit with\n"
		"                    probability exactly k/m\n"
		"  multi             as bloom with X/dims: the distinct values per\n"
		"                    dimension, averaged (the fill sums the dimensions)\n"
		"  dleft             n* = X, one cell per distinct key\n"
		"  stable            none: its cells decay\n"
		"The rate now is (X/m)^k (partitioned: at most that; multi: per\n"
		"dimension); blocked: its model's rate for n* keys; dleft:\n"
		"d*c*X / (m 2^F), the occupied cells of a query's d buckets, each\n"
		"matching with probability 2^-F.\n"
		"With NAME2, a filter of the same type, shape and hash key (create both\n"
		"with the same 'key HEX32'), the kernel also counts the cells set in\n"
		"either, X(A u B), and (Swamidass and Baldi 2007):\n"
		"  n(A), n(B), n(A u B)  as above, from X(A), X(B) and X(A u B)\n"
		"  n(A n B)              n(A) + n(B) - n(A u B), clamped to\n"
		"                        0..min(n(A), n(B)) (the raw value is shown)\n"
		"  jaccard               n(A n B) / n(A u B)\n"
		"'saturated' means X = m: no estimate. With -j, one JSON object:\n"
		"  {\"filter\",\"type\",\"bits\",\"hashes\",\"fill\",\"fill_percent\",\"saturated\",\n"
		"   \"estimated_keys\",\"estimate_basis\",\"fpr_now\"}\n"
		"or with NAME2\n"
		"  {\"filter\",\"with\",\"type\",\"bits\",\"hashes\",\n"
		"   \"a\":{\"fill\",\"estimated_keys\"},\"b\":{...},\"union\":{...},\n"
		"   \"intersection\":{\"estimated_keys\",\"raw\"},\"jaccard\",\"estimate_basis\"}\n"
		"where an estimate that does not exist is null.\n",
	},
	{
		"calc", cmd_calc, "size filters offline, with exact rates",
		"capacity N fpr P [type TYPE] [windows W interval D] [OPTION...]\n"
		"bits M hashes K capacity N [type TYPE] [windows W interval D] [OPTION...]\n",
		"Computes, sending nothing, the shape that 'create' gives each filter\n"
		"type (or TYPE alone) for N keys at false positive rate P; or, for the\n"
		"given m and k (m rounded up to each type's multiple; dleft takes\n"
		"k = 1), each type's rate with N keys. OPTIONs are those of 'create'\n"
		"for TYPE (see 'bloomctl create --help'), and need 'type'; dims may\n"
		"also be a number. Prints a header (with fpr: the information-\n"
		"theoretic bound, log2(1/P) bits per key, that no structure beats),\n"
		"then per type:\n"
		"  type m k bytes bits/key fpr bound parameters\n"
		"bytes: the kernel memory of the cells; bits/key: m * cell bits (* dims)\n"
		"/ N; fpr: the type's false positive rate with N keys; bound:\n"
		"log2(1/fpr). With windows W interval D (as for 'create'), the memory\n"
		"of the time-paged filter too: a 'total' column after bytes, W + 1\n"
		"times bytes (the module keeps the W windows and a spare table, emptied\n"
		"for the next rotation), and with TYPE a last line\n"
		"  memory: TOTAL bytes (MiB) of cells in W+1 tables\n"
		"The module charges a little more than the cells ('show' counts it):\n"
		"each table's window record and per-CPU packet counter, the window\n"
		"lists and the filter object (with 2 CPUs, 920 B plus 196 B per\n"
		"table). stable, scalable and dcf take no windows. The rates:\n"
		"  bloom, counting  (1 - e^(-kN/m))^k; multi the same, per dimension\n"
		"  partitioned      (1 - (1 - k/m)^N)^k\n"
		"  blocked          sum over j of P(j keys in the query's block) *\n"
		"                   P(its k probes all set | j), j ~ Binomial(N, 512/m)\n"
		"                   (~ Poisson). A key sets k distinct bits of its block,\n"
		"                   so a bit is set with probability 1 - (1 - k/512)^j;\n"
		"                   but the probes are x + i*y mod 512 (y odd), 65536\n"
		"                   distinct sets: a key has the query's very set with\n"
		"                   probability 2^-16, a floor near (512 N/m) 2^-16\n"
		"                   that (1 - (1 - k/512)^j)^k misses. P(.. | j) is\n"
		"                   computed with that structure.\n"
		"  counting         also the overflow bound m (e k N / (m 2^c))^(2^c)\n"
		"                   for c-bit counters; at the optimal k it is\n"
		"                   m (e ln 2 / 2^c)^(2^c), 1.37e-15 m for 4 bits\n"
		"  dleft            1 - (1 - d*c/(m 2^F))^N: a query matches a key only\n"
		"                   when their whole hashes (bucket and F-bit\n"
		"                   fingerprint, one of m 2^F / (d*c)) are equal; about\n"
		"                   the d*c*N/m occupied cells of its d buckets times 2^-F\n"
		"  stable           the stable point (1 - z)^k, whatever N, where z =\n"
		"                   (1 / (1 + 1 / (D (1/k - 1/m))))^Max is the share of\n"
		"                   zero cells, D the decrement, Max = 2^c - 1\n"
		"  dcf              as bloom (its probes); bytes: the small counters and\n"
		"                   a 1-bit overflow vector, as created; the parameters\n"
		"                   give what counter-bits 16 would take\n"
		"  scalable         1 - prod_i (1 - (1 - e^(-k_i N_i/m_i))^k_i), slice i\n"
		"                   of m_i bits and k_i hashes holding N_i of the N keys\n"
		"                   (filled in order, each up to its capacity N0 s^i);\n"
		"                   with N = capacity only the first slice counts; the\n"
		"                   parameters give the bound P0/(1 - r) and the rate at\n"
		"                   10 N and 100 N keys\n"
		"A type that cannot be sized so shows why instead (with TYPE: an\n"
		"error). With -j, one JSON object:\n"
		"  {\"capacity\",\"fpr\",\"bound_bits_per_key\" (or \"bits\",\"hashes\"),\n"
		"   with windows \"windows\",\"interval_ms\",\"tables\",\n"
		"   \"types\":[{\"type\",\"bits\",\"hashes\",\"bytes\",\"total_bytes\" (with\n"
		"   windows),\"bits_per_key\",\"fpr\",\n"
		"   \"bound_bits_per_key\"; counting: \"counter_bits\",\"update\",\n"
		"   \"overflow_bound\",\"overflow_log10\"; stable: \"counter_bits\",\n"
		"   \"decrement\",\"stable_zero_fraction\"; dleft: \"subtables\",\n"
		"   \"bucket_cells\",\"fp_bits\"; multi: \"dims\"; dcf: \"counter_bits\",\n"
		"   \"ofv_bits\",\"counting16_bytes\"; scalable: \"growth\",\n"
		"   \"tighten\",\"fpr_limit\",\"fpr_10x\",\"fpr_100x\"} or\n"
		"   {\"type\",\"error\"},...]}\n",
	},
	{
		"attach", cmd_attach, "record packet digests into a filter",
		"NAME hook HOOK [dev IFACE] [family ipv4|ipv6|any] digest MODE\n"
		"NAME hook postrouting [dev IFACE] [family ipv4|any]   (transforms)\n",
		"Attaches filter NAME to a netfilter hook of its network namespace:\n"
		"every IPv4 and IPv6 packet reaching the hook is reduced to a key by\n"
		"the digest mode and added to the filter (to its current window when\n"
		"the filter is time-paged: see 'create ... windows W interval D').\n"
		"Keywords in any order, each at most once:\n"
		"  hook HOOK      prerouting, input, forward, output or postrouting; the\n"
		"                 hook runs before defragmentation and conntrack (at\n"
		"                 postrouting: last), so packets are seen as on the wire\n"
		"  dev IFACE      only packets whose input device (output device at\n"
		"                 output and postrouting) is IFACE\n"
		"  family FAMILY  ipv4, ipv6 or any (default)\n"
		"  digest MODE    what a packet is reduced to:\n"
		"    spie         its invariant bytes: the IPv4 header with TOS, TTL and\n"
		"                 checksum zeroed, without options, and the first 8\n"
		"                 payload bytes (28 bytes); the IPv6 header with traffic\n"
		"                 class and hop limit zeroed and 8 bytes (48). A router\n"
		"                 that decrements the TTL records the digest that the\n"
		"                 receiver computes from the packet it got.\n"
		"    flow         protocol, addresses and ports (13 or 37 bytes); with a\n"
		"                 counting filter, 'count' then gives packets per flow\n"
		"    src, dst     the source or the destination address\n"
		"    multi        a tuple for a multi filter of 3 dimensions: source\n"
		"                 address, destination address, destination port\n"
		"A TCP packet the stack sends as one GSO super-packet is digested as\n"
		"its wire segments. Packets without a digest are counted by reason:\n"
		"short, malformed, fragment (later fragments, flow and multi only) and\n"
		"gso (other GSO packets). A filter has one attachment at most; it goes\n"
		"with the filter (destroy) or its namespace; with the global option\n"
		"--exist the very attachment asked for (hook, dev, family, digest),\n"
		"made already, is success, and one that differs is refused naming it.\n"
		"'show' prints it with its counters; 'bloomctl digest' prints a\n"
		"packet's digest.\n"
		"A transforms table is attached at postrouting, after NAT, without a\n"
		"digest: each IPv4 packet whose conntrack entry has NAT gives one\n"
		"record per flow direction and window, as it left (AFTER) and as it\n"
		"arrived (BEFORE): addresses and ports, or the ICMP echo identifier.\n"
		"The same attachment hooks input too: each IPIP or GRE packet this\n"
		"router decapsulates gives a record of its outer header (addresses,\n"
		"IP ID, GRE key), per packet. Other packets (and ICMP errors about a\n"
		"flow) are counted as untransformed; a record that finds no free cell\n"
		"in its lines is not made and its packet is counted as full. Prints\n"
		"nothing on success.\n",
	},
	{
		"detach", cmd_detach, "stop recording packet digests",
		"NAME\n",
		"Detaches filter NAME from its hook: when detach returns, no packet\n"
		"is added to the filter any more. The filter keeps its contents.\n",
	},
	{
		"query", cmd_query, "did these packets pass here, and when?",
		"NAME packet HEX [digest MODE] [since TIME] [until TIME]\n"
		"NAME pcap FILE [digest MODE] [since TIME] [until TIME]\n"
		"NAME { packet HEX | pcap FILE } [since TIME] [until TIME]  (transforms)\n",
		"Reduces each packet to its digest (the module's own code, compiled\n"
		"into bloomctl) and asks filter NAME which of its windows hold it.\n"
		"  packet HEX     one packet from its IP header on, in hex; blanks and\n"
		"                 ':' may separate bytes (up to {PACKET_MAX} bytes)\n"
		"  pcap FILE      every IPv4 and IPv6 packet of a capture (tcpdump -w;\n"
		"                 Ethernet, raw IP or Linux cooked; '-' for stdin)\n"
		"  digest MODE    spie, flow, src, dst or multi (see 'bloomctl attach\n"
		"                 --help'); default: the mode the filter is attached\n"
		"                 with, else spie (multi for a multi filter)\n"
		"  since TIME     count only windows that overlap [since, until]\n"
		"  until TIME     (default: from the oldest window to now)\n"
		"TIME is a local time 2026-11-22T07:31:30[.mmm] (or with Z or +HH:MM\n"
		"for UTC and offsets), @SECONDS since the epoch (@1700000000.5), -D\n"
		"for D ago (-5m; D as for 'create ... interval') or now. Prints a line\n"
		"per packet, then a summary:\n"
		"  INDEX [TIME] DESCRIPTION: window ID (START to END)[, window ...]\n"
		"  INDEX [TIME] DESCRIPTION: absent\n"
		"  INDEX [TIME] DESCRIPTION: absent from the oldest window on (START),\n"
		"                            not recorded before\n"
		"  INDEX [TIME] DESCRIPTION: not recorded (before the oldest window, START)\n"
		"  INDEX [TIME] DESCRIPTION: not recorded (after now)\n"
		"  INDEX [TIME] DESCRIPTION: no digest (REASON)\n"
		"  N packets: P present, A absent, U not recorded, S skipped\n"
		"where INDEX is the frame's place in the capture (1 for packet HEX),\n"
		"TIME its capture time, DESCRIPTION \"PROTO SRC > DST\" and windows\n"
		"run from START to END ('now' while open). A filter that is not\n"
		"time-paged has one window, since its creation. The filter holds\n"
		"what passed from the start of its oldest window to now: a range\n"
		"that ends before it or starts after now is 'not recorded', one\n"
		"that starts before it is absent only from the oldest window on;\n"
		"both count as not recorded. 'present' may be a false positive;\n"
		"'absent' is certain. With -j, one JSON object:\n"
		"  {\"filter\",\"digest\",\"since\",\"until\",\"oldest\",\"oldest_ns\",\n"
		"   \"windows\":[{\"id\",\"start\",\"start_ns\",\"end\",\"end_ns\",\n"
		"   \"packets\",\"fill\"},...],\"packets\":[{\"index\",\"ts\",\"ts_ns\",\n"
		"   \"description\",\"digest\",\"windows\":[ID,...],\"present\",\"status\"}\n"
		"   or {...,\"status\":\"no digest\",\"skip\":REASON},...],\n"
		"   \"packets_total\",\"present\",\"absent\",\"not_recorded\",\"skipped\"}\n"
		"status: \"present\", \"absent\", \"absent in part\" or \"not recorded\".\n"
		"Exit status: 0 every packet with a digest present, 1 some absent or\n"
		"not recorded (wholly or in part), 2 error.\n"
		"On a transforms table (no digest mode): each packet, as it left the\n"
		"router, is looked up in the windows overlapping [since, until]; each\n"
		"record found gives the packet as it arrived, and its spie digest (what\n"
		"the routers before this one recorded):\n"
		"  INDEX [TIME] DESCRIPTION: SNAT A <- B (window ID), before:\n"
		"                            DESCRIPTION, digest 0x...[; ...]\n"
		"  INDEX [TIME] DESCRIPTION: not transformed here\n"
		"  N packets: T transformed, U not\n"
		"(A <- B: as it left <- as it arrived; SNAT for the source, DNAT for\n"
		"the destination). With -j, per packet {\"packet\",\"time\",\"time_ns\",\n"
		"\"description\",\"transforms\":[{\"window\",\"transform\",\"before\",\n"
		"\"before_digest\",\"before_packet\"},...]} (an array for pcap). Exit\n"
		"status: 0 every packet transformed, 1 some not, 2 error.\n",
	},
	{
		"digest", cmd_digest, "print the digest of packets",
		"packet HEX [digest MODE] [kernel [linear N]]\n"
		"pcap FILE [digest MODE] [kernel [linear N]]\n",
		"Prints the digest of a packet (HEX as for 'query') or of every IP\n"
		"packet of a capture, in MODE (default spie; see 'bloomctl attach\n"
		"--help'), computed here by the module's digest code; with 'kernel',\n"
		"by the loaded module itself, which builds an skb of the bytes (the\n"
		"first N, at least 1 and at most the packet, in its linear area with\n"
		"'linear N', the rest in page fragments) and digests it as its hooks\n"
		"do: the two outputs are the same byte for byte. A digest is printed\n"
		"as a KEY (0x...) for add, test and count, or for multi as the TUPLE\n"
		"src=0x...,dst=0x...,dport=0x...; a packet without one as \"no digest\n"
		"(REASON)\". With pcap each line starts with the frame's index. With\n"
		"-j: {\"digest\",\"by\":\"bloomctl\"|\"kernel\",\"packets\":[{\"index\",\n"
		"\"digest\"} or {\"index\",\"skip\"},...]}.\n",
	},
	{
		"save", cmd_save, "save a filter's contents to a file",
		"NAME FILE [window ID] [compress zstd]\n"
		"all DIR [compress zstd]\n",
		"Writes filter NAME (its shape, hash key, counters and cells) to\n"
		"FILE in the kbloom save file format (versioned, little-endian,\n"
		"CRC32C-checked; see userspace/savefile.h), streamed from the kernel\n"
		"as it is read. FILE is written as a new FILE.XXXXXX (random suffix,\n"
		"mode 0600: the file holds the filter's secret hash key, with which\n"
		"anyone can craft keys that collide) and renamed when complete: a\n"
		"failed save leaves no file. FILE '-' is stdout.\n"
		"  window ID      of a time-paged filter, that window (IDs: 'bloomctl\n"
		"                 show NAME'); default the current window, or the only\n"
		"                 table of a filter without windows. The current window\n"
		"                 is saved while it takes adds: every key added before\n"
		"                 the save began is in the file.\n"
		"  compress zstd  compress the file (a filter at low fill shrinks a lot)\n"
		"A scalable filter or a dcf is saved with its layout (every slice; the\n"
		"overflow vector and its width) as format version 2. If the filter\n"
		"grows, is cleared or merged into, or is destroyed and made again\n"
		"during the save, the save starts again (a few times at most; with\n"
		"FILE '-' it fails instead). 'restore' reads it back.\n"
		"save all DIR writes every filter of the namespace as DIR/NAME.kbf,\n"
		"one such file each, into a new directory DIR.XXXXXX (mode 0700) that\n"
		"then takes DIR's place in one step (an existing DIR is swapped out\n"
		"and removed; it may hold nothing but the .kbf files of an earlier\n"
		"save all): DIR is always one whole save, and a failed save all\n"
		"leaves it as it was. A filter with windows is saved as its current\n"
		"window, which restore makes a filter without windows ('archive'\n"
		"keeps the closed windows). Attachments are not saved. Prints nothing\n"
		"on success.\n",
	},
	{
		"restore", cmd_restore, "create a filter from a save file",
		"FILE [as NAME]\n"
		"all DIR\n",
		"Creates a filter from a file written by 'save' or 'archive', named\n"
		"as when saved or NAME: same type, shape, hash key, dimensions and\n"
		"cells, so it answers test, count and query exactly as the saved\n"
		"table did (its counters start at 0). A saved window becomes a filter\n"
		"without windows holding that window's table; a scalable filter or a\n"
		"dcf gets the saved slices or overflow vector back (and its overflow\n"
		"or lost count), so it also grows on as the original. The whole file is\n"
		"checked first (CRCs, header, the cell size its shape needs): a bad\n"
		"file is refused with its name and the byte where it went wrong, and\n"
		"nothing is created. The filter appears only once every cell is\n"
		"loaded; a restore that fails or is killed half-way leaves nothing\n"
		"behind. An existing NAME is refused (--exist does not apply: a\n"
		"restore brings contents, not a setup). FILE '-' is stdin.\n"
		"restore all DIR restores every DIR/*.kbf file ('save all'), all or\n"
		"nothing: every file is checked first (one bad file and nothing is\n"
		"created), every filter is loaded hidden, and they appear together\n"
		"only once all are loaded; an existing name, two files of one name,\n"
		"or the memory limit refuses the whole restore. Attach again\n"
		"afterwards: attachments are not saved. Prints nothing on success.\n",
	},
	{
		"archive", cmd_archive, "save every closed window of a filter",
		"NAME DIR [once] [compress zstd]\n",
		"For time-paged filter NAME (create ... windows W interval D), saves\n"
		"every closed window not yet in directory DIR as\n"
		"  DIR/NAME.<window ID, 10 digits>.kbf\n"
		"a save file each (see 'save': mode 0600, as they hold the hash key;\n"
		"written under a temp name and renamed, so a reader never sees half a\n"
		"file). Without 'once' it keeps going,\n"
		"looking every interval/4 (at most 1 s), until SIGINT or SIGTERM (exit\n"
		"status 0); with 'once' it archives the windows closed now and exits.\n"
		"A window dropped by a rotation before it could be saved (W too\n"
		"small for the interval) is reported on stderr as lost and counted,\n"
		"and archiving goes on. compress zstd as for 'save'. Prints a line\n"
		"per window archived:\n"
		"  window ID (START to END, N inserts): FILE, BYTES bytes\n"
		"With -j, one JSON object per line: {\"filter\",\"file\",\"bytes\",\n"
		"\"window\":{\"id\",\"start\",\"start_ns\",\"end\",\"end_ns\",\"packets\",\n"
		"\"fill\"}}, or {\"filter\",\"window\",\"lost\":true}. 'restore' loads a\n"
		"window back into the kernel.\n",
	},
	{
		"monitor", cmd_monitor, "print filter events as they happen",
		"[NAME]\n",
		"Listens to the module's events in the network namespace (the\n"
		"init one, or -n's; CAP_NET_ADMIN there is needed) and prints one\n"
		"line per event as it comes, of every filter or only of filter NAME\n"
		"(which need not exist yet), until SIGINT or SIGTERM (exit status 0):\n"
		"  create NAME type TYPE      a filter was created (or restored)\n"
		"  destroy NAME               a filter was destroyed (destroy NAME or\n"
		"                             destroy all)\n"
		"  rotate NAME closed window ID (START to END, N packets), opened window ID2\n"
		"                             a time-paged filter rotated: window ID\n"
		"                             closed holding N keys, ID2 opened (times\n"
		"                             local, with milliseconds)\n"
		"A rotate line ends in \", saturated S\" when S > 0: the counters at\n"
		"their maximum in the closed window (counting, dleft, stable). Each\n"
		"line is flushed as it is printed, so a pipe or a file sees it at\n"
		"once. With -j, one JSON object per line:\n"
		"  {\"event\":\"create\",\"filter\":NAME,\"type\":TYPE}\n"
		"  {\"event\":\"destroy\",\"filter\":NAME,\"type\":TYPE}\n"
		"  {\"event\":\"rotate\",\"filter\":NAME,\"closed\":WINDOW,\"opened\":WINDOW,\n"
		"   \"saturated\":S}\n"
		"where WINDOW is {\"id\",\"start\",\"start_ns\",\"end\",\"end_ns\",\"packets\",\n"
		"\"fill\"} as in 'show -j' (end null and end_ns 0 for the opened one).\n"
		"Events the kernel could not queue (a full receive buffer) are lost:\n"
		"a line on stderr says so and monitoring goes on. Exit status 2 on an\n"
		"error (module not loaded, no permission, unknown namespace).\n",
	},
	{
		"metrics", cmd_metrics, "print figures for Prometheus",
		"[FILE|-]\n",
		"Prints the module's figures and those of every filter of the network\n"
		"namespace (the init one, or -n's) in the Prometheus text format; with\n"
		"FILE, writes them to FILE instead, atomically (FILE.PID.tmp in its\n"
		"directory, mode 0644, renamed over FILE): what the node exporter's\n"
		"textfile collector reads, e.g.\n"
		"  bloomctl metrics /var/lib/prometheus/node-exporter/kbloom.prom\n"
		"from kbloom-metrics.timer. With -n NS every sample is also labelled\n"
		"netns=\"NS\", so one file per namespace can sit in that directory.\n"
		"Module: kbloom_module_loaded (0, and nothing else, when it is\n"
		"not), kbloom_module_info{version},\n"
		"kbloom_filters, kbloom_filters_max, kbloom_memory_bytes (this\n"
		"namespace), kbloom_memory_all_bytes, kbloom_memory_limit_bytes and,\n"
		"in a container's namespace, kbloom_user_{filters,filters_max,\n"
		"memory_bytes,memory_limit_bytes}. Per filter, labelled filter=\"NAME\":\n"
		"kbloom_filter_info{type}, _cells, _hashes, _capacity_keys,\n"
		"_memory_bytes, _fill_cells, _fill_ratio, _saturated_cells,\n"
		"_generation, _inserts_total, _queries_total, _positives_total,\n"
		"_deletes_total, _estimated_keys, _false_positive_ratio (now),\n"
		"_false_positive_ratio_at_capacity, _false_positive_ratio_limit\n"
		"(stable, scalable), time-paged: _windows, _windows_max,\n"
		"_window_interval_seconds, _rotations_total; attached:\n"
		"_attach_info{hook,family,digest,dev}, _packets_seen_total,\n"
		"_packets_digested_total, _packets_skipped_total{reason}; growing\n"
		"types: _slices, _overflow_keys_total, _ofv_bits,\n"
		"_lost_increments_total, _growth_stopped{reason}. Each is what\n"
		"'show -j' gives (a figure show -j leaves out is left out). Exit\n"
		"status 2 when the module cannot be asked or FILE not written (FILE\n"
		"is then left as it was).\n",
	},
	{
		"trace", cmd_trace, "trace a packet upstream through routers",
		"TOPOLOGY from ROUTER pcap FILE [packet N] [at TIME] [slack DURATION] [victim PREFIX[,PREFIX...]] [parallel N] [timeout DURATION] [reuse yes|no] [dot FILE]\n"
		"TOPOLOGY from ROUTER packet HEX [at TIME] [slack DURATION] [victim PREFIX[,PREFIX...]] [parallel N] [timeout DURATION] [reuse yes|no] [dot FILE]\n",
		"Hash-based IP traceback (SPIE): finds the routers a packet passed\n"
		"through, even with a forged source, from the digest tables ('attach\n"
		"... digest spie' on time-paged filters) of the routers listed in the\n"
		"TOPOLOGY file, one statement a line ('#' comments):\n"
		"  router NAME netns NETNS filter FILTER     a namespace here ('-': this\n"
		"                                            one, or -n's)\n"
		"  router NAME archive DIR filter FILTER     windows of 'bloomctl archive'\n"
		"  ... [transforms TABLE]                    (netns, archive) its NAT's\n"
		"                                            transforms table (below)\n"
		"  router NAME ssh [USER@]HOST filter FILTER [netns NETNS] [port N]\n"
		"         [identity FILE] [config FILE] [bloomctl PATH]\n"
		"                                            a remote router: runs\n"
		"                                            'PATH -j query' there over ssh\n"
		"  router NAME none                          records nothing (no kbloom):\n"
		"                                            stepped over, never asked\n"
		"  link NAME NAME                            neighbours (undirected)\n"
		"Relative paths are taken from the TOPOLOGY file's directory.\n"
		"  from ROUTER     the router next to the victim: the walk starts there\n"
		"  pcap FILE       every IP packet of the capture is traced ('packet N':\n"
		"                  only frame N); packet HEX: one packet from its IP header\n"
		"  at TIME         when the victim saw it (default: its capture time;\n"
		"                  now for packet HEX); TIME as for 'query'\n"
		"  slack DURATION  how long before 'at' a hop may have seen it (2s)\n"
		"  victim PREFIX,...  the victim's addresses (ADDR or ADDR/LEN, IPv4 or\n"
		"                  IPv6): packets from them are left out, as the victim\n"
		"                  sent them; so are those a capture records as outgoing\n"
		"                  (Linux cooked captures: tcpdump -i any). Capture with\n"
		"                  'tcpdump -Q in' to record only what the victim received\n"
		"  parallel N      routers asked at once in a step, 1 to 256 (16)\n"
		"  timeout DURATION  an ssh question not answered by then is killed and\n"
		"                  its router unknown (60s)\n"
		"  reuse no        one ssh connection per question, not one per router\n"
		"                  for the whole trace (OpenSSH ControlMaster; yes)\n"
		"  dot FILE        also draw the trace as a Graphviz DOT graph in FILE\n"
		"                  ('-': standard output, alone there; not with -j):\n"
		"                  every router and link grey, the traced edges red,\n"
		"                  each hop with its window and fpr, the ingress\n"
		"                  filled red (render: dot -Tsvg FILE -o trace.svg)\n"
		"Breadth first from ROUTER, each step asks every router next to the\n"
		"path (and not yet asked) about all its pending packets at once; a\n"
		"router joins the path when one of its windows overlapping [at - slack,\n"
		"at] holds the packet's digest. A router that cannot be asked (down,\n"
		"no filter, a failing remote bloomctl, the timeout) or declared 'none'\n"
		"is 'unknown' on the path, with the reason, and its neighbours are\n"
		"asked in its place; one with no router beyond it that saw the packet\n"
		"is listed as 'unknown next to the path'. Prints per packet the graph\n"
		"from ROUTER upstream, each hop with its window and false positive rate\n"
		"(from the window's fill), the ingress routers (the deepest first; those\n"
		"where false positives branch it in parentheses), the routers asked and\n"
		"the expected number of false branches (the sum of their rates). A\n"
		"packet older than ROUTER's oldest window is 'not traceable', not absent.\n"
		"Through NAT and tunnels: a router with 'transforms TABLE' looks each\n"
		"packet up in its transforms table (windows overlapping [at - slack,\n"
		"at]; see 'bloomctl create --help'); a record found turns the packet\n"
		"back into what arrived there (NAT undone, or the outer packet of an\n"
		"IPIP or GRE tunnel), its hop prints the transform (\"SNAT A <- B\n"
		"(window ID)\", \"GRE A > B id N\"), and the routers upstream are asked\n"
		"about that form too.\n"
		"Fragments: a fragment whose first and last siblings are in the\n"
		"capture is also asked about as the packet it was cut from (what the\n"
		"routers before the fragmenting one saw).\n"
		"With -j, a JSON object per packet (an array for several): see\n"
		"docs/trace.md. $KBLOOM_SSH names the ssh program (default ssh).\n"
		"Left-out packets are listed ('left out (sent by the victim: ...)') and\n"
		"counted, never traced. Exit status: 0 every packet not left out traced\n"
		"to at least ROUTER and every router asked answered, 1 some packet\n"
		"absent there, not traceable, without a digest or unknown there, none\n"
		"left to trace, or some router could not be asked (a partial trace),\n"
		"2 error (bad topology or arguments: nothing was traced).\n",
	},
	{
		"batch", cmd_batch, "run commands from a file, one a line",
		"[-k] [FILE|-]\n",
		"Runs the commands of FILE (standard input when FILE is '-' or not\n"
		"given), one a line, each as if it were given to bloomctl as COMMAND\n"
		"[ARGS]: -j and -n (given before 'batch') apply to every line. A line\n"
		"is words separated by blanks (spaces, tabs). '...' quotes everything\n"
		"up to the next '; \"...\" everything up to the next \" but \\\" and \\\\\n"
		"stand for \" and \\; outside quotes \\ takes the next character as it\n"
		"is. So a key with blanks is written \"two words\", 'two words' or\n"
		"two\\ words, and \"\" is an empty argument. A word starting with an\n"
		"unquoted # starts a comment, to the end of the line; blank lines and\n"
		"comments are skipped, and a trailing \\r is dropped. A line may not\n"
		"run batch or start with a global option.\n"
		"Lines run in order. The first that fails (exit status 2, or a line\n"
		"that does not parse) stops the batch: its error, one line on stderr,\n"
		"names the line,\n"
		"  bloomctl: FILE:LINE: unable to clear filter 'x': ...\n"
		"('stdin' for standard input) and the lines after it do not run.\n"
		"  -k   keep going: run every line, report each failure as above as\n"
		"       it happens, and at the end list them in one more line:\n"
		"         bloomctl: FILE: F of N commands failed: lines L1, L2, ...\n"
		"A negative answer (exit status 1: a key absent for test, a packet\n"
		"for query or trace) is not a failure and does not stop the batch.\n"
		"Each line opens its own netlink socket. When the batch is read from\n"
		"standard input, a command given '-' (standard input) reads nothing.\n"
		"Exit status: 0 every line succeeded, 1 none failed but some answered\n"
		"negatively, 2 some line failed or FILE could not be read.\n",
	},
};

static const char keys_help[] =
	"KEY is taken as literal bytes; 0x followed by an even number of hex\n"
	"digits is hex (0x666f6f is the key foo). A key is 1 to {KEY_MAX} bytes.\n"
	"For a multi filter a key is a tuple of DIM=VALUE items separated by\n"
	"commas, one tuple per argument or line, e.g.\n"
	"  src=10.0.0.1,dst=10.0.0.2,dport=80\n"
	"DIM is one of the filter's dimensions (see 'show'), each at most once;\n"
	"VALUE is a KEY as above, and a value holding ',' or '=' must be given\n"
	"in hex. add needs every dimension; test any non-empty subset (present\n"
	"when each dimension named holds its value).\n";

/* Prints @s, replacing the {LIMIT} names of struct command. */
static void print_text(FILE *f, const char *s)
{
	const struct {
		const char *name;
		unsigned long long v;
	} vars[] = {
		{ "NAME_LEN", KBLOOM_NAME_MAX - 1 },
		{ "KEY_MAX", KBLOOM_KEY_MAX },
		{ "BITS_MIN", KBLOOM_BITS_MIN },
		{ "BITS_MAX", KBLOOM_BITS_MAX },
		{ "BITS_MAX_LOG2", __builtin_ctzll(KBLOOM_BITS_MAX) },
		{ "HASHES_MAX", KBLOOM_HASHES_MAX },
		{ "MEM_MAX", KBLOOM_MEM_MAX },
		{ "DIMS_MAX", KBLOOM_DIMS_MAX },
		{ "DIM_NAME_LEN", KBLOOM_DIM_NAME_MAX - 1 },
		{ "DECREMENT_MAX", KBLOOM_DECREMENT_MAX },
		{ "WINDOWS_MAX", KBLOOM_WINDOWS_MAX },
		{ "PACKET_MAX", KBLOOM_PACKET_MAX },
	};
	const char *end;
	size_t i, len;

	while (*s) {
		if (*s != '{' || !(end = strchr(s, '}'))) {
			fputc(*s++, f);
			continue;
		}
		len = end - s - 1;
		for (i = 0; i < ARRAY_SIZE(vars); i++)
			if (strlen(vars[i].name) == len &&
			    !memcmp(vars[i].name, s + 1, len))
				break;
		if (i == ARRAY_SIZE(vars)) {
			fputc(*s++, f);
			continue;
		}
		fprintf(f, "%llu", vars[i].v);
		s = end + 1;
	}
}

static void print_usage_lines(FILE *f, const struct command *c)
{
	const char *p = c->usage, *nl;
	bool first = true;

	while (*p) {
		nl = strchr(p, '\n');
		fprintf(f, "%s bloomctl %s%s%.*s\n", first ? "Usage:" : "      ",
			c->name, nl != p ? " " : "", (int)(nl - p), p);
		first = false;
		p = nl + 1;
	}
}

static void main_help(FILE *f)
{
	size_t i;

	fputs("Usage: bloomctl [-j|-json|--json] [-n|--netns NAME] [-e|--exist] [-q|--quiet] COMMAND [ARGS]\n"
	      "\n"
	      "Manages kbloom filters (Bloom filters in kernel memory) over\n"
	      "generic netlink.\n"
	      "\n"
	      "Options:\n"
	      "  -j, -json, --json   print JSON (list, show, test, count, estimate,\n"
	      "                      calc, query, digest, archive, trace, monitor)\n"
	      "  -n, --netns NAME    work in network namespace NAME (/run/netns/NAME)\n"
	      "  -e, --exist         create and attach succeed when the very filter or\n"
	      "                      attachment asked for exists already (a setup\n"
	      "                      script may run again); one that differs is still\n"
	      "                      an error naming the difference\n"
	      "  -q, --quiet         no progress line: on a terminal, long work (add,\n"
	      "                      test, del and count -f, save, restore, archive,\n"
	      "                      trace) shows one on stderr, erased at the end;\n"
	      "                      never with -j, nor when stderr is no terminal\n"
	      "  -h, --help          print this help\n"
	      "  -V, --version       print bloomctl's version and the loaded module's\n"
	      "                      (warns when they differ; does not load it)\n"
	      "\n"
	      "Commands:\n", f);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-9s %s\n", "help", "print help: bloomctl help [COMMAND]");
	fputs("\n", f);
	print_text(f, keys_help);
	fputs("Exit status: 0 success, 1 a negative answer (test, query, trace;\n"
	      "batch: a line answered negatively), 2 an error.\n"
	      "Run 'bloomctl COMMAND --help' for the arguments of a command.\n"
	      "COMMAND may be any prefix that names one command (li: list); a\n"
	      "prefix of several is an error naming them.\n",
	      f);
}

static void command_help(const struct command *c)
{
	print_usage_lines(stdout, c);
	fputs("\n", stdout);
	print_text(stdout, c->help);
	if (!strcmp(c->name, "add") || !strcmp(c->name, "test") ||
	    !strcmp(c->name, "del") || !strcmp(c->name, "count")) {
		fputs("\n", stdout);
		print_text(stdout, keys_help);
	}
}

/* The help command: not in the table, but a name like the others. */
static const struct command help_entry = { .name = "help" };

/*
 * The command @word names, as iproute2 takes them: its full name, or a
 * prefix of exactly one command's name ("li" is list; "help" counts).
 * NULL when none; *@ambiguous (may be NULL) tells a prefix of several.
 */
static const struct command *match_command(const char *word, bool *ambiguous)
{
	const struct command *found = NULL;
	size_t i, n = strlen(word), hits = 0;

	if (ambiguous)
		*ambiguous = false;
	if (!strcmp(word, help_entry.name))
		return &help_entry;
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, word))
			return &commands[i];
	if (!n)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!strncmp(commands[i].name, word, n)) {
			found = &commands[i];
			hits++;
		}
	}
	if (!strncmp(help_entry.name, word, n)) {
		found = &help_entry;
		hits++;
	}
	if (hits > 1) {
		if (ambiguous)
			*ambiguous = true;
		return NULL;
	}
	return found;
}

const char *command_full_name(const char *word)
{
	const struct command *c = match_command(word, NULL);

	return c ? c->name : NULL;
}

/* match_command(), printing why when it finds none. */
static const struct command *find_command(const char *word)
{
	const struct command *c;
	char names[256];
	size_t i, n = 0, len = strlen(word);
	bool ambiguous;

	c = match_command(word, &ambiguous);
	if (c)
		return c;
	if (!ambiguous) {
		errorf("unknown command '%s' (see 'bloomctl --help')",
		       quote(word));
		return NULL;
	}
	names[0] = '\0';
	for (i = 0; i <= ARRAY_SIZE(commands); i++) {
		const char *name = i < ARRAY_SIZE(commands) ?
				   commands[i].name : help_entry.name;

		if (!strncmp(name, word, len) && n < sizeof(names))
			n += snprintf(names + n, sizeof(names) - n, "%s%s",
				      n ? ", " : "", name);
	}
	errorf("ambiguous command '%s': %s (see 'bloomctl --help')",
	       quote(word), names);
	return NULL;
}

void usage_errorf(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errorf("%s: %s (see 'bloomctl %s --help')", cmd, msg, cmd);
}

void unexpected_argument(const char *cmd, const char *arg)
{
	static const char *const globals[] = { "-j", "--json", "-n", "--netns",
					       "-e", "--exist" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(globals); i++) {
		if (!strncmp(arg, globals[i], strlen(globals[i]))) {
			usage_errorf(cmd, "unexpected argument '%s': global options go before the command",
				     quote(arg));
			return;
		}
	}
	usage_errorf(cmd, "unexpected argument '%s'", quote(arg));
}

int open_netlink(struct kb_nl *nl)
{
	return kb_nl_open(nl, opts.netns);
}

int filter_cmd_open(int argc, char **argv, bool all, struct kb_nl *nl)
{
	if (argc < 2) {
		usage_errorf(argv[0], all ? "missing filter NAME (or 'all')" :
			     "missing filter NAME");
		return -1;
	}
	if (argc > 2) {
		unexpected_argument(argv[0], argv[2]);
		return -1;
	}
	if (!(all && !strcmp(argv[1], "all")) && !check_name(argv[1]))
		return -1;
	return open_netlink(nl) ? -1 : 0;
}

static int help_command(int argc, char **argv)
{
	const struct command *c;

	/* help, help --help and help -h: the main help */
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_help(stdout);
		return EXIT_OK;
	}
	if (argc > 2) {
		unexpected_argument("help", argv[2]);
		return EXIT_ERROR;
	}
	c = find_command(argv[1]);
	if (!c)
		return EXIT_ERROR;
	if (c == &help_entry) {
		main_help(stdout);
		return EXIT_OK;
	}
	command_help(c);
	return EXIT_OK;
}

int run_command(int argc, char **argv)
{
	const struct command *c;

	c = find_command(argv[0]);
	if (!c)
		return EXIT_ERROR;
	/* The command's messages name it in full, not as abbreviated. */
	argv[0] = (char *)c->name;
	if (c == &help_entry)
		return help_command(argc, argv);
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		command_help(c);
		return EXIT_OK;
	}
	return c->fn(argc, argv);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "netns", required_argument, NULL, 'n' },
		{ "exist", no_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *c;
	int opt, ret, i;

	/*
	 * -json, as iproute2 spells it, is --json: among the global options
	 * only (up to the command; -n takes the next word).
	 */
	for (i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-json"))
			argv[i] = "--json";
		else if (!strcmp(argv[i], "-n") || !strcmp(argv[i], "--netns"))
			i++;
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:jeqn:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			opts.json = true;
			break;
		case 'n':
			opts.netns = optarg;
			break;
		case 'e':
			opts.exist = true;
			break;
		case 'q':
			opts.quiet = true;
			break;
		case 'h':
			main_help(stdout);
			return EXIT_OK;
		case 'V':
			return print_version();
		case ':':
			errorf("option '%s' needs a NAME", argv[optind - 1]);
			return EXIT_ERROR;
		default:
			if (optopt)
				errorf("unknown option '-%c' (see 'bloomctl --help')",
				       optopt);
			else
				errorf("unknown option '%s' (see 'bloomctl --help')",
				       quote(argv[optind - 1]));
			return EXIT_ERROR;
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc) {
		main_help(stderr);
		return EXIT_ERROR;
	}
	/*
	 * --exist only where something is made: never a silent no-op. (The
	 * command's own errors, unknown or ambiguous, come from run_command.)
	 */
	c = match_command(argv[0], NULL);
	if (opts.exist && c && c->fn != cmd_create && c->fn != cmd_attach &&
	    c->fn != cmd_batch) {
		errorf("option --exist applies to create, attach and batch, not to '%s'",
		       quote(argv[0]));
		return EXIT_ERROR;
	}
	progress_allow(!opts.quiet && !opts.json);
	ret = run_command(argc, argv);
	if (fflush(stdout) || ferror(stdout)) {
		errorf("unable to write the output: %m");
		return EXIT_ERROR;
	}
	return ret;
}
