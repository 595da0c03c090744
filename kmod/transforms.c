// SPDX-License-Identifier: GPL-2.0
/*
 * Transform records from conntrack: at POSTROUTING, after the NAT hooks,
 * a packet's conntrack entry holds the tuple it arrived with (its own
 * direction's) and, inverted, the tuple it leaves with (the other
 * direction's). Reading them needs no lock: the skb holds a reference on
 * the entry, and the tuples of an entry with NAT set up do not change.
 */
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ip6_tunnel.h>
#include <linux/ipv6.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>

#include "engine/xlate.h"
#include "transforms.h"

/* Ports, or the ICMP echo identifier, of a conntrack tuple half. */
static void kb_xlate_ports(const struct nf_conntrack_tuple *t, bool reverse,
			   __be16 *sport, __be16 *dport)
{
	switch (t->dst.protonum) {
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		/* Both directions keep the identifier in src.u.icmp.id. */
		*sport = t->src.u.icmp.id;
		*dport = 0;
		return;
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		*sport = reverse ? t->dst.u.all : t->src.u.all;
		*dport = reverse ? t->src.u.all : t->dst.u.all;
		return;
	}
	*sport = 0;
	*dport = 0;
}

/*
 * IPv6: the addresses folded in @rec (AFTER from the other direction's
 * tuple, read backwards), the BEFORE ones in @x, and which of them the
 * NAT rewrote.
 */
static void kb_xlate_nat6(const struct nf_conntrack_tuple *in,
			  const struct nf_conntrack_tuple *out,
			  struct kbloom_xlate *rec, struct kb_xlate_extra *x)
{
	rec->family = 6;
	rec->before_src = kb_xlate_fold6(in->src.u3.in6.s6_addr);
	rec->before_dst = kb_xlate_fold6(in->dst.u3.in6.s6_addr);
	rec->after_src = kb_xlate_fold6(out->dst.u3.in6.s6_addr);
	rec->after_dst = kb_xlate_fold6(out->src.u3.in6.s6_addr);
	x->src6 = in->src.u3.in6;
	x->dst6 = in->dst.u3.in6;
	x->asrc6 = out->dst.u3.in6;
	x->adst6 = out->src.u3.in6;
	/* Those it rewrote, as they arrived and as they left. */
	x->addrs6 = (!ipv6_addr_equal(&in->src.u3.in6, &out->dst.u3.in6) ?
		   BIT(0) | BIT(2) : 0) |
		  (!ipv6_addr_equal(&in->dst.u3.in6, &out->src.u3.in6) ?
		   BIT(1) | BIT(3) : 0);
}

u32 kb_xlate_of_skb(const struct sk_buff *skb, struct kbloom_xlate *rec,
		    struct kb_xlate_extra *x)
{
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
	const struct nf_conntrack_tuple *in, *out;
	enum ip_conntrack_info ctinfo;
	const struct nf_conn *ct;
	int dir;

	x->addrs6 = 0;
	ct = nf_ct_get(skb, &ctinfo);
	if (!ct || !(ct->status & IPS_NAT_MASK) ||
	    (nf_ct_l3num(ct) != NFPROTO_IPV4 &&
	     nf_ct_l3num(ct) != NFPROTO_IPV6))
		return KBLOOM_SKIP_UNTRANSFORMED;
	/*
	 * An ICMP error about the flow (RELATED) carries the flow's tuple,
	 * not its own: no record of it.
	 */
	if (ctinfo != IP_CT_NEW && ctinfo != IP_CT_ESTABLISHED &&
	    ctinfo != IP_CT_ESTABLISHED_REPLY)
		return KBLOOM_SKIP_UNTRANSFORMED;
	dir = CTINFO2DIR(ctinfo);
	in = &ct->tuplehash[dir].tuple;
	out = &ct->tuplehash[!dir].tuple;

	memset(rec, 0, sizeof(*rec));
	rec->proto = in->dst.protonum;
	kb_xlate_ports(in, false, &rec->before_sport, &rec->before_dport);
	/* The other direction's tuple, read backwards. */
	kb_xlate_ports(out, true, &rec->after_sport, &rec->after_dport);
	if (nf_ct_l3num(ct) == NFPROTO_IPV6) {
		kb_xlate_nat6(in, out, rec, x);
	} else {
		rec->family = 4;
		rec->before_src = in->src.u3.ip;
		rec->before_dst = in->dst.u3.ip;
		rec->after_src = out->dst.u3.ip;
		rec->after_dst = out->src.u3.ip;
	}

	if (rec->before_src != rec->after_src || (x->addrs6 & BIT(0)) ||
	    rec->before_sport != rec->after_sport)
		rec->kind |= KBLOOM_XLATE_SNAT;
	if (rec->before_dst != rec->after_dst || (x->addrs6 & BIT(1)) ||
	    rec->before_dport != rec->after_dport)
		rec->kind |= KBLOOM_XLATE_DNAT;
	if (!rec->kind)
		return KBLOOM_SKIP_UNTRANSFORMED;
	rec->first = (u32)ktime_get_real_seconds();
	return KBLOOM_SKIP_NONE;
#else
	x->addrs6 = 0;
	return KBLOOM_SKIP_UNTRANSFORMED;
#endif
}

/* GRE (RFC 2784, RFC 2890): its flags. */
#define KB_GRE_CSUM		0x8000
#define KB_GRE_ROUTING		0x4000
#define KB_GRE_KEY		0x2000
#define KB_GRE_SEQ		0x1000
#define KB_GRE_VERSION		0x0007

/* VXLAN (RFC 7348): UDP, its header (I flag: a VNI), Ethernet. */
#define KB_VXLAN_ENCAP		(8 + 8 + ETH_HLEN)
#define KB_VXLAN_FLAG_VNI	0x08

/* GENEVE (RFC 8926): its 8-byte header, then options; Ethernet inside. */
#define KB_GENEVE_HLEN		8

/*
 * Whether the UDP payload at @g is a GENEVE header (version 0, protocol
 * 0x6558) rather than VXLAN's, whose bytes there are reserved, zero.
 */
static bool kb_is_geneve(const u8 *g)
{
	return !(g[0] & KB_GENEVE_VERSION) && (g[2] << 8 | g[3]) == ETH_P_TEB;
}

/*
 * A VXLAN or GENEVE packet at @off (the UDP header) of the @cap bytes at
 * @p carrying IPv4 or (@inner6) IPv6 in Ethernet, a GENEVE one with its
 * @opts bytes of options cut out of @p: its record's kind, FIRST and,
 * with a UDP checksum, where that goes: over IPv4 (the outer header's
 * flags and offset in @rec's BEFORE_DPORT) BEFORE_DPORT, over IPv6
 * (@outer6) a more record (@th), which also holds GENEVE's options'
 * length and flags; the VNI in @th.
 */
static int kb_xlate_of_udp_tunnel(const u8 *p, u32 cap, u32 off, u32 opts,
				  bool outer6, struct kbloom_xlate *rec,
				  struct kb_xlate_extra *th, bool *inner6)
{
	__be32 *key = &th->key;
	const u8 *v = p + off;
	u16 type;

	if (off + KB_VXLAN_ENCAP > cap)
		return -1;
	type = v[KB_VXLAN_ENCAP - 2] << 8 | v[KB_VXLAN_ENCAP - 1];
	if (type != ETH_P_IP && type != ETH_P_IPV6)
		return -1;
	*inner6 = type == ETH_P_IPV6;
	if (kb_is_geneve(v + 8)) {
		if (kb_geneve_opts_len(v + 8) != opts)
			return -1;
		rec->kind = KBLOOM_XLATE_GENEVE;
		if (v[8] || v[9]) {
			rec->kind |= KBLOOM_XLATE_GENEVE_OPT;
			memcpy(&th->more_dport, v + 8, sizeof(th->more_dport));
		}
	} else if (v[8] & KB_VXLAN_FLAG_VNI && !opts) {
		rec->kind = KBLOOM_XLATE_VXLAN;
	} else {
		return -1;
	}
	memcpy(&rec->first, v, sizeof(rec->first));	/* the ports */
	*key = cpu_to_be32(v[12] << 16 | v[13] << 8 | v[14]);
	if (!v[6] && !v[7])
		return 0;
	rec->kind |= KBLOOM_XLATE_VXLAN_CSUM;
	if (outer6) {
		memcpy(&th->more_sport, v + 6, sizeof(th->more_sport));
		return 0;
	}
	/* The checksum takes the flags' place: DF, all they can be. */
	if (rec->before_dport & ~htons(IP_DF))
		return -1;
	if (rec->before_dport)
		rec->kind |= KBLOOM_XLATE_VXLAN_DF;
	memcpy(&rec->before_dport, v + 6, sizeof(rec->before_dport));
	return 0;
}

/*
 * The outer IPv6 header at @p (@cap bytes) of a tunnel packet: its
 * length with the destination options header holding only an
 * encapsulation limit (RFC 2473 4.1.1, as ip6tnl and ip6gre write it)
 * and the protocol after it, or 0 for any other packet. BEFORE_* of @rec
 * and the addresses in @th.
 */
static u32 kb_xlate_outer6(const u8 *p, u32 cap, u8 *proto,
			   struct kbloom_xlate *rec, struct kb_xlate_extra *th)
{
	const struct ipv6hdr *o = (const void *)p;
	const u8 *d = p + sizeof(*o);
	u32 word, hl = sizeof(*o);

	if (cap < hl || o->version != 6)
		return 0;
	word = ntohl(*(const __be32 *)p) & KBLOOM_XLATE_FLOWLABEL;
	*proto = o->nexthdr;
	if (*proto == NEXTHDR_DEST) {
		if (cap < hl + 8 || d[1] || d[2] != IPV6_TLV_TNL_ENCAP_LIMIT ||
		    d[3] != 1 || d[5] != IPV6_TLV_PADN || d[6] != 1 || d[7])
			return 0;
		word |= KBLOOM_XLATE_HAS_ENCAPLIM |
			d[4] << KBLOOM_XLATE_ENCAPLIM_SHIFT;
		*proto = d[0];
		hl += 8;
	}
	th->src6 = o->saddr;
	th->dst6 = o->daddr;
	th->addrs6 = BIT(0) | BIT(1);
	rec->before_src = kb_xlate_fold6(o->saddr.s6_addr);
	rec->before_dst = kb_xlate_fold6(o->daddr.s6_addr);
	rec->before_sport = htons(word >> 16);
	rec->before_dport = htons(word & 0xffff);
	return hl;
}

/*
 * The tunnel record of the packet whose first @cap bytes are @p (a
 * GENEVE packet's with its @opts bytes of options cut out).
 */
static u32 kb_xlate_of_tunnel_head(const u8 *p, u32 cap, u32 opts,
				   struct kbloom_xlate *rec,
				   struct kb_xlate_extra *th)
{
	const struct iphdr *o = (const void *)p, *in;
	u32 hl = sizeof(*o), glen = 0;
	const __be16 *gre;
	bool inner6 = false;
	u8 proto, outer6 = 0;
	u16 flags;

	memset(rec, 0, sizeof(*rec));
	th->key = 0;
	th->addrs6 = 0;
	th->more_sport = 0;
	th->more_dport = 0;
	if (cap && p[0] >> 4 == 6) {
		hl = kb_xlate_outer6(p, cap, &proto, rec, th);
		/* VXLAN, GENEVE over IPv6: no encapsulation limit. */
		if (!hl || (proto == IPPROTO_UDP && hl != sizeof(struct ipv6hdr)))
			return KBLOOM_SKIP_UNTRANSFORMED;
		outer6 = KBLOOM_XLATE_OUTER6;
	} else {
		/* An outer header with options could not be rebuilt. */
		if (cap < hl || o->version != 4 || o->ihl != 5 ||
		    (ntohs(o->frag_off) & (IP_MF | IP_OFFSET)))
			return KBLOOM_SKIP_UNTRANSFORMED;
		proto = o->protocol;
		rec->before_src = o->saddr;
		rec->before_dst = o->daddr;
		rec->before_sport = o->id;
		rec->before_dport = o->frag_off;
	}
	if (proto != IPPROTO_IPIP && proto != IPPROTO_GRE &&
	    proto != IPPROTO_UDP && proto != IPPROTO_IPV6)
		return KBLOOM_SKIP_UNTRANSFORMED;
	if (proto == IPPROTO_UDP) {
		if (kb_xlate_of_udp_tunnel(p, cap, hl, opts, outer6, rec, th,
					   &inner6))
			return KBLOOM_SKIP_UNTRANSFORMED;
		glen = KB_VXLAN_ENCAP;
	} else if (proto == IPPROTO_GRE) {
		if (cap < hl + 4)
			return KBLOOM_SKIP_UNTRANSFORMED;
		gre = (const __be16 *)(p + hl);
		flags = ntohs(gre[0]);
		if (flags & (KB_GRE_ROUTING | KB_GRE_VERSION) ||
		    (gre[1] != htons(ETH_P_IP) && gre[1] != htons(ETH_P_IPV6)))
			return KBLOOM_SKIP_UNTRANSFORMED;
		if (gre[1] == htons(ETH_P_IPV6))
			inner6 = true;
		rec->kind = KBLOOM_XLATE_GRE;
		glen = 4;
		if (flags & KB_GRE_CSUM) {
			rec->kind |= KBLOOM_XLATE_GRE_CSUM;
			glen += 4;
		}
		if (flags & KB_GRE_KEY) {
			rec->kind |= KBLOOM_XLATE_GRE_KEY;
			glen += 4;
		}
		if (flags & KB_GRE_SEQ) {
			rec->kind |= KBLOOM_XLATE_GRE_SEQ;
			glen += 4;
		}
		if (cap < hl + glen)
			return KBLOOM_SKIP_UNTRANSFORMED;
		/* The word a digest covers, and the key the tunnel matches. */
		if (glen > 4)
			memcpy(&rec->first, &gre[2], sizeof(rec->first));
		if (flags & KB_GRE_KEY)
			memcpy(&th->key, &gre[flags & KB_GRE_CSUM ? 4 : 2],
			       sizeof(th->key));
	} else {
		rec->kind = KBLOOM_XLATE_IPIP;
	}
	rec->kind |= outer6;
	if (proto == IPPROTO_IPV6 || inner6) {
		/*
		 * 6in4 (sit), 6in6, IPv6 in GRE, VXLAN or GENEVE: IPv6 has
		 * no ID; the key tags the packet.
		 */
		hl += glen;
		if (kb_xlate_key6(p + hl, cap - hl, rec))
			return KBLOOM_SKIP_UNTRANSFORMED;
		/*
		 * Its hop limit and traffic class inside the tunnel, which a
		 * digest of the outer packet covers (unless GRE's word, or
		 * VXLAN's ports, are in FIRST): the routers after this one
		 * change them.
		 */
		if (glen <= 4) {
			((u8 *)&rec->first)[0] = p[hl + 7];
			((u8 *)&rec->first)[1] = (p[hl] & 0x0f) << 4 |
						 p[hl + 1] >> 4;
		}
	} else {
		if (cap < hl + glen + sizeof(*in))
			return KBLOOM_SKIP_UNTRANSFORMED;
		in = (const void *)(p + hl + glen);
		if (in->version != 4 || in->ihl < 5)
			return KBLOOM_SKIP_UNTRANSFORMED;
		rec->family = 4;
		rec->proto = in->protocol;
		rec->after_src = in->saddr;
		rec->after_dst = in->daddr;
		rec->after_sport = in->id;
	}
	return KBLOOM_SKIP_NONE;
}

/*
 * The longest outer headers, IPv6's and VXLAN's encapsulation (longer
 * than IPv6's with its encapsulation limit and GRE's three optional
 * words; GENEVE's options are read past); then the inner IPv6 header and
 * the 8 bytes after it (the longest inner key).
 */
#define KB_XLATE_HEAD	(40 + KB_VXLAN_ENCAP + 48)

/*
 * GENEVE's options, which no digest covers and no record keeps: the
 * bytes of them after the GENEVE header of the packet at @p (@cap
 * bytes), which ends @at bytes in; 0 for any other packet.
 */
static u32 kb_xlate_geneve_opts(const u8 *p, u32 cap, u32 *at)
{
	bool v6 = cap && p[0] >> 4 == 6;
	u32 hl = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);

	*at = hl + sizeof(struct udphdr) + KB_GENEVE_HLEN;
	if (cap < *at || (v6 ? p[6] : p[9]) != IPPROTO_UDP ||
	    (!v6 && p[0] != 0x45) || !kb_is_geneve(p + *at - KB_GENEVE_HLEN))
		return 0;
	return kb_geneve_opts_len(p + *at - KB_GENEVE_HLEN);
}

u32 kb_xlate_of_tunnel(const struct sk_buff *skb, struct kbloom_xlate *rec,
		       struct kb_xlate_extra *th)
{
	int off = skb_network_offset(skb);
	u8 buf[KB_XLATE_HEAD];
	u32 cap, opts, at;
	const u8 *p;

	if (off < 0 || skb->len <= off)
		return KBLOOM_SKIP_UNTRANSFORMED;
	cap = min_t(u32, skb->len - off, sizeof(buf));
	p = skb_header_pointer(skb, off, cap, buf);
	if (!p)
		return KBLOOM_SKIP_UNTRANSFORMED;
	opts = kb_xlate_geneve_opts(p, cap, &at);
	if (opts) {
		/* What follows them, read after the GENEVE header. */
		if (skb->len - off < at + opts)
			return KBLOOM_SKIP_UNTRANSFORMED;
		if (p != buf)
			memcpy(buf, p, at);
		cap = min_t(u32, skb->len - off - opts, sizeof(buf));
		if (skb_copy_bits(skb, off + at + opts, buf + at, cap - at))
			return KBLOOM_SKIP_UNTRANSFORMED;
		p = buf;
	}
	return kb_xlate_of_tunnel_head(p, cap, opts, rec, th);
}
