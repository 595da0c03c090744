// SPDX-License-Identifier: GPL-2.0
/*
 * The tunnel ends of each netns (tunnel_ends.h), kept from the netdevice
 * notifier: each change of an ipip, sit, gre, vxlan, geneve, ip6tnl or
 * ip6gre device (registered,
 * up, down, its parameters changed, gone, moved) rebuilds its
 * namespace's list of the ones up, published under RCU for the packet
 * path. A list, not a walk of every device per packet: a router may have
 * thousands of devices and few tunnels.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/ip_tunnels.h>
#include <net/ip6_tunnel.h>
#include <net/ipv6.h>
#include <net/vxlan.h>
#include <net/netns/generic.h>

#include "kcompat.h"
#include "tunnel_ends.h"

struct kb_tun_end {
	__be32 local, remote;	/* 0: any */
	struct in6_addr local6, remote6;	/* ip6tnl, ip6gre: :: is any */
	/* GRE, with KBLOOM_XLATE_GRE_KEY in kind; VXLAN, GENEVE: VNI */
	__be32 key;
	__be16 port;		/* VXLAN, GENEVE: its UDP port */
	/* KBLOOM_XLATE_IPIP, _GRE (| _GRE_KEY), _VXLAN, _GENEVE; _OUTER6 */
	u8 kind;
	u8 families;		/* inside: BIT(4) IPv4, BIT(6) IPv6 */
	u8 outers;		/* VXLAN, GENEVE: outside, BIT(4), BIT(6) */
	bool any;		/* external (collect_md): every packet */
};

struct kb_tun_ends {
	struct rcu_head rcu;
	u32 n;
	struct kb_tun_end e[];
};

struct kb_tun_net {
	struct kb_tun_ends __rcu *ends;	/* NULL: none up */
};

static unsigned int kb_tun_net_id __read_mostly;

u8 kb_tunnel_kind(const struct net_device *dev)
{
	const char *kind = dev->rtnl_link_ops ? dev->rtnl_link_ops->kind : NULL;

	if (!kind)
		return 0;
	/* sit's 6in4 is undone as IPIP is (records of family 6). */
	if (!strcmp(kind, "ipip") || !strcmp(kind, "sit"))
		return KBLOOM_XLATE_IPIP;
	if (!strcmp(kind, "gre"))
		return KBLOOM_XLATE_GRE;
	/* Over IPv6: IPv4 or IPv6 in ip6tnl and in ip6gre. */
	if (!strcmp(kind, "ip6tnl"))
		return KBLOOM_XLATE_IPIP | KBLOOM_XLATE_OUTER6;
	if (!strcmp(kind, "ip6gre"))
		return KBLOOM_XLATE_GRE | KBLOOM_XLATE_OUTER6;
	if (!strcmp(kind, "vxlan")) {
		const struct vxlan_dev *vx = netdev_priv(dev);

		/* GPE (no Ethernet inside): arrivals. */
		if (vx->cfg.flags & VXLAN_F_GPE)
			return 0;
		return KBLOOM_XLATE_VXLAN;
	}
	/* Over IPv4 or IPv6: its end says which. */
	if (!strcmp(kind, "geneve"))
		return KBLOOM_XLATE_GENEVE;
	return 0;
}

/* The attributes of a geneve device's info kb_geneve_end_of() reads. */
static const struct nla_policy kb_geneve_policy[IFLA_GENEVE_MAX + 1] = {
	[IFLA_GENEVE_ID] = { .type = NLA_U32 },
	[IFLA_GENEVE_REMOTE] = NLA_POLICY_EXACT_LEN(sizeof(__be32)),
	[IFLA_GENEVE_REMOTE6] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[IFLA_GENEVE_PORT] = { .type = NLA_U16 },
	[IFLA_GENEVE_COLLECT_METADATA] = { .type = NLA_FLAG },
};

/*
 * A geneve device's end, from what it tells rtnetlink (struct geneve_dev
 * is geneve.c's own): its VNI, port, remote (IPv4 or IPv6; a group:
 * any) and collect_md (both, as geneve opens both sockets). Under RTNL.
 * Without memory, an end that takes nothing.
 */
static void kb_geneve_end_of(const struct net_device *dev,
			     struct kb_tun_end *e)
{
	const struct rtnl_link_ops *ops = dev->rtnl_link_ops;
	struct nlattr *tb[IFLA_GENEVE_MAX + 1];
	struct sk_buff *skb;

	e->kind = KBLOOM_XLATE_GENEVE;
	e->families = 0;
	e->outers = 0;
	if (!ops->fill_info || !ops->get_size)
		return;
	skb = alloc_skb(ops->get_size(dev), GFP_KERNEL);
	if (!skb)
		return;
	if (ops->fill_info(skb, dev) ||
	    nla_parse_deprecated(tb, IFLA_GENEVE_MAX,
				 (struct nlattr *)skb->data, skb->len,
				 kb_geneve_policy, NULL) ||
	    !tb[IFLA_GENEVE_ID] || !tb[IFLA_GENEVE_PORT])
		goto out;
	e->key = cpu_to_be32(nla_get_u32(tb[IFLA_GENEVE_ID]));
	e->port = nla_get_be16(tb[IFLA_GENEVE_PORT]);
	e->any = !!tb[IFLA_GENEVE_COLLECT_METADATA];
	e->families = BIT(4) | BIT(6);
	if (tb[IFLA_GENEVE_REMOTE]) {
		e->remote = nla_get_in_addr(tb[IFLA_GENEVE_REMOTE]);
		/* A group: packets come from any of its members. */
		if (ipv4_is_multicast(e->remote))
			e->remote = 0;
		e->outers = BIT(4);
	} else if (tb[IFLA_GENEVE_REMOTE6]) {
		e->remote6 = nla_get_in6_addr(tb[IFLA_GENEVE_REMOTE6]);
		if (ipv6_addr_is_multicast(&e->remote6))
			e->remote6 = in6addr_any;
		e->outers = BIT(6);
	} else if (e->any) {
		e->outers = BIT(4) | BIT(6);
	}
out:
	kfree_skb(skb);
}

static void kb_vxlan_end_of(const struct net_device *dev,
			    struct kb_tun_end *e)
{
	const struct vxlan_dev *vx = netdev_priv(dev);

	e->kind = KBLOOM_XLATE_VXLAN;
	e->families = BIT(4) | BIT(6);
	e->key = vx->cfg.vni;
	e->port = vx->cfg.dst_port;
	e->any = vx->cfg.flags & VXLAN_F_COLLECT_METADATA;
	/* collect_md opens both sockets, as vxlan_open() does. */
	e->outers = e->any ? BIT(4) | BIT(6) :
		    vx->cfg.flags & VXLAN_F_IPV6 ? BIT(6) : BIT(4);
	if (e->outers == BIT(6)) {
		e->local6 = vx->cfg.saddr.sin6.sin6_addr;
		e->remote6 = vx->cfg.remote_ip.sin6.sin6_addr;
		/* A group: packets come from any of its members. */
		if (ipv6_addr_is_multicast(&e->remote6))
			e->remote6 = in6addr_any;
		return;
	}
	e->local = vx->cfg.saddr.sin.sin_addr.s_addr;
	e->remote = vx->cfg.remote_ip.sin.sin_addr.s_addr;
	if (ipv4_is_multicast(e->remote))
		e->remote = 0;
}

static void kb_tun6_end_of(const struct net_device *dev, u8 kind,
			   struct kb_tun_end *e)
{
	const struct ip6_tnl *t = netdev_priv(dev);

	e->kind = kind;
	/* ip6tnl's mode: ipip6 (IPv4), ip6ip6 (IPv6), any (0); ip6gre: both. */
	e->families = kind & KBLOOM_XLATE_GRE ? BIT(4) | BIT(6) :
		      t->parms.proto == IPPROTO_IPIP ? BIT(4) :
		      t->parms.proto == IPPROTO_IPV6 ? BIT(6) : BIT(4) | BIT(6);
	e->local6 = t->parms.laddr;
	e->remote6 = t->parms.raddr;
	e->any = t->parms.collect_md;
	if ((kind & KBLOOM_XLATE_GRE) && kb_tunnel_keyed(t)) {
		e->kind |= KBLOOM_XLATE_GRE_KEY;
		e->key = t->parms.i_key;
	}
}

static void kb_tun_end_of(const struct net_device *dev, u8 kind,
			  struct kb_tun_end *e)
{
	const struct ip_tunnel *t;

	if (kind == KBLOOM_XLATE_VXLAN)
		return kb_vxlan_end_of(dev, e);
	if (kind == KBLOOM_XLATE_GENEVE)
		return kb_geneve_end_of(dev, e);
	if (kind & KBLOOM_XLATE_OUTER6)
		return kb_tun6_end_of(dev, kind, e);
	t = netdev_priv(dev);
	/* gre: IPv4 and IPv6 (its protocol); ipip: IPv4 */
	e->families = kind == KBLOOM_XLATE_GRE ? BIT(4) | BIT(6) : BIT(4);
	/* sit's mode: ip6ip (IPv6), ipip, any (0) */
	if (!strcmp(dev->rtnl_link_ops->kind, "sit"))
		e->families = t->parms.iph.protocol == IPPROTO_IPV6 ? BIT(6) :
			      t->parms.iph.protocol ? BIT(4) :
			      BIT(4) | BIT(6);
	e->local = t->parms.iph.saddr;
	e->remote = t->parms.iph.daddr;
	e->kind = kind;
	e->any = t->collect_md;
	e->key = 0;
	if (kind == KBLOOM_XLATE_GRE && kb_tunnel_keyed(t)) {
		e->kind |= KBLOOM_XLATE_GRE_KEY;
		e->key = t->parms.i_key;
	}
}

/* Under RTNL: @net's list again, from its devices of now. */
static void kb_tun_rebuild(struct net *net)
{
	struct kb_tun_net *tn = net_generic(net, kb_tun_net_id);
	struct kb_tun_ends *ends = NULL, *old;
	struct net_device *dev;
	u32 n = 0;
	u8 kind;

	ASSERT_RTNL();
	for_each_netdev(net, dev)
		n += (dev->flags & IFF_UP) && kb_tunnel_kind(dev);
	if (n) {
		ends = kzalloc(struct_size(ends, e, n), GFP_KERNEL);
		/*
		 * Without memory the old list stays: a device that went down
		 * is still counted, one that came up is not (records of its
		 * packets are not kept until the next change).
		 */
		if (!ends)
			return;
		for_each_netdev(net, dev) {
			kind = kb_tunnel_kind(dev);
			if ((dev->flags & IFF_UP) && kind && ends->n < n)
				kb_tun_end_of(dev, kind, &ends->e[ends->n++]);
		}
	}
	old = rtnl_dereference(tn->ends);
	rcu_assign_pointer(tn->ends, ends);
	if (old)
		kfree_rcu(old, rcu);
}

static int kb_tun_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (!kb_tunnel_kind(dev))
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UNREGISTER:
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		kb_tun_rebuild(dev_net(dev));
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kb_tun_notifier = {
	.notifier_call = kb_tun_event,
};

/* Whether @e's addresses take the outer packet of @rec (@th: over IPv6). */
static bool kb_tun_end_addrs(const struct kb_tun_end *e,
			     const struct kbloom_xlate *rec,
			     const struct kb_xlate_extra *th)
{
	if (rec->kind & KBLOOM_XLATE_OUTER6)
		return (ipv6_addr_any(&e->local6) ||
			ipv6_addr_equal(&e->local6, &th->dst6)) &&
		       (ipv6_addr_any(&e->remote6) ||
			ipv6_addr_equal(&e->remote6, &th->src6));
	return (!e->local || e->local == rec->before_dst) &&
	       (!e->remote || e->remote == rec->before_src);
}

bool kb_tunnel_takes(const struct net *net, const struct kbloom_xlate *rec,
		     const struct kb_xlate_extra *th)
{
	struct kb_tun_net *tn = net_generic(net, kb_tun_net_id);
	const struct kb_tun_ends *ends = rcu_dereference(tn->ends);
	/* GRE's key bit too: keyed GRE, and GENEVE apart from VXLAN. */
	const u8 mask = KBLOOM_XLATE_IPIP | KBLOOM_XLATE_GRE |
			KBLOOM_XLATE_GRE_KEY | KBLOOM_XLATE_OUTER6;
	u8 kind = rec->kind & mask, tun = kind & ~KBLOOM_XLATE_OUTER6;
	u8 outer = kind & KBLOOM_XLATE_OUTER6 ? BIT(6) : BIT(4);
	/*
	 * VXLAN, GENEVE: matched by their port (FIRST's second half), over
	 * the families their device has sockets of.
	 */
	bool udp = tun == KBLOOM_XLATE_VXLAN || tun == KBLOOM_XLATE_GENEVE;
	/* GRE's key, VXLAN's and GENEVE's VNI. */
	bool keyed = udp || (kind & KBLOOM_XLATE_GRE_KEY);
	__be32 key = th->key;
	u32 i;

	for (i = 0; ends && i < ends->n; i++) {
		const struct kb_tun_end *e = &ends->e[i];

		if ((e->kind & mask) != (udp ? tun : kind) ||
		    !(e->families & BIT(rec->family)))
			continue;
		if (udp && (e->port != ((const __be16 *)&rec->first)[1] ||
			    !(e->outers & outer)))
			continue;
		if (e->any)
			return true;
		if (kb_tun_end_addrs(e, rec, th) && (!keyed || e->key == key))
			return true;
	}
	return false;
}

static void __net_exit kb_tun_net_exit(struct net *net)
{
	struct kb_tun_net *tn = net_generic(net, kb_tun_net_id);
	struct kb_tun_ends *old = rcu_replace_pointer(tn->ends, NULL, true);

	/* Its devices are gone (or moved) by now; a reader may still look. */
	if (old)
		kfree_rcu(old, rcu);
}

static struct pernet_operations kb_tun_net_ops = {
	.exit = kb_tun_net_exit,
	.id = &kb_tun_net_id,
	.size = sizeof(struct kb_tun_net),
};

int kb_tunnel_ends_init(void)
{
	int err = register_pernet_subsys(&kb_tun_net_ops);

	if (err)
		return err;
	/* Replays NETDEV_REGISTER (and UP) for the devices already there. */
	err = register_netdevice_notifier(&kb_tun_notifier);
	if (err)
		unregister_pernet_subsys(&kb_tun_net_ops);
	return err;
}

void kb_tunnel_ends_exit(void)
{
	unregister_netdevice_notifier(&kb_tun_notifier);
	unregister_pernet_subsys(&kb_tun_net_ops);
}
