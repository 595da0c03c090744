/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lookups without a system call (uapi/kbloom.h, "/dev/kbloom"): a filter's
 * tables mapped read-only into a process, behind a header that names the
 * retained windows and counts changes (seq).
 */
#ifndef KBLOOM_MAPPING_H
#define KBLOOM_MAPPING_H

#include <linux/types.h>

struct kb_ring;

int kb_map_init(void);
void kb_map_exit(void);

/*
 * Around a change of what a lookup reads (a rotation's new set, CLEAR),
 * under the ring's lock: seq is odd in between, and end writes the ring's
 * set into the header. Nothing for a ring never mapped.
 */
void kb_map_write_begin(struct kb_ring *r);
void kb_map_write_end(struct kb_ring *r);

/* Bytes of the header of @r's mappings, charged while r->map is set. */
u64 kb_map_hdr_bytes(const struct kb_ring *r);

/*
 * The filter of @r goes, with @bytes charged for it: returns what the
 * caller uncharges now. While @r is mapped, the mappings keep all of it
 * and its header charged, until the last one goes (STATUS's
 * MEM_MAPPED_GONE meanwhile).
 */
u64 kb_map_outlive(struct kb_ring *r, u64 bytes);

/* The filter is gone: says so in the header and lets it go (kb_ring_free). */
void kb_map_release(struct kb_ring *r);

#endif /* KBLOOM_MAPPING_H */
