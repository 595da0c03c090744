// SPDX-License-Identifier: GPL-2.0
/*
 * Events on the family's multicast group (uapi/kbloom.h, "Events"): built
 * only when someone listens in the filter's netns, never on the packet
 * path (creates, destroys and rotations run in process context).
 */
#include <net/genetlink.h>

#include "events.h"
#include "netlink.h"

static struct sk_buff *kb_event_new(struct net *net, u8 cmd, void **hdr)
{
	struct sk_buff *skb;

	if (!genl_has_listeners(&kb_family, net, KB_MCGRP_EVENTS))
		return NULL;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &kb_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

static void kb_event_send(struct net *net, struct sk_buff *skb, void *hdr)
{
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&kb_family, net, skb, 0, KB_MCGRP_EVENTS,
				GFP_KERNEL);
}

void kb_event_filter(struct net *net, const struct kb_obj *obj, u8 cmd)
{
	const struct kb_filter *f = kb_ring_shape(&obj->ring);
	struct sk_buff *skb;
	void *hdr;

	skb = kb_event_new(net, cmd, &hdr);
	if (!skb)
		return;
	if (nla_put_string(skb, KBLOOM_A_NAME, obj->name) ||
	    nla_put_u32(skb, KBLOOM_A_TYPE, f->s.type)) {
		nlmsg_free(skb);
		return;
	}
	kb_event_send(net, skb, hdr);
}

void kb_event_rotated(struct net *net, const struct kb_obj *obj,
		      const struct kb_window *closed,
		      const struct kb_window *opened)
{
	struct nlattr *list;
	struct kb_fill fill;
	struct sk_buff *skb;
	void *hdr;

	skb = kb_event_new(net, KBLOOM_CMD_ROTATED, &hdr);
	if (!skb)
		return;
	kb_filter_fill(&closed->filter, &fill);
	list = nla_put_string(skb, KBLOOM_A_NAME, obj->name) ? NULL :
	       nla_nest_start(skb, KBLOOM_A_WINDOW_LIST);
	if (!list || kb_fill_window(skb, closed) || kb_fill_window(skb, opened))
		goto fail;
	nla_nest_end(skb, list);
	/* beside the list, not in it: a list holds only windows */
	if (nla_put_u64_64bit(skb, KBLOOM_A_SATURATED, fill.saturated,
			      KBLOOM_A_PAD))
		goto fail;
	kb_event_send(net, skb, hdr);
	return;
fail:
	nlmsg_free(skb);
}
