/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Filter descriptions (KBLOOM_CMD_GET replies): parsing, and printing as a
 * list line, a full "show" block, or JSON. Shared by list and show.
 */
#ifndef BLOOMCTL_DESCRIBE_H
#define BLOOMCTL_DESCRIBE_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"
#include "nl.h"

/* Bits of struct kb_desc.have for the optional fields. */
enum {
	KB_HAVE_CAPACITY = 1 << 0,
	KB_HAVE_MEMORY = 1 << 1,
	KB_HAVE_FILL = 1 << 2,
	KB_HAVE_GENERATION = 1 << 3,
	KB_HAVE_INSERTS = 1 << 4,
	KB_HAVE_QUERIES = 1 << 5,
	KB_HAVE_POSITIVES = 1 << 6,
};

struct kb_desc {
	char name[KBLOOM_NAME_MAX];
	uint32_t type;
	uint64_t bits;		/* m */
	uint32_t hashes;	/* k */
	uint64_t capacity, memory, fill, generation;
	uint64_t inserts, queries, positives;
	unsigned int have;	/* KB_HAVE_* */
};

/* Filter type names, indexed by enum kbloom_type; NULL when unknown. */
const char *kb_type_name(uint32_t type);
/* enum kbloom_type for a name, or -1. */
int kb_type_parse(const char *name);
/* "bloom" for the usage text. */
const char *kb_type_list(void);

/* Parses a description; NAME, TYPE, BITS and HASHES are required. */
int kb_desc_parse(struct kb_nl *nl, struct nlattr **tb, struct kb_desc *d);

void kb_desc_print_line(const struct kb_desc *d);
void kb_desc_print_full(const struct kb_desc *d);
void kb_desc_json(struct json *j, const struct kb_desc *d);

#endif
