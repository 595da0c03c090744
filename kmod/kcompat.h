/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels kbloom supports: Debian's 6.1
 * (the oldest; scripts/kver) and 6.12 (scripts/kver 6.12), both built and
 * run by the test tiers. The module's sources use the names here instead of
 * testing versions themselves.
 *
 * What the module uses and is the same on both: the generic netlink family
 * with .ops (not split ops) and .resv_start_op 0 (every command strict),
 * GENL_UNS_ADMIN_PERM, genl_info_net(), the NLA_POLICY_* macros,
 * u64_stats_fetch_begin() (the _irq variants are gone since 6.3),
 * three-argument strscpy(), get_random_u32(), kvzalloc().
 *
 * Versions are read from LINUX_VERSION_MAJOR/PATCHLEVEL (5.14+): this is
 * the one place that tests them.
 */
#ifndef KBLOOM_KCOMPAT_H
#define KBLOOM_KCOMPAT_H

#include <linux/version.h>

#if !defined(LINUX_VERSION_MAJOR) || \
	KERNEL_VERSION(LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL, 0) < \
	KERNEL_VERSION(6, 1, 0)
#error "kbloom needs Linux 6.1 or newer (genl_family.resv_start_op)"
#endif

#define KB_KERNEL_AT_LEAST(maj, min) \
	(KERNEL_VERSION(LINUX_VERSION_MAJOR, LINUX_VERSION_PATCHLEVEL, 0) >= \
	 KERNEL_VERSION(maj, min, 0))

/*
 * The netlink_range_validation an NLA_POLICY_FULL_RANGE() policy points
 * to: struct nla_policy's range pointers are const since 6.7 ("netlink:
 * make range pointers in policies const"), plain pointers in 6.1, where the
 * object must therefore be writable.
 */
#if KB_KERNEL_AT_LEAST(6, 7)
#define KB_NLA_RANGE_CONST const
#else
#define KB_NLA_RANGE_CONST
#endif

/*
 * The parsed request attributes of a dump: genl_dumpit_info carries them
 * as ->attrs in 6.1 and inside a struct genl_info (->info.attrs) in 6.12;
 * the change came with the split ops of 6.2.
 */
#if KB_KERNEL_AT_LEAST(6, 2)
#define kb_dump_attrs(cb) (genl_dumpit_info(cb)->info.attrs)
#else
#define kb_dump_attrs(cb) (genl_dumpit_info(cb)->attrs)
#endif

/*
 * The op a genl family's pre_doit and post_doit are given: struct genl_ops
 * in 6.1, struct genl_split_ops since the split ops of 6.2. Both carry
 * the command's cmd and internal_flags, all kbloom reads of it.
 */
#if KB_KERNEL_AT_LEAST(6, 2)
#define kb_genl_doit_ops genl_split_ops
#else
#define kb_genl_doit_ops genl_ops
#endif

/*
 * A formatted extack message where the kernel has NL_SET_ERR_MSG_FMT (6.12;
 * it came in 6.2), cut at 80 bytes: @fmt must fit with its figures. 6.1
 * keeps only static messages, so it gets @fixed (KBLOOM_CMD_STATUS reports
 * the figures).
 */
#ifdef NL_SET_ERR_MSG_FMT
#define KB_ERR_MSG_FMT(extack, fixed, fmt, args...) \
	NL_SET_ERR_MSG_FMT(extack, fmt, ##args)
#else
#define KB_ERR_MSG_FMT(extack, fixed, fmt, args...) \
	NL_SET_ERR_MSG(extack, fixed)
#endif

/*
 * A static message picked at run time (words from a table, kb_params[]:
 * @msg outlives the request), set and traced as NL_SET_ERR_MSG() sets
 * its literal, which it alone accepts. NL_SET_ERR_MSG_FMT() (6.2 on)
 * would copy it into 80 bytes, and some are longer. Here and nowhere
 * else the field is written.
 */
#define KB_ERR_MSG_STR(extack, msg) do {			\
	struct netlink_ext_ack *__extack = (extack);		\
	const char *__msg = (msg);				\
								\
	do_trace_netlink_extack(__msg);				\
	if (__extack)						\
		__extack->_msg = __msg;				\
} while (0)

/*
 * A vma's flags are changed through vm_flags_set()/vm_flags_clear() since
 * 6.3 (vm_flags became read-only); 6.1 writes the field under the
 * mmap_lock the ->mmap handler holds.
 */
#if !KB_KERNEL_AT_LEAST(6, 3)
#include <linux/mm_types.h>
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * Whether an IPv4 tunnel (struct ip_tunnel) takes keyed packets (GRE's
 * key, RFC 2890): __be16 flags in 6.1, a bitmap since "ip_tunnel:
 * convert __be16 tunnel flags to bitmaps" (6.10).
 */
#if KB_KERNEL_AT_LEAST(6, 10)
#define kb_tunnel_keyed(t) test_bit(IP_TUNNEL_KEY_BIT, (t)->parms.i_flags)
#else
#define kb_tunnel_keyed(t) (!!((t)->parms.i_flags & TUNNEL_KEY))
#endif

/*
 * Multicast to only some of a group's listeners (a filter called per
 * receiving socket): genlmsg_multicast_netns_filtered() is in 6.12 (not
 * in 6.1, whose genl core checks a joiner's capability only in the
 * netns's own user namespace).
 */
#define KB_HAVE_MCAST_FILTERED KB_KERNEL_AT_LEAST(6, 12)

/*
 * The netdev family's hooks are options, not versions: Debian's 6.1 and
 * 6.12 have both (CONFIG_NETFILTER_INGRESS, CONFIG_NETFILTER_EGRESS; the
 * egress hook came in 5.16), the debug kernel neither. Without one,
 * ATTACH at that hook is refused (EOPNOTSUPP), and struct net_device has
 * no nf_hooks_ingress to look for a flowtable's hook in (bypass.c).
 */
#define KB_HAVE_NF_INGRESS IS_ENABLED(CONFIG_NETFILTER_INGRESS)
#define KB_HAVE_NF_EGRESS IS_ENABLED(CONFIG_NETFILTER_EGRESS)
/* The bridge family's hooks (nf_tables' bridge tables, ebtables, ...). */
#define KB_HAVE_NF_BRIDGE IS_ENABLED(CONFIG_NETFILTER_FAMILY_BRIDGE)

#endif /* KBLOOM_KCOMPAT_H */
