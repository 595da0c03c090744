// SPDX-License-Identifier: GPL-2.0
/*
 * kbloom: Bloom filters in kernel memory, driven over generic netlink.
 * This file is only the init/exit ladder.
 */
#include <linux/module.h>
#include <net/genetlink.h>

#include "attach_dev.h"
#include "mapping_dev.h"
#include "netlink.h"
#include "registry.h"
#include "tunnel_ends.h"
#include "uapi/kbloom.h"

static int __init kb_init(void)
{
	int err;

	err = kb_tunnel_ends_init();
	if (err)
		return err;
	err = kb_registry_init();
	if (err)
		goto err_tunnels;
	err = kb_attach_dev_init();
	if (err)
		goto err_registry;
	err = kb_netlink_init();
	if (err)
		goto err_attach_dev;
	err = kb_map_init();
	if (err)
		goto err_netlink;
	return 0;

err_netlink:
	kb_netlink_exit();
err_attach_dev:
	kb_attach_dev_exit();
err_registry:
	kb_registry_exit();
err_tunnels:
	kb_tunnel_ends_exit();
	return err;
}

static void __exit kb_exit(void)
{
	/*
	 * No new requests first (an open /dev/kbloom holds the module); then
	 * every namespace's filters go.
	 */
	kb_map_exit();
	kb_netlink_exit();
	/* Attachments to devices first, while the device lists are whole. */
	kb_attach_dev_exit();
	kb_registry_exit();
	kb_tunnel_ends_exit();
}

module_init(kb_init);
module_exit(kb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Bloom and counting filters for packet and flow digests");
MODULE_AUTHOR("kbloom developers");
MODULE_ALIAS_GENL_FAMILY(KBLOOM_GENL_NAME);
MODULE_VERSION(KBLOOM_VERSION);
