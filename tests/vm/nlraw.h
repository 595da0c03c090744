/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A deliberately small raw generic-netlink client for tests: it builds any
 * message byte by byte (including malformed ones bloomctl would never send)
 * and reports the kernel's errno and extack text.
 */
#ifndef KBLOOM_TEST_NLRAW_H
#define KBLOOM_TEST_NLRAW_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "uapi/kbloom.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

#define NLR_BUF (1 << 17)

struct nlr_msg {
	uint8_t buf[NLR_BUF];
	size_t len;
};

struct nlr {
	int fd;
	uint16_t family;
	uint32_t seq;
	char extack[256];		/* last extack message, "" if none */
	uint32_t miss_type;		/* last NLMSGERR_ATTR_MISS_TYPE, 0 if none */
	uint8_t reply[NLR_BUF];		/* last non-ack reply */
	size_t reply_len;
	int nreplies;			/* replies of the last exchange (dumps) */
	bool dump_intr;
	/* Called for every reply message, when set (long dumps). */
	void (*each)(struct nlmsghdr *h, void *arg);
	void *each_arg;
};

static inline struct nlmsghdr *nlr_hdr(struct nlr_msg *m)
{
	return (struct nlmsghdr *)m->buf;
}

static inline void nlr_put(struct nlr_msg *m, uint16_t type, const void *data,
			   size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy(m->buf + m->len + NLA_HDRLEN, data, len);
	memset(m->buf + m->len + NLA_HDRLEN + len, 0,
	       NLA_ALIGN(len) - len);
	m->len += NLA_HDRLEN + NLA_ALIGN(len);
	nlr_hdr(m)->nlmsg_len = m->len;
}

static inline void nlr_put_u32(struct nlr_msg *m, uint16_t type, uint32_t v)
{
	nlr_put(m, type, &v, sizeof(v));
}

static inline void nlr_put_u64(struct nlr_msg *m, uint16_t type, uint64_t v)
{
	nlr_put(m, type, &v, sizeof(v));
}

static inline void nlr_put_str(struct nlr_msg *m, uint16_t type, const char *s)
{
	nlr_put(m, type, s, strlen(s) + 1);
}

/* Returns the offset to hand to nlr_nest_end. */
static inline size_t nlr_nest_start(struct nlr_msg *m, uint16_t type)
{
	size_t off = m->len;

	nlr_put(m, type | NLA_F_NESTED, NULL, 0);
	return off;
}

static inline void nlr_nest_end(struct nlr_msg *m, size_t off)
{
	struct nlattr *a = (struct nlattr *)(m->buf + off);

	a->nla_len = m->len - off;
}

static inline void nlr_init(struct nlr *s, struct nlr_msg *m, uint16_t type,
			    uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr *g;

	memset(m->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nlr_hdr(m)->nlmsg_type = type;
	nlr_hdr(m)->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlr_hdr(m)->nlmsg_seq = ++s->seq;
	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = KBLOOM_GENL_VERSION;
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
	nlr_hdr(m)->nlmsg_len = m->len;
}

static inline void nlr_parse_extack(struct nlr *s, struct nlmsghdr *h)
{
	struct nlmsgerr *e = NLMSG_DATA(h);
	size_t off = sizeof(*e);
	struct nlattr *a;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	while (NLMSG_HDRLEN + off + NLA_HDRLEN <= h->nlmsg_len) {
		a = (struct nlattr *)((uint8_t *)NLMSG_DATA(h) + off);
		if (a->nla_len < NLA_HDRLEN)
			break;
		if (a->nla_type == NLMSGERR_ATTR_MSG)
			snprintf(s->extack, sizeof(s->extack), "%s",
				 (char *)a + NLA_HDRLEN);
		if (a->nla_type == NLMSGERR_ATTR_MISS_TYPE)
			memcpy(&s->miss_type, (char *)a + NLA_HDRLEN, 4);
		off += NLA_ALIGN(a->nla_len);
	}
}

/* The extack of a failed dump: TLVs after NLMSG_DONE's error code. */
static inline void nlr_parse_done_extack(struct nlr *s, struct nlmsghdr *h)
{
	size_t off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(int));
	struct nlattr *a;

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		a = (struct nlattr *)((uint8_t *)h + off);
		if (a->nla_len < NLA_HDRLEN)
			break;
		if (a->nla_type == NLMSGERR_ATTR_MSG)
			snprintf(s->extack, sizeof(s->extack), "%s",
				 (char *)a + NLA_HDRLEN);
		off += NLA_ALIGN(a->nla_len);
	}
}

/*
 * Reads the replies to the request sent last, to its ACK or error (or
 * NLMSG_DONE); 0 or -errno. nreplies counts the others.
 */
static inline int nlr_recv(struct nlr *s)
{
	static uint8_t rx[1 << 18];
	int done = 0, err = 0;

	s->extack[0] = 0;
	s->miss_type = 0;
	s->reply_len = 0;
	s->nreplies = 0;
	s->dump_intr = false;
	while (!done) {
		ssize_t n = recv(s->fd, rx, sizeof(rx), 0);
		struct nlmsghdr *h;

		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != s->seq)
				continue;
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				s->dump_intr = true;
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				nlr_parse_extack(s, h);
				done = 1;
			} else if (h->nlmsg_type == NLMSG_DONE) {
				/* A dump that failed says why here. */
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					err = *(int *)NLMSG_DATA(h);
				nlr_parse_done_extack(s, h);
				done = 1;
			} else {
				s->nreplies++;
				if (s->each)
					s->each(h, s->each_arg);
				if (h->nlmsg_len <= sizeof(s->reply)) {
					memcpy(s->reply, h, h->nlmsg_len);
					s->reply_len = h->nlmsg_len;
				}
			}
		}
	}
	return err;
}

/* Sends @m, reads to the ACK or error (or NLMSG_DONE); 0 or -errno. */
static inline int nlr_send(struct nlr *s, struct nlr_msg *m)
{
	s->extack[0] = 0;
	if (send(s->fd, m->buf, m->len, 0) != (ssize_t)m->len)
		return -errno;
	return nlr_recv(s);
}

/* Finds attribute @type at the top level of the last reply. */
/*
 * Destroys every filter of the caller's namespace; 0 or the error. The
 * fixtures call it in their teardown and in their setup too: a test the
 * harness killed at its timeout never ran its teardown, and the next test
 * must not fail on what it left behind.
 */
static inline int nlr_destroy_all(struct nlr *s, struct nlr_msg *m)
{
	uint32_t all = KBLOOM_F_ALL;

	nlr_init(s, m, s->family, KBLOOM_CMD_DESTROY, 0);
	nlr_put(m, KBLOOM_A_FLAGS, &all, sizeof(all));
	return nlr_send(s, m);
}

static inline struct nlattr *nlr_reply_attr(struct nlr *s, uint16_t type)
{
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

	while (off + NLA_HDRLEN <= s->reply_len) {
		struct nlattr *a = (struct nlattr *)(s->reply + off);

		if (a->nla_len < NLA_HDRLEN)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

static inline int nlr_open(struct nlr *s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nlr_msg *m;
	struct nlattr *a;
	int one = 1, err;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	nlr_init(s, m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->version = 1;
	nlr_put_str(m, CTRL_ATTR_FAMILY_NAME, KBLOOM_GENL_NAME);
	err = nlr_send(s, m);
	free(m);
	if (err)
		return err;
	a = nlr_reply_attr(s, CTRL_ATTR_FAMILY_ID);
	if (!a)
		return -ENOENT;
	memcpy(&s->family, (char *)a + NLA_HDRLEN, 2);
	return 0;
}

/* Request helpers shared by the suites. */

/* Starts a CREATE of @type; the caller adds parameters and sends. */
static inline void create_msg(struct nlr *s, struct nlr_msg *m,
			      const char *name, uint32_t type, uint64_t bits,
			      uint32_t k)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_CREATE, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nlr_put_u32(m, KBLOOM_A_TYPE, type);
	nlr_put_u64(m, KBLOOM_A_BITS, bits);
	nlr_put_u32(m, KBLOOM_A_HASHES, k);
}

/* Creates a plain bloom filter. */
static inline int create(struct nlr *s, struct nlr_msg *m, const char *name,
			 uint64_t bits, uint32_t k)
{
	create_msg(s, m, name, KBLOOM_TYPE_BLOOM, bits, k);
	return nlr_send(s, m);
}

/* Sends @cmd (ADD or TEST) for @n keys "key-<base+i>". */
static inline int keys_cmd(struct nlr *s, struct nlr_msg *m, uint8_t cmd,
		    const char *name, int base, int n)
{
	char key[32];
	size_t nest;
	int i;

	nlr_init(s, m, s->family, cmd, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "key-%d", base + i);
		nlr_put(m, KBLOOM_KEYS_A_KEY, key, strlen(key));
	}
	nlr_nest_end(m, nest);
	return nlr_send(s, m);
}

static inline uint32_t reply_u32(struct nlr *s, uint16_t type)
{
	struct nlattr *a = nlr_reply_attr(s, type);
	uint32_t v = UINT32_MAX;

	if (a)
		memcpy(&v, (char *)a + NLA_HDRLEN, 4);
	return v;
}

/* A u64 attribute's value; UINT64_MAX when @a is NULL. */
static inline uint64_t attr_u64(const struct nlattr *a)
{
	uint64_t v = UINT64_MAX;

	if (a)
		memcpy(&v, (const char *)a + NLA_HDRLEN, 8);
	return v;
}

static inline uint64_t reply_u64(struct nlr *s, uint16_t type)
{
	return attr_u64(nlr_reply_attr(s, type));
}

/* Sends @cmd with only the NAME of a filter (GET, CLEAR, DESTROY, ...). */
static inline int name_cmd(struct nlr *s, struct nlr_msg *m, uint8_t cmd,
			   const char *name)
{
	nlr_init(s, m, s->family, cmd, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	return nlr_send(s, m);
}

static inline int get(struct nlr *s, struct nlr_msg *m, const char *name)
{
	return name_cmd(s, m, KBLOOM_CMD_GET, name);
}

/* Number of filters a full dump of this netns returns. */
static inline int dump_count(struct nlr *s, struct nlr_msg *m)
{
	int err;

	nlr_init(s, m, s->family, KBLOOM_CMD_GET, NLM_F_DUMP);
	err = nlr_send(s, m);
	return err ? err : s->nreplies;
}

/* ---- Scalable filters: SLICE_LIST, as GET gives it and LOAD takes it */

/* The attributes of one nest, by type (up to @max). */
static inline void nest_attrs(const struct nlattr *nest, struct nlattr **tb, int max)
{
	size_t off = NLA_HDRLEN;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	while (off + NLA_HDRLEN <= nest->nla_len) {
		struct nlattr *a = (struct nlattr *)((char *)nest + off);

		if (a->nla_len < NLA_HDRLEN)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) <= max)
			tb[a->nla_type & NLA_TYPE_MASK] = a;
		off += NLA_ALIGN(a->nla_len);
	}
}

/* A slice as SLICE_LIST gives it. */
struct slice {
	uint64_t m, cap, keys, fill;
	uint32_t k;
	bool cur;
};

static inline int slices_of(const struct nlattr *list, struct slice *sl, int max)
{
	struct nlattr *tb[KBLOOM_SLICE_A_MAX + 1];
	size_t off = NLA_HDRLEN;
	int n = 0;

	while (list && off + NLA_HDRLEN <= list->nla_len && n < max) {
		struct nlattr *a = (struct nlattr *)((char *)list + off);

		nest_attrs(a, tb, KBLOOM_SLICE_A_MAX);
		memset(&sl[n], 0, sizeof(sl[n]));
		if (tb[KBLOOM_SLICE_A_BITS])
			memcpy(&sl[n].m, (char *)tb[KBLOOM_SLICE_A_BITS] + NLA_HDRLEN, 8);
		if (tb[KBLOOM_SLICE_A_HASHES])
			memcpy(&sl[n].k, (char *)tb[KBLOOM_SLICE_A_HASHES] + NLA_HDRLEN, 4);
		if (tb[KBLOOM_SLICE_A_CAPACITY])
			memcpy(&sl[n].cap, (char *)tb[KBLOOM_SLICE_A_CAPACITY] + NLA_HDRLEN, 8);
		if (tb[KBLOOM_SLICE_A_KEYS])
			memcpy(&sl[n].keys, (char *)tb[KBLOOM_SLICE_A_KEYS] + NLA_HDRLEN, 8);
		if (tb[KBLOOM_SLICE_A_FILL])
			memcpy(&sl[n].fill, (char *)tb[KBLOOM_SLICE_A_FILL] + NLA_HDRLEN, 8);
		sl[n].cur = tb[KBLOOM_SLICE_A_CURRENT];
		n++;
		off += NLA_ALIGN(a->nla_len);
	}
	return n;
}

/* A SLICE_LIST for CREATE LOAD: BITS, HASHES, CAPACITY, KEYS, CURRENT. */
static inline void put_slices(struct nlr_msg *m, const struct slice *sl, int n)
{
	size_t list = nlr_nest_start(m, KBLOOM_A_SLICE_LIST), one;
	int i;

	for (i = 0; i < n; i++) {
		one = nlr_nest_start(m, KBLOOM_SLICE_LIST_A_SLICE);
		nlr_put_u64(m, KBLOOM_SLICE_A_BITS, sl[i].m);
		nlr_put_u32(m, KBLOOM_SLICE_A_HASHES, sl[i].k);
		if (sl[i].cap)
			nlr_put_u64(m, KBLOOM_SLICE_A_CAPACITY, sl[i].cap);
		nlr_put_u64(m, KBLOOM_SLICE_A_KEYS, sl[i].keys);
		if (sl[i].cur)
			nlr_put(m, KBLOOM_SLICE_A_CURRENT, NULL, 0);
		nlr_nest_end(m, one);
	}
	nlr_nest_end(m, list);
}

/* The module's max_memory parameter (0 when it cannot be read). */
#define NLR_PARAM_MEM "/sys/module/kbloom/parameters/max_memory"

static inline unsigned long long nlr_max_memory(void)
{
	unsigned long long v = 0;
	FILE *f = fopen(NLR_PARAM_MEM, "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static inline void nlr_set_max_memory(unsigned long long v)
{
	FILE *f = fopen(NLR_PARAM_MEM, "w");

	if (f) {
		fprintf(f, "%llu\n", v);
		fclose(f);
	}
}

#endif /* KBLOOM_TEST_NLRAW_H */
