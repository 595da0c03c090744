// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Packets as they were before NAT or fragmentation (see pktxform.h).
 *
 * Checksums are updated by RFC 1624's equation 3, HC' = ~(~HC + ~m + m'),
 * summed over each 16-bit word m that changes to m' (Rijsinghani,
 * "Computation of the Internet Checksum via Incremental Update", RFC 1624,
 * 1994). Its ones'-complement sum never folds to +0 while a term is non-zero,
 * so it lands on the same representative as a sum from scratch whenever the
 * covered bytes are not all zero: always for the IP header (version), UDP
 * and TCP (the pseudo-header's protocol); only an ICMP echo reply whose
 * identifier, sequence number and data are all 0 would get 0x0000 for
 * 0xffff, the same value in ones' complement.
 */
#include <netinet/in.h>
#include <string.h>

#include "../kmod/engine/xlate.h"
#include "inetcsum.h"
#include "pktxform.h"

#define IP_MF		0x2000
#define IP_OFFMASK	0x1fff
#define ICMP_ECHOREPLY	0
#define ICMP_ECHO	8
#define ICMP6_ECHO_REQUEST	128
#define ICMP6_ECHO_REPLY	129
/* The errors of RFC 792, which quote the packet they are about. */
#define ICMP_DEST_UNREACH	3
#define ICMP_SOURCE_QUENCH	4
#define ICMP_REDIRECT		5
#define ICMP_TIME_EXCEEDED	11
#define ICMP_PARAMETERPROB	12

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The ~m + m' terms of RFC 1624 for @n bytes (even) going from @old to @new. */
static uint32_t delta(uint32_t sum, const void *old, const void *new, size_t n)
{
	const uint8_t *o = old, *w = new;
	size_t k;

	for (k = 0; k + 1 < n; k += 2)
		sum = kb_csum_fold(sum + (~get16(o + k) & 0xffff) +
				   get16(w + k));
	return sum;
}

/* HC' = ~(~HC + delta) into the checksum at @ck; returns HC'. */
static uint32_t csum_apply(uint8_t *ck, uint32_t d)
{
	uint32_t hc = ~kb_csum_fold((~get16(ck) & 0xffff) + d) & 0xffff;

	put16(ck, hc);
	return hc;
}

/* The ones'-complement checksum of @n bytes, from scratch. */
static uint32_t csum(const uint8_t *p, size_t n)
{
	return ~kb_csum_fold(kb_csum_add(p, n, 0)) & 0xffff;
}

/* An IPv4 header: its length, and the bytes of the packet that are packet. */
struct ip4 {
	uint32_t hl;		/* header length with options */
	uint32_t tot;		/* total length from the header */
	uint32_t end;		/* min(captured, total): past it is padding */
	uint32_t frag;		/* flags and fragment offset */
	uint8_t proto;
};

/* 0 for a well-formed IPv4 header, 1 for no IPv4, -1 for a malformed one. */
static int ip4_parse(const uint8_t *p, uint32_t len, struct ip4 *h)
{
	if (len < 1 || p[0] >> 4 != 4)
		return 1;
	if (len < 20)
		return -1;
	h->hl = (p[0] & 0x0f) * 4u;
	h->tot = get16(p + 2);
	if (h->hl < 20 || h->hl > len || h->tot < h->hl)
		return -1;
	h->end = len < h->tot ? len : h->tot;
	h->frag = get16(p + 6);
	h->proto = p[9];
	return 0;
}

static int has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

/* Whether @l4 (@n bytes of @proto) is an ICMP or ICMPv6 echo or reply. */
static bool is_echo(const uint8_t *l4, uint32_t n, uint8_t proto)
{
	if (n < 6)
		return false;
	if (proto == IPPROTO_ICMP)
		return l4[0] == ICMP_ECHO || l4[0] == ICMP_ECHOREPLY;
	return proto == IPPROTO_ICMPV6 &&
	       (l4[0] == ICMP6_ECHO_REQUEST || l4[0] == ICMP6_ECHO_REPLY);
}

/*
 * Ports, or an echo's identifier (conntrack keys echo request and reply
 * by it; @icmp: the family's ICMP), of @proto at @l4 (@n bytes) into
 * @want; -1: too short for them.
 */
static int key_ports(const uint8_t *l4, uint32_t n, uint8_t proto,
		     uint8_t icmp, struct kbloom_xlate *want)
{
	if (has_ports(proto)) {
		if (n < 4)
			return -1;
		memcpy(&want->after_sport, l4, 2);
		memcpy(&want->after_dport, l4 + 2, 2);
	} else if (proto == icmp) {
		if (n < 1)
			return -1;
		if (proto == IPPROTO_ICMP ?
		    l4[0] == ICMP_ECHO || l4[0] == ICMP_ECHOREPLY :
		    l4[0] == ICMP6_ECHO_REQUEST || l4[0] == ICMP6_ECHO_REPLY) {
			if (n < 6)
				return -1;
			memcpy(&want->after_sport, l4 + 4, 2);
		}
	}
	return 0;
}

/* The key of IPv4 packet @pkt (@h parsed): a later fragment's has no ports. */
static int key4(const uint8_t *pkt, const struct ip4 *h,
		struct kbloom_xlate *want)
{
	memset(want, 0, sizeof(*want));
	want->family = 4;
	want->proto = h->proto;
	memcpy(&want->after_src, pkt + 12, 4);
	memcpy(&want->after_dst, pkt + 16, 4);
	if (h->frag & IP_OFFMASK)
		return 0;
	return key_ports(pkt + h->hl, h->end - h->hl, h->proto, IPPROTO_ICMP,
			 want);
}

/* IPv6 extension headers (RFC 8200 4) a NAT'ed packet may carry. */
#define IP6_HOPOPTS	0
#define IP6_ROUTING	43
#define IP6_FRAGMENT	44
#define IP6_DSTOPTS	60

/*
 * The upper layer of IPv6 packet @p (@len bytes captured): its offset,
 * protocol and where the packet ends (the payload length bounding the
 * capture), past hop-by-hop, routing and destination options headers and
 * a first fragment's header. 0; 1 for a later fragment (no ports: its
 * protocol only); -1 for no IPv6, a jumbogram or a chain cut short.
 */
static int ip6_upper(const uint8_t *p, uint32_t len, uint32_t *l4,
		     uint8_t *proto, uint32_t *end)
{
	uint32_t off = 40, plen;
	uint8_t next;

	if (len < 40 || p[0] >> 4 != 6)
		return -1;
	plen = get16(p + 4);
	if (!plen)
		return -1;
	*end = 40 + plen < len ? 40 + plen : len;
	next = p[6];
	for (;;) {
		if (next == IP6_FRAGMENT) {
			if (off + 8 > *end)
				return -1;
			if (get16(p + off + 2) & 0xfff8) {
				*proto = p[off];
				return 1;
			}
			next = p[off];
			off += 8;
		} else if (next == IP6_HOPOPTS || next == IP6_ROUTING ||
			   next == IP6_DSTOPTS) {
			if (off + 8 > *end)
				return -1;
			next = p[off];
			off += 8 + 8u * p[off + 1];
		} else {
			break;
		}
	}
	if (off > *end)
		return -1;
	*l4 = off;
	*proto = next;
	return 0;
}

/* The key of IPv6 packet @pkt: its addresses folded. */
static int key6(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *want)
{
	uint32_t l4, end;
	uint8_t proto;

	if (ip6_upper(pkt, len, &l4, &proto, &end))
		return -1;
	memset(want, 0, sizeof(*want));
	want->family = 6;
	want->proto = proto;
	want->after_src = kb_xlate_fold6(pkt + 8);
	want->after_dst = kb_xlate_fold6(pkt + 24);
	return key_ports(pkt + l4, end - l4, proto, IPPROTO_ICMPV6, want);
}

int pkt_xlate_want(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *want)
{
	struct ip4 h;

	if (len && pkt[0] >> 4 == 6)
		return key6(pkt, len, want);
	/* Only the first fragment carries the ports. */
	if (ip4_parse(pkt, len, &h) != 0 || (h.frag & IP_OFFMASK))
		return -1;
	return key4(pkt, &h, want);
}

/* Whether @rec is the record @pkt's key finds. */
static int rec_is_key_of(const uint8_t *pkt, uint32_t len,
			 const struct kbloom_xlate *rec)
{
	struct kbloom_xlate w;

	return !pkt_xlate_want(pkt, len, &w) && w.family == rec->family &&
	       w.proto == rec->proto && w.after_src == rec->after_src &&
	       w.after_dst == rec->after_dst &&
	       w.after_sport == rec->after_sport &&
	       w.after_dport == rec->after_dport;
}

/*
 * The ports (or ICMP echo identifier) of record @rec into the @n bytes
 * of @proto at @l4 (of @out), and every L4 checksum there updated by
 * @daddr (the addresses' terms in its pseudo-header) and their own.
 */
static void invert_l4(uint8_t *l4, uint32_t n, uint8_t proto, uint32_t daddr,
		      const struct kbloom_xlate *rec)
{
	uint32_t dport = daddr;

	if (has_ports(proto)) {
		dport = delta(dport, l4, &rec->before_sport, 2);
		dport = delta(dport, l4 + 2, &rec->before_dport, 2);
		memcpy(l4, &rec->before_sport, 2);
		memcpy(l4 + 2, &rec->before_dport, 2);
	}
	/*
	 * A stateless rewrite whose sum is unchanged (NPTv6's
	 * checksum-neutral mapping, RFC 6296) left every L4 checksum as
	 * it was: none to undo (an echo's identifier it does not touch).
	 */
	if ((rec->kind & KBLOOM_XLATE_STATELESS) &&
	    (dport == 0 || dport == 0xffff) &&
	    !(is_echo(l4, n, proto) && memcmp(l4 + 4, &rec->before_sport, 2)))
		return;
	switch (proto) {
	case IPPROTO_UDP:
		/* RFC 768: 0 is "no checksum"; a computed 0 goes as 0xffff. */
		if (n >= 8 && get16(l4 + 6) != 0 &&
		    csum_apply(l4 + 6, dport) == 0)
			put16(l4 + 6, 0xffff);
		break;
	case IPPROTO_UDPLITE:
		/* RFC 3828: the checksum is mandatory; 0 goes as 0xffff. */
		if (n >= 8 && csum_apply(l4 + 6, dport) == 0)
			put16(l4 + 6, 0xffff);
		break;
	case IPPROTO_DCCP:
		if (n >= 8)
			csum_apply(l4 + 6, dport);
		break;
	case IPPROTO_TCP:
		/* The checksum is bytes 16-17, past a short capture's 8. */
		if (n >= 18)
			csum_apply(l4 + 16, dport);
		break;
	case IPPROTO_ICMP:
		/* RFC 792: no pseudo-header, only the identifier changes. */
		if (is_echo(l4, n, proto)) {
			csum_apply(l4 + 2,
				   delta(0, l4 + 4, &rec->before_sport, 2));
			memcpy(l4 + 4, &rec->before_sport, 2);
		}
		break;
	case IPPROTO_ICMPV6:
		/* RFC 4443 2.3: its pseudo-header has the addresses. */
		if (n < 4)
			break;
		if (is_echo(l4, n, proto)) {
			dport = delta(dport, l4 + 4, &rec->before_sport, 2);
			memcpy(l4 + 4, &rec->before_sport, 2);
		}
		csum_apply(l4 + 2, dport);
		break;
	}
}

int pkt_xlate_invert6(const uint8_t *pkt, uint32_t len,
		      const struct kbloom_xlate *rec, const uint8_t *before6,
		      uint8_t *out)
{
	uint32_t l4, end;
	uint8_t proto;

	if (rec->family != 6 || !rec_is_key_of(pkt, len, rec) ||
	    kb_xlate_fold6(before6) != rec->before_src ||
	    kb_xlate_fold6(before6 + 16) != rec->before_dst)
		return -1;
	ip6_upper(pkt, len, &l4, &proto, &end);
	memcpy(out, pkt, len);
	/* No header checksum: the addresses are in the pseudo-header's. */
	invert_l4(out + l4, end - l4, proto, delta(0, pkt + 8, before6, 32),
		  rec);
	memcpy(out + 8, before6, 32);
	return 0;
}

/*
 * The record's BEFORE addresses into IPv4 header @out (@pkt's copy), its
 * checksum updated; returns their terms, for the pseudo-headers.
 */
static uint32_t invert_addrs4(const uint8_t *pkt, uint8_t *out,
			      const struct kbloom_xlate *rec)
{
	uint32_t d;

	d = delta(0, pkt + 12, &rec->before_src, 4);
	d = delta(d, pkt + 16, &rec->before_dst, 4);
	csum_apply(out + 10, d);
	memcpy(out + 12, &rec->before_src, 4);
	memcpy(out + 16, &rec->before_dst, 4);
	return d;
}

int pkt_xlate_invert(const uint8_t *pkt, uint32_t len,
		     const struct kbloom_xlate *rec, uint8_t *out)
{
	struct ip4 h;

	if (rec->family != 4 || !rec_is_key_of(pkt, len, rec))
		return -1;
	ip4_parse(pkt, len, &h);
	memcpy(out, pkt, len);
	/* The addresses: in the IP header checksum and every pseudo-header. */
	invert_l4(out + h.hl, h.end - h.hl, h.proto,
		  invert_addrs4(pkt, out, rec), rec);
	return 0;
}

void pkt_datagram_key(const uint8_t *pkt, uint8_t key[PKT_DATAGRAM_KEY])
{
	memcpy(key, pkt + 12, 8);
	memcpy(key + 8, pkt + 4, 2);
	key[10] = pkt[9];
}

static int same_datagram(const uint8_t *a, const uint8_t *b)
{
	uint8_t ka[PKT_DATAGRAM_KEY], kb[PKT_DATAGRAM_KEY];

	pkt_datagram_key(a, ka);
	pkt_datagram_key(b, kb);
	return !memcmp(ka, kb, sizeof(ka));
}

int pkt_is_later_fragment(const uint8_t *pkt, uint32_t len)
{
	uint32_t l4, end;
	uint8_t proto;
	struct ip4 h;

	if (len && pkt[0] >> 4 == 6)
		return ip6_upper(pkt, len, &l4, &proto, &end) == 1 ? 6 : 0;
	return !ip4_parse(pkt, len, &h) && (h.frag & IP_OFFMASK) ? 4 : 0;
}

int pkt_addrs_key(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *want)
{
	uint32_t l4, end;
	struct ip4 h;

	memset(want, 0, sizeof(*want));
	if (len && pkt[0] >> 4 == 6) {
		if (ip6_upper(pkt, len, &l4, &want->proto, &end) < 0)
			return -1;
		want->family = 6;
		want->after_src = kb_xlate_fold6(pkt + 8);
		want->after_dst = kb_xlate_fold6(pkt + 24);
		return 0;
	}
	if (ip4_parse(pkt, len, &h))
		return -1;
	want->family = 4;
	want->proto = h.proto;
	memcpy(&want->after_src, pkt + 12, 4);
	memcpy(&want->after_dst, pkt + 16, 4);
	return 0;
}

int pkt_arrival_want(const uint8_t *pkt, uint32_t len,
		     struct kbloom_xlate *want)
{
	struct ip4 h;
	uint32_t end;

	if (!ip4_parse(pkt, len, &h))
		return key4(pkt, &h, want);
	if (len < 40 || pkt[0] >> 4 != 6)
		return -1;
	memset(want, 0, sizeof(*want));
	end = 40 + get16(pkt + 4);
	want->family = 6;
	want->proto = pkt[6];
	want->after_src = kb_xlate_fold6(pkt + 8);
	want->after_dst = kb_xlate_fold6(pkt + 24);
	return key_ports(pkt + 40, (len < end ? len : end) - 40, pkt[6],
			 IPPROTO_ICMPV6, want);
}

/* ICMPv6's errors (RFC 4443 3), which quote the packet they are about. */
#define ICMP6_DST_UNREACH	1
#define ICMP6_PARAM_PROB	4

/*
 * The offset of the packet an ICMP or ICMPv6 error @pkt quotes (of its
 * own family); -1: none.
 */
static int icmp_error_quote(const uint8_t *pkt, uint32_t len, uint32_t *off)
{
	uint32_t l4, end;
	struct ip4 h;
	uint8_t type;

	if (len && pkt[0] >> 4 == 6) {
		if (ip6_upper(pkt, len, &l4, &type, &end) ||
		    type != IPPROTO_ICMPV6 || end < l4 + 8 + 40 ||
		    pkt[l4] < ICMP6_DST_UNREACH || pkt[l4] > ICMP6_PARAM_PROB ||
		    pkt[l4 + 8] >> 4 != 6)
			return -1;
		*off = l4 + 8;
		return 0;
	}
	if (ip4_parse(pkt, len, &h) || (h.frag & (IP_OFFMASK | IP_MF)) ||
	    h.proto != IPPROTO_ICMP || h.end < h.hl + 8 + 20)
		return -1;
	type = pkt[h.hl];
	if (type != ICMP_DEST_UNREACH && type != ICMP_SOURCE_QUENCH &&
	    type != ICMP_REDIRECT && type != ICMP_TIME_EXCEEDED &&
	    type != ICMP_PARAMETERPROB)
		return -1;
	if (pkt[h.hl + 8] >> 4 != 4)
		return -1;
	*off = h.hl + 8;
	return 0;
}

/* How ICMP error @pkt's quote (at @off) is of @rec (enum icmp_quote_of). */
enum icmp_quote_of { QUOTE_NONE, QUOTE_BEFORE, QUOTE_AFTER_BACK };

static enum icmp_quote_of icmp_quote_of(const struct kbloom_xlate *rec,
					const uint8_t *pkt, uint32_t len,
					uint32_t off)
{
	struct kbloom_xlate q;
	int icmp;

	if (pkt_xlate_want(pkt + off, len - off, &q) ||
	    rec->family != q.family || rec->proto != q.proto)
		return QUOTE_NONE;
	/* The quoted packet's direction, as it arrived. */
	if (rec->before_src == q.after_src && rec->before_dst == q.after_dst &&
	    rec->before_sport == q.after_sport &&
	    rec->before_dport == q.after_dport)
		return QUOTE_BEFORE;
	/* The error's, as it left: backwards (echo's identifier stays SPORT). */
	icmp = q.proto == IPPROTO_ICMP || q.proto == IPPROTO_ICMPV6;
	if (rec->after_src == q.after_dst && rec->after_dst == q.after_src &&
	    rec->after_sport == (icmp ? q.after_sport : q.after_dport) &&
	    rec->after_dport == (icmp ? q.after_dport : q.after_sport))
		return QUOTE_AFTER_BACK;
	return QUOTE_NONE;
}

/* The offset of @proto's checksum in its header, covering the ports; 0. */
static uint32_t l4_csum_at(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_DCCP:
		return 6;
	case IPPROTO_TCP:
		return 16;
	default:
		return 0;
	}
}

/*
 * Where conntrack's NAT rewrote @rec's direction (its status bits, by
 * which nf_nat_icmp_reply_translation() sets an error's outer addresses):
 * *@src, *@dst when an address or port of that side changed. An echo's
 * identifier is its request's source port (@request: @rec is of the
 * requests' direction).
 */
static void nat_sides(const struct kbloom_xlate *rec, bool request,
		      bool *src, bool *dst)
{
	bool id = rec->before_sport != rec->after_sport;

	*src = rec->before_src != rec->after_src;
	*dst = rec->before_dst != rec->after_dst;
	if (rec->proto != IPPROTO_ICMP && rec->proto != IPPROTO_ICMPV6) {
		*src |= id;
		*dst |= rec->before_dport != rec->after_dport;
	} else if (request) {
		*src |= id;
	} else {
		*dst |= id;
	}
}

/*
 * ICMP error @pkt about the flow of IPv4 or IPv6 record @rec: how its
 * quote (at *@off) is of it, and the sides of @rec's direction the NAT
 * rewrote. QUOTE_NONE: not such an error.
 */
static enum icmp_quote_of icmp_error_plan(const struct kbloom_xlate *rec,
					  const uint8_t *pkt, uint32_t len,
					  uint32_t *off, bool *src, bool *dst)
{
	uint32_t l4 = 0, end = 0;
	uint8_t type = 0, proto;
	enum icmp_quote_of of;
	struct ip4 q;

	*src = *dst = false;
	if (icmp_error_quote(pkt, len, off))
		return QUOTE_NONE;
	of = icmp_quote_of(rec, pkt, len, *off);
	if (of == QUOTE_NONE)
		return of;
	if (rec->family == 4 && !ip4_parse(pkt + *off, len - *off, &q))
		type = q.end > q.hl ? pkt[*off + q.hl] : 0;
	else if (rec->family == 6 &&
		 !ip6_upper(pkt + *off, len - *off, &l4, &proto, &end))
		type = end > l4 ? pkt[*off + l4] : 0;
	else
		return of;
	/* The record's direction: the quote's (BEFORE), or the other one. */
	nat_sides(rec, of == QUOTE_BEFORE ?
		  type == ICMP_ECHO || type == ICMP6_ECHO_REQUEST :
		  type == ICMP_ECHOREPLY || type == ICMP6_ECHO_REPLY, src, dst);
	return of;
}

int pkt_icmp_error_of(const struct kbloom_xlate *rec, const uint8_t *pkt,
		      uint32_t len)
{
	enum icmp_quote_of of;
	uint32_t off;
	bool src, dst;

	of = icmp_error_plan(rec, pkt, len, &off, &src, &dst);
	if (of == QUOTE_NONE)
		return 0;
	/* The outer source set (pkt_icmp_error_invert(), _invert6()): 2. */
	return (of == QUOTE_BEFORE ? dst : src) ? 2 : 1;
}

/*
 * ICMP error @pkt (@len bytes) about the flow of @rec, as it was before
 * the NAT rewrote it (conntrack's ICMP error NAT,
 * nf_nat_icmp_reply_translation() and its ICMPv6 twin), into @out: the
 * quote as the flow's packet of its direction on the other side; of the
 * outer header, the address facing the side of the flow the NAT rewrote
 * set to the flow's end there (exact), the one facing the other
 * rewritten side set to the flow's own (only a guess undoes that: the
 * error may have come from a router on the way); the checksums as the
 * NAT rewrote them. The record's BEFORE and AFTER addresses are @before
 * and @after (source, destination: @alen bytes each, 4 or 16). 0 or -1.
 */
static int icmp_error_invert(const struct kbloom_xlate *rec,
			     const uint8_t *pkt, uint32_t len,
			     const uint8_t *before, const uint8_t *after,
			     uint32_t alen, uint8_t *out)
{
	uint32_t off, l4, mend, ql4, qend, qcap, qlen, d, ck, unseen = 0;
	/* The addresses' offset in the IP header: IPv4's, IPv6's. */
	uint32_t at = alen == 4 ? 12 : 8;
	const uint8_t *tsrc, *tdst, *osrc = pkt + at, *odst = pkt + at + alen;
	struct kbloom_xlate t = { 0 };
	enum icmp_quote_of of;
	uint8_t proto, qproto;
	struct ip4 h, qh;
	bool src, dst;
	int icmp;

	of = icmp_error_plan(rec, pkt, len, &off, &src, &dst);
	if (of == QUOTE_NONE)
		return -1;
	if (alen == 4) {
		if (ip4_parse(pkt, len, &h) ||
		    ip4_parse(pkt + off, len - off, &qh))
			return -1;
		l4 = h.hl;
		mend = h.tot;
		ql4 = qh.hl;
		qend = qh.end;
		qproto = qh.proto;
	} else {
		if (ip6_upper(pkt, len, &l4, &proto, &mend) ||
		    ip6_upper(pkt + off, len - off, &ql4, &qproto, &qend))
			return -1;
		mend = 40 + get16(pkt + 4);
	}
	icmp = rec->proto == IPPROTO_ICMP || rec->proto == IPPROTO_ICMPV6;
	if (of == QUOTE_BEFORE) {
		tsrc = after;
		tdst = after + alen;
		t.before_sport = rec->after_sport;
		t.before_dport = rec->after_dport;
		if (src)
			odst = after;
		if (dst)
			osrc = after + alen;
	} else {
		tsrc = before + alen;
		tdst = before;
		t.before_sport = icmp ? rec->before_sport : rec->before_dport;
		t.before_dport = icmp ? rec->before_dport : rec->before_sport;
		if (dst)
			odst = before + alen;
		if (src)
			osrc = before;
	}
	memcpy(out, pkt, len);
	/*
	 * The quote's transport: its checksum as the NAT rewrote it, only
	 * when the quote holds the whole header for TCP (tcp_manip_pkt()).
	 */
	qcap = qend - ql4;
	qlen = mend > off + ql4 ? mend - off - ql4 : 0;
	if (qproto == IPPROTO_TCP && qlen < 20 && qcap > 16)
		qcap = 16;
	ck = l4_csum_at(qproto);
	/*
	 * A transport checksum the quote holds past the capture changed
	 * too, in ICMP's sum: a TCP one by minus its delta; a UDP one
	 * unless it was 0, which the capture does not say (nor the others
	 * exactly when: refused).
	 */
	if (ck && qcap < ck + 2u && qlen >= ck + 2u &&
	    (qproto != IPPROTO_TCP || qlen >= 20)) {
		/* Half of it captured: its new byte depends on the other. */
		if (qproto != IPPROTO_TCP || qcap == ck + 1)
			return -1;
		unseen = 1;
	}
	/* The quote's addresses: in its pseudo-header (IPv4: its header's). */
	d = delta(0, pkt + off + at, tsrc, alen);
	d = delta(d, pkt + off + at + alen, tdst, alen);
	if (alen == 4)
		csum_apply(out + off + 10, d);
	memcpy(out + off + at, tsrc, alen);
	memcpy(out + off + at + alen, tdst, alen);
	if (unseen) {
		unseen = delta(d, pkt + off + ql4, &t.before_sport, 2);
		unseen = delta(unseen, pkt + off + ql4 + 2, &t.before_dport, 2);
		unseen = ~unseen & 0xffff;
	}
	invert_l4(out + off + ql4, qcap, qproto, d, &t);
	/*
	 * ICMP's checksum over what the quote changed; the outer addresses
	 * in IPv4's header checksum, in ICMPv6's pseudo-header (RFC 4443
	 * 2.3).
	 */
	qcap = len - off < ql4 + 18 ? len - off : ql4 + 18;
	d = delta(0, pkt + off, out + off, qcap & ~1u);
	unseen = kb_csum_fold(d + unseen);
	d = delta(0, pkt + at, osrc, alen);
	d = delta(d, pkt + at + alen, odst, alen);
	if (alen == 4)
		csum_apply(out + 10, d);
	else
		unseen = kb_csum_fold(unseen + d);
	csum_apply(out + l4 + 2, unseen);
	memcpy(out + at, osrc, alen);
	memcpy(out + at + alen, odst, alen);
	return 0;
}

int pkt_icmp_error_invert(const struct kbloom_xlate *rec, const uint8_t *pkt,
			  uint32_t len, uint8_t *out)
{
	uint8_t before[8], after[8];

	if (rec->family != 4)
		return -1;
	memcpy(before, &rec->before_src, 4);
	memcpy(before + 4, &rec->before_dst, 4);
	memcpy(after, &rec->after_src, 4);
	memcpy(after + 4, &rec->after_dst, 4);
	return icmp_error_invert(rec, pkt, len, before, after, 4, out);
}

int pkt_icmp_error_addrs6(const struct kbloom_xlate *rec, const uint8_t *pkt,
			  uint32_t len, uint32_t folds[2],
			  const uint8_t *own[2], bool sure[2])
{
	enum icmp_quote_of of;
	const uint8_t *q;
	uint32_t off;
	bool src, dst;

	if (rec->family != 6)
		return -1;
	of = icmp_error_plan(rec, pkt, len, &off, &src, &dst);
	if (of == QUOTE_NONE)
		return -1;
	q = pkt + off;
	/*
	 * The other form's: AFTER's, the quote holding BEFORE's (the same
	 * where kept); BEFORE's, the quote holding AFTER's backwards.
	 */
	folds[0] = of == QUOTE_BEFORE ? rec->after_src : rec->before_src;
	folds[1] = of == QUOTE_BEFORE ? rec->after_dst : rec->before_dst;
	own[0] = of == QUOTE_BEFORE ? q + 8 : q + 24;
	own[1] = of == QUOTE_BEFORE ? q + 24 : q + 8;
	sure[0] = !src;
	sure[1] = !dst;
	return of == QUOTE_BEFORE ? 0 : 1;
}

int pkt_icmp_error_invert6(const struct kbloom_xlate *rec, const uint8_t *pkt,
			   uint32_t len, const uint8_t *before6,
			   const uint8_t *after6, uint8_t *out)
{
	if (rec->family != 6 ||
	    kb_xlate_fold6(before6) != rec->before_src ||
	    kb_xlate_fold6(before6 + 16) != rec->before_dst ||
	    kb_xlate_fold6(after6) != rec->after_src ||
	    kb_xlate_fold6(after6 + 16) != rec->after_dst)
		return -1;
	return icmp_error_invert(rec, pkt, len, before6, after6, 16, out);
}

int pkt_xlate_invert_later(const uint8_t *head, uint32_t hlen,
			   const uint8_t *frag, uint32_t len,
			   const struct kbloom_xlate *rec, uint8_t *out)
{
	struct ip4 h, f;

	if (ip4_parse(head, hlen, &h) || (h.frag & IP_OFFMASK) ||
	    ip4_parse(frag, len, &f) || !(f.frag & IP_OFFMASK) ||
	    !same_datagram(head, frag) || !rec_is_key_of(head, hlen, rec))
		return -1;
	memcpy(out, frag, len);
	invert_addrs4(frag, out, rec);
	return 0;
}

/* An IPv6 fragment (RFC 8200 4.5). */
struct frag6 {
	uint32_t fo;		/* its fragment header's offset */
	uint32_t prev;		/* the next-header byte naming it */
	uint32_t offm;		/* fragment offset (bytes) | M */
	uint32_t end;		/* where the packet ends: 40 + payload length */
	uint32_t cap;		/* min(captured, end) */
};

/*
 * Whether IPv6 packet @p (@len bytes) is a fragment: 0 and @f, 1 for an
 * IPv6 packet without a fragment header (past hop-by-hop, routing and
 * destination options), -1 for none or a malformed one.
 */
static int frag6_parse(const uint8_t *p, uint32_t len, struct frag6 *f)
{
	uint32_t off = 40, prev = 6;
	uint8_t next;

	if (len < 40 || p[0] >> 4 != 6)
		return -1;
	f->end = 40 + get16(p + 4);
	f->cap = len < f->end ? len : f->end;
	next = p[6];
	while (next == IP6_HOPOPTS || next == IP6_ROUTING ||
	       next == IP6_DSTOPTS) {
		if (off + 8 > f->cap)
			return -1;
		prev = off;
		next = p[off];
		off += 8 + 8u * p[off + 1];
	}
	if (next != IP6_FRAGMENT)
		return 1;
	if (off + 8 > f->cap)
		return -1;
	f->fo = off;
	f->prev = prev;
	f->offm = get16(p + off + 2) & 0xfff9;
	return 0;
}

/* Fragments of one IPv6 datagram: addresses and identification agree. */
static int same_datagram6(const uint8_t *a, const struct frag6 *fa,
			  const uint8_t *b, const struct frag6 *fb)
{
	return !memcmp(a + 8, b + 8, 32) &&
	       !memcmp(a + fa->fo + 4, b + fb->fo + 4, 4);
}

/*
 * pkt_defrag_head() for IPv6: the packet before the fragment header was
 * added (the unfragmentable part, its last next header the fragment
 * header's, payload length to the end of the last fragment's data),
 * then the first fragment's data as captured.
 */
static int defrag_head6(const struct pkt_frag_ref *pkts, size_t n, size_t i,
			uint8_t *out, uint32_t outmax, uint32_t *outlen)
{
	size_t j, first = n, last = n, dfirst = 0, dlast = 0, d;
	struct frag6 f, ff, fl;
	uint32_t end, take;
	int r;

	r = frag6_parse(pkts[i].pkt, pkts[i].len, &f);
	if (r)
		return r;
	for (j = 0; j < n; j++) {
		if (frag6_parse(pkts[j].pkt, pkts[j].len, &ff) ||
		    !same_datagram6(pkts[i].pkt, &f, pkts[j].pkt, &ff))
			continue;
		/* As for IPv4 (below): the nearest first and last. */
		d = j <= i ? i - j : n + j - i;
		if (!(ff.offm & 0xfff8) && (first == n || d < dfirst)) {
			first = j;
			dfirst = d;
		}
		d = j >= i ? j - i : n + i - j;
		if (!(ff.offm & 1) && (last == n || d < dlast)) {
			last = j;
			dlast = d;
		}
	}
	if (first == n || last == n)
		return -1;
	frag6_parse(pkts[first].pkt, pkts[first].len, &ff);
	frag6_parse(pkts[last].pkt, pkts[last].len, &fl);
	/* RFC 8200 4.5: the data ends at the last one's offset + its length. */
	if (fl.end < fl.fo + 8)
		return -1;
	end = (fl.offm & 0xfff8) + (fl.end - fl.fo - 8);
	if (end <= ff.end - ff.fo - 8 || ff.fo - 40 + end > 0xffff ||
	    outmax < ff.fo)
		return -1;
	memcpy(out, pkts[first].pkt, ff.fo);
	out[ff.prev] = pkts[first].pkt[ff.fo];
	put16(out + 4, ff.fo - 40 + end);
	take = ff.cap - ff.fo - 8;
	if (take > outmax - ff.fo)
		take = outmax - ff.fo;
	memcpy(out + ff.fo, pkts[first].pkt + ff.fo + 8, take);
	*outlen = ff.fo + take;
	return 0;
}

int pkt_is_fragment(const uint8_t *pkt, uint32_t len)
{
	struct frag6 f;
	struct ip4 h;

	if (len && pkt[0] >> 4 == 6)
		return !frag6_parse(pkt, len, &f);
	return !ip4_parse(pkt, len, &h) && (h.frag & (IP_MF | IP_OFFMASK));
}

int pkt_defrag_head(const struct pkt_frag_ref *pkts, size_t n, size_t i,
		    uint8_t *out, uint32_t outmax, uint32_t *outlen)
{
	size_t j, first = n, last = n, dfirst = 0, dlast = 0, d;
	struct ip4 h, hf, hl;
	uint32_t end, tot, take;
	uint8_t hdr[60];
	int r;

	if (pkts[i].len && pkts[i].pkt[0] >> 4 == 6)
		return defrag_head6(pkts, n, i, out, outmax, outlen);
	r = ip4_parse(pkts[i].pkt, pkts[i].len, &h);
	if (r != 0)
		return r;
	if (!(h.frag & (IP_MF | IP_OFFMASK)))
		return 1;
	for (j = 0; j < n; j++) {
		if (ip4_parse(pkts[j].pkt, pkts[j].len, &hf) != 0 ||
		    !(hf.frag & (IP_MF | IP_OFFMASK)) ||
		    !same_datagram(pkts[i].pkt, pkts[j].pkt))
			continue;
		/*
		 * Should an ID be reused within the capture: the first
		 * fragment nearest before @i and the last nearest after it,
		 * as senders emit fragments in order; else the nearest.
		 */
		d = j <= i ? i - j : n + j - i;
		if (!(hf.frag & IP_OFFMASK) && (first == n || d < dfirst)) {
			first = j;
			dfirst = d;
		}
		d = j >= i ? j - i : n + i - j;
		if (!(hf.frag & IP_MF) && (last == n || d < dlast)) {
			last = j;
			dlast = d;
		}
	}
	if (first == n || last == n)
		return -1;
	ip4_parse(pkts[first].pkt, pkts[first].len, &hf);
	ip4_parse(pkts[last].pkt, pkts[last].len, &hl);
	/* RFC 791: the data ends at the last fragment's offset + its length. */
	end = (hl.frag & IP_OFFMASK) * 8 + (hl.tot - hl.hl);
	tot = hf.hl + end;
	if (end <= hf.tot - hf.hl || tot > 0xffff)
		return -1;

	memcpy(hdr, pkts[first].pkt, hf.hl);
	put16(hdr + 2, tot);
	/* MF and offset cleared; DF (clear when a router may fragment) kept. */
	put16(hdr + 6, hf.frag & ~(uint32_t)(IP_MF | IP_OFFMASK));
	put16(hdr + 10, 0);
	put16(hdr + 10, csum(hdr, hf.hl));

	take = hf.end < outmax ? hf.end : outmax;
	memcpy(out, hdr, take < hf.hl ? take : hf.hl);
	if (take > hf.hl)
		memcpy(out + hf.hl, pkts[first].pkt + hf.hl, take - hf.hl);
	*outlen = take;
	return 0;
}

int pkt_tunnel_want(const uint8_t *pkt, uint32_t len, struct kbloom_xlate *want)
{
	struct ip4 h;

	memset(want, 0, sizeof(*want));
	if (len >= 40 && pkt[0] >> 4 == 6)
		return kb_xlate_key6(pkt, len, want);
	if (ip4_parse(pkt, len, &h))
		return -1;
	want->family = 4;
	want->proto = h.proto;
	memcpy(&want->after_src, pkt + 12, 4);
	memcpy(&want->after_dst, pkt + 16, 4);
	memcpy(&want->after_sport, pkt + 4, 2);	/* the IP ID */
	return 0;
}

/*
 * VXLAN's encapsulation after the outer IPv4 header: UDP, VXLAN, Ethernet;
 * GENEVE's without options is as long (its records are VXLAN's too), with
 * them up to GENEVE_OPTS_MAX longer.
 */
#define VXLAN_ENCAP	(8 + 8 + 14)
#define GENEVE_OPTS_MAX	(KB_GENEVE_OPT_LEN * 4)

static int is_vxlan(uint8_t kind)
{
	return (kind & KBLOOM_XLATE_VXLAN) == KBLOOM_XLATE_VXLAN;
}

/* A VXLAN record's outer flags and offset, its UDP checksum. */
static void vxlan_words(const struct kbloom_xlate *rec, uint8_t *frag,
			uint8_t *csum)
{
	if (!(rec->kind & KBLOOM_XLATE_VXLAN_CSUM)) {
		memcpy(frag, &rec->before_dport, 2);
		put16(csum, 0);
		return;
	}
	put16(frag, rec->kind & KBLOOM_XLATE_VXLAN_DF ? 0x4000 : 0);
	memcpy(csum, &rec->before_dport, 2);
}

/*
 * The bytes of GENEVE options a tunnel record @rec's outer packet had
 * (its more record @more's), or -1 when @more is no more record of it
 * (GENEVE's first 16 bits of another version, or none for a record of
 * options or flags, or some for one of neither; a checksum kept for no
 * packet that had one).
 */
static int geneve_opts(const struct kbloom_xlate *rec,
		       const struct kbloom_xlate *more)
{
	if (!kb_xlate_has_more(rec->kind) != !more ||
	    (more && !kb_xlate_is_more_of(more, rec)))
		return -1;
	if (!more)
		return 0;
	if ((more->before_sport && !kb_xlate_more_csum(rec->kind)) ||
	    !more->before_dport != !(rec->kind & KBLOOM_XLATE_GENEVE_OPT))
		return -1;
	return kb_geneve_opts_len((const uint8_t *)&more->before_dport);
}

uint32_t pkt_gre_len(uint8_t kind)
{
	if (!(kind & KBLOOM_XLATE_GRE) || is_vxlan(kind))
		return 0;
	return 4 + 4 * (!!(kind & KBLOOM_XLATE_GRE_CSUM) +
			!!(kind & KBLOOM_XLATE_GRE_KEY) +
			!!(kind & KBLOOM_XLATE_GRE_SEQ));
}

/*
 * The outer IPv6 header (and encapsulation limit) of tunnel record @rec
 * over IPv6, its addresses @outer6 (source, destination), before @plen
 * bytes of GRE and inner packet, into @head: its length, 0 when too long.
 */
static uint32_t outer6_head(const struct kbloom_xlate *rec,
			    const uint8_t *outer6, uint8_t next,
			    uint32_t plen, uint8_t *head)
{
	uint32_t word = get16((const uint8_t *)&rec->before_sport) << 16 |
			get16((const uint8_t *)&rec->before_dport);
	uint32_t hl = word & KBLOOM_XLATE_HAS_ENCAPLIM ? 48 : 40;

	if (plen + hl - 40 > 65535)
		return 0;
	/* Traffic class 0 and hop limit 64: a digest zeroes both. */
	put16(head, 0x6000 | (word & KBLOOM_XLATE_FLOWLABEL) >> 16);
	put16(head + 2, word & 0xffff);
	put16(head + 4, plen + hl - 40);
	head[6] = hl > 40 ? 60 : next;
	head[7] = 64;
	memcpy(head + 8, outer6, 32);
	if (hl > 40) {
		/* RFC 2473 4.1.1: the limit, then PadN, as ip6tnl writes it. */
		static const uint8_t opts[8] = { 0, 0, 4, 1, 0, 1, 1, 0 };

		memcpy(head + 40, opts, 8);
		head[40] = next;
		head[44] = (uint8_t)((word & KBLOOM_XLATE_ENCAPLIM) >>
				     KBLOOM_XLATE_ENCAPLIM_SHIFT);
	}
	return hl;
}

int pkt_tunnel_outer(const uint8_t *pkt, uint32_t len,
		     const struct kbloom_xlate *rec, const uint8_t *outer6,
		     const struct kbloom_xlate *more, uint8_t *out,
		     uint32_t outmax, uint32_t *outlen)
{
	uint8_t head[48 + 16 + VXLAN_ENCAP + GENEVE_OPTS_MAX] = { 0 };
	int opts = geneve_opts(rec, more);
	struct kbloom_xlate want;
	uint32_t glen, hl = 20, n, tot;
	uint8_t next, *g;
	struct ip4 h;

	if (kb_xlate_class(rec->kind) != KB_XREC_TUNNEL ||
	    !(rec->kind & KBLOOM_XLATE_OUTER6) != !outer6 ||
	    pkt_tunnel_want(pkt, len, &want) || want.family != rec->family ||
	    want.proto != rec->proto || want.after_src != rec->after_src ||
	    want.after_dst != rec->after_dst ||
	    want.after_sport != rec->after_sport ||
	    want.after_dport != rec->after_dport || opts < 0)
		return -1;
	if (rec->family == 6) {
		/*
		 * 6in4 (RFC 4213), 6in6 (RFC 2473): IPIP's, protocol 41; or
		 * in GRE, protocol 0x86DD, or in VXLAN's or GENEVE's Ethernet.
		 */
		h.tot = 40 + get16(pkt + 4);
	} else if (ip4_parse(pkt, len, &h)) {
		return -1;
	}
	glen = is_vxlan(rec->kind) ? VXLAN_ENCAP + (uint32_t)opts :
	       pkt_gre_len(rec->kind);
	next = is_vxlan(rec->kind) ? 17 : rec->kind & KBLOOM_XLATE_GRE ? 47 :
	       rec->family == 6 ? 41 : 4;
	if (outer6) {
		hl = outer6_head(rec, outer6, next, glen + h.tot, head);
		/* VXLAN, GENEVE: no encapsulation limit (the kernel's). */
		if (!hl || (is_vxlan(rec->kind) && hl != 40))
			return -1;
		/* Their UDP checksum, in the more record (or 0). */
		if (more)
			memcpy(head + 40 + 6, &more->before_sport, 2);
	} else {
		tot = 20 + glen + h.tot;
		if (tot > 65535)
			return -1;
		/* The outer header as the encapsulating kernel wrote it, TOS
		 * and TTL aside (a digest zeroes both).
		 */
		head[0] = 0x45;
		put16(head + 2, tot);
		memcpy(head + 4, &rec->before_sport, 2);	/* its IP ID */
		memcpy(head + 6, &rec->before_dport, 2);	/* flags, offset */
		if (is_vxlan(rec->kind))
			vxlan_words(rec, head + 6, head + 20 + 6);
		head[8] = 64;
		head[9] = next;
		memcpy(head + 12, &rec->before_src, 4);
		memcpy(head + 16, &rec->before_dst, 4);
		put16(head + 10, csum(head, 20));
	}
	g = head + hl;
	if (is_vxlan(rec->kind)) {
		/*
		 * VXLAN (RFC 7348): the UDP ports as carried, its length, its
		 * checksum (written above, with the header); the VXLAN header
		 * (I flag, VNI) and Ethernet (type IPv4), which no digest
		 * covers: VNI and addresses not kept, zero.
		 */
		memcpy(g, &rec->first, 4);
		put16(g + 4, glen + h.tot);
		/*
		 * GENEVE (RFC 8926): version 0, Ethernet; the options'
		 * length and flags as carried (the more record's), the
		 * options zero: not kept.
		 */
		if ((rec->kind & KBLOOM_XLATE_GENEVE) == KBLOOM_XLATE_GENEVE)
			put16(g + 10, 0x6558);
		else
			g[8] = 0x08;
		if ((rec->kind & KBLOOM_XLATE_GENEVE_OPT) && more)
			memcpy(g + 8, &more->before_dport, 2);
		put16(g + glen - 2, rec->family == 6 ? 0x86dd : 0x0800);
	} else if (glen) {
		/*
		 * GRE (RFC 2784, RFC 2890): version 0, protocol IPv4, the
		 * flags of the words that follow; the first of them as it was
		 * (all a digest covers), the others zero: not kept.
		 */
		put16(g, (rec->kind & KBLOOM_XLATE_GRE_CSUM ? 0x8000 : 0) |
			 (rec->kind & KBLOOM_XLATE_GRE_KEY ? 0x2000 : 0) |
			 (rec->kind & KBLOOM_XLATE_GRE_SEQ ? 0x1000 : 0));
		put16(g + 2, rec->family == 6 ? 0x86dd : 0x0800);
		if (glen > 4)
			memcpy(g + 4, &rec->first, 4);
	}
	n = hl + glen;
	if (outmax < n)
		return -1;
	memcpy(out, head, n);
	if (len > outmax - n)
		len = outmax - n;
	memcpy(out + n, pkt, len);
	if (rec->family == 6 && glen <= 4 && len >= 8) {
		/*
		 * Hop limit and traffic class inside the tunnel (FIRST, unless
		 * it holds GRE's word or VXLAN's ports: then no digest covers
		 * them).
		 */
		const uint8_t *f = (const uint8_t *)&rec->first;

		out[n] = 0x60 | f[1] >> 4;
		out[n + 1] = (uint8_t)(f[1] << 4) | (out[n + 1] & 0x0f);
		out[n + 7] = f[0];
	}
	*outlen = n + len;
	return 0;
}
