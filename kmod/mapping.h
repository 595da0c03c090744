/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lookups without a system call (uapi/kbloom.h, "/dev/kbloom"): a filter's
 * tables mapped read-only into a process, behind a header that names the
 * retained windows and counts changes (seq). The ring keeps the header
 * current (window.h); /dev/kbloom is mapping_dev.c.
 */
#ifndef KBLOOM_MAPPING_H
#define KBLOOM_MAPPING_H

#include <linux/types.h>

struct kb_net;
struct kb_ring;
struct vm_area_struct;

/* Bytes of the header of @r's mappings, charged while r->map is set. */
u64 kb_map_hdr_bytes(const struct kb_ring *r);
/* Bytes each table takes in a mapping, and a whole mapping's. */
u64 kb_map_stride(const struct kb_ring *r);
u64 kb_map_size(const struct kb_ring *r);

/*
 * The header of @r's first MAP, allocated, charged to @kn and filled;
 * nothing if it has one. The namespace's lock held.
 */
int kb_map_header(struct kb_net *kn, struct kb_ring *r);

/* @vma, which maps @r, holds its pin until it goes. */
void kb_map_vma_hold(struct kb_ring *r, struct vm_area_struct *vma);

/*
 * The filter of @r goes, with @bytes charged for it: returns what the
 * caller uncharges now. While @r is mapped, the mappings keep all of it
 * and its header charged, until the last one goes (STATUS's
 * MEM_MAPPED_GONE meanwhile).
 */
u64 kb_map_outlive(struct kb_ring *r, u64 bytes);

#endif /* KBLOOM_MAPPING_H */
