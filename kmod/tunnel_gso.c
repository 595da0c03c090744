// SPDX-License-Identifier: GPL-2.0
/*
 * A tunnel's TCP GSO packet at a hook: see tunnel_gso.h.
 */
#include "tunnel_gso.h"

#define KB_GSO_TUNNELS	(SKB_GSO_IPXIP4 | SKB_GSO_IPXIP6 | SKB_GSO_GRE | \
			 SKB_GSO_GRE_CSUM | SKB_GSO_UDP_TUNNEL | \
			 SKB_GSO_UDP_TUNNEL_CSUM)

bool kb_tunnel_gso(const struct sk_buff *skb, u8 *buf, struct kb_tunnel_gso *t)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	int off = skb_network_offset(skb);
	int inner;

	if (!skb_is_gso(skb) || !skb->encapsulation ||
	    !(si->gso_type & KB_GSO_TUNNELS) ||
	    !(si->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) ||
	    (si->gso_type & SKB_GSO_PARTIAL))
		return false;
	/* GRO and the tunnel devices set the inner headers (skb.h). */
	inner = skb_inner_network_offset(skb) - off;
	if (off < 0 || inner <= 0 || skb->len <= off)
		return false;
	t->len = skb->len - off;
	t->cap = min_t(u32, t->len, KB_TUNNEL_SPAN);
	t->p = skb_header_pointer(skb, off, t->cap, buf);
	if (!t->p)
		return false;
	t->inner = inner;
	t->gso_size = si->gso_size;
	/* SKB_GSO_TCP_FIXEDID is the inner header's (inet_gso_segment()). */
	t->flags = (si->gso_type & SKB_GSO_TCP_FIXEDID ? KB_TUNNEL_FIXED_ID : 0) |
		   (si->gso_type & SKB_GSO_UDP_TUNNEL_CSUM ?
		    KB_TUNNEL_UDP_CSUM : 0);
	/*
	 * A packet encapsulated here has no input device (iptunnel_xmit()
	 * scrubs it): its outer IDs are the ones segmentation gives.
	 */
	t->unsure = skb->skb_iif && t->p[0] >> 4 == 4 && (t->p[6] & 0x40);
	return true;
}
