// SPDX-License-Identifier: GPL-2.0
/*
 * A coverage-guided netlink fuzzer for the kbloom family, in the test VM on
 * the debug kernel (CONFIG_KCOV, with only kbloom.ko instrumented: make
 * kmod-debug builds it with KCOV_INSTRUMENT=y, so every PC in the trace
 * buffer is one of the module's):
 *
 *   corpus/ (programs) --pick, mutate--> program: requests on 4 sockets,
 *        2 in a netns of its own, 2 in another; dumps left half read, sockets
 *        closed mid-restore or mid-dump, datagrams through attached hooks
 *   each request: KCOV_ENABLE (KCOV_TRACE_PC) --send, read the answer-->
 *        KCOV_DISABLE; the module's PCs and edges it reached
 *   a program that reached a PC or an edge never seen --> kept, corpus/
 *
 * The mutations know the family (kmod/uapi/kbloom.h): its commands, each
 * command's attributes and their ranges, the filter types and their
 * parameters, so most requests pass the policies and reach the engine;
 * then attributes are changed, dropped, duplicated, added, or bytes
 * flipped. Restores are learnt at start: real EXPORTs of a bloom,
 * counting, scalable (3 slices), dcf (a widened OFV) and transforms
 * filter become programs (CREATE LOAD, IMPORT..., LOADED) to mutate.
 * Every program starts from an empty module: the sockets it used are
 * closed, every filter of both netns destroyed after it.
 *
 * Checks: every request answered (or an error in -4095..-1, never a
 * silence of 10 s); no kernel report in /dev/kmsg (the program that
 * caused one is saved as corpus/crash-*, printed, and the run stops);
 * every PC in the trace buffer lies in kbloom.ko; every byte charged
 * given back (STATUS MEM_NETNS of both netns) at the end.
 *
 * Environment:
 *   KBLOOM_KCOVFUZZ_SECONDS  time budget (default 60); a slow host that has
 *                            not sent 1000 messages by then goes on until
 *                            it has, for three budgets more at most
 *   KBLOOM_KCOVFUZZ_N        messages at most (default: no limit)
 *   KBLOOM_KCOVFUZZ_SEED     the seed (default: drawn, printed)
 *   KBLOOM_KCOVFUZZ_CORPUS   the corpus directory, read and written
 *                            (default: a scratch copy of the committed
 *                            tests/vm/kcovfuzz_corpus)
 *   KBLOOM_KCOVFUZZ_MINIMIZE DIR: the corpus's programs that reach what it
 *                            reaches, smallest first, are written to DIR
 *                            (with KBLOOM_KCOVFUZZ_N=0: a smaller seed)
 *   KBLOOM_KCOVFUZZ_BLIND    set: run without KCOV (a kernel without it;
 *                            no coverage, nothing kept: for trying the
 *                            fuzzer itself on a stock kernel)
 *   KBLOOM_KCOVFUZZ_FAILNTH  permille of requests run with
 *                            /proc/thread-self/fail-nth armed (an
 *                            allocation failure on the way; default 0)
 * A run repeats with the same seed and corpus, up to what timing changes
 * (window rotations, the time budget).
 * On a kernel without KCOV (the stock tiers) it skips.
 *
 * The approach is syzkaller's (Vyukov, Konovalov, google/syzkaller) and
 * the kernel's Documentation/dev-tools/kcov.rst, in small.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "nlraw.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define KCOV_INIT_TRACE	_IOR('c', 1, unsigned long)
#define KCOV_ENABLE	_IO('c', 100)
#define KCOV_DISABLE	_IO('c', 101)
#define KCOV_TRACE_PC	0
#define COVER_SIZE	(1 << 18)	/* PCs per request, at most */


/* ---- Randomness: xorshift64*, seeded once */

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

static uint32_t rn(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static bool one_in(uint32_t n)
{
	return rn(n) == 0;
}

/* ---- Programs: what the corpus holds */

enum op {
	OP_REQ,		/* send, read to the answer */
	OP_DUMP_PART,	/* send a dump request, read one batch, leave the rest */
	OP_DRAIN,	/* read what the socket holds (a dump left half read) */
	OP_CLOSE,	/* close the socket (mid-restore, mid-dump) */
	OP_PACKET,	/* datagrams, or raw IP (IPIP, GRE), to lo in the socket's netns */
	OP_SLEEP,	/* 1-16 ms: windows rotate */
	OP_MAX
};

#define SLOTS		4	/* 0, 1: this netns; 2, 3: the other one */
#define PROG_OPS	24
#define MSG_MAX		8192	/* bytes of one request in a program */

struct pop {
	uint8_t op, slot;
	uint16_t len;
	uint8_t *msg;		/* nlmsghdr + genlmsghdr + attributes */
};

struct prog {
	int n;
	struct pop ops[PROG_OPS];
};

static void prog_free(struct prog *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		free(p->ops[i].msg);
	p->n = 0;
}

static void prog_copy(struct prog *dst, const struct prog *src)
{
	int i;

	*dst = *src;
	for (i = 0; i < src->n; i++) {
		dst->ops[i].msg = malloc(MSG_MAX);
		if (!dst->ops[i].msg)
			abort();
		memcpy(dst->ops[i].msg, src->ops[i].msg, src->ops[i].len);
	}
}

/* Appends an op (its message copied); false when the program is full. */
static bool prog_add(struct prog *p, uint8_t op, uint8_t slot,
		     const void *msg, size_t len)
{
	struct pop *o;

	if (p->n >= PROG_OPS || len > MSG_MAX)
		return false;
	o = &p->ops[p->n++];
	o->op = op;
	o->slot = slot % SLOTS;
	o->len = len;
	o->msg = malloc(MSG_MAX);
	if (!o->msg)
		abort();
	if (len)
		memcpy(o->msg, msg, len);
	return true;
}

/*
 * On disk: "KBF1", then per op: op, slot, length (2 bytes, little-endian)
 * and the message.
 */
static size_t prog_serialize(const struct prog *p, uint8_t *out, size_t cap)
{
	size_t len = 4;
	int i;

	memcpy(out, "KBF1", 4);
	for (i = 0; i < p->n; i++) {
		if (len + 4 + p->ops[i].len > cap)
			break;
		out[len] = p->ops[i].op;
		out[len + 1] = p->ops[i].slot;
		out[len + 2] = p->ops[i].len & 0xff;
		out[len + 3] = p->ops[i].len >> 8;
		memcpy(out + len + 4, p->ops[i].msg, p->ops[i].len);
		len += 4 + p->ops[i].len;
	}
	return len;
}

static bool prog_parse(struct prog *p, const uint8_t *in, size_t len)
{
	size_t off = 4;

	p->n = 0;
	if (len < 4 || memcmp(in, "KBF1", 4))
		return false;
	while (off + 4 <= len && p->n < PROG_OPS) {
		size_t l = in[off + 2] | in[off + 3] << 8;

		if (off + 4 + l > len || in[off] >= OP_MAX)
			break;
		prog_add(p, in[off], in[off + 1], in + off + 4, l);
		off += 4 + l;
	}
	return p->n > 0;
}

static uint64_t fnv64(const uint8_t *b, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* ---- Building requests, structure-aware */

static const char *const names[] = { "fz0", "fz1", "fz2", "fz3", "fzs", "fzd" };

static struct nlr_msg gm;	/* the message being built */

static void msg_start(uint8_t cmd, uint16_t flags)
{
	struct nlr dummy = { .seq = 0 };

	nlr_init(&dummy, &gm, 0, cmd, flags);
}

static const char *pick_name(void)
{
	return names[rn(ARRAY_SIZE(names))];
}

/* A value at or near a limit, or anything, for a u32 of range lo..hi. */
static uint64_t pick_int(uint64_t lo, uint64_t hi)
{
	switch (rn(8)) {
	case 0: return lo;
	case 1: return hi;
	case 2: return lo ? lo - 1 : 0;
	case 3: return hi + 1;
	case 4: return rnd();
	default: return hi > lo ? lo + rnd() % (hi - lo + 1) : lo;
	}
}

static void put_key_nest(int n, bool tuples, int dims)
{
	size_t nest = nlr_nest_start(&gm, KBLOOM_A_KEYS), t;
	char key[32];
	int i, d;

	for (i = 0; i < n && gm.len < MSG_MAX - 128; i++) {
		int len = snprintf(key, sizeof(key), "k%u", rn(one_in(4) ? 4096 : 48));

		if (!tuples) {
			nlr_put(&gm, KBLOOM_KEYS_A_KEY, key, len);
			continue;
		}
		t = nlr_nest_start(&gm, KBLOOM_KEYS_A_TUPLE);
		for (d = 1; d <= dims; d++)
			if (!one_in(6))
				nlr_put(&gm, d, key, len);
		nlr_nest_end(&gm, t);
	}
	nlr_nest_end(&gm, nest);
}

static const uint32_t all_types[] = {
	KBLOOM_TYPE_BLOOM, KBLOOM_TYPE_PARTITIONED, KBLOOM_TYPE_BLOCKED,
	KBLOOM_TYPE_COUNTING, KBLOOM_TYPE_DLEFT, KBLOOM_TYPE_STABLE,
	KBLOOM_TYPE_MULTI, KBLOOM_TYPE_SCALABLE, KBLOOM_TYPE_DCF,
	KBLOOM_TYPE_TRANSFORMS,
};

/* The attributes a CREATE of @type takes, mostly within range. */
static void put_create(uint32_t type, bool load)
{
	uint64_t bits = 512ULL * (1 + rn(32));
	uint32_t flags = 0;
	size_t nest;

	nlr_put_str(&gm, KBLOOM_A_NAME, pick_name());
	nlr_put_u32(&gm, KBLOOM_A_TYPE, type);
	if (type == KBLOOM_TYPE_DLEFT)
		bits = 4 * 8 * (1 + rn(64));
	if (type == KBLOOM_TYPE_PARTITIONED && one_in(2))
		bits = 3 * 64 * (1 + rn(40));
	nlr_put_u64(&gm, KBLOOM_A_BITS, one_in(16) ? pick_int(KBLOOM_BITS_MIN, 1 << 22) : bits);
	nlr_put_u32(&gm, KBLOOM_A_HASHES,
		    type == KBLOOM_TYPE_DLEFT || type == KBLOOM_TYPE_TRANSFORMS ?
		    1 : 1 + rn(one_in(8) ? KBLOOM_HASHES_MAX : 6));
	if (one_in(4)) {
		uint8_t key[KBLOOM_HASH_KEY_LEN] = { 1, 2, 3 };

		key[4] = rn(4);
		nlr_put(&gm, KBLOOM_A_HASH_KEY, key, sizeof(key));
	}
	switch (type) {
	case KBLOOM_TYPE_COUNTING:
		nlr_put_u32(&gm, KBLOOM_A_COUNTER_BITS, 4 << rn(3));
		if (one_in(2))
			nlr_put_u32(&gm, KBLOOM_A_UPDATE, rn(2));
		break;
	case KBLOOM_TYPE_STABLE:
		nlr_put_u32(&gm, KBLOOM_A_COUNTER_BITS, 1 << rn(4));
		nlr_put_u32(&gm, KBLOOM_A_DECREMENT, pick_int(1, 16));
		break;
	case KBLOOM_TYPE_DLEFT:
		nlr_put_u32(&gm, KBLOOM_A_SUBTABLES, 4);
		nlr_put_u32(&gm, KBLOOM_A_BUCKET_CELLS, 8);
		nlr_put_u32(&gm, KBLOOM_A_FP_BITS, pick_int(4, 24));
		break;
	case KBLOOM_TYPE_MULTI: {
		int d, dims = one_in(2) ? 3 : 1 + rn(KBLOOM_DIMS_MAX);

		nest = nlr_nest_start(&gm, KBLOOM_A_DIMS);
		for (d = 0; d < dims; d++) {
			static const char *const dn[] = { "src", "dst", "port", "x" };

			nlr_put_str(&gm, KBLOOM_DIMS_A_NAME, dn[d % 4]);
		}
		nlr_nest_end(&gm, nest);
		break;
	}
	case KBLOOM_TYPE_SCALABLE:
		nlr_put_u64(&gm, KBLOOM_A_CAPACITY, 8 + rn(64));
		if (one_in(2))
			nlr_put_u32(&gm, KBLOOM_A_GROWTH, pick_int(KBLOOM_GROWTH_MIN,
								   KBLOOM_GROWTH_MAX));
		if (one_in(2))
			nlr_put_u32(&gm, KBLOOM_A_TIGHTEN, pick_int(KBLOOM_TIGHTEN_MIN,
								    KBLOOM_TIGHTEN_MAX));
		if (load) {
			nest = nlr_nest_start(&gm, KBLOOM_A_SLICE_LIST);
			size_t one = nlr_nest_start(&gm, KBLOOM_SLICE_LIST_A_SLICE);

			nlr_put_u64(&gm, KBLOOM_SLICE_A_BITS, bits);
			nlr_put_u32(&gm, KBLOOM_SLICE_A_HASHES, 2);
			nlr_put_u64(&gm, KBLOOM_SLICE_A_CAPACITY, 16);
			nlr_put(&gm, KBLOOM_SLICE_A_CURRENT, NULL, 0);
			nlr_nest_end(&gm, one);
			nlr_nest_end(&gm, nest);
		}
		break;
	case KBLOOM_TYPE_DCF:
		nlr_put_u32(&gm, KBLOOM_A_COUNTER_BITS, 2 << rn(3));
		if (load && one_in(2))
			nlr_put_u32(&gm, KBLOOM_A_OFV_BITS, 1 << rn(6));
		break;
	default:
		break;
	}
	if (!load && type != KBLOOM_TYPE_STABLE && type != KBLOOM_TYPE_SCALABLE &&
	    type != KBLOOM_TYPE_DCF && one_in(3)) {
		nlr_put_u32(&gm, KBLOOM_A_WINDOWS, 2 + rn(4));
		nlr_put_u64(&gm, KBLOOM_A_INTERVAL, pick_int(10, 300));
	}
	if (load)
		flags |= KBLOOM_F_LOAD;
	else if (one_in(5))
		flags |= KBLOOM_F_EXIST;
	if (flags)
		nlr_put_u32(&gm, KBLOOM_A_FLAGS, flags);
}

/* A request of @cmd, mostly valid. */
static void gen_request(uint8_t cmd)
{
	uint8_t pkt[80] = { 0x45, 0, 0, 60, 0, 1, 0x40, 0, 64, 17, 0, 0,
			    10, 0, 0, 1, 10, 0, 0, 2, 0x30, 0x39, 0, 53 };
	uint16_t flags = 0;
	size_t i;

	if (cmd == KBLOOM_CMD_EXPORT || (cmd == KBLOOM_CMD_GET && one_in(2)))
		flags = NLM_F_DUMP;
	msg_start(cmd, flags);
	switch (cmd) {
	case KBLOOM_CMD_CREATE:
		put_create(all_types[rn(ARRAY_SIZE(all_types))], one_in(6));
		break;
	case KBLOOM_CMD_ADD: case KBLOOM_CMD_TEST: case KBLOOM_CMD_DEL:
	case KBLOOM_CMD_COUNT: case KBLOOM_CMD_QUERY:
		nlr_put_str(&gm, KBLOOM_A_NAME, pick_name());
		put_key_nest(1 + rn(one_in(8) ? 400 : 24), one_in(4), 1 + rn(3));
		break;
	case KBLOOM_CMD_MERGE: case KBLOOM_CMD_ESTIMATE:
		nlr_put_str(&gm, KBLOOM_A_NAME, pick_name());
		nlr_put_str(&gm, KBLOOM_A_SRC, pick_name());
		if (cmd == KBLOOM_CMD_MERGE || one_in(4))
			nlr_put_u32(&gm, KBLOOM_A_MERGE_OP, rn(3));
		break;
	case KBLOOM_CMD_ATTACH:
		nlr_put_str(&gm, KBLOOM_A_NAME, pick_name());
		nlr_put_u32(&gm, KBLOOM_A_HOOK, one_in(2) ? KBLOOM_HOOK_OUTPUT :
			    1 + rn(KBLOOM_HOOK_MAX));
		if (!one_in(4))
			nlr_put_u32(&gm, KBLOOM_A_DIGEST, 1 + rn(KBLOOM_DIGEST_MAX));
		if (one_in(2))
			nlr_put_u32(&gm, KBLOOM_A_FAMILY, rn(3));
		if (one_in(2))
			nlr_put_str(&gm, KBLOOM_A_IFNAME, one_in(4) ? "nosuch0" : "lo");
		if (one_in(6))
			nlr_put_u32(&gm, KBLOOM_A_FLAGS, KBLOOM_F_EXIST);
		break;
	case KBLOOM_CMD_DIGEST: {
		size_t len = 1 + rn(sizeof(pkt));

		if (one_in(3)) {	/* IPv6 */
			memset(pkt, 0, 40);
			pkt[0] = 0x60;
			pkt[5] = 40;
			pkt[6] = one_in(2) ? 17 : 44;
			pkt[7] = 64;
		}
		for (i = 24; i < sizeof(pkt); i++)
			pkt[i] = rnd();
		if (one_in(4))
			pkt[rn(24)] = rnd();
		nlr_put(&gm, KBLOOM_A_PACKET, pkt, len);
		nlr_put_u32(&gm, KBLOOM_A_DIGEST, 1 + rn(KBLOOM_DIGEST_MAX));
		if (one_in(2))
			nlr_put_u32(&gm, KBLOOM_A_LINEAR, rn(len + 2));
		break;
	}
	case KBLOOM_CMD_EXPORT:
		nlr_put_str(&gm, KBLOOM_A_NAME, pick_name());
		if (one_in(3))
			nlr_put_u64(&gm, KBLOOM_A_WINDOW, rn(6));
		break;
	case KBLOOM_CMD_IMPORT: {
		uint8_t cells[256];

		for (i = 0; i < sizeof(cells); i++)
			cells[i] = one_in(3) ? rnd() : 0;
		nlr_put_str(&gm, KBLOOM_A_NAME, pick_name());
		if (!one_in(4)) {
			nlr_put_u64(&gm, KBLOOM_A_OFFSET, 8 * rn(32));
			nlr_put(&gm, KBLOOM_A_CELLS, cells, 8 * (1 + rn(32)));
		}
		if (one_in(2))
			nlr_put_u32(&gm, KBLOOM_A_FLAGS, KBLOOM_F_LOADED);
		break;
	}
	case KBLOOM_CMD_DESTROY:
		if (one_in(8))
			nlr_put_u32(&gm, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
		else
			nlr_put_str(&gm, KBLOOM_A_NAME, pick_name());
		break;
	case KBLOOM_CMD_STATUS:
		break;
	case KBLOOM_CMD_GET:
		if (flags)
			break;
		/* fall through */
	default:
		nlr_put_str(&gm, KBLOOM_A_NAME, pick_name());
		break;
	}
}

static uint8_t pick_cmd(void)
{
	/* CREATE often: most commands need a filter to act on. */
	if (one_in(3))
		return KBLOOM_CMD_CREATE;
	return 1 + rn(KBLOOM_CMD_MAX);
}

/* ---- Mutating one message, attribute-wise */

#define ATTRS_MAX 512

struct aref {
	size_t off;
	int depth;
	size_t parent[4];	/* offsets of the enclosing nests */
};

static int attrs_walk(uint8_t *buf, size_t start, size_t end, int depth,
		      const size_t *parents, struct aref *out, int n)
{
	size_t off = start;

	while (off + NLA_HDRLEN <= end && n < ATTRS_MAX) {
		struct nlattr *a = (struct nlattr *)(buf + off);
		size_t len = a->nla_len;

		if (len < NLA_HDRLEN || off + len > end)
			break;
		out[n].off = off;
		out[n].depth = depth;
		memcpy(out[n].parent, parents, depth * sizeof(size_t));
		n++;
		if ((a->nla_type & NLA_F_NESTED) && depth < 3) {
			size_t p[4];

			memcpy(p, parents, depth * sizeof(size_t));
			p[depth] = off;
			n = attrs_walk(buf, off + NLA_HDRLEN, off + len, depth + 1,
				       p, out, n);
		}
		off += NLA_ALIGN(len);
	}
	return n;
}

/* Moves the bytes from @at by @delta, fixing the nests' and message's lengths. */
static bool msg_shift(struct pop *o, const struct aref *r, size_t at, long delta)
{
	int d;

	if ((long)o->len + delta > MSG_MAX || (long)o->len + delta < (long)at)
		return false;
	memmove(o->msg + at + delta, o->msg + at, o->len - at);
	o->len += delta;
	for (d = 0; r && d < r->depth; d++)
		((struct nlattr *)(o->msg + r->parent[d]))->nla_len += delta;
	return true;
}

static const uint64_t interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 255, 256, 511, 512,
	4096, 65535, 65536, 0x7fffffff, 0x80000000, 0xffffffff,
	KBLOOM_BITS_MAX, KBLOOM_BITS_MAX + 1, KBLOOM_MEM_MAX,
	KBLOOM_INTERVAL_MAX, 0xffffffffffffffffULL,
};

static void mutate_msg(struct pop *o)
{
	size_t base = NLMSG_HDRLEN + GENL_HDRLEN;
	static struct aref refs[ATTRS_MAX];
	struct genlmsghdr *g;
	struct nlattr *a;
	int n, i;

	if (o->len < base)
		return;
	n = attrs_walk(o->msg, base, o->len, 0, NULL, refs, 0);
	i = n ? rn(n) : 0;
	a = n ? (struct nlattr *)(o->msg + refs[i].off) : NULL;
	switch (rn(14)) {
	case 0: case 1: case 2: {	/* an integer value */
		uint64_t v = one_in(2) ? interesting[rn(ARRAY_SIZE(interesting))] :
			     rnd() % 1024;
		size_t plen;

		if (!a)
			break;
		plen = a->nla_len - NLA_HDRLEN;
		if (plen == 4 || plen == 8)
			memcpy((uint8_t *)a + NLA_HDRLEN, &v, plen);
		else if (plen)
			((uint8_t *)a)[NLA_HDRLEN + rn(plen)] = rnd();
		break;
	}
	case 3:	/* drop an attribute */
		if (a)
			msg_shift(o, &refs[i], refs[i].off + NLA_ALIGN(a->nla_len),
				  -(long)NLA_ALIGN(a->nla_len));
		break;
	case 4: {	/* duplicate one */
		size_t l;

		if (!a)
			break;
		l = NLA_ALIGN(a->nla_len);
		if (msg_shift(o, &refs[i], refs[i].off, l))
			memcpy(o->msg + refs[i].off, o->msg + refs[i].off + l, l);
		break;
	}
	case 5: case 6: {	/* another request's attribute, here */
		uint8_t cmd = 1 + rn(KBLOOM_CMD_MAX);
		static struct aref other[ATTRS_MAX];
		int m, j;
		size_t l, at;

		gen_request(cmd);
		m = attrs_walk(gm.buf, base, gm.len, 0, NULL, other, 0);
		if (!m)
			break;
		j = rn(m);
		a = (struct nlattr *)(gm.buf + other[j].off);
		l = NLA_ALIGN(a->nla_len);
		at = n ? refs[i].off : o->len;
		if (msg_shift(o, n ? &refs[i] : NULL, at, l))
			memcpy(o->msg + at, a, l);
		break;
	}
	case 7:	/* another filter name */
		if (a && (a->nla_type & NLA_TYPE_MASK) <= KBLOOM_A_SRC &&
		    a->nla_len == NLA_HDRLEN + 4)
			memcpy((uint8_t *)a + NLA_HDRLEN, pick_name(), 4);
		break;
	case 8:	/* another attribute type */
		if (a)
			a->nla_type = (a->nla_type & NLA_F_NESTED) |
				      (one_in(2) ? rn(KBLOOM_A_MAX + 3) : rn(12));
		break;
	case 9:	/* another length */
		if (a)
			a->nla_len = one_in(2) ? a->nla_len + 4 * rn(3) - 4 :
				     rn(a->nla_len + 8);
		break;
	case 10:	/* flipped bits */
		for (i = 1 + rn(4); i && o->len > base; i--)
			o->msg[base + rn(o->len - base)] ^= 1 << rn(8);
		break;
	case 11:	/* truncated */
		if (o->len > base)
			o->len = base + rn(o->len - base);
		break;
	case 12:	/* another command, version or flags */
		g = (struct genlmsghdr *)(o->msg + NLMSG_HDRLEN);
		if (one_in(2))
			g->cmd = one_in(4) ? rn(256) : 1 + rn(KBLOOM_CMD_MAX);
		else if (one_in(2))
			g->version = rn(3);
		else
			((struct nlmsghdr *)o->msg)->nlmsg_flags ^=
				one_in(2) ? NLM_F_DUMP : 1 << rn(16);
		break;
	case 13:	/* a FLAGS value */
		if (a && (a->nla_type & NLA_TYPE_MASK) == KBLOOM_A_FLAGS &&
		    a->nla_len == NLA_HDRLEN + 4) {
			uint32_t f = rn(KBLOOM_F_MASK + 1);

			memcpy((uint8_t *)a + NLA_HDRLEN, &f, 4);
		}
		break;
	}
	((struct nlmsghdr *)o->msg)->nlmsg_len = o->len;
}

/* ---- Learnt restores: real exports turned into CREATE LOAD + IMPORTs */

#define TEMPLATES 8
static struct prog templates[TEMPLATES];
static int ntemplates;

/* ---- The sockets, the netns, the coverage */

static struct nlr socks[SLOTS];
static bool sock_open[SLOTS];
static int ns_fd[2];		/* this netns, the other */
static int udp_fd[2], udp6_fd[2], raw_fd[2];
static int events_fd[2] = { -1, -1 };	/* listeners of the events group */
static uint16_t family;
static int kcov_fd = -1;
static uint64_t *cover;
static uint64_t mod_lo, mod_hi;	/* kbloom.ko's core, from /proc/modules */
static int kmsg_fd = -1;
static int failnth_permille;
static bool verbose;	/* KBLOOM_KCOVFUZZ_VERBOSE: every answer */

static struct {
	long messages, answered, refused, unanswered, out_of_module;
	long programs, kept, reports, injected;
} fig;

static int open_slot(int slot)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 10 };
	struct nlr *s = &socks[slot];
	int one = 1, fd;

	if (sock_open[slot])
		return 0;
	if (slot >= 2 && setns(ns_fd[1], CLONE_NEWNET))
		return -errno;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (slot >= 2 && setns(ns_fd[0], CLONE_NEWNET))
		abort();
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -errno;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->family = family;
	sock_open[slot] = true;
	return 0;
}

static void close_slot(int slot)
{
	if (!sock_open[slot])
		return;
	close(socks[slot].fd);
	sock_open[slot] = false;
}

/* The patterns scripts/vm looks for in the guest kernel log. */
static const char *const report_words[] = {
	"Oops", "BUG:", "WARNING:", "kernel BUG", "KASAN:", "UBSAN:",
	"possible circular locking", "possible recursive locking",
	"inconsistent lock state", "suspicious RCU usage", "rcu: INFO:",
	"self-detected stall", "unreferenced object",
	"general protection fault", "Kernel panic",
};

/* True when /dev/kmsg has a kernel report since the last call. */
static bool kernel_reported(void)
{
	char rec[2048];
	bool hit = false;
	ssize_t n;
	size_t i;

	if (kmsg_fd < 0)
		return false;
	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: read on */
		if (n <= 0)
			break;
		rec[n] = 0;
		for (i = 0; i < ARRAY_SIZE(report_words); i++)
			if (strstr(rec, report_words[i])) {
				if (!hit)
					printf("# kernel: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
				hit = true;
			}
	}
	return hit;
}

#define PCSET_BITS	18
static uint64_t pcset[1 << PCSET_BITS];
static long npcs;
static uint8_t edges[1 << 21];	/* bitmap of hashed (previous, this) PCs */
static long nedges;

static bool pc_add(uint64_t pc)
{
	uint64_t h = (pc * 0x9e3779b97f4a7c15ULL) >> (64 - PCSET_BITS);

	while (pcset[h]) {
		if (pcset[h] == pc)
			return false;
		h = (h + 1) & ((1 << PCSET_BITS) - 1);
	}
	if (npcs >= (3 << PCSET_BITS) / 4)
		return false;	/* full: a module this big is not ours */
	pcset[h] = pc;
	npcs++;
	return true;
}

/* Takes the trace of one request; true when it reached something new. */
static bool cover_collect(void)
{
	uint64_t n = __atomic_load_n(&cover[0], __ATOMIC_RELAXED), i, prev = 0;
	bool fresh = false;

	if (n > COVER_SIZE - 1)
		n = COVER_SIZE - 1;
	for (i = 0; i < n; i++) {
		uint64_t pc = cover[i + 1], e;

		if (pc < mod_lo || pc >= mod_hi)
			fig.out_of_module++;
		fresh |= pc_add(pc);
		e = ((prev * 0xff51afd7ed558ccdULL) ^ pc) * 0xc4ceb9fe1a85ec53ULL;
		e >>= 64 - 24;
		if (!(edges[e >> 3] & (1 << (e & 7)))) {
			edges[e >> 3] |= 1 << (e & 7);
			nedges++;
			fresh = true;
		}
		prev = pc;
	}
	return fresh;
}

static void fail_nth(int n)
{
	char buf[16];
	int fd = open("/proc/thread-self/fail-nth", O_WRONLY), len;

	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%d", n);
	if (write(fd, buf, len) != len)
		n = 0;
	close(fd);
}

/* Reads what the socket holds now, without waiting. */
static void drain(struct nlr *s)
{
	static uint8_t rx[1 << 16];

	while (recv(s->fd, rx, sizeof(rx), MSG_DONTWAIT) > 0)
		;
}

/*
 * An OP_PACKET's message: kind (0 UDP, 1 UDP over IPv6, 2 raw IPv4 as
 * given: IPIP, GRE or anything), a count, then the raw packet's bytes.
 */
static void send_packets(int ns, const struct pop *o)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct sockaddr_in6 to6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	int kind = o->len ? o->msg[0] % 3 : 0;
	int i, n = 1 + (o->len > 1 ? o->msg[1] % 8 : 0);
	char payload[64] = "kcovfuzz";

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to6.sin6_addr = in6addr_loopback;
	for (i = 0; i < n; i++) {
		if (kind == 0)
			sendto(udp_fd[ns], payload, 8 + i % 50, 0,
			       (struct sockaddr *)&to, sizeof(to));
		else if (kind == 1)
			sendto(udp6_fd[ns], payload, 8 + i % 50, 0,
			       (struct sockaddr *)&to6, sizeof(to6));
		else if (o->len > 2 + 20)
			sendto(raw_fd[ns], o->msg + 2, o->len - 2, 0,
			       (struct sockaddr *)&to, sizeof(to));
	}
}

/* An IPv4 header from 127.0.0.1 to 127.0.0.1 of protocol @proto at @p. */
static size_t put_ip4(uint8_t *p, uint8_t proto, size_t len)
{
	static const uint8_t hdr[20] = { 0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 0, 0, 0,
					 127, 0, 0, 1, 127, 0, 0, 1 };

	memcpy(p, hdr, 20);
	p[2] = len >> 8;
	p[3] = len;
	p[4] = rnd();
	p[9] = proto;
	return 20;
}

/* A raw packet for OP_PACKET kind 2: IPIP, GRE (with a key or not), UDP. */
static size_t gen_raw_packet(uint8_t *b)
{
	size_t n = 0, inner = 20 + 8 + 8, i;
	int kind = rn(4);

	b[n++] = 2;
	b[n++] = rn(4);
	if (kind == 0) {		/* IPIP */
		n += put_ip4(b + n, 4, 20 + inner);
	} else if (kind <= 2) {		/* GRE, key or not */
		size_t gre = kind == 2 ? 8 : 4;

		n += put_ip4(b + n, 47, 20 + gre + inner);
		b[n++] = kind == 2 ? 0x20 : 0;
		b[n++] = 0;
		b[n++] = 0x08;
		b[n++] = 0x00;
		if (kind == 2)
			for (i = 0; i < 4; i++)
				b[n++] = rnd();
	}
	n += put_ip4(b + n, 17, inner);
	b[n++] = 0x30;
	b[n++] = 0x39;
	b[n++] = 0;
	b[n++] = 9;
	b[n++] = 0;
	b[n++] = 16;
	b[n++] = 0;
	b[n++] = 0;
	for (i = 0; i < 8; i++)
		b[n++] = rnd();
	return n;
}

/* Reads what the events listeners got (the module built it already). */
static void drain_events(void)
{
	static uint8_t rx[1 << 16];
	int i;

	for (i = 0; i < 2; i++)
		while (events_fd[i] >= 0 &&
		       recv(events_fd[i], rx, sizeof(rx), MSG_DONTWAIT) > 0)
			;
}

/* Requests per command: [cmd][0] answered 0, [cmd][1] refused. */
static long per_cmd[KBLOOM_CMD_MAX + 1][2];

static const char *const cmd_names[KBLOOM_CMD_MAX + 1] = {
	[KBLOOM_CMD_UNSPEC] = "unspec", [KBLOOM_CMD_CREATE] = "create",
	[KBLOOM_CMD_DESTROY] = "destroy", [KBLOOM_CMD_GET] = "get",
	[KBLOOM_CMD_ADD] = "add", [KBLOOM_CMD_TEST] = "test",
	[KBLOOM_CMD_CLEAR] = "clear", [KBLOOM_CMD_DEL] = "del",
	[KBLOOM_CMD_COUNT] = "count", [KBLOOM_CMD_MERGE] = "merge",
	[KBLOOM_CMD_ESTIMATE] = "estimate", [KBLOOM_CMD_QUERY] = "query",
	[KBLOOM_CMD_ATTACH] = "attach", [KBLOOM_CMD_DETACH] = "detach",
	[KBLOOM_CMD_DIGEST] = "digest", [KBLOOM_CMD_EXPORT] = "export",
	[KBLOOM_CMD_IMPORT] = "import", [KBLOOM_CMD_ROTATED] = "rotated",
	[KBLOOM_CMD_STATUS] = "status",
};

static void count_cmd(const struct nlr_msg *m, int err)
{
	uint8_t cmd = ((const struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->cmd;

	if (cmd <= KBLOOM_CMD_MAX)
		per_cmd[cmd][err != 0]++;
}

/* One line: each command's requests, answered 0 / refused. */
static void print_per_cmd(void)
{
	int c;

	printf("# requests per command, answered 0/refused:");
	for (c = 0; c <= KBLOOM_CMD_MAX; c++)
		if (per_cmd[c][0] || per_cmd[c][1])
			printf(" %s %ld/%ld", cmd_names[c] ? cmd_names[c] : "?",
			       per_cmd[c][0], per_cmd[c][1]);
	printf("\n");
}

/* Runs one op; true when it reached new coverage. */
static bool run_op(const struct pop *o, bool *stop)
{
	static struct nlr_msg m;
	struct nlr *s = &socks[o->slot];
	bool fresh = false, armed = false;
	int err = 0;

	/*
	 * Up to 16 ms: the shortest windows (10 ms) rotate within one, the
	 * longest within a few programs; longer sleeps only slowed the soak.
	 */
	if (o->op == OP_SLEEP) {
		usleep(1000 * (1 + (o->len ? o->msg[0] % 16 : 0)));
		return false;
	}
	if (o->op == OP_CLOSE) {
		close_slot(o->slot);
		return false;
	}
	if (open_slot(o->slot))
		return false;	/* an injected failure, or no memory */
	if (o->op == OP_REQ || o->op == OP_DUMP_PART) {
		if (o->len < NLMSG_HDRLEN)
			return false;
		memcpy(m.buf, o->msg, o->len);
		m.len = o->len;
		nlr_hdr(&m)->nlmsg_type = family;
		nlr_hdr(&m)->nlmsg_seq = ++s->seq;
		nlr_hdr(&m)->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
		if (o->op == OP_DUMP_PART)
			nlr_hdr(&m)->nlmsg_flags |= NLM_F_DUMP;
		fig.messages++;
	}
	if (failnth_permille && (o->op == OP_REQ || o->op == OP_DUMP_PART) &&
	    rn(1000) < (uint32_t)failnth_permille) {
		fail_nth(1 + rn(40));
		armed = true;
	}
	if (kcov_fd >= 0) {
		if (ioctl(kcov_fd, KCOV_ENABLE, KCOV_TRACE_PC))
			abort();
		__atomic_store_n(&cover[0], 0, __ATOMIC_RELAXED);
	}
	switch (o->op) {
	case OP_REQ:
		err = nlr_send(s, &m);
		if (err == -EAGAIN) {
			printf("# request (command %u, slot %u) got no answer in 10 s\n",
			       ((struct genlmsghdr *)(m.buf + NLMSG_HDRLEN))->cmd, o->slot);
			fig.unanswered++;
			*stop = true;
		} else if (err > 0 || err < -4095) {
			printf("# request (command %u): answer %d, not 0 or -errno\n",
			       ((struct genlmsghdr *)(m.buf + NLMSG_HDRLEN))->cmd, err);
			fig.unanswered++;
			*stop = true;
		} else if (err) {
			fig.refused++;
			count_cmd(&m, err);
			if (verbose)
				printf("#   cmd %u slot %u: %d %s\n",
				       ((struct genlmsghdr *)(m.buf + NLMSG_HDRLEN))->cmd,
				       o->slot, err, s->extack);
		} else {
			fig.answered++;
			count_cmd(&m, 0);
		}
		break;
	case OP_DUMP_PART:
		if (send(s->fd, m.buf, m.len, 0) == (ssize_t)m.len) {
			static uint8_t rx[1 << 16];

			/* the first batch is made in sendmsg: it is there */
			recv(s->fd, rx, sizeof(rx), MSG_DONTWAIT);
		}
		break;
	case OP_DRAIN:
		drain(s);
		break;
	case OP_PACKET:
		send_packets(o->slot >= 2, o);
		break;
	}
	if (kcov_fd >= 0) {
		ioctl(kcov_fd, KCOV_DISABLE, 0);
		fresh = cover_collect();
	}
	if (armed) {
		fig.injected++;
		fail_nth(0);
	}
	return fresh;
}

/* A socket per netns that programs never close: it empties the netns. */
static struct nlr sweeper[2];

static void sweep_ns(int ns)
{
	static struct nlr_msg m;
	struct nlr *s = &sweeper[ns];

	nlr_init(s, &m, family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_u32(&m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
	nlr_send(s, &m);
}

/* Runs a program from an empty module, and empties it after. */
static bool run_prog(const struct prog *p, bool *stop)
{
	bool fresh = false, used[2] = { false, false };
	int i;

	for (i = 0; i < p->n && !*stop; i++) {
		fresh |= run_op(&p->ops[i], stop);
		used[p->ops[i].slot >= 2] = true;
	}
	for (i = 0; i < SLOTS; i++)
		close_slot(i);
	for (i = 0; i < 2; i++)
		if (used[i])
			sweep_ns(i);
	drain_events();
	fig.programs++;
	if (kernel_reported()) {
		fig.reports++;
		*stop = true;
	}
	return fresh;
}

/* ---- The corpus */

#define CORPUS_MAX 4096
static struct prog *corpus;
static int ncorpus;
static const char *corpus_dir;

static void corpus_keep(const struct prog *p, const char *prefix, bool store)
{
	static uint8_t out[PROG_OPS * (MSG_MAX + 4) + 4];
	size_t len = prog_serialize(p, out, sizeof(out));
	char path[4096];
	FILE *f;

	if (store && ncorpus < CORPUS_MAX)
		prog_copy(&corpus[ncorpus++], p);
	snprintf(path, sizeof(path), "%s/%s%016llx", corpus_dir, prefix,
		 (unsigned long long)fnv64(out, len));
	f = fopen(path, "w");
	if (f) {
		fwrite(out, 1, len, f);
		fclose(f);
	}
}

static void print_prog(const struct prog *p)
{
	static const char *const opn[] = { "req", "dump-part", "drain", "close",
					    "packet", "sleep" };
	int i, j;

	for (i = 0; i < p->n; i++) {
		const struct pop *o = &p->ops[i];

		printf("#   %s slot %u", opn[o->op], o->slot);
		if (o->len >= NLMSG_HDRLEN + GENL_HDRLEN && o->op <= OP_DUMP_PART)
			printf(" cmd %u:", ((struct genlmsghdr *)(o->msg + NLMSG_HDRLEN))->cmd);
		for (j = NLMSG_HDRLEN + GENL_HDRLEN; j < o->len && j < 96; j++)
			printf(" %02x", o->msg[j]);
		printf("%s\n", o->len > 96 ? " ..." : "");
	}
}

static int corpus_load(void)
{
	static uint8_t in[PROG_OPS * (MSG_MAX + 4) + 4];
	struct dirent *e;
	DIR *d = opendir(corpus_dir);
	char path[4096];
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)) && ncorpus < CORPUS_MAX) {
		FILE *f;
		size_t len;

		if (e->d_name[0] == '.' || !strncmp(e->d_name, "crash-", 6))
			continue;
		snprintf(path, sizeof(path), "%s/%s", corpus_dir, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		len = fread(in, 1, sizeof(in), f);
		fclose(f);
		if (prog_parse(&corpus[ncorpus], in, len)) {
			ncorpus++;
			n++;
		}
	}
	closedir(d);
	return n;
}

static size_t prog_bytes(const struct prog *p)
{
	size_t n = 0;
	int i;

	for (i = 0; i < p->n; i++)
		n += 4 + p->ops[i].len;
	return n;
}

static int prog_cmp_size(const void *a, const void *b)
{
	size_t x = prog_bytes(a), y = prog_bytes(b);

	return x < y ? -1 : x > y;
}

/* ---- Generating and mutating programs */

static void gen_op(struct prog *p)
{
	uint8_t slot = one_in(3) ? 2 + rn(2) : rn(2);
	uint8_t b = rnd();

	switch (rn(16)) {
	case 0:
		prog_add(p, OP_CLOSE, slot, NULL, 0);
		return;
	case 1:
		prog_add(p, OP_DRAIN, slot, NULL, 0);
		return;
	case 2: {
		uint8_t pkt[96] = { b, b >> 3 };
		size_t len = one_in(2) ? gen_raw_packet(pkt) : 2;

		prog_add(p, OP_PACKET, slot, pkt, len);
		return;
	}
	case 3:
		prog_add(p, OP_SLEEP, slot, &b, 1);
		return;
	case 4:
		gen_request(one_in(2) ? KBLOOM_CMD_EXPORT : KBLOOM_CMD_GET);
		prog_add(p, OP_DUMP_PART, slot, gm.buf, gm.len);
		return;
	default:
		gen_request(pick_cmd());
		prog_add(p, OP_REQ, slot, gm.buf, gm.len);
	}
}

/*
 * An export cut short: a filter big enough for several dump batches, its
 * EXPORT read in part on one socket, then from another socket of its netns
 * a destroy, a clear, a destroy and create again, more keys (a scalable
 * filter grows), or the exporting socket closed; then the rest read.
 */
static void gen_export_cut(struct prog *p)
{
	static const uint32_t types[] = { KBLOOM_TYPE_BLOOM, KBLOOM_TYPE_COUNTING,
		KBLOOM_TYPE_SCALABLE, KBLOOM_TYPE_DCF, KBLOOM_TYPE_TRANSFORMS };
	uint32_t type = types[rn(ARRAY_SIZE(types))];
	uint8_t a = one_in(2) ? rn(2) : 2 + rn(2), b = a ^ 1;
	const char *name = pick_name();
	int keys = 20 + rn(200);

	msg_start(KBLOOM_CMD_CREATE, 0);
	nlr_put_str(&gm, KBLOOM_A_NAME, name);
	nlr_put_u32(&gm, KBLOOM_A_TYPE, type);
	nlr_put_u64(&gm, KBLOOM_A_BITS, type == KBLOOM_TYPE_TRANSFORMS ? 1 << 15 :
		    type == KBLOOM_TYPE_SCALABLE ? 1 << 14 : 1 << 20);
	nlr_put_u32(&gm, KBLOOM_A_HASHES, type == KBLOOM_TYPE_TRANSFORMS ? 1 : 3);
	if (type == KBLOOM_TYPE_COUNTING || type == KBLOOM_TYPE_DCF)
		nlr_put_u32(&gm, KBLOOM_A_COUNTER_BITS, type == KBLOOM_TYPE_DCF ? 2 : 8);
	if (type == KBLOOM_TYPE_SCALABLE) {
		nlr_put_u64(&gm, KBLOOM_A_CAPACITY, 64);
		nlr_put_u32(&gm, KBLOOM_A_GROWTH, 2);
		nlr_put_u32(&gm, KBLOOM_A_TIGHTEN, 500000);
	}
	if (type == KBLOOM_TYPE_BLOOM && one_in(2)) {
		nlr_put_u32(&gm, KBLOOM_A_WINDOWS, 2 + rn(3));
		nlr_put_u64(&gm, KBLOOM_A_INTERVAL, 10 + rn(100));
	}
	prog_add(p, OP_REQ, a, gm.buf, gm.len);
	if (type != KBLOOM_TYPE_TRANSFORMS) {
		msg_start(KBLOOM_CMD_ADD, 0);
		nlr_put_str(&gm, KBLOOM_A_NAME, name);
		put_key_nest(keys, false, 0);
		prog_add(p, OP_REQ, a, gm.buf, gm.len);
	}
	msg_start(KBLOOM_CMD_EXPORT, NLM_F_DUMP);
	nlr_put_str(&gm, KBLOOM_A_NAME, name);
	prog_add(p, OP_DUMP_PART, a, gm.buf, gm.len);
	switch (rn(6)) {
	case 0:
		prog_add(p, OP_CLOSE, a, NULL, 0);
		break;
	case 1:
		msg_start(KBLOOM_CMD_CLEAR, 0);
		nlr_put_str(&gm, KBLOOM_A_NAME, name);
		prog_add(p, OP_REQ, b, gm.buf, gm.len);
		break;
	case 2:
		msg_start(KBLOOM_CMD_ADD, 0);
		nlr_put_str(&gm, KBLOOM_A_NAME, name);
		put_key_nest(300, false, 0);
		prog_add(p, OP_REQ, b, gm.buf, gm.len);
		break;
	default:
		msg_start(KBLOOM_CMD_DESTROY, 0);
		nlr_put_str(&gm, KBLOOM_A_NAME, name);
		prog_add(p, OP_REQ, b, gm.buf, gm.len);
		if (one_in(2))
			prog_add(p, OP_REQ, b, p->ops[0].msg, p->ops[0].len);
		break;
	}
	prog_add(p, one_in(4) ? OP_CLOSE : OP_DRAIN, a, NULL, 0);
}

/*
 * A restore cut short: a learnt restore up to some chunk, then its socket
 * closed (the loading filter must go), or a second restore of the name
 * from another socket, or a request naming it from another socket.
 */
static void gen_restore_cut(struct prog *p)
{
	const struct prog *t = &templates[rn(ntemplates)];
	int cut = 1 + rn(t->n - 1), i;

	p->n = 0;
	for (i = 0; i < cut; i++)
		prog_add(p, t->ops[i].op, t->ops[i].slot, t->ops[i].msg, t->ops[i].len);
	switch (rn(3)) {
	case 0:
		prog_add(p, OP_CLOSE, 0, NULL, 0);
		break;
	case 1:
		prog_add(p, OP_REQ, 1, t->ops[0].msg, t->ops[0].len);
		break;
	default:
		prog_add(p, OP_REQ, 1, t->ops[t->n - 2].msg, t->ops[t->n - 2].len);
		break;
	}
	for (; i < t->n; i++)
		prog_add(p, t->ops[i].op, t->ops[i].slot, t->ops[i].msg, t->ops[i].len);
}

static void gen_prog(struct prog *p)
{
	int n = 2 + rn(8);

	p->n = 0;
	if (ntemplates && one_in(5)) {
		prog_copy(p, &templates[rn(ntemplates)]);
		return;
	}
	if (ntemplates && one_in(5)) {
		gen_restore_cut(p);
		return;
	}
	if (one_in(4)) {
		gen_export_cut(p);
		return;
	}
	while (n--)
		gen_op(p);
}

static void prog_insert(struct prog *p, int at, const struct pop *o)
{
	if (p->n >= PROG_OPS)
		return;
	memmove(&p->ops[at + 1], &p->ops[at], (p->n - at) * sizeof(p->ops[0]));
	p->ops[at] = *o;
	p->ops[at].msg = malloc(MSG_MAX);
	if (!p->ops[at].msg)
		abort();
	memcpy(p->ops[at].msg, o->msg, o->len);
	p->n++;
}

static void mutate_prog(struct prog *p)
{
	int rounds = 1 + rn(4), at;
	struct prog tmp;

	while (rounds--) {
		at = p->n ? rn(p->n) : 0;
		switch (rn(10)) {
		case 0: case 1: case 2: case 3:	/* one message */
			if (p->n && p->ops[at].op <= OP_DUMP_PART)
				mutate_msg(&p->ops[at]);
			else if (p->n && p->ops[at].op == OP_PACKET && p->ops[at].len > 2)
				p->ops[at].msg[2 + rn(p->ops[at].len - 2)] ^= 1 << rn(8);
			break;
		case 4:	/* a new op */
			tmp.n = 0;
			gen_op(&tmp);
			prog_insert(p, p->n ? rn(p->n + 1) : 0, &tmp.ops[0]);
			prog_free(&tmp);
			break;
		case 5:	/* one op less */
			if (p->n > 1) {
				free(p->ops[at].msg);
				memmove(&p->ops[at], &p->ops[at + 1],
					(p->n - at - 1) * sizeof(p->ops[0]));
				p->n--;
			}
			break;
		case 6:	/* an op of another program */
			if (ncorpus) {
				const struct prog *q = &corpus[rn(ncorpus)];

				prog_insert(p, rn(p->n + 1), &q->ops[rn(q->n)]);
			}
			break;
		case 7:	/* another socket */
			if (p->n)
				p->ops[at].slot = rn(SLOTS);
			break;
		case 8:	/* a close, a drain, a sleep in between */
			tmp.n = 0;
			prog_add(&tmp, one_in(3) ? OP_CLOSE : one_in(2) ? OP_DRAIN : OP_SLEEP,
				 p->n ? p->ops[at].slot : 0, &at, 1);
			prog_insert(p, p->n ? rn(p->n + 1) : 0, &tmp.ops[0]);
			prog_free(&tmp);
			break;
		case 9:	/* two ops swapped */
			if (p->n > 1) {
				int b = rn(p->n);
				struct pop t = p->ops[at];

				p->ops[at] = p->ops[b];
				p->ops[b] = t;
			}
			break;
		}
	}
}

/* ---- Learning restores from real exports */

struct harvest {
	struct prog *p;
	const char *name;
	int msgs;
};

/* Each EXPORT reply: the head becomes CREATE LOAD, each chunk an IMPORT. */
static void harvest_msg(struct nlmsghdr *h, void *arg)
{
	static const uint16_t keep[] = {
		KBLOOM_A_TYPE, KBLOOM_A_BITS, KBLOOM_A_HASHES, KBLOOM_A_HASH_KEY,
		KBLOOM_A_CAPACITY, KBLOOM_A_COUNTER_BITS, KBLOOM_A_UPDATE,
		KBLOOM_A_DECREMENT, KBLOOM_A_SUBTABLES, KBLOOM_A_BUCKET_CELLS,
		KBLOOM_A_FP_BITS, KBLOOM_A_DIMS, KBLOOM_A_GROWTH,
		KBLOOM_A_TIGHTEN, KBLOOM_A_OVERFLOW, KBLOOM_A_OFV_BITS,
		KBLOOM_A_LOST, KBLOOM_A_OFFSET, KBLOOM_A_CELLS,
	};
	struct harvest *hv = arg;
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN, k;
	bool head = hv->msgs++ == 0;

	if (head) {
		msg_start(KBLOOM_CMD_CREATE, 0);
		nlr_put_str(&gm, KBLOOM_A_NAME, hv->name);
	} else {
		msg_start(KBLOOM_CMD_IMPORT, 0);
		nlr_put_str(&gm, KBLOOM_A_NAME, hv->name);
	}
	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		struct nlattr *a = (struct nlattr *)((uint8_t *)h + off);
		uint16_t t = a->nla_type & NLA_TYPE_MASK;

		if (a->nla_len < NLA_HDRLEN)
			break;
		for (k = 0; k < ARRAY_SIZE(keep); k++)
			if (keep[k] == t && gm.len + a->nla_len < MSG_MAX)
				nlr_put(&gm, a->nla_type, (uint8_t *)a + NLA_HDRLEN,
					a->nla_len - NLA_HDRLEN);
		if (t == KBLOOM_A_SLICE_LIST) {
			/* the slices, without FILL (a reply's only) */
			size_t list = nlr_nest_start(&gm, KBLOOM_A_SLICE_LIST), soff;

			for (soff = NLA_HDRLEN; soff + NLA_HDRLEN <= a->nla_len;) {
				struct nlattr *sl = (struct nlattr *)((uint8_t *)a + soff);
				struct nlattr *tb[KBLOOM_SLICE_A_MAX + 1];
				size_t one = nlr_nest_start(&gm, KBLOOM_SLICE_LIST_A_SLICE);
				int j;

				if (sl->nla_len < NLA_HDRLEN)
					break;
				nest_attrs(sl, tb, KBLOOM_SLICE_A_MAX);
				for (j = KBLOOM_SLICE_A_BITS; j <= KBLOOM_SLICE_A_CURRENT; j++)
					if (tb[j] && j != KBLOOM_SLICE_A_FILL)
						nlr_put(&gm, j, (uint8_t *)tb[j] + NLA_HDRLEN,
							tb[j]->nla_len - NLA_HDRLEN);
				nlr_nest_end(&gm, one);
				soff += NLA_ALIGN(sl->nla_len);
			}
			nlr_nest_end(&gm, list);
		}
		off += NLA_ALIGN(a->nla_len);
	}
	if (head)
		nlr_put_u32(&gm, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	prog_add(hv->p, OP_REQ, 0, gm.buf, gm.len);
}

/* Makes filter "h" of the recipe, exports it, learns its restore. */
static void harvest_one(int recipe)
{
	static struct nlr_msg m;
	struct nlr *s = &socks[0];
	struct harvest hv;
	struct prog *p = &templates[ntemplates];
	int i;

	p->n = 0;
	switch (recipe) {
	case 0:
		create(s, &m, "h", 4096, 3);
		keys_cmd(s, &m, KBLOOM_CMD_ADD, "h", 0, 100);
		break;
	case 1:
		create_msg(s, &m, "h", KBLOOM_TYPE_COUNTING, 2048, 3);
		nlr_put_u32(&m, KBLOOM_A_COUNTER_BITS, 4);
		nlr_send(s, &m);
		keys_cmd(s, &m, KBLOOM_CMD_ADD, "h", 0, 60);
		break;
	case 2:
		create_msg(s, &m, "h", KBLOOM_TYPE_SCALABLE, 1024, 3);
		nlr_put_u64(&m, KBLOOM_A_CAPACITY, 20);
		nlr_put_u32(&m, KBLOOM_A_GROWTH, 2);
		nlr_put_u32(&m, KBLOOM_A_TIGHTEN, 500000);
		if (nlr_send(s, &m) && verbose)
			printf("# scalable: %s\n", s->extack);
		keys_cmd(s, &m, KBLOOM_CMD_ADD, "h", 0, 120);
		break;
	case 3:
		create_msg(s, &m, "h", KBLOOM_TYPE_DCF, 1024, 2);
		nlr_put_u32(&m, KBLOOM_A_COUNTER_BITS, 2);
		nlr_send(s, &m);
		for (i = 0; i < 12; i++)
			keys_cmd(s, &m, KBLOOM_CMD_ADD, "h", 0, 5);
		break;
	case 4:
		create_msg(s, &m, "h", KBLOOM_TYPE_TRANSFORMS, 64, 1);
		nlr_send(s, &m);
		break;
	case 5:
		create_msg(s, &m, "h", KBLOOM_TYPE_BLOOM, 2048, 2);
		nlr_put_u32(&m, KBLOOM_A_WINDOWS, 3);
		nlr_put_u64(&m, KBLOOM_A_INTERVAL, 60000);
		nlr_send(s, &m);
		keys_cmd(s, &m, KBLOOM_CMD_ADD, "h", 0, 30);
		break;
	}
	hv.p = p;
	hv.name = names[recipe % ARRAY_SIZE(names)];
	hv.msgs = 0;
	s->each = harvest_msg;
	s->each_arg = &hv;
	nlr_init(s, &m, family, KBLOOM_CMD_EXPORT, NLM_F_DUMP);
	nlr_put_str(&m, KBLOOM_A_NAME, "h");
	nlr_send(s, &m);
	s->each = NULL;
	name_cmd(s, &m, KBLOOM_CMD_DESTROY, "h");
	if (verbose)
		printf("# recipe %d: export of %d messages\n", recipe, hv.msgs);
	if (hv.msgs < 2 || p->n < 2) {
		prog_free(p);
		return;
	}
	msg_start(KBLOOM_CMD_IMPORT, 0);
	nlr_put_str(&gm, KBLOOM_A_NAME, hv.name);
	nlr_put_u32(&gm, KBLOOM_A_FLAGS, KBLOOM_F_LOADED);
	prog_add(p, OP_REQ, 0, gm.buf, gm.len);
	/* then use it, from its socket and another */
	msg_start(KBLOOM_CMD_GET, 0);
	nlr_put_str(&gm, KBLOOM_A_NAME, hv.name);
	prog_add(p, OP_REQ, 1, gm.buf, gm.len);
	ntemplates++;
}

/* ---- Setup */

static long long status_mem(int ns)
{
	static struct nlr_msg m;
	struct nlr *s = &sweeper[ns];

	nlr_init(s, &m, family, KBLOOM_CMD_STATUS, 0);
	if (nlr_send(s, &m))
		return -1;
	return reply_u64(s, KBLOOM_A_MEM_NETNS);
}

static bool module_range(void)
{
	char line[512], name[64];
	unsigned long long size, addr;
	FILE *f = fopen("/proc/modules", "r");
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &addr) == 3 &&
		    !strcmp(name, "kbloom")) {
			mod_lo = addr;
			mod_hi = addr + size;
			found = addr != 0;
		}
	fclose(f);
	return found;
}

/*
 * A socket in this netns that joined the family's events group, so the
 * module builds its events (it skips them with no listener); -1 if not.
 */
static int events_listener(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	static struct nlr ctl;
	struct nlattr *groups, *g, *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	uint32_t id = 0;
	size_t off;
	int fd;

	if (nlr_open(&ctl))
		return -1;
	groups = nlr_reply_attr(&ctl, CTRL_ATTR_MCAST_GROUPS);
	for (off = NLA_HDRLEN; groups && off + NLA_HDRLEN <= groups->nla_len;
	     off += NLA_ALIGN(g->nla_len)) {
		g = (struct nlattr *)((uint8_t *)groups + off);
		if (g->nla_len < NLA_HDRLEN)
			break;
		nest_attrs(g, tb, CTRL_ATTR_MCAST_GRP_MAX);
		if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp((char *)tb[CTRL_ATTR_MCAST_GRP_NAME] + NLA_HDRLEN,
			    KBLOOM_MCGRP_EVENTS))
			memcpy(&id, (uint8_t *)tb[CTRL_ATTR_MCAST_GRP_ID] + NLA_HDRLEN, 4);
	}
	close(ctl.fd);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0 || !id || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &id, sizeof(id))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int lo_up(void)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	return fd;
}

static int tap_n;
static int tap_failed;

static void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	tap_failed += !ok;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}



/* A scratch copy of the committed corpus, when no directory is named. */
static char *scratch_corpus(const char *seed_dir)
{
	static char dir[] = "/tmp/kcovfuzz.XXXXXX";
	char cmd[8192];

	if (!mkdtemp(dir))
		return NULL;
	snprintf(cmd, sizeof(cmd), "cp %s/* %s/ 2>/dev/null", seed_dir, dir);
	if (system(cmd))
		fprintf(stderr, "# no seed corpus in %s\n", seed_dir);
	return dir;
}

/* The committed seeds; tests/vm/run runs the suites from the checkout. */
#define SEED_DIR "tests/vm/kcovfuzz_corpus"

int main(void)
{
	const char *env_s = getenv("KBLOOM_KCOVFUZZ_SECONDS");
	const char *env_n = getenv("KBLOOM_KCOVFUZZ_N");
	const char *env_seed = getenv("KBLOOM_KCOVFUZZ_SEED");
	const char *env_fail = getenv("KBLOOM_KCOVFUZZ_FAILNTH"), *blind;
	const char *env_min = getenv("KBLOOM_KCOVFUZZ_MINIMIZE");
	int minimized = 0;
	double secs = env_s ? atof(env_s) : 60, start = now_s(), deadline;
	struct timeval tv = { .tv_sec = 10 };
	long max_msgs = env_n ? atol(env_n) : -1, replayed;
	long floor = max_msgs >= 0 && max_msgs < 1000 ? max_msgs : 1000;
	unsigned long long saved = nlr_max_memory(), seed;
	long long mem0[2], mem1[2];
	bool stop = false;
	struct prog p;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	blind = getenv("KBLOOM_KCOVFUZZ_BLIND");
	if (access("/sys/kernel/debug/kcov", R_OK | W_OK) && !blind) {
		printf("1..0 # SKIP no /sys/kernel/debug/kcov (not the debug kernel)\n");
		return 0;
	}
	printf("1..6\n");
	if (env_seed) {
		seed = strtoull(env_seed, NULL, 0);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ getpid();
	}
	rnd_state = seed | 1;
	printf("# seed %llu (again: KBLOOM_KCOVFUZZ_SEED=%llu)\n", seed, seed);
	verbose = getenv("KBLOOM_KCOVFUZZ_VERBOSE");
	failnth_permille = env_fail ? atoi(env_fail) : 0;
	if (failnth_permille && access("/proc/thread-self/fail-nth", W_OK))
		failnth_permille = 0;
	if (failnth_permille) {
		/* failslab leaves sleeping allocations alone unless told */
		FILE *f = fopen("/sys/kernel/debug/failslab/ignore-gfp-wait", "w");

		if (f) {
			fputs("N", f);
			fclose(f);
		}
		printf("# an allocation failure injected in %d of 1000 requests\n",
		       failnth_permille);
	}

	corpus = calloc(CORPUS_MAX, sizeof(*corpus));
	if (!corpus)
		return 1;
	corpus_dir = getenv("KBLOOM_KCOVFUZZ_CORPUS");
	if (corpus_dir)
		mkdir(corpus_dir, 0755);
	else
		corpus_dir = scratch_corpus(SEED_DIR);
	if (!corpus_dir)
		return 1;

	if (!module_range()) {
		printf("not ok 1 - kbloom in /proc/modules, with its address\n");
		return 1;
	}
	kcov_fd = blind ? -1 : open("/sys/kernel/debug/kcov", O_RDWR);
	if (!blind && (kcov_fd < 0 || ioctl(kcov_fd, KCOV_INIT_TRACE, COVER_SIZE))) {
		printf("not ok 1 - KCOV set up\n");
		return 1;
	}
	cover = blind ? NULL : mmap(NULL, COVER_SIZE * sizeof(uint64_t),
				    PROT_READ | PROT_WRITE, MAP_SHARED, kcov_fd, 0);
	if (cover == MAP_FAILED) {
		printf("not ok 1 - KCOV buffer mapped\n");
		return 1;
	}
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);

	/*
	 * The sockets' two netns, both new (lo up), so what runs beside the
	 * fuzzer (the soak's stress test) keeps its filters.
	 */
	for (i = 0; i < 2; i++) {
		if (unshare(CLONE_NEWNET)) {
			printf("not ok 1 - netns %d made\n", i);
			return 1;
		}
		ns_fd[i] = open("/proc/self/ns/net", O_RDONLY);
		udp_fd[i] = lo_up();
		udp6_fd[i] = socket(AF_INET6, SOCK_DGRAM, 0);
		raw_fd[i] = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
		events_fd[i] = events_listener();
		if (nlr_open(&sweeper[i])) {
			printf("not ok 1 - the kbloom family resolved in netns %d\n", i);
			return 1;
		}
		setsockopt(sweeper[i].fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	if (ns_fd[0] < 0 || ns_fd[1] < 0 || setns(ns_fd[0], CLONE_NEWNET)) {
		printf("not ok 1 - back to the first netns\n");
		return 1;
	}
	family = sweeper[0].family;
	if (open_slot(0)) {
		printf("not ok 1 - a socket for the programs\n");
		return 1;
	}
	nlr_set_max_memory(64ULL << 20);
	for (i = 0; i < 2; i++) {
		sweep_ns(i);
		mem0[i] = status_mem(i);
	}

	for (i = 0; i < 6; i++)
		harvest_one(i);
	printf("# %d restores learnt from exports; events listened to: %s\n",
	       ntemplates, events_fd[0] >= 0 && events_fd[1] >= 0 ? "yes" : "no");

	/*
	 * Replay: the corpus's coverage is the starting point; a learnt
	 * restore joins it when it reaches more.
	 */
	i = corpus_load();
	printf("# corpus %s: %d programs\n", corpus_dir, i < 0 ? 0 : i);
	if (env_min)	/* the smallest first: they keep what they reach */
		qsort(corpus, ncorpus, sizeof(*corpus), prog_cmp_size);
	for (i = 0; i < ncorpus && !stop; i++) {
		if (run_prog(&corpus[i], &stop) && env_min) {
			const char *keep = corpus_dir;

			corpus_dir = env_min;
			corpus_keep(&corpus[i], "", false);
			corpus_dir = keep;
			minimized++;
		}
		if (stop && fig.reports) {
			printf("# corpus program %d reproduces a kernel report:\n", i);
			print_prog(&corpus[i]);
		}
	}
	for (i = 0; i < ntemplates && !stop; i++) {
		if (verbose)
			printf("# learnt restore %d:\n", i);
		if (run_prog(&templates[i], &stop))
			corpus_keep(&templates[i], "", true);
	}
	replayed = fig.messages;
	if (env_min)
		printf("# %d programs of the corpus reach all it reaches: written to %s\n",
		       minimized, env_min);
	printf("# replayed in %.0f s: %ld messages, %ld module PCs, %ld edges\n",
	       now_s() - start, replayed, npcs, nedges);

	/*
	 * The time budget; on a slow or busy host, on until the floor of
	 * messages is met, for at most three budgets more: the floor checks
	 * the fuzzer's work, not the host's speed.
	 */
	deadline = start + secs;
	while (!stop && (max_msgs < 0 || fig.messages < max_msgs) &&
	       (now_s() < deadline ||
		(fig.messages < floor && now_s() < deadline + 3 * secs))) {
		if (ncorpus && !one_in(8)) {
			prog_copy(&p, &corpus[rn(ncorpus)]);
			mutate_prog(&p);
		} else {
			gen_prog(&p);
		}
		if (run_prog(&p, &stop)) {
			corpus_keep(&p, "", true);
			fig.kept++;
		}
		if (stop && (fig.reports || fig.unanswered)) {
			printf("# the program (saved as %s/crash-*):\n", corpus_dir);
			print_prog(&p);
			corpus_keep(&p, "crash-", false);
		}
		prog_free(&p);
		if (fig.programs % 1000 == 0)
			printf("# %.0f s: %ld messages, %ld kept, %ld PCs, %ld edges\n",
			       now_s() - start, fig.messages, fig.kept, npcs, nedges);
	}
	for (i = 0; i < SLOTS; i++)
		close_slot(i);
	for (i = 0; i < 2; i++) {
		sweep_ns(i);
		mem1[i] = status_mem(i);
		close(sweeper[i].fd);
	}
	nlr_set_max_memory(saved);

	printf("# %ld messages in %.0f s (%ld of them replaying the corpus): %ld answered 0, %ld refused\n",
	       fig.messages, now_s() - start, replayed, fig.answered, fig.refused);
	printf("# %ld programs; %ld inputs kept (corpus now %d); %ld allocation failures injected\n",
	       fig.programs, fig.kept, ncorpus, fig.injected);
	print_per_cmd();
	printf("# %ld distinct module PCs reached, %ld edges\n", npcs, nedges);
	printf("# memory charged: %lld + %lld bytes before, %lld + %lld after\n",
	       mem0[0], mem0[1], mem1[0], mem1[1]);
	printf("# kernel reports: %ld\n", fig.reports);
	tap(!fig.unanswered, "every request answered, 0 or -errno");
	tap(!fig.reports, "no kernel report in the log");
	if (blind)
		printf("ok 3 # SKIP blind (KBLOOM_KCOVFUZZ_BLIND): no PCs traced\n"), tap_n++;
	else
		tap(fig.out_of_module == 0 && npcs > 0,
		    "%ld PCs traced, all in kbloom.ko (%ld outside)", npcs,
		    fig.out_of_module);
	tap(mem0[0] == mem1[0] && mem0[1] == mem1[1] && mem0[0] >= 0,
	    "every byte charged given back");
	tap(fig.answered > fig.messages / 20, "most requests reach the module (%ld of %ld)",
	    fig.answered, fig.messages);
	tap(fig.messages >= floor, "%ld messages, at least %ld", fig.messages, floor);
	return tap_failed ? 1 : 0;
}
