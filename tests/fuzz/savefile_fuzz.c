// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the save-file reader (userspace/savefile.c), plain and
 * zstd, as restore and 'query ... archive' use it, with the engine's shape
 * check (archive_read.c) and the cells loaded into an engine filter that
 * is then queried (the archive reader's path, in memory).
 *
 * Input: a whole save file, read through a memory callback.
 * Invariants (a trap when broken):
 * - kb_save_verify gives the same verdict whether the callback returns
 *   everything at once or a few bytes at a time;
 * - verification with the engine's cell size accepts only what the plain
 *   verification accepts, and the streaming reader (open, expect, cells,
 *   finish) accepts exactly what it accepts;
 * - an accepted header passes kb_save_check_header; an accepted file
 *   written again by the writer from its header and cells is the same
 *   file, byte for byte, when plain (and verifies when compressed);
 * - a failed reader stays failed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "archive_read.h"
#include "savefile.h"
#include "fuzz_common.h"

/* Files claiming more cells than this are not loaded into a filter. */
#define LOAD_MAX	(64u << 20)

struct src {
	const uint8_t *p;
	size_t len, pos, step;
};

static ssize_t src_read(void *arg, void *buf, size_t len)
{
	struct src *s = arg;
	size_t n = s->len - s->pos;

	if (n > len)
		n = len;
	if (s->step && n > s->step)
		n = s->step;
	memcpy(buf, s->p + s->pos, n);
	s->pos += n;
	return n;
}

struct sink {
	uint8_t *p;
	size_t len, cap;
};

static int sink_write(void *arg, const void *buf, size_t len)
{
	struct sink *s = arg;

	if (s->len + len > s->cap) {
		size_t cap = (s->len + len) * 2;
		uint8_t *p = realloc(s->p, cap);

		if (!p) {
			errno = ENOMEM;
			return -1;
		}
		s->p = p;
		s->cap = cap;
	}
	memcpy(s->p + s->len, buf, len);
	s->len += len;
	return 0;
}

static int verify(const uint8_t *data, size_t size, size_t step,
		  bool engine, struct kb_save_header *h, char *err,
		  size_t errlen)
{
	struct src s = { data, size, 0, step };

	err[0] = 0;
	return kb_save_verify(src_read, &s, "fuzz.kbf",
			      engine ? kb_save_engine_cell_bytes : NULL, NULL,
			      h, err, errlen);
}

/* A few keys against the loaded filter: the engine on cells it never made. */
static void query_filter(struct kb_filter *f, const struct kb_save_header *h,
			 const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "a", "10.0.0.1", "0123456789abcdef",
					    "" };
	struct kb_fill fill;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const void *k = keys[i];
		size_t len = strlen(keys[i]);

		if (!len) {	/* the input's first bytes as one more key */
			k = data;
			len = size < 64 ? size : 64;
		}
		if (kb_filter_is_multi(f)) {
			struct kb_tuple t;
			uint32_t d;

			memset(&t, 0, sizeof(t));
			for (d = 0; d < h->shape.dims; d++) {
				t.mask |= 1u << d;
				t.val[d] = k;
				t.len[d] = len;
			}
			kb_filter_test_tuple(f, &t);
			t.mask = 1;
			kb_filter_test_tuple(f, &t);
			continue;
		}
		kb_filter_test(f, k, len);
		if (kb_filter_can_count(f))
			kb_filter_count(f, k, len);
		if (kb_filter_can_delete(f))
			kb_filter_del(f, k, len);
		kb_filter_add(f, k, len);
		FUZZ_CHECK(kb_filter_test(f, k, len),
			   "type %u: a key added to a loaded filter is absent",
			   h->shape.type);
	}
	kb_filter_fill(f, &fill);
}

/*
 * The streaming reader, as the archive reader loads a window: returns 0
 * when the file was accepted, -1 when refused, 1 when not tried (too big).
 */
static int load(const uint8_t *data, size_t size, size_t step, bool cb,
		struct kb_save_header *out)
{
	struct src s = { data, size, 0, step };
	struct kb_save_reader *r;
	const struct kb_save_header *h;
	struct kb_filter f;
	struct kb_shape shape;
	char err[512];
	uint64_t want, got = 0;
	bool have_filter = false;
	int ret = -1;
	ssize_t n;

	r = kb_save_reader_open(src_read, &s, "fuzz.kbf", err, sizeof(err));
	if (!r)
		return -1;
	h = kb_save_reader_header(r);
	want = kb_save_engine_cell_bytes(h, NULL);
	if (want != UINT64_MAX && want > LOAD_MAX) {
		kb_save_reader_free(r);
		return 1;
	}
	if (kb_save_reader_expect(r, want)) {
		/* Failed readers stay failed. */
		FUZZ_CHECK(kb_save_read_cells(r, err, 1) == -1,
			   "cells read after a failed expect");
		FUZZ_CHECK(kb_save_reader_finish(r) == -1,
			   "finish after a failed expect");
		goto out;
	}
	kb_save_engine_shape(h, &shape);
	FUZZ_CHECK(kb_filter_init(&f, &shape, h->hash_key) == 0,
		   "engine refuses a shape its check accepted (type %u)",
		   h->shape.type);
	have_filter = true;
	FUZZ_CHECK(kb_filter_mem(&f) == h->cell_bytes,
		   "engine memory %llu, file cells %llu",
		   (unsigned long long)kb_filter_mem(&f),
		   (unsigned long long)h->cell_bytes);
	if (cb) {
		struct sink sk = { (uint8_t *)f.mem, 0, h->cell_bytes };

		if (kb_save_read_cells_cb(r, sink_write, &sk))
			goto out;
		got = sk.len;
		FUZZ_CHECK(sk.p == (uint8_t *)f.mem, "sink grew");
	} else {
		while (got < h->cell_bytes) {
			/* Odd chunk sizes: 1, 3, 7 ... 4095 bytes. */
			size_t chunk = ((got / 8) % 12 + 1);

			chunk = ((size_t)1 << chunk) - 1;
			n = kb_save_read_cells(r, (uint8_t *)f.mem + got, chunk);
			if (n <= 0) {
				FUZZ_CHECK(n < 0, "read_cells gave 0 with %llu left",
					   (unsigned long long)(h->cell_bytes - got));
				goto out;
			}
			FUZZ_CHECK((size_t)n <= chunk, "read_cells overran");
			got += n;
		}
		FUZZ_CHECK(kb_save_read_cells(r, err, 16) == 0,
			   "cells past the end");
	}
	FUZZ_CHECK(got == h->cell_bytes, "got %llu cells of %llu",
		   (unsigned long long)got, (unsigned long long)h->cell_bytes);
	if (kb_save_reader_finish(r))
		goto out;
	FUZZ_CHECK(kb_save_reader_finish(r) == -1, "finished twice");
	*out = *h;
	query_filter(&f, h, data, size);
	ret = 0;
out:
	if (have_filter)
		kb_filter_free(&f);
	kb_save_reader_free(r);
	return ret;
}

/* An accepted file, written again from what was read. */
static void rewrite(const uint8_t *data, size_t size,
		    const struct kb_save_header *h)
{
	struct src s = { data, size, 0, 0 };
	struct kb_save_reader *r;
	struct kb_save_writer *w;
	struct sink out = { NULL, 0, 0 };
	char err[512], werr[512];
	uint8_t buf[4096];
	ssize_t n;
	int rc;

	if (h->cell_bytes > LOAD_MAX)
		return;
	r = kb_save_reader_open(src_read, &s, "fuzz.kbf", err, sizeof(err));
	FUZZ_CHECK(r, "accepted file refused on reopen: %s", err);
	FUZZ_CHECK(!kb_save_reader_expect(r, h->cell_bytes), "%s", err);
	w = kb_save_writer_begin(h, sink_write, &out, "out.kbf", werr,
				 sizeof(werr));
	FUZZ_CHECK(w, "the writer refuses an accepted header: %s", werr);
	while ((n = kb_save_read_cells(r, buf, sizeof(buf))) > 0)
		FUZZ_CHECK(!kb_save_write_cells(w, buf, n), "%s", werr);
	FUZZ_CHECK(n == 0, "%s", err);
	FUZZ_CHECK(!kb_save_reader_finish(r), "%s", err);
	FUZZ_CHECK(!kb_save_writer_finish(w), "%s", werr);
	kb_save_writer_free(w);
	kb_save_reader_free(r);
	if (!(h->flags & KB_SAVE_F_ZSTD)) {
		FUZZ_CHECK(out.len == size && !memcmp(out.p, data, size),
			   "plain file written again differs (%zu vs %zu bytes)",
			   out.len, size);
	} else {
		struct kb_save_header h2;

		rc = verify(out.p, out.len, 0, false, &h2, err, sizeof(err));
		FUZZ_CHECK(rc == 0, "rewritten compressed file refused: %s",
			   err);
		FUZZ_CHECK(!memcmp(&h2, h, sizeof(h2)),
			   "rewritten compressed file has another header");
	}
	free(out.p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kb_save_header ha, hb, hc, hd;
	char erra[512], errb[512], errc[512];
	size_t step;
	int ra, rb, rc, rd;

	memset(&ha, 0, sizeof(ha));
	memset(&hd, 0, sizeof(hd));
	ra = verify(data, size, 0, false, &ha, erra, sizeof(erra));
	FUZZ_CHECK(ra == 0 || erra[0], "refused without a reason");
	/* A few bytes at a time: 1..16, from the input's length. */
	step = 1 + size % 16;
	rb = verify(data, size, step, false, &hb, errb, sizeof(errb));
	FUZZ_CHECK(ra == rb, "verify: %d reading it whole ('%s'), %d reading %zu bytes at a time ('%s')",
		   ra, erra, rb, step, errb);
	rc = verify(data, size, 0, true, &hc, errc, sizeof(errc));
	FUZZ_CHECK(rc == -1 || ra == 0,
		   "accepted with the engine's cell size, refused without");
	rd = load(data, size, size % 3 ? step : 0, size & 1, &hd);
	if (rd != 1)
		FUZZ_CHECK(rd == rc, "streaming reader says %d, verify %d ('%s')",
			   rd, rc, errc);
	if (ra)
		return 0;
	FUZZ_CHECK(!memcmp(&ha, &hb, sizeof(ha)), "headers differ by chunking");
	FUZZ_CHECK(!kb_save_check_header(&ha, errb, sizeof(errb)),
		   "accepted header fails the check: %s", errb);
	rewrite(data, size, &ha);
	return 0;
}
