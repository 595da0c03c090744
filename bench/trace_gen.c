// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * trace_gen: a network of archive routers for 'bloomctl trace', made on
 * this machine without the kernel module.
 *
 *   trace_gen [options] OUTDIR
 *
 * Writes into OUTDIR (which must not exist):
 *   topo.txt        'router rI archive rI filter spie' for each router and
 *                   the links of a preferential-attachment graph
 *                   (Barabasi and Albert, "Emergence of scaling in random
 *                   networks", Science 286, 1999): each new router links
 *                   to LINKS routers already there, chosen with
 *                   probability proportional to their degree;
 *   rI/spie.<window id, 10 digits>.kbf
 *                   WINDOWS closed windows of each router's filter, as
 *                   'bloomctl archive' writes them: engine filters
 *                   (kmod/engine, as the module compiles it) saved with
 *                   the savefile writer (userspace/savefile.c), digest
 *                   mode spie;
 *   attack.pcap     PACKETS attack packets (raw IP, spoofed sources);
 *   truth.txt       'from', 'ingress', 'hops' and 'path' (ingress first).
 *
 * Every window of every router holds background traffic: the SPIE
 * digests (kb_digest(), as the netfilter hook computes them) of random
 * IPv4 packets, 150 + 50 per link of the router, at most 1000, so busy
 * routers' windows are fuller and their false positives real. The attack
 * packets' digests are added to the newest window of each router on one
 * shortest path from the ingress (a router of degree LINKS, as far from
 * 'from' as any) to 'from' (the last router made, an edge router of
 * degree LINKS): the path the packets took. The same seed gives the same
 * files, byte for byte.
 *
 * Options: --routers N (1000), --links M (2), --windows W (3),
 * --interval SEC (10), --packets P (10), --bits BITS (8192, k 4),
 * --seed S (1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/digest.h"
#include "engine/filter.h"
#include "savefile.h"
#include "../tests/unit/kb_rng.h"

#define T0_NS	1764000000000000000ULL	/* 2025-11-24T16:00:00Z */
#define NS	1000000000ULL

static struct {
	uint32_t routers, links, windows, interval, packets, seed;
	uint64_t bits;
} opt = { 1000, 2, 3, 10, 10, 1, 8192 };

/* The one stream every choice is drawn from (seeded with --seed). */
static struct kb_rng rng;

static void die(const char *what)
{
	fprintf(stderr, "trace_gen: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		die("calloc");
	return p;
}

/* A random IPv4 UDP or TCP packet (28 or 40 bytes + 8 of payload). */
#define PKT_LEN 48
static uint32_t make_packet(uint8_t *p)
{
	uint64_t r = kb_rng_next(&rng), r2 = kb_rng_next(&rng);
	int tcp = r & 1;
	uint32_t ihl = 20, l4 = tcp ? 20 : 8, len = ihl + l4 + 8, sum = 0, i;

	memset(p, 0, PKT_LEN);
	p[0] = 0x45;
	p[2] = len >> 8;
	p[3] = len & 0xff;
	p[4] = r >> 8;			/* IP ID */
	p[5] = r >> 16;
	p[8] = 32 + (r >> 24) % 32;	/* TTL */
	p[9] = tcp ? 6 : 17;
	memcpy(p + 12, &r2, 8);		/* source and destination */
	for (i = 0; i < 20; i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	p[10] = sum >> 8;
	p[11] = sum & 0xff;
	r = kb_rng_next(&rng);
	memcpy(p + ihl, &r, 4);		/* ports */
	if (tcp) {
		memcpy(p + ihl + 4, &r2, 8);	/* seq, ack */
		p[ihl + 12] = 0x50;
		p[ihl + 13] = 0x18;
	} else {
		p[ihl + 4] = (8 + 8) >> 8;
		p[ihl + 5] = (8 + 8) & 0xff;
	}
	r = kb_rng_next(&rng);
	memcpy(p + ihl + l4, &r, 8);	/* payload */
	return len;
}

static void add_packet(struct kb_filter *f, const uint8_t *p, uint32_t len)
{
	struct kb_digest d;

	if (kb_digest(p, len, KBLOOM_DIGEST_SPIE, &d) != KBLOOM_SKIP_NONE) {
		fprintf(stderr, "trace_gen: a generated packet has no digest\n");
		exit(1);
	}
	kb_filter_add(f, d.key, d.len);
}

static void write_window(const char *path, const struct kb_filter *f,
			 const uint8_t *hkey, uint64_t id, uint64_t packets)
{
	struct kb_save_header h = { 0 };
	struct kb_save_writer *w;
	char err[512];
	FILE *out;

	snprintf(h.name, sizeof(h.name), "spie");
	h.shape.type = f->s.type;
	h.shape.m = f->s.m;
	h.shape.k = f->s.k;
	h.shape.cell_bits = f->s.cell_bits;
	h.digest = KBLOOM_DIGEST_SPIE;
	memcpy(h.hash_key, hkey, KBLOOM_HASH_KEY_LEN);
	h.inserts = packets;
	h.windows = opt.windows;
	h.interval_ms = opt.interval * 1000ULL;
	h.window.id = id;
	h.window.start_ns = T0_NS + (id - 1) * opt.interval * NS;
	h.window.end_ns = h.window.start_ns + opt.interval * NS;
	h.window.packets = packets;
	h.cell_bytes = kb_filter_mem(f);
	out = fopen(path, "wb");
	if (!out)
		die(path);
	w = kb_save_writer_begin(&h, kb_save_stdio_write, out, path, err,
				 sizeof(err));
	if (!w || kb_save_write_cells(w, f->mem, h.cell_bytes) ||
	    kb_save_writer_finish(w)) {
		fprintf(stderr, "trace_gen: %s\n", err);
		exit(1);
	}
	kb_save_writer_free(w);
	if (fclose(out))
		die(path);
}

static void put32(FILE *f, uint32_t v)
{
	fwrite(&v, 4, 1, f);	/* pcap: the writer's byte order */
}

static void usage(void)
{
	fprintf(stderr, "usage: trace_gen [--routers N] [--links M] [--windows W] [--interval SEC]\n"
		"                 [--packets P] [--bits BITS] [--seed S] OUTDIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "routers", 1, 0, 'n' }, { "links", 1, 0, 'l' },
		{ "windows", 1, 0, 'w' }, { "interval", 1, 0, 'i' },
		{ "packets", 1, 0, 'p' }, { "bits", 1, 0, 'b' },
		{ "seed", 1, 0, 's' }, { 0, 0, 0, 0 }
	};
	uint32_t n, m, i, j, c, *deg, *ends, nends = 0, *la, *lb, nl = 0;
	uint32_t *dist, *par, *queue, qh = 0, qt = 0, from, ingress, hops;
	uint32_t *adjn, *adjo, *adj;
	uint8_t (*atk)[PKT_LEN], *onpath, pkt[PKT_LEN], hkey[16];
	uint32_t *atklen;
	uint64_t step;
	const char *outdir;
	char path[4096];
	FILE *f;
	int o;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		unsigned long long v;
		char *end;

		if (o == '?')
			usage();
		errno = 0;
		v = strtoull(optarg, &end, 10);
		if (errno || *end || !*optarg || v > 100000000ULL)
			usage();
		switch (o) {
		case 'n': opt.routers = v; break;
		case 'l': opt.links = v; break;
		case 'w': opt.windows = v; break;
		case 'i': opt.interval = v; break;
		case 'p': opt.packets = v; break;
		case 'b': opt.bits = v; break;
		case 's': opt.seed = v; break;
		}
	}
	if (argc - optind != 1 || opt.links < 1 || opt.routers < opt.links + 2 ||
	    opt.windows < 2 || opt.windows > KBLOOM_WINDOWS_MAX ||
	    opt.interval < 4 || opt.packets < 1 || opt.bits < 512 ||
	    opt.bits % 64)
		usage();
	outdir = argv[optind];
	n = opt.routers;
	m = opt.links;
	kb_rng_seed(&rng, opt.seed);

	/* Preferential attachment: router 0 .. m form a clique to start. */
	deg = xcalloc(n, sizeof(*deg));
	ends = xcalloc(2 * ((size_t)m * n + m * m), sizeof(*ends));
	la = xcalloc((size_t)m * n + m * m, sizeof(*la));
	lb = xcalloc((size_t)m * n + m * m, sizeof(*lb));
	for (i = 0; i <= m; i++)
		for (j = 0; j < i; j++) {
			la[nl] = j;
			lb[nl++] = i;
			ends[nends++] = i;
			ends[nends++] = j;
			deg[i]++;
			deg[j]++;
		}
	for (i = m + 1; i < n; i++) {
		uint32_t base = nl, t;

		for (c = 0; c < m; c++) {
			do {
				t = ends[kb_rng_below(&rng, nends)];
				for (j = base; j < nl && lb[j] != t; j++)
					;
			} while (j < nl);
			la[nl] = i;	/* lb: the old router */
			lb[nl++] = t;
		}
		for (j = base; j < nl; j++) {
			ends[nends++] = la[j];
			ends[nends++] = lb[j];
			deg[la[j]]++;
			deg[lb[j]]++;
		}
	}
	/* Adjacency (CSR), for the shortest path. */
	adjo = xcalloc(n + 1, sizeof(*adjo));
	adjn = xcalloc(n, sizeof(*adjn));
	adj = xcalloc(2 * (size_t)nl, sizeof(*adj));
	for (i = 0; i < n; i++)
		adjo[i + 1] = adjo[i] + deg[i];
	for (j = 0; j < nl; j++) {
		adj[adjo[la[j]] + adjn[la[j]]++] = lb[j];
		adj[adjo[lb[j]] + adjn[lb[j]]++] = la[j];
	}
	from = n - 1;
	dist = xcalloc(n, sizeof(*dist));
	par = xcalloc(n, sizeof(*par));
	queue = xcalloc(n, sizeof(*queue));
	for (i = 0; i < n; i++)
		dist[i] = UINT32_MAX;
	dist[from] = 0;
	queue[qt++] = from;
	while (qh < qt) {
		uint32_t u = queue[qh++];

		for (j = adjo[u]; j < adjo[u + 1]; j++)
			if (dist[adj[j]] == UINT32_MAX) {
				dist[adj[j]] = dist[u] + 1;
				par[adj[j]] = u;
				queue[qt++] = adj[j];
			}
	}
	/* The ingress: an edge router (degree m), as far as any; ties by lot. */
	hops = 0;
	for (i = 0; i < n; i++)
		if (deg[i] == m && dist[i] != UINT32_MAX && dist[i] > hops)
			hops = dist[i];
	for (c = 0, i = 0; i < n; i++)
		c += deg[i] == m && dist[i] == hops;
	c = kb_rng_below(&rng, c);
	for (ingress = 0; ; ingress++)
		if (deg[ingress] == m && dist[ingress] == hops && !c--)
			break;
	onpath = xcalloc(n, 1);
	for (i = ingress; ; i = par[i]) {
		onpath[i] = 1;
		if (i == from)
			break;
	}

	if (mkdir(outdir, 0755))
		die(outdir);
	snprintf(path, sizeof(path), "%s/topo.txt", outdir);
	f = fopen(path, "w");
	if (!f)
		die(path);
	fprintf(f, "# trace_gen --routers %u --links %u --windows %u --interval %u --packets %u --bits %llu --seed %u\n",
		n, m, opt.windows, opt.interval, opt.packets,
		(unsigned long long)opt.bits, opt.seed);
	for (i = 0; i < n; i++)
		fprintf(f, "router r%u archive r%u filter spie\n", i + 1, i + 1);
	for (j = 0; j < nl; j++)
		fprintf(f, "link r%u r%u\n", la[j] + 1, lb[j] + 1);
	if (fclose(f))
		die(path);

	/* The attack: spoofed packets, in the newest window. */
	atk = xcalloc(opt.packets, sizeof(*atk));
	atklen = xcalloc(opt.packets, sizeof(*atklen));
	for (c = 0; c < opt.packets; c++)
		atklen[c] = make_packet(atk[c]);
	snprintf(path, sizeof(path), "%s/attack.pcap", outdir);
	f = fopen(path, "wb");
	if (!f)
		die(path);
	put32(f, 0xa1b2c3d4);
	put32(f, 2 | (4 << 16));	/* version 2.4 */
	put32(f, 0);
	put32(f, 0);
	put32(f, 65535);
	put32(f, 101);			/* LINKTYPE_RAW */
	/* 1 ms apart, closer when many, all within the newest window. */
	step = 2 * NS / opt.packets < 1000000 ? 2 * NS / opt.packets : 1000000;
	for (c = 0; c < opt.packets; c++) {
		uint64_t at = T0_NS + opt.windows * opt.interval * NS - 3 * NS +
			      c * step;

		put32(f, at / NS);
		put32(f, at % NS / 1000);
		put32(f, atklen[c]);
		put32(f, atklen[c]);
		fwrite(atk[c], atklen[c], 1, f);
	}
	if (fclose(f))
		die(path);

	snprintf(path, sizeof(path), "%s/truth.txt", outdir);
	f = fopen(path, "w");
	if (!f)
		die(path);
	fprintf(f, "from r%u\ningress r%u\nhops %u\npath", from + 1,
		ingress + 1, hops);
	for (i = ingress; ; i = par[i]) {
		fprintf(f, " r%u", i + 1);
		if (i == from)
			break;
	}
	fprintf(f, "\n");
	if (fclose(f))
		die(path);

	/* Every router's windows. */
	for (i = 0; i < n; i++) {
		struct kb_shape s = { .type = KBLOOM_TYPE_BLOOM, .m = opt.bits,
				      .k = 4, .cell_bits = 1 };
		uint32_t bg = 150 + 50 * deg[i];
		struct kb_filter flt;
		uint64_t w;

		if (bg > 1000)
			bg = 1000;
		for (j = 0; j < sizeof(hkey); j += 8) {
			uint64_t r = kb_rng_next(&rng);

			memcpy(hkey + j, &r, 8);
		}
		snprintf(path, sizeof(path), "%s/r%u", outdir, i + 1);
		if (mkdir(path, 0755))
			die(path);
		if (kb_filter_init(&flt, &s, hkey)) {
			fprintf(stderr, "trace_gen: bad filter shape (bits %llu)\n",
				(unsigned long long)opt.bits);
			return 1;
		}
		for (w = 1; w <= opt.windows; w++) {
			uint64_t packets = bg;

			kb_filter_clear(&flt);
			for (c = 0; c < bg; c++) {
				uint32_t len = make_packet(pkt);

				add_packet(&flt, pkt, len);
			}
			if (w == opt.windows && onpath[i])
				for (c = 0; c < opt.packets; c++, packets++)
					add_packet(&flt, atk[c], atklen[c]);
			snprintf(path, sizeof(path), "%s/r%u/spie.%010llu.kbf",
				 outdir, i + 1, (unsigned long long)w);
			write_window(path, &flt, hkey, w, packets);
		}
		kb_filter_free(&flt);
	}
	printf("%u routers, %u links; from r%u, ingress r%u, %u hops\n", n, nl,
	       from + 1, ingress + 1, hops);
	free(deg);
	free(ends);
	free(la);
	free(lb);
	free(adjo);
	free(adjn);
	free(adj);
	free(dist);
	free(par);
	free(queue);
	free(onpath);
	free(atk);
	free(atklen);
	return 0;
}
