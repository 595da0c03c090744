// SPDX-License-Identifier: GPL-2.0
/*
 * What may carry packets past an attachment (KBLOOM_ATTACH_A_BYPASS), so
 * that "absent" from a router is never read as "not there" when the
 * router could not have seen the packet. Learnt from the kernel, not from
 * the user, at each GET, from what every kernel has without nf_tables'
 * internals (which are not exported and differ between 6.1 and 6.12):
 *
 * - a flowtable: the netdev ingress hooks of a device
 *   (dev->nf_hooks_ingress, read under RCU as nfnetlink_hook does to list
 *   them), one of which is a flowtable's when its function is one of
 *   nf_flow_table's nf_flow_offload_*_hook (by name through kallsyms, as
 *   nfnetlink_hook reports hook functions: kbloom does not depend on the
 *   nf_flow_table modules, which are loaded only when a ruleset has one);
 * - XDP: dev_xdp_prog_count(), native, generic or offloaded programs;
 * - hardware offload: NETIF_F_HW_TC on (tc flower skip_sw and flowtables
 *   with flags offload need it).
 *
 * The XDP and feature reads are racy snapshots of fields changed under
 * RTNL, which this does not take (GET holds the namespace's lock, which
 * the netdevice notifier takes under RTNL: attach_dev.c): an answer of
 * one moment, as any status is.
 */
#include <linux/kallsyms.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/string.h>

#include "bypass.h"
#include "kcompat.h"
#include "uapi/kbloom.h"

/* Whether one of @dev's netdev ingress hooks is a flowtable's. */
static bool kb_dev_flowtable(const struct net_device *dev)
{
#if KB_HAVE_NF_INGRESS
	static const char prefix[] = "nf_flow_offload_";
	const struct nf_hook_entries *e;
	struct nf_hook_ops **ops;
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i;

	e = rcu_dereference(dev->nf_hooks_ingress);
	if (!e)
		return false;
	ops = nf_hook_entries_get_hook_ops(e);
	for (i = 0; i < e->num_hook_entries; i++) {
		snprintf(sym, sizeof(sym), "%ps", READ_ONCE(ops[i])->hook);
		if (!strncmp(sym, prefix, sizeof(prefix) - 1))
			return true;
	}
#endif
	return false;
}

static u32 kb_dev_bypass(struct net_device *dev, bool flowtable)
{
	u32 by = 0;

	if (flowtable && kb_dev_flowtable(dev))
		by |= KBLOOM_BYPASS_FLOWTABLE;
	if (dev_xdp_prog_count(dev))
		by |= KBLOOM_BYPASS_XDP;
	if (READ_ONCE(dev->features) & NETIF_F_HW_TC)
		by |= KBLOOM_BYPASS_HW_OFFLOAD;
	return by;
}

u32 kb_bypass(struct net *net, u32 hook, int ifindex)
{
	/* A flowtable's flows skip these (not INPUT, OUTPUT: not forwarded). */
	bool flowtable = hook == KBLOOM_HOOK_PREROUTING ||
			 hook == KBLOOM_HOOK_FORWARD ||
			 hook == KBLOOM_HOOK_POSTROUTING;
	/* Hooks of the input side look at their device; others at all. */
	bool one = ifindex && (hook == KBLOOM_HOOK_PREROUTING ||
			       hook == KBLOOM_HOOK_INPUT ||
			       hook == KBLOOM_HOOK_FORWARD ||
			       hook == KBLOOM_HOOK_INGRESS ||
			       hook == KBLOOM_HOOK_BRIDGE_FORWARD);
	struct net_device *dev;
	u32 by = 0;

	/* Locally made packets: nothing passes them by. */
	if (hook == KBLOOM_HOOK_OUTPUT)
		return 0;
	rcu_read_lock();
	if (one) {
		dev = dev_get_by_index_rcu(net, ifindex);
		if (dev)
			by = kb_dev_bypass(dev, flowtable);
	} else {
		for_each_netdev_rcu(net, dev)
			by |= kb_dev_bypass(dev, flowtable);
	}
	rcu_read_unlock();
	return by;
}
