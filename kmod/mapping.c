// SPDX-License-Identifier: GPL-2.0
/*
 * A filter's tables mapped read-only into a process, for lookups without
 * a system call (the protocol is uapi/kbloom.h): the header and the pin
 * that keeps the mapped pages charged. /dev/kbloom, which maps them, is
 * mapping_dev.c, a floor above the registry; this is below it, and the
 * ring writes the header (window.c).
 *
 * What is mapped are the tables' own pages (vmalloc memory, engine/compat.h)
 * and a header allocated at the first MAP, each page inserted with a
 * reference of its own: when the filter is destroyed and frees them, a
 * mapping goes on reading them, frozen, until it is unmapped. The header is
 * written under the ring's lock (rotation, CLEAR) or, before anyone can
 * map it, under the namespace's.
 *
 * Those pages stay charged as long as they live: a pin, made with the
 * header, holds the filter's charge once the filter is gone, and each
 * mapping (VMA) holds the pin. The last one to let go uncharges it.
 */
#include <linux/mm.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mapping.h"
#include "owner.h"
#include "registry.h"

/*
 * The charge of a mapped filter: one reference the filter's, one each
 * mapping's. Its namespace outlives it: a mapping holds its file, and the
 * file the netns.
 */
struct kb_map_pin {
	refcount_t ref;
	struct kb_net *kn;
	u64 bytes;			/* set when the filter goes */
};

static void kb_map_pin_put(struct kb_map_pin *pin)
{
	if (!refcount_dec_and_test(&pin->ref))
		return;
	if (pin->bytes) {
		atomic64_sub(pin->bytes, &pin->kn->mem_mapped_gone);
		kb_mem_uncharge(pin->kn, pin->bytes);
	}
	kfree(pin);
}

u64 kb_map_outlive(struct kb_ring *r, u64 bytes)
{
	struct kb_map_pin *pin = r->pin;

	if (!pin)
		return bytes;
	r->pin = NULL;
	pin->bytes = bytes + kb_map_hdr_bytes(r);
	atomic64_add(pin->bytes, &pin->kn->mem_mapped_gone);
	kb_map_pin_put(pin);
	return 0;
}

static void kb_map_vm_open(struct vm_area_struct *vma)
{
	struct kb_map_pin *pin = vma->vm_private_data;

	refcount_inc(&pin->ref);
}

static void kb_map_vm_close(struct vm_area_struct *vma)
{
	kb_map_pin_put(vma->vm_private_data);
}

/* A fork or a split adds a mapping; munmap and exit take one away. */
static const struct vm_operations_struct kb_map_vm_ops = {
	.open = kb_map_vm_open,
	.close = kb_map_vm_close,
};

u64 kb_map_hdr_bytes(const struct kb_ring *r)
{
	return PAGE_ALIGN(struct_size(r->map, window, r->nwindows));
}

u64 kb_map_stride(const struct kb_ring *r)
{
	return PAGE_ALIGN(kb_filter_mem_for(&kb_ring_shape(r)->s));
}

u64 kb_map_size(const struct kb_ring *r)
{
	return r->map->cells_off + (u64)r->map->ntables * kb_map_stride(r);
}

int kb_map_header(struct kb_net *kn, struct kb_ring *r)
{
	const struct kb_filter *f = kb_ring_shape(r);
	u64 bytes = kb_map_hdr_bytes(r);
	struct kbloom_map_header *h;
	struct kb_map_pin *pin;

	if (r->map)
		return 0;
	/* Charged to the namespace, not to the filter's MEMORY (uapi). */
	if (kb_mem_charge(kn, bytes) != KB_LIMIT_NONE)
		return -ENOMEM;
	pin = kzalloc(sizeof(*pin), GFP_KERNEL_ACCOUNT);
	h = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
	if (!h || !pin) {
		vfree(h);
		kfree(pin);
		kb_mem_uncharge(kn, bytes);
		return -ENOMEM;
	}
	refcount_set(&pin->ref, 1);
	pin->kn = kn;
	h->magic = KBLOOM_MAP_MAGIC;
	h->version = KBLOOM_MAP_VERSION;
	h->type = f->s.type;
	h->hashes = f->s.k;
	h->hash_fn = f->s.hash_fn;
	h->bits = f->s.m;
	h->counter_bits = f->s.cell_bits ? f->s.cell_bits : 1;
	h->update = f->s.update;
	h->decrement = f->s.decrement;
	h->subtables = f->s.subtables;
	h->bucket_cells = f->s.bucket_cells;
	h->fp_bits = f->s.fp_bits;
	h->dims = f->s.dims;
	h->ntables = kb_ring_ntables(r);
	kb_filter_hash_key(f, h->hash_key);
	h->cell_bytes = kb_filter_mem_for(&f->s);
	h->cells_off = bytes;
	h->table_stride = kb_map_stride(r);
	h->interval_ms = r->interval_ms;
	h->windows_max = r->nwindows;
	/* From now on rotations and CLEAR keep it current. */
	kb_ring_lock(r);
	r->pin = pin;
	r->map = h;
	kb_map_write_begin(r);
	kb_map_write_end(r);
	kb_ring_unlock(r);
	return 0;
}

void kb_map_vma_hold(struct kb_ring *r, struct vm_area_struct *vma)
{
	refcount_inc(&r->pin->ref);
	vma->vm_private_data = r->pin;
	vma->vm_ops = &kb_map_vm_ops;
}
