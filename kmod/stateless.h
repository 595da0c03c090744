/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stateless rewrites (uapi/kbloom.h, KBLOOM_XLATE_STATELESS): NPTv6 (RFC
 * 6296) and nftables' stateless address and port rewrites keep no
 * conntrack entry to read. A transforms table sees them by comparing a
 * packet as it leaves (POSTROUTING) with what it was when it arrived
 * (PREROUTING): between the two the forward path runs on one CPU, in one
 * call, so a per-CPU note of the last arrival is the packet's own.
 */
#ifndef KBLOOM_STATELESS_H
#define KBLOOM_STATELESS_H

#include <linux/skbuff.h>

#include "transforms.h"
#include "uapi/kbloom.h"

/* What a note keeps: IPv6's addresses, and 4 bytes of the L4 header. */
#define KB_ARRIVED_RAW	(32 + 4)

/*
 * A packet as it arrived: its addresses and the first 4 bytes past its
 * network headers (ports), as they were, to compare as it leaves. Its
 * skb may be freed before it leaves (delivered here, dropped), and its
 * memory taken by a packet this host sends: the device it came in by
 * (a packet sent here has none) and the time tell them apart.
 */
struct kb_arrived {
	const struct sk_buff *skb;	/* NULL: none noted, or taken */
	int iif;			/* its skb_iif */
	unsigned long at;		/* jiffies when noted */
	u8 family;			/* 4 or 6 */
	u8 len;				/* bytes of @raw: 8 + 4 or 32 + 4 */
	u8 raw[KB_ARRIVED_RAW];
};

/* Notes @skb at PREROUTING in @a (this CPU's), or nothing (not IP). */
void kb_arrived_note(const struct sk_buff *skb, struct kb_arrived *a);

/*
 * At POSTROUTING: whether @a holds @skb's arrival; taken either way (the
 * same skb may leave again, a tunnel's outer packet: not this one).
 */
bool kb_arrived_take(const struct sk_buff *skb, struct kb_arrived *a,
		     struct kb_arrived *out);

/*
 * The stateless record of @skb, which arrived as @a: 0, or
 * KBLOOM_SKIP_UNTRANSFORMED when its addresses and ports left as they
 * came. @x as kb_xlate_of_skb() fills it.
 */
u32 kb_xlate_of_stateless(const struct sk_buff *skb,
			  const struct kb_arrived *a, struct kbloom_xlate *rec,
			  struct kb_xlate_extra *x);

#endif /* KBLOOM_STATELESS_H */
