// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The engine's front door: shape checks, allocation and dispatch to the
 * filter types (types.h), plus the multi-attribute filter, which is DIMS
 * bloom sub-filters side by side in one allocation. What differs by type
 * is asked of the type's ops and their data (kb_type_info); the table
 * below is the one place that maps a type id to them.
 */
#include "blocked.h"
#include "bloom.h"
#include "types.h"

#ifndef __KERNEL__
#include <errno.h>
#endif

static const struct kb_type_ops *kb_ops_of(u32 type)
{
	switch (type) {
	case KBLOOM_TYPE_BLOOM:
		return &kb_bloom_ops;
	case KBLOOM_TYPE_MULTI:
		return &kb_multi_ops;
	case KBLOOM_TYPE_PARTITIONED:
		return &kb_partitioned_ops;
	case KBLOOM_TYPE_BLOCKED:
		return &kb_blocked_ops;
	case KBLOOM_TYPE_COUNTING:
		return &kb_counting_ops;
	case KBLOOM_TYPE_DLEFT:
		return &kb_dleft_ops;
	case KBLOOM_TYPE_STABLE:
		return &kb_stable_ops;
	case KBLOOM_TYPE_SCALABLE:
		return &kb_scalable_ops;
	case KBLOOM_TYPE_DCF:
		return &kb_dcf_ops;
	case KBLOOM_TYPE_TRANSFORMS:
		return &kb_xlate_ops;
	}
	return NULL;
}

const struct kb_type_info *kb_type_info(u32 type)
{
	const struct kb_type_ops *ops = kb_ops_of(type);

	return ops ? &ops->info : NULL;
}

const struct kb_type_info *kb_filter_info(const struct kb_filter *f)
{
	return &f->ops->info;
}

static bool kb_takes(const struct kb_type_ops *ops, u32 params)
{
	return (ops->info.params & params) == params;
}

bool kb_type_takes(u32 type, u32 params)
{
	const struct kb_type_ops *ops = kb_ops_of(type);

	return ops && kb_takes(ops, params);
}

u64 kb_type_multiple(const struct kb_shape *s)
{
	const struct kb_type_ops *ops = kb_ops_of(s->type);

	return ops && ops->multiple ? ops->multiple(s) : 1;
}

static u64 kb_dims_of(const struct kb_shape *s)
{
	return kb_takes(kb_ops_of(s->type), KB_TAKES_DIMS) ? s->dims : 1;
}

u32 kb_shape_cell_bits(const struct kb_shape *s)
{
	if (s->cell_bits == 1 && !kb_type_takes(s->type, KB_TAKES_COUNTER_BITS))
		return 0;
	return s->cell_bits;
}

/* Where a parameter lives in struct kb_shape, and its bytes there. */
#define KB_AT(f)	offsetof(struct kb_shape, f)
#define KB_WIDTH(f)	sizeof_field(struct kb_shape, f)

const struct kb_param_def kb_params[KB_P_NUM] = {
	[KB_P_HASH_FN] = {
		.attr = KBLOOM_A_HASH_FN,
		.offset = KB_AT(hash_fn), .width = KB_WIDTH(hash_fn),
		.takes = KB_TAKES_HASH_FN, .max = KBLOOM_HASH_FN_MAX,
		.bad = KB_SHAPE_BAD_HASH_FN, .untaken = KB_SHAPE_BAD_HASH_FN,
		.name = "HASH_FN",
		.refused =
			"HASH_FN is not a known hash function, or is given for transforms (whose records have their own hashing)",
		.differs =
			"a filter of that name exists with another hash function (HASH_FN)",
	},
	[KB_P_COUNTER_BITS] = {
		.attr = KBLOOM_A_COUNTER_BITS,
		.offset = KB_AT(cell_bits), .width = KB_WIDTH(cell_bits),
		.takes = KB_TAKES_COUNTER_BITS,
		.bad = KB_SHAPE_BAD_COUNTER_BITS,
		.name = "COUNTER_BITS",
		.refused =
			"COUNTER_BITS must be 4, 8 or 16 (counting), 1, 2, 4 or 8 (stable) or 2, 4 or 8 (dcf)",
		.differs =
			"a filter of that name exists with other counter bits (COUNTER_BITS)",
	},
	[KB_P_UPDATE] = {
		.attr = KBLOOM_A_UPDATE,
		.offset = KB_AT(update), .width = KB_WIDTH(update),
		.takes = KB_TAKES_UPDATE, .max = KBLOOM_UPDATE_MAX,
		.bad = KB_SHAPE_BAD_UPDATE,
		.name = "UPDATE",
		.refused = "UPDATE is not a known update rule",
		.differs =
			"a filter of that name exists with another update rule (UPDATE)",
	},
	[KB_P_DECREMENT] = {
		.attr = KBLOOM_A_DECREMENT,
		.offset = KB_AT(decrement), .width = KB_WIDTH(decrement),
		.takes = KB_TAKES_DECREMENT,
		.min = 1, .max = KBLOOM_DECREMENT_MAX,
		.bad = KB_SHAPE_BAD_DECREMENT,
		.name = "DECREMENT",
		.refused =
			"DECREMENT must be 1..BITS and at most 65536 (stable)",
		.differs =
			"a filter of that name exists with another decrement (DECREMENT)",
	},
	[KB_P_SUBTABLES] = {
		.attr = KBLOOM_A_SUBTABLES,
		.offset = KB_AT(subtables), .width = KB_WIDTH(subtables),
		.takes = KB_TAKES_DLEFT, .def = 4,
		.min = KBLOOM_SUBTABLES_MIN, .max = KBLOOM_SUBTABLES_MAX,
		.bad = KB_SHAPE_BAD_SUBTABLES,
		.name = "SUBTABLES",
		.refused = "SUBTABLES must be 2..8 (dleft)",
		.differs =
			"a filter of that name exists with other subtables (SUBTABLES)",
	},
	[KB_P_BUCKET_CELLS] = {
		.attr = KBLOOM_A_BUCKET_CELLS,
		.offset = KB_AT(bucket_cells), .width = KB_WIDTH(bucket_cells),
		.takes = KB_TAKES_DLEFT, .def = 8,
		.min = 1, .max = KBLOOM_BUCKET_CELLS_MAX,
		.bad = KB_SHAPE_BAD_BUCKET_CELLS,
		.name = "BUCKET_CELLS",
		.refused = "BUCKET_CELLS must be 1..16 (dleft)",
		.differs =
			"a filter of that name exists with other bucket cells (BUCKET_CELLS)",
	},
	[KB_P_FP_BITS] = {
		.attr = KBLOOM_A_FP_BITS,
		.offset = KB_AT(fp_bits), .width = KB_WIDTH(fp_bits),
		.takes = KB_TAKES_DLEFT, .def = 16,
		.min = KBLOOM_FP_BITS_MIN, .max = KBLOOM_FP_BITS_MAX,
		.bad = KB_SHAPE_BAD_FP_BITS,
		.name = "FP_BITS",
		.refused = "FP_BITS must be 4..24 (dleft)",
		.differs =
			"a filter of that name exists with other fingerprint bits (FP_BITS)",
	},
	[KB_P_DIMS] = {
		.attr = KBLOOM_A_DIMS,
		.offset = KB_AT(dims), .width = KB_WIDTH(dims), .nest = true,
		.takes = KB_TAKES_DIMS, .def = 1,
		.min = 1, .max = KBLOOM_DIMS_MAX,
		.bad = KB_SHAPE_BAD_DIMS,
		.name = "DIMS",
		.refused = "DIMS must name 1..8 dimensions (multi)",
		.differs =
			"a filter of that name exists with other dimensions (DIMS)",
	},
	[KB_P_GROWTH] = {
		.attr = KBLOOM_A_GROWTH,
		.offset = KB_AT(growth), .width = KB_WIDTH(growth),
		.takes = KB_TAKES_PLAN, .def = 2,
		.min = KBLOOM_GROWTH_MIN, .max = KBLOOM_GROWTH_MAX,
		.bad = KB_SHAPE_BAD_GROWTH,
		.name = "GROWTH",
		.refused = "GROWTH must be 2..16 (scalable)",
		.differs =
			"a filter of that name exists with another growth (GROWTH)",
	},
	[KB_P_TIGHTEN] = {
		.attr = KBLOOM_A_TIGHTEN,
		.offset = KB_AT(tighten), .width = KB_WIDTH(tighten),
		.takes = KB_TAKES_PLAN, .def = 900000,
		.min = KBLOOM_TIGHTEN_MIN, .max = KBLOOM_TIGHTEN_MAX,
		.bad = KB_SHAPE_BAD_TIGHTEN,
		.name = "TIGHTEN",
		.refused =
			"TIGHTEN must be 10000..990000 millionths (scalable)",
		.differs =
			"a filter of that name exists with another tighten ratio (TIGHTEN)",
	},
};

#undef KB_WIDTH
#undef KB_AT

u64 kb_shape_get(const struct kb_shape *s, const struct kb_param_def *p)
{
	const void *v = (const u8 *)s + p->offset;

	return p->width == sizeof(u64) ? *(const u64 *)v : *(const u32 *)v;
}

void kb_shape_set(struct kb_shape *s, const struct kb_param_def *p, u64 v)
{
	void *f = (u8 *)s + p->offset;

	if (p->width == sizeof(u64))
		*(u64 *)f = v;
	else
		*(u32 *)f = v;
}

/* The refusals that are not one parameter's bounds (kb_params[].refused). */
static const char *const kb_shape_words[] = {
	[KB_SHAPE_BAD_TYPE] = "filter type not supported",
	[KB_SHAPE_BAD_BITS] =
		"BITS out of range or not the multiple this type needs (partitioned: k, blocked: 512, dleft: subtables x bucket cells)",
	[KB_SHAPE_BAD_HASHES] = "HASHES out of range for this type (dleft: 1)",
	[KB_SHAPE_BAD_CAPACITY] =
		"CAPACITY is required for a scalable filter: slice 0's keys, 1..BITS",
	[KB_SHAPE_TOO_BIG] = "filter would need more than 1 GiB of cells",
	[KB_SHAPE_EXTRA_PARAM] =
		"a parameter was given that this filter type does not take",
};

const char *kb_shape_error_msg(enum kb_shape_error err)
{
	u32 i;

	if (err == KB_SHAPE_OK)
		return NULL;
	for (i = 0; i < KB_P_NUM; i++)
		if (kb_params[i].bad == err)
			return kb_params[i].refused;
	if (err < ARRAY_SIZE(kb_shape_words) && kb_shape_words[err])
		return kb_shape_words[err];
	return kb_shape_words[KB_SHAPE_EXTRA_PARAM];
}

/* A value of @p that @ops's type does not take (0, or 1 for bit cells). */
static bool kb_untaken(const struct kb_type_ops *ops,
		       const struct kb_param_def *p, u64 v)
{
	if (kb_takes(ops, p->takes) || !v)
		return false;
	return !(v == 1 && p->offset == offsetof(struct kb_shape, cell_bits) &&
		 kb_takes(ops, KB_TAKES_BIT_CELLS));
}

/*
 * Once for every type: the parameters it does not take (they beat a bad
 * value of one it does), then the bounds of those it takes, then what
 * the type itself says (multiples of BITS, counter widths...).
 */
enum kb_shape_error kb_filter_check_shape(const struct kb_shape *s)
{
	const struct kb_type_ops *ops = kb_ops_of(s->type);
	const struct kb_param_def *p;
	enum kb_shape_error err;
	u64 v;

	if (!ops)
		return KB_SHAPE_BAD_TYPE;
	if (s->m < KBLOOM_BITS_MIN || s->m > KBLOOM_BITS_MAX)
		return KB_SHAPE_BAD_BITS;
	if (s->k < 1 || s->k > KBLOOM_HASHES_MAX)
		return KB_SHAPE_BAD_HASHES;
	for (p = kb_params; p < kb_params + KB_P_NUM; p++)
		if (kb_untaken(ops, p, kb_shape_get(s, p)))
			return p->untaken ?: KB_SHAPE_EXTRA_PARAM;
	/* Every filter's CAPACITY; the shape holds it only for a plan. */
	if (s->capacity && !kb_takes(ops, KB_TAKES_PLAN))
		return KB_SHAPE_EXTRA_PARAM;
	for (p = kb_params; p < kb_params + KB_P_NUM; p++) {
		v = kb_shape_get(s, p);
		if (p->max && kb_takes(ops, p->takes) &&
		    (v < p->min || v > p->max))
			return p->bad;
	}
	/* Counters come in the widths the type lists. */
	if (kb_takes(ops, KB_TAKES_COUNTER_BITS) &&
	    (!s->cell_bits || s->cell_bits & (s->cell_bits - 1) ||
	     !(ops->info.counter_widths & s->cell_bits)))
		return KB_SHAPE_BAD_COUNTER_BITS;
	err = ops->check ? ops->check(s) : KB_SHAPE_OK;
	if (err != KB_SHAPE_OK)
		return err;
	if (kb_filter_mem_for(s) > KBLOOM_MEM_MAX)
		return KB_SHAPE_TOO_BIG;
	return KB_SHAPE_OK;
}

u64 kb_filter_mem_for(const struct kb_shape *s)
{
	return kb_ops_of(s->type)->mem(s) * kb_dims_of(s);
}

u64 kb_filter_cells_for(const struct kb_shape *s)
{
	const struct kb_type_ops *ops = kb_ops_of(s->type);

	if (!ops)
		return 0;
	return (ops->cells ? ops->cells(s) : ops->mem(s)) * kb_dims_of(s);
}

/* Everything a filter is but its cells: what init and view share. */
static int kb_filter_prepare(struct kb_filter *f, const struct kb_shape *s,
			     const u8 hkey[16])
{
	int i;

	/* Cleared first so kb_filter_free() is safe after any failure. */
	memset(f, 0, sizeof(*f));
	if (kb_filter_check_shape(s) != KB_SHAPE_OK)
		return -EINVAL;
	f->s = *s;
	/* Bit types may say 0 or 1 cell bits; keep one spelling. */
	f->s.cell_bits = kb_shape_cell_bits(s);
	f->ops = kb_ops_of(s->type);
	/* The key bytes are two little-endian words, as SipHash specifies. */
	for (i = 0; i < 8; i++) {
		f->hkey.key[0] |= (u64)hkey[i] << (8 * i);
		f->hkey.key[1] |= (u64)hkey[8 + i] << (8 * i);
	}
	return 0;
}

void kb_filter_hash_key(const struct kb_filter *f, u8 hkey[16])
{
	int i;

	for (i = 0; i < 8; i++) {
		hkey[i] = f->hkey.key[0] >> (8 * i);
		hkey[8 + i] = f->hkey.key[1] >> (8 * i);
	}
}

/* The one block of cells of the types without an init of their own. */
static void kb_filter_set_cells(struct kb_filter *f, unsigned long *mem)
{
	f->dim_words = f->ops->mem(&f->s) / sizeof(unsigned long);
	f->nwords = f->dim_words * kb_dims_of(&f->s);
	f->mem = mem;
	if (f->ops->setup)
		f->ops->setup(f);
}

int kb_filter_init(struct kb_filter *f, const struct kb_shape *s,
		   const u8 hkey[16])
{
	int err = kb_filter_prepare(f, s, hkey);

	if (err)
		return err;
	if (f->ops->init)
		return f->ops->init(f);
	kb_filter_set_cells(f, kb_zalloc_large(kb_filter_mem_for(s)));
	return f->mem ? 0 : -ENOMEM;
}

int kb_filter_view(struct kb_filter *f, const struct kb_shape *s,
		   const u8 hkey[16], const void *mem)
{
	int err = kb_filter_prepare(f, s, hkey);

	if (err)
		return err;
	if (!kb_filter_viewable(f))
		return -EOPNOTSUPP;
	kb_filter_set_cells(f, (unsigned long *)mem);
	return 0;
}

bool kb_filter_viewable(const struct kb_filter *f)
{
	return !f->ops->init && kb_filter_keyed(f);
}

void kb_filter_free(struct kb_filter *f)
{
	if (f->ops && f->ops->release)
		f->ops->release(f);
	kb_free_large(f->mem);
	f->mem = NULL;
}

bool kb_filter_can_delete(const struct kb_filter *f)
{
	return f->ops->del && (!f->ops->may_delete || f->ops->may_delete(f));
}

bool kb_filter_keyed(const struct kb_filter *f)
{
	return !(f->ops->info.caps & KB_CAP_RECORDS);
}

bool kb_filter_can_count(const struct kb_filter *f)
{
	return f->ops->count;
}

/*
 * Every add goes through here. The types the packet path records into go
 * without an indirect call (a retpoline per key), blocked without a call.
 */
static __always_inline bool kb_add(struct kb_filter *f, const struct kb_hash *h)
{
	if (likely(f->ops == &kb_blocked_ops))
		return __kb_blocked_add(f, h);
	return INDIRECT_CALL_2(f->ops->add, kb_bloom_add, kb_counting_add, f,
			       h);
}

bool kb_filter_add_hash(struct kb_filter *f, const struct kb_hash *h)
{
	return kb_add(f, h);
}

/*
 * Every test of a single key goes through here, the same way: one key at
 * a time, a call less is a few more instructions of the next key inside
 * the CPU's window while this one's line is on its way (blocked.h).
 */
static __always_inline bool kb_test(const struct kb_filter *f,
				    const struct kb_hash *h)
{
	if (likely(f->ops == &kb_blocked_ops))
		return __kb_blocked_test(f, h);
	return INDIRECT_CALL_1(f->ops->test, kb_bloom_test, f, h);
}

bool kb_filter_test_hash(const struct kb_filter *f, const struct kb_hash *h)
{
	return kb_test(f, h);
}

int kb_filter_del_hash(struct kb_filter *f, const struct kb_hash *h)
{
	if (!kb_filter_can_delete(f))
		return -EOPNOTSUPP;
	return f->ops->del(f, h);
}

u32 kb_filter_count_hash(const struct kb_filter *f, const struct kb_hash *h)
{
	if (f->ops->count)
		return f->ops->count(f, h);
	return f->ops->test(f, h);
}

void kb_filter_prefetch(const struct kb_filter *f, const struct kb_hash *h)
{
	if (likely(f->ops == &kb_blocked_ops))
		kb_prefetch(kb_blocked_line(f, h));
	else if (f->ops->prefetch_key)
		f->ops->prefetch_key(f, h);
}

/* Keys prefetched ahead of the one being probed: enough misses in flight. */
#define KB_PREFETCH_AHEAD	16

static void kb_prefetch_key(const struct kb_filter *f, const struct kb_hash *h,
			    u32 i, u32 n)
{
	if (i < n)
		kb_filter_prefetch(f, &h[i]);
}

void kb_filter_add_prefetched(struct kb_filter *f, const struct kb_hash *h,
			      u32 n)
{
	u32 i;

	if (likely(f->ops == &kb_blocked_ops)) {
		for (i = 0; i < n; i++)
			__kb_blocked_add_cached(f, &h[i]);
		return;
	}
	for (i = 0; i < n; i++)
		kb_add(f, &h[i]);
}

void kb_filter_add_many(struct kb_filter *f, const struct kb_hash *h, u32 n)
{
	u32 i;

	for (i = 0; i < KB_PREFETCH_AHEAD; i++)
		kb_prefetch_key(f, h, i, n);
	for (i = 0; i < n; i++) {
		kb_prefetch_key(f, h, i + KB_PREFETCH_AHEAD, n);
		if (likely(f->ops == &kb_blocked_ops))
			__kb_blocked_add_cached(f, &h[i]);
		else
			kb_add(f, &h[i]);
	}
}

void kb_filter_test_many(const struct kb_filter *f, const struct kb_hash *h,
			 u32 n, bool *present)
{
	u32 i;

	for (i = 0; i < KB_PREFETCH_AHEAD; i++)
		kb_prefetch_key(f, h, i, n);
	for (i = 0; i < n; i++) {
		kb_prefetch_key(f, h, i + KB_PREFETCH_AHEAD, n);
		if (likely(f->ops == &kb_blocked_ops))
			present[i] = __kb_blocked_test_cached(f, &h[i]);
		else
			present[i] = kb_test(f, &h[i]);
	}
}

bool kb_filter_add(struct kb_filter *f, const void *key, size_t len)
{
	struct kb_hash h;

	kb_filter_hash(f, key, len, &h);
	if (kb_bloom_far(f))
		return __kb_bloom_add_far(f, &h);
	return kb_add(f, &h);
}

bool kb_filter_test(const struct kb_filter *f, const void *key, size_t len)
{
	struct kb_hash h;

	kb_filter_hash(f, key, len, &h);
	if (kb_bloom_far(f))
		return __kb_bloom_test_far(f, &h);
	return kb_test(f, &h);
}

int kb_filter_del(struct kb_filter *f, const void *key, size_t len)
{
	struct kb_hash h;

	kb_filter_hash(f, key, len, &h);
	return kb_filter_del_hash(f, &h);
}

u32 kb_filter_count(const struct kb_filter *f, const void *key, size_t len)
{
	struct kb_hash h;

	kb_filter_hash(f, key, len, &h);
	return kb_filter_count_hash(f, &h);
}

/* Dimension @d of a multi filter, as a bloom filter of its own. */
static void kb_multi_dim(const struct kb_filter *f, u32 d, struct kb_filter *sub)
{
	*sub = *f;
	sub->ops = &kb_bloom_ops;
	sub->s.type = KBLOOM_TYPE_BLOOM;
	sub->s.dims = 0;
	sub->nwords = f->dim_words;
	sub->mem = f->mem + d * f->dim_words;
}

int kb_filter_add_tuple(struct kb_filter *f, const struct kb_tuple *t)
{
	struct kb_filter sub;
	u32 d;

	if (t->mask != (1U << f->s.dims) - 1)
		return -EINVAL;
	for (d = 0; d < f->s.dims; d++) {
		kb_multi_dim(f, d, &sub);
		kb_filter_add(&sub, t->val[d], t->len[d]);
	}
	return 0;
}

bool kb_filter_test_tuple(const struct kb_filter *f, const struct kb_tuple *t)
{
	struct kb_filter sub;
	u32 d;

	if (!t->mask || t->mask >> f->s.dims)
		return false;
	for (d = 0; d < f->s.dims; d++) {
		if (!(t->mask & (1U << d)))
			continue;
		kb_multi_dim(f, d, &sub);
		if (!kb_filter_test(&sub, t->val[d], t->len[d]))
			return false;
	}
	return true;
}

void kb_filter_clear(struct kb_filter *f)
{
	if (f->ops->clear) {
		f->ops->clear(f);
		return;
	}
	kb_zero_words(f->mem, f->nwords);
}

void kb_zero_words(unsigned long *p, u64 nwords)
{
	u64 w;

	for (w = 0; w < nwords; w += KB_CHUNK_WORDS) {
		u64 n = nwords - w;

		if (n > KB_CHUNK_WORDS)
			n = KB_CHUNK_WORDS;
		memset(&p[w], 0, n * sizeof(unsigned long));
		kb_resched();
	}
}

u64 kb_filter_xfer_bytes(const struct kb_filter *f)
{
	return f->ops->xfer_bytes ? f->ops->xfer_bytes(f) : kb_filter_mem(f);
}

void *kb_filter_xfer(const struct kb_filter *f, u64 off, u64 *len)
{
	if (f->ops->xfer)
		return f->ops->xfer(f, off, len);
	if (off >= kb_filter_mem(f)) {
		*len = 0;
		return NULL;
	}
	*len = kb_filter_mem(f) - off;
	return (u8 *)f->mem + off;
}

u64 kb_filter_layout(const struct kb_filter *f)
{
	return f->ops->layout ? f->ops->layout(f) : 0;
}

/* Multi filters' dimensions are contiguous: the bloom helpers see them all. */
void kb_filter_fill(const struct kb_filter *f, struct kb_fill *out)
{
	f->ops->fill(f, out);
}

u64 kb_filter_mem(const struct kb_filter *f)
{
	if (f->ops->mem_now)
		return f->ops->mem_now(f);
	return kb_filter_mem_for(&f->s);
}

/* Field by field: padding is not part of a shape. */
bool kb_filter_compatible(const struct kb_filter *a, const struct kb_filter *b)
{
	const struct kb_shape *x = &a->s, *y = &b->s;
	const struct kb_param_def *p;

	for (p = kb_params; p < kb_params + KB_P_NUM; p++)
		if (kb_shape_get(x, p) != kb_shape_get(y, p))
			return false;
	return x->type == y->type && x->m == y->m && x->k == y->k &&
	       x->capacity == y->capacity &&
	       a->hkey.key[0] == b->hkey.key[0] &&
	       a->hkey.key[1] == b->hkey.key[1];
}

int kb_filter_merge(struct kb_filter *dst, const struct kb_filter *src, u32 op)
{
	if (!kb_filter_compatible(dst, src) || op > KBLOOM_MERGE_MAX)
		return -EINVAL;
	if (!dst->ops->merge)
		return -EOPNOTSUPP;
	return dst->ops->merge(dst, src, op);
}

int kb_filter_union_fill(const struct kb_filter *a, const struct kb_filter *b,
			 u64 *out)
{
	if (!kb_filter_compatible(a, b))
		return -EINVAL;
	if (!a->ops->union_fill)
		return -EOPNOTSUPP;
	*out = a->ops->union_fill(a, b);
	return 0;
}
