// SPDX-License-Identifier: GPL-2.0
/*
 * Events on the family's multicast group (uapi/kbloom.h, "Events"): built
 * only when someone listens in the filter's netns, never on the packet
 * path (creates, destroys, rotations and the netdevice notifier's
 * detaches run in process context).
 *
 * They follow the family's read rule (kb_admin_ns()): only a listener
 * whose socket's opener has CAP_NET_ADMIN there hears them. The genl core
 * checks a joiner in the netns's user namespace, which is the rule but
 * with userns_admin=0 in a netns of a container's user namespace: there
 * the container's root may join, but not read. Kernels that multicast
 * through a filter (kcompat.h) leave such listeners out; older ones
 * (6.1) cannot, and send no events in such a netns at all.
 */
#include <linux/capability.h>
#include <linux/file.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "events.h"
#include "kcompat.h"
#include "nl_base.h"

static struct genl_family *kb_events_family;

void kb_events_init(struct genl_family *family)
{
	kb_events_family = family;
}

/* Whether the core's join check is the family's read rule in @net. */
static bool kb_events_core_rule(const struct net *net)
{
	return kb_admin_ns(net) == net->user_ns;
}

static struct sk_buff *kb_event_new(struct net *net, u8 cmd, void **hdr)
{
	struct sk_buff *skb;

	if (!genl_has_listeners(kb_events_family, net, KB_MCGRP_EVENTS))
		return NULL;
	if (!KB_HAVE_MCAST_FILTERED && !kb_events_core_rule(net))
		return NULL;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, kb_events_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

#if KB_HAVE_MCAST_FILTERED
/* Nonzero: @dsk's opener may not read the family's filters (@data: net). */
static int kb_event_unreadable(struct sock *dsk, struct sk_buff *skb,
			       void *data)
{
	const struct socket *sock = dsk->sk_socket;

	return !sock || !sock->file ||
	       !file_ns_capable(sock->file, kb_admin_ns(data), CAP_NET_ADMIN);
}
#endif

static void kb_event_send(struct net *net, struct sk_buff *skb, void *hdr)
{
	genlmsg_end(skb, hdr);
#if KB_HAVE_MCAST_FILTERED
	if (!kb_events_core_rule(net)) {
		genlmsg_multicast_netns_filtered(kb_events_family, net, skb, 0,
						 KB_MCGRP_EVENTS, GFP_KERNEL,
						 kb_event_unreadable, net);
		return;
	}
#endif
	genlmsg_multicast_netns(kb_events_family, net, skb, 0, KB_MCGRP_EVENTS,
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

void kb_event_detached(struct net *net, const struct kb_obj *obj, u32 hook,
		       const char *ifname)
{
	struct sk_buff *skb;
	void *hdr;

	skb = kb_event_new(net, KBLOOM_CMD_DETACH, &hdr);
	if (!skb)
		return;
	if (nla_put_string(skb, KBLOOM_A_NAME, obj->name) ||
	    nla_put_u32(skb, KBLOOM_A_HOOK, hook) ||
	    nla_put_string(skb, KBLOOM_A_IFNAME, ifname)) {
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
