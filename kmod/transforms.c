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
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <net/ip.h>
#include <net/netfilter/nf_conntrack.h>

#include "engine/xlate.h"
#include "transforms.h"

/* Ports, or the ICMP echo identifier, of a conntrack tuple half. */
static void kb_xlate_ports(const struct nf_conntrack_tuple *t, bool reverse,
			   __be16 *sport, __be16 *dport)
{
	switch (t->dst.protonum) {
	case IPPROTO_ICMP:
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

u32 kb_xlate_of_skb(const struct sk_buff *skb, struct kbloom_xlate *rec)
{
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
	const struct nf_conntrack_tuple *in, *out;
	enum ip_conntrack_info ctinfo;
	const struct nf_conn *ct;
	int dir;

	ct = nf_ct_get(skb, &ctinfo);
	if (!ct || !(ct->status & IPS_NAT_MASK) ||
	    nf_ct_l3num(ct) != NFPROTO_IPV4)
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
	rec->family = 4;
	rec->proto = in->dst.protonum;
	rec->before_src = in->src.u3.ip;
	rec->before_dst = in->dst.u3.ip;
	kb_xlate_ports(in, false, &rec->before_sport, &rec->before_dport);
	/* The other direction's tuple, read backwards. */
	rec->after_src = out->dst.u3.ip;
	rec->after_dst = out->src.u3.ip;
	kb_xlate_ports(out, true, &rec->after_sport, &rec->after_dport);

	if (rec->before_src != rec->after_src ||
	    rec->before_sport != rec->after_sport)
		rec->kind |= KBLOOM_XLATE_SNAT;
	if (rec->before_dst != rec->after_dst ||
	    rec->before_dport != rec->after_dport)
		rec->kind |= KBLOOM_XLATE_DNAT;
	if (!rec->kind)
		return KBLOOM_SKIP_UNTRANSFORMED;
	rec->first = (u32)ktime_get_real_seconds();
	return KBLOOM_SKIP_NONE;
#else
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

/*
 * A VXLAN packet at @off (the UDP header) of the @cap bytes at @p carrying
 * IPv4 in Ethernet, with UDP checksum 0 (the rebuilt packet has 0: one
 * with a checksum is left to the arrival record): its record's kind and
 * FIRST, the VNI in @key.
 */
static int kb_xlate_of_vxlan(const u8 *p, u32 cap, u32 off,
			     struct kbloom_xlate *rec, __be32 *key)
{
	const u8 *v = p + off;

	if (off + KB_VXLAN_ENCAP > cap || v[6] || v[7] ||
	    !(v[8] & KB_VXLAN_FLAG_VNI) ||
	    (v[KB_VXLAN_ENCAP - 2] << 8 | v[KB_VXLAN_ENCAP - 1]) != ETH_P_IP)
		return -1;
	rec->kind = KBLOOM_XLATE_VXLAN;
	memcpy(&rec->first, v, sizeof(rec->first));	/* the ports */
	*key = cpu_to_be32(v[12] << 16 | v[13] << 8 | v[14]);
	return 0;
}

/* The tunnel record of the packet whose first @cap bytes are @p. */
static u32 kb_xlate_of_tunnel_head(const u8 *p, u32 cap,
				   struct kbloom_xlate *rec, __be32 *key)
{
	const struct iphdr *o = (const void *)p, *in;
	u32 hl = sizeof(*o), glen = 0;
	const __be16 *gre;
	u16 flags;

	/* An outer header with options could not be rebuilt: none kept. */
	if (cap < hl || o->version != 4 || o->ihl != 5 ||
	    (o->protocol != IPPROTO_IPIP && o->protocol != IPPROTO_GRE &&
	     o->protocol != IPPROTO_UDP && o->protocol != IPPROTO_IPV6) ||
	    (ntohs(o->frag_off) & (IP_MF | IP_OFFSET)))
		return KBLOOM_SKIP_UNTRANSFORMED;
	memset(rec, 0, sizeof(*rec));
	*key = 0;
	if (o->protocol == IPPROTO_UDP) {
		if (kb_xlate_of_vxlan(p, cap, hl, rec, key))
			return KBLOOM_SKIP_UNTRANSFORMED;
		glen = KB_VXLAN_ENCAP;
	} else if (o->protocol == IPPROTO_GRE) {
		if (cap < hl + 4)
			return KBLOOM_SKIP_UNTRANSFORMED;
		gre = (const __be16 *)(p + hl);
		flags = ntohs(gre[0]);
		if (flags & (KB_GRE_ROUTING | KB_GRE_VERSION) ||
		    gre[1] != htons(ETH_P_IP))
			return KBLOOM_SKIP_UNTRANSFORMED;
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
			memcpy(key, &gre[flags & KB_GRE_CSUM ? 4 : 2],
			       sizeof(*key));
	} else {
		rec->kind = KBLOOM_XLATE_IPIP;
	}
	if (o->protocol == IPPROTO_IPV6) {
		/* 6in4 (sit): IPv6 has no ID; the key tags the packet. */
		if (kb_xlate_key6(p + hl, cap - hl, rec))
			return KBLOOM_SKIP_UNTRANSFORMED;
		/*
		 * Its hop limit and traffic class inside the tunnel, which a
		 * digest of the outer packet covers: the routers after this
		 * one change them.
		 */
		((u8 *)&rec->first)[0] = p[hl + 7];
		((u8 *)&rec->first)[1] = (p[hl] & 0x0f) << 4 | p[hl + 1] >> 4;
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
	rec->before_src = o->saddr;
	rec->before_dst = o->daddr;
	rec->before_sport = o->id;
	rec->before_dport = o->frag_off;
	return KBLOOM_SKIP_NONE;
}

/*
 * Outer IPv4, VXLAN's encapsulation, the inner IPv4 header; or an IPv6
 * header and the 8 bytes after it (6in4).
 */
#define KB_XLATE_HEAD	(20 + KB_VXLAN_ENCAP + 20)

u32 kb_xlate_of_tunnel(const struct sk_buff *skb, struct kbloom_xlate *rec,
		       __be32 *key)
{
	int off = skb_network_offset(skb);
	u8 buf[KB_XLATE_HEAD];
	const u8 *p;
	u32 cap;

	if (off < 0 || skb->len <= off)
		return KBLOOM_SKIP_UNTRANSFORMED;
	cap = min_t(u32, skb->len - off, sizeof(buf));
	p = skb_header_pointer(skb, off, cap, buf);
	return p ? kb_xlate_of_tunnel_head(p, cap, rec, key) :
		   KBLOOM_SKIP_UNTRANSFORMED;
}
