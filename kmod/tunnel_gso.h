/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tunnel's TCP GSO packet at a hook: GRO merged the tunnel's packets on
 * arrival, or a tunnel device's output waits to be cut. What the engine
 * needs to rebuild its segments (engine/digest.h, kb_tunnel_segment()).
 */
#ifndef KBLOOM_TUNNEL_GSO_H
#define KBLOOM_TUNNEL_GSO_H

#include <linux/skbuff.h>

#include "engine/digest.h"

struct kb_tunnel_gso {
	const u8 *p;		/* the first cap bytes from the outer header */
	u32 cap, len;		/* bytes at p; the packet's from there */
	u32 inner;		/* the inner header's offset from the outer */
	u32 gso_size;
	u32 flags;		/* KB_TUNNEL_FIXED_ID, KB_TUNNEL_UDP_CSUM */
	/*
	 * It arrived merged by GRO with DF in its outer IPv4 header, for
	 * which GRO does not check the outer IDs: segment i's outer ID on
	 * arrival may not be the first's + i, as the segment leaves here.
	 */
	bool unsure;
};

/* Fills @t (@buf: KB_TUNNEL_SPAN bytes); false when @skb is no such packet. */
bool kb_tunnel_gso(const struct sk_buff *skb, u8 *buf, struct kb_tunnel_gso *t);

#endif /* KBLOOM_TUNNEL_GSO_H */
