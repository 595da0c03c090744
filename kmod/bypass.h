/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What may carry packets past an attachment right now (uapi/kbloom.h,
 * KBLOOM_ATTACH_A_BYPASS), read from the kernel's own state at each GET.
 */
#ifndef KBLOOM_BYPASS_H
#define KBLOOM_BYPASS_H

#include <net/net_namespace.h>

/*
 * KBLOOM_BYPASS_* for an attachment of @net at @hook (enum kbloom_hook)
 * to device @ifindex (0: every device). Process or softirq context; it
 * takes no lock (RCU inside).
 */
u32 kb_bypass(struct net *net, u32 hook, int ifindex);

#endif /* KBLOOM_BYPASS_H */
