/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kbloom generic netlink family. netlink.c holds the family, its
 * policy and the filter-level commands; the other commands live by concern
 * in nl_*.c and share the helpers below. The protocol is uapi/kbloom.h.
 */
#ifndef KBLOOM_NETLINK_H
#define KBLOOM_NETLINK_H

#include <net/genetlink.h>

#include "nl_base.h"
#include "registry.h"

int kb_netlink_init(void);
void kb_netlink_exit(void);

extern struct genl_family kb_family;

/* Names the first attribute of @types[0..n) that is missing, if any. */
bool kb_require(struct genl_info *info, const int *types, int n);

#define KB_REQUIRE(info, ...) ({					\
	static const int __types[] = { __VA_ARGS__ };			\
	kb_require(info, __types, ARRAY_SIZE(__types));			\
})

/*
 * What the family's pre_doit does before an op's doit, by the op's
 * internal_flags, and post_doit undoes after it: the attributes it needs
 * (checked in this order, the first missing one named in extack), the
 * namespace mutex, and NAME's filter looked up under it. Every doit finds
 * its namespace in kb_nl_net(). Ops that read under RCU take it
 * themselves: what they allocate, before the lookup, may sleep.
 */
enum {
	KB_NL_NAME	= 1 << 0,	/* needs NAME */
	KB_NL_KEYS	= 1 << 1,	/* needs KEYS */
	KB_NL_SRC	= 1 << 2,	/* needs SRC */
	KB_NL_LOCK	= 1 << 3,	/* runs under kn->lock */
	KB_NL_FIND	= 1 << 4,	/* NAME's filter: kb_nl_obj() */
};

static inline struct kb_net *kb_nl_net(struct genl_info *info)
{
	return info->user_ptr[0];
}

/* KB_NL_FIND: the filter, never NULL; the namespace lock is held. */
static inline struct kb_obj *kb_nl_obj(struct genl_info *info)
{
	return info->user_ptr[1];
}

/* NAME's filter, or NULL with the reason in extack; lock or RCU held. */
struct kb_obj *kb_find(struct kb_net *kn, struct genl_info *info);
u32 kb_get_u32(struct nlattr **a, int type);

/* The one table of a filter without windows, or NULL (and extack). */
struct kb_filter *kb_only_table(struct kb_obj *obj, struct genl_info *info);

/* Bytes of one window in WINDOW_LIST: a nest of five u64. */
#define KB_WINDOW_MSG_SIZE \
	(nla_total_size(0) + 5 * nla_total_size_64bit(sizeof(u64)))

/* Bytes of one slice in SLICE_LIST: a nest of four u64, a u32, a flag. */
#define KB_SLICE_MSG_SIZE \
	(nla_total_size(0) + 4 * nla_total_size_64bit(sizeof(u64)) + \
	 nla_total_size(sizeof(u32)) + nla_total_size(0))

/* WINDOW_LIST of the windows of @set, newest first; under RCU. */
int kb_fill_windows(struct sk_buff *skb, const struct kb_winset *set);
/* A filter's description as GET gives it (no WINDOW_LIST); lock held. */
int kb_fill_desc(struct sk_buff *skb, struct kb_obj *obj);

/* Command handlers (nl_keys.c, nl_packet.c, nl_transfer.c). */
int kb_cmd_add(struct sk_buff *skb, struct genl_info *info);
int kb_cmd_test(struct sk_buff *skb, struct genl_info *info);
int kb_cmd_count(struct sk_buff *skb, struct genl_info *info);
int kb_cmd_query(struct sk_buff *skb, struct genl_info *info);
int kb_cmd_del(struct sk_buff *skb, struct genl_info *info);
int kb_cmd_attach(struct sk_buff *skb, struct genl_info *info);
int kb_cmd_detach(struct sk_buff *skb, struct genl_info *info);
int kb_cmd_digest(struct sk_buff *skb, struct genl_info *info);
int kb_dump_export(struct sk_buff *skb, struct netlink_callback *cb);
int kb_cmd_import(struct sk_buff *skb, struct genl_info *info);

#endif /* KBLOOM_NETLINK_H */
