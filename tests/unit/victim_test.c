// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of trace's victim prefixes (userspace/victim.c): parsing of
 * ADDR[/LEN] lists (IPv4, IPv6, host bits cleared, canonical form), their
 * errors, and matching a packet's source address (inside, just outside,
 * the other family, packets too short to hold a source).
 */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../userspace/victim.h"

static char why[160];

/* A 20-byte IPv4 header from @a.b.c.d, and a 40-byte IPv6 one from @src. */
static void ip4(uint8_t *p, int a, int b, int c, int d)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	p[12] = a;
	p[13] = b;
	p[14] = c;
	p[15] = d;
}

static void ip6(uint8_t *p, const uint8_t src[16])
{
	memset(p, 0, 40);
	p[0] = 0x60;
	memcpy(p + 8, src, 16);
}

TEST(parse_canonical)
{
	struct kb_victim v;

	ASSERT_EQ(0, kb_victim_parse("10.2.0.2,10.2.7.9/16,2001:db8::1/64,::1",
				     &v, why, sizeof(why)));
	ASSERT_EQ(4, v.n);
	EXPECT_STREQ("10.2.0.2/32", v.p[0].str);
	EXPECT_STREQ("10.2.0.0/16", v.p[1].str);
	EXPECT_STREQ("2001:db8::/64", v.p[2].str);
	EXPECT_STREQ("::1/128", v.p[3].str);
	EXPECT_EQ(4, v.p[1].version);
	EXPECT_EQ(6, v.p[2].version);
	ASSERT_EQ(0, kb_victim_parse("10.1.2.3/0", &v, why, sizeof(why)));
	EXPECT_STREQ("0.0.0.0/0", v.p[0].str);
	ASSERT_EQ(0, kb_victim_parse("10.1.2.255/27", &v, why, sizeof(why)));
	EXPECT_STREQ("10.1.2.224/27", v.p[0].str);
}

TEST(parse_errors)
{
	struct kb_victim v;
	char many[400] = "";
	int i;

	ASSERT_EQ(-1, kb_victim_parse("", &v, why, sizeof(why)));
	EXPECT_STREQ("'' is not an address or ADDR/LEN", why);
	ASSERT_EQ(-1, kb_victim_parse("10.2.0.2,", &v, why, sizeof(why)));
	EXPECT_STREQ("'' is not an address or ADDR/LEN", why);
	ASSERT_EQ(-1, kb_victim_parse("victim", &v, why, sizeof(why)));
	EXPECT_STREQ("'victim' is not an IPv4 or IPv6 address", why);
	ASSERT_EQ(-1, kb_victim_parse("10.2.0/24", &v, why, sizeof(why)));
	EXPECT_STREQ("'10.2.0' is not an IPv4 or IPv6 address", why);
	ASSERT_EQ(-1, kb_victim_parse("10.2.0.0/33", &v, why, sizeof(why)));
	EXPECT_STREQ("'10.2.0.0/33': the prefix length is not 0..32", why);
	ASSERT_EQ(-1, kb_victim_parse("::/129", &v, why, sizeof(why)));
	EXPECT_STREQ("'::/129': the prefix length is not 0..128", why);
	ASSERT_EQ(-1, kb_victim_parse("10.0.0.0/", &v, why, sizeof(why)));
	EXPECT_STREQ("'10.0.0.0/': the prefix length is not a number", why);
	ASSERT_EQ(-1, kb_victim_parse("10.0.0.0/-8", &v, why, sizeof(why)));
	EXPECT_STREQ("'10.0.0.0/-8': the prefix length is not a number", why);
	ASSERT_EQ(-1, kb_victim_parse("10.0.0.0/8x", &v, why, sizeof(why)));
	EXPECT_STREQ("'10.0.0.0/8x': the prefix length is not a number", why);
	for (i = 0; i < KB_VICTIM_MAX; i++)
		strcat(many, "10.0.0.1,");
	strcat(many, "10.0.0.1");
	ASSERT_EQ(-1, kb_victim_parse(many, &v, why, sizeof(why)));
	EXPECT_STREQ("more than 16 prefixes", why);
	many[strlen(many) - 9] = 0;	/* 16 of them */
	ASSERT_EQ(0, kb_victim_parse(many, &v, why, sizeof(why)));
	EXPECT_EQ(KB_VICTIM_MAX, v.n);
}

TEST(match_source)
{
	static const uint8_t in6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 7, 1 };
	static const uint8_t out6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 8, 1 };
	struct kb_victim v;
	uint8_t p[40];

	ASSERT_EQ(0, kb_victim_parse("10.2.0.2,10.9.0.0/23,2001:db8:0:7::/64",
				     &v, why, sizeof(why)));
	ip4(p, 10, 2, 0, 2);
	ASSERT_EQ(&v.p[0], kb_victim_match(&v, p, 20));
	ip4(p, 10, 2, 0, 3);
	EXPECT_EQ(NULL, kb_victim_match(&v, p, 20));
	ip4(p, 10, 9, 1, 255);		/* last of the /23 */
	EXPECT_EQ(&v.p[1], kb_victim_match(&v, p, 20));
	ip4(p, 10, 9, 2, 0);		/* just past it */
	EXPECT_EQ(NULL, kb_victim_match(&v, p, 20));
	ip4(p, 10, 2, 0, 2);
	EXPECT_EQ(NULL, kb_victim_match(&v, p, 15));	/* no full source */
	EXPECT_EQ(&v.p[0], kb_victim_match(&v, p, 16));
	ip6(p, in6);
	EXPECT_EQ(&v.p[2], kb_victim_match(&v, p, 40));
	EXPECT_EQ(NULL, kb_victim_match(&v, p, 23));
	ip6(p, out6);
	EXPECT_EQ(NULL, kb_victim_match(&v, p, 40));
	/* An IPv4 prefix never holds an IPv6 source with the same bytes. */
	ASSERT_EQ(0, kb_victim_parse("32.1.13.184/32", &v, why, sizeof(why)));
	ip6(p, in6);
	EXPECT_EQ(NULL, kb_victim_match(&v, p, 40));
	p[0] = 0x45;
	EXPECT_EQ(NULL, kb_victim_match(&v, p, 40));	/* its source: 0.0.0.7 */
}

TEST_HARNESS_MAIN
