// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Transform records: an open-addressed table of struct kbloom_xlate in
 * 64-byte lines of KBLOOM_XLATE_LINE records. A record's home line comes
 * from its key's hash; it may take a free cell of that line or of the
 * KBLOOM_XLATE_PROBES - 1 lines after it. A table only ever gains records
 * until it is cleared (a window's rotation empties it), so a reader never
 * has to skip a deleted cell and a full probe run means "full".
 *
 * Concurrency: a cell's first word (STATE, KIND, PROTO, FAMILY) is
 * claimed by exchanging it from 0 to WRITING; the writer fills the rest
 * and publishes the word with STATE VALID by a release store, so a
 * reader that sees VALID (acquire) sees the whole record. Two CPUs
 * recording the same flow at once may both record it: the lookup returns
 * both, equal but for FIRST.
 */
#include "types.h"
#include "xlate.h"

#define KB_XLATE_BYTES		sizeof(struct kbloom_xlate)
/* The fields compared for "the same record": all but the first word and
 * FIRST.
 */
#define KB_XLATE_BODY		offsetof(struct kbloom_xlate, before_src)
#define KB_XLATE_BODY_LEN	(offsetof(struct kbloom_xlate, first) - \
				 KB_XLATE_BODY)

static u32 *kb_xlate_word(const struct kbloom_xlate *r)
{
	return (u32 *)r;
}

/* The first word of a valid record like @r, as memory holds it. */
static u32 kb_xlate_head(const struct kbloom_xlate *r)
{
	struct kbloom_xlate h = {
		.state = KBLOOM_XLATE_VALID,
		.kind = r->kind,
		.proto = r->proto,
		.family = r->family,
	};

	return *kb_xlate_word(&h);
}

void kb_xlate_key(const struct kbloom_xlate *rec,
		  u8 key[KBLOOM_XLATE_KEY_LEN])
{
	key[0] = rec->family;
	key[1] = rec->proto;
	memcpy(key + 2, &rec->after_src, 4);
	memcpy(key + 6, &rec->after_dst, 4);
	memcpy(key + 10, &rec->after_sport, 2);
	memcpy(key + 12, &rec->after_dport, 2);
}

/* 32 bits of @p, as they lie in memory: XORed, any byte order agrees. */
static u32 kb_xlate_word32(const u8 *p)
{
	u32 w;

	memcpy(&w, p, sizeof(w));
	return w;
}

__be32 kb_xlate_fold6(const u8 *addr)
{
	return kb_xlate_word32(addr) ^ kb_xlate_word32(addr + 4) ^
	       kb_xlate_word32(addr + 8) ^ kb_xlate_word32(addr + 12);
}

int kb_xlate_key6(const u8 *pkt, u32 len, struct kbloom_xlate *rec)
{
	u8 w[8] = { 0 };
	u32 tag, plen;

	if (len < 40 || pkt[0] >> 4 != 6)
		return -1;
	rec->family = 6;
	rec->proto = pkt[6];
	rec->after_src = kb_xlate_fold6(pkt + 8);
	rec->after_dst = kb_xlate_fold6(pkt + 24);
	/* Flow label, payload length, next header: not TC, not hop limit. */
	memcpy(w, pkt, 8);
	w[0] = 0;
	w[1] &= 0x0f;
	w[7] = 0;
	tag = kb_xlate_word32(w) ^ kb_xlate_word32(w + 4);
	/* The 8 bytes after the header (fewer: zero), as SPIE's digest. */
	memset(w, 0, sizeof(w));
	plen = (u32)pkt[4] << 8 | pkt[5];
	plen = plen < 8 ? plen : 8;
	memcpy(w, pkt + 40, len - 40 < plen ? len - 40 : plen);
	tag ^= kb_xlate_word32(w) ^ kb_xlate_word32(w + 4);
	memcpy(&rec->after_sport, &tag, 2);
	memcpy(&rec->after_dport, (const u8 *)&tag + 2, 2);
	return 0;
}

enum kb_xlate_class kb_xlate_class(u8 kind)
{
	const u8 words = KBLOOM_XLATE_GRE_CSUM | KBLOOM_XLATE_GRE_KEY |
			 KBLOOM_XLATE_GRE_SEQ;
	u8 tun = kind & ~KBLOOM_XLATE_OUTER6;
	u8 udp = tun & ~(KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_VXLAN_DF);
	u8 geneve = KBLOOM_XLATE_GENEVE | KBLOOM_XLATE_GENEVE_OPT;

	if (kind & KBLOOM_XLATE_OPAQUE)
		return kind == KBLOOM_XLATE_OPAQUE ? KB_XREC_ARRIVAL :
		       kind == KBLOOM_XLATE_ADDR6 ? KB_XREC_ADDRESS :
		       kind == KBLOOM_XLATE_MORE ? KB_XREC_MORE :
		       KB_XREC_NONE;
	/*
	 * IPIP or GRE (with its words), VXLAN or GENEVE (with a checksum;
	 * over IPv4 DF too: GRE's words' bits; GENEVE with options), any
	 * of them over IPv6.
	 */
	if (tun == KBLOOM_XLATE_IPIP || (tun & ~words) == KBLOOM_XLATE_GRE ||
	    ((udp == KBLOOM_XLATE_VXLAN || udp == KBLOOM_XLATE_GENEVE ||
	      udp == geneve) &&
	     (!(kind & KBLOOM_XLATE_VXLAN_DF) ||
	      (kind & (KBLOOM_XLATE_VXLAN_CSUM | KBLOOM_XLATE_OUTER6)) ==
	      KBLOOM_XLATE_VXLAN_CSUM)))
		return KB_XREC_TUNNEL;
	/* NAT: SNAT and/or DNAT, conntrack's or (STATELESS) not. */
	kind &= ~KBLOOM_XLATE_STATELESS;
	return kind && !(kind & ~(KBLOOM_XLATE_SNAT | KBLOOM_XLATE_DNAT)) ?
	       KB_XREC_NAT : KB_XREC_NONE;
}

void kb_xlate_addr6(const u8 *addr, struct kbloom_xlate *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = KBLOOM_XLATE_ADDR6;
	rec->family = 6;
	rec->after_src = kb_xlate_fold6(addr);
	memcpy(&rec->before_src, addr, 4);
	memcpy(&rec->before_dst, addr + 4, 4);
	memcpy(&rec->before_sport, addr + 8, 2);
	memcpy(&rec->before_dport, addr + 10, 2);
	memcpy(&rec->first, addr + 12, 4);
}

bool kb_xlate_more_csum(u8 kind)
{
	const u8 csum6 = KBLOOM_XLATE_OUTER6 | KBLOOM_XLATE_VXLAN_CSUM;

	return kb_xlate_class(kind) == KB_XREC_TUNNEL &&
	       (kind & KBLOOM_XLATE_VXLAN) == KBLOOM_XLATE_VXLAN &&
	       (kind & csum6) == csum6;
}

bool kb_xlate_has_more(u8 kind)
{
	/* GENEVE_OPT is only ever a GENEVE record's (kb_xlate_class()). */
	return kb_xlate_more_csum(kind) ||
	       (kb_xlate_class(kind) == KB_XREC_TUNNEL &&
		(kind & KBLOOM_XLATE_GENEVE_OPT));
}

int kb_geneve_opts_len(const u8 *g)
{
	return g[0] & KB_GENEVE_VERSION ? -1 : (g[0] & KB_GENEVE_OPT_LEN) * 4;
}

bool kb_xlate_is_more_of(const struct kbloom_xlate *more,
			 const struct kbloom_xlate *rec)
{
	return more->kind == KBLOOM_XLATE_MORE &&
	       more->before_src == rec->before_src &&
	       more->before_dst == rec->before_dst && more->first == rec->first;
}

void kb_xlate_more(const struct kbloom_xlate *rec, __be16 sport,
		   __be16 dport, struct kbloom_xlate *more)
{
	*more = *rec;
	more->state = 0;
	more->kind = KBLOOM_XLATE_MORE;
	more->before_sport = sport;
	more->before_dport = dport;
}

void kb_xlate_addr6_get(const struct kbloom_xlate *rec, u8 *addr)
{
	memcpy(addr, &rec->before_src, 4);
	memcpy(addr + 4, &rec->before_dst, 4);
	memcpy(addr + 8, &rec->before_sport, 2);
	memcpy(addr + 10, &rec->before_dport, 2);
	memcpy(addr + 12, &rec->first, 4);
}

static u64 kb_xlate_home(const siphash_key_t *hkey,
			 const struct kbloom_xlate *rec, u64 lines)
{
	u8 key[KBLOOM_XLATE_KEY_LEN];
	struct kb_hash h;

	kb_xlate_key(rec, key);
	kb_hash_key(hkey, key, sizeof(key), &h);
	return kb_reduce(h.h1, lines);
}

enum kb_xlate_put kb_xlate_put(struct kb_filter *f,
			       const struct kbloom_xlate *rec)
{
	struct kbloom_xlate *cells = (struct kbloom_xlate *)f->mem;
	u64 lines = f->s.m / KBLOOM_XLATE_LINE;
	u64 line = kb_xlate_home(&f->hkey, rec, lines);
	u32 head = kb_xlate_head(rec);
	/*
	 * One record is all of it but FIRST, which for NAT says when it was
	 * made: a tunnel's word, an arrival's device or SA tell apart.
	 */
	u32 same = kb_xlate_class(rec->kind) == KB_XREC_NAT ?
		   KB_XLATE_BODY_LEN : KB_XLATE_BYTES - KB_XLATE_BODY;
	u32 p, i;

	for (p = 0; p < KBLOOM_XLATE_PROBES && p < lines; p++) {
		struct kbloom_xlate *c = cells + line * KBLOOM_XLATE_LINE;

		for (i = 0; i < KBLOOM_XLATE_LINE; i++, c++) {
			u32 *w = kb_xlate_word(c);
			/* Pairs with the release below: VALID, then the body. */
			u32 found = smp_load_acquire(w);

			if (!found) {
				found = kb_cmpxchg32(w, 0, KBLOOM_XLATE_WRITING);
				if (!found) {
					memcpy((u8 *)c + KB_XLATE_BODY,
					       (const u8 *)rec + KB_XLATE_BODY,
					       KB_XLATE_BYTES - KB_XLATE_BODY);
					/* The body before VALID. */
					smp_store_release(w, head);
					return KB_XLATE_NEW;
				}
				/* Taken meanwhile: is it ours? (acquire:
				 * as above)
				 */
				found = smp_load_acquire(w);
			}
			if (found == head &&
			    !memcmp((u8 *)c + KB_XLATE_BODY,
				    (const u8 *)rec + KB_XLATE_BODY, same))
				return KB_XLATE_KNOWN;
		}
		if (++line == lines)
			line = 0;
	}
	return KB_XLATE_FULL;
}

#ifndef __KERNEL__
/*
 * Only the offline readers search a table (bloomctl, on exported cells);
 * the module records and exports and never looks up, so it does not carry
 * this.
 */
u32 kb_xlate_find(const struct kbloom_xlate *cells, u64 m,
		  const siphash_key_t *hkey, const struct kbloom_xlate *want,
		  struct kbloom_xlate *out, u32 max)
{
	u64 lines = m / KBLOOM_XLATE_LINE;
	u64 line;
	u32 p, i, n = 0;

	if (!lines)
		return 0;
	line = kb_xlate_home(hkey, want, lines);
	for (p = 0; p < KBLOOM_XLATE_PROBES && p < lines; p++) {
		const struct kbloom_xlate *c = cells + line * KBLOOM_XLATE_LINE;

		for (i = 0; i < KBLOOM_XLATE_LINE; i++, c++) {
			if (c->state != KBLOOM_XLATE_VALID ||
			    c->family != want->family ||
			    c->proto != want->proto ||
			    c->after_src != want->after_src ||
			    c->after_dst != want->after_dst ||
			    c->after_sport != want->after_sport ||
			    c->after_dport != want->after_dport)
				continue;
			if (n < max)
				out[n] = *c;
			n++;
		}
		if (++line == lines)
			line = 0;
	}
	return n;
}
#endif /* !__KERNEL__ */

static u64 kb_xlate_multiple(const struct kb_shape *s)
{
	(void)s;
	return KBLOOM_XLATE_LINE;
}

static enum kb_shape_error kb_xlate_check(const struct kb_shape *s)
{
	if (s->m % kb_xlate_multiple(s))
		return KB_SHAPE_BAD_BITS;
	if (s->k != 1)
		return KB_SHAPE_BAD_HASHES;
	return KB_SHAPE_OK;
}

static u64 kb_xlate_mem(const struct kb_shape *s)
{
	return s->m * KB_XLATE_BYTES;
}

/*
 * Keys are not added or tested by hash: the netlink layer refuses ADD,
 * TEST and the rest for this type (kb_filter_keyed()), so these only
 * answer "nothing" should a caller get here.
 */
static bool kb_xlate_add(struct kb_filter *f, const struct kb_hash *h)
{
	(void)f;
	(void)h;
	return false;
}

static bool kb_xlate_test(const struct kb_filter *f, const struct kb_hash *h)
{
	(void)f;
	(void)h;
	return false;
}

static void kb_xlate_fill(const struct kb_filter *f, struct kb_fill *out)
{
	const struct kbloom_xlate *c = (const struct kbloom_xlate *)f->mem;
	u64 i;

	out->nonzero = 0;
	out->saturated = 0;
	for (i = 0; i < f->s.m; i++) {
		if (READ_ONCE(c[i].state) == KBLOOM_XLATE_VALID)
			out->nonzero++;
		if (!(i % (KB_CHUNK_WORDS / 4)))
			kb_resched();
	}
}

const struct kb_type_ops kb_xlate_ops = {
	.check = kb_xlate_check,
	.multiple = kb_xlate_multiple,
	.mem = kb_xlate_mem,
	.add = kb_xlate_add,
	.test = kb_xlate_test,
	.fill = kb_xlate_fill,
	.info = { .caps = KB_CAP_RECORDS | KB_CAP_WINDOWS },
};
