// SPDX-License-Identifier: GPL-2.0
/*
 * Stateless rewrites: a packet's key as it arrived against its key as it
 * leaves. Keys are read as bloomctl reads a captured packet's (an IPv6
 * packet's ports past its extension headers; no key for a later
 * fragment), so a record is found by the packet a trace holds.
 */
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

/* The offset of @skb's L4 header (past IPv6's extension headers); -1. */
static int kb_l4_of(const struct sk_buff *skb, int off, u8 *proto)
{
	__be16 frag = 0;
	int l4;

	l4 = ipv6_skip_exthdr(skb, off + sizeof(struct ipv6hdr), proto, &frag);
	return l4 < 0 || (frag & htons(~0x7)) ? -1 : l4;
}

/* @a's key and addresses for @skb (network header set); false: none. */
static bool kb_key_of(const struct sk_buff *skb, struct kbloom_xlate *key,
		      struct in6_addr *src6, struct in6_addr *dst6)
{
	int off = skb_network_offset(skb), l4;
	u8 buf[sizeof(struct ipv6hdr)], l4buf[KB_KEY_L4];
	const struct ipv6hdr *h6;
	const struct iphdr *h4;
	const u8 *p;
	u8 proto;
	u32 cap;

	memset(key, 0, sizeof(*key));
	h4 = skb_header_pointer(skb, off, sizeof(*h4), buf);
	if (!h4)
		return false;
	if (h4->version == 4) {
		if (h4->ihl < 5 || (ntohs(h4->frag_off) & IP_OFFSET))
			return false;
		key->family = 4;
		key->after_src = h4->saddr;
		key->after_dst = h4->daddr;
		l4 = off + h4->ihl * 4;
		proto = h4->protocol;
	} else {
		h6 = skb_header_pointer(skb, off, sizeof(*h6), buf);
		if (!h6 || h6->version != 6)
			return false;
		*src6 = h6->saddr;
		*dst6 = h6->daddr;
		key->family = 6;
		key->after_src = kb_xlate_fold6(h6->saddr.s6_addr);
		key->after_dst = kb_xlate_fold6(h6->daddr.s6_addr);
		proto = h6->nexthdr;
		l4 = kb_l4_of(skb, off, &proto);
		if (l4 < 0)
			return false;
	}
	key->proto = proto;
	if (skb->len <= l4)
		return true;
	cap = min_t(u32, skb->len - l4, sizeof(l4buf));
	p = skb_header_pointer(skb, l4, cap, l4buf);
	if (p)
		kb_xlate_key_ports(p, cap, 0, proto, key->family == 4 ?
				   IPPROTO_ICMP : IPPROTO_ICMPV6, key);
	return true;
}

/*
 * The bytes a note compares of @skb into @a (family, len, raw): its
 * addresses and 4 bytes past its network headers (zeros where it has
 * none). The packet path's cost: an IPv6 packet's extension headers are
 * walked only when it has some. False: not IP.
 */
static bool kb_arrived_read(const struct sk_buff *skb, struct kb_arrived *a)
{
	int off = skb_network_offset(skb), l4 = -1;
	u8 buf[sizeof(struct ipv6hdr)], l4buf[4];
	const struct ipv6hdr *h6;
	const struct iphdr *h4;
	const u8 *p;
	u8 proto;

	h4 = skb_header_pointer(skb, off, sizeof(*h4), buf);
	if (!h4)
		return false;
	if (h4->version == 4 && h4->ihl >= 5) {
		a->family = 4;
		a->len = 8 + 4;
		memcpy(a->raw, &h4->saddr, 8);
		if (!(ntohs(h4->frag_off) & IP_OFFSET))
			l4 = off + h4->ihl * 4;
	} else {
		h6 = skb_header_pointer(skb, off, sizeof(*h6), buf);
		if (!h6 || h6->version != 6)
			return false;
		a->family = 6;
		a->len = 32 + 4;
		memcpy(a->raw, &h6->saddr, 32);
		proto = h6->nexthdr;
		l4 = ipv6_ext_hdr(proto) ? kb_l4_of(skb, off, &proto) :
		     off + (int)sizeof(*h6);
	}
	p = l4 >= 0 ? skb_header_pointer(skb, l4, 4, l4buf) : NULL;
	if (p)
		memcpy(a->raw + a->len - 4, p, 4);
	else
		memset(a->raw + a->len - 4, 0, 4);
	return true;
}

void kb_arrived_note(const struct sk_buff *skb, struct kb_arrived *a)
{
	a->skb = kb_arrived_read(skb, a) ? skb : NULL;
	a->iif = skb->skb_iif;
	a->at = jiffies;
}

bool kb_arrived_take(const struct sk_buff *skb, struct kb_arrived *a,
		     struct kb_arrived *out)
{
	if (a->skb != skb)
		return false;
	a->skb = NULL;
	/*
	 * Forwarded, in the same call, so seconds never pass; ticks may
	 * (a tick's bound lost the record of a packet in the emulated VM,
	 * its CPU stalled by the host). The bound only stops a very stale
	 * note: a forwarded packet's own prerouting overwrites it first.
	 */
	if (!skb->skb_iif || skb->skb_iif != a->iif ||
	    time_after(jiffies, a->at + HZ))
		return false;
	*out = *a;
	return true;
}

u32 kb_xlate_of_stateless(const struct sk_buff *skb,
			  const struct kb_arrived *a, struct kbloom_xlate *rec,
			  struct kb_xlate_extra *x)
{
	const u8 *was = a->raw + a->len - 4;
	struct in6_addr src6, dst6;
	struct kb_arrived now;
	bool src, dst;
	u32 n;

	x->addrs6 = 0;
	/* The common case, and all it costs: nothing was rewritten. */
	if (!kb_arrived_read(skb, &now) || now.family != a->family ||
	    !memcmp(now.raw, a->raw, a->len))
		return KBLOOM_SKIP_UNTRANSFORMED;
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
	{
		enum ip_conntrack_info ctinfo;
		const struct nf_conn *ct = nf_ct_get(skb, &ctinfo);

		/* conntrack's NAT (an ICMP error's too): its records say it. */
		if (ct && (ct->status & IPS_NAT_MASK))
			return KBLOOM_SKIP_UNTRANSFORMED;
	}
#endif
	if (!kb_key_of(skb, rec, &src6, &dst6))
		return KBLOOM_SKIP_UNTRANSFORMED;
	n = a->family == 4 ? 4 : 16;
	src = memcmp(a->raw, now.raw, n);
	dst = memcmp(a->raw + n, now.raw + n, n);
	if (a->family == 6) {
		memcpy(&x->src6, a->raw, 16);
		memcpy(&x->dst6, a->raw + 16, 16);
		x->asrc6 = src6;
		x->adst6 = dst6;
		rec->before_src = kb_xlate_fold6(a->raw);
		rec->before_dst = kb_xlate_fold6(a->raw + 16);
		x->addrs6 = (src ? BIT(0) | BIT(2) : 0) |
			    (dst ? BIT(1) | BIT(3) : 0);
	} else {
		memcpy(&rec->before_src, a->raw, 4);
		memcpy(&rec->before_dst, a->raw + 4, 4);
	}
	rec->before_sport = rec->after_sport;
	rec->before_dport = rec->after_dport;
	/* Ports rewritten: as they came (an echo's ID is not rewritten). */
	if (memcmp(was, now.raw + now.len - 4, 4) && kb_xlate_has_ports(rec->proto)) {
		memcpy(&rec->before_sport, was, 2);
		memcpy(&rec->before_dport, was + 2, 2);
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
