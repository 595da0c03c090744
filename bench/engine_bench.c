// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * engine_bench: nanoseconds per operation of the kbloom filter engine
 * (the sources of kmod/engine, compiled exactly as the module's, with the
 * userspace SipHash standing in for the kernel's) beside libbloom, on the
 * same keys, in the same run. docs/design.md (Tests and benchmarks) and
 * bench/README.md say how to read the results.
 *
 *   engine_bench [--n N[,N...]] [--runs R] [--test-keys S] [--pages 2m|4k]
 *                [--types T[,T...]] [--out FILE]
 *   engine_bench --quick
 *
 * Full mode (make bench): for each n, R rounds; each round runs every
 * filter type once, one at a time (created, filled, tested, freed before
 * the next: at 100M keys no two filters are in memory at once), in an
 * order rotated by one every round, so drift on a shared machine touches
 * every type alike. Per type and round, three loops timed whole with
 * clock_gettime(CLOCK_MONOTONIC), over keys in arrays built beforehand,
 * their results summed so the compiler keeps the work: add all n present
 * keys; test s present keys (positive test); test s absent keys (negative
 * test); s = min(n, S). Reported: the median over the rounds and its
 * spread (min-max), and the throughput ratio libbloom_ns / ours_ns
 * computed within each round, with its median and spread. Each round also
 * runs the limits (run_limits(): pointer chase, independent and prefetched
 * loads, locked ORs, the hash alone and with a load) in a region of
 * libbloom's size, and every type's ns/op is also given in random accesses
 * (÷ the chase's ns per access, same round). Markdown goes to FILE (stdout
 * without --out), progress to stderr.
 *
 * Quick mode (make check): n = 100000, R = 1, TAP on stdout: per type, it
 * ran; its measured FPR is within a factor of 3 of its model; no false
 * negatives (the stable filter forgets old keys by design: skipped).
 *
 * Keys are 8 bytes, distinct by construction: present key i is G(2i),
 * absent key i is G(2i + 1), G(x) = fmix64(x ^ seed) (MurmurHash3's
 * finaliser, a bijection of 64-bit words): the two sets are disjoint and
 * fixed by the seed. The measured FPR is positives among absent keys only.
 *
 * Every filter is sized for 1% at n keys as `bloomctl create NAME TYPE
 * capacity N fpr 0.01` sizes it (kb_params_size(), userspace/sizing.c):
 * bloom's m = -n ln p / (ln 2)^2 and k = round(ln 2 m/n) for bloom,
 * partitioned, counting, stable and each multi dimension; blocked and
 * dleft by their own rules for <= 1%; libbloom by its bloom_init().
 */
#define _GNU_SOURCE
#include <bloom.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "engine/batch.h"
#include "engine/digest.h"
#include "engine/filter.h"
#include "sizing.h"

#define P_TARGET	0.01		/* every filter's design FPR */
#define RUNS_MAX	9
#define NS_MAX		4		/* sizes of n in one invocation */
#define KEY_SEED	0x6b626c6f6f6d2d62ULL	/* "kbloom-b" */
#define MULTI_DIMS	3
#define TEST_MAX	5000000		/* keys per test loop, by default */
/* multi3 by default only up to this n: 3 bloom ops a key, 3 keys a tuple */
#define MULTI_MAX_N	10000000

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25	/* Linux 6.1 */
#endif
#define HUGE_SIZE	(2UL << 20)

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "(unknown)"
#endif

enum phase { PH_ADD, PH_POS, PH_NEG, PH_N };

/*
 * VK_BATCH: the same engine type through kb_filter_add_many() /
 * kb_filter_test_many(), as the module's netlink ADD/TEST run it: keys
 * hashed BATCH at a time, each key's cells prefetched a few keys ahead.
 */
enum vkind { VK_LIBBLOOM, VK_ENGINE, VK_MULTI, VK_BATCH };

#define BATCH	32	/* keys per batch: the module's KB_NL_BATCH */

struct variant {
	const char *name;
	enum vkind kind;
	u32 type;		/* enum kbloom_type */
	u32 cell_bits;
	u32 update;		/* enum kbloom_update */
	bool forgets;		/* false negatives by design (stable) */
	u32 hash_fn;		/* enum kbloom_hash_fn: 0, SipHash-2-4 */
};

static const struct variant variants[] = {
	{ "libbloom", VK_LIBBLOOM, 0, 0, 0, false, 0 },
	{ "bloom", VK_ENGINE, KBLOOM_TYPE_BLOOM, 0, 0, false, 0 },
	{ "partitioned", VK_ENGINE, KBLOOM_TYPE_PARTITIONED, 0, 0, false, 0 },
	{ "blocked", VK_ENGINE, KBLOOM_TYPE_BLOCKED, 0, 0, false, 0 },
	{ "counting4", VK_ENGINE, KBLOOM_TYPE_COUNTING, 4,
	  KBLOOM_UPDATE_PLAIN, false, 0 },
	{ "counting4-cons", VK_ENGINE, KBLOOM_TYPE_COUNTING, 4,
	  KBLOOM_UPDATE_CONSERVATIVE, false, 0 },
	{ "dleft", VK_ENGINE, KBLOOM_TYPE_DLEFT, 0, 0, false, 0 },
	{ "stable", VK_ENGINE, KBLOOM_TYPE_STABLE, 1, 0, true, 0 },
	{ "multi3", VK_MULTI, KBLOOM_TYPE_MULTI, 0, 0, false, 0 },
	/* The same types made with 'hash siphash-1-3' (KBLOOM_A_HASH_FN). */
	{ "bloom-sip13", VK_ENGINE, KBLOOM_TYPE_BLOOM, 0, 0, false,
	  KBLOOM_HASH_FN_SIPHASH13 },
	{ "blocked-sip13", VK_ENGINE, KBLOOM_TYPE_BLOCKED, 0, 0, false,
	  KBLOOM_HASH_FN_SIPHASH13 },
	{ "bloom-batch", VK_BATCH, KBLOOM_TYPE_BLOOM, 0, 0, false, 0 },
	{ "blocked-batch", VK_BATCH, KBLOOM_TYPE_BLOCKED, 0, 0, false, 0 },
	{ "counting4-batch", VK_BATCH, KBLOOM_TYPE_COUNTING, 4,
	  KBLOOM_UPDATE_PLAIN, false, 0 },
};

#define NVARIANTS	(sizeof(variants) / sizeof(variants[0]))
#define V_LIBBLOOM	0

/* How one variant is sized for one n. */
struct plan {
	struct kb_shape s;	/* engine types */
	u64 m;			/* cells (per dimension for multi) */
	u32 k;
	u64 bytes;		/* filter memory */
	double model;		/* predicted FPR of the negative test */
	char rule[320];		/* how m, k and the rest were chosen */
	char refused[120];	/* non-empty: the engine refused the shape */
};

struct result {
	struct plan plan;
	unsigned int rounds;
	double ns[RUNS_MAX][PH_N];
	u64 fp;			/* positives among absent keys, all rounds */
	u64 fn;			/* negatives among present keys, all rounds */
	double huge;		/* share of the filter on 2 MiB pages */
	bool on;		/* selected for this n */
	char failed[160];	/* non-empty: did not run */
};

/*
 * Keys of one n. The add loop takes all n present keys; the test loops
 * take s of them (s = n up to TEST_MAX): every (n/s)-th present key, and
 * s absent keys.
 */
struct keyset {
	u64 n, s;
	u64 *add, *pos, *neg;
	u64 *tadd, *tpos, *tneg;	/* multi: MULTI_DIMS words a key */
};

static u64 sink;		/* results, so no loop is dead code */
static bool huge_pages = true;	/* filter memory on 2 MiB pages (--pages) */
static const u8 hash_key[16] = {	/* fixed: every run hashes alike */
	0x6b, 0x62, 0x6c, 0x6f, 0x6f, 0x6d, 0x2d, 0x62,
	0x65, 0x6e, 0x63, 0x68, 0x2d, 0x6b, 0x65, 0x79,
};

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("engine_bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xmalloc(size_t size)
{
	void *p = malloc(size);

	if (!p)
		die("out of memory (%zu bytes)", size);
	return p;
}

/* ---- keys ---------------------------------------------------------- */

/* MurmurHash3's fmix64: a bijection, so distinct inputs stay distinct. */
static inline u64 fmix64(u64 z)
{
	z ^= z >> 33;
	z *= 0xff51afd7ed558ccdULL;
	z ^= z >> 33;
	z *= 0xc4ceb9fe1a85ec53ULL;
	z ^= z >> 33;
	return z;
}

static inline u64 keygen(u64 seed, u64 x)
{
	return fmix64(x ^ seed);
}

/*
 * @count keys of @words words: word d of key i is G(2 i stride + odd)
 * from sequence @seed + d (odd = 0: present keys, 1: absent keys).
 */
static void keys_fill(u64 *out, u64 seed, u64 count, u64 stride, u64 odd,
		      unsigned int words)
{
	u64 i, d;

	for (i = 0; i < count; i++)
		for (d = 0; d < words; d++)
			out[i * words + d] =
				keygen(seed + d, 2 * i * stride + odd);
}

static void keys_build(struct keyset *ks, u64 n, u64 test_max, bool tuples)
{
	u64 s = n < test_max ? n : test_max, stride = n / s;

	ks->n = n;
	ks->s = s;
	ks->add = xmalloc(n * sizeof(u64));
	ks->pos = xmalloc(s * sizeof(u64));
	ks->neg = xmalloc(s * sizeof(u64));
	keys_fill(ks->add, KEY_SEED, n, 1, 0, 1);
	keys_fill(ks->pos, KEY_SEED, s, stride, 0, 1);
	keys_fill(ks->neg, KEY_SEED, s, 1, 1, 1);
	ks->tadd = ks->tpos = ks->tneg = NULL;
	if (!tuples)
		return;
	/* Dimension d draws from its own sequence: seed + 1 + d. */
	ks->tadd = xmalloc(n * MULTI_DIMS * sizeof(u64));
	ks->tpos = xmalloc(s * MULTI_DIMS * sizeof(u64));
	ks->tneg = xmalloc(s * MULTI_DIMS * sizeof(u64));
	keys_fill(ks->tadd, KEY_SEED + 1, n, 1, 0, MULTI_DIMS);
	keys_fill(ks->tpos, KEY_SEED + 1, s, stride, 0, MULTI_DIMS);
	keys_fill(ks->tneg, KEY_SEED + 1, s, 1, 1, MULTI_DIMS);
}

static void keys_free(struct keyset *ks)
{
	free(ks->add);
	free(ks->pos);
	free(ks->neg);
	free(ks->tadd);
	free(ks->tpos);
	free(ks->tneg);
	memset(ks, 0, sizeof(*ks));
}

/* ---- sizing and FPR models ---------------------------------------- */

static u64 round_up(u64 x, u64 mult)
{
	return (x + mult - 1) / mult * mult;
}

static double fpr_bloom(u64 m, u32 k, u64 n)
{
	return pow(-expm1(-(double)k * (double)n / (double)m), k);
}

/* out = x * y for S x S matrices (out distinct from both). */
static void matmul(double *out, const double *x, const double *y, u32 S)
{
	u32 i, j, l;

	memset(out, 0, (size_t)S * S * sizeof(double));
	for (i = 0; i < S; i++)
		for (l = 0; l < S; l++)
			for (j = 0; j < S; j++)
				out[i * S + j] += x[i * S + l] * y[l * S + j];
}

/*
 * The stable filter after n adds from empty (sizing.c gives the stable
 * point, reached only after many more): each add decrements a given cell
 * with probability P/m, then sets it to Max with probability k/m. The
 * (Max+1)-state chain of one cell, raised to the n-th power by squaring,
 * gives the probability q that a cell is non-zero, and the FPR q^k.
 */
static double fpr_stable_after(u64 m, u32 k, u32 P, u32 max, u64 n)
{
	size_t bytes = (size_t)(max + 1) * (max + 1) * sizeof(double);
	double *t = xmalloc(bytes), *r = xmalloc(bytes), *tmp = xmalloc(bytes);
	double a = (double)P / m, b = (double)k / m, q = 0;
	u32 S = max + 1, i, j;

	memset(t, 0, bytes);
	memset(r, 0, bytes);
	for (i = 0; i < S; i++) {
		/* from i: decremented (a) or not, then set to Max (b) or not */
		t[i * S + max] += b;
		t[i * S + (i ? i - 1 : 0)] += a * (1 - b);
		t[i * S + i] += (1 - a) * (1 - b);
		r[i * S + i] = 1;
	}
	for (; n; n >>= 1) {
		if (n & 1) {
			matmul(tmp, r, t, S);
			memcpy(r, tmp, bytes);
		}
		matmul(tmp, t, t, S);
		memcpy(t, tmp, bytes);
	}
	for (j = 1; j < S; j++)
		q += r[j];	/* row 0: from an empty cell */
	free(t);
	free(r);
	free(tmp);
	return pow(q, k);
}

static const char *shape_error_name(enum kb_shape_error e)
{
	switch (e) {
	case KB_SHAPE_OK: return "ok";
	case KB_SHAPE_BAD_TYPE: return "bad type";
	case KB_SHAPE_BAD_BITS: return "bad m";
	case KB_SHAPE_BAD_HASHES: return "bad k";
	case KB_SHAPE_BAD_HASH_FN: return "bad hash function";
	case KB_SHAPE_BAD_COUNTER_BITS: return "bad counter bits";
	case KB_SHAPE_BAD_UPDATE: return "bad update";
	case KB_SHAPE_BAD_DECREMENT: return "bad decrement";
	case KB_SHAPE_BAD_SUBTABLES: return "bad subtables";
	case KB_SHAPE_BAD_BUCKET_CELLS: return "bad bucket cells";
	case KB_SHAPE_BAD_FP_BITS: return "bad fingerprint bits";
	case KB_SHAPE_BAD_DIMS: return "bad dims";
	case KB_SHAPE_BAD_CAPACITY: return "bad capacity";
	case KB_SHAPE_BAD_GROWTH: return "bad growth";
	case KB_SHAPE_BAD_TIGHTEN: return "bad tighten";
	case KB_SHAPE_TOO_BIG: return "too big";
	case KB_SHAPE_EXTRA_PARAM: return "parameter not taken by the type";
	}
	return "unknown";
}

/* Blocked at bloom's m (to a multiple of 512), best k: the model rate. */
static double blocked_at_bloom_m(u64 n)
{
	double best = 1;
	u64 m;
	u32 k;

	if (sizing_from_capacity(n, P_TARGET, &m, &k))
		return NAN;
	m = round_up(m, 512);
	for (k = 1; k <= 16; k++)
		if (sizing_fpr_blocked(m, k, (double)n) < best)
			best = sizing_fpr_blocked(m, k, (double)n);
	return best;
}

/*
 * Sizes @v for @n keys at 1% as `bloomctl create NAME TYPE capacity N fpr
 * 0.01` does (userspace/sizing.c, kb_params_size()); libbloom by its own
 * bloom_init().
 */
static void plan_variant(const struct variant *v, u64 n, struct plan *pl)
{
	struct kb_shape p = {
		.type = v->type,
		.cell_bits = v->cell_bits,
		.update = v->update,
		.dims = v->kind == VK_MULTI ? MULTI_DIMS : 0,
	};
	struct kb_shape *s = &pl->s;
	enum kb_shape_error err;
	struct bloom b;
	int r;

	memset(pl, 0, sizeof(*pl));
	if (v->kind == VK_LIBBLOOM) {
		if (bloom_init(&b, (int)n, P_TARGET))
			die("bloom_init(%llu) failed", (unsigned long long)n);
		pl->m = (u64)b.bits;
		pl->k = (u32)b.hashes;
		pl->bytes = (u64)b.bytes;
		pl->model = fpr_bloom(pl->m, pl->k, n);
		snprintf(pl->rule, sizeof(pl->rule),
			 "its own bloom_init(n, 0.01): m = -n ln p / (ln 2)^2, k = ceil(ln 2 * m/n); model (1 - e^(-kn/m))^k");
		bloom_free(&b);
		return;
	}
	r = kb_params_size(&p, n, P_TARGET);
	if (r) {
		snprintf(pl->refused, sizeof(pl->refused),
			 "kb_params_size: %s", strerror(-r));
		return;
	}
	s->type = p.type;
	s->m = pl->m = p.m;
	s->k = pl->k = p.k;
	s->cell_bits = p.cell_bits;
	s->update = p.update;
	s->decrement = p.decrement;
	s->subtables = p.subtables;
	s->bucket_cells = p.bucket_cells;
	s->fp_bits = p.fp_bits;
	s->dims = p.type == KBLOOM_TYPE_MULTI ? p.dims : 0;
	s->hash_fn = v->hash_fn;
	pl->model = kb_params_fpr(&p, (double)n);

	switch (v->type) {
	case KBLOOM_TYPE_BLOOM:
		snprintf(pl->rule, sizeof(pl->rule),
			 "m = -n ln p / (ln 2)^2 (up to a multiple of 64), k = round(ln 2 * m/n); model (1 - e^(-kn/m))^k");
		break;
	case KBLOOM_TYPE_PARTITIONED:
		snprintf(pl->rule, sizeof(pl->rule),
			 "bloom's m (up to a multiple of k) and k; model (1 - (1 - k/m)^n)^k");
		break;
	case KBLOOM_TYPE_BLOCKED:
		snprintf(pl->rule, sizeof(pl->rule),
			 "its own: the smallest m (multiple of 512) whose occupancy-model FPR is <= 1%% with its best k (sizing_blocked_from_capacity); bloom's m would give %.2f%%",
			 100 * blocked_at_bloom_m(n));
		break;
	case KBLOOM_TYPE_COUNTING:
		snprintf(pl->rule, sizeof(pl->rule),
			 "bloom's m and k, %u-bit counters, %s update; model bloom's",
			 p.cell_bits, p.update == KBLOOM_UPDATE_CONSERVATIVE ?
			 "conservative" : "plain");
		break;
	case KBLOOM_TYPE_DLEFT:
		snprintf(pl->rule, sizeof(pl->rule),
			 "its own: d = %u subtables, %u cells per bucket, m = n / %.2f cells (32 bits each), f = %u: the fewest fingerprint bits with 1 - (1 - 2^-f)^(d c n/m) <= 1%%",
			 p.subtables, p.bucket_cells, KB_DLEFT_LOAD, p.fp_bits);
		break;
	case KBLOOM_TYPE_STABLE:
		/* the test runs right after n inserts, far from the stable point */
		pl->model = fpr_stable_after(p.m, p.k, p.decrement,
					     (1U << p.cell_bits) - 1, n);
		snprintf(pl->rule, sizeof(pl->rule),
			 "bloom's m and k, %u-bit cells, P = %u decrements per add: the fewest whose stable-point FPR (%.2f%%) is <= 1%%; model: the cell chain after n adds",
			 p.cell_bits, p.decrement,
			 100 * kb_params_fpr(&p, (double)n));
		break;
	case KBLOOM_TYPE_MULTI:
		pl->model = pow(pl->model, MULTI_DIMS);
		snprintf(pl->rule, sizeof(pl->rule),
			 "%u dimensions, each bloom's m and k (a one-dimension query: 1%%); a test names all %u: model p^%u",
			 MULTI_DIMS, MULTI_DIMS, MULTI_DIMS);
		break;
	}
	err = kb_filter_check_shape(s);
	if (err != KB_SHAPE_OK) {
		snprintf(pl->refused, sizeof(pl->refused),
			 "the engine refused the shape: %s",
			 shape_error_name(err));
		return;
	}
	pl->bytes = kb_filter_mem_for(s);
}

/* ---- filter memory pages ------------------------------------------- */

static u64 anon_huge_bytes(void)
{
	FILE *fp = fopen("/proc/self/smaps_rollup", "r");
	unsigned long long kb = 0;
	char line[256];

	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
			break;
	fclose(fp);
	return kb << 10;
}

/*
 * With --pages 2m (the default) a filter's memory, once allocated and
 * zeroed, is collapsed onto 2 MiB pages, as the module's kvmalloc() maps
 * allocations of 2 MiB and more on x86-64 (6.1: VM_ALLOW_HUGE_VMAP);
 * libbloom's array gets the same. Returns the share of the memory that
 * ended up on huge pages. (main() has every allocation of 1 MiB or more
 * mmap()ed, so a freed filter leaves no huge pages behind to miscount.)
 */
static double pages_setup(void *mem, u64 bytes)
{
	unsigned long a = ((unsigned long)mem + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1);
	unsigned long e = ((unsigned long)mem + bytes) & ~(HUGE_SIZE - 1);
	u64 before;

	if (!huge_pages || e <= a)
		return 0;
	before = anon_huge_bytes();
	if (madvise((void *)a, e - a, MADV_HUGEPAGE) ||
	    madvise((void *)a, e - a, MADV_COLLAPSE))
		return 0;
	return (double)(anon_huge_bytes() - before) / bytes;
}

/* ---- timed loops ---------------------------------------------------- */

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * One timed loop of n operations: ns per operation; *hits counts the
 * true results. Each op is a call into another translation unit (or a
 * shared library), so it cannot be hoisted or dropped.
 */
#define TIMED_LOOP(name, type, call)					\
static double name(type *f, const u64 *keys, u64 n, u64 *hits)	\
{									\
	double t0, t1;							\
	u64 i, h = 0;							\
									\
	t0 = now_ns();							\
	for (i = 0; i < n; i++)						\
		h += (call) ? 1 : 0;					\
	t1 = now_ns();							\
	*hits = h;							\
	sink += h;							\
	return (t1 - t0) / (double)n;					\
}

TIMED_LOOP(lib_add, struct bloom, bloom_add(f, &keys[i], 8) == 0)
TIMED_LOOP(lib_test, struct bloom, bloom_check(f, &keys[i], 8) == 1)
TIMED_LOOP(eng_add, struct kb_filter, kb_filter_add(f, &keys[i], 8))
TIMED_LOOP(eng_test, struct kb_filter, kb_filter_test(f, &keys[i], 8))

/* One batch: hash BATCH keys, then add or test them together. */
static inline u64 batch_op(struct kb_filter *f, const u64 *keys, u64 n,
			   bool add)
{
	struct kb_hash h[BATCH];
	bool present[BATCH];
	u64 j, hits = 0;

	for (j = 0; j < n; j++)
		kb_filter_hash(f, &keys[j], 8, &h[j]);
	if (add) {
		kb_filter_add_many(f, h, n);
		return n;
	}
	kb_filter_test_many(f, h, n, present);
	for (j = 0; j < n; j++)
		hits += present[j];
	return hits;
}

#define BATCH_LOOP(name, add)						\
static double name(struct kb_filter *f, const u64 *keys, u64 n, u64 *hits) \
{									\
	double t0, t1;							\
	u64 i, h = 0;							\
									\
	t0 = now_ns();							\
	for (i = 0; i < n; i += BATCH)					\
		h += batch_op(f, &keys[i], n - i < BATCH ? n - i : BATCH, add); \
	t1 = now_ns();							\
	*hits = h;							\
	sink += h;							\
	return (t1 - t0) / (double)n;					\
}

BATCH_LOOP(batch_add, true)
BATCH_LOOP(batch_test, false)

static inline bool tuple_op(struct kb_filter *f, const u64 *vals, bool add)
{
	struct kb_tuple t;
	u32 d;

	t.mask = (1U << MULTI_DIMS) - 1;
	for (d = 0; d < MULTI_DIMS; d++) {
		t.val[d] = &vals[d];
		t.len[d] = sizeof(u64);
	}
	if (add)
		return kb_filter_add_tuple(f, &t) == 0;
	return kb_filter_test_tuple(f, &t);
}

TIMED_LOOP(multi_add, struct kb_filter,
	   tuple_op(f, &keys[i * MULTI_DIMS], true))
TIMED_LOOP(multi_test, struct kb_filter,
	   tuple_op(f, &keys[i * MULTI_DIMS], false))

/* ---- limits: what one key at a time can reach ------------------------ */

/*
 * The rows that define the limit, measured in the same rounds as the
 * types, in a region of libbloom's size at this n (one memory at a time),
 * on its 2 MiB pages as the filters are; each over the s absent keys, as
 * random 64-bit words (key i picks line reduce(key i, lines)):
 *
 * - chase: each line's first word names the next line (one random cycle
 *   through all lines, Sattolo's algorithm): one access at a time, each
 *   waiting for the one before. Its ns per access is the unit of the
 *   "random accesses" tables.
 * - independent: one load per key from its line, nothing else: as many
 *   misses in flight as the out-of-order window holds.
 * - prefetched: the same, key i + 16's line prefetched first.
 * - locked OR: one bit ORed atomically (lock or) into each key's line.
 * - hash: kb_hash_key() alone (SipHash-2-4, the mix for h2), no memory.
 * - hash -> load: kb_hash_key(), then one load from the line h1 picks:
 *   the least a keyed filter of one line per key does, one key at a time.
 * - hash + load: kb_hash_key() and a load from the key's own line, the
 *   two independent: if it costs as much as hash -> load, what limits the
 *   overlap is the hash's instructions in the window, not the dependency.
 * - hash -> locked OR: kb_hash_key(), then one bit ORed atomically into
 *   the line h1 picks: the least a keyed one-line add does.
 * - packets (the packet path of kmod/attach.c on a blocked filter, k = 7,
 *   of the region's size): per packet a 28-byte IPv4/UDP header whose
 *   addresses are the key, its SPIE digest (kb_digest()), then either
 *   kb_filter_add() of the digest, one packet at a time, or through a
 *   batch (kb_batch_put(): hash, prefetch; kb_batch_add() per 16), as
 *   kmod/digest_queue.c does per CPU.
 */
enum limit { L_CHASE, L_INDEP, L_PREFETCH, L_LOCKOR, L_HASH, L_HASH_LOAD,
	     L_HASH_INDEP, L_HASH_LOCKOR, L_PKT_ONE, L_PKT_QUEUED, L_N };

static const char *const limit_names[L_N] = {
	"pointer chase (one access at a time)",
	"independent loads",
	"independent loads, prefetched 16 ahead",
	"locked OR on random lines",
	"the hash alone (kb_hash_key: SipHash-2-4 + mix)",
	"hash → load of its line",
	"hash + independent load (no dependency)",
	"hash → locked OR on its line",
	"packet: digest, hash, blocked add, one at a time",
	"packet: digest, then queued 16 (hashed and prefetched on arrival)",
};

#define LIMIT_AHEAD	16

struct limits {
	u64 bytes;		/* the region: libbloom's filter at this n */
	unsigned int rounds;
	double ns[RUNS_MAX][L_N];
	double huge;
	u64 pkt_missing;	/* queued packets' digests not found after */
	char failed[160];
};

static inline u64 line_of(u64 key, u64 lines)
{
	return mul_u64_u64_shr(key, lines, 64);
}

/* One timed loop over the s keys; @body adds to h. */
#define LIMIT_LOOP(name, body)						\
static double name(unsigned long *mem, u64 lines,			\
		   const siphash_key_t *hk, const u64 *keys, u64 n)	\
{									\
	double t0, t1;							\
	u64 i, h = 0;							\
									\
	(void)hk;							\
	t0 = now_ns();							\
	for (i = 0; i < n; i++) {					\
		body;							\
	}								\
	t1 = now_ns();							\
	sink += h;							\
	return (t1 - t0) / (double)n;					\
}

LIMIT_LOOP(lim_chase, h = READ_ONCE(mem[h * 8]))
LIMIT_LOOP(lim_indep, h += READ_ONCE(mem[line_of(keys[i], lines) * 8]))
LIMIT_LOOP(lim_prefetch,
	   if (i + LIMIT_AHEAD < n)
		   __builtin_prefetch(&mem[line_of(keys[i + LIMIT_AHEAD],
						   lines) * 8]);
	   h += READ_ONCE(mem[line_of(keys[i], lines) * 8]))
LIMIT_LOOP(lim_lockor,
	   atomic_long_or(1UL << (keys[i] % 64),
			  (atomic_long_t *)&mem[line_of(keys[i], lines) * 8 +
						1 + keys[i] / 64 % 7]))
LIMIT_LOOP(lim_hash,
	   struct kb_hash kh;
	   kb_hash_key(hk, &keys[i], 8, &kh);
	   h += kh.h1 ^ kh.h2)
LIMIT_LOOP(lim_hash_load,
	   struct kb_hash kh;
	   kb_hash_key(hk, &keys[i], 8, &kh);
	   h += READ_ONCE(mem[line_of(kh.h1, lines) * 8 + kh.h2 % 7 + 1]))
LIMIT_LOOP(lim_hash_indep,
	   struct kb_hash kh;
	   kb_hash_key(hk, &keys[i], 8, &kh);
	   h += kh.h1 ^ kh.h2;
	   h += READ_ONCE(mem[line_of(keys[i], lines) * 8]))
LIMIT_LOOP(lim_hash_lockor,
	   struct kb_hash kh;
	   kb_hash_key(hk, &keys[i], 8, &kh);
	   atomic_long_or(1UL << (kh.h2 % 64),
			  (atomic_long_t *)&mem[line_of(kh.h1, lines) * 8 +
						1 + kh.h2 / 64 % 7]))

/* A packet of the key @key: IPv4/UDP, the key as its two addresses. */
static void key_packet(u8 p[28], u64 key)
{
	static const u8 head[28] = { 0x45, 0, 0, 28, 0, 0, 0x40, 0, 64, 17,
				     [20] = 0x30, 0x39, 0x30, 0x39, 0, 8 };

	memcpy(p, head, sizeof(head));
	memcpy(p + 12, &key, 8);
}

static double pkt_loop(struct kb_filter *f, const u64 *keys, u64 n,
		       bool queued)
{
	struct kb_batch b = { 0 };
	struct kb_digest d;
	double t0, t1;
	u64 i, bad = 0;
	u8 p[28];

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		key_packet(p, keys[i]);
		if (kb_digest(p, sizeof(p), KBLOOM_DIGEST_SPIE, &d)) {
			bad++;
			continue;
		}
		if (!queued)
			kb_filter_add(f, d.key, d.len);
		else if (kb_batch_put(&b, f, d.key, d.len))
			kb_batch_add(&b, f);
	}
	if (b.n)
		kb_batch_add(&b, f);
	t1 = now_ns();
	if (bad)
		die("kb_digest refused %llu benchmark packets",
		    (unsigned long long)bad);
	return (t1 - t0) / (double)n;
}

/* How many of the packets of @keys are not in @f. */
static u64 pkt_missing(const struct kb_filter *f, const u64 *keys, u64 n)
{
	struct kb_digest d;
	u64 i, miss = 0;
	u8 p[28];

	for (i = 0; i < n; i++) {
		key_packet(p, keys[i]);
		kb_digest(p, sizeof(p), KBLOOM_DIGEST_SPIE, &d);
		miss += !kb_filter_test(f, d.key, d.len);
	}
	return miss;
}

/* The packet rows: a blocked filter of @bytes, each way on a fresh one. */
static void run_packets(const struct keyset *ks, struct limits *lim,
			double *ns)
{
	struct kb_shape sh = { .type = KBLOOM_TYPE_BLOCKED, .k = 7,
			       .m = lim->bytes / 64 * 512 };
	struct kb_filter f;
	int queued, err;

	for (queued = 0; queued < 2; queued++) {
		err = kb_filter_init(&f, &sh, hash_key);
		if (err)
			die("kb_filter_init (blocked, %llu bits): %s",
			    (unsigned long long)sh.m, strerror(-err));
		pages_setup(f.mem, kb_filter_mem(&f));
		ns[queued ? L_PKT_QUEUED : L_PKT_ONE] =
			pkt_loop(&f, ks->neg, ks->s, queued);
		if (queued)
			lim->pkt_missing += pkt_missing(&f, ks->neg, ks->s);
		kb_filter_free(&f);
	}
}

/* One round of the limits: the region made, each loop once, freed. */
static void run_limits(const struct keyset *ks, struct limits *lim)
{
	u64 lines = lim->bytes / 64, i, j, next, n = ks->s;
	double *ns = lim->ns[lim->rounds];
	siphash_key_t hk;
	unsigned long *mem;
	double huge;

	if (lines < 2) {
		snprintf(lim->failed, sizeof(lim->failed), "region too small");
		return;
	}
	mem = aligned_alloc(64, lines * 64);
	if (!mem)
		die("out of memory (%llu bytes)",
		    (unsigned long long)(lines * 64));
	memset(mem, 0, lines * 64);
	huge = pages_setup(mem, lines * 64);
	memset(&hk, 0, sizeof(hk));
	for (i = 0; i < 8; i++) {
		hk.key[0] |= (u64)hash_key[i] << (8 * i);
		hk.key[1] |= (u64)hash_key[8 + i] << (8 * i);
	}
	/*
	 * Sattolo's algorithm (a random permutation that is one cycle),
	 * drawn in place: mem[line * 8] holds the line after it.
	 */
	for (i = 0; i < lines; i++)
		mem[i * 8] = i;
	for (i = lines - 1; i > 0; i--) {
		j = fmix64(i ^ KEY_SEED) % i;
		next = mem[i * 8];
		mem[i * 8] = mem[j * 8];
		mem[j * 8] = next;
	}
	ns[L_CHASE] = lim_chase(mem, lines, &hk, ks->neg, n);
	ns[L_INDEP] = lim_indep(mem, lines, &hk, ks->neg, n);
	ns[L_PREFETCH] = lim_prefetch(mem, lines, &hk, ks->neg, n);
	ns[L_LOCKOR] = lim_lockor(mem, lines, &hk, ks->neg, n);
	ns[L_HASH] = lim_hash(mem, lines, &hk, ks->neg, n);
	ns[L_HASH_LOAD] = lim_hash_load(mem, lines, &hk, ks->neg, n);
	ns[L_HASH_INDEP] = lim_hash_indep(mem, lines, &hk, ks->neg, n);
	ns[L_HASH_LOCKOR] = lim_hash_lockor(mem, lines, &hk, ks->neg, n);
	free(mem);
	run_packets(ks, lim, ns);
	if (!lim->rounds || huge < lim->huge)
		lim->huge = huge;
	lim->rounds++;
}

/* One round of one variant: create, add, test present, test absent, free. */
static void run_variant(const struct variant *v, const struct keyset *ks,
			struct result *res)
{
	double *ns = res->ns[res->rounds];
	u64 n = ks->n, ts = ks->s, hits;
	double huge = 0;
	struct kb_filter f;
	struct bloom b;
	int err;

	if (res->plan.refused[0]) {
		/* refused is the shorter buffer */
		strcpy(res->failed, res->plan.refused);
		return;
	}
	switch (v->kind) {
	case VK_LIBBLOOM:
		if (bloom_init(&b, (int)n, P_TARGET)) {
			snprintf(res->failed, sizeof(res->failed),
				 "bloom_init failed");
			return;
		}
		/* calloc'ed lazily: fault the pages in, as kb_filter_init does. */
		memset(b.bf, 0, b.bytes);
		huge = pages_setup(b.bf, b.bytes);
		ns[PH_ADD] = lib_add(&b, ks->add, n, &hits);
		ns[PH_POS] = lib_test(&b, ks->pos, ts, &hits);
		res->fn += ts - hits;
		ns[PH_NEG] = lib_test(&b, ks->neg, ts, &hits);
		res->fp += hits;
		bloom_free(&b);
		break;
	case VK_ENGINE:
	case VK_MULTI:
	case VK_BATCH:
		err = kb_filter_init(&f, &res->plan.s, hash_key);
		if (err) {
			snprintf(res->failed, sizeof(res->failed),
				 "kb_filter_init: %s", strerror(-err));
			return;
		}
		huge = pages_setup(f.mem, kb_filter_mem(&f));
		if (v->kind == VK_BATCH) {
			ns[PH_ADD] = batch_add(&f, ks->add, n, &hits);
			ns[PH_POS] = batch_test(&f, ks->pos, ts, &hits);
			res->fn += ts - hits;
			ns[PH_NEG] = batch_test(&f, ks->neg, ts, &hits);
			res->fp += hits;
		} else if (v->kind == VK_ENGINE) {
			ns[PH_ADD] = eng_add(&f, ks->add, n, &hits);
			ns[PH_POS] = eng_test(&f, ks->pos, ts, &hits);
			res->fn += ts - hits;
			ns[PH_NEG] = eng_test(&f, ks->neg, ts, &hits);
			res->fp += hits;
		} else {
			ns[PH_ADD] = multi_add(&f, ks->tadd, n, &hits);
			if (hits != n) {
				snprintf(res->failed, sizeof(res->failed),
					 "kb_filter_add_tuple failed %llu times",
					 (unsigned long long)(n - hits));
				kb_filter_free(&f);
				return;
			}
			ns[PH_POS] = multi_test(&f, ks->tpos, ts, &hits);
			res->fn += ts - hits;
			ns[PH_NEG] = multi_test(&f, ks->tneg, ts, &hits);
			res->fp += hits;
		}
		kb_filter_free(&f);
		break;
	}
	/* the least over the rounds */
	if (!res->rounds || huge < res->huge)
		res->huge = huge;
	res->rounds++;
}

/* ---- statistics ------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct stat3 {
	double med, min, max;
};

static struct stat3 stats(const double *v, unsigned int r)
{
	double s[RUNS_MAX];
	struct stat3 st;

	if (!r) {
		st.med = st.min = st.max = NAN;
		return st;
	}
	memcpy(s, v, r * sizeof(double));
	qsort(s, r, sizeof(double), cmp_double);
	st.min = s[0];
	st.max = s[r - 1];
	st.med = r % 2 ? s[r / 2] : (s[r / 2 - 1] + s[r / 2]) / 2;
	return st;
}

static struct stat3 phase_stats(const struct result *res, enum phase ph)
{
	double v[RUNS_MAX];
	unsigned int r;

	for (r = 0; r < res->rounds; r++)
		v[r] = res->ns[r][ph];
	return stats(v, res->rounds);
}

/* Per-round ratio num[r][ph] / den[r][ph]: median and spread. */
static struct stat3 ratio_stats(const struct result *num,
				const struct result *den, enum phase pn,
				enum phase pd)
{
	double v[RUNS_MAX];
	unsigned int r, rounds = num->rounds < den->rounds ?
				 num->rounds : den->rounds;

	for (r = 0; r < rounds; r++)
		v[r] = num->ns[r][pn] / den->ns[r][pd];
	return stats(v, rounds);
}

/* ---- reports ---------------------------------------------------------- */

static const char *human_n(u64 n, char *buf, size_t len)
{
	if (n >= 1000000 && n % 1000000 == 0)
		snprintf(buf, len, "%lluM", (unsigned long long)(n / 1000000));
	else if (n >= 1000 && n % 1000 == 0)
		snprintf(buf, len, "%lluk", (unsigned long long)(n / 1000));
	else
		snprintf(buf, len, "%llu", (unsigned long long)n);
	return buf;
}

static const char *human_bytes(u64 b, char *buf, size_t len)
{
	if (b >= (1ULL << 30))
		snprintf(buf, len, "%.2f GiB", b / (double)(1ULL << 30));
	else if (b >= (1ULL << 20))
		snprintf(buf, len, "%.1f MiB", b / (double)(1ULL << 20));
	else
		snprintf(buf, len, "%.1f KiB", b / 1024.0);
	return buf;
}

static void cpu_model(char *buf, size_t len)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[512];
	int cpus = 0;

	snprintf(buf, len, "unknown");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "processor", 9))
			cpus++;
		if (!strncmp(line, "model name", 10) && colon && cpus == 1) {
			colon += 2;
			colon[strcspn(colon, "\n")] = 0;
			snprintf(buf, len, "%s", colon);
		}
	}
	fclose(fp);
	snprintf(buf + strlen(buf), len - strlen(buf), ", %d CPUs online",
		 cpus);
}

static void loadavg(char *buf, size_t len)
{
	FILE *fp = fopen("/proc/loadavg", "r");

	snprintf(buf, len, "?");
	if (fp) {
		if (fgets(buf, len, fp))
			buf[strcspn(buf, "\n")] = 0;
		fclose(fp);
	}
}

static void fmt_stat(char *buf, size_t len, struct stat3 st, bool spread)
{
	int prec = st.med < 10 ? 2 : 1;

	if (spread)
		snprintf(buf, len, "%.*f [%.*f–%.*f]", prec, st.med, prec,
			 st.min, prec, st.max);
	else
		snprintf(buf, len, "%.*f", prec, st.med);
}

struct run {
	u64 n;
	u64 s;			/* keys per test loop */
	unsigned int runs;
	struct result res[NVARIANTS];
	struct limits lim;
	double seconds;
};

static bool selected[NVARIANTS];

/* Per round: v[r] / the chase's ns in the same round; median and spread. */
static struct stat3 accesses(const double v[RUNS_MAX], unsigned int rounds,
			     const struct limits *lim)
{
	double a[RUNS_MAX];
	unsigned int r, n = rounds < lim->rounds ? rounds : lim->rounds;

	for (r = 0; r < n; r++)
		a[r] = v[r] / lim->ns[r][L_CHASE];
	return stats(a, n);
}

static void report_limits(FILE *out, const struct run *run)
{
	const struct limits *lim = &run->lim;
	char b1[64], b2[64], b3[64];
	double v[RUNS_MAX];
	unsigned int i, r;
	int ph;

	if (!lim->rounds) {
		fprintf(out, "\nLimits: did not run: %s\n", lim->failed);
		return;
	}
	fprintf(out, "\nLimits, in the same rounds (rotated with the types): a region of libbloom's size (%s, %.0f%% on 2M pages), %s absent keys as random words (key i picks line key i · lines >> 64). ns per key: median [min–max]; random accesses: ns ÷ the pointer chase's ns per access in the same round, median:\n\n",
		human_bytes(lim->bytes, b1, sizeof(b1)), 100 * lim->huge,
		human_n(run->s, b2, sizeof(b2)));
	fprintf(out, "| limit | ns per key | random accesses |\n|---|---:|---:|\n");
	for (i = 0; i < L_N; i++) {
		for (r = 0; r < lim->rounds; r++)
			v[r] = lim->ns[r][i];
		fmt_stat(b1, sizeof(b1), stats(v, lim->rounds),
			 lim->rounds > 1);
		fmt_stat(b3, sizeof(b3), accesses(v, lim->rounds, lim), false);
		fprintf(out, "| %s | %s | %s |\n", limit_names[i], b1, b3);
	}
	fprintf(out, "\nEvery type in random accesses (its ns/op ÷ the pointer chase's ns per access, per round), median [min–max]:\n\n");
	fprintf(out, "| type | add | pos test | neg test |\n|---|---:|---:|---:|\n");
	for (i = 0; i < NVARIANTS; i++) {
		const struct result *res = &run->res[i];

		if (!res->on || !res->rounds)
			continue;
		fprintf(out, "| %s |", variants[i].name);
		for (ph = 0; ph < PH_N; ph++) {
			for (r = 0; r < res->rounds; r++)
				v[r] = res->ns[r][ph];
			fmt_stat(b3, sizeof(b3), accesses(v, res->rounds, lim),
				 res->rounds > 1);
			fprintf(out, " %s |", b3);
		}
		fprintf(out, "\n");
	}
}

static void report_md(FILE *out, const struct run *run)
{
	const struct result *lib = &run->res[V_LIBBLOOM];
	char nb[32], b1[64], b2[64], b3[64];
	unsigned int i, r;
	int ph;

	fprintf(out, "\n## n = %s keys (R = %u rounds, %.0f s)\n\n",
		human_n(run->n, nb, sizeof(nb)), run->runs, run->seconds);
	fprintf(out, "ns/op: median [min–max] over the rounds. add: all %s keys; pos test: %s of them%s; neg test: %s absent keys.\n\n",
		nb, human_n(run->s, b1, sizeof(b1)),
		run->s < run->n ? " (every n/s-th)" : "",
		human_n(run->s, b2, sizeof(b2)));
	fprintf(out, "| type | m | k | memory | bits/key | 2M pages | add | pos test | neg test | FPR measured | FPR model | false neg. |\n");
	fprintf(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < NVARIANTS; i++) {
		const struct result *res = &run->res[i];
		const struct plan *pl = &res->plan;
		u64 probes = (u64)res->rounds * run->s;

		if (!res->on)
			continue;
		fprintf(out, "| %s | %llu | %u | %s | %.2f | %.0f%% |",
			variants[i].name, (unsigned long long)pl->m, pl->k,
			human_bytes(pl->bytes, b1, sizeof(b1)),
			8.0 * pl->bytes / run->n, 100 * res->huge);
		if (!res->rounds) {
			fprintf(out, " did not run: %s | | | | | |\n",
				res->failed);
			continue;
		}
		for (ph = 0; ph < PH_N; ph++) {
			fmt_stat(b2, sizeof(b2), phase_stats(res, ph),
				 res->rounds > 1);
			fprintf(out, " %s |", b2);
		}
		fprintf(out, " %.4f%% | %.4f%% | %.3g%% |\n",
			100.0 * res->fp / probes, 100 * pl->model,
			100.0 * res->fn / probes);
	}

	for (i = 0, r = 0; i < NVARIANTS; i++)
		if (!run->res[i].on)
			fprintf(out, "%s%s", r++ ? ", " : "\nNot run at this n: ",
				variants[i].name);
	if (r)
		fprintf(out, " (not in the type list: `--types` selects them).\n");
	fprintf(out, "\nThroughput ratio libbloom_ns / ours_ns (> 1: faster than libbloom), computed per round, median [min–max]:\n\n");
	fprintf(out, "| type | add | pos test | neg test |\n|---|---:|---:|---:|\n");
	for (i = 1; i < NVARIANTS; i++) {
		const struct result *res = &run->res[i];

		if (!res->on || !res->rounds || !lib->rounds)
			continue;
		fprintf(out, "| %s |", variants[i].name);
		for (ph = 0; ph < PH_N; ph++) {
			fmt_stat(b3, sizeof(b3),
				 ratio_stats(lib, res, ph, ph), res->rounds > 1);
			fprintf(out, " %s× |", b3);
		}
		fprintf(out, "\n");
	}

	report_limits(out, run);

	fprintf(out, "\nSizing:\n\n");
	for (i = 0; i < NVARIANTS; i++)
		if (run->res[i].on)
			fprintf(out, "- %s: %s%s%s\n", variants[i].name,
				run->res[i].plan.rule,
				run->res[i].plan.refused[0] ? " — " : "",
				run->res[i].plan.refused);

	fprintf(out, "\n<details><summary>Every round (ns/op: add / pos test / neg test)</summary>\n\n");
	fprintf(out, "| round | type | add | pos test | neg test |\n|---:|---|---:|---:|---:|\n");
	for (r = 0; r < run->runs; r++)
		for (i = 0; i < NVARIANTS; i++) {
			const struct result *res = &run->res[i];

			if (!res->on || r >= res->rounds)
				continue;
			fprintf(out, "| %u | %s | %.2f | %.2f | %.2f |\n", r + 1,
				variants[i].name, res->ns[r][PH_ADD],
				res->ns[r][PH_POS], res->ns[r][PH_NEG]);
		}
	fprintf(out, "\n</details>\n");
}

static int variant_index(const char *name)
{
	unsigned int i;

	for (i = 0; i < NVARIANTS; i++)
		if (!strcmp(variants[i].name, name))
			return i;
	return -1;
}

/*
 * The targets of issue 3, as per-round ratios ns(a) / ns(b): "b at least
 * goal times a's throughput" (GE), "a within goal times b" (LE), or no
 * target (INFO). Rows whose types did not run are left out.
 */
enum target_kind { T_GE, T_LE, T_INFO };

struct target_spec {
	const char *a, *b;
	enum phase ph;
	enum target_kind kind;
	double goal;
	const char *what;
};

static const struct target_spec targets[] = {
	{ "libbloom", "blocked", PH_POS, T_GE, 3,
	  "blocked pos test ≥ 3× libbloom's throughput" },
	{ "libbloom", "blocked", PH_NEG, T_GE, 3,
	  "blocked neg test ≥ 3× libbloom's throughput" },
	{ "libbloom", "bloom", PH_POS, T_GE, 1.5,
	  "bloom pos test ≥ 1.5× libbloom's throughput" },
	{ "libbloom", "bloom", PH_NEG, T_GE, 1.5,
	  "bloom neg test ≥ 1.5× libbloom's throughput" },
	{ "libbloom", "blocked-batch", PH_POS, T_GE, 3,
	  "blocked pos test, batched as the module runs it, ≥ 3× libbloom's" },
	{ "libbloom", "blocked-batch", PH_NEG, T_GE, 3,
	  "blocked neg test, batched as the module runs it, ≥ 3× libbloom's" },
	{ "libbloom", "bloom-batch", PH_POS, T_GE, 1.5,
	  "bloom pos test, batched as the module runs it, ≥ 1.5× libbloom's" },
	{ "libbloom", "bloom-batch", PH_NEG, T_GE, 1.5,
	  "bloom neg test, batched as the module runs it, ≥ 1.5× libbloom's" },
	{ "counting4-batch", "bloom-batch", PH_ADD, T_LE, 2,
	  "counting4 add ns / bloom add ns ≤ 2, batched" },
	{ "libbloom", "bloom", PH_ADD, T_INFO, 0,
	  "bloom add throughput / libbloom's (no target)" },
	{ "counting4", "bloom", PH_ADD, T_LE, 2,
	  "counting4 add ns / bloom add ns ≤ 2" },
	{ "counting4-cons", "bloom", PH_ADD, T_LE, 2,
	  "counting4-cons add ns / bloom add ns ≤ 2" },
	{ "libbloom", "bloom", PH_ADD, T_GE, 1,
	  "issue 26: bloom add, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "bloom", PH_POS, T_GE, 1,
	  "issue 26: bloom pos test, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "bloom", PH_NEG, T_GE, 1,
	  "issue 26: bloom neg test, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "blocked", PH_ADD, T_GE, 1,
	  "issue 26: blocked add, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "blocked", PH_POS, T_GE, 1,
	  "issue 26: blocked pos test, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "blocked", PH_NEG, T_GE, 1,
	  "issue 26: blocked neg test, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "bloom-sip13", PH_ADD, T_GE, 1,
	  "issue 26: bloom add, SipHash-1-3, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "bloom-sip13", PH_POS, T_GE, 1,
	  "issue 26: bloom pos test, SipHash-1-3, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "bloom-sip13", PH_NEG, T_GE, 1,
	  "issue 26: bloom neg test, SipHash-1-3, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "blocked-sip13", PH_ADD, T_GE, 1,
	  "issue 26: blocked add, SipHash-1-3, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "blocked-sip13", PH_POS, T_GE, 1,
	  "issue 26: blocked pos test, SipHash-1-3, one key at a time, ≥ 1× libbloom's" },
	{ "libbloom", "blocked-sip13", PH_NEG, T_GE, 1,
	  "issue 26: blocked neg test, SipHash-1-3, one key at a time, ≥ 1× libbloom's" },
};

static void report_targets(FILE *out, const struct run *runs,
			   unsigned int nruns)
{
	unsigned int i, t;
	char nb[32];

	fprintf(out, "\n## Targets (issue 3: at 100M keys, 1M for information; issue 26: at 1M, 10M and 100M)\n\n");
	fprintf(out, "Per-round ratios as above, median [min–max]; a target is met when the median is.\n\n");
	for (i = 0; i < nruns; i++) {
		const struct run *run = &runs[i];

		human_n(run->n, nb, sizeof(nb));
		for (t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
			const struct target_spec *ts = &targets[t];
			int a = variant_index(ts->a), b = variant_index(ts->b);
			struct stat3 st;
			bool met;

			if (a < 0 || b < 0 || !run->res[a].rounds ||
			    !run->res[b].rounds)
				continue;
			st = ratio_stats(&run->res[a], &run->res[b], ts->ph,
					 ts->ph);
			fprintf(out, "- n = %s, %s: %.2f× [%.2f–%.2f]", nb,
				ts->what, st.med, st.min, st.max);
			met = ts->kind == T_GE ? st.med >= ts->goal :
			      st.med <= ts->goal;
			if (ts->kind == T_INFO)
				fprintf(out, "\n");
			else
				fprintf(out, " — **%s**\n", met ? "met" : "NOT met");
		}
	}
}

/* ---- driver ------------------------------------------------------------ */

static void run_n(struct run *run, u64 n, u64 test_max, unsigned int runs,
		  bool verbose)
{
	struct keyset ks;
	unsigned int i, r, j;
	double t0 = now_ns();
	char nb[32];

	memset(run, 0, sizeof(*run));
	run->n = n;
	run->runs = runs;
	human_n(n, nb, sizeof(nb));
	if (verbose)
		fprintf(stderr, "n = %s: building keys\n", nb);
	for (i = 0; i < NVARIANTS; i++) {
		run->res[i].on = selected[i];
		if (selected[i])
			plan_variant(&variants[i], n, &run->res[i].plan);
	}
	keys_build(&ks, n, test_max, selected[variant_index("multi3")]);
	run->s = ks.s;
	run->lim.bytes = round_up(run->res[V_LIBBLOOM].plan.bytes, 64);
	for (r = 0; r < runs; r++) {
		/* The limits take the slot after the last type. */
		for (j = 0; j <= NVARIANTS; j++) {
			/* Rotated order: round r starts r types further on. */
			unsigned int v = (j + r) % (NVARIANTS + 1);
			struct result *res = &run->res[v];

			if (v == NVARIANTS) {
				if (run->lim.failed[0])
					continue;
				run_limits(&ks, &run->lim);
				if (verbose && !run->lim.failed[0])
					fprintf(stderr, "n = %s round %u/%u %-15s chase %7.2f  hash %7.2f  hash->load %7.2f ns/key\n",
						nb, r + 1, runs, "limits",
						run->lim.ns[r][L_CHASE],
						run->lim.ns[r][L_HASH],
						run->lim.ns[r][L_HASH_LOAD]);
				continue;
			}
			if (!res->on || res->failed[0])
				continue;
			run_variant(&variants[v], &ks, res);
			if (!verbose)
				continue;
			if (res->failed[0])
				fprintf(stderr, "n = %s round %u/%u %-15s failed: %s\n",
					nb, r + 1, runs, variants[v].name,
					res->failed);
			else
				fprintf(stderr, "n = %s round %u/%u %-15s add %7.2f  pos %7.2f  neg %7.2f ns/op\n",
					nb, r + 1, runs, variants[v].name,
					res->ns[r][PH_ADD], res->ns[r][PH_POS],
					res->ns[r][PH_NEG]);
		}
	}
	keys_free(&ks);
	run->seconds = (now_ns() - t0) / 1e9;
}

static int quick(void)
{
	static struct run run;
	unsigned int i, t = 0, failed = 0;
	u64 n = 100000;

	for (i = 0; i < NVARIANTS; i++)
		selected[i] = true;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", 3 * NVARIANTS + 1);
	printf("# engine_bench --quick: n = %llu 8-byte keys, 1 round, every filter sized for 1%% FPR\n",
	       (unsigned long long)n);
	run_n(&run, n, n, 1, false);
	for (i = 0; i < NVARIANTS; i++) {
		const struct result *res = &run.res[i];
		const struct plan *pl = &res->plan;
		const char *name = variants[i].name;
		double expect = pl->model * n, lo = expect / 3;
		double hi = 3 * expect + 10;	/* slack for tiny models */
		bool ran = res->rounds == 1;

		if (ran)
			printf("ok %u - %s: ran (add %.1f, pos test %.1f, neg test %.1f ns/op; m %llu, k %u)\n",
			       ++t, name, res->ns[0][PH_ADD], res->ns[0][PH_POS],
			       res->ns[0][PH_NEG], (unsigned long long)pl->m,
			       pl->k);
		else
			printf("not ok %u - %s: ran (%s)\n", ++t, name,
			       res->failed);
		failed += !ran;

		if (expect < 30)
			lo = 0;
		if (ran && res->fp >= lo && res->fp <= hi) {
			printf("ok %u - %s: FPR %.3f%% within a factor of 3 of its model %.3f%%\n",
			       ++t, name, 100.0 * res->fp / n, 100 * pl->model);
		} else {
			printf("not ok %u - %s: FPR %.3f%% within a factor of 3 of its model %.3f%%\n",
			       ++t, name, ran ? 100.0 * res->fp / n : NAN,
			       100 * pl->model);
			failed++;
		}

		if (ran && variants[i].forgets)
			printf("ok %u - %s: no false negatives # SKIP forgets old keys by design (%.2f%% of the keys added)\n",
			       ++t, name, 100.0 * res->fn / n);
		else if (ran && !res->fn)
			printf("ok %u - %s: no false negatives\n", ++t, name);
		else {
			printf("not ok %u - %s: no false negatives (%llu of %llu)\n",
			       ++t, name, (unsigned long long)res->fn,
			       (unsigned long long)n);
			failed++;
		}
	}
	if (run.lim.rounds == 1) {
		printf("ok %u - limits: ran (chase %.1f, hash %.1f, hash -> load %.1f ns/key in %llu bytes)\n",
		       ++t, run.lim.ns[0][L_CHASE], run.lim.ns[0][L_HASH],
		       run.lim.ns[0][L_HASH_LOAD],
		       (unsigned long long)run.lim.bytes);
		if (run.lim.pkt_missing) {
			printf("not ok %u - packets queued 16 at a time: every digest added (%llu missing)\n",
			       ++t, (unsigned long long)run.lim.pkt_missing);
			failed++;
		} else {
			printf("ok %u - packets queued 16 at a time: every digest added (queued %.1f, one at a time %.1f ns/packet)\n",
			       ++t, run.lim.ns[0][L_PKT_QUEUED],
			       run.lim.ns[0][L_PKT_ONE]);
		}
	} else {
		printf("not ok %u - limits: ran (%s)\n", ++t, run.lim.failed);
		failed++;
	}
	return failed ? 1 : 0;
}

static void usage(FILE *fp)
{
	unsigned int i;

	fprintf(fp,
		"usage: engine_bench [--n N[,N...]] [--runs R] [--test-keys S] [--pages 2m|4k]\n"
		"                    [--types T[,T...]] [--out FILE]\n"
		"       engine_bench --quick\n"
		"  --n      key counts (default 1000000,10000000,100000000)\n"
		"  --runs   rounds per n, 1..%d (default 5 for n <= 10M, else 3)\n"
		"  --test-keys S  keys per test loop when n is larger (default %d)\n"
		"  --pages  2m (default: filter memory collapsed onto 2 MiB pages, as\n"
		"           the module's kvmalloc maps it) or 4k (left on 4 KiB pages)\n"
		"  --types  subset of:", RUNS_MAX, TEST_MAX);
	for (i = 0; i < NVARIANTS; i++)
		fprintf(fp, " %s", variants[i].name);
	fprintf(fp, " (libbloom always runs;\n"
		"           default: all, multi3 only for n <= %d)\n", MULTI_MAX_N);
	fprintf(fp, ""
		"  --out    write the markdown report there (default stdout)\n"
		"  --quick  n = 100000, 1 round, TAP on stdout (make check)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "n", required_argument, NULL, 'n' },
		{ "runs", required_argument, NULL, 'r' },
		{ "types", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "test-keys", required_argument, NULL, 's' },
		{ "pages", required_argument, NULL, 'p' },
		{ "quick", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct run runs[NS_MAX];
	u64 ns[NS_MAX] = { 1000000, 10000000, 100000000 };
	unsigned int nns = 3, nruns = 0, i;
	u64 test_max = TEST_MAX;
	const char *outpath = NULL;
	char cmd[1024] = "", cpu[256], la0[128], la1[128], date[64];
	bool types_given = false;
	struct utsname un;
	time_t now;
	FILE *out;
	int c;

	/*
	 * Every large block its own mapping, returned on free: no filter
	 * inherits another's pages (glibc would otherwise raise the mmap
	 * threshold after the first free and serve later filters from the
	 * heap).
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	for (i = 0; i < (unsigned int)argc; i++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "%s%s",
			 i ? " " : "", argv[i]);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *tok, *save, *end;

		switch (c) {
		case 'n':
			nns = 0;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (nns == NS_MAX)
					die("at most %d values of n", NS_MAX);
				ns[nns] = strtoull(tok, &end, 10);
				if (*end || ns[nns] < 1000 || ns[nns] > 500000000)
					die("n must be 1000..500000000: '%s'", tok);
				nns++;
			}
			break;
		case 'r':
			nruns = strtoul(optarg, &end, 10);
			if (*end || nruns < 1 || nruns > RUNS_MAX)
				die("runs must be 1..%d: '%s'", RUNS_MAX, optarg);
			break;
		case 't':
			types_given = true;
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				int v = variant_index(tok);

				if (v < 0)
					die("unknown type '%s' (--help lists them)", tok);
				selected[v] = true;
			}
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'p':
			if (strcmp(optarg, "2m") && strcmp(optarg, "4k"))
				die("pages must be 2m or 4k: '%s'", optarg);
			huge_pages = !strcmp(optarg, "2m");
			break;
		case 's':
			test_max = strtoull(optarg, &end, 10);
			if (*end || test_max < 1000)
				die("test-keys must be at least 1000: '%s'", optarg);
			break;
		case 'q':
			return quick();
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	selected[V_LIBBLOOM] = true;

	cpu_model(cpu, sizeof(cpu));
	loadavg(la0, sizeof(la0));
	now = time(NULL);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	for (i = 0; i < nns; i++) {
		unsigned int v;

		/* By default every type; multi3 only up to MULTI_MAX_N. */
		for (v = 0; !types_given && v < NVARIANTS; v++)
			selected[v] = variants[v].kind != VK_MULTI ||
				      ns[i] <= MULTI_MAX_N;
		run_n(&runs[i], ns[i], test_max,
		      nruns ? nruns : ns[i] <= 10000000 ? 5 : 3, true);
	}
	loadavg(la1, sizeof(la1));

	out = outpath ? fopen(outpath, "w") : stdout;
	if (!out)
		die("cannot write %s: %s", outpath, strerror(errno));
	uname(&un);
	fprintf(out, "# kbloom filter engine vs libbloom (host microbenchmark)\n\n");
	fprintf(out, "- Command: `%s` (run from `bench/`; `make bench` at the top level)\n", cmd);
	fprintf(out, "- Date: %s\n", date);
	fprintf(out, "- CPU: %s (/proc/cpuinfo); kernel %s %s\n", cpu,
		un.release, un.machine);
	fprintf(out, "- Load average before / after: %s / %s\n", la0, la1);
	fprintf(out, "- Engine: kmod/engine/ sources built with gcc %s, `%s`; libbloom %s (Debian libbloom-dev, its own build)\n",
		__VERSION__, BENCH_CFLAGS, bloom_version());
	fprintf(out, "- Pages: %s\n", huge_pages ?
		"`--pages 2m`: each filter's memory (ours and libbloom's), once allocated and zeroed, is collapsed onto 2 MiB pages (MADV_COLLAPSE), as the module's kvmalloc() maps allocations of 2 MiB and more on x86-64 (Linux 6.1, VM_ALLOW_HUGE_VMAP); the 2M pages column says how much of it got there" :
		"`--pages 4k`: filter memory left on 4 KiB pages");
	fprintf(out, "- Keys: 8 bytes, distinct: present i = fmix64(2i ^ seed), absent i = fmix64(2i+1 ^ seed); multi: one such sequence per dimension\n");
	fprintf(out, "- Method: each round runs every type once (rotated order), one filter in memory at a time; per type three loops timed whole with CLOCK_MONOTONIC: add all n present keys, test s present keys (pos), test s absent keys (neg), s = min(n, %llu). Our types go through kb_filter_add()/kb_filter_test() (the filter's hash of the key: SipHash-2-4, SipHash-1-3 for the -sip13 rows; then the type's probes); TYPE-batch rows the way netlink ADD/TEST run them: %u keys hashed with kb_hash_key(), then one kb_filter_add_many()/kb_filter_test_many() call (each key's cells prefetched some keys ahead); multi through kb_filter_add_tuple()/kb_filter_test_tuple() with all %u dimensions. FPR = positives among the absent keys; false neg. = negatives among the present keys tested.\n",
		(unsigned long long)test_max, BATCH, MULTI_DIMS);
	for (i = 0; i < nns; i++)
		report_md(out, &runs[i]);
	report_targets(out, runs, nns);
	fprintf(out, "\n(checksum %llu)\n", (unsigned long long)sink);
	if (outpath) {
		if (fclose(out))
			die("writing %s: %s", outpath, strerror(errno));
		fprintf(stderr, "wrote %s\n", outpath);
	}
	return 0;
}
