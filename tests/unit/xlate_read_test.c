// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Transform records read back (userspace/xlate_read.c): kb_xlate_lookup()
 * of a packet in an archive of transforms windows built here in memory
 * with the engine's kb_xlate_put(), as the module fills them. A tunnel
 * record over IPv6 (KIND OUTER6) holds only its outer addresses' folds:
 * the lookup gives it the addresses from the address records (KIND
 * ADDR6) of any window, one hit per (source, destination) pair when
 * addresses share a fold, and addr6_lost when one has none; a VXLAN or
 * GENEVE one with a UDP checksum gets the checksum from its more records
 * (KIND MORE, paired by its key, BEFORE_SRC, BEFORE_DST and FIRST), one
 * hit per distinct checksum, and more_lost when there is none (a GENEVE
 * one with options, over IPv4 or IPv6, its options' length and flags
 * likewise); what kb_xlate_hit_str() and kb_xlate_before() make of such
 * hits, and of those of IPv6 in GRE (GRE's words over IPv4 too, not
 * 6in4's).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/engine/digest.h"
#include "../../kmod/engine/xlate.h"
#include "../../userspace/describe.h"
#include "../../userspace/pktxform.h"
#include "../../userspace/save.h"
#include "../../userspace/xlate_read.h"

/*
 * kb_xlate_load() reads a table over netlink: not here. What it calls
 * beyond xlate_read.c, for the link only.
 */
int kb_desc_get(struct kb_nl *nl, const char *name, struct kb_desc *d)
{
	abort();
}

void kb_nl_strerror(const struct kb_nl *nl, char *buf, size_t len)
{
	abort();
}

int kb_export_save(struct kb_nl *nl, struct kb_export *x)
{
	abort();
}

const char *kb_type_str(uint32_t type)
{
	abort();
}

char *private_dir(const char *name, size_t tmpmax, const char *what,
		  char *err, size_t errlen)
{
	abort();
}

int kb_archive_open(const char *dir, const char *name, struct kb_archive **out,
		    char *err, size_t errlen)
{
	abort();
}

void kb_archive_close(struct kb_archive *a)
{
	abort();
}

static const u8 hkey[16] = {
	0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
};

/* Two windows, newest first as kb_archive keeps them: 8 then 7. */
#define NWIN	2
#define T7	1000000000ull		/* window 7: [T7, T8) */
#define T8	2000000000ull		/* window 8: [T8, open) */

struct arch {
	struct kb_archive a;
	struct kb_archive_window w[NWIN];
};

static int arch_init(struct arch *x)
{
	struct kb_shape s = { .type = KBLOOM_TYPE_TRANSFORMS, .m = 1024,
			      .k = 1 };
	size_t i;

	memset(x, 0, sizeof(*x));
	x->a.type = KBLOOM_TYPE_TRANSFORMS;
	x->a.n = NWIN;
	x->a.w = x->w;
	x->w[0].id = 8;
	x->w[0].start_ns = T8;
	x->w[1].id = 7;
	x->w[1].start_ns = T7;
	x->w[1].end_ns = T8;
	for (i = 0; i < NWIN; i++)
		if (kb_filter_init(&x->w[i].f, &s, hkey))
			return -1;
	return 0;
}

static void arch_free(struct arch *x)
{
	size_t i;

	for (i = 0; i < NWIN; i++)
		kb_filter_free(&x->w[i].f);
}

/* Window @id's filter. */
static struct kb_filter *win(struct arch *x, uint64_t id)
{
	return &x->w[id == 8 ? 0 : 1].f;
}

/* The outer addresses: S and D, and S2 and D2 of their folds. */
static const uint8_t S[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0a, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};
static const uint8_t D[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0x00, 0x0b, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
};

/* @a with words 1 and 3 XORed by one mask: another address, one fold. */
static void same_fold(const uint8_t *a, uint8_t *b)
{
	static const uint8_t mask[4] = { 0xc0, 0xff, 0xee, 0x42 };
	size_t i;

	memcpy(b, a, 16);
	for (i = 0; i < 4; i++) {
		b[4 + i] ^= mask[i];
		b[12 + i] ^= mask[i];
	}
}

static uint32_t fold(const uint8_t *a)
{
	uint32_t f = 0;
	size_t i;

	for (i = 0; i < 16; i += 4)
		f ^= (uint32_t)a[i] << 24 | a[i + 1] << 16 | a[i + 2] << 8 |
		     a[i + 3];
	return htonl(f);
}

static void put_addr(struct arch *x, uint64_t id, const uint8_t *a)
{
	struct kbloom_xlate r;

	kb_xlate_addr6(a, &r);
	kb_xlate_put(win(x, id), &r);
}

/* A UDP packet 10.1.1.5:41000 > 10.2.2.7:53 (IP ID 0x1a2b) of 16 bytes. */
static uint32_t inner4(uint8_t *p)
{
	memset(p, 0, 44);
	p[0] = 0x45;
	p[3] = 44;
	p[4] = 0x1a;
	p[5] = 0x2b;
	p[8] = 63;
	p[9] = 17;
	p[12] = 10, p[13] = 1, p[14] = 1, p[15] = 5;
	p[16] = 10, p[17] = 2, p[18] = 2, p[19] = 7;
	p[20] = 41000 >> 8, p[21] = 41000 & 0xff;
	p[23] = 53;
	p[25] = 24;
	return 44;
}

/*
 * The record d makes of @p arriving over IPv6 from @src to @dst (kind
 * @kind, OUTER6 added): flow label 0x5b1c3, encapsulation limit 4.
 */
static struct kbloom_xlate tun6_rec(const uint8_t *p, uint32_t len,
				    uint8_t kind, const uint8_t *src,
				    const uint8_t *dst)
{
	struct kbloom_xlate r;

	if (pkt_tunnel_want(p, len, &r))
		abort();
	r.kind = kind | KBLOOM_XLATE_OUTER6;
	r.before_src = fold(src);
	r.before_dst = fold(dst);
	r.before_sport = htons(0x8000 | 4 << 4 | 0x5);
	r.before_dport = htons(0xb1c3);
	return r;
}

/* Whether hit @h is the record @r (put, so VALID) from @src to @dst. */
static bool hit_is(const struct kb_xlate_hit *h, const struct kbloom_xlate *r,
		   const uint8_t *src, const uint8_t *dst)
{
	struct kbloom_xlate v = *r;

	v.state = KBLOOM_XLATE_VALID;
	return !memcmp(&h->rec, &v, sizeof(v)) && !h->addr6_lost &&
	       !memcmp(h->addr6, src, 16) && !memcmp(h->addr6 + 16, dst, 16);
}

/*
 * Record @r put in window 8 of @x: packet @p (@len bytes) finds one hit
 * (two asked for, into @hit), and in words it is @want.
 */
static void one_hit_says(struct __test_metadata *_metadata, struct arch *x,
			 const struct kbloom_xlate *r, const uint8_t *p,
			 uint32_t len, struct kb_xlate_hit hit[2],
			 const char *want)
{
	char s[256];

	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(x, 8), r));
	ASSERT_EQ(1, kb_xlate_lookup(&x->a, p, len, 0, UINT64_MAX, hit, 2));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ(want, s);
}

/*
 * Hit @h of packet @p (@len bytes) is lost (kb_xlate_hit_lost()), so
 * there is nothing to rebuild it by: kb_xlate_before() refuses it,
 * giving no packet; and its words, @want, say what the table lacks.
 */
static void lost_as_said(struct __test_metadata *_metadata,
			 const struct kb_xlate_hit *h, const uint8_t *p,
			 uint32_t len, const char *want)
{
	uint8_t *o = NULL;
	uint32_t olen = 0;
	char s[256];

	EXPECT_TRUE(kb_xlate_hit_lost(h));
	EXPECT_EQ(-EINVAL, kb_xlate_before(h, p, len, &o, &olen));
	EXPECT_EQ(NULL, o);
	kb_xlate_hit_str(h, s, sizeof(s));
	EXPECT_STREQ(want, s);
}

/*
 * The addresses in window 7, the tunnel record in window 8 (asked for
 * alone): found all the same, the hit the tunnel record's window's.
 */
TEST(an_outer6_tunnel_hit_gets_its_addresses_from_any_window)
{
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate r;
	struct arch x;
	uint8_t p[64], *o;
	uint32_t len, olen;
	char s[256];

	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = tun6_rec(p, len, KBLOOM_XLATE_IPIP, S, D);
	put_addr(&x, 7, S);
	put_addr(&x, 7, D);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	/* An address in both windows (one record per window) is one. */
	put_addr(&x, 8, D);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, T8 + 5, T8 + 6, hit, 4));
	EXPECT_TRUE(hit_is(&hit[0], &r, S, D));
	EXPECT_EQ(8, hit[0].window);
	EXPECT_EQ(T8, hit[0].start);
	EXPECT_EQ(0, hit[0].end);
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("4in6 2001:db8:a::1 > 2001:db8:b::2 flowlabel 0x5b1c3 encaplimit 4",
		     s);
	/* The outer packet from them. */
	ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o, &olen));
	EXPECT_EQ(48 + len, olen);
	EXPECT_EQ(0, memcmp(o + 8, S, 16));
	EXPECT_EQ(0, memcmp(o + 24, D, 16));
	free(o);
	/* Only window 7 asked: the tunnel record is not there. */
	EXPECT_EQ(0, kb_xlate_lookup(&x.a, p, len, T7, T7 + 1, hit, 4));
	arch_free(&x);
}

/*
 * Two source addresses of the tunnel record's source fold: a hit for
 * each, the same record; two of each fold: four, one per pair. At most
 * @max written, the count still all of them.
 */
TEST(two_addresses_of_one_fold_give_a_hit_per_pair)
{
	uint8_t s2[16], d2[16], p[64];
	const uint8_t *pairs[4][2] = { { S, D }, { 0 }, { 0 }, { 0 } };
	struct kb_xlate_hit hit[6], fresh;
	struct kbloom_xlate r;
	size_t n, i, j, seen;
	struct arch x;
	uint32_t len;

	same_fold(S, s2);
	same_fold(D, d2);
	ASSERT_EQ(fold(S), fold(s2));
	ASSERT_NE(0, memcmp(S, s2, 16));
	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = tun6_rec(p, len, KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_KEY, S, D);
	r.first = htonl(7);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	put_addr(&x, 8, S);
	put_addr(&x, 8, D);
	put_addr(&x, 7, s2);		/* another window: the same */
	ASSERT_EQ(2, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 6));
	EXPECT_TRUE((hit_is(&hit[0], &r, S, D) && hit_is(&hit[1], &r, s2, D)) ||
		    (hit_is(&hit[0], &r, s2, D) && hit_is(&hit[1], &r, S, D)));
	EXPECT_EQ(8, hit[0].window);
	EXPECT_EQ(8, hit[1].window);

	put_addr(&x, 8, d2);
	pairs[1][0] = S, pairs[1][1] = d2;
	pairs[2][0] = s2, pairs[2][1] = D;
	pairs[3][0] = s2, pairs[3][1] = d2;
	n = kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 6);
	ASSERT_EQ(4, n);
	for (i = 0; i < 4; i++) {
		for (seen = 0, j = 0; j < n; j++)
			seen += hit_is(&hit[j], &r, pairs[i][0], pairs[i][1]);
		EXPECT_EQ(1, seen) {
			TH_LOG("pair %zu: %zu hits", i, seen);
		}
	}
	/* Two written: the count is still 4, and nothing past the two. */
	memset(hit, 0xa5, sizeof(hit));
	memset(&fresh, 0xa5, sizeof(fresh));
	ASSERT_EQ(4, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 2));
	for (i = 0; i < 2; i++) {
		for (seen = 0, j = 0; j < 4; j++)
			seen += hit_is(&hit[i], &r, pairs[j][0], pairs[j][1]);
		EXPECT_EQ(1, seen);
	}
	EXPECT_EQ(0, memcmp(&hit[2], &fresh, sizeof(fresh)));
	arch_free(&x);
}

/*
 * No address record of the destination's fold (one of another fold, the
 * source's, and a record of another kind with an address record's key
 * there): one hit, addr6_lost, nothing to rebuild by.
 */
TEST(a_tunnel_hit_without_an_address_record_is_addr6_lost)
{
	static const uint8_t zero[32];
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate r, a;
	uint8_t p[64], other[16], *o = NULL;
	uint32_t len, olen;
	struct arch x;
	char s[256];

	memcpy(other, D, 16);
	other[15] ^= 1;				/* another fold */
	ASSERT_NE(fold(D), fold(other));
	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = tun6_rec(p, len, KBLOOM_XLATE_IPIP, S, D);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 7), &r));
	put_addr(&x, 7, S);
	put_addr(&x, 8, other);
	kb_xlate_addr6(D, &a);
	a.kind = KBLOOM_XLATE_OPAQUE;
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &a));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(hit[0].addr6_lost);
	EXPECT_EQ(0, memcmp(hit[0].addr6, zero, 32));
	EXPECT_EQ(7, hit[0].window);
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("4in6 (its outer addresses are not in the table) flowlabel 0x5b1c3 encaplimit 4",
		     s);
	EXPECT_EQ(-EINVAL, kb_xlate_before(&hit[0], p, len, &o, &olen));
	EXPECT_EQ(NULL, o);
	/* Neither address: the same. */
	arch_free(&x);
	ASSERT_EQ(0, arch_init(&x));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 7), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(hit[0].addr6_lost);
	arch_free(&x);
}

/*
 * A tunnel record over IPv4 whose outer addresses happen to be the folds
 * of address records: not looked up, no outer6 and not lost.
 */
TEST(a_tunnel_hit_over_ipv4_takes_no_address)
{
	static const uint8_t zero[32];
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate r;
	struct arch x;
	uint8_t p[64];
	uint32_t len;

	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = tun6_rec(p, len, KBLOOM_XLATE_IPIP, S, D);
	r.kind = KBLOOM_XLATE_IPIP;
	r.before_sport = htons(0x4242);
	r.before_dport = htons(0x4000);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	put_addr(&x, 8, S);
	put_addr(&x, 8, D);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_EQ(KBLOOM_XLATE_IPIP, hit[0].rec.kind);
	EXPECT_FALSE(hit[0].addr6_lost);
	EXPECT_EQ(0, memcmp(hit[0].addr6, zero, 32));
	arch_free(&x);
}

/* 6in6 and GRE over IPv6 in words: kind, addresses, label, GRE's words. */
TEST(hit_str_names_6in6_and_gre6)
{
	struct kb_xlate_hit hit[2];
	struct kbloom_xlate r;
	uint8_t p[64];
	struct arch x;
	uint32_t len;
	char s[256];

	ASSERT_EQ(0, arch_init(&x));
	/* An ICMPv6 echo fd09::7 > fd09::8 */
	memset(p, 0, 56);
	p[0] = 0x60;
	p[5] = 16;
	p[6] = 58;
	p[7] = 63;
	p[8] = 0xfd, p[9] = 0x09, p[23] = 7;
	p[24] = 0xfd, p[25] = 0x09, p[39] = 8;
	p[40] = 128;
	len = 56;
	r = tun6_rec(p, len, KBLOOM_XLATE_IPIP, S, D);
	r.before_sport = 0;			/* label 0, no limit */
	r.before_dport = 0;
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	put_addr(&x, 8, S);
	put_addr(&x, 8, D);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 2));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("6in6 2001:db8:a::1 > 2001:db8:b::2 flowlabel 0x00000", s);

	len = inner4(p);
	r = tun6_rec(p, len, KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_KEY, D, S);
	r.before_sport = htons(0x000f);		/* label 0xfffff */
	r.before_dport = htons(0xffff);
	r.first = htonl(7);
	one_hit_says(_metadata, &x, &r, p, len, hit,
		     "GRE6 2001:db8:b::2 > 2001:db8:a::1 flowlabel 0xfffff key 7");
	arch_free(&x);
}

/* ---- IPv6 NAT records (FAMILY 6: addresses folded) ---- */

/* fd09::5 inside, fd64::1 the NAT's, a server outside, fd00:80::80 inside. */
static const uint8_t IN6[16] = { 0xfd, 0x09, [15] = 0x05 };
static const uint8_t NAT6[16] = { 0xfd, 0x64, [15] = 0x01 };
static const uint8_t SRV6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x05,
				  [15] = 0x35 };
static const uint8_t WEB6[16] = { 0xfd, 0x00, 0x00, 0x80, [15] = 0x80 };

static void set16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The ones'-complement sum of @n bytes (even). */
static uint32_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	size_t k;

	for (k = 0; k + 1 < n; k += 2)
		s += (uint32_t)p[k] << 8 | p[k + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

/*
 * The upper layer's checksum of IPv6 packet @p (no extension headers),
 * at byte @at of it, from scratch: RFC 8200 8.1's pseudo-header
 * (addresses, upper-layer length, next header) and the whole upper
 * layer; UDP's 0 sent as 0xffff (RFC 768).
 */
static void csum6(uint8_t *p, uint32_t at)
{
	uint32_t n = (uint32_t)p[4] << 8 | p[5], s;
	uint8_t ph[40] = { 0 };

	memcpy(ph, p + 8, 32);
	set16(ph + 34, n);
	ph[39] = p[6];
	set16(p + 40 + at, 0);
	s = ~sum16(sum16(0, ph, 40), p + 40, n) & 0xffff;
	set16(p + 40 + at, !s && p[6] == 17 ? 0xffff : s);
}

/* A flow as an IPv6 packet carries it (ICMPv6 echo: the id in sport). */
struct flow6 {
	const uint8_t *src, *dst;
	uint16_t sport, dport;
};

/*
 * A packet of flow @f: UDP (@proto 17) with 16 payload bytes or an
 * ICMPv6 echo request (58) with 16 data bytes; its length, 64.
 */
static uint32_t pkt6(uint8_t *p, uint8_t proto, const struct flow6 *f)
{
	uint32_t k;

	memset(p, 0, 64);
	p[0] = 0x60;
	p[5] = 24;
	p[6] = proto;
	p[7] = 63;
	memcpy(p + 8, f->src, 16);
	memcpy(p + 24, f->dst, 16);
	if (proto == 17) {
		set16(p + 40, f->sport);
		set16(p + 42, f->dport);
		set16(p + 44, 24);
	} else {
		p[40] = 128;
		set16(p + 44, f->sport);
		set16(p + 46, 1);		/* sequence */
	}
	for (k = 0; k < 16; k++)
		p[48 + k] = (uint8_t)(0x41 + 3 * k);
	csum6(p, proto == 17 ? 6 : 2);
	return 64;
}

/* The NAT record of a packet of @proto that arrived as @b, left as @a. */
static struct kbloom_xlate nat6_rec(uint8_t proto, const struct flow6 *b,
				    const struct flow6 *a)
{
	struct kbloom_xlate r = {
		.proto = proto,
		.family = 6,
		.before_src = fold(b->src),
		.before_dst = fold(b->dst),
		.after_src = fold(a->src),
		.after_dst = fold(a->dst),
		.before_sport = htons(b->sport),
		.before_dport = htons(b->dport),
		.after_sport = htons(a->sport),
		.after_dport = htons(a->dport),
		.first = 1795000000,
	};

	if (memcmp(b->src, a->src, 16) || b->sport != a->sport)
		r.kind |= KBLOOM_XLATE_SNAT;
	if (memcmp(b->dst, a->dst, 16) || b->dport != a->dport)
		r.kind |= KBLOOM_XLATE_DNAT;
	return r;
}

/*
 * Whether NAT hit @h is record @r with BEFORE addresses @src and @dst,
 * and the addresses of packet @p as AFTER's.
 */
static bool nat6_hit_is(const struct kb_xlate_hit *h,
			const struct kbloom_xlate *r, const uint8_t *src,
			const uint8_t *dst, const uint8_t *p)
{
	return hit_is(h, r, src, dst) && !memcmp(h->after6, p + 8, 32);
}

/*
 * kb_xlate_before() of hit @h of the @len bytes of @p: the packet of
 * flow @b built from scratch, and pkt_xlate_invert6()'s with the hit's
 * addresses, byte for byte.
 */
static bool before6_is(struct __test_metadata *_metadata,
		       const struct kb_xlate_hit *h, const uint8_t *p,
		       uint32_t len, uint8_t proto, const struct flow6 *b)
{
	uint8_t ref[64], inv[64], *o = NULL;
	uint32_t olen = 0;
	bool ok;

	pkt6(ref, proto, b);
	ASSERT_EQ(0, kb_xlate_before(h, p, len, &o, &olen));
	ASSERT_EQ(0, pkt_xlate_invert6(p, len, &h->rec, h->addr6, inv));
	ok = olen == len && !memcmp(o, ref, len) && !memcmp(o, inv, len);
	free(o);
	return ok;
}

/*
 * An SNAT (masquerade) record in window 8, the address record of the
 * source it rewrote in window 7 (made before it): one hit, BEFORE's
 * source from the address record and the destination, which the NAT
 * kept and has no address record, the packet's own; its words; the
 * packet before the NAT.
 */
TEST(an_ipv6_snat_hit_gets_its_source_from_the_table_and_keeps_the_dest)
{
	struct flow6 in = { IN6, SRV6, 40000, 53 };
	struct flow6 out = { NAT6, SRV6, 61000, 53 };
	struct kbloom_xlate r = nat6_rec(17, &in, &out);
	struct kb_xlate_hit hit[4];
	uint8_t p[64], after6[32];
	struct arch x;
	uint32_t len;
	char s[256];

	ASSERT_EQ(KBLOOM_XLATE_SNAT, r.kind);
	ASSERT_EQ(0, arch_init(&x));
	put_addr(&x, 7, IN6);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	len = pkt6(p, 17, &out);
	memset(hit, 0xa5, sizeof(hit));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(nat6_hit_is(&hit[0], &r, IN6, SRV6, p));
	memcpy(after6, NAT6, 16);
	memcpy(after6 + 16, SRV6, 16);
	EXPECT_EQ(0, memcmp(hit[0].after6, after6, 32));
	EXPECT_FALSE(hit[0].addr6_lost);
	EXPECT_EQ(8, hit[0].window);
	EXPECT_EQ(T8, hit[0].start);
	EXPECT_EQ(0, hit[0].end);
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("SNAT [fd64::1]:61000 <- [fd09::5]:40000", s);
	EXPECT_TRUE(before6_is(_metadata, &hit[0], p, len, 17, &in));
	/* Only window 7 asked: the NAT record is not there. */
	EXPECT_EQ(0, kb_xlate_lookup(&x.a, p, len, T7, T7 + 1, hit, 4));
	/* Another source port: another flow, no record. */
	out.sport = 61001;
	len = pkt6(p, 17, &out);
	EXPECT_EQ(0, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	arch_free(&x);
}

/*
 * DNAT (a port forward, the client outside): the source kept; both at
 * once (a hairpin), each rewritten address from its record.
 */
TEST(ipv6_dnat_and_snat_with_dnat_hits_and_their_words)
{
	struct flow6 fb = { SRV6, NAT6, 33000, 8053 };
	struct flow6 fa = { SRV6, WEB6, 33000, 53 };
	struct flow6 hb = { IN6, NAT6, 45678, 8443 };
	struct flow6 ha = { NAT6, WEB6, 2000, 443 };
	struct kbloom_xlate rf = nat6_rec(17, &fb, &fa);
	struct kbloom_xlate rh = nat6_rec(17, &hb, &ha);
	struct kb_xlate_hit hit[4];
	struct arch x;
	uint8_t p[64];
	uint32_t len;
	char s[256];

	ASSERT_EQ(KBLOOM_XLATE_DNAT, rf.kind);
	ASSERT_EQ(KBLOOM_XLATE_SNAT | KBLOOM_XLATE_DNAT, rh.kind);
	ASSERT_EQ(0, arch_init(&x));
	put_addr(&x, 8, NAT6);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &rf));
	len = pkt6(p, 17, &fa);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(nat6_hit_is(&hit[0], &rf, SRV6, NAT6, p));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("DNAT [fd00:80::80]:53 <- [fd64::1]:8053", s);
	EXPECT_TRUE(before6_is(_metadata, &hit[0], p, len, 17, &fb));

	put_addr(&x, 7, IN6);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 7), &rh));
	len = pkt6(p, 17, &ha);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(nat6_hit_is(&hit[0], &rh, IN6, NAT6, p));
	EXPECT_EQ(7, hit[0].window);
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("SNAT [fd64::1]:2000 <- [fd09::5]:45678; DNAT [fd00:80::80]:443 <- [fd64::1]:8443",
		     s);
	EXPECT_TRUE(before6_is(_metadata, &hit[0], p, len, 17, &hb));
	arch_free(&x);
}

/*
 * ICMPv6 echo: the identifier in words as "id", with the source; kept
 * (7) or rewritten; its reply un-NAT'ed (the destination and the
 * identifier: SNAT and DNAT), the identifier not repeated with DNAT.
 */
TEST(ipv6_icmp_echo_hits_name_the_identifier)
{
	struct flow6 in = { IN6, SRV6, 7, 0 };
	struct flow6 out = { NAT6, SRV6, 7, 0 };
	struct flow6 rin = { SRV6, NAT6, 0xe001, 0 };
	struct flow6 rout = { SRV6, IN6, 0x0b0b, 0 };
	struct kbloom_xlate r = nat6_rec(58, &in, &out);
	struct kbloom_xlate rr = nat6_rec(58, &rin, &rout);
	struct kb_xlate_hit hit[4];
	struct arch x;
	uint8_t p[64];
	uint32_t len;
	char s[256];

	ASSERT_EQ(0, arch_init(&x));
	put_addr(&x, 8, IN6);
	put_addr(&x, 8, NAT6);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	len = pkt6(p, 58, &out);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(nat6_hit_is(&hit[0], &r, IN6, SRV6, p));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("SNAT fd64::1 id 7 <- fd09::5 id 7", s);
	EXPECT_TRUE(before6_is(_metadata, &hit[0], p, len, 58, &in));

	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &rr));
	len = pkt6(p, 58, &rout);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(nat6_hit_is(&hit[0], &rr, SRV6, NAT6, p));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("SNAT 2001:db8:5::35 id 2827 <- 2001:db8:5::35 id 57345; DNAT fd09::5 <- fd64::1",
		     s);
	EXPECT_TRUE(before6_is(_metadata, &hit[0], p, len, 58, &rin));
	arch_free(&x);
}

/*
 * A stateless rewrite (KIND STATELESS: NPTv6, nftables' "saddr set"):
 * the words of its NAT, "stateless " before them. NPTv6 (RFC 6296)
 * fd01:0:0:1::5 to 2001:db8:1:cf48::5, its address record as for NAT;
 * over IPv4 "ip saddr set" and "ip daddr set", the latter alone with no
 * separator before its DNAT.
 */
TEST(stateless_nat_hit_words_begin_stateless)
{
	static const uint8_t host[16] = { 0xfd, 0x01, [7] = 0x01,
					  [15] = 0x05 };
	static const uint8_t ext[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
					 0xcf, 0x48, [15] = 0x05 };
	struct flow6 in = { host, SRV6, 4000, 53 };
	struct flow6 out = { ext, SRV6, 4000, 53 };
	struct kbloom_xlate r = nat6_rec(17, &in, &out), r4 = { 0 };
	struct kb_xlate_hit hit[4];
	struct arch x;
	uint8_t p[64];
	uint32_t len;
	char s[256];

	ASSERT_EQ(KBLOOM_XLATE_SNAT, r.kind);
	r.kind |= KBLOOM_XLATE_STATELESS;
	ASSERT_EQ(0, arch_init(&x));
	put_addr(&x, 8, host);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	len = pkt6(p, 17, &out);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(nat6_hit_is(&hit[0], &r, host, SRV6, p));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("stateless SNAT [2001:db8:1:cf48::5]:4000 <- [fd01:0:0:1::5]:4000",
		     s);
	/* Neutral: the packet summed from scratch is NPT's, and undone. */
	EXPECT_TRUE(before6_is(_metadata, &hit[0], p, len, 17, &in));
	arch_free(&x);

	r4.family = 4;
	r4.proto = 17;
	r4.kind = KBLOOM_XLATE_SNAT | KBLOOM_XLATE_STATELESS;
	r4.before_src = htonl(0xc0a8010a);	/* 192.168.1.10 */
	r4.after_src = htonl(0xc6336407);	/* 198.51.100.7 */
	r4.before_dst = r4.after_dst = htonl(0xcb007105);
	r4.before_sport = r4.after_sport = htons(4000);
	r4.before_dport = r4.after_dport = htons(53);
	kb_xlate_str(&r4, s, sizeof(s));
	EXPECT_STREQ("stateless SNAT 198.51.100.7:4000 <- 192.168.1.10:4000",
		     s);
	r4.kind = KBLOOM_XLATE_DNAT | KBLOOM_XLATE_STATELESS;
	r4.after_src = r4.before_src;
	r4.after_dst = htonl(0x0a000050);	/* 10.0.0.80 */
	kb_xlate_str(&r4, s, sizeof(s));
	EXPECT_STREQ("stateless DNAT 10.0.0.80:53 <- 203.0.113.5:53", s);
}

/*
 * Two address records of the rewritten source's fold: a hit for each,
 * each undone to its own packet, the kept destination the packet's own
 * (an address record of the very address does not repeat it); likewise
 * a DNAT's two addresses of the rewritten destination's fold.
 */
TEST(ipv6_nat_addresses_of_one_fold_give_a_hit_per_pair)
{
	struct flow6 in = { IN6, SRV6, 40000, 53 };
	struct flow6 out = { NAT6, SRV6, 61000, 53 };
	struct flow6 fb = { SRV6, NAT6, 33000, 8053 };
	struct flow6 fa = { SRV6, WEB6, 33000, 53 };
	struct kbloom_xlate r = nat6_rec(17, &in, &out);
	struct kbloom_xlate rd = nat6_rec(17, &fb, &fa);
	uint8_t in2[16], srv2[16], nat2[16], p[64];
	const uint8_t *pairs[4][2] = { { IN6, SRV6 } };
	struct kb_xlate_hit hit[6];
	struct flow6 b;
	size_t i, j, n, seen;
	struct arch x;
	uint32_t len;
	char s[256];

	same_fold(IN6, in2);
	same_fold(SRV6, srv2);
	ASSERT_EQ(fold(IN6), fold(in2));
	ASSERT_EQ(fold(SRV6), fold(srv2));
	ASSERT_EQ(0, arch_init(&x));
	put_addr(&x, 8, IN6);
	put_addr(&x, 7, in2);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	len = pkt6(p, 17, &out);
	ASSERT_EQ(2, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 6));
	pairs[1][0] = in2, pairs[1][1] = SRV6;
	for (i = 0; i < 2; i++) {
		for (seen = 0, j = 0; j < 2; j++)
			seen += nat6_hit_is(&hit[j], &r, pairs[i][0],
					    pairs[i][1], p);
		EXPECT_EQ(1, seen) TH_LOG("pair %zu", i);
		EXPECT_EQ(8, hit[i].window);
	}
	for (j = 0; j < 2; j++) {
		b = in;
		b.src = hit[j].addr6;
		EXPECT_TRUE(before6_is(_metadata, &hit[j], p, len, 17, &b));
		kb_xlate_hit_str(&hit[j], s, sizeof(s));
		EXPECT_STREQ(!memcmp(hit[j].addr6, IN6, 16) ?
			     "SNAT [fd64::1]:61000 <- [fd09::5]:40000" :
			     "SNAT [fd64::1]:61000 <- [fd09:0:c0ff:ee42::c0ff:ee47]:40000",
			     s);
	}
	/* The destination's own address record: no other hit. */
	put_addr(&x, 8, SRV6);
	EXPECT_EQ(2, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 6));
	/*
	 * Another address of the kept destination's fold in the table
	 * (another flow's): the pairs with the packet's own destination
	 * are there still, once each. (Whether that address gives pairs of
	 * its own is not asserted: with DNAT not in KIND, the destination
	 * was kept, and they could only be wrong.)
	 */
	put_addr(&x, 7, srv2);
	n = kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 6);
	ASSERT_LE(2, n);
	ASSERT_GE(6, n);
	for (i = 0; i < 2; i++) {
		for (seen = 0, j = 0; j < n; j++)
			seen += nat6_hit_is(&hit[j], &r, pairs[i][0],
					    pairs[i][1], p);
		EXPECT_EQ(1, seen) TH_LOG("pair %zu", i);
	}
	arch_free(&x);

	/* A DNAT's two addresses of the rewritten destination's fold. */
	ASSERT_EQ(0, arch_init(&x));
	same_fold(NAT6, nat2);
	put_addr(&x, 8, NAT6);
	put_addr(&x, 8, nat2);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &rd));
	len = pkt6(p, 17, &fa);
	ASSERT_EQ(2, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 6));
	pairs[2][0] = SRV6, pairs[2][1] = NAT6;
	pairs[3][0] = SRV6, pairs[3][1] = nat2;
	for (i = 2; i < 4; i++) {
		for (seen = 0, j = 0; j < 2; j++)
			seen += nat6_hit_is(&hit[j], &rd, pairs[i][0],
					    pairs[i][1], p);
		EXPECT_EQ(1, seen) TH_LOG("pair %zu", i);
	}
	for (j = 0; j < 2; j++) {
		b = fb;
		b.dst = hit[j].addr6 + 16;
		EXPECT_TRUE(before6_is(_metadata, &hit[j], p, len, 17, &b));
	}
	arch_free(&x);
}

/*
 * No address record of the rewritten source (one of another fold only):
 * one hit, addr6_lost, the packet's own addresses still; nothing to
 * undo it by, and no BEFORE address in its words.
 */
TEST(an_ipv6_nat_hit_without_its_address_record_is_addr6_lost)
{
	static const char lost[] =
		"(its addresses are not in the table) SNAT [fd64::1]:61000 <- ";
	static const uint8_t zero[32];
	struct flow6 in = { IN6, SRV6, 40000, 53 };
	struct flow6 out = { NAT6, SRV6, 61000, 53 };
	struct kbloom_xlate r = nat6_rec(17, &in, &out), v;
	uint8_t p[64], other[16], *o = NULL;
	struct kb_xlate_hit hit[4];
	struct arch x;
	uint32_t len, olen;
	char s[256];

	memcpy(other, IN6, 16);
	other[15] ^= 1;
	ASSERT_NE(fold(IN6), fold(other));
	ASSERT_EQ(0, arch_init(&x));
	put_addr(&x, 8, other);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	len = pkt6(p, 17, &out);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	v = r;
	v.state = KBLOOM_XLATE_VALID;
	EXPECT_EQ(0, memcmp(&hit[0].rec, &v, sizeof(v)));
	EXPECT_TRUE(hit[0].addr6_lost);
	EXPECT_EQ(0, memcmp(hit[0].addr6, zero, 32));
	EXPECT_EQ(0, memcmp(hit[0].after6, p + 8, 32));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_EQ(0, strncmp(s, lost, strlen(lost))) TH_LOG("%s", s);
	EXPECT_EQ(NULL, strstr(s, "fd09"));
	EXPECT_EQ(-EINVAL, kb_xlate_before(&hit[0], p, len, &o, &olen));
	EXPECT_EQ(NULL, o);
	arch_free(&x);
}

/*
 * A later fragment of a NAT'ed IPv6 flow (no ports: no key of its own)
 * is of a NAT record's addresses, folded; an ICMPv6 error quoting a
 * packet of the flow is of its record.
 */
TEST(ipv6_later_fragments_and_icmpv6_errors_are_of_the_nat_record)
{
	struct flow6 in = { IN6, SRV6, 40000, 53 };
	struct flow6 out = { NAT6, SRV6, 61000, 53 };
	struct flow6 other = { NAT6, WEB6, 61000, 53 };
	struct kbloom_xlate r = nat6_rec(17, &in, &out);
	uint8_t p[160];
	struct arch x;
	uint32_t len;

	ASSERT_EQ(0, arch_init(&x));
	put_addr(&x, 8, IN6);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	/* A fragment header at offset 1448 before 24 bytes of UDP data. */
	pkt6(p, 17, &out);
	memmove(p + 48, p + 40, 24);
	p[6] = 44;
	p[40] = 17;
	p[41] = 0;
	set16(p + 42, 1448 | 1);
	set16(p + 44, 0x1a2b);
	set16(p + 46, 0x3c4d);
	p[5] = 32;
	len = 72;
	EXPECT_EQ(6, pkt_is_later_fragment(p, len));
	EXPECT_EQ(0, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, NULL, 0));
	EXPECT_TRUE(kb_xlate_nat_of_addrs(&x.a, p, len, 0, UINT64_MAX));
	EXPECT_FALSE(kb_xlate_nat_of_addrs(&x.a, p, len, T7, T7 + 1));
	memcpy(p + 24, WEB6, 16);
	EXPECT_FALSE(kb_xlate_nat_of_addrs(&x.a, p, len, 0, UINT64_MAX));
	memcpy(p + 24, SRV6, 16);
	ASSERT_TRUE(kb_xlate_nat_of_addrs(&x.a, p, len, 0, UINT64_MAX));
	p[40] = 6;				/* another protocol */
	EXPECT_FALSE(kb_xlate_nat_of_addrs(&x.a, p, len, 0, UINT64_MAX));

	/* Time exceeded from SERVER6's side, as it reached fd09::5. */
	memset(p, 0, sizeof(p));
	p[0] = 0x60;
	p[5] = 8 + 64;
	p[6] = 58;
	p[7] = 64;
	memcpy(p + 8, SRV6, 16);
	memcpy(p + 24, IN6, 16);
	p[40] = 3;
	pkt6(p + 48, 17, &in);
	csum6(p, 2);
	len = 40 + 8 + 64;
	EXPECT_TRUE(kb_xlate_nat_of_icmp_error(&x.a, p, len, 0, UINT64_MAX));
	pkt6(p + 48, 17, &other);
	csum6(p, 2);
	EXPECT_FALSE(kb_xlate_nat_of_icmp_error(&x.a, p, len, 0, UINT64_MAX));
	arch_free(&x);
}

/*
 * ICMPv6 error @type, @code from @src to @dst quoting the whole packet
 * of flow @q (pkt6(): 64 bytes) into @p, its checksum from scratch; its
 * length, 112.
 */
static uint32_t error6(uint8_t *p, uint8_t type, uint8_t code,
		       const uint8_t *src, const uint8_t *dst, uint8_t proto,
		       const struct flow6 *q)
{
	memset(p, 0, 112);
	p[0] = 0x60;
	p[5] = 8 + 64;
	p[6] = 58;
	p[7] = 64;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	p[40] = type;
	p[41] = code;
	pkt6(p + 48, proto, q);
	csum6(p, 2);
	return 112;
}

/*
 * The server's port unreachable about a masqueraded packet, as it
 * reached fd09::5: one hit of the flow's record (either direction's),
 * an ICMP error's, its BEFORE and AFTER addresses (the rewritten ones
 * from their address records, as kb_xlate_addrs6() writes both), and
 * the error as it left the server, built from scratch; without the
 * address record of the address the NAT rewrote it to, addr6_lost.
 */
TEST(an_icmpv6_error_hit_gets_both_forms_addresses_from_the_table)
{
	struct flow6 in = { IN6, SRV6, 40000, 53 };
	struct flow6 out = { NAT6, SRV6, 61000, 53 };
	struct flow6 rin = { SRV6, NAT6, 53, 61000 };
	struct flow6 rout = { SRV6, IN6, 53, 40000 };
	const struct kbloom_xlate recs[2] = { nat6_rec(17, &in, &out),
					      nat6_rec(17, &rin, &rout) };
	/* BEFORE's and AFTER's addresses, of each record. */
	const uint8_t *want[2][4] = { { IN6, SRV6, NAT6, SRV6 },
				      { SRV6, NAT6, SRV6, IN6 } };
	uint8_t a[112], b[112], *o = NULL;
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate v;
	uint32_t len, olen = 0;
	struct arch x;
	int r, lost;

	len = error6(a, 1, 4, SRV6, IN6, 17, &in);
	ASSERT_EQ(112, error6(b, 1, 4, SRV6, NAT6, 17, &out));
	for (r = 0; r < 2; r++)
		for (lost = 0; lost < 2; lost++) {
			ASSERT_EQ(0, arch_init(&x));
			/* The address the NAT rewrote, and what to. */
			put_addr(&x, 7, IN6);
			if (!lost)
				put_addr(&x, 8, NAT6);
			ASSERT_EQ(KB_XLATE_NEW,
				  kb_xlate_put(win(&x, 8), &recs[r]));
			memset(hit, 0xa5, sizeof(hit));
			ASSERT_EQ(1, kb_xlate_lookup(&x.a, a, len, 0,
						     UINT64_MAX, hit, 4))
				TH_LOG("record %d, lost %d", r, lost);
			v = recs[r];
			v.state = KBLOOM_XLATE_VALID;
			EXPECT_EQ(0, memcmp(&hit[0].rec, &v, sizeof(v)));
			EXPECT_TRUE(hit[0].icmp_error);
			EXPECT_FALSE(hit[0].guess);
			EXPECT_EQ(8, hit[0].window);
			EXPECT_EQ(lost, hit[0].addr6_lost)
				TH_LOG("record %d, lost %d", r, lost);
			o = NULL;
			olen = 0;
			if (lost) {
				/* Nothing to undo it by. */
				EXPECT_EQ(-EINVAL, kb_xlate_before(&hit[0], a,
								   len, &o,
								   &olen));
				EXPECT_EQ(NULL, o);
				arch_free(&x);
				continue;
			}
			EXPECT_EQ(0, memcmp(hit[0].addr6, want[r][0], 16));
			EXPECT_EQ(0, memcmp(hit[0].addr6 + 16, want[r][1], 16));
			EXPECT_EQ(0, memcmp(hit[0].after6, want[r][2], 16));
			EXPECT_EQ(0, memcmp(hit[0].after6 + 16, want[r][3], 16));
			ASSERT_EQ(0, kb_xlate_before(&hit[0], a, len, &o,
						     &olen));
			EXPECT_EQ(len, olen);
			EXPECT_EQ(0, memcmp(o, b, len)) TH_LOG("record %d", r);
			free(o);
			arch_free(&x);
		}
}

/* ---- VXLAN and GENEVE over IPv6: the UDP checksum in a more record ---- */

/* The tunnel's outer addresses: fd02::1 and fd03::2. */
static const uint8_t VS[16] = { 0xfd, 0x02, [15] = 0x01 };
static const uint8_t VD[16] = { 0xfd, 0x03, [15] = 0x02 };

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

/*
 * The tunnel record the decapsulating router makes of @p (@len bytes)
 * arriving in VXLAN or GENEVE (@kind) over IPv6 from [@src]:@sport to
 * [@dst]:@dport with flow label @label (uapi "VXLAN and GENEVE over
 * IPv6"): KIND with OUTER6, and VXLAN_CSUM when it had a checksum
 * (@csum); the outer addresses' folds; the flow label as the word
 * BEFORE_SPORT:BEFORE_DPORT, no encapsulation limit; FIRST the UDP ports
 * as carried.
 */
static struct kbloom_xlate vx6_rec(const uint8_t *p, uint32_t len,
				   uint8_t kind, bool csum,
				   const uint8_t *src, const uint8_t *dst,
				   uint32_t label, uint16_t sport,
				   uint16_t dport)
{
	struct kbloom_xlate r;
	uint8_t *f = (uint8_t *)&r.first;

	if (pkt_tunnel_want(p, len, &r))
		abort();
	r.kind = kind | KBLOOM_XLATE_OUTER6 |
		 (csum ? KBLOOM_XLATE_VXLAN_CSUM : 0);
	r.before_src = fold(src);
	r.before_dst = fold(dst);
	r.before_sport = htons((uint16_t)(label >> 16));
	r.before_dport = htons((uint16_t)label);
	set16(f, sport);
	set16(f + 2, dport);
	return r;
}

/* The VXLAN record of inner4() from [VS]:51234 to [VD]:4789, label 0x5b1c3. */
static struct kbloom_xlate vx6(const uint8_t *p, uint32_t len, bool csum)
{
	return vx6_rec(p, len, KBLOOM_XLATE_VXLAN, csum, VS, VD, 0x5b1c3,
		       51234, 4789);
}

/*
 * The more record of tunnel record @r holding checksum @csum (the
 * engine's kb_xlate_more(), as the module makes it), put in window @id;
 * as a lookup finds it (VALID).
 */
static struct kbloom_xlate put_more(struct arch *x, uint64_t id,
				    const struct kbloom_xlate *r,
				    uint16_t csum)
{
	struct kbloom_xlate m;

	kb_xlate_more(r, htons(csum), 0, &m);
	kb_xlate_put(win(x, id), &m);
	m.state = KBLOOM_XLATE_VALID;
	return m;
}

/*
 * Hit @h is tunnel record @r's from [VS] to [VD], found with its
 * addresses and its more record @m: so not lost.
 */
static void hit_with_more(struct __test_metadata *_metadata,
			  const struct kb_xlate_hit *h,
			  const struct kbloom_xlate *r,
			  const struct kbloom_xlate *m)
{
	EXPECT_TRUE(hit_is(h, r, VS, VD));
	EXPECT_FALSE(h->more_lost);
	EXPECT_FALSE(kb_xlate_hit_lost(h));
	EXPECT_EQ(0, memcmp(&h->more, m, sizeof(*m)));
}

/*
 * kb_xlate_before() of hit @h of packet @p (@len bytes) rebuilds its
 * outer packet with the UDP checksum @csum (at @at: 26 over IPv4, 46
 * over IPv6).
 */
static void before_has_csum(struct __test_metadata *_metadata,
			    const struct kb_xlate_hit *h, const uint8_t *p,
			    uint32_t len, uint32_t at, uint16_t csum)
{
	uint8_t *o = NULL;
	uint32_t olen = 0;

	ASSERT_EQ(0, kb_xlate_before(h, p, len, &o, &olen));
	EXPECT_EQ(csum, get16(o + at));
	free(o);
}

/*
 * What follows the outer IP header of VXLAN or GENEVE record @r's packet
 * around the @len bytes of @p, at @u, as pktxform.h says
 * pkt_tunnel_outer() rebuilds it: UDP (FIRST's ports, the length
 * @udplen, checksum @csum), VXLAN's header (flags 0x08) or GENEVE's
 * (protocol 0x6558), VNI 0, Ethernet (zero addresses, type IPv4, or IPv6
 * for an IPv6 @p), @p. Its length.
 */
static uint32_t udp_tunnel_rebuilt(uint8_t *u, const struct kbloom_xlate *r,
				   uint32_t udplen, uint16_t csum,
				   const uint8_t *p, uint32_t len)
{
	memset(u, 0, 30);
	memcpy(u, &r->first, 4);
	set16(u + 4, udplen);
	set16(u + 6, csum);
	if ((r->kind & KBLOOM_XLATE_GENEVE) == KBLOOM_XLATE_GENEVE)
		set16(u + 10, 0x6558);
	else
		u[8] = 0x08;
	set16(u + 28, p[0] >> 4 == 6 ? 0x86dd : 0x0800);
	memcpy(u + 30, p, len);
	return 30 + len;
}

/*
 * The outer packet of tunnel record @r (VXLAN or GENEVE over IPv6, from
 * @src to @dst) around the @len bytes of @p, as pktxform.h says
 * pkt_tunnel_outer() rebuilds it: the IPv6 header (traffic class 0, the
 * flow label, payload length, next header 17, hop limit 64, the
 * addresses), UDP (FIRST's ports, its length, checksum @csum), VXLAN's
 * header (flags 0x08) or GENEVE's (protocol 0x6558), VNI 0, Ethernet
 * (zero addresses, type IPv4, or IPv6 for an IPv6 @p), the inner packet.
 * Its length.
 */
static uint32_t vx6_outer(uint8_t *o, const uint8_t *p, uint32_t len,
			  const struct kbloom_xlate *r, const uint8_t *src,
			  const uint8_t *dst, uint16_t csum)
{
	bool v6 = p[0] >> 4 == 6;
	uint32_t udplen = 8 + 8 + 14 + (v6 ? 40 + get16(p + 4) :
					get16(p + 2));
	uint32_t label = (uint32_t)ntohs(r->before_sport) << 16 |
			 ntohs(r->before_dport);

	o[0] = 0x60;
	o[1] = (uint8_t)(label >> 16 & 0x0f);
	set16(o + 2, label);
	set16(o + 4, udplen);
	o[6] = 17;
	o[7] = 64;
	memcpy(o + 8, src, 16);
	memcpy(o + 24, dst, 16);
	return 40 + udp_tunnel_rebuilt(o + 40, r, udplen, csum, p, len);
}

/*
 * The more record made in window 7 (before its tunnel record, which the
 * rotation put in window 8), the address records in window 7: one hit
 * of the tunnel record with its addresses and its more record; its
 * words; the outer packet with the checksum, its headers byte for byte
 * (the whole packet: below).
 */
TEST(a_vxlan6_hit_gets_its_addresses_and_its_checksum_from_the_table)
{
	struct kbloom_xlate r, m;
	struct kb_xlate_hit hit[4];
	uint8_t p[64], ref[256], *o = NULL;
	uint32_t len, olen = 0;
	struct arch x;
	char s[256];

	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = vx6(p, len, true);
	m = put_more(&x, 7, &r, 0x1f2e);
	put_addr(&x, 7, VS);
	put_addr(&x, 7, VD);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	memset(hit, 0xa5, sizeof(hit));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, T8 + 5, T8 + 6, hit, 4));
	hit_with_more(_metadata, &hit[0], &r, &m);
	EXPECT_EQ(8, hit[0].window);
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("VXLAN6 [fd02::1]:51234 > [fd03::2]:4789 flowlabel 0x5b1c3 csum 0x1f2e",
		     s);
	ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o, &olen));
	vx6_outer(ref, p, len, &r, VS, VD, 0x1f2e);
	ASSERT_LE(70 + 8, olen);
	EXPECT_EQ(0x1f2e, get16(o + 46));
	EXPECT_EQ(0, memcmp(o, ref, 70 + 8));
	free(o);
	arch_free(&x);
}

/*
 * kb_xlate_before() of a VXLAN or GENEVE hit over IPv6: the whole outer
 * packet, its 70 bytes of headers (IPv6, UDP, VXLAN or GENEVE, Ethernet)
 * and every byte of the inner packet after them.
 */
TEST(before_of_a_vxlan6_or_geneve6_hit_is_the_whole_outer_packet)
{
	static const uint8_t kinds[] = { KBLOOM_XLATE_VXLAN,
					 KBLOOM_XLATE_GENEVE };
	struct kb_xlate_hit hit[4];
	uint8_t p[64], ref[256], *o = NULL;
	uint32_t len, olen = 0, rlen;
	struct kbloom_xlate r;
	struct arch x;
	size_t i, c;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		for (c = 0; c < 2; c++) {
			ASSERT_EQ(0, arch_init(&x));
			len = inner4(p);
			r = vx6_rec(p, len, kinds[i], c, VS, VD, 0xfffff,
				    49877, i ? 6081 : 4789);
			if (c)
				put_more(&x, 8, &r, 0xa001);
			put_addr(&x, 8, VS);
			put_addr(&x, 8, VD);
			ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
			ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0,
						     UINT64_MAX, hit, 4));
			ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o,
						     &olen));
			rlen = vx6_outer(ref, p, len, &r, VS, VD,
					 c ? 0xa001 : 0);
			EXPECT_EQ(rlen, olen) {
				TH_LOG("kind 0x%02x, csum %zu: %u bytes, want %u",
				       r.kind, c, olen, rlen);
			}
			EXPECT_EQ(0, memcmp(o, ref, olen < rlen ? olen : rlen));
			free(o);
			o = NULL;
			arch_free(&x);
		}
}

/*
 * Two more records of one tunnel record (two packets of one inner IP ID,
 * outer ports and flow label, their payloads different), of different
 * checksums: a hit per checksum, each rebuilt with its own; the same
 * more record in both windows is one. At most @max written, the count
 * still all of them.
 */
TEST(two_more_records_of_one_vxlan6_record_give_a_hit_per_checksum)
{
	static const uint16_t sums[2] = { 0x1f2e, 0xa001 };
	struct kb_xlate_hit hit[4], fresh;
	struct kbloom_xlate r;
	uint8_t p[64];
	uint32_t len;
	size_t n, i, j, seen;
	struct arch x;
	char s[256], w[128];

	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = vx6(p, len, true);
	put_more(&x, 7, &r, sums[0]);
	put_more(&x, 8, &r, sums[0]);
	put_more(&x, 8, &r, sums[1]);
	put_addr(&x, 8, VS);
	put_addr(&x, 8, VD);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	n = kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4);
	ASSERT_EQ(2, n);
	for (i = 0; i < 2; i++) {
		for (seen = 0, j = 0; j < n; j++) {
			if (ntohs(hit[j].more.before_sport) != sums[i])
				continue;
			seen++;
			EXPECT_TRUE(hit_is(&hit[j], &r, VS, VD));
			EXPECT_FALSE(hit[j].more_lost);
			EXPECT_EQ(KBLOOM_XLATE_MORE, hit[j].more.kind);
			EXPECT_EQ(0, hit[j].more.before_dport);
			kb_xlate_hit_str(&hit[j], s, sizeof(s));
			snprintf(w, sizeof(w),
				 "VXLAN6 [fd02::1]:51234 > [fd03::2]:4789 flowlabel 0x5b1c3 csum 0x%04x",
				 sums[i]);
			EXPECT_STREQ(w, s);
			before_has_csum(_metadata, &hit[j], p, len, 46,
					sums[i]);
		}
		EXPECT_EQ(1, seen) {
			TH_LOG("checksum 0x%04x: %zu hits", sums[i], seen);
		}
	}
	/* One written: the count is still 2, and nothing past the one. */
	memset(hit, 0xa5, sizeof(hit));
	memset(&fresh, 0xa5, sizeof(fresh));
	ASSERT_EQ(2, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 1));
	EXPECT_TRUE(hit_is(&hit[0], &r, VS, VD));
	EXPECT_EQ(0, memcmp(&hit[1], &fresh, sizeof(fresh)));
	arch_free(&x);
}

/*
 * No more record: one hit, more_lost (its addresses found), lost by
 * kb_xlate_hit_lost(), nothing to rebuild by, and said so; without the
 * addresses too, both said.
 */
TEST(a_vxlan6_hit_without_its_more_record_is_more_lost)
{
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate r;
	uint8_t p[64], *o = NULL;
	uint32_t len, olen = 0;
	struct arch x;
	char s[256];

	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = vx6(p, len, true);
	put_addr(&x, 7, VS);
	put_addr(&x, 7, VD);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(hit_is(&hit[0], &r, VS, VD));
	EXPECT_TRUE(hit[0].more_lost);
	EXPECT_FALSE(hit[0].addr6_lost);
	lost_as_said(_metadata, &hit[0], p, len,
		     "VXLAN6 [fd02::1]:51234 > [fd03::2]:4789 flowlabel 0x5b1c3 (its UDP checksum is not in the table)");
	arch_free(&x);

	ASSERT_EQ(0, arch_init(&x));
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(hit[0].more_lost);
	EXPECT_TRUE(hit[0].addr6_lost);
	EXPECT_TRUE(kb_xlate_hit_lost(&hit[0]));
	EXPECT_EQ(-EINVAL, kb_xlate_before(&hit[0], p, len, &o, &olen));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("VXLAN6 (its outer addresses are not in the table) ports 51234 > 4789 flowlabel 0x5b1c3 (its UDP checksum is not in the table)",
		     s);
	/* Its addresses lost, its checksum found: the first said. */
	put_more(&x, 8, &r, 0x1f2e);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_FALSE(hit[0].more_lost);
	EXPECT_TRUE(hit[0].addr6_lost);
	EXPECT_TRUE(kb_xlate_hit_lost(&hit[0]));
	EXPECT_EQ(-EINVAL, kb_xlate_before(&hit[0], p, len, &o, &olen));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("VXLAN6 (its outer addresses are not in the table) ports 51234 > 4789 flowlabel 0x5b1c3 csum 0x1f2e",
		     s);
	arch_free(&x);
}

/*
 * A more record is paired by its tunnel record's key, BEFORE_SRC,
 * BEFORE_DST and FIRST (uapi "More"): one of another source or
 * destination port, of another fold of either address, or of another
 * packet (its IP ID), or a record of another kind with the more
 * record's fields, is not the tunnel record's; then its own is, alone.
 */
TEST(a_more_record_of_another_first_or_fold_is_not_paired)
{
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate r, o;
	uint8_t p[64], q[64], other[16];
	uint32_t len;
	struct arch x;

	memcpy(other, VS, 16);
	other[15] ^= 0x10;				/* another fold */
	ASSERT_NE(fold(VS), fold(other));
	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = vx6(p, len, true);
	put_addr(&x, 8, VS);
	put_addr(&x, 8, VD);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	o = vx6_rec(p, len, KBLOOM_XLATE_VXLAN, true, VS, VD, 0x5b1c3,
		    51235, 4789);
	put_more(&x, 8, &o, 0x1111);
	o = vx6_rec(p, len, KBLOOM_XLATE_VXLAN, true, VS, VD, 0x5b1c3,
		    51234, 4790);
	put_more(&x, 7, &o, 0x2222);
	o = vx6_rec(p, len, KBLOOM_XLATE_VXLAN, true, other, VD, 0x5b1c3,
		    51234, 4789);
	put_more(&x, 8, &o, 0x3333);
	o = vx6_rec(p, len, KBLOOM_XLATE_VXLAN, true, VS, other, 0x5b1c3,
		    51234, 4789);
	put_more(&x, 8, &o, 0x4444);
	/* Another inner packet: another key. */
	memcpy(q, p, len);
	q[5] ^= 1;
	o = vx6(q, len, true);
	put_more(&x, 8, &o, 0x5555);
	/* The fields of a more record, KIND another. */
	kb_xlate_more(&r, htons(0x6666), 0, &o);
	o.kind = KBLOOM_XLATE_OPAQUE;
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &o));
	o.kind = KBLOOM_XLATE_MORE | KBLOOM_XLATE_OUTER6;
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 7), &o));

	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(hit_is(&hit[0], &r, VS, VD));
	EXPECT_TRUE(hit[0].more_lost);

	put_more(&x, 7, &r, 0x7777);
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_FALSE(hit[0].more_lost);
	EXPECT_EQ(0x7777, ntohs(hit[0].more.before_sport));
	arch_free(&x);
}

/*
 * Without a checksum (RFC 6935: KIND without VXLAN_CSUM) the record is
 * all of the outer packet: no more record looked for, not lost, rebuilt
 * with checksum 0, even with a more record of its fields in the table;
 * so too VXLAN over IPv4, whose checksum is in the record.
 */
TEST(a_vxlan_hit_of_no_checksum_or_over_ipv4_takes_no_more_record)
{
	static const struct kbloom_xlate zero;
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate r;
	uint8_t p[64];
	uint32_t len;
	struct arch x;
	char s[256];

	ASSERT_EQ(0, arch_init(&x));
	len = inner4(p);
	r = vx6(p, len, false);
	put_addr(&x, 8, VS);
	put_addr(&x, 8, VD);
	put_more(&x, 8, &r, 0x1f2e);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(hit_is(&hit[0], &r, VS, VD));
	EXPECT_FALSE(hit[0].more_lost);
	EXPECT_FALSE(kb_xlate_hit_lost(&hit[0]));
	EXPECT_EQ(0, memcmp(&hit[0].more, &zero, sizeof(zero)));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("VXLAN6 [fd02::1]:51234 > [fd03::2]:4789 flowlabel 0x5b1c3",
		     s);
	before_has_csum(_metadata, &hit[0], p, len, 46, 0);
	arch_free(&x);

	/* Over IPv4: 192.0.2.1 > 192.0.2.2, its checksum 0x7a3e. */
	ASSERT_EQ(0, arch_init(&x));
	r = vx6(p, len, true);
	r.kind &= ~KBLOOM_XLATE_OUTER6;
	r.before_src = htonl(0xc0000201);
	r.before_dst = htonl(0xc0000202);
	r.before_sport = htons(0x3c3c);
	r.before_dport = htons(0x7a3e);
	put_more(&x, 8, &r, 0x1f2e);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_FALSE(hit[0].more_lost);
	EXPECT_FALSE(kb_xlate_hit_lost(&hit[0]));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("VXLAN 192.0.2.1:51234 > 192.0.2.2:4789 id 15420 csum 0x7a3e",
		     s);
	before_has_csum(_metadata, &hit[0], p, len, 26, 0x7a3e);
	arch_free(&x);
}

/*
 * VXLAN and GENEVE over IPv6 in words: the kind, "[address]:port" at
 * each end, the flow label in 5 hex digits, the checksum in 4 (0xffff
 * as carried), none without one.
 */
TEST(hit_str_names_vxlan6_and_geneve6)
{
	static const struct {
		uint8_t kind;
		bool csum;
		const uint8_t *src, *dst;
		uint32_t label;
		uint16_t sport, dport, sum;
		const char *want;
	} c[] = {
		{ KBLOOM_XLATE_VXLAN, true, VS, VD, 0x5b1c3, 51234, 4789,
		  0x1f2e,
		  "VXLAN6 [fd02::1]:51234 > [fd03::2]:4789 flowlabel 0x5b1c3 csum 0x1f2e" },
		{ KBLOOM_XLATE_VXLAN, true, VD, VS, 0, 1, 8472, 0x0001,
		  "VXLAN6 [fd03::2]:1 > [fd02::1]:8472 flowlabel 0x00000 csum 0x0001" },
		{ KBLOOM_XLATE_GENEVE, true, VD, VS, 0xfffff, 49877, 6081,
		  0xffff,
		  "GENEVE6 [fd03::2]:49877 > [fd02::1]:6081 flowlabel 0xfffff csum 0xffff" },
		{ KBLOOM_XLATE_GENEVE, false, VS, VD, 0x5b1c3, 65535, 6081, 0,
		  "GENEVE6 [fd02::1]:65535 > [fd03::2]:6081 flowlabel 0x5b1c3" },
		{ KBLOOM_XLATE_GENEVE, true, VS, S, 0x00001, 38911, 6081,
		  0x8000,
		  "GENEVE6 [fd02::1]:38911 > [2001:db8:a::1]:6081 flowlabel 0x00001 csum 0x8000" },
	};
	struct kb_xlate_hit hit[2];
	struct kbloom_xlate r;
	uint8_t p[64];
	struct arch x;
	uint32_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		ASSERT_EQ(0, arch_init(&x));
		len = inner4(p);
		r = vx6_rec(p, len, c[i].kind, c[i].csum, c[i].src, c[i].dst,
			    c[i].label, c[i].sport, c[i].dport);
		if (c[i].csum)
			put_more(&x, 8, &r, c[i].sum);
		put_addr(&x, 8, c[i].src);
		put_addr(&x, 8, c[i].dst);
		one_hit_says(_metadata, &x, &r, p, len, hit, c[i].want);
		arch_free(&x);
	}
}

/* ---- IPv6 in GRE (protocol 0x86DD): a gre device, ip6gre ---- */

/*
 * An ICMPv6 echo fd09::7 > fd09::8 (16 data bytes) as captured past the
 * tunnel: traffic class 0, hop limit 61, flow label 0x5abcd; its length.
 */
static uint32_t echo6(uint8_t *p)
{
	uint32_t k;

	memset(p, 0, 64);
	p[0] = 0x60;
	p[1] = 0x05, p[2] = 0xab, p[3] = 0xcd;
	p[5] = 24;
	p[6] = 58;
	p[7] = 61;
	p[8] = 0xfd, p[9] = 0x09, p[23] = 7;
	p[24] = 0xfd, p[25] = 0x09, p[39] = 8;
	p[40] = 128;
	set16(p + 44, 0x0517);
	set16(p + 46, 9);
	for (k = 0; k < 16; k++)
		p[48 + k] = (uint8_t)(3 * k);
	return 64;
}

/*
 * The outer IPv4 header of the packets d's records over IPv4 are made of
 * (gre6in4_rec(), vx4_rec(), gnv_rec()): TOS @tos, the total length
 * @tot, IP ID 0x1234, DF, TTL @ttl, protocol @proto, 10.2.0.1 >
 * 10.3.0.2, its checksum.
 */
static void ip4_outer(uint8_t *o, uint8_t tos, uint32_t tot, uint8_t ttl,
		      uint8_t proto)
{
	memset(o, 0, 20);
	o[0] = 0x45;
	o[1] = tos;
	set16(o + 2, tot);
	set16(o + 4, 0x1234);
	set16(o + 6, 0x4000);
	o[8] = ttl;
	o[9] = proto;
	o[12] = 10, o[13] = 2, o[15] = 1;
	o[16] = 10, o[17] = 3, o[19] = 2;
	set16(o + 10, ~sum16(0, o, 20) & 0xffff);
}

/*
 * The record d makes of IPv6 packet @p arriving in GRE (@kind: GRE and
 * its words' bits) over IPv4 from 10.2.0.1 to 10.3.0.2, IP ID 0x1234,
 * DF: keyed as 6in4's (FAMILY 6), FIRST @first (GRE's first word, or the
 * inner hop limit and traffic class without one).
 */
static struct kbloom_xlate gre6in4_rec(const uint8_t *p, uint32_t len,
				       uint8_t kind, uint32_t first)
{
	struct kbloom_xlate r;

	if (pkt_tunnel_want(p, len, &r) || r.family != 6)
		abort();
	r.kind = kind;
	r.before_src = htonl(0x0a020001);
	r.before_dst = htonl(0x0a030002);
	r.before_sport = htons(0x1234);
	r.before_dport = htons(0x4000);
	r.first = first;
	return r;
}

/* FIRST of a record without a GRE word: hop limit 64, traffic class 0x2e. */
static uint32_t hop_tclass(void)
{
	uint32_t f = 0;

	((uint8_t *)&f)[0] = 64;
	((uint8_t *)&f)[1] = 0x2e;
	return f;
}

/*
 * IPv6 in GRE over IPv4 (KIND GRE, FAMILY 6) in words: GRE's, with GRE's
 * words, as for IPv4 in GRE, by itself and as a hit; "6in4" is sit's
 * alone (KIND IPIP, FAMILY 6).
 */
TEST(ipv6_in_gre_over_ipv4_is_gre_in_words_not_6in4)
{
	static const struct {
		uint8_t kind;
		uint32_t first;
		const char *want;
	} c[] = {
		{ KBLOOM_XLATE_GRE, 0,
		  "GRE 10.2.0.1 > 10.3.0.2 id 4660" },
		{ KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_KEY, 7,
		  "GRE 10.2.0.1 > 10.3.0.2 id 4660 key 7" },
		{ KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_SEQ, 4000000000u,
		  "GRE 10.2.0.1 > 10.3.0.2 id 4660 seq 4000000000" },
		{ KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_CSUM |
		  KBLOOM_XLATE_GRE_KEY | KBLOOM_XLATE_GRE_SEQ, 0xbeef0000,
		  "GRE 10.2.0.1 > 10.3.0.2 id 4660 csum 0xbeef key seq" },
		{ KBLOOM_XLATE_IPIP, 0,
		  "6in4 10.2.0.1 > 10.3.0.2 id 4660" },
	};
	struct kb_xlate_hit hit[2];
	struct kbloom_xlate r;
	uint8_t p[64];
	struct arch x;
	uint32_t len;
	char s[256];
	size_t i;

	len = echo6(p);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		r = gre6in4_rec(p, len, c[i].kind,
				c[i].first ? htonl(c[i].first) : hop_tclass());
		kb_xlate_str(&r, s, sizeof(s));
		EXPECT_STREQ(c[i].want, s);
		ASSERT_EQ(0, arch_init(&x));
		one_hit_says(_metadata, &x, &r, p, len, hit, c[i].want);
		arch_free(&x);
	}
}

/*
 * An IPv6 packet that came out of a gre device finds its record, keyed
 * as 6in4's past the hop limit and traffic class the routers after the
 * tunnel changed; kb_xlate_before() gives the outer packet: IPv4 from
 * 10.2.0.1 to 10.3.0.2 (the record's ID and flags, TTL 64, protocol 47,
 * its checksum), GRE (version 0, no flags, protocol 0x86DD) and the
 * inner packet with its hop limit and traffic class inside the tunnel
 * (64 and 0x2e, FIRST), built here byte for byte.
 */
TEST(an_ipv6_packet_finds_its_gre_record_and_before_is_the_outer_packet)
{
	static const uint8_t zero[16];
	struct kb_xlate_hit hit[4];
	uint8_t p[64], ref[128], *o = NULL;
	struct kbloom_xlate r;
	uint32_t len, olen = 0;
	struct arch x;

	ASSERT_EQ(0, arch_init(&x));
	len = echo6(p);
	r = gre6in4_rec(p, len, KBLOOM_XLATE_GRE, hop_tclass());
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 7), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, T7, T7 + 1, hit, 4));
	EXPECT_TRUE(hit_is(&hit[0], &r, zero, zero));
	EXPECT_EQ(7, hit[0].window);
	ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o, &olen));
	memset(ref, 0, sizeof(ref));
	ip4_outer(ref, 0, 20 + 4 + 64, 64, 47);
	set16(ref + 22, 0x86dd);
	memcpy(ref + 24, p, len);
	ref[24] = 0x62;			/* traffic class 0x2e */
	ref[25] = 0xe5;
	ref[31] = 64;			/* hop limit */
	ASSERT_EQ(24 + len, olen);
	EXPECT_EQ(0, memcmp(o, ref, olen));
	free(o);
	/* Another echo (another sequence number): no record. */
	p[47] ^= 1;
	EXPECT_EQ(0, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	arch_free(&x);
}

/*
 * Over IPv6 (ip6gre, KIND GRE | OUTER6, FAMILY 6): the hit gets its outer
 * addresses from the table; its words GRE6's, with the limit and GRE's
 * words; the outer packet IPv6 from fd02::1 to fd03::2 (the flow label,
 * the limit in its destination options header), GRE of protocol 0x86DD
 * with the key, and the inner packet as captured (FIRST is the key).
 */
TEST(an_ipv6_packet_finds_its_ip6gre_record_words_and_outer_packet)
{
	static const uint8_t dopt[8] = { 47, 0, 4, 1, 4, 1, 1, 0 };
	struct kb_xlate_hit hit[4];
	uint8_t p[64], *o = NULL;
	struct kbloom_xlate r;
	uint32_t len, olen = 0;
	struct arch x;
	char s[256];

	ASSERT_EQ(0, arch_init(&x));
	len = echo6(p);
	r = tun6_rec(p, len, KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_KEY, VS, VD);
	r.first = htonl(7);
	put_addr(&x, 7, VS);
	put_addr(&x, 8, VD);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(hit_is(&hit[0], &r, VS, VD));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("GRE6 fd02::1 > fd03::2 flowlabel 0x5b1c3 encaplimit 4 key 7",
		     s);
	kb_xlate_str(&hit[0].rec, s, sizeof(s));
	EXPECT_STREQ("GRE6 (its outer addresses are not in the table) flowlabel 0x5b1c3 encaplimit 4 key 7",
		     s);
	ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o, &olen));
	ASSERT_EQ(40 + 8 + 8 + len, olen);
	EXPECT_EQ(0x6005, get16(o));
	EXPECT_EQ(0xb1c3, get16(o + 2));
	EXPECT_EQ(8 + 8 + len, get16(o + 4));
	EXPECT_EQ(60, o[6]);
	EXPECT_EQ(0, memcmp(o + 8, VS, 16));
	EXPECT_EQ(0, memcmp(o + 24, VD, 16));
	EXPECT_EQ(0, memcmp(o + 40, dopt, 8));
	EXPECT_EQ(0x2000, get16(o + 48));
	EXPECT_EQ(0x86dd, get16(o + 50));
	EXPECT_EQ(7, get16(o + 54));
	EXPECT_EQ(0, memcmp(o + 56, p, len));
	free(o);

	/* No word, no limit: FIRST's hop limit and traffic class put back. */
	r = tun6_rec(p, len, KBLOOM_XLATE_GRE, VD, VS);
	r.before_sport = 0;
	r.first = hop_tclass();
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 7), &r));
	ASSERT_EQ(2, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	if (hit[0].rec.kind & KBLOOM_XLATE_GRE_KEY)
		hit[0] = hit[1];
	EXPECT_TRUE(hit_is(&hit[0], &r, VD, VS));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("GRE6 fd03::2 > fd02::1 flowlabel 0x0b1c3", s);
	ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o, &olen));
	ASSERT_EQ(40 + 4 + len, olen);
	EXPECT_EQ(47, o[6]);
	EXPECT_EQ(0x86dd, get16(o + 42));
	EXPECT_EQ(0x62e5abcd, (uint32_t)get16(o + 44) << 16 | get16(o + 46));
	EXPECT_EQ(64, o[51]);
	EXPECT_EQ(0, memcmp(o + 52, p + 8, len - 8));
	free(o);
	arch_free(&x);
}

/* ---- IPv6 in VXLAN and GENEVE (Ethernet type 0x86DD) ---- */

/*
 * The record d makes of packet @p (@len bytes; IPv4, or IPv6 keyed as
 * 6in4's) arriving in VXLAN or GENEVE (@kind) over IPv4 from
 * 10.2.0.1:@sport to 10.3.0.2:@dport, IP ID 0x1234, DF, as gre6in4_rec()
 * but FIRST the UDP ports as carried (uapi "VXLAN"); with a UDP checksum
 * @csum (not 0) KIND VXLAN_CSUM and VXLAN_DF, the checksum in
 * BEFORE_DPORT in the flags' place.
 */
static struct kbloom_xlate vx4_rec(const uint8_t *p, uint32_t len,
				   uint8_t kind, uint16_t sport,
				   uint16_t dport, uint16_t csum)
{
	uint8_t *f;
	struct kbloom_xlate r;

	if (pkt_tunnel_want(p, len, &r))
		abort();
	f = (uint8_t *)&r.first;
	r.kind = kind;
	r.before_src = htonl(0x0a020001);
	r.before_dst = htonl(0x0a030002);
	r.before_sport = htons(0x1234);
	r.before_dport = htons(0x4000);
	set16(f, sport);
	set16(f + 2, dport);
	if (csum) {
		r.kind |= KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_VXLAN_DF;
		r.before_dport = htons(csum);
	}
	return r;
}

/*
 * The outer packet of vx4_rec() record @r around the @len bytes of IPv6
 * packet @p, as pktxform.h says pkt_tunnel_outer() rebuilds it: IPv4
 * (TOS 0, the whole length, IP ID 0x1234, DF, TTL 64, protocol 17, its
 * checksum, 10.2.0.1 > 10.3.0.2), UDP (FIRST's ports, its length from
 * the inner payload length, checksum @csum), VXLAN's header (flags 0x08)
 * or GENEVE's (protocol 0x6558) with VNI 0, Ethernet (zero addresses,
 * type IPv6), the inner packet as captured: FIRST holds the ports, not
 * its hop limit and traffic class. Its length.
 */
static uint32_t vx4_outer6(uint8_t *o, const uint8_t *p, uint32_t len,
			   const struct kbloom_xlate *r, uint16_t csum)
{
	uint32_t udplen = 8 + 8 + 14 + 40 + get16(p + 4);

	ip4_outer(o, 0, 20 + udplen, 64, 17);
	return 20 + udp_tunnel_rebuilt(o + 20, r, udplen, csum, p, len);
}

/*
 * An IPv6 packet that came out of a vxlan or geneve device over IPv4
 * finds its record (FAMILY 6, keyed as 6in4's past the hop limit and
 * traffic class the routers after the tunnel changed), in words as for
 * IPv4 inside (the outer IP ID, the checksum); kb_xlate_before() gives
 * the outer packet, built here byte for byte, Ethernet type 0x86DD, the
 * inner packet as captured. Another echo finds none.
 */
TEST(an_ipv6_packet_finds_its_vxlan_or_geneve_record_and_its_outer_packet)
{
	static const struct {
		uint8_t kind;
		uint16_t sport, dport, csum;
		const char *want;
	} c[] = {
		{ KBLOOM_XLATE_VXLAN, 51234, 4789, 0,
		  "VXLAN 10.2.0.1:51234 > 10.3.0.2:4789 id 4660" },
		{ KBLOOM_XLATE_VXLAN, 51234, 4789, 0x7a3e,
		  "VXLAN 10.2.0.1:51234 > 10.3.0.2:4789 id 4660 csum 0x7a3e" },
		{ KBLOOM_XLATE_GENEVE, 49877, 6081, 0,
		  "GENEVE 10.2.0.1:49877 > 10.3.0.2:6081 id 4660" },
		{ KBLOOM_XLATE_GENEVE, 65535, 6081, 0xffff,
		  "GENEVE 10.2.0.1:65535 > 10.3.0.2:6081 id 4660 csum 0xffff" },
	};
	static const uint8_t zero[16];
	uint8_t p[64], ref[256], *o = NULL;
	struct kb_xlate_hit hit[4];
	uint32_t len, olen = 0;
	struct kbloom_xlate r;
	struct arch x;
	char s[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		ASSERT_EQ(0, arch_init(&x));
		len = echo6(p);
		r = vx4_rec(p, len, c[i].kind, c[i].sport, c[i].dport,
			    c[i].csum);
		ASSERT_EQ(6, r.family);
		ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 7), &r));
		ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, T7, T7 + 1, hit,
					     4));
		EXPECT_TRUE(hit_is(&hit[0], &r, zero, zero));
		EXPECT_FALSE(kb_xlate_hit_lost(&hit[0]));
		EXPECT_EQ(7, hit[0].window);
		kb_xlate_hit_str(&hit[0], s, sizeof(s));
		EXPECT_STREQ(c[i].want, s);
		kb_xlate_str(&r, s, sizeof(s));
		EXPECT_STREQ(c[i].want, s);
		ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o, &olen));
		ASSERT_EQ(vx4_outer6(ref, p, len, &r, c[i].csum), olen);
		EXPECT_EQ(20 + 30 + 64, olen);
		EXPECT_EQ(0, memcmp(o, ref, olen)) {
			TH_LOG("%s", c[i].want);
		}
		EXPECT_EQ(0x86dd, get16(o + 48));
		EXPECT_EQ(30 + 64, get16(o + 24));
		EXPECT_EQ(61, o[50 + 7]);
		free(o);
		o = NULL;
		/* Another echo (another sequence number): no record. */
		p[47] ^= 1;
		EXPECT_EQ(0, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit,
					     4));
		arch_free(&x);
	}
}

/*
 * GENEVE over IPv6 carrying IPv6: the more record in window 7, the
 * address records in 7 and 8, the tunnel record in 8 (asked for alone):
 * one hit, its addresses and checksum found; its words; the whole outer
 * packet (IPv6, UDP with the checksum, GENEVE, Ethernet type 0x86DD, the
 * inner packet as captured) byte for byte. Without its more record,
 * more_lost and nothing to rebuild by; VXLAN over IPv6 without a
 * checksum needs none.
 */
TEST(an_ipv6_packet_finds_its_geneve6_record_with_its_addresses_and_more_record)
{
	struct kb_xlate_hit hit[4];
	uint8_t p[64], ref[256], *o = NULL;
	uint32_t len, olen = 0;
	struct kbloom_xlate r, m;
	struct arch x;
	char s[256];

	ASSERT_EQ(0, arch_init(&x));
	len = echo6(p);
	r = vx6_rec(p, len, KBLOOM_XLATE_GENEVE, true, VS, VD, 0x5b1c3, 49877,
		    6081);
	ASSERT_EQ(6, r.family);
	m = put_more(&x, 7, &r, 0xa001);
	put_addr(&x, 7, VS);
	put_addr(&x, 8, VD);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, T8 + 5, T8 + 6, hit, 4));
	hit_with_more(_metadata, &hit[0], &r, &m);
	EXPECT_EQ(8, hit[0].window);
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("GENEVE6 [fd02::1]:49877 > [fd03::2]:6081 flowlabel 0x5b1c3 csum 0xa001",
		     s);
	kb_xlate_str(&hit[0].rec, s, sizeof(s));
	EXPECT_STREQ("GENEVE6 (its outer addresses are not in the table) ports 49877 > 6081 flowlabel 0x5b1c3 (its UDP checksum is not in the table)",
		     s);
	ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o, &olen));
	ASSERT_EQ(vx6_outer(ref, p, len, &r, VS, VD, 0xa001), olen);
	EXPECT_EQ(70 + 64, olen);
	EXPECT_EQ(0, memcmp(o, ref, olen));
	EXPECT_EQ(30 + 64, get16(o + 4));
	EXPECT_EQ(30 + 64, get16(o + 44));
	EXPECT_EQ(0xa001, get16(o + 46));
	EXPECT_EQ(0x86dd, get16(o + 68));
	EXPECT_EQ(61, o[70 + 7]);
	free(o);
	o = NULL;
	p[47] ^= 1;
	EXPECT_EQ(0, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	arch_free(&x);

	/* No more record: lost, said so. */
	ASSERT_EQ(0, arch_init(&x));
	len = echo6(p);
	put_addr(&x, 8, VS);
	put_addr(&x, 8, VD);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4));
	EXPECT_TRUE(hit[0].more_lost);
	lost_as_said(_metadata, &hit[0], p, len,
		     "GENEVE6 [fd02::1]:49877 > [fd03::2]:6081 flowlabel 0x5b1c3 (its UDP checksum is not in the table)");

	/* VXLAN6 without a checksum (RFC 6935), in window 7: rebuilt with 0. */
	r = vx6_rec(p, len, KBLOOM_XLATE_VXLAN, false, VD, VS, 0xfffff, 1,
		    8472);
	ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 7), &r));
	ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, T7, T7 + 1, hit, 4));
	EXPECT_TRUE(hit_is(&hit[0], &r, VD, VS));
	EXPECT_FALSE(kb_xlate_hit_lost(&hit[0]));
	kb_xlate_hit_str(&hit[0], s, sizeof(s));
	EXPECT_STREQ("VXLAN6 [fd03::2]:1 > [fd02::1]:8472 flowlabel 0xfffff",
		     s);
	ASSERT_EQ(0, kb_xlate_before(&hit[0], p, len, &o, &olen));
	ASSERT_EQ(vx6_outer(ref, p, len, &r, VD, VS, 0), olen);
	EXPECT_EQ(0, memcmp(o, ref, olen));
	EXPECT_EQ(0x86dd, get16(o + 68));
	free(o);
	arch_free(&x);
}

/*
 * The words of a VXLAN or GENEVE hit are the same for IPv6 inside as
 * for IPv4: no "6in4", no "6in6". Both packets' records in one table,
 * each packet finds its own (FAMILY 6, FAMILY 4).
 */
TEST(hit_str_names_ipv6_in_vxlan_and_geneve_as_ipv4_inside)
{
	static const struct {
		uint8_t kind;
		bool v6, csum;
		uint16_t sport, dport;
		const char *want;
	} c[] = {
		{ KBLOOM_XLATE_VXLAN, false, false, 51234, 4789,
		  "VXLAN 10.2.0.1:51234 > 10.3.0.2:4789 id 4660" },
		{ KBLOOM_XLATE_GENEVE, false, true, 38911, 6081,
		  "GENEVE 10.2.0.1:38911 > 10.3.0.2:6081 id 4660 csum 0x1f2e" },
		{ KBLOOM_XLATE_VXLAN, true, true, 51234, 4789,
		  "VXLAN6 [fd02::1]:51234 > [fd03::2]:4789 flowlabel 0x5b1c3 csum 0x1f2e" },
		{ KBLOOM_XLATE_GENEVE, true, false, 49877, 6081,
		  "GENEVE6 [fd02::1]:49877 > [fd03::2]:6081 flowlabel 0x5b1c3" },
	};
	uint8_t p[2][64];
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate r[2];
	uint32_t len[2];
	struct arch x;
	char s[256];
	size_t i, j;

	len[0] = echo6(p[0]);
	len[1] = inner4(p[1]);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		ASSERT_EQ(0, arch_init(&x));
		put_addr(&x, 8, VS);
		put_addr(&x, 8, VD);
		for (j = 0; j < 2; j++) {
			r[j] = c[i].v6 ?
			       vx6_rec(p[j], len[j], c[i].kind, c[i].csum, VS,
				       VD, 0x5b1c3, c[i].sport, c[i].dport) :
			       vx4_rec(p[j], len[j], c[i].kind, c[i].sport,
				       c[i].dport, c[i].csum ? 0x1f2e : 0);
			if (c[i].v6 && c[i].csum)
				put_more(&x, 8, &r[j], 0x1f2e);
			ASSERT_EQ(KB_XLATE_NEW,
				  kb_xlate_put(win(&x, 8), &r[j]));
		}
		for (j = 0; j < 2; j++) {
			ASSERT_EQ(1, kb_xlate_lookup(&x.a, p[j], len[j], 0,
						     UINT64_MAX, hit, 4));
			EXPECT_EQ(j ? 4 : 6, hit[0].rec.family);
			EXPECT_TRUE(c[i].v6 ? hit_is(&hit[0], &r[j], VS, VD) :
				    !memcmp(&hit[0].rec.first, &r[j].first, 4));
			kb_xlate_hit_str(&hit[0], s, sizeof(s));
			EXPECT_STREQ(c[i].want, s) {
				TH_LOG("IPv%d inside", j ? 4 : 6);
			}
		}
		arch_free(&x);
	}
}

/* ---- GENEVE with options: their length and flags in a more record ---- */

/*
 * The GENEVE record with options (KIND GENEVE_OPT) of packet @p over
 * IPv4 (vx4_rec(): 10.2.0.1:@sport > 10.3.0.2:6081, IP ID 0x1234, DF;
 * a UDP checksum @csum, not 0, in BEFORE_DPORT) or over IPv6 (@v6:
 * vx6_rec(), [VS]:@sport > [VD]:6081, flow label 0x5b1c3; KIND
 * VXLAN_CSUM with a checksum @csum, which its more record holds).
 */
static struct kbloom_xlate gnv_rec(const uint8_t *p, uint32_t len, bool v6,
				   uint16_t csum, uint16_t sport)
{
	struct kbloom_xlate r;

	r = v6 ? vx6_rec(p, len, KBLOOM_XLATE_GENEVE, csum, VS, VD, 0x5b1c3,
			 sport, 6081) :
		 vx4_rec(p, len, KBLOOM_XLATE_GENEVE, sport, 6081, csum);
	r.kind |= KBLOOM_XLATE_GENEVE_OPT;
	return r;
}

/*
 * The more record of GENEVE record @r with options as the module makes
 * it (the engine's kb_xlate_more()): BEFORE_SPORT the UDP checksum @csum
 * (over IPv6 with one; else 0), BEFORE_DPORT GENEVE's first two bytes as
 * carried, @optlen bytes of options in 4-byte words (version 0) and the
 * O and C @flags; put in window @id; as a lookup finds it (VALID).
 */
static struct kbloom_xlate put_gmore(struct arch *x, uint64_t id,
				     const struct kbloom_xlate *r,
				     uint16_t csum, uint32_t optlen,
				     uint8_t flags)
{
	const uint8_t g[2] = { (uint8_t)(optlen / 4), flags };
	struct kbloom_xlate m;
	uint16_t hdr;

	memcpy(&hdr, g, 2);
	kb_xlate_more(r, htons(csum), hdr, &m);
	kb_xlate_put(win(x, id), &m);
	m.state = KBLOOM_XLATE_VALID;
	return m;
}

/*
 * The wire packet of gnv_rec()'s record around the @len bytes of @p (an
 * inner packet as captured: no digest covers it): IPv4 (RFC 791: TOS
 * 0xb8, the total length, IP ID 0x1234, DF, TTL 30, protocol 17,
 * 10.2.0.1 > 10.3.0.2, its checksum from scratch) or, @v6, IPv6 (RFC
 * 8200: traffic class 0x28, flow label 0x5b1c3, the payload length, next
 * header 17, hop limit 253, VS > VD); UDP from @sport to 6081, its length
 * and, @csum, its checksum summed from scratch over the pseudo-header
 * and the whole datagram (0 sent as 0xffff), else 0; GENEVE (RFC 8926
 * 3.4: version 0 and the options' length in words, the O and C @flags,
 * protocol 0x6558, VNI 0xabcdef); @optlen bytes of options (3.5: each of
 * class 0x0102, type 0x80 | its number, R 0, the words after its header,
 * at most 31, its data, no byte 0); Ethernet (real addresses, type IPv4,
 * or IPv6 for an IPv6 @p); @p. Its length.
 */
static uint32_t gnv_wire(uint8_t *o, const uint8_t *p, uint32_t len,
			 bool v6, bool csum, uint32_t optlen, uint8_t flags,
			 uint16_t sport)
{
	static const uint8_t macs[12] = {
		0x02, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e,
		0x0a, 0x6f, 0x70, 0x81, 0x92, 0xa3,
	};
	uint32_t h = v6 ? 40 : 20, udplen = 8 + 8 + optlen + 14 + len;
	uint32_t left = optlen, words, i, k, s;
	uint8_t *u = o + h, *t = u + 16, ph[12];

	memset(o, 0, h + udplen);
	if (v6) {
		o[0] = 0x62;
		o[1] = 0x85;
		set16(o + 2, 0xb1c3);
		set16(o + 4, udplen);
		o[6] = 17;
		o[7] = 253;
		memcpy(o + 8, VS, 16);
		memcpy(o + 24, VD, 16);
	} else {
		ip4_outer(o, 0xb8, 20 + udplen, 30, 17);
	}
	set16(u, sport);
	set16(u + 2, 6081);
	set16(u + 4, udplen);
	u[8] = (uint8_t)(optlen / 4);
	u[9] = flags;
	set16(u + 10, 0x6558);
	u[12] = 0xab, u[13] = 0xcd, u[14] = 0xef;
	for (i = 0; left >= 4; i++) {
		words = left / 4 - 1 < 31 ? left / 4 - 1 : 31;
		set16(t, 0x0102);
		t[2] = (uint8_t)(0x80 | i);
		t[3] = (uint8_t)words;
		for (k = 0; k < 4 * words; k++)
			t[4 + k] = (uint8_t)(0x30 + (k + i) % 64);
		t += 4 + 4 * words;
		left -= 4 + 4 * words;
	}
	memcpy(t, macs, 12);
	set16(t + 12, p[0] >> 4 == 6 ? 0x86dd : 0x0800);
	memcpy(t + 14, p, len);
	if (csum && v6) {
		csum6(o, 6);
	} else if (csum) {
		memcpy(ph, o + 12, 8);
		ph[8] = 0;
		ph[9] = 17;
		set16(ph + 10, udplen);
		s = ~sum16(sum16(0, ph, 12), u, udplen) & 0xffff;
		set16(u + 6, s ? s : 0xffff);
	}
	return h + udplen;
}

/*
 * GENEVE with options in words, as a hit with its more record: as
 * without options (over IPv4 the outer IP ID and the checksum the record
 * holds, over IPv6 the flow label and the checksum the more record
 * holds), then "options N bytes" (the first byte's low 6 bits, in 4-byte
 * words: 0 with a flag alone, up to 252), " oam" for the O flag (0x80),
 * " critical" for C (0x40). The record alone (kb_xlate_str()) says its
 * more record is not in the table: the options' length, over IPv6 with
 * a checksum the checksum too.
 */
TEST(hit_str_names_geneve_options_their_length_and_flags)
{
	static const struct {
		bool v6;
		uint16_t csum;
		uint32_t optlen;
		uint8_t flags;
		const char *want, *alone;
	} c[] = {
		{ false, 0, 32, 0,
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 options 32 bytes",
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 (its GENEVE options' length is not in the table)" },
		{ false, 0x1f2e, 32, 0xc0,
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 csum 0x1f2e options 32 bytes oam critical",
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 csum 0x1f2e (its GENEVE options' length is not in the table)" },
		{ false, 0, 0, 0x80,
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 options 0 bytes oam",
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 (its GENEVE options' length is not in the table)" },
		{ false, 0xffff, 252, 0x40,
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 csum 0xffff options 252 bytes critical",
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 csum 0xffff (its GENEVE options' length is not in the table)" },
		{ true, 0x1f2e, 8, 0,
		  "GENEVE6 [fd02::1]:51234 > [fd03::2]:6081 flowlabel 0x5b1c3 csum 0x1f2e options 8 bytes",
		  "GENEVE6 (its outer addresses are not in the table) ports 51234 > 6081 flowlabel 0x5b1c3 (its UDP checksum and GENEVE options' length are not in the table)" },
		{ true, 0, 4, 0xc0,
		  "GENEVE6 [fd02::1]:51234 > [fd03::2]:6081 flowlabel 0x5b1c3 options 4 bytes oam critical",
		  "GENEVE6 (its outer addresses are not in the table) ports 51234 > 6081 flowlabel 0x5b1c3 (its GENEVE options' length is not in the table)" },
		{ true, 0xffff, 252, 0x80,
		  "GENEVE6 [fd02::1]:51234 > [fd03::2]:6081 flowlabel 0x5b1c3 csum 0xffff options 252 bytes oam",
		  "GENEVE6 (its outer addresses are not in the table) ports 51234 > 6081 flowlabel 0x5b1c3 (its UDP checksum and GENEVE options' length are not in the table)" },
	};
	struct kb_xlate_hit hit[2];
	struct kbloom_xlate r;
	uint8_t p[64];
	struct arch x;
	uint32_t len;
	char s[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		ASSERT_EQ(0, arch_init(&x));
		len = inner4(p);
		r = gnv_rec(p, len, c[i].v6, c[i].csum, 51234);
		put_gmore(&x, 8, &r, c[i].v6 ? c[i].csum : 0, c[i].optlen,
			  c[i].flags);
		put_addr(&x, 8, VS);
		put_addr(&x, 8, VD);
		one_hit_says(_metadata, &x, &r, p, len, hit, c[i].want);
		EXPECT_FALSE(kb_xlate_hit_lost(&hit[0]));
		kb_xlate_str(&r, s, sizeof(s));
		EXPECT_STREQ(c[i].alone, s);
		arch_free(&x);
	}
}

/*
 * A GENEVE record with options whose more record is not in the table:
 * one hit, more_lost, lost, nothing to rebuild by (its options' length
 * unknown), and said so: over IPv4 (with a checksum or not: the record
 * holds it) and over IPv6 without a checksum its options' length, over
 * IPv6 with one its checksum and options' length; VXLAN's over IPv6 its
 * checksum alone, as before.
 */
TEST(a_geneve_hit_with_options_without_its_more_record_is_more_lost)
{
	static const struct {
		uint8_t kind;
		bool v6;
		uint16_t csum;
		const char *want;
	} c[] = {
		{ KBLOOM_XLATE_GENEVE, false, 0,
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 (its GENEVE options' length is not in the table)" },
		{ KBLOOM_XLATE_GENEVE, false, 0x7a3e,
		  "GENEVE 10.2.0.1:51234 > 10.3.0.2:6081 id 4660 csum 0x7a3e (its GENEVE options' length is not in the table)" },
		{ KBLOOM_XLATE_GENEVE, true, 0x1f2e,
		  "GENEVE6 [fd02::1]:51234 > [fd03::2]:6081 flowlabel 0x5b1c3 (its UDP checksum and GENEVE options' length are not in the table)" },
		{ KBLOOM_XLATE_GENEVE, true, 0,
		  "GENEVE6 [fd02::1]:51234 > [fd03::2]:6081 flowlabel 0x5b1c3 (its GENEVE options' length is not in the table)" },
		{ KBLOOM_XLATE_VXLAN, true, 0x1f2e,
		  "VXLAN6 [fd02::1]:51234 > [fd03::2]:4789 flowlabel 0x5b1c3 (its UDP checksum is not in the table)" },
	};
	static const uint8_t zero[16];
	struct kb_xlate_hit hit[4];
	struct kbloom_xlate r;
	uint8_t p[64];
	uint32_t len;
	struct arch x;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		ASSERT_EQ(0, arch_init(&x));
		len = inner4(p);
		r = c[i].kind == KBLOOM_XLATE_VXLAN ? vx6(p, len, true) :
		    gnv_rec(p, len, c[i].v6, c[i].csum, 51234);
		EXPECT_TRUE(kb_xlate_has_more(r.kind));
		put_addr(&x, 7, VS);
		put_addr(&x, 7, VD);
		ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
		ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit,
					     4));
		EXPECT_TRUE(hit_is(&hit[0], &r, c[i].v6 ? VS : zero,
				   c[i].v6 ? VD : zero));
		EXPECT_TRUE(hit[0].more_lost);
		EXPECT_FALSE(hit[0].addr6_lost);
		lost_as_said(_metadata, &hit[0], p, len, c[i].want);
		arch_free(&x);
	}
}

/*
 * kb_xlate_before() of GENEVE hit @h with its more record, of the
 * packet @p (@len bytes) whose wire packet is @wire (@wlen bytes, its
 * outer header @hl bytes, @optlen bytes of options): the outer packet as
 * long as the wire packet, of the same digest (SPIE: the outer header and
 * the UDP header), GENEVE's first two bytes and protocol as carried, its
 * options zero, then Ethernet's type and the inner packet as captured.
 */
static bool before_is_the_wire_s(struct __test_metadata *_metadata,
				 const struct kb_xlate_hit *h,
				 const uint8_t *p, uint32_t len,
				 const uint8_t *wire, uint32_t wlen,
				 uint32_t hl, uint32_t optlen)
{
	struct kb_digest dw, dout;
	uint8_t *o = NULL;
	uint32_t olen = 0, k, at = hl + 16 + optlen;
	bool ok;

	if (kb_xlate_before(h, p, len, &o, &olen)) {
		TH_LOG("kind 0x%02x, options %u: refused", h->rec.kind, optlen);
		return false;
	}
	ok = olen == wlen &&
	     kb_digest(wire, wlen, KBLOOM_DIGEST_SPIE, &dw) ==
	     KBLOOM_SKIP_NONE &&
	     kb_digest(o, olen, KBLOOM_DIGEST_SPIE, &dout) ==
	     KBLOOM_SKIP_NONE && dw.len == hl + 8 && dout.len == hl + 8 &&
	     !memcmp(dw.key, dout.key, hl + 8) &&
	     !memcmp(o + hl + 8, wire + hl + 8, 4);
	for (k = hl + 16; ok && k < at + 12; k++)
		ok = !o[k];
	ok = ok && !memcmp(o + at + 12, wire + at + 12, 2 + len);
	if (!ok)
		TH_LOG("kind 0x%02x, options %u: %u bytes, want %u; not the wire packet",
		       h->rec.kind, optlen, olen, wlen);
	free(o);
	return ok;
}

/*
 * A packet that came out of a geneve device finds its record with
 * options over IPv4 (its more record in window 7, the tunnel record in
 * window 8, asked for alone: found across windows; only window 7 asked:
 * no record) and over IPv6 with a UDP checksum (its addresses from both
 * windows): one hit with the more record, and kb_xlate_before() of it
 * digests as the wire packet. Two more records of the record (two
 * packets of one inner IP ID and outer ports, one with 8 bytes of
 * options, one with 32; over IPv6 their own checksums): a hit per more
 * record, each rebuilt with its own; at most @max written, the count
 * still both.
 */
TEST(a_packet_finds_its_geneve_record_with_options_and_its_more_record)
{
	struct kb_xlate_hit hit[4], fresh;
	uint8_t p[64], wire[512], wire2[512];
	uint32_t len, wlen, wlen2, hl, sum, sum2;
	struct kbloom_xlate r, m, m2;
	struct arch x;
	unsigned int v6;
	size_t n, i, seen;
	char s[256];

	for (v6 = 0; v6 < 2; v6++) {
		ASSERT_EQ(0, arch_init(&x));
		len = v6 ? echo6(p) : inner4(p);
		hl = v6 ? 40 : 20;
		wlen = gnv_wire(wire, p, len, v6, v6, 32, 0x40, 49877);
		sum = get16(wire + hl + 6);
		ASSERT_EQ(v6, sum != 0);
		r = gnv_rec(p, len, v6, (uint16_t)sum, 49877);
		m = put_gmore(&x, 7, &r, (uint16_t)sum, 32, 0x40);
		put_addr(&x, 7, VS);
		put_addr(&x, 8, VD);
		ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
		memset(hit, 0xa5, sizeof(hit));
		ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, T8 + 5, T8 + 6, hit,
					     4));
		EXPECT_EQ(8, hit[0].window);
		EXPECT_FALSE(hit[0].more_lost);
		EXPECT_FALSE(kb_xlate_hit_lost(&hit[0]));
		EXPECT_EQ(0, memcmp(&hit[0].more, &m, sizeof(m)));
		if (v6)
			EXPECT_TRUE(hit_is(&hit[0], &r, VS, VD));
		EXPECT_TRUE(before_is_the_wire_s(_metadata, &hit[0], p, len,
						 wire, wlen, hl, 32));
		EXPECT_EQ(0, kb_xlate_lookup(&x.a, p, len, T7, T7 + 1, hit,
					     4));

		/*
		 * Another packet of the record: 8 bytes of options, over IPv6
		 * its own checksum (over IPv4 none, as the record says).
		 */
		wlen2 = gnv_wire(wire2, p, len, v6, v6, 8, 0, 49877);
		sum2 = get16(wire2 + hl + 6);
		EXPECT_EQ(v6, sum2 != sum);
		m2 = put_gmore(&x, 8, &r, (uint16_t)sum2, 8, 0);
		n = kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit, 4);
		ASSERT_EQ(2, n);
		for (i = 0, seen = 0; i < n; i++) {
			bool eight = !memcmp(&hit[i].more, &m2, sizeof(m2));

			seen += eight;
			EXPECT_TRUE(eight ||
				    !memcmp(&hit[i].more, &m, sizeof(m)));
			EXPECT_FALSE(hit[i].more_lost);
			kb_xlate_hit_str(&hit[i], s, sizeof(s));
			EXPECT_NE(NULL, strstr(s, eight ? " options 8 bytes" :
					       " options 32 bytes critical")) {
				TH_LOG("%s", s);
			}
			EXPECT_TRUE(before_is_the_wire_s(_metadata, &hit[i], p,
							 len,
							 eight ? wire2 : wire,
							 eight ? wlen2 : wlen,
							 hl, eight ? 8 : 32));
		}
		EXPECT_EQ(1, seen);
		memset(hit, 0xa5, sizeof(hit));
		memset(&fresh, 0xa5, sizeof(fresh));
		ASSERT_EQ(2, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit,
					     1));
		EXPECT_EQ(0, memcmp(&hit[1], &fresh, sizeof(fresh)));
		arch_free(&x);
	}
}

/*
 * kb_xlate_before() of a GENEVE hit with options is the wire packet by
 * digest, as long as it (the options, which no digest covers and no
 * record keeps, zero), GENEVE's first bytes as carried: over IPv4 and
 * IPv6, with a UDP checksum and without, IPv4 and IPv6 inside, 4, 32 and
 * 252 bytes of options (over IPv6 the longest outer headers there are,
 * 322 bytes), every O and C flag.
 */
TEST(before_of_a_geneve_hit_with_options_digests_as_the_wire_packet)
{
	static const uint32_t optlens[] = { 4, 32, 252 };
	struct kb_xlate_hit hit[4];
	uint8_t p[64], wire[512];
	uint32_t len, wlen, hl, sum;
	struct kbloom_xlate r;
	struct arch x;
	size_t c, l;

	for (c = 0; c < 8 * ARRAY_SIZE(optlens) * 4; c++) {
		bool v6 = c & 1, csum = c & 2, in6 = c & 4;
		uint8_t flags = (uint8_t)(c / 8 / ARRAY_SIZE(optlens) << 6);

		l = c / 8 % ARRAY_SIZE(optlens);
		ASSERT_EQ(0, arch_init(&x));
		len = in6 ? echo6(p) : inner4(p);
		hl = v6 ? 40 : 20;
		wlen = gnv_wire(wire, p, len, v6, csum, optlens[l], flags,
				38911);
		ASSERT_EQ(hl + 30 + optlens[l] + len, wlen);
		sum = get16(wire + hl + 6);
		ASSERT_EQ(csum, sum != 0);
		r = gnv_rec(p, len, v6, (uint16_t)sum, 38911);
		put_gmore(&x, 7, &r, v6 ? (uint16_t)sum : 0, optlens[l], flags);
		put_addr(&x, 8, VS);
		put_addr(&x, 8, VD);
		ASSERT_EQ(KB_XLATE_NEW, kb_xlate_put(win(&x, 8), &r));
		ASSERT_EQ(1, kb_xlate_lookup(&x.a, p, len, 0, UINT64_MAX, hit,
					     4));
		EXPECT_TRUE(before_is_the_wire_s(_metadata, &hit[0], p, len,
						 wire, wlen, hl, optlens[l])) {
			TH_LOG("over IPv%d, csum %d, IPv%d inside, flags 0x%02x",
			       v6 ? 6 : 4, csum, in6 ? 6 : 4, flags);
		}
		arch_free(&x);
	}
}

TEST_HARNESS_MAIN
