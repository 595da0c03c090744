/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Below the family (nl_base.c): its rights rule and a window's nest, for
 * netlink.c, nl_*.c, events.c and mapping_dev.c.
 */
#ifndef KBLOOM_NL_BASE_H
#define KBLOOM_NL_BASE_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "window.h"

struct net;
struct user_namespace;

/* userns_admin, as loaded. */
bool kb_userns_admin(void);

/*
 * Where CAP_NET_ADMIN lets a caller use kbloom in @net (userns_admin):
 * the initial user namespace, or the one owning @net.
 */
struct user_namespace *kb_admin_ns(const struct net *net);

/* One window's nest (KBLOOM_WINDOW_LIST_A_WINDOW); under RCU. */
int kb_fill_window(struct sk_buff *skb, const struct kb_window *w);

#endif /* KBLOOM_NL_BASE_H */
