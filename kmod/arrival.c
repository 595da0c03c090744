// SPDX-License-Identifier: GPL-2.0
/*
 * Arrival records (uapi/kbloom.h, KBLOOM_XLATE_OPAQUE): a packet forwarded
 * here that came out of IPsec or a tunnel device kbloom does not undo.
 * The routers before this one carried another packet (ciphertext, or an
 * outer header no record rebuilds): a trace must stop here and say so,
 * never ask them about this form and call it absent.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <net/ip.h>
#include <net/ip_tunnels.h>
#include <net/xfrm.h>

#include "arrival.h"
#include "engine/xlate.h"
#include "tunnel_ends.h"

/* Tunnel devices whose packets no record undoes, by rtnl kind. */
static const struct {
	const char *kind;
	u16 arrival;
} kb_arrival_kinds[] = {
	{ "wireguard", KBLOOM_ARRIVAL_WIREGUARD },
	{ "vxlan", KBLOOM_ARRIVAL_VXLAN },
	{ "geneve", KBLOOM_ARRIVAL_GENEVE },
	{ "ip6tnl", KBLOOM_ARRIVAL_IP6TNL },
	{ "ip6gre", KBLOOM_ARRIVAL_IP6GRE },
	{ "ip6gretap", KBLOOM_ARRIVAL_IP6GRE },
	{ "gretap", KBLOOM_ARRIVAL_GRETAP },
	{ "xfrm", KBLOOM_ARRIVAL_XFRM },
	{ "vti", KBLOOM_ARRIVAL_XFRM },
	{ "vti6", KBLOOM_ARRIVAL_XFRM },
	{ "bareudp", KBLOOM_ARRIVAL_BAREUDP },
	{ "gtp", KBLOOM_ARRIVAL_GTP },
	/* A program's (OpenVPN's, a userspace tunnel's): its input unknown. */
	{ "tun", KBLOOM_ARRIVAL_TUN },
};

/* What device @dev's packets came out of; 0: nothing, or what we undo. */
static u16 kb_arrival_of_dev(const struct net_device *dev)
{
	const struct ip_tunnel *t;
	u8 tunnel;
	u32 i;

	if (!dev->rtnl_link_ops)
		return 0;
	/* ipip, sit and gre are undone at LOCAL_IN, unless carried in UDP. */
	tunnel = kb_tunnel_kind(dev);
	if (tunnel == KBLOOM_XLATE_IPIP || tunnel == KBLOOM_XLATE_GRE) {
		t = netdev_priv(dev);
		return t->encap.type != TUNNEL_ENCAP_NONE ?
		       KBLOOM_ARRIVAL_FOU : 0;
	}
	/* A vxlan device's packets may have tunnel records: they prevail. */
	for (i = 0; i < ARRAY_SIZE(kb_arrival_kinds); i++)
		if (!strcmp(dev->rtnl_link_ops->kind, kb_arrival_kinds[i].kind))
			return kb_arrival_kinds[i].arrival;
	return 0;
}

/* IPsec: the state that took the packet in first (its outermost). */
static bool kb_arrival_of_xfrm(const struct sk_buff *skb,
			       struct kbloom_xlate *rec)
{
#if IS_ENABLED(CONFIG_XFRM)
	const struct sec_path *sp = skb_sec_path(skb);
	const struct xfrm_state *x;

	if (!sp || !sp->len)
		return false;
	x = sp->xvec[0];
	switch (x->id.proto) {
	case IPPROTO_AH:
		rec->before_dport = htons(KBLOOM_ARRIVAL_AH);
		break;
	case IPPROTO_COMP:
		rec->before_dport = htons(KBLOOM_ARRIVAL_IPCOMP);
		break;
	default:
		rec->before_dport = htons(KBLOOM_ARRIVAL_ESP);
		break;
	}
	memcpy(&rec->first, &x->id.spi, sizeof(rec->first));
	if (x->props.family == AF_INET) {
		rec->before_src = x->props.saddr.a4;
		rec->before_dst = x->id.daddr.a4;
	}
	return true;
#else
	return false;
#endif
}

bool kb_xlate_has_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_DCCP;
}

void kb_xlate_key_ports(const u8 *p, u32 cap, u32 off, u8 proto, u8 icmp,
			struct kbloom_xlate *rec)
{
	if (kb_xlate_has_ports(proto)) {
		if (off + 4 <= cap) {
			memcpy(&rec->after_sport, p + off, 2);
			memcpy(&rec->after_dport, p + off + 2, 2);
		}
		return;
	}
	switch (proto) {
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if (proto != icmp || off + 6 > cap)
			return;
		if (proto == IPPROTO_ICMP ?
		    p[off] == ICMP_ECHO || p[off] == ICMP_ECHOREPLY :
		    p[off] == ICMPV6_ECHO_REQUEST || p[off] == ICMPV6_ECHO_REPLY)
			memcpy(&rec->after_sport, p + off + 4, 2);
		return;
	}
}

/* The key (FAMILY, PROTO, AFTER_*) of the packet at @p; false: not IP. */
static bool kb_arrival_key(const u8 *p, u32 cap, struct kbloom_xlate *rec)
{
	const struct ipv6hdr *h6 = (const void *)p;
	const struct iphdr *h4 = (const void *)p;

	if (cap >= sizeof(*h4) && h4->version == 4 && h4->ihl >= 5) {
		rec->family = 4;
		rec->proto = h4->protocol;
		rec->after_src = h4->saddr;
		rec->after_dst = h4->daddr;
		if (!(ntohs(h4->frag_off) & IP_OFFSET))
			kb_xlate_key_ports(p, cap, h4->ihl * 4, h4->protocol,
					   IPPROTO_ICMP, rec);
		return true;
	}
	if (cap < sizeof(*h6) || h6->version != 6)
		return false;
	rec->family = 6;
	rec->proto = h6->nexthdr;
	rec->after_src = kb_xlate_fold6(h6->saddr.s6_addr);
	rec->after_dst = kb_xlate_fold6(h6->daddr.s6_addr);
	kb_xlate_key_ports(p, cap, sizeof(*h6), h6->nexthdr, IPPROTO_ICMPV6,
			   rec);
	return true;
}

/* An IPv4 header with options, and the ports or echo identifier. */
#define KB_ARRIVAL_HEAD	(60 + 6)

u32 kb_xlate_of_arrival(const struct net *net, const struct sk_buff *skb,
			struct kbloom_xlate *rec)
{
	u8 buf[KB_ARRIVAL_HEAD];
	const struct net_device *dev;
	u16 arrival = 0;
	const u8 *p;
	u32 cap;
	int off;

	memset(rec, 0, sizeof(*rec));
	if (!kb_arrival_of_xfrm(skb, rec)) {
		if (!skb->skb_iif)
			return KBLOOM_SKIP_UNTRANSFORMED;
		/* The hook runs under RCU. */
		dev = dev_get_by_index_rcu((struct net *)net, skb->skb_iif);
		if (dev)
			arrival = kb_arrival_of_dev(dev);
		if (!arrival)
			return KBLOOM_SKIP_UNTRANSFORMED;
		rec->before_dport = htons(arrival);
		rec->first = skb->skb_iif;
	}
	off = skb_network_offset(skb);
	if (off < 0 || skb->len <= off)
		return KBLOOM_SKIP_UNTRANSFORMED;
	cap = min_t(u32, skb->len - off, sizeof(buf));
	p = skb_header_pointer(skb, off, cap, buf);
	if (!p || !kb_arrival_key(p, cap, rec))
		return KBLOOM_SKIP_UNTRANSFORMED;
	rec->kind = KBLOOM_XLATE_OPAQUE;
	return KBLOOM_SKIP_NONE;
}

u32 kb_xlate_of_merged(const struct kb_tunnel_gso *t,
		       const struct kbloom_xlate *tunnel,
		       struct kbloom_xlate *rec)
{
	memset(rec, 0, sizeof(*rec));
	if (!kb_arrival_key(t->p + t->inner, t->cap - t->inner, rec))
		return KBLOOM_SKIP_UNTRANSFORMED;
	rec->kind = KBLOOM_XLATE_OPAQUE;
	rec->before_dport = htons(KBLOOM_ARRIVAL_MERGED);
	rec->before_src = tunnel->before_src;
	rec->before_dst = tunnel->before_dst;
	rec->first = tunnel->kind;
	return KBLOOM_SKIP_NONE;
}
