// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packet digests (formats in uapi/kbloom.h, "Digest formats"): plain byte
 * parsing of the first bytes of a packet from its network header, with
 * big-endian fields read by shifts so the result does not depend on the
 * CPU. Shared by the module's hooks and by bloomctl.
 *
 * Decisions the format leaves open:
 * - Every mode checks the IP header the same way (version, IHL, total or
 *   payload length), so a malformed packet is MALFORMED in every mode.
 * - SPIE and SRC/DST do not walk IPv6 extension headers: SPIE takes the
 *   bytes after the fixed header as they are, whatever they hold.
 * - An IPv6 jumbogram (payload length 0, next header hop-by-hop) is
 *   MALFORMED in every mode: its length lives in a hop-by-hop option that
 *   a digest of the first bytes cannot be sure to see.
 * - FLOW/MULTI of a packet whose IP length ends before the 4 port bytes of
 *   a protocol with ports (or inside an extension header) is MALFORMED;
 *   when the IP length covers them but they are not captured (or lie past
 *   KB_DIGEST_SPAN) it is SHORT.
 * - IPv6 "no next header" (59) is a protocol without ports.
 * - An unknown digest mode gives MALFORMED (callers validate the mode).
 */
#include "digest.h"

#define KB_IPV4_HLEN		20
#define KB_IPV6_HLEN		40
#define KB_SPIE_PAYLOAD		8

/* IPv6 extension headers walked to find the upper protocol. */
#define KB_NH_HOPOPTS		0
#define KB_NH_ROUTING		43
#define KB_NH_FRAGMENT		44
#define KB_NH_AH		51
#define KB_NH_DSTOPTS		60

#define KB_PROTO_DCCP		33
#define KB_PROTO_TCP		6
#define KB_PROTO_UDP		17
#define KB_PROTO_SCTP		132
#define KB_PROTO_UDPLITE	136

#define KB_TCP_HLEN		20
#define KB_UDP_HLEN		8

/* What the network header says, as far as a digest needs it. */
struct kb_l3 {
	u32 family;		/* 4 or 6 */
	u32 iplen;		/* bytes of the packet by its IP header */
	u32 l4;			/* offset of the upper-layer header */
	u32 alen;		/* address length */
	u8 proto;		/* upper-layer protocol (walked for IPv6) */
	bool later_frag;	/* a fragment other than the first */
	bool frag;		/* any fragment (IPv4 MF or offset, IPv6 header) */
};

static inline u32 kb_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

static inline u32 kb_get_be16(const u8 *p)
{
	return (u32)p[0] << 8 | p[1];
}

static inline u32 kb_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline void kb_put_be16(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void kb_put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static bool kb_has_ports(u8 proto)
{
	switch (proto) {
	case KB_PROTO_TCP:
	case KB_PROTO_UDP:
	case KB_PROTO_UDPLITE:
	case KB_PROTO_SCTP:
	case KB_PROTO_DCCP:
		return true;
	}
	return false;
}

/*
 * Walks the IPv6 extension headers from the fixed header to the upper
 * protocol, within the payload length and the bytes available (@avail:
 * caplen capped at KB_DIGEST_SPAN). Stops at a non-first fragment.
 */
static u32 kb_ipv6_walk(const u8 *pkt, u32 avail, struct kb_l3 *l3)
{
	u32 off = KB_IPV6_HLEN;
	u8 nh = pkt[6];

	for (;;) {
		u32 hlen;

		switch (nh) {
		case KB_NH_HOPOPTS:
		case KB_NH_ROUTING:
		case KB_NH_DSTOPTS:
		case KB_NH_AH:
		case KB_NH_FRAGMENT:
			break;
		default:
			l3->proto = nh;
			l3->l4 = off;
			return KBLOOM_SKIP_NONE;
		}
		/* Every extension header is at least 8 bytes. */
		if (off + 8 > l3->iplen)
			return KBLOOM_SKIP_MALFORMED;
		if (off + 8 > avail)
			return KBLOOM_SKIP_SHORT;
		if (nh == KB_NH_FRAGMENT) {
			hlen = 8;
			l3->frag = true;
			/* Offset: the upper 13 bits of bytes 2-3. */
			if (kb_get_be16(pkt + off + 2) & 0xfff8) {
				l3->later_frag = true;
				l3->proto = pkt[off];
				l3->l4 = off + hlen;
				return KBLOOM_SKIP_NONE;
			}
		} else if (nh == KB_NH_AH) {
			/* AH counts 4-byte units less 2 (RFC 4302). */
			hlen = ((u32)pkt[off + 1] + 2) * 4;
		} else {
			/* The others count 8-byte units less 1 (RFC 8200). */
			hlen = ((u32)pkt[off + 1] + 1) * 8;
		}
		if (off + hlen > l3->iplen)
			return KBLOOM_SKIP_MALFORMED;
		nh = pkt[off];
		off += hlen;
	}
}

/*
 * Checks the network header and fills @l3. @total, when not 0, replaces the
 * length in the header (GSO packets). @walk: find the IPv6 upper protocol.
 */
static __always_inline u32 kb_parse(const u8 *pkt, u32 caplen, u32 total,
				    bool walk, struct kb_l3 *l3)
{
	u32 avail = kb_min_u32(caplen, KB_DIGEST_SPAN);

	memset(l3, 0, sizeof(*l3));
	if (!caplen)
		return KBLOOM_SKIP_SHORT;

	switch (pkt[0] >> 4) {
	case 4: {
		u32 hl = (pkt[0] & 0xf) * 4;
		u32 frag;

		if (caplen < KB_IPV4_HLEN)
			return KBLOOM_SKIP_SHORT;
		l3->iplen = total ? total : kb_get_be16(pkt + 2);
		if (hl < KB_IPV4_HLEN || l3->iplen < hl)
			return KBLOOM_SKIP_MALFORMED;
		l3->family = 4;
		l3->alen = 4;
		l3->l4 = hl;
		l3->proto = pkt[9];
		/* MF (0x2000) and the 13-bit fragment offset. */
		frag = kb_get_be16(pkt + 6);
		l3->frag = frag & 0x3fff;
		l3->later_frag = frag & 0x1fff;
		return KBLOOM_SKIP_NONE;
	}
	case 6:
		if (caplen < KB_IPV6_HLEN)
			return KBLOOM_SKIP_SHORT;
		l3->iplen = total ? total :
			    KB_IPV6_HLEN + kb_get_be16(pkt + 4);
		if (l3->iplen < KB_IPV6_HLEN)
			return KBLOOM_SKIP_MALFORMED;
		/*
		 * A jumbogram (RFC 2675): payload length 0, the real one in a
		 * hop-by-hop option. Not digested (MALFORMED), in every mode.
		 */
		if (!total && l3->iplen == KB_IPV6_HLEN &&
		    pkt[6] == KB_NH_HOPOPTS)
			return KBLOOM_SKIP_MALFORMED;
		l3->family = 6;
		l3->alen = 16;
		l3->l4 = KB_IPV6_HLEN;
		l3->proto = pkt[6];
		if (walk)
			return kb_ipv6_walk(pkt, avail, l3);
		return KBLOOM_SKIP_NONE;
	}
	return KBLOOM_SKIP_MALFORMED;
}

static u32 kb_digest_spie(const u8 *pkt, u32 caplen, const struct kb_l3 *l3,
			  struct kb_digest *out)
{
	u32 hdr = l3->family == 4 ? KB_IPV4_HLEN : KB_IPV6_HLEN;
	u32 tail = kb_min_u32(KB_SPIE_PAYLOAD, l3->iplen - l3->l4);

	if (caplen < l3->l4 + tail)
		return KBLOOM_SKIP_SHORT;
	memcpy(out->key, pkt, hdr);
	memcpy(out->key + hdr, pkt + l3->l4, tail);
	out->len = hdr + tail;
	if (l3->family == 4) {
		out->key[1] = 0;		/* TOS: DSCP and ECN */
		out->key[8] = 0;		/* TTL */
		out->key[10] = 0;		/* header checksum */
		out->key[11] = 0;
	} else {
		/* Traffic class: the low nibble of byte 0, high of byte 1. */
		out->key[0] &= 0xf0;
		out->key[1] &= 0x0f;
		out->key[7] = 0;		/* hop limit */
	}
	return KBLOOM_SKIP_NONE;
}

/* The ports of a first fragment or whole packet, 0 for protocols without. */
static u32 kb_ports(const u8 *pkt, u32 caplen, const struct kb_l3 *l3,
		    u8 ports[4])
{
	memset(ports, 0, 4);
	if (!kb_has_ports(l3->proto))
		return KBLOOM_SKIP_NONE;
	if (l3->l4 + 4 > l3->iplen)
		return KBLOOM_SKIP_MALFORMED;
	if (l3->l4 + 4 > kb_min_u32(caplen, KB_DIGEST_SPAN))
		return KBLOOM_SKIP_SHORT;
	memcpy(ports, pkt + l3->l4, 4);
	return KBLOOM_SKIP_NONE;
}

/* Addresses: IPv4 bytes 12 and 16, IPv6 bytes 8 and 24. */
static const u8 *kb_src(const u8 *pkt, const struct kb_l3 *l3)
{
	return pkt + (l3->family == 4 ? 12 : 8);
}

static const u8 *kb_dst(const u8 *pkt, const struct kb_l3 *l3)
{
	return pkt + (l3->family == 4 ? 16 : 24);
}

u32 kb_digest(const u8 *pkt, u32 caplen, u32 mode, struct kb_digest *out)
{
	memset(out, 0, sizeof(*out));
	return kb_digest_packet(pkt, caplen, mode, out);
}

u32 kb_digest_packet(const u8 *pkt, u32 caplen, u32 mode,
		     struct kb_digest *out)
{
	bool walk = mode == KBLOOM_DIGEST_FLOW || mode == KBLOOM_DIGEST_MULTI;
	u32 alen, skip;
	struct kb_l3 l3;
	u8 ports[4];

	if (mode == KBLOOM_DIGEST_UNSPEC || mode > KBLOOM_DIGEST_MAX)
		return KBLOOM_SKIP_MALFORMED;
	skip = kb_parse(pkt, caplen, 0, walk, &l3);
	if (skip)
		return skip;
	alen = l3.alen;

	switch (mode) {
	case KBLOOM_DIGEST_SPIE:
		return kb_digest_spie(pkt, caplen, &l3, out);
	case KBLOOM_DIGEST_SRC:
		memcpy(out->key, kb_src(pkt, &l3), alen);
		out->len = alen;
		return KBLOOM_SKIP_NONE;
	case KBLOOM_DIGEST_DST:
		memcpy(out->key, kb_dst(pkt, &l3), alen);
		out->len = alen;
		return KBLOOM_SKIP_NONE;
	}

	/* FLOW and MULTI need the ports, absent from later fragments. */
	if (l3.later_frag)
		return KBLOOM_SKIP_FRAGMENT;
	skip = kb_ports(pkt, caplen, &l3, ports);
	if (skip)
		return skip;

	if (mode == KBLOOM_DIGEST_FLOW) {
		out->key[0] = l3.proto;
		memcpy(out->key + 1, kb_src(pkt, &l3), alen);
		memcpy(out->key + 1 + alen, kb_dst(pkt, &l3), alen);
		memcpy(out->key + 1 + 2 * alen, ports, 4);
		out->len = 1 + 2 * alen + 4;
		return KBLOOM_SKIP_NONE;
	}

	/* MULTI: source, destination, destination port. */
	memcpy(out->key, kb_src(pkt, &l3), alen);
	memcpy(out->key + alen, kb_dst(pkt, &l3), alen);
	memcpy(out->key + 2 * alen, ports + 2, 2);
	out->len = 2 * alen + 2;
	out->dim_off[0] = 0;
	out->dim_len[0] = (u8)alen;
	out->dim_off[1] = (u8)alen;
	out->dim_len[1] = (u8)alen;
	out->dim_off[2] = (u8)(2 * alen);
	out->dim_len[2] = 2;
	return KBLOOM_SKIP_NONE;
}

/* A GSO packet: where its TCP or UDP header is, how much payload follows. */
struct kb_gso {
	struct kb_l3 l3;
	u32 thl;		/* TCP header length, or UDP's 8 */
	u32 payload;		/* payload bytes of the super-packet */
	u32 nsegs;
	bool jumbo;		/* IPv6 BIG TCP with a jumbo hop-by-hop header */
};

/*
 * An IPv6 BIG TCP packet may carry an 8-byte hop-by-hop header holding
 * only a jumbo payload option (type 0xc2, 4 bytes) with payload length 0;
 * segmentation removes it, so the wire segments do not have it.
 */
static bool kb_ipv6_jumbo_hbh(const u8 *pkt, u32 caplen)
{
	return caplen >= KB_IPV6_HLEN + 8 && pkt[6] == KB_NH_HOPOPTS &&
	       !kb_get_be16(pkt + 4) && pkt[KB_IPV6_HLEN + 1] == 0 &&
	       pkt[KB_IPV6_HLEN + 2] == 0xc2 && pkt[KB_IPV6_HLEN + 3] == 4;
}

static u32 kb_gso_parse(const u8 *pkt, u32 caplen, u32 total, u32 gso_size,
			u8 proto,
			struct kb_gso *g)
{
	u32 skip;

	memset(g, 0, sizeof(*g));
	if (!total || !gso_size)
		return KBLOOM_SKIP_GSO;
	skip = kb_parse(pkt, caplen, total, true, &g->l3);
	if (skip)
		return skip;
	if (g->l3.proto != proto || g->l3.frag)
		return KBLOOM_SKIP_GSO;
	g->thl = proto == KB_PROTO_TCP ? KB_TCP_HLEN : KB_UDP_HLEN;
	if (g->l3.l4 + g->thl > g->l3.iplen)
		return KBLOOM_SKIP_MALFORMED;
	if (g->l3.l4 + g->thl > kb_min_u32(caplen, KB_DIGEST_SPAN))
		return KBLOOM_SKIP_SHORT;
	if (proto == KB_PROTO_TCP)
		g->thl = (pkt[g->l3.l4 + 12] >> 4) * 4;
	if (g->thl < KB_TCP_HLEN && proto == KB_PROTO_TCP)
		return KBLOOM_SKIP_MALFORMED;
	if (g->l3.l4 + g->thl > g->l3.iplen)
		return KBLOOM_SKIP_MALFORMED;
	g->payload = g->l3.iplen - g->l3.l4 - g->thl;
	/* A GSO packet without payload is sent as it is: one segment. */
	g->nsegs = g->payload ? (g->payload - 1) / gso_size + 1 : 1;
	g->jumbo = g->l3.family == 6 && kb_ipv6_jumbo_hbh(pkt, caplen);
	/* UDP has no jumbo segmentation to undo. */
	if (g->jumbo && proto != KB_PROTO_TCP)
		return KBLOOM_SKIP_GSO;
	return KBLOOM_SKIP_NONE;
}

u32 kb_digest_tcp_segments(const u8 *pkt, u32 caplen, u32 total,
			   u32 gso_size)
{
	struct kb_gso g;

	if (kb_gso_parse(pkt, caplen, total, gso_size, KB_PROTO_TCP, &g))
		return 0;
	return g.nsegs;
}

/*
 * Rewrites the IP header at @ip (parsed as @g) and its TCP or UDP header
 * (at @l4 from @ip) as segment @seg of @seglen payload bytes: the lengths,
 * the IPv4 ID (unless @fixed_id), TCP's sequence number or UDP's length
 * and checksum @csum. 0, or MALFORMED when a length does not fit.
 */
static u32 kb_gso_rewrite(u8 *ip, const struct kb_gso *g, u32 l4, u8 proto,
			  bool fixed_id, u32 gso_size, u32 seg, u32 seglen,
			  u16 csum)
{
	if (g->l3.family == 4) {
		if (l4 + g->thl + seglen > 0xffff)
			return KBLOOM_SKIP_MALFORMED;
		kb_put_be16(ip + 2, l4 + g->thl + seglen);
		if (!fixed_id)
			kb_put_be16(ip + 4, kb_get_be16(ip + 4) + seg);
	} else {
		if (l4 - KB_IPV6_HLEN + g->thl + seglen > 0xffff)
			return KBLOOM_SKIP_MALFORMED;
		kb_put_be16(ip + 4, l4 - KB_IPV6_HLEN + g->thl + seglen);
	}
	if (proto == KB_PROTO_TCP) {
		kb_put_be32(ip + l4 + 4,
			    kb_get_be32(ip + l4 + 4) + seg * gso_size);
	} else {
		kb_put_be16(ip + l4 + 4, KB_UDP_HLEN + seglen);
		kb_put_be16(ip + l4 + 6, csum);
	}
	return KBLOOM_SKIP_NONE;
}

/*
 * Segment @seg of a TCP or UDP (@proto) GSO packet as segmentation puts it
 * on the wire, as far as a digest can see: IP lengths and the IPv4 ID
 * (unless @fixed_id); TCP's sequence number (its flags and checksum are
 * not: no digest covers them), or UDP's length and checksum (@csum,
 * summed by the caller); then digested as a packet.
 */
static u32 kb_digest_gso_segment(const u8 *pkt, u32 caplen, u32 total,
				 u32 mode, u32 gso_size, u8 proto,
				 bool fixed_id, u32 seg, u16 csum,
				 struct kb_digest *out)
{
	u32 n = kb_min_u32(caplen, KB_DIGEST_SPAN);
	u8 buf[KB_DIGEST_SPAN];
	u32 seglen, l4, skip;
	struct kb_gso g;

	memset(out, 0, sizeof(*out));
	skip = kb_gso_parse(pkt, caplen, total, gso_size, proto, &g);
	if (skip)
		return skip;
	if (seg >= g.nsegs)
		return KBLOOM_SKIP_GSO;
	seglen = kb_min_u32(gso_size, g.payload - seg * gso_size);
	l4 = g.l3.l4;

	if (g.jumbo) {
		/* Drop the jumbo hop-by-hop header: its next header moves up. */
		memcpy(buf, pkt, KB_IPV6_HLEN);
		buf[6] = pkt[KB_IPV6_HLEN];
		memcpy(buf + KB_IPV6_HLEN, pkt + KB_IPV6_HLEN + 8,
		       n - KB_IPV6_HLEN - 8);
		n -= 8;
		l4 -= 8;
	} else {
		memcpy(buf, pkt, n);
	}
	skip = kb_gso_rewrite(buf, &g, l4, proto, fixed_id, gso_size, seg,
			      seglen, csum);
	if (skip)
		return skip;
	return kb_digest(buf, n, mode, out);
}

u32 kb_digest_tcp_segment(const u8 *pkt, u32 caplen, u32 total, u32 mode,
			  u32 gso_size, bool fixed_id, u32 seg,
			  struct kb_digest *out)
{
	return kb_digest_gso_segment(pkt, caplen, total, mode, gso_size,
				     KB_PROTO_TCP, fixed_id, seg, 0, out);
}

u32 kb_digest_udp_segments(const u8 *pkt, u32 caplen, u32 total,
			   u32 gso_size, u32 *l4)
{
	struct kb_gso g;

	if (kb_gso_parse(pkt, caplen, total, gso_size, KB_PROTO_UDP, &g))
		return 0;
	*l4 = g.l3.l4;
	return g.nsegs;
}

/* UDP segmentation increments the IPv4 ID per datagram, always. */
u32 kb_digest_udp_segment(const u8 *pkt, u32 caplen, u32 total, u32 mode,
			  u32 gso_size, u32 seg, u16 csum,
			  struct kb_digest *out)
{
	return kb_digest_gso_segment(pkt, caplen, total, mode, gso_size,
				     KB_PROTO_UDP, false, seg, csum, out);
}

#define KB_PROTO_IPIP		4
#define KB_PROTO_IPV6		41
#define KB_PROTO_GRE		47
#define KB_GRE_FLAG_CSUM	0x8000	/* RFC 2784 */
#define KB_IPV4_DF		0x4000
#define KB_IPV4_RESERVED	0x8000

/* A tunnel's GSO packet: its outer header, and the inner TCP packet's. */
struct kb_tunnel {
	struct kb_l3 o;		/* o.l4: where the encapsulation starts */
	struct kb_gso g;	/* the inner packet, at @inner */
	u32 inner;
};

static u32 kb_tunnel_parse(const u8 *pkt, u32 caplen, u32 total, u32 inner,
			   u32 gso_size, struct kb_tunnel *t)
{
	u32 avail = kb_min_u32(caplen, KB_TUNNEL_SPAN);
	u32 skip, min;

	memset(t, 0, sizeof(*t));
	if (!total || !inner || inner >= avail || inner >= total)
		return KBLOOM_SKIP_GSO;
	skip = kb_parse(pkt, caplen, total, true, &t->o);
	if (skip)
		return skip;
	if (t->o.frag || t->o.l4 > inner)
		return KBLOOM_SKIP_GSO;
	switch (t->o.proto) {
	case KB_PROTO_IPIP:
	case KB_PROTO_IPV6:
		min = 0;
		break;
	case KB_PROTO_GRE:
		min = 4;
		break;
	case KB_PROTO_UDP:
		min = KB_UDP_HLEN;
		break;
	default:
		return KBLOOM_SKIP_GSO;
	}
	/* IPIP's inner header follows; a checksum sums 16-bit words. */
	if (inner < t->o.l4 + min || (!min && inner != t->o.l4) ||
	    (inner - t->o.l4) & 1)
		return KBLOOM_SKIP_GSO;
	skip = kb_gso_parse(pkt + inner, caplen - inner, total - inner,
			    gso_size, KB_PROTO_TCP, &t->g);
	if (skip)
		return skip;
	if (t->g.jumbo)
		return KBLOOM_SKIP_GSO;
	if (inner + t->g.l3.l4 + t->g.thl > avail)
		return KBLOOM_SKIP_SHORT;
	t->inner = inner;
	return KBLOOM_SKIP_NONE;
}

/* The one's complement sum of @n bytes' 16-bit words (RFC 1071). */
static u32 kb_sum16(const u8 *p, u32 n, u32 sum)
{
	u32 i;

	for (i = 0; i + 1 < n; i += 2)
		sum += kb_get_be16(p + i);
	if (n & 1)
		sum += (u32)p[n - 1] << 8;
	return sum;
}

static u32 kb_fold16(u32 sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/*
 * The outer checksum at @at (GRE's, or UDP's with @udp: its
 * pseudo-header) of segment @buf, whose inner TCP segment has @tcplen
 * bytes. What it covers past the headers is the inner packet: an IPv4
 * header sums to zero with its checksum, a TCP segment to the complement
 * of its pseudo-header with its own (both as segmentation writes them),
 * so the payload's bytes are not needed.
 */
static void kb_tunnel_csum(u8 *buf, const struct kb_tunnel *t, u32 tcplen,
			   u32 at, bool udp, u32 udplen)
{
	const struct kb_l3 *in = &t->g.l3;
	const u8 *ip = buf + t->inner;
	u32 sum, ps;

	ps = kb_sum16(ip + (in->family == 4 ? 12 : 8), 2 * in->alen, 0) +
	     KB_PROTO_TCP + tcplen;
	sum = ~kb_fold16(ps) & 0xffff;
	if (in->family == 6)
		sum = kb_sum16(ip, in->l4, sum);
	kb_put_be16(buf + at, 0);
	sum = kb_sum16(buf + t->o.l4, t->inner - t->o.l4, sum);
	if (udp)
		sum = kb_sum16(buf + (t->o.family == 4 ? 12 : 8),
			       2 * t->o.alen, sum) + KB_PROTO_UDP + udplen;
	sum = ~kb_fold16(sum) & 0xffff;
	/* UDP sends a computed 0 as 0xffff (RFC 768). */
	kb_put_be16(buf + at, udp && !sum ? 0xffff : sum);
}

void kb_pkt_unsure(u8 *pkt)
{
	kb_put_be16(pkt + 4, 0);
	pkt[6] |= KB_IPV4_RESERVED >> 8;
}

bool kb_pkt_may_be_unsure(const u8 *pkt, u32 caplen)
{
	u32 frag;

	if (caplen < KB_IPV4_HLEN || pkt[0] >> 4 != 4)
		return false;
	frag = kb_get_be16(pkt + 6);
	if (!(frag & KB_IPV4_DF) || (frag & (KB_IPV4_RESERVED | 0x3fff)))
		return false;
	return pkt[9] == KB_PROTO_IPIP || pkt[9] == KB_PROTO_IPV6 ||
	       pkt[9] == KB_PROTO_GRE || pkt[9] == KB_PROTO_UDP;
}

u32 kb_tunnel_segments(const u8 *pkt, u32 caplen, u32 total, u32 inner,
		       u32 gso_size)
{
	struct kb_tunnel t;

	if (kb_tunnel_parse(pkt, caplen, total, inner, gso_size, &t))
		return 0;
	return t.g.nsegs;
}

u32 kb_tunnel_segment(const u8 *pkt, u32 caplen, u32 total, u32 inner,
		      u32 gso_size, u32 flags, u32 seg, u8 *buf, u32 *n)
{
	const struct kb_l3 *o;
	u32 seglen, olen, skip;
	struct kb_tunnel t;

	skip = kb_tunnel_parse(pkt, caplen, total, inner, gso_size, &t);
	if (skip)
		return skip;
	if (seg >= t.g.nsegs)
		return KBLOOM_SKIP_GSO;
	o = &t.o;
	*n = kb_min_u32(caplen, KB_TUNNEL_SPAN);
	memcpy(buf, pkt, *n);
	seglen = kb_min_u32(gso_size, t.g.payload - seg * gso_size);
	skip = kb_gso_rewrite(buf + inner, &t.g, t.g.l3.l4, KB_PROTO_TCP,
			      flags & KB_TUNNEL_FIXED_ID, gso_size, seg, seglen,
			      0);
	if (skip)
		return skip;
	olen = inner + t.g.l3.l4 + t.g.thl + seglen;
	if (olen - (o->family == 4 ? 0 : KB_IPV6_HLEN) > 0xffff)
		return KBLOOM_SKIP_MALFORMED;
	/* Segmentation numbers the outer IPv4 IDs one by one, always. */
	if (o->family == 4) {
		kb_put_be16(buf + 2, olen);
		kb_put_be16(buf + 4, kb_get_be16(buf + 4) + seg);
	} else {
		kb_put_be16(buf + 4, olen - KB_IPV6_HLEN);
	}
	if (o->proto == KB_PROTO_UDP) {
		kb_put_be16(buf + o->l4 + 4, olen - o->l4);
		if (flags & KB_TUNNEL_UDP_CSUM)
			kb_tunnel_csum(buf, &t, t.g.thl + seglen, o->l4 + 6,
				       true, olen - o->l4);
	} else if (o->proto == KB_PROTO_GRE &&
		   (kb_get_be16(buf + o->l4) & KB_GRE_FLAG_CSUM)) {
		if (inner < o->l4 + 8)
			return KBLOOM_SKIP_GSO;
		kb_tunnel_csum(buf, &t, t.g.thl + seglen, o->l4 + 4, false, 0);
	}
	return KBLOOM_SKIP_NONE;
}

u32 kb_digest_tunnel_segment(const u8 *pkt, u32 caplen, u32 total, u32 inner,
			     u32 mode, u32 gso_size, u32 flags, u32 seg,
			     struct kb_digest *out, struct kb_digest *unsure)
{
	u8 buf[KB_TUNNEL_SPAN];
	u32 n, skip;

	memset(out, 0, sizeof(*out));
	skip = kb_tunnel_segment(pkt, caplen, total, inner, gso_size, flags,
				 seg, buf, &n);
	if (!skip)
		skip = kb_digest(buf, n, mode, out);
	if (skip || !unsure)
		return skip;
	/* The segment built once: its unsure form is 3 bytes apart. */
	if (buf[0] >> 4 == 4)
		kb_pkt_unsure(buf);
	return kb_digest(buf, n, mode, unsure);
}
