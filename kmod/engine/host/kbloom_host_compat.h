/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Host versions of the kernel primitives the filter engine uses
 * (kmod/engine/compat.h includes this outside the kernel).
 */
#ifndef KBLOOM_HOST_COMPAT_H
#define KBLOOM_HOST_COMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define BITS_PER_LONG		64
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define sizeof_field(t, m)	sizeof(((t *)0)->m)
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
/* The kernel's direct-call shortcut (linux/indirect_call_wrapper.h). */
#define INDIRECT_CALL_1(f, f1, ...)					\
	(likely((f) == (f1)) ? (f1)(__VA_ARGS__) : (f)(__VA_ARGS__))
#define INDIRECT_CALL_2(f, f2, f1, ...)					\
	(likely((f) == (f2)) ? (f2)(__VA_ARGS__) :			\
	 INDIRECT_CALL_1(f, f1, __VA_ARGS__))
#define INDIRECT_CALL_3(f, f3, f2, f1, ...)				\
	(likely((f) == (f3)) ? (f3)(__VA_ARGS__) :			\
	 INDIRECT_CALL_2(f, f2, f1, __VA_ARGS__))
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

typedef struct {
	u64 key[2];
} siphash_key_t;

/* SipHash-2-4, 64-bit output: the same function as the kernel's siphash(). */
u64 siphash(const void *data, size_t len, const siphash_key_t *key);

static inline u64 mul_u64_u64_shr(u64 a, u64 b, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * b) >> shift);
}

static inline void set_bit(unsigned long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(nr)], BIT_MASK(nr), __ATOMIC_RELAXED);
}

static inline bool test_bit(unsigned long nr, const volatile unsigned long *addr)
{
	return (__atomic_load_n(&addr[BIT_WORD(nr)], __ATOMIC_RELAXED) >>
		(nr % BITS_PER_LONG)) & 1;
}

static inline unsigned long bitmap_weight(const unsigned long *src,
					  unsigned int nbits)
{
	unsigned long w = 0;
	unsigned int i;

	for (i = 0; i < nbits / BITS_PER_LONG; i++)
		w += __builtin_popcountl(src[i]);
	if (nbits % BITS_PER_LONG)
		w += __builtin_popcountl(src[i] &
					 ((1UL << (nbits % BITS_PER_LONG)) - 1));
	return w;
}

typedef struct {
	long counter;
} atomic_long_t;

static inline void atomic_long_or(long i, atomic_long_t *v)
{
	__atomic_fetch_or(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic_long_and(long i, atomic_long_t *v)
{
	__atomic_fetch_and(&v->counter, i, __ATOMIC_RELAXED);
}

static inline unsigned long hweight_long(unsigned long w)
{
	return __builtin_popcountl(w);
}

/* The lowest set bit of a nonzero word. */
static inline unsigned long __ffs(unsigned long w)
{
	return __builtin_ctzl(w);
}

/*
 * Compare-and-exchange on a 32-bit cell word; returns the value found.
 * Fully ordered, as the kernel's cmpxchg() is.
 */
static inline u32 kb_cmpxchg32(u32 *p, u32 old, u32 new)
{
	__atomic_compare_exchange_n(p, &old, new, false, __ATOMIC_SEQ_CST,
				    __ATOMIC_SEQ_CST);
	return old;
}

#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)

typedef struct {
	long long counter;
} kb_atomic64_t;

static inline long long kb_atomic64_read(const kb_atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void kb_atomic64_set(kb_atomic64_t *v, long long i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline long long kb_atomic64_inc_return(kb_atomic64_t *v)
{
	return __atomic_add_fetch(&v->counter, 1, __ATOMIC_RELAXED);
}

static inline void kb_atomic64_inc(kb_atomic64_t *v)
{
	__atomic_add_fetch(&v->counter, 1, __ATOMIC_RELAXED);
}

/* A sequence lock: a spinning writer lock plus a sequence for readers. */
typedef struct {
	unsigned int seq;
	int lock;
} kb_seqlock_t;

static inline void kb_seqlock_init(kb_seqlock_t *l)
{
	l->seq = 0;
	l->lock = 0;
}

static inline void kb_host_write_lock(kb_seqlock_t *l)
{
	while (__atomic_exchange_n(&l->lock, 1, __ATOMIC_ACQUIRE))
		;
	__atomic_add_fetch(&l->seq, 1, __ATOMIC_SEQ_CST);
}

static inline void kb_host_write_unlock(kb_seqlock_t *l)
{
	__atomic_add_fetch(&l->seq, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&l->lock, 0, __ATOMIC_RELEASE);
}

#define kb_write_seqlock(l, flags)	((void)(flags), kb_host_write_lock(l))
#define kb_write_sequnlock(l, flags)	((void)(flags), kb_host_write_unlock(l))

static inline unsigned int kb_read_seqbegin(const kb_seqlock_t *l)
{
	unsigned int s;

	while ((s = __atomic_load_n(&l->seq, __ATOMIC_ACQUIRE)) & 1)
		;
	return s;
}

static inline int kb_read_seqretry(const kb_seqlock_t *l, unsigned int s)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&l->seq, __ATOMIC_RELAXED) != s;
}

/* A hint to start loading a cache line a batch will need soon. */
static inline void kb_prefetch(const void *p)
{
	__builtin_prefetch(p);
}

static inline void kb_prefetchw(const void *p)
{
	__builtin_prefetch(p, 1);
}

/* A fast PRNG for the stable filter's random decrements (xorshift64*). */
static inline u32 kb_random_u32(void)
{
	static __thread u64 s;
	static u64 nthreads;

	/* A different, still reproducible, sequence per thread. */
	if (!s)
		s = 0x9e3779b97f4a7c15ULL *
		    (2 * __atomic_add_fetch(&nthreads, 1, __ATOMIC_RELAXED) + 1);

	s ^= s >> 12;
	s ^= s << 25;
	s ^= s >> 27;
	return (u32)((s * 0x2545f4914f6cdd1dULL) >> 32);
}

static inline void *kb_zalloc_large(size_t size)
{
	void *p = NULL;

	/* Cache-line aligned, as kvzalloc's page-backed memory is. */
	if (posix_memalign(&p, 64, size ? size : 64))
		return NULL;
	memset(p, 0, size);
	return p;
}

static inline void kb_free_large(void *p)
{
	free(p);
}

static inline void kb_resched(void)
{
}

#endif /* KBLOOM_HOST_COMPAT_H */
