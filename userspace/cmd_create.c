// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * create NAME TYPE bits M hashes K [key HEX32] [capacity N] [OPTION...]
 * create NAME TYPE capacity N fpr P [key HEX32] [OPTION...]
 * Either also with windows W interval DURATION (time-paged).
 * Keywords in any order, each at most once. The sizing math is sizing.c;
 * only the attributes the type takes are sent.
 */
#include <errno.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "commands.h"
#include "describe.h"
#include "keyparse.h"
#include "limit_figures.h"
#include "sizing.h"
#include "timefmt.h"
#include "typeopts.h"
#include "types.h"
#include "util.h"

enum { P_BITS, P_HASHES, P_CAPACITY, P_FPR, P_KEY, P_WINDOWS, P_INTERVAL,
       P_NUM };
static const char *const param_names[P_NUM] = {
	[P_BITS] = "bits",
	[P_HASHES] = "hashes",
	[P_CAPACITY] = "capacity",
	[P_FPR] = "fpr",
	[P_KEY] = "key",
	[P_WINDOWS] = "windows",
	[P_INTERVAL] = "interval",
};

/* The request: the common attributes, then the type's own. */
static struct nl_msg *create_msg(struct kb_nl *nl, const char *name,
				 const struct kb_shape *p,
				 const struct kb_dims *dims,
				 const uint8_t *hkey, uint64_t capacity,
				 uint32_t windows, uint64_t interval_ms)
{
	struct nl_msg *msg = kb_nl_msg(nl, KBLOOM_CMD_CREATE, 0, 0);

	kb_put_name(msg, name);
	/* --exist: the kernel compares with a filter of the name, if any. */
	if (opts.exist)
		kb_put_u32(msg, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
	kb_put_u32(msg, KBLOOM_A_TYPE, p->type);
	kb_put_u64(msg, KBLOOM_A_BITS, p->m);
	kb_put_u32(msg, KBLOOM_A_HASHES, p->k);
	if (hkey)
		kb_put(msg, KBLOOM_A_HASH_KEY, hkey, KBLOOM_HASH_KEY_LEN);
	if (capacity)
		kb_put_u64(msg, KBLOOM_A_CAPACITY, capacity);
	if (windows) {
		kb_put_u32(msg, KBLOOM_A_WINDOWS, windows);
		kb_put_u64(msg, KBLOOM_A_INTERVAL, interval_ms);
	}
	kb_put_params(msg, p, dims->name);
	return msg;
}

/* Sizes from capacity and fpr; prints why not. */
static int size_it(const char *name, struct kb_shape *p, uint64_t capacity,
		   double fpr, const char *fpr_text)
{
	const struct kb_utype *t = kb_utype(p->type);
	int r = kb_params_size(p, capacity, fpr);
	char why[256];

	if (r == -ERANGE)
		errorf("unable to size filter '%s': a %s filter of capacity %llu at fpr %s needs more than %llu cells or %llu bytes",
		       quote(name), kb_type_str(p->type),
		       (unsigned long long)capacity, quote(fpr_text),
		       KBLOOM_BITS_MAX, KBLOOM_MEM_MAX);
	else if (r == -EDOM && t->size_edom) {
		t->size_edom(why, sizeof(why), p, quote(fpr_text));
		errorf("unable to size filter '%s': %s", quote(name), why);
	} else if (r)
		errorf("unable to size filter '%s': capacity %llu at fpr %s: %s",
		       quote(name), (unsigned long long)capacity,
		       quote(fpr_text), strerror(-r));
	return r;
}

int cmd_create(int argc, char **argv)
{
	const char *name, *val[P_NUM] = { 0 }, *tval[TO_NUM] = { 0 };
	uint8_t hkey[KBLOOM_HASH_KEY_LEN];
	struct kb_shape p = { 0 };
	struct kb_dims dims = { 0 };
	uint64_t bits = 0, capacity = 0, interval_ms = 0;
	uint32_t hashes = 0, windows = 0;
	double fpr = 0;
	struct nl_msg *msg;
	struct kb_nl nl;
	const struct kb_utype *t;
	int type, r;

	if (argc < 3) {
		usage_errorf(argv[0], argc < 2 ? "missing filter NAME" :
			     "missing filter TYPE");
		return EXIT_ERROR;
	}
	name = argv[1];
	if (!check_new_name(name))
		return EXIT_ERROR;
	type = kb_type_parse(argv[2]);
	if (type < 0) {
		errorf("invalid filter type '%s': known types are %s",
		       quote(argv[2]), kb_type_list());
		return EXIT_ERROR;
	}
	p.type = type;
	t = kb_utype(type);

	if (typeopts_args(argv[0], argc, argv, 3, param_names, P_NUM, val,
			  tval))
		return EXIT_ERROR;

	if (val[P_BITS] && (parse_u64(val[P_BITS], &bits) ||
			    bits < KBLOOM_BITS_MIN || bits > KBLOOM_BITS_MAX)) {
		errorf("invalid bits '%s': not an integer from %llu to %llu",
		       quote(val[P_BITS]), KBLOOM_BITS_MIN, KBLOOM_BITS_MAX);
		return EXIT_ERROR;
	}
	if (val[P_HASHES] && (parse_u32(val[P_HASHES], &hashes) ||
			      hashes < 1 || hashes > KBLOOM_HASHES_MAX)) {
		errorf("invalid hashes '%s': not an integer from 1 to %d",
		       quote(val[P_HASHES]), KBLOOM_HASHES_MAX);
		return EXIT_ERROR;
	}
	if (val[P_HASHES] && t->hashes && hashes != t->hashes) {
		errorf("invalid hashes '%s': a %s filter has %u (%s)",
		       quote(val[P_HASHES]), kb_type_str(type), t->hashes,
		       t->hashes_why);
		return EXIT_ERROR;
	}
	if (val[P_CAPACITY] && (parse_u64(val[P_CAPACITY], &capacity) ||
				capacity < 1)) {
		errorf("invalid capacity '%s': not an integer from 1 to %llu",
		       quote(val[P_CAPACITY]), (unsigned long long)UINT64_MAX);
		return EXIT_ERROR;
	}
	if (val[P_FPR] && (parse_double(val[P_FPR], &fpr) ||
			   !(fpr > 0 && fpr < 1))) {
		errorf("invalid fpr '%s': not a number between 0 and 1 (exclusive)",
		       quote(val[P_FPR]));
		return EXIT_ERROR;
	}
	if (val[P_KEY]) {
		size_t bad = 0;
		enum kp_error e = hex32_parse(val[P_KEY], hkey, &bad);

		if (e) {
			errorf("invalid hash key '%s': %s", quote(val[P_KEY]),
			       kp_strerror(e, val[P_KEY], bad));
			return EXIT_ERROR;
		}
	}
	if (paging_parse(argv[0], val[P_WINDOWS], val[P_INTERVAL], &windows,
			 &interval_ms))
		return EXIT_ERROR;
	if (typeopts_apply(argv[0], tval, &p, &dims, false))
		return EXIT_ERROR;
	if (kb_type_takes(type, KB_TAKES_DIMS) && !tval[TO_DIMS]) {
		usage_errorf(argv[0],
			     "a %s filter needs 'dims LIST' (its dimension names)",
			     kb_type_str(type));
		return EXIT_ERROR;
	}
	if (kb_type_takes(type, KB_TAKES_PLAN) && !val[P_CAPACITY]) {
		usage_errorf(argv[0],
			     "a %s filter needs 'capacity N' (its first slice's keys)",
			     kb_type_str(type));
		return EXIT_ERROR;
	}
	p.capacity = capacity;

	if (kb_utype_records(type)) {
		if (val[P_FPR] || val[P_HASHES] || !val[P_CAPACITY]) {
			usage_errorf(argv[0],
				     val[P_FPR] ? "a %s table has no false positive rate: give 'capacity N' (records)" :
				     val[P_HASHES] ? "a %s table takes no 'hashes'" :
				     "a %s table needs 'capacity N' (the records one window holds)",
				     kb_type_str(type));
			return EXIT_ERROR;
		}
		p.m = val[P_BITS] ? bits :
		      t->record_cells ? t->record_cells(capacity) : capacity;
		p.k = 1;
		if (kb_params_round(&p) ||
		    kb_params_bytes(&p) > KBLOOM_MEM_MAX) {
			errorf("invalid capacity '%s': %llu records of %zu bytes are more than the %llu-byte limit of one filter",
			       quote(val[P_CAPACITY]), (unsigned long long)p.m,
			       sizeof(struct kbloom_xlate), KBLOOM_MEM_MAX);
			return EXIT_ERROR;
		}
	} else if (val[P_FPR]) {
		if (val[P_BITS] || val[P_HASHES]) {
			usage_errorf(argv[0],
				     "give either 'bits M hashes K' or 'capacity N fpr P', not both");
			return EXIT_ERROR;
		}
		if (!val[P_CAPACITY]) {
			usage_errorf(argv[0], "'fpr' needs 'capacity N'");
			return EXIT_ERROR;
		}
		if (size_it(name, &p, capacity, fpr, val[P_FPR]))
			return EXIT_ERROR;
	} else if (!val[P_BITS] ||
		   (!val[P_HASHES] && !t->hashes)) {
		usage_errorf(argv[0], "%s",
			     val[P_BITS] ? "missing 'hashes K'" :
			     val[P_HASHES] ? "missing 'bits M'" :
			     "give 'bits M hashes K' or 'capacity N fpr P'");
		return EXIT_ERROR;
	} else {
		p.m = bits;
		p.k = t->hashes ? t->hashes : hashes;
		if (kb_params_complete(&p)) {
			errorf("invalid bits '%s': rounded up to a multiple of %llu it exceeds %llu",
			       quote(val[P_BITS]),
			       (unsigned long long)kb_params_multiple(&p),
			       KBLOOM_BITS_MAX);
			return EXIT_ERROR;
		}
		if (kb_params_bytes(&p) > KBLOOM_MEM_MAX) {
			errorf("invalid bits '%s': a %s filter of %llu cells takes %llu bytes, more than the %llu-byte limit of one filter",
			       quote(val[P_BITS]), kb_type_str(type),
			       (unsigned long long)p.m,
			       (unsigned long long)kb_params_bytes(&p),
			       KBLOOM_MEM_MAX);
			return EXIT_ERROR;
		}
	}

	/* The plan's first slice holds capacity keys in its m bits. */
	if (kb_type_takes(type, KB_TAKES_PLAN) && capacity > p.m) {
		errorf("invalid capacity '%s': more keys than the %llu bits of the first slice",
		       quote(val[P_CAPACITY]), (unsigned long long)p.m);
		return EXIT_ERROR;
	}
	if (kb_type_takes(type, KB_TAKES_DECREMENT) && p.decrement > p.m) {
		errorf("invalid decrement '%s': more than the %llu cells",
		       quote(tval[TO_DECREMENT]), (unsigned long long)p.m);
		return EXIT_ERROR;
	}

	if (open_netlink(&nl))
		return EXIT_ERROR;
	msg = create_msg(&nl, name, &p, &dims, val[P_KEY] ? hkey : NULL,
			 capacity, windows, interval_ms);
	r = kb_nl_request(&nl, msg, NULL, NULL);
	nlmsg_free(msg);
	if (r) {
		kb_nl_limit_figures(&nl);
		kb_nl_need_figure(&nl, kb_params_ring_bytes(&p, windows));
		kb_nl_perror(&nl, "unable to create filter '%s'", quote(name));
	}
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_create = {
	.name = "create",
	.fn = cmd_create,
	.summary = "create a filter",
	.usage =
		"NAME TYPE bits M hashes K [capacity N] [OPTION...]\n"
		"NAME TYPE capacity N fpr P [OPTION...]\n",
	.help =
		"Creates filter NAME of type TYPE in the network namespace. NAME is 1 to\n"
		"{NAME_LEN} printable bytes without spaces or '/', not starting with '-', not\n"
		"'all'. Keywords may come in any order, each at most once; OPTION is\n"
		"key HEX32, hash FUNCTION, windows W interval DURATION, or one of the\n"
		"type's keywords below:\n"
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
		"  hash FUNCTION\n"
		"               the keyed hash of the keys (not for transforms):\n"
		"               siphash-2-4, the default, or siphash-1-3, fewer\n"
		"               rounds for less time per key (the kernel's hsiphash()\n"
		"               on 64-bit). Both keep the hash key from whoever sends\n"
		"               keys, so no one can aim keys at chosen cells; 2-4 with\n"
		"               the margin its authors proposed. Filters to merge share\n"
		"               it.\n"
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
};
