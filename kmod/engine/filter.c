// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Plain Bloom filter: m bits, k probes by enhanced double hashing over one
 * keyed SipHash of the key.
 */
#include "filter.h"
#include "../uapi/kbloom.h"

#ifndef __KERNEL__
#include <errno.h>
#endif

enum kb_shape_error kb_filter_check_shape(u32 type, u64 m, u32 k)
{
	if (type != KBLOOM_TYPE_BLOOM)
		return KB_SHAPE_BAD_TYPE;
	if (m < KBLOOM_BITS_MIN || m > KBLOOM_BITS_MAX)
		return KB_SHAPE_BAD_BITS;
	if (k < 1 || k > KBLOOM_HASHES_MAX)
		return KB_SHAPE_BAD_HASHES;
	return KB_SHAPE_OK;
}

u64 kb_filter_mem_for(u32 type, u64 m, u32 k)
{
	(void)type;	/* one cell per bit for the only type so far */
	(void)k;
	return BITS_TO_LONGS(m) * sizeof(unsigned long);
}

int kb_filter_init(struct kb_filter *f, u32 type, u64 m, u32 k,
		   const u8 hkey[16])
{
	int i;

	/* Cleared first so kb_filter_free() is safe after any failure. */
	memset(f, 0, sizeof(*f));
	if (kb_filter_check_shape(type, m, k) != KB_SHAPE_OK)
		return -EINVAL;
	f->type = type;
	f->m = m;
	f->k = k;
	f->nwords = BITS_TO_LONGS(m);
	/* The key bytes are two little-endian words, as SipHash specifies. */
	for (i = 0; i < 8; i++) {
		f->hkey.key[0] |= (u64)hkey[i] << (8 * i);
		f->hkey.key[1] |= (u64)hkey[8 + i] << (8 * i);
	}
	f->bits = kb_zalloc_large(kb_filter_mem_for(type, m, k));
	if (!f->bits)
		return -ENOMEM;
	return 0;
}

void kb_filter_free(struct kb_filter *f)
{
	kb_free_large(f->bits);
	f->bits = NULL;
}

bool kb_filter_add_hash(struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_probe p;
	bool fresh = false;
	u32 i;

	kb_probe_init(&p, h, f->m);
	for (i = 0; i < f->k; i++) {
		u64 pos = kb_probe_next(&p);

		/* Read first: a set bit costs no locked write or line bounce. */
		if (!test_bit(pos, f->bits)) {
			set_bit(pos, f->bits);
			fresh = true;
		}
	}
	return fresh;
}

bool kb_filter_test_hash(const struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_probe p;
	u32 i;

	kb_probe_init(&p, h, f->m);
	for (i = 0; i < f->k; i++)
		if (!test_bit(kb_probe_next(&p), f->bits))
			return false;
	return true;
}

bool kb_filter_add(struct kb_filter *f, const void *key, size_t len)
{
	struct kb_hash h;

	kb_hash_key(&f->hkey, key, len, &h);
	return kb_filter_add_hash(f, &h);
}

bool kb_filter_test(const struct kb_filter *f, const void *key, size_t len)
{
	struct kb_hash h;

	kb_hash_key(&f->hkey, key, len, &h);
	return kb_filter_test_hash(f, &h);
}

/* Work in 1 MiB steps so a large clear or count does not hog the CPU. */
#define KB_CHUNK_WORDS	((1U << 20) / sizeof(unsigned long))

void kb_filter_clear(struct kb_filter *f)
{
	u64 w;

	for (w = 0; w < f->nwords; w += KB_CHUNK_WORDS) {
		u64 n = f->nwords - w;

		if (n > KB_CHUNK_WORDS)
			n = KB_CHUNK_WORDS;
		memset(&f->bits[w], 0, n * sizeof(unsigned long));
		kb_resched();
	}
}

u64 kb_filter_fill(const struct kb_filter *f)
{
	u64 w, set = 0;

	for (w = 0; w < f->nwords; w += KB_CHUNK_WORDS) {
		u64 n = f->nwords - w;

		if (n > KB_CHUNK_WORDS)
			n = KB_CHUNK_WORDS;
		/* Bits past m are never set, so whole words can be counted. */
		set += bitmap_weight(&f->bits[w], n * BITS_PER_LONG);
		kb_resched();
	}
	return set;
}

u64 kb_filter_mem(const struct kb_filter *f)
{
	return kb_filter_mem_for(f->type, f->m, f->k);
}
