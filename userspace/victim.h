/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The victim's side of a capture, for trace: IPv4/IPv6 prefixes
 * ("10.2.0.2,10.2.0.0/24,2001:db8::/64") against which a packet's source
 * address is matched, so that packets the victim sent are left out.
 */
#ifndef BLOOMCTL_VICTIM_H
#define BLOOMCTL_VICTIM_H

#include <stddef.h>
#include <stdint.h>

#define KB_VICTIM_MAX		16
#define KB_PREFIX_STR_MAX	48	/* "ffff:...:ffff/128" */

struct kb_prefix {
	int version;		/* 4 or 6 */
	uint8_t addr[16];	/* host bits cleared */
	unsigned int len;	/* prefix length */
	char str[KB_PREFIX_STR_MAX];	/* ADDR/LEN, as inet_ntop writes ADDR */
};

struct kb_victim {
	struct kb_prefix p[KB_VICTIM_MAX];
	size_t n;
};

/*
 * Parses @s: one to KB_VICTIM_MAX prefixes ADDR[/LEN] separated by commas
 * (no LEN: the address alone). Returns 0, or -1 with the reason in @why.
 */
int kb_victim_parse(const char *s, struct kb_victim *v, char *why,
		    size_t whylen);

/*
 * The first prefix of @v holding the source address of the IP packet
 * @pkt (@len bytes from its IP header), or NULL (none does, or the packet
 * is too short to hold its source address).
 */
const struct kb_prefix *kb_victim_match(const struct kb_victim *v,
					const uint8_t *pkt, uint32_t len);

#endif
