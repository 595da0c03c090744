/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter engine: filters as plain memory plus the operations on them.
 * It knows nothing of netlink, skbs or namespaces.
 *
 * Concurrency: add, test and count are safe against each other from any
 * number of CPUs (atomic cell updates, no locks). del, merge, clear, init
 * and free are for the owner: the caller serialises them against each
 * other (adds may still run concurrently with del, merge and clear).
 */
#ifndef KBLOOM_ENGINE_FILTER_H
#define KBLOOM_ENGINE_FILTER_H

#include "compat.h"
#include "hash.h"
#include "../uapi/kbloom.h"

/* What a filter is made of; meanings per type in uapi/kbloom.h. */
struct kb_shape {
	u32 type;		/* enum kbloom_type */
	u64 m;			/* cells (per dimension for multi) */
	u32 k;			/* probes per key */
	u32 hash_fn;		/* enum kbloom_hash_fn: the keyed PRF */
	u32 cell_bits;		/* counting, stable; 1 for bit types */
	u32 update;		/* counting: enum kbloom_update */
	u32 decrement;		/* stable: P */
	u32 subtables;		/* dleft: d */
	u32 bucket_cells;	/* dleft */
	u32 fp_bits;		/* dleft */
	u32 dims;		/* multi */
	u64 capacity;		/* scalable: slice 0's n0 */
	u32 growth;		/* scalable: s */
	u32 tighten;		/* scalable: r in millionths */
};

struct kb_type_ops;
struct kb_scal;
struct kb_dcf;

/* kb_scalable_load_mem(), kb_dcf_load_mem(): no such layout. */
#define KB_NO_PLAN	(~0ULL)

struct kb_filter {
	struct kb_shape s;
	const struct kb_type_ops *ops;
	siphash_key_t hkey;	/* per-filter keyed PRF */
	u64 nwords;		/* unsigned longs in @mem */
	u64 dim_words;		/* multi: words per dimension */
	u64 nblocks;		/* blocked: 512-bit blocks; partitioned: bits
				 * per slice (m/k); dleft: buckets per table
				 */
	unsigned long *mem;	/* the cells */
	struct kb_scal *scal;	/* scalable: the slices (scalable.c) */
	struct kb_dcf *dcf;	/* dcf: the overflow vector (dcf.c) */
};

/* h1 and h2 of @key under @f's hash key and hash function. */
static inline void kb_filter_hash(const struct kb_filter *f, const void *key,
				  size_t len, struct kb_hash *h)
{
	kb_hash_key_fn(f->s.hash_fn, &f->hkey, key, len, h);
}

/* One multi-filter key: values for the dimensions set in @mask. */
struct kb_tuple {
	u32 mask;		/* bit i: dimension i (0-based) given */
	const void *val[KBLOOM_DIMS_MAX];
	u32 len[KBLOOM_DIMS_MAX];
};

struct kb_fill {
	u64 nonzero;		/* cells set / non-zero (all dimensions) */
	u64 saturated;		/* counters at their maximum */
};

/* Why a shape is refused: for the caller's error message. */
enum kb_shape_error {
	KB_SHAPE_OK,
	KB_SHAPE_BAD_TYPE,
	KB_SHAPE_BAD_BITS,	/* m out of range or not a required multiple */
	KB_SHAPE_BAD_HASHES,
	KB_SHAPE_BAD_HASH_FN,	/* unknown, or given for a table of records */
	KB_SHAPE_BAD_COUNTER_BITS,
	KB_SHAPE_BAD_UPDATE,
	KB_SHAPE_BAD_DECREMENT,
	KB_SHAPE_BAD_SUBTABLES,
	KB_SHAPE_BAD_BUCKET_CELLS,
	KB_SHAPE_BAD_FP_BITS,
	KB_SHAPE_BAD_DIMS,
	KB_SHAPE_BAD_CAPACITY,	/* scalable: CAPACITY missing or too large */
	KB_SHAPE_BAD_GROWTH,
	KB_SHAPE_BAD_TIGHTEN,
	KB_SHAPE_TOO_BIG,	/* more than KBLOOM_MEM_MAX bytes */
	KB_SHAPE_EXTRA_PARAM,	/* a parameter this type does not take */
};

/*
 * Checks a shape: TYPE, BITS and HASHES, then the parameters' table
 * below (a parameter its type does not take must be 0; cell_bits may
 * also be 1 for types of bit cells), then the type's own rules. Fills in
 * defaults: none — the caller gives everything.
 */
enum kb_shape_error kb_filter_check_shape(const struct kb_shape *s);
/* Bytes of cell memory a valid shape needs. */
u64 kb_filter_mem_for(const struct kb_shape *s);
/*
 * Of those, the cells' own bytes (every dim's): what sizing, calc and
 * show report; kb_filter_mem_for() less a type's bookkeeping. 0 for a
 * type the engine does not know.
 */
u64 kb_filter_cells_for(const struct kb_shape *s);

/* 0, -EINVAL for a bad shape, -ENOMEM when memory cannot be had. */
int kb_filter_init(struct kb_filter *f, const struct kb_shape *s,
		   const u8 hkey[16]);
void kb_filter_free(struct kb_filter *f);
/* The 16 bytes of the hash key the filter was made with. */
void kb_filter_hash_key(const struct kb_filter *f, u8 hkey[16]);
/*
 * A filter over cells held elsewhere, read-only (a mapping of the
 * module's, /dev/kbloom): only the tests and counts may be used, and it is
 * never freed. -EOPNOTSUPP for the types kb_filter_viewable() refuses.
 */
int kb_filter_view(struct kb_filter *f, const struct kb_shape *s,
		   const u8 hkey[16], const void *mem);
/*
 * Its cells are one block of kb_filter_mem_for() bytes fixed at create,
 * holding keys: not the growing types (scalable, dcf) nor records.
 */
bool kb_filter_viewable(const struct kb_filter *f);

/*
 * What a filter type is, as data: the engine and its callers ask the
 * type (kb_type_info(), kb_filter_info()) instead of testing its id.
 */
/* The shape parameters a type takes beyond BITS and HASHES. */
enum kb_takes {
	KB_TAKES_COUNTER_BITS	= 1 << 0,	/* cell_bits (counters) */
	KB_TAKES_UPDATE		= 1 << 1,
	KB_TAKES_DECREMENT	= 1 << 2,
	KB_TAKES_DLEFT		= 1 << 3,	/* subtables, bucket/fp bits */
	KB_TAKES_DIMS		= 1 << 4,
	KB_TAKES_PLAN		= 1 << 5,	/* capacity, growth, tighten */
	KB_TAKES_HASH_FN	= 1 << 6,	/* keys hashed by hash_fn */
	/* Not a parameter: cells of one bit, so cell_bits may say 1. */
	KB_TAKES_BIT_CELLS	= 1 << 7,
};

/*
 * The shape's parameters beyond TYPE, BITS and HASHES, one row each
 * (kb_params[], filter.c): the engine checks them, the module parses,
 * reports and compares them, and bloomctl learns which types take them,
 * their bounds and defaults from this table alone. In the order bloomctl
 * shows them.
 */
enum kb_param_id {
	KB_P_HASH_FN,
	KB_P_COUNTER_BITS,
	KB_P_UPDATE,
	KB_P_DECREMENT,
	KB_P_SUBTABLES,
	KB_P_BUCKET_CELLS,
	KB_P_FP_BITS,
	KB_P_DIMS,
	KB_P_GROWTH,
	KB_P_TIGHTEN,
	KB_P_NUM
};

struct kb_param_def {
	u16 attr;		/* KBLOOM_A_*: CREATE, GET's reply */
	u16 offset;		/* of its field in struct kb_shape */
	u8 width;		/* the field's bytes: 4 or 8 */
	bool nest;		/* the attribute nests names (DIMS): its own parse */
	u32 takes;		/* enum kb_takes: the types that take it */
	/* Bounds when taken; max 0: the type's check() alone bounds it. */
	u64 min, max;
	u64 def;		/* bloomctl's default; 0: none, or by type */
	enum kb_shape_error bad;	/* out of bounds */
	/* given to a type not taking it; 0: KB_SHAPE_EXTRA_PARAM */
	enum kb_shape_error untaken;
	const char *name;	/* the attribute's name: "FP_BITS" */
	const char *refused;	/* why @bad: "FP_BITS must be 4..24 (dleft)" */
	/* CREATE with EXIST on a filter of another value. */
	const char *differs;
};

extern const struct kb_param_def kb_params[KB_P_NUM];
/* A shape's value of parameter @p. */
u64 kb_shape_get(const struct kb_shape *s, const struct kb_param_def *p);
void kb_shape_set(struct kb_shape *s, const struct kb_param_def *p, u64 v);
/* The words of a refusal of kb_filter_check_shape() (uapi attributes). */
const char *kb_shape_error_msg(enum kb_shape_error err);

enum kb_cap {
	/* A table of records, not of keys (transforms: xlate.h). */
	KB_CAP_RECORDS		= 1 << 0,
	/* Takes WINDOWS (a ring of tables that rotates). */
	KB_CAP_WINDOWS		= 1 << 1,
	/*
	 * Forgets by itself: every add decrements random cells (stable),
	 * up to KBLOOM_DECREMENT_MAX per key.
	 */
	KB_CAP_FORGETS		= 1 << 2,
	/*
	 * Keys can be deleted (kb_filter_can_delete() also asks the shape:
	 * counting only with plain update).
	 */
	KB_CAP_DELETE		= 1 << 3,
};

/*
 * What grows when growth lags behind the adds: the keys of a full slice
 * (scalable: OVERFLOW), or increments that cannot be stored (dcf: LOST;
 * counts may be low then). It is also the saved layout's kind.
 */
enum kb_grow_kind {
	KB_GROW_SLICES = 1,	/* more slices (scalable.h) */
	KB_GROW_WIDER,		/* a wider overflow vector (dcf.h) */
};

/* A saved layout of a growing filter, loaded before anyone sees it. */
struct kb_saved {
	u32 nslices, cur;		/* slices: slices, the current one */
	u64 keys[KBLOOM_SLICES_MAX];	/* slices: each one's keys */
	u32 ofv_bits;			/* wider: the OFV's counter bits */
	u64 overflow;			/* OVERFLOW or LOST */
};

/*
 * The growth protocol of the types whose memory grows after create
 * (scalable, dcf). The engine asks for growth by the kick (from the
 * adding context, maybe atomic); the owner grows, one caller at a time,
 * where it may allocate: next (its bytes, or why not: enum kbloom_grow),
 * make (0 or -ENOMEM, nothing changed), then, when retire is set, a grace
 * period and retire (frees what make replaced; returns its bytes); fail
 * stops growth for a reason (CLEAR restarts it, as does fail(OK)).
 */
struct kb_grow_ops {
	enum kb_grow_kind kind;
	void (*set_kick)(struct kb_filter *f, void (*kick)(void *arg),
			 void *arg);
	/* Growth is wanted (asked by the kick and not stale). */
	bool (*wanted)(const struct kb_filter *f);
	/* Growth is due now: before the next key may overflow. */
	bool (*due)(const struct kb_filter *f);
	u32 (*next)(const struct kb_filter *f, u64 *bytes);
	int (*make)(struct kb_filter *f);
	u64 (*retire)(struct kb_filter *f);
	void (*fail)(struct kb_filter *f, u32 why);
	u32 (*error)(const struct kb_filter *f);	/* enum kbloom_grow */
	u64 (*overflow)(const struct kb_filter *f);
	/*
	 * Loading: the bytes @l takes beyond what creating the filter
	 * took (KB_NO_PLAN: no such layout, or past KBLOOM_MEM_MAX); make
	 * it; and, after the cells, settle what they imply (optional).
	 */
	u64 (*load_mem)(const struct kb_shape *s, const struct kb_saved *l);
	int (*load)(struct kb_filter *f, const struct kb_saved *l);
	void (*loaded)(struct kb_filter *f);
};

struct kb_type_info {
	u32 params;			/* enum kb_takes */
	u32 caps;			/* enum kb_cap */
	const struct kb_grow_ops *grow;	/* NULL: memory fixed at create */
	/* COUNTER_BITS it takes: the sum of the widths, each a power of 2. */
	u32 counter_widths;
};

/* NULL for no such type. */
const struct kb_type_info *kb_type_info(u32 type);
const struct kb_type_info *kb_filter_info(const struct kb_filter *f);
/* @type is a type and takes all of @params (enum kb_takes). */
bool kb_type_takes(u32 type, u32 params);
/*
 * What m must be a multiple of for shape @s (its type's rule: blocked
 * 512, partitioned k, dleft subtables x bucket cells, transforms a line
 * of records); 1 for the others, and while a factor is not given yet.
 */
u64 kb_type_multiple(const struct kb_shape *s);
/*
 * The cell bits of a shape in one spelling: types without counters may
 * say 0 or 1, and keep 0.
 */
u32 kb_shape_cell_bits(const struct kb_shape *s);

/* Keys are added and tested (all but KB_CAP_RECORDS types). */
bool kb_filter_keyed(const struct kb_filter *f);
bool kb_filter_can_delete(const struct kb_filter *f);
bool kb_filter_can_count(const struct kb_filter *f);
/* Inline: asked once per key of every request. */
static inline bool kb_filter_is_multi(const struct kb_filter *f)
{
	return f->s.type == KBLOOM_TYPE_MULTI;
}

/*
 * Single keys (every type but multi). add returns true when the key was
 * certainly not present before. del returns 0, -ENOENT when the key is
 * certainly absent (nothing changed) or -EOPNOTSUPP. count returns the
 * key's count (0/1 for types without counters).
 */
bool kb_filter_add(struct kb_filter *f, const void *key, size_t len);
bool kb_filter_test(const struct kb_filter *f, const void *key, size_t len);
int kb_filter_del(struct kb_filter *f, const void *key, size_t len);
u32 kb_filter_count(const struct kb_filter *f, const void *key, size_t len);

/* The same for a key hashed once by the caller (batches, packet path). */
bool kb_filter_add_hash(struct kb_filter *f, const struct kb_hash *h);
bool kb_filter_test_hash(const struct kb_filter *f, const struct kb_hash *h);
int kb_filter_del_hash(struct kb_filter *f, const struct kb_hash *h);
u32 kb_filter_count_hash(const struct kb_filter *f, const struct kb_hash *h);

/*
 * Batches of pre-hashed single keys: each key's cells are prefetched a few
 * keys ahead, so the cache misses of a batch overlap instead of queueing.
 * test_many sets present[i] for key i.
 */
void kb_filter_add_many(struct kb_filter *f, const struct kb_hash *h, u32 n);
/* Starts loading a key's cells into the cache: it is added or tested soon. */
void kb_filter_prefetch(const struct kb_filter *f, const struct kb_hash *h);
/* add_many for keys kb_filter_prefetch() was given a while ago. */
void kb_filter_add_prefetched(struct kb_filter *f, const struct kb_hash *h,
			      u32 n);
void kb_filter_test_many(const struct kb_filter *f, const struct kb_hash *h,
			 u32 n, bool *present);

/*
 * Multi filters. add needs every dimension (-EINVAL otherwise); test any
 * non-empty subset: true when each given dimension holds its value.
 */
int kb_filter_add_tuple(struct kb_filter *f, const struct kb_tuple *t);
bool kb_filter_test_tuple(const struct kb_filter *f, const struct kb_tuple *t);

void kb_filter_clear(struct kb_filter *f);
void kb_filter_fill(const struct kb_filter *f, struct kb_fill *out);
u64 kb_filter_mem(const struct kb_filter *f);	/* bytes */

/*
 * The transfer stream of a table (EXPORT, IMPORT; uapi/kbloom.h): its
 * cell memory; a scalable filter's slices one after another; a dcf's
 * CBFV then OFV. Its bytes; the contiguous part holding byte @off and
 * its length (NULL past the end); and a value that changes whenever the
 * stream's layout does (a slice made, an OFV widened; 0 for the others).
 */
u64 kb_filter_xfer_bytes(const struct kb_filter *f);
void *kb_filter_xfer(const struct kb_filter *f, u64 off, u64 *len);
u64 kb_filter_layout(const struct kb_filter *f);

/* Same type, shape and hash key: the condition for merge and estimate. */
bool kb_filter_compatible(const struct kb_filter *a, const struct kb_filter *b);
/* dst = dst op src. -EINVAL when not compatible, -EOPNOTSUPP by type. */
int kb_filter_merge(struct kb_filter *dst, const struct kb_filter *src,
		    u32 op);
/* Cells non-zero in a or b. -EINVAL when not compatible, -EOPNOTSUPP by type. */
int kb_filter_union_fill(const struct kb_filter *a, const struct kb_filter *b,
			 u64 *out);

/* The growing types' own interfaces, for the engine's users. */
#include "scalable.h"
#include "dcf.h"

#endif /* KBLOOM_ENGINE_FILTER_H */
