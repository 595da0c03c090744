// SPDX-License-Identifier: GPL-2.0
/*
 * Lookups without a system call (kmod/mapping.c; uapi/kbloom.h,
 * "/dev/kbloom"): a filter's tables mapped read-only, a header that names
 * the retained windows and counts changes, and what happens to a reader
 * when the filter rotates, is cleared or destroyed under it.
 *
 *   this process --netlink: CREATE, ADD, TEST, CLEAR, DESTROY--> filter "m"
 *        |                                                         |
 *        +--open /dev/kbloom, MAP "m", mmap------> header | table 0 | ...
 *
 * Positions are computed here from the uapi's probe rules (SipHash-2-4 of
 * the key under the header's hash key, enhanced double hashing), not with
 * the engine, so the mapping is held to the ABI.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "vm_harness.h"
#include "nlraw.h"
#include "userns.h"
#include "packet_path.h"
#include "engine/hash.h"

#define DEV "/dev/" KBLOOM_DEV_NAME
#define BITS (1ULL << 20)
#define K 7

static const uint8_t hkey[KBLOOM_HASH_KEY_LEN] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

/* A mapping of one filter. */
struct map {
	int fd;
	size_t size;
	const struct kbloom_map_header *h;
};

FIXTURE(mapping) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_SETUP(mapping)
{
	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
}

FIXTURE_TEARDOWN(mapping)
{
	nlr_destroy_all(&self->s, &self->m);
	close(self->s.fd);
}

/* A filter of @type with the fixed hash key; 0 or the error. */
/* The hash function make() gives filters (KBLOOM_A_HASH_FN when not 0). */
static uint32_t make_hash_fn;

static int make(struct nlr *s, struct nlr_msg *m, const char *name,
		uint32_t type, uint64_t bits, uint32_t windows)
{
	create_msg(s, m, name, type, bits, K);
	nlr_put(m, KBLOOM_A_HASH_KEY, hkey, sizeof(hkey));
	if (make_hash_fn)
		nlr_put_u32(m, KBLOOM_A_HASH_FN, make_hash_fn);
	if (type == KBLOOM_TYPE_COUNTING)
		nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 4);
	if (windows) {
		nlr_put_u32(m, KBLOOM_A_WINDOWS, windows);
		nlr_put_u64(m, KBLOOM_A_INTERVAL, 200);
	}
	return nlr_send(s, m);
}

/* MAP then mmap; 0 or -errno of the step that failed. */
static int map_open(struct map *mp, const char *name)
{
	struct kbloom_map_req req = { 0 };
	void *p;

	mp->h = NULL;
	mp->fd = open(DEV, O_RDONLY | O_CLOEXEC);
	if (mp->fd < 0)
		return -errno;
	strncpy(req.name, name, sizeof(req.name) - 1);
	if (ioctl(mp->fd, KBLOOM_IOC_MAP, &req))
		return -errno;
	p = mmap(NULL, req.size, PROT_READ, MAP_SHARED, mp->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	mp->size = req.size;
	mp->h = p;
	return 0;
}

static void map_close(struct map *mp)
{
	if (mp->h)
		munmap((void *)mp->h, mp->size);
	if (mp->fd >= 0)
		close(mp->fd);
}

static const uint8_t *table(const struct map *mp, uint32_t t)
{
	return (const uint8_t *)mp->h + mp->h->cells_off +
	       t * mp->h->table_stride;
}

/* The uapi's bloom probe rules over one table: all k bits set. */
static bool bloom_has(const struct map *mp, uint32_t t, const char *key)
{
	const uint64_t *w = (const uint64_t *)table(mp, t);
	siphash_key_t sk;
	uint64_t h1, m = mp->h->bits, x, y;
	uint32_t i;

	memcpy(&sk.key[0], mp->h->hash_key, 8);
	memcpy(&sk.key[1], mp->h->hash_key + 8, 8);
	if (mp->h->hash_fn == KBLOOM_HASH_FN_SIPHASH13)
		h1 = kb_siphash13(key, strlen(key), &sk);
	else
		h1 = siphash(key, strlen(key), &sk);
	x = (unsigned __int128)h1 * m >> 64;
	y = (unsigned __int128)kbloom_mix64(h1) * m >> 64;
	for (i = 0; i < mp->h->hashes; i++) {
		if (!(w[x / 64] >> (x % 64) & 1))
			return false;
		x = (x + y) % m;
		y = (y + i + 1) % m;
	}
	return true;
}

/* The uapi's probe rules over the retained windows (TEST's answer). */
static bool mapped_has(const struct map *mp, const char *key)
{
	uint32_t seq, w;
	bool found;

	do {
		while ((seq = __atomic_load_n(&mp->h->seq, __ATOMIC_ACQUIRE)) & 1)
			sched_yield();
		found = false;
		for (w = 0; w < mp->h->nwindows; w++)
			found |= bloom_has(mp, mp->h->window[w].table, key);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&mp->h->seq, __ATOMIC_RELAXED) != seq);
	return found;
}

/* TEST of "key-<i>" for one key over netlink: 1 present, 0 absent. */
static int nl_has(struct nlr *s, struct nlr_msg *m, const char *name, int i)
{
	struct nlattr *a;

	if (keys_cmd(s, m, KBLOOM_CMD_TEST, name, i, 1))
		return -1;
	a = nlr_reply_attr(s, KBLOOM_A_RESULT);
	return a ? *((uint8_t *)a + NLA_HDRLEN) & 1 : -1;
}

static const char *key_of(char *buf, int i)
{
	sprintf(buf, "key-%d", i);
	return buf;
}

TEST_F(mapping, header_describes_the_filter)
{
	struct map mp;

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, map_open(&mp, "m"));
	EXPECT_EQ(KBLOOM_MAP_MAGIC, mp.h->magic);
	EXPECT_EQ(KBLOOM_MAP_VERSION, mp.h->version);
	EXPECT_EQ(0, mp.h->seq & 1);
	EXPECT_EQ(0, mp.h->flags);
	EXPECT_EQ(KBLOOM_TYPE_BLOOM, mp.h->type);
	EXPECT_EQ(K, mp.h->hashes);
	EXPECT_EQ(BITS, mp.h->bits);
	EXPECT_EQ(1, mp.h->counter_bits);
	EXPECT_EQ(KBLOOM_HASH_FN_SIPHASH24, mp.h->hash_fn);
	EXPECT_EQ(0, mp.h->reserved);
	EXPECT_EQ(0, memcmp(hkey, mp.h->hash_key, sizeof(hkey)));
	EXPECT_EQ(BITS / 8, mp.h->cell_bytes);
	EXPECT_EQ(0, mp.h->cells_off % 4096);
	EXPECT_EQ(BITS / 8, mp.h->table_stride);
	EXPECT_EQ(1, mp.h->ntables);
	EXPECT_EQ(1, mp.h->windows_max);
	EXPECT_EQ(0, mp.h->interval_ms);
	EXPECT_EQ(1, mp.h->nwindows);
	EXPECT_EQ(0, mp.h->window[0].table);
	EXPECT_EQ(1, mp.h->window[0].id);
	EXPECT_EQ(mp.h->cells_off + mp.h->table_stride, mp.size);
	map_close(&mp);
}

/* 2000 keys added, 2000 not: the mapping answers as TEST, key by key. */
static void lookups_equal(struct __test_metadata *_metadata,
			  FIXTURE_DATA(mapping) *self, uint32_t hash_fn)
{
	int i, nl, present = 0;
	struct map mp;
	char key[32];

	make_hash_fn = hash_fn;
	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM,
			  1 << 15, 0));
	ASSERT_EQ(0, map_open(&mp, "m"));
	EXPECT_EQ(hash_fn, mp.h->hash_fn);
	/* Added after the mmap: the mapping is the filter, not a copy. */
	for (i = 0; i < 2000; i += 100)
		ASSERT_EQ(0, keys_cmd(&self->s, &self->m, KBLOOM_CMD_ADD, "m",
				      i, 100));
	for (i = 0; i < 4000; i++) {
		nl = nl_has(&self->s, &self->m, "m", i);
		ASSERT_LE(0, nl);
		ASSERT_EQ(nl, mapped_has(&mp, key_of(key, i))) TH_LOG("key-%d", i);
		if (i < 2000)
			ASSERT_EQ(1, nl);
		present += nl;
	}
	/* 2000 keys in 32768 bits, k 7: some absent keys test present. */
	EXPECT_LT(2000, present);
	map_close(&mp);
}

TEST_F(mapping, lookups_equal_test)
{
	lookups_equal(_metadata, self, KBLOOM_HASH_FN_SIPHASH24);
}

/* A filter of SipHash-1-3: the header says so, and lookups follow it. */
TEST_F(mapping, lookups_equal_test_siphash13)
{
	lookups_equal(_metadata, self, KBLOOM_HASH_FN_SIPHASH13);
}

/*
 * A time-paged filter, 3 windows of 200 ms: each rotation moves seq on by
 * 2 and the header's windows with it; a key is in its window's table and
 * leaves the header with that window.
 */
TEST_F(mapping, windows_follow_rotation)
{
	uint32_t seq, t0;
	int64_t id;
	struct map mp;
	char key[32];
	int i;

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 3));
	ASSERT_EQ(0, map_open(&mp, "m"));
	EXPECT_EQ(4, mp.h->ntables);
	EXPECT_EQ(3, mp.h->windows_max);
	EXPECT_EQ(200, mp.h->interval_ms);
	id = newest_window(&self->s, &self->m, "m");
	ASSERT_LT(0, id);
	ASSERT_EQ(0, keys_cmd(&self->s, &self->m, KBLOOM_CMD_ADD, "m", 0, 1));
	/* The key went into the window open now, unless it just rotated. */
	seq = mp.h->seq;
	t0 = mp.h->window[0].table;
	if (mp.h->window[0].id == (uint64_t)id && seq == mp.h->seq)
		EXPECT_TRUE(bloom_has(&mp, t0, key_of(key, 0)));
	EXPECT_TRUE(mapped_has(&mp, key_of(key, 0)));
	ASSERT_LE(id + 1, wait_window(&self->s, &self->m, "m", id + 1));
	EXPECT_LE(seq + 2, mp.h->seq);
	EXPECT_EQ(0, mp.h->seq & 1);
	EXPECT_LE(id + 1, mp.h->window[0].id);
	EXPECT_EQ(0, mp.h->window[0].end_ns);
	EXPECT_NE(0, mp.h->window[1].end_ns);
	EXPECT_TRUE(mapped_has(&mp, key_of(key, 0)));
	/* Three rotations on, its window is no longer retained. */
	ASSERT_LE(id + 3, wait_window(&self->s, &self->m, "m", id + 3));
	EXPECT_EQ(3, mp.h->nwindows);
	for (i = 0; i < 3; i++) {
		EXPECT_LT(mp.h->window[i].table, 4);
		EXPECT_LT((uint64_t)id, mp.h->window[i].id);
	}
	EXPECT_FALSE(mapped_has(&mp, key_of(key, 0)));
	EXPECT_EQ(0, nl_has(&self->s, &self->m, "m", 0));
	map_close(&mp);
}

TEST_F(mapping, clear_moves_seq_and_empties_the_cells)
{
	uint32_t seq;
	struct map mp;
	char key[32];

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, map_open(&mp, "m"));
	ASSERT_EQ(0, keys_cmd(&self->s, &self->m, KBLOOM_CMD_ADD, "m", 0, 10));
	EXPECT_TRUE(mapped_has(&mp, key_of(key, 3)));
	seq = mp.h->seq;
	ASSERT_EQ(0, name_cmd(&self->s, &self->m, KBLOOM_CMD_CLEAR, "m"));
	EXPECT_EQ(seq + 2, mp.h->seq);
	EXPECT_FALSE(mapped_has(&mp, key_of(key, 3)));
	map_close(&mp);
}

/*
 * DESTROY under a reader: the header says so, the cells stay readable as
 * they were, and neither this file nor a new one maps the name again
 * (the namesake made since is another filter).
 */
TEST_F(mapping, destroy_under_a_reader)
{
	struct kbloom_map_req req = { .name = "m" };
	struct map mp, again;
	uint32_t seq;
	char key[32];
	void *p;

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, keys_cmd(&self->s, &self->m, KBLOOM_CMD_ADD, "m", 0, 10));
	ASSERT_EQ(0, map_open(&mp, "m"));
	seq = mp.h->seq;
	ASSERT_EQ(0, name_cmd(&self->s, &self->m, KBLOOM_CMD_DESTROY, "m"));
	EXPECT_EQ(KBLOOM_MAP_F_DESTROYED, mp.h->flags);
	EXPECT_EQ(seq + 2, mp.h->seq);
	EXPECT_TRUE(bloom_has(&mp, 0, key_of(key, 3)));
	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	p = mmap(NULL, mp.size, PROT_READ, MAP_SHARED, mp.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(mp.fd, KBLOOM_IOC_SETTLE));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(mp.fd, KBLOOM_IOC_MAP, &req));
	EXPECT_EQ(EBUSY, errno);
	/* The new "m" maps, empty. */
	ASSERT_EQ(0, map_open(&again, "m"));
	EXPECT_EQ(0, again.h->flags);
	EXPECT_FALSE(bloom_has(&again, 0, key_of(key, 3)));
	map_close(&again);
	map_close(&mp);
}

TEST_F(mapping, refusals)
{
	struct kbloom_map_req req = { 0 };
	struct map mp;
	void *p;
	int fd;

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, make(&self->s, &self->m, "small", KBLOOM_TYPE_BLOOM,
			  64, 0));
	create_msg(&self->s, &self->m, "grows", KBLOOM_TYPE_SCALABLE, 9600, K);
	nlr_put_u64(&self->m, KBLOOM_A_CAPACITY, 1000);
	nlr_put_u32(&self->m, KBLOOM_A_GROWTH, 2);
	nlr_put_u32(&self->m, KBLOOM_A_TIGHTEN, 900000);
	ASSERT_EQ(0, nlr_send(&self->s, &self->m));

	EXPECT_EQ(-ENOENT, map_open(&mp, "nosuch"));
	map_close(&mp);
	EXPECT_EQ(-EOPNOTSUPP, map_open(&mp, "grows"));
	map_close(&mp);
	/* Smaller than a page: slab memory, shared with other objects. */
	EXPECT_EQ(-EOPNOTSUPP, map_open(&mp, "small"));
	map_close(&mp);

	fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	/* Not bound yet. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, KBLOOM_IOC_SETTLE));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, ioctl(fd, _IO(KBLOOM_IOC_MAGIC, 99)));
	EXPECT_EQ(ENOTTY, errno);
	/* A name without its NUL, and the empty name. */
	memset(req.name, 'a', sizeof(req.name));
	EXPECT_EQ(-1, ioctl(fd, KBLOOM_IOC_MAP, &req));
	EXPECT_EQ(EINVAL, errno);
	memset(req.name, 0, sizeof(req.name));
	EXPECT_EQ(-1, ioctl(fd, KBLOOM_IOC_MAP, &req));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, KBLOOM_IOC_MAP, NULL));
	EXPECT_EQ(EFAULT, errno);
	strcpy(req.name, "m");
	ASSERT_EQ(0, ioctl(fd, KBLOOM_IOC_MAP, &req));
	EXPECT_EQ(-1, ioctl(fd, KBLOOM_IOC_MAP, &req));
	EXPECT_EQ(EBUSY, errno);
	/* Writable, wrong size, past the start. */
	p = mmap(NULL, req.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, req.size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	/* Executable: the cells are data. */
	p = mmap(NULL, req.size, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, req.size - 4096, PROT_READ,
				   MAP_SHARED, fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, req.size, PROT_READ, MAP_SHARED, fd,
				   4096));
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, req.size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	/* Never made writable nor executable afterwards. */
	EXPECT_EQ(-1, mprotect(p, req.size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(p, req.size, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	munmap(p, req.size);
	close(fd);
}

/* Lookups a reader reports are counted in STATS as TEST's are. */
TEST_F(mapping, count_adds_to_stats)
{
	struct kbloom_map_count c = { .queries = 5, .positives = 3 };
	struct nlattr *tb[KBLOOM_STATS_A_MAX + 1];
	struct map mp;

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, map_open(&mp, "m"));
	ASSERT_EQ(0, ioctl(mp.fd, KBLOOM_IOC_COUNT, &c));
	c.positives = 6;
	EXPECT_EQ(-1, ioctl(mp.fd, KBLOOM_IOC_COUNT, &c));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, get(&self->s, &self->m, "m"));
	nest_attrs(nlr_reply_attr(&self->s, KBLOOM_A_STATS), tb,
		   KBLOOM_STATS_A_MAX);
	EXPECT_EQ(5, attr_u64(tb[KBLOOM_STATS_A_QUERIES]));
	EXPECT_EQ(3, attr_u64(tb[KBLOOM_STATS_A_POSITIVES]));
	map_close(&mp);
}

/* Counts a reader reports saturate: they never wind a counter back. */
TEST_F(mapping, count_saturates)
{
	struct kbloom_map_count big = { UINT64_MAX - 2, UINT64_MAX - 2 };
	struct nlattr *tb[KBLOOM_STATS_A_MAX + 1];
	struct map mp;
	int i;

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, map_open(&mp, "m"));
	/* twice: past U64_MAX, where a plain sum wraps to a small count */
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ioctl(mp.fd, KBLOOM_IOC_COUNT, &big));
	ASSERT_EQ(0, get(&self->s, &self->m, "m"));
	nest_attrs(nlr_reply_attr(&self->s, KBLOOM_A_STATS), tb,
		   KBLOOM_STATS_A_MAX);
	EXPECT_EQ(UINT64_MAX, attr_u64(tb[KBLOOM_STATS_A_QUERIES]));
	EXPECT_EQ(UINT64_MAX, attr_u64(tb[KBLOOM_STATS_A_POSITIVES]));
	map_close(&mp);
}

/* A u64 figure of STATUS (UINT64_MAX when it fails or lacks it). */
static uint64_t status_u64(struct nlr *s, struct nlr_msg *m, uint16_t attr)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_STATUS, 0);
	if (nlr_send(s, m))
		return UINT64_MAX;
	return reply_u64(s, attr);
}

/* STATUS's MEM_NETNS: what this namespace's filters and headers use. */
static uint64_t mem_netns(struct nlr *s, struct nlr_msg *m)
{
	return status_u64(s, m, KBLOOM_A_MEM_NETNS);
}

/*
 * The header is charged once, at the first MAP, to the namespace (not to
 * the filter's MEMORY), and given back with the filter: a page for a
 * filter without windows and up to 124 windows, three for 256.
 */
TEST_F(mapping, header_charged_once)
{
	uint64_t before, memory;
	struct map a, b;

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, get(&self->s, &self->m, "m"));
	memory = reply_u64(&self->s, KBLOOM_A_MEMORY);
	before = mem_netns(&self->s, &self->m);
	ASSERT_EQ(0, map_open(&a, "m"));
	ASSERT_EQ(0, map_open(&b, "m"));
	EXPECT_EQ(4096, a.h->cells_off);
	EXPECT_EQ(before + 4096, mem_netns(&self->s, &self->m));
	ASSERT_EQ(0, get(&self->s, &self->m, "m"));
	EXPECT_EQ(memory, reply_u64(&self->s, KBLOOM_A_MEMORY));
	/* Both mappings read the same pages. */
	EXPECT_EQ(a.h->seq, b.h->seq);
	map_close(&a);
	map_close(&b);
	ASSERT_EQ(0, name_cmd(&self->s, &self->m, KBLOOM_CMD_DESTROY, "m"));
	EXPECT_EQ(before - memory, mem_netns(&self->s, &self->m));

	ASSERT_EQ(0, make(&self->s, &self->m, "w", KBLOOM_TYPE_BLOOM, 32768,
			  KBLOOM_WINDOWS_MAX));
	before = mem_netns(&self->s, &self->m);
	ASSERT_EQ(0, map_open(&a, "w"));
	EXPECT_EQ(3 * 4096, a.h->cells_off);
	EXPECT_EQ(KBLOOM_WINDOWS_MAX + 1, a.h->ntables);
	EXPECT_EQ(a.h->cells_off + 257 * 4096, a.size);
	EXPECT_EQ(before + 3 * 4096, mem_netns(&self->s, &self->m));
	map_close(&a);

	/* One page holds the header and 124 windows' entries, not 125. */
	ASSERT_EQ(0, make(&self->s, &self->m, "w124", KBLOOM_TYPE_BLOOM, 32768,
			  124));
	ASSERT_EQ(0, map_open(&a, "w124"));
	EXPECT_EQ(4096, a.h->cells_off);
	map_close(&a);
	ASSERT_EQ(0, make(&self->s, &self->m, "w125", KBLOOM_TYPE_BLOOM, 32768,
			  125));
	ASSERT_EQ(0, map_open(&a, "w125"));
	EXPECT_EQ(2 * 4096, a.h->cells_off);
	map_close(&a);
}

/* STATUS's MEM_MAPPED_GONE: destroyed filters' bytes mappings hold. */
static uint64_t mem_mapped_gone(struct nlr *s, struct nlr_msg *m)
{
	return status_u64(s, m, KBLOOM_A_MEM_MAPPED_GONE);
}

/*
 * A filter destroyed under a mapping stays charged, its MEMORY and the
 * header, until the last mapping of its pages goes: the file closed does
 * not end it, nor does a partial munmap (the rest is a mapping), nor the
 * mapper's own munmap while a fork's copy lives.
 *
 *   this process: MAP "m", mmap, DESTROY, close(fd), fork --> child
 *                 munmap page 0, munmap the rest        (holds a copy)
 *   child exits --> the charge goes
 */
TEST_F(mapping, destroyed_filter_charged_while_mapped)
{
	uint64_t before, memory, held;
	int go[2], st;
	struct map mp;
	char c;
	pid_t pid;

	before = mem_netns(&self->s, &self->m);
	EXPECT_EQ(0, mem_mapped_gone(&self->s, &self->m));
	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, get(&self->s, &self->m, "m"));
	memory = reply_u64(&self->s, KBLOOM_A_MEMORY);
	ASSERT_EQ(0, map_open(&mp, "m"));
	held = memory + mp.h->cells_off;
	EXPECT_EQ(before + held, mem_netns(&self->s, &self->m));
	ASSERT_EQ(0, name_cmd(&self->s, &self->m, KBLOOM_CMD_DESTROY, "m"));
	EXPECT_EQ(before + held, mem_netns(&self->s, &self->m));
	EXPECT_EQ(held, mem_mapped_gone(&self->s, &self->m));
	close(mp.fd);
	EXPECT_EQ(held, mem_mapped_gone(&self->s, &self->m));

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(go[0]);
	ASSERT_EQ(0, munmap((void *)mp.h, 4096));
	EXPECT_EQ(held, mem_mapped_gone(&self->s, &self->m));
	ASSERT_EQ(0, munmap((char *)mp.h + 4096, mp.size - 4096));
	EXPECT_EQ(held, mem_mapped_gone(&self->s, &self->m));
	EXPECT_EQ(before + held, mem_netns(&self->s, &self->m));
	close(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, st);
	EXPECT_EQ(0, mem_mapped_gone(&self->s, &self->m));
	EXPECT_EQ(before, mem_netns(&self->s, &self->m));
}

/* A child's MAP of "m"; returns its errno (0: mapped). */
static int child_map(int (*become)(void))
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct map mp;

		if (become())
			_exit(100);
		_exit(-map_open(&mp, "m"));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int become_nobody(void)
{
	return setgid(65534) || setuid(65534);
}

static int become_other_netns(void)
{
	return unshare(CLONE_NEWNET);
}

/* root of a user namespace of its own, uid 65534 outside, in a new netns. */
static int become_userns_root(void)
{
	return userns_as(65534, true, 0);
}

/*
 * Who may map: the family's rule. uid 65534 is refused; root of a user
 * namespace is refused even in its own netns (userns_admin is off); root
 * in another netns does not see "m".
 */
TEST_F(mapping, only_the_familys_callers_in_their_netns)
{
	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	EXPECT_EQ(EPERM, child_map(become_nobody));
	EXPECT_EQ(EPERM, child_map(become_userns_root));
	EXPECT_EQ(ENOENT, child_map(become_other_netns));
}

/* Bits set in table 0 of a mapping. */
static uint64_t bits_set(const struct map *mp)
{
	const uint64_t *w = (const uint64_t *)table(mp, 0);
	uint64_t set = 0, j;

	for (j = 0; j < mp->h->cell_bytes / 8; j++)
		set += __builtin_popcountll(w[j]);
	return set;
}

/*
 * MAP adds what the packet path still queues: 3 packets through a filter
 * attached at OUTPUT (fewer than a queue's 16) are in the mapping at once,
 * before any other request could have added them.
 *
 *   raw socket --UDP 127.0.0.1 -> 127.0.0.1:12345--> [OUTPUT: "m"] --> lo
 *   a UDP socket bound to 12345 takes them: no ICMP error is digested
 */
TEST_F(mapping, map_sees_every_packet_before_it)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(12345) };
	uint8_t pkt[64];
	struct map mp;
	int raw, sink, i;
	uint64_t set;
	size_t len;

	ASSERT_EQ(0, make(&self->s, &self->m, "m", KBLOOM_TYPE_BLOOM, BITS, 0));
	ASSERT_EQ(0, attach(&self->s, &self->m, "m", KBLOOM_HOOK_OUTPUT,
			    KBLOOM_DIGEST_SPIE, "lo"));
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sink = socket(AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, sink);
	ASSERT_EQ(0, bind(sink, (struct sockaddr *)&to, sizeof(to)));
	raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	ASSERT_LE(0, raw);
	for (i = 0; i < 3; i++) {
		len = udp_packet(pkt, 7000 + i, 5000);
		ASSERT_EQ((ssize_t)len, sendto(raw, pkt, len, 0,
					       (struct sockaddr *)&to,
					       sizeof(to)));
	}
	ASSERT_EQ(0, map_open(&mp, "m"));
	set = bits_set(&mp);
	/* 3 digests, k 7: 21 bits, fewer only if two probes met. */
	EXPECT_LE(3 * K - 2, set);
	EXPECT_GE(3 * K, set);
	ASSERT_EQ(0, get(&self->s, &self->m, "m"));
	EXPECT_EQ(3, attach_u64(&self->s, KBLOOM_ATTACH_A_DIGESTED));
	EXPECT_EQ(set, bits_set(&mp));
	map_close(&mp);
	ASSERT_EQ(0, detach(&self->s, &self->m, "m"));
	close(raw);
	close(sink);
}

TEST_HARNESS_MAIN
