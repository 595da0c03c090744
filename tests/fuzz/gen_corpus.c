// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Writes the seed corpus of the fuzz targets (make corpus):
 *   corpus/digest_fuzz/    IPv4/IPv6 packets from the network header:
 *                          options, extension headers, fragments, AH,
 *                          ICMP; and TCP GSO super-packets after the
 *                          target's 8 parameter bytes (gso-*)
 *   corpus/savefile_fuzz/  save files of every type, plain and zstd,
 *                          written with the real writer
 *   corpus/pcapfile_fuzz/  small captures of every link type bloomctl
 *                          reads, pcap (us and ns) and pcapng
 *   corpus/keyparse_fuzz/  a selector byte and a command-line string
 * Deterministic: the same files every time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/filter.h"
#include "savefile.h"

static const char *top;

static void put(const char *dir, const char *name, const void *p, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", top, dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, len, f) != len || fclose(f)) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

/* ---- Packets ---------------------------------------------------------- */

struct pkt {
	uint8_t b[256];
	size_t len;
};

static void add(struct pkt *p, const void *b, size_t len)
{
	memcpy(p->b + p->len, b, len);
	p->len += len;
}

static void be16(uint8_t *p, unsigned int v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* IPv4 header with @optlen option bytes (a multiple of 4) and @proto. */
static void ip4(struct pkt *p, uint8_t proto, size_t optlen, unsigned int frag,
		size_t payload)
{
	uint8_t h[60] = { 0 };
	size_t hl = 20 + optlen, i;

	h[0] = 0x40 | (uint8_t)(hl / 4);
	h[1] = 0x10;
	be16(h + 2, hl + payload);
	be16(h + 4, 0x1234);
	be16(h + 6, frag);
	h[8] = 64;
	h[9] = proto;
	memcpy(h + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	/* Options: record route (7), then NOPs / end of list. */
	if (optlen >= 8) {
		h[20] = 7;
		h[21] = 7;
		h[22] = 4;
		for (i = 27; i < hl; i++)
			h[i] = 1;
		h[hl - 1] = 0;
	}
	p->len = 0;
	add(p, h, hl);
}

static void ip6(struct pkt *p, uint8_t nh, size_t payload)
{
	uint8_t h[40] = { 0x60, 0x0a, 0xbc, 0xde };

	be16(h + 4, payload);
	h[6] = nh;
	h[7] = 64;
	memcpy(h + 8, "\xfd\x00\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(h + 24, "\xfd\x00\0\0\0\0\0\0\0\0\0\0\0\0\0\x02", 16);
	p->len = 0;
	add(p, h, 40);
}

static void tcp(struct pkt *p, size_t payload)
{
	uint8_t h[20] = { 0x9c, 0x40, 0x14, 0x51, 0, 0, 0x10, 0, 0, 0, 0, 0,
			  0x50, 0x18, 0xff, 0xff };
	uint8_t d[64];

	add(p, h, 20);
	memset(d, 'x', sizeof(d));
	add(p, d, payload);
}

static void udp(struct pkt *p, size_t payload)
{
	uint8_t h[8] = { 0x30, 0x39, 0x00, 0x35 };
	uint8_t d[64];

	be16(h + 4, 8 + payload);
	add(p, h, 8);
	memset(d, 'u', sizeof(d));
	add(p, d, payload);
}

/* IPv6 extension header: @nh next, @len8 in 8-byte units less 1. */
static void ext6(struct pkt *p, uint8_t nh, unsigned int len8)
{
	uint8_t h[64] = { nh, (uint8_t)len8, 1, (uint8_t)(len8 * 8 + 4) };

	add(p, h, (len8 + 1) * 8);
}

static void packets(struct pkt *out, const char **names, size_t *n)
{
	struct pkt p;
	size_t k = 0;

#define KEEP(name) do { names[k] = name; out[k++] = p; } while (0)
	ip4(&p, 6, 0, 0, 20 + 12);
	tcp(&p, 12);
	KEEP("ipv4-tcp");
	ip4(&p, 17, 12, 0, 8 + 20);
	udp(&p, 20);
	KEEP("ipv4-udp-options");
	ip4(&p, 17, 40, 0x2000, 8 + 16);	/* MF, offset 0: first */
	udp(&p, 16);
	KEEP("ipv4-first-fragment-40opt");
	ip4(&p, 17, 0, 0x00b9, 24);		/* offset 1480: later */
	udp(&p, 16);
	KEEP("ipv4-later-fragment");
	{
		uint8_t icmp[16] = { 8, 0, 0, 0, 0, 1, 0, 1, 'p', 'i', 'n', 'g' };

		ip4(&p, 1, 0, 0, sizeof(icmp));
		add(&p, icmp, sizeof(icmp));
		KEEP("ipv4-icmp-echo");
	}
	ip4(&p, 132, 0, 0, 4);			/* SCTP, ports only */
	add(&p, "\x0b\xb8\x0b\xb9", 4);
	KEEP("ipv4-sctp-ports-only");
	ip6(&p, 6, 20 + 8);
	tcp(&p, 8);
	KEEP("ipv6-tcp");
	ip6(&p, 0, 8 + 16 + 24 + 8 + 8);	/* HBH, dstopts, routing */
	ext6(&p, 60, 0);
	ext6(&p, 43, 1);
	ext6(&p, 17, 2);
	udp(&p, 8);
	KEEP("ipv6-hbh-dst-rt-udp");
	ip6(&p, 44, 8 + 8 + 8);			/* fragment, first */
	add(&p, "\x11\x00\x00\x01\x00\x00\x00\x2a", 8);
	udp(&p, 8);
	KEEP("ipv6-first-fragment");
	ip6(&p, 44, 8 + 16);			/* fragment, offset 1448 */
	add(&p, "\x11\x00\x0b\x50\x00\x00\x00\x2a", 8);
	add(&p, "uuuuuuuuuuuuuuuu", 16);
	KEEP("ipv6-later-fragment");
	{
		/* AH: 12 bytes + 12-byte ICV = 24 = (4 + 2) * 4. */
		uint8_t ah[24] = { 6, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1 };

		ip6(&p, 51, 24 + 20);
		add(&p, ah, sizeof(ah));
		tcp(&p, 0);
		KEEP("ipv6-ah-tcp");
	}
	{
		uint8_t icmp6[8] = { 128, 0, 0, 0, 0, 1, 0, 1 };

		ip6(&p, 58, 8);
		add(&p, icmp6, 8);
		KEEP("ipv6-icmpv6-echo");
	}
	ip6(&p, 59, 0);				/* no next header */
	KEEP("ipv6-no-next-header");
	ip6(&p, 0, 0);				/* jumbogram */
	add(&p, "\x06\x00\xc2\x04\x00\x01\x00\x00", 8);
	tcp(&p, 0);
	KEEP("ipv6-jumbogram");
	*n = k;
#undef KEEP
}

static void digest_seeds(void)
{
	struct pkt pk[32], g;
	const char *names[32];
	size_t n, i;

	packets(pk, names, &n);
	for (i = 0; i < n; i++)
		put("digest_fuzz", names[i], pk[i].b, pk[i].len);

	/* GSO: gso_size LE16, total - caplen LE16, flags, 3 spare; packet. */
	{
		uint8_t params[8] = { 100, 0, 0xe8, 0x03, 0x02 }; /* 1000 more */
		struct pkt p;

		ip4(&p, 6, 0, 0x4000, 20 + 64);	/* DF */
		tcp(&p, 64);
		g.len = 0;
		add(&g, params, 8);
		add(&g, p.b, p.len);
		put("digest_fuzz", "gso-ipv4-tcp", g.b, g.len);

		ip6(&p, 6, 20 + 48);
		tcp(&p, 48);
		params[0] = 0x40;	/* 64 */
		params[4] = 0x07;	/* fixed ID, 3 more segments */
		g.len = 0;
		add(&g, params, 8);
		add(&g, p.b, p.len);
		put("digest_fuzz", "gso-ipv6-tcp", g.b, g.len);

		/* BIG TCP: payload length 0, jumbo hop-by-hop header. */
		ip6(&p, 0, 0);
		add(&p, "\x06\x00\xc2\x04\x00\x01\x10\x00", 8);
		tcp(&p, 32);
		params[0] = 0xa8;	/* 1448 */
		params[1] = 0x05;
		params[2] = 0xff;
		params[3] = 0xff;
		params[4] = 0x04;
		g.len = 0;
		add(&g, params, 8);
		add(&g, p.b, p.len);
		put("digest_fuzz", "gso-ipv6-bigtcp-jumbo", g.b, g.len);
	}
}

/* ---- Captures --------------------------------------------------------- */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void bput(struct buf *b, const void *p, size_t len)
{
	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

static void le32(struct buf *b, uint32_t v)
{
	bput(b, &v, 4);		/* x86-64: little-endian */
}

static void le16(struct buf *b, uint16_t v)
{
	bput(b, &v, 2);
}

/* Link header for @dlt in front of @ip; @v6 chooses the protocol. */
static void link_hdr(struct buf *b, uint32_t dlt, int v6, int vlan)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	uint8_t t[2];

	switch (dlt) {
	case 1:				/* Ethernet */
		bput(b, macs, 12);
		if (vlan) {
			bput(b, "\x88\xa8\x00\x64\x81\x00\x00\x0a", 8);
		}
		be16(t, v6 ? 0x86dd : 0x0800);
		bput(b, t, 2);
		break;
	case 113:			/* SLL */
		bput(b, "\x00\x00\x00\x01\x00\x06", 6);
		bput(b, macs, 6);
		bput(b, "\x00\x00", 2);
		be16(t, v6 ? 0x86dd : 0x0800);
		bput(b, t, 2);
		break;
	case 276:			/* SLL2 */
		be16(t, v6 ? 0x86dd : 0x0800);
		bput(b, t, 2);
		bput(b, "\x00\x00\x00\x00\x00\x02\x00\x01\x04\x06", 10);
		bput(b, macs, 6);
		bput(b, "\x00\x00", 2);
		break;
	case 0:				/* NULL: host order */
		le32(b, v6 ? 10 : 2);
		break;
	case 108:			/* LOOP: network order */
		bput(b, v6 ? "\x00\x00\x00\x1e" : "\x00\x00\x00\x02", 4);
		break;
	}
}

/* A classic pcap of a few packets (IPv4, IPv6, one ARP for Ethernet). */
static void pcap_file(const char *name, uint32_t dlt, int ns, int vlan,
		      struct pkt *pk, size_t npk)
{
	struct buf b = { 0 }, rec;
	size_t i;

	le32(&b, ns ? 0xa1b23c4d : 0xa1b2c3d4);
	le16(&b, 2);
	le16(&b, 4);
	le32(&b, 0);
	le32(&b, 0);
	le32(&b, 262144);
	le32(&b, dlt);
	for (i = 0; i < npk; i++) {
		int v6 = pk[i].b[0] >> 4 == 6;

		if ((dlt == 228 && v6) || (dlt == 229 && !v6))
			continue;
		memset(&rec, 0, sizeof(rec));
		link_hdr(&rec, dlt, v6, vlan && i == 0);
		bput(&rec, pk[i].b, pk[i].len);
		le32(&b, 1700000000 + i);
		le32(&b, ns ? 123456789 : 123456);
		/* The last record cut short by the snap length. */
		le32(&b, i == npk - 1 ? rec.len - 4 : rec.len);
		le32(&b, rec.len);
		bput(&b, rec.p, i == npk - 1 ? rec.len - 4 : rec.len);
		free(rec.p);
	}
	if (dlt == 1) {		/* ARP: not IP, counted as other */
		static const uint8_t arp[42] = { 0xff, 0xff, 0xff, 0xff, 0xff,
			0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1 };

		le32(&b, 1700000100);
		le32(&b, 0);
		le32(&b, sizeof(arp));
		le32(&b, 60);
		bput(&b, arp, sizeof(arp));
	}
	put("pcapfile_fuzz", name, b.p, b.len);
	free(b.p);
}

/* pcapng: section header, interface (Ethernet, ns resolution), 2 EPBs. */
static void pcapng_file(struct pkt *pk, size_t npk)
{
	struct buf b = { 0 }, rec;
	size_t i, pad;

	le32(&b, 0x0a0d0d0a);
	le32(&b, 28);
	le32(&b, 0x1a2b3c4d);
	le16(&b, 1);
	le16(&b, 0);
	le32(&b, 0xffffffff);
	le32(&b, 0xffffffff);
	le32(&b, 28);
	/* IDB with if_tsresol = 9 (ns). */
	le32(&b, 1);
	le32(&b, 32);
	le16(&b, 1);
	le16(&b, 0);
	le32(&b, 0);
	le16(&b, 9);
	le16(&b, 1);
	bput(&b, "\x09\x00\x00\x00", 4);
	le32(&b, 0);		/* opt_endofopt */
	le32(&b, 32);
	for (i = 0; i < npk; i++) {
		memset(&rec, 0, sizeof(rec));
		link_hdr(&rec, 1, pk[i].b[0] >> 4 == 6, 0);
		bput(&rec, pk[i].b, pk[i].len);
		pad = (4 - rec.len % 4) % 4;
		le32(&b, 6);
		le32(&b, 32 + rec.len + pad);
		le32(&b, 0);
		le32(&b, 0x00179c2a);
		le32(&b, 0x1b2c3d4e + i);
		le32(&b, rec.len);
		le32(&b, rec.len);
		bput(&b, rec.p, rec.len);
		bput(&b, "\0\0\0", pad);
		le32(&b, 32 + rec.len + pad);
		free(rec.p);
	}
	put("pcapfile_fuzz", "pcapng-ether", b.p, b.len);
	free(b.p);
}

static void pcap_seeds(void)
{
	struct pkt pk[32], sel[4];
	const char *names[32];
	size_t n;

	packets(pk, names, &n);
	/* ipv4-udp-options, ipv6-hbh-dst-rt-udp, ipv4-later-fragment */
	sel[0] = pk[1];
	sel[1] = pk[7];
	sel[2] = pk[3];
	pcap_file("ether-vlan.pcap", 1, 0, 1, sel, 3);
	pcap_file("ether-ns.pcap", 1, 1, 0, sel, 2);
	pcap_file("raw.pcap", 101, 0, 0, sel, 3);
	pcap_file("sll.pcap", 113, 0, 0, sel, 2);
	pcap_file("sll2.pcap", 276, 1, 0, sel, 2);
	pcap_file("null.pcap", 0, 0, 0, sel, 2);
	pcap_file("loop.pcap", 108, 0, 0, sel, 2);
	pcap_file("ipv4.pcap", 228, 0, 0, sel, 3);
	pcap_file("ipv6.pcap", 229, 0, 0, sel, 2);
	pcapng_file(sel, 2);
}

/* ---- Save files ------------------------------------------------------- */

static int wr(void *arg, const void *buf, size_t len)
{
	bput(arg, buf, len);
	return 0;
}

static void savefile(const char *name, struct kb_save_header *h, int zstd)
{
	static const char *const keys[] = { "10.0.0.1", "10.0.0.2", "a", "key" };
	struct kb_shape s = {
		.type = h->shape.type, .m = h->shape.m, .k = h->shape.k,
		.cell_bits = h->shape.cell_bits, .update = h->shape.update,
		.decrement = h->shape.decrement,
		.subtables = h->shape.subtables,
		.bucket_cells = h->shape.bucket_cells,
		.fp_bits = h->shape.fp_bits, .dims = h->shape.dims,
	};
	struct kb_save_writer *w;
	struct kb_filter f;
	struct buf b = { 0 };
	char err[256];
	size_t i;

	if (kb_filter_check_shape(&s) != KB_SHAPE_OK ||
	    kb_filter_init(&f, &s, h->hash_key)) {
		fprintf(stderr, "gen_corpus: %s: bad shape\n", name);
		exit(1);
	}
	for (i = 0; i < 4; i++) {
		if (s.type == KBLOOM_TYPE_MULTI) {
			struct kb_tuple t = { .mask = (1u << s.dims) - 1 };
			uint32_t d;

			for (d = 0; d < s.dims; d++) {
				t.val[d] = keys[(i + d) % 4];
				t.len[d] = strlen(keys[(i + d) % 4]);
			}
			kb_filter_add_tuple(&f, &t);
		} else {
			kb_filter_add(&f, keys[i], strlen(keys[i]));
		}
	}
	h->version = KB_SAVE_VERSION;
	h->flags = zstd ? KB_SAVE_F_ZSTD : 0;
	h->cell_bytes = kb_filter_mem(&f);
	h->inserts = 4;
	w = kb_save_writer_begin(h, wr, &b, name, err, sizeof(err));
	if (!w || kb_save_write_cells(w, f.mem, h->cell_bytes) ||
	    kb_save_writer_finish(w)) {
		fprintf(stderr, "gen_corpus: %s: %s\n", name, err);
		exit(1);
	}
	kb_save_writer_free(w);
	kb_filter_free(&f);
	put("savefile_fuzz", name, b.p, b.len);
	free(b.p);
}

static void save_seeds(void)
{
	struct kb_save_header h;
	int z;

	for (z = 0; z < 2; z++) {
		memset(&h, 0, sizeof(h));
		strcpy(h.name, "f1");
		memcpy(h.hash_key, "0123456789abcdef", 16);
		h.shape.type = KBLOOM_TYPE_BLOOM;
		h.shape.m = 1024;
		h.shape.k = 3;
		h.shape.cell_bits = 1;
		h.capacity = 100;
		savefile(z ? "bloom.zst.kbf" : "bloom.kbf", &h, z);

		memset(&h, 0, sizeof(h));
		strcpy(h.name, "cnt");
		h.shape.type = KBLOOM_TYPE_COUNTING;
		h.shape.m = 256;
		h.shape.k = 4;
		h.shape.cell_bits = 4;
		h.shape.update = KBLOOM_UPDATE_CONSERVATIVE;
		savefile(z ? "counting.zst.kbf" : "counting.kbf", &h, z);

		memset(&h, 0, sizeof(h));
		strcpy(h.name, "dl");
		h.shape.type = KBLOOM_TYPE_DLEFT;
		h.shape.m = 128;
		h.shape.k = 1;
		h.shape.subtables = 4;
		h.shape.bucket_cells = 8;
		h.shape.fp_bits = 16;
		savefile(z ? "dleft.zst.kbf" : "dleft.kbf", &h, z);

		/* A window of a windowed multi filter, as archive writes. */
		memset(&h, 0, sizeof(h));
		strcpy(h.name, "flows");
		h.shape.type = KBLOOM_TYPE_MULTI;
		h.shape.m = 256;
		h.shape.k = 2;
		h.shape.cell_bits = 1;
		h.shape.dims = 3;
		strcpy(h.dim_names[0], "src");
		strcpy(h.dim_names[1], "dst");
		strcpy(h.dim_names[2], "dport");
		h.digest = KBLOOM_DIGEST_MULTI;
		h.windows = 4;
		h.interval_ms = 60000;
		h.window.id = 7;
		h.window.start_ns = 1700000000000000000ULL;
		h.window.end_ns = 1700000060000000000ULL;
		h.window.packets = 4;
		savefile(z ? "multi-window.zst.kbf" : "multi-window.kbf", &h, z);
	}

	memset(&h, 0, sizeof(h));
	strcpy(h.name, "st");
	h.shape.type = KBLOOM_TYPE_STABLE;
	h.shape.m = 512;
	h.shape.k = 3;
	h.shape.cell_bits = 2;
	h.shape.decrement = 5;
	savefile("stable.kbf", &h, 0);

	memset(&h, 0, sizeof(h));
	strcpy(h.name, "blk");
	h.shape.type = KBLOOM_TYPE_BLOCKED;
	h.shape.m = 1024;
	h.shape.k = 6;
	h.shape.cell_bits = 1;
	savefile("blocked.zst.kbf", &h, 1);

	memset(&h, 0, sizeof(h));
	strcpy(h.name, "part");
	h.shape.type = KBLOOM_TYPE_PARTITIONED;
	h.shape.m = 300;
	h.shape.k = 3;
	h.shape.cell_bits = 1;
	savefile("partitioned.kbf", &h, 0);
}

/* ---- Command-line strings (keyparse_fuzz: selector byte, then text) --- */

static void key_seed(const char *name, int sel, const char *text)
{
	char b[512];
	size_t n = strlen(text);

	b[0] = (char)sel;
	memcpy(b + 1, text, n);
	put("keyparse_fuzz", name, b, n + 1);
}

static void key_seeds(void)
{
	key_seed("key-literal", 0, "10.0.0.1");
	key_seed("key-hex", 0, "0xdeadBEEF00");
	key_seed("key-hex-bad", 0, "0x12g4");
	key_seed("hex32", 1, "0x000102030405060708090a0b0c0d0e0f");
	key_seed("dims", 2, "src,dst,dport");
	key_seed("tuple", 3, "src,dst,dport\nsrc=10.0.0.1,dst=0x0a000002,dport=0x0050");
	key_seed("tuple-partial", 3, "a,b\nb=x");
	key_seed("duration", 4, "500ms");
	key_seed("duration-day", 4, "1d");
	key_seed("time-iso", 5, "2026-11-22T07:31:30.123+01:00");
	key_seed("time-epoch", 5, "@1700000000.5");
	key_seed("time-rel", 5, "-5m");
	key_seed("time-local", 5, "2026-03-29 02:30:00");
	key_seed("hexpacket", 6, "0x45 00 00 14 00:00 40 00 40 06 00 00 0a 00 00 01 0a 00 00 02");
	key_seed("u64", 7, "18446744073709551615");
	key_seed("double", 7, "1e-300");
	key_seed("names", 8, "forward");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen_corpus DIR\n");
		return 2;
	}
	top = argv[1];
	mkdir(top, 0755);
	digest_seeds();
	pcap_seeds();
	save_seeds();
	key_seeds();
	return 0;
}
