/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KBLOOM_NETLINK_H
#define KBLOOM_NETLINK_H

int kb_netlink_init(void);
void kb_netlink_exit(void);

#endif /* KBLOOM_NETLINK_H */
