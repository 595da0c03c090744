// SPDX-License-Identifier: GPL-2.0 OR MIT
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/socket.h>

#include "../kmod/engine/filter.h"
#include "nl.h"
#include "util.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define KB_SOCK_BUF	(1 << 20)

static const char *const attr_names[KBLOOM_A_MAX + 1] = {
	[KBLOOM_A_UNSPEC] = "UNSPEC",
	[KBLOOM_A_PAD] = "PAD",
	[KBLOOM_A_NAME] = "NAME",
	[KBLOOM_A_TYPE] = "TYPE",
	[KBLOOM_A_BITS] = "BITS",
	[KBLOOM_A_HASHES] = "HASHES",
	[KBLOOM_A_HASH_KEY] = "HASH_KEY",
	[KBLOOM_A_CAPACITY] = "CAPACITY",
	[KBLOOM_A_FLAGS] = "FLAGS",
	[KBLOOM_A_KEYS] = "KEYS",
	[KBLOOM_A_NKEYS] = "NKEYS",
	[KBLOOM_A_NPRESENT] = "NPRESENT",
	[KBLOOM_A_RESULT] = "RESULT",
	[KBLOOM_A_MEMORY] = "MEMORY",
	[KBLOOM_A_FILL] = "FILL",
	[KBLOOM_A_GENERATION] = "GENERATION",
	[KBLOOM_A_STATS] = "STATS",
	[KBLOOM_A_SATURATED] = "SATURATED",
	[KBLOOM_A_COUNTS] = "COUNTS",
	[KBLOOM_A_SRC] = "SRC",
	[KBLOOM_A_MERGE_OP] = "MERGE_OP",
	[KBLOOM_A_SRC_FILL] = "SRC_FILL",
	[KBLOOM_A_UNION_FILL] = "UNION_FILL",
	[KBLOOM_A_OVERFLOW] = "OVERFLOW",
	[KBLOOM_A_GROW_ERROR] = "GROW_ERROR",
	[KBLOOM_A_SLICE_LIST] = "SLICE_LIST",
	[KBLOOM_A_OFV_BITS] = "OFV_BITS",
	[KBLOOM_A_LOST] = "LOST",
	[KBLOOM_A_VERSION] = "VERSION",
};

const char *kb_attr_name(int type)
{
	static __thread char buf[32];
	int i;

	if (type >= 0 && type <= KBLOOM_A_MAX && attr_names[type])
		return attr_names[type];
	/* The shape's parameters: the engine's table names them. */
	for (i = 0; i < KB_P_NUM; i++)
		if (kb_params[i].attr == type)
			return kb_params[i].name;
	snprintf(buf, sizeof(buf), "%d", type);
	return buf;
}

/*
 * Replies are parsed against this policy: lengths are checked here, so the
 * callbacks may use nla_get_*() directly. Attributes unknown to this
 * version are ignored (forward compatibility).
 */
static struct nla_policy kb_policy[KBLOOM_A_MAX + 1] = {
	[KBLOOM_A_NAME] = { .type = NLA_STRING, .maxlen = KBLOOM_NAME_MAX },
	[KBLOOM_A_TYPE] = { .type = NLA_U32, .maxlen = 4 },
	[KBLOOM_A_BITS] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_HASHES] = { .type = NLA_U32, .maxlen = 4 },
	[KBLOOM_A_CAPACITY] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_FLAGS] = { .type = NLA_U32, .maxlen = 4 },
	[KBLOOM_A_KEYS] = { .type = NLA_NESTED },
	[KBLOOM_A_NKEYS] = { .type = NLA_U32, .maxlen = 4 },
	[KBLOOM_A_NPRESENT] = { .type = NLA_U32, .maxlen = 4 },
	[KBLOOM_A_RESULT] = { .type = NLA_UNSPEC },
	[KBLOOM_A_MEMORY] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_FILL] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_GENERATION] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_STATS] = { .type = NLA_NESTED },
	[KBLOOM_A_SATURATED] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_COUNTS] = { .type = NLA_UNSPEC },
	[KBLOOM_A_SRC] = { .type = NLA_STRING, .maxlen = KBLOOM_NAME_MAX },
	[KBLOOM_A_MERGE_OP] = { .type = NLA_U32, .maxlen = 4 },
	[KBLOOM_A_SRC_FILL] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_UNION_FILL] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_OVERFLOW] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_GROW_ERROR] = { .type = NLA_U32, .maxlen = 4 },
	[KBLOOM_A_SLICE_LIST] = { .type = NLA_NESTED },
	[KBLOOM_A_OFV_BITS] = { .type = NLA_U32, .maxlen = 4 },
	[KBLOOM_A_LOST] = { .type = NLA_U64, .maxlen = 8 },
	[KBLOOM_A_VERSION] = { .type = NLA_STRING, .maxlen = KBLOOM_VERSION_MAX },
};

/* The shape's parameters' entries, from the engine's table (kb_params[]). */
static void policy_init(void)
{
	static bool done;
	int i;

	if (done)
		return;
	for (i = 0; i < KB_P_NUM; i++) {
		struct nla_policy *p = &kb_policy[kb_params[i].attr];

		if (kb_params[i].nest) {
			p->type = NLA_NESTED;
			continue;
		}
		p->type = kb_params[i].width == 8 ? NLA_U64 : NLA_U32;
		p->maxlen = kb_params[i].width;
	}
	done = true;
}

static void error_reset(struct kb_nl_error *e)
{
	memset(e, 0, sizeof(*e));
	e->attr = -1;
	e->nest_index = -1;
	e->miss_type = -1;
}

static void set_why(struct kb_nl *nl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_why(struct kb_nl *nl, int err, const char *fmt, ...)
{
	va_list ap;

	nl->error.err = err;
	va_start(ap, fmt);
	vsnprintf(nl->error.why, sizeof(nl->error.why), fmt, ap);
	va_end(ap);
}

int kb_nl_fail(struct kb_nl *nl, const char *fmt, ...)
{
	va_list ap;

	nl->error.err = EPROTO;
	memcpy(nl->error.why, "malformed reply from the kernel: ", 33);
	va_start(ap, fmt);
	vsnprintf(nl->error.why + 33, sizeof(nl->error.why) - 33, fmt, ap);
	va_end(ap);
	return -EPROTO;
}

static int enter_netns(const char *netns)
{
	char path[4096];
	int fd;

	if (!*netns || strchr(netns, '/') || !strcmp(netns, ".") ||
	    !strcmp(netns, "..")) {
		errorf("invalid network namespace name '%s'", quote(netns));
		return -1;
	}
	if ((size_t)snprintf(path, sizeof(path), "/run/netns/%s", netns) >=
	    sizeof(path)) {
		errorf("invalid network namespace name '%s': too long",
		       quote(netns));
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errorf("unable to open network namespace '%s' (%s): %s",
		       quote(netns), path, strerror(errno));
		return -1;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		errorf("unable to enter network namespace '%s': %s",
		       quote(netns), strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int kb_nl_open(struct kb_nl *nl, const char *netns)
{
	int one = 1, fd, r;

	memset(nl, 0, sizeof(*nl));
	error_reset(&nl->error);
	if (netns && enter_netns(netns))
		return -1;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		errorf("unable to allocate a netlink socket: out of memory");
		return -1;
	}
	r = genl_connect(nl->sk);
	if (r < 0) {
		errorf("unable to open a generic netlink socket: %s",
		       nl_geterror(r));
		goto fail;
	}
	fd = nl_socket_get_fd(nl->sk);
	/* Best effort: an old kernel just gives no extack text. */
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/* Errors need not echo our (up to 60 KiB) request back. */
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_set_buffer_size(nl->sk, KB_SOCK_BUF, KB_SOCK_BUF);
	nl_socket_enable_msg_peek(nl->sk);

	r = genl_ctrl_resolve(nl->sk, KBLOOM_GENL_NAME);
	if (r == -NLE_OBJ_NOTFOUND) {
		errorf("kbloom module is not loaded (genetlink family '%s' not found): load it as root with 'modprobe kbloom' (installed by make install or make dkms-install) or 'insmod kbloom.ko' from a build",
		       KBLOOM_GENL_NAME);
		goto fail;
	}
	if (r < 0) {
		errorf("unable to resolve genetlink family '%s': %s",
		       KBLOOM_GENL_NAME, nl_geterror(r));
		goto fail;
	}
	nl->family = r;
	return 0;
fail:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return -1;
}

void kb_nl_close(struct kb_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

static void oom(void)
{
	errorf("out of memory");
	exit(EXIT_ERROR);
}

struct nl_msg *kb_nl_msg(struct kb_nl *nl, uint8_t cmd, int flags,
			 size_t size)
{
	struct nl_msg *msg;

	msg = size ? nlmsg_alloc_size(size) : nlmsg_alloc();
	if (!msg)
		oom();
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, flags,
			 cmd, KBLOOM_GENL_VERSION))
		oom();
	return msg;
}

void kb_nl_full(void)
{
	errorf("internal error: netlink message full");
	exit(EXIT_ERROR);
}

void kb_put_name(struct nl_msg *msg, const char *name)
{
	if (nla_put_string(msg, KBLOOM_A_NAME, name) < 0)
		kb_nl_full();
}

void kb_put_u32(struct nl_msg *msg, int type, uint32_t v)
{
	if (nla_put_u32(msg, type, v) < 0)
		kb_nl_full();
}

void kb_put_u64(struct nl_msg *msg, int type, uint64_t v)
{
	if (nla_put_u64(msg, type, v) < 0)
		kb_nl_full();
}

void kb_put(struct nl_msg *msg, int type, const void *data, size_t len)
{
	if (nla_put(msg, type, len, data) < 0)
		kb_nl_full();
}

/* State of one request while its replies are read. */
struct kb_req {
	struct kb_nl *nl;
	struct nl_msg *sent;
	kb_reply_fn fn;
	void *arg;
	int err;		/* negative errno, first one wins */
	bool done;		/* ACK, error or NLMSG_DONE seen */
	bool intr;		/* NLM_F_DUMP_INTR seen */
};

/*
 * Locates the attribute of our request at byte @off (from the start of its
 * nlmsghdr), for NLMSGERR_ATTR_OFFS: a top-level attribute, and for
 * KBLOOM_A_KEYS also the index of the key inside the nest.
 */
static void locate_attr(struct kb_req *req, uint32_t off)
{
	struct nlmsghdr *nlh = nlmsg_hdr(req->sent);
	struct nlattr *head = genlmsg_attrdata(nlmsg_data(nlh), 0);
	int len = genlmsg_attrlen(nlmsg_data(nlh), 0), rem, rem2, i;
	struct nlattr *a, *b;

	nla_for_each_attr(a, head, len, rem) {
		uint32_t start = (char *)a - (char *)nlh;

		if (off < start || off >= start + nla_total_size(nla_len(a)))
			continue;
		req->nl->error.attr = nla_type(a);
		if (off == start || nla_type(a) != KBLOOM_A_KEYS)
			return;
		i = 0;
		nla_for_each_nested(b, a, rem2) {
			uint32_t s2 = (char *)b - (char *)nlh;

			if (off >= s2 && off < s2 + nla_total_size(nla_len(b))) {
				req->nl->error.nest_index = i;
				return;
			}
			i++;
		}
		return;
	}
}

/*
 * Extended ACK TLVs of an NLMSG_ERROR or NLMSG_DONE message: they start at
 * @off bytes from the header (after the error code and, unless
 * NLM_F_CAPPED, the echoed request).
 */
static void parse_extack(struct kb_req *req, struct nlmsghdr *nlh, size_t off)
{
	static struct nla_policy pol[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
		[NLMSGERR_ATTR_OFFS] = { .type = NLA_U32 },
		[NLMSGERR_ATTR_MISS_TYPE] = { .type = NLA_U32 },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	struct kb_nl_error *e = &req->nl->error;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= nlh->nlmsg_len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)nlh + off),
		      nlh->nlmsg_len - off, pol) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(e->kmsg, sizeof(e->kmsg), "%.*s",
			 nla_len(tb[NLMSGERR_ATTR_MSG]),
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		e->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	if (tb[NLMSGERR_ATTR_OFFS] && req->sent)
		locate_attr(req, nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
}

static int err_cb(struct sockaddr_nl *who, struct nlmsgerr *nlerr, void *arg)
{
	struct kb_req *req = arg;
	/* libnl hands us the payload; the header is just before it. */
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)nlerr - NLMSG_HDRLEN);
	size_t hlen = sizeof(*nlerr);

	(void)who;
	req->done = true;
	if (!req->err)
		req->err = nlerr->error < 0 ? nlerr->error : -EPROTO;
	req->nl->error.err = -req->err;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		/* The whole request is echoed after the error code. */
		if (nlerr->msg.nlmsg_len < NLMSG_HDRLEN)
			return NL_STOP;
		hlen += nlerr->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	parse_extack(req, nlh, NLMSG_HDRLEN + NLMSG_ALIGN(hlen));
	return NL_STOP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	struct kb_req *req = arg;

	(void)msg;
	req->done = true;
	return NL_STOP;
}

/* End of a dump: its payload is an int, negative when the dump failed. */
static int finish_cb(struct nl_msg *msg, void *arg)
{
	struct kb_req *req = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	req->done = true;
	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		req->intr = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		int err;

		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0 && !req->err) {
			req->err = err;
			req->nl->error.err = -err;
			parse_extack(req, nlh,
				     NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(int)));
		}
	}
	return NL_STOP;
}

static int intr_cb(struct nl_msg *msg, void *arg)
{
	struct kb_req *req = arg;

	(void)msg;
	req->intr = true;
	return NL_OK;
}

static int msg_in_cb(struct nl_msg *msg, void *arg)
{
	struct kb_req *req = arg;

	if (nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP_INTR)
		req->intr = true;
	return NL_OK;
}

static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct kb_req *req = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[KBLOOM_A_MAX + 1];
	int r;

	if (nlh->nlmsg_type != req->nl->family || req->err)
		return NL_OK;	/* not ours, or already failed: drain */
	if (!req->fn) {
		req->err = kb_nl_fail(req->nl, "unexpected reply");
		return NL_OK;
	}
	if (!genlmsg_valid_hdr(nlh, 0)) {
		req->err = kb_nl_fail(req->nl, "short message");
		return NL_OK;
	}
	policy_init();
	r = genlmsg_parse(nlh, 0, tb, KBLOOM_A_MAX, kb_policy);
	if (r < 0) {
		req->err = kb_nl_fail(req->nl, "bad attribute (%s)",
				      nl_geterror(r));
		return NL_OK;
	}
	r = req->fn(req->nl, tb, req->arg);
	if (r < 0)
		req->err = r;
	return NL_OK;
}

static int do_request(struct kb_nl *nl, struct nl_msg *msg, kb_reply_fn fn,
		      void *arg, bool *intr)
{
	struct kb_req req = {
		.nl = nl, .sent = msg, .fn = fn, .arg = arg,
	};
	struct nl_cb *cb;
	int r;

	error_reset(&nl->error);
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		oom();
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, &req);
	nl_cb_set(cb, NL_CB_MSG_IN, NL_CB_CUSTOM, msg_in_cb, &req);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, intr_cb, &req);
	nl_cb_err(cb, NL_CB_CUSTOM, err_cb, &req);

	r = nl_send_auto(nl->sk, msg);
	if (r < 0) {
		set_why(nl, EIO, "unable to send the request: %s",
			nl_geterror(r));
		nl_cb_put(cb);
		return -EIO;
	}
	while (!req.done) {
		r = nl_recvmsgs(nl->sk, cb);
		if (req.done)
			break;
		if (r == -NLE_DUMP_INTR) {
			/* libnl's own report; the dump is over. */
			req.intr = true;
			break;
		}
		if (r < 0) {
			set_why(nl, EIO, "unable to read the reply: %s",
				nl_geterror(r));
			req.err = -EIO;
			break;
		}
	}
	nl_cb_put(cb);
	if (intr)
		*intr = req.intr;
	return req.err;
}

int kb_nl_request(struct kb_nl *nl, struct nl_msg *msg, kb_reply_fn fn,
		  void *arg)
{
	return do_request(nl, msg, fn, arg, NULL);
}

int kb_nl_dump(struct kb_nl *nl, uint8_t cmd, kb_reply_fn fn,
	       void (*reset)(void *arg), void *arg)
{
	int tries, r;

	for (tries = 0; tries < KB_DUMP_TRIES; tries++) {
		struct nl_msg *msg = kb_nl_msg(nl, cmd, NLM_F_DUMP, 0);
		bool intr = false;

		if (reset)
			reset(arg);
		r = do_request(nl, msg, fn, arg, &intr);
		nlmsg_free(msg);
		if (r)
			return r;
		if (!intr)
			return 0;
	}
	error_reset(&nl->error);
	set_why(nl, EAGAIN,
		"dump interrupted by concurrent changes %d times in a row",
		KB_DUMP_TRIES);
	return -EAGAIN;
}

/* Whether @msg names attribute @attr ("HASH_KEY" as "hash key" too). */
static bool mentions(const char *msg, const char *attr)
{
	char words[64];
	size_t i;

	if (strcasestr(msg, attr))
		return true;
	snprintf(words, sizeof(words), "%s", attr);
	for (i = 0; words[i]; i++)
		if (words[i] == '_')
			words[i] = ' ';
	return strcasestr(msg, words) != NULL;
}

void kb_nl_strerror(const struct kb_nl *nl, char *buf, size_t len)
{
	const struct kb_nl_error *e = &nl->error;
	char kernel[512] = "";
	size_t n = 0;

	if (e->kmsg[0])
		n += snprintf(kernel + n, sizeof(kernel) - n, "%s", e->kmsg);
	/* Name the attribute the kernel pointed at, unless its text does. */
	if (e->attr >= 0 && n < sizeof(kernel) &&
	    !mentions(e->kmsg, kb_attr_name(e->attr))) {
		n += snprintf(kernel + n, sizeof(kernel) - n,
			      "%sattribute %s", n ? "; " : "",
			      kb_attr_name(e->attr));
		if (e->nest_index >= 0 && n < sizeof(kernel))
			n += snprintf(kernel + n, sizeof(kernel) - n,
				      " #%d", e->nest_index);
	}
	if (e->miss_type >= 0 && n < sizeof(kernel))
		n += snprintf(kernel + n, sizeof(kernel) - n,
			      "%smissing attribute %s", n ? "; " : "",
			      kb_attr_name(e->miss_type));

	snprintf(buf, len, "%s%s%s%s%s",
		 e->why[0] ? e->why : strerror(e->err ? e->err : EIO),
		 kernel[0] ? " (kernel: " : "", kernel, kernel[0] ? ")" : "",
		 /* the kernel says nothing of why: the rule, in one line */
		 e->err == EPERM && !e->why[0] && !kernel[0] ?
		 " (kbloom needs CAP_NET_ADMIN in the initial user namespace, or in the netns's own when loaded with userns_admin=1)" :
		 "");
}

void kb_nl_perror(const struct kb_nl *nl, const char *fmt, ...)
{
	char what[512], why[1200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	kb_nl_strerror(nl, why, sizeof(why));
	errorf("%s: %s", what, why);
}
