// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Reading capture files (userspace/pcapfile.c): files written here with
 * libpcap (or byte by byte, for link types and damage libpcap would not
 * write) for every supported link type, read back and compared packet by
 * packet: network-header bytes, capture and wire lengths, frame indices,
 * nanosecond timestamps, counts; and the errors for unsupported link types,
 * missing and truncated files.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "pcapfile.h"

/* ---- what the callback saw ---- */

#define MAXPKT 16

struct seen_pkt {
	uint64_t index, ts_ns;
	uint32_t caplen, wirelen;
	int dir;
	uint8_t b[256];
};

struct seen {
	int n;
	int stop_after;		/* return 7 after this many (0: never) */
	struct seen_pkt p[MAXPKT];
};

static int collect(const struct kb_pcap_packet *p, void *arg)
{
	struct seen *s = arg;
	struct seen_pkt *q;

	if (s->n >= MAXPKT)
		return 99;
	q = &s->p[s->n++];
	q->index = p->index;
	q->ts_ns = p->ts_ns;
	q->caplen = p->caplen;
	q->wirelen = p->wirelen;
	q->dir = p->dir;
	memcpy(q->b, p->l3, p->caplen < sizeof(q->b) ? p->caplen : sizeof(q->b));
	return s->stop_after && s->n == s->stop_after ? 7 : 0;
}

/* ---- packets ---- */

/* A 40-byte IPv4/UDP packet and a 48-byte IPv6/UDP packet. */
static const uint8_t ip4pkt[] = {
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00,
	0x40, 0x11, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
	0xc6, 0x33, 0x64, 0x02,
	0x00, 0x35, 0x80, 0xe8, 0x00, 0x14, 0x00, 0x00,
	'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '4',
};

static const uint8_t ip6pkt[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x08, 0x11, 0x40,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0x14, 0xe9, 0x14, 0xe9, 0x00, 0x08, 0x00, 0x00,
};

/* An ARP request's payload (after the ethertype 0x0806). */
static const uint8_t arp[] = {
	0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,
	0x02, 0, 0, 0, 0, 1, 0xc0, 0x00, 0x02, 0x01,
	0, 0, 0, 0, 0, 0, 0xc0, 0x00, 0x02, 0x02,
};

struct frame {
	uint8_t b[512];
	uint32_t len;
	uint32_t wirelen;	/* 0: len */
	uint64_t ts_ns;
};

static void fput(struct frame *f, const void *d, uint32_t n)
{
	memcpy(f->b + f->len, d, n);
	f->len += n;
}

static void fput16(struct frame *f, unsigned int v)
{
	uint8_t b[2] = { v >> 8, v };

	fput(f, b, 2);
}

/* Ethernet: addresses, then @ntags tags (tpid, vid), then @type. */
static void eth(struct frame *f, const unsigned int *tags, int ntags,
		unsigned int type)
{
	static const uint8_t macs[12] = {
		0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1,
	};
	int i;

	f->len = 0;
	fput(f, macs, 12);
	for (i = 0; i < ntags; i++) {
		fput16(f, tags[i]);
		fput16(f, 100 + i);
	}
	fput16(f, type);
}

static void sll(struct frame *f, unsigned int proto)
{
	static const uint8_t addr[8] = { 0x02, 0, 0, 0, 0, 1 };

	f->len = 0;
	fput16(f, 0);		/* packet type: to us */
	fput16(f, 1);		/* ARPHRD_ETHER */
	fput16(f, 6);
	fput(f, addr, 8);
	fput16(f, proto);
}

static void sll2(struct frame *f, unsigned int proto)
{
	static const uint8_t rest[] = {
		0, 0,			/* reserved */
		0, 0, 0, 3,		/* ifindex */
		0, 1,			/* ARPHRD_ETHER */
		4,			/* packet type: outgoing */
		6, 0x02, 0, 0, 0, 0, 1, 0, 0,
	};

	f->len = 0;
	fput16(f, proto);
	fput(f, rest, sizeof(rest));
}

/* ---- files ---- */

FIXTURE(pcap) {
	char dir[64];
	char path[128];
	struct seen seen;
	struct kb_pcap_counts counts;
	char err[512];
};

FIXTURE_SETUP(pcap)
{
	strcpy(self->dir, "/tmp/kbpcap.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/t.pcap", self->dir);
	memset(&self->seen, 0, sizeof(self->seen));
}

FIXTURE_TEARDOWN(pcap)
{
	struct dirent *e;
	DIR *d = opendir(self->dir);
	char p[400];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", self->dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(self->dir);
}

/* Writes @n frames with libpcap, link type @dlt, ns timestamps. */
static int write_pcap(const char *path, int dlt, const struct frame *f,
		      int n)
{
	pcap_t *p = pcap_open_dead_with_tstamp_precision(dlt, 65535,
						PCAP_TSTAMP_PRECISION_NANO);
	pcap_dumper_t *d;
	int i;

	if (!p)
		return -1;
	d = pcap_dump_open(p, path);
	if (!d) {
		pcap_close(p);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct pcap_pkthdr h = {
			.ts.tv_sec = f[i].ts_ns / 1000000000,
			.ts.tv_usec = f[i].ts_ns % 1000000000,
			.caplen = f[i].len,
			.len = f[i].wirelen ? f[i].wirelen : f[i].len,
		};

		pcap_dump((u_char *)d, &h, f[i].b);
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}

static void le32(FILE *fp, uint32_t v)
{
	uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 };

	fwrite(b, 1, 4, fp);
}

static void le16(FILE *fp, uint16_t v)
{
	uint8_t b[2] = { v, v >> 8 };

	fwrite(b, 1, 2, fp);
}

/*
 * A classic pcap file written byte by byte (microsecond timestamps, any
 * link-type number), @cut bytes cut off its end.
 */
static int write_raw_pcap(const char *path, uint32_t linktype,
			  const struct frame *f, int n, long cut)
{
	FILE *fp = fopen(path, "wb");
	int i;

	if (!fp)
		return -1;
	le32(fp, 0xa1b2c3d4);
	le16(fp, 2);
	le16(fp, 4);
	le32(fp, 0);
	le32(fp, 0);
	le32(fp, 65535);
	le32(fp, linktype);
	for (i = 0; i < n; i++) {
		le32(fp, f[i].ts_ns / 1000000000);
		le32(fp, f[i].ts_ns % 1000000000 / 1000);
		le32(fp, f[i].len);
		le32(fp, f[i].wirelen ? f[i].wirelen : f[i].len);
		fwrite(f[i].b, 1, f[i].len, fp);
	}
	if (fclose(fp))
		return -1;
	if (cut) {
		long size;

		fp = fopen(path, "rb");
		fseek(fp, 0, SEEK_END);
		size = ftell(fp);
		fclose(fp);
		return truncate(path, size - cut);
	}
	return 0;
}

/* pcapng: section header, one interface (µs resolution), packets. */
static int write_pcapng(const char *path, uint16_t linktype,
			const struct frame *f, int n)
{
	FILE *fp = fopen(path, "wb");
	int i;

	if (!fp)
		return -1;
	le32(fp, 0x0a0d0d0a);
	le32(fp, 28);
	le32(fp, 0x1a2b3c4d);
	le16(fp, 1);
	le16(fp, 0);
	le32(fp, 0xffffffff);
	le32(fp, 0xffffffff);
	le32(fp, 28);

	le32(fp, 1);
	le32(fp, 20);
	le16(fp, linktype);
	le16(fp, 0);
	le32(fp, 65535);
	le32(fp, 20);

	for (i = 0; i < n; i++) {
		uint32_t pad = (4 - f[i].len % 4) % 4;
		uint32_t len = 32 + f[i].len + pad;
		uint64_t us = f[i].ts_ns / 1000;
		static const uint8_t zero[4];

		le32(fp, 6);
		le32(fp, len);
		le32(fp, 0);
		le32(fp, us >> 32);
		le32(fp, (uint32_t)us);
		le32(fp, f[i].len);
		le32(fp, f[i].wirelen ? f[i].wirelen : f[i].len);
		fwrite(f[i].b, 1, f[i].len, fp);
		fwrite(zero, 1, pad, fp);
		le32(fp, len);
	}
	return fclose(fp) ? -1 : 0;
}

static bool seen_is(const struct seen_pkt *s, uint64_t index, uint64_t ts_ns,
		    const uint8_t *l3, uint32_t caplen, uint32_t wirelen)
{
	if (s->index == index && s->ts_ns == ts_ns && s->caplen == caplen &&
	    s->wirelen == wirelen && !memcmp(s->b, l3, caplen))
		return true;
	kb_diag("packet %llu: ts %llu caplen %u wirelen %u; expected %llu %llu %u %u",
		(unsigned long long)s->index, (unsigned long long)s->ts_ns,
		s->caplen, s->wirelen, (unsigned long long)index,
		(unsigned long long)ts_ns, caplen, wirelen);
	return false;
}

#define T0 1700000000123456789ULL

static int read_back(FIXTURE_DATA(pcap) *self)
{
	self->err[0] = 0;
	return kb_pcap_each(self->path, collect, &self->seen, &self->counts,
			    self->err, sizeof(self->err));
}

TEST_F(pcap, ethernet_vlan_arp)
{
	static const unsigned int q[] = { 0x8100 };
	static const unsigned int qinq[] = { 0x88a8, 0x8100 };
	struct frame f[6];
	int i;

	memset(f, 0, sizeof(f));
	eth(&f[0], NULL, 0, 0x0800);
	fput(&f[0], ip4pkt, sizeof(ip4pkt));
	eth(&f[1], NULL, 0, 0x0806);
	fput(&f[1], arp, sizeof(arp));
	eth(&f[2], q, 1, 0x86dd);
	fput(&f[2], ip6pkt, sizeof(ip6pkt));
	eth(&f[3], qinq, 2, 0x0800);
	fput(&f[3], ip4pkt, sizeof(ip4pkt));
	/* Padded to the Ethernet minimum: the padding stays in caplen. */
	eth(&f[4], NULL, 0, 0x0800);
	fput(&f[4], ip4pkt, 20);
	while (f[4].len < 60)
		f[4].b[f[4].len++] = 0;
	/* Snapped at 34 bytes of a 1514-byte frame. */
	eth(&f[5], q, 1, 0x86dd);
	fput(&f[5], ip6pkt, 16);
	f[5].wirelen = 1514;
	for (i = 0; i < 6; i++)
		f[i].ts_ns = T0 + i * 1000001ULL;
	ASSERT_EQ(0, write_pcap(self->path, DLT_EN10MB, f, 6));

	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(6, self->counts.frames);
	ASSERT_EQ(5, self->counts.ip);
	ASSERT_EQ(1, self->counts.other);
	ASSERT_EQ(5, self->seen.n);
	ASSERT_TRUE(seen_is(&self->seen.p[0], 1, T0, ip4pkt, 40, 40));
	ASSERT_TRUE(seen_is(&self->seen.p[1], 3, T0 + 2000002, ip6pkt, 48, 48));
	ASSERT_TRUE(seen_is(&self->seen.p[2], 4, T0 + 3000003, ip4pkt, 40, 40));
	ASSERT_TRUE(seen_is(&self->seen.p[3], 5, T0 + 4000004, f[4].b + 14,
			    46, 46));
	ASSERT_TRUE(seen_is(&self->seen.p[4], 6, T0 + 5000005, ip6pkt, 16,
			    1514 - 18));
}

TEST_F(pcap, raw_ip)
{
	struct frame f[3];

	memset(f, 0, sizeof(f));
	fput(&f[0], ip6pkt, sizeof(ip6pkt));
	fput(&f[1], ip4pkt, sizeof(ip4pkt));
	fput(&f[2], arp, sizeof(arp));		/* not IP: version 0 */
	f[0].ts_ns = 1;
	f[1].ts_ns = 999999999;
	f[2].ts_ns = 1000000000;
	ASSERT_EQ(0, write_pcap(self->path, DLT_RAW, f, 3));

	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(3, self->counts.frames);
	ASSERT_EQ(2, self->counts.ip);
	ASSERT_EQ(1, self->counts.other);
	ASSERT_TRUE(seen_is(&self->seen.p[0], 1, 1, ip6pkt, 48, 48));
	ASSERT_TRUE(seen_is(&self->seen.p[1], 2, 999999999, ip4pkt, 40, 40));
}

/*
 * A UDP datagram captured before the offload filled its checksum in (the
 * seed 0x142b: the pseudo-header's sum) is read with the checksum the
 * wire carries (0x34ae, summed independently: wirecsum_test.c); the same
 * datagram with a wrong checksum is read as captured.
 */
static const uint8_t seeded[] = {
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x14, 0x8c,
	0x0a, 0x01, 0x00, 0x01, 0x0a, 0x02, 0x00, 0x02,
	0x04, 0xd2, 0x27, 0x0f, 0x00, 0x14, 0x14, 0x2b,
	'h', 'e', 'l', 'l', 'o', ' ', 'k', 'b', 'l', 'o', 'o', 'm',
};

TEST_F(pcap, udp_checksum_seed_completed)
{
	uint8_t wire[sizeof(seeded)], wrong[sizeof(seeded)];
	struct frame f[2];

	memcpy(wire, seeded, sizeof(wire));
	wire[26] = 0x34;
	wire[27] = 0xae;
	memcpy(wrong, seeded, sizeof(wrong));
	wrong[27] = 0x2c;
	memset(f, 0, sizeof(f));
	fput(&f[0], seeded, sizeof(seeded));
	fput(&f[1], wrong, sizeof(wrong));
	ASSERT_EQ(0, write_pcap(self->path, DLT_RAW, f, 2));

	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(2, self->counts.ip);
	ASSERT_TRUE(seen_is(&self->seen.p[0], 1, 0, wire, 40, 40));
	ASSERT_TRUE(seen_is(&self->seen.p[1], 2, 0, wrong, 40, 40));
}

/* The raw-IP link-type numbers 12, 14, 101, 228, 229 in the file header. */
TEST_F(pcap, raw_ip_link_type_numbers)
{
	static const uint32_t types[] = { 12, 14, 101, 228, 229 };
	struct frame f[2];
	unsigned int i;

	memset(f, 0, sizeof(f));
	fput(&f[0], ip4pkt, sizeof(ip4pkt));
	fput(&f[1], ip6pkt, sizeof(ip6pkt));
	/* Microsecond files: the timestamps come back in whole µs. */
	f[0].ts_ns = T0;
	f[1].ts_ns = T0 + 5000;
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		memset(&self->seen, 0, sizeof(self->seen));
		ASSERT_EQ(0, write_raw_pcap(self->path, types[i], f, 2, 0));
		ASSERT_EQ(0, read_back(self)) {
			kb_diag("link type %u: %s", types[i], self->err);
		}
		ASSERT_EQ(2, self->counts.ip);
		ASSERT_TRUE(seen_is(&self->seen.p[0], 1, T0 / 1000 * 1000,
				    ip4pkt, 40, 40));
		ASSERT_TRUE(seen_is(&self->seen.p[1], 2,
				    (T0 + 5000) / 1000 * 1000, ip6pkt, 48, 48));
	}
}

TEST_F(pcap, linux_cooked)
{
	struct frame f[4];
	int i;

	memset(f, 0, sizeof(f));
	sll(&f[0], 0x0800);
	fput(&f[0], ip4pkt, sizeof(ip4pkt));
	sll(&f[1], 0x0806);
	fput(&f[1], arp, sizeof(arp));
	sll(&f[2], 0x86dd);
	fput(&f[2], ip6pkt, sizeof(ip6pkt));
	sll(&f[3], 0x86dd);		/* header only: an IP frame, 0 bytes */
	f[3].wirelen = 100;
	for (i = 0; i < 4; i++)
		f[i].ts_ns = T0 + i;
	ASSERT_EQ(0, write_pcap(self->path, DLT_LINUX_SLL, f, 4));
	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(4, self->counts.frames);
	ASSERT_EQ(3, self->counts.ip);
	ASSERT_EQ(1, self->counts.other);
	ASSERT_TRUE(seen_is(&self->seen.p[0], 1, T0, ip4pkt, 40, 40));
	ASSERT_TRUE(seen_is(&self->seen.p[1], 3, T0 + 2, ip6pkt, 48, 48));
	ASSERT_TRUE(seen_is(&self->seen.p[2], 4, T0 + 3, ip6pkt, 0, 84));

	memset(&self->seen, 0, sizeof(self->seen));
	sll2(&f[0], 0x86dd);
	fput(&f[0], ip6pkt, sizeof(ip6pkt));
	sll2(&f[1], 0x0806);
	fput(&f[1], arp, sizeof(arp));
	sll2(&f[2], 0x0800);
	fput(&f[2], ip4pkt, sizeof(ip4pkt));
	ASSERT_EQ(0, write_pcap(self->path, DLT_LINUX_SLL2, f, 3));
	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(3, self->counts.frames);
	ASSERT_EQ(2, self->counts.ip);
	ASSERT_TRUE(seen_is(&self->seen.p[0], 1, T0, ip6pkt, 48, 48));
	ASSERT_TRUE(seen_is(&self->seen.p[1], 3, T0 + 2, ip4pkt, 40, 40));
}

/*
 * The packet type of cooked captures (tcpdump -i any) gives the direction:
 * outgoing (4) is sent by the capturing host, any other type received;
 * other link types do not say.
 */
TEST_F(pcap, direction)
{
	struct frame f[3];

	memset(f, 0, sizeof(f));
	sll(&f[0], 0x0800);		/* packet type 0: to us */
	fput(&f[0], ip4pkt, sizeof(ip4pkt));
	sll(&f[1], 0x0800);
	f[1].b[1] = 4;			/* outgoing */
	fput(&f[1], ip4pkt, sizeof(ip4pkt));
	sll(&f[2], 0x0800);
	f[2].b[1] = 3;			/* to another host */
	fput(&f[2], ip4pkt, sizeof(ip4pkt));
	ASSERT_EQ(0, write_pcap(self->path, DLT_LINUX_SLL, f, 3));
	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(3, self->seen.n);
	ASSERT_EQ(KB_PCAP_DIR_IN, self->seen.p[0].dir);
	ASSERT_EQ(KB_PCAP_DIR_OUT, self->seen.p[1].dir);
	ASSERT_EQ(KB_PCAP_DIR_IN, self->seen.p[2].dir);

	memset(&self->seen, 0, sizeof(self->seen));
	sll2(&f[0], 0x0800);		/* packet type 4: outgoing */
	fput(&f[0], ip4pkt, sizeof(ip4pkt));
	sll2(&f[1], 0x0800);
	f[1].b[10] = 0;			/* to us */
	fput(&f[1], ip4pkt, sizeof(ip4pkt));
	ASSERT_EQ(0, write_pcap(self->path, DLT_LINUX_SLL2, f, 2));
	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(2, self->seen.n);
	ASSERT_EQ(KB_PCAP_DIR_OUT, self->seen.p[0].dir);
	ASSERT_EQ(KB_PCAP_DIR_IN, self->seen.p[1].dir);

	memset(&self->seen, 0, sizeof(self->seen));
	f[0].len = 0;
	fput(&f[0], ip4pkt, sizeof(ip4pkt));
	ASSERT_EQ(0, write_pcap(self->path, DLT_RAW, f, 1));
	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(1, self->seen.n);
	ASSERT_EQ(KB_PCAP_DIR_UNKNOWN, self->seen.p[0].dir);
}

TEST_F(pcap, null_and_loop)
{
	static const uint8_t inet_le[4] = { 2, 0, 0, 0 };
	static const uint8_t inet6_le[4] = { 30, 0, 0, 0 };	/* macOS */
	static const uint8_t inet6_be[4] = { 0, 0, 0, 10 };	/* Linux */
	static const uint8_t other[4] = { 7, 0, 0, 0 };
	struct frame f[4];

	memset(f, 0, sizeof(f));
	fput(&f[0], inet_le, 4);
	fput(&f[0], ip4pkt, sizeof(ip4pkt));
	fput(&f[1], inet6_le, 4);
	fput(&f[1], ip6pkt, sizeof(ip6pkt));
	fput(&f[2], other, 4);
	fput(&f[2], arp, sizeof(arp));
	fput(&f[3], inet6_be, 4);
	fput(&f[3], ip6pkt, sizeof(ip6pkt));
	ASSERT_EQ(0, write_pcap(self->path, DLT_NULL, f, 4));
	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(4, self->counts.frames);
	ASSERT_EQ(3, self->counts.ip);
	ASSERT_TRUE(seen_is(&self->seen.p[0], 1, 0, ip4pkt, 40, 40));
	ASSERT_TRUE(seen_is(&self->seen.p[1], 2, 0, ip6pkt, 48, 48));
	ASSERT_TRUE(seen_is(&self->seen.p[2], 4, 0, ip6pkt, 48, 48));

	/* DLT_LOOP: the family in network order. */
	memset(&self->seen, 0, sizeof(self->seen));
	f[0].b[0] = 0;
	f[0].b[3] = 2;
	ASSERT_EQ(0, write_pcap(self->path, DLT_LOOP, f, 1));
	ASSERT_EQ(0, read_back(self));
	ASSERT_EQ(1, self->counts.ip);
	ASSERT_TRUE(seen_is(&self->seen.p[0], 1, 0, ip4pkt, 40, 40));
}

TEST_F(pcap, pcapng)
{
	struct frame f[2];

	memset(f, 0, sizeof(f));
	eth(&f[0], NULL, 0, 0x0806);
	fput(&f[0], arp, sizeof(arp));
	eth(&f[1], NULL, 0, 0x86dd);
	fput(&f[1], ip6pkt, 45);	/* caplen not a multiple of 4 */
	f[1].wirelen = 14 + 48;
	f[1].ts_ns = T0;
	snprintf(self->path, sizeof(self->path), "%s/t.pcapng", self->dir);
	ASSERT_EQ(0, write_pcapng(self->path, DLT_EN10MB, f, 2));
	ASSERT_EQ(0, read_back(self)) {
		kb_diag("%s", self->err);
	}
	ASSERT_EQ(2, self->counts.frames);
	ASSERT_EQ(1, self->counts.ip);
	ASSERT_TRUE(seen_is(&self->seen.p[0], 2, T0 / 1000 * 1000, ip6pkt,
			    45, 48));
}

TEST_F(pcap, stdin_and_stop)
{
	struct frame f[3];
	int fd, i;

	memset(f, 0, sizeof(f));
	for (i = 0; i < 3; i++)
		fput(&f[i], ip4pkt, sizeof(ip4pkt));
	ASSERT_EQ(0, write_pcap(self->path, DLT_RAW, f, 3));

	/* The callback stops the walk: its value comes back. */
	self->seen.stop_after = 2;
	ASSERT_EQ(7, read_back(self));
	ASSERT_EQ(2, self->seen.n);
	ASSERT_EQ(2, self->counts.frames);

	/* "-" reads stdin (this test runs in its own child process). */
	fd = open(self->path, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dup2(fd, 0));
	close(fd);
	memset(&self->seen, 0, sizeof(self->seen));
	ASSERT_EQ(0, kb_pcap_each("-", collect, &self->seen, NULL, NULL, 0));
	ASSERT_EQ(3, self->seen.n);
}

TEST_F(pcap, unsupported_link_type)
{
	struct frame f[1];

	memset(f, 0, sizeof(f));
	fput(&f[0], ip4pkt, sizeof(ip4pkt));
	ASSERT_EQ(0, write_pcap(self->path, DLT_IEEE802_11, f, 1));
	ASSERT_EQ(-1, read_back(self));
	kb_diag("%s", self->err);
	ASSERT_NE(NULL, strstr(self->err, self->path));
	ASSERT_NE(NULL, strstr(self->err, "IEEE802_11"));
	ASSERT_EQ(0, self->seen.n);
}

TEST_F(pcap, missing_file)
{
	snprintf(self->path, sizeof(self->path), "%s/nonexistent.pcap",
		 self->dir);
	ASSERT_EQ(-1, read_back(self));
	kb_diag("%s", self->err);
	ASSERT_EQ(0, strncmp(self->err, self->path, strlen(self->path)));

	/* Not a capture at all. */
	ASSERT_EQ(0, write_raw_pcap(self->path, 1, NULL, 0, 0));
	ASSERT_EQ(0, truncate(self->path, 10));
	ASSERT_EQ(-1, read_back(self));
	kb_diag("%s", self->err);
	ASSERT_NE(NULL, strstr(self->err, self->path));
}

TEST_F(pcap, truncated_file)
{
	struct frame f[3];
	int i;

	memset(f, 0, sizeof(f));
	for (i = 0; i < 3; i++) {
		eth(&f[i], NULL, 0, 0x0800);
		fput(&f[i], ip4pkt, sizeof(ip4pkt));
	}
	/* The last record loses 10 of its 54 bytes. */
	ASSERT_EQ(0, write_raw_pcap(self->path, 1, f, 3, 10));
	ASSERT_EQ(-1, read_back(self));
	kb_diag("%s", self->err);
	ASSERT_NE(NULL, strstr(self->err, self->path));
	ASSERT_EQ(2, self->seen.n);
	ASSERT_EQ(2, self->counts.frames);

	/* Cut inside a record header. */
	memset(&self->seen, 0, sizeof(self->seen));
	ASSERT_EQ(0, write_raw_pcap(self->path, 1, f, 3, 54 + 8));
	ASSERT_EQ(-1, read_back(self));
	kb_diag("%s", self->err);
	ASSERT_EQ(2, self->seen.n);
}

TEST_HARNESS_MAIN
