// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * metrics [FILE]: the module's and every filter's figures in the
 * Prometheus text exposition format (version 0.0.4), on stdout or written
 * to FILE atomically (a temp file in its directory, renamed over it), as
 * the node exporter's textfile collector reads them. Names follow the
 * Prometheus conventions (https://prometheus.io/docs/practices/naming/):
 * base units in the name (_bytes, _seconds, _ratio), _total for counters,
 * one metric family's samples together, filters told apart by the label
 * filter="NAME". The derived figures (estimated keys, false positive
 * rates) are those of show -j (kb_desc_figures).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "describe.h"
#include "limit_figures.h"
#include "pktfmt.h"
#include "util.h"

/* The names of the netns's filters (a GET dump), then each one's GET. */
struct names {
	char (*name)[KBLOOM_NAME_MAX];
	size_t n, cap;
};

static void names_reset(void *arg)
{
	((struct names *)arg)->n = 0;
}

static int names_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct names *l = arg;

	if (!tb[KBLOOM_A_NAME])
		return kb_nl_fail(nl, "filter description without NAME");
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		void *p = realloc(l->name, cap * sizeof(*l->name));

		if (!p) {
			errorf("out of memory");
			exit(EXIT_ERROR);
		}
		l->name = p;
		l->cap = cap;
	}
	nla_strlcpy(l->name[l->n++], tb[KBLOOM_A_NAME], KBLOOM_NAME_MAX);
	return 0;
}

/* A filter's description and the figures derived from it. */
struct entry {
	struct kb_desc d;
	struct kb_desc_figures g;
};

struct filters {
	struct entry *e;
	size_t n;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->d.name,
		      ((const struct entry *)b)->d.name);
}

/* A label value, escaped as the format wants. */
static void put_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		fputc(*v, f);
	}
}

/*
 * With -n NS every sample is labelled netns="NS" too, so that the files
 * of several namespaces can sit side by side in the textfile directory.
 */
static void put_netns_label(FILE *f, bool more)
{
	if (!opts.netns)
		return;
	fputs("netns=\"", f);
	put_value(f, opts.netns);
	fputs(more ? "\"," : "\"", f);
}

/* The labels {[netns="NS",]filter="NAME"} without the closing brace. */
static void put_filter_label(FILE *f, const char *name)
{
	put_netns_label(f, true);
	fputs("filter=\"", f);
	put_value(f, name);
	fputc('"', f);
}

/* A module sample: NAME[{netns="NS"}] V. */
static void put_module_sample(FILE *f, const char *name, uint64_t v)
{
	fputs(name, f);
	if (opts.netns) {
		fputc('{', f);
		put_netns_label(f, false);
		fputc('}', f);
	}
	fprintf(f, " %llu\n", (unsigned long long)v);
}

static void header(FILE *f, const char *metric, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", metric, help, metric, type);
}

/*
 * The per-filter metrics, a row each: where the value is in a filter's
 * entry (its description, or the figures derived from it), what the
 * description must hold for it (KB_HAVE_* bits, all of them) and the rule
 * that may leave it out further.
 */
enum metric_rule {
	M_ANY,
	M_NONZERO,	/* 0 means not set (capacity) */
	M_SATURATES,	/* types that report SATURATED */
	M_COUNTS,	/* types with counters (deletes) */
	M_FINITE,	/* a figure: only when finite */
	M_KEYS,		/* a scalable filter's keys, else the estimate */
	M_MS,		/* milliseconds, as seconds */
	M_ROTATIONS,	/* the newest window's ID less one (numbered from 1) */
};

enum metric_size { M_U32, M_U64, M_DOUBLE };

#define DESC(field, sz)	offsetof(struct entry, d.field), sz
#define FIG(field)	offsetof(struct entry, g.field), M_DOUBLE

static const struct metric {
	const char *metric, *type, *help;
	size_t off;
	enum metric_size size;
	unsigned int have;
	enum metric_rule rule;
} per_filter[] = {
	{ "kbloom_filter_cells", "gauge", "Cells m of the filter's table (bits; counters for counting types; a scalable filter's slice 0).",
	  DESC(p.m, M_U64), 0, M_ANY },
	{ "kbloom_filter_hashes", "gauge", "Hash functions k.",
	  DESC(p.k, M_U32), 0, M_ANY },
	{ "kbloom_filter_capacity_keys", "gauge", "Design capacity n given at create.",
	  DESC(capacity, M_U64), KB_HAVE_CAPACITY, M_NONZERO },
	{ "kbloom_filter_memory_bytes", "gauge", "Kernel memory the filter holds.",
	  DESC(memory, M_U64), KB_HAVE_MEMORY, M_ANY },
	{ "kbloom_filter_fill_cells", "gauge", "Cells set or non-zero (the current window's for a time-paged filter).",
	  DESC(fill, M_U64), KB_HAVE_FILL, M_ANY },
	{ "kbloom_filter_fill_ratio", "gauge", "Fill over cells, 0 to 1.",
	  FIG(fill_ratio), 0, M_ANY },
	{ "kbloom_filter_saturated_cells", "gauge", "Counters at their maximum.",
	  DESC(saturated, M_U64), KB_HAVE_SATURATED, M_SATURATES },
	{ "kbloom_filter_generation", "gauge", "Contents generation: 1, +1 per clear, merge into or import.",
	  DESC(generation, M_U64), KB_HAVE_GENERATION, M_ANY },
	{ "kbloom_filter_inserts_total", "counter", "Keys added (add, and packet digests).",
	  DESC(inserts, M_U64), KB_HAVE_INSERTS, M_ANY },
	{ "kbloom_filter_queries_total", "counter", "Keys tested.",
	  DESC(queries, M_U64), KB_HAVE_QUERIES, M_ANY },
	{ "kbloom_filter_positives_total", "counter", "Tests answered present.",
	  DESC(positives, M_U64), KB_HAVE_POSITIVES, M_ANY },
	{ "kbloom_filter_deletes_total", "counter", "Keys deleted.",
	  DESC(deletes, M_U64), KB_HAVE_DELETES, M_COUNTS },
	{ "kbloom_filter_estimated_keys", "gauge", "Distinct keys estimated from the fill (a scalable filter: keys counted in its slices).",
	  FIG(estimated_keys), 0, M_KEYS },
	{ "kbloom_filter_false_positive_ratio", "gauge", "False positive rate now, from the fill.",
	  FIG(fpr_now), 0, M_FINITE },
	{ "kbloom_filter_false_positive_ratio_at_capacity", "gauge", "False positive rate at the design capacity.",
	  FIG(fpr_at_capacity), 0, M_FINITE },
	{ "kbloom_filter_false_positive_ratio_limit", "gauge", "False positive rate bound: a stable filter's stable point, a scalable filter's limit.",
	  FIG(fpr_limit), 0, M_FINITE },
	{ "kbloom_filter_windows", "gauge", "Windows retained by a time-paged filter.",
	  DESC(nwin, M_U32), KB_HAVE_WINDOWS | KB_HAVE_WINDOW_LIST, M_ANY },
	{ "kbloom_filter_windows_max", "gauge", "Windows a time-paged filter retains at most (W).",
	  DESC(windows, M_U32), KB_HAVE_WINDOWS, M_ANY },
	{ "kbloom_filter_window_interval_seconds", "gauge", "Time a window is open.",
	  DESC(interval_ms, M_U64), KB_HAVE_WINDOWS, M_MS },
	{ "kbloom_filter_rotations_total", "counter", "Windows closed since the filter was created.",
	  DESC(win[0].id, M_U64), KB_HAVE_WINDOWS | KB_HAVE_WINDOW_LIST, M_ROTATIONS },
	{ "kbloom_filter_packets_seen_total", "counter", "Packets that reached the filter's netfilter hook and matched its device and family.",
	  DESC(attach.seen, M_U64), KB_HAVE_ATTACH, M_ANY },
	{ "kbloom_filter_packets_digested_total", "counter", "Packet digests added to the filter.",
	  DESC(attach.digested, M_U64), KB_HAVE_ATTACH, M_ANY },
	{ "kbloom_filter_slices", "gauge", "Slices a scalable filter has made.",
	  DESC(nslices, M_U32), KB_HAVE_SLICES, M_ANY },
	{ "kbloom_filter_overflow_keys_total", "counter", "Keys a scalable filter added beyond a full slice.",
	  DESC(overflow, M_U64), KB_HAVE_SLICES, M_ANY },
	{ "kbloom_filter_ofv_bits", "gauge", "Bits per overflow-vector counter of a dcf.",
	  DESC(ofv_bits, M_U32), KB_HAVE_OFV, M_ANY },
	{ "kbloom_filter_lost_increments_total", "counter", "Increments a dcf dropped (its counts may be low).",
	  DESC(lost, M_U64), KB_HAVE_OFV, M_ANY },
};

/* A metric's value for a filter; NAN: the filter has none. */
static double metric_value(const struct metric *m, const struct entry *e)
{
	const char *at = (const char *)e + m->off;
	const struct kb_desc *d = &e->d;
	uint64_t u = 0;
	double v;

	if ((d->have & m->have) != m->have)
		return NAN;
	switch (m->size) {
	case M_U32:
		v = *(const uint32_t *)at;
		break;
	case M_U64:
		u = *(const uint64_t *)at;
		v = (double)u;
		break;
	default:
		v = *(const double *)at;
	}
	switch (m->rule) {
	case M_ANY:
		return v;
	case M_NONZERO:
		return v ? v : NAN;
	case M_SATURATES:
		return kb_type_saturates(d->p.type) ? v : NAN;
	case M_COUNTS:
		return kb_type_counts(d->p.type) ? v : NAN;
	case M_FINITE:
		return isfinite(v) ? v : NAN;
	case M_KEYS:
		if (d->have & KB_HAVE_SLICES)
			return e->g.slice_keys;
		return isfinite(v) ? v : NAN;
	case M_MS:
		return v / 1000;
	case M_ROTATIONS:
		return d->nwin ? (double)(u - 1) : NAN;
	}
	return NAN;
}

static void family(FILE *f, const struct filters *fl, const struct metric *m)
{
	bool any = false;
	size_t i;

	for (i = 0; i < fl->n; i++) {
		double v = metric_value(m, &fl->e[i]);

		if (isnan(v))
			continue;
		if (!any)
			header(f, m->metric, m->type, m->help);
		any = true;
		fprintf(f, "%s{", m->metric);
		put_filter_label(f, fl->e[i].d.name);
		/* integers exactly, the rest to double's precision */
		if (v == floor(v) && fabs(v) < 0x1p53)
			fprintf(f, "} %.0f\n", v);
		else
			fprintf(f, "} %.17g\n", v);
	}
}

#define HAVE(d, bit)	((d)->have & (bit))

static void put_info(FILE *f, const struct filters *fl)
{
	size_t i;

	if (!fl->n)
		return;
	header(f, "kbloom_filter_info", "gauge", "The filter and its type (value 1).");
	for (i = 0; i < fl->n; i++) {
		fputs("kbloom_filter_info{", f);
		put_filter_label(f, fl->e[i].d.name);
		fprintf(f, ",type=\"%s\"} 1\n", kb_type_str(fl->e[i].d.p.type));
	}
}

static void put_attach(FILE *f, const struct filters *fl)
{
	bool any = false;
	unsigned int r;
	size_t i;

	for (i = 0; i < fl->n; i++) {
		const struct kb_attach_desc *at = &fl->e[i].d.attach;

		if (!HAVE(&fl->e[i].d, KB_HAVE_ATTACH))
			continue;
		if (!any)
			header(f, "kbloom_filter_attach_info", "gauge",
			       "The filter's netfilter attachment (value 1).");
		any = true;
		fputs("kbloom_filter_attach_info{", f);
		put_filter_label(f, fl->e[i].d.name);
		fprintf(f, ",hook=\"%s\",family=\"%s\",digest=\"%s\",dev=\"%s\"} 1\n",
			kb_hook_str(at->hook), kb_family_str(at->family),
			kb_digest_str(at->digest), at->ifname);
	}
	any = false;
	for (i = 0; i < fl->n; i++) {
		if (!HAVE(&fl->e[i].d, KB_HAVE_ATTACH))
			continue;
		if (!any)
			header(f, "kbloom_filter_attach_bypass", "gauge",
			       "1 when this may carry packets past the attachment now: its absent answers are not certain.");
		any = true;
		for (r = 0; r < 32; r++) {
			if (!(KBLOOM_BYPASS_MASK & (1u << r)))
				continue;
			fputs("kbloom_filter_attach_bypass{", f);
			put_filter_label(f, fl->e[i].d.name);
			fprintf(f, ",by=\"%s\"} %d\n", kb_bypass_str(r),
				!!(fl->e[i].d.attach.bypass & (1u << r)));
		}
	}
	any = false;
	for (i = 0; i < fl->n; i++) {
		if (!HAVE(&fl->e[i].d, KB_HAVE_ATTACH))
			continue;
		if (!any)
			header(f, "kbloom_filter_packets_skipped_total", "counter",
			       "Packets that gave no digest, by reason.");
		any = true;
		for (r = 1; r <= KBLOOM_SKIP_MAX; r++) {
			fputs("kbloom_filter_packets_skipped_total{", f);
			put_filter_label(f, fl->e[i].d.name);
			fprintf(f, ",reason=\"%s\"} %llu\n", kb_skip_str(r),
				(unsigned long long)fl->e[i].d.attach.skipped[r]);
		}
	}
}

/* Types that grow (scalable, dcf): 1 when growth stopped, with why. */
static void put_growth(FILE *f, const struct filters *fl)
{
	bool any = false;
	size_t i;

	for (i = 0; i < fl->n; i++) {
		const struct kb_desc *d = &fl->e[i].d;

		if (!HAVE(d, KB_HAVE_SLICES) && !HAVE(d, KB_HAVE_OFV))
			continue;
		if (!any)
			header(f, "kbloom_filter_growth_stopped", "gauge",
			       "1 when the filter cannot grow now, reason the limit; 0 with reason ok while it grows.");
		any = true;
		fputs("kbloom_filter_growth_stopped{", f);
		put_filter_label(f, d->name);
		fprintf(f, ",reason=\"%s\"} %d\n", kb_grow_name(d->grow_error),
			d->grow_error != KBLOOM_GROW_OK);
	}
}

static void put_module(FILE *f, const struct kb_status *st)
{
	header(f, "kbloom_module_loaded", "gauge", "1 when the kbloom module is loaded.");
	put_module_sample(f, "kbloom_module_loaded", st != NULL);
	if (!st)
		return;
	if (st->version[0]) {
		header(f, "kbloom_module_info", "gauge", "The loaded module's version (value 1).");
		fputs("kbloom_module_info{", f);
		put_netns_label(f, true);
		fputs("version=\"", f);
		put_value(f, st->version);
		fputs("\"} 1\n", f);
	}
#define SAMPLE(name, help, v)				\
	do {						\
		header(f, name, "gauge", help);		\
		put_module_sample(f, name, v);		\
	} while (0)
	SAMPLE("kbloom_filters", "Filters in this network namespace.", st->nfilters);
	SAMPLE("kbloom_filters_max", "Filters a network namespace may hold (max_filters).", st->max_filters);
	SAMPLE("kbloom_memory_bytes", "Kernel memory of this network namespace's filters.", st->mem_netns);
	SAMPLE("kbloom_memory_mapped_gone_bytes", "Of kbloom_memory_bytes, destroyed filters' that mappings still hold.", st->mem_mapped_gone);
	if (st->all)
		SAMPLE("kbloom_memory_all_bytes", "Kernel memory of every namespace's filters.", st->mem_all);
	SAMPLE("kbloom_memory_limit_bytes", "The module's memory limit (max_memory).", st->mem_limit);
	if (st->owned) {
		SAMPLE("kbloom_user_filters", "Filters in every namespace of this namespace's owner.", st->user_filters);
		SAMPLE("kbloom_user_filters_max", "Filters the owner may hold (user_max_filters).", st->user_max_filters);
		SAMPLE("kbloom_user_memory_bytes", "Kernel memory of the owner's filters.", st->mem_user);
		SAMPLE("kbloom_user_memory_limit_bytes", "The owner's share of max_memory (user_memory_percent).", st->mem_user_limit);
	}
#undef SAMPLE
}

static void put_all(FILE *f, const struct kb_status *st, const struct filters *fl)
{
	size_t i;

	put_module(f, st);
	if (!st)
		return;
	put_info(f, fl);
	for (i = 0; i < sizeof(per_filter) / sizeof(per_filter[0]); i++)
		family(f, fl, &per_filter[i]);
	put_attach(f, fl);
	put_growth(f, fl);
}

/* Asks the module; 0, or EXIT_ERROR with the error printed. */
static int collect(struct kb_status *st, struct filters *fl)
{
	struct names l = { 0 };
	struct nl_msg *msg;
	struct kb_nl nl;
	size_t i;
	int r;

	if (open_netlink(&nl))
		return EXIT_ERROR;
	msg = kb_nl_msg(&nl, KBLOOM_CMD_STATUS, 0, 0);
	r = kb_nl_request(&nl, msg, kb_status_reply, st);
	nlmsg_free(msg);
	if (!r && !st->replies)
		r = kb_nl_fail(&nl, "no status reply");
	if (r) {
		kb_nl_perror(&nl, "unable to read the module's status");
		goto out;
	}
	r = kb_nl_dump(&nl, KBLOOM_CMD_GET, names_reply, names_reset, &l);
	if (r) {
		kb_nl_perror(&nl, "unable to list filters");
		goto out;
	}
	fl->e = calloc(l.n ? l.n : 1, sizeof(*fl->e));
	if (!fl->e) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}
	for (i = 0; i < l.n; i++) {
		struct kb_desc *d = &fl->e[fl->n].d;

		/* the full description: GET's doit has the window list */
		r = kb_desc_get(&nl, l.name[i], d);
		if (r == -ENOENT)	/* destroyed since the dump */
			continue;
		if (r) {
			kb_nl_perror(&nl, "unable to describe filter '%s'",
				     quote(l.name[i]));
			goto out;
		}
		fl->n++;
	}
	if (fl->n)
		qsort(fl->e, fl->n, sizeof(*fl->e), by_name);
	for (i = 0; i < fl->n; i++)
		kb_desc_figures(&fl->e[i].d, &fl->e[i].g);
out:
	free(l.name);
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Writes FILE.PID.tmp in FILE's directory, mode 0644, and renames it. */
static int write_file(const char *path, const struct kb_status *st,
		      const struct filters *fl)
{
	char tmp[4096];
	FILE *f;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid()) >=
	    (int)sizeof(tmp)) {
		errorf("metrics: file name too long: '%s'", quote(path));
		return EXIT_ERROR;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || fchmod(fd, 0644) || !(f = fdopen(fd, "w"))) {
		errorf("metrics: unable to write '%s': %s", quote(tmp),
		       strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return EXIT_ERROR;
	}
	put_all(f, st, fl);
	if (fflush(f) || fsync(fd) || ferror(f)) {
		errorf("metrics: unable to write '%s': %s", quote(tmp),
		       strerror(errno));
		fclose(f);
		unlink(tmp);
		return EXIT_ERROR;
	}
	fclose(f);
	if (rename(tmp, path)) {
		errorf("metrics: unable to rename '%s' to '%s': %s", quote(tmp),
		       quote(path), strerror(errno));
		unlink(tmp);
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

int cmd_metrics(int argc, char **argv)
{
	struct kb_status st = { 0 };
	struct filters fl = { 0 };
	bool loaded;
	int r = EXIT_OK;

	if (argc > 2) {
		unexpected_argument(argv[0], argv[2]);
		return EXIT_ERROR;
	}
	if (opts.json) {
		usage_errorf(argv[0], "no JSON output: the format is Prometheus text");
		return EXIT_ERROR;
	}
	/* not loaded is a figure, not an error (and is not cured by loading) */
	loaded = !access("/sys/module/kbloom", F_OK);
	if (!loaded && errno != ENOENT) {
		errorf("unable to tell whether the kbloom module is loaded (/sys/module/kbloom): %s",
		       strerror(errno));
		return EXIT_ERROR;
	}
	if (loaded)
		r = collect(&st, &fl);
	if (r == EXIT_OK) {
		if (argc == 2 && strcmp(argv[1], "-"))
			r = write_file(argv[1], loaded ? &st : NULL, &fl);
		else
			put_all(stdout, loaded ? &st : NULL, &fl);
	}
	free(fl.e);
	return r;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_metrics = {
	.name = "metrics",
	.fn = cmd_metrics,
	.summary = "print figures for Prometheus",
	.usage = "[FILE|-]\n",
	.help =
		"Prints the module's figures and those of every filter of the network\n"
		"namespace (the init one, or -n's) in the Prometheus text format; with\n"
		"FILE, writes them to FILE instead, atomically (FILE.PID.tmp in its\n"
		"directory, mode 0644, renamed over FILE): what the node exporter's\n"
		"textfile collector reads, e.g.\n"
		"  bloomctl metrics /var/lib/prometheus/node-exporter/kbloom.prom\n"
		"from kbloom-metrics.timer. With -n NS every sample is also labelled\n"
		"netns=\"NS\", so one file per namespace can sit in that directory.\n"
		"Module: kbloom_module_loaded (0, and nothing else, when it is\n"
		"not), kbloom_module_info{version},\n"
		"kbloom_filters, kbloom_filters_max, kbloom_memory_bytes (this\n"
		"namespace), kbloom_memory_all_bytes, kbloom_memory_limit_bytes and,\n"
		"in a container's namespace, kbloom_user_{filters,filters_max,\n"
		"memory_bytes,memory_limit_bytes}. Per filter, labelled filter=\"NAME\":\n"
		"kbloom_filter_info{type}, _cells, _hashes, _capacity_keys,\n"
		"_memory_bytes, _fill_cells, _fill_ratio, _saturated_cells,\n"
		"_generation, _inserts_total, _queries_total, _positives_total,\n"
		"_deletes_total, _estimated_keys, _false_positive_ratio (now),\n"
		"_false_positive_ratio_at_capacity, _false_positive_ratio_limit\n"
		"(stable, scalable), time-paged: _windows, _windows_max,\n"
		"_window_interval_seconds, _rotations_total; attached:\n"
		"_attach_info{hook,family,digest,dev}, _attach_bypass{by},\n"
		"_packets_seen_total,\n"
		"_packets_digested_total, _packets_skipped_total{reason}; growing\n"
		"types: _slices, _overflow_keys_total, _ofv_bits,\n"
		"_lost_increments_total, _growth_stopped{reason}. Each is what\n"
		"'show -j' gives (a figure show -j leaves out is left out). Exit\n"
		"status 2 when the module cannot be asked or FILE not written (FILE\n"
		"is then left as it was).\n",
};
