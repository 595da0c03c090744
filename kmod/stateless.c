// SPDX-License-Identifier: GPL-2.0
/*
 * Stateless rewrites: a packet's key as it arrived against its key as it
 * leaves. Keys are read as bloomctl reads a captured packet's (an IPv6
 * packet's ports past its extension headers; no key for a later
 * fragment), so a record is found by the packet a trace holds.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jiffies.h>
#include <linux/timekeeping.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>

#include "arrival.h"
#include "engine/xlate.h"
#include "stateless.h"

/* The first bytes of an L4 header a key reads: ports, an echo's ID. */
#define KB_KEY_L4	8

/* @a's key and addresses for @skb (network header set); false: none. */
static bool kb_arrived_of(const struct sk_buff *skb, struct kb_arrived *a)
{
	int off = skb_network_offset(skb), l4;
	u8 buf[sizeof(struct ipv6hdr)], l4buf[KB_KEY_L4];
	const struct ipv6hdr *h6;
	const struct iphdr *h4;
	__be16 frag = 0;
	const u8 *p;
	u8 proto;
	u32 cap;

	memset(&a->key, 0, sizeof(a->key));
	h4 = skb_header_pointer(skb, off, sizeof(*h4), buf);
	if (!h4)
		return false;
	if (h4->version == 4) {
		if (h4->ihl < 5 || (ntohs(h4->frag_off) & IP_OFFSET))
			return false;
		a->key.family = 4;
		a->key.proto = h4->protocol;
		a->key.after_src = h4->saddr;
		a->key.after_dst = h4->daddr;
		l4 = off + h4->ihl * 4;
		proto = h4->protocol;
	} else {
		h6 = skb_header_pointer(skb, off, sizeof(*h6), buf);
		if (!h6 || h6->version != 6)
			return false;
		a->src6 = h6->saddr;
		a->dst6 = h6->daddr;
		a->key.family = 6;
		a->key.after_src = kb_xlate_fold6(h6->saddr.s6_addr);
		a->key.after_dst = kb_xlate_fold6(h6->daddr.s6_addr);
		proto = h6->nexthdr;
		l4 = ipv6_skip_exthdr(skb, off + sizeof(*h6), &proto, &frag);
		if (l4 < 0 || (frag & htons(~0x7)))
			return false;
		a->key.proto = proto;
	}
	if (skb->len <= l4)
		return true;
	cap = min_t(u32, skb->len - l4, sizeof(l4buf));
	p = skb_header_pointer(skb, l4, cap, l4buf);
	if (p)
		kb_xlate_key_ports(p, cap, 0, proto, a->key.family == 4 ?
				   IPPROTO_ICMP : IPPROTO_ICMPV6, &a->key);
	return true;
}

void kb_arrived_note(const struct sk_buff *skb, struct kb_arrived *a)
{
	a->skb = kb_arrived_of(skb, a) ? skb : NULL;
	a->iif = skb->skb_iif;
	a->at = jiffies;
}

bool kb_arrived_take(const struct sk_buff *skb, struct kb_arrived *a,
		     struct kb_arrived *out)
{
	if (a->skb != skb)
		return false;
	a->skb = NULL;
	/* Forwarded, in the same call: a tick may pass, not two. */
	if (!skb->skb_iif || skb->skb_iif != a->iif ||
	    time_after(jiffies, a->at + 1))
		return false;
	*out = *a;
	return true;
}

u32 kb_xlate_of_stateless(const struct sk_buff *skb,
			  const struct kb_arrived *a, struct kbloom_xlate *rec,
			  struct kb_xlate_extra *x)
{
	const struct kbloom_xlate *in = &a->key;
	struct kb_arrived now;
	bool src, dst;

	x->addrs6 = 0;
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
	{
		enum ip_conntrack_info ctinfo;
		const struct nf_conn *ct = nf_ct_get(skb, &ctinfo);

		/* conntrack's NAT (an ICMP error's too): its records say it. */
		if (ct && (ct->status & IPS_NAT_MASK))
			return KBLOOM_SKIP_UNTRANSFORMED;
	}
#endif
	if (!kb_arrived_of(skb, &now) || now.key.family != in->family ||
	    now.key.proto != in->proto)
		return KBLOOM_SKIP_UNTRANSFORMED;
	*rec = now.key;
	rec->before_src = in->after_src;
	rec->before_dst = in->after_dst;
	rec->before_sport = in->after_sport;
	rec->before_dport = in->after_dport;
	if (in->family == 6) {
		src = !ipv6_addr_equal(&a->src6, &now.src6);
		dst = !ipv6_addr_equal(&a->dst6, &now.dst6);
		x->src6 = a->src6;
		x->dst6 = a->dst6;
		x->asrc6 = now.src6;
		x->adst6 = now.dst6;
		x->addrs6 = (src ? BIT(0) | BIT(2) : 0) |
			    (dst ? BIT(1) | BIT(3) : 0);
	} else {
		src = rec->before_src != rec->after_src;
		dst = rec->before_dst != rec->after_dst;
	}
	if (src || rec->before_sport != rec->after_sport)
		rec->kind |= KBLOOM_XLATE_SNAT;
	if (dst || rec->before_dport != rec->after_dport)
		rec->kind |= KBLOOM_XLATE_DNAT;
	if (!rec->kind)
		return KBLOOM_SKIP_UNTRANSFORMED;
	rec->kind |= KBLOOM_XLATE_STATELESS;
	rec->first = (u32)ktime_get_real_seconds();
	return KBLOOM_SKIP_NONE;
}
