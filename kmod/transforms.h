/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a transforms table records about a packet (uapi/kbloom.h,
 * KBLOOM_TYPE_TRANSFORMS): the NAT its conntrack entry applied, or the
 * tunnel it came out of.
 */
#ifndef KBLOOM_TRANSFORMS_H
#define KBLOOM_TRANSFORMS_H

#include <linux/in6.h>
#include <linux/skbuff.h>

#include "uapi/kbloom.h"

/* What a record's packet holds that the record does not. */
struct kb_xlate_extra {
	__be32 key;			/* GRE's key (when it has one), VXLAN's VNI */
	/*
	 * IPv6 addresses, folded in the record: a tunnel's outer ones
	 * (OUTER6), a NAT's BEFORE ones and (@asrc6, @adst6) AFTER ones;
	 * @addrs6 those that need address records (BIT(0) the source, BIT(1)
	 * the destination, BIT(2) and BIT(3) AFTER's: a tunnel's two, a
	 * NAT's those it rewrote, both forms), 0 for a record over IPv4.
	 */
	struct in6_addr src6, dst6, asrc6, adst6;
	u8 addrs6;
	/*
	 * A tunnel record's more record's (kb_xlate_has_more()): the UDP
	 * checksum over IPv6, GENEVE's options' length and flags.
	 */
	__be16 more_sport, more_dport;
};

/*
 * Fills @rec (all but STATE) for @skb at POSTROUTING, after NAT, and @x's
 * addresses: 0, or KBLOOM_SKIP_UNTRANSFORMED when its
 * conntrack entry (if any) changed neither its source nor its
 * destination.
 */
u32 kb_xlate_of_skb(const struct sk_buff *skb, struct kbloom_xlate *rec,
		    struct kb_xlate_extra *x);

/*
 * The same at LOCAL_IN for an IPIP, GRE, VXLAN or GENEVE packet, over
 * IPv4 or IPv6 (network header: the outer one) that this router
 * may decapsulate: its tunnel record, and in @th what the tunnel's ends
 * are matched by (kb_tunnel_takes()), or KBLOOM_SKIP_UNTRANSFORMED for
 * any other packet.
 */
u32 kb_xlate_of_tunnel(const struct sk_buff *skb, struct kbloom_xlate *rec,
		       struct kb_xlate_extra *th);

#endif /* KBLOOM_TRANSFORMS_H */
