/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * kbloom — Bloom filters in kernel memory, driven over generic netlink.
 *
 * This header is THE ABI between the kbloom module and its tools (bloomctl).
 * It is included unchanged by both sides.
 *
 * Family
 * ------
 * Generic netlink family KBLOOM_GENL_NAME, version KBLOOM_GENL_VERSION.
 * The family is network-namespace aware: every filter lives in the netns of
 * the socket that created it and is invisible from any other netns.
 * Every command requires CAP_NET_ADMIN in the user namespace owning the
 * socket's network namespace (GENL_UNS_ADMIN_PERM), reads included: filter
 * names and sizes are configuration, contents are data.
 *
 * Every attribute is validated strictly by a policy: unknown attributes,
 * wrong lengths and out-of-range values are refused with an extended ACK
 * message naming the offending attribute. A refused request changes nothing.
 *
 * Commands
 * --------
 * KBLOOM_CMD_CREATE  (doit)
 *	Request: NAME, TYPE, BITS, HASHES; optional HASH_KEY (16 bytes; a
 *	random key is drawn when absent), CAPACITY (the design capacity, kept
 *	only to be reported back).
 *	Errors: EEXIST (name taken in this netns), ENOSPC (too many filters in
 *	this netns), ENOMEM (allocation failed or the module's memory limit,
 *	module parameter max_memory, would be exceeded), EINVAL (bad values).
 *
 * KBLOOM_CMD_DESTROY (doit)
 *	Request: NAME, or FLAGS with KBLOOM_F_ALL to destroy every filter of
 *	the netns. ENOENT when the name is unknown.
 *
 * KBLOOM_CMD_GET     (doit and dumpit)
 *	doit: request NAME, reply one filter description.
 *	dump: no attribute, one message per filter of the netns. A dump that
 *	straddles a create or destroy is flagged NLM_F_DUMP_INTR; the tool
 *	retries it.
 *	A filter description carries NAME, TYPE, BITS, HASHES, CAPACITY,
 *	MEMORY (bytes of kernel memory), FILL (cells set), GENERATION and a
 *	nested STATS. The hash key is never reported.
 *
 * KBLOOM_CMD_ADD     (doit)
 *	Request: NAME and KEYS, a nest holding one or more KBLOOM_KEYS_A_KEY
 *	attributes (1..KBLOOM_KEY_MAX bytes each). All keys of a message are
 *	added; the reply is the ACK. A message holds as many keys as fit; the
 *	tool splits large batches across messages.
 *
 * KBLOOM_CMD_TEST    (doit)
 *	Request: as ADD. Reply: a KBLOOM_CMD_TEST message with NAME, NKEYS,
 *	NPRESENT and RESULT, a bitmap of ceil(NKEYS / 8) bytes where bit i
 *	(byte i / 8, bit i % 8, least significant first) is set when key i of
 *	the request is present (possibly a false positive) and clear when it
 *	is certainly absent.
 *
 * KBLOOM_CMD_CLEAR   (doit)
 *	Request: NAME. Empties the filter; its shape and hash key are kept.
 *
 * Hashing (so that tools can compute probe positions offline)
 * -----------------------------------------------------------
 * h1 = SipHash-2-4(hash key, key bytes); the 16-byte hash key is read as
 * two little-endian 64-bit words. h2 = kbloom_mix64(h1) (see the engine's
 * hash.h). Probe positions by enhanced double hashing over m = BITS:
 *	x = h1 * m >> 64, y = h2 * m >> 64, probe 0 = x, then for i = 1..k-1:
 *	x = (x + y) mod m, y = (y + i) mod m, probe i = x.
 */
#ifndef _UAPI_LINUX_KBLOOM_H
#define _UAPI_LINUX_KBLOOM_H

#include <linux/const.h>
#include <linux/types.h>

#define KBLOOM_GENL_NAME	"kbloom"
#define KBLOOM_GENL_VERSION	1

/* Limits, enforced by the attribute policies. */
#define KBLOOM_NAME_MAX		32	/* bytes including the trailing NUL */
#define KBLOOM_KEY_MAX		1024	/* bytes in one key */
#define KBLOOM_HASH_KEY_LEN	16	/* bytes in a SipHash key */
#define KBLOOM_HASHES_MAX	32	/* k */
#define KBLOOM_BITS_MIN		64ULL	/* m */
#define KBLOOM_BITS_MAX		_BITULL(33)	/* m: 1 GiB of bits, kvmalloc's limit */

enum kbloom_cmd {
	KBLOOM_CMD_UNSPEC,
	KBLOOM_CMD_CREATE,
	KBLOOM_CMD_DESTROY,
	KBLOOM_CMD_GET,
	KBLOOM_CMD_ADD,
	KBLOOM_CMD_TEST,
	KBLOOM_CMD_CLEAR,
	__KBLOOM_CMD_MAX
};

#define KBLOOM_CMD_MAX (__KBLOOM_CMD_MAX - 1)

/* Filter types (KBLOOM_A_TYPE). */
enum kbloom_type {
	KBLOOM_TYPE_UNSPEC,
	KBLOOM_TYPE_BLOOM,	/* plain bit array, k probes anywhere */
	__KBLOOM_TYPE_MAX
};

#define KBLOOM_TYPE_MAX (__KBLOOM_TYPE_MAX - 1)

/* Flags (KBLOOM_A_FLAGS). */
#define KBLOOM_F_ALL		_BITUL(0)	/* DESTROY: every filter */
#define KBLOOM_F_MASK		KBLOOM_F_ALL

enum kbloom_attr {
	KBLOOM_A_UNSPEC,
	KBLOOM_A_PAD,
	KBLOOM_A_NAME,		/* NUL-terminated string, < KBLOOM_NAME_MAX */
	KBLOOM_A_TYPE,		/* u32, enum kbloom_type */
	KBLOOM_A_BITS,		/* u64, m: KBLOOM_BITS_MIN..KBLOOM_BITS_MAX */
	KBLOOM_A_HASHES,	/* u32, k: 1..KBLOOM_HASHES_MAX */
	KBLOOM_A_HASH_KEY,	/* binary, exactly KBLOOM_HASH_KEY_LEN */
	KBLOOM_A_CAPACITY,	/* u64, design capacity n (informational) */
	KBLOOM_A_FLAGS,		/* u32, KBLOOM_F_* */
	KBLOOM_A_KEYS,		/* nest of KBLOOM_KEYS_A_KEY */
	KBLOOM_A_NKEYS,		/* u32, reply: keys in the request */
	KBLOOM_A_NPRESENT,	/* u32, reply: keys found present */
	KBLOOM_A_RESULT,	/* binary, reply: presence bitmap */
	KBLOOM_A_MEMORY,	/* u64, reply: bytes of kernel memory */
	KBLOOM_A_FILL,		/* u64, reply: cells set */
	KBLOOM_A_GENERATION,	/* u64, reply: bumped on create/clear */
	KBLOOM_A_STATS,		/* nest of KBLOOM_STATS_A_*, reply */
	__KBLOOM_A_MAX
};

#define KBLOOM_A_MAX (__KBLOOM_A_MAX - 1)

enum kbloom_keys_attr {
	KBLOOM_KEYS_A_UNSPEC,
	KBLOOM_KEYS_A_KEY,	/* binary, 1..KBLOOM_KEY_MAX bytes */
	__KBLOOM_KEYS_A_MAX
};

#define KBLOOM_KEYS_A_MAX (__KBLOOM_KEYS_A_MAX - 1)

enum kbloom_stats_attr {
	KBLOOM_STATS_A_UNSPEC,
	KBLOOM_STATS_A_PAD,
	KBLOOM_STATS_A_INSERTS,		/* u64: keys added */
	KBLOOM_STATS_A_QUERIES,		/* u64: keys tested */
	KBLOOM_STATS_A_POSITIVES,	/* u64: tests answered present */
	__KBLOOM_STATS_A_MAX
};

#define KBLOOM_STATS_A_MAX (__KBLOOM_STATS_A_MAX - 1)

#endif /* _UAPI_LINUX_KBLOOM_H */
