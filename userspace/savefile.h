/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kbloom save file: one filter table (its name, shape, hash key,
 * counters, optional window metadata and cells) in a documented, versioned,
 * byte-order-independent file, written and read in chunks. Used by
 * `bloomctl save` / `restore` and by `bloomctl archive` (one file per closed
 * window), and read offline by `bloomctl trace` (an archive router).
 * No netlink here: the callers move the cells to and from the kernel.
 *
 * Format, version 1
 * =================
 * Every integer is unsigned and little-endian, whatever the machine, so a
 * file moves between machines unchanged. Offsets are those of the logical
 * (uncompressed) byte stream; N = cell_bytes.
 *
 *   off  size  field
 *     0     8  magic: "KBLOOMF\n" (4b 42 4c 4f 4f 4d 46 0a)
 *     8     4  version: 1 (KB_SAVE_VERSION; 3 of another hash function,
 *              below); others are refused
 *    12     4  flags: bit 0 KB_SAVE_F_ZSTD, all other bits 0
 *   ----- with KB_SAVE_F_ZSTD everything from here on is compressed -----
 *    16    32  name: 1..KBLOOM_NAME_MAX-1 bytes of 0x21..0x7e but '/',
 *              then NUL bytes up to the end of the field
 *    48     4  type: enum kbloom_type, 1..KBLOOM_TYPE_MAX but scalable
 *              and dcf, which grow: they are saved as version 2 (below)
 *    52     4  k: hashes, 1..KBLOOM_HASHES_MAX (1 for dleft)
 *    56     8  m: cells (per dimension for multi),
 *              KBLOOM_BITS_MIN..KBLOOM_BITS_MAX
 *    64     4  cell_bits: bit types 0 or 1; counting 4/8/16; stable 1/2/4/8
 *    68     4  update: counting, enum kbloom_update; else 0
 *    72     4  decrement: stable, 1..KBLOOM_DECREMENT_MAX; else 0
 *    76     4  subtables: dleft, 2..8; else 0
 *    80     4  bucket_cells: dleft, 1..16; else 0
 *    84     4  fp_bits: dleft, 4..24; else 0
 *    88     4  dims: multi, 1..KBLOOM_DIMS_MAX; else 0
 *    92     4  digest: enum kbloom_digest the contents were recorded with,
 *              0 = none (filled by add/test, not by a hook)
 *    96     8  capacity: design capacity n, 0 = not given
 *   104    16  hash key: the KBLOOM_HASH_KEY_LEN SipHash key bytes in order
 *   120     8  inserts   \
 *   128     8  queries    | the filter's counters (KBLOOM_STATS_A_*)
 *   136     8  positives  |
 *   144     8  deletes   /
 *   152     8  generation
 *   160     4  windows: W of the source filter, 2..KBLOOM_WINDOWS_MAX,
 *              0 = the source filter has no windows
 *   164     4  reserved, 0 (versions 3 and 4: the hash function, below)
 *   168     8  interval_ms: the source's window interval,
 *              KBLOOM_INTERVAL_MIN..MAX when windows != 0, else 0
 *   176     8  window id: the table is this window of the source
 *              (KBLOOM_WINDOW_A_ID, >= 1); 0 = not a window
 *   184     8  window start (CLOCK_REALTIME ns)  \ 0 when window id is 0;
 *   192     8  window end (ns, 0 while open)      | else end is 0 or
 *   200     8  window packets (keys inserted)    /  >= start
 *   208   128  dim names: KBLOOM_DIMS_MAX fields of KBLOOM_DIM_NAME_MAX
 *              bytes; name i (i < dims) is 1..15 bytes of [a-z0-9_-] then
 *              NUL padding, the fields past dims are all NUL
 *   336     8  cell_bytes N: a multiple of 8, at most KBLOOM_MEM_MAX
 *   344     N  cells
 * 344+N     8  trailer: cell_bytes again
 * 352+N     4  trailer: CRC32C (Castagnoli, reflected, init and final xor
 *              0xffffffff; check value 0xe3069283 for "123456789") of the
 *              bytes 0 .. 344+N-1, i.e. of everything before the trailer
 * 356+N     4  trailer: end mark "KEND" (4b 45 4e 44)
 * 360+N        end of file: nothing may follow
 *
 * The cells are the engine's cell memory (struct kb_filter.mem, all
 * dimensions of a multi filter one after another) as an array of 64-bit
 * little-endian words: byte for byte the raw memory of the engine's
 * unsigned long array on the x86-64 machines kbloom is built for. A kernel
 * whose unsigned long is not a 64-bit little-endian word converts each word
 * on export and import (cpu_to_le64 / le64_to_cpu). N is what the shape
 * needs (kb_filter_mem_for()); a file holds one table: a filter without
 * windows, or one window of a windowed filter (window id != 0), with
 * windows/interval_ms telling how the source ring was made.
 *
 * Format, version 2: scalable and dcf filters
 * =============================================
 * A scalable filter's slices and a dcf's overflow vector are made as the
 * filter grows, so their file carries the layout too. Version 2 is
 * version 1 with version = 2 (KB_SAVE_VERSION_LAYOUT) and type scalable
 * or dcf (version 1 holds every other type, version 2 only these two;
 * either mismatch is refused), and the cells moved from byte 344 to byte
 * 1400 (KB_SAVE_HEADER_V2_LEN) to make room for the layout, which the
 * same CRC covers:
 *
 *   off  size  field
 *     0   344  as version 1 (version 2), with for scalable: cell_bits 0,
 *              capacity n0 1..m (slice 0's); for dcf: cell_bits 2/4/8
 *   344     4  growth: scalable s, KBLOOM_GROWTH_MIN..MAX; dcf 0
 *   348     4  tighten: scalable r in millionths, KBLOOM_TIGHTEN_MIN..MAX;
 *              dcf 0
 *   352     4  ofv_bits: dcf y, 1, 2, 4, 8, 16 or 32; scalable 0
 *   356     4  slices S: scalable 1..KBLOOM_SLICES_MAX; dcf 0
 *   360     4  current: scalable, the slice taking inserts, < S; dcf 0
 *   364     4  reserved, 0
 *   368     8  overflow: scalable OVERFLOW, dcf LOST (the counters)
 *   376  1024  slice table: KBLOOM_SLICES_MAX entries of 32 bytes; entry
 *              i < S is slice i (oldest first), entries >= S all 0:
 *                +0  8  m_i: bits, KBLOOM_BITS_MIN..MAX, a multiple of 64
 *                        (slice 0: m rounded up to 64)
 *                +8  4  k_i: hashes, 1..KBLOOM_HASHES_MAX (slice 0: k)
 *               +12  4  reserved, 0
 *               +16  8  n_i: capacity, >= 1 (slice 0: capacity)
 *               +24  8  keys counted in the slice (KBLOOM_SLICE_A_KEYS)
 *  1400     N  cells
 * 1400+N   16  trailer, as version 1: cell_bytes, CRC32C of bytes
 *              0 .. 1400+N-1, "KEND"; nothing may follow
 *
 * windows and the window fields are 0 (these types have no windows).
 * Cells: a scalable filter's are every slice's bits in slice order, slice
 * i as a bloom filter of m_i bits (m_i / 8 bytes; N = their sum); a
 * dcf's are its m counters of cell_bits then its overflow vector of m
 * counters of ofv_bits, each packed from bit 0 of 32-bit little-endian
 * words and padded to a multiple of 8 bytes (N = both). m_i, k_i and n_i
 * must be what the scalable plan (uapi/kbloom.h) gives for slice i of
 * (m, k, capacity, growth, tighten): readers that have the engine
 * (restore) and the kernel check it; each slice's hashing follows from
 * its place i, so nothing else is needed to rebuild the filter exactly.
 * Compression, streaming and refusals are as for version 1, with the
 * layout part of the header.
 *
 * Format, versions 3 and 4: another hash function
 * ================================================
 * A file of versions 1 and 2 holds a filter of SipHash-2-4 (every filter
 * made before KBLOOM_A_HASH_FN, and every one made without it since).
 * A filter of another hash function is written as version 3 (version 1
 * otherwise) or 4 (version 2 otherwise), identical to 1 or 2 but for the
 * version and the field at byte 164:
 *
 *   164     4  hash function: enum kbloom_hash_fn, 1..KBLOOM_HASH_FN_MAX
 *              (KBLOOM_HASH_FN_SIPHASH13); not for transforms
 *
 * so a reader that knows only 1 and 2 refuses the file instead of taking
 * its keys for SipHash-2-4 ones, and files of SipHash-2-4 filters stay
 * readable by it. A version that does not match the hash function (a 3
 * or 4 with 0 at byte 164, a 1 or 2 with anything there) is refused.
 *
 * Compression (KB_SAVE_F_ZSTD): the file is the 16-byte prefix, then
 * bytes 16 .. 360+N-1 of the logical stream as exactly one zstd frame,
 * then a 4-byte CRC32C of every file byte before it (prefix and frame,
 * little-endian), and nothing after that. The trailer's CRC is over the
 * uncompressed logical bytes, prefix included (so it differs from the
 * uncompressed file's only by the flags bit); the outer CRC makes damage
 * to the compressed bytes that would still decompress to the same data
 * (a frame header bit, an unused code) refused too: no byte of any file
 * can change unnoticed. Bloom filters at low fill compress well
 * (tests/unit/savefile_test prints the ratios it measures).
 *
 * Readers refuse, naming the problem and the byte offset: bad magic,
 * a version other than 1 to 4, a version that does not match the type or the hash function, unknown flags, any header field out of the ranges above,
 * a cell size other than the caller expects (checked before the first cell
 * byte is delivered and again against the trailer), truncation anywhere,
 * damaged compressed data, a bad end mark, a CRC mismatch (either), and
 * any byte after the end. Offsets in messages are of the logical stream
 * ("byte N"), or of the file itself for the compressed bytes
 * ("file byte N").
 *
 * Streaming and trust
 * ===================
 * Nothing needs the whole file in memory. A writer takes the header (with
 * cell_bytes set), then the cells in chunks of any size, then finish()
 * writes the trailer. A reader reads and checks the header, then must be
 * told the cell size the caller expects, then delivers the cells in chunks,
 * and finish() reads the trailer and checks the CRC and the end of file.
 * Cells are delivered BEFORE the CRC can be known: until finish() returns
 * 0 the caller must treat what it received as tentative (the kernel import
 * fills a hidden, new filter and destroys it if finish() fails, so no
 * half-made filter is ever left behind). kb_save_verify() reads a whole
 * file and checks everything without delivering anything, so a restore can
 * refuse a bad file before any of it reaches the kernel.
 *
 * Errors: functions return -1 (or NULL) and write one line (no newline)
 * into the caller's error buffer, e.g.
 *   savefile f.kbf: CRC mismatch at byte 4440 (stored 0x1c2d3e4f,
 *   computed 0x5a6b7c8d)
 *   savefile f.kbf: truncated at byte 1244: expected 4096 cell bytes, got 900
 * An object that failed stays failed: every later call returns -1.
 */
#ifndef BLOOMCTL_SAVEFILE_H
#define BLOOMCTL_SAVEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../kmod/engine/filter.h"
#include "../kmod/uapi/kbloom.h"

#define KB_SAVE_MAGIC		"KBLOOMF\n"	/* 8 bytes, no NUL */
#define KB_SAVE_VERSION		1	/* every type but these: */
#define KB_SAVE_VERSION_LAYOUT	2	/* scalable and dcf */
#define KB_SAVE_VERSION_HASH	3	/* 1, of another hash function */
#define KB_SAVE_VERSION_LAYOUT_HASH 4	/* 2, of another hash function */
#define KB_SAVE_F_ZSTD		0x1u		/* compressed after byte 16 */
#define KB_SAVE_F_MASK		KB_SAVE_F_ZSTD
#define KB_SAVE_END_MARK	"KEND"		/* 4 bytes, no NUL */
#define KB_SAVE_PREFIX_LEN	16		/* never compressed */
#define KB_SAVE_HEADER_LEN	344		/* offset of the cells (v1) */
#define KB_SAVE_LAYOUT_OFF	344		/* v2: the layout */
#define KB_SAVE_SLICE_OFF	376		/* v2: the slice table */
#define KB_SAVE_SLICE_LEN	32		/* v2: one slice entry */
#define KB_SAVE_HEADER_V2_LEN	1400		/* offset of the cells (v2) */
#define KB_SAVE_HEADER_MAX	KB_SAVE_HEADER_V2_LEN
#define KB_SAVE_TRAILER_LEN	16
#define KB_SAVE_ZSTD_LEVEL	3		/* the writer's zstd level */


/* One slice of a scalable filter (v2 slice table). */
struct kb_save_slice {
	uint64_t m;
	uint32_t k;
	uint64_t capacity;
	uint64_t keys;
};

/* Everything before the cells, decoded (see the table above). */
struct kb_save_header {
	uint32_t version;	/* read: the file's; written: by type */
	uint32_t flags;		/* KB_SAVE_F_*: the writer compresses on ZSTD */
	char name[KBLOOM_NAME_MAX];
	/*
	 * The engine's shape (kmod/engine/filter.h); shape.capacity is not in
	 * the file (the header's capacity is: kb_save_engine_shape()).
	 */
	struct kb_shape shape;
	uint32_t digest;	/* enum kbloom_digest, 0 = none */
	uint64_t capacity;
	uint8_t hash_key[KBLOOM_HASH_KEY_LEN];
	uint64_t inserts, queries, positives, deletes;
	uint64_t generation;
	uint32_t windows;	/* source ring: W, 0 = no windows */
	uint64_t interval_ms;	/* source ring: interval */
	struct {
		uint64_t id;	/* 0 = the file is not a window */
		uint64_t start_ns, end_ns, packets;
	} window;
	char dim_names[KBLOOM_DIMS_MAX][KBLOOM_DIM_NAME_MAX];
	uint64_t cell_bytes;	/* bytes of cells that follow */
	/* Version 2 only (scalable, dcf): the layout; 0 for the others. */
	uint32_t ofv_bits;	/* dcf */
	uint32_t nslices;	/* scalable: S */
	uint32_t current;	/* scalable */
	uint64_t overflow;	/* scalable OVERFLOW, dcf LOST */
	struct kb_save_slice slice[KBLOOM_SLICES_MAX];	/* scalable */
};

/*
 * I/O callbacks. A write callback writes all @len bytes and returns 0, or
 * -1 with errno set. A read callback returns the bytes read (1..@len, fewer
 * only when it has no more right now), 0 at end of file, or -1 with errno.
 */
typedef int (*kb_save_write_fn)(void *arg, const void *buf, size_t len);
typedef ssize_t (*kb_save_read_fn)(void *arg, void *buf, size_t len);

/* Ready-made callbacks for a stdio stream (@arg is the FILE *). */
int kb_save_stdio_write(void *arg, const void *buf, size_t len);
ssize_t kb_save_stdio_read(void *arg, void *buf, size_t len);

/* CRC32C of @len bytes, continuing from @crc (0 to start). */
uint32_t kb_save_crc32c(uint32_t crc, const void *buf, size_t len);

/*
 * Checks a header against the table above (everything a reader checks
 * before the cells). 0, or -1 with the reason, naming the field and its
 * offset, in @err.
 */
int kb_save_check_header(const struct kb_save_header *h, char *err,
			 size_t errlen);

/* The version a header is written as: 1 or 2, 3 or 4 (the hash). */
uint32_t kb_save_version_for(const struct kb_save_header *h);
/* Its header length: KB_SAVE_HEADER_LEN (v1) or KB_SAVE_HEADER_V2_LEN. */
size_t kb_save_header_len(const struct kb_save_header *h);
/*
 * The cell bytes a v2 layout needs (scalable: the slices' m_i / 8; dcf:
 * both vectors), UINT64_MAX when the layout is out of range; v1: 0.
 */
uint64_t kb_save_layout_cell_bytes(const struct kb_save_header *h);

/*
 * Encodes the kb_save_header_len(@h) header bytes, with the version the
 * type needs (no checks); decodes KB_SAVE_HEADER_LEN bytes, or
 * KB_SAVE_HEADER_V2_LEN when the version field says 2.
 */
void kb_save_encode_header(const struct kb_save_header *h, uint8_t *out);
void kb_save_decode_header(const uint8_t *in, struct kb_save_header *h);

/* ---- Writing ---------------------------------------------------------- */

struct kb_save_writer;

/*
 * Checks @h, starts the file and writes its header through @write (with
 * KB_SAVE_F_ZSTD in h->flags, compressed). @label names the file in error
 * messages. @err (of @errlen bytes) receives every error of this writer
 * and must outlive it. NULL on error.
 */
struct kb_save_writer *kb_save_writer_begin(const struct kb_save_header *h,
					    kb_save_write_fn write, void *arg,
					    const char *label, char *err,
					    size_t errlen);
/* Appends @len cell bytes; more than h->cell_bytes in all is refused. */
int kb_save_write_cells(struct kb_save_writer *w, const void *buf,
			size_t len);
/* Checks that every cell byte came, writes the trailer and flushes. */
int kb_save_writer_finish(struct kb_save_writer *w);
/* Frees the writer (whether finished or not); NULL is fine. */
void kb_save_writer_free(struct kb_save_writer *w);

/* ---- Reading ---------------------------------------------------------- */

struct kb_save_reader;

/*
 * Reads the prefix and the header through @read and checks them. @label
 * and @err as for the writer. NULL on error.
 */
struct kb_save_reader *kb_save_reader_open(kb_save_read_fn read, void *arg,
					   const char *label, char *err,
					   size_t errlen);
/* The header read by open. */
const struct kb_save_header *kb_save_reader_header(const struct kb_save_reader *r);
/*
 * The cell size the caller's shape needs; -1 when the file's differs, or
 * when @cell_bytes is UINT64_MAX, the caller's word for "this shape cannot
 * be made" (e.g. kb_filter_check_shape() refused it). Must be called before
 * any cell is read.
 */
int kb_save_reader_expect(struct kb_save_reader *r, uint64_t cell_bytes);
/*
 * Pull: copies the next min(@len, cells left) cell bytes to @buf and
 * returns how many, 0 once every cell was read, -1 on error. TENTATIVE
 * until kb_save_reader_finish() succeeds.
 */
ssize_t kb_save_read_cells(struct kb_save_reader *r, void *buf, size_t len);
/*
 * Push: calls @cb with every remaining cell byte in chunks of at most
 * 64 KiB, in order. 0 when all were delivered; -1 on a file error; when
 * @cb returns non-zero, that value (the reader is then failed and @err is
 * left to the callback). TENTATIVE until kb_save_reader_finish() succeeds.
 */
int kb_save_read_cells_cb(struct kb_save_reader *r,
			  int (*cb)(void *arg, const void *chunk, size_t len),
			  void *arg);
/*
 * After the last cell: reads the trailer, checks the cell count, end mark
 * and CRC, and that the file ends there. 0 only when the whole file is
 * good.
 */
int kb_save_reader_finish(struct kb_save_reader *r);
/* NULL is fine. */
void kb_save_reader_free(struct kb_save_reader *r);

/*
 * Reads a whole file and checks everything without delivering a cell.
 * When @expect is given, the cell size must be what it returns for the
 * header (UINT64_MAX: refuse the shape, as for kb_save_reader_expect).
 * On success 0 and the header in *@out (@out may be NULL).
 */
int kb_save_verify(kb_save_read_fn read, void *arg, const char *label,
		   uint64_t (*expect)(const struct kb_save_header *h,
				      void *earg),
		   void *earg, struct kb_save_header *out, char *err,
		   size_t errlen);
/* The same for the file at @path ("-" is not accepted: it is read twice). */
int kb_save_verify_file(const char *path,
			uint64_t (*expect)(const struct kb_save_header *h,
					   void *earg),
			void *earg, struct kb_save_header *out, char *err,
			size_t errlen);

#endif /* BLOOMCTL_SAVEFILE_H */
