// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A tunnel's TCP GSO packets (kmod/engine/digest.c, kb_tunnel_segment()):
 * what a router holds as one super-packet (GRO merged the tunnel's packets,
 * or the stack hands a tunnel device's output to the driver whole) is
 * digested as the packets segmentation puts on the wire. Each wire segment
 * is built here on its own, byte by byte, with every checksum (inner IPv4
 * header, inner TCP, outer GRE or UDP) summed over the whole segment as
 * built, payload included; the engine sees only the super-packet's first
 * KB_TUNNEL_SPAN bytes and its length, and must give the same digest in
 * every mode. Then the unsure form (uapi "Digest formats").
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_pktbuild.h"
#include "../../kmod/engine/digest.h"

static const u32 modes[] = {
	KBLOOM_DIGEST_SPIE, KBLOOM_DIGEST_FLOW, KBLOOM_DIGEST_SRC,
	KBLOOM_DIGEST_DST, KBLOOM_DIGEST_MULTI,
};

enum encap { IPIP, GRE, GRE_CSUM_KEY, VXLAN, VXLAN_CSUM };

struct tcase {
	enum encap encap;
	bool outer6, inner6;
	bool fixed_id;		/* inner IPv4 IDs fixed */
	u32 paylen, gso;
};

/* RFC 1071, plainly: every byte of [off, off + n) of @p, plus @sum. */
static u32 sum_bytes(const struct pb *p, u32 off, u32 n, u32 sum)
{
	u32 i;

	for (i = 0; i < n; i++)
		sum += i & 1 ? p->b[off + i] : (u32)p->b[off + i] << 8;
	return sum;
}

static u32 fold(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

static void addr(struct pb *p, bool v6, u8 last)
{
	u32 i;

	if (!v6) {
		put8(p, 10);
		put8(p, 9);
		put8(p, 0);
		put8(p, last);
		return;
	}
	put16(p, 0xfd09);
	for (i = 0; i < 13; i++)
		put8(p, 0);
	put8(p, last);
}

/* An IP header at the end of @p: lengths and checksum come later. */
static u32 iphdr(struct pb *p, bool v6, u8 proto, u32 id, u8 src)
{
	u32 at = p->len;

	if (v6) {
		put32(p, 6u << 28 | 0x5abcd);
		put16(p, 0);
		put8(p, proto);
		put8(p, 63);
	} else {
		put8(p, 0x45);
		put8(p, 0);
		put16(p, 0);
		put16(p, id);
		put16(p, 0x4000);	/* DF */
		put8(p, 63);
		put8(p, proto);
		put16(p, 0);
	}
	addr(p, v6, src);
	addr(p, v6, src + 1);
	return at;
}

static void ip_done(struct pb *p, u32 at, bool v6)
{
	if (v6) {
		set16(p, at + 4, p->len - at - 40);
		return;
	}
	set16(p, at + 2, p->len - at);
	set16(p, at + 10, ~fold(sum_bytes(p, at, 20, 0)) & 0xffff);
}

/* The pseudo-header's sum (RFC 793, RFC 768, RFC 8200 8.1). */
static u32 pseudo(const struct pb *p, u32 ip, bool v6, u8 proto, u32 len)
{
	u32 alen = v6 ? 16 : 4;

	return sum_bytes(p, ip + (v6 ? 8 : 12), 2 * alen, proto + len);
}

/*
 * Segment @seg of case @c as the wire carries it, or (@seg < 0) the
 * super-packet: outer header with IDs 0x7000 + seg, the encapsulation,
 * inner header with ID 0x2000 (+ seg), TCP from sequence 1000.
 */
static void build(struct pb *p, const struct tcase *c, int seg)
{
	bool super = seg < 0;
	u32 s = super ? 0 : (u32)seg;
	u32 off = s * c->gso;
	u32 n = super ? c->paylen :
		(c->paylen - off < c->gso ? c->paylen - off : c->gso);
	u8 oproto = c->encap == IPIP ? (c->inner6 ? 41 : 4) :
		    c->encap >= VXLAN ? 17 : 47;
	u32 o, enc, in, tcp, i, sum;

	p->len = 0;
	o = iphdr(p, c->outer6, oproto, 0x7000 + s, 1);
	enc = p->len;
	if (c->encap == GRE) {
		put16(p, 0);
		put16(p, c->inner6 ? 0x86dd : 0x0800);
	} else if (c->encap == GRE_CSUM_KEY) {
		put16(p, 0xa000);		/* C, K */
		put16(p, c->inner6 ? 0x86dd : 0x0800);
		put16(p, 0);			/* checksum, below */
		put16(p, 0);
		put32(p, 0x00c0ffee);		/* key */
	} else if (c->encap >= VXLAN) {
		put16(p, 51234);
		put16(p, 4789);
		put16(p, 0);			/* length, below */
		put16(p, 0);			/* checksum, below */
		put32(p, 0x08000000);		/* I flag */
		put32(p, 0x00002a00);		/* VNI 42 */
		for (i = 0; i < 12; i++)	/* inner Ethernet addresses */
			put8(p, 0x02 + i);
		put16(p, c->inner6 ? 0x86dd : 0x0800);
	}
	in = iphdr(p, c->inner6, 6, c->fixed_id ? 0x2000 : 0x2000 + s, 7);
	tcp = p->len;
	put16(p, 40000);
	put16(p, 443);
	put32(p, 1000 + off);
	put32(p, 77);
	put8(p, 0x80);				/* 32 bytes: 12 of options */
	/* PSH on the last segment only, as the super-packet's flags. */
	put8(p, super || off + n == c->paylen ? 0x18 : 0x10);
	put16(p, 512);
	put16(p, 0);				/* checksum, below */
	put16(p, 0);
	for (i = 0; i < 12; i++)
		put8(p, 1);
	for (i = 0; i < n; i++)
		put8(p, (off + i) * 7 + 3);
	/* Inner checksums, then the outer ones over them. */
	ip_done(p, in, c->inner6);
	sum = pseudo(p, in, c->inner6, 6, p->len - tcp);
	set16(p, tcp + 16, ~fold(sum_bytes(p, tcp, p->len - tcp, sum)) & 0xffff);
	if (c->encap >= VXLAN)
		set16(p, enc + 4, p->len - enc);
	if (c->encap == GRE_CSUM_KEY)
		set16(p, enc + 4,
		      ~fold(sum_bytes(p, enc, p->len - enc, 0)) & 0xffff);
	if (c->encap == VXLAN_CSUM) {
		sum = pseudo(p, o, c->outer6, 17, p->len - enc);
		sum = ~fold(sum_bytes(p, enc, p->len - enc, sum)) & 0xffff;
		set16(p, enc + 6, sum ? sum : 0xffff);
	}
	ip_done(p, o, c->outer6);
	if (super && !c->inner6)
		set16(p, in + 10, 0x1bad);	/* stale: must not matter */
	if (super && c->encap == GRE_CSUM_KEY)
		set16(p, enc + 4, 0x2bad);
	if (super && c->encap == VXLAN_CSUM)
		set16(p, enc + 6, 0x3bad);
}

/* The inner header's offset from the outer one. */
static u32 inner_at(const struct tcase *c)
{
	u32 o = c->outer6 ? 40 : 20;

	switch (c->encap) {
	case IPIP:
		return o;
	case GRE:
		return o + 4;
	case GRE_CSUM_KEY:
		return o + 12;
	default:
		return o + 30;
	}
}

static void check(struct __test_metadata *_metadata, const struct tcase *c)
{
	static struct pb super, wire;
	u32 nsegs = (c->paylen + c->gso - 1) / c->gso;
	u32 flags = (c->fixed_id ? KB_TUNNEL_FIXED_ID : 0) |
		    (c->encap == VXLAN_CSUM ? KB_TUNNEL_UDP_CSUM : 0);
	u32 caplen, s, m;

	build(&super, c, -1);
	caplen = super.len < KB_TUNNEL_SPAN ? super.len : KB_TUNNEL_SPAN;
	ASSERT_EQ(nsegs, kb_tunnel_segments(super.b, caplen, super.len,
					    inner_at(c), c->gso));
	for (s = 0; s <= nsegs; s++) {
		for (m = 0; m < ARRAY_SIZE(modes); m++) {
			struct kb_digest got, exp;
			u8 *copy = malloc(caplen);
			u32 r;

			memcpy(copy, super.b, caplen);
			r = kb_digest_tunnel_segment(copy, caplen, super.len,
						     inner_at(c), modes[m],
						     c->gso, flags, s, &got,
						     NULL);
			free(copy);
			if (s == nsegs) {
				ASSERT_EQ(KBLOOM_SKIP_GSO, r);
				continue;
			}
			build(&wire, c, s);
			ASSERT_EQ(KBLOOM_SKIP_NONE,
				  kb_digest(wire.b, wire.len, modes[m], &exp));
			if (r || memcmp(&got, &exp, sizeof(got)))
				kb_diag("encap %u outer6 %u inner6 %u seg %u mode %u: %u",
					c->encap, c->outer6, c->inner6, s,
					modes[m], r);
			ASSERT_EQ(KBLOOM_SKIP_NONE, r);
			ASSERT_EQ(0, memcmp(&got, &exp, sizeof(got)));
		}
	}
}

TEST(every_encapsulation_as_the_wire_carries_it)
{
	static const enum encap encaps[] = {
		IPIP, GRE, GRE_CSUM_KEY, VXLAN, VXLAN_CSUM,
	};
	struct tcase c = { .paylen = 4000, .gso = 1400 };
	u32 e, v;

	for (e = 0; e < ARRAY_SIZE(encaps); e++)
		for (v = 0; v < 4; v++) {
			c.encap = encaps[e];
			c.outer6 = v & 1;
			c.inner6 = v & 2;
			c.fixed_id = false;
			check(_metadata, &c);
			if (!c.inner6) {
				c.fixed_id = true;
				check(_metadata, &c);
			}
		}
}

TEST(odd_payloads_and_one_segment)
{
	struct tcase c = { .encap = GRE_CSUM_KEY, .paylen = 2999, .gso = 1001 };

	check(_metadata, &c);
	c.encap = VXLAN_CSUM;
	c.outer6 = true;
	check(_metadata, &c);
	c.paylen = 11;
	check(_metadata, &c);
	c.encap = IPIP;
	c.outer6 = false;
	check(_metadata, &c);
}

/* Not a tunnel's packet, or one the engine cannot cut: GSO, no digest. */
TEST(refused)
{
	struct tcase c = { .encap = IPIP, .paylen = 3000, .gso = 1000 };
	static struct pb p;
	struct kb_digest d;
	u32 caplen;

	build(&p, &c, -1);
	caplen = KB_DIGEST_SPAN;
	/* The inner header elsewhere than right after IPIP's outer one. */
	ASSERT_EQ(KBLOOM_SKIP_GSO,
		  kb_digest_tunnel_segment(p.b, caplen, p.len, 24,
					   KBLOOM_DIGEST_SPIE, 1000, 0, 0, &d,
					   NULL));
	/* Past the bytes a hook has, or none at all. */
	ASSERT_EQ(KBLOOM_SKIP_GSO,
		  kb_digest_tunnel_segment(p.b, caplen, p.len, 200,
					   KBLOOM_DIGEST_SPIE, 1000, 0, 0, &d,
					   NULL));
	ASSERT_EQ(KBLOOM_SKIP_GSO,
		  kb_digest_tunnel_segment(p.b, caplen, p.len, 0,
					   KBLOOM_DIGEST_SPIE, 1000, 0, 0, &d,
					   NULL));
	/* An outer protocol that is no tunnel's (ICMP). */
	p.b[9] = 1;
	ASSERT_EQ(0, kb_tunnel_segments(p.b, caplen, p.len, 20, 1000));
	/* An inner UDP packet: not cut here. */
	build(&p, &c, -1);
	p.b[29] = 17;
	ASSERT_EQ(0, kb_tunnel_segments(p.b, caplen, p.len, 20, 1000));
	/* An outer fragment. */
	build(&p, &c, -1);
	p.b[6] = 0x20;
	ASSERT_EQ(0, kb_tunnel_segments(p.b, caplen, p.len, 20, 1000));
}

/*
 * The unsure form: the outer IPv4 ID zeroed and the reserved flag set,
 * nothing else; only for IPv4 packets with DF carrying a tunnel's
 * protocols, and never the form of a packet any sender sends.
 */
TEST(unsure_form)
{
	struct tcase c = { .encap = GRE, .paylen = 3000, .gso = 1000 };
	static struct pb p, w;
	struct kb_digest d, e;
	u32 i;

	build(&p, &c, -1);
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest_tunnel_segment(p.b, KB_DIGEST_SPAN, p.len, 24,
					   KBLOOM_DIGEST_SPIE, 1000, 0, 2, &e,
					   &d));
	build(&w, &c, 2);
	ASSERT_TRUE(kb_pkt_may_be_unsure(w.b, w.len));
	w.b[4] = 0;
	w.b[5] = 0;
	w.b[6] |= 0x80;
	ASSERT_FALSE(kb_pkt_may_be_unsure(w.b, w.len));
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest(w.b, w.len, KBLOOM_DIGEST_SPIE, &e));
	ASSERT_EQ(0, memcmp(&d, &e, sizeof(d)));
	/* Segment 2's exact digest differs from it: ID and flag. */
	build(&w, &c, 2);
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest(w.b, w.len, KBLOOM_DIGEST_SPIE, &e));
	ASSERT_NE(0, memcmp(&d, &e, sizeof(d)));
	for (i = 0; i < d.len; i++)
		if (i < 4 || i > 6)
			ASSERT_EQ(e.key[i], d.key[i]);
	/* No DF, IPv6, a fragment, TCP: never unsure. */
	w.b[6] = 0;
	ASSERT_FALSE(kb_pkt_may_be_unsure(w.b, w.len));
	w.b[6] = 0x40;
	w.b[9] = 6;
	ASSERT_FALSE(kb_pkt_may_be_unsure(w.b, w.len));
	w.b[9] = 47;
	w.b[7] = 1;
	ASSERT_FALSE(kb_pkt_may_be_unsure(w.b, w.len));
	c.outer6 = true;
	build(&w, &c, 0);
	ASSERT_FALSE(kb_pkt_may_be_unsure(w.b, w.len));
}

TEST_HARNESS_MAIN
