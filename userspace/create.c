// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * create NAME TYPE bits M hashes K [key HEX32] [capacity N]
 * create NAME TYPE capacity N fpr P [key HEX32]
 * Keywords in any order, each at most once.
 */
#include <errno.h>
#include <string.h>

#include "commands.h"
#include "describe.h"
#include "keyparse.h"
#include "sizing.h"
#include "util.h"

enum { P_BITS, P_HASHES, P_CAPACITY, P_FPR, P_KEY, P_NUM };
static const char *const param_names[P_NUM] = {
	[P_BITS] = "bits",
	[P_HASHES] = "hashes",
	[P_CAPACITY] = "capacity",
	[P_FPR] = "fpr",
	[P_KEY] = "key",
};

int cmd_create(int argc, char **argv)
{
	const char *name, *val[P_NUM] = { 0 };
	uint8_t hkey[KBLOOM_HASH_KEY_LEN];
	uint64_t bits = 0, capacity = 0;
	uint32_t hashes = 0;
	double fpr = 0;
	struct nl_msg *msg;
	struct kb_nl nl;
	int type, i, p, r;

	if (argc < 3) {
		usage_errorf(argv[0], argc < 2 ? "missing filter NAME" :
			     "missing filter TYPE");
		return EXIT_ERROR;
	}
	name = argv[1];
	if (!check_name(name))
		return EXIT_ERROR;
	if (name[0] == '-' || !strcmp(name, "all")) {
		errorf("invalid filter name '%s': %s", quote(name),
		       name[0] == '-' ? "must not start with '-'" :
		       "'all' is reserved (destroy all)");
		return EXIT_ERROR;
	}
	type = kb_type_parse(argv[2]);
	if (type < 0) {
		errorf("invalid filter type '%s': known types are %s",
		       quote(argv[2]), kb_type_list());
		return EXIT_ERROR;
	}

	for (i = 3; i < argc; i += 2) {
		for (p = 0; p < P_NUM; p++)
			if (!strcmp(argv[i], param_names[p]))
				break;
		if (p == P_NUM) {
			usage_errorf(argv[0], "unknown argument '%s'",
				     quote(argv[i]));
			return EXIT_ERROR;
		}
		if (val[p]) {
			usage_errorf(argv[0], "'%s' given twice",
				     param_names[p]);
			return EXIT_ERROR;
		}
		if (i + 1 >= argc) {
			usage_errorf(argv[0], "'%s' needs a value",
				     param_names[p]);
			return EXIT_ERROR;
		}
		val[p] = argv[i + 1];
	}

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

	if (val[P_FPR]) {
		if (val[P_BITS] || val[P_HASHES]) {
			usage_errorf(argv[0],
				     "give either 'bits M hashes K' or 'capacity N fpr P', not both");
			return EXIT_ERROR;
		}
		if (!val[P_CAPACITY]) {
			usage_errorf(argv[0], "'fpr' needs 'capacity N'");
			return EXIT_ERROR;
		}
		r = sizing_from_capacity(capacity, fpr, &bits, &hashes);
		if (r) {
			errorf("unable to size filter '%s': capacity %llu at fpr %s needs more than %llu bits",
			       quote(name), (unsigned long long)capacity,
			       quote(val[P_FPR]), KBLOOM_BITS_MAX);
			return EXIT_ERROR;
		}
	} else if (!val[P_BITS] || !val[P_HASHES]) {
		usage_errorf(argv[0], "%s",
			     val[P_BITS] ? "missing 'hashes K'" :
			     val[P_HASHES] ? "missing 'bits M'" :
			     "give 'bits M hashes K' or 'capacity N fpr P'");
		return EXIT_ERROR;
	}

	if (open_netlink(&nl))
		return EXIT_ERROR;
	msg = kb_nl_msg(&nl, KBLOOM_CMD_CREATE, 0, 0);
	kb_put_name(msg, name);
	kb_put_u32(msg, KBLOOM_A_TYPE, type);
	kb_put_u64(msg, KBLOOM_A_BITS, bits);
	kb_put_u32(msg, KBLOOM_A_HASHES, hashes);
	if (val[P_KEY])
		kb_put(msg, KBLOOM_A_HASH_KEY, hkey, sizeof(hkey));
	if (val[P_CAPACITY])
		kb_put_u64(msg, KBLOOM_A_CAPACITY, capacity);
	r = kb_nl_request(&nl, msg, NULL, NULL);
	nlmsg_free(msg);
	if (r)
		kb_nl_perror(&nl, "unable to create filter '%s'", quote(name));
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}
