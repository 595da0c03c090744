// SPDX-License-Identifier: GPL-2.0
/*
 * Filters attached to netfilter hooks: the packet path of kbloom.
 *
 * The hook runs under RCU with softirqs or preemption disabled; it reads at
 * most KB_DIGEST_SPAN header bytes (skb_header_pointer: no copy when they
 * are linear), digests them, and hands the digest to its CPU's queue
 * (digest_queue.c), which adds it to the current window with the engine's
 * atomic cell updates a few packets later; multi digests are added at
 * once. It counts per CPU. Nothing allocates, locks or sleeps. An
 * attachment is freed only a grace period after nf_unregister_net_hook():
 * that takes the hook out of the list but does not wait for the calls in
 * flight on other CPUs, which still read the attachment (and its queues).
 */
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter_netdev.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <net/genetlink.h>

#include "arrival.h"
#include "attach.h"
#include "bypass.h"
#include "digest_queue.h"
#include "engine/digest.h"
#include "engine/xlate.h"
#include "kcompat.h"
#include "registry.h"
#include "stateless.h"
#include "transforms.h"
#include "tunnel_ends.h"
#include "tunnel_gso.h"

struct kb_attach_pcpu {
	u64 seen;
	u64 digested;
	u64 skipped[KBLOOM_SKIP_MAX + 1];
};

struct kb_attach {
	struct net *net;		/* the filter's; it outlives us */
	struct kb_obj *obj;
	u32 hook;			/* enum kbloom_hook */
	u32 family;			/* enum kbloom_family */
	u32 digest;			/* enum kbloom_digest */
	int ifindex;			/* 0: every device */
	char ifname[IFNAMSIZ];		/* under kb_net.lock (renames) */
	bool out_dev;			/* match the output device */
	/*
	 * INGRESS and EGRESS: the device whose hooks these are (ops.dev). No
	 * reference is held: its NETDEV_UNREGISTER detaches us first
	 * (kb_attach_dev_gone()), as nf_tables does for its netdev chains.
	 */
	struct net_device *dev;
	struct kb_attach_pcpu __percpu *stats;
	struct kb_dq *dq;		/* NULL for multi digests */
	/* A transforms table's: the last packet each CPU saw arrive. */
	struct kb_arrived __percpu *arrived;
	unsigned int nops;
	struct nf_hook_ops ops[6];	/* IPv4, IPv6; transforms: 6 */
};

static const unsigned int kb_nf_hook[] = {
	[KBLOOM_HOOK_PREROUTING] = NF_INET_PRE_ROUTING,
	[KBLOOM_HOOK_INPUT] = NF_INET_LOCAL_IN,
	[KBLOOM_HOOK_FORWARD] = NF_INET_FORWARD,
	[KBLOOM_HOOK_OUTPUT] = NF_INET_LOCAL_OUT,
	[KBLOOM_HOOK_POSTROUTING] = NF_INET_POST_ROUTING,
	[KBLOOM_HOOK_INGRESS] = NF_NETDEV_INGRESS,
	[KBLOOM_HOOK_EGRESS] = NF_NETDEV_EGRESS,
	[KBLOOM_HOOK_BRIDGE_FORWARD] = NF_BR_FORWARD,
};

static bool kb_hook_netdev(u32 hook)
{
	return hook == KBLOOM_HOOK_INGRESS || hook == KBLOOM_HOOK_EGRESS;
}

/* Hooks that see link layer frames (kb_hook_dev()), one registration. */
static bool kb_hook_frames(u32 hook)
{
	return kb_hook_netdev(hook) || hook == KBLOOM_HOOK_BRIDGE_FORWARD;
}

/*
 * A checksum the offload has yet to fill in (CHECKSUM_PARTIAL: sent here,
 * or forwarded from a veth or virtio device) holds the pseudo-header's
 * sum; the wire will carry the checksum, and so must the digest when the
 * field is among its bytes (UDP's, in SPIE's first 8 of the payload).
 * Computed as skb_checksum_help() would, into @buf only: the packet is
 * not touched, and its offload stays. A GSO packet's checksums are its
 * segments' (TCP's lie past the digested bytes; UDP's are summed per
 * datagram: kb_udp_seg_csum()).
 */
static const u8 *kb_skb_wire_csum(const struct sk_buff *skb, int off,
				  const u8 *p, u8 *buf, u32 cap)
{
	int start = skb_checksum_start_offset(skb);
	int at = start + skb->csum_offset - off;
	__sum16 sum;

	/* Only SPIE's 8 bytes of the transport header hold one (UDP's). */
	if (skb->csum_offset + sizeof(sum) > 8 || start < 0 || at < 0 ||
	    (u32)at + sizeof(sum) > cap || (u32)start >= skb->len)
		return p;
	sum = csum_fold(skb_checksum(skb, start, skb->len - start, 0));
	if (p != buf)
		memcpy(buf, p, cap);
	sum = sum ?: CSUM_MANGLED_0;
	memcpy(buf + at, &sum, sizeof(sum));
	return buf;
}

/*
 * The first header bytes of @skb from its network header; NULL: none.
 * @csum: the digest covers a UDP checksum (spie): complete an offload's.
 */
static const u8 *kb_skb_head(const struct sk_buff *skb, u8 *buf, u32 *cap,
			     u32 *len, bool csum)
{
	int off = skb_network_offset(skb);
	const u8 *p;

	if (off < 0 || skb->len <= off)
		return NULL;
	*len = skb->len - off;
	*cap = min_t(u32, *len, KB_DIGEST_SPAN);
	p = skb_header_pointer(skb, off, *cap, buf);
	if (p && csum && skb->ip_summed == CHECKSUM_PARTIAL && !skb_is_gso(skb))
		p = kb_skb_wire_csum(skb, off, p, buf, *cap);
	return p;
}

u32 kb_digest_skb(const struct sk_buff *skb, u32 mode, struct kb_digest *out)
{
	u8 buf[KB_DIGEST_SPAN];
	const u8 *p;
	u32 cap, len;

	p = kb_skb_head(skb, buf, &cap, &len, mode == KBLOOM_DIGEST_SPIE);
	return p ? kb_digest(p, cap, mode, out) : KBLOOM_SKIP_SHORT;
}

static __always_inline void kb_record(struct kb_attach *att,
				      const struct kb_digest *d)
{
	if (likely(att->dq)) {
		kb_dq_put(att->dq, d->key, d->len);
	} else {
		struct kb_window *w = kb_window_cur(&att->obj->ring);
		struct kb_tuple t = { .mask = BIT(KB_DIGEST_DIMS) - 1 };
		int i;

		for (i = 0; i < KB_DIGEST_DIMS; i++) {
			t.val[i] = d->key + d->dim_off[i];
			t.len[i] = d->dim_len[i];
		}
		kb_filter_add_tuple(&w->filter, &t);
		kb_window_count(w, 1);
	}
	this_cpu_inc(att->obj->stats->hooked);
	this_cpu_inc(att->stats->digested);
}

/*
 * The UDP checksum of datagram @seg of UDP GSO packet @skb (its UDP
 * header @l4 bytes past the network header, whose first bytes are @p): as
 * segmentation (__udp_gso_segment(), or the NIC) computes it over the
 * datagram it makes, with its length; 0 is sent as 0xffff.
 */
static u16 kb_udp_seg_csum(const struct sk_buff *skb, const u8 *p, u32 l4,
			   u32 seg, u32 seglen)
{
	u32 gso = skb_shinfo(skb)->gso_size;
	int off = skb_network_offset(skb) + l4 + 8 + seg * gso;
	u8 uh[8] = { p[l4], p[l4 + 1], p[l4 + 2], p[l4 + 3],	/* ports */
		     (8 + seglen) >> 8, (8 + seglen) & 0xff };	/* check 0 */
	struct in6_addr saddr, daddr;	/* IPv4's in the first word */
	__wsum c;
	__sum16 s;

	c = csum_partial(uh, sizeof(uh), skb_checksum(skb, off, seglen, 0));
	if (p[0] >> 4 == 4) {
		memcpy(&saddr, p + 12, 4);
		memcpy(&daddr, p + 16, 4);
		s = csum_tcpudp_magic(saddr.s6_addr32[0], daddr.s6_addr32[0],
				      8 + seglen, IPPROTO_UDP, c);
	} else {
		memcpy(&saddr, p + 8, sizeof(saddr));
		memcpy(&daddr, p + 24, sizeof(daddr));
		s = csum_ipv6_magic(&saddr, &daddr, 8 + seglen, IPPROTO_UDP, c);
	}
	return be16_to_cpu((__force __be16)(s ?: CSUM_MANGLED_0));
}

/*
 * A UDP GSO packet (UDP_SEGMENT) counts as the datagrams it will be. One
 * of UDP GRO's fraglist kind is resent as the packets it was made of,
 * which its head does not describe: skipped (gso).
 */
static u32 kb_record_udp_gso(struct kb_attach *att, const struct sk_buff *skb,
			     const u8 *p, u32 cap, u32 len)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	u32 i, n, l4 = 0, why, seglen;
	struct kb_digest d;
	u16 csum = 0;

	if (si->gso_type & SKB_GSO_FRAGLIST)
		return KBLOOM_SKIP_GSO;
	n = kb_digest_udp_segments(p, cap, len, si->gso_size, &l4);
	if (!n)
		return KBLOOM_SKIP_GSO;
	for (i = 0; i < n; i++) {
		seglen = min_t(u32, si->gso_size,
			       len - l4 - 8 - i * si->gso_size);
		/* Only spie's digest holds it: no sum over the payload else. */
		if (att->digest == KBLOOM_DIGEST_SPIE)
			csum = kb_udp_seg_csum(skb, p, l4, i, seglen);
		why = kb_digest_udp_segment(p, cap, len, att->digest,
					    si->gso_size, i, csum, &d);
		if (why)
			return why;
		kb_record(att, &d);
	}
	return KBLOOM_SKIP_NONE;
}

/*
 * A tunnel's TCP GSO packet counts as the packets it will be on the wire.
 * Past the first, one merged on arrival with outer IDs GRO did not check
 * is also recorded in its unsure form (SPIE's digests cover the ID): the
 * routers before this one may have sent another ID than the one it
 * leaves with, and a trace that finds only this router is told so.
 */
static u32 kb_record_tunnel_segments(struct kb_attach *att,
				     const struct kb_tunnel_gso *t)
{
	struct kb_digest d, u;
	u32 i, n, why;
	bool unsure;

	n = kb_tunnel_segments(t->p, t->cap, t->len, t->inner, t->gso_size);
	if (!n)
		return KBLOOM_SKIP_GSO;
	for (i = 0; i < n; i++) {
		unsure = i && t->unsure && att->digest == KBLOOM_DIGEST_SPIE;
		why = kb_digest_tunnel_segment(t->p, t->cap, t->len, t->inner,
					       att->digest, t->gso_size,
					       t->flags, i, &d,
					       unsure ? &u : NULL);
		if (why)
			return why;
		kb_record(att, &d);
		if (unsure)
			kb_record(att, &u);
	}
	return KBLOOM_SKIP_NONE;
}

/* Records @skb when it is such a packet (*@skip: why not all of it). */
static noinline bool kb_record_tunnel_gso(struct kb_attach *att,
					  const struct sk_buff *skb, u32 *skip)
{
	u8 buf[KB_TUNNEL_SPAN];
	struct kb_tunnel_gso t;

	if (!kb_tunnel_gso(skb, buf, &t))
		return false;
	*skip = kb_record_tunnel_segments(att, &t);
	return true;
}

/* A TCP GSO packet counts as the segments it will be on the wire. */
static u32 kb_record_gso(struct kb_attach *att, const struct sk_buff *skb,
			 const u8 *p, u32 cap, u32 len)
{
	const struct skb_shared_info *si = skb_shinfo(skb);
	struct kb_digest d;
	u32 i, n, why;

	if (skb->encapsulation && kb_record_tunnel_gso(att, skb, &why))
		return why;
	if (si->gso_type & SKB_GSO_UDP_L4)
		return kb_record_udp_gso(att, skb, p, cap, len);
	if (!(si->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)))
		return KBLOOM_SKIP_GSO;
	n = kb_digest_tcp_segments(p, cap, len, si->gso_size);
	if (!n)
		return KBLOOM_SKIP_GSO;
	for (i = 0; i < n; i++) {
		why = kb_digest_tcp_segment(p, cap, len, att->digest,
					    si->gso_size,
					    si->gso_type & SKB_GSO_TCP_FIXEDID,
					    i, &d);
		if (why)
			return why;
		kb_record(att, &d);
	}
	return KBLOOM_SKIP_NONE;
}

/* A packet that reached the hook and matched its device and family. */
static __always_inline void kb_hook_packet(struct kb_attach *att,
					   const struct sk_buff *skb)
{
	/* Filled before use: no zeroing per packet (INIT_STACK_ALL_ZERO). */
	u8 buf[KB_DIGEST_SPAN] __uninitialized;
	struct kb_digest d __uninitialized;
	u32 cap, len, why;
	const u8 *p;

	this_cpu_inc(att->stats->seen);

	p = kb_skb_head(skb, buf, &cap, &len,
			att->digest == KBLOOM_DIGEST_SPIE);
	if (!p) {
		why = KBLOOM_SKIP_SHORT;
	} else if (skb_is_gso(skb)) {
		why = kb_record_gso(att, skb, p, cap, len);
	} else {
		why = kb_digest_packet(p, cap, att->digest, &d);
		if (!why)
			kb_record(att, &d);
	}
	if (why)
		this_cpu_inc(att->stats->skipped[why]);
}

static unsigned int kb_hook(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct kb_attach *att = priv;

	if (att->ifindex) {
		const struct net_device *dev = att->out_dev ? state->out :
							      state->in;

		if (!dev || dev->ifindex != att->ifindex)
			return NF_ACCEPT;
	}
	kb_hook_packet(att, skb);
	return NF_ACCEPT;
}

/*
 * The netdev family's hooks (INGRESS, EGRESS) of one device see frames of
 * every protocol: only IPv4 and IPv6 ones, by their ethertype, are the
 * attachment's. The network header is where the IP hooks find it: at
 * ingress skb->data is there (skb_network_offset() 0, the receive path
 * reset it after the link layer header was pulled); at egress the link
 * layer header was pushed in front of it and the network header still
 * marks the IP header (skb_network_offset() is the link header's
 * length). A GRO super-packet at ingress (and a GSO one at egress) is a
 * TCP GSO packet to kb_hook_packet(), cut into its segments as at the IP
 * hooks.
 */
static unsigned int kb_hook_dev(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	struct kb_attach *att = priv;
	__be16 proto = skb->protocol;
	u32 family;

	/* The bridge's forward hook: frames of every port, or its in port. */
	if (att->ifindex && !att->dev &&
	    (!state->in || state->in->ifindex != att->ifindex))
		return NF_ACCEPT;
	/*
	 * A VLAN device's frame on a device without VLAN transmit offload
	 * carries its tag in the frame: at egress (skb->data at the link
	 * header, the network header still at the IP header) the type is
	 * the one inside the tags.
	 */
	if (eth_type_vlan(proto) && att->hook == KBLOOM_HOOK_EGRESS)
		proto = vlan_get_protocol(skb);
	switch (proto) {
	case htons(ETH_P_IP):
		family = KBLOOM_FAMILY_IPV4;
		break;
	case htons(ETH_P_IPV6):
		family = KBLOOM_FAMILY_IPV6;
		break;
	default:
		return NF_ACCEPT;
	}
	if (att->family == KBLOOM_FAMILY_ANY || att->family == family)
		kb_hook_packet(att, skb);
	return NF_ACCEPT;
}

/*
 * Puts @rec in the current window: 0, or why not (KBLOOM_SKIP_FULL).
 * Tunnel records (@per_packet), one a packet, take at most half of a
 * window: a flood through a tunnel leaves the NAT and arrival records (one
 * a flow) room.
 */
static u32 kb_xlate_record(struct kb_attach *att, struct kbloom_xlate *rec,
			   bool per_packet)
{
	struct kb_window *w = kb_window_cur(&att->obj->ring);

	if (per_packet &&
	    atomic_read(&w->tunnels) >= (int)(w->filter.s.m / 2))
		return KBLOOM_SKIP_FULL;
	switch (kb_xlate_put(&w->filter, rec)) {
	case KB_XLATE_NEW:
		if (per_packet)
			atomic_inc(&w->tunnels);
		kb_window_count(w, 1);
		this_cpu_inc(att->obj->stats->hooked);
		return 0;
	case KB_XLATE_KNOWN:
		return 0;
	default:
		return KBLOOM_SKIP_FULL;
	}
}

/*
 * A tunnel's packets merged by GRO before decapsulation, @rec the first's
 * tunnel record: the others' outer headers are gone (their IDs, with DF
 * unchecked by GRO), and their inner ones may leave rewritten (6.1's GRO
 * cells take the decapsulated super-packet in again alone and fix its
 * IPv4 IDs to the first's). An arrival record of the inner flow says so.
 */
static noinline u32 kb_xlate_merged(struct kb_attach *att,
				    const struct sk_buff *skb,
				    const struct kbloom_xlate *rec)
{
	u8 buf[KB_TUNNEL_SPAN];
	struct kbloom_xlate arr;
	struct kb_tunnel_gso t;

	if (!kb_tunnel_gso(skb, buf, &t))
		return 0;
	if (kb_xlate_of_merged(&t, rec, &arr))
		return KBLOOM_SKIP_GSO;
	return kb_xlate_record(att, &arr, false);
}

/*
 * The address records of a record over IPv6 (@x's addresses, those of
 * its addrs6), before it: a reader that finds it finds them. A tunnel's
 * (@per_packet) count as its records do (at most half a window): a flood
 * from forged addresses leaves the NAT and arrival records room.
 */
static u32 kb_xlate_addrs6(struct kb_attach *att,
			   const struct kb_xlate_extra *x, bool per_packet)
{
	const struct in6_addr *a[] = { &x->src6, &x->dst6, &x->asrc6,
				       &x->adst6 };
	struct kbloom_xlate addr;
	u32 why = 0, i;

	for (i = 0; i < ARRAY_SIZE(a) && !why; i++) {
		if (!(x->addrs6 & BIT(i)))
			continue;
		kb_xlate_addr6(a[i]->s6_addr, &addr);
		why = kb_xlate_record(att, &addr, per_packet);
	}
	return why;
}

/*
 * Whether @skb, leaving, is the packet this CPU last saw arrive (in @a,
 * as it was). The note is taken either way.
 */
static bool kb_xlate_arrived(struct kb_attach *att, const struct sk_buff *skb,
			     struct kb_arrived *a)
{
	bool ours = kb_arrived_take(skb, get_cpu_ptr(att->arrived), a);

	put_cpu_ptr(att->arrived);
	return ours;
}

/*
 * A transforms table's hooks: at POSTROUTING one record per NAT'ed flow
 * direction and window (a packet of a flow already recorded writes
 * nothing), conntrack's NAT or a stateless rewrite since PREROUTING,
 * and one per flow direction that came out of IPsec or a
 * tunnel device no record undoes; at LOCAL_IN one per IPIP, GRE, VXLAN or
 * GENEVE packet to decapsulate (over IPv6, with its outer addresses'
 * records, and VXLAN's and GENEVE's UDP checksum in a more record, as
 * GENEVE's options' length).
 */
static unsigned int kb_hook_xlate(void *priv, struct sk_buff *skb,
				  const struct nf_hook_state *state)
{
	bool post = state->hook == NF_INET_POST_ROUTING, arrived = false;
	const struct net_device *dev = post ? state->out : state->in;
	struct kb_attach *att = priv;
	struct kb_xlate_extra th;
	struct kbloom_xlate rec;
	struct kb_arrived a;
	u32 why, arr;

	if (state->hook == NF_INET_PRE_ROUTING) {
		kb_arrived_note(skb, get_cpu_ptr(att->arrived));
		put_cpu_ptr(att->arrived);
		return NF_ACCEPT;
	}
	if (post)
		arrived = kb_xlate_arrived(att, skb, &a);
	if (att->ifindex && (!dev || dev->ifindex != att->ifindex))
		return NF_ACCEPT;
	this_cpu_inc(att->stats->seen);
	why = post ? kb_xlate_of_skb(skb, &rec, &th) :
		     kb_xlate_of_tunnel(skb, &rec, &th);
	if (why == KBLOOM_SKIP_UNTRANSFORMED && arrived)
		why = kb_xlate_of_stateless(skb, &a, &rec, &th);
	/* Only what a tunnel device here will decapsulate: no outsider's. */
	if (!why && !post && !kb_tunnel_takes(state->net, &rec, &th))
		why = KBLOOM_SKIP_UNTRANSFORMED;
	if (!why && th.addrs6)
		why = kb_xlate_addrs6(att, &th, !post);
	/* Before its tunnel record too: a reader that finds one finds both. */
	if (!why && !post && kb_xlate_has_more(rec.kind)) {
		struct kbloom_xlate more;

		kb_xlate_more(&rec, th.more_sport, th.more_dport, &more);
		why = kb_xlate_record(att, &more, true);
	}
	if (!why)
		why = kb_xlate_record(att, &rec, !post);
	/* The other packets GRO merged into it (the first's record is made). */
	if (!why && !post && skb->encapsulation)
		why = kb_xlate_merged(att, skb, &rec);
	/* NAT'ed or not, what it came out of: before it, another packet. */
	if (post && !kb_xlate_of_arrival(state->net, skb, &rec)) {
		arr = kb_xlate_record(att, &rec, false);
		if (why == KBLOOM_SKIP_UNTRANSFORMED || arr)
			why = arr;
	}
	if (why)
		this_cpu_inc(att->stats->skipped[why]);
	else
		this_cpu_inc(att->stats->digested);
	return NF_ACCEPT;
}

/* Takes @att's hooks out: no new call; those in flight may go on. */
static void kb_unhook_att(struct kb_attach *att)
{
	while (att->nops)
		nf_unregister_net_hook(att->net, &att->ops[--att->nops]);
}

static int kb_attach_ops(struct kb_attach *att)
{
	static const u8 pfs[] = { NFPROTO_IPV4, NFPROTO_IPV6 };
	/*
	 * Transforms: NAT and arrivals after NAT happened, tunnels before
	 * decapsulation; the packet as it arrived, after defragmentation
	 * (whole, as conntrack sees it), before raw, conntrack, mangle (NPT)
	 * and NAT.
	 */
	static const struct {
		u8 pf;
		u8 family;
		unsigned int hooknum;
		int priority;
	} xlate_hooks[] = {
		{ NFPROTO_IPV4, KBLOOM_FAMILY_IPV4, NF_INET_POST_ROUTING,
		  NF_IP_PRI_LAST },
		{ NFPROTO_IPV4, KBLOOM_FAMILY_IPV4, NF_INET_LOCAL_IN,
		  NF_IP_PRI_LAST },
		{ NFPROTO_IPV4, KBLOOM_FAMILY_IPV4, NF_INET_PRE_ROUTING,
		  NF_IP_PRI_CONNTRACK_DEFRAG + 1 },
		{ NFPROTO_IPV6, KBLOOM_FAMILY_IPV6, NF_INET_POST_ROUTING,
		  NF_IP6_PRI_LAST },
		{ NFPROTO_IPV6, KBLOOM_FAMILY_IPV6, NF_INET_LOCAL_IN,
		  NF_IP6_PRI_LAST },
		{ NFPROTO_IPV6, KBLOOM_FAMILY_IPV6, NF_INET_PRE_ROUTING,
		  NF_IP6_PRI_CONNTRACK_DEFRAG + 1 },
	};
	bool xlate = !kb_filter_keyed(kb_ring_shape(&att->obj->ring));
	unsigned int i, n = xlate ? ARRAY_SIZE(xlate_hooks) : ARRAY_SIZE(pfs);
	int err;

	if (kb_hook_frames(att->hook)) {
		struct nf_hook_ops *ops = &att->ops[0];

		ops->hook = kb_hook_dev;
		ops->priv = att;
		ops->pf = NFPROTO_NETDEV;
		ops->hooknum = kb_nf_hook[att->hook];
		ops->dev = att->dev;
		/*
		 * First of the device's hooks: a flowtable's hook is at the
		 * priority its nftables ruleset gives (commonly filter, 0,
		 * or any value down to INT_MIN + 1), and the packets it
		 * forwards leave the device's ingress there. At INT_MIN we
		 * run before all of them; only a hook also at INT_MIN that
		 * was registered before us would come first (equal
		 * priorities keep their order of registration).
		 */
		ops->priority = INT_MIN;
		/* The bridge's: first of its forward hooks (NF_BR_PRI_FIRST). */
		if (att->hook == KBLOOM_HOOK_BRIDGE_FORWARD) {
			ops->pf = NFPROTO_BRIDGE;
			ops->dev = NULL;
		}
		err = nf_register_net_hook(att->net, ops);
		if (err)
			return err;
		att->nops = 1;
		return 0;
	}
	for (i = 0; i < n; i++) {
		struct nf_hook_ops *ops = &att->ops[att->nops];

		if (att->family != KBLOOM_FAMILY_ANY &&
		    att->family != (xlate ? xlate_hooks[i].family : i + 1))
			continue;
		ops->priv = att;
		if (xlate) {
			ops->hook = kb_hook_xlate;
			ops->pf = xlate_hooks[i].pf;
			ops->hooknum = xlate_hooks[i].hooknum;
			/* After NAT; at LOCAL_IN, before the tunnel's handler. */
			ops->priority = xlate_hooks[i].priority;
		} else {
			ops->hook = kb_hook;
			ops->pf = pfs[i];
			ops->hooknum = kb_nf_hook[att->hook];
			/* As on the wire: before defrag, or last on the way out. */
			ops->priority = att->hook == KBLOOM_HOOK_POSTROUTING ?
					NF_IP_PRI_LAST : NF_IP_PRI_RAW_BEFORE_DEFRAG;
		}
		err = nf_register_net_hook(att->net, ops);
		if (err) {
			kb_unhook_att(att);
			/* The first may have seen packets: let them finish. */
			synchronize_net();
			return err;
		}
		att->nops++;
	}
	return 0;
}

/* Readers and rotations drain the queues from the moment they exist. */
static void kb_attach_set_dq(struct kb_obj *obj, struct kb_dq *dq)
{
	kb_ring_lock(&obj->ring);
	obj->ring.drain = kb_dq_drain;
	WRITE_ONCE(obj->ring.dq, dq);	/* kb_query() peeks without locks */
	kb_ring_unlock(&obj->ring);
}

/* After the hooks are gone: the digests still queued go in, then all. */
static void kb_attach_free(struct kb_attach *att)
{
	if (att->dq) {
		kb_attach_set_dq(att->obj, NULL);
		kb_dq_free(att->dq);
	}
	free_percpu(att->arrived);
	free_percpu(att->stats);
	kfree(att);
}

int kb_attach(struct net *net, struct kb_obj *obj,
	      const struct kb_attach_args *args, struct netlink_ext_ack *extack)
{
	const struct kb_filter *f = kb_ring_shape(&obj->ring);
	bool multi = args->digest == KBLOOM_DIGEST_MULTI;
	struct kb_attach *att;
	int err;

	if (obj->attach && args->exist_ok) {
		const struct kb_attach *old = obj->attach;

		if (old->hook != args->hook) {
			NL_SET_ERR_MSG(extack, "filter is attached already, at another HOOK");
			return -EBUSY;
		}
		if (old->family != args->family) {
			NL_SET_ERR_MSG(extack, "filter is attached already, for another FAMILY");
			return -EBUSY;
		}
		if (old->digest != args->digest) {
			NL_SET_ERR_MSG(extack, "filter is attached already, with another DIGEST");
			return -EBUSY;
		}
		if (strcmp(old->ifname, args->ifname ? args->ifname : "")) {
			NL_SET_ERR_MSG(extack, "filter is attached already, to another IFNAME");
			return -EBUSY;
		}
		return 0;	/* this very attachment: nothing changes */
	}
	if (obj->attach) {
		NL_SET_ERR_MSG(extack, "filter is attached already; DETACH it first");
		return -EBUSY;
	}
	if (!kb_filter_keyed(f)) {
		if (args->digest) {
			NL_SET_ERR_MSG(extack, "a transforms table takes no DIGEST");
			return -EINVAL;
		}
		if (args->hook != KBLOOM_HOOK_POSTROUTING) {
			NL_SET_ERR_MSG(extack,
				       "a transforms table records at HOOK postrouting, after NAT");
			return -EINVAL;
		}
	} else if (!args->digest) {
		NL_SET_ERR_MSG(extack, "missing attribute DIGEST (the digest mode)");
		return -EINVAL;
	} else if (multi != kb_filter_is_multi(f) ||
		   (multi && f->s.dims != KB_DIGEST_DIMS)) {
		NL_SET_ERR_MSG(extack,
			       "DIGEST multi needs a multi filter of 3 dimensions (src, dst, dst port); other digests a filter that is not multi");
		return -EINVAL;
	}
	if (kb_hook_netdev(args->hook)) {
		bool ingress = args->hook == KBLOOM_HOOK_INGRESS;

		if (!args->ifname) {
			NL_SET_ERR_MSG(extack,
				       "HOOK ingress and egress need IFNAME: the device whose hook it is");
			return -EINVAL;
		}
		if (ingress && !KB_HAVE_NF_INGRESS) {
			NL_SET_ERR_MSG(extack,
				       "this kernel has no netfilter ingress hook (CONFIG_NETFILTER_INGRESS)");
			return -EOPNOTSUPP;
		}
		if (!ingress && !KB_HAVE_NF_EGRESS) {
			NL_SET_ERR_MSG(extack,
				       "this kernel has no netfilter egress hook (CONFIG_NETFILTER_EGRESS)");
			return -EOPNOTSUPP;
		}
	}
	if (args->hook == KBLOOM_HOOK_BRIDGE_FORWARD && !KB_HAVE_NF_BRIDGE) {
		NL_SET_ERR_MSG(extack,
			       "this kernel has no bridge netfilter hooks (CONFIG_NETFILTER_FAMILY_BRIDGE: nf_tables' bridge tables, ebtables or br_netfilter select it)");
		return -EOPNOTSUPP;
	}

	att = kzalloc(sizeof(*att), GFP_KERNEL_ACCOUNT);
	if (!att)
		return -ENOMEM;
	att->stats = alloc_percpu_gfp(struct kb_attach_pcpu, GFP_KERNEL_ACCOUNT);
	if (!att->stats) {
		kfree(att);
		return -ENOMEM;
	}
	att->obj = obj;
	if (!kb_filter_keyed(f)) {
		att->arrived = alloc_percpu_gfp(struct kb_arrived,
						GFP_KERNEL_ACCOUNT);
		if (!att->arrived) {
			kb_attach_free(att);
			return -ENOMEM;
		}
	}
	if (kb_filter_keyed(f) && !multi) {
		att->dq = kb_dq_new(&obj->ring);
		if (!att->dq) {
			kb_attach_free(att);
			return -ENOMEM;
		}
		kb_attach_set_dq(obj, att->dq);
	}
	att->net = net;
	att->hook = args->hook;
	att->family = args->family;
	att->digest = args->digest;
	att->out_dev = args->hook == KBLOOM_HOOK_OUTPUT ||
		       args->hook == KBLOOM_HOOK_POSTROUTING;
	if (args->ifname) {
		struct net_device *dev = dev_get_by_name(net, args->ifname);

		if (!dev) {
			NL_SET_ERR_MSG(extack, "no device of that IFNAME in this namespace");
			kb_attach_free(att);
			return -ENODEV;
		}
		att->ifindex = dev->ifindex;
		strscpy(att->ifname, args->ifname, sizeof(att->ifname));
		/*
		 * Found listed under our namespace's lock: its unregistration
		 * has not notified yet (it unlists, waits a grace period,
		 * then notifies), and its notifier waits for this lock, so
		 * it finds the hooks we register (kb_attach_dev_gone()).
		 */
		if (kb_hook_netdev(args->hook))
			att->dev = dev;
		dev_put(dev);
	}

	err = kb_attach_ops(att);
	if (err == -EOPNOTSUPP) {
		NL_SET_ERR_MSG(extack, "netfilter refused the hook: this kernel does not have it");
		kb_attach_free(att);
		return err;
	}
	if (err) {
		NL_SET_ERR_MSG(extack, "netfilter refused the hook");
		kb_attach_free(att);
		return err;
	}
	obj->attach = att;
	return 0;
}

void kb_unhook(struct kb_obj *obj)
{
	if (obj->attach)
		kb_unhook_att(obj->attach);
}

void kb_detach_unhooked(struct kb_obj *obj)
{
	struct kb_attach *att = obj->attach;

	if (!att)
		return;
	WARN_ON_ONCE(att->nops);
	obj->attach = NULL;
	kb_attach_free(att);
}

int kb_detach(struct kb_obj *obj)
{
	if (!obj->attach)
		return -ENOENT;
	kb_unhook(obj);
	/* Every hook call in flight, on any CPU, returns first. */
	synchronize_net();
	kb_detach_unhooked(obj);
	return 0;
}

struct net_device *kb_attach_dev(const struct kb_obj *obj)
{
	return obj->attach ? obj->attach->dev : NULL;
}

u32 kb_attach_hook(const struct kb_obj *obj)
{
	return obj->attach ? obj->attach->hook : KBLOOM_HOOK_UNSPEC;
}

const char *kb_attach_ifname(const struct kb_obj *obj)
{
	return obj->attach ? obj->attach->ifname : "";
}

void kb_attach_renamed(struct kb_obj *obj, const struct net_device *dev)
{
	struct kb_attach *att = obj->attach;

	if (att && att->ifindex == dev->ifindex)
		strscpy(att->ifname, dev->name, sizeof(att->ifname));
}

static void kb_attach_sum(const struct kb_attach *att, struct kb_attach_pcpu *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct kb_attach_pcpu *st = per_cpu_ptr(att->stats, cpu);

		sum->seen += READ_ONCE(st->seen);
		sum->digested += READ_ONCE(st->digested);
		for (i = 0; i <= KBLOOM_SKIP_MAX; i++)
			sum->skipped[i] += READ_ONCE(st->skipped[i]);
	}
}

int kb_attach_fill(struct sk_buff *skb, const struct kb_obj *obj)
{
	const struct kb_attach *att = obj->attach;
	struct kb_attach_pcpu sum;
	struct nlattr *nest, *skipped;
	int i;

	if (!att)
		return 0;
	kb_attach_sum(att, &sum);
	nest = nla_nest_start(skb, KBLOOM_A_ATTACH);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KBLOOM_ATTACH_A_HOOK, att->hook) ||
	    nla_put_u32(skb, KBLOOM_ATTACH_A_FAMILY, att->family) ||
	    nla_put_u32(skb, KBLOOM_ATTACH_A_DIGEST, att->digest) ||
	    (att->ifindex &&
	     nla_put_string(skb, KBLOOM_ATTACH_A_IFNAME, att->ifname)) ||
	    nla_put_u64_64bit(skb, KBLOOM_ATTACH_A_SEEN, sum.seen,
			      KBLOOM_ATTACH_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_ATTACH_A_DIGESTED, sum.digested,
			      KBLOOM_ATTACH_A_PAD) ||
	    nla_put_u32(skb, KBLOOM_ATTACH_A_BYPASS,
			kb_bypass(att->net, att->hook, att->ifindex)))
		goto err;
	skipped = nla_nest_start(skb, KBLOOM_ATTACH_A_SKIPPED);
	if (!skipped)
		goto err;
	for (i = 1; i <= KBLOOM_SKIP_MAX; i++)
		if (nla_put_u64_64bit(skb, i, sum.skipped[i], 0))
			goto err;
	nla_nest_end(skb, skipped);
	nla_nest_end(skb, nest);
	return 0;
err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}
