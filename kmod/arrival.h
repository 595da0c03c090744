/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arrival records of a transforms table (uapi/kbloom.h,
 * KBLOOM_XLATE_OPAQUE): what a forwarded packet came out of that no
 * record undoes.
 */
#ifndef KBLOOM_ARRIVAL_H
#define KBLOOM_ARRIVAL_H

#include <linux/skbuff.h>
#include <net/net_namespace.h>

#include "tunnel_gso.h"
#include "uapi/kbloom.h"

/*
 * Fills @rec (all but STATE) for @skb at POSTROUTING (under RCU): 0 when
 * it came out of IPsec or a tunnel device in @net of a kind no record
 * undoes (vxlan, wireguard, sit, ...), else KBLOOM_SKIP_UNTRANSFORMED.
 */
u32 kb_xlate_of_arrival(const struct net *net, const struct sk_buff *skb,
			struct kbloom_xlate *rec);

/*
 * The arrival record (KBLOOM_ARRIVAL_MERGED) of the inner packet of @t, a
 * tunnel's packets merged by GRO on arrival, decapsulated here; @tunnel:
 * its first segment's tunnel record (the outer addresses, the kind). 0,
 * or KBLOOM_SKIP_UNTRANSFORMED.
 */
u32 kb_xlate_of_merged(const struct kb_tunnel_gso *t,
		       const struct kbloom_xlate *tunnel,
		       struct kbloom_xlate *rec);

/* Whether the first 4 bytes of @proto's header are its ports. */
bool kb_xlate_has_ports(u8 proto);

/*
 * Ports, or an echo's identifier (@icmp: the family's ICMP), at @off of
 * the @cap bytes at @p, into @rec's AFTER_SPORT and AFTER_DPORT: as a NAT
 * record keys them (left as they are when @p is too short).
 */
void kb_xlate_key_ports(const u8 *p, u32 cap, u32 off, u8 proto, u8 icmp,
			struct kbloom_xlate *rec);

#endif /* KBLOOM_ARRIVAL_H */
