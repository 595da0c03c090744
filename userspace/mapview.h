/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A filter of the module read through /dev/kbloom (uapi/kbloom.h): its
 * tables mapped read-only and tested here with the engine (kmod/engine,
 * compiled into bloomctl), with no request per key. test uses it where the
 * filter can be mapped and falls back to netlink where not.
 */
#ifndef BLOOMCTL_MAPVIEW_H
#define BLOOMCTL_MAPVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kmod/engine/filter.h"
#include "../kmod/uapi/kbloom.h"

#define KB_MAPVIEW_DEV "/dev/" KBLOOM_DEV_NAME

struct kb_mapview {
	int fd;
	const struct kbloom_map_header *h;
	size_t size;
	uint32_t ntables;
	uint32_t windows_max;		/* window[]'s size in the header */
	struct kb_filter *tables;	/* views over the mapped tables */
	bool *hit;			/* one window's answers, scratch */
	bool mapped;			/* h is our mmap (not attach's caller's) */
	uint32_t hit_cap;
};

/*
 * Maps filter @name of the caller's netns. 0, or -1 with errno when it
 * cannot be mapped (no device: an older module; ENOENT, EOPNOTSUPP, EPERM
 * as the uapi says; EPROTO a header this bloomctl does not know). Nothing
 * is printed: the caller asks over netlink instead, which says what is
 * wrong, if anything.
 */
int kb_mapview_open(struct kb_mapview *v, const char *name);
void kb_mapview_close(struct kb_mapview *v);

/*
 * The view of a mapping already made (@map, @size bytes: a header and its
 * tables), for kb_mapview_open() and tests (@v zeroed, its fd -1);
 * close leaves @map alone.
 * 0, or -1 with errno EPROTO for a header that does not hold together.
 */
int kb_mapview_attach(struct kb_mapview *v, const void *map, size_t size);

/* The hash key's filter, for kb_hash_key() of the keys to test. */
static inline const struct kb_filter *kb_mapview_shape(const struct kb_mapview *v)
{
	return &v->tables[0];
}

/*
 * Tests @n hashed keys against every retained window (present in any, as
 * TEST), retrying a lookup that overlapped a rotation or a clear. 0, or -1
 * with errno ENOENT when the filter was destroyed (@present is then not
 * set), ENOMEM.
 */
int kb_mapview_test(struct kb_mapview *v, const struct kb_hash *h, uint32_t n,
		    bool *present);

/* Adds @queries lookups, @positives of them present, to the filter's STATS. */
int kb_mapview_count(struct kb_mapview *v, uint64_t queries,
		     uint64_t positives);

#endif
