// SPDX-License-Identifier: GPL-2.0
/*
 * Moving filter contents in and out: EXPORT (a dump of the description,
 * the hash key and the cells of one window, in chunks) and IMPORT (chunks
 * into a filter created with KBLOOM_F_LOAD, in order, then LOADED).
 * bloomctl's save, restore and archive are built on these.
 */
#include <net/genetlink.h>
#include <net/sock.h>

#include "events.h"
#include "grow.h"
#include "kcompat.h"
#include "netlink.h"
#include "registry.h"

/* Cells per EXPORT message at most: well inside one attribute. */
#define KB_CHUNK_MAX	32768

/* The window of @obj with ID @id, or NULL; under RCU. */
static struct kb_window *kb_window_by_id(struct kb_obj *obj, u64 id)
{
	const struct kb_winset *set = kb_window_set(&obj->ring);
	u32 i;

	for (i = 0; i < set->n; i++)
		if (set->w[i]->id == id)
			return set->w[i];
	return NULL;
}

/* The first message: description, hash key, cell bytes, the window. */
static int kb_export_head(struct sk_buff *skb, struct netlink_callback *cb,
			  struct kb_obj *obj, struct kb_window *w)
{
	const struct kb_filter *f = &w->filter;
	u8 hkey[KBLOOM_HASH_KEY_LEN];
	struct nlattr *list;
	void *hdr;
	int err;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &kb_family, NLM_F_MULTI, KBLOOM_CMD_EXPORT);
	if (!hdr)
		return -EMSGSIZE;
	kb_filter_hash_key(f, hkey);
	err = kb_fill_desc(skb, obj) ||
	      nla_put(skb, KBLOOM_A_HASH_KEY, sizeof(hkey), hkey) ||
	      nla_put_u64_64bit(skb, KBLOOM_A_CELL_BYTES, kb_filter_xfer_bytes(f),
				KBLOOM_A_PAD);
	memzero_explicit(hkey, sizeof(hkey));
	list = err ? NULL : nla_nest_start(skb, KBLOOM_A_WINDOW_LIST);
	if (!list || kb_fill_window(skb, w)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, list);
	genlmsg_end(skb, hdr);
	return 0;
}

/* As many chunks from *@off as fit in @skb. */
static int kb_export_cells(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct kb_window *w, u64 *off)
{
	u64 total = kb_filter_xfer_bytes(&w->filter), seg;
	const int over = GENL_HDRLEN + nla_total_size_64bit(sizeof(u64)) +
			 nla_total_size(0);
	struct nlattr *cells;
	const void *src;
	int room;
	u32 n;
	void *hdr;

	while (*off < total) {
		room = skb_tailroom(skb) - nlmsg_total_size(over) - NLA_ALIGNTO;
		if (room < 64)
			return -EMSGSIZE;
		src = kb_filter_xfer(&w->filter, *off, &seg);
		if (!src)
			return -ESTALE;
		n = min_t(u64, min(total - *off, seg), min(room, KB_CHUNK_MAX));
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &kb_family, NLM_F_MULTI,
				  KBLOOM_CMD_EXPORT);
		if (!hdr)
			return -EMSGSIZE;
		if (nla_put_u64_64bit(skb, KBLOOM_A_OFFSET, *off, KBLOOM_A_PAD))
			goto cancel;
		cells = nla_reserve(skb, KBLOOM_A_CELLS, n);
		if (!cells)
			goto cancel;
		memcpy(nla_data(cells), src, n);
		genlmsg_end(skb, hdr);
		*off += n;
	}
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* The family version the request's sender speaks (uapi: Family). */
static u8 kb_client_version(const struct nlmsghdr *nlh, struct nlattr **a)
{
	const struct genlmsghdr *g = nlmsg_data(nlh);
	u8 v = a[KBLOOM_A_CLIENT_VERSION] ?
	       nla_get_u8(a[KBLOOM_A_CLIENT_VERSION]) : 0;

	return max(g->version, v);
}

/*
 * cb->args[0]: 0 before the first message, then 1; [1]: the window ID;
 * [2]: the next cell byte; [3]: the layout (kb_filter_layout()) the head
 * described; [4] and [5]: the filter's serial and generation then. The
 * window is looked up again on every call, under RCU, so a rotation that
 * drops it is seen (ESTALE) and a table is never read while it is being
 * emptied. A filter that grows is read under its grow lock, so no slice
 * is made and no OFV replaced (and freed) while cells are copied; between
 * calls it may grow, be cleared or merged into, or be destroyed and made
 * again under its name: layout, generation and serial are compared on
 * every call, and a change ends the dump with EAGAIN, never a mixed image.
 */
int kb_dump_export(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kb_net *kn = kb_net(sock_net(skb->sk));
	struct nlattr **a = kb_dump_attrs(cb);
	struct kb_window *w;
	struct kb_obj *obj;
	u64 off = cb->args[2];
	bool grows;
	int err;

	if (!a[KBLOOM_A_NAME]) {
		NL_SET_ERR_MSG(cb->extack, "missing attribute NAME (the filter name)");
		return -EINVAL;
	}
	mutex_lock(&kn->lock);
	obj = kb_lookup(kn, nla_data(a[KBLOOM_A_NAME]));
	if (!obj || kb_loading(obj)) {
		NL_SET_ERR_MSG(cb->extack, "no filter of that name in this namespace");
		err = -ENOENT;
		goto out;
	}
	/* It would save the filter as SipHash-2-4 (uapi: Family). */
	if (kb_client_version(cb->nlh, a) < 2 &&
	    kb_ring_shape(&obj->ring)->s.hash_fn) {
		NL_SET_ERR_MSG(cb->extack,
			       "the filter hashes with HASH_FN (SipHash-1-3), which a client of family version 1 cannot save: use one of version 2, or send CLIENT_VERSION 2");
		err = -EOPNOTSUPP;
		goto out;
	}
	if (!cb->args[0]) {
		cb->args[4] = obj->serial;
		cb->args[5] = obj->generation;
	} else if (obj->serial != cb->args[4] ||
		   obj->generation != cb->args[5]) {
		NL_SET_ERR_MSG(cb->extack,
			       "the filter was cleared, merged into or made anew during the export: export again");
		err = -EAGAIN;
		goto out;
	}
	if (!cb->args[0])	/* once, before the first part */
		kb_ring_settle(&obj->ring);
	grows = kb_grows(kb_ring_shape(&obj->ring));
	if (grows)		/* before the ring's lock, as kb_clear() */
		mutex_lock(&obj->grow_lock);
	kb_ring_lock(&obj->ring);	/* kb_fill_desc() may sleep */
	if (!cb->args[0]) {
		cb->args[1] = a[KBLOOM_A_WINDOW] ? nla_get_u64(a[KBLOOM_A_WINDOW]) :
				kb_window_cur(&obj->ring)->id;
		cb->args[3] = kb_filter_layout(kb_ring_shape(&obj->ring));
	}
	w = kb_window_by_id(obj, cb->args[1]);
	if (!w) {
		kb_ring_unlock(&obj->ring);
		if (grows)
			mutex_unlock(&obj->grow_lock);
		if (cb->args[0])
			NL_SET_ERR_MSG(cb->extack,
				       "the window was dropped by a rotation during the export");
		else
			NL_SET_ERR_MSG(cb->extack, "no retained window has that WINDOW id");
		err = cb->args[0] ? -ESTALE : -ENOENT;
		goto out;
	}
	err = 0;
	if (!cb->args[0]) {
		err = kb_export_head(skb, cb, obj, w);
		cb->args[0] = !err;
	}
	/* The head and every cell so far describe this layout, or none. */
	if (!err && kb_filter_layout(&w->filter) != cb->args[3]) {
		NL_SET_ERR_MSG(cb->extack,
			       "the filter grew during the export (a slice was made or the overflow vector widened): export again");
		err = -EAGAIN;
	}
	if (!err)
		err = kb_export_cells(skb, cb, w, &off);
	kb_ring_unlock(&obj->ring);
	if (grows)
		mutex_unlock(&obj->grow_lock);
	if (err == -EAGAIN)
		goto out;
	cb->args[2] = off;
	/* A full buffer means more to come, unless not even one fitted. */
	if (err == -EMSGSIZE && skb->len)
		err = skb->len;
	else if (!err)
		err = skb->len;
out:
	mutex_unlock(&kn->lock);
	return err;
}

int kb_cmd_import(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_nl_net(info);
	struct nlattr **a = info->attrs;
	u32 flags = kb_get_u32(a, KBLOOM_A_FLAGS);
	struct kb_filter *f;
	struct kb_obj *obj;
	u64 off, total, seg;
	int err = -EINVAL;
	u32 len, done, n;
	void *dst;

	lockdep_assert_held(&kn->lock);
	if (!!a[KBLOOM_A_OFFSET] != !!a[KBLOOM_A_CELLS] ||
	    (!a[KBLOOM_A_CELLS] && !(flags & KBLOOM_F_LOADED)) ||
	    (flags & ~KBLOOM_F_LOADED)) {
		NL_SET_ERR_MSG(info->extack,
			       "IMPORT takes OFFSET with CELLS, FLAGS LOADED, or both");
		return -EINVAL;
	}

	obj = kb_find(kn, info);
	if (!obj) {
		err = -ENOENT;
		goto out;
	}
	if (!kb_loading(obj)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_NAME],
				    "filter is not being restored (CREATE it with FLAGS LOAD)");
		goto out;
	}
	if (obj->loader != info->snd_portid) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_NAME],
				    "another socket is restoring this filter");
		err = -EPERM;
		goto out;
	}
	f = &obj->ring.tables[0].filter;
	total = kb_filter_xfer_bytes(f);
	len = a[KBLOOM_A_CELLS] ? nla_len(a[KBLOOM_A_CELLS]) : 0;
	/* Every check before any byte is written: a refusal changes nothing. */
	if (len) {
		off = nla_get_u64(a[KBLOOM_A_OFFSET]);
		if (off != obj->loaded) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_OFFSET],
					    "chunks must come in order: OFFSET is not where the last one ended");
			goto out;
		}
		if (len > total - off) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_CELLS],
					    "CELLS run past the filter's cell memory");
			goto out;
		}
	}
	if ((flags & KBLOOM_F_LOADED) && obj->loaded + len != total) {
		NL_SET_ERR_MSG(info->extack,
			       "LOADED before every cell byte was imported");
		goto out;
	}
	/* The stream may run over parts (slices, CBFV and OFV). */
	for (done = 0; done < len; done += n) {
		dst = kb_filter_xfer(f, obj->loaded, &seg);
		n = min_t(u64, seg, len - done);
		memcpy(dst, (const u8 *)nla_data(a[KBLOOM_A_CELLS]) + done, n);
		obj->loaded += n;
	}
	if (flags & KBLOOM_F_LOADED) {
		kb_grow_loaded(f);
		obj->generation++;
		kn->dump_gen++;
		kb_loaded(obj);
		kb_event_filter(genl_info_net(info), obj, KBLOOM_CMD_CREATE);
	}
	err = 0;
out:
	return err;
}
