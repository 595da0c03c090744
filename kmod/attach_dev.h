/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attachments to a device's netdev hooks (INGRESS, EGRESS) that lose
 * their device: detached when it is unregistered or leaves the netns.
 */
#ifndef KBLOOM_ATTACH_DEV_H
#define KBLOOM_ATTACH_DEV_H

/* After the registry (it reads namespaces' filters), before netlink. */
int kb_attach_dev_init(void);
/*
 * Before the registry goes: detaches every attachment to a device (the
 * notifier's unregistration replays NETDEV_UNREGISTER for every device),
 * quietly (no events: the family is gone by then).
 */
void kb_attach_dev_exit(void);

#endif /* KBLOOM_ATTACH_DEV_H */
