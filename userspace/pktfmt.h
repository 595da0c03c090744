/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Packets on bloomctl's command line and in its output: the names of the
 * hook points, families, digest modes, skip reasons and bypasses of
 * uapi/kbloom.h, packets given in hex, one-line packet descriptions and
 * digests as keys.
 *
 * Pure functions, no output: unit-tested on the host.
 */
#ifndef BLOOMCTL_PKTFMT_H
#define BLOOMCTL_PKTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kmod/uapi/kbloom.h"

/* Name of an enum value ("forward"), or NULL when unknown. */
const char *kb_hook_name(uint32_t hook);
const char *kb_family_name(uint32_t family);
const char *kb_digest_name(uint32_t mode);
const char *kb_skip_name(uint32_t skip);
/* "flowtable", "xdp", "hw-offload": bit @bit of KBLOOM_BYPASS_*. */
const char *kb_bypass_name(uint32_t bit);
/* The same, "hook-N" etc. for values newer than this tool (static). */
const char *kb_hook_str(uint32_t hook);
const char *kb_family_str(uint32_t family);
const char *kb_digest_str(uint32_t mode);
const char *kb_skip_str(uint32_t skip);
const char *kb_bypass_str(uint32_t bit);

/* Enum value of a name, or -1. */
int kb_hook_parse(const char *s);
int kb_family_parse(const char *s);
int kb_digest_parse(const char *s);

/* "prerouting, input, forward, output, postrouting" etc. */
extern const char kb_hook_list[], kb_family_list[], kb_digest_list[];

/*
 * A packet in hex: an optional 0x, then pairs of hex digits; blanks and
 * ':' may separate bytes (not the two digits of one byte). At most @cap
 * bytes. 0 with *@len set, or -1 with the reason in @why.
 */
int kb_hex_packet_parse(const char *s, uint8_t *out, size_t cap, size_t *len,
			char *why, size_t whylen);

/*
 * One line about the packet at @pkt (@caplen bytes from the IP header):
 * "TCP 10.0.0.1:5201 > 10.0.0.2:40000", "ICMP 10.0.0.1 > 10.0.0.2 echo
 * request", "UDP [fd00::1]:53 > [fd00::2]:4000", "UDP 10.0.0.1 >
 * 10.0.0.2 fragment offset 1480"; "IPv4, truncated" and the like for what
 * cannot be parsed.
 */
void kb_pkt_describe(const uint8_t *pkt, size_t caplen, char *buf,
		     size_t len);

/* Lower-case hex of @len bytes with a 0x prefix: a KEY as bloomctl reads it. */
void kb_hex_str(const uint8_t *b, size_t len, char *buf, size_t buflen);

#endif
