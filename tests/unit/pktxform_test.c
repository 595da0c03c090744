// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packets as they were before NAT and fragmentation (userspace/pktxform.c).
 *
 * Every packet here is built from scratch, its checksums summed over all
 * their bytes by the reference sum below (IPv4 header: RFC 791; UDP, TCP:
 * pseudo-header and whole segment, RFC 768, RFC 793; ICMP: whole message,
 * RFC 792), never by the incremental update under test. A NAT is then
 * specified by two such packets, BEFORE (as it arrived at the router) and
 * AFTER (as it left), and the record conntrack makes of them: inverting
 * AFTER with the record must give BEFORE byte for byte. Fragments are cut
 * here as a router does for a small MTU, and the head rebuilt from them
 * must be the original's first bytes, and digest as the original does.
 * Packets are handed over in buffers of exactly their captured length, so
 * that ASan catches a read past it.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/engine/digest.h"
#include "../../kmod/engine/xlate.h"
#include "../../userspace/pktxform.h"

#define IP4(a, b, c, d)	((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

/* Inside host, its NAT'ed public address, a server outside, a web server. */
#define INSIDE		IP4(192, 168, 1, 10)
#define PUBLIC		IP4(198, 51, 100, 1)
#define SERVER		IP4(203, 0, 113, 5)
#define WEB		IP4(10, 0, 0, 80)

#define PROTO_ICMP	1
#define PROTO_TCP	6
#define PROTO_UDP	17
#define PROTO_DCCP	33
#define PROTO_GRE	47
#define PROTO_SCTP	132
#define PROTO_UDPLITE	136

/* ---- the reference checksum ---- */

/* Ones'-complement sum of @n bytes (an odd last byte padded with 0). */
static uint32_t ref_sum(uint32_t s, const uint8_t *p, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		s += k & 1 ? p[k] : (uint32_t)p[k] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static void set16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void set32(uint8_t *p, uint32_t v)
{
	set16(p, v >> 16);
	set16(p + 2, v);
}

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

/* ---- building packets ---- */

/* A flow as a packet carries it (host order); ICMP echo: id in sport. */
struct flow {
	uint32_t src, dst;
	uint16_t sport, dport;
};

struct spec {
	uint8_t proto;
	struct flow f;
	uint32_t payload;	/* bytes after the transport header */
	uint8_t ttl;		/* 0: 64 */
	uint16_t id;		/* IP ID; 0: 0x4d2e */
	uint8_t icmp_type;	/* ICMP: 8 echo, 0 echo reply, 3 unreachable */
	uint8_t optwords;	/* IP options, 4-byte words */
	int udp_nocsum;		/* UDP: checksum 0 (none) */
	uint16_t fill;		/* payload bytes 0-1 when non-zero */
};

static uint32_t l4_hdr_len(uint8_t proto)
{
	switch (proto) {
	case PROTO_TCP:
		return 20;
	case PROTO_UDP:
	case PROTO_UDPLITE:
	case PROTO_ICMP:
		return 8;
	case PROTO_DCCP:
		return 16;		/* the generic header with X = 1 */
	case PROTO_SCTP:
		return 12;		/* the common header */
	default:
		return 4;		/* GRE */
	}
}

/* The packet @s into @b; its length. Checksums from scratch. */
static uint32_t build(uint8_t *b, const struct spec *s)
{
	uint32_t hl = 20 + 4u * s->optwords, l4len, len, k;
	uint8_t pseudo[12];
	uint8_t *l4 = b + hl;
	uint32_t sum;

	l4len = l4_hdr_len(s->proto) + s->payload;
	len = hl + l4len;
	memset(b, 0, len);
	b[0] = 0x40 | hl / 4;
	b[1] = 0x10;				/* TOS */
	set16(b + 2, len);
	set16(b + 4, s->id ? s->id : 0x4d2e);
	set16(b + 6, 0x4000);			/* DF, as PMTU discovery sends */
	b[8] = s->ttl ? s->ttl : 64;
	b[9] = s->proto;
	set32(b + 12, s->f.src);
	set32(b + 16, s->f.dst);
	for (k = 0; k < 4u * s->optwords; k++)	/* NOPs, then an EOL */
		b[20 + k] = k + 1 < 4u * s->optwords ? 1 : 0;

	for (k = 0; k < s->payload; k++)
		l4[l4_hdr_len(s->proto) + k] = (uint8_t)(0x30 + 7 * k);
	if (s->fill)
		set16(l4 + l4_hdr_len(s->proto), s->fill);

	set32(pseudo, s->f.src);
	set32(pseudo + 4, s->f.dst);
	pseudo[8] = 0;
	pseudo[9] = s->proto;
	set16(pseudo + 10, l4len);
	switch (s->proto) {
	case PROTO_TCP:
		set16(l4, s->f.sport);
		set16(l4 + 2, s->f.dport);
		set32(l4 + 4, 0x01020304);	/* sequence */
		set32(l4 + 8, 0x0a0b0c0d);	/* acknowledgment */
		l4[12] = 5 << 4;
		l4[13] = 0x18;			/* PSH, ACK */
		set16(l4 + 14, 0x7210);		/* window */
		sum = ref_sum(ref_sum(0, pseudo, 12), l4, l4len);
		set16(l4 + 16, ~sum & 0xffff);
		break;
	case PROTO_UDP:
		set16(l4, s->f.sport);
		set16(l4 + 2, s->f.dport);
		set16(l4 + 4, l4len);
		sum = ~ref_sum(ref_sum(0, pseudo, 12), l4, l4len) & 0xffff;
		if (s->udp_nocsum)
			sum = 0;
		else if (sum == 0)
			sum = 0xffff;		/* RFC 768 */
		set16(l4 + 6, sum);
		break;
	case PROTO_UDPLITE:
		/* RFC 3828: coverage 0 = all, checksum as UDP's, mandatory. */
		set16(l4, s->f.sport);
		set16(l4 + 2, s->f.dport);
		sum = ~ref_sum(ref_sum(0, pseudo, 12), l4, l4len) & 0xffff;
		set16(l4 + 6, sum ? sum : 0xffff);
		break;
	case PROTO_DCCP:
		/* RFC 4340: CsCov 0 = all; a DataAck, X = 1, 48-bit numbers. */
		set16(l4, s->f.sport);
		set16(l4 + 2, s->f.dport);
		l4[4] = 4;			/* data offset, 32-bit words */
		l4[8] = 4 << 1 | 1;		/* type DataAck, X */
		l4[10] = 0x12;
		l4[12] = 0x34;
		l4[15] = 0x56;
		sum = ref_sum(ref_sum(0, pseudo, 12), l4, l4len);
		set16(l4 + 6, ~sum & 0xffff);
		break;
	case PROTO_SCTP:
		/* RFC 9260: CRC32c, not summed here: a fixed stand-in. */
		set16(l4, s->f.sport);
		set16(l4 + 2, s->f.dport);
		set32(l4 + 4, 0x0badcafe);	/* verification tag */
		set32(l4 + 8, 0xdeadbeef);
		break;
	case PROTO_ICMP:
		l4[0] = s->icmp_type;
		l4[1] = s->icmp_type == 3 ? 3 : 0;
		if (s->icmp_type == 8 || s->icmp_type == 0) {
			set16(l4 + 4, s->f.sport);
			set16(l4 + 6, 0x0007);	/* sequence */
		}
		set16(l4 + 2, ~ref_sum(0, l4, l4len) & 0xffff);
		break;
	default:
		set16(l4 + 2, 0x0800);		/* GRE carrying IPv4 */
		break;
	}
	set16(b + 10, ~ref_sum(0, b, hl) & 0xffff);
	return len;
}

/* The record conntrack makes of a packet that arrived as @before, left as @after. */
static struct kbloom_xlate rec_of(uint8_t proto, const struct flow *before,
				  const struct flow *after)
{
	struct kbloom_xlate r = {
		.state = KBLOOM_XLATE_VALID,
		.proto = proto,
		.family = 4,
		.before_src = htonl(before->src),
		.before_dst = htonl(before->dst),
		.after_src = htonl(after->src),
		.after_dst = htonl(after->dst),
		.before_sport = htons(before->sport),
		.before_dport = htons(before->dport),
		.after_sport = htons(after->sport),
		.after_dport = htons(after->dport),
		.first = 1795000000,
	};

	if (before->src != after->src || before->sport != after->sport)
		r.kind |= KBLOOM_XLATE_SNAT;
	if (before->dst != after->dst || before->dport != after->dport)
		r.kind |= KBLOOM_XLATE_DNAT;
	return r;
}

/* ---- calling the code under test with exact-size buffers ---- */

static int want(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *w)
{
	uint8_t *in = malloc(len ? len : 1);
	int r;

	memcpy(in, pkt, len);
	r = pkt_xlate_want(in, len, w);
	free(in);
	return r;
}

static int invert(const uint8_t *pkt, uint32_t len,
		  const struct kbloom_xlate *rec, uint8_t *out)
{
	uint8_t *in = malloc(len ? len : 1), *o = malloc(len ? len : 1);
	int r;

	memcpy(in, pkt, len);
	memcpy(o, out, len);
	r = pkt_xlate_invert(in, len, rec, o);
	memcpy(out, o, len);
	free(in);
	free(o);
	return r;
}

/* The first byte where @a and @b differ (printed), or -1. */
static int first_diff(const uint8_t *a, const uint8_t *b, uint32_t len)
{
	uint32_t k;

	for (k = 0; k < len; k++)
		if (a[k] != b[k]) {
			kb_diag("byte %u: 0x%02x, want 0x%02x", k, a[k], b[k]);
			return (int)k;
		}
	return -1;
}

/*
 * Whether packets @a and @b (@alen, @blen bytes) digest alike in @mode:
 * both refused for one reason, or both taken with the same key; and,
 * with @keylen (not 0), both taken, with keys of that many bytes.
 */
static bool same_digest(const uint8_t *a, uint32_t alen, const uint8_t *b,
			uint32_t blen, uint32_t mode, uint32_t keylen)
{
	struct kb_digest da, db;
	uint32_t ra = kb_digest(a, alen, mode, &da);
	uint32_t rb = kb_digest(b, blen, mode, &db);

	if (ra != rb)
		return false;
	if (ra != KBLOOM_SKIP_NONE)
		return !keylen;
	return da.len == db.len && (!keylen || da.len == keylen) &&
	       !memcmp(da.key, db.key, da.len);
}

/*
 * @out (@outlen bytes) digests (SPIE) as @ref (@reflen bytes), the
 * packet it stands for: both digests taken, with keys of @keylen bytes
 * (else the test ends here), and the keys the same (else the first
 * differing byte said). Whether they are.
 */
static bool same_spie_key(struct __test_metadata *_metadata,
			  const uint8_t *out, uint32_t outlen,
			  const uint8_t *ref, uint32_t reflen, uint32_t keylen)
{
	struct kb_digest dref, dout;

	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest(ref, reflen, KBLOOM_DIGEST_SPIE, &dref));
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest(out, outlen, KBLOOM_DIGEST_SPIE, &dout));
	ASSERT_EQ(keylen, dref.len);
	ASSERT_EQ(keylen, dout.len);
	return first_diff(dout.key, dref.key, keylen) == -1;
}

/*
 * Builds BEFORE and AFTER from @s with the flows @before and @after and
 * checks that inverting the first @cap bytes of AFTER (all when 0) with
 * their record gives the first @cap bytes of BEFORE. Returns the first
 * differing byte, -1 when equal, -2 when the inversion was refused.
 */
static int nat_case(struct spec s, const struct flow *before,
		    const struct flow *after, uint32_t cap)
{
	uint8_t b[2048], a[2048], out[2048];
	struct kbloom_xlate rec;
	uint32_t len;

	s.f = *before;
	len = build(b, &s);
	s.f = *after;
	build(a, &s);
	rec = rec_of(s.proto, before, after);
	if (cap)
		len = cap;
	if (invert(a, len, &rec, out))
		return -2;
	return first_diff(out, b, len);
}

/* ---- the lookup key ---- */

TEST(want_tcp_gives_the_ports)
{
	struct spec s = { .proto = PROTO_TCP, .payload = 40,
			  .f = { PUBLIC, SERVER, 61000, 443 } };
	struct kbloom_xlate w;
	uint8_t p[256];
	uint32_t len = build(p, &s);

	memset(&w, 0xee, sizeof(w));
	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(4, w.family);
	EXPECT_EQ(PROTO_TCP, w.proto);
	EXPECT_EQ(htonl(PUBLIC), w.after_src);
	EXPECT_EQ(htonl(SERVER), w.after_dst);
	EXPECT_EQ(htons(61000), w.after_sport);
	EXPECT_EQ(htons(443), w.after_dport);
	/* Everything else zeroed. */
	EXPECT_EQ(0, w.state);
	EXPECT_EQ(0, w.kind);
	EXPECT_EQ(0, w.before_src);
	EXPECT_EQ(0, w.before_dst);
	EXPECT_EQ(0, w.before_sport);
	EXPECT_EQ(0, w.before_dport);
	EXPECT_EQ(0, w.first);
}

TEST(want_udp_gives_the_ports)
{
	struct spec s = { .proto = PROTO_UDP, .payload = 30,
			  .f = { INSIDE, SERVER, 40000, 53 } };
	struct kbloom_xlate w;
	uint8_t p[256];
	uint32_t len = build(p, &s);

	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(PROTO_UDP, w.proto);
	EXPECT_EQ(htonl(INSIDE), w.after_src);
	EXPECT_EQ(htonl(SERVER), w.after_dst);
	EXPECT_EQ(htons(40000), w.after_sport);
	EXPECT_EQ(htons(53), w.after_dport);
}

TEST(want_icmp_echo_gives_the_identifier_in_sport)
{
	struct spec s = { .proto = PROTO_ICMP, .icmp_type = 8, .payload = 56,
			  .f = { PUBLIC, SERVER, 0x1c2d, 0 } };
	struct kbloom_xlate w;
	uint8_t p[256];
	uint32_t len = build(p, &s);

	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(PROTO_ICMP, w.proto);
	EXPECT_EQ(htons(0x1c2d), w.after_sport);
	EXPECT_EQ(0, w.after_dport);

	s.icmp_type = 0;			/* the echo reply */
	s.f = (struct flow){ SERVER, PUBLIC, 0x1c2d, 0 };
	len = build(p, &s);
	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(htonl(SERVER), w.after_src);
	EXPECT_EQ(htons(0x1c2d), w.after_sport);
	EXPECT_EQ(0, w.after_dport);
}

TEST(want_icmp_unreachable_and_gre_have_no_ports)
{
	struct spec s = { .proto = PROTO_ICMP, .icmp_type = 3, .payload = 28,
			  .f = { SERVER, PUBLIC, 0, 0 } };
	struct kbloom_xlate w;
	uint8_t p[256];
	uint32_t len = build(p, &s);

	/* Bytes 4-5 of the unreachable are "unused": make them not 0. */
	set16(p + 24, 0xabcd);
	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(PROTO_ICMP, w.proto);
	EXPECT_EQ(htonl(SERVER), w.after_src);
	EXPECT_EQ(0, w.after_sport);
	EXPECT_EQ(0, w.after_dport);

	s = (struct spec){ .proto = PROTO_GRE, .payload = 40,
			   .f = { PUBLIC, SERVER, 0, 0 } };
	len = build(p, &s);
	ASSERT_EQ(0x0800, get16(p + 22));
	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(PROTO_GRE, w.proto);
	EXPECT_EQ(htonl(PUBLIC), w.after_src);
	EXPECT_EQ(htonl(SERVER), w.after_dst);
	EXPECT_EQ(0, w.after_sport);
	EXPECT_EQ(0, w.after_dport);
}

TEST(want_reads_past_ip_options)
{
	struct spec s = { .proto = PROTO_UDP, .payload = 10, .optwords = 2,
			  .f = { INSIDE, SERVER, 40000, 53 } };
	struct kbloom_xlate w;
	uint8_t p[256];
	uint32_t len = build(p, &s);

	ASSERT_EQ(0x47, p[0]);
	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(htons(40000), w.after_sport);
	EXPECT_EQ(htons(53), w.after_dport);
}

TEST(want_first_fragment_has_ports_later_ones_none)
{
	struct spec s = { .proto = PROTO_UDP, .payload = 100,
			  .f = { INSIDE, SERVER, 40000, 53 } };
	struct kbloom_xlate w;
	uint8_t p[256];
	uint32_t len = build(p, &s);

	set16(p + 6, 0x2000);			/* MF, offset 0 */
	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(htons(40000), w.after_sport);
	set16(p + 6, 0x2000 | 10);		/* MF, offset 80 */
	EXPECT_EQ(-1, want(p, len, &w));
	set16(p + 6, 10);			/* the last fragment */
	EXPECT_EQ(-1, want(p, len, &w));
}

TEST(want_refuses_what_is_too_short_or_not_ipv4)
{
	struct spec s = { .proto = PROTO_TCP, .payload = 0,
			  .f = { INSIDE, SERVER, 40000, 80 } };
	struct kbloom_xlate w;
	uint8_t p[256], v6[48] = { 0x60 };
	uint32_t len = build(p, &s);

	EXPECT_EQ(0, want(p, 24, &w));		/* the ports, no more */
	EXPECT_EQ(-1, want(p, 23, &w));
	EXPECT_EQ(-1, want(p, 20, &w));
	EXPECT_EQ(-1, want(p, 19, &w));		/* not even a header */
	EXPECT_EQ(-1, want(p, 0, &w));
	/* Padding past the total length is no payload. */
	set16(p + 2, 22);
	EXPECT_EQ(-1, want(p, len, &w));
	set16(p + 2, 19);			/* shorter than its header */
	EXPECT_EQ(-1, want(p, len, &w));
	set16(p + 2, len);
	p[0] = 0x44;				/* IHL 4 */
	EXPECT_EQ(-1, want(p, len, &w));
	p[0] = 0x4f;				/* IHL 15: 60 > 40 captured */
	EXPECT_EQ(-1, want(p, len, &w));

	s = (struct spec){ .proto = PROTO_ICMP, .icmp_type = 8, .payload = 8,
			   .f = { INSIDE, SERVER, 0x1234, 0 } };
	len = build(p, &s);
	EXPECT_EQ(0, want(p, 26, &w));		/* up to the identifier */
	EXPECT_EQ(-1, want(p, 25, &w));
	EXPECT_EQ(-1, want(p, 20, &w));		/* no type byte */
	p[20] = 3;				/* not echo: the type will do */
	EXPECT_EQ(0, want(p, 21, &w));

	EXPECT_EQ(-1, want(v6, sizeof(v6), &w));
}

/* ---- ICMP errors about a NAT'ed flow ---- */

/* A NAT record: @b as the packet arrived, @a as it left (host order). */
static struct kbloom_xlate nat_rec(uint8_t proto, struct flow b, struct flow a)
{
	struct kbloom_xlate r = { .state = KBLOOM_XLATE_VALID,
				  .kind = KBLOOM_XLATE_SNAT, .proto = proto,
				  .family = 4 };

	r.before_src = htonl(b.src);
	r.before_dst = htonl(b.dst);
	r.before_sport = htons(b.sport);
	r.before_dport = htons(b.dport);
	r.after_src = htonl(a.src);
	r.after_dst = htonl(a.dst);
	r.after_sport = htons(a.sport);
	r.after_dport = htons(a.dport);
	return r;
}

/* An ICMP error of @type from @src to @dst quoting packet @q; its length. */
static uint32_t icmp_error(uint8_t *p, uint8_t type, uint32_t src,
			   uint32_t dst, const struct spec *q)
{
	struct spec e = { .proto = PROTO_ICMP, .icmp_type = type,
			  .payload = 28, .f = { src, dst, 0, 0 } };
	uint8_t quoted[256];
	uint32_t len = build(p, &e);

	build(quoted, q);
	memcpy(p + 28, quoted, 28);	/* its header and 8 bytes, as RFC 792 */
	return len;
}

TEST(icmp_errors_about_a_masqueraded_flow_are_known_by_either_record)
{
	/* INSIDE:40000 -> SERVER:53 masqueraded to PUBLIC:61000, both ways. */
	struct flow in = { INSIDE, SERVER, 40000, 53 };
	struct flow out = { PUBLIC, SERVER, 61000, 53 };
	struct flow rin = { SERVER, PUBLIC, 53, 61000 };
	struct flow rout = { SERVER, INSIDE, 53, 40000 };
	struct kbloom_xlate orig = nat_rec(PROTO_UDP, in, out);
	struct kbloom_xlate reply = nat_rec(PROTO_UDP, rin, rout);
	struct spec q = { .proto = PROTO_UDP, .f = in };
	uint8_t p[256];
	uint32_t len;

	/* SERVER's port unreachable as it reached INSIDE (un-SNAT'ed). */
	len = icmp_error(p, 3, SERVER, INSIDE, &q);
	EXPECT_EQ(1, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(1, pkt_icmp_error_of(&reply, p, len));
	/* ... and as it left SERVER: not yet rewritten, no record's form. */
	q.f = out;
	len = icmp_error(p, 3, SERVER, PUBLIC, &q);
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
	/*
	 * A time exceeded from inside about a reply, as it left the NAT: 2,
	 * as the NAT set its outer source to PUBLIC (the source it rewrote
	 * in the flow), so who sent it inside is lost; inverting can only
	 * guess INSIDE.
	 */
	q.f = rin;
	len = icmp_error(p, 11, PUBLIC, SERVER, &q);
	EXPECT_EQ(2, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(2, pkt_icmp_error_of(&reply, p, len));
	/* Another flow: one port, the protocol, an address differs. */
	q.f = in;
	q.f.sport = 40001;
	len = icmp_error(p, 3, SERVER, INSIDE, &q);
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
	q.f = in;
	q.proto = PROTO_TCP;
	len = icmp_error(p, 3, SERVER, INSIDE, &q);
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
	q.proto = PROTO_UDP;
	q.f.dst = WEB;
	len = icmp_error(p, 3, SERVER, INSIDE, &q);
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
}

TEST(icmp_errors_about_an_echo_match_its_identifier)
{
	struct flow in = { INSIDE, SERVER, 0x0b0b, 0 };
	struct flow out = { PUBLIC, SERVER, 0xe001, 0 };
	struct flow rout = { SERVER, INSIDE, 0x0b0b, 0 };
	struct flow rin = { SERVER, PUBLIC, 0xe001, 0 };
	struct kbloom_xlate orig = nat_rec(PROTO_ICMP, in, out);
	struct kbloom_xlate reply = nat_rec(PROTO_ICMP, rin, rout);
	struct spec q = { .proto = PROTO_ICMP, .icmp_type = 8, .f = in };
	uint8_t p[256];
	uint32_t len = icmp_error(p, 11, SERVER, INSIDE, &q);

	EXPECT_EQ(1, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(1, pkt_icmp_error_of(&reply, p, len));
	q.f.sport = 0x0b0c;
	len = icmp_error(p, 11, SERVER, INSIDE, &q);
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
}

TEST(only_whole_icmp_errors_quoting_ipv4_count)
{
	struct flow in = { INSIDE, SERVER, 40000, 53 };
	struct flow out = { PUBLIC, SERVER, 61000, 53 };
	struct kbloom_xlate orig = nat_rec(PROTO_UDP, in, out);
	struct spec q = { .proto = PROTO_UDP, .f = in };
	static const uint8_t errors[] = { 3, 4, 5, 11, 12 };
	uint8_t p[256];
	uint32_t len;
	size_t k;
	int t;

	for (t = 0; t < 256; t++) {
		len = icmp_error(p, t, SERVER, INSIDE, &q);
		EXPECT_EQ(!!memchr(errors, t, sizeof(errors)),
			  pkt_icmp_error_of(&orig, p, len)) TH_LOG("type %d", t);
	}
	len = icmp_error(p, 3, SERVER, INSIDE, &q);
	/* Cut short: no quoted header, or without its ports (20 + 8 + 24). */
	for (k = 0; k < len; k++)
		EXPECT_EQ(k >= 52, pkt_icmp_error_of(&orig, p, k)) TH_LOG("%zu bytes", k);
	p[28] = 0x60;				/* quoting IPv6 */
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
	len = icmp_error(p, 3, SERVER, INSIDE, &q);
	set16(p + 6, 0x2000);			/* a first fragment */
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
	set16(p + 6, 0x4000);
	orig.family = 6;
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
}

/* ---- arrival records' keys ---- */

TEST(arrival_want_keys_ipv4_as_nat_records_do)
{
	struct spec s = { .proto = PROTO_UDP, .payload = 10,
			  .f = { INSIDE, SERVER, 40000, 53 } };
	struct kbloom_xlate w, n;
	uint8_t p[256];
	uint32_t len = build(p, &s);

	ASSERT_EQ(0, pkt_arrival_want(p, len, &w));
	ASSERT_EQ(0, pkt_xlate_want(p, len, &n));
	EXPECT_EQ(0, memcmp(&w, &n, sizeof(w)));
	s = (struct spec){ .proto = PROTO_ICMP, .icmp_type = 8, .payload = 8,
			   .f = { INSIDE, SERVER, 0x1234, 0 } };
	len = build(p, &s);
	ASSERT_EQ(0, pkt_arrival_want(p, len, &w));
	EXPECT_EQ(htons(0x1234), w.after_sport);
	/* A later fragment: no ports, but a key (the kernel's too). */
	s = (struct spec){ .proto = PROTO_UDP, .payload = 10,
			   .f = { INSIDE, SERVER, 40000, 53 } };
	len = build(p, &s);
	set16(p + 6, 0x0010);
	ASSERT_EQ(0, pkt_arrival_want(p, len, &w));
	EXPECT_EQ(4, w.family);
	EXPECT_EQ(htonl(INSIDE), w.after_src);
	EXPECT_EQ(0, w.after_sport);
	EXPECT_EQ(0, w.after_dport);
	/* Too short for the ports it has. */
	set16(p + 6, 0x4000);
	EXPECT_EQ(-1, pkt_arrival_want(p, 22, &w));
}

TEST(arrival_want_folds_ipv6_addresses)
{
	/* fd01::2 -> fd04::2, UDP 4000 -> 7777; then an ICMPv6 echo. */
	uint8_t p[48 + 8] = { 0x60, 0, 0, 0, 0, 16, 17, 64 };
	struct kbloom_xlate w;
	uint32_t x;

	p[8] = 0xfd; p[9] = 0x01; p[23] = 2;
	p[24] = 0xfd; p[25] = 0x04; p[39] = 2;
	set16(p + 40, 4000);
	set16(p + 42, 7777);
	ASSERT_EQ(0, pkt_arrival_want(p, sizeof(p), &w));
	EXPECT_EQ(6, w.family);
	EXPECT_EQ(17, w.proto);
	memcpy(&x, (const uint8_t[]){ 0xfd, 0x01, 0, 2 }, 4);
	EXPECT_EQ(x, w.after_src);
	memcpy(&x, (const uint8_t[]){ 0xfd, 0x04, 0, 2 }, 4);
	EXPECT_EQ(x, w.after_dst);
	EXPECT_EQ(htons(4000), w.after_sport);
	EXPECT_EQ(htons(7777), w.after_dport);
	p[6] = 58;			/* ICMPv6 echo request, id 0x0b0b */
	p[40] = 128;
	p[41] = 0;
	set16(p + 44, 0x0b0b);
	ASSERT_EQ(0, pkt_arrival_want(p, sizeof(p), &w));
	EXPECT_EQ(htons(0x0b0b), w.after_sport);
	EXPECT_EQ(0, w.after_dport);
	p[40] = 1;			/* an unreachable: no identifier */
	ASSERT_EQ(0, pkt_arrival_want(p, sizeof(p), &w));
	EXPECT_EQ(0, w.after_sport);
	EXPECT_EQ(-1, pkt_arrival_want(p, 39, &w));
	p[0] = 0x50;
	EXPECT_EQ(-1, pkt_arrival_want(p, sizeof(p), &w));
}

/* ---- inverting NAT: whole packets ---- */

TEST(snat_udp)
{
	struct flow b = { INSIDE, SERVER, 40000, 53 };
	struct flow a = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 64 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	/* Address only, port kept (as MASQUERADE does when it can). */
	a.sport = 40000;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
}

TEST(snat_tcp)
{
	struct flow b = { INSIDE, SERVER, 51514, 443 };
	struct flow a = { PUBLIC, SERVER, 1025, 443 };
	struct spec s = { .proto = PROTO_TCP, .payload = 100 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	s.payload = 31;				/* odd: the last byte padded */
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
}

TEST(snat_icmp_echo_changes_the_identifier)
{
	struct flow b = { INSIDE, SERVER, 0x0b0b, 0 };
	struct flow a = { PUBLIC, SERVER, 0xe001, 0 };
	struct spec s = { .proto = PROTO_ICMP, .icmp_type = 8, .payload = 56 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
}

TEST(dnat_port_forward_udp_and_tcp)
{
	/* 198.51.100.1:8080 forwarded to 10.0.0.80:80; the client outside. */
	struct flow b = { SERVER, PUBLIC, 33000, 8080 };
	struct flow a = { SERVER, WEB, 33000, 80 };
	struct spec s = { .proto = PROTO_TCP, .payload = 28 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	s.proto = PROTO_UDP;
	s.payload = 77;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
}

TEST(snat_and_dnat_at_once)
{
	struct flow b = { INSIDE, PUBLIC, 45678, 8443 };
	struct flow a = { PUBLIC, WEB, 2000, 443 };
	struct spec s = { .proto = PROTO_TCP, .payload = 64 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	s.proto = PROTO_UDP;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	s.proto = PROTO_ICMP;
	s.icmp_type = 8;
	b.sport = 0x0101;
	a.sport = 0x7777;
	b.dport = a.dport = 0;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
}

TEST(reply_direction_is_un_nated)
{
	/*
	 * The reply to 192.168.1.10:40000 -> 203.0.113.5:53, SNAT'ed to
	 * 198.51.100.1:61000: it arrives from outside for the public address
	 * and leaves inwards for the host.
	 */
	struct flow b = { SERVER, PUBLIC, 53, 61000 };
	struct flow a = { SERVER, INSIDE, 53, 40000 };
	struct spec s = { .proto = PROTO_UDP, .payload = 90 };
	struct kbloom_xlate rec = rec_of(PROTO_UDP, &b, &a);

	EXPECT_EQ(KBLOOM_XLATE_DNAT, rec.kind);
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	s.proto = PROTO_TCP;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	/* An echo reply: its identifier mapped back to the host's. */
	s.proto = PROTO_ICMP;
	s.icmp_type = 0;
	b = (struct flow){ SERVER, PUBLIC, 0xe001, 0 };
	a = (struct flow){ SERVER, INSIDE, 0x0b0b, 0 };
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
}

TEST(udplite_and_dccp_sum_their_pseudo_header_and_ports)
{
	struct flow b = { INSIDE, SERVER, 40000, 5004 };
	struct flow a = { PUBLIC, WEB, 61000, 5006 };
	struct spec s = { .proto = PROTO_UDPLITE, .payload = 50 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	EXPECT_EQ(-1, nat_case(s, &b, &a, 28));
	s.proto = PROTO_DCCP;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	EXPECT_EQ(-1, nat_case(s, &b, &a, 28));
}

TEST(sctp_gets_the_ports_and_its_crc_is_left_as_found)
{
	/* Both built with the same stand-in CRC: out must keep it. */
	struct flow b = { INSIDE, SERVER, 40000, 38412 };
	struct flow a = { PUBLIC, SERVER, 61000, 38412 };
	struct spec s = { .proto = PROTO_SCTP, .payload = 16 };
	struct kbloom_xlate w;
	uint8_t p[256];
	uint32_t len;

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	s.f = a;
	len = build(p, &s);
	ASSERT_EQ(0, want(p, len, &w));
	EXPECT_EQ(htons(61000), w.after_sport);
	EXPECT_EQ(htons(38412), w.after_dport);
}

TEST(gre_gets_the_addresses_and_the_ip_checksum)
{
	struct flow b = { INSIDE, SERVER, 0, 0 };
	struct flow a = { PUBLIC, SERVER, 0, 0 };
	struct spec s = { .proto = PROTO_GRE, .payload = 40 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
}

TEST(ip_options_are_kept_and_skipped)
{
	struct flow b = { INSIDE, SERVER, 40000, 53 };
	struct flow a = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 40, .optwords = 3 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
	s.proto = PROTO_TCP;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 0));
}

TEST(ttl_is_left_as_found_and_spie_ignores_it)
{
	struct flow bf = { INSIDE, SERVER, 40000, 53 };
	struct flow af = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 48, .f = bf };
	struct kbloom_xlate rec = rec_of(PROTO_UDP, &bf, &af);
	uint8_t b[256], a[256], out[256];
	uint32_t len;

	len = build(b, &s);
	s.f = af;
	s.ttl = 63;				/* the router decremented it */
	build(a, &s);
	ASSERT_EQ(0, invert(a, len, &rec, out));
	/* The digest of the inverted packet is BEFORE's. */
	EXPECT_TRUE(same_spie_key(_metadata, out, len, b, len, 28));
	/* The TTL is AFTER's, and the header checksum sums right with it. */
	EXPECT_EQ(63, out[8]);
	EXPECT_EQ(0, ~ref_sum(0, out, 20) & 0xffff);
	/* Apart from the TTL and the header checksum, out is BEFORE. */
	out[8] = 64;
	set16(out + 10, 0);
	set16(out + 10, ~ref_sum(0, out, 20) & 0xffff);
	EXPECT_EQ(-1, first_diff(out, b, len));
}

/* ---- UDP's checksum 0 ---- */

TEST(udp_checksum_zero_means_none_and_stays_zero)
{
	struct flow bf = { INSIDE, SERVER, 40000, 53 };
	struct flow af = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 40, .udp_nocsum = 1 };
	uint8_t a[256], out[256];
	struct kbloom_xlate rec = rec_of(PROTO_UDP, &bf, &af);
	uint32_t len;

	s.f = af;
	len = build(a, &s);
	ASSERT_EQ(0, get16(a + 26));
	EXPECT_EQ(-1, nat_case(s, &bf, &af, 0));
	ASSERT_EQ(0, invert(a, len, &rec, out));
	EXPECT_EQ(0, get16(out + 26));
}

/*
 * The 16-bit payload word that makes the checksum of a UDP packet from @bf,
 * summed from scratch, come out 0 (so sent as 0xffff; a sum of non-zero
 * bytes is never 0, so 0xffff means exactly that): found by trying every
 * value.
 */
static uint32_t udp_zero_word(const struct flow *bf, uint32_t payload)
{
	struct spec s = { .proto = PROTO_UDP, .payload = payload, .f = *bf };
	uint8_t p[256];
	uint32_t w;

	for (w = 1; w <= 0xffff; w++) {
		s.fill = (uint16_t)w;
		build(p, &s);
		if (get16(p + 26) == 0xffff)
			return w;
	}
	return 0;
}

TEST(udp_checksum_that_becomes_zero_is_sent_as_ffff)
{
	struct flow bf = { INSIDE, SERVER, 40000, 53 };
	struct flow af = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 40 };
	uint8_t b[256], a[256];

	s.fill = (uint16_t)udp_zero_word(&bf, 40);
	ASSERT_NE(0, s.fill);
	s.f = bf;
	build(b, &s);
	ASSERT_EQ(0xffff, get16(b + 26));	/* BEFORE as the sender sent it */
	s.f = af;
	build(a, &s);
	ASSERT_NE(0xffff, get16(a + 26));
	ASSERT_NE(0, get16(a + 26));
	EXPECT_EQ(-1, nat_case(s, &bf, &af, 0));
}

TEST(udp_checksum_ffff_after_nat_inverts_right)
{
	/* The other way round: AFTER is the packet whose sum came out 0. */
	struct flow bf = { INSIDE, SERVER, 40000, 53 };
	struct flow af = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 40 };
	uint8_t b[256], a[256];

	s.fill = (uint16_t)udp_zero_word(&af, 40);
	ASSERT_NE(0, s.fill);
	s.f = af;
	build(a, &s);
	ASSERT_EQ(0xffff, get16(a + 26));
	s.f = bf;
	build(b, &s);
	ASSERT_NE(0xffff, get16(b + 26));
	EXPECT_EQ(-1, nat_case(s, &bf, &af, 0));
}

/* ---- truncated captures ---- */

TEST(truncated_to_28_bytes_inverts_to_before_s_first_28)
{
	struct flow b = { INSIDE, SERVER, 40000, 53 };
	struct flow a = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 100 };

	EXPECT_EQ(-1, nat_case(s, &b, &a, 28));
	s.proto = PROTO_TCP;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 28));
	s.proto = PROTO_ICMP;
	s.icmp_type = 8;
	b.sport = 0x0b0b;
	a.sport = 0xe001;
	b.dport = a.dport = 0;
	EXPECT_EQ(-1, nat_case(s, &b, &a, 28));
}

TEST(tcp_checksum_is_updated_only_when_captured_whole)
{
	struct flow bf = { INSIDE, SERVER, 51514, 443 };
	struct flow af = { PUBLIC, SERVER, 1025, 443 };
	struct spec s = { .proto = PROTO_TCP, .payload = 60 };
	struct kbloom_xlate rec = rec_of(PROTO_TCP, &bf, &af);
	uint8_t b[256], a[256], out[256];

	s.f = bf;
	build(b, &s);
	s.f = af;
	build(a, &s);
	ASSERT_NE(a[36], b[36]);
	ASSERT_NE(a[37], b[37]);
	/* 38 bytes: the checksum (bytes 36-37) is in, and right. */
	EXPECT_EQ(-1, nat_case(s, &bf, &af, 38));
	/* 37: half of it, left as found. */
	ASSERT_EQ(0, invert(a, 37, &rec, out));
	EXPECT_EQ(-1, first_diff(out, b, 36));
	EXPECT_EQ(a[36], out[36]);
}

TEST(udp_checksum_is_updated_only_when_captured_whole)
{
	struct flow bf = { INSIDE, SERVER, 40000, 53 };
	struct flow af = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 60 };
	struct kbloom_xlate rec = rec_of(PROTO_UDP, &bf, &af);
	uint8_t b[256], a[256], out[256];

	s.f = bf;
	build(b, &s);
	s.f = af;
	build(a, &s);
	ASSERT_NE(a[26], b[26]);
	ASSERT_EQ(0, invert(a, 27, &rec, out));
	EXPECT_EQ(-1, first_diff(out, b, 26));
	EXPECT_EQ(a[26], out[26]);
	/* 24: the ports, still enough to invert. */
	EXPECT_EQ(-1, nat_case(s, &bf, &af, 24));
}

/* ---- what is refused ---- */

TEST(mismatch_is_refused_and_out_untouched)
{
	struct flow bf = { INSIDE, SERVER, 40000, 53 };
	struct flow af = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 40, .f = af };
	struct kbloom_xlate rec = rec_of(PROTO_UDP, &bf, &af), r;
	uint8_t a[256], out[256], fresh[256];
	uint32_t len = build(a, &s);

	memset(fresh, 0x5a, sizeof(fresh));
	memcpy(out, fresh, sizeof(out));
	ASSERT_EQ(0, invert(a, len, &rec, out));	/* the record fits */

	memcpy(out, fresh, sizeof(out));
	r = rec;
	r.after_sport = htons(61001);
	EXPECT_EQ(-1, invert(a, len, &r, out));
	r = rec;
	r.after_dport = htons(54);
	EXPECT_EQ(-1, invert(a, len, &r, out));
	r = rec;
	r.after_src = htonl(PUBLIC + 1);
	EXPECT_EQ(-1, invert(a, len, &r, out));
	r = rec;
	r.after_dst = htonl(SERVER + 1);
	EXPECT_EQ(-1, invert(a, len, &r, out));
	r = rec;
	r.proto = PROTO_TCP;
	EXPECT_EQ(-1, invert(a, len, &r, out));
	r = rec;
	r.family = 6;
	EXPECT_EQ(-1, invert(a, len, &r, out));
	/* The BEFORE tuple is no match either. */
	r = rec_of(PROTO_UDP, &af, &bf);
	EXPECT_EQ(-1, invert(a, len, &r, out));
	EXPECT_EQ(-1, first_diff(out, fresh, sizeof(out)));
}

TEST(non_ipv4_and_non_first_fragments_are_refused)
{
	struct flow bf = { INSIDE, SERVER, 40000, 53 };
	struct flow af = { PUBLIC, SERVER, 61000, 53 };
	struct spec s = { .proto = PROTO_UDP, .payload = 40, .f = af };
	struct kbloom_xlate rec = rec_of(PROTO_UDP, &bf, &af);
	uint8_t a[256], out[256], fresh[256], v6[64] = { 0x60 };
	uint32_t len = build(a, &s);

	memset(fresh, 0x5a, sizeof(fresh));
	memcpy(out, fresh, sizeof(out));
	EXPECT_EQ(-1, invert(v6, sizeof(v6), &rec, out));
	/* A later fragment whose first 4 data bytes look like the ports. */
	set16(a + 6, 0x2000 | 69);
	EXPECT_EQ(-1, invert(a, len, &rec, out));
	set16(a + 6, 69);
	EXPECT_EQ(-1, invert(a, len, &rec, out));
	EXPECT_EQ(-1, first_diff(out, fresh, sizeof(out)));
}

/* ---- fragments ---- */

#define FRAG_MAX	8

struct frags {
	uint8_t b[FRAG_MAX][1600];
	uint32_t len[FRAG_MAX];
	size_t n;
};

/*
 * Cuts @p as a router with MTU @mtu does (RFC 791): data in pieces of the
 * largest multiple of 8 that fits, each with the header copied (options
 * assumed all copied), total length, MF but on the last, offset in 8-byte
 * units, TTL less @ttl_dec, checksum from scratch. Appends to @f.
 */
static void fragment(const uint8_t *p, uint32_t mtu, uint32_t ttl_dec,
		     struct frags *f)
{
	uint32_t hl = (p[0] & 15) * 4, tot = get16(p + 2);
	uint32_t step = (mtu - hl) & ~7u, off, n;
	uint8_t *q;

	for (off = 0; off < tot - hl; off += n) {
		n = tot - hl - off < step ? tot - hl - off : step;
		q = f->b[f->n];
		memcpy(q, p, hl);
		memcpy(q + hl, p + hl + off, n);
		set16(q + 2, hl + n);
		set16(q + 6, (get16(p + 6) & 0xc000) |
			     (off + n < tot - hl ? 0x2000 : 0) | off / 8);
		q[8] -= ttl_dec;
		set16(q + 10, 0);
		set16(q + 10, ~ref_sum(0, q, hl) & 0xffff);
		f->len[f->n++] = hl + n;
	}
}

static uint8_t big[2][1600];

/* An original UDP packet of @len bytes, DF clear, IP ID @id. */
static void original(uint8_t *p, uint32_t len, uint16_t id, uint16_t sport)
{
	struct spec s = { .proto = PROTO_UDP, .payload = len - 28, .id = id,
			  .f = { INSIDE, SERVER, sport, 53 } };

	build(p, &s);
	set16(p + 6, 0);			/* DF clear: may be fragmented */
	set16(p + 10, 0);
	set16(p + 10, ~ref_sum(0, p, 20) & 0xffff);
}

/*
 * pkt_defrag_head over @refs with outputs in exact-size buffers; the
 * result, *@outlen and @out as returned.
 */
static int defrag(const struct pkt_frag_ref *refs, size_t n, size_t i,
		  uint8_t *out, uint32_t outmax, uint32_t *outlen)
{
	struct pkt_frag_ref r[FRAG_MAX * 2];
	uint8_t *o = malloc(outmax ? outmax : 1);
	size_t k;
	int ret;

	for (k = 0; k < n; k++) {
		r[k].len = refs[k].len;
		r[k].pkt = malloc(refs[k].len ? refs[k].len : 1);
		memcpy((uint8_t *)r[k].pkt, refs[k].pkt, refs[k].len);
	}
	memcpy(o, out, outmax);
	ret = pkt_defrag_head(r, n, i, o, outmax, outlen);
	memcpy(out, o, outmax);
	for (k = 0; k < n; k++)
		free((void *)r[k].pkt);
	free(o);
	return ret;
}

TEST(fragments_of_a_1400_byte_packet_at_mtu_576)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	uint8_t out[1600];
	uint32_t outlen;
	size_t i;

	original(big[0], 1400, 0x1234, 40000);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	/* The router's cut: 552 + 552 + 276 data bytes. */
	ASSERT_EQ(3, f.n);
	EXPECT_EQ(572, f.len[0]);
	EXPECT_EQ(572, f.len[1]);
	EXPECT_EQ(296, f.len[2]);
	EXPECT_EQ(0x2000, get16(f.b[0] + 6));
	EXPECT_EQ(0x2000 | 69, get16(f.b[1] + 6));
	EXPECT_EQ(138, get16(f.b[2] + 6));
	for (i = 0; i < f.n; i++)
		refs[i] = (struct pkt_frag_ref){ f.b[i], f.len[i] };

	for (i = 0; i < f.n; i++) {
		memset(out, 0, sizeof(out));
		outlen = 0;
		ASSERT_EQ(0, defrag(refs, f.n, i, out, sizeof(out), &outlen));
		/* The original's first 572 bytes: its header, then data. */
		EXPECT_EQ(572, outlen);
		EXPECT_EQ(1400, get16(out + 2));
		EXPECT_EQ(0, get16(out + 6));
		EXPECT_EQ(-1, first_diff(out, big[0], 572));
	}
}

TEST(fragment_head_is_cut_at_outmax_and_at_the_capture)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	uint8_t out[1600];
	uint32_t outlen;
	size_t i;

	original(big[0], 1400, 0x1234, 40000);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	for (i = 0; i < f.n; i++)
		refs[i] = (struct pkt_frag_ref){ f.b[i], f.len[i] };

	memset(out, 0xcc, sizeof(out));
	ASSERT_EQ(0, defrag(refs, f.n, 2, out, 28, &outlen));
	EXPECT_EQ(28, outlen);
	EXPECT_EQ(-1, first_diff(out, big[0], 28));
	EXPECT_EQ(0xcc, out[28]);
	ASSERT_EQ(0, defrag(refs, f.n, 1, out, 12, &outlen));
	EXPECT_EQ(12, outlen);
	EXPECT_EQ(-1, first_diff(out, big[0], 12));

	/* Every fragment captured to 28 bytes (snaplen 28 at the IP layer). */
	for (i = 0; i < f.n; i++)
		refs[i].len = 28;
	ASSERT_EQ(0, defrag(refs, f.n, 1, out, sizeof(out), &outlen));
	EXPECT_EQ(28, outlen);
	EXPECT_EQ(-1, first_diff(out, big[0], 28));
}

TEST(fragments_without_first_or_last_are_refused)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	uint8_t out[64], fresh[64];
	uint32_t outlen = 7;

	original(big[0], 1400, 0x1234, 40000);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	memset(fresh, 0x5a, sizeof(fresh));
	memcpy(out, fresh, sizeof(out));

	/* The last one lost: the total length is unknown. */
	refs[0] = (struct pkt_frag_ref){ f.b[0], f.len[0] };
	refs[1] = (struct pkt_frag_ref){ f.b[1], f.len[1] };
	EXPECT_EQ(-1, defrag(refs, 2, 0, out, sizeof(out), &outlen));
	EXPECT_EQ(-1, defrag(refs, 2, 1, out, sizeof(out), &outlen));
	/* The first one lost: no header data, no ports. */
	refs[0] = (struct pkt_frag_ref){ f.b[1], f.len[1] };
	refs[1] = (struct pkt_frag_ref){ f.b[2], f.len[2] };
	EXPECT_EQ(-1, defrag(refs, 2, 0, out, sizeof(out), &outlen));
	EXPECT_EQ(-1, defrag(refs, 2, 1, out, sizeof(out), &outlen));
	/* Alone. */
	EXPECT_EQ(-1, defrag(refs, 1, 0, out, sizeof(out), &outlen));
	EXPECT_EQ(7, outlen);
	EXPECT_EQ(-1, first_diff(out, fresh, sizeof(out)));
}

TEST(first_and_last_suffice)
{
	static struct frags f;
	struct pkt_frag_ref refs[2];
	uint8_t out[1600];
	uint32_t outlen;

	original(big[0], 1400, 0x1234, 40000);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	refs[0] = (struct pkt_frag_ref){ f.b[2], f.len[2] };	/* any order */
	refs[1] = (struct pkt_frag_ref){ f.b[0], f.len[0] };
	ASSERT_EQ(0, defrag(refs, 2, 0, out, sizeof(out), &outlen));
	EXPECT_EQ(572, outlen);
	EXPECT_EQ(-1, first_diff(out, big[0], 572));
}

TEST(non_fragments_are_left_to_the_caller)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	/* An IPv6 packet of 8 bytes of UDP: no fragment header. */
	uint8_t out[64], fresh[64], v6[48] = { 0x60, 0, 0, 0, 0, 8, 17, 64 };
	uint32_t outlen = 7;

	original(big[0], 1400, 0x1234, 40000);
	original(big[1], 300, 0x1235, 40001);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	memset(fresh, 0x5a, sizeof(fresh));
	memcpy(out, fresh, sizeof(out));
	refs[0] = (struct pkt_frag_ref){ f.b[0], f.len[0] };
	refs[1] = (struct pkt_frag_ref){ big[1], 300 };
	refs[2] = (struct pkt_frag_ref){ f.b[2], f.len[2] };
	refs[3] = (struct pkt_frag_ref){ v6, sizeof(v6) };
	EXPECT_EQ(1, defrag(refs, 4, 1, out, sizeof(out), &outlen));
	EXPECT_EQ(1, defrag(refs, 4, 3, out, sizeof(out), &outlen));
	EXPECT_EQ(7, outlen);
	EXPECT_EQ(-1, first_diff(out, fresh, sizeof(out)));
	/* A truncated IPv4 header is malformed, not "no fragment". */
	refs[1].len = 19;
	EXPECT_EQ(-1, defrag(refs, 4, 1, out, sizeof(out), &outlen));
	/* So is an IPv6 header cut short, or whose chain is. */
	refs[3].len = 39;
	EXPECT_EQ(-1, defrag(refs, 4, 3, out, sizeof(out), &outlen));
	v6[6] = 0;			/* hop-by-hop, past the payload */
	refs[3].len = sizeof(v6);
	EXPECT_EQ(-1, defrag(refs, 4, 3, out, sizeof(out), &outlen));
	EXPECT_EQ(-1, first_diff(out, fresh, sizeof(out)));
}

TEST(fragments_of_two_packets_are_kept_apart)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	uint8_t out[1600];
	uint32_t outlen;
	size_t i, k;

	/* Same addresses and protocol, IDs 0x1234 and 0x1235, interleaved. */
	original(big[0], 1400, 0x1234, 40000);
	original(big[1], 1000, 0x1235, 40001);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	fragment(big[1], 576, 0, &f);
	ASSERT_EQ(5, f.n);
	k = 0;
	refs[k++] = (struct pkt_frag_ref){ f.b[3], f.len[3] };	/* B 1 */
	refs[k++] = (struct pkt_frag_ref){ f.b[0], f.len[0] };	/* A 1 */
	refs[k++] = (struct pkt_frag_ref){ f.b[4], f.len[4] };	/* B 2 */
	refs[k++] = (struct pkt_frag_ref){ f.b[1], f.len[1] };	/* A 2 */
	refs[k++] = (struct pkt_frag_ref){ f.b[2], f.len[2] };	/* A 3 */

	for (i = 0; i < k; i++) {
		const uint8_t *orig = get16(refs[i].pkt + 4) == 0x1234 ?
				      big[0] : big[1];

		ASSERT_EQ(0, defrag(refs, k, i, out, sizeof(out), &outlen));
		EXPECT_EQ(572, outlen);
		EXPECT_EQ(get16(orig + 2), get16(out + 2));
		EXPECT_EQ(-1, first_diff(out, orig, 572));
	}
	/* Without B's last fragment, B's are refused and A's still built. */
	refs[2] = refs[4];
	EXPECT_EQ(-1, defrag(refs, 4, 0, out, sizeof(out), &outlen));
	EXPECT_EQ(0, defrag(refs, 4, 1, out, sizeof(out), &outlen));
	EXPECT_EQ(1400, get16(out + 2));
}

TEST(an_id_reused_in_the_capture_pairs_by_capture_order)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	uint8_t out[1600];
	uint32_t outlen;
	size_t i;

	/* Two datagrams with the same ID one after the other: A1-3, B1-3. */
	original(big[0], 1400, 0x1234, 40000);
	original(big[1], 1200, 0x1234, 40001);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	fragment(big[1], 576, 0, &f);
	ASSERT_EQ(6, f.n);
	for (i = 0; i < f.n; i++)
		refs[i] = (struct pkt_frag_ref){ f.b[i], f.len[i] };
	for (i = 0; i < f.n; i++) {
		const uint8_t *orig = i < 3 ? big[0] : big[1];

		ASSERT_EQ(0, defrag(refs, f.n, i, out, sizeof(out), &outlen));
		EXPECT_EQ(572, outlen);
		EXPECT_EQ(-1, first_diff(out, orig, 572));
	}
}

TEST(fragments_sent_last_first_are_found_too)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	uint8_t out[1600];
	uint32_t outlen;
	size_t i;

	original(big[0], 1400, 0x1234, 40000);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	for (i = 0; i < f.n; i++)
		refs[i] = (struct pkt_frag_ref){ f.b[f.n - 1 - i],
						 f.len[f.n - 1 - i] };
	for (i = 0; i < f.n; i++) {
		ASSERT_EQ(0, defrag(refs, f.n, i, out, sizeof(out), &outlen));
		EXPECT_EQ(572, outlen);
		EXPECT_EQ(-1, first_diff(out, big[0], 572));
	}
}

TEST(rebuilt_head_digests_as_the_original)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	struct kb_digest d_orig, d_head, d_frag;
	uint8_t out[1600];
	uint32_t outlen;
	size_t i;

	original(big[0], 1400, 0x1234, 40000);
	f.n = 0;
	fragment(big[0], 576, 1, &f);	/* TTL 63: SPIE does not mind */
	for (i = 0; i < f.n; i++)
		refs[i] = (struct pkt_frag_ref){ f.b[i], f.len[i] };
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest(big[0], 1400, KBLOOM_DIGEST_SPIE, &d_orig));
	ASSERT_EQ(28, d_orig.len);
	/* A fragment's own digest is another (total length, MF). */
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest(f.b[0], f.len[0], KBLOOM_DIGEST_SPIE, &d_frag));
	EXPECT_NE(0, memcmp(d_orig.key, d_frag.key, 28));

	for (i = 0; i < f.n; i++) {
		ASSERT_EQ(0, defrag(refs, f.n, i, out, 28, &outlen));
		ASSERT_EQ(28, outlen);
		ASSERT_EQ(KBLOOM_SKIP_NONE,
			  kb_digest(out, outlen, KBLOOM_DIGEST_SPIE, &d_head));
		ASSERT_EQ(28, d_head.len);
		EXPECT_EQ(-1, first_diff(d_head.key, d_orig.key, 28));
	}
}

TEST(inconsistent_first_and_last_are_refused)
{
	static struct frags f;
	struct pkt_frag_ref refs[FRAG_MAX];
	uint8_t out[1600];
	uint32_t outlen;

	original(big[0], 1400, 0x1234, 40000);
	f.n = 0;
	fragment(big[0], 576, 0, &f);
	refs[0] = (struct pkt_frag_ref){ f.b[0], f.len[0] };
	refs[1] = (struct pkt_frag_ref){ f.b[2], f.len[2] };
	/* A last fragment ending within the first: offset 8, 8 bytes. */
	set16(f.b[2] + 6, 1);
	set16(f.b[2] + 2, 28);
	EXPECT_EQ(-1, defrag(refs, 2, 0, out, sizeof(out), &outlen));
	/* One ending past 65535 bytes. */
	set16(f.b[2] + 6, 0x1fff);
	EXPECT_EQ(-1, defrag(refs, 2, 0, out, sizeof(out), &outlen));
	/* 65535 exactly is fine. */
	set16(f.b[2] + 6, (65535 - 20 - 8) / 8);
	set16(f.b[2] + 2, 28 + (65535 - 20 - 8) % 8);
	ASSERT_EQ(0, defrag(refs, 2, 0, out, sizeof(out), &outlen));
	EXPECT_EQ(65535, get16(out + 2));
}

/* ---- tunnels: the outer packet of an IPIP or GRE packet ---- */

/* The tunnel's endpoints, and an inner flow through it. */
#define TUN_LOCAL	IP4(192, 0, 2, 1)
#define TUN_REMOTE	IP4(192, 0, 2, 2)
#define IN_SRC		IP4(10, 1, 1, 5)
#define IN_DST		IP4(10, 2, 2, 7)
#define PROTO_IPIP	4
#define PROTO_IPV6	41

/* An encapsulation as the sending kernel chose it (host order). */
struct tun {
	uint8_t kind;		/* KBLOOM_XLATE_IPIP, _GRE | _GRE_{CSUM,KEY,SEQ} */
	uint32_t key;		/* GRE_KEY */
	uint32_t seq;		/* GRE_SEQ */
	uint16_t id;		/* outer IP ID */
	uint16_t frag;		/* outer flags and offset */
	uint8_t tos, ttl;	/* outer TOS, TTL */
	uint16_t sport, dport;	/* VXLAN: the outer UDP ports */
	uint32_t vni;		/* VXLAN */
	uint16_t ucsum;		/* VXLAN: its UDP checksum as carried (0: none) */
};

static int tun_vxlan(const struct tun *t)
{
	return (t->kind & KBLOOM_XLATE_VXLAN) == KBLOOM_XLATE_VXLAN;
}

/* The bytes between the outer IPv4 header and the inner packet. */
static uint32_t encap_len(const struct tun *t);

static uint32_t gre_len(const struct tun *t)
{
	if (!(t->kind & KBLOOM_XLATE_GRE) || tun_vxlan(t))
		return 0;
	return 4 + 4 * (!!(t->kind & KBLOOM_XLATE_GRE_CSUM) +
			!!(t->kind & KBLOOM_XLATE_GRE_KEY) +
			!!(t->kind & KBLOOM_XLATE_GRE_SEQ));
}

/*
 * The outer packet the encapsulating kernel puts on the wire around the
 * first @cap bytes of @inner (RFC 2003 IPIP, RFC 2784 GRE, RFC 2890 key):
 * a 20-byte header, total length from the inner header's length,
 * checksum summed from scratch; the GRE header (protocol 0x0800, or
 * 0x86DD for an IPv6 @inner: RFC 7676); the inner bytes. Its captured
 * length.
 */
static uint32_t encap_len(const struct tun *t)
{
	return tun_vxlan(t) ? 8 + 8 + 14 : gre_len(t);
}

/* The inner packet's length: IPv4's total length, or IPv6's 40 + payload. */
static uint32_t inner_tot(const uint8_t *inner)
{
	return inner[0] >> 4 == 6 ? 40 + get16(inner + 4) : get16(inner + 2);
}

/*
 * The outer IPv4 header (RFC 791) of @t's packet: version 4, IHL 5, @t's
 * TOS, the total length @tot, @t's IP ID, flags and offset and TTL,
 * protocol @proto, TUN_LOCAL to TUN_REMOTE, its checksum from scratch.
 */
static void tun_ip4(uint8_t *o, const struct tun *t, uint32_t tot,
		    uint8_t proto)
{
	memset(o, 0, 20);
	o[0] = 0x45;
	o[1] = t->tos;
	set16(o + 2, tot);
	set16(o + 4, t->id);
	set16(o + 6, t->frag);
	o[8] = t->ttl;
	o[9] = proto;
	set32(o + 12, TUN_LOCAL);
	set32(o + 16, TUN_REMOTE);
	set16(o + 10, ~ref_sum(0, o, 20) & 0xffff);
}

static uint32_t ref_outer(uint8_t *o, const uint8_t *inner, uint32_t cap,
			  const struct tun *t)
{
	uint32_t g = encap_len(t), k;

	memset(o, 0, 20 + g);
	tun_ip4(o, t, 20 + g + inner_tot(inner),
		tun_vxlan(t) ? PROTO_UDP : g ? PROTO_GRE : PROTO_IPIP);
	if (tun_vxlan(t)) {
		/* RFC 7348: UDP, I flag and VNI, an Ethernet frame. */
		set16(o + 20, t->sport);
		set16(o + 22, t->dport);
		set16(o + 24, g + get16(inner + 2));
		set16(o + 26, t->ucsum);
		o[28] = 0x08;
		set32(o + 32, t->vni << 8);
		for (k = 36; k < 48; k++)	/* the MAC addresses */
			o[k] = (uint8_t)(0x52 + 3 * k);
		set16(o + 48, 0x0800);
	} else if (g) {
		uint32_t w = 24;

		/* C, K, S, version 0; IPv4 or IPv6 */
		set16(o + 20, (t->kind & KBLOOM_XLATE_GRE_CSUM ? 0x8000 : 0) |
			      (t->kind & KBLOOM_XLATE_GRE_KEY ? 0x2000 : 0) |
			      (t->kind & KBLOOM_XLATE_GRE_SEQ ? 0x1000 : 0));
		set16(o + 22, inner[0] >> 4 == 6 ? 0x86dd : 0x0800);
		if (t->kind & KBLOOM_XLATE_GRE_CSUM)
			w += 4;		/* summed below, reserved1 0 */
		if (t->kind & KBLOOM_XLATE_GRE_KEY) {
			set32(o + w, t->key);
			w += 4;
		}
		if (t->kind & KBLOOM_XLATE_GRE_SEQ)
			set32(o + w, t->seq);
	}
	memcpy(o + 20 + g, inner, cap);
	/* RFC 2784: the sum of the GRE header and the payload it carries. */
	if (t->kind & KBLOOM_XLATE_GRE_CSUM)
		set16(o + 24, ~ref_sum(ref_sum(0, o + 20, g), inner,
				       inner_tot(inner)) & 0xffff);
	return 20 + g + cap;
}

/*
 * The record the decapsulating router makes (uapi kbloom.h, "A transform
 * record"): AFTER_* the inner packet's addresses and IP ID, BEFORE_* the
 * outer's addresses, IP ID and flags/offset field, the key in FIRST.
 */
static struct kbloom_xlate tun_rec(const uint8_t *inner, const struct tun *t)
{
	struct kbloom_xlate r = {
		.state = KBLOOM_XLATE_VALID,
		.kind = t->kind,
		.proto = inner[9],
		.family = 4,
		.before_src = htonl(TUN_LOCAL),
		.before_dst = htonl(TUN_REMOTE),
		.before_sport = htons(t->id),
		.before_dport = htons(t->frag),
	};
	uint8_t o[64];

	/* FIRST: the GRE header's first optional word, as the wire has it. */
	if (gre_len(t) > 4) {
		ref_outer(o, inner, 0, t);
		memcpy(&r.first, o + 24, 4);
	}
	/* VXLAN: the UDP ports; a checksum in the flags' place, DF by KIND. */
	if (tun_vxlan(t)) {
		ref_outer(o, inner, 0, t);
		memcpy(&r.first, o + 20, 4);
		if (t->ucsum) {
			r.kind |= KBLOOM_XLATE_VXLAN_CSUM |
				  (t->frag & 0x4000 ? KBLOOM_XLATE_VXLAN_DF : 0);
			r.before_dport = htons(t->ucsum);
		}
	}

	memcpy(&r.after_src, inner + 12, 4);
	memcpy(&r.after_dst, inner + 16, 4);
	memcpy(&r.after_sport, inner + 4, 2);
	return r;
}

/* An inner ICMP echo request or UDP packet of @payload bytes; its length. */
static uint32_t inner_pkt(uint8_t *b, uint8_t proto, uint32_t payload)
{
	struct spec s = {
		.proto = proto,
		.f = { IN_SRC, IN_DST, proto == PROTO_ICMP ? 0x0517 : 41000,
		       proto == PROTO_ICMP ? 0 : 53 },
		.payload = payload,
		.ttl = 63,
		.id = 0x1a2b,
		.icmp_type = 8,
	};

	return build(b, &s);
}

/* pkt_tunnel_want() on an exact-size copy of @pkt (@len bytes). */
static int tun_want(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *w)
{
	uint8_t *in = malloc(len ? len : 1);
	int r;

	memcpy(in, pkt, len);
	r = pkt_tunnel_want(in, len, w);
	free(in);
	return r;
}

/*
 * pkt_tunnel_outer() on exact-size copies of @pkt (@len), of @addrs (32
 * bytes) and of @more when given, and of @out.
 */
static int outer6m(const uint8_t *pkt, uint32_t len,
		   const struct kbloom_xlate *rec, const uint8_t *addrs,
		   const struct kbloom_xlate *more, uint8_t *out,
		   uint32_t outmax, uint32_t *outlen)
{
	uint8_t *in = malloc(len ? len : 1), *o = malloc(outmax ? outmax : 1);
	uint8_t *a = addrs ? malloc(32) : NULL;
	struct kbloom_xlate *m = more ? malloc(sizeof(*m)) : NULL;
	int r;

	memcpy(in, pkt, len);
	if (a)
		memcpy(a, addrs, 32);
	if (m)
		*m = *more;
	r = pkt_tunnel_outer(in, len, rec, a, m, o, outmax, outlen);
	if (r == 0)
		memcpy(out, o, *outlen);
	free(in);
	free(o);
	free(a);
	free(m);
	return r;
}

/* outer6m() over IPv4: no outer addresses, no more record. */
static int outer(const uint8_t *pkt, uint32_t len,
		 const struct kbloom_xlate *rec, uint8_t *out, uint32_t outmax,
		 uint32_t *outlen)
{
	return outer6m(pkt, len, rec, NULL, NULL, out, outmax, outlen);
}

/*
 * The outer packet pkt_tunnel_outer() rebuilt, @out (@outlen bytes), is
 * the wire packet @wire: as long as @want (@wantlen bytes: the wire
 * packet as rebuilt, where no record keeps it and no digest covers it
 * as the uapi says it comes back), digesting (SPIE) as the wire
 * packet's first @wantlen bytes do (same_digest(), @keylen), and byte
 * for byte @want. -1 when it is; -3 a wrong length, -4 the digests
 * differ, else the first differing byte (each said on the TAP stream).
 */
static int outer_is_wire(const uint8_t *out, uint32_t outlen,
			 const uint8_t *wire, const uint8_t *want,
			 uint32_t wantlen, uint32_t keylen)
{
	if (outlen != wantlen) {
		kb_diag("outlen %u, want %u", outlen, wantlen);
		return -3;
	}
	if (!same_digest(wire, wantlen, out, outlen, KBLOOM_DIGEST_SPIE,
			 keylen)) {
		kb_diag("the digests differ");
		return -4;
	}
	return first_diff(out, want, wantlen);
}

/*
 * Builds the inner packet (@proto, @payload bytes, @cap captured; all when
 * 0) and the outer around it with @t, and compares pkt_tunnel_outer() of
 * the inner with @outmax bytes (all when 0) against the wire packet with
 * TOS 0 and TTL 64 (the function's choice: no digest covers them). The
 * first differing byte, -1 when equal, -2 when refused, -3 when the
 * length differs, -4 when the digests differ.
 */
static int tun_case(uint8_t proto, uint32_t payload, uint32_t cap,
		    struct tun t, uint32_t outmax)
{
	uint8_t in[2048], ref[2048], want[2048], out[2048];
	struct kbloom_xlate rec;
	uint32_t len, reflen, outlen = 0, i;

	len = inner_pkt(in, proto, payload);
	if (cap)
		len = cap;
	t.tos = 0;
	t.ttl = 64;
	reflen = ref_outer(ref, in, len, &t);
	if (outmax && outmax < reflen)
		reflen = outmax;
	rec = tun_rec(in, &t);
	if (outer(in, len, &rec, out, outmax ? outmax : sizeof(out), &outlen))
		return -2;
	memcpy(want, ref, reflen);
	/* The GRE words after the first are not kept: zero, as rebuilt. */
	for (i = 28; i < 20 + gre_len(&t) && i < reflen; i++)
		want[i] = 0;
	/* Nor are VXLAN's VNI and the inner Ethernet addresses. */
	for (i = 29; tun_vxlan(&t) && i < 48 && i < reflen; i++)
		want[i] = 0;
	/*
	 * Cut at @outmax the packets may be too short to digest: then both
	 * refused alike (no key length asked).
	 */
	return outer_is_wire(out, outlen, ref, want, reflen, 0);
}

/* DF set (Linux's default for a tunnel device with pmtudisc) or not. */
static const struct tun ipip = {
	.kind = KBLOOM_XLATE_IPIP, .id = 0xbeef, .frag = 0x4000,
};
static const struct tun gre = {
	.kind = KBLOOM_XLATE_GRE, .id = 0x0101, .frag = 0,
};
static const struct tun gre_key = {
	.kind = KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_KEY, .key = 0xc0ffee42,
	.id = 0x8000, .frag = 0x4000,
};
/* RFC 2890's optional words: a checksum, a sequence number, all three. */
static const struct tun gre_csum = {
	.kind = KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_CSUM,
	.id = 0x1234, .frag = 0x4000,
};
static const struct tun gre_seq = {
	.kind = KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_SEQ, .seq = 0xfffffffe,
	.id = 0x0042, .frag = 0,
};
static const struct tun gre_all = {
	.kind = KBLOOM_XLATE_GRE | KBLOOM_XLATE_GRE_CSUM |
		KBLOOM_XLATE_GRE_KEY | KBLOOM_XLATE_GRE_SEQ,
	.key = 7, .seq = 3, .id = 0x7777, .frag = 0x4000,
};

TEST(tunnel_want_gives_addresses_protocol_and_ip_id)
{
	static const uint8_t protos[] = { PROTO_ICMP, PROTO_UDP };
	struct kbloom_xlate w, z;
	uint8_t in[256];
	uint32_t len;
	size_t i;

	for (i = 0; i < 2; i++) {
		len = inner_pkt(in, protos[i], 16);
		memset(&w, 0xa5, sizeof(w));
		ASSERT_EQ(0, tun_want(in, len, &w));
		EXPECT_EQ(4, w.family);
		EXPECT_EQ(protos[i], w.proto);
		EXPECT_EQ(IN_SRC, ntohl(w.after_src));
		EXPECT_EQ(IN_DST, ntohl(w.after_dst));
		EXPECT_EQ(0x1a2b, ntohs(w.after_sport));
		/* Every other field 0: no ports, even for UDP. */
		z = w;
		z.family = z.proto = 0;
		z.after_src = z.after_dst = 0;
		z.after_sport = 0;
		memset(&w, 0, sizeof(w));
		EXPECT_EQ(0, memcmp(&z, &w, sizeof(w)));
	}
}

TEST(tunnel_want_needs_an_ipv4_header)
{
	struct kbloom_xlate w;
	uint8_t in[256];
	uint32_t len;

	len = inner_pkt(in, PROTO_UDP, 16);
	/* The 20-byte header is enough, ... */
	EXPECT_EQ(0, tun_want(in, 20, &w));
	EXPECT_EQ(0x1a2b, ntohs(w.after_sport));
	/* ... 19 bytes are not. */
	EXPECT_EQ(-1, tun_want(in, 19, &w));
	EXPECT_EQ(-1, tun_want(in, 0, &w));
	in[0] = 0x60;				/* IPv6: 40 bytes at least */
	EXPECT_EQ(-1, tun_want(in, 39, &w));
	in[0] = 0x44;				/* IHL 4 */
	EXPECT_EQ(-1, tun_want(in, len, &w));
}

/*
 * An ICMPv6 echo request fd09::7 > fd09::8 (payload @payload bytes, flow
 * label 0x5abcd, traffic class 0x2e, hop limit 63), its sequence number
 * @seq; its length.
 */
static uint32_t inner6(uint8_t *b, uint32_t payload, uint16_t seq)
{
	uint32_t i;

	memset(b, 0, 48 + payload);
	set32(b, 6u << 28 | 0x2eu << 20 | 0x5abcd);
	set16(b + 4, 8 + payload);
	b[6] = 58;
	b[7] = 63;
	set16(b + 8, 0xfd09);
	b[23] = 7;
	set16(b + 24, 0xfd09);
	b[39] = 8;
	b[40] = 128;				/* echo request */
	set16(b + 42, 0x1234);			/* checksum: not summed */
	set16(b + 44, 0x0517);			/* identifier */
	set16(b + 46, seq);
	for (i = 0; i < payload; i++)
		b[48 + i] = (uint8_t)(i * 3);
	return 48 + payload;
}

/*
 * 6in4 (sit, RFC 4213): the key of the inner IPv6 packet as the uapi
 * defines it, computed here from its words; the outer packet rebuilt as
 * the wire has it (an IPIP header, protocol 41). The same packet's
 * record in GRE (a gre device carries IPv6 too): GRE's outer packet,
 * protocol 47 and GRE's protocol 0x86DD.
 */
TEST(sit_want_keys_the_ipv6_packet_and_its_outer_is_the_wire_packet)
{
	const struct tun g = { .kind = KBLOOM_XLATE_GRE, .id = 0x4242,
			       .frag = 0x4000, .ttl = 64 };
	uint8_t in[256], ref[512], out[512];
	struct kbloom_xlate w, rec;
	uint32_t len, outlen, i, fs = 0, fd = 0, tag;
	uint8_t t[4];

	len = inner6(in, 20, 9);
	ASSERT_EQ(0, tun_want(in, len, &w));
	EXPECT_EQ(6, w.family);
	EXPECT_EQ(58, w.proto);
	/* Addresses: the XOR of their four words (in the wire's order). */
	for (i = 0; i < 16; i += 4) {
		fs ^= get32(in + 8 + i);
		fd ^= get32(in + 24 + i);
	}
	EXPECT_EQ(fs, ntohl(w.after_src));
	EXPECT_EQ(fd, ntohl(w.after_dst));
	/* The tag: flow label, payload length and next header, the 8 bytes after. */
	tag = 0x0005abcd ^ (28u << 16 | 58u << 8) ^ (128u << 24 | 0x1234) ^
	      (0x0517u << 16 | 9);
	set32(t, tag);
	EXPECT_EQ(0, memcmp(&w.after_sport, t, 2));
	EXPECT_EQ(0, memcmp(&w.after_dport, t + 2, 2));
	/* Traffic class and hop limit change on the way: not keyed. */
	in[0] = 0x60;
	in[1] &= 0x0f;
	in[7] = 1;
	ASSERT_EQ(0, tun_want(in, len, &rec));
	EXPECT_EQ(0, memcmp(&w, &rec, sizeof(w)));
	/* Another echo (sequence 10): another tag. */
	len = inner6(in, 20, 10);
	ASSERT_EQ(0, tun_want(in, len, &rec));
	EXPECT_NE(0, memcmp(&w, &rec, sizeof(w)));

	/*
	 * The record d makes, and the outer packet from it: the inner
	 * packet's hop limit and traffic class inside the tunnel in FIRST
	 * (64 and 0x2e there; it reached v with 62 and 0x00).
	 */
	rec.first = 0;
	((uint8_t *)&rec.first)[0] = 64;
	((uint8_t *)&rec.first)[1] = 0x2e;
	rec.state = KBLOOM_XLATE_VALID;
	rec.kind = KBLOOM_XLATE_IPIP;
	rec.before_src = htonl(TUN_LOCAL);
	rec.before_dst = htonl(TUN_REMOTE);
	rec.before_sport = htons(0x4242);
	rec.before_dport = htons(0x4000);
	memset(ref, 0, sizeof(ref));
	tun_ip4(ref, &g, 20 + len, PROTO_IPV6);
	memcpy(ref + 20, in, len);
	set32(ref + 20, 6u << 28 | 0x2eu << 20 | 0x5abcd);
	ref[27] = 64;
	in[1] &= 0x0f;
	in[7] = 62;
	ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
	ASSERT_EQ(20 + len, outlen);
	EXPECT_EQ(-1, first_diff(out, ref, outlen));
	/* Not this packet's record (another echo), or no tunnel's: refused. */
	len = inner6(in, 20, 11);
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
	rec.kind = KBLOOM_XLATE_SNAT;
	len = inner6(in, 20, 10);
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
	/* In GRE without optional words: its 4 bytes, FIRST put back too. */
	rec.kind = KBLOOM_XLATE_GRE;
	in[7] = 64;
	ref_outer(ref, in, len, &g);
	in[1] &= 0x0f;
	in[7] = 62;
	ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
	ASSERT_EQ(24 + len, outlen);
	EXPECT_EQ(PROTO_GRE, out[9]);
	EXPECT_EQ(0x000086dd, get32(out + 20));
	EXPECT_EQ(-1, first_diff(out, ref, outlen));
}

TEST(ipip_outer_is_the_wire_packet)
{
	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 56, 0, ipip, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, ipip, 0));
}

TEST(gre_outer_is_the_wire_packet)
{
	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 56, 0, gre, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, gre, 0));
}

TEST(gre_key_outer_is_the_wire_packet)
{
	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 56, 0, gre_key, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, gre_key, 0));
}

TEST(gre_csum_seq_outer_digests_as_the_wire_packet)
{
	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 56, 0, gre_csum, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 101, 0, gre_csum, 0));	/* odd */
	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 56, 0, gre_seq, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, gre_seq, 0));
	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 56, 0, gre_all, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, gre_all, 0));
	/* A capture cut short: the checksum was of the whole packet. */
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 200, 28, gre_all, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, gre_all, 36));
}

static const struct tun vxlan = {
	.kind = KBLOOM_XLATE_VXLAN, .id = 0x3c3c, .frag = 0,
	.sport = 51234, .dport = 4789, .vni = 42,
};

TEST(vxlan_outer_digests_as_the_wire_packet)
{
	struct tun df = vxlan;

	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 56, 0, vxlan, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 101, 0, vxlan, 0));
	df.frag = 0x4000;
	df.dport = 8472;		/* Linux's old default port */
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, df, 0));
	/* Cut short: the outer headers and 8 bytes still digest alike. */
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 200, 28, vxlan, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, vxlan, 58));
}

TEST(vxlan_with_a_udp_checksum_keeps_it_and_df)
{
	static const uint16_t sums[] = { 0x0001, 0x7a3e, 0xffff };
	struct tun t = vxlan;
	unsigned int i, df;

	for (df = 0; df < 2; df++) {
		t.frag = df ? 0x4000 : 0;
		for (i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
			t.ucsum = sums[i];
			EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, t, 0));
			EXPECT_EQ(-1, tun_case(PROTO_ICMP, 56, 0, t, 0));
			/* Cut short: the UDP header is all a digest covers. */
			EXPECT_EQ(-1, tun_case(PROTO_UDP, 200, 28, t, 0));
		}
	}
}

/* ---- GENEVE (RFC 8926): its reference built here, its record by hand ---- */

#define GENEVE_PORT	6081
#define ETH_P_TEB	0x6558		/* Transparent Ethernet Bridging */
#define GENEVE_ENCAP	(8 + 8 + 14)	/* UDP, GENEVE without options, Ethernet */

/* A GENEVE packet as the sending kernel chose it (host order). */
struct gnv {
	uint16_t id, frag;	/* outer IP ID, flags and offset */
	uint8_t tos, ttl;	/* outer TOS, TTL */
	uint16_t sport;		/* the outer UDP source port: a flow hash */
	uint32_t vni;		/* 24 bits */
	int macs;		/* the inner Ethernet addresses: real, else 0 */
	int csum;		/* a UDP checksum (summed from scratch), else 0 */
};

/* The inner frame's destination and source (locally administered). */
static const uint8_t geneve_macs[12] = {
	0x02, 0x1a, 0x2b, 0x3c, 0x4d, 0x5e,
	0x0a, 0x6f, 0x70, 0x81, 0x92, 0xa3,
};

/*
 * The ones'-complement sum of UDP datagram @u (@udplen bytes) and its
 * pseudo-header, from the IP header @ip before it: IPv4's (RFC 768:
 * source, destination, zero, protocol 17, the UDP length) or IPv6's
 * (RFC 8200 8.1: source, destination, the upper-layer length as 32 bits,
 * three zero bytes, next header 17).
 */
static uint32_t udp_sum(const uint8_t *ip, const uint8_t *u, uint32_t udplen)
{
	uint8_t pseudo[40];
	uint32_t n = 12;

	if (ip[0] >> 4 == 6) {
		memcpy(pseudo, ip + 8, 32);
		set32(pseudo + 32, udplen);
		set32(pseudo + 36, PROTO_UDP);
		n = 40;
	} else {
		memcpy(pseudo, ip + 12, 8);
		pseudo[8] = 0;
		pseudo[9] = PROTO_UDP;
		set16(pseudo + 10, udplen);
	}
	return ref_sum(ref_sum(0, pseudo, n), u, udplen);
}

/*
 * Sums UDP datagram @u (its checksum field 0) after IP header @ip into
 * its checksum, as a sender does: a sum of 0 is sent as 0xffff (RFC 768).
 */
static void udp_csum(const uint8_t *ip, uint8_t *u, uint32_t udplen)
{
	uint32_t s = ~udp_sum(ip, u, udplen) & 0xffff;

	set16(u + 6, s ? s : 0xffff);
}

/* The UDP checksum of IPv4 or IPv6 packet @o verifies (sums to all ones). */
static bool udp_csum_ok(const uint8_t *o)
{
	uint32_t h = o[0] >> 4 == 6 ? 40 : 20;

	return udp_sum(o, o + h, get16(o + h + 4)) == 0xffff;
}

/*
 * The wire packet @g around the whole inner packet @in (@inlen bytes):
 * the outer IPv4 header (RFC 791, checksum from scratch); UDP (RFC 768)
 * from @g's port to 6081, its checksum 0 or summed over the pseudo-header
 * and the whole datagram (0 sent as 0xffff); the GENEVE header without
 * options (RFC 8926 3.4: version 0, option length 0, O and C clear,
 * protocol type 0x6558, the VNI, reserved 0); an Ethernet header of type
 * IPv4; the inner packet. Its length.
 */
static uint32_t geneve_ref(uint8_t *o, const uint8_t *in, uint32_t inlen,
			   const struct gnv *g)
{
	const struct tun t = { .id = g->id, .frag = g->frag, .tos = g->tos,
			       .ttl = g->ttl };
	uint32_t udplen = 8 + 8 + 14 + inlen;
	uint8_t *u = o + 20, *gh = u + 8, *eth = gh + 8;

	memset(o, 0, 20 + udplen);
	tun_ip4(o, &t, 20 + udplen, PROTO_UDP);
	set16(u, g->sport);
	set16(u + 2, GENEVE_PORT);
	set16(u + 4, udplen);
	gh[0] = 0;				/* Ver 0, Opt Len 0 */
	gh[1] = 0;				/* O, C, reserved */
	set16(gh + 2, ETH_P_TEB);
	set32(gh + 4, g->vni << 8);		/* VNI, reserved */
	if (g->macs)
		memcpy(eth, geneve_macs, 12);
	set16(eth + 12, 0x0800);
	memcpy(eth + 14, in, inlen);
	if (g->csum)
		udp_csum(o, u, udplen);
	return 20 + udplen;
}

/*
 * The record the decapsulating router makes of @g's packet @wire, each
 * field set by hand from what the uapi says it holds: KIND GENEVE, the
 * outer addresses, IP ID and flags/offset in BEFORE_*, the UDP ports as
 * carried in FIRST; with a checksum KIND VXLAN_CSUM (and VXLAN_DF for DF)
 * and the checksum as carried in BEFORE_DPORT. The inner packet's key
 * (inner_pkt(): @proto, IN_SRC > IN_DST, IP ID 0x1a2b) in AFTER_*.
 */
static struct kbloom_xlate geneve_rec(const struct gnv *g, const uint8_t *wire,
				      uint8_t proto)
{
	struct kbloom_xlate r = {
		.state = KBLOOM_XLATE_VALID,
		.kind = KBLOOM_XLATE_GENEVE,
		.proto = proto,
		.family = 4,
		.before_src = htonl(TUN_LOCAL),
		.before_dst = htonl(TUN_REMOTE),
		.before_sport = htons(g->id),
		.before_dport = htons(g->frag),
		.after_src = htonl(IN_SRC),
		.after_dst = htonl(IN_DST),
		.after_sport = htons(0x1a2b),
	};

	set16((uint8_t *)&r.first, g->sport);
	set16((uint8_t *)&r.first + 2, GENEVE_PORT);
	if (g->csum) {
		r.kind |= KBLOOM_XLATE_VXLAN_CSUM;
		if (g->frag & 0x4000)
			r.kind |= KBLOOM_XLATE_VXLAN_DF;
		memcpy(&r.before_dport, wire + 26, 2);
	}
	return r;
}

/*
 * The inner packet (@proto, @payload bytes) in @g's wire packet; of its
 * first @cap bytes (all when 0), with the record made of the wire packet,
 * pkt_tunnel_outer() must give the wire packet as rebuilt: the fields no
 * record keeps as the uapi says they come back (VNI 0, Ethernet addresses
 * 0; TOS 0 and TTL 64, hence the IP checksum), the UDP checksum as
 * carried; and digest (SPIE) as the wire packet does. -1 when it does;
 * the first differing byte; -2 when refused, -3 a wrong length, -4 the
 * digests differ.
 */
static int geneve_case(uint8_t proto, uint32_t payload, uint32_t cap,
		       const struct gnv *g)
{
	uint8_t in[2048], wire[2048], want[2048], out[2048];
	struct kbloom_xlate rec;
	struct gnv z = *g;
	uint32_t len, wantlen, outlen = 0;

	len = inner_pkt(in, proto, payload);
	geneve_ref(wire, in, len, g);
	z.vni = 0;
	z.macs = 0;
	z.tos = 0;
	z.ttl = 64;
	z.csum = 0;
	geneve_ref(want, in, len, &z);
	set16(want + 26, get16(wire + 26));	/* not in the IP checksum */
	rec = geneve_rec(g, wire, proto);
	if (cap)
		len = cap;
	wantlen = 20 + GENEVE_ENCAP + len;
	if (outer(in, len, &rec, out, sizeof(out), &outlen))
		return -2;
	return outer_is_wire(out, outlen, wire, want, wantlen, 28);
}

/* As Linux's geneve sends: DF clear unless asked; a hashed source port. */
static const struct gnv geneve = {
	.id = 0x5a5a, .frag = 0, .tos = 0, .ttl = 64, .sport = 49877,
};

TEST(geneve_outer_is_the_wire_packet)
{
	struct gnv g = geneve;

	/* The fields the record does not keep as the rebuild writes them. */
	EXPECT_EQ(-1, geneve_case(PROTO_ICMP, 56, 0, &g));
	EXPECT_EQ(-1, geneve_case(PROTO_UDP, 100, 0, &g));
	EXPECT_EQ(-1, geneve_case(PROTO_UDP, 101, 0, &g));	/* odd */
	g.frag = 0x4000;
	g.id = 0;
	g.sport = 6082;
	EXPECT_EQ(-1, geneve_case(PROTO_UDP, 100, 0, &g));
	g.id = 0xffff;
	g.sport = 65535;
	EXPECT_EQ(-1, geneve_case(PROTO_ICMP, 8, 0, &g));
	/* Cut short: the outer headers and 8 bytes of the inner. */
	EXPECT_EQ(-1, geneve_case(PROTO_UDP, 200, 28, &g));
	EXPECT_EQ(-1, geneve_case(PROTO_UDP, 200, 20, &g));
}

TEST(geneve_outer_digests_as_the_wire_packet_whatever_its_vni_macs_and_ttl)
{
	static const uint8_t protos[] = { PROTO_ICMP, PROTO_UDP };
	uint8_t in[256], wire[512], out[512];
	struct kbloom_xlate rec;
	uint32_t len, wlen, outlen, k;
	struct gnv g = geneve;
	size_t i;

	g.vni = 0xabcdef;
	g.macs = 1;
	g.tos = 0xb8;			/* EF */
	g.ttl = 253;
	for (i = 0; i < ARRAY_SIZE(protos); i++) {
		g.frag = i ? 0x4000 : 0;
		/* Equal to the wire packet as rebuilt, and digests as it. */
		EXPECT_EQ(-1, geneve_case(protos[i], 40, 0, &g));
		EXPECT_EQ(-1, geneve_case(protos[i], 40, 24, &g));

		/* Not the same bytes: TOS, TTL, VNI and addresses differ. */
		len = inner_pkt(in, protos[i], 40);
		wlen = geneve_ref(wire, in, len, &g);
		rec = geneve_rec(&g, wire, protos[i]);
		ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
		ASSERT_EQ(wlen, outlen);
		EXPECT_NE(0, memcmp(out, wire, wlen));
		EXPECT_EQ(0, out[1]);
		EXPECT_EQ(64, out[8]);
		EXPECT_EQ(0, get32(out + 32));		/* VNI 0, reserved */
		for (k = 36; k < 48; k++)
			EXPECT_EQ(0, out[k]);
		/* The rest as the wire has it. */
		EXPECT_EQ(0, memcmp(out + 2, wire + 2, 6));
		EXPECT_EQ(0, memcmp(out + 12, wire + 12, 20));
		EXPECT_EQ(0, memcmp(out + 48, wire + 48, wlen - 48));
	}
}

TEST(geneve_with_a_udp_checksum_keeps_it_and_df)
{
	static const uint8_t protos[] = { PROTO_ICMP, PROTO_UDP };
	static const uint16_t sports[] = { 6082, 38911, 65535 };
	uint8_t in[256], wire[512], out[512];
	struct kbloom_xlate rec;
	uint32_t len, outlen;
	struct gnv g = geneve;
	unsigned int df;
	size_t i, j;

	g.vni = 0x10203;
	g.macs = 1;
	g.tos = 0x28;
	g.ttl = 30;
	g.csum = 1;
	for (df = 0; df < 2; df++) {
		g.frag = df ? 0x4000 : 0;
		for (i = 0; i < ARRAY_SIZE(protos); i++)
			for (j = 0; j < ARRAY_SIZE(sports); j++) {
				g.sport = sports[j];
				len = inner_pkt(in, protos[i], 100 + j);
				geneve_ref(wire, in, len, &g);
				ASSERT_TRUE(udp_csum_ok(wire));
				ASSERT_NE(0, get16(wire + 26));
				/* The record: the checksum, DF in KIND. */
				rec = geneve_rec(&g, wire, protos[i]);
				EXPECT_EQ(KBLOOM_XLATE_GENEVE |
					  KBLOOM_XLATE_VXLAN_CSUM |
					  (df ? KBLOOM_XLATE_VXLAN_DF : 0),
					  rec.kind);
				EXPECT_EQ(get16(wire + 26),
					  ntohs(rec.before_dport));
				/* Carried unchanged, DF as it was. */
				ASSERT_EQ(0, outer(in, len, &rec, out,
						   sizeof(out), &outlen));
				EXPECT_EQ(get16(wire + 26), get16(out + 26));
				EXPECT_EQ(df ? 0x4000 : 0, get16(out + 6));
				/* Byte for byte and the digest. */
				EXPECT_EQ(-1, geneve_case(protos[i], 100 + j,
							  0, &g));
				/* Cut short: the UDP header is in the digest. */
				EXPECT_EQ(-1, geneve_case(protos[i], 200, 28,
							  &g));
			}
	}

	/*
	 * A checksum summing to 0 is sent as 0xffff (RFC 768): the VNI
	 * (no digest covers it) that makes it so, carried as 0xffff.
	 */
	g.sport = 50001;
	for (g.vni = 0; g.vni < 0x10000; g.vni++) {
		len = inner_pkt(in, PROTO_UDP, 64);
		geneve_ref(wire, in, len, &g);
		if (get16(wire + 26) == 0xffff)
			break;
	}
	ASSERT_GT(0x10000, g.vni);
	ASSERT_TRUE(udp_csum_ok(wire));
	rec = geneve_rec(&g, wire, PROTO_UDP);
	ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
	EXPECT_EQ(0xffff, get16(out + 26));
	EXPECT_EQ(-1, geneve_case(PROTO_UDP, 64, 0, &g));
}

/*
 * Records alike but for KIND VXLAN or GENEVE: outer packets alike but for
 * the 8-byte tunnel header after the UDP header (bytes 28-35): VXLAN's
 * (RFC 7348: flags 0x08, the I flag; VNI) or GENEVE's (RFC 8926: version
 * and option length 0, flags 0, protocol 0x6558; VNI).
 */
TEST(geneve_outer_writes_geneve_s_header_not_vxlan_s)
{
	static const uint8_t vxlan_hdr[8] = { 0x08, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t geneve_hdr[8] = { 0, 0, 0x65, 0x58, 0, 0, 0, 0 };
	uint8_t in[256], wire[512], og[512], ov[512];
	struct kbloom_xlate rec;
	uint32_t len, glen, vlen, k;
	struct gnv g = geneve;
	unsigned int c;

	for (c = 0; c < 3; c++) {
		g.csum = c > 0;
		g.frag = c == 2 ? 0x4000 : 0;
		len = inner_pkt(in, PROTO_UDP, 32);
		geneve_ref(wire, in, len, &g);
		rec = geneve_rec(&g, wire, PROTO_UDP);
		ASSERT_EQ(0, outer(in, len, &rec, og, sizeof(og), &glen));
		rec.kind &= ~KBLOOM_XLATE_GRE_KEY;	/* VXLAN's */
		ASSERT_EQ(KBLOOM_XLATE_VXLAN,
			  rec.kind & (KBLOOM_XLATE_VXLAN |
				      KBLOOM_XLATE_GRE_KEY));
		ASSERT_EQ(0, outer(in, len, &rec, ov, sizeof(ov), &vlen));
		ASSERT_EQ(20 + GENEVE_ENCAP + len, glen);
		ASSERT_EQ(glen, vlen);
		EXPECT_EQ(0, memcmp(og + 28, geneve_hdr, 8));
		EXPECT_EQ(0, memcmp(ov + 28, vxlan_hdr, 8));
		for (k = 0; k < glen; k++)
			if (k < 28 || k >= 36)
				EXPECT_EQ(ov[k], og[k]) {
					TH_LOG("byte %u", k);
				}
	}
}

TEST(gre_record_keeps_the_first_optional_word)
{
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	uint32_t len, outlen;

	len = inner_pkt(in, PROTO_UDP, 16);
	rec = tun_rec(in, &gre_seq);
	EXPECT_EQ(0xfffffffe, ntohl(rec.first));
	ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
	EXPECT_EQ(0x1000, get16(out + 20));
	EXPECT_EQ(28 + len, outlen);
	rec = tun_rec(in, &gre_all);
	ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
	EXPECT_EQ(0xb000, get16(out + 20));
	EXPECT_EQ(36 + len, outlen);
	EXPECT_EQ(36 + len, get16(out + 2));
	/* the checksum kept; the key and sequence number not: zero */
	EXPECT_EQ(0, memcmp(out + 24, &rec.first, 4));
	EXPECT_EQ(0, get16(out + 28) | get16(out + 30) | get16(out + 32) |
		     get16(out + 34));
}

TEST(outer_flags_and_id_are_the_record_s)
{
	struct tun t = ipip;

	t.frag = 0;			/* no DF */
	t.id = 0;
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 20, 0, t, 0));
	t.frag = 0x4000;
	t.id = 0xffff;
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 20, 0, t, 0));
	t = gre_key;
	t.key = 0;			/* a key of 0 is still a key */
	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 8, 0, t, 0));
}

TEST(outer_digests_as_the_wire_packet_whatever_its_tos_and_ttl)
{
	const struct tun *ts[] = { &ipip, &gre, &gre_key };
	static const uint8_t protos[] = { PROTO_ICMP, PROTO_UDP };
	uint8_t in[256], wire[512], out[512];
	struct kbloom_xlate rec;
	uint32_t len, wlen, outlen;
	struct tun t;
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 2; j++) {
			len = inner_pkt(in, protos[j], 40);
			t = *ts[i];
			t.tos = 0xb8;		/* EF */
			t.ttl = 253;
			wlen = ref_outer(wire, in, len, &t);
			rec = tun_rec(in, &t);
			ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out),
					   &outlen));
			ASSERT_EQ(wlen, outlen);
			/* Not the same bytes ... */
			EXPECT_NE(0, memcmp(out, wire, wlen));
			/* ... but the same digest. */
			EXPECT_TRUE(same_spie_key(_metadata, out, outlen, wire,
						  wlen, 28));
		}
}

TEST(outer_of_a_truncated_inner_capture_has_the_whole_total_length)
{
	uint8_t in[512], out[512];
	struct kbloom_xlate rec;
	uint32_t outlen;

	/* 28 of 228 inner bytes captured: the outer says 20 + g + 228. */
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 200, 28, ipip, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 200, 28, gre, 0));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 200, 28, gre_key, 0));
	EXPECT_EQ(-1, tun_case(PROTO_ICMP, 200, 20, gre_key, 0));

	inner_pkt(in, PROTO_UDP, 200);
	rec = tun_rec(in, &gre_key);
	ASSERT_EQ(0, outer(in, 28, &rec, out, sizeof(out), &outlen));
	EXPECT_EQ(28 + 28, outlen);
	EXPECT_EQ(28 + 228, get16(out + 2));
}

TEST(outer_is_cut_at_outmax)
{
	uint8_t in[512], out[512];
	struct kbloom_xlate rec;
	uint32_t outlen;

	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, ipip, 48));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, gre, 48));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, gre_key, 48));
	/* The outer headers alone. */
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, ipip, 20));
	EXPECT_EQ(-1, tun_case(PROTO_UDP, 100, 0, gre_key, 28));
	/* The total length stays the whole packet's. */
	inner_pkt(in, PROTO_UDP, 100);
	rec = tun_rec(in, &gre);
	ASSERT_EQ(0, outer(in, 128, &rec, out, 30, &outlen));
	EXPECT_EQ(30, outlen);
	EXPECT_EQ(24 + 128, get16(out + 2));
}

TEST(outer_refuses_a_record_that_is_no_tunnel_s)
{
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	uint32_t len, outlen;

	len = inner_pkt(in, PROTO_UDP, 16);
	rec = tun_rec(in, &ipip);
	ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
	rec.kind = KBLOOM_XLATE_SNAT;
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
	rec.kind = KBLOOM_XLATE_SNAT | KBLOOM_XLATE_DNAT;
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
	rec.kind = 0;
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
	rec.kind = KBLOOM_XLATE_GRE_KEY;	/* a key without GRE */
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
}

TEST(outer_refuses_a_record_of_another_inner_packet)
{
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, r;
	uint32_t len, outlen;

	len = inner_pkt(in, PROTO_UDP, 16);
	rec = tun_rec(in, &gre);
	ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
	r = rec;
	r.after_src = htonl(IN_SRC + 1);
	EXPECT_EQ(-1, outer(in, len, &r, out, sizeof(out), &outlen));
	r = rec;
	r.after_dst = htonl(IN_DST + 1);
	EXPECT_EQ(-1, outer(in, len, &r, out, sizeof(out), &outlen));
	r = rec;
	r.after_sport = htons(0x1a2c);		/* another IP ID */
	EXPECT_EQ(-1, outer(in, len, &r, out, sizeof(out), &outlen));
	r = rec;
	r.proto = PROTO_TCP;
	EXPECT_EQ(-1, outer(in, len, &r, out, sizeof(out), &outlen));
}

TEST(outer_refuses_an_inner_packet_that_is_not_ipv4)
{
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	uint32_t len, outlen;

	len = inner_pkt(in, PROTO_UDP, 16);
	rec = tun_rec(in, &ipip);
	in[0] = 0x60;				/* IPv6 */
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
	in[0] = 0x45;
	EXPECT_EQ(-1, outer(in, 19, &rec, out, sizeof(out), &outlen));
	set16(in + 2, 19);			/* total length < header */
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
}

TEST(outer_refuses_a_total_length_over_65535)
{
	const struct tun *ts[] = { &ipip, &gre, &gre_key };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	uint32_t outlen, g;
	size_t i;

	for (i = 0; i < 3; i++) {
		g = gre_len(ts[i]);
		inner_pkt(in, PROTO_UDP, 16);
		rec = tun_rec(in, ts[i]);
		/* An inner packet captured in part: 65535 in all is fine ... */
		set16(in + 2, 65535 - 20 - g);
		ASSERT_EQ(0, outer(in, 28, &rec, out, sizeof(out), &outlen));
		EXPECT_EQ(65535, get16(out + 2));
		EXPECT_EQ(20 + g + 28, outlen);
		/* ... one more byte is not. */
		set16(in + 2, 65535 - 20 - g + 1);
		EXPECT_EQ(-1, outer(in, 28, &rec, out, sizeof(out), &outlen));
		set16(in + 2, 65535);
		EXPECT_EQ(-1, outer(in, 28, &rec, out, sizeof(out), &outlen));
	}
}

/* ---- tunnels over IPv6: ip6tnl (RFC 2473) and ip6gre ---- */

#define NH_DSTOPTS	60

/* The outer source and destination: 2001:db8:1234:5678:9abc:def0:1357:2468,
 * fd0c:ab01:ffee:102:304:506:708:90a.
 */
static const uint8_t tun6_addrs[32] = {
	0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34, 0x56, 0x78,
	0x9a, 0xbc, 0xde, 0xf0, 0x13, 0x57, 0x24, 0x68,
	0xfd, 0x0c, 0xab, 0x01, 0xff, 0xee, 0x01, 0x02,
	0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
};

/* An encapsulation over IPv6 as the sending kernel chose it. */
struct tun6 {
	struct tun t;		/* KIND IPIP, GRE (| GRE_*); not OUTER6 */
	uint32_t label;		/* the outer flow label */
	int lim;		/* the encapsulation limit; -1: none */
	uint8_t tclass, hlim;	/* the outer traffic class, hop limit */
};

/* The outer IPv6 header, with the destination options header when any. */
static uint32_t head6_len(const struct tun6 *t)
{
	return t->lim < 0 ? 40 : 48;
}

/*
 * The outer IPv6 header (RFC 8200 3) of @t's packet: version 6, @t's
 * traffic class and flow label, the payload length @plen, next header
 * @nh, @t's hop limit, tun6_addrs' source and destination.
 */
static void tun_ip6(uint8_t *o, const struct tun6 *t, uint32_t plen,
		    uint8_t nh)
{
	set32(o, 6u << 28 | (uint32_t)t->tclass << 20 | t->label);
	set16(o + 4, plen);
	o[6] = nh;
	o[7] = t->hlim;
	memcpy(o + 8, tun6_addrs, 32);
}

/*
 * The outer packet ip6tnl or ip6gre puts on the wire around the first
 * @cap bytes of @inner: the IPv6 header (RFC 2460: version 6, traffic
 * class, flow label, the payload length of all after it, next header,
 * hop limit, source, destination); with an encapsulation limit, a
 * destination options header (next header 60; RFC 2460 4.6: its next
 * header, length 0 for 8 bytes) of the tunnel encapsulation limit option
 * (RFC 2473 4.1.1: type 4, length 1, the limit) padded to 8 bytes by
 * PadN (type 1, length 1, one zero byte); GRE as over IPv4 (RFC 2784,
 * RFC 2890; its checksum summed from scratch); the inner bytes. Its
 * captured length.
 */
static uint32_t ref_outer6(uint8_t *o, const uint8_t *inner, uint32_t cap,
			   const struct tun6 *t)
{
	uint32_t h = head6_len(t), g = gre_len(&t->t), w;
	uint8_t nh = g ? PROTO_GRE :
		     inner[0] >> 4 == 6 ? PROTO_IPV6 : PROTO_IPIP;

	memset(o, 0, h + g);
	tun_ip6(o, t, h - 40 + g + inner_tot(inner),
		t->lim < 0 ? nh : NH_DSTOPTS);
	if (t->lim >= 0) {
		o[40] = nh;
		o[41] = 0;
		o[42] = 4;		/* tunnel encapsulation limit */
		o[43] = 1;
		o[44] = (uint8_t)t->lim;
		o[45] = 1;		/* PadN */
		o[46] = 1;
		o[47] = 0;
	}
	if (g) {
		/* C, K, S, version 0; IPv4 or IPv6 */
		set16(o + h, (t->t.kind & KBLOOM_XLATE_GRE_CSUM ? 0x8000 : 0) |
			     (t->t.kind & KBLOOM_XLATE_GRE_KEY ? 0x2000 : 0) |
			     (t->t.kind & KBLOOM_XLATE_GRE_SEQ ? 0x1000 : 0));
		set16(o + h + 2, inner[0] >> 4 == 6 ? 0x86dd : 0x0800);
		w = h + 4;
		if (t->t.kind & KBLOOM_XLATE_GRE_CSUM)
			w += 4;			/* summed below */
		if (t->t.kind & KBLOOM_XLATE_GRE_KEY) {
			set32(o + w, t->t.key);
			w += 4;
		}
		if (t->t.kind & KBLOOM_XLATE_GRE_SEQ)
			set32(o + w, t->t.seq);
	}
	memcpy(o + h + g, inner, cap);
	if (t->t.kind & KBLOOM_XLATE_GRE_CSUM)
		set16(o + h + 4, ~ref_sum(ref_sum(0, o + h, g), inner,
					  inner_tot(inner)) & 0xffff);
	return h + g + cap;
}

/*
 * The key of the IPv6 packet @p as the uapi defines it (6in4, 6in6):
 * FAMILY 6, PROTO its next header, AFTER_SRC and AFTER_DST the XOR of
 * each address's four 32-bit words, AFTER_SPORT and AFTER_DPORT the XOR
 * of its first two words (traffic class and hop limit zeroed) and of the
 * two after the fixed header (zero past the payload).
 */
static void ref_key6(const uint8_t *p, struct kbloom_xlate *r)
{
	uint32_t fs = 0, fd = 0, plen = get16(p + 4), tag, i;
	uint8_t after[8] = { 0 }, t[4];

	for (i = 0; i < 16; i += 4) {
		fs ^= get32(p + 8 + i);
		fd ^= get32(p + 24 + i);
	}
	memcpy(after, p + 40, plen < 8 ? plen : 8);
	tag = (get32(p) & 0x000fffff) ^ (get32(p + 4) & 0xffffff00) ^
	      get32(after) ^ get32(after + 4);
	r->family = 6;
	r->proto = p[6];
	r->after_src = htonl(fs);
	r->after_dst = htonl(fd);
	set32(t, tag);
	memcpy(&r->after_sport, t, 2);
	memcpy(&r->after_dport, t + 2, 2);
}

/*
 * The record the decapsulating router makes of @inner (as inside the
 * tunnel) in the wire packet of @t (uapi kbloom.h, "Over IPv6"):
 * the inner key as over IPv4 (6in6 and IPv6 in GRE: as 6in4's, FIRST
 * its hop limit and traffic class inside the tunnel); BEFORE_SRC and
 * BEFORE_DST the outer addresses' folds; BEFORE_SPORT:BEFORE_DPORT the
 * flow label, and bit 31 with the limit in bits 20-27 when there is one;
 * GRE: FIRST its first optional word as the wire has it.
 */
static struct kbloom_xlate tun6_rec(const uint8_t *inner, const struct tun6 *t)
{
	uint32_t word = t->label, fs = 0, fd = 0, i;
	struct kbloom_xlate r;
	uint8_t o[128];

	memset(&r, 0, sizeof(r));
	if (inner[0] >> 4 == 6) {
		ref_key6(inner, &r);
		((uint8_t *)&r.first)[0] = inner[7];
		((uint8_t *)&r.first)[1] = (uint8_t)(get16(inner) >> 4);
	} else {
		r.family = 4;
		r.proto = inner[9];
		memcpy(&r.after_src, inner + 12, 4);
		memcpy(&r.after_dst, inner + 16, 4);
		memcpy(&r.after_sport, inner + 4, 2);
	}
	r.state = KBLOOM_XLATE_VALID;
	r.kind = t->t.kind | KBLOOM_XLATE_OUTER6;
	for (i = 0; i < 16; i += 4) {
		fs ^= get32(tun6_addrs + i);
		fd ^= get32(tun6_addrs + 16 + i);
	}
	r.before_src = htonl(fs);
	r.before_dst = htonl(fd);
	if (t->lim >= 0)
		word |= 0x80000000u | (uint32_t)t->lim << 20;
	r.before_sport = htons((uint16_t)(word >> 16));
	r.before_dport = htons((uint16_t)word);
	if (gre_len(&t->t) > 4) {
		ref_outer6(o, inner, 0, t);
		memcpy(&r.first, o + head6_len(t) + 4, 4);
	}
	return r;
}

/* outer6m() with the outer addresses @addrs (or NULL), no more record. */
static int outer6(const uint8_t *pkt, uint32_t len,
		  const struct kbloom_xlate *rec, const uint8_t *addrs,
		  uint8_t *out, uint32_t outmax, uint32_t *outlen)
{
	return outer6m(pkt, len, rec, addrs, NULL, out, outmax, outlen);
}

/* The inner packet: IPv4 of @proto, or for @proto 0 inner6()'s ICMPv6. */
static uint32_t inner_of(uint8_t *b, uint8_t proto, uint32_t payload)
{
	return proto ? inner_pkt(b, proto, payload) : inner6(b, payload, 9);
}

/* Past the decapsulating router: an IPv6 inner packet's hop limit and
 * traffic class are no longer what they were inside the tunnel.
 */
static void past_the_tunnel(uint8_t *in)
{
	if (in[0] >> 4 == 6) {
		in[0] = 0x60;
		in[1] &= 0x0f;
		in[7] = 61;
	}
}

/*
 * The first @n bytes of an IPv6 inner packet @w (the wire's) with the
 * hop limit and traffic class of @cap, as captured past the tunnel.
 */
static void as_captured(uint8_t *w, const uint8_t *cap, uint32_t n)
{
	if (n > 0)
		w[0] = cap[0];
	if (n > 1)
		w[1] = cap[1];
	if (n > 7)
		w[7] = cap[7];
}

/*
 * The first @n bytes of a wire packet @w in GRE (its outer header @h
 * bytes, GRE's @g) as pkt_tunnel_outer() rebuilds them: GRE's words
 * after the first zero (no record keeps them); and past a word (FIRST
 * holding it) an IPv6 inner packet's hop limit and traffic class as
 * captured, @cap (NULL: an IPv4 inner packet, left as it is).
 */
static void gre_rebuilt(uint8_t *w, uint32_t n, uint32_t h, uint32_t g,
			const uint8_t *cap)
{
	uint32_t i;

	for (i = h + 8; i < h + g && i < n; i++)
		w[i] = 0;
	if (cap && g > 4 && n > h + g)
		as_captured(w + h + g, cap, n - h - g);
}

/*
 * Builds the inner packet (inner_of(), @cap bytes captured, all when 0),
 * the wire packet of @t around it with traffic class 0 and hop limit 64
 * (the function's choice: no digest covers them) and the record of it,
 * and compares pkt_tunnel_outer() of the inner packet as captured past
 * the tunnel, with @outmax bytes (all when 0), against the wire packet
 * (an IPv6 one in GRE with an optional word: its hop limit and traffic
 * class as captured, FIRST being the word). The first differing byte,
 * -1 when equal, -2 when refused, -3 when the length differs, -4 when
 * the digests differ.
 */
static int tun6_case(uint8_t proto, uint32_t payload, uint32_t cap,
		     struct tun6 t, uint32_t outmax)
{
	uint8_t in[2048], ref[2048], want[2048], out[2048];
	struct kbloom_xlate rec;
	uint32_t len, reflen, outlen = 0;

	len = inner_of(in, proto, payload);
	if (cap)
		len = cap;
	t.tclass = 0;
	t.hlim = 64;
	reflen = ref_outer6(ref, in, len, &t);
	if (outmax && outmax < reflen)
		reflen = outmax;
	rec = tun6_rec(in, &t);
	past_the_tunnel(in);
	if (outer6(in, len, &rec, tun6_addrs, out,
		   outmax ? outmax : sizeof(out), &outlen))
		return -2;
	memcpy(want, ref, reflen);
	gre_rebuilt(want, reflen, head6_len(&t), gre_len(&t.t),
		    proto ? NULL : in);
	return outer_is_wire(out, outlen, ref, want, reflen, 0);
}

/* Flow labels: none, one, the largest; limits: none, 0, ip6tnl's 4, 255. */
static const uint32_t labels6[] = { 0, 0x5b1c3, 0xfffff };
static const int lims6[] = { -1, 0, 4, 255 };

/*
 * Every flow label and limit of labels6[] and lims6[] with the tunnel
 * @t, the inner packets @protos (0: IPv6); whether all are the wire's.
 */
static bool tun6_all(struct __test_metadata *_metadata, const struct tun *t,
		     const uint8_t *protos, size_t nprotos)
{
	struct tun6 t6 = { .t = *t };
	size_t c, n = ARRAY_SIZE(labels6) * ARRAY_SIZE(lims6) * nprotos;
	bool all = true;
	uint8_t proto;
	int r;

	for (c = 0; c < n; c++) {
		proto = protos[c % nprotos];
		t6.lim = lims6[c / nprotos % ARRAY_SIZE(lims6)];
		t6.label = labels6[c / nprotos / ARRAY_SIZE(lims6)];
		r = tun6_case(proto, proto ? 56 : 24, 0, t6, 0);
		EXPECT_EQ(-1, r) {
			TH_LOG("kind 0x%02x, inner %u, label 0x%05x, limit %d",
			       t->kind, proto, t6.label, t6.lim);
		}
		all = all && r == -1;
	}
	return all;
}

static const uint8_t protos4[] = { PROTO_ICMP, PROTO_UDP };
static const uint8_t protos6[] = { 0 };

TEST(ip6tnl_4in6_outer_is_the_wire_packet)
{
	EXPECT_TRUE(tun6_all(_metadata, &ipip, protos4, 2));
}

/*
 * 6in6: the inner packet's hop limit and traffic class inside the
 * tunnel (FIRST) put back, as in the wire packet (63 and 0x2e there;
 * 61 and 0x00 as captured past the tunnel).
 */
TEST(ip6tnl_6in6_outer_is_the_wire_packet_inner_hop_limit_and_tclass_too)
{
	EXPECT_TRUE(tun6_all(_metadata, &ipip, protos6, 1));
}

TEST(ip6gre_outer_is_the_wire_packet_with_and_without_optional_words)
{
	const struct tun *ts[] = { &gre, &gre_key, &gre_csum, &gre_seq,
				   &gre_all };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ts); i++)
		EXPECT_TRUE(tun6_all(_metadata, ts[i], protos4, 2));
}

/* The fields, one by one, as RFC 2460 and RFC 2473 4.1.1 place them. */
TEST(outer6_header_and_encaplimit_are_where_the_rfcs_put_them)
{
	static const uint8_t dopt[2][8] = {
		{ PROTO_IPIP, 0, 4, 1, 0, 1, 1, 0 },
		{ PROTO_GRE, 0, 4, 1, 255, 1, 1, 0 },
	};
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	struct tun6 t = { .t = ipip, .label = 0, .lim = 0 };
	uint32_t len, outlen;

	len = inner_pkt(in, PROTO_UDP, 16);
	/* Limit 0, flow label 0: nothing of the record's word leaks. */
	rec = tun6_rec(in, &t);
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	ASSERT_EQ(48 + len, outlen);
	EXPECT_EQ(0x60000000, get32(out));
	EXPECT_EQ(8 + len, get16(out + 4));
	EXPECT_EQ(NH_DSTOPTS, out[6]);
	EXPECT_EQ(64, out[7]);
	EXPECT_EQ(0, memcmp(out + 8, tun6_addrs, 32));
	EXPECT_EQ(-1, first_diff(out + 40, dopt[0], 8));
	EXPECT_EQ(-1, first_diff(out + 48, in, len));
	/* Limit 255 (bits 20-27 all set), GRE: not in the traffic class. */
	t.t = gre;
	t.lim = 255;
	rec = tun6_rec(in, &t);
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	ASSERT_EQ(52 + len, outlen);
	EXPECT_EQ(0x60000000, get32(out));
	EXPECT_EQ(12 + len, get16(out + 4));
	EXPECT_EQ(-1, first_diff(out + 40, dopt[1], 8));
	EXPECT_EQ(0x00000800, get32(out + 48));
	/* No limit: the tunnel's protocol next; flow label 0xfffff whole. */
	t.t = ipip;
	t.lim = -1;
	t.label = 0xfffff;
	rec = tun6_rec(in, &t);
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	ASSERT_EQ(40 + len, outlen);
	EXPECT_EQ(0x600fffff, get32(out));
	EXPECT_EQ(len, get16(out + 4));
	EXPECT_EQ(PROTO_IPIP, out[6]);
	EXPECT_EQ(-1, first_diff(out + 40, in, len));
	/* 6in6: next header 41. */
	len = inner6(in, 16, 3);
	rec = tun6_rec(in, &t);
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	EXPECT_EQ(PROTO_IPV6, out[6]);
	t.lim = 7;
	rec = tun6_rec(in, &t);
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	EXPECT_EQ(NH_DSTOPTS, out[6]);
	EXPECT_EQ(PROTO_IPV6, out[40]);
	EXPECT_EQ(7, out[44]);
}

TEST(outer6_digests_as_the_wire_packet_whatever_its_tclass_and_hop_limit)
{
	const struct tun *ts[] = { &ipip, &ipip, &gre, &gre_key, &gre_all };
	static const uint8_t protos[] = { PROTO_UDP, 0, PROTO_ICMP, PROTO_UDP,
					  PROTO_UDP };
	uint8_t in[256], wire[512], out[512];
	struct kbloom_xlate rec;
	uint32_t len, wlen, outlen;
	struct tun6 t;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(ts); i++)
		for (j = 0; j < ARRAY_SIZE(lims6); j++) {
			len = inner_of(in, protos[i], 40);
			memset(&t, 0, sizeof(t));
			t.t = *ts[i];
			t.label = 0x5b1c3;
			t.lim = lims6[j];
			t.tclass = 0xb8;		/* EF */
			t.hlim = 253;
			wlen = ref_outer6(wire, in, len, &t);
			rec = tun6_rec(in, &t);
			past_the_tunnel(in);
			ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out,
					    sizeof(out), &outlen));
			ASSERT_EQ(wlen, outlen);
			/* Not the same bytes ... */
			EXPECT_NE(0, memcmp(out, wire, wlen));
			/* ... but the same digest: 40 + 8 bytes. */
			EXPECT_TRUE(same_spie_key(_metadata, out, outlen, wire,
						  wlen, 48)) {
				TH_LOG("kind 0x%02x, inner %u, limit %d",
				       ts[i]->kind, protos[i], lims6[j]);
			}
		}
}

TEST(outer6_of_a_truncated_inner_capture_has_the_whole_payload_length)
{
	struct tun6 t = { .t = gre_key, .label = 0x12345, .lim = 4 };
	uint8_t in[512], out[512];
	struct kbloom_xlate rec;
	uint32_t outlen;

	EXPECT_EQ(-1, tun6_case(PROTO_UDP, 200, 28, t, 0));
	EXPECT_EQ(-1, tun6_case(PROTO_ICMP, 200, 20, t, 0));
	t.lim = -1;
	t.t = ipip;
	EXPECT_EQ(-1, tun6_case(PROTO_UDP, 200, 28, t, 0));
	EXPECT_EQ(-1, tun6_case(0, 200, 48, t, 0));

	inner_pkt(in, PROTO_UDP, 200);
	t.t = gre_key;
	t.lim = 4;
	rec = tun6_rec(in, &t);
	ASSERT_EQ(0, outer6(in, 28, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	EXPECT_EQ(48 + 8 + 28, outlen);
	EXPECT_EQ(8 + 8 + 228, get16(out + 4));
}

TEST(outer6_is_cut_at_outmax)
{
	struct tun6 t = { .t = gre_all, .label = 1, .lim = 0 };
	uint8_t in[512], out[512];
	struct kbloom_xlate rec;
	uint32_t outlen;

	EXPECT_EQ(-1, tun6_case(PROTO_UDP, 100, 0, t, 80));
	/* The outer headers alone: IPv6, limit, GRE's 16 bytes. */
	EXPECT_EQ(-1, tun6_case(PROTO_UDP, 100, 0, t, 64));
	t.t = ipip;
	t.lim = -1;
	EXPECT_EQ(-1, tun6_case(PROTO_UDP, 100, 0, t, 40));
	EXPECT_EQ(-1, tun6_case(0, 100, 0, t, 60));
	/* The payload length stays the whole packet's. */
	inner_pkt(in, PROTO_UDP, 100);
	rec = tun6_rec(in, &t);
	ASSERT_EQ(0, outer6(in, 128, &rec, tun6_addrs, out, 50, &outlen));
	EXPECT_EQ(50, outlen);
	EXPECT_EQ(128, get16(out + 4));
}

TEST(outer6_refuses_an_outmax_short_of_its_headers)
{
	const struct tun *ts[] = { &ipip, &gre, &gre_all };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	struct tun6 t;
	uint32_t len, outlen, n;
	size_t i, j;

	len = inner_pkt(in, PROTO_UDP, 16);
	for (i = 0; i < ARRAY_SIZE(ts); i++)
		for (j = 0; j < 2; j++) {
			memset(&t, 0, sizeof(t));
			t.t = *ts[i];
			t.lim = j ? 4 : -1;
			n = head6_len(&t) + gre_len(&t.t);
			rec = tun6_rec(in, &t);
			EXPECT_EQ(-1, outer6(in, len, &rec, tun6_addrs, out,
					     n - 1, &outlen));
			ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out,
					    n, &outlen));
			EXPECT_EQ(n, outlen);
		}
}

TEST(outer_refuses_a_record_over_ipv6_without_its_addresses)
{
	const struct tun *ts[] = { &ipip, &gre, &gre_key };
	struct tun6 t = { .label = 0x5b1c3, .lim = -1 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	uint32_t len, outlen;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ts); i++) {
		len = inner_pkt(in, PROTO_UDP, 16);
		t.t = *ts[i];
		rec = tun6_rec(in, &t);
		ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out,
				    sizeof(out), &outlen));
		EXPECT_EQ(-1, outer6(in, len, &rec, NULL, out, sizeof(out),
				     &outlen));
	}
	len = inner6(in, 16, 9);
	t.t = ipip;
	rec = tun6_rec(in, &t);
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	EXPECT_EQ(-1, outer6(in, len, &rec, NULL, out, sizeof(out), &outlen));
}

TEST(outer_refuses_addresses_for_a_record_over_ipv4)
{
	const struct tun *ts[] = { &ipip, &gre, &gre_key, &vxlan };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	uint32_t len, outlen;
	size_t i;

	len = inner_pkt(in, PROTO_UDP, 16);
	for (i = 0; i < ARRAY_SIZE(ts); i++) {
		rec = tun_rec(in, ts[i]);
		ASSERT_EQ(0, outer6(in, len, &rec, NULL, out, sizeof(out),
				    &outlen));
		EXPECT_EQ(-1, outer6(in, len, &rec, tun6_addrs, out,
				     sizeof(out), &outlen));
	}
}

/*
 * ip6gre carries IPv6 too (GRE protocol 0x86DD, uapi "IPv4 or IPv6 ...
 * in IPIP or GRE"): a 6in6 record's fields with KIND GRE give GRE's
 * outer packet, protocol 47 after the limit, the inner hop limit and
 * traffic class from FIRST; with an optional word (a key) FIRST is that
 * word, and the inner packet is as captured.
 */
TEST(outer_of_ipv6_in_gre_over_ipv6_is_gre_of_protocol_86dd)
{
	struct tun6 t = { .t = ipip, .label = 7, .lim = 4 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	uint32_t len, outlen;

	len = inner6(in, 16, 9);
	rec = tun6_rec(in, &t);
	past_the_tunnel(in);
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	EXPECT_EQ(PROTO_IPV6, out[40]);
	rec.kind = KBLOOM_XLATE_GRE | KBLOOM_XLATE_OUTER6;
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	ASSERT_EQ(52 + len, outlen);
	EXPECT_EQ(12 + len, get16(out + 4));
	EXPECT_EQ(NH_DSTOPTS, out[6]);
	EXPECT_EQ(PROTO_GRE, out[40]);
	EXPECT_EQ(4, out[44]);
	EXPECT_EQ(0x000086dd, get32(out + 48));
	/* Traffic class 0x2e and hop limit 63 inside the tunnel, put back. */
	EXPECT_EQ(0x62e5abcd, get32(out + 52));
	EXPECT_EQ(63, out[59]);
	EXPECT_EQ(-1, first_diff(out + 52 + 8, in + 8, len - 8));
	rec.kind |= KBLOOM_XLATE_GRE_KEY;
	ASSERT_EQ(0, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	ASSERT_EQ(56 + len, outlen);
	EXPECT_EQ(16 + len, get16(out + 4));
	EXPECT_EQ(0x200086dd, get32(out + 48));
	EXPECT_EQ(0, memcmp(out + 52, &rec.first, 4));
	EXPECT_EQ(-1, first_diff(out + 56, in, len));
}

/*
 * The IPv6 packet @in (64 bytes of it captured) in @t over IPv6, its
 * payload length @room: the outer payload length is 65535; with one
 * byte more, refused.
 */
static void outer6_fills_65535(struct __test_metadata *_metadata,
			       uint8_t *in, const struct tun6 *t,
			       uint32_t room)
{
	struct kbloom_xlate rec;
	uint8_t out[512];
	uint32_t outlen;

	set16(in + 4, room);
	rec = tun6_rec(in, t);
	ASSERT_EQ(0, outer6(in, 64, &rec, tun6_addrs, out, sizeof(out),
			    &outlen));
	EXPECT_EQ(65535, get16(out + 4));
	set16(in + 4, room + 1);
	rec = tun6_rec(in, t);
	EXPECT_EQ(-1, outer6(in, 64, &rec, tun6_addrs, out, sizeof(out),
			     &outlen));
}

/*
 * The payload length is 16 bits: the limit's 8 bytes, GRE's and the
 * inner packet's whole length (not what was captured) make at most 65535.
 */
TEST(outer6_refuses_a_payload_length_over_65535)
{
	const struct tun *ts[] = { &ipip, &gre, &gre_all };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	struct tun6 t;
	uint32_t outlen, room;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(ts); i++)
		for (j = 0; j < 2; j++) {
			memset(&t, 0, sizeof(t));
			t.t = *ts[i];
			t.lim = j ? 255 : -1;
			room = 65535 - (head6_len(&t) - 40) - gre_len(&t.t);
			inner_pkt(in, PROTO_UDP, 16);
			rec = tun6_rec(in, &t);
			/* An IPv4 inner packet captured in part: 65535 ... */
			set16(in + 2, room);
			ASSERT_EQ(0, outer6(in, 28, &rec, tun6_addrs, out,
					    sizeof(out), &outlen));
			EXPECT_EQ(65535, get16(out + 4));
			EXPECT_EQ(head6_len(&t) + gre_len(&t.t) + 28, outlen);
			/* ... and one more byte (IPIP without a limit: any
			 * IPv4 packet fits).
			 */
			if (room == 65535)
				continue;
			set16(in + 2, room + 1);
			EXPECT_EQ(-1, outer6(in, 28, &rec, tun6_addrs, out,
					     sizeof(out), &outlen));
			set16(in + 2, 65535);
			EXPECT_EQ(-1, outer6(in, 28, &rec, tun6_addrs, out,
					     sizeof(out), &outlen));
		}
	/* 6in6: the inner header's 40 bytes and its payload length. */
	for (j = 0; j < 2; j++) {
		memset(&t, 0, sizeof(t));
		t.t = ipip;
		t.lim = j ? 0 : -1;
		room = 65535 - (head6_len(&t) - 40) - 40;
		inner6(in, 16, 9);
		outer6_fills_65535(_metadata, in, &t, room);
	}
}

/* ---- IPv6 in GRE (protocol 0x86DD): gre over IPv4, ip6gre over IPv6 ---- */

/*
 * The record the decapsulating router makes of the IPv6 packet @inner (as
 * inside the tunnel) arriving in GRE @t over IPv4 (uapi "IPv6 in GRE",
 * kmod/transforms.c): KIND GRE and its words' bits, BEFORE_* as for IPv4
 * in GRE (the outer addresses, IP ID, flags and offset); the inner key as
 * 6in4's; FIRST GRE's first optional word as carried when it has one,
 * else the inner hop limit (byte 0) and traffic class (byte 1).
 */
static struct kbloom_xlate gre6_rec(const uint8_t *inner, const struct tun *t)
{
	struct kbloom_xlate r = tun_rec(inner, t);

	ref_key6(inner, &r);
	if (gre_len(t) <= 4) {
		r.first = 0;
		((uint8_t *)&r.first)[0] = inner[7];
		((uint8_t *)&r.first)[1] = (uint8_t)(get16(inner) >> 4);
	}
	return r;
}

/*
 * IPv6 in GRE over IPv4: builds inner6() (@payload bytes, sequence @seq;
 * @cap captured, all when 0), the wire packet of @t around it with TOS 0
 * and TTL 64 (the function's choice: no digest covers them) and the
 * record of it, and compares pkt_tunnel_outer() of the inner packet as
 * captured past the tunnel, with @outmax bytes (all when 0), against the
 * wire packet: GRE's words after the first zero, and with a word the
 * inner hop limit and traffic class as captured (no digest covers
 * either). The first differing byte, -1 when equal, -2 when refused, -3
 * when the length differs, -4 when the digests differ.
 */
static int gre6_case(uint32_t payload, uint16_t seq, uint32_t cap,
		     struct tun t, uint32_t outmax)
{
	uint8_t in[2048], ref[2048], want[2048], out[2048];
	uint32_t len, reflen, outlen = 0;
	struct kbloom_xlate rec;

	len = inner6(in, payload, seq);
	if (cap)
		len = cap;
	t.tos = 0;
	t.ttl = 64;
	reflen = ref_outer(ref, in, len, &t);
	if (outmax && outmax < reflen)
		reflen = outmax;
	rec = gre6_rec(in, &t);
	past_the_tunnel(in);
	if (outer(in, len, &rec, out, outmax ? outmax : sizeof(out), &outlen))
		return -2;
	memcpy(want, ref, reflen);
	gre_rebuilt(want, reflen, 20, gre_len(&t), in);
	return outer_is_wire(out, outlen, ref, want, reflen, 0);
}

/* GRE without a word, with each of RFC 2890's words, with all three. */
static const struct tun *const gres[] = { &gre, &gre_key, &gre_csum,
					  &gre_seq, &gre_all };

/*
 * A gre device carrying IPv6 (RFC 7676: GRE protocol 0x86DD): the outer
 * packet is the wire's (its GRE checksum summed over GRE's header and the
 * inner packet, RFC 2784), with echoes of several lengths (an odd one
 * for the checksum) and sequence numbers (keys).
 */
TEST(ipv6_in_gre_over_ipv4_outer_is_the_wire_packet_with_and_without_words)
{
	static const uint32_t payloads[] = { 0, 24, 101 };
	size_t i, j;
	int r;

	for (i = 0; i < ARRAY_SIZE(gres); i++)
		for (j = 0; j < ARRAY_SIZE(payloads); j++) {
			r = gre6_case(payloads[j], (uint16_t)(7 * j + i), 0,
				      *gres[i], 0);
			EXPECT_EQ(-1, r) {
				TH_LOG("kind 0x%02x, payload %u",
				       gres[i]->kind, payloads[j]);
			}
		}
}

/*
 * A capture cut short past the 8 bytes the key needs, an @outmax cut
 * past the inner header or at GRE's end: the outer packet's total length
 * the whole packet's, its bytes the wire's as far as they go.
 */
TEST(ipv6_in_gre_over_ipv4_outer_of_a_cut_capture_has_the_whole_length)
{
	uint8_t in[512], out[512];
	struct kbloom_xlate rec;
	uint32_t outlen;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gres); i++) {
		EXPECT_EQ(-1, gre6_case(200, 3, 48, *gres[i], 0));
		EXPECT_EQ(-1, gre6_case(200, 3, 0, *gres[i],
					20 + gre_len(gres[i]) + 8));
		EXPECT_EQ(-1, gre6_case(200, 3, 0, *gres[i],
					20 + gre_len(gres[i])));
	}
	inner6(in, 200, 3);
	rec = gre6_rec(in, &gre_all);
	past_the_tunnel(in);
	ASSERT_EQ(0, outer(in, 48, &rec, out, sizeof(out), &outlen));
	EXPECT_EQ(36 + 48, outlen);
	EXPECT_EQ(36 + 248, get16(out + 2));
}

/*
 * ip6gre carrying IPv6: the wire packet with every flow label and limit
 * (none, 0, 4, 255) of the IPv6 section, with and without GRE's words,
 * and of a capture cut short.
 */
TEST(ip6gre_ipv6_outer_is_the_wire_packet_with_and_without_words)
{
	struct tun6 t = { .t = gre_all, .label = 0x5b1c3, .lim = 4 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gres); i++)
		EXPECT_TRUE(tun6_all(_metadata, gres[i], protos6, 1));
	EXPECT_EQ(-1, tun6_case(0, 200, 48, t, 0));
	t.t = gre;
	t.lim = -1;
	EXPECT_EQ(-1, tun6_case(0, 200, 48, t, 0));
	EXPECT_EQ(-1, tun6_case(0, 200, 0, t, 40 + 4 + 8));
}

/*
 * Why FIRST holds the inner hop limit and traffic class only when GRE
 * has no optional word. Over IPv4, and over IPv6 without a limit, the
 * outer digest's 8 bytes past the header are GRE's 4 and the inner
 * packet's first 4: its traffic class, 0x2e inside the tunnel, 0 as
 * captured past it. Without a word the rebuilt packet carries 0x2e (and
 * hop limit 63) and digests as the wire; the captured bytes there would
 * not. With a word (a key, a checksum) the digest covers GRE's header
 * and that word, no inner byte: FIRST is the word, the inner packet as
 * captured, the digest the wire's all the same.
 */
TEST(ipv6_in_gre_gets_its_inner_tclass_back_only_without_a_gre_word)
{
	const struct tun *ts[] = { &gre, &gre_key, &gre_csum };
	uint8_t in[256], cap[256], wire[512], out[512];
	struct kb_digest dw, dout, dcap;
	uint32_t len, wlen, outlen, g, h;
	struct kbloom_xlate rec;
	struct tun6 t6;
	struct tun t;
	size_t c, v;

	/* Over IPv4 (v 0: the digest 20 + 8 bytes), over IPv6 (40 + 8). */
	for (c = 0; c < 2 * ARRAY_SIZE(ts); c++) {
		v = c / ARRAY_SIZE(ts);
		t = *ts[c % ARRAY_SIZE(ts)];
		t.ttl = 64;
		g = gre_len(&t);
		h = v ? 40 : 20;
		memset(&t6, 0, sizeof(t6));
		t6.t = t;
		t6.label = 0x5b1c3;
		t6.lim = -1;
		t6.hlim = 64;
		len = inner6(in, 24, 5);
		ASSERT_EQ(0x2e, get16(in) >> 4 & 0xff);
		ASSERT_EQ(63, in[7]);
		wlen = v ? ref_outer6(wire, in, len, &t6) :
			   ref_outer(wire, in, len, &t);
		rec = v ? tun6_rec(in, &t6) : gre6_rec(in, &t);
		memcpy(cap, in, len);
		past_the_tunnel(cap);
		ASSERT_EQ(0, pkt_tunnel_outer(cap, len, &rec,
					      v ? tun6_addrs : NULL, NULL,
					      out, sizeof(out), &outlen));
		ASSERT_EQ(wlen, outlen);
		/* RFC 2784's checksum: GRE's header and the payload. */
		if (t.kind & KBLOOM_XLATE_GRE_CSUM)
			EXPECT_EQ(0xffff, ref_sum(0, wire + h, wlen - h));
		ASSERT_EQ(KBLOOM_SKIP_NONE,
			  kb_digest(wire, wlen, KBLOOM_DIGEST_SPIE, &dw));
		ASSERT_EQ(KBLOOM_SKIP_NONE,
			  kb_digest(out, outlen, KBLOOM_DIGEST_SPIE, &dout));
		ASSERT_EQ(h + 8, dw.len);
		EXPECT_EQ(-1, first_diff(dout.key, dw.key, h + 8)) {
			TH_LOG("over IPv%s, kind 0x%02x", v ? "6" : "4",
			       t.kind);
		}
		if (g == 4) {
			/* 0x2e and 63 back: the inner header the wire's. */
			EXPECT_EQ(0x62e5abcd, get32(out + h + 4));
			EXPECT_EQ(63, out[h + 4 + 7]);
			EXPECT_EQ(-1, first_diff(out + h + 4, in, len));
			/* The captured traffic class there: another digest. */
			memcpy(out + h + 4, cap, len);
			ASSERT_EQ(KBLOOM_SKIP_NONE,
				  kb_digest(out, outlen, KBLOOM_DIGEST_SPIE,
					    &dcap));
			EXPECT_NE(-1, first_diff(dcap.key, dw.key, h + 8));
		} else {
			/* The word as carried; the inner packet as captured. */
			EXPECT_EQ(-1, first_diff(out + h, wire + h, 8));
			EXPECT_EQ(-1, first_diff(out + h + g, cap, len));
			EXPECT_NE(-1, first_diff(out + h + g, wire + h + g,
						 len));
		}
	}
}

/*
 * A GRE record of an IPv6 packet is refused for another packet (another
 * echo: another key), for an IPv4 packet, with outer addresses over IPv4
 * or without them over IPv6, and with an @outmax short of its headers.
 */
TEST(outer_refuses_ipv6_in_gre_of_another_packet_or_without_its_addresses)
{
	struct tun6 t6 = { .t = gre_key, .label = 0x5b1c3, .lim = 4 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, r6;
	uint32_t len, outlen;

	len = inner6(in, 24, 9);
	rec = gre6_rec(in, &gre_key);
	r6 = tun6_rec(in, &t6);
	ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
	ASSERT_EQ(0, outer6(in, len, &r6, tun6_addrs, out, sizeof(out),
			    &outlen));
	EXPECT_EQ(-1, outer6(in, len, &rec, tun6_addrs, out, sizeof(out),
			     &outlen));
	EXPECT_EQ(-1, outer6(in, len, &r6, NULL, out, sizeof(out), &outlen));
	EXPECT_EQ(-1, outer(in, len, &rec, out, 20 + 8 - 1, &outlen));
	ASSERT_EQ(0, outer(in, len, &rec, out, 20 + 8, &outlen));
	EXPECT_EQ(-1, outer6(in, len, &r6, tun6_addrs, out, 48 + 8 - 1,
			     &outlen));
	len = inner6(in, 24, 10);
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
	EXPECT_EQ(-1, outer6(in, len, &r6, tun6_addrs, out, sizeof(out),
			     &outlen));
	len = inner_pkt(in, PROTO_ICMP, 56);
	EXPECT_EQ(-1, outer(in, len, &rec, out, sizeof(out), &outlen));
	EXPECT_EQ(-1, outer6(in, len, &r6, tun6_addrs, out, sizeof(out),
			     &outlen));
}

/*
 * The total and payload lengths are 16 bits: GRE's and the inner IPv6
 * packet's whole length (40 and its payload length) make at most 65535
 * over IPv4, and with the limit's 8 bytes over IPv6.
 */
TEST(outer_of_ipv6_in_gre_refuses_a_length_over_65535)
{
	struct tun6 t6 = { .t = gre_key, .lim = 0 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec;
	uint32_t outlen, room;

	/* A key (a checksum would sum more than the 64 bytes here). */
	room = 65535 - 20 - 8 - 40;
	inner6(in, 16, 9);
	set16(in + 4, room);
	rec = gre6_rec(in, &gre_key);
	ASSERT_EQ(0, outer(in, 64, &rec, out, sizeof(out), &outlen));
	EXPECT_EQ(65535, get16(out + 2));
	EXPECT_EQ(28 + 64, outlen);
	set16(in + 4, room + 1);
	rec = gre6_rec(in, &gre_key);
	EXPECT_EQ(-1, outer(in, 64, &rec, out, sizeof(out), &outlen));

	outer6_fills_65535(_metadata, in, &t6, 65535 - 8 - 8 - 40);
}

/* ---- VXLAN and GENEVE over IPv6: the UDP checksum in a more record ---- */

/*
 * A VXLAN or GENEVE packet over IPv6 as the sending kernel chose it: @t6
 * (.t.kind KBLOOM_XLATE_VXLAN or _GENEVE, the UDP ports .t.sport and
 * .t.dport, the VNI .t.vni; the flow label, traffic class and hop limit;
 * never an encapsulation limit, .lim -1), the inner frame's Ethernet
 * addresses (real, else 0) and a UDP checksum (summed from scratch, else
 * 0: RFC 6935's zero-checksum mode, udp6zerocsumtx).
 */
struct udp6 {
	struct tun6 t6;
	int macs;
	int csum;
};

static int udp6_geneve(const struct udp6 *u)
{
	return (u->t6.t.kind & KBLOOM_XLATE_GENEVE) == KBLOOM_XLATE_GENEVE;
}

/*
 * The wire packet of @u around the whole inner packet @in (@inlen bytes):
 * the IPv6 header (RFC 8200 3: version 6, traffic class, flow label,
 * payload length, next header 17, hop limit, tun6_addrs' source and
 * destination); UDP (RFC 768) from @u's source port to its destination
 * port, its length, its checksum 0 or summed over the IPv6 pseudo-header
 * (RFC 8200 8.1: source, destination, the upper-layer length as 32 bits,
 * three zero bytes, next header 17) and the whole datagram, 0 sent as
 * 0xffff; VXLAN's header (RFC 7348 5: flags 0x08, the I flag; reserved;
 * the VNI; reserved) or GENEVE's without options (RFC 8926 3.4: version
 * and option length 0, O and C clear, protocol 0x6558, the VNI,
 * reserved); an Ethernet header of type IPv4 (0x0800), or IPv6 (0x86DD)
 * for an IPv6 @in; the inner packet. Its length.
 */
static uint32_t udp6_ref(uint8_t *o, const uint8_t *in, uint32_t inlen,
			 const struct udp6 *u)
{
	const struct tun6 *t = &u->t6;
	uint32_t udplen = GENEVE_ENCAP + inlen;
	uint8_t *uh = o + 40, *th = uh + 8, *eth = th + 8;

	memset(o, 0, 40 + udplen);
	tun_ip6(o, t, udplen, PROTO_UDP);
	set16(uh, t->t.sport);
	set16(uh + 2, t->t.dport);
	set16(uh + 4, udplen);
	if (udp6_geneve(u))
		set16(th + 2, ETH_P_TEB);
	else
		th[0] = 0x08;
	set32(th + 4, t->t.vni << 8);
	if (u->macs)
		memcpy(eth, geneve_macs, 12);
	set16(eth + 12, in[0] >> 4 == 6 ? 0x86dd : 0x0800);
	memcpy(eth + 14, in, inlen);
	if (u->csum)
		udp_csum(o, uh, udplen);
	return 40 + udplen;
}

/*
 * The records the decapsulating router makes of the wire packet @wire of
 * @u around @in, as kb_xlate_of_udp_tunnel() (kmod/transforms.c) reads
 * it: the tunnel record as over IPv6 (tun6_rec(): the inner packet's key,
 * the outer addresses' folds, the flow label) with KIND VXLAN or GENEVE
 * and OUTER6, FIRST the UDP ports as carried; when the UDP checksum is
 * not 0, KIND VXLAN_CSUM too and in *@more the more record the engine's
 * kb_xlate_more() makes of it with the checksum as carried, and 0.
 * Whether there is a more record.
 */
static bool udp6_rec(const uint8_t *in, const uint8_t *wire,
		     const struct udp6 *u, struct kbloom_xlate *rec,
		     struct kbloom_xlate *more)
{
	uint16_t sum;

	*rec = tun6_rec(in, &u->t6);
	memcpy(&rec->first, wire + 40, 4);
	memcpy(&sum, wire + 46, 2);
	memset(more, 0, sizeof(*more));
	if (!sum)
		return false;
	rec->kind |= KBLOOM_XLATE_VXLAN_CSUM;
	kb_xlate_more(rec, sum, 0, more);
	return true;
}

/* udp6_rec() of @u's wire packet around @in (@len bytes), built here. */
static bool udp6_recs_of(const uint8_t *in, uint32_t len, const struct udp6 *u,
			 struct kbloom_xlate *rec, struct kbloom_xlate *more)
{
	uint8_t wire[2048];

	udp6_ref(wire, in, len, u);
	return udp6_rec(in, wire, u, rec, more);
}

/*
 * The inner packet (@proto, @payload bytes) in @u's wire packet; of its
 * first @cap bytes (all when 0), with the records made of the wire
 * packet, pkt_tunnel_outer() into @outmax bytes (all when 0) must give
 * the wire packet as rebuilt: what no record keeps as the uapi says it
 * comes back (traffic class 0 and hop limit 64, which a digest zeroes;
 * past the UDP header, which is all a digest covers, the VNI and the
 * Ethernet addresses 0), the UDP checksum as carried (summed over the
 * real ones); and digest (SPIE: the IPv6 header and the UDP header) as
 * the wire packet does. -1 when it does; the first differing byte; -2
 * when refused, -3 a wrong length, -4 the digests differ.
 */
static int udp6_case(uint8_t proto, uint32_t payload, uint32_t cap,
		     const struct udp6 *u, uint32_t outmax)
{
	uint8_t in[2048], wire[2048], want[2048], out[2048];
	uint32_t len, wantlen, outlen = 0;
	struct kbloom_xlate rec, more;
	struct udp6 z = *u;
	bool has;

	len = inner_pkt(in, proto, payload);
	udp6_ref(wire, in, len, u);
	z.t6.t.vni = 0;
	z.macs = 0;
	z.t6.tclass = 0;
	z.t6.hlim = 64;
	z.csum = 0;
	udp6_ref(want, in, len, &z);
	set16(want + 46, get16(wire + 46));
	has = udp6_rec(in, wire, u, &rec, &more);
	if (cap)
		len = cap;
	wantlen = 40 + GENEVE_ENCAP + len;
	if (outmax && outmax < wantlen)
		wantlen = outmax;
	if (outer6m(in, len, &rec, tun6_addrs, has ? &more : NULL, out,
		    outmax ? outmax : sizeof(out), &outlen))
		return -2;
	return outer_is_wire(out, outlen, wire, want, wantlen, 48);
}

/*
 * As Linux's vxlan and geneve over IPv6 send: a hashed source port to
 * the IANA port, a flow label (set, or inherited), a UDP checksum (the
 * default over IPv6, udp6zerocsumtx off); a VNI, the inner frame's
 * addresses, a traffic class and hop limit the rebuild cannot know.
 */
static const struct udp6 vxlan6 = {
	.t6 = { .t = { .kind = KBLOOM_XLATE_VXLAN, .sport = 51234,
		       .dport = 4789, .vni = 0xabcdef },
		.label = 0x5b1c3, .lim = -1, .tclass = 0xb8, .hlim = 253 },
	.macs = 1, .csum = 1,
};
static const struct udp6 geneve6 = {
	.t6 = { .t = { .kind = KBLOOM_XLATE_GENEVE, .sport = 49877,
		       .dport = GENEVE_PORT, .vni = 0x10203 },
		.label = 0x5b1c3, .lim = -1, .tclass = 0x28, .hlim = 30 },
	.macs = 1, .csum = 1,
};

/*
 * @u with every flow label of labels6[], inner ICMP and UDP packets of
 * 8, 56 and 101 (odd) payload bytes; whether all are the wire's.
 */
static bool udp6_all(struct __test_metadata *_metadata, struct udp6 u)
{
	static const uint32_t payloads[] = { 8, 56, 101 };
	bool all = true;
	size_t l, p, i;
	int r;

	for (l = 0; l < ARRAY_SIZE(labels6); l++)
		for (p = 0; p < ARRAY_SIZE(protos4); p++)
			for (i = 0; i < ARRAY_SIZE(payloads); i++) {
				u.t6.label = labels6[l];
				r = udp6_case(protos4[p], payloads[i], 0, &u, 0);
				EXPECT_EQ(-1, r) {
					TH_LOG("kind 0x%02x, csum %d, inner %u, payload %u, label 0x%05x",
					       u.t6.t.kind, u.csum, protos4[p],
					       payloads[i], u.t6.label);
				}
				all = all && r == -1;
			}
	return all;
}

TEST(vxlan_over_ipv6_outer_is_the_wire_packet_with_its_udp_checksum)
{
	struct udp6 u = vxlan6;

	EXPECT_TRUE(udp6_all(_metadata, u));
	u.t6.t.sport = 65535;
	u.t6.t.dport = 8472;		/* Linux's old default port */
	u.t6.t.vni = 1;
	EXPECT_TRUE(udp6_all(_metadata, u));
}

TEST(geneve_over_ipv6_outer_is_the_wire_packet_with_its_udp_checksum)
{
	struct udp6 u = geneve6;

	EXPECT_TRUE(udp6_all(_metadata, u));
	u.t6.t.sport = 1;
	u.t6.t.vni = 0xffffff;
	u.macs = 0;
	EXPECT_TRUE(udp6_all(_metadata, u));
}

/*
 * @u sending no UDP checksum (@u's csum 0: RFC 6935, udp6zerocsumtx)
 * around @in (@len bytes): the wire packet carries 0; its tunnel record
 * (in *@rec) has no VXLAN_CSUM and no more record; and the outer packet
 * of @in as captured past the tunnel (past_the_tunnel(), done to @in
 * here) is as long as the wire packet and carries 0 too.
 */
static void udp6_zero_csum(struct __test_metadata *_metadata,
			   const struct udp6 *u, uint8_t *in, uint32_t len,
			   struct kbloom_xlate *rec)
{
	uint8_t wire[512], out[512];
	struct kbloom_xlate more;
	uint32_t wlen, outlen;

	wlen = udp6_ref(wire, in, len, u);
	ASSERT_EQ(0, get16(wire + 46));
	EXPECT_FALSE(udp6_rec(in, wire, u, rec, &more));
	EXPECT_EQ(u->t6.t.kind | KBLOOM_XLATE_OUTER6, rec->kind);
	EXPECT_FALSE(kb_xlate_has_more(rec->kind));
	past_the_tunnel(in);
	ASSERT_EQ(0, outer6m(in, len, rec, tun6_addrs, NULL, out, sizeof(out),
			     &outlen));
	ASSERT_EQ(wlen, outlen);
	EXPECT_EQ(0, get16(out + 46));
}

/*
 * RFC 6935: a tunnel told to send no checksum over IPv6 (udp6zerocsumtx)
 * sends 0: KIND without VXLAN_CSUM, no more record, and the rebuilt
 * packet carries 0 as the wire packet did.
 */
TEST(vxlan_and_geneve_over_ipv6_without_a_checksum_have_no_more_record)
{
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	struct kbloom_xlate rec;
	uint8_t in[256];
	struct udp6 u;
	uint32_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(us); i++) {
		u = *us[i];
		u.csum = 0;
		len = inner_pkt(in, PROTO_UDP, 40);
		udp6_zero_csum(_metadata, &u, in, len, &rec);
		EXPECT_TRUE(udp6_all(_metadata, u));
	}
}

/*
 * The fields one by one, flow label 0xfffff (all 20 bits): the IPv6
 * header as RFC 8200 places it, UDP's with the checksum as carried (the
 * rebuilt packet's bytes do not sum to it: it covers the VNI and the
 * addresses, not kept), VXLAN's or GENEVE's header with VNI 0, Ethernet
 * with zero addresses, the inner packet. Not the wire packet's bytes,
 * but its digest.
 */
TEST(vxlan6_and_geneve6_outer_fields_are_where_the_rfcs_put_them)
{
	static const uint8_t hdr[2][8] = {
		{ 0x08, 0, 0, 0, 0, 0, 0, 0 },		/* VXLAN */
		{ 0, 0, 0x65, 0x58, 0, 0, 0, 0 },	/* GENEVE */
	};
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[256], wire[512], out[512];
	struct kbloom_xlate rec, more;
	uint32_t len, wlen, outlen, k;
	struct udp6 u;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(us); i++) {
		u = *us[i];
		u.t6.label = 0xfffff;
		len = inner_pkt(in, PROTO_UDP, 33);
		wlen = udp6_ref(wire, in, len, &u);
		ASSERT_TRUE(udp_csum_ok(wire));
		ASSERT_TRUE(udp6_rec(in, wire, &u, &rec, &more));
		ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, &more, out,
				     sizeof(out), &outlen));
		ASSERT_EQ(40 + 8 + 8 + 14 + len, outlen);
		ASSERT_EQ(wlen, outlen);
		EXPECT_EQ(0x600fffff, get32(out));
		EXPECT_EQ(30 + len, get16(out + 4));
		EXPECT_EQ(PROTO_UDP, out[6]);
		EXPECT_EQ(64, out[7]);
		EXPECT_EQ(0, memcmp(out + 8, tun6_addrs, 32));
		EXPECT_EQ(u.t6.t.sport, get16(out + 40));
		EXPECT_EQ(u.t6.t.dport, get16(out + 42));
		EXPECT_EQ(30 + len, get16(out + 44));
		EXPECT_EQ(get16(wire + 46), get16(out + 46));
		EXPECT_FALSE(udp_csum_ok(out));
		EXPECT_EQ(-1, first_diff(out + 48, hdr[i], 8));
		for (k = 56; k < 68; k++)
			EXPECT_EQ(0, out[k]);
		EXPECT_EQ(0x0800, get16(out + 68));
		EXPECT_EQ(-1, first_diff(out + 70, in, len));

		EXPECT_NE(0, memcmp(out, wire, wlen));
		EXPECT_TRUE(same_spie_key(_metadata, out, outlen, wire, wlen,
					  48));
	}
}

/*
 * A capture cut short: the payload and UDP lengths and the checksum are
 * the whole packet's; cut at @outmax: the outer headers alone (70 bytes),
 * 8 bytes more; one byte short of the headers is refused.
 */
TEST(vxlan6_outer_of_a_cut_capture_has_the_whole_lengths_and_checksum)
{
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[512], wire[1024], out[1024];
	struct kbloom_xlate rec, more;
	uint32_t outlen;
	struct udp6 u;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(us); i++) {
		u = *us[i];
		EXPECT_EQ(-1, udp6_case(PROTO_UDP, 200, 28, &u, 0));
		EXPECT_EQ(-1, udp6_case(PROTO_ICMP, 200, 20, &u, 0));
		EXPECT_EQ(-1, udp6_case(PROTO_UDP, 101, 0, &u, 70));
		EXPECT_EQ(-1, udp6_case(PROTO_ICMP, 101, 0, &u, 78));
		u.csum = 0;
		EXPECT_EQ(-1, udp6_case(PROTO_UDP, 200, 28, &u, 0));
		EXPECT_EQ(-1, udp6_case(PROTO_UDP, 101, 0, &u, 70));

		u = *us[i];
		inner_pkt(in, PROTO_UDP, 200);
		udp6_ref(wire, in, 228, &u);
		ASSERT_TRUE(udp6_rec(in, wire, &u, &rec, &more));
		ASSERT_EQ(0, outer6m(in, 28, &rec, tun6_addrs, &more, out,
				     sizeof(out), &outlen));
		EXPECT_EQ(70 + 28, outlen);
		EXPECT_EQ(30 + 228, get16(out + 4));
		EXPECT_EQ(30 + 228, get16(out + 44));
		EXPECT_EQ(get16(wire + 46), get16(out + 46));
		EXPECT_EQ(-1, outer6m(in, 228, &rec, tun6_addrs, &more, out,
				      69, &outlen));
		ASSERT_EQ(0, outer6m(in, 228, &rec, tun6_addrs, &more, out,
				     70, &outlen));
		EXPECT_EQ(70, outlen);
	}
}

/*
 * A checksum summing to 0 is sent as 0xffff (RFC 768): the VNI (no
 * digest covers it) that makes it so, its more record holding 0xffff,
 * rebuilt as 0xffff; neither 0 (no checksum) nor lost.
 */
TEST(vxlan6_udp_checksum_carried_as_ffff_is_rebuilt_as_ffff)
{
	uint8_t in[256], wire[512], out[512];
	struct kbloom_xlate rec, more;
	struct udp6 u = vxlan6;
	uint32_t len, outlen;

	len = inner_pkt(in, PROTO_UDP, 64);
	for (u.t6.t.vni = 0; u.t6.t.vni < 0x10000; u.t6.t.vni++) {
		udp6_ref(wire, in, len, &u);
		if (get16(wire + 46) == 0xffff)
			break;
	}
	ASSERT_GT(0x10000, u.t6.t.vni);
	ASSERT_TRUE(udp_csum_ok(wire));
	ASSERT_TRUE(udp6_rec(in, wire, &u, &rec, &more));
	EXPECT_EQ(0xffff, ntohs(more.before_sport));
	ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, &more, out,
			     sizeof(out), &outlen));
	EXPECT_EQ(0xffff, get16(out + 46));
	EXPECT_EQ(-1, udp6_case(PROTO_UDP, 64, 0, &u, 0));
}

/* With a checksum the record alone is not the outer packet: refused. */
TEST(outer_refuses_vxlan6_with_a_checksum_without_its_more_record)
{
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more;
	uint32_t len, outlen;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(us); i++) {
		len = inner_pkt(in, PROTO_ICMP, 24);
		ASSERT_TRUE(udp6_recs_of(in, len, us[i], &rec, &more));
		EXPECT_TRUE(kb_xlate_has_more(rec.kind));
		ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, &more, out,
				     sizeof(out), &outlen));
		EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, NULL, out,
				      sizeof(out), &outlen));
	}
}

/*
 * Only VXLAN and GENEVE over IPv6 with a checksum (and GENEVE with
 * options, below) have a more record:
 * one given for another tunnel record (VXLAN over IPv6 without a
 * checksum, VXLAN over IPv4 with one, IPIP and GRE over IPv6 and IPv4)
 * is refused, even when made of that record.
 */
TEST(outer_refuses_a_more_record_for_a_tunnel_record_without_one)
{
	const struct tun *ts[] = { &ipip, &gre, &gre_key };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more, m;
	struct tun6 t6 = { .label = 0x5b1c3, .lim = -1 };
	struct udp6 u = vxlan6;
	struct tun t = vxlan;
	uint32_t len, outlen;
	size_t i;

	len = inner_pkt(in, PROTO_UDP, 16);
	u.csum = 0;
	ASSERT_FALSE(udp6_recs_of(in, len, &u, &rec, &more));
	kb_xlate_more(&rec, htons(0x1f2e), 0, &m);
	ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, NULL, out,
			     sizeof(out), &outlen));
	EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, &m, out,
			      sizeof(out), &outlen));

	t.ucsum = 0x7a3e;		/* over IPv4: in the record itself */
	rec = tun_rec(in, &t);
	ASSERT_TRUE(rec.kind & KBLOOM_XLATE_VXLAN_CSUM);
	kb_xlate_more(&rec, htons(0x7a3e), 0, &m);
	ASSERT_EQ(0, outer6m(in, len, &rec, NULL, NULL, out, sizeof(out),
			     &outlen));
	EXPECT_EQ(-1, outer6m(in, len, &rec, NULL, &m, out, sizeof(out),
			      &outlen));

	for (i = 0; i < ARRAY_SIZE(ts); i++) {
		t6.t = *ts[i];
		rec = tun6_rec(in, &t6);
		kb_xlate_more(&rec, htons(0x1f2e), 0, &m);
		ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, NULL, out,
				     sizeof(out), &outlen));
		EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, &m, out,
				      sizeof(out), &outlen));
		rec = tun_rec(in, ts[i]);
		kb_xlate_more(&rec, htons(0x1f2e), 0, &m);
		EXPECT_EQ(-1, outer6m(in, len, &rec, NULL, &m, out,
				      sizeof(out), &outlen));
	}
}

/*
 * A more record is its tunnel record's by KIND MORE and the same
 * BEFORE_SRC, BEFORE_DST and FIRST (uapi: "a reader pairs them by
 * those"): any other is refused. Any checksum it holds is the one
 * written: it is not summed from the rebuilt bytes.
 */
TEST(outer_refuses_a_more_record_not_of_its_tunnel_record)
{
	static const uint8_t kinds[] = {
		0, KBLOOM_XLATE_OPAQUE, KBLOOM_XLATE_ADDR6,
		KBLOOM_XLATE_MORE | KBLOOM_XLATE_OUTER6, KBLOOM_XLATE_DNAT,
		KBLOOM_XLATE_VXLAN | KBLOOM_XLATE_VXLAN_CSUM |
			KBLOOM_XLATE_OUTER6,
	};
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more, m;
	struct udp6 u = vxlan6;
	uint32_t len, outlen;
	size_t i;

	len = inner_pkt(in, PROTO_UDP, 40);
	ASSERT_TRUE(udp6_recs_of(in, len, &u, &rec, &more));
	ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, &more, out,
			     sizeof(out), &outlen));
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		m = more;
		m.kind = kinds[i];
		EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, &m, out,
				      sizeof(out), &outlen)) {
			TH_LOG("kind 0x%02x", kinds[i]);
		}
	}
	m = more;
	m.before_src ^= htonl(1);
	EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, &m, out,
			      sizeof(out), &outlen));
	m = more;
	m.before_dst ^= htonl(0x100);
	EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, &m, out,
			      sizeof(out), &outlen));
	m = more;
	((uint8_t *)&m.first)[1] ^= 1;		/* another source port */
	EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, &m, out,
			      sizeof(out), &outlen));
	m = more;
	((uint8_t *)&m.first)[2] ^= 0x80;	/* another destination port */
	EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, &m, out,
			      sizeof(out), &outlen));
	/* Another checksum of this tunnel record: written as it holds it. */
	kb_xlate_more(&rec, htons(0x1234), 0, &m);
	ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, &m, out, sizeof(out),
			     &outlen));
	EXPECT_EQ(0x1234, get16(out + 46));
}

TEST(outer_refuses_vxlan6_and_geneve6_without_their_outer_addresses)
{
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more;
	uint32_t len, outlen;
	struct udp6 u;
	size_t i, c;

	for (i = 0; i < ARRAY_SIZE(us); i++)
		for (c = 0; c < 2; c++) {
			u = *us[i];
			u.csum = (int)c;
			len = inner_pkt(in, PROTO_UDP, 16);
			udp6_recs_of(in, len, &u, &rec, &more);
			ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs,
					     c ? &more : NULL, out,
					     sizeof(out), &outlen));
			EXPECT_EQ(-1, outer6m(in, len, &rec, NULL,
					      c ? &more : NULL, out,
					      sizeof(out), &outlen));
			EXPECT_EQ(-1, outer6m(in, len, &rec, NULL,
					      c ? NULL : &more, out,
					      sizeof(out), &outlen));
		}
}

/*
 * VXLAN and GENEVE over IPv6 are recorded with no extension header
 * (uapi: "never an encapsulation limit"): a record whose word has one
 * (bit 31) is none the module makes.
 */
TEST(outer_refuses_vxlan_and_geneve_over_ipv6_with_an_encapsulation_limit)
{
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more, r;
	uint32_t len, outlen;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(us); i++) {
		len = inner_pkt(in, PROTO_UDP, 16);
		ASSERT_TRUE(udp6_recs_of(in, len, us[i], &rec, &more));
		ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, &more, out,
				     sizeof(out), &outlen));
		r = rec;			/* limit 4 */
		r.before_sport |= htons(0x8000 | 4 << 4);
		EXPECT_EQ(-1, outer6m(in, len, &r, tun6_addrs, &more, out,
				      sizeof(out), &outlen));
		r.before_sport = htons(0x8000 | (ntohs(rec.before_sport) & 0xf));
		EXPECT_EQ(-1, outer6m(in, len, &r, tun6_addrs, &more, out,
				      sizeof(out), &outlen));
	}
}

/*
 * VXLAN and GENEVE records of kinds the module never makes: DF without a
 * checksum (over IPv4 the flags are then in BEFORE_DPORT), DF over IPv6
 * (BEFORE_DPORT holds the flow label; no header flag is kept), with or
 * without a checksum. Over IPv6 GENEVE alone and with a checksum (and
 * its more record) are rebuilt, as VXLAN's are.
 */
TEST(outer_refuses_vxlan_and_geneve_records_the_module_never_makes)
{
	static const uint8_t kinds[] = {
		KBLOOM_XLATE_VXLAN_DF,
		KBLOOM_XLATE_VXLAN_DF | KBLOOM_XLATE_OUTER6,
		KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_VXLAN_DF |
			KBLOOM_XLATE_OUTER6,
	};
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more, r;
	uint32_t len, outlen;
	size_t i, j, c;

	len = inner_pkt(in, PROTO_UDP, 16);
	for (i = 0; i < ARRAY_SIZE(us); i++) {
		ASSERT_TRUE(udp6_recs_of(in, len, us[i], &rec, &more));
		/* The records as made are rebuilt, with and without CSUM ... */
		ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, &more, out,
				     sizeof(out), &outlen));
		r = rec;
		r.kind &= ~KBLOOM_XLATE_VXLAN_CSUM;
		ASSERT_EQ(0, outer6m(in, len, &r, tun6_addrs, NULL, out,
				     sizeof(out), &outlen));
		EXPECT_EQ(0, get16(out + 46));
		/* ... the same fields with another KIND are not. */
		for (j = 0; j < ARRAY_SIZE(kinds); j++)
			for (c = 0; c < 4; c++) {
				r.kind = us[i]->t6.t.kind | kinds[j];
				EXPECT_EQ(-1, outer6m(in, len, &r,
						      c & 1 ? tun6_addrs : NULL,
						      c & 2 ? &more : NULL, out,
						      sizeof(out), &outlen)) {
					TH_LOG("kind 0x%02x, addresses %zu, more %zu",
					       r.kind, c & 1, c >> 1);
				}
			}
	}
}

/*
 * The payload length is 16 bits, and so is UDP's: VXLAN's 30 bytes and
 * the inner packet's whole length make at most 65535.
 */
TEST(vxlan6_outer_refuses_a_payload_length_over_65535)
{
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more;
	uint32_t len, outlen;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(us); i++) {
		len = inner_pkt(in, PROTO_UDP, 16);
		ASSERT_TRUE(udp6_recs_of(in, len, us[i], &rec, &more));
		/* An inner packet captured in part: 65535 in all ... */
		set16(in + 2, 65535 - 30);
		ASSERT_EQ(0, outer6m(in, 28, &rec, tun6_addrs, &more, out,
				     sizeof(out), &outlen));
		EXPECT_EQ(65535, get16(out + 4));
		EXPECT_EQ(65535, get16(out + 44));
		EXPECT_EQ(70 + 28, outlen);
		/* ... and one more byte. */
		set16(in + 2, 65535 - 30 + 1);
		EXPECT_EQ(-1, outer6m(in, 28, &rec, tun6_addrs, &more, out,
				      sizeof(out), &outlen));
		set16(in + 2, 65535);
		EXPECT_EQ(-1, outer6m(in, 28, &rec, tun6_addrs, &more, out,
				      sizeof(out), &outlen));
	}
}

/* ---- IPv6 in VXLAN and GENEVE (Ethernet type 0x86DD) ---- */

/*
 * The IPv6 packet inside the tunnel: inner6()'s ICMPv6 echo (@proto 58,
 * sequence @seq), or for @proto 17 a UDP datagram fd09::7 > fd09::8 from
 * port 41000 + @seq to 53 with the same IPv6 header (flow label 0x5abcd,
 * traffic class 0x2e, hop limit 63) and payload bytes, its checksum
 * summed over RFC 8200 8.1's pseudo-header and the whole datagram;
 * @payload bytes after the 8-byte ICMPv6 or UDP header. Its length.
 */
static uint32_t inner6_of(uint8_t *b, uint8_t proto, uint32_t payload,
			  uint16_t seq)
{
	uint32_t len = inner6(b, payload, seq);

	if (proto != PROTO_UDP)
		return len;
	b[6] = PROTO_UDP;
	set16(b + 40, 41000u + seq);
	set16(b + 42, 53);
	set16(b + 44, 8 + payload);
	set16(b + 46, 0);
	udp_csum(b, b + 40, 8 + payload);
	return len;
}

/*
 * The wire packet of @u over IPv4 around the whole inner packet @in
 * (@inlen bytes): the IPv4 header (RFC 791: @u's TOS, IP ID, flags and
 * TTL, protocol 17, TUN_LOCAL to TUN_REMOTE, its checksum from scratch),
 * then udp6_ref()'s datagram (UDP, VXLAN's or GENEVE's header, Ethernet,
 * @in) with its checksum 0 or summed over IPv4's pseudo-header (RFC 768:
 * source, destination, zero, protocol 17, UDP length) and the whole
 * datagram, 0 sent as 0xffff. Its length.
 */
static uint32_t udp4_ref(uint8_t *o, const uint8_t *in, uint32_t inlen,
			 const struct udp6 *u)
{
	uint32_t udplen = GENEVE_ENCAP + inlen;
	uint8_t *w = malloc(40 + udplen);
	struct udp6 z = *u;

	z.csum = 0;
	udp6_ref(w, in, inlen, &z);
	tun_ip4(o, &u->t6.t, 20 + udplen, PROTO_UDP);
	memcpy(o + 20, w + 40, udplen);
	free(w);
	if (u->csum)
		udp_csum(o, o + 20, udplen);
	return 20 + udplen;
}

/* @u's wire packet over IPv4 (@v4) or IPv6 around @in (@inlen bytes). */
static uint32_t vx66_ref(uint8_t *o, const uint8_t *in, uint32_t inlen,
			 const struct udp6 *u, bool v4)
{
	return v4 ? udp4_ref(o, in, inlen, u) : udp6_ref(o, in, inlen, u);
}

/*
 * The records the decapsulating router makes of the wire packet @wire
 * (over IPv4 when @v4) around the IPv6 packet @in as inside the tunnel,
 * as kb_xlate_of_tunnel_head() (kmod/transforms.c) reads it: FAMILY 6,
 * the inner key as 6in4's (ref_key6()), KIND VXLAN or GENEVE, FIRST the
 * UDP ports as carried (not the inner hop limit and traffic class, no
 * digest of the outer packet covering them); over IPv4 BEFORE_* the
 * outer addresses, IP ID and flags and offset, and with a UDP checksum
 * KIND VXLAN_CSUM (VXLAN_DF for DF) and the checksum in BEFORE_DPORT;
 * over IPv6 udp6_rec()'s (the folds, the flow label, the checksum in the
 * more record *@more). Whether there is a more record.
 */
static bool vx66_rec(const uint8_t *in, const uint8_t *wire,
		     const struct udp6 *u, bool v4, struct kbloom_xlate *rec,
		     struct kbloom_xlate *more)
{
	if (!v4)
		return udp6_rec(in, wire, u, rec, more);
	memset(more, 0, sizeof(*more));
	memset(rec, 0, sizeof(*rec));
	ref_key6(in, rec);
	rec->state = KBLOOM_XLATE_VALID;
	rec->kind = u->t6.t.kind;
	memcpy(&rec->before_src, wire + 12, 4);
	memcpy(&rec->before_dst, wire + 16, 4);
	memcpy(&rec->before_sport, wire + 4, 2);
	memcpy(&rec->before_dport, wire + 6, 2);
	memcpy(&rec->first, wire + 20, 4);
	if (get16(wire + 26)) {
		rec->kind |= KBLOOM_XLATE_VXLAN_CSUM;
		if (get16(wire + 6) & 0x4000)
			rec->kind |= KBLOOM_XLATE_VXLAN_DF;
		memcpy(&rec->before_dport, wire + 26, 2);
	}
	return false;
}

/* vx66_rec() of @u's wire packet around @in (@len bytes), built here. */
static bool vx66_recs_of(const uint8_t *in, uint32_t len, const struct udp6 *u,
			 bool v4, struct kbloom_xlate *rec,
			 struct kbloom_xlate *more)
{
	uint8_t wire[2048];

	vx66_ref(wire, in, len, u, v4);
	return vx66_rec(in, wire, u, v4, rec, more);
}

/*
 * The wire packet @w (its outer header @h bytes: 20, IPv4; 40, IPv6) as
 * pkt_tunnel_outer() writes it where no record keeps it and no digest
 * covers it (uapi kbloom.h, pktxform.h): the outer TOS 0 and TTL 64 (the
 * header checksum summed again), or traffic class 0 and hop limit 64;
 * the VNI 0; the inner Ethernet addresses 0; the inner IPv6 packet's hop
 * limit and traffic class as captured past the tunnel (@cap, @n bytes
 * of it), FIRST holding the UDP ports instead.
 */
static void vx66_rebuilt(uint8_t *w, uint32_t h, const uint8_t *cap,
			 uint32_t n)
{
	if (h == 20) {
		w[1] = 0;
		w[8] = 64;
		set16(w + 10, 0);
		set16(w + 10, ~ref_sum(0, w, 20) & 0xffff);
	} else {
		w[0] = 0x60;
		w[1] &= 0x0f;
		w[7] = 64;
	}
	memset(w + h + 12, 0, 3);		/* the VNI */
	memset(w + h + 16, 0, 12);		/* the Ethernet addresses */
	as_captured(w + h + GENEVE_ENCAP, cap, n);
}

/*
 * IPv6 in VXLAN or GENEVE: the inner packet (inner6_of(): @proto,
 * @payload bytes, sequence 9) in @u's wire packet over IPv4 (@v4) or
 * IPv6, with its VNI, Ethernet addresses, outer TOS and TTL (traffic
 * class and hop limit) and real UDP checksum, and the records of it.
 * pkt_tunnel_outer() of the first @cap bytes (all when 0) of the inner
 * packet as captured past the tunnel (hop limit 61, traffic class 0),
 * into @outmax bytes (all when 0), must be the wire packet byte for byte
 * but where no digest covers it, there as vx66_rebuilt() says; and
 * digest (SPIE: the outer header and the UDP header) as the wire packet
 * does. -1 when it does; the first differing byte; -2 when refused, -3 a
 * wrong length, -4 the digests differ, -5 the wire packet's UDP checksum
 * does not verify.
 */
static int vx66_case(uint8_t proto, uint32_t payload, uint32_t cap,
		     const struct udp6 *u, bool v4, uint32_t outmax)
{
	uint8_t in[2048], capd[2048], wire[2048], want[2048], out[2048];
	uint32_t len, wlen, wantlen, outlen = 0, h = v4 ? 20 : 40;
	struct kbloom_xlate rec, more;
	bool has;

	len = inner6_of(in, proto, payload, 9);
	wlen = vx66_ref(wire, in, len, u, v4);
	if (u->csum && !udp_csum_ok(wire))
		return -5;
	has = vx66_rec(in, wire, u, v4, &rec, &more);
	memcpy(capd, in, len);
	past_the_tunnel(capd);
	memcpy(want, wire, wlen);
	vx66_rebuilt(want, h, capd, len);
	if (cap)
		len = cap;
	wantlen = h + GENEVE_ENCAP + len;
	if (outmax && outmax < wantlen)
		wantlen = outmax;
	if (outer6m(capd, len, &rec, v4 ? NULL : tun6_addrs,
		    has ? &more : NULL, out, outmax ? outmax : sizeof(out),
		    &outlen))
		return -2;
	return outer_is_wire(out, outlen, wire, want, wantlen, h + 8);
}

/*
 * As Linux's vxlan and geneve over IPv4 send: a hashed source port to
 * the IANA port, an IP ID, DF (vxlan's default) or not, a UDP checksum
 * (udpcsum; none is Linux's default over IPv4); a VNI, the inner frame's
 * addresses, a TOS and TTL the rebuild cannot know.
 */
static const struct udp6 vxlan4 = {
	.t6 = { .t = { .kind = KBLOOM_XLATE_VXLAN, .id = 0x3c3c,
		       .frag = 0x4000, .tos = 0xb8, .ttl = 253,
		       .sport = 51234, .dport = 4789, .vni = 0xabcdef },
		.lim = -1 },
	.macs = 1, .csum = 1,
};
static const struct udp6 geneve4 = {
	.t6 = { .t = { .kind = KBLOOM_XLATE_GENEVE, .id = 0x5a5a, .frag = 0,
		       .tos = 0x28, .ttl = 30, .sport = 49877,
		       .dport = GENEVE_PORT, .vni = 0x10203 },
		.lim = -1 },
	.macs = 1, .csum = 1,
};

/* The four: VXLAN and GENEVE over IPv4, over IPv6. */
static const struct {
	const struct udp6 *u;
	bool v4;
} vx66s[] = {
	{ &vxlan4, true }, { &geneve4, true },
	{ &vxlan6, false }, { &geneve6, false },
};

/*
 * @u over IPv4 (@v4) or, with every flow label of labels6[], over IPv6;
 * inner ICMPv6 and UDP packets of 0, 24 and 101 (odd) payload bytes;
 * whether all are the wire's.
 */
static bool vx66_all(struct __test_metadata *_metadata, struct udp6 u,
		     bool v4)
{
	static const uint8_t protos[] = { 58, PROTO_UDP };	/* ICMPv6 */
	static const uint32_t payloads[] = { 0, 24, 101 };
	size_t l, p, i, nl = v4 ? 1 : ARRAY_SIZE(labels6);
	bool all = true;
	int r;

	for (l = 0; l < nl; l++)
		for (p = 0; p < ARRAY_SIZE(protos); p++)
			for (i = 0; i < ARRAY_SIZE(payloads); i++) {
				if (!v4)
					u.t6.label = labels6[l];
				r = vx66_case(protos[p], payloads[i], 0, &u, v4,
					      0);
				EXPECT_EQ(-1, r) {
					TH_LOG("over IPv%d, kind 0x%02x, csum %d, frag 0x%04x, inner %u, payload %u, label 0x%05x",
					       v4 ? 4 : 6, u.t6.t.kind, u.csum,
					       u.t6.t.frag, protos[p],
					       payloads[i], u.t6.label);
				}
				all = all && r == -1;
			}
	return all;
}

/*
 * @u over IPv4 (vx66_all()) with a UDP checksum and without, with DF and
 * without: all the wire's.
 */
static void vx66_all4(struct __test_metadata *_metadata, struct udp6 u)
{
	unsigned int c;

	for (c = 0; c < 4; c++) {
		u.csum = c & 1;
		u.t6.t.frag = c & 2 ? 0x4000 : 0;
		EXPECT_TRUE(vx66_all(_metadata, u, true));
	}
}

/*
 * A vxlan device over IPv4 carrying IPv6 (an Ethernet frame of type
 * 0x86DD): the outer packet is the wire's with a UDP checksum (KIND
 * VXLAN_CSUM, the checksum in BEFORE_DPORT, DF in KIND) and without,
 * with DF and without; other ports, VNI and IP ID (with both).
 */
TEST(vxlan_carrying_ipv6_outer_is_the_wire_packet_with_and_without_a_checksum)
{
	struct udp6 u = vxlan4;

	vx66_all4(_metadata, u);
	/* With both (vx66_all4()'s last), other ports, VNI and IP ID. */
	u.csum = 1;
	u.t6.t.frag = 0x4000;
	u.t6.t.sport = 65535;
	u.t6.t.dport = 8472;		/* Linux's old default port */
	u.t6.t.vni = 0xffffff;
	u.t6.t.id = 0;
	EXPECT_TRUE(vx66_all(_metadata, u, true));
}

/* A geneve device over IPv4 carrying IPv6, as vxlan's just above. */
TEST(geneve_carrying_ipv6_outer_is_the_wire_packet_with_and_without_a_checksum)
{
	struct udp6 u = geneve4;

	vx66_all4(_metadata, u);
	u.csum = 1;
	u.t6.t.frag = 0x4000;
	u.t6.t.sport = 1;
	u.t6.t.vni = 0;
	u.t6.t.id = 0xffff;
	u.macs = 0;
	EXPECT_TRUE(vx66_all(_metadata, u, true));
}

/*
 * vxlan and geneve devices over IPv6 carrying IPv6: the outer packet is
 * the wire's, its UDP checksum (mandatory over IPv6) from the more
 * record, for every flow label of labels6[].
 */
TEST(ipv6_in_vxlan6_and_geneve6_outer_is_the_wire_packet_with_its_more_record)
{
	struct udp6 u = vxlan6;

	EXPECT_TRUE(vx66_all(_metadata, vxlan6, false));
	EXPECT_TRUE(vx66_all(_metadata, geneve6, false));
	u.t6.t.sport = 65535;
	u.t6.t.dport = 8472;
	u.t6.t.vni = 1;
	u.macs = 0;
	EXPECT_TRUE(vx66_all(_metadata, u, false));
}

/*
 * RFC 6935's zero checksum over IPv6 (udp6zerocsumtx) with IPv6 inside:
 * no VXLAN_CSUM, no more record (one given is refused), checksum 0 in
 * the rebuilt packet as on the wire.
 */
TEST(ipv6_in_vxlan6_and_geneve6_with_a_zero_checksum_has_no_more_record)
{
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, m;
	uint32_t len, outlen;
	struct udp6 u;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(us); i++) {
		u = *us[i];
		u.csum = 0;
		len = inner6_of(in, PROTO_UDP, 40, 9);
		udp6_zero_csum(_metadata, &u, in, len, &rec);
		EXPECT_EQ(6, rec.family);
		kb_xlate_more(&rec, htons(0x1f2e), 0, &m);
		EXPECT_EQ(-1, outer6m(in, len, &rec, tun6_addrs, &m, out,
				      sizeof(out), &outlen));
		EXPECT_TRUE(vx66_all(_metadata, u, false));
	}
}

/*
 * The fields one by one, of a UDP datagram of 33 payload bytes (odd):
 * the record's (FAMILY 6, KIND, FIRST the UDP ports); the outer header
 * (its length the whole packet's), UDP's length (its 8 bytes, VXLAN's or
 * GENEVE's 8, Ethernet's 14, the inner IPv6 packet's 40 and payload
 * length) and checksum as carried, the tunnel header with VNI 0,
 * Ethernet of zero addresses and type 0x86DD (RFC 7348 and RFC 8926 carry
 * the inner frame's type as is), the inner packet as captured.
 */
TEST(ipv6_in_vxlan_and_geneve_outer_fields_are_where_the_rfcs_put_them)
{
	static const uint8_t hdr[2][8] = {
		{ 0x08, 0, 0, 0, 0, 0, 0, 0 },		/* VXLAN */
		{ 0, 0, 0x65, 0x58, 0, 0, 0, 0 },	/* GENEVE */
	};
	uint8_t in[256], cap[256], wire[512], out[512];
	uint32_t len, wlen, outlen, h, k, ulen = 30 + 40 + 8 + 33;
	struct kbloom_xlate rec, more;
	const struct udp6 *u;
	bool v4, has;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(vx66s); c++) {
		u = vx66s[c].u;
		v4 = vx66s[c].v4;
		h = v4 ? 20 : 40;
		len = inner6_of(in, PROTO_UDP, 33, 9);
		ASSERT_EQ(81, len);
		wlen = vx66_ref(wire, in, len, u, v4);
		has = vx66_rec(in, wire, u, v4, &rec, &more);
		EXPECT_EQ(!v4, has);
		EXPECT_EQ(6, rec.family);
		EXPECT_EQ(PROTO_UDP, rec.proto);
		EXPECT_EQ(u->t6.t.kind | KBLOOM_XLATE_VXLAN_CSUM |
			  (v4 ? (u->t6.t.frag & 0x4000 ?
				 KBLOOM_XLATE_VXLAN_DF : 0) :
				KBLOOM_XLATE_OUTER6), rec.kind);
		EXPECT_EQ(u->t6.t.sport, get16((uint8_t *)&rec.first));
		EXPECT_EQ(u->t6.t.dport, get16((uint8_t *)&rec.first + 2));
		memcpy(cap, in, len);
		past_the_tunnel(cap);
		ASSERT_EQ(0, outer6m(cap, len, &rec, v4 ? NULL : tun6_addrs,
				     has ? &more : NULL, out, sizeof(out),
				     &outlen));
		ASSERT_EQ(h + ulen, outlen);
		ASSERT_EQ(wlen, outlen);
		if (v4) {
			EXPECT_EQ(0x45, out[0]);
			EXPECT_EQ(20 + ulen, get16(out + 2));
			EXPECT_EQ(u->t6.t.id, get16(out + 4));
			EXPECT_EQ(u->t6.t.frag, get16(out + 6));
			EXPECT_EQ(PROTO_UDP, out[9]);
			EXPECT_EQ(0xffff, ref_sum(0, out, 20));
			EXPECT_EQ(0, memcmp(out + 12, wire + 12, 8));
		} else {
			EXPECT_EQ(0x60000000 | u->t6.label, get32(out));
			EXPECT_EQ(ulen, get16(out + 4));
			EXPECT_EQ(PROTO_UDP, out[6]);
			EXPECT_EQ(0, memcmp(out + 8, tun6_addrs, 32));
		}
		EXPECT_EQ(u->t6.t.sport, get16(out + h));
		EXPECT_EQ(u->t6.t.dport, get16(out + h + 2));
		EXPECT_EQ(ulen, get16(out + h + 4));
		EXPECT_EQ(get16(wire + h + 6), get16(out + h + 6));
		EXPECT_NE(0, get16(out + h + 6));
		EXPECT_EQ(-1, first_diff(out + h + 8, hdr[c & 1], 8));
		for (k = 16; k < 28; k++)
			EXPECT_EQ(0, out[h + k]);
		EXPECT_EQ(0x86dd, get16(out + h + 28));
		/* Hop limit 61 and traffic class 0, not 63 and 0x2e. */
		EXPECT_EQ(0x6005abcd, get32(out + h + 30));
		EXPECT_EQ(61, out[h + 30 + 7]);
		EXPECT_EQ(-1, first_diff(out + h + 30, cap, len));
	}
}

/*
 * Why FIRST holds no inner hop limit or traffic class here: a digest of
 * the outer packet covers its IP header and the UDP header, no byte of
 * the Ethernet frame. One IPv6 packet sent with hop limit 63 and traffic
 * class 0x2e, or 1 and 0xff, makes the same record (FIRST the ports),
 * but for the UDP checksum, which covers them and is kept as carried;
 * without one, the wire packets digest alike. Either rebuilt from the
 * inner packet as captured digests as its own wire packet.
 */
TEST(ipv6_in_vxlan_and_geneve_keeps_no_inner_hop_limit_or_traffic_class)
{
	uint8_t in[2][256], cap[256], wire[2][512], out[2][512];
	struct kbloom_xlate rec[2], more[2];
	struct kb_digest dw[2], dout[2];
	uint32_t len, outlen, h, s;
	struct udp6 u;
	bool v4, has;
	size_t c, j;

	for (c = 0; c < 2 * ARRAY_SIZE(vx66s); c++) {
		u = *vx66s[c / 2].u;
		v4 = vx66s[c / 2].v4;
		u.csum = c & 1;
		h = v4 ? 20 : 40;
		len = inner6_of(in[0], 58, 24, 5);
		memcpy(in[1], in[0], len);
		in[1][0] = 0x6f;			/* traffic class 0xff */
		in[1][1] |= 0xf0;
		in[1][7] = 1;
		memcpy(cap, in[0], len);
		past_the_tunnel(cap);
		for (j = 0; j < 2; j++) {
			vx66_ref(wire[j], in[j], len, &u, v4);
			has = vx66_rec(in[j], wire[j], &u, v4, &rec[j],
				       &more[j]);
			ASSERT_EQ(0, outer6m(cap, len, &rec[j],
					     v4 ? NULL : tun6_addrs,
					     has ? &more[j] : NULL, out[j],
					     sizeof(out[j]), &outlen));
			ASSERT_EQ(h + 30 + len, outlen);
			ASSERT_EQ(KBLOOM_SKIP_NONE,
				  kb_digest(wire[j], outlen,
					    KBLOOM_DIGEST_SPIE, &dw[j]));
			ASSERT_EQ(KBLOOM_SKIP_NONE,
				  kb_digest(out[j], outlen,
					    KBLOOM_DIGEST_SPIE, &dout[j]));
			ASSERT_EQ(h + 8, dw[j].len);
			EXPECT_EQ(-1, first_diff(dout[j].key, dw[j].key,
						 h + 8)) {
				TH_LOG("over IPv%d, kind 0x%02x, csum %d, inner hop limit %u",
				       v4 ? 4 : 6, u.t6.t.kind, u.csum,
				       in[j][7]);
			}
			EXPECT_EQ(-1, first_diff(out[j] + h + 30, cap, len));
		}
		EXPECT_EQ(rec[0].first, rec[1].first);
		EXPECT_EQ(0, memcmp(&rec[0].first, wire[0] + h, 4));
		/* The checksum: another over other inner bytes, else 0. */
		s = get16(wire[1] + h + 6);
		EXPECT_EQ(c & 1, get16(wire[0] + h + 6) != s);
		if (v4)
			rec[1].before_dport = rec[0].before_dport;
		EXPECT_EQ(0, memcmp(&rec[0], &rec[1], sizeof(rec[0])));
		if (c & 1) {
			EXPECT_EQ(s, get16(out[1] + h + 6));
			EXPECT_NE(-1, first_diff(dw[0].key, dw[1].key, h + 8));
		} else {
			EXPECT_EQ(-1, first_diff(dw[0].key, dw[1].key, h + 8));
			EXPECT_EQ(-1, first_diff(out[0], out[1], outlen));
		}
	}
}

/*
 * A capture cut short (the 48 bytes the key needs, an odd 57) and an
 * @outmax cut (the outer headers alone, 8 bytes more, inside the inner
 * header): the lengths and the checksum the whole packet's, its bytes the
 * wire's as far as they go; an @outmax short of the headers is refused.
 */
TEST(ipv6_in_vxlan_and_geneve_outer_of_a_cut_capture_has_the_whole_lengths)
{
	uint8_t in[512], wire[1024], out[1024];
	struct kbloom_xlate rec, more;
	uint32_t h, outlen;
	struct udp6 u;
	bool v4, has;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(vx66s); c++) {
		u = *vx66s[c].u;
		v4 = vx66s[c].v4;
		h = v4 ? 20 : 40;
		EXPECT_EQ(-1, vx66_case(58, 200, 48, &u, v4, 0));
		EXPECT_EQ(-1, vx66_case(PROTO_UDP, 200, 57, &u, v4, 0));
		EXPECT_EQ(-1, vx66_case(PROTO_UDP, 101, 0, &u, v4, h + 30));
		EXPECT_EQ(-1, vx66_case(58, 101, 0, &u, v4, h + 30 + 8));
		EXPECT_EQ(-1, vx66_case(PROTO_UDP, 101, 0, &u, v4,
					h + 30 + 7));
		u.csum = 0;
		EXPECT_EQ(-1, vx66_case(PROTO_UDP, 200, 48, &u, v4, 0));

		u = *vx66s[c].u;
		inner6_of(in, PROTO_UDP, 200, 9);
		vx66_ref(wire, in, 248, &u, v4);
		has = vx66_rec(in, wire, &u, v4, &rec, &more);
		past_the_tunnel(in);
		ASSERT_EQ(0, outer6m(in, 48, &rec, v4 ? NULL : tun6_addrs,
				     has ? &more : NULL, out, sizeof(out),
				     &outlen));
		EXPECT_EQ(h + 30 + 48, outlen);
		EXPECT_EQ(v4 ? 20 + 30 + 248 : 30 + 248,
			  get16(out + (v4 ? 2 : 4)));
		EXPECT_EQ(30 + 248, get16(out + h + 4));
		EXPECT_EQ(get16(wire + h + 6), get16(out + h + 6));
		EXPECT_EQ(-1, outer6m(in, 248, &rec, v4 ? NULL : tun6_addrs,
				      has ? &more : NULL, out, h + 30 - 1,
				      &outlen));
	}
}

/*
 * A record of IPv6 in VXLAN or GENEVE is its packet's by the key, as
 * 6in4's: refused for another echo, for a capture too short for the key
 * (47 bytes: the tag takes the 8 after the header), for an IPv4 packet;
 * FAMILY 4 with its fields is no record of the IPv6 packet. Over IPv6,
 * refused without its outer addresses or its more record.
 */
TEST(outer_refuses_ipv6_in_vxlan_and_geneve_of_another_packet_or_family)
{
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more, r;
	uint32_t len, outlen;
	const uint8_t *a;
	struct udp6 u;
	bool v4, has;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(vx66s); c++) {
		u = *vx66s[c].u;
		v4 = vx66s[c].v4;
		a = v4 ? NULL : tun6_addrs;
		len = inner6_of(in, 58, 24, 9);
		has = vx66_recs_of(in, len, &u, v4, &rec, &more);
		past_the_tunnel(in);
		ASSERT_EQ(0, outer6m(in, len, &rec, a, has ? &more : NULL, out,
				     sizeof(out), &outlen));
		ASSERT_EQ(0, outer6m(in, 48, &rec, a, has ? &more : NULL, out,
				     sizeof(out), &outlen));
		EXPECT_EQ(-1, outer6m(in, 47, &rec, a, has ? &more : NULL, out,
				      sizeof(out), &outlen));
		r = rec;
		r.family = 4;
		EXPECT_EQ(-1, outer6m(in, len, &r, a, has ? &more : NULL, out,
				      sizeof(out), &outlen));
		if (!v4) {
			EXPECT_EQ(-1, outer6m(in, len, &rec, NULL, &more, out,
					      sizeof(out), &outlen));
			EXPECT_EQ(-1, outer6m(in, len, &rec, a, NULL, out,
					      sizeof(out), &outlen));
		}
		len = inner6_of(in, 58, 24, 10);
		EXPECT_EQ(-1, outer6m(in, len, &rec, a, has ? &more : NULL, out,
				      sizeof(out), &outlen));
		len = inner_pkt(in, PROTO_UDP, 24);
		EXPECT_EQ(-1, outer6m(in, len, &rec, a, has ? &more : NULL, out,
				      sizeof(out), &outlen));
	}
}

/*
 * The lengths are 16 bits: over IPv4 the outer header's 20, UDP's 30 and
 * the inner IPv6 packet's 40 and payload length make at most 65535 (the
 * total length); over IPv6 UDP's 30, the inner's 40 and its payload
 * length (the payload length, UDP's length).
 */
TEST(ipv6_in_vxlan_and_geneve_outer_refuses_a_length_over_65535)
{
	uint8_t in[256], out[512];
	struct kbloom_xlate rec, more;
	uint32_t h4, room, outlen;
	const uint8_t *a;
	struct udp6 u;
	bool v4, has;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(vx66s); c++) {
		u = *vx66s[c].u;
		v4 = vx66s[c].v4;
		h4 = v4 ? 20 : 0;
		a = v4 ? NULL : tun6_addrs;
		inner6_of(in, PROTO_UDP, 16, 9);
		has = vx66_recs_of(in, 64, &u, v4, &rec, &more);
		/* An inner packet captured in part: 65535 in all ... */
		room = 65535 - h4 - 30 - 40;
		set16(in + 4, room);
		ref_key6(in, &rec);
		ASSERT_EQ(0, outer6m(in, 64, &rec, a, has ? &more : NULL, out,
				     sizeof(out), &outlen));
		EXPECT_EQ(65535, get16(out + (v4 ? 2 : 4)));
		EXPECT_EQ(65535 - h4, get16(out + (v4 ? 20 : 40) + 4));
		EXPECT_EQ((v4 ? 20 : 40) + 30 + 64, outlen);
		/* ... and one more byte. */
		set16(in + 4, room + 1);
		ref_key6(in, &rec);
		EXPECT_EQ(-1, outer6m(in, 64, &rec, a, has ? &more : NULL, out,
				      sizeof(out), &outlen));
		set16(in + 4, 65535);
		ref_key6(in, &rec);
		EXPECT_EQ(-1, outer6m(in, 64, &rec, a, has ? &more : NULL, out,
				      sizeof(out), &outlen));
	}
}

/* ---- GENEVE with options (RFC 8926): their length in a more record ---- */

/*
 * A GENEVE packet with options as the sending kernel chose it: @u
 * (geneve4's or geneve6's fields: the ports, VNI, inner Ethernet
 * addresses and UDP checksum or none; IP ID, flags, TOS and TTL, or flow
 * label, traffic class and hop limit) over IPv4 (@v4) or IPv6, an IPv6
 * (@in6: inner6_of()'s) or IPv4 (inner_pkt()'s) packet inside, @optlen
 * bytes of options (a multiple of 4, at most 252: 63 words) and the O
 * (@oam: a control packet) and C (@crit: a critical option) flags.
 */
struct gopt {
	struct udp6 u;
	bool v4, in6;
	uint32_t optlen;
	bool oam, crit;
};

/*
 * RFC 8926 3.5's options, @len bytes of them: each its class (0x0100 and
 * its number), type (its number; the top bit, critical, on the first
 * when @crit), R bits 0 and its length (the 4-byte words after its
 * 4-byte header, at most 31), its data (no byte 0).
 */
static void geneve_tlvs(uint8_t *p, uint32_t len, bool crit)
{
	uint32_t i = 0, words, k;

	while (len >= 4) {
		words = len / 4 - 1 < 31 ? len / 4 - 1 : 31;
		set16(p, 0x0100 + i);
		p[2] = (uint8_t)((crit && !i ? 0x80 : 0) | (i + 1));
		p[3] = (uint8_t)words;
		for (k = 0; k < 4 * words; k++)
			p[4 + k] = (uint8_t)(0xa0 + (k + i) % 16);
		p += 4 + 4 * words;
		len -= 4 + 4 * words;
		i++;
	}
}

/*
 * The wire packet of @g around the whole inner packet @in (@inlen
 * bytes): the outer IPv4 header (RFC 791: TOS, the total length, IP ID,
 * flags, TTL, protocol 17, TUN_LOCAL to TUN_REMOTE, its checksum from
 * scratch) or IPv6 header (RFC 8200 3: traffic class, flow label, the
 * payload length, next header 17, hop limit, tun6_addrs); UDP from @g's
 * port to 6081, its length, its checksum 0 or summed over the pseudo-
 * header (RFC 768; RFC 8200 8.1) and the whole datagram, 0 sent as
 * 0xffff; GENEVE's header (RFC 8926 3.4: version 0 and the options'
 * length in 4-byte words, the O and C flags, protocol 0x6558, the VNI,
 * reserved 0); the options (geneve_tlvs()); Ethernet of type IPv4 or
 * IPv6 (0x86DD); the inner packet. Its length.
 */
static uint32_t gopt_ref(uint8_t *o, const uint8_t *in, uint32_t inlen,
			 const struct gopt *g)
{
	const struct tun *t = &g->u.t6.t;
	uint32_t h = g->v4 ? 20 : 40;
	uint32_t udplen = GENEVE_ENCAP + g->optlen + inlen;
	uint8_t *uh = o + h, *gh = uh + 8, *eth = gh + 8 + g->optlen;

	memset(o, 0, h + udplen);
	if (g->v4)
		tun_ip4(o, t, 20 + udplen, PROTO_UDP);
	else
		tun_ip6(o, &g->u.t6, udplen, PROTO_UDP);
	set16(uh, t->sport);
	set16(uh + 2, t->dport);
	set16(uh + 4, udplen);
	gh[0] = (uint8_t)(g->optlen / 4);
	gh[1] = (uint8_t)((g->oam ? 0x80 : 0) | (g->crit ? 0x40 : 0));
	set16(gh + 2, ETH_P_TEB);
	set32(gh + 4, t->vni << 8);
	geneve_tlvs(gh + 8, g->optlen, g->crit);
	if (g->u.macs)
		memcpy(eth, geneve_macs, 12);
	set16(eth + 12, in[0] >> 4 == 6 ? 0x86dd : 0x0800);
	memcpy(eth + 14, in, inlen);
	if (g->u.csum)
		udp_csum(o, uh, udplen);
	return h + udplen;
}

/*
 * The records the decapsulating router makes of @g's wire packet @wire
 * around @in, as kb_xlate_of_udp_tunnel() (kmod/transforms.c) reads it:
 * the tunnel record of KIND GENEVE and GENEVE_OPT, FIRST the UDP ports
 * as carried, keyed as the inner packet (IPv4: its addresses and IP ID;
 * IPv6: as 6in4's); over IPv4 BEFORE_* the outer addresses, IP ID and
 * flags and offset, with a UDP checksum KIND VXLAN_CSUM (and VXLAN_DF
 * for DF) and the checksum as carried in BEFORE_DPORT; over IPv6
 * tun6_rec()'s (the folds, the flow label) with KIND OUTER6, and
 * VXLAN_CSUM with a checksum. In *@more the more record the engine's
 * kb_xlate_more() makes of it: BEFORE_SPORT the UDP checksum as carried
 * over IPv6 (0 without one, and over IPv4), BEFORE_DPORT GENEVE's first
 * two bytes as carried.
 */
static void gopt_rec(const uint8_t *in, const uint8_t *wire,
		     const struct gopt *g, struct kbloom_xlate *rec,
		     struct kbloom_xlate *more)
{
	uint32_t h = g->v4 ? 20 : 40;
	uint16_t sum, hdr;

	memcpy(&sum, wire + h + 6, 2);
	memcpy(&hdr, wire + h + 8, 2);
	if (!g->v4) {
		*rec = tun6_rec(in, &g->u.t6);
	} else {
		memset(rec, 0, sizeof(*rec));
		if (g->in6) {
			ref_key6(in, rec);
		} else {
			rec->family = 4;
			rec->proto = in[9];
			memcpy(&rec->after_src, in + 12, 4);
			memcpy(&rec->after_dst, in + 16, 4);
			memcpy(&rec->after_sport, in + 4, 2);
		}
		rec->state = KBLOOM_XLATE_VALID;
		rec->kind = g->u.t6.t.kind;
		memcpy(&rec->before_src, wire + 12, 4);
		memcpy(&rec->before_dst, wire + 16, 4);
		memcpy(&rec->before_sport, wire + 4, 2);
		memcpy(&rec->before_dport, wire + 6, 2);
		if (sum && (get16(wire + 6) & 0x4000))
			rec->kind |= KBLOOM_XLATE_VXLAN_DF;
		if (sum)
			memcpy(&rec->before_dport, &sum, 2);
	}
	if (sum)
		rec->kind |= KBLOOM_XLATE_VXLAN_CSUM;
	rec->kind |= KBLOOM_XLATE_GENEVE_OPT;
	memcpy(&rec->first, wire + h, 4);
	kb_xlate_more(rec, g->v4 ? 0 : sum, hdr, more);
}

/*
 * The wire packet @w (its outer header @h bytes) as pkt_tunnel_outer()
 * writes it where no record keeps it and no digest covers it: as
 * vx66_rebuilt() says (TOS 0 and TTL 64 and the header checksum, or
 * traffic class 0 and hop limit 64; the VNI 0), and past the GENEVE
 * header the @optlen bytes of options 0 and the inner Ethernet addresses
 * 0, an inner IPv6 packet's hop limit and traffic class as captured
 * (@cap, @n bytes of it).
 */
static void gopt_rebuilt(uint8_t *w, uint32_t h, uint32_t optlen,
			 const uint8_t *cap, uint32_t n)
{
	vx66_rebuilt(w, h, cap, 0);
	memset(w + h + 16, 0, optlen + 12);
	as_captured(w + h + GENEVE_ENCAP + optlen, cap, n);
}

/*
 * The inner packet (@proto, @payload bytes; an IPv6 one's sequence 9) in
 * @g's wire packet, with its real options, VNI, Ethernet addresses,
 * outer TOS and TTL (traffic class and hop limit) and UDP checksum, and
 * the records of it. pkt_tunnel_outer() of its first @cap bytes (all
 * when 0) as captured past the tunnel, into @outmax bytes (all when 0),
 * with the more record, must be the wire packet byte for byte but where
 * no digest covers it, there as gopt_rebuilt() says; and digest (SPIE:
 * the outer header and the UDP header) as the wire packet does. -1 when
 * it does; the first differing byte; -2 when refused, -3 a wrong length,
 * -4 the digests differ, -5 the wire packet's checksum does not verify.
 */
static int gopt_case(uint8_t proto, uint32_t payload, uint32_t cap,
		     const struct gopt *g, uint32_t outmax)
{
	uint8_t in[2048], capd[2048], wire[2048], want[2048], out[2048];
	uint32_t len, wlen, wantlen, outlen = 0, h = g->v4 ? 20 : 40;
	struct kbloom_xlate rec, more;

	len = g->in6 ? inner6_of(in, proto, payload, 9) :
	      inner_pkt(in, proto, payload);
	wlen = gopt_ref(wire, in, len, g);
	if (g->u.csum && !udp_csum_ok(wire))
		return -5;
	gopt_rec(in, wire, g, &rec, &more);
	memcpy(capd, in, len);
	past_the_tunnel(capd);
	memcpy(want, wire, wlen);
	gopt_rebuilt(want, h, g->optlen, capd, len);
	if (cap)
		len = cap;
	wantlen = h + GENEVE_ENCAP + g->optlen + len;
	if (outmax && outmax < wantlen)
		wantlen = outmax;
	if (outer6m(capd, len, &rec, g->v4 ? NULL : tun6_addrs, &more, out,
		    outmax ? outmax : sizeof(out), &outlen))
		return -2;
	return outer_is_wire(out, outlen, wire, want, wantlen, h + 8);
}

/*
 * The five kinds of GENEVE record with options (uapi: GENEVE's kinds
 * with GENEVE_OPT, DNAT's bit): over IPv4 without a checksum, with one,
 * with one and DF; over IPv6 with a checksum and with none (RFC 6935).
 */
static const struct {
	bool v4;
	int csum;
	uint16_t frag;
	uint8_t kind;
} gopts[] = {
	{ true, 0, 0, KBLOOM_XLATE_GENEVE | KBLOOM_XLATE_GENEVE_OPT },
	{ true, 1, 0, KBLOOM_XLATE_GENEVE | KBLOOM_XLATE_GENEVE_OPT |
		      KBLOOM_XLATE_VXLAN_CSUM },
	{ true, 1, 0x4000, KBLOOM_XLATE_GENEVE | KBLOOM_XLATE_GENEVE_OPT |
			   KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_VXLAN_DF },
	{ false, 1, 0, KBLOOM_XLATE_GENEVE | KBLOOM_XLATE_GENEVE_OPT |
		       KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_OUTER6 },
	{ false, 0, 0, KBLOOM_XLATE_GENEVE | KBLOOM_XLATE_GENEVE_OPT |
		       KBLOOM_XLATE_OUTER6 },
};

/* gopts[@i]'s packet: geneve4's or geneve6's, @optlen bytes of options. */
static struct gopt gopt_of(size_t i, bool in6, uint32_t optlen, bool oam,
			   bool crit)
{
	struct gopt g = {
		.u = gopts[i].v4 ? geneve4 : geneve6, .v4 = gopts[i].v4,
		.in6 = in6, .optlen = optlen, .oam = oam, .crit = crit,
	};

	g.u.csum = gopts[i].csum;
	g.u.t6.t.frag = gopts[i].frag;
	return g;
}

/*
 * Options of 4 bytes, 32 (GENEVE's first byte then 0x08, VXLAN's I
 * flag: still GENEVE, of protocol 0x6558) and 252 (63 words, the most),
 * and none (the O or C flag alone).
 */
static const uint32_t gopt_lens[] = { 0, 4, 32, 252 };

/*
 * @g with every options' length of gopt_lens[] and every O and C flag
 * (none only with options: a GENEVE_OPT record), inner IPv4 (ICMP, UDP)
 * and IPv6 (ICMPv6, UDP) packets of 8 and 101 (odd) payload bytes;
 * whether all are the wire's.
 */
static bool gopt_all(struct __test_metadata *_metadata, struct gopt g)
{
	static const uint8_t protos[2][2] = { { PROTO_ICMP, PROTO_UDP },
					      { 58, PROTO_UDP } };
	static const uint32_t payloads[] = { 8, 101 };
	size_t c, n = 2 * 2 * 2 * ARRAY_SIZE(gopt_lens) * 4, f;
	bool all = true;
	uint8_t proto;
	uint32_t pl;
	int r;

	for (c = 0; c < n; c++) {
		g.in6 = c & 1;
		proto = protos[c & 1][c >> 1 & 1];
		pl = payloads[c >> 2 & 1];
		g.optlen = gopt_lens[c / 8 % ARRAY_SIZE(gopt_lens)];
		f = c / 8 / ARRAY_SIZE(gopt_lens);
		if (!g.optlen && !f)
			continue;	/* not GENEVE_OPT's */
		g.oam = f & 1;
		g.crit = f & 2;
		r = gopt_case(proto, pl, 0, &g, 0);
		EXPECT_EQ(-1, r) {
			TH_LOG("over IPv%d, csum %d, frag 0x%04x, label 0x%05x, inner IPv%d %u, payload %u, options %u, flags %zu",
			       g.v4 ? 4 : 6, g.u.csum, g.u.t6.t.frag,
			       g.u.t6.label, g.in6 ? 6 : 4, proto, pl,
			       g.optlen, f);
		}
		all = all && r == -1;
	}
	return all;
}

/*
 * A geneve device over IPv4 sending options (a metadata tunnel's, or
 * OAM): without a UDP checksum (Linux's default), with one, with one and
 * DF. The outer packet is the wire's where a digest covers it and where
 * the records keep it (GENEVE's options' length and flags from the more
 * record, its options zero), for IPv4 and IPv6 inside; other ports, VNI,
 * IP ID, no inner addresses.
 */
TEST(geneve_with_options_over_ipv4_outer_is_the_wire_packet)
{
	struct gopt g;
	size_t i;

	for (i = 0; i < 3; i++) {
		g = gopt_of(i, false, 0, false, false);
		EXPECT_TRUE(gopt_all(_metadata, g));
	}
	g = gopt_of(1, false, 0, false, false);
	g.u.t6.t.sport = 65535;
	g.u.t6.t.vni = 0xffffff;
	g.u.t6.t.id = 0;
	g.u.macs = 0;
	EXPECT_TRUE(gopt_all(_metadata, g));
}

/*
 * Over IPv6, with a UDP checksum (the more record holds it and GENEVE's
 * first 16 bits) and with none (RFC 6935: the more record holds 0 and
 * those bits), for every flow label of labels6[].
 */
TEST(geneve_with_options_over_ipv6_outer_is_the_wire_packet)
{
	struct gopt g;
	size_t i, l;

	for (i = 3; i < ARRAY_SIZE(gopts); i++)
		for (l = 0; l < ARRAY_SIZE(labels6); l++) {
			g = gopt_of(i, false, 0, false, false);
			g.u.t6.label = labels6[l];
			EXPECT_TRUE(gopt_all(_metadata, g));
		}
	g = gopt_of(3, false, 0, false, false);
	g.u.t6.t.sport = 1;
	g.u.t6.t.vni = 0;
	g.u.macs = 0;
	EXPECT_TRUE(gopt_all(_metadata, g));
}

/*
 * The fields one by one, 32 bytes of options with the O and C flags
 * around a UDP datagram of 33 payload bytes: the records (KIND, which has
 * a more record; the more record's checksum over IPv6 and GENEVE's first
 * bytes, 0x08 0xc0); the outer header (the total length with the options
 * and its checksum, or the payload length), UDP's length (8, GENEVE's 8,
 * the options' 32, Ethernet's 14 and the inner packet) and checksum as
 * carried, GENEVE's header (0x08 0xc0, protocol 0x6558, VNI 0: not
 * VXLAN's, though its first byte is VXLAN's I flag), the options zero,
 * Ethernet of zero addresses and type IPv4, the inner packet. Not the
 * wire packet's bytes (the options differ), but its digest.
 */
TEST(geneve_with_options_outer_fields_are_where_rfc_8926_puts_them)
{
	static const uint8_t hdr[8] = { 0x08, 0xc0, 0x65, 0x58, 0, 0, 0, 0 };
	uint8_t in[256], wire[512], out[512];
	uint32_t len, wlen, outlen, h, k, ulen = 8 + 8 + 32 + 14 + 20 + 8 + 33;
	struct kbloom_xlate rec, more;
	struct gopt g;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gopts); i++) {
		g = gopt_of(i, false, 32, true, true);
		h = g.v4 ? 20 : 40;
		len = inner_pkt(in, PROTO_UDP, 33);
		wlen = gopt_ref(wire, in, len, &g);
		ASSERT_EQ(h + ulen, wlen);
		gopt_rec(in, wire, &g, &rec, &more);
		EXPECT_EQ(gopts[i].kind, rec.kind);
		EXPECT_TRUE(kb_xlate_has_more(rec.kind));
		EXPECT_TRUE(kb_xlate_is_more_of(&more, &rec));
		EXPECT_EQ(g.v4 ? 0 : get16(wire + h + 6),
			  ntohs(more.before_sport));
		EXPECT_EQ(0x08c0, ntohs(more.before_dport));
		ASSERT_EQ(0, outer6m(in, len, &rec, g.v4 ? NULL : tun6_addrs,
				     &more, out, sizeof(out), &outlen));
		ASSERT_EQ(wlen, outlen);
		if (g.v4) {
			EXPECT_EQ(20 + ulen, get16(out + 2));
			EXPECT_EQ(gopts[i].frag, get16(out + 6));
			EXPECT_EQ(0xffff, ref_sum(0, out, 20));
		} else {
			EXPECT_EQ(ulen, get16(out + 4));
			EXPECT_EQ(0x60000000 | g.u.t6.label, get32(out));
		}
		EXPECT_EQ(PROTO_UDP, out[g.v4 ? 9 : 6]);
		EXPECT_EQ(g.u.t6.t.sport, get16(out + h));
		EXPECT_EQ(GENEVE_PORT, get16(out + h + 2));
		EXPECT_EQ(ulen, get16(out + h + 4));
		EXPECT_EQ(get16(wire + h + 6), get16(out + h + 6));
		EXPECT_EQ(gopts[i].csum != 0, get16(out + h + 6) != 0);
		EXPECT_EQ(-1, first_diff(out + h + 8, hdr, 8));
		EXPECT_EQ(-1, first_diff(wire + h + 8, hdr, 4));
		for (k = 16; k < 16 + 32 + 12; k++)
			EXPECT_EQ(0, out[h + k]) {
				TH_LOG("byte %u", h + k);
			}
		EXPECT_NE(0, memcmp(wire + h + 16, out + h + 16, 32));
		EXPECT_EQ(0x0800, get16(out + h + 16 + 32 + 12));
		EXPECT_EQ(-1, first_diff(out + h + 16 + 32 + 14, in, len));

		EXPECT_NE(0, memcmp(out, wire, wlen));
		EXPECT_TRUE(same_spie_key(_metadata, out, outlen, wire, wlen,
					  h + 8));
	}
}

/*
 * A capture cut short (28 bytes of an IPv4 packet, the 48 an IPv6 one's
 * key needs): the lengths (outer, UDP) and checksum the whole packet's
 * with its options (4, 32, 252 bytes). Cut at @outmax: the outer headers
 * with the options alone, 8 bytes more; one byte short of them is
 * refused.
 */
TEST(geneve_with_options_outer_of_a_cut_capture_has_the_whole_lengths)
{
	uint8_t in[512], wire[1024], out[1024];
	struct kbloom_xlate rec, more;
	uint32_t h, len, outlen, hl;
	struct gopt g;
	size_t i, l;

	for (i = 0; i < ARRAY_SIZE(gopts); i++)
		for (l = 1; l < ARRAY_SIZE(gopt_lens); l++) {
			g = gopt_of(i, false, gopt_lens[l], l & 1, false);
			h = g.v4 ? 20 : 40;
			hl = h + GENEVE_ENCAP + g.optlen;
			EXPECT_EQ(-1, gopt_case(PROTO_UDP, 200, 28, &g, 0));
			EXPECT_EQ(-1, gopt_case(PROTO_ICMP, 101, 0, &g, hl));
			EXPECT_EQ(-1, gopt_case(PROTO_UDP, 101, 0, &g, hl + 8));
			EXPECT_EQ(-2, gopt_case(PROTO_UDP, 101, 0, &g,
						hl - 1));
			g.in6 = true;
			EXPECT_EQ(-1, gopt_case(58, 200, 48, &g, 0));
			EXPECT_EQ(-1, gopt_case(PROTO_UDP, 200, 0, &g, hl));
			EXPECT_EQ(-2, gopt_case(PROTO_UDP, 200, 0, &g, hl - 1));

			g.in6 = false;
			len = inner_pkt(in, PROTO_UDP, 200);
			gopt_ref(wire, in, len, &g);
			gopt_rec(in, wire, &g, &rec, &more);
			ASSERT_EQ(0, outer6m(in, 28, &rec,
					     g.v4 ? NULL : tun6_addrs, &more,
					     out, sizeof(out), &outlen));
			EXPECT_EQ(hl + 28, outlen);
			EXPECT_EQ(hl - (g.v4 ? 0 : 40) + len,
				  get16(out + (g.v4 ? 2 : 4)));
			EXPECT_EQ(hl - h + len, get16(out + h + 4));
			EXPECT_EQ(get16(wire + h + 6), get16(out + h + 6));
		}
}

/*
 * pkt_tunnel_outer() on exact-size copies of @pkt (@len), of @addrs (32
 * bytes, or NULL) and of @more (or NULL), into @outmax bytes: whether it
 * refused (-1), writing none of them, nor the length.
 */
static bool refused(const uint8_t *pkt, uint32_t len,
		    const struct kbloom_xlate *rec, const uint8_t *addrs,
		    const struct kbloom_xlate *more, uint32_t outmax)
{
	uint8_t *in = malloc(len ? len : 1), *o = malloc(outmax ? outmax : 1);
	uint8_t *a = addrs ? malloc(32) : NULL;
	struct kbloom_xlate *m = more ? malloc(sizeof(*m)) : NULL;
	uint32_t outlen = 0xa5a5a5a5, k;
	bool ok;

	memcpy(in, pkt, len);
	memset(o, 0xa5, outmax);
	if (a)
		memcpy(a, addrs, 32);
	if (m)
		*m = *more;
	ok = pkt_tunnel_outer(in, len, rec, a, m, o, outmax, &outlen) == -1 &&
	     outlen == 0xa5a5a5a5;
	for (k = 0; k < outmax; k++)
		ok = ok && o[k] == 0xa5;
	free(in);
	free(o);
	free(a);
	free(m);
	return ok;
}

/*
 * A GENEVE record with options is not its outer packet without its more
 * record, nor with a more record that is no GENEVE header of version 0
 * (its top two bits, 0x40, 0x80, 0xc0, set: RFC 8926 3.4 knows version 0
 * only), nor with one holding a checksum where the tunnel record has
 * none over IPv6 (over IPv4 the tunnel record holds it, the more record
 * 0), nor with another tunnel record's; nor into @outmax one byte short
 * of its outer headers: all refused, nothing written. Over IPv6 with a
 * checksum, another checksum is written as the more record holds it.
 */
TEST(outer_refuses_geneve_with_options_without_its_more_record_or_a_true_one)
{
	static const uint8_t versions[] = { 0x40, 0x80, 0xc0 };
	uint8_t in[256], wire[1024], out[1024];
	struct kbloom_xlate rec, more, m, r;
	uint32_t len, outlen, hl;
	const uint8_t *a;
	struct gopt g;
	size_t i, v;

	for (i = 0; i < ARRAY_SIZE(gopts); i++) {
		g = gopt_of(i, i & 1, 252, true, true);
		a = g.v4 ? NULL : tun6_addrs;
		hl = (g.v4 ? 20 : 40) + GENEVE_ENCAP + 252;
		len = g.in6 ? inner6_of(in, PROTO_UDP, 16, 9) :
		      inner_pkt(in, PROTO_UDP, 16);
		gopt_ref(wire, in, len, &g);
		gopt_rec(in, wire, &g, &rec, &more);
		past_the_tunnel(in);
		ASSERT_EQ(0, outer6m(in, len, &rec, a, &more, out,
				     sizeof(out), &outlen));
		ASSERT_EQ(hl + len, outlen);
		EXPECT_TRUE(refused(in, len, &rec, a, NULL, sizeof(out)));
		for (v = 0; v < ARRAY_SIZE(versions); v++) {
			m = more;
			((uint8_t *)&m.before_dport)[0] |= versions[v];
			EXPECT_TRUE(refused(in, len, &rec, a, &m,
					    sizeof(out))) {
				TH_LOG("kind 0x%02x, first byte 0x%02x",
				       rec.kind,
				       ((uint8_t *)&m.before_dport)[0]);
			}
			m.before_dport = htons(versions[v] << 8 | 0x80);
			EXPECT_TRUE(refused(in, len, &rec, a, &m,
					    sizeof(out)));
		}
		/* GENEVE_OPT says the header had options or flags: not none. */
		m = more;
		m.before_dport = 0;
		EXPECT_TRUE(refused(in, len, &rec, a, &m, sizeof(out)));
		m = more;
		m.before_sport = htons(0x1f2e);
		if (gopts[i].csum && !g.v4) {
			ASSERT_EQ(0, outer6m(in, len, &rec, a, &m, out,
					     sizeof(out), &outlen));
			EXPECT_EQ(0x1f2e, get16(out + 46));
		} else {
			EXPECT_TRUE(refused(in, len, &rec, a, &m,
					    sizeof(out))) {
				TH_LOG("kind 0x%02x, BEFORE_SPORT 0x1f2e",
				       rec.kind);
			}
		}
		r = rec;
		((uint8_t *)&r.first)[1] ^= 1;	/* another source port */
		kb_xlate_more(&r, more.before_sport, more.before_dport, &m);
		EXPECT_TRUE(refused(in, len, &rec, a, &m, sizeof(out)));
		ASSERT_EQ(0, outer6m(in, len, &rec, a, &more, out, hl,
				     &outlen));
		EXPECT_EQ(hl, outlen);
		EXPECT_TRUE(refused(in, len, &rec, a, &more, hl - 1));
	}
}

/*
 * GENEVE's first 16 bits are kept for a GENEVE record with options
 * alone (KIND GENEVE_OPT): a more record holding them is refused for a
 * GENEVE record without options over IPv4, with a checksum (in the
 * record) or without, and over IPv6 without a checksum (no more record
 * at all); and where the tunnel record has one for its checksum
 * (VXLAN's and GENEVE's over IPv6), that more record holds 0 there, and
 * is refused holding them. So is the GENEVE_OPT bit on a VXLAN record.
 */
TEST(outer_refuses_a_geneve_header_in_the_more_record_of_no_geneve_options)
{
	const struct udp6 *us[] = { &vxlan6, &geneve6 };
	uint8_t in[256], wire[512], out[512];
	struct kbloom_xlate rec, more, m, r;
	struct gnv gv = geneve;
	__be16 hdr = htons(0x0880);
	uint32_t len, outlen;
	struct udp6 u;
	size_t i, c;

	len = inner_pkt(in, PROTO_UDP, 16);
	for (c = 0; c < 2; c++) {
		gv.csum = (int)c;
		geneve_ref(wire, in, len, &gv);
		rec = geneve_rec(&gv, wire, PROTO_UDP);
		EXPECT_FALSE(kb_xlate_has_more(rec.kind));
		ASSERT_EQ(0, outer(in, len, &rec, out, sizeof(out), &outlen));
		kb_xlate_more(&rec, 0, hdr, &m);
		EXPECT_TRUE(refused(in, len, &rec, NULL, &m, sizeof(out))) {
			TH_LOG("GENEVE over IPv4, csum %zu", c);
		}
		kb_xlate_more(&rec, 0, 0, &m);
		EXPECT_TRUE(refused(in, len, &rec, NULL, &m, sizeof(out)));
	}
	u = geneve6;
	u.csum = 0;
	ASSERT_FALSE(udp6_recs_of(in, len, &u, &rec, &more));
	ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, NULL, out,
			     sizeof(out), &outlen));
	kb_xlate_more(&rec, 0, hdr, &m);
	EXPECT_TRUE(refused(in, len, &rec, tun6_addrs, &m, sizeof(out)));

	for (i = 0; i < ARRAY_SIZE(us); i++) {
		ASSERT_TRUE(udp6_recs_of(in, len, us[i], &rec, &more));
		ASSERT_EQ(0, outer6m(in, len, &rec, tun6_addrs, &more, out,
				     sizeof(out), &outlen));
		m = more;
		m.before_dport = hdr;
		EXPECT_TRUE(refused(in, len, &rec, tun6_addrs, &m,
				    sizeof(out))) {
			TH_LOG("kind 0x%02x, BEFORE_DPORT 0x0880", rec.kind);
		}
		m.before_dport = htons(0x0001);
		EXPECT_TRUE(refused(in, len, &rec, tun6_addrs, &m,
				    sizeof(out)));
	}
	/* VXLAN has no options: DNAT's bit beside its bits is no kind. */
	ASSERT_TRUE(udp6_recs_of(in, len, &vxlan6, &rec, &more));
	r = rec;
	r.kind |= KBLOOM_XLATE_GENEVE_OPT;
	m = more;
	m.before_dport = hdr;
	EXPECT_TRUE(refused(in, len, &r, tun6_addrs, &m, sizeof(out)));
	EXPECT_TRUE(refused(in, len, &r, tun6_addrs, &more, sizeof(out)));
}

/*
 * A datagram fragmented before a NAT (RFC 791 cut, MTU 576), SNAT'ed
 * and DNAT'ed fragment by fragment as conntrack does (one record, the
 * datagram's): a later fragment inverted by the record its head finds
 * is the later fragment as it arrived, byte for byte; it is refused for
 * the head of another datagram, for a record not the head's, and for a
 * first fragment (pkt_xlate_invert's).
 */
static int invert_later(const uint8_t *head, uint32_t hlen,
			const uint8_t *frag, uint32_t len,
			const struct kbloom_xlate *rec, uint8_t *out)
{
	uint8_t *h = malloc(hlen), *fr = malloc(len), *o = malloc(len);
	int r;

	memcpy(h, head, hlen);
	memcpy(fr, frag, len);
	memcpy(o, out, len);
	r = pkt_xlate_invert_later(h, hlen, fr, len, rec, o);
	memcpy(out, o, len);
	free(h);
	free(fr);
	free(o);
	return r;
}

TEST(later_fragments_follow_their_heads_record)
{
	static struct frags fb, fa;
	const struct flow before = { INSIDE, WEB, 40000, 53 };
	const struct flow after = { PUBLIC, SERVER, 61000, 5353 };
	struct spec s = { .proto = PROTO_UDP, .payload = 1372, .id = 0x4242 };
	struct kbloom_xlate rec = rec_of(PROTO_UDP, &before, &after), other;
	uint8_t out[1600], fresh[1600];
	size_t i;

	s.f = before;
	build(big[0], &s);
	s.f = after;
	build(big[1], &s);
	fb.n = fa.n = 0;
	fragment(big[0], 576, 0, &fb);
	fragment(big[1], 576, 0, &fa);
	ASSERT_EQ(3, fa.n);
	for (i = 1; i < fa.n; i++) {
		EXPECT_EQ(4, pkt_is_later_fragment(fa.b[i], fa.len[i]));
		memset(out, 0, sizeof(out));
		ASSERT_EQ(0, invert_later(fa.b[0], fa.len[0], fa.b[i],
					  fa.len[i], &rec, out));
		EXPECT_EQ(-1, first_diff(out, fb.b[i], fb.len[i]));
	}
	EXPECT_EQ(0, pkt_is_later_fragment(fa.b[0], fa.len[0]));
	EXPECT_EQ(0, pkt_is_later_fragment(big[1], 1400));
	memset(fresh, 0x5a, sizeof(fresh));
	memcpy(out, fresh, sizeof(out));
	/* Not a later fragment: the first one is inverted by its own key. */
	EXPECT_EQ(-1, invert_later(fa.b[0], fa.len[0], fa.b[0], fa.len[0],
				   &rec, out));
	/* A record of another flow. */
	other = rec;
	other.after_sport = htons(61001);
	EXPECT_EQ(-1, invert_later(fa.b[0], fa.len[0], fa.b[1], fa.len[1],
				   &other, out));
	/* The head of another datagram: another IP ID. */
	set16(fa.b[0] + 4, 0x4243);
	EXPECT_EQ(-1, invert_later(fa.b[0], fa.len[0], fa.b[1], fa.len[1],
				   &rec, out));
	EXPECT_EQ(-1, first_diff(out, fresh, sizeof(out)));
}

/* ---- IPv6 NAT: keys, inversion, ICMPv6 errors ---- */

/*
 * IPv6 packets are built here from scratch like the IPv4 ones above: the
 * upper layer's checksum summed over RFC 8200 8.1's pseudo-header
 * (source, destination, the upper-layer packet length as 32 bits, three
 * zero bytes and the upper protocol) and the whole upper-layer packet
 * (for a first fragment, the unfragmented one): UDP's (RFC 768, a sum of
 * 0 sent as 0xffff), UDP-Lite's (RFC 3828), TCP's (RFC 793), DCCP's (RFC
 * 4340) and ICMPv6's (RFC 4443 2.3) alike. Records fold an address as
 * the uapi says, the XOR of its four 32-bit words, computed here rather
 * than by kb_xlate_fold6(). As for IPv4, inverting AFTER with the record
 * and BEFORE's addresses must give BEFORE byte for byte.
 */
#define PROTO_ICMPV6	58
#define NH_HOPOPTS	0
#define NH_ROUTING	43
#define NH_FRAGMENT	44

/* fd09::5 inside, fd64::1 the NAT's, a server, a web server inside. */
static const uint8_t INSIDE6[16] = { 0xfd, 0x09, [15] = 0x05 };
static const uint8_t PUBLIC6[16] = { 0xfd, 0x64, [15] = 0x01 };
static const uint8_t SERVER6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x05,
				     [15] = 0x35 };
static const uint8_t WEB6[16] = { 0xfd, 0x00, 0x00, 0x80, [15] = 0x80 };
/* The one segment of the routing headers built here. */
static const uint8_t SEGMENT6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff,
				      [15] = 0x01 };

/* A flow as an IPv6 packet carries it; ICMPv6 echo: its id in sport. */
struct flow6 {
	const uint8_t *src, *dst;
	uint16_t sport, dport;
};

struct spec6 {
	uint8_t proto;		/* the upper layer's */
	struct flow6 f;
	uint32_t payload;	/* bytes after the upper-layer header */
	/*
	 * Extension headers in order, one letter each: h hop-by-hop (8
	 * bytes), d destination options (16), r routing (24), f fragment
	 * (8; a first fragment unless @later).
	 */
	const char *ext;
	uint8_t icmp_type;	/* ICMPv6: 128 echo request, 129 reply, 1-4 */
	int udp_nocsum;		/* UDP: checksum 0 */
	uint16_t fill;		/* payload bytes 0-1 when non-zero */
	const uint8_t *body;	/* the payload when given (@payload bytes) */
	uint32_t carried;	/* with f: upper-layer bytes carried; 0: 32 */
	uint16_t later;		/* with f: a later fragment's offset */
	uint8_t tclass, hlim;	/* hlim 0: 64 */
};

/* A packet built by build6(): its length, its upper layer's offset. */
struct built6 {
	uint32_t len, l4;
};

/* The upper-layer header's length (ICMPv6: type to its 4-byte word). */
static uint32_t l4_hdr_len6(uint8_t proto)
{
	return proto == PROTO_TCP ? 20 : proto == PROTO_DCCP ? 16 : 8;
}

static uint32_t ext_len6(char c)
{
	return c == 'd' ? 16 : c == 'r' ? 24 : 8;
}

static uint8_t ext_code6(char c)
{
	return c == 'h' ? NH_HOPOPTS : c == 'd' ? NH_DSTOPTS :
	       c == 'r' ? NH_ROUTING : NH_FRAGMENT;
}

/* The sum of RFC 8200 8.1's pseudo-header and @n upper-layer bytes @u. */
static uint32_t ref_sum6(const uint8_t *src, const uint8_t *dst,
			 uint8_t proto, const uint8_t *u, uint32_t n)
{
	uint8_t ph[40] = { 0 };

	memcpy(ph, src, 16);
	memcpy(ph + 16, dst, 16);
	set32(ph + 32, n);
	ph[39] = proto;
	return ref_sum(ref_sum(0, ph, 40), u, n);
}

/* An address's fold, as records have it (network order in memory). */
static uint32_t ref_fold6(const uint8_t *a)
{
	return htonl(get32(a) ^ get32(a + 4) ^ get32(a + 8) ^ get32(a + 12));
}

/* The packet @s into @b. Checksums from scratch. */
static struct built6 build6(uint8_t *b, const struct spec6 *s)
{
	uint32_t hl = l4_hdr_len6(s->proto), ulen = hl + s->payload;
	uint32_t off = 40, carry = ulen, k, sum;
	const char *c = s->ext ? s->ext : "";
	uint8_t u[2048], *nh = b + 6;
	struct built6 r;

	memset(u, 0, ulen);
	for (k = 0; k < s->payload; k++)
		u[hl + k] = s->body ? s->body[k] : (uint8_t)(0x30 + 7 * k);
	if (s->fill)
		set16(u + hl, s->fill);
	switch (s->proto) {
	case PROTO_TCP:
		set16(u, s->f.sport);
		set16(u + 2, s->f.dport);
		set32(u + 4, 0x01020304);	/* sequence */
		set32(u + 8, 0x0a0b0c0d);	/* acknowledgment */
		u[12] = 5 << 4;
		u[13] = 0x18;			/* PSH, ACK */
		set16(u + 14, 0x7210);		/* window */
		sum = ref_sum6(s->f.src, s->f.dst, s->proto, u, ulen);
		set16(u + 16, ~sum & 0xffff);
		break;
	case PROTO_UDP:
		set16(u, s->f.sport);
		set16(u + 2, s->f.dport);
		set16(u + 4, ulen);
		sum = ~ref_sum6(s->f.src, s->f.dst, s->proto, u, ulen) & 0xffff;
		set16(u + 6, s->udp_nocsum ? 0 : sum ? sum : 0xffff);
		break;
	case PROTO_UDPLITE:
		set16(u, s->f.sport);		/* coverage 0: all of it */
		set16(u + 2, s->f.dport);
		sum = ~ref_sum6(s->f.src, s->f.dst, s->proto, u, ulen) & 0xffff;
		set16(u + 6, sum ? sum : 0xffff);
		break;
	case PROTO_DCCP:
		set16(u, s->f.sport);		/* CsCov 0: all of it */
		set16(u + 2, s->f.dport);
		u[4] = 4;			/* data offset */
		u[8] = 4 << 1 | 1;		/* DataAck, X */
		u[10] = 0x12;
		u[12] = 0x34;
		u[15] = 0x56;
		sum = ref_sum6(s->f.src, s->f.dst, s->proto, u, ulen);
		set16(u + 6, ~sum & 0xffff);
		break;
	case PROTO_ICMPV6:
		u[0] = s->icmp_type;
		if (s->icmp_type == 128 || s->icmp_type == 129) {
			set16(u + 4, s->f.sport);
			set16(u + 6, 0x0007);	/* sequence */
		} else if (s->icmp_type == 2) {
			set32(u + 4, 1280);	/* packet too big: the MTU */
		} else if (s->icmp_type == 139) {
			set16(u + 4, 2);	/* RFC 4620 query: Qtype 2 */
		}
		sum = ref_sum6(s->f.src, s->f.dst, s->proto, u, ulen);
		set16(u + 2, ~sum & 0xffff);
		break;
	}

	memset(b, 0, 40);
	b[0] = 0x60 | s->tclass >> 4;
	b[1] = (uint8_t)(s->tclass << 4) | 0x01;	/* flow label 0x1a2b3 */
	b[2] = 0xa2;
	b[3] = 0xb3;
	b[7] = s->hlim ? s->hlim : 64;
	memcpy(b + 8, s->f.src, 16);
	memcpy(b + 24, s->f.dst, 16);
	for (; *c; c++) {
		uint8_t *h = b + off;

		memset(h, 0, ext_len6(*c));
		*nh = ext_code6(*c);
		nh = h;
		h[1] = ext_len6(*c) / 8 - 1;
		if (*c == 'h' || *c == 'd') {
			/* PadN over the rest (RFC 8200 4.2). */
			h[2] = 1;
			h[3] = ext_len6(*c) - 4;
		} else if (*c == 'r') {
			/*
			 * Segment routing (RFC 8754), segments left 0: the
			 * destination is the final one, the pseudo-header's.
			 */
			h[2] = 4;
			memcpy(h + 8, SEGMENT6, 16);
		} else {
			/* Offset, M set for a first fragment; an ID. */
			set16(h + 2, s->later ? s->later << 3 : 1);
			set32(h + 4, 0x1a2b3c4d);
			carry = s->carried ? s->carried : 32;
			if (s->later * 8u + carry > ulen)
				carry = ulen - s->later * 8u;
		}
		off += ext_len6(*c);
	}
	*nh = s->proto;
	memcpy(b + off, u + s->later * 8u, carry);
	set16(b + 4, off - 40 + carry);
	r.len = off + carry;
	r.l4 = off;
	return r;
}

/* The NAT record of a packet that arrived as @b and left as @a. */
static struct kbloom_xlate rec6(uint8_t proto, const struct flow6 *b,
				const struct flow6 *a)
{
	struct kbloom_xlate r = {
		.state = KBLOOM_XLATE_VALID,
		.proto = proto,
		.family = 6,
		.before_src = ref_fold6(b->src),
		.before_dst = ref_fold6(b->dst),
		.after_src = ref_fold6(a->src),
		.after_dst = ref_fold6(a->dst),
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
 * pkt_xlate_invert6() of @len bytes of @pkt with BEFORE addresses @src
 * and @dst, every buffer of exactly its size (ASan's bounds).
 */
static int invert6(const uint8_t *pkt, uint32_t len,
		   const struct kbloom_xlate *rec, const uint8_t *src,
		   const uint8_t *dst, uint8_t *out)
{
	uint8_t *in = malloc(len ? len : 1), *o = malloc(len ? len : 1);
	uint8_t *b6 = malloc(32);
	int r;

	memcpy(in, pkt, len);
	memcpy(o, out, len);
	memcpy(b6, src, 16);
	memcpy(b6 + 16, dst, 16);
	r = pkt_xlate_invert6(in, len, rec, b6, o);
	memcpy(out, o, len);
	free(in);
	free(o);
	free(b6);
	return r;
}

/* The offset of the upper layer's checksum (ICMPv6: 2, TCP: 16, else 6). */
static uint32_t csum_at6(uint8_t proto)
{
	return proto == PROTO_ICMPV6 ? 2 : proto == PROTO_TCP ? 16 : 6;
}

/*
 * The bytes of the upper layer the key needs: the ports, an echo's
 * identifier, an ICMPv6 type.
 */
static uint32_t key_need6(const struct spec6 *s)
{
	if (s->proto != PROTO_ICMPV6)
		return 4;
	return s->icmp_type == 128 || s->icmp_type == 129 ? 6 : 1;
}

/*
 * Builds BEFORE and AFTER of @s with flows @bf and @af and inverts AFTER
 * captured to every length (in buffers of that length: ASan's bounds):
 * refused, and @out untouched, exactly when the capture is short of the
 * key (its extension headers and the upper-layer bytes key_need6()),
 * else BEFORE's first bytes, a checksum captured in half left as found.
 * The whole packet's SPIE and FLOW digests are BEFORE's (AFTER's SPIE
 * digest is not). Whether all held.
 */
static bool nat6_all_caps(struct __test_metadata *_metadata, struct spec6 s,
			  const struct flow6 *bf, const struct flow6 *af)
{
	uint8_t b[2048], a[2048], out[2048], fresh[2048], ref[2048];
	struct kbloom_xlate rec = rec6(s.proto, bf, af), w;
	uint32_t cap, ck, need;
	struct built6 bb, ab;
	bool ok = true, good;
	int r;

	s.f = *bf;
	bb = build6(b, &s);
	s.f = *af;
	ab = build6(a, &s);
	ASSERT_EQ(bb.len, ab.len);
	ck = bb.l4 + csum_at6(s.proto);
	need = bb.l4 + key_need6(&s);
	memset(fresh, 0x5a, sizeof(fresh));
	for (cap = 0; cap <= ab.len; cap++) {
		memcpy(out, fresh, sizeof(out));
		r = invert6(a, cap, &rec, bf->src, bf->dst, out);
		if (cap < need) {
			good = r == -1 && want(a, cap, &w) == -1 &&
			       first_diff(out, fresh, cap) == -1;
		} else {
			memcpy(ref, b, cap);
			if (cap == ck + 1)
				ref[ck] = a[ck];	/* half a checksum */
			good = r == 0 && first_diff(out, ref, cap) == -1;
		}
		EXPECT_TRUE(good) {
			TH_LOG("%u of %u bytes (upper layer at %u): %s", cap,
			       ab.len, ab.l4, r ? "refused" : "inverted");
		}
		ok = ok && good;
	}
	ASSERT_EQ(0, invert6(a, ab.len, &rec, bf->src, bf->dst, out));
	good = same_digest(out, ab.len, b, bb.len, KBLOOM_DIGEST_SPIE, 0) &&
	       same_digest(out, ab.len, b, bb.len, KBLOOM_DIGEST_FLOW, 0) &&
	       !same_digest(a, ab.len, b, bb.len, KBLOOM_DIGEST_SPIE, 0);
	EXPECT_TRUE(good);
	return ok && good;
}

/* The NATs of the IPv6 tests, as a flow arrived (b) and left (a). */
struct nat6 {
	const char *name;
	struct flow6 b, a;
};

/* Masquerade, a port forward (the client outside), both at once. */
static const struct nat6 nats6[] = {
	{ "SNAT", { INSIDE6, SERVER6, 40000, 53 },
		  { PUBLIC6, SERVER6, 61000, 53 } },
	{ "SNAT, port kept", { INSIDE6, SERVER6, 40000, 53 },
			     { PUBLIC6, SERVER6, 40000, 53 } },
	{ "DNAT", { SERVER6, PUBLIC6, 33000, 8053 },
		  { SERVER6, WEB6, 33000, 53 } },
	{ "SNAT and DNAT", { INSIDE6, PUBLIC6, 45678, 8443 },
			   { PUBLIC6, WEB6, 2000, 443 } },
};

/* ICMPv6 echo: the request masqueraded, its reply, a forward, both. */
static const struct nat6 echoes6[] = {
	{ "SNAT request", { INSIDE6, SERVER6, 0x0b0b, 0 },
			  { PUBLIC6, SERVER6, 0xe001, 0 } },
	{ "its reply", { SERVER6, PUBLIC6, 0xe001, 0 },
		       { SERVER6, INSIDE6, 0x0b0b, 0 } },
	{ "DNAT request", { SERVER6, PUBLIC6, 0x4242, 0 },
			  { SERVER6, WEB6, 0x4242, 0 } },
	{ "SNAT and DNAT request", { INSIDE6, PUBLIC6, 0x0101, 0 },
				   { PUBLIC6, WEB6, 0x7777, 0 } },
};

/* None; hop-by-hop; destination options; routing; a first fragment; all. */
static const char *const chains6[] = { "", "h", "d", "r", "f", "hdrfd" };

TEST(ipv6_nat_of_udp_udplite_tcp_dccp_inverts_past_extension_headers)
{
	static const uint8_t protos[] = { PROTO_UDP, PROTO_UDPLITE, PROTO_TCP,
					  PROTO_DCCP };
	struct spec6 s = { .payload = 41 };	/* odd: its last byte padded */
	size_t p, n, c;

	for (p = 0; p < ARRAY_SIZE(protos); p++)
		for (n = 0; n < ARRAY_SIZE(nats6); n++)
			for (c = 0; c < ARRAY_SIZE(chains6); c++) {
				s.proto = protos[p];
				s.ext = chains6[c];
				EXPECT_TRUE(nat6_all_caps(_metadata, s,
							  &nats6[n].b,
							  &nats6[n].a)) {
					TH_LOG("protocol %u, %s, headers "
					       "\"%s\"", protos[p],
					       nats6[n].name, chains6[c]);
				}
			}
}

TEST(ipv6_nat_of_icmpv6_echo_inverts_identifier_and_pseudo_header)
{
	struct spec6 s = { .proto = PROTO_ICMPV6, .payload = 56 };
	struct kbloom_xlate rec;
	size_t n, c;

	/* The reply's record: destination and identifier mapped back. */
	rec = rec6(PROTO_ICMPV6, &echoes6[1].b, &echoes6[1].a);
	EXPECT_EQ(KBLOOM_XLATE_SNAT | KBLOOM_XLATE_DNAT, rec.kind);
	for (n = 0; n < ARRAY_SIZE(echoes6); n++)
		for (c = 0; c < ARRAY_SIZE(chains6); c++) {
			s.icmp_type = n == 1 ? 129 : 128;
			s.ext = chains6[c];
			EXPECT_TRUE(nat6_all_caps(_metadata, s, &echoes6[n].b,
						  &echoes6[n].a)) {
				TH_LOG("%s, headers \"%s\"", echoes6[n].name,
				       chains6[c]);
			}
		}
}

/*
 * Builds BEFORE and AFTER of @s (flows @bf, @af) into @b and @a, inverts
 * AFTER with the record into @out; their length and upper layer.
 */
static struct built6 nat6_pair(struct __test_metadata *_metadata,
				struct spec6 s, const struct flow6 *bf,
				const struct flow6 *af, uint8_t *b, uint8_t *a,
				uint8_t *out)
{
	struct kbloom_xlate rec = rec6(s.proto, bf, af);
	struct built6 bb, ab;

	s.f = *bf;
	bb = build6(b, &s);
	s.f = *af;
	ab = build6(a, &s);
	ASSERT_EQ(bb.len, ab.len);
	ASSERT_EQ(0, invert6(a, ab.len, &rec, bf->src, bf->dst, out));
	return ab;
}

TEST(ipv6_udp_checksum_zero_means_none_and_stays_zero)
{
	struct spec6 s = { .proto = PROTO_UDP, .payload = 40, .udp_nocsum = 1 };
	uint8_t b[256], a[256], out[256];
	struct built6 x;
	size_t n, c;

	for (n = 0; n < ARRAY_SIZE(nats6); n++)
		for (c = 0; c < ARRAY_SIZE(chains6); c++) {
			s.ext = chains6[c];
			memset(out, 0xee, sizeof(out));
			x = nat6_pair(_metadata, s, &nats6[n].b, &nats6[n].a,
				      b, a, out);
			ASSERT_EQ(0, get16(a + x.l4 + 6));
			EXPECT_EQ(0, get16(out + x.l4 + 6));
			EXPECT_EQ(-1, first_diff(out, b, x.len)) {
				TH_LOG("%s, headers \"%s\"", nats6[n].name,
				       chains6[c]);
			}
		}
}

/*
 * The payload word that makes the UDP checksum of @s from @f, summed from
 * scratch, come out 0 (so sent as 0xffff), found by trying each.
 */
static uint16_t udp6_zero_word(struct spec6 s, const struct flow6 *f,
			       uint32_t ck)
{
	uint8_t p[256];
	uint32_t w;

	s.f = *f;
	for (w = 1; w <= 0xffff; w++) {
		s.fill = (uint16_t)w;
		build6(p, &s);
		if (get16(p + ck) == 0xffff)
			return (uint16_t)w;
	}
	return 0;
}

TEST(ipv6_udp_checksum_that_becomes_zero_is_sent_as_ffff)
{
	static const char *const chains[] = { "", "hdr" };
	struct spec6 s = { .proto = PROTO_UDP, .payload = 40 };
	uint8_t b[256], a[256], out[256];
	const struct flow6 *bf, *af;
	uint32_t len, ck;
	size_t n, c;

	for (n = 0; n < ARRAY_SIZE(nats6); n++)
		for (c = 0; c < ARRAY_SIZE(chains); c++) {
			bf = &nats6[n].b;
			af = &nats6[n].a;
			s.ext = chains[c];
			ck = (c ? 40 + 8 + 16 + 24 : 40) + 6;
			/* BEFORE's sum is 0: sent 0xffff, AFTER's is not. */
			s.fill = udp6_zero_word(s, bf, ck);
			ASSERT_NE(0, s.fill);
			len = nat6_pair(_metadata, s, bf, af, b, a, out).len;
			ASSERT_EQ(0xffff, get16(b + ck));
			ASSERT_NE(0xffff, get16(a + ck));
			ASSERT_NE(0, get16(a + ck));
			EXPECT_EQ(0xffff, get16(out + ck));
			EXPECT_EQ(-1, first_diff(out, b, len)) {
				TH_LOG("%s, headers \"%s\"", nats6[n].name,
				       chains[c]);
			}
			/* The other way round: AFTER's sum is 0. */
			s.fill = udp6_zero_word(s, af, ck);
			ASSERT_NE(0, s.fill);
			len = nat6_pair(_metadata, s, bf, af, b, a, out).len;
			ASSERT_EQ(0xffff, get16(a + ck));
			ASSERT_NE(0xffff, get16(b + ck));
			EXPECT_EQ(-1, first_diff(out, b, len)) {
				TH_LOG("%s, headers \"%s\"", nats6[n].name,
				       chains[c]);
			}
		}
}

/*
 * A TCP capture cut at 8 bytes of TCP: the ports in, the checksum (bytes
 * 16-17) not, and not written; cut at 17 bytes, half of it left as found;
 * at 18, right.
 */
TEST(ipv6_tcp_checksum_is_written_only_when_captured)
{
	static const char *const chains[] = { "", "hf" };
	struct spec6 s = { .proto = PROTO_TCP, .payload = 60 };
	const struct nat6 *n = &nats6[3];
	struct kbloom_xlate rec = rec6(PROTO_TCP, &n->b, &n->a);
	uint8_t b[256], a[256], out[256];
	struct built6 bb;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(chains); c++) {
		s.ext = chains[c];
		s.f = n->b;
		bb = build6(b, &s);
		s.f = n->a;
		build6(a, &s);
		ASSERT_NE(a[bb.l4 + 16], b[bb.l4 + 16]);
		ASSERT_NE(a[bb.l4 + 17], b[bb.l4 + 17]);
		memset(out, 0xee, sizeof(out));
		ASSERT_EQ(0, invert6(a, bb.l4 + 8, &rec, n->b.src, n->b.dst,
				     out));
		EXPECT_EQ(-1, first_diff(out, b, bb.l4 + 8));
		EXPECT_EQ(0xee, out[bb.l4 + 8]);
		ASSERT_EQ(0, invert6(a, bb.l4 + 17, &rec, n->b.src, n->b.dst,
				     out));
		EXPECT_EQ(-1, first_diff(out, b, bb.l4 + 16));
		EXPECT_EQ(a[bb.l4 + 16], out[bb.l4 + 16]);
		ASSERT_EQ(0, invert6(a, bb.l4 + 18, &rec, n->b.src, n->b.dst,
				     out));
		EXPECT_EQ(-1, first_diff(out, b, bb.l4 + 18));
	}
}

/*
 * A source address of the record's fold other than BEFORE's: taken as
 * given (the record cannot tell), the checksums right for it.
 */
TEST(ipv6_invert_takes_any_address_of_the_record_s_fold)
{
	static const uint8_t mask[4] = { 0xc0, 0xff, 0xee, 0x42 };
	struct spec6 s = { .proto = PROTO_TCP, .payload = 20, .ext = "d" };
	struct flow6 bf = nats6[3].b, alt;
	const struct flow6 *af = &nats6[3].a;
	struct kbloom_xlate rec = rec6(PROTO_TCP, &bf, af);
	uint8_t src2[16], b[256], a[256], out[256];
	uint32_t len;
	size_t i;

	memcpy(src2, bf.src, 16);
	for (i = 0; i < 4; i++) {
		src2[4 + i] ^= mask[i];
		src2[12 + i] ^= mask[i];
	}
	ASSERT_EQ(ref_fold6(bf.src), ref_fold6(src2));
	alt = bf;
	alt.src = src2;
	s.f = alt;
	len = build6(b, &s).len;
	s.f = *af;
	build6(a, &s);
	ASSERT_EQ(0, invert6(a, len, &rec, src2, bf.dst, out));
	EXPECT_EQ(-1, first_diff(out, b, len));
}

/*
 * The router's hop limit and traffic class (DSCP rewritten) are left as
 * found: SPIE zeroes both, so the digest is BEFORE's all the same.
 */
TEST(ipv6_hop_limit_and_traffic_class_are_left_as_found)
{
	struct spec6 s = { .proto = PROTO_UDP, .payload = 30, .ext = "h" };
	const struct nat6 *n = &nats6[0];
	struct kbloom_xlate rec = rec6(PROTO_UDP, &n->b, &n->a);
	uint8_t b[256], a[256], out[256];
	struct kb_digest db, dout;
	uint32_t len;

	s.f = n->b;
	len = build6(b, &s).len;
	s.f = n->a;
	s.hlim = 63;
	s.tclass = 0xb8;
	build6(a, &s);
	ASSERT_EQ(0, invert6(a, len, &rec, n->b.src, n->b.dst, out));
	EXPECT_EQ(-1, first_diff(out, a, 2));
	EXPECT_EQ(63, out[7]);
	EXPECT_EQ(-1, first_diff(out + 2, b + 2, 5));
	EXPECT_EQ(-1, first_diff(out + 8, b + 8, len - 8));
	ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(b, len, KBLOOM_DIGEST_SPIE, &db));
	ASSERT_EQ(KBLOOM_SKIP_NONE,
		  kb_digest(out, len, KBLOOM_DIGEST_SPIE, &dout));
	ASSERT_EQ(48, db.len);
	EXPECT_EQ(-1, first_diff(dout.key, db.key, 48));
}

/*
 * A jumbogram (RFC 2675): payload length 0, a hop-by-hop header with a
 * Jumbo Payload option, then UDP of @f (its length 0); 72 bytes captured.
 */
static uint32_t jumbo6(uint8_t *p, const struct flow6 *f)
{
	memset(p, 0, 72);
	p[0] = 0x60;
	p[6] = NH_HOPOPTS;
	p[7] = 64;
	memcpy(p + 8, f->src, 16);
	memcpy(p + 24, f->dst, 16);
	p[40] = PROTO_UDP;
	p[42] = 0xc2;			/* Jumbo Payload, 4 bytes */
	p[43] = 4;
	set32(p + 44, 70000);
	set16(p + 48, f->sport);
	set16(p + 50, f->dport);
	set16(p + 54, 0x1234);
	return 72;
}

TEST(ipv6_invert_refuses_other_folds_family_4_later_fragments_jumbograms)
{
	struct spec6 s = { .proto = PROTO_UDP, .payload = 40, .ext = "h" };
	const struct nat6 *n = &nats6[3];
	struct kbloom_xlate rec = rec6(PROTO_UDP, &n->b, &n->a), r;
	uint8_t a[256], out[256], fresh[256], src2[16];
	struct built6 ab;

	s.f = n->a;
	ab = build6(a, &s);
	memset(fresh, 0x5a, sizeof(fresh));
	memcpy(out, fresh, sizeof(out));
	ASSERT_EQ(0, invert6(a, ab.len, &rec, n->b.src, n->b.dst, out));
	memcpy(out, fresh, sizeof(out));

	/* BEFORE addresses whose folds are not the record's. */
	EXPECT_EQ(-1, invert6(a, ab.len, &rec, SERVER6, n->b.dst, out));
	EXPECT_EQ(-1, invert6(a, ab.len, &rec, n->b.src, SERVER6, out));
	EXPECT_EQ(-1, invert6(a, ab.len, &rec, n->b.dst, n->b.src, out));
	EXPECT_EQ(-1, invert6(a, ab.len, &rec, n->a.src, n->a.dst, out));
	memcpy(src2, n->b.src, 16);
	src2[15] ^= 1;
	EXPECT_EQ(-1, invert6(a, ab.len, &rec, src2, n->b.dst, out));
	/* A record of family 4, or of another key. */
	r = rec;
	r.family = 4;
	EXPECT_EQ(-1, invert6(a, ab.len, &r, n->b.src, n->b.dst, out));
	r = rec;
	r.after_src = ref_fold6(src2);
	EXPECT_EQ(-1, invert6(a, ab.len, &r, n->b.src, n->b.dst, out));
	r = rec;
	r.after_dport = htons(444);
	EXPECT_EQ(-1, invert6(a, ab.len, &r, n->b.src, n->b.dst, out));
	r = rec;
	r.proto = PROTO_TCP;
	EXPECT_EQ(-1, invert6(a, ab.len, &r, n->b.src, n->b.dst, out));
	/* IPv4's inversion takes no family 6 record. */
	EXPECT_EQ(-1, invert(a, ab.len, &rec, out));
	EXPECT_EQ(-1, first_diff(out, fresh, sizeof(out)));

	/* A later fragment, its data starting with the flow's ports. */
	s.ext = "hf";
	s.later = 2;
	ab = build6(a, &s);
	set16(a + ab.l4, n->a.sport);
	set16(a + ab.l4 + 2, n->a.dport);
	EXPECT_EQ(-1, invert6(a, ab.len, &rec, n->b.src, n->b.dst, out));
	/* A jumbogram. */
	EXPECT_EQ(-1, invert6(a, jumbo6(a, &n->a), &rec, n->b.src, n->b.dst,
			      out));
	EXPECT_EQ(-1, first_diff(out, fresh, sizeof(out)));
}

/* @w against the key of @f (@proto): field by field, each one printed. */
static bool key6_is(const struct kbloom_xlate *w, uint8_t proto,
		    const struct flow6 *f)
{
	struct kbloom_xlate k = {
		.proto = proto,
		.family = 6,
		.after_src = ref_fold6(f->src),
		.after_dst = ref_fold6(f->dst),
		.after_sport = htons(f->sport),
		.after_dport = htons(f->dport),
	};

	if (!memcmp(w, &k, sizeof(k)))
		return true;
	kb_diag("key: state %u kind %u proto %u family %u before %08x %08x %u %u after %08x %08x %u %u first %u",
		w->state, w->kind, w->proto, w->family, ntohl(w->before_src),
		ntohl(w->before_dst), ntohs(w->before_sport),
		ntohs(w->before_dport), ntohl(w->after_src),
		ntohl(w->after_dst), ntohs(w->after_sport),
		ntohs(w->after_dport), w->first);
	kb_diag("want: proto %u family 6 after %08x %08x %u %u", proto,
		ntohl(k.after_src), ntohl(k.after_dst), f->sport, f->dport);
	return false;
}

TEST(ipv6_want_keys_past_extension_headers_field_by_field)
{
	static const uint8_t protos[] = { PROTO_UDP, PROTO_UDPLITE, PROTO_TCP,
					  PROTO_DCCP };
	struct flow6 f = { PUBLIC6, WEB6, 2000, 443 }, none = f;
	struct spec6 s = { .payload = 12, .f = f };
	struct kbloom_xlate w;
	uint8_t p[256];
	size_t i, c;
	uint32_t len;

	memset(&w, 0xa5, sizeof(w));
	for (c = 0; c < ARRAY_SIZE(chains6); c++) {
		s.ext = chains6[c];
		for (i = 0; i < ARRAY_SIZE(protos); i++) {
			s.proto = protos[i];
			len = build6(p, &s).len;
			memset(&w, 0xa5, sizeof(w));
			ASSERT_EQ(0, want(p, len, &w));
			EXPECT_TRUE(key6_is(&w, protos[i], &f)) {
				TH_LOG("protocol %u, headers \"%s\"",
				       protos[i], chains6[c]);
			}
		}
		/* An echo request and reply: the identifier in sport. */
		s.proto = PROTO_ICMPV6;
		s.f.sport = 0x0b0b;
		s.f.dport = 0;
		for (i = 128; i <= 129; i++) {
			s.icmp_type = (uint8_t)i;
			len = build6(p, &s).len;
			memset(&w, 0xa5, sizeof(w));
			ASSERT_EQ(0, want(p, len, &w));
			EXPECT_TRUE(key6_is(&w, PROTO_ICMPV6, &s.f)) {
				TH_LOG("type %zu, headers \"%s\"", i,
				       chains6[c]);
			}
		}
		/* Not an echo (an unreachable, a neighbor solicitation): 0. */
		none.sport = none.dport = 0;
		s.icmp_type = 1;
		len = build6(p, &s).len;
		ASSERT_EQ(0, want(p, len, &w));
		EXPECT_TRUE(key6_is(&w, PROTO_ICMPV6, &none));
		s.icmp_type = 135;
		len = build6(p, &s).len;
		ASSERT_EQ(0, want(p, len, &w));
		EXPECT_TRUE(key6_is(&w, PROTO_ICMPV6, &none));
		s.f = f;
		s.icmp_type = 0;
	}
}

TEST(ipv6_want_refuses_later_fragments_jumbograms_and_short_packets)
{
	struct flow6 f = { PUBLIC6, WEB6, 2000, 443 };
	struct spec6 s = { .proto = PROTO_UDP, .payload = 40, .f = f,
			   .ext = "hd" };
	struct kbloom_xlate w;
	uint8_t p[256];
	struct built6 bp;

	bp = build6(p, &s);
	ASSERT_EQ(40 + 8 + 16, bp.l4);
	ASSERT_EQ(0, want(p, bp.len, &w));
	/* The payload length bounds the key: past it is padding. */
	set16(p + 4, 8 + 16 + 3);
	EXPECT_EQ(-1, want(p, bp.len, &w));
	set16(p + 4, 8 + 16 + 4);
	EXPECT_EQ(0, want(p, bp.len, &w));
	EXPECT_TRUE(key6_is(&w, PROTO_UDP, &f));
	/* A destination options header longer than the payload. */
	set16(p + 4, bp.len - 40);
	p[48 + 1] = 200;
	EXPECT_EQ(-1, want(p, bp.len, &w));
	p[48 + 1] = 1;
	/* No IPv6 header: too short, another version. */
	EXPECT_EQ(-1, want(p, 39, &w));
	p[0] = 0x50;
	EXPECT_EQ(-1, want(p, bp.len, &w));
	p[0] = 0x60;
	ASSERT_EQ(0, want(p, bp.len, &w));
	/* Later fragments, the last one too: no ports, no key. */
	s.ext = "hf";
	s.later = 181;
	s.payload = 1500;
	bp = build6(p, &s);
	set16(p + bp.l4, f.sport);
	set16(p + bp.l4 + 2, f.dport);
	EXPECT_EQ(-1, want(p, bp.len, &w));
	p[bp.l4 - 8 + 3] &= ~1;		/* M clear */
	EXPECT_EQ(-1, want(p, bp.len, &w));
	/* A first one (and an atomic one, M clear) has its key. */
	s.later = 0;
	s.payload = 40;
	bp = build6(p, &s);
	ASSERT_EQ(0, want(p, bp.len, &w));
	EXPECT_TRUE(key6_is(&w, PROTO_UDP, &f));
	p[bp.l4 - 8 + 3] &= ~1;
	ASSERT_EQ(0, want(p, bp.len, &w));
	EXPECT_TRUE(key6_is(&w, PROTO_UDP, &f));
	/* A jumbogram. */
	EXPECT_EQ(-1, want(p, jumbo6(p, &f), &w));
}

TEST(ipv6_later_fragment_is_6_first_fragment_0)
{
	struct flow6 f = { PUBLIC6, WEB6, 2000, 443 };
	struct spec6 s = { .proto = PROTO_UDP, .payload = 1500, .f = f,
			   .ext = "f", .later = 181 };
	uint8_t p[256];
	struct built6 bp;

	bp = build6(p, &s);
	EXPECT_EQ(6, pkt_is_later_fragment(p, bp.len));
	p[bp.l4 - 8 + 3] &= ~1;		/* the last one */
	EXPECT_EQ(6, pkt_is_later_fragment(p, bp.len));
	/* Past a hop-by-hop header and destination options. */
	s.ext = "hdf";
	bp = build6(p, &s);
	EXPECT_EQ(6, pkt_is_later_fragment(p, bp.len));
	/* Its fragment header cut short: not known to be one. */
	EXPECT_EQ(0, pkt_is_later_fragment(p, bp.l4 - 1));
	/* A first fragment, an atomic one, none at all. */
	s.later = 0;
	s.payload = 40;
	bp = build6(p, &s);
	EXPECT_EQ(0, pkt_is_later_fragment(p, bp.len));
	p[bp.l4 - 8 + 3] &= ~1;
	EXPECT_EQ(0, pkt_is_later_fragment(p, bp.len));
	s.ext = "hd";
	bp = build6(p, &s);
	EXPECT_EQ(0, pkt_is_later_fragment(p, bp.len));
	EXPECT_EQ(0, pkt_is_later_fragment(p, jumbo6(p, &f)));
}

TEST(addrs_key_has_family_protocol_and_addresses_folded_for_ipv6)
{
	struct flow6 f = { PUBLIC6, WEB6, 2000, 443 }, none = f;
	struct spec6 s = { .proto = PROTO_TCP, .payload = 20, .f = f,
			   .ext = "hdr" };
	struct spec s4 = { .proto = PROTO_UDP, .payload = 8,
			   .f = { INSIDE, SERVER, 40000, 53 } };
	struct kbloom_xlate w, k4 = { .proto = PROTO_UDP, .family = 4 };
	uint8_t p[2048];
	uint32_t len;

	none.sport = none.dport = 0;
	memset(&w, 0xa5, sizeof(w));
	len = build6(p, &s).len;
	ASSERT_EQ(0, pkt_addrs_key(p, len, &w));
	EXPECT_TRUE(key6_is(&w, PROTO_TCP, &none));
	/* A later fragment: the protocol of its fragment header. */
	s.proto = PROTO_UDP;
	s.ext = "hf";
	s.later = 100;
	s.payload = 1000;
	memset(&w, 0xa5, sizeof(w));
	len = build6(p, &s).len;
	ASSERT_EQ(0, pkt_addrs_key(p, len, &w));
	EXPECT_TRUE(key6_is(&w, PROTO_UDP, &none));
	/* No IPv6 header to key: a jumbogram, a short one, version 5. */
	EXPECT_EQ(-1, pkt_addrs_key(p, jumbo6(p, &f), &w));
	EXPECT_EQ(-1, pkt_addrs_key(p, 39, &w));
	len = build6(p, &s).len;
	p[0] = 0x50;
	EXPECT_EQ(-1, pkt_addrs_key(p, len, &w));
	/* IPv4: its addresses as they are. */
	len = build(p, &s4);
	k4.after_src = htonl(INSIDE);
	k4.after_dst = htonl(SERVER);
	memset(&w, 0xa5, sizeof(w));
	ASSERT_EQ(0, pkt_addrs_key(p, len, &w));
	EXPECT_EQ(0, memcmp(&w, &k4, sizeof(w)));
}

/* ---- ICMPv6 errors about a NAT'ed IPv6 flow ---- */

/*
 * An ICMPv6 message of @type (1-4: an error, RFC 4443 3; 2: packet too
 * big, its MTU 1280) from @src to @dst past headers @ext quoting the
 * whole packet @q (RFC 4443: as much as fits); its length.
 */
static struct built6 icmp6_error(uint8_t *p, uint8_t type, const uint8_t *src,
				 const uint8_t *dst, const char *ext,
				 const struct spec6 *q)
{
	uint8_t quoted[512];
	struct spec6 e = { .proto = PROTO_ICMPV6, .icmp_type = type,
			   .ext = ext, .f = { src, dst, 0, 0 } };

	e.payload = build6(quoted, q).len;
	e.body = quoted;
	e.carried = 8 + e.payload;	/* a first fragment carries it all */
	return build6(p, &e);
}

TEST(icmpv6_errors_about_a_masqueraded_flow_are_known_by_either_record)
{
	/* fd09::5:40000 -> SERVER6:53 masqueraded to fd64::1:61000. */
	struct flow6 in = { INSIDE6, SERVER6, 40000, 53 };
	struct flow6 out = { PUBLIC6, SERVER6, 61000, 53 };
	struct flow6 rin = { SERVER6, PUBLIC6, 53, 61000 };
	struct flow6 rout = { SERVER6, INSIDE6, 53, 40000 };
	struct kbloom_xlate orig = rec6(PROTO_UDP, &in, &out);
	struct kbloom_xlate reply = rec6(PROTO_UDP, &rin, &rout), r4;
	struct spec6 q = { .proto = PROTO_UDP, .payload = 24, .f = in };
	static const char *const exts[] = { "", "h" };
	uint8_t p[512];
	uint32_t len;
	size_t e;

	for (e = 0; e < ARRAY_SIZE(exts); e++) {
		/* Packet too big from SERVER6's side as it reached fd09::5. */
		q.ext = exts[e];
		q.f = in;
		len = icmp6_error(p, 2, SERVER6, INSIDE6, exts[e], &q).len;
		EXPECT_EQ(1, pkt_icmp_error_of(&orig, p, len));
		EXPECT_EQ(1, pkt_icmp_error_of(&reply, p, len));
		/* ... as it left there: not yet rewritten, no record's. */
		q.f = out;
		len = icmp6_error(p, 2, SERVER6, PUBLIC6, exts[e], &q).len;
		EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
		EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
		/*
		 * Time exceeded from inside about a reply, as it left: the
		 * NAT set its source to PUBLIC6 (2, as for IPv4).
		 */
		q.f = rin;
		len = icmp6_error(p, 3, PUBLIC6, SERVER6, exts[e], &q).len;
		EXPECT_EQ(2, pkt_icmp_error_of(&orig, p, len));
		EXPECT_EQ(2, pkt_icmp_error_of(&reply, p, len));
		/* ... as it left the router inside: no record's. */
		q.f = rout;
		len = icmp6_error(p, 3, WEB6, SERVER6, exts[e], &q).len;
		EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
		EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
		/* Another flow: a port, the protocol, an address. */
		q.f = in;
		q.f.sport = 40001;
		len = icmp6_error(p, 3, SERVER6, INSIDE6, exts[e], &q).len;
		EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
		EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
		q.f = in;
		q.proto = PROTO_TCP;
		len = icmp6_error(p, 3, SERVER6, INSIDE6, exts[e], &q).len;
		EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
		EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
		q.proto = PROTO_UDP;
		q.f.dst = WEB6;
		len = icmp6_error(p, 3, SERVER6, INSIDE6, exts[e], &q).len;
		EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
		EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
	}
	/* A record of family 4 with the same fields is no IPv6 flow's. */
	q.ext = "";
	q.f = in;
	len = icmp6_error(p, 2, SERVER6, INSIDE6, "", &q).len;
	r4 = orig;
	r4.family = 4;
	EXPECT_EQ(0, pkt_icmp_error_of(&r4, p, len));
	r4 = reply;
	r4.family = 4;
	EXPECT_EQ(0, pkt_icmp_error_of(&r4, p, len));
}

TEST(icmpv6_errors_about_an_echo_match_its_identifier)
{
	struct flow6 in = { INSIDE6, SERVER6, 0x0b0b, 0 };
	struct flow6 out = { PUBLIC6, SERVER6, 0xe001, 0 };
	struct flow6 rin = { SERVER6, PUBLIC6, 0xe001, 0 };
	struct flow6 rout = { SERVER6, INSIDE6, 0x0b0b, 0 };
	struct kbloom_xlate orig = rec6(PROTO_ICMPV6, &in, &out);
	struct kbloom_xlate reply = rec6(PROTO_ICMPV6, &rin, &rout);
	struct spec6 q = { .proto = PROTO_ICMPV6, .icmp_type = 128,
			   .payload = 16, .f = in };
	uint8_t p[512];
	uint32_t len;

	len = icmp6_error(p, 3, SERVER6, INSIDE6, "", &q).len;
	EXPECT_EQ(1, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(1, pkt_icmp_error_of(&reply, p, len));
	q.f.sport = 0x0b0c;
	len = icmp6_error(p, 3, SERVER6, INSIDE6, "", &q).len;
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, len));
	EXPECT_EQ(0, pkt_icmp_error_of(&reply, p, len));
}

TEST(only_whole_icmpv6_errors_quoting_ipv6_count)
{
	struct flow6 in = { INSIDE6, SERVER6, 40000, 53 };
	struct flow6 out = { PUBLIC6, SERVER6, 61000, 53 };
	struct kbloom_xlate orig = rec6(PROTO_UDP, &in, &out);
	struct spec6 q = { .proto = PROTO_UDP, .payload = 24, .f = in };
	uint8_t p[512];
	struct built6 e;
	uint32_t k;
	int t;

	/* Errors are types 1-4; echo (128, 129) and the rest are not. */
	for (t = 0; t < 256; t++) {
		e = icmp6_error(p, (uint8_t)t, SERVER6, INSIDE6, "", &q);
		EXPECT_EQ(t >= 1 && t <= 4, pkt_icmp_error_of(&orig, p, e.len))
			TH_LOG("type %d", t);
	}
	/* Cut short: the quoted header and its ports needed. */
	e = icmp6_error(p, 1, SERVER6, INSIDE6, "d", &q);
	for (k = 0; k <= e.len; k++)
		EXPECT_EQ(k >= e.l4 + 8 + 40 + 4,
			  pkt_icmp_error_of(&orig, p, k)) TH_LOG("%u bytes", k);
	/* Quoting IPv4, or a later fragment; a later fragment's error. */
	p[e.l4 + 8] = 0x45;
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, e.len));
	q.ext = "f";
	q.later = 3;
	e = icmp6_error(p, 1, SERVER6, INSIDE6, "", &q);
	set16(p + e.l4 + 8 + 48, in.sport);
	set16(p + e.l4 + 8 + 50, in.dport);
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, e.len));
	q.ext = "";
	q.later = 0;
	e = icmp6_error(p, 1, SERVER6, INSIDE6, "f", &q);
	set16(p + 40 + 2, 8 << 3);
	EXPECT_EQ(0, pkt_icmp_error_of(&orig, p, e.len));
}


/* ---- ICMP errors as they were before the NAT ---- */

/*
 * An outside client of a port forward, a router on the way outside and
 * one inside: errors from the path.
 */
#define CLIENT		IP4(192, 0, 2, 77)
#define ROUTER		IP4(203, 0, 113, 1)
#define ROUTER_IN	IP4(192, 168, 1, 254)

/*
 * ICMP error @e (its type, addresses and IP options) around the @qlen
 * bytes at @quote, into @p: the outer total length its header + 8 +
 * @qlen, both checksums from scratch (the ICMP one over the whole
 * message, quote included). Its length.
 */
static uint32_t error_around(uint8_t *p, struct spec e, const uint8_t *quote,
			     uint32_t qlen)
{
	uint32_t hl = 20 + 4u * e.optwords, len;

	e.proto = PROTO_ICMP;
	e.payload = qlen;
	len = build(p, &e);
	memcpy(p + hl + 8, quote, qlen);
	set16(p + hl + 2, 0);
	set16(p + hl + 2, ~ref_sum(0, p + hl, len - hl) & 0xffff);
	return len;
}

/*
 * ICMP error @type from @src to @dst quoting packet @q (built whole,
 * its checksums from scratch) up to @l4q bytes past its IP header (0:
 * all of it). Its length.
 */
static uint32_t error_quoting(uint8_t *p, uint8_t type, uint32_t src,
			      uint32_t dst, const struct spec *q, uint32_t l4q)
{
	struct spec e = { .icmp_type = type, .f = { src, dst, 0, 0 } };
	uint32_t qhl = 20 + 4u * q->optwords, n;
	uint8_t quoted[1024];

	n = build(quoted, q);
	if (l4q && qhl + l4q < n)
		n = qhl + l4q;
	return error_around(p, e, quoted, n);
}

/* pkt_icmp_error_of() on a copy of @pkt in a buffer of exactly @len. */
static int err_of(const struct kbloom_xlate *rec, const uint8_t *pkt,
		  uint32_t len)
{
	uint8_t *in = malloc(len);
	int r;

	memcpy(in, pkt, len);
	r = pkt_icmp_error_of(rec, in, len);
	free(in);
	return r;
}

/* pkt_icmp_error_invert(), in and out buffers of exactly @len bytes. */
static int err_invert(const struct kbloom_xlate *rec, const uint8_t *pkt,
		      uint32_t len, uint8_t *out)
{
	uint8_t *in = malloc(len), *o = malloc(len);
	int r;

	memcpy(in, pkt, len);
	memset(o, 0xa5, len);
	r = pkt_icmp_error_invert(rec, in, len, o);
	memcpy(out, o, len);
	free(in);
	free(o);
	return r;
}

/* The 16-byte row of @got, @want and @in holding byte @k, printed. */
static void hex_rows(const uint8_t *got, const uint8_t *want,
		     const uint8_t *in, uint32_t len, uint32_t k)
{
	const uint8_t *rows[] = { got, want, in };
	static const char *const names[] = { "got ", "want", "in  " };
	uint32_t from = k & ~15u, i, r, n;
	char line[16 * 3 + 1];

	for (r = 0; r < 3; r++) {
		line[0] = 0;
		for (i = from, n = 0; i < len && i < from + 16; i++)
			n += snprintf(line + n, sizeof(line) - n, " %02x",
				      rows[r][i]);
		kb_diag("%s %3u:%s", names[r], from, line);
	}
}

/*
 * Inverting error @after (@len bytes) with @rec must give @before byte
 * for byte: the first differing byte (printed with its row), -1 when
 * equal, -2 when refused.
 */
static int err_case(const struct kbloom_xlate *rec, const uint8_t *after,
		    const uint8_t *before, uint32_t len)
{
	uint8_t out[2048];
	int k;

	if (err_invert(rec, after, len, out))
		return -2;
	k = first_diff(out, before, len);
	if (k >= 0)
		hex_rows(out, before, after, len, (uint32_t)k);
	return k;
}

/* Whether the ICMP message of error @p (@len bytes, whole) sums right. */
static bool icmp_sums(const uint8_t *p, uint32_t len)
{
	uint32_t hl = (p[0] & 0x0f) * 4u;

	return ref_sum(0, p + hl, len - hl) == 0xffff &&
	       ref_sum(0, p, hl) == 0xffff;
}

/*
 * The flows the errors below are about, each as conntrack records it:
 * the orig direction as it arrived at the NAT and as it left, then the
 * reply direction's. An echo's identifier is its source port.
 */
/* INSIDE:40000 -> SERVER:53 masqueraded to PUBLIC:61000. */
static const struct flow masq_udp[4] = {
	{ INSIDE, SERVER, 40000, 53 }, { PUBLIC, SERVER, 61000, 53 },
	{ SERVER, PUBLIC, 53, 61000 }, { SERVER, INSIDE, 53, 40000 },
};

/* CLIENT:50000 -> PUBLIC:8053 forwarded to INSIDE:53. */
static const struct flow fwd_udp[4] = {
	{ CLIENT, PUBLIC, 50000, 8053 }, { CLIENT, INSIDE, 50000, 53 },
	{ INSIDE, CLIENT, 53, 50000 }, { PUBLIC, CLIENT, 8053, 50000 },
};

/* INSIDE:51514 -> SERVER:443 masqueraded to PUBLIC:1025. */
static const struct flow masq_tcp[4] = {
	{ INSIDE, SERVER, 51514, 443 }, { PUBLIC, SERVER, 1025, 443 },
	{ SERVER, PUBLIC, 443, 1025 }, { SERVER, INSIDE, 443, 51514 },
};

/* INSIDE's ping, id 0x0b0b, masqueraded to PUBLIC with 0xe001. */
static const struct flow masq_echo[4] = {
	{ INSIDE, SERVER, 0x0b0b, 0 }, { PUBLIC, SERVER, 0xe001, 0 },
	{ SERVER, PUBLIC, 0xe001, 0 }, { SERVER, INSIDE, 0x0b0b, 0 },
};

/* CLIENT's ping to PUBLIC, id 0x0c0c, forwarded to INSIDE. */
static const struct flow fwd_echo[4] = {
	{ CLIENT, PUBLIC, 0x0c0c, 0 }, { CLIENT, INSIDE, 0x0c0c, 0 },
	{ INSIDE, CLIENT, 0x0c0c, 0 }, { PUBLIC, CLIENT, 0x0c0c, 0 },
};

/* The NAT box's own ping from PUBLIC, id 0x0b0b remapped to 0xe002. */
static const struct flow remap_echo[4] = {
	{ PUBLIC, SERVER, 0x0b0b, 0 }, { PUBLIC, SERVER, 0xe002, 0 },
	{ SERVER, PUBLIC, 0xe002, 0 }, { SERVER, PUBLIC, 0x0b0b, 0 },
};

/* A quote of all of the packet, however long. */
#define QUOTE_ALL	UINT32_MAX

/*
 * An ICMP error about a packet of the flow @f as the NAT sent it on,
 * from @src_b to that packet's source, quoting it (BEFORE); and as the
 * NAT sent the error on from @src_a to the source the packet had when
 * it arrived, quoting it as it arrived (AFTER). Inverting AFTER with
 * either record of the flow must give BEFORE.
 */
struct err_case_spec {
	const char *what;	/* named in failures (NULL: nothing) */
	const struct flow *f;	/* 4, as above */
	int reply;		/* about the reply's packet, else orig's */
	int orig_only;		/* inverted with the orig record only */
	struct spec q;		/* the quoted packet, its flow aside */
	uint8_t type;		/* the error's ICMP type */
	uint8_t optwords;	/* its IP options, 4-byte words */
	uint32_t src_b, src_a;	/* its outer source before, after */
	uint32_t l4q[5];	/* bytes quoted past the quote's IP header, */
				/* up to a 0; none: QUOTE_ALL only */
	int of;			/* pkt_icmp_error_of(): 1 or 2 */
	uint32_t keep;		/* the quote's offset of a 16-bit field the */
				/* NAT left as it came (0: none) */
	uint32_t differs;	/* ... of one it rewrote (0: none) */
};

/* The record conntrack makes of direction @reply of @c's flow. */
static struct kbloom_xlate err_rec(const struct err_case_spec *c, int reply)
{
	return rec_of(c->q.proto, &c->f[2 * reply], &c->f[2 * reply + 1]);
}

/*
 * Error @c quoting @l4q bytes past its quote's IP header (QUOTE_ALL:
 * all of it) into @b as before and @a as after, both checksums summing
 * right. Its length.
 */
static uint32_t err_pair(struct __test_metadata *_metadata,
			 const struct err_case_spec *c, uint32_t l4q,
			 uint8_t *b, uint8_t *a)
{
	const struct flow *left = &c->f[2 * c->reply + 1];
	const struct flow *came = &c->f[2 * c->reply];
	struct spec q = c->q;
	struct spec e = { .icmp_type = c->type, .optwords = c->optwords };
	uint32_t qhl = 20 + 4u * q.optwords, n, len;
	uint8_t qb[1024], qa[1024];

	q.f = *left;
	n = build(qb, &q);
	q.f = *came;
	ASSERT_EQ(n, build(qa, &q));
	if (c->keep)
		memcpy(qa + c->keep, qb + c->keep, 2);
	if (l4q < n - qhl)
		n = qhl + l4q;
	e.f = (struct flow){ c->src_b, left->src, 0, 0 };
	len = error_around(b, e, qb, n);
	e.f = (struct flow){ c->src_a, came->src, 0, 0 };
	ASSERT_EQ(len, error_around(a, e, qa, n));
	ASSERT_TRUE(icmp_sums(b, len));
	ASSERT_TRUE(icmp_sums(a, len));
	return len;
}

/*
 * For each quote length of @c, the error after the NAT is one of each
 * record's (@c->of) and inverts with it to the error before, byte for
 * byte; the field @c->differs, when named, differs between the two.
 */
static void expect_inverts(struct __test_metadata *_metadata,
			   const struct err_case_spec *c)
{
	struct kbloom_xlate recs[2] = { err_rec(c, 0), err_rec(c, 1) };
	uint32_t hl = 20 + 4u * c->optwords, l4q, len;
	size_t i, r, nrecs = c->orig_only ? 1 : 2;
	uint8_t b[256], a[256];
	char why[160];

	for (i = 0; i == 0 || (i < ARRAY_SIZE(c->l4q) && c->l4q[i]); i++) {
		l4q = c->l4q[i] ? c->l4q[i] : QUOTE_ALL;
		len = err_pair(_metadata, c, l4q, b, a);
		if (c->differs) {
			ASSERT_NE(get16(a + hl + 8 + c->differs),
				  get16(b + hl + 8 + c->differs));
		}
		for (r = 0; r < nrecs; r++) {
			snprintf(why, sizeof(why),
				 "%s%s%s record, quote %u bytes, options %u",
				 c->what ? c->what : "", c->what ? ", " : "",
				 r ? "reply" : "orig", len - hl - 8,
				 c->q.optwords);
			EXPECT_EQ(c->of, err_of(&recs[r], a, len))
				TH_LOG("%s", why);
			EXPECT_EQ(-1, err_case(&recs[r], a, b, len))
				TH_LOG("%s", why);
		}
	}
}

TEST(icmp_error_through_a_masquerade_inverts_to_as_it_left_the_server)
{
	/* INSIDE:40000 -> SERVER:53 masqueraded to PUBLIC:61000. */
	struct err_case_spec c = {
		.f = masq_udp, .q = { .proto = PROTO_UDP, .payload = 30 },
		/* As it left SERVER; as the NAT sent it to INSIDE. */
		.type = 3, .src_b = SERVER, .src_a = SERVER, .of = 1,
		/*
		 * RFC 792's 8 bytes, some more, all of it (RFC 1812
		 * 4.3.2.3).
		 */
		.l4q = { 8, 20, QUOTE_ALL },
	};
	int o;

	for (o = 0; o <= 1; o++) {	/* the quote with IP options */
		c.q.optwords = o;
		expect_inverts(_metadata, &c);
	}
}

TEST(icmp_error_with_ip_options_outside_and_quoted_inverts_past_them)
{
	struct err_case_spec c = {
		.f = masq_udp, .orig_only = 1,
		.q = { .proto = PROTO_UDP, .payload = 30, .optwords = 2 },
		.type = 3, .optwords = 1, .src_b = SERVER, .src_a = SERVER,
		.of = 1,
	};
	uint8_t b[256], a[256];
	uint32_t len;

	len = err_pair(_metadata, &c, QUOTE_ALL, b, a);
	ASSERT_EQ(0x46, a[0]);
	ASSERT_EQ(0x47, a[24 + 8]);
	ASSERT_TRUE(icmp_sums(a, len));
	expect_inverts(_metadata, &c);
}

TEST(icmp_error_quoting_udp_without_a_checksum_keeps_it_0)
{
	struct err_case_spec c = {
		.f = masq_udp, .orig_only = 1,
		.q = { .proto = PROTO_UDP, .payload = 30, .udp_nocsum = 1 },
		.type = 3, .src_b = SERVER, .src_a = SERVER, .of = 1,
	};
	uint8_t b[256], a[256];

	err_pair(_metadata, &c, QUOTE_ALL, b, a);
	ASSERT_EQ(0, get16(b + 28 + 26));
	expect_inverts(_metadata, &c);
}

TEST(icmp_error_through_a_port_forward_guesses_the_inside_server_as_source)
{
	/*
	 * CLIENT:50000 -> PUBLIC:8053 forwarded to INSIDE:53, whose port
	 * unreachable the NAT sent on from PUBLIC (nf_nat_icmp_reply_
	 * translation(): the flow's own address there): who sent it is
	 * lost (a router inside would look the same), INSIDE the guess.
	 */
	expect_inverts(_metadata, &(struct err_case_spec){
		.f = fwd_udp, .q = { .proto = PROTO_UDP, .payload = 30 },
		.type = 3, .src_b = INSIDE, .src_a = PUBLIC, .of = 2,
		.l4q = { 8, QUOTE_ALL },
	});
}

TEST(icmp_error_from_inside_about_a_masqueraded_reply_guesses_the_host)
{
	/*
	 * ROUTER_IN's time exceeded about SERVER's reply to INSIDE, sent
	 * on by the NAT from PUBLIC: the guess is INSIDE, the flow's end.
	 */
	expect_inverts(_metadata, &(struct err_case_spec){
		.f = masq_udp, .reply = 1,
		.q = { .proto = PROTO_UDP, .payload = 30, .ttl = 1 },
		/* The guess, not what ROUTER_IN sent: its address is lost. */
		.type = 11, .src_b = INSIDE, .src_a = PUBLIC, .of = 2,
	});
}

TEST(icmp_error_quoting_a_whole_tcp_header_gets_its_tcp_checksum_back)
{
	expect_inverts(_metadata, &(struct err_case_spec){
		.f = masq_tcp,
		.q = { .proto = PROTO_TCP, .payload = 100, .ttl = 1 },
		.type = 11, .src_b = ROUTER, .src_a = ROUTER, .of = 1,
		/*
		 * The whole header (tcp_manip_pkt() rewrites the
		 * checksum), all.
		 */
		.l4q = { 20, 21, 32, QUOTE_ALL },
		/* The quoted TCP checksums differ: it has to be rewritten. */
		.differs = 20 + 16,
	});
}

TEST(icmp_error_quoting_part_of_a_tcp_header_gets_its_ports_only)
{
	/*
	 * tcp_manip_pkt(): with less than the 20-byte header quoted, the
	 * NAT rewrites the ports only, and leaves a quoted checksum (18 or
	 * 19 bytes: it is in) as it was; the ICMP checksum is summed anew.
	 */
	struct err_case_spec c = {
		.f = masq_tcp,
		.q = { .proto = PROTO_TCP, .payload = 100, .ttl = 1 },
		.type = 11, .src_b = ROUTER, .src_a = ROUTER, .of = 1,
		.l4q = { 8, 16, 18, 19 },
		/*
		 * As the NAT left the quote: ports, addresses, not the
		 * checksum.
		 */
		.keep = 20 + 16,
	};
	struct kbloom_xlate rec = err_rec(&c, 0);
	uint8_t b[256], a[256], out2[256];
	uint32_t len;

	expect_inverts(_metadata, &c);
	/* With 18 bytes the checksum is there, and left as it came. */
	len = err_pair(_metadata, &c, 19, b, a);
	ASSERT_EQ(0, err_invert(&rec, a, len, out2));
	EXPECT_EQ(get16(a + 28 + 36), get16(out2 + 28 + 36));
	EXPECT_TRUE(icmp_sums(out2, len));
}

TEST(icmp_error_captured_in_part_inverts_to_the_first_bytes_before)
{
	/*
	 * The NAT saw the whole error (its total length says how much is
	 * quoted); a capture of its first bytes, once it holds the quoted
	 * checksums the NAT rewrote, inverts to the first bytes before.
	 */
	struct err_case_spec c = {
		.f = masq_tcp,
		.q = { .proto = PROTO_TCP, .payload = 100, .ttl = 1 },
		.type = 11, .src_b = ROUTER, .src_a = ROUTER,
	};
	struct kbloom_xlate rec = err_rec(&c, 0);
	uint8_t b[256], a[256];
	uint32_t len, k;

	len = err_pair(_metadata, &c, QUOTE_ALL, b, a);
	/*
	 * Past the quoted ports, the TCP checksum (bytes 28 + 20 + 16, 17)
	 * captured or not: the quote holds the whole TCP header, so the NAT
	 * changed it by minus its delta, in ICMP's sum too; half of it
	 * captured, its new byte is not known: refused. (Braces: the
	 * harness runs TH_LOG() as a statement after EXPECT_EQ()'s.)
	 */
	for (k = 28 + 20 + 4; k <= len; k++) {
		EXPECT_EQ(k == 28 + 20 + 17 ? -2 : -1, err_case(&rec, a, b, k))
			TH_LOG("%u bytes", k);
	}

	c = (struct err_case_spec){
		.f = masq_udp, .q = { .proto = PROTO_UDP, .payload = 30 },
		.type = 3, .src_b = SERVER, .src_a = SERVER,
	};
	rec = err_rec(&c, 0);
	len = err_pair(_metadata, &c, QUOTE_ALL, b, a);
	/* Past the quoted UDP checksum (bytes 28 + 20 + 6, 7). */
	for (k = 28 + 20 + 8; k <= len; k++) {
		EXPECT_EQ(-1, err_case(&rec, a, b, k)) TH_LOG("%u bytes", k);
	}
	/* Short of it: 0 (left alone) or not, it is not known: refused. */
	for (k = 28 + 20 + 4; k < 28 + 20 + 8; k++) {
		EXPECT_EQ(-2, err_case(&rec, a, b, k)) TH_LOG("%u bytes", k);
	}
}

TEST(icmp_error_about_a_masqueraded_echo_request_gets_its_identifier_back)
{
	/* INSIDE's ping, id 0x0b0b, masqueraded to PUBLIC with 0xe001. */
	expect_inverts(_metadata, &(struct err_case_spec){
		.f = masq_echo,
		.q = { .proto = PROTO_ICMP, .icmp_type = 8, .payload = 56,
		       .ttl = 1 },
		/* ROUTER's time exceeded, as it left; as it reached INSIDE. */
		.type = 11, .src_b = ROUTER, .src_a = ROUTER, .of = 1,
		.l4q = { 8, QUOTE_ALL },
		/* The quoted echo's checksum differs: it has to change. */
		.differs = 20 + 2,
	});
}

TEST(icmp_error_about_an_echo_guesses_only_where_the_nat_set_its_source)
{
	/* A masquerade, as above; a port forward of pings to INSIDE. */
	static const struct err_case_spec cases[] = {
		/*
		 * Masquerade: ROUTER_IN's time exceeded about SERVER's echo
		 * reply to INSIDE, sent on from PUBLIC with the reply's
		 * identifier in PUBLIC's form: 2, INSIDE the guess.
		 */
		{ .what = "masquerade", .f = masq_echo, .reply = 1,
		  .q.icmp_type = 0, .src_b = INSIDE, .src_a = PUBLIC, .of = 2 },
		/*
		 * Port forward: ROUTER's time exceeded about INSIDE's echo
		 * reply to CLIENT (as it left the NAT from PUBLIC), sent on
		 * to INSIDE: the outer source is ROUTER's own, 1, exact.
		 */
		{ .what = "port forward", .f = fwd_echo, .reply = 1,
		  .q.icmp_type = 0, .src_b = ROUTER, .src_a = ROUTER, .of = 1 },
		/*
		 * ... and ROUTER_IN's about CLIENT's request to INSIDE, sent
		 * on from PUBLIC: 2, INSIDE the guess.
		 */
		{ .what = "port forward", .f = fwd_echo,
		  .q.icmp_type = 8, .src_b = INSIDE, .src_a = PUBLIC, .of = 2 },
	};
	struct err_case_spec c;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		c = cases[i];
		c.q.proto = PROTO_ICMP;
		c.q.payload = 56;
		c.q.ttl = 1;
		c.type = 11;
		expect_inverts(_metadata, &c);
	}
}

TEST(icmp_error_about_an_echo_whose_identifier_alone_was_remapped)
{
	/*
	 * The NAT box's own ping from PUBLIC, id 0x0b0b, remapped to
	 * 0xe002 (it clashed with a masqueraded one): the identifier is
	 * the request's source, so an error about the request has its
	 * outer destination set (to PUBLIC, as it was), not its source.
	 */
	expect_inverts(_metadata, &(struct err_case_spec){
		.f = remap_echo,
		.q = { .proto = PROTO_ICMP, .icmp_type = 8, .payload = 56,
		       .ttl = 1 },
		.type = 11, .src_b = ROUTER, .src_a = ROUTER, .of = 1,
	});
}

TEST(icmp_error_invert_takes_only_whole_errors_of_the_record)
{
	struct flow in = { INSIDE, SERVER, 40000, 53 };
	struct flow out = { PUBLIC, SERVER, 61000, 53 };
	struct kbloom_xlate rec = rec_of(PROTO_UDP, &in, &out), r;
	struct spec q = { .proto = PROTO_UDP, .payload = 30, .f = in };
	struct spec e = { .icmp_type = 3, .f = { SERVER, INSIDE, 0, 0 } };
	static const uint8_t errors[] = { 3, 4, 5, 11, 12 };
	uint8_t qa[256], a[256], b[256], out2[256];
	uint32_t len, blen, k;
	int t;

	build(qa, &q);
	len = error_around(a, e, qa, 28);
	ASSERT_EQ(0, err_invert(&rec, a, len, out2));
	/* Every type: the errors invert exactly, the rest are refused. */
	for (t = 0; t < 256; t++) {
		q.f = out;
		blen = error_quoting(b, (uint8_t)t, SERVER, PUBLIC, &q, 8);
		q.f = in;
		len = error_quoting(a, (uint8_t)t, SERVER, INSIDE, &q, 8);
		ASSERT_EQ(blen, len);
		if (memchr(errors, t, sizeof(errors))) {
			EXPECT_EQ(-1, err_case(&rec, a, b, len))
				TH_LOG("type %d", t);
		} else {
			EXPECT_EQ(-1, err_invert(&rec, a, len, out2))
				TH_LOG("type %d", t);
		}
	}
	/* Another flow's, the record of family 6. */
	q.f = in;
	q.f.sport = 40001;
	len = error_quoting(a, 3, SERVER, INSIDE, &q, 8);
	EXPECT_EQ(0, err_of(&rec, a, len));
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
	q.f = in;
	len = error_quoting(a, 3, SERVER, INSIDE, &q, 8);
	r = rec;
	r.family = 6;
	EXPECT_EQ(-1, err_invert(&r, a, len, out2));
	/* Captured short of the quoted ports (20 + 8 + 20 + 4), len < 28. */
	for (k = 0; k < 52; k++) {
		EXPECT_EQ(-1, err_invert(&rec, a, k, out2)) TH_LOG("%u", k);
	}
	/*
	 * Captured short of the quoted UDP checksum (54, 55), which the NAT
	 * rewrote unless it was 0: what ICMP's sum was is unknown.
	 */
	for (k = 52; k < 56; k++) {
		EXPECT_EQ(-1, err_invert(&rec, a, k, out2)) TH_LOG("%u", k);
	}
	EXPECT_EQ(0, err_invert(&rec, a, 56, out2));
	/* Quoting less than an IP header, or no ports. */
	for (k = 0; k < 24; k++) {
		len = error_around(a, e, qa, k);
		EXPECT_EQ(-1, err_invert(&rec, a, len, out2))
			TH_LOG("%u quoted", k);
	}
	/* Not ICMP; a fragment of an error. */
	len = error_around(a, e, qa, 28);
	a[9] = PROTO_UDP;
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
	a[9] = PROTO_ICMP;
	set16(a + 6, 0x2000);			/* MF */
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
	set16(a + 6, 0x0001);			/* offset 8 */
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
	set16(a + 6, 0x4000);
	ASSERT_EQ(0, err_invert(&rec, a, len, out2));
	/* Quoting IPv6, a header longer than the quote or under 20 bytes. */
	a[28] = 0x65;
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
	a[28] = 0x4f;
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
	a[28] = 0x44;
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
	/* An outer header under 20 bytes, or its total under its length. */
	a[28] = 0x45;
	a[0] = 0x44;
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
	a[0] = 0x45;
	set16(a + 2, 19);
	EXPECT_EQ(-1, err_invert(&rec, a, len, out2));
}

TEST(icmpv6_errors_are_not_inverted)
{
	struct flow6 in = { INSIDE6, SERVER6, 40000, 53 };
	struct flow6 out = { PUBLIC6, SERVER6, 61000, 53 };
	struct kbloom_xlate rec = rec6(PROTO_UDP, &in, &out);
	struct spec6 q = { .proto = PROTO_UDP, .payload = 24, .f = in };
	uint8_t p[512], out2[512];
	uint32_t len;

	len = icmp6_error(p, 2, SERVER6, INSIDE6, "", &q).len;
	ASSERT_EQ(1, err_of(&rec, p, len));
	EXPECT_EQ(-1, err_invert(&rec, p, len, out2));
}

/* ---- ICMPv6 errors as they were before the NAT ---- */

/*
 * As for IPv4 above, an ICMPv6 error (RFC 4443 3) about a packet of a
 * NAT'ed IPv6 flow is built from scratch twice: as its sender sent it
 * (BEFORE) and as the NAT sent it on (AFTER: nf_nat_icmpv6_reply_
 * translation(), Linux 6.1), its ICMPv6 checksum summed over RFC 8200
 * 8.1's pseudo-header (the outer addresses) and the whole message, the
 * quoted packet's over its own pseudo-header (RFC 4443 2.3). Inverting
 * AFTER with either record of the flow and the full addresses the
 * record folds must give BEFORE byte for byte.
 */

/* A client outside, a router outside. */
static const uint8_t CLIENT6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x77,
				     [15] = 0x77 };
static const uint8_t ROUTER6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x05,
				     [15] = 0x01 };

/* As masq_udp etc.: orig as it came and left, reply as it came and left. */
static const struct flow6 masq6_udp[4] = {
	{ INSIDE6, SERVER6, 40000, 53 }, { PUBLIC6, SERVER6, 61000, 53 },
	{ SERVER6, PUBLIC6, 53, 61000 }, { SERVER6, INSIDE6, 53, 40000 },
};

/* CLIENT6:50000 -> PUBLIC6:8053 forwarded to INSIDE6:53. */
static const struct flow6 fwd6_udp[4] = {
	{ CLIENT6, PUBLIC6, 50000, 8053 }, { CLIENT6, INSIDE6, 50000, 53 },
	{ INSIDE6, CLIENT6, 53, 50000 }, { PUBLIC6, CLIENT6, 8053, 50000 },
};

/* INSIDE6:51514 -> SERVER6:443 masqueraded to PUBLIC6:1025. */
static const struct flow6 masq6_tcp[4] = {
	{ INSIDE6, SERVER6, 51514, 443 }, { PUBLIC6, SERVER6, 1025, 443 },
	{ SERVER6, PUBLIC6, 443, 1025 }, { SERVER6, INSIDE6, 443, 51514 },
};

/* INSIDE6's ping, id 0x0b0b, masqueraded to PUBLIC6 with 0xe001. */
static const struct flow6 masq6_echo[4] = {
	{ INSIDE6, SERVER6, 0x0b0b, 0 }, { PUBLIC6, SERVER6, 0xe001, 0 },
	{ SERVER6, PUBLIC6, 0xe001, 0 }, { SERVER6, INSIDE6, 0x0b0b, 0 },
};

/* An ICMPv6 error, as err_case_spec. Offsets: of the quoted upper layer. */
struct err6_spec {
	const char *what;	/* named in failures (NULL: nothing) */
	const struct flow6 *f;	/* 4, as above */
	int reply;		/* about the reply's packet, else orig's */
	struct spec6 q;		/* the quoted packet, its flow aside */
	uint8_t type, code;	/* the error's */
	const char *ext;	/* its extension headers (build6()) */
	const uint8_t *src_b, *src_a;	/* its outer source before, after */
	uint32_t l4q[5];	/* upper-layer bytes quoted, up to a 0; */
				/* none: QUOTE_ALL only */
	int of;			/* pkt_icmp_error_of(): 1 or 2 */
	uint32_t keep;		/* a 16-bit field the NAT left (0: none) */
	uint32_t differs;	/* ... one it rewrote (0: none) */
};

/*
 * ICMPv6 error @type, @code from @src to @dst past headers @ext quoting
 * the @qlen bytes at @quote, into @p; its checksum from scratch.
 */
static struct built6 error6_around(uint8_t *p, uint8_t type, uint8_t code,
				   const uint8_t *src, const uint8_t *dst,
				   const char *ext, const uint8_t *quote,
				   uint32_t qlen)
{
	struct spec6 e = { .proto = PROTO_ICMPV6, .icmp_type = type,
			   .ext = ext, .f = { src, dst, 0, 0 },
			   .payload = qlen, .body = quote,
			   .carried = 8 + qlen };
	struct built6 r = build6(p, &e);

	p[r.l4 + 1] = code;
	set16(p + r.l4 + 2, 0);
	set16(p + r.l4 + 2, ~ref_sum6(p + 8, p + 24, PROTO_ICMPV6, p + r.l4,
				      r.len - r.l4) & 0xffff);
	return r;
}

/* Whether ICMPv6 message @e of @p sums right, pseudo-header and all. */
static bool icmp6_sums(const uint8_t *p, struct built6 e)
{
	return ref_sum6(p + 8, p + 24, PROTO_ICMPV6, p + e.l4,
			e.len - e.l4) == 0xffff;
}

/*
 * Error @c quoting @l4q upper-layer bytes of its packet (QUOTE_ALL: all
 * of it) into @b as before and @a as after; *@ql4: the offset of the
 * quoted upper layer. The error's length and upper layer.
 */
static struct built6 err6_pair(struct __test_metadata *_metadata,
			       const struct err6_spec *c, uint32_t l4q,
			       uint8_t *b, uint8_t *a, uint32_t *ql4)
{
	const struct flow6 *left = &c->f[2 * c->reply + 1];
	const struct flow6 *came = &c->f[2 * c->reply];
	struct spec6 q = c->q;
	uint8_t qb[1024], qa[1024];
	struct built6 nb, na, eb, ea;
	uint32_t n;

	q.f = *left;
	nb = build6(qb, &q);
	q.f = *came;
	na = build6(qa, &q);
	ASSERT_EQ(nb.len, na.len);
	ASSERT_EQ(nb.l4, na.l4);
	if (c->keep)
		memcpy(qa + na.l4 + c->keep, qb + nb.l4 + c->keep, 2);
	n = l4q < nb.len - nb.l4 ? nb.l4 + l4q : nb.len;
	eb = error6_around(b, c->type, c->code, c->src_b, left->src, c->ext,
			   qb, n);
	ea = error6_around(a, c->type, c->code, c->src_a, came->src, c->ext,
			   qa, n);
	ASSERT_EQ(eb.len, ea.len);
	ASSERT_TRUE(icmp6_sums(b, eb));
	ASSERT_TRUE(icmp6_sums(a, ea));
	*ql4 = ea.l4 + 8 + na.l4;
	return ea;
}

static void addrs32(uint8_t *o, const struct flow6 *f)
{
	memcpy(o, f->src, 16);
	memcpy(o + 16, f->dst, 16);
}

/*
 * pkt_icmp_error_invert6() of @len bytes of @pkt, BEFORE's and AFTER's
 * addresses those of flows @rf[0] and @rf[1]: every buffer of exactly
 * its size (ASan's bounds).
 */
static int err6_invert(const struct kbloom_xlate *rec, const uint8_t *pkt,
		       uint32_t len, const struct flow6 *rf, uint8_t *out)
{
	uint8_t *in = malloc(len ? len : 1), *o = malloc(len ? len : 1);
	uint8_t *b6 = malloc(32), *a6 = malloc(32);
	int r;

	memcpy(in, pkt, len);
	memset(o, 0xa5, len);
	addrs32(b6, &rf[0]);
	addrs32(a6, &rf[1]);
	r = pkt_icmp_error_invert6(rec, in, len, b6, a6, o);
	memcpy(out, o, len);
	free(in);
	free(o);
	free(b6);
	free(a6);
	return r;
}

/*
 * pkt_icmp_error_addrs6() of a copy of @pkt (exactly @len bytes): its
 * answer, @own as offsets in @pkt (UINT32_MAX: NULL or not in it).
 */
static int err6_addrs(const struct kbloom_xlate *rec, const uint8_t *pkt,
		      uint32_t len, uint32_t folds[2], uint32_t own[2],
		      bool sure[2])
{
	uint8_t *in = malloc(len ? len : 1);
	const uint8_t *o[2] = { NULL, NULL };
	int r, i;

	memcpy(in, pkt, len);
	folds[0] = folds[1] = 0xdeadbeef;
	r = pkt_icmp_error_addrs6(rec, in, len, folds, o, sure);
	for (i = 0; i < 2; i++)
		own[i] = o[i] && o[i] >= in && o[i] + 16 <= in + len ?
			 (uint32_t)(o[i] - in) : UINT32_MAX;
	free(in);
	return r;
}

/* As err_case(), for record @rec of flows @rf (BEFORE, AFTER). */
static int err6_case(const struct kbloom_xlate *rec, const struct flow6 *rf,
		     const uint8_t *after, const uint8_t *before, uint32_t len)
{
	uint8_t out[2048];
	int k;

	if (err6_invert(rec, after, len, rf, out))
		return -2;
	k = first_diff(out, before, len);
	if (k >= 0)
		hex_rows(out, before, after, len, (uint32_t)k);
	return k;
}

/* The record of direction @r of flows @f (4), as conntrack makes it. */
static struct kbloom_xlate err6_rec(const struct err6_spec *c, int r)
{
	return rec6(c->q.proto, &c->f[2 * r], &c->f[2 * r + 1]);
}

/*
 * Whether side @dst of the record of direction @r of @c is as the NAT
 * found it: address and port (an echo's identifier: its requests'
 * source, the orig direction's here).
 */
static bool err6_kept(const struct err6_spec *c, int r, int dst)
{
	const struct flow6 *b = &c->f[2 * r], *a = &c->f[2 * r + 1];
	bool id = b->sport == a->sport;

	if (c->q.proto == PROTO_ICMPV6)
		return !memcmp(dst ? b->dst : b->src, dst ? a->dst : a->src,
			       16) && (r != dst || id);
	return dst ? !memcmp(b->dst, a->dst, 16) && b->dport == a->dport :
		     !memcmp(b->src, a->src, 16) && id;
}

/*
 * For each quote length of @c, the error after the NAT is one of each
 * record's (@c->of); pkt_icmp_error_addrs6() asks for the record's
 * other form's addresses (AFTER's when the quote is the record's
 * direction), and the inversion with both gives the error before, byte
 * for byte.
 */
static void expect_inverts6(struct __test_metadata *_metadata,
			    const struct err6_spec *c)
{
	uint32_t l4q, ql4, qoff, folds[2], own[2];
	uint8_t b[1024], a[1024];
	const struct flow6 *need;
	struct kbloom_xlate rec;
	struct built6 e;
	bool sure[2];
	char why[160];
	size_t i;
	int r, side;

	for (i = 0; i == 0 || (i < ARRAY_SIZE(c->l4q) && c->l4q[i]); i++) {
		l4q = c->l4q[i] ? c->l4q[i] : QUOTE_ALL;
		e = err6_pair(_metadata, c, l4q, b, a, &ql4);
		qoff = e.l4 + 8;
		if (c->differs && ql4 + c->differs + 2 <= e.len) {
			ASSERT_NE(get16(a + ql4 + c->differs),
				  get16(b + ql4 + c->differs));
		}
		for (r = 0; r < 2; r++) {
			snprintf(why, sizeof(why),
				 "%s%s%s record, error type %u, %u bytes, "
				 "quote %u", c->what ? c->what : "",
				 c->what ? ", " : "", r ? "reply" : "orig",
				 c->type, e.len, e.len - qoff);
			rec = err6_rec(c, r);
			/* The quote is the record's BEFORE, or AFTER back. */
			side = r == c->reply ? 0 : 1;
			need = &c->f[2 * r + !side];
			EXPECT_EQ(c->of, err_of(&rec, a, e.len))
				TH_LOG("%s", why);
			EXPECT_EQ(side, err6_addrs(&rec, a, e.len, folds, own,
						   sure)) TH_LOG("%s", why);
			EXPECT_EQ(ref_fold6(need->src), folds[0])
				TH_LOG("%s", why);
			EXPECT_EQ(ref_fold6(need->dst), folds[1])
				TH_LOG("%s", why);
			EXPECT_EQ(qoff + (side ? 24 : 8), own[0])
				TH_LOG("%s", why);
			EXPECT_EQ(qoff + (side ? 8 : 24), own[1])
				TH_LOG("%s", why);
			EXPECT_EQ(err6_kept(c, r, 0), sure[0])
				TH_LOG("%s", why);
			EXPECT_EQ(err6_kept(c, r, 1), sure[1])
				TH_LOG("%s", why);
			/* Where sure, the quote's own is the one needed. */
			if (sure[0] && own[0] != UINT32_MAX) {
				EXPECT_EQ(0, memcmp(a + own[0], need->src, 16))
					TH_LOG("%s", why);
			}
			if (sure[1] && own[1] != UINT32_MAX) {
				EXPECT_EQ(0, memcmp(a + own[1], need->dst, 16))
					TH_LOG("%s", why);
			}
			EXPECT_EQ(-1, err6_case(&rec, &c->f[2 * r], a, b,
						e.len)) TH_LOG("%s", why);
		}
	}
}

TEST(icmpv6_error_through_a_masquerade_inverts_to_as_it_left_the_server)
{
	/*
	 * INSIDE6:40000 -> SERVER6:53 masqueraded to PUBLIC6:61000: the
	 * server's port unreachable (and the other errors) as it left
	 * SERVER6 (to PUBLIC6, quoting PUBLIC6:61000 -> SERVER6:53), as the
	 * NAT sent it on to INSIDE6 (quoting INSIDE6:40000 -> SERVER6:53).
	 */
	struct err6_spec c = {
		.f = masq6_udp, .q = { .proto = PROTO_UDP, .payload = 30 },
		.src_b = SERVER6, .src_a = SERVER6, .of = 1,
		.l4q = { 8, 20, QUOTE_ALL },
	};
	static const char *const exts[] = { "", "h", "d" };
	struct kbloom_xlate rec = err6_rec(&c, 0);
	uint32_t folds[2], own[2], ql4;
	uint8_t b[512], a[512];
	struct built6 e;
	bool sure[2];
	size_t x, y;

	for (c.type = 1; c.type <= 4; c.type++)
		for (x = 0; x < ARRAY_SIZE(exts); x++)
			for (y = 0; y < ARRAY_SIZE(exts); y++) {
				c.code = c.type == 1 ? 4 : 0;	/* port */
				c.ext = exts[x];	/* outside, quoted */
				c.q.ext = exts[y];
				expect_inverts6(_metadata, &c);
			}
	/* Spelled out: port unreachable, the orig record. */
	c.type = 1;
	c.code = 4;
	c.ext = c.q.ext = "";
	e = err6_pair(_metadata, &c, QUOTE_ALL, b, a, &ql4);
	ASSERT_EQ(40 + 8 + 40 + 8 + 30, e.len);
	ASSERT_EQ(0, memcmp(a + 24, INSIDE6, 16));
	ASSERT_EQ(0, memcmp(b + 24, PUBLIC6, 16));
	ASSERT_EQ(0, memcmp(a + 48 + 8, INSIDE6, 16));
	ASSERT_EQ(0, memcmp(b + 48 + 8, PUBLIC6, 16));
	ASSERT_EQ(40000, get16(a + 88));
	ASSERT_EQ(61000, get16(b + 88));
	EXPECT_EQ(1, err_of(&rec, a, e.len));
	/* AFTER's addresses needed: PUBLIC6 not known, SERVER6 the quote's. */
	EXPECT_EQ(0, err6_addrs(&rec, a, e.len, folds, own, sure));
	EXPECT_EQ(ref_fold6(PUBLIC6), folds[0]);
	EXPECT_EQ(ref_fold6(SERVER6), folds[1]);
	EXPECT_EQ(48 + 8, own[0]);
	EXPECT_EQ(48 + 24, own[1]);
	EXPECT_FALSE(sure[0]);
	EXPECT_TRUE(sure[1]);
	EXPECT_EQ(-1, err6_case(&rec, &masq6_udp[0], a, b, e.len));
	rec = err6_rec(&c, 1);
	EXPECT_EQ(1, err_of(&rec, a, e.len));
	EXPECT_EQ(-1, err6_case(&rec, &masq6_udp[2], a, b, e.len));
}

TEST(icmpv6_error_quoting_udp_without_a_checksum_keeps_it_0)
{
	struct err6_spec c = {
		.f = masq6_udp,
		.q = { .proto = PROTO_UDP, .payload = 30, .udp_nocsum = 1 },
		.type = 1, .code = 4, .src_b = SERVER6, .src_a = SERVER6,
		.of = 1,
	};
	uint8_t b[512], a[512];
	uint32_t ql4;

	err6_pair(_metadata, &c, QUOTE_ALL, b, a, &ql4);
	ASSERT_EQ(0, get16(b + ql4 + 6));
	ASSERT_EQ(0, get16(a + ql4 + 6));
	expect_inverts6(_metadata, &c);
}

TEST(icmpv6_error_through_a_port_forward_guesses_the_inside_server_as_source)
{
	/*
	 * CLIENT6:50000 -> PUBLIC6:8053 forwarded to INSIDE6:53, whose port
	 * unreachable the NAT sent on from PUBLIC6: INSIDE6 the guess.
	 */
	expect_inverts6(_metadata, &(struct err6_spec){
		.f = fwd6_udp, .q = { .proto = PROTO_UDP, .payload = 30 },
		.type = 1, .code = 4, .src_b = INSIDE6, .src_a = PUBLIC6,
		.of = 2, .l4q = { 8, QUOTE_ALL },
	});
}

TEST(icmpv6_error_from_inside_about_a_masqueraded_reply_guesses_the_host)
{
	/*
	 * A router inside's time exceeded about SERVER6's reply to INSIDE6,
	 * sent on by the NAT from PUBLIC6: the guess is INSIDE6, the
	 * router's own address lost.
	 */
	expect_inverts6(_metadata, &(struct err6_spec){
		.f = masq6_udp, .reply = 1,
		.q = { .proto = PROTO_UDP, .payload = 30, .hlim = 1 },
		.type = 3, .src_b = INSIDE6, .src_a = PUBLIC6, .of = 2,
	});
}

TEST(icmpv6_error_quoting_a_whole_tcp_header_gets_its_tcp_checksum_back)
{
	expect_inverts6(_metadata, &(struct err6_spec){
		.f = masq6_tcp,
		.q = { .proto = PROTO_TCP, .payload = 100, .hlim = 1 },
		.type = 3, .src_b = ROUTER6, .src_a = ROUTER6, .of = 1,
		.l4q = { 20, 21, 32, QUOTE_ALL },
		/* The quoted TCP checksums differ: it has to be rewritten. */
		.differs = 16,
	});
}

TEST(icmpv6_error_quoting_part_of_a_tcp_header_gets_its_ports_only)
{
	/*
	 * tcp_manip_pkt(): less than the 20-byte header quoted, the NAT
	 * rewrites the ports only and leaves a quoted checksum as it was.
	 */
	struct err6_spec c = {
		.f = masq6_tcp,
		.q = { .proto = PROTO_TCP, .payload = 100, .hlim = 1 },
		.type = 3, .src_b = ROUTER6, .src_a = ROUTER6, .of = 1,
		.l4q = { 8, 16, 18, 19 },
		.keep = 16,
	};
	struct kbloom_xlate rec = err6_rec(&c, 0);
	uint8_t b[512], a[512], out[512];
	uint32_t ql4, bsum;
	struct built6 e;

	expect_inverts6(_metadata, &c);
	/* With 19 bytes the checksum is there, and left as it came. */
	e = err6_pair(_metadata, &c, 19, b, a, &ql4);
	ASSERT_EQ(0, err6_invert(&rec, a, e.len, &c.f[0], out));
	EXPECT_EQ(get16(a + ql4 + 16), get16(out + ql4 + 16));
	EXPECT_TRUE(icmp6_sums(out, e));
	/* ... which, whole, it would not have been. */
	c.keep = 0;
	e = err6_pair(_metadata, &c, 19, b, a, &ql4);
	bsum = get16(b + ql4 + 16);
	EXPECT_NE(get16(a + ql4 + 16), bsum);
}

TEST(icmpv6_error_about_a_masqueraded_echo_request_gets_its_identifier_back)
{
	/* ROUTER6's time exceeded about INSIDE6's ping, id 0x0b0b. */
	expect_inverts6(_metadata, &(struct err6_spec){
		.f = masq6_echo,
		.q = { .proto = PROTO_ICMPV6, .icmp_type = 128,
		       .payload = 56, .hlim = 1 },
		.type = 3, .src_b = ROUTER6, .src_a = ROUTER6, .of = 1,
		.l4q = { 8, QUOTE_ALL },
		/* The quoted echo's checksum differs: it has to change. */
		.differs = 2,
	});
	/* ... and a router inside's about SERVER6's echo reply: a guess. */
	expect_inverts6(_metadata, &(struct err6_spec){
		.f = masq6_echo, .reply = 1,
		.q = { .proto = PROTO_ICMPV6, .icmp_type = 129,
		       .payload = 56, .hlim = 1 },
		.type = 3, .src_b = INSIDE6, .src_a = PUBLIC6, .of = 2,
		.l4q = { 8, QUOTE_ALL }, .differs = 2,
	});
}

TEST(icmpv6_error_captured_in_part_inverts_to_the_first_bytes_before)
{
	/*
	 * The NAT saw the whole error (its payload length says how much is
	 * quoted); a capture of its first bytes inverts to the first bytes
	 * before once it holds what the NAT rewrote.
	 */
	struct err6_spec c = {
		.f = masq6_tcp,
		.q = { .proto = PROTO_TCP, .payload = 100, .hlim = 1 },
		.type = 3, .src_b = ROUTER6, .src_a = ROUTER6,
	};
	struct kbloom_xlate rec = err6_rec(&c, 0);
	uint8_t b[512], a[512];
	uint32_t ql4, k;
	struct built6 e;

	e = err6_pair(_metadata, &c, QUOTE_ALL, b, a, &ql4);
	/*
	 * Past the quoted ports: the TCP checksum (ql4 + 16, 17) captured
	 * or not (the quote holds the whole header: the NAT changed it, in
	 * ICMPv6's sum too), exact; half of it captured: refused.
	 */
	for (k = ql4 + 4; k <= e.len; k++) {
		EXPECT_EQ(k == ql4 + 17 ? -2 : -1,
			  err6_case(&rec, &c.f[0], a, b, k)) TH_LOG("%u", k);
	}
	/* The reply record too. */
	rec = err6_rec(&c, 1);
	for (k = ql4 + 4; k <= e.len; k++) {
		EXPECT_EQ(k == ql4 + 17 ? -2 : -1,
			  err6_case(&rec, &c.f[2], a, b, k)) TH_LOG("%u", k);
	}

	c = (struct err6_spec){
		.f = masq6_udp, .q = { .proto = PROTO_UDP, .payload = 30 },
		.type = 1, .code = 4, .src_b = SERVER6, .src_a = SERVER6,
	};
	rec = err6_rec(&c, 0);
	e = err6_pair(_metadata, &c, QUOTE_ALL, b, a, &ql4);
	/* Past the quoted UDP checksum (ql4 + 6, 7): exact. */
	for (k = ql4 + 8; k <= e.len; k++) {
		EXPECT_EQ(-1, err6_case(&rec, &c.f[0], a, b, k))
			TH_LOG("%u", k);
	}
	/* Short of it: 0 (left alone) or not is not known: refused. */
	for (k = ql4 + 4; k < ql4 + 8; k++) {
		EXPECT_EQ(-2, err6_case(&rec, &c.f[0], a, b, k))
			TH_LOG("%u", k);
	}
}

TEST(icmpv6_error_invert_takes_only_whole_errors_of_the_record)
{
	struct err6_spec c = {
		.f = masq6_udp, .q = { .proto = PROTO_UDP, .payload = 30 },
		.type = 1, .code = 4, .src_b = SERVER6, .src_a = SERVER6,
	};
	struct kbloom_xlate rec = err6_rec(&c, 0), r;
	uint8_t b[512], a[512], out[512], qa[512];
	uint32_t ql4, k, folds[2], own[2];
	struct flow6 rf[2];
	struct spec6 q;
	struct built6 e, eb, qn;
	bool sure[2];
	int t, i;

	e = err6_pair(_metadata, &c, QUOTE_ALL, b, a, &ql4);
	ASSERT_EQ(-1, err6_case(&rec, &c.f[0], a, b, e.len));
	/* Every type: the errors (1-4) invert exactly, the rest refused. */
	for (t = 0; t < 256; t++) {
		c.type = (uint8_t)t;
		eb = err6_pair(_metadata, &c, QUOTE_ALL, b, a, &ql4);
		if (t >= 1 && t <= 4) {
			EXPECT_EQ(-1, err6_case(&rec, &c.f[0], a, b, eb.len))
				TH_LOG("type %d", t);
		} else {
			EXPECT_EQ(-1, err6_invert(&rec, a, eb.len, &c.f[0],
						  out)) TH_LOG("type %d", t);
			EXPECT_EQ(-1, err6_addrs(&rec, a, eb.len, folds, own,
						 sure)) TH_LOG("type %d", t);
		}
	}
	c.type = 1;
	e = err6_pair(_metadata, &c, QUOTE_ALL, b, a, &ql4);
	/* A record of family 4 with the same fields. */
	r = rec;
	r.family = 4;
	EXPECT_EQ(-1, err6_invert(&r, a, e.len, &c.f[0], out));
	EXPECT_EQ(-1, err6_addrs(&r, a, e.len, folds, own, sure));
	/* Addresses whose folds are not the record's, each of the four. */
	for (i = 0; i < 4; i++) {
		rf[0] = c.f[0];
		rf[1] = c.f[1];
		if (i & 1)
			rf[i / 2].dst = WEB6;
		else
			rf[i / 2].src = WEB6;
		EXPECT_EQ(-1, err6_invert(&rec, a, e.len, rf, out))
			TH_LOG("address %d", i);
	}
	/* Another flow: a port, an address, the protocol. */
	for (i = 0; i < 3; i++) {
		struct flow6 in = c.f[0];

		q = c.q;
		if (i == 0)
			in.sport = 40001;
		else if (i == 1)
			in.dst = WEB6;
		else
			q.proto = PROTO_TCP;
		q.f = in;
		qn = build6(qa, &q);
		eb = error6_around(a, 1, 4, SERVER6, INSIDE6, "", qa, qn.len);
		EXPECT_EQ(0, err_of(&rec, a, eb.len)) TH_LOG("flow %d", i);
		EXPECT_EQ(-1, err6_addrs(&rec, a, eb.len, folds, own, sure))
			TH_LOG("flow %d", i);
		EXPECT_EQ(-1, err6_invert(&rec, a, eb.len, &c.f[0], out))
			TH_LOG("flow %d", i);
	}
	/* Captured short of the quoted UDP checksum: every length. */
	e = err6_pair(_metadata, &c, QUOTE_ALL, b, a, &ql4);
	for (k = 0; k < ql4 + 8; k++) {
		EXPECT_EQ(-1, err6_invert(&rec, a, k, &c.f[0], out))
			TH_LOG("%u bytes", k);
	}
	EXPECT_EQ(0, err6_invert(&rec, a, ql4 + 8, &c.f[0], out));
	/* Quoting less than an IPv6 header and the ports. */
	q = c.q;
	q.f = c.f[0];
	qn = build6(qa, &q);
	for (k = 0; k < 44; k++) {
		eb = error6_around(a, 1, 4, SERVER6, INSIDE6, "", qa, k);
		EXPECT_EQ(-1, err6_invert(&rec, a, eb.len, &c.f[0], out))
			TH_LOG("%u quoted", k);
	}
	/* Not ICMPv6; quoting IPv4; a later fragment of an error. */
	e = error6_around(a, 1, 4, SERVER6, INSIDE6, "", qa, qn.len);
	ASSERT_EQ(0, err6_invert(&rec, a, e.len, &c.f[0], out));
	a[6] = PROTO_UDP;
	EXPECT_EQ(-1, err6_invert(&rec, a, e.len, &c.f[0], out));
	a[6] = PROTO_ICMPV6;
	a[48] = 0x45;
	EXPECT_EQ(-1, err6_invert(&rec, a, e.len, &c.f[0], out));
	a[48] = 0x60;
	ASSERT_EQ(0, err6_invert(&rec, a, e.len, &c.f[0], out));
	e = error6_around(a, 1, 4, SERVER6, INSIDE6, "f", qa, qn.len);
	ASSERT_EQ(0, err6_invert(&rec, a, e.len, &c.f[0], out));
	set16(a + 40 + 2, 8 << 3);
	EXPECT_EQ(-1, err6_invert(&rec, a, e.len, &c.f[0], out));
	/* The IPv4 inversion takes none of it, nor this one IPv4. */
	e = error6_around(a, 1, 4, SERVER6, INSIDE6, "", qa, qn.len);
	EXPECT_EQ(-1, err_invert(&rec, a, e.len, out));
}

/* ---- stateless rewrites: NPTv6 (RFC 6296), nftables' "saddr set" ---- */

/*
 * A rewrite no conntrack entry holds: KIND STATELESS with SNAT and/or
 * DNAT, made as the kernel makes it of the packet's key as it arrived
 * (BEFORE) and as it left (AFTER), IPv6 addresses folded. NPTv6 (RFC
 * 6296; ip6tables' SNPT and DNPT, net/ipv6/netfilter/ip6t_NPT.c) rewrites
 * a /48 prefix and the 16-bit word after it so that the address sums as
 * before, and touches nothing else: the packet as it left is made here
 * from the one as it arrived by that mapping alone, no checksum written.
 * nftables' stateless "ip saddr set" and "ip6 saddr set" update the
 * checksums as NAT does: both packets are summed from scratch.
 */

/* fd01:0:0::/48 inside, 2001:db8:1::/48 outside (RFC 6296 3.6's). */
static const uint8_t NPT_IN[6] = { 0xfd, 0x01 };
static const uint8_t NPT_OUT[6] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01 };
/* fd01:0:0:1::5 inside; fd01:0:0:30b8::5, whose word comes out 0xffff. */
static const uint8_t NPT_HOST[16] = { 0xfd, 0x01, [7] = 0x01, [15] = 0x05 };
static const uint8_t NPT_HOST_FFFF[16] = { 0xfd, 0x01, [6] = 0x30, 0xb8,
					   [15] = 0x05 };
/* A peer outside, 2001:db8:ffff::9. */
static const uint8_t NPT_PEER[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff,
				      [15] = 0x09 };

/* @a + @b (16 bits each) in ones' complement: the carry added back. */
static uint32_t oc_add(uint32_t a, uint32_t b)
{
	a += b;
	return (a & 0xffff) + (a >> 16);
}

/*
 * RFC 6296 3's mapping of address @a from /48 prefix @from to @to, into
 * @o: the prefix replaced, and the 16-bit word after it (word 3, the
 * subnet) added the ones'-complement difference of the prefixes' sums,
 * @from's less @to's, so that the address sums as before; a word that
 * comes out 0xffff is written 0x0000 (as ip6t_NPT writes it).
 */
static void npt48(uint8_t *o, const uint8_t *a, const uint8_t *from,
		  const uint8_t *to)
{
	uint32_t adj = oc_add(ref_sum(0, from, 6), ~ref_sum(0, to, 6) & 0xffff);
	uint32_t w = oc_add(get16(a + 6), adj);

	memcpy(o, a, 16);
	memcpy(o, to, 6);
	set16(o + 6, w == 0xffff ? 0 : w);
}

/* The mapping above is RFC 6296's: its example (3.6), its 0xffff rule. */
TEST(npt48_is_rfc6296_s_mapping_both_ways)
{
	static const uint8_t in[6] = { 0xfd, 0x01, 0x02, 0x03, 0x04, 0x05 };
	static const uint8_t host[16] = { 0xfd, 0x01, 0x02, 0x03, 0x04, 0x05,
					  0x00, 0x01, [14] = 0x12, 0x34 };
	static const uint8_t ext[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
					 0xd5, 0x50, [14] = 0x12, 0x34 };
	static const uint8_t ext0[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
					  [15] = 0x05 };
	uint8_t o[16];

	/* FD01:0203:0405:0001::1234 <-> 2001:0DB8:0001:D550::1234 */
	npt48(o, host, in, NPT_OUT);
	EXPECT_EQ(0, memcmp(o, ext, 16));
	npt48(o, ext, NPT_OUT, in);
	EXPECT_EQ(0, memcmp(o, host, 16));
	/* fd01:0:0:30b8::5: 0x30b8 + 0xcf47 is 0xffff, written 0. */
	npt48(o, NPT_HOST_FFFF, NPT_IN, NPT_OUT);
	EXPECT_EQ(0, memcmp(o, ext0, 16));
	EXPECT_EQ(ref_sum(0, NPT_HOST_FFFF, 16) % 0xffff,
		  ref_sum(0, o, 16) % 0xffff);
	npt48(o, ext0, NPT_OUT, NPT_IN);
	EXPECT_EQ(0, memcmp(o, NPT_HOST_FFFF, 16));
}

/* A packet through NPTv6: what it is, and which address was translated. */
struct npt_case {
	const char *name;
	uint8_t proto;		/* UDP, TCP or ICMPv6 */
	uint8_t icmp_type;	/* ICMPv6: 128 echo request, 1 unreachable */
	int dnpt;		/* DNPT: the destination; else SNPT: source */
	const uint8_t *host;	/* the address inside */
	uint16_t fill;		/* payload bytes 0-1 when non-zero */
	int negzero;		/* a checksum summed 0x0000 sent as 0xffff */
};

/*
 * NPTv6 case @c as it arrived into @b and as it left into @a, and the
 * record the kernel makes of it into @rec; its length. SNPT: from the
 * host inside to the peer; DNPT: from the peer to the host's outside
 * address. An error quotes a packet of the other way, as its sender had
 * it (RFC 4443 3.1): NPT translates the outer header only. As it left:
 * @b with the one address mapped, nothing else.
 */
static uint32_t npt_pair(const struct npt_case *c, uint8_t *b, uint8_t *a,
			 struct kbloom_xlate *rec)
{
	struct spec6 s = { .proto = c->proto, .icmp_type = c->icmp_type,
			   .payload = 45, .fill = c->fill };
	struct spec6 q = { .proto = PROTO_UDP, .payload = 24 };
	uint32_t at = c->dnpt ? 24 : 8, ck;
	uint8_t ext[16], qp[256];
	struct built6 r;

	npt48(ext, c->host, NPT_IN, NPT_OUT);
	s.f.src = c->dnpt ? NPT_PEER : c->host;
	s.f.dst = c->dnpt ? ext : NPT_PEER;
	if (c->proto != PROTO_ICMPV6) {
		s.f.sport = c->dnpt ? 50000 : 4000;
		s.f.dport = c->dnpt ? 443 : 53;
	} else if (c->icmp_type == 128) {
		s.f.sport = 0x0b0b;		/* the identifier */
	}
	if (c->icmp_type == 1) {
		q.f.src = s.f.dst;
		q.f.dst = s.f.src;
		q.f.sport = 53;
		q.f.dport = 4000;
		r = build6(qp, &q);
		r = error6_around(b, 1, 4, s.f.src, s.f.dst, "", qp, r.len);
	} else {
		r = build6(b, &s);
	}
	ck = r.l4 + csum_at6(c->proto);
	if (c->negzero && get16(b + ck) == 0)
		set16(b + ck, 0xffff);
	memcpy(a, b, r.len);
	npt48(a + at, b + at, c->dnpt ? NPT_OUT : NPT_IN,
	      c->dnpt ? NPT_IN : NPT_OUT);
	*rec = (struct kbloom_xlate){
		.state = KBLOOM_XLATE_VALID,
		.kind = (c->dnpt ? KBLOOM_XLATE_DNAT : KBLOOM_XLATE_SNAT) |
			KBLOOM_XLATE_STATELESS,
		.proto = c->proto,
		.family = 6,
		.before_src = ref_fold6(b + 8),
		.before_dst = ref_fold6(b + 24),
		.after_src = ref_fold6(a + 8),
		.after_dst = ref_fold6(a + 24),
		.before_sport = htons(s.f.sport),
		.before_dport = htons(s.f.dport),
		.after_sport = htons(s.f.sport),
		.after_dport = htons(s.f.dport),
		.first = 1795000000,
	};
	return r.len;
}

/* Whether IPv6 packet @p's upper layer (no extension headers) sums right. */
static bool sums6(const uint8_t *p, uint32_t len)
{
	return ref_sum6(p + 8, p + 24, p[6], p + 40, len - 40) == 0xffff;
}

/* The fill of case @c that makes its checksum as it arrived @want; 0: none. */
static uint16_t npt_fill(struct npt_case c, uint32_t want)
{
	uint8_t b[512], a[512];
	struct kbloom_xlate rec;
	uint32_t w;

	for (w = 1; w <= 0xffff; w++) {
		c.fill = (uint16_t)w;
		npt_pair(&c, b, a, &rec);
		if (get16(b + 40 + csum_at6(c.proto)) == want)
			return (uint16_t)w;
	}
	return 0;
}

static const struct npt_case npts[] = {
	{ .name = "SNPT UDP", .proto = PROTO_UDP, .host = NPT_HOST },
	{ .name = "SNPT TCP", .proto = PROTO_TCP, .host = NPT_HOST },
	{ .name = "SNPT ICMPv6 echo request", .proto = PROTO_ICMPV6,
	  .icmp_type = 128, .host = NPT_HOST },
	{ .name = "SNPT ICMPv6 port unreachable", .proto = PROTO_ICMPV6,
	  .icmp_type = 1, .host = NPT_HOST },
	{ .name = "DNPT UDP", .proto = PROTO_UDP, .dnpt = 1,
	  .host = NPT_HOST },
	{ .name = "DNPT TCP", .proto = PROTO_TCP, .dnpt = 1,
	  .host = NPT_HOST },
	{ .name = "DNPT ICMPv6 echo request", .proto = PROTO_ICMPV6,
	  .icmp_type = 128, .dnpt = 1, .host = NPT_HOST },
	{ .name = "DNPT ICMPv6 port unreachable", .proto = PROTO_ICMPV6,
	  .icmp_type = 1, .dnpt = 1, .host = NPT_HOST },
	{ .name = "SNPT UDP, subnet word 0xffff written 0",
	  .proto = PROTO_UDP, .host = NPT_HOST_FFFF },
	{ .name = "DNPT TCP, subnet word 0 outside", .proto = PROTO_TCP,
	  .dnpt = 1, .host = NPT_HOST_FFFF },
};

/*
 * RFC 6296's mapping is checksum-neutral: the packet leaves with every
 * checksum as it came and sums right; the inverse with the record and
 * BEFORE's addresses is the packet as it arrived, byte for byte: its
 * checksum, an echo's identifier and an error's quote as they were.
 */
TEST(nptv6_snpt_and_dnpt_invert_to_the_packet_as_it_arrived)
{
	uint8_t b[512], a[512], out[512];
	struct kbloom_xlate rec;
	uint32_t len, at;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(npts); i++) {
		len = npt_pair(&npts[i], b, a, &rec);
		at = npts[i].dnpt ? 24 : 8;
		ASSERT_TRUE(sums6(b, len)) TH_LOG("%s", npts[i].name);
		/* The one address translated, every other byte as it came. */
		ASSERT_NE(0, memcmp(a + at, b + at, 16));
		ASSERT_EQ(0, memcmp(a, b, at));
		ASSERT_EQ(0, memcmp(a + at + 16, b + at + 16, len - at - 16));
		EXPECT_TRUE(sums6(a, len)) TH_LOG("%s", npts[i].name);
		memset(out, 0x5a, sizeof(out));
		EXPECT_EQ(0, invert6(a, len, &rec, b + 8, b + 24, out));
		EXPECT_EQ(-1, first_diff(out, b, len)) {
			TH_LOG("%s", npts[i].name);
		}
	}
}

/*
 * NPT leaves the checksum: a capture of any length that holds the key
 * inverts to the first bytes of the packet as it arrived, half a
 * checksum included; a shorter one is refused.
 */
TEST(nptv6_inverts_a_capture_of_any_length)
{
	uint8_t b[512], a[512], out[512];
	struct kbloom_xlate rec;
	uint32_t len, cap, need;
	size_t i;
	int r;

	for (i = 0; i < ARRAY_SIZE(npts); i++) {
		len = npt_pair(&npts[i], b, a, &rec);
		need = 40 + (npts[i].proto != PROTO_ICMPV6 ? 4 :
			     npts[i].icmp_type == 128 ? 6 : 1);
		for (cap = 0; cap <= len; cap++) {
			memset(out, 0x5a, sizeof(out));
			r = invert6(a, cap, &rec, b + 8, b + 24, out);
			EXPECT_EQ(cap < need ? -1 : 0, r) {
				TH_LOG("%s, %u bytes", npts[i].name, cap);
			}
			if (cap >= need)
				EXPECT_EQ(-1, first_diff(out, b, cap)) {
					TH_LOG("%s, %u bytes", npts[i].name,
					       cap);
				}
		}
	}
}

/*
 * A UDP checksum summed 0 goes as 0xffff (RFC 768); NPT leaves it so:
 * inverted, 0xffff as it arrived, not 0.
 */
TEST(nptv6_udp_checksum_sent_as_ffff_inverts_to_ffff)
{
	uint8_t b[512], a[512], out[512];
	struct npt_case c[2] = { npts[0], npts[4] };
	struct kbloom_xlate rec;
	uint32_t len;
	size_t i;

	for (i = 0; i < 2; i++) {
		c[i].fill = npt_fill(c[i], 0xffff);
		ASSERT_NE(0, c[i].fill);
		len = npt_pair(&c[i], b, a, &rec);
		ASSERT_EQ(0xffff, get16(b + 46));
		ASSERT_EQ(0xffff, get16(a + 46));
		ASSERT_TRUE(sums6(a, len));
		memset(out, 0x5a, sizeof(out));
		ASSERT_EQ(0, invert6(a, len, &rec, b + 8, b + 24, out));
		EXPECT_EQ(0xffff, get16(out + 46)) TH_LOG("%s", c[i].name);
		EXPECT_EQ(-1, first_diff(out, b, len));
	}
}

/*
 * A TCP or ICMPv6 checksum summed 0x0000 but carried as 0xffff, ones'
 * complement's other zero (it verifies the same, RFC 1071; RFC 1141's
 * incremental update can leave it, RFC 1624): NPT leaves it, and so must
 * the inverse. Updating it by the neutral difference instead would give
 * 0x0000 (UDP's 0xffff, above, would come back 0xffff either way: a sum
 * of 0 goes as 0xffff).
 */
TEST(nptv6_leaves_a_checksum_carried_as_minus_zero)
{
	uint8_t b[512], a[512], out[512];
	struct npt_case c[4] = { npts[1], npts[2], npts[5], npts[6] };
	struct kbloom_xlate rec;
	uint32_t len, ck;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		c[i].fill = npt_fill(c[i], 0);
		ASSERT_NE(0, c[i].fill);
		c[i].negzero = 1;
		len = npt_pair(&c[i], b, a, &rec);
		ck = 40 + csum_at6(c[i].proto);
		ASSERT_EQ(0xffff, get16(b + ck));
		ASSERT_TRUE(sums6(b, len));
		ASSERT_EQ(0xffff, get16(a + ck));
		memset(out, 0x5a, sizeof(out));
		ASSERT_EQ(0, invert6(a, len, &rec, b + 8, b + 24, out));
		EXPECT_EQ(0xffff, get16(out + ck)) TH_LOG("%s", c[i].name);
		EXPECT_EQ(-1, first_diff(out, b, len));
	}
}

/*
 * Likewise a non-echo ICMPv6 message with bytes 4-5 not zero: an RFC
 * 4620 Node Information Query (type 139) of Qtype 2, whose checksum
 * summed 0x0000 is carried as 0xffff. Its key has no identifier (sport
 * 0, as the kernel's), and bytes 4-5 are no identifier either: NPT left
 * the checksum, and so must the inverse, not take the Qtype for an
 * identifier that changed and update the checksum to 0x0000.
 */
TEST(nptv6_leaves_a_non_echo_icmpv6_checksum_carried_as_minus_zero)
{
	static const struct npt_case nis[] = {
		{ .name = "SNPT ICMPv6 node information query",
		  .proto = PROTO_ICMPV6, .icmp_type = 139, .host = NPT_HOST },
		{ .name = "DNPT ICMPv6 node information query",
		  .proto = PROTO_ICMPV6, .icmp_type = 139, .dnpt = 1,
		  .host = NPT_HOST },
	};
	uint8_t b[512], a[512], out[512];
	struct kbloom_xlate rec;
	struct npt_case c;
	uint32_t len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nis); i++) {
		c = nis[i];
		c.fill = npt_fill(c, 0);
		ASSERT_NE(0, c.fill);
		c.negzero = 1;
		len = npt_pair(&c, b, a, &rec);
		ASSERT_EQ(139, b[40]);
		ASSERT_EQ(2, get16(b + 44));
		ASSERT_EQ(0xffff, get16(b + 42));
		ASSERT_TRUE(sums6(b, len));
		ASSERT_EQ(0xffff, get16(a + 42));
		ASSERT_TRUE(sums6(a, len));
		ASSERT_EQ(0, rec.before_sport);
		ASSERT_EQ(0, rec.after_sport);
		memset(out, 0x5a, sizeof(out));
		ASSERT_EQ(0, invert6(a, len, &rec, b + 8, b + 24, out));
		EXPECT_EQ(0xffff, get16(out + 42)) TH_LOG("%s", c.name);
		EXPECT_EQ(-1, first_diff(out, b, len)) TH_LOG("%s", c.name);
	}
}

#define SET4	IP4(198, 51, 100, 7)	/* "ip saddr set"'s */

/*
 * nftables' stateless "ip saddr set 198.51.100.7": not neutral; the IP
 * header checksum and the transport's (UDP's and TCP's pseudo-header;
 * ICMP has none) updated as NAT updates them. Both packets summed from
 * scratch; the inverse is the packet as it arrived.
 */
TEST(stateless_ipv4_saddr_set_inverts_its_checksums)
{
	static const uint8_t protos[] = { PROTO_UDP, PROTO_TCP, PROTO_ICMP };
	const struct flow fb[2] = { { INSIDE, SERVER, 4000, 53 },
				    { INSIDE, SERVER, 0x0b0b, 0 } };
	const struct flow fa[2] = { { SET4, SERVER, 4000, 53 },
				    { SET4, SERVER, 0x0b0b, 0 } };
	uint8_t b[256], a[256], out[256];
	struct kbloom_xlate rec;
	struct spec s = { .payload = 37, .icmp_type = 8 };
	uint32_t len, ck;
	size_t p, e;

	for (p = 0; p < ARRAY_SIZE(protos); p++) {
		e = protos[p] == PROTO_ICMP;
		s.proto = protos[p];
		s.f = fb[e];
		len = build(b, &s);
		s.f = fa[e];
		ASSERT_EQ(len, build(a, &s));
		rec = rec_of(s.proto, &fb[e], &fa[e]);
		ASSERT_EQ(KBLOOM_XLATE_SNAT, rec.kind);
		rec.kind |= KBLOOM_XLATE_STATELESS;
		/* Not neutral: the sums changed. */
		ck = 20 + (s.proto == PROTO_TCP ? 16 : s.proto == PROTO_UDP ?
			   6 : 2);
		ASSERT_NE(get16(b + 10), get16(a + 10));
		if (s.proto != PROTO_ICMP)
			ASSERT_NE(get16(b + ck), get16(a + ck));
		memset(out, 0x5a, sizeof(out));
		EXPECT_EQ(0, invert(a, len, &rec, out));
		EXPECT_EQ(-1, first_diff(out, b, len)) {
			TH_LOG("protocol %u", s.proto);
		}
	}
}

/*
 * nftables' stateless "ip6 saddr set 2001:db8:1::5" (and "ip6 daddr set"
 * back): not neutral, the transport checksum updated for the
 * pseudo-header. Both packets summed from scratch; the inverse is the
 * packet as it arrived.
 */
TEST(stateless_ip6_saddr_set_inverts_the_transport_checksum)
{
	static const uint8_t protos[] = { PROTO_UDP, PROTO_TCP, PROTO_ICMPV6 };
	static const uint8_t set6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
					  [15] = 0x05 };
	const struct nat6 sets[] = {
		{ "ip6 saddr set", { NPT_HOST, NPT_PEER, 4000, 53 },
				   { set6, NPT_PEER, 4000, 53 } },
		{ "ip6 daddr set", { NPT_PEER, set6, 53, 4000 },
				   { NPT_PEER, NPT_HOST, 53, 4000 } },
	};
	uint8_t b[256], a[256], out[256];
	struct spec6 s = { .payload = 37, .icmp_type = 128 };
	struct kbloom_xlate rec;
	struct flow6 fb, fa;
	struct built6 bb, ab;
	size_t p, n;

	for (n = 0; n < ARRAY_SIZE(sets); n++)
		for (p = 0; p < ARRAY_SIZE(protos); p++) {
			s.proto = protos[p];
			fb = sets[n].b;
			fa = sets[n].a;
			if (s.proto == PROTO_ICMPV6) {
				/* The identifier in sport, as keys have it. */
				fb.sport = fa.sport = 0x0b0b;
				fb.dport = fa.dport = 0;
			}
			s.f = fb;
			bb = build6(b, &s);
			s.f = fa;
			ab = build6(a, &s);
			ASSERT_EQ(bb.len, ab.len);
			rec = rec6(s.proto, &fb, &fa);
			ASSERT_EQ(n ? KBLOOM_XLATE_DNAT : KBLOOM_XLATE_SNAT,
				  rec.kind);
			rec.kind |= KBLOOM_XLATE_STATELESS;
			ASSERT_NE(get16(b + 40 + csum_at6(s.proto)),
				  get16(a + 40 + csum_at6(s.proto)));
			memset(out, 0x5a, sizeof(out));
			EXPECT_EQ(0, invert6(a, ab.len, &rec, fb.src, fb.dst,
					     out));
			EXPECT_EQ(-1, first_diff(out, b, bb.len)) {
				TH_LOG("%s, protocol %u", sets[n].name,
				       s.proto);
			}
		}
}

TEST_HARNESS_MAIN
