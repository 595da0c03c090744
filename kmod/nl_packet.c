// SPDX-License-Identifier: GPL-2.0
/*
 * The packet commands: ATTACH and DETACH a filter to the packet path, and
 * DIGEST, the kernel's digest of given packet bytes.
 */
#include <net/genetlink.h>

#include "attach.h"
#include "engine/digest.h"
#include "netlink.h"
#include "registry.h"

int kb_cmd_attach(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct nlattr **a = info->attrs;
	struct kb_attach_args args = {};
	struct kb_obj *obj;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	/* DIGEST is checked by kb_attach(): transforms tables take none. */
	if (!KB_REQUIRE(info, KBLOOM_A_HOOK))
		return -EINVAL;
	args.hook = nla_get_u32(a[KBLOOM_A_HOOK]);
	args.digest = kb_get_u32(a, KBLOOM_A_DIGEST);
	args.family = kb_get_u32(a, KBLOOM_A_FAMILY);
	if (a[KBLOOM_A_IFNAME])
		args.ifname = nla_data(a[KBLOOM_A_IFNAME]);
	if (kb_get_u32(a, KBLOOM_A_FLAGS) & ~KBLOOM_F_EXIST) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_FLAGS],
				    "ATTACH takes only the flag EXIST");
		return -EINVAL;
	}
	args.exist_ok = kb_get_u32(a, KBLOOM_A_FLAGS) & KBLOOM_F_EXIST;

	obj = kb_find(kb_nl_net(info), info);
	return obj ? kb_attach(net, obj, &args, info->extack) : -ENOENT;
}

int kb_cmd_detach(struct sk_buff *skb, struct genl_info *info)
{
	int err;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	err = kb_detach(kb_nl_obj(info));
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "filter is not attached");
	return err;
}

/*
 * An skb holding @data as a NIC might leave it: @linear bytes in the head,
 * the rest in page fragments.
 */
static struct sk_buff *kb_packet_skb(const u8 *data, u32 len, u32 linear)
{
	struct sk_buff *skb = alloc_skb(linear, GFP_KERNEL);
	u32 off = linear;

	if (!skb)
		return NULL;
	skb_put_data(skb, data, linear);
	skb_reset_network_header(skb);
	while (off < len) {
		u32 chunk = min_t(u32, len - off, PAGE_SIZE);
		struct page *page;

		if (skb_shinfo(skb)->nr_frags == MAX_SKB_FRAGS)
			goto err;
		page = alloc_page(GFP_KERNEL);
		if (!page)
			goto err;
		memcpy(page_address(page), data + off, chunk);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, 0, chunk,
				PAGE_SIZE);
		off += chunk;
	}
	return skb;
err:
	kfree_skb(skb);
	return NULL;
}

static int kb_put_digest(struct sk_buff *msg, u32 mode,
			 const struct kb_digest *d)
{
	struct nlattr *keys, *tuple;
	int i;

	keys = nla_nest_start(msg, KBLOOM_A_KEYS);
	if (!keys)
		return -EMSGSIZE;
	if (mode != KBLOOM_DIGEST_MULTI) {
		if (nla_put(msg, KBLOOM_KEYS_A_KEY, d->len, d->key))
			return -EMSGSIZE;
	} else {
		tuple = nla_nest_start(msg, KBLOOM_KEYS_A_TUPLE);
		if (!tuple)
			return -EMSGSIZE;
		for (i = 0; i < KB_DIGEST_DIMS; i++)
			if (nla_put(msg, i + 1, d->dim_len[i],
				    d->key + d->dim_off[i]))
				return -EMSGSIZE;
		nla_nest_end(msg, tuple);
	}
	nla_nest_end(msg, keys);
	return 0;
}

int kb_cmd_digest(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct sk_buff *pkt, *msg;
	struct kb_digest d;
	u32 len, linear, mode, why;
	void *hdr;

	if (!KB_REQUIRE(info, KBLOOM_A_PACKET, KBLOOM_A_DIGEST))
		return -EINVAL;
	len = nla_len(a[KBLOOM_A_PACKET]);
	linear = a[KBLOOM_A_LINEAR] ? nla_get_u32(a[KBLOOM_A_LINEAR]) : len;
	if (!linear || linear > len) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_LINEAR],
				    "LINEAR must be 1..the length of PACKET");
		return -EINVAL;
	}
	if (DIV_ROUND_UP(len - linear, PAGE_SIZE) > MAX_SKB_FRAGS) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_LINEAR],
				    "LINEAR too small: the rest needs more page fragments than an skb has");
		return -EINVAL;
	}
	mode = nla_get_u32(a[KBLOOM_A_DIGEST]);
	pkt = kb_packet_skb(nla_data(a[KBLOOM_A_PACKET]), len, linear);
	if (!pkt)
		return -ENOMEM;
	why = kb_digest_skb(pkt, mode, &d);
	kfree_skb(pkt);

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kb_family, 0, KBLOOM_CMD_DIGEST);
	if (!hdr || nla_put_u32(msg, KBLOOM_A_DIGEST, mode) ||
	    (why ? nla_put_u32(msg, KBLOOM_A_SKIP, why) :
		   kb_put_digest(msg, mode, &d))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}
