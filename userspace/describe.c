// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "describe.h"
#include "sizing.h"
#include "util.h"

static const char *const type_names[KBLOOM_TYPE_MAX + 1] = {
	[KBLOOM_TYPE_BLOOM] = "bloom",
};

const char *kb_type_name(uint32_t type)
{
	return type <= KBLOOM_TYPE_MAX ? type_names[type] : NULL;
}

int kb_type_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(type_names); i++)
		if (type_names[i] && !strcmp(type_names[i], name))
			return i;
	return -1;
}

const char *kb_type_list(void)
{
	static char buf[256];
	size_t n = 0;
	unsigned int i;

	if (buf[0])
		return buf;
	for (i = 0; i < ARRAY_SIZE(type_names); i++)
		if (type_names[i] && n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      n ? ", " : "", type_names[i]);
	return buf;
}

/* A type name for output, "type-N" for types newer than this tool. */
static const char *type_str(uint32_t type)
{
	static char buf[24];
	const char *s = kb_type_name(type);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "type-%u", type);
	return buf;
}

int kb_desc_parse(struct kb_nl *nl, struct nlattr **tb, struct kb_desc *d)
{
	static struct nla_policy stats_pol[KBLOOM_STATS_A_MAX + 1] = {
		[KBLOOM_STATS_A_INSERTS] = { .type = NLA_U64, .maxlen = 8 },
		[KBLOOM_STATS_A_QUERIES] = { .type = NLA_U64, .maxlen = 8 },
		[KBLOOM_STATS_A_POSITIVES] = { .type = NLA_U64, .maxlen = 8 },
	};
	static const int required[] = {
		KBLOOM_A_NAME, KBLOOM_A_TYPE, KBLOOM_A_BITS, KBLOOM_A_HASHES,
	};
	struct nlattr *st[KBLOOM_STATS_A_MAX + 1];
	unsigned int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < ARRAY_SIZE(required); i++)
		if (!tb[required[i]])
			return kb_nl_fail(nl, "filter description without %s",
					  kb_attr_name(required[i]));
	/* The policy checked the NUL and the length (< KBLOOM_NAME_MAX). */
	snprintf(d->name, sizeof(d->name), "%s",
		 (char *)nla_data(tb[KBLOOM_A_NAME]));
	d->type = nla_get_u32(tb[KBLOOM_A_TYPE]);
	d->bits = nla_get_u64(tb[KBLOOM_A_BITS]);
	d->hashes = nla_get_u32(tb[KBLOOM_A_HASHES]);
	if (!d->bits || !d->hashes)
		return kb_nl_fail(nl, "filter '%s' with %s 0", quote(d->name),
				  d->bits ? "HASHES" : "BITS");
#define OPT(t, attr, field, bit)				\
	do {							\
		if (t[attr]) {					\
			d->field = nla_get_u64(t[attr]);	\
			d->have |= bit;				\
		}						\
	} while (0)
	OPT(tb, KBLOOM_A_CAPACITY, capacity, KB_HAVE_CAPACITY);
	OPT(tb, KBLOOM_A_MEMORY, memory, KB_HAVE_MEMORY);
	OPT(tb, KBLOOM_A_FILL, fill, KB_HAVE_FILL);
	OPT(tb, KBLOOM_A_GENERATION, generation, KB_HAVE_GENERATION);
	if (tb[KBLOOM_A_STATS]) {
		if (nla_parse_nested(st, KBLOOM_STATS_A_MAX, tb[KBLOOM_A_STATS],
				     stats_pol) < 0)
			return kb_nl_fail(nl, "bad STATS nest");
		OPT(st, KBLOOM_STATS_A_INSERTS, inserts, KB_HAVE_INSERTS);
		OPT(st, KBLOOM_STATS_A_QUERIES, queries, KB_HAVE_QUERIES);
		OPT(st, KBLOOM_STATS_A_POSITIVES, positives,
		    KB_HAVE_POSITIVES);
	}
#undef OPT
	return 0;
}

/* An optional counter as text: the number, or "?" when not reported. */
static const char *opt_u64(const struct kb_desc *d, unsigned int bit,
			   uint64_t v)
{
	static char bufs[8][24];
	static unsigned int next;
	char *buf = bufs[next++ % ARRAY_SIZE(bufs)];

	if (!(d->have & bit))
		return "?";
	snprintf(buf, sizeof(bufs[0]), "%llu", (unsigned long long)v);
	return buf;
}

void kb_desc_print_line(const struct kb_desc *d)
{
	printf("%s %s bits %llu hashes %u memory %s fill %s inserts %s\n",
	       d->name, type_str(d->type), (unsigned long long)d->bits,
	       d->hashes, opt_u64(d, KB_HAVE_MEMORY, d->memory),
	       opt_u64(d, KB_HAVE_FILL, d->fill),
	       opt_u64(d, KB_HAVE_INSERTS, d->inserts));
}

void kb_desc_print_full(const struct kb_desc *d)
{
	printf("filter: %s\n", d->name);
	printf("  type: %s\n", type_str(d->type));
	printf("  bits (m): %llu\n", (unsigned long long)d->bits);
	printf("  hashes (k): %u\n", d->hashes);
	if (!(d->have & KB_HAVE_CAPACITY))
		printf("  capacity: ?\n");
	else if (!d->capacity)
		printf("  capacity: not set\n");
	else
		printf("  capacity: %llu\n", (unsigned long long)d->capacity);
	if (d->have & KB_HAVE_MEMORY)
		printf("  memory: %llu bytes (%s)\n",
		       (unsigned long long)d->memory, human_bytes(d->memory));
	else
		printf("  memory: ?\n");
	if (d->have & KB_HAVE_FILL)
		printf("  fill: %llu bits set (%.2f%%)\n",
		       (unsigned long long)d->fill,
		       100.0 * (double)d->fill / (double)d->bits);
	else
		printf("  fill: ?\n");
	printf("  inserts: %s\n", opt_u64(d, KB_HAVE_INSERTS, d->inserts));
	printf("  queries: %s\n", opt_u64(d, KB_HAVE_QUERIES, d->queries));
	printf("  positives: %s\n",
	       opt_u64(d, KB_HAVE_POSITIVES, d->positives));
	printf("  generation: %s\n",
	       opt_u64(d, KB_HAVE_GENERATION, d->generation));
	if (d->have & KB_HAVE_FILL) {
		if (d->fill >= d->bits)
			printf("  estimated keys: saturated\n");
		else
			printf("  estimated keys: %.1f\n",
			       sizing_estimate(d->bits, d->hashes, d->fill));
		printf("  fpr now: %.3g\n",
		       sizing_fpr_fill(d->bits, d->hashes, d->fill));
	}
	if ((d->have & KB_HAVE_CAPACITY) && d->capacity)
		printf("  fpr at capacity: %.3g\n",
		       sizing_fpr(d->bits, d->hashes, d->capacity));
}

void kb_desc_json(struct json *j, const struct kb_desc *d)
{
	json_obj_begin(j);
	json_key(j, "name");
	json_str(j, d->name);
	json_key(j, "type");
	json_str(j, type_str(d->type));
	json_key(j, "bits");
	json_u64(j, d->bits);
	json_key(j, "hashes");
	json_u64(j, d->hashes);
#define OPT(key, field, bit)			\
	do {					\
		if (d->have & (bit)) {		\
			json_key(j, key);	\
			json_u64(j, d->field);	\
		}				\
	} while (0)
	OPT("capacity", capacity, KB_HAVE_CAPACITY);
	OPT("memory", memory, KB_HAVE_MEMORY);
	OPT("fill", fill, KB_HAVE_FILL);
	if (d->have & KB_HAVE_FILL) {
		json_key(j, "fill_percent");
		json_double(j, 100.0 * (double)d->fill / (double)d->bits);
	}
	OPT("inserts", inserts, KB_HAVE_INSERTS);
	OPT("queries", queries, KB_HAVE_QUERIES);
	OPT("positives", positives, KB_HAVE_POSITIVES);
	OPT("generation", generation, KB_HAVE_GENERATION);
#undef OPT
	if (d->have & KB_HAVE_FILL) {
		bool sat = d->fill >= d->bits;

		json_key(j, "saturated");
		json_bool(j, sat);
		json_key(j, "estimated_keys");
		if (sat)
			json_null(j);
		else
			json_double(j, sizing_estimate(d->bits, d->hashes,
						       d->fill));
		json_key(j, "fpr_now");
		json_double(j, sizing_fpr_fill(d->bits, d->hashes, d->fill));
	}
	if ((d->have & KB_HAVE_CAPACITY) && d->capacity) {
		json_key(j, "fpr_at_capacity");
		json_double(j, sizing_fpr(d->bits, d->hashes, d->capacity));
	}
	json_obj_end(j);
}
