// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The save file (userspace/savefile.c): every header field round-trips,
 * cells of many sizes in chunks of many sizes, compressed or not; real
 * engine filters of every type saved and restored answer every test as
 * before; a golden file checked byte by byte against the offsets documented
 * in savefile.h (byte-order independence); and every damaged file refused:
 * each byte flipped, each truncation, trailing garbage, a wrong cell size
 * (before any cell is delivered), out-of-range header fields, damaged
 * compressed data. Prints the zstd ratios of bloom filters at 10% and 50%
 * fill as TAP diagnostics.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/uapi/kbloom.h"
#include "../../userspace/savefile.h"

/* ---- In-memory files ------------------------------------------------ */

struct sink {
	uint8_t *p;
	size_t len, cap;
	size_t fail_at;		/* fail a write that would pass this; 0 = never */
};

static int sink_write(void *arg, const void *buf, size_t len)
{
	struct sink *s = arg;

	if (s->fail_at && s->len + len > s->fail_at) {
		errno = ENOSPC;
		return -1;
	}
	if (s->len + len > s->cap) {
		s->cap = (s->len + len) * 2 + 64;
		s->p = realloc(s->p, s->cap);
		if (!s->p)
			abort();
	}
	memcpy(s->p + s->len, buf, len);
	s->len += len;
	return 0;
}

struct src {
	const uint8_t *p;
	size_t len, pos;
	size_t step;		/* most bytes per read; 0 = all asked */
	size_t fail_at;		/* EIO once pos reaches this; 0 = never */
};

static ssize_t src_read(void *arg, void *buf, size_t len)
{
	struct src *s = arg;
	size_t n = s->len - s->pos;

	if (s->fail_at && s->pos >= s->fail_at) {
		errno = EIO;
		return -1;
	}
	if (n > len)
		n = len;
	if (s->step && n > s->step)
		n = s->step;
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return n;
}

static struct src src_of(const uint8_t *p, size_t len, size_t step)
{
	struct src s = { .p = p, .len = len, .step = step };

	return s;
}

static char err[512];

/* Whole-file check of @len bytes at @p; 0 or -1 with the reason in err. */
static int verify_mem(const uint8_t *p, size_t len)
{
	struct src s = src_of(p, len, 0);

	err[0] = 0;
	return kb_save_verify(src_read, &s, "t.kbf", NULL, NULL, NULL, err,
			      sizeof(err));
}

/* ---- Headers -------------------------------------------------------- */

static struct kb_save_header bloom_header(uint64_t m, uint32_t k,
					  uint64_t cell_bytes)
{
	struct kb_save_header h;

	memset(&h, 0, sizeof(h));
	h.version = KB_SAVE_VERSION;
	strcpy(h.name, "f1");
	h.shape.type = KBLOOM_TYPE_BLOOM;
	h.shape.m = m;
	h.shape.k = k;
	h.cell_bytes = cell_bytes;
	return h;
}

/* Every field set to something distinct. */
static struct kb_save_header full_header(uint64_t cell_bytes)
{
	struct kb_save_header h;
	int i;

	memset(&h, 0, sizeof(h));
	h.version = KB_SAVE_VERSION;
	strcpy(h.name, "a-filter.name_31chars_long_1234");
	h.shape.type = KBLOOM_TYPE_MULTI;
	h.shape.m = KBLOOM_BITS_MAX;
	h.shape.k = KBLOOM_HASHES_MAX;
	h.shape.cell_bits = 1;
	h.shape.dims = KBLOOM_DIMS_MAX;
	/* 15 bytes each: the longest a dimension name can be. */
	for (i = 0; i < KBLOOM_DIMS_MAX; i++)
		memcpy(h.dim_names[i], "dim0-name_00000", 16);
	for (i = 0; i < KBLOOM_DIMS_MAX; i++)
		h.dim_names[i][3] += i, h.dim_names[i][14] += 7 - i;
	h.digest = KBLOOM_DIGEST_MULTI;
	h.capacity = 0x0102030405060708ULL;
	for (i = 0; i < KBLOOM_HASH_KEY_LEN; i++)
		h.hash_key[i] = 0xf0 ^ i;
	h.inserts = 0x1111111111111111ULL;
	h.queries = 0x2222222222222222ULL;
	h.positives = 0x3333333333333333ULL;
	h.deletes = 0x4444444444444444ULL;
	h.generation = 0xfedcba9876543210ULL;
	h.windows = KBLOOM_WINDOWS_MAX;
	h.interval_ms = KBLOOM_INTERVAL_MAX;
	h.window.id = UINT64_MAX;
	h.window.start_ns = 1700000000123456789ULL;
	h.window.end_ns = 1700000060123456789ULL;
	h.window.packets = 0x8000000000000001ULL;
	h.cell_bytes = cell_bytes;
	return h;
}

#define EXPECT_HEADER_EQ(a, b) do { \
	EXPECT_EQ((a)->version, (b)->version); \
	EXPECT_EQ((a)->flags, (b)->flags); \
	EXPECT_EQ(0, memcmp((a)->name, (b)->name, KBLOOM_NAME_MAX)); \
	EXPECT_EQ((a)->shape.type, (b)->shape.type); \
	EXPECT_EQ((a)->shape.m, (b)->shape.m); \
	EXPECT_EQ((a)->shape.k, (b)->shape.k); \
	EXPECT_EQ((a)->shape.hash_fn, (b)->shape.hash_fn); \
	EXPECT_EQ((a)->shape.cell_bits, (b)->shape.cell_bits); \
	EXPECT_EQ((a)->shape.update, (b)->shape.update); \
	EXPECT_EQ((a)->shape.decrement, (b)->shape.decrement); \
	EXPECT_EQ((a)->shape.subtables, (b)->shape.subtables); \
	EXPECT_EQ((a)->shape.bucket_cells, (b)->shape.bucket_cells); \
	EXPECT_EQ((a)->shape.fp_bits, (b)->shape.fp_bits); \
	EXPECT_EQ((a)->shape.dims, (b)->shape.dims); \
	EXPECT_EQ((a)->digest, (b)->digest); \
	EXPECT_EQ((a)->capacity, (b)->capacity); \
	EXPECT_EQ(0, memcmp((a)->hash_key, (b)->hash_key, \
			    KBLOOM_HASH_KEY_LEN)); \
	EXPECT_EQ((a)->inserts, (b)->inserts); \
	EXPECT_EQ((a)->queries, (b)->queries); \
	EXPECT_EQ((a)->positives, (b)->positives); \
	EXPECT_EQ((a)->deletes, (b)->deletes); \
	EXPECT_EQ((a)->generation, (b)->generation); \
	EXPECT_EQ((a)->windows, (b)->windows); \
	EXPECT_EQ((a)->interval_ms, (b)->interval_ms); \
	EXPECT_EQ((a)->window.id, (b)->window.id); \
	EXPECT_EQ((a)->window.start_ns, (b)->window.start_ns); \
	EXPECT_EQ((a)->window.end_ns, (b)->window.end_ns); \
	EXPECT_EQ((a)->window.packets, (b)->window.packets); \
	EXPECT_EQ(0, memcmp((a)->dim_names, (b)->dim_names, \
			    sizeof((a)->dim_names))); \
	EXPECT_EQ((a)->cell_bytes, (b)->cell_bytes); \
} while (0)

/*
 * Writes a file of header @h and cells @cells (h->cell_bytes of them) into
 * @out, handing the cells over in pieces of @chunk bytes (0: random sizes).
 */
static int write_file(const struct kb_save_header *h, const void *cells,
		      size_t chunk, struct kb_rng *rng, struct sink *out)
{
	struct kb_save_writer *w;
	const uint8_t *p = cells;
	uint64_t done = 0;

	w = kb_save_writer_begin(h, sink_write, out, "t.kbf", err,
				 sizeof(err));
	if (!w)
		return -1;
	while (done < h->cell_bytes) {
		uint64_t n = chunk ? chunk : 1 + kb_rng_below(rng, 100000);

		if (n > h->cell_bytes - done)
			n = h->cell_bytes - done;
		if (kb_save_write_cells(w, p + done, n)) {
			kb_save_writer_free(w);
			return -1;
		}
		done += n;
	}
	if (kb_save_writer_finish(w)) {
		kb_save_writer_free(w);
		return -1;
	}
	kb_save_writer_free(w);
	return 0;
}

/*
 * Reads the file @p/@len (read callback returning at most @step bytes)
 * into *@h and @cells (room for @room bytes), pulling in pieces of @chunk
 * (0: random). 0 or -1.
 */
static int read_file(const uint8_t *p, size_t len, size_t step,
		     size_t chunk, struct kb_rng *rng,
		     struct kb_save_header *h, void *cells, uint64_t room)
{
	struct src s = src_of(p, len, step);
	struct kb_save_reader *r;
	uint8_t *c = cells;
	uint64_t done = 0;
	ssize_t n;

	r = kb_save_reader_open(src_read, &s, "t.kbf", err, sizeof(err));
	if (!r)
		return -1;
	*h = *kb_save_reader_header(r);
	if (kb_save_reader_expect(r, room))
		goto fail;
	do {
		size_t want = chunk ? chunk : 1 + kb_rng_below(rng, 200000);

		n = kb_save_read_cells(r, c + done, want);
		if (n < 0)
			goto fail;
		done += n;
	} while (n);
	if (done != room || kb_save_reader_finish(r))
		goto fail;
	kb_save_reader_free(r);
	return 0;
fail:
	kb_save_reader_free(r);
	return -1;
}

/* ---- CRC and header -------------------------------------------------- */

TEST(crc32c_check_value)
{
	static const char s[] = "123456789";
	uint8_t buf[1000];
	uint32_t whole, parts;
	struct kb_rng rng;
	size_t i;

	EXPECT_EQ(0xe3069283u, kb_save_crc32c(0, s, 9));
	EXPECT_EQ(0u, kb_save_crc32c(0, NULL, 0));
	/* 32 bytes of zeros: the RFC 3720 (iSCSI) test vector. */
	memset(buf, 0, 32);
	EXPECT_EQ(0x8a9136aau, kb_save_crc32c(0, buf, 32));
	memset(buf, 0xff, 32);
	EXPECT_EQ(0x62a8ab43u, kb_save_crc32c(0, buf, 32));
	/* Any split gives the same CRC (the slice-by-8 and byte loops agree). */
	kb_rng_seed(&rng, 1);
	kb_rng_bytes(&rng, buf, sizeof(buf));
	whole = kb_save_crc32c(0, buf, sizeof(buf));
	for (i = 0; i <= 17; i++) {
		parts = kb_save_crc32c(0, buf, i);
		parts = kb_save_crc32c(parts, buf + i, sizeof(buf) - i);
		EXPECT_EQ(whole, parts);
	}
}

TEST(header_encode_decode_every_field)
{
	struct kb_save_header h = full_header(1 << 20), back;
	uint8_t raw[KB_SAVE_HEADER_LEN];

	ASSERT_EQ(0, kb_save_check_header(&h, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	kb_save_encode_header(&h, raw);
	kb_save_decode_header(raw, &back);
	EXPECT_HEADER_EQ(&h, &back);
}

/* Every field through a whole file, compressed and not. */
TEST(file_round_trip_every_field)
{
	struct kb_save_header h = full_header(64), back;
	uint8_t cells[64], got[64];
	struct kb_rng rng;
	int z;

	kb_rng_seed(&rng, 2);
	kb_rng_bytes(&rng, cells, sizeof(cells));
	for (z = 0; z < 2; z++) {
		struct sink out = { 0 };

		h.flags = z ? KB_SAVE_F_ZSTD : 0;
		ASSERT_EQ(0, write_file(&h, cells, 7, &rng, &out)) {
			TH_LOG("%s", err);
		}
		if (!z)
			EXPECT_EQ(KB_SAVE_HEADER_LEN + 64 + KB_SAVE_TRAILER_LEN,
				  out.len);
		ASSERT_EQ(0, read_file(out.p, out.len, 0, 0, &rng, &back, got,
				       sizeof(got))) {
			TH_LOG("%s", err);
		}
		EXPECT_HEADER_EQ(&h, &back);
		EXPECT_EQ(0, memcmp(cells, got, sizeof(cells)));
		free(out.p);
	}
}

/*
 * Cell areas of many sizes, around the reader's 64 KiB chunk and zstd's
 * buffer sizes, written and read in pieces of many sizes, through a read
 * callback that returns short counts.
 */
TEST(cells_many_sizes_and_chunks)
{
	static const uint64_t sizes[] = {
		0, 8, 65528, 65536, 65544, 131072, 131080, 3 * 65536 + 8,
		(1 << 20) + 8,
	};
	static const size_t chunks[] = { 0, 8, 4096, 65536, 65537, 1 << 20 };
	static const size_t steps[] = { 0, 1, 4093, 65536, 100000 };
	struct kb_rng rng;
	uint8_t *cells, *got;
	size_t i, j;
	int z;

	kb_rng_seed(&rng, 3);
	cells = malloc((1 << 20) + 8);
	got = malloc((1 << 20) + 8);
	ASSERT_TRUE(cells && got);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t n = sizes[i];
		size_t half = n / 2;

		/* Half random, half sparse: both compressors' paths. */
		kb_rng_bytes(&rng, cells, half);
		memset(cells + half, 0, n - half);
		for (j = half; j < n; j += 97)
			cells[j] = 1 << (j % 8);
		for (z = 0; z < 2; z++) {
			for (j = 0; j < ARRAY_SIZE(chunks); j++) {
				struct kb_save_header h =
					bloom_header(KBLOOM_BITS_MIN, 3, n), back;
				size_t step = steps[(i + j) % ARRAY_SIZE(steps)];
				struct sink out = { 0 };

				/* One-byte reads of a megabyte are slow. */
				if (step == 1 && n > 65536)
					step = 3;
				h.flags = z ? KB_SAVE_F_ZSTD : 0;
				ASSERT_EQ(0, write_file(&h, cells, chunks[j],
							&rng, &out)) {
					TH_LOG("%s", err);
				}
				memset(got, 0xa5, n);
				ASSERT_EQ(0, read_file(out.p, out.len, step,
						       chunks[(j + 1) %
							      ARRAY_SIZE(chunks)],
						       &rng, &back, got, n)) {
					TH_LOG("size %llu z %d: %s",
					       (unsigned long long)n, z, err);
				}
				EXPECT_EQ(0, memcmp(cells, got, n)) {
					TH_LOG("size %llu z %d chunk %zu",
					       (unsigned long long)n, z,
					       chunks[j]);
				}
				EXPECT_EQ(0, verify_mem(out.p, out.len)) {
					TH_LOG("%s", err);
				}
				free(out.p);
			}
		}
	}
	free(cells);
	free(got);
}

/* ---- Engine filters ------------------------------------------------- */

struct case_shape {
	const char *what;
	struct kb_shape s;
	uint32_t nkeys;
};

static const struct case_shape engine_cases[] = {
	{ "bloom", { .type = KBLOOM_TYPE_BLOOM, .m = 10007, .k = 5 }, 800 },
	{ "bloom-64", { .type = KBLOOM_TYPE_BLOOM, .m = 64, .k = 2 }, 6 },
	{ "partitioned",
	  { .type = KBLOOM_TYPE_PARTITIONED, .m = 5 * 4099, .k = 5 }, 1500 },
	{ "blocked", { .type = KBLOOM_TYPE_BLOCKED, .m = 512 * 300, .k = 7 },
	  9000 },
	{ "counting-4",
	  { .type = KBLOOM_TYPE_COUNTING, .m = 6001, .k = 4, .cell_bits = 4 },
	  700 },
	{ "counting-8-conservative",
	  { .type = KBLOOM_TYPE_COUNTING, .m = 4096, .k = 3, .cell_bits = 8,
	    .update = KBLOOM_UPDATE_CONSERVATIVE }, 900 },
	{ "counting-16",
	  { .type = KBLOOM_TYPE_COUNTING, .m = 70000, .k = 6,
	    .cell_bits = 16 }, 5000 },
	{ "dleft",
	  { .type = KBLOOM_TYPE_DLEFT, .m = 4 * 8 * 512, .k = 1,
	    .subtables = 4, .bucket_cells = 8, .fp_bits = 12 }, 12000 },
	{ "dleft-fp24",
	  { .type = KBLOOM_TYPE_DLEFT, .m = 2 * 3 * 100, .k = 1,
	    .subtables = 2, .bucket_cells = 3, .fp_bits = 24 }, 500 },
	{ "stable",
	  { .type = KBLOOM_TYPE_STABLE, .m = 8192, .k = 3, .cell_bits = 2,
	    .decrement = 10 }, 3000 },
	{ "stable-8",
	  { .type = KBLOOM_TYPE_STABLE, .m = 100000, .k = 4, .cell_bits = 8,
	    .decrement = 3 }, 20000 },
	{ "multi",
	  { .type = KBLOOM_TYPE_MULTI, .m = 3001, .k = 4, .dims = 3 }, 300 },
	/* More than one reader chunk (64 KiB) of cells. */
	{ "bloom-big", { .type = KBLOOM_TYPE_BLOOM, .m = 3000000, .k = 7 },
	  150000 },
};

static const char *dim_names[KBLOOM_DIMS_MAX] = {
	"src", "dst", "dport", "d4", "d5", "d6", "d7", "d8",
};

static struct kb_save_header header_of(const struct kb_filter *f,
				       const struct kb_shape *s,
				       const u8 hkey[16], uint32_t flags)
{
	struct kb_save_header h;
	uint32_t i;

	memset(&h, 0, sizeof(h));
	h.flags = flags;
	h.version = KB_SAVE_VERSION;
	snprintf(h.name, sizeof(h.name), "t%u", s->type);
	h.shape.type = s->type;
	h.shape.m = s->m;
	h.shape.k = s->k;
	h.shape.cell_bits = s->cell_bits;
	h.shape.update = s->update;
	h.shape.decrement = s->decrement;
	h.shape.subtables = s->subtables;
	h.shape.bucket_cells = s->bucket_cells;
	h.shape.fp_bits = s->fp_bits;
	h.shape.dims = s->dims;
	for (i = 0; i < s->dims; i++)
		strcpy(h.dim_names[i], dim_names[i]);
	memcpy(h.hash_key, hkey, 16);
	h.capacity = 1000;
	h.inserts = 42;
	h.generation = 7;
	h.cell_bytes = kb_filter_mem(f);
	return h;
}

static struct kb_shape shape_of(const struct kb_save_header *h)
{
	struct kb_shape s = {
		.type = h->shape.type, .m = h->shape.m, .k = h->shape.k,
		.cell_bits = h->shape.cell_bits, .update = h->shape.update,
		.decrement = h->shape.decrement,
		.subtables = h->shape.subtables,
		.bucket_cells = h->shape.bucket_cells,
		.fp_bits = h->shape.fp_bits, .dims = h->shape.dims,
	};

	return s;
}

static void key_of(u8 key[12], uint64_t seed, uint64_t i)
{
	kb_put_le64(key, seed);
	key[8] = i;
	key[9] = i >> 8;
	key[10] = i >> 16;
	key[11] = i >> 24;
}

static void tuple_of(struct kb_tuple *t, u8 vals[3][12], uint64_t i,
		     uint32_t mask)
{
	int d;

	memset(t, 0, sizeof(*t));
	t->mask = mask;
	for (d = 0; d < 3; d++) {
		key_of(vals[d], 100 + d, i * 7 + d);
		t->val[d] = vals[d];
		t->len[d] = 12;
	}
}

/* Push callback: copies chunks into the filter's memory. */
struct into {
	uint8_t *p;
	uint64_t done, room, calls;
};

static int into_cb(void *arg, const void *chunk, size_t len)
{
	struct into *in = arg;

	in->calls++;
	if (len > in->room - in->done)
		return -2;
	memcpy(in->p + in->done, chunk, len);
	in->done += len;
	return 0;
}

static uint64_t expect_engine(const struct kb_save_header *h, void *arg)
{
	struct kb_shape s = shape_of(h);

	if (kb_filter_check_shape(&s) != KB_SHAPE_OK)
		return UINT64_MAX;
	return kb_filter_mem_for(&s);
}

/*
 * Every type: fill a filter with random keys, save it (from its memory, in
 * chunks), restore it the way bloomctl restore will (verify the whole file,
 * then read the header, make a filter of that shape and key, stream the
 * cells into it, finish), and every answer is the same: test and count of
 * the keys added and of as many absent keys, and multi tuples of every
 * dimension subset.
 */
TEST(engine_filters_round_trip)
{
	struct kb_rng rng;
	size_t c;
	int z;

	kb_rng_seed(&rng, 4);
	for (c = 0; c < ARRAY_SIZE(engine_cases); c++) {
		const struct case_shape *cs = &engine_cases[c];
		struct kb_filter f, g;
		u8 hkey[16], key[12], vals[3][12];
		bool multi = cs->s.type == KBLOOM_TYPE_MULTI;
		uint64_t seed = kb_rng_next(&rng);
		uint32_t i;

		kb_rng_bytes(&rng, hkey, sizeof(hkey));
		ASSERT_EQ(0, kb_filter_init(&f, &cs->s, hkey));
		for (i = 0; i < cs->nkeys; i++) {
			if (multi) {
				struct kb_tuple t;

				tuple_of(&t, vals, seed + i, 7);
				ASSERT_EQ(0, kb_filter_add_tuple(&f, &t));
			} else {
				key_of(key, seed, i);
				kb_filter_add(&f, key, sizeof(key));
			}
		}
		for (z = 0; z < 2; z++) {
			struct kb_save_header h = header_of(&f, &cs->s, hkey,
							    z ? KB_SAVE_F_ZSTD : 0);
			struct kb_save_header vh;
			const struct kb_save_header *rh;
			struct kb_save_reader *r;
			struct sink out = { 0 };
			struct src s;
			struct into in;
			struct kb_shape gs;
			uint32_t diff = 0, present = 0;

			ASSERT_EQ(0, write_file(&h, f.mem, 0, &rng, &out)) {
				TH_LOG("%s: %s", cs->what, err);
			}
			s = src_of(out.p, out.len, 0);
			ASSERT_EQ(0, kb_save_verify(src_read, &s, "t.kbf",
						    expect_engine, NULL, &vh,
						    err, sizeof(err))) {
				TH_LOG("%s: %s", cs->what, err);
			}
			EXPECT_HEADER_EQ(&h, &vh);

			s = src_of(out.p, out.len, 1000 + c);
			r = kb_save_reader_open(src_read, &s, "t.kbf", err,
						sizeof(err));
			ASSERT_NE(NULL, r) {
				TH_LOG("%s", err);
			}
			rh = kb_save_reader_header(r);
			gs = shape_of(rh);
			ASSERT_EQ(0, kb_filter_init(&g, &gs, rh->hash_key));
			ASSERT_EQ(0, kb_save_reader_expect(r, kb_filter_mem(&g)));
			in.p = (uint8_t *)g.mem;
			in.done = 0;
			in.calls = 0;
			in.room = kb_filter_mem(&g);
			ASSERT_EQ(0, kb_save_read_cells_cb(r, into_cb, &in)) {
				TH_LOG("%s", err);
			}
			ASSERT_EQ(0, kb_save_reader_finish(r)) {
				TH_LOG("%s", err);
			}
			kb_save_reader_free(r);
			EXPECT_EQ(in.room, in.done);
			EXPECT_EQ((in.room + 65535) / 65536, in.calls);
			EXPECT_EQ(0, memcmp(f.mem, g.mem, kb_filter_mem(&f)));

			for (i = 0; i < 2 * cs->nkeys; i++) {
				if (multi) {
					struct kb_tuple t;
					uint32_t mask = 1 + i % 7;

					tuple_of(&t, vals,
						 seed + (i < cs->nkeys ? i :
							 1000000 + i), mask);
					diff += kb_filter_test_tuple(&f, &t) !=
						kb_filter_test_tuple(&g, &t);
					present += kb_filter_test_tuple(&g, &t);
					continue;
				}
				/* Keys added, then keys never added. */
				key_of(key, i < cs->nkeys ? seed : seed + 1, i);
				diff += kb_filter_test(&f, key, sizeof(key)) !=
					kb_filter_test(&g, key, sizeof(key));
				diff += kb_filter_count(&f, key, sizeof(key)) !=
					kb_filter_count(&g, key, sizeof(key));
				present += kb_filter_test(&g, key, sizeof(key));
			}
			EXPECT_EQ(0u, diff) {
				TH_LOG("%s z %d", cs->what, z);
			}
			/* Stable filters forget; every other type keeps all. */
			if (cs->s.type != KBLOOM_TYPE_STABLE)
				EXPECT_LE(cs->nkeys, present);
			kb_filter_free(&g);
			free(out.p);
		}
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/* Through a real file and the stdio callbacks, and kb_save_verify_file. */
TEST(stdio_file_round_trip)
{
	struct kb_shape shp = { .type = KBLOOM_TYPE_BLOOM, .m = 100000, .k = 4 };
	char path[] = "/tmp/kbloom-savefile-XXXXXX";
	struct kb_save_header h, back;
	struct kb_save_writer *w;
	struct kb_save_reader *r;
	struct kb_filter f, g;
	u8 hkey[16] = { 1, 2, 3 };
	uint64_t i, n;
	FILE *fp;
	int fd;

	ASSERT_EQ(0, kb_filter_init(&f, &shp, hkey));
	ASSERT_EQ(0, kb_filter_init(&g, &shp, hkey));
	for (i = 0; i < 5000; i++)
		kb_filter_add(&f, &i, sizeof(i));
	h = header_of(&f, &shp, hkey, KB_SAVE_F_ZSTD);
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	fp = fdopen(fd, "w+b");
	ASSERT_NE(NULL, fp);
	w = kb_save_writer_begin(&h, kb_save_stdio_write, fp, path, err,
				 sizeof(err));
	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, kb_save_write_cells(w, f.mem, 1000));
	ASSERT_EQ(0, kb_save_write_cells(w, (u8 *)f.mem + 1000,
					 h.cell_bytes - 1000));
	ASSERT_EQ(0, kb_save_writer_finish(w)) {
		TH_LOG("%s", err);
	}
	kb_save_writer_free(w);
	ASSERT_EQ(0, fflush(fp));

	ASSERT_EQ(0, kb_save_verify_file(path, expect_engine, NULL, &back,
					 err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_HEADER_EQ(&h, &back);
	rewind(fp);
	r = kb_save_reader_open(kb_save_stdio_read, fp, path, err, sizeof(err));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, kb_save_reader_expect(r, kb_filter_mem(&g)));
	n = 0;
	for (;;) {
		ssize_t got = kb_save_read_cells(r, (u8 *)g.mem + n, 3333);

		ASSERT_LE(0, got);
		if (!got)
			break;
		n += got;
	}
	ASSERT_EQ(0, kb_save_reader_finish(r)) {
		TH_LOG("%s", err);
	}
	kb_save_reader_free(r);
	EXPECT_EQ(0, memcmp(f.mem, g.mem, kb_filter_mem(&f)));
	for (i = 0; i < 10000; i++) {
		EXPECT_EQ(kb_filter_test(&f, &i, sizeof(i)),
			  kb_filter_test(&g, &i, sizeof(i)));
	}
	fclose(fp);

	/* A file that is not there, and an empty one. */
	EXPECT_EQ(-1, kb_save_verify_file("/nonexistent/x.kbf", NULL, NULL,
					  NULL, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "No such file")) {
		TH_LOG("%s", err);
	}
	fp = fopen(path, "wb");
	ASSERT_NE(NULL, fp);
	fclose(fp);
	EXPECT_EQ(-1, kb_save_verify_file(path, NULL, NULL, NULL, err,
					  sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "empty file")) {
		TH_LOG("%s", err);
	}
	unlink(path);
	kb_filter_free(&f);
	kb_filter_free(&g);
}

/* ---- The golden file: the documented offsets, byte by byte ---------- */

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * A file built by hand from savefile.h's table: a counting filter (so the
 * parameter fields are not all 0) that is window 5 of a ring, 16 cell
 * bytes.
 */
#define GOLDEN_LEN (344 + 16 + 16)
static void golden(uint8_t g[GOLDEN_LEN])
{
	int i;

	memset(g, 0, GOLDEN_LEN);
	memcpy(g, "KBLOOMF\n", 8);
	le32(g + 8, 1);				/* version */
	le32(g + 12, 0);			/* flags */
	memcpy(g + 16, "golden", 6);		/* name */
	le32(g + 48, KBLOOM_TYPE_COUNTING);	/* type */
	le32(g + 52, 3);			/* k */
	kb_put_le64(g + 56, 0x80);		/* m */
	le32(g + 64, 8);			/* cell_bits */
	le32(g + 68, 1);			/* update */
	le32(g + 92, KBLOOM_DIGEST_FLOW);	/* digest */
	kb_put_le64(g + 96, 0x1122334455667788ULL);	/* capacity */
	for (i = 0; i < 16; i++)
		g[104 + i] = 0xa0 + i;		/* hash key */
	kb_put_le64(g + 120, 1);		/* inserts */
	kb_put_le64(g + 128, 2);		/* queries */
	kb_put_le64(g + 136, 3);		/* positives */
	kb_put_le64(g + 144, 4);		/* deletes */
	kb_put_le64(g + 152, 0x0102030405060708ULL);	/* generation */
	le32(g + 160, 4);			/* windows */
	kb_put_le64(g + 168, 60000);		/* interval_ms */
	kb_put_le64(g + 176, 5);		/* window id */
	kb_put_le64(g + 184, 1000000000ULL);	/* start */
	kb_put_le64(g + 192, 61000000000ULL);	/* end */
	kb_put_le64(g + 200, 77);		/* packets */
	kb_put_le64(g + 336, 16);		/* cell_bytes */
	for (i = 0; i < 16; i++)
		g[344 + i] = i * 17;		/* cells */
	kb_put_le64(g + 360, 16);		/* trailer: cell_bytes */
	le32(g + 368, 0x4ce11d85);		/* trailer: CRC32C */
	memcpy(g + 372, "KEND", 4);		/* trailer: end mark */
}

TEST(golden_file_byte_for_byte)
{
	uint8_t g[GOLDEN_LEN], cells[16], plain[GOLDEN_LEN];
	struct kb_save_header h, back;
	size_t n;
	struct kb_rng rng;
	struct sink out = { 0 };
	uint64_t word;
	int i;

	golden(g);
	EXPECT_EQ(0x4ce11d85u, kb_save_crc32c(0, g, 360)) {
		TH_LOG("CRC of the golden bytes is 0x%08x",
		       kb_save_crc32c(0, g, 360));
	}
	kb_rng_seed(&rng, 5);
	ASSERT_EQ(0, read_file(g, sizeof(g), 0, 0, &rng, &h, cells, 16)) {
		TH_LOG("%s", err);
	}
	EXPECT_EQ(1u, h.version);
	EXPECT_EQ(0u, h.flags);
	EXPECT_STREQ("golden", h.name);
	EXPECT_EQ((uint32_t)KBLOOM_TYPE_COUNTING, h.shape.type);
	EXPECT_EQ(3u, h.shape.k);
	EXPECT_EQ(0x80u, h.shape.m);
	EXPECT_EQ(8u, h.shape.cell_bits);
	EXPECT_EQ(1u, h.shape.update);
	EXPECT_EQ(0u, h.shape.decrement + h.shape.subtables +
		      h.shape.bucket_cells + h.shape.fp_bits + h.shape.dims);
	EXPECT_EQ((uint32_t)KBLOOM_DIGEST_FLOW, h.digest);
	EXPECT_EQ(0x1122334455667788ULL, h.capacity);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(0xa0 + i, h.hash_key[i]);
	}
	EXPECT_EQ(1u, h.inserts);
	EXPECT_EQ(2u, h.queries);
	EXPECT_EQ(3u, h.positives);
	EXPECT_EQ(4u, h.deletes);
	EXPECT_EQ(0x0102030405060708ULL, h.generation);
	EXPECT_EQ(4u, h.windows);
	EXPECT_EQ(60000u, h.interval_ms);
	EXPECT_EQ(5u, h.window.id);
	EXPECT_EQ(1000000000ULL, h.window.start_ns);
	EXPECT_EQ(61000000000ULL, h.window.end_ns);
	EXPECT_EQ(77u, h.window.packets);
	EXPECT_EQ(16u, h.cell_bytes);
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(i * 17, cells[i]);
	}
	/* The cells are little-endian words: word 0 is bytes 0..7. */
	memcpy(&word, cells, 8);
	EXPECT_EQ(0x7766554433221100ULL, le64toh(word));

	/* And the writer produces exactly these bytes. */
	ASSERT_EQ(0, write_file(&h, cells, 5, &rng, &out)) {
		TH_LOG("%s", err);
	}
	ASSERT_EQ(sizeof(g), out.len);
	for (i = 0; i < (int)sizeof(g); i++) {
		EXPECT_EQ(g[i], out.p[i]) {
			TH_LOG("byte %d", i);
		}
	}
	/* Compressed: the same prefix but the flag, one zstd frame after. */
	free(out.p);
	memset(&out, 0, sizeof(out));
	h.flags = KB_SAVE_F_ZSTD;
	ASSERT_EQ(0, write_file(&h, cells, 0, &rng, &out));
	EXPECT_EQ(0, memcmp(out.p, g, 12));
	EXPECT_EQ(1, out.p[12]);
	EXPECT_EQ(0, out.p[13] | out.p[14] | out.p[15]);
	n = ZSTD_decompress(plain + 16, sizeof(plain) - 16, out.p + 16,
			    out.len - 20);
	/* After the frame, the CRC32C of the file's bytes before it. */
	EXPECT_EQ(kb_save_crc32c(0, out.p, out.len - 4),
		  (uint32_t)out.p[out.len - 4] | out.p[out.len - 3] << 8 |
		  out.p[out.len - 2] << 16 |
		  (uint32_t)out.p[out.len - 1] << 24);
	ASSERT_EQ(sizeof(plain) - 16, n);
	memcpy(plain, out.p, 16);
	/* The CRC is over the logical bytes, flag included. */
	EXPECT_EQ(0, memcmp(plain + 16, g + 16, 352));
	EXPECT_EQ(kb_save_crc32c(0, plain, 360),
		  (uint32_t)plain[368] | plain[369] << 8 |
		  plain[370] << 16 | (uint32_t)plain[371] << 24);
	ASSERT_EQ(0, read_file(out.p, out.len, 0, 0, &rng, &back,
			       cells, 16));
	EXPECT_EQ(KB_SAVE_F_ZSTD, back.flags);
	free(out.p);
}

/* ---- Damage --------------------------------------------------------- */

/* A small file of the shapes the damage tests use. */
static struct sink small_file(uint32_t flags)
{
	struct kb_save_header h = full_header(64);
	struct sink out = { 0 };
	uint8_t cells[64];
	struct kb_rng rng;

	kb_rng_seed(&rng, 6);
	kb_rng_bytes(&rng, cells, sizeof(cells));
	h.flags = flags;
	if (write_file(&h, cells, 0, &rng, &out))
		abort();
	return out;
}

static bool clear_error(void)
{
	return !strncmp(err, "savefile t.kbf: ", 16) && strstr(err, "byte") &&
	       !strchr(err, '\n');
}

/* Every byte of the file flipped, one bit and all bits: each refused. */
TEST(every_byte_flipped_is_refused)
{
	int z;

	for (z = 0; z < 2; z++) {
		struct sink f = small_file(z ? KB_SAVE_F_ZSTD : 0);
		uint8_t *d = malloc(f.len);
		size_t i, bad = 0;
		int b;

		ASSERT_EQ(0, verify_mem(f.p, f.len)) {
			TH_LOG("%s", err);
		}
		for (i = 0; i < f.len; i++) {
			for (b = 0; b < 2; b++) {
				memcpy(d, f.p, f.len);
				d[i] ^= b ? 0xff : 1 << (i % 8);
				if (verify_mem(d, f.len) == 0 ||
				    !clear_error()) {
					bad++;
					TH_LOG("z %d byte %zu mask %d: %s", z,
					       i, b, err);
				}
			}
		}
		EXPECT_EQ(0u, bad);
		if (z)
			kb_diag("flipped each of %zu bytes of a compressed file: all refused",
				f.len);
		else
			kb_diag("flipped each of %zu bytes of a plain file: all refused",
				f.len);
		free(d);
		free(f.p);
	}
}

/* Every proper prefix of the file: each refused, as a truncation. */
TEST(every_truncation_is_refused)
{
	int z;

	for (z = 0; z < 2; z++) {
		struct sink f = small_file(z ? KB_SAVE_F_ZSTD : 0);
		size_t len, bad = 0;

		for (len = 0; len < f.len; len++) {
			if (verify_mem(f.p, len) == 0 || !clear_error() ||
			    !(strstr(err, "truncated") ||
			      strstr(err, "empty file"))) {
				bad++;
				TH_LOG("z %d length %zu: %s", z, len, err);
			}
		}
		EXPECT_EQ(0u, bad);
		free(f.p);
	}
}

TEST(truncation_message)
{
	struct sink f = small_file(0);

	/* 40 of the 64 cell bytes. */
	EXPECT_EQ(-1, verify_mem(f.p, KB_SAVE_HEADER_LEN + 40));
	EXPECT_STREQ("savefile t.kbf: truncated at byte 384: expected 64 cell bytes, got 40",
		     err);
	EXPECT_EQ(-1, verify_mem(f.p, 100));
	EXPECT_STREQ("savefile t.kbf: truncated at byte 100: expected 328 bytes of the header from byte 16, got 84",
		     err);
	free(f.p);
}

TEST(trailing_garbage_is_refused)
{
	int z;

	for (z = 0; z < 2; z++) {
		struct sink f = small_file(z ? KB_SAVE_F_ZSTD : 0);
		size_t len = f.len;
		uint8_t junk[100] = { 0 }, copy[1000];

		sink_write(&f, junk, 1);
		EXPECT_EQ(-1, verify_mem(f.p, f.len));
		EXPECT_NE(NULL, strstr(err, "trailing garbage")) {
			TH_LOG("%s", err);
		}
		EXPECT_TRUE(clear_error());
		f.len = len;
		sink_write(&f, junk, sizeof(junk));
		EXPECT_EQ(-1, verify_mem(f.p, f.len));
		EXPECT_NE(NULL, strstr(err, "trailing garbage"));
		/* A whole second file after the first. */
		f.len = len;
		memcpy(copy, f.p, len);
		sink_write(&f, copy, len);
		EXPECT_EQ(-1, verify_mem(f.p, f.len));
		EXPECT_NE(NULL, strstr(err, "trailing garbage"));
		free(f.p);
	}
}

/*
 * A compressed file whose frame holds more than the logical file (the
 * trailer, then a byte): refused after the trailer, inside the frame. And
 * one frame followed by a second frame.
 */
TEST(compressed_extra_content_is_refused)
{
	struct sink f = small_file(0);
	uint8_t *logical = malloc(f.len + 1), *z;
	size_t zcap = ZSTD_compressBound(f.len), n;
	struct sink two = small_file(KB_SAVE_F_ZSTD);
	uint32_t crc;

	ASSERT_NE(NULL, logical);
	memcpy(logical, f.p, f.len);
	logical[12] |= KB_SAVE_F_ZSTD;
	crc = kb_save_crc32c(0, logical, f.len - KB_SAVE_TRAILER_LEN);
	le32(logical + f.len - 8, crc);
	logical[f.len] = 'x';
	z = malloc(16 + zcap + 4);
	memcpy(z, logical, 16);
	/* Exactly the logical file: accepted (a frame made by another tool). */
	n = ZSTD_compress(z + 16, zcap, logical + 16, f.len - 16, 19);
	ASSERT_FALSE(ZSTD_isError(n));
	le32(z + 16 + n, kb_save_crc32c(0, z, 16 + n));
	EXPECT_EQ(0, verify_mem(z, 16 + n + 4)) {
		TH_LOG("%s", err);
	}
	/* Without the outer CRC. */
	EXPECT_EQ(-1, verify_mem(z, 16 + n));
	EXPECT_NE(NULL, strstr(err, "expected the 4-byte CRC of the compressed file, got 0")) {
		TH_LOG("%s", err);
	}
	n = ZSTD_compress(z + 16, zcap, logical + 16, f.len + 1 - 16, 19);
	ASSERT_FALSE(ZSTD_isError(n));
	le32(z + 16 + n, kb_save_crc32c(0, z, 16 + n));
	EXPECT_EQ(-1, verify_mem(z, 16 + n + 4));
	EXPECT_NE(NULL, strstr(err, "trailing garbage at byte")) {
		TH_LOG("%s", err);
	}
	/* Two frames: the file's, then a valid frame of one byte. */
	n = ZSTD_compress(z, zcap, "x", 1, 1);
	sink_write(&two, z, n);
	EXPECT_EQ(-1, verify_mem(two.p, two.len));
	EXPECT_NE(NULL, strstr(err, "trailing garbage at file byte")) {
		TH_LOG("%s", err);
	}
	free(two.p);
	free(z);
	free(logical);
	free(f.p);
}

TEST(crc_mismatch_message)
{
	struct sink f = small_file(0);

	f.p[KB_SAVE_HEADER_LEN + 3] ^= 0x10;	/* a cell byte */
	EXPECT_EQ(-1, verify_mem(f.p, f.len));
	EXPECT_EQ(0, strncmp(err, "savefile t.kbf: CRC mismatch at byte 416 (stored 0x",
			     51)) {
		TH_LOG("%s", err);
	}
	free(f.p);
}

/* Counts deliveries: none may happen before the size is checked. */
static int count_cb(void *arg, const void *chunk, size_t len)
{
	(*(uint64_t *)arg) += len;
	return 0;
}

static uint64_t expect_double(const struct kb_save_header *h, void *arg)
{
	return h->cell_bytes * 2;
}

TEST(wrong_cell_size_refused_before_any_cell)
{
	int z;

	for (z = 0; z < 2; z++) {
		struct sink f = small_file(z ? KB_SAVE_F_ZSTD : 0);
		struct src s = src_of(f.p, f.len, 0);
		struct kb_save_reader *r;
		uint8_t buf[64];
		uint64_t delivered = 0;

		r = kb_save_reader_open(src_read, &s, "t.kbf", err,
					sizeof(err));
		ASSERT_NE(NULL, r);
		/* Reading before expect() is refused. */
		memset(buf, 0x5a, sizeof(buf));
		EXPECT_EQ(-1, kb_save_read_cells(r, buf, sizeof(buf)));
		EXPECT_NE(NULL, strstr(err, "before their size was checked"));
		kb_save_reader_free(r);

		s = src_of(f.p, f.len, 0);
		r = kb_save_reader_open(src_read, &s, "t.kbf", err,
					sizeof(err));
		ASSERT_NE(NULL, r);
		EXPECT_EQ(-1, kb_save_reader_expect(r, 128));
		EXPECT_STREQ("savefile t.kbf: cell size mismatch at byte 336: the file has 64 cell bytes, its filter's shape needs 128",
			     err);
		/* Nothing is delivered after that, by either API. */
		EXPECT_EQ(-1, kb_save_read_cells(r, buf, sizeof(buf)));
		EXPECT_EQ(-1, kb_save_read_cells_cb(r, count_cb, &delivered));
		EXPECT_EQ(-1, kb_save_reader_finish(r));
		EXPECT_EQ(0u, delivered);
		for (size_t i = 0; i < sizeof(buf); i++) {
			EXPECT_EQ(0x5a, buf[i]);
		}
		kb_save_reader_free(r);

		s = src_of(f.p, f.len, 0);
		EXPECT_EQ(-1, kb_save_verify(src_read, &s, "t.kbf",
					     expect_double, NULL, NULL, err,
					     sizeof(err)));
		EXPECT_NE(NULL, strstr(err, "cell size mismatch"));
		/* An expect callback that refuses the shape itself. */
		s = src_of(f.p, f.len, 0);
		EXPECT_EQ(-1, kb_save_verify(src_read, &s, "t.kbf",
					     expect_engine, NULL, NULL, err,
					     sizeof(err)));
		EXPECT_STREQ("savefile t.kbf: unusable filter shape at byte 48: its parameters are not valid together",
			     err);
		free(f.p);
	}
}

/* A push callback that stops the import: its value comes back. */
static int stop_cb(void *arg, const void *chunk, size_t len)
{
	return -7;
}

TEST(callback_stop_and_io_errors)
{
	struct sink f = small_file(0);
	struct src s = src_of(f.p, f.len, 0);
	struct kb_save_reader *r;
	struct kb_save_header h = bloom_header(64, 1, 8);
	struct kb_save_writer *w;
	struct sink out = { .fail_at = 100 };
	uint8_t cells[16] = { 0 };

	r = kb_save_reader_open(src_read, &s, "t.kbf", err, sizeof(err));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, kb_save_reader_expect(r, 64));
	strcpy(err, "untouched");
	EXPECT_EQ(-7, kb_save_read_cells_cb(r, stop_cb, NULL));
	EXPECT_STREQ("untouched", err);
	EXPECT_EQ(-1, kb_save_reader_finish(r));
	kb_save_reader_free(r);

	/* A read error. */
	s = src_of(f.p, f.len, 0);
	s.fail_at = 1;
	s.step = 1;
	EXPECT_EQ(-1, kb_save_verify(src_read, &s, "t.kbf", NULL, NULL, NULL,
				     err, sizeof(err)));
	EXPECT_STREQ("savefile t.kbf: read failed at byte 1: Input/output error",
		     err);

	/* A write error, in the header and in the cells. */
	EXPECT_EQ(NULL, kb_save_writer_begin(&h, sink_write, &out, "t.kbf",
					     err, sizeof(err)));
	EXPECT_STREQ("savefile t.kbf: write failed at byte 16: No space left on device",
		     err);
	out.len = 0;
	out.fail_at = KB_SAVE_HEADER_LEN + 4;
	w = kb_save_writer_begin(&h, sink_write, &out, "t.kbf", err,
				 sizeof(err));
	ASSERT_NE(NULL, w);
	EXPECT_EQ(-1, kb_save_write_cells(w, cells, 8));
	EXPECT_NE(NULL, strstr(err, "write failed at byte 344"));
	EXPECT_EQ(-1, kb_save_writer_finish(w));
	kb_save_writer_free(w);

	/* Too many cells, too few. */
	out.len = 0;
	out.fail_at = 0;
	w = kb_save_writer_begin(&h, sink_write, &out, "t.kbf", err,
				 sizeof(err));
	ASSERT_NE(NULL, w);
	EXPECT_EQ(-1, kb_save_write_cells(w, cells, 16));
	EXPECT_STREQ("savefile t.kbf: 16 cell bytes given, the header says 8",
		     err);
	kb_save_writer_free(w);
	w = kb_save_writer_begin(&h, sink_write, &out, "t.kbf", err,
				 sizeof(err));
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0, kb_save_write_cells(w, cells, 4));
	EXPECT_EQ(-1, kb_save_writer_finish(w));
	EXPECT_STREQ("savefile t.kbf: only 4 of 8 cell bytes given", err);
	kb_save_writer_free(w);
	free(out.p);
	free(f.p);
}

/* ---- Header fields out of range -------------------------------------- */

struct mutation {
	const char *what;
	void (*mutate)(struct kb_save_header *h);
	int off;		/* the offset the message must name */
};

#define MUT(name, body) \
	static void mut_##name(struct kb_save_header *h) { body; }

MUT(name_empty, memset(h->name, 0, sizeof(h->name)))
MUT(name_unterminated, memset(h->name, 'a', sizeof(h->name)))
MUT(name_space, strcpy(h->name, "a b"))
MUT(name_slash, strcpy(h->name, "a/b"))
MUT(name_junk_after_nul, h->name[20] = 'x')
MUT(type_0, h->shape.type = 0)
MUT(type_max, h->shape.type = __KBLOOM_TYPE_MAX)
MUT(type_scalable, h->shape.type = KBLOOM_TYPE_SCALABLE)
MUT(type_dcf, h->shape.type = KBLOOM_TYPE_DCF; h->shape.cell_bits = 4)
MUT(k_0, h->shape.k = 0)
MUT(k_big, h->shape.k = KBLOOM_HASHES_MAX + 1)
MUT(m_small, h->shape.m = KBLOOM_BITS_MIN - 1)
MUT(m_big, h->shape.m = KBLOOM_BITS_MAX + 1)
MUT(cell_bits_bloom, h->shape.cell_bits = 2)
MUT(update_bloom, h->shape.update = 1)
MUT(decrement_bloom, h->shape.decrement = 1)
MUT(subtables_bloom, h->shape.subtables = 2)
MUT(bucket_bloom, h->shape.bucket_cells = 2)
MUT(fp_bloom, h->shape.fp_bits = 8)
MUT(dims_bloom, h->shape.dims = 1; strcpy(h->dim_names[0], "a"))
MUT(counting_bits, h->shape.type = KBLOOM_TYPE_COUNTING;
    h->shape.cell_bits = 3)
MUT(counting_update, h->shape.type = KBLOOM_TYPE_COUNTING;
    h->shape.cell_bits = 4; h->shape.update = 2)
MUT(stable_dec0, h->shape.type = KBLOOM_TYPE_STABLE;
    h->shape.cell_bits = 2)
MUT(stable_dec_big, h->shape.type = KBLOOM_TYPE_STABLE;
    h->shape.cell_bits = 2; h->shape.decrement = KBLOOM_DECREMENT_MAX + 1)
MUT(dleft_k, h->shape.type = KBLOOM_TYPE_DLEFT; h->shape.k = 2;
    h->shape.subtables = 2; h->shape.bucket_cells = 2; h->shape.fp_bits = 8)
MUT(dleft_d, h->shape.type = KBLOOM_TYPE_DLEFT; h->shape.k = 1;
    h->shape.subtables = 9; h->shape.bucket_cells = 2; h->shape.fp_bits = 8)
MUT(dleft_fp, h->shape.type = KBLOOM_TYPE_DLEFT; h->shape.k = 1;
    h->shape.subtables = 2; h->shape.bucket_cells = 2; h->shape.fp_bits = 25)
MUT(multi_dims0, h->shape.type = KBLOOM_TYPE_MULTI)
MUT(multi_dims_big, h->shape.type = KBLOOM_TYPE_MULTI;
    h->shape.dims = KBLOOM_DIMS_MAX + 1)
MUT(multi_dim_name_missing, h->shape.type = KBLOOM_TYPE_MULTI;
    h->shape.dims = 2; strcpy(h->dim_names[0], "src"))
MUT(multi_dim_name_bad, h->shape.type = KBLOOM_TYPE_MULTI;
    h->shape.dims = 2; strcpy(h->dim_names[0], "src");
    strcpy(h->dim_names[1], "Dst"))
MUT(multi_dim_name_extra, h->shape.type = KBLOOM_TYPE_MULTI;
    h->shape.dims = 1; strcpy(h->dim_names[0], "src");
    strcpy(h->dim_names[7], "x"))
MUT(digest, h->digest = __KBLOOM_DIGEST_MAX)
MUT(windows_1, h->windows = 1; h->interval_ms = 1000)
MUT(windows_big, h->windows = KBLOOM_WINDOWS_MAX + 1; h->interval_ms = 1000)
MUT(interval_small, h->windows = 2; h->interval_ms = KBLOOM_INTERVAL_MIN - 1)
MUT(interval_alone, h->interval_ms = 1000)
MUT(window_no_id, h->window.packets = 1)
MUT(window_backwards, h->window.id = 1; h->window.start_ns = 10;
    h->window.end_ns = 9)
MUT(cells_odd, h->cell_bytes = 12)
MUT(cells_huge, h->cell_bytes = KBLOOM_MEM_MAX + 8)
MUT(flags, h->flags = 0x2)

static const struct mutation mutations[] = {
#define M(name, off) { #name, mut_##name, off }
	M(name_empty, 16), M(name_unterminated, 16), M(name_space, 16),
	M(name_slash, 16), M(name_junk_after_nul, 16), M(type_0, 48),
	M(type_max, 48), M(type_scalable, 344), M(type_dcf, 352), M(k_0, 52),
	M(k_big, 52), M(m_small, 56), M(m_big, 56), M(cell_bits_bloom, 64), M(update_bloom, 68),
	M(decrement_bloom, 72), M(subtables_bloom, 76), M(bucket_bloom, 80),
	M(fp_bloom, 84), M(dims_bloom, 88), M(counting_bits, 64),
	M(counting_update, 68), M(stable_dec0, 72), M(stable_dec_big, 72),
	M(dleft_k, 52), M(dleft_d, 76), M(dleft_fp, 84), M(multi_dims0, 88),
	M(multi_dims_big, 88), M(multi_dim_name_missing, 224),
	M(multi_dim_name_bad, 224), M(multi_dim_name_extra, 320),
	M(digest, 92), M(windows_1, 160), M(windows_big, 160),
	M(interval_small, 168), M(interval_alone, 168),
	M(window_no_id, 184), M(window_backwards, 192), M(cells_odd, 336),
	M(cells_huge, 336), M(flags, 12),
#undef M
};

/*
 * A bad header @h: kb_save_check_header() refuses it naming @at ("at byte
 * N"), and the writer refuses to start, writing nothing.
 */
static void refused_by_check_and_writer(struct __test_metadata *_metadata,
					const struct kb_save_header *h,
					const char *at, const char *what)
{
	struct sink out = { 0 };

	EXPECT_EQ(-1, kb_save_check_header(h, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, at)) {
		TH_LOG("%s: %s", what, err);
	}
	EXPECT_EQ(NULL, kb_save_writer_begin(h, sink_write, &out, "t.kbf",
					     err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "refusing to write"));
	EXPECT_EQ(0u, out.len);
	free(out.p);
}

/*
 * Each bad header: refused by the writer, and (written by hand with a
 * correct CRC, so only the field is wrong) by the reader, naming the
 * field's offset.
 */
TEST(bad_header_fields_are_refused)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mutations); i++) {
		struct kb_save_header h = bloom_header(64, 2, 8);
		uint8_t file[KB_SAVE_HEADER_MAX + 8 + KB_SAVE_TRAILER_LEN];
		char at[32];
		size_t hl;

		ASSERT_EQ(0, kb_save_check_header(&h, err, sizeof(err)));
		mutations[i].mutate(&h);
		snprintf(at, sizeof(at), "at byte %d", mutations[i].off);
		refused_by_check_and_writer(_metadata, &h, at,
					    mutations[i].what);

		/* A scalable or dcf type makes it a version 2 header. */
		hl = kb_save_header_len(&h);
		memset(file, 0, sizeof(file));
		kb_save_encode_header(&h, file);
		kb_put_le64(file + hl + 8, 8);
		le32(file + hl + 16, kb_save_crc32c(0, file, hl + 8));
		memcpy(file + hl + 20, "KEND", 4);
		EXPECT_EQ(-1, verify_mem(file, hl + 8 + KB_SAVE_TRAILER_LEN));
		EXPECT_NE(NULL, strstr(err, at)) {
			TH_LOG("%s: %s", mutations[i].what, err);
		}
		EXPECT_TRUE(clear_error());
	}
}

/* Magic, version, reserved field: only the reader sees them. */
TEST(bad_prefix_is_refused)
{
	struct sink f = small_file(0);
	uint8_t *d = malloc(f.len);
	uint32_t crc;

	memcpy(d, f.p, f.len);
	d[0] = 'k';
	EXPECT_EQ(-1, verify_mem(d, f.len));
	EXPECT_STREQ("savefile t.kbf: bad magic at byte 0: not a kbloom save file",
		     err);
	memcpy(d, f.p, f.len);
	d[8] = 5;
	EXPECT_EQ(-1, verify_mem(d, f.len));
	EXPECT_STREQ("savefile t.kbf: unsupported format version 5 at byte 8 (this reader knows versions 1 to 4)",
		     err);
	memcpy(d, f.p, f.len);
	d[8] = 0;
	EXPECT_EQ(-1, verify_mem(d, f.len));
	EXPECT_STREQ("savefile t.kbf: unsupported format version 0 at byte 8 (this reader knows versions 1 to 4)",
		     err);
	memcpy(d, f.p, f.len);
	d[15] = 0x80;
	EXPECT_EQ(-1, verify_mem(d, f.len));
	EXPECT_STREQ("savefile t.kbf: unknown flags 0x80000000 at byte 12",
		     err);
	memcpy(d, f.p, f.len);
	d[165] = 1;	/* reserved, with a good CRC */
	crc = kb_save_crc32c(0, d, f.len - KB_SAVE_TRAILER_LEN);
	le32(d + f.len - 8, crc);
	EXPECT_EQ(-1, verify_mem(d, f.len));
	EXPECT_STREQ("savefile t.kbf: reserved field is 0x100, not 0 at byte 164",
		     err);
	free(d);
	free(f.p);
}

/* Compressed data damaged inside the frame, and a file cut mid-frame. */
TEST(compressed_damage_is_refused)
{
	struct kb_shape shp = { .type = KBLOOM_TYPE_BLOOM, .m = 1 << 20,
				.k = 7 };
	struct kb_save_header h;
	struct kb_filter f;
	struct kb_rng rng;
	struct sink out = { 0 };
	u8 hkey[16] = { 9 };
	uint8_t *d;
	size_t i, bad = 0;
	uint64_t k;

	kb_rng_seed(&rng, 7);
	ASSERT_EQ(0, kb_filter_init(&f, &shp, hkey));
	for (k = 0; k < 20000; k++)
		kb_filter_add(&f, &k, sizeof(k));
	h = header_of(&f, &shp, hkey, KB_SAVE_F_ZSTD);
	ASSERT_EQ(0, write_file(&h, f.mem, 0, &rng, &out));
	d = malloc(out.len);
	/* 200 random positions past the prefix, each flipped alone. */
	for (i = 0; i < 200; i++) {
		size_t pos = 16 + kb_rng_below(&rng, out.len - 16);

		memcpy(d, out.p, out.len);
		d[pos] ^= 1 << kb_rng_below(&rng, 8);
		if (verify_mem(d, out.len) == 0 || !clear_error()) {
			bad++;
			TH_LOG("pos %zu: %s", pos, err);
		}
	}
	EXPECT_EQ(0u, bad);
	/* Cut at 100 places, the last byte included. */
	for (i = 0; i <= 100; i++) {
		size_t len = i == 100 ? out.len - 1 :
			     kb_rng_below(&rng, out.len);

		if (verify_mem(out.p, len) == 0 || !clear_error() ||
		    !strstr(err, "truncated")) {
			bad++;
			TH_LOG("length %zu: %s", len, err);
		}
	}
	EXPECT_EQ(0u, bad);
	free(d);
	free(out.p);
	kb_filter_free(&f);
}

/* ---- Compression ratios --------------------------------------------- */

/* Size of the saved file of a bloom filter filled to @fill. */
static void ratio_at(struct __test_metadata *_metadata, double fill)
{
	struct kb_shape shp = { .type = KBLOOM_TYPE_BLOOM, .m = 1 << 23,
				.k = 7 };
	struct sink plain = { 0 }, z = { 0 };
	struct kb_save_header h;
	struct kb_filter f;
	struct kb_fill fl;
	struct kb_rng rng;
	u8 hkey[16] = { 4, 2 };
	uint64_t n, i;
	double p, ent;
	size_t n19;
	void *zbuf;

	kb_rng_seed(&rng, 8);
	ASSERT_EQ(0, kb_filter_init(&f, &shp, hkey));
	/* n keys leave a fraction 1 - e^(-kn/m) of the bits set. */
	n = (uint64_t)(-log(1 - fill) * shp.m / shp.k);
	for (i = 0; i < n; i++)
		kb_filter_add(&f, &i, sizeof(i));
	kb_filter_fill(&f, &fl);
	p = (double)fl.nonzero / shp.m;
	h = header_of(&f, &shp, hkey, 0);
	ASSERT_EQ(0, write_file(&h, f.mem, 1 << 16, &rng, &plain));
	h.flags = KB_SAVE_F_ZSTD;
	ASSERT_EQ(0, write_file(&h, f.mem, 1 << 16, &rng, &z));
	ASSERT_EQ(0, verify_mem(z.p, z.len));
	ent = -(p * log2(p) + (1 - p) * log2(1 - p));
	/* For comparison: the cells alone at zstd's strongest level. */
	zbuf = malloc(ZSTD_compressBound(h.cell_bytes));
	ASSERT_NE(NULL, zbuf);
	n19 = ZSTD_compress(zbuf, ZSTD_compressBound(h.cell_bytes), f.mem,
			    h.cell_bytes, 19);
	ASSERT_FALSE(ZSTD_isError(n19));
	free(zbuf);
	kb_diag("zstd level %d, bloom m=%llu k=%u at %.1f%% fill: %zu -> %zu bytes, ratio %.2f (level 19: %.2f; entropy bound %.2f)",
		KB_SAVE_ZSTD_LEVEL, (unsigned long long)shp.m, shp.k,
		100 * p, plain.len, z.len, (double)plain.len / z.len,
		(double)h.cell_bytes / n19, 1 / ent);
	/* Low fill compresses; half fill is incompressible, and costs little. */
	if (fill < 0.2) {
		EXPECT_GT(plain.len * 10, z.len * 16);
	} else {
		EXPECT_LT(z.len, plain.len + plain.len / 100);
	}
	free(plain.p);
	free(z.p);
	kb_filter_free(&f);
}

TEST(compression_ratio_bloom)
{
	ratio_at(_metadata, 0.10);
	ratio_at(_metadata, 0.50);
}

/* ---- Version 2: scalable and dcf layouts ---------------------------- */

/* A scalable filter of @n slices as the engine's plan makes them. */
static struct kb_save_header scalable_header(uint32_t n)
{
	struct kb_save_header h = bloom_header(100, 3, 0);
	struct kb_shape s;
	uint32_t i;

	h.shape.type = KBLOOM_TYPE_SCALABLE;
	h.shape.growth = 2;
	h.shape.tighten = 500000;
	h.capacity = 10;
	memset(&s, 0, sizeof(s));
	s.type = KBLOOM_TYPE_SCALABLE;
	s.m = h.shape.m;
	s.k = h.shape.k;
	s.capacity = h.capacity;
	s.growth = h.shape.growth;
	s.tighten = h.shape.tighten;
	h.nslices = n;
	h.current = n - 1;
	h.overflow = 0x0123456789abcdefULL;
	for (i = 0; i < n; i++) {
		if (!kb_scalable_plan(&s, i, &h.slice[i].m, &h.slice[i].k,
				      &h.slice[i].capacity))
			abort();
		h.slice[i].keys = h.slice[i].capacity - i;
		h.cell_bytes += h.slice[i].m / 8;
	}
	return h;
}

static struct kb_save_header dcf_header(uint32_t ofv_bits)
{
	struct kb_save_header h = bloom_header(1000, 3, 0);

	h.shape.type = KBLOOM_TYPE_DCF;
	h.shape.cell_bits = 4;
	h.ofv_bits = ofv_bits;
	h.overflow = 77;
	/* 4000 bits of CBFV, 1000 * y bits of OFV, each in 64-bit words */
	h.cell_bytes = 504 + (1000 * ofv_bits + 63) / 64 * 8;
	return h;
}

#define EXPECT_LAYOUT_EQ(a, b) do { \
	EXPECT_HEADER_EQ(a, b); \
	EXPECT_EQ((a)->shape.growth, (b)->shape.growth); \
	EXPECT_EQ((a)->shape.tighten, (b)->shape.tighten); \
	EXPECT_EQ((a)->ofv_bits, (b)->ofv_bits); \
	EXPECT_EQ((a)->nslices, (b)->nslices); \
	EXPECT_EQ((a)->current, (b)->current); \
	EXPECT_EQ((a)->overflow, (b)->overflow); \
	for (int i_ = 0; i_ < KBLOOM_SLICES_MAX; i_++) { \
		EXPECT_EQ((a)->slice[i_].m, (b)->slice[i_].m); \
		EXPECT_EQ((a)->slice[i_].k, (b)->slice[i_].k); \
		EXPECT_EQ((a)->slice[i_].capacity, (b)->slice[i_].capacity); \
		EXPECT_EQ((a)->slice[i_].keys, (b)->slice[i_].keys); \
	} \
} while (0)

/* Versions by type; the v2 offsets of savefile.h's table, byte by byte. */
TEST(v2_header_layout_offsets)
{
	struct kb_save_header h = scalable_header(3), back;
	uint8_t raw[KB_SAVE_HEADER_MAX];
	struct kb_save_header b = bloom_header(64, 2, 8);
	uint32_t i;

	ASSERT_EQ(0, kb_save_check_header(&h, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_EQ(1u, kb_save_version_for(&b));
	EXPECT_EQ((size_t)KB_SAVE_HEADER_LEN, kb_save_header_len(&b));
	EXPECT_EQ(2u, kb_save_version_for(&h));
	EXPECT_EQ((size_t)1400, kb_save_header_len(&h));
	memset(raw, 0xee, sizeof(raw));
	kb_save_encode_header(&h, raw);
	EXPECT_EQ(2u, raw[8]);
	EXPECT_EQ(2u, raw[344]);		/* growth */
	EXPECT_EQ(500000u, (uint32_t)raw[348] | raw[349] << 8 | raw[350] << 16);
	EXPECT_EQ(0u, raw[352]);		/* ofv_bits */
	EXPECT_EQ(3u, raw[356]);		/* slices */
	EXPECT_EQ(2u, raw[360]);		/* current */
	EXPECT_EQ(0u, raw[364]);		/* reserved */
	EXPECT_EQ(0xefu, raw[368]);		/* overflow, little-endian */
	EXPECT_EQ(0x01u, raw[375]);
	for (i = 0; i < 3; i++) {
		const uint8_t *e = raw + 376 + 32 * i;

		EXPECT_EQ(h.slice[i].m, (uint64_t)e[0] | (uint64_t)e[1] << 8 |
					(uint64_t)e[2] << 16);
		EXPECT_EQ(h.slice[i].k, e[8]);
		EXPECT_EQ(0u, e[12]);
		EXPECT_EQ(h.slice[i].capacity, e[16]);
		EXPECT_EQ(h.slice[i].keys, e[24]);
	}
	for (i = 376 + 3 * 32; i < 1400; i++)
		EXPECT_EQ(0u, raw[i]);
	kb_save_decode_header(raw, &back);
	EXPECT_EQ(2u, back.version);
	h.version = 2;
	EXPECT_LAYOUT_EQ(&h, &back);

	h = dcf_header(16);
	ASSERT_EQ(0, kb_save_check_header(&h, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	kb_save_encode_header(&h, raw);
	EXPECT_EQ(16u, raw[352]);
	EXPECT_EQ(77u, raw[368]);
	kb_save_decode_header(raw, &back);
	h.version = 2;
	EXPECT_LAYOUT_EQ(&h, &back);
}

/* Whole v2 files, plain and compressed, cells in random chunks. */
TEST(v2_file_round_trip)
{
	struct kb_save_header hs[3] = {
		scalable_header(1), scalable_header(5), dcf_header(32),
	};
	struct kb_rng rng;
	int z, t;

	kb_rng_seed(&rng, 22);
	for (t = 0; t < 3; t++) {
		for (z = 0; z < 2; z++) {
			struct kb_save_header h = hs[t], back;
			struct sink out = { 0 };
			uint8_t *cells = malloc(h.cell_bytes);
			uint8_t *got = malloc(h.cell_bytes);

			kb_rng_bytes(&rng, cells, h.cell_bytes);
			h.flags = z ? KB_SAVE_F_ZSTD : 0;
			ASSERT_EQ(0, write_file(&h, cells, 0, &rng, &out)) {
				TH_LOG("%s", err);
			}
			if (!z)
				EXPECT_EQ(1400 + h.cell_bytes + 16, out.len);
			ASSERT_EQ(0, read_file(out.p, out.len, 0, 0, &rng, &back,
					       got, h.cell_bytes)) {
				TH_LOG("%s", err);
			}
			h.version = 2;
			EXPECT_LAYOUT_EQ(&h, &back);
			EXPECT_EQ(0, memcmp(cells, got, h.cell_bytes));
			EXPECT_EQ(0, verify_mem(out.p, out.len));
			free(out.p);
			free(cells);
			free(got);
		}
	}
}

MUT(v2_growth, h->shape.growth = 1)
MUT(v2_tighten, h->shape.tighten = KBLOOM_TIGHTEN_MAX + 1)
MUT(v2_capacity0, h->capacity = 0; h->slice[0].capacity = 0)
MUT(v2_cell_bits, h->shape.cell_bits = 2)
MUT(v2_ofv_bits, h->ofv_bits = 1)
MUT(v2_nslices0, h->nslices = 0)
MUT(v2_nslices_big, h->nslices = KBLOOM_SLICES_MAX + 1)
MUT(v2_current, h->current = 3)
MUT(v2_slice0_m, h->slice[0].m += 64; h->cell_bytes += 8)
MUT(v2_slice1_m_odd, h->slice[1].m += 8; h->cell_bytes += 8)
MUT(v2_slice1_k0, h->slice[1].k = 0)
MUT(v2_slice0_k, h->slice[0].k = 4)
MUT(v2_slice2_cap0, h->slice[2].capacity = 0)
MUT(v2_slice_past, h->slice[3].keys = 1)
MUT(v2_cells, h->cell_bytes += 8)
MUT(v2_windows, h->windows = 2; h->interval_ms = 1000)
MUT(v2_window_id, h->window.id = 1)
MUT(v2_dcf_bits, h->shape.type = KBLOOM_TYPE_DCF; h->shape.cell_bits = 16)
MUT(dcf_ofv3, *h = dcf_header(3))
MUT(dcf_ofv64, *h = dcf_header(1); h->ofv_bits = 64)
MUT(dcf_growth, *h = dcf_header(2); h->shape.growth = 2)
MUT(dcf_slices, *h = dcf_header(2); h->nslices = 1)
MUT(dcf_current, *h = dcf_header(2); h->current = 1)
MUT(dcf_slice, *h = dcf_header(2); h->slice[0].m = 64)
MUT(dcf_cells, *h = dcf_header(2); h->cell_bytes -= 8)
MUT(bloom_layout, *h = bloom_header(64, 2, 8); h->ofv_bits = 2)
MUT(bloom_slices, *h = bloom_header(64, 2, 8); h->slice[0].keys = 2)

static const struct mutation v2_mutations[] = {
#define M(name, off) { #name, mut_##name, off }
	M(v2_growth, 344), M(v2_tighten, 348), M(v2_capacity0, 96),
	M(v2_cell_bits, 64), M(v2_ofv_bits, 352), M(v2_nslices0, 356),
	M(v2_nslices_big, 356), M(v2_current, 360), M(v2_slice0_m, 376),
	M(v2_slice1_m_odd, 408), M(v2_slice1_k0, 416), M(v2_slice0_k, 384),
	M(v2_slice2_cap0, 456), M(v2_slice_past, 472), M(v2_cells, 336),
	M(v2_windows, 160), M(v2_window_id, 176), M(v2_dcf_bits, 64),
	M(dcf_ofv3, 352), M(dcf_ofv64, 352), M(dcf_growth, 344),
	M(dcf_slices, 356), M(dcf_current, 360), M(dcf_slice, 376),
	M(dcf_cells, 336), M(bloom_layout, 48), M(bloom_slices, 48),
#undef M
};

/* As bad_header_fields_are_refused, for the layout of version 2. */
TEST(v2_bad_layout_fields_are_refused)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v2_mutations); i++) {
		struct kb_save_header h = scalable_header(3);
		static uint8_t file[KB_SAVE_HEADER_MAX + 4096];
		size_t hl, n;
		char at[32];

		ASSERT_EQ(0, kb_save_check_header(&h, err, sizeof(err)));
		v2_mutations[i].mutate(&h);
		snprintf(at, sizeof(at), "at byte %d", v2_mutations[i].off);
		refused_by_check_and_writer(_metadata, &h, at,
					    v2_mutations[i].what);
		/* By hand, good CRC: only the field is wrong (v1 has none). */
		if (h.cell_bytes > 2048 || h.nslices > KBLOOM_SLICES_MAX ||
		    kb_save_header_len(&h) == KB_SAVE_HEADER_LEN)
			continue;
		hl = kb_save_header_len(&h);
		n = hl + h.cell_bytes;
		memset(file, 0, sizeof(file));
		kb_save_encode_header(&h, file);
		kb_put_le64(file + n, h.cell_bytes);
		le32(file + n + 8, kb_save_crc32c(0, file, n));
		memcpy(file + n + 12, "KEND", 4);
		EXPECT_EQ(-1, verify_mem(file, n + KB_SAVE_TRAILER_LEN));
		EXPECT_NE(NULL, strstr(err, at)) {
			TH_LOG("file %s: %s", v2_mutations[i].what, err);
		}
		EXPECT_TRUE(clear_error());
	}
}

/* The trailer of a file whose @len bytes before it are in @buf. */
static void seal(uint8_t *buf, size_t len, uint64_t cell_bytes)
{
	kb_put_le64(buf + len, cell_bytes);
	le32(buf + len + 8, kb_save_crc32c(0, buf, len));
	memcpy(buf + len + 12, "KEND", 4);
}

/* A file whose version does not match its type; reserved v2 fields. */
TEST(v2_version_and_reserved_are_checked)
{
	struct kb_save_header h = scalable_header(2);
	size_t n = 1400 + h.cell_bytes;
	uint8_t *f = calloc(1, n + KB_SAVE_TRAILER_LEN);
	uint8_t *g = calloc(1, n + KB_SAVE_TRAILER_LEN);
	struct kb_save_header b = bloom_header(64, 2, 8);
	static const int reserved[] = { 364, 376 + 12, 376 + 32 * 31 + 12 };
	size_t i;

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, g);
	kb_save_encode_header(&h, f);
	seal(f, n, h.cell_bytes);
	ASSERT_EQ(0, verify_mem(f, n + KB_SAVE_TRAILER_LEN)) {
		TH_LOG("%s", err);
	}
	/* Scalable in a version 1 file. */
	memcpy(g, f, n + KB_SAVE_TRAILER_LEN);
	g[8] = 1;
	seal(g, n, h.cell_bytes);
	EXPECT_EQ(-1, verify_mem(g, n + KB_SAVE_TRAILER_LEN));
	EXPECT_STREQ("savefile t.kbf: filter type 8 is saved as format version 2, not 1 at byte 48",
		     err);
	/* A bloom filter in a version 2 file. */
	memset(g, 0, n + KB_SAVE_TRAILER_LEN);
	kb_save_encode_header(&b, g);
	g[8] = 2;
	h.cell_bytes = 8;
	seal(g, 1408, h.cell_bytes);
	EXPECT_EQ(-1, verify_mem(g, 1408 + KB_SAVE_TRAILER_LEN));
	EXPECT_STREQ("savefile t.kbf: filter type 1 is saved as format version 1, not 2 at byte 48",
		     err);
	h = scalable_header(2);
	for (i = 0; i < ARRAY_SIZE(reserved); i++) {
		char at[32];

		memcpy(g, f, n + KB_SAVE_TRAILER_LEN);
		g[reserved[i]] = 1;
		seal(g, n, h.cell_bytes);
		snprintf(at, sizeof(at), "not 0 at byte %d", reserved[i]);
		EXPECT_EQ(-1, verify_mem(g, n + KB_SAVE_TRAILER_LEN));
		EXPECT_NE(NULL, strstr(err, at)) {
			TH_LOG("%s", err);
		}
	}
	free(f);
	free(g);
}

/* Every byte of a v2 file flipped, every prefix: each refused. */
TEST(v2_every_byte_flipped_or_cut_is_refused)
{
	struct kb_rng rng;
	int z, t;

	kb_rng_seed(&rng, 23);
	for (t = 0; t < 2; t++) {
		for (z = 0; z < 2; z++) {
			struct kb_save_header h = t ? dcf_header(2) :
						  scalable_header(2);
			struct sink f = { 0 };
			uint8_t *cells = malloc(h.cell_bytes), *d;
			size_t i, bad = 0;
			int b;

			kb_rng_bytes(&rng, cells, h.cell_bytes);
			h.flags = z ? KB_SAVE_F_ZSTD : 0;
			ASSERT_EQ(0, write_file(&h, cells, 0, &rng, &f));
			d = malloc(f.len);
			ASSERT_EQ(0, verify_mem(f.p, f.len));
			for (i = 0; i < f.len; i++) {
				for (b = 0; b < 2; b++) {
					memcpy(d, f.p, f.len);
					d[i] ^= b ? 0xff : 1 << (i % 8);
					if (verify_mem(d, f.len) == 0 ||
					    !clear_error()) {
						bad++;
						TH_LOG("t %d z %d byte %zu: %s",
						       t, z, i, err);
					}
				}
			}
			for (i = 0; i < f.len; i++) {
				if (verify_mem(f.p, i) == 0 || !clear_error() ||
				    !(strstr(err, "truncated") ||
				      strstr(err, "empty file"))) {
					bad++;
					TH_LOG("t %d z %d length %zu: %s", t,
					       z, i, err);
				}
			}
			EXPECT_EQ(0u, bad);
			kb_diag("v2 %s file%s of %zu bytes: every flip and cut refused",
				t ? "dcf" : "scalable", z ? " (zstd)" : "",
				f.len);
			free(d);
			free(cells);
			free(f.p);
		}
	}
}

/* ---- Versions 3 and 4: another hash function ------------------------ */

/*
 * A filter of SipHash-1-3 is written as 3 (4 with a layout), with the
 * function at byte 164, and reads back as it was; one of SipHash-2-4
 * stays 1 or 2, byte 164 0, readable by a reader of those.
 */
TEST(hash_fn_versions_round_trip)
{
	struct kb_save_header hs[2] = { full_header(64), scalable_header(3) };
	const uint32_t want[2] = { KB_SAVE_VERSION_HASH,
				   KB_SAVE_VERSION_LAYOUT_HASH };
	struct kb_rng rng;
	int t, z;

	kb_rng_seed(&rng, 31);
	for (t = 0; t < 2; t++) {
		for (z = 0; z < 2; z++) {
			struct kb_save_header h = hs[t], back;
			struct sink out = { 0 };
			uint8_t *cells = malloc(h.cell_bytes);
			uint8_t *got = malloc(h.cell_bytes);
			uint8_t raw[KB_SAVE_HEADER_MAX];

			h.shape.hash_fn = KBLOOM_HASH_FN_SIPHASH13;
			EXPECT_EQ(want[t], kb_save_version_for(&h));
			kb_save_encode_header(&h, raw);
			EXPECT_EQ(want[t], raw[8]);
			EXPECT_EQ(KBLOOM_HASH_FN_SIPHASH13, raw[164]);
			kb_rng_bytes(&rng, cells, h.cell_bytes);
			h.flags = z ? KB_SAVE_F_ZSTD : 0;
			ASSERT_EQ(0, write_file(&h, cells, 0, &rng, &out)) {
				TH_LOG("%s", err);
			}
			if (!z)
				EXPECT_EQ(kb_save_header_len(&h) + h.cell_bytes +
					  KB_SAVE_TRAILER_LEN, out.len);
			ASSERT_EQ(0, read_file(out.p, out.len, 0, 0, &rng,
					       &back, got, h.cell_bytes)) {
				TH_LOG("%s", err);
			}
			EXPECT_EQ(want[t], back.version);
			EXPECT_EQ(KBLOOM_HASH_FN_SIPHASH13, back.shape.hash_fn);
			EXPECT_EQ(0, memcmp(cells, got, h.cell_bytes));
			free(out.p);
			free(cells);
			free(got);
		}
		hs[t].shape.hash_fn = KBLOOM_HASH_FN_SIPHASH24;
		EXPECT_EQ(t ? KB_SAVE_VERSION_LAYOUT : KB_SAVE_VERSION,
			  kb_save_version_for(&hs[t]));
	}
}

/* The version and the function must agree; unknown ones are refused. */
TEST(hash_fn_and_version_must_agree)
{
	struct kb_save_header h = bloom_header(4096, 3, 512);
	uint8_t *f = calloc(1, 4096), *g = calloc(1, 4096);
	const size_t n = KB_SAVE_HEADER_LEN + 512;

	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, g);
	h.shape.hash_fn = KBLOOM_HASH_FN_SIPHASH13;
	kb_save_encode_header(&h, f);
	seal(f, n, 512);
	ASSERT_EQ(0, verify_mem(f, n + KB_SAVE_TRAILER_LEN)) {
		TH_LOG("%s", err);
	}
	/* Version 3 with SipHash-2-4 at byte 164. */
	memcpy(g, f, n + KB_SAVE_TRAILER_LEN);
	g[164] = 0;
	seal(g, n, 512);
	EXPECT_EQ(-1, verify_mem(g, n + KB_SAVE_TRAILER_LEN));
	EXPECT_STREQ("savefile t.kbf: hash function 0 (SipHash-2-4) in a format version 3 file, which is for another at byte 164",
		     err);
	/* Version 1 with a hash function: the reserved field. */
	memcpy(g, f, n + KB_SAVE_TRAILER_LEN);
	g[8] = 1;
	seal(g, n, 512);
	EXPECT_EQ(-1, verify_mem(g, n + KB_SAVE_TRAILER_LEN));
	EXPECT_STREQ("savefile t.kbf: reserved field is 0x1, not 0 at byte 164",
		     err);
	/* A function past the known ones. */
	memcpy(g, f, n + KB_SAVE_TRAILER_LEN);
	g[164] = KBLOOM_HASH_FN_MAX + 1;
	seal(g, n, 512);
	EXPECT_EQ(-1, verify_mem(g, n + KB_SAVE_TRAILER_LEN));
	EXPECT_STREQ("savefile t.kbf: hash function 2 unknown, or given for transforms at byte 164",
		     err);
	/* A layout version with a hash function, for a bloom filter. */
	memcpy(g, f, n + KB_SAVE_TRAILER_LEN);
	g[8] = KB_SAVE_VERSION_LAYOUT_HASH;
	EXPECT_EQ(-1, verify_mem(g, n + KB_SAVE_TRAILER_LEN));
	EXPECT_TRUE(clear_error());
	/* Transforms take none. */
	h = bloom_header(4096, 3, 512);
	h.shape.type = KBLOOM_TYPE_TRANSFORMS;
	h.shape.hash_fn = KBLOOM_HASH_FN_SIPHASH13;
	EXPECT_EQ(-1, kb_save_check_header(&h, err, sizeof(err)));
	EXPECT_STREQ("hash function 1 unknown, or given for transforms at byte 164",
		     err);
	free(f);
	free(g);
}

TEST_HARNESS_MAIN
