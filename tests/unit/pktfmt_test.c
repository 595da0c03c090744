// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of how bloomctl reads and shows packets (userspace/pktfmt.c,
 * userspace/digestfmt.c): the enum names of uapi/kbloom.h, packets given
 * in hex, one-line packet descriptions and digests as KEYs and TUPLEs.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../userspace/digestfmt.h"
#include "../../userspace/pktfmt.h"

static uint8_t pkt[256];
static size_t len;
static char why[160], buf[256];

static int hex(const char *s)
{
	len = 0;
	why[0] = '\0';
	return kb_hex_packet_parse(s, pkt, sizeof(pkt), &len, why, sizeof(why));
}

static const char *describe(const char *s)
{
	if (hex(s))
		return why;
	kb_pkt_describe(pkt, len, buf, sizeof(buf));
	return buf;
}

TEST(names)
{
	EXPECT_EQ(KBLOOM_HOOK_FORWARD, kb_hook_parse("forward"));
	EXPECT_EQ(KBLOOM_HOOK_POSTROUTING, kb_hook_parse("postrouting"));
	EXPECT_EQ(-1, kb_hook_parse("FORWARD"));
	EXPECT_EQ(-1, kb_hook_parse(""));
	EXPECT_EQ(KBLOOM_FAMILY_ANY, kb_family_parse("any"));
	EXPECT_EQ(KBLOOM_FAMILY_IPV6, kb_family_parse("ipv6"));
	EXPECT_EQ(KBLOOM_DIGEST_SPIE, kb_digest_parse("spie"));
	EXPECT_EQ(KBLOOM_DIGEST_MULTI, kb_digest_parse("multi"));
	EXPECT_EQ(-1, kb_digest_parse("unspec"));
	EXPECT_STREQ("input", kb_hook_str(KBLOOM_HOOK_INPUT));
	EXPECT_STREQ("hook-99", kb_hook_str(99));
	EXPECT_STREQ("fragment", kb_skip_str(KBLOOM_SKIP_FRAGMENT));
	EXPECT_STREQ("gso", kb_skip_str(KBLOOM_SKIP_GSO));
	EXPECT_STREQ("skip-77", kb_skip_str(77));
	EXPECT_STREQ("digest-0", kb_digest_str(KBLOOM_DIGEST_UNSPEC));
}

TEST(hex_forms)
{
	ASSERT_EQ(0, hex("4500"));
	EXPECT_EQ(2, len);
	EXPECT_EQ(0x45, pkt[0]);
	ASSERT_EQ(0, hex("0x45 00:1c\tAB\n"));
	EXPECT_EQ(4, len);
	EXPECT_EQ(0xab, pkt[3]);
	ASSERT_EQ(0, hex("  45:00  "));
	EXPECT_EQ(2, len);
}

TEST(hex_errors)
{
	EXPECT_EQ(-1, hex(""));
	EXPECT_STREQ("no bytes", why);
	EXPECT_EQ(-1, hex("0x"));
	EXPECT_EQ(-1, hex("450"));
	EXPECT_NE(NULL, strstr(why, "lone hex digit at offset 2"));
	EXPECT_EQ(-1, hex("4 5"));
	EXPECT_NE(NULL, strstr(why, "offset 0"));
	EXPECT_EQ(-1, hex("45zz"));
	EXPECT_NE(NULL, strstr(why, "'z' at offset 2"));
	EXPECT_EQ(-1, hex("4g"));
	EXPECT_NE(NULL, strstr(why, "'g' at offset 1"));
}

TEST(hex_too_long)
{
	char big[2 * sizeof(pkt) + 3];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(-1, hex(big));
	EXPECT_NE(NULL, strstr(why, "longer than 256 bytes"));
}

/* IPv4 headers: 10.0.1.2 > 10.0.2.2 */
#define V4(proto, frag)	"45000054123440" frag "40" proto "0000 0a000102 0a000202"
#define V6(nh)		"60000000 0010" nh "40 fd000001000000000000000000000002" \
			"fd000002000000000000000000000002"

TEST(describe_ipv4)
{
	EXPECT_STREQ("ICMP 10.0.1.2 > 10.0.2.2 echo request",
		     describe(V4("01", "00") "0800f7ff00010001"));
	EXPECT_STREQ("ICMP 10.0.1.2 > 10.0.2.2 type 42",
		     describe(V4("01", "00") "2a00"));
	EXPECT_STREQ("TCP 10.0.1.2:5201 > 10.0.2.2:40000",
		     describe(V4("06", "00") "14519c40"));
	EXPECT_STREQ("UDP 10.0.1.2:12345 > 10.0.2.2:53",
		     describe(V4("11", "00") "30390035"));
	EXPECT_STREQ("proto 99 10.0.1.2 > 10.0.2.2",
		     describe(V4("63", "00") "30390035"));
	/* A later fragment has no ports; a first one says it continues */
	EXPECT_STREQ("UDP 10.0.1.2 > 10.0.2.2 fragment offset 1480",
		     describe(V4("11", "b9") "30390035"));
	EXPECT_STREQ("UDP 10.0.1.2:12345 > 10.0.2.2:53 fragment offset 0+",
		     describe("4500005412342000401100000a0001020a000202" "30390035"));
	/* Ports not captured */
	EXPECT_STREQ("TCP 10.0.1.2 > 10.0.2.2", describe(V4("06", "00") "14"));
	EXPECT_STREQ("IPv4, truncated", describe("4500005412"));
	EXPECT_STREQ("IPv4, bad header length",
		     describe("4100005412344000400600000a0001020a000202"));
	EXPECT_STREQ("not IP (version 7)", describe("7000"));
}

TEST(describe_ipv6)
{
	EXPECT_STREQ("UDP [fd00:1::2]:12345 > [fd00:2::2]:53",
		     describe(V6("11") "3039003500100000"));
	EXPECT_STREQ("ICMPv6 fd00:1::2 > fd00:2::2 echo request",
		     describe(V6("3a") "8000000000010001"));
	/* Hop-by-hop, then TCP */
	EXPECT_STREQ("TCP [fd00:1::2]:5201 > [fd00:2::2]:80",
		     describe(V6("00") "0600000000000000" "14510050"));
	/* Fragment header: a later fragment */
	EXPECT_STREQ("UDP fd00:1::2 > fd00:2::2 fragment offset 1448",
		     describe(V6("2c") "110005a812345678" "3039003500100000"));
	EXPECT_STREQ("IPv6, truncated", describe("6000000000"));
}

TEST(digest_fmt)
{
	struct kb_digest d;
	struct kp_tuple t;

	/* UDP 10.0.1.2:12345 > 10.0.2.2:53 */
	ASSERT_EQ(0, hex("4500001c123440004011 0000 0a000102 0a000202"
			 "3039003500080000"));
	ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(pkt, len, KBLOOM_DIGEST_FLOW, &d));
	kb_digest_fmt(&d, KBLOOM_DIGEST_FLOW, buf, sizeof(buf));
	EXPECT_STREQ("0x110a0001020a00020230390035", buf);
	ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(pkt, len, KBLOOM_DIGEST_MULTI,
					      &d));
	kb_digest_fmt(&d, KBLOOM_DIGEST_MULTI, buf, sizeof(buf));
	EXPECT_STREQ("src=0x0a000102,dst=0x0a000202,dport=0x0035", buf);
	kb_digest_tuple(&d, &t);
	EXPECT_EQ(7, t.mask);
	EXPECT_EQ(4, t.len[0]);
	EXPECT_EQ(2, t.len[2]);
	EXPECT_EQ(0, memcmp(t.val[1], "\x0a\x00\x02\x02", 4));
	EXPECT_EQ(0, memcmp(t.val[2], "\x00\x35", 2));
	/* The longest: IPv6 SPIE, 48 bytes */
	ASSERT_EQ(0, hex(V6("11") "3039003500100000"));
	ASSERT_EQ(KBLOOM_SKIP_NONE, kb_digest(pkt, len, KBLOOM_DIGEST_SPIE, &d));
	kb_digest_fmt(&d, KBLOOM_DIGEST_SPIE, buf, sizeof(buf));
	EXPECT_EQ(2 + 2 * 48, strlen(buf));
	EXPECT_EQ(0, strncmp(buf, "0x6000000000101100fd00", 22));
}

/*
 * The names of values a tool does not know ("digest-77") are built in
 * buffers of their own per thread: the trace's backends print them from
 * their threads. Thread A takes one, thread B then takes more than the
 * buffers a thread has; A's must still read as it did.
 */
static pthread_barrier_t turn;

static void *other_thread(void *arg)
{
	char *seen = arg;
	int i;

	pthread_barrier_wait(&turn);	/* A has its string */
	for (i = 0; i < 16; i++)
		snprintf(seen, 24, "%s", kb_digest_str(2000 + i));
	pthread_barrier_wait(&turn);	/* A may look again */
	return NULL;
}

TEST(unknown_names_are_per_thread)
{
	char seen[24];
	const char *mine;
	pthread_t t;

	ASSERT_EQ(0, pthread_barrier_init(&turn, NULL, 2));
	ASSERT_EQ(0, pthread_create(&t, NULL, other_thread, seen));
	mine = kb_digest_str(77);
	ASSERT_STREQ("digest-77", mine);
	pthread_barrier_wait(&turn);
	pthread_barrier_wait(&turn);
	EXPECT_STREQ("digest-2015", seen);
	EXPECT_STREQ("digest-77", mine);
	ASSERT_EQ(0, pthread_join(t, NULL));
	pthread_barrier_destroy(&turn);
}

TEST_HARNESS_MAIN
