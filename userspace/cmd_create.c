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
	int r = kb_params_size(p, capacity, fpr);

	if (r == -ERANGE)
		errorf("unable to size filter '%s': a %s filter of capacity %llu at fpr %s needs more than %llu cells or %llu bytes",
		       quote(name), kb_type_str(p->type),
		       (unsigned long long)capacity, quote(fpr_text),
		       KBLOOM_BITS_MAX, KBLOOM_MEM_MAX);
	else if (r == -EDOM && p->type == KBLOOM_TYPE_DLEFT)
		errorf("unable to size filter '%s': fpr %s needs more than %d fingerprint bits with %u subtables of %u-cell buckets at 75%% load",
		       quote(name), quote(fpr_text), KB_DLEFT_FP_MAX,
		       p->subtables, p->bucket_cells);
	else if (r == -EDOM && p->type == KBLOOM_TYPE_STABLE)
		errorf("unable to size filter '%s': fpr %s needs more decrements per add than the %llu cells or %d",
		       quote(name), quote(fpr_text),
		       (unsigned long long)p->m, KBLOOM_DECREMENT_MAX);
	else if (r)
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
	if (val[P_HASHES] && type == KBLOOM_TYPE_DLEFT && hashes != 1) {
		errorf("invalid hashes '%s': a dleft filter has 1 (one hash gives the buckets and the fingerprint)",
		       quote(val[P_HASHES]));
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
	if (type == KBLOOM_TYPE_MULTI && !tval[TO_DIMS]) {
		usage_errorf(argv[0],
			     "a multi filter needs 'dims LIST' (its dimension names)");
		return EXIT_ERROR;
	}
	if (type == KBLOOM_TYPE_SCALABLE && !val[P_CAPACITY]) {
		usage_errorf(argv[0],
			     "a scalable filter needs 'capacity N' (its first slice's keys)");
		return EXIT_ERROR;
	}
	p.capacity = capacity;

	if (type == KBLOOM_TYPE_TRANSFORMS) {
		if (val[P_FPR] || val[P_HASHES] || !val[P_CAPACITY]) {
			usage_errorf(argv[0], "%s",
				     val[P_FPR] ? "a transforms table has no false positive rate: give 'capacity N' (records)" :
				     val[P_HASHES] ? "a transforms table takes no 'hashes'" :
				     "a transforms table needs 'capacity N' (the records one window holds)");
			return EXIT_ERROR;
		}
		/* 75% load: a record finds a cell in its few lines. */
		p.m = val[P_BITS] ? bits : capacity > KBLOOM_BITS_MAX ?
		      KBLOOM_BITS_MAX + 1 : (capacity * 4 + 2) / 3;
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
		   (!val[P_HASHES] && type != KBLOOM_TYPE_DLEFT)) {
		usage_errorf(argv[0], "%s",
			     val[P_BITS] ? "missing 'hashes K'" :
			     val[P_HASHES] ? "missing 'bits M'" :
			     "give 'bits M hashes K' or 'capacity N fpr P'");
		return EXIT_ERROR;
	} else {
		p.m = bits;
		p.k = type == KBLOOM_TYPE_DLEFT ? 1 : hashes;
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

	if (p.type == KBLOOM_TYPE_SCALABLE && capacity > p.m) {
		errorf("invalid capacity '%s': more keys than the %llu bits of the first slice",
		       quote(val[P_CAPACITY]), (unsigned long long)p.m);
		return EXIT_ERROR;
	}
	if (p.type == KBLOOM_TYPE_STABLE && p.decrement > p.m) {
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
