// SPDX-License-Identifier: GPL-2.0
/*
 * Time-paged filters, attachments and the DIGEST command through the raw
 * netlink ABI, in the test VM with kbloom.ko loaded:
 *
 *   test --CREATE windows W interval I--> ring of W tables, rotated by timer
 *        --ADD / TEST / QUERY----------> which windows hold which keys
 *   test --raw IPv4 packet to 127.0.0.1--> lo --OUTPUT hook--> attached filter
 *   test --DIGEST packet, linear split--> kernel digest == kb_digest() here
 *
 * Times: the VM is emulated, and a loaded debug kernel may take seconds
 * for a request or run a rotation late, so the tests wait for window IDs
 * (polling GET's WINDOW_LIST), never a fixed time, and assertions are about
 * order and membership, not clocks.
 */
#include <arpa/inet.h>
#include <netinet/ip.h>
#include <stdlib.h>
#include <time.h>

#include "vm_harness.h"
#include "nlraw.h"
#include "packet_path.h"
#include "engine/digest.h"

FIXTURE(win) {
	struct nlr s;
	struct nlr_msg m;
};

FIXTURE_SETUP(win)
{
	ASSERT_EQ(0, nlr_open(&self->s));
	ASSERT_EQ(0, nlr_destroy_all(&self->s, &self->m));
}

FIXTURE_TEARDOWN(win)
{
	nlr_destroy_all(&self->s, &self->m);
	close(self->s.fd);
}

static int create_paged(struct nlr *s, struct nlr_msg *m, const char *name,
			uint32_t type, uint32_t windows, uint64_t interval)
{
	create_msg(s, m, name, type, 1 << 16, 4);
	if (type == KBLOOM_TYPE_COUNTING)
		nlr_put_u32(m, KBLOOM_A_COUNTER_BITS, 8);
	nlr_put_u32(m, KBLOOM_A_WINDOWS, windows);
	nlr_put_u64(m, KBLOOM_A_INTERVAL, interval);
	return nlr_send(s, m);
}

/* QUERY of one key; returns the window bitmap (bit j: window j of the list). */
static int query1(struct nlr *s, struct nlr_msg *m, const char *name,
		  const char *key, uint64_t *bits)
{
	struct nlattr *hits;
	size_t nest;
	int err;

	nlr_init(s, m, s->family, KBLOOM_CMD_QUERY, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	nlr_put(m, KBLOOM_KEYS_A_KEY, key, strlen(key));
	nlr_nest_end(m, nest);
	err = nlr_send(s, m);
	if (err)
		return err;
	hits = nlr_reply_attr(s, KBLOOM_A_WINDOW_HITS);
	*bits = 0;
	if (!hits)
		return -ENODATA;
	memcpy(bits, (char *)hits + NLA_HDRLEN,
	       hits->nla_len - NLA_HDRLEN < 8 ? hits->nla_len - NLA_HDRLEN : 8);
	return 0;
}

static int add1(struct nlr *s, struct nlr_msg *m, uint8_t cmd,
		const char *name, const char *key)
{
	size_t nest;

	nlr_init(s, m, s->family, cmd, 0);
	nlr_put_str(m, KBLOOM_A_NAME, name);
	nest = nlr_nest_start(m, KBLOOM_A_KEYS);
	nlr_put(m, KBLOOM_KEYS_A_KEY, key, strlen(key));
	nlr_nest_end(m, nest);
	return nlr_send(s, m);
}

TEST_F(win, create_reports_windows_and_one_open_window)
{
	struct nlr *s = &self->s;
	struct window w[8];
	uint64_t one_table;

	ASSERT_EQ(0, create(s, &self->m, "plain", 1 << 16, 4));
	ASSERT_EQ(0, get(s, &self->m, "plain"));
	one_table = reply_u64(s, KBLOOM_A_MEMORY);
	EXPECT_EQ(1, windows_of(s, w, 8));
	EXPECT_EQ(1, w[0].id);
	EXPECT_EQ(0, w[0].end);
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_WINDOWS));

	ASSERT_EQ(0, create_paged(s, &self->m, "p", KBLOOM_TYPE_BLOOM, 4, 60000));
	ASSERT_EQ(0, get(s, &self->m, "p"));
	EXPECT_EQ(4, reply_u32(s, KBLOOM_A_WINDOWS));
	EXPECT_EQ(60000, reply_u64(s, KBLOOM_A_INTERVAL));
	ASSERT_EQ(1, windows_of(s, w, 8));
	EXPECT_EQ(1, w[0].id);
	EXPECT_NE(0, w[0].start);
	EXPECT_EQ(0, w[0].end);
	/* W retained tables plus the one being emptied. */
	EXPECT_LE(5 * (one_table - 4096), reply_u64(s, KBLOOM_A_MEMORY));
}

TEST_F(win, bad_window_parameters_refused)
{
	struct nlr *s = &self->s;

	create_msg(s, &self->m, "x", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_WINDOWS, 4);
	EXPECT_EQ(-EINVAL, nlr_send(s, &self->m));
	EXPECT_STREQ("WINDOWS and INTERVAL go together", s->extack);

	create_msg(s, &self->m, "x", KBLOOM_TYPE_BLOOM, 4096, 3);
	nlr_put_u64(&self->m, KBLOOM_A_INTERVAL, 1000);
	EXPECT_EQ(-EINVAL, nlr_send(s, &self->m));

	EXPECT_EQ(-ERANGE, create_paged(s, &self->m, "x", KBLOOM_TYPE_BLOOM, 1, 1000));
	EXPECT_EQ(-ERANGE, create_paged(s, &self->m, "x", KBLOOM_TYPE_BLOOM,
					KBLOOM_WINDOWS_MAX + 1, 1000));
	EXPECT_EQ(-ERANGE, create_paged(s, &self->m, "x", KBLOOM_TYPE_BLOOM, 4, 9));

	create_msg(s, &self->m, "x", KBLOOM_TYPE_STABLE, 4096, 3);
	nlr_put_u32(&self->m, KBLOOM_A_COUNTER_BITS, 2);
	nlr_put_u32(&self->m, KBLOOM_A_DECREMENT, 2);
	nlr_put_u32(&self->m, KBLOOM_A_WINDOWS, 4);
	nlr_put_u64(&self->m, KBLOOM_A_INTERVAL, 1000);
	EXPECT_EQ(-EINVAL, nlr_send(s, &self->m));
	EXPECT_EQ(0, dump_count(s, &self->m));
}

/*
 * The waits follow the window IDs; the rings are long enough (8 windows
 * of 1 s) that the window of the first key is still kept when a request
 * takes seconds.
 */
TEST_F(win, rotation_moves_keys_into_older_windows)
{
	struct nlr *s = &self->s;
	struct window w[8];
	uint64_t bits;
	int64_t first;
	int n, j;

	ASSERT_EQ(0, create_paged(s, &self->m, "r", KBLOOM_TYPE_BLOOM, 8, 1000));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "r", "first"));
	ASSERT_EQ(0, query1(s, &self->m, "r", "first", &bits));
	/* in one window: the first, the newest unless a rotation came between */
	ASSERT_EQ(1, __builtin_popcountll(bits));
	n = windows_of(s, w, 8);
	j = __builtin_ctzll(bits);
	ASSERT_GT(n, j);
	first = w[j].id;
	EXPECT_EQ(1, first);
	ASSERT_LE(first + 1, wait_window(s, &self->m, "r", first + 1));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "r", "second"));

	ASSERT_EQ(0, query1(s, &self->m, "r", "first", &bits));
	n = windows_of(s, w, 8);
	ASSERT_LE(2, n);
	/* Newest first; "first" sits in its window, "second" in the newest. */
	for (j = 0; j < n && w[j].id != first; j++)
		;
	ASSERT_GT(n, j) TH_LOG("window %lld of \"first\" no longer kept",
			      (long long)first);
	ASSERT_LT(0, j);
	EXPECT_EQ(1ULL << j, bits);
	EXPECT_NE(0, w[j].end);
	EXPECT_EQ(w[j - 1].start, w[j].end);
	EXPECT_EQ(1, w[j].packets);
	EXPECT_EQ(0, w[0].end);
	ASSERT_EQ(0, query1(s, &self->m, "r", "second", &bits));
	EXPECT_EQ(1, bits & 1);
	EXPECT_EQ(1, __builtin_popcountll(bits));

	/* TEST answers across every window. */
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_TEST, "r", "first"));
	EXPECT_EQ(1, reply_u32(s, KBLOOM_A_NPRESENT));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_TEST, "r", "never"));
	EXPECT_EQ(0, reply_u32(s, KBLOOM_A_NPRESENT));
}

TEST_F(win, retention_drops_the_oldest_window)
{
	struct nlr *s = &self->s;
	struct window w[8];
	uint64_t bits;
	int64_t gone;
	int n;

	ASSERT_EQ(0, create_paged(s, &self->m, "old", KBLOOM_TYPE_BLOCKED, 2, 300));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "old", "gone"));
	gone = newest_window(s, &self->m, "old");
	ASSERT_LE(1, gone);
	/* two rotations later, the window "gone" went in is dropped */
	ASSERT_LE(gone + 2, wait_window(s, &self->m, "old", gone + 2));
	ASSERT_EQ(0, query1(s, &self->m, "old", "gone", &bits));
	EXPECT_EQ(0, bits);
	n = windows_of(s, w, 8);
	EXPECT_EQ(2, n);
	EXPECT_LE(gone + 2, w[0].id);
	EXPECT_EQ(w[1].id + 1, w[0].id);
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_TEST, "old", "gone"));
	EXPECT_EQ(0, reply_u32(s, KBLOOM_A_NPRESENT));
}

TEST_F(win, count_sums_windows)
{
	struct nlr *s = &self->s;
	struct nlattr *a;
	int64_t before;
	uint32_t c;

	ASSERT_EQ(0, create_paged(s, &self->m, "cnt", KBLOOM_TYPE_COUNTING, 8, 1000));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "cnt", "flow"));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "cnt", "flow"));
	before = newest_window(s, &self->m, "cnt");
	ASSERT_LE(1, before);
	ASSERT_LE(before + 1, wait_window(s, &self->m, "cnt", before + 1));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "cnt", "flow"));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_COUNT, "cnt", "flow"));
	a = nlr_reply_attr(s, KBLOOM_A_COUNTS);
	ASSERT_NE(NULL, a);
	memcpy(&c, (char *)a + NLA_HDRLEN, 4);
	EXPECT_EQ(3, c);
}

TEST_F(win, del_merge_estimate_refused_on_windows)
{
	struct nlr *s = &self->s;

	ASSERT_EQ(0, create_paged(s, &self->m, "cw", KBLOOM_TYPE_COUNTING, 4, 60000));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "cw", "k"));
	EXPECT_EQ(-EOPNOTSUPP, add1(s, &self->m, KBLOOM_CMD_DEL, "cw", "k"));
	EXPECT_STREQ("not supported on a filter with windows", s->extack);
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_TEST, "cw", "k"));
	EXPECT_EQ(1, reply_u32(s, KBLOOM_A_NPRESENT));

	ASSERT_EQ(0, create_paged(s, &self->m, "bw", KBLOOM_TYPE_BLOOM, 4, 60000));
	ASSERT_EQ(0, create(s, &self->m, "b", 1 << 16, 4));
	nlr_init(s, &self->m, s->family, KBLOOM_CMD_MERGE, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "b");
	nlr_put_str(&self->m, KBLOOM_A_SRC, "bw");
	EXPECT_EQ(-EOPNOTSUPP, nlr_send(s, &self->m));
	nlr_init(s, &self->m, s->family, KBLOOM_CMD_ESTIMATE, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "bw");
	nlr_put_str(&self->m, KBLOOM_A_SRC, "b");
	EXPECT_EQ(-EOPNOTSUPP, nlr_send(s, &self->m));
}

TEST_F(win, query_of_plain_filter_has_one_window)
{
	struct nlr *s = &self->s;
	struct window w[2];
	uint64_t bits;

	ASSERT_EQ(0, create(s, &self->m, "q", 1 << 16, 4));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "q", "here"));
	ASSERT_EQ(0, query1(s, &self->m, "q", "here", &bits));
	EXPECT_EQ(1, bits);
	EXPECT_EQ(1, windows_of(s, w, 2));
	EXPECT_EQ(1, reply_u32(s, KBLOOM_A_NKEYS));
	ASSERT_EQ(0, query1(s, &self->m, "q", "absent", &bits));
	EXPECT_EQ(0, bits);
	EXPECT_EQ(-ENOENT, query1(s, &self->m, "nope", "x", &bits));
}

static uint64_t realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * CLEAR starts the record anew: what the windows held is gone, so none
 * covers a time before it. A plain filter's one window starts at the
 * clear, with no packets; a ring's open window too, and its closed ones
 * hold nothing and cover nothing (start = end = the clear), so a packet
 * seen before the clear is "not recorded" (QUERY's since), never absent.
 */
TEST_F(win, clear_starts_the_windows_anew)
{
	struct nlr *s = &self->s;
	struct window w[4];
	uint64_t before;
	int n, j;

	ASSERT_EQ(0, create(s, &self->m, "q", 1 << 16, 4));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "q", "old"));
	before = realtime_ns();
	ASSERT_EQ(0, name_cmd(s, &self->m, KBLOOM_CMD_CLEAR, "q"));
	ASSERT_EQ(0, get(s, &self->m, "q"));
	ASSERT_EQ(1, windows_of(s, w, 4));
	EXPECT_LE(before, w[0].start);
	EXPECT_EQ(0, w[0].packets);
	EXPECT_EQ(0, w[0].fill);

	ASSERT_EQ(0, create_paged(s, &self->m, "r", KBLOOM_TYPE_BLOOM, 4, 200));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "r", "old"));
	ASSERT_LE(3, wait_window(s, &self->m, "r", 3));
	ASSERT_EQ(0, add1(s, &self->m, KBLOOM_CMD_ADD, "r", "newer"));
	before = realtime_ns();
	ASSERT_EQ(0, name_cmd(s, &self->m, KBLOOM_CMD_CLEAR, "r"));
	ASSERT_EQ(0, get(s, &self->m, "r"));
	n = windows_of(s, w, 4);
	ASSERT_LE(2, n);
	for (j = 0; j < n; j++) {
		EXPECT_LE(before, w[j].start) TH_LOG("window %lld", (long long)w[j].id);
		EXPECT_EQ(0, w[j].packets);
		EXPECT_EQ(0, w[j].fill);
		/* a rotation may have come since: only the newest is open */
		if (j)
			EXPECT_EQ(w[j].start, w[j].end);
	}
}

TEST_F(win, attach_refusals_named)
{
	struct nlr *s = &self->s;

	EXPECT_EQ(-ENOENT, attach(s, &self->m, "none", KBLOOM_HOOK_INPUT,
				  KBLOOM_DIGEST_SPIE, NULL));
	ASSERT_EQ(0, create(s, &self->m, "a", 1 << 16, 4));
	EXPECT_EQ(-EINVAL, attach(s, &self->m, "a", KBLOOM_HOOK_INPUT,
				  KBLOOM_DIGEST_MULTI, NULL));
	EXPECT_EQ(-ENODEV, attach(s, &self->m, "a", KBLOOM_HOOK_INPUT,
				  KBLOOM_DIGEST_SPIE, "nosuchdev0"));
	EXPECT_STREQ("no device of that IFNAME in this namespace", s->extack);
	EXPECT_EQ(-ERANGE, attach(s, &self->m, "a", KBLOOM_HOOK_MAX + 1,
				  KBLOOM_DIGEST_SPIE, NULL));
	EXPECT_EQ(-ERANGE, attach(s, &self->m, "a", KBLOOM_HOOK_INPUT,
				  KBLOOM_DIGEST_MAX + 1, NULL));
	EXPECT_EQ(-ENOENT, detach(s, &self->m, "a"));
	EXPECT_STREQ("filter is not attached", s->extack);

	ASSERT_EQ(0, attach(s, &self->m, "a", KBLOOM_HOOK_INPUT,
			    KBLOOM_DIGEST_SPIE, "lo"));
	EXPECT_EQ(-EBUSY, attach(s, &self->m, "a", KBLOOM_HOOK_OUTPUT,
				 KBLOOM_DIGEST_FLOW, NULL));
	ASSERT_EQ(0, get(s, &self->m, "a"));
	EXPECT_NE(NULL, nlr_reply_attr(s, KBLOOM_A_ATTACH));
	EXPECT_EQ(0, detach(s, &self->m, "a"));
	ASSERT_EQ(0, get(s, &self->m, "a"));
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_ATTACH));
}

TEST_F(win, output_hook_records_the_digest_of_each_packet)
{
	struct nlr *s = &self->s;
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct kb_digest d;
	uint8_t pkt[128];
	uint64_t bits;
	size_t len, nest;
	int fd, i;

	ASSERT_EQ(0, create_paged(s, &self->m, "out", KBLOOM_TYPE_BLOOM, 3, 60000));
	ASSERT_EQ(0, attach(s, &self->m, "out", KBLOOM_HOOK_OUTPUT,
			    KBLOOM_DIGEST_SPIE, "lo"));
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	ASSERT_LE(0, fd);
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < 20; i++) {
		len = udp_packet(pkt, 1000 + i, 40000 + i);
		ASSERT_EQ((ssize_t)len, sendto(fd, pkt, len, 0,
					       (struct sockaddr *)&to, sizeof(to)));
	}
	close(fd);

	ASSERT_EQ(0, get(s, &self->m, "out"));
	/* 20 packets out, ICMP port-unreachable errors come back in. */
	EXPECT_LE(20, attach_u64(s, KBLOOM_ATTACH_A_SEEN));
	EXPECT_EQ(attach_u64(s, KBLOOM_ATTACH_A_SEEN),
		  attach_u64(s, KBLOOM_ATTACH_A_DIGESTED));

	for (i = 0; i < 20; i++) {
		len = udp_packet(pkt, 1000 + i, 40000 + i);
		pkt[8] = 1;	/* another TTL: same digest */
		ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(pkt, len, KBLOOM_DIGEST_SPIE, &d));
		nlr_init(s, &self->m, s->family, KBLOOM_CMD_QUERY, 0);
		nlr_put_str(&self->m, KBLOOM_A_NAME, "out");
		nest = nlr_nest_start(&self->m, KBLOOM_A_KEYS);
		nlr_put(&self->m, KBLOOM_KEYS_A_KEY, d.key, d.len);
		nlr_nest_end(&self->m, nest);
		ASSERT_EQ(0, nlr_send(s, &self->m));
		bits = 0;
		memcpy(&bits, (char *)nlr_reply_attr(s, KBLOOM_A_WINDOW_HITS) +
		       NLA_HDRLEN, 1);
		EXPECT_EQ(1, bits) TH_LOG("packet %d not recorded", i);
	}
	/* A packet never sent. */
	len = udp_packet(pkt, 999, 39999);
	ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(pkt, len, KBLOOM_DIGEST_SPIE, &d));
	nlr_init(s, &self->m, s->family, KBLOOM_CMD_TEST, 0);
	nlr_put_str(&self->m, KBLOOM_A_NAME, "out");
	nest = nlr_nest_start(&self->m, KBLOOM_A_KEYS);
	nlr_put(&self->m, KBLOOM_KEYS_A_KEY, d.key, d.len);
	nlr_nest_end(&self->m, nest);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	EXPECT_EQ(0, reply_u32(s, KBLOOM_A_NPRESENT));

	/* Detached: nothing more is seen. */
	ASSERT_EQ(0, detach(s, &self->m, "out"));
}

/*
 *   ATTACH a (input, spie, ipv4, lo) --then--> ATTACH a again, EXIST, with
 *   one field changed --> EBUSY naming the field; all the same --> 0;
 *   without EXIST --> EBUSY "DETACH it first"; a transforms table or a
 *   multi filter with the wrong attributes --> EINVAL naming them.
 */
TEST_F(win, attach_again_names_what_differs)
{
	struct nlr *s = &self->s;
	size_t nest;

	ASSERT_EQ(0, create(s, &self->m, "a", 1 << 16, 4));
	ASSERT_EQ(0, attach_full(s, &self->m, "a", KBLOOM_HOOK_INPUT, KBLOOM_DIGEST_SPIE,
				 KBLOOM_FAMILY_IPV4, "lo", false));
	EXPECT_EQ(0, attach_full(s, &self->m, "a", KBLOOM_HOOK_INPUT, KBLOOM_DIGEST_SPIE,
				 KBLOOM_FAMILY_IPV4, "lo", true));
	EXPECT_EQ(-EBUSY, attach_full(s, &self->m, "a", KBLOOM_HOOK_OUTPUT, KBLOOM_DIGEST_SPIE,
				      KBLOOM_FAMILY_IPV4, "lo", true));
	EXPECT_STREQ("filter is attached already, at another HOOK", s->extack);
	EXPECT_EQ(-EBUSY, attach_full(s, &self->m, "a", KBLOOM_HOOK_INPUT, KBLOOM_DIGEST_SPIE,
				      KBLOOM_FAMILY_IPV6, "lo", true));
	EXPECT_STREQ("filter is attached already, for another FAMILY", s->extack);
	EXPECT_EQ(-EBUSY, attach_full(s, &self->m, "a", KBLOOM_HOOK_INPUT, KBLOOM_DIGEST_FLOW,
				      KBLOOM_FAMILY_IPV4, "lo", true));
	EXPECT_STREQ("filter is attached already, with another DIGEST", s->extack);
	EXPECT_EQ(-EBUSY, attach_full(s, &self->m, "a", KBLOOM_HOOK_INPUT, KBLOOM_DIGEST_SPIE,
				      KBLOOM_FAMILY_IPV4, NULL, true));
	EXPECT_STREQ("filter is attached already, to another IFNAME", s->extack);
	EXPECT_EQ(-EBUSY, attach_full(s, &self->m, "a", KBLOOM_HOOK_INPUT, KBLOOM_DIGEST_SPIE,
				      KBLOOM_FAMILY_IPV4, "lo", false));
	EXPECT_STREQ("filter is attached already; DETACH it first", s->extack);
	EXPECT_EQ(0, detach(s, &self->m, "a"));

	/* no DIGEST for a filter of keys */
	EXPECT_EQ(-EINVAL, attach_full(s, &self->m, "a", KBLOOM_HOOK_INPUT, 0,
				       KBLOOM_FAMILY_ANY, NULL, false));
	EXPECT_STREQ("missing attribute DIGEST (the digest mode)", s->extack);

	/* a multi filter of 2 dimensions: digest multi needs 3 */
	create_msg(s, &self->m, "m2", KBLOOM_TYPE_MULTI, 1 << 12, 3);
	nest = nlr_nest_start(&self->m, KBLOOM_A_DIMS);
	nlr_put_str(&self->m, KBLOOM_DIMS_A_NAME, "src");
	nlr_put_str(&self->m, KBLOOM_DIMS_A_NAME, "dst");
	nlr_nest_end(&self->m, nest);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	EXPECT_EQ(-EINVAL, attach_full(s, &self->m, "m2", KBLOOM_HOOK_INPUT, KBLOOM_DIGEST_MULTI,
				       KBLOOM_FAMILY_ANY, NULL, false));
	EXPECT_STREQ("DIGEST multi needs a multi filter of 3 dimensions (src, dst, dst port); other digests a filter that is not multi",
		     s->extack);

	/* a transforms table: postrouting, no digest */
	create_msg(s, &self->m, "x", KBLOOM_TYPE_TRANSFORMS, 1024, 1);
	ASSERT_EQ(0, nlr_send(s, &self->m));
	EXPECT_EQ(-EINVAL, attach_full(s, &self->m, "x", KBLOOM_HOOK_POSTROUTING,
				       KBLOOM_DIGEST_SPIE, KBLOOM_FAMILY_ANY, NULL, false));
	EXPECT_STREQ("a transforms table takes no DIGEST", s->extack);
	EXPECT_EQ(-EINVAL, attach_full(s, &self->m, "x", KBLOOM_HOOK_FORWARD, 0,
				       KBLOOM_FAMILY_ANY, NULL, false));
	EXPECT_STREQ("a transforms table records at HOOK postrouting, after NAT", s->extack);
	ASSERT_EQ(0, get(s, &self->m, "x"));
	EXPECT_EQ(NULL, nlr_reply_attr(s, KBLOOM_A_ATTACH));
	EXPECT_EQ(0, attach_full(s, &self->m, "x", KBLOOM_HOOK_POSTROUTING, 0,
				 KBLOOM_FAMILY_IPV4, "lo", false));
	EXPECT_EQ(0, detach(s, &self->m, "x"));
	/* IPv6 alone: its arrival records. */
	EXPECT_EQ(0, attach_full(s, &self->m, "x", KBLOOM_HOOK_POSTROUTING, 0,
				 KBLOOM_FAMILY_IPV6, NULL, false));
	EXPECT_EQ(0, detach(s, &self->m, "x"));
}

/* The kernel's digest of @pkt with @linear bytes linear; 0 or -errno. */
static int kernel_digest(struct nlr *s, struct nlr_msg *m, const uint8_t *pkt,
			 size_t len, uint32_t linear, uint32_t mode,
			 struct kb_digest *d, uint32_t *skip)
{
	struct nlattr *keys, *a, *v;
	int err, i;

	nlr_init(s, m, s->family, KBLOOM_CMD_DIGEST, 0);
	nlr_put(m, KBLOOM_A_PACKET, pkt, len);
	nlr_put_u32(m, KBLOOM_A_LINEAR, linear);
	nlr_put_u32(m, KBLOOM_A_DIGEST, mode);
	err = nlr_send(s, m);
	if (err)
		return err;
	*skip = nlr_reply_attr(s, KBLOOM_A_SKIP) ? reply_u32(s, KBLOOM_A_SKIP) : 0;
	memset(d, 0, sizeof(*d));
	keys = nlr_reply_attr(s, KBLOOM_A_KEYS);
	if (!keys)
		return 0;
	a = (struct nlattr *)((char *)keys + NLA_HDRLEN);
	if (a->nla_type == KBLOOM_KEYS_A_KEY) {
		d->len = a->nla_len - NLA_HDRLEN;
		memcpy(d->key, (char *)a + NLA_HDRLEN, d->len);
		return 0;
	}
	v = (struct nlattr *)((char *)a + NLA_HDRLEN);
	for (i = 0; i < KB_DIGEST_DIMS; i++) {
		d->dim_off[i] = d->len;
		d->dim_len[i] = v->nla_len - NLA_HDRLEN;
		memcpy(d->key + d->len, (char *)v + NLA_HDRLEN, d->dim_len[i]);
		d->len += d->dim_len[i];
		v = (struct nlattr *)((char *)v + NLA_ALIGN(v->nla_len));
	}
	return 0;
}

/* A random IPv4 or IPv6 packet, sometimes with options or ext headers. */
static size_t random_packet(uint8_t *p, size_t max)
{
	static const uint8_t protos[] = { 6, 17, 1, 132, 47 };
	size_t len = 28 + rand() % 1400, hl, i;
	uint8_t proto = protos[rand() % sizeof(protos)];

	if (len > max)
		len = max;
	for (i = 0; i < len; i++)
		p[i] = rand();
	if (rand() % 2) {
		hl = 20 + 4 * (rand() % 4);
		p[0] = 0x40 | hl / 4;
		p[2] = len >> 8;
		p[3] = len & 0xff;
		p[6] &= rand() % 3 ? 0x40 : 0xff;	/* some fragments */
		p[9] = proto;
	} else {
		p[0] = 0x60 | (p[0] & 0x0f);
		p[4] = (len - 40) >> 8;
		p[5] = (len - 40) & 0xff;
		p[6] = rand() % 4 ? proto : (rand() % 2 ? 0 : 44);
		if (p[6] == 0) {
			p[40] = proto;
			p[41] = 0;
		} else if (p[6] == 44) {
			p[40] = proto;
		}
	}
	/* Now and then a malformed or truncated one. */
	if (rand() % 20 == 0)
		p[0] ^= 0x10;
	if (rand() % 20 == 0 && len > 30)
		len = 20 + rand() % 10;
	return len;
}

TEST_F(win, kernel_and_tool_digests_agree_byte_for_byte)
{
	struct nlr *s = &self->s;
	static uint8_t pkt[9000];
	struct kb_digest kd, ud;
	uint32_t mode, skip = 0, uskip, linear;
	int i, digested = 0, skipped = 0;
	size_t len;

	srand(20261122);
	for (i = 0; i < 2000; i++) {
		len = random_packet(pkt, sizeof(pkt));
		mode = 1 + i % KBLOOM_DIGEST_MAX;
		linear = 1 + rand() % len;
		if (i % 3 == 0)
			linear = len;
		ASSERT_EQ(0, kernel_digest(s, &self->m, pkt, len, linear, mode,
					   &kd, &skip));
		memset(&ud, 0, sizeof(ud));
		uskip = kb_digest(pkt, len < KB_DIGEST_SPAN ? len : KB_DIGEST_SPAN,
				  mode, &ud);
		ASSERT_EQ(uskip, skip) TH_LOG("packet %d mode %u", i, mode);
		if (skip) {
			skipped++;
			continue;
		}
		digested++;
		ASSERT_EQ(ud.len, kd.len);
		ASSERT_EQ(0, memcmp(ud.key, kd.key, ud.len))
			TH_LOG("packet %d mode %u linear %u", i, mode, linear);
		if (mode == KBLOOM_DIGEST_MULTI)
			ASSERT_EQ(0, memcmp(ud.dim_len, kd.dim_len, sizeof(ud.dim_len)));
	}
	TH_LOG("%d digested, %d skipped: identical", digested, skipped);
	EXPECT_LT(1000, digested);
	EXPECT_LT(20, skipped);
}

/*
 * Every header layout the parser tells apart, built on purpose (random
 * bytes rarely make a valid extension-header chain): IPv6 with 0 to 3
 * extension headers (hop-by-hop, routing, destination options, AH, first
 * and later fragments) before TCP, UDP, ICMPv6, SCTP or no next header;
 * IPv4 with every header length, fragment flags and protocol; then each
 * truncated at every byte and with its length field cut short, and every
 * version nibble. The kernel and the engine built here must agree on each.
 */
static const uint8_t v6_ext[] = { 0, 43, 60, 51, 44, 44 };
static const uint8_t upper[] = { 6, 17, 58, 132, 59, 33 };

/* An IPv6 packet with @n extension headers of kinds @ext (indexes into
 * v6_ext; 4 is a first fragment, 5 a later one) before @proto. */
static size_t v6_packet(uint8_t *p, const int *ext, int n, uint8_t proto,
			size_t payload)
{
	size_t off = 40, i;
	uint8_t *nh = p + 6;

	memset(p, 0, 40);
	p[0] = 0x60;
	for (i = 0; i < 16; i++) {
		p[8 + i] = 0x20 + i;
		p[24 + i] = 0x40 + i;
	}
	for (i = 0; i < (size_t)n; i++) {
		uint8_t kind = v6_ext[ext[i]];
		size_t hlen = kind == 44 ? 8 : kind == 51 ? 12 : 8 + 8 * (i % 2);

		*nh = kind;
		memset(p + off, 0, hlen);
		nh = p + off;
		if (kind == 51)
			p[off + 1] = hlen / 4 - 2;
		else if (kind != 44)
			p[off + 1] = hlen / 8 - 1;
		else if (ext[i] == 5)
			p[off + 3] = 0xb8;	/* offset 23 (x8) */
		else
			p[off + 3] = 1;		/* M: more fragments */
		off += hlen;
	}
	*nh = proto;
	for (i = 0; i < payload; i++)
		p[off + i] = 0x90 + i;
	off += payload;
	p[4] = (off - 40) >> 8;
	p[5] = (off - 40) & 0xff;
	return off;
}

static size_t v4_packet(uint8_t *p, int ihl, uint16_t frag, uint8_t proto,
			size_t payload)
{
	size_t len = ihl * 4 + payload, i;

	for (i = 0; i < len; i++)
		p[i] = 0x11 * i;
	p[0] = 0x40 | ihl;
	p[2] = len >> 8;
	p[3] = len & 0xff;
	p[6] = frag >> 8;
	p[7] = frag & 0xff;
	p[9] = proto;
	return len;
}

/* The kernel's and the engine's digest of @len bytes of @pkt in @mode
 * agree; counts the answer in @seen[skip]. */
static void agree(struct __test_metadata *_metadata, struct nlr *s,
		  struct nlr_msg *m, const uint8_t *pkt, size_t len,
		  uint32_t mode, int *seen, const char *what)
{
	struct kb_digest kd, ud;
	uint32_t skip = 0, uskip;
	uint32_t linear = len > 1 && (len + mode) % 3 == 0 ? len / 2 : len;

	ASSERT_EQ(0, kernel_digest(s, m, pkt, len, linear, mode, &kd, &skip));
	memset(&ud, 0, sizeof(ud));
	uskip = kb_digest(pkt, len < KB_DIGEST_SPAN ? len : KB_DIGEST_SPAN,
			  mode, &ud);
	ASSERT_EQ(uskip, skip) TH_LOG("%s, %zu bytes, mode %u", what, len, mode);
	seen[skip]++;
	if (skip)
		return;
	ASSERT_EQ(ud.len, kd.len) TH_LOG("%s mode %u", what, mode);
	ASSERT_EQ(0, memcmp(ud.key, kd.key, ud.len)) TH_LOG("%s mode %u", what, mode);
}

TEST_F(win, kernel_and_tool_agree_on_every_header_layout)
{
	static uint8_t pkt[512], cut[512];
	int seen[KBLOOM_SKIP_MAX + 1] = { 0 };
	int ext[3], n, a, b, c, u, ihl, f, mode, total = 0, k;
	char what[96];
	size_t len, i;

	for (n = 0; n <= 3; n++)
	for (a = 0; a < (n > 0 ? 6 : 1); a++)
	for (b = 0; b < (n > 1 ? 6 : 1); b++)
	for (c = 0; c < (n > 2 ? 6 : 1); c++)
	for (u = 0; u < (int)sizeof(upper); u++) {
		ext[0] = a;
		ext[1] = b;
		ext[2] = c;
		len = v6_packet(pkt, ext, n, upper[u], 24);
		snprintf(what, sizeof(what), "IPv6 %d ext (%d %d %d) proto %u",
			 n, a, b, c, upper[u]);
		/* only FLOW and MULTI walk the chain: the others once each */
		for (mode = 1; mode <= KBLOOM_DIGEST_MAX; mode++)
			if (n < 2 || mode == KBLOOM_DIGEST_FLOW ||
			    mode == KBLOOM_DIGEST_MULTI)
				agree(_metadata, &self->s, &self->m, pkt, len,
				      mode, seen, what);
		if (n != 3 || u || (a + b + c) % 5)
			continue;
		/* cut at every byte; the payload length cut short */
		for (i = 1; i < len; i++)
			agree(_metadata, &self->s, &self->m, pkt, i,
			      1 + i % KBLOOM_DIGEST_MAX, seen, what);
		memcpy(cut, pkt, len);
		for (i = 0; i < len - 40; i += 3) {
			cut[4] = i >> 8;
			cut[5] = i & 0xff;
			agree(_metadata, &self->s, &self->m, cut, len,
			      1 + i % KBLOOM_DIGEST_MAX, seen, what);
		}
	}
	/* a jumbogram: payload length 0 before a hop-by-hop header */
	ext[0] = 0;
	len = v6_packet(pkt, ext, 1, 6, 24);
	pkt[4] = pkt[5] = 0;
	for (mode = 1; mode <= KBLOOM_DIGEST_MAX; mode++)
		agree(_metadata, &self->s, &self->m, pkt, len, mode, seen, "jumbogram");

	for (ihl = 0; ihl < 16; ihl++)
	for (f = 0; f < 4; f++)
	for (u = 0; u < (int)sizeof(upper); u++) {
		static const uint16_t frags[] = { 0, 0x4000, 0x2000, 0x0017 };

		len = v4_packet(pkt, ihl, frags[f], upper[u] == 58 ? 1 : upper[u], 8);
		snprintf(what, sizeof(what), "IPv4 ihl %d frag %#x proto %u",
			 ihl, frags[f], pkt[9]);
		for (mode = 1; mode <= KBLOOM_DIGEST_MAX; mode++)
			agree(_metadata, &self->s, &self->m, pkt, len, mode, seen, what);
		if (ihl != 6 || f)
			continue;
		for (i = 1; i < len; i++)
			agree(_metadata, &self->s, &self->m, pkt, i,
			      1 + i % KBLOOM_DIGEST_MAX, seen, what);
		memcpy(cut, pkt, len);
		for (i = 0; i < len; i += 2) {
			cut[2] = 0;
			cut[3] = i;
			agree(_metadata, &self->s, &self->m, cut, len,
			      1 + i % KBLOOM_DIGEST_MAX, seen, what);
		}
	}
	for (i = 0; i < 16; i++) {
		len = v4_packet(pkt, 5, 0, 6, 8);
		pkt[0] = i << 4 | 5;
		agree(_metadata, &self->s, &self->m, pkt, len, KBLOOM_DIGEST_SPIE,
		      seen, "version nibble");
	}
	for (k = 0; k <= KBLOOM_SKIP_MAX; k++)
		total += seen[k];
	TH_LOG("%d layouts: %d digested, %d short, %d malformed, %d later fragments",
	       total, seen[KBLOOM_SKIP_NONE], seen[KBLOOM_SKIP_SHORT],
	       seen[KBLOOM_SKIP_MALFORMED], seen[KBLOOM_SKIP_FRAGMENT]);
	/* the layouts reach every answer the parser gives */
	EXPECT_LT(1000, seen[KBLOOM_SKIP_NONE]);
	EXPECT_LT(100, seen[KBLOOM_SKIP_SHORT]);
	EXPECT_LT(100, seen[KBLOOM_SKIP_MALFORMED]);
	EXPECT_LT(100, seen[KBLOOM_SKIP_FRAGMENT]);
}

TEST_F(win, digest_refusals_named)
{
	struct nlr *s = &self->s;
	uint8_t pkt[64] = { 0x45 };

	nlr_init(s, &self->m, s->family, KBLOOM_CMD_DIGEST, 0);
	nlr_put_u32(&self->m, KBLOOM_A_DIGEST, KBLOOM_DIGEST_SPIE);
	EXPECT_EQ(-EINVAL, nlr_send(s, &self->m));
	EXPECT_EQ(KBLOOM_A_PACKET, s->miss_type);

	nlr_init(s, &self->m, s->family, KBLOOM_CMD_DIGEST, 0);
	nlr_put(&self->m, KBLOOM_A_PACKET, pkt, sizeof(pkt));
	nlr_put_u32(&self->m, KBLOOM_A_DIGEST, KBLOOM_DIGEST_SPIE);
	nlr_put_u32(&self->m, KBLOOM_A_LINEAR, 65);
	EXPECT_EQ(-EINVAL, nlr_send(s, &self->m));
	EXPECT_STREQ("LINEAR must be 1..the length of PACKET", s->extack);
}

TEST_HARNESS_MAIN
