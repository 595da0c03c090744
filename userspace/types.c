// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The table of bloomctl's per-type ops (types.h): the one place that maps
 * a type id to its type_NAME.c, as the engine's filter.c maps it to the
 * engine's ops.
 */
#include "types.h"

extern const struct kb_utype kb_utype_bloom, kb_utype_multi,
	kb_utype_partitioned, kb_utype_blocked, kb_utype_counting,
	kb_utype_dleft, kb_utype_stable, kb_utype_scalable, kb_utype_dcf,
	kb_utype_transforms;

static const struct kb_utype *const kb_utypes[] = {
	[KBLOOM_TYPE_BLOOM] = &kb_utype_bloom,
	[KBLOOM_TYPE_MULTI] = &kb_utype_multi,
	[KBLOOM_TYPE_PARTITIONED] = &kb_utype_partitioned,
	[KBLOOM_TYPE_BLOCKED] = &kb_utype_blocked,
	[KBLOOM_TYPE_COUNTING] = &kb_utype_counting,
	[KBLOOM_TYPE_DLEFT] = &kb_utype_dleft,
	[KBLOOM_TYPE_STABLE] = &kb_utype_stable,
	[KBLOOM_TYPE_SCALABLE] = &kb_utype_scalable,
	[KBLOOM_TYPE_DCF] = &kb_utype_dcf,
	[KBLOOM_TYPE_TRANSFORMS] = &kb_utype_transforms,
};

/* An unknown type: the bloom filter's maths, no estimates. */
static const struct kb_utype kb_utype_none;

const struct kb_utype *kb_utype(uint32_t type)
{
	if (type < sizeof(kb_utypes) / sizeof(kb_utypes[0]) && kb_utypes[type])
		return kb_utypes[type];
	return &kb_utype_none;
}
