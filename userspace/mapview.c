// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mapview.h"

/* The engine shape of a mapping's header. */
static void shape_of(const struct kbloom_map_header *h, struct kb_shape *s)
{
	memset(s, 0, sizeof(*s));
	s->type = h->type;
	s->m = h->bits;
	s->k = h->hashes;
	s->cell_bits = h->counter_bits;
	s->update = h->update;
	s->decrement = h->decrement;
	s->subtables = h->subtables;
	s->bucket_cells = h->bucket_cells;
	s->fp_bits = h->fp_bits;
	s->dims = h->dims;
	s->hash_fn = h->hash_fn;
}

/* The header agrees with itself and with the mapping's size. */
static bool header_ok(const struct kbloom_map_header *h, size_t size,
		      const struct kb_shape *s)
{
	return h->magic == KBLOOM_MAP_MAGIC &&
	       h->version == KBLOOM_MAP_VERSION && !h->reserved &&
	       h->ntables >= 1 && h->ntables <= KBLOOM_WINDOWS_MAX + 1 &&
	       h->windows_max >= 1 && h->windows_max <= h->ntables &&
	       kb_filter_check_shape(s) == KB_SHAPE_OK &&
	       h->cell_bytes == kb_filter_mem_for(s) &&
	       h->table_stride >= h->cell_bytes && h->table_stride <= size &&
	       h->cells_off <= size &&
	       h->cells_off >= sizeof(*h) +
				h->windows_max * sizeof(h->window[0]) &&
	       h->cells_off + h->ntables * h->table_stride == size;
}

int kb_mapview_attach(struct kb_mapview *v, const void *map, size_t size)
{
	const struct kbloom_map_header *h = map;
	const uint8_t *base;
	struct kb_shape s;
	uint32_t t;

	if (size < sizeof(*h)) {
		errno = EPROTO;
		return -1;
	}
	shape_of(h, &s);
	if (!header_ok(h, size, &s)) {
		errno = EPROTO;
		return -1;
	}
	v->h = h;
	v->size = size;
	v->ntables = h->ntables;
	v->windows_max = h->windows_max;
	v->tables = calloc(v->ntables, sizeof(*v->tables));
	if (!v->tables)
		return -1;
	base = (const uint8_t *)h + h->cells_off;
	for (t = 0; t < v->ntables; t++) {
		if (kb_filter_view(&v->tables[t], &s, h->hash_key,
				   base + t * h->table_stride)) {
			errno = EOPNOTSUPP;
			return -1;
		}
	}
	return 0;
}

int kb_mapview_open(struct kb_mapview *v, const char *name)
{
	struct kbloom_map_req req = { 0 };
	void *p;
	int err;

	memset(v, 0, sizeof(*v));
	v->fd = -1;
	if (strlen(name) >= sizeof(req.name)) {
		errno = EINVAL;
		return -1;
	}
	strcpy(req.name, name);
	v->fd = open(KB_MAPVIEW_DEV, O_RDONLY | O_CLOEXEC);
	if (v->fd < 0)
		return -1;
	if (ioctl(v->fd, KBLOOM_IOC_MAP, &req))
		goto fail;
	p = mmap(NULL, req.size, PROT_READ, MAP_SHARED, v->fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	v->h = p;
	v->size = req.size;
	v->mapped = true;
	if (kb_mapview_attach(v, p, req.size))
		goto fail;
	return 0;

fail:
	err = errno;
	kb_mapview_close(v);
	errno = err;
	return -1;
}

void kb_mapview_close(struct kb_mapview *v)
{
	if (v->h && v->mapped)
		munmap((void *)v->h, v->size);
	if (v->fd >= 0)
		close(v->fd);
	free(v->tables);
	free(v->hit);
	memset(v, 0, sizeof(*v));
	v->fd = -1;
}

int kb_mapview_test(struct kb_mapview *v, const struct kb_hash *h, uint32_t n,
		    bool *present)
{
	const struct kbloom_map_header *hdr = v->h;
	uint32_t seq, nw, w, t, i;

	if (n > v->hit_cap) {
		bool *hit = realloc(v->hit, n * sizeof(*hit));

		if (!hit)
			return -1;
		v->hit = hit;
		v->hit_cap = n;
	}
	for (;;) {
		/* Pairs with the kernel's barriers around its changes. */
		seq = __atomic_load_n(&hdr->seq, __ATOMIC_ACQUIRE);
		if (seq & 1) {
			sched_yield();
			continue;
		}
		if (hdr->flags & KBLOOM_MAP_F_DESTROYED) {
			errno = ENOENT;
			return -1;
		}
		memset(present, 0, n * sizeof(*present));
		nw = hdr->nwindows;
		for (w = 0; w < nw && w < v->windows_max; w++) {
			t = hdr->window[w].table;
			if (t >= v->ntables)
				break;	/* torn: seq has moved */
			kb_filter_test_many(&v->tables[t], h, n, v->hit);
			for (i = 0; i < n; i++)
				present[i] |= v->hit[i];
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&hdr->seq, __ATOMIC_RELAXED) == seq)
			return 0;
	}
}

int kb_mapview_count(struct kb_mapview *v, uint64_t queries,
		     uint64_t positives)
{
	struct kbloom_map_count c = {
		.queries = queries,
		.positives = positives,
	};

	return ioctl(v->fd, KBLOOM_IOC_COUNT, &c);
}
