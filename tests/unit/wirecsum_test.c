// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A capture's UDP checksum completed as the wire carries it
 * (userspace/wirecsum.c). The packets and their checksums here were
 * summed by an independent implementation (Python, RFC 768 and RFC 8200's
 * pseudo-headers): each datagram's seed (what the kernel leaves for the
 * offload: the pseudo-header's sum, ~csum_tcpudp_magic(..., 0)) and its
 * checksum. Only a seed that is not the checksum is replaced; anything
 * else, a wrong checksum too, is left as captured. Packets are handed
 * over in buffers of exactly their length, so that ASan catches a read
 * past it.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../userspace/wirecsum.h"

/* 10.1.0.1:1234 > 10.2.0.2:9999 "hello kbloom": seed 0x142b, sum 0x34ae. */
static const uint8_t v4[] = {
	0x45, 0x00, 0x00, 0x28, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11, 0x14, 0x8c,
	0x0a, 0x01, 0x00, 0x01, 0x0a, 0x02, 0x00, 0x02,
	0x04, 0xd2, 0x27, 0x0f, 0x00, 0x14, 0x14, 0x2b,
	'h', 'e', 'l', 'l', 'o', ' ', 'k', 'b', 'l', 'o', 'o', 'm',
};

/* [fd01::1]:5353 > [fd02::2]:5353 "odd": seed 0xfa23, sum 0x089a. */
static const uint8_t v6[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x11, 0x40,
	0xfd, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0xfd, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0x14, 0xe9, 0x14, 0xe9, 0x00, 0x0b, 0xfa, 0x23, 'o', 'd', 'd',
};

/* kb_wire_udp_csum() of @pkt (@n bytes) with its checksum @c, exactly. */
static bool ask(const uint8_t *pkt, size_t n, uint32_t csum_at, uint16_t c,
		uint32_t *at, uint16_t *val)
{
	uint8_t *b = malloc(n), be[2] = { 0, 0 };
	bool r;

	memcpy(b, pkt, n);
	b[csum_at] = c >> 8;
	b[csum_at + 1] = c & 0xff;
	r = kb_wire_udp_csum(b, n, at, be);
	*val = be[0] << 8 | be[1];
	free(b);
	return r;
}

TEST(ipv4_seed_completed)
{
	uint32_t at = 0;
	uint16_t val = 0;

	ASSERT_TRUE(ask(v4, sizeof(v4), 26, 0x142b, &at, &val));
	EXPECT_EQ(26, at);
	EXPECT_EQ(0x34ae, val);
}

TEST(ipv6_seed_completed)
{
	uint32_t at = 0;
	uint16_t val = 0;

	ASSERT_TRUE(ask(v6, sizeof(v6), 46, 0xfa23, &at, &val));
	EXPECT_EQ(46, at);
	EXPECT_EQ(0x089a, val);
}

TEST(checksums_and_strangers_left_alone)
{
	uint32_t at;
	uint16_t val;

	/* Already the checksum; none (IPv4's 0); wrong, but not the seed. */
	EXPECT_FALSE(ask(v4, sizeof(v4), 26, 0x34ae, &at, &val));
	EXPECT_FALSE(ask(v4, sizeof(v4), 26, 0x0000, &at, &val));
	EXPECT_FALSE(ask(v4, sizeof(v4), 26, 0x142c, &at, &val));
	EXPECT_FALSE(ask(v6, sizeof(v6), 46, 0x089a, &at, &val));
	EXPECT_FALSE(ask(v6, sizeof(v6), 46, 0x1234, &at, &val));
	/* Captured short of the datagram's end: the sum cannot be made. */
	EXPECT_FALSE(ask(v4, sizeof(v4) - 1, 26, 0x142b, &at, &val));
	EXPECT_FALSE(ask(v6, sizeof(v6) - 1, 46, 0xfa23, &at, &val));
}

TEST(fragments_and_other_protocols_left_alone)
{
	uint8_t b[sizeof(v4)];
	uint32_t at;
	uint8_t be[2];

	memcpy(b, v4, sizeof(b));		/* a first fragment: MF */
	b[6] = 0x20;
	EXPECT_FALSE(kb_wire_udp_csum(b, sizeof(b), &at, be));
	memcpy(b, v4, sizeof(b));		/* TCP's number */
	b[9] = 6;
	EXPECT_FALSE(kb_wire_udp_csum(b, sizeof(b), &at, be));
	memcpy(b, v4, sizeof(b));		/* UDP length not IP's */
	b[25] = 0x13;
	EXPECT_FALSE(kb_wire_udp_csum(b, sizeof(b), &at, be));
	EXPECT_FALSE(kb_wire_udp_csum(v4, 0, &at, be));
}

TEST_HARNESS_MAIN
