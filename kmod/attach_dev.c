// SPDX-License-Identifier: GPL-2.0
/*
 * A netdev hook lives on its device (dev->nf_hooks_ingress and
 * nf_hooks_egress), and netfilter does nothing about it when the device
 * goes: the hook's entries would stay on a freed device, and unregistering
 * the hook later would read the device (nf_hook_entry_head()). nf_tables
 * unregisters its netdev chains from a netdevice notifier; so does this:
 * at NETDEV_UNREGISTER (a device deleted, or leaving for another netns,
 * which unregisters it from the old one first; dev_net() is still the old
 * netns) every attachment to the device is unhooked while the device is
 * still whole, freed after a grace period (the calls in flight), and
 * announced on the events group. The filter stays, not attached.
 *
 * Locks: the notifier runs under RTNL and takes the namespace's lock; no
 * holder of that lock takes RTNL (ATTACH looks the device up without it:
 * kb_attach()). A rename (NETDEV_CHANGENAME) keeps the attachment: its
 * IFNAME follows.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "attach.h"
#include "attach_dev.h"
#include "events.h"
#include "registry.h"

/* Set before the notifier goes at rmmod: no events (the family is gone). */
static bool kb_attach_dev_quiet;

static void kb_attach_dev_gone(struct net_device *dev)
{
	struct kb_net *kn = kb_net(dev_net(dev));
	struct kb_obj *obj;
	bool hooked = false;

	mutex_lock(&kn->lock);
	list_for_each_entry(obj, &kn->filters, node) {
		if (kb_attach_dev(obj) != dev)
			continue;
		kb_unhook(obj);
		hooked = true;
	}
	if (hooked) {
		/* Every hook call in flight returns before the frees. */
		synchronize_net();
		list_for_each_entry(obj, &kn->filters, node) {
			if (kb_attach_dev(obj) != dev)
				continue;
			if (!kb_attach_dev_quiet)
				kb_event_detached(dev_net(dev), obj,
						  kb_attach_hook(obj),
						  kb_attach_ifname(obj));
			kb_detach_unhooked(obj);
		}
	}
	mutex_unlock(&kn->lock);
}

static void kb_attach_dev_renamed(struct net_device *dev)
{
	struct kb_net *kn = kb_net(dev_net(dev));
	struct kb_obj *obj;

	mutex_lock(&kn->lock);
	list_for_each_entry(obj, &kn->filters, node)
		kb_attach_renamed(obj, dev);
	mutex_unlock(&kn->lock);
}

static int kb_attach_dev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	ASSERT_RTNL();
	switch (event) {
	case NETDEV_UNREGISTER:
		kb_attach_dev_gone(dev);
		break;
	case NETDEV_CHANGENAME:
		kb_attach_dev_renamed(dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kb_attach_dev_notifier = {
	.notifier_call = kb_attach_dev_event,
};

int kb_attach_dev_init(void)
{
	return register_netdevice_notifier(&kb_attach_dev_notifier);
}

void kb_attach_dev_exit(void)
{
	kb_attach_dev_quiet = true;
	unregister_netdevice_notifier(&kb_attach_dev_notifier);
}
