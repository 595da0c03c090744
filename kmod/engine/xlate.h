/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Transform records (KBLOOM_TYPE_TRANSFORMS, uapi/kbloom.h): what a NAT
 * router rewrote, kept per window so a traceback can invert it. The
 * module's postrouting hook puts records; bloomctl finds them in the
 * cells EXPORT gives, by the same probe rule.
 */
#ifndef KBLOOM_ENGINE_XLATE_H
#define KBLOOM_ENGINE_XLATE_H

#include "filter.h"

enum kb_xlate_put {
	KB_XLATE_NEW,		/* recorded now */
	KB_XLATE_KNOWN,		/* this window holds it already */
	KB_XLATE_FULL,		/* its lines are all taken: not recorded */
};

/*
 * Records @rec (state ignored) in @f unless a record with the same fields
 * but FIRST is there. Lock-free and allocation-free: any context.
 */
enum kb_xlate_put kb_xlate_put(struct kb_filter *f,
			       const struct kbloom_xlate *rec);

/* What a record is, by its KIND (uapi/kbloom.h). */
enum kb_xlate_class {
	KB_XREC_NONE,		/* no kind this module makes */
	KB_XREC_NAT,
	KB_XREC_TUNNEL,
	KB_XREC_ADDRESS,
	KB_XREC_ARRIVAL,
	KB_XREC_MORE,		/* the rest of a tunnel record's outer packet */
};

enum kb_xlate_class kb_xlate_class(u8 kind);

/* The address record of the IPv6 address at @addr (16 bytes). */
void kb_xlate_addr6(const u8 *addr, struct kbloom_xlate *rec);

/*
 * Whether a tunnel record of @kind comes with a more record (VXLAN's and
 * GENEVE's over IPv6 with a UDP checksum, GENEVE's with options or
 * flags: KIND GENEVE_OPT), and whether @more is the more
 * record of @rec (its KIND, BEFORE_SRC, BEFORE_DST and FIRST; found by
 * @rec's key).
 */
bool kb_xlate_has_more(u8 kind);
bool kb_xlate_is_more_of(const struct kbloom_xlate *more,
			 const struct kbloom_xlate *rec);

/*
 * Whether the more record of a tunnel record of @kind holds its UDP
 * checksum in BEFORE_SPORT (VXLAN's and GENEVE's over IPv6 with one).
 */
bool kb_xlate_more_csum(u8 kind);

/*
 * GENEVE's first two bytes (RFC 8926 3.4), on the wire and in a more
 * record's BEFORE_DPORT: version and options' length in 4-byte words;
 * the O and C flags. kb_geneve_opts_len(): the bytes of options the two
 * at @g say follow the 8-byte header, or -1 for a version other than 0.
 */
#define KB_GENEVE_VERSION	0xc0
#define KB_GENEVE_OPT_LEN	0x3f
#define KB_GENEVE_OAM		0x80
#define KB_GENEVE_CRITICAL	0x40
int kb_geneve_opts_len(const u8 *g);

/*
 * The more record of tunnel record @rec (its key, BEFORE_SRC, BEFORE_DST
 * and FIRST) holding @sport and @dport in BEFORE_SPORT and BEFORE_DPORT.
 */
void kb_xlate_more(const struct kbloom_xlate *rec, __be16 sport,
		   __be16 dport, struct kbloom_xlate *more);

/* The address (16 bytes at @addr) address record @rec holds. */
void kb_xlate_addr6_get(const struct kbloom_xlate *rec, u8 *addr);

/* The hashed key of a record: FAMILY, PROTO and the AFTER_* fields. */
void kb_xlate_key(const struct kbloom_xlate *rec,
		  u8 key[KBLOOM_XLATE_KEY_LEN]);

/*
 * An IPv6 address as records key it: the XOR of its four 32-bit words as
 * they lie in memory (network order in, network order out).
 */
__be32 kb_xlate_fold6(const u8 *addr);

/*
 * The key (FAMILY, PROTO, AFTER_*) of IPv6 packet @pkt (@len bytes from
 * its header) as a 6in4 tunnel record has it (uapi/kbloom.h): 0, or -1
 * when it is no IPv6 packet.
 */
int kb_xlate_key6(const u8 *pkt, u32 len, struct kbloom_xlate *rec);

/*
 * The valid records of @cells (@m of them, hash key @hkey) whose key is
 * that of @want, in probe order: up to @max copied to @out; returns how
 * many there are.
 */
#ifndef __KERNEL__
u32 kb_xlate_find(const struct kbloom_xlate *cells, u64 m,
		  const siphash_key_t *hkey, const struct kbloom_xlate *want,
		  struct kbloom_xlate *out, u32 max);
#endif

#endif /* KBLOOM_ENGINE_XLATE_H */
