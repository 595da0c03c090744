/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Packets built byte by byte, big-endian fields written by shifts, for
 * the digest tests (digest_test.c, tunnel_digest_test.c).
 */
#ifndef KB_PKTBUILD_H
#define KB_PKTBUILD_H

#include <string.h>

struct pb {
	u8 b[1 << 17];
	u32 len;
	u32 l4;		/* where the upper-layer header starts */
};

static inline void put8(struct pb *p, u32 v)
{
	p->b[p->len++] = (u8)v;
}

static inline void put16(struct pb *p, u32 v)
{
	put8(p, v >> 8);
	put8(p, v);
}

static inline void put32(struct pb *p, u32 v)
{
	put16(p, v >> 16);
	put16(p, v);
}

static inline void putn(struct pb *p, const void *d, u32 n)
{
	memcpy(p->b + p->len, d, n);
	p->len += n;
}

static inline void set16(struct pb *p, u32 off, u32 v)
{
	p->b[off] = (u8)(v >> 8);
	p->b[off + 1] = (u8)v;
}

#endif
