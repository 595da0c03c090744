/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attaching a filter to the packet path: a netfilter hook in the filter's
 * network namespace digests each packet and adds the digest to the filter's
 * current window (uapi/kbloom.h, KBLOOM_CMD_ATTACH).
 */
#ifndef KBLOOM_ATTACH_H
#define KBLOOM_ATTACH_H

#include <linux/netlink.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

struct kb_obj;

struct kb_attach_args {
	u32 hook;		/* enum kbloom_hook */
	u32 family;		/* enum kbloom_family */
	u32 digest;		/* enum kbloom_digest */
	const char *ifname;	/* NULL: every device */
	bool exist_ok;		/* this very attachment made already: 0 */
};

/* These run under the namespace's kb_net.lock. */
int kb_attach(struct net *net, struct kb_obj *obj,
	      const struct kb_attach_args *args, struct netlink_ext_ack *extack);
/*
 * 0 or -ENOENT when @obj is not attached. When it returns, no packet is
 * being digested into @obj: it waits a grace period for the hook calls
 * in flight.
 */
int kb_detach(struct kb_obj *obj);
/*
 * kb_detach() in two halves, for many filters with one grace period:
 * kb_unhook() takes the hooks out (calls in flight may go on), and after
 * a grace period (synchronize_net()) kb_detach_unhooked() frees.
 */
void kb_unhook(struct kb_obj *obj);
void kb_detach_unhooked(struct kb_obj *obj);
/*
 * For the netdevice notifier (attach_dev.c), under kb_net.lock: the
 * device of an INGRESS or EGRESS attachment (NULL: none, or not
 * attached), the HOOK and IFNAME of @obj's attachment, and a rename of
 * @dev seen by an attachment to it (its IFNAME follows the device).
 */
struct net_device *kb_attach_dev(const struct kb_obj *obj);
u32 kb_attach_hook(const struct kb_obj *obj);
const char *kb_attach_ifname(const struct kb_obj *obj);
void kb_attach_renamed(struct kb_obj *obj, const struct net_device *dev);
/* KBLOOM_A_ATTACH of a GET reply; nothing when @obj is not attached. */
int kb_attach_fill(struct sk_buff *skb, const struct kb_obj *obj);

/*
 * Digest of @skb (network header at skb_network_offset, not GSO) exactly
 * as the hooks compute it: a kbloom_skip reason, the digest in @out.
 */
struct kb_digest;
u32 kb_digest_skb(const struct sk_buff *skb, u32 mode, struct kb_digest *out);

#endif /* KBLOOM_ATTACH_H */
