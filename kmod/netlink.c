// SPDX-License-Identifier: GPL-2.0
/*
 * The kbloom generic netlink family: parses and validates requests, calls
 * the registry and the engine, builds replies. The protocol is documented
 * in uapi/kbloom.h.
 */
#include <linux/ctype.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "kcompat.h"
#include "netlink.h"
#include "attach.h"
#include "events.h"
#include "grow.h"
#include "registry.h"

/* const where the kernel allows it (kcompat.h). */
static KB_NLA_RANGE_CONST struct netlink_range_validation kb_bits_range = {
	.min = KBLOOM_BITS_MIN,
	.max = KBLOOM_BITS_MAX,
};

/* A tuple's attribute types are dimension numbers 1..KBLOOM_DIMS_MAX. */
static const struct nla_policy kb_tuple_policy[KBLOOM_DIMS_MAX + 1] = {
	[1 ... KBLOOM_DIMS_MAX] = NLA_POLICY_RANGE(NLA_BINARY, 1, KBLOOM_KEY_MAX),
};

static const struct nla_policy kb_keys_policy[KBLOOM_KEYS_A_MAX + 1] = {
	[KBLOOM_KEYS_A_KEY] = NLA_POLICY_RANGE(NLA_BINARY, 1, KBLOOM_KEY_MAX),
	[KBLOOM_KEYS_A_TUPLE] = NLA_POLICY_NESTED(kb_tuple_policy),
};

static const struct nla_policy kb_dims_policy[KBLOOM_DIMS_A_MAX + 1] = {
	[KBLOOM_DIMS_A_NAME] = { .type = NLA_NUL_STRING,
				 .len = KBLOOM_DIM_NAME_MAX - 1 },
};

/* A saved slice, for CREATE with FLAGS LOAD of a scalable filter. */
static const struct nla_policy kb_slice_policy[KBLOOM_SLICE_A_MAX + 1] = {
	[KBLOOM_SLICE_A_BITS] = NLA_POLICY_FULL_RANGE(NLA_U64, &kb_bits_range),
	[KBLOOM_SLICE_A_HASHES] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_HASHES_MAX),
	[KBLOOM_SLICE_A_CAPACITY] = { .type = NLA_U64 },
	[KBLOOM_SLICE_A_KEYS] = { .type = NLA_U64 },
	[KBLOOM_SLICE_A_FILL] = { .type = NLA_REJECT },
	[KBLOOM_SLICE_A_CURRENT] = { .type = NLA_FLAG },
};

static KB_NLA_RANGE_CONST struct netlink_range_validation kb_interval_range = {
	.min = KBLOOM_INTERVAL_MIN,
	.max = KBLOOM_INTERVAL_MAX,
};

/*
 * The shape's parameters' lines are written at init from their rows
 * (kb_params[], kb_policy_init()): a new parameter is one row. DIMS,
 * which nests names, keeps its line here.
 */
static struct nla_policy kb_policy[KBLOOM_A_MAX + 1] __ro_after_init = {
	[KBLOOM_A_NAME] = { .type = NLA_NUL_STRING, .len = KBLOOM_NAME_MAX - 1 },
	[KBLOOM_A_TYPE] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_TYPE_MAX),
	[KBLOOM_A_BITS] = NLA_POLICY_FULL_RANGE(NLA_U64, &kb_bits_range),
	[KBLOOM_A_HASHES] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_HASHES_MAX),
	[KBLOOM_A_HASH_KEY] = NLA_POLICY_EXACT_LEN(KBLOOM_HASH_KEY_LEN),
	[KBLOOM_A_CAPACITY] = { .type = NLA_U64 },
	[KBLOOM_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, KBLOOM_F_MASK),
	[KBLOOM_A_KEYS] = NLA_POLICY_NESTED(kb_keys_policy),
	[KBLOOM_A_DIMS] = NLA_POLICY_NESTED(kb_dims_policy),
	[KBLOOM_A_SRC] = { .type = NLA_NUL_STRING, .len = KBLOOM_NAME_MAX - 1 },
	[KBLOOM_A_MERGE_OP] = NLA_POLICY_MAX(NLA_U32, KBLOOM_MERGE_MAX),
	[KBLOOM_A_WINDOWS] = NLA_POLICY_RANGE(NLA_U32, 2, KBLOOM_WINDOWS_MAX),
	[KBLOOM_A_INTERVAL] = NLA_POLICY_FULL_RANGE(NLA_U64, &kb_interval_range),
	[KBLOOM_A_HOOK] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_HOOK_MAX),
	[KBLOOM_A_FAMILY] = NLA_POLICY_MAX(NLA_U32, KBLOOM_FAMILY_MAX),
	[KBLOOM_A_DIGEST] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_DIGEST_MAX),
	[KBLOOM_A_IFNAME] = { .type = NLA_NUL_STRING,
			      .len = KBLOOM_IFNAME_MAX - 1 },
	/* At most KBLOOM_PACKET_MAX: the most an attribute holds. */
	[KBLOOM_A_PACKET] = NLA_POLICY_MIN_LEN(1),
	[KBLOOM_A_LINEAR] = { .type = NLA_U32 },
	[KBLOOM_A_WINDOW] = { .type = NLA_U64 },
	[KBLOOM_A_OFFSET] = { .type = NLA_U64 },
	/* Chunks of any size an attribute holds; IMPORT checks the bounds. */
	[KBLOOM_A_CELLS] = NLA_POLICY_MIN_LEN(1),
	/* Reply-only attributes are refused in requests. */
	[KBLOOM_A_NKEYS] = { .type = NLA_REJECT },
	[KBLOOM_A_NPRESENT] = { .type = NLA_REJECT },
	[KBLOOM_A_RESULT] = { .type = NLA_REJECT },
	[KBLOOM_A_MEMORY] = { .type = NLA_REJECT },
	[KBLOOM_A_FILL] = { .type = NLA_REJECT },
	[KBLOOM_A_GENERATION] = { .type = NLA_REJECT },
	[KBLOOM_A_STATS] = { .type = NLA_REJECT },
	[KBLOOM_A_SATURATED] = { .type = NLA_REJECT },
	[KBLOOM_A_COUNTS] = { .type = NLA_REJECT },
	[KBLOOM_A_SRC_FILL] = { .type = NLA_REJECT },
	[KBLOOM_A_UNION_FILL] = { .type = NLA_REJECT },
	[KBLOOM_A_WINDOW_LIST] = { .type = NLA_REJECT },
	[KBLOOM_A_WINDOW_HITS] = { .type = NLA_REJECT },
	[KBLOOM_A_ATTACH] = { .type = NLA_REJECT },
	[KBLOOM_A_SKIP] = { .type = NLA_REJECT },
	[KBLOOM_A_CELL_BYTES] = { .type = NLA_REJECT },
	[KBLOOM_A_NFILTERS] = { .type = NLA_REJECT },
	[KBLOOM_A_MAX_FILTERS] = { .type = NLA_REJECT },
	[KBLOOM_A_MEM_NETNS] = { .type = NLA_REJECT },
	[KBLOOM_A_MEM_ALL] = { .type = NLA_REJECT },
	[KBLOOM_A_MEM_LIMIT] = { .type = NLA_REJECT },
	[KBLOOM_A_USER_FILTERS] = { .type = NLA_REJECT },
	[KBLOOM_A_USER_MAX_FILTERS] = { .type = NLA_REJECT },
	[KBLOOM_A_MEM_USER] = { .type = NLA_REJECT },
	[KBLOOM_A_MEM_USER_LIMIT] = { .type = NLA_REJECT },
	[KBLOOM_A_MEM_MAPPED_GONE] = { .type = NLA_REJECT },
	[KBLOOM_A_CLIENT_VERSION] = NLA_POLICY_RANGE(NLA_U8, 1, KBLOOM_GENL_VERSION),
	[KBLOOM_A_GROW_ERROR] = { .type = NLA_REJECT },
	[KBLOOM_A_VERSION] = { .type = NLA_REJECT },
	/* Replies, and the saved layout in CREATE with FLAGS LOAD. */
	[KBLOOM_A_OVERFLOW] = { .type = NLA_U64 },
	[KBLOOM_A_SLICE_LIST] = NLA_POLICY_NESTED_ARRAY(kb_slice_policy),
	[KBLOOM_A_OFV_BITS] = NLA_POLICY_RANGE(NLA_U32, 1, 32),
	[KBLOOM_A_LOST] = { .type = NLA_U64 },
};

/* Names the first attribute of @types[0..n) that is missing, if any. */
bool kb_require(struct genl_info *info, const int *types, int n)
{
	struct netlink_ext_ack *extack = info->extack;
	int i;

	for (i = 0; i < n; i++) {
		if (info->attrs[types[i]])
			continue;
		switch (types[i]) {
		case KBLOOM_A_NAME:
			NL_SET_ERR_MSG(extack, "missing attribute NAME (the filter name)");
			break;
		case KBLOOM_A_TYPE:
			NL_SET_ERR_MSG(extack, "missing attribute TYPE (the filter type)");
			break;
		case KBLOOM_A_BITS:
			NL_SET_ERR_MSG(extack, "missing attribute BITS (the filter size m)");
			break;
		case KBLOOM_A_HASHES:
			NL_SET_ERR_MSG(extack, "missing attribute HASHES (k)");
			break;
		case KBLOOM_A_KEYS:
			NL_SET_ERR_MSG(extack, "missing attribute KEYS (the keys)");
			break;
		case KBLOOM_A_SRC:
			NL_SET_ERR_MSG(extack, "missing attribute SRC (the second filter)");
			break;
		case KBLOOM_A_HOOK:
			NL_SET_ERR_MSG(extack, "missing attribute HOOK (the netfilter hook)");
			break;
		case KBLOOM_A_DIGEST:
			NL_SET_ERR_MSG(extack, "missing attribute DIGEST (the digest mode)");
			break;
		case KBLOOM_A_PACKET:
			NL_SET_ERR_MSG(extack, "missing attribute PACKET (the packet bytes)");
			break;
		}
		NL_SET_ERR_ATTR_MISS(extack, NULL, types[i]);
		return false;
	}
	return true;
}

/*
 * Names are printable ASCII without spaces or '/', so they round-trip
 * through a shell and into file names. (Not isgraph(): the kernel's
 * ctype takes 0xA1-0xFF as Latin-1 letters.)
 */
static bool kb_name_ok(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	const u8 *s = nla_data(attr);

	if (!*s) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "filter name is empty");
		return false;
	}
	for (; *s; s++) {
		if (*s <= ' ' || *s > '~' || *s == '/') {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "filter name has a space, '/' or a byte that is not printable ASCII");
			return false;
		}
	}
	return true;
}

/* Looks the named filter up; the caller holds the lock or rcu_read_lock(). */
struct kb_obj *kb_find(struct kb_net *kn, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[KBLOOM_A_NAME];
	struct kb_obj *obj = kb_lookup(kn, nla_data(attr));

	if (!obj) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "no filter of that name in this namespace");
	} else if (kb_loading(obj) && info->genlhdr->cmd != KBLOOM_CMD_IMPORT) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "filter is being restored; it appears when its IMPORT completes");
		obj = NULL;
	}
	return obj;
}

/* Dimension names: [a-z0-9_-], 1..KBLOOM_DIM_NAME_MAX-1 bytes, unique. */
static int kb_parse_dims(const struct nlattr *nest, struct kb_create_args *args,
			 struct netlink_ext_ack *extack)
{
	const struct nlattr *attr;
	u32 n = 0, i;
	int rem;

	nla_for_each_nested(attr, nest, rem) {
		const char *name = nla_data(attr), *c;

		if (n == KBLOOM_DIMS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "more than 8 dimensions");
			return -EINVAL;
		}
		if (!*name) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "dimension name is empty");
			return -EINVAL;
		}
		for (c = name; *c; c++) {
			if (!islower(*c) && !isdigit(*c) && *c != '_' && *c != '-') {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "dimension names use only a-z, 0-9, '_' and '-'");
				return -EINVAL;
			}
		}
		for (i = 0; i < n; i++) {
			if (!strcmp(args->dim_names[i], name)) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "dimension named twice");
				return -EINVAL;
			}
		}
		args->dim_names[n++] = name;
	}
	args->shape.dims = n;
	return 0;
}

u32 kb_get_u32(struct nlattr **a, int type)
{
	return a[type] ? nla_get_u32(a[type]) : 0;
}

/* The shape's parameters (kb_params[]): absent ones are 0. */
static int kb_parse_params(struct nlattr **a, struct kb_create_args *args,
			   struct netlink_ext_ack *extack)
{
	const struct kb_param_def *p;
	const struct nlattr *attr;
	int err;

	for (p = kb_params; p < kb_params + KB_P_NUM; p++) {
		attr = a[p->attr];
		if (!attr)
			continue;
		if (p->nest) {
			err = kb_parse_dims(attr, args, extack);
			if (err)
				return err;
			continue;
		}
		kb_shape_set(&args->shape, p, p->width == sizeof(u64) ?
			     nla_get_u64(attr) : nla_get_u32(attr));
	}
	return 0;
}

/* True when @a is given but not allowed: named in @extack. */
static bool kb_layout_extra(const struct nlattr *a, bool ok,
			    struct netlink_ext_ack *extack)
{
	if (!a || ok)
		return false;
	NL_SET_ERR_MSG_ATTR(extack, a,
			    "SLICE_LIST and OVERFLOW (scalable), OFV_BITS and LOST (dcf) are only for CREATE with FLAGS LOAD of that type");
	return true;
}

/* A scalable filter's saved slices: each must be the plan's. */
static int kb_parse_slices(const struct nlattr *list,
			   struct kb_create_args *args,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KBLOOM_SLICE_A_MAX + 1];
	const struct nlattr *nest;
	u32 n = 0, cur = U32_MAX, k;
	u64 m, cap;
	int rem, err;

	nla_for_each_nested(nest, list, rem) {
		if (nla_type(nest) != KBLOOM_SLICE_LIST_A_SLICE) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "SLICE_LIST holds only SLICE nests");
			return -EINVAL;
		}
		if (n >= KBLOOM_SLICES_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "SLICE_LIST holds more than 32 slices");
			return -EINVAL;
		}
		err = nla_parse_nested(tb, KBLOOM_SLICE_A_MAX, nest,
				       kb_slice_policy, extack);
		if (err)
			return err;
		if (!tb[KBLOOM_SLICE_A_BITS] || !tb[KBLOOM_SLICE_A_HASHES] ||
		    !tb[KBLOOM_SLICE_A_CAPACITY]) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "a SLICE_LIST slice needs BITS, HASHES and CAPACITY");
			return -EINVAL;
		}
		if (!kb_scalable_plan(&args->shape, n, &m, &k, &cap)) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "SLICE_LIST has more slices than the filter's plan can make");
			return -EINVAL;
		}
		if (nla_get_u64(tb[KBLOOM_SLICE_A_BITS]) != m) {
			NL_SET_ERR_MSG_ATTR(extack, tb[KBLOOM_SLICE_A_BITS],
					    "slice BITS differ from the plan's m_i for its place (uapi/kbloom.h)");
			return -EINVAL;
		}
		if (nla_get_u32(tb[KBLOOM_SLICE_A_HASHES]) != k) {
			NL_SET_ERR_MSG_ATTR(extack, tb[KBLOOM_SLICE_A_HASHES],
					    "slice HASHES differ from the plan's k_i for its place");
			return -EINVAL;
		}
		if (nla_get_u64(tb[KBLOOM_SLICE_A_CAPACITY]) != cap) {
			NL_SET_ERR_MSG_ATTR(extack, tb[KBLOOM_SLICE_A_CAPACITY],
					    "slice CAPACITY differs from the plan's n_i for its place");
			return -EINVAL;
		}
		if (tb[KBLOOM_SLICE_A_CURRENT]) {
			if (cur != U32_MAX) {
				NL_SET_ERR_MSG_ATTR(extack, tb[KBLOOM_SLICE_A_CURRENT],
						    "more than one slice of SLICE_LIST is CURRENT");
				return -EINVAL;
			}
			cur = n;
		}
		args->saved.keys[n] = tb[KBLOOM_SLICE_A_KEYS] ?
				      nla_get_u64(tb[KBLOOM_SLICE_A_KEYS]) : 0;
		n++;
	}
	if (cur == U32_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, list,
				    "SLICE_LIST needs its slices, one of them CURRENT");
		return -EINVAL;
	}
	args->saved.nslices = n;
	args->saved.cur = cur;
	return 0;
}

/*
 * The saved layout of a scalable filter or a dcf being loaded; refused
 * anywhere else. Only for a shape the engine takes: kb_create() names
 * what is wrong with any other.
 */
static int kb_parse_layout(struct nlattr **a, struct kb_create_args *args,
			   struct netlink_ext_ack *extack)
{
	const struct kb_shape *s = &args->shape;
	u32 kind = args->loader ? kb_grow_type_kind(s->type) : 0;
	bool scal = kind == KB_GROW_SLICES;
	bool dcf = kind == KB_GROW_WIDER;
	u32 bits;

	if (kb_layout_extra(a[KBLOOM_A_SLICE_LIST], scal, extack) ||
	    kb_layout_extra(a[KBLOOM_A_OVERFLOW], scal, extack) ||
	    kb_layout_extra(a[KBLOOM_A_OFV_BITS], dcf, extack) ||
	    kb_layout_extra(a[KBLOOM_A_LOST], dcf, extack))
		return -EINVAL;
	if (dcf) {
		bits = kb_get_u32(a, KBLOOM_A_OFV_BITS);
		args->saved.ofv_bits = bits ? bits : 1;
		if (args->saved.ofv_bits & (args->saved.ofv_bits - 1)) {
			NL_SET_ERR_MSG_ATTR(extack, a[KBLOOM_A_OFV_BITS],
					    "OFV_BITS must be 1, 2, 4, 8, 16 or 32");
			return -EINVAL;
		}
		if (a[KBLOOM_A_LOST])
			args->saved.overflow = nla_get_u64(a[KBLOOM_A_LOST]);
		args->layout = a[KBLOOM_A_OFV_BITS];
		return 0;
	}
	if (!scal || kb_filter_check_shape(s) != KB_SHAPE_OK)
		return 0;
	if (!a[KBLOOM_A_SLICE_LIST]) {
		NL_SET_ERR_MSG(extack,
			       "missing attribute SLICE_LIST (a scalable filter's slices, to load it)");
		return -EINVAL;
	}
	if (a[KBLOOM_A_OVERFLOW])
		args->saved.overflow = nla_get_u64(a[KBLOOM_A_OVERFLOW]);
	args->layout = a[KBLOOM_A_SLICE_LIST];
	return kb_parse_slices(a[KBLOOM_A_SLICE_LIST], args, extack);
}

static int kb_cmd_create(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct kb_create_args args = {};
	struct kb_shape *s = &args.shape;
	u32 flags;
	int err;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	if (!KB_REQUIRE(info, KBLOOM_A_TYPE, KBLOOM_A_BITS, KBLOOM_A_HASHES))
		return -EINVAL;
	if (!kb_name_ok(a[KBLOOM_A_NAME], info->extack))
		return -EINVAL;

	args.name = nla_data(a[KBLOOM_A_NAME]);
	s->type = nla_get_u32(a[KBLOOM_A_TYPE]);
	s->m = nla_get_u64(a[KBLOOM_A_BITS]);
	s->k = nla_get_u32(a[KBLOOM_A_HASHES]);
	err = kb_parse_params(a, &args, info->extack);
	if (err)
		return err;
	if (a[KBLOOM_A_CAPACITY])
		args.capacity = nla_get_u64(a[KBLOOM_A_CAPACITY]);
	/* Only a shape with a plan has a capacity: slice 0's (scalable). */
	if (kb_type_takes(s->type, KB_TAKES_PLAN))
		s->capacity = args.capacity;
	if (a[KBLOOM_A_HASH_KEY])
		args.hash_key = nla_data(a[KBLOOM_A_HASH_KEY]);
	flags = kb_get_u32(a, KBLOOM_A_FLAGS);
	if ((flags & ~(KBLOOM_F_LOAD | KBLOOM_F_EXIST)) ||
	    (flags & KBLOOM_F_LOAD && flags & KBLOOM_F_EXIST)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_FLAGS],
				    "CREATE takes only the flag LOAD or the flag EXIST");
		return -EINVAL;
	}
	if (flags & KBLOOM_F_LOAD)
		args.loader = info->snd_portid;
	args.exist_ok = flags & KBLOOM_F_EXIST;
	err = kb_parse_layout(a, &args, info->extack);
	if (err)
		return err;
	args.windows = kb_get_u32(a, KBLOOM_A_WINDOWS);
	if (a[KBLOOM_A_INTERVAL])
		args.interval_ms = nla_get_u64(a[KBLOOM_A_INTERVAL]);

	args.net = genl_info_net(info);
	args.global_figures = netlink_capable(skb, CAP_NET_ADMIN);
	return kb_create(kb_nl_net(info), &args, info->extack);
}

static int kb_cmd_destroy(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_nl_net(info);
	struct nlattr **a = info->attrs;
	u32 flags = a[KBLOOM_A_FLAGS] ? nla_get_u32(a[KBLOOM_A_FLAGS]) : 0;
	struct kb_obj *obj;
	int err = 0;

	lockdep_assert_held(&kn->lock);
	if (!!(flags & KBLOOM_F_ALL) == !!a[KBLOOM_A_NAME]) {
		NL_SET_ERR_MSG(info->extack,
			       "give either NAME or FLAGS with KBLOOM_F_ALL");
		return -EINVAL;
	}

	if (flags & KBLOOM_F_ALL) {
		kb_destroy_all(kn);
	} else {
		obj = kb_find(kn, info);
		if (obj)
			kb_destroy(kn, obj);
		else
			err = -ENOENT;
	}
	return err;
}

static int kb_fill_stats(struct sk_buff *skb, const struct kb_obj *obj)
{
	struct kb_stats st;
	struct nlattr *nest;

	kb_stats_read(obj, &st);
	nest = nla_nest_start(skb, KBLOOM_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, KBLOOM_STATS_A_INSERTS, st.inserts,
			      KBLOOM_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_STATS_A_QUERIES, st.queries,
			      KBLOOM_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_STATS_A_POSITIVES, st.positives,
			      KBLOOM_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_STATS_A_DELETES, st.deletes,
			      KBLOOM_STATS_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int kb_fill_dims(struct sk_buff *skb, const struct kb_obj *obj, int attr)
{
	u32 i, dims = kb_ring_shape(&obj->ring)->s.dims;
	struct nlattr *nest = nla_nest_start(skb, attr);

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < dims; i++) {
		if (nla_put_string(skb, KBLOOM_DIMS_A_NAME, obj->dim_names[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The type's own parameters, only those it takes (kb_params[]). */
static int kb_fill_params(struct sk_buff *skb, const struct kb_obj *obj)
{
	const struct kb_shape *s = &kb_ring_shape(&obj->ring)->s;
	const struct kb_ring *r = &obj->ring;
	const struct kb_param_def *p;
	u64 v;

	if (kb_ring_paged(r) &&
	    (nla_put_u32(skb, KBLOOM_A_WINDOWS, r->nwindows) ||
	     nla_put_u64_64bit(skb, KBLOOM_A_INTERVAL, r->interval_ms,
			       KBLOOM_A_PAD)))
		return -EMSGSIZE;

	for (p = kb_params; p < kb_params + KB_P_NUM; p++) {
		if (!kb_type_takes(s->type, p->takes))
			continue;
		if (p->nest) {
			if (kb_fill_dims(skb, obj, p->attr))
				return -EMSGSIZE;
			continue;
		}
		v = kb_shape_get(s, p);
		if (p->width == sizeof(u64) ?
		    nla_put_u64_64bit(skb, p->attr, v, KBLOOM_A_PAD) :
		    nla_put_u32(skb, p->attr, v))
			return -EMSGSIZE;
	}
	return 0;
}

/* WINDOW_LIST of the windows of @set, newest first; under the ring's lock. */
int kb_fill_windows(struct sk_buff *skb, const struct kb_winset *set)
{
	struct nlattr *nest = nla_nest_start(skb, KBLOOM_A_WINDOW_LIST);
	u32 i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < set->n; i++) {
		if (kb_fill_window(skb, set->w[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * A scalable filter's OVERFLOW, GROW_ERROR and SLICE_LIST; a dcf's
 * OFV_BITS, LOST and GROW_ERROR.
 */
static int kb_fill_slices(struct sk_buff *skb, const struct kb_filter *f)
{
	u32 i, n, kind = kb_grow_kind(f);
	struct nlattr *list, *nest;
	struct kb_slice_info si;

	if (kind == KB_GROW_WIDER)
		return nla_put_u32(skb, KBLOOM_A_OFV_BITS, kb_dcf_ofv_bits(f)) ||
		       nla_put_u64_64bit(skb, KBLOOM_A_LOST, kb_grow_overflow(f),
					 KBLOOM_A_PAD) ||
		       nla_put_u32(skb, KBLOOM_A_GROW_ERROR,
				   kb_grow_error(f)) ? -EMSGSIZE : 0;
	if (kind != KB_GROW_SLICES)
		return 0;
	if (nla_put_u64_64bit(skb, KBLOOM_A_OVERFLOW, kb_grow_overflow(f),
			      KBLOOM_A_PAD) ||
	    nla_put_u32(skb, KBLOOM_A_GROW_ERROR, kb_grow_error(f)))
		return -EMSGSIZE;
	list = nla_nest_start(skb, KBLOOM_A_SLICE_LIST);
	if (!list)
		return -EMSGSIZE;
	n = kb_scalable_slices(f);
	for (i = 0; i < n; i++) {
		kb_scalable_slice(f, i, &si);
		nest = nla_nest_start(skb, KBLOOM_SLICE_LIST_A_SLICE);
		if (!nest ||
		    nla_put_u64_64bit(skb, KBLOOM_SLICE_A_BITS, si.m,
				      KBLOOM_SLICE_A_PAD) ||
		    nla_put_u32(skb, KBLOOM_SLICE_A_HASHES, si.k) ||
		    nla_put_u64_64bit(skb, KBLOOM_SLICE_A_CAPACITY, si.capacity,
				      KBLOOM_SLICE_A_PAD) ||
		    nla_put_u64_64bit(skb, KBLOOM_SLICE_A_KEYS, si.keys,
				      KBLOOM_SLICE_A_PAD) ||
		    nla_put_u64_64bit(skb, KBLOOM_SLICE_A_FILL, si.fill,
				      KBLOOM_SLICE_A_PAD) ||
		    (si.is_current && nla_put_flag(skb, KBLOOM_SLICE_A_CURRENT))) {
			nla_nest_cancel(skb, list);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	nla_nest_end(skb, list);
	return 0;
}

/* The caller holds the ring's lock (kb_ring_lock()). */
int kb_fill_desc(struct sk_buff *skb, struct kb_obj *obj)
{
	const struct kb_filter *f = kb_ring_shape(&obj->ring);
	struct kb_fill fill;

	kb_filter_fill(&kb_window_cur(&obj->ring)->filter, &fill);
	if (nla_put_string(skb, KBLOOM_A_NAME, obj->name) ||
	    nla_put_u32(skb, KBLOOM_A_TYPE, f->s.type) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_BITS, f->s.m, KBLOOM_A_PAD) ||
	    nla_put_u32(skb, KBLOOM_A_HASHES, f->s.k) ||
	    kb_fill_params(skb, obj) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_CAPACITY, obj->capacity,
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_MEMORY, READ_ONCE(obj->charged),
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_FILL, fill.nonzero, KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_SATURATED, fill.saturated,
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_GENERATION, obj->generation,
			      KBLOOM_A_PAD) ||
	    kb_fill_stats(skb, obj) ||
	    kb_fill_slices(skb, f) ||
	    kb_attach_fill(skb, obj))
		return -EMSGSIZE;
	return 0;
}

/*
 * One GET message; the caller holds the namespace lock. @windows: with
 * WINDOW_LIST (GET's doit, sized for it).
 */
static int kb_fill_filter(struct sk_buff *skb, struct kb_obj *obj,
			  u32 portid, u32 seq, int flags,
			  struct netlink_callback *cb, bool windows)
{
	void *hdr;
	int err = 0;

	hdr = genlmsg_put(skb, portid, seq, &kb_family, flags, KBLOOM_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	/* counting cells may sleep: the ring's lock, not RCU */
	kb_ring_lock(&obj->ring);
	if (windows)
		err = kb_fill_windows(skb, kb_window_set(&obj->ring));
	if (!err)
		err = kb_fill_desc(skb, obj);
	kb_ring_unlock(&obj->ring);
	if (err) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int kb_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_obj *obj = kb_nl_obj(info);
	struct sk_buff *msg;
	int err;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE +
			  obj->ring.nwindows * KB_WINDOW_MSG_SIZE +
			  KBLOOM_SLICES_MAX * KB_SLICE_MSG_SIZE, GFP_KERNEL);
	err = msg ? kb_fill_filter(msg, obj, info->snd_portid, info->snd_seq,
				   0, NULL, true) : -ENOMEM;
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: filters already dumped. */
static int kb_dump_get(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kb_net *kn = kb_net(sock_net(skb->sk));
	struct kb_obj *obj;
	long idx = 0;
	int err = 0;

	mutex_lock(&kn->lock);
	cb->seq = kn->dump_gen;
	list_for_each_entry(obj, &kn->filters, node) {
		if (kb_loading(obj) || idx++ < cb->args[0])
			continue;
		kb_ring_settle(&obj->ring);
		err = kb_fill_filter(skb, obj, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI, cb, false);
		if (err) {
			idx--;
			break;
		}
	}
	mutex_unlock(&kn->lock);
	cb->args[0] = idx;
	/* A full buffer means "more to come", unless not even one fitted. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/* DEL, MERGE and ESTIMATE need a filter of one table. */
struct kb_filter *kb_only_table(struct kb_obj *obj, struct genl_info *info)
{
	struct kb_filter *f = kb_ring_only(&obj->ring);

	if (!f)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "not supported on a filter with windows");
	return f;
}

static int kb_cmd_clear(struct sk_buff *skb, struct genl_info *info)
{
	lockdep_assert_held(&kb_nl_net(info)->lock);
	kb_clear(kb_nl_obj(info));
	return 0;
}

/*
 * Looks up SRC, another filter than NAME's (@a), under the namespace
 * lock; 0 or -errno with the reason in extack.
 */
static int kb_find_src(struct genl_info *info, struct kb_obj *a,
		       struct kb_obj **b)
{
	struct nlattr *attr = info->attrs[KBLOOM_A_SRC];

	*b = kb_lookup(kb_nl_net(info), nla_data(attr));
	if (!*b) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "no filter named SRC in this namespace");
		return -ENOENT;
	}
	if (a == *b) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "SRC is the filter itself");
		return -EINVAL;
	}
	kb_ring_settle(&(*b)->ring);
	return 0;
}

/* The engine's refusals of a pair of filters, explained. */
static int kb_pair_error(struct genl_info *info, int err)
{
	if (err == -EINVAL)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_SRC],
				    "filters differ in type, shape or hash key");
	else if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "not supported for this filter type (dleft, stable, scalable, dcf, transforms)");
	return err;
}

/* The one table of each of a pair of filters, or -EOPNOTSUPP. */
static int kb_pair_tables(struct genl_info *info, struct kb_obj *a,
			  struct kb_obj *b, struct kb_filter **fa,
			  struct kb_filter **fb)
{
	*fa = kb_only_table(a, info);
	*fb = *fa ? kb_ring_only(&b->ring) : NULL;
	if (*fa && !*fb)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_SRC],
				    "not supported on a filter with windows");
	return *fb ? 0 : -EOPNOTSUPP;
}

static int kb_cmd_merge(struct sk_buff *skb, struct genl_info *info)
{
	u32 op = kb_get_u32(info->attrs, KBLOOM_A_MERGE_OP);
	struct kb_obj *dst = kb_nl_obj(info), *src;
	struct kb_filter *fd, *fs;
	int err;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	err = kb_find_src(info, dst, &src);
	if (!err)
		err = kb_pair_tables(info, dst, src, &fd, &fs);
	if (!err)
		err = kb_pair_error(info, kb_filter_merge(fd, fs, op));
	if (!err)
		dst->generation++;
	return err;
}

static int kb_cmd_estimate(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_obj *a = kb_nl_obj(info), *b;
	struct kb_filter *f1, *f2;
	struct kb_fill fa, fb;
	struct sk_buff *msg;
	u64 both;
	void *hdr;
	int err;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = kb_find_src(info, a, &b);
	if (!err)
		err = kb_pair_tables(info, a, b, &f1, &f2);
	if (!err)
		err = kb_pair_error(info, kb_filter_union_fill(f1, f2, &both));
	if (!err) {
		kb_filter_fill(f1, &fa);
		kb_filter_fill(f2, &fb);
	}
	if (err)
		goto err_free;

	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &kb_family, 0, KBLOOM_CMD_ESTIMATE);
	if (!hdr ||
	    nla_put_string(msg, KBLOOM_A_NAME, nla_data(info->attrs[KBLOOM_A_NAME])) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_FILL, fa.nonzero, KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_SRC_FILL, fb.nonzero, KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_UNION_FILL, both, KBLOOM_A_PAD))
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

static int kb_put_owner(struct sk_buff *msg, const struct kb_owner_usage *o)
{
	if (nla_put_u32(msg, KBLOOM_A_USER_FILTERS, o->nfilters) ||
	    nla_put_u32(msg, KBLOOM_A_USER_MAX_FILTERS, o->max_filters) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_MEM_USER, o->mem, KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_MEM_USER_LIMIT, o->mem_limit,
			      KBLOOM_A_PAD))
		return -EMSGSIZE;
	return 0;
}

/* MEM_ALL, the bytes of every namespace, only to the initial one's admin. */
static int kb_cmd_status(struct sk_buff *skb, struct genl_info *info)
{
	bool all = netlink_capable(skb, CAP_NET_ADMIN);
	struct kb_usage u;
	struct sk_buff *msg;
	void *hdr;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	BUILD_BUG_ON(sizeof(KBLOOM_VERSION) > KBLOOM_VERSION_MAX);
	kb_usage(kb_nl_net(info), &u);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kb_family, 0, KBLOOM_CMD_STATUS);
	if (!hdr || nla_put_u32(msg, KBLOOM_A_NFILTERS, u.nfilters) ||
	    nla_put_u32(msg, KBLOOM_A_MAX_FILTERS, u.max_filters) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_MEM_NETNS, u.mem_netns, KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_MEM_MAPPED_GONE, u.mem_mapped_gone,
			      KBLOOM_A_PAD) ||
	    (all &&
	     nla_put_u64_64bit(msg, KBLOOM_A_MEM_ALL, u.mem_all, KBLOOM_A_PAD)) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_MEM_LIMIT, u.mem_limit, KBLOOM_A_PAD) ||
	    (u.owned && kb_put_owner(msg, &u.owner)) ||
	    nla_put_string(msg, KBLOOM_A_VERSION, KBLOOM_VERSION)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* The opening every doit shares, by its op's internal_flags (netlink.h). */
static int kb_pre_doit(const struct kb_genl_doit_ops *ops, struct sk_buff *skb,
		       struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	u8 fl = ops->internal_flags;
	int need[3], n = 0;

	if (fl & KB_NL_NAME)
		need[n++] = KBLOOM_A_NAME;
	if (fl & KB_NL_KEYS)
		need[n++] = KBLOOM_A_KEYS;
	if (fl & KB_NL_SRC)
		need[n++] = KBLOOM_A_SRC;
	if (!kb_require(info, need, n))
		return -EINVAL;
	info->user_ptr[0] = kn;
	info->user_ptr[1] = NULL;
	if (!(fl & KB_NL_LOCK))
		return 0;
	mutex_lock(&kn->lock);
	if (!(fl & KB_NL_FIND))
		return 0;
	info->user_ptr[1] = kb_find(kn, info);
	if (info->user_ptr[1]) {
		/*
		 * Every op on a found filter reads it, or changes what it
		 * read (CLEAR: digests queued before it are cleared too).
		 */
		kb_ring_settle(&((struct kb_obj *)info->user_ptr[1])->ring);
		return 0;
	}
	mutex_unlock(&kn->lock);
	return -ENOENT;
}

static void kb_post_doit(const struct kb_genl_doit_ops *ops,
			 struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = info->user_ptr[0];

	if (ops->internal_flags & KB_NL_LOCK)
		mutex_unlock(&kn->lock);
}

#define KB_OP(_cmd, _doit, _dumpit, _flags) {			\
	.cmd = (_cmd),						\
	.internal_flags = (_flags),				\
	.doit = (_doit),					\
	.dumpit = (_dumpit),					\
}

#define KB_FOUND	(KB_NL_NAME | KB_NL_LOCK | KB_NL_FIND)

/* Every op inherits the family's strict policy (resv_start_op is 0). */
static const struct genl_multicast_group kb_mcgrps[] = {
	[KB_MCGRP_EVENTS] = { .name = KBLOOM_MCGRP_EVENTS,
			      .flags = GENL_MCAST_CAP_NET_ADMIN },
};

/* Their permission flag is set at init, from userns_admin. */
static struct genl_ops kb_ops[] __ro_after_init = {
	KB_OP(KBLOOM_CMD_CREATE, kb_cmd_create, NULL, KB_NL_NAME | KB_NL_LOCK),
	KB_OP(KBLOOM_CMD_DESTROY, kb_cmd_destroy, NULL, KB_NL_LOCK),
	KB_OP(KBLOOM_CMD_GET, kb_cmd_get, kb_dump_get, KB_FOUND),
	/* ADD, TEST and COUNT look up under RCU (or the lock) themselves. */
	KB_OP(KBLOOM_CMD_ADD, kb_cmd_add, NULL, KB_NL_NAME | KB_NL_KEYS),
	KB_OP(KBLOOM_CMD_TEST, kb_cmd_test, NULL, KB_NL_NAME | KB_NL_KEYS),
	KB_OP(KBLOOM_CMD_CLEAR, kb_cmd_clear, NULL, KB_FOUND),
	KB_OP(KBLOOM_CMD_DEL, kb_cmd_del, NULL, KB_FOUND | KB_NL_KEYS),
	KB_OP(KBLOOM_CMD_COUNT, kb_cmd_count, NULL, KB_NL_NAME | KB_NL_KEYS),
	KB_OP(KBLOOM_CMD_MERGE, kb_cmd_merge, NULL, KB_FOUND | KB_NL_SRC),
	KB_OP(KBLOOM_CMD_ESTIMATE, kb_cmd_estimate, NULL, KB_FOUND | KB_NL_SRC),
	KB_OP(KBLOOM_CMD_QUERY, kb_cmd_query, NULL, KB_FOUND | KB_NL_KEYS),
	/* ATTACH and IMPORT check more before they look the filter up. */
	KB_OP(KBLOOM_CMD_ATTACH, kb_cmd_attach, NULL, KB_NL_NAME | KB_NL_LOCK),
	KB_OP(KBLOOM_CMD_DETACH, kb_cmd_detach, NULL, KB_FOUND),
	KB_OP(KBLOOM_CMD_DIGEST, kb_cmd_digest, NULL, 0),
	KB_OP(KBLOOM_CMD_EXPORT, NULL, kb_dump_export, 0),
	KB_OP(KBLOOM_CMD_IMPORT, kb_cmd_import, NULL, KB_NL_NAME | KB_NL_LOCK),
	KB_OP(KBLOOM_CMD_STATUS, kb_cmd_status, NULL, KB_NL_LOCK),
};

struct genl_family kb_family __ro_after_init = {
	.name = KBLOOM_GENL_NAME,
	.version = KBLOOM_GENL_VERSION,
	.maxattr = KBLOOM_A_MAX,
	.policy = kb_policy,
	.netnsok = true,
	.parallel_ops = true,	/* the registry does its own locking */
	.pre_doit = kb_pre_doit,
	.post_doit = kb_post_doit,
	.ops = kb_ops,
	.n_ops = ARRAY_SIZE(kb_ops),
	.mcgrps = kb_mcgrps,
	.n_mcgrps = ARRAY_SIZE(kb_mcgrps),
	.module = THIS_MODULE,
};

static struct netlink_range_validation kb_param_ranges[KB_P_NUM] __ro_after_init;

/* A parameter is its field's width, within its row's bounds if it has any. */
static void kb_policy_init(void)
{
	const struct kb_param_def *p;
	struct nla_policy *pol;
	int i;

	for (i = 0; i < KB_P_NUM; i++) {
		p = &kb_params[i];
		pol = &kb_policy[p->attr];
		if (p->nest)
			continue;
		pol->type = p->width == sizeof(u64) ? NLA_U64 : NLA_U32;
		if (!p->max)
			continue;
		kb_param_ranges[i].min = p->min;
		kb_param_ranges[i].max = p->max;
		pol->validation_type = NLA_VALIDATE_RANGE_PTR;
		pol->range = &kb_param_ranges[i];
	}
}

int kb_netlink_init(void)
{
	int i;

	kb_policy_init();

	for (i = 0; i < ARRAY_SIZE(kb_ops); i++)
		kb_ops[i].flags = kb_userns_admin() ? GENL_UNS_ADMIN_PERM :
				  GENL_ADMIN_PERM;
	kb_events_init(&kb_family);
	return genl_register_family(&kb_family);
}

void kb_netlink_exit(void)
{
	genl_unregister_family(&kb_family);
}
