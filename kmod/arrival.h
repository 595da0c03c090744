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

#include "uapi/kbloom.h"

/*
 * Fills @rec (all but STATE) for @skb at POSTROUTING (under RCU): 0 when
 * it came out of IPsec or a tunnel device in @net of a kind no record
 * undoes (vxlan, wireguard, sit, ...), else KBLOOM_SKIP_UNTRANSFORMED.
 */
u32 kb_xlate_of_arrival(const struct net *net, const struct sk_buff *skb,
			struct kbloom_xlate *rec);

#endif /* KBLOOM_ARRIVAL_H */
