/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The generic netlink side of bloomctl: the socket (optionally inside a
 * named network namespace), family resolution, requests that wait for
 * their ACK, dumps retried on NLM_F_DUMP_INTR, and error reporting with the
 * kernel's extended ACK message.
 */
#ifndef BLOOMCTL_NL_H
#define BLOOMCTL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "../kmod/uapi/kbloom.h"

/*
 * Requests carrying keys stay below this many bytes (nlmsg_alloc_size):
 * KEYS is one attribute, and an attribute's length is 16 bits.
 */
#define KB_MSG_SIZE_KEYS	(60 * 1024)
/* A dump interrupted by a concurrent change is retried this many times. */
#define KB_DUMP_TRIES		5

/* What went wrong with the last request. */
struct kb_nl_error {
	int err;		/* positive errno */
	char why[160];		/* replaces strerror(err) when set */
	char kmsg[256];		/* kernel extack message (NLMSGERR_ATTR_MSG) */
	int attr;		/* top-level attribute at NLMSGERR_ATTR_OFFS */
	int nest_index;		/* index inside KBLOOM_A_KEYS, or -1 */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, or -1 */
};

struct kb_nl {
	struct nl_sock *sk;
	int family;
	struct kb_nl_error error;
};

/*
 * Enters /run/netns/@netns when not NULL, connects and resolves the
 * family. Prints the error and returns -1 on failure.
 */
int kb_nl_open(struct kb_nl *nl, const char *netns);
void kb_nl_close(struct kb_nl *nl);

/* "internal error: netlink message full", and exit 2. */
void kb_nl_full(void) __attribute__((noreturn));

/* A request of @cmd with room for @size bytes (0: a page); exits on OOM. */
struct nl_msg *kb_nl_msg(struct kb_nl *nl, uint8_t cmd, int flags,
			 size_t size);

/*
 * Called for each reply of the family, with its attributes parsed against
 * the description policy (tb has KBLOOM_A_MAX + 1 slots). Returns 0 or a
 * negative errno, usually from kb_nl_fail().
 */
typedef int (*kb_reply_fn)(struct kb_nl *nl, struct nlattr **tb, void *arg);

/*
 * Sends @msg (not freed) and reads until its ACK, an error or the end of a
 * dump. 0, or a negative errno with nl->error filled in.
 */
int kb_nl_request(struct kb_nl *nl, struct nl_msg *msg, kb_reply_fn fn,
		  void *arg);

/*
 * Dumps @cmd; on NLM_F_DUMP_INTR calls @reset (discard what was collected)
 * and starts over, up to KB_DUMP_TRIES times.
 */
int kb_nl_dump(struct kb_nl *nl, uint8_t cmd, kb_reply_fn fn,
	       void (*reset)(void *arg), void *arg);

/* Records a malformed reply: sets error.why, returns -EPROTO. */
int kb_nl_fail(struct kb_nl *nl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * "bloomctl: WHAT: WHY (kernel: MSG; attribute A)" on stderr for the last
 * error; WHAT is formatted from @fmt.
 */
void kb_nl_perror(const struct kb_nl *nl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The last error as kb_nl_perror() puts it after "WHAT: ", in @buf. */
void kb_nl_strerror(const struct kb_nl *nl, char *buf, size_t len);

/* Upper-case attribute name ("BITS") for messages. */
const char *kb_attr_name(int type);

/* Helpers that exit with an internal error when the message is full. */
void kb_put_name(struct nl_msg *msg, const char *name);
void kb_put_u32(struct nl_msg *msg, int type, uint32_t v);
void kb_put_u64(struct nl_msg *msg, int type, uint64_t v);
void kb_put(struct nl_msg *msg, int type, const void *data, size_t len);

#endif
