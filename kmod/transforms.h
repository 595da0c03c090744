/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a transforms table records about a packet (uapi/kbloom.h,
 * KBLOOM_TYPE_TRANSFORMS): the NAT its conntrack entry applied, or the
 * tunnel it came out of.
 */
#ifndef KBLOOM_TRANSFORMS_H
#define KBLOOM_TRANSFORMS_H

#include <linux/skbuff.h>

#include "uapi/kbloom.h"

/*
 * Fills @rec (all but STATE) for @skb at POSTROUTING, after NAT: 0, or
 * KBLOOM_SKIP_UNTRANSFORMED when its conntrack entry (if any) changed
 * neither its source nor its destination.
 */
u32 kb_xlate_of_skb(const struct sk_buff *skb, struct kbloom_xlate *rec);

/*
 * The same at LOCAL_IN for an IPIP, GRE or VXLAN packet (network header:
 * the outer one) that this router will decapsulate: its tunnel record
 * and, for GRE with a key, the key in @key (which the record keeps only
 * when it is the first optional word), for VXLAN the VNI, or
 * KBLOOM_SKIP_UNTRANSFORMED for any other packet.
 */
u32 kb_xlate_of_tunnel(const struct sk_buff *skb, struct kbloom_xlate *rec,
		       __be32 *key);

#endif /* KBLOOM_TRANSFORMS_H */
