// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Reading an archive offline (userspace/archive_read.c): engine filters of
 * every type with known keys, written with the savefile writer as windows
 * DIR/NAME.<id>.kbf, read back with kb_archive_open. Every key is found in
 * exactly the windows it was added to (and the archive answers every key
 * exactly as the original filters do), the rate of keys never added is
 * what the shape predicts, and a damaged, truncated or misnamed file in
 * the directory is refused with its name. Other files are ignored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../userspace/archive_read.h"
#include "../../userspace/savefile.h"

static char err[512];

/* A fresh temp directory. */
static char *tmpdir(void)
{
	char *d = strdup("/tmp/kb-archive-test.XXXXXX");

	if (!d || !mkdtemp(d))
		abort();
	return d;
}

static void rmtree(const char *dir)
{
	char *cmd;

	if (asprintf(&cmd, "rm -rf '%s'", dir) < 0)
		abort();
	if (system(cmd))
		abort();
	free(cmd);
}

static char *win_path(const char *dir, const char *name, uint64_t id)
{
	char *p;

	if (asprintf(&p, "%s/%s.%010llu.kbf", dir, name,
		     (unsigned long long)id) < 0)
		abort();
	return p;
}

/* Writes @f as window @id of filter @name into @path, in odd chunks. */
static int write_window(const char *path, const char *name,
			const struct kb_filter *f, const u8 hkey[16],
			uint64_t id, uint64_t packets, const char *dims[],
			bool zstd)
{
	struct kb_save_header h = { 0 };
	struct kb_save_writer *w;
	uint64_t left = kb_filter_mem(f), off = 0;
	FILE *out;
	int ret = -1;
	uint32_t i;

	h.flags = zstd ? KB_SAVE_F_ZSTD : 0;
	snprintf(h.name, sizeof(h.name), "%s", name);
	h.shape.type = f->s.type;
	h.shape.m = f->s.m;
	h.shape.k = f->s.k;
	h.shape.hash_fn = f->s.hash_fn;
	h.shape.cell_bits = f->s.cell_bits;
	h.shape.update = f->s.update;
	h.shape.decrement = f->s.decrement;
	h.shape.subtables = f->s.subtables;
	h.shape.bucket_cells = f->s.bucket_cells;
	h.shape.fp_bits = f->s.fp_bits;
	h.shape.dims = f->s.dims;
	for (i = 0; i < f->s.dims; i++)
		snprintf(h.dim_names[i], KBLOOM_DIM_NAME_MAX, "%s", dims[i]);
	h.digest = KBLOOM_DIGEST_FLOW;
	memcpy(h.hash_key, hkey, 16);
	h.inserts = packets;
	h.windows = 4;
	h.interval_ms = 1000;
	h.window.id = id;
	h.window.start_ns = 1700000000000000000ULL + id * 1000000000ULL;
	h.window.end_ns = h.window.start_ns + 1000000000ULL;
	h.window.packets = packets;
	h.cell_bytes = left;

	out = fopen(path, "wb");
	if (!out)
		return -1;
	w = kb_save_writer_begin(&h, kb_save_stdio_write, out, path, err,
				 sizeof(err));
	if (!w)
		goto out;
	while (left) {
		uint64_t n = left < 1000 + id * 7 ? left : 1000 + id * 7;

		if (kb_save_write_cells(w, (const u8 *)f->mem + off, n))
			goto out;
		off += n;
		left -= n;
	}
	if (kb_save_writer_finish(w))
		goto out;
	ret = 0;
out:
	kb_save_writer_free(w);
	if (fclose(out))
		ret = -1;
	return ret;
}

static void key_of(char *buf, size_t len, unsigned int win, unsigned int i)
{
	snprintf(buf, len, "win%u-key-%06u", win, i);
}

struct type_case {
	const char *what;
	struct kb_shape s;
	unsigned int nkeys;	/* per window */
};

static const struct type_case cases[] = {
	{ "bloom", { .type = KBLOOM_TYPE_BLOOM, .m = 65536, .k = 7 }, 500 },
	{ "partitioned", { .type = KBLOOM_TYPE_PARTITIONED, .m = 65536, .k = 8 }, 500 },
	{ "blocked", { .type = KBLOOM_TYPE_BLOCKED, .m = 65536, .k = 7 }, 500 },
	{ "counting", { .type = KBLOOM_TYPE_COUNTING, .m = 65536, .k = 7,
			.cell_bits = 4 }, 500 },
	{ "dleft", { .type = KBLOOM_TYPE_DLEFT, .m = 4096, .k = 1,
		     .subtables = 4, .bucket_cells = 8, .fp_bits = 16 }, 500 },
	{ "stable", { .type = KBLOOM_TYPE_STABLE, .m = 65536, .k = 3,
		      .cell_bits = 2, .decrement = 10 }, 500 },
	/* Files of version 3: the offline reader hashes as the filter. */
	{ "bloom, siphash-1-3", { .type = KBLOOM_TYPE_BLOOM, .m = 65536, .k = 7,
				  .hash_fn = KBLOOM_HASH_FN_SIPHASH13 }, 500 },
	{ "dleft, siphash-1-3", { .type = KBLOOM_TYPE_DLEFT, .m = 4096, .k = 1,
				  .subtables = 4, .bucket_cells = 8,
				  .fp_bits = 16,
				  .hash_fn = KBLOOM_HASH_FN_SIPHASH13 }, 500 },
};

#define NWIN 4

/* Every type: keys found in exactly their windows, answers as the originals. */
TEST(every_type_keys_in_their_windows)
{
	size_t c;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		const struct type_case *tc = &cases[c];
		struct kb_filter f[NWIN];
		struct kb_archive *a;
		char *dir = tmpdir(), key[32];
		u8 hkey[16], bm[1];
		unsigned int w, i, j, wrong = 0, diff = 0, count_diff = 0;
		struct kb_rng rng;

		kb_rng_seed(&rng, 100 + c);
		kb_rng_bytes(&rng, hkey, sizeof(hkey));
		for (w = 0; w < NWIN; w++) {
			char *p = win_path(dir, "flt", w + 1);

			ASSERT_EQ(0, kb_filter_init(&f[w], &tc->s, hkey));
			for (i = 0; i < tc->nkeys; i++) {
				key_of(key, sizeof(key), w + 1, i);
				kb_filter_add(&f[w], key, strlen(key));
			}
			/* "shared" is in windows 1 and 3 */
			if (w == 0 || w == 2)
				kb_filter_add(&f[w], "shared", 6);
			ASSERT_EQ(0, write_window(p, "flt", &f[w], hkey, w + 1,
						  tc->nkeys, NULL, w & 1)) {
				TH_LOG("%s: %s", tc->what, err);
			}
			free(p);
		}
		ASSERT_EQ(0, kb_archive_open(dir, "flt", &a, err, sizeof(err))) {
			TH_LOG("%s: %s", tc->what, err);
		}
		ASSERT_EQ(NWIN, a->n);
		EXPECT_EQ(tc->s.type, a->type);
		/* Newest first, as QUERY lists windows; metadata kept. */
		for (j = 0; j < NWIN; j++) {
			EXPECT_EQ(NWIN - j, a->w[j].id);
			EXPECT_EQ(tc->nkeys, a->w[j].packets);
			EXPECT_EQ(KBLOOM_DIGEST_FLOW, a->w[j].digest);
			EXPECT_EQ(a->w[j].start_ns + 1000000000ULL,
				  a->w[j].end_ns);
		}
		for (w = 0; w < NWIN; w++) {
			for (i = 0; i < 2 * tc->nkeys; i++) {
				int hits;

				/* i >= nkeys: never added anywhere */
				key_of(key, sizeof(key), w + 1 + (i >= tc->nkeys) * 100, i);
				hits = kb_archive_test(a, key, strlen(key), bm);
				for (j = 0; j < NWIN; j++) {
					/* a->w[j] is window NWIN - j, f[NWIN - 1 - j] */
					const struct kb_filter *o = &f[NWIN - 1 - j];
					bool got = bm[0] >> j & 1;

					diff += got != kb_filter_test(o, key, strlen(key));
					count_diff += kb_filter_count(&a->w[j].f, key, strlen(key)) !=
						kb_filter_count(o, key, strlen(key));
				}
				/* Added keys: exactly their window (stable may forget). */
				if (i < tc->nkeys && tc->s.type != KBLOOM_TYPE_STABLE)
					wrong += hits != 1 || bm[0] != 1u << (NWIN - 1 - w);
			}
		}
		EXPECT_EQ(0u, diff) { TH_LOG("%s", tc->what); }
		EXPECT_EQ(0u, count_diff) { TH_LOG("%s", tc->what); }
		EXPECT_EQ(0u, wrong) { TH_LOG("%s", tc->what); }
		if (tc->s.type != KBLOOM_TYPE_STABLE) {
			EXPECT_EQ(2, kb_archive_test(a, "shared", 6, bm));
			/* windows 1 and 3 are a->w[3] and a->w[1] */
			EXPECT_EQ(0x0a, bm[0]);
		}
		EXPECT_EQ(-1, kb_archive_test_tuple(a, &(struct kb_tuple){ .mask = 1 }, bm));
		kb_archive_close(a);
		for (w = 0; w < NWIN; w++)
			kb_filter_free(&f[w]);
		rmtree(dir);
		free(dir);
	}
	KB_ASSERT_NO_LEAKS();
}

/* Keys never added: the rate the shape predicts, in every window. */
TEST(absent_keys_false_positive_rate)
{
	const struct kb_shape s = { .type = KBLOOM_TYPE_BLOOM, .m = 8192, .k = 4 };
	const unsigned int n = 1000, probes = 40000;
	struct kb_filter f[2];
	struct kb_archive *a;
	char *dir = tmpdir(), key[32];
	unsigned int w, i, fp[2] = { 0, 0 };
	double expect = pow(1 - exp(-(double)s.k * n / s.m), s.k);
	u8 hkey[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	u8 bm[1];

	for (w = 0; w < 2; w++) {
		char *p = win_path(dir, "fpr", w + 7);

		ASSERT_EQ(0, kb_filter_init(&f[w], &s, hkey));
		for (i = 0; i < n; i++) {
			key_of(key, sizeof(key), w, i);
			kb_filter_add(&f[w], key, strlen(key));
		}
		ASSERT_EQ(0, write_window(p, "fpr", &f[w], hkey, w + 7, n,
					  NULL, true)) {
			TH_LOG("%s", err);
		}
		free(p);
	}
	ASSERT_EQ(0, kb_archive_open(dir, "fpr", &a, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	ASSERT_EQ(2, a->n);
	for (i = 0; i < probes; i++) {
		snprintf(key, sizeof(key), "never-added-%u", i);
		kb_archive_test(a, key, strlen(key), bm);
		fp[0] += bm[0] & 1;
		fp[1] += bm[0] >> 1 & 1;
	}
	for (w = 0; w < 2; w++) {
		double rate = (double)fp[w] / probes;

		kb_diag("window %u: false positive rate %.4f, expected %.4f",
			w, rate, expect);
		/* ~890 expected: 6 sigma is about +-180 */
		EXPECT_GT(rate, expect * 0.75);
		EXPECT_LT(rate, expect * 1.25);
	}
	kb_archive_close(a);
	kb_filter_free(&f[0]);
	kb_filter_free(&f[1]);
	rmtree(dir);
	free(dir);
	KB_ASSERT_NO_LEAKS();
}

/* Multi: tuples of any non-empty subset of dimensions. */
TEST(multi_tuples)
{
	const struct kb_shape s = { .type = KBLOOM_TYPE_MULTI, .m = 65536,
				    .k = 7, .dims = 3 };
	const char *dims[] = { "src", "dst", "dport" };
	struct kb_filter f[3];
	struct kb_archive *a;
	char *dir = tmpdir(), v[3][24];
	u8 hkey[16] = { 9 }, bm[1];
	unsigned int w, i, wrong = 0, m;

	for (w = 0; w < 3; w++) {
		char *p = win_path(dir, "mt", w + 1);

		ASSERT_EQ(0, kb_filter_init(&f[w], &s, hkey));
		for (i = 0; i < 300; i++) {
			struct kb_tuple t = { .mask = 7 };

			for (m = 0; m < 3; m++) {
				snprintf(v[m], sizeof(v[m]), "w%u-d%u-%u", w, m, i);
				t.val[m] = v[m];
				t.len[m] = strlen(v[m]);
			}
			ASSERT_EQ(0, kb_filter_add_tuple(&f[w], &t));
		}
		ASSERT_EQ(0, write_window(p, "mt", &f[w], hkey, w + 1, 300,
					  dims, w == 1)) {
			TH_LOG("%s", err);
		}
		free(p);
	}
	ASSERT_EQ(0, kb_archive_open(dir, "mt", &a, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_EQ(3u, a->dims);
	EXPECT_STREQ("dport", a->dim_names[2]);
	EXPECT_EQ(-1, kb_archive_test(a, "x", 1, bm));
	for (w = 0; w < 3; w++) {
		for (i = 0; i < 300; i++) {
			for (m = 1; m < 8; m++) {
				struct kb_tuple t = { .mask = m };
				unsigned int d;

				for (d = 0; d < 3; d++) {
					snprintf(v[d], sizeof(v[d]), "w%u-d%u-%u", w, d, i);
					t.val[d] = v[d];
					t.len[d] = strlen(v[d]);
				}
				wrong += kb_archive_test_tuple(a, &t, bm) != 1 ||
					 bm[0] != 1u << (2 - w);
			}
		}
	}
	EXPECT_EQ(0u, wrong);
	kb_archive_close(a);
	for (w = 0; w < 3; w++)
		kb_filter_free(&f[w]);
	rmtree(dir);
	free(dir);
	KB_ASSERT_NO_LEAKS();
}

/* A directory with three good windows and then one bad file. */
static char *good_dir(struct kb_filter *f, u8 *hkey)
{
	const struct kb_shape s = { .type = KBLOOM_TYPE_BLOOM, .m = 4096, .k = 3 };
	char *dir = tmpdir();
	unsigned int w;

	if (kb_filter_init(f, &s, hkey))
		abort();
	kb_filter_add(f, "k", 1);
	for (w = 1; w <= 3; w++) {
		char *p = win_path(dir, "d", w);

		if (write_window(p, "d", f, hkey, w, 1, NULL, w == 2))
			abort();
		free(p);
	}
	return dir;
}

static void flip_byte(const char *path, long off)
{
	FILE *f = fopen(path, "r+b");
	int c;

	if (!f || fseek(f, off, SEEK_SET) || (c = fgetc(f)) == EOF ||
	    fseek(f, off, SEEK_SET) || fputc(c ^ 0x10, f) == EOF || fclose(f))
		abort();
}

TEST(damaged_files_refused_with_their_name)
{
	struct kb_filter f;
	struct kb_archive *a;
	u8 hkey[16] = { 7 };
	char *dir = good_dir(&f, hkey), *p, *q;
	struct stat st;

	/* Others in the directory are not archive files: ignored. */
	p = NULL;
	if (asprintf(&p, "%s/d.0000000009.kbf.tmp", dir) < 0)
		abort();
	fclose(fopen(p, "w"));
	free(p);
	if (asprintf(&p, "%s/dd.0000000001.kbf", dir) < 0)
		abort();
	fclose(fopen(p, "w"));
	free(p);
	if (asprintf(&p, "%s/d.x.kbf", dir) < 0)
		abort();
	fclose(fopen(p, "w"));
	free(p);
	ASSERT_EQ(0, kb_archive_open(dir, "d", &a, err, sizeof(err))) {
		TH_LOG("%s", err);
	}
	EXPECT_EQ(3u, a->n);
	EXPECT_EQ(3, kb_archive_test(a, "k", 1, NULL));
	kb_archive_close(a);

	/* A cell byte flipped in window 3 (uncompressed). */
	p = win_path(dir, "d", 3);
	flip_byte(p, KB_SAVE_HEADER_LEN + 100);
	a = (void *)1;
	EXPECT_EQ(-1, kb_archive_open(dir, "d", &a, err, sizeof(err)));
	EXPECT_EQ(NULL, a);
	EXPECT_NE(NULL, strstr(err, p)) { TH_LOG("%s", err); }
	EXPECT_NE(NULL, strstr(err, "CRC")) { TH_LOG("%s", err); }
	kb_diag("%s", err);
	flip_byte(p, KB_SAVE_HEADER_LEN + 100);
	ASSERT_EQ(0, kb_archive_open(dir, "d", &a, err, sizeof(err)));
	kb_archive_close(a);

	/* Window 2 (compressed) truncated. */
	q = win_path(dir, "d", 2);
	ASSERT_EQ(0, stat(q, &st));
	ASSERT_EQ(0, truncate(q, st.st_size - 9));
	EXPECT_EQ(-1, kb_archive_open(dir, "d", &a, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, q)) { TH_LOG("%s", err); }
	EXPECT_NE(NULL, strstr(err, "truncated")) { TH_LOG("%s", err); }
	kb_diag("%s", err);
	unlink(q);

	/* A file whose name says another window than it holds. */
	free(q);
	q = win_path(dir, "d", 12);
	ASSERT_EQ(0, rename(p, q));
	EXPECT_EQ(-1, kb_archive_open(dir, "d", &a, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, q)) { TH_LOG("%s", err); }
	EXPECT_NE(NULL, strstr(err, "holds window 3")) { TH_LOG("%s", err); }
	kb_diag("%s", err);

	/* No window files at all; a missing directory. */
	EXPECT_EQ(-1, kb_archive_open(dir, "nosuch", &a, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "no window files")) { TH_LOG("%s", err); }
	EXPECT_EQ(-1, kb_archive_open("/nonexistent-dir", "d", &a, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "/nonexistent-dir")) { TH_LOG("%s", err); }

	free(p);
	free(q);
	kb_filter_free(&f);
	rmtree(dir);
	free(dir);
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
