// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packet digests (kmod/engine/digest.c) against the formats of uapi/kbloom.h
 * ("Digest formats"): packets built byte by byte here, digests compared
 * with the exact bytes the format defines, skip reasons for truncated,
 * malformed and fragmented packets, and TCP GSO segments compared with the
 * digests of the same segments built as they go on the wire. Every packet
 * is handed over in a buffer of exactly caplen bytes so that ASan catches
 * a read past the captured bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_pktbuild.h"
#include "../../kmod/engine/digest.h"

#define SPIE	KBLOOM_DIGEST_SPIE
#define FLOW	KBLOOM_DIGEST_FLOW
#define SRC	KBLOOM_DIGEST_SRC
#define DST	KBLOOM_DIGEST_DST
#define MULTI	KBLOOM_DIGEST_MULTI

static const u32 all_modes[] = { SPIE, FLOW, SRC, DST, MULTI };

/* 192.0.2.1 -> 198.51.100.2, 2001:db8::1 -> 2001:db8::2 */
static const u8 v4src[4] = { 0xc0, 0x00, 0x02, 0x01 };
static const u8 v4dst[4] = { 0xc6, 0x33, 0x64, 0x02 };
static const u8 v6src[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x01 };
static const u8 v6dst[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 0x02 };

#define V6SRC 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01
#define V6DST 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02

/* ---- building packets ---- */

/* Payload bytes 0xa0, 0xa1, ... (from @start, to tell segments apart). */
static void payload(struct pb *p, u32 n, u32 start)
{
	u32 i;

	for (i = 0; i < n; i++)
		put8(p, 0xa0 + start + i);
}

/*
 * IPv4 header: TOS 0x10, ID 0x1234, DF, TTL 64, with @optlen bytes of
 * options (NOPs then EOL). Total length and checksum come in ip4_done().
 */
static void ip4_opts(struct pb *p, u8 proto, u32 optlen)
{
	u32 i;

	p->len = 0;
	put8(p, 0x40 | (20 + optlen) / 4);
	put8(p, 0x10);		/* TOS */
	put16(p, 0);		/* total length: ip4_done() */
	put16(p, 0x1234);	/* ID */
	put16(p, 0x4000);	/* DF, offset 0 */
	put8(p, 64);		/* TTL */
	put8(p, proto);
	put16(p, 0);		/* checksum: ip4_done() */
	putn(p, v4src, 4);
	putn(p, v4dst, 4);
	for (i = 0; i < optlen; i++)
		put8(p, i + 1 < optlen ? 1 : 0);
	p->l4 = p->len;
}

static void ip4(struct pb *p, u8 proto)
{
	ip4_opts(p, proto, 0);
}

static void ip4_csum(struct pb *p)
{
	u32 hl = (p->b[0] & 0xf) * 4, sum = 0, i;

	set16(p, 10, 0);
	for (i = 0; i < hl; i += 2)
		sum += (u32)p->b[i] << 8 | p->b[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	set16(p, 10, ~sum & 0xffff);
}

static void ip4_done(struct pb *p)
{
	set16(p, 2, p->len);
	ip4_csum(p);
}

/* IPv6 header: traffic class 0x12, flow label 0x5abcd, hop limit 64. */
static void ip6(struct pb *p, u8 nh)
{
	p->len = 0;
	put32(p, 6u << 28 | 0x12 << 20 | 0x5abcd);
	put16(p, 0);		/* payload length: ip6_done() */
	put8(p, nh);
	put8(p, 64);
	putn(p, v6src, 16);
	putn(p, v6dst, 16);
	p->l4 = p->len;
}

static void ip6_done(struct pb *p)
{
	set16(p, 4, p->len - 40);
}

/* Hop-by-hop, routing or destination options: @units of 8 bytes, PadN. */
static void ext6(struct pb *p, u8 nh, u32 units)
{
	u32 i;

	put8(p, nh);
	put8(p, units - 1);
	put8(p, 1);			/* PadN */
	put8(p, units * 8 - 4);
	for (i = 4; i < units * 8; i++)
		put8(p, 0);
	p->l4 = p->len;
}

static void frag6(struct pb *p, u8 nh, u32 offset8, bool more)
{
	put8(p, nh);
	put8(p, 0);
	put16(p, offset8 << 3 | more);
	put32(p, 0xfeedf00d);
	p->l4 = p->len;
}

/* AH with a 12-byte ICV: 24 bytes, length field 24 / 4 - 2 = 4. */
static void ah6(struct pb *p, u8 nh)
{
	u32 i;

	put8(p, nh);
	put8(p, 4);
	put16(p, 0);
	put32(p, 0x00000100);		/* SPI */
	put32(p, 7);			/* sequence */
	for (i = 0; i < 12; i++)
		put8(p, 0x77);
	p->l4 = p->len;
}

/* TCP header: ACK|PSH, window 0xffff, @optlen bytes of NOP options. */
static void tcp_opts(struct pb *p, u32 sport, u32 dport, u32 seq, u32 optlen)
{
	u32 i;

	put16(p, sport);
	put16(p, dport);
	put32(p, seq);
	put32(p, 0x0a0b0c0d);		/* ack */
	put8(p, (20 + optlen) / 4 << 4);
	put8(p, 0x18);
	put16(p, 0xffff);
	put16(p, 0x5555);		/* checksum (not checked) */
	put16(p, 0);
	for (i = 0; i < optlen; i++)
		put8(p, 1);
}

static void tcp(struct pb *p, u32 sport, u32 dport, u32 seq)
{
	tcp_opts(p, sport, dport, seq, 0);
}

static void udp(struct pb *p, u32 sport, u32 dport, u32 paylen)
{
	put16(p, sport);
	put16(p, dport);
	put16(p, 8 + paylen);
	put16(p, 0xbeef);
}

/* ICMP / ICMPv6 echo request (type 8 or 128), id 1, sequence 2. */
static void echo(struct pb *p, u8 type)
{
	put8(p, type);
	put8(p, 0);
	put16(p, 0x1111);
	put16(p, 1);
	put16(p, 2);
}

/* ---- digesting ---- */

/* kb_digest() of the first @caplen bytes, in a buffer of exactly that. */
static u32 digest(const u8 *pkt, u32 caplen, u32 mode, struct kb_digest *d)
{
	u8 *copy = malloc(caplen ? caplen : 1);
	u32 r;

	memcpy(copy, pkt, caplen);
	/* caplen 0: hand over a pointer past the end of the allocation. */
	r = kb_digest(copy + (caplen ? 0 : 1), caplen, mode, d);
	free(copy);
	return r;
}

static u32 skip_of(const struct pb *p, u32 caplen, u32 mode)
{
	struct kb_digest d;

	return digest(p->b, caplen, mode, &d);
}

static void hex(const char *what, const u8 *b, u32 n)
{
	char s[3 * KB_DIGEST_LEN_MAX + 1] = "";
	u32 i;

	for (i = 0; i < n && i < KB_DIGEST_LEN_MAX; i++)
		sprintf(s + 3 * i, "%02x ", b[i]);
	kb_diag("%s (%u): %s", what, n, s);
}

static bool digest_is(const struct pb *p, u32 caplen, u32 mode,
		      const u8 *exp, u32 explen)
{
	struct kb_digest d;
	u32 r = digest(p->b, caplen, mode, &d);

	if (r != KBLOOM_SKIP_NONE) {
		kb_diag("mode %u: skipped, reason %u", mode, r);
		return false;
	}
	if (d.len != explen || memcmp(d.key, exp, explen)) {
		kb_diag("mode %u: wrong digest", mode);
		hex("got", d.key, d.len);
		hex("expected", exp, explen);
		return false;
	}
	return true;
}

#define ASSERT_DIGEST(p, caplen, mode, ...) do {			\
	static const u8 exp_[] = { __VA_ARGS__ };			\
	ASSERT_TRUE(digest_is(p, caplen, mode, exp_, sizeof(exp_)));	\
} while (0)

/*
 * Both packets give the same digest (or the same skip) in every mode; the
 * differences are shown when @loud (the caller expects none).
 */
static bool digests_match(const u8 *a, u32 alen, const u8 *b, u32 blen,
			  bool loud)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(all_modes); i++) {
		struct kb_digest da, db;
		u32 ra = digest(a, alen, all_modes[i], &da);
		u32 rb = digest(b, blen, all_modes[i], &db);

		if (ra != rb || memcmp(&da, &db, sizeof(da))) {
			if (!loud)
				return false;
			kb_diag("mode %u: %u vs %u", all_modes[i], ra, rb);
			hex("a", da.key, da.len);
			hex("b", db.key, db.len);
			return false;
		}
	}
	return true;
}

#define same_digests(a, alen, b, blen) digests_match(a, alen, b, blen, true)
#define differ(a, alen, b, blen) (!digests_match(a, alen, b, blen, false))

static bool multi_dims(const struct kb_digest *d, u32 alen)
{
	return d->dim_off[0] == 0 && d->dim_len[0] == alen &&
	       d->dim_off[1] == alen && d->dim_len[1] == alen &&
	       d->dim_off[2] == 2 * alen && d->dim_len[2] == 2;
}

/* ---- IPv4 ---- */

TEST(ipv4_tcp)
{
	struct kb_digest d;
	struct pb p;

	ip4(&p, 6);
	tcp(&p, 50000, 80, 0x01020304);
	payload(&p, 20, 0);
	ip4_done(&p);
	ASSERT_EQ(60, p.len);

	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x45, 0x00, 0x00, 0x3c, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0x06, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0xc3, 0x50, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04);
	ASSERT_DIGEST(&p, p.len, FLOW,
		      0x06, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0xc3, 0x50, 0x00, 0x50);
	ASSERT_DIGEST(&p, p.len, SRC, 0xc0, 0x00, 0x02, 0x01);
	ASSERT_DIGEST(&p, p.len, DST, 0xc6, 0x33, 0x64, 0x02);
	ASSERT_DIGEST(&p, p.len, MULTI,
		      0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x50);
	ASSERT_EQ(KBLOOM_SKIP_NONE, digest(p.b, p.len, MULTI, &d));
	ASSERT_TRUE(multi_dims(&d, 4));
	/* Only MULTI has dimensions. */
	ASSERT_EQ(KBLOOM_SKIP_NONE, digest(p.b, p.len, FLOW, &d));
	ASSERT_EQ(0, d.dim_len[0]);
}

TEST(ipv4_udp)
{
	struct pb p;

	ip4(&p, 17);
	udp(&p, 53, 33000, 30);
	payload(&p, 30, 0);
	ip4_done(&p);

	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x45, 0x00, 0x00, 0x3a, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0x11, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x35, 0x80, 0xe8, 0x00, 0x26, 0xbe, 0xef);
	ASSERT_DIGEST(&p, p.len, FLOW,
		      0x11, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x35, 0x80, 0xe8);
	ASSERT_DIGEST(&p, p.len, MULTI,
		      0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x80, 0xe8);
}

TEST(ipv4_icmp_has_no_ports)
{
	struct pb p;

	ip4(&p, 1);
	echo(&p, 8);
	payload(&p, 56, 0);
	ip4_done(&p);

	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x45, 0x00, 0x00, 0x54, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0x01, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0x08, 0x00, 0x11, 0x11, 0x00, 0x01, 0x00, 0x02);
	ASSERT_DIGEST(&p, p.len, FLOW,
		      0x01, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x00, 0x00, 0x00);
	ASSERT_DIGEST(&p, p.len, MULTI,
		      0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x00);
	/* The ICMP header's first bytes are not ports, even if captured. */
	ASSERT_DIGEST(&p, 20, FLOW,
		      0x01, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x00, 0x00, 0x00);
}

TEST(ipv4_every_port_protocol)
{
	static const u8 with_ports[] = { 6, 17, 33, 132, 136 };
	struct kb_digest d;
	struct pb p;
	u32 proto;

	for (proto = 0; proto < 256; proto++) {
		bool ports = memchr(with_ports, proto, sizeof(with_ports));

		ip4(&p, proto);
		udp(&p, 0x1234, 0x5678, 0);
		ip4_done(&p);
		ASSERT_EQ(KBLOOM_SKIP_NONE, digest(p.b, p.len, FLOW, &d));
		ASSERT_EQ(13, d.len);
		ASSERT_EQ(proto, d.key[0]);
		ASSERT_EQ(ports ? 0x12 : 0, d.key[9]);
		ASSERT_EQ(ports ? 0x34 : 0, d.key[10]);
		ASSERT_EQ(ports ? 0x56 : 0, d.key[11]);
		ASSERT_EQ(ports ? 0x78 : 0, d.key[12]);
	}
}

TEST(ipv4_options_left_out)
{
	struct pb p;

	ip4_opts(&p, 6, 8);
	tcp(&p, 50000, 443, 0xdeadbeef);
	payload(&p, 10, 0);
	ip4_done(&p);
	ASSERT_EQ(0x47, p.b[0]);
	ASSERT_EQ(58, p.len);

	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x47, 0x00, 0x00, 0x3a, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0x06, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0xc3, 0x50, 0x01, 0xbb, 0xde, 0xad, 0xbe, 0xef);
	ASSERT_DIGEST(&p, p.len, FLOW,
		      0x06, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0xc3, 0x50, 0x01, 0xbb);

	/* The longest header, 40 bytes of options. */
	ip4_opts(&p, 17, 40);
	udp(&p, 1, 2, 0);
	ip4_done(&p);
	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x4f, 0x00, 0x00, 0x44, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0x11, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x01, 0x00, 0x02, 0x00, 0x08, 0xbe, 0xef);
	ASSERT_DIGEST(&p, p.len, FLOW,
		      0x11, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x01, 0x00, 0x02);
}

TEST(ipv4_mutable_fields_masked)
{
	struct pb a, b;

	ip4(&a, 6);
	tcp(&a, 1000, 2000, 77);
	payload(&a, 100, 0);
	ip4_done(&a);

	/* A router decrements TTL, remarks DSCP/ECN, fixes the checksum. */
	b = a;
	b.b[1] = 0xb9;
	b.b[8] = 1;
	ip4_csum(&b);
	ASSERT_NE(0, memcmp(a.b, b.b, 20));
	ASSERT_TRUE(same_digests(a.b, a.len, b.b, b.len));

	/* A bad checksum does not matter either. */
	b.b[10] ^= 0xff;
	ASSERT_TRUE(same_digests(a.b, a.len, b.b, b.len));

	/* The ID and the payload's first 8 bytes are covered. */
	b = a;
	b.b[5] ^= 1;
	ASSERT_TRUE(differ(a.b, a.len, b.b, b.len));
	b = a;
	b.b[20 + 7] ^= 1;
	ASSERT_TRUE(differ(a.b, a.len, b.b, b.len));
	/* Payload bytes past the first 8 are not. */
	b = a;
	b.b[20 + 8] ^= 1;
	ASSERT_TRUE(same_digests(a.b, a.len, b.b, b.len));
}

TEST(ipv4_short_payload)
{
	struct pb p;

	/* 3 payload bytes: the SPIE digest is 23 bytes. */
	ip4(&p, 253);
	payload(&p, 3, 0);
	ip4_done(&p);
	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x45, 0x00, 0x00, 0x17, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0xfd, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0xa0, 0xa1, 0xa2);
	ASSERT_DIGEST(&p, p.len, FLOW,
		      0xfd, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x00, 0x00, 0x00);

	/* No payload at all: the header alone. */
	ip4(&p, 253);
	ip4_done(&p);
	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x45, 0x00, 0x00, 0x14, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0xfd, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02);

	/*
	 * UDP whose IP length ends inside the ports: SPIE takes the 3
	 * bytes, FLOW and MULTI cannot have ports (MALFORMED).
	 */
	ip4(&p, 17);
	put8(&p, 0x12);
	put8(&p, 0x34);
	put8(&p, 0x56);
	ip4_done(&p);
	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x45, 0x00, 0x00, 0x17, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0x11, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0x12, 0x34, 0x56);
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, FLOW));
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, MULTI));
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, p.len, SRC));
}

TEST(ipv4_ethernet_padding_ignored)
{
	struct pb p, padded;
	u32 i;

	/* 20 + 8 + 2 = 30 bytes, padded to Ethernet's 46 with junk. */
	ip4(&p, 17);
	udp(&p, 7, 9, 2);
	payload(&p, 2, 0);
	ip4_done(&p);
	padded = p;
	for (i = p.len; i < 46; i++)
		padded.b[i] = 0xee;
	ASSERT_TRUE(same_digests(p.b, p.len, padded.b, 46));

	/* Shorter than 8 payload bytes: padding must not fill the digest. */
	ip4(&p, 253);
	payload(&p, 5, 0);
	ip4_done(&p);
	padded = p;
	for (i = p.len; i < 46; i++)
		padded.b[i] = 0xee;
	ASSERT_TRUE(same_digests(p.b, p.len, padded.b, 46));
	ASSERT_DIGEST(&padded, 46, SPIE,
		      0x45, 0x00, 0x00, 0x19, 0x12, 0x34, 0x40, 0x00,
		      0x00, 0xfd, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0xa0, 0xa1, 0xa2, 0xa3, 0xa4);

	/* IPv6 likewise. */
	ip6(&p, 17);
	udp(&p, 7, 9, 0);
	ip6_done(&p);
	padded = p;
	for (i = p.len; i < p.len + 16; i++)
		padded.b[i] = 0xee;
	ASSERT_TRUE(same_digests(p.b, p.len, padded.b, p.len + 16));
}

TEST(ipv4_truncated_is_short)
{
	struct pb p;
	u32 i, c;

	ip4_opts(&p, 6, 4);
	tcp(&p, 1, 2, 3);
	payload(&p, 100, 0);
	ip4_done(&p);

	/* SPIE needs 24 + 8 bytes; SRC/DST the 20-byte header; FLOW 28. */
	for (c = 0; c < 40; c++) {
		for (i = 0; i < ARRAY_SIZE(all_modes); i++) {
			u32 mode = all_modes[i];
			u32 need = mode == SPIE ? 32 :
				   mode == SRC || mode == DST ? 20 : 28;

			ASSERT_EQ(c < need ? KBLOOM_SKIP_SHORT : KBLOOM_SKIP_NONE,
				  skip_of(&p, c, mode));
		}
	}
}

TEST(malformed)
{
	struct pb p, good;
	u32 i, v;

	ip4(&good, 6);
	tcp(&good, 1, 2, 3);
	ip4_done(&good);

	for (i = 0; i < ARRAY_SIZE(all_modes); i++) {
		u32 mode = all_modes[i];

		/* Version nibbles other than 4 and 6. */
		for (v = 0; v < 16; v++) {
			if (v == 4 || v == 6)
				continue;
			p = good;
			p.b[0] = v << 4 | 5;
			ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, mode));
		}
		/* IHL below 5. */
		for (v = 0; v < 5; v++) {
			p = good;
			p.b[0] = 0x40 | v;
			ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, mode));
		}
		/* Total length below the header length. */
		p = good;
		set16(&p, 2, 19);
		ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, mode));
		p = good;
		set16(&p, 2, 0);
		ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, mode));
		p = good;
		p.b[0] = 0x46;		/* 24-byte header, total 40 is fine */
		ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, p.len, mode));
		set16(&p, 2, 23);
		ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, mode));

		/* An IPv6 jumbogram: payload length 0, hop-by-hop first. */
		ip6(&p, 0);
		ext6(&p, 6, 1);
		tcp(&p, 1, 2, 3);
		ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, mode));
	}

	/* An unknown digest mode. */
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&good, good.len, 0));
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED,
		  skip_of(&good, good.len, KBLOOM_DIGEST_MAX + 1));
}

TEST(ipv4_fragments)
{
	struct pb first, later, last;
	u32 i;

	/* First fragment: MF, offset 0, carries the TCP header. */
	ip4(&first, 6);
	set16(&first, 6, 0x2000);
	tcp(&first, 50000, 80, 0x01020304);
	payload(&first, 1460, 0);
	ip4_done(&first);

	/* A middle fragment at 1480 bytes (offset 185 units), MF. */
	ip4(&later, 6);
	set16(&later, 6, 0x2000 | 185);
	payload(&later, 1480, 0);
	ip4_done(&later);

	/* The last one: no MF, offset 370. */
	ip4(&last, 6);
	set16(&last, 6, 370);
	payload(&last, 100, 0x10);
	ip4_done(&last);

	ASSERT_DIGEST(&first, first.len, SPIE,
		      0x45, 0x00, 0x05, 0xdc, 0x12, 0x34, 0x20, 0x00,
		      0x00, 0x06, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0xc3, 0x50, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04);
	ASSERT_DIGEST(&first, first.len, FLOW,
		      0x06, 0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0xc3, 0x50, 0x00, 0x50);
	ASSERT_DIGEST(&first, first.len, MULTI,
		      0xc0, 0x00, 0x02, 0x01, 0xc6, 0x33, 0x64, 0x02,
		      0x00, 0x50);

	/* SPIE digests later fragments as they are. */
	ASSERT_DIGEST(&later, later.len, SPIE,
		      0x45, 0x00, 0x05, 0xdc, 0x12, 0x34, 0x20, 0xb9,
		      0x00, 0x06, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7);
	ASSERT_DIGEST(&last, last.len, SPIE,
		      0x45, 0x00, 0x00, 0x78, 0x12, 0x34, 0x01, 0x72,
		      0x00, 0x06, 0x00, 0x00, 0xc0, 0x00, 0x02, 0x01,
		      0xc6, 0x33, 0x64, 0x02,
		      0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7);
	for (i = 0; i < 2; i++) {
		const struct pb *p = i ? &last : &later;

		ASSERT_DIGEST(p, p->len, SRC, 0xc0, 0x00, 0x02, 0x01);
		ASSERT_DIGEST(p, p->len, DST, 0xc6, 0x33, 0x64, 0x02);
		ASSERT_EQ(KBLOOM_SKIP_FRAGMENT, skip_of(p, p->len, FLOW));
		ASSERT_EQ(KBLOOM_SKIP_FRAGMENT, skip_of(p, p->len, MULTI));
		/* Even when only the header was captured. */
		ASSERT_EQ(KBLOOM_SKIP_FRAGMENT, skip_of(p, 20, FLOW));
	}

	/* A later fragment of ICMP is skipped too (FLOW, MULTI). */
	later.b[9] = 1;
	ASSERT_EQ(KBLOOM_SKIP_FRAGMENT, skip_of(&later, later.len, FLOW));
}

/* ---- IPv6 ---- */

TEST(ipv6_tcp)
{
	struct kb_digest d;
	struct pb p;

	ip6(&p, 6);
	tcp(&p, 50000, 80, 0x01020304);
	payload(&p, 20, 0);
	ip6_done(&p);

	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x60, 0x05, 0xab, 0xcd, 0x00, 0x28, 0x06, 0x00,
		      V6SRC, V6DST,
		      0xc3, 0x50, 0x00, 0x50, 0x01, 0x02, 0x03, 0x04);
	ASSERT_DIGEST(&p, p.len, FLOW, 0x06, V6SRC, V6DST,
		      0xc3, 0x50, 0x00, 0x50);
	ASSERT_DIGEST(&p, p.len, SRC, V6SRC);
	ASSERT_DIGEST(&p, p.len, DST, V6DST);
	ASSERT_DIGEST(&p, p.len, MULTI, V6SRC, V6DST, 0x00, 0x50);
	ASSERT_EQ(KBLOOM_SKIP_NONE, digest(p.b, p.len, MULTI, &d));
	ASSERT_TRUE(multi_dims(&d, 16));
}

TEST(ipv6_udp)
{
	struct pb p;

	ip6(&p, 17);
	udp(&p, 5353, 5353, 4);
	payload(&p, 4, 0);
	ip6_done(&p);

	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x60, 0x05, 0xab, 0xcd, 0x00, 0x0c, 0x11, 0x00,
		      V6SRC, V6DST,
		      0x14, 0xe9, 0x14, 0xe9, 0x00, 0x0c, 0xbe, 0xef);
	ASSERT_DIGEST(&p, p.len, FLOW, 0x11, V6SRC, V6DST,
		      0x14, 0xe9, 0x14, 0xe9);
}

TEST(ipv6_icmpv6)
{
	struct pb p;

	ip6(&p, 58);
	echo(&p, 128);
	ip6_done(&p);

	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x60, 0x05, 0xab, 0xcd, 0x00, 0x08, 0x3a, 0x00,
		      V6SRC, V6DST,
		      0x80, 0x00, 0x11, 0x11, 0x00, 0x01, 0x00, 0x02);
	ASSERT_DIGEST(&p, p.len, FLOW, 0x3a, V6SRC, V6DST, 0, 0, 0, 0);
	ASSERT_DIGEST(&p, p.len, MULTI, V6SRC, V6DST, 0, 0);

	/* Shorter than 8 payload bytes; then none at all (59, no next). */
	ip6(&p, 58);
	put8(&p, 0x81);
	put8(&p, 0x00);
	ip6_done(&p);
	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x60, 0x05, 0xab, 0xcd, 0x00, 0x02, 0x3a, 0x00,
		      V6SRC, V6DST, 0x81, 0x00);
	ip6(&p, 59);
	ip6_done(&p);
	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x60, 0x05, 0xab, 0xcd, 0x00, 0x00, 0x3b, 0x00,
		      V6SRC, V6DST);
	ASSERT_DIGEST(&p, p.len, FLOW, 0x3b, V6SRC, V6DST, 0, 0, 0, 0);
}

TEST(ipv6_extension_headers)
{
	struct pb p, later;

	/* hop-by-hop (8) -> dest opts (16) -> fragment (8, first) -> TCP */
	ip6(&p, 0);
	ext6(&p, 60, 1);
	ext6(&p, 44, 2);
	frag6(&p, 6, 0, true);
	tcp(&p, 40000, 22, 0x11223344);
	payload(&p, 10, 0);
	ip6_done(&p);
	ASSERT_EQ(40 + 32 + 20 + 10, p.len);

	/* SPIE: the 8 bytes after the header are the hop-by-hop header. */
	ASSERT_DIGEST(&p, p.len, SPIE,
		      0x60, 0x05, 0xab, 0xcd, 0x00, 0x3e, 0x00, 0x00,
		      V6SRC, V6DST,
		      0x3c, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00);
	ASSERT_DIGEST(&p, p.len, FLOW, 0x06, V6SRC, V6DST,
		      0x9c, 0x40, 0x00, 0x16);
	ASSERT_DIGEST(&p, p.len, MULTI, V6SRC, V6DST, 0x00, 0x16);
	/* The ports are needed: caplen must reach them. */
	ASSERT_EQ(KBLOOM_SKIP_SHORT, skip_of(&p, 40 + 32 + 3, FLOW));
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, 40 + 32 + 4, FLOW));
	ASSERT_EQ(KBLOOM_SKIP_SHORT, skip_of(&p, 40 + 20, FLOW));
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, 48, SPIE));
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, 40, SRC));

	/* A later fragment of the same packet: no ports. */
	ip6(&later, 0);
	ext6(&later, 60, 1);
	ext6(&later, 44, 2);
	frag6(&later, 6, 2, false);
	payload(&later, 30, 0);
	ip6_done(&later);
	ASSERT_EQ(KBLOOM_SKIP_FRAGMENT, skip_of(&later, later.len, FLOW));
	ASSERT_EQ(KBLOOM_SKIP_FRAGMENT, skip_of(&later, later.len, MULTI));
	ASSERT_DIGEST(&later, later.len, SRC, V6SRC);
	ASSERT_DIGEST(&later, later.len, SPIE,
		      0x60, 0x05, 0xab, 0xcd, 0x00, 0x3e, 0x00, 0x00,
		      V6SRC, V6DST,
		      0x3c, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00);

	/* Routing and AH (4-byte units) before UDP. */
	ip6(&p, 43);
	ext6(&p, 51, 3);
	ah6(&p, 17);
	udp(&p, 4500, 4500, 0);
	ip6_done(&p);
	ASSERT_EQ(40 + 24 + 24 + 8, p.len);
	ASSERT_DIGEST(&p, p.len, FLOW, 0x11, V6SRC, V6DST,
		      0x11, 0x94, 0x11, 0x94);

	/* Payload length ending inside the extension headers. */
	set16(&p, 4, 24 + 23);
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, FLOW));
	set16(&p, 4, 24 + 24 + 3);
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, FLOW));
	set16(&p, 4, 4);
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, FLOW));
	/* SPIE does not walk them: 4 payload bytes. */
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, p.len, SPIE));

	/* ...also before a protocol without ports. */
	ip6(&p, 0);
	ext6(&p, 58, 2);
	echo(&p, 128);
	ip6_done(&p);
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, p.len, FLOW));
	set16(&p, 4, 12);
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, FLOW));
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED, skip_of(&p, p.len, MULTI));
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, p.len, SPIE));

	/* Ports further in than KB_DIGEST_SPAN: SHORT even if captured. */
	ip6(&p, 60);
	ext6(&p, 6, 11);
	tcp(&p, 1, 2, 3);
	ip6_done(&p);
	ASSERT_EQ(40 + 88 + 20, p.len);
	ASSERT_LT(KB_DIGEST_SPAN, 40 + 88 + 4);
	ASSERT_EQ(KBLOOM_SKIP_SHORT, skip_of(&p, p.len, FLOW));
	ip6(&p, 60);
	ext6(&p, 6, 10);
	tcp(&p, 1, 2, 3);
	ip6_done(&p);
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&p, p.len, FLOW));
}

TEST(ipv6_mutable_fields_masked)
{
	struct pb a, b;

	ip6(&a, 6);
	tcp(&a, 1, 2, 3);
	ip6_done(&a);

	/* Traffic class (all 8 bits) and hop limit. */
	b = a;
	b.b[0] = 0x6f;
	b.b[1] = 0xf5;
	b.b[7] = 1;
	ASSERT_TRUE(same_digests(a.b, a.len, b.b, b.len));

	/* The flow label is covered, all 20 bits. */
	b = a;
	b.b[1] ^= 0x01;
	ASSERT_TRUE(differ(a.b, a.len, b.b, b.len));
	b = a;
	b.b[3] ^= 0x01;
	ASSERT_TRUE(differ(a.b, a.len, b.b, b.len));

	/* An IPv6 packet shorter than its header. */
	ASSERT_EQ(KBLOOM_SKIP_SHORT, skip_of(&a, 39, SRC));
	ASSERT_EQ(KBLOOM_SKIP_SHORT, skip_of(&a, 47, SPIE));
	ASSERT_EQ(KBLOOM_SKIP_NONE, skip_of(&a, 48, SPIE));
}

/* ---- TCP GSO ---- */

struct gso_case {
	bool v6;
	u32 ext;		/* IPv6: destination options, 8-byte units */
	bool jumbo;		/* IPv6: a jumbo hop-by-hop, payload length 0 */
	u32 hdr_len;		/* 0: header lengths 0 (BIG TCP), 1: real */
	bool fixed_id;
	u32 id, seq, tcpopt, paylen, gso;
};

/* Segment @seg (or the super-packet when @seg < 0) as it would be sent. */
static void gso_build(struct pb *p, const struct gso_case *c, int seg)
{
	u32 off = seg < 0 ? 0 : seg * c->gso;
	u32 n = seg < 0 ? c->paylen :
		(c->paylen - off < c->gso ? c->paylen - off : c->gso);

	if (c->v6) {
		ip6(p, seg < 0 && c->jumbo ? 0 : c->ext ? 60 : 6);
		if (seg < 0 && c->jumbo) {
			/* Jumbo payload option (RFC 2675). */
			put8(p, c->ext ? 60 : 6);
			put8(p, 0);
			put8(p, 0xc2);
			put8(p, 4);
			put32(p, 0);
		}
		if (c->ext)
			ext6(p, 6, c->ext);
	} else {
		ip4(p, 6);
		set16(p, 4, c->fixed_id || seg < 0 ? c->id : c->id + seg);
	}
	tcp_opts(p, 443, 50123, c->seq + off, c->tcpopt);
	payload(p, n, off);
	if (c->v6) {
		ip6_done(p);
		if (seg < 0 && c->jumbo) {
			/* The real payload length goes in the option. */
			p->b[44] = (u8)((p->len - 40) >> 24);
			p->b[45] = (u8)((p->len - 40) >> 16);
			set16(p, 46, p->len - 40);
		}
		if (seg < 0 && (!c->hdr_len || c->jumbo))
			set16(p, 4, 0);
	} else {
		ip4_done(p);
		if (seg < 0 && !c->hdr_len) {
			set16(p, 2, 0);
			ip4_csum(p);
		}
	}
}

static void gso_check(struct __test_metadata *_metadata,
		      const struct gso_case *c)
{
	static struct pb super, wire;
	u32 nsegs, s, i, caplen;

	gso_build(&super, c, -1);
	nsegs = (c->paylen + c->gso - 1) / c->gso;
	/* The hook sees the first KB_DIGEST_SPAN bytes, @total the rest. */
	caplen = super.len < KB_DIGEST_SPAN ? super.len : KB_DIGEST_SPAN;
	ASSERT_EQ(nsegs, kb_digest_tcp_segments(super.b, caplen, super.len,
						 c->gso));

	for (s = 0; s <= nsegs; s++) {
		for (i = 0; i < ARRAY_SIZE(all_modes); i++) {
			struct kb_digest got, exp;
			u8 *copy = malloc(caplen);
			u32 r;

			memcpy(copy, super.b, caplen);
			r = kb_digest_tcp_segment(copy, caplen, super.len,
						  all_modes[i], c->gso,
						  c->fixed_id, s, &got);
			free(copy);
			if (s == nsegs) {
				ASSERT_EQ(KBLOOM_SKIP_GSO, r);
				continue;
			}
			gso_build(&wire, c, s);
			ASSERT_EQ(KBLOOM_SKIP_NONE,
				  digest(wire.b, wire.len, all_modes[i], &exp));
			if (r || memcmp(&got, &exp, sizeof(got))) {
				kb_diag("segment %u mode %u: %u", s,
					all_modes[i], r);
				hex("got", got.key, got.len);
				hex("wire", exp.key, exp.len);
			}
			ASSERT_EQ(KBLOOM_SKIP_NONE, r);
			ASSERT_EQ(0, memcmp(&got, &exp, sizeof(got)));
		}
	}
}

TEST(gso_ipv4)
{
	struct gso_case c = {
		.hdr_len = 1, .id = 0x1234, .seq = 1000,
		.tcpopt = 12, .paylen = 4000, .gso = 1448,
	};

	gso_check(_metadata, &c);
	c.fixed_id = true;
	gso_check(_metadata, &c);
	/* BIG TCP: total length 0 in the header; ID and seq wrap. */
	c.hdr_len = 0;
	c.fixed_id = false;
	c.id = 0xfffe;
	c.seq = 0xfffff000;
	c.paylen = 70000;
	c.gso = 9000;
	gso_check(_metadata, &c);
	c.fixed_id = true;
	gso_check(_metadata, &c);
	/* An exact multiple of gso_size, and a single short segment. */
	c.hdr_len = 1;
	c.paylen = 3000;
	c.gso = 1000;
	gso_check(_metadata, &c);
	c.paylen = 10;
	gso_check(_metadata, &c);
}

TEST(gso_ipv4_id_per_segment)
{
	struct gso_case c = {
		.hdr_len = 1, .id = 0xffff, .seq = 5, .paylen = 3000,
		.gso = 1000,
	};
	struct kb_digest d;
	struct pb p;

	gso_build(&p, &c, -1);
	/* Segment 2: ID 0xffff + 2 = 1, tot_len 1040, seq 2005. */
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest_tcp_segment(p.b, 128, p.len, SPIE, 1000, false, 2,
					&d));
	ASSERT_EQ(28, d.len);
	ASSERT_EQ(0x04, d.key[2]);
	ASSERT_EQ(0x10, d.key[3]);
	ASSERT_EQ(0x00, d.key[4]);
	ASSERT_EQ(0x01, d.key[5]);
	ASSERT_EQ(0, memcmp(d.key + 24, "\x00\x00\x07\xd5", 4));
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest_tcp_segment(p.b, 128, p.len, SPIE, 1000, true, 2,
					&d));
	ASSERT_EQ(0xff, d.key[4]);
	ASSERT_EQ(0xff, d.key[5]);
}

TEST(gso_ipv6)
{
	struct gso_case c = {
		.v6 = true, .hdr_len = 1, .seq = 0xfffffff0, .tcpopt = 12,
		.paylen = 5000, .gso = 1400,
	};

	gso_check(_metadata, &c);
	c.ext = 2;
	gso_check(_metadata, &c);
	/* BIG TCP: payload length 0, with and without a jumbo header. */
	c.hdr_len = 0;
	c.paylen = 100000;
	c.gso = 4000;
	gso_check(_metadata, &c);
	c.jumbo = true;
	gso_check(_metadata, &c);
	c.ext = 0;
	gso_check(_metadata, &c);
}

/*
 * UDP GSO (UDP_SEGMENT): datagram 2 of a 2500-byte super-datagram cut
 * at 1000 is a 500-byte datagram, IPv4 ID one more per datagram, its own
 * UDP length and the checksum the caller summed (0x5a5a here): digested
 * as that datagram built whole, in every mode. IPv6 likewise.
 */
TEST(gso_udp_datagrams)
{
	static const u32 modes[] = { SPIE, FLOW, SRC, DST };
	static struct pb super, one;
	struct kb_digest a, b;
	u32 l4 = 0, m;

	ip4(&super, 17);
	udp(&super, 4000, 7000, 2500);
	payload(&super, 2500, 0);
	ip4_done(&super);
	ASSERT_EQ(3, kb_digest_udp_segments(super.b, 128, super.len, 1000, &l4));
	ASSERT_EQ(20, l4);
	ip4(&one, 17);
	udp(&one, 4000, 7000, 500);
	set16(&one, 26, 0x5a5a);
	payload(&one, 500, 2000);
	ip4_done(&one);
	set16(&one, 4, 0x1234 + 2);
	for (m = 0; m < 4; m++) {
		ASSERT_EQ(KBLOOM_SKIP_NONE,
			  kb_digest_udp_segment(super.b, 128, super.len, modes[m],
						1000, 2, 0x5a5a, &a));
		ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(one.b, 128, modes[m], &b));
		ASSERT_EQ(b.len, a.len);
		ASSERT_EQ(0, memcmp(a.key, b.key, a.len));
	}
	ASSERT_EQ(KBLOOM_SKIP_GSO,
		  kb_digest_udp_segment(super.b, 128, super.len, SPIE, 1000, 3,
					0, &a));

	ip6(&super, 17);
	udp(&super, 4000, 7000, 2500);
	payload(&super, 2500, 0);
	ip6_done(&super);
	ASSERT_EQ(3, kb_digest_udp_segments(super.b, 128, super.len, 1000, &l4));
	ASSERT_EQ(40, l4);
	ip6(&one, 17);
	udp(&one, 4000, 7000, 1000);
	set16(&one, 46, 0x0102);
	payload(&one, 1000, 1000);
	ip6_done(&one);
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest_udp_segment(super.b, 128, super.len, SPIE, 1000, 1,
					0x0102, &a));
	ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(one.b, 128, SPIE, &b));
	ASSERT_EQ(0, memcmp(a.key, b.key, a.len));

	/* TCP is not UDP's to cut. */
	ip4(&super, 6);
	tcp(&super, 1, 2, 3);
	payload(&super, 3000, 0);
	ip4_done(&super);
	ASSERT_EQ(0, kb_digest_udp_segments(super.b, 128, super.len, 1000, &l4));
}

TEST(gso_not_tcp)
{
	struct kb_digest d;
	struct pb p;

	ip4(&p, 17);
	udp(&p, 1, 2, 3000);
	payload(&p, 3000, 0);
	ip4_done(&p);
	ASSERT_EQ(0, kb_digest_tcp_segments(p.b, 128, p.len, 1000));
	ASSERT_EQ(KBLOOM_SKIP_GSO,
		  kb_digest_tcp_segment(p.b, 128, p.len, FLOW, 1000, false, 0,
					&d));

	ip6(&p, 17);
	udp(&p, 1, 2, 3000);
	payload(&p, 3000, 0);
	ip6_done(&p);
	ASSERT_EQ(0, kb_digest_tcp_segments(p.b, 128, p.len, 1000));
	ASSERT_EQ(KBLOOM_SKIP_GSO,
		  kb_digest_tcp_segment(p.b, 128, p.len, SPIE, 1000, false, 0,
					&d));

	/* TCP with gso_size 0, or a bad data offset. */
	ip4(&p, 6);
	tcp(&p, 1, 2, 3);
	payload(&p, 3000, 0);
	ip4_done(&p);
	ASSERT_EQ(3, kb_digest_tcp_segments(p.b, 128, p.len, 1000));
	ASSERT_EQ(0, kb_digest_tcp_segments(p.b, 128, p.len, 0));
	p.b[20 + 12] = 0x40;
	ASSERT_EQ(0, kb_digest_tcp_segments(p.b, 128, p.len, 1000));
	ASSERT_EQ(KBLOOM_SKIP_MALFORMED,
		  kb_digest_tcp_segment(p.b, 128, p.len, SPIE, 1000, false, 0,
					&d));
	/* The TCP header not captured. */
	p.b[20 + 12] = 0x50;
	ASSERT_EQ(KBLOOM_SKIP_SHORT,
		  kb_digest_tcp_segment(p.b, 39, p.len, SPIE, 1000, false, 0,
					&d));
}

/* ---- robustness ---- */

/* @len random bytes, mostly a plausible IPv4 or IPv6 header. */
static void random_packet(struct kb_rng *r, u8 *buf, u32 len)
{
	kb_rng_bytes(r, buf, len);
	if (len >= 8 && kb_rng_below(r, 4)) {
		bool v6 = kb_rng_below(r, 2);

		buf[0] = v6 ? 0x60 | (buf[0] & 0xf) :
			 0x45 + kb_rng_below(r, 3);
		if (v6) {
			static const u8 nh[] = { 0, 6, 17, 43, 44,
						 51, 58, 60 };

			buf[4] = 0;
			buf[5] = kb_rng_below(r, 200);
			buf[6] = nh[kb_rng_below(r, sizeof(nh))];
		} else {
			buf[2] = 0;
			buf[3] = kb_rng_below(r, 200);
			buf[6] &= kb_rng_below(r, 2) ? 0x40 : 0xff;
			buf[7] &= kb_rng_below(r, 2) ? 0 : 0xff;
			buf[9] = kb_rng_below(r, 2) ? 6 : 17;
		}
	}
}

/*
 * Random packets (mostly plausible IPv4/IPv6 headers) at random capture
 * lengths: no read past caplen (ASan), digests within bounds, and a digest
 * found at some caplen is the same with more bytes captured.
 */
TEST(random_packets)
{
	static u8 buf[256];
	struct kb_rng r;
	u32 iter, i;

	kb_rng_seed(&r, 42);
	for (iter = 0; iter < 20000; iter++) {
		u32 len = kb_rng_below(&r, sizeof(buf) + 1);
		u32 cut = kb_rng_below(&r, len + 1);

		random_packet(&r, buf, len);
		for (i = 0; i < ARRAY_SIZE(all_modes); i++) {
			struct kb_digest a, b;
			u32 ra = digest(buf, cut, all_modes[i], &a);
			u32 rb = digest(buf, len, all_modes[i], &b);

			ASSERT_LE(ra, KBLOOM_SKIP_MAX);
			ASSERT_LE(rb, KBLOOM_SKIP_MAX);
			ASSERT_LE(a.len, KB_DIGEST_LEN_MAX);
			if (ra == KBLOOM_SKIP_NONE) {
				ASSERT_EQ(KBLOOM_SKIP_NONE, rb);
				ASSERT_EQ(0, memcmp(&a, &b, sizeof(a)));
			}
			/* Fewer bytes can only add SHORT. */
			if (ra != rb)
				ASSERT_EQ(KBLOOM_SKIP_SHORT, ra);
		}
		/* GSO on the same bytes must not misbehave either. */
		for (i = 0; i < 3; i++) {
			struct kb_digest d;
			u8 *copy = malloc(cut ? cut : 1);
			u32 rr;

			memcpy(copy, buf, cut);
			kb_digest_tcp_segments(copy, cut, len + 5000, 1000);
			rr = kb_digest_tcp_segment(copy, cut, len + 5000,
						   all_modes[i], 1000,
						   i & 1, i, &d);
			free(copy);
			ASSERT_LE(rr, KBLOOM_SKIP_MAX);
			ASSERT_LE(d.len, KB_DIGEST_LEN_MAX);
		}
	}
}

/*
 * The packet path's digest writes no more than it promises and needs no
 * zeroed output: into a struct full of junk it gives kb_digest()'s result,
 * length, key bytes and (MULTI) dimensions.
 */
TEST(packet_digest_needs_no_zeroed_output)
{
	static u8 buf[256];
	struct kb_rng r;
	u32 iter, i, compared[ARRAY_SIZE(all_modes)] = { 0 };

	kb_rng_seed(&r, 7);
	for (iter = 0; iter < 20000; iter++) {
		u32 len = kb_rng_below(&r, sizeof(buf) + 1);

		random_packet(&r, buf, len);
		for (i = 0; i < ARRAY_SIZE(all_modes); i++) {
			struct kb_digest want, got;
			u32 rw = kb_digest(buf, len, all_modes[i], &want);
			u32 rg;

			memset(&got, 0xa5, sizeof(got));
			rg = kb_digest_packet(buf, len, all_modes[i], &got);
			ASSERT_EQ(rw, rg);
			if (rg)
				continue;
			compared[i]++;
			ASSERT_EQ(want.len, got.len);
			ASSERT_EQ(0, memcmp(want.key, got.key, got.len));
			if (all_modes[i] == MULTI) {
				ASSERT_EQ(0, memcmp(want.dim_off, got.dim_off,
						    sizeof(got.dim_off)));
				ASSERT_EQ(0, memcmp(want.dim_len, got.dim_len,
						    sizeof(got.dim_len)));
			}
		}
	}
	/* Every mode digested a good share of them. */
	for (i = 0; i < ARRAY_SIZE(all_modes); i++) {
		kb_diag("mode %u: %u digests compared", all_modes[i],
			compared[i]);
		ASSERT_LT(2000, compared[i]);
	}
}

TEST_HARNESS_MAIN
