// SPDX-License-Identifier: GPL-2.0
/*
 * A netlink fuzzer for the kbloom family, in the test VM (the debug kernel
 * tier runs it under KASAN, UBSAN and lockdep):
 *
 *   fuzzer --valid request of every command, then mutated: bytes flipped,
 *          attribute types and lengths changed, truncated, random
 *          attributes appended, nests nested deep, many keys--> kbloom.ko
 *          <--every request gets its ACK (0) or an error (-1..-4095)
 *
 * Deterministic (seeded); KBLOOM_FUZZ_N messages (default 50000), or as
 * many as KBLOOM_FUZZ_SECONDS (default 300) allow on a slow kernel (the
 * debug kernel under emulation), at least FUZZ_MIN of them. Filters
 * are swept away every few hundred messages and the module's memory limit
 * is lowered for the run, so the fuzzer cannot exhaust the VM.
 */
#include <stdlib.h>
#include <sys/time.h>

#include "vm_harness.h"
#include "nlraw.h"


static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static const char *names[] = { "fz0", "fz1", "fz2", "fz3" };

/* The type of the CREATE valid_request() made last, 0 for other commands. */
static uint32_t created_type;

static void put_keys(struct nlr_msg *m, int n, bool tuples)
{
	size_t nest = nlr_nest_start(m, KBLOOM_A_KEYS), t;
	char key[24];
	int i, d;

	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "k%llu", (unsigned long long)(rnd() % 64));
		if (!tuples) {
			nlr_put(m, KBLOOM_KEYS_A_KEY, key, strlen(key));
			continue;
		}
		t = nlr_nest_start(m, KBLOOM_KEYS_A_TUPLE);
		for (d = 1; d <= 3; d++)
			nlr_put(m, d, key, strlen(key));
		nlr_nest_end(m, t);
	}
	nlr_nest_end(m, nest);
}

/* A valid (or nearly valid) request of a random command. */
static void valid_request(struct nlr *s, struct nlr_msg *m)
{
	const char *name = names[rnd() % 4];
	uint8_t cmd = 1 + rnd() % KBLOOM_CMD_MAX;
	uint8_t pkt[64] = { 0x45, 0, 0, 40, 0, 1, 0x40, 0, 64, 17 };
	size_t nest;

	if (cmd == KBLOOM_CMD_ROTATED)
		cmd = KBLOOM_CMD_STATUS;
	created_type = 0;
	nlr_init(s, m, s->family, cmd,
		 cmd == KBLOOM_CMD_EXPORT || (cmd == KBLOOM_CMD_GET && rnd() % 2) ?
		 NLM_F_DUMP : 0);
	switch (cmd) {
	case KBLOOM_CMD_CREATE: {
		/*
		 * Transforms tables too: ADD, TEST, QUERY ... meet their
		 * EOPNOTSUPP, ATTACH its hook and digest checks, EXPORT and
		 * IMPORT their 32-byte records (BITS = records, even; HASHES 1).
		 */
		static const uint32_t types[] = { KBLOOM_TYPE_BLOOM, KBLOOM_TYPE_BLOCKED,
			KBLOOM_TYPE_COUNTING, KBLOOM_TYPE_DLEFT, KBLOOM_TYPE_STABLE,
			KBLOOM_TYPE_MULTI, KBLOOM_TYPE_PARTITIONED,
			KBLOOM_TYPE_TRANSFORMS };
		uint32_t type = types[rnd() % ARRAY_SIZE(types)];
		bool one_hash = type == KBLOOM_TYPE_DLEFT ||
				type == KBLOOM_TYPE_TRANSFORMS;

		created_type = type;
		nlr_put_str(m, KBLOOM_A_NAME, name);
		nlr_put_u32(m, KBLOOM_A_TYPE, type);
		nlr_put_u64(m, KBLOOM_A_BITS, type == KBLOOM_TYPE_DLEFT ? 4 * 8 * 64 :
			    512 * (1 + rnd() % 64));
		nlr_put_u32(m, KBLOOM_A_HASHES, one_hash ? 1 : 1 + rnd() % 8);
		if (type == KBLOOM_TYPE_COUNTING)
			nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 4 << (rnd() % 3));
		if (type == KBLOOM_TYPE_STABLE) {
			nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 2);
			nlr_put_u32(m, KBLOOM_A_DECREMENT, 3);
		}
		if (type == KBLOOM_TYPE_DLEFT) {
			nlr_put_u32(m, KBLOOM_A_SUBTABLES, 4);
			nlr_put_u32(m, KBLOOM_A_BUCKET_CELLS, 8);
			nlr_put_u32(m, KBLOOM_A_FP_BITS, 12);
		}
		if (type == KBLOOM_TYPE_MULTI) {
			nest = nlr_nest_start(m, KBLOOM_A_DIMS);
			nlr_put_str(m, KBLOOM_DIMS_A_NAME, "src");
			nlr_put_str(m, KBLOOM_DIMS_A_NAME, "dst");
			nlr_put_str(m, KBLOOM_DIMS_A_NAME, "port");
			nlr_nest_end(m, nest);
		}
		if (rnd() % 3 == 0 && type != KBLOOM_TYPE_STABLE) {
			nlr_put_u32(m, KBLOOM_A_WINDOWS, 2 + rnd() % 4);
			nlr_put_u64(m, KBLOOM_A_INTERVAL, 10 + rnd() % 300);
		}
		if (rnd() % 5 == 0)
			nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
		break;
	}
	case KBLOOM_CMD_ADD: case KBLOOM_CMD_TEST: case KBLOOM_CMD_DEL:
	case KBLOOM_CMD_COUNT: case KBLOOM_CMD_QUERY:
		nlr_put_str(m, KBLOOM_A_NAME, name);
		put_keys(m, 1 + rnd() % 40, rnd() % 4 == 0);
		break;
	case KBLOOM_CMD_MERGE: case KBLOOM_CMD_ESTIMATE:
		nlr_put_str(m, KBLOOM_A_NAME, name);
		nlr_put_str(m, KBLOOM_A_SRC, names[rnd() % 4]);
		nlr_put_u32(m, KBLOOM_A_MERGE_OP, rnd() % 3);
		break;
	case KBLOOM_CMD_ATTACH:
		nlr_put_str(m, KBLOOM_A_NAME, name);
		nlr_put_u32(m, KBLOOM_A_HOOK, 1 + rnd() % KBLOOM_HOOK_MAX);
		nlr_put_u32(m, KBLOOM_A_DIGEST, 1 + rnd() % KBLOOM_DIGEST_MAX);
		nlr_put_u32(m, KBLOOM_A_FAMILY, rnd() % 3);
		if (rnd() % 2)
			nlr_put_str(m, KBLOOM_A_IFNAME, "lo");
		break;
	case KBLOOM_CMD_DIGEST:
		nlr_put(m, KBLOOM_A_PACKET, pkt, 20 + rnd() % 44);
		nlr_put_u32(m, KBLOOM_A_DIGEST, 1 + rnd() % KBLOOM_DIGEST_MAX);
		nlr_put_u32(m, KBLOOM_A_LINEAR, 1 + rnd() % 64);
		break;
	case KBLOOM_CMD_EXPORT:
		nlr_put_str(m, KBLOOM_A_NAME, name);
		if (rnd() % 2)
			nlr_put_u64(m, KBLOOM_A_WINDOW, rnd() % 4);
		break;
	case KBLOOM_CMD_IMPORT:
		nlr_put_str(m, KBLOOM_A_NAME, name);
		nlr_put_u64(m, KBLOOM_A_OFFSET, 8 * (rnd() % 16));
		nlr_put(m, KBLOOM_A_CELLS, pkt, 8 * (1 + rnd() % 8));
		if (rnd() % 2)
			nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_LOADED);
		break;
	case KBLOOM_CMD_DESTROY:
		if (rnd() % 8)
			nlr_put_str(m, KBLOOM_A_NAME, name);
		else
			nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
		break;
	case KBLOOM_CMD_STATUS:
		break;
	default:
		nlr_put_str(m, KBLOOM_A_NAME, name);
		break;
	}
}

static void set_len(struct nlr_msg *m)
{
	nlr_hdr(m)->nlmsg_len = m->len;
}

/* Mutates the attributes (after the genl header) of @m. */
static void mutate(struct nlr_msg *m)
{
	size_t base = NLMSG_HDRLEN + GENL_HDRLEN, i, n;
	struct nlattr *a;

	switch (rnd() % 9) {
	case 0:	/* flip bytes */
		for (n = 1 + rnd() % 4; n && m->len > base; n--)
			m->buf[base + rnd() % (m->len - base)] ^= 1 << (rnd() % 8);
		break;
	case 1:	/* another attribute type, maybe NLA_F_NESTED */
		if (m->len > base + NLA_HDRLEN) {
			a = (struct nlattr *)(m->buf + base);
			a->nla_type = (rnd() % 64) | (rnd() % 4 ? 0 : NLA_F_NESTED);
		}
		break;
	case 2:	/* a wrong length */
		if (m->len > base + NLA_HDRLEN) {
			a = (struct nlattr *)(m->buf + base);
			a->nla_len = rnd() % (a->nla_len + 16);
		}
		break;
	case 3:	/* truncated */
		if (m->len > base)
			m->len = base + rnd() % (m->len - base);
		break;
	case 4:	/* random attributes appended */
		for (n = 1 + rnd() % 6; n; n--) {
			uint8_t junk[40];

			for (i = 0; i < sizeof(junk); i++)
				junk[i] = rnd();
			nlr_put(m, rnd() % 64, junk, rnd() % sizeof(junk));
		}
		break;
	case 5: {	/* deep nesting */
		size_t offs[64];

		n = 1 + rnd() % 64;
		for (i = 0; i < n; i++)
			offs[i] = nlr_nest_start(m, i == 0 ? KBLOOM_A_KEYS : 1 + rnd() % 3);
		nlr_put(m, KBLOOM_KEYS_A_KEY, "x", 1);
		while (i--)
			nlr_nest_end(m, offs[i]);
		break;
	}
	case 6:	/* many keys */
		put_keys(m, 500 + rnd() % 3000, rnd() % 2);
		break;
	case 7:	/* another command or version */
		((struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->cmd = rnd() % 48;
		((struct genlmsghdr *)(m->buf + NLMSG_HDRLEN))->version = rnd() % 3;
		break;
	case 8:	/* dump flag on anything */
		nlr_hdr(m)->nlmsg_flags ^= NLM_F_DUMP;
		break;
	}
	if (m->len > NLR_BUF)
		m->len = NLR_BUF;
	set_len(m);
}

static void sweep(struct nlr *s, struct nlr_msg *m)
{
	nlr_init(s, m, s->family, KBLOOM_CMD_DESTROY, 0);
	nlr_put_u32(m, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
	nlr_send(s, m);
}



/* Fewer messages than this in the time allowed is a failure. */
#define FUZZ_MIN	5000

static double now_s(void)
{
	struct timeval t;

	gettimeofday(&t, NULL);
	return t.tv_sec + t.tv_usec / 1e6;
}

FIXTURE(fz) {
};

FIXTURE_SETUP(fz)
{
}

FIXTURE_TEARDOWN(fz)
{
}

/* The harness's own limit is above KBLOOM_FUZZ_SECONDS' default. */
TEST_F_TIMEOUT(fz, every_request_answered_and_no_kernel_report, 600)
{
	struct timeval tv = { .tv_sec = 10 };
	static struct nlr s;
	static struct nlr_msg m;
	const char *env = getenv("KBLOOM_FUZZ_N");
	const char *secs = getenv("KBLOOM_FUZZ_SECONDS");
	long total = env ? atol(env) : 50000, i;
	double deadline = now_s() + (secs ? atof(secs) : 300);
	long ok = 0, errors = 0, mutated = 0, xlate_tables = 0;
	bool unanswered = false, mut;
	unsigned long long saved = nlr_max_memory();
	int err;

	ASSERT_EQ(0, nlr_open(&s));
	ASSERT_EQ(0, setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	nlr_set_max_memory(64ULL << 20);
	for (i = 0; i < total; i++) {
		valid_request(&s, &m);
		mut = rnd() % 4;
		if (mut) {
			mutate(&m);
			mutated++;
		}
		/* Every request asks for its ACK, so each gets an answer. */
		nlr_hdr(&m)->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
		err = nlr_send(&s, &m);
		if (err == -EAGAIN) {
			TH_LOG("request %ld (cmd %u) got no answer in 10 s", i,
			       ((struct genlmsghdr *)(m.buf + NLMSG_HDRLEN))->cmd);
			unanswered = true;
			break;
		}
		ASSERT_TRUE(err <= 0 && err >= -4095);
		if (err)
			errors++;
		else
			ok++;
		/* Transforms tables were made, for the others to meet. */
		if (!err && !mut && created_type == KBLOOM_TYPE_TRANSFORMS)
			xlate_tables++;
		if (i % 300 == 299) {
			sweep(&s, &m);
			if (now_s() > deadline) {
				i++;
				break;
			}
		}
	}
	sweep(&s, &m);
	nlr_set_max_memory(saved);
	TH_LOG("%ld messages (%ld mutated): %ld accepted, %ld refused%s",
	       i, mutated, ok, errors, i < total ? " (time limit)" : "");
	TH_LOG("%ld transforms tables created", xlate_tables);
	EXPECT_FALSE(unanswered);
	EXPECT_LT(0, xlate_tables);
	EXPECT_EQ(ok + errors, i);
	EXPECT_LE(total < FUZZ_MIN ? total : FUZZ_MIN, i);
	EXPECT_LT(i / 20, ok);
	close(s.fd);
}

TEST_HARNESS_MAIN
