/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The Internet checksum (RFC 1071): one's complement sums of 16-bit
 * big-endian words, shared by the transforms' inverses (pktxform.c,
 * updating sums as RFC 1624 does) and the capture's UDP checksum
 * completion (wirecsum.c).
 */
#ifndef BLOOMCTL_INETCSUM_H
#define BLOOMCTL_INETCSUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * @sum plus the words of @n bytes (an odd last byte padded with zero),
 * unfolded: exact for any packet (65535 bytes sum to less than 2^31).
 */
uint32_t kb_csum_add(const uint8_t *p, size_t n, uint32_t sum);
/* @sum folded to 16 bits, the carries added back. */
uint16_t kb_csum_fold(uint32_t sum);

#endif
