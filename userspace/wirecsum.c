// SPDX-License-Identifier: GPL-2.0 OR MIT
/* A capture's UDP checksum completed as the wire carries it (wirecsum.h). */
#include <stddef.h>

#include "inetcsum.h"
#include "wirecsum.h"

#define IPPROTO_UDP_ 17

static uint32_t be16_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

bool kb_wire_udp_csum(const uint8_t *pkt, uint32_t caplen, uint32_t *at,
		      uint8_t be16[2])
{
	uint32_t hl, ulen, pseudo, sum, stored;
	uint16_t seed, real;
	const uint8_t *udp;

	if (caplen < 1)
		return false;
	if (pkt[0] >> 4 == 4) {
		hl = (pkt[0] & 15) * 4u;
		if (hl < 20 || caplen < hl + 8 || pkt[9] != IPPROTO_UDP_ ||
		    be16_at(pkt + 6) & 0x3fff)	/* MF or an offset */
			return false;
		if (be16_at(pkt + 2) < hl + 8 || be16_at(pkt + 2) > caplen)
			return false;
		ulen = be16_at(pkt + 2) - hl;
		/* Zero: no checksum (IPv4 only). */
		if (!be16_at(pkt + hl + 6))
			return false;
		pseudo = kb_csum_add(pkt + 12, 8, IPPROTO_UDP_ + ulen);
	} else if (pkt[0] >> 4 == 6) {
		hl = 40;
		if (caplen < hl + 8 || pkt[6] != IPPROTO_UDP_)
			return false;
		ulen = be16_at(pkt + 4);
		if (ulen < 8 || hl + ulen > caplen)
			return false;
		pseudo = kb_csum_add(pkt + 8, 32, IPPROTO_UDP_ + ulen);
	} else {
		return false;
	}
	udp = pkt + hl;
	if (be16_at(udp + 4) != ulen)
		return false;
	stored = be16_at(udp + 6);
	seed = kb_csum_fold(pseudo);
	/* Everything but the checksum field, then the pseudo-header. */
	sum = kb_csum_add(udp, 6, kb_csum_add(udp + 8, ulen - 8, pseudo));
	real = (uint16_t)~kb_csum_fold(sum);
	if (!real)
		real = 0xffff;
	if (stored != seed || stored == real)
		return false;
	*at = hl + 6;
	be16[0] = real >> 8;
	be16[1] = real & 0xff;
	return true;
}
