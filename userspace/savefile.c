// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The kbloom save file: writer, reader and checks. The format is specified
 * in savefile.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "savefile.h"
#include "sizing.h"
#include "textutil.h"

#define CHUNK		65536	/* raw read size and push chunk size */

/* ---- CRC32C, slice-by-8, tables built once at load ------------------- */

static uint32_t crc_tab[8][256];

static void __attribute__((constructor)) crc_init(void)
{
	uint32_t c;
	int i, j;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c >> 1) ^ (0x82f63b78u & -(c & 1));
		crc_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc_tab[j][i] = (crc_tab[j - 1][i] >> 8) ^
					crc_tab[0][crc_tab[j - 1][i] & 0xff];
}

uint32_t kb_save_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	crc = ~crc;
	while (len >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);

		crc = crc_tab[7][lo & 0xff] ^ crc_tab[6][(lo >> 8) & 0xff] ^
		      crc_tab[5][(lo >> 16) & 0xff] ^ crc_tab[4][lo >> 24] ^
		      crc_tab[3][p[4]] ^ crc_tab[2][p[5]] ^
		      crc_tab[1][p[6]] ^ crc_tab[0][p[7]];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

/* ---- Little-endian fields ------------------------------------------- */

static void put32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* Offsets of savefile.h's table. */
enum {
	O_MAGIC = 0, O_VERSION = 8, O_FLAGS = 12, O_NAME = 16, O_TYPE = 48,
	O_K = 52, O_M = 56, O_CELL_BITS = 64, O_UPDATE = 68,
	O_DECREMENT = 72, O_SUBTABLES = 76, O_BUCKET_CELLS = 80,
	O_FP_BITS = 84, O_DIMS = 88, O_DIGEST = 92, O_CAPACITY = 96,
	O_HASH_KEY = 104, O_INSERTS = 120, O_QUERIES = 128,
	O_POSITIVES = 136, O_DELETES = 144, O_GENERATION = 152,
	O_WINDOWS = 160, O_RESERVED = 164, O_HASH_FN = 164, O_INTERVAL = 168, O_WIN_ID = 176,
	O_WIN_START = 184, O_WIN_END = 192, O_WIN_PACKETS = 200,
	O_DIM_NAMES = 208, O_CELL_BYTES = 336,
	/* Version 2 */
	O_GROWTH = 344, O_TIGHTEN = 348, O_OFV_BITS = 352, O_NSLICES = 356,
	O_CURRENT = 360, O_RESERVED2 = 364, O_OVERFLOW = 368, O_SLICES = 376,
	/* in a slice entry */
	OS_M = 0, OS_K = 8, OS_RESERVED = 12, OS_CAPACITY = 16, OS_KEYS = 24,
};

_Static_assert(O_GROWTH == KB_SAVE_LAYOUT_OFF, "layout");
_Static_assert(O_SLICES == KB_SAVE_SLICE_OFF, "slice table");
_Static_assert(O_SLICES + KBLOOM_SLICES_MAX * KB_SAVE_SLICE_LEN ==
	       KB_SAVE_HEADER_V2_LEN, "v2 header length");

/*
 * Where each of the shape's parameters (the engine's kb_params[]) lies in
 * the header, and its words in a refusal; off 0: not a field of its own
 * there (hash function: by version; growth, tighten: the layout's).
 */
static const struct {
	uint16_t off;
	const char *what;
} param_at[KB_P_NUM] = {
	[KB_P_COUNTER_BITS] = { O_CELL_BITS, "counter bits" },
	[KB_P_UPDATE] = { O_UPDATE, "update rule" },
	[KB_P_DECREMENT] = { O_DECREMENT, "decrement" },
	[KB_P_SUBTABLES] = { O_SUBTABLES, "subtables" },
	[KB_P_BUCKET_CELLS] = { O_BUCKET_CELLS, "bucket cells" },
	[KB_P_FP_BITS] = { O_FP_BITS, "fingerprint bits" },
	[KB_P_DIMS] = { O_DIMS, "dims" },
};

static bool grows(uint32_t type)
{
	return type == KBLOOM_TYPE_SCALABLE || type == KBLOOM_TYPE_DCF;
}

/* Versions 2 and 4 carry a layout; 3 and 4 a hash function. */
static bool has_layout(uint32_t version)
{
	return version == KB_SAVE_VERSION_LAYOUT ||
	       version == KB_SAVE_VERSION_LAYOUT_HASH;
}

static bool has_hash_fn(uint32_t version)
{
	return version == KB_SAVE_VERSION_HASH ||
	       version == KB_SAVE_VERSION_LAYOUT_HASH;
}

/*
 * A filter of SipHash-2-4 keeps the version an older reader knows; one of
 * another hash function takes a version that reader refuses, rather than
 * being read as SipHash-2-4 and answering wrong.
 */
uint32_t kb_save_version_for(const struct kb_save_header *h)
{
	bool layout = grows(h->shape.type);

	if (h->shape.hash_fn)
		return layout ? KB_SAVE_VERSION_LAYOUT_HASH :
		       KB_SAVE_VERSION_HASH;
	return layout ? KB_SAVE_VERSION_LAYOUT : KB_SAVE_VERSION;
}

size_t kb_save_header_len(const struct kb_save_header *h)
{
	return grows(h->shape.type) ? KB_SAVE_HEADER_V2_LEN :
	       KB_SAVE_HEADER_LEN;
}

uint64_t kb_save_layout_cell_bytes(const struct kb_save_header *h)
{
	uint64_t bytes = 0;
	uint32_t i;

	switch (h->shape.type) {
	case KBLOOM_TYPE_SCALABLE:
		if (h->nslices < 1 || h->nslices > KBLOOM_SLICES_MAX)
			return UINT64_MAX;
		for (i = 0; i < h->nslices; i++) {
			if (h->slice[i].m > KBLOOM_BITS_MAX)
				return UINT64_MAX;
			bytes += sizing_vec_bytes(h->slice[i].m, 1);
		}
		return bytes;
	case KBLOOM_TYPE_DCF:
		if (h->shape.m > KBLOOM_BITS_MAX || h->shape.cell_bits > 8 ||
		    h->ofv_bits > 32)
			return UINT64_MAX;
		return sizing_vec_bytes(h->shape.m, h->shape.cell_bits) +
		       sizing_vec_bytes(h->shape.m, h->ofv_bits);
	}
	return 0;
}

_Static_assert(O_DIM_NAMES + KBLOOM_DIMS_MAX * KBLOOM_DIM_NAME_MAX ==
	       O_CELL_BYTES, "dim names");
_Static_assert(O_CELL_BYTES + 8 == KB_SAVE_HEADER_LEN, "header length");
_Static_assert(O_NAME + KBLOOM_NAME_MAX == O_TYPE, "name");

void kb_save_encode_header(const struct kb_save_header *h, uint8_t *out)
{
	const struct kb_shape *s = &h->shape;
	uint32_t i;

	memset(out, 0, kb_save_header_len(h));
	memcpy(out + O_MAGIC, KB_SAVE_MAGIC, 8);
	put32(out + O_VERSION, kb_save_version_for(h));
	put32(out + O_FLAGS, h->flags);
	memcpy(out + O_NAME, h->name, KBLOOM_NAME_MAX);
	put32(out + O_TYPE, s->type);
	put32(out + O_K, s->k);
	put64(out + O_M, s->m);
	for (i = 0; i < KB_P_NUM; i++)
		if (param_at[i].off)
			put32(out + param_at[i].off,
			      kb_shape_get(s, &kb_params[i]));
	put32(out + O_DIGEST, h->digest);
	put64(out + O_CAPACITY, h->capacity);
	memcpy(out + O_HASH_KEY, h->hash_key, KBLOOM_HASH_KEY_LEN);
	put64(out + O_INSERTS, h->inserts);
	put64(out + O_QUERIES, h->queries);
	put64(out + O_POSITIVES, h->positives);
	put64(out + O_DELETES, h->deletes);
	put64(out + O_GENERATION, h->generation);
	put32(out + O_WINDOWS, h->windows);
	put32(out + O_HASH_FN, s->hash_fn);
	put64(out + O_INTERVAL, h->interval_ms);
	put64(out + O_WIN_ID, h->window.id);
	put64(out + O_WIN_START, h->window.start_ns);
	put64(out + O_WIN_END, h->window.end_ns);
	put64(out + O_WIN_PACKETS, h->window.packets);
	memcpy(out + O_DIM_NAMES, h->dim_names, sizeof(h->dim_names));
	put64(out + O_CELL_BYTES, h->cell_bytes);
	if (!grows(s->type))
		return;
	put32(out + O_GROWTH, s->growth);
	put32(out + O_TIGHTEN, s->tighten);
	put32(out + O_OFV_BITS, h->ofv_bits);
	put32(out + O_NSLICES, h->nslices);
	put32(out + O_CURRENT, h->current);
	put64(out + O_OVERFLOW, h->overflow);
	for (i = 0; i < KBLOOM_SLICES_MAX; i++) {
		uint8_t *e = out + O_SLICES + i * KB_SAVE_SLICE_LEN;

		put64(e + OS_M, h->slice[i].m);
		put32(e + OS_K, h->slice[i].k);
		put64(e + OS_CAPACITY, h->slice[i].capacity);
		put64(e + OS_KEYS, h->slice[i].keys);
	}
}

void kb_save_decode_header(const uint8_t *in, struct kb_save_header *h)
{
	struct kb_shape *s = &h->shape;
	uint32_t i;

	memset(h, 0, sizeof(*h));
	h->version = get32(in + O_VERSION);
	h->flags = get32(in + O_FLAGS);
	memcpy(h->name, in + O_NAME, KBLOOM_NAME_MAX);
	s->type = get32(in + O_TYPE);
	s->k = get32(in + O_K);
	s->m = get64(in + O_M);
	for (i = 0; i < KB_P_NUM; i++)
		if (param_at[i].off)
			kb_shape_set(s, &kb_params[i],
				     get32(in + param_at[i].off));
	h->digest = get32(in + O_DIGEST);
	h->capacity = get64(in + O_CAPACITY);
	memcpy(h->hash_key, in + O_HASH_KEY, KBLOOM_HASH_KEY_LEN);
	h->inserts = get64(in + O_INSERTS);
	h->queries = get64(in + O_QUERIES);
	h->positives = get64(in + O_POSITIVES);
	h->deletes = get64(in + O_DELETES);
	h->generation = get64(in + O_GENERATION);
	h->windows = get32(in + O_WINDOWS);
	if (has_hash_fn(h->version))
		s->hash_fn = get32(in + O_HASH_FN);
	h->interval_ms = get64(in + O_INTERVAL);
	h->window.id = get64(in + O_WIN_ID);
	h->window.start_ns = get64(in + O_WIN_START);
	h->window.end_ns = get64(in + O_WIN_END);
	h->window.packets = get64(in + O_WIN_PACKETS);
	memcpy(h->dim_names, in + O_DIM_NAMES, sizeof(h->dim_names));
	h->cell_bytes = get64(in + O_CELL_BYTES);
	if (!has_layout(h->version))
		return;
	s->growth = get32(in + O_GROWTH);
	s->tighten = get32(in + O_TIGHTEN);
	h->ofv_bits = get32(in + O_OFV_BITS);
	h->nslices = get32(in + O_NSLICES);
	h->current = get32(in + O_CURRENT);
	h->overflow = get64(in + O_OVERFLOW);
	for (i = 0; i < KBLOOM_SLICES_MAX; i++) {
		const uint8_t *e = in + O_SLICES + i * KB_SAVE_SLICE_LEN;

		h->slice[i].m = get64(e + OS_M);
		h->slice[i].k = get32(e + OS_K);
		h->slice[i].capacity = get64(e + OS_CAPACITY);
		h->slice[i].keys = get64(e + OS_KEYS);
	}
}

/* ---- Header checks -------------------------------------------------- */

/* A NUL-terminated, NUL-padded field of 1..size-1 bytes that @ok accepts. */
static bool field_ok(const char *f, size_t size, bool (*ok)(unsigned char))
{
	size_t i, len = strnlen(f, size);

	if (len == 0 || len == size)
		return false;
	for (i = 0; i < len; i++)
		if (!ok(f[i]))
			return false;
	for (i = len; i < size; i++)
		if (f[i])
			return false;
	return true;
}

static bool name_char(unsigned char c)
{
	return c > 0x20 && c < 0x7f && c != '/';
}

static bool dim_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-';
}

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

#define BAD(off, ...) do { \
	char why_[160]; \
	snprintf(why_, sizeof(why_), __VA_ARGS__); \
	kb_seterr(err, errlen, "%s at byte %d", why_, (int)(off)); \
	return -1; \
} while (0)

/* A parameter the type does not take must be 0. */
#define ZERO(field, off, what) do { \
	if (s->field) \
		BAD(off, "%s %" PRIu32 " given for a type without it", \
		    what, (uint32_t)s->field); \
} while (0)

/* Slice @i of the table: checked alone, and slice 0 against the shape. */
static int check_slice(const struct kb_save_header *h, uint32_t i, char *err,
		       size_t errlen)
{
	const struct kb_save_slice *sl = &h->slice[i];
	int off = O_SLICES + i * KB_SAVE_SLICE_LEN;

	if (i >= h->nslices) {
		if (sl->m || sl->k || sl->capacity || sl->keys)
			BAD(off, "slice table entry %" PRIu32 " set past the %" PRIu32 " slices",
			    i, h->nslices);
		return 0;
	}
	if (sl->m < KBLOOM_BITS_MIN || sl->m > KBLOOM_BITS_MAX || sl->m % 64 ||
	    (!i && sl->m != (h->shape.m + 63) / 64 * 64))
		BAD(off + OS_M, "slice %" PRIu32 " bits %" PRIu64 " out of range or not the multiple of 64 its place needs",
		    i, sl->m);
	if (sl->k < 1 || sl->k > KBLOOM_HASHES_MAX || (!i && sl->k != h->shape.k))
		BAD(off + OS_K, "slice %" PRIu32 " hashes %" PRIu32 " out of range 1..%d (slice 0: the filter's)",
		    i, sl->k, KBLOOM_HASHES_MAX);
	if (!sl->capacity || (!i && sl->capacity != h->capacity))
		BAD(off + OS_CAPACITY, "slice %" PRIu32 " capacity %" PRIu64 " is 0 or (slice 0) not the filter's",
		    i, sl->capacity);
	return 0;
}

/* The version 2 layout of a scalable filter or a dcf; none for the others. */
static int check_layout(const struct kb_save_header *h, char *err,
			size_t errlen)
{
	const struct kb_shape *s = &h->shape;
	uint64_t want;
	uint32_t i;

	if (!grows(s->type)) {
		if (s->growth || s->tighten || h->ofv_bits || h->nslices ||
		    h->current || h->overflow)
			BAD(O_TYPE, "layout (version 2) fields for type %" PRIu32 ", which has none",
			    s->type);
		for (i = 0; i < KBLOOM_SLICES_MAX; i++)
			if (h->slice[i].m || h->slice[i].k ||
			    h->slice[i].capacity || h->slice[i].keys)
				BAD(O_TYPE, "a slice table for type %" PRIu32 ", which has none",
				    s->type);
		return 0;
	}
	if (h->windows)
		BAD(O_WINDOWS, "windows %" PRIu32 " for a scalable or dcf filter (none)",
		    h->windows);
	if (h->window.id)
		BAD(O_WIN_ID, "window id %" PRIu64 " for a scalable or dcf filter",
		    h->window.id);
	if (s->type == KBLOOM_TYPE_DCF) {
		ZERO(growth, O_GROWTH, "growth");
		ZERO(tighten, O_TIGHTEN, "tighten");
		if (h->ofv_bits < 1 || h->ofv_bits > 32 ||
		    (h->ofv_bits & (h->ofv_bits - 1)))
			BAD(O_OFV_BITS, "overflow counter bits %" PRIu32 " not 1, 2, 4, 8, 16 or 32",
			    h->ofv_bits);
		if (h->nslices)
			BAD(O_NSLICES, "slices %" PRIu32 " for a dcf (0)",
			    h->nslices);
		if (h->current)
			BAD(O_CURRENT, "current slice %" PRIu32 " for a dcf (0)",
			    h->current);
	} else {
		if (s->growth < KBLOOM_GROWTH_MIN || s->growth > KBLOOM_GROWTH_MAX)
			BAD(O_GROWTH, "growth %" PRIu32 " out of range %d..%d",
			    s->growth, KBLOOM_GROWTH_MIN, KBLOOM_GROWTH_MAX);
		if (s->tighten < KBLOOM_TIGHTEN_MIN ||
		    s->tighten > KBLOOM_TIGHTEN_MAX)
			BAD(O_TIGHTEN, "tighten %" PRIu32 " out of range %d..%d",
			    s->tighten, KBLOOM_TIGHTEN_MIN, KBLOOM_TIGHTEN_MAX);
		if (!h->capacity || h->capacity > s->m)
			BAD(O_CAPACITY, "capacity %" PRIu64 " of a scalable filter not 1..bits",
			    h->capacity);
		if (h->ofv_bits)
			BAD(O_OFV_BITS, "overflow counter bits %" PRIu32 " for a scalable filter (0)",
			    h->ofv_bits);
		if (h->nslices < 1 || h->nslices > KBLOOM_SLICES_MAX)
			BAD(O_NSLICES, "slices %" PRIu32 " out of range 1..%d",
			    h->nslices, KBLOOM_SLICES_MAX);
		if (h->current >= h->nslices)
			BAD(O_CURRENT, "current slice %" PRIu32 " of %" PRIu32 " slices",
			    h->current, h->nslices);
	}
	for (i = 0; i < KBLOOM_SLICES_MAX; i++)
		if (check_slice(h, i, err, errlen))
			return -1;
	want = kb_save_layout_cell_bytes(h);
	if (h->cell_bytes != want)
		BAD(O_CELL_BYTES, "cell size %" PRIu64 " but the layout needs %" PRIu64,
		    h->cell_bytes, want);
	return 0;
}

int kb_save_check_header(const struct kb_save_header *h, char *err,
			 size_t errlen)
{
	const struct kb_shape *s = &h->shape;
	uint32_t i;

	if (h->flags & ~KB_SAVE_F_MASK)
		BAD(O_FLAGS, "unknown flags 0x%" PRIx32,
		    h->flags & ~KB_SAVE_F_MASK);
	if (!field_ok(h->name, KBLOOM_NAME_MAX, name_char))
		BAD(O_NAME, "bad filter name (1..%d printable bytes without space or '/', NUL-padded)",
		    KBLOOM_NAME_MAX - 1);
	if (s->type < 1 || s->type > KBLOOM_TYPE_MAX)
		BAD(O_TYPE, "unknown filter type %" PRIu32, s->type);
	if (s->k < 1 || s->k > KBLOOM_HASHES_MAX)
		BAD(O_K, "hashes %" PRIu32 " out of range 1..%d", s->k,
		    KBLOOM_HASHES_MAX);
	if (s->m < KBLOOM_BITS_MIN || s->m > KBLOOM_BITS_MAX)
		BAD(O_M, "bits %" PRIu64 " out of range %llu..%llu", s->m,
		    KBLOOM_BITS_MIN, KBLOOM_BITS_MAX);
	if (s->hash_fn > KBLOOM_HASH_FN_MAX ||
	    (s->hash_fn && s->type == KBLOOM_TYPE_TRANSFORMS))
		BAD(O_HASH_FN, "hash function %" PRIu32 " unknown, or given for transforms",
		    s->hash_fn);
	switch (s->type) {
	case KBLOOM_TYPE_BLOOM:
	case KBLOOM_TYPE_PARTITIONED:
	case KBLOOM_TYPE_BLOCKED:
	case KBLOOM_TYPE_MULTI:
	case KBLOOM_TYPE_SCALABLE:
		if (s->cell_bits > 1)
			BAD(O_CELL_BITS, "counter bits %" PRIu32 " for a bit filter",
			    s->cell_bits);
		break;
	case KBLOOM_TYPE_DCF:
		if (s->cell_bits != 2 && s->cell_bits != 4 &&
		    s->cell_bits != 8)
			BAD(O_CELL_BITS, "counter bits %" PRIu32 " not 2, 4 or 8",
			    s->cell_bits);
		break;
	case KBLOOM_TYPE_COUNTING:
		if (s->cell_bits != 4 && s->cell_bits != 8 &&
		    s->cell_bits != 16)
			BAD(O_CELL_BITS, "counter bits %" PRIu32 " not 4, 8 or 16",
			    s->cell_bits);
		if (s->update > KBLOOM_UPDATE_MAX)
			BAD(O_UPDATE, "unknown update rule %" PRIu32, s->update);
		break;
	case KBLOOM_TYPE_STABLE:
		if (s->cell_bits != 1 && s->cell_bits != 2 &&
		    s->cell_bits != 4 && s->cell_bits != 8)
			BAD(O_CELL_BITS, "counter bits %" PRIu32 " not 1, 2, 4 or 8",
			    s->cell_bits);
		if (s->decrement < 1 || s->decrement > KBLOOM_DECREMENT_MAX)
			BAD(O_DECREMENT, "decrement %" PRIu32 " out of range 1..%d",
			    s->decrement, KBLOOM_DECREMENT_MAX);
		break;
	case KBLOOM_TYPE_DLEFT:
		ZERO(cell_bits, O_CELL_BITS, "counter bits");
		if (s->k != 1)
			BAD(O_K, "hashes %" PRIu32 " for a dleft filter (1)", s->k);
		if (s->subtables < 2 || s->subtables > 8)
			BAD(O_SUBTABLES, "subtables %" PRIu32 " out of range 2..8",
			    s->subtables);
		if (s->bucket_cells < 1 || s->bucket_cells > 16)
			BAD(O_BUCKET_CELLS, "bucket cells %" PRIu32 " out of range 1..16",
			    s->bucket_cells);
		if (s->fp_bits < 4 || s->fp_bits > 24)
			BAD(O_FP_BITS, "fingerprint bits %" PRIu32 " out of range 4..24",
			    s->fp_bits);
		break;
	}
	/* The parameters the type does not take are 0 (counter bits: above). */
	for (i = 0; i < KB_P_NUM; i++) {
		const struct kb_param_def *p = &kb_params[i];
		uint32_t v = kb_shape_get(s, p);

		if (!param_at[i].off || i == KB_P_COUNTER_BITS ||
		    kb_type_takes(s->type, p->takes) || !v)
			continue;
		BAD(param_at[i].off, "%s %" PRIu32 " given for a type without it",
		    param_at[i].what, v);
	}
	if (s->type == KBLOOM_TYPE_MULTI &&
	    (s->dims < 1 || s->dims > KBLOOM_DIMS_MAX))
		BAD(O_DIMS, "dims %" PRIu32 " out of range 1..%d", s->dims,
		    KBLOOM_DIMS_MAX);
	for (i = 0; i < KBLOOM_DIMS_MAX; i++) {
		int off = O_DIM_NAMES + i * KBLOOM_DIM_NAME_MAX;

		if (i < s->dims) {
			if (!field_ok(h->dim_names[i], KBLOOM_DIM_NAME_MAX,
				      dim_char))
				BAD(off, "bad name of dimension %" PRIu32
				    " (1..%d bytes of [a-z0-9_-], NUL-padded)",
				    i + 1, KBLOOM_DIM_NAME_MAX - 1);
		} else if (!all_zero(h->dim_names[i], KBLOOM_DIM_NAME_MAX)) {
			BAD(off, "name for dimension %" PRIu32 " of %" PRIu32,
			    i + 1, s->dims);
		}
	}
	if (h->digest > KBLOOM_DIGEST_MAX)
		BAD(O_DIGEST, "unknown digest mode %" PRIu32, h->digest);
	if (h->windows) {
		if (h->windows < 2 || h->windows > KBLOOM_WINDOWS_MAX)
			BAD(O_WINDOWS, "windows %" PRIu32 " out of range 2..%d",
			    h->windows, KBLOOM_WINDOWS_MAX);
		if (h->interval_ms < KBLOOM_INTERVAL_MIN ||
		    h->interval_ms > KBLOOM_INTERVAL_MAX)
			BAD(O_INTERVAL, "window interval %" PRIu64 " ms out of range %llu..%llu",
			    h->interval_ms, KBLOOM_INTERVAL_MIN,
			    KBLOOM_INTERVAL_MAX);
	} else if (h->interval_ms) {
		BAD(O_INTERVAL, "window interval %" PRIu64 " ms without windows",
		    h->interval_ms);
	}
	if (!h->window.id) {
		if (h->window.start_ns || h->window.end_ns ||
		    h->window.packets)
			BAD(O_WIN_START, "window times or packets without a window id");
	} else if (h->window.end_ns && h->window.end_ns < h->window.start_ns) {
		BAD(O_WIN_END, "window ends (%" PRIu64 ") before it starts (%" PRIu64 ")",
		    h->window.end_ns, h->window.start_ns);
	}
	if (h->cell_bytes % 8 || h->cell_bytes > KBLOOM_MEM_MAX)
		BAD(O_CELL_BYTES, "cell size %" PRIu64 " not a multiple of 8 up to %llu",
		    h->cell_bytes, KBLOOM_MEM_MAX);
	return check_layout(h, err, errlen);
}

/* The reserved field is not in the struct: checked on the raw bytes. */
static int check_raw_header(const uint8_t *raw, struct kb_save_header *h,
			    char *err, size_t errlen)
{
	uint32_t i, v;

	if (!has_hash_fn(h->version) && get32(raw + O_RESERVED))
		BAD(O_RESERVED, "reserved field is 0x%" PRIx32 ", not 0",
		    get32(raw + O_RESERVED));
	if (has_hash_fn(h->version) && !h->shape.hash_fn)
		BAD(O_HASH_FN, "hash function 0 (SipHash-2-4) in a format version %" PRIu32 " file, which is for another",
		    h->version);
	if (h->version != kb_save_version_for(h))
		BAD(O_TYPE, "filter type %" PRIu32 " is saved as format version %" PRIu32 ", not %" PRIu32,
		    h->shape.type, kb_save_version_for(h), h->version);
	if (has_layout(h->version)) {
		if (get32(raw + O_RESERVED2))
			BAD(O_RESERVED2, "reserved field is 0x%" PRIx32 ", not 0",
			    get32(raw + O_RESERVED2));
		for (i = 0; i < KBLOOM_SLICES_MAX; i++) {
			int off = O_SLICES + i * KB_SAVE_SLICE_LEN + OS_RESERVED;

			v = get32(raw + off);
			if (v)
				BAD(off, "reserved field is 0x%" PRIx32 ", not 0",
				    v);
		}
	}
	return kb_save_check_header(h, err, errlen);
}

/* ---- stdio callbacks ------------------------------------------------ */

int kb_save_stdio_write(void *arg, const void *buf, size_t len)
{
	if (fwrite(buf, 1, len, arg) != len) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

ssize_t kb_save_stdio_read(void *arg, void *buf, size_t len)
{
	size_t n = fread(buf, 1, len, arg);

	if (!n && ferror(arg)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return n;
}

/* ---- Writer --------------------------------------------------------- */

struct kb_save_writer {
	kb_save_write_fn write;
	void *arg;
	char *label;
	char *err;
	size_t errlen;
	bool failed, finished;
	uint64_t off;		/* logical bytes written */
	uint64_t cell_bytes, cells_done;
	uint32_t crc;
	uint32_t zcrc;		/* of the bytes written, when compressed */
	ZSTD_CCtx *cctx;
	uint8_t *zout;
	size_t zcap;
};

#define WFAIL(w, ...) do { \
	char why_[200]; \
	snprintf(why_, sizeof(why_), __VA_ARGS__); \
	kb_seterr((w)->err, (w)->errlen, "savefile %s: %s", (w)->label, why_); \
	(w)->failed = true; \
	return -1; \
} while (0)

static int w_raw(struct kb_save_writer *w, const void *buf, size_t len)
{
	errno = 0;
	if (w->write(w->arg, buf, len))
		WFAIL(w, "write failed at byte %" PRIu64 ": %s", w->off,
		      strerror(errno ? errno : EIO));
	if (w->cctx)
		w->zcrc = kb_save_crc32c(w->zcrc, buf, len);
	return 0;
}

static int w_zstd(struct kb_save_writer *w, const void *buf, size_t len,
		  ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { buf, len, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { w->zout, w->zcap, 0 };

		left = ZSTD_compressStream2(w->cctx, &out, &in, mode);
		if (ZSTD_isError(left))
			WFAIL(w, "compression failed at byte %" PRIu64 ": %s",
			      w->off, ZSTD_getErrorName(left));
		if (out.pos && w_raw(w, w->zout, out.pos))
			return -1;
	} while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
	return 0;
}

/* Logical bytes: CRC'd when @crc, compressed past the prefix if asked. */
static int w_put(struct kb_save_writer *w, const void *buf, size_t len,
		 bool crc)
{
	int ret;

	if (!len)
		return 0;
	ret = w->cctx && w->off >= KB_SAVE_PREFIX_LEN ?
		w_zstd(w, buf, len, ZSTD_e_continue) : w_raw(w, buf, len);
	if (ret)
		return ret;
	if (crc)
		w->crc = kb_save_crc32c(w->crc, buf, len);
	w->off += len;
	return 0;
}

struct kb_save_writer *kb_save_writer_begin(const struct kb_save_header *h,
					    kb_save_write_fn write, void *arg,
					    const char *label, char *err,
					    size_t errlen)
{
	struct kb_save_writer *w;
	uint8_t raw[KB_SAVE_HEADER_MAX];
	char why[200];

	if (kb_save_check_header(h, why, sizeof(why))) {
		kb_seterr(err, errlen, "savefile %s: refusing to write: %s", label,
			  why);
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w || !(w->label = strdup(label))) {
		free(w);
		kb_seterr(err, errlen, "savefile %s: out of memory", label);
		return NULL;
	}
	w->write = write;
	w->arg = arg;
	w->err = err;
	w->errlen = errlen;
	w->cell_bytes = h->cell_bytes;
	if (h->flags & KB_SAVE_F_ZSTD) {
		w->zcap = ZSTD_CStreamOutSize();
		w->cctx = ZSTD_createCCtx();
		w->zout = malloc(w->zcap);
		if (!w->cctx || !w->zout ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx,
				ZSTD_c_compressionLevel, KB_SAVE_ZSTD_LEVEL))) {
			kb_seterr(err, errlen, "savefile %s: cannot set up zstd",
				  label);
			kb_save_writer_free(w);
			return NULL;
		}
	}
	kb_save_encode_header(h, raw);
	/* Prefix and header in two steps: only the header is compressed. */
	if (w_put(w, raw, KB_SAVE_PREFIX_LEN, true) ||
	    w_put(w, raw + KB_SAVE_PREFIX_LEN,
		  kb_save_header_len(h) - KB_SAVE_PREFIX_LEN, true)) {
		kb_save_writer_free(w);
		return NULL;
	}
	return w;
}

int kb_save_write_cells(struct kb_save_writer *w, const void *buf, size_t len)
{
	if (w->failed || w->finished)
		WFAIL(w, "write_cells on a %s writer",
		      w->failed ? "failed" : "finished");
	if (len > w->cell_bytes - w->cells_done)
		WFAIL(w, "%" PRIu64 " cell bytes given, the header says %" PRIu64,
		      w->cells_done + len, w->cell_bytes);
	if (w_put(w, buf, len, true))
		return -1;
	w->cells_done += len;
	return 0;
}

int kb_save_writer_finish(struct kb_save_writer *w)
{
	uint8_t t[KB_SAVE_TRAILER_LEN];

	if (w->failed || w->finished)
		WFAIL(w, "finish on a %s writer",
		      w->failed ? "failed" : "finished");
	if (w->cells_done != w->cell_bytes)
		WFAIL(w, "only %" PRIu64 " of %" PRIu64 " cell bytes given",
		      w->cells_done, w->cell_bytes);
	put64(t, w->cell_bytes);
	put32(t + 8, w->crc);
	memcpy(t + 12, KB_SAVE_END_MARK, 4);
	if (w_put(w, t, sizeof(t), false))
		return -1;
	if (w->cctx) {
		if (w_zstd(w, NULL, 0, ZSTD_e_end))
			return -1;
		put32(t, w->zcrc);
		if (w_raw(w, t, 4))
			return -1;
	}
	w->finished = true;
	return 0;
}

void kb_save_writer_free(struct kb_save_writer *w)
{
	if (!w)
		return;
	ZSTD_freeCCtx(w->cctx);
	free(w->zout);
	free(w->label);
	free(w);
}

/* ---- Reader --------------------------------------------------------- */

struct kb_save_reader {
	kb_save_read_fn read;
	void *arg;
	char *label;
	char *err;
	size_t errlen;
	bool failed, expected, finished;
	struct kb_save_header h;
	size_t hlen;		/* header bytes: where the cells start */
	uint64_t off;		/* logical bytes consumed */
	uint64_t cells_left;
	uint32_t crc;
	/* Raw input, buffered. */
	uint8_t *rbuf;
	size_t rpos, rlen;
	bool raw_eof;
	uint64_t raw_off;	/* raw bytes taken out of rbuf */
	uint32_t zcrc;		/* CRC32C of those bytes */
	/* Decompression, past the prefix. */
	ZSTD_DCtx *dctx;
	uint8_t *zout;
	size_t zcap, zpos, zlen;
	bool zdone;		/* the frame ended */
};

#define RFAIL(r, ...) do { \
	char why_[200]; \
	snprintf(why_, sizeof(why_), __VA_ARGS__); \
	kb_seterr((r)->err, (r)->errlen, "savefile %s: %s", (r)->label, why_); \
	(r)->failed = true; \
	return -1; \
} while (0)

/* Refills rbuf if it is empty; 0 at end of file, -1 on a read error. */
static int r_refill(struct kb_save_reader *r)
{
	ssize_t n;

	if (r->rpos < r->rlen)
		return 1;
	if (r->raw_eof)
		return 0;
	errno = 0;
	n = r->read(r->arg, r->rbuf, CHUNK);
	if (n < 0)
		RFAIL(r, "read failed at byte %" PRIu64 ": %s", r->raw_off,
		      strerror(errno ? errno : EIO));
	if (n == 0) {
		r->raw_eof = true;
		return 0;
	}
	r->rpos = 0;
	r->rlen = n;
	return 1;
}

/* Makes decompressed bytes available; 0 when the frame has ended. */
static int r_inflate(struct kb_save_reader *r)
{
	while (r->zpos == r->zlen) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer out = { r->zout, r->zcap, 0 };
		size_t ret;
		int more;

		if (r->zdone)
			return 0;
		more = r_refill(r);
		if (more < 0)
			return -1;
		in.src = r->rbuf;
		in.size = r->rlen;
		in.pos = r->rpos;
		ret = ZSTD_decompressStream(r->dctx, &out, &in);
		r->zcrc = kb_save_crc32c(r->zcrc, r->rbuf + r->rpos,
					 in.pos - r->rpos);
		r->raw_off += in.pos - r->rpos;
		r->rpos = in.pos;
		if (ZSTD_isError(ret))
			RFAIL(r, "compressed data damaged at byte %" PRIu64
			      " (file byte %" PRIu64 "): %s",
			      r->off, r->raw_off, ZSTD_getErrorName(ret));
		if (ret == 0)
			r->zdone = true;
		r->zpos = 0;
		r->zlen = out.pos;
		if (!out.pos && !more && !r->zdone)
			return 0;	/* input ended inside the frame */
	}
	return 1;
}

/*
 * Up to @len logical bytes into @buf; fewer only at the end of the data.
 * Returns the count or -1.
 */
static ssize_t r_get(struct kb_save_reader *r, void *buf, size_t len,
		     bool crc)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < len) {
		const uint8_t *src;
		size_t n;
		int more;

		if (r->dctx && r->off >= KB_SAVE_PREFIX_LEN) {
			more = r_inflate(r);
			if (more <= 0) {
				if (more < 0)
					return -1;
				break;
			}
			src = r->zout + r->zpos;
			n = r->zlen - r->zpos;
		} else {
			more = r_refill(r);
			if (more <= 0) {
				if (more < 0)
					return -1;
				break;
			}
			src = r->rbuf + r->rpos;
			n = r->rlen - r->rpos;
			/* The prefix is raw even in a compressed file. */
			if (r->off < KB_SAVE_PREFIX_LEN &&
			    n > KB_SAVE_PREFIX_LEN - r->off)
				n = KB_SAVE_PREFIX_LEN - r->off;
		}
		if (n > len - got)
			n = len - got;
		memcpy(p + got, src, n);
		if (r->dctx && r->off >= KB_SAVE_PREFIX_LEN) {
			r->zpos += n;
		} else {
			r->zcrc = kb_save_crc32c(r->zcrc, src, n);
			r->rpos += n;
			r->raw_off += n;
		}
		if (crc)
			r->crc = kb_save_crc32c(r->crc, src, n);
		r->off += n;
		got += n;
	}
	return got;
}

/* Exactly @len bytes of @what, or -1 with a truncation message. */
static int r_need(struct kb_save_reader *r, void *buf, size_t len, bool crc,
		  const char *what)
{
	uint64_t start = r->off;
	ssize_t got = r_get(r, buf, len, crc);

	if (got < 0)
		return -1;
	if ((size_t)got < len)
		RFAIL(r, "truncated at byte %" PRIu64 ": expected %zu bytes of %s from byte %" PRIu64 ", got %zd%s",
		      r->off, len, what, start, got,
		      r->dctx && r->off >= KB_SAVE_PREFIX_LEN ?
		      " (compressed stream ends early)" : "");
	return 0;
}

struct kb_save_reader *kb_save_reader_open(kb_save_read_fn read, void *arg,
					   const char *label, char *err,
					   size_t errlen)
{
	struct kb_save_reader *r = calloc(1, sizeof(*r));
	uint8_t raw[KB_SAVE_HEADER_MAX];
	char why[200];
	uint32_t v;

	if (!r || !(r->label = strdup(label)) ||
	    !(r->rbuf = malloc(CHUNK))) {
		if (r)
			free(r->label);
		free(r);
		kb_seterr(err, errlen, "savefile %s: out of memory", label);
		return NULL;
	}
	r->read = read;
	r->arg = arg;
	r->err = err;
	r->errlen = errlen;
	if (r_refill(r) == 0 && !r->failed) {
		kb_seterr(err, errlen, "savefile %s: empty file at byte 0", label);
		goto fail;
	}
	if (r->failed ||
	    r_need(r, raw, KB_SAVE_PREFIX_LEN, true, "the prefix"))
		goto fail;
	if (memcmp(raw, KB_SAVE_MAGIC, 8)) {
		kb_seterr(err, errlen, "savefile %s: bad magic at byte 0: not a kbloom save file",
			  label);
		goto fail;
	}
	v = get32(raw + O_VERSION);
	if (v < KB_SAVE_VERSION || v > KB_SAVE_VERSION_LAYOUT_HASH) {
		kb_seterr(err, errlen, "savefile %s: unsupported format version %" PRIu32 " at byte %d (this reader knows versions %d to %d)",
			  label, v, O_VERSION, KB_SAVE_VERSION,
			  KB_SAVE_VERSION_LAYOUT_HASH);
		goto fail;
	}
	r->hlen = has_layout(v) ? KB_SAVE_HEADER_V2_LEN : KB_SAVE_HEADER_LEN;
	v = get32(raw + O_FLAGS);
	if (v & ~KB_SAVE_F_MASK) {
		kb_seterr(err, errlen, "savefile %s: unknown flags 0x%" PRIx32 " at byte %d",
			  label, v & ~KB_SAVE_F_MASK, O_FLAGS);
		goto fail;
	}
	if (v & KB_SAVE_F_ZSTD) {
		r->zcap = ZSTD_DStreamOutSize();
		r->dctx = ZSTD_createDCtx();
		r->zout = malloc(r->zcap);
		if (!r->dctx || !r->zout) {
			kb_seterr(err, errlen, "savefile %s: cannot set up zstd",
				  label);
			goto fail;
		}
	}
	if (r_need(r, raw + KB_SAVE_PREFIX_LEN,
		   r->hlen - KB_SAVE_PREFIX_LEN, true, "the header"))
		goto fail;
	kb_save_decode_header(raw, &r->h);
	if (check_raw_header(raw, &r->h, why, sizeof(why))) {
		kb_seterr(err, errlen, "savefile %s: %s", label, why);
		goto fail;
	}
	r->cells_left = r->h.cell_bytes;
	return r;
fail:
	kb_save_reader_free(r);
	return NULL;
}

const struct kb_save_header *kb_save_reader_header(const struct kb_save_reader *r)
{
	return &r->h;
}

int kb_save_reader_expect(struct kb_save_reader *r, uint64_t cell_bytes)
{
	if (r->failed)
		RFAIL(r, "expect on a failed reader");
	if (r->off != r->hlen)
		RFAIL(r, "expect after cells were read");
	if (cell_bytes == UINT64_MAX)
		RFAIL(r, "unusable filter shape at byte %d: its parameters are not valid together",
		      O_TYPE);
	if (r->h.cell_bytes != cell_bytes)
		RFAIL(r, "cell size mismatch at byte %d: the file has %" PRIu64 " cell bytes, its filter's shape needs %" PRIu64,
		      O_CELL_BYTES, r->h.cell_bytes, cell_bytes);
	r->expected = true;
	return 0;
}

static int r_cells_ok(struct kb_save_reader *r)
{
	if (r->failed)
		RFAIL(r, "read on a failed reader");
	if (!r->expected)
		RFAIL(r, "cells read before their size was checked (kb_save_reader_expect)");
	return 0;
}

ssize_t kb_save_read_cells(struct kb_save_reader *r, void *buf, size_t len)
{
	uint64_t start = r->off - r->hlen;
	ssize_t got;

	if (r_cells_ok(r))
		return -1;
	if (len > r->cells_left)
		len = r->cells_left;
	got = r_get(r, buf, len, true);
	if (got < 0)
		return -1;
	if ((size_t)got < len)
		RFAIL(r, "truncated at byte %" PRIu64 ": expected %" PRIu64 " cell bytes, got %" PRIu64 "%s",
		      r->off, r->h.cell_bytes, start + got,
		      r->dctx ? " (compressed stream ends early)" : "");
	r->cells_left -= got;
	return got;
}

int kb_save_read_cells_cb(struct kb_save_reader *r,
			  int (*cb)(void *arg, const void *chunk, size_t len),
			  void *arg)
{
	uint8_t *buf;
	ssize_t n;
	int ret = 0;

	if (r_cells_ok(r))
		return -1;
	buf = malloc(CHUNK);
	if (!buf)
		RFAIL(r, "out of memory");
	while (r->cells_left) {
		n = kb_save_read_cells(r, buf, CHUNK);
		if (n < 0) {
			ret = -1;
			break;
		}
		ret = cb(arg, buf, n);
		if (ret) {
			r->failed = true;
			break;
		}
	}
	free(buf);
	return ret;
}

int kb_save_reader_finish(struct kb_save_reader *r)
{
	uint8_t t[KB_SAVE_TRAILER_LEN];
	uint64_t at, count;
	uint32_t stored;
	uint8_t extra;
	ssize_t n;

	if (r->failed || r->finished)
		RFAIL(r, "finish on a %s reader",
		      r->failed ? "failed" : "finished");
	if (!r->expected || r->cells_left)
		RFAIL(r, "finish with %" PRIu64 " cell bytes unread",
		      r->cells_left);
	at = r->off;
	if (r_need(r, t, sizeof(t), false, "the trailer"))
		return -1;
	count = get64(t);
	stored = get32(t + 8);
	if (memcmp(t + 12, KB_SAVE_END_MARK, 4))
		RFAIL(r, "bad end mark at byte %" PRIu64 ": the trailer is damaged",
		      at + 12);
	if (count != r->h.cell_bytes)
		RFAIL(r, "trailer at byte %" PRIu64 " counts %" PRIu64 " cell bytes, the header %" PRIu64,
		      at, count, r->h.cell_bytes);
	if (stored != r->crc)
		RFAIL(r, "CRC mismatch at byte %" PRIu64 " (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")",
		      at + 8, stored, r->crc);
	n = r_get(r, &extra, 1, false);
	if (n < 0)
		return -1;
	if (n)
		RFAIL(r, "trailing garbage at byte %" PRIu64 " after the end of the file's data",
		      r->off - 1);
	if (r->dctx) {
		uint32_t computed = r->zcrc;
		size_t got = 0;

		if (!r->zdone)
			RFAIL(r, "truncated at file byte %" PRIu64 ": the zstd frame does not end",
			      r->raw_off);
		at = r->raw_off;
		while (got < 4) {
			n = r_refill(r);
			if (n <= 0) {
				if (n < 0)
					return -1;
				RFAIL(r, "truncated at file byte %" PRIu64 ": expected the 4-byte CRC of the compressed file, got %zu",
				      r->raw_off, got);
			}
			t[got++] = r->rbuf[r->rpos++];
			r->raw_off++;
		}
		stored = get32(t);
		if (stored != computed)
			RFAIL(r, "CRC mismatch of the compressed bytes at file byte %" PRIu64 " (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")",
			      at, stored, computed);
		n = r_refill(r);
		if (n < 0)
			return -1;
		if (n)
			RFAIL(r, "trailing garbage at file byte %" PRIu64 " after the end of the file",
			      r->raw_off);
	}
	r->finished = true;
	return 0;
}

void kb_save_reader_free(struct kb_save_reader *r)
{
	if (!r)
		return;
	ZSTD_freeDCtx(r->dctx);
	free(r->zout);
	free(r->rbuf);
	free(r->label);
	free(r);
}

/* ---- Whole-file verification --------------------------------------- */

int kb_save_verify(kb_save_read_fn read, void *arg, const char *label,
		   uint64_t (*expect)(const struct kb_save_header *h,
				      void *earg),
		   void *earg, struct kb_save_header *out, char *err,
		   size_t errlen)
{
	struct kb_save_reader *r;
	uint8_t *buf = NULL;
	int ret = -1;
	ssize_t n;

	r = kb_save_reader_open(read, arg, label, err, errlen);
	if (!r)
		return -1;
	if (kb_save_reader_expect(r, expect ? expect(&r->h, earg) :
				  r->h.cell_bytes))
		goto out;
	buf = malloc(CHUNK);
	if (!buf) {
		kb_seterr(err, errlen, "savefile %s: out of memory", label);
		goto out;
	}
	do {
		n = kb_save_read_cells(r, buf, CHUNK);
		if (n < 0)
			goto out;
	} while (n);
	if (kb_save_reader_finish(r))
		goto out;
	if (out)
		*out = r->h;
	ret = 0;
out:
	free(buf);
	kb_save_reader_free(r);
	return ret;
}

int kb_save_verify_file(const char *path,
			uint64_t (*expect)(const struct kb_save_header *h,
					   void *earg),
			void *earg, struct kb_save_header *out, char *err,
			size_t errlen)
{
	FILE *f = fopen(path, "rb");
	int ret;

	if (!f) {
		kb_seterr(err, errlen, "savefile %s: %s", path, strerror(errno));
		return -1;
	}
	ret = kb_save_verify(kb_save_stdio_read, f, path, expect, earg, out,
			     err, errlen);
	fclose(f);
	return ret;
}
