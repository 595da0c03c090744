/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunnel ends of each network namespace (tunnel_ends.c): which IPIP,
 * GRE and VXLAN packets (over IPv4; IPIP and GRE over IPv6) a tunnel
 * device of the namespace would take, so a transforms table records only
 * those (an outsider's IPIP packet to a router with no tunnel is dropped
 * there, and must not take a record).
 */
#ifndef KBLOOM_TUNNEL_ENDS_H
#define KBLOOM_TUNNEL_ENDS_H

#include <linux/netdevice.h>
#include <net/net_namespace.h>

#include "transforms.h"
#include "uapi/kbloom.h"

int kb_tunnel_ends_init(void);
void kb_tunnel_ends_exit(void);

/*
 * Whether a tunnel device of @net, up, takes the outer packet of tunnel
 * record @rec (kb_xlate_of_tunnel(): its kind, outer addresses, and in
 * @th the GRE key or VXLAN VNI, and the addresses over IPv6), as the
 * kernel's own lookup would: its local and remote address (0 or ::
 * any), its kind, and the key (a keyed GRE device takes only its key, one
 * without a key only packets without; a VXLAN device its UDP port and
 * VNI). A device in external (collect_md) mode takes
 * every packet of its kind (VXLAN: to its port). Under RCU, any context.
 */
bool kb_tunnel_takes(const struct net *net, const struct kbloom_xlate *rec,
		     const struct kb_xlate_extra *th);

/*
 * The kind of tunnel record @dev's packets make (KBLOOM_XLATE_IPIP, _GRE,
 * _VXLAN; with _OUTER6 over IPv6: ip6tnl, ip6gre), or 0: not a tunnel
 * whose packets are recorded at LOCAL_IN.
 */
u8 kb_tunnel_kind(const struct net_device *dev);

#endif /* KBLOOM_TUNNEL_ENDS_H */
