/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Filter descriptions (KBLOOM_CMD_GET replies): parsing (describe_parse.c),
 * and rendering as a list line, a full "show" block, or JSON (describe.c). Shared by list, show, the key
 * commands (which need the type and a multi filter's dimensions) and
 * estimate.
 */
#ifndef BLOOMCTL_DESCRIBE_H
#define BLOOMCTL_DESCRIBE_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"
#include "keyparse.h"
#include "nl.h"
#include "print.h"
#include "sizing.h"

/* Bits of struct kb_desc.have for the optional fields. */
enum {
	KB_HAVE_CAPACITY = 1 << 0,
	KB_HAVE_MEMORY = 1 << 1,
	KB_HAVE_FILL = 1 << 2,
	KB_HAVE_GENERATION = 1 << 3,
	KB_HAVE_INSERTS = 1 << 4,
	KB_HAVE_QUERIES = 1 << 5,
	KB_HAVE_POSITIVES = 1 << 6,
	KB_HAVE_SATURATED = 1 << 7,
	KB_HAVE_DELETES = 1 << 8,
	KB_HAVE_WINDOWS = 1 << 9,	/* WINDOWS and INTERVAL: time-paged */
	KB_HAVE_WINDOW_LIST = 1 << 10,	/* GET's doit only */
	KB_HAVE_ATTACH = 1 << 11,	/* attached to a hook */
	KB_HAVE_SLICES = 1 << 12,	/* scalable: SLICE_LIST and the rest */
	KB_HAVE_OFV = 1 << 13,		/* dcf: OFV_BITS, LOST, GROW_ERROR */
};

/* One slice of a scalable filter (SLICE_LIST), oldest first. */
struct kb_slice_desc {
	uint64_t m, capacity, keys, fill;
	uint32_t k;
	bool current;		/* taking inserts; later ones are made ahead */
};

/* One window of a WINDOW_LIST. */
struct kb_window_desc {
	uint64_t id;
	uint64_t start, end;	/* CLOCK_REALTIME ns; end 0 while open */
	uint64_t packets, fill;
};

/* A filter's attachment (GET's ATTACH nest). */
struct kb_attach_desc {
	uint32_t hook, family, digest;	/* enum kbloom_hook, _family, _digest */
	char ifname[KBLOOM_IFNAME_MAX];	/* "" when no device was given */
	uint64_t seen, digested;
	uint64_t skipped[KBLOOM_SKIP_MAX + 1];	/* per enum kbloom_skip */
	uint32_t bypass;	/* KBLOOM_BYPASS_*; 0 also from older modules */
};

struct kb_desc {
	char name[KBLOOM_NAME_MAX];
	/* type, m (BITS), k (HASHES) and the type's parameters (0: not sent) */
	struct kb_shape p;
	struct kb_dims dims;	/* multi */
	uint64_t capacity, memory, fill, saturated, generation;
	uint64_t inserts, queries, positives, deletes;
	unsigned int have;	/* KB_HAVE_* */
	uint32_t windows;	/* W, KB_HAVE_WINDOWS */
	uint64_t interval_ms;
	uint32_t nwin;		/* KB_HAVE_WINDOW_LIST: newest first */
	struct kb_window_desc win[KBLOOM_WINDOWS_MAX];
	struct kb_attach_desc attach;	/* KB_HAVE_ATTACH */
	/* KB_HAVE_SLICES (scalable) */
	uint64_t overflow;
	uint32_t grow_error;	/* enum kbloom_grow */
	uint32_t nslices;
	struct kb_slice_desc slice[KBLOOM_SLICES_MAX];
	/* KB_HAVE_OFV (dcf); grow_error above too */
	uint32_t ofv_bits;
	uint64_t lost;
};

/* "ok", "max_memory", ... for enum kbloom_grow; and in words. */
const char *kb_grow_name(uint32_t why);
const char *kb_grow_text(uint32_t why);

/*
 * Parses a WINDOW_LIST nest into @win (room for KBLOOM_WINDOWS_MAX), in
 * its order; sets *@n. 0 or -EPROTO (kb_nl_fail).
 */
int kb_windows_parse(struct kb_nl *nl, struct nlattr *list,
		     struct kb_window_desc *win, uint32_t *n);

/* A time as {"KEY":"ISO with offset","KEY_ns":NS}; 0 as null. */
void kb_json_time(struct json *j, const char *key, uint64_t ns);

/*
 * Records window @w in the growing array *@win of *@n (room for *@cap), or
 * updates the entry of the same id (its end and counters move on).
 */
void kb_window_note(struct kb_window_desc **win, size_t *n, size_t *cap,
		    const struct kb_window_desc *w);

/*
 * How a window reads in text: the format of each part (id %llu, span %s
 * (kb_window_span), packets and fill %llu), NULL where the text has none.
 */
struct kb_window_fmt {
	const char *id, *span, *packets, *fill;
};

/*
 * A window: its text parts, or under @key (NULL: in an array) the JSON
 * object {"id","start","start_ns","end","end_ns","packets","fill"}, end
 * null while open.
 */
void kb_print_window(const struct kb_out *o, const char *key,
		     const struct kb_window_fmt *f,
		     const struct kb_window_desc *w);
/* The JSON object alone, as show -j has it. */
void kb_window_json(struct json *j, const struct kb_window_desc *w);

/* "2026-11-22T07:31:30.123 to 2026-11-22T07:31:31.123" or "... to now". */
const char *kb_window_span(const struct kb_window_desc *w);

/* Filter type names, indexed by enum kbloom_type; NULL when unknown. */
const char *kb_type_name(uint32_t type);
/* enum kbloom_type for a name, or -1. */
int kb_type_parse(const char *name);
/* "bloom, partitioned, ..." for messages. */
const char *kb_type_list(void);
/* A type name for output, "type-N" for types newer than this tool. */
const char *kb_type_str(uint32_t type);

/* Types with counters: counting, dleft and dcf (del, count). */
bool kb_type_counts(uint32_t type);
/* Types that report SATURATED: counting, dleft and stable. */
bool kb_type_saturates(uint32_t type);

/*
 * Parses a description; NAME, TYPE, BITS and HASHES are required, and a
 * multi filter's DIMS.
 */
int kb_desc_parse(struct kb_nl *nl, struct nlattr **tb, struct kb_desc *d);

/* GET @name into @d. 0 or a negative errno (nl->error says why). */
int kb_desc_get(struct kb_nl *nl, const char *name, struct kb_desc *d);

/* list's line. */
void kb_desc_print_line(const struct kb_desc *d);
/* show's text, or the JSON object of show -j and list -j (describe.c). */
void kb_desc_render(const struct kb_out *o, const struct kb_desc *d);

/*
 * The figures show -j derives from a description, each NAN where show -j
 * has none (or null): fill_ratio (fill_percent / 100), estimated_keys,
 * fpr_now, fpr_at_capacity, fpr_limit (fpr_stable_point of a stable
 * filter, fpr_limit of a scalable one) and slice_keys (a scalable
 * filter's keys).
 */
struct kb_desc_figures {
	double fill_ratio, estimated_keys, fpr_now, fpr_at_capacity;
	double fpr_limit, slice_keys;
};
void kb_desc_figures(const struct kb_desc *d, struct kb_desc_figures *f);

/*
 * How two filters differ for merge and estimate (type, shape, parameters,
 * dimension names): "bits 1024 vs 2048", or "" when they do not (then
 * only the hash keys can differ).
 */
void kb_desc_diff(const struct kb_desc *a, const struct kb_desc *b,
		  char *buf, size_t len);

/*
 * After a refused MERGE or ESTIMATE of @a and @src: when the kernel says
 * they differ (EINVAL at SRC), replaces the errno text by what differs.
 */
void kb_explain_mismatch(struct kb_nl *nl, const char *a, const char *src);


#endif
