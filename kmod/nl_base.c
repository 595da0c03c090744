// SPDX-License-Identifier: GPL-2.0
/*
 * What the family's users below netlink.c share (docs/design.md,
 * "Floors"): who may use kbloom in a netns, which events.c and
 * mapping_dev.c follow too, and a window's nest, which events carry.
 */
#include <linux/module.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>
#include <net/netlink.h>

#include "nl_base.h"

/*
 * Who may use the family: CAP_NET_ADMIN in the initial user namespace
 * (GENL_ADMIN_PERM), or, with userns_admin=1, CAP_NET_ADMIN in the user
 * namespace owning the network namespace (GENL_UNS_ADMIN_PERM: the root of
 * a container, in the container's namespaces). Off by default: a
 * container's root is held to its owner's share of memory and filters
 * (owner.c), but the kernel work it can cause (window rotation, parsing)
 * is charged to no one, and the family is more code exposed to untrusted
 * callers. Read at load time only, so the rule never changes under an
 * open socket.
 */
static bool userns_admin;
module_param(userns_admin, bool, 0444);
MODULE_PARM_DESC(userns_admin,
		 "Let CAP_NET_ADMIN in a netns's owning user namespace (container roots) use kbloom there; default: only in the initial user namespace");

bool kb_userns_admin(void)
{
	return userns_admin;
}

struct user_namespace *kb_admin_ns(const struct net *net)
{
	return userns_admin ? net->user_ns : &init_user_ns;
}

int kb_fill_window(struct sk_buff *skb, const struct kb_window *w)
{
	struct nlattr *nest;
	struct kb_fill fill;

	kb_filter_fill(&w->filter, &fill);
	nest = nla_nest_start(skb, KBLOOM_WINDOW_LIST_A_WINDOW);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_ID, w->id,
			      KBLOOM_WINDOW_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_START, w->start_ns,
			      KBLOOM_WINDOW_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_END, READ_ONCE(w->end_ns),
			      KBLOOM_WINDOW_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_PACKETS,
			      kb_window_packets(w), KBLOOM_WINDOW_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_FILL, fill.nonzero,
			      KBLOOM_WINDOW_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}
